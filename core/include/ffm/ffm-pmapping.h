/* ffm-pmapping.h: single-Einsum exploration, the first phase of FFM.
 *
 * For each Einsum alone, the generator produces every pmapping (partial
 * mapping: the mapping of one Einsum) that could be part of an optimal full
 * mapping, grouped by compatibility, each group a Pareto table ready for the
 * join [1, §6.1 "Fast Single-Einsum Pmapping Generation"; 2]. The steps, per Einsum and
 * per compute unit that serves it:
 *   1. storage choices: which memory keeps which tensor (must-keep and
 *      may-keep sets of the architecture), which includes every possible
 *      backing memory of every shared tensor (the outermost memory =
 *      unfused, an on-chip memory = fused there);
 *   2. storage-node orders (memories outer to inner; any order inside one
 *      memory), temporal loops between storage nodes (one canonical set per
 *      gap: orders that cannot change a count are collapsed), spatial loops
 *      for each fanout; the result is a *template*: a LoopTree path whose
 *      loop tiles are still free;
 *   3. tile shapes: every perfect factorization of every rank variable over
 *      its loops, with exact pruning (capacity and fanout bounds that are
 *      monotone in the tiles; dominance of partial cost terms), evaluated
 *      with the cost model (ffm-cost.h);
 *   4. grouping: each evaluated pmapping gets its compatibility
 *      (ffm-compatibility.h) and its row (objectives, reservations); rows are
 *      Pareto-pruned inside each group (ffm-pareto.h).
 * Every rule that drops a template or a tile vector is argued next to the
 * code (core/ffm-pmapping-template.c, core/ffm-pmapping-tiles.c) and
 * checked against brute force in tests/test-pmapping.c; docs/
 * pmapping-generator.md describes the whole.
 *
 * What the join reads:
 *   - per Einsum (FfmEinsumPmappings) a list of groups (FfmPmappingGroup);
 *   - a group = its FfmCompatibility (per shared tensor: backing memory,
 *     persistent flag, its fused loops as (rank of that tensor, iterations,
 *     spatial or temporal), its backing tile's occupancy; the reservation
 *     depths that stop loop permutations) + a flat row-major table of
 *     doubles, n_rows x n_columns, whose columns the group lists
 *     (FfmPmappingColumn): the objectives, then the reservations of every
 *     tracked memory at every lifetime depth -1 .. n_loops;
 *   - per row a compact reference (template + tiles) from which
 *     ffm_einsum_pmappings_rebuild() makes the pmapping's LoopTree path.
 * The fused loops' iteration counts are part of the compatibility, not
 * columns: two rows of one group have the same fused tiles, so the join
 * matches groups, never rows.
 *
 * Reservations [1, §5; 2]: a storage node reserves its tile in its
 * memory; the reservation's lifetime depth d is the number of fused loops
 * (of more than one iteration) above it, -1 for persistent tiles (the whole
 * workload), and n_loops for everything below all fused loops (those live
 * only while this Einsum runs). Column (memory L, depth d) holds the bits
 * reserved in L at depth <= d: cumulative, so it never decreases with d,
 * and the column at depth n_loops is the pmapping's whole use of L. A
 * memory that is not listed (not tracked) has no reservation the join
 * needs: it is infinite, it can hold every tensor of the workload at once,
 * or every Einsum uses it only below all its fused loops and never backs a
 * shared tensor in it (then each pmapping's own capacity check suffices).
 *
 * Units: energy J, latency s, reservations and occupancy in bits.
 * Determinism: the result (groups, their order, rows, their order) is the
 * same for every thread count and every run.
 *
 * [1] The FFM paper, §3-§6.
 * [2] the reference implementation, accelforge: its pmapping generator
 *     (mapper/FFM/_make_pmappings) and the reservation columns of its join
 *     (mapper/FFM/_join_pmappings). */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-workload.h>
#include <ffm/ffm-arch.h>
#include <ffm/ffm-mapping.h>
#include <ffm/ffm-cost.h>
#include <ffm/ffm-compatibility.h>
#include <ffm/ffm-constraints.h>
#include <ffm/ffm-problem.h>

