/* ffm-pmapping-imperfect.c: the tile sizes of the mapspace with remainder
 * tiles (imperfect factorization), for the pmapping generator.
 *
 * The space (docs/pmapping-generator.md, "Remainder tiles"): for each rank
 * variable, its loops outermost first,
 *   - while every loop above has one iteration (its tile is the bound B), a
 *     loop whose kind (spatial, temporal) the options let have a remainder
 *     takes any tile of T(B) = { ceil(B / n) : n = 1 .. B }, for every
 *     iteration count n the smallest tile that gives it (T(B) holds every
 *     divisor of B: d = ceil(B / (B / d)));
 *   - below the first loop of more than one iteration, every loop divides
 *     its enclosing tile (the remainder block is cut by the same tiles, so
 *     it may leave remainders of its own);
 *   - the innermost loop has tile 1.
 * Why only the first loop of more than one iteration: two adjacent loops
 * of one variable with tiles t0 and t1 | t0 (or t0 the enclosing tile)
 * cut a block exactly as one loop of tile t1 does: floor(e / t0) t0-blocks
 * give t0 / t1 t1-blocks each, the remainder block e mod t0 gives
 * floor((e mod t0) / t1) of them and e mod t1 (t1 | t0), so the blocks
 * below are the same. The template rules that merge or move loops of one
 * variable (ffm-pmapping-template.c (a), (c), (d)) rely on that, and T(B)
 * is closed under divisors (d | ceil(B / n) gives d = ceil(B / (n t / d)),
 * t = ceil(B / n)), so the merged loop's tile stays in the space. A loop
 * with a remainder further down, below a loop that divides, would cut
 * every block the same way and could not be merged.
 *
 * Why the smallest tile for each count: it is the tile of least occupancy
 * for that count; a larger tile of the same count leaves a smaller last
 * block, which is not always worse (its blocks split differently below),
 * so the space leaves out some mappings of every tile size 1..B; see the
 * doc for what that costs on small problems. */
#include "ffm-pmapping-private.h"

#include <string.h>

void
ffm_pmapping_remainder_tile_sizes (guint64 enclosing, GArray *out)
{
  g_return_if_fail (out != NULL && enclosing >= 1);

  /* n = 1, 2, ...: ceil(e / n) decreases; each distinct value once */
  for (guint64 n = 1; n <= enclosing; )
    {
      guint64 t = enclosing / n + (enclosing % n != 0);
      g_array_append_val (out, t);
      if (t == 1)
        break;
      /* the next count with a smaller tile: the least n' with
       * ceil(e / n') < t, i.e. n' > (e - 1) / (t - 1) */
      n = (enclosing - 1) / (t - 1) + 1;
    }
}

/* Appends to @out every chain of loops [i, n) below a block of
 * @enclosing. @open: every loop above has one iteration. */
static void
chains_from (guint64 bound, const gboolean *may_remainder, guint n, guint i,
             guint64 enclosing, gboolean open, guint64 *tiles, GArray *out)
{
  g_autoptr(GArray) sizes = NULL;

  if (i == n)
    {
      g_array_append_vals (out, tiles, n);
      return;
    }
  if (i + 1 == n)
    {
      tiles[i] = 1;   /* the innermost loop goes down to one point */
      chains_from (bound, may_remainder, n, n, 1, FALSE, tiles, out);
      return;
    }
  sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  if (open && may_remainder[i])
    ffm_pmapping_remainder_tile_sizes (enclosing, sizes);
  else
    {
      /* divisors, largest first: e / d for the small divisors d, then the
       * small divisors from the largest down */
      guint n_small;
      for (guint64 d = 1; d <= enclosing / d; d++)
        if (enclosing % d == 0)
          {
            guint64 q = enclosing / d;
            g_array_append_val (sizes, q);
          }
      n_small = sizes->len;
      for (guint k = n_small; k-- > 0; )
        {
          guint64 d = enclosing / g_array_index (sizes, guint64, k);
          if (d != g_array_index (sizes, guint64, k))
            g_array_append_val (sizes, d);
        }
    }
  for (guint k = 0; k < sizes->len; k++)
    {
      guint64 t = g_array_index (sizes, guint64, k);
      tiles[i] = t;
      chains_from (bound, may_remainder, n, i + 1, t, open && t == enclosing,
                   tiles, out);
    }
}

void
ffm_pmapping_remainder_chains (guint64 bound, const gboolean *may_remainder,
                               guint n_loops, GArray *out)
{
  guint64 tiles[FFM_COST_MAX_LOOPS];

  g_return_if_fail (n_loops <= FFM_COST_MAX_LOOPS);
  if (n_loops == 0)
    return;
  chains_from (bound, may_remainder, n_loops, 0, bound, TRUE, tiles, out);
}
