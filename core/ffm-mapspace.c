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
#include "ffm-pmapping-private.h"
#include "ffm-pmapping-diagnostics.h"
#include "ffm-mapspace-diagnostics.h"

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

/* The pools while reading: groups hold offsets into them (cast into their
 * pointers) until fix_pointers(). */
typedef struct {
  GArray *groups;           /* of MsGroup */
  GArray *tensors;          /* of MsTensor */
  GArray *loops;            /* of MsLoop */
  GArray *ranks;            /* of gint32 */
  GArray *sizes;            /* of double */
  GArray *rows;             /* of guint32 */
  gsize values;             /* doubles of rows so far */
} Pools;

/* One split of a generator group (compute unit, copy depths), before its
 * loop orders. */
typedef struct {
  guint compute_level;
  guint32 copy[FFM_MAX_EINSUM_TENSORS];
  guint template_id;
  GArray *rows;             /* of guint32 */
  FfmJoinPmapping *jp;      /* its first row's, for the orders */
} Split;

static void
split_clear (gpointer data)
{
  Split *s = data;

  if (s->rows != NULL)
    g_array_free (s->rows, TRUE);
  g_clear_pointer (&s->jp, ffm_join_pmapping_free);
}

/* The groups of split @sp of generator group @gi (@pg) of Einsum @x, one
 * per loop order, appended to @p. */
static void
add_split (const FfmMapspace *ms, guint x, const FfmEinsumPmappings *pm, guint gi,
           const FfmPmappingGroup *pg, const Split *sp, Pools *p)
{
  const FfmEinsum *e = ffm_workload_get_einsum (ms->w, x);
  const FfmPmappingModel *model = ffm_einsum_pmappings_get_model (pm, sp->template_id);
  guint F = pg->compat.n_loops, nt = pg->compat.n_tensors, n_orders;
  gsize tensors_at = p->tensors->len, sizes_at = p->sizes->len, rows_at = p->rows->len;
  gsize values_at = p->values;
  MsTensor mts[FFM_MAX_EINSUM_TENSORS];

  /* Tensors in access order (the cost finds a tensor of an Einsum at one
   * index in all its groups; the compatibility lists them in storage-node
   * order, which differs between groups). */
  for (guint t = 0; t < nt; t++)
    {
      const FfmCompatTensor *ct = &pg->compat.tensors[t];
      MsTensor *mt = &mts[t];
      gboolean unbounded = ffm_join_memory_is_unbounded (ms->a, ct->backing_level);
      memset (mt, 0, sizeof *mt);
      mt->tensor = ct->tensor;
      mt->access = ct->access;
      mt->level = (gint32) ct->backing_level;
      mt->persistent = ct->persistent ? 1 : 0;
      mt->depth = ct->n_loops;
      mt->bits = unbounded ? 0 : ct->backing_bits;
      mt->mem = unbounded ? -1 : tracked_index (ms, (int) ct->backing_level);
      mt->copy = sp->copy[t];
      mt->plain = TRUE;
      for (guint d = 0; d < mt->depth; d++)
        if (ffm_join_plain_rank (ms->w, e, mt->access, pg->compat.loops[d].rank_var) < 0)
          mt->plain = FALSE;
    }
  for (guint i = 1; i < nt; i++)
    for (guint j = i; j > 0 && mts[j - 1].access > mts[j].access; j--)
      {
        MsTensor tmp = mts[j];
        mts[j] = mts[j - 1];
        mts[j - 1] = tmp;
      }
  g_array_append_vals (p->tensors, mts, nt);
  for (guint m = 0; m < ms->n_mem; m++)
    {
      double size = ffm_pmapping_model_get_level_size (model, ms->mem_level[m]);
      g_array_append_val (p->sizes, size);
    }
  g_array_append_vals (p->rows, sp->rows->data, sp->rows->len);
  p->values += (gsize) sp->rows->len * (2 + ms->n_mem * (F + 3));

  n_orders = ffm_join_pmapping_get_n_orders (sp->jp);
  for (guint o = 0; o < n_orders; o++)
    {
      guint perm[FFM_COMPAT_MAX_LOOPS];
      MsGroup g;
      memset (&g, 0, sizeof g);
      ffm_join_pmapping_get_order (sp->jp, o, perm);
      g.n_rows = sp->rows->len;
      g.width = 2 + ms->n_mem * (F + 3);
      g.n_fused = F;
      g.n_tensors = nt;
      g.n_access = e->n_accesses;
      g.pm_group = gi;
      g.order = o;
      g.compute_level = sp->compute_level;
      g.values = GSIZE_TO_POINTER (values_at);
      g.tensors = GSIZE_TO_POINTER (tensors_at);
      g.size = GSIZE_TO_POINTER (sizes_at);
      g.pm_rows = GSIZE_TO_POINTER (rows_at);
      g.loops = GSIZE_TO_POINTER ((gsize) p->loops->len);
      g.ranks = GSIZE_TO_POINTER ((gsize) p->ranks->len);
      for (guint d = 0; d < F; d++)
        {
          const FfmCompatLoop *c = &pg->compat.loops[perm[d]];
          MsLoop l = { c->count, c->tile, c->spatial ? 1 : 0, c->fanout_level, c->fanout_dim, 0 };
          g.perm[d] = (guint8) perm[d];
          g_array_append_val (p->loops, l);
          for (guint acc = 0; acc < e->n_accesses; acc++)
            {
              gint32 r = ffm_join_plain_rank (ms->w, e, acc, c->rank_var);
              g_array_append_val (p->ranks, r);
            }
        }
      g_array_append_val (p->groups, g);
    }
}

