/* ffm-pmapping-tiles-leaf.c: a complete tile vector of the tile search
 * (ffm-pmapping-tiles.c) evaluated: the cost model's answer, the minimum
 * usage, the joinable parts, and the row it adds to its compatibility
 * group (charged to the memory budget); and what the search records on
 * the way (rejections per memory, running out of memory). */
#include "ffm-pmapping-private.h"

#include <math.h>
#include <string.h>

/* TUNING: a group's rows are Pareto-pruned whenever they grow past twice
 * their count after the last pruning plus this many (bounds memory; 4096
 * keeps the pruning cost small against the evaluations; tried 1024-65536). */
#define PRUNE_SLACK 4096

/* Records a rejection at @level with @need bits in a memory of @cap. */
void
tiles_reject_at (FfmTileSearch *en, guint level, double need, double cap)
{
  FfmTemplateResult *r = en->out;

  r->rejected[level]++;
  if (cap >= 0 && (r->min_excess[level] < 0 || need - cap < r->min_excess[level]))
    {
      r->min_excess[level] = need - cap;
      r->min_need[level] = need;
    }
}

/* The search needs @bytes more than the memory budget gives: it stops,
 * and the result says so (the generation then fails naming the Einsum,
 * the template and the budget). */
void
tiles_out_of_memory (FfmTileSearch *en, gsize bytes)
{
  en->stopped = TRUE;
  if (!en->out->out_of_memory)
    {
      en->out->out_of_memory = TRUE;
      en->out->memory_asked = bytes;
    }
}

static double
usage_score (const FfmTileSearch *en)
{
  double score = 1;

  for (guint d = 0; d < en->n_dims; d++)
    if (en->dim_min[d] > 0)
      score *= (double) en->cost->fanout_used[d] / (double) en->dim_count[d];
  return score;
}

static gboolean
usage_ok (const FfmTileSearch *en)
{
  for (guint d = 0; d < en->n_dims; d++)
    if (en->dim_min[d] > 0
        && (double) en->cost->fanout_used[d]
           < en->dim_min[d] * (double) en->dim_count[d])
      return FALSE;
  return TRUE;
}

/* The group of en->compat, made when new (its fixed part charged to the
 * budget); NULL when the budget cannot give that (the search stops). */
static FfmTemplateGroup *
find_group (FfmTileSearch *en, guint n_columns)
{
  FfmTemplateResult *r = en->out;
  FfmTemplateGroup *g = g_hash_table_lookup (r->index, &en->compat);
  gsize fixed = TEMPLATE_GROUP_FIXED_BYTES (n_columns);

  if (g != NULL)
    return g;
  if (!ffm_memory_budget_reserve (r->budget, fixed))
    {
      tiles_out_of_memory (en, fixed);
      return NULL;
    }
  r->charged += fixed;
  g = g_new0 (FfmTemplateGroup, 1);
  g->compat = en->compat;
  g->n_columns = n_columns;
  g->objectives = en->opt->objectives;
  g->columns = g_array_new (FALSE, FALSE, sizeof (FfmPmappingColumn));
  g_array_append_vals (g->columns, en->columns, n_columns);
  g_ptr_array_add (r->groups, g);
  g_hash_table_insert (r->index, &g->compat, g);
  return g;
}

/* Makes @buffer, of a group of en->out, hold @n_rows rows of @row_bytes;
 * FALSE when the budget cannot give that (the search stops). */
static gboolean
group_buffer_reserve (FfmTileSearch *en, FfmBudgetBuffer *buffer, gsize n_rows,
                      gsize row_bytes)
{
  gsize bytes = ffm_budget_bytes (n_rows, row_bytes);

  if (ffm_budget_buffer_reserve (buffer, en->budget, bytes))
    return TRUE;
  /* What it asked for first: the growth by half its capacity. */
  tiles_out_of_memory (en, MAX (bytes, buffer->capacity + buffer->capacity / 2)
                           - buffer->capacity);
  return FALSE;
}

static void check_terms (FfmTileSearch *en);

