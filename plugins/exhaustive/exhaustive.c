/* exhaustive.c: the exhaustive verifier, a search strategy for small
 * problems that tries every fused mapping and keeps the best.
 *
 * It shares nothing with the FFM join but the definition of the space
 * (ffm-join.h) and the cost model, so that tests can hold FFM to it:
 *   1. every valid pmapping of every Einsum: each template of the pmapping
 *      generator (ffm-pmapping.h) with every perfect factorization of its
 *      loops (the innermost loop of a rank variable at tile 1), evaluated
 *      by the cost model, kept if valid and within the fused-loop limits
 *      and the fanouts' minimum usage (with the generator's "try best"
 *      rule per template) and admitted by the mapping constraints
 *      (ffm_bound_constraints_admit_pmapping()), in every order of its fused loops that
 *      ffm_join_pmapping_get_n_orders() allows; no Pareto pruning, no
 *      grouping;
 *   2. every combination, one pmapping per Einsum, walked depth first
 *      with ffm_join_chain_push() deciding which choices join;
 *   3. combinations sorted by the sum of their pmappings' objectives (for
 *      energy, ties by latency; for latency, ties by energy); each is
 *      built into a LoopTree (ffm_join_chain_build_mapping()) and judged
 *      by ffm_cost_evaluate_mapping(), best first, until no later one can
 *      beat (or, for the Pareto set, add to) what fits.
 * It refuses (FFM_SEARCH_ERROR_TOO_LARGE) problems with more than
 * max_pmappings pmappings for one Einsum or max_combinations combinations.
 *
 * Determinism: one thread, fixed enumeration orders, stable sorts. */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#define OWNER "strategy exhaustive"

/* TUNING: combinations within this relative distance of the best are all
 * judged by the cost model, in case the model's sum differs from the
 * pmappings' sum in the last bits (it never has in the tests). */
#define TIE_SLACK 1e-12

/* TUNING: partial combinations it may try per combination allowed, so
 * that problems where few choices join are refused as early as those with
 * many combinations (8-32 tried; 16 refuses in about the same time). */
#define ATTEMPTS_PER_COMBINATION 16
/* TUNING: valid combinations the counting walk stores too (2 MB at 4
 * Einsums): most problems exhaustive search takes have fewer (median 7,000
 * in the optimality test) and need no second walk. */
#define STORED_WHILE_COUNTING 65536

/* TUNING: the cancel flag is polled once per 4096 leaves or attempts: an
 * atomic read kept out of the profile, answered within milliseconds. */
#define CANCEL_POLL_MASK 4095

static const FfmParamSpec exhaustive_params[] = {
  { "max_pmappings", FFM_PARAM_INTEGER, "20000",
    "largest number of valid pmappings of one Einsum it accepts", 1, 1e9, NULL },
  { "max_combinations", FFM_PARAM_INTEGER, "2000000",
    "largest number of joinable combinations it accepts", 1, 1e9, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL }
};

/* One valid pmapping. */
typedef struct {
  FfmJoinPmapping *join;
  double energy;            /* J */
  double latency;           /* s */
} Choice;

typedef struct {
  const FfmSearchContext *ctx;
  FfmWorkload *w;
  FfmArch *a;
  guint n_einsums;
  GArray **choices;         /* [n_einsums] of Choice */
  gint64 max_pmappings;
  gint64 max_combinations;
  /* enumeration of combinations */
  FfmJoinChain *chain;
  guint *pick;              /* [n_einsums] */
  GArray *combos;           /* of guint32, n_einsums per combination */
  GArray *energy;           /* of double per combination */
  GArray *latency;
  guint64 max_stored;       /* combinations the memory budget holds */
  gboolean counting;        /* this walk counts the valid combinations */
  guint64 n_valid;          /* what it counted */
  gboolean too_large;       /* a limit was hit: stop walking */
  gboolean out_of_memory;   /* that limit was max_stored */
  gboolean cancelled;       /* the context asked to stop */
  guint64 attempts;         /* pushes tried while enumerating */
  guint64 reordered;        /* pmappings added in another loop order */
  guint64 evaluations;      /* cost-model evaluations of whole mappings */
  guint64 mismatches;       /* sums that differ from the model's totals */
  const FfmBoundConstraints *constraints; /* the mapping constraints, or NULL */
} Search;

