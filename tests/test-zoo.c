/* test-zoo.c: every architecture of the zoo (docs/architectures.md, "The
 * architecture zoo") maps small workloads end to end through `ffm map`:
 * two chained matmuls (a shared intermediate to fuse or not) and one
 * 7-rank convolution (tests/data/zoo/conv-layer.json, Timeloop's example
 * problem made small). Each run must end by itself within its deadline
 * with a mapping that fits, finite positive energy and latency and a
 * strict JSON result: never an abort, whatever the hierarchy (per-tensor
 * scratchpads side by side, 5-8 memory levels, up to seven fanouts).
 * The full-size cells are the `zoo` benchmark (tests/bench-zoo.c). */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "ffm-run.h"
#include "json-strict.h"

typedef struct {
  const char *arch;
  /* MAERI-like has six fanout levels of two: the generator's time grows
   * steeply with them (docs/architectures.md), so it maps smaller sizes */
  const char *matmul_size;
  const char *conv_size;
} ZooCase;

static const ZooCase cases[] = {
  { "timeloop-eyeriss-like", "8", "3" }, { "timeloop-simba-like", "8", "3" },
  { "timeloop-simple-os", "8", "3" }, { "timeloop-simple-ws", "8", "3" },
  { "eyeriss-v1", "8", "3" }, { "eyeriss-v2", "8", "3" }, { "gemmini", "8", "3" },
  { "tpu-v1", "8", "3" }, { "shidiannao", "8", "3" }, { "systolic-os", "8", "3" },
  { "systolic-ws", "8", "3" }, { "maeri-like", "2", "2" }, { "nvdla-small", "8", "3" },
  { "nvdla-large", "8", "3" },
};

static void
check_result (const ZooCase *c, const char *what, const char *json_path)
{
  g_autofree char *text = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonObject *o;
  double energy, latency;

  g_assert_true (g_file_get_contents (json_path, &text, NULL, NULL));
  json_strict_assert (text, json_path);
  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  o = json_node_get_object (json_parser_get_root (parser));
  energy = json_object_get_double_member (o, "energy_j");
  latency = json_object_get_double_member (o, "latency_s");
  if (!(isfinite (energy) && energy > 0 && isfinite (latency) && latency > 0))
    g_error ("%s x %s: energy %g J, latency %g s", c->arch, what, energy, latency);
  g_assert_true (json_object_get_boolean_member (o, "fits"));
}

static void
run_map (const ZooCase *c, const char *what, const char *const *workload_args)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-zoo");
  g_autofree char *json = g_build_filename (dir, "result.json", NULL);
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_auto (FfmTestRun) run = { 0 };
  FfmTestRunOptions options = { 0 };

  g_ptr_array_add (args, "map");
  g_ptr_array_add (args, (gpointer) "--arch");
  g_ptr_array_add (args, (gpointer) c->arch);
  for (guint i = 0; workload_args[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) workload_args[i]);
  g_ptr_array_add (args, "--threads");
  g_ptr_array_add (args, "2");
  g_ptr_array_add (args, "--quiet");
  g_ptr_array_add (args, "--json");
  g_ptr_array_add (args, json);
  g_ptr_array_add (args, NULL);
  options.deadline = 60;
  ffm_test_run_full (&run, (const char *const *) args->pdata, &options);
  if (run.timed_out || run.signal != 0 || run.status != 0)
    g_error ("%s x %s: %s, exit %d, signal %d:\n%s", c->arch, what,
             run.timed_out ? "still running after 60 s" : "failed", run.status,
             run.signal, run.err);
  check_result (c, what, json);
  ffm_test_remove_dir (dir);
}

static void
test_zoo_case (gconstpointer data)
{
  const ZooCase *c = data;
  g_autofree char *conv = g_test_build_filename (G_TEST_DIST, "data", "zoo",
                                                 "conv-layer.json", NULL);
  g_autofree char *m = g_strdup_printf ("m=%s", c->matmul_size);
  g_autofree char *kn = g_strdup_printf ("kn=%s", c->matmul_size);
  g_autofree char *p = g_strdup_printf ("p=%s", c->conv_size);
  g_autofree char *q = g_strdup_printf ("q=%s", c->conv_size);
  const char *const matmuls[] = { "--workload", "matmuls", "--param", "n_einsums=2",
                                  "--param", m, "--param", kn, NULL };
  const char *const conv_args[] = { "--workload", conv, "--param", "c=2", "--param", "m=4",
                                    "--param", p, "--param", q, "--param", "stride=1",
                                    NULL };

  g_test_summary ("A zoo architecture maps two chained matmuls and a 7-rank "
                  "convolution: a mapping that fits, no abort");
  run_map (c, "matmuls", matmuls);
  run_map (c, "conv-layer", conv_args);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/zoo/%s", cases[i].arch);
      g_test_add_data_func (path, &cases[i], test_zoo_case);
    }
  return g_test_run ();
}
