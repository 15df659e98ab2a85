/* ffm-plugin-registry.h: the plugin host.
 *
 * Finds plugin files (ffm-arch-NAME.so, ffm-search-NAME.so,
 * ffm-estimator-NAME.so) in, in order:
 * each --plugin-dir, each folder of FFM_PLUGIN_PATH, then the built-in
 * folder (this build's plugin folders when the running binary is the
 * uninstalled one in the build tree, else <libdir>/ffm; FFM_PLUGIN_SYSTEM_PATH
 * replaces it, empty = none). Opens them with GModule (BIND_LOCAL, not lazy,
 * so unresolved symbols fail at open), reads the descriptor, checks the ABI
 * and the fields, keeps the module resident. The first plugin of a (kind,
 * name) wins; later duplicates are reported. A broken plugin never stops the
 * others from loading: each failure becomes a GError in the scan report,
 * naming the file. Directory entries are sorted so the result does not
 * depend on the file system. Files not named like plugins are skipped
 * silently, and so are folders that cannot be opened (a never-installed
 * <libdir>/ffm, a stale FFM_PLUGIN_PATH entry): both only log at debug
 * level. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-plugin.h>

G_BEGIN_DECLS

/* One loaded plugin. */
typedef struct {
  const FfmPluginDescriptor *descriptor;  /* resident, transfer none */
  char *path;                              /* file it came from */
} FfmPluginInfo;

typedef struct _FfmPluginRegistry FfmPluginRegistry;

FFM_API FfmPluginRegistry *ffm_plugin_registry_new (void);
FFM_API void ffm_plugin_registry_free (FfmPluginRegistry *registry);

/* Adds a folder to search before the environment and built-in folders
 * (the --plugin-dir option). */
FFM_API void ffm_plugin_registry_add_dir (FfmPluginRegistry *registry,
                                          const char *dir);
/* The folders that a scan visits, in order (transfer full). */
FFM_API GStrv ffm_plugin_registry_get_search_path (FfmPluginRegistry *registry);

/* Scans every folder of the search path. Never fails as a whole: problems
 * with single files are collected (ffm_plugin_registry_get_failures()).
 * Scanning again (after adding folders) skips the files already tried. */
FFM_API void ffm_plugin_registry_scan (FfmPluginRegistry *registry);

/* Loads one file; on failure returns FALSE with @error naming the file (the
 * error is the caller's: it is not added to the scan failures). */
FFM_API gboolean ffm_plugin_registry_load_file (FfmPluginRegistry *registry,
                                                const char *path,
                                                GError **error);

/* Loaded plugins in load order (of FfmPluginInfo*, transfer none). */
FFM_API const GPtrArray *ffm_plugin_registry_get_plugins (const FfmPluginRegistry *registry);
/* Scan failures (of GError*, transfer none). */
FFM_API const GPtrArray *ffm_plugin_registry_get_failures (const FfmPluginRegistry *registry);

FFM_API const FfmPluginInfo *ffm_plugin_registry_find (const FfmPluginRegistry *registry,
                                                       FfmPluginKind kind,
                                                       const char *name);
/* Same, but a missing plugin is an FFM_PLUGIN_ERROR_NOT_FOUND listing the
 * loaded plugins of that kind (for --search NAME and the like). */
FFM_API const FfmPluginInfo *ffm_plugin_registry_lookup (const FfmPluginRegistry *registry,
                                                         FfmPluginKind kind,
                                                         const char *name,
                                                         GError **error);

/* Builds the architecture the user named: a path to a JSON file, a name
 * offered by some architecture model (e.g. "simple" from the json model,
 * "tpuv4i"), or "MODEL:NAME" to pick the model. @params go to the model.
 *
 * How @arch is read:
 *   - it contains '/' or ends in ".json": a JSON architecture file, loaded
 *     by core (ffm_arch_load_file()) without any plugin;
 *   - "MODEL:NAME": architecture NAME of the arch model MODEL;
 *   - NAME: the first arch model, in load order (the search path order,
 *     then file names sorted), whose list_architectures() offers NAME; if
 *     none does, an arch model called NAME that offers exactly one
 *     architecture. Two models offering the same NAME is not an error: the
 *     first wins, and "MODEL:NAME" reaches the other.
 * An unknown name fails with FFM_PLUGIN_ERROR_NOT_FOUND listing what is
 * available. A model's own failure keeps the model's error domain and code,
 * prefixed with "MODEL:NAME: "; a model returning NULL without an error
 * gives FFM_PLUGIN_ERROR_FAILED. Only plugins already loaded are used:
 * scan first. */
FFM_API FfmArch *ffm_plugin_registry_build_arch (FfmPluginRegistry *registry,
                                                 const char *arch,
                                                 const FfmParamValues *params,
                                                 GError **error);

/* Resolves @arch as ffm_plugin_registry_build_arch() does, without building.
 * For a JSON file path *@model is NULL and *@arch_name the path; else
 * *@model is the arch model (transfer none) and *@arch_name the architecture
 * (transfer full). */
FFM_API gboolean ffm_plugin_registry_resolve_arch (const FfmPluginRegistry *registry,
                                                   const char *arch,
                                                   const FfmPluginInfo **model,
                                                   char **arch_name,
                                                   GError **error);

/* The parameters of the architecture @arch names (resolved as above; for a
 * JSON file, the parameters it declares), NULL-name-terminated (transfer
 * full: free with ffm_param_specs_free()). A model's spec array is checked
 * like a search plugin's (names, types, defaults) before it is returned. */
FFM_API FfmParamSpec *ffm_plugin_registry_get_arch_params (const FfmPluginRegistry *registry,
                                                           const char *arch,
                                                           GError **error);

/* Every architecture offered by the loaded arch models, as "MODEL:NAME", in
 * load order (transfer full). Models whose list is empty add nothing. */
FFM_API GStrv ffm_plugin_registry_list_architectures (const FfmPluginRegistry *registry);

/* Checks a NULL-name-terminated parameter declaration: names [a-z0-9_]+ and
 * unique, known types, a help line, bounds in order, choices only for
 * strings, defaults that parse for their type and range. @owner names the
 * declarer in messages. At most FFM_PLUGIN_MAX_PARAMS entries. */
#define FFM_PLUGIN_MAX_PARAMS 256
FFM_API gboolean ffm_plugin_check_param_specs (const FfmParamSpec *specs,
                                               const char *owner,
                                               GError **error);

/* "arch-model", "search" or "estimator" (the words `ffm list` prints), or
 * "unknown". */
FFM_API const char *ffm_plugin_kind_to_string (FfmPluginKind kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmPluginRegistry, ffm_plugin_registry_free)

G_END_DECLS
