/* ffm-cli-mpi.h: `ffm map` over MPI ranks (docs/cluster.md); starting and
 * ending MPI for every command that uses it (sweep points and compare runs:
 * ffm-cli-mpi-points.h).
 *
 * Under mpirun or srun every rank runs the same command line and loads the
 * same problem (and binds the same mapping constraints itself: the job
 * fingerprint covers them). Rank 0 runs the search; when the search generates
 * pmappings, rank 0 hands the generator's jobs (one per Einsum and
 * template, ffm-pmapping-jobs.h) to the other ranks one at a time as each
 * asks for more, runs jobs itself with its threads too, gathers the
 * results (flat bytes) and joins as a single process does: the mapping and
 * its numbers are the same bit for bit. The other ranks only serve jobs
 * (ffm_cli_mpi_serve()) and print nothing on stdout.
 *
 * Without a launcher's environment (OMPI_COMM_WORLD_SIZE, PMIX_RANK,
 * PMI_RANK) MPI is not started and ffm is a single process. A build
 * without MPI (meson -Dmpi=disabled, the default; ffm-cli-mpi-none.c)
 * refuses to run as one of several ranks rather than repeat the search on
 * each. Faults: a rank that fails says why and the run fails; a rank that
 * dies ends the whole run (the launcher stops every rank and exits
 * non-zero); rank 0 prints no mapping unless every job came back. */
#pragma once

#include "ffm-cli-common.h"

G_BEGIN_DECLS

/* TRUE in a build with MPI. */
gboolean ffm_cli_mpi_is_built (void);

/* Starts MPI when a launcher started this process; sets *is_worker when
 * this is a rank other than 0 of several. Returns FFM_EXIT_OK, or prints
 * why it cannot run (on stderr, naming @command) and returns
 * FFM_EXIT_FAILURE. */
int ffm_cli_mpi_begin (const char *command, gboolean *is_worker);

/* The body of a command that can run under mpirun: starts MPI
 * (ffm_cli_mpi_begin(), *@is_worker set), parses @argv into @context (no
 * positional argument allowed), calls @run with @options, and ends MPI
 * with its status (ffm_cli_mpi_end()). Returns the exit status. */
typedef int (*FfmCliCommandRun) (GOptionContext *context, gpointer options);
int ffm_cli_mpi_run_command (GOptionContext *context,
                             const char *command,
                             FfmCliCommon *common,
                             FfmCliRunOptions *run_options,
                             int argc,
                             char **argv,
                             gboolean *is_worker,
                             FfmCliCommandRun run,
                             gpointer options);

/* Rank 0 of several: the pmapping generator's jobs go to every rank from
 * now on. */
void ffm_cli_mpi_lead (void);

/* A rank other than 0: runs rank 0's jobs on @problem under @constraints
 * (this rank's own, from the same command line; NULL for none) with
 * @n_threads threads until rank 0 is done. Returns the exit status. */
int ffm_cli_mpi_serve (const char *command, FfmProblem *problem,
                       const FfmConstraints *constraints, guint n_threads);

/* Ends MPI with the command's exit @status: rank 0 prints what each rank
 * did (jobs, points or runs, busy time, peak memory) on stderr when it
 * succeeded or shared points or runs to the end, lets the
 * others go, or on failure stops every rank; another rank that failed
 * before serving tells rank 0. Returns @status. No-op without MPI. */
int ffm_cli_mpi_end (const char *command, int status);

G_END_DECLS
