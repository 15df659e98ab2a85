/* test-results-cli.c: results an architect can read, keep and reuse, end
 * to end (the built `ffm`, FFM_EXE):
 *   - result files: `ffm map --json R` then `ffm eval R` with no other
 *     argument gives the same costs, bit for bit, on several architectures
 *     and workloads (a decode step among them); overrides are reported and
 *     a mismatch says what differs; plain mapping files keep working;
 *   - the report: its fields in JSON, consistent with each other and with
 *     `ffm eval`, the text in engineering units with whole counts;
 *   - --json and --csv on every command, strictly valid;
 *   - progress on a terminal (a pseudo-terminal), never in a pipe, cleared
 *     on Ctrl-C;
 *   - the notes and warnings when architectures do not charge the same
 *     things (a free main memory), and only then. */
#include <ffm/ffm.h>

#include "csv-strict.h"
#include "ffm-run.h"
#include "json-strict.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

static void
assert_contains (const char *text, const char *needle)
{
  if (strstr (text, needle) == NULL)
    g_error ("'%s' not found in:\n%s", needle, text);
}

static void
assert_lacks (const char *text, const char *needle)
{
  if (strstr (text, needle) != NULL)
    g_error ("'%s' found in:\n%s", needle, text);
}

static char *
read_text (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

/* Parses @text (strictly valid JSON) into @parser; returns its root
 * object. */
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

static void
remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

/* A run with up to 16 arguments. */
#define MAX_ARGS 24

static void
run_args (FfmTestRun *run, const char *const *base, const char *const *extra,
          const FfmTestRunOptions *options)
{
  const char *args[MAX_ARGS + 1] = { NULL };
  guint n = 0;

  for (guint i = 0; base != NULL && base[i] != NULL; i++)
    args[n++] = base[i];
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    args[n++] = extra[i];
  g_assert_cmpuint (n, <=, MAX_ARGS);
  ffm_test_run_full (run, args, options);
}

/* ---- Round trips ---- */

typedef struct {
  const char *what;
  const char *const args[16];   /* after "map" */
} Problem;

static const Problem round_trip_problems[] = {
  { "two matmuls on simple",
    { "--arch", "simple", "--workload", "matmuls", "--param", "n_einsums=2",
      "--param", "m=16", "--param", "kn=16", NULL } },
  { "two matmuls on TPUv4i",
    { "--arch", "tpuv4i", "--workload", "matmuls", "--param", "n_einsums=2",
      "--param", "m=64", "--param", "kn=64", "--arch-param", "glb_mib=2**6", NULL } },
  { "two matmuls on a compute-in-memory chip",
    { "--arch", "cimloop:jia-jssc2020", "--workload", "matmuls", "--param", "n_einsums=2",
      "--param", "m=16", "--param", "kn=16", NULL } },
  { "a Llama 3 8B decode step on the edge accelerator",
    { "--arch", "edge", "--workload", "llama3-8b", "--param", "decode=true",
      "--param", "new_tokens=1", "--param", "cached_tokens=127", NULL } },
  { "the exhaustive strategy, energy only",
    { "--arch", "simple", "--workload", "matmuls", "--param", "n_einsums=2",
      "--param", "m=4", "--param", "kn=4", "--strategy", "exhaustive",
      "--objective", "energy", NULL } },
};

/* Every number of two reports is the same double. */
static void
assert_same_costs (JsonObject *a, JsonObject *b)
{
  static const char *const totals[] = { "energy_j", "latency_s", "edp_js",
                                        "dynamic_energy_j", "leak_energy_j" };
  JsonArray *ea = json_object_get_array_member (a, "per_einsum");
  JsonArray *eb = json_object_get_array_member (b, "per_einsum");
  JsonArray *ca = json_object_get_array_member (a, "per_component");
  JsonArray *cb = json_object_get_array_member (b, "per_component");

  for (guint i = 0; i < G_N_ELEMENTS (totals); i++)
    g_assert_cmpfloat (json_object_get_double_member (a, totals[i]), ==,
                       json_object_get_double_member (b, totals[i]));
  g_assert_cmpuint (json_array_get_length (ea), ==, json_array_get_length (eb));
  for (guint i = 0; i < json_array_get_length (ea); i++)
    {
      JsonObject *x = json_array_get_object_element (ea, i);
      JsonObject *y = json_array_get_object_element (eb, i);
      g_assert_cmpstr (json_object_get_string_member (x, "name"), ==,
                       json_object_get_string_member (y, "name"));
      g_assert_cmpfloat (json_object_get_double_member (x, "energy_j"), ==,
                         json_object_get_double_member (y, "energy_j"));
      g_assert_cmpfloat (json_object_get_double_member (x, "latency_s"), ==,
                         json_object_get_double_member (y, "latency_s"));
    }
  g_assert_cmpuint (json_array_get_length (ca), ==, json_array_get_length (cb));
  for (guint i = 0; i < json_array_get_length (ca); i++)
    g_assert_cmpfloat (json_object_get_double_member (json_array_get_object_element (ca, i),
                                                      "energy_j"), ==,
                       json_object_get_double_member (json_array_get_object_element (cb, i),
                                                      "energy_j"));
}

/* The record: version, command, the architecture and workload with every
 * parameter, the strategy with its parameters, objective and options. */
static void
assert_record (JsonObject *o, const char *command)
{
  JsonObject *inputs, *arch, *workload, *options;

  g_assert_cmpint (json_object_get_int_member (o, "ffm_result"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (o, "ffm_version"), ==, FFM_VERSION_STRING);
  g_assert_cmpstr (json_object_get_string_member (o, "command"), ==, command);
  inputs = json_object_get_object_member (o, "inputs");
  arch = json_object_get_object_member (inputs, "architecture");
  workload = json_object_get_object_member (inputs, "workload");
  g_assert_nonnull (json_object_get_string_member (arch, "given"));
  g_assert_nonnull (json_object_get_string_member (arch, "name"));
  g_assert_nonnull (json_object_get_string_member (arch, "file"));
  g_assert_true (json_object_has_member (arch, "model"));
  g_assert_true (json_object_has_member (arch, "parameters"));
  g_assert_nonnull (json_object_get_string_member (workload, "given"));
  g_assert_true (g_path_is_absolute (json_object_get_string_member (workload, "file")));
  /* matmuls declares n_einsums, m, kn; llama3-8b batch, new_tokens, ... */
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (workload,
                                                                         "parameters")), >=, 3);
  g_assert_nonnull (json_object_get_string_member (inputs, "objective"));
  options = json_object_get_object_member (inputs, "options");
  g_assert_true (json_object_has_member (options, "max_fused_loops"));
  if (g_strcmp0 (command, "pmappings") != 0)
    g_assert_true (json_object_has_member (options, "seed"));
  if (g_strcmp0 (command, "map") == 0)
    g_assert_nonnull (json_object_get_string_member (json_object_get_object_member (inputs,
                                                                                    "strategy"),
                                                     "name"));
}

