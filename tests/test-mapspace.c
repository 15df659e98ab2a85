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
#include "ffm-mapspace-diagnostics.h"

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

/* ---- Enumerations on problems small enough ---- */

/* Every combination of groups (row 0), as one flat array of n groups per
 * combination, if there are at most @max; NULL otherwise. */
static GArray *
all_group_combinations (FfmMapspace *ms, guint64 max)
{
  guint n = ffm_mapspace_get_n_einsums (ms);
  guint64 total = 1;
  GArray *out;
  g_autofree guint *cur = g_new0 (guint, n);

  for (guint x = 0; x < n; x++)
    {
      total *= ffm_mapspace_get_n_groups (ms, x);
      if (total > max)
        return NULL;
    }
  out = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint64 k = 0; k < total; k++)
    {
      g_array_append_vals (out, cur, n);
      for (guint x = n; x-- > 0; )
        {
          if (++cur[x] < ffm_mapspace_get_n_groups (ms, x))
            break;
          cur[x] = 0;
        }
    }
  return out;
}

/* The pmapping of (@einsum, @group, row 0) read for joining, in the
 * group's loop order. */
static FfmJoinPmapping *
join_pmapping_of (FfmMapspace *ms, guint einsum, guint group)
{
  FfmWorkload *w = ffm_mapspace_get_workload (ms);
  FfmArch *a = ffm_mapspace_get_arch (ms);
  const FfmEinsumPmappings *pm =
    ffm_pmapping_set_lookup_einsum (ffm_mapspace_get_pmapping_set (ms), einsum);
  guint pg, order;
  g_autoptr (GPtrArray) nodes = NULL;
  g_autoptr (GError) error = NULL;
  FfmJoinPmapping *jp;

  ffm_mapspace_group_get_source (ms, einsum, group, &pg, &order);
  nodes = ffm_einsum_pmappings_rebuild (pm, &ffm_einsum_pmappings_get_group (pm, pg)->refs[
                                          ffm_mapspace_group_get_pmapping_row (ms, einsum, group, 0)],
                                        FALSE);
  jp = ffm_join_pmapping_new (w, a, (const FfmMappingNode *const *) nodes->pdata,
                              nodes->len, &error);
  g_assert_no_error (error);
  if (order > 0)
    {
      FfmJoinPmapping *r = ffm_join_pmapping_reorder (jp, w, a, order);
      ffm_join_pmapping_free (jp);
      jp = r;
    }
  return jp;
}

typedef struct {
  guint64 seed;
  FfmWorkload *w;
  FfmArch *a;
  FfmMapspace *ms;
  GArray *compatible;           /* of guint: n groups per compatible combination */
} Small;

static void
small_clear (Small *s)
{
  ffm_mapspace_unref (s->ms);
  ffm_workload_unref (s->w);
  ffm_arch_unref (s->a);
  if (s->compatible != NULL)
    g_array_free (s->compatible, TRUE);
  memset (s, 0, sizeof *s);
}

/* The next random problem from *@seed on with a mapspace of at most
 * MAX_ENUM_COMBOS group combinations, its compatible combinations checked
 * against ffm-join.h's rules: each is pushed, row 0 of each group, into an
 * FfmJoinChain. */
static void
small_next (guint64 *seed, Small *out)
{
  for (;; (*seed)++)
    {
      gboolean infeasible;
      g_autoptr (GArray) all = NULL;
      guint n;
      g_autoptr (GPtrArray) joins = NULL;
      g_autoptr (FfmJoinChain) chain = NULL;

      memset (out, 0, sizeof *out);
      out->seed = *seed;
      out->ms = mapspace_for (*seed, &out->w, &out->a, &infeasible);
      if (out->ms == NULL || (all = all_group_combinations (out->ms, MAX_ENUM_COMBOS)) == NULL)
        {
          small_clear (out);
          continue;
        }
      n = ffm_mapspace_get_n_einsums (out->ms);
      joins = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_join_pmapping_free);
      for (guint x = 0; x < n; x++)
        for (guint g = 0; g < ffm_mapspace_get_n_groups (out->ms, x); g++)
          g_ptr_array_add (joins, join_pmapping_of (out->ms, x, g));
      chain = ffm_join_chain_new (out->w, out->a);
      out->compatible = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint k = 0; k < all->len / n; k++)
        {
          const guint *groups = &g_array_index (all, guint, (gsize) k * n);
          g_autofree FfmMapspaceChoice *state = ffm_mapspace_state_new (out->ms);
          gboolean joins_ok = TRUE;
          guint offset = 0;
          for (guint x = 0; x < n; x++)
            {
              state[x].group = groups[x];
              if (joins_ok && ffm_join_chain_push (chain, g_ptr_array_index (joins, offset + groups[x]))
                              != FFM_JOIN_OK)
                joins_ok = FALSE;
              offset += ffm_mapspace_get_n_groups (out->ms, x);
            }
          while (ffm_join_chain_get_length (chain) > 0)
            ffm_join_chain_pop (chain);
          if (joins_ok != ffm_mapspace_check (out->ms, state, NULL))
            dump_case (out->w, out->a, *seed);
          g_assert_cmpint (joins_ok, ==, ffm_mapspace_check (out->ms, state, NULL));
          if (joins_ok)
            g_array_append_vals (out->compatible, groups, n);
        }
      (*seed)++;
      return;
    }
}

static void
test_graph_is_the_join_rules (void)
{
  guint64 seed = env_number ("FFM_MAPSPACE_SEED", 1), combos = 0;

  g_test_summary ("A combination of groups is in the graph iff ffm-join.h's "
                  "rules accept it; the graph counts them");
  for (guint k = 0; k < env_number ("FFM_MAPSPACE_CASES", DEFAULT_CASES) / 2; k++)
    {
      Small s;
      guint n;
      small_next (&seed, &s);
      n = ffm_mapspace_get_n_einsums (s.ms);
      g_assert_cmpfloat_with_epsilon (ffm_mapspace_get_n_combinations (s.ms),
                                      (double) (s.compatible->len / n),
                                      1e-9 * (double) (s.compatible->len / n));
      combos += s.compatible->len / n;
      small_clear (&s);
    }
  g_test_message ("%" G_GUINT64_FORMAT " compatible combinations checked", combos);
}

