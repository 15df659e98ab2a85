/* join.h: the FFM join, Einsum by Einsum (private to the ffm plugin).
 *
 * Joins the Pareto pmappings of each Einsum (ffm-pmapping.h) into full
 * mappings in workload order, keeping in each compatibility group only
 * rows that no other row beats in every objective and every reservation
 * [1, §3-§6]. The rules of what may join are those of ffm-join.h; this file
 * applies them to whole groups at once and tracks buffer reservations per
 * lifetime so that a row's validity equals the cost model's verdict on the
 * LoopTree ffm_join_chain_build_mapping() makes of it (docs/ffm-search.md,
 * "Reservations").
 *
 * Representation: a partial mapping of Einsums 0..x is a row of doubles in
 * a group; the group's key (JoinKey) holds everything its rows share: the
 * fused loops the next Einsum must share, and the tensors still to be used
 * later with what the rules need of them. A row holds the objectives
 * (summed in workload order, as the cost model sums them) and, per tracked
 * memory, the open path's reservations r[-1..S-1] (bits at lifetime depth
 * <= d), the open Einsum's total less its capacity (r[S]), and for closed
 * branches hanging at depth d their peak less their capacity (l[0..S],
 * -inf when none). Rows never allocate; groups are found by hashing keys,
 * once per pair of groups, never per row.
 *
 * Determinism: groups and rows are produced in a fixed order (left groups
 * in order, right units in order, rows in order), pruning keeps the first
 * of equal rows, and threads only prune independent groups.
 *
 * [1] The FFM paper; the reference implementation (accelforge), its join of pmappings. */
#pragma once

#include <ffm/ffm.h>

G_BEGIN_DECLS

typedef struct _JoinProblem JoinProblem;

/* The path of pmapping @ref: its template's nodes with its tiles (loops of
 * one iteration kept; ffm_join_pmapping_new() drops them). (transfer full) */
GPtrArray *join_pmapping_path (const FfmEinsumPmappings *pm,
                               const FfmPmappingRef *ref);

/* Reads the pmapping set's groups into the join's units (rows of one
 * group with the same copies and compute unit), Einsum by Einsum. */
/* @max_memory (0: the generation's own limit) bounds what the pmapping
 * set and the join hold together: past it, FFM_SEARCH_ERROR_OUT_OF_MEMORY
 * naming the Einsum. */
JoinProblem *join_problem_new (FfmPmappingSet *set,
                               FfmObjective objective,
                               guint n_threads,
                               guint64 max_memory,
                               GError **error);
void join_problem_free (JoinProblem *problem);

/* How a pass prunes. */
typedef struct {
  double epsilon;           /* > 0: dirty pass, objectives compared in boxes
                               (with a beam: of epsilon times the mean least
                               value of the Einsums so far; without: of
                               ratio 1 + epsilon); 0: exact */
  double beam;              /* > 0, dirty pass for one objective: a step
                               drops its rows whose least completion is
                               above 1 + beam times its best, but for each
                               group's best row; 0: none */
  gboolean bounded;         /* clean pass: drop rows that cannot beat bound */
  FfmObjective objective;   /* what the bound is about */
  double bound;             /* best single objective known (energy, latency or EDP) */
  const double *front;      /* PARETO: known points (energy, latency) pairs */
  guint n_front;
  FfmProgressFunc progress;
  gpointer progress_data;
  const char *phase;        /* progress phase name */
  const FfmSearchContext *context; /* its cancel flag is polled between
                                      Einsums (may be NULL) */
  const guint64 *give_up_above; /* [n_einsums] or NULL: the pass stops
                                   after a step (not the last) that keeps
                                   more rows than this, with no final row
                                   (join_result_gave_up()) */
} JoinPassOptions;

typedef struct _JoinResult JoinResult;

/* Joins every Einsum. Returns NULL with FFM_SEARCH_ERROR_INFEASIBLE when no
 * row survives a step (the message names the Einsum), or with
 * FFM_SEARCH_ERROR_CANCELLED when the context's cancel flag is set. */
JoinResult *join_run (JoinProblem *problem,
                      const JoinPassOptions *options,
                      GError **error);
void join_result_free (JoinResult *result);

/* Rows surviving each step (after pruning), indexed by Einsum. */
const guint64 *join_result_get_survivors (const JoinResult *result,
                                          guint *n_steps);
/* TRUE if the pass stopped at a step keeping more rows than
 * JoinPassOptions.give_up_above allowed; *@step (may be NULL) is that
 * step's Einsum. */
gboolean join_result_gave_up (const JoinResult *result, guint *step);
/* Seconds the pass took. */
double join_result_get_seconds (const JoinResult *result);
/* CPU seconds of the whole process (every thread) each step took,
 * indexed by Einsum. */
const double *join_result_get_step_cpu_seconds (const JoinResult *result,
                                                guint *n_steps);
/* The process's CPU time, s (CLOCK_PROCESS_CPUTIME_ID). */
double join_process_cpu_seconds (void);

/* The complete mappings found: energy and latency of each (the sums of
 * their pmappings), in a fixed order. A pass for one objective keeps the
 * rows of equal best value only; use join_result_pick() for the best. */
guint join_result_get_n_final (const JoinResult *result);
void join_result_get_final (const JoinResult *result,
                            guint index,
                            double *energy,
                            double *latency);

/* The best final row for @objective, or -1 if none: for energy (latency)
 * the least latency (energy) of the rows of least energy (latency); the
 * first of equals. For PARETO: the indices of the front points, energy
 * ascending (transfer full: a GArray of guint). */
int join_result_pick (const JoinResult *result, FfmObjective objective);
GArray *join_result_pick_front (const JoinResult *result);

/* The pmapping chosen for Einsum @einsum by final row @index: its group,
 * its FfmPmappingRef and the order of its fused loops
 * (ffm_join_pmapping_reorder()). */
void join_result_get_choice (const JoinResult *result,
                             guint index,
                             guint einsum,
                             guint *group,
                             FfmPmappingRef *ref,
                             guint *order);

G_END_DECLS
