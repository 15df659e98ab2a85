/* ffm-cli-mpi-private.h: what ffm-cli-mpi.c (pmapping jobs) shares with
 * ffm-cli-mpi-points.c (sweep points, compare runs): the ranks, the
 * message helpers and the per-rank report. Built with MPI only. */
#pragma once

#include "ffm-cli-mpi.h"

#include <mpi.h>

G_BEGIN_DECLS

/* Tags of ffm-cli-mpi.c below 16, of ffm-cli-mpi-points.c from 16; QUIT
 * ends every protocol. */
#define FFM_CLI_MPI_TAG_FAILED 6
#define FFM_CLI_MPI_TAG_QUIT 7

/* What a rank reports when it has no more work. */
typedef struct {
  guint64 n_jobs;               /* jobs, points or runs it ran */
  double busy_seconds;          /* time of those */
  guint64 peak_kib;             /* peak resident memory */
} FfmCliMpiRankStats;

int ffm_cli_mpi_rank (void);
/* 1 when MPI did not start. */
int ffm_cli_mpi_size (void);
/* A rank other than 0 reached the command's serving loop. */
void ffm_cli_mpi_set_served (void);
/* Rank 0 is in the middle of handing out work: failing now stops every
 * rank (MPI_Abort), since some may wait for it. */
void ffm_cli_mpi_set_busy (gboolean busy);
/* Rank 0: adds @stats to rank @rank's line of the report, under @unit
 * ("points", "runs"). */
void ffm_cli_mpi_add_stats (int rank, const FfmCliMpiRankStats *stats, const char *unit);
/* Rank 0 of several: a dead rank makes the launcher stop this one with
 * SIGTERM; @text (static) is printed then. */
void ffm_cli_mpi_on_stop (const char *text);

guint64 ffm_cli_mpi_peak_kib (void);
void ffm_cli_mpi_idle (guint *spins);
gboolean ffm_cli_mpi_message_waiting (int source, MPI_Status *status);
GBytes *ffm_cli_mpi_receive_bytes (const MPI_Status *status);
void ffm_cli_mpi_send_text (int dest, int tag, const char *text);
void ffm_cli_mpi_send_int (int dest, int tag, gint32 value);
/* The test fault FFM_DEBUG=mpi-die=RANK:N (docs/cluster.md): this rank
 * dies when it receives its N-th piece of work. */
void ffm_cli_mpi_maybe_die (guint64 n_received);

G_END_DECLS
