/* bench-cost-model.c: pmapping evaluations per second per core.
 *
 * The pmapping generator and every strategy call the model in their
 * innermost loop: one compiled template, many tile choices. This benchmark
 * compiles one 10-loop template of a matmul (m = n0 = n1 = 1024) on the
 * TPU-like test architecture (MainMemory, GlobalBuffer, 4 cores, local
 * buffers, 128x128 PEs with weight registers) and evaluates it on a pool of
 * random valid tile vectors, single-threaded, for about a second per run.
 * Prints the rate of each run and the best; exit status 0.
 *
 * Run with `meson test -C BUILD --benchmark` (or directly). */
#include <ffm/ffm.h>
#include <stdio.h>

/* TUNING: enough distinct tile vectors that the rate is not a cache
 * artefact of one vector, few enough to stay in L1/L2 (16 KiB of tiles). */
#define N_TILE_VECTORS 256
#define N_RUNS 3
#define RUN_SECONDS 1.0

static const char *template_json =
  "{\"ffm_mapping\": 1, \"nodes\": ["
  " {\"storage\": [\"T0\", \"W0\"], \"level\": \"MainMemory\"},"
  " {\"temporal\": \"m\", \"tile\": 256},"
  " {\"temporal\": \"n1\", \"tile\": 256},"
  " {\"storage\": [\"T1\", \"W0\"], \"level\": \"GlobalBuffer\"},"
  " {\"temporal\": \"n0\", \"tile\": 128},"
  " {\"spatial\": \"m\", \"tile\": 64, \"level\": \"Cores\", \"dimension\": \"Z\"},"
  " {\"storage\": [\"T0\", \"T1\"], \"level\": \"LocalBuffer\"},"
  " {\"temporal\": \"m\", \"tile\": 1},"
  " {\"spatial\": \"n1\", \"tile\": 1, \"level\": \"PE\", \"dimension\": \"reuse_input\"},"
  " {\"spatial\": \"n0\", \"tile\": 1, \"level\": \"PE\", \"dimension\": \"reuse_output\"},"
  " {\"storage\": [\"W0\"], \"level\": \"Register\"},"
  " {\"compute\": \"Matmul0\", \"level\": \"MAC\"}]}";

/* A random divisor of @n that is at least @n / @max_ratio. */
static guint64
random_divisor (GRand *r, guint64 n, guint64 max_ratio)
{
  for (;;)
    {
      guint64 d = 1u << g_rand_int_range (r, 0, 11);
      if (d <= n && n % d == 0 && n / d <= max_ratio)
        return d;
    }
}

/* Loops in node order: m, n1, n0, m across the cores (<= 4), m, n1 across
 * the PE rows, n0 across the PE columns. */
static void
random_tiles (GRand *r, guint64 *t)
{
  t[0] = random_divisor (r, 1024, 1024);            /* m */
  t[1] = random_divisor (r, 128, 128);              /* n1 (all across PE rows) */
  t[2] = random_divisor (r, 128, 128);              /* n0 (all across PE columns) */
  t[3] = random_divisor (r, t[0], 4);               /* m across cores */
  t[4] = 1;                                          /* m, innermost */
  t[5] = 1;                                          /* n1 across PE rows */
  t[6] = 1;                                          /* n0 across PE columns */
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmParamValues) params = ffm_param_values_new ();
  const char *srcdir = g_getenv ("G_TEST_SRCDIR");
  g_autofree char *arch_path = g_build_filename (srcdir ? srcdir : ".", "data", "cost",
                                                 "tpu-like.json", NULL);
  g_autofree char *workload_path = g_build_filename (srcdir ? srcdir : ".", "..",
                                                     "workloads", "matmuls.json", NULL);
  g_autoptr(FfmArch) arch = NULL;
  g_autoptr(FfmWorkload) workload = NULL;
  g_autoptr(FfmMapping) mapping = NULL;
  g_autoptr(FfmPmappingModel) model = NULL;
  g_autoptr(FfmPmappingCost) cost = NULL;
  g_autoptr(GRand) r = g_rand_new_with_seed (1);
  const GPtrArray *root;
  guint64 *tiles;                 /* [N_TILE_VECTORS][FFM_COST_MAX_LOOPS] */
  double best = 0, checksum = 0;
  guint n_loops;

  ffm_param_values_set (params, "n_einsums", "2");
  ffm_param_values_set (params, "m", "1024");
  ffm_param_values_set (params, "kn", "1024");
  arch = ffm_arch_load_file (arch_path, NULL, &error);
  if (arch != NULL)
    workload = ffm_workload_load (workload_path, params, &error);
  if (workload != NULL)
    mapping = ffm_mapping_load_from_data (template_json, "template", &error);
  if (mapping != NULL)
    {
      root = ffm_mapping_peek_root (mapping);
      model = ffm_pmapping_model_new (workload, arch,
                                      (const FfmMappingNode *const *) root->pdata,
                                      root->len, "template", &error);
    }
  if (model == NULL)
    {
      fprintf (stderr, "bench-cost-model: %s\n", error->message);
      return 1;
    }
  n_loops = ffm_pmapping_model_get_n_loops (model);
  cost = ffm_pmapping_cost_new (model);
  tiles = g_new0 (guint64, N_TILE_VECTORS * FFM_COST_MAX_LOOPS);
  for (guint i = 0; i < N_TILE_VECTORS; i++)
    random_tiles (r, &tiles[i * FFM_COST_MAX_LOOPS]);

  for (guint run = 0; run < N_RUNS; run++)
    {
      gint64 start = g_get_monotonic_time (), elapsed;
      guint64 evaluations = 0;
      do
        {
          /* TUNING: 64K evaluations between clock reads */
          for (guint k = 0; k < 65536; k++)
            {
              ffm_pmapping_model_evaluate (model,
                                           &tiles[(k % N_TILE_VECTORS) * FFM_COST_MAX_LOOPS],
                                           cost);
              checksum += cost->energy;
            }
          evaluations += 65536;
          elapsed = g_get_monotonic_time () - start;
        }
      while (elapsed < RUN_SECONDS * G_USEC_PER_SEC);
      {
        double rate = evaluations / (elapsed / (double) G_USEC_PER_SEC);
        printf ("run %u: %.3g pmapping evaluations per second per core "
                "(%.0f ns each; %u loops, %u buffets)\n", run + 1, rate,
                1e9 / rate, n_loops, ffm_pmapping_model_get_n_buffets (model));
        best = MAX (best, rate);
      }
    }
  printf ("best: %.3g pmapping evaluations per second per core (checksum %g)\n",
          best, checksum);
  g_free (tiles);
  return 0;
}
