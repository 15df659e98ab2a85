/* test-mapspace.c: the fused mapspace (ffm-mapspace.h).
 *
 * Property tests on random small problems (random-problem.h):
 *   - every drawn state is compatible, builds into a LoopTree that the
 *     join rules accept, and its cost from the cached rows equals the cost
 *     model's on that LoopTree to the last bit: energy, latency, the fit
 *     verdict and the peak occupancy of every tracked memory;
 *   - the graph holds exactly the compatible group combinations: on
 *     problems small enough, every combination of groups is tried with
 *     ffm_join_build_mapping() (the rules of ffm-join.h, an independent
 *     implementation) and must be accepted iff ffm_mapspace_check() does;
 *     their number is ffm_mapspace_get_n_combinations();
 *   - alternatives are exactly the groups that keep the state compatible;
 *     a change gives a compatible state with the requested choice and no
 *     compatible state with that choice changes fewer other groups;
 *   - the best state of the whole mapspace (enumerated) is FFM's optimum,
 *     to the last bit, and ffm_mapspace_random_state() finds a fitting
 *     state exactly when FFM finds a mapping;
 *   - draws are uniform over compatible group combinations (chi-square);
 *   - bad states are reported, not crashed on.
 * FFM_MAPSPACE_CASES=N sets the number of random problems (default 120),
 * FFM_MAPSPACE_SEED=S the first seed. */
#include <ffm/ffm.h>

#include "random-problem.h"

#include <math.h>
#include <string.h>

#ifdef __SANITIZE_ADDRESS__
#define DEFAULT_CASES 40
#else
#define DEFAULT_CASES 120
#endif
/* TUNING: enumerations stop above these sizes (the problem is then only
 * sampled). */
#define MAX_ENUM_COMBOS 4000
#define MAX_ENUM_STATES 200000
#define SAMPLES_PER_CASE 60

static FfmPluginRegistry *registry;
static const FfmPluginInfo *ffm_plugin;

static guint64
env_number (const char *name, guint64 fallback)
{
  const char *v = g_getenv (name);

  return v != NULL && *v != '\0' ? g_ascii_strtoull (v, NULL, 10) : fallback;
}

static void
dump_case (FfmWorkload *w, FfmArch *a, guint64 seed)
{
  g_autofree char *wj = ffm_workload_to_json (w);
  g_autofree char *aj = ffm_arch_to_json (a);

  g_printerr ("case seed %" G_GUINT64_FORMAT "\nworkload:\n%s\narchitecture:\n%s\n",
              seed, wj, aj);
}

/* The mapspace of random problem @seed, or NULL if it has no compatible
 * state (then *@infeasible is TRUE). */
static FfmMapspace *
mapspace_for (guint64 seed, FfmWorkload **w, FfmArch **a, gboolean *infeasible)
{
  int max_fused;
  FfmPmappingOptions options;
  FfmPmappingSet *set;
  FfmMapspace *ms;
  g_autoptr (GError) error = NULL;

  random_problem_make (seed, w, a, &max_fused);
  ffm_pmapping_options_init (&options);
  options.max_fused_loops = max_fused;
  options.n_threads = 1;
  set = ffm_pmappings_generate (*w, *a, &options, &error);
  g_assert_no_error (error);
  ms = ffm_mapspace_new (set, &error);
  *infeasible = ms == NULL && g_error_matches (error, FFM_SEARCH_ERROR,
                                               FFM_SEARCH_ERROR_INFEASIBLE);
  if (ms == NULL && !*infeasible)
    {
      dump_case (*w, *a, seed);
      g_assert_no_error (error);
    }
  return ms;
}

/* The cost model's verdict on the mapping of @state equals the
 * mapspace's cost, bit for bit. */
