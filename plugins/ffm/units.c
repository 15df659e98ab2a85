/* units.c: the right side of the join's steps, read from the pmapping
 * set once (join.h, join-private.h).
 *
 * Each generator group becomes one or more units: its rows split by the
 * depth of their copies of shared tensors and by their compute unit (rows
 * of one unit join alike, and one capacity applies to all of them), then
 * once per order of the group's fused loops (ffm_join_pmapping_reorder()).
 * A unit's row is flat: the objectives, then per tracked memory the
 * cumulative reservations at depths -1 .. its fused loops. Units are
 * indexed by what a left group must match (join_match_bytes()) for every
 * number of shared loops. Rows are read once, here; the steps never
 * allocate per row. */
#include "join-private.h"

#include <math.h>
#include <string.h>

/* ---- Units ---- */

static void
unit_clear (Unit *u)
{
  g_array_unref (u->rows);
  g_array_unref (u->table);
}

void
join_problem_free (JoinProblem *p)
{
  if (p == NULL)
    return;
  for (guint x = 0; p->steps != NULL && x < p->n_einsums; x++)
    {
      Step *st = &p->steps[x];
      ffm_memory_budget_release (p->budget, st->units_charged);
      if (st->units != NULL)
        {
          for (guint i = 0; i < st->units->len; i++)
            unit_clear (&g_array_index (st->units, Unit, i));
          g_array_free (st->units, TRUE);
        }
      if (st->index != NULL)
        g_hash_table_destroy (st->index);
      if (st->before != NULL)
        g_array_free (st->before, TRUE);
      if (st->live_after != NULL)
        g_array_free (st->live_after, TRUE);
    }
  g_free (p->steps);
  g_free (p->rest_energy);
  g_free (p->mean_min_energy);
  g_free (p->mean_min_latency);
  g_free (p->rest_latency);
  ffm_memory_budget_free (p->budget);
  g_free (p);
}

/* The row of group @g, @row, as a unit row: objectives, then per memory
 * the cumulative reservations at depths -1..n_fused. */
static void
unit_row (const JoinProblem *p, const FfmPmappingGroup *g, guint row,
          guint n_fused, double *out)
{
  const double *v = g->values + (gsize) row * g->n_columns;
  guint k = 0;

  out[k++] = v[ffm_pmapping_group_find_column (g, FFM_PMAPPING_COLUMN_ENERGY, 0, 0)];
  out[k++] = v[ffm_pmapping_group_find_column (g, FFM_PMAPPING_COLUMN_LATENCY, 0, 0)];
  for (guint m = 0; m < p->n_mem; m++)
    {
      double last = 0;
      for (int d = -1; d <= (int) n_fused; d++)
        {
          int j = ffm_pmapping_group_find_column (g, FFM_PMAPPING_COLUMN_RESERVATION, p->mem_level[m], d);
          if (j >= 0)
            last = v[j];
          out[k++] = last;
        }
    }
}

GPtrArray *
join_pmapping_path (const FfmEinsumPmappings *pm, const FfmPmappingRef *ref)
{
  const GPtrArray *nodes = ffm_einsum_pmappings_get_template (pm, ref->template_id);
  const FfmPmappingModel *model = ffm_einsum_pmappings_get_model (pm, ref->template_id);
  /* A template without loops has no tiles to look up (its pool of tiles
   * may be empty). */
  const guint64 *tiles = ffm_pmapping_model_get_n_loops (model) > 0
    ? ffm_einsum_pmappings_get_tiles (pm, ref) : NULL;
  GPtrArray *out = ffm_mapping_node_list_new ();

  for (guint i = 0, j = 0; i < nodes->len; i++)
    {
      FfmMappingNode *n = ffm_mapping_node_copy (g_ptr_array_index (nodes, i));
      if (n->kind == FFM_NODE_TEMPORAL || n->kind == FFM_NODE_SPATIAL)
        n->tile = tiles[j++];
      g_ptr_array_add (out, n);
    }
  return out;
}

/* The nodes of a row's pmapping, as join_pmapping_path() gives them but
 * shallow: struct copies of its template's nodes with the row's tiles, in
 * @shallow, pointed to from @ptrs (both reused from row to row). They
 * share the template's strings, so they are only read:
 * ffm_join_pmapping_new() deep-copies what it keeps (GPT-3 at unlimited
 * fused loops: 420,000 rows, each copying its nodes and their strings). */