static void
search_clear (Search *s)
{
  for (guint e = 0; s->choices != NULL && e < s->n_einsums; e++)
    {
      if (s->choices[e] == NULL)
        continue;
      for (guint i = 0; i < s->choices[e]->len; i++)
        ffm_join_pmapping_free (g_array_index (s->choices[e], Choice, i).join);
      g_array_free (s->choices[e], TRUE);
    }
  g_free (s->choices);
  ffm_join_chain_free (s->chain);
  g_free (s->pick);
  if (s->combos != NULL)
    g_array_free (s->combos, TRUE);
  if (s->energy != NULL)
    g_array_free (s->energy, TRUE);
  if (s->latency != NULL)
    g_array_free (s->latency, TRUE);
}

/* ---- Every valid pmapping of one template ---- */

typedef struct {
  Search *s;
  const FfmEinsumPmappings *pm;
  const FfmPmappingModel *m;
  const GPtrArray *nodes;
  FfmPmappingCost *cost;
  guint n_loops;
  gboolean innermost[FFM_COST_MAX_LOOPS];
  guint n_fused;            /* template loops above the deepest shared backing */
  guint64 tiles[FFM_COST_MAX_LOOPS];
  gboolean constrained;     /* a fanout dimension has a minimum usage */
  guint remainders;         /* FfmImperfect kinds that may have remainders
                               (none when the model cannot count them) */
  GArray *valid;            /* of Choice: valid vectors of this template */
  GArray *scores;           /* of double: their usage scores */
  GArray *usage_ok;         /* of gboolean */
  guint64 visited;
} Template;

static guint
template_fused_loops (const FfmWorkload *w, const FfmEinsum *e,
                      const GPtrArray *nodes)
{
  guint loops = 0, fused = 0;
  guint64 seen = 0;

  for (guint i = 0; i < nodes->len; i++)
    {
      const FfmMappingNode *n = g_ptr_array_index (nodes, i);
      if (n->kind == FFM_NODE_TEMPORAL || n->kind == FFM_NODE_SPATIAL)
        loops++;
      if (n->kind != FFM_NODE_STORAGE)
        continue;
      for (guint k = 0; n->tensors[k] != NULL; k++)
        {
          int t = ffm_workload_find_tensor (w, n->tensors[k]);
          int acc = t >= 0 ? ffm_einsum_find_access (e, t) : -1;
          if (acc < 0 || (seen & (G_GUINT64_CONSTANT (1) << acc)))
            continue;
          seen |= G_GUINT64_CONSTANT (1) << acc;
          if (ffm_workload_get_tensor (w, t)->classes & FFM_TENSOR_SHARED)
            fused = MAX (fused, loops);
        }
    }
  return fused;
}

/* The fused-loop limits of the mapspace. */
static gboolean
within_fused_limits (Template *t, const FfmEinsum *e)
{
  const FfmSearchContext *ctx = t->s->ctx;
  guint per_var[FFM_MAX_EINSUM_RANK_VARS] = { 0 };
  guint total = 0;
  int per_var_limit = FFM_SEARCH_CONTEXT_HAS (ctx, max_fused_loops_per_rank_var)
    ? ctx->max_fused_loops_per_rank_var : 1;

  for (guint j = 0; j < t->n_fused; j++)
    {
      const FfmLoopInfo *l = ffm_pmapping_model_get_loop (t->m, j);
      guint64 enclosing = l->enclosing >= 0 ? t->tiles[l->enclosing]
        : e->rank_var_bounds[l->rank_var];
      if (t->tiles[j] >= enclosing)     /* one iteration */
        continue;
      total++;
      per_var[l->rank_var]++;
      if (per_var_limit >= 0 && per_var[l->rank_var] > (guint) per_var_limit)
        return FALSE;
    }
  return ctx->max_fused_loops < 0 || total <= (guint) ctx->max_fused_loops;
}

static double
usage_score (Template *t, gboolean *ok)
{
  double score = 1;

  *ok = TRUE;
  for (guint d = 0; d < ffm_pmapping_model_get_n_fanout_dims (t->m); d++)
    {
      const FfmFanoutDimInfo *f = ffm_pmapping_model_get_fanout_dim (t->m, d);
      if (f->min_usage <= 0)
        continue;
      if ((double) t->cost->fanout_used[d] < f->min_usage * (double) f->count)
        *ok = FALSE;
      score *= (double) t->cost->fanout_used[d] / (double) f->count;
    }
  return score;
}

