/* ffm.c: the Fast and Fusiest Mapper as a search strategy [1].
 *
 *   1. every Einsum's Pareto-optimal pmappings (ffm_pmappings_generate());
 *   2. a dirty join: the join of join.h with objectives compared in boxes
 *      (of ratio 1 + epsilon [1, §6.3]; with the beam, of epsilon times
 *      one Einsum's mean least value) and, for one objective, only the rows
 *      near the step's best least completion kept, and each group's best
 *      (the beam), which keeps few rows and ends with real, valid mappings
 *      whose best value bounds the optimum;
 *   3. a clean join, exact, that drops every partial mapping whose
 *      objectives so far plus the least the remaining Einsums can add
 *      cannot reach that bound (partial sums only grow);
 *   4. the best row (or the energy-latency front), rebuilt into a LoopTree
 *      (ffm_join_build_mapping()) and evaluated by the cost model: the
 *      result reports the model's numbers for the mapping it returns.
 * Optimality: step 1 keeps every pmapping that could be part of an
 * optimal mapping, the join drops only rows another row of the same group
 * beats in every objective and reservation [1, §6.4], and step 3 drops
 * only rows that cannot beat a mapping already found. tests/
 * test-ffm-optimality.c holds it to the exhaustive strategy.
 *
 * [1] The FFM paper §3-§6; docs/ffm-search.md. */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#include "join.h"

#define OWNER "strategy ffm"

static const FfmParamSpec ffm_params[] = {
  /* TUNING: 0.05; tried 0.01-1 on GPT-3 and matmul chains: the clean
   * pass then prunes nearly everything, and the dirty pass stays small. */
  { "epsilon", FFM_PARAM_NUMBER, "0.05",
    "dirty pass: objectives compared in boxes of epsilon times the mean "
    "least value of one Einsum (of ratio 1 + epsilon without a beam or for "
    "the Pareto set; 0 = no dirty pass)", 0, 100, NULL },
  /* TUNING: 0.05; tried 0, 0.01, 0.02, 0.05 and 0.25 on GPT-3 6.7B and
   * 175B, Llama-3 8B, DeepSeek-V3, ResNet-50, MobileNet-V3 and chains of
   * 100-1,000 matmuls (docs/ffm-search.md, "The dirty pass's beam"):
   * 0.01-0.02 start the clean pass over more often or leave it a looser
   * bound, 0.25 keeps 3-5x the rows; 0 (the paper's dirty pass) took
   * 1,000 matmuls 4.9 s and Llama-3 8B on the edge chip 19.4 s, against
   * 2.2 s and 3.4 s. */
  { "beam", FFM_PARAM_NUMBER, "0.05",
    "dirty pass for energy, latency or EDP: each step keeps only the rows "
    "whose least possible final value is within 1 + beam of the step's best, "
    "and the best row of each group (0 = keep all)", 0, 1000, NULL },
  /* TUNING: each refinement divides epsilon by REFINE_DIVISOR; three
   * reach 0.0004 from the default, finer than the chains of 1,000 matmuls
   * measured needed (docs/ffm-search.md, "Two passes"). */
  { "refine", FFM_PARAM_INTEGER, "3",
    "at most this many finer dirty passes, each at a fifth of the last "
    "epsilon, when the clean pass keeps far more rows than the dirty one "
    "(0 = none)", 0, 16, NULL },
  { "reuse", FFM_PARAM_BOOL, "true",
    "Einsums equal to an earlier one (shape, tensor classes, architecture "
    "answers) copy its pmappings instead of enumerating them again; the "
    "result is the same", 0, 0, NULL },
  { "joinable_only", FFM_PARAM_BOOL, "true",
    "leave out the pmappings that no pmapping of another Einsum sharing a "
    "tensor agrees with on its memory and fused loops (the Einsums with no "
    "tensor of their own are generated first, the others skip what they rule "
    "out); the result is the same", 0, 0, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL }
};

/* The generator's progress passed on as the strategy's phase (called
 * from the generator's threads; the host's callback is thread-safe). */
static void
forward_progress (const FfmPmappingProgress *p, gpointer data)
{
  const FfmSearchContext *ctx = data;
  char where[128], phase[160];

  ffm_pmapping_progress_format (p, where, sizeof where);
  g_snprintf (phase, sizeof phase, "pmappings: %s", where);
  ctx->progress (p->n_templates > 0 ? (double) p->templates_done / p->n_templates : -1,
                 phase, ctx->progress_data);
}

