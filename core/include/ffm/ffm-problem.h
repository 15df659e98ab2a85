/* ffm-problem.h: what a search strategy is asked to solve, and what it
 * returns.
 *
 * A problem is one workload on one architecture. A search context adds how
 * to search (objective, budget, seed, threads, knobs, a progress callback);
 * a search result holds the best mapping (or the Pareto set), its costs and
 * a trace of (evaluations, seconds, best objective so far) for convergence
 * plots. Contexts and results cross the plugin boundary: both start with
 * struct_size and only ever grow at the end. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-workload.h>
#include <ffm/ffm-arch.h>
#include <ffm/ffm-mapping.h>
#include <ffm/ffm-constraints.h>

G_BEGIN_DECLS

typedef struct _FfmProblem FfmProblem;
/* The fused mapspace (ffm-mapspace.h). */
typedef struct _FfmMapspace FfmMapspace;

/* Takes a reference on both. */
FFM_API FfmProblem *ffm_problem_new (FfmWorkload *workload, FfmArch *arch);
FFM_API FfmProblem *ffm_problem_ref (FfmProblem *problem);
FFM_API void ffm_problem_unref (FfmProblem *problem);
/* The problem's workload and architecture (transfer none: the problem
 * keeps its references; take your own with ffm_workload_ref() or
 * ffm_arch_ref() to keep them longer). */
FFM_API FfmWorkload *ffm_problem_get_workload (const FfmProblem *problem);
FFM_API FfmArch *ffm_problem_get_arch (const FfmProblem *problem);

typedef enum {
  FFM_OBJECTIVE_EDP = 0,     /* energy x latency of the whole workload */
  FFM_OBJECTIVE_ENERGY,
  FFM_OBJECTIVE_LATENCY,
  FFM_OBJECTIVE_PARETO,      /* the energy-latency Pareto set */
} FfmObjective;

/* What @objective ranks a mapping of @energy and @latency by, lower being
 * better: energy, latency, or their product (EDP, and for a Pareto
 * search the one number its single best is chosen by). Every strategy,
 * the join and compare rank by this. */
static inline double
ffm_objective_value (FfmObjective objective, double energy, double latency)
{
  return objective == FFM_OBJECTIVE_ENERGY ? energy
    : objective == FFM_OBJECTIVE_LATENCY ? latency : energy * latency;
}

/* What breaks ties of @objective: latency for energy, energy for latency,
 * nothing (0) for EDP and Pareto. */
static inline double
ffm_objective_tie (FfmObjective objective, double energy, double latency)
{
  return objective == FFM_OBJECTIVE_ENERGY ? latency
    : objective == FFM_OBJECTIVE_LATENCY ? energy : 0;
}

FFM_API const char *ffm_objective_to_string (FfmObjective objective);
FFM_API gboolean ffm_objective_from_string (const char *text,
                                            FfmObjective *out,
                                            GError **error);

/* Which loops of the mapspace may have a tile that does not divide their
 * enclosing tile, the last iteration handling the remainder (imperfect
 * factorization; docs/pmapping-generator.md, "Remainder tiles"). Bit
 * flags; 0, the default, is perfect factorization only. */
typedef enum {
  FFM_IMPERFECT_NONE = 0,
  FFM_IMPERFECT_SPATIAL = 1 << 0,
  FFM_IMPERFECT_TEMPORAL = 1 << 1,
  FFM_IMPERFECT_ALL = FFM_IMPERFECT_SPATIAL | FFM_IMPERFECT_TEMPORAL,
} FfmImperfect;

/* "none", "spatial", "temporal" or "all". */
FFM_API const char *ffm_imperfect_to_string (guint imperfect);
/* Reads one of those words (any case); FALSE with FFM_PARAM_ERROR_INVALID_VALUE
 * naming the word otherwise. */
FFM_API gboolean ffm_imperfect_from_string (const char *text,
                                            guint *out,
                                            GError **error);

/* Called by strategies from time to time; @fraction in [0,1] or negative
 * when unknown. Must be cheap. */
typedef void (*FfmProgressFunc) (double fraction,
                                 const char *phase,
                                 gpointer user_data);

