/* test-compare-cli.c: budgets and traces of `ffm map`, and `ffm compare`,
 * end to end (the built binary, FFM_EXE).
 *
 * FFM_HAVE_PLOT (set by meson) says whether this build draws plots: the
 * plot test expects an SVG written by PLplot, or the message that this
 * build has no plotting with everything else done. */
#include <ffm/ffm.h>

#include "ffm-run.h"
#include "json-strict.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

static void
assert_contains (const char *text, const char *needle)
{
  if (text == NULL || strstr (text, needle) == NULL)
    g_error ("'%s' not found in:\n%s", needle, text);
}

/* The object @text holds: strict JSON, then parsed by @parser. */
static JsonObject *
parse_object (JsonParser *parser, const char *text, const char *what)
{
  g_autoptr (GError) error = NULL;

  json_strict_assert (text, what);
  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_node_get_object (json_parser_get_root (parser));
}

static char *
read_fd (int fd)
{
  GIOChannel *channel = g_io_channel_unix_new (fd);
  g_autoptr (GError) error = NULL;
  char *text = NULL;
  gsize length;

  g_io_channel_set_close_on_unref (channel, TRUE);
  g_io_channel_read_to_end (channel, &text, &length, &error);
  g_io_channel_unref (channel);
  g_assert_no_error (error);
  return text;
}

/* Runs FFM_EXE with @args, sends SIGINT after @delay seconds, waits. */
static void
run_interrupted (FfmTestRun *run, double delay, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  const char *exe = g_getenv ("FFM_EXE");
  int out_fd, err_fd, wait_status;
  GPid pid;

  g_assert_nonnull (exe);
  g_ptr_array_add (argv, (char *) exe);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_async_with_pipes (NULL, (char **) argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                            NULL, NULL, &pid, NULL, &out_fd, &err_fd, &error);
  g_assert_no_error (error);
  g_usleep ((gulong) (delay * G_USEC_PER_SEC));
  g_assert_cmpint (kill (pid, SIGINT), ==, 0);
  /* The outputs are small: the child never blocks on a full pipe first. */
  run->out = read_fd (out_fd);
  run->err = read_fd (err_fd);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_spawn_close_pid (pid);
  run->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  g_test_message ("exit %d\nstdout:\n%s\nstderr:\n%s", run->status, run->out, run->err);
}

#define SMALL "--arch", "tpuv4i", "--workload", "matmuls", "--param", "n_einsums=3"

static gboolean
have_plot (void)
{
  return g_strcmp0 (g_getenv ("FFM_HAVE_PLOT"), "1") == 0;
}

static char *
read_file (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

/* ---- ffm map ---- */

static void
test_map_budgets_and_trace (void)
{
  g_auto (FfmTestRun) evals = { 0 }, multiple = { 0 }, text = { 0 };
  g_autoptr (JsonParser) p1 = json_parser_new ();
  g_autoptr (JsonParser) p2 = json_parser_new ();
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-compare");
  g_autofree char *csv_path = g_build_filename (dir, "trace.csv", NULL);
  g_autofree char *csv = NULL;
  g_auto (GStrv) lines = NULL;
  JsonObject *o, *stats, *budget;
  JsonArray *trace;
  double ffm_seconds;

  g_test_summary ("ffm map --strategy set: --max-evaluations exactly, --budget Nx "
                  "against ffm's measured time, the trace in --json and --trace-csv");
  FFM_TEST_RUN (&evals, "map", SMALL, "--strategy", "set", "--max-evaluations", "250",
           "--json", "-", "--trace-csv", csv_path);
  g_assert_cmpint (evals.status, ==, 0);
  o = parse_object (p1, evals.out, "ffm map --json -");
  g_assert_false (json_object_get_boolean_member (o, "interrupted"));
  g_assert_true (json_object_get_null_member (o, "stopped_by"));
  stats = json_object_get_object_member (o, "stats");
  g_assert_cmpfloat (json_object_get_double_member (stats, "evaluations"), ==, 250);
  budget = json_object_get_object_member (o, "budget");
  g_assert_cmpint (json_object_get_int_member (budget, "max_evaluations"), ==, 250);
  trace = json_object_get_array_member (o, "trace");
  g_assert_cmpuint (json_array_get_length (trace), >=, 2);
  {
    JsonObject *last = json_array_get_object_element (trace, json_array_get_length (trace) - 1);
    g_assert_cmpint (json_object_get_int_member (last, "evaluations"), ==, 250);
    g_assert_cmpfloat (json_object_get_double_member (last, "modelled_seconds"), >, 0);
    g_assert_cmpfloat (json_object_get_double_member (last, "pmapping_queries"), >, 250);
    g_assert_cmpfloat (json_object_get_double_member (last, "best_objective"), ==,
                       json_object_get_double_member (o, "edp_js"));
  }
  csv = read_file (csv_path);
  lines = g_strsplit (g_strchomp (csv), "\n", -1);
  g_assert_cmpstr (lines[0], ==, "evaluations,seconds,modelled_seconds,pmapping_queries,"
                   "best_objective");
  g_assert_cmpuint (g_strv_length (lines), ==, json_array_get_length (trace) + 1);

  FFM_TEST_RUN (&multiple, "map", SMALL, "--strategy", "random", "--budget", "3x", "--json", "-");
  g_assert_cmpint (multiple.status, ==, 0);
  o = parse_object (p2, multiple.out, "ffm map --budget --json -");
  budget = json_object_get_object_member (o, "budget");
  ffm_seconds = json_object_get_double_member (budget, "ffm_seconds");
  g_assert_cmpfloat (ffm_seconds, >, 0);
  g_assert_cmpfloat (json_object_get_double_member (budget, "ffm_multiple"), ==, 3);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (budget, "max_modelled_seconds"),
                                  3 * ffm_seconds, 1e-9 * ffm_seconds);
  stats = json_object_get_object_member (o, "stats");
  g_assert_cmpfloat (json_object_get_double_member (stats, "modelled_seconds"), <=,
                     3 * ffm_seconds);

  FFM_TEST_RUN (&text, "map", SMALL, "--strategy", "tileflow", "--max-evaluations", "100");
  g_assert_cmpint (text.status, ==, 0);
  assert_contains (text.out, "Search: 100 evaluations standing for");
  assert_contains (text.out, "modelled time");
  ffm_test_remove_dir (dir);
}

