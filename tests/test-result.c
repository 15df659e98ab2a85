/* test-result.c: result files (ffm-result.h): the record written and read
 * back equal, plain mapping files, and bad records refused with the file,
 * the line and the JSON path. */
#include <ffm/ffm.h>

#include <string.h>

static const char mapping_json[] =
  "{ \"ffm_mapping\": 1, \"workload\": \"matmuls\", \"nodes\": ["
  "  {\"storage\": [\"T0\", \"W0\", \"T1\"], \"level\": \"MainMemory\"},"
  "  {\"temporal\": \"m\", \"tile\": 1},"
  "  {\"compute\": \"Matmul0\", \"level\": \"MAC\"} ] }";

static FfmResultInfo *
sample_info (void)
{
  g_autoptr (FfmParamValues) arch = ffm_param_values_new ();
  g_autoptr (FfmParamValues) workload = ffm_param_values_new ();
  g_autoptr (FfmParamValues) strategy = ffm_param_values_new ();
  FfmResultInfo *info = ffm_result_info_new ("map");

  ffm_param_values_set (arch, "glb_mib", "2**6");
  ffm_param_values_set (arch, "n_cores", "4");
  ffm_param_values_set (workload, "n_einsums", "1");
  ffm_param_values_set (workload, "decode", "true");
  ffm_param_values_set (strategy, "epsilon", "0.05");
  ffm_result_info_set_architecture (info, "tpuv4i", "tpuv4i", "tpuv4i",
                                    "/lib/ffm/ffm-arch-tpuv4i.so", arch);
  ffm_result_info_set_workload (info, "./w.json", "matmuls", "/data/w.json", workload);
  ffm_result_info_set_strategy (info, "ffm", strategy);
  ffm_result_info_set_objective (info, "edp");
  ffm_result_info_set_option_int (info, "max_fused_loops", -1);
  ffm_result_info_set_option_boolean (info, "unfused", TRUE);
  ffm_result_info_set_option_double (info, "budget", 0.5);
  ffm_result_info_set_option_string (info, "einsum", "QK");
  ffm_result_info_set_option_int (info, "max_fused_loops", 2);   /* replaces */
  return info;
}

/* A result document: the record, a member of the result, the mapping. */
static char *
result_text (const FfmResultInfo *info, gboolean with_mapping)
{
  g_autoptr (FfmJsonWriter) w = ffm_json_writer_new ();
  g_autoptr (FfmMapping) m = ffm_mapping_load_from_data (mapping_json, "m", NULL);

  ffm_json_writer_begin_object (w);
  ffm_result_info_write_json (info, w);
  ffm_json_writer_member_double (w, "energy_j", 1.5);
  if (with_mapping)
    {
      ffm_json_writer_key (w, "mapping");
      ffm_mapping_write_json (m, w);
    }
  ffm_json_writer_end_object (w);
  return ffm_json_writer_finish (w);
}

static void
assert_same_source (const FfmResultSource *a, const FfmResultSource *b)
{
  const char *const *keys = ffm_param_values_get_keys (a->parameters);

  g_assert_cmpstr (a->given, ==, b->given);
  g_assert_cmpstr (a->name, ==, b->name);
  g_assert_cmpstr (a->model, ==, b->model);
  g_assert_cmpstr (a->file, ==, b->file);
  g_assert_cmpuint (g_strv_length ((char **) keys), ==,
                    g_strv_length ((char **) ffm_param_values_get_keys (b->parameters)));
  for (guint i = 0; keys[i] != NULL; i++)
    g_assert_cmpstr (ffm_param_values_lookup (a->parameters, keys[i]), ==,
                     ffm_param_values_lookup (b->parameters, keys[i]));
}

static void
test_round_trip (void)
{
  g_autoptr (FfmResultInfo) info = sample_info ();
  g_autofree char *text = result_text (info, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmResultFile) file = ffm_result_file_load_from_data (text, "r.json", &error);
  g_autoptr (FfmResultInfo) copy = NULL;
  const FfmResultInfo *back;
  g_autofree const char **options = NULL;
  g_autoptr (FfmMapping) expected = ffm_mapping_load_from_data (mapping_json, "m", NULL);

  g_test_summary ("the record reads back as written: sources with every "
                  "parameter as text, strategy, objective, typed options");
  g_assert_no_error (error);
  back = ffm_result_file_get_info (file);
  g_assert_nonnull (back);
  g_assert_cmpstr (ffm_result_info_get_version (back), ==, FFM_VERSION_STRING);
  g_assert_cmpstr (ffm_result_info_get_command (back), ==, "map");
  assert_same_source (ffm_result_info_get_architecture (info),
                      ffm_result_info_get_architecture (back));
  assert_same_source (ffm_result_info_get_workload (info),
                      ffm_result_info_get_workload (back));
  g_assert_null (ffm_result_info_get_workload (back)->model);
  g_assert_cmpstr (ffm_result_info_get_strategy (back), ==, "ffm");
  g_assert_cmpstr (ffm_param_values_lookup (ffm_result_info_get_strategy_parameters (back),
                                            "epsilon"), ==, "0.05");
  g_assert_cmpstr (ffm_result_info_get_objective (back), ==, "edp");
  options = ffm_result_info_list_options (back);
  g_assert_cmpuint (g_strv_length ((char **) options), ==, 4);
  g_assert_cmpstr (options[0], ==, "max_fused_loops");
  g_assert_cmpstr (ffm_result_info_get_option (back, "max_fused_loops"), ==, "2");
  g_assert_cmpstr (ffm_result_info_get_option (back, "unfused"), ==, "true");
  g_assert_cmpstr (ffm_result_info_get_option (back, "budget"), ==, "0.5");
  g_assert_cmpstr (ffm_result_info_get_option (back, "einsum"), ==, "QK");
  g_assert_null (ffm_result_info_get_option (back, "nosuch"));
  g_assert_true (ffm_mapping_equal (ffm_result_file_get_mapping (file), expected));
  g_assert_cmpstr (ffm_mapping_get_source_file (ffm_result_file_get_mapping (file)), ==,
                   "r.json");

  /* Copies write the same text (types kept). */
  copy = ffm_result_info_copy (back);
  {
    g_autofree char *again = result_text (copy, TRUE);
    g_assert_cmpstr (again, ==, text);
  }
}

