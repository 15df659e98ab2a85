/* join.c: the FFM join (join.h).
 *
 * Step x joins the partial mappings of Einsums 0..x-1 (left groups) with
 * the pmappings of Einsum x (right units). For a left group with key K
 * (spine of S loops) and a right unit u:
 *   - matching: u shares K's S loops and agrees on every tensor K carries
 *     that Einsum x uses (found by hashing, ffm-join.h's rules), and passes
 *     the data-dependency and copy rules (plan_merge());
 *   - reservations, per tracked memory (docs/ffm-search.md): Einsum x
 *     hangs at depth s = S; the left's reservations at depth < s stay on
 *     the open path, the rest closes into a branch hanging at depth s; the
 *     right's reservations at depth < s also lie over the closed branches
 *     hanging deeper than them; a tile both sides hold above the split is
 *     counted once; a tile live across x that x does not use is reserved
 *     again at depth s;
 *   - the result goes to the group of its new key, folded to the loops the
 *     next Einsum must share; rows over capacity are dropped, then each
 *     group is Pareto-pruned on objectives and reservations (ffm-pareto.h).
 *
 * [1] shared/reference/ffm-spec.md §5.2-§5.6; the FFM paper §5-§6. */
#include "join.h"

#include <math.h>
#include <string.h>

#define NONE G_MAXUINT
#define MAX_LOOPS FFM_COMPAT_MAX_LOOPS
#define MAX_LIVE 64             /* tensors carried across one step */
#define MAX_MEM 16              /* tracked memories */

/* TUNING: relative slack of the clean pass's bound test: sums computed in
 * another order than the final one may differ in the last bits, and a row
 * must never be dropped for that (1e-12 is far above double rounding). */
#define BOUND_SLACK 1e-12

/* ---- Keys ---- */

typedef struct {
  guint64 count;
  guint64 tile;
  int spatial;
  int fanout_level;
  int fanout_dim;
} KeyLoop;

/* A tensor some joined Einsum used and some later one will use. */
typedef struct {
  guint tensor;
  int level;                    /* backing memory */
  int persistent;
  guint depth;                  /* fused loops above its backing node */
  double bits;                  /* backing tile */
  int ranks[MAX_LOOPS];         /* rank walked by spine loops < depth */
  int produced;                 /* its producer is joined */
  guint dep_depth;              /* loops the producer shares with the open Einsum */
  int dep_ranks[MAX_LOOPS];     /* the producer's rank per spine loop < dep_depth */
  guint last_use;               /* loops its latest user shares with the open Einsum */
  guint open_copy;              /* shallowest copy still over the open path, NONE */
} KeyLive;

typedef struct {
  guint n_spine;                /* loops the next Einsum must share */
  KeyLoop spine[MAX_LOOPS];
  guint n_live;
  KeyLive live[MAX_LIVE];       /* by tensor index */
} JoinKey;

static void
bytes_add (GByteArray *b, const void *data, gsize size)
{
  g_byte_array_append (b, data, (guint) size);
}

static void
key_loops_bytes (GByteArray *b, const KeyLoop *loops, guint n)
{
  bytes_add (b, &n, sizeof n);
  for (guint d = 0; d < n; d++)
    {
      bytes_add (b, &loops[d].count, sizeof (guint64));
      bytes_add (b, &loops[d].tile, sizeof (guint64));
      bytes_add (b, &loops[d].spatial, sizeof (int));
      bytes_add (b, &loops[d].fanout_level, sizeof (int));
      bytes_add (b, &loops[d].fanout_dim, sizeof (int));
    }
}

/* What a tensor's users must agree on (ffm-join.h). */
static void
live_backing_bytes (GByteArray *b, const KeyLive *l)
{
  bytes_add (b, &l->tensor, sizeof (guint));
  bytes_add (b, &l->level, sizeof (int));
  bytes_add (b, &l->persistent, sizeof (int));
  bytes_add (b, &l->depth, sizeof (guint));
  bytes_add (b, &l->bits, sizeof (double));
  bytes_add (b, l->ranks, sizeof (int) * l->depth);
}

static GBytes *
key_bytes (const JoinKey *k)
{
  GByteArray *b = g_byte_array_new ();

  key_loops_bytes (b, k->spine, k->n_spine);
  bytes_add (b, &k->n_live, sizeof (guint));
  for (guint i = 0; i < k->n_live; i++)
    {
      const KeyLive *l = &k->live[i];
      live_backing_bytes (b, l);
      bytes_add (b, &l->produced, sizeof (int));
      bytes_add (b, &l->dep_depth, sizeof (guint));
      if (l->produced)
        bytes_add (b, l->dep_ranks, sizeof (int) * l->dep_depth);
      bytes_add (b, &l->last_use, sizeof (guint));
      bytes_add (b, &l->open_copy, sizeof (guint));
    }
  return g_byte_array_free_to_bytes (b);
}

static const KeyLive *
key_find (const JoinKey *k, guint tensor)
{
  for (guint i = 0; i < k->n_live; i++)
    if (k->live[i].tensor == tensor)
      return &k->live[i];
  return NULL;
}

/* ---- Units: the right side of a step ---- */

