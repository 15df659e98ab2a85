/* ffm-plugin-registry.h: the plugin host.
 *
 * Finds plugin files (ffm-arch-NAME.so, ffm-search-NAME.so) in, in order:
 * each --plugin-dir, each folder of FFM_PLUGIN_PATH, then the built-in
 * folder (this build's plugin folders when the running binary is the
 * uninstalled one in the build tree, else <libdir>/ffm; FFM_PLUGIN_SYSTEM_PATH
 * replaces it, empty = none). Opens them with GModule (BIND_LOCAL, not lazy,
 * so unresolved symbols fail at open), reads the descriptor, checks the ABI
 * and the fields, keeps the module resident. The first plugin of a (kind,
 * name) wins; later duplicates are reported. A broken plugin never stops the
 * others from loading: each failure becomes a GError in the scan report,
 * naming the file. Directory entries are sorted so the result does not
 * depend on the file system. */
#pragma once

#include <glib.h>
#include "ffm-version.h"
#include "ffm-error.h"
#include "ffm-plugin.h"

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
 * with single files are collected (ffm_plugin_registry_get_failures()). */
FFM_API void ffm_plugin_registry_scan (FfmPluginRegistry *registry);

/* Loads one file; on failure returns FALSE with @error naming the file. */
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

/* Builds the architecture the user named: a path to a JSON file, a name
 * offered by some architecture model (e.g. "simple" from the json model,
 * "tpuv4i"), or "MODEL:NAME" to pick the model. @params go to the model. */
FFM_API FfmArch *ffm_plugin_registry_build_arch (FfmPluginRegistry *registry,
                                                 const char *arch,
                                                 const FfmParamValues *params,
                                                 GError **error);

FFM_API const char *ffm_plugin_kind_to_string (FfmPluginKind kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmPluginRegistry, ffm_plugin_registry_free)

G_END_DECLS
