/* test-problem.c: problems, objectives, search contexts and search results
 * (ffm-problem.h). */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

static void
test_problem_refs (void)
{
  g_autofree char *workload_path = g_test_build_filename (G_TEST_DIST, "..", "workloads",
                                                          "matmuls.json", NULL);
  g_autofree char *arch_path = g_test_build_filename (G_TEST_DIST, "..", "arch-models",
                                                      "json", "architectures",
                                                      "simple.json", NULL);
  g_autoptr (GError) error = NULL;
  FfmWorkload *workload;
  FfmArch *arch;
  FfmProblem *problem;

  g_test_summary ("A problem holds a reference on its workload and architecture");
  workload = ffm_workload_load (workload_path, NULL, &error);
  g_assert_no_error (error);
  arch = ffm_arch_load_file (arch_path, NULL, &error);
  g_assert_no_error (error);

  problem = ffm_problem_new (workload, arch);
  /* The problem's references keep both alive after ours are gone. */
  ffm_workload_unref (workload);
  ffm_arch_unref (arch);
  g_assert_true (ffm_problem_get_workload (problem) == workload);
  g_assert_true (ffm_problem_get_arch (problem) == arch);
  g_assert_cmpstr (ffm_workload_get_name (workload), ==, "matmuls");
  g_assert_cmpstr (ffm_arch_get_name (arch), ==, "simple");

  g_assert_true (ffm_problem_ref (problem) == problem);
  ffm_problem_unref (problem);
  g_assert_cmpuint (ffm_workload_get_n_einsums (ffm_problem_get_workload (problem)), ==, 2);
  ffm_problem_unref (problem);
  ffm_problem_unref (NULL);
}

static void
test_objective_strings (void)
{
  static const struct {
    FfmObjective objective;
    const char *text;
  } cases[] = {
    { FFM_OBJECTIVE_EDP, "edp" },
    { FFM_OBJECTIVE_ENERGY, "energy" },
    { FFM_OBJECTIVE_LATENCY, "latency" },
    { FFM_OBJECTIVE_PARETO, "pareto" },
  };
  g_autoptr (GError) error = NULL;
  FfmObjective objective = FFM_OBJECTIVE_ENERGY;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *upper = g_ascii_strup (cases[i].text, -1);

      g_assert_cmpstr (ffm_objective_to_string (cases[i].objective), ==, cases[i].text);
      g_assert_true (ffm_objective_from_string (cases[i].text, &objective, &error));
      g_assert_no_error (error);
      g_assert_cmpint (objective, ==, cases[i].objective);
      objective = FFM_OBJECTIVE_ENERGY;
      g_assert_true (ffm_objective_from_string (upper, &objective, &error));
      g_assert_cmpint (objective, ==, cases[i].objective);
    }
  g_assert_cmpstr (ffm_objective_to_string ((FfmObjective) 17), ==, "unknown");

  objective = FFM_OBJECTIVE_LATENCY;
  g_assert_false (ffm_objective_from_string ("speed", &objective, &error));
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE);
  g_assert_cmpstr (error->message, ==,
                   "unknown objective 'speed' (expected edp, energy, latency or pareto)");
  g_assert_cmpint (objective, ==, FFM_OBJECTIVE_LATENCY);
}

static void
test_search_context_init (void)
{
  FfmSearchContext context;

  memset (&context, 0xff, sizeof context);
  ffm_search_context_init (&context, NULL);
  g_assert_cmpuint (context.struct_size, ==, sizeof (FfmSearchContext));
  g_assert_null (context.problem);
  g_assert_cmpint (context.objective, ==, FFM_OBJECTIVE_EDP);
  g_assert_cmpuint (context.max_evaluations, ==, 0);
  g_assert_cmpfloat (context.max_seconds, ==, 0);
  g_assert_cmpuint (context.seed, ==, 1);
  g_assert_cmpuint (context.n_threads, ==, 1);
  g_assert_cmpint (context.max_fused_loops, ==, -1);
  g_assert_false (context.unfused);
  g_assert_null (context.progress);
  g_assert_null (context.progress_data);
}

/* The one copy of a search's context into the generator's options
 * (ffm_pmapping_options_init_from_context()): every field the context sets
 * of the space, and for a caller built with a shorter struct, nothing
 * beyond it. */
