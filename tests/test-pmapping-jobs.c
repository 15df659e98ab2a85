/* test-pmapping-jobs.c: the pmapping generator's jobs run elsewhere
 * (ffm-pmapping-jobs.h): a job runner that sends most jobs through bytes
 * built by a second, independent set of jobs, in reverse order, gives the
 * same pmapping set bit for bit as the thread pool, equal-Einsum reuse
 * included, and in two waves with the parts the first sends the second
 * (the property `mpirun ffm map` rests on); bytes that are not a
 * result of the job fail with a message, never a crash; the fingerprint
 * tells job lists apart; the results that come as bytes are charged to
 * the memory budget. */
#include <ffm/ffm.h>
#include "ffm-pmapping-jobs.h"
#include "inputs.h"
#include "debug-flags.h"
#include "random-problem.h"

#include <string.h>

/* The runner: every third job here, the others in a second set of jobs
 * built from the same inputs, through bytes, last job first. */
typedef struct {
  FfmWorkload *workload;
  FfmArch *arch;
  guint n_remote;
  gsize parts_bytes;        /* the second wave's parts sent over */
} Elsewhere;

static gboolean
run_elsewhere (FfmPmappingJobs *jobs, gpointer user_data, GError **error)
{
  Elsewhere *e = user_data;
  g_autoptr(FfmPmappingJobs) other = ffm_pmapping_jobs_new (e->workload, e->arch,
                                                            ffm_pmapping_jobs_get_options (jobs),
                                                            error);
  guint n = ffm_pmapping_jobs_get_n_jobs (jobs);
  guint n_first = ffm_pmapping_jobs_get_n_first_wave (jobs);

  g_assert_nonnull (other);
  g_assert_cmpuint (ffm_pmapping_jobs_get_n_jobs (other), ==, n);
  g_assert_cmpuint (ffm_pmapping_jobs_get_n_first_wave (other), ==, n_first);
  g_assert_cmpuint (ffm_pmapping_jobs_get_fingerprint (other), ==,
                    ffm_pmapping_jobs_get_fingerprint (jobs));
  /* The first wave, then the second (each last job first). */
  for (guint wave = 0; wave < 2; wave++)
    {
      guint lo = wave == 0 ? 0 : n_first, hi = wave == 0 ? n_first : n;
      if (wave == 1 && n_first > 0)
        {
          g_autoptr(GBytes) parts = ffm_pmapping_jobs_begin_second_wave (jobs);
          e->parts_bytes = g_bytes_get_size (parts);
          if (!ffm_pmapping_jobs_set_second_wave (other, parts, error))
            return FALSE;
        }
      for (guint i = hi; i-- > lo; )
        {
          if (i % 3 == 0)
            ffm_pmapping_jobs_run (jobs, i);
          else
            {
              double seconds = -1;
              g_autoptr(GBytes) bytes = ffm_pmapping_jobs_run_to_bytes (other, i, &seconds);
              g_assert_cmpfloat (seconds, >=, 0);
              if (!ffm_pmapping_jobs_complete_from_bytes (jobs, i, bytes, error))
                return FALSE;
              e->n_remote++;
            }
        }
    }
  return TRUE;
}

/* Same Einsums, stats' counts, groups, columns, values (bits), refs and
 * tiles. */
