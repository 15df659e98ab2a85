/* test-map-cli.c: `ffm map` end to end (the built binary, from FFM_EXE):
 * a two-matmul chain on the simple architecture, its text and its JSON,
 * the JSON mapping re-evaluated by `ffm eval`, the strategies, objectives
 * and usage errors. */
#include <ffm/ffm.h>

#include "ffm-run.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>

static void
assert_contains (const char *text, const char *needle)
{
  if (strstr (text, needle) == NULL)
    g_error ("'%s' not found in:\n%s", needle, text);
}

static JsonObject *
parse_object (JsonParser *parser, const char *text)
{
  g_autoptr (GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_node_get_object (json_parser_get_root (parser));
}

/* The text report names the totals, each Einsum, the fusion of T1 and
 * the LoopTree; the JSON has what the issue lists, and its mapping
 * evaluates (`ffm eval`) to its totals. */
static void
test_two_matmuls (void)
{
  g_auto (FfmTestRun) text = { 0 }, json = { 0 }, eval = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (JsonParser) eval_parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ffm-map-XXXXXX", &error);
  g_autofree char *out = NULL, *mapping_path = NULL;
  g_autofree char *contents = NULL, *mapping_text = NULL;
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  JsonObject *o, *stats, *e;
  JsonArray *per_einsum, *fused;

  g_test_summary ("ffm map on simple with a two-matmul chain: text, JSON, "
                  "and the JSON mapping re-evaluates to the reported cost");
  g_assert_no_error (error);
  FFM_TEST_RUN (&text, "map", "--arch", "simple", "--workload", "matmuls",
           "--param", "n_einsums=2", "--param", "m=16", "--param", "kn=16");
  g_assert_cmpint (text.status, ==, 0);
  assert_contains (text.out, "Best mapping of matmuls on simple (strategy ffm, objective edp");
  assert_contains (text.out, "Energy ");
  assert_contains (text.out, "Matmul0");
  assert_contains (text.out, "Matmul1");
  assert_contains (text.out, "Tensors passed between Einsums (fusion)");
  assert_contains (text.out, "T1");
  assert_contains (text.out, "Mapping (LoopTree; iterations next to each tile):");
  assert_contains (text.out, "compute Matmul1 on MAC");
  /* Search statistics only on request. */
  g_assert_null (strstr (text.out, "pmappings_generated"));

  out = g_build_filename (dir, "result.json", NULL);
  FFM_TEST_RUN (&json, "map", "--arch", "simple", "--workload", "matmuls",
           "--param", "n_einsums=2", "--param", "m=16", "--param", "kn=16",
           "--json", out);
  g_assert_cmpint (json.status, ==, 0);
  g_assert_true (g_file_get_contents (out, &contents, NULL, &error));
  g_assert_no_error (error);
  o = parse_object (parser, contents);
  g_assert_cmpstr (json_object_get_string_member (o, "strategy"), ==, "ffm");
  g_assert_cmpstr (json_object_get_string_member (o, "objective"), ==, "edp");
  g_assert_cmpfloat (json_object_get_double_member (o, "energy_j")
                     * json_object_get_double_member (o, "latency_s"), ==,
                     json_object_get_double_member (o, "edp_js"));
  per_einsum = json_object_get_array_member (o, "per_einsum");
  g_assert_cmpuint (json_array_get_length (per_einsum), ==, 2);
  e = json_array_get_object_element (per_einsum, 0);
  g_assert_cmpstr (json_object_get_string_member (e, "name"), ==, "Matmul0");
  g_assert_true (json_object_has_member (e, "energy_j"));
  g_assert_true (json_object_has_member (e, "latency_s"));
  fused = json_object_get_array_member (o, "fused_tensors");
  g_assert_cmpuint (json_array_get_length (fused), ==, 1);
  e = json_array_get_object_element (fused, 0);
  g_assert_cmpstr (json_object_get_string_member (e, "tensor"), ==, "T1");
  g_assert_cmpstr (json_object_get_string_member (e, "producer"), ==, "Matmul0");
  g_assert_true (json_object_has_member (e, "level"));
  g_assert_true (json_object_has_member (e, "on_chip"));
  stats = json_object_get_object_member (o, "stats");
  g_assert_cmpfloat (json_object_get_double_member (stats, "pmappings_generated"), >, 0);
  g_assert_true (json_object_has_member (stats, "join_survivors_00_Matmul0"));
  g_assert_true (json_object_has_member (stats, "join_survivors_01_Matmul1"));
  g_assert_true (json_object_has_member (stats, "seconds_pmappings"));
  g_assert_true (json_object_has_member (stats, "seconds_join"));
  g_assert_cmpfloat (json_object_get_double_member (stats, "model_mismatches"), ==, 0);
  {
    JsonArray *steps = json_object_get_array_member (o, "join_steps");
    g_assert_cmpuint (json_array_get_length (steps), ==, 2);
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (steps, 1),
                                                    "einsum"), ==, "Matmul1");
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (steps, 1),
                                                 "survivors"), >=, 1);
  }

  /* The mapping, written to a file, evaluates to the same totals. */
  json_generator_set_root (gen, json_object_get_member (o, "mapping"));
  mapping_text = json_generator_to_data (gen, NULL);
  mapping_path = g_build_filename (dir, "mapping.json", NULL);
  g_assert_true (g_file_set_contents (mapping_path, mapping_text, -1, &error));
  FFM_TEST_RUN (&eval, "eval", "--arch", "simple", "--workload", "matmuls",
           "--param", "n_einsums=2", "--param", "m=16", "--param", "kn=16",
           "--mapping", mapping_path, "--json", "-");
  g_assert_cmpint (eval.status, ==, 0);
  {
    JsonObject *r = parse_object (eval_parser, eval.out);
    g_assert_cmpfloat (json_object_get_double_member (r, "energy_j"), ==,
                       json_object_get_double_member (o, "energy_j"));
    g_assert_cmpfloat (json_object_get_double_member (r, "latency_s"), ==,
                       json_object_get_double_member (o, "latency_s"));
    g_assert_true (json_object_get_boolean_member (r, "fits"));
  }
  g_unlink (out);
  g_unlink (mapping_path);
  g_rmdir (dir);
}

