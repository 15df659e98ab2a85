/* ffm-workload.h: a workload is an ordered list of Einsums over tensors.
 *
 * An Einsum such as `QK[b,h,m,p] = Q[b,h,m,e] * K[b,h,p,e]` reads input
 * tensors and writes one output tensor, iterating over a box of rank
 * variables (b, h, m, p, e), each with a bound. A tensor has its own named
 * ranks (K has ranks B, M, H, E); an Einsum indexes each rank with an affine
 * expression of its rank variables (`K[b, M:p, h, e]` indexes rank M with
 * variable p; a convolution indexes rank H with `2*p+r`). A tensor's
 * identity across Einsums is the tensor and its ranks, never the variable
 * names of one Einsum.
 *
 * The workload order is the order of the file; FFM joins Einsums in it.
 * Tensor classes used by architectures (ffm-arch.h) come from here:
 * workload-wide classes (inputs, outputs, intermediates, shared, persistent)
 * and per-Einsum roles (input, weight, output).
 *
 * Representation: plain arrays indexed by small integers (tensor index,
 * Einsum index, rank-variable index within an Einsum), so the cost model
 * and the pmapping generator never look names up in their loops. Every
 * number is resolved when the workload is loaded: parameters are gone by
 * then. Units: sizes in values, bits per value in bits.
 *
 * An FfmWorkload is immutable once loaded and reference counted. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-params.h>
#include <ffm/ffm-expr.h>

G_BEGIN_DECLS

#define FFM_MAX_EINSUM_TENSORS 8      /* accesses per Einsum */
#define FFM_MAX_EINSUM_RANK_VARS 16   /* rank variables per Einsum */
#define FFM_MAX_TENSOR_RANKS 8        /* ranks per tensor */
#define FFM_MAX_AFFINE_TERMS 4        /* terms in one index expression */

/* Workload-wide classes of a tensor (bit flags). */
typedef enum {
  FFM_TENSOR_INPUT = 1 << 0,        /* read by some Einsum, written by none */
  FFM_TENSOR_OUTPUT = 1 << 1,       /* written by some Einsum, read by none */
  FFM_TENSOR_INTERMEDIATE = 1 << 2, /* written by one Einsum, read by another */
  FFM_TENSOR_SHARED = 1 << 3,       /* touched by two or more Einsums (fusable) */
  FFM_TENSOR_PERSISTENT = 1 << 4,   /* lives for the whole workload (weights) */
} FfmTensorClass;

/* A tensor: its ranks and its values' width. */
typedef struct {
  char *name;
  guint n_ranks;
  char *rank_names[FFM_MAX_TENSOR_RANKS]; /* the tensor's own rank names, in order */
  guint bits_per_value;                   /* bits */
  guint classes;                          /* FfmTensorClass flags */
  guint producer;                         /* Einsum index writing it, G_MAXUINT if none */
} FfmTensor;

/* One term of an affine index expression: coefficient x rank variable. */
typedef struct {
  guint var;                  /* index into the Einsum's rank variables */
  gint64 coefficient;         /* > 0 */
} FfmAffineTerm;

/* How one rank of a tensor is indexed in one Einsum: sum(terms) + offset. */
typedef struct {
  guint n_terms;
  FfmAffineTerm terms[FFM_MAX_AFFINE_TERMS];
  gint64 offset;
} FfmProjection;

/* Roles of a tensor within one Einsum (bit flags), for architectures'
 * `input`, `weight`, `output` classes. */
typedef enum {
  FFM_ROLE_INPUT = 1 << 0,
  FFM_ROLE_WEIGHT = 1 << 1,
  FFM_ROLE_OUTPUT = 1 << 2,
} FfmTensorRole;

/* One tensor as one Einsum sees it. */
typedef struct {
  guint tensor;                                   /* index into the workload's tensors */
  gboolean is_output;
  guint roles;                                    /* FfmTensorRole flags */
  FfmProjection projections[FFM_MAX_TENSOR_RANKS];/* one per rank of the tensor */
} FfmTensorAccess;

/* One Einsum: a box of rank variables and the tensors it touches. */
typedef struct {
  char *name;                                     /* unique in the workload */
  char *text;                                     /* the Einsum as written, for messages */
  guint n_rank_vars;
  char *rank_var_names[FFM_MAX_EINSUM_RANK_VARS];
  guint64 rank_var_bounds[FFM_MAX_EINSUM_RANK_VARS];/* each variable ranges over [0, bound) */
  guint n_accesses;
  FfmTensorAccess accesses[FFM_MAX_EINSUM_TENSORS];/* inputs in order of appearance, output last */
  guint output_access;                            /* == n_accesses - 1 */
  gboolean is_copy;                               /* copy: one input, no compute */
} FfmEinsum;

