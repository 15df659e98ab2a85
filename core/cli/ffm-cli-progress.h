/* ffm-cli-progress.h: the progress line of long commands.
 *
 * Strategies and the generator report their phase now and then through an
 * FfmProgressFunc; long phases (the pmapping generator) may say nothing for
 * minutes, so a thread redraws the line with the elapsed time until the
 * command stops it. Drawn on stderr, and only when stderr is a terminal:
 * pipes and files never see it. Stopping clears the line, also after
 * Ctrl-C (ffm-cli-cancel.h lets the command end normally). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FfmCliProgress FfmCliProgress;

/* Starts the clock and, on a terminal, the drawing thread; lines read
 * "ffm @command: PHASE NN% (T s)". (transfer full) */
FfmCliProgress *ffm_cli_progress_start (const char *command);
/* An FfmProgressFunc: @data is the FfmCliProgress. */
void ffm_cli_progress_update (double fraction, const char *phase, gpointer data);
/* Seconds since ffm_cli_progress_start(). */
double ffm_cli_progress_get_elapsed (const FfmCliProgress *progress);
/* Stops drawing, clears the line and frees @progress. */
void ffm_cli_progress_stop (FfmCliProgress *progress);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmCliProgress, ffm_cli_progress_stop)

G_END_DECLS
