/* ffm-cli-search.c: search options, context and run. */
#include "ffm-cli-search.h"
#include "ffm-cli-cancel.h"

#include <string.h>

void
ffm_cli_search_options_clear (FfmCliSearchOptions *o)
{
  g_clear_pointer (&o->strategy, g_free);
  g_clear_pointer (&o->strategy_params, g_strfreev);
  g_clear_pointer (&o->objective, g_free);
  g_clear_pointer (&o->imperfect, g_free);
}

/* The help text of --imperfect (also `ffm pmappings`'s). */
const char ffm_cli_imperfect_help[] =
  "Loops whose tile need not divide the enclosing tile, the last iteration "
  "working on the remainder: none (default), spatial, temporal or all";

void
ffm_cli_add_search_options (GOptionContext *context, FfmCliSearchOptions *o)
{
  const GOptionEntry entries[] = {
    { "strategy", 's', 0, G_OPTION_ARG_STRING, &o->strategy,
      "Search strategy (a search plugin from `ffm list`; default ffm)", "NAME" },
    { "strategy-param", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->strategy_params,
      "Set a strategy parameter (repeatable)", "KEY=VALUE" },
    { "objective", 'o', 0, G_OPTION_ARG_STRING, &o->objective,
      "edp (default), energy, latency, or pareto (the energy-latency front)", "OBJ" },
    { "max-fused-loops", 0, 0, G_OPTION_ARG_INT, &o->max_fused_loops,
      "Fused loops (of more than one iteration) per pmapping, -1 = no limit "
      "(default 1)", "N" },
    { "unfused", 0, 0, G_OPTION_ARG_NONE, &o->unfused,
      "Back every tensor in the outermost memory (no fusion)", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->timeout,
      "Stop the search after SECONDS (as Ctrl-C does): the best mapping so far "
      "where the strategy has one, otherwise an error", "SECONDS" },
    { "imperfect", 0, 0, G_OPTION_ARG_STRING, &o->imperfect,
      ffm_cli_imperfect_help, "LOOPS" },
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

int
ffm_cli_search_prepare (GOptionContext *context, const char *command,
                        const FfmCliSearchOptions *o, const FfmCliCommon *common,
                        FfmPluginRegistry *registry, FfmProblem *problem,
                        FfmCliSearch *out)
{
  g_autoptr (GError) error = NULL;
  guint imperfect = FFM_IMPERFECT_NONE;

  memset (out, 0, sizeof *out);
  out->objective = FFM_OBJECTIVE_EDP;
  if (o->objective != NULL
      && !ffm_objective_from_string (o->objective, &out->objective, &error))
    return ffm_cli_usage_error (context, command, "%s", error->message);
  if (o->imperfect != NULL
      && !ffm_imperfect_from_string (o->imperfect, &imperfect, &error))
    return ffm_cli_usage_error (context, command, "--imperfect: %s", error->message);
  if (o->max_fused_loops < -1)
    return ffm_cli_usage_error (context, command,
                                "--max-fused-loops must be -1 (no limit) or more");
  if (!ffm_cli_timeout_is_valid (o->timeout))
    return ffm_cli_usage_error (context, command,
                                "--timeout must be a number of seconds from 0 "
                                "(none) to %.0f", FFM_CLI_MAX_TIMEOUT);
  out->strategy_values = ffm_cli_parse_assignments (o->strategy_params,
                                                    "--strategy-param", &error);
  if (out->strategy_values == NULL)
    return ffm_cli_usage_error (context, command, "%s", error->message);
  out->plugin = ffm_plugin_registry_lookup (registry, FFM_PLUGIN_KIND_SEARCH,
                                            o->strategy != NULL ? o->strategy : "ffm",
                                            &error);
  if (out->plugin == NULL)
    {
      ffm_cli_warn_plugin_failures (command, registry);
      return ffm_cli_fail (command, error);
    }
  ffm_search_context_init (&out->context, problem);
  out->context.objective = out->objective;
  out->context.seed = (guint64) common->seed;
  out->context.n_threads = ffm_cli_common_get_threads (common);
  out->context.max_fused_loops = o->max_fused_loops;
  out->context.unfused = o->unfused;
  out->context.imperfect = imperfect;
  return FFM_EXIT_OK;
}

void
ffm_cli_search_clear (FfmCliSearch *s)
{
  g_clear_pointer (&s->strategy_values, ffm_param_values_free);
  s->plugin = NULL;
}

gboolean
ffm_cli_search_run (FfmCliSearch *s, FfmCliSearchRun *out, GError **error)
{
  FfmWorkload *w = ffm_problem_get_workload (s->context.problem);
  FfmArch *a = ffm_problem_get_arch (s->context.problem);
  const char *name = s->plugin->descriptor->name;
  gint64 start = g_get_monotonic_time ();
  double best_edp = G_MAXDOUBLE;

  memset (out, 0, sizeof *out);
  out->result = s->plugin->descriptor->vtable.search->run (&s->context,
                                                           s->strategy_values,
                                                           error);
  out->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  if (out->result == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                     "strategy %s failed without saying why", name);
      return FALSE;
    }
  if (ffm_search_result_get_n_solutions (out->result) == 0)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                   "strategy %s found no mapping of %s that fits %s", name,
                   ffm_workload_get_name (w), ffm_arch_get_name (a));
      return FALSE;
    }
  /* The model's numbers for every solution, whatever the strategy says. */
  out->reports = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_cost_report_free);
  for (guint i = 0; i < ffm_search_result_get_n_solutions (out->result); i++)
    {
      const FfmSolution *sol = ffm_search_result_get_solution (out->result, i);
      FfmCostReport *r = ffm_cost_evaluate_mapping (w, a, sol->mapping, error);
      ffm_mapping_set_remainders (sol->mapping, w);
      if (r == NULL)
        {
          g_prefix_error (error, "strategy %s returned a mapping the cost "
                          "model refuses: ", name);
          return FALSE;
        }
      if (ffm_cost_report_get_edp (r) < best_edp)
        {
          best_edp = ffm_cost_report_get_edp (r);
          out->best = i;
        }
      g_ptr_array_add (out->reports, r);
    }
  return TRUE;
}

void
ffm_cli_search_run_clear (FfmCliSearchRun *run)
{
  g_clear_pointer (&run->result, ffm_search_result_free);
  g_clear_pointer (&run->reports, g_ptr_array_unref);
}
