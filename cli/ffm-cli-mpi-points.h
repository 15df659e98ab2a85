/* ffm-cli-mpi-points.h: `ffm sweep` points and `ffm compare` runs over MPI
 * ranks (docs/cluster.md).
 *
 * Under mpirun every rank parses the same command line and builds the
 * same list of items (sweep points, compare runs). Rank 0 hands item
 * indices out one at a time to whichever rank asks (dynamic balancing)
 * and runs items itself on its own threads too; another rank sends back
 * each item's result as text (a CSV row, ...), which rank 0 reads as if
 * it had computed it. Rank 0 alone writes the outputs. A fingerprint of
 * the items, computed on every rank, must match rank 0's.
 *
 * Faults: a rank that cannot serve (other input, a bad argument) makes
 * the command fail after the other ranks finished their items (those
 * results are kept); a rank that dies makes the launcher end every rank
 * (Open MPI's default), rank 0 saying so on stderr. Without MPI
 * (ffm-cli-mpi-none.c) rank 0 is the only process: nothing is shared. */
#pragma once

#include "ffm-cli-common.h"

G_BEGIN_DECLS

/* Rank 0: runs @item here (on a thread of this module); its result goes
 * wherever the command's own results go. */
typedef void (*FfmCliMpiRunHere) (guint item, gpointer data);
/* Rank 0: the result of @item another rank sent, as its
 * FfmCliMpiRunThere returned it; NULL when no rank ran it to the end (a
 * rank failed, the command was stopped). Called on a thread of this
 * module, once per item not run here. */
typedef void (*FfmCliMpiResult) (guint item, const char *text, gpointer data);
/* A rank other than 0: runs @item with @n_threads threads and returns its
 * result as text (owned), or NULL when it was stopped (Ctrl-C,
 * --timeout) and is no result. @shared: what rank 0 measured before
 * handing items out and every rank needs (ffm's time for budgets), or
 * NULL. Called on threads of this module. */
typedef char *(*FfmCliMpiRunThere) (guint item, guint n_threads, const char *shared,
                                    gpointer data);

/* TRUE on a rank other than 0 of several (after ffm_cli_mpi_begin()). */
gboolean ffm_cli_mpi_is_worker (void);

/* Adds @text to the running FNV-1a hash *@hash (start at 0). */
void ffm_cli_mpi_fingerprint_add (guint64 *hash, const char *text);

/* Rank 0 of several: starts handing out @items (@n_items indices, in this
 * order) to every rank, and runs them here on @n_local threads with
 * @here, until there are none left or *@cancel is set. Returns at once:
 * every item then comes back through @here or @result exactly once.
 * FALSE (nothing started) when this is not rank 0 of several: run the
 * items as a single process does. @unit names the items in the report
 * ("points"); @stopped is printed if a rank dies; @shared (or NULL) goes
 * to every FfmCliMpiRunThere. */
gboolean ffm_cli_mpi_points_share (const char *command, const char *unit,
                                   const char *stopped, const char *shared,
                                   const guint *items,
                                   guint n_items, guint64 fingerprint, guint n_local,
                                   const gint *cancel, FfmCliMpiRunHere here,
                                   FfmCliMpiResult result, gpointer data);

/* Rank 0, after ffm_cli_mpi_points_share() returned TRUE and every item
 * came back: waits for every rank. FALSE, with the reason, when a rank
 * failed. TRUE when nothing was shared. */
gboolean ffm_cli_mpi_points_finish (GError **error);

/* A rank other than 0: runs the items rank 0 hands out with @there until
 * rank 0 has none left, checking @fingerprint against rank 0's, then
 * waits for the end of the command. Up to @max_parallel items at a time
 * (0: one per thread of @n_threads, as ffm sweep does), sharing the
 * threads. Returns the exit status. */
int ffm_cli_mpi_points_serve (const char *command, guint64 fingerprint,
                              guint n_threads, guint max_parallel,
                              FfmCliMpiRunThere there, gpointer data);

G_END_DECLS
