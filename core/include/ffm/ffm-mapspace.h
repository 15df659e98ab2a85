/* ffm-mapspace.h: the space of fused mappings, state by state.
 *
 * FFM walks the space of fused mappings by joining Pareto pmappings
 * (ffm-pmapping.h, ffm-join.h); every other strategy (simulated annealing,
 * genetic algorithms, random sampling, a third party's) walks the *same*
 * space one full mapping at a time. This module is that space: built once
 * from the pmapping generator's Pareto groups, read-only afterwards, shared
 * by any number of threads.
 *
 * Terms:
 *   - a mapspace *group* of an Einsum is one generator group
 *     (FfmPmappingGroup) with its fused loops in one of the orders its
 *     blocks allow (ffm_join_pmapping_get_order()), its rows split by
 *     compute unit and by where they keep copies of shared tensors: every
 *     row of a group joins exactly the same groups of the other Einsums;
 *   - a *choice* is (group, row) for one Einsum; a *state* is an array of
 *     one choice per Einsum, in workload order (FfmMapspaceChoice[n]);
 *   - a state is *compatible* when its groups obey the join rules of
 *     ffm-join.h (shared loops, backing, data dependencies, copies), and
 *     *valid* when it is compatible and fits: every memory holds the tiles
 *     live in it while each Einsum runs (the cost model's lifetimes, paper
 *     §5.1). Rows never change compatibility, only cost and fit.
 *
 * What it offers:
 *   - random compatible states with no dead end: the groups of every
 *     Einsum are linked, at build time, into a graph whose paths are
 *     exactly the compatible group combinations (the join's keys at group
 *     level, pruned backwards so that every node completes), and a draw
 *     walks it weighted by the number of completions, so every compatible
 *     combination of groups is equally likely; rows are uniform;
 *     ffm_mapspace_random_state() also makes the state fit (sampling, then
 *     a complete backtracking search), or says that nothing fits;
 *   - the compatible alternatives of one Einsum given the rest, and a
 *     change of one Einsum that repairs the others into a compatible state
 *     near the old one (paper §7.3: "other pmappings are transformed into
 *     compatible equivalents"): the fewest Einsums changed when a bounded
 *     search finds it, else a greedy repair;
 *   - the cost of a state (energy, latency, the bits live in each tracked
 *     memory while each Einsum runs, whether it fits) from the cached rows
 *     alone, with no LoopTree and no allocation: the same doubles as
 *     ffm_cost_evaluate_mapping() on the mapping the state builds
 *     (tests/test-mapspace.c checks it to the last bit);
 *   - the state as a full FfmMapping (for printing, JSON, `ffm eval`).
 *
 * Runtime accounting (paper §7.3): a strategy that walks this space stands
 * in for a mapper that would evaluate pmappings with the cost model. Each
 * query of one Einsum's pmapping is charged
 * ffm_mapspace_get_query_weight() pmapping evaluations (FfmMapspaceCharge:
 * one, or the pmappings the generator evaluated for that Einsum per Pareto
 * pmapping it kept); ffm_mapspace_get_seconds_per_pmapping() turns charges
 * into the paper's modelled time. FfmSearchMeter (ffm-search-meter.h) does
 * this bookkeeping.
 *
 * Cost of the operations, for n Einsums: evaluating a state O(n x tracked
 * memories x fused loops); checking one O(n log groups); a draw O(n log
 * groups); a local move O(1) to pick (indexes built once) then a change;
 * a change O(n) when the others stay compatible, else a search bounded by
 * a few hundred nodes and a greedy repair; building O(graph) after the
 * pmapping generation. Memory: about 100 bytes per group besides the rows
 * and the graph (ffm_mapspace_get_memory_bytes()).
 * Determinism: everything is a function of its inputs and of the GRand
 * passed in. Thread safety: an FfmMapspace may be used by many threads at
 * once; an FfmMapspaceWorkspace and an FfmMapspaceCost by one at a time.
 *
 * docs/plugin-guide.md shows a complete strategy built on this API. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-workload.h>
#include <ffm/ffm-arch.h>
#include <ffm/ffm-mapping.h>
#include <ffm/ffm-problem.h>
#include <ffm/ffm-compatibility.h>
#include <ffm/ffm-pmapping.h>

G_BEGIN_DECLS

/* Tracked memories (ffm_pmapping_set_get_tracked_levels()) a mapspace
 * handles; a set with more is refused. */