typedef struct {
  guint group;                  /* index among the Einsum's groups */
  const FfmPmappingGroup *g;
  guint compute_level;
  guint copy[FFM_MAX_EINSUM_TENSORS]; /* per compat tensor: shallowest copy, NONE */
  int ranks[MAX_LOOPS][FFM_MAX_EINSUM_TENSORS]; /* plain rank per fused loop, access */
  double size[MAX_MEM];         /* capacity per tracked memory (0 off its path) */
  gboolean unbounded[FFM_MAX_EINSUM_TENSORS]; /* per compat tensor: backed in
                                                 an unbounded memory */
  guint n_fused;
  guint width;                  /* n_obj + n_mem * (n_fused + 2) */
  GArray *rows;                 /* of guint: row in the group */
  GArray *table;                /* of double: width per row */
} Unit;

typedef struct {
  guint einsum;
  const FfmEinsum *e;
  const FfmEinsumPmappings *pm;
  GArray *units;                /* of Unit */
  GHashTable *index;            /* match key -> GArray of guint (units) */
  GArray *before;               /* of guint: shared tensors it uses that an
                                   earlier Einsum used, sorted */
  GArray *live_after;           /* of guint: shared tensors used up to it and after, sorted */
  double min_energy;            /* over its rows */
  double min_latency;
} Step;

struct _JoinProblem {
  FfmPmappingSet *set;
  FfmWorkload *w;
  FfmArch *a;
  guint n_einsums;
  JoinObjectives objs;
  guint n_obj;                  /* objective columns: 1 or 2 */
  guint n_mem;
  guint mem_level[MAX_MEM];
  guint n_threads;
  Step *steps;
  double *rest_energy;          /* [n_einsums]: sum of minima after x */
  double *rest_latency;
};

static void
unit_clear (Unit *u)
{
  g_array_free (u->rows, TRUE);
  g_array_free (u->table, TRUE);
}

