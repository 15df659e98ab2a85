/* ffm-plugin-registry.c: the plugin host (see ffm-plugin-registry.h).
 *
 * Loading one file goes through these checks, in order, and the first that
 * fails becomes a GError whose message starts with the file's path:
 *   1. the file name is ffm-arch-NAME.so, ffm-search-NAME.so or
 *      ffm-estimator-NAME.so (a scan skips other names silently;
 *      ffm_plugin_registry_load_file() refuses them);
 *   2. it is a readable regular file;
 *   3. it opens with G_MODULE_BIND_LOCAL and without BIND_LAZY, so that an
 *      unresolved symbol fails here rather than in the middle of a search;
 *   4. it exports ffm_plugin_get_descriptor, which returns non-NULL;
 *   5. ABI: same major, minor not newer than ours (read first: the version
 *      fields sit at the start of every descriptor version);
 *   6. the descriptor: size, known kind, non-empty one-line strings, name
 *      charset, name and kind agree with the file name, reserved fields NULL;
 *   7. the vtable: present, large enough, required slots set; a search
 *      plugin's parameter declaration is valid; an estimator's class list
 *      is (names, actions, one-line texts);
 *   8. no plugin of the same kind and name is loaded yet.
 * Then the module is made resident: descriptors, vtables and static
 * parameter arrays must stay valid for the life of the process. */
#include <ffm/ffm-plugin-registry.h>
#include <ffm/ffm-paths.h>
#include "ffm-estimator-private.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#define ARCH_PREFIX "ffm-arch-"
#define SEARCH_PREFIX "ffm-search-"
#define ESTIMATOR_PREFIX "ffm-estimator-"
#define MODULE_SUFFIX "." G_MODULE_SUFFIX

/* Sizes of the ABI 2.0 structures: the smallest a plugin of ABI 2.x may
 * present. When a minor version appends fields, these stay as they are. */
#define DESCRIPTOR_SIZE_2_0 sizeof (FfmPluginDescriptor)
#define ARCH_VTABLE_SIZE_2_0 sizeof (FfmArchModelVTable)
#define SEARCH_VTABLE_SIZE_2_0 sizeof (FfmSearchVTable)
/* Estimators came with ABI 2.3. */
#define ESTIMATOR_VTABLE_SIZE_2_3 sizeof (FfmEstimatorVTable)
#define ESTIMATOR_MAX_CLASSES 1024

struct _FfmPluginRegistry {
  GPtrArray *extra_dirs;        /* of char*: --plugin-dir folders, in order */
  GPtrArray *plugins;           /* of FfmPluginInfo*, load order */
  GPtrArray *failures;          /* of GError*, in the order met */
  GHashTable *visited;          /* paths a scan has tried, so rescans skip them */
};

static void
plugin_info_free (gpointer data)
{
  FfmPluginInfo *info = data;

  g_free (info->path);
  g_free (info);
}

/**
 * ffm_plugin_registry_new:
 *
 * Returns: (transfer full): an empty registry; add folders, then scan
 */
FfmPluginRegistry *
ffm_plugin_registry_new (void)
{
  FfmPluginRegistry *registry = g_new0 (FfmPluginRegistry, 1);

  registry->extra_dirs = g_ptr_array_new_with_free_func (g_free);
  registry->plugins = g_ptr_array_new_with_free_func (plugin_info_free);
  registry->failures = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  registry->visited = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return registry;
}

void
ffm_plugin_registry_free (FfmPluginRegistry *registry)
{
  if (registry == NULL)
    return;
  /* Architectures built later must not ask a freed registry. */
  ffm_estimators_forget (registry);
  /* The modules stay resident: only our records go. */
  g_ptr_array_unref (registry->extra_dirs);
  g_ptr_array_unref (registry->plugins);
  g_ptr_array_unref (registry->failures);
  g_hash_table_unref (registry->visited);
  g_free (registry);
}

void
ffm_plugin_registry_add_dir (FfmPluginRegistry *registry, const char *dir)
{
  g_return_if_fail (registry != NULL);
  g_return_if_fail (dir != NULL);

  g_ptr_array_add (registry->extra_dirs, g_strdup (dir));
}

/* ---- Search path ---- */

/* Adds @dir unless a folder with the same canonical path is there already:
 * scanning one folder twice would report each of its plugins as its own
 * duplicate. */
static void
add_unique_dir (GPtrArray *dirs, GHashTable *seen, const char *dir)
{
  char *canonical;

  if (dir[0] == '\0')
    return;
  canonical = g_canonicalize_filename (dir, NULL);
  if (g_hash_table_contains (seen, canonical))
    {
      g_free (canonical);
      return;
    }
  g_hash_table_add (seen, canonical);
  g_ptr_array_add (dirs, g_strdup (dir));
}

