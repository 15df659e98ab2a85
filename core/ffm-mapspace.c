/* ffm-mapspace.c: the mapspace's groups, read from the pmapping set once,
 * its accessors, and states as LoopTrees (ffm-mapspace.h).
 *
 * A generator group becomes one or more mapspace groups: its rows split
 * by compute unit (one capacity applies to all rows of a group) and by the
 * depths at which they keep copies of shared tensors (ffm-join.h's copy
 * rule depends on them), then once per order of the group's fused loops.
 * The FFM join makes the same split (its "units"), so both walk the same
 * space. Rows are read once into one flat pool (ffm-mapspace-private.h). */
#include "ffm-mapspace-private.h"

#include <math.h>
#include <string.h>

/* ---- Reading the generator's groups ---- */

static int
tracked_index (const FfmMapspace *ms, int level)
{
  for (guint m = 0; m < ms->n_mem; m++)
    if ((int) ms->mem_level[m] == level)
      return (int) m;
  return -1;
}

/* The plain rank of every access walked by each fused loop (in @g's
 * order), and each shared tensor's ranks and plainness. */
static void
group_ranks (const FfmMapspace *ms, const FfmEinsum *e, MsGroup *g)
{
  for (guint d = 0; d < MS_MAX_LOOPS; d++)
    for (guint acc = 0; acc < FFM_MAX_EINSUM_TENSORS; acc++)
      g->ranks[d][acc] = d < g->n_fused && acc < e->n_accesses
        ? ffm_join_plain_rank (ms->w, e, acc, g->compat.loops[d].rank_var) : -1;
  for (guint t = 0; t < g->n_tensors; t++)
    {
      MsTensor *mt = &g->tensors[t];
      mt->plain = TRUE;
      memset (mt->ranks, 0, sizeof mt->ranks);
      for (guint d = 0; d < mt->depth; d++)
        {
          mt->ranks[d] = g->ranks[d][mt->access];
          if (mt->ranks[d] < 0)
            mt->plain = FALSE;
        }
    }
}

static void
group_init (const FfmMapspace *ms, const FfmEinsum *e,
            const FfmEinsumPmappings *pm, MsGroup *g, guint pm_group,
            const FfmPmappingGroup *pg, const guint32 *copy,
            guint compute_level, guint template_id)
{
  const FfmPmappingModel *model = ffm_einsum_pmappings_get_model (pm, template_id);

  memset (g, 0, sizeof *g);
  g->compat = pg->compat;
  g->pm_group = pm_group;
  g->compute_level = compute_level;
  g->n_fused = pg->compat.n_loops;
  g->n_tensors = pg->compat.n_tensors;
  for (guint d = 0; d < g->n_fused; d++)
    {
      const FfmCompatLoop *c = &pg->compat.loops[d];
      g->loops[d].count = c->count;
      g->loops[d].tile = c->tile;
      g->loops[d].spatial = c->spatial ? 1 : 0;
      g->loops[d].fanout_level = c->fanout_level;
      g->loops[d].fanout_dim = c->fanout_dim;
    }
  for (guint t = 0; t < g->n_tensors; t++)
    {
      const FfmCompatTensor *ct = &pg->compat.tensors[t];
      MsTensor *mt = &g->tensors[t];
      gboolean unbounded = ffm_join_memory_is_unbounded (ms->a, ct->backing_level);

      mt->tensor = ct->tensor;
      mt->access = ct->access;
      mt->level = (gint32) ct->backing_level;
      mt->persistent = ct->persistent ? 1 : 0;
      mt->depth = ct->n_loops;
      mt->bits = unbounded ? 0 : ct->backing_bits;
      mt->mem = unbounded ? -1 : tracked_index (ms, (int) ct->backing_level);
      mt->copy = copy[t];
    }
  /* The compatibility lists tensors in storage-node order, which differs
   * between groups; the cost finds a tensor of an Einsum at one index in
   * all its groups: access order. */
  for (guint i = 1; i < g->n_tensors; i++)
    for (guint j = i; j > 0 && g->tensors[j - 1].access > g->tensors[j].access; j--)
      {
        MsTensor tmp = g->tensors[j];
        g->tensors[j] = g->tensors[j - 1];
        g->tensors[j - 1] = tmp;
      }
  for (guint m = 0; m < ms->n_mem; m++)
    g->size[m] = ffm_pmapping_model_get_level_size (model, ms->mem_level[m]);
  group_ranks (ms, e, g);
}