static gboolean
leaf (Template *t, const FfmEinsum *e, GError **error)
{
  g_autoptr (GPtrArray) path = NULL;
  Choice c = { 0 };
  gboolean ok;
  double score;
  guint j = 0;

  ffm_pmapping_model_evaluate (t->m, t->tiles, t->cost);
  if (t->cost->status != FFM_COST_VALID || !within_fused_limits (t, e))
    return TRUE;
  score = usage_score (t, &ok);
  path = ffm_mapping_node_list_new ();
  for (guint i = 0; i < t->nodes->len; i++)
    {
      FfmMappingNode *n = ffm_mapping_node_copy (g_ptr_array_index (t->nodes, i));
      if (n->kind == FFM_NODE_TEMPORAL || n->kind == FFM_NODE_SPATIAL)
        n->tile = t->tiles[j++];
      g_ptr_array_add (path, n);
    }
  /* The constrained mapspace: what the constraints admit (the templates
   * already satisfy the constraints on storage, dataflow and spatial
   * loops; this also checks tiles and fused loops). */
  if (t->s->constraints != NULL
      && !ffm_bound_constraints_admit_pmapping (t->s->constraints,
                                                ffm_einsum_pmappings_get_einsum (t->pm),
                                                (const FfmMappingNode *const *) path->pdata,
                                                path->len, NULL))
    return TRUE;
  c.join = ffm_join_pmapping_new (t->s->w, t->s->a,
                                  (const FfmMappingNode *const *) path->pdata,
                                  path->len, error);
  if (c.join == NULL)
    return FALSE;
  c.energy = t->cost->energy;
  c.latency = t->cost->latency;
  /* The pmapping in every order its blocks of fused loops allow. */
  for (guint o = 0, n = ffm_join_pmapping_get_n_orders (c.join); o < n; o++)
    {
      Choice v = c;
      if (o > 0)
        {
          v.join = ffm_join_pmapping_reorder (c.join, t->s->w, t->s->a, o);
          t->s->reordered++;
        }
      g_array_append_val (t->valid, v);
      g_array_append_val (t->scores, score);
      g_array_append_val (t->usage_ok, ok);
    }
  return TRUE;
}

/* Every tile vector of loops j.. (loop by loop; innermost loops of a
 * variable at 1): each loop's tile a divisor of its enclosing tile, or,
 * with remainder tiles (ctx->imperfect), for the first loop of more than
 * one iteration of a variable whose kind may have one, any tile of
 * ffm_pmapping_remainder_tile_sizes(): while every loop above has one
 * iteration, its enclosing tile is the variable's bound. */
static gboolean
enumerate_tiles (Template *t, const FfmEinsum *e, guint j, GError **error)
{
  const FfmLoopInfo *l;
  guint64 enclosing;

  if (j == t->n_loops)
    {
      if (++t->visited > (guint64) t->s->max_pmappings * 64)
        {
          t->s->too_large = TRUE;
          return TRUE;
        }
      if ((t->visited & CANCEL_POLL_MASK) == 0
          && ffm_search_context_is_cancelled (t->s->ctx))
        {
          t->s->too_large = t->s->cancelled = TRUE;
          return TRUE;
        }
      return leaf (t, e, error);
    }
  l = ffm_pmapping_model_get_loop (t->m, j);
  enclosing = l->enclosing >= 0 ? t->tiles[l->enclosing]
    : e->rank_var_bounds[l->rank_var];
  if (t->innermost[j])
    {
      t->tiles[j] = 1;
      return enumerate_tiles (t, e, j + 1, error);
    }
  if (t->remainders & (l->spatial ? FFM_IMPERFECT_SPATIAL : FFM_IMPERFECT_TEMPORAL)
      && enclosing == e->rank_var_bounds[l->rank_var])
    {
      g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
      ffm_pmapping_remainder_tile_sizes (enclosing, sizes);
      for (guint k = 0; k < sizes->len; k++)
        {
          t->tiles[j] = g_array_index (sizes, guint64, k);
          if (!enumerate_tiles (t, e, j + 1, error))
            return FALSE;
          if (t->s->too_large)
            return TRUE;
        }
      return TRUE;
    }
  for (guint64 d = 1; d <= enclosing; d++)
    {
      if (enclosing % d != 0)
        continue;
      t->tiles[j] = d;
      if (!enumerate_tiles (t, e, j + 1, error))
        return FALSE;
      if (t->s->too_large)
        return TRUE;
    }
  return TRUE;
}