/* Every group of Einsum @x, appended to @p. */
static gboolean
read_einsum (FfmMapspace *ms, guint x, Pools *p, GError **error)
{
  const FfmEinsumPmappings *pm = ffm_pmapping_set_lookup_einsum (ms->set, x);
  const FfmEinsum *e = ffm_workload_get_einsum (ms->w, x);

  for (guint gi = 0; gi < ffm_einsum_pmappings_get_n_groups (pm); gi++)
    {
      const FfmPmappingGroup *pg = ffm_einsum_pmappings_get_group (pm, gi);
      g_autoptr (GArray) splits = g_array_new (FALSE, TRUE, sizeof (Split));

      g_array_set_clear_func (splits, split_clear);
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
          Split *sp = NULL;
          guint32 row = r;

          if (!read_row (ms, pm, pg, r, copy, &compute_level, &jp, error))
            return FALSE;
          for (guint i = 0; i < splits->len && sp == NULL; i++)
            {
              Split *c = &g_array_index (splits, Split, i);
              gboolean same = c->compute_level == compute_level;
              for (guint t = 0; t < pg->compat.n_tensors && same; t++)
                same = c->copy[t] == copy[t];
              if (same)
                sp = c;
            }
          if (sp == NULL)
            {
              Split ns = { compute_level, { 0 }, pg->refs[r].template_id,
                           g_array_new (FALSE, FALSE, sizeof (guint32)), g_steal_pointer (&jp) };
              memcpy (ns.copy, copy, sizeof copy);
              g_array_append_val (splits, ns);
              sp = &g_array_index (splits, Split, splits->len - 1);
            }
          g_clear_pointer (&jp, ffm_join_pmapping_free);
          g_array_append_val (sp->rows, row);
        }
      for (guint i = 0; i < splits->len; i++)
        add_split (ms, x, pm, gi, pg, &g_array_index (splits, Split, i), p);
    }
  return TRUE;
}

/* One row of group @g (rows of @pg) into @out: see
 * ffm-mapspace-private.h. @columns[m * MS_DEPTHS + d + 1] is the column of
 * memory m's reservation at depth d, -1. FALSE if a reservation column is
 * smaller than the backing tiles it must hold (a bug). */
