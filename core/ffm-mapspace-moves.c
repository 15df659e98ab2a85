/* ffm-mapspace-moves.c: the indexes local moves draw from
 * (ffm-mapspace.h, FfmMapspaceMove; ffm-mapspace-private.h, MsMoves).
 *
 * A move picks, for one Einsum, another group among those that keep its
 * storage placement (LOOPS), change one shared tensor's backing memory
 * (BACKING), differ from it in one fused loop's tile only, by the nearest
 * larger or smaller tile (LOOPS with a direction), or any usable group
 * (GROUP). Scanning every group of the Einsum for those (as a first
 * version did) reads one large group struct per group: 12 ms per move on
 * GPT-3 6.7B (batch 64, 4096 tokens), whose Einsums have up to a million
 * groups. The candidates are instead runs of flat arrays built once:
 *   - backing classes (groups with the same backing memory and persistence
 *     of every shared tensor), members in group order;
 *   - per shared tensor, the usable groups sorted by its backing memory:
 *     the candidates of a BACKING move are everything outside the current
 *     group's run;
 *   - tile buckets: per group and fused loop d, the groups of its class
 *     whose fused loops equal its own but for d's tile, sorted by that
 *     tile: the nearest larger (smaller) tile is the next run up (down).
 * Each draw is uniform over the same candidates as the scan's (the tests
 * compare them with a scan over every group), in O(1) or O(fused loops). */
#include "ffm-mapspace-private.h"
#include "ffm-mapspace-diagnostics.h"

#include <math.h>
#include <string.h>

/* ---- Building ---- */

typedef struct {
  const FfmMapspace *ms;
  guint x;
  guint t;                      /* tensor (level sort) */
  const MsMoves *m;
} SortCtx;

/* Usable positions by t's backing memory, then group. */
static gint
by_level_compare (gconstpointer a, gconstpointer b, gpointer data)
{
  const SortCtx *c = data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;
  gint32 li = c->m->level_of[(gsize) c->t * c->m->n_usable + i];
  gint32 lj = c->m->level_of[(gsize) c->t * c->m->n_usable + j];

  if (li != lj)
    return li < lj ? -1 : 1;
  return i < j ? -1 : i > j;
}

/* What makes two groups of one Einsum one backing class. */
static GBytes *
class_key (const MsGroup *g)
{
  gint32 v[2 * FFM_MAX_EINSUM_TENSORS];

  for (guint t = 0; t < g->n_tensors; t++)
    {
      v[2 * t] = g->tensors[t].level;
      v[2 * t + 1] = g->tensors[t].persistent;
    }
  return g_bytes_new (v, sizeof (gint32) * 2 * g->n_tensors);
}

/* The tile bucket of group @g (of class @cls) at fused loop @d: every
 * fused loop as one_tile_apart() compares them, d's tile left out. */
static GBytes *
bucket_key (const FfmMapspace *ms, guint x, const MsGroup *g, guint32 cls, guint d)
{
  guint64 v[3 + 5 * MS_MAX_LOOPS];
  guint n = 0;

  v[n++] = cls;
  v[n++] = g->n_fused;
  v[n++] = d;
  for (guint k = 0; k < g->n_fused; k++)
    {
      const FfmCompatLoop *l = ms_compat_loop (ms, x, g, k);
      v[n++] = l->rank_var;
      v[n++] = (guint64) (l->spatial != 0);
      v[n++] = (guint64) (gint64) l->fanout_level;
      v[n++] = (guint64) (gint64) l->fanout_dim;
      v[n++] = k == d ? 0 : l->tile;
    }
  return g_bytes_new (v, sizeof (guint64) * n);
}

typedef struct {
  const guint64 *tiles;
  const guint32 *groups;
} BucketSort;

static gint
bucket_compare (gconstpointer a, gconstpointer b, gpointer data)
{
  const BucketSort *c = data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;

  if (c->tiles[i] != c->tiles[j])
    return c->tiles[i] < c->tiles[j] ? -1 : 1;
  return c->groups[i] < c->groups[j] ? -1 : c->groups[i] > c->groups[j];
}

