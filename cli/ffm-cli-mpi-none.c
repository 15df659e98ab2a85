/* ffm-cli-mpi-none.c: ffm-cli-mpi.h in a build without MPI (the
 * default): one process; started as one of several ranks, it says so
 * instead of repeating the search on every rank; sweep points and compare
 * runs are never shared (ffm-cli-mpi-points.h). */
#include "ffm-cli-mpi.h"
#include "ffm-cli-mpi-points.h"

#include <stdlib.h>

gboolean
ffm_cli_mpi_is_built (void)
{
  return FALSE;
}

/* The launcher's count of processes, from its environment; 1 if none,
 * 0 if several but how many is not said. */
static gint64
launched_ranks (void)
{
  const char *vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE" };

  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      const char *v = g_getenv (vars[i]);
      if (v != NULL)
        return g_ascii_strtoll (v, NULL, 10);
    }
  /* srun with PMIx names the rank only. */
  if (g_getenv ("PMIX_RANK") != NULL && g_ascii_strtoll (g_getenv ("PMIX_RANK"), NULL, 10) > 0)
    return 0;
  return 1;
}

int
ffm_cli_mpi_begin (const char *command, gboolean *is_worker)
{
  gint64 n = launched_ranks ();
  g_autofree char *count = n > 1 ? g_strdup_printf ("%" G_GINT64_FORMAT, n)
    : g_strdup ("several");

  *is_worker = FALSE;
  if (n == 1)
    return FFM_EXIT_OK;
  g_printerr ("ffm %s: started as one of %s MPI processes, but this ffm was "
              "built without MPI: build it with meson -Dmpi=enabled "
              "(docs/cluster.md), or run it without mpirun/srun\n", command, count);
  return FFM_EXIT_FAILURE;
}

void
ffm_cli_mpi_lead (void)
{
}

int
ffm_cli_mpi_serve (const char *command, FfmProblem *problem,
                   const FfmConstraints *constraints, guint n_threads)
{
  return FFM_EXIT_OK;
}

int
ffm_cli_mpi_end (const char *command, int status)
{
  return status;
}

gboolean
ffm_cli_mpi_is_worker (void)
{
  return FALSE;
}

void
ffm_cli_mpi_fingerprint_add (guint64 *hash, const char *text)
{
}

gboolean
ffm_cli_mpi_points_share (const char *command, const char *unit, const char *stopped,
                          const char *shared, const guint *items, guint n_items, guint64 fingerprint,
                          guint n_local, const gint *cancel, FfmCliMpiRunHere here,
                          FfmCliMpiResult result, gpointer data)
{
  return FALSE;
}

gboolean
ffm_cli_mpi_points_finish (GError **error)
{
  return TRUE;
}

int
ffm_cli_mpi_points_serve (const char *command, guint64 fingerprint, guint n_threads,
                          guint max_parallel, FfmCliMpiRunThere there, gpointer data)
{
  return FFM_EXIT_OK;
}
