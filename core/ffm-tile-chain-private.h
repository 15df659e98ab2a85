/* ffm-tile-chain-private.h (private): the exact counts of one rank
 * variable's loops when tiles need not divide (imperfect factorization).
 *
 * A loop over rank variable v with tile t inside a block of extent e runs
 * ceil(e / t) iterations: floor(e / t) of extent t and, when t does not
 * divide e, a last one of extent e mod t (the remainder tile). A variable's
 * loops (outermost first, in path order) cut [0, bound) into nested
 * blocks; the blocks at one depth have few distinct extents (at most one
 * more than the depth), so a walk keeps them as (extent, multiplicity)
 * pairs. Every count of the cost model is a product over rank variables of
 * one such walk (docs/cost-model.md, "Remainder tiles"), each loop of the
 * variable taken in one of three modes:
 *   SUM   every iteration (a sum over the loop's iterations);
 *   FIX   its first iteration only, the block of extent min(t, e): a fixed
 *         spatial instance (the busiest, index 0), or a loop a count
 *         projects away (the distinct iterations of the other loops are
 *         those under the largest block);
 *   SKIP  the walk stops: the loop and those below it are not above what
 *         is counted.
 * The walk returns the number of blocks reached and the sum of their
 * extents. With tiles that divide, count = product of the SUM loops'
 * iteration counts and extent = count x the last tile: the closed form of
 * the perfect model.
 *
 * Shared by the cost model (ffm-cost-pmapping.c), the cost terms of the
 * tile search (ffm-pmapping-terms.c) and the imperfect tile enumeration
 * (ffm-pmapping-imperfect.c), so that the three count the same. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

enum {
  FFM_CHAIN_SKIP = 0,
  FFM_CHAIN_FIX,
  FFM_CHAIN_SUM,
};

/* Iterations of a loop of tile @tile inside a block of @enclosing (the
 * largest block, that of the first iterations of the loops above). */
static inline guint64
ffm_chain_iterations (guint64 enclosing, guint64 tile)
{
  return enclosing / tile + (enclosing % tile != 0);
}

/* Walks loops 0..@n-1 (at most 64) of one rank variable from one block of
 * @bound with tiles @tiles and modes @modes (FFM_CHAIN_*). @count gets the
 * number of blocks reached, @extent the sum of their extents. Tiles must
 * be >= 1. Sets *@ovf when a sum does not fit in 64 bits. */
static inline void
ffm_chain_walk (guint64 bound, const guint64 *tiles, const guint8 *modes,
                guint n, guint64 *count, guint64 *extent, gboolean *ovf)
{
  /* n + 1 distinct extents at most: the tile of the last SUM loop and one
   * remainder per loop. */
  guint64 ext[66], mult[66];
  guint n_blocks = 1;

  ext[0] = bound;
  mult[0] = 1;
  for (guint i = 0; i < n && i < 64; i++)
    {
      guint64 t = tiles[i];
      if (modes[i] == FFM_CHAIN_SKIP)
        break;
      if (modes[i] == FFM_CHAIN_FIX)
        {
          for (guint k = 0; k < n_blocks; k++)
            ext[k] = MIN (ext[k], t);
        }
      else
        {
          guint64 full = 0, rem_ext[66], rem_mult[66];
          guint n_rem = 0;
          for (guint k = 0; k < n_blocks; k++)
            {
              guint64 q = ext[k] / t, r = ext[k] % t, add;
              if (__builtin_mul_overflow (mult[k], q, &add)
                  || __builtin_add_overflow (full, add, &full))
                *ovf = TRUE;
              if (r != 0)
                {
                  rem_ext[n_rem] = r;
                  rem_mult[n_rem++] = mult[k];
                }
            }
          n_blocks = 0;
          if (full > 0)
            {
              ext[0] = t;
              mult[0] = full;
              n_blocks = 1;
            }
          for (guint k = 0; k < n_rem; k++)
            {
              ext[n_blocks] = rem_ext[k];
              mult[n_blocks++] = rem_mult[k];
            }
        }
      /* merge equal extents (FIX and remainders can make them meet) */
      for (guint a = 0; a < n_blocks; a++)
        for (guint b = a + 1; b < n_blocks; )
          if (ext[b] == ext[a])
            {
              mult[a] += mult[b];
              ext[b] = ext[n_blocks - 1];
              mult[b] = mult[--n_blocks];
            }
          else
            b++;
    }
  *count = 0;
  *extent = 0;
  for (guint k = 0; k < n_blocks; k++)
    {
      guint64 e;
      if (__builtin_add_overflow (*count, mult[k], count)
          || __builtin_mul_overflow (mult[k], ext[k], &e)
          || __builtin_add_overflow (*extent, e, extent))
        *ovf = TRUE;
    }
}

G_END_DECLS