/* Keeps the template's vectors that reach every minimum usage, or, when
 * none does, those with the highest usage (the generator's "try best"). */
static void
keep_template_choices (Template *t, GArray *out)
{
  gboolean any_ok = FALSE;
  double best = -1;

  for (guint i = 0; i < t->valid->len; i++)
    {
      any_ok |= g_array_index (t->usage_ok, gboolean, i);
      best = MAX (best, g_array_index (t->scores, double, i));
    }
  for (guint i = 0; i < t->valid->len; i++)
    {
      Choice *c = &g_array_index (t->valid, Choice, i);
      gboolean keep = !t->constrained || (any_ok
        ? g_array_index (t->usage_ok, gboolean, i)
        : g_array_index (t->scores, double, i) == best);
      if (keep)
        g_array_append_val (out, *c);
      else
        ffm_join_pmapping_free (c->join);
    }
}

static gboolean
cancelled_error (const Search *s, GError **error)
{
  g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_CANCELLED,
               "exhaustive search cancelled before it had judged any mapping "
               "(%" G_GUINT64_FORMAT " combinations tried)", s->attempts);
  return FALSE;
}

static gboolean
enumerate_einsum (Search *s, const FfmEinsumPmappings *pm, guint einsum,
                  GError **error)
{
  const FfmEinsum *e = ffm_workload_get_einsum (s->w, einsum);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Choice));

  s->choices[einsum] = out;
  for (guint id = 0; id < ffm_einsum_pmappings_get_n_templates (pm); id++)
    {
      Template t = { 0 };
      gboolean ok;

      t.s = s;
      t.pm = pm;
      t.m = ffm_einsum_pmappings_get_model (pm, id);
      t.nodes = ffm_einsum_pmappings_get_template (pm, id);
      t.n_loops = ffm_pmapping_model_get_n_loops (t.m);
      for (guint j = 0; j < t.n_loops; j++)
        {
          const FfmLoopInfo *l = ffm_pmapping_model_get_loop (t.m, j);
          t.innermost[j] = TRUE;
          for (guint k = j + 1; k < t.n_loops; k++)
            if (ffm_pmapping_model_get_loop (t.m, k)->rank_var == l->rank_var)
              t.innermost[j] = FALSE;
        }
      t.n_fused = template_fused_loops (s->w, e, t.nodes);
      if (FFM_SEARCH_CONTEXT_HAS (s->ctx, imperfect)
          && ffm_pmapping_model_counts_remainders (t.m))
        t.remainders = s->ctx->imperfect;
      for (guint d = 0; d < ffm_pmapping_model_get_n_fanout_dims (t.m); d++)
        t.constrained |= ffm_pmapping_model_get_fanout_dim (t.m, d)->min_usage > 0;
      t.cost = ffm_pmapping_cost_new (t.m);
      t.valid = g_array_new (FALSE, FALSE, sizeof (Choice));
      t.scores = g_array_new (FALSE, FALSE, sizeof (double));
      t.usage_ok = g_array_new (FALSE, FALSE, sizeof (gboolean));
      ok = enumerate_tiles (&t, e, 0, error);
      keep_template_choices (&t, out);
      ffm_pmapping_cost_free (t.cost);
      g_array_free (t.valid, TRUE);
      g_array_free (t.scores, TRUE);
      g_array_free (t.usage_ok, TRUE);
      if (!ok)
        return FALSE;
      if (s->cancelled)
        return cancelled_error (s, error);
      if (s->too_large || out->len > (guint64) s->max_pmappings)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_TOO_LARGE,
                       "exhaustive search: Einsum %s has more than %"
                       G_GINT64_FORMAT " valid pmappings (parameter "
                       "max_pmappings); use a smaller problem or the ffm "
                       "strategy", e->name, s->max_pmappings);
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- Every combination ---- */

