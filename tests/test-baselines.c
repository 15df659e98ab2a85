/* test-baselines.c: the set, tileflow and random strategies (plugins/)
 * against ffm on random small problems (random-problem.h).
 *
 *   - every mapping a baseline returns fits, re-evaluates with the cost
 *     model to exactly the energy and latency it reports, and is never
 *     better than ffm's optimum (that would be a bug in one of them);
 *   - on tiny problems, given enough budget, each reaches ffm's optimum,
 *     to the last bit;
 *   - the same seed gives the same result and the same trace, with one
 *     thread and with two (the parts of a search, not the threads, fix
 *     what it draws);
 *   - budgets: evaluations exactly, modelled time never exceeded, wall
 *     time within a loose tolerance; the cancel flag stops a search with
 *     its best so far, marked interrupted; bad parameters are errors.
 * FFM_BASELINES_CASES=N sets the number of random problems (default 40). */
#include <ffm/ffm.h>

#include "random-problem.h"

#include <math.h>
#include <string.h>

#ifdef __SANITIZE_ADDRESS__
#define DEFAULT_CASES 12
#else
#define DEFAULT_CASES 40
#endif
/* TUNING: a tiny problem has at most this many states; the budget that
 * must reach the optimum is REACH_FACTOR times that (at least
 * REACH_MIN). */
#define TINY_STATES 400
#define REACH_FACTOR 60
#define REACH_MIN 6000

static FfmPluginRegistry *registry;
static const char *const baselines[] = { "set", "tileflow", "random" };

static const FfmPluginInfo *
plugin (const char *name)
{
  g_autoptr (GError) error = NULL;
  const FfmPluginInfo *p = ffm_plugin_registry_lookup (registry, FFM_PLUGIN_KIND_SEARCH,
                                                       name, &error);
  g_assert_no_error (error);
  return p;
}

static guint64
env_number (const char *name, guint64 fallback)
{
  const char *v = g_getenv (name);

  return v != NULL && *v != '\0' ? g_ascii_strtoull (v, NULL, 10) : fallback;
}

static FfmSearchResult *
run (const char *name, FfmSearchContext *ctx, const FfmParamValues *values,
     GError **error)
{
  return plugin (name)->descriptor->vtable.search->run (ctx, values, error);
}

static double
edp_of (const FfmSearchResult *r)
{
  const FfmSolution *s = ffm_search_result_get_solution (r, 0);

  return s->energy * s->latency;
}

static double
stat (const FfmSearchResult *r, const char *name)
{
  double v = NAN;

  g_assert_true (ffm_search_result_lookup_stat (r, name, &v));
  return v;
}

/* The solution fits, re-evaluates to what was reported, and the trace's
 * best only decreases, ending at the solution's value. */
static void
check_result (FfmProblem *problem, const FfmSearchResult *r, const char *who)
{
  const FfmSolution *s;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmCostReport) report = NULL;
  const GArray *trace = ffm_search_result_get_trace (r);

  g_assert_cmpuint (ffm_search_result_get_n_solutions (r), ==, 1);
  s = ffm_search_result_get_solution (r, 0);
  report = ffm_cost_evaluate_mapping (ffm_problem_get_workload (problem),
                                      ffm_problem_get_arch (problem), s->mapping, &error);
  g_assert_no_error (error);
  if (!ffm_cost_report_fits (report))
    g_error ("%s returned a mapping that does not fit: %s", who,
             ffm_cost_report_get_problem (report));
  g_assert_cmpfloat (ffm_cost_report_get_energy (report), ==, s->energy);
  g_assert_cmpfloat (ffm_cost_report_get_latency (report), ==, s->latency);
  g_assert_cmpuint (trace->len, >, 0);
  for (guint i = 1; i < trace->len; i++)
    {
      const FfmTracePoint *a = &g_array_index (trace, FfmTracePoint, i - 1);
      const FfmTracePoint *b = &g_array_index (trace, FfmTracePoint, i);
      g_assert_cmpfloat (b->best_objective, <=, a->best_objective);
      g_assert_cmpuint (b->evaluations, >=, a->evaluations);
      g_assert_cmpfloat (b->seconds, >=, a->seconds);
    }
  g_assert_cmpfloat (g_array_index (trace, FfmTracePoint, trace->len - 1).best_objective,
                     ==, edp_of (r));
}

