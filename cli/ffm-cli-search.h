/* ffm-cli-search.h: running a search strategy from a command.
 *
 * What `ffm map` does with a strategy, shared by every command that runs
 * one (map, and commands that run several strategies or problems): the
 * options that choose and tune the strategy, a search context filled from
 * them, the run itself, and the cost model's verdict on every solution the
 * strategy returns (one model for every strategy: the numbers printed are
 * the model's, whatever the strategy says). Progress (ffm-cli-progress.h)
 * and the cancel flag (ffm-cli-cancel.h) are the caller's: it sets them in
 * the context, once for one run or for many. */
#pragma once

#include "ffm-cli-common.h"
#include "ffm-cli-limits.h"

G_BEGIN_DECLS

/* The options of a search, as the command line gives them. */
typedef struct {
  char *strategy;               /* --strategy NAME (owned); NULL = ffm */
  char **strategy_params;       /* --strategy-param KEY=VALUE (owned) */
  char *objective;              /* --objective (owned); NULL = edp */
  int max_fused_loops;          /* --max-fused-loops; -1 = no limit */
  gboolean unfused;             /* --unfused */
  double timeout;               /* --timeout SECONDS; 0 = none */
  gint64 max_evaluations;       /* --max-evaluations N; 0 = none */
  double max_seconds;           /* --max-seconds S; 0 = none */
  char *budget;                 /* --budget Nx | Ns (owned); NULL = none */
  char *imperfect;              /* --imperfect (owned); NULL = none */
  /* Mapping constraints (ffm-constraints.h), all owned: */
  char **constraint_files;      /* --constraints FILE (repeatable) */
  char *policy;                 /* --policy NAME|FILE */
  char **fuse;                  /* --fuse TENSORS[@LEVEL] */
  char **no_fuse;               /* --no-fuse TENSORS */
  char **backing;               /* --backing TENSORS@LEVEL */
  char **keep;                  /* --keep TENSORS@LEVEL */
  char **forbid;                /* --forbid TENSORS@LEVEL */
  char **stationary;            /* --stationary TENSORS@LEVEL */
  FfmCliGeneratorLimits limits; /* --max-memory, --max-template-seconds,
                                   --max-templates */
  int max_fused_per_var;        /* --max-fused-loops-per-rank-var; -1 = no limit */
  gboolean timeloop_constraints_off; /* --no-timeloop-constraints */
  gboolean timeloop_constraints_on;  /* --timeloop-constraints (the default) */
  const char *timeloop_arch;    /* the --arch value when it is timeloop:...
                                   (not owned; the command sets it): its
                                   constraints join the set */
  char *budget_reference;       /* --budget-reference (owned); NULL = wall */
} FfmCliSearchOptions;

#define FFM_CLI_SEARCH_OPTIONS_INIT { NULL, NULL, NULL, -1, FALSE, 0, 0, 0, NULL, NULL, \
                                      NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
                                      FFM_CLI_GENERATOR_LIMITS_INIT, 1, FALSE, FALSE, NULL, \
                                      NULL }

void ffm_cli_search_options_clear (FfmCliSearchOptions *options);
/* The help of --imperfect, for every command that has it. */
extern const char ffm_cli_imperfect_help[];
/* Adds --strategy, --strategy-param, --objective, --max-fused-loops,
 * --unfused, --timeout, the budgets (--max-evaluations, --max-seconds,
 * --budget), --imperfect, the constraint options
 * (ffm_cli_add_constraint_options()) and the generator's limits
 * (ffm-cli-limits.h), writing into @options. */
void ffm_cli_add_search_options (GOptionContext *context,
                                 FfmCliSearchOptions *options);
/* Adds only --constraints, --policy, the short constraint options
 * (--fuse, --no-fuse, --backing, --keep, --forbid, --stationary) and
 * --[no-]timeloop-constraints as a group "constraints", for commands that
 * take constraints but no search. */
void ffm_cli_add_constraint_options (GOptionContext *context,
                                     FfmCliSearchOptions *options);
/* Adds to the FNV-1a hash *@hash (ffm_cli_mpi_fingerprint_add()) what of
 * @problem and @search changes a search's result: the architecture,
 * workload and their parameters, the strategy's parameters, the objective,
 * the mapspace options, the generator's limits and every constraint
 * option; so that MPI ranks can check they read the same command. */
void ffm_cli_search_options_fingerprint (const FfmCliProblemOptions *problem,
                                         const FfmCliSearchOptions *search,
                                         guint64 *hash);

/* The constraint set the options give (--policy first, then each
 * --constraints file, then the short options in the order of the list
 * above, then, unless --no-timeloop-constraints, the mapspace constraints
 * of a timeloop: architecture, translated: ffm_cli_timeloop_constraints()),
 * or NULL in *@out when there is none; bound once to @problem to check
 * names (errors name the file or option and the cause). FALSE with @error
 * set. */
gboolean ffm_cli_constraints_build (const FfmCliSearchOptions *options,
                                    FfmProblem *problem,
                                    FfmConstraints **out,
                                    GError **error);

/* What T, the time --budget Nx multiplies, is (--budget-reference). */
typedef enum {
  FFM_CLI_TIME_UNIT_WALL,       /* ffm's wall time here (the paper's rule) */
  FFM_CLI_TIME_UNIT_CPU,        /* ffm's CPU time over its threads */
  FFM_CLI_TIME_UNIT_GIVEN       /* seconds the user gave */
} FfmCliTimeUnit;

