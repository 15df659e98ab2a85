/* test-joinable-parts.c: unit tests of the parts of shared tensors that
 * pmappings must agree on to be joined (core/ffm-joinable-parts.c). The
 * generator's use of them is tested in test-pmapping.c
 * (/pmapping/joinable-only). */
#include "ffm-joinable-parts-private.h"

#include <string.h>

static FfmPartLoop
part_loop (int rank, guint64 count, guint64 tile, int fanout_level, int fanout_dim)
{
  FfmPartLoop l = { rank, fanout_level >= 0, fanout_level, fanout_dim, count, tile };
  return l;
}

static guint64
hash_of (guint level, gboolean persistent, const FfmPartLoop *loops, guint n)
{
  FfmPartLoop copy[FFM_COMPAT_MAX_LOOPS];

  if (n > 0)
    memcpy (copy, loops, sizeof (FfmPartLoop) * n);
  return ffm_joinable_part_hash (level, persistent, copy, n);
}

static void
test_hash (void)
{
  const FfmPartLoop loops[3] = {
    part_loop (0, 2, 8, -1, -1), part_loop (2, 4, 1, -1, -1), part_loop (1, 2, 3, 4, 1) };
  const FfmPartLoop reversed[3] = { loops[2], loops[1], loops[0] };
  guint64 h = hash_of (1, FALSE, loops, 3);

  g_test_summary ("A part's hash does not depend on the order of its loops and "
                  "changes with every field");
  g_assert_cmpuint (h, ==, hash_of (1, FALSE, reversed, 3));
  g_assert_cmpuint (h, !=, hash_of (2, FALSE, loops, 3));
  g_assert_cmpuint (h, !=, hash_of (1, TRUE, loops, 3));
  g_assert_cmpuint (h, !=, hash_of (1, FALSE, loops, 2));
  for (guint field = 0; field < 6; field++)
    {
      FfmPartLoop changed[3];
      memcpy (changed, loops, sizeof changed);
      switch (field)
        {
        case 0: changed[0].rank = 1; break;
        case 1: changed[0].count = 4; break;
        case 2: changed[0].tile = 4; break;
        case 3: changed[2].spatial = 0; break;
        case 4: changed[2].fanout_level = 5; break;
        default: changed[2].fanout_dim = 0; break;
        }
      g_assert_cmpuint (h, !=, hash_of (1, FALSE, changed, 3));
    }
  /* no loops: a part of its own, per memory */
  g_assert_cmpuint (hash_of (1, FALSE, NULL, 0), !=, hash_of (2, FALSE, NULL, 0));
}

static FfmPart
make_part (guint level, const FfmPartLoop *loops, guint n)
{
  FfmPart p = { level, FALSE, n, { { 0 } } };

  if (n > 0)
    memcpy (p.loops, loops, sizeof (FfmPartLoop) * n);
  /* sorted, as ffm_joinable_part_of_compat() gives them */
  ffm_joinable_part_hash (p.level, p.persistent, p.loops, p.n_loops);
  return p;
}

static void
test_restrict_and_project (void)
{
  const FfmPartLoop a[2] = { part_loop (0, 2, 1, -1, -1), part_loop (1, 4, 2, -1, -1) };
  const FfmPartLoop b[1] = { part_loop (1, 4, 2, -1, -1) };
  const FfmPartLoop c[1] = { part_loop (0, 2, 1, -1, -1) };
  const FfmPartLoop other[1] = { part_loop (0, 4, 1, -1, -1) };
  g_autoptr(FfmJoinableParts) parts = ffm_joinable_parts_new ();
  g_autoptr(GArray) list = g_array_new (FALSE, FALSE, sizeof (FfmPart));
  g_autoptr(GArray) over_r0 = NULL;
  g_autoptr(GArray) over_all = NULL;
  FfmPart p;

  g_test_summary ("An access with a list allows its parts only, one without "
                  "allows any; the list projected onto some ranks holds each "
                  "part's loops over them");
  p = make_part (1, a, 2);
  g_array_append_val (list, p);
  p = make_part (1, b, 1);
  g_array_append_val (list, p);
  g_array_append_val (list, p);     /* repeats are one */
  p = make_part (1, c, 1);
  g_array_append_val (list, p);
  ffm_joinable_parts_restrict (parts, 2, list);

  g_assert_cmpuint (ffm_joinable_parts_count_restricted (parts), ==, 1);
  g_assert_true (ffm_joinable_parts_restricts (parts, 2));
  g_assert_false (ffm_joinable_parts_restricts (parts, 0));
  g_assert_true (ffm_joinable_parts_allows (parts, 2, hash_of (1, FALSE, a, 2)));
  g_assert_true (ffm_joinable_parts_allows (parts, 2, hash_of (1, FALSE, b, 1)));
  g_assert_true (ffm_joinable_parts_allows (parts, 2, hash_of (1, FALSE, c, 1)));
  g_assert_false (ffm_joinable_parts_allows (parts, 2, hash_of (1, FALSE, other, 1)));
  g_assert_false (ffm_joinable_parts_allows (parts, 2, hash_of (0, FALSE, c, 1)));
  g_assert_false (ffm_joinable_parts_allows (parts, 2, hash_of (1, FALSE, NULL, 0)));
  g_assert_true (ffm_joinable_parts_allows (parts, 0, hash_of (1, FALSE, other, 1)));
  g_assert_null (ffm_joinable_parts_project (parts, 0, 1));

  /* onto rank 0: a -> {r0 2x1}, b -> {}, c -> {r0 2x1} */
  over_r0 = ffm_joinable_parts_project (parts, 2, 1u << 0);
  g_assert_cmpuint (over_r0->len, ==, 2);
  g_assert_true (ffm_joinable_hashes_have (over_r0, hash_of (1, FALSE, c, 1)));
  g_assert_true (ffm_joinable_hashes_have (over_r0, hash_of (1, FALSE, NULL, 0)));
  g_assert_false (ffm_joinable_hashes_have (over_r0, hash_of (1, FALSE, other, 1)));
  /* onto every rank: the parts themselves */
  over_all = ffm_joinable_parts_project (parts, 2, G_MAXUINT64);
  g_assert_cmpuint (over_all->len, ==, 3);
  g_assert_true (ffm_joinable_hashes_have (over_all, hash_of (1, FALSE, a, 2)));

  /* a new list replaces the old one */
  g_array_set_size (list, 0);
  p = make_part (1, other, 1);
  g_array_append_val (list, p);
  ffm_joinable_parts_restrict (parts, 2, list);
  g_assert_false (ffm_joinable_parts_allows (parts, 2, hash_of (1, FALSE, a, 2)));
  g_assert_true (ffm_joinable_parts_allows (parts, 2, hash_of (1, FALSE, other, 1)));

  /* an empty list allows nothing; an empty array (its data NULL) holds
   * nothing (the sanitizer build checks bsearch() never gets NULL) */
  g_array_set_size (list, 0);
  ffm_joinable_parts_restrict (parts, 2, list);
  g_assert_true (ffm_joinable_parts_restricts (parts, 2));
  g_assert_false (ffm_joinable_parts_allows (parts, 2, hash_of (1, FALSE, other, 1)));
  {
    g_autoptr(GArray) none = g_array_new (FALSE, FALSE, sizeof (guint64));
    g_assert_false (ffm_joinable_hashes_have (none, 42));
  }
}

