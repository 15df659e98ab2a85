/* ffm-plugin.h: the plugin ABI.
 *
 * A plugin is a shared object that exports exactly one symbol,
 * ffm_plugin_get_descriptor, returning a constant FfmPluginDescriptor:
 * the ABI version it was built for, its kind (architecture model, search
 * strategy or component estimator), name, version, one-line summary, and the
 * kind's function table.
 * The host (ffm-plugin-registry.h) refuses a plugin built for another ABI
 * major version or a newer minor version, naming the file and both versions.
 *
 * Compatibility rules: a minor bump only appends fields to the end of the
 * descriptor and of the function tables; every table starts with its
 * struct_size so the host can tell which slots exist. A major bump is any
 * other change.
 *
 * Plugins include only the public headers (<ffm/ffm.h>), link libffm
 * (`pkg-config --cflags --libs ffm`), build what they return with libffm's
 * constructors, and keep everything but the descriptor getter static. Use
 * FFM_PLUGIN_DEFINE to emit the getter. */
#pragma once

#include <glib.h>
#include <gmodule.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-params.h>
#include <ffm/ffm-arch.h>
#include <ffm/ffm-problem.h>
#include <ffm/ffm-estimator.h>

G_BEGIN_DECLS

#define FFM_PLUGIN_ABI_MAJOR 2   /* bump: incompatible change */
#define FFM_PLUGIN_ABI_MINOR 3   /* bump: appended fields or slots */
#define FFM_PLUGIN_ENTRY_SYMBOL "ffm_plugin_get_descriptor"

typedef enum {
  FFM_PLUGIN_KIND_ARCH_MODEL = 1,
  FFM_PLUGIN_KIND_SEARCH = 2,
  FFM_PLUGIN_KIND_ESTIMATOR = 3,  /* since ABI 2.3 */
} FfmPluginKind;

/* Function table of an architecture model. A model offers one or more
 * architectures by name (the json model offers one per file; a model of a
 * chip family offers one per chip). */
typedef struct {
  gsize struct_size;              /* sizeof (FfmArchModelVTable) when built */
  /* Names of the architectures offered (transfer full, may be empty). */
  GStrv (*list_architectures) (void);
  /* One-line description of architecture @arch_name (transfer full), or
   * NULL if the name is not offered. */
  char *(*describe) (const char *arch_name);
  /* Parameters of @arch_name, NULL-name-terminated (transfer full: free with
   * ffm_param_specs_free()), or NULL with @error set. */
  FfmParamSpec *(*get_params) (const char *arch_name, GError **error);
  /* Builds @arch_name with @values (unknown keys are the model's error).
   * Returns a finished architecture (transfer full) or NULL with @error. */
  FfmArch *(*build) (const char *arch_name,
                     const FfmParamValues *values,
                     GError **error);
} FfmArchModelVTable;

/* Function table of a search strategy. */
typedef struct {
  gsize struct_size;              /* sizeof (FfmSearchVTable) when built */
  const FfmParamSpec *params;     /* strategy options, NULL-name-terminated */
  /* Runs the search. Returns the result (transfer full) or NULL with @error
   * (FFM_SEARCH_ERROR_INFEASIBLE when nothing fits). */
  FfmSearchResult *(*run) (const FfmSearchContext *context,
                           const FfmParamValues *values,
                           GError **error);
} FfmSearchVTable;

/* Function table of a component estimator (since ABI 2.3; see
 * ffm-estimator.h for the query and the answer). */
typedef struct {
  gsize struct_size;              /* sizeof (FfmEstimatorVTable) when built */
  /* The classes it answers for, NULL-name-terminated, static: a query whose
   * class (ignoring case) is not among them is not passed to it. */
  const FfmEstimatorClass *classes;
  /* Answers @query: fills the numbers it gives in @estimate (every field
   * starts NAN, the note NULL) and its accuracy, and returns TRUE. Returns
   * FALSE with FFM_ESTIMATOR_ERROR_UNSUPPORTED when it does not handle
   * this action or these attributes (another estimator may), or with
   * FFM_ESTIMATOR_ERROR_ATTRIBUTE when an attribute is wrong (missing,
   * unreadable, out of range: ffm_estimate_query_fail() words it). Must be
   * thread-safe and must not keep @query. */
  gboolean (*estimate) (const FfmEstimateQuery *query,
                        FfmEstimate *estimate,
                        GError **error);
} FfmEstimatorVTable;

typedef struct {
  guint16 abi_major;              /* FFM_PLUGIN_ABI_MAJOR at build time */
  guint16 abi_minor;              /* FFM_PLUGIN_ABI_MINOR at build time */
  guint32 struct_size;            /* sizeof (FfmPluginDescriptor) at build time */
  FfmPluginKind kind;
  const char *name;               /* [a-z0-9-]+ */
  const char *version;
  const char *summary;            /* one line */
  union {
    const FfmArchModelVTable *arch;
    const FfmSearchVTable *search;
    const FfmEstimatorVTable *estimator;   /* since ABI 2.3 */
    gconstpointer any;
  } vtable;
  gpointer reserved[4];           /* must be NULL */
} FfmPluginDescriptor;

typedef const FfmPluginDescriptor *(*FfmPluginGetDescriptorFunc) (void);

G_STATIC_ASSERT (sizeof (FfmPluginKind) == sizeof (int));

/* Emits the descriptor and its exported getter. @vtable_field is `arch`,
 * `search` or `estimator`; @vtable a pointer to a static const table. */
#define FFM_PLUGIN_DEFINE(kind_, name_, version_, summary_, vtable_field, vtable_) \
  static const FfmPluginDescriptor ffm_plugin_descriptor_ = {                    \
    .abi_major = FFM_PLUGIN_ABI_MAJOR,                                           \
    .abi_minor = FFM_PLUGIN_ABI_MINOR,                                           \
    .struct_size = sizeof (FfmPluginDescriptor),                                 \
    .kind = (kind_),                                                             \
    .name = (name_),                                                             \
    .version = (version_),                                                       \
    .summary = (summary_),                                                       \
    .vtable.vtable_field = (vtable_),                                            \
  };                                                                             \
  G_MODULE_EXPORT const FfmPluginDescriptor *ffm_plugin_get_descriptor (void);  \
  G_MODULE_EXPORT const FfmPluginDescriptor *ffm_plugin_get_descriptor (void)   \
  {                                                                              \
    return &ffm_plugin_descriptor_;                                              \
  }

G_END_DECLS