static void
assert_sets_equal (const FfmPmappingSet *a, const FfmPmappingSet *b)
{
  guint n_ta, n_tb;
  const guint *ta = ffm_pmapping_set_get_tracked_levels (a, &n_ta);
  const guint *tb = ffm_pmapping_set_get_tracked_levels (b, &n_tb);

  g_assert_cmpuint (n_ta, ==, n_tb);
  g_assert_cmpmem (ta, n_ta * sizeof *ta, tb, n_tb * sizeof *tb);
  g_assert_cmpuint (ffm_pmapping_set_get_n_einsums (a), ==, ffm_pmapping_set_get_n_einsums (b));
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (a); i++)
    {
      const FfmEinsumPmappings *pa = ffm_pmapping_set_get_einsum (a, i);
      const FfmEinsumPmappings *pb = ffm_pmapping_set_get_einsum (b, i);
      const FfmPmappingStats *sa = ffm_einsum_pmappings_get_stats (pa);
      const FfmPmappingStats *sb = ffm_einsum_pmappings_get_stats (pb);

      g_assert_cmpuint (sa->n_evaluated, ==, sb->n_evaluated);
      g_assert_cmpuint (sa->n_valid, ==, sb->n_valid);
      g_assert_cmpint (sa->reused_from, ==, sb->reused_from);
      g_assert_cmpuint (ffm_einsum_pmappings_get_n_groups (pa), ==,
                        ffm_einsum_pmappings_get_n_groups (pb));
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pa); k++)
        {
          const FfmPmappingGroup *ga = ffm_einsum_pmappings_get_group (pa, k);
          const FfmPmappingGroup *gb = ffm_einsum_pmappings_get_group (pb, k);

          g_assert_true (ffm_compatibility_equal (&ga->compat, &gb->compat));
          g_assert_cmpuint (ga->n_columns, ==, gb->n_columns);
          g_assert_cmpuint (ga->n_rows, ==, gb->n_rows);
          g_assert_cmpmem (ga->columns, ga->n_columns * sizeof *ga->columns,
                           gb->columns, gb->n_columns * sizeof *gb->columns);
          g_assert_cmpmem (ga->values, (gsize) ga->n_rows * ga->n_columns * sizeof (double),
                           gb->values, (gsize) gb->n_rows * gb->n_columns * sizeof (double));
          for (guint r = 0; r < ga->n_rows; r++)
            {
              const FfmPmappingModel *m;
              guint n_loops;
              g_assert_cmpuint (ga->refs[r].template_id, ==, gb->refs[r].template_id);
              m = ffm_einsum_pmappings_get_model (pa, ga->refs[r].template_id);
              n_loops = ffm_pmapping_model_get_n_loops (m);
              if (n_loops > 0)
                g_assert_cmpmem (ffm_einsum_pmappings_get_tiles (pa, &ga->refs[r]),
                                 n_loops * sizeof (guint64),
                                 ffm_einsum_pmappings_get_tiles (pb, &gb->refs[r]),
                                 n_loops * sizeof (guint64));
            }
        }
    }
}

/* Returns the bytes of the second wave's parts sent over (0: one wave). */
static gsize
check_same_set_joinable (FfmWorkload *w, FfmArch *a, int max_fused_loops,
                         guint n_threads, gboolean joinable_only)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmPmappingSet) pool = NULL;
  g_autoptr(FfmPmappingSet) spread = NULL;
  FfmPmappingOptions options;
  Elsewhere e = { w, a, 0, 0 };

  ffm_pmapping_options_init (&options);
  options.max_fused_loops = max_fused_loops;
  options.n_threads = n_threads;
  options.drop_unjoinable = joinable_only;
  /* (a job runner's processes search their templates alone, without the
   * Einsum fronts of the thread pool: the same Pareto pmappings, more of
   * them evaluated, rows found in another order) */
  test_debug_push ("no-einsum-front");
  pool = ffm_pmappings_generate (w, a, &options, &error);
  test_debug_pop ();
  g_assert_no_error (error);
  ffm_pmapping_set_job_runner (run_elsewhere, &e);
  spread = ffm_pmappings_generate (w, a, &options, &error);
  ffm_pmapping_set_job_runner (NULL, NULL);
  g_assert_no_error (error);
  g_assert_nonnull (spread);
  assert_sets_equal (pool, spread);
  return e.parts_bytes;
}

static void
check_same_set (FfmWorkload *w, FfmArch *a, int max_fused_loops, guint n_threads)
{
  check_same_set_joinable (w, a, max_fused_loops, n_threads, FALSE);
}

