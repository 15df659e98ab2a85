/* ffm-workload-loader-private.h (private): what the workload loader's files
 * share, file by file (as ffm-pmapping-private.h does for the generator).
 *
 * The loader reads a workload JSON file (docs/file-formats.md,
 * "Workloads") into an FfmWorkload in two phases: expansion produces raw
 * Einsums while the parameter scope is alive, building turns the ones kept
 * by `when` into the model. A file calls only files listed below it here,
 * so the files form no circle (tests/test-generator-layers.sh checks it):
 *
 *   ffm-workload-loader.c         the entry points: the file's header
 *                                 members, then the two phases
 *   ffm-workload-loader-checks.c  checks of the built workload
 *   ffm-workload-loader-roles.c   roles, persistence and bits
 *   ffm-workload-loader-build.c   building the model (phase 2)
 *   ffm-workload-loader-expand.c  expansion (phase 1): checks, ranks,
 *                                 tensor declarations, the Einsum list
 *   ffm-workload-loader-scan.c    Einsum strings
 *   ffm-workload-loader-scope.c   messages, the scope, expressions */
#pragma once

#include "ffm-workload-private.h"
#include "ffm-json-util.h"
#include "ffm-params-reader-private.h"
#include <ffm/ffm-limits.h>

#include <math.h>
#include <string.h>

G_BEGIN_DECLS

/* Limits that keep hostile files from exhausting memory: real workloads
 * have at most a few hundred Einsums (DenseNet-201: 201). */
#define MAX_EINSUMS 100000
#define MAX_REPEAT_DEPTH 16
#define MAX_BITS 65536

#define INVALID FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_INVALID


/* ---- The loader's records ---- */

typedef struct {
  char *rank;                           /* NULL: bare affine, name from elsewhere */
  guint n_terms;
  char *vars[FFM_MAX_AFFINE_TERMS];
  gint64 coefs[FFM_MAX_AFFINE_TERMS];
  gint64 offset;
} RawEntry;

typedef struct {
  char *tensor;
  guint n_entries;
  RawEntry entries[FFM_MAX_TENSOR_RANKS];
} RawAccess;

typedef struct {
  char *var;
  gint64 bound;
} RawBound;

typedef struct {
  char *name;
  char *text;
  char *when;                           /* the "when" text, when left out */
  gboolean copy;
  gboolean included;
  guint n_inputs;
  RawAccess inputs[FFM_MAX_EINSUM_TENSORS];
  RawAccess output;
  char *roles[3];                       /* input, weight, output; NULL = default */
  JsonNode *role_nodes[3];
  char *role_paths[3];
  GArray *bounds;                       /* of RawBound */
  JsonNode *node;                       /* for messages */
  char *path;                           /* JSON path + repeat variables */
} RawEinsum;

typedef struct {
  char **ranks;                         /* NULL if not declared */
  gboolean has_bits;
  gint64 bits;
  gboolean has_persistent;
  gboolean persistent;
  JsonNode *node;
  char *path;
} TensorDecl;

typedef struct {
  gint64 size;
  JsonNode *node;
  char *path;
} RankDecl;

/* One repeat variable in scope. */
typedef struct _Frame Frame;
struct _Frame {
  const char *var;
  FfmValue value;                       /* scalar values */
  JsonObject *record;                   /* object values (fields var.name) */
  const char *index_var;                /* NULL if none */
  double index;
  Frame *outer;
};

typedef struct {
  FfmJsonDoc *doc;
  FfmWorkload *w;
  char *owner;                          /* "workload NAME" */
  const FfmParamValues *user;
  FfmParamsReader *params;              /* parameters and lets */
  GPtrArray *strings;                   /* storage for string values */
  char *last_unknown;                   /* last identifier the scope missed */
  Frame *frame;
  int repeat_depth;
  GHashTable *rank_decls;               /* name -> RankDecl* */
  GHashTable *tensor_decls;             /* name -> TensorDecl* */
  GPtrArray *raw;                       /* RawEinsum* */
  GHashTable *seen_tensors;             /* every tensor name, kept or not */
  GError **error;
} Loader;

/* An Einsum string being scanned (ffm-workload-loader-scan.c). */
typedef struct {
  const char *text;
  const char *p;
  GError *error;
} Scan;

/* A top-level role rule (ffm-workload-loader-roles.c). */
typedef struct {
  FfmExpr *expr;
  JsonNode *node;
  char *path;
} TopRole;

/* ---- ffm-workload-loader-checks.c ---- */