static void
row_nodes (const FfmEinsumPmappings *pm, const FfmPmappingRef *ref,
           GArray *shallow, GPtrArray *ptrs)
{
  const GPtrArray *nodes = ffm_einsum_pmappings_get_template (pm, ref->template_id);
  const FfmPmappingModel *model = ffm_einsum_pmappings_get_model (pm, ref->template_id);
  /* No loops, no tiles (as in join_pmapping_path()). */
  const guint64 *tiles = ffm_pmapping_model_get_n_loops (model) > 0
    ? ffm_einsum_pmappings_get_tiles (pm, ref) : NULL;
  FfmMappingNode *n;

  g_array_set_size (shallow, nodes->len);
  g_ptr_array_set_size (ptrs, (gint) nodes->len);
  n = (FfmMappingNode *) (gpointer) shallow->data;
  for (guint i = 0, j = 0; i < nodes->len; i++)
    {
      n[i] = *(const FfmMappingNode *) g_ptr_array_index (nodes, i);
      if (n[i].kind == FFM_NODE_TEMPORAL || n[i].kind == FFM_NODE_SPATIAL)
        n[i].tile = tiles[j++];
      ptrs->pdata[i] = &n[i];
    }
}

/* Copies of shared tensors in one row's pmapping (ffm-join.h). */
static gboolean
row_copies (const JoinProblem *p, const FfmEinsumPmappings *pm,
            const FfmPmappingGroup *g, guint row, GArray *shallow, GPtrArray *ptrs,
            guint *copy, guint *compute_level, FfmJoinPmapping **out, GError **error)
{
  g_autoptr (FfmJoinPmapping) jp = NULL;

  row_nodes (pm, &g->refs[row], shallow, ptrs);
  jp = ffm_join_pmapping_new (p->w, p->a, (const FfmMappingNode *const *) ptrs->pdata,
                              ptrs->len, error);
  if (jp == NULL)
    return FALSE;
  if (ffm_join_pmapping_get_n_fused_loops (jp) != g->compat.n_loops)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "ffm: a pmapping of group with %u fused loops rebuilds with %u "
                   "(a bug)", g->compat.n_loops, ffm_join_pmapping_get_n_fused_loops (jp));
      return FALSE;
    }
  for (guint t = 0; t < g->compat.n_tensors; t++)
    {
      guint c = ffm_join_pmapping_get_copy_depth (jp, g->compat.tensors[t].tensor);
      copy[t] = c < g->compat.n_loops ? c : NONE;
    }
  *compute_level = ffm_pmapping_model_get_compute_level (
    ffm_einsum_pmappings_get_model (pm, g->refs[row].template_id));
  *out = g_steal_pointer (&jp);
  return TRUE;
}

static Unit *
find_unit (GArray *units, guint first, guint group, const guint *copy,
           guint compute_level, guint n_tensors)
{
  for (guint i = first; i < units->len; i++)
    {
      Unit *u = &g_array_index (units, Unit, i);
      if (u->group == group && u->compute_level == compute_level
          && memcmp (u->copy, copy, sizeof (guint) * n_tensors) == 0)
        return u;
    }
  return NULL;
}

/* The rank of each access each fused loop (in the unit's order) walks
 * (ranks per tensor: at most FFM_MAX_TENSOR_RANKS, so a gint8 holds it). */
G_STATIC_ASSERT (FFM_MAX_TENSOR_RANKS <= G_MAXINT8);
static void
unit_ranks (const JoinProblem *p, const Step *st, Unit *u)
{
  for (guint d = 0; d < u->n_fused; d++)
    for (guint acc = 0; acc < FFM_MAX_EINSUM_TENSORS; acc++)
      u->ranks[d][acc] = (gint8) (acc < st->e->n_accesses
        ? ffm_join_plain_rank (p->w, st->e, acc, join_unit_loop (u, d)->rank_var) : -1);
}