static void
test_same_set_library (void)
{
  const char *const gpt[] = { "new_tokens=64", NULL };
  const char *const matmuls[] = { "n_einsums=4", NULL };
  g_autoptr(FfmArch) nvdla = inputs_load_arch ("nvdla.json");
  g_autoptr(FfmArch) simple = inputs_load_arch ("simple.json");
  g_autoptr(FfmWorkload) w1 = inputs_load_workload ("gpt3-6.7b.json", gpt);
  g_autoptr(FfmWorkload) w2 = inputs_load_workload ("matmuls.json", matmuls);
  g_autoptr(FfmPmappingSet) reused = NULL;
  gboolean any_reused = FALSE;

  check_same_set (w1, nvdla, 1, 2);
  check_same_set (w2, simple, 1, 1);
  check_same_set (w2, simple, 2, 2);
  /* The matmuls' equal Einsums reuse the first one's groups: the copy is
   * made after the jobs, wherever they ran. */
  reused = ffm_pmappings_generate (w2, simple, NULL, NULL);
  g_assert_nonnull (reused);
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (reused); i++)
    any_reused |= ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (reused, i))->reused_from >= 0;
  g_assert_true (any_reused);
}

/* With joinable_only: the first wave's jobs, then the parts, then the
 * others', wherever each ran; the parts' bytes cross over. */
static void
test_same_set_waves (void)
{
  const char *const gpt[] = { "new_tokens=64", NULL };
  g_autoptr(FfmArch) nvdla = inputs_load_arch ("nvdla.json");
  g_autoptr(FfmWorkload) w1 = inputs_load_workload ("gpt3-6.7b.json", gpt);
  gsize with_parts = 0;

  g_assert_cmpuint (check_same_set_joinable (w1, nvdla, 1, 2, TRUE), >, 16);
  g_assert_cmpuint (check_same_set_joinable (w1, nvdla, -1, 1, TRUE), >, 16);
  for (guint64 seed = 1; seed <= 12; seed++)
    {
      g_autoptr(FfmWorkload) w = NULL;
      g_autoptr(FfmArch) a = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(FfmPmappingSet) probe = NULL;
      FfmPmappingOptions options;

      random_problem_make_fused (seed, &w, &a);
      ffm_pmapping_options_init (&options);
      options.drop_unjoinable = TRUE;
      probe = ffm_pmappings_generate (w, a, &options, &error);
      if (probe == NULL)
        continue;       /* infeasible, or nothing joins: nothing to compare */
      with_parts += check_same_set_joinable (w, a, (int) (seed % 3) - 1,
                                             1 + (guint) (seed % 2), TRUE) > 16;
    }
  g_test_message ("%" G_GSIZE_FORMAT " random problems sent parts over", with_parts);
  g_assert_cmpuint (with_parts, >, 0);
}

/* Parts' bytes that are not the parts of these jobs. */
static void
test_bad_parts (void)
{
  const char *const gpt[] = { "new_tokens=64", NULL };
  g_autoptr(FfmArch) a = inputs_load_arch ("nvdla.json");
  g_autoptr(FfmWorkload) w = inputs_load_workload ("gpt3-6.7b.json", gpt);
  FfmPmappingOptions options;
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmPmappingJobs) source = NULL;
  g_autoptr(GBytes) good = NULL;
  gsize size;
  const guint8 *data;

  ffm_pmapping_options_init (&options);
  options.drop_unjoinable = TRUE;
  options.n_threads = 1;
  source = ffm_pmapping_jobs_new (w, a, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ffm_pmapping_jobs_get_n_first_wave (source), >, 0);
  for (guint i = 0; i < ffm_pmapping_jobs_get_n_first_wave (source); i++)
    ffm_pmapping_jobs_run (source, i);
  good = ffm_pmapping_jobs_begin_second_wave (source);
  data = g_bytes_get_data (good, &size);
  g_assert_cmpuint (size, >, 16);
  for (guint k = 0; k < 4; k++)
    {
      g_autoptr(FfmPmappingJobs) target = ffm_pmapping_jobs_new (w, a, &options, &error);
      g_autoptr(GBytes) bad = NULL;
      g_autofree guint8 *copy = g_memdup2 (data, size);
      g_assert_no_error (error);
      if (k == 0)
        bad = g_bytes_new (data, size - 1);             /* truncated */
      else if (k == 1)
        bad = g_bytes_new (data, 8);                    /* shorter than the header */
      else if (k == 2)
        {
          memset (copy + 16, 0xff, 8);                  /* a list of no Einsum */
          bad = g_bytes_new (copy, size);
        }
      else
        {
          copy[0] ^= 1;                                 /* not parts */
          bad = g_bytes_new (copy, size);
        }
      g_assert_false (ffm_pmapping_jobs_set_second_wave (target, bad, &error));
      g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED);
      g_test_message ("%s", error->message);
      g_clear_error (&error);
    }
}