typedef struct {
  guint64 seed;
  FfmWorkload *w;
  FfmArch *a;
  FfmProblem *problem;
  int max_fused;
  double optimum;               /* ffm's EDP */
  double states;                /* states of the mapspace */
} Case;

static void
case_clear (Case *c)
{
  ffm_problem_unref (c->problem);
  ffm_workload_unref (c->w);
  ffm_arch_unref (c->a);
}

static gboolean
case_make (guint64 seed, Case *c)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmSearchResult) truth = NULL;
  g_autoptr (FfmMapspace) ms = NULL;
  FfmSearchContext ctx;

  memset (c, 0, sizeof *c);
  c->seed = seed;
  random_problem_make (seed, &c->w, &c->a, &c->max_fused);
  c->problem = ffm_problem_new (c->w, c->a);
  ffm_search_context_init (&ctx, c->problem);
  ctx.max_fused_loops = c->max_fused;
  truth = run ("ffm", &ctx, NULL, &error);
  if (truth == NULL)
    {
      g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE);
      case_clear (c);
      return FALSE;
    }
  c->optimum = edp_of (truth);
  ms = ffm_mapspace_new_for_context (&ctx, &error);
  g_assert_no_error (error);
  /* An upper bound on the states: group combinations x most rows each. */
  c->states = ffm_mapspace_get_n_combinations (ms);
  for (guint x = 0; x < ffm_mapspace_get_n_einsums (ms); x++)
    {
      guint rows = 1;
      for (guint g = 0; g < ffm_mapspace_get_n_groups (ms, x); g++)
        rows = MAX (rows, ffm_mapspace_group_get_n_rows (ms, x, g));
      c->states *= rows;
    }
  return TRUE;
}

static void
test_valid_and_never_better (void)
{
  guint64 cases = env_number ("FFM_BASELINES_CASES", DEFAULT_CASES), done = 0, equal = 0;

  g_test_summary ("Baselines return valid mappings the model agrees with, never "
                  "better than ffm's optimum");
  for (guint64 seed = 1; done < cases; seed++)
    {
      Case c;
      if (!case_make (seed, &c))
        continue;
      for (guint b = 0; b < G_N_ELEMENTS (baselines); b++)
        {
          FfmSearchContext ctx;
          g_autoptr (GError) error = NULL;
          g_autoptr (FfmSearchResult) r = NULL;
          ffm_search_context_init (&ctx, c.problem);
          ctx.max_fused_loops = c.max_fused;
          ctx.max_evaluations = 100;
          ctx.seed = seed;
          r = run (baselines[b], &ctx, NULL, &error);
          g_assert_no_error (error);
          check_result (c.problem, r, baselines[b]);
          if (edp_of (r) < c.optimum)
            g_error ("%s beat ffm on case %" G_GUINT64_FORMAT ": %.17g < %.17g",
                     baselines[b], seed, edp_of (r), c.optimum);
          equal += edp_of (r) == c.optimum;
        }
      case_clear (&c);
      done++;
    }
  g_test_message ("%" G_GUINT64_FORMAT " problems; %" G_GUINT64_FORMAT " of %"
                  G_GUINT64_FORMAT " runs at the optimum", done, equal,
                  done * G_N_ELEMENTS (baselines));
}

static void
test_reach_optimum (void)
{
  guint64 cases = env_number ("FFM_BASELINES_CASES", DEFAULT_CASES) / 2, done = 0;

  g_test_summary ("On tiny problems, with enough budget, every baseline reaches "
                  "ffm's optimum to the last bit");
  for (guint64 seed = 100; done < cases; seed++)
    {
      Case c;
      if (!case_make (seed, &c))
        continue;
      if (c.states > TINY_STATES)
        {
          case_clear (&c);
          continue;
        }
      for (guint b = 0; b < G_N_ELEMENTS (baselines); b++)
        {
          FfmSearchContext ctx;
          g_autoptr (GError) error = NULL;
          g_autoptr (FfmSearchResult) r = NULL;
          ffm_search_context_init (&ctx, c.problem);
          ctx.max_fused_loops = c.max_fused;
          ctx.max_evaluations = MAX (REACH_MIN, (guint64) (REACH_FACTOR * c.states));
          ctx.seed = seed;
          r = run (baselines[b], &ctx, NULL, &error);
          g_assert_no_error (error);
          if (edp_of (r) != c.optimum)
            g_error ("%s did not reach ffm's optimum on case %" G_GUINT64_FORMAT
                     " (%.0f states, %" G_GUINT64_FORMAT " evaluations): %.17g, not %.17g",
                     baselines[b], seed, c.states, ctx.max_evaluations, edp_of (r),
                     c.optimum);
        }
      case_clear (&c);
      done++;
    }
}