static gboolean
fill_row (const FfmMapspace *ms, const MsGroup *g, const FfmPmappingGroup *pg,
          const int *columns, int je, int jl, guint row, double *out)
{
  const double *v = pg->values + (gsize) row * pg->n_columns;
  guint F = g->n_fused;

  out[0] = je >= 0 ? v[je] : NAN;
  out[1] = jl >= 0 ? v[jl] : NAN;
  for (guint m = 0; m < ms->n_mem; m++)
    {
      double *P = out + 2 + m * (F + 3), last = 0;
      for (int d = -1; d <= (int) F; d++)
        {
          int j = columns[m * MS_DEPTHS + d + 1];
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

static void
pools_free (Pools *p)
{
  if (p->groups != NULL)
    g_array_free (p->groups, TRUE);
  if (p->tensors != NULL)
    g_array_free (p->tensors, TRUE);
  if (p->loops != NULL)
    g_array_free (p->loops, TRUE);
  if (p->ranks != NULL)
    g_array_free (p->ranks, TRUE);
  if (p->sizes != NULL)
    g_array_free (p->sizes, TRUE);
  if (p->rows != NULL)
    g_array_free (p->rows, TRUE);
}

static guint64
pools_bytes (const Pools *p)
{
  return (guint64) p->groups->len * sizeof (MsGroup)
    + (guint64) p->tensors->len * sizeof (MsTensor)
    + (guint64) p->loops->len * sizeof (MsLoop)
    + (guint64) p->ranks->len * sizeof (gint32)
    + (guint64) p->sizes->len * sizeof (double)
    + (guint64) p->rows->len * sizeof (guint32)
    + (guint64) p->values * sizeof (double);
}

static gboolean
read_groups (FfmMapspace *ms, GError **error)
{
  Pools p = { g_array_new (FALSE, FALSE, sizeof (MsGroup)),
              g_array_new (FALSE, FALSE, sizeof (MsTensor)),
              g_array_new (FALSE, FALSE, sizeof (MsLoop)),
              g_array_new (FALSE, FALSE, sizeof (gint32)),
              g_array_new (FALSE, FALSE, sizeof (double)),
              g_array_new (FALSE, FALSE, sizeof (guint32)), 0 };
  guint64 reserved = 0;
  guint n_groups;
  gboolean ok = TRUE;

  ms->group_first = g_new0 (guint32, ms->n_einsums + 1);
  for (guint x = 0; x < ms->n_einsums && ok; x++)
    {
      ms->group_first[x] = p.groups->len;
      ok = read_einsum (ms, x, &p, error);
      if (ok && p.groups->len == ms->group_first[x])
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                       "mapspace: Einsum %s has no pmapping",
                       ffm_workload_get_einsum (ms->w, x)->name);
          ok = FALSE;
        }
      /* The pools as they grow, the rows' values included. */
      if (ok && pools_bytes (&p) > reserved)
        {
          ok = ms_reserve (ms, pools_bytes (&p) - reserved, "its groups", error);
          reserved = pools_bytes (&p);
        }
    }
  if (!ok)
    {
      pools_free (&p);
      return FALSE;
    }
  ms->group_first[ms->n_einsums] = p.groups->len;
  n_groups = p.groups->len;
  ms->groups = (MsGroup *) (gpointer) g_array_free (p.groups, FALSE);
  ms->tensor_pool = (MsTensor *) (gpointer) g_array_free (p.tensors, FALSE);
  ms->loop_pool = (MsLoop *) (gpointer) g_array_free (p.loops, FALSE);
  ms->rank_pool = (gint32 *) (gpointer) g_array_free (p.ranks, FALSE);
  ms->size_pool = (double *) (gpointer) g_array_free (p.sizes, FALSE);
  ms->row_pool = (guint32 *) (gpointer) g_array_free (p.rows, FALSE);
  ms->pool = g_new (double, MAX (p.values, 1));
  for (guint i = 0; i < n_groups; i++)
    {
      MsGroup *g = &ms->groups[i];
      g->values = ms->pool + GPOINTER_TO_SIZE (g->values);
      g->tensors = ms->tensor_pool + GPOINTER_TO_SIZE (g->tensors);
      g->size = ms->size_pool + GPOINTER_TO_SIZE (g->size);
      g->pm_rows = ms->row_pool + GPOINTER_TO_SIZE (g->pm_rows);
      g->loops = ms->loop_pool + GPOINTER_TO_SIZE (g->loops);
      g->ranks = ms->rank_pool + GPOINTER_TO_SIZE (g->ranks);
    }
  /* The rows, once per split (its orders share them). */
  for (guint x = 0; x < ms->n_einsums; x++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_lookup_einsum (ms->set, x);
      for (guint i = ms->group_first[x]; i < ms->group_first[x + 1]; i++)
        {
          const MsGroup *g = &ms->groups[i];
          const FfmPmappingGroup *pg = ffm_einsum_pmappings_get_group (pm, g->pm_group);
          int columns[MS_MAX_MEM * MS_DEPTHS];
          int je = ffm_pmapping_group_find_column (pg, FFM_PMAPPING_COLUMN_ENERGY, 0, 0);
          int jl = ffm_pmapping_group_find_column (pg, FFM_PMAPPING_COLUMN_LATENCY, 0, 0);
          if (g->order != 0)
            continue;
          for (guint m = 0; m < ms->n_mem; m++)
            for (int d = -1; d <= (int) g->n_fused; d++)
              columns[m * MS_DEPTHS + d + 1] =
                ffm_pmapping_group_find_column (pg, FFM_PMAPPING_COLUMN_RESERVATION,
                                                ms->mem_level[m], d);
          for (guint r = 0; r < g->n_rows; r++)
            if (!fill_row (ms, g, pg, columns, je, jl, g->pm_rows[r],
                           (double *) g->values + (gsize) r * g->width))
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

const FfmCompatLoop *
ms_compat_loop (const FfmMapspace *ms, guint x, const MsGroup *g, guint d)
{
  const FfmEinsumPmappings *pm = ffm_pmapping_set_lookup_einsum (ms->set, x);

  return &ffm_einsum_pmappings_get_group (pm, g->pm_group)->compat.loops[g->perm[d]];
}

/* Group @g's compatibility in its loop order into @out. */
static void
group_compatibility (const FfmMapspace *ms, guint x, const MsGroup *g, FfmCompatibility *out)
{
  const FfmEinsumPmappings *pm = ffm_pmapping_set_lookup_einsum (ms->set, x);
  const FfmCompatibility *base = &ffm_einsum_pmappings_get_group (pm, g->pm_group)->compat;

  *out = *base;
  for (guint d = 0; d < g->n_fused; d++)
    out->loops[d] = base->loops[g->perm[d]];
  for (guint t = 0; t < out->n_tensors; t++)
    for (guint d = 0; d < out->tensors[t].n_loops; d++)
      out->tensors[t].ranks[d] = base->tensors[t].ranks[g->perm[d]];
}

/* The query weight of every Einsum under the charge. */
static void
apply_charge (FfmMapspace *ms)
{
  ms->state_query_weight = 0;
  for (guint x = 0; x < ms->n_einsums; x++)
    {
      ms->query_weight[x] = ms->charge == FFM_MAPSPACE_CHARGE_EVALUATION
        ? 1.0 : ms->explored_weight[x];
      ms->state_query_weight += ms->query_weight[x];
    }
}

/* Query weights and the time of one pmapping evaluation (the paper's
 * runtime model, §7.3), the generator's: its thread time over the
 * pmappings it evaluated. */
static void
read_accounting (FfmMapspace *ms)
{
  double seconds = 0, evaluated = 0, rows = 0;

  ms->explored_weight = g_new0 (double, MAX (ms->n_einsums, 1));
  ms->query_weight = g_new0 (double, MAX (ms->n_einsums, 1));
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
      ms->explored_weight[x] = src->n_rows > 0
        ? MAX (1.0, (double) src->n_evaluated / (double) src->n_rows) : 1.0;
    }
  ms->charge = FFM_MAPSPACE_CHARGE_EXPLORED;
  apply_charge (ms);
  ms->seconds_per_pmapping = evaluated > 0 ? seconds / evaluated
    : ffm_pmapping_set_get_seconds (ms->set) / MAX (rows, 1);
}

gboolean
ms_reserve (FfmMapspace *ms, guint64 bytes, const char *what, GError **error)
{
  if (ms->limit > 0 && (bytes > ms->limit || ms->bytes > ms->limit - bytes))
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY,
                   "mapspace of %s: %s need %" G_GUINT64_FORMAT " MiB more, past the "
                   "memory budget (--max-memory %" G_GUINT64_FORMAT " MiB, of which the "
                   "pmappings hold %" G_GUINT64_FORMAT " MiB and the mapspace %"
                   G_GUINT64_FORMAT " MiB so far)", ffm_workload_get_name (ms->w), what,
                   (bytes + (1 << 20) - 1) >> 20,
                   ms->total_limit >> 20,
                   ffm_pmapping_set_get_memory_held (ms->set) >> 20, ms->bytes >> 20);
      return FALSE;
    }
  ms->bytes += bytes;
  ms->peak_bytes = MAX (ms->peak_bytes, ms->bytes);
  return TRUE;
}

guint64
ffm_mapspace_get_memory_peak (const FfmMapspace *ms)
{
  return ms->peak_bytes;
}

static FfmMapspace *mapspace_new (FfmPmappingSet *set, guint64 limit, GError **error);

FfmMapspace *
ffm_mapspace_new (FfmPmappingSet *set, GError **error)
{
  g_return_val_if_fail (set != NULL, NULL);
  return mapspace_new (set, ffm_pmapping_set_get_memory_limit (set), error);
}

FfmMapspace *
ffm_mapspace_new_limited (FfmPmappingSet *set, guint64 limit, GError **error)
{
  g_return_val_if_fail (set != NULL, NULL);
  return mapspace_new (set, limit, error);
}

static FfmMapspace *
mapspace_new (FfmPmappingSet *set, guint64 limit, GError **error)
{
  g_autoptr (FfmMapspace) ms = NULL;
  const guint *tracked;
  guint n_tracked;
  gint64 start = g_get_monotonic_time ();

  g_return_val_if_fail (set != NULL, NULL);
  ms = g_new0 (FfmMapspace, 1);
  g_ref_count_init (&ms->ref_count);
  g_mutex_init (&ms->compat_lock);
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
  {
    guint64 held = ffm_pmapping_set_get_memory_held (set);
    ms->limit = limit == 0 ? 0 : limit > held ? limit - held : 1;
    ms->total_limit = limit;
  }
  ms->space = FFM_MAPSPACE_SPACE_PAPER;
  if (!read_groups (ms, error))
    return NULL;
  read_accounting (ms);
  if (!ms_build_cost_lists (ms, error) || !ms_build_graph (ms, error)
      || !ms_build_moves (ms, error))
    return NULL;
  ms->build_seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  return g_steal_pointer (&ms);
}

gboolean
ffm_mapspace_measure_seconds_per_pmapping (FfmWorkload *w, FfmArch *a,
                                           const FfmPmappingOptions *base,
                                           double *seconds, guint64 *evaluated,
                                           GError **error)
{
  g_autoptr (FfmPmappingSet) set = NULL;
  FfmPmappingOptions options;
  double spent = 0;
  guint64 count = 0;

  g_return_val_if_fail (w != NULL && a != NULL && seconds != NULL, FALSE);
  if (base != NULL)
    options = *base;
  else
    ffm_pmapping_options_init (&options);
  /* One Einsum at a time would be the same count; the options' own
   * Einsum stays (a caller that generates one Einsum times that one). */
  options.reuse_equal_einsums = TRUE;
  options.drop_unjoinable = FALSE;
  options.progress = NULL;
  options.progress_data = NULL;
  options.max_templates = options.max_templates > 0
    ? MIN (options.max_templates, FFM_MAPSPACE_SAMPLE_TEMPLATES) : FFM_MAPSPACE_SAMPLE_TEMPLATES;
  options.max_template_seconds = options.max_template_seconds > 0
    ? MIN (options.max_template_seconds, FFM_MAPSPACE_SAMPLE_TEMPLATE_SECONDS)
    : FFM_MAPSPACE_SAMPLE_TEMPLATE_SECONDS;
  pmapping_options_force_no_partial_pruning (TRUE);
  set = ffm_pmappings_generate (w, a, &options, error);
  pmapping_options_force_no_partial_pruning (FALSE);
  if (set == NULL)
    {
      g_prefix_error (error, "timing one pmapping evaluation (pruning off): ");
      return FALSE;
    }
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmPmappingStats *st =
        ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (set, i));
      if (st->reused_from >= 0)
        continue;
      spent += st->seconds;
      count += st->n_evaluated;
    }
  if (count == 0 || !(spent > 0))
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "timing one pmapping evaluation of %s on %s: the sample "
                   "evaluated no pmapping", ffm_workload_get_name (w),
                   ffm_arch_get_name (a));
      return FALSE;
    }
  *seconds = spent / (double) count;
  if (evaluated != NULL)
    *evaluated = count;
  return TRUE;
}

