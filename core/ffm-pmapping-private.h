/* ffm-pmapping-private.h (private): what the pmapping generator's files
 * share, file by file (the way SQLite's whereInt.h serves where*.c).
 *
 * The generator (ffm-pmapping.h; docs/pmapping-generator.md) runs in
 * phases, one or more files each; a file calls only files listed below it
 * here, so the files form no circle:
 *
 *   ffm-pmapping.c               the driver: jobs, threads, the phases
 *                                (ffm_pmappings_generate(), ffm-pmapping-jobs.h)
 *   ffm-pmapping-waves.c         joinable parts between Einsums: two waves
 *   ffm-pmapping-set.c           per-Einsum results: merge, copies, tracked
 *                                memories, errors, reading the set
 *   ffm-pmapping-signature.c     Einsums with the same pmappings
 *   ffm-template-result-bytes.c  a template's result as bytes (MPI)
 *   ffm-pmapping-storage.c       templates, steps 1-2: storage choices (and
 *                                those bounded away), storage-node orders
 *   ffm-pmapping-template.c      templates, step 3: the loops of one order
 *   ffm-pmapping-tiles*.c        the tile search of one template (its own
 *                                section below lists its nine files)
 *   ffm-pmapping-terms.c         the cost terms partial pruning compares
 *   ffm-pmapping-imperfect.c     chains with remainder tiles
 *   ffm-pmapping-rows.c          a tile vector as a row of its compatibility
 *                                group; a template's groups (FfmTemplateResult)
 *   ffm-pmapping-options.c       the options and their defaults
 *
 * and below them the modules the generator uses: the cost model
 * (ffm-cost-pmapping.c), Pareto pruning (ffm-pareto.c), the storage bound
 * (ffm-storage-bound.c), joinable parts (ffm-joinable-parts.c), row-key
 * sorting (ffm-row-key-sort.c), the memory budget. */
#pragma once

#include <ffm/ffm-debug.h>
#include "ffm-config.h"
#include <ffm/ffm-pmapping.h>
#include <ffm/ffm-limits.h>
#include "ffm-pmapping-jobs.h"
#include "ffm-constraints-private.h"
#include <ffm/ffm-memory-budget.h>
#include "ffm-workload-private.h"
#include "ffm-storage-bound.h"
#include "ffm-incumbent-front-private.h"

#include <string.h>
#include <time.h>

G_BEGIN_DECLS

/* ---- Options (ffm-pmapping-options.c) ---- */

/* The debug flags no-partial-pruning and track-all-memories (ffm-debug.h),
 * as pmapping_options_copy() found them when the generation started, in
 * its copy's FfmPmappingOptions.reserved_: every valid tile vector
 * evaluated (no pruning of partial vectors by their cost terms: the result
 * must not change), and the reservation columns of every memory of finite
 * capacity kept, tracked or not. */
#define FFM_PMAPPING_NO_PARTIAL_PRUNING(options) ((options)->reserved_[0])
#define FFM_PMAPPING_TRACK_ALL_MEMORIES(options) ((options)->reserved_[1])

/* @options (or the defaults, when NULL) into @out, sized as this build's. */
void pmapping_options_copy (FfmPmappingOptions *out, const FfmPmappingOptions *options);
/* While @on, the generations this thread starts evaluate every valid tile
 * vector, as under the debug flag no-partial-pruning: the mapspace times
 * one pmapping evaluation so (ffm_mapspace_measure_seconds_per_pmapping()). */
void pmapping_options_force_no_partial_pruning (gboolean on);
/* The memory budget of @options (the default when 0). */
guint64 pmapping_options_max_memory (const FfmPmappingOptions *options);

/* ---- Rows and template results (ffm-pmapping-rows.c) ---- */

/* Rows of one template that share a compatibility, before the per-Einsum
 * merge. The rows' buffers are reserved from the result's memory budget
 * as they grow (the capacity, not only the rows: a group grows to twice
 * its Pareto rows plus PRUNE_SLACK between prunings) and cut to the rows
 * kept when the template ends, so that what the results hold until the
 * merge is what the budget counts. */
typedef struct {
  FfmCompatibility compat;
  guint n_columns;
  GArray *columns;          /* of FfmPmappingColumn */
  FfmBudgetBuffer values;   /* of double, n_columns per row */
  FfmBudgetBuffer tiles;    /* of guint64, n_loops per row */
  guint n_rows;
  guint pruned_rows;        /* n_rows at the last Pareto pass: the first
                               pruned_rows rows are a Pareto set */
  guint objectives;         /* FfmPmappingObjectives: how rows are pruned */
} FfmTemplateGroup;

#define TEMPLATE_GROUP_VALUES(g) ((double *) (g)->values.data)
#define TEMPLATE_GROUP_TILES(g) ((guint64 *) (g)->tiles.data)

/* What a group holds besides its rows' buffers, as charged to the budget
 * when it is made: the structure (its compatibility is 1.3 kB), its
 * columns and its entry in the result's index. */
#define TEMPLATE_GROUP_FIXED_BYTES(n_columns) \
  (sizeof (FfmTemplateGroup) + sizeof (FfmPmappingColumn) * (gsize) (n_columns) + 128)

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

/* This thread's CPU time, s: what the profile adds up (threads run
 * concurrently, so wall time would count the others' work too). */
static inline double
ffm_thread_cpu_seconds (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* The monotonic clock, s. The phases inside one template are timed by it
 * and scaled to the template's own CPU time when the template ends
 * (ffm_pmapping_template_enumerate()): reading it is a vDSO call of tens
 * of nanoseconds, where the thread CPU clock is a system call (1-2 us on a
 * virtual machine's kvm-clock), which, read per chunk of partial rows and
 * per group prune, took a sixth of the generation's CPU on small
 * problems. */
static inline double
ffm_phase_clock_seconds (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_MONOTONIC, &ts) != 0)
    return 0;
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

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
  guint64 n_beaten;         /* partial rows not extended, a pmapping of the
                               incumbent front beating their bound
                               (diagnostics) */
  guint n_chains_last;      /* 1 when the pilots chose to search with the
                               variable of most chains last (diagnostics) */
  guint64 n_unjoinable;     /* vectors dropped for a shared tensor's part
                               (ffm-joinable-parts-private.h; diagnostics,
                               not carried by the job bytes) */
  double seconds;
  /* Where the template's thread spent its CPU time (FfmPmappingProfile;
   * diagnostics, not carried by the job bytes). */
  double cpu_tiles;         /* the whole tile search */
  gboolean on_helper;       /* a storage choice's seed searched on a helper
                               thread: cpu_tiles is not in the building
                               thread's time (jobs_take_seed_results()) */
  double cpu_order;         /* the pilots choosing the search order */
  double cpu_extend;        /* tables extended by one depth */
  double cpu_partial_pruning; /* whole tables of partial vectors pruned */
  double cpu_leaves;        /* the last depth: complete vectors */
  double cpu_groups;        /* its compatibility groups pruned */
  guint64 n_partial_rows;   /* partial vectors written to the tables */
  guint64 peak_table_rows;  /* most rows of one table */
  guint64 n_chain_sets;     /* rank variables' chains set up */
  guint64 n_chain_sets_shared; /* ... of them taken from the set-up shared
                               between templates (tiles_chains_take()) */
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
  gsize charged;            /* bytes of the groups' fixed parts
                               (TEMPLATE_GROUP_FIXED_BYTES) reserved from
                               budget, given back when they are freed; their
                               rows' buffers reserve their own capacity */
  FfmMemoryBudget *budget; /* borrowed: the generation's (NULL: unlimited) */
} FfmTemplateResult;

FfmTemplateResult *ffm_template_result_new (guint n_levels);
void ffm_template_result_free (FfmTemplateResult *r);
/* Pareto-prunes every group of @r and cuts its buffers to the rows kept. */
void ffm_template_result_prune (FfmTemplateResult *r);
/* Pareto-prunes the rows of @g (@n_loops tiles per row). */
void ffm_template_group_prune (FfmTemplateGroup *g, guint n_loops);

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
  guint memories[FFM_MAX_ARCH_LEVELS];  /* their levels, outermost first */
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
/* The index of column @c among @columns (reservations by memory and
 * depth, the others by kind), or -1. */
int ffm_pmapping_columns_find (const FfmPmappingColumn *columns, guint n_columns,
                               const FfmPmappingColumn *c);
/* The compatibility of the rows of @model whose fused loops' tiles are
 * @tiles' first info->n_fused (the others are not read), and in
 * @nt_prefix (info->n_loops + 1 entries) the fused loops of more than one
 * iteration among the first j loops, for each j: a reservation whose
 * buffet has n loops above lives from depth nt_prefix[MIN (n, n_fused)].
 * FALSE when the rows have more such loops than a compatibility holds. */
gboolean ffm_describe_compat (const FfmDescribeInfo *info,
                              const FfmPmappingModel *model,
                              const guint64 *tiles,
                              FfmCompatibility *compat,
                              guint *nt_prefix);
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

#define FFM_DESCRIBE_MAX_COLUMNS (2 + FFM_MAX_ARCH_LEVELS * (FFM_COMPAT_MAX_LOOPS + 2))
/* Frees @g, giving its rows' buffers back to @budget. */
void ffm_template_group_free (FfmTemplateGroup *g, FfmMemoryBudget *budget);
/* Frees the groups of @r (their budget given back), keeping its counters
 * and rejection records. */
void ffm_template_result_clear_groups (FfmTemplateResult *r);

/* ---- Remainder tiles (ffm-pmapping-imperfect.c) ---- */

/* Appends to @out (of guint64, @n_loops per chain) every chain of tiles of
 * one rank variable of bound @bound over its @n_loops loops (outermost
 * first) that the mapspace with remainder tiles allows, where
 * @may_remainder[i] says whether loop i's kind may have one
 * (ffm-pmapping-imperfect.c). */