#define FFM_MAPSPACE_MAX_MEMORIES 16

typedef struct _FfmMapspace FfmMapspace;

/* One Einsum's part of a state: a group of the Einsum and a row of it. */
typedef struct {
  guint32 group;
  guint32 row;
} FfmMapspaceChoice;

/* How a query of one Einsum's pmappings is charged (paper §7.3: the
 * baselines' runtime is modelled as the pmappings they query times the
 * time of one pmapping evaluation; docs/compare.md):
 *   - EXPLORED (the default): the pmappings the generator evaluated for
 *     the Einsum per Pareto pmapping it kept, n_evaluated / n_pareto, at
 *     least 1: what a mapper that evaluates pmappings one at a time spends,
 *     on average, to meet one of them (the FFM authors' code);
 *   - EVALUATION: one pmapping evaluation per queried pmapping (the
 *     paper's text). */
typedef enum {
  FFM_MAPSPACE_CHARGE_EXPLORED = 0,
  FFM_MAPSPACE_CHARGE_EVALUATION,
} FfmMapspaceCharge;

/* "explored" or "evaluation". */
FFM_API const char *ffm_mapspace_charge_to_string (FfmMapspaceCharge charge);
/* Reads one of those words; FALSE with FFM_PARAM_ERROR_INVALID_VALUE
 * naming the word otherwise. */
FFM_API gboolean ffm_mapspace_charge_from_string (const char *text,
                                                  FfmMapspaceCharge *out,
                                                  GError **error);

/* Which pmappings the space holds and how the time of one pmapping
 * evaluation is measured:
 *   - PAPER (the default): every Pareto-optimal pmapping of each Einsum per
 *     compatibility, without FFM's own cross-Einsum pruning (no
 *     FfmPmappingOptions.drop_unjoinable: groups no other Einsum can join
 *     are kept, never drawn), the time of one evaluation measured on a
 *     generation with the pruning of partial tile vectors off
 *     (ffm_mapspace_measure_seconds_per_pmapping()): the paper's
 *     "time it takes to evaluate a pmapping";
 *   - PRUNED: the pmappings the ffm strategy joins (drop_unjoinable), the
 *     time of one evaluation the generator's own thread time per pmapping
 *     it evaluated (its pruning's work included). */
typedef enum {
  FFM_MAPSPACE_SPACE_PAPER = 0,
  FFM_MAPSPACE_SPACE_PRUNED,
} FfmMapspaceSpace;

/* "paper" or "pruned". */
FFM_API const char *ffm_mapspace_space_to_string (FfmMapspaceSpace space);
FFM_API gboolean ffm_mapspace_space_from_string (const char *text,
                                                 FfmMapspaceSpace *out,
                                                 GError **error);

/* ---- Building ---- */

/* The mapspace of @set's pmappings (every Einsum of the workload must have
 * been generated). Takes ownership of @set, also on failure. Fails with
 * FFM_SEARCH_ERROR_INFEASIBLE when no combination of groups is compatible
 * (the message names the first Einsum no compatible choice reaches), and
 * with FFM_SEARCH_ERROR_TOO_LARGE when the graph of compatible groups
 * would exceed FFM_MAPSPACE_MAX_LINKS links. (transfer full) */
FFM_API FfmMapspace *ffm_mapspace_new (FfmPmappingSet *set, GError **error);

/* The mapspace a search with @context explores: @context->mapspace (a new
 * reference) when the host provided one, else
 * ffm_mapspace_new_for_context_with (@context, FFM_MAPSPACE_SPACE_PAPER,
 * FFM_MAPSPACE_CHARGE_EXPLORED). (transfer full) */
FFM_API FfmMapspace *ffm_mapspace_new_for_context (const FfmSearchContext *context,
                                                   GError **error);

/* The mapspace of @context's problem as @space says (below), the
 * pmappings generated with the context's objective, fused-loop limits,
 * unfused flag, remainder tiles, constraints, generator limits, threads,
 * progress callback and cancel flag, then ffm_mapspace_new() and
 * ffm_mapspace_set_accounting() with @charge. Ignores @context->mapspace.
 * Building the space is charged to the context's memory budget
 * (max_memory) after the pmappings: a space past it fails with
 * FFM_SEARCH_ERROR_OUT_OF_MEMORY. (transfer full) */
