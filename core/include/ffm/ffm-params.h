/* ffm-params.h: declared parameters and the values a user gives them.
 *
 * Architecture models, search strategies and workload files declare their
 * parameters (name, type, default, help); the user sets them on the command
 * line as KEY=VALUE (`--arch-param glb_mib=64`, `--param batch=64`). An
 * FfmParamValues holds the user's strings; getters check them against the
 * declarations, fill in defaults and report a clear error naming the owner
 * ("architecture tpuv4i: parameter glb_mib: expected a number, got 'big'"). */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>

G_BEGIN_DECLS

typedef enum {
  FFM_PARAM_NUMBER = 1,   /* double; range in min/max */
  FFM_PARAM_INTEGER,      /* gint64; range in min/max */
  FFM_PARAM_STRING,       /* free text, or one of choices if given */
  FFM_PARAM_BOOL,         /* true/false/1/0/yes/no */
} FfmParamType;

/* One declared parameter. Plugins declare them as static const arrays
 * terminated by an entry whose name is NULL. */
typedef struct {
  const char *name;          /* [a-z0-9_]+ */
  FfmParamType type;
  const char *default_value; /* as text; NULL = required */
  const char *help;          /* one line, with unit ("global buffer size in MiB") */
  double min;                /* NUMBER/INTEGER: inclusive bounds; both 0 = unbounded */
  double max;                /* max < min: no upper bound ("at least 1" = min 1, max 0) */
  const char *const *choices;/* STRING: NULL-terminated allowed values, or NULL */
} FfmParamSpec;

/* The user's KEY=VALUE settings, in the order given. */
typedef struct _FfmParamValues FfmParamValues;

FFM_API FfmParamValues *ffm_param_values_new (void);
FFM_API void ffm_param_values_free (FfmParamValues *values);
FFM_API FfmParamValues *ffm_param_values_copy (const FfmParamValues *values);

/* Sets @key to @value (replacing an earlier setting). */
FFM_API void ffm_param_values_set (FfmParamValues *values,
                                   const char *key,
                                   const char *value);
/* Parses "KEY=VALUE"; FFM_PARAM_ERROR_SYNTAX if there is no '=' or no key. */
FFM_API gboolean ffm_param_values_parse_assignment (FfmParamValues *values,
                                                    const char *assignment,
                                                    GError **error);
/* The raw text given for @key, or NULL. */
FFM_API const char *ffm_param_values_lookup (const FfmParamValues *values,
                                             const char *key);
/* Keys in the order they were first set (transfer none, NULL-terminated). */
FFM_API const char *const *ffm_param_values_get_keys (const FfmParamValues *values);

/* Checks that every key is declared in @specs (NULL-name-terminated) and that
 * each value parses for its type and range. @owner names who declares the
 * parameters in messages ("architecture tpuv4i"). */
FFM_API gboolean ffm_param_values_validate (const FfmParamValues *values,
                                            const FfmParamSpec *specs,
                                            const char *owner,
                                            GError **error);

/* Typed getters: the user's value if set, else the spec's default. Errors if
 * the name is not declared, the value does not parse, or it is out of range.
 * Numbers may be written as constant expressions ("64*1024", "2**20", "inf");
 * _get_number also reads INTEGER parameters. */
FFM_API gboolean ffm_param_values_get_number (const FfmParamValues *values,
                                              const FfmParamSpec *specs,
                                              const char *owner,
                                              const char *name,
                                              double *out,
                                              GError **error);
FFM_API gboolean ffm_param_values_get_integer (const FfmParamValues *values,
                                               const FfmParamSpec *specs,
                                               const char *owner,
                                               const char *name,
                                               gint64 *out,
                                               GError **error);
FFM_API gboolean ffm_param_values_get_bool (const FfmParamValues *values,
                                            const FfmParamSpec *specs,
                                            const char *owner,
                                            const char *name,
                                            gboolean *out,
                                            GError **error);
/* Returns the string (transfer none) or NULL with @error set. */
FFM_API const char *ffm_param_values_get_string (const FfmParamValues *values,
                                                 const FfmParamSpec *specs,
                                                 const char *owner,
                                                 const char *name,
                                                 GError **error);

FFM_API const FfmParamSpec *ffm_param_spec_find (const FfmParamSpec *specs,
                                                 const char *name);
FFM_API const char *ffm_param_type_to_string (FfmParamType type);

/* Frees a heap-allocated, NULL-name-terminated spec array whose strings
 * (name, default_value, help, choices) were all g_strdup()ed. */
FFM_API void ffm_param_specs_free (FfmParamSpec *specs);
/* A heap copy of a NULL-name-terminated spec array, every string
 * duplicated: what FfmArchModelVTable.get_params hands out for a static
 * array (transfer full: free with ffm_param_specs_free()). */
FFM_API FfmParamSpec *ffm_param_specs_copy (const FfmParamSpec *specs);

/* Validates @values against @specs (unknown keys, types, ranges) and reads
 * every declared parameter, the user's value or the default, into the
 * struct at @base: parameter i goes to @base + @offsets[i] as a double
 * (NUMBER), gint64 (INTEGER), gboolean (BOOL) or const char * (STRING,
 * transfer none, valid while @values and @specs live). @values may be
 * NULL (all defaults). This is how a model turns its parameters into a
 * configuration struct in one call. */
FFM_API gboolean ffm_param_values_read_all (const FfmParamValues *values,
                                            const FfmParamSpec *specs,
                                            const char *owner,
                                            const gsize *offsets,
                                            gpointer base,
                                            GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmParamValues, ffm_param_values_free)

G_END_DECLS