/**
 * ffm_plugin_registry_get_search_path:
 *
 * Returns: (transfer full): the --plugin-dir folders, then FFM_PLUGIN_PATH,
 *   then ffm_paths_builtin_plugin_dirs(), each folder once
 */
GStrv
ffm_plugin_registry_get_search_path (FfmPluginRegistry *registry)
{
  g_autoptr (GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                       g_free, NULL);
  const char *env = g_getenv ("FFM_PLUGIN_PATH");
  g_auto (GStrv) builtin = ffm_paths_builtin_plugin_dirs ();

  g_return_val_if_fail (registry != NULL, NULL);

  for (guint i = 0; i < registry->extra_dirs->len; i++)
    add_unique_dir (dirs, seen, registry->extra_dirs->pdata[i]);
  if (env != NULL)
    {
      g_auto (GStrv) parts = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);
      for (guint i = 0; parts[i] != NULL; i++)
        add_unique_dir (dirs, seen, parts[i]);
    }
  for (guint i = 0; builtin[i] != NULL; i++)
    add_unique_dir (dirs, seen, builtin[i]);

  g_ptr_array_add (dirs, NULL);
  return (GStrv) g_ptr_array_steal (dirs, NULL);
}

/* ---- Checking one file ---- */

/* Splits a plugin file name into the kind its infix says and the name its
 * stem says. FALSE for any other file name. */
static gboolean
parse_file_name (const char *basename, FfmPluginKind *kind, char **name)
{
  const char *rest;
  gsize len;

  if (g_str_has_prefix (basename, ARCH_PREFIX))
    {
      *kind = FFM_PLUGIN_KIND_ARCH_MODEL;
      rest = basename + strlen (ARCH_PREFIX);
    }
  else if (g_str_has_prefix (basename, SEARCH_PREFIX))
    {
      *kind = FFM_PLUGIN_KIND_SEARCH;
      rest = basename + strlen (SEARCH_PREFIX);
    }
  else if (g_str_has_prefix (basename, ESTIMATOR_PREFIX))
    {
      *kind = FFM_PLUGIN_KIND_ESTIMATOR;
      rest = basename + strlen (ESTIMATOR_PREFIX);
    }
  else
    return FALSE;
  if (!g_str_has_suffix (rest, MODULE_SUFFIX))
    return FALSE;
  len = strlen (rest) - strlen (MODULE_SUFFIX);
  if (len == 0)
    return FALSE;
  *name = g_strndup (rest, len);
  return TRUE;
}

static gboolean
is_plugin_name (const char *name)
{
  if (name[0] == '\0')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!(g_ascii_islower (*p) || g_ascii_isdigit (*p) || *p == '-'))
      return FALSE;
  return TRUE;
}

static gboolean
is_param_name (const char *name)
{
  if (name[0] == '\0')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!(g_ascii_islower (*p) || g_ascii_isdigit (*p) || *p == '_'))
      return FALSE;
  return TRUE;
}

/* A descriptor string field: present, non-empty, one line. */
static gboolean
check_text_field (const char *path, const char *field, const char *value,
                  GError **error)
{
  if (value == NULL || value[0] == '\0')
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: the descriptor has no %s", path, field);
      return FALSE;
    }
  if (strchr (value, '\n') != NULL)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: the descriptor's %s is not one line", path, field);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_one_param_spec (const FfmParamSpec *spec, const char *owner, GError **error)
{
  if (!is_param_name (spec->name))
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: parameter name '%s' is not [a-z0-9_]+", owner, spec->name);
      return FALSE;
    }
  if (spec->type < FFM_PARAM_NUMBER || spec->type > FFM_PARAM_BOOL)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: parameter %s has unknown type %d", owner, spec->name,
                   (int) spec->type);
      return FALSE;
    }
  if (spec->help == NULL || spec->help[0] == '\0')
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: parameter %s has no help text", owner, spec->name);
      return FALSE;
    }
  if (spec->min > spec->max)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: parameter %s has min %g above max %g", owner, spec->name,
                   spec->min, spec->max);
      return FALSE;
    }
  if (spec->choices != NULL && spec->type != FFM_PARAM_STRING)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: parameter %s has choices but is not a string", owner,
                   spec->name);
      return FALSE;
    }
  return TRUE;
}

