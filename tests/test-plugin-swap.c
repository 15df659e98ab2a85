/* test-plugin-swap.c: swapping architectures without rebuilding ffm.
 *
 * An architecture reaches ffm in one of three ways, and none needs ffm to be
 * recompiled:
 *   - a plugin .so copied into a folder on FFM_PLUGIN_PATH;
 *   - a plugin built out of tree against ffm's pkg-config file (the example
 *     of docs/examples/arch-plugin/, compiled here with the C compiler and
 *     this build's uninstalled ffm-uninstalled.pc);
 *   - a JSON architecture file given by its path.
 * Each is checked twice: in this (already compiled) test program through the
 * plugin host, and with the built `ffm` command (FFM_EXE). The built-in
 * plugin folders are switched off (FFM_PLUGIN_SYSTEM_PATH empty) so that
 * only the copied or freshly built plugin can answer. */
#include <ffm/ffm.h>

#include <glib/gstdio.h>
#include <sys/wait.h>
#include <string.h>

/* ---- Helpers ---- */

/* This build's root folder: the tests live in <root>/tests. */
static char *
build_root (void)
{
  return g_path_get_dirname (g_getenv ("G_TEST_BUILDDIR"));
}

static char *
make_temp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("ffm-swap-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

/* Removes @dir and the files in it (the tests create no subfolders). */
static void
remove_temp_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

static void
copy_file (const char *from, const char *to)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (from, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (to, contents, (gssize) length, &error));
  g_assert_no_error (error);
}

/* Runs the built `ffm` with @args, only @plugin_dir on the plugin path and
 * @data_dir (may be NULL) first on the data path. Returns its stdout;
 * *@status is its exit status, *@err its stderr. */
static char *
run_ffm (const char *plugin_dir, const char *data_dir, const char *const *args,
         int *status, char **err)
{
  const char *exe = g_getenv ("FFM_EXE");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_auto (GStrv) envp = g_get_environ ();
  g_autoptr (GError) error = NULL;
  char *out = NULL;
  int wait_status = 0;

  g_assert_nonnull (exe);
  g_ptr_array_add (argv, (gpointer) exe);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  envp = g_environ_setenv (envp, "FFM_PLUGIN_SYSTEM_PATH", "", TRUE);
  envp = g_environ_setenv (envp, "FFM_PLUGIN_PATH", plugin_dir, TRUE);
  if (data_dir != NULL)
    envp = g_environ_setenv (envp, "FFM_DATA_PATH", data_dir, TRUE);

  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_DEFAULT,
                               NULL, NULL, &out, err, &wait_status, &error));
  g_assert_no_error (error);
  *status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  g_test_message ("ffm %s -> %d\nstdout:\n%s\nstderr:\n%s", args[0], *status,
                  out, *err);
  return out;
}

/* A registry that sees nothing but @plugin_dir. */
static FfmPluginRegistry *
registry_for (const char *plugin_dir)
{
  FfmPluginRegistry *registry;

  g_setenv ("FFM_PLUGIN_SYSTEM_PATH", "", TRUE);
  g_unsetenv ("FFM_PLUGIN_PATH");
  registry = ffm_plugin_registry_new ();
  ffm_plugin_registry_add_dir (registry, plugin_dir);
  ffm_plugin_registry_scan (registry);
  g_assert_cmpuint (ffm_plugin_registry_get_failures (registry)->len, ==, 0);
  return registry;
}

/* ---- Copied plugin ---- */

static void
test_copied_plugin (void)
{
  static const char *const models[] = { "tpuv4i", "edge", NULL };
  static const char *const estimators[] = { "sram", "aladdin", NULL };
  g_autofree char *root = build_root ();
  g_autofree char *dir = make_temp_dir ();
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *const list_args[] = { "list", NULL };
  const FfmPluginInfo *info;
  int status = -1;

  g_test_summary ("an architecture-model .so copied into a folder on the "
                  "plugin path is used as it is, by this program and by ffm");
  for (guint i = 0; models[i] != NULL; i++)
    {
      g_autofree char *file = g_strdup_printf ("ffm-arch-%s.so", models[i]);
      g_autofree char *from = g_build_filename (root, "arch-models", models[i],
                                                file, NULL);
      g_autofree char *to = g_build_filename (dir, file, NULL);
      copy_file (from, to);
    }

  /* Without the estimators, a buffer that is not the published one cannot
   * be sized: the error says which component asked for which class. */
  registry = registry_for (dir);
  ffm_param_values_set (values, "glb_mib", "32");
  arch = ffm_plugin_registry_build_arch (registry, "tpuv4i", values, &error);
  g_assert_null (arch);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "GlobalBuffer"));
  g_assert_nonnull (strstr (error->message, "'SRAM'"));
  g_clear_error (&error);
  g_clear_pointer (&registry, ffm_plugin_registry_free);

  /* The models size their buffers with the sram and aladdin estimators:
   * copied beside them, those are the ones asked. */
  for (guint i = 0; estimators[i] != NULL; i++)
    {
      g_autofree char *file = g_strdup_printf ("ffm-estimator-%s.so", estimators[i]);
      g_autofree char *from = g_build_filename (root, "estimators", estimators[i],
                                                file, NULL);
      g_autofree char *to = g_build_filename (dir, file, NULL);
      copy_file (from, to);
    }
  registry = registry_for (dir);
  info = ffm_plugin_registry_find (registry, FFM_PLUGIN_KIND_ARCH_MODEL, "tpuv4i");
  g_assert_nonnull (info);
  g_assert_true (g_str_has_prefix (info->path, dir));
  arch = ffm_plugin_registry_build_arch (registry, "tpuv4i", values, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (ffm_arch_get_level (arch, 1)->estimated_by, "sram"));
  g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.size, ==, 32.0 * 8388608);
  g_assert_nonnull (ffm_plugin_registry_find (registry, FFM_PLUGIN_KIND_ARCH_MODEL,
                                              "edge"));

  out = run_ffm (dir, NULL, list_args, &status, &err);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "tpuv4i"));
  g_assert_nonnull (strstr (out, "edge"));
  g_assert_nonnull (strstr (out, dir));

  remove_temp_dir (dir);
}

