/* test-constraints-cli.c: mapping constraints and policies through the
 * `ffm` command (FFM_EXE): --constraints FILE, the short options, --policy
 * (transfusion on a small attention block, inspected node by node),
 * `ffm list` naming the policies, `ffm eval` checking a mapping against a
 * constraint set (every violation reported, exit 1), and bad input (exit
 * 1, the file or the option and the cause on stderr). */
#include <ffm/ffm.h>

#include "ffm-run.h"
#include "json-strict.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

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

  json_strict_assert (text, "ffm map --json");
  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

/* The entry of @tensor in the result's "fused_tensors". */
static JsonObject *
fused_entry (JsonObject *o, const char *tensor)
{
  JsonArray *fused = json_object_get_array_member (o, "fused_tensors");

  for (guint i = 0; i < json_array_get_length (fused); i++)
    {
      JsonObject *f = json_array_get_object_element (fused, i);
      if (strcmp (json_object_get_string_member (f, "tensor"), tensor) == 0)
        return f;
    }
  g_error ("no fused_tensors entry for %s", tensor);
}

static char *
write_temp (const char *dir, const char *name, const char *text)
{
  g_autoptr (GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  return path;
}

#define MATMULS "--arch", "simple", "--workload", "matmuls", "--param", "n_einsums=2", \
  "--param", "m=16", "--param", "kn=16"

static void
test_file_and_short_options (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ffm-constraints-XXXXXX", &error);
  g_autofree char *file = NULL;
  g_auto (FfmTestRun) unfused = { 0 }, fused = { 0 }, text = { 0 };
  g_autoptr (JsonParser) p1 = json_parser_new ();
  g_autoptr (JsonParser) p2 = json_parser_new ();
  JsonObject *o, *f;

  g_test_summary ("--constraints FILE and --fuse decide where T1 is backed; the "
                  "JSON holds the constraints, the text lists them");
  g_assert_no_error (error);
  file = write_temp (dir, "c.json", "{\"ffm_constraints\": 1, \"name\": \"mine\", "
                     "\"constraints\": [{\"unfuse\": \"T1\"}]}");
  FFM_TEST_RUN (&unfused, "map", MATMULS, "--constraints", file, "--json", "-");
  g_assert_cmpint (unfused.status, ==, 0);
  o = parse_object (p1, unfused.out);
  f = fused_entry (o, "T1");
  g_assert_false (json_object_get_boolean_member (f, "on_chip"));
  g_assert_cmpstr (json_object_get_string_member (f, "level"), ==, "MainMemory");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (o, "constraints"),
                                                  "name"), ==, "mine");

  FFM_TEST_RUN (&fused, "map", MATMULS, "--fuse", "T1@GlobalBuffer", "--json", "-");
  g_assert_cmpint (fused.status, ==, 0);
  o = parse_object (p2, fused.out);
  f = fused_entry (o, "T1");
  g_assert_true (json_object_get_boolean_member (f, "on_chip"));
  g_assert_cmpstr (json_object_get_string_member (f, "level"), ==, "GlobalBuffer");

  FFM_TEST_RUN (&text, "map", MATMULS, "--no-fuse", "intermediates",
                "--stationary", "weight@GlobalBuffer");
  g_assert_cmpint (text.status, ==, 0);
  assert_contains (text.out, "Constraints (command line):");
  assert_contains (text.out, "unfuse intermediates (--no-fuse intermediates)");
  assert_contains (text.out, "stationary weight at GlobalBuffer (--stationary weight@GlobalBuffer)");
  g_unlink (file);
  g_rmdir (dir);
}

typedef struct {
  const char *file_text;        /* written to bad.json and passed with
                                   --constraints, or NULL */
  const char *option, *value;   /* or this option */
  const char *expect[3];
} BadCli;