FfmMapspace *
ffm_mapspace_new_for_context_with (const FfmSearchContext *ctx,
                                   FfmMapspaceSpace space,
                                   FfmMapspaceCharge charge,
                                   GError **error)
{
  FfmPmappingOptions options;
  FfmPmappingSet *set;
  FfmMapspace *ms;
  double seconds = 0;

  g_return_val_if_fail (ctx != NULL && ctx->problem != NULL, NULL);
  ffm_pmapping_options_init_from_context (&options, ctx);
  options.drop_unjoinable = space == FFM_MAPSPACE_SPACE_PRUNED;
  if (space == FFM_MAPSPACE_SPACE_PAPER)
    {
      if (ctx->progress != NULL)
        ctx->progress (-1, "timing one pmapping evaluation (pruning off)",
                       ctx->progress_data);
      if (!ffm_mapspace_measure_seconds_per_pmapping (ffm_problem_get_workload (ctx->problem),
                                                      ffm_problem_get_arch (ctx->problem),
                                                      &options, &seconds, NULL, error))
        return NULL;
    }
  if (ctx->progress != NULL)
    ctx->progress (-1, "generating pmappings", ctx->progress_data);
  set = ffm_pmappings_generate (ffm_problem_get_workload (ctx->problem),
                                ffm_problem_get_arch (ctx->problem), &options, error);
  if (set == NULL)
    return NULL;
  if (ctx->progress != NULL)
    ctx->progress (-1, "building the mapspace", ctx->progress_data);
  ms = ffm_mapspace_new (set, error);
  if (ms == NULL)
    return NULL;
  ms->space = space;
  ffm_mapspace_set_accounting (ms, charge, seconds);
  return ms;
}