static gboolean
compatible_has (const Small *s, const guint *groups)
{
  guint n = ffm_mapspace_get_n_einsums (s->ms);

  for (guint k = 0; k < s->compatible->len / n; k++)
    if (memcmp (&g_array_index (s->compatible, guint, (gsize) k * n), groups,
                sizeof (guint) * n) == 0)
      return TRUE;
  return FALSE;
}

static void
test_alternatives_and_changes (void)
{
  guint64 seed = env_number ("FFM_MAPSPACE_SEED", 1) + 7, changes = 0, repaired = 0;

  g_test_summary ("Alternatives are the groups that keep a state compatible; "
                  "a change repairs the fewest other Einsums");
  for (guint k = 0; k < env_number ("FFM_MAPSPACE_CASES", DEFAULT_CASES) / 3; k++)
    {
      Small s;
      guint n;
      g_autoptr (FfmMapspaceWorkspace) ws = NULL;
      g_autoptr (GRand) rand = NULL;
      g_autofree FfmMapspaceChoice *state = NULL, *before = NULL;
      g_autofree guint *groups = NULL, *alts = NULL;

      small_next (&seed, &s);
      n = ffm_mapspace_get_n_einsums (s.ms);
      ws = ffm_mapspace_workspace_new (s.ms);
      rand = g_rand_new_with_seed ((guint32) s.seed);
      state = ffm_mapspace_state_new (s.ms);
      before = ffm_mapspace_state_new (s.ms);
      groups = g_new (guint, n);
      alts = g_new (guint, 64 * 1024);
      for (guint trial = 0; trial < 20; trial++)
        {
          guint x = (guint) g_rand_int_range (rand, 0, (gint32) n), n_alt, g, row;
          guint changed = G_MAXUINT, best = G_MAXUINT, diff = 0;

          ffm_mapspace_sample (ws, rand, state);
          /* Alternatives: brute force over the compatible combinations. */
          g_assert_cmpuint (ffm_mapspace_get_n_groups (s.ms, x), <=, 64 * 1024);
          n_alt = ffm_mapspace_list_alternatives (ws, state, x, alts);
          for (guint i = 0, j = 0; i < ffm_mapspace_get_n_groups (s.ms, x); i++)
            {
              for (guint y = 0; y < n; y++)
                groups[y] = y == x ? i : state[y].group;
              if (compatible_has (&s, groups))
                {
                  g_assert_cmpuint (j, <, n_alt);
                  g_assert_cmpuint (alts[j++], ==, i);
                }
              if (i + 1 == ffm_mapspace_get_n_groups (s.ms, x))
                g_assert_cmpuint (j, ==, n_alt);
            }
          /* A change to a random usable group. */
          do
            g = (guint) g_rand_int_range (rand, 0, (gint32) ffm_mapspace_get_n_groups (s.ms, x));
          while (!ffm_mapspace_group_is_usable (s.ms, x, g));
          row = (guint) g_rand_int_range (rand, 0, (gint32) ffm_mapspace_group_get_n_rows (s.ms, x, g));
          ffm_mapspace_state_copy (s.ms, before, state);
          g_assert_true (ffm_mapspace_change (ws, rand, state, x, g, row, &changed));
          g_assert_true (ffm_mapspace_check (s.ms, state, NULL));
          g_assert_cmpuint (state[x].group, ==, g);
          g_assert_cmpuint (state[x].row, ==, row);
          for (guint y = 0; y < n; y++)
            if (y != x)
              {
                diff += state[y].group != before[y].group;
                if (state[y].group == before[y].group)
                  g_assert_cmpuint (state[y].row, ==, before[y].row);
              }
          g_assert_cmpuint (diff, ==, changed);
          for (guint c = 0; c < s.compatible->len / n; c++)
            {
              const guint *comb = &g_array_index (s.compatible, guint, (gsize) c * n);
              guint d = 0;
              if (comb[x] != g)
                continue;
              for (guint y = 0; y < n; y++)
                d += y != x && comb[y] != before[y].group;
              best = MIN (best, d);
            }
          g_assert_cmpuint (changed, ==, best);
          changes++;
          repaired += changed > 0;
        }
      small_clear (&s);
    }
  g_test_message ("%" G_GUINT64_FORMAT " changes, %" G_GUINT64_FORMAT
                  " of them repaired other Einsums", changes, repaired);
  g_assert_cmpuint (repaired, >, 0);
}

/* FFM's best EDP on the problem, or INFINITY when nothing fits. */
static double
ffm_best_edp (FfmWorkload *w, FfmArch *a, guint64 seed)
{
  g_autoptr (FfmProblem) problem = ffm_problem_new (w, a);
  g_autoptr (FfmSearchResult) res = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmWorkload) w2 = NULL;
  g_autoptr (FfmArch) a2 = NULL;
  FfmSearchContext ctx;
  int max_fused;

  random_problem_make (seed, &w2, &a2, &max_fused);
  ffm_search_context_init (&ctx, problem);
  ctx.max_fused_loops = max_fused;
  res = ffm_plugin->descriptor->vtable.search->run (&ctx, NULL, &error);
  if (res == NULL)
    {
      g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE);
      return INFINITY;
    }
  return ffm_search_result_get_solution (res, 0)->energy
    * ffm_search_result_get_solution (res, 0)->latency;
}