static void
test_bad_input (void)
{
  static const BadCli cases[] = {
    { "{\"ffm_constraints\": 1, \"constraints\": [\n {\"keep\": \"W0\", \"level\": \"Nowhere\"}]}",
      NULL, NULL, { "bad.json:2", "Nowhere", "MainMemory, GlobalBuffer" } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n {\"fuse\": \"T1\"},\n {\"unfuse\": \"T1\"}]}",
      NULL, NULL, { "bad.json:2", "bad.json:3", "contradictory" } },
    { "{\"ffm_constraints\": 1,\n \"constraints\": [\n {\"fuse\": }]}",
      NULL, NULL, { "bad.json:3", NULL } },
    { NULL, "--stationary", "weight", { "--stationary", "TENSORS@LEVEL", NULL } },
    { NULL, "--keep", "W7@GlobalBuffer", { "--keep W7@GlobalBuffer", "W7", NULL } },
    { NULL, "--fuse", "T1@MainMemory", { "--fuse T1@MainMemory", "outermost", NULL } },
    { NULL, "--policy", "no-such", { "no-such", "transfusion", "unfused" } },
    { NULL, "--constraints", "/nonexistent/c.json", { "/nonexistent/c.json", NULL } },
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ffm-constraints-XXXXXX", &error);

  g_test_summary ("Bad constraint files and options: exit 1, stderr names the "
                  "file (and line) or the option and the cause");
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (FfmTestRun) run = { 0 };
      g_autofree char *file = NULL;
      if (cases[i].file_text != NULL)
        {
          file = write_temp (dir, "bad.json", cases[i].file_text);
          FFM_TEST_RUN (&run, "map", MATMULS, "--constraints", file);
        }
      else
        FFM_TEST_RUN (&run, "map", MATMULS, cases[i].option, cases[i].value);
      g_test_message ("%s", run.err);
      g_assert_cmpint (run.status, ==, 1);
      g_assert_cmpstr (run.out, ==, "");
      for (guint k = 0; k < G_N_ELEMENTS (cases[i].expect) && cases[i].expect[k] != NULL; k++)
        assert_contains (run.err, cases[i].expect[k]);
      if (file != NULL)
        g_unlink (file);
    }
  g_rmdir (dir);
}

/* A node's tensors include one of @set. */
static gboolean
holds_any (const FfmMappingNode *n, GHashTable *set)
{
  for (guint i = 0; n->tensors[i] != NULL; i++)
    if (g_hash_table_contains (set, n->tensors[i]))
      return TRUE;
  return FALSE;
}

/* transfusion on GPT-3 6.7B with 16 tokens (one attention block and its
 * feed-forward layers) on edge: every tensor passed between Einsums but K,
 * V and the layer input I backed in GlobalBuffer, those three in MainMemory; at GlobalBuffer, on
 * every Einsum's path, no tile of a weight (or another non-intermediate)
 * lies above a tile of an intermediate, the backing nodes of the fused
 * tensors aside (the intermediate-stationary dataflow). */
static void
test_transfusion (void)
{
  g_auto (FfmTestRun) run = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (GHashTable) shared = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmMapping) mapping = NULL;
  g_autoptr (GPtrArray) paths = NULL;
  g_autofree char *mapping_text = NULL;
  JsonObject *o;
  JsonArray *fused;
  guint checked = 0;

  g_test_summary ("--policy transfusion on a small attention block: exactly the "
                  "documented fusion set and the intermediate-stationary dataflow");
  FFM_TEST_RUN (&run, "map", "--arch", "edge", "--workload", "gpt3-6.7b",
                "--param", "new_tokens=16", "--policy", "transfusion",
                "--threads", "1", "--json", "-");
  g_assert_cmpint (run.status, ==, 0);
  o = parse_object (parser, run.out);
  fused = json_object_get_array_member (o, "fused_tensors");
  g_assert_cmpuint (json_array_get_length (fused), ==, 9);
  for (guint i = 0; i < json_array_get_length (fused); i++)
    {
      JsonObject *f = json_array_get_object_element (fused, i);
      const char *t = json_object_get_string_member (f, "tensor");
      gboolean kv = strcmp (t, "K") == 0 || strcmp (t, "V") == 0 || strcmp (t, "I") == 0;
      g_hash_table_add (shared, (gpointer) t);
      g_assert_cmpint (json_object_get_boolean_member (f, "on_chip"), ==, !kv);
      g_assert_cmpstr (json_object_get_string_member (f, "level"), ==,
                       kv ? "MainMemory" : "GlobalBuffer");
    }
  json_generator_set_root (gen, json_object_get_member (o, "mapping"));
  mapping_text = json_generator_to_data (gen, NULL);
  mapping = ffm_mapping_load_from_data (mapping_text, "result", &error);
  g_assert_no_error (error);
  paths = ffm_mapping_dup_paths (mapping);
  for (guint p = 0; p < paths->len; p++)
    {
      const GPtrArray *path = g_ptr_array_index (paths, p);
      g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
      gboolean other_above = FALSE;
      for (guint i = 0; i < path->len; i++)
        {
          const FfmMappingNode *n = g_ptr_array_index (path, i);
          gboolean fused_backing = TRUE, intermediate;
          if (n->kind != FFM_NODE_STORAGE)
            continue;
          for (guint k = 0; n->tensors[k] != NULL; k++)
            fused_backing &= g_hash_table_contains (shared, n->tensors[k])
                             && !g_hash_table_contains (seen, n->tensors[k]);
          for (guint k = 0; n->tensors[k] != NULL; k++)
            g_hash_table_add (seen, n->tensors[k]);
          if (strcmp (n->level, "GlobalBuffer") != 0 || n->persistent || fused_backing)
            continue;
          intermediate = holds_any (n, shared);
          if (intermediate)
            {
              g_assert_false (other_above);
              checked++;
            }
          else
            other_above = TRUE;
        }
    }
  /* the dataflow was checked on some nodes, not vacuously */
  g_assert_cmpuint (checked, >, 0);
}

