/* test-pmapping-profile.c: the generator's profile (FfmPmappingProfile,
 * what `ffm map --stats` prints as seconds_cpu_*): every enumerated Einsum
 * shows the CPU time of its tile search and its nested phases, which add
 * up to no more than the whole; its partial rows and largest table; an
 * Einsum that copies another's pmappings searches nothing; the phases' sum
 * is no more than the process's CPU time. */
#include <ffm/ffm.h>

#include <time.h>

static FfmWorkload *
load_workload (const char *file, const char *const *assignments)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmParamValues) values = ffm_param_values_new ();
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "workloads",
                                                 file, NULL);
  FfmWorkload *w;

  for (guint i = 0; assignments != NULL && assignments[i] != NULL; i++)
    g_assert_true (ffm_param_values_parse_assignment (values, assignments[i], NULL));
  w = ffm_workload_load (path, values, &error);
  g_assert_no_error (error);
  return w;
}

static FfmArch *
load_arch (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "arch-models",
                                                 "json", "architectures", name, NULL);
  FfmArch *a = ffm_arch_load_file (path, NULL, &error);
  g_assert_no_error (error);
  return a;
}

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
  g_autoptr(FfmWorkload) w = load_workload ("matmuls.json", params);
  g_autoptr(FfmArch) a = load_arch ("simple.json");
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