/* Bits of every tensor and of every access, and their sums over the
 * workload (what `ffm show-workload` reports), fit in 64 bits: refused
 * here, so no count downstream wraps. */
gboolean loader_check_bit_counts (Loader *L, JsonNode *root);

gboolean loader_check_tensor_decls (Loader *L);

/* Names are copied into tables, messages and output files: keep them of a
 * size people write. */
gboolean loader_check_name_lengths (Loader *L, RawEinsum *r);

/* Names only left-out Einsums have, with their condition, so that a
 * mapping naming one (made for other parameters) can be told why. */
void loader_record_left_out (Loader *L);

/* ---- ffm-workload-loader-roles.c ---- */

/* Roles per Einsum: explicit rules first; a missing input or weight is the
 * other inputs of the one given; with neither, the default of §0.4. */
gboolean loader_decide_roles (Loader *L, GPtrArray *kept, TopRole *top);

gboolean loader_read_top_roles (Loader *L, JsonNode *root, TopRole *top);

gboolean loader_decide_persistent (Loader *L, JsonNode *root);

gboolean loader_decide_bits (Loader *L, JsonNode *root, GPtrArray *kept);

/* ---- ffm-workload-loader-build.c ---- */

FfmTensor *loader_tensor_at (Loader *L, guint t);

FfmEinsum *loader_einsum_at (Loader *L, guint e);

/* Why @name cannot name a tensor, or NULL: tensor sets (roles, persistent,
 * bits_per_value keys) would read a class word as the class and inf, true
 * or false as a number, so the workload would not load back as written. */
const char *loader_reserved_tensor_name (const char *name);

gboolean loader_fail_einsum (Loader *L, RawEinsum *r, const char *format, ...) G_GNUC_PRINTF (3, 4);

/* Decides each tensor's rank names from its accesses and declaration, and
 * checks that every Einsum agrees. */
gboolean loader_resolve_tensor_ranks (Loader *L, GPtrArray *kept);

gboolean loader_build_einsum (Loader *L, RawEinsum *r);

gboolean loader_compute_classes (Loader *L, GPtrArray *kept);

/* ---- ffm-workload-loader-expand.c ---- */

gboolean loader_read_checks (Loader *L, JsonNode *root);

gboolean loader_read_ranks (Loader *L, JsonNode *ranks, const char *path);

gboolean loader_expand_list (Loader *L, JsonNode *list, const char *path);

gboolean loader_read_tensor_decls (Loader *L, JsonNode *root);

/* ---- ffm-workload-loader-scan.c ---- */

/* einsum := access '=' access (('*'|'+') access)* */
gboolean loader_scan_einsum (Scan *s, RawEinsum *e);

/* ---- ffm-workload-loader-scope.c ---- */

void loader_raw_access_clear (RawAccess *a);

void loader_raw_einsum_free (gpointer data);

void loader_tensor_decl_free (gpointer data);

void loader_rank_decl_free (gpointer data);

gboolean loader_fail (Loader *L, JsonNode *node, const char *path, const char *format, ...)
  G_GNUC_PRINTF (4, 5);

/* @path with the repeat variables in scope appended: "$.einsums[0].einsums[1]
 * (i = 2)". */
char *loader_path_in_frames (Loader *L, const char *path);

/* Wraps an expression error with the place and a hint about parameters
 * that have no value. */
gboolean loader_fail_expr (Loader *L, JsonNode *node, const char *path, GError *expr_error);

/* "new_tokens = 1, cached_tokens = 2048": the values of the names @text uses. */
char *loader_describe_names (Loader *L, const char *text);

gboolean loader_eval_bool (Loader *L, JsonNode *node, const char *path, gboolean *out);

/* An integer >= @min. @what names the quantity in messages ("rank M"). */
gboolean loader_eval_integer (Loader *L, JsonNode *node, const char *path, const char *what,
                              gint64 min, gint64 *out);

/* Replaces each {expr} in @text by its value; {{ and }} are braces. */
char *loader_substitute (Loader *L, const char *text, JsonNode *node, const char *path);

gboolean loader_is_identifier (const char *s, gboolean lower_first);

gboolean loader_check_object (Loader *L, JsonNode *node, const char *path,
                              const char *const *allowed);

const char *loader_require_string (Loader *L, JsonNode *node, const char *path);

/* Declares the parameters into the workload, binds their values (recorded
 * in the workload as text) and evaluates `let`. */
gboolean loader_read_parameters_and_lets (Loader *L, JsonNode *root);

G_END_DECLS