/**
 * ffm_plugin_check_param_specs:
 * @specs: (nullable): the declaration; NULL declares no parameters
 * @owner: who declares them, for messages (a file path, "arch-model json")
 *
 * Returns: FALSE with FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR, message starting
 *   with @owner, if the declaration is broken
 */
gboolean
ffm_plugin_check_param_specs (const FfmParamSpec *specs,
                              const char *owner,
                              GError **error)
{
  guint n;

  g_return_val_if_fail (owner != NULL, FALSE);

  if (specs == NULL)
    return TRUE;
  for (n = 0; specs[n].name != NULL; n++)
    {
      if (n == FFM_PLUGIN_MAX_PARAMS)
        {
          g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                       "%s: more than %d parameters (is the list missing its "
                       "NULL-name terminator?)", owner, FFM_PLUGIN_MAX_PARAMS);
          return FALSE;
        }
      if (!check_one_param_spec (&specs[n], owner, error))
        return FALSE;
      for (guint j = 0; j < n; j++)
        if (strcmp (specs[j].name, specs[n].name) == 0)
          {
            g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                         "%s: parameter %s is declared twice", owner, specs[n].name);
            return FALSE;
          }
    }

  /* Defaults must parse for their own type and range: a broken default would
   * otherwise surface only when a user leaves the parameter out. */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (FfmParamValues) values = NULL;
      g_autoptr (GError) local_error = NULL;

      if (specs[i].default_value == NULL)
        continue;
      values = ffm_param_values_new ();
      ffm_param_values_set (values, specs[i].name, specs[i].default_value);
      if (!ffm_param_values_validate (values, specs, owner, &local_error))
        {
          g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                       "%s: the default of parameter %s is invalid: %s", owner,
                       specs[i].name, local_error->message);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
is_class_name (const char *name)
{
  if (name == NULL || name[0] == '\0')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!(g_ascii_isalnum (*p) || *p == '_'))
      return FALSE;
  return TRUE;
}

/* An estimator's class list: at least one class, names [A-Za-z0-9_]+ and
 * unique ignoring case, actions and texts present and one line. */
static gboolean
check_estimator_classes (const char *path, const FfmEstimatorClass *classes,
                         GError **error)
{
  guint n;

  if (classes == NULL || classes[0].name == NULL)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: the estimator lists no component class", path);
      return FALSE;
    }
  for (n = 0; classes[n].name != NULL; n++)
    {
      const FfmEstimatorClass *c = &classes[n];
      const char *const texts[][2] = {
        { "actions", c->actions }, { "attributes", c->attributes },
        { "source", c->source },
      };

      if (n == ESTIMATOR_MAX_CLASSES)
        {
          g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                       "%s: more than %d component classes (is the list missing "
                       "its NULL-name terminator?)", path, ESTIMATOR_MAX_CLASSES);
          return FALSE;
        }
      if (!is_class_name (c->name))
        {
          g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                       "%s: component class name '%s' is not [A-Za-z0-9_]+", path,
                       c->name);
          return FALSE;
        }
      for (guint t = 0; t < G_N_ELEMENTS (texts); t++)
        if (texts[t][1] == NULL || texts[t][1][0] == '\0'
            || strchr (texts[t][1], '\n') != NULL)
          {
            g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                         "%s: component class %s has no one-line %s", path,
                         c->name, texts[t][0]);
            return FALSE;
          }
      for (guint j = 0; j < n; j++)
        if (g_ascii_strcasecmp (classes[j].name, c->name) == 0)
          {
            g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                         "%s: component class %s is listed twice", path, c->name);
            return FALSE;
          }
    }
  return TRUE;
}

static gboolean
check_estimator_vtable (const char *path, const FfmPluginDescriptor *desc,
                        GError **error)
{
  const FfmEstimatorVTable *vt = desc->vtable.estimator;

  if (desc->abi_minor < 3)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_ABI_MISMATCH,
                   "%s: an estimator built for plugin ABI %u.%u (estimators "
                   "need ABI 2.3 or later)", path, desc->abi_major, desc->abi_minor);
      return FALSE;
    }
  if (vt->struct_size < ESTIMATOR_VTABLE_SIZE_2_3)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: the estimator function table is %" G_GSIZE_FORMAT
                   " bytes, smaller than ABI 2.3's %" G_GSIZE_FORMAT,
                   path, vt->struct_size, (gsize) ESTIMATOR_VTABLE_SIZE_2_3);
      return FALSE;
    }
  if (vt->estimate == NULL)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: the function table has no estimate function", path);
      return FALSE;
    }
  return check_estimator_classes (path, vt->classes, error);
}