void ffm_pmapping_remainder_chains (guint64 bound,
                                    const gboolean *may_remainder,
                                    guint n_loops,
                                    GArray *out);

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

/* ---- Templates (ffm-pmapping-storage.c, ffm-pmapping-template.c) ----
 *
 * ffm-pmapping-storage.c chooses what each memory keeps and orders the
 * storage nodes (ffm_pmapping_templates_build()); ffm-pmapping-template.c
 * places the loops of each order and emits the template. */

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
  FfmIncumbentFront *front; /* a reference to the pmappings the storage
                               choices' seeds found (one-Einsum workloads,
                               ffm-incumbent-front-private.h), or NULL */
} FfmPmappingTemplate;

void ffm_pmapping_template_free (FfmPmappingTemplate *t);

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
                                       GPtrArray *out_seeds,
                                       guint *n_cut,
                                       guint *n_bounded,
                                       GError **error);

typedef enum {
  ITEM_STORAGE = 1,
  ITEM_TEMPORAL,
  ITEM_SPATIAL,
} TemplateItemKind;

/* One node of a template under construction. */
typedef struct {
  TemplateItemKind kind;
  guint access;             /* STORAGE */
  guint level;              /* STORAGE: memory; SPATIAL: fanout */
  gboolean backing;         /* STORAGE: first node of its tensor */
  gboolean persistent;      /* STORAGE */
  guint var;                /* loops */
  guint dim;                /* SPATIAL */
} TemplateItem;

/* Storage nodes of one template: every memory of the path may keep every
 * tensor of the Einsum, so the load-time limits on levels and on tensors
 * per Einsum (docs/limits.md) bound them. A template's loops come on top;
 * its item array is sized from the problem (template_max_items()). */
#define MAX_TEMPLATE_NODES (FFM_MAX_ARCH_LEVELS * FFM_MAX_EINSUM_TENSORS)

typedef struct {
  const FfmWorkload *w;
  const FfmArch *a;
  const FfmEinsum *e;
  guint einsum;
  const FfmPmappingOptions *opt;
  guint compute;
  guint *path;
  guint n_path;
  guint64 direct[FFM_MAX_EINSUM_TENSORS];     /* vars indexing a rank alone */
  guint64 irrelevant[FFM_MAX_EINSUM_TENSORS]; /* vars not indexing it at all */
  guint64 partial[FFM_MAX_EINSUM_TENSORS];    /* vars only in multi-term indices */
  guint64 all;              /* every access */
  guint64 shared;           /* accesses of tensors two or more Einsums touch */
  guint64 fusable_or_inter; /* shared or intermediate */
  guint64 persistent;       /* accesses of persistent tensors */
  guint64 vars;             /* rank variables with a bound above 1 */
  guint64 kept[64];         /* current storage choice, per architecture level */
  guint64 coverable;        /* accesses some complete choice keeps */
  int first_memory;         /* outermost memory on the path */
  GPtrArray *out;
  GHashTable *keys;         /* dedup keys of this Einsum's templates */
  guint n_complete;         /* complete storage choices seen */
  gboolean remainders;      /* the mapspace has remainder tiles (options'
                               imperfect, and the model counts them) */
  const FfmEinsumConstraints *ec; /* the Einsum's constraints, or NULL */
  FfmPmappingOptions eff;   /* the options with the Einsum's own fused-loop
                               limit; opt points here */
  guint64 exempt;           /* rank variables rules (c) and (d) leave alone */
  FfmMemoryBudget *budget;  /* each template's bytes come from it */
  guint n_cut;              /* templates past options.max_templates */
  GPtrArray *cut_keys;      /* their keys (owned), so that none counts twice */
  guint64 n_redundant;      /* templates left out for a redundant copy (f) */
  gboolean collecting;      /* storage choices bounded: finish_choice()
                               stores each complete choice, builds nothing */
  GArray *choices;          /* of guint64, n_accesses per choice: its
                               chains (ffm_storage_bound_chains()) */
  FfmStorageBound *bound;   /* while choices are collected */
  gsize choices_charged;    /* bytes of the choices' arrays from budget */
  guint n_bounded;          /* choices left out by their bound */
  guint n_seeded;           /* choices searched while building */
  guint n_seed_templates;   /* their templates */
  guint max_items;          /* capacity of the template being built */
  FfmIncumbentFront *front; /* storage choices bounded: the seeds'
                               pmappings, which every template emitted
                               references (borrowed) */
  GHashTable *seed_results; /* storage choices bounded, @out_seeds given:
                               template key (owned) -> its seed search's
                               FfmTemplateResult (owned), until a template
                               of the same key is emitted */
  GPtrArray *out_seeds;     /* or NULL: parallel to @out, each template's
                               seed result (taken from seed_results) or
                               NULL */
} TemplateBuilder;

/* Which listed rank variables of each loop order each of its gaps may
 * iterate: a choice of non-decreasing cuts (see "Loop orders" below). */
typedef struct {
  guint n_gaps[FFM_CONSTRAINTS_MAX_ORDERS];
  guint cut[FFM_CONSTRAINTS_MAX_ORDERS][MAX_TEMPLATE_NODES + 1];
} OrderPlan;

/* ffm-pmapping-template.c */
/* Which rank variables index each access, alone or in a sum (b->direct,
 * b->irrelevant, b->partial). */
void template_compute_relevancy (TemplateBuilder *b);
/* What memory path[@p] must and may keep given the choices @kept of the
 * memories above it. */
gboolean template_level_must_may (const TemplateBuilder *b, guint p, const guint64 *kept,
                                  guint64 *must_out, guint64 *may_out, GError **error);
/* The templates of the storage-node order @nodes (the first @n_g0 the
 * outermost memory's and the persistent ones), one per plan of the mapping
 * constraints' loop orders. */
gboolean template_build_from_order (TemplateBuilder *b, const TemplateItem *nodes,
                                    guint n_nodes, guint n_g0, GError **error);

/* ---- Template results as bytes (ffm-template-result-bytes.c) ---- */

/* @r as flat bytes (ffm-template-result-bytes.c), for another process of
 * the same build: a header with the sizes of the structures copied, the
 * counters and rejection records ([@n_levels] each), then per group its
 * compatibility, columns, values and tiles. (transfer full) */
GBytes *ffm_template_result_to_bytes (const FfmTemplateResult *r,
                                      guint n_levels);
/* Fills @r, as ffm_template_result_new (@n_levels) made it, from @bytes;
 * fails (FFM_MAPPING_ERROR_INVALID) when they are truncated, from another
 * build, or their counts disagree. The rows' buffers are reserved from
 * r->budget: when it cannot hold them, @r has no group and says
 * out_of_memory. */
gboolean ffm_template_result_from_bytes (FfmTemplateResult *r,
                                         guint n_levels,
                                         GBytes *bytes,
                                         GError **error);

/* ---- Signatures (ffm-pmapping-signature.c) ---- */

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

/* ---- The tile search (ffm-pmapping-tiles*.c) ----
 *
 * The tile shapes of one template (ffm-pmapping-tiles.c says how they are
 * searched). Its state, one FfmTileSearch per template, is shared by its
 * files, one per phase:
 *   ffm-pmapping-tiles.c           the entry point, the search order (pilots)
 *                                  and the chunks of the breadth-first search
 *   ffm-pmapping-tiles-extend.c    one depth of the breadth-first search
 *   ffm-pmapping-tiles-leaves.c    the last depth, and the taken-leaf store
 *   ffm-pmapping-tiles-incumbent.c partial vectors held to the pmappings
 *                                  found (the Einsum's, with one; with
 *                                  several, the template's of their group)
 *   ffm-pmapping-tiles-dfs.c       bounds on partial vectors, the depth-first
 *                                  search, the probe of "try best"
 *   ffm-pmapping-tiles-table.c     tables, their memory, their pruning
 *   ffm-pmapping-tiles-leaf.c      a complete vector evaluated into its group
 *   ffm-pmapping-tiles-group-front.c a template's pmappings by fused tiles
 *   ffm-pmapping-tiles-units.c     partial dominance: units, factors, the
 *                                  greedy order
 *   ffm-pmapping-tiles-joinable.c  joinable parts of shared tensors
 *   ffm-pmapping-tiles-setup.c     loops, chains, buckets, buffets, fixed tiles
 *   ffm-pmapping-tiles-chains.c    each variable's chains, buckets and factors,
 *                                  shared between templates
 * Each calls only files listed below it here, or none. */

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
 * another part are dropped and counted in out->n_unjoinable.
 * @einsum_front (NULL: none, transfer none): the pmappings of the
 * Einsum's templates of the waves before @t's, which partial vectors are
 * held to (ffm-einsum-front-private.h). */
typedef struct _FfmJoinableParts FfmJoinableParts;
typedef struct _FfmEinsumFront FfmEinsumFront;
void ffm_pmapping_template_enumerate (const FfmWorkload *workload,
                                      const FfmArch *arch,
                                      const FfmPmappingTemplate *t,
                                      const FfmPmappingOptions *options,
                                      const gboolean *untracked,
                                      const FfmJoinableParts *joinable,
                                      const FfmEinsumFront *einsum_front,
                                      FfmTileWorkspace *workspace,
                                      FfmTemplateResult *out);

#define MAX_VARS FFM_MAX_EINSUM_RANK_VARS

#define MAX_LOOPS FFM_COST_MAX_LOOPS

#define MAX_DIMS FFM_MAX_PATH_FANOUT_DIMS

#define MAX_BUFFETS 64

/* TUNING: the parent diffs whose bucket-bound records an extension keeps
 * at once (a power of two; extend_bucket_bounds()). Rows of the last
 * depth's input come parent by parent, bucket by bucket, so consecutive
 * rows often differ in spatial products. RAELLA x ResNet-50's T2 (one
 * thread) looked up 164 M group records: with one slot 61 M were found
 * again, with 16 slots 76 M (12.9 -> 12.4 s). */