/* The memory budget: --max-memory, or the default (docs/limits.md). */
static guint64
memory_limit (const FfmSearchContext *ctx)
{
  return ctx->max_memory > 0 ? ctx->max_memory : ffm_memory_budget_default_limit (NULL);
}

/* How many valid combinations may be stored (their picks, energy and
 * latency, then their order) within half the memory budget, and in arrays
 * of guint lengths: a user who raises max_combinations gets an error, not
 * an allocation the system refuses. */
static guint64
max_stored_combinations (const FfmSearchContext *ctx, guint n_einsums)
{
  guint64 per = (guint64) MAX (n_einsums, 1) * sizeof (guint) + 2 * sizeof (double)
                + sizeof (guint);

  /* and what arrays of guint lengths hold */
  return MIN (MAX (memory_limit (ctx) / (2 * per), 1), G_MAXUINT / MAX (n_einsums, 1));
}

/* Counts one more valid combination, unless it is one over the limits;
 * TRUE if the counting walk also stores it (the first ones only). */
static gboolean
count_combination (Search *s)
{
  if (s->n_valid >= (guint64) s->max_combinations)
    s->too_large = TRUE;
  else if (s->n_valid >= s->max_stored)
    s->too_large = s->out_of_memory = TRUE;
  else
    s->n_valid++;
  return !s->too_large && s->energy->len + 1 == s->n_valid
         && s->energy->len < STORED_WHILE_COUNTING;
}

static void
walk (Search *s, guint x, double energy, double latency)
{
  GArray *choices;

  if (s->too_large)
    return;
  if (x == s->n_einsums)
    {
      if (s->counting && !count_combination (s))
        return;
      g_array_append_vals (s->combos, s->pick, s->n_einsums);
      g_array_append_val (s->energy, energy);
      g_array_append_val (s->latency, latency);
      return;
    }
  choices = s->choices[x];
  for (guint i = 0; i < choices->len && !s->too_large; i++)
    {
      const Choice *c = &g_array_index (choices, Choice, i);
      if (++s->attempts > (guint64) s->max_combinations * ATTEMPTS_PER_COMBINATION)
        s->too_large = TRUE;
      if ((s->attempts & CANCEL_POLL_MASK) == 0
          && ffm_search_context_is_cancelled (s->ctx))
        s->too_large = s->cancelled = TRUE;
      if (ffm_join_chain_push (s->chain, c->join) != FFM_JOIN_OK)
        continue;
      s->pick[x] = i;
      /* Summed left to right from zero, as the cost model sums Einsums. */
      walk (s, x + 1, energy + c->energy, latency + c->latency);
      ffm_join_chain_pop (s->chain);
    }
}

/* ---- Judging combinations with the cost model ---- */

typedef struct {
  const Search *s;
  FfmObjective objective;
} SortData;

static double
combo_objective (const Search *s, FfmObjective objective, guint i)
{
  return ffm_objective_value (objective, g_array_index (s->energy, double, i),
                              g_array_index (s->latency, double, i));
}

/* What breaks ties of @objective: latency for energy, energy for latency
 * (none for EDP). */
static double
combo_tie (const Search *s, FfmObjective objective, guint i)
{
  return ffm_objective_tie (objective, g_array_index (s->energy, double, i),
                            g_array_index (s->latency, double, i));
}

static int
compare_combos (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const SortData *d = data;
  guint a = *(const guint *) pa, b = *(const guint *) pb;
  double va, vb;

  if (d->objective == FFM_OBJECTIVE_PARETO)
    {
      va = g_array_index (d->s->energy, double, a);
      vb = g_array_index (d->s->energy, double, b);
      if (va == vb)
        {
          va = g_array_index (d->s->latency, double, a);
          vb = g_array_index (d->s->latency, double, b);
        }
    }
  else
    {
      va = combo_objective (d->s, d->objective, a);
      vb = combo_objective (d->s, d->objective, b);
      if (va == vb)
        {
          va = combo_tie (d->s, d->objective, a);
          vb = combo_tie (d->s, d->objective, b);
        }
    }
  if (va != vb)
    return va < vb ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);
}

