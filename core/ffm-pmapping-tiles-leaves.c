/* ffm-pmapping-tiles-leaves.c: the last depth of the breadth-first tile
 * search (ffm-pmapping-tiles.c): complete rows pruned by the few slots the
 * groups keep and evaluated (ffm-pmapping-tiles-leaf.c), and the store of
 * the leaves taken, against which the next chunks' complete rows are
 * checked before they are written (ffm-pmapping-tiles-extend.c). */
#include "ffm-pmapping-private.h"
#include "ffm-row-key-sort-private.h"

#include <math.h>
#include <string.h>

/* TUNING: leaves a template's store keeps (taken_store_add()): at most
 * 2^20 leaves of about a hundred bytes each (slots and a link; each
 * distinct diff once more, with its hash and least slots), taken from
 * the generation's budget; past it the chunks that follow only
 * prune among themselves, as before the store. GPT-3's V at unlimited
 * fused loops: 84 % of its largest templates' complete rows are dominated
 * by a leaf of an earlier chunk. */
#define TAKEN_STORE_MAX (1u << 20)

/* Leaves between two polls of the time limit and the cancel flag (a power
 * of two; a leaf's evaluation takes about a microsecond). */
#define LEAF_POLL_ROWS 1024u

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
  en->taken.n_buckets = en->taken.n_records = en->taken.n = 0;
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
 * the lists, their order or the least values: the check mode's witness
 * of tiles_taken_store_record() and tiles_taken_store_dominates() (a leaf they miss
 * would only cost time, so no other test sees it). */
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

/* Adds a taken tiles_leaf (its diff and slots) to the store; when the budget or
 * the cap says no, the store stops growing (the search stays exact). */
static void
taken_store_add (FfmTileSearch *en, const guint64 *diff, guint64 h, const double *slots)
{
  guint nd = en->n_diff, ns = en->n_leaf_slots, n = en->taken.n;
  guint32 d;
  double *least;

  if (en->taken.full)
    return;
  if (n >= TAKEN_STORE_MAX
      || !ffm_budget_buffer_reserve (&en->taken.leaf_next, en->budget,
                                     ffm_budget_bytes (n + 1, sizeof (guint32)))
      || (TILES_CHECKING (en)
          && !ffm_budget_buffer_reserve (&en->taken.leaf_record, en->budget,
                                         ffm_budget_bytes (n + 1, sizeof (guint32))))
      || !ffm_budget_buffer_reserve (&en->taken.slots, en->budget,
                                     ffm_budget_bytes (n + 1, 2 * sizeof (double) * ns)))
    {
      en->taken.full = TRUE;
      return;
    }
  d = tiles_taken_store_record (en, diff, h);
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
                                         ffm_budget_bytes (nr + 1, sizeof (double) * MAX (ns, 1))))
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
  en->taken.n = n + 1;
}

/* Whether a pmapping of the Einsum's earlier waves of templates beats
 * complete row @r of @t (ffm-pmapping-tiles-incumbent.c): its leaf is
 * not evaluated. Only where the Einsum front reaches the template
 * (einsum_front_reaches(): elsewhere none of its groups has a point).
 * Rows are not held to the template's own leaves here: the taken leaves
 * of their diff below do that. */
static gboolean
leaf_beaten (FfmTileSearch *en, const Table *t, guint r)
{
  return en->fused_first && en->front_phi != NULL
         && tiles_incumbent_beats (en, t, r, en->n_vars);
}

/* The leaves of the complete rows of @t, each evaluated unless a row of
 * the same diff whose leaf a group took matches or beats it in every slot
 * (setup_leaf_slots(), by the rounding margin of unit_dominates()): the
 * groups keep only those quantities, so they would drop its leaf. Only
 * rows whose leaves were valid dominate: the occupancy units of memories
 * the groups ignore no longer show that a dominator fits wherever the row
 * does. Rows go in sort order (tiles_table_prune()), so that dominators come
 * first; a row is compared with the PRUNE_WINDOW rows taken last before
 * it. Such a table is not pruned by its units first (search_chunks()):
 * a row another matches or beats in every unit is dropped here too, once
 * that one's leaf is valid. Small tables, and templates whose groups
 * compare every unit, take every leaf. */