static void
test_plain_and_empty (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmResultFile) plain = ffm_result_file_load_from_data (mapping_json, "p.json", &error);
  g_autoptr (FfmResultInfo) info = ffm_result_info_new ("pmappings");
  g_autofree char *text = result_text (info, FALSE);
  g_autoptr (FfmResultFile) none = NULL;

  g_test_summary ("a plain mapping file reads as a result without a record; a "
                  "result may hold no mapping");
  g_assert_no_error (error);
  g_assert_null (ffm_result_file_get_info (plain));
  g_assert_cmpstr (ffm_mapping_get_workload_name (ffm_result_file_get_mapping (plain)), ==,
                   "matmuls");
  none = ffm_result_file_load_from_data (text, "n.json", &error);
  g_assert_no_error (error);
  g_assert_null (ffm_result_file_get_mapping (none));
  g_assert_null (ffm_result_info_get_architecture (ffm_result_file_get_info (none)));
  g_assert_null (ffm_result_info_get_strategy (ffm_result_file_get_info (none)));
}

typedef struct {
  const char *text;
  const char *message;          /* expected in the error */
} BadCase;

static const BadCase bad_cases[] = {
  { "[1, 2]", "bad.json: $: expected an object, got an array" },
  { "{ \"energy_j\": 1 }", "neither a result file (\"ffm_result\") nor a mapping file" },
  { "{ \"ffm_result\": 2, \"inputs\": {} }",
    "bad.json:1: $.ffm_result: expected the result format version 1" },
  { "{ \"ffm_result\": 1 }", "missing member \"inputs\"" },
  { "{ \"ffm_result\": 1,\n  \"inputs\": {\n    \"architecure\": {} } }",
    "bad.json:3: $.inputs: unknown member \"architecure\"" },
  { "{ \"ffm_result\": 1, \"inputs\": { \"architecture\": { \"name\": \"x\" } } }",
    "$.inputs.architecture: names no architecture (needs \"given\" or \"file\")" },
  { "{ \"ffm_result\": 1, \"inputs\": { \"workload\": { \"given\": \"w\",\n"
    "  \"parameters\": { \"batch\": [1] } } } }",
    "bad.json:2: $.inputs.workload.parameters.batch: expected a number or an expression" },
  { "{ \"ffm_result\": 1, \"inputs\": { \"workload\": { \"given\": 3 } } }",
    "$.inputs.workload.given: expected a string, got" },
  { "{ \"ffm_result\": 1, \"inputs\": { \"options\": { \"x\": [] } } }",
    "$.inputs.options.x: expected a number, a string or true or false" },
  { "{ \"ffm_result\": 1, \"inputs\": { \"strategy\": { \"parameters\": {} } } }",
    "$.inputs.strategy: missing member \"name\"" },
  { "{ \"ffm_result\": 1, \"inputs\": {},\n \"mapping\": { \"ffm_mapping\": 1,\n"
    " \"nodes\": [ {\"temporal\": \"m\", \"tile\": 0} ] } }",
    "bad.json:3: $.mapping.nodes[0].tile: expected a positive integer, got 0" },
  { "{ \"ffm_result\": 1, \"inputs\": {}, \"mapping\": { \"nodes\": [] } }",
    "$.mapping: missing member \"ffm_mapping\"" },
};

static void
test_bad_files (void)
{
  g_test_summary ("bad result files: an error naming the file, the line and the "
                  "JSON path, never a crash");
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmResultFile) file = ffm_result_file_load_from_data (bad_cases[i].text,
                                                                       "bad.json", &error);
      g_assert_null (file);
      g_assert_nonnull (error);
      if (strstr (error->message, bad_cases[i].message) == NULL)
        g_error ("case %u: expected '%s' in '%s'", i, bad_cases[i].message, error->message);
    }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (FfmResultFile) file = ffm_result_file_load ("/nonexistent/r.json", &error);
    g_assert_null (file);
    g_assert_nonnull (strstr (error->message, "/nonexistent/r.json"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/result/round-trip", test_round_trip);
  g_test_add_func ("/result/plain-and-empty", test_plain_and_empty);
  g_test_add_func ("/result/bad-files", test_bad_files);
  return g_test_run ();
}