static gboolean
check_vtable (const char *path, const FfmPluginDescriptor *desc, GError **error)
{
  const char *missing = NULL;

  if (desc->vtable.any == NULL)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: the descriptor has no function table", path);
      return FALSE;
    }

  if (desc->kind == FFM_PLUGIN_KIND_ESTIMATOR)
    return check_estimator_vtable (path, desc, error);
  if (desc->kind == FFM_PLUGIN_KIND_ARCH_MODEL)
    {
      const FfmArchModelVTable *vt = desc->vtable.arch;
      if (vt->struct_size < ARCH_VTABLE_SIZE_2_0)
        {
          g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                       "%s: the arch model function table is %" G_GSIZE_FORMAT
                       " bytes, smaller than ABI 2.0's %" G_GSIZE_FORMAT,
                       path, vt->struct_size, (gsize) ARCH_VTABLE_SIZE_2_0);
          return FALSE;
        }
      if (vt->list_architectures == NULL)
        missing = "list_architectures";
      else if (vt->describe == NULL)
        missing = "describe";
      else if (vt->get_params == NULL)
        missing = "get_params";
      else if (vt->build == NULL)
        missing = "build";
    }
  else
    {
      const FfmSearchVTable *vt = desc->vtable.search;
      if (vt->struct_size < SEARCH_VTABLE_SIZE_2_0)
        {
          g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                       "%s: the search function table is %" G_GSIZE_FORMAT
                       " bytes, smaller than ABI 2.0's %" G_GSIZE_FORMAT,
                       path, vt->struct_size, (gsize) SEARCH_VTABLE_SIZE_2_0);
          return FALSE;
        }
      if (vt->run == NULL)
        missing = "run";
      else if (!ffm_plugin_check_param_specs (vt->params, path, error))
        return FALSE;
    }

  if (missing != NULL)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: the function table has no %s function", path, missing);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_abi (const char *path, const FfmPluginDescriptor *desc, GError **error)
{
  if (desc->abi_major != FFM_PLUGIN_ABI_MAJOR)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_ABI_MISMATCH,
                   "%s: built for plugin ABI %u.%u, but this ffm has ABI %d.%d "
                   "(major versions differ: rebuild the plugin against this ffm)",
                   path, desc->abi_major, desc->abi_minor,
                   FFM_PLUGIN_ABI_MAJOR, FFM_PLUGIN_ABI_MINOR);
      return FALSE;
    }
  if (desc->abi_minor > FFM_PLUGIN_ABI_MINOR)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_ABI_MISMATCH,
                   "%s: built for plugin ABI %u.%u, newer than this ffm's ABI %d.%d "
                   "(upgrade ffm or rebuild the plugin against this one)",
                   path, desc->abi_major, desc->abi_minor,
                   FFM_PLUGIN_ABI_MAJOR, FFM_PLUGIN_ABI_MINOR);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_descriptor (const char *path, FfmPluginKind file_kind, const char *file_name,
                  const FfmPluginDescriptor *desc, GError **error)
{
  if (!check_abi (path, desc, error))
    return FALSE;
  if (desc->struct_size < DESCRIPTOR_SIZE_2_0
      || (desc->abi_minor == FFM_PLUGIN_ABI_MINOR
          && desc->struct_size != sizeof (FfmPluginDescriptor)))
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: the descriptor is %u bytes, expected %" G_GSIZE_FORMAT
                   " for ABI %u.%u", path, desc->struct_size,
                   (gsize) sizeof (FfmPluginDescriptor), desc->abi_major,
                   desc->abi_minor);
      return FALSE;
    }
  if (desc->kind != FFM_PLUGIN_KIND_ARCH_MODEL && desc->kind != FFM_PLUGIN_KIND_SEARCH
      && desc->kind != FFM_PLUGIN_KIND_ESTIMATOR)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: unknown plugin kind %d (expected %d for an arch model, "
                   "%d for a search strategy or %d for a component estimator)",
                   path, (int) desc->kind, FFM_PLUGIN_KIND_ARCH_MODEL,
                   FFM_PLUGIN_KIND_SEARCH, FFM_PLUGIN_KIND_ESTIMATOR);
      return FALSE;
    }
  if (!check_text_field (path, "name", desc->name, error)
      || !check_text_field (path, "version", desc->version, error)
      || !check_text_field (path, "summary", desc->summary, error))
    return FALSE;
  if (!is_plugin_name (desc->name))
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: plugin name '%s' is not [a-z0-9-]+", path, desc->name);
      return FALSE;
    }
  if (desc->kind != file_kind || strcmp (desc->name, file_name) != 0)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: the descriptor says %s '%s' but the file name says %s '%s' "
                   "(name the file %s%s%s)", path,
                   ffm_plugin_kind_to_string (desc->kind), desc->name,
                   ffm_plugin_kind_to_string (file_kind), file_name,
                   desc->kind == FFM_PLUGIN_KIND_ARCH_MODEL ? ARCH_PREFIX
                   : desc->kind == FFM_PLUGIN_KIND_SEARCH ? SEARCH_PREFIX
                   : ESTIMATOR_PREFIX,
                   desc->name, MODULE_SUFFIX);
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (desc->reserved); i++)
    if (desc->reserved[i] != NULL)
      {
        g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                     "%s: reserved descriptor field %u is not NULL", path, i);
        return FALSE;
      }
  return check_vtable (path, desc, error);
}