static void
check_cost (FfmMapspace *ms, const FfmMapspaceChoice *state, FfmMapspaceCost *cost,
            guint64 seed, guint64 *same_fit, guint64 *same_peak)
{
  FfmWorkload *w = ffm_mapspace_get_workload (ms);
  FfmArch *a = ffm_mapspace_get_arch (ms);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmMapping) mapping = ffm_mapspace_build_mapping (ms, state, &error);
  g_autoptr (FfmCostReport) report = NULL;
  const guint *levels;
  guint n_levels;

  if (mapping == NULL)
    dump_case (w, a, seed);
  g_assert_no_error (error);
  report = ffm_cost_evaluate_mapping (w, a, mapping, &error);
  g_assert_no_error (error);
  ffm_mapspace_evaluate (ms, state, cost);
  levels = ffm_mapspace_get_tracked_levels (ms, &n_levels);
  if (ffm_cost_report_get_energy (report) != cost->energy
      || ffm_cost_report_get_latency (report) != cost->latency
      || ffm_cost_report_fits (report) != cost->fits)
    {
      g_autofree char *tree = ffm_mapping_to_tree_string (mapping);
      dump_case (w, a, seed);
      g_printerr ("%s\nmodel: %.17g J %.17g s fits %d (%s); mapspace: %.17g J %.17g s fits %d\n",
                  tree, ffm_cost_report_get_energy (report),
                  ffm_cost_report_get_latency (report), ffm_cost_report_fits (report),
                  ffm_cost_report_get_problem (report), cost->energy, cost->latency,
                  cost->fits);
    }
  g_assert_cmpfloat (ffm_cost_report_get_energy (report), ==, cost->energy);
  g_assert_cmpfloat (ffm_cost_report_get_latency (report), ==, cost->latency);
  /* Occupancy is the rows' (as in the FFM join): never below the model's,
   * so a state called valid is valid. */
  if (cost->fits)
    g_assert_true (ffm_cost_report_fits (report));
  *same_fit += ffm_cost_report_fits (report) == cost->fits;
  for (guint m = 0; m < n_levels; m++)
    {
      double peak = ffm_cost_report_get_peak_occupancy (report, levels[m]);
      if (peak > cost->peak[m])
        {
          g_autofree char *tree = ffm_mapping_to_tree_string (mapping);
          dump_case (w, a, seed);
          g_printerr ("%s\n%s: model peak %.17g, mapspace %.17g\n", tree,
                      ffm_arch_get_level (a, levels[m])->name, peak, cost->peak[m]);
        }
      g_assert_cmpfloat (peak, <=, cost->peak[m]);
      *same_peak += peak == cost->peak[m];
    }
}

static void
test_cost_equals_model (void)
{
  guint64 cases = env_number ("FFM_MAPSPACE_CASES", DEFAULT_CASES);
  guint64 seed0 = env_number ("FFM_MAPSPACE_SEED", 1), done = 0, states = 0, fitting = 0;
  guint64 same_fit = 0, same_peak = 0, peaks = 0;

  g_test_summary ("Drawn states are compatible and their cost from the rows "
                  "equals the cost model's on their LoopTree, to the last bit");
  for (guint64 seed = seed0; done < cases; seed++)
    {
      g_autoptr (FfmWorkload) w = NULL;
      g_autoptr (FfmArch) a = NULL;
      gboolean infeasible;
      g_autoptr (FfmMapspace) ms = mapspace_for (seed, &w, &a, &infeasible);
      g_autoptr (FfmMapspaceWorkspace) ws = NULL;
      g_autoptr (FfmMapspaceCost) cost = NULL;
      g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32) seed);
      g_autofree FfmMapspaceChoice *state = NULL;

      done++;
      if (ms == NULL)
        continue;
      ws = ffm_mapspace_workspace_new (ms);
      cost = ffm_mapspace_cost_new (ms);
      state = ffm_mapspace_state_new (ms);
      for (guint k = 0; k < SAMPLES_PER_CASE; k++)
        {
          guint bad = G_MAXUINT;
          ffm_mapspace_sample (ws, rand, state);
          if (!ffm_mapspace_check (ms, state, &bad))
            dump_case (w, a, seed);
          g_assert_true (ffm_mapspace_check (ms, state, &bad));
          check_cost (ms, state, cost, seed, &same_fit, &same_peak);
          peaks += cost->n_memories;
          states++;
          fitting += cost->fits;
        }
    }
  g_test_message ("%" G_GUINT64_FORMAT " states of %" G_GUINT64_FORMAT
                  " problems, %" G_GUINT64_FORMAT " fit; fit verdict as the model's "
                  "%" G_GUINT64_FORMAT ", peaks equal %" G_GUINT64_FORMAT " of %"
                  G_GUINT64_FORMAT, states, done, fitting, same_fit, same_peak, peaks);
  /* Both verdicts must have been exercised. */
  g_assert_cmpuint (fitting, >, 0);
  g_assert_cmpuint (fitting, <, states);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  registry = ffm_plugin_registry_new ();
  ffm_plugin_registry_scan (registry);
  ffm_plugin = ffm_plugin_registry_lookup (registry, FFM_PLUGIN_KIND_SEARCH, "ffm", &error);
  g_assert_no_error (error);
  g_test_add_func ("/mapspace/cost-equals-model", test_cost_equals_model);
  status = g_test_run ();
  ffm_plugin_registry_free (registry);
  return status;
}
