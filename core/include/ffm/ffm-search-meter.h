/* ffm-search-meter.h: what a search spends, against its budget.
 *
 * The host gives every strategy the same budgets (FfmSearchContext):
 * evaluations, wall seconds, and the paper's modelled time (§7.3), plus a
 * cancel flag. A strategy that walks the mapspace (ffm-mapspace.h) one
 * state at a time counts with a meter:
 *   - every state it evaluates is charged one evaluation and the
 *     mapspace's query weight of a state (the pmapping evaluations a mapper
 *     that evaluates pmappings itself would spend); the modelled time is
 *     the queries times ffm_mapspace_get_seconds_per_pmapping(), divided
 *     by the search's threads (they run at once);
 *   - a strategy that reads pmapping rows itself (to build its own
 *     objective bounds, or to pick rows before evaluating a state) reads
 *     them through ffm_search_meter_read_rows(), which charges each row
 *     read as one query of its Einsum (the mapspace's query weight), no
 *     evaluation: reading every row of the space costs what a mapper that
 *     evaluated them itself would spend;
 *   - every objective it reaches is offered; each improvement becomes a
 *     point of the convergence trace (evaluations, wall seconds, best so
 *     far, queries, modelled seconds);
 *   - it stops when the meter says so: a budget spent or the cancel flag
 *     set (checked every few charges, so stopping is prompt and cheap).
 * A search made of independent parts (annealing chains, islands of a
 * genetic algorithm, sampling streams) gives each part a meter with an
 * equal share of the budgets, and may run the parts on threads with
 * ffm_search_run_parts(). Results then depend on the seed and the number
 * of parts, not on the number of threads, as long as the budget is in
 * evaluations or modelled time (wall-clock budgets and Ctrl-C are never
 * reproducible). ffm_search_meter_finish() merges the parts' traces (as if
 * the parts advanced at the same pace) and writes the totals into the
 * result: statistics "evaluations", "pmapping_queries",
 * "modelled_seconds", "seconds_per_pmapping", "search_seconds",
 * "interrupted" (1 when the cancel flag stopped it), "budget_exhausted"
 * and "target_reached" (1 when a part found a mapping as good as the
 * context's target_objective, which stops it: a comparison timing how
 * long a strategy takes to come near the optimum does not wait for the
 * rest of the budget). While a part runs, the meter of part 0 reports the
 * fraction of the budget spent to the context's progress callback, phase
 * "budget spent", at most four times a second.
 *
 * A meter is used by one thread at a time. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-problem.h>
#include <ffm/ffm-mapspace.h>

G_BEGIN_DECLS

typedef struct _FfmSearchMeter FfmSearchMeter;

/* The meter of part @part of @n_parts (>= 1) of a search with @context.
 * @mapspace (may be NULL: no queries, modelled time = wall time) gives
 * the query weights. @default_evaluations is the budget when the context
 * sets none (0 = none: then only the cancel flag stops the part). Each
 * part gets floor or ceiling of 1/@n_parts of the evaluations (their sum
 * is the budget exactly) and 1/@n_parts of the modelled time. Wall time
 * counts from the meter's creation. (transfer full) */
FFM_API FfmSearchMeter *ffm_search_meter_new (const FfmSearchContext *context,
                                              const FfmMapspace *mapspace,
                                              guint part,
                                              guint n_parts,
                                              guint64 default_evaluations);
FFM_API void ffm_search_meter_free (FfmSearchMeter *meter);

/* Makes @meters the parts of one search: once one reaches the context's
 * target objective after e evaluations of its own, every other stops when
 * it has spent e too (or reached the target earlier): the merged trace up
 * to its first point at the target is then the same on any number of
 * threads. Call once, right after creating them. */
FFM_API void ffm_search_meter_link_parts (FfmSearchMeter *const *meters,
                                          guint n_meters);

/* Charges @evaluations evaluations standing for @pmapping_queries
 * pmapping evaluations. Returns FALSE when the search must stop (a budget
 * is spent or the search was cancelled); the charge counts anyway. */
FFM_API gboolean ffm_search_meter_charge (FfmSearchMeter *meter,
                                          guint64 evaluations,
                                          double pmapping_queries);
/* Charges @n evaluated states of the meter's mapspace. */
FFM_API gboolean ffm_search_meter_charge_states (FfmSearchMeter *meter,
                                                 guint64 n);