static void
test_map_budget_errors (void)
{
  static const char *const bad[][2] = {
    { "--budget", "10" }, { "--budget", "-2x" }, { "--budget", "x" },
    { "--max-evaluations", "-5" }, { "--max-seconds", "-1" },
  };

  g_test_summary ("Malformed budgets are usage errors naming the option");
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_auto (FfmTestRun) run = { 0 };
      FFM_TEST_RUN (&run, "map", SMALL, "--strategy", "set", bad[i][0], bad[i][1]);
      g_assert_cmpint (run.status, ==, 2);
      assert_contains (run.err, bad[i][0]);
    }
}

/* Ctrl-C during a long annealing run: the best mapping so far, marked. */
static void
test_map_interrupt_best_so_far (void)
{
  g_auto (FfmTestRun) run = { 0 };

  g_test_summary ("SIGINT during ffm map --strategy set prints the best mapping so "
                  "far, marked as interrupted, and exits 130 (not complete)");
  run_interrupted (&run, 2.5, (const char *const[]) {
      "map", SMALL, "--strategy", "set", "--max-evaluations", "100000000000", NULL });
  g_assert_cmpint (run.status, ==, 130);
  assert_contains (run.out, "INTERRUPTED: interrupted (Ctrl-C); the mapping above is "
                   "the best found so far.");
  assert_contains (run.out, "Energy ");
  assert_contains (run.out, "compute Matmul2 on MAC");
}

/* ---- ffm compare ---- */

