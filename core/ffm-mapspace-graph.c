/* ffm-mapspace-graph.c: the graph of compatible groups (ffm-mapspace.h).
 *
 * The join rules of ffm-join.h, applied Einsum by Einsum in workload
 * order, need only a summary of the choices made so far: the *key* (the
 * FFM join's left-group key, without rows): the loops the next Einsum must
 * share, and for every shared tensor used before and after, its backing
 * (memory, depth, tile bits, the ranks its loops walk), whether its
 * producer came already and which ranks it walks with each shared loop
 * (data dependencies), the loops its latest user shares with what follows,
 * and the shallowest copy still above the open path (copies). A group of
 * Einsum x can follow a key iff it shares the key's loops, backs the
 * tensors it uses that came before alike, and passes the dependency and
 * copy rules; the result is the key after x. So the compatible group
 * combinations are exactly the paths of a layered graph whose nodes are
 * the distinct keys before each Einsum and whose edges are groups; one key
 * starts it (nothing chosen) and one ends it (nothing live).
 *
 * Built forwards (a key's candidates found by hashing what it must match,
 * as the FFM join does, never per pair of groups), then pruned backwards
 * to the nodes from which the end is reachable, with the log of the number
 * of completions of every node. Hash tables are used while building only;
 * walking the graph is binary searches in flat arrays. */
#include "ffm-mapspace-private.h"

#include <math.h>
#include <string.h>

#define MAX_LIVE 64             /* shared tensors live across one boundary */

/* What the users of a shared tensor must agree on. */
typedef struct {
  guint32 tensor;
  gint32 level;
  gint32 persistent;
  guint32 depth;
  double bits;
  gint32 ranks[MS_MAX_LOOPS];
} Backing;

typedef struct {
  Backing b;
  gint32 produced;              /* its producer has been chosen */
  guint32 dep_depth;            /* loops the producer shares with what follows */
  gint32 dep_ranks[MS_MAX_LOOPS]; /* the producer's rank per shared loop */
  guint32 last_use;             /* loops its latest user shares with what follows */
  guint32 open_copy;            /* shallowest copy still over the open path, MS_NONE */
} Live;

typedef struct {
  guint32 n_spine;
  MsLoop spine[MS_MAX_LOOPS];
  guint32 n_live;
  Live live[MAX_LIVE];          /* in live_after order (by tensor) */
} Key;

/* Per Einsum: the shared tensors it uses that came before (sorted), and
 * those live after it (sorted), and its output's access. */
typedef struct {
  GArray *before;               /* of guint */
  GArray *live_after;           /* of guint */
  guint output_access;
} StepInfo;

/* ---- Bytes: keys and match keys, for hashing ---- */

static void
put (GByteArray *b, const void *data, gsize size)
{
  g_byte_array_append (b, data, (guint) size);
}

static void
put_loops (GByteArray *b, const MsLoop *loops, guint32 n)
{
  put (b, &n, sizeof n);
  put (b, loops, sizeof (MsLoop) * n);
}

static void
put_backing (GByteArray *b, const Backing *k)
{
  put (b, k, G_STRUCT_OFFSET (Backing, ranks));
  put (b, k->ranks, sizeof (gint32) * k->depth);
}

static GBytes *
key_bytes (const Key *k)
{
  GByteArray *b = g_byte_array_new ();

  put_loops (b, k->spine, k->n_spine);
  put (b, &k->n_live, sizeof k->n_live);
  for (guint i = 0; i < k->n_live; i++)
    {
      const Live *l = &k->live[i];
      put_backing (b, &l->b);
      put (b, &l->produced, sizeof l->produced);
      put (b, &l->dep_depth, sizeof l->dep_depth);
      if (l->produced)
        put (b, l->dep_ranks, sizeof (gint32) * l->dep_depth);
      put (b, &l->last_use, sizeof l->last_use);
      put (b, &l->open_copy, sizeof l->open_copy);
    }
  return g_byte_array_free_to_bytes (b);
}