FFM_API FfmMapspace *ffm_mapspace_new_for_context_with (const FfmSearchContext *context,
                                                        FfmMapspaceSpace space,
                                                        FfmMapspaceCharge charge,
                                                        GError **error);

/* Upper bound on the links (compatible group pairs) of the graph; a
 * larger one is FFM_SEARCH_ERROR_TOO_LARGE, not an allocation failure. */
#define FFM_MAPSPACE_MAX_LINKS (G_GUINT64_CONSTANT (1) << 24)

FFM_API FfmMapspace *ffm_mapspace_ref (FfmMapspace *mapspace);
FFM_API void ffm_mapspace_unref (FfmMapspace *mapspace);

/* ---- What it holds ---- */

/* The pmappings it was built from (transfer none). */
FFM_API const FfmPmappingSet *ffm_mapspace_get_pmapping_set (const FfmMapspace *mapspace);
/* Its workload and architecture (transfer none). */
FFM_API FfmWorkload *ffm_mapspace_get_workload (const FfmMapspace *mapspace);
FFM_API FfmArch *ffm_mapspace_get_arch (const FfmMapspace *mapspace);
/* Einsums: the workload's, in workload order. */
FFM_API guint ffm_mapspace_get_n_einsums (const FfmMapspace *mapspace);
FFM_API guint ffm_mapspace_get_n_groups (const FfmMapspace *mapspace,
                                         guint einsum);
FFM_API guint ffm_mapspace_group_get_n_rows (const FfmMapspace *mapspace,
                                             guint einsum,
                                             guint group);
/* The group's compatibility, its fused loops in the group's order
 * (transfer none). The first call makes every group's (about 1.5 KB each:
 * 2.5 GB for GPT-3 6.7B at batch 64); ffm_mapspace_group_copy_compatibility()
 * makes one at a time. */
FFM_API const FfmCompatibility *ffm_mapspace_group_get_compatibility (const FfmMapspace *mapspace,
                                                                      guint einsum,
                                                                      guint group);
FFM_API void ffm_mapspace_group_copy_compatibility (const FfmMapspace *mapspace,
                                                    guint einsum,
                                                    guint group,
                                                    FfmCompatibility *compatibility);
/* Where the group comes from: the index of its FfmPmappingGroup in
 * ffm_pmapping_set_lookup_einsum (set, einsum) and its loop order
 * (ffm_join_pmapping_get_order() index). */
FFM_API void ffm_mapspace_group_get_source (const FfmMapspace *mapspace,
                                            guint einsum,
                                            guint group,
                                            guint *pmapping_group,
                                            guint *order);
/* Row @row of the group: its row in the FfmPmappingGroup and its
 * energy (J) and latency (s), NAN for an objective the pmappings were not
 * generated for. */
FFM_API guint ffm_mapspace_group_get_pmapping_row (const FfmMapspace *mapspace,
                                                   guint einsum,
                                                   guint group,
                                                   guint row);
FFM_API void ffm_mapspace_group_get_objectives (const FfmMapspace *mapspace,
                                                guint einsum,
                                                guint group,
                                                guint row,
                                                double *energy,
                                                double *latency);
/* TRUE when some compatible state uses the group. Groups that can never
 * join (e.g. a loop above a shared tensor's backing that walks no single
 * rank of it) are kept, so that indices match the generator's, but never
 * drawn. */
FFM_API gboolean ffm_mapspace_group_is_usable (const FfmMapspace *mapspace,
                                               guint einsum,
                                               guint group);
/* The number of compatible group combinations (a double: it may be
 * astronomically large; INFINITY above G_MAXDOUBLE). */
FFM_API double ffm_mapspace_get_n_combinations (const FfmMapspace *mapspace);
/* The number of compatible states: pmapping combinations, the rows of
 * each compatible group combination multiplied (what a strategy that
 * walks states chooses among), as log10 (it overflows doubles on long
 * workloads); ffm_mapspace_get_n_combinations() counts group
 * combinations, as log10 here. */
FFM_API double ffm_mapspace_get_log10_n_states (const FfmMapspace *mapspace);
FFM_API double ffm_mapspace_get_log10_n_combinations (const FfmMapspace *mapspace);

/* What the space holds for one Einsum, as `ffm compare` prints it (the
 * baselines' space statistics). */
