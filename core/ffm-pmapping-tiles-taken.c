/* ffm-pmapping-tiles-taken.c: the taken-leaf store of one template's tile
 * search. tiles_search_leaves() (ffm-pmapping-tiles-leaves.c) adds each
 * leaf it takes, by diff; tiles_table_extend() (ffm-pmapping-tiles-extend.c)
 * does not write a complete row of a later chunk that one of its diff's
 * leaves matches or beats in every slot the groups compare
 * (tiles_taken_store_dominates(), inline in ffm-pmapping-private.h).
 *
 * A diff's leaves stay mutually undominated (a leaf another matches or
 * beats is not added; those a new leaf beats leave), and between chunks
 * they are laid out flat (tiles_taken_store_flatten()): per diff, each
 * slot's values as floats side by side, which the question scans eight
 * leaves at a time. On TPUv1 x GPT-3's Z a diff held some 3,000 leaves and
 * the walk down their linked list was three quarters of the Einsum's
 * time. */
#include "ffm-pmapping-private.h"

#include <math.h>
#include <string.h>

/* TUNING: leaves a template's store keeps (tiles_taken_store_add()): at
 * most 2^20 leaves of about a hundred bytes each (slots and a link; each
 * distinct diff once more, with its hash and least slots; the flat copy
 * twice while it is rebuilt), taken from the generation's budget; past it
 * the chunks that follow only prune among themselves, as before the store.
 * GPT-3's V at unlimited fused loops: 84 % of its largest templates'
 * complete rows are dominated by a leaf of an earlier chunk. */
#define TAKEN_STORE_MAX (1u << 20)

/* Whether complete rows are checked against the leaves of earlier chunks:
 * when tiles_search_leaves() prunes by slots, unless a test turns it off
 * (FFM_DEBUG=leaves-per-chunk: each chunk prunes only its own rows).
 * Under FFM_DEBUG=check-terms the rows it drops are not term-checked;
 * each answer is checked against every leaf instead
 * (tiles_taken_store_dominates_slowly()). */
gboolean
tiles_taken_store_on (const FfmTileSearch *en)
{
  return leaves_pruned (en) && en->n_leaf_slots <= MAX_VARS * 64
    && !ffm_debug_flag_is_set (FFM_DEBUG_LEAVES_PER_CHUNK);
}

void
tiles_taken_store_clear (FfmTileSearch *en)
{
  ffm_budget_buffer_clear (&en->taken.buckets, en->budget);
  ffm_budget_buffer_clear (&en->taken.hash, en->budget);
  ffm_budget_buffer_clear (&en->taken.next, en->budget);
  ffm_budget_buffer_clear (&en->taken.diff, en->budget);
  ffm_budget_buffer_clear (&en->taken.first, en->budget);
  ffm_budget_buffer_clear (&en->taken.least, en->budget);
  ffm_budget_buffer_clear (&en->taken.leaf_next, en->budget);
  ffm_budget_buffer_clear (&en->taken.leaf_record, en->budget);
  ffm_budget_buffer_clear (&en->taken.slots, en->budget);
  ffm_budget_buffer_clear (&en->taken.segments, en->budget);
  ffm_budget_buffer_clear (&en->taken.arena_values, en->budget);
  ffm_budget_buffer_clear (&en->taken.arena_leaf, en->budget);
  ffm_budget_buffer_clear (&en->taken.spare_values, en->budget);
  ffm_budget_buffer_clear (&en->taken.spare_leaf, en->budget);
  ffm_budget_buffer_clear (&en->taken.merge, en->budget);
  ffm_budget_buffer_clear (&en->taken.beaten, en->budget);
  en->taken.n_buckets = en->taken.n_records = en->taken.n = 0;
  en->taken.arena_used = en->taken.arena_garbage = 0;
  en->taken.full = FALSE;
  en->taken.fail = 0;
}

/* The record of diff @diff (hash @h) + 1, or 0 when no leaf has it. */
guint32
tiles_taken_store_record (const FfmTileSearch *en, const guint64 *diff, guint64 h)
{
  const guint32 *bucket = en->taken.buckets.data, *next = en->taken.next.data;
  const guint64 *hashes = en->taken.hash.data, *diffs = en->taken.diff.data;
  guint nd = en->n_diff;

  if (en->taken.n_buckets == 0)
    return 0;
  for (guint32 d = bucket[h & (en->taken.n_buckets - 1)]; d != 0; d = next[d - 1])
    if (hashes[d - 1] == h && diff_equal (diffs + (gsize) (d - 1) * nd, diff, nd))
      return d;
  return 0;
}