/* The exhaustive strategy agrees on a tiny chain; objectives and the
 * Pareto front print. */
static void
test_strategies_and_objectives (void)
{
  static const char *const objectives[] = { "energy", "latency", "edp", "pareto" };

  g_test_summary ("--strategy exhaustive equals ffm; every --objective runs");
  for (guint i = 0; i < G_N_ELEMENTS (objectives); i++)
    {
      g_auto (FfmTestRun) a = { 0 }, b = { 0 };
      g_autoptr (JsonParser) pa = json_parser_new ();
      g_autoptr (JsonParser) pb = json_parser_new ();
      JsonObject *oa, *ob;

      FFM_TEST_RUN (&a, "map", "--arch", "simple", "--workload", "matmuls",
               "--param", "n_einsums=2", "--param", "m=4", "--param", "kn=4",
               "--objective", objectives[i], "--json", "-");
      FFM_TEST_RUN (&b, "map", "--arch", "simple", "--workload", "matmuls",
               "--param", "n_einsums=2", "--param", "m=4", "--param", "kn=4",
               "--objective", objectives[i], "--strategy", "exhaustive",
               "--json", "-");
      g_assert_cmpint (a.status, ==, 0);
      g_assert_cmpint (b.status, ==, 0);
      oa = parse_object (pa, a.out);
      ob = parse_object (pb, b.out);
      g_assert_cmpfloat (json_object_get_double_member (oa, "edp_js"), ==,
                         json_object_get_double_member (ob, "edp_js"));
      if (g_str_equal (objectives[i], "pareto"))
        g_assert_true (json_object_has_member (oa, "pareto"));
    }
}

static void
test_usage_errors (void)
{
  g_auto (FfmTestRun) bad_objective = { 0 }, bad_strategy = { 0 }, bad_loops = { 0 },
    no_arch = { 0 }, bad_param = { 0 };

  g_test_summary ("usage errors exit 2, a missing strategy or a bad "
                  "strategy parameter exits 1, with messages naming them");
  FFM_TEST_RUN (&bad_objective, "map", "--arch", "simple", "--workload", "matmuls",
           "--objective", "speed");
  g_assert_cmpint (bad_objective.status, ==, 2);
  assert_contains (bad_objective.err, "speed");
  FFM_TEST_RUN (&bad_loops, "map", "--arch", "simple", "--workload", "matmuls",
           "--max-fused-loops", "-3");
  g_assert_cmpint (bad_loops.status, ==, 2);
  FFM_TEST_RUN (&no_arch, "map", "--workload", "matmuls");
  g_assert_cmpint (no_arch.status, ==, 2);
  FFM_TEST_RUN (&bad_strategy, "map", "--arch", "simple", "--workload", "matmuls",
           "--strategy", "genetic");
  g_assert_cmpint (bad_strategy.status, ==, 1);
  assert_contains (bad_strategy.err, "genetic");
  FFM_TEST_RUN (&bad_param, "map", "--arch", "simple", "--workload", "matmuls",
           "--strategy-param", "epsilon=-1");
  g_assert_cmpint (bad_param.status, ==, 1);
  assert_contains (bad_param.err, "epsilon");
}