static gboolean
build_einsum (FfmMapspace *ms, guint x, MsMoves *m, GError **error)
{
  guint ng = ffm_mapspace_get_n_groups (ms, x), nt = ms_group (ms, x, 0)->n_tensors;
  g_autoptr (GHashTable) classes = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                          (GDestroyNotify) g_bytes_unref, NULL);
  g_autoptr (GHashTable) buckets = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                          (GDestroyNotify) g_bytes_unref, NULL);
  g_autofree guint32 *class_count = NULL, *slot_group = NULL, *slot_key = NULL;
  g_autofree guint32 *order = NULL;
  guint32 n_classes = 0, n_buckets = 0, n_slots = 0;
  guint64 bytes;

  m->n_usable = 0;
  for (guint g = 0; g < ng; g++)
    m->n_usable += ms_group (ms, x, g)->usable;
  m->n_tensors = nt;
  for (guint g = 0; g < ng; g++)
    if (ms_group (ms, x, g)->usable)
      n_slots += ms_group (ms, x, g)->n_fused;
  bytes = (guint64) ng * 3 * sizeof (guint32)
    + (guint64) m->n_usable * (3 + 4 * nt + 1) * sizeof (guint32)
    + (guint64) n_slots * (4 * sizeof (guint32) + sizeof (guint64));
  if (!ms_reserve (ms, bytes, "its move indexes", error))
    return FALSE;

  m->usable = g_new (guint32, MAX (m->n_usable, 1));
  m->usable_index = g_new (guint32, MAX (ng, 1));
  m->class_of = g_new (guint32, MAX (ng, 1));
  m->class_pos = g_new (guint32, MAX (ng, 1));
  for (guint g = 0, i = 0; g < ng; g++)
    {
      const MsGroup *gr = ms_group (ms, x, g);
      m->usable_index[g] = m->class_of[g] = m->class_pos[g] = MS_NONE;
      if (!gr->usable)
        continue;
      m->usable_index[g] = i;
      m->usable[i++] = g;
      {
        GBytes *key = class_key (gr);
        gpointer found;
        if (g_hash_table_lookup_extended (classes, key, NULL, &found))
          {
            m->class_of[g] = GPOINTER_TO_UINT (found);
            g_bytes_unref (key);
          }
        else
          {
            m->class_of[g] = n_classes;
            g_hash_table_insert (classes, key, GUINT_TO_POINTER (n_classes));
            n_classes++;
          }
      }
    }

  /* Classes as runs, members in group order. */
  class_count = g_new0 (guint32, n_classes + 1);
  m->class_first = g_new0 (guint32, n_classes + 1);
  m->class_members = g_new (guint32, MAX (m->n_usable, 1));
  for (guint i = 0; i < m->n_usable; i++)
    m->class_first[m->class_of[m->usable[i]] + 1]++;
  for (guint32 c = 0; c < n_classes; c++)
    m->class_first[c + 1] += m->class_first[c];
  for (guint i = 0; i < m->n_usable; i++)
    {
      guint32 g = m->usable[i], c = m->class_of[g];
      m->class_pos[g] = class_count[c];
      m->class_members[m->class_first[c] + class_count[c]++] = g;
    }

  /* Per shared tensor: usable groups by backing memory. */
  m->by_level = g_new (guint32, MAX ((gsize) nt * m->n_usable, 1));
  m->level_of = g_new (gint32, MAX ((gsize) nt * m->n_usable, 1));
  m->level_run = g_new (guint32, MAX ((gsize) nt * m->n_usable, 1));
  m->level_run_end = g_new (guint32, MAX ((gsize) nt * m->n_usable, 1));
  order = g_new (guint32, MAX (m->n_usable, 1));
  for (guint t = 0; t < nt; t++)
    {
      SortCtx c = { ms, x, t, m };
      gsize base = (gsize) t * m->n_usable;
      for (guint i = 0; i < m->n_usable; i++)
        {
          m->level_of[base + i] = ms_group (ms, x, m->usable[i])->tensors[t].level;
          order[i] = i;
        }
      g_qsort_with_data (order, (gint) m->n_usable, sizeof (guint32), by_level_compare, &c);
      for (guint k = 0; k < m->n_usable; )
        {
          guint e = k;
          while (e < m->n_usable
                 && m->level_of[base + order[e]] == m->level_of[base + order[k]])
            e++;
          for (guint j = k; j < e; j++)
            {
              m->by_level[base + j] = m->usable[order[j]];
              m->level_run[base + order[j]] = k;
              m->level_run_end[base + order[j]] = e;
            }
          k = e;
        }
    }

  /* Tile buckets. */
  m->slot_first = g_new (guint32, m->n_usable + 1);
  m->slot_bucket = g_new (guint32, MAX (n_slots, 1));
  m->slot_pos = g_new (guint32, MAX (n_slots, 1));
  slot_group = g_new (guint32, MAX (n_slots, 1));
  slot_key = g_new (guint32, MAX (n_slots, 1));
  {
    guint32 s = 0;
    for (guint i = 0; i < m->n_usable; i++)
      {
        const MsGroup *gr = ms_group (ms, x, m->usable[i]);
        m->slot_first[i] = s;
        for (guint d = 0; d < gr->n_fused; d++, s++)
          {
            GBytes *key = bucket_key (ms, x, gr, m->class_of[m->usable[i]], d);
            gpointer found;
            slot_group[s] = m->usable[i];
            if (g_hash_table_lookup_extended (buckets, key, NULL, &found))
              {
                m->slot_bucket[s] = GPOINTER_TO_UINT (found);
                g_bytes_unref (key);
              }
            else
              {
                m->slot_bucket[s] = n_buckets;
                g_hash_table_insert (buckets, key, GUINT_TO_POINTER (n_buckets));
                n_buckets++;
              }
          }
      }
    m->slot_first[m->n_usable] = s;
  }
  m->bucket_first = g_new0 (guint32, n_buckets + 1);
  m->bucket_members = g_new (guint32, MAX (n_slots, 1));
  m->bucket_tiles = g_new (guint64, MAX (n_slots, 1));
  for (guint32 s = 0; s < n_slots; s++)
    m->bucket_first[m->slot_bucket[s] + 1]++;
  for (guint32 b = 0; b < n_buckets; b++)
    m->bucket_first[b + 1] += m->bucket_first[b];
  {
    /* Slots in bucket order (counting sort), then each bucket by tile. */
    g_autofree guint32 *fill = g_new0 (guint32, n_buckets + 1);
    g_autofree guint32 *slots = g_new (guint32, MAX (n_slots, 1));
    g_autofree guint64 *tile = g_new (guint64, MAX (n_slots, 1));
    BucketSort bs = { tile, slot_group };
    for (guint i = 0; i < m->n_usable; i++)
      {
        const MsGroup *gr = ms_group (ms, x, m->usable[i]);
        for (guint32 s = m->slot_first[i]; s < m->slot_first[i + 1]; s++)
          {
            guint32 b = m->slot_bucket[s];
            tile[s] = ms_compat_loop (ms, x, gr, s - m->slot_first[i])->tile;
            slots[m->bucket_first[b] + fill[b]++] = s;
          }
      }
    for (guint32 b = 0; b < n_buckets; b++)
      g_qsort_with_data (slots + m->bucket_first[b],
                         (gint) (m->bucket_first[b + 1] - m->bucket_first[b]),
                         sizeof (guint32), bucket_compare, &bs);
    for (guint32 k = 0; k < n_slots; k++)
      {
        guint32 s = slots[k];
        m->bucket_members[k] = slot_group[s];
        m->bucket_tiles[k] = tile[s];
        m->slot_pos[s] = k;
      }
  }
  return TRUE;
}