/* A strategy ready to run on a problem. */
typedef struct {
  const FfmPluginInfo *plugin;  /* the strategy (transfer none: the registry's) */
  FfmParamValues *strategy_values; /* --strategy-param (owned) */
  FfmObjective objective;
  FfmSearchContext context;     /* problem borrowed; progress and cancel
                                   unset: the caller's */
  double budget_multiple;       /* --budget Nx: N; 0 otherwise (the command
                                   measures ffm's time and calls
                                   ffm_cli_search_set_budget_multiple()) */
  double ffm_seconds;           /* T, ffm's time the budget multiplies, 0 */
  FfmCliTimeUnit time_unit;     /* --budget-reference */
  double time_unit_given;       /* FFM_CLI_TIME_UNIT_GIVEN: T in seconds */
  FfmConstraints *constraints;  /* the mapping constraints, or NULL (owned;
                                   context.constraints points here) */
} FfmCliSearch;

/* Checks @options and fills @out for @problem (borrowed: it must outlive
 * @out). Returns an exit status, having printed the error: FFM_EXIT_USAGE
 * for malformed options (with the help), FFM_EXIT_FAILURE for an unknown
 * strategy. */
int ffm_cli_search_prepare (GOptionContext *context,
                            const char *command,
                            const FfmCliSearchOptions *options,
                            const FfmCliRunOptions *run,
                            FfmPluginRegistry *registry,
                            FfmProblem *problem,
                            FfmCliSearch *out);
void ffm_cli_search_clear (FfmCliSearch *search);
/* Records the strategy with every parameter value (the defaults
 * included), the objective and the search options in @info. */
void ffm_cli_search_record (const FfmCliSearch *search, FfmResultInfo *info);

/* Parses --budget: "Nx" (N > 0 times ffm's wall time on the same problem)
 * into *@multiple, or "Ns" (N > 0 seconds of modelled time) into
 * *@seconds; the other is set to 0. FALSE with a message naming the
 * option for anything else. */
gboolean ffm_cli_parse_budget (const char *text,
                               double *multiple,
                               double *seconds,
                               GError **error);

/* Parses --budget-reference: "wall", "cpu", or a number of seconds (an
 * optional "s"), > 0, into *@unit and *@given (0 unless given). FALSE
 * with a message naming the option for anything else. */
gboolean ffm_cli_parse_budget_reference (const char *text,
                                         FfmCliTimeUnit *unit,
                                         double *given,
                                         GError **error);
/* "wall", "cpu" or "given" (transfer none). */
const char *ffm_cli_time_unit_to_string (FfmCliTimeUnit unit);
/* CPU time of the whole process so far (every thread), s; NAN when the
 * system does not say. */
double ffm_cli_process_cpu_seconds (void);

/* The modelled-time budget of --budget Nx once ffm's wall time
 * @ffm_seconds on the problem is known: N x @ffm_seconds. */
void ffm_cli_search_set_budget_multiple (FfmCliSearch *search,
                                         double ffm_seconds);

/* T, the time --budget Nx multiplies: the seconds given
 * (--budget-reference SECONDS), or the ffm strategy run on @search's
 * problem with its objective and mapspace settings and no budget
 * (progress and cancel as in @search's context), its wall time or its CPU
 * time over its threads (--budget-reference cpu; the wall time when the
 * CPU time is too short to measure). In *@seconds. */
gboolean ffm_cli_search_time_ffm (const FfmCliSearch *search,
                                  FfmPluginRegistry *registry,
                                  double *seconds,
                                  GError **error);

/* The convergence trace of @result as CSV: a header line, then one line
 * per point: evaluations, seconds, modelled_seconds, pmapping_queries,
 * best_objective (and, when @strategy is non-NULL, strategy and @run
 * first). (transfer full) */
/* Writes member "trace": an array of {evaluations, seconds,
 * modelled_seconds, pmapping_queries, best_objective}. */
void ffm_cli_write_trace_json (FfmJsonWriter *writer,
                               const FfmSearchResult *result);
/* Writes member "budget": {max_evaluations, max_seconds,
 * max_modelled_seconds, ffm_multiple, ffm_seconds} of @search. */
void ffm_cli_search_write_budget_json (FfmJsonWriter *writer,
                                       const FfmCliSearch *search);

char *ffm_cli_trace_to_csv (const FfmSearchResult *result,
                            const char *strategy,
                            guint run,
                            gboolean header);

/* What one run gave. */
typedef struct {
  FfmSearchResult *result;      /* owned */
  GPtrArray *reports;           /* of FfmCostReport*, one per solution: the
                                   cost model's evaluation (owned) */
  guint best;                   /* the solution of lowest EDP */
  double seconds;               /* wall time of the run */
} FfmCliSearchRun;

/* Runs the strategy and evaluates every solution it returns with the cost
 * model; the solutions' loops get their remainders
 * (ffm_mapping_set_remainders()), so that printed and saved mappings show
 * them. Fails when the strategy fails (its error, or "failed without
 * saying why"), returns no solution (FFM_SEARCH_ERROR_INFEASIBLE), or
 * returns a mapping the model refuses. */
gboolean ffm_cli_search_run (FfmCliSearch *search,
                             FfmCliSearchRun *out,
                             GError **error);
void ffm_cli_search_run_clear (FfmCliSearchRun *run);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FfmCliSearchOptions, ffm_cli_search_options_clear)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FfmCliSearch, ffm_cli_search_clear)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FfmCliSearchRun, ffm_cli_search_run_clear)

G_END_DECLS