/* A CiM macro's compute unit serves only Einsums of three tensors (as the
 * CiMLoop models do); GPT-3's first Einsum I (a copy of its input) is not
 * one: a clear error naming both, exit 1, nothing on stdout. */
static void
test_unserved_einsum (void)
{
  g_auto (FfmTestRun) run = { 0 };

  FFM_TEST_RUN (&run, "map", "--arch", "cimloop:raella-isca2023", "--workload", "gpt3-6.7b");
  g_assert_cmpint (run.status, ==, 1);
  assert_contains (run.err, "Einsum I: no compute unit of architecture raella-isca2023 "
                   "serves it (every `enabled` is false)");
  g_assert_cmpstr (run.out, ==, "");
}

/* --unfused keeps T1 off chip. */
static void
test_unfused (void)
{
  g_auto (FfmTestRun) run = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o, *f;

  g_test_summary ("--unfused: the intermediate is backed off chip");
  FFM_TEST_RUN (&run, "map", "--arch", "simple", "--workload", "matmuls",
           "--param", "n_einsums=2", "--param", "m=8", "--param", "kn=8",
           "--unfused", "--json", "-");
  g_assert_cmpint (run.status, ==, 0);
  o = parse_object (parser, run.out);
  f = json_array_get_object_element (json_object_get_array_member (o, "fused_tensors"), 0);
  g_assert_cmpstr (json_object_get_string_member (f, "level"), ==, "MainMemory");
  g_assert_false (json_object_get_boolean_member (f, "on_chip"));
}

/* Equal Einsums are enumerated once: `ffm pmappings` says which copy
 * which, `--no-reuse` enumerates each, and `ffm map` finds the same
 * mapping cost either way. */
static void
test_reuse (void)
{
  g_auto (FfmTestRun) reused = { 0 }, fresh = { 0 }, map = { 0 }, map_fresh = { 0 };
  g_autoptr (JsonParser) p1 = json_parser_new ();
  g_autoptr (JsonParser) p2 = json_parser_new ();
  JsonObject *a, *b;

  FFM_TEST_RUN (&reused, "pmappings", "--arch", "simple", "--workload", "matmuls",
           "--param", "n_einsums=4", "--param", "m=16", "--param", "kn=16",
           "--csv", "-");
  g_assert_cmpint (reused.status, ==, 0);
  assert_contains (reused.out, "\nMatmul2,");
  assert_contains (reused.out, ",Matmul1\n");
  FFM_TEST_RUN (&fresh, "pmappings", "--arch", "simple", "--workload", "matmuls",
           "--param", "n_einsums=4", "--param", "m=16", "--param", "kn=16",
           "--no-reuse", "--csv", "-");
  g_assert_cmpint (fresh.status, ==, 0);
  g_assert_null (strstr (fresh.out, ",Matmul1\n"));

  FFM_TEST_RUN (&map, "map", "--arch", "simple", "--workload", "matmuls",
           "--param", "n_einsums=4", "--param", "m=16", "--param", "kn=16",
           "--json", "-");
  FFM_TEST_RUN (&map_fresh, "map", "--arch", "simple", "--workload", "matmuls",
           "--param", "n_einsums=4", "--param", "m=16", "--param", "kn=16",
           "--strategy-param", "reuse=false", "--json", "-");
  g_assert_cmpint (map.status, ==, 0);
  g_assert_cmpint (map_fresh.status, ==, 0);
  a = parse_object (p1, map.out);
  b = parse_object (p2, map_fresh.out);
  g_assert_cmpfloat (json_object_get_double_member (a, "energy_j"), ==,
                     json_object_get_double_member (b, "energy_j"));
  g_assert_cmpfloat (json_object_get_double_member (a, "latency_s"), ==,
                     json_object_get_double_member (b, "latency_s"));
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (a, "stats"),
                                                    "einsums_reused"), ==, 1);
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (b, "stats"),
                                                    "einsums_reused"), ==, 0);
}