/* The same unit with its fused loops in order @order (of @jp, one of its
 * rows): the loops and the ranks they walk reordered; a block never
 * crosses a tensor's backing node, so each tensor keeps its loops, and the
 * reservations per depth are the base's: the rows and table are shared. */
static void
unit_permuted (const JoinProblem *p, const Step *st, const Unit *base,
               const FfmJoinPmapping *jp, guint order, Unit *u)
{
  guint perm[FFM_COMPAT_MAX_LOOPS];

  *u = *base;
  u->order = order;
  u->rows = g_array_ref (base->rows);
  u->table = g_array_ref (base->table);
  ffm_join_pmapping_get_order (jp, order, perm);
  for (guint d = 0; d < u->n_fused; d++)
    u->perm[d] = (guint8) base->perm[perm[d]];
  unit_ranks (p, st, u);
}

static void
unit_init (const JoinProblem *p, const Step *st, Unit *u, guint group,
           const FfmPmappingGroup *g, const guint *copy, guint compute_level,
           guint template_id)
{
  const FfmPmappingModel *model = ffm_einsum_pmappings_get_model (st->pm, template_id);

  memset (u, 0, sizeof *u);
  u->group = group;
  u->g = g;
  u->compat = &g->compat;
  for (guint d = 0; d < MAX_LOOPS; d++)
    u->perm[d] = (guint8) d;
  u->n_orders = 1;
  u->compute_level = compute_level;
  for (guint t = 0; t < FFM_MAX_EINSUM_TENSORS; t++)
    u->copy[t] = t < g->compat.n_tensors ? copy[t] : NONE;
  u->n_fused = g->compat.n_loops;
  unit_ranks (p, st, u);
  for (guint m = 0; m < p->n_mem; m++)
    u->size[m] = ffm_pmapping_model_get_level_size (model, p->mem_level[m]);
  for (guint t = 0; t < g->compat.n_tensors; t++)
    u->unbounded[t] = ffm_join_memory_is_unbounded (p->a, g->compat.tensors[t].backing_level);
  u->width = p->n_obj + p->n_mem * (u->n_fused + 2);
  u->rows = g_array_new (FALSE, FALSE, sizeof (guint));
  u->table = g_array_new (FALSE, FALSE, sizeof (double));
}

/* TUNING: units' bytes are taken from the join's budget this many at a
 * time (few atomic operations; the overshoot is at most this). */
#define UNIT_CHARGE_CHUNK ((gsize) 1 << 20)
/* Bytes a unit holds besides its struct and rows: its two arrays' headers
 * and malloc's bookkeeping (measured: resident memory 45 % above the
 * budget without it on GPT-3's 2.5 M units). */
#define UNIT_OVERHEAD_BYTES 128

/* Takes @bytes more of @st's units from the join's budget (in chunks:
 * *@pending holds what is not taken yet); FALSE with @error set when the
 * budget has no more. */
static gboolean
charge_units (JoinProblem *p, Step *st, gsize bytes, gsize *pending, GError **error)
{
  *pending += bytes;
  if (*pending < UNIT_CHARGE_CHUNK)
    return TRUE;
  if (!ffm_memory_budget_reserve (p->budget, *pending))
    {
      g_autofree char *limit = ffm_format_bytes (ffm_memory_budget_get_limit (p->budget));
      g_autofree char *held = ffm_format_bytes (ffm_memory_budget_get_used (p->budget));
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY,
                   "the join's units of Einsum %s (%u so far) need more memory: "
                   "the join already holds %s of the %s the memory budget leaves "
                   "it after the pmappings; raise the budget (--max-memory), or "
                   "narrow the mapspace (fewer fused loops, mapping constraints)",
                   st->e->name, st->units->len, held, limit);
      return FALSE;
    }
  st->units_charged += *pending;
  *pending = 0;
  return TRUE;
}