typedef struct _FfmWorkload FfmWorkload;

/* ---- Loading ---- */

/* Loads a workload file. @name_or_path is a path to a .json file or the name
 * of a file in the workload folders (ffm_workload_search_dirs()). @params
 * overrides the file's declared parameters (may be NULL); an unknown or
 * invalid parameter is an error naming the workload and the parameter. */
FFM_API FfmWorkload *ffm_workload_load (const char *name_or_path,
                                        const FfmParamValues *params,
                                        GError **error);
FFM_API FfmWorkload *ffm_workload_load_from_data (const char *json_text,
                                                  const char *display_name,
                                                  const FfmParamValues *params,
                                                  GError **error);

/* The resolved workload as a workload file (format version 1) without
 * parameters: every rank size, rank-variable bound, role, bit width and
 * persistence written out explicitly, so loading it gives an identical
 * workload (transfer full). For saving what a run used, and for tests. */
FFM_API char *ffm_workload_to_json (const FfmWorkload *workload);

/* When @name (a tensor or an Einsum) is not in @workload because the file
 * has it only in Einsums a "when" condition left out with these
 * parameters: that condition's text ("decode"), else NULL (transfer none). */
FFM_API const char *ffm_workload_get_left_out_condition (const FfmWorkload *workload,
                                                         const char *name);
/* For messages about a name @workload lacks: " (it is in the Einsums for
 * \"decode\", which is false with the parameters given: ...)" when a
 * condition left it out, "" otherwise (transfer full). */
FFM_API char *ffm_workload_explain_missing (const FfmWorkload *workload,
                                            const char *name);

/* Folders searched for workloads by name, in order (transfer full). */
FFM_API GStrv ffm_workload_search_dirs (void);
/* Names of the workloads found in those folders, sorted (transfer full). */
FFM_API GStrv ffm_workload_list_available (void);

FFM_API FfmWorkload *ffm_workload_ref (FfmWorkload *workload);
FFM_API void ffm_workload_unref (FfmWorkload *workload);

/* ---- Reading ---- */

FFM_API const char *ffm_workload_get_name (const FfmWorkload *workload);
FFM_API const char *ffm_workload_get_description (const FfmWorkload *workload);
/* The file it was loaded from, or the display name. */
FFM_API const char *ffm_workload_get_source_file (const FfmWorkload *workload);
/* The workload's declared parameters (NULL-name-terminated, transfer none). */
FFM_API const FfmParamSpec *ffm_workload_get_param_specs (const FfmWorkload *workload);

FFM_API guint ffm_workload_get_n_tensors (const FfmWorkload *workload);
FFM_API const FfmTensor *ffm_workload_get_tensor (const FfmWorkload *workload,
                                                  guint index);
/* Index of the tensor called @name, or -1. */
FFM_API int ffm_workload_find_tensor (const FfmWorkload *workload,
                                      const char *name);

FFM_API guint ffm_workload_get_n_einsums (const FfmWorkload *workload);
FFM_API const FfmEinsum *ffm_workload_get_einsum (const FfmWorkload *workload,
                                                  guint index);
FFM_API int ffm_workload_find_einsum (const FfmWorkload *workload,
                                      const char *name);

/* Index of rank variable @name in @einsum, or -1. */
FFM_API int ffm_einsum_find_rank_var (const FfmEinsum *einsum,
                                      const char *name);
/* Access index of tensor @tensor in @einsum, or -1. */
FFM_API int ffm_einsum_find_access (const FfmEinsum *einsum, guint tensor);
/* Number of compute operations: product of the rank-variable bounds (0 for
 * a copy Einsum). */
FFM_API guint64 ffm_einsum_get_n_operations (const FfmEinsum *einsum);
/* Extent of one rank of an access when every rank variable v ranges over
 * [0, tile[v]): sum(coef * (tile - 1)) + 1 (offsets do not change extents;
 * a tile of 0 gives 0). Saturates at G_MAXUINT64. */
FFM_API guint64 ffm_projection_extent (const FfmProjection *projection,
                                       const guint64 *tile);
