/* test-params.c: declared parameters and KEY=VALUE settings (ffm-params.h). */
#include <ffm/ffm.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

static const char *const attention_choices[] = { "mha", "gqa", NULL };

static const FfmParamSpec specs[] = {
  { "batch", FFM_PARAM_INTEGER, "1", "sequences per batch", 1, 0, NULL },
  { "new_tokens", FFM_PARAM_INTEGER, NULL, "tokens computed", 1, 1048576, NULL },
  { "glb_mib", FFM_PARAM_NUMBER, "8", "global buffer in MiB", 0, 0, NULL },
  { "decode", FFM_PARAM_BOOL, "false", "decode step", 0, 0, NULL },
  { "attention", FFM_PARAM_STRING, "mha", "attention kind", 0, 0, attention_choices },
  { "label", FFM_PARAM_STRING, "x", "free text", 0, 0, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL },
};

static const char *owner = "workload gpt3-6.7b";

static void
test_values (void)
{
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (FfmParamValues) copy = NULL;
  g_autoptr (GError) error = NULL;
  const char *const *keys;

  g_assert_null (ffm_param_values_get_keys (values)[0]);
  g_assert_true (ffm_param_values_parse_assignment (values, "batch=64", &error));
  g_assert_true (ffm_param_values_parse_assignment (values, " attention =gqa", &error));
  g_assert_true (ffm_param_values_parse_assignment (values, "label=a=b", &error));
  ffm_param_values_set (values, "batch", "32");
  g_assert_no_error (error);

  keys = ffm_param_values_get_keys (values);
  g_assert_cmpstr (keys[0], ==, "batch");
  g_assert_cmpstr (keys[1], ==, "attention");
  g_assert_cmpstr (keys[2], ==, "label");
  g_assert_null (keys[3]);
  g_assert_cmpstr (ffm_param_values_lookup (values, "batch"), ==, "32");
  g_assert_cmpstr (ffm_param_values_lookup (values, "label"), ==, "a=b");
  g_assert_null (ffm_param_values_lookup (values, "nope"));
  g_assert_null (ffm_param_values_lookup (NULL, "nope"));

  copy = ffm_param_values_copy (values);
  ffm_param_values_set (values, "batch", "1");
  g_assert_cmpstr (ffm_param_values_lookup (copy, "batch"), ==, "32");
  g_assert_cmpstr (ffm_param_values_get_keys (copy)[1], ==, "attention");

  g_assert_false (ffm_param_values_parse_assignment (values, "batch", &error));
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_SYNTAX);
  g_assert_nonnull (strstr (error->message, "'batch' is not KEY=VALUE"));
  g_clear_error (&error);
  g_assert_false (ffm_param_values_parse_assignment (values, " =3", &error));
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_SYNTAX);
}

static void
test_getters (void)
{
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  gint64 i = 0;
  double x = 0;
  gboolean b = FALSE;

  ffm_param_values_set (values, "new_tokens", "2048");
  ffm_param_values_set (values, "glb_mib", "64*1024");
  ffm_param_values_set (values, "decode", "YES");
  g_assert_true (ffm_param_values_validate (values, specs, owner, &error));
  g_assert_no_error (error);

  g_assert_true (ffm_param_values_get_integer (values, specs, owner, "batch", &i, &error));
  g_assert_cmpint (i, ==, 1);                       /* default */
  g_assert_true (ffm_param_values_get_integer (values, specs, owner, "new_tokens", &i, &error));
  g_assert_cmpint (i, ==, 2048);
  g_assert_true (ffm_param_values_get_number (values, specs, owner, "new_tokens", &x, &error));
  g_assert_cmpfloat (x, ==, 2048);                  /* integers read as numbers */
  g_assert_true (ffm_param_values_get_number (values, specs, owner, "glb_mib", &x, &error));
  g_assert_cmpfloat (x, ==, 65536);
  g_assert_true (ffm_param_values_get_bool (values, specs, owner, "decode", &b, &error));
  g_assert_true (b);
  g_assert_cmpstr (ffm_param_values_get_string (values, specs, owner, "attention", &error),
                   ==, "mha");
  g_assert_no_error (error);

  ffm_param_values_set (values, "glb_mib", "inf");
  g_assert_true (ffm_param_values_get_number (values, specs, owner, "glb_mib", &x, &error));
  g_assert_true (isinf (x));
  ffm_param_values_set (values, "glb_mib", "1e-3");
  g_assert_true (ffm_param_values_get_number (values, specs, owner, "glb_mib", &x, &error));
  g_assert_cmpfloat (x, ==, 1e-3);
  g_assert_true (ffm_param_values_get_number (NULL, specs, owner, "glb_mib", &x, &error));
  g_assert_cmpfloat (x, ==, 8);
  g_assert_no_error (error);
}