/* The same question asked of every leaf in turn, without the buckets,
 * the lists, the flat copy, their order or the least values: the check
 * mode's witness of tiles_taken_store_record() and
 * tiles_taken_store_dominates() (a leaf they miss would only cost time, so
 * no other test sees it). Leaves that left their diff's list are asked
 * too: one that beat them is still there, so the answer is the same. */
gboolean
tiles_taken_store_dominates_slowly (FfmTileSearch *en, const guint64 *diff, const double *slots)
{
  const guint32 *leaf_record = en->taken.leaf_record.data;
  const guint64 *diffs = en->taken.diff.data;
  const double *stored = en->taken.slots.data;
  guint nd = en->n_diff, ns = en->n_leaf_slots, fail = 0;

  for (guint e = 0; e < en->taken.n; e++)
    if (diff_equal (diffs + (gsize) (leaf_record[e] - 1) * nd, diff, nd)
        && unit_dominates (stored + (gsize) e * 2 * ns, slots, ns, NULL, &fail))
      return TRUE;
  return FALSE;
}

/* Takes the leaves of record @d that @slots beats out of the store
 * (marked beaten where laid out, off the list where listed); TRUE, and
 * nothing changed, when one of them matches or beats @slots itself.
 * Dominance is transitive (the margins add up), so a leaf that leaves
 * answers no question the one that beat it does not. */
static gboolean
store_beat_leaves (FfmTileSearch *en, guint32 d, const double *slots)
{
  guint ns = en->n_leaf_slots, fail = 0;
  const double *stored = en->taken.slots.data;
  TakenSegment *s = (TakenSegment *) en->taken.segments.data + (d - 1);
  guint8 *beaten = en->taken.beaten.data;

  if (tiles_taken_store_dominates (en, d, slots))
    return TRUE;
  if (s->n > 0)
    {
      /* a leaf it beats has each slot at least its: among the last leaves
       * of each sorted copy, the copy where the fewest are */
      guint nx = MIN (ns, TAKEN_SORTED_SLOTS), c = s->c, best = 0, from = 0;
      const float *values = (const float *) en->taken.arena_values.data + s->pos * ns;
      const guint32 *leaves = (const guint32 *) en->taken.arena_leaf.data + s->pos;
      for (guint x = 0; x < nx; x++)
        {
          const float *column = values + (gsize) x * c * ns + (gsize) x * c;
          float q = (float) slots[2 * x];
          guint lo = 0, hi = s->n;
          while (lo < hi)
            {
              guint mid = lo + (hi - lo) / 2;
              if (column[mid] < q)
                lo = mid + 1;
              else
                hi = mid;
            }
          if (x == 0 || lo > from)
            best = x, from = lo;
        }
      for (guint i = from; i < s->n; i++)
        {
          guint32 e = leaves[(gsize) best * c + i];
          if (e != TAKEN_FLAT_NONE && !beaten[e]
              && unit_dominates (slots, stored + (gsize) e * 2 * ns, ns, NULL, &fail))
            {
              beaten[e] = TRUE;
              s->beaten++;
            }
        }
    }
  {
    guint32 *first = (guint32 *) en->taken.first.data + (d - 1);
    guint32 *next = en->taken.leaf_next.data;
    for (guint32 e = *first, prev = 0; e != 0; e = next[e - 1])
      if (unit_dominates (slots, stored + (gsize) (e - 1) * 2 * ns, ns, NULL, &fail))
        {
          if (prev != 0)
            next[prev - 1] = next[e - 1];
          else
            *first = next[e - 1];
          s->listed--;
        }
      else
        prev = e;
  }
  return FALSE;
}

/* Adds a taken tiles_leaf (its diff and slots) to the store, on its
 * diff's list until the next tiles_taken_store_flatten(); when the budget
 * or the cap says no, the store stops growing (the search stays exact). */