G_BEGIN_DECLS

/* ---- Options ---- */

/* Objectives kept Pareto-optimal (bit flags). EDP needs both: it is not
 * additive over Einsums, so it is computed from the totals after the join.
 * With both, ENERGY_FIRST or LATENCY_FIRST makes the pair lexicographic
 * (an objective with a tie-break): a row is then dropped when another row
 * of its group is no worse in every reservation and better in the first
 * objective, or equal in it and no worse in the second. */
typedef enum {
  FFM_PMAPPING_ENERGY = 1 << 0,
  FFM_PMAPPING_LATENCY = 1 << 1,
  FFM_PMAPPING_ENERGY_FIRST = 1 << 2,   /* energy, ties broken by latency */
  FFM_PMAPPING_LATENCY_FIRST = 1 << 3,  /* latency, ties broken by energy */
} FfmPmappingObjectives;

/* The objectives a search for @objective keeps: energy and latency for
 * EDP and the Pareto set; for energy (latency) both, energy (latency)
 * first, so that the mapping returned is, among those of least energy
 * (latency), one of least latency (energy). */
FFM_API guint ffm_pmapping_objectives_for (FfmObjective objective);

/* Where the generation is, for a progress line: counts so far and the
 * Einsum a template of which has just started or ended. */
typedef struct {
  guint einsums_done;           /* Einsums whose pmappings are complete */
  guint n_einsums;              /* Einsums to generate */
  guint templates_done;         /* templates enumerated, over all Einsums */
  guint n_templates;            /* templates to enumerate (Einsums equal to
                                   an earlier one have none: they copy it) */
  int einsum;                   /* workload index of that Einsum, -1 */
  const char *einsum_name;      /* its name (transfer none), NULL */
} FfmPmappingProgress;

/* Called by the generator's worker threads when a template starts and
 * when it ends; several threads may call it at once, so it must be
 * thread-safe, and cheap. */
typedef void (*FfmPmappingProgressFunc) (const FfmPmappingProgress *progress,
                                         gpointer user_data);

/* "Einsum 3 of 7 (QK), template 120 of 450" in @buffer (of @size bytes,
 * NUL-terminated, cut if too short): the text a strategy passes on as its
 * progress phase. */
FFM_API void ffm_pmapping_progress_format (const FfmPmappingProgress *progress,
                                           char *buffer,
                                           gsize size);

/* The generator's options. Callers fill them with
 * ffm_pmapping_options_init() (a macro that passes the caller's own
 * sizeof), so that fields appended in later versions get their defaults
 * when a plugin built before them calls the generator: the library reads
 * only the first struct_size bytes. */
