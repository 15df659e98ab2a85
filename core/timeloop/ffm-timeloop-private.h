/* ffm-timeloop-private.h (private): what the Timeloop bridge's files share.
 *
 * - ffm-timeloop-yaml.c: YAML files read with libyaml into a small tree
 *   whose nodes remember their file and line, merged into one
 *   specification; the warnings it collects; helpers to read the tree and
 *   to say where a problem is ("FILE:LINE: KEY.PATH: cause").
 * - ffm-timeloop-arch.c: `architecture` + `ERT` (+ `ART`) -> FfmArch.
 * - ffm-timeloop-problem.c: `problem` -> FfmWorkload; the name rules the
 *   mapping translation shares (dimension D is rank variable d, a data
 *   space named like a tensor class word gets a trailing '_').
 * - ffm-timeloop-mapping.c: `mapping` -> FfmMapping and back to YAML. */
#pragma once

#include <ffm/ffm-timeloop.h>

G_BEGIN_DECLS

typedef enum {
  FFM_TL_SCALAR = 1,
  FFM_TL_SEQUENCE,
  FFM_TL_MAPPING,
} FfmTlKind;

typedef struct _FfmTlNode FfmTlNode;

struct _FfmTlNode {
  FfmTlKind kind;
  const char *file;         /* owned by the specification */
  guint line;               /* 1-based */
  char *text;               /* SCALAR: the value as written */
  gboolean quoted;          /* SCALAR: written in quotes (a string, never a
                               number or a boolean) */
  guint n_items;            /* SEQUENCE: items; MAPPING: keys */
  FfmTlNode **items;        /* SEQUENCE: the items; MAPPING: key, value,
                               key, value, ... (keys are scalars) */
};

/* ---- The merged specification (ffm-timeloop-yaml.c) ---- */

/* The value of top-level key @key, or NULL. */
FfmTlNode *ffm_tl_spec_get (const FfmTimeloopSpec *spec, const char *key);
/* The key node of top-level key @key (for its file and line), or NULL. */
FfmTlNode *ffm_tl_spec_get_key (const FfmTimeloopSpec *spec, const char *key);
/* The files read, in order, joined with ", " (transfer none). */
const char *ffm_tl_spec_get_files (const FfmTimeloopSpec *spec);

/* Adds "FILE:LINE: PATH: message" to the warnings (@node may be NULL:
 * then only the message; @path may be NULL). */
void ffm_tl_warn (FfmTimeloopSpec *spec, const FfmTlNode *node,
                  const char *path, const char *format, ...)
  G_GNUC_PRINTF (4, 5);
/* Sets @error (FFM_TIMELOOP_ERROR, @code) to "FILE:LINE: PATH: message";
 * returns FALSE. */
gboolean ffm_tl_fail (GError **error, int code, const FfmTlNode *node,
                      const char *path, const char *format, ...)
  G_GNUC_PRINTF (5, 6);

/* ---- Reading the tree ---- */

const char *ffm_tl_kind_name (FfmTlKind kind);
/* The value of @key in mapping @node, or NULL (also when @node is not a
 * mapping). */
FfmTlNode *ffm_tl_get (const FfmTlNode *node, const char *key);
/* The key node of @key in mapping @node, or NULL. */
FfmTlNode *ffm_tl_get_key (const FfmTlNode *node, const char *key);
/* @node must be of @kind ("PATH: expected a mapping, got a sequence"). */
gboolean ffm_tl_require (const FfmTlNode *node, FfmTlKind kind,
                         const char *path, GError **error);
/* Every key of mapping @node is in @known (NULL-terminated); the first
 * other one is an error naming it and listing @known. */
gboolean ffm_tl_check_keys (const FfmTlNode *node, const char *path,
                            const char *const *known, GError **error);
/* Scalars. A number is a plain scalar that g_ascii_strtod() reads whole;
 * a count a whole number >= @min; a boolean true/false/yes/no/on/off in
 * any case. */
const char *ffm_tl_string (const FfmTlNode *node, const char *path,
                           GError **error);
gboolean ffm_tl_number (const FfmTlNode *node, const char *path,
                        double *out, GError **error);
gboolean ffm_tl_count (const FfmTlNode *node, const char *path, guint64 min,
                       guint64 *out, GError **error);
gboolean ffm_tl_bool (const FfmTlNode *node, const char *path,
                      gboolean *out, GError **error);
/* PATH.KEY and PATH[INDEX] (transfer full). */
char *ffm_tl_path_key (const char *path, const char *key);
char *ffm_tl_path_index (const char *path, guint index);

/* ---- Names (ffm-timeloop-problem.c) ---- */

/* The rank variable of Timeloop dimension @dim: its name in lower case
 * (transfer full). */
char *ffm_tl_dimension_var (const char *dim);
/* The ffm tensor name of data space @name: itself, with '_' appended when
 * it is a tensor class word of ffm's set expressions ("Weights",
 * "Inputs", ...) (transfer full). */
char *ffm_tl_tensor_name (const char *name);
/* The reverse, for export (transfer full). */
char *ffm_tl_dataspace_name (const char *tensor);
/* An identifier made of @name: characters other than letters, digits and
 * '_' become '_' (a leading digit gets a '_' before it) (transfer full). */
char *ffm_tl_identifier (const char *name);

G_END_DECLS