static double
seconds_since (gint64 start)
{
  return (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
}

/* ---- Rebuilding and re-evaluating a row ---- */

typedef struct {
  FfmMapping *mapping;          /* owned */
  double energy;                /* the cost model's, J */
  double latency;               /* s */
  gboolean mismatch;            /* the model's totals differ from the row's */
} Rebuilt;

static gboolean
rebuild (FfmPmappingSet *set, const JoinResult *r, guint index, Rebuilt *out,
         GError **error)
{
  FfmWorkload *w = ffm_pmapping_set_get_workload (set);
  FfmArch *a = ffm_pmapping_set_get_arch (set);
  g_autoptr (GPtrArray) joins = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_join_pmapping_free);
  g_autoptr (FfmMapping) mapping = NULL;
  g_autoptr (FfmCostReport) report = NULL;
  double e, l;

  for (guint x = 0; x < ffm_workload_get_n_einsums (w); x++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_lookup_einsum (set, x);
      g_autoptr (GPtrArray) nodes = NULL;
      FfmJoinPmapping *jp;
      FfmPmappingRef ref;
      guint group, order;

      join_result_get_choice (r, index, x, &group, &ref, &order);
      nodes = join_pmapping_path (pm, &ref);
      jp = ffm_join_pmapping_new (w, a, (const FfmMappingNode *const *) nodes->pdata,
                                  nodes->len, error);
      if (jp == NULL)
        return FALSE;
      if (order > 0)
        {
          FfmJoinPmapping *reordered = ffm_join_pmapping_reorder (jp, w, a, order);
          ffm_join_pmapping_free (jp);
          jp = reordered;
        }
      g_ptr_array_add (joins, jp);
    }
  mapping = ffm_join_build_mapping (w, a, joins, error);
  if (mapping == NULL)
    {
      g_prefix_error (error, "ffm: the join kept a mapping that does not join "
                      "(a bug): ");
      return FALSE;
    }
  report = ffm_cost_evaluate_mapping (w, a, mapping, error);
  if (report == NULL)
    {
      g_prefix_error (error, "ffm: the cost model refuses the joined mapping "
                      "(a bug): ");
      return FALSE;
    }
  if (!ffm_cost_report_fits (report))
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "ffm: the joined mapping does not fit, though its "
                   "reservations did (a bug): %s",
                   ffm_cost_report_get_problem (report));
      return FALSE;
    }
  join_result_get_final (r, index, &e, &l);
  out->energy = ffm_cost_report_get_energy (report);
  out->latency = ffm_cost_report_get_latency (report);
  out->mismatch = (e != 0 && e != out->energy) || (l != 0 && l != out->latency);
  out->mapping = g_steal_pointer (&mapping);
  return TRUE;
}

/* ---- Choosing ---- */

/* A candidate: a final row of one of the passes. */
typedef struct {
  const JoinResult *r;
  guint index;
  double energy;
  double latency;
} Candidate;

static double
candidate_value (const Candidate *c, FfmObjective objective)
{
  return ffm_objective_value (objective, c->energy, c->latency);
}

/* TRUE if @a beats @b: a lower objective value, or for energy (latency)
 * an equal one and less latency (energy). */
static gboolean
candidate_better (const Candidate *a, const Candidate *b, FfmObjective objective)
{
  double va = candidate_value (a, objective), vb = candidate_value (b, objective);

  if (va != vb)
    return va < vb;
  if (objective == FFM_OBJECTIVE_ENERGY)
    return a->latency < b->latency;
  if (objective == FFM_OBJECTIVE_LATENCY)
    return a->energy < b->energy;
  return FALSE;
}

static void
add_candidates (GArray *out, const JoinResult *r, FfmObjective objective)
{
  if (r == NULL)
    return;
  if (objective == FFM_OBJECTIVE_PARETO)
    {
      g_autoptr (GArray) front = join_result_pick_front (r);
      for (guint i = 0; i < front->len; i++)
        {
          Candidate c = { r, g_array_index (front, guint, i), 0, 0 };
          join_result_get_final (r, c.index, &c.energy, &c.latency);
          g_array_append_val (out, c);
        }
    }
  else
    {
      int best = join_result_pick (r, objective);
      if (best >= 0)
        {
          Candidate c = { r, (guint) best, 0, 0 };
          join_result_get_final (r, c.index, &c.energy, &c.latency);
          g_array_append_val (out, c);
        }
    }
}

