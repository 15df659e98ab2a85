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
  FfmTestRunOptions options = { 0 };

  g_test_summary ("SIGINT during ffm map --strategy set prints the best mapping so "
                  "far, marked as interrupted, and exits 130 (not complete)");
  /* Once the search runs (its progress says so), not after a fixed delay:
   * the pmappings and the timing of an evaluation come first, and take
   * longer on a loaded machine or under a sanitizer. */
  options.terminal = TRUE;
  options.interrupt_on = "budget spent";
  options.interrupt_signal = SIGINT;
  options.deadline = 100;
  ffm_test_run_full (&run, (const char *const[]) {
      "map", SMALL, "--strategy", "set", "--max-evaluations", "100000000000", NULL },
      &options);
  g_assert_false (run.timed_out);
  g_assert_true (run.interrupted);
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
  /* ffm's CPU time, for its wall time on an unloaded machine. */
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (o, "ffm"),
                                                    "cpu_seconds"), >, 0);
  assert_contains (run.out, "s of CPU time over ");
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
      /* Fig. 8's axes: both log10, time to 10,000x ffm's. */
      assert_contains (svg, "<desc>");
      assert_contains (svg, "x axis: modelled time / ffm&apos;s time, log10 scale");
      assert_contains (svg, "y axis: % above optimal EDP (0 drawn at 0.01 %), log10 scale");
      assert_contains (svg, "to 1e+04");
      assert_contains (svg, "set (80 points, with a band)");
    }
  else
    {
      assert_contains (run.err, "this build of ffm has no plotting");
      g_assert_false (g_file_test (plot_path, G_FILE_TEST_EXISTS));
    }
  ffm_test_remove_dir (dir);
}

static void
test_compare_ffm_alone (void)
{
  g_auto (FfmTestRun) run = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o;

  g_test_summary ("ffm compare --strategies ffm runs ffm alone (its time, wall and CPU, "
                  "and optimum; no shared mapspace) without crashing");
  FFM_TEST_RUN (&run, "compare", SMALL, "--strategies", "ffm", "--json", "-");
  g_assert_cmpint (run.signal, ==, 0);
  g_assert_cmpint (run.status, ==, 0);
  o = parse_object (parser, strstr (run.out, "{"), "ffm compare --strategies ffm --json -");
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (o, "ffm"),
                                                    "cpu_seconds"), >, 0);
  g_assert_true (json_object_get_null_member (o, "baseline_space"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "strategies")),
                    ==, 0);
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
    { "--baseline-space", "unpruned", NULL, "--baseline-space" },
    { "--charge", "free", NULL, "--charge" },
    { "--within", "0", NULL, "--within" },
    { "--sweep-einsums", "2,0", NULL, "--sweep-einsums" },
    { "--sweep-einsums", "2.5", NULL, "--sweep-einsums" },
    { "--strategy-param", "ffm.nonsense=1", NULL, "nonsense" },
    { "--budget-reference", "fast", NULL, "--budget-reference takes wall, cpu or a number" },
    { "--budget-reference", "0", NULL, "--budget-reference" },
    { "--budget-reference", "-3", NULL, "--budget-reference" },
    { "--budget-reference", "10x", NULL, "--budget-reference" },
    { "--budget-reference", "nan", NULL, "--budget-reference" },
    { "--budget-reference", "1e400", NULL, "--budget-reference" },
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


/* The budget and the checkpoints are multiples of T: ffm's wall time (the
 * default), its CPU time over its threads (cpu), or seconds given, and
 * the budget 20x is 20 T. */