static void
test_same_set_random (void)
{
  for (guint64 seed = 1; seed <= 12; seed++)
    {
      g_autoptr(FfmWorkload) w = NULL;
      g_autoptr(FfmArch) a = NULL;
      int max_fused_loops;

      random_problem_make (seed, &w, &a, &max_fused_loops);
      check_same_set (w, a, max_fused_loops, 1 + (guint) (seed % 2));
    }
}

/* Bytes that are not the job's result: truncated, grown, zeroed, empty. */
static void
test_bad_bytes (void)
{
  const char *const matmuls[] = { "n_einsums=2", NULL };
  g_autoptr(FfmArch) a = inputs_load_arch ("simple.json");
  g_autoptr(FfmWorkload) w = inputs_load_workload ("matmuls.json", matmuls);
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmPmappingJobs) source = ffm_pmapping_jobs_new (w, a, NULL, &error);
  g_autoptr(GBytes) good = NULL;
  gsize size;
  const guint8 *data;

  g_assert_no_error (error);
  g_assert_cmpuint (ffm_pmapping_jobs_get_n_jobs (source), >, 0);
  good = ffm_pmapping_jobs_run_to_bytes (source, 0, NULL);
  data = g_bytes_get_data (good, &size);
  g_assert_cmpuint (size, >, 64);
  for (guint variant = 0; variant < 5; variant++)
    {
      g_autoptr(FfmPmappingJobs) target = ffm_pmapping_jobs_new (w, a, NULL, &error);
      g_autoptr(GBytes) bad = NULL;
      g_autofree guint8 *copy = g_memdup2 (data, size + 8);

      g_assert_no_error (error);
      switch (variant)
        {
        case 0: bad = g_bytes_new (data, size - 1); break;
        case 1: bad = g_bytes_new (copy, size + 8); break;      /* trailing bytes */
        case 2: memset (copy, 0, size); bad = g_bytes_new (copy, size); break;
        case 3: bad = g_bytes_new (NULL, 0); break;
        default:
          copy[8] ^= 0x40;      /* the writer's sizeof (FfmCompatibility) */
          bad = g_bytes_new (copy, size);
          break;
        }
      g_assert_false (ffm_pmapping_jobs_complete_from_bytes (target, 0, bad, &error));
      g_assert_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "template 0 of Einsum"));
      g_clear_error (&error);
    }
}

/* The runner of test_results_charged(): every job in a second set of
 * jobs without a budget, through bytes. */
static gboolean
run_all_elsewhere (FfmPmappingJobs *jobs, gpointer user_data, GError **error)
{
  Elsewhere *e = user_data;
  FfmPmappingOptions unlimited = *ffm_pmapping_jobs_get_options (jobs);
  g_autoptr(FfmPmappingJobs) other = NULL;

  unlimited.max_memory = 0;
  other = ffm_pmapping_jobs_new (e->workload, e->arch, &unlimited, error);
  g_assert_nonnull (other);
  g_assert_cmpuint (ffm_pmapping_jobs_get_n_first_wave (jobs), ==, 0);
  for (guint i = 0; i < ffm_pmapping_jobs_get_n_jobs (jobs); i++)
    {
      g_autoptr(GBytes) bytes = ffm_pmapping_jobs_run_to_bytes (other, i, NULL);
      if (!ffm_pmapping_jobs_complete_from_bytes (jobs, i, bytes, error))
        return FALSE;
    }
  return TRUE;
}

/* The rows of results that came as bytes are held until their Einsum's
 * merge, charged to the budget of the rank that merges: a budget that
 * holds the templates and little more stops the generation with the
 * budget's error at the first result it cannot hold (uncharged, the
 * results all came in and the merge ran out). */