static void
assert_same_trace (const FfmSearchResult *x, const FfmSearchResult *y)
{
  const GArray *a = ffm_search_result_get_trace (x), *b = ffm_search_result_get_trace (y);

  g_assert_cmpfloat (edp_of (x), ==, edp_of (y));
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      g_assert_cmpuint (g_array_index (a, FfmTracePoint, i).evaluations, ==,
                        g_array_index (b, FfmTracePoint, i).evaluations);
      g_assert_cmpfloat (g_array_index (a, FfmTracePoint, i).best_objective, ==,
                         g_array_index (b, FfmTracePoint, i).best_objective);
      g_assert_cmpfloat (g_array_index (a, FfmTracePoint, i).pmapping_queries, ==,
                         g_array_index (b, FfmTracePoint, i).pmapping_queries);
    }
}

/* A problem where the baselines do not all find the optimum at once. */
static FfmProblem *
harder_problem (int *max_fused)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmPluginRegistry) r = NULL;
  g_autoptr (FfmParamValues) params = ffm_param_values_new ();
  g_autoptr (FfmWorkload) w = NULL;
  g_autoptr (FfmArch) a = NULL;

  ffm_param_values_set (params, "n_einsums", "4");
  w = ffm_workload_load ("matmuls", params, &error);
  g_assert_no_error (error);
  a = ffm_plugin_registry_build_arch (registry, "tpuv4i", NULL, &error);
  g_assert_no_error (error);
  *max_fused = 2;
  return ffm_problem_new (w, a);
}

static void
test_same_seed (void)
{
  int max_fused;
  g_autoptr (FfmProblem) problem = harder_problem (&max_fused);

  g_test_summary ("The same seed gives the same result and trace, with one "
                  "thread and with two");
  for (guint b = 0; b < G_N_ELEMENTS (baselines); b++)
    {
      g_autoptr (FfmSearchResult) first = NULL, again = NULL, two = NULL, other = NULL;
      g_autoptr (GError) error = NULL;
      FfmSearchContext ctx;

      ffm_search_context_init (&ctx, problem);
      ctx.max_fused_loops = max_fused;
      ctx.max_evaluations = 400;
      ctx.seed = 7;
      first = run (baselines[b], &ctx, NULL, &error);
      g_assert_no_error (error);
      again = run (baselines[b], &ctx, NULL, &error);
      g_assert_no_error (error);
      assert_same_trace (first, again);
      ctx.n_threads = 2;
      two = run (baselines[b], &ctx, NULL, &error);
      g_assert_no_error (error);
      assert_same_trace (first, two);
      check_result (problem, two, baselines[b]);
      /* Another seed draws other states. */
      ctx.seed = 8;
      other = run (baselines[b], &ctx, NULL, &error);
      g_assert_no_error (error);
      g_assert_false (ffm_search_result_get_trace (other)->len == ffm_search_result_get_trace (first)->len
                      && edp_of (other) == edp_of (first)
                      && g_array_index (ffm_search_result_get_trace (other), FfmTracePoint, 0).best_objective
                         == g_array_index (ffm_search_result_get_trace (first), FfmTracePoint, 0).best_objective);
    }
}

static gpointer
flag_later (gpointer data)
{
  g_usleep (G_USEC_PER_SEC / 5);
  g_atomic_int_set ((gint *) data, 1);
  return NULL;
}