/* ---- Out-of-tree plugin ---- */

/* Compiles docs/examples/arch-plugin/example.c into @dir with the C compiler
 * and `pkg-config --cflags --libs ffm-uninstalled`; FALSE if there is no C
 * compiler. */
static gboolean
build_example (const char *dir)
{
  g_autofree char *root = build_root ();
  g_autofree char *source = g_build_filename (g_getenv ("FFM_SOURCE_ROOT"), "docs",
                                              "examples", "arch-plugin",
                                              "example.c", NULL);
  g_autofree char *output = g_build_filename (dir, "ffm-arch-example.so", NULL);
  g_autofree char *pc_dir = g_build_filename (root, "meson-uninstalled", NULL);
  g_autofree char *cc = NULL;
  g_autofree char *pkg_config = g_find_program_in_path ("pkg-config");
  g_autofree char *script = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) envp = g_get_environ ();
  const char *old_pc_path = g_getenv ("PKG_CONFIG_PATH");
  g_autofree char *pc_path = NULL;
  const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
  int wait_status = 0;

  cc = g_find_program_in_path (g_getenv ("CC") ? g_getenv ("CC") : "cc");
  if (cc == NULL)
    cc = g_find_program_in_path ("gcc");
  if (cc == NULL)
    return FALSE;
  /* meson found glib through pkg-config, so it is there. */
  g_assert_nonnull (pkg_config);

  pc_path = old_pc_path && *old_pc_path
            ? g_strconcat (pc_dir, G_SEARCHPATH_SEPARATOR_S, old_pc_path, NULL)
            : g_strdup (pc_dir);
  envp = g_environ_setenv (envp, "PKG_CONFIG_PATH", pc_path, TRUE);
  {
    g_autofree char *q_cc = g_shell_quote (cc);
    g_autofree char *q_pc = g_shell_quote (pkg_config);
    g_autofree char *q_out = g_shell_quote (output);
    g_autofree char *q_src = g_shell_quote (source);
    script = g_strdup_printf ("%s -Wall -Wextra -Werror -shared -fPIC "
                              "-fvisibility=hidden -o %s %s "
                              "$(%s --cflags --libs ffm-uninstalled)",
                              q_cc, q_out, q_src, q_pc);
  }
  argv[2] = script;
  g_test_message ("%s", script);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL,
                               NULL, &out, &err, &wait_status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (wait_status, NULL))
    g_test_message ("compiler output:\n%s%s", out, err);
  g_assert_true (g_spawn_check_wait_status (wait_status, NULL));
  g_assert_true (g_file_test (output, G_FILE_TEST_IS_REGULAR));
  return TRUE;
}

