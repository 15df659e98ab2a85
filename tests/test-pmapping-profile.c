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

/* The pmappings of @params' matmul chain on @arch, two threads, Einsums of
 * the same shape reused (transfer full). */
static FfmPmappingSet *
generate_reused (const char *arch, const char *const *params)
{
  g_autoptr(FfmWorkload) w = inputs_load_workload ("matmuls.json", params);
  g_autoptr(FfmArch) a = inputs_load_arch (arch);
  g_autoptr(GError) error = NULL;
  FfmPmappingOptions options;
  FfmPmappingSet *set;

  ffm_pmapping_options_init (&options);
  options.n_threads = 2;
  options.reuse_equal_einsums = TRUE;
  set = ffm_pmappings_generate (w, a, &options, &error);
  g_assert_no_error (error);
  return set;
}

static void
test_profile_phases (void)
{
  const char *const params[] = { "n_einsums=4", "m=256", "kn=256", NULL };
  double before = process_cpu_seconds (), total = 0;
  g_autoptr(FfmPmappingSet) set = generate_reused ("simple.json", params);
  guint enumerated = 0, reused = 0;

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

/* The bytes a finished set holds for one Einsum's Pareto rows: values,
 * references and the tiles of the rows kept, nothing else. */
static guint64
rows_bytes (const FfmEinsumPmappings *pm)
{
  guint64 bytes = 0;

  for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
    {
      const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
      bytes += (guint64) g->n_rows * (g->n_columns * sizeof (double) + sizeof (FfmPmappingRef));
      for (guint r = 0; r < g->n_rows; r++)
        bytes += sizeof (guint64)
          * ffm_pmapping_model_get_n_loops (ffm_einsum_pmappings_get_model (pm,
                                                                            g->refs[r].template_id));
    }
  return bytes;
}

/* What the generation holds once finished is what its rows need, plus the
 * templates at their documented 16 KiB each (docs/limits.md): the tile
 * pool keeps only the tiles of the rows the Pareto pruning kept (it held
 * every row's before, and the Einsums of the same shape each copied and
 * were charged that whole pool), and rows the finished set drops (groups
 * no neighbour joins, untracked reservations) give their bytes back. */
static void
memory_held (const char *arch, const char *const *params)
{
  g_autoptr(FfmPmappingSet) set = generate_reused (arch, params);
  guint64 rows = 0, templates = 0;
  guint reused = 0;

  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      const FfmPmappingStats *st = ffm_einsum_pmappings_get_stats (pm);
      rows += rows_bytes (pm);
      templates += (guint64) ffm_einsum_pmappings_get_n_templates (pm) * 16 * 1024;
      reused += st->reused_from >= 0;
      /* every row's tiles lie in the pool */
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
        {
          const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
          for (guint r = 0; r < g->n_rows; r++)
            g_assert_nonnull (ffm_einsum_pmappings_get_tiles (pm, &g->refs[r]));
        }
    }
  g_assert_cmpuint (reused, >=, 1);
  g_assert_cmpuint (rows, >, 0);
  g_test_message ("held %" G_GUINT64_FORMAT " bytes: rows %" G_GUINT64_FORMAT
                  ", templates %" G_GUINT64_FORMAT, ffm_pmapping_set_get_memory_held (set),
                  rows, templates);
  g_assert_cmpuint (ffm_pmapping_set_get_memory_held (set), ==, rows + templates);
}

static void
test_memory_held (void)
{
  const char *const simple[] = { "n_einsums=6", "m=256", "kn=256", NULL };
  const char *const small[] = { "n_einsums=4", "m=64", "kn=64", NULL };

  memory_held ("simple.json", simple);
  /* per-tensor scratchpads: rows dropped after the charge (untracked
   * reservations) */
  memory_held ("eyeriss-v1.json", small);
  memory_held ("gemmini.json", small);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pmapping-profile/phases", test_profile_phases);
  g_test_add_func ("/pmapping-profile/memory-held", test_memory_held);
  return g_test_run ();
}