/* Evaluates the tile vector in en->tiles; TRUE when a group took it. */
gboolean
tiles_leaf (FfmTileSearch *en)
{
  FfmPmappingCost *cost = en->cost;
  FfmTemplateGroup *g;
  guint n_columns;

  ffm_pmapping_model_evaluate (en->m, en->tiles, cost);
  en->out->n_evaluated++;
  if (cost->status != FFM_COST_VALID)
    {
      if (cost->bad_level >= 0 && cost->status != FFM_COST_BAD_TILES)
        tiles_reject_at (en, cost->bad_level,
                         cost->status == FFM_COST_DOES_NOT_FIT
                         ? cost->level_occupancy[cost->bad_level] : -1, -1);
      return FALSE;
    }
  if (en->probing)
    {
      en->best_score = MAX (en->best_score, usage_score (en));
      /* a vector the groups would take (not one of too many fused loops) */
      if (en->probe_until_min && usage_ok (en)
          && ffm_describe_row (&en->info, en->m, en->tiles, cost, &en->compat,
                               en->columns, en->values) > 0)
        en->min_reached = TRUE;
      return FALSE;
    }
  if (!usage_ok (en))
    {
      en->usage_rejected++;
      if (!en->relaxed || usage_score (en) < en->target_score)
        return FALSE;
    }
  if (TILES_CHECKING (en) && en->terms != NULL)
    check_terms (en);
  n_columns = ffm_describe_row (&en->info, en->m, en->tiles, cost, &en->compat,
                                en->columns, en->values);
  if (n_columns == 0)
    return FALSE;
  en->out->n_valid++;
  if (en->n_jt > 0 && !tiles_joinable_leaf_ok (en))
    {
      /* A row the tables kept has a part of its list (check mode). */
      if (TILES_CHECKING (en) && en->joinable_in_tables)
        g_warning ("joinable parts: template %u: a leaf of the tables has a part "
                   "its tensor's list lacks", en->t->id);
      en->n_unjoinable++;
      return FALSE;
    }
  g = find_group (en, n_columns);
  if (g == NULL)
    return FALSE;
  /* a pmapping found: it bounds the rest of the template's tables */
  if (en->front != NULL)
    ffm_incumbent_front_add (en->front, cost->energy, cost->latency);
  else if (en->group_front != NULL)
    tiles_group_front_add_leaf (en);
  /* The buffers reserve their capacity from the budget as they grow (by
   * half at least: few atomic operations). */
  if (!group_buffer_reserve (en, &g->values, (gsize) g->n_rows + 1,
                             sizeof (double) * n_columns)
      || !group_buffer_reserve (en, &g->tiles, (gsize) g->n_rows + 1,
                                sizeof (guint64) * en->n_loops))
    return FALSE;
  memcpy (TEMPLATE_GROUP_VALUES (g) + (gsize) g->n_rows * n_columns, en->values,
          sizeof (double) * n_columns);
  if (en->n_loops > 0)      /* else the tiles' buffer stays empty (NULL) */
    memcpy (TEMPLATE_GROUP_TILES (g) + (gsize) g->n_rows * en->n_loops, en->tiles,
            sizeof (guint64) * en->n_loops);
  g->n_rows++;
  if (g->n_rows > 2 * g->pruned_rows + PRUNE_SLACK)
    {
      double cpu = ffm_phase_clock_seconds ();
      ffm_template_group_prune (g, en->n_loops);
      en->out->cpu_groups += ffm_phase_clock_seconds () - cpu;
    }
  return TRUE;
}

/* The term model's sums against the cost model's numbers (a debugging aid,
 * on with FFM_DEBUG=check-terms; tests turn it on). */
static void
check_terms (FfmTileSearch *en)
{
  const FfmTerms *t = en->terms;
  double sums[256], occ[64] = { 0 }, lat[64][2] = { { 0 } };
  gboolean has_lat[64] = { FALSE };

  g_return_if_fail (t->classes->len <= G_N_ELEMENTS (sums));
  ffm_terms_evaluate (t, en->m, en->bounds, en->tiles, sums);
  for (guint c = 0; c < t->classes->len; c++)
    {
      const FfmTermClass *k = &g_array_index (t->classes, FfmTermClass, c);
      double expect = 0;
      if (k->kind == FFM_TERM_ENERGY)
        expect = en->cost->dynamic_energy;
      else if (k->kind == FFM_TERM_OCCUPANCY)
        {
          occ[k->level] += sums[c];
          continue;
        }
      else
        {
          lat[k->level][k->nla] = sums[c];
          has_lat[k->level] = TRUE;
          continue;
        }
      if (fabs (sums[c] - expect) > 1e-9 * fabs (expect) + 1e-30)
        g_warning ("term check: energy %.17g, model %.17g", sums[c], expect);
    }
  for (guint l = 0; l < 64 && l < en->cost->n_levels; l++)
    {
      double model = en->cost->level_occupancy[l];
      double mine = MAX (lat[l][0], lat[l][1]);
      if (occ[l] != 0 && fabs (occ[l] - model) > 1e-9 * model)
        g_warning ("term check: occupancy of level %u %.17g, model %.17g", l,
                   occ[l], model);
      if (has_lat[l] && fabs (mine - en->cost->level_latency[l])
          > 1e-9 * en->cost->level_latency[l] + 1e-30)
        g_warning ("term check: latency of level %u %.17g, model %.17g", l,
                   mine, en->cost->level_latency[l]);
    }
}
