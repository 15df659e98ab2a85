/* ffm-mapspace-walk.c: checking, drawing and changing states
 * (ffm-mapspace.h).
 *
 * A state is compatible iff its groups are the labels of a path of the
 * graph (ffm-mapspace-graph.c), so checking is one edge lookup per Einsum.
 * Draws walk the graph choosing each edge with the probability of its
 * target's share of the node's completions, which makes every compatible
 * combination of groups equally likely. A change fixes one Einsum's group
 * and finds, by one backward pass over the graph, the fewest other groups
 * to change; ties are drawn at random on the way forward. */
#include "ffm-mapspace-private.h"

#include <math.h>
#include <string.h>

FfmMapspaceWorkspace *
ffm_mapspace_workspace_new (FfmMapspace *ms)
{
  FfmMapspaceWorkspace *ws = g_new0 (FfmMapspaceWorkspace, 1);
  guint n = ms->n_einsums;

  ws->ms = ffm_mapspace_ref (ms);
  ws->path = g_new0 (guint32, n + 1);
  ws->best = g_new0 (guint32, MAX (ms->n_nodes, 1));
  ws->trial = g_new0 (FfmMapspaceChoice, n);
  ws->search = g_new0 (SearchLevel, n + 1);
  {
    guint most = 1;
    for (guint x = 0; x < n; x++)
      most = MAX (most, ffm_mapspace_get_n_groups (ms, x));
    ws->cands = g_new (guint32, most);
  }
  ws->cost = ffm_mapspace_cost_new (ms);
  return ws;
}

void
ffm_mapspace_workspace_free (FfmMapspaceWorkspace *ws)
{
  if (ws == NULL)
    return;
  g_free (ws->path);
  g_free (ws->best);
  g_free (ws->trial);
  g_free (ws->search);
  g_free (ws->cands);
  ffm_mapspace_cost_free (ws->cost);
  ffm_mapspace_unref (ws->ms);
  g_free (ws);
}

/* ---- Checking ---- */

/* Walks @state from the start; returns the Einsum whose choice has no
 * edge (n when every one has), filling path[0 .. that Einsum]. */
static guint
walk (const FfmMapspace *ms, const FfmMapspaceChoice *state, guint32 *path)
{
  guint32 v = 0;

  for (guint x = 0; x < ms->n_einsums; x++)
    {
      guint64 e;
      path[x] = v;
      if (state[x].group >= ffm_mapspace_get_n_groups (ms, x)
          || state[x].row >= ms_group (ms, x, state[x].group)->n_rows)
        return x;
      e = ms_find_edge (ms, v, state[x].group);
      if (e == G_MAXUINT64)
        return x;
      v = ms->edge_target[e];
    }
  path[ms->n_einsums] = v;
  return ms->n_einsums;
}

gboolean
ffm_mapspace_check (const FfmMapspace *ms, const FfmMapspaceChoice *state,
                    guint *bad_einsum)
{
  guint32 v = 0;

  g_return_val_if_fail (ms != NULL && state != NULL, FALSE);
  for (guint x = 0; x < ms->n_einsums; x++)
    {
      guint64 e = G_MAXUINT64;
      if (state[x].group < ffm_mapspace_get_n_groups (ms, x)
          && state[x].row < ms_group (ms, x, state[x].group)->n_rows)
        e = ms_find_edge (ms, v, state[x].group);
      if (e == G_MAXUINT64)
        {
          if (bad_einsum != NULL)
            *bad_einsum = x;
          return FALSE;
        }
      v = ms->edge_target[e];
    }
  return TRUE;
}

/* ---- Drawing ---- */

static guint32
random_row (GRand *rand, const MsGroup *g)
{
  return (guint32) g_rand_int_range (rand, 0, (gint32) g->n_rows);
}

/* An edge of node @v drawn with its probability. */
static guint64
draw_edge (const FfmMapspace *ms, GRand *rand, guint32 v)
{
  guint64 lo = ms->edge_first[v], hi = ms->edge_first[v + 1] - 1;
  double r = g_rand_double (rand) * ms->edge_cum[hi];

  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (ms->edge_cum[mid] > r)
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}