void
join_problem_free (JoinProblem *p)
{
  if (p == NULL)
    return;
  for (guint x = 0; p->steps != NULL && x < p->n_einsums; x++)
    {
      Step *st = &p->steps[x];
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
  g_free (p->rest_latency);
  g_free (p);
}

static guint
n_objectives (JoinObjectives objs)
{
  return objs == JOIN_BOTH ? 2 : 1;
}

/* The column of @g holding (@kind, @level, @depth), or -1. */
static int
find_column (const FfmPmappingGroup *g, FfmPmappingColumnKind kind,
             guint level, int depth)
{
  for (guint j = 0; j < g->n_columns; j++)
    if (g->columns[j].kind == kind
        && (kind != FFM_PMAPPING_COLUMN_RESERVATION
            || (g->columns[j].level == level && g->columns[j].depth == depth)))
      return (int) j;
  return -1;
}

/* The row of group @g, @row, as a unit row: objectives, then per memory
 * the cumulative reservations at depths -1..n_fused. */
static void
unit_row (const JoinProblem *p, const FfmPmappingGroup *g, guint row,
          guint n_fused, double *out)
{
  const double *v = g->values + (gsize) row * g->n_columns;
  guint k = 0;

  if (p->objs != JOIN_LATENCY)
    out[k++] = v[find_column (g, FFM_PMAPPING_COLUMN_ENERGY, 0, 0)];
  if (p->objs != JOIN_ENERGY)
    out[k++] = v[find_column (g, FFM_PMAPPING_COLUMN_LATENCY, 0, 0)];
  for (guint m = 0; m < p->n_mem; m++)
    {
      double last = 0;
      for (int d = -1; d <= (int) n_fused; d++)
        {
          int j = find_column (g, FFM_PMAPPING_COLUMN_RESERVATION, p->mem_level[m], d);
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
  /* A template without loops has no tiles to look up (the pool may be
   * empty): see docs/.join-requests.md. */
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

/* Copies of shared tensors in one row's pmapping (ffm-join.h). */
static gboolean
row_copies (const JoinProblem *p, const FfmEinsumPmappings *pm,
            const FfmPmappingGroup *g, guint row, guint *copy,
            guint *compute_level, GError **error)
{
  g_autoptr (GPtrArray) nodes = join_pmapping_path (pm, &g->refs[row]);
  g_autoptr (FfmJoinPmapping) jp = NULL;

  jp = ffm_join_pmapping_new (p->w, p->a, (const FfmMappingNode *const *) nodes->pdata,
                              nodes->len, error);
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

static void
unit_init (const JoinProblem *p, const Step *st, Unit *u, guint group,
           const FfmPmappingGroup *g, const guint *copy, guint compute_level,
           guint template_id)
{
  const FfmPmappingModel *model = ffm_einsum_pmappings_get_model (st->pm, template_id);

  memset (u, 0, sizeof *u);
  u->group = group;
  u->g = g;
  u->compute_level = compute_level;
  for (guint t = 0; t < FFM_MAX_EINSUM_TENSORS; t++)
    u->copy[t] = t < g->compat.n_tensors ? copy[t] : NONE;
  u->n_fused = g->compat.n_loops;
  for (guint d = 0; d < u->n_fused; d++)
    for (guint acc = 0; acc < FFM_MAX_EINSUM_TENSORS; acc++)
      u->ranks[d][acc] = acc < st->e->n_accesses
        ? ffm_join_plain_rank (p->w, st->e, acc, g->compat.loops[d].rank_var) : -1;
  for (guint m = 0; m < p->n_mem; m++)
    u->size[m] = ffm_pmapping_model_get_level_size (model, p->mem_level[m]);
  for (guint t = 0; t < g->compat.n_tensors; t++)
    u->unbounded[t] = ffm_join_memory_is_unbounded (p->a, g->compat.tensors[t].backing_level);
  u->width = p->n_obj + p->n_mem * (u->n_fused + 2);
  u->rows = g_array_new (FALSE, FALSE, sizeof (guint));
  u->table = g_array_new (FALSE, FALSE, sizeof (double));
}

static gboolean
read_units (JoinProblem *p, Step *st, GError **error)
{
  double row[2 + MAX_MEM * (MAX_LOOPS + 2)];

  st->units = g_array_new (FALSE, FALSE, sizeof (Unit));
  st->min_energy = st->min_latency = INFINITY;
  for (guint gi = 0; gi < ffm_einsum_pmappings_get_n_groups (st->pm); gi++)
    {
      const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (st->pm, gi);
      guint first = st->units->len;
      int je = find_column (g, FFM_PMAPPING_COLUMN_ENERGY, 0, 0);
      int jl = find_column (g, FFM_PMAPPING_COLUMN_LATENCY, 0, 0);

      if ((p->objs != JOIN_LATENCY && je < 0) || (p->objs != JOIN_ENERGY && jl < 0)
          || g->compat.n_loops > MAX_LOOPS)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                       "ffm: the pmappings of Einsum %s lack an objective column "
                       "(a bug)", st->e->name);
          return FALSE;
        }
      for (guint r = 0; r < g->n_rows; r++)
        {
          guint copy[FFM_MAX_EINSUM_TENSORS], compute_level;
          Unit *u;
          if (!row_copies (p, st->pm, g, r, copy, &compute_level, error))
            return FALSE;
          u = find_unit (st->units, first, gi, copy, compute_level, g->compat.n_tensors);
          if (u == NULL)
            {
              Unit nu;
              unit_init (p, st, &nu, gi, g, copy, compute_level, g->refs[r].template_id);
              g_array_append_val (st->units, nu);
              u = &g_array_index (st->units, Unit, st->units->len - 1);
            }
          unit_row (p, g, r, u->n_fused, row);
          g_array_append_val (u->rows, r);
          g_array_append_vals (u->table, row, u->width);
          if (je >= 0)
            st->min_energy = MIN (st->min_energy, g->values[(gsize) r * g->n_columns + je]);
          if (jl >= 0)
            st->min_latency = MIN (st->min_latency, g->values[(gsize) r * g->n_columns + jl]);
        }
    }
  return TRUE;
}

/* ---- Matching ---- */

/* The part of a key that the right unit must equal: the first @s spine
 * loops and the backing of the tensors @before. */
static GBytes *
match_bytes (guint s, const KeyLoop *loops, const KeyLive *const *tensors,
             guint n)
{
  GByteArray *b = g_byte_array_new ();

  key_loops_bytes (b, loops, s);
  for (guint i = 0; i < n; i++)
    live_backing_bytes (b, tensors[i]);
  return g_byte_array_free_to_bytes (b);
}

static void
compat_loop (const FfmCompatLoop *c, KeyLoop *k)
{
  k->count = c->count;
  k->tile = c->tile;
  k->spatial = c->spatial ? 1 : 0;
  k->fanout_level = c->fanout_level;
  k->fanout_dim = c->fanout_dim;
}

/* What a right unit offers for tensor @t of its compat: its backing, with
 * plain ranks; FALSE if a loop above the backing does not walk one rank. */
static gboolean
unit_live (const Unit *u, guint t, KeyLive *out)
{
  const FfmCompatTensor *ct = &u->g->compat.tensors[t];

  memset (out, 0, sizeof *out);
  out->tensor = ct->tensor;
  out->level = (int) ct->backing_level;
  out->persistent = ct->persistent ? 1 : 0;
  out->depth = ct->n_loops;
  out->bits = u->unbounded[t] ? 0 : ct->backing_bits;
  for (guint d = 0; d < ct->n_loops; d++)
    {
      out->ranks[d] = u->ranks[d][ct->access];
      if (out->ranks[d] < 0)
        return FALSE;
    }
  out->open_copy = NONE;
  return TRUE;
}

static int
compat_find (const FfmCompatibility *c, guint tensor)
{
  for (guint t = 0; t < c->n_tensors; t++)
    if (c->tensors[t].tensor == tensor)
      return (int) t;
  return -1;
}

static void
index_units (JoinProblem *p, Step *st)
{
  st->index = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                     (GDestroyNotify) g_bytes_unref,
                                     (GDestroyNotify) g_array_unref);
  for (guint i = 0; i < st->units->len; i++)
    {
      const Unit *u = &g_array_index (st->units, Unit, i);
      KeyLoop loops[MAX_LOOPS];
      KeyLive lives[FFM_MAX_EINSUM_TENSORS];
      const KeyLive *ptrs[FFM_MAX_EINSUM_TENSORS];
      gboolean ok = TRUE;

      for (guint d = 0; d < u->n_fused; d++)
        compat_loop (&u->g->compat.loops[d], &loops[d]);
      for (guint k = 0; k < st->before->len && ok; k++)
        {
          int t = compat_find (&u->g->compat, g_array_index (st->before, guint, k));
          ok = t >= 0 && unit_live (u, (guint) t, &lives[k]);
          ptrs[k] = &lives[k];
        }
      if (!ok)
        continue;       /* can never join what came before */
      for (guint s = 0; s <= u->n_fused; s++)
        {
          GBytes *key = match_bytes (s, loops, ptrs, st->before->len);
          GArray *list = g_hash_table_lookup (st->index, key);
          if (list == NULL)
            {
              list = g_array_new (FALSE, FALSE, sizeof (guint));
              g_hash_table_insert (st->index, g_bytes_ref (key), list);
            }
          g_array_append_val (list, i);
          g_bytes_unref (key);
        }
    }
}

/* The match key a left key @k presents to step @st. */
static GBytes *
left_match_bytes (const Step *st, const JoinKey *k)
{
  const KeyLive *ptrs[MAX_LIVE];

  for (guint i = 0; i < st->before->len; i++)
    {
      ptrs[i] = key_find (k, g_array_index (st->before, guint, i));
      if (ptrs[i] == NULL)
        return NULL;
    }
  return match_bytes (k->n_spine, k->spine, ptrs, st->before->len);
}

JoinProblem *
join_problem_new (FfmPmappingSet *set, FfmObjective objective,
                  guint n_threads, GError **error)
{
  JoinProblem *p = g_new0 (JoinProblem, 1);
  guint n_tensors, n_tracked;
  const guint *tracked;
  g_autofree guint *first = NULL, *last = NULL;

  p->set = set;
  p->w = ffm_pmapping_set_get_workload (set);
  p->a = ffm_pmapping_set_get_arch (set);
  p->n_einsums = ffm_workload_get_n_einsums (p->w);
  p->objs = objective == FFM_OBJECTIVE_ENERGY ? JOIN_ENERGY
    : objective == FFM_OBJECTIVE_LATENCY ? JOIN_LATENCY : JOIN_BOTH;
  p->n_obj = n_objectives (p->objs);
  p->n_threads = MAX (n_threads, 1);
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
  memcpy (p->mem_level, tracked, sizeof (guint) * n_tracked);

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
      if (!read_units (p, st, error))
        {
          join_problem_free (p);
          return NULL;
        }
      index_units (p, st);
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
  return p;
}

/* ---- Planning one merge ---- */

/* Everything the row arithmetic needs for one (left group, unit) pair. */
typedef struct {
  JoinKey key;                  /* the result's key */
  guint s;                      /* depth Einsum x hangs at (left spine) */
  double ded[MAX_MEM][MAX_LOOPS + 1]; /* [m][d + 1]: counted twice at depth <= d */
  double readd[MAX_MEM];        /* reserved again at depth s */
} Plan;

static int
mem_index (const JoinProblem *p, int level)
{
  for (guint m = 0; m < p->n_mem; m++)
    if ((int) p->mem_level[m] == level)
      return (int) m;
  return -1;
}

/* Checks a left tensor against the right unit that uses it (compat entry
 * @t), ffm-join.h's dependency and copy rules. */
static gboolean
check_live (const JoinProblem *p, const Step *st, const Unit *u, guint s,
            const KeyLive *l, guint t)
{
  const FfmCompatTensor *ct = &u->g->compat.tensors[t];

  if (l->produced && ct->access != st->e->output_access)
    {
      guint m = MIN (l->dep_depth, s);
      for (guint d = 0; d < m; d++)
        if (u->ranks[d][ct->access] < 0 || u->ranks[d][ct->access] != l->dep_ranks[d])
          return FALSE;
    }
  if (l->open_copy != NONE && l->open_copy < s)
    return FALSE;
  if (u->copy[t] != NONE && MIN (l->last_use, s) > u->copy[t])
    return FALSE;
  return TRUE;
}

/* The result key's entry for tensor @tensor, live after Einsum x. */
static gboolean
next_live (const Step *st, const Unit *u, const KeyLive *l, guint tensor,
           guint s, KeyLive *out)
{
  int t = compat_find (&u->g->compat, tensor);

  if (l != NULL)
    {
      *out = *l;
      out->dep_depth = MIN (l->dep_depth, s);
      out->last_use = t >= 0 ? NONE : MIN (l->last_use, s);
      out->open_copy = l->open_copy < s ? l->open_copy : NONE;
    }
  else
    {
      if (t < 0 || !unit_live (u, (guint) t, out))
        return FALSE;
      out->produced = u->g->compat.tensors[t].access == st->e->output_access;
      out->dep_depth = out->produced ? NONE : 0;
      out->last_use = NONE;
    }
  if (t >= 0 && u->copy[t] != NONE)
    out->open_copy = MIN (out->open_copy, u->copy[t]);
  return TRUE;
}

/* Caps depth fields at the new spine @S (every later comparison is with
 * depths <= S) and fills the producer's ranks for a tensor x produces. */
static void
normalize_live (const Unit *u, const Step *st, guint S, KeyLive *l)
{
  if (l->produced && l->dep_depth == NONE)
    {
      l->dep_depth = S;
      for (guint d = 0; d < S; d++)
        l->dep_ranks[d] = u->ranks[d][st->e->output_access];
    }
  l->dep_depth = MIN (l->dep_depth, S);
  if (!l->produced)
    l->dep_depth = 0;
  l->last_use = MIN (l->last_use, S);
  if (l->open_copy != NONE && l->open_copy >= S)
    l->open_copy = NONE;
}

static gboolean
plan_merge (const JoinProblem *p, const Step *st, const JoinKey *k,
            const Unit *u, Plan *plan)
{
  const FfmCompatibility *c = &u->g->compat;
  JoinKey *nk = &plan->key;
  guint s = k->n_spine, S = 0;

  if (c->n_loops < s)
    return FALSE;
  plan->s = s;
  memset (plan->ded, 0, sizeof plan->ded);
  memset (plan->readd, 0, sizeof plan->readd);
  for (guint i = 0; i < k->n_live; i++)
    {
      const KeyLive *l = &k->live[i];
      int t = compat_find (c, l->tensor);
      int m = mem_index (p, l->level);
      if (t >= 0)
        {
          int depth = l->persistent ? -1 : (int) l->depth;
          if (!check_live (p, st, u, s, l, (guint) t))
            return FALSE;
          if (m >= 0 && depth < (int) s)
            for (int d = depth; d < (int) s; d++)
              plan->ded[m][d + 1] += l->bits;
        }
      else if (m >= 0 && !l->persistent && l->depth == s)
        plan->readd[m] += l->bits;
    }
  /* The new key: the tensors live after x, the loops they need. */
  nk->n_live = st->live_after->len;
  for (guint i = 0; i < nk->n_live; i++)
    {
      guint tensor = g_array_index (st->live_after, guint, i);
      if (!next_live (st, u, key_find (k, tensor), tensor, s, &nk->live[i]))
        return FALSE;
      if (!nk->live[i].persistent)
        S = MAX (S, nk->live[i].depth);
    }
  if (S > c->n_loops)
    return FALSE;
  nk->n_spine = S;
  for (guint d = 0; d < S; d++)
    compat_loop (&c->loops[d], &nk->spine[d]);
  for (guint i = 0; i < nk->n_live; i++)
    normalize_live (u, st, S, &nk->live[i]);
  return TRUE;
}

/* ---- Rows ---- */

static guint
row_width (const JoinProblem *p, guint spine)
{
  return p->n_obj + p->n_mem * (2 * spine + 3);
}

/* Provenance of a row: its left row (by id in the previous step's
 * history) and its right row (unit, row in the unit). */
typedef struct {
  guint32 parent;
  guint32 unit;
  guint32 urow;
} Prov;

typedef struct {
  JoinKey *key;                 /* owned */
  guint width;
  GArray *values;               /* of double */
  GArray *prov;                 /* of Prov */
  GArray *ids;                  /* of guint32: history ids after pruning */
} Group;

static void
group_free (Group *g)
{
  if (g == NULL)
    return;
  g_free (g->key);
  g_array_free (g->values, TRUE);
  if (g->prov != NULL)
    g_array_free (g->prov, TRUE);
  if (g->ids != NULL)
    g_array_free (g->ids, TRUE);
  g_free (g);
}

/* Lower bound test of the clean pass: TRUE if a row with these objectives
 * (so far) can still reach the bound. */
static gboolean
may_beat_bound (const JoinProblem *p, const JoinPassOptions *o, guint x,
                const double *obj)
{
  double e = 0, l = 0;

  if (!o->bounded)
    return TRUE;
  if (p->objs != JOIN_LATENCY)
    e = obj[0] + p->rest_energy[x];
  if (p->objs != JOIN_ENERGY)
    l = obj[p->n_obj - 1] + p->rest_latency[x];
  switch (o->objective)
    {
    case FFM_OBJECTIVE_ENERGY:
      return e <= o->bound * (1 + BOUND_SLACK);
    case FFM_OBJECTIVE_LATENCY:
      return l <= o->bound * (1 + BOUND_SLACK);
    case FFM_OBJECTIVE_EDP:
      return e * l <= o->bound * (1 + BOUND_SLACK);
    case FFM_OBJECTIVE_PARETO:
    default:
      for (guint i = 0; i < o->n_front; i++)
        if (o->front[2 * i] * (1 + BOUND_SLACK) <= e
            && o->front[2 * i + 1] * (1 + BOUND_SLACK) <= l)
          return FALSE;
      return TRUE;
    }
}

/* One combined row; FALSE if it does not fit. */
static gboolean
combine_row (const JoinProblem *p, const Plan *plan, const Unit *u,
             const double *L, const double *R, double *N)
{
  guint s = plan->s, S = plan->key.n_spine, F = u->n_fused;
  guint lw = 2 * s + 3, nw = 2 * S + 3, rw = F + 2;

  for (guint k = 0; k < p->n_obj; k++)
    N[k] = L[k] + R[k];
  for (guint m = 0; m < p->n_mem; m++)
    {
      const double *rl = L + p->n_obj + m * lw, *ll = rl + s + 2;
      const double *c = R + p->n_obj + m * rw, *ded = plan->ded[m];
      double *rn = N + p->n_obj + m * nw, *ln = rn + S + 2;
      double inh = rl[s], dd = ded[s], readd = plan->readd[m];
      double closed, total, fold;

      /* r[d] for d = -1 .. S-1 (index d + 1), then the open total. */
      for (guint i = 0; i <= S; i++)
        rn[i] = i <= s ? rl[i] + c[i] - ded[i] : inh + c[i] - dd + readd;
      total = inh + c[F + 1] - dd + readd - u->size[m];
      if (total > 0)
        return FALSE;
      rn[S + 1] = total;
      /* Closed branches: at depth d < s, and the left's open branch at s. */
      closed = MAX (ll[s], rl[s + 1]) + c[s] - ded[s];
      if (closed > 0)
        return FALSE;
      fold = -INFINITY;
      for (guint d = 0; d <= s; d++)
        {
          double v = d < s ? ll[d] + c[d] - ded[d] : closed;
          if (v > 0)
            return FALSE;
          if (d < S)
            ln[d] = v;
          else
            fold = MAX (fold, v);
        }
      for (guint d = s + 1; d < S; d++)
        ln[d] = -INFINITY;
      ln[S] = S <= s ? fold : -INFINITY;
    }
  return TRUE;
}

/* ---- One step ---- */

typedef struct {
  GPtrArray *groups;            /* of Group* (left side, after pruning) */
} Side;

struct _JoinResult {
  JoinProblem *problem;         /* borrowed */
  GArray **history;             /* [n_einsums] of Prov */
  guint64 *survivors;           /* [n_einsums] */
  GArray *final;                /* of double: n_obj per final row */
  GArray *final_ids;            /* of guint32: history ids at the last step */
  double seconds;
};

void
join_result_free (JoinResult *r)
{
  if (r == NULL)
    return;
  for (guint x = 0; r->history != NULL && x < r->problem->n_einsums; x++)
    if (r->history[x] != NULL)
      g_array_free (r->history[x], TRUE);
  g_free (r->history);
  g_free (r->survivors);
  if (r->final != NULL)
    g_array_free (r->final, TRUE);
  if (r->final_ids != NULL)
    g_array_free (r->final_ids, TRUE);
  g_free (r);
}

static Group *
group_new (const JoinKey *key, guint width)
{
  Group *g = g_new0 (Group, 1);

  g->key = g_memdup2 (key, sizeof *key);
  g->width = width;
  g->values = g_array_new (FALSE, FALSE, sizeof (double));
  g->prov = g_array_new (FALSE, FALSE, sizeof (Prov));
  return g;
}

/* Pareto-prunes @g (objectives in boxes of ratio 1 + @epsilon when
 * @epsilon > 0). */
static void
prune_group (const JoinProblem *p, Group *g, double epsilon)
{
  guint n = g->prov->len, w = g->width, kept_n;
  g_autofree guint *kept = g_new (guint, MAX (n, 1));
  double *v = (double *) g->values->data;

  if (n <= 1)
    return;
  if (epsilon > 0)
    {
      g_autofree double *boxed = g_memdup2 (v, sizeof (double) * n * w);
      double scale = 1 / log1p (epsilon);
      for (guint r = 0; r < n; r++)
        for (guint k = 0; k < p->n_obj; k++)
          {
            double x = boxed[(gsize) r * w + k];
            boxed[(gsize) r * w + k] = x > 0 ? floor (log (x) * scale) : -INFINITY;
          }
      kept_n = ffm_pareto_prune (boxed, n, w, kept);
    }
  else
    kept_n = ffm_pareto_prune (v, n, w, kept);   /* moves survivors itself */
  for (guint i = 0; i < kept_n; i++)
    if (kept[i] != i)
      {
        if (epsilon > 0)
          memmove (v + (gsize) i * w, v + (gsize) kept[i] * w, sizeof (double) * w);
        g_array_index (g->prov, Prov, i) = g_array_index (g->prov, Prov, kept[i]);
      }
  g_array_set_size (g->values, (gsize) kept_n * w);
  g_array_set_size (g->prov, kept_n);
}

typedef struct {
  const JoinProblem *p;
  double epsilon;
} PruneJob;

static void
prune_one (gpointer data, gpointer user_data)
{
  PruneJob *job = user_data;
  prune_group (job->p, data, job->epsilon);
}

static void
prune_all (const JoinProblem *p, GPtrArray *groups, double epsilon)
{
  PruneJob job = { p, epsilon };
  GThreadPool *pool;

  if (p->n_threads <= 1 || groups->len <= 1)
    {
      for (guint i = 0; i < groups->len; i++)
        prune_group (p, g_ptr_array_index (groups, i), epsilon);
      return;
    }
  pool = g_thread_pool_new (prune_one, &job, (gint) p->n_threads, TRUE, NULL);
  for (guint i = 0; i < groups->len; i++)
    g_thread_pool_push (pool, g_ptr_array_index (groups, i), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
}

/* Whether a group can meet any unit of the next step at all. */
static gboolean
has_future (const JoinProblem *p, guint x, const JoinKey *k)
{
  g_autoptr (GBytes) key = NULL;

  if (x + 1 >= p->n_einsums)
    return TRUE;
  key = left_match_bytes (&p->steps[x + 1], k);
  return key != NULL && g_hash_table_contains (p->steps[x + 1].index, key);
}

/* Joins step @x: @left (groups with history ids) with the units of Einsum
 * x, into new groups. */
static GPtrArray *
join_step (const JoinProblem *p, guint x, GPtrArray *left,
           const JoinPassOptions *o)
{
  const Step *st = &p->steps[x];
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) group_free);
  g_autoptr (GHashTable) by_key = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                         (GDestroyNotify) g_bytes_unref,
                                                         NULL);
  Plan *plan = g_new (Plan, 1);
  double row[2 + MAX_MEM * (2 * MAX_LOOPS + 3)];

  for (guint gi = 0; gi < left->len; gi++)
    {
      const Group *lg = g_ptr_array_index (left, gi);
      g_autoptr (GBytes) mkey = left_match_bytes (st, lg->key);
      GArray *cands = mkey != NULL ? g_hash_table_lookup (st->index, mkey) : NULL;
      guint n_left = lg->ids->len;

      for (guint ci = 0; cands != NULL && ci < cands->len; ci++)
        {
          guint ui = g_array_index (cands, guint, ci);
          const Unit *u = &g_array_index (st->units, Unit, ui);
          g_autoptr (GBytes) nkey = NULL;
          Group *ng;
          guint nw;

          if (u->n_fused < lg->key->n_spine || !plan_merge (p, st, lg->key, u, plan))
            continue;
          if (!has_future (p, x, &plan->key))
            continue;
          nkey = key_bytes (&plan->key);
          ng = g_hash_table_lookup (by_key, nkey);
          if (ng == NULL)
            {
              ng = group_new (&plan->key, row_width (p, plan->key.n_spine));
              g_ptr_array_add (out, ng);
              g_hash_table_insert (by_key, g_steal_pointer (&nkey), ng);
            }
          nw = ng->width;
          for (guint a = 0; a < n_left; a++)
            {
              const double *L = (const double *) lg->values->data + (gsize) a * lg->width;
              for (guint b = 0; b < u->rows->len; b++)
                {
                  const double *R = (const double *) u->table->data + (gsize) b * u->width;
                  Prov pv;
                  for (guint k = 0; k < p->n_obj; k++)
                    row[k] = L[k] + R[k];
                  if (!may_beat_bound (p, o, x, row)
                      || !combine_row (p, plan, u, L, R, row))
                    continue;
                  g_array_append_vals (ng->values, row, nw);
                  pv.parent = g_array_index (lg->ids, guint32, a);
                  pv.unit = ui;
                  pv.urow = b;
                  g_array_append_val (ng->prov, pv);
                }
            }
        }
    }
  g_free (plan);
  if (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    {
      guint64 rows = 0;
      for (guint i = 0; i < out->len; i++)
        rows += ((Group *) g_ptr_array_index (out, i))->prov->len;
      g_debug ("step %u (%s): %u left groups -> %u groups, %" G_GUINT64_FORMAT
               " rows before pruning", x, st->e->name, left->len, out->len, rows);
    }
  /* Drop empty groups, keep the order. */
  for (guint i = 0; i < out->len; )
    if (((Group *) g_ptr_array_index (out, i))->prov->len == 0)
      g_ptr_array_remove_index (out, i);
    else
      i++;
  prune_all (p, out, o->epsilon);
  return out;
}

/* The virtual left side of step 0: one empty partial mapping. */
static GPtrArray *
initial_side (const JoinProblem *p)
{
  GPtrArray *left = g_ptr_array_new_with_free_func ((GDestroyNotify) group_free);
  JoinKey *k = g_new0 (JoinKey, 1);
  Group *g = group_new (k, row_width (p, 0));
  guint32 id = 0;

  for (guint i = 0; i < p->n_obj; i++)
    {
      double zero = 0;
      g_array_append_val (g->values, zero);
    }
  for (guint m = 0; m < p->n_mem; m++)
    {
      double r = 0, open = -INFINITY, l = -INFINITY;
      g_array_append_val (g->values, r);
      g_array_append_val (g->values, open);
      g_array_append_val (g->values, l);
    }
  g->ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_append_val (g->ids, id);
  g_free (k);
  g_ptr_array_add (left, g);
  return left;
}

JoinResult *
join_run (JoinProblem *p, const JoinPassOptions *o, GError **error)
{
  g_autoptr (GPtrArray) left = initial_side (p);
  JoinResult *r = g_new0 (JoinResult, 1);
  gint64 start = g_get_monotonic_time ();
  gboolean failed = FALSE;

  r->problem = p;
  r->history = g_new0 (GArray *, MAX (p->n_einsums, 1));
  r->survivors = g_new0 (guint64, MAX (p->n_einsums, 1));
  for (guint x = 0; x < p->n_einsums; x++)
    {
      GPtrArray *next = join_step (p, x, left, o);
      GArray *hist = g_array_new (FALSE, FALSE, sizeof (Prov));

      for (guint i = 0; i < next->len; i++)
        {
          Group *g = g_ptr_array_index (next, i);
          g->ids = g_array_sized_new (FALSE, FALSE, sizeof (guint32), g->prov->len);
          for (guint k = 0; k < g->prov->len; k++)
            {
              guint32 id = hist->len;
              g_array_append_val (hist, g_array_index (g->prov, Prov, k));
              g_array_append_val (g->ids, id);
            }
          g_array_free (g->prov, TRUE);
          g->prov = NULL;
        }
      r->history[x] = hist;
      r->survivors[x] = hist->len;
      g_ptr_array_unref (left);
      left = next;
      if (o->progress != NULL)
        o->progress ((double) (x + 1) / p->n_einsums, o->phase, o->progress_data);
      if (hist->len == 0)
        {
          /* A bounded pass may prune everything: the bound was optimal. */
          if (!o->bounded)
            {
              g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                           "no fused mapping of %s fits %s: nothing joins or "
                           "fits once Einsum %s is added",
                           ffm_workload_get_name (p->w), ffm_arch_get_name (p->a),
                           p->steps[x].e->name);
              failed = TRUE;
            }
          break;
        }
    }
  if (failed)
    {
      join_result_free (r);
      return NULL;
    }
  r->final = g_array_new (FALSE, FALSE, sizeof (double));
  r->final_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; p->n_einsums > 0 && r->survivors[p->n_einsums - 1] > 0
       && i < left->len; i++)
    {
      Group *g = g_ptr_array_index (left, i);
      for (guint k = 0; k < g->ids->len; k++)
        {
          g_array_append_vals (r->final, (double *) g->values->data + (gsize) k * g->width,
                               p->n_obj);
          g_array_append_val (r->final_ids, g_array_index (g->ids, guint32, k));
        }
    }
  r->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  return r;
}