void
tiles_search_leaves (FfmTileSearch *en, const Table *t, PruneScratch *ps)
{
  guint n_rows = t->n_rows, ns = en->n_leaf_slots, nd = en->n_diff, n_taken = 0;
  guint start = 0, fail = 0;
  const guint64 *diffs = TABLE_DIFF (t);
  gboolean store = tiles_taken_store_on (en);
  FfmRowKey *keys;
  guint *taken;
  double *slots;

  if (n_rows < PRUNE_MIN_ROWS || !leaves_pruned (en) || ns > MAX_VARS * 64
      || !tiles_prune_scratch_reserve (en, ps, n_rows, en->n_units[en->n_vars]))
    {
      for (guint r = 0; r < n_rows && !en->stopped; r++)
        {
          if ((r & (LEAF_POLL_ROWS - 1)) == 0 && search_interrupted (en))
            break;
          if (leaf_beaten (en, t, r))
            continue;
          tiles_restore_row (en, t, r, en->n_vars);
          if (TILES_CHECKING (en))
            tiles_check_table_row (en, t, r);
          en->out->n_partial++;
          if (tiles_leaf (en) && store)
            {
              /* taken: later chunks' rows it dominates are not written */
              double row[2 * MAX_VARS * 64];
              tiles_leaf_slots (en, t, r, row);
              taken_store_add (en, diffs + (gsize) r * nd, hash_diff (diffs + (gsize) r * nd, nd),
                               row);
            }
        }
      return;
    }
  keys = ps->keys.data;
  taken = ps->kept.data;
  slots = ps->vals.data;
  /* Each row's slots once, in table order (2 ns <= 2 units per row: they
   * fit the scratch), then keys as tiles_table_prune() makes them. */
  {
    double weight[MAX_VARS * 64];
    for (guint x = 0; x < ns; x++)
      weight[x] = 0;
    for (guint r = 0; r < n_rows; r++)
      {
        double *row = slots + (gsize) r * 2 * ns;
        tiles_leaf_slots (en, t, r, row);
        for (guint x = 0; x < ns; x++)
          weight[x] = MAX (weight[x], fabs (row[2 * x]));
      }
    for (guint x = 0; x < ns; x++)
      weight[x] = weight[x] > 0 ? 1 / weight[x] : 0;
    for (guint r = 0; r < n_rows; r++)
      {
        const double *row = slots + (gsize) r * 2 * ns;
        double rest = 0;
        for (guint x = 1; x < ns; x++)
          rest += row[2 * x] * weight[x];
        keys[r].hash = hash_diff (diffs + (gsize) r * nd, nd);
        keys[r].first = row[0];
        keys[r].rest = rest;
        keys[r].index = r;
      }
  }
  /* The radix sort's scratch follows the slots, when the scratch has room. */
  if (n_rows >= en->radix_min_rows
      && (ps->vals.capacity - (gsize) n_rows * 2 * ns * sizeof (double))
         / FFM_ROW_KEY_RADIX_SCRATCH >= n_rows)
    {
      ffm_row_keys_sort_radix (keys, n_rows, slots + (gsize) n_rows * 2 * ns);
      if (TILES_CHECKING (en))
        for (guint i = 1; i < n_rows; i++)
          if (!ffm_row_key_less (&keys[i - 1], &keys[i]))
            g_warning ("radix sort: leaf key %u of %u is out of order", i, n_rows);
    }
  else
    ffm_row_keys_sort (keys, n_rows);

  for (guint i = 0; i < n_rows && !en->stopped; i++)
    {
      guint r = keys[i].index;
      const double *row = slots + (gsize) r * 2 * ns;
      gboolean dominated = FALSE;
      if ((i & (LEAF_POLL_ROWS - 1)) == 0 && search_interrupted (en))
        break;
      if (i > 0 && keys[i].hash != keys[i - 1].hash)
        start = n_taken;    /* a new diff */
      for (guint k = n_taken; k-- > start && !dominated && n_taken - k <= PRUNE_WINDOW; )
        {
          const FfmRowKey *q = &keys[taken[k]];
          if (q->rest > keys[i].rest)
            continue;
          dominated = unit_dominates (slots + (gsize) q->index * 2 * ns, row, ns, NULL, &fail)
            && diff_equal (diffs + (gsize) q->index * nd, diffs + (gsize) r * nd, nd);
        }
      en->out->n_partial++;
      if (dominated && !TILES_CHECKING (en))
        continue;     /* its tiles are not needed */
      if (!dominated && leaf_beaten (en, t, r))
        continue;
      tiles_restore_row (en, t, r, en->n_vars);
      if (TILES_CHECKING (en))
        tiles_check_table_row (en, t, r);
      if (!dominated && tiles_leaf (en))
        {
          taken[n_taken++] = i;
          if (store)
            taken_store_add (en, diffs + (gsize) r * nd, keys[i].hash, row);
        }
    }
}