static void
test_optimum_and_random_states (void)
{
  guint64 seed = env_number ("FFM_MAPSPACE_SEED", 1) + 13, enumerated = 0;
  guint64 infeasible = 0;

  g_test_summary ("The best state of the mapspace is FFM's optimum, to the "
                  "last bit; a random valid state exists iff FFM finds one");
  for (guint k = 0; k < env_number ("FFM_MAPSPACE_CASES", DEFAULT_CASES) / 2; k++)
    {
      Small s;
      guint n;
      double best = INFINITY, truth;
      guint64 n_states = 0;
      g_autoptr (FfmMapspaceWorkspace) ws = NULL;
      g_autoptr (FfmMapspaceCost) cost = NULL;
      g_autoptr (GRand) rand = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree FfmMapspaceChoice *state = NULL;
      gboolean found;

      small_next (&seed, &s);
      n = ffm_mapspace_get_n_einsums (s.ms);
      truth = ffm_best_edp (s.w, s.a, s.seed);
      ws = ffm_mapspace_workspace_new (s.ms);
      cost = ffm_mapspace_cost_new (s.ms);
      rand = g_rand_new_with_seed ((guint32) s.seed);
      state = ffm_mapspace_state_new (s.ms);
      /* The backtracking search alone (no draws first). */
      found = ffm_mapspace_random_state (ws, rand, 0, 0, state, cost, NULL, &error);
      if (found != isfinite (truth))
        dump_case (s.w, s.a, s.seed);
      g_assert_cmpint (found, ==, isfinite (truth));
      if (found)
        {
          g_assert_no_error (error);
          g_assert_true (cost->fits);
          g_assert_true (ffm_mapspace_check (s.ms, state, NULL));
        }
      else
        {
          g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE);
          infeasible++;
        }
      /* Every state, if there are few enough. */
      for (guint c = 0; c < s.compatible->len / n; c++)
        {
          const guint *comb = &g_array_index (s.compatible, guint, (gsize) c * n);
          guint64 rows = 1;
          for (guint x = 0; x < n; x++)
            rows *= ffm_mapspace_group_get_n_rows (s.ms, x, comb[x]);
          n_states += rows;
        }
      if (n_states <= MAX_ENUM_STATES)
        {
          for (guint c = 0; c < s.compatible->len / n; c++)
            {
              const guint *comb = &g_array_index (s.compatible, guint, (gsize) c * n);
              for (guint x = 0; x < n; x++)
                state[x] = (FfmMapspaceChoice) { comb[x], 0 };
              for (;;)
                {
                  guint x;
                  ffm_mapspace_evaluate (s.ms, state, cost);
                  best = MIN (best, ffm_mapspace_cost_get_objective (cost, FFM_OBJECTIVE_EDP));
                  for (x = n; x-- > 0; )
                    {
                      if (++state[x].row < ffm_mapspace_group_get_n_rows (s.ms, x, comb[x]))
                        break;
                      state[x].row = 0;
                    }
                  if (x == G_MAXUINT)
                    break;
                }
            }
          if (best != truth)
            {
              dump_case (s.w, s.a, s.seed);
              g_printerr ("mapspace best %.17g, ffm %.17g\n", best, truth);
            }
          g_assert_cmpfloat (best, ==, truth);
          enumerated++;
        }
      small_clear (&s);
    }
  g_test_message ("%" G_GUINT64_FORMAT " mapspaces enumerated, %" G_GUINT64_FORMAT
                  " with nothing that fits", enumerated, infeasible);
  g_assert_cmpuint (enumerated, >, 0);
}

static void
test_draws_uniform (void)
{
  guint64 seed = 1;
  Small s;
  guint n, n_combos;
  g_autoptr (FfmMapspaceWorkspace) ws = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (42);
  g_autofree FfmMapspaceChoice *state = NULL;
  g_autofree guint *counts = NULL, *groups = NULL;
  const guint draws = 40000;
  double chi2 = 0;

  g_test_summary ("Draws are uniform over the compatible group combinations");
  /* A problem with a few dozen compatible combinations. */
  for (;;)
    {
      small_next (&seed, &s);
      n = ffm_mapspace_get_n_einsums (s.ms);
      n_combos = s.compatible->len / n;
      if (n_combos >= 8 && n_combos <= 60)
        break;
      small_clear (&s);
    }
  ws = ffm_mapspace_workspace_new (s.ms);
  state = ffm_mapspace_state_new (s.ms);
  counts = g_new0 (guint, n_combos);
  groups = g_new (guint, n);
  for (guint k = 0; k < draws; k++)
    {
      gboolean seen = FALSE;
      ffm_mapspace_sample (ws, rand, state);
      for (guint x = 0; x < n; x++)
        groups[x] = state[x].group;
      for (guint c = 0; c < n_combos && !seen; c++)
        if (memcmp (&g_array_index (s.compatible, guint, (gsize) c * n), groups,
                    sizeof (guint) * n) == 0)
          {
            counts[c]++;
            seen = TRUE;
          }
      g_assert_true (seen);
    }
  for (guint c = 0; c < n_combos; c++)
    {
      double e = (double) draws / n_combos, d = counts[c] - e;
      chi2 += d * d / e;
    }
  /* Far above the 1e-6 quantile of chi-square with <= 59 degrees of freedom
   * (about 120): only a biased draw fails. */
  g_test_message ("%u combinations, chi-square %.1f", n_combos, chi2);
  g_assert_cmpfloat (chi2, <, 3.0 * n_combos + 60);
  small_clear (&s);
}

static void
test_bad_states (void)
{
  guint64 seed = 1;
  Small s;
  g_autofree FfmMapspaceChoice *state = NULL;
  g_autoptr (FfmMapspaceWorkspace) ws = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmMapping) mapping = NULL;
  guint bad = G_MAXUINT, n;

  g_test_summary ("States out of range or incompatible are reported, not crashed on");
  small_next (&seed, &s);
  n = ffm_mapspace_get_n_einsums (s.ms);
  ws = ffm_mapspace_workspace_new (s.ms);
  state = ffm_mapspace_state_new (s.ms);
  ffm_mapspace_sample (ws, rand, state);
  state[n - 1].group = ffm_mapspace_get_n_groups (s.ms, n - 1);
  g_assert_false (ffm_mapspace_check (s.ms, state, &bad));
  g_assert_cmpuint (bad, ==, n - 1);
  mapping = ffm_mapspace_build_mapping (s.ms, state, &error);
  g_assert_null (mapping);
  g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, ffm_workload_get_einsum (s.w, n - 1)->name));
  ffm_mapspace_sample (ws, rand, state);
  state[0].row = ffm_mapspace_group_get_n_rows (s.ms, 0, state[0].group);
  g_assert_false (ffm_mapspace_check (s.ms, state, &bad));
  g_assert_cmpuint (bad, ==, 0);
  ffm_mapspace_sample (ws, rand, state);
  g_assert_false (ffm_mapspace_change (ws, rand, state, 0, ffm_mapspace_get_n_groups (s.ms, 0),
                                       0, NULL));
  g_assert_false (ffm_mapspace_change (ws, rand, state, 0, state[0].group,
                                       ffm_mapspace_group_get_n_rows (s.ms, 0, state[0].group),
                                       NULL));
  g_assert_true (ffm_mapspace_check (s.ms, state, NULL));
  small_clear (&s);
}

