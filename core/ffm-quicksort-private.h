/* ffm-quicksort-private.h (private): a quicksort with its comparison
 * inlined, written once for the arrays of sort keys that the hot paths
 * order (the pruning of partial tile tables, ffm-row-key-sort.c, and of
 * Pareto tables, ffm-pareto.c): a comparison through a callback per call
 * was measured at twice the time.
 *
 * FFM_DEFINE_QUICKSORT (name, Type, Context, less) defines
 *   static void name (const Context *ctx, Type *items, gsize n);
 * which sorts @items by less (ctx, a, b) (a macro or inline function
 * taking the context and two const Type pointers). Median of three, the
 * smaller part first (so the stack is logarithmic), insertion sorts below
 * 17 items. The items must be distinct under less (an index breaking
 * ties): then no pivot degenerates on equal items, and every correct sort
 * gives the same order. */
#pragma once

#include <glib.h>

#define FFM_DEFINE_QUICKSORT(name, Type, Context, less)                       \
static void                                                                   \
name (const Context *ctx, Type *items, gsize n)                               \
{                                                                             \
  Type pivot, tmp;                                                            \
                                                                              \
  while (n > 16)                                                              \
    {                                                                         \
      gsize mid = n / 2, i = 0, j = n - 1;                                    \
      if (less (ctx, &items[mid], &items[0]))                                 \
        { tmp = items[mid]; items[mid] = items[0]; items[0] = tmp; }          \
      if (less (ctx, &items[n - 1], &items[0]))                               \
        { tmp = items[n - 1]; items[n - 1] = items[0]; items[0] = tmp; }      \
      if (less (ctx, &items[n - 1], &items[mid]))                             \
        { tmp = items[n - 1]; items[n - 1] = items[mid]; items[mid] = tmp; }  \
      pivot = items[mid];                                                     \
      for (;;)                                                                \
        {                                                                     \
          while (less (ctx, &items[i], &pivot))                               \
            i++;                                                              \
          while (less (ctx, &pivot, &items[j]))                               \
            j--;                                                              \
          if (i >= j)                                                         \
            break;                                                            \
          tmp = items[i]; items[i] = items[j]; items[j] = tmp;                \
          i++;                                                                \
          j--;                                                                \
        }                                                                     \
      /* [0, j] <= pivot <= [j + 1, n): recurse into the smaller part */      \
      if (j + 1 < n - (j + 1))                                                \
        {                                                                     \
          name (ctx, items, j + 1);                                           \
          items += j + 1;                                                     \
          n -= j + 1;                                                         \
        }                                                                     \
      else                                                                    \
        {                                                                     \
          name (ctx, items + j + 1, n - (j + 1));                             \
          n = j + 1;                                                          \
        }                                                                     \
    }                                                                         \
  for (gsize i = 1; i < n; i++)                                               \
    {                                                                         \
      Type x = items[i];                                                      \
      gsize k = i;                                                            \
      for (; k > 0 && less (ctx, &x, &items[k - 1]); k--)                     \
        items[k] = items[k - 1];                                              \
      items[k] = x;                                                           \
    }                                                                         \
}