typedef struct {
  guint64 pmappings;        /* Pareto pmappings the generator kept for it
                               (rows of its groups) */
  guint pmapping_groups;    /* the generator's compatibility groups */
  guint groups;             /* mapspace groups: a generator group per loop
                               order, compute unit and copy depths */
  guint usable_groups;      /* of those, the ones some compatible state uses */
  guint64 usable_pmappings; /* rows of the usable groups (a pmapping counts
                               once per usable group it is in) */
  guint64 evaluated;        /* pmappings the generator evaluated for it (of
                               the Einsum it copies, when reused) */
  double query_weight;      /* pmapping evaluations one query is charged
                               (ffm_mapspace_get_query_weight()) */
  guint keys;               /* nodes of the graph of compatible groups
                               before this Einsum (distinct summaries of the
                               choices before it) */
  guint64 links;            /* its edges from those nodes (compatible
                               (key, group) pairs) */
  guint64 most_links;       /* the most edges of one of those nodes */
} FfmMapspaceEinsumStats;

FFM_API void ffm_mapspace_get_einsum_stats (const FfmMapspace *mapspace,
                                            guint einsum,
                                            FfmMapspaceEinsumStats *stats);
/* Bytes the mapspace holds besides its pmapping set: groups, rows, the
 * graph and the move indexes. */
FFM_API guint64 ffm_mapspace_get_memory_bytes (const FfmMapspace *mapspace);

/* Memories whose capacity a state is checked against (architecture
 * levels, outermost first; transfer none). */
FFM_API const guint *ffm_mapspace_get_tracked_levels (const FfmMapspace *mapspace,
                                                      guint *n_levels);
/* Pmapping evaluations one query of Einsum @einsum's pmappings stands for,
 * under the mapspace's charge (ffm_mapspace_set_accounting()): 1, or the
 * generator's evaluated pmappings per Pareto pmapping kept for it (for an
 * Einsum whose pmappings copy an earlier one's, that one's), at least 1. */
FFM_API double ffm_mapspace_get_query_weight (const FfmMapspace *mapspace,
                                              guint einsum);
/* The sum of the query weights of all Einsums: the charge for evaluating
 * one whole state. */
FFM_API double ffm_mapspace_get_state_query_weight (const FfmMapspace *mapspace);
/* Measured thread time of one pmapping evaluation during the generation,
 * s: the generator's thread seconds over the pmappings it evaluated. */
FFM_API double ffm_mapspace_get_seconds_per_pmapping (const FfmMapspace *mapspace);
/* Sets the charge of a query and the time of one pmapping evaluation
 * (s; <= 0 keeps the current one). The mapspace is shared read-only by
 * the searches that use it: call this before handing it out. */
FFM_API void ffm_mapspace_set_accounting (FfmMapspace *mapspace,
                                          FfmMapspaceCharge charge,
                                          double seconds_per_pmapping);
FFM_API FfmMapspaceCharge ffm_mapspace_get_charge (const FfmMapspace *mapspace);
/* The space it was built as (PAPER for ffm_mapspace_new()). */
FFM_API FfmMapspaceSpace ffm_mapspace_get_space (const FfmMapspace *mapspace);

/* TUNING: the sample ffm_mapspace_measure_seconds_per_pmapping() times:
 * the first templates of each Einsum, each searched for at most this
 * long (thread time, s). */
#define FFM_MAPSPACE_SAMPLE_TEMPLATES 8
#define FFM_MAPSPACE_SAMPLE_TEMPLATE_SECONDS 0.05

/* The thread time of one pmapping evaluation when the generator evaluates
 * every valid tile vector (its pruning of partial vectors off): the
 * pmappings of @workload on @arch generated with @options (copied; NULL:
 * the defaults) for the first FFM_MAPSPACE_SAMPLE_TEMPLATES templates of
 * each Einsum, each searched at most FFM_MAPSPACE_SAMPLE_TEMPLATE_SECONDS,
 * Einsums equal to an earlier one not enumerated again; their thread
 * seconds over the pmappings they evaluated into *@seconds, that count
 * into *@evaluated (may be NULL). FALSE with @error when the generation
 * fails (cancelled, out of memory) or evaluates nothing. */
FFM_API gboolean ffm_mapspace_measure_seconds_per_pmapping (FfmWorkload *workload,
                                                            FfmArch *arch,
                                                            const FfmPmappingOptions *options,
                                                            double *seconds,
                                                            guint64 *evaluated,
                                                            GError **error);

/* Wall time the mapspace took to build (pmapping generation excluded), s. */
FFM_API double ffm_mapspace_get_build_seconds (const FfmMapspace *mapspace);