/* Two matmuls whose weights are persistent and may live only in a global
 * buffer that holds one of them: each Einsum alone fits, no state does. */
static const char tight_workload[] =
  "{\"ffm_workload\": 1, \"name\": \"tight\", "
  "\"ranks\": {\"M\": 2, \"N0\": 4, \"N1\": 4, \"N2\": 4}, "
  "\"bits_per_value\": {\"all\": 8}, \"persistent\": \"W0 | W1\", "
  "\"einsums\": [\"T1[m,n1] = T0[m,n0] * W0[n0,n1]\", "
  "\"T2[m,n2] = T1[m,n1] * W1[n1,n2]\"]}";
static const char tight_arch[] =
  "{\"ffm_architecture\": 1, \"name\": \"tight\", \"levels\": ["
  "{\"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 1, "
  "\"write_energy\": 1, \"read_bandwidth\": 1, \"write_bandwidth\": 1, "
  "\"keep\": \"all - weight\", \"may_keep\": \"all - weight\"}, "
  "{\"memory\": \"GlobalBuffer\", \"size\": 200, \"read_energy\": 1, "
  "\"write_energy\": 1, \"read_bandwidth\": 1, \"write_bandwidth\": 1, "
  "\"keep\": \"weight\", \"may_keep\": \"all\"}, "
  "{\"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1}]}";

static void
test_nothing_fits (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmWorkload) w = ffm_workload_load_from_data (tight_workload, "tight", NULL, &error);
  g_autoptr (FfmArch) a = ffm_arch_load_from_data (tight_arch, "tight", NULL, &error);
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (FfmMapspaceWorkspace) ws = NULL;
  g_autoptr (FfmMapspaceCost) cost = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  g_autofree FfmMapspaceChoice *state = NULL;
  guint64 evaluated = 0;

  g_test_summary ("When every compatible state overflows a memory, the random "
                  "valid state says so, naming the memory");
  g_assert_no_error (error);
  ms = ffm_mapspace_new (ffm_pmappings_generate (w, a, NULL, &error), &error);
  g_assert_no_error (error);
  ws = ffm_mapspace_workspace_new (ms);
  cost = ffm_mapspace_cost_new (ms);
  state = ffm_mapspace_state_new (ms);
  ffm_mapspace_sample (ws, rand, state);
  ffm_mapspace_evaluate (ms, state, cost);
  g_assert_false (cost->fits);
  g_assert_cmpint (cost->worst_memory, ==, 0);
  g_assert_cmpfloat (cost->excess[0], >, 0);
  g_assert_false (ffm_mapspace_random_state (ws, rand, 10, 0, state, cost, &evaluated, &error));
  g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE);
  g_assert_nonnull (strstr (error->message, "GlobalBuffer"));
  g_assert_cmpuint (evaluated, >=, 10);
  g_clear_error (&error);
  /* A node limit stops the search with its own error. */
  g_assert_false (ffm_mapspace_random_state (ws, rand, 0, 1, state, cost, NULL, &error));
  g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_TOO_LARGE);
}


/* ---- The space's statistics, moves, accounting and memory ---- */

static void
test_space_statistics (void)
{
  guint64 seed = env_number ("FFM_MAPSPACE_SEED", 1) + 11, checked = 0;

  g_test_summary ("The space statistics equal a brute-force count: compatible group "
                  "combinations and states (rows multiplied), usable groups and their "
                  "rows, pmappings, groups and evaluated pmappings per Einsum");
  for (guint k = 0; k < env_number ("FFM_MAPSPACE_CASES", DEFAULT_CASES) / 3; k++)
    {
      Small s;
      guint n;
      double states = 0;
      const FfmPmappingSet *set;
      small_next (&seed, &s);
      n = ffm_mapspace_get_n_einsums (s.ms);
      set = ffm_mapspace_get_pmapping_set (s.ms);
      for (guint c = 0; c < s.compatible->len / n; c++)
        {
          const guint *groups = &g_array_index (s.compatible, guint, (gsize) c * n);
          double product = 1;
          for (guint x = 0; x < n; x++)
            product *= ffm_mapspace_group_get_n_rows (s.ms, x, groups[x]);
          states += product;
        }
      g_assert_cmpfloat_with_epsilon (pow (10, ffm_mapspace_get_log10_n_states (s.ms)),
                                      states, 1e-9 * states);
      g_assert_cmpfloat_with_epsilon (pow (10, ffm_mapspace_get_log10_n_combinations (s.ms)),
                                      (double) (s.compatible->len / n),
                                      1e-9 * (double) (s.compatible->len / n));
      for (guint x = 0; x < n; x++)
        {
          FfmMapspaceEinsumStats st;
          const FfmEinsumPmappings *pm = ffm_pmapping_set_lookup_einsum (set, x);
          const FfmPmappingStats *ps = ffm_einsum_pmappings_get_stats (pm);
          guint64 rows = 0, usable_rows = 0;
          guint usable = 0;
          ffm_mapspace_get_einsum_stats (s.ms, x, &st);
          for (guint g = 0; g < ffm_einsum_pmappings_get_n_groups (pm); g++)
            rows += ffm_einsum_pmappings_get_group (pm, g)->n_rows;
          for (guint g = 0; g < ffm_mapspace_get_n_groups (s.ms, x); g++)
            {
              gboolean used = FALSE;
              for (guint c = 0; c < s.compatible->len / n && !used; c++)
                used = g_array_index (s.compatible, guint, (gsize) c * n + x) == g;
              g_assert_cmpint (used, ==, ffm_mapspace_group_is_usable (s.ms, x, g));
              usable += used;
              usable_rows += used ? ffm_mapspace_group_get_n_rows (s.ms, x, g) : 0;
            }
          g_assert_cmpuint (st.pmappings, ==, rows);
          g_assert_cmpuint (st.pmapping_groups, ==, ffm_einsum_pmappings_get_n_groups (pm));
          g_assert_cmpuint (st.groups, ==, ffm_mapspace_get_n_groups (s.ms, x));
          g_assert_cmpuint (st.usable_groups, ==, usable);
          g_assert_cmpuint (st.usable_pmappings, ==, usable_rows);
          if (ps->reused_from < 0)
            g_assert_cmpuint (st.evaluated, ==, ps->n_evaluated);
          g_assert_cmpfloat (st.query_weight, ==, ffm_mapspace_get_query_weight (s.ms, x));
          g_assert_cmpuint (st.keys, >=, 1);
          g_assert_cmpuint (st.links, >=, usable > 0 ? 1 : 0);
          checked++;
        }
      small_clear (&s);
    }
  g_test_message ("%" G_GUINT64_FORMAT " Einsums' statistics checked", checked);
}