static void
test_compare_budget_reference (void)
{
  static const char *const references[] = { "wall", "cpu", "0.05" };

  g_test_summary ("ffm compare and ffm map --budget-reference: T as asked, in the budget, "
                  "the JSON and the text");
  for (guint i = 0; i < G_N_ELEMENTS (references); i++)
    {
      g_auto (FfmTestRun) run = { 0 };
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_autofree char *line = g_strdup_printf ("(--budget-reference %s): ", references[i]);
      JsonObject *o, *ffm, *budget, *stats;
      double t, expected;
      FFM_TEST_RUN (&run, "compare", SMALL, "--strategies", "tileflow", "--runs", "1",
                    "--budget", "20x", "--threads", "2", "--budget-reference", references[i],
                    "--json", "-");
      g_assert_cmpint (run.status, ==, 0);
      o = parse_object (parser, run.out, "ffm compare --budget-reference --json -");
      ffm = json_object_get_object_member (o, "ffm");
      t = json_object_get_double_member (ffm, "time_unit_seconds");
      g_assert_cmpstr (json_object_get_string_member (o, "time_unit"), ==,
                       i == 2 ? "given" : references[i]);
      if (i == 0)
        expected = json_object_get_double_member (ffm, "seconds");
      else if (i == 1)
        {
          double cpu = json_object_get_double_member (ffm, "cpu_seconds");
          expected = cpu > 0 ? cpu / 2 : json_object_get_double_member (ffm, "seconds");
        }
      else
        expected = 0.05;
      g_assert_cmpfloat (t, ==, expected);
      budget = json_object_get_object_member (o, "budget");
      g_assert_cmpfloat (json_object_get_double_member (budget, "ffm_seconds"), ==, t);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (budget,
                                                                     "max_modelled_seconds"),
                                      20 * t, 1e-12 * t);
      stats = json_object_get_object_member (
        json_array_get_object_element (json_object_get_array_member (
          json_array_get_object_element (json_object_get_array_member (o, "strategies"), 0),
          "runs"), 0), "stats");
      /* The run spent modelled time against that budget (how closely a
       * strategy keeps to it is the meter's tests'; TileFlow charges its
       * first generation whole, past a small budget in a slow build). */
      g_assert_cmpfloat (json_object_get_double_member (stats, "modelled_seconds"), >, 0);
    }
  {
    g_auto (FfmTestRun) text = { 0 };
    FFM_TEST_RUN (&text, "compare", SMALL, "--strategies", "tileflow", "--runs", "1",
                  "--budget", "20x", "--budget-reference", "0.05s");
    g_assert_cmpint (text.status, ==, 0);
    assert_contains (text.out, "T, the unit of the budget and the checkpoints "
                     "(--budget-reference 0.05s): 0.05 s");
    assert_contains (text.out, "budget 20x ffm's time (1 s of modelled time)");
  }
  /* ffm map --budget Nx takes the same T. */
  {
    g_auto (FfmTestRun) given = { 0 }, cpu = { 0 }, text = { 0 }, alone = { 0 };
    g_autoptr (JsonParser) p1 = json_parser_new ();
    g_autoptr (JsonParser) p2 = json_parser_new ();
    JsonObject *budget;
    FFM_TEST_RUN (&given, "map", SMALL, "--strategy", "tileflow", "--budget", "20x",
                  "--budget-reference", "0.05", "--json", "-");
    g_assert_cmpint (given.status, ==, 0);
    budget = json_object_get_object_member (parse_object (p1, given.out, "map --json -"),
                                            "budget");
    g_assert_cmpstr (json_object_get_string_member (budget, "time_unit"), ==, "given");
    g_assert_cmpfloat (json_object_get_double_member (budget, "ffm_seconds"), ==, 0.05);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (budget,
                                                                   "max_modelled_seconds"),
                                    1.0, 1e-12);
    FFM_TEST_RUN (&cpu, "map", SMALL, "--strategy", "tileflow", "--budget", "20x",
                  "--budget-reference", "cpu", "--json", "-");
    g_assert_cmpint (cpu.status, ==, 0);
    budget = json_object_get_object_member (parse_object (p2, cpu.out, "map --json -"),
                                            "budget");
    g_assert_cmpstr (json_object_get_string_member (budget, "time_unit"), ==, "cpu");
    g_assert_cmpfloat (json_object_get_double_member (budget, "ffm_seconds"), >, 0);
    FFM_TEST_RUN (&text, "map", SMALL, "--strategy", "tileflow", "--budget", "20x",
                  "--budget-reference", "0.05s");
    g_assert_cmpint (text.status, ==, 0);
    assert_contains (text.out, "(20x the 0.05 s given by --budget-reference)");
    FFM_TEST_RUN (&alone, "map", SMALL, "--strategy", "tileflow", "--max-evaluations", "50",
                  "--budget-reference", "cpu");
    g_assert_cmpint (alone.status, ==, 0);
    assert_contains (alone.err, "--budget-reference cpu applies to --budget Nx only");
  }
  {
    g_auto (FfmTestRun) sweep = { 0 };
    FFM_TEST_RUN (&sweep, "compare", "--arch", "tpuv4i", "--workload", "matmul-chain",
                  "--sweep-einsums", "2", "--budget-reference", "3");
    g_assert_cmpint (sweep.status, ==, 2);
    assert_contains (sweep.err, "--budget-reference takes wall or cpu with --sweep-einsums");
  }
}