static void
test_round_trip (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ffm-results-XXXXXX", NULL);

  g_test_summary ("ffm map --json R, then ffm eval R with no other argument: the "
                  "same costs, bit for bit, and again from the eval's own result");
  for (guint p = 0; p < G_N_ELEMENTS (round_trip_problems); p++)
    {
      const Problem *problem = &round_trip_problems[p];
      g_autofree char *result = g_build_filename (dir, "result.json", NULL);
      g_autofree char *again = g_build_filename (dir, "again.json", NULL);
      g_auto (FfmTestRun) map = { 0 }, eval = { 0 }, eval2 = { 0 }, by_option = { 0 };
      g_autoptr (JsonParser) pm = json_parser_new ();
      g_autoptr (JsonParser) pe = json_parser_new ();
      g_autoptr (JsonParser) pe2 = json_parser_new ();
      g_autofree char *map_text = NULL, *again_text = NULL;
      FfmTestRunOptions elsewhere = { 0 };
      JsonObject *m, *e, *e2;

      g_test_message ("%s", problem->what);
      run_args (&map, (const char *const[]) { "map", NULL }, problem->args, NULL);
      g_assert_cmpint (map.status, ==, 0);
      /* The result is written for scripts too: */
      {
        g_auto (FfmTestRun) quiet = { 0 };
        run_args (&quiet, (const char *const[]) { "map", "--quiet", "--json", result, NULL },
                  problem->args, NULL);
        g_assert_cmpint (quiet.status, ==, 0);
        g_assert_cmpstr (quiet.out, ==, "");
      }
      map_text = read_text (result);
      m = parse_object (pm, map_text, problem->what);
      assert_record (m, "map");

      /* From another folder: the record names what to load. */
      elsewhere.cwd = "/";
      ffm_test_run_full (&eval, (const char *const[]) { "eval", result, "--json", again,
                                                        NULL }, &elsewhere);
      g_assert_cmpint (eval.status, ==, 0);
      g_assert_cmpstr (eval.err, ==, "");
      again_text = read_text (again);
      e = parse_object (pe, again_text, problem->what);
      assert_record (e, "eval");
      assert_same_costs (m, e);
      g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                         json_object_get_object_member (e, "inputs"), "strategy"), "name"), ==,
                       json_object_get_string_member (m, "strategy"));

      /* eval's result is a result file too. */
      FFM_TEST_RUN (&eval2, "eval", again, "--json", "-");
      g_assert_cmpint (eval2.status, ==, 0);
      e2 = parse_object (pe2, eval2.out, problem->what);
      assert_same_costs (m, e2);

      /* --mapping RESULT is the same as the argument. */
      FFM_TEST_RUN (&by_option, "eval", "--mapping", result);
      g_assert_cmpint (by_option.status, ==, 0);
      assert_contains (by_option.out, "Mapping ");
      g_unlink (result);
      g_unlink (again);
    }
  remove_tree (dir);
}