#define GROUP_RECORD_SLOTS 16

#define RANKS FFM_MAX_TENSOR_RANKS

/* Chains of one variable with the same fused-loop count and the same
 * spatial products on every fanout dimension. */
typedef struct {
  guint first;              /* first chain (index into the var's chains) */
  guint n;                  /* chains */
  guint fused;              /* fused loops of more than one iteration */
  guint64 prod[MAX_DIMS];   /* spatial iterations per fanout dimension */
} Bucket;

/* The state of one template's tile search (ffm_pmapping_template_enumerate()):
 * what setup compiled of the template, the units of partial dominance,
 * the bounds' precomputed parts, the taken-leaf store, and the tiles and
 * products chosen so far. */
typedef struct {
  const FfmPmappingTemplate *t;
  const FfmPmappingModel *m;
  const FfmArch *arch;
  const FfmPmappingOptions *opt;
  const FfmEinsum *e;
  FfmTemplateResult *out;
  FfmPmappingCost *cost;
  FfmDescribeInfo info;

  guint n_loops;
  FfmLoopInfo loops[MAX_LOOPS];
  guint n_vars;
  guint64 bounds[MAX_VARS];
  guint order[MAX_VARS];
  guint dfs_order[MAX_VARS];        /* fewest chains first: the depth-first
                                       search's order (the probe for "try
                                       best" keeps it when partial pruning
                                       chose another) */
  guint var_n_loops[MAX_VARS];
  guint var_loops[MAX_VARS][MAX_LOOPS];
  GArray *chains[MAX_VARS];         /* of guint64, var_n_loops tiles per chain */
  guint n_chains[MAX_VARS];
  guint64 chain_dim[MAX_VARS][MAX_DIMS];  /* largest product a var adds per dim */
  double reach_after[MAX_VARS + 1][MAX_DIMS];  /* chain_dim's product over the
                                                  variables from a depth on, in
                                                  search order, at most the
                                                  dimension's count (see
                                                  tiles_set_order()) */
  GArray *buckets[MAX_VARS];        /* of Bucket: chains sorted by what the
                                       search checks, so that a whole bucket
                                       is accepted or skipped at once */

  guint n_dims;
  guint64 dim_count[MAX_DIMS];
  double dim_min[MAX_DIMS];
  guint n_min_dims;                 /* the dimensions with a minimum usage */
  guint min_dims[MAX_DIMS];
  double dim_count_f[MAX_DIMS];     /* dim_count, as the bounds use it */
  double dim_need[MAX_DIMS];        /* dim_min x dim_count: the instances to use */
  gboolean constrained;             /* some dimension has a minimum usage */
  /* Interchangeable fanout dimensions (setup_symmetric_dims()): per
   * pair (a, b), a before b, a variable may not give b a larger spatial
   * product than a while neither is used yet. */
  guint n_symmetric_pairs;
  guint8 symmetric_pair[MAX_DIMS][2];

  guint n_buffets;
  guint buffet_level[MAX_BUFFETS];
  guint buffet_access[MAX_BUFFETS];
  double buffet_bits[MAX_BUFFETS];
  int res_loop[MAX_BUFFETS][MAX_VARS];  /* loop giving the var's tile at the
                                           reservation, -1 = the bound */
  guint n_memories;
  guint memories[MAX_BUFFETS];      /* levels of finite capacity with buffets */
  double capacity[MAX_BUFFETS];

  guint n_fused;
  gboolean remainders;              /* tiles may leave remainders (options'
                                       imperfect, and the model counts them) */
  gboolean relaxed;                 /* try best: keep the highest usage */
  gboolean probing;                 /* relaxed, first pass: find the highest
                                       usage of a valid vector, keep no row */
  double best_score;                /* probing: highest usage seen, or -1 */
  double target_score;              /* relaxed, second pass: that usage */
  gboolean probe_until_min;         /* probing: stop once the minimum usage
                                       is reached by a valid vector */
  gboolean min_reached;             /* ... which it was */
  guint64 usage_rejected;

  /* Pruning by dominance of cost terms (see "Partial dominance" below). */
  FfmTerms *terms;
  gboolean check_terms;     /* FFM_DEBUG=check-terms: terms vs model (read
                               through TILES_CHECKING()) */
  guint *leaf_unit_class;   /* per unit at the last depth: its class */
  guint n_leaf_slots;       /* what the groups compare of a complete row
                               (tiles_search_leaves()) */
  guint *leaf_slot;         /* per unit at the last depth: its slot, or
                               G_MAXUINT when the groups ignore it */
  guint8 *leaf_slot_max;    /* per slot: TRUE for the largest of its units
                               (latency), FALSE for their sum */
  guint prune_sample_rows;  /* PRUNE_SAMPLE_ROWS, or
                               FFM_DEBUG=prune-sample-rows (tests) */
  guint radix_min_rows;     /* RADIX_MIN_ROWS, or
                               FFM_DEBUG=radix-min-rows (tests) */
  gboolean every_leaf;      /* FFM_DEBUG=every-leaf (tests): no
                               tiles_search_leaves() pruning */
  guint n_units[MAX_VARS + 1];        /* comparison units per depth */
  guint *unit_next[MAX_VARS];         /* [n_units[k]]: its unit at depth k+1 */
  guint *unit_desc[MAX_VARS];         /* [n_units[k]]: descriptor of var order[k] */
  /* Depth k's units grouped by their unit at depth k+1 (stably: in
   * increasing order within a group): gather_unit[k] and gather_desc[k]
   * ([n_units[k]]) list each one and its descriptor, gather_start[k]
   * ([n_units[k+1] + 1]) where each unit of depth k+1 starts among them.
   * tiles_table_extend() sums each new unit's group in that order straight into
   * the new row: the same sums, bit for bit, as adding each unit into its
   * next unit in turn, without a scatter whose stores wait on each other. */
  guint *gather_unit[MAX_VARS];
  guint *gather_desc[MAX_VARS];
  guint *gather_start[MAX_VARS];
  double *unit_init;                  /* [2 n_units[0]]: value, magnitude */
  guint n_desc[MAX_VARS];             /* per depth k: descriptors of order[k] */
  double *phi[MAX_VARS];              /* per depth: [n_chains x n_desc] factors
                                         (its variable's var_phi, borrowed) */
  double *var_phi[MAX_VARS];          /* per variable: the same, computed once
                                         for every search order tried */
  guint n_diff;                       /* diff entries: fused loops + dims */
  /* The last depth's bucket bounds (bucket_bounds()): the chains of each
   * bucket of its variable in groups of equal fused tiles; per group,
   * each descriptor's least and largest factor over its chains
   * ([n_groups x 2 n_desc]) and per slot whether every chain gives its
   * units the same factors ([n_groups x n_leaf_slots]); NULL until
   * tiles_table_extend() first asks. */
  guint *bucket_group_first;          /* [n_buckets + 1]: bucket b's groups */
  guint *chain_group;                 /* [n_chains]: its group */
  guint *group_chain;                 /* [n_groups]: a chain of the group */
  double *group_phi;
  guint8 *group_slot_exact;
  guint8 *group_cut;                  /* [most groups of a bucket]: scratch */
  guint32 *group_record;              /* [GROUP_RECORD_SLOTS x n_groups]: per
                                         slot of a parent diff, the taken-leaf
                                         record of each group's diff
                                         (extend_bucket_bounds()), */
  guint32 *group_record_stamp;        /* valid where its stamp is the slot's
                                         epoch */
  guint32 group_record_epoch;         /* the last epoch given a slot */
  guint n_bound_groups;
  gboolean bucket_bounds_on;          /* not FFM_DEBUG=no-bucket-bounds
                                         (tests) */
  guint64 bucket_bound_cuts;          /* groups so cut (out->n_bucket_cuts,
                                         the debug log) */
  guint64 bucket_bound_tests;         /* groups whose bound was taken */
  /* Partial rows held to the template's front (tiles_incumbent_setup()):
   * per depth k, front_phi + front_phi_at[k] holds each descriptor's
   * least factor over order[k]'s chains, then its largest; NULL when the
   * bound is off. */
  double *front_phi;
  gsize front_phi_at[MAX_VARS];
  double *front_scratch;              /* [2 front_most_units] */
  guint front_most_units;             /* the most units of a depth */
  FfmIncumbentFront *front;           /* the template's front copied, which
                                         its own leaves join (tiles_leaf()) */
  double front_scale;                 /* 1, or FFM_DEBUG=incumbent-bound-scale */
  /* The last variable's chains, each as the weights its factors give the
   * units of depth n_vars - 1 in the energy (only chains no other is at
   * most in every weight): a row's energy bound takes the least over
   * them rather than each factor's least (tiles_incumbent_setup());
   * front_last_n == 0: off. */
  double *front_last_w;               /* [front_last_n x n_units[n_vars - 1]] */
  guint front_last_n;
  /* per depth k: for each bucket of order[k], each descriptor's least
   * factor over the bucket's chains, then its largest; NULL where the
   * children of a bucket are not held to the front as one (a fused loop
   * of order[k] puts them in different groups) */
  double *front_bucket_phi[MAX_VARS];
  guint64 bucket_front_tests;         /* buckets so held, */
  guint64 bucket_front_cut;           /* the chains of those beaten, */
  guint64 bucket_front_skipped;       /* and those not held (their worth) */
  guint *front_last_first;            /* per bucket of the last variable: its
                                         first chain kept; [n_buckets + 1] */
  guint front_last_n_buckets;
  guint *front_last_fits;             /* scratch: the buckets the spatial
                                         products front_last_used leave */
  guint front_last_n_fits;
  guint64 front_last_used[MAX_DIMS];
  gboolean front_last_used_valid;
  gboolean front_last_max;            /* FFM_DEBUG=incumbent-last-max (tests:
                                         the largest, unsound) */
  guint64 front_ops;                  /* the Einsum's operations, 0: too many */
  double front_throughput;            /* the compute unit's */
  guint64 n_beaten;                   /* rows not extended (out->n_beaten) */
  guint depth_chunks[MAX_VARS + 1];    /* per depth: chunks made there */
  gboolean depth_prune_weak[MAX_VARS + 1]; /* per depth: its last chunk's
                                         pruning kept half its rows or more
                                         (search_chunks(): small chunks
                                         below it first) */
  /* Without a front (several Einsums: a pmapping's worth is its group's),
   * rows whose every fused tile is chosen are held instead to the
   * template's own pmappings of the same fused tiles
   * (ffm-pmapping-tiles-incumbent.c); NULL when off. */
  struct GroupFront *group_front;
  gboolean fused_first;               /* the variables of fused loops first
                                         (choose_search_order()) */
  const FfmEinsumFront *einsum_front; /* the pmappings of the
                                     Einsum's earlier waves of templates
                                     (ffm-einsum-front-private.h), or NULL */
  guint8 *unit_lex[MAX_VARS + 1];     /* per depth: each unit's LEX_* kind
                                         for energy first (its ties broken by
                                         latency, no leak); NULL otherwise */
  guint var_exp[MAX_BUFFETS][MAX_VARS];  /* ranks of a buffet's tensor a var indexes */
  gboolean buffet_affine[MAX_BUFFETS];   /* an index of its tensor is not one
                                            variable: occupancy is not a
                                            product of per-variable tiles */
  int buffet_memory[MAX_BUFFETS];     /* index into memories, -1 infinite */
  guint memory_buffet[MAX_BUFFETS];   /* the buffets of memory q, in order: */
  guint memory_first[MAX_BUFFETS + 1];/* memory_buffet[memory_first[q]..] */
  double *chain_occ[MAX_VARS];        /* per variable: [n_chains x n_buffets]
                                         each chain's factor of each buffet's
                                         occupancy (its tile, or the bound, to
                                         the ranks it indexes) */
  /* Buffets whose tensor has an affine index (capacity_chain_ok()): */
  guint n_affine;
  int affine_index[MAX_BUFFETS];      /* the buffet's index among them, or -1 */
  guint64 *affine_coef;               /* [n_vars x n_affine x RANKS]: the
                                         variable's coefficient in each
                                         rank's index (summed over terms) */
  guint32 *affine_mask;               /* [n_vars x n_affine]: the ranks whose
                                         index has the variable */
  guint64 *capacity_affine;           /* [n_vars + 1 depths x (n_vars + 1)
                                         passes x n_affine x (RANKS + 1)]:
                                         CapacityBase's, see there */

  /* Fixed tiles (mapping constraints): chain position (loops of the
   * variable above a storage node) and the tile required there. */
  guint n_fixed[MAX_VARS];
  guint fixed_pos[MAX_VARS][MAX_BUFFETS];
  guint64 fixed_tile[MAX_VARS][MAX_BUFFETS];
  FfmPmappingOptions eff;           /* options with the Einsum's own
                                       fused-loop limit; opt points here */

  FfmMemoryBudget *budget;          /* the generation's (workspace's); NULL:
                                       unlimited */
  gboolean stopped;                 /* out of memory or out of time: the
                                       search unwinds */
  gint64 deadline;                  /* monotonic time (µs) at which the
                                       template's time limit ends; 0: none */
  const gint *cancel;               /* the options' cancel flag, or NULL:
                                       search_interrupted() polls it */

  /* The leaves taken so far by tiles_search_leaves() in this template's earlier
   * chunks, by diff (taken_store_add()): tiles_table_extend() does not write a
   * complete row that one of them dominates (tiles_taken_store_dominates()). */
  struct {
    /* One record per distinct diff, in open hashing: */
    FfmBudgetBuffer buckets;        /* guint32 [n_buckets]: record + 1, 0 empty */
    FfmBudgetBuffer hash;           /* guint64 per record: its diff's hash */
    FfmBudgetBuffer next;           /* guint32 per record: next in bucket + 1 */
    FfmBudgetBuffer diff;           /* guint64 [n_diff] per record */
    FfmBudgetBuffer first;          /* guint32 per record: its first listed
                                       leaf + 1 (added since the last
                                       tiles_taken_store_flatten()) */
    FfmBudgetBuffer least;          /* double [n_leaf_slots] per record: each
                                       slot's least value over its leaves */
    /* and one entry per leaf: */
    FfmBudgetBuffer leaf_next;      /* guint32 per leaf: next of its diff + 1 */
    FfmBudgetBuffer leaf_record;    /* guint32 per leaf: its record + 1 (only
                                       in the check mode, for
                                       tiles_taken_store_dominates_slowly()) */
    FfmBudgetBuffer slots;          /* double [2 n_leaf_slots] per leaf */
    /* Each record's leaves laid out flat (tiles_taken_store_flatten()):
     * TakenSegment per record; its segment, at position p of the arena
     * with room for c leaves, holds for each of the first
     * TAKEN_SORTED_SLOTS slots x the leaves sorted by slot x, their
     * n_leaf_slots values side by side: slot y of the i-th at float
     * (p + x c) n_leaf_slots + y c + i and its leaf at p + x c + i. Values
     * are rounded to float (rounding keeps a <= b); INFINITY and
     * TAKEN_FLAT_NONE past the record's leaves. */
    FfmBudgetBuffer segments;
    FfmBudgetBuffer arena_values;   /* float */
    FfmBudgetBuffer arena_leaf;     /* guint32 */
    FfmBudgetBuffer spare_values, spare_leaf; /* compaction's target */
    FfmBudgetBuffer merge;          /* a layout's scratch: its listed leaves */
    FfmBudgetBuffer beaten;         /* guint8 per leaf: a leaf added later
                                       beats it (it leaves the next layout) */
    gsize arena_used, arena_garbage; /* positions (of all copies) */
    guint n_buckets;                /* a power of two, or 0 */
    guint n_records;
    guint n;                        /* leaves */
    guint fail;                     /* the slot where a leaf failed last
                                       (unit_dominates()) */
    gboolean full;                  /* the budget or the cap said no more */
  } taken;
  guint64 tiles[MAX_LOOPS];
  guint64 used[MAX_VARS + 1][MAX_DIMS]; /* per depth: spatial products chosen */
  guint fused[MAX_VARS + 1];        /* per depth: fused loops of > 1 iteration */
  guint64 var_tiles[MAX_VARS];      /* scratch for occupancy */
  /* tiles_dfs()'s buckets per depth: those of the depth's variable that pass
   * the fused-loop, fanout and usage tests at the node's spatial products
   * and fused loops, which every chain of the parent's bucket shares
   * (search_survivors()). */
  struct Survivors {
    guint *bucket;                  /* indices into buckets[order[depth]] */
    guint n;
    guint64 unreachable;            /* buckets usage_reachable() cut */
    gboolean valid;                 /* for the parent's current bucket */
  } survivors[MAX_VARS + 2];        /* and [n_vars + 1]: tiles_table_extend()'s */
  guint *survivor_block;            /* the survivors' indices, one block */
  struct CapacityBase *capacity_base;  /* [n_vars + 1]: tiles_dfs()'s, per depth
                                          (8.7 kB each: not on the stack) */
  FfmCompatibility compat;
  FfmPmappingColumn columns[FFM_DESCRIBE_MAX_COLUMNS];
  double values[FFM_DESCRIBE_MAX_COLUMNS];

  /* The parts (ffm-joinable-parts-private.h) the shared tensors may have,
   * or NULL; per shared tensor with a list (n_jt of them, in
   * describe-info order), what its part is made of: */
  const FfmJoinableParts *joinable;
  guint n_jt;
  struct JoinableTensor {
    guint access;
    guint shared;                   /* index among the compatibility's tensors */
    guint level;
    gboolean persistent;
    guint prefix;                   /* loops above its backing node */
    int rank[MAX_LOOPS];            /* per loop < prefix: the tensor's rank
                                       it walks (ffm_join_plain_rank()) */
    int fanout_level[MAX_LOOPS];    /* per spatial loop < prefix */
    int fanout_dim[MAX_LOOPS];
    guint depth;                    /* the search depth from which every
                                       loop < prefix has its tile (set by
                                       tiles_joinable_depths() for the order) */
    gboolean plain;                 /* each loop < prefix walks a rank of
                                       its own variable (below 64): ranks
                                       tell the variables apart */
    GArray *proj[MAX_VARS + 1];     /* per depth below that where the loops
                                       chosen so far gain a rank: the list's
                                       parts over those ranks
                                       (ffm_joinable_parts_project()), or NULL */
  } jt[FFM_MAX_EINSUM_TENSORS];
  guint var_pos[MAX_VARS];          /* each variable's depth in the order */
  guint8 *chain_dead[MAX_VARS];     /* per variable, NULL or per chain: its
                                       loops rule out a joinable tensor's
                                       list (joinable_chains()) */
  guint n_live_chains[MAX_VARS];    /* per variable, its chains not ruled
                                       out: what the search orders count */
  guint64 n_unjoinable;             /* partial and complete vectors, and
                                       leaves, dropped for their parts */
  gboolean joinable_in_tables;      /* tiles_table_extend() checks the parts */

  /* Each variable's chains, buckets and factors (chains, buckets,
   * n_chains and chain_dim above are its set's): the workspace's cache's,
   * borrowed, or the template's own when not cached
   * (ffm-pmapping-tiles-chains.c). */
  struct TileChainCache *chain_cache;   /* the workspace's, or NULL */
  struct TileChainSet *chain_set[MAX_VARS];
  gboolean chain_set_owned[MAX_VARS];
  gboolean check_shared;            /* FFM_DEBUG=check-shared-setup: every
                                       set and factor taken from the cache
                                       compared with one built afresh */
} FfmTileSearch;