/* The candidates to return: the best one (ties of energy or latency
 * broken by the other), or the front of all of them (energy ascending;
 * the first of equal points), whose ends are the energy and latency
 * optima with their ties broken. */
static GArray *
choose (GArray *cands, FfmObjective objective)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Candidate));

  if (objective != FFM_OBJECTIVE_PARETO)
    {
      int best = -1;
      for (guint i = 0; i < cands->len; i++)
        if (best < 0 || candidate_better (&g_array_index (cands, Candidate, i),
                                          &g_array_index (cands, Candidate, best),
                                          objective))
          best = (int) i;
      if (best >= 0)
        g_array_append_val (out, g_array_index (cands, Candidate, best));
      return out;
    }
  for (guint i = 0; i < cands->len; i++)
    {
      const Candidate *c = &g_array_index (cands, Candidate, i);
      gboolean dominated = FALSE;
      for (guint j = 0; j < cands->len && !dominated; j++)
        {
          const Candidate *d = &g_array_index (cands, Candidate, j);
          dominated = d->energy <= c->energy && d->latency <= c->latency
            && (d->energy < c->energy || d->latency < c->latency || j < i);
        }
      if (!dominated)
        g_array_append_val (out, *c);
    }
  for (guint i = 1; i < out->len; i++)     /* insertion sort by energy */
    for (guint j = i; j > 0 && g_array_index (out, Candidate, j - 1).energy
                                > g_array_index (out, Candidate, j).energy; j--)
      {
        Candidate t = g_array_index (out, Candidate, j);
        g_array_index (out, Candidate, j) = g_array_index (out, Candidate, j - 1);
        g_array_index (out, Candidate, j - 1) = t;
      }
  return out;
}

/* ---- The strategy ---- */

static void
record_survivors (FfmSearchResult *result, const FfmWorkload *w,
                  const JoinResult *r, const char *prefix)
{
  guint n;
  const guint64 *surv = join_result_get_survivors (r, &n);

  for (guint x = 0; x < n; x++)
    {
      g_autofree char *name = g_strdup_printf ("%s_%02u_%s", prefix, x,
                                               ffm_workload_get_einsum (w, x)->name);
      ffm_search_result_set_stat (result, name, (double) surv[x]);
    }
}

/* Adds the CPU seconds of each step of @r to @acc (the profile of
 * `--stats` sums a pass's attempts). */
static void
add_step_cpu (double *acc, const JoinResult *r)
{
  guint n;
  const double *cpu = join_result_get_step_cpu_seconds (r, &n);

  for (guint x = 0; x < n; x++)
    acc[x] += cpu[x];
}

static void
record_step_cpu (FfmSearchResult *result, const FfmWorkload *w,
                 const double *cpu, const char *pass)
{
  for (guint x = 0; x < ffm_workload_get_n_einsums (w); x++)
    {
      g_autofree char *name = g_strdup_printf ("seconds_cpu_%s_%02u_%s", pass, x,
                                               ffm_workload_get_einsum (w, x)->name);
      ffm_search_result_set_stat (result, name, cpu[x]);
    }
}

/* ---- The passes ---- */

/* TUNING: a clean step keeping more than RESTART_RATIO times the rows the
 * last dirty pass kept there, and more than RESTART_ROWS, starts the clean
 * pass over; on the edge chip's chain of 400 matmuls the clean pass kept
 * up to 8x the dirty pass's rows (7,512 against 921) on a bound 5 % off,
 * while on GPT-3 it keeps fewer than the dirty pass at every step. */
#define RESTART_RATIO 4
#define RESTART_ROWS 1024
#define REFINE_DIVISOR 5

typedef struct {
  GArray *cands;                /* borrowed: every pass's candidates */
  GPtrArray *dirty;             /* of JoinResult: the dirty passes (the
                                   candidates point into them) */
  const JoinResult *last_dirty; /* borrowed from dirty */
  GArray *front;                /* of double: (energy, latency) pairs of
                                   the candidates, the PARETO bound */
  double *dirty_cpu;            /* [n_einsums]: summed over dirty passes */
  double *clean_cpu;            /* [n_einsums]: over clean attempts */
  double dirty_seconds, clean_seconds;
  guint n_refined, n_restarts;
  guint n_beam_reruns;          /* dirty passes run again without the beam */
  gboolean improved;            /* the last dirty pass found a better
                                   bound than the passes before it */
} Passes;