/* The same group with its fused loops in order @order of @jp (one of its
 * rows): a block never crosses a tensor's backing node, so each tensor
 * keeps its loops, reordered. */
static void
group_permuted (const FfmMapspace *ms, const FfmEinsum *e, const MsGroup *base,
                const FfmJoinPmapping *jp, guint order, MsGroup *g)
{
  guint perm[FFM_COMPAT_MAX_LOOPS];

  *g = *base;
  g->order = order;
  g->pm_rows = NULL;
  ffm_join_pmapping_get_order (jp, order, perm);
  for (guint d = 0; d < g->n_fused; d++)
    {
      g->compat.loops[d] = base->compat.loops[perm[d]];
      g->loops[d] = base->loops[perm[d]];
    }
  for (guint t = 0; t < g->compat.n_tensors; t++)
    for (guint d = 0; d < g->compat.tensors[t].n_loops; d++)
      g->compat.tensors[t].ranks[d] = base->compat.tensors[t].ranks[perm[d]];
  group_ranks (ms, e, g);
}

/* What the join rules need of one row: its copies and compute unit. */
static gboolean
read_row (const FfmMapspace *ms, const FfmEinsumPmappings *pm,
          const FfmPmappingGroup *pg, guint row, guint32 *copy,
          guint *compute_level, FfmJoinPmapping **out, GError **error)
{
  g_autoptr (GPtrArray) nodes = ffm_einsum_pmappings_rebuild (pm, &pg->refs[row], FALSE);
  g_autoptr (FfmJoinPmapping) jp = NULL;

  jp = ffm_join_pmapping_new (ms->w, ms->a, (const FfmMappingNode *const *) nodes->pdata,
                              nodes->len, error);
  if (jp == NULL)
    return FALSE;
  if (ffm_join_pmapping_get_n_fused_loops (jp) != pg->compat.n_loops)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "mapspace: a pmapping of a group with %u fused loops "
                   "rebuilds with %u (a bug)", pg->compat.n_loops,
                   ffm_join_pmapping_get_n_fused_loops (jp));
      return FALSE;
    }
  for (guint t = 0; t < pg->compat.n_tensors; t++)
    {
      guint c = ffm_join_pmapping_get_copy_depth (jp, pg->compat.tensors[t].tensor);
      copy[t] = c < pg->compat.n_loops ? c : MS_NONE;
    }
  *compute_level = ffm_pmapping_model_get_compute_level (
    ffm_einsum_pmappings_get_model (pm, pg->refs[row].template_id));
  *out = g_steal_pointer (&jp);
  return TRUE;
}

typedef struct {
  MsGroup g;
  GArray *rows;             /* of guint32 */
} Building;

static void
building_clear (gpointer data)
{
  Building *b = data;

  if (b->rows != NULL)
    g_array_free (b->rows, TRUE);
}

/* Every group of Einsum @x, appended to @out (of Building). */
static gboolean
read_einsum (FfmMapspace *ms, guint x, GArray *out, GError **error)
{
  const FfmEinsumPmappings *pm = ffm_pmapping_set_lookup_einsum (ms->set, x);
  const FfmEinsum *e = ffm_workload_get_einsum (ms->w, x);

  for (guint gi = 0; gi < ffm_einsum_pmappings_get_n_groups (pm); gi++)
    {
      const FfmPmappingGroup *pg = ffm_einsum_pmappings_get_group (pm, gi);
      g_autoptr (GPtrArray) firsts = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_join_pmapping_free);
      guint first = out->len, n_base;

      if (pg->compat.n_loops > MS_MAX_LOOPS)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_TOO_LARGE,
                       "mapspace: Einsum %s has pmappings with %u fused loops "
                       "(at most %d)", e->name, pg->compat.n_loops, MS_MAX_LOOPS);
          return FALSE;
        }
      for (guint r = 0; r < pg->n_rows; r++)
        {
          guint32 copy[FFM_MAX_EINSUM_TENSORS] = { 0 };
          guint compute_level;
          FfmJoinPmapping *jp = NULL;
          Building *b = NULL;
          guint32 row = r;

          if (!read_row (ms, pm, pg, r, copy, &compute_level, &jp, error))
            return FALSE;
          for (guint i = first; i < out->len && b == NULL; i++)
            {
              Building *c = &g_array_index (out, Building, i);
              gboolean same = c->g.compute_level == compute_level;
              for (guint t = 0; t < pg->compat.n_tensors && same; t++)
                same = c->g.tensors[t].copy == copy[t];
              if (same)
                b = c;
            }
          if (b == NULL)
            {
              Building nb;
              group_init (ms, e, pm, &nb.g, gi, pg, copy, compute_level,
                          pg->refs[r].template_id);
              nb.rows = g_array_new (FALSE, FALSE, sizeof (guint32));
              g_array_append_val (out, nb);
              g_ptr_array_add (firsts, g_steal_pointer (&jp));
              b = &g_array_index (out, Building, out->len - 1);
            }
          ffm_join_pmapping_free (jp);
          g_array_append_val (b->rows, row);
        }
      /* Every other order of the loops of each group: a group of its own. */
      n_base = out->len;
      for (guint i = first; i < n_base; i++)
        {
          const FfmJoinPmapping *jp = g_ptr_array_index (firsts, i - first);
          for (guint o = 1; o < ffm_join_pmapping_get_n_orders (jp); o++)
            {
              Building nb;
              const Building *base = &g_array_index (out, Building, i);
              group_permuted (ms, e, &base->g, jp, o, &nb.g);
              nb.rows = g_array_copy (base->rows);
              g_array_append_val (out, nb);
            }
        }
    }
  return TRUE;
}