typedef struct {
  gsize struct_size;            /* set by ffm_pmapping_options_init() */
  guint objectives;             /* FfmPmappingObjectives; default both */
  int max_fused_loops;          /* fused loops of more than one iteration per
                                   pmapping; negative = no limit, the
                                   default (as the reference's; 1 is its
                                   regression tests' setting) */
  int max_fused_loops_per_rank_var; /* same, per rank variable; default 1;
                                       negative = no limit */
  guint n_threads;              /* worker threads; 0 = one per processor */
  int einsum;                   /* generate for this Einsum only; -1 = all */
  gboolean unfused;             /* every shared tensor backed in the
                                   outermost memory (no fusion) */
  gboolean reserved_[2];        /* ignored (the library's own use, in its
                                   copy of the options) */
  gboolean reuse_equal_einsums; /* default TRUE: an Einsum whose shape, tensor
                                   classes and architecture answers equal an
                                   earlier Einsum's gets a copy of its
                                   pmappings (tensors renamed) instead of a
                                   second enumeration; FALSE enumerates every
                                   Einsum (the result is the same) */
  const gint *cancel;           /* NULL, or a flag another thread (a signal
                                   handler, a timer) sets non-zero to stop the
                                   generation: it then fails with
                                   FFM_SEARCH_ERROR_CANCELLED (read with
                                   g_atomic_int_get; default NULL) */
  FfmPmappingProgressFunc progress; /* NULL, or called as templates start
                                       and end (default NULL) */
  gpointer progress_data;       /* passed to progress */
  guint imperfect;              /* FfmImperfect: the loops whose tiles need
                                   not divide their enclosing tile (default
                                   none: perfect factorization). Its tile
                                   sizes: docs/pmapping-generator.md,
                                   "Remainder tiles" */
  const FfmConstraints *constraints; /* NULL, or the mapping constraints
                                   every pmapping satisfies
                                   (ffm-constraints.h; default NULL); the
                                   generation binds them to the workload and
                                   architecture and fails, naming the
                                   constraint, when they do not bind or leave
                                   an Einsum no pmapping */
  guint64 max_memory;           /* bytes the generation may hold at once in
                                   its tables and Pareto rows; 0 (default) =
                                   ffm_pmapping_default_max_memory(); past
                                   it the generation fails with
                                   FFM_SEARCH_ERROR_OUT_OF_MEMORY naming the
                                   Einsum and template (docs/limits.md) */
  double max_template_seconds;  /* > 0: a template's tile search stops after
                                   this many seconds of its thread's time and
                                   keeps what it found; default 0 (none). A
                                   search cut so is no longer proven optimal
                                   (FfmPmappingStats.n_templates_cut) */
  guint max_templates;          /* > 0: at most this many templates per
                                   Einsum (the first ones, in the generator's
                                   order); default 0 (all). Cutting any makes
                                   the search not proven optimal */
  gboolean drop_unjoinable;     /* default FALSE; TRUE (every Einsum
                                   generated): leave out the pmappings no
                                   pmapping of another Einsum sharing a
                                   tensor agrees with on that tensor's
                                   backing memory and fused loops, which no
                                   join can use: Einsums with no tensor of
                                   their own are generated first, the others
                                   skip what those rule out, and the finished
                                   set drops such groups (the FFM strategy
                                   sets it; docs/pmapping-generator.md) */
} FfmPmappingOptions;

/* The default memory budget, in bytes: ffm_memory_budget_default_limit(),
 * three quarters of what the machine, the process's limits and its control
 * group leave it. */
FFM_API guint64 ffm_pmapping_default_max_memory (void);

/* Fills the first @struct_size bytes of @options with the defaults and
 * records @struct_size; use the macro below. */
FFM_API void ffm_pmapping_options_init_sized (FfmPmappingOptions *options,
                                              gsize struct_size);

/* Fills @options with the defaults. */
#define ffm_pmapping_options_init(options) \
  ffm_pmapping_options_init_sized ((options), sizeof *(options))

/* Fills the first @struct_size bytes of @options with the defaults, then
 * with what a search's @context sets of the space and its limits: the
 * objective's rows (ffm_pmapping_objectives_for()), the fused-loop limits,
 * fusion off, threads, imperfect factorization, constraints, cancellation,
 * and the memory, per-template time and template budgets (each only if the
 * context has it, by its struct_size). The one copy every strategy makes,
 * so that ffm, exhaustive search and the baselines' mapspace search the
 * same space; progress and a strategy's own parameters are the caller's.
 * Use the macro below. */
FFM_API void ffm_pmapping_options_init_from_context_sized (FfmPmappingOptions *options,
                                                           gsize struct_size,
                                                           const FfmSearchContext *context);

/* Fills @options for a search with @context. */
#define ffm_pmapping_options_init_from_context(options, context) \
  ffm_pmapping_options_init_from_context_sized ((options), sizeof *(options), (context))

/* The tiles the mapspace allows a loop that may have a remainder, inside a
 * block of @enclosing: for every iteration count n from 1 to @enclosing
 * the smallest tile giving n iterations, ceil(@enclosing / n) (every
 * divisor is one), largest first, appended to @out (of guint64). Which
 * loops may: docs/pmapping-generator.md, "Remainder tiles" (the first loop
 * of more than one iteration of each rank variable, if its kind is in
 * FfmPmappingOptions.imperfect; the loops below it divide). */
FFM_API void ffm_pmapping_remainder_tile_sizes (guint64 enclosing, GArray *out);