/* ---- Overrides, mismatches, plain mappings ---- */

static void
test_overrides (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ffm-results-XXXXXX", NULL);
  g_autofree char *decode = g_build_filename (dir, "decode.json", NULL);
  g_autofree char *tpu = g_build_filename (dir, "tpu.json", NULL);
  g_auto (FfmTestRun) map = { 0 }, map_tpu = { 0 }, prefill = { 0 }, param = { 0 },
    other_arch = { 0 }, both = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();

  g_test_summary ("eval RESULT with options: each override is reported; a mapping "
                  "that does not match says what differs");
  FFM_TEST_RUN (&map, "map", "--arch", "edge", "--workload", "llama3-8b",
                "--param", "decode=true", "--param", "new_tokens=1",
                "--param", "cached_tokens=127", "--quiet", "--json", decode);
  g_assert_cmpint (map.status, ==, 0);
  /* Prefill instead of decode: the mapping reads K_cache, which prefill has
   * not; the error says which parameter differs. */
  FFM_TEST_RUN (&prefill, "eval", decode, "--param", "decode=false");
  g_assert_cmpint (prefill.status, ==, 1);
  assert_contains (prefill.err, "note: --param decode=false replaces decode=true recorded in");
  assert_contains (prefill.err, "has no tensor K_cache");
  assert_contains (prefill.err, "the mapping was made with decode=true, evaluated with "
                   "decode=false");

  FFM_TEST_RUN (&map_tpu, "map", "--arch", "tpuv4i", "--workload", "matmuls",
                "--param", "n_einsums=1", "--param", "m=64", "--param", "kn=64",
                "--quiet", "--json", tpu);
  g_assert_cmpint (map_tpu.status, ==, 0);
  FFM_TEST_RUN (&param, "eval", tpu, "--arch-param", "glb_mib=64", "--json", "-");
  g_assert_cmpint (param.status, ==, 0);
  assert_contains (param.err, "note: --arch-param glb_mib=64 replaces glb_mib=128 "
                   "recorded in");
  {
    JsonObject *o = parse_object (parser, param.out, "eval --arch-param");
    JsonObject *params = json_object_get_object_member (json_object_get_object_member (
      json_object_get_object_member (o, "inputs"), "architecture"), "parameters");
    g_assert_cmpstr (json_object_get_string_member (params, "glb_mib"), ==, "64");
    g_assert_cmpstr (json_object_get_string_member (params, "n_cores"), ==, "4");
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "overrides")),
                      ==, 1);
  }
  FFM_TEST_RUN (&other_arch, "eval", tpu, "--arch", "edge");
  g_assert_cmpint (other_arch.status, ==, 1);
  assert_contains (other_arch.err, "note: --arch edge replaces the architecture tpuv4i");
  assert_contains (other_arch.err, "the mapping was made for architecture tpuv4i, not edge");

  FFM_TEST_RUN (&both, "eval", tpu, "--mapping", tpu);
  g_assert_cmpint (both.status, ==, 2);
  assert_contains (both.err, "not both");
  remove_tree (dir);
}

static void
test_plain_mapping (void)
{
  const char *root = g_getenv ("FFM_SOURCE_ROOT");
  g_autofree char *spatial = g_build_filename (root, "docs", "examples", "mappings",
                                               "matmul_to_tpuv4i_spatial.json", NULL);
  g_autofree char *unfused = g_build_filename (root, "docs", "examples", "mappings",
                                               "unfused_matmuls_to_simple.json", NULL);
  g_auto (FfmTestRun) ok = { 0 }, names = { 0 }, missing = { 0 }, overfull = { 0 }, fits = { 0 };

  g_test_summary ("plain mapping files keep working; what they name is used; "
                  "missing parameters are explained; not fitting exits 1");
  FFM_TEST_RUN (&ok, "eval", "--arch", "simple", "--workload", "matmuls",
                "--param", "n_einsums=1", "--mapping", unfused);
  g_assert_cmpint (ok.status, ==, 0);
  /* The file names workload matmuls and architecture simple. */
  FFM_TEST_RUN (&names, "eval", unfused, "--param", "n_einsums=1");
  g_assert_cmpint (names.status, ==, 0);
  g_assert_cmpstr (names.out, ==, ok.out);
  FFM_TEST_RUN (&missing, "eval", spatial);
  g_assert_cmpint (missing.status, ==, 1);
  assert_contains (missing.err, "is not in the mapping; a mapping file records no "
                   "parameters: give those of the workload it was made for (--param)");
  /* With the wrong sizes the spatial loops need more PEs than there are:
   * the report is printed, and the exit code says the mapping is wrong. */
  FFM_TEST_RUN (&overfull, "eval", spatial, "--param", "n_einsums=1");
  g_assert_cmpint (overfull.status, ==, 1);
  assert_contains (overfull.out, "Fits     no: ");
  assert_contains (overfull.err, "the mapping does not fit architecture tpuv4i");
  FFM_TEST_RUN (&fits, "eval", spatial, "--param", "n_einsums=1", "--param", "m=64",
                "--param", "kn=64");
  g_assert_cmpint (fits.status, ==, 0);
  assert_contains (fits.out, "Fits     yes");
}