/* Reads the energy (J) and latency (s) of rows @first .. @first + @n - 1
 * of group @group of Einsum @einsum of the meter's mapspace into
 * @energy[0 .. @n - 1] and @latency[0 .. @n - 1] (either may be NULL), as
 * ffm_mapspace_group_get_objectives() does, and charges them: @n queries of
 * that Einsum (@n x ffm_mapspace_get_query_weight()), no evaluation. The
 * rows must exist, and the meter must have a mapspace. Returns FALSE when
 * the search must stop (the rows are read all the same). */
FFM_API gboolean ffm_search_meter_read_rows (FfmSearchMeter *meter,
                                             guint einsum,
                                             guint group,
                                             guint first,
                                             guint n,
                                             double *energy,
                                             double *latency);
/* TRUE once the part must stop (as the last charge said). */
FFM_API gboolean ffm_search_meter_is_done (const FfmSearchMeter *meter);
/* Whether @n more states may be evaluated: FALSE when done, or when the
 * evaluation or modelled-time budget has no room for them. */
FFM_API gboolean ffm_search_meter_has_room (const FfmSearchMeter *meter,
                                            guint64 n);

/* Offers an objective value reached after the last charge; returns TRUE
 * (and adds a trace point) when it is the part's best so far. INFINITY
 * (nothing fits) never improves. */
FFM_API gboolean ffm_search_meter_offer (FfmSearchMeter *meter,
                                         double objective);
FFM_API double ffm_search_meter_get_best (const FfmSearchMeter *meter);

/* The fraction of the part's budget spent, in [0, 1]: of its evaluations
 * or modelled time, whichever is further along, or of its wall time when
 * it has neither; 0 without any budget. Annealing schedules read this. */
FFM_API double ffm_search_meter_get_fraction (const FfmSearchMeter *meter);
FFM_API guint64 ffm_search_meter_get_evaluations (const FfmSearchMeter *meter);
FFM_API double ffm_search_meter_get_pmapping_queries (const FfmSearchMeter *meter);
/* The part's modelled time: its queries x the time of one pmapping
 * evaluation x @n_parts / the context's threads (the part stands for its
 * share of a search that runs all parts at once). */
FFM_API double ffm_search_meter_get_modelled_seconds (const FfmSearchMeter *meter);
FFM_API gboolean ffm_search_meter_was_cancelled (const FfmSearchMeter *meter);

/* Merges the trace points of @meters (every point of part p at its own
 * evaluations e and queries q is placed at e x n and q x n, n = @n_meters:
 * the parts advance alike), in order of evaluations, keeping the running
 * best, then one last point with the true totals; and sets the
 * statistics listed above. */
FFM_API void ffm_search_meter_finish (FfmSearchMeter *const *meters,
                                      guint n_meters,
                                      FfmSearchResult *result);

/* Ends a search made of parts, as the baselines do: the state of lowest
 * objective among @best_states (@best_states[p] is part p's best, worth
 * ffm_search_meter_get_best (@meters[p]); the first of equals) becomes a
 * new result (ffm_mapspace_add_solution(): the cost model's energy and
 * latency) with the merged trace and statistics
 * (ffm_search_meter_finish()) and the statistic "best_part". When no part
 * found a state that fits: NULL with a copy of @reason when given (why a
 * part could not start), else FFM_SEARCH_ERROR_CANCELLED when the search
 * was stopped, else FFM_SEARCH_ERROR_INFEASIBLE; messages name @owner.
 * (transfer full) */
FFM_API FfmSearchResult *ffm_search_meter_best_result (const FfmMapspace *mapspace,
                                                      FfmSearchMeter *const *meters,
                                                      FfmMapspaceChoice *const *best_states,
                                                      guint n_parts,
                                                      const char *owner,
                                                      const GError *reason,
                                                      GError **error);

/* One step of part @part; FALSE when the part is finished. */
typedef gboolean (*FfmSearchStepFunc) (gpointer part, gpointer user_data);

/* Runs parts @parts[0 .. @n_parts) to completion on min(@n_threads,
 * @n_parts) threads (the calling one included): thread t steps parts t,
 * t + n_threads, ... in turn, one step each, until each step function has
 * returned FALSE. Steps of one part never run concurrently. */
FFM_API void ffm_search_run_parts (guint n_threads,
                                   gpointer *parts,
                                   guint n_parts,
                                   FfmSearchStepFunc step,
                                   gpointer user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmSearchMeter, ffm_search_meter_free)

G_END_DECLS