/* TRUE if @options asks the generator to stop (its cancel flag is set). */
FFM_API gboolean ffm_pmapping_options_is_cancelled (const FfmPmappingOptions *options);

/* ---- Groups ---- */

typedef enum {
  FFM_PMAPPING_COLUMN_ENERGY = 1,       /* J */
  FFM_PMAPPING_COLUMN_LATENCY,          /* s */
  FFM_PMAPPING_COLUMN_RESERVATION,      /* bits reserved in `level` at depth <= `depth` */
} FfmPmappingColumnKind;

/* What one column of a group's table holds. */
typedef struct {
  FfmPmappingColumnKind kind;
  guint level;              /* RESERVATION: the memory's architecture level */
  int depth;                /* RESERVATION: lifetime depth, -1 .. n_loops */
} FfmPmappingColumn;

/* Where a row comes from: a template of its Einsum and an offset into the
 * Einsum's tile pool, where the template's n_loops tiles start. */
typedef struct {
  guint32 template_id;
  guint32 tiles;
} FfmPmappingRef;

/* One compatibility group of one Einsum: every row is a Pareto-optimal
 * pmapping with this compatibility. */
typedef struct {
  FfmCompatibility compat;
  guint n_columns;
  const FfmPmappingColumn *columns;  /* [n_columns]: objectives first (energy
                                        before latency), then reservations by
                                        memory (architecture order) and depth */
  guint n_rows;
  const double *values;             /* [n_rows * n_columns], row-major */
  const FfmPmappingRef *refs;       /* [n_rows] */
} FfmPmappingGroup;

/* The index of @group's column holding (@kind, @level, @depth), or -1;
 * @level and @depth are ignored for objective columns. */
FFM_API int ffm_pmapping_group_find_column (const FfmPmappingGroup *group,
                                            FfmPmappingColumnKind kind,
                                            guint level,
                                            int depth);

/* What the generation of one Einsum did. */
typedef struct {
  guint n_templates;        /* templates enumerated (all compute paths) */
  guint64 n_evaluated;      /* tile vectors evaluated by the cost model */
  guint64 n_valid;          /* of those, valid (fit, fanout, minimum usage) */
  guint64 n_partial;        /* partial tile vectors visited before the leaves */
  guint n_groups;
  guint64 n_rows;           /* Pareto survivors over all groups */
  double seconds;           /* thread time spent on this Einsum, s */
  int reused_from;          /* workload index of the Einsum whose pmappings
                               these copy (reuse_equal_einsums; then
                               n_evaluated, n_valid, n_partial and seconds
                               are 0), -1 when enumerated */
  guint n_templates_cut;    /* templates stopped by max_template_seconds or
                               left out by max_templates: when not 0 the
                               pmappings are no longer proven to hold the
                               optimum */
} FfmPmappingStats;

/* Where the generation of one Einsum spent its time: CPU seconds of the
 * threads that worked on it, by phase, and the sizes the phases handled
 * (`ffm map --stats`; docs/pmapping-generator.md,
 * "Where the time goes"). An Einsum whose pmappings copy an earlier
 * one's builds its templates and searches none (the rest is zero), and
 * templates enumerated by other processes (MPI) add nothing to the tile
 * search's phases. The phases nest: cpu_tiles holds cpu_order,
 * cpu_extend (with the pruning of one parent's children among
 * themselves), cpu_partial_pruning, cpu_leaves and the tile search's
 * setup and depth-first searches. */