/* The JSON member @name of @o as a double. */
static double
member (JsonObject *o, const char *name)
{
  g_assert_true (json_object_has_member (o, name));
  return json_object_get_double_member (o, name);
}

static void
test_compare_space_and_charge (void)
{
  g_auto (FfmTestRun) paper = { 0 }, pruned = { 0 };
  g_autoptr (JsonParser) p1 = json_parser_new ();
  g_autoptr (JsonParser) p2 = json_parser_new ();
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-compare");
  g_autofree char *csv_path = g_build_filename (dir, "c.csv", NULL);
  g_autofree char *json_path = g_build_filename (dir, "c.json", NULL);
  g_autofree char *csv = NULL, *json = NULL;
  JsonObject *o, *space;
  JsonArray *einsums;
  double total = 0;

  g_test_summary ("ffm compare states the baselines' space and charge in every output: "
                  "the table, the JSON (pmappings, groups and charge per Einsum, "
                  "compatible combinations) and the CSV; the paper's space and the "
                  "authors' charge by default, --baseline-space pruned and --charge "
                  "evaluation as asked");
  FFM_TEST_RUN (&paper, "compare", SMALL, "--runs", "2", "--budget", "3x",
                "--strategies", "ffm,random", "--json", json_path, "--csv", csv_path);
  g_assert_cmpint (paper.status, ==, 0);
  json = read_file (json_path);
  o = parse_object (p1, json, "ffm compare --json FILE");
  space = json_object_get_object_member (o, "baseline_space");
  g_assert_cmpstr (json_object_get_string_member (space, "space"), ==, "paper");
  g_assert_cmpstr (json_object_get_string_member (space, "charge"), ==, "explored");
  g_assert_cmpfloat (member (space, "seconds_per_pmapping_evaluation"), >, 0);
  g_assert_cmpfloat (member (space, "log10_compatible_states"), >=,
                     member (space, "log10_compatible_group_combinations"));
  einsums = json_object_get_array_member (space, "einsums");
  g_assert_cmpuint (json_array_get_length (einsums), ==, 3);
  for (guint x = 0; x < 3; x++)
    {
      JsonObject *e = json_array_get_object_element (einsums, x);
      double charge = member (e, "charge_per_query");
      /* The authors' charge: the evaluated pmappings per Pareto pmapping. */
      g_assert_cmpfloat (member (e, "pmappings"), >, 0);
      g_assert_cmpfloat (member (e, "pmapping_groups"), >, 0);
      g_assert_cmpfloat (member (e, "usable_groups"), <=, member (e, "groups"));
      g_assert_cmpfloat_with_epsilon (charge, MAX (1, member (e, "evaluated")
                                                   / member (e, "pmappings")), 1e-9 * charge);
      total += charge;
    }
  g_assert_cmpfloat_with_epsilon (member (space, "state_charge"), total, 1e-9 * total);
  /* The table states them too. */
  assert_contains (paper.out, "The baselines' space (--baseline-space paper): every "
                   "Pareto-optimal pmapping of each Einsum per compatibility");
  assert_contains (paper.out, "A query is charged (--charge explored)");
  assert_contains (paper.out, "Compatible group combinations 10^");
  csv = read_file (csv_path);
  assert_contains (csv, ",baseline_space,charge,state_charge,seconds_per_pmapping_evaluation");
  {
    /* Every run's line carries the space, the charge and the charge of a
     * state, the JSON's. */
    g_auto (GStrv) lines = g_strsplit (g_strchomp (csv), "\n", -1);
    g_auto (GStrv) head = g_strsplit (lines[0], ",", -1);
    guint col = 0;
    while (head[col] != NULL && strcmp (head[col], "state_charge") != 0)
      col++;
    g_assert_nonnull (head[col]);
    g_assert_cmpuint (g_strv_length (lines), ==, 3);
    for (guint i = 1; lines[i] != NULL; i++)
      {
        g_auto (GStrv) f = g_strsplit (lines[i], ",", -1);
        assert_contains (lines[i], ",paper,explored,");
        g_assert_cmpfloat_with_epsilon (g_ascii_strtod (f[col], NULL), total, 1e-9 * total);
        g_assert_cmpfloat (g_ascii_strtod (f[col + 1], NULL), ==,
                           member (space, "seconds_per_pmapping_evaluation"));
      }
  }

  FFM_TEST_RUN (&pruned, "compare", SMALL, "--runs", "1", "--budget", "3x",
                "--strategies", "ffm,set", "--baseline-space", "pruned", "--charge",
                "evaluation", "--json", "-");
  g_assert_cmpint (pruned.status, ==, 0);
  /* "-" is data only: the JSON from the first byte, no table. */
  g_assert_cmpint (pruned.out[0], ==, '{');
  o = parse_object (p2, pruned.out, "ffm compare --json -");
  space = json_object_get_object_member (o, "baseline_space");
  g_assert_cmpstr (json_object_get_string_member (space, "space"), ==, "pruned");
  g_assert_cmpstr (json_object_get_string_member (space, "charge"), ==, "evaluation");
  g_assert_cmpfloat (member (space, "state_charge"), ==, 3);
  einsums = json_object_get_array_member (space, "einsums");
  for (guint x = 0; x < 3; x++)
    g_assert_cmpfloat (member (json_array_get_object_element (einsums, x), "charge_per_query"),
                       ==, 1);
  g_assert_null (strstr (pruned.out, "A query is charged"));
  ffm_test_remove_dir (dir);
}