void
ffm_mapspace_sample (FfmMapspaceWorkspace *ws, GRand *rand,
                     FfmMapspaceChoice *state)
{
  const FfmMapspace *ms = ws->ms;
  guint32 v = 0;

  for (guint x = 0; x < ms->n_einsums; x++)
    {
      guint64 e = draw_edge (ms, rand, v);
      state[x].group = ms->edge_group[e];
      state[x].row = random_row (rand, ms_group (ms, x, state[x].group));
      v = ms->edge_target[e];
    }
}

/* ---- Alternatives and changes ---- */

/* TRUE if the choices of @state after Einsum @x - 1 follow from node @v. */
static gboolean
completes (const FfmMapspace *ms, const FfmMapspaceChoice *state, guint x,
           guint32 v)
{
  for (; x < ms->n_einsums; x++)
    {
      guint64 e = ms_find_edge (ms, v, state[x].group);
      if (e == G_MAXUINT64)
        return FALSE;
      v = ms->edge_target[e];
    }
  return TRUE;
}

guint
ffm_mapspace_list_alternatives (FfmMapspaceWorkspace *ws,
                                const FfmMapspaceChoice *state, guint einsum,
                                guint *groups)
{
  const FfmMapspace *ms = ws->ms;
  guint n = 0;
  guint32 v;

  g_return_val_if_fail (einsum < ms->n_einsums, 0);
  if (walk (ms, state, ws->path) < einsum)
    return 0;
  v = ws->path[einsum];
  for (guint64 e = ms->edge_first[v]; e < ms->edge_first[v + 1]; e++)
    if (completes (ms, state, einsum + 1, ms->edge_target[e]))
      groups[n++] = ms->edge_group[e];
  return n;
}

gboolean
ffm_mapspace_change (FfmMapspaceWorkspace *ws, GRand *rand,
                     FfmMapspaceChoice *state, guint einsum, guint group,
                     guint row, guint *n_changed)
{
  const FfmMapspace *ms = ws->ms;
  guint n = ms->n_einsums, changed = 0;
  guint32 *best = ws->best, v;
  FfmMapspaceChoice *trial = ws->trial;

  g_return_val_if_fail (einsum < n, FALSE);
  if (group >= ffm_mapspace_get_n_groups (ms, einsum)
      || !ms_group (ms, einsum, group)->usable
      || row >= ms_group (ms, einsum, group)->n_rows)
    return FALSE;
  ffm_mapspace_state_copy (ms, trial, state);
  trial[einsum].group = group;
  trial[einsum].row = row;
  if (!ffm_mapspace_check (ms, trial, NULL))
    {
      /* Fewest changed groups from each node to the end, Einsum @einsum
       * held at @group. */
      for (guint32 u = ms->node_first[n]; u < ms->node_first[n + 1]; u++)
        best[u] = 0;
      for (guint x = n; x-- > 0; )
        for (guint32 u = ms->node_first[x]; u < ms->node_first[x + 1]; u++)
          {
            guint32 b = MS_NONE;
            for (guint64 e = ms->edge_first[u]; e < ms->edge_first[u + 1]; e++)
              {
                guint32 g = ms->edge_group[e], t = best[ms->edge_target[e]];
                if ((x == einsum && g != group) || t == MS_NONE)
                  continue;
                b = MIN (b, t + (x != einsum && g != state[x].group));
              }
            best[u] = b;
          }
      if (best[0] == MS_NONE)
        return FALSE;
      v = 0;
      for (guint x = 0; x < n; x++)
        {
          guint64 pick = G_MAXUINT64;
          guint ties = 0;
          for (guint64 e = ms->edge_first[v]; e < ms->edge_first[v + 1]; e++)
            {
              guint32 g = ms->edge_group[e], t = best[ms->edge_target[e]];
              guint32 c = x != einsum && g != state[x].group;
              if ((x == einsum && g != group) || t == MS_NONE || t + c != best[v])
                continue;
              if (g_rand_int_range (rand, 0, (gint32) ++ties) == 0)
                pick = e;
            }
          g_assert (pick != G_MAXUINT64);
          if (x != einsum && ms->edge_group[pick] != state[x].group)
            {
              trial[x].group = ms->edge_group[pick];
              trial[x].row = random_row (rand, ms_group (ms, x, trial[x].group));
              changed++;
            }
          v = ms->edge_target[pick];
        }
    }
  ffm_mapspace_state_copy (ms, state, trial);
  if (n_changed != NULL)
    *n_changed = changed;
  return TRUE;
}

