/* ffm-single-arch-model.h: an architecture model plugin that offers one
 * architecture, in a table and one function.
 *
 * Most C architecture models (edge, tpuv4i, a chip a user writes) offer a
 * single architecture built from a parameter table read into a struct of
 * the model's own: the four vtable functions around that (list the one
 * name, describe it, copy its parameters, read the values and build) are
 * the same in each, and only the levels differ. A model fills an
 * FfmSingleArchModel and ends with FFM_SINGLE_ARCH_MODEL_DEFINE(); its one
 * function adds the levels to an architecture already named, described
 * and sourced, from the configuration read (every field from its
 * parameter's default or the user's value); the helper checks the name,
 * reads the values (the model's errors name the parameter as the user
 * set it) and finishes the architecture (ffm_arch_finish()).
 * docs/plugin-guide.md. */
#pragma once

#include <ffm/ffm-plugin.h>

G_BEGIN_DECLS

typedef struct {
  const char *name;             /* the architecture, as `--arch` names it */
  const char *summary;          /* one line (ffm list, the description) */
  const char *source;           /* where its numbers come from */
  const FfmParamSpec *params;   /* its parameters, NULL-name-terminated */
  const gsize *param_offsets;   /* per parameter, its field in the config
                                   (ffm_param_values_read_all()) */
  gsize config_size;            /* bytes of the model's config struct
                                   (zeroed before reading) */
  /* Adds the levels to @arch (named, described, sourced) from @config;
   * FALSE with @error on a value the model refuses. */
  gboolean (*add_levels) (FfmArch *arch, const void *config, GError **error);
} FfmSingleArchModel;

/* The vtable functions of @model (used by the macro below). */
FFM_API GStrv ffm_single_arch_model_list (const FfmSingleArchModel *model);
FFM_API char *ffm_single_arch_model_describe (const FfmSingleArchModel *model,
                                              const char *arch_name);
FFM_API FfmParamSpec *ffm_single_arch_model_get_params (const FfmSingleArchModel *model,
                                                        const char *arch_name,
                                                        GError **error);
FFM_API FfmArch *ffm_single_arch_model_build (const FfmSingleArchModel *model,
                                              const char *arch_name,
                                              const FfmParamValues *values,
                                              GError **error);

/* The plugin of the model @model_ (an FfmSingleArchModel variable) named
 * @name_ (a string constant, the model's name: a plugin descriptor is
 * initialized with constants), at version @version_ with the one-line
 * plugin summary @summary_. */
#define FFM_SINGLE_ARCH_MODEL_DEFINE(model_, name_, version_, summary_)           \
  static GStrv ffm_single_list_ (void)                                           \
  {                                                                              \
    return ffm_single_arch_model_list (&(model_));                               \
  }                                                                              \
  static char *ffm_single_describe_ (const char *arch_name)                      \
  {                                                                              \
    return ffm_single_arch_model_describe (&(model_), arch_name);                \
  }                                                                              \
  static FfmParamSpec *ffm_single_get_params_ (const char *arch_name,            \
                                               GError **error)                   \
  {                                                                              \
    return ffm_single_arch_model_get_params (&(model_), arch_name, error);       \
  }                                                                              \
  static FfmArch *ffm_single_build_ (const char *arch_name,                      \
                                     const FfmParamValues *values,               \
                                     GError **error)                             \
  {                                                                              \
    return ffm_single_arch_model_build (&(model_), arch_name, values, error);    \
  }                                                                              \
  static const FfmArchModelVTable ffm_single_vtable_ = {                         \
    .struct_size = sizeof (FfmArchModelVTable),                                  \
    .list_architectures = ffm_single_list_,                                      \
    .describe = ffm_single_describe_,                                            \
    .get_params = ffm_single_get_params_,                                        \
    .build = ffm_single_build_,                                                  \
  };                                                                             \
  FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_ARCH_MODEL, name_, version_,                \
                     summary_, arch, &ffm_single_vtable_)

G_END_DECLS