typedef struct {
  const char *key;
  const char *value;        /* NULL: do not set */
  const char *read;         /* parameter read with the getter of its type */
  int code;
  const char *message;      /* exact */
} ErrorCase;

static const ErrorCase error_cases[] = {
  { "bach", "3", "bach", FFM_PARAM_ERROR_UNKNOWN,
    "workload gpt3-6.7b: unknown parameter 'bach' (did you mean 'batch'? known: batch, "
    "new_tokens, glb_mib, decode, attention, label)" },
  { "zzzzzz", "3", "zzzzzz", FFM_PARAM_ERROR_UNKNOWN,
    "workload gpt3-6.7b: unknown parameter 'zzzzzz' (known: batch, new_tokens, glb_mib, "
    "decode, attention, label)" },
  { NULL, NULL, "new_tokens", FFM_PARAM_ERROR_MISSING,
    "workload gpt3-6.7b: parameter new_tokens is required (integer: tokens computed); "
    "set it with new_tokens=VALUE" },
  { "batch", "big", "batch", FFM_PARAM_ERROR_INVALID_VALUE,
    "workload gpt3-6.7b: parameter batch: expected an integer, got 'big'" },
  { "batch", "1.5", "batch", FFM_PARAM_ERROR_INVALID_VALUE,
    "workload gpt3-6.7b: parameter batch: expected an integer, got '1.5'" },
  { "batch", "0", "batch", FFM_PARAM_ERROR_INVALID_VALUE,
    "workload gpt3-6.7b: parameter batch: 0 is below the minimum 1" },
  { "new_tokens", "2000000", "new_tokens", FFM_PARAM_ERROR_INVALID_VALUE,
    "workload gpt3-6.7b: parameter new_tokens: 2000000 is out of range [1, 1048576]" },
  { "glb_mib", "", "glb_mib", FFM_PARAM_ERROR_INVALID_VALUE,
    "workload gpt3-6.7b: parameter glb_mib: expected a number, got ''" },
  { "glb_mib", "8 MiB", "glb_mib", FFM_PARAM_ERROR_INVALID_VALUE,
    "workload gpt3-6.7b: parameter glb_mib: expected a number, got '8 MiB': "
    "unexpected 'MiB' at character 3 of \"8 MiB\"" },
  { "glb_mib", "nan", "glb_mib", FFM_PARAM_ERROR_INVALID_VALUE,
    "workload gpt3-6.7b: parameter glb_mib: expected a number, got 'nan'" },
  { "decode", "maybe", "decode", FFM_PARAM_ERROR_INVALID_VALUE,
    "workload gpt3-6.7b: parameter decode: expected true or false, got 'maybe'" },
  { "attention", "mqa", "attention", FFM_PARAM_ERROR_INVALID_VALUE,
    "workload gpt3-6.7b: parameter attention: expected one of mha, gqa, got 'mqa'" },
};