static gboolean
read_units (JoinProblem *p, Step *st, GError **error)
{
  gsize pending = 0;
  double row[2 + MAX_MEM * (MAX_LOOPS + 2)];
  g_autoptr (GArray) shallow = g_array_new (FALSE, FALSE, sizeof (FfmMappingNode));
  g_autoptr (GPtrArray) ptrs = g_ptr_array_new ();

  st->units = g_array_new (FALSE, FALSE, sizeof (Unit));
  st->min_energy = st->min_latency = INFINITY;
  for (guint gi = 0; gi < ffm_einsum_pmappings_get_n_groups (st->pm); gi++)
    {
      const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (st->pm, gi);
      guint first = st->units->len;
      int je = ffm_pmapping_group_find_column (g, FFM_PMAPPING_COLUMN_ENERGY, 0, 0);
      int jl = ffm_pmapping_group_find_column (g, FFM_PMAPPING_COLUMN_LATENCY, 0, 0);

      if (je < 0 || jl < 0
          || g->compat.n_loops > MAX_LOOPS)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                       "ffm: the pmappings of Einsum %s lack an objective column "
                       "(a bug)", st->e->name);
          return FALSE;
        }
      g_autoptr (GPtrArray) firsts = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_join_pmapping_free);
      guint n_base;
      for (guint r = 0; r < g->n_rows; r++)
        {
          guint copy[FFM_MAX_EINSUM_TENSORS], compute_level;
          FfmJoinPmapping *jp = NULL;
          Unit *u;
          if (!row_copies (p, st->pm, g, r, shallow, ptrs, copy, &compute_level,
                           &jp, error))
            return FALSE;
          u = find_unit (st->units, first, gi, copy, compute_level, g->compat.n_tensors);
          if (u == NULL)
            {
              Unit nu;
              if (!charge_units (p, st, sizeof (Unit) + UNIT_OVERHEAD_BYTES, &pending, error))
                {
                  ffm_join_pmapping_free (jp);
                  return FALSE;
                }
              unit_init (p, st, &nu, gi, g, copy, compute_level, g->refs[r].template_id);
              nu.n_orders = ffm_join_pmapping_get_n_orders (jp);
              g_array_append_val (st->units, nu);
              g_ptr_array_add (firsts, g_steal_pointer (&jp));
              u = &g_array_index (st->units, Unit, st->units->len - 1);
            }
          ffm_join_pmapping_free (jp);
          if (!charge_units (p, st, sizeof (guint) + sizeof (double) * u->width,
                             &pending, error))
            return FALSE;
          unit_row (p, g, r, u->n_fused, row);
          g_array_append_val (u->rows, r);
          g_array_append_vals (u->table, row, u->width);
          if (je >= 0)
            st->min_energy = MIN (st->min_energy, g->values[(gsize) r * g->n_columns + je]);
          if (jl >= 0)
            st->min_latency = MIN (st->min_latency, g->values[(gsize) r * g->n_columns + jl]);
        }
      /* Every other order of the loops of each unit: a unit of its own. */
      n_base = st->units->len;
      for (guint i = first; i < n_base; i++)
        for (guint o = 1; o < g_array_index (st->units, Unit, i).n_orders; o++)
          {
            Unit nu;
            const Unit *base = &g_array_index (st->units, Unit, i);
            if (!charge_units (p, st, sizeof (Unit), &pending, error))
              return FALSE;
            unit_permuted (p, st, base, g_ptr_array_index (firsts, i - first), o, &nu);
            g_array_append_val (st->units, nu);
          }
    }
  return TRUE;
}

/* ---- Indexing ---- */

static void
index_units (JoinProblem *p, Step *st)
{
  g_autoptr (GByteArray) scratch = g_byte_array_new ();

  st->index = g_hash_table_new_full (join_byte_key_hash, join_byte_key_equal,
                                     g_free, (GDestroyNotify) g_array_unref);
  for (guint i = 0; i < st->units->len; i++)
    {
      const Unit *u = &g_array_index (st->units, Unit, i);
      KeyLoop loops[MAX_LOOPS];
      KeyLive lives[FFM_MAX_EINSUM_TENSORS];
      const KeyLive *ptrs[FFM_MAX_EINSUM_TENSORS];
      gboolean ok = TRUE;

      for (guint d = 0; d < u->n_fused; d++)
        join_compat_loop (join_unit_loop (u, d), &loops[d]);
      for (guint k = 0; k < st->before->len && ok; k++)
        {
          int t = join_compat_find (u->compat, g_array_index (st->before, guint, k));
          ok = t >= 0 && join_unit_live (u, (guint) t, &lives[k]);
          ptrs[k] = &lives[k];
        }
      if (!ok)
        continue;       /* can never join what came before */
      for (guint s = 0; s <= u->n_fused; s++)
        {
          const ByteKey *key = join_match_bytes (s, loops, ptrs, st->before->len,
                                                 scratch);
          GArray *list = g_hash_table_lookup (st->index, key);
          if (list == NULL)
            {
              list = g_array_new (FALSE, FALSE, sizeof (guint));
              g_hash_table_insert (st->index, join_byte_key_copy (key), list);
            }
          g_array_append_val (list, i);
        }
    }
}