/* One row of group @g (rows of @pg) into @out: see
 * ffm-mapspace-private.h. FALSE if a reservation column is smaller than
 * the backing tiles it must hold (a bug). */
static gboolean
fill_row (const FfmMapspace *ms, const MsGroup *g, const FfmPmappingGroup *pg,
          guint row, double *out)
{
  const double *v = pg->values + (gsize) row * pg->n_columns;
  int je = ffm_pmapping_group_find_column (pg, FFM_PMAPPING_COLUMN_ENERGY, 0, 0);
  int jl = ffm_pmapping_group_find_column (pg, FFM_PMAPPING_COLUMN_LATENCY, 0, 0);
  guint F = g->n_fused;

  out[0] = je >= 0 ? v[je] : NAN;
  out[1] = jl >= 0 ? v[jl] : NAN;
  for (guint m = 0; m < ms->n_mem; m++)
    {
      double *P = out + 2 + m * (F + 3), last = 0;
      for (int d = -1; d <= (int) F; d++)
        {
          int j = ffm_pmapping_group_find_column (pg, FFM_PMAPPING_COLUMN_RESERVATION, ms->mem_level[m], d);
          if (j >= 0)
            last = v[j];
          P[d + 1] = last;
        }
      P[F + 2] = P[F + 1];
      for (guint t = 0; t < g->n_tensors; t++)
        {
          const MsTensor *mt = &g->tensors[t];
          if (mt->mem != (int) m)
            continue;
          for (guint i = mt->persistent ? 0 : mt->depth + 1; i <= F + 1; i++)
            {
              P[i] -= mt->bits;
              if (P[i] < 0)
                return FALSE;
            }
        }
    }
  return TRUE;
}

static gboolean
read_groups (FfmMapspace *ms, GError **error)
{
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (Building));
  gsize pool_size = 0;

  g_array_set_clear_func (all, building_clear);
  ms->group_first = g_new0 (guint32, ms->n_einsums + 1);
  for (guint x = 0; x < ms->n_einsums; x++)
    {
      ms->group_first[x] = all->len;
      if (!read_einsum (ms, x, all, error))
        return FALSE;
      if (all->len == ms->group_first[x])
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                       "mapspace: Einsum %s has no pmapping",
                       ffm_workload_get_einsum (ms->w, x)->name);
          return FALSE;
        }
    }
  ms->group_first[ms->n_einsums] = all->len;

  ms->groups = g_new0 (MsGroup, MAX (all->len, 1));
  for (guint i = 0; i < all->len; i++)
    {
      Building *b = &g_array_index (all, Building, i);
      MsGroup *g = &ms->groups[i];
      *g = b->g;
      g->n_rows = b->rows->len;
      g->width = 2 + ms->n_mem * (g->n_fused + 3);
      g->pm_rows = (guint32 *) g_array_free (b->rows, FALSE);
      b->rows = NULL;
      g->values_offset = pool_size;
      pool_size += (gsize) g->n_rows * g->width;
    }
  ms->pool = g_new (double, MAX (pool_size, 1));
  for (guint x = 0; x < ms->n_einsums; x++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_lookup_einsum (ms->set, x);
      for (guint i = ms->group_first[x]; i < ms->group_first[x + 1]; i++)
        {
          MsGroup *g = &ms->groups[i];
          const FfmPmappingGroup *pg = ffm_einsum_pmappings_get_group (pm, g->pm_group);
          g->values = ms->pool + g->values_offset;
          for (guint r = 0; r < g->n_rows; r++)
            if (!fill_row (ms, g, pg, g->pm_rows[r],
                           ms->pool + g->values_offset + (gsize) r * g->width))
              {
                g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                             "mapspace: Einsum %s: a pmapping reserves less "
                             "than its shared tiles need (a bug)",
                             ffm_workload_get_einsum (ms->w, x)->name);
                return FALSE;
              }
        }
    }
  return TRUE;
}