static void
test_errors (void)
{
  g_test_summary ("Bad parameters give exact messages naming the owner and the parameter");
  for (guint k = 0; k < G_N_ELEMENTS (error_cases); k++)
    {
      const ErrorCase *c = &error_cases[k];
      g_autoptr (FfmParamValues) values = ffm_param_values_new ();
      g_autoptr (GError) error = NULL;
      const FfmParamSpec *spec = ffm_param_spec_find (specs, c->read);
      FfmParamType type = spec ? spec->type : FFM_PARAM_INTEGER;
      gboolean ok;
      double x;
      gint64 i;
      gboolean b;

      if (c->value != NULL)
        ffm_param_values_set (values, c->key, c->value);
      if (c->value != NULL)
        {
          g_assert_false (ffm_param_values_validate (values, specs, owner, &error));
          g_assert_error (error, FFM_PARAM_ERROR, c->code);
          g_assert_cmpstr (error->message, ==, c->message);
          g_clear_error (&error);
        }
      switch (type)
        {
        case FFM_PARAM_NUMBER:
          ok = ffm_param_values_get_number (values, specs, owner, c->read, &x, &error);
          break;
        case FFM_PARAM_INTEGER:
          ok = ffm_param_values_get_integer (values, specs, owner, c->read, &i, &error);
          break;
        case FFM_PARAM_BOOL:
          ok = ffm_param_values_get_bool (values, specs, owner, c->read, &b, &error);
          break;
        default:
          ok = ffm_param_values_get_string (values, specs, owner, c->read, &error) != NULL;
          break;
        }
      g_assert_false (ok);
      g_assert_error (error, FFM_PARAM_ERROR, c->code);
      g_assert_cmpstr (error->message, ==, c->message);
    }
}

static void
test_type_mismatch (void)
{
  g_autoptr (GError) error = NULL;
  gint64 i;

  g_assert_false (ffm_param_values_get_integer (NULL, specs, owner, "glb_mib", &i, &error));
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "declared as number, read as integer"));
  g_clear_error (&error);
  g_assert_false (ffm_param_values_get_integer (NULL, NULL, "model x", "a", &i, &error));
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_UNKNOWN);
  g_assert_cmpstr (error->message, ==,
                   "model x: unknown parameter 'a' (it declares no parameters)");
}

static void
test_specs (void)
{
  FfmParamSpec *heap = g_new0 (FfmParamSpec, 3);
  const char *const choices[] = { "a", "b", NULL };

  g_assert_cmpstr (ffm_param_type_to_string (FFM_PARAM_NUMBER), ==, "number");
  g_assert_cmpstr (ffm_param_type_to_string (FFM_PARAM_INTEGER), ==, "integer");
  g_assert_cmpstr (ffm_param_type_to_string (FFM_PARAM_STRING), ==, "string");
  g_assert_cmpstr (ffm_param_type_to_string (FFM_PARAM_BOOL), ==, "bool");
  g_assert_true (ffm_param_spec_find (specs, "decode") == &specs[3]);
  g_assert_null (ffm_param_spec_find (specs, "nope"));
  g_assert_null (ffm_param_spec_find (NULL, "nope"));

  heap[0].name = g_strdup ("x");
  heap[0].type = FFM_PARAM_STRING;
  heap[0].default_value = g_strdup ("a");
  heap[0].help = g_strdup ("help");
  heap[0].choices = (const char *const *) g_strdupv ((char **) choices);
  heap[1].name = g_strdup ("y");
  heap[1].type = FFM_PARAM_INTEGER;
  ffm_param_specs_free (heap);          /* leaks show under the sanitizer */
  ffm_param_specs_free (NULL);
}

/* ffm_param_specs_copy duplicates every string; ffm_param_values_read_all
 * fills a struct with values and defaults and reports the first bad one. */
typedef struct {
  double size;
  gint64 count;
  gboolean fast;
  const char *mode;
} ReadAllConfig;