/* The inverse of key_bytes(). */
static void
key_read (GBytes *bytes, Key *k)
{
  gsize size, at = 0;
  const guint8 *p = g_bytes_get_data (bytes, &size);

#define TAKE(dst, n) (memcpy ((dst), p + at, (n)), at += (n))
  memset (k, 0, G_STRUCT_OFFSET (Key, live));
  TAKE (&k->n_spine, sizeof k->n_spine);
  TAKE (k->spine, sizeof (MsLoop) * k->n_spine);
  TAKE (&k->n_live, sizeof k->n_live);
  for (guint i = 0; i < k->n_live; i++)
    {
      Live *l = &k->live[i];
      memset (l, 0, sizeof *l);
      TAKE (&l->b, G_STRUCT_OFFSET (Backing, ranks));
      TAKE (l->b.ranks, sizeof (gint32) * l->b.depth);
      TAKE (&l->produced, sizeof l->produced);
      TAKE (&l->dep_depth, sizeof l->dep_depth);
      if (l->produced)
        TAKE (l->dep_ranks, sizeof (gint32) * l->dep_depth);
      TAKE (&l->last_use, sizeof l->last_use);
      TAKE (&l->open_copy, sizeof l->open_copy);
    }
#undef TAKE
  g_assert (at == size);
}

/* What a group must equal to follow a key: the first @s loops and the
 * backing of the tensors used before. */
static GBytes *
match_bytes (guint32 s, const MsLoop *loops, const Backing *const *before,
             guint n)
{
  GByteArray *b = g_byte_array_new ();

  put_loops (b, loops, s);
  for (guint i = 0; i < n; i++)
    put_backing (b, before[i]);
  return g_byte_array_free_to_bytes (b);
}

/* Shared tensor @t of group @g as its users must agree on it: the ranks
 * are the tensor's walked by the loops above its backing. */
static void
group_backing (const MsGroup *g, const MsTensor *t, Backing *out)
{
  memset (out, 0, sizeof *out);
  out->tensor = t->tensor;
  out->level = t->level;
  out->persistent = t->persistent;
  out->depth = t->depth;
  out->bits = t->bits;
  for (guint d = 0; d < t->depth; d++)
    out->ranks[d] = ms_rank (g, d, t->access);
}

static int
group_find (const MsGroup *g, guint tensor)
{
  for (guint t = 0; t < g->n_tensors; t++)
    if (g->tensors[t].tensor == tensor)
      return (int) t;
  return -1;
}

static const Live *
key_find (const Key *k, guint tensor)
{
  for (guint i = 0; i < k->n_live; i++)
    if (k->live[i].b.tensor == tensor)
      return &k->live[i];
  return NULL;
}

/* ---- One step ---- */

/* The key after Einsum x takes group @g after key @k (which @g matches:
 * loops and the backing of the tensors used before), or FALSE if a
 * dependency or copy rule fails or the loops do not reach. */