static void
test_pmapping_options_from_context (void)
{
  FfmSearchContext ctx;
  FfmPmappingOptions o;
  gint cancel = 0;
  guchar bytes[sizeof (FfmPmappingOptions) + 16];
  gsize short_size = G_STRUCT_OFFSET (FfmPmappingOptions, unfused);

  ffm_search_context_init (&ctx, NULL);
  ctx.objective = FFM_OBJECTIVE_LATENCY;
  ctx.max_fused_loops = 3;
  ctx.max_fused_loops_per_rank_var = 2;
  ctx.unfused = TRUE;
  ctx.n_threads = 5;
  ctx.cancel = &cancel;
  ctx.imperfect = FFM_IMPERFECT_SPATIAL;
  ctx.max_memory = 12345;
  ctx.max_template_seconds = 2.5;
  ctx.max_templates = 77;
  memset (&o, 0xff, sizeof o);
  ffm_pmapping_options_init_from_context (&o, &ctx);
  g_assert_cmpuint (o.struct_size, ==, sizeof o);
  g_assert_cmpuint (o.objectives, ==, ffm_pmapping_objectives_for (FFM_OBJECTIVE_LATENCY));
  g_assert_cmpint (o.max_fused_loops, ==, 3);
  g_assert_cmpint (o.max_fused_loops_per_rank_var, ==, 2);
  g_assert_true (o.unfused);
  g_assert_cmpuint (o.n_threads, ==, 5);
  g_assert_true (o.cancel == &cancel);
  g_assert_cmpint (o.imperfect, ==, FFM_IMPERFECT_SPATIAL);
  g_assert_cmpuint (o.max_memory, ==, 12345);
  g_assert_cmpfloat (o.max_template_seconds, ==, 2.5);
  g_assert_cmpuint (o.max_templates, ==, 77);
  g_assert_null (o.progress);
  g_assert_null (o.constraints);

  /* A context from an older host has no budgets: the defaults stay. */
  ctx.struct_size = G_STRUCT_OFFSET (FfmSearchContext, max_templates);
  ffm_pmapping_options_init_from_context (&o, &ctx);
  g_assert_cmpuint (o.max_templates, ==, 0);
  g_assert_cmpuint (o.max_memory, ==, 0);

  /* A caller built with fewer fields: nothing written beyond them. */
  memset (bytes, 0xab, sizeof bytes);
  ffm_pmapping_options_init_from_context_sized ((FfmPmappingOptions *) (void *) bytes,
                                                short_size, &ctx);
  g_assert_cmpuint (((FfmPmappingOptions *) (void *) bytes)->struct_size, ==, short_size);
  for (gsize i = short_size; i < sizeof bytes; i++)
    g_assert_cmpuint (bytes[i], ==, 0xab);
}

static void
test_search_result (void)
{
  g_autoptr (FfmSearchResult) result = ffm_search_result_new ();
  FfmMapping *first = ffm_mapping_new ();
  FfmMapping *second = ffm_mapping_new ();
  const FfmSolution *solution;
  const GArray *trace;
  const GArray *stats;
  double value = -1;

  g_test_summary ("Solutions, trace and statistics keep the order they were added");
  g_assert_cmpuint (ffm_search_result_get_n_solutions (result), ==, 0);
  g_assert_cmpuint (ffm_search_result_get_trace (result)->len, ==, 0);
  g_assert_cmpuint (ffm_search_result_get_stats (result)->len, ==, 0);

  ffm_search_result_add_solution (result, first, 2.5e-3, 1e-6);
  ffm_search_result_add_solution (result, second, 1.0e-3, INFINITY);
  g_assert_cmpuint (ffm_search_result_get_n_solutions (result), ==, 2);
  solution = ffm_search_result_get_solution (result, 0);
  g_assert_true (solution->mapping == first);
  g_assert_cmpfloat (solution->energy, ==, 2.5e-3);
  g_assert_cmpfloat (solution->latency, ==, 1e-6);
  solution = ffm_search_result_get_solution (result, 1);
  g_assert_true (solution->mapping == second);
  g_assert_true (isinf (solution->latency));

  ffm_search_result_add_trace_point (result, 10, 0.5, 7.0);
  ffm_search_result_add_trace_point (result, 20, 0.75, 3.0);
  trace = ffm_search_result_get_trace (result);
  g_assert_cmpuint (trace->len, ==, 2);
  g_assert_cmpuint (g_array_index (trace, FfmTracePoint, 1).evaluations, ==, 20);
  g_assert_cmpfloat (g_array_index (trace, FfmTracePoint, 1).seconds, ==, 0.75);
  g_assert_cmpfloat (g_array_index (trace, FfmTracePoint, 1).best_objective, ==, 3.0);

  ffm_search_result_set_stat (result, "pmappings_generated", 100);
  ffm_search_result_set_stat (result, "joins", 3);
  ffm_search_result_set_stat (result, "pmappings_generated", 250);
  stats = ffm_search_result_get_stats (result);
  g_assert_cmpuint (stats->len, ==, 2);
  g_assert_cmpstr (g_array_index (stats, FfmStat, 0).name, ==, "pmappings_generated");
  g_assert_cmpfloat (g_array_index (stats, FfmStat, 0).value, ==, 250);
  g_assert_cmpstr (g_array_index (stats, FfmStat, 1).name, ==, "joins");
  g_assert_true (ffm_search_result_lookup_stat (result, "joins", &value));
  g_assert_cmpfloat (value, ==, 3);
  g_assert_false (ffm_search_result_lookup_stat (result, "nosuch", &value));
  g_assert_cmpfloat (value, ==, 3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/problem/refs", test_problem_refs);
  g_test_add_func ("/problem/objective-strings", test_objective_strings);
  g_test_add_func ("/problem/search-context-init", test_search_context_init);
  g_test_add_func ("/problem/search-result", test_search_result);
  g_test_add_func ("/problem/pmapping-options-from-context", test_pmapping_options_from_context);
  return g_test_run ();
}