gboolean
ms_build_moves (FfmMapspace *ms, GError **error)
{
  ms->moves = g_new0 (MsMoves, MAX (ms->n_einsums, 1));
  for (guint x = 0; x < ms->n_einsums; x++)
    if (!build_einsum (ms, x, &ms->moves[x], error))
      return FALSE;
  return TRUE;
}

void
ms_moves_free (FfmMapspace *ms)
{
  if (ms->moves == NULL)
    return;
  for (guint x = 0; x < ms->n_einsums; x++)
    {
      MsMoves *m = &ms->moves[x];
      g_free (m->usable);
      g_free (m->usable_index);
      g_free (m->class_of);
      g_free (m->class_pos);
      g_free (m->class_first);
      g_free (m->class_members);
      g_free (m->by_level);
      g_free (m->level_of);
      g_free (m->level_run);
      g_free (m->level_run_end);
      g_free (m->slot_first);
      g_free (m->slot_bucket);
      g_free (m->slot_pos);
      g_free (m->bucket_first);
      g_free (m->bucket_members);
      g_free (m->bucket_tiles);
    }
  g_clear_pointer (&ms->moves, g_free);
}

/* ---- Candidates ----
 *
 * Every kind's candidates are a union of disjoint runs [first, end) of
 * one array, minus at most one position (the current group's own). */