/* A readable regular file: checked before dlopen so the message says so
 * plainly instead of relaying the loader's wording. */
static gboolean
check_file (const char *path, GError **error)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_OPEN,
                   "%s: cannot read the file: %s", path, g_strerror (saved_errno));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_OPEN,
                   "%s: not a regular file", path);
      return FALSE;
    }
  if (g_access (path, R_OK) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_OPEN,
                   "%s: cannot read the file: %s", path, g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}

static GModule *
open_module (const char *path, GError **error)
{
  g_autoptr (GError) open_error = NULL;
  GModule *module;
  const char *cause;

  /* No G_MODULE_BIND_LAZY: every symbol resolves now, or the open fails. */
  module = g_module_open_full (path, G_MODULE_BIND_LOCAL, &open_error);
  if (module != NULL)
    return module;

  /* The dynamic loader's message usually starts with the path already. */
  cause = open_error != NULL ? open_error->message : "unknown error";
  if (g_str_has_prefix (cause, path) && cause[strlen (path)] == ':')
    cause += strlen (path) + 1;
  while (*cause == ' ')
    cause++;
  g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_OPEN,
               "%s: cannot load it as a plugin: %s", path, cause);
  return NULL;
}

static const FfmPluginInfo *
find_plugin (const FfmPluginRegistry *registry, FfmPluginKind kind, const char *name)
{
  for (guint i = 0; i < registry->plugins->len; i++)
    {
      const FfmPluginInfo *info = registry->plugins->pdata[i];
      if (info->descriptor->kind == kind && strcmp (info->descriptor->name, name) == 0)
        return info;
    }
  return NULL;
}

/* Steps 3-8 of the header comment, on a file whose name and readability
 * are checked. */
static gboolean
load_module (FfmPluginRegistry *registry, const char *path, FfmPluginKind file_kind,
             const char *file_name, GError **error)
{
  GModule *module;
  gpointer symbol = NULL;
  const FfmPluginDescriptor *desc;
  const FfmPluginInfo *other;
  FfmPluginInfo *info;

  module = open_module (path, error);
  if (module == NULL)
    return FALSE;

  if (!g_module_symbol (module, FFM_PLUGIN_ENTRY_SYMBOL, &symbol) || symbol == NULL)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_NO_ENTRY_POINT,
                   "%s: no %s symbol: not an ffm plugin (or the symbol is not "
                   "exported; use FFM_PLUGIN_DEFINE)", path, FFM_PLUGIN_ENTRY_SYMBOL);
      g_module_close (module);
      return FALSE;
    }

  desc = ((FfmPluginGetDescriptorFunc) symbol) ();
  if (desc == NULL)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR,
                   "%s: %s() returned NULL", path, FFM_PLUGIN_ENTRY_SYMBOL);
      g_module_close (module);
      return FALSE;
    }

  if (!check_descriptor (path, file_kind, file_name, desc, error))
    {
      g_module_close (module);
      return FALSE;
    }

  other = find_plugin (registry, desc->kind, desc->name);
  if (other != NULL)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_DUPLICATE,
                   "%s: %s '%s' is already loaded from %s; the first one found "
                   "is used", path, ffm_plugin_kind_to_string (desc->kind),
                   desc->name, other->path);
      g_module_close (module);
      return FALSE;
    }

  g_module_make_resident (module);
  info = g_new0 (FfmPluginInfo, 1);
  info->descriptor = desc;
  info->path = g_strdup (path);
  g_ptr_array_add (registry->plugins, info);
  g_info ("loaded %s '%s' %s from %s", ffm_plugin_kind_to_string (desc->kind),
          desc->name, desc->version, path);
  return TRUE;
}