static void
test_compare_sigterm (void)
{
  g_auto (FfmTestRun) run = { 0 };
  FfmTestRunOptions options = { 0 };

  g_test_summary ("SIGTERM (what timeout and kill send) during the runs ends ffm compare "
                  "cleanly: the runs so far are reported, marked interrupted, checkpoints "
                  "the run never reached shown as not reached; on a terminal the progress "
                  "line showed the phase, the run and the budget spent");
  options.terminal = TRUE;
  options.interrupt_on = "budget spent";
  options.interrupt_signal = SIGTERM;
  options.deadline = 100;
  ffm_test_run_full (&run, (const char *const[]) {
      "compare", SMALL, "--runs", "3", "--strategies", "ffm,set", "--budget", "100000000x",
      "--checkpoints", "1,100000000", NULL }, &options);
  g_assert_false (run.timed_out);
  g_assert_true (run.interrupted);
  g_assert_cmpint (run.status, ==, 0);
  assert_contains (run.err, "set run 1 of 3: budget spent");
  assert_contains (run.out, "INTERRUPTED: terminated (SIGTERM)");
  assert_contains (run.out, "not reached");
  assert_contains (run.out, "The baselines' space");
}

static void
test_compare_sweep_sigterm (void)
{
  g_auto (FfmTestRun) run = { 0 };
  FfmTestRunOptions options = { 0 };

  g_test_summary ("SIGTERM during a run of --sweep-einsums reports the sizes done; the "
                  "run it stopped neither came within --within nor timed out, so it is "
                  "left out (not counted as a time-out)");
  options.terminal = TRUE;
  /* Random sampling cannot meet the exact optimum of 20 matmuls within a
   * quarter second (it times out at 3000x, about a second a run). */
  options.interrupt_on = "random run 1 of 2: budget spent";
  options.interrupt_signal = SIGTERM;
  options.deadline = 100;
  ffm_test_run_full (&run, (const char *const[]) {
      "compare", "--arch", "tpuv4i", "--workload", "matmuls", "--sweep-einsums", "20",
      "--runs", "2", "--strategies", "ffm,random", "--within", "0.000001",
      "--budget", "100000000x", NULL }, &options);
  g_assert_false (run.timed_out);
  g_assert_true (run.interrupted);
  g_assert_cmpint (run.status, ==, 0);
  assert_contains (run.out, "INTERRUPTED: terminated (SIGTERM)");
  assert_contains (run.out, "not run");
  g_assert_null (strstr (run.out, "timed out ("));
}

static void
test_compare_max_memory (void)
{
  g_auto (FfmTestRun) run = { 0 };

  g_test_summary ("--max-memory bounds ffm compare: too small, it fails cleanly (exit 1, "
                  "a message naming the budget, no crash)");
  FFM_TEST_RUN (&run, "compare", SMALL, "--runs", "1", "--max-memory", "1M");
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpint (run.signal, ==, 0);
  assert_contains (run.err, "--max-memory");
  g_assert_null (strstr (run.out, "Percent above"));
}

