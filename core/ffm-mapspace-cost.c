/* ffm-mapspace-cost.c: the cost of a state from the cached rows
 * (ffm-mapspace.h).
 *
 * Energy and latency are the rows' values summed in workload order from
 * zero, as the cost model sums its Einsums: the same doubles.
 *
 * Occupancy: while Einsum x runs, memory m holds (docs/ffm-search.md,
 * "Lifetimes"; the paper's reservation tree, §5.1)
 *   - everything x's own path reserves (T_x);
 *   - of every other Einsum y, the tiles it reserves above the loops x and
 *     y share: with D(x, y) = min(s_k) over the boundaries k between them
 *     (s_k the loops consecutive Einsums share), those at lifetime depth
 *     < D(x, y), i.e. P_y[D(x, y) - 1], without shared backing tiles;
 *   - the backing tile of a shared tensor t that x does not use, if x lies
 *     between t's first and last users, or outside them with t backed
 *     above the loops x shares with the nearest user (depth < D).
 * A tile of y at depth exactly D(x, y) sits directly above the split that
 * parts x and y (or inside y's branch) and lives only during y's side.
 * Summed naively this is O(n^2) per memory; two sweeps make it O(n x
 * depth): going right, V[i] = sum over y < x of P_y[min(D(x, y), i) - 1]
 * becomes V'[i] = V[min(i, s)] + P_x[min(i, s) - 1] across a boundary of
 * s shared loops, and likewise going left. Every occupancy is an integer
 * number of bits, so sums are exact in any order and the fit verdict is
 * the cost model's. */
#include "ffm-mapspace-private.h"

#include <math.h>
#include <string.h>

/* The cost and its scratch, in one block. */
typedef struct {
  FfmMapspaceCost pub;
  const MsGroup **groups;   /* [n] */
  const double **rows;      /* [n] */
  guint32 *spine;           /* [n + 1]: s_k, 0 at both ends */
} Cost;

FfmMapspaceCost *
ffm_mapspace_cost_new (const FfmMapspace *ms)
{
  Cost *c = g_new0 (Cost, 1);

  c->pub.n_memories = ms->n_mem;
  c->pub.n_einsums = ms->n_einsums;
  c->pub.occupancy = g_new0 (double, MAX ((gsize) ms->n_einsums * ms->n_mem, 1));
  c->groups = g_new0 (const MsGroup *, ms->n_einsums);
  c->rows = g_new0 (const double *, ms->n_einsums);
  c->spine = g_new0 (guint32, ms->n_einsums + 1);
  return &c->pub;
}

void
ffm_mapspace_cost_free (FfmMapspaceCost *cost)
{
  Cost *c = (Cost *) cost;

  if (c == NULL)
    return;
  g_free (c->pub.occupancy);
  g_free (c->groups);
  g_free (c->rows);
  g_free (c->spine);
  g_free (c);
}

double
ffm_mapspace_cost_get_objective (const FfmMapspaceCost *cost,
                                 FfmObjective objective)
{
  if (!cost->fits)
    return INFINITY;
  return ffm_objective_value (objective, cost->energy, cost->latency);
}

/* Adds @bits to v[from .. k]. */
static inline void
add_from (double *v, int from, guint k, double bits)
{
  for (int i = MAX (from, 0); i <= (int) k; i++)
    v[i] += bits;
}

static inline const MsTensor *
ref_tensor (const Cost *c, const MsTensorRef *r)
{
  return &c->groups[r->einsum]->tensors[r->index];
}

