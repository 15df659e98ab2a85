/* ffm-cmd-compare-private.h: what the two halves of `ffm compare` share.
 *
 * cli/ffm-cmd-compare.c holds the command and one comparison (the FFM
 * paper's Fig. 8: ffm once, every other strategy --runs times on one
 * shared mapspace, tables, files, plot); cli/ffm-cmd-compare-sweep.c runs
 * that comparison once per number of Einsums (--sweep-einsums, Fig. 9).
 * The sweep needs the comparison's options and state and the few steps
 * below; nothing outside the command includes this header. */
#pragma once

#include "ffm-cli-cancel.h"
#include "ffm-cli-common.h"
#include "ffm-cli-progress.h"
#include "ffm-cli-search.h"
#include "ffm-cli-visual.h"

#include <ffm/ffm.h>

G_BEGIN_DECLS

#define COMMAND "compare"


typedef struct {
  FfmCliCommon common;
  FfmCliRunOptions run;
  FfmCliProblemOptions problem;
  FfmCliSearchOptions search;
  char *strategies;             /* --strategies (owned) */
  int runs;                     /* --runs */
  char *checkpoints;            /* --checkpoints (owned) */
  char *baseline_space;         /* --baseline-space (owned) */
  char *charge;                 /* --charge (owned) */
  char *sweep_einsums;          /* --sweep-einsums (owned) */
  double within;                /* --within, percent */
  char *json;
  char *csv;
  char *trace_csv;
  char *plot;
  FfmCliVisualOptions visual;   /* --html */
  /* Parsed: */
  FfmMapspaceSpace space;
  FfmMapspaceCharge charge_model;
  FfmCliTimeUnit unit;          /* --budget-reference */
  double unit_given;            /* FFM_CLI_TIME_UNIT_GIVEN: T in seconds */
  gboolean data_to_stdout;      /* a data output is "-": no text on stdout */
} CompareOptions;

/* One run of one strategy. */
typedef struct {
  guint64 seed;
  FfmSearchResult *result;      /* owned, NULL if it failed */
  double objective;             /* the model's, of its best mapping */
  double seconds;               /* wall time of the run */
  gboolean interrupted;
} Run;

typedef struct {
  const char *name;
  FfmCliSearch search;
  GArray *runs;                 /* of Run */
} Entry;

typedef struct {
  double median, low, high;     /* percent above the optimum, over the runs
                                   that reached the checkpoint; INFINITY: none */
  guint with_mapping;           /* of those, runs with a mapping by then */
  guint reached;                /* runs that reached the checkpoint */
} Spread;

/* The progress line's phase: a prefix naming the run, then what the
 * strategy says (its phase, or the budget spent). */
typedef struct {
  FfmCliProgress *progress;     /* borrowed */
  char prefix[128];
} Phase;

/* One comparison on one problem. */
typedef struct {
  FfmProblem *problem;          /* borrowed */
  FfmCliSearch ffm_search;
  GPtrArray *entries;           /* of Entry * (owned) */
  Run ffm;
  double optimum;
  double offset;                /* s: the shared generation and mapspace */
  double ffm_cpu_seconds;       /* the process's CPU time during ffm's run:
                                   its wall time on an unloaded machine is
                                   about this over the threads */
  double unit_seconds;          /* T: ffm's time the budget and checkpoints
                                   are multiples of (--budget-reference) */
  FfmMapspace *ms;              /* the shared mapspace (owned), NULL */
  char *stopped;                /* why it stopped early (owned), NULL */
  gboolean beaten;
  gboolean ffm_done;
} Comparison;

/* Clears @c (not the problem it borrows). */
void ffm_compare_clear (Comparison *c);
/* Returns memory the last phase freed to the system. */
void ffm_compare_give_back_memory (void);
/* The modelled time at which @result first came within @target (an
 * objective), INFINITY if it never did. */
double ffm_compare_time_to (const FfmSearchResult *result, double target);
/* The members every comparison's JSON opens with. */
void ffm_compare_write_header_json (FfmJsonWriter *b, const CompareOptions *o,
                                    FfmProblem *problem, const FfmCliSearch *search,
                                    const FfmCliSearch *budget, const char *stopped);
/* Prepares ffm and every other strategy of @names on @problem (borrowed:
 * it outlives @c). @ffm_reuse_off: ffm enumerates every Einsum. Returns an
 * exit status. */
int ffm_compare_prepare (GOptionContext *context, CompareOptions *o,
                         FfmPluginRegistry *registry, FfmProblem *problem, char **names,
                         gboolean ffm_reuse_off, Comparison *c);
/* Runs ffm, builds the shared mapspace, then every other strategy's runs
 * (@target_percent > 0: each run stops once within that of the optimum).
 * Returns an exit status. */
int ffm_compare_run (const CompareOptions *o, Comparison *c, const FfmCliCancel *cancel,
                     Phase *phase, const char *what, double target_percent);
/* "1000x ffm's time (131 s of modelled time)" and the like (transfer full). */
char *ffm_compare_budget_text (const FfmCliSearch *ref);
/* The search whose budget stands for every run's (transfer none). */
const FfmCliSearch *ffm_compare_budget_reference (const Comparison *c);
/* --sweep-einsums: the comparison once per number of Einsums in @sizes
 * (of double); returns an exit status. */
int ffm_compare_run_sweep (GOptionContext *context, CompareOptions *o,
                           FfmPluginRegistry *registry, char **names, const GArray *sizes);

G_END_DECLS