static gboolean
follow (const StepInfo *st, const Key *k, const MsGroup *g, Key *out)
{
  guint32 s = k->n_spine, S = 0;

  if (g->n_fused < s)
    return FALSE;
  for (guint i = 0; i < k->n_live; i++)
    {
      const Live *l = &k->live[i];
      int t = group_find (g, l->b.tensor);
      const MsTensor *mt;
      if (t < 0)
        continue;
      mt = &g->tensors[t];
      /* A consumer walks its producer's ranks with every shared loop. */
      if (l->produced && mt->access != st->output_access)
        for (guint d = 0; d < MIN (l->dep_depth, s); d++)
          if (ms_rank (g, d, mt->access) < 0 || ms_rank (g, d, mt->access) != l->dep_ranks[d])
            return FALSE;
      /* No user's path crosses another user's copy. */
      if (l->open_copy != MS_NONE && l->open_copy < s)
        return FALSE;
      if (mt->copy != MS_NONE && MIN (l->last_use, s) > mt->copy)
        return FALSE;
    }
  out->n_live = st->live_after->len;
  for (guint i = 0; i < out->n_live; i++)
    {
      guint tensor = g_array_index (st->live_after, guint, i);
      const Live *l = key_find (k, tensor);
      int t = group_find (g, tensor);
      Live *o = &out->live[i];
      if (l != NULL)
        {
          *o = *l;
          o->dep_depth = MIN (l->dep_depth, s);
          o->last_use = t >= 0 ? MS_NONE : MIN (l->last_use, s);
          o->open_copy = l->open_copy < s ? l->open_copy : MS_NONE;
        }
      else
        {
          if (t < 0 || !g->tensors[t].plain)
            return FALSE;
          memset (o, 0, sizeof *o);
          group_backing (g, &g->tensors[t], &o->b);
          o->produced = g->tensors[t].access == st->output_access;
          o->dep_depth = o->produced ? MS_NONE : 0;
          o->last_use = MS_NONE;
          o->open_copy = MS_NONE;
        }
      if (t >= 0 && g->tensors[t].copy != MS_NONE)
        o->open_copy = MIN (o->open_copy, g->tensors[t].copy);
      if (!o->b.persistent)
        S = MAX (S, o->b.depth);
    }
  if (S > g->n_fused)
    return FALSE;
  out->n_spine = S;
  if (S > 0)                    /* g->loops is NULL for a group with no fused loop */
    memcpy (out->spine, g->loops, sizeof (MsLoop) * S);
  /* Depths compared later are at most S: cap them so that equal futures
   * get equal keys. */
  for (guint i = 0; i < out->n_live; i++)
    {
      Live *o = &out->live[i];
      if (o->produced && o->dep_depth == MS_NONE)
        {
          o->dep_depth = S;
          for (guint d = 0; d < S; d++)
            o->dep_ranks[d] = ms_rank (g, d, st->output_access);
        }
      o->dep_depth = o->produced ? MIN (o->dep_depth, S) : 0;
      o->last_use = MIN (o->last_use, S);
      if (o->open_copy != MS_NONE && o->open_copy >= S)
        o->open_copy = MS_NONE;
    }
  return TRUE;
}

/* Groups of Einsum @x by what they match: for every s up to their fused
 * loops, (first s loops, backing of the tensors used before). Groups that
 * back a tensor used before with a loop walking no single rank of it can
 * never follow anything and are left out. */
static GHashTable *
index_groups (const FfmMapspace *ms, guint x, const StepInfo *st)
{
  GHashTable *index = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                             (GDestroyNotify) g_bytes_unref,
                                             (GDestroyNotify) g_array_unref);

  for (guint gi = 0; gi < ffm_mapspace_get_n_groups (ms, x); gi++)
    {
      const MsGroup *g = ms_group (ms, x, gi);
      Backing lives[FFM_MAX_EINSUM_TENSORS];
      const Backing *ptrs[FFM_MAX_EINSUM_TENSORS];
      gboolean ok = TRUE;

      for (guint i = 0; i < st->before->len && ok; i++)
        {
          int t = group_find (g, g_array_index (st->before, guint, i));
          ok = t >= 0 && g->tensors[t].plain;
          if (ok)
            group_backing (g, &g->tensors[t], &lives[i]);
          ptrs[i] = &lives[i];
        }
      if (!ok)
        continue;
      for (guint32 s = 0; s <= g->n_fused; s++)
        {
          GBytes *key = match_bytes (s, g->loops, ptrs, st->before->len);
          GArray *list = g_hash_table_lookup (index, key);
          guint32 id = gi;
          if (list == NULL)
            {
              list = g_array_new (FALSE, FALSE, sizeof (guint32));
              g_hash_table_insert (index, g_bytes_ref (key), list);
            }
          g_array_append_val (list, id);
          g_bytes_unref (key);
        }
    }
  return index;
}