/* Builds and evaluates combination @i; NULL when it does not fit. */
static FfmCostReport *
judge (Search *s, guint i, FfmMapping **mapping, GError **error)
{
  g_autoptr (FfmJoinChain) chain = ffm_join_chain_new (s->w, s->a);
  g_autoptr (FfmMapping) m = NULL;
  FfmCostReport *report;
  const guint *pick = &g_array_index (s->combos, guint, (gsize) i * s->n_einsums);

  for (guint e = 0; e < s->n_einsums; e++)
    if (ffm_join_chain_push (chain, g_array_index (s->choices[e], Choice,
                                                   pick[e]).join) != FFM_JOIN_OK)
      {
        g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                     "exhaustive search: a combination stopped joining (a bug)");
        return NULL;
      }
  m = ffm_join_chain_build_mapping (chain);
  report = ffm_cost_evaluate_mapping (s->w, s->a, m, error);
  s->evaluations++;
  if (report == NULL)
    {
      g_prefix_error (error, "exhaustive search: the cost model refuses a "
                      "joined mapping (a bug in ffm-join): ");
      return NULL;
    }
  if (!ffm_cost_report_fits (report))
    {
      ffm_cost_report_free (report);
      return NULL;
    }
  if (ffm_cost_report_get_energy (report) != g_array_index (s->energy, double, i)
      || ffm_cost_report_get_latency (report) != g_array_index (s->latency, double, i))
    s->mismatches++;
  *mapping = g_steal_pointer (&m);
  return report;
}

static gboolean
best_single (Search *s, FfmObjective objective, const guint *order,
             guint n, FfmSearchResult *result, GError **error)
{
  FfmMapping *best_mapping = NULL;
  double best = INFINITY, best_tie = INFINITY, best_e = 0, best_l = 0;

  for (guint k = 0; k < n; k++)
    {
      guint i = order[k];
      FfmMapping *m = NULL;
      FfmCostReport *r;
      double v;
      GError *local = NULL;

      double row = combo_objective (s, objective, i);
      double tie;
      /* Sorted by the objective, then by what breaks its ties: nothing
       * later beats what fits. */
      if (row > best * (1 + TIE_SLACK) || (row >= best && s->mismatches == 0))
        break;
      r = judge (s, i, &m, &local);
      if (local != NULL)
        {
          g_propagate_error (error, local);
          ffm_mapping_free (best_mapping);
          return FALSE;
        }
      if (r == NULL)
        continue;
      v = objective == FFM_OBJECTIVE_ENERGY ? ffm_cost_report_get_energy (r)
        : objective == FFM_OBJECTIVE_LATENCY ? ffm_cost_report_get_latency (r)
        : ffm_cost_report_get_edp (r);
      tie = objective == FFM_OBJECTIVE_ENERGY ? ffm_cost_report_get_latency (r)
        : objective == FFM_OBJECTIVE_LATENCY ? ffm_cost_report_get_energy (r) : 0;
      if (v < best || (v == best && tie < best_tie))
        {
          best = v;
          best_tie = tie;
          best_e = ffm_cost_report_get_energy (r);
          best_l = ffm_cost_report_get_latency (r);
          ffm_mapping_free (best_mapping);
          best_mapping = m;
        }
      else
        ffm_mapping_free (m);
      ffm_cost_report_free (r);
    }
  if (best_mapping != NULL)
    ffm_search_result_add_solution (result, best_mapping, best_e, best_l);
  return TRUE;
}

typedef struct {
  double energy;
  double latency;
  FfmMapping *mapping;
} Point;