void
tiles_taken_store_add (FfmTileSearch *en, const guint64 *diff, guint64 h, const double *slots)
{
  guint nd = en->n_diff, ns = en->n_leaf_slots, n = en->taken.n;
  guint32 d;
  double *least;

  if (en->taken.full)
    return;
  d = tiles_taken_store_record (en, diff, h);
  if (d != 0 && store_beat_leaves (en, d, slots))
    return;
  if (n >= TAKEN_STORE_MAX
      || !ffm_budget_buffer_reserve (&en->taken.leaf_next, en->budget,
                                     ffm_budget_bytes (n + 1, sizeof (guint32)))
      || (TILES_CHECKING (en)
          && !ffm_budget_buffer_reserve (&en->taken.leaf_record, en->budget,
                                         ffm_budget_bytes (n + 1, sizeof (guint32))))
      || !ffm_budget_buffer_reserve (&en->taken.slots, en->budget,
                                     ffm_budget_bytes (n + 1, 2 * sizeof (double) * ns))
      || !ffm_budget_buffer_reserve (&en->taken.beaten, en->budget,
                                     ffm_budget_bytes (n + 1, sizeof (guint8))))
    {
      en->taken.full = TRUE;
      return;
    }
  if (d == 0)
    {
      guint nr = en->taken.n_records;
      guint32 *bucket, *next;
      if (!ffm_budget_buffer_reserve (&en->taken.hash, en->budget,
                                      ffm_budget_bytes (nr + 1, sizeof (guint64)))
          || !ffm_budget_buffer_reserve (&en->taken.next, en->budget,
                                         ffm_budget_bytes (nr + 1, sizeof (guint32)))
          || !ffm_budget_buffer_reserve (&en->taken.diff, en->budget,
                                         ffm_budget_bytes (nr + 1, sizeof (guint64) * MAX (nd, 1)))
          || !ffm_budget_buffer_reserve (&en->taken.first, en->budget,
                                         ffm_budget_bytes (nr + 1, sizeof (guint32)))
          || !ffm_budget_buffer_reserve (&en->taken.least, en->budget,
                                         ffm_budget_bytes (nr + 1, sizeof (double) * MAX (ns, 1)))
          || !ffm_budget_buffer_reserve (&en->taken.segments, en->budget,
                                         ffm_budget_bytes (nr + 1, sizeof (TakenSegment))))
        {
          en->taken.full = TRUE;
          return;
        }
      /* Buckets: at least twice the records, rebuilt when they double. */
      if (2 * (gsize) (nr + 1) > en->taken.n_buckets)
        {
          guint nb = MAX (en->taken.n_buckets * 2, 1024u);
          const guint64 *hashes = en->taken.hash.data;
          if (!ffm_budget_buffer_reserve (&en->taken.buckets, en->budget,
                                          ffm_budget_bytes (nb, sizeof (guint32))))
            {
              en->taken.full = TRUE;
              return;
            }
          bucket = en->taken.buckets.data;
          next = en->taken.next.data;
          memset (bucket, 0, sizeof (guint32) * nb);
          en->taken.n_buckets = nb;
          for (guint r = 0; r < nr; r++)
            {
              next[r] = bucket[hashes[r] & (nb - 1)];
              bucket[hashes[r] & (nb - 1)] = r + 1;
            }
        }
      bucket = en->taken.buckets.data;
      next = en->taken.next.data;
      ((guint64 *) en->taken.hash.data)[nr] = h;
      if (nd > 0)
        memcpy ((guint64 *) en->taken.diff.data + (gsize) nr * nd, diff, sizeof (guint64) * nd);
      ((guint32 *) en->taken.first.data)[nr] = 0;
      least = (double *) en->taken.least.data + (gsize) nr * ns;
      for (guint x = 0; x < ns; x++)
        least[x] = INFINITY;
      memset ((TakenSegment *) en->taken.segments.data + nr, 0, sizeof (TakenSegment));
      next[nr] = bucket[h & (en->taken.n_buckets - 1)];
      bucket[h & (en->taken.n_buckets - 1)] = nr + 1;
      en->taken.n_records = nr + 1;
      d = nr + 1;
    }
  least = (double *) en->taken.least.data + (gsize) (d - 1) * ns;
  for (guint x = 0; x < ns; x++)
    least[x] = MIN (least[x], slots[2 * x]);
  memcpy ((double *) en->taken.slots.data + (gsize) n * 2 * ns, slots, 2 * sizeof (double) * ns);
  {
    guint32 *first = (guint32 *) en->taken.first.data + (d - 1);
    ((guint32 *) en->taken.leaf_next.data)[n] = *first;
    if (TILES_CHECKING (en))
      ((guint32 *) en->taken.leaf_record.data)[n] = d;
    *first = n + 1;
  }
  ((guint8 *) en->taken.beaten.data)[n] = FALSE;
  ((TakenSegment *) en->taken.segments.data)[d - 1].listed++;
  en->taken.n = n + 1;
}

/* TUNING: the most bytes a template's arena holds (its copy while it is
 * compacted aside); the records that do not fit stay listed. TPUv1 x
 * GPT-3's QK has templates of a million leaves (the store's cap): laid
 * out whole, four copies of each, the arena took some 200 MB per thread
 * and the map's peak rose from 3.9 to 4.2-4.5 GiB; the diffs whose
 * questions the layout speeds up (Z's, V's) are some 250,000 leaves. */