/* One Einsum's units, read and indexed (a job of read_all_units()). */
typedef struct {
  JoinProblem *p;
  GError *errors[];             /* per step: why its units failed, or NULL */
} UnitJobs;

static void
step_units (JoinProblem *p, Step *st, GError **error)
{
  gint64 t0 = g_get_monotonic_time (), t1;

  if (!read_units (p, st, error))
    return;
  t1 = g_get_monotonic_time ();
  index_units (p, st);
  g_debug ("units of Einsum %s: %u units (%" G_GSIZE_FORMAT " bytes) read in "
           "%.3f s, indexed in %.3f s", st->e->name, st->units->len,
           st->units_charged, (double) (t1 - t0) / G_USEC_PER_SEC,
           (double) (g_get_monotonic_time () - t1) / G_USEC_PER_SEC);
}

static void
step_units_job (guint x, gpointer user)
{
  UnitJobs *jobs = user;

  step_units (jobs->p, &jobs->p->steps[x], &jobs->errors[x]);
}

/* Every step's units, one Einsum per job on the problem's threads (GPT-3
 * at unlimited fused loops: 1.7 M units, 10 s on one thread), the
 * Einsums of most pmappings first, so that none of them starts last
 * (there, QK_softmax's 775 k units took 2.6 s, alone at the end). Steps
 * only read the pmapping set and share the budget (atomic); the error
 * reported is that of the first Einsum that failed, in workload order. */
static gboolean
read_all_units (JoinProblem *p, GError **error)
{
  g_autofree UnitJobs *jobs = g_malloc0 (sizeof (UnitJobs)
                                         + sizeof (GError *) * MAX (p->n_einsums, 1));
  g_autofree guint64 *rows = g_new0 (guint64, MAX (p->n_einsums, 1));
  gboolean ok = TRUE;

  jobs->p = p;
  if (p->n_threads <= 1 || p->n_einsums <= 1)
    for (guint x = 0; x < p->n_einsums; x++)
      {
        /* one thread stops at the first failure */
        step_units (p, &p->steps[x], &jobs->errors[x]);
        if (jobs->errors[x] != NULL)
          break;
      }
  else
    {
      for (guint x = 0; x < p->n_einsums; x++)
        for (guint gi = 0; gi < ffm_einsum_pmappings_get_n_groups (p->steps[x].pm); gi++)
          rows[x] += ffm_einsum_pmappings_get_group (p->steps[x].pm, gi)->n_rows;
      join_run_items (p->n_threads, step_units_job, jobs, rows, p->n_einsums);
    }
  for (guint x = 0; x < p->n_einsums; x++)
    if (jobs->errors[x] != NULL)
      {
        if (ok)
          g_propagate_error (error, g_steal_pointer (&jobs->errors[x]));
        else
          g_clear_error (&jobs->errors[x]);
        ok = FALSE;
      }
  return ok;
}