/* The tile search's self-checks (FFM_DEBUG=check-terms) exist in builds
 * with the test hooks only: elsewhere every branch on them is compiled
 * away, the hot loops carrying no test. */
#if FFM_TEST_HOOKS
#define TILES_CHECKING(en) G_UNLIKELY ((en)->check_terms)
#else
#define TILES_CHECKING(en) FALSE
#endif

/* FFM_DEBUG=check-shared-setup: the set-up shared between templates
 * (ffm-pmapping-tiles-chains.c) built afresh as well, and compared. */
#if FFM_TEST_HOOKS
#define TILES_CHECKING_SHARED(en) G_UNLIKELY ((en)->check_shared)
#else
#define TILES_CHECKING_SHARED(en) FALSE
#endif

/* TRUE, and the search stops with what it has (the template is "cut"),
 * once its time limit has passed or the generation is cancelled (Ctrl-C,
 * SIGTERM, --timeout: the generation then fails, whatever the template
 * found). Polled per row the tables extend, per 1024 leaves and per 1024
 * nodes of the depth-first search, so that a template of a second or more
 * stops within milliseconds. */
static inline gboolean
search_interrupted (FfmTileSearch *en)
{
  if ((en->cancel != NULL && g_atomic_int_get (en->cancel) != 0)
      || (en->deadline != 0 && g_get_monotonic_time () >= en->deadline))
    {
      en->stopped = TRUE;
      en->out->cut = TRUE;
      return TRUE;
    }
  return FALSE;
}

