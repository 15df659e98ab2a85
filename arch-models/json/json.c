/* json.c: the `json` architecture model.
 *
 * Builds an architecture from a JSON architecture file (docs/file-formats.md,
 * "Architectures"), so a new chip needs no C. Every *.json file in the
 * architecture data folders (ffm_paths_data_dirs ("architectures"): the
 * FFM_DATA_PATH entries, this source tree's arch-models/json/architectures
 * when running uninstalled, the installed data folder) is offered under its
 * file name without ".json" (`--arch simple`); when two folders have a file
 * of the same name the first folder wins. An architecture name that contains
 * a '/' or ends in ".json" is taken as a path, so the host can pass
 * `--arch my/chip.json` straight through. The file's declared parameters are
 * the architecture's parameters. */
#include <ffm/ffm.h>

#include <string.h>

#define ARCH_SUFFIX ".json"

static gboolean
is_path (const char *arch_name)
{
  return strchr (arch_name, '/') != NULL || g_str_has_suffix (arch_name, ARCH_SUFFIX);
}

/* Orders file names by their stems ("a-b.json" after "a.json"). */
static int
compare_stems (gconstpointer a, gconstpointer b)
{
  const char *x = *(const char *const *) a, *y = *(const char *const *) b;
  size_t nx = strlen (x) - strlen (ARCH_SUFFIX), ny = strlen (y) - strlen (ARCH_SUFFIX);
  int c = strncmp (x, y, MIN (nx, ny));

  return c != 0 ? c : (nx > ny) - (nx < ny);
}

/* Stems of the *.json files in the data folders, first folder first; with
 * @paths, the matching file paths (transfer full both). */
static GPtrArray *
scan_architectures (GPtrArray **paths)
{
  g_auto (GStrv) dirs = ffm_paths_data_dirs ("architectures");
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);

  if (paths != NULL)
    *paths = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autoptr (GDir) dir = g_dir_open (dirs[i], 0, NULL);
      g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
      const char *file;

      if (dir == NULL)
        continue;
      while ((file = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (file, ARCH_SUFFIX) && strlen (file) > strlen (ARCH_SUFFIX))
          g_ptr_array_add (files, g_strdup (file));
      g_ptr_array_sort (files, compare_stems);
      for (guint f = 0; f < files->len; f++)
        {
          const char *name = files->pdata[f];
          char *stem = g_strndup (name, strlen (name) - strlen (ARCH_SUFFIX));
          if (g_hash_table_contains (seen, stem))
            {
              g_free (stem);
              continue;
            }
          g_ptr_array_add (names, stem);
          g_hash_table_add (seen, stem);
          if (paths != NULL)
            g_ptr_array_add (*paths, g_build_filename (dirs[i], name, NULL));
        }
    }
  g_hash_table_unref (seen);
  return names;
}

/* The file behind @arch_name (transfer full), or NULL with @error. */
static char *
find_file (const char *arch_name, GError **error)
{
  g_autoptr (GPtrArray) paths = NULL;
  g_autoptr (GPtrArray) names = NULL;
  g_autofree char *available = NULL;

  if (is_path (arch_name))
    return g_strdup (arch_name);
  names = scan_architectures (&paths);
  for (guint i = 0; i < names->len; i++)
    if (strcmp (names->pdata[i], arch_name) == 0)
      return g_strdup (paths->pdata[i]);
  g_ptr_array_add (names, NULL);
  available = g_strjoinv (", ", (char **) names->pdata);
  g_set_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_NOT_FOUND,
               "no JSON architecture named \"%s\" (available: %s)", arch_name,
               available[0] != '\0' ? available : "none");
  return NULL;
}

static GStrv
json_list_architectures (void)
{
  GPtrArray *names = scan_architectures (NULL);

  g_ptr_array_add (names, NULL);
  return (GStrv) g_ptr_array_free (names, FALSE);
}

static char *
json_describe (const char *arch_name)
{
  g_autofree char *path = find_file (arch_name, NULL);
  g_autofree char *description = NULL;
  FfmParamSpec *specs;

  if (path == NULL)
    return NULL;
  specs = ffm_arch_file_get_param_specs (path, &description, NULL);
  if (specs == NULL)
    return NULL;
  ffm_param_specs_free (specs);
  return description ? g_steal_pointer (&description) : g_strdup ("");
}

static FfmParamSpec *
json_get_params (const char *arch_name, GError **error)
{
  g_autofree char *path = find_file (arch_name, error);

  return path ? ffm_arch_file_get_param_specs (path, NULL, error) : NULL;
}

static FfmArch *
json_build (const char *arch_name, const FfmParamValues *values, GError **error)
{
  g_autofree char *path = find_file (arch_name, error);

  return path ? ffm_arch_load_file (path, values, error) : NULL;
}

static const FfmArchModelVTable json_vtable = {
  .struct_size = sizeof (FfmArchModelVTable),
  .list_architectures = json_list_architectures,
  .describe = json_describe,
  .get_params = json_get_params,
  .build = json_build,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_ARCH_MODEL, "json", "0.1.0",
                   "architectures described in JSON files (no C needed)",
                   arch, &json_vtable)