static void
test_out_of_tree_example (void)
{
  static const char *const order[] = { "MainMemory", "Buffer", "PE", "MAC", NULL };
  g_autofree char *dir = make_temp_dir ();
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmArch) bad = NULL;
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *const list_args[] = { "list", NULL };
  const FfmPluginInfo *info;
  int status = -1;

  g_test_summary ("the example plugin of docs/examples/arch-plugin builds out "
                  "of tree against ffm's pkg-config file and loads through "
                  "FFM_PLUGIN_PATH");
  if (!build_example (dir))
    {
      g_test_skip ("no C compiler (cc, gcc or $CC) found");
      remove_temp_dir (dir);
      return;
    }

  registry = registry_for (dir);
  info = ffm_plugin_registry_find (registry, FFM_PLUGIN_KIND_ARCH_MODEL, "example");
  g_assert_nonnull (info);
  g_assert_cmpstr (info->descriptor->name, ==, "example");

  ffm_param_values_set (values, "n_pes", "4");
  ffm_param_values_set (values, "buffer_kib", "64");
  arch = ffm_plugin_registry_build_arch (registry, "example", values, &error);
  g_assert_no_error (error);
  for (guint i = 0; order[i] != NULL; i++)
    g_assert_cmpstr (ffm_arch_get_level (arch, i)->name, ==, order[i]);
  g_assert_cmpuint (ffm_arch_get_n_levels (arch), ==, 4);
  g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.size, ==, 64.0 * 1024 * 8);
  g_assert_cmpuint (ffm_arch_get_level (arch, 2)->u.fanout.dims[0].count, ==, 4);
  g_assert_cmpuint (ffm_arch_get_instances_above (arch, 3), ==, 4);

  ffm_param_values_set (values, "n_pes", "-4");
  bad = ffm_plugin_registry_build_arch (registry, "example", values, &error);
  g_assert_null (bad);
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "architecture example"));
  g_assert_nonnull (strstr (error->message, "n_pes"));

  out = run_ffm (dir, NULL, list_args, &status, &err);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "example"));
  g_assert_nonnull (strstr (out, "minimal out-of-tree example"));

  remove_temp_dir (dir);
}

/* ---- JSON architecture ---- */

/* Writes the test architecture to @path with the default buffer size
 * @buffer_kib (KiB). */
static void
write_json_arch (const char *path, const char *buffer_kib)
{
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "data", "archplugins",
                                                   "swap-chip.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) edited = NULL;
  g_autofree char *replacement = g_strdup_printf ("\"default\": %s,", buffer_kib);

  g_assert_true (g_file_get_contents (source, &text, NULL, &error));
  g_assert_no_error (error);
  edited = g_string_new (text);
  g_assert_cmpuint (g_string_replace (edited, "\"default\": 64,", replacement, 1), ==, 1);
  g_assert_true (g_file_set_contents (path, edited->str, (gssize) edited->len, &error));
  g_assert_no_error (error);
}

static void
test_json_arch (void)
{
  g_autofree char *root = build_root ();
  g_autofree char *json_plugins = g_build_filename (root, "arch-models", "json", NULL);
  g_autofree char *data = make_temp_dir ();
  g_autofree char *arch_dir = g_build_filename (data, "architectures", NULL);
  g_autofree char *path = g_build_filename (arch_dir, "swap-chip.json", NULL);
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *const list_args[] = { "list", NULL };
  int status = -1;

  g_test_summary ("a JSON architecture copied into a temporary folder is used "
                  "by path and, on FFM_DATA_PATH, by name; editing it changes "
                  "the architecture without rebuilding anything");
  g_assert_cmpint (g_mkdir (arch_dir, 0700), ==, 0);
  write_json_arch (path, "64");

  /* By path, through core and through the host. */
  {
    g_autoptr (FfmArch) arch = ffm_arch_load_file (path, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (ffm_arch_get_name (arch), ==, "swap-chip");
    g_assert_cmpuint (ffm_arch_get_n_levels (arch), ==, 4);
    g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.size, ==, 64.0 * 8192);
  }
  registry = registry_for (json_plugins);
  {
    g_autoptr (FfmParamValues) values = ffm_param_values_new ();
    g_autoptr (FfmArch) arch = NULL;

    ffm_param_values_set (values, "buffer_kib", "16");
    arch = ffm_plugin_registry_build_arch (registry, path, values, &error);
    g_assert_no_error (error);
    g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.size, ==, 16.0 * 8192);
    g_assert_cmpuint (ffm_arch_get_instances_above (arch, 3), ==, 8);
  }

  /* Edited in place: the next load sees the new default. */
  write_json_arch (path, "256");
  {
    g_autoptr (FfmArch) arch = ffm_plugin_registry_build_arch (registry, path, NULL,
                                                               &error);
    g_assert_no_error (error);
    g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.size, ==, 256.0 * 8192);
  }

  /* By name, with the data folder on FFM_DATA_PATH, through the json model
   * and through the ffm command. */
  g_setenv ("FFM_DATA_PATH", data, TRUE);
  {
    g_autoptr (FfmArch) arch = ffm_plugin_registry_build_arch (registry, "swap-chip",
                                                               NULL, &error);
    g_unsetenv ("FFM_DATA_PATH");
    g_assert_no_error (error);
    g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.size, ==, 256.0 * 8192);
  }
  out = run_ffm (json_plugins, data, list_args, &status, &err);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "swap-chip"));
  g_assert_nonnull (strstr (out, "buffer_kib"));

  g_unlink (path);
  g_rmdir (arch_dir);
  remove_temp_dir (data);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/plugin-swap/copied-plugin", test_copied_plugin);
  g_test_add_func ("/plugin-swap/out-of-tree-example", test_out_of_tree_example);
  g_test_add_func ("/plugin-swap/json-arch", test_json_arch);

  return g_test_run ();
}