/* The smallest tile variable @v, not chosen yet, can have at the
 * reservation of buffet @b: 1 below one of its loops, its bound above all
 * of them; and its bound as well below a fused loop when the fused-loop
 * budget is spent (@trivial_fused): its fused loops then have one
 * iteration, and fused loops are the first loops of the template, so the
 * tile stays the bound down to the first unfused loop. */
static inline guint64
smallest_tile (const FfmTileSearch *en, guint b, guint v, gboolean trivial_fused)
{
  int j = en->res_loop[b][v];

  if (j < 0 || (trivial_fused && (guint) j < en->n_fused))
    return en->bounds[v];
  return 1;
}

/* The fused loops of more than one iteration that the variables not
 * chosen yet may still add, after @fused: G_MAXUINT when unlimited. */
static inline guint
fused_budget (const FfmTileSearch *en, guint fused)
{
  if (en->opt->max_fused_loops < 0)
    return G_MAXUINT;
  return (guint) en->opt->max_fused_loops > fused
    ? (guint) en->opt->max_fused_loops - fused : 0;
}

/* tiles_capacity_ok() for the chains of one variable: what does not depend on
 * the chain, computed once per bucket (capacity_base()), so that each
 * chain multiplies in its own factors (capacity_chain_ok()). The probes
 * of try best ask this for every node they visit: tiles_capacity_ok() was a
 * fifth of MobileNet-V3's time on TPUv4i. Products of integer tiles as
 * doubles are exact below 2^53, so the occupancies are tiles_capacity_ok()'s
 * (FFM_DEBUG=check-terms compares the two at every chain). */
typedef struct CapacityBase {
  guint n_passes;
  int free[MAX_VARS + 1];                    /* per pass: tiles_capacity_ok()'s free */
  double prod[MAX_VARS + 1][MAX_BUFFETS];    /* per pass: the other variables'
                                                factor of each buffet */
  /* Buffets with an affine index, per pass and affine buffet (RANKS + 1
   * entries): each rank's extent with the variable's tile at 1 (where its
   * index has the variable), then the product of the other ranks'
   * extents. With the chain's tile t, a rank's extent is its entry plus
   * coefficient x (t - 1): ffm_access_tile_values() without a pass over
   * every rank and variable. */
  guint64 *affine;
} CapacityBase;

/* @a x @b, or G_MAXUINT64 when it overflows, as ffm_access_tile_values()
 * saturates: its factors are >= 1, so its product saturates exactly when
 * the true product does, in any order. */
static inline guint64
saturating_mul (guint64 a, guint64 b)
{
  guint64 n;
  return __builtin_mul_overflow (a, b, &n) ? G_MAXUINT64 : n;
}

/* The value count of affine buffet @b split for variable @v (@out,
 * RANKS + 1 entries): each rank's extent with @tiles and @v's tile at 1
 * where its index has @v, then the product of the other ranks' extents
 * (@tiles[@v] is not read). affine_values() completes it with a tile of
 * @v: ffm_access_tile_values() without a pass over every rank and
 * variable. */
static inline void
affine_split (const FfmTileSearch *en, guint v, guint b, guint64 *tiles, guint64 *out)
{
  const FfmTensorAccess *access = &en->e->accesses[en->buffet_access[b]];
  guint32 mask = en->affine_mask[(gsize) v * en->n_affine + (guint) en->affine_index[b]];
  guint64 rest = 1;

  tiles[v] = 1;
  for (guint r = 0; r < RANKS; r++)
    {
      guint64 extent = ffm_projection_extent_inline (&access->projections[r], tiles);
      if (mask & (1u << r))
        out[r] = extent;
      else
        rest = saturating_mul (rest, extent);
    }
  out[RANKS] = rest;
}

/* ffm_access_tile_values() of affine buffet @b from its split for @v
 * (@split, affine_split()), with @v's tile from en->tiles. Each rank's
 * extent saturates where ffm_projection_extent() does (any overflow of
 * the exact sum), and the product where ffm_access_tile_values() does. */
static inline guint64
affine_values (const FfmTileSearch *en, guint v, guint b, const guint64 *split)
{
  guint a = (guint) en->affine_index[b];
  const guint64 *coef = en->affine_coef + ((gsize) v * en->n_affine + a) * RANKS;
  guint32 mask = en->affine_mask[(gsize) v * en->n_affine + a];
  int j = en->res_loop[b][v];
  guint64 tile = j >= 0 ? en->tiles[j] : en->bounds[v];
  guint64 n = split[RANKS];

  for (; mask != 0; mask &= mask - 1)
    {
      guint r = (guint) __builtin_ctz (mask);
      guint64 span, extent;
      if (__builtin_mul_overflow (coef[r], tile - 1, &span)
          || __builtin_add_overflow (split[r], span, &extent))
        extent = G_MAXUINT64;
      n = saturating_mul (n, extent);
    }
  return n;
}

/* ---- Partial dominance ----
 *
 * Every quantity the objectives and reservations are made of is a signed
 * sum of monomials, each a product of one factor per rank variable
 * (ffm-pmapping-terms.c). After the chains of the first k variables of the
 * search order are chosen, group the monomials of each quantity ("class")
 * by their factors for the remaining variables: a *unit*. A partial tile
 * vector's value for a unit is the sum over its monomials of coefficient x
 * the chosen variables' factors; any completion multiplies the unit by the
 * same non-negative product of the remaining factors, whichever partial
 * vector it completes. So if partial vectors A and B agree on everything
 * that is not monotone (the "diff": fused loops' tiles, which fix the
 * compatibility and every reservation's lifetime depth; spatial products
 * per fanout dimension, which fix fanout validity and minimum usage) and
 * A <= B in every unit, then for every completion c, A+c <= B+c in dynamic
 * energy, in every port's latency (hence in latency and in leak energy),
 * in every occupancy (hence in capacity and in every reservation column),
 * with the same compatibility: B+c is never needed, and B is dropped
 * [the reference implementation, accelforge; the FFM paper §6.4 for why dominated pmappings of one
 * group can go]. The comparison is made safe against rounding: A <= B must
 * hold by a margin of 1e-12 of the units' magnitudes (sums of absolute
 * monomial values), unless the two values are identical; identical
 * partial vectors keep the first. The search goes breadth first, one
 * variable at a time, pruning the table after each. */

/* TUNING: tables smaller than this are not pruned (pruning costs more than
 * it saves; tried 16-1024). */
#define PRUNE_MIN_ROWS 64

/* TUNING: a row is compared with at most this many survivors, the
 * nearest before it in sort order (the likeliest to dominate it). Leaving
 * a dominated row in is safe (the final Pareto pruning drops its leaves);
 * the bound keeps pruning linear in the table. Tried 64-4096 on GPT-3 V. */
#define PRUNE_WINDOW 32

/* Relative margin that covers the rounding of the unit sums. */
#define DOMINANCE_MARGIN 1e-12

/* What a unit is made of, for energy-first dominance (unit_dominates()). */
enum {
  LEX_OTHER = 0,            /* occupancy: never worse */
  LEX_ENERGY,               /* never worse; below breaks the tie */
  LEX_LATENCY,              /* never worse unless energy is below */
};

/* A table of partial tile vectors at one depth. Values and magnitudes sit
 * in separate arrays, as the children's unit sums make them; pruning
 * gathers them, interleaved, in sort order (PruneScratch). Its buffers are
 * reserved from the generation's memory budget (ffm-memory-budget.h) and
 * keep their capacity from depth to depth and template to template. */
typedef struct {
  guint n_rows;
  FfmBudgetBuffer chains;   /* of guint32, n_vars per row */
  FfmBudgetBuffer vals;     /* of double, n_units per row: unit values */
  FfmBudgetBuffer mags;     /* of double, n_units per row: their magnitudes */
  FfmBudgetBuffer diff;     /* of guint64, n_diff per row */
} Table;

#define TABLE_CHAINS(t) ((guint32 *) (t)->chains.data)

#define TABLE_VALS(t) ((double *) (t)->vals.data)

#define TABLE_MAGS(t) ((double *) (t)->mags.data)

#define TABLE_DIFF(t) ((guint64 *) (t)->diff.data)

/* Whether A is worse than B in unit @u, by the rounding margin where the
 * two differ. */
static inline gboolean
unit_worse (const double *a, const double *b, guint u)
{
  double av = a[2 * u], bv = b[2 * u];
  return av > bv
    || (av < bv && av > bv - DOMINANCE_MARGIN * (a[2 * u + 1] + b[2 * u + 1]));
}

