/* bench-mpi-scaling.c: the scaling model of `mpirun -n N ffm map`
 * (docs/cluster.md) from measured per-template times.
 *
 * Runs every pmapping job (Einsum x template, ffm-pmapping-jobs.h) of one
 * problem alone on one thread and measures its thread CPU time (steady on
 * a loaded machine, unlike wall time) and the bytes its result takes on
 * the wire. Then models the generation on N ranks of one thread each, as
 * ffm-cli-mpi.c dispatches: jobs in the generator's order, each to the
 * first rank that is free. The longest job bounds the speed-up whatever
 * N; the join, on rank 0 alone, is not included (add it: Amdahl).
 * Not a test: it asserts nothing but success.
 *   bench-mpi-scaling [ARCH WORKLOAD [KEY=VALUE]...]
 * Default: tpuv4i gpt3-6.7b batch=64. */
#include <ffm/ffm.h>
#include "ffm-pmapping-jobs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double
thread_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* The makespan of @n_jobs jobs of @seconds on @n_ranks ranks, each job
 * to the rank that is free first, in order. */
static double
makespan (const double *seconds, guint n_jobs, guint n_ranks)
{
  g_autofree double *free_at = g_new0 (double, n_ranks);
  double end = 0;

  for (guint i = 0; i < n_jobs; i++)
    {
      guint r = 0;
      for (guint k = 1; k < n_ranks; k++)
        if (free_at[k] < free_at[r])
          r = k;
      free_at[r] += seconds[i];
      end = MAX (end, free_at[r]);
    }
  return end;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autoptr(FfmParamValues) values = ffm_param_values_new ();
  g_autoptr(FfmWorkload) w = NULL;
  g_autoptr(FfmArch) a = NULL;
  g_autoptr(FfmPmappingJobs) jobs = NULL;
  g_autofree double *seconds = NULL;
  const char *arch = argc > 2 ? argv[1] : "tpuv4i";
  const char *workload = argc > 2 ? argv[2] : "gpt3-6.7b";
  static const guint ranks[] = { 1, 2, 8, 16, 32, 64, 128, 256 };
  FfmPmappingOptions options;
  double total = 0, longest = 0, bytes = 0;
  guint n, longest_job = 0, longest_template = 0;
  struct rusage usage;

  if (argc > 2)
    for (int i = 3; i < argc; i++)
      {
        if (!ffm_param_values_parse_assignment (values, argv[i], &error))
          break;
      }
  else
    ffm_param_values_parse_assignment (values, "batch=64", NULL);
  ffm_plugin_registry_scan (registry);
  if (error == NULL)
    a = ffm_plugin_registry_build_arch (registry, arch, NULL, &error);
  if (a != NULL)
    w = ffm_workload_load (workload, values, &error);
  ffm_pmapping_options_init (&options);
  options.n_threads = 1;
  if (w != NULL)
    jobs = ffm_pmapping_jobs_new (w, a, &options, &error);
  if (jobs == NULL)
    {
      g_printerr ("bench-mpi-scaling: %s\n", error->message);
      return 1;
    }
  n = ffm_pmapping_jobs_get_n_jobs (jobs);
  seconds = g_new0 (double, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      double start = thread_seconds ();
      g_autoptr(GBytes) result = ffm_pmapping_jobs_run_to_bytes (jobs, i, NULL);
      seconds[i] = thread_seconds () - start;
      bytes += (double) g_bytes_get_size (result);
      total += seconds[i];
      if (seconds[i] > longest)
        {
          longest = seconds[i];
          longest_job = i;
        }
    }
  getrusage (RUSAGE_SELF, &usage);
  g_print ("%s on %s: %u pmapping jobs, %.2f s of thread CPU in all, %.1f MiB "
           "of results on the wire, peak memory %.0f MiB\n",
           ffm_workload_get_name (w), ffm_arch_get_name (a), n, total,
           bytes / 1048576.0, (double) usage.ru_maxrss / 1024.0);
  if (n == 0)
    return 0;
  g_print ("longest job: Einsum %s, ",
           ffm_pmapping_jobs_describe (jobs, longest_job, &longest_template));
  g_print ("template %u, %.3f s (%.1f %% of the total): no number of ranks "
           "makes the generation faster than %.1fx\n", longest_template,
           longest, 100.0 * longest / total, total / longest);
  g_print ("%6s %12s %9s %9s\n", "ranks", "makespan s", "speed-up", "bound");
  for (guint k = 0; k < G_N_ELEMENTS (ranks); k++)
    {
      double m = makespan (seconds, n, ranks[k]);
      g_print ("%6u %12.3f %9.2f %9.2f\n", ranks[k], m, total / m,
               MIN ((double) ranks[k], total / longest));
    }
  return 0;
}