static GBytes *
key_match_bytes (const StepInfo *st, const Key *k)
{
  const Backing *ptrs[FFM_MAX_EINSUM_TENSORS];

  for (guint i = 0; i < st->before->len; i++)
    {
      const Live *l = key_find (k, g_array_index (st->before, guint, i));
      if (l == NULL)
        return NULL;
      ptrs[i] = &l->b;
    }
  return match_bytes (k->n_spine, k->spine, ptrs, st->before->len);
}

/* ---- The whole graph ---- */

typedef struct {
  guint32 from;                 /* node, local to its step */
  guint32 group;
  guint32 to;                   /* node, local to the next step */
} Edge;

static void
step_info_clear (StepInfo *st)
{
  if (st->before != NULL)
    g_array_free (st->before, TRUE);
  if (st->live_after != NULL)
    g_array_free (st->live_after, TRUE);
}

static void
step_infos (const FfmMapspace *ms, StepInfo *steps)
{
  guint n = ms->n_einsums, nt = ffm_workload_get_n_tensors (ms->w);
  g_autofree guint *first = g_new (guint, MAX (nt, 1));
  g_autofree guint *last = g_new0 (guint, MAX (nt, 1));

  for (guint t = 0; t < nt; t++)
    first[t] = G_MAXUINT;
  for (guint x = 0; x < n; x++)
    {
      const MsGroup *g = ms_group (ms, x, 0);
      for (guint t = 0; t < g->n_tensors; t++)
        {
          first[g->tensors[t].tensor] = MIN (first[g->tensors[t].tensor], x);
          last[g->tensors[t].tensor] = MAX (last[g->tensors[t].tensor], x);
        }
    }
  for (guint x = 0; x < n; x++)
    {
      const MsGroup *g = ms_group (ms, x, 0);
      StepInfo *st = &steps[x];
      st->before = g_array_new (FALSE, FALSE, sizeof (guint));
      st->live_after = g_array_new (FALSE, FALSE, sizeof (guint));
      st->output_access = ffm_workload_get_einsum (ms->w, x)->output_access;
      for (guint t = 0; t < nt; t++)
        {
          if (first[t] < x && group_find (g, t) >= 0)
            g_array_append_val (st->before, t);
          if (first[t] <= x && x < last[t] && first[t] != G_MAXUINT)
            g_array_append_val (st->live_after, t);
        }
    }
}