/* The (energy, latency) of `ffm map --objective @objective` on the 64 x 64
 * x 64 matmul on 16 PEs (tests/data/arch/valid/pe16.json); for pareto,
 * the front's points. */
static JsonObject *
map_pe16 (JsonParser *parser, const char *objective, const char *strategy,
          double *energy, double *latency)
{
  g_auto (FfmTestRun) run = { 0 };
  g_autofree char *arch = g_test_build_filename (G_TEST_DIST, "data", "arch",
                                                 "valid", "pe16.json", NULL);
  JsonObject *o;

  FFM_TEST_RUN (&run, "map", "--arch", arch, "--workload", "matmuls",
           "--param", "n_einsums=1", "--param", "m=64", "--param", "kn=64",
           "--objective", objective, "--strategy", strategy, "--json", "-");
  g_assert_cmpint (run.status, ==, 0);
  o = parse_object (parser, run.out);
  *energy = json_object_get_double_member (o, "energy_j");
  *latency = json_object_get_double_member (o, "latency_s");
  return o;
}

/* Energy breaks the ties of latency and latency those of energy: the
 * issue's case, a 64 x 64 x 64 matmul on 16 PEs, where many mappings take
 * the least time, 16,384 cycles, one of them 19 times the energy of
 * another; the ends of the Pareto front are the two optima. */
static void
test_tie_breaks (void)
{
  g_autoptr (JsonParser) pl = json_parser_new ();
  g_autoptr (JsonParser) pe = json_parser_new ();
  g_autoptr (JsonParser) pd = json_parser_new ();
  g_autoptr (JsonParser) pp = json_parser_new ();
  double le, ll, ee, el, de, dl, pe_, pl_;
  JsonObject *front;
  JsonArray *points;
  JsonObject *first, *last;

  g_test_summary ("--objective latency returns the least energy among the "
                  "fastest mappings, energy the least latency among the "
                  "cheapest, and the Pareto front ends at both");
  map_pe16 (pl, "latency", "ffm", &le, &ll);
  map_pe16 (pe, "energy", "ffm", &ee, &el);
  map_pe16 (pd, "edp", "ffm", &de, &dl);
  g_assert_cmpfloat (ll, ==, 16384);
  /* the EDP optimum is as fast: among the fastest it has the least energy */
  g_assert_cmpfloat (dl, ==, ll);
  g_assert_cmpfloat (le, ==, de);
  g_assert_cmpfloat (le, <, 4e6 / 10);   /* an arbitrary fastest one: 4.4 MJ */
  g_assert_cmpfloat (ee, <=, le);
  g_assert_cmpfloat (el, >=, ll);
  front = map_pe16 (pp, "pareto", "ffm", &pe_, &pl_);
  points = json_object_get_array_member (front, "pareto");
  first = json_array_get_object_element (points, 0);
  last = json_array_get_object_element (points, json_array_get_length (points) - 1);
  g_assert_cmpfloat (json_object_get_double_member (first, "energy_j"), ==, ee);
  g_assert_cmpfloat (json_object_get_double_member (first, "latency_s"), ==, el);
  g_assert_cmpfloat (json_object_get_double_member (last, "energy_j"), ==, le);
  g_assert_cmpfloat (json_object_get_double_member (last, "latency_s"), ==, ll);

  /* Energy ties: with a free buffer and a free MAC every mapping that
   * reads each operand once costs the same 98,304 J; the fastest of them
   * spreads the matmul over the 16 MACs (16,384 s, not 262,144). */
  {
    g_auto (FfmTestRun) run = { 0 };
    g_autoptr (JsonParser) parser = json_parser_new ();
    JsonObject *o;
    FFM_TEST_RUN (&run, "map", "--arch", "fanout-at-mac", "--arch-param", "fanout=16",
             "--workload", "matmuls", "--param", "n_einsums=1", "--param", "m=64",
             "--param", "kn=64", "--objective", "energy", "--json", "-");
    g_assert_cmpint (run.status, ==, 0);
    o = parse_object (parser, run.out);
    g_assert_cmpfloat (json_object_get_double_member (o, "energy_j"), ==, 98304);
    g_assert_cmpfloat (json_object_get_double_member (o, "latency_s"), ==, 16384);
  }
}

/* A command that would run for minutes: exhaustive search of four
 * matmuls on TPUv4i with its limits lifted. */
#define LONG_SEARCH "map", "--arch", "tpuv4i", "--workload", "matmuls", \
  "--param", "n_einsums=4", "--strategy", "exhaustive", \
  "--strategy-param", "max_pmappings=1000000000", \
  "--strategy-param", "max_combinations=1000000000"