/* A <= B in every unit, by the rounding margin where the two differ; @a
 * and @b interleave each unit's value and magnitude. Equal values pass; a
 * larger one fails at once (the margin only ever asks more of A).
 *
 * With @lex (energy first, ties broken by latency): A <= B in every energy
 * and occupancy unit, and A below B (by the margin) in some energy unit
 * or A <= B in every latency unit. Below in an energy unit, every
 * completion of A has less energy than the same completion of B (each
 * unit's completion factor is positive; without leak energy is a sum of
 * units), so B is never the cheapest and its latency never matters;
 * otherwise A's energy is never above B's and its latency, every port's,
 * never either.
 *
 * @fail (< @n_units): the unit where A was worse last time, checked first
 * and updated (a row survives the window only after failing every
 * candidate; its neighbours in sort order mostly agree with it on the
 * units the last variables left alone and differ in the same few). */
static inline gboolean
unit_dominates (const double *a, const double *b, guint n_units,
                const guint8 *lex, guint *fail)
{
  gboolean below = FALSE, latency_ok = TRUE;

  if (n_units > 0 && (lex == NULL || lex[*fail] != LEX_LATENCY)
      && unit_worse (a, b, *fail))
    return FALSE;
  for (guint u = 0; u < n_units; u++)
    {
      gboolean worse = unit_worse (a, b, u);
      if (lex != NULL && lex[u] == LEX_LATENCY)
        latency_ok &= !worse;
      else if (worse)
        {
          *fail = u;
          return FALSE;
        }
      else if (lex != NULL && lex[u] == LEX_ENERGY && a[2 * u] < b[2 * u])
        below = TRUE;
    }
  return below || latency_ok;
}

static inline guint64
hash_diff (const guint64 *diff, guint n)
{
  guint64 h = G_GUINT64_CONSTANT (1469598103934665603);
  for (guint i = 0; i < n; i++)
    {
      h ^= diff[i];
      h *= G_GUINT64_CONSTANT (1099511628211);
      h ^= h >> 29;
    }
  return h;
}

static inline gboolean
diff_equal (const guint64 *a, const guint64 *b, guint n)
{
  for (guint i = 0; i < n; i++)
    if (a[i] != b[i])
      return FALSE;
  return TRUE;
}

/* Scratch space of table_prune, kept in the thread's workspace so that
 * pruning every row's children, at every depth of every template,
 * allocates nothing once it has grown; sized from the rows and units of
 * the table being pruned, within the memory budget. */
typedef struct {
  FfmBudgetBuffer keys;     /* of FfmRowKey */
  FfmBudgetBuffer kept;     /* of guint */
  FfmBudgetBuffer alive;    /* of gboolean */
  FfmBudgetBuffer vals;     /* of double: the rows' values and magnitudes,
                               interleaved, in sort order */
} PruneScratch;

/* What one thread's searches reuse from template to template: the tables
 * of two depths and the pruning scratch. Their buffers keep their
 * capacity, so that the search neither reallocates nor faults fresh pages
 * in for every depth of every template; that capacity is reserved from
 * @budget, the generation's, until the workspace is freed. */
struct _FfmTileWorkspace {
  Table tables[MAX_VARS + 1];   /* per depth: the chunk being extended */
  PruneScratch scratch;
  FfmMemoryBudget *budget;  /* borrowed; NULL: unlimited */
  struct TileChainCache *chain_cache;  /* the chain sets of its templates
                                          (tiles_chains_take()), or NULL */
};

/* Whether tiles_search_leaves() compares complete rows by fewer slots than
 * their units. */
static inline gboolean
leaves_pruned (const FfmTileSearch *en)
{
  return en->n_leaf_slots > 0 && en->n_leaf_slots < en->n_units[en->n_vars]
    && !en->every_leaf;
}

/* ffm-pmapping-tiles-setup.c */
/* The search order @order, and the reach that dim_reach() reads from it. */
void tiles_set_order (FfmTileSearch *en, const guint *order);
/* Everything the search reads of the template, compiled; FALSE when the
 * template has no valid vector (a rejection recorded, or a chain-less
 * variable). */
gboolean tiles_setup (FfmTileSearch *en, const FfmWorkload *w, const FfmArch *a,
                      const gboolean *untracked);

/* ffm-pmapping-tiles-chains.c */
/* Sets en->chain_set[@v] and what the search reads of it (chains,
 * buckets, n_chains, chain_dim): from the workspace's cache when a set of
 * the same key is there, else built (and cached when the budget allows).
 * The key is what the chains depend on: the variable's bound, each of its
 * loops' kind (temporal or spatial, its fanout dimension and that
 * dimension's count, fused or not), the fused-loop limits and the
 * remainder tiles; variables with fixed tiles (constraints) are built. */
void tiles_chains_take (FfmTileSearch *en, guint v);
/* Fills @out[c x @stride] with ffm_terms_var_factor() of each chain c of
 * @v, for the loops of @v in @mask down to loop @pos: from the set's
 * column of the same descriptor when it has one. */
void tiles_chains_factors (FfmTileSearch *en, guint v, guint64 mask, int pos,
                           double *out, gsize stride);
/* Drops the template's own sets and its borrowings. */
void tiles_chains_release (FfmTileSearch *en);
/* The cache of workspace @ws (at a template's start): cleared when it
 * holds more than its share. */
struct TileChainCache *tiles_chain_cache_get (FfmTileWorkspace *ws);
void tiles_chain_cache_free (struct TileChainCache *cache);

/* ffm-pmapping-tiles-units.c */
/* The position in @order of the variable of most live chains. */
guint tiles_most_chains_position (const FfmTileSearch *en, const guint *order);
/* The units of partial dominance for the greedy order, or with the
 * variable of most chains last (@chains_last); FALSE when the terms are
 * too many to compare (the search then goes depth first). */
gboolean tiles_setup_units (FfmTileSearch *en, gboolean chains_last);
void tiles_free_units (FfmTileSearch *en);

/* ffm-pmapping-tiles-dfs.c */
/* Whether some completion of the variables chosen before @depth fits every
 * memory (rejections recorded). */
gboolean tiles_capacity_ok (FfmTileSearch *en, guint depth);
/* The survivors' lists (en->survivors), allocated at the first use. */
void tiles_survivor_lists (FfmTileSearch *en);
/* The buckets of depth @depth's variable that pass at the node's spatial
 * products and fused loops, into @s. */
void tiles_passing_buckets (FfmTileSearch *en, guint depth, struct Survivors *s);
/* The depth-first search from @depth to the leaves. */
void tiles_dfs (FfmTileSearch *en, guint depth);
/* The highest usage score of a valid vector (en->best_score), by a
 * depth-first branch and bound ("try best"). */
void tiles_probe_best_usage (FfmTileSearch *en);

/* ffm-pmapping-tiles-table.c */
gsize tiles_table_row_bytes (const FfmTileSearch *en, guint n_units);
gboolean tiles_table_try_reserve (FfmTileSearch *en, Table *t, gsize n_rows, guint n_units,
                                  gboolean fatal);
gboolean tiles_table_reserve (FfmTileSearch *en, Table *t, gsize n_rows, guint n_units);
gboolean tiles_prune_scratch_try_reserve (FfmTileSearch *en, PruneScratch *s, guint n_rows,
                                          guint n_units, gboolean fatal);
gboolean tiles_prune_scratch_reserve (FfmTileSearch *en, PruneScratch *s, guint n_rows,
                                      guint n_units);
/* Rows that @t and @s hold at @n_units units without growing. */
gsize tiles_rows_reserved (const FfmTileSearch *en, const Table *t, const PruneScratch *s,
                           guint n_units);
/* Sets en->tiles for the variables chosen in row @r of @t (depth @k). */
void tiles_restore_row (FfmTileSearch *en, const Table *t, guint r, guint k);
void tiles_table_move_row (const FfmTileSearch *en, Table *t, guint from, guint to,
                           guint n_units);
/* Drops the rows from @first on that another row of the same diff
 * dominates (unit_dominates() with @lex); FALSE out of memory. */
gboolean tiles_table_prune (FfmTileSearch *en, Table *t, guint first, guint n_units,
                            const guint8 *lex, PruneScratch *ps);
/* tiles_table_prune() of the whole table, or of a sample of it when the
 * sample drops fewer than 1 in @futile_ratio rows. */
gboolean tiles_table_prune_sampled (FfmTileSearch *en, Table *t, guint n_units,
                                    const guint8 *lex, guint futile_ratio, PruneScratch *ps);
/* A complete row's slots (value and magnitude interleaved) into @to. */
void tiles_leaf_slots (const FfmTileSearch *en, const Table *t, guint r, double *to);
/* Check mode: row @r's units against the terms at its tiles. */
void tiles_check_table_row (FfmTileSearch *en, const Table *t, guint r);

/* ffm-pmapping-tiles-extend.c */
/* Extends the rows of @in (depth @k) from *@next on into @out, at most
 * about @max_rows rows; FALSE out of memory or time. */
gboolean tiles_table_extend (FfmTileSearch *en, const Table *in, guint k, Table *out,
                             FfmTileWorkspace *ws, guint *next, guint max_rows);

/* ffm-pmapping-tiles-incumbent.c */
/* Sets up the bound of partial rows against the template's front, for the
 * search order chosen (the units and factors of each depth), when the
 * template has a front with points and cost terms, and no minimum usage
 * applies; otherwise (and after tiles_incumbent_free()) front_phi is
 * NULL and no row is held to it. */
void tiles_incumbent_setup (FfmTileSearch *en);
void tiles_incumbent_free (FfmTileSearch *en);
/* Whether a pmapping of the front beats every completion of row @r of
 * table @t, of depth @k (counted in en->n_beaten). */
gboolean tiles_incumbent_beats (FfmTileSearch *en, const Table *t, guint r, guint k);
/* Whether every child of a row of depth @k (its @units and @diff)
 * through bucket @b of order[k] (en->used[k + 1]: the bucket's spatial
 * products) is beaten by a pmapping found: the row's units carried with
 * the least factors over the bucket's chains. FALSE when the test is off
 * at depth k (en->front_bucket_phi[k] NULL). */