/* ---- The report ---- */

/* The part of a report from "Energy" on. */
static const char *
report_body (const char *text)
{
  const char *body = strstr (text, "\nEnergy ");

  g_assert_nonnull (body);
  return body;
}

static double
sum_member (JsonArray *array, const char *member)
{
  double sum = 0;

  for (guint i = 0; i < json_array_get_length (array); i++)
    sum += json_object_get_double_member (json_array_get_object_element (array, i), member);
  return sum;
}

static gboolean
has_component (JsonArray *components, const char *name)
{
  for (guint i = 0; i < json_array_get_length (components); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (components, i),
                                                  "name"), name) == 0)
      return TRUE;
  return FALSE;
}

static void
test_report (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ffm-results-XXXXXX", NULL);
  g_autofree char *result = g_build_filename (dir, "r.json", NULL);
  g_auto (FfmTestRun) map = { 0 }, eval = { 0 }, nest = { 0 }, stats = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GRegex) exponent = g_regex_new ("[0-9]e[+-][0-9]", 0, 0, NULL);
  g_autofree char *text = NULL;
  JsonObject *o;
  JsonArray *einsums, *components, *tensors, *classes;
  guint n_fanouts = 0;

  g_test_summary ("map prints the report eval prints, with bounding components, "
                  "fanout utilization, area, per tensor and class, iterations");
  FFM_TEST_RUN (&map, "map", "--arch", "tpuv4i", "--workload", "matmuls",
                "--param", "n_einsums=2", "--param", "m=64", "--param", "kn=64",
                "--json", result);
  g_assert_cmpint (map.status, ==, 0);
  text = read_text (result);
  o = parse_object (parser, text, "map --json");

  einsums = json_object_get_array_member (o, "per_einsum");
  components = json_object_get_array_member (o, "per_component");
  tensors = json_object_get_array_member (o, "per_tensor");
  classes = json_object_get_array_member (o, "per_tensor_class");
  g_assert_cmpuint (json_array_get_length (einsums), ==, 2);
  for (guint i = 0; i < json_array_get_length (einsums); i++)
    {
      JsonObject *e = json_array_get_object_element (einsums, i);
      JsonArray *fanouts = json_object_get_array_member (e, "fanouts");
      g_assert_true (has_component (components, json_object_get_string_member (e, "bounded_by")));
      for (guint k = 0; k < json_array_get_length (fanouts); k++)
        {
          JsonObject *f = json_array_get_object_element (fanouts, k);
          gint64 used = json_object_get_int_member (f, "used");
          gint64 count = json_object_get_int_member (f, "count");
          g_assert_cmpint (used, >=, 1);
          g_assert_cmpint (used, <=, count);
          g_assert_cmpfloat (json_object_get_double_member (f, "utilization"), ==,
                             (double) used / (double) count);
          n_fanouts++;
        }
    }
  g_assert_cmpuint (n_fanouts, >, 0);
  /* TPUv4i gives areas: the total is the components' sum. */
  g_assert_cmpfloat (json_object_get_double_member (o, "area_m2"), >, 0);
  {
    double area = 0;
    for (guint i = 0; i < json_array_get_length (components); i++)
      {
        JsonNode *a = json_object_get_member (json_array_get_object_element (components, i),
                                              "area_m2");
        if (!JSON_NODE_HOLDS_NULL (a))
          area += json_node_get_double (a);
      }
    g_assert_cmpfloat_with_epsilon (area, json_object_get_double_member (o, "area_m2"),
                                    1e-12 * area);
  }
  /* Energies add up: components to the total, tensors to their classes. */
  g_assert_cmpfloat_with_epsilon (sum_member (components, "energy_j"),
                                  json_object_get_double_member (o, "energy_j"),
                                  1e-12 * json_object_get_double_member (o, "energy_j"));
  g_assert_cmpfloat_with_epsilon (sum_member (tensors, "energy_j"),
                                  sum_member (classes, "energy_j"),
                                  1e-12 * sum_member (tensors, "energy_j"));
  for (guint i = 0; i < json_array_get_length (tensors); i++)
    {
      const char *c = json_object_get_string_member (json_array_get_object_element (tensors, i),
                                                     "class");
      g_assert_true (g_strv_contains ((const char *const[]) { "weight", "input",
                                                              "intermediate", "output", NULL },
                                      c));
    }
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "fused_tensors")),
                    ==, 1);

  /* The text: the same report as eval's, engineering units, whole counts. */
  assert_contains (map.out, "bounded by");
  assert_contains (map.out, "Fanout utilization (instances used)");
  assert_contains (map.out, "ProcessingElement.reuse_input");
  assert_contains (map.out, "Per tensor class");
  assert_contains (map.out, "Area     ");
  assert_contains (map.out, " mm^2");
  assert_contains (map.out, "iterations)");
  assert_contains (map.out, " instances)");
  assert_contains (map.out, "262,144");   /* 64 x 64 x 64 operations */
  assert_lacks (map.out, "Search statistics");
  assert_lacks (map.out, "Loop nest:");
  if (g_regex_match (exponent, map.out, 0, NULL))
    g_error ("a number in exponent notation in:\n%s", map.out);
  FFM_TEST_RUN (&eval, "eval", result);
  g_assert_cmpint (eval.status, ==, 0);
  g_assert_cmpstr (report_body (eval.out), ==, report_body (map.out));

  FFM_TEST_RUN (&nest, "eval", result, "--loop-nest");
  g_assert_cmpint (nest.status, ==, 0);
  assert_contains (nest.out, "\nLoop nest:\n");
  assert_contains (nest.out, "for m_1 in [0, 64/");
  FFM_TEST_RUN (&stats, "map", "--arch", "simple", "--workload", "matmuls",
                "--param", "n_einsums=2", "--stats");
  g_assert_cmpint (stats.status, ==, 0);
  assert_contains (stats.out, "Search statistics");
  assert_contains (stats.out, "pmappings_generated");
  remove_tree (dir);
}