FfmMapspace *
ffm_mapspace_new_for_context (const FfmSearchContext *ctx, GError **error)
{
  g_return_val_if_fail (ctx != NULL && ctx->problem != NULL, NULL);
  if (FFM_SEARCH_CONTEXT_HAS (ctx, mapspace) && ctx->mapspace != NULL)
    return ffm_mapspace_ref (ctx->mapspace);
  return ffm_mapspace_new_for_context_with (ctx, FFM_MAPSPACE_SPACE_PAPER,
                                            FFM_MAPSPACE_CHARGE_EXPLORED, error);
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
  g_free (ms->groups);
  g_free (ms->tensor_pool);
  g_free (ms->loop_pool);
  g_free (ms->rank_pool);
  g_free (ms->size_pool);
  g_free (ms->row_pool);
  g_free (ms->compats);
  g_mutex_clear (&ms->compat_lock);
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
  g_free (ms->in_first);
  g_free (ms->in_source);
  g_free (ms->in_edge);
  g_free (ms->group_node_first);
  g_free (ms->group_nodes);
  g_free (ms->query_weight);
  g_free (ms->explored_weight);
  ms_moves_free (ms);
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
  FfmMapspace *mut = (FfmMapspace *) ms;

  if (g == NULL)
    return NULL;
  /* Every group's at the first call: callers keep the pointer. */
  g_mutex_lock (&mut->compat_lock);
  if (mut->compats == NULL)
    {
      FfmCompatibility *all = g_new (FfmCompatibility, MAX (ms->group_first[ms->n_einsums], 1));
      for (guint x = 0; x < ms->n_einsums; x++)
        for (guint i = ms->group_first[x]; i < ms->group_first[x + 1]; i++)
          group_compatibility (ms, x, &ms->groups[i], &all[i]);
      mut->compats = all;
    }
  g_mutex_unlock (&mut->compat_lock);
  return &ms->compats[ms->group_first[einsum] + group];
}