/* --timeout stops ffm (in the generator) and exhaustive (while it
 * enumerates) with a message that says why and an exit code of 1; a bad
 * --timeout is a usage error; a timeout that does not expire changes
 * nothing. */
static void
test_timeout (void)
{
  g_auto (FfmTestRun) ffm = { 0 }, exhaustive = { 0 }, pmappings = { 0 }, bad = { 0 }, ok = { 0 };

  g_test_summary ("--timeout ends map and pmappings cleanly, with a message");
  FFM_TEST_RUN (&ffm, "map", "--arch", "tpuv4i", "--workload", "gpt3-6.7b",
           "--timeout", "0.001");
  g_assert_cmpint (ffm.status, ==, 124);
  assert_contains (ffm.err, "stopped by --timeout 0.001 s with no mapping yet");
  g_assert_cmpstr (ffm.out, ==, "");

  /* Long enough for the generator to finish (0.1 s; sanitizer builds are
   * slower), so that exhaustive's own polling is what stops it. */
  FFM_TEST_RUN (&exhaustive, LONG_SEARCH, "--timeout", "4");
  g_assert_cmpint (exhaustive.status, ==, 124);
  assert_contains (exhaustive.err, "stopped by --timeout 4 s with no mapping yet: ");
  if (strstr (exhaustive.err, "pmapping generation cancelled") == NULL)
    assert_contains (exhaustive.err, "exhaustive search cancelled");

  FFM_TEST_RUN (&pmappings, "pmappings", "--arch", "tpuv4i", "--workload", "gpt3-6.7b",
           "--timeout", "0.001");
  g_assert_cmpint (pmappings.status, ==, 124);
  assert_contains (pmappings.err, "stopped by --timeout 0.001 s: pmapping generation cancelled");

  FFM_TEST_RUN (&bad, "map", "--arch", "simple", "--workload", "matmuls", "--timeout", "-1");
  g_assert_cmpint (bad.status, ==, 2);
  assert_contains (bad.err, "--timeout must be a number of seconds");

  FFM_TEST_RUN (&ok, "map", "--arch", "simple", "--workload", "matmuls", "--timeout", "600");
  g_assert_cmpint (ok.status, ==, 0);
  assert_contains (ok.out, "Best mapping of matmuls on simple");
}

/* Ctrl-C (SIGINT) during a long search: ffm says it was interrupted and
 * exits 1, it is not killed by the signal. */
static void
test_interrupt (void)
{
  const char *exe = g_getenv ("FFM_EXE");
  const char *args[] = { exe, LONG_SEARCH, NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  GPid pid;
  int err_fd, wait_status;
  gsize length;

  g_test_summary ("SIGINT ends ffm map cleanly with a message");
  g_assert_nonnull (exe);
  g_spawn_async_with_pipes (NULL, (char **) args, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                            NULL, NULL, &pid, NULL, NULL, &err_fd, &error);
  g_assert_no_error (error);
  /* Long enough for ffm to load its plugins and install its handler (it
   * takes about 0.1 s; sanitizer builds are slower). */
  g_usleep (2 * G_USEC_PER_SEC);
  g_assert_cmpint (kill (pid, SIGINT), ==, 0);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  {
    GIOChannel *channel = g_io_channel_unix_new (err_fd);
    g_io_channel_set_close_on_unref (channel, TRUE);
    g_io_channel_read_to_end (channel, &err, &length, &error);
    g_io_channel_unref (channel);
  }
  g_assert_no_error (error);
  g_spawn_close_pid (pid);
  g_test_message ("stderr:\n%s", err);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, 130);
  assert_contains (err, "interrupted (Ctrl-C) with no mapping yet");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/map-cli/two-matmuls", test_two_matmuls);
  g_test_add_func ("/map-cli/strategies-and-objectives", test_strategies_and_objectives);
  g_test_add_func ("/map-cli/usage-errors", test_usage_errors);
  g_test_add_func ("/map-cli/unserved-einsum", test_unserved_einsum);
  g_test_add_func ("/map-cli/unfused", test_unfused);
  g_test_add_func ("/map-cli/reuse", test_reuse);
  g_test_add_func ("/map-cli/tie-breaks", test_tie_breaks);
  g_test_add_func ("/map-cli/timeout", test_timeout);
  g_test_add_func ("/map-cli/interrupt", test_interrupt);
  return g_test_run ();
}