/* Forwards: the keys before each Einsum and the edges between them. */
static gboolean
build_forward (FfmMapspace *ms, StepInfo *steps, GArray **edges,
               guint32 *n_nodes, guint64 *held, GError **error)
{
  guint n = ms->n_einsums;
  g_autoptr (GPtrArray) cur = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autofree Key *k = g_new (Key, 1), *nk = g_new (Key, 1);
  guint64 total = 0;

  memset (k, 0, sizeof *k);
  g_ptr_array_add (cur, key_bytes (k));
  n_nodes[0] = 1;
  for (guint x = 0; x < n; x++)
    {
      const StepInfo *st = &steps[x];
      g_autoptr (GHashTable) index = NULL;
      g_autoptr (GHashTable) seen = g_hash_table_new (g_bytes_hash, g_bytes_equal);
      g_autoptr (GPtrArray) next = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);

      if (st->live_after->len > MAX_LIVE)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_TOO_LARGE,
                       "mapspace: %u shared tensors live after Einsum %s (at most %d)",
                       st->live_after->len, ffm_workload_get_einsum (ms->w, x)->name,
                       MAX_LIVE);
          return FALSE;
        }
      index = index_groups (ms, x, st);
      edges[x] = g_array_new (FALSE, FALSE, sizeof (Edge));
      for (guint v = 0; v < cur->len; v++)
        {
          g_autoptr (GBytes) mk = NULL;
          GArray *cands;
          key_read (g_ptr_array_index (cur, v), k);
          mk = key_match_bytes (st, k);
          cands = mk != NULL ? g_hash_table_lookup (index, mk) : NULL;
          for (guint c = 0; cands != NULL && c < cands->len; c++)
            {
              guint32 gi = g_array_index (cands, guint32, c);
              GBytes *kb;
              gpointer found;
              Edge e = { v, gi, 0 };
              if (!follow (st, k, ms_group (ms, x, gi), nk))
                continue;
              kb = key_bytes (nk);
              if ((found = g_hash_table_lookup (seen, kb)) != NULL)
                {
                  e.to = GPOINTER_TO_UINT (found) - 1;
                  g_bytes_unref (kb);
                }
              else
                {
                  e.to = next->len;
                  g_ptr_array_add (next, kb);
                  g_hash_table_insert (seen, kb, GUINT_TO_POINTER (e.to + 1));
                }
              g_array_append_val (edges[x], e);
              if (++total > FFM_MAPSPACE_MAX_LINKS)
                {
                  g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_TOO_LARGE,
                               "mapspace: more than %" G_GUINT64_FORMAT " compatible "
                               "links between the groups of %s's Einsums (at "
                               "Einsum %s); a smaller --max-fused-loops makes "
                               "fewer groups", (guint64) FFM_MAPSPACE_MAX_LINKS,
                               ffm_workload_get_name (ms->w),
                               ffm_workload_get_einsum (ms->w, x)->name);
                  return FALSE;
                }
            }
        }
      {
        /* The edges and the next keys stay until the graph is built. */
        guint64 bytes = (guint64) edges[x]->len * sizeof (Edge);
        for (guint v = 0; v < next->len; v++)
          bytes += g_bytes_get_size (g_ptr_array_index (next, v)) + 64;
        if (!ms_reserve (ms, bytes, "the links of its graph", error))
          return FALSE;
        *held += bytes;
      }
      if (next->len == 0)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                       "no pmapping of Einsum %s is compatible with any "
                       "compatible choice of the Einsums before it, so no "
                       "fused mapping of %s exists in this mapspace",
                       ffm_workload_get_einsum (ms->w, x)->name,
                       ffm_workload_get_name (ms->w));
          return FALSE;
        }
      g_ptr_array_unref (cur);
      cur = g_steal_pointer (&next);
      n_nodes[x + 1] = cur->len;
    }
  return TRUE;
}

static double
log_add (double a, double b)
{
  if (a == -INFINITY)
    return b;
  if (b == -INFINITY)
    return a;
  return a > b ? a + log1p (exp (b - a)) : b + log1p (exp (a - b));
}

/* Backwards: completions, dead nodes dropped, flat arrays. FALSE past
 * the memory budget. */