/* Number of values of the access's tile for rank-variable tiles @tile
 * (indexed like the Einsum's rank variables): product of the extents.
 * Saturates at G_MAXUINT64 on overflow. */
FFM_API guint64 ffm_access_tile_values (const FfmEinsum *einsum,
                                        guint access,
                                        const guint64 *tile);
/* TRUE if rank variable @var indexes some rank of the access (alone or in
 * an affine expression). */
FFM_API gboolean ffm_access_uses_var (const FfmEinsum *einsum,
                                      guint access,
                                      guint var);

/* ---- Reading: additions ---- */

/* The file's "source" text (where the numbers come from) and "layer" text
 * (what one copy of the workload stands for); NULL if absent. */
FFM_API const char *ffm_workload_get_data_source (const FfmWorkload *workload);
FFM_API const char *ffm_workload_get_layer (const FfmWorkload *workload);
/* The parameter values the workload was resolved with: every declared
 * parameter that has a value (the user's or the default), as text, in
 * declaration order (transfer none). */
FFM_API const FfmParamValues *ffm_workload_get_param_values (const FfmWorkload *workload);

/* Declared rank sizes (the file's "ranks", including those of repeat
 * blocks), in declaration order. Returns the rank name (transfer none) and
 * sets *@size (values). */
FFM_API guint ffm_workload_get_n_ranks (const FfmWorkload *workload);
FFM_API const char *ffm_workload_get_rank (const FfmWorkload *workload,
                                           guint index,
                                           guint64 *size);
/* TRUE and *@size if @rank has a declared size. */
FFM_API gboolean ffm_workload_get_rank_size (const FfmWorkload *workload,
                                             const char *rank,
                                             guint64 *size);

/* What tensor @tensor is to the workload, for reports: "intermediate"
 * (written by one Einsum, read by another), "output" (written, never
 * read), "weight" (read as some Einsum's weight), else "input". (transfer
 * none) */
FFM_API const char *ffm_workload_get_tensor_kind (const FfmWorkload *workload,
                                                  guint tensor);

/* Sum of ffm_einsum_get_n_operations() over the Einsums. The loader checks
 * that it fits in 64 bits. */
FFM_API guint64 ffm_workload_get_total_operations (const FfmWorkload *workload);
/* Footprint (values) of one access at the Einsum's full bounds: product of
 * the extents of its projections. Fits in 64 bits (checked at load). */
FFM_API guint64 ffm_einsum_get_access_values (const FfmEinsum *einsum,
                                              guint access);
/* Size of a tensor in values: its largest footprint over the Einsums that
 * touch it (a convolution may read more than its producer wrote, because
 * footprints are not clipped to rank sizes). */
FFM_API guint64 ffm_workload_get_tensor_values (const FfmWorkload *workload,
                                                guint tensor);
/* Indices of the Einsums that read @tensor, in workload order (transfer
 * none); *@n_readers gets their number. */
FFM_API const guint *ffm_workload_get_tensor_readers (const FfmWorkload *workload,
                                                      guint tensor,
                                                      guint *n_readers);
/* Accesses of @einsum that have @role, as a set (bit i = access i). */
FFM_API guint64 ffm_einsum_get_role_set (const FfmEinsum *einsum,
                                         FfmTensorRole role);
/* "input, shared, persistent" for FfmTensorClass flags (transfer full). */
FFM_API char *ffm_tensor_classes_to_string (guint classes);

/* Scope for evaluating tensor-set expressions (ffm-expr.h) in the context of
 * one Einsum: the universe is the Einsum's accesses (bit i = access i);
 * identifiers: all (alias tensors), nothing, inputs, outputs, intermediates,
 * shared, persistent, input, weight, output (plural `weights` is an alias
 * of `weight`), and every tensor name of the workload (the empty set if the
 * Einsum does not touch it). Class words are case-insensitive and come
 * before tensor names (the loader refuses tensors named like a class).
 * @extra (may be NULL) is consulted first, so architectures can add names
 * (memory names, `above`). */
typedef struct {
  FfmExprScope scope;            /* pass &s.scope to ffm_expr_evaluate_set() */
  const FfmWorkload *workload;
  guint einsum;
  const FfmExprScope *extra;
} FfmEinsumSetScope;

FFM_API void ffm_einsum_set_scope_init (FfmEinsumSetScope *set_scope,
                                        const FfmWorkload *workload,
                                        guint einsum,
                                        const FfmExprScope *extra);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmWorkload, ffm_workload_unref)

G_END_DECLS