/* ---- Random valid states ---- */

static gboolean
search_fit (FfmMapspaceWorkspace *ws, GRand *rand, guint64 max_nodes,
            FfmMapspaceChoice *state, guint64 *visited, GError **error)
{
  const FfmMapspace *ms = ws->ms;
  guint n = ms->n_einsums, x = 0;
  SearchLevel *lv = ws->search;
  FfmMapspaceChoice *trial = ws->trial;
  guint64 overflows[MS_MAX_MEM] = { 0 };

  lv[0].node = 0;
  lv[0].edge = lv[0].row = 0;
  lv[0].edge_offset = g_rand_int (rand);
  lv[0].row_offset = g_rand_int (rand);
  for (;;)
    {
      SearchLevel *l = &lv[x];
      guint64 first = ms->edge_first[l->node], deg = ms->edge_first[l->node + 1] - first;
      guint64 e;
      const MsGroup *g;

      if (l->edge >= deg)
        {
          if (x == 0)
            {
              guint worst = 0;
              for (guint m = 1; m < ms->n_mem; m++)
                if (overflows[m] > overflows[worst])
                  worst = m;
              g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                           "no fused mapping of %s fits %s in this mapspace: "
                           "every compatible choice of pmappings overflows %s",
                           ffm_workload_get_name (ms->w), ffm_arch_get_name (ms->a),
                           ms->n_mem > 0
                           ? ffm_arch_get_level (ms->a, ms->mem_level[worst])->name
                           : "a memory");
              return FALSE;
            }
          lv[--x].row++;
          continue;
        }
      e = first + (l->edge_offset + l->edge) % deg;
      g = ms_group (ms, x, ms->edge_group[e]);
      if (l->row >= g->n_rows)
        {
          l->edge++;
          l->row = 0;
          l->row_offset = g_rand_int (rand);
          continue;
        }
      if (max_nodes > 0 && *visited >= max_nodes)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_TOO_LARGE,
                       "no fitting fused mapping of %s on %s found after trying "
                       "%" G_GUINT64_FORMAT " partial choices of pmappings "
                       "(the search stopped there; one may still exist)",
                       ffm_workload_get_name (ms->w), ffm_arch_get_name (ms->a),
                       *visited);
          return FALSE;
        }
      trial[x].group = ms->edge_group[e];
      trial[x].row = (guint32) ((l->row_offset + l->row) % g->n_rows);
      (*visited)++;
      ms_evaluate_prefix (ms, trial, x + 1, ws->cost);
      if (!ws->cost->fits)
        {
          overflows[ws->cost->worst_memory]++;
          l->row++;
          continue;
        }
      if (x + 1 == n)
        {
          ffm_mapspace_state_copy (ms, state, trial);
          return TRUE;
        }
      x++;
      lv[x].node = ms->edge_target[e];
      lv[x].edge = lv[x].row = 0;
      lv[x].edge_offset = g_rand_int (rand);
      lv[x].row_offset = g_rand_int (rand);
    }
}

gboolean
ffm_mapspace_random_state (FfmMapspaceWorkspace *ws, GRand *rand,
                           guint max_samples, guint64 max_nodes,
                           FfmMapspaceChoice *state, FfmMapspaceCost *cost,
                           guint64 *n_evaluated, GError **error)
{
  const FfmMapspace *ms = ws->ms;
  guint64 visited = 0;
  gboolean ok = FALSE;

  for (guint k = 0; k < max_samples && !ok; k++)
    {
      ffm_mapspace_sample (ws, rand, state);
      ffm_mapspace_evaluate (ms, state, cost);
      visited++;
      ok = cost->fits;
    }
  if (!ok && search_fit (ws, rand, max_nodes, state, &visited, error))
    {
      ffm_mapspace_evaluate (ms, state, cost);
      ok = TRUE;
    }
  if (n_evaluated != NULL)
    *n_evaluated = visited;
  return ok;
}

/* ---- Local moves ---- */

static gboolean
same_backings (const MsGroup *a, const MsGroup *b)
{
  for (guint t = 0; t < a->n_tensors; t++)
    if (a->tensors[t].level != b->tensors[t].level
        || a->tensors[t].persistent != b->tensors[t].persistent)
      return FALSE;
  return TRUE;
}

/* The loop at which @b's fused loops differ from @a's in the tile alone,
 * or -1 (none or more than one, or other differences). */