static void
test_budgets (void)
{
  int max_fused;
  g_autoptr (FfmProblem) problem = harder_problem (&max_fused);

  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (GError) ms_error = NULL;

  g_test_summary ("Evaluation budgets are exact, modelled time is never exceeded, "
                  "wall time is kept loosely, the cancel flag stops with the best so far");
  {
    /* One mapspace for every run (as ffm compare does), so that the
     * timings below are the searches'. */
    FfmSearchContext mctx;
    ffm_search_context_init (&mctx, problem);
    mctx.max_fused_loops = max_fused;
    ms = ffm_mapspace_new_for_context (&mctx, &ms_error);
    g_assert_no_error (ms_error);
  }
  for (guint b = 0; b < G_N_ELEMENTS (baselines); b++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmSearchResult) r = NULL, m = NULL, t = NULL, c = NULL;
      FfmSearchContext ctx;
      gint flag = 0;
      gint64 start;
      double seconds, one_state;
      GThread *thread;

      ffm_search_context_init (&ctx, problem);
      ctx.max_fused_loops = max_fused;
      ctx.n_threads = 2;
      ctx.mapspace = ms;
      ctx.max_evaluations = 777;
      r = run (baselines[b], &ctx, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (stat (r, "evaluations"), ==, 777);
      g_assert_cmpfloat (stat (r, "budget_exhausted"), ==, 1);
      g_assert_cmpfloat (stat (r, "interrupted"), ==, 0);
      one_state = stat (r, "modelled_seconds") / 777;

      ctx.max_evaluations = 0;
      ctx.max_modelled_seconds = 300 * one_state;
      m = run (baselines[b], &ctx, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (stat (m, "modelled_seconds"), <=, ctx.max_modelled_seconds);
      g_assert_cmpfloat (stat (m, "modelled_seconds"), >=, 0.9 * ctx.max_modelled_seconds);

      ctx.max_modelled_seconds = 0;
      ctx.max_seconds = 0.3;
      start = g_get_monotonic_time ();
      t = run (baselines[b], &ctx, NULL, &error);
      seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
      g_assert_no_error (error);
      g_assert_cmpfloat (stat (t, "search_seconds"), >=, 0.3);
      g_assert_cmpfloat (seconds, <, 10);       /* loose: a loaded machine */

      ctx.max_seconds = 0;
      ctx.max_evaluations = G_GUINT64_CONSTANT (1) << 50;
      ctx.cancel = &flag;
      thread = g_thread_new ("cancel", flag_later, &flag);
      c = run (baselines[b], &ctx, NULL, &error);
      g_thread_join (thread);
      g_assert_no_error (error);
      g_assert_cmpfloat (stat (c, "interrupted"), ==, 1);
      check_result (problem, c, baselines[b]);
    }
}


static void
test_charges_and_target (void)
{
  int max_fused;
  g_autoptr (FfmProblem) problem = harder_problem (&max_fused);
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (GError) ms_error = NULL;
  FfmSearchContext mctx;

  g_test_summary ("Under both charges (the authors' explored per Pareto pmapping, the "
                  "paper's text's one evaluation per query) a modelled budget is spent "
                  "and never exceeded, a query costing what the charge says; a target "
                  "objective stops every part of a run once one reaches it");
  guint reached = 0;

  ffm_search_context_init (&mctx, problem);
  mctx.max_fused_loops = max_fused;
  ms = ffm_mapspace_new_for_context (&mctx, &ms_error);
  g_assert_no_error (ms_error);
  for (guint b = 0; b < G_N_ELEMENTS (baselines); b++)
    for (int charge = FFM_MAPSPACE_CHARGE_EXPLORED; charge <= FFM_MAPSPACE_CHARGE_EVALUATION;
         charge++)
      {
        g_autoptr (GError) error = NULL;
        g_autoptr (FfmSearchResult) r = NULL, m = NULL, t = NULL;
        FfmSearchContext ctx;
        double one_state, target;
        guint n = ffm_mapspace_get_n_einsums (ms);

        ffm_mapspace_set_accounting (ms, (FfmMapspaceCharge) charge, 1e-6);
        g_assert_cmpfloat (ffm_mapspace_get_state_query_weight (ms), ==,
                           charge == FFM_MAPSPACE_CHARGE_EVALUATION ? (double) n
                           : ffm_mapspace_get_state_query_weight (ms));
        ffm_search_context_init (&ctx, problem);
        ctx.max_fused_loops = max_fused;
        ctx.n_threads = 2;
        ctx.mapspace = ms;
        ctx.max_evaluations = 500;
        r = run (baselines[b], &ctx, NULL, &error);
        g_assert_no_error (error);
        /* A state's modelled time: its queries x 1 us, parts over threads. */
        one_state = stat (r, "modelled_seconds") / 500;
        g_assert_cmpfloat_with_epsilon (stat (r, "pmapping_queries"),
                                        500 * ffm_mapspace_get_state_query_weight (ms),
                                        1e-9 * stat (r, "pmapping_queries"));
        ctx.max_evaluations = 0;
        ctx.max_modelled_seconds = 400 * one_state;
        m = run (baselines[b], &ctx, NULL, &error);
        g_assert_no_error (error);
        g_assert_cmpfloat (stat (m, "modelled_seconds"), <=, ctx.max_modelled_seconds);
        g_assert_cmpfloat (stat (m, "modelled_seconds"), >=, 0.9 * ctx.max_modelled_seconds);
        check_result (problem, m, baselines[b]);

        /* The target: the first run's result; a run with ten times the
         * budget stops once a part gets there. */
        target = edp_of (r);
        ctx.max_modelled_seconds = 5000 * one_state;
        ctx.target_objective = target;
        t = run (baselines[b], &ctx, NULL, &error);
        g_assert_no_error (error);
        if (stat (t, "target_reached") == 1)
          {
            const GArray *trace = ffm_search_result_get_trace (t);
            reached++;
            g_assert_cmpfloat (edp_of (t), <=, target * (1 + 1e-9));
            g_assert_cmpfloat (stat (t, "modelled_seconds"), <, ctx.max_modelled_seconds);
            g_assert_cmpfloat (g_array_index (trace, FfmTracePoint, trace->len - 1).best_objective,
                               <=, target);
          }
        else
          g_assert_cmpfloat (stat (t, "budget_exhausted"), ==, 1);
        check_result (problem, t, baselines[b]);
      }
  g_test_message ("%u of %u runs stopped at their target", reached,
                  (guint) G_N_ELEMENTS (baselines) * 2);
  g_assert_cmpuint (reached, >, 0);
}

static void
test_bad_parameters (void)
{
  int max_fused;
  g_autoptr (FfmProblem) problem = harder_problem (&max_fused);
  static const char *const bad[][3] = {
    { "set", "chains", "0" }, { "set", "t0", "-1" }, { "set", "nonsense", "1" },
    { "tileflow", "population", "1" }, { "tileflow", "crossover", "2" },
    { "random", "streams", "x" },
  };

  g_test_summary ("Bad parameters and the Pareto objective are errors naming them");
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (FfmParamValues) v = ffm_param_values_new ();
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmSearchResult) r = NULL;
      FfmSearchContext ctx;
      ffm_search_context_init (&ctx, problem);
      ffm_param_values_set (v, bad[i][1], bad[i][2]);
      r = run (bad[i][0], &ctx, v, &error);
      g_assert_null (r);
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, bad[i][1]));
    }
  for (guint b = 0; b < G_N_ELEMENTS (baselines); b++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmSearchResult) r = NULL;
      FfmSearchContext ctx;
      ffm_search_context_init (&ctx, problem);
      ctx.objective = FFM_OBJECTIVE_PARETO;
      r = run (baselines[b], &ctx, NULL, &error);
      g_assert_null (r);
      g_assert_nonnull (strstr (error->message, "Pareto"));
    }
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  registry = ffm_plugin_registry_new ();
  ffm_plugin_registry_scan (registry);
  g_test_add_func ("/baselines/valid-and-never-better", test_valid_and_never_better);
  g_test_add_func ("/baselines/reach-optimum", test_reach_optimum);
  g_test_add_func ("/baselines/same-seed", test_same_seed);
  g_test_add_func ("/baselines/budgets", test_budgets);
  g_test_add_func ("/baselines/charges-and-target", test_charges_and_target);
  g_test_add_func ("/baselines/bad-parameters", test_bad_parameters);
  status = g_test_run ();
  ffm_plugin_registry_free (registry);
  return status;
}