static void
test_read_all (void)
{
  static const char *const modes[] = { "a", "b", NULL };
  static const FfmParamSpec rspecs[] = {
    { "size", FFM_PARAM_NUMBER, "1.5", "size, MiB", 0, 100, NULL },
    { "count", FFM_PARAM_INTEGER, "4", "count", 1, 64, NULL },
    { "fast", FFM_PARAM_BOOL, "false", "fast mode", 0, 0, NULL },
    { "mode", FFM_PARAM_STRING, "a", "mode", 0, 0, modes },
    { NULL, 0, NULL, NULL, 0, 0, NULL }
  };
  static const gsize offsets[] = {
    G_STRUCT_OFFSET (ReadAllConfig, size), G_STRUCT_OFFSET (ReadAllConfig, count),
    G_STRUCT_OFFSET (ReadAllConfig, fast), G_STRUCT_OFFSET (ReadAllConfig, mode),
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  FfmParamSpec *copy = ffm_param_specs_copy (rspecs);
  ReadAllConfig config = { 0 };

  g_assert_cmpstr (copy[3].name, ==, "mode");
  g_assert_true (copy[3].name != rspecs[3].name);
  g_assert_cmpstr (copy[3].choices[1], ==, "b");
  g_assert_null (copy[4].name);
  ffm_param_specs_free (copy);

  g_assert_true (ffm_param_values_read_all (NULL, rspecs, "model x", offsets,
                                            &config, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (config.size, ==, 1.5);
  g_assert_cmpint (config.count, ==, 4);
  g_assert_false (config.fast);
  g_assert_cmpstr (config.mode, ==, "a");

  ffm_param_values_set (values, "count", "8");
  ffm_param_values_set (values, "fast", "yes");
  ffm_param_values_set (values, "mode", "b");
  g_assert_true (ffm_param_values_read_all (values, rspecs, "model x", offsets,
                                            &config, &error));
  g_assert_cmpint (config.count, ==, 8);
  g_assert_true (config.fast);
  g_assert_cmpstr (config.mode, ==, "b");

  ffm_param_values_set (values, "count", "65");
  g_assert_false (ffm_param_values_read_all (values, rspecs, "model x", offsets,
                                             &config, &error));
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "model x"));
  g_assert_nonnull (strstr (error->message, "count"));
  g_clear_error (&error);

  ffm_param_values_set (values, "count", "2");
  ffm_param_values_set (values, "sise", "2");
  g_assert_false (ffm_param_values_read_all (values, rspecs, "model x", offsets,
                                             &config, &error));
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_UNKNOWN);
  g_assert_nonnull (strstr (error->message, "sise"));
}

/* ---- One reader for architecture and workload files (ffm-params-reader.c) ---- */

/* An architecture file with @params and @lets as its members. */
static char *
arch_text (const char *params, const char *lets)
{
  return g_strdup_printf ("{ \"ffm_architecture\": 1, \"name\": \"t\",\n"
                          "  \"parameters\": %s,\n  \"let\": %s,\n"
                          "  \"levels\": [ { \"memory\": \"DRAM\", \"size\": \"inf\" },\n"
                          "              { \"compute\": \"PE\" } ] }\n", params, lets);
}

/* A workload file with @params and @lets as its members. */
static char *
workload_text (const char *params, const char *lets)
{
  return g_strdup_printf ("{ \"ffm_workload\": 1, \"name\": \"t\",\n"
                          "  \"parameters\": %s,\n  \"let\": %s,\n"
                          "  \"ranks\": { \"M\": 4 }, \"bits_per_value\": { \"all\": 8 },\n"
                          "  \"einsums\": [ { \"einsum\": \"Z[m] = A[m]\" } ] }\n", params, lets);
}

/* The declarations the architecture loader reads from @params. */
static FfmParamSpec *
arch_specs (const char *params, GError **error)
{
  g_autofree char *text = arch_text (params, "{}");
  g_autofree char *path = NULL;
  FfmParamSpec *declared;
  int fd = g_file_open_tmp ("ffm-params-XXXXXX.json", &path, NULL);

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  declared = ffm_arch_file_get_param_specs (path, NULL, error);
  g_unlink (path);
  return declared;
}

static void
assert_same_spec (const FfmParamSpec *a, const FfmParamSpec *w)
{
  g_assert_cmpstr (a->name, ==, w->name);
  g_assert_cmpint (a->type, ==, w->type);
  g_assert_cmpstr (a->default_value, ==, w->default_value);
  g_assert_cmpstr (a->help, ==, w->help);
  g_assert_cmpfloat (a->min, ==, w->min);
  g_assert_cmpfloat (a->max, ==, w->max);
  g_assert_cmpint (a->choices == NULL, ==, w->choices == NULL);
  for (guint i = 0; a->choices != NULL && (a->choices[i] || w->choices[i]); i++)
    g_assert_cmpstr (a->choices[i], ==, w->choices[i]);
}

