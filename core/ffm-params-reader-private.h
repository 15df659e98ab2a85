/* ffm-params-reader-private.h: the one reader of the `parameters` and `let`
 * members of architecture and workload files (docs/file-formats.md,
 * "Parameters and let").
 *
 * Both loaders declare their parameters, bind the user's values (or the
 * defaults), decide `required_when`, and evaluate `let` through this
 * module, so the two file kinds cannot drift apart. What differs between
 * them is stated in FfmParamsReaderRules, each a rule of the file format
 * and documented as such. The reader keeps the bound names (parameters,
 * then lets, in declaration order) and their values; the loaders resolve
 * identifiers of their own expressions through ffm_params_reader_lookup().
 * Expressions are evaluated by the loader (its scope and its messages),
 * through the callback in the rules. */
#pragma once

#include "ffm-json-util.h"
#include <ffm/ffm-expr.h>
#include <ffm/ffm-params.h>

G_BEGIN_DECLS

/* Evaluates the JSON value @node at @path (a number, a boolean, or an
 * expression string) into @out, over the names bound so far; on failure
 * sets @error in the loader's words and returns FALSE. */
typedef gboolean (*FfmParamsEvalFunc) (gpointer loader, JsonNode *node,
                                       const char *path, FfmValue *out,
                                       GError **error);

typedef struct {
  FfmJsonDoc *doc;                  /* transfer none: the file, for messages */
  GQuark domain;                    /* the error of an invalid file */
  gint code;
  const char *owner;                /* "workload NAME", in messages */
  /* Workloads: a whole-number default ("default": 4) declares an integer
   * parameter; architectures: a number (their sizes and energies take
   * fractions). */
  gboolean whole_default_is_integer;
  /* Architectures: every parameter has a default (`ffm list` shows it and
   * a built-in architecture loads with no --param). */
  gboolean default_required;
  /* Workloads: a bad --param value's message starts with the file's name
   * (an architecture's names the architecture, as its plugin adds). */
  gboolean value_errors_name_file;
  FfmParamsEvalFunc eval;
  gpointer loader;
} FfmParamsReaderRules;

typedef struct _FfmParamsReader FfmParamsReader;

/* @rules is copied (its pointers must outlive the reader). */
FfmParamsReader *ffm_params_reader_new (const FfmParamsReaderRules *rules);
void ffm_params_reader_free (FfmParamsReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmParamsReader, ffm_params_reader_free)

/* The declarations of `parameters` in @root (absent: none),
 * NULL-name-terminated; free with ffm_param_specs_free(). NULL with @error
 * set for an invalid declaration. */
FfmParamSpec *ffm_params_reader_read_specs (FfmParamsReader *reader,
                                            JsonNode *root, GError **error);

/* Validates @values (nullable: none given) against @specs and binds every
 * parameter to its value, the user's or the default; a parameter with
 * `required_when` and neither is left unbound (see
 * ffm_params_reader_is_unset()), and it is an error (FFM_PARAM_ERROR_MISSING)
 * when its condition holds. @root is the file's, for `required_when`. */
gboolean ffm_params_reader_bind (FfmParamsReader *reader,
                                 const FfmParamSpec *specs, JsonNode *root,
                                 const FfmParamValues *values, GError **error);

/* Evaluates `let` in @root (absent: none), each over the parameters and
 * the earlier lets, and binds it. */
gboolean ffm_params_reader_read_lets (FfmParamsReader *reader, JsonNode *root,
                                      GError **error);

/* Binds @name to @value after the parameters and lets (the loader's own
 * derived names, as an architecture's estimated level values). */
void ffm_params_reader_define (FfmParamsReader *reader, const char *name,
                               const FfmValue *value);
/* The value bound to @name (a string points into the reader). */
gboolean ffm_params_reader_lookup (FfmParamsReader *reader, const char *name,
                                   FfmValue *out);
/* Whether @name is a declared parameter left without a value. */
gboolean ffm_params_reader_is_unset (FfmParamsReader *reader, const char *name);
/* The bound names in order: parameters, then lets (transfer none). */
const GPtrArray *ffm_params_reader_get_names (FfmParamsReader *reader);

/* An expression's value as a loader keeps it: a string copied into
 * @strings (the expression's storage dies with it); FALSE for a tensor set,
 * which no parameter, let or value of a file's may be. */
gboolean ffm_params_value_keep (FfmValue *value, GPtrArray *strings);

/* A value as messages show it: whole numbers without a fraction. */
char *ffm_params_format_value (const FfmValue *value);
/* "new_tokens = 1, phase = 'decode'": the values, as @resolve finds them,
 * of the names expression @text uses ("" if none or it does not parse). */
char *ffm_params_describe_names (const char *text, FfmExprResolveFunc resolve,
                                 gpointer user_data);

G_END_DECLS