/**
 * ffm_plugin_registry_load_file:
 * @path: a plugin file, named ffm-arch-NAME.so, ffm-search-NAME.so or
 *   ffm-estimator-NAME.so
 *
 * Returns: FALSE with @error (FFM_PLUGIN_ERROR; message starting with
 *   @path) if the file is not a valid plugin or a plugin of the same kind
 *   and name is already loaded
 */
gboolean
ffm_plugin_registry_load_file (FfmPluginRegistry *registry,
                               const char *path,
                               GError **error)
{
  g_autofree char *basename = NULL;
  g_autofree char *file_name = NULL;
  FfmPluginKind file_kind;

  g_return_val_if_fail (registry != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  basename = g_path_get_basename (path);
  if (!parse_file_name (basename, &file_kind, &file_name))
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_OPEN,
                   "%s: not a plugin file name (expected %sNAME%s, %sNAME%s or "
                   "%sNAME%s)", path, ARCH_PREFIX, MODULE_SUFFIX, SEARCH_PREFIX,
                   MODULE_SUFFIX, ESTIMATOR_PREFIX, MODULE_SUFFIX);
      return FALSE;
    }
  if (!check_file (path, error))
    return FALSE;
  return load_module (registry, path, file_kind, file_name, error);
}

/* ---- Scanning ---- */

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
scan_dir (FfmPluginRegistry *registry, const char *dir)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) gdir = g_dir_open (dir, 0, &error);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *entry;

  if (gdir == NULL)
    {
      /* A folder on the path that is not there (the installed folder of a
       * never-installed build, a stale FFM_PLUGIN_PATH entry) is not a
       * broken plugin. */
      g_debug ("plugin folder %s skipped: %s", dir, error->message);
      return;
    }
  while ((entry = g_dir_read_name (gdir)) != NULL)
    g_ptr_array_add (names, g_strdup (entry));
  g_ptr_array_sort (names, compare_strings);

  g_info ("scanning plugin folder %s", dir);
  for (guint i = 0; i < names->len; i++)
    {
      const char *basename = names->pdata[i];
      g_autofree char *path = NULL;
      g_autofree char *file_name = NULL;
      FfmPluginKind file_kind;
      GError *load_error = NULL;

      if (!parse_file_name (basename, &file_kind, &file_name))
        {
          g_debug ("%s/%s: not a plugin file name, skipped", dir, basename);
          continue;
        }
      path = g_build_filename (dir, basename, NULL);
      if (!g_hash_table_add (registry->visited, g_strdup (path)))
        continue;
      if (!check_file (path, &load_error)
          || !load_module (registry, path, file_kind, file_name, &load_error))
        {
          g_info ("%s", load_error->message);
          g_ptr_array_add (registry->failures, load_error);
        }
    }
}

void
ffm_plugin_registry_scan (FfmPluginRegistry *registry)
{
  g_auto (GStrv) dirs = NULL;

  g_return_if_fail (registry != NULL);

  dirs = ffm_plugin_registry_get_search_path (registry);
  for (guint i = 0; dirs[i] != NULL; i++)
    scan_dir (registry, dirs[i]);
}

/**
 * ffm_plugin_registry_get_plugins:
 *
 * Returns: (transfer none) (element-type FfmPluginInfo): loaded plugins
 */
const GPtrArray *
ffm_plugin_registry_get_plugins (const FfmPluginRegistry *registry)
{
  g_return_val_if_fail (registry != NULL, NULL);
  return registry->plugins;
}

/**
 * ffm_plugin_registry_get_failures:
 *
 * Returns: (transfer none) (element-type GError): what went wrong during
 *   scans, one error per file, each message starting with the file's path
 */
const GPtrArray *
ffm_plugin_registry_get_failures (const FfmPluginRegistry *registry)
{
  g_return_val_if_fail (registry != NULL, NULL);
  return registry->failures;
}

/**
 * ffm_plugin_registry_find:
 *
 * Returns: (transfer none) (nullable): the plugin of that kind and name
 */