static void
test_list (void)
{
  g_auto (FfmTestRun) run = { 0 }, json = { 0 };

  FFM_TEST_RUN (&run, "list");
  g_assert_cmpint (run.status, ==, 0);
  assert_contains (run.out, "Policies (ffm map --policy NAME):");
  assert_contains (run.out, "  transfusion: ");
  assert_contains (run.out, "    fuse intermediates - (I | K | V) at GlobalBuffer\n");
  assert_contains (run.out, "  unfused: ");
  FFM_TEST_RUN (&json, "list", "--json", "-");
  g_assert_cmpint (json.status, ==, 0);
  json_strict_assert (json.out, "ffm list --json");
  assert_contains (json.out, "\"name\": \"transfusion\"");
}

/* The pmappings of Einsum 0 in `ffm pmappings --json -` output. */
static gint64
pmappings_of_first (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, text);
  JsonArray *einsums = json_object_get_array_member (o, "einsums");

  return json_object_get_int_member (json_array_get_object_element (einsums, 0),
                                     "pmappings");
}

static void
test_pmappings (void)
{
  g_auto (FfmTestRun) free_run = { 0 }, unfused = { 0 }, bad = { 0 };

  g_test_summary ("ffm pmappings takes the constraint options: fewer pmappings "
                  "under unfused; a bad name fails naming the option");
  FFM_TEST_RUN (&free_run, "pmappings", MATMULS, "--json", "-");
  FFM_TEST_RUN (&unfused, "pmappings", MATMULS, "--policy", "unfused", "--json", "-");
  g_assert_cmpint (free_run.status, ==, 0);
  g_assert_cmpint (unfused.status, ==, 0);
  g_assert_cmpint (pmappings_of_first (unfused.out), <, pmappings_of_first (free_run.out));
  g_assert_cmpint (pmappings_of_first (unfused.out), >, 0);
  FFM_TEST_RUN (&bad, "pmappings", MATMULS, "--keep", "Q@GlobalBuffer");
  g_assert_cmpint (bad.status, ==, 1);
  assert_contains (bad.err, "--keep Q@GlobalBuffer: keep \"Q\": unknown tensor 'Q'");
}