#define MAX_RUNS (2 * MS_MAX_LOOPS)

typedef struct {
  const guint32 *array;
  guint32 first[MAX_RUNS], end[MAX_RUNS];
  guint n;
  guint32 skip;                 /* a position of @array left out, MS_NONE */
} Runs;

static guint64
runs_count (const Runs *r)
{
  guint64 c = 0;

  for (guint i = 0; i < r->n; i++)
    c += r->end[i] - r->first[i];
  return c - (r->skip != MS_NONE);
}

/* The @k-th candidate of @r, in run order. */
static guint32
runs_get (const Runs *r, guint64 k)
{
  for (guint i = 0; i < r->n; i++)
    {
      guint64 len = r->end[i] - r->first[i];
      guint32 at;
      if (r->skip != MS_NONE && r->skip >= r->first[i] && r->skip < r->end[i])
        {
          if (k >= len - 1)
            {
              k -= len - 1;
              continue;
            }
          at = r->first[i] + (guint32) k;
          if (at >= r->skip)
            at++;
          return r->array[at];
        }
      if (k < len)
        return r->array[r->first[i] + k];
      k -= len;
    }
  g_assert_not_reached ();
  return MS_NONE;
}

static void
runs_add (Runs *r, guint32 first, guint32 end)
{
  if (end > first)
    {
      r->first[r->n] = first;
      r->end[r->n] = end;
      r->n++;
    }
}

/* The nearest larger (@direction 0) or smaller (1) tile of one fused
 * loop: per loop, the run of the next distinct tile in the current
 * group's bucket; the runs of the smallest log ratio over the loops. */
static void
nearest_tiles (const MsMoves *m, guint32 cur, int direction, Runs *r)
{
  guint32 i = m->usable_index[cur];
  double best = INFINITY;

  r->array = m->bucket_members;
  r->n = 0;
  r->skip = MS_NONE;
  for (guint32 s = m->slot_first[i]; s < m->slot_first[i + 1]; s++)
    {
      guint32 b = m->slot_bucket[s], p = m->slot_pos[s];
      guint32 lo = m->bucket_first[b], hi = m->bucket_first[b + 1];
      guint64 t0 = m->bucket_tiles[p];
      guint32 q, e;
      double gap;
      if (direction == 0)
        {
          for (q = p + 1; q < hi && m->bucket_tiles[q] == t0; q++)
            ;
          if (q == hi)
            continue;
          for (e = q; e < hi && m->bucket_tiles[e] == m->bucket_tiles[q]; e++)
            ;
        }
      else
        {
          for (e = p; e > lo && m->bucket_tiles[e - 1] == t0; e--)
            ;
          if (e == lo)
            continue;
          for (q = e; q > lo && m->bucket_tiles[q - 1] == m->bucket_tiles[e - 1]; q--)
            ;
        }
      gap = fabs (log ((double) m->bucket_tiles[q] / (double) t0));
      if (gap < best)
        {
          best = gap;
          r->n = 0;
        }
      if (gap == best)
        runs_add (r, q, e);
    }
}