const FfmPluginInfo *
ffm_plugin_registry_find (const FfmPluginRegistry *registry,
                          FfmPluginKind kind,
                          const char *name)
{
  g_return_val_if_fail (registry != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  return find_plugin (registry, kind, name);
}

/**
 * ffm_plugin_registry_lookup:
 *
 * Returns: (transfer none): the plugin of that kind and name, or NULL with
 *   FFM_PLUGIN_ERROR_NOT_FOUND listing the plugins of that kind
 */
const FfmPluginInfo *
ffm_plugin_registry_lookup (const FfmPluginRegistry *registry,
                            FfmPluginKind kind,
                            const char *name,
                            GError **error)
{
  const FfmPluginInfo *info;
  g_autoptr (GString) available = NULL;

  g_return_val_if_fail (registry != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  info = find_plugin (registry, kind, name);
  if (info != NULL)
    return info;

  available = g_string_new (NULL);
  for (guint i = 0; i < registry->plugins->len; i++)
    {
      const FfmPluginInfo *other = registry->plugins->pdata[i];
      if (other->descriptor->kind != kind)
        continue;
      g_string_append_printf (available, "%s%s", available->len > 0 ? ", " : "",
                              other->descriptor->name);
    }
  g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_NOT_FOUND,
               "unknown %s plugin '%s'; %s%s%s", ffm_plugin_kind_to_string (kind), name,
               available->len > 0 ? "available: " : "none is loaded",
               available->str,
               registry->failures->len > 0
                 ? " (some plugin files failed to load, see `ffm list`)" : "");
  return NULL;
}

const char *
ffm_plugin_kind_to_string (FfmPluginKind kind)
{
  switch (kind)
    {
    case FFM_PLUGIN_KIND_ARCH_MODEL:
      return "arch-model";
    case FFM_PLUGIN_KIND_SEARCH:
      return "search";
    case FFM_PLUGIN_KIND_ESTIMATOR:
      return "estimator";
    default:
      return "unknown";
    }
}

/* ---- Architectures ---- */

static gboolean
is_arch_path (const char *arch)
{
  return strchr (arch, '/') != NULL || g_str_has_suffix (arch, ".json");
}

static gboolean
model_offers (const FfmPluginInfo *model, const char *arch_name)
{
  g_auto (GStrv) names = model->descriptor->vtable.arch->list_architectures ();

  return names != NULL && g_strv_contains ((const char *const *) names, arch_name);
}

GStrv
ffm_plugin_registry_list_architectures (const FfmPluginRegistry *registry)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (registry != NULL, NULL);

  for (guint i = 0; i < registry->plugins->len; i++)
    {
      const FfmPluginInfo *info = registry->plugins->pdata[i];
      g_auto (GStrv) names = NULL;

      if (info->descriptor->kind != FFM_PLUGIN_KIND_ARCH_MODEL)
        continue;
      names = info->descriptor->vtable.arch->list_architectures ();
      for (guint j = 0; names != NULL && names[j] != NULL; j++)
        {
          g_autofree char *full = g_strdup_printf ("%s:%s", info->descriptor->name,
                                                   names[j]);
          g_strv_builder_add (builder, full);
        }
    }
  return g_strv_builder_end (builder);
}

/* "; available: a:x, b:y" or a hint when nothing is, plus a pointer to
 * `ffm list` when some plugin files failed to load (the one the user wants
 * may be among them). */
static char *
describe_available (const FfmPluginRegistry *registry)
{
  g_auto (GStrv) all = ffm_plugin_registry_list_architectures (registry);
  GString *text = g_string_new (NULL);

  if (all[0] == NULL)
    g_string_append (text, "; no architecture model offers any architecture");
  else
    {
      g_autofree char *joined = g_strjoinv (", ", all);
      g_string_append_printf (text, "; available: %s", joined);
    }
  g_string_append (text, " (or give a path to a JSON architecture file)");
  if (registry->failures->len > 0)
    g_string_append_printf (text, "; %u plugin file%s failed to load, see `ffm list`",
                            registry->failures->len,
                            registry->failures->len == 1 ? "" : "s");
  return g_string_free (text, FALSE);
}

/**
 * ffm_plugin_registry_resolve_arch:
 * @model: (out) (transfer none) (nullable): the arch model, NULL for a path
 * @arch_name: (out) (transfer full): the architecture name, or the path
 */