static void
test_of_compat (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmWorkload) w = ffm_workload_load_from_data (
    "{\"ffm_workload\": 1, \"name\": \"two\", \"ranks\": {\"M\": 8, \"N\": 4, \"K\": 4}, "
    "\"bits_per_value\": {\"all\": 8}, "
    "\"einsums\": [\"B[m,n] = A[m,k] * W[k,n]\", \"C[n,m] = B[m,n]\"]}",
    "two", NULL, &error);
  const FfmEinsum *copy;
  FfmCompatibility compat;
  FfmPart part;
  FfmPartLoop expect[2];
  int access_b, var_m, var_n;
  guint64 h;

  g_test_summary ("A compatibility's part names each loop by the rank of the "
                  "tensor it walks, whatever the Einsum calls the variable");
  g_assert_no_error (error);
  copy = ffm_workload_get_einsum (w, 1);
  access_b = ffm_einsum_find_access (copy, (guint) ffm_workload_find_tensor (w, "B"));
  var_m = ffm_einsum_find_rank_var (copy, "m");
  var_n = ffm_einsum_find_rank_var (copy, "n");
  g_assert_cmpint (access_b, >=, 0);
  g_assert_cmpint (var_m, >=, 0);
  g_assert_cmpint (var_n, >=, 0);

  memset (&compat, 0, sizeof compat);
  compat.einsum = 1;
  compat.n_loops = 2;
  compat.loops[0] = (FfmCompatLoop) { (guint) var_n, FALSE, -1, -1, 2, 2 };
  compat.loops[1] = (FfmCompatLoop) { (guint) var_m, FALSE, -1, -1, 4, 2 };
  compat.n_tensors = 1;
  compat.tensors[0].tensor = (guint) ffm_workload_find_tensor (w, "B");
  compat.tensors[0].access = (guint) access_b;
  compat.tensors[0].backing_level = 1;
  compat.tensors[0].n_loops = 2;
  h = ffm_joinable_part_of_compat (w, copy, &compat, 0, &part);

  /* B's ranks are (M, N): the n loop walks rank 1, the m loop rank 0 */
  expect[0] = part_loop (1, 2, 2, -1, -1);
  expect[1] = part_loop (0, 4, 2, -1, -1);
  g_assert_cmpuint (h, ==, hash_of (1, FALSE, expect, 2));
  g_assert_cmpuint (part.n_loops, ==, 2);
  g_assert_cmpint (part.loops[0].rank, ==, 0);      /* sorted */
  g_assert_cmpint (part.loops[1].rank, ==, 1);
  /* only the tensor's own loops: one of two */
  compat.tensors[0].n_loops = 1;
  g_assert_cmpuint (ffm_joinable_part_of_compat (w, copy, &compat, 0, NULL), ==,
                    hash_of (1, FALSE, expect, 1));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/joinable-parts/hash", test_hash);
  g_test_add_func ("/joinable-parts/restrict-and-project", test_restrict_and_project);
  g_test_add_func ("/joinable-parts/of-compat", test_of_compat);
  return g_test_run ();
}