void
ffm_mapspace_group_copy_compatibility (const FfmMapspace *ms, guint einsum, guint group,
                                       FfmCompatibility *out)
{
  const MsGroup *g = checked_group (ms, einsum, group);

  g_return_if_fail (g != NULL && out != NULL);
  group_compatibility (ms, einsum, g, out);
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

static const char *const charge_names[] = { "explored", "evaluation" };
static const char *const space_names[] = { "paper", "pruned" };

const char *
ffm_mapspace_charge_to_string (FfmMapspaceCharge charge)
{
  return (guint) charge < G_N_ELEMENTS (charge_names) ? charge_names[charge] : "unknown";
}

gboolean
ffm_mapspace_charge_from_string (const char *text, FfmMapspaceCharge *out, GError **error)
{
  for (guint i = 0; text != NULL && i < G_N_ELEMENTS (charge_names); i++)
    if (g_ascii_strcasecmp (text, charge_names[i]) == 0)
      {
        *out = (FfmMapspaceCharge) i;
        return TRUE;
      }
  g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
               "unknown charge '%s': explored (the pmappings the generator "
               "evaluated per Pareto pmapping) or evaluation (one per queried "
               "pmapping)", text != NULL ? text : "");
  return FALSE;
}

const char *
ffm_mapspace_space_to_string (FfmMapspaceSpace space)
{
  return (guint) space < G_N_ELEMENTS (space_names) ? space_names[space] : "unknown";
}