static gboolean
build_backward (FfmMapspace *ms, GArray **edges, const guint32 *n_nodes, GError **error)
{
  guint n = ms->n_einsums;
  g_autofree double **logc = g_new0 (double *, n + 1);
  g_autofree double **logs = g_new0 (double *, n + 1);
  g_autofree guint32 **renum = g_new0 (guint32 *, n + 1);
  guint64 n_edges = 0, at = 0, all_nodes = 0;

  for (guint x = 0; x <= n; x++)
    all_nodes += n_nodes[x];
  if (!ms_reserve (ms, all_nodes * (2 * sizeof (double) + sizeof (guint32)),
                   "the nodes of its graph", error))
    return FALSE;
  for (guint x = 0; x <= n; x++)
    {
      logc[x] = g_new (double, n_nodes[x]);
      logs[x] = g_new (double, n_nodes[x]);
      renum[x] = g_new (guint32, n_nodes[x]);
      for (guint v = 0; v < n_nodes[x]; v++)
        logc[x][v] = logs[x][v] = x == n ? 0 : -INFINITY;
    }
  for (guint x = n; x-- > 0; )
    for (guint i = 0; i < edges[x]->len; i++)
      {
        const Edge *e = &g_array_index (edges[x], Edge, i);
        logc[x][e->from] = log_add (logc[x][e->from], logc[x + 1][e->to]);
        /* States: each edge stands for its group's rows. */
        logs[x][e->from] = log_add (logs[x][e->from],
                                    log ((double) ms_group (ms, x, e->group)->n_rows)
                                    + logs[x + 1][e->to]);
      }
  ms->log_states = logs[0][0];
  /* Alive nodes, renumbered globally, step by step. */
  ms->node_first = g_new0 (guint32, n + 2);
  ms->n_nodes = 0;
  for (guint x = 0; x <= n; x++)
    {
      ms->node_first[x] = ms->n_nodes;
      for (guint v = 0; v < n_nodes[x]; v++)
        renum[x][v] = logc[x][v] > -INFINITY ? ms->n_nodes++ : MS_NONE;
    }
  ms->node_first[n + 1] = ms->n_nodes;
  ms->log_completions = g_new (double, ms->n_nodes);
  for (guint x = 0; x <= n; x++)
    for (guint v = 0; v < n_nodes[x]; v++)
      if (renum[x][v] != MS_NONE)
        ms->log_completions[renum[x][v]] = logc[x][v];
  for (guint x = 0; x < n; x++)
    for (guint i = 0; i < edges[x]->len; i++)
      {
        const Edge *e = &g_array_index (edges[x], Edge, i);
        n_edges += renum[x][e->from] != MS_NONE && renum[x + 1][e->to] != MS_NONE;
      }
  /* Edges in node order; within a node in group order (each node looked
   * its candidates up once, and the index lists them in group order). */
  if (!ms_reserve (ms, n_edges * (2 * sizeof (guint32) + sizeof (double))
                   + (guint64) (ms->n_nodes + 1) * (sizeof (guint64) + sizeof (double)),
                   "its graph", error))
    {
      for (guint x = 0; x <= n; x++)
        {
          g_free (logc[x]);
          g_free (logs[x]);
          g_free (renum[x]);
        }
      return FALSE;
    }
  ms->n_edges = n_edges;
  ms->edge_first = g_new0 (guint64, ms->n_nodes + 1);
  ms->edge_group = g_new (guint32, MAX (n_edges, 1));
  ms->edge_target = g_new (guint32, MAX (n_edges, 1));
  ms->edge_cum = g_new (double, MAX (n_edges, 1));
  for (guint x = 0; x < n; x++)
    for (guint i = 0; i < edges[x]->len; i++)
      {
        const Edge *e = &g_array_index (edges[x], Edge, i);
        if (renum[x][e->from] != MS_NONE && renum[x + 1][e->to] != MS_NONE)
          ms->edge_first[renum[x][e->from] + 1]++;
      }
  for (guint32 v = 0; v < ms->n_nodes; v++)
    ms->edge_first[v + 1] += ms->edge_first[v];
  for (guint x = 0; x < n; x++)
    for (guint i = 0; i < edges[x]->len; i++)
      {
        const Edge *e = &g_array_index (edges[x], Edge, i);
        guint32 from = renum[x][e->from], to = renum[x + 1][e->to];
        if (from == MS_NONE || to == MS_NONE)
          continue;
        ms->edge_group[at] = e->group;
        ms->edge_target[at] = to;
        ms->edge_cum[at] = exp (logc[x + 1][e->to] - logc[x][e->from])
          + (ms->edge_first[from] < at ? ms->edge_cum[at - 1] : 0);
        ms->groups[ms->group_first[x] + e->group].usable = TRUE;
        at++;
      }
  for (guint x = 0; x <= n; x++)
    {
      g_free (logc[x]);
      g_free (logs[x]);
      g_free (renum[x]);
    }
  ms->bytes -= all_nodes * (2 * sizeof (double) + sizeof (guint32));
  return TRUE;
}