typedef struct {
  double cpu_templates;       /* its templates built (storage choices,
                                 node orders, loops) */
  double cpu_tiles;           /* the tile search of every template */
  double cpu_order;           /* the pilots choosing each template's
                                 search order */
  double cpu_extend;          /* tables of partial tile vectors extended
                                 by one rank variable */
  double cpu_partial_pruning; /* whole tables of partial vectors pruned by
                                 partial dominance */
  double cpu_leaves;          /* the last depth: complete vectors pruned
                                 by the groups' slots, evaluated by the
                                 cost model */
  double cpu_groups;          /* compatibility groups: each template's
                                 groups pruned as rows arrive (also part
                                 of cpu_tiles) and at its end, then merged
                                 and pruned per Einsum */
  guint64 n_partial_rows;     /* partial tile vectors written to tables */
  guint64 peak_table_rows;    /* most rows one table held */
  guint64 n_chain_sets;       /* rank variables whose tile chains the
                                 templates' searches set up */
  guint64 n_chain_sets_shared; /* ... of them taken from the set-up an
                                 earlier template of the same thread left
                                 (docs/pmapping-generator.md, "Set-up
                                 shared between templates") */
  guint64 n_partial_beaten;   /* partial tile vectors not extended: a
                                 pmapping found beats every completion's
                                 bound (an Einsum that is a workload of
                                 its own; docs/pmapping-generator.md,
                                 "Partial vectors against the pmappings
                                 found") */
} FfmPmappingProfile;

typedef struct _FfmEinsumPmappings FfmEinsumPmappings;
typedef struct _FfmPmappingSet FfmPmappingSet;

/* ---- Generating ---- */

/* Generates the pmappings of every Einsum of @workload (or of
 * @options->einsum only) on @arch. @options may be NULL (defaults).
 * Spreads Einsums and templates over a thread pool; the result does not
 * depend on the number of threads.
 *
 * Fails with FFM_MAPPING_ERROR_INVALID when an architecture expression
 * cannot be evaluated for an Einsum, when no compute unit serves an Einsum,
 * when a tensor can be kept nowhere, or when an Einsum has no valid
 * pmapping at all: the message names the Einsum and the memory (or fanout)
 * that even the smallest tiles overflow, e.g. "Einsum QK: no pmapping fits:
 * LocalBuffer needs at least 4096 bits for one tile of each tensor it must
 * keep, it holds 2048". (transfer full) */
FFM_API FfmPmappingSet *ffm_pmappings_generate (FfmWorkload *workload,
                                                FfmArch *arch,
                                                const FfmPmappingOptions *options,
                                                GError **error);
FFM_API void ffm_pmapping_set_free (FfmPmappingSet *set);

/* The workload and architecture the set was generated for (transfer
 * none: the set holds references until it is freed). */
FFM_API FfmWorkload *ffm_pmapping_set_get_workload (const FfmPmappingSet *set);
FFM_API FfmArch *ffm_pmapping_set_get_arch (const FfmPmappingSet *set);
FFM_API const FfmPmappingOptions *ffm_pmapping_set_get_options (const FfmPmappingSet *set);
/* Einsums generated, in workload order (all of them unless
 * options->einsum was set). */
FFM_API guint ffm_pmapping_set_get_n_einsums (const FfmPmappingSet *set);
FFM_API const FfmEinsumPmappings *ffm_pmapping_set_get_einsum (const FfmPmappingSet *set,
                                                               guint index);
/* The pmappings of workload Einsum @einsum, or NULL if not generated. */
FFM_API const FfmEinsumPmappings *ffm_pmapping_set_lookup_einsum (const FfmPmappingSet *set,
                                                                  guint einsum);
/* Memories whose reservations the tables carry (architecture levels,
 * outermost first; transfer none). */
FFM_API const guint *ffm_pmapping_set_get_tracked_levels (const FfmPmappingSet *set,
                                                          guint *n_levels);
/* The constraints the pmappings satisfy, bound to the set's workload and
 * architecture, or NULL when there are none (transfer none). */
FFM_API const FfmBoundConstraints *ffm_pmapping_set_get_constraints (const FfmPmappingSet *set);
/* Wall time of the whole generation, s. */
FFM_API double ffm_pmapping_set_get_seconds (const FfmPmappingSet *set);
/* Templates cut by max_template_seconds or max_templates over every
 * Einsum: when not 0 the pmappings are not proven to hold the optimum. */
FFM_API guint ffm_pmapping_set_get_n_templates_cut (const FfmPmappingSet *set);
/* With options.drop_unjoinable: partial and complete tile vectors the
 * generation skipped for a shared tensor's part (*@vectors, may be NULL),
 * and the groups the finished set then dropped (returned); 0 without. */