static void
test_eval (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ffm-constraints-XXXXXX", &error);
  g_autofree char *fused = NULL, *unfused = NULL, *file = NULL, *unknown = NULL;
  g_autofree char *broken = NULL;
  g_auto (FfmTestRun) make_fused = { 0 }, make_unfused = { 0 }, ok = { 0 }, bad = { 0 };
  g_auto (FfmTestRun) bad_json = { 0 }, policy = { 0 }, no_name = { 0 }, no_json = { 0 };
  g_autoptr (JsonParser) p1 = json_parser_new ();
  g_autoptr (JsonParser) p2 = json_parser_new ();
  JsonObject *c;
  JsonArray *violations;

  g_test_summary ("ffm eval --constraints/--policy: a mapping that satisfies the set "
                  "says so (exit 0); one that does not lists every violated constraint "
                  "with the Einsum and why, in text, stderr and JSON (exit 1); a bad "
                  "constraint file is an error naming it");
  g_assert_no_error (error);
  fused = g_build_filename (dir, "fused.json", NULL);
  unfused = g_build_filename (dir, "unfused.json", NULL);
  FFM_TEST_RUN (&make_fused, "map", MATMULS, "--fuse", "T1", "--json", fused);
  g_assert_cmpint (make_fused.status, ==, 0);
  FFM_TEST_RUN (&make_unfused, "map", MATMULS, "--no-fuse", "T1", "--json", unfused);
  g_assert_cmpint (make_unfused.status, ==, 0);
  file = write_temp (dir, "c.json", "{\"ffm_constraints\": 1, \"name\": \"mine\", "
                     "\"constraints\": [{\"unfuse\": \"T1\"}, "
                     "{\"backing\": \"T0 | T2\", \"level\": \"MainMemory\"}]}");

  FFM_TEST_RUN (&ok, "eval", unfused, "--constraints", file);
  g_assert_cmpint (ok.status, ==, 0);
  assert_contains (ok.out, "Constraints (mine): all 2 satisfied");

  FFM_TEST_RUN (&bad, "eval", fused, "--constraints", file);
  g_assert_cmpint (bad.status, ==, 1);
  assert_contains (bad.out, "Constraints (mine): 2 violations");
  assert_contains (bad.out, "Einsum Matmul0: T1 is backed at GlobalBuffer");
  assert_contains (bad.out, "Einsum Matmul1: T1 is backed at GlobalBuffer");
  assert_contains (bad.err, "the mapping violates unfuse T1");
  g_assert_null (strstr (bad.out, "backing T0 | T2"));

  FFM_TEST_RUN (&bad_json, "eval", fused, "--constraints", file, "--json", "-");
  g_assert_cmpint (bad_json.status, ==, 1);
  c = json_object_get_object_member (parse_object (p1, bad_json.out), "constraints");
  g_assert_cmpstr (json_object_get_string_member (c, "name"), ==, "mine");
  g_assert_false (json_object_get_boolean_member (c, "satisfied"));
  violations = json_object_get_array_member (c, "violations");
  g_assert_cmpuint (json_array_get_length (violations), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *v = json_array_get_object_element (violations, i);
      assert_contains (json_object_get_string_member (v, "constraint"), "unfuse T1");
      assert_contains (json_object_get_string_member (v, "constraint"), "c.json");
      g_assert_cmpstr (json_object_get_string_member (v, "einsum"), ==, i ? "Matmul1" : "Matmul0");
      g_assert_cmpstr (json_object_get_string_member (v, "why"), ==, "T1 is backed at GlobalBuffer");
    }

  FFM_TEST_RUN (&policy, "eval", fused, "--policy", "unfused", "--json", "-");
  g_assert_cmpint (policy.status, ==, 1);
  c = json_object_get_object_member (parse_object (p2, policy.out), "constraints");
  g_assert_cmpstr (json_object_get_string_member (c, "name"), ==, "unfused");
  g_assert_false (json_object_get_boolean_member (c, "satisfied"));

  unknown = write_temp (dir, "unknown.json", "{\"ffm_constraints\": 1, \"constraints\": "
                        "[{\"unfuse\": \"Q\"}]}");
  FFM_TEST_RUN (&no_name, "eval", fused, "--constraints", unknown);
  g_assert_cmpint (no_name.status, ==, 1);
  assert_contains (no_name.err, "unknown.json");
  assert_contains (no_name.err, "unknown tensor 'Q'");
  g_assert_cmpstr (no_name.out, ==, "");
  broken = write_temp (dir, "broken.json", "{\"ffm_constraints\": 1, \"constraints\": [");
  FFM_TEST_RUN (&no_json, "eval", fused, "--constraints", broken);
  g_assert_cmpint (no_json.status, ==, 1);
  assert_contains (no_json.err, "broken.json");
  g_unlink (fused);
  g_unlink (unfused);
  g_unlink (file);
  g_unlink (unknown);
  g_unlink (broken);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/constraints-cli/file-and-short-options", test_file_and_short_options);
  g_test_add_func ("/constraints-cli/bad-input", test_bad_input);
  g_test_add_func ("/constraints-cli/transfusion", test_transfusion);
  g_test_add_func ("/constraints-cli/list", test_list);
  g_test_add_func ("/constraints-cli/eval", test_eval);
  g_test_add_func ("/constraints-cli/pmappings", test_pmappings);
  return g_test_run ();
}