/* Query weights and the time of one pmapping evaluation (the paper's
 * runtime model, §7.3). */
static void
read_accounting (FfmMapspace *ms)
{
  double seconds = 0, evaluated = 0, rows = 0;

  ms->query_weight = g_new0 (double, MAX (ms->n_einsums, 1));
  ms->state_query_weight = 0;
  for (guint x = 0; x < ms->n_einsums; x++)
    {
      const FfmPmappingStats *st =
        ffm_einsum_pmappings_get_stats (ffm_pmapping_set_lookup_einsum (ms->set, x));
      const FfmPmappingStats *src = st;
      if (st->reused_from >= 0)
        src = ffm_einsum_pmappings_get_stats (
          ffm_pmapping_set_lookup_einsum (ms->set, (guint) st->reused_from));
      else
        {
          seconds += st->seconds;
          evaluated += (double) st->n_evaluated;
        }
      rows += (double) src->n_rows;
      ms->query_weight[x] = src->n_rows > 0
        ? MAX (1.0, (double) src->n_evaluated / (double) src->n_rows) : 1.0;
      ms->state_query_weight += ms->query_weight[x];
    }
  ms->seconds_per_pmapping = evaluated > 0 ? seconds / evaluated
    : ffm_pmapping_set_get_seconds (ms->set) / MAX (rows, 1);
}

FfmMapspace *
ffm_mapspace_new (FfmPmappingSet *set, GError **error)
{
  g_autoptr (FfmMapspace) ms = NULL;
  const guint *tracked;
  guint n_tracked;
  gint64 start = g_get_monotonic_time ();

  g_return_val_if_fail (set != NULL, NULL);
  ms = g_new0 (FfmMapspace, 1);
  g_ref_count_init (&ms->ref_count);
  ms->set = set;
  ms->w = ffm_pmapping_set_get_workload (set);
  ms->a = ffm_pmapping_set_get_arch (set);
  ms->n_einsums = ffm_workload_get_n_einsums (ms->w);
  if (ffm_pmapping_set_get_n_einsums (set) != ms->n_einsums || ms->n_einsums == 0)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "mapspace: the pmapping set holds %u of the %u Einsums of %s "
                   "(generate them all)", ffm_pmapping_set_get_n_einsums (set),
                   ms->n_einsums, ffm_workload_get_name (ms->w));
      return NULL;
    }
  tracked = ffm_pmapping_set_get_tracked_levels (set, &n_tracked);
  if (n_tracked > MS_MAX_MEM)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_TOO_LARGE,
                   "mapspace: %u memories to track in %s (at most %d)",
                   n_tracked, ffm_arch_get_name (ms->a), MS_MAX_MEM);
      return NULL;
    }
  ms->n_mem = n_tracked;
  for (guint m = 0; m < n_tracked; m++)     /* tracked is NULL when empty */
    ms->mem_level[m] = tracked[m];
  if (!read_groups (ms, error))
    return NULL;
  read_accounting (ms);
  if (!ms_build_cost_lists (ms, error) || !ms_build_graph (ms, error))
    return NULL;
  ms->build_seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  return g_steal_pointer (&ms);
}