/* The sorted shared tensors of group @g (by access), as the moves see
 * them. */
static void
tensors_by_access (const FfmCompatibility *c, const FfmCompatTensor **out)
{
  for (guint t = 0; t < c->n_tensors; t++)
    out[t] = &c->tensors[t];
  for (guint i = 1; i < c->n_tensors; i++)
    for (guint j = i; j > 0 && out[j - 1]->access > out[j]->access; j--)
      {
        const FfmCompatTensor *tmp = out[j];
        out[j] = out[j - 1];
        out[j - 1] = tmp;
      }
}

static gboolean
same_backings (const FfmCompatibility *a, const FfmCompatibility *b)
{
  const FfmCompatTensor *ta[FFM_MAX_EINSUM_TENSORS], *tb[FFM_MAX_EINSUM_TENSORS];

  tensors_by_access (a, ta);
  tensors_by_access (b, tb);
  for (guint t = 0; t < a->n_tensors; t++)
    if (ta[t]->backing_level != tb[t]->backing_level
        || ta[t]->persistent != tb[t]->persistent)
      return FALSE;
  return TRUE;
}

/* The loop at which @b's fused loops differ from @a's in the tile alone,
 * or -1. */
static int
one_tile_apart (const FfmCompatibility *a, const FfmCompatibility *b)
{
  int at = -1;

  if (a->n_loops != b->n_loops)
    return -1;
  for (guint d = 0; d < a->n_loops; d++)
    {
      const FfmCompatLoop *x = &a->loops[d], *y = &b->loops[d];
      if (x->rank_var != y->rank_var || x->spatial != y->spatial
          || x->fanout_level != y->fanout_level || x->fanout_dim != y->fanout_dim)
        return -1;
      if (x->tile != y->tile)
        {
          if (at >= 0)
            return -1;
          at = (int) d;
        }
    }
  return at;
}

/* The candidates of a move by its definition, scanning every group. */
static guint
scan_targets (FfmMapspace *ms, const FfmMapspaceChoice *state, guint x,
              FfmMapspaceMove kind, int tensor, int direction, guint *out)
{
  const FfmCompatibility *cur = ffm_mapspace_group_get_compatibility (ms, x, state[x].group);
  guint ng = ffm_mapspace_get_n_groups (ms, x), n = 0;
  double best = INFINITY;

  if (kind == FFM_MAPSPACE_MOVE_ROW)
    return 0;
  if (kind == FFM_MAPSPACE_MOVE_LOOPS && direction < 2)
    {
      for (guint g = 0; g < ng; g++)
        {
          const FfmCompatibility *o = ffm_mapspace_group_get_compatibility (ms, x, g);
          int d;
          double gap;
          if (g == state[x].group || !ffm_mapspace_group_is_usable (ms, x, g)
              || !same_backings (cur, o) || (d = one_tile_apart (cur, o)) < 0)
            continue;
          gap = log ((double) o->loops[d].tile / (double) cur->loops[d].tile);
          if ((direction == 0) != (gap > 0))
            continue;
          gap = fabs (gap);
          if (gap < best)
            {
              best = gap;
              n = 0;
            }
          if (gap == best)
            out[n++] = g;
        }
      if (n > 0)
        return n;
    }
  for (guint g = 0; g < ng; g++)
    {
      const FfmCompatibility *o = ffm_mapspace_group_get_compatibility (ms, x, g);
      const FfmCompatTensor *tc[FFM_MAX_EINSUM_TENSORS], *to[FFM_MAX_EINSUM_TENSORS];
      if (g == state[x].group || !ffm_mapspace_group_is_usable (ms, x, g))
        continue;
      switch (kind)
        {
        case FFM_MAPSPACE_MOVE_LOOPS:
          if (same_backings (cur, o))
            out[n++] = g;
          break;
        case FFM_MAPSPACE_MOVE_BACKING:
          tensors_by_access (cur, tc);
          tensors_by_access (o, to);
          if (tensor >= 0 && tc[tensor]->backing_level != to[tensor]->backing_level)
            out[n++] = g;
          break;
        default:
          out[n++] = g;
          break;
        }
    }
  return n;
}

/* Compares the moves' candidates with the scan on @trials states of @ms,
 * and checks that moves land on candidates. */
