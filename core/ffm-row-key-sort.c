/* ffm-row-key-sort.c: the order of a table's rows for its pruning (see
 * ffm-row-key-sort-private.h). */
#include "ffm-row-key-sort-private.h"
#include "ffm-quicksort-private.h"

#include <string.h>

/* The quicksort (ffm-quicksort-private.h); it needs no context. */
#define ROW_KEY_LESS(ctx, a, b) ((void) (ctx), ffm_row_key_less ((a), (b)))
FFM_DEFINE_QUICKSORT (quicksort_keys, FfmRowKey, void, ROW_KEY_LESS)

void
ffm_row_keys_sort (FfmRowKey *keys, gsize n)
{
  quicksort_keys (NULL, keys, n);
}

/* The radix sort: a stable LSD sort of 16-byte items by the hash's top 16
 * bits, then the first unit's bits (made to order as the doubles do),
 * starting from index order, skipping the digits that every item shares;
 * then the runs that agree on both are finished by the quicksort on the
 * whole key (a run whose hashes differ below the top 16 bits, or whose
 * first units are equal). */
typedef struct {
  guint64 first;            /* order_bits() of the first unit */
  guint32 pos;              /* the key's place before the sort */
  guint16 hash_top;
  guint16 unused;
} RadixItem;

G_STATIC_ASSERT (2 * sizeof (RadixItem) + sizeof (FfmRowKey) <= FFM_ROW_KEY_RADIX_SCRATCH);

/* The bits of @x as an unsigned integer that orders as the doubles do
 * (negative values reversed below the positive ones; -0 just below +0,
 * which the runs of equal first units then merge). */
static inline guint64
order_bits (double x)
{
  guint64 bits;

  memcpy (&bits, &x, sizeof bits);
  return (bits >> 63) != 0 ? ~bits : bits | (G_GUINT64_CONSTANT (1) << 63);
}

/* Digits 0-7: the first unit's bytes, lowest first; 8-9: the hash's top
 * two bytes. */
static inline guint
radix_digit (const RadixItem *item, guint d)
{
  return d < 8 ? (guint) (item->first >> (8 * d)) & 0xff
    : (guint) (item->hash_top >> (8 * (d - 8))) & 0xff;
}

void
ffm_row_keys_sort_radix (FfmRowKey *keys, gsize n, void *scratch)
{
  RadixItem *src = scratch, *dst = src + n, *swap;
  FfmRowKey *sorted = (FfmRowKey *) (dst + n);
  gsize count[10][256];

  g_return_if_fail (n <= G_MAXUINT32);
  if (n < 2)
    return;
  memset (count, 0, sizeof count);
  for (gsize i = 0; i < n; i++)
    {
      src[i].first = order_bits (keys[i].first);
      src[i].pos = (guint32) i;
      src[i].hash_top = (guint16) (keys[i].hash >> 48);
      src[i].unused = 0;
      for (guint d = 0; d < 10; d++)
        count[d][radix_digit (&src[i], d)]++;
    }
  for (guint d = 0; d < 10; d++)
    {
      gsize at = 0;
      if (count[d][radix_digit (&src[0], d)] == n)
        continue;           /* one digit for all: nothing moves */
      for (guint x = 0; x < 256; x++)
        {
          gsize c = count[d][x];
          count[d][x] = at;
          at += c;
        }
      for (gsize i = 0; i < n; i++)
        dst[count[d][radix_digit (&src[i], d)]++] = src[i];
      swap = src;
      src = dst;
      dst = swap;
    }
  for (gsize i = 0; i < n; i++)
    sorted[i] = keys[src[i].pos];
  memcpy (keys, sorted, n * sizeof (FfmRowKey));
  /* Runs of one top hash: the whole key decides where the hashes differ
   * below, else where first units are equal (the rest, then the index). */
  for (gsize i = 0, j; i < n; i = j)
    {
      gboolean one_hash = TRUE;
      for (j = i + 1; j < n && keys[j].hash >> 48 == keys[i].hash >> 48; j++)
        one_hash &= keys[j].hash == keys[i].hash;
      if (!one_hash)
        {
          ffm_row_keys_sort (keys + i, j - i);
          continue;
        }
      for (gsize r = i, t; r < j; r = t)
        {
          for (t = r + 1; t < j && keys[t].first == keys[r].first; t++)
            ;
          if (t - r > 1)
            ffm_row_keys_sort (keys + r, t - r);
        }
    }
}