/* ---- JSON and CSV everywhere ---- */

typedef struct {
  const char *what;
  const char *const args[14];
  const char *column;           /* a column the CSV must have */
} OutputCase;

static const OutputCase output_cases[] = {
  { "list", { "list", NULL }, "architecture" },
  { "show-workload", { "show-workload", "llama3-8b", "--param", "decode=true",
                       "--param", "new_tokens=1", "--param", "cached_tokens=2047", NULL },
    "operations" },
  { "show-workload --list", { "show-workload", "--list", NULL }, "workload" },
  { "pmappings", { "pmappings", "--arch", "simple", "--workload", "matmuls",
                   "--param", "n_einsums=2", "--groups", NULL }, "thread_seconds" },
  { "map", { "map", "--arch", "simple", "--workload", "matmuls", "--param",
             "n_einsums=2", "--objective", "pareto", "--stats", NULL }, "bounded_by" },
};

static void
test_machine_readable (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ffm-results-XXXXXX", NULL);

  g_test_summary ("--json OUT and --csv OUT on every command: strict JSON, strict "
                  "CSV (RFC 4180), the same to a file as to stdout");
  for (guint i = 0; i < G_N_ELEMENTS (output_cases); i++)
    {
      const OutputCase *c = &output_cases[i];
      g_autofree char *csv_path = g_build_filename (dir, "out.csv", NULL);
      g_auto (FfmTestRun) json = { 0 }, csv = { 0 }, csv_file = { 0 }, both = { 0 };
      g_autoptr (GPtrArray) records = NULL;
      g_autofree char *file_text = NULL;

      g_test_message ("%s", c->what);
      run_args (&json, c->args, (const char *const[]) { "--json", "-", NULL }, NULL);
      g_assert_cmpint (json.status, ==, 0);
      json_strict_assert (json.out, c->what);
      run_args (&csv, c->args, (const char *const[]) { "--csv", "-", NULL }, NULL);
      g_assert_cmpint (csv.status, ==, 0);
      records = csv_strict_assert (csv.out, c->what);
      g_assert_cmpuint (records->len, >, 1);
      g_assert_cmpint (csv_column (g_ptr_array_index (records, 0), c->column), >=, 0);
      if (!g_str_equal (c->what, "map") && !g_str_equal (c->what, "pmappings"))
        {
          /* The same bytes to a file (map and pmappings print times). */
          run_args (&csv_file, c->args, (const char *const[]) { "--csv", csv_path, NULL },
                    NULL);
          g_assert_cmpint (csv_file.status, ==, 0);
          file_text = read_text (csv_path);
          g_assert_cmpstr (file_text, ==, csv.out);
          g_unlink (csv_path);
        }
      run_args (&both, c->args, (const char *const[]) { "--json", "-", "--csv", "-", NULL },
                NULL);
      g_assert_cmpint (both.status, ==, 2);
      assert_contains (both.err, "cannot both write to standard output");
    }
  /* eval, of a mapping file of the documentation. */
  {
    g_autofree char *mapping = g_build_filename (g_getenv ("FFM_SOURCE_ROOT"), "docs",
                                                 "examples", "mappings",
                                                 "unfused_matmuls_to_simple.json", NULL);
    g_auto (FfmTestRun) json = { 0 }, csv = { 0 };
    g_autoptr (GPtrArray) records = NULL;
    FFM_TEST_RUN (&json, "eval", mapping, "--param", "n_einsums=1", "--json", "-");
    FFM_TEST_RUN (&csv, "eval", mapping, "--param", "n_einsums=1", "--csv", "-");
    g_assert_cmpint (json.status, ==, 0);
    g_assert_cmpint (csv.status, ==, 0);
    json_strict_assert (json.out, "eval --json");
    records = csv_strict_assert (csv.out, "eval --csv");
    g_assert_cmpint (csv_column (g_ptr_array_index (records, 0), "read_actions"), >, 0);
  }
  remove_tree (dir);
}

