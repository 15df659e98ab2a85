/* bench-pmappings.c: pmapping generation for a whole GPT-3 6.7B layer on
 * TPUv4i, the FFM paper's experiment (batch 64, 4096 new tokens).
 *
 * Prints, per Einsum, the templates, the tile vectors evaluated, the valid
 * ones, the compatibility groups, the Pareto survivors and the thread time;
 * then the wall time and the peak resident memory of the process. Not a
 * test: it asserts nothing but success. Arguments (optional): the number of
 * threads (default 2), the objective (energy, latency, edp; default edp)
 * and one Einsum's name (default all); FFM_BENCH_MAX_FUSED_LOOPS=N
 * generates the space of N fused loops (default: the library's, any
 * number). Goal of issue 4 (in the one-loop space, then the default):
 * under 30 s and 4 GiB on 2 threads. */
#include <ffm/ffm.h>
#include <stdlib.h>
#include <sys/resource.h>

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autoptr(FfmParamValues) values = ffm_param_values_new ();
  g_autoptr(FfmWorkload) w = NULL;
  g_autoptr(FfmArch) a = NULL;
  g_autoptr(FfmPmappingSet) set = NULL;
  FfmPmappingOptions options;
  FfmObjective objective = FFM_OBJECTIVE_EDP;
  struct rusage usage;
  guint64 evaluated = 0, rows = 0;

  ffm_pmapping_options_init (&options);
  options.n_threads = argc > 1 ? (guint) atoi (argv[1]) : 2;
  if (g_getenv ("FFM_BENCH_MAX_FUSED_LOOPS") != NULL)
    options.max_fused_loops = (int) g_ascii_strtoll (g_getenv ("FFM_BENCH_MAX_FUSED_LOOPS"),
                                                     NULL, 10);
  if (argc > 2 && !ffm_objective_from_string (argv[2], &objective, &error))
    {
      g_printerr ("bench-pmappings: %s\n", error->message);
      return 1;
    }
  options.objectives = objective == FFM_OBJECTIVE_ENERGY ? FFM_PMAPPING_ENERGY
    : objective == FFM_OBJECTIVE_LATENCY ? FFM_PMAPPING_LATENCY
    : FFM_PMAPPING_ENERGY | FFM_PMAPPING_LATENCY;
  ffm_plugin_registry_scan (registry);
  a = ffm_plugin_registry_build_arch (registry, "tpuv4i", NULL, &error);
  if (a != NULL)
    {
      ffm_param_values_parse_assignment (values, "batch=64", NULL);
      ffm_param_values_parse_assignment (values, "new_tokens=4096", NULL);
      w = ffm_workload_load ("gpt3-6.7b", values, &error);
    }
  if (w != NULL && argc > 3)
    options.einsum = ffm_workload_find_einsum (w, argv[3]);
  if (w != NULL)
    set = ffm_pmappings_generate (w, a, &options, &error);
  if (set == NULL)
    {
      g_printerr ("bench-pmappings: %s\n", error->message);
      return 1;
    }
  g_print ("GPT-3 6.7B (batch 64, 4096 tokens) on TPUv4i, %u threads\n",
           options.n_threads);
  g_print ("%-12s %9s %14s %14s %7s %10s %10s\n", "Einsum", "templates",
           "evaluated", "valid", "groups", "pmappings", "thread s");
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      const FfmPmappingStats *s = ffm_einsum_pmappings_get_stats (pm);
      g_print ("%-12s %9u %14" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT
               " %7u %10" G_GUINT64_FORMAT " %10.2f\n",
               ffm_workload_get_einsum (w, ffm_einsum_pmappings_get_einsum (pm))->name,
               s->n_templates, s->n_evaluated, s->n_valid, s->n_groups, s->n_rows,
               s->seconds);
      evaluated += s->n_evaluated;
      rows += s->n_rows;
    }
  getrusage (RUSAGE_SELF, &usage);
  g_print ("total: %" G_GUINT64_FORMAT " evaluated, %" G_GUINT64_FORMAT
           " pmappings; wall %.2f s; peak memory %.1f MiB\n", evaluated, rows,
           ffm_pmapping_set_get_seconds (set), (double) usage.ru_maxrss / 1024.0);
  return 0;
}
