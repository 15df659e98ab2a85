/* ffm-cli-progress.h: the progress line of long commands.
 *
 * Strategies report their phase now and then through an FfmProgressFunc
 * ("pmappings: Einsum 3 of 7 (QK), template 120 of 450", "join") with the
 * fraction done; the pmapping generator reports templates started and
 * done (FfmPmappingProgress). Long phases may say nothing for minutes, so
 * a thread redraws the line every quarter of a second:
 *   ffm map: pmappings: Einsum 3 of 7 (QK), template 120 of 450 27% (12 s, about 33 s left)
 * The estimate extrapolates the current phase's fraction over its own
 * elapsed time, once the phase has run a few seconds. The line is drawn on
 * stderr, only when stderr is a terminal (pipes and files never see it),
 * cut to the terminal's width so that it never wraps, and only for runs
 * longer than a second. Stopping clears it, and so does a second Ctrl-C
 * that ends the process (ffm_cli_progress_clear_from_signal()). */
#pragma once

#include <ffm/ffm.h>

G_BEGIN_DECLS

typedef struct _FfmCliProgress FfmCliProgress;

/* Starts the clock and, when @enabled and stderr is a terminal, the
 * drawing thread. (transfer full) */
FfmCliProgress *ffm_cli_progress_start (const char *command, gboolean enabled);
/* An FfmProgressFunc (thread-safe): @data is the FfmCliProgress. */
void ffm_cli_progress_update (double fraction, const char *phase, gpointer data);
/* An FfmPmappingProgressFunc (thread-safe): @data is the FfmCliProgress. */
void ffm_cli_progress_pmappings (const FfmPmappingProgress *progress, gpointer data);
/* Seconds since ffm_cli_progress_start(). */
double ffm_cli_progress_get_elapsed (const FfmCliProgress *progress);
/* Stops drawing, clears the line and frees @progress. */
void ffm_cli_progress_stop (FfmCliProgress *progress);

/* Clears the line if one is drawn; async-signal-safe (write(2) only), for
 * the signal handler of ffm-cli-cancel.h before the process ends. */
void ffm_cli_progress_clear_from_signal (void);

/* The line for @phase at @fraction (< 0: unknown) after @elapsed s, of
 * which @phase_elapsed in this phase, cut to @width characters (0: no
 * limit) (transfer full). The drawing thread's text, for tests. */
char *ffm_cli_progress_format (const char *command, const char *phase, double fraction,
                               double elapsed, double phase_elapsed, guint width);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmCliProgress, ffm_cli_progress_stop)

G_END_DECLS