#define TAKEN_ARENA_MAX_BYTES ((gsize) 64 << 20)

/* A leaf and its value in the slot being sorted by. */
typedef struct {
  float key;
  guint32 leaf;
} KeyedLeaf;

static int
keyed_leaf_compare (const void *pa, const void *pb)
{
  const KeyedLeaf *a = pa, *b = pb;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return (a->leaf > b->leaf) - (a->leaf < b->leaf);
}

/* Moves the segments of the records still laid out to the front of a new
 * arena, leaving out the rooms records left for new ones. FALSE when the
 * budget gives no room (the arena stays as it was). */
static gboolean
store_compact (FfmTileSearch *en)
{
  guint ns = en->n_leaf_slots, nr = en->taken.n_records;
  gsize used = en->taken.arena_used - en->taken.arena_garbage, to = 0;
  TakenSegment *segments = en->taken.segments.data;

  if (!ffm_budget_buffer_reserve (&en->taken.spare_values, en->budget,
                                  ffm_budget_bytes (MAX (used, 1), sizeof (float) * ns))
      || !ffm_budget_buffer_reserve (&en->taken.spare_leaf, en->budget,
                                     ffm_budget_bytes (MAX (used, 1), sizeof (guint32))))
    return FALSE;
  for (guint d = 0; d < nr; d++)
    {
      TakenSegment *s = &segments[d];
      gsize room = (gsize) s->c * MIN (ns, TAKEN_SORTED_SLOTS);
      if (s->c == 0)
        continue;
      memcpy ((float *) en->taken.spare_values.data + to * ns,
              (const float *) en->taken.arena_values.data + s->pos * ns,
              room * ns * sizeof (float));
      memcpy ((guint32 *) en->taken.spare_leaf.data + to,
              (const guint32 *) en->taken.arena_leaf.data + s->pos, room * sizeof (guint32));
      s->pos = to;
      to += room;
    }
  {
    FfmBudgetBuffer t;
    t = en->taken.arena_values, en->taken.arena_values = en->taken.spare_values,
      en->taken.spare_values = t;
    t = en->taken.arena_leaf, en->taken.arena_leaf = en->taken.spare_leaf,
      en->taken.spare_leaf = t;
  }
  /* the old arena is not kept for the next compaction: that one's arena
   * will be larger, and the store is most of a large template's memory */
  ffm_budget_buffer_clear (&en->taken.spare_values, en->budget);
  ffm_budget_buffer_clear (&en->taken.spare_leaf, en->budget);
  en->taken.arena_used = to;
  en->taken.arena_garbage = 0;
  return TRUE;
}

/* Lays record @d's leaves out anew at the end of the arena: per sorted
 * copy, its leaves laid out and not beaten (in their order) merged with
 * those listed (sorted), so that a layout costs its leaves, not a sort of
 * them. FALSE when the budget gives no room (the record stays as it was,
 * its listed leaves walked). */