FFM_API guint ffm_pmapping_set_get_n_unjoinable (const FfmPmappingSet *set,
                                                 guint64 *vectors);
/* Bytes the set still holds of its memory budget (its Pareto rows and
 * templates), and that budget's limit: what a strategy may still use after
 * the generation is the difference. */
FFM_API guint64 ffm_pmapping_set_get_memory_held (const FfmPmappingSet *set);
FFM_API guint64 ffm_pmapping_set_get_memory_limit (const FfmPmappingSet *set);
/* The most bytes the generation held of its budget at once. */
FFM_API guint64 ffm_pmapping_set_get_memory_peak (const FfmPmappingSet *set);

/* ---- One Einsum ---- */

FFM_API guint ffm_einsum_pmappings_get_einsum (const FfmEinsumPmappings *pm);
FFM_API const FfmPmappingStats *ffm_einsum_pmappings_get_stats (const FfmEinsumPmappings *pm);
/* Where its generation spent its time (transfer none). */
FFM_API const FfmPmappingProfile *ffm_einsum_pmappings_get_profile (const FfmEinsumPmappings *pm);
FFM_API guint ffm_einsum_pmappings_get_n_groups (const FfmEinsumPmappings *pm);
FFM_API const FfmPmappingGroup *ffm_einsum_pmappings_get_group (const FfmEinsumPmappings *pm,
                                                                guint index);
FFM_API guint ffm_einsum_pmappings_get_n_templates (const FfmEinsumPmappings *pm);
/* Template @id as a LoopTree path (STORAGE, TEMPORAL, SPATIAL nodes, then
 * COMPUTE) whose tiles are placeholders, and its compiled model
 * (transfer none). */
FFM_API const GPtrArray *ffm_einsum_pmappings_get_template (const FfmEinsumPmappings *pm,
                                                            guint id);
FFM_API const FfmPmappingModel *ffm_einsum_pmappings_get_model (const FfmEinsumPmappings *pm,
                                                                guint id);
/* The tiles of @ref: the template's loops in node order (transfer none). */
FFM_API const guint64 *ffm_einsum_pmappings_get_tiles (const FfmEinsumPmappings *pm,
                                                       const FfmPmappingRef *ref);
/* Capacity of memory @level when running this Einsum, bits. */
FFM_API double ffm_einsum_pmappings_get_capacity (const FfmEinsumPmappings *pm,
                                                  guint level);
/* The pmapping @ref names, as a new node list (STORAGE, TEMPORAL, SPATIAL,
 * COMPUTE) with the row's tiles; with @drop_trivial, loops of one
 * iteration are left out (their removal changes no count; the innermost
 * tile-1 loop of a rank variable is kept). (transfer full) */
FFM_API GPtrArray *ffm_einsum_pmappings_rebuild (const FfmEinsumPmappings *pm,
                                                 const FfmPmappingRef *ref,
                                                 gboolean drop_trivial);

/* ---- Describing any pmapping ---- */

/* The compatibility and the row of one evaluated pmapping: @model compiled
 * (for @workload and @arch) from a path whose storage nodes go from outer to inner memories with
 * spatial loops between the memories their fanout separates (as every
 * generated pmapping), @tiles its loops' tiles, @cost its valid evaluation
 * with those tiles. The row gets, like a group of the set, the objectives
 * in @objectives then the reservations of every memory of finite capacity
 * on the path at depths -1 .. compat->n_loops; @columns and @values (may be
 * NULL) receive FfmPmappingColumn and double elements. Fails (FALSE, no
 * error: a programming error) only when @cost is not valid or there are
 * more than FFM_COMPAT_MAX_LOOPS fused loops. This is the function the
 * generator uses for every row; tests use it on brute-force mappings. */
FFM_API gboolean ffm_pmapping_describe (const FfmWorkload *workload,
                                        const FfmArch *arch,
                                        const FfmPmappingModel *model,
                                        const guint64 *tiles,
                                        const FfmPmappingCost *cost,
                                        guint objectives,
                                        FfmCompatibility *compat,
                                        GArray *columns,
                                        GArray *values);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmPmappingSet, ffm_pmapping_set_free)

G_END_DECLS
