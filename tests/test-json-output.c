/* test-json-output.c: every JSON ffm writes is strict JSON, and every
 * write reaches its file or fails loudly.
 *
 * - The writer (ffm-json-writer.h): escapes, the shortest round-trip
 *   doubles, the spelling of inf/-inf/nan, layout, misuse; a property test
 *   over random documents.
 * - Output files (ffm-output-file.h): a regular file replaced atomically
 *   with its permissions, a symbolic link followed, /dev/null and
 *   /dev/stdout written in place, /dev/full and a missing folder refused
 *   with the file and the cause.
 * - What ffm writes, checked by a strict parser (json-strict.h): every
 *   shipped architecture and workload as JSON; `ffm list --json`; `ffm map`,
 *   `ffm eval` and `ffm pmappings` --json on every shipped architecture.
 * - Standard output on a full disk: every command exits 1 and says so. */
#include <ffm/ffm.h>

#include "ffm-run.h"
#include "json-strict.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
assert_contains (const char *text, const char *needle)
{
  if (strstr (text, needle) == NULL)
    g_error ("'%s' not found in:\n%s", needle, text);
}

static JsonNode *
parse (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

/* ---- The writer ---- */

static void
test_writer_doubles (void)
{
  static const double values[] = {
    0, -0.0, 1, -1, 0.1, 1e-8, 2e-08, 6e-9, 1048576, 8e-12, 1.0 / 3, 1e300,
    -1e-300, 5e-324, 1.7976931348623157e308, 9007199254740993.0, 123456789012345678.0,
    12069544874830208.0, -1152921504606846976.0, 9007199254740992.0,
  };
  g_autoptr (FfmJsonWriter) w = ffm_json_writer_new ();
  g_autofree char *text = NULL;
  g_autoptr (JsonNode) root = NULL;
  JsonArray *array;
  double back;

  g_test_summary ("Doubles: shortest text that reads back exactly, strict JSON, "
                  "inf/-inf/nan as strings that read back");
  ffm_json_writer_begin_array (w);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    ffm_json_writer_double (w, values[i]);
  ffm_json_writer_double (w, INFINITY);
  ffm_json_writer_double (w, -INFINITY);
  ffm_json_writer_double (w, NAN);
  ffm_json_writer_end_array (w);
  text = ffm_json_writer_finish (w);
  json_strict_assert (text, "doubles");
  /* json-glib 1.6 wrote these as 1e-08.0, 2e-08.0 and 6e-09.0. */
  assert_contains (text, "\n  1e-08,");
  assert_contains (text, "\n  2e-08,");
  assert_contains (text, "\n  6e-09,");
  assert_contains (text, "\n  8e-12,");
  assert_contains (text, "\n  0.1,");
  assert_contains (text, "\n  1048576,");
  assert_contains (text, "\n  \"inf\",\n  \"-inf\",\n  \"nan\"\n]\n");
  /* Whole numbers beyond 2^53 keep an exponent, so that ffm's readers
   * (which refuse integers beyond 2^53) take them back as doubles; found
   * by fuzz-arch. 2^53 itself is still an integer. */
  assert_contains (text, "\n  1.2069544874830208e+16,");
  assert_contains (text, "\n  -1.152921504606847e+18,");
  assert_contains (text, "\n  9007199254740992,");
  {
    g_autoptr (GError) error = NULL;
    g_autofree char *doc = g_strdup_printf ("{ \"ffm_mapping\": 1, \"nodes\": [], \"x\": %s }",
                                            text);
    g_autoptr (FfmMapping) m = ffm_mapping_load_from_data (doc, "doubles.json", &error);
    /* The document is no mapping; what matters is that the numbers pass
     * the reader's checks and the error is about the mapping. */
    g_assert_null (m);
    g_assert_nonnull (error);
    g_assert_null (strstr (error->message, "beyond 2^53"));
  }

  root = parse (text);
  array = json_node_get_array (root);
  g_assert_cmpuint (json_array_get_length (array), ==, G_N_ELEMENTS (values) + 3);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_assert_true (ffm_json_node_get_double (json_array_get_element (array, i), &back));
      g_assert_cmpmem (&back, sizeof back, &values[i], sizeof values[i]);
    }
  g_assert_true (ffm_json_node_get_double (json_array_get_element (array, G_N_ELEMENTS (values)), &back));
  g_assert_true (isinf (back) && back > 0);
  g_assert_true (ffm_json_node_get_double (json_array_get_element (array, G_N_ELEMENTS (values) + 1), &back));
  g_assert_true (isinf (back) && back < 0);
  g_assert_true (ffm_json_node_get_double (json_array_get_element (array, G_N_ELEMENTS (values) + 2), &back));
  g_assert_true (isnan (back));
}