/* How to search (host-owned, read-only for strategies). */
typedef struct {
  gsize struct_size;            /* sizeof (FfmSearchContext) as built by the host */
  FfmProblem *problem;
  FfmObjective objective;
  guint64 max_evaluations;      /* budget; 0 = none */
  double max_seconds;           /* budget; 0 = none */
  guint64 seed;
  guint n_threads;              /* >= 1 */
  int max_fused_loops;          /* knob; default -1, no limit */
  gboolean unfused;             /* every tensor backed in the outermost memory */
  FfmProgressFunc progress;     /* may be NULL */
  gpointer progress_data;
  /* Fields appended by a minor ABI version must be read only when
   * FFM_SEARCH_CONTEXT_HAS() says the host's context has them (a host of an
   * older minor version builds a shorter context). */
  const gint *cancel;           /* NULL, or a flag the host sets non-zero (from
                                   another thread: Ctrl-C, --timeout) to stop
                                   the search: a strategy then returns its
                                   best so far, or fails with
                                   FFM_SEARCH_ERROR_CANCELLED when it has
                                   none; test it with
                                   ffm_search_context_is_cancelled() */
  double max_modelled_seconds;  /* budget in the paper's modelled time (§7.3):
                                   pmapping evaluations queried x the measured
                                   time of one, over the threads
                                   (ffm-search-meter.h); 0 = none */
  FfmMapspace *mapspace;        /* NULL, or the mapspace of this problem with
                                   these objective, fused-loop, unfused and
                                   imperfect settings, built once by the host
                                   for several runs (ffm compare); borrowed:
                                   use ffm_mapspace_new_for_context() */
  guint imperfect;              /* FfmImperfect: the loops that may have
                                   remainder tiles; default none (read it
                                   with FFM_SEARCH_CONTEXT_HAS) */
  const FfmConstraints *constraints; /* NULL, or the mapping constraints
                                   (ffm-constraints.h) every mapping the
                                   strategy returns must satisfy: pass them
                                   to the pmapping generator
                                   (FfmPmappingOptions.constraints), which
                                   enumerates only pmappings that satisfy
                                   them; owned by the host */
  guint64 max_memory;           /* bytes the pmapping generation may hold
                                   (FfmPmappingOptions.max_memory); 0 = its
                                   default */
  double max_template_seconds;  /* FfmPmappingOptions.max_template_seconds;
                                   0 = none */
  guint max_templates;          /* FfmPmappingOptions.max_templates; 0 = all */
  guint padding_2_1;            /* unused: ABI 2.1's context was 144 bytes with
                                   these 4 bytes its padding, so a 2.1 host's
                                   context must not seem to have the next
                                   field (FFM_SEARCH_CONTEXT_HAS) */
  int max_fused_loops_per_rank_var; /* FfmPmappingOptions.max_fused_loops_per_rank_var:
                                   fused loops of more than one iteration per
                                   rank variable, -1 = no limit; default 1
                                   (ABI 2.2; read it with
                                   FFM_SEARCH_CONTEXT_HAS) */
  double target_objective;      /* > 0: stop once a mapping this good (objective
                                   <= this) is found: a comparison that times
                                   how long strategies take to come within X %
                                   of the optimum (ffm compare --sweep-einsums)
                                   need not spend the rest of the budget;
                                   FfmSearchMeter stops its parts then; 0 =
                                   none (ABI 2.3: read it with
                                   FFM_SEARCH_CONTEXT_HAS) */
} FfmSearchContext;

/* TRUE if the context as built by the host has @field (it was appended
 * after the host's version otherwise). */
#define FFM_SEARCH_CONTEXT_HAS(context, field) \
  ((context)->struct_size >= G_STRUCT_OFFSET (FfmSearchContext, field) \
                             + sizeof ((context)->field))

/* Fills @context with the defaults: struct_size, @problem (not referenced:
 * the caller keeps it alive during the search), objective EDP, no budget,
 * seed 1, one thread, max_fused_loops 1 (and 1 per rank variable), fused,
 * no progress callback, no cancel flag, no constraints. */
FFM_API void ffm_search_context_init (FfmSearchContext *context,
                                      FfmProblem *problem);

/* TRUE unless @context asks for the Pareto front, which a strategy that
 * optimises one objective (named @owner) cannot give: then FALSE with
 * FFM_SEARCH_ERROR_FAILED saying so. */
FFM_API gboolean ffm_search_context_require_one_objective (const FfmSearchContext *context,
                                                          const char *owner,
                                                          GError **error);

/* TRUE if the host asked the search to stop (cheap: an atomic read;
 * FALSE for a context without a cancel flag). */
FFM_API gboolean ffm_search_context_is_cancelled (const FfmSearchContext *context);

/* One point of the convergence trace. */
typedef struct {
  guint64 evaluations;          /* states (or mappings) evaluated so far */
  double seconds;               /* wall time since the search began */
  double best_objective;        /* best objective so far (INFINITY: none yet) */
  double pmapping_queries;      /* pmapping evaluations the queries so far
                                   stand for (ffm-mapspace.h); 0 if none */
  double modelled_seconds;      /* the paper's modelled time so far (§7.3);
                                   the wall time for a strategy that does
                                   not model it */
} FfmTracePoint;

/* One solution: a full mapping and its totals. */
typedef struct {
  FfmMapping *mapping;          /* owned */
  double energy;                /* J */
  double latency;               /* s */
} FfmSolution;

typedef struct _FfmSearchResult FfmSearchResult;

FFM_API FfmSearchResult *ffm_search_result_new (void);
FFM_API void ffm_search_result_free (FfmSearchResult *result);
/* Takes ownership of @mapping. */
FFM_API void ffm_search_result_add_solution (FfmSearchResult *result,
                                             FfmMapping *mapping,
                                             double energy,
                                             double latency);
FFM_API guint ffm_search_result_get_n_solutions (const FfmSearchResult *result);
FFM_API const FfmSolution *ffm_search_result_get_solution (const FfmSearchResult *result,
                                                           guint index);
/* Appends (@evaluations, @seconds, @best_objective) with no queries and
 * the wall time as modelled time. */
FFM_API void ffm_search_result_add_trace_point (FfmSearchResult *result,
                                                guint64 evaluations,
                                                double seconds,
                                                double best_objective);
/* Appends a copy of @point (every field, the modelled ones included). */
FFM_API void ffm_search_result_add_trace (FfmSearchResult *result,
                                          const FfmTracePoint *point);
FFM_API const GArray *ffm_search_result_get_trace (const FfmSearchResult *result);
/* Named statistics ("pmappings_generated", ...), kept in insertion order. */
FFM_API void ffm_search_result_set_stat (FfmSearchResult *result,
                                         const char *name,
                                         double value);
FFM_API const GArray *ffm_search_result_get_stats (const FfmSearchResult *result);
/* The value of statistic @name in *@out; FALSE (and *@out untouched) if it
 * was never set. */
FFM_API gboolean ffm_search_result_lookup_stat (const FfmSearchResult *result,
                                                const char *name,
                                                double *out);

/* One named statistic. */
typedef struct {
  char *name;
  double value;
} FfmStat;

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmProblem, ffm_problem_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmSearchResult, ffm_search_result_free)

G_END_DECLS
