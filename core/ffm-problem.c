/* ffm-problem.c: problems, objectives and search results (see
 * ffm-problem.h). */
#include <ffm/ffm-problem.h>

#include <string.h>

/* ---- Problems ---- */

struct _FfmProblem {
  grefcount ref_count;
  FfmWorkload *workload;        /* owned reference */
  FfmArch *arch;                /* owned reference */
};

/**
 * ffm_problem_new:
 * @workload: (transfer none): the workload; a reference is taken
 * @arch: (transfer none): the architecture; a reference is taken
 *
 * Returns: (transfer full): a new problem
 */
FfmProblem *
ffm_problem_new (FfmWorkload *workload, FfmArch *arch)
{
  FfmProblem *problem;

  g_return_val_if_fail (workload != NULL, NULL);
  g_return_val_if_fail (arch != NULL, NULL);

  problem = g_new0 (FfmProblem, 1);
  g_ref_count_init (&problem->ref_count);
  problem->workload = ffm_workload_ref (workload);
  problem->arch = ffm_arch_ref (arch);
  return problem;
}

FfmProblem *
ffm_problem_ref (FfmProblem *problem)
{
  g_return_val_if_fail (problem != NULL, NULL);

  g_ref_count_inc (&problem->ref_count);
  return problem;
}

void
ffm_problem_unref (FfmProblem *problem)
{
  if (problem == NULL)
    return;
  if (!g_ref_count_dec (&problem->ref_count))
    return;
  ffm_workload_unref (problem->workload);
  ffm_arch_unref (problem->arch);
  g_free (problem);
}

/**
 * ffm_problem_get_workload:
 *
 * Returns: (transfer none): the problem's workload
 */
FfmWorkload *
ffm_problem_get_workload (const FfmProblem *problem)
{
  g_return_val_if_fail (problem != NULL, NULL);
  return problem->workload;
}

/**
 * ffm_problem_get_arch:
 *
 * Returns: (transfer none): the problem's architecture
 */
FfmArch *
ffm_problem_get_arch (const FfmProblem *problem)
{
  g_return_val_if_fail (problem != NULL, NULL);
  return problem->arch;
}

/* ---- Objectives ---- */

/* Indexed by FfmObjective; these are the words users type (--objective). */
static const char *const objective_names[] = {
  [FFM_OBJECTIVE_EDP] = "edp",
  [FFM_OBJECTIVE_ENERGY] = "energy",
  [FFM_OBJECTIVE_LATENCY] = "latency",
  [FFM_OBJECTIVE_PARETO] = "pareto",
};

/**
 * ffm_objective_to_string:
 *
 * Returns: (transfer none): "edp", "energy", "latency" or "pareto", or
 *   "unknown" for a value outside the enumeration
 */
const char *
ffm_objective_to_string (FfmObjective objective)
{
  if ((guint) objective < G_N_ELEMENTS (objective_names))
    return objective_names[objective];
  return "unknown";
}

/**
 * ffm_objective_from_string:
 * @text: a word as printed by ffm_objective_to_string(), in any case
 * @out: (out): the objective
 *
 * Returns: FALSE with FFM_PARAM_ERROR_INVALID_VALUE if @text names none
 */
gboolean
ffm_objective_from_string (const char *text, FfmObjective *out, GError **error)
{
  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (objective_names); i++)
    if (g_ascii_strcasecmp (text, objective_names[i]) == 0)
      {
        *out = (FfmObjective) i;
        return TRUE;
      }
  g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
               "unknown objective '%s' (expected edp, energy, latency or pareto)",
               text);
  return FALSE;
}

static const char *const imperfect_names[] = { "none", "spatial", "temporal", "all" };

const char *
ffm_imperfect_to_string (guint imperfect)
{
  return imperfect_names[imperfect & FFM_IMPERFECT_ALL];
}

gboolean
ffm_imperfect_from_string (const char *text, guint *out, GError **error)
{
  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (imperfect_names); i++)
    if (g_ascii_strcasecmp (text, imperfect_names[i]) == 0)
      {
        *out = i;
        return TRUE;
      }
  g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
               "unknown remainder-tile setting '%s' (expected none, spatial, "
               "temporal or all)", text);
  return FALSE;
}

/* ---- Search contexts ---- */

/* The defaults of a search, as `ffm map` uses them when no option says
 * otherwise. */
#define DEFAULT_SEED 1
#define DEFAULT_MAX_FUSED_LOOPS (-1)

void
ffm_search_context_init (FfmSearchContext *context, FfmProblem *problem)
{
  g_return_if_fail (context != NULL);

  memset (context, 0, sizeof (*context));
  context->struct_size = sizeof (FfmSearchContext);
  context->problem = problem;
  context->objective = FFM_OBJECTIVE_EDP;
  context->max_evaluations = 0;
  context->max_seconds = 0;
  context->seed = DEFAULT_SEED;
  context->n_threads = 1;
  context->max_fused_loops = DEFAULT_MAX_FUSED_LOOPS;
  context->max_fused_loops_per_rank_var = 1;
  context->unfused = FALSE;
  context->progress = NULL;
  context->progress_data = NULL;
  context->cancel = NULL;
  context->max_modelled_seconds = 0;
  context->mapspace = NULL;
}

gboolean
ffm_search_context_require_one_objective (const FfmSearchContext *context,
                                          const char *owner, GError **error)
{
  g_return_val_if_fail (context != NULL, FALSE);
  if (context->objective != FFM_OBJECTIVE_PARETO)
    return TRUE;
  g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
               "%s optimises one objective (edp, energy or latency), not the "
               "Pareto front", owner);
  return FALSE;
}

