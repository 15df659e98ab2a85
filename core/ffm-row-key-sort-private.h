/* ffm-row-key-sort-private.h (private): sorting the keys of a table of
 * partial tile vectors before its pruning by dominance
 * (ffm-pmapping-tiles-table.c, tiles_table_prune()).
 *
 * A row's key is its diff (hashed), then its first unit, then a positive
 * weighting of its other units, then its index. Rows with equal diffs end
 * up together (a hash collision only interleaves two groups, which costs
 * pruning, never correctness: rows are compared only when their diffs are
 * equal), a row's dominators come before it, and similar rows sit close
 * together, which is what the pruning's comparison window relies on.
 *
 * Two sorts give the same order (the keys are distinct: the index breaks
 * ties): a quicksort with the comparison inlined, for small tables, and a
 * radix sort for large ones, whose keys do not fit in the caches (GPT-3's
 * V sorts tables of a million rows, which the quicksort took 0.16 s each
 * for). tests/test-row-key-sort.c checks that they agree. */
#pragma once

#include <glib.h>

typedef struct {
  guint64 hash;             /* of the row's diff */
  double first;             /* its first unit */
  double rest;              /* the other units, weighted */
  guint index;              /* the row */
} FfmRowKey;

/* Whether @a sorts before @b. */
static inline gboolean
ffm_row_key_less (const FfmRowKey *a, const FfmRowKey *b)
{
  if (a->hash != b->hash)
    return a->hash < b->hash;
  if (a->first != b->first)
    return a->first < b->first;
  if (a->rest != b->rest)
    return a->rest < b->rest;
  return a->index < b->index;
}

/* Bytes of scratch per key that ffm_row_keys_sort_radix() needs. */
#define FFM_ROW_KEY_RADIX_SCRATCH 64

/* Sorts @keys (@n of them) by ffm_row_key_less(), in place. */
void ffm_row_keys_sort (FfmRowKey *keys, gsize n);

/* The same order by radix: @scratch holds at least
 * FFM_ROW_KEY_RADIX_SCRATCH bytes per key and is overwritten. */
void ffm_row_keys_sort_radix (FfmRowKey *keys, gsize n, void *scratch);