gboolean tiles_incumbent_beats_bucket (FfmTileSearch *en, const double *units,
                                       const guint64 *diff, guint k, guint b);

/* ffm-pmapping-tiles-group-front.c */
/* Sets up en->group_front (ffm-pmapping-tiles-incumbent.c says what it
 * is for), or leaves it NULL when its test cannot be made (remainder
 * tiles, energy no objective, a tracked reservation it cannot bound). */
void tiles_group_front_setup (FfmTileSearch *en);
void tiles_group_front_free (FfmTileSearch *en);
/* A leaf a group took (en->tiles, en->cost) joins the group front. */
void tiles_group_front_add_leaf (FfmTileSearch *en);
/* Whether rows of depth @k with fused tiles @diff have points to be held
 * to (then tiles_group_front_least_energy() reads them). */
gboolean tiles_group_front_has_points (FfmTileSearch *en, const guint64 *diff, guint k);
/* The least energy of those points with latency at most @latency and, in
 * each occupancy class, no more bits than a row whose units carried to
 * the last depth with the least factors are @cur (INFINITY: none): the
 * row is beaten when it is below the row's energy bound (margin taken). */
double tiles_group_front_least_energy (FfmTileSearch *en, const double *cur, double latency);

/* ffm-pmapping-tiles-leaves.c */
/* Evaluates the complete rows of @t that no taken leaf of their diff
 * beats. */
void tiles_search_leaves (FfmTileSearch *en, const Table *t, PruneScratch *ps);

/* Whether leaf @a beats the bound @slots of a group of complete rows
 * (@exact: its slots that are exact) in every slot: as unit_dominates()
 * where the slot is exact, else below the bound by the rounding margin
 * (so below every child by it). */
static inline gboolean
tiles_bound_beaten_by (const double *a, const double *slots, const guint8 *exact, guint ns)
{
  gboolean beats = TRUE;
  for (guint x = 0; x < ns && beats; x++)
    beats = exact[x] ? !unit_worse (a, slots, x)
      : a[2 * x] <= slots[2 * x] - DOMINANCE_MARGIN * (a[2 * x + 1] + slots[2 * x + 1]);
  return beats;
}

/* ffm-pmapping-tiles-taken.c */
/* Leaves filtered together (a record's room is a multiple of it), the
 * leaf of a position that holds none, and the slots by which a record's
 * leaves are also laid out sorted (the first ones). */
#define TAKEN_FLAT_BLOCK 8u
#define TAKEN_FLAT_NONE G_MAXUINT32
#define TAKEN_SORTED_SLOTS 4u

/* A record's leaves in the store: its segment of the arena (position,
 * room and leaves), the leaves listed since (on its list: first) and laid
 * out but beaten since, and the leaf that answered last + 1. */
typedef struct {
  gsize pos;
  guint32 c, n, listed, beaten, hot;
} TakenSegment;

/* Whether complete rows are checked against the leaves of earlier chunks. */
gboolean tiles_taken_store_on (const FfmTileSearch *en);
void tiles_taken_store_clear (FfmTileSearch *en);
/* The record of @diff (hash @h) + 1, or 0 when no leaf has it. */
guint32 tiles_taken_store_record (const FfmTileSearch *en, const guint64 *diff, guint64 h);
/* The same, asked of every leaf in turn (the check mode's witness). */
gboolean tiles_taken_store_dominates_slowly (FfmTileSearch *en, const guint64 *diff,
                                             const double *slots);
/* Adds a taken leaf of @diff (hash @h) with @slots, unless a leaf of its
 * diff matches or beats it; those it beats leave the store. */
void tiles_taken_store_add (FfmTileSearch *en, const guint64 *diff, guint64 h,
                            const double *slots);
/* Lays the leaves out flat, by record, for the questions of the next
 * extension. */
void tiles_taken_store_flatten (FfmTileSearch *en);

typedef float TakenFloats __attribute__ ((vector_size (4 * sizeof (float))));
typedef gint32 TakenMask __attribute__ ((vector_size (4 * sizeof (gint32))));

/* The number of the @n sorted values of @column at most @q. */
static inline guint
taken_column_rank (const float *column, guint n, float q)
{
  guint lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (column[mid] <= q)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Whether leaf @e matches or beats @slots: unit_dominates() (@bound_exact
 * NULL), else the bucket bounds' test (tiles_bound_beaten_by(),
 * @bound_exact its exact slots). */
static inline gboolean
taken_leaf_passes (FfmTileSearch *en, guint32 e, const double *slots, const guint8 *bound_exact)
{
  guint ns = en->n_leaf_slots;
  const double *a = (const double *) en->taken.slots.data + (gsize) e * 2 * ns;
  return bound_exact == NULL ? unit_dominates (a, slots, ns, NULL, &en->taken.fail)
    : tiles_bound_beaten_by (a, slots, bound_exact, ns);
}

/* A leaf laid out for record @s whose every slot is at most @slots' (its
 * float values filter, @bound_exact then decides: NULL, unit_dominates();
 * else the bucket bounds' test of bound_dominated() in
 * ffm-pmapping-tiles-extend.c, @bound_exact its exact slots), or
 * TAKEN_FLAT_NONE. A dominating leaf has each slot at most the row's, so
 * it is among the leaves of the sorted copy of the slot where the fewest
 * are (a binary search in each); those are filtered eight at a time. */
static inline guint32
taken_flat_find (FfmTileSearch *en, const TakenSegment *s, const double *slots,
                 const guint8 *bound_exact)
{
  guint ns = en->n_leaf_slots, nx = MIN (ns, TAKEN_SORTED_SLOTS), c = s->c;
  const float *values = (const float *) en->taken.arena_values.data + s->pos * ns;
  const guint32 *leaves = (const guint32 *) en->taken.arena_leaf.data + s->pos;
  float q[MAX_VARS * 64];
  guint best = 0, rank = G_MAXUINT;

  for (guint x = 0; x < ns; x++)
    q[x] = (float) slots[2 * x];
  for (guint x = 0; x < nx && rank > 0; x++)
    {
      guint r = taken_column_rank (values + (gsize) x * c * ns + (gsize) x * c, s->n, q[x]);
      if (r < rank)
        best = x, rank = r;
    }
  values += (gsize) best * c * ns;
  leaves += (gsize) best * c;
  /* positions past rank fail at slot best: the blocks may run past it */
  for (guint i = 0; i < rank; i += TAKEN_FLAT_BLOCK)
    {
      TakenMask pass[TAKEN_FLAT_BLOCK / 4];
      gint32 any = 0;
      for (guint h = 0; h < TAKEN_FLAT_BLOCK / 4; h++)
        pass[h] = (TakenMask) { -1, -1, -1, -1 };
      for (guint x = 0; x < ns; x++)
        {
          TakenFloats qx = { q[x], q[x], q[x], q[x] };
          for (guint h = 0; h < TAKEN_FLAT_BLOCK / 4; h++)
            {
              TakenFloats v;
              memcpy (&v, values + (gsize) x * c + i + 4 * h, sizeof v);
              pass[h] &= (TakenMask) (v <= qx);
            }
        }
      for (guint h = 0; h < TAKEN_FLAT_BLOCK / 4; h++)
        any |= pass[h][0] | pass[h][1] | pass[h][2] | pass[h][3];
      if (any == 0)
        continue;
      for (guint j = 0; j < TAKEN_FLAT_BLOCK; j++)
        {
          guint32 e = leaves[i + j];
          if (!pass[j / 4][j % 4] || e == TAKEN_FLAT_NONE)
            continue;
          if (taken_leaf_passes (en, e, slots, bound_exact))
            return e;
        }
    }
  return TAKEN_FLAT_NONE;
}

/* Whether the leaf of record @s that answered last, or one laid out,
 * passes taken_leaf_passes(): the one found answers first next time. */
static inline gboolean
taken_hot_or_flat (FfmTileSearch *en, TakenSegment *s, const double *slots,
                   const guint8 *bound_exact)
{
  guint32 e;

  if (s->hot != 0 && taken_leaf_passes (en, s->hot - 1, slots, bound_exact))
    return TRUE;
  if (s->n == 0 || (e = taken_flat_find (en, s, slots, bound_exact)) == TAKEN_FLAT_NONE)
    return FALSE;
  s->hot = e + 1;
  return TRUE;
}

/* Whether a taken leaf of the diff of @record (tiles_taken_store_record(),
 * not 0) matches or beats @slots in every slot (unit_dominates(), with its
 * rounding margin); here, inline, as tiles_table_extend() asks it for
 * every complete row it writes. GPT-3's V at unlimited fused loops asks
 * 180 M times, 81 % dominated; TPUv1 x GPT-3's Z 4.1 M times of diffs of
 * some 1,300 leaves, two thirds not dominated. A row below every leaf of
 * its diff in some slot is answered by the diff's least values; else the
 * leaf that answered last is asked (a few strong leaves dominate most rows
 * that follow), then the leaves laid out (taken_flat_find()), then those
 * listed since, a dominating one moving to the front of the list. The
 * answer does not depend on the order. */
static inline gboolean
tiles_taken_store_dominates (FfmTileSearch *en, guint32 record, const double *slots)
{
  guint32 *first, *next = en->taken.leaf_next.data;
  const double *stored = en->taken.slots.data, *least;
  TakenSegment *s = (TakenSegment *) en->taken.segments.data + (record - 1);
  guint ns = en->n_leaf_slots;

  /* A leaf dominates only with every slot at most the row's. */
  least = (const double *) en->taken.least.data + (gsize) (record - 1) * ns;
  for (guint x = 0; x < ns; x++)
    if (slots[2 * x] < least[x])
      return FALSE;
  if (taken_hot_or_flat (en, s, slots, NULL))
    return TRUE;
  first = (guint32 *) en->taken.first.data + (record - 1);
  for (guint32 e = *first, prev = 0; e != 0; prev = e, e = next[e - 1])
    if (unit_dominates (stored + (gsize) (e - 1) * 2 * ns, slots, ns, NULL, &en->taken.fail))
      {
        if (prev != 0)
          {
            next[prev - 1] = next[e - 1];
            next[e - 1] = *first;
            *first = e;
          }
        s->hot = e;
        return TRUE;
      }
  return FALSE;
}

