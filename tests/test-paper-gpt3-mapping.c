/* test-paper-gpt3-mapping.c: the checks of the FFM paper's §7.6 GPT-3
 * mapping (paper-gpt3-mapping.h) on mappings written by hand, one that
 * does everything the paper says and variants that each break one point.
 * The workload is gpt3-6.7b at batch 2 and 4096 tokens: 4 cores of 1024
 * tokens each, the paper's 1024 tokens below the registers' WQ. */
#include "paper-gpt3-mapping.h"

static FfmWorkload *
load_workload (void)
{
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  FfmWorkload *w;

  ffm_param_values_set (values, "batch", "2");
  ffm_param_values_set (values, "new_tokens", "4096");
  w = ffm_workload_load ("gpt3-6.7b", values, &error);
  g_assert_no_error (error);
  return w;
}

/* The paper's mapping, reduced to what the checks read: @glb_wq the GLB
 * node of WQ with its loops, @q_cores the loop across the cores in Q,
 * @reg the loops below the registers' WQ, @qk the loops above QK's and
 * QK_softmax's GLB nodes. */
static GArray *
points_of (const char *glb_wq, const char *q_cores, const char *reg, const char *qk)
{
  g_autoptr (FfmWorkload) w = load_workload ();
  g_autoptr (GError) error = NULL;
  g_autofree char *json = g_strdup_printf (
    "{\"ffm_mapping\": 1, \"nodes\": [{\"sequential\": ["
    "[%s, {\"temporal\": \"b\", \"tile\": 1},"
    " {\"storage\": [\"I\"], \"level\": \"GlobalBuffer\"},"
    " {\"storage\": [\"Q\"], \"level\": \"GlobalBuffer\"},"
    " %s, {\"storage\": [\"WQ\"], \"level\": \"Register\"}, %s,"
    " {\"compute\": \"Q\", \"level\": \"MAC\"}],"
    "[{\"storage\": [\"WK\"], \"level\": \"GlobalBuffer\"}, {\"temporal\": \"b\", \"tile\": 1},"
    " {\"storage\": [\"K\"], \"level\": \"GlobalBuffer\"}, {\"compute\": \"K\", \"level\": \"MAC\"}],"
    "[{\"storage\": [\"WV\"], \"level\": \"GlobalBuffer\"}, {\"temporal\": \"b\", \"tile\": 1},"
    " {\"compute\": \"V\", \"level\": \"MAC\"}],"
    "[%s, {\"storage\": [\"QK\", \"QK_softmax\"], \"level\": \"GlobalBuffer\"},"
    " {\"sequential\": [[{\"compute\": \"QK\", \"level\": \"MAC\"}],"
    " [{\"compute\": \"QK_softmax\", \"level\": \"ScalarUnit\"}]]}]"
    "]}]}", glb_wq, q_cores, reg, qk);
  g_autoptr (FfmMapping) m = ffm_mapping_load_from_data (json, "hand-written", &error);

  g_assert_no_error (error);
  return paper_gpt3_points (m, w, 4);
}

#define GLB_WQ "{\"storage\": [\"WQ\"], \"level\": \"GlobalBuffer\"}"
#define CORES_M "{\"spatial\": \"m\", \"tile\": 1024, \"level\": \"Cores\", \"dimension\": \"Z\"}"
#define REG_1024 "{\"temporal\": \"m\", \"tile\": 1}"
#define QK_HEADS "{\"temporal\": \"b\", \"tile\": 1}, {\"temporal\": \"h\", \"tile\": 1}"

static void
assert_points (GArray *points, const gboolean *holds, const char *const *found)
{
  g_assert_cmpuint (points->len, ==, 5);
  for (guint i = 0; i < points->len; i++)
    {
      const PaperPoint *p = &g_array_index (points, PaperPoint, i);
      g_test_message ("%s: %s -> %s", p->paper, p->found, p->holds ? "holds" : "differs");
      g_assert_cmpint (p->holds, ==, holds[i]);
      if (found[i] != NULL)
        g_assert_cmpstr (p->found, ==, found[i]);
    }
}

static void
test_paper_mapping (void)
{
  g_autoptr (GArray) points = points_of (GLB_WQ, CORES_M, REG_1024, QK_HEADS);
  static const gboolean holds[] = { TRUE, TRUE, TRUE, TRUE, TRUE };
  static const char *const found[] = {
    "WQ: whole in the GlobalBuffer, a batch loop below it; WK: whole in the "
    "GlobalBuffer, a batch loop below it; WV: whole in the GlobalBuffer, a batch loop below it",
    "I: b tile 1 (2 iterations) (in Q); Q: b tile 1 (2 iterations) (in Q); "
    "K: b tile 1 (2 iterations) (in K)",
    "QK: b tile 1 (2 iterations), h tile 1 (32 iterations); "
    "QK_softmax: b tile 1 (2 iterations), h tile 1 (32 iterations)",
    "parallel over m across 4 cores (4 of 4 used)",
    "1024x (m 1024)",
  };

  assert_points (points, holds, found);
}

/* Each variant breaks one point, and only that one. */
static void
test_variants (void)
{
  /* WQ tiled by heads above its GLB node */
  g_autoptr (GArray) tiled = points_of ("{\"temporal\": \"h\", \"tile\": 8}, " GLB_WQ,
                                        CORES_M, REG_1024, QK_HEADS);
  /* QK tiled by batch only */
  g_autoptr (GArray) batch_only = points_of (GLB_WQ, CORES_M, REG_1024,
                                             "{\"temporal\": \"b\", \"tile\": 1}");
  /* the cores over heads, not tokens */
  g_autoptr (GArray) heads = points_of (GLB_WQ,
                                        "{\"spatial\": \"h\", \"tile\": 8, \"level\": \"Cores\", \"dimension\": \"Z\"}",
                                        REG_1024, QK_HEADS);
  /* half the reuse: tokens in tiles of 2 below the registers */
  g_autoptr (GArray) half = points_of (GLB_WQ, CORES_M, "{\"temporal\": \"m\", \"tile\": 2}",
                                       QK_HEADS);
  static const gboolean h_tiled[] = { FALSE, TRUE, TRUE, TRUE, TRUE };
  static const gboolean h_batch[] = { TRUE, TRUE, FALSE, TRUE, TRUE };
  static const gboolean h_heads[] = { TRUE, TRUE, TRUE, FALSE, FALSE };
  static const gboolean h_half[] = { TRUE, TRUE, TRUE, TRUE, FALSE };
  const char *const f_tiled[] = {
    "WQ: h tile 8 (4 iterations) in the GlobalBuffer, a batch loop below it; WK: whole in "
    "the GlobalBuffer, a batch loop below it; WV: whole in the GlobalBuffer, a batch loop below it",
    NULL, NULL, NULL, NULL };
  const char *const f_batch[] = { NULL, NULL,
    "QK: b tile 1 (2 iterations); QK_softmax: b tile 1 (2 iterations)", NULL, NULL };
  /* with the cores over heads, m below the registers runs all 4096 tokens */
  const char *const f_heads[] = { NULL, NULL, NULL,
    "parallel over h across 4 cores (4 of 4 used)", "4096x (m 4096)" };
  const char *const f_half[] = { NULL, NULL, NULL, NULL, "512x (m 512)" };

  assert_points (tiled, h_tiled, f_tiled);
  assert_points (batch_only, h_batch, f_batch);
  assert_points (heads, h_heads, f_heads);
  assert_points (half, h_half, f_half);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/paper-gpt3-mapping/paper", test_paper_mapping);
  g_test_add_func ("/paper-gpt3-mapping/variants", test_variants);
  return g_test_run ();
}