void
ms_evaluate_prefix (const FfmMapspace *ms, const FfmMapspaceChoice *state,
                    guint n, FfmMapspaceCost *cost)
{
  Cost *c = (Cost *) cost;
  const guint nm = ms->n_mem;
  double energy = 0, latency = 0;

  for (guint x = 0; x < n; x++)
    {
      const MsGroup *g = ms_group (ms, x, state[x].group);
      const double *row = g->values + (gsize) state[x].row * g->width;
      c->groups[x] = g;
      c->rows[x] = row;
      energy += row[0];
      latency += row[1];
    }
  c->spine[0] = c->spine[n] = 0;
  for (guint k = 1; k < n; k++)
    {
      guint32 s = 0;
      for (guint32 j = ms->spine.first[k]; j < ms->spine.first[k + 1]; j++)
        {
          const MsTensor *t = ref_tensor (c, &ms->spine.refs[j]);
          if (!t->persistent)
            s = MAX (s, t->depth);
        }
      c->spine[k] = s;
    }
  cost->energy = energy;
  cost->latency = latency;
  cost->fits = TRUE;
  cost->worst_memory = cost->worst_einsum = -1;

  for (guint m = 0; m < nm; m++)
    {
      double v[MS_DEPTHS], best_excess = -INFINITY, peak = 0;
      guint k = 0;
      int worst = -1;

      /* Going right: the left Einsums' tiles live during x. */
      v[0] = 0;
      for (guint x = 0; x < n; x++)
        {
          const MsGroup *g = c->groups[x];
          const double *P = c->rows[x] + 2 + m * (g->n_fused + 3);
          guint s = c->spine[x + 1];

          cost->occupancy[(gsize) x * nm + m] = v[k];
          if (x + 1 == n)
            break;
          for (int i = (int) s; i >= 0; i--)
            v[i] = v[MIN ((guint) i, k)] + P[i];
          k = s;
          for (guint32 j = ms->last_use.first[x]; j < ms->last_use.first[x + 1]; j++)
            {
              const MsTensor *t = ref_tensor (c, &ms->last_use.refs[j]);
              if (t->mem == (int) m)
                add_from (v, t->persistent ? 0 : (int) t->depth + 1, k, t->bits);
            }
        }
      /* Going left: the right Einsums' tiles; then the totals. */
      v[0] = 0;
      k = 0;
      for (guint x = n; x-- > 0; )
        {
          const MsGroup *g = c->groups[x];
          const double *P = c->rows[x] + 2 + m * (g->n_fused + 3);
          double occ = cost->occupancy[(gsize) x * nm + m] + v[k] + P[g->n_fused + 2];
          guint s = c->spine[x];

          for (guint32 j = ms->spanning.first[x]; j < ms->spanning.first[x + 1]; j++)
            {
              const MsTensor *t = ref_tensor (c, &ms->spanning.refs[j]);
              if (t->mem == (int) m)
                occ += t->bits;
            }
          cost->occupancy[(gsize) x * nm + m] = occ;
          peak = MAX (peak, occ);
          if (occ - g->size[m] > best_excess)
            {
              best_excess = occ - g->size[m];
              worst = (int) x;
            }
          if (x == 0)
            break;
          for (int i = (int) s; i >= 0; i--)
            v[i] = v[MIN ((guint) i, k)] + P[i];
          k = s;
          for (guint32 j = ms->first_use.first[x]; j < ms->first_use.first[x + 1]; j++)
            {
              const MsTensor *t = ref_tensor (c, &ms->first_use.refs[j]);
              if (t->mem == (int) m)
                add_from (v, t->persistent ? 0 : (int) t->depth + 1, k, t->bits);
            }
        }
      cost->peak[m] = peak;
      cost->excess[m] = best_excess;
      if (best_excess > 0)
        {
          if (cost->fits || best_excess > cost->excess[cost->worst_memory])
            {
              cost->worst_memory = (int) m;
              cost->worst_einsum = worst;
            }
          cost->fits = FALSE;
        }
    }
}

void
ffm_mapspace_evaluate (const FfmMapspace *ms, const FfmMapspaceChoice *state,
                       FfmMapspaceCost *cost)
{
  ms_evaluate_prefix (ms, state, ms->n_einsums, cost);
}

/* ---- The static lists ---- */

void
ms_lists_clear (MsLists *lists)
{
  g_clear_pointer (&lists->first, g_free);
  g_clear_pointer (&lists->refs, g_free);
}