FfmMapspace *
ffm_mapspace_new_for_context (const FfmSearchContext *ctx, GError **error)
{
  FfmPmappingOptions options;
  FfmPmappingSet *set;

  g_return_val_if_fail (ctx != NULL && ctx->problem != NULL, NULL);
  if (FFM_SEARCH_CONTEXT_HAS (ctx, mapspace) && ctx->mapspace != NULL)
    return ffm_mapspace_ref (ctx->mapspace);
  ffm_pmapping_options_init_from_context (&options, ctx);   /* ffm's space */
  if (ctx->progress != NULL)
    ctx->progress (-1, "generating pmappings", ctx->progress_data);
  set = ffm_pmappings_generate (ffm_problem_get_workload (ctx->problem),
                                ffm_problem_get_arch (ctx->problem), &options, error);
  if (set == NULL)
    return NULL;
  if (ctx->progress != NULL)
    ctx->progress (-1, "building the mapspace", ctx->progress_data);
  return ffm_mapspace_new (set, error);
}

FfmMapspace *
ffm_mapspace_ref (FfmMapspace *ms)
{
  g_return_val_if_fail (ms != NULL, NULL);
  g_ref_count_inc (&ms->ref_count);
  return ms;
}

void
ffm_mapspace_unref (FfmMapspace *ms)
{
  if (ms == NULL || !g_ref_count_dec (&ms->ref_count))
    return;
  if (ms->groups != NULL)
    for (guint i = 0; i < ms->group_first[ms->n_einsums]; i++)
      g_free (ms->groups[i].pm_rows);
  g_free (ms->groups);
  g_free (ms->group_first);
  g_free (ms->pool);
  ms_lists_clear (&ms->spine);
  ms_lists_clear (&ms->first_use);
  ms_lists_clear (&ms->last_use);
  ms_lists_clear (&ms->spanning);
  g_free (ms->node_first);
  g_free (ms->edge_first);
  g_free (ms->edge_group);
  g_free (ms->edge_target);
  g_free (ms->edge_cum);
  g_free (ms->log_completions);
  g_free (ms->query_weight);
  ffm_pmapping_set_free (ms->set);
  g_free (ms);
}

/* ---- Accessors ---- */

const FfmPmappingSet *
ffm_mapspace_get_pmapping_set (const FfmMapspace *ms)
{
  return ms->set;
}

FfmWorkload *
ffm_mapspace_get_workload (const FfmMapspace *ms)
{
  return ms->w;
}

FfmArch *
ffm_mapspace_get_arch (const FfmMapspace *ms)
{
  return ms->a;
}

guint
ffm_mapspace_get_n_einsums (const FfmMapspace *ms)
{
  return ms->n_einsums;
}

guint
ffm_mapspace_get_n_groups (const FfmMapspace *ms, guint einsum)
{
  g_return_val_if_fail (einsum < ms->n_einsums, 0);
  return ms->group_first[einsum + 1] - ms->group_first[einsum];
}

static const MsGroup *
checked_group (const FfmMapspace *ms, guint einsum, guint group)
{
  g_return_val_if_fail (einsum < ms->n_einsums, NULL);
  g_return_val_if_fail (group < ffm_mapspace_get_n_groups (ms, einsum), NULL);
  return ms_group (ms, einsum, group);
}

guint
ffm_mapspace_group_get_n_rows (const FfmMapspace *ms, guint einsum, guint group)
{
  const MsGroup *g = checked_group (ms, einsum, group);

  return g != NULL ? g->n_rows : 0;
}

const FfmCompatibility *
ffm_mapspace_group_get_compatibility (const FfmMapspace *ms, guint einsum,
                                      guint group)
{
  const MsGroup *g = checked_group (ms, einsum, group);

  return g != NULL ? &g->compat : NULL;
}

void
ffm_mapspace_group_get_source (const FfmMapspace *ms, guint einsum, guint group,
                               guint *pmapping_group, guint *order)
{
  const MsGroup *g = checked_group (ms, einsum, group);

  g_return_if_fail (g != NULL);
  if (pmapping_group != NULL)
    *pmapping_group = g->pm_group;
  if (order != NULL)
    *order = g->order;
}

guint
ffm_mapspace_group_get_pmapping_row (const FfmMapspace *ms, guint einsum,
                                     guint group, guint row)
{
  const MsGroup *g = checked_group (ms, einsum, group);

  g_return_val_if_fail (g != NULL && row < g->n_rows, 0);
  return g->pm_rows[row];
}

void
ffm_mapspace_group_get_objectives (const FfmMapspace *ms, guint einsum,
                                   guint group, guint row, double *energy,
                                   double *latency)
{
  const MsGroup *g = checked_group (ms, einsum, group);

  g_return_if_fail (g != NULL && row < g->n_rows);
  if (energy != NULL)
    *energy = g->values[(gsize) row * g->width];
  if (latency != NULL)
    *latency = g->values[(gsize) row * g->width + 1];
}