/* The CSV holds exactly the JSON's numbers. */
static void
test_csv_matches_json (void)
{
  g_auto (FfmTestRun) json = { 0 }, csv = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GPtrArray) records = NULL;
  JsonObject *o;
  GStrv header;
  int table, energy, einsum;
  guint n_einsum_rows = 0;

  g_test_summary ("map --csv: one table per record kind, exact numbers equal to "
                  "the JSON's");
  FFM_TEST_RUN (&json, "map", "--arch", "tpuv4i", "--workload", "matmuls",
                "--param", "n_einsums=2", "--param", "m=64", "--param", "kn=64",
                "--json", "-");
  FFM_TEST_RUN (&csv, "map", "--arch", "tpuv4i", "--workload", "matmuls",
                "--param", "n_einsums=2", "--param", "m=64", "--param", "kn=64",
                "--csv", "-");
  g_assert_cmpint (json.status, ==, 0);
  g_assert_cmpint (csv.status, ==, 0);
  o = parse_object (parser, json.out, "map --json");
  records = csv_strict_assert (csv.out, "map --csv");
  header = g_ptr_array_index (records, 0);
  table = csv_column (header, "table");
  energy = csv_column (header, "energy_j");
  einsum = csv_column (header, "einsum");
  g_assert_cmpint (table, ==, 0);
  g_assert_cmpint (energy, >, 0);
  for (guint r = 1; r < records->len; r++)
    {
      GStrv row = g_ptr_array_index (records, r);
      if (g_str_equal (row[table], "totals"))
        g_assert_cmpfloat (g_ascii_strtod (row[energy], NULL), ==,
                           json_object_get_double_member (o, "energy_j"));
      if (g_str_equal (row[table], "per_einsum"))
        {
          JsonObject *e = json_array_get_object_element (json_object_get_array_member (o, "per_einsum"),
                                                         n_einsum_rows++);
          g_assert_cmpstr (row[einsum], ==, json_object_get_string_member (e, "name"));
          g_assert_cmpfloat (g_ascii_strtod (row[energy], NULL), ==,
                             json_object_get_double_member (e, "energy_j"));
        }
    }
  g_assert_cmpuint (n_einsum_rows, ==, 2);
}