/* ---- States ---- */

/* A state with every choice (0, 0) (transfer full: g_free()). It need not
 * be compatible: draw or repair it before evaluating it. */
FFM_API FfmMapspaceChoice *ffm_mapspace_state_new (const FfmMapspace *mapspace);
FFM_API void ffm_mapspace_state_copy (const FfmMapspace *mapspace,
                                      FfmMapspaceChoice *dest,
                                      const FfmMapspaceChoice *src);

/* TRUE if @state is compatible and every row exists. Otherwise, if
 * @bad_einsum is non-NULL, it receives the first Einsum (in workload
 * order) whose choice cannot follow the ones before it. */
FFM_API gboolean ffm_mapspace_check (const FfmMapspace *mapspace,
                                     const FfmMapspaceChoice *state,
                                     guint *bad_einsum);

/* Scratch space for draws, alternatives and changes (one per thread). */
typedef struct _FfmMapspaceWorkspace FfmMapspaceWorkspace;

FFM_API FfmMapspaceWorkspace *ffm_mapspace_workspace_new (FfmMapspace *mapspace);
FFM_API void ffm_mapspace_workspace_free (FfmMapspaceWorkspace *workspace);

/* A random compatible state: groups uniform over all compatible group
 * combinations, rows uniform within their groups. Never fails (the
 * mapspace has at least one compatible combination). It may not fit. */
FFM_API void ffm_mapspace_sample (FfmMapspaceWorkspace *workspace,
                                  GRand *rand,
                                  FfmMapspaceChoice *state);

/* The groups @einsum may take with the other choices of @state unchanged
 * (compatible; the current group included), in increasing order, into
 * @groups (room for ffm_mapspace_get_n_groups() entries). Returns how
 * many. @state must be compatible. */
FFM_API guint ffm_mapspace_list_alternatives (FfmMapspaceWorkspace *workspace,
                                              const FfmMapspaceChoice *state,
                                              guint einsum,
                                              guint *groups);

/* Sets @einsum's choice to (@group, @row) and repairs the other Einsums
 * into a compatible state: the one that changes the fewest other Einsums'
 * groups when a search of a few hundred nodes finds it (ties drawn at
 * random with @rand: on small problems, always), else a greedy repair: the
 * Einsums before @einsum searched depth first from its neighbours back,
 * each after it keeping its group where the choices before allow, else
 * taking one of a few random groups, the one that lets the most next
 * Einsums keep theirs (a repair of a problem with 10^5 groups per Einsum
 * costs tens of microseconds, not the milliseconds of an exact pass over
 * the whole graph). A repaired Einsum gets a random row of its new group,
 * the others keep theirs. @state must be compatible. Returns FALSE (and
 * leaves @state unchanged) when @group is not usable, @row not in it, or
 * the greedy repair found no way through the Einsums before @einsum
 * within its limit (rare; ffm_mapspace_move() then tries the next Einsum).
 * *@n_changed (may be NULL) receives the number of other Einsums whose
 * group changed. */
FFM_API gboolean ffm_mapspace_change (FfmMapspaceWorkspace *workspace,
                                      GRand *rand,
                                      FfmMapspaceChoice *state,
                                      guint einsum,
                                      guint group,
                                      guint row,
                                      guint *n_changed);

/* Local moves, the neighbours a local search (simulated annealing, a
 * genetic algorithm's mutation) tries: one Einsum's choice changes, then
 * the others are repaired (ffm_mapspace_change()). They follow the moves
 * the FFM paper's authors gave SET in the pmapping space (§7.2): */
typedef enum {
  FFM_MAPSPACE_MOVE_ROW = 0,    /* another row of the Einsum's group: its
                                   intra-Einsum mapping, nothing shared changes */
  FFM_MAPSPACE_MOVE_LOOPS,      /* another group with the same backing of every
                                   shared tensor but other fused loops: with
                                   probability 1/3 each the next larger or the
                                   next smaller tile of one loop, else any */
  FFM_MAPSPACE_MOVE_BACKING,    /* another group where one shared tensor (drawn
                                   at random) is backed in another memory */
  FFM_MAPSPACE_MOVE_GROUP,      /* any other group of the Einsum */
} FfmMapspaceMove;