/* ffm-pmapping-tiles-leaf.c */
/* Evaluates the vector in en->tiles; TRUE when a group took it. */
gboolean tiles_leaf (FfmTileSearch *en);
/* Records a rejection at @level with @need bits in a memory of @cap (< 0:
 * no capacity involved). */
void tiles_reject_at (FfmTileSearch *en, guint level, double need, double cap);
/* The search needs @bytes more than the budget gives: it stops. */
void tiles_out_of_memory (FfmTileSearch *en, gsize bytes);

/* ffm-pmapping-tiles-joinable.c */
/* Sets up the joinable tensors; FALSE (counted) when every vector of the
 * template has a part its list lacks. */
gboolean tiles_joinable_template_ok (FfmTileSearch *en);
/* Each joinable tensor's depth in the present order, and its list's
 * projections for the depths before. */
void tiles_joinable_depths (FfmTileSearch *en);
void tiles_joinable_free_projections (FfmTileSearch *en);
/* Whether every joinable tensor checked at @depth has, at @tiles, a part
 * its list has. */
gboolean tiles_joinable_ok_at (const FfmTileSearch *en, const guint64 *tiles, guint depth);
/* Whether the leaf in en->compat has, for every joinable tensor, a part
 * its list has. */
gboolean tiles_joinable_leaf_ok (FfmTileSearch *en);

/* ---- The generation (ffm-pmapping.c, -set.c, -waves.c) ----
 *
 * What a generation holds (FfmPmappingSet, per Einsum FfmEinsumPmappings)
 * and its jobs. ffm-pmapping.c runs the phases and the jobs; it calls
 * ffm-pmapping-waves.c (joinable parts between Einsums), which calls
 * ffm-pmapping-set.c (the per-Einsum results), which calls the files of
 * the rows (ffm-pmapping-rows.c) and the options
 * (ffm-pmapping-options.c). */

/* One compatibility group of an Einsum, its rows merged from the
 * templates' groups. */
typedef struct {
  FfmPmappingGroup pub;
  GArray *columns;          /* of FfmPmappingColumn */
  GArray *values;           /* of double */
  GArray *refs;             /* of FfmPmappingRef */
} EinsumGroup;

struct _FfmEinsumPmappings {
  FfmPmappingSet *set;      /* borrowed: the set that holds it */
  guint einsum;
  const FfmEinsum *e;       /* borrowed from the set's workload */
  GPtrArray *templates;     /* of FfmPmappingTemplate* */
  GPtrArray *seed_results;  /* parallel to @templates: the result of the
                               template's search while the templates were
                               built (storage choices bounded), or NULL;
                               taken by the jobs */
  GPtrArray *results;       /* of FfmTemplateResult*, until phase 4; their
                               groups are freed once merged */
  gint pending;             /* templates not enumerated yet (atomic) */
  FfmEinsumPmappings *same_as; /* an earlier Einsum with the same
                                  signature, whose groups these copy */
  GArray *tile_pool;        /* of guint64 */
  GPtrArray *groups;        /* of EinsumGroup* */
  FfmPmappingStats stats;
  guint n_chains_last;      /* templates searched with the variable of most
                               chains last (diagnostics) */
  guint64 n_bucket_cuts;    /* groups of complete rows cut by their bounds
                               (diagnostics) */
  guint n_choices_bounded;  /* storage choices left out by their bound
                               (diagnostics) */
  FfmJoinableParts *joinable; /* the parts its shared tensors may have
                                 (options.drop_unjoinable), or NULL */
  gsize joinable_charged;   /* bytes of @joinable reserved from the budget */
  gboolean copied;          /* @same_as's groups were copied into @groups
                               (einsum_pmappings_copy()) */
  guint64 n_unjoinable;     /* vectors the generation dropped for them */
  guint n_groups_unjoinable; /* groups the finished set dropped */
  gsize charged;            /* bytes of the groups reserved from the set's
                               budget */
  FfmMemoryBudget *budget;  /* borrowed: the set's */
  double *capacity;         /* [n_levels] bits */
  guint objectives;         /* the options' FfmPmappingObjectives */
  FfmPmappingProfile profile; /* its templates' phases summed, its
                                 templates built and groups merged */
  /* Its templates in waves (ffm-pmapping.c, run_jobs()): */
  FfmEinsumFront *front;    /* the pmappings of the waves done, or NULL:
                               every template at once */
  GPtrArray *jobs;          /* of PmappingJob* (borrowed), by template */
  guint wave_begin, wave_end; /* the last wave begun: its templates */
  gint wave_pending;        /* (atomic) templates of the last wave begun
                               not done */
};

struct _FfmPmappingSet {
  FfmWorkload *workload;
  FfmArch *arch;
  FfmPmappingOptions options;
  GPtrArray *einsums;       /* of FfmEinsumPmappings* */
  FfmEinsumPmappings **by_einsum; /* [n workload Einsums], borrowed */
  GArray *tracked;          /* of guint */
  gboolean *untracked_early; /* [n levels]: memories known to be untracked
                               before the search (pmapping_set_memory_untracked_early()),
                               whose reservations no group carries */
  double seconds;
  GAsyncQueue *workspaces;  /* of FfmTileWorkspace*, one per thread, while
                               generating */
  /* Progress (options.progress): templates and Einsums done (atomic), of
   * how many. */
  gint templates_done;
  gint einsums_done;
  guint n_templates;
  FfmBoundConstraints *constraints; /* options.constraints bound; NULL if none */
  FfmMemoryBudget *budget;  /* options.max_memory: every workspace's and
                               result's bytes */
  gint failed;              /* (atomic) a job failed: the others skip */
  GMutex failure_lock;
  GError *failure;          /* the first job's failure, under the lock */
};

/* One job: the tile search of one template. */
typedef struct {
  FfmPmappingSet *set;
  FfmEinsumPmappings *pm;
  guint template_id;
  gboolean searched;        /* its result is the storage choices' seed
                               search's: nothing to enumerate */
  guint position;           /* in the list run_jobs() runs */
} PmappingJob;

struct _FfmPmappingJobs {
  FfmPmappingSet *set;      /* owned until jobs_finish() (ffm-pmapping.c) */
  GPtrArray *jobs;          /* of PmappingJob*: the first wave's first */
  guint n_threads;
  gint64 start;
  guint n_first;            /* jobs of the first wave (0: one wave) */
  gboolean *wave1;          /* [n workload Einsums]: in the first wave */
  gboolean second_begun;    /* the second wave's parts are set */
};

/* ffm-pmapping-set.c */
void pmapping_group_free (EinsumGroup *g);
/* The bytes of @g's rows, as charged to the budget. */
gsize pmapping_group_bytes (const EinsumGroup *g);
void einsum_pmappings_free (FfmEinsumPmappings *pm);
/* Merges the templates' groups of @pm in template order (phase 3). */
void einsum_pmappings_merge (FfmEinsumPmappings *pm);
/* Charges to the budget the groups @pm copies from @from; FALSE (the
 * generation failed) when they do not fit. */
gboolean einsum_pmappings_charge_copy (FfmPmappingSet *set, FfmEinsumPmappings *pm,
                                       const FfmEinsumPmappings *from);
/* @pm's groups: a copy of @from's, renamed to @pm's tensors. */
void einsum_pmappings_copy (FfmEinsumPmappings *pm, const FfmEinsumPmappings *from);
/* Moves the tiles of @pm's rows into one pool, in row order. */
void einsum_pmappings_compact_tiles (FfmEinsumPmappings *pm);
/* Releases the budget's charge for rows the finished set dropped. */
void einsum_pmappings_recharge (FfmEinsumPmappings *pm);
/* The generation needs @asked bytes more than its budget for @what. */
void pmapping_set_fail_out_of_memory (FfmPmappingSet *set, const char *what, guint64 asked);
/* After a template ran: an out-of-memory stop fails the generation. */
void pmapping_set_check_template_result (FfmPmappingSet *set, FfmEinsumPmappings *pm,
                                         guint template_id, const FfmTemplateResult *r);
/* Whether a job failed (the others skip). */
gboolean pmapping_set_failed (FfmPmappingSet *set);
/* Why @pm's Einsum has no pmapping, as @error. */
void pmapping_set_no_pmapping_error (FfmPmappingSet *set, FfmEinsumPmappings *pm,
                                     GError **error);
/* Which mapping constraints leave Einsum @einsum no template, as @error. */
void pmapping_set_unsatisfiable_error (FfmPmappingSet *set, guint einsum, const GError *cause,
                                       GError **error);
/* Whether memory @level is untracked, known from the templates alone. */
gboolean pmapping_set_memory_untracked_early (FfmPmappingSet *set, guint level);
/* Whether the join must track memory @level's reservations. */
gboolean pmapping_set_memory_is_tracked (FfmPmappingSet *set, guint level);
/* Drops the columns of untracked memories from @pm's groups and prunes
 * them again (phase 4). */
void pmapping_set_drop_untracked (FfmPmappingSet *set, FfmEinsumPmappings *pm);

/* ffm-pmapping-waves.c */
/* Orders @jobs in two waves (options.drop_unjoinable), or leaves one. */
void pmapping_jobs_order_in_waves (FfmPmappingJobs *jobs);
/* Drops the groups whose part some other user of the tensor lacks, until
 * none does. */
void pmapping_set_drop_unjoinable_groups (FfmPmappingSet *set);

G_END_DECLS
