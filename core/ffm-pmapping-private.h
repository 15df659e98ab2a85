/* ffm-pmapping-private.h (private): what the pmapping generator's files
 * share: templates (ffm-pmapping-template.c), their tile enumeration
 * (ffm-pmapping-tiles.c) and the driver (ffm-pmapping.c). */
#pragma once

#include <ffm/ffm-pmapping.h>
#include "ffm-constraints-private.h"
#include <ffm/ffm-memory-budget.h>

G_BEGIN_DECLS

/* One pmapping template: a LoopTree path of one Einsum whose loop tiles are
 * free, compiled once. */
typedef struct {
  guint id;                 /* index among the Einsum's templates */
  guint einsum;
  guint compute_level;
  GPtrArray *nodes;         /* of FfmMappingNode* (owned); tiles are placeholders */
  FfmPmappingModel *model;
  char *key;                /* canonical form, for deduplication */
  const FfmEinsumConstraints *constraints; /* the Einsum's, or NULL (owned
                                              by the pmapping set) */
} FfmPmappingTemplate;

void ffm_pmapping_template_free (FfmPmappingTemplate *t);

/* Everything the generator reads of Einsum @einsum and of @arch for it,
 * with its @templates (ffm-pmapping-signature.c):
 * two Einsums with equal signatures have the same pmappings up to tensor
 * names. NULL with @error when an architecture expression fails. */
char *ffm_pmapping_einsum_signature (const FfmWorkload *workload,
                                     const FfmArch *arch,
                                     guint einsum,
                                     const GPtrArray *templates,
                                     const FfmEinsumConstraints *constraints,
                                     GError **error);

/* Bytes one template holds (its nodes, compiled model and key), charged
 * to the memory budget while it lives. TUNING: measured 5.7-12.6 KiB in
 * malloc per template (TPUv4i x GPT-3, DRAM + 3 buffers x a matmul). */
#define FFM_PMAPPING_TEMPLATE_BYTES (16u * 1024)

/* Appends to @out (of FfmPmappingTemplate*) every template of @einsum on
 * every compute unit that serves it, ids continuing from out->len. Fails
 * when an architecture expression cannot be evaluated, no compute unit
 * serves the Einsum, a tensor can be kept nowhere, or a template does not
 * compile (a bug). @constraints (may be NULL) are the Einsum's: templates
 * that cannot satisfy them are not built (so there may be none). Each
 * template takes FFM_PMAPPING_TEMPLATE_BYTES from @budget (NULL:
 * unlimited; the caller gives them back when it frees them); when the
 * budget has no more, it fails with FFM_SEARCH_ERROR_OUT_OF_MEMORY. Past
 * options->max_templates the templates are counted in *@n_cut (may be
 * NULL) and not built. With one Einsum in the workload, storage choices
 * whose lower bound a pmapping found while building beats are left out
 * (ffm-pmapping-template.c, rule (g)) and counted in *@n_bounded (may be
 * NULL). */
gboolean ffm_pmapping_templates_build (const FfmWorkload *workload,
                                       const FfmArch *arch,
                                       guint einsum,
                                       const FfmPmappingOptions *options,
                                       const FfmEinsumConstraints *constraints,
                                       FfmMemoryBudget *budget,
                                       GPtrArray *out,
                                       guint *n_cut,
                                       guint *n_bounded,
                                       GError **error);

/* Rows of one template that share a compatibility, before the per-Einsum
 * merge. */
typedef struct {
  FfmCompatibility compat;
  guint n_columns;
  GArray *columns;          /* of FfmPmappingColumn */
  GArray *values;           /* of double, n_columns per row */
  GArray *tiles;            /* of guint64, n_loops per row */
  guint n_rows;
  guint pruned_rows;        /* n_rows at the last Pareto pass: the first
                               pruned_rows rows are a Pareto set */
  guint objectives;         /* FfmPmappingObjectives: how rows are pruned */
} FfmTemplateGroup;

/* Pareto-prunes rows whose first columns are the objectives of
 * @objectives (energy before latency), lexicographically for the pair when
 * ENERGY_FIRST or LATENCY_FIRST is set (ffm_pareto_prune()'s contract). */
guint ffm_pmapping_prune_rows (double *values,
                               guint n_rows,
                               guint n_columns,
                               guint objectives,
                               guint *kept);

/* ffm_pmapping_prune_rows() of rows whose first @n_front are a Pareto set
 * already (ffm_pareto_prune_front()): the same survivors, cheaper. */
guint ffm_pmapping_prune_rows_front (double *values,
                                     guint n_rows,
                                     guint n_columns,
                                     guint n_front,
                                     guint objectives,
                                     guint *kept);