static void
test_writer_strings (void)
{
  g_autoptr (FfmJsonWriter) w = ffm_json_writer_new ();
  g_autofree char *text = NULL;
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o;

  g_test_summary ("Strings: quotes, backslashes, control characters escaped; "
                  "invalid UTF-8 replaced; keys escaped too");
  ffm_json_writer_begin_object (w);
  ffm_json_writer_member_string (w, "plain", "GlobalBuffer");
  ffm_json_writer_member_string (w, "quote\"key", "a \"b\" \\ c");
  ffm_json_writer_member_string (w, "control", "tab\tnew\nline\rbell\x07" "del\x7f");
  ffm_json_writer_member_string (w, "latin1", "caf\xe9");
  ffm_json_writer_member_string (w, "utf8", "µs → 1");
  ffm_json_writer_member_string (w, "none", NULL);
  ffm_json_writer_member_int (w, "min", G_MININT64);
  ffm_json_writer_member_uint (w, "max", G_MAXUINT64);
  ffm_json_writer_member_boolean (w, "yes", TRUE);
  ffm_json_writer_member_null (w, "nothing");
  ffm_json_writer_end_object (w);
  text = ffm_json_writer_finish (w);
  json_strict_assert (text, "strings");
  assert_contains (text, "\"min\": -9223372036854775808");
  assert_contains (text, "\"max\": 18446744073709551615");
  assert_contains (text, "\\u0007");
  root = parse (text);
  o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "quote\"key"), ==, "a \"b\" \\ c");
  g_assert_cmpstr (json_object_get_string_member (o, "control"), ==,
                   "tab\tnew\nline\rbell\x07" "del\x7f");
  g_assert_cmpstr (json_object_get_string_member (o, "latin1"), ==, "caf\xef\xbf\xbd");
  g_assert_cmpstr (json_object_get_string_member (o, "utf8"), ==, "µs → 1");
  g_assert_true (json_object_get_null_member (o, "none"));
  g_assert_true (json_object_get_boolean_member (o, "yes"));
}

static void
test_writer_layout (void)
{
  g_autoptr (FfmJsonWriter) w = ffm_json_writer_new ();
  g_autofree char *text = NULL;
  g_autofree char *second = NULL;

  g_test_summary ("Pretty layout: two spaces per level; inline containers on one "
                  "line, a pretty container inside one spans lines again");
  ffm_json_writer_begin_object (w);
  ffm_json_writer_key (w, "empty");
  ffm_json_writer_begin_array (w);
  ffm_json_writer_end_array (w);
  ffm_json_writer_key (w, "nodes");
  ffm_json_writer_begin_array (w);
  ffm_json_writer_begin_object_inline (w);
  ffm_json_writer_key (w, "storage");
  ffm_json_writer_begin_array_inline (w);
  ffm_json_writer_string (w, "A");
  ffm_json_writer_string (w, "B");
  ffm_json_writer_end_array (w);
  ffm_json_writer_member_string (w, "level", "L");
  ffm_json_writer_end_object (w);
  ffm_json_writer_begin_object_inline (w);
  ffm_json_writer_key (w, "sequential");
  ffm_json_writer_begin_array (w);
  ffm_json_writer_begin_array (w);
  ffm_json_writer_int (w, 1);
  ffm_json_writer_end_array (w);
  ffm_json_writer_end_array (w);
  ffm_json_writer_end_object (w);
  ffm_json_writer_end_array (w);
  ffm_json_writer_end_object (w);
  text = ffm_json_writer_finish (w);
  g_assert_cmpstr (text, ==,
                   "{\n"
                   "  \"empty\": [],\n"
                   "  \"nodes\": [\n"
                   "    {\"storage\": [\"A\", \"B\"], \"level\": \"L\"},\n"
                   "    {\"sequential\": [\n"
                   "      [\n"
                   "        1\n"
                   "      ]\n"
                   "    ]}\n"
                   "  ]\n"
                   "}\n");
  /* The writer is ready for another document. */
  ffm_json_writer_int (w, 7);
  second = ffm_json_writer_finish (w);
  g_assert_cmpstr (second, ==, "7\n");
}

