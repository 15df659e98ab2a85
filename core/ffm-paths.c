/* ffm-paths.c: plugin and data folders (see ffm-paths.h). */
#include <ffm/ffm-paths.h>
#include "ffm-config.h"

#include <string.h>

/* Source-tree folders of each data kind, relative to the source root. */
static const struct {
  const char *subdir;
  const char *source_dir;
} source_data_dirs[] = {
  { "workloads", "workloads" },
  { "architectures", "arch-models/json/architectures" },
  { "policies", "policies" },
};

/* Build-tree folders whose subfolders hold plugin modules. */
static const char *const build_plugin_parents[] = { "arch-models", "plugins",
                                                    "estimators" };

gboolean
ffm_paths_is_uninstalled (void)
{
  static gsize initialised = 0;
  static gboolean uninstalled = FALSE;

  if (g_once_init_enter (&initialised))
    {
      g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
      g_autofree char *root = g_canonicalize_filename (FFM_BUILD_ROOT, "/");
      if (exe != NULL)
        {
          gsize n = strlen (root);
          uninstalled = strncmp (exe, root, n) == 0
                        && (exe[n] == '/' || exe[n] == '\0');
        }
      g_once_init_leave (&initialised, 1);
    }
  return uninstalled;
}

static int
compare_string_pointers (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
append_path_list (GPtrArray *out, const char *list, const char *subdir)
{
  g_auto (GStrv) parts = NULL;

  if (list == NULL)
    return;
  parts = g_strsplit (list, G_SEARCHPATH_SEPARATOR_S, -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (parts[i][0] != '\0')
      g_ptr_array_add (out, subdir ? g_build_filename (parts[i], subdir, NULL)
                                   : g_strdup (parts[i]));
}

GStrv
ffm_paths_builtin_plugin_dirs (void)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (g_free);
  const char *system = g_getenv ("FFM_PLUGIN_SYSTEM_PATH");

  if (system != NULL)
    append_path_list (out, system, NULL);
  else if (ffm_paths_is_uninstalled ())
    {
      for (guint p = 0; p < G_N_ELEMENTS (build_plugin_parents); p++)
        {
          g_autofree char *parent = g_build_filename (FFM_BUILD_ROOT,
                                                      build_plugin_parents[p],
                                                      NULL);
          g_autoptr (GDir) dir = g_dir_open (parent, 0, NULL);
          g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
          const char *name;

          if (dir == NULL)
            continue;
          while ((name = g_dir_read_name (dir)) != NULL)
            g_ptr_array_add (names, g_strdup (name));
          /* Sorted, so the first of two same-named plugins is well defined. */
          g_ptr_array_sort (names, compare_string_pointers);
          for (guint i = 0; i < names->len; i++)
            {
              char *sub = g_build_filename (parent, names->pdata[i], NULL);
              if (g_file_test (sub, G_FILE_TEST_IS_DIR))
                g_ptr_array_add (out, sub);
              else
                g_free (sub);
            }
        }
    }
  else
    g_ptr_array_add (out, g_strdup (FFM_INSTALLED_PLUGINDIR));

  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_steal (out, NULL);
}

GStrv
ffm_paths_data_dirs (const char *subdir)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (subdir != NULL, NULL);

  append_path_list (out, g_getenv ("FFM_DATA_PATH"), subdir);
  if (ffm_paths_is_uninstalled ())
    for (guint i = 0; i < G_N_ELEMENTS (source_data_dirs); i++)
      if (strcmp (source_data_dirs[i].subdir, subdir) == 0)
        g_ptr_array_add (out, g_build_filename (FFM_SOURCE_ROOT,
                                                source_data_dirs[i].source_dir,
                                                NULL));
  g_ptr_array_add (out, g_build_filename (FFM_INSTALLED_DATADIR, subdir, NULL));
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_steal (out, NULL);
}
