/* ffm-cli-cancel.h: stopping a long command cleanly.
 *
 * Ctrl-C (SIGINT), SIGTERM (what `timeout`, `kill` and batch schedulers
 * send) and --timeout set one flag, which the command hands to
 * the search (FfmSearchContext.cancel) or to the pmapping generator
 * (FfmPmappingOptions.cancel). Strategies poll it and stop: with their best
 * mapping so far, marked as such, or with FFM_SEARCH_ERROR_CANCELLED when
 * they have none yet (ffm has no mapping before its join ends). The command
 * then says why it stopped and exits non-zero when it has nothing to show.
 * A second Ctrl-C or SIGTERM ends the process at once (the default
 * action), for a strategy that does not poll. SIGTERM is taken only when
 * nothing else handles it (its action is the default one): under mpirun,
 * rank 0's own handler stays (ffm-cli-mpi.h).
 *
 * One guard at a time per process (the signal handler has one flag). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  FFM_CLI_STOP_NONE = 0,
  FFM_CLI_STOP_INTERRUPT,       /* Ctrl-C */
  FFM_CLI_STOP_TIMEOUT,         /* --timeout ran out */
  FFM_CLI_STOP_TERMINATE,       /* SIGTERM */
} FfmCliStopReason;

typedef struct _FfmCliCancel FfmCliCancel;

/* The largest --timeout, s (the timer's arithmetic stays exact). */
#define FFM_CLI_MAX_TIMEOUT 2147483647.0

/* TRUE if @timeout_seconds is a valid --timeout: 0 (none) to
 * FFM_CLI_MAX_TIMEOUT. */
gboolean ffm_cli_timeout_is_valid (double timeout_seconds);

/* Installs the SIGINT and SIGTERM handlers and, when @timeout_seconds > 0,
 * a timer that sets the flag after that long. (transfer full) */
FfmCliCancel *ffm_cli_cancel_begin (double timeout_seconds);
/* Restores SIGINT's and SIGTERM's actions, stops the timer and frees
 * @cancel. */
void ffm_cli_cancel_end (FfmCliCancel *cancel);

/* The flag to pass to the search (transfer none; valid until _end()). */
const gint *ffm_cli_cancel_get_flag (const FfmCliCancel *cancel);
FfmCliStopReason ffm_cli_cancel_get_reason (const FfmCliCancel *cancel);
/* The exit code of a command that stopped for @reason: FFM_EXIT_INTERRUPTED
 * (130) for Ctrl-C, FFM_EXIT_TIMEOUT (124) for --timeout, whatever the
 * strategy and whether or not it had a result to show; FFM_EXIT_OK when
 * it was not stopped. */
int ffm_cli_stop_exit_code (FfmCliStopReason reason);

/* Why the command stopped, for messages: "interrupted (Ctrl-C)",
 * "terminated (SIGTERM)", "stopped by --timeout 5 s", or NULL when it was
 * not stopped. */
const char *ffm_cli_cancel_describe (const FfmCliCancel *cancel);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmCliCancel, ffm_cli_cancel_end)

G_END_DECLS