static int
one_tile_apart (const MsGroup *a, const MsGroup *b)
{
  int at = -1;

  if (a->n_fused != b->n_fused)
    return -1;
  for (guint d = 0; d < a->n_fused; d++)
    {
      const FfmCompatLoop *x = &a->compat.loops[d], *y = &b->compat.loops[d];
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

/* A random element of @c[0 .. @n), or MS_NONE. */
static guint32
pick (GRand *rand, const guint32 *c, guint n)
{
  return n > 0 ? c[g_rand_int_range (rand, 0, (gint32) n)] : MS_NONE;
}

/* The group @kind moves Einsum @x of @state to, or MS_NONE. */
static guint32
move_target (FfmMapspaceWorkspace *ws, GRand *rand, const FfmMapspaceChoice *state,
             guint x, FfmMapspaceMove kind)
{
  const FfmMapspace *ms = ws->ms;
  const MsGroup *cur = ms_group (ms, x, state[x].group);
  guint ng = ffm_mapspace_get_n_groups (ms, x), n = 0;
  guint32 *c = ws->cands;
  int tensor = cur->n_tensors > 0 ? g_rand_int_range (rand, 0, (gint32) cur->n_tensors) : -1;
  int direction = g_rand_int_range (rand, 0, 3);     /* 0 larger, 1 smaller, 2 any */

  if (kind == FFM_MAPSPACE_MOVE_LOOPS && direction < 2)
    {
      /* The nearest larger (smaller) tile of one loop. */
      double best = INFINITY;
      for (guint g = 0; g < ng; g++)
        {
          const MsGroup *o = ms_group (ms, x, g);
          int d;
          double gap;
          if (g == state[x].group || !o->usable || !same_backings (cur, o)
              || (d = one_tile_apart (cur, o)) < 0)
            continue;
          gap = log ((double) o->compat.loops[d].tile / (double) cur->compat.loops[d].tile);
          if ((direction == 0) != (gap > 0))
            continue;
          gap = fabs (gap);
          if (gap < best)
            {
              best = gap;
              n = 0;
            }
          if (gap == best)
            c[n++] = g;
        }
      if (n > 0)
        return pick (rand, c, n);
    }
  for (guint g = 0; g < ng; g++)
    {
      const MsGroup *o = ms_group (ms, x, g);
      if (g == state[x].group || !o->usable)
        continue;
      switch (kind)
        {
        case FFM_MAPSPACE_MOVE_LOOPS:
          if (same_backings (cur, o))
            c[n++] = g;
          break;
        case FFM_MAPSPACE_MOVE_BACKING:
          if (tensor >= 0 && o->tensors[tensor].level != cur->tensors[tensor].level)
            c[n++] = g;
          break;
        case FFM_MAPSPACE_MOVE_GROUP:
        case FFM_MAPSPACE_MOVE_ROW:
        default:
          c[n++] = g;
          break;
        }
    }
  return pick (rand, c, n);
}

gboolean
ffm_mapspace_move (FfmMapspaceWorkspace *ws, GRand *rand,
                   FfmMapspaceChoice *state, FfmMapspaceMove kind,
                   guint *einsum, guint *n_changed)
{
  const FfmMapspace *ms = ws->ms;
  guint n = ms->n_einsums, first = (guint) g_rand_int_range (rand, 0, (gint32) n);

  for (guint k = 0; k < n; k++)
    {
      guint x = (first + k) % n;
      const MsGroup *cur = ms_group (ms, x, state[x].group);
      if (kind == FFM_MAPSPACE_MOVE_ROW)
        {
          guint32 r;
          if (cur->n_rows < 2)
            continue;
          r = (guint32) g_rand_int_range (rand, 0, (gint32) cur->n_rows - 1);
          state[x].row = r < state[x].row ? r : r + 1;
          if (einsum != NULL)
            *einsum = x;
          if (n_changed != NULL)
            *n_changed = 0;
          return TRUE;
        }
      else
        {
          guint32 g = move_target (ws, rand, state, x, kind);
          if (g == MS_NONE)
            continue;
          if (einsum != NULL)
            *einsum = x;
          return ffm_mapspace_change (ws, rand, state, x, g,
                                      random_row (rand, ms_group (ms, x, g)), n_changed);
        }
    }
  return FALSE;
}