/* ---- Reading results ---- */

const guint64 *
join_result_get_survivors (const JoinResult *r, guint *n_steps)
{
  *n_steps = r->problem->n_einsums;
  return r->survivors;
}

double
join_result_get_seconds (const JoinResult *r)
{
  return r->seconds;
}

guint
join_result_get_n_final (const JoinResult *r)
{
  return r->final_ids->len;
}

void
join_result_get_final (const JoinResult *r, guint index, double *energy,
                       double *latency)
{
  const JoinProblem *p = r->problem;
  const double *v = (const double *) r->final->data + (gsize) index * p->n_obj;

  *energy = p->objs != JOIN_LATENCY ? v[0] : 0;
  *latency = p->objs != JOIN_ENERGY ? v[p->n_obj - 1] : 0;
}

static double
final_value (const JoinResult *r, FfmObjective objective, guint i)
{
  double e, l;

  join_result_get_final (r, i, &e, &l);
  switch (objective)
    {
    case FFM_OBJECTIVE_ENERGY:
      return e;
    case FFM_OBJECTIVE_LATENCY:
      return l;
    case FFM_OBJECTIVE_EDP:
    case FFM_OBJECTIVE_PARETO:
    default:
      return e * l;
    }
}

int
join_result_pick (const JoinResult *r, FfmObjective objective)
{
  int best = -1;
  double best_v = INFINITY;

  for (guint i = 0; i < join_result_get_n_final (r); i++)
    {
      double v = final_value (r, objective, i);
      if (best < 0 || v < best_v)
        {
          best = (int) i;
          best_v = v;
        }
    }
  return best;
}

