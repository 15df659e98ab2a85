/* ffm-paths.h: where ffm finds its plugins and data files.
 *
 * An installed ffm looks in <libdir>/ffm for plugins and <datadir>/ffm for
 * data (workloads/, architectures/). The uninstalled ffm of a build tree
 * (and the test programs) use that build's plugin folders and the source
 * tree's data folders instead, so `build/cli/ffm list` works with no
 * variable set. Environment variables come first: FFM_PLUGIN_PATH and
 * FFM_DATA_PATH (colon-separated lists). FFM_PLUGIN_SYSTEM_PATH, if set,
 * replaces the built-in plugin folders (empty = none). */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>

G_BEGIN_DECLS

/* TRUE if the running program lives in the build tree it was built in. */
FFM_API gboolean ffm_paths_is_uninstalled (void);

/* The built-in plugin folders (transfer full): this build's plugin folders
 * when uninstalled, else <libdir>/ffm; FFM_PLUGIN_SYSTEM_PATH overrides. */
FFM_API GStrv ffm_paths_builtin_plugin_dirs (void);

/* Folders where data files of kind @subdir ("workloads", "architectures")
 * are looked up, in order (transfer full): FFM_DATA_PATH entries (each
 * joined with @subdir), then the source tree's folder when uninstalled,
 * then <datadir>/ffm/@subdir. */
FFM_API GStrv ffm_paths_data_dirs (const char *subdir);

G_END_DECLS