static gboolean
best_pareto (Search *s, const guint *order, guint n, FfmSearchResult *result,
             GError **error)
{
  g_autoptr (GArray) front = g_array_new (FALSE, FALSE, sizeof (Point));

  for (guint k = 0; k < n; k++)
    {
      guint i = order[k];
      double e = g_array_index (s->energy, double, i);
      double l = g_array_index (s->latency, double, i);
      gboolean covered = FALSE;
      FfmMapping *m = NULL;
      FfmCostReport *r;
      GError *local = NULL;
      Point p;

      for (guint f = 0; f < front->len && !covered; f++)
        {
          const Point *q = &g_array_index (front, Point, f);
          covered = s->mismatches == 0
            ? q->energy <= e && q->latency <= l
            : q->energy * (1 + TIE_SLACK) <= e && q->latency * (1 + TIE_SLACK) <= l;
        }
      if (covered)
        continue;
      r = judge (s, i, &m, &local);
      if (local != NULL)
        {
          g_propagate_error (error, local);
          for (guint f = 0; f < front->len; f++)
            ffm_mapping_free (g_array_index (front, Point, f).mapping);
          return FALSE;
        }
      if (r == NULL)
        continue;
      p.energy = ffm_cost_report_get_energy (r);
      p.latency = ffm_cost_report_get_latency (r);
      p.mapping = m;
      ffm_cost_report_free (r);
      covered = FALSE;
      for (guint f = 0; f < front->len && !covered; f++)
        {
          const Point *q = &g_array_index (front, Point, f);
          covered = q->energy <= p.energy && q->latency <= p.latency;
        }
      if (covered)
        {
          ffm_mapping_free (m);
          continue;
        }
      for (guint f = 0; f < front->len; )
        {
          Point *q = &g_array_index (front, Point, f);
          if (p.energy <= q->energy && p.latency <= q->latency)
            {
              ffm_mapping_free (q->mapping);
              g_array_remove_index (front, f);
            }
          else
            f++;
        }
      g_array_append_val (front, p);
    }
  /* Energy ascending: the order the points were found in is kept for ties. */
  for (guint f = 0; f < front->len; f++)
    {
      Point *q = &g_array_index (front, Point, f);
      ffm_search_result_add_solution (result, q->mapping, q->energy, q->latency);
    }
  return TRUE;
}

/* ---- The strategy ---- */

static FfmPmappingSet *
generate_templates (const FfmSearchContext *ctx, GError **error)
{
  FfmPmappingOptions options;
  FfmProblem *problem = ctx->problem;

  /* ffm's space (the templates of the space with remainder tiles, when
   * the context asks for them) */
  ffm_pmapping_options_init_from_context (&options, ctx);
  return ffm_pmappings_generate (ffm_problem_get_workload (problem),
                                 ffm_problem_get_arch (problem), &options, error);
}