static gboolean
store_lay_out (FfmTileSearch *en, guint d)
{
  guint ns = en->n_leaf_slots, nx = MIN (ns, TAKEN_SORTED_SLOTS), n_listed = 0, m = 0, c;
  TakenSegment *s = (TakenSegment *) en->taken.segments.data + d;
  const guint8 *beaten = en->taken.beaten.data;
  const double *stored = en->taken.slots.data;
  guint32 *first = (guint32 *) en->taken.first.data + d;
  const guint32 *next = en->taken.leaf_next.data;
  gsize pos, room;
  KeyedLeaf *listed;
  float *values;
  const float *old_values;
  guint32 *leaves;
  const guint32 *old_leaves;
  gboolean unsound;

  c = s->n - s->beaten + s->listed;
  c = (c + TAKEN_FLAT_BLOCK - 1) / TAKEN_FLAT_BLOCK * TAKEN_FLAT_BLOCK;
  room = (gsize) c * nx;
  if (c == 0)
    {
      /* every leaf beaten: nothing to lay out */
      en->taken.arena_garbage += (gsize) s->c * nx;
      s->c = s->n = s->listed = s->beaten = 0;
      *first = 0;
      return TRUE;
    }
  if (en->taken.arena_garbage > room && 4 * en->taken.arena_garbage > en->taken.arena_used)
    store_compact (en);
  pos = en->taken.arena_used;
  if ((pos + room) * (sizeof (float) * ns + sizeof (guint32)) > TAKEN_ARENA_MAX_BYTES)
    return FALSE;
  if (!ffm_budget_buffer_reserve (&en->taken.merge, en->budget,
                                  ffm_budget_bytes (MAX (s->listed, 1), sizeof (KeyedLeaf)))
      || !ffm_budget_buffer_reserve (&en->taken.arena_values, en->budget,
                                     ffm_budget_bytes (pos + room, sizeof (float) * ns))
      || !ffm_budget_buffer_reserve (&en->taken.arena_leaf, en->budget,
                                     ffm_budget_bytes (pos + room, sizeof (guint32))))
    return FALSE;
  listed = en->taken.merge.data;
  for (guint32 e = *first; e != 0; e = next[e - 1])
    listed[n_listed++].leaf = e - 1;
  unsound = FFM_TEST_HOOKS && ffm_debug_flag_is_set (FFM_DEBUG_TAKEN_LAYOUT_UNSOUND);
  values = (float *) en->taken.arena_values.data + pos * ns;
  leaves = (guint32 *) en->taken.arena_leaf.data + pos;
  old_values = (const float *) en->taken.arena_values.data + s->pos * ns;
  old_leaves = (const guint32 *) en->taken.arena_leaf.data + s->pos;
  for (guint x = 0; x < nx; x++)
    {
      float *copy = values + (gsize) x * c * ns;
      const float *old_copy = old_values + (gsize) x * s->c * ns;
      const guint32 *old = old_leaves + (gsize) x * s->c;
      guint i = 0, j = 0;
      for (guint l = 0; l < n_listed; l++)
        listed[l].key = (float) stored[(gsize) listed[l].leaf * 2 * ns + 2 * x];
      qsort (listed, n_listed, sizeof (KeyedLeaf), keyed_leaf_compare);
      m = 0;
      while (i < s->n || j < n_listed)
        {
          guint32 e;
          if (i < s->n && (old[i] == TAKEN_FLAT_NONE || beaten[old[i]]))
            {
              i++;
              continue;
            }
          if (j >= n_listed
              || (i < s->n && old_copy[(gsize) x * s->c + i] <= listed[j].key))
            {
              /* from the old layout: its float values as they were */
              for (guint y = 0; y < ns; y++)
                copy[(gsize) y * c + m] = old_copy[(gsize) y * s->c + i];
              e = old[i++];
            }
          else
            {
              e = listed[j++].leaf;
              for (guint y = 0; y < ns; y++)
                copy[(gsize) y * c + m] = (float) stored[(gsize) e * 2 * ns + 2 * y];
              if (unsound)
                for (guint y = 0; y < ns; y++)
                  copy[(gsize) y * c + m] = nextafterf (copy[(gsize) y * c + m], INFINITY);
            }
          leaves[(gsize) x * c + m++] = e;
        }
      for (guint p = m; p < c; p++)
        {
          leaves[(gsize) x * c + p] = TAKEN_FLAT_NONE;
          for (guint y = 0; y < ns; y++)
            copy[(gsize) y * c + p] = INFINITY;
        }
    }
  en->taken.arena_garbage += (gsize) s->c * nx;
  en->taken.arena_used = pos + room;
  s->pos = pos;
  s->c = c;
  s->n = m;
  s->listed = s->beaten = 0;
  *first = 0;
  return TRUE;
}

/* TUNING: a record is laid out once it holds this many leaves; below,
 * its list is walked. TPUv1 x GPT-3's QK and AV have tens of thousands of
 * diffs of a few leaves each: laid out from eight leaves on, they took
 * 3-10 % longer and 0.5 GB more (six sorted copies of every leaf). */
#define TAKEN_LAYOUT_MIN_LEAVES 64u

/* Lays out anew the records of TAKEN_LAYOUT_MIN_LEAVES leaves or more
 * whose leaves listed or beaten since their layout are more than a
 * sixteenth of it (and eight): the questions of the next extension filter
 * them flat; the few listed ones they walk. */
void
tiles_taken_store_flatten (FfmTileSearch *en)
{
  const TakenSegment *segments = en->taken.segments.data;

  if (ffm_debug_flag_is_set (FFM_DEBUG_TAKEN_STORE_LISTS))
    return;
  for (guint d = 0; d < en->taken.n_records; d++)
    {
      const TakenSegment *s = &segments[d];
      if (s->n + s->listed >= TAKEN_LAYOUT_MIN_LEAVES
          && s->listed + s->beaten > s->n / 16 + 8 && !store_lay_out (en, d))
        return;
    }
}