typedef struct {
  const JoinResult *r;
} FrontSort;

static int
compare_energy_latency (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const JoinResult *r = data;
  guint a = *(const guint *) pa, b = *(const guint *) pb;
  double ea, la, eb, lb;

  join_result_get_final (r, a, &ea, &la);
  join_result_get_final (r, b, &eb, &lb);
  if (ea != eb)
    return ea < eb ? -1 : 1;
  if (la != lb)
    return la < lb ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);
}

GArray *
join_result_pick_front (const JoinResult *r)
{
  guint n = join_result_get_n_final (r);
  g_autofree guint *order = g_new (guint, MAX (n, 1));
  GArray *front = g_array_new (FALSE, FALSE, sizeof (guint));
  double best_l = INFINITY, last_e = -INFINITY;

  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n, sizeof (guint), compare_energy_latency,
                     (gpointer) r);
  /* Energy ascending: a point is on the front iff its latency is below
   * every latency seen so far (equal points: the first). */
  for (guint k = 0; k < n; k++)
    {
      double e, l;
      join_result_get_final (r, order[k], &e, &l);
      if (l < best_l)
        {
          g_array_append_val (front, order[k]);
          best_l = l;
          last_e = e;
        }
    }
  (void) last_e;
  return front;
}

void
join_result_get_choice (const JoinResult *r, guint index, guint einsum,
                        guint *group, FfmPmappingRef *ref)
{
  const JoinProblem *p = r->problem;
  guint32 id = g_array_index (r->final_ids, guint32, index);

  for (guint x = p->n_einsums; x-- > 0; )
    {
      const Prov *pv = &g_array_index (r->history[x], Prov, id);
      if (x == einsum)
        {
          const Unit *u = &g_array_index (p->steps[x].units, Unit, pv->unit);
          guint row = g_array_index (u->rows, guint, pv->urow);
          *group = u->group;
          *ref = u->g->refs[row];
          return;
        }
      id = pv->parent;
    }
}
