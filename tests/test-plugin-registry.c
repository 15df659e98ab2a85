/* test-plugin-registry.c: the plugin host against the fixture plugins of
 * tests/fixtures/plugins (one broken plugin per failure mode, good ones in
 * good/, both together in mixed/).
 *
 * Every test starts from an empty plugin path: main() clears
 * FFM_PLUGIN_PATH and sets FFM_PLUGIN_SYSTEM_PATH to "" so that only the
 * folders a test adds are scanned. Tests of the environment-driven search
 * path run in subprocesses. */
#include <ffm/ffm.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <glib/gstdio.h>

static char *
fixture_dir (const char *fixture_case)
{
  return g_test_build_filename (G_TEST_BUILT, "fixtures", "plugins", fixture_case, NULL);
}

static char *
fixture_file (const char *fixture_case, const char *file)
{
  return g_test_build_filename (G_TEST_BUILT, "fixtures", "plugins", fixture_case, file,
                                NULL);
}

static FfmPluginRegistry *
registry_for (const char *fixture_case)
{
  FfmPluginRegistry *registry = ffm_plugin_registry_new ();
  g_autofree char *dir = fixture_dir (fixture_case);

  ffm_plugin_registry_add_dir (registry, dir);
  ffm_plugin_registry_scan (registry);
  return registry;
}

static const FfmPluginInfo *
plugin_at (const FfmPluginRegistry *registry, guint index)
{
  const GPtrArray *plugins = ffm_plugin_registry_get_plugins (registry);

  g_assert_cmpuint (index, <, plugins->len);
  return plugins->pdata[index];
}

static const GError *
failure_at (const FfmPluginRegistry *registry, guint index)
{
  const GPtrArray *failures = ffm_plugin_registry_get_failures (registry);

  g_assert_cmpuint (index, <, failures->len);
  return failures->pdata[index];
}

/* Failure messages start with the file's path, then ": ". */
static void
assert_names_file (const GError *error, const char *path)
{
  g_autofree char *prefix = g_strdup_printf ("%s: ", path);

  if (!g_str_has_prefix (error->message, prefix))
    g_error ("message does not start with '%s': %s", prefix, error->message);
}

static void
assert_contains (const char *text, const char *needle)
{
  if (strstr (text, needle) == NULL)
    g_error ("'%s' not found in: %s", needle, text);
}

/* ---- One broken fixture per failure mode ---- */

typedef struct {
  const char *fixture_case;     /* folder under fixtures/plugins */
  const char *file;             /* the plugin file in it */
  int code;                     /* FfmPluginError */
  const char *detail;           /* substring of the message after the path */
} BrokenCase;