static FfmSearchResult *
exhaustive_run (const FfmSearchContext *ctx, const FfmParamValues *values,
                GError **error)
{
  g_autoptr (FfmPmappingSet) set = NULL;
  g_autoptr (FfmSearchResult) result = NULL;
  g_autofree guint *order = NULL;
  Search s = { 0 };
  gint64 start = g_get_monotonic_time ();
  guint n;
  gboolean ok;
  double pmappings = 0;
  SortData sd;

  s.ctx = ctx;
  s.w = ffm_problem_get_workload (ctx->problem);
  s.a = ffm_problem_get_arch (ctx->problem);
  s.n_einsums = ffm_workload_get_n_einsums (s.w);
  if (!ffm_param_values_validate (values, exhaustive_params, OWNER, error)
      || !ffm_param_values_get_integer (values, exhaustive_params, OWNER,
                                        "max_pmappings", &s.max_pmappings, error)
      || !ffm_param_values_get_integer (values, exhaustive_params, OWNER,
                                        "max_combinations", &s.max_combinations,
                                        error))
    return NULL;
  set = generate_templates (ctx, error);
  if (set == NULL)
    return NULL;
  s.constraints = ffm_pmapping_set_get_constraints (set);
  s.choices = g_new0 (GArray *, MAX (s.n_einsums, 1));
  if (ctx->progress != NULL)
    ctx->progress (-1, "enumerating pmappings", ctx->progress_data);
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      if (!enumerate_einsum (&s, pm, ffm_einsum_pmappings_get_einsum (pm), error))
        {
          search_clear (&s);
          return NULL;
        }
      pmappings += s.choices[ffm_einsum_pmappings_get_einsum (pm)]->len;
    }

  if (ctx->progress != NULL)
    ctx->progress (-1, "enumerating combinations", ctx->progress_data);
  s.chain = ffm_join_chain_new (s.w, s.a);
  s.max_stored = max_stored_combinations (ctx, s.n_einsums);
  s.pick = g_new0 (guint, MAX (s.n_einsums, 1));
  /* Counted first, storing only the first STORED_WHILE_COUNTING; more are
   * stored by a second walk, in arrays of the size counted. A problem over
   * the limits is refused without storing more than those, and large
   * arrays never grow (growing them by doubling, their copies and page
   * faults were most of the search's time on small problems). */
  s.combos = g_array_new (FALSE, FALSE, sizeof (guint));
  s.energy = g_array_new (FALSE, FALSE, sizeof (double));
  s.latency = g_array_new (FALSE, FALSE, sizeof (double));
  s.counting = TRUE;
  walk (&s, 0, 0, 0);
  if (!s.too_large && s.energy->len < s.n_valid)
    {
      g_array_free (s.combos, TRUE);
      g_array_free (s.energy, TRUE);
      g_array_free (s.latency, TRUE);
      s.combos = g_array_sized_new (FALSE, FALSE, sizeof (guint), (guint) (s.n_valid * s.n_einsums));
      s.energy = g_array_sized_new (FALSE, FALSE, sizeof (double), (guint) s.n_valid);
      s.latency = g_array_sized_new (FALSE, FALSE, sizeof (double), (guint) s.n_valid);
      s.counting = FALSE;
      s.attempts = 0;
      walk (&s, 0, 0, 0);
      g_assert (s.too_large || s.energy->len == s.n_valid);
    }
  if (s.cancelled)
    {
      cancelled_error (&s, error);
      search_clear (&s);
      return NULL;
    }
  if (s.out_of_memory)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_TOO_LARGE,
                   "exhaustive search: more than %" G_GUINT64_FORMAT " valid combinations "
                   "of pmappings, more than the memory budget holds (--max-memory, %"
                   G_GUINT64_FORMAT " bytes); use a smaller problem or the ffm strategy",
                   s.max_stored, memory_limit (ctx));
      search_clear (&s);
      return NULL;
    }
  if (s.too_large)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_TOO_LARGE,
                   "exhaustive search: more than %" G_GINT64_FORMAT
                   " combinations of pmappings to try (parameter "
                   "max_combinations); use a smaller problem or the ffm "
                   "strategy", s.max_combinations);
      search_clear (&s);
      return NULL;
    }

  n = s.energy->len;
  order = g_new (guint, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    order[i] = i;
  sd.s = &s;
  sd.objective = ctx->objective;
  g_qsort_with_data (order, (gint) n, sizeof (guint), compare_combos, &sd);
  if (ctx->progress != NULL)
    ctx->progress (-1, "judging combinations", ctx->progress_data);
  result = ffm_search_result_new ();
  ok = ctx->objective == FFM_OBJECTIVE_PARETO
    ? best_pareto (&s, order, n, result, error)
    : best_single (&s, ctx->objective, order, n, result, error);
  if (ok && ffm_search_result_get_n_solutions (result) == 0)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                   "exhaustive search: none of the %u combinations of "
                   "pmappings of %s fits architecture %s", n,
                   ffm_workload_get_name (s.w), ffm_arch_get_name (s.a));
      ok = FALSE;
    }
  if (ok)
    {
      const FfmSolution *best = ffm_search_result_get_solution (result, 0);
      ffm_search_result_set_stat (result, "pmappings_generated", pmappings);
      ffm_search_result_set_stat (result, "templates_cut",
                                  (double) ffm_pmapping_set_get_n_templates_cut (set));
      ffm_search_result_set_stat (result, "combinations", n);
      ffm_search_result_set_stat (result, "pmappings_reordered", (double) s.reordered);
      ffm_search_result_set_stat (result, "mappings_evaluated", (double) s.evaluations);
      ffm_search_result_set_stat (result, "model_mismatches", (double) s.mismatches);
      ffm_search_result_set_stat (result, "seconds",
                                  (double) (g_get_monotonic_time () - start)
                                  / G_USEC_PER_SEC);
      ffm_search_result_add_trace_point (result, s.evaluations,
                                         (double) (g_get_monotonic_time () - start)
                                         / G_USEC_PER_SEC,
                                         best->energy * best->latency);
    }
  search_clear (&s);
  return ok ? g_steal_pointer (&result) : NULL;
}

static const FfmSearchVTable exhaustive_vtable = {
  .struct_size = sizeof (FfmSearchVTable),
  .params = exhaustive_params,
  .run = exhaustive_run,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_SEARCH, "exhaustive", "1.0",
                   "Tries every fused mapping of a small problem (verifies ffm)",
                   search, &exhaustive_vtable)