static void
check_moves (FfmMapspace *ms, GRand *rand, guint trials, guint64 *lists,
             guint64 *nonempty, guint64 *nearest)
{
  guint n = ffm_mapspace_get_n_einsums (ms);
  g_autoptr (FfmMapspaceWorkspace) ws = ffm_mapspace_workspace_new (ms);
  g_autofree FfmMapspaceChoice *state = ffm_mapspace_state_new (ms);
  g_autofree FfmMapspaceChoice *moved = ffm_mapspace_state_new (ms);

  for (guint trial = 0; trial < trials; trial++)
    {
      ffm_mapspace_sample (ws, rand, state);
      for (guint x = 0; x < n; x++)
        {
          guint ng = ffm_mapspace_get_n_groups (ms, x);
          guint nt = ffm_mapspace_group_get_compatibility (ms, x, 0)->n_tensors;
          g_autofree guint *a = g_new (guint, ng), *b = g_new (guint, ng);
          for (guint kind = FFM_MAPSPACE_MOVE_LOOPS; kind <= FFM_MAPSPACE_MOVE_GROUP; kind++)
            for (int t = -1; t < (int) MAX (nt, 1); t++)
              for (int d = 0; d < 3; d++)
                {
                  guint na, nb;
                  if ((kind == FFM_MAPSPACE_MOVE_BACKING) != (t >= 0)
                      || (kind != FFM_MAPSPACE_MOVE_LOOPS && d > 0)
                      || (kind == FFM_MAPSPACE_MOVE_BACKING && t >= (int) nt))
                    continue;
                  na = ffm_mapspace_list_move_targets (ms, state, x, kind, t, d, a);
                  nb = scan_targets (ms, state, x, kind, t, d, b);
                  g_assert_cmpuint (na, ==, nb);
                  for (guint i = 0; i < na; i++)
                    g_assert_cmpuint (a[i], ==, b[i]);
                  (*lists)++;
                  *nonempty += na > 0;
                  if (kind == FFM_MAPSPACE_MOVE_LOOPS && d < 2 && na > 0
                      && one_tile_apart (ffm_mapspace_group_get_compatibility (ms, x, state[x].group),
                                         ffm_mapspace_group_get_compatibility (ms, x, a[0])) >= 0)
                    (*nearest)++;
                }
        }
      /* A move lands on a candidate of its Einsum, the rest compatible. */
      for (guint kind = FFM_MAPSPACE_MOVE_LOOPS; kind <= FFM_MAPSPACE_MOVE_GROUP; kind++)
        {
          guint x = G_MAXUINT, ng, na;
          g_autofree guint *a = NULL;
          gboolean found = FALSE;
          ffm_mapspace_state_copy (ms, moved, state);
          if (!ffm_mapspace_move (ws, rand, moved, kind, &x, NULL))
            continue;
          g_assert_true (ffm_mapspace_check (ms, moved, NULL));
          ng = ffm_mapspace_get_n_groups (ms, x);
          a = g_new (guint, ng);
          na = ffm_mapspace_list_move_targets (ms, state, x, kind == FFM_MAPSPACE_MOVE_BACKING
                                               ? FFM_MAPSPACE_MOVE_GROUP : kind, -1, 2, a);
          for (guint i = 0; i < na; i++)
            found |= a[i] == moved[x].group;
          g_assert_true (found);
        }
    }
}

static void
test_move_targets (void)
{
  guint64 seed = env_number ("FFM_MAPSPACE_SEED", 1) + 13, lists = 0, nonempty = 0, nearest = 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmParamValues) params = ffm_param_values_new ();
  g_autoptr (FfmWorkload) w = NULL;
  g_autoptr (FfmArch) a = NULL;
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  FfmPmappingOptions options;

  g_test_summary ("The moves' indexes give exactly the candidates a scan of every "
                  "group finds by the moves' definitions, and a move takes one of them");
  for (guint k = 0; k < env_number ("FFM_MAPSPACE_CASES", DEFAULT_CASES) / 3; k++)
    {
      Small s;
      g_autoptr (GRand) r = NULL;
      small_next (&seed, &s);
      r = g_rand_new_with_seed ((guint32) s.seed);
      check_moves (s.ms, r, 8, &lists, &nonempty, &nearest);
      small_clear (&s);
    }
  /* Real tiles: three matmuls on TPUv4i, two fused loops (the random
   * problems' groups rarely differ in one tile only). */
  ffm_param_values_set (params, "n_einsums", "3");
  w = ffm_workload_load ("matmuls", params, &error);
  g_assert_no_error (error);
  a = ffm_plugin_registry_build_arch (registry, "tpuv4i", NULL, &error);
  g_assert_no_error (error);
  ffm_pmapping_options_init (&options);
  options.max_fused_loops = 2;
  ms = ffm_mapspace_new (ffm_pmappings_generate (w, a, &options, &error), &error);
  g_assert_no_error (error);
  check_moves (ms, rand, 4, &lists, &nonempty, &nearest);
  g_test_message ("%" G_GUINT64_FORMAT " candidate lists compared, %" G_GUINT64_FORMAT
                  " not empty, %" G_GUINT64_FORMAT " of nearest tiles", lists, nonempty, nearest);
  g_assert_cmpuint (nonempty, >, 0);
  g_assert_cmpuint (nearest, >, 0);
}

