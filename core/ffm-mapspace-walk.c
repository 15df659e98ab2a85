/* ffm-mapspace-walk.c: checking, drawing and changing states
 * (ffm-mapspace.h).
 *
 * A state is compatible iff its groups are the labels of a path of the
 * graph (ffm-mapspace-graph.c), so checking is one edge lookup per Einsum.
 * Draws walk the graph choosing each edge with the probability of its
 * target's share of the node's completions, which makes every compatible
 * combination of groups equally likely. A change fixes one Einsum's group
 * and repairs the others: a search for the fewest other groups to change,
 * within a small number of nodes (most repairs change one or two
 * neighbours and are found there), else a greedy repair that keeps every
 * choice it can and replaces one that breaks by a random edge that lets
 * the most next Einsums keep theirs (on GPT-3 6.7B at batch 64 a node may
 * have 75,000 edges and a layer 64,000 nodes: the exact pass over the
 * whole graph the first version made took milliseconds per change). */
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
  ws->repair = g_new0 (MsRepairNode, MAX (ms->n_nodes, 1));
  ws->mark = g_new0 (guint32, MAX (ms->n_nodes, 1));
  ws->mark_edge = g_new0 (guint64, MAX (ms->n_nodes, 1));
  ws->mark_count = g_new0 (guint32, MAX (ms->n_nodes, 1));
  ws->frontier = g_array_new (FALSE, FALSE, sizeof (guint32));
  ws->next = g_array_new (FALSE, FALSE, sizeof (guint32));
  ws->labels = g_new0 (guint32, MAX (n, 1));
  ws->trial = g_new0 (FfmMapspaceChoice, n);
  ws->search = g_new0 (SearchLevel, n + 1);
  ws->cost = ffm_mapspace_cost_new (ms);
  return ws;
}