static void
test_compare_sweep_einsums (void)
{
  g_auto (FfmTestRun) run = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-compare");
  g_autofree char *json_path = g_build_filename (dir, "s.json", NULL);
  g_autofree char *csv_path = g_build_filename (dir, "s.csv", NULL);
  g_autofree char *plot_path = g_build_filename (dir, "s.svg", NULL);
  g_autofree char *json = NULL, *csv = NULL;
  JsonObject *o;
  JsonArray *sweep;

  g_test_summary ("ffm compare --sweep-einsums (Fig. 9): per number of Einsums, ffm's "
                  "time (reuse off) and each baseline's time to within --within %, runs "
                  "stopping there or at the budget; the paper's averaging; JSON, CSV and "
                  "the plot with log axes");
  FFM_TEST_RUN (&run, "compare", "--arch", "tpuv4i", "--workload", "matmuls",
                "--sweep-einsums", "2,3", "--runs", "2", "--budget", "50x", "--within", "20",
                "--strategies", "ffm,set,random", "--json", json_path, "--csv", csv_path,
                "--plot", plot_path);
  g_assert_cmpint (run.status, ==, 0);
  assert_contains (run.out, "Time to come within 20 % of ffm's optimum against the number "
                   "of Einsums");
  json = read_file (json_path);
  o = parse_object (parser, json, "ffm compare --sweep-einsums --json");
  g_assert_cmpfloat (member (o, "within_percent"), ==, 20);
  sweep = json_object_get_array_member (o, "sweep");
  g_assert_cmpuint (json_array_get_length (sweep), ==, 2);
  for (guint k = 0; k < 2; k++)
    {
      JsonObject *p = json_array_get_object_element (sweep, k);
      JsonArray *strategies = json_object_get_array_member (p, "strategies");
      double ffm_seconds = member (p, "ffm_seconds"), timeout = member (p, "timeout_modelled_seconds");
      g_assert_cmpint (json_object_get_int_member (p, "n_einsums"), ==, 2 + k);
      g_assert_cmpfloat (ffm_seconds, >, 0);
      g_assert_cmpfloat (member (p, "ffm_cpu_seconds"), >, 0);
      g_assert_cmpfloat_with_epsilon (timeout, 50 * ffm_seconds, 1e-9 * timeout);
      g_assert_cmpuint (json_array_get_length (strategies), ==, 2);
      for (guint i = 0; i < 2; i++)
        {
          JsonObject *st = json_array_get_object_element (strategies, i);
          JsonArray *runs = json_object_get_array_member (st, "runs");
          double sum = 0;
          guint out = 0;
          g_assert_cmpuint (json_array_get_length (runs), ==, 2);
          for (guint r = 0; r < 2; r++)
            {
              double t = member (json_array_get_object_element (runs, r), "seconds_to_within");
              if (isfinite (t))
                {
                  g_assert_cmpfloat (t, <=, timeout * (1 + 1e-9));
                  sum += t;
                }
              else
                {
                  out++;
                  sum += ffm_seconds;
                }
            }
          g_assert_cmpint (json_object_get_int_member (st, "runs_timed_out"), ==, out);
          if (2 * out > 2)
            g_assert_true (json_object_get_boolean_member (st, "timed_out"));
          else
            g_assert_cmpfloat_with_epsilon (member (st, "mean_seconds"), sum / 2,
                                            1e-9 * sum);
        }
    }
  csv = read_file (csv_path);
  g_assert_true (g_str_has_prefix (csv, "n_einsums,strategy,run,seed,seconds_to_within,"));
  assert_contains (csv, "\n3,random,1,1001,");
  if (have_plot ())
    {
      g_autofree char *svg = read_file (plot_path);
      assert_contains (svg, "x axis: Einsums, log10 scale");
      assert_contains (svg, "y axis: seconds (baselines: modelled), log10 scale");
      assert_contains (svg, "time-out (50x ffm)");
    }
  ffm_test_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compare-cli/map-budgets-and-trace", test_map_budgets_and_trace);
  g_test_add_func ("/compare-cli/map-budget-errors", test_map_budget_errors);
  g_test_add_func ("/compare-cli/map-interrupt-best-so-far", test_map_interrupt_best_so_far);
  g_test_add_func ("/compare-cli/compare-outputs", test_compare_outputs);
  g_test_add_func ("/compare-cli/compare-ffm-alone", test_compare_ffm_alone);
  g_test_add_func ("/compare-cli/compare-usage-errors", test_compare_usage_errors);
  g_test_add_func ("/compare-cli/compare-space-and-charge", test_compare_space_and_charge);
  g_test_add_func ("/compare-cli/compare-budget-reference", test_compare_budget_reference);
  g_test_add_func ("/compare-cli/compare-sigterm", test_compare_sigterm);
  g_test_add_func ("/compare-cli/compare-sweep-sigterm", test_compare_sweep_sigterm);
  g_test_add_func ("/compare-cli/compare-max-memory", test_compare_max_memory);
  g_test_add_func ("/compare-cli/compare-sweep-einsums", test_compare_sweep_einsums);
  return g_test_run ();
}