static void
test_reader_same_declarations (void)
{
  static const char *params =
    "{ \"n\": { \"type\": \"integer\", \"default\": 4, \"min\": 1, \"help\": \"count\" },\n"
    "  \"size\": { \"type\": \"number\", \"default\": \"inf\", \"min\": \"2**10\" },\n"
    "  \"scale\": { \"default\": 0.5, \"min\": 0, \"max\": 1 },\n"
    "  \"kind\": { \"default\": \"a\", \"choices\": [\"a\", \"b\"] },\n"
    "  \"on\": { \"default\": true },\n"
    "  \"whole\": { \"default\": 3 } }";
  g_autoptr (GError) error = NULL;
  g_autofree char *wtext = workload_text (params, "{}");
  g_autoptr (FfmWorkload) w = ffm_workload_load_from_data (wtext, "w.json", NULL, &error);
  FfmParamSpec *a;
  const FfmParamSpec *ws;

  g_test_summary ("Architecture and workload files read the same declarations the "
                  "same way, but for a whole-number default's type (a workload's "
                  "is an integer, an architecture's a number)");
  g_assert_no_error (error);
  a = arch_specs (params, &error);
  g_assert_no_error (error);
  ws = ffm_workload_get_param_specs (w);
  for (guint i = 0; i < 5; i++)
    assert_same_spec (&a[i], &ws[i]);
  g_assert_cmpfloat (a[0].max, ==, INFINITY);       /* no maximum, in both */
  g_assert_cmpfloat (a[1].min, ==, 1024);
  g_assert_cmpstr (a[1].default_value, ==, "inf");
  g_assert_cmpstr (a[5].name, ==, "whole");
  g_assert_cmpint (a[5].type, ==, FFM_PARAM_NUMBER);
  g_assert_cmpint (ws[5].type, ==, FFM_PARAM_INTEGER);
  g_assert_cmpstr (a[5].default_value, ==, ws[5].default_value);
  g_assert_null (a[6].name);
  g_assert_null (ws[6].name);
  ffm_param_specs_free (a);
}

/* The message of loading @params and @lets as an architecture and as a
 * workload, after "FILE:LINE: ": the same in both. */
static void
assert_same_error (const char *params, const char *lets, const char *expected)
{
  g_autofree char *atext = arch_text (params, lets);
  g_autofree char *wtext = workload_text (params, lets);
  g_autoptr (GError) aerror = NULL;
  g_autoptr (GError) werror = NULL;
  g_autoptr (FfmArch) arch = ffm_arch_load_from_data (atext, "f.json", NULL, &aerror);
  g_autoptr (FfmWorkload) w = ffm_workload_load_from_data (wtext, "f.json", NULL, &werror);

  g_assert_null (arch);
  g_assert_null (w);
  g_assert_error (aerror, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID);
  g_assert_error (werror, FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_INVALID);
  g_test_message ("architecture: %s\nworkload: %s", aerror->message, werror->message);
  g_assert_cmpstr (aerror->message, ==, werror->message);
  g_assert_nonnull (strstr (aerror->message, expected));
}