static void
test_writer_misuse (void)
{
  g_test_summary ("Misuse is reported with g_critical() and the text stays valid");
  if (g_test_subprocess ())
    {
      g_autoptr (FfmJsonWriter) w = ffm_json_writer_new ();
      g_autofree char *text = NULL;
      g_log_set_always_fatal (G_LOG_LEVEL_ERROR);
      ffm_json_writer_begin_object (w);
      ffm_json_writer_int (w, 1);           /* no key */
      ffm_json_writer_key (w, "open");
      ffm_json_writer_begin_array (w);      /* never closed */
      text = ffm_json_writer_finish (w);
      json_strict_assert (text, "closed by finish");
      g_print ("%s", text);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*a value in an object needs a key first*");
  g_test_trap_assert_stderr ("*container(s) still open*");
  g_test_trap_assert_stdout ("*\"open\": []*");
}

/* Random documents: nested objects and arrays of random doubles (any bit
 * pattern, so NaNs, infinities and subnormals too), integers and strings
 * of random bytes. Each is strict JSON and its doubles read back exactly. */
typedef struct {
  gboolean is_int;
  gint64 i;
  double d;
} Number;

static void
write_random (FfmJsonWriter *w, GRand *rand, int depth, GArray *numbers)
{
  int kind = depth > 3 ? g_rand_int_range (rand, 2, 5) : g_rand_int_range (rand, 0, 5);

  switch (kind)
    {
    case 0:
    case 1:
      {
        guint n = (guint) g_rand_int_range (rand, 0, 5);
        gboolean object = kind == 0;
        gboolean is_inline = g_rand_boolean (rand);
        if (object)
          (is_inline ? ffm_json_writer_begin_object_inline : ffm_json_writer_begin_object) (w);
        else
          (is_inline ? ffm_json_writer_begin_array_inline : ffm_json_writer_begin_array) (w);
        for (guint i = 0; i < n; i++)
          {
            if (object)
              {
                g_autofree char *key = g_strdup_printf ("k%u\x01\"", i);
                ffm_json_writer_key (w, key);
              }
            write_random (w, rand, depth + 1, numbers);
          }
        (object ? ffm_json_writer_end_object : ffm_json_writer_end_array) (w);
        break;
      }
    case 2:
      {
        guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
        double d;
        memcpy (&d, &bits, sizeof d);
        Number n = { FALSE, 0, 0 };
        if (g_rand_boolean (rand))
          d = g_rand_double_range (rand, -1e6, 1e6);
        if (g_rand_int_range (rand, 0, 8) == 0)
          d = floor (d);
        n.d = d;
        ffm_json_writer_double (w, d);
        g_array_append_val (numbers, n);
        break;
      }
    case 3:
      {
        gint64 i = (gint64) (((guint64) g_rand_int (rand) << 32) | g_rand_int (rand));
        Number n = { TRUE, i, 0 };
        ffm_json_writer_int (w, i);
        g_array_append_val (numbers, n);
        break;
      }
    default:
      {
        char bytes[9];
        for (guint i = 0; i < 8; i++)
          bytes[i] = (char) g_rand_int_range (rand, 1, 256);
        bytes[8] = '\0';
        ffm_json_writer_string (w, bytes);
      }
    }
}

/* Every number in document order; strings only where they spell one. */
static void
collect_numbers (JsonNode *node, GArray *out)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (a); i++)
        collect_numbers (json_array_get_element (a, i), out);
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;
      json_object_iter_init_ordered (&iter, json_node_get_object (node));
      while (json_object_iter_next_ordered (&iter, &name, &value))
        collect_numbers (value, out);
    }
  else if (JSON_NODE_HOLDS_VALUE (node))
    {
      Number n = { FALSE, 0, 0 };
      if (json_node_get_value_type (node) == G_TYPE_INT64)
        {
          n.is_int = TRUE;
          n.i = json_node_get_int (node);
          g_array_append_val (out, n);
        }
      else if (json_node_get_value_type (node) != G_TYPE_BOOLEAN
               && ffm_json_node_get_double (node, &n.d))
        g_array_append_val (out, n);
    }
}