/* The reverse indexes (ffm-mapspace-private.h) from the edges. */
static gboolean
build_reverse (FfmMapspace *ms, GError **error)
{
  guint n = ms->n_einsums, n_groups = ms->group_first[n];
  g_autofree guint32 *fill = NULL;

  if (!ms_reserve (ms, ms->n_edges * 3 * sizeof (guint32)
                   + ((guint64) ms->n_nodes + n_groups + 2) * sizeof (guint32),
                   "the reverse index of its graph", error))
    return FALSE;
  ms->in_first = g_new0 (guint32, ms->n_nodes + 1);
  ms->in_source = g_new (guint32, MAX (ms->n_edges, 1));
  ms->in_edge = g_new (guint32, MAX (ms->n_edges, 1));
  ms->group_node_first = g_new0 (guint32, n_groups + 1);
  ms->group_nodes = g_new (guint32, MAX (ms->n_edges, 1));
  for (guint64 e = 0; e < ms->n_edges; e++)
    ms->in_first[ms->edge_target[e] + 1]++;
  for (guint32 v = 0; v < ms->n_nodes; v++)
    ms->in_first[v + 1] += ms->in_first[v];
  for (guint x = 0; x < n; x++)
    for (guint32 v = ms->node_first[x]; v < ms->node_first[x + 1]; v++)
      for (guint64 e = ms->edge_first[v]; e < ms->edge_first[v + 1]; e++)
        ms->group_node_first[ms->group_first[x] + ms->edge_group[e] + 1]++;
  for (guint g = 0; g < n_groups; g++)
    ms->group_node_first[g + 1] += ms->group_node_first[g];
  fill = g_new0 (guint32, MAX (MAX (ms->n_nodes, n_groups), 1));
  for (guint x = 0; x < n; x++)
    for (guint32 v = ms->node_first[x]; v < ms->node_first[x + 1]; v++)
      for (guint64 e = ms->edge_first[v]; e < ms->edge_first[v + 1]; e++)
        {
          guint32 t = ms->edge_target[e];
          ms->in_source[ms->in_first[t] + fill[t]] = v;
          ms->in_edge[ms->in_first[t] + fill[t]++] = (guint32) e;
        }
  memset (fill, 0, sizeof (guint32) * MAX (MAX (ms->n_nodes, n_groups), 1));
  for (guint x = 0; x < n; x++)
    for (guint32 v = ms->node_first[x]; v < ms->node_first[x + 1]; v++)
      for (guint64 e = ms->edge_first[v]; e < ms->edge_first[v + 1]; e++)
        {
          guint g = ms->group_first[x] + ms->edge_group[e];
          ms->group_nodes[ms->group_node_first[g] + fill[g]++] = v;
        }
  return TRUE;
}

gboolean
ms_build_graph (FfmMapspace *ms, GError **error)
{
  guint n = ms->n_einsums;
  StepInfo *steps = g_new0 (StepInfo, n);
  GArray **edges = g_new0 (GArray *, n);
  g_autofree guint32 *n_nodes = g_new0 (guint32, n + 1);
  guint64 held = 0;
  gboolean ok;

  step_infos (ms, steps);
  ok = build_forward (ms, steps, edges, n_nodes, &held, error);
  if (ok)
    ok = build_backward (ms, edges, n_nodes, error);
  ms->bytes -= held;
  if (ok)
    ok = build_reverse (ms, error);
  for (guint x = 0; x < n; x++)
    {
      step_info_clear (&steps[x]);
      if (edges[x] != NULL)
        g_array_free (edges[x], TRUE);
    }
  g_free (steps);
  g_free (edges);
  return ok;
}

guint64
ms_find_edge (const FfmMapspace *ms, guint32 v, guint32 group)
{
  guint64 lo = ms->edge_first[v], hi = ms->edge_first[v + 1];

  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (ms->edge_group[mid] < group)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < ms->edge_first[v + 1] && ms->edge_group[lo] == group ? lo : G_MAXUINT64;
}
