/* test-pmapping-profile.c: the generator's profile (FfmPmappingProfile,
 * what `ffm map --stats` prints as seconds_cpu_*): every enumerated Einsum
 * shows the CPU time of its tile search and its nested phases, which add
 * up to no more than the whole; its partial rows and largest table; an
 * Einsum that copies another's pmappings searches nothing; the phases' sum
 * is no more than the process's CPU time. */
#include <ffm/ffm.h>
#include "inputs.h"

#include <time.h>

static double
process_cpu_seconds (void)
{
  struct timespec ts;

  g_assert_cmpint (clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts), ==, 0);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static void
test_profile_phases (void)
{
  const char *const params[] = { "n_einsums=4", "m=256", "kn=256", NULL };
  g_autoptr(FfmWorkload) w = inputs_load_workload ("matmuls.json", params);
  g_autoptr(FfmArch) a = inputs_load_arch ("simple.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmPmappingSet) set = NULL;
  FfmPmappingOptions options;
  double before = process_cpu_seconds (), total = 0;
  guint enumerated = 0, reused = 0;

  ffm_pmapping_options_init (&options);
  options.n_threads = 2;
  options.reuse_equal_einsums = TRUE;
  set = ffm_pmappings_generate (w, a, &options, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      const FfmPmappingStats *st = ffm_einsum_pmappings_get_stats (pm);
      const FfmPmappingProfile *p = ffm_einsum_pmappings_get_profile (pm);
      double nested = p->cpu_order + p->cpu_extend + p->cpu_partial_pruning + p->cpu_leaves;

      if (st->reused_from >= 0)
        {
          /* A copy builds its templates (its signature is made of them)
           * and searches none. */
          g_assert_cmpfloat (p->cpu_tiles, ==, 0);
          g_assert_cmpfloat (p->cpu_extend, ==, 0);
          g_assert_cmpfloat (p->cpu_groups, ==, 0);
          g_assert_cmpuint (p->n_partial_rows, ==, 0);
          reused++;
          continue;
        }
      enumerated++;
      g_assert_cmpfloat (p->cpu_templates, >, 0);
      g_assert_cmpfloat (p->cpu_tiles, >, 0);
      g_assert_cmpfloat (p->cpu_extend, >, 0);
      g_assert_cmpfloat (p->cpu_leaves, >, 0);
      g_assert_cmpfloat (p->cpu_groups, >, 0);
      g_assert_cmpfloat (p->cpu_order, >=, 0);
      g_assert_cmpfloat (p->cpu_partial_pruning, >=, 0);
      /* The phases inside the tile search do not overlap. */
      g_assert_cmpfloat (nested, <=, p->cpu_tiles * (1 + 1e-9) + 1e-6);
      /* Every table was filled by the extension: the partial rows count
       * each table's rows once, the largest at least once. */
      g_assert_cmpuint (p->peak_table_rows, >, 0);
      g_assert_cmpuint (p->n_partial_rows, >=, p->peak_table_rows);
      total += p->cpu_templates + p->cpu_tiles;
    }
  g_assert_cmpuint (enumerated, >=, 1);
  g_assert_cmpuint (reused, >=, 1);
  /* Thread times of the phases: no more than the process spent. */
  g_assert_cmpfloat (total, <=, process_cpu_seconds () - before + 1e-3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pmapping-profile/phases", test_profile_phases);
  return g_test_run ();
}