/* The per-step row limits of a clean pass after dirty pass @dirty
 * (FFM_DEBUG=join-restart-rows=N: N rows at every step, for the tests). */
static guint64 *
restart_limits (const JoinResult *dirty)
{
  guint n;
  const guint64 *kept = join_result_get_survivors (dirty, &n);
  gboolean forced = ffm_debug_flag_is_set (FFM_DEBUG_JOIN_RESTART_ROWS);
  guint64 forced_rows = ffm_debug_flag_get_uint (FFM_DEBUG_JOIN_RESTART_ROWS, 0);
  guint64 *limits = g_new (guint64, MAX (n, 1));

  for (guint x = 0; x < n; x++)
    limits[x] = forced ? forced_rows : MAX (RESTART_ROWS, RESTART_RATIO * kept[x]);
  return limits;
}

/* Whether one of the @n (energy, latency) points of @front is no worse
 * than (@energy, @latency) in both. */
static gboolean
front_covers (const double *front, guint n, double energy, double latency)
{
  for (guint i = 0; i < n; i++)
    if (front[2 * i] <= energy && front[2 * i + 1] <= latency)
      return TRUE;
  return FALSE;
}

/* Runs a dirty pass at @epsilon (bounded by the candidates so far, if
 * any), adds its candidates and tightens @pass's bound with them. */
static gboolean
dirty_pass (JoinProblem *problem, JoinPassOptions *pass, double epsilon,
            Passes *passes, GError **error)
{
  JoinResult *r;
  guint first = passes->cands->len, n_front = passes->front->len / 2;

  pass->epsilon = epsilon;
  pass->phase = "dirty join";
  pass->give_up_above = NULL;
  r = join_run (problem, pass, error);
  if (r != NULL && join_result_get_n_final (r) == 0 && !pass->bounded
      && pass->beam > 0 && pass->objective != FFM_OBJECTIVE_PARETO)
    {
      /* The beam kept only rows a later step could not take (a memory
       * too small for them): the pass again without it. (A bounded pass
       * that ends empty leaves the bound as it was, which is right.) */
      double beam = pass->beam;
      g_debug ("ffm: the dirty pass at epsilon %g with a beam ended with no "
               "mapping: again without the beam", epsilon);
      passes->dirty_seconds += join_result_get_seconds (r);
      add_step_cpu (passes->dirty_cpu, r);
      join_result_free (r);
      passes->n_beam_reruns++;
      pass->beam = 0;
      r = join_run (problem, pass, error);
      pass->beam = beam;
    }
  if (r == NULL)
    return FALSE;
  g_ptr_array_add (passes->dirty, r);
  passes->last_dirty = r;
  add_step_cpu (passes->dirty_cpu, r);
  passes->dirty_seconds += join_result_get_seconds (r);
  add_candidates (passes->cands, r, pass->objective);
  passes->improved = FALSE;
  for (guint i = first; i < passes->cands->len; i++)
    {
      const Candidate *c = &g_array_index (passes->cands, Candidate, i);
      double v = candidate_value (c, pass->objective);
      if (pass->objective == FFM_OBJECTIVE_PARETO)
        passes->improved |= !front_covers ((const double *) passes->front->data,
                                           n_front, c->energy, c->latency);
      if (!pass->bounded || v < pass->bound)
        {
          passes->improved |= pass->objective != FFM_OBJECTIVE_PARETO;
          pass->bound = v;
        }
      pass->bounded = TRUE;
      g_array_append_val (passes->front, c->energy);
      g_array_append_val (passes->front, c->latency);
    }
  pass->front = (const double *) passes->front->data;
  pass->n_front = passes->front->len / 2;
  g_debug ("ffm: the dirty pass at epsilon %g found %u mappings; the bound is now %.17g",
           epsilon, passes->cands->len - first, pass->bound);
  return TRUE;
}

/* Where the generation spent its CPU time, by phase (FfmPmappingProfile):
 * the totals, then each enumerated Einsum (an Einsum that copies an
 * earlier one's pmappings only built its templates). */