gboolean
ffm_mapspace_space_from_string (const char *text, FfmMapspaceSpace *out, GError **error)
{
  for (guint i = 0; text != NULL && i < G_N_ELEMENTS (space_names); i++)
    if (g_ascii_strcasecmp (text, space_names[i]) == 0)
      {
        *out = (FfmMapspaceSpace) i;
        return TRUE;
      }
  g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
               "unknown baseline space '%s': paper (every Pareto pmapping per "
               "compatibility) or pruned (the pmappings ffm joins)",
               text != NULL ? text : "");
  return FALSE;
}

void
ffm_mapspace_set_accounting (FfmMapspace *ms, FfmMapspaceCharge charge,
                             double seconds_per_pmapping)
{
  g_return_if_fail (ms != NULL);
  g_return_if_fail ((guint) charge < G_N_ELEMENTS (charge_names));
  ms->charge = charge;
  apply_charge (ms);
  if (seconds_per_pmapping > 0)
    ms->seconds_per_pmapping = seconds_per_pmapping;
}

FfmMapspaceCharge
ffm_mapspace_get_charge (const FfmMapspace *ms)
{
  return ms->charge;
}

FfmMapspaceSpace
ffm_mapspace_get_space (const FfmMapspace *ms)
{
  return ms->space;
}

double
ffm_mapspace_get_log10_n_states (const FfmMapspace *ms)
{
  return ms->log_states / G_LN10;
}

double
ffm_mapspace_get_log10_n_combinations (const FfmMapspace *ms)
{
  return ms->log_completions[0] / G_LN10;
}

void
ffm_mapspace_get_einsum_stats (const FfmMapspace *ms, guint einsum,
                               FfmMapspaceEinsumStats *st)
{
  const FfmEinsumPmappings *pm;
  const FfmPmappingStats *ps, *src;

  g_return_if_fail (ms != NULL && st != NULL && einsum < ms->n_einsums);
  memset (st, 0, sizeof *st);
  pm = ffm_pmapping_set_lookup_einsum (ms->set, einsum);
  ps = ffm_einsum_pmappings_get_stats (pm);
  src = ps->reused_from >= 0
    ? ffm_einsum_pmappings_get_stats (ffm_pmapping_set_lookup_einsum (ms->set,
                                                                      (guint) ps->reused_from))
    : ps;
  for (guint i = 0; i < ffm_einsum_pmappings_get_n_groups (pm); i++)
    st->pmappings += ffm_einsum_pmappings_get_group (pm, i)->n_rows;
  st->pmapping_groups = ffm_einsum_pmappings_get_n_groups (pm);
  st->groups = ffm_mapspace_get_n_groups (ms, einsum);
  for (guint g = 0; g < st->groups; g++)
    {
      const MsGroup *mg = ms_group (ms, einsum, g);
      if (!mg->usable)
        continue;
      st->usable_groups++;
      st->usable_pmappings += mg->n_rows;
    }
  st->evaluated = src->n_evaluated;
  st->query_weight = ms->query_weight[einsum];
  st->keys = ms->node_first[einsum + 1] - ms->node_first[einsum];
  for (guint32 v = ms->node_first[einsum]; v < ms->node_first[einsum + 1]; v++)
    {
      guint64 deg = ms->edge_first[v + 1] - ms->edge_first[v];
      st->links += deg;
      st->most_links = MAX (st->most_links, deg);
    }
}

guint64
ffm_mapspace_get_memory_bytes (const FfmMapspace *ms)
{
  return ms->bytes;
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