static void
test_results_charged (void)
{
  const char *const matmuls[] = { "n_einsums=2", "m=64", "kn=64", NULL };
  g_autoptr(FfmArch) a = inputs_load_arch ("simple.json");
  g_autoptr(FfmWorkload) w = inputs_load_workload ("matmuls.json", matmuls);
  g_autoptr(FfmPmappingSet) set = NULL;
  g_autoptr(GError) error = NULL;
  FfmPmappingOptions options;
  Elsewhere e = { w, a, 0, 0 };
  guint n_templates = 0;

  ffm_pmapping_options_init (&options);
  options.reuse_equal_einsums = FALSE;
  options.n_threads = 1;
  set = ffm_pmappings_generate (w, a, &options, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    n_templates += ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (set, i))->n_templates;
  g_clear_pointer (&set, ffm_pmapping_set_free);

  /* The templates (16 KiB each) and 1 KiB. */
  options.max_memory = (guint64) n_templates * 16 * 1024 + 1024;
  ffm_pmapping_set_job_runner (run_all_elsewhere, &e);
  set = ffm_pmappings_generate (w, a, &options, &error);
  ffm_pmapping_set_job_runner (NULL, NULL);
  g_assert_null (set);
  g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY);
  g_test_message ("%s", error->message);
  /* The first result that came, not the merge after them all. */
  g_assert_true (g_regex_match_simple ("^Einsum Matmul[01], template [0-9]+ of [0-9]+: .* "
                                       "needs more memory than the budget of .* "
                                       "\\(--max-memory\\)", error->message, 0, 0));
}

static void
test_fingerprint (void)
{
  const char *const two[] = { "n_einsums=2", NULL };
  const char *const three[] = { "n_einsums=3", NULL };
  const char *const larger[] = { "n_einsums=2", "m=512", NULL };
  g_autoptr(FfmArch) a = inputs_load_arch ("simple.json");
  g_autoptr(FfmWorkload) w2 = inputs_load_workload ("matmuls.json", two);
  g_autoptr(FfmWorkload) w3 = inputs_load_workload ("matmuls.json", three);
  g_autoptr(FfmWorkload) w2l = inputs_load_workload ("matmuls.json", larger);
  g_autoptr(FfmPmappingJobs) j2 = ffm_pmapping_jobs_new (w2, a, NULL, NULL);
  g_autoptr(FfmPmappingJobs) j2again = ffm_pmapping_jobs_new (w2, a, NULL, NULL);
  g_autoptr(FfmPmappingJobs) j3 = ffm_pmapping_jobs_new (w3, a, NULL, NULL);
  g_autoptr(FfmPmappingJobs) j2l = ffm_pmapping_jobs_new (w2l, a, NULL, NULL);

  /* Same templates, other sizes: the signatures differ. */
  g_assert_cmpuint (ffm_pmapping_jobs_get_n_jobs (j2), ==, ffm_pmapping_jobs_get_n_jobs (j2l));
  g_assert_cmpuint (ffm_pmapping_jobs_get_fingerprint (j2), ==,
                    ffm_pmapping_jobs_get_fingerprint (j2again));
  g_assert_cmpuint (ffm_pmapping_jobs_get_fingerprint (j2), !=,
                    ffm_pmapping_jobs_get_fingerprint (j3));
  g_assert_cmpuint (ffm_pmapping_jobs_get_fingerprint (j2), !=,
                    ffm_pmapping_jobs_get_fingerprint (j2l));
  g_assert_cmpstr (ffm_pmapping_jobs_describe (j2, 0, NULL), !=, NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pmapping-jobs/same-set/library", test_same_set_library);
  g_test_add_func ("/pmapping-jobs/same-set/random", test_same_set_random);
  g_test_add_func ("/pmapping-jobs/same-set/waves", test_same_set_waves);
  g_test_add_func ("/pmapping-jobs/bad-parts", test_bad_parts);
  g_test_add_func ("/pmapping-jobs/bad-bytes", test_bad_bytes);
  g_test_add_func ("/pmapping-jobs/fingerprint", test_fingerprint);
  g_test_add_func ("/pmapping-jobs/results-charged", test_results_charged);
  return g_test_run ();
}