static void
test_json_contents (void)
{
  g_auto (FfmTestRun) show = { 0 }, pm = { 0 }, names = { 0 }, list = { 0 }, help = { 0 },
    man = { 0 };
  g_autoptr (JsonParser) p1 = json_parser_new ();
  g_autoptr (JsonParser) p2 = json_parser_new ();
  g_autoptr (JsonParser) p3 = json_parser_new ();
  g_auto (GStrv) lines = NULL;
  JsonObject *o;
  guint n_archs = 0, n_listed = 0;
  JsonArray *plugins;

  g_test_summary ("show-workload and pmappings JSON, list --names, help --help");
  FFM_TEST_RUN (&show, "show-workload", "llama3-8b", "--param", "decode=true",
                "--param", "new_tokens=1", "--param", "cached_tokens=2047", "--json", "-");
  g_assert_cmpint (show.status, ==, 0);
  o = parse_object (p1, show.out, "show-workload --json");
  g_assert_cmpstr (json_object_get_string_member (o, "name"), ==, "llama3-8b");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "einsums")), ==, 12);
  g_assert_cmpint (json_object_get_int_member (o, "operations"), >, 0);

  FFM_TEST_RUN (&pm, "pmappings", "--arch", "simple", "--workload", "matmuls",
                "--param", "n_einsums=2", "--json", "-");
  g_assert_cmpint (pm.status, ==, 0);
  o = parse_object (p2, pm.out, "pmappings --json");
  assert_record (o, "pmappings");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "einsums")), ==, 2);
  g_assert_true (json_object_has_member (json_array_get_object_element (
    json_object_get_array_member (o, "einsums"), 0), "thread_seconds"));

  /* --names: one line per name, as --arch and --strategy take them. */
  FFM_TEST_RUN (&names, "list", "--names");
  FFM_TEST_RUN (&list, "list", "--json", "-");
  g_assert_cmpint (names.status, ==, 0);
  lines = g_strsplit (names.out, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_assert_true (g_str_has_prefix (lines[i], "architecture ")
                     || g_str_has_prefix (lines[i], "strategy "));
      n_listed += g_str_has_prefix (lines[i], "architecture ");
    }
  assert_contains (names.out, "architecture tpuv4i\n");
  assert_contains (names.out, "architecture jia-jssc2020\n");
  assert_contains (names.out, "strategy ffm\n");
  plugins = json_object_get_array_member (parse_object (p3, list.out, "list --json"), "plugins");
  for (guint i = 0; i < json_array_get_length (plugins); i++)
    {
      JsonObject *plugin = json_array_get_object_element (plugins, i);
      if (json_object_has_member (plugin, "architectures"))
        n_archs += json_array_get_length (json_object_get_array_member (plugin, "architectures"));
    }
  g_assert_cmpuint (n_listed, ==, n_archs);

  FFM_TEST_RUN (&help, "help", "--help");
  g_assert_cmpint (help.status, ==, 0);
  assert_contains (help.out, "ffm help [COMMAND]");
  FFM_TEST_RUN (&man, "help", "--man");
  g_assert_cmpint (man.status, ==, 0);
  assert_contains (man.out, ".TH FFM 1");
  assert_contains (man.out, ".SS ffm eval");
  assert_contains (man.out, "\\-\\-loop-nest");
}

/* ---- Progress ---- */

#define SLOW_PMAPPINGS "pmappings", "--arch", "tpuv4i", "--workload", "gpt3-6.7b"
#define SLOW_MAP "map", "--arch", "tpuv4i", "--workload", "gpt3-6.7b"

static void
test_progress_on_terminal (void)
{
  g_auto (FfmTestRun) pm = { 0 }, map = { 0 };
  FfmTestRunOptions options = { 0 };
  const char *last;

  g_test_summary ("on a terminal: Einsums and templates done of total, the Einsum, "
                  "elapsed time; cleared before the Ctrl-C message");
  options.terminal = TRUE;
  options.interrupt_on = "template ";
  ffm_test_run_full (&pm, (const char *const[]) { SLOW_PMAPPINGS, NULL }, &options);
  g_assert_true (pm.interrupted);
  g_assert_cmpint (pm.status, ==, 130);
  assert_contains (pm.err, "\r\033[Kffm pmappings: pmappings: Einsum ");
  assert_contains (pm.err, " of 10 (");
  assert_contains (pm.err, "), template ");
  /* The percentage, then the time (the first line is drawn after 1 s). */
  assert_contains (pm.err, "% (");
  assert_contains (pm.err, " s)");
  /* The line is cleared, then the message starts at the line's start. */
  last = strstr (pm.err, "ffm pmappings: interrupted (Ctrl-C)");
  g_assert_nonnull (last);
  g_assert_true (last - pm.err >= 4 && strncmp (last - 4, "\r\033[K", 4) == 0);
  g_assert_cmpstr (pm.out, ==, "");

  ffm_test_run_full (&map, (const char *const[]) { SLOW_MAP, NULL }, &options);
  g_assert_true (map.interrupted);
  g_assert_cmpint (map.status, ==, 130);
  assert_contains (map.err, "\r\033[Kffm map: pmappings: Einsum ");
  assert_contains (map.err, "\033[Kffm map: interrupted (Ctrl-C) with no mapping yet");
}

static void
test_no_progress_in_pipes (void)
{
  g_auto (FfmTestRun) pm = { 0 }, quiet = { 0 };
  FfmTestRunOptions options = { 0 };

  g_test_summary ("stderr in a pipe or file: no progress line, no escape codes; "
                  "--quiet draws none on a terminal either");
  ffm_test_run_full (&pm, (const char *const[]) { SLOW_PMAPPINGS, "--timeout", "2", NULL },
                     NULL);
  g_assert_cmpint (pm.status, ==, 124);
  assert_contains (pm.err, "stopped by --timeout 2 s");
  assert_lacks (pm.err, "\033");
  assert_lacks (pm.err, "template ");

  options.terminal = TRUE;
  ffm_test_run_full (&quiet, (const char *const[]) { SLOW_PMAPPINGS, "--quiet",
                                                     "--timeout", "2", NULL }, &options);
  g_assert_cmpint (quiet.status, ==, 124);
  assert_lacks (quiet.err, "template ");
}