static void
record_pmapping_profile (FfmSearchResult *result, FfmPmappingSet *set)
{
  static const struct {
    const char *name;
    gsize offset;
  } phases[] = {
    { "templates", G_STRUCT_OFFSET (FfmPmappingProfile, cpu_templates) },
    { "tiles", G_STRUCT_OFFSET (FfmPmappingProfile, cpu_tiles) },
    { "order", G_STRUCT_OFFSET (FfmPmappingProfile, cpu_order) },
    { "extend", G_STRUCT_OFFSET (FfmPmappingProfile, cpu_extend) },
    { "partial_pruning", G_STRUCT_OFFSET (FfmPmappingProfile, cpu_partial_pruning) },
    { "leaves", G_STRUCT_OFFSET (FfmPmappingProfile, cpu_leaves) },
    { "groups", G_STRUCT_OFFSET (FfmPmappingProfile, cpu_groups) },
  };
  guint n = ffm_pmapping_set_get_n_einsums (set);
  FfmWorkload *w = ffm_pmapping_set_get_workload (set);

  for (guint k = 0; k < G_N_ELEMENTS (phases); k++)
    {
      g_autofree char *name = g_strdup_printf ("seconds_cpu_%s", phases[k].name);
      double sum = 0;
      for (guint i = 0; i < n; i++)
        sum += G_STRUCT_MEMBER (double,
                                ffm_einsum_pmappings_get_profile (ffm_pmapping_set_get_einsum (set, i)),
                                phases[k].offset);
      ffm_search_result_set_stat (result, name, sum);
    }
  for (guint i = 0; i < n; i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      const FfmPmappingProfile *pr = ffm_einsum_pmappings_get_profile (pm);
      guint x = ffm_einsum_pmappings_get_einsum (pm);
      const char *einsum = ffm_workload_get_einsum (w, x)->name;

      if (ffm_einsum_pmappings_get_stats (pm)->reused_from >= 0)
        continue;
      for (guint k = 0; k < G_N_ELEMENTS (phases); k++)
        {
          g_autofree char *name = g_strdup_printf ("seconds_cpu_%02u_%s_%s", x, einsum,
                                                   phases[k].name);
          ffm_search_result_set_stat (result, name,
                                      G_STRUCT_MEMBER (double, pr, phases[k].offset));
        }
      {
        g_autofree char *rows = g_strdup_printf ("partial_rows_%02u_%s", x, einsum);
        g_autofree char *peak = g_strdup_printf ("peak_table_rows_%02u_%s", x, einsum);
        ffm_search_result_set_stat (result, rows, (double) pr->n_partial_rows);
        ffm_search_result_set_stat (result, peak, (double) pr->peak_table_rows);
        if (pr->n_partial_beaten > 0)
          {
            g_autofree char *beaten = g_strdup_printf ("partial_rows_beaten_%02u_%s", x,
                                                       einsum);
            ffm_search_result_set_stat (result, beaten, (double) pr->n_partial_beaten);
          }
      }
    }
}

static void
record_pmapping_stats (FfmSearchResult *result, FfmPmappingSet *set)
{
  guint64 evaluated = 0, rows = 0, groups = 0, reused = 0;

  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmPmappingStats *s =
        ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (set, i));
      evaluated += s->n_evaluated;
      rows += s->n_rows;
      groups += s->n_groups;
      reused += s->reused_from >= 0;
    }
  ffm_search_result_set_stat (result, "pmappings_evaluated", (double) evaluated);
  ffm_search_result_set_stat (result, "pmappings_generated", (double) rows);
  ffm_search_result_set_stat (result, "pmapping_groups", (double) groups);
  ffm_search_result_set_stat (result, "einsums_reused", (double) reused);
  {
    guint64 vectors = 0;
    guint dropped = ffm_pmapping_set_get_n_unjoinable (set, &vectors);
    /* Left out as no join could use them (strategy parameter joinable_only). */
    ffm_search_result_set_stat (result, "pmapping_groups_unjoinable", (double) dropped);
    ffm_search_result_set_stat (result, "pmapping_vectors_unjoinable", (double) vectors);
  }
  /* Templates cut by the generator's limits: the optimum may be missing,
   * and the host says so (not proven optimal). */
  ffm_search_result_set_stat (result, "templates_cut",
                              (double) ffm_pmapping_set_get_n_templates_cut (set));
  /* The most the generation held of its memory budget at once (against
   * the process's peak resident memory: what the budget does not count). */
  ffm_search_result_set_stat (result, "memory_budget_peak_bytes",
                              (double) ffm_pmapping_set_get_memory_peak (set));
  record_pmapping_profile (result, set);
}