static void
test_writer_random (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);

  g_test_summary ("Random documents are strict JSON and their numbers read back exactly");
  for (guint round = 0; round < 300; round++)
    {
      g_autoptr (FfmJsonWriter) w = ffm_json_writer_new ();
      g_autoptr (GArray) written = g_array_new (FALSE, FALSE, sizeof (Number));
      g_autoptr (GArray) read = g_array_new (FALSE, FALSE, sizeof (Number));
      g_autofree char *text = NULL;
      g_autoptr (JsonNode) root = NULL;

      write_random (w, rand, 0, written);
      text = ffm_json_writer_finish (w);
      json_strict_assert (text, "random document");
      root = parse (text);
      collect_numbers (root, read);
      g_assert_cmpuint (read->len, ==, written->len);
      for (guint i = 0; i < written->len; i++)
        {
          const Number *a = &g_array_index (written, Number, i);
          const Number *b = &g_array_index (read, Number, i);
          /* An integral double prints without a fraction and reads back
           * as an integer: the same value. */
          double da = a->is_int ? (double) a->i : a->d;
          double db = b->is_int ? (double) b->i : b->d;
          if (a->is_int)
            g_assert_true (b->is_int && b->i == a->i);
          else if (isnan (da))
            g_assert_true (isnan (db));
          else
            g_assert_cmpmem (&da, sizeof da, &db, sizeof db);
        }
    }
}

/* ---- Output files ---- */