gboolean
ffm_mapspace_group_is_usable (const FfmMapspace *ms, guint einsum, guint group)
{
  const MsGroup *g = checked_group (ms, einsum, group);

  return g != NULL && g->usable;
}

double
ffm_mapspace_get_n_combinations (const FfmMapspace *ms)
{
  return exp (ms->log_completions[0]);
}

const guint *
ffm_mapspace_get_tracked_levels (const FfmMapspace *ms, guint *n_levels)
{
  if (n_levels != NULL)
    *n_levels = ms->n_mem;
  return ms->mem_level;
}

double
ffm_mapspace_get_query_weight (const FfmMapspace *ms, guint einsum)
{
  g_return_val_if_fail (einsum < ms->n_einsums, 0);
  return ms->query_weight[einsum];
}

double
ffm_mapspace_get_state_query_weight (const FfmMapspace *ms)
{
  return ms->state_query_weight;
}

double
ffm_mapspace_get_seconds_per_pmapping (const FfmMapspace *ms)
{
  return ms->seconds_per_pmapping;
}

double
ffm_mapspace_get_build_seconds (const FfmMapspace *ms)
{
  return ms->build_seconds;
}

/* ---- States ---- */

FfmMapspaceChoice *
ffm_mapspace_state_new (const FfmMapspace *ms)
{
  return g_new0 (FfmMapspaceChoice, ms->n_einsums);
}

void
ffm_mapspace_state_copy (const FfmMapspace *ms, FfmMapspaceChoice *dest,
                         const FfmMapspaceChoice *src)
{
  memcpy (dest, src, sizeof (FfmMapspaceChoice) * ms->n_einsums);
}

FfmMapping *
ffm_mapspace_build_mapping (const FfmMapspace *ms, const FfmMapspaceChoice *state,
                            GError **error)
{
  g_autoptr (GPtrArray) joins = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_join_pmapping_free);
  guint bad;

  if (!ffm_mapspace_check (ms, state, &bad))
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "mapspace: the choice of Einsum %s is not compatible with "
                   "the choices before it", ffm_workload_get_einsum (ms->w, bad)->name);
      return NULL;
    }
  for (guint x = 0; x < ms->n_einsums; x++)
    {
      const MsGroup *g = ms_group (ms, x, state[x].group);
      const FfmEinsumPmappings *pm = ffm_pmapping_set_lookup_einsum (ms->set, x);
      const FfmPmappingGroup *pg = ffm_einsum_pmappings_get_group (pm, g->pm_group);
      g_autoptr (GPtrArray) nodes =
        ffm_einsum_pmappings_rebuild (pm, &pg->refs[g->pm_rows[state[x].row]], FALSE);
      FfmJoinPmapping *jp = ffm_join_pmapping_new (ms->w, ms->a,
                                                   (const FfmMappingNode *const *) nodes->pdata,
                                                   nodes->len, error);
      if (jp == NULL)
        return NULL;
      if (g->order > 0)
        {
          FfmJoinPmapping *reordered = ffm_join_pmapping_reorder (jp, ms->w, ms->a, g->order);
          ffm_join_pmapping_free (jp);
          jp = reordered;
        }
      g_ptr_array_add (joins, jp);
    }
  return ffm_join_build_mapping (ms->w, ms->a, joins, error);
}

gboolean
ffm_mapspace_add_solution (const FfmMapspace *ms, const FfmMapspaceChoice *state,
                           FfmSearchResult *result, GError **error)
{
  g_autoptr (FfmMapping) mapping = ffm_mapspace_build_mapping (ms, state, error);
  g_autoptr (FfmCostReport) report = NULL;

  if (mapping == NULL)
    return FALSE;
  report = ffm_cost_evaluate_mapping (ms->w, ms->a, mapping, error);
  if (report == NULL)
    return FALSE;
  if (!ffm_cost_report_fits (report))
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "mapspace: the mapping of the state does not fit: %s",
                   ffm_cost_report_get_problem (report));
      return FALSE;
    }
  ffm_search_result_add_solution (result, g_steal_pointer (&mapping),
                                  ffm_cost_report_get_energy (report),
                                  ffm_cost_report_get_latency (report));
  return TRUE;
}