gboolean
ffm_search_context_is_cancelled (const FfmSearchContext *context)
{
  g_return_val_if_fail (context != NULL, FALSE);
  return FFM_SEARCH_CONTEXT_HAS (context, cancel) && context->cancel != NULL
    && g_atomic_int_get (context->cancel) != 0;
}

/* ---- Search results ---- */

struct _FfmSearchResult {
  GArray *solutions;            /* of FfmSolution; mappings owned */
  GArray *trace;                /* of FfmTracePoint, in the order added */
  GArray *stats;                /* of FfmStat; names owned, insertion order */
};

static void
solution_clear (gpointer data)
{
  FfmSolution *solution = data;

  g_clear_pointer (&solution->mapping, ffm_mapping_free);
}

static void
stat_clear (gpointer data)
{
  FfmStat *stat = data;

  g_clear_pointer (&stat->name, g_free);
}

/**
 * ffm_search_result_new:
 *
 * Returns: (transfer full): an empty result (no solution, no trace, no stats)
 */
FfmSearchResult *
ffm_search_result_new (void)
{
  FfmSearchResult *result = g_new0 (FfmSearchResult, 1);

  result->solutions = g_array_new (FALSE, TRUE, sizeof (FfmSolution));
  g_array_set_clear_func (result->solutions, solution_clear);
  result->trace = g_array_new (FALSE, TRUE, sizeof (FfmTracePoint));
  result->stats = g_array_new (FALSE, TRUE, sizeof (FfmStat));
  g_array_set_clear_func (result->stats, stat_clear);
  return result;
}

void
ffm_search_result_free (FfmSearchResult *result)
{
  if (result == NULL)
    return;
  g_array_unref (result->solutions);
  g_array_unref (result->trace);
  g_array_unref (result->stats);
  g_free (result);
}

/**
 * ffm_search_result_add_solution:
 * @mapping: (transfer full): the solution's mapping
 * @energy: total energy, J
 * @latency: total latency, s
 */
void
ffm_search_result_add_solution (FfmSearchResult *result,
                                FfmMapping *mapping,
                                double energy,
                                double latency)
{
  FfmSolution solution = { mapping, energy, latency };

  g_return_if_fail (result != NULL);
  g_return_if_fail (mapping != NULL);

  g_array_append_val (result->solutions, solution);
}

guint
ffm_search_result_get_n_solutions (const FfmSearchResult *result)
{
  g_return_val_if_fail (result != NULL, 0);
  return result->solutions->len;
}

/**
 * ffm_search_result_get_solution:
 * @index: below ffm_search_result_get_n_solutions()
 *
 * Returns: (transfer none): the solution, valid until the next solution is
 *   added or the result is freed
 */
const FfmSolution *
ffm_search_result_get_solution (const FfmSearchResult *result, guint index)
{
  g_return_val_if_fail (result != NULL, NULL);
  g_return_val_if_fail (index < result->solutions->len, NULL);
  return &g_array_index (result->solutions, FfmSolution, index);
}

/**
 * ffm_search_result_add_trace_point:
 * @evaluations: evaluations done so far
 * @seconds: time since the search started, s
 * @best_objective: best objective value found so far
 */
void
ffm_search_result_add_trace_point (FfmSearchResult *result,
                                   guint64 evaluations,
                                   double seconds,
                                   double best_objective)
{
  FfmTracePoint point = { evaluations, seconds, best_objective, 0, seconds };

  g_return_if_fail (result != NULL);
  g_array_append_val (result->trace, point);
}

/**
 * ffm_search_result_add_trace:
 * @point: (transfer none): the point, copied
 */
void
ffm_search_result_add_trace (FfmSearchResult *result, const FfmTracePoint *point)
{
  g_return_if_fail (result != NULL && point != NULL);
  g_array_append_val (result->trace, *point);
}

/**
 * ffm_search_result_get_trace:
 *
 * Returns: (transfer none) (element-type FfmTracePoint): the trace, in the
 *   order the points were added
 */
const GArray *
ffm_search_result_get_trace (const FfmSearchResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  return result->trace;
}

/**
 * ffm_search_result_set_stat:
 * @name: statistic name, e.g. "pmappings_generated"
 * @value: its value; replaces an earlier value of @name in place
 */
void
ffm_search_result_set_stat (FfmSearchResult *result,
                            const char *name,
                            double value)
{
  FfmStat stat;

  g_return_if_fail (result != NULL);
  g_return_if_fail (name != NULL);

  for (guint i = 0; i < result->stats->len; i++)
    {
      FfmStat *old = &g_array_index (result->stats, FfmStat, i);
      if (strcmp (old->name, name) == 0)
        {
          old->value = value;
          return;
        }
    }
  stat.name = g_strdup (name);
  stat.value = value;
  g_array_append_val (result->stats, stat);
}

/**
 * ffm_search_result_get_stats:
 *
 * Returns: (transfer none) (element-type FfmStat): the statistics, in the
 *   order their names were first set
 */
const GArray *
ffm_search_result_get_stats (const FfmSearchResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  return result->stats;
}

/**
 * ffm_search_result_lookup_stat:
 * @out: (out): the value, written only when found
 *
 * Returns: TRUE if @name was set
 */
gboolean
ffm_search_result_lookup_stat (const FfmSearchResult *result,
                               const char *name,
                               double *out)
{
  g_return_val_if_fail (result != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  for (guint i = 0; i < result->stats->len; i++)
    {
      const FfmStat *stat = &g_array_index (result->stats, FfmStat, i);
      if (strcmp (stat->name, name) == 0)
        {
          *out = stat->value;
          return TRUE;
        }
    }
  return FALSE;
}