JoinProblem *
join_problem_new (FfmPmappingSet *set, FfmObjective objective,
                  guint n_threads, guint64 max_memory, GError **error)
{
  JoinProblem *p = g_new0 (JoinProblem, 1);
  guint64 limit = max_memory > 0 ? max_memory : ffm_pmapping_set_get_memory_limit (set);
  guint64 held = ffm_pmapping_set_get_memory_held (set);
  guint n_tensors, n_tracked;
  const guint *tracked;
  g_autofree guint *first = NULL, *last = NULL;

  p->set = set;
  p->w = ffm_pmapping_set_get_workload (set);
  p->a = ffm_pmapping_set_get_arch (set);
  p->n_einsums = ffm_workload_get_n_einsums (p->w);
  /* Energy and latency break their ties with the other objective, so the
   * rows carry both (ffm_pmapping_objectives_for()). */
  p->n_obj = 2;
  p->first = objective == FFM_OBJECTIVE_ENERGY ? 0
    : objective == FFM_OBJECTIVE_LATENCY ? 1 : -1;
  p->n_threads = CLAMP (n_threads, 1, FFM_MAX_THREADS);
  /* TUNING: at least 16 MiB, so that a budget the pmappings filled still
   * names the join's Einsum rather than failing on its first group. */
  p->budget = ffm_memory_budget_new (MAX (limit > held ? limit - held : 0,
                                          (guint64) 16 << 20));
  tracked = ffm_pmapping_set_get_tracked_levels (set, &n_tracked);
  if (n_tracked > MAX_MEM || ffm_pmapping_set_get_n_einsums (set) != p->n_einsums)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "ffm: %u memories to track (at most %d) or a partial "
                   "pmapping set", n_tracked, MAX_MEM);
      join_problem_free (p);
      return NULL;
    }
  p->n_mem = n_tracked;
  for (guint m = 0; m < n_tracked; m++)
    p->mem_level[m] = tracked[m];

  n_tensors = ffm_workload_get_n_tensors (p->w);
  first = g_new (guint, MAX (n_tensors, 1));
  last = g_new0 (guint, MAX (n_tensors, 1));
  for (guint t = 0; t < n_tensors; t++)
    first[t] = NONE;
  for (guint x = 0; x < p->n_einsums; x++)
    {
      const FfmEinsum *e = ffm_workload_get_einsum (p->w, x);
      for (guint acc = 0; acc < e->n_accesses; acc++)
        {
          guint t = e->accesses[acc].tensor;
          first[t] = MIN (first[t], x);
          last[t] = MAX (last[t], x);
        }
    }

  p->steps = g_new0 (Step, MAX (p->n_einsums, 1));
  for (guint x = 0; x < p->n_einsums; x++)
    {
      Step *st = &p->steps[x];
      st->einsum = x;
      st->e = ffm_workload_get_einsum (p->w, x);
      st->pm = ffm_pmapping_set_lookup_einsum (set, x);
      st->before = g_array_new (FALSE, FALSE, sizeof (guint));
      st->live_after = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint t = 0; t < n_tensors; t++)
        {
          if (!(ffm_workload_get_tensor (p->w, t)->classes & FFM_TENSOR_SHARED))
            continue;
          if (first[t] < x && last[t] >= x && ffm_einsum_find_access (st->e, t) >= 0)
            g_array_append_val (st->before, t);
          if (first[t] <= x && last[t] > x)
            g_array_append_val (st->live_after, t);
        }
      if (st->live_after->len > MAX_LIVE)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                       "ffm: %u tensors live after Einsum %s (at most %d)",
                       st->live_after->len, st->e->name, MAX_LIVE);
          join_problem_free (p);
          return NULL;
        }
    }
  if (!read_all_units (p, error))
    {
      join_problem_free (p);
      return NULL;
    }
  p->rest_energy = g_new0 (double, MAX (p->n_einsums, 1));
  p->rest_latency = g_new0 (double, MAX (p->n_einsums, 1));
  for (guint x = p->n_einsums; x-- > 1; )
    {
      p->rest_energy[x - 1] = p->rest_energy[x]
        + (isfinite (p->steps[x].min_energy) ? p->steps[x].min_energy : 0);
      p->rest_latency[x - 1] = p->rest_latency[x]
        + (isfinite (p->steps[x].min_latency) ? p->steps[x].min_latency : 0);
    }
  p->mean_min_energy = g_new0 (double, MAX (p->n_einsums, 1));
  p->mean_min_latency = g_new0 (double, MAX (p->n_einsums, 1));
  {
    double e = 0, l = 0;
    for (guint x = 0; x < p->n_einsums; x++)
      {
        e += isfinite (p->steps[x].min_energy) ? p->steps[x].min_energy : 0;
        l += isfinite (p->steps[x].min_latency) ? p->steps[x].min_latency : 0;
        p->mean_min_energy[x] = e / (x + 1);
        p->mean_min_latency[x] = l / (x + 1);
      }
  }
  return p;
}