/* Applies a random move of @kind to one random Einsum of compatible
 * @state (the next Einsum, in turn, when the first has no such move), a
 * repaired Einsum getting a random row. Returns FALSE, @state unchanged,
 * when no Einsum has a move of that kind. *@einsum (may be NULL) receives
 * the Einsum moved, *@n_changed the others repaired. */
FFM_API gboolean ffm_mapspace_move (FfmMapspaceWorkspace *workspace,
                                    GRand *rand,
                                    FfmMapspaceChoice *state,
                                    FfmMapspaceMove kind,
                                    guint *einsum,
                                    guint *n_changed);

/* ---- Cost ---- */

/* The cost of one state. Allocate once per thread with
 * ffm_mapspace_cost_new() and reuse: evaluating allocates nothing. */
typedef struct {
  double energy;            /* J: the Einsums' energies summed in workload order */
  double latency;           /* s: likewise (NAN if not generated) */
  gboolean fits;            /* every tracked memory holds what is live in it */
  int worst_memory;         /* index into the tracked memories of the largest
                               excess, -1 when it fits */
  int worst_einsum;         /* the Einsum that sees it, -1 when it fits */
  guint n_memories;         /* tracked memories */
  double peak[FFM_MAPSPACE_MAX_MEMORIES];   /* most bits live at once, over Einsums */
  double excess[FFM_MAPSPACE_MAX_MEMORIES]; /* most bits above capacity (<= 0: fits) */
  guint n_einsums;
  double *occupancy;        /* [n_einsums * n_memories]: bits live in each tracked
                               memory while each Einsum runs (Einsum-major) */
} FfmMapspaceCost;

FFM_API FfmMapspaceCost *ffm_mapspace_cost_new (const FfmMapspace *mapspace);
FFM_API void ffm_mapspace_cost_free (FfmMapspaceCost *cost);

/* Evaluates compatible @state into @cost (from ffm_mapspace_cost_new() of
 * this mapspace) from the cached rows: no allocation, no LoopTree. The
 * result for a state that is not compatible is meaningless: draw, change
 * or ffm_mapspace_check() states first. */
FFM_API void ffm_mapspace_evaluate (const FfmMapspace *mapspace,
                                    const FfmMapspaceChoice *state,
                                    FfmMapspaceCost *cost);

/* The value of @objective (EDP, energy or latency) for @cost, INFINITY
 * when it does not fit. PARETO counts as EDP. */
FFM_API double ffm_mapspace_cost_get_objective (const FfmMapspaceCost *cost,
                                                FfmObjective objective);

/* A random valid state (compatible and fitting) into @state and its cost
 * into @cost: up to @max_samples draws of ffm_mapspace_sample(), then a
 * complete backtracking search over groups and rows that drops any partial
 * state whose tiles already overflow a memory, visiting at most
 * @max_nodes partial states (0 = no limit). *@n_evaluated (may be NULL)
 * receives the states and partial states evaluated, for budgets. Fails
 * with FFM_SEARCH_ERROR_INFEASIBLE when the search proves that no state
 * fits (naming the memory that overflows most often), and with
 * FFM_SEARCH_ERROR_TOO_LARGE when it stops at @max_nodes. */
FFM_API gboolean ffm_mapspace_random_state (FfmMapspaceWorkspace *workspace,
                                            GRand *rand,
                                            guint max_samples,
                                            guint64 max_nodes,
                                            FfmMapspaceChoice *state,
                                            FfmMapspaceCost *cost,
                                            guint64 *n_evaluated,
                                            GError **error);

/* ---- Mappings ---- */

/* The LoopTree of compatible @state (ffm_join_build_mapping()), named
 * after the workload and the architecture. (transfer full) */
FFM_API FfmMapping *ffm_mapspace_build_mapping (const FfmMapspace *mapspace,
                                                const FfmMapspaceChoice *state,
                                                GError **error);

/* Builds @state's mapping, evaluates it with the cost model and adds it
 * to @result with the model's energy and latency (those the host prints).
 * FALSE with @error when the state is not compatible, or its mapping does
 * not fit (FFM_SEARCH_ERROR_FAILED: a strategy should add fitting states
 * only). */
FFM_API gboolean ffm_mapspace_add_solution (const FfmMapspace *mapspace,
                                            const FfmMapspaceChoice *state,
                                            FfmSearchResult *result,
                                            GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmMapspace, ffm_mapspace_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmMapspaceWorkspace, ffm_mapspace_workspace_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmMapspaceCost, ffm_mapspace_cost_free)

G_END_DECLS