/* What enumerating one template produced. */
typedef struct {
  GPtrArray *groups;        /* of FfmTemplateGroup*, in order of creation */
  GHashTable *index;        /* compat -> FfmTemplateGroup* (not owned) */
  guint n_loops;            /* tiles per row */
  guint64 n_evaluated;
  guint64 n_valid;
  guint64 n_partial;
  guint64 n_bucket_cuts;    /* groups of complete rows not made, a taken
                               leaf beating their bound (diagnostics) */
  guint n_chains_last;      /* 1 when the pilots chose to search with the
                               variable of most chains last (diagnostics) */
  guint64 n_unjoinable;     /* vectors dropped for a shared tensor's part
                               (ffm-joinable-parts-private.h; diagnostics,
                               not carried by the job bytes) */
  double seconds;
  /* Why tile vectors failed, for the error when an Einsum has no pmapping:
   * per architecture level, tile vectors (or partial ones) rejected there. */
  guint64 *rejected;        /* [n_levels] */
  double *min_excess;       /* [n_levels]: least bits above capacity seen, or -1 */
  double *min_need;         /* [n_levels]: occupancy of that least excess */
  /* Memory (ffm-memory-budget.h): the search stopped when the budget could
   * not give @memory_asked more bytes; its rows are then incomplete and
   * the generation fails. */
  gboolean out_of_memory;
  guint64 memory_asked;
  gboolean cut;             /* stopped by max_template_seconds: its rows are
                               what it found by then */
  gsize bytes;              /* bytes of the groups' rows */
  gsize charged;            /* bytes reserved for them from budget, given
                               back when the rows are freed */
  FfmMemoryBudget *budget; /* borrowed: the generation's */
} FfmTemplateResult;

FfmTemplateResult *ffm_template_result_new (guint n_levels);
void ffm_template_result_free (FfmTemplateResult *r);
/* Pareto-prunes every group of @r. */
void ffm_template_result_prune (FfmTemplateResult *r);
/* @r as flat bytes (ffm-template-result-bytes.c), for another process of
 * the same build: a header with the sizes of the structures copied, the
 * counters and rejection records ([@n_levels] each), then per group its
 * compatibility, columns, values and tiles. (transfer full) */
GBytes *ffm_template_result_to_bytes (const FfmTemplateResult *r,
                                      guint n_levels);
/* Fills @r, as ffm_template_result_new (@n_levels) made it, from @bytes;
 * fails (FFM_MAPPING_ERROR_INVALID) when they are truncated, from another
 * build, or their counts disagree. */
gboolean ffm_template_result_from_bytes (FfmTemplateResult *r,
                                         guint n_levels,
                                         GBytes *bytes,
                                         GError **error);

/* Appends to @out (of guint64, @n_loops per chain) every chain of tiles of
 * one rank variable of bound @bound over its @n_loops loops (outermost
 * first) that the mapspace with remainder tiles allows, where
 * @may_remainder[i] says whether loop i's kind may have one
 * (ffm-pmapping-imperfect.c). */
void ffm_pmapping_remainder_chains (guint64 bound,
                                    const gboolean *may_remainder,
                                    guint n_loops,
                                    GArray *out);

/* Scratch memory of the tile search, for one thread at a time. */
typedef struct _FfmTileWorkspace FfmTileWorkspace;
/* Its buffers are reserved from @budget (NULL: unlimited, borrowed: it
 * outlives the workspace). */
FfmTileWorkspace *ffm_tile_workspace_new (FfmMemoryBudget *budget);
void ffm_tile_workspace_free (FfmTileWorkspace *ws);

/* Enumerates the tile vectors of @t (ffm-pmapping-tiles.c) into @out,
 * with @workspace's memory (NULL: a temporary one). @untracked (per
 * architecture level, transfer none, NULL for none): memories whose
 * reservations the groups leave out, known to be untracked before the
 * search. @joinable (NULL: none, transfer none): the parts the Einsum's
 * shared tensors may have (ffm-joinable-parts-private.h); vectors with
 * another part are dropped and counted in out->n_unjoinable. */
typedef struct _FfmJoinableParts FfmJoinableParts;
void ffm_pmapping_template_enumerate (const FfmWorkload *workload,
                                      const FfmArch *arch,
                                      const FfmPmappingTemplate *t,
                                      const FfmPmappingOptions *options,
                                      const gboolean *untracked,
                                      const FfmJoinableParts *joinable,
                                      FfmTileWorkspace *workspace,
                                      FfmTemplateResult *out);

/* Everything ffm_pmapping_describe() derives from a model alone, computed
 * once per template. */