static char *
read_file (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static void
assert_only_entries (const char *dir, guint expected)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  while (g_dir_read_name (d) != NULL)
    n++;
  /* No temporary file left behind. */
  g_assert_cmpuint (n, ==, expected);
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

static void
test_output_regular (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ffm-out-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  struct stat before, after;

  g_test_summary ("A regular file is replaced by rename, keeping its mode");
  g_assert_true (ffm_output_file_write (path, "first\n", -1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, 0640), ==, 0);
  g_assert_cmpint (g_stat (path, &before), ==, 0);
  g_assert_true (ffm_output_file_write (path, "second\n", 7, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  text = read_file (path);
  g_assert_cmpstr (text, ==, "second\n");
  g_assert_cmpuint (before.st_ino, !=, after.st_ino);     /* renamed, not rewritten */
  g_assert_cmpuint (after.st_mode & 07777, ==, 0640);
  assert_only_entries (dir, 1);
  remove_tree (dir);
}

static void
test_output_symlink (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ffm-out-XXXXXX", NULL);
  g_autofree char *target = g_build_filename (dir, "target.json", NULL);
  g_autofree char *link = g_build_filename (dir, "link.json", NULL);
  g_autofree char *chain = g_build_filename (dir, "chain.json", NULL);
  g_autofree char *dangling = g_build_filename (dir, "dangling.json", NULL);
  g_autofree char *created = g_build_filename (dir, "created.json", NULL);
  g_autofree char *text = NULL, *text2 = NULL;
  g_autoptr (GError) error = NULL;
  struct stat st;

  g_test_summary ("A symbolic link is followed: the link stays, its target changes");
  g_assert_true (g_file_set_contents (target, "old", -1, NULL));
  g_assert_cmpint (symlink ("target.json", link), ==, 0);
  g_assert_cmpint (symlink (link, chain), ==, 0);
  g_assert_true (ffm_output_file_write (chain, "new", -1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  g_assert_cmpint (lstat (chain, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  text = read_file (target);
  g_assert_cmpstr (text, ==, "new");

  g_assert_cmpint (symlink ("created.json", dangling), ==, 0);
  g_assert_true (ffm_output_file_write (dangling, "made", -1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lstat (dangling, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  text2 = read_file (created);
  g_assert_cmpstr (text2, ==, "made");
  assert_only_entries (dir, 5);
  remove_tree (dir);
}

static void
test_output_devices (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ffm-out-XXXXXX", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-folder", "out.json", NULL);
  g_autofree char *link = g_build_filename (dir, "null-link", NULL);
  struct stat st;

  g_test_summary ("Devices are written in place; /dev/full, a folder and a missing "
                  "folder fail with the file and the cause");
  g_assert_true (ffm_output_file_write ("/dev/null", "x", -1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (stat ("/dev/null", &st), ==, 0);
  g_assert_true (S_ISCHR (st.st_mode));
  g_assert_cmpint (symlink ("/dev/null", link), ==, 0);
  g_assert_true (ffm_output_file_write (link, "x", -1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));

  g_assert_false (ffm_output_file_write ("/dev/full", "x", -1, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC);
  assert_contains (error->message, "cannot write '/dev/full': ");
  assert_contains (error->message, g_strerror (ENOSPC));
  g_clear_error (&error);

  g_assert_false (ffm_output_file_write (dir, "x", -1, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR);
  assert_contains (error->message, dir);
  g_clear_error (&error);

  g_assert_false (ffm_output_file_write (missing, "x", -1, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  assert_contains (error->message, missing);
  g_clear_error (&error);
  remove_tree (dir);
}

/* /dev/stdout redirected to a regular file must not be renamed over: the
 * JSON goes where the shell sent stdout, after the text. */
static void
test_output_dev_stdout (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ffm-out-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "stdout.txt", NULL);
  g_autofree char *text = NULL;
  g_auto (FfmTestRun) run = { 0 };
  FfmTestRunOptions options = { 0 };

  g_test_summary ("--json /dev/stdout with stdout in a file: written in place");
  options.stdout_path = out;
  ffm_test_run_full (&run, (const char *const[]) {
                       "map", "--arch", "simple", "--workload", "matmuls",
                       "--param", "n_einsums=1", "--param", "m=4", "--param", "kn=4",
                       "--json", "/dev/stdout", NULL }, &options);
  g_assert_cmpint (run.status, ==, 0);
  text = read_file (out);
  assert_contains (text, "Best mapping of matmuls on simple");
  assert_contains (text, "\"ffm_mapping\": 1");
  remove_tree (dir);
}

/* ---- What ffm writes ---- */

static FfmPluginRegistry *
shipped_registry (void)
{
  FfmPluginRegistry *registry = ffm_plugin_registry_new ();

  ffm_plugin_registry_scan (registry);
  g_assert_cmpuint (ffm_plugin_registry_get_failures (registry)->len, ==, 0);
  return registry;
}

static void
test_shipped_files (void)
{
  g_autoptr (FfmPluginRegistry) registry = shipped_registry ();
  g_auto (GStrv) archs = ffm_plugin_registry_list_architectures (registry);
  g_auto (GStrv) workloads = ffm_workload_list_available ();

  g_test_summary ("Every shipped architecture and workload as JSON: strict, and it "
                  "reads back to the same file");
  g_assert_cmpuint (g_strv_length (archs), >=, 20);
  for (guint i = 0; archs[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmArch) arch = ffm_plugin_registry_build_arch (registry, archs[i], NULL, &error);
      g_autofree char *text = NULL, *again = NULL;
      g_autoptr (FfmArch) back = NULL;

      g_assert_no_error (error);
      text = ffm_arch_to_json (arch);
      json_strict_assert (text, archs[i]);
      back = ffm_arch_load_from_data (text, archs[i], NULL, &error);
      g_assert_no_error (error);
      again = ffm_arch_to_json (back);
      g_assert_cmpstr (again, ==, text);
    }
  g_assert_cmpuint (g_strv_length (workloads), >=, 20);
  for (guint i = 0; workloads[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmWorkload) w = ffm_workload_load (workloads[i], NULL, &error);
      g_autofree char *text = NULL, *again = NULL;
      g_autoptr (FfmWorkload) back = NULL;

      g_assert_no_error (error);
      text = ffm_workload_to_json (w);
      json_strict_assert (text, workloads[i]);
      back = ffm_workload_load_from_data (text, workloads[i], NULL, &error);
      g_assert_no_error (error);
      again = ffm_workload_to_json (back);
      g_assert_cmpstr (again, ==, text);
    }
}

static void
test_readers_take_inf (void)
{
  static const char workload[] =
    "{ \"ffm_workload\": 1, \"name\": \"w\",\n"
    "  \"parameters\": { \"n\": { \"type\": \"number\", \"default\": 2, \"min\": \"-inf\",\n"
    "                          \"max\": \"inf\", \"help\": \"n\" } },\n"
    "  \"ranks\": { \"M\": 4 }, \"bits_per_value\": { \"all\": 8 },\n"
    "  \"einsums\": [ { \"name\": \"E\", \"einsum\": \"Z[m] = A[m]\" } ] }\n";
  g_autofree char *with_nan = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmWorkload) w = NULL;
  g_autoptr (FfmWorkload) bad = NULL;
  const char *p;

  g_test_summary ("Readers take back \"inf\" and \"-inf\" as ffm writes them, and "
                  "refuse \"nan\" with a message");
  w = ffm_workload_load_from_data (workload, "inf.json", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (w);
  p = strstr (workload, "\"inf\"");
  with_nan = g_strdup_printf ("%.*s\"nan\"%s", (int) (p - workload), workload, p + 5);
  bad = ffm_workload_load_from_data (with_nan, "nan.json", NULL, &error);
  g_assert_null (bad);
  g_assert_nonnull (error);
  assert_contains (error->message, "nan.json:3: $.parameters.n.max: expected a number, "
                   "got \"nan\"");
}

static void
test_list_json (void)
{
  g_auto (FfmTestRun) run = { 0 };
  g_autoptr (JsonNode) root = NULL;

  g_test_summary ("ffm list --json is strict JSON (json-glib wrote \"max\" : inf.0)");
  FFM_TEST_RUN (&run, "list", "--json", "-");
  g_assert_cmpint (run.status, ==, 0);
  json_strict_assert (run.out, "ffm list --json");
  root = parse (run.out);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
}

static void
test_estimate_json (void)
{
  static const char *const classes[][6] = {
    { "SRAM", "width=64", "depth=16384", "technology=32nm", NULL },
    { "DRAM", "type=HBM2", NULL },
    { "fpadder", "datawidth=32", "technology=45nm", NULL },   /* no leakage: null */
    { "intmac", "multiplier_width=8", "technology=7nm", NULL },
  };

  g_test_summary ("ffm estimate --json (with --all, and numbers no estimator "
                  "gives as null) is strict JSON");
  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    {
      g_autoptr (GPtrArray) args = g_ptr_array_new ();
      g_auto (FfmTestRun) run = { 0 };
      FfmTestRunOptions options = { 0 };

      g_ptr_array_add (args, "estimate");
      for (guint j = 0; classes[i][j] != NULL; j++)
        g_ptr_array_add (args, (char *) classes[i][j]);
      g_ptr_array_add (args, "--all");
      g_ptr_array_add (args, "--json");
      g_ptr_array_add (args, "-");
      g_ptr_array_add (args, NULL);
      ffm_test_run_full (&run, (const char *const *) args->pdata, &options);
      g_assert_cmpint (run.status, ==, 0);
      json_strict_assert (run.out, classes[i][0]);
      assert_contains (run.out, "\"estimator\":");
    }
}

/* The shipped architectures whose search of the chain below takes most of
 * this program's time (maeri-like: 18 s of CPU for map, 22 s for
 * pmappings): /json-output/commands-slow-chips checks them, in the suite
 * 'slow' (tests/meson.build); /json-output/commands every other one. */
static const char *const slow_chips[] = { "maeri-like", NULL };

/* @arch (the registry's "plugin:name") is one of slow_chips. */
static gboolean
is_slow_chip (const char *arch)
{
  const char *colon = strrchr (arch, ':');

  return g_strv_contains (slow_chips, colon != NULL ? colon + 1 : arch);
}

/* map, eval and pmappings --json of a two-matmul chain on every shipped
 * architecture (@data: TRUE for the slow chips, FALSE for the others): the
 * combinations the suite runs. */
static void
test_commands_json (gconstpointer data)
{
  gboolean slow = GPOINTER_TO_INT (data);
  g_autoptr (FfmPluginRegistry) registry = shipped_registry ();
  g_auto (GStrv) archs = ffm_plugin_registry_list_architectures (registry);
  g_autofree char *dir = g_dir_make_tmp ("ffm-json-XXXXXX", NULL);
  guint checked = 0, considered = 0;

  g_test_summary (slow ? "map, eval and pmappings --json are strict JSON on the shipped "
                         "architectures slowest to search"
                       : "map, eval and pmappings --json are strict JSON on every shipped "
                         "architecture but the slowest to search");
  for (guint i = 0; archs[i] != NULL; i++)
    {
      g_auto (FfmTestRun) map = { 0 }, eval = { 0 }, pm = { 0 };
      g_autofree char *result = g_build_filename (dir, "result.json", NULL);
      g_autofree char *mapping = g_build_filename (dir, "mapping.json", NULL);
      g_autofree char *text = NULL;
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_autoptr (JsonGenerator) gen = json_generator_new ();
      g_autofree char *mapping_text = NULL;
      JsonObject *o;

      if (is_slow_chip (archs[i]) != slow)
        continue;
      considered++;
      /* --timeout: some of the zoo's chips (maeri-like: 18 s of CPU) take
       * longer than the run's deadline on a loaded machine; stopped, ffm
       * writes its best mapping or says why there is none. */
      FFM_TEST_RUN (&map, "map", "--arch", archs[i], "--workload", "matmuls",
                    "--param", "n_einsums=2", "--param", "m=16", "--param", "kn=16",
                    "--timeout", "30", "--json", result);
      if (map.status != 0)
        {
          /* Some chips have no mapping for this chain (nothing fits), or
           * none before the timeout: the error is the answer, and there
           * is no JSON to check. */
          assert_contains (map.err, "ffm map: ");
          continue;
        }
      text = read_file (result);
      json_strict_assert (text, archs[i]);
      g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
      o = json_node_get_object (json_parser_get_root (parser));
      json_generator_set_root (gen, json_object_get_member (o, "mapping"));
      mapping_text = json_generator_to_data (gen, NULL);
      g_assert_true (g_file_set_contents (mapping, mapping_text, -1, NULL));
      FFM_TEST_RUN (&eval, "eval", "--arch", archs[i], "--workload", "matmuls",
                    "--param", "n_einsums=2", "--param", "m=16", "--param", "kn=16",
                    "--mapping", mapping, "--json", "-");
      g_assert_cmpint (eval.status, ==, 0);
      json_strict_assert (eval.out, archs[i]);
      FFM_TEST_RUN (&pm, "pmappings", "--arch", archs[i], "--workload", "matmuls",
                    "--param", "n_einsums=2", "--param", "m=16", "--param", "kn=16",
                    "--json", "-");
      g_assert_cmpint (pm.status, ==, 0);
      json_strict_assert (pm.out, archs[i]);
      g_unlink (result);
      g_unlink (mapping);
      checked++;
    }
  g_test_message ("%u architectures checked", checked);
  if (slow)
    g_assert_cmpuint (considered, ==, g_strv_length ((char **) slow_chips));
  else
    g_assert_cmpuint (checked, >=, 20);
  g_rmdir (dir);
}

/* ---- Standard output on a full disk ---- */

static void
test_stdout_full (void)
{
  const char *const *commands[] = {
    (const char *const[]) { "list", NULL },
    (const char *const[]) { "list", "--json", "-", NULL },
    (const char *const[]) { "version", NULL },
    (const char *const[]) { "estimate", "DRAM", "type=LPDDR4", NULL },
    (const char *const[]) { "estimate", "DRAM", "--json", "-", NULL },
    (const char *const[]) { "help", NULL },
    (const char *const[]) { "map", "--help", NULL },
    (const char *const[]) { "show-workload", "matmuls", NULL },
    (const char *const[]) { "pmappings", "--arch", "simple", "--workload", "matmuls",
                            "--param", "m=4", "--param", "kn=4", NULL },
    (const char *const[]) { "map", "--arch", "simple", "--workload", "matmuls",
                            "--param", "m=4", "--param", "kn=4", NULL },
    (const char *const[]) { "map", "--arch", "simple", "--workload", "matmuls",
                            "--param", "m=4", "--param", "kn=4", "--json", "-", NULL },
    (const char *const[]) { "eval", "--arch", "simple", "--workload", "matmuls",
                            "--param", "m=8", "--param", "kn=4",
                            "--mapping", "@MAPPING@", NULL },
  };
  g_autofree char *mapping = g_test_build_filename (G_TEST_DIST, "data", "cost",
                                                    "fused-matmuls-simple.json", NULL);

  g_test_summary ("Every command with stdout on a full disk exits 1 naming stdout");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autoptr (GPtrArray) args = g_ptr_array_new ();
      g_auto (FfmTestRun) run = { 0 };
      FfmTestRunOptions options = { 0 };

      for (guint j = 0; commands[i][j] != NULL; j++)
        g_ptr_array_add (args, strcmp (commands[i][j], "@MAPPING@") == 0
                                 ? mapping : (char *) commands[i][j]);
      g_ptr_array_add (args, NULL);
      options.stdout_path = "/dev/full";
      ffm_test_run_full (&run, (const char *const *) args->pdata, &options);
      g_assert_cmpint (run.status, ==, 1);
      assert_contains (run.err, "cannot write to standard output: ");
      assert_contains (run.err, g_strerror (ENOSPC));
    }
  {
    g_auto (FfmTestRun) run = { 0 };
    FFM_TEST_RUN (&run, "map", "--arch", "simple", "--workload", "matmuls",
                  "--param", "m=4", "--param", "kn=4", "--json", "/dev/full");
    g_assert_cmpint (run.status, ==, 1);
    assert_contains (run.err, "ffm map: cannot write '/dev/full': ");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-writer/doubles", test_writer_doubles);
  g_test_add_func ("/json-writer/strings", test_writer_strings);
  g_test_add_func ("/json-writer/layout", test_writer_layout);
  g_test_add_func ("/json-writer/misuse", test_writer_misuse);
  g_test_add_func ("/json-writer/random", test_writer_random);
  g_test_add_func ("/output-file/regular", test_output_regular);
  g_test_add_func ("/output-file/symlink", test_output_symlink);
  g_test_add_func ("/output-file/devices", test_output_devices);
  g_test_add_func ("/output-file/dev-stdout", test_output_dev_stdout);
  g_test_add_func ("/json-output/shipped-files", test_shipped_files);
  g_test_add_func ("/json-output/estimate", test_estimate_json);
  g_test_add_func ("/json-output/readers-take-inf", test_readers_take_inf);
  g_test_add_func ("/json-output/list", test_list_json);
  g_test_add_data_func ("/json-output/commands", GINT_TO_POINTER (FALSE), test_commands_json);
  g_test_add_data_func ("/json-output/commands-slow-chips", GINT_TO_POINTER (TRUE),
                        test_commands_json);
  g_test_add_func ("/json-output/stdout-full", test_stdout_full);
  return g_test_run ();
}