/* The index of @tensor among the shared tensors of Einsum @x's groups. */
static int
tensor_index (const FfmMapspace *ms, guint x, guint tensor)
{
  const MsGroup *g = ms_group (ms, x, 0);

  for (guint t = 0; t < g->n_tensors; t++)
    if (g->tensors[t].tensor == tensor)
      return (int) t;
  return -1;
}

typedef struct {
  GArray *first;            /* of guint32 */
  GArray *refs;             /* of MsTensorRef */
} ListBuilder;

static void
list_open (ListBuilder *b)
{
  guint32 at = b->refs->len;

  g_array_append_val (b->first, at);
}

static void
list_add (ListBuilder *b, guint einsum, int index)
{
  MsTensorRef r = { einsum, (guint32) index };

  g_array_append_val (b->refs, r);
}

static void
list_close (ListBuilder *b, MsLists *out)
{
  guint32 at = b->refs->len;

  g_array_append_val (b->first, at);
  out->first = (guint32 *) g_array_free (b->first, FALSE);
  out->refs = (MsTensorRef *) g_array_free (b->refs, FALSE);
}

static void
list_init (ListBuilder *b)
{
  b->first = g_array_new (FALSE, FALSE, sizeof (guint32));
  b->refs = g_array_new (FALSE, FALSE, sizeof (MsTensorRef));
}

gboolean
ms_build_cost_lists (FfmMapspace *ms, GError **error)
{
  guint n = ms->n_einsums, nt = ffm_workload_get_n_tensors (ms->w);
  g_autofree guint *first = g_new (guint, MAX (nt, 1));
  g_autofree guint *last = g_new0 (guint, MAX (nt, 1));
  ListBuilder spine, first_use, last_use, spanning;

  /* Every group of an Einsum lists the same shared tensors, in order. */
  for (guint x = 0; x < n; x++)
    {
      const MsGroup *g0 = ms_group (ms, x, 0);
      for (guint i = ms->group_first[x] + 1; i < ms->group_first[x + 1]; i++)
        {
          const MsGroup *g = &ms->groups[i];
          gboolean same = g->n_tensors == g0->n_tensors;
          for (guint t = 0; t < g->n_tensors && same; t++)
            same = g->tensors[t].tensor == g0->tensors[t].tensor;
          if (!same)
            {
              g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                           "mapspace: the groups of Einsum %s share different "
                           "tensors (a bug)", ffm_workload_get_einsum (ms->w, x)->name);
              return FALSE;
            }
        }
    }
  for (guint t = 0; t < nt; t++)
    first[t] = G_MAXUINT;
  for (guint x = 0; x < n; x++)
    {
      const MsGroup *g = ms_group (ms, x, 0);
      for (guint t = 0; t < g->n_tensors; t++)
        {
          guint tensor = g->tensors[t].tensor;
          first[tensor] = MIN (first[tensor], x);
          last[tensor] = MAX (last[tensor], x);
        }
    }

  list_init (&spine);
  list_init (&first_use);
  list_init (&last_use);
  list_init (&spanning);
  for (guint x = 0; x <= n; x++)
    {
      list_open (&spine);
      for (guint t = 0; x < n && t < nt; t++)
        if (first[t] < x && x <= last[t])
          list_add (&spine, first[t], tensor_index (ms, first[t], t));
      if (x == n)
        break;
      list_open (&first_use);
      list_open (&last_use);
      list_open (&spanning);
      for (guint t = 0; t < nt; t++)
        {
          int here = first[t] <= x && x <= last[t] ? tensor_index (ms, x, t) : -1;
          if (first[t] == x)
            list_add (&first_use, x, here);
          if (last[t] == x && first[t] < x)
            list_add (&last_use, x, here);
          if (first[t] < x && x < last[t] && here < 0)
            list_add (&spanning, first[t], tensor_index (ms, first[t], t));
        }
    }
  list_close (&spine, &ms->spine);
  list_close (&first_use, &ms->first_use);
  list_close (&last_use, &ms->last_use);
  list_close (&spanning, &ms->spanning);
  return TRUE;
}