typedef struct {
  const FfmWorkload *workload;
  const FfmEinsum *einsum;
  guint n_loops;
  guint n_fused;            /* loops above the deepest shared backing node */
  guint n_shared;           /* shared accesses */
  guint shared_access[FFM_MAX_EINSUM_TENSORS];
  guint shared_prefix[FFM_MAX_EINSUM_TENSORS];/* loops above its backing node */
  guint n_memories;         /* memories of finite size on the path */
  guint memories[16];       /* their levels, outermost first */
  guint objectives;
  guint shared_level[FFM_MAX_EINSUM_TENSORS];  /* its backing memory */
  gboolean shared_persistent[FFM_MAX_EINSUM_TENSORS];
  double shared_bits[FFM_MAX_EINSUM_TENSORS];  /* bits per value there */
  int rank_of_var[FFM_MAX_EINSUM_TENSORS][FFM_MAX_EINSUM_RANK_VARS];
                            /* rank of a shared tensor indexed by the
                               variable alone, -1 if none */
} FfmDescribeInfo;

gboolean ffm_describe_info_init (FfmDescribeInfo *info,
                                 const FfmWorkload *workload,
                                 const FfmArch *arch,
                                 const FfmPmappingModel *model,
                                 guint objectives);
/* ffm_pmapping_describe() with @info precomputed; @values gets
 * n_columns doubles (room for FfmDescribeInfo's worst case:
 * 2 + n_memories * (FFM_COMPAT_MAX_LOOPS + 2)). Returns the number of
 * columns, 0 on failure. */
guint ffm_describe_row (const FfmDescribeInfo *info,
                        const FfmPmappingModel *model,
                        const guint64 *tiles,
                        const FfmPmappingCost *cost,
                        FfmCompatibility *compat,
                        FfmPmappingColumn *columns,
                        double *values);

/* ---- Cost terms (ffm-pmapping-terms.c) ---- */

typedef enum {
  FFM_TERM_ENERGY = 1,      /* dynamic energy, J */
  FFM_TERM_LATENCY,         /* time of one port of a memory (nla 0: reads or
                               both, 1: writes) or of the compute unit, s */
  FFM_TERM_OCCUPANCY,       /* bits reserved in a memory by buffets whose
                               reservation has nla loops above (-1 persistent;
                               n_fused for every depth below the fused loops) */
} FfmTermClassKind;

typedef struct {
  FfmTermClassKind kind;
  guint level;
  int nla;
} FfmTermClass;

/* coef x prod_{j in mask} n_j x prod_{v: pos[v] >= 0} tile[pos[v]] */
typedef struct {
  guint cls;
  double coef;
  guint64 mask;
  int pos[FFM_MAX_EINSUM_RANK_VARS];   /* loop whose tile multiplies; < 0 none */
} FfmTerm;

typedef struct {
  GArray *classes;          /* of FfmTermClass */
  GArray *terms;            /* of FfmTerm */
  gboolean leak;            /* some component leaks: energy grows with latency */
} FfmTerms;

/* The monomials of @model's objective quantities, or NULL when the
 * template is not eligible (copy, affine indices, zero bandwidth).
 * Occupancy classes are by min(nla, @n_fused): the fused loops are the
 * first @n_fused loops. With @remainders (tiles may leave remainders) the
 * compute unit's latency gets a class too. A monomial's factors are exact
 * for remainder tiles (ffm_terms_var_factor()). */
FfmTerms *ffm_terms_build (const FfmWorkload *workload,
                           const FfmArch *arch,
                           const FfmPmappingModel *model,
                           guint objectives,
                           guint n_fused,
                           gboolean remainders);
void ffm_terms_free (FfmTerms *terms);
/* A term's factor for one rank variable of bound @bound: its @n loops
 * (path indices @loops, outermost first) with tiles @chain, those in the
 * term's @mask summed, the others fixed at their first block, down to loop
 * @pos; the sum of the blocks' extents when @pos >= 0 (the tile times the
 * iterations with tiles that divide), their number when @pos < 0. Exact
 * with remainder tiles (ffm-tile-chain-private.h). */
double ffm_terms_var_factor (guint64 bound,
                             const guint64 *chain,
                             const guint *loops,
                             guint n,
                             guint64 mask,
                             int pos);
/* Every class's value at complete @tiles; @bounds the rank variables'. */
void ffm_terms_evaluate (const FfmTerms *terms,
                         const FfmPmappingModel *model,
                         const guint64 *bounds,
                         const guint64 *tiles,
                         double *out);

#define FFM_DESCRIBE_MAX_COLUMNS (2 + 16 * (FFM_COMPAT_MAX_LOOPS + 2))

/* The diagnostics kept out of the public header, in
 * FfmPmappingOptions.reserved_ (ffm-pmapping-diagnostics.h sets them):
 * every valid tile vector evaluated (no pruning of partial vectors by
 * their cost terms: the result must not change), and the reservation
 * columns of every memory of finite capacity kept, tracked or not. Both
 * are 0 by default. */
#define FFM_PMAPPING_NO_PARTIAL_PRUNING(options) ((options)->reserved_[0])
#define FFM_PMAPPING_TRACK_ALL_MEMORIES(options) ((options)->reserved_[1])

G_END_DECLS