static void
test_reader_same_errors (void)
{
  g_test_summary ("A bad declaration or let is the same error, word for word, in an "
                  "architecture and in a workload");
  assert_same_error ("{ \"Batch\": { \"default\": 1 } }", "{}",
                     "f.json:2: $.parameters.Batch: parameter name 'Batch' must match");
  assert_same_error ("{ \"m\": { \"type\": \"float\", \"default\": 1 } }", "{}",
                     "$.parameters.m.type: unknown parameter type 'float'");
  assert_same_error ("{ \"m\": { \"default\": 0, \"min\": 1 } }", "{}",
                     "$.parameters.m.default: the default 0 is outside [1, inf]");
  assert_same_error ("{ \"m\": { \"default\": 2, \"min\": 3, \"max\": 1 } }", "{}",
                     "$.parameters.m.max: max 1 is below min 3");
  assert_same_error ("{ \"m\": { \"type\": \"integer\", \"default\": 2.5 } }", "{}",
                     "the default of an integer parameter must be a whole number, got 2.5");
  assert_same_error ("{ \"m\": { \"default\": 1, \"choices\": [\"a\"] } }", "{}",
                     "\"choices\" applies to string parameters only");
  assert_same_error ("{ \"s\": { \"default\": \"c\", \"choices\": [\"a\", \"b\"] } }", "{}",
                     "the default \"c\" is not one of the choices");
  assert_same_error ("{ \"s\": { \"default\": \"a\", \"min\": 1 } }", "{}",
                     "\"min\" and \"max\" apply to integer and number parameters only");
  assert_same_error ("{ \"m\": { \"default\": 1, \"unit\": \"s\" } }", "{}",
                     "unknown member \"unit\"");
  assert_same_error ("{ \"m\": { \"default\": 1 } }", "{ \"m\": 2 }",
                     "$.let.m: 'm' is already a parameter");
  assert_same_error ("{ \"m\": { \"default\": 1 } }", "{ \"2x\": 2 }",
                     "$.let.2x: name '2x' must match [A-Za-z_][A-Za-z0-9_]*");
  assert_same_error ("{ \"m\": { \"default\": 1, \"required_when\": \"'yes'\" } }", "{}",
                     "required_when: expected a condition (a number), got a string");
}

static void
test_reader_arch_required_when (void)
{
  g_autofree char *text = arch_text (
    "{ \"dram\": { \"default\": \"lpddr4\", \"choices\": [\"lpddr4\", \"custom\"] },\n"
    "  \"dram_gbps\": { \"default\": 25, \"min\": 1, \"required_when\": \"dram == 'custom'\" } }",
    "{ \"dram_bytes\": \"dram_gbps * 1e9\" }");
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  FfmArch *arch;
  double v = 0;

  g_test_summary ("An architecture's parameter with required_when: its default while "
                  "the condition is false; an error naming it and the values when "
                  "true and not set; the user's value when set");
  arch = ffm_arch_load_from_data (text, "t.json", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ffm_arch_get_variable (arch, "dram_gbps", &v));
  g_assert_cmpfloat (v, ==, 25);
  g_assert_true (ffm_arch_get_variable (arch, "dram_bytes", &v));
  g_assert_cmpfloat (v, ==, 25e9);
  ffm_arch_unref (arch);

  ffm_param_values_set (values, "dram", "custom");
  arch = ffm_arch_load_from_data (text, "t.json", values, &error);
  g_assert_null (arch);
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_MISSING);
  g_assert_cmpstr (error->message, ==,
                   "t.json:3: $.parameters.dram_gbps.required_when: architecture t: "
                   "parameter dram_gbps is required when dram == 'custom' (dram = "
                   "'custom'); set it with --param dram_gbps=VALUE");
  g_clear_error (&error);

  ffm_param_values_set (values, "dram_gbps", "40");
  arch = ffm_arch_load_from_data (text, "t.json", values, &error);
  g_assert_no_error (error);
  g_assert_true (ffm_arch_get_variable (arch, "dram_bytes", &v));
  g_assert_cmpfloat (v, ==, 40e9);
  ffm_arch_unref (arch);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/params/values", test_values);
  g_test_add_func ("/params/getters", test_getters);
  g_test_add_func ("/params/errors", test_errors);
  g_test_add_func ("/params/type-mismatch", test_type_mismatch);
  g_test_add_func ("/params/specs", test_specs);
  g_test_add_func ("/params/read-all", test_read_all);
  g_test_add_func ("/params/reader/same-declarations", test_reader_same_declarations);
  g_test_add_func ("/params/reader/same-errors", test_reader_same_errors);
  g_test_add_func ("/params/reader/arch-required-when", test_reader_arch_required_when);

  return g_test_run ();
}