static const BrokenCase broken_cases[] = {
  { "not-elf", "ffm-arch-notelf.so", FFM_PLUGIN_ERROR_OPEN,
    "cannot load it as a plugin: " },
  { "no-entry-point", "ffm-search-noentry.so", FFM_PLUGIN_ERROR_NO_ENTRY_POINT,
    "no ffm_plugin_get_descriptor symbol" },
  { "null-descriptor", "ffm-search-nulldesc.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "ffm_plugin_get_descriptor() returned NULL" },
  { "abi-major-mismatch", "ffm-arch-abimajor.so", FFM_PLUGIN_ERROR_ABI_MISMATCH,
    "built for plugin ABI 3.0, but this ffm has ABI 2.3" },
  { "abi-minor-too-new", "ffm-arch-abiminor.so", FFM_PLUGIN_ERROR_ABI_MISMATCH,
    "built for plugin ABI 2.4, newer than this ffm's ABI 2.3" },
  { "missing-name", "ffm-search-noname.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "the descriptor has no name" },
  { "name-mismatch", "ffm-search-namemismatch.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "the descriptor says search 'other-name' but the file name says search "
    "'namemismatch'" },
  { "kind-mismatch", "ffm-search-kindmismatch.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "the descriptor says arch-model 'kindmismatch' but the file name says search "
    "'kindmismatch'" },
  { "unknown-kind", "ffm-arch-unknownkind.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "unknown plugin kind 7" },
  { "bad-name", "ffm-arch-BadName.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "plugin name 'BadName' is not [a-z0-9-]+" },
  { "reserved-not-null", "ffm-arch-reserved.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "reserved descriptor field 2 is not NULL" },
  { "null-vtable", "ffm-search-nullvtable.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "the descriptor has no function table" },
  { "null-vtable-slot", "ffm-arch-nullslot.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "the function table has no build function" },
  { "small-vtable", "ffm-search-smallvtable.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "the search function table is 8 bytes, smaller than ABI 2.0's 24" },
  { "bad-param-spec", "ffm-search-badparam.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "parameter style has unknown type 99" },
  { "bad-param-default", "ffm-search-baddefault.so", FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
    "the default of parameter budget is invalid: " },
  { "unresolved-symbol", "ffm-arch-unresolved.so", FFM_PLUGIN_ERROR_OPEN,
    "undefined symbol: ffm_fixture_symbol_nobody_defines" },
};

/* Loading the file directly and scanning its folder give the same error;
 * a scan records it and carries on. */
static void
test_broken (gconstpointer data)
{
  const BrokenCase *c = data;
  g_autofree char *path = fixture_file (c->fixture_case, c->file);
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autoptr (FfmPluginRegistry) scanned = NULL;
  g_autoptr (GError) error = NULL;
  const GError *failure;

  g_test_summary ("A broken plugin is refused with its own error code and a "
                  "message naming the file");

  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_assert_false (ffm_plugin_registry_load_file (registry, path, &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, c->code);
  assert_names_file (error, path);
  assert_contains (error->message, c->detail);
  g_assert_cmpuint (ffm_plugin_registry_get_plugins (registry)->len, ==, 0);

  scanned = registry_for (c->fixture_case);
  g_assert_cmpuint (ffm_plugin_registry_get_plugins (scanned)->len, ==, 0);
  g_assert_cmpuint (ffm_plugin_registry_get_failures (scanned)->len, ==, 1);
  failure = failure_at (scanned, 0);
  g_assert_error ((GError *) failure, FFM_PLUGIN_ERROR, c->code);
  assert_names_file (failure, path);
  g_assert_cmpstr (failure->message, ==, error->message);
}

static void
test_duplicate_name (void)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autofree char *dir_a = fixture_dir ("duplicate-name/a");
  g_autofree char *dir_b = fixture_dir ("duplicate-name/b");
  g_autofree char *path_a = fixture_file ("duplicate-name/a", "ffm-search-dup.so");
  g_autofree char *path_b = fixture_file ("duplicate-name/b", "ffm-search-dup.so");
  g_autofree char *detail = NULL;
  const GError *failure;

  g_test_summary ("The first plugin of a name wins; the second is reported "
                  "naming both files");

  ffm_plugin_registry_add_dir (registry, dir_a);
  ffm_plugin_registry_add_dir (registry, dir_b);
  ffm_plugin_registry_scan (registry);

  g_assert_cmpuint (ffm_plugin_registry_get_plugins (registry)->len, ==, 1);
  g_assert_cmpstr (plugin_at (registry, 0)->path, ==, path_a);
  g_assert_cmpuint (ffm_plugin_registry_get_failures (registry)->len, ==, 1);
  failure = failure_at (registry, 0);
  g_assert_error ((GError *) failure, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_DUPLICATE);
  assert_names_file (failure, path_b);
  detail = g_strdup_printf ("search 'dup' is already loaded from %s", path_a);
  assert_contains (failure->message, detail);
}

static void
test_duplicate_same_file (void)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autofree char *path = fixture_file ("good", "ffm-search-fixture.so");
  g_autoptr (GError) error = NULL;

  g_assert_true (ffm_plugin_registry_load_file (registry, path, &error));
  g_assert_no_error (error);
  g_assert_false (ffm_plugin_registry_load_file (registry, path, &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_DUPLICATE);
  assert_names_file (error, path);
  g_assert_cmpuint (ffm_plugin_registry_get_plugins (registry)->len, ==, 1);
}

static void
test_folder_listed_twice (void)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autofree char *dir = fixture_dir ("good");
  g_autofree char *dir_slash = g_strconcat (dir, "/", NULL);
  g_auto (GStrv) path = NULL;

  g_test_summary ("A folder given twice is scanned once, so its plugins are "
                  "not their own duplicates");
  ffm_plugin_registry_add_dir (registry, dir);
  ffm_plugin_registry_add_dir (registry, dir_slash);
  path = ffm_plugin_registry_get_search_path (registry);
  g_assert_cmpuint (g_strv_length (path), ==, 1);
  g_assert_cmpstr (path[0], ==, dir);
  ffm_plugin_registry_scan (registry);
  g_assert_cmpuint (ffm_plugin_registry_get_plugins (registry)->len, ==, 4);
  g_assert_cmpuint (ffm_plugin_registry_get_failures (registry)->len, ==, 0);
}

static void
test_not_a_plugin_name (void)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autofree char *path = fixture_file ("mixed", "libnotaplugin.so");
  g_autoptr (GError) error = NULL;

  g_assert_false (ffm_plugin_registry_load_file (registry, path, &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_OPEN);
  assert_names_file (error, path);
  assert_contains (error->message, "not a plugin file name");
}

static void
test_missing_file (void)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autofree char *path = fixture_file ("good", "ffm-arch-nosuchfile.so");
  g_autoptr (GError) error = NULL;

  g_assert_false (ffm_plugin_registry_load_file (registry, path, &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_OPEN);
  assert_names_file (error, path);
  assert_contains (error->message, g_strerror (ENOENT));
}

/* ---- Unreadable file ---- */

#define NOBODY_ID 65534
#define EXIT_CANNOT_DROP 77

/* A copy of a good plugin with mode 000, in a folder anyone may enter.
 * Returns its path (transfer full); the caller removes it. */
static char *
make_unreadable_copy (char **dir_out)
{
  g_autofree char *source = fixture_file ("good", "ffm-search-fixture.so");
  g_autofree char *contents = NULL;
  gsize length = 0;
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("ffm-unreadable-XXXXXX", &error);
  char *path;

  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  path = g_build_filename (dir, "ffm-search-fixture.so", NULL);
  g_assert_true (g_file_set_contents (path, contents, length, &error));
  g_assert_cmpint (g_chmod (path, 0), ==, 0);
  *dir_out = dir;
  return path;
}

static void
assert_unreadable_refused (const char *path)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autoptr (GError) error = NULL;

  g_assert_false (ffm_plugin_registry_load_file (registry, path, &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_OPEN);
  assert_names_file (error, path);
  assert_contains (error->message, "cannot read the file: ");
  assert_contains (error->message, g_strerror (EACCES));
}

/* Root reads a mode-000 file, so as root the check runs in a forked child
 * that becomes user nobody. Returns FALSE if the child cannot switch. */
static gboolean
check_unreadable_as_nobody (const char *path)
{
  pid_t pid = fork ();
  int status = 0;

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      if (setgid (NOBODY_ID) != 0 || setuid (NOBODY_ID) != 0)
        _exit (EXIT_CANNOT_DROP);
      assert_unreadable_refused (path);
      /* _exit: sanitizer exit hooks cannot read /proc/self after the uid
       * change. A failed assertion aborts instead. */
      _exit (0);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  if (WEXITSTATUS (status) == EXIT_CANNOT_DROP)
    return FALSE;
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  return TRUE;
}

static void
test_unreadable (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = make_unreadable_copy (&dir);

  g_test_summary ("An unreadable file is refused with a message naming it");

  if (geteuid () != 0)
    assert_unreadable_refused (path);
  else if (!check_unreadable_as_nobody (path))
    g_test_skip ("running as root and cannot switch to user nobody: root reads "
                 "a mode-000 file, so the check cannot fail");
  g_assert_cmpint (g_chmod (path, 0644), ==, 0);
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* ---- Good plugins ---- */

static void
test_good (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_for ("good");
  g_autofree char *arch_path = fixture_file ("good", "ffm-arch-fixture.so");
  const FfmPluginInfo *info;
  static const char *const expected[][2] = {
    { "arch-model", "fixture" },
    { "arch-model", "solo" },
    { "arch-model", "twin" },
    { "search", "fixture" },
  };

  g_test_summary ("Good plugins load in file-name order with their descriptors");

  g_assert_cmpuint (ffm_plugin_registry_get_failures (registry)->len, ==, 0);
  g_assert_cmpuint (ffm_plugin_registry_get_plugins (registry)->len, ==,
                    G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      info = plugin_at (registry, i);
      g_assert_cmpstr (ffm_plugin_kind_to_string (info->descriptor->kind), ==,
                       expected[i][0]);
      g_assert_cmpstr (info->descriptor->name, ==, expected[i][1]);
    }

  info = ffm_plugin_registry_find (registry, FFM_PLUGIN_KIND_ARCH_MODEL, "fixture");
  g_assert_nonnull (info);
  g_assert_cmpstr (info->path, ==, arch_path);
  g_assert_cmpstr (info->descriptor->version, ==, "1.2.3");
  g_assert_cmpstr (info->descriptor->summary, ==,
                   "Good fixture arch model for the plugin host tests");
  g_assert_cmpuint (info->descriptor->abi_major, ==, FFM_PLUGIN_ABI_MAJOR);

  info = ffm_plugin_registry_find (registry, FFM_PLUGIN_KIND_SEARCH, "fixture");
  g_assert_nonnull (info);
  g_assert_cmpstr (info->descriptor->version, ==, "2.0.0");
  g_assert_cmpstr (info->descriptor->vtable.search->params[0].name, ==, "budget");
  g_assert_null (ffm_plugin_registry_find (registry, FFM_PLUGIN_KIND_SEARCH, "solo"));
}

static void
test_mixed (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_for ("mixed");
  static const struct {
    const char *file;
    int code;
  } expected[] = {
    { "ffm-arch-abimajor.so", FFM_PLUGIN_ERROR_ABI_MISMATCH },
    { "ffm-arch-notelf.so", FFM_PLUGIN_ERROR_OPEN },
    { "ffm-arch-unresolved.so", FFM_PLUGIN_ERROR_OPEN },
    { "ffm-search-noentry.so", FFM_PLUGIN_ERROR_NO_ENTRY_POINT },
  };

  g_test_summary ("Broken plugins in a folder never stop the good ones; files "
                  "not named like plugins are skipped silently");

  g_assert_cmpuint (ffm_plugin_registry_get_plugins (registry)->len, ==, 2);
  g_assert_cmpstr (plugin_at (registry, 0)->descriptor->name, ==, "fixture");
  g_assert_cmpint (plugin_at (registry, 0)->descriptor->kind, ==,
                   FFM_PLUGIN_KIND_ARCH_MODEL);
  g_assert_cmpstr (plugin_at (registry, 1)->descriptor->name, ==, "fixture");
  g_assert_cmpint (plugin_at (registry, 1)->descriptor->kind, ==, FFM_PLUGIN_KIND_SEARCH);

  g_assert_cmpuint (ffm_plugin_registry_get_failures (registry)->len, ==,
                    G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autofree char *path = fixture_file ("mixed", expected[i].file);
      const GError *failure = failure_at (registry, i);

      g_assert_error ((GError *) failure, FFM_PLUGIN_ERROR, expected[i].code);
      assert_names_file (failure, path);
    }
}

static void
test_rescan (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_for ("mixed");
  g_autofree char *good = fixture_dir ("good");

  g_test_summary ("Scanning again tries only files not tried before");
  ffm_plugin_registry_scan (registry);
  g_assert_cmpuint (ffm_plugin_registry_get_plugins (registry)->len, ==, 2);
  g_assert_cmpuint (ffm_plugin_registry_get_failures (registry)->len, ==, 4);

  /* A folder added later: its new plugins load, its same-named ones are
   * duplicates of what mixed/ gave. */
  ffm_plugin_registry_add_dir (registry, good);
  ffm_plugin_registry_scan (registry);
  g_assert_cmpuint (ffm_plugin_registry_get_plugins (registry)->len, ==, 4);
  g_assert_cmpuint (ffm_plugin_registry_get_failures (registry)->len, ==, 6);
  g_assert_error ((GError *) failure_at (registry, 4), FFM_PLUGIN_ERROR,
                  FFM_PLUGIN_ERROR_DUPLICATE);
}

static void
test_lookup (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_for ("good");
  g_autoptr (FfmPluginRegistry) empty = ffm_plugin_registry_new ();
  g_autoptr (GError) error = NULL;
  const FfmPluginInfo *info;

  info = ffm_plugin_registry_lookup (registry, FFM_PLUGIN_KIND_SEARCH, "fixture", &error);
  g_assert_no_error (error);
  g_assert_nonnull (info);
  g_assert_cmpstr (info->descriptor->version, ==, "2.0.0");

  g_assert_null (ffm_plugin_registry_lookup (registry, FFM_PLUGIN_KIND_SEARCH, "solo",
                                             &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "unknown search plugin 'solo'; available: fixture");
  g_clear_error (&error);

  g_assert_null (ffm_plugin_registry_lookup (registry, FFM_PLUGIN_KIND_ARCH_MODEL, "x",
                                             &error));
  g_assert_cmpstr (error->message, ==,
                   "unknown arch-model plugin 'x'; available: fixture, solo, twin");
  g_clear_error (&error);

  g_assert_null (ffm_plugin_registry_lookup (empty, FFM_PLUGIN_KIND_SEARCH, "x", &error));
  g_assert_cmpstr (error->message, ==, "unknown search plugin 'x'; none is loaded");
}

static void
test_search_run (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_for ("good");
  const FfmPluginInfo *info = ffm_plugin_registry_find (registry, FFM_PLUGIN_KIND_SEARCH,
                                                        "fixture");
  g_autoptr (FfmSearchResult) result = NULL;
  g_autoptr (GError) error = NULL;
  FfmSearchContext context = { .struct_size = sizeof (FfmSearchContext), .n_threads = 1 };
  double runs = 0;

  g_test_summary ("A loaded search plugin runs and returns a libffm result");
  g_assert_nonnull (info);
  result = info->descriptor->vtable.search->run (&context, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_cmpuint (ffm_search_result_get_n_solutions (result), ==, 0);
  g_assert_true (ffm_search_result_lookup_stat (result, "fixture_runs", &runs));
  g_assert_cmpfloat (runs, ==, 1);
}

/* ---- Search path ---- */

static void
test_search_path_order_child (void)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_auto (GStrv) path = NULL;
  const char *const expected[] = { "/opt/w1", "/opt/w2", "/opt/x", "/opt/y", "/opt/z",
                                   NULL };

  g_setenv ("FFM_PLUGIN_PATH", "/opt/x::/opt/y:/opt/w1", TRUE);
  g_setenv ("FFM_PLUGIN_SYSTEM_PATH", "/opt/z:/opt/x", TRUE);
  ffm_plugin_registry_add_dir (registry, "/opt/w1");
  ffm_plugin_registry_add_dir (registry, "/opt/w2");
  path = ffm_plugin_registry_get_search_path (registry);
  g_assert_cmpstrv (path, expected);
}

static void
test_search_path_order (void)
{
  g_test_summary ("--plugin-dir, then FFM_PLUGIN_PATH, then the built-in "
                  "folders; each folder once, empty entries ignored");
  if (g_test_subprocess ())
    {
      test_search_path_order_child ();
      return;
    }
  g_test_trap_subprocess (NULL, 0,
                          G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_search_path_precedence_child (void)
{
  g_autofree char *dir_a = fixture_dir ("duplicate-name/a");
  g_autofree char *dir_b = fixture_dir ("duplicate-name/b");
  g_autofree char *path_a = fixture_file ("duplicate-name/a", "ffm-search-dup.so");
  g_autofree char *path_b = fixture_file ("duplicate-name/b", "ffm-search-dup.so");
  g_autoptr (FfmPluginRegistry) env_first = ffm_plugin_registry_new ();
  g_autoptr (FfmPluginRegistry) dir_first = ffm_plugin_registry_new ();

  /* FFM_PLUGIN_PATH comes before the built-in folders... */
  g_setenv ("FFM_PLUGIN_PATH", dir_b, TRUE);
  g_setenv ("FFM_PLUGIN_SYSTEM_PATH", dir_a, TRUE);
  ffm_plugin_registry_scan (env_first);
  g_assert_cmpuint (ffm_plugin_registry_get_plugins (env_first)->len, ==, 1);
  g_assert_cmpstr (plugin_at (env_first, 0)->path, ==, path_b);
  assert_names_file (failure_at (env_first, 0), path_a);

  /* ...and --plugin-dir before FFM_PLUGIN_PATH. */
  ffm_plugin_registry_add_dir (dir_first, dir_a);
  ffm_plugin_registry_scan (dir_first);
  g_assert_cmpuint (ffm_plugin_registry_get_plugins (dir_first)->len, ==, 1);
  g_assert_cmpstr (plugin_at (dir_first, 0)->path, ==, path_a);
  assert_names_file (failure_at (dir_first, 0), path_b);
}

static void
test_search_path_precedence (void)
{
  g_test_summary ("The first folder on the search path wins a name");
  if (g_test_subprocess ())
    {
      test_search_path_precedence_child ();
      return;
    }
  g_test_trap_subprocess (NULL, 0,
                          G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_search_path_build_tree_child (void)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_auto (GStrv) path = NULL;
  g_autofree char *json_dir = NULL;

  g_unsetenv ("FFM_PLUGIN_SYSTEM_PATH");
  g_assert_true (ffm_paths_is_uninstalled ());
  path = ffm_plugin_registry_get_search_path (registry);
  json_dir = g_build_filename (g_getenv ("G_TEST_BUILDDIR"), "..", "arch-models", "json",
                               NULL);
  for (guint i = 0; path[i] != NULL; i++)
    {
      g_autofree char *a = g_canonicalize_filename (path[i], NULL);
      g_autofree char *b = g_canonicalize_filename (json_dir, NULL);
      if (strcmp (a, b) == 0)
        return;
    }
  g_error ("%s is not on the built-in plugin path", json_dir);
}

static void
test_search_path_build_tree (void)
{
  g_test_summary ("A program in the build tree finds that build's plugins "
                  "with no variable set");
  if (g_getenv ("G_TEST_BUILDDIR") == NULL)
    {
      g_test_skip ("G_TEST_BUILDDIR is not set (run through meson test)");
      return;
    }
  if (g_test_subprocess ())
    {
      test_search_path_build_tree_child ();
      return;
    }
  g_test_trap_subprocess (NULL, 0,
                          G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* ---- Architectures ---- */

static void
assert_resolves (const FfmPluginRegistry *registry, const char *arch,
                 const char *model_name, const char *arch_name)
{
  const FfmPluginInfo *model = NULL;
  g_autofree char *name = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (ffm_plugin_registry_resolve_arch (registry, arch, &model, &name, &error));
  g_assert_no_error (error);
  if (model_name == NULL)
    g_assert_null (model);
  else
    {
      g_assert_nonnull (model);
      g_assert_cmpstr (model->descriptor->name, ==, model_name);
    }
  g_assert_cmpstr (name, ==, arch_name);
}

static void
test_resolve_arch (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_for ("good");

  g_test_summary ("--arch names: offered names in load order, MODEL:NAME, a "
                  "model with one architecture, and paths");
  assert_resolves (registry, "fixture-one", "fixture", "fixture-one");
  assert_resolves (registry, "fixture-two", "fixture", "fixture-two");
  assert_resolves (registry, "twin:fixture-one", "twin", "fixture-one");
  assert_resolves (registry, "twin-only", "twin", "twin-only");
  assert_resolves (registry, "solo-chip", "solo", "solo-chip");
  assert_resolves (registry, "solo", "solo", "solo-chip");
  assert_resolves (registry, "some/where.json", NULL, "some/where.json");
  assert_resolves (registry, "here.json", NULL, "here.json");
  assert_resolves (registry, "./fixture-one", NULL, "./fixture-one");
}

static void
test_resolve_arch_unknown (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_for ("good");
  g_autoptr (FfmPluginRegistry) mixed = registry_for ("mixed");
  const FfmPluginInfo *model = NULL;
  char *name = NULL;
  g_autoptr (GError) error = NULL;

  g_test_summary ("An unknown architecture is an error listing the available ones");

  g_assert_false (ffm_plugin_registry_resolve_arch (registry, "nosuch", &model, &name,
                                                    &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==,
                   "unknown architecture 'nosuch'; available: fixture:fixture-one, "
                   "fixture:fixture-two, solo:solo-chip, twin:fixture-one, "
                   "twin:twin-only (or give a path to a JSON architecture file)");
  g_clear_error (&error);

  g_assert_false (ffm_plugin_registry_resolve_arch (registry, "nosuch:x", &model, &name,
                                                    &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_NOT_FOUND);
  assert_contains (error->message, "no arch model called 'nosuch'");
  g_clear_error (&error);

  g_assert_false (ffm_plugin_registry_resolve_arch (registry, "twin:solo-chip", &model,
                                                    &name, &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_NOT_FOUND);
  assert_contains (error->message, "arch model 'twin' does not offer it");
  g_clear_error (&error);

  g_assert_false (ffm_plugin_registry_resolve_arch (mixed, "nosuch", &model, &name,
                                                    &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_NOT_FOUND);
  assert_contains (error->message, "; 4 plugin files failed to load, see `ffm list`");
  g_assert_null (name);
}

static void
test_list_architectures (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_for ("good");
  g_auto (GStrv) all = ffm_plugin_registry_list_architectures (registry);
  const char *const expected[] = { "fixture:fixture-one", "fixture:fixture-two",
                                   "solo:solo-chip", "twin:fixture-one",
                                   "twin:twin-only", NULL };

  g_assert_cmpstrv (all, expected);
}

static void
test_build_arch (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_for ("good");
  g_autoptr (FfmArch) first = NULL;
  g_autoptr (FfmArch) twin = NULL;
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;

  g_test_summary ("Building goes to the model the name resolves to, with the "
                  "parameters given");

  ffm_param_values_set (values, "size_kib", "128");
  first = ffm_plugin_registry_build_arch (registry, "fixture-one", values, &error);
  g_assert_no_error (error);
  g_assert_nonnull (first);
  g_assert_cmpstr (ffm_arch_get_name (first), ==, "fixture-one");
  g_assert_cmpstr (ffm_arch_get_description (first), ==, "built by fixture");
  g_assert_cmpuint (ffm_arch_get_n_levels (first), ==, 3);
  g_assert_cmpfloat (ffm_arch_get_level (first, 1)->u.memory.size, ==, 128.0 * 8192);

  twin = ffm_plugin_registry_build_arch (registry, "twin:fixture-one", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_arch_get_description (twin), ==, "built by twin");
}

static void
test_build_arch_errors (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_for ("good");
  g_autoptr (FfmPluginRegistry) failing = registry_for ("build-fails");
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autofree char *path = fixture_file ("build-fails", "ffm-arch-buildfails.so");
  g_autofree char *silent = NULL;
  g_autoptr (GError) error = NULL;

  g_test_summary ("A model's failure keeps its error, prefixed with MODEL:NAME; "
                  "a silent failure becomes FFM_PLUGIN_ERROR_FAILED");

  ffm_param_values_set (values, "no_such_param", "1");
  g_assert_null (ffm_plugin_registry_build_arch (registry, "fixture-one", values, &error));
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_UNKNOWN);
  g_assert_true (g_str_has_prefix (error->message, "fixture:fixture-one: "));
  g_clear_error (&error);

  g_assert_null (ffm_plugin_registry_build_arch (failing, "loud", NULL, &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==,
                   "buildfails:loud: deliberate failure of the fixture");
  g_clear_error (&error);

  g_assert_null (ffm_plugin_registry_build_arch (failing, "silent", NULL, &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_FAILED);
  silent = g_strdup_printf ("buildfails:silent: the arch model (%s) failed without "
                            "saying why", path);
  g_assert_cmpstr (error->message, ==, silent);
  g_clear_error (&error);

  g_assert_null (ffm_plugin_registry_build_arch (failing, "nosuch", NULL, &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_NOT_FOUND);
}

static void
test_arch_params (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_for ("good");
  g_autoptr (FfmPluginRegistry) failing = registry_for ("build-fails");
  FfmParamSpec *specs;
  g_autoptr (GError) error = NULL;

  specs = ffm_plugin_registry_get_arch_params (registry, "fixture-one", &error);
  g_assert_no_error (error);
  g_assert_nonnull (specs);
  g_assert_cmpstr (specs[0].name, ==, "size_kib");
  g_assert_cmpint (specs[0].type, ==, FFM_PARAM_NUMBER);
  g_assert_cmpstr (specs[0].default_value, ==, "64");
  g_assert_cmpstr (specs[1].name, ==, "dataflow");
  g_assert_cmpstr (specs[1].choices[1], ==, "os");
  g_assert_null (specs[2].name);
  ffm_param_specs_free (specs);

  specs = ffm_plugin_registry_get_arch_params (registry, "solo", &error);
  g_assert_no_error (error);
  g_assert_null (specs[0].name);
  ffm_param_specs_free (specs);

  specs = ffm_plugin_registry_get_arch_params (failing, "bad-params", &error);
  g_assert_null (specs);
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR);
  g_assert_cmpstr (error->message, ==,
                   "buildfails:bad-params: parameter knob has unknown type 42");
}

/* ---- Parameter declarations ---- */

static void
assert_specs_refused (const FfmParamSpec *specs, const char *message)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (ffm_plugin_check_param_specs (specs, "owner", &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR);
  g_assert_cmpstr (error->message, ==, message);
}

static void
test_check_param_specs (void)
{
  static const char *const choices[] = { "a", "b", NULL };
  const FfmParamSpec good[] = {
    { "n", FFM_PARAM_INTEGER, "3", "count", 1, 10, NULL },
    { "mode", FFM_PARAM_STRING, "a", "mode", 0, 0, choices },
    { "flag", FFM_PARAM_BOOL, NULL, "required flag", 0, 0, NULL },
    { NULL, 0, NULL, NULL, 0, 0, NULL },
  };
  const FfmParamSpec twice[] = {
    { "n", FFM_PARAM_INTEGER, "3", "count", 0, 0, NULL },
    { "n", FFM_PARAM_NUMBER, "3", "count", 0, 0, NULL },
    { NULL, 0, NULL, NULL, 0, 0, NULL },
  };
  const FfmParamSpec bad_name[] = {
    { "Size", FFM_PARAM_INTEGER, "3", "count", 0, 0, NULL },
    { NULL, 0, NULL, NULL, 0, 0, NULL },
  };
  const FfmParamSpec no_help[] = {
    { "n", FFM_PARAM_INTEGER, "3", NULL, 0, 0, NULL },
    { NULL, 0, NULL, NULL, 0, 0, NULL },
  };
  const FfmParamSpec bad_range[] = {
    { "n", FFM_PARAM_NUMBER, "3", "count", 5, 1, NULL },
    { NULL, 0, NULL, NULL, 0, 0, NULL },
  };
  const FfmParamSpec number_choices[] = {
    { "n", FFM_PARAM_NUMBER, "3", "count", 0, 0, choices },
    { NULL, 0, NULL, NULL, 0, 0, NULL },
  };
  const FfmParamSpec out_of_range[] = {
    { "n", FFM_PARAM_INTEGER, "30", "count", 1, 10, NULL },
    { NULL, 0, NULL, NULL, 0, 0, NULL },
  };
  g_autofree FfmParamSpec *many = g_new0 (FfmParamSpec, FFM_PLUGIN_MAX_PARAMS + 2);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;

  g_assert_true (ffm_plugin_check_param_specs (good, "owner", &error));
  g_assert_no_error (error);
  g_assert_true (ffm_plugin_check_param_specs (NULL, "owner", &error));

  assert_specs_refused (twice, "owner: parameter n is declared twice");
  assert_specs_refused (bad_name, "owner: parameter name 'Size' is not [a-z0-9_]+");
  assert_specs_refused (no_help, "owner: parameter n has no help text");
  assert_specs_refused (bad_range, "owner: parameter n has min 5 above max 1");
  assert_specs_refused (number_choices,
                        "owner: parameter n has choices but is not a string");

  g_assert_false (ffm_plugin_check_param_specs (out_of_range, "owner", &error));
  g_assert_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR);
  g_assert_true (g_str_has_prefix (error->message,
                                   "owner: the default of parameter n is invalid: "));
  g_clear_error (&error);

  for (guint i = 0; i < FFM_PLUGIN_MAX_PARAMS + 1; i++)
    {
      char *name = g_strdup_printf ("p%u", i);
      g_ptr_array_add (names, name);
      many[i] = (FfmParamSpec) { name, FFM_PARAM_INTEGER, NULL, "p", 0, 0, NULL };
    }
  assert_specs_refused (many, "owner: more than 256 parameters (is the list missing "
                              "its NULL-name terminator?)");
}

static void
test_kind_to_string (void)
{
  g_assert_cmpstr (ffm_plugin_kind_to_string (FFM_PLUGIN_KIND_ARCH_MODEL), ==,
                   "arch-model");
  g_assert_cmpstr (ffm_plugin_kind_to_string (FFM_PLUGIN_KIND_SEARCH), ==, "search");
  g_assert_cmpstr (ffm_plugin_kind_to_string ((FfmPluginKind) 9), ==, "unknown");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  /* Only the folders a test adds: no plugins of this build, no user path. */
  g_unsetenv ("FFM_PLUGIN_PATH");
  g_setenv ("FFM_PLUGIN_SYSTEM_PATH", "", TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (broken_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/plugin-registry/broken/%s",
                                               broken_cases[i].fixture_case);
      g_test_add_data_func (name, &broken_cases[i], test_broken);
    }
  g_test_add_func ("/plugin-registry/broken/duplicate-name", test_duplicate_name);
  g_test_add_func ("/plugin-registry/broken/duplicate-same-file", test_duplicate_same_file);
  g_test_add_func ("/plugin-registry/broken/not-a-plugin-name", test_not_a_plugin_name);
  g_test_add_func ("/plugin-registry/broken/missing-file", test_missing_file);
  g_test_add_func ("/plugin-registry/unreadable", test_unreadable);
  g_test_add_func ("/plugin-registry/good", test_good);
  g_test_add_func ("/plugin-registry/mixed", test_mixed);
  g_test_add_func ("/plugin-registry/folder-listed-twice", test_folder_listed_twice);
  g_test_add_func ("/plugin-registry/rescan", test_rescan);
  g_test_add_func ("/plugin-registry/lookup", test_lookup);
  g_test_add_func ("/plugin-registry/search-run", test_search_run);
  g_test_add_func ("/plugin-registry/search-path/order", test_search_path_order);
  g_test_add_func ("/plugin-registry/search-path/precedence",
                   test_search_path_precedence);
  g_test_add_func ("/plugin-registry/search-path/build-tree",
                   test_search_path_build_tree);
  g_test_add_func ("/plugin-registry/arch/resolve", test_resolve_arch);
  g_test_add_func ("/plugin-registry/arch/unknown", test_resolve_arch_unknown);
  g_test_add_func ("/plugin-registry/arch/list", test_list_architectures);
  g_test_add_func ("/plugin-registry/arch/build", test_build_arch);
  g_test_add_func ("/plugin-registry/arch/build-errors", test_build_arch_errors);
  g_test_add_func ("/plugin-registry/arch/params", test_arch_params);
  g_test_add_func ("/plugin-registry/param-specs", test_check_param_specs);
  g_test_add_func ("/plugin-registry/kind-to-string", test_kind_to_string);
  return g_test_run ();
}