/* ---- Fairness ---- */

static void
test_unfairness (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ffm-results-XXXXXX", NULL);
  g_autofree char *cim = g_build_filename (dir, "cim.json", NULL);
  g_autofree char *tpu = g_build_filename (dir, "tpu.json", NULL);
  g_autofree char *edge = g_build_filename (dir, "edge.json", NULL);
  g_autofree char *cim8 = g_build_filename (dir, "cim8.json", NULL);
  g_auto (FfmTestRun) m1 = { 0 }, m2 = { 0 }, m3 = { 0 }, m4 = { 0 }, cim_text = { 0 },
    tpu_text = { 0 },
    unfair = { 0 }, fair = { 0 }, charged = { 0 }, csv = { 0 };
  g_autoptr (JsonParser) p1 = json_parser_new ();
  g_autoptr (JsonParser) p2 = json_parser_new ();
  g_autoptr (GPtrArray) records = NULL;
  JsonObject *o;

  g_test_summary ("a free main memory is noted on its own and warned about when "
                  "compared with an architecture that charges it; not otherwise");
#define MATMULS "--workload", "matmuls", "--param", "n_einsums=2", "--param", "m=16", \
                "--param", "kn=16", "--quiet", "--json"
  FFM_TEST_RUN (&m1, "map", "--arch", "jia-jssc2020", MATMULS, cim);
  FFM_TEST_RUN (&m2, "map", "--arch", "tpuv4i", MATMULS, tpu);
  FFM_TEST_RUN (&m3, "map", "--arch", "edge", MATMULS, edge);
#undef MATMULS
  g_assert_cmpint (m1.status, ==, 0);
  g_assert_cmpint (m2.status, ==, 0);
  g_assert_cmpint (m3.status, ==, 0);

  FFM_TEST_RUN (&cim_text, "eval", cim);
  FFM_TEST_RUN (&tpu_text, "eval", tpu);
  assert_contains (cim_text.out, "Note     MainMemory, the main memory of jia-jssc2020, "
                   "is free (0 J per read and write)");
  assert_lacks (tpu_text.out, "Note ");
  {
    g_autofree char *text = read_text (cim);
    o = parse_object (p1, text, "cim result");
    g_assert_false (json_object_get_boolean_member (o, "main_memory_charged"));
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "notes")), ==, 1);
  }
  {
    g_autofree char *text = read_text (tpu);
    o = parse_object (p2, text, "tpu result");
    g_assert_true (json_object_get_boolean_member (o, "main_memory_charged"));
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "notes")), ==, 0);
  }

  FFM_TEST_RUN (&unfair, "eval", cim, tpu);
  g_assert_cmpint (unfair.status, ==, 0);
  assert_contains (unfair.err, "warning: not a like-for-like comparison: tpuv4i");
  assert_contains (unfair.out, "Warning: not a like-for-like comparison");
  assert_contains (unfair.out, "main memory charged");

  FFM_TEST_RUN (&fair, "eval", tpu, edge);
  g_assert_cmpint (fair.status, ==, 0);
  assert_lacks (fair.err, "like-for-like");
  assert_lacks (fair.out, "like-for-like");

  /* Charging the chip's main memory makes the two comparable there. */
  FFM_TEST_RUN (&m4, "map", "--arch", "jia-jssc2020", "--arch-param", "main_memory_pj_per_bit=8",
                "--workload", "matmuls", "--param", "n_einsums=2", "--param", "m=16",
                "--param", "kn=16", "--quiet", "--json", cim8);
  g_assert_cmpint (m4.status, ==, 0);
  FFM_TEST_RUN (&charged, "eval", cim8, tpu);
  g_assert_cmpint (charged.status, ==, 0);
  assert_lacks (charged.err, "like-for-like");

  FFM_TEST_RUN (&csv, "eval", cim, tpu, "--csv", "-");
  g_assert_cmpint (csv.status, ==, 0);
  records = csv_strict_assert (csv.out, "eval A B --csv");
  g_assert_cmpuint (records->len, ==, 3);
  remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/results/round-trip", test_round_trip);
  g_test_add_func ("/results/overrides", test_overrides);
  g_test_add_func ("/results/plain-mapping", test_plain_mapping);
  g_test_add_func ("/results/report", test_report);
  g_test_add_func ("/results/machine-readable", test_machine_readable);
  g_test_add_func ("/results/csv-matches-json", test_csv_matches_json);
  g_test_add_func ("/results/json-contents", test_json_contents);
  g_test_add_func ("/results/progress-on-terminal", test_progress_on_terminal);
  g_test_add_func ("/results/no-progress-in-pipes", test_no_progress_in_pipes);
  g_test_add_func ("/results/unfairness", test_unfairness);
  return g_test_run ();
}