static void
test_compare_outputs (void)
{
  g_auto (FfmTestRun) run = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-compare");
  g_autofree char *json_path = g_build_filename (dir, "c.json", NULL);
  g_autofree char *csv_path = g_build_filename (dir, "c.csv", NULL);
  g_autofree char *trace_path = g_build_filename (dir, "t.csv", NULL);
  g_autofree char *plot_path = g_build_filename (dir, "c.svg", NULL);
  g_autofree char *json = NULL, *csv = NULL, *traces = NULL;
  g_auto (GStrv) lines = NULL;
  JsonObject *o;
  JsonArray *strategies;
  double optimum;

  g_test_summary ("ffm compare on a small problem: table, CSV, JSON, traces and "
                  "the plot (or the message that this build has no plotting)");
  FFM_TEST_RUN (&run, "compare", SMALL, "--runs", "3", "--budget", "20x",
           "--strategy-param", "set.chains=2", "--json", json_path, "--csv", csv_path,
           "--trace-csv", trace_path, "--plot", plot_path);
  g_assert_cmpint (run.status, ==, 0);
  assert_contains (run.out, "Comparison on matmuls / tpuv4i, objective edp, 3 runs per "
                   "strategy, budget 20x ffm's time");
  assert_contains (run.out, "Percent above ffm's optimum by k x ffm's time, modelled");
  assert_contains (run.out, "Same by wall-clock time");
  assert_contains (run.out, "  set ");
  assert_contains (run.out, "  tileflow ");
  assert_contains (run.out, "  random ");
  /* Checkpoints past the 20x budget are left out. */
  g_assert_null (strstr (run.out, "100x"));

  json = read_file (json_path);
  o = parse_object (parser, json, "ffm compare --json");
  optimum = json_object_get_double_member (json_object_get_object_member (o, "ffm"), "optimum");
  g_assert_cmpfloat (optimum, >, 0);
  g_assert_false (json_object_get_boolean_member (o, "interrupted"));
  strategies = json_object_get_array_member (o, "strategies");
  g_assert_cmpuint (json_array_get_length (strategies), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *s = json_array_get_object_element (strategies, i);
      JsonArray *runs = json_object_get_array_member (s, "runs");
      JsonArray *at = json_object_get_array_member (s, "at_modelled_time");
      g_assert_cmpuint (json_array_get_length (runs), ==, 3);
      g_assert_cmpuint (json_array_get_length (at), ==, 2);     /* 1x, 10x */
      for (guint r = 0; r < 3; r++)
        {
          JsonObject *one = json_array_get_object_element (runs, r);
          g_assert_cmpfloat (json_object_get_double_member (one, "objective"), >=, optimum);
          g_assert_cmpint (json_object_get_int_member (one, "seed"), ==, 1 + 1000 * r);
          g_assert_true (json_object_has_member (one, "trace"));
        }
      if (i == 0)
        {
          JsonObject *stats = json_object_get_object_member (
            json_array_get_object_element (runs, 0), "stats");
          g_assert_cmpfloat (json_object_get_double_member (stats, "chains"), ==, 2);
        }
    }

  csv = read_file (csv_path);
  lines = g_strsplit (g_strchomp (csv), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 3 * 3);
  g_assert_true (g_str_has_prefix (lines[0], "strategy,run,seed,objective,"));
  g_assert_nonnull (strstr (lines[0], "percent_at_10x_modelled"));
  traces = read_file (trace_path);
  g_assert_true (g_str_has_prefix (traces, "strategy,run,evaluations,"));
  assert_contains (traces, "\nffm,0,");
  assert_contains (traces, "\ntileflow,2,");

  if (have_plot ())
    {
      g_autofree char *svg = read_file (plot_path);
      g_assert_true (g_str_has_prefix (svg, "<?xml"));
      assert_contains (svg, "<svg");
      assert_contains (svg, "</svg>");
    }
  else
    {
      assert_contains (run.err, "this build of ffm has no plotting");
      g_assert_false (g_file_test (plot_path, G_FILE_TEST_EXISTS));
    }
  ffm_test_remove_dir (dir);
}

static void
test_compare_usage_errors (void)
{
  static const char *const bad[][4] = {
    { "--runs", "0", NULL, "--runs" },
    { "--strategies", "set,set", NULL, "twice" },
    { "--strategies", "set,", NULL, "empty" },
    { "--strategy-param", "chains=2", NULL, "NAME.KEY=VALUE" },
    { "--strategy-param", "set.nonsense=1", NULL, "nonsense" },
    { "--checkpoints", "1,-2", NULL, "--checkpoints" },
    { "--objective", "pareto", NULL, "Pareto" },
    { "--strategy", "set", NULL, "--strategies" },
    { "--plot", "out.txt", NULL, ".svg" },
  };

  g_test_summary ("ffm compare's usage errors exit 2 with messages naming the option");
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_auto (FfmTestRun) run = { 0 };
      FFM_TEST_RUN (&run, "compare", SMALL, bad[i][0], bad[i][1]);
      g_assert_cmpint (run.status, ==, 2);
      assert_contains (run.err, bad[i][3]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compare-cli/map-budgets-and-trace", test_map_budgets_and_trace);
  g_test_add_func ("/compare-cli/map-budget-errors", test_map_budget_errors);
  g_test_add_func ("/compare-cli/map-interrupt-best-so-far", test_map_interrupt_best_so_far);
  g_test_add_func ("/compare-cli/compare-outputs", test_compare_outputs);
  g_test_add_func ("/compare-cli/compare-usage-errors", test_compare_usage_errors);
  return g_test_run ();
}