static FfmSearchResult *
ffm_run (const FfmSearchContext *ctx, const FfmParamValues *values,
         GError **error)
{
  FfmWorkload *w = ffm_problem_get_workload (ctx->problem);
  FfmArch *a = ffm_problem_get_arch (ctx->problem);
  g_autoptr (FfmPmappingSet) set = NULL;
  g_autoptr (FfmSearchResult) result = NULL;
  g_autoptr (GArray) cands = g_array_new (FALSE, FALSE, sizeof (Candidate));
  g_autoptr (GArray) chosen = NULL;
  JoinProblem *problem = NULL;
  JoinResult *clean = NULL;
  Passes passes = { 0 };
  gint64 refine = 0;
  JoinPassOptions pass = { 0 };
  FfmPmappingOptions options;
  gint64 start = g_get_monotonic_time (), t;
  double cpu_start = join_process_cpu_seconds ();
  double epsilon, mismatches = 0;
  gboolean ok = FALSE, reuse = TRUE, joinable_only = TRUE;

  if (!ffm_param_values_validate (values, ffm_params, OWNER, error)
      || !ffm_param_values_get_number (values, ffm_params, OWNER, "epsilon",
                                       &epsilon, error)
      || !ffm_param_values_get_number (values, ffm_params, OWNER, "beam",
                                       &pass.beam, error)
      || !ffm_param_values_get_integer (values, ffm_params, OWNER, "refine",
                                        &refine, error)
      || !ffm_param_values_get_bool (values, ffm_params, OWNER, "reuse",
                                     &reuse, error)
      || !ffm_param_values_get_bool (values, ffm_params, OWNER, "joinable_only",
                                     &joinable_only, error))
    return NULL;

  if (ctx->progress != NULL)
    ctx->progress (-1, "generating pmappings", ctx->progress_data);
  ffm_pmapping_options_init_from_context (&options, ctx);
  options.reuse_equal_einsums = reuse;
  options.drop_unjoinable = joinable_only;
  if (ctx->progress != NULL)
    {
      options.progress = forward_progress;
      options.progress_data = (gpointer) ctx;
    }
  set = ffm_pmappings_generate (w, a, &options, error);
  if (set == NULL)
    return NULL;
  result = ffm_search_result_new ();
  record_pmapping_stats (result, set);
  ffm_search_result_set_stat (result, "seconds_pmappings", seconds_since (start));
  ffm_search_result_set_stat (result, "seconds_cpu_pmappings",
                              join_process_cpu_seconds () - cpu_start);

  t = g_get_monotonic_time ();
  cpu_start = join_process_cpu_seconds ();
  problem = join_problem_new (set, ctx->objective, ctx->n_threads,
                              FFM_SEARCH_CONTEXT_HAS (ctx, max_memory) ? ctx->max_memory : 0,
                              error);
  if (problem == NULL)
    return NULL;
  ffm_search_result_set_stat (result, "seconds_cpu_join_units",
                              join_process_cpu_seconds () - cpu_start);
  pass.objective = ctx->objective;
  pass.progress = ctx->progress;
  pass.progress_data = ctx->progress_data;
  pass.context = ctx;

  /* Dirty pass: a near-optimal bound. */
  passes.cands = cands;
  passes.dirty = g_ptr_array_new_with_free_func ((GDestroyNotify) join_result_free);
  passes.front = g_array_new (FALSE, FALSE, sizeof (double));
  passes.dirty_cpu = g_new0 (double, MAX (ffm_workload_get_n_einsums (w), 1));
  passes.clean_cpu = g_new0 (double, MAX (ffm_workload_get_n_einsums (w), 1));
  if (epsilon > 0
      && !dirty_pass (problem, &pass, epsilon, &passes, error))
    goto out;

  /* Clean pass: exact, bounded by the dirty passes' best. A step that keeps
   * far more rows than the dirty pass did says the bound is loose: the
   * pass starts over after a finer dirty pass bounded by the best so far,
   * at most `refine` times. */
  for (;;)
    {
      g_autofree guint64 *limits = NULL;
      guint step, n_steps;

      pass.epsilon = 0;
      pass.phase = "join";
      if (passes.last_dirty != NULL && passes.n_refined < (guint) refine)
        limits = restart_limits (passes.last_dirty);
      pass.give_up_above = limits;
      clean = join_run (problem, &pass, error);
      pass.give_up_above = NULL;
      if (clean == NULL)
        goto out;
      add_step_cpu (passes.clean_cpu, clean);
      passes.clean_seconds += join_result_get_seconds (clean);
      if (!join_result_gave_up (clean, &step))
        break;
      g_debug ("ffm: the clean join kept %" G_GUINT64_FORMAT " rows at %s, "
               "over its limit: a dirty pass at epsilon %g first",
               join_result_get_survivors (clean, &n_steps)[step],
               ffm_workload_get_einsum (w, step)->name, epsilon / REFINE_DIVISOR);
      g_clear_pointer (&clean, join_result_free);
      passes.n_restarts++;
      passes.n_refined++;
      epsilon /= REFINE_DIVISOR;
      if (!dirty_pass (problem, &pass, epsilon, &passes, error))
        goto out;
      /* A finer pass that found nothing better says the bound is not what
       * keeps the clean pass's rows: no further start over. */
      if (!passes.improved)
        passes.n_refined = (guint) refine;
    }
  add_candidates (cands, clean, ctx->objective);
  if (passes.last_dirty != NULL)
    {
      record_survivors (result, w, passes.last_dirty, "dirty_survivors");
      record_step_cpu (result, w, passes.dirty_cpu, "dirty_join");
      ffm_search_result_set_stat (result, "seconds_dirty_join", passes.dirty_seconds);
    }
  ffm_search_result_set_stat (result, "dirty_passes", passes.dirty->len);
  /* How close the dirty passes came: the bound the clean pass had. */
  if (pass.bounded && ctx->objective != FFM_OBJECTIVE_PARETO)
    ffm_search_result_set_stat (result, "dirty_bound", pass.bound);
  ffm_search_result_set_stat (result, "join_restarts", passes.n_restarts);
  ffm_search_result_set_stat (result, "dirty_beam_reruns", passes.n_beam_reruns);
  record_survivors (result, w, clean, "join_survivors");
  record_step_cpu (result, w, passes.clean_cpu, "join");
  ffm_search_result_set_stat (result, "seconds_join", passes.clean_seconds);
  ffm_search_result_set_stat (result, "seconds_joins_total", seconds_since (t));

  chosen = choose (cands, ctx->objective);
  if (chosen->len == 0)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                   "no fused mapping of %s fits %s", ffm_workload_get_name (w),
                   ffm_arch_get_name (a));
      goto out;
    }
  t = g_get_monotonic_time ();
  for (guint i = 0; i < chosen->len; i++)
    {
      const Candidate *c = &g_array_index (chosen, Candidate, i);
      Rebuilt rb = { 0 };
      if (!rebuild (set, c->r, c->index, &rb, error))
        goto out;
      mismatches += rb.mismatch;
      ffm_search_result_add_solution (result, rb.mapping, rb.energy, rb.latency);
    }
  ffm_search_result_set_stat (result, "seconds_rebuild", seconds_since (t));
  ffm_search_result_set_stat (result, "model_mismatches", mismatches);
  ffm_search_result_set_stat (result, "seconds", seconds_since (start));
  {
    const FfmSolution *s = ffm_search_result_get_solution (result, 0);
    ffm_search_result_add_trace_point (result, 0, seconds_since (start),
                                       s->energy * s->latency);
  }
  ok = TRUE;

out:
  join_result_free (clean);
  if (passes.dirty != NULL)
    g_ptr_array_unref (passes.dirty);
  if (passes.front != NULL)
    g_array_unref (passes.front);
  g_free (passes.dirty_cpu);
  g_free (passes.clean_cpu);
  join_problem_free (problem);
  return ok ? g_steal_pointer (&result) : NULL;
}

static const FfmSearchVTable ffm_vtable = {
  .struct_size = sizeof (FfmSearchVTable),
  .params = ffm_params,
  .run = ffm_run,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_SEARCH, "ffm", "1.0",
                   "Fast and Fusiest Mapper: the optimal fused mapping (group, prune, join)",
                   search, &ffm_vtable)
