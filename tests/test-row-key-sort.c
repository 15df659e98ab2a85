/* test-row-key-sort.c: the two sorts of the tables' pruning keys
 * (core/ffm-row-key-sort.c) give the same order, the order of
 * ffm_row_key_less(), on keys built to hit the radix sort's corners: hashes
 * that share their top 16 bits, equal first units, -0 and +0, negative
 * units, one hash for all, one first unit for all. */
#include "ffm-row-key-sort-private.h"

#include <math.h>
#include <string.h>

typedef enum {
  SHAPE_RANDOM,             /* random hashes and units */
  SHAPE_FEW_HASHES,         /* 5 hashes, 3 sharing their top 16 bits */
  SHAPE_ONE_HASH,           /* one hash, first units with many ties */
  SHAPE_ONE_FIRST,          /* few hashes, one first unit */
  SHAPE_SIGNED,             /* -0, +0, negative and positive units */
  N_SHAPES
} Shape;

static const char *shape_names[N_SHAPES] = {
  "random", "few hashes", "one hash", "one first unit", "signed",
};

static void
fill_keys (FfmRowKey *keys, gsize n, Shape shape, GRand *rand)
{
  static const guint64 few[] = {
    G_GUINT64_CONSTANT (0x1234000000000001), G_GUINT64_CONSTANT (0x1234000000000002),
    G_GUINT64_CONSTANT (0x1234ffff00000000), G_GUINT64_CONSTANT (0x0000000000000007),
    G_GUINT64_CONSTANT (0xffff000000000000),
  };
  static const double signed_units[] = { -0.0, 0.0, -1.5, 1.5, -1e-300, 1e300, 2.0, -2.0 };

  for (gsize i = 0; i < n; i++)
    {
      FfmRowKey *k = &keys[i];
      k->index = (guint) i;
      k->rest = (double) g_rand_int_range (rand, 0, 50) / 7;
      switch (shape)
        {
        case SHAPE_RANDOM:
          k->hash = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
          k->first = g_rand_double_range (rand, 0, 1e6);
          k->rest = g_rand_double (rand);
          break;
        case SHAPE_FEW_HASHES:
          k->hash = few[g_rand_int_range (rand, 0, G_N_ELEMENTS (few))];
          k->first = (double) g_rand_int_range (rand, 0, 1000) * 0.25;
          break;
        case SHAPE_ONE_HASH:
          k->hash = few[0];
          k->first = (double) g_rand_int_range (rand, 0, 20);
          break;
        case SHAPE_ONE_FIRST:
          k->hash = few[g_rand_int_range (rand, 0, 3)];
          k->first = 3.25;
          break;
        case SHAPE_SIGNED:
          k->hash = few[g_rand_int_range (rand, 0, 2)];
          k->first = signed_units[g_rand_int_range (rand, 0, G_N_ELEMENTS (signed_units))];
          break;
        default:
          g_assert_not_reached ();
        }
    }
  /* Shuffle, so that the index is not the input order. */
  for (gsize i = n; i > 1; i--)
    {
      gsize j = (gsize) g_rand_int_range (rand, 0, (gint32) i);
      FfmRowKey t = keys[i - 1];
      keys[i - 1] = keys[j];
      keys[j] = t;
    }
}

static void
test_sorts_agree (void)
{
  static const gsize sizes[] = { 0, 1, 2, 3, 17, 100, 4097, 70000 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261203);

  g_test_summary ("The quicksort and the radix sort of pruning keys give the "
                  "same order, ffm_row_key_less()'s");
  for (guint s = 0; s < N_SHAPES; s++)
    for (guint z = 0; z < G_N_ELEMENTS (sizes); z++)
      {
        gsize n = sizes[z];
        g_autofree FfmRowKey *quick = g_new (FfmRowKey, MAX (n, 1));
        g_autofree FfmRowKey *radix = g_new (FfmRowKey, MAX (n, 1));
        g_autofree guint8 *scratch = g_malloc (MAX (n, 1) * FFM_ROW_KEY_RADIX_SCRATCH);

        fill_keys (quick, n, (Shape) s, rand);
        memcpy (radix, quick, n * sizeof (FfmRowKey));
        ffm_row_keys_sort (quick, n);
        ffm_row_keys_sort_radix (radix, n, scratch);
        for (gsize i = 1; i < n; i++)
          g_assert_true (ffm_row_key_less (&quick[i - 1], &quick[i]));
        for (gsize i = 0; i < n; i++)
          if (quick[i].index != radix[i].index)
            g_error ("%s, %" G_GSIZE_FORMAT " keys: position %" G_GSIZE_FORMAT
                     " holds row %u after the quicksort, %u after the radix sort",
                     shape_names[s], n, i, quick[i].index, radix[i].index);
        g_test_message ("%s: %" G_GSIZE_FORMAT " keys agree", shape_names[s], n);
      }
}

/* -0 and +0 are equal first units: the rest decides between them, as
 * ffm_row_key_less() says, although their bits differ. */
static void
test_signed_zero (void)
{
  FfmRowKey keys[3] = {
    { .hash = 1, .first = 0.0, .rest = 2, .index = 0 },
    { .hash = 1, .first = -0.0, .rest = 3, .index = 1 },
    { .hash = 1, .first = -0.0, .rest = 1, .index = 2 },
  };
  guint8 scratch[3 * FFM_ROW_KEY_RADIX_SCRATCH];

  ffm_row_keys_sort_radix (keys, 3, scratch);
  g_assert_cmpuint (keys[0].index, ==, 2);
  g_assert_cmpuint (keys[1].index, ==, 0);
  g_assert_cmpuint (keys[2].index, ==, 1);
  g_assert_true (signbit (keys[2].first));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/row-key-sort/sorts-agree", test_sorts_agree);
  g_test_add_func ("/row-key-sort/signed-zero", test_signed_zero);
  return g_test_run ();
}