static void
test_charges (void)
{
  guint64 seed = env_number ("FFM_MAPSPACE_SEED", 1) + 17;
  Small s;
  guint n;
  double explored = 0;
  FfmSearchContext ctx;
  g_autoptr (FfmProblem) problem = NULL;
  const FfmPmappingSet *set;

  g_test_summary ("Each charge on a hand-computed case: a query costs 1 evaluation, or "
                  "the Einsum's evaluated pmappings per Pareto pmapping; modelled time "
                  "is queries x the time of one evaluation x parts / threads, and a "
                  "modelled budget stops at the state it runs out");
  small_next (&seed, &s);
  n = ffm_mapspace_get_n_einsums (s.ms);
  set = ffm_mapspace_get_pmapping_set (s.ms);
  g_assert_cmpint (ffm_mapspace_get_charge (s.ms), ==, FFM_MAPSPACE_CHARGE_EXPLORED);
  for (guint x = 0; x < n; x++)
    {
      const FfmPmappingStats *st =
        ffm_einsum_pmappings_get_stats (ffm_pmapping_set_lookup_einsum (set, x));
      double w;
      if (st->reused_from >= 0)
        st = ffm_einsum_pmappings_get_stats (ffm_pmapping_set_lookup_einsum (set,
                                                                             (guint) st->reused_from));
      w = MAX (1.0, (double) st->n_evaluated / (double) st->n_rows);
      g_assert_cmpfloat (ffm_mapspace_get_query_weight (s.ms, x), ==, w);
      explored += w;
    }
  g_assert_cmpfloat_with_epsilon (ffm_mapspace_get_state_query_weight (s.ms), explored,
                                  1e-12 * explored);

  /* The paper's text: one evaluation per queried pmapping; 2 us each. */
  ffm_mapspace_set_accounting (s.ms, FFM_MAPSPACE_CHARGE_EVALUATION, 2e-6);
  g_assert_cmpfloat (ffm_mapspace_get_seconds_per_pmapping (s.ms), ==, 2e-6);
  for (guint x = 0; x < n; x++)
    g_assert_cmpfloat (ffm_mapspace_get_query_weight (s.ms, x), ==, 1);
  g_assert_cmpfloat (ffm_mapspace_get_state_query_weight (s.ms), ==, n);
  problem = ffm_problem_new (s.w, s.a);
  ffm_search_context_init (&ctx, problem);
  ctx.n_threads = 1;
  ctx.max_modelled_seconds = 10 * n * 2e-6 * 2;  /* ten states of each of 2 parts */
  {
    g_autoptr (FfmSearchMeter) m0 = ffm_search_meter_new (&ctx, s.ms, 0, 2, 0);
    guint states = 0;
    /* 3 states: 3 x n queries, x 2 us, x 2 parts on 1 thread. */
    ffm_search_meter_charge_states (m0, 3);
    g_assert_cmpfloat (ffm_search_meter_get_pmapping_queries (m0), ==, 3.0 * n);
    g_assert_cmpfloat_with_epsilon (ffm_search_meter_get_modelled_seconds (m0),
                                    3.0 * n * 2e-6 * 2, 1e-18);
    while (ffm_search_meter_has_room (m0, 1))
      {
        ffm_search_meter_charge_states (m0, 1);
        states++;
      }
    /* Its half of the budget: ten states, the three included. */
    g_assert_cmpuint (states + 3, ==, 10);
  }
  /* The authors' code: explored pmappings per Pareto pmapping. */
  ffm_mapspace_set_accounting (s.ms, FFM_MAPSPACE_CHARGE_EXPLORED, 0);
  g_assert_cmpfloat (ffm_mapspace_get_seconds_per_pmapping (s.ms), ==, 2e-6);
  g_assert_cmpfloat_with_epsilon (ffm_mapspace_get_state_query_weight (s.ms), explored,
                                  1e-12 * explored);
  {
    g_autoptr (FfmSearchMeter) m = ffm_search_meter_new (&ctx, s.ms, 0, 1, 0);
    ffm_search_meter_charge_states (m, 4);
    g_assert_cmpfloat_with_epsilon (ffm_search_meter_get_modelled_seconds (m),
                                    4 * explored * 2e-6, 1e-12 * explored);
  }
  /* Rows read through the meter: the values of the mapspace, each row one
   * query of its Einsum, no evaluation. */
  for (guint x = 0; x < n; x++)
    {
      g_autoptr (FfmSearchMeter) m = ffm_search_meter_new (&ctx, s.ms, 0, 1, 0);
      guint g = 0, rows;
      while (ffm_mapspace_get_n_groups (s.ms, x) > g + 1
             && ffm_mapspace_group_get_n_rows (s.ms, x, g) < 2)
        g++;
      rows = ffm_mapspace_group_get_n_rows (s.ms, x, g);
      g_assert_cmpuint (rows, >, 0);
      {
        g_autofree double *energy = g_new (double, rows);
        g_autofree double *latency = g_new (double, rows);
        ffm_search_meter_read_rows (m, x, g, 0, rows, energy, latency);
        for (guint r = 0; r < rows; r++)
          {
            double e, l;
            ffm_mapspace_group_get_objectives (s.ms, x, g, r, &e, &l);
            g_assert_cmpfloat (energy[r], ==, e);
            g_assert_true (latency[r] == l || (isnan (latency[r]) && isnan (l)));
          }
        ffm_search_meter_read_rows (m, x, g, rows - 1, 1, NULL, latency);
      }
      g_assert_cmpuint (ffm_search_meter_get_evaluations (m), ==, 0);
      g_assert_cmpfloat_with_epsilon (ffm_search_meter_get_pmapping_queries (m),
                                      (rows + 1) * ffm_mapspace_get_query_weight (s.ms, x),
                                      1e-12 * rows * explored);
    }
  {
    FfmMapspaceCharge c;
    g_autoptr (GError) error = NULL;
    g_assert_true (ffm_mapspace_charge_from_string ("evaluation", &c, NULL));
    g_assert_cmpint (c, ==, FFM_MAPSPACE_CHARGE_EVALUATION);
    g_assert_cmpstr (ffm_mapspace_charge_to_string (FFM_MAPSPACE_CHARGE_EXPLORED), ==, "explored");
    g_assert_false (ffm_mapspace_charge_from_string ("cheap", &c, &error));
    g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE);
    g_assert_nonnull (strstr (error->message, "cheap"));
  }
  small_clear (&s);
}