/* The candidates of a move as runs; FALSE when @kind is ROW (no group
 * changes). */
static gboolean
move_runs (const FfmMapspace *ms, const FfmMapspaceChoice *state, guint x,
           FfmMapspaceMove kind, int tensor, int direction, Runs *r)
{
  const MsMoves *m = &ms->moves[x];
  guint32 cur = state[x].group, i = m->usable_index[cur];

  memset (r, 0, sizeof *r);
  r->skip = MS_NONE;
  if (i == MS_NONE)
    return TRUE;                /* not compatible: nothing */
  switch (kind)
    {
    case FFM_MAPSPACE_MOVE_LOOPS:
      if (direction == 0 || direction == 1)
        {
          nearest_tiles (m, cur, direction, r);
          if (runs_count (r) > 0)
            return TRUE;
        }
      r->array = m->class_members;
      r->n = 0;
      runs_add (r, m->class_first[m->class_of[cur]], m->class_first[m->class_of[cur] + 1]);
      r->skip = m->class_first[m->class_of[cur]] + m->class_pos[cur];
      return TRUE;
    case FFM_MAPSPACE_MOVE_BACKING:
      if (tensor < 0 || (guint) tensor >= m->n_tensors)
        return TRUE;
      {
        gsize base = (gsize) tensor * m->n_usable;
        r->array = m->by_level + base;
        runs_add (r, 0, m->level_run[base + i]);
        runs_add (r, m->level_run_end[base + i], m->n_usable);
      }
      return TRUE;
    case FFM_MAPSPACE_MOVE_GROUP:
      r->array = m->usable;
      runs_add (r, 0, m->n_usable);
      r->skip = i;
      return TRUE;
    case FFM_MAPSPACE_MOVE_ROW:
    default:
      return FALSE;
    }
}

guint32
ms_move_target (const FfmMapspace *ms, GRand *rand, const FfmMapspaceChoice *state,
                guint x, FfmMapspaceMove kind, int tensor, int direction)
{
  Runs r;
  guint64 count;

  if (!move_runs (ms, state, x, kind, tensor, direction, &r))
    return MS_NONE;
  count = runs_count (&r);
  if (count == 0)
    return MS_NONE;
  return runs_get (&r, count <= G_MAXINT32
                   ? (guint64) g_rand_int_range (rand, 0, (gint32) count)
                   : (guint64) (g_rand_double (rand) * (double) count));
}

static int
compare_guint32 (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

guint
ms_move_candidates (const FfmMapspace *ms, const FfmMapspaceChoice *state, guint x,
                    FfmMapspaceMove kind, int tensor, int direction, guint32 *out)
{
  Runs r;
  guint64 count;

  if (!move_runs (ms, state, x, kind, tensor, direction, &r))
    return 0;
  count = runs_count (&r);
  for (guint64 k = 0; k < count; k++)
    out[k] = runs_get (&r, k);
  qsort (out, count, sizeof (guint32), compare_guint32);
  return (guint) count;
}

guint
ffm_mapspace_list_move_targets (const FfmMapspace *ms, const FfmMapspaceChoice *state,
                                guint einsum, FfmMapspaceMove kind, int tensor,
                                int direction, guint *groups)
{
  g_return_val_if_fail (ms != NULL && state != NULL && einsum < ms->n_einsums, 0);
  return ms_move_candidates (ms, state, einsum, kind, tensor, direction, groups);
}