gboolean
ffm_plugin_registry_resolve_arch (const FfmPluginRegistry *registry,
                                  const char *arch,
                                  const FfmPluginInfo **model,
                                  char **arch_name,
                                  GError **error)
{
  const char *colon;
  const FfmPluginInfo *named = NULL;

  g_return_val_if_fail (registry != NULL, FALSE);
  g_return_val_if_fail (arch != NULL, FALSE);
  g_return_val_if_fail (model != NULL && arch_name != NULL, FALSE);

  if (is_arch_path (arch))
    {
      *model = NULL;
      *arch_name = g_strdup (arch);
      return TRUE;
    }

  colon = strchr (arch, ':');
  if (colon != NULL)
    {
      g_autofree char *model_name = g_strndup (arch, colon - arch);
      const char *name = colon + 1;
      const FfmPluginInfo *info = find_plugin (registry, FFM_PLUGIN_KIND_ARCH_MODEL,
                                               model_name);
      if (info == NULL || !model_offers (info, name))
        {
          g_autofree char *available = describe_available (registry);
          g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_NOT_FOUND,
                       info == NULL ? "unknown architecture '%s': no arch model "
                                      "called '%s'%s"
                                    : "unknown architecture '%s': arch model "
                                      "'%s' does not offer it%s",
                       arch, model_name, available);
          return FALSE;
        }
      *model = info;
      *arch_name = g_strdup (name);
      return TRUE;
    }

  for (guint i = 0; i < registry->plugins->len; i++)
    {
      const FfmPluginInfo *info = registry->plugins->pdata[i];
      if (info->descriptor->kind != FFM_PLUGIN_KIND_ARCH_MODEL)
        continue;
      if (model_offers (info, arch))
        {
          *model = info;
          *arch_name = g_strdup (arch);
          return TRUE;
        }
      if (named == NULL && strcmp (info->descriptor->name, arch) == 0)
        named = info;
    }

  /* A model named like the request that offers a single architecture under
   * another name: the request can only mean that one. */
  if (named != NULL)
    {
      g_auto (GStrv) names = named->descriptor->vtable.arch->list_architectures ();
      if (names != NULL && names[0] != NULL && names[1] == NULL)
        {
          *model = named;
          *arch_name = g_strdup (names[0]);
          return TRUE;
        }
    }

  {
    g_autofree char *available = describe_available (registry);
    g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_NOT_FOUND,
                 "unknown architecture '%s'%s", arch, available);
  }
  return FALSE;
}

FfmArch *
ffm_plugin_registry_build_arch (FfmPluginRegistry *registry,
                                const char *arch,
                                const FfmParamValues *params,
                                GError **error)
{
  const FfmPluginInfo *model = NULL;
  g_autofree char *arch_name = NULL;
  GError *build_error = NULL;
  FfmPluginRegistry *previous;
  FfmArch *result;

  g_return_val_if_fail (registry != NULL, NULL);
  g_return_val_if_fail (arch != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!ffm_plugin_registry_resolve_arch (registry, arch, &model, &arch_name, error))
    return NULL;
  /* The estimates the architecture asks for come from this registry. */
  previous = ffm_estimators_enter (registry);
  if (model == NULL)
    {
      result = ffm_arch_load_file (arch_name, params, error);
      ffm_estimators_leave (previous);
      return result;
    }

  result = model->descriptor->vtable.arch->build (arch_name, params, &build_error);
  ffm_estimators_leave (previous);
  if (result != NULL)
    {
      g_clear_error (&build_error);
      return result;
    }
  if (build_error == NULL)
    {
      g_set_error (error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_FAILED,
                   "%s:%s: the arch model (%s) failed without saying why",
                   model->descriptor->name, arch_name, model->path);
      return NULL;
    }
  g_prefix_error (&build_error, "%s:%s: ", model->descriptor->name, arch_name);
  g_propagate_error (error, build_error);
  return NULL;
}

FfmParamSpec *
ffm_plugin_registry_get_arch_params (const FfmPluginRegistry *registry,
                                     const char *arch,
                                     GError **error)
{
  const FfmPluginInfo *model = NULL;
  g_autofree char *arch_name = NULL;
  g_autofree char *owner = NULL;
  GError *local_error = NULL;
  FfmParamSpec *specs;

  g_return_val_if_fail (registry != NULL, NULL);
  g_return_val_if_fail (arch != NULL, NULL);

  if (!ffm_plugin_registry_resolve_arch (registry, arch, &model, &arch_name, error))
    return NULL;
  if (model == NULL)
    return ffm_arch_file_get_param_specs (arch_name, NULL, error);

  owner = g_strdup_printf ("%s:%s", model->descriptor->name, arch_name);
  specs = model->descriptor->vtable.arch->get_params (arch_name, &local_error);
  if (specs == NULL)
    {
      if (local_error == NULL)
        g_set_error (&local_error, FFM_PLUGIN_ERROR, FFM_PLUGIN_ERROR_FAILED,
                     "the arch model (%s) returned no parameter list", model->path);
      g_prefix_error (&local_error, "%s: ", owner);
      g_propagate_error (error, local_error);
      return NULL;
    }
  g_clear_error (&local_error);
  if (!ffm_plugin_check_param_specs (specs, owner, error))
    {
      ffm_param_specs_free (specs);
      return NULL;
    }
  return specs;
}