void
ffm_mapspace_workspace_free (FfmMapspaceWorkspace *ws)
{
  if (ws == NULL)
    return;
  g_free (ws->path);
  g_free (ws->repair);
  g_free (ws->mark);
  g_free (ws->mark_edge);
  g_free (ws->mark_count);
  g_array_unref (ws->frontier);
  g_array_unref (ws->next);
  g_free (ws->labels);
  g_free (ws->trial);
  g_free (ws->search);
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

/* The fewest changed groups from node @v (at layer @y) to the end, at
 * most @k, the Einsums after @y keeping @ws->labels where they can and
 * Einsum @ws->held taking group @ws->held_group; MS_NONE when more than
 * @k are needed or the search ran out of its calls (ws->calls_left, then
 * ws->gave_up). Memoized per node for one change (ws->epoch): the exact
 * value once found (it does not depend on the budget), else the largest
 * budget that failed. Each node's edges are tried from a random offset
 * (ws->offset), labels first, the first of the fewest kept as its choice:
 * ties go to a random one. */
static guint32
fewest (FfmMapspaceWorkspace *ws, guint32 v, guint y, guint32 k)
{
  const FfmMapspace *ms = ws->ms;
  MsRepairNode *r = &ws->repair[v];
  guint64 first, deg, label_edge = G_MAXUINT64;
  guint32 result = MS_NONE, bound = k;

  if (y == ms->n_einsums)
    return 0;
  if (r->epoch == ws->epoch)
    {
      if (r->exact != MS_NONE)
        return r->exact <= k ? r->exact : MS_NONE;
      if (r->failed != MS_NONE && r->failed >= k)
        return MS_NONE;
    }
  else
    {
      r->epoch = ws->epoch;
      r->exact = MS_NONE;
      r->failed = MS_NONE;
    }
  if (ws->calls_left == 0)
    {
      ws->gave_up = TRUE;
      return MS_NONE;
    }
  ws->calls_left--;
  if (y == ws->held)
    {
      guint64 e = ms_find_edge (ms, v, ws->held_group);
      if (e != G_MAXUINT64)
        {
          result = fewest (ws, ms->edge_target[e], y + 1, k);
          r->choice = e;
        }
    }
  else
    {
      /* Keeping the label first: often nothing else is needed. */
      label_edge = ms_find_edge (ms, v, ws->labels[y]);
      if (label_edge != G_MAXUINT64)
        {
          result = fewest (ws, ms->edge_target[label_edge], y + 1, k);
          if (result != MS_NONE)
            {
              r->choice = label_edge;
              bound = result;
            }
        }
      first = ms->edge_first[v];
      deg = ms->edge_first[v + 1] - first;
      if (bound >= 1 && deg > 0 && (result == MS_NONE || result > 1))
        {
          guint64 offset = ws->offset % deg;
          for (guint64 i = 0; i < deg && !ws->gave_up; i++)
            {
              guint64 e = first + (offset + i) % deg;
              guint32 t;
              if (e == label_edge)
                continue;
              /* Strictly fewer than found so far. */
              if (result != MS_NONE && result <= 1)
                break;
              t = fewest (ws, ms->edge_target[e], y + 1,
                          (result != MS_NONE ? result - 1 : bound) - 1);
              if (t != MS_NONE && (result == MS_NONE || t + 1 < result))
                {
                  result = t + 1;
                  r->choice = e;
                }
            }
        }
    }
  if (ws->gave_up)
    return MS_NONE;             /* nothing is known for sure: no memo */
  if (result != MS_NONE)
    r->exact = result;
  else if (r->failed == MS_NONE || k > r->failed)
    r->failed = k;
  return result;
}

/* The labels @labels from layer @y followed from node @v: how many
 * Einsums keep theirs before one cannot (n - y: all of them). */
static guint
labels_kept (const FfmMapspace *ms, const guint32 *labels, guint32 v, guint y)
{
  guint kept = 0;

  for (; y < ms->n_einsums; y++, kept++)
    {
      guint64 e = ms_find_edge (ms, v, labels[y]);
      if (e == G_MAXUINT64)
        break;
      v = ms->edge_target[e];
    }
  return kept;
}

static guint64
rand64 (GRand *rand)
{
  return ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
}

/* An edge of node @v in layer @y (< n) whose target lets the most next
 * Einsums keep their labels, among REPAIR_SAMPLES drawn at random (every
 * edge, from a random one on, when the node has no more); the first of
 * the best. */
static guint64
greedy_edge (const FfmMapspace *ms, GRand *rand, const guint32 *labels, guint32 v, guint y)
{
  guint64 first = ms->edge_first[v], deg = ms->edge_first[v + 1] - first;
  guint64 best = G_MAXUINT64, tries = MIN (deg, REPAIR_SAMPLES);
  guint64 offset = deg > 0 ? rand64 (rand) % deg : 0;
  guint best_kept = 0;

  for (guint64 i = 0; i < tries; i++)
    {
      guint64 e = first + (deg <= REPAIR_SAMPLES ? (offset + i) % deg : rand64 (rand) % deg);
      guint kept = labels_kept (ms, labels, ms->edge_target[e], y + 1);
      if (best == G_MAXUINT64 || kept > best_kept)
        {
          best = e;
          best_kept = kept;
          if (y + 1 + kept == ms->n_einsums)
            break;              /* every one after keeps its group */
        }
    }
  return best;
}

/* The Einsums before @x changed so that the state reaches a node with
 * @group's edge: the nodes that can reach one are marked backwards, layer
 * by layer, from the nodes with that edge (the reverse indexes), until the
 * state's own path is met at layer a, the latest; from there each Einsum
 * keeps its group if that stays on marked nodes, else takes a marked edge
 * (drawn uniformly among those the marking met). Writes the groups of
 * Einsums a .. @x - 1 into @trial and the node reached into *@at_x. FALSE
 * when more than REPAIR_PREFIX_EDGES edges would be read. */
static gboolean
prefix_repair (FfmMapspaceWorkspace *ws, GRand *rand, const FfmMapspaceChoice *state,
               guint x, guint32 group, FfmMapspaceChoice *trial, guint32 *at_x)
{
  const FfmMapspace *ms = ws->ms;
  guint gi = ms->group_first[x] + group, a = G_MAXUINT;
  guint64 reads = 0;
  guint32 u;

  walk (ms, state, ws->path);
  if (++ws->mark_epoch == 0)
    {
      memset (ws->mark, 0, sizeof (guint32) * MAX (ms->n_nodes, 1));
      ws->mark_epoch = 1;
    }
  g_array_set_size (ws->frontier, 0);
  for (guint32 k = ms->group_node_first[gi]; k < ms->group_node_first[gi + 1]; k++)
    {
      guint32 v = ms->group_nodes[k];
      ws->mark[v] = ws->mark_epoch;
      g_array_append_val (ws->frontier, v);
    }
  for (guint y = x; y-- > 0 && a == G_MAXUINT; )
    {
      GArray *tmp;
      g_array_set_size (ws->next, 0);
      for (guint i = 0; i < ws->frontier->len; i++)
        {
          guint32 v = g_array_index (ws->frontier, guint32, i);
          for (guint32 k = ms->in_first[v]; k < ms->in_first[v + 1]; k++)
            {
              guint32 src = ms->in_source[k];
              if (++reads > REPAIR_PREFIX_EDGES)
                return FALSE;
              if (ws->mark[src] != ws->mark_epoch)
                {
                  ws->mark[src] = ws->mark_epoch;
                  ws->mark_count[src] = 1;
                  ws->mark_edge[src] = ms->in_edge[k];
                  g_array_append_val (ws->next, src);
                }
              else if (g_rand_int_range (rand, 0, (gint32) ++ws->mark_count[src]) == 0)
                ws->mark_edge[src] = ms->in_edge[k];
            }
        }
      if (ws->mark[ws->path[y]] == ws->mark_epoch)
        a = y;
      tmp = ws->frontier;
      ws->frontier = ws->next;
      ws->next = tmp;
    }
  if (a == G_MAXUINT)
    return FALSE;
  u = ws->path[a];
  for (guint y = a; y < x; y++)
    {
      guint64 e = ms_find_edge (ms, u, state[y].group);
      if (e == G_MAXUINT64 || ws->mark[ms->edge_target[e]] != ws->mark_epoch)
        e = ws->mark_edge[u];
      trial[y].group = ms->edge_group[e];
      u = ms->edge_target[e];
    }
  *at_x = u;
  return TRUE;
}

/* The repair when the search for the fewest changes gave up: the Einsums
 * before @x by prefix_repair() when its node lacks @group's edge; after
 * @x every Einsum keeps its group where the choices before allow, else
 * takes greedy_edge(). Writes the groups into @trial, with a new random
 * row where a group changed, counting those in *@changed. FALSE when
 * prefix_repair() gave up. */
static gboolean
greedy_repair (FfmMapspaceWorkspace *ws, GRand *rand, const FfmMapspaceChoice *state,
               guint x, guint32 group, FfmMapspaceChoice *trial, guint *changed)
{
  const FfmMapspace *ms = ws->ms;
  guint n = ms->n_einsums;
  guint64 e;
  guint32 v;

  for (guint y = 0; y < n; y++)
    trial[y].group = state[y].group;
  walk (ms, state, ws->path);
  v = ws->path[x];
  if (ms_find_edge (ms, v, group) == G_MAXUINT64
      && !prefix_repair (ws, rand, state, x, group, trial, &v))
    return FALSE;
  e = ms_find_edge (ms, v, group);
  g_assert (e != G_MAXUINT64);
  trial[x].group = group;
  v = ms->edge_target[e];
  for (guint y = x + 1; y < n; y++)
    {
      e = ms_find_edge (ms, v, state[y].group);
      if (e == G_MAXUINT64)
        e = greedy_edge (ms, rand, ws->labels, v, y);
      trial[y].group = ms->edge_group[e];
      v = ms->edge_target[e];
    }
  for (guint y = 0; y < n; y++)
    if (y != x && trial[y].group != state[y].group)
      {
        trial[y].row = random_row (rand, ms_group (ms, y, trial[y].group));
        (*changed)++;
      }
  return TRUE;
}

gboolean
ffm_mapspace_change (FfmMapspaceWorkspace *ws, GRand *rand,
                     FfmMapspaceChoice *state, guint einsum, guint group,
                     guint row, guint *n_changed)
{
  const FfmMapspace *ms = ws->ms;
  guint n = ms->n_einsums, changed = 0;
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
      /* Fewest other groups changed: the least budget of changes that
       * completes, raised one at a time (a budget of k visits only the
       * nodes k changes reach), then the choices read from the start. */
      guint32 budget, found = MS_NONE, v = 0;
      if (++ws->epoch == 0)
        {
          memset (ws->repair, 0, sizeof (MsRepairNode) * MAX (ms->n_nodes, 1));
          ws->epoch = 1;
        }
      ws->held = einsum;
      ws->held_group = group;
      ws->offset = rand64 (rand);
      ws->calls_left = REPAIR_EXACT_CALLS;
      ws->gave_up = FALSE;
      for (guint x = 0; x < n; x++)
        ws->labels[x] = state[x].group;
      for (budget = 1; budget < n && found == MS_NONE && !ws->gave_up; budget++)
        found = fewest (ws, 0, 0, budget);
      if (found != MS_NONE)
        for (guint x = 0; x < n; x++)
          {
            guint64 e = ws->repair[v].choice;
            g_assert (ws->repair[v].epoch == ws->epoch && ws->repair[v].exact != MS_NONE);
            if (x != einsum && ms->edge_group[e] != state[x].group)
              {
                trial[x].group = ms->edge_group[e];
                trial[x].row = random_row (rand, ms_group (ms, x, trial[x].group));
                changed++;
              }
            v = ms->edge_target[e];
          }
      else if (!ws->gave_up
               || !greedy_repair (ws, rand, state, einsum, group, trial, &changed))
        return FALSE;
      ws->n_greedy += found == MS_NONE;
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

/* ---- Local moves (the candidates: ffm-mapspace-moves.c) ---- */

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
          int tensor = cur->n_tensors > 0
            ? g_rand_int_range (rand, 0, (gint32) cur->n_tensors) : -1;
          int direction = g_rand_int_range (rand, 0, 3);  /* larger, smaller, any */
          guint32 g = ms_move_target (ms, rand, state, x, kind, tensor, direction);
          if (g == MS_NONE)
            continue;
          /* No repair found within the limits: the next Einsum. */
          if (!ffm_mapspace_change (ws, rand, state, x, g,
                                    random_row (rand, ms_group (ms, x, g)), n_changed))
            continue;
          if (einsum != NULL)
            *einsum = x;
          return TRUE;
        }
    }
  return FALSE;
}
