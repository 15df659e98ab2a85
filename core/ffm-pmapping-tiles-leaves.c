/* ffm-pmapping-tiles-leaves.c: the last depth of the breadth-first tile
 * search (ffm-pmapping-tiles.c): complete rows pruned by the few slots the
 * groups keep and evaluated (ffm-pmapping-tiles-leaf.c); the leaves taken
 * go to the store (ffm-pmapping-tiles-taken.c), against which the next
 * chunks' complete rows are checked before they are written
 * (ffm-pmapping-tiles-extend.c). */
#include "ffm-pmapping-private.h"
#include "ffm-row-key-sort-private.h"

#include <math.h>
#include <string.h>

/* Leaves between two polls of the time limit and the cancel flag (a power
 * of two; a leaf's evaluation takes about a microsecond). */
#define LEAF_POLL_ROWS 1024u

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
              tiles_taken_store_add (en, diffs + (gsize) r * nd, hash_diff (diffs + (gsize) r * nd, nd),
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
            tiles_taken_store_add (en, diffs + (gsize) r * nd, keys[i].hash, row);
        }
    }
}