static void
test_paper_space_and_timing (void)
{
  guint64 seed = env_number ("FFM_MAPSPACE_SEED", 1) + 19, compared = 0, fewer = 0;
  g_autoptr (GError) error = NULL;
  double seconds = 0;
  guint64 evaluated = 0;

  g_test_summary ("The paper's space keeps every Pareto pmapping (groups no join can "
                  "use included, never drawn) and times one evaluation with pruning "
                  "off; the pruned space is ffm's, with fewer groups where joinable-only "
                  "leaves some out; both have the same compatible states");
  for (guint k = 0; k < 60 && (compared < 10 || fewer == 0); k++, seed++)
    {
      g_autoptr (FfmWorkload) w = NULL;
      g_autoptr (FfmArch) a = NULL;
      g_autoptr (FfmProblem) problem = NULL;
      g_autoptr (FfmMapspace) paper = NULL, pruned = NULL;
      FfmSearchContext ctx;
      int max_fused;
      guint64 paper_groups = 0, pruned_groups = 0;
      random_problem_make (seed, &w, &a, &max_fused);
      if (k == 0)
        {
          g_assert_true (ffm_mapspace_measure_seconds_per_pmapping (w, a, NULL, &seconds,
                                                                    &evaluated, &error));
          g_assert_no_error (error);
          g_assert_cmpfloat (seconds, >, 0);
          g_assert_cmpuint (evaluated, >, 0);
        }
      problem = ffm_problem_new (w, a);
      ffm_search_context_init (&ctx, problem);
      ctx.max_fused_loops = max_fused;
      paper = ffm_mapspace_new_for_context_with (&ctx, FFM_MAPSPACE_SPACE_PAPER,
                                                 FFM_MAPSPACE_CHARGE_EVALUATION, &error);
      if (paper == NULL)
        {
          g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE);
          g_clear_error (&error);
          continue;
        }
      pruned = ffm_mapspace_new_for_context_with (&ctx, FFM_MAPSPACE_SPACE_PRUNED,
                                                  FFM_MAPSPACE_CHARGE_EXPLORED, &error);
      g_assert_no_error (error);
      g_assert_cmpint (ffm_mapspace_get_space (paper), ==, FFM_MAPSPACE_SPACE_PAPER);
      g_assert_cmpint (ffm_mapspace_get_space (pruned), ==, FFM_MAPSPACE_SPACE_PRUNED);
      g_assert_cmpint (ffm_mapspace_get_charge (paper), ==, FFM_MAPSPACE_CHARGE_EVALUATION);
      g_assert_cmpfloat (ffm_mapspace_get_seconds_per_pmapping (paper), >, 0);
      g_assert_cmpfloat_with_epsilon (ffm_mapspace_get_log10_n_states (paper),
                                      ffm_mapspace_get_log10_n_states (pruned), 1e-9);
      for (guint x = 0; x < ffm_mapspace_get_n_einsums (paper); x++)
        {
          FfmMapspaceEinsumStats sa, sb;
          ffm_mapspace_get_einsum_stats (paper, x, &sa);
          ffm_mapspace_get_einsum_stats (pruned, x, &sb);
          g_assert_cmpuint (sa.usable_groups, ==, sb.usable_groups);
          g_assert_cmpuint (sa.usable_pmappings, ==, sb.usable_pmappings);
          g_assert_cmpuint (sa.pmapping_groups, >=, sb.pmapping_groups);
          paper_groups += sa.pmapping_groups;
          pruned_groups += sb.pmapping_groups;
        }
      compared++;
      fewer += pruned_groups < paper_groups;
    }
  g_test_message ("%" G_GUINT64_FORMAT " problems compared, %" G_GUINT64_FORMAT " with "
                  "fewer groups pruned; one evaluation %.3g us", compared, fewer, 1e6 * seconds);
  g_assert_cmpuint (fewer, >, 0);
}

static void
test_memory_budget (void)
{
  guint64 seed = env_number ("FFM_MAPSPACE_SEED", 1) + 23, checked = 0;

  g_test_summary ("Building a mapspace is charged to the memory budget left after its "
                  "pmappings: short of what it needs, FFM_SEARCH_ERROR_OUT_OF_MEMORY "
                  "naming --max-memory; with exactly that, it builds");
  for (guint k = 0; k < 20; k++, seed++)
    {
      g_autoptr (FfmWorkload) w = NULL;
      g_autoptr (FfmArch) a = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmMapspace) ms = NULL;
      FfmPmappingOptions options;
      int max_fused;
      guint64 held, need;
      random_problem_make (seed, &w, &a, &max_fused);
      ffm_pmapping_options_init (&options);
      options.max_fused_loops = max_fused;
      options.n_threads = 1;
      ms = ffm_mapspace_new (ffm_pmappings_generate (w, a, &options, &error), &error);
      if (ms == NULL)
        continue;
      held = ffm_pmapping_set_get_memory_held (ffm_mapspace_get_pmapping_set (ms));
      need = ffm_mapspace_get_memory_peak (ms);
      g_assert_cmpuint (need, >=, ffm_mapspace_get_memory_bytes (ms));
      g_assert_cmpuint (need, >, 0);
      g_clear_pointer (&ms, ffm_mapspace_unref);
      ms = ffm_mapspace_new_limited (ffm_pmappings_generate (w, a, &options, &error),
                                     held + need - 1, &error);
      g_assert_null (ms);
      g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY);
      g_assert_nonnull (strstr (error->message, "--max-memory"));
      g_clear_error (&error);
      ms = ffm_mapspace_new_limited (ffm_pmappings_generate (w, a, &options, &error),
                                     held + need, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (ffm_mapspace_get_memory_peak (ms), ==, need);
      checked++;
    }
  g_assert_cmpuint (checked, >, 0);
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
  g_test_add_func ("/mapspace/graph-is-the-join-rules", test_graph_is_the_join_rules);
  g_test_add_func ("/mapspace/alternatives-and-changes", test_alternatives_and_changes);
  g_test_add_func ("/mapspace/optimum-and-random-states", test_optimum_and_random_states);
  g_test_add_func ("/mapspace/draws-uniform", test_draws_uniform);
  g_test_add_func ("/mapspace/bad-states", test_bad_states);
  g_test_add_func ("/mapspace/nothing-fits", test_nothing_fits);
  g_test_add_func ("/mapspace/space-statistics", test_space_statistics);
  g_test_add_func ("/mapspace/move-targets", test_move_targets);
  g_test_add_func ("/mapspace/charges", test_charges);
  g_test_add_func ("/mapspace/paper-space-and-timing", test_paper_space_and_timing);
  g_test_add_func ("/mapspace/memory-budget", test_memory_budget);
  status = g_test_run ();
  ffm_plugin_registry_free (registry);
  return status;
}
