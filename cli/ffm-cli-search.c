/* ffm-cli-search.c: search options, context and run. */
#include "ffm-cli-search.h"
#include "ffm-cli-cancel.h"
#include "ffm-cli-mpi-points.h"

#include <math.h>
#include <string.h>
#include <sys/resource.h>

void
ffm_cli_search_options_clear (FfmCliSearchOptions *o)
{
  g_clear_pointer (&o->strategy, g_free);
  g_clear_pointer (&o->strategy_params, g_strfreev);
  g_clear_pointer (&o->objective, g_free);
  g_clear_pointer (&o->budget, g_free);
  g_clear_pointer (&o->budget_reference, g_free);
  g_clear_pointer (&o->imperfect, g_free);
  g_clear_pointer (&o->constraint_files, g_strfreev);
  g_clear_pointer (&o->policy, g_free);
  g_clear_pointer (&o->fuse, g_strfreev);
  g_clear_pointer (&o->no_fuse, g_strfreev);
  g_clear_pointer (&o->backing, g_strfreev);
  g_clear_pointer (&o->keep, g_strfreev);
  g_clear_pointer (&o->forbid, g_strfreev);
  g_clear_pointer (&o->stationary, g_strfreev);
  ffm_cli_generator_limits_clear (&o->limits);
}

void
ffm_cli_search_options_fingerprint (const FfmCliProblemOptions *problem,
                                    const FfmCliSearchOptions *o, guint64 *hash)
{
  g_autofree char *numbers = g_strdup_printf ("%d %d %d %" G_GINT64_FORMAT " %.17g %s "
                                              "%.17g %" G_GINT64_FORMAT,
                                              o->max_fused_loops, o->max_fused_per_var,
                                              o->unfused,
                                              o->max_evaluations, o->max_seconds,
                                              o->imperfect != NULL ? o->imperfect : "",
                                              o->limits.max_template_seconds,
                                              o->limits.max_templates);
  char *const *lists[] = { problem->params, problem->arch_params, o->strategy_params,
                           o->constraint_files, o->fuse, o->no_fuse, o->backing,
                           o->keep, o->forbid, o->stationary };
  const char *texts[] = { problem->arch, problem->workload, o->strategy, o->objective,
                          o->budget, o->policy, o->limits.max_memory };

  ffm_cli_mpi_fingerprint_add (hash, numbers);
  for (guint k = 0; k < G_N_ELEMENTS (texts); k++)
    ffm_cli_mpi_fingerprint_add (hash, texts[k]);
  for (guint k = 0; k < G_N_ELEMENTS (lists); k++)
    {
      for (guint i = 0; lists[k] != NULL && lists[k][i] != NULL; i++)
        ffm_cli_mpi_fingerprint_add (hash, lists[k][i]);
      ffm_cli_mpi_fingerprint_add (hash, "\n");   /* where a list ends */
    }
}

void
ffm_cli_add_constraint_options (GOptionContext *context, FfmCliSearchOptions *o)
{
  const GOptionEntry entries[] = {
    { "constraints", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->constraint_files,
      "Mapping constraints from a JSON file (docs/file-formats.md; repeatable)",
      "FILE" },
    { "policy", 0, 0, G_OPTION_ARG_STRING, &o->policy,
      "A named constraint set shipped with ffm (`ffm list` shows them: "
      "transfusion, unfused, ...) or a constraint file", "NAME" },
    { "fuse", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->fuse,
      "Keep the shared tensors TENSORS on chip (at LEVEL if given; a tensor "
      "set expression such as 'intermediates - (K | V)')", "TENSORS[@LEVEL]" },
    { "no-fuse", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->no_fuse,
      "Back the shared tensors TENSORS in the outermost memory", "TENSORS" },
    { "backing", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->backing,
      "Back TENSORS at LEVEL", "TENSORS@LEVEL" },
    { "keep", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->keep,
      "Keep a tile of TENSORS at LEVEL", "TENSORS@LEVEL" },
    { "forbid", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->forbid,
      "Keep no tile of TENSORS at LEVEL", "TENSORS@LEVEL" },
    { "stationary", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->stationary,
      "TENSORS-stationary dataflow at LEVEL (e.g. weight@GlobalBuffer, "
      "output@GlobalBuffer)", "TENSORS@LEVEL" },
    { "timeloop-constraints", 0, 0, G_OPTION_ARG_NONE, &o->timeloop_constraints_on,
      "With --arch timeloop:...: search under Timeloop's mapspace constraints "
      "(those written on the architecture, its mapspace and mapping-constraint "
      "sections), translated (the default; docs/timeloop.md)", NULL },
    { "no-timeloop-constraints", 0, 0, G_OPTION_ARG_NONE, &o->timeloop_constraints_off,
      "With --arch timeloop:...: ignore Timeloop's mapspace constraints, search "
      "ffm's whole mapspace", NULL },
    G_OPTION_ENTRY_NULL
  };
  GOptionGroup *group = g_option_group_new ("constraints", "Mapping constraints "
                                            "(docs/file-formats.md):",
                                            "Show the mapping constraint options",
                                            NULL, NULL);

  g_option_group_add_entries (group, entries);
  g_option_context_add_group (context, group);
}

/* Adds the constraint of option --@option with value @text
 * ("TENSORS[@LEVEL]") to @c. */
static gboolean
add_short_constraint (FfmConstraints *c, FfmConstraintKind kind, const char *option,
                      const char *text, gboolean level_allowed,
                      gboolean level_required, GError **error)
{
  const char *at = strrchr (text, '@');
  g_autofree char *tensors = g_strndup (text, at != NULL ? (gsize) (at - text) : strlen (text));
  g_autofree char *origin = g_strdup_printf ("--%s %s", option, text);
  const char *levels[] = { at != NULL ? at + 1 : NULL, NULL };
  FfmConstraintSpec spec = { 0 };

  if ((at != NULL && !level_allowed) || (at == NULL && level_required)
      || (at != NULL && at[1] == '\0') || tensors[0] == '\0')
    {
      g_set_error (error, FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_INVALID,
                   "--%s must be %s, got '%s'", option,
                   level_required ? "TENSORS@LEVEL" : level_allowed ? "TENSORS or "
                   "TENSORS@LEVEL" : "TENSORS (no @LEVEL)", text);
      return FALSE;
    }
  spec.kind = kind;
  spec.tensors = tensors;
  spec.levels = at != NULL ? levels : NULL;
  return ffm_constraints_add (c, &spec, origin, error);
}

gboolean
ffm_cli_constraints_build (const FfmCliSearchOptions *o, FfmProblem *problem,
                           FfmConstraints **out, GError **error)
{
  static const struct {
    const char *option;
    FfmConstraintKind kind;
    gsize offset;
    gboolean level_allowed, level_required;
  } shorts[] = {
    { "fuse", FFM_CONSTRAINT_FUSE, G_STRUCT_OFFSET (FfmCliSearchOptions, fuse), TRUE, FALSE },
    { "no-fuse", FFM_CONSTRAINT_UNFUSE, G_STRUCT_OFFSET (FfmCliSearchOptions, no_fuse), FALSE, FALSE },
    { "backing", FFM_CONSTRAINT_BACKING, G_STRUCT_OFFSET (FfmCliSearchOptions, backing), TRUE, TRUE },
    { "keep", FFM_CONSTRAINT_KEEP, G_STRUCT_OFFSET (FfmCliSearchOptions, keep), TRUE, TRUE },
    { "forbid", FFM_CONSTRAINT_FORBID, G_STRUCT_OFFSET (FfmCliSearchOptions, forbid), TRUE, TRUE },
    { "stationary", FFM_CONSTRAINT_STATIONARY, G_STRUCT_OFFSET (FfmCliSearchOptions, stationary), TRUE, TRUE },
  };
  g_autoptr (FfmConstraints) c = NULL;
  g_autoptr (FfmBoundConstraints) bound = NULL;

  *out = NULL;
  if (o->policy != NULL)
    {
      if ((c = ffm_constraints_load_policy (o->policy, error)) == NULL)
        {
          g_prefix_error (error, "--policy %s: ", o->policy);
          return FALSE;
        }
    }
  for (guint i = 0; o->constraint_files != NULL && o->constraint_files[i] != NULL; i++)
    {
      g_autoptr (FfmConstraints) file = ffm_constraints_load_file (o->constraint_files[i],
                                                                   error);
      if (file == NULL)
        return FALSE;
      if (c == NULL)
        c = g_steal_pointer (&file);
      else
        ffm_constraints_append (c, file);
    }
  for (guint k = 0; k < G_N_ELEMENTS (shorts); k++)
    {
      char **values = G_STRUCT_MEMBER (char **, o, shorts[k].offset);
      for (guint i = 0; values != NULL && values[i] != NULL; i++)
        {
          if (c == NULL)
            c = ffm_constraints_new ("command line");
          if (!add_short_constraint (c, shorts[k].kind, shorts[k].option, values[i],
                                     shorts[k].level_allowed, shorts[k].level_required,
                                     error))
            return FALSE;
        }
    }
  if (o->timeloop_arch != NULL && !o->timeloop_constraints_off)
    {
      g_autoptr (FfmConstraints) tl = NULL;
      if (!ffm_cli_timeloop_constraints (o->timeloop_arch, ffm_problem_get_workload (problem),
                                         ffm_problem_get_arch (problem), &tl, error))
        return FALSE;
      if (tl != NULL && ffm_constraints_get_n (tl) > 0)
        {
          if (c == NULL)
            c = g_steal_pointer (&tl);
          else
            ffm_constraints_append (c, tl);
        }
    }
  if (c == NULL)
    return TRUE;
  bound = ffm_constraints_bind (c, ffm_problem_get_workload (problem),
                                ffm_problem_get_arch (problem), error);
  if (bound == NULL)
    return FALSE;
  *out = g_steal_pointer (&c);
  return TRUE;
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
      "(default -1; 1 = the one-loop space of earlier releases)", "N" },
    { "max-fused-loops-per-rank-var", 0, 0, G_OPTION_ARG_INT, &o->max_fused_per_var,
      "Fused loops (of more than one iteration) per rank variable, -1 = no "
      "limit (default 1)", "N" },
    { "unfused", 0, 0, G_OPTION_ARG_NONE, &o->unfused,
      "Back every tensor in the outermost memory (no fusion)", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->timeout,
      "Stop the search after SECONDS (as Ctrl-C does): the best mapping so far "
      "where the strategy has one, otherwise an error", "SECONDS" },
    { "max-evaluations", 0, 0, G_OPTION_ARG_INT64, &o->max_evaluations,
      "Budget of a strategy that evaluates mappings one by one (set, tileflow, "
      "random, ...): at most N evaluations", "N" },
    { "max-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &o->max_seconds,
      "Budget: at most S seconds of wall time (the strategy stops and returns "
      "its best)", "S" },
    { "budget", 0, 0, G_OPTION_ARG_STRING, &o->budget,
      "Budget in the FFM paper's modelled time: Nx = N times ffm's own run "
      "time on the same problem (measured first), Ns = N seconds", "Nx|Ns" },
    { "budget-reference", 0, 0, G_OPTION_ARG_STRING, &o->budget_reference,
      "T, the time --budget Nx multiplies (and compare's checkpoints): wall (default: "
      "ffm's wall time here, the paper's rule), cpu (ffm's CPU time over its threads: "
      "its wall time on an unloaded machine, steady under load) or SECONDS (given: the "
      "same budget on every run and machine)", "wall|cpu|SECONDS" },
    { "imperfect", 0, 0, G_OPTION_ARG_STRING, &o->imperfect,
      ffm_cli_imperfect_help, "LOOPS" },
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_constraint_options (context, o);
  ffm_cli_add_generator_limit_options (context, &o->limits);
}

int
ffm_cli_search_prepare (GOptionContext *context, const char *command,
                        const FfmCliSearchOptions *o, const FfmCliRunOptions *run,
                        FfmPluginRegistry *registry, FfmProblem *problem,
                        FfmCliSearch *out)
{
  g_autoptr (GError) error = NULL;
  guint imperfect = FFM_IMPERFECT_NONE;
  guint64 max_memory = 0;

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
  if (o->max_fused_per_var < -1)
    return ffm_cli_usage_error (context, command,
                                "--max-fused-loops-per-rank-var must be -1 (no "
                                "limit) or more");
  if (!ffm_cli_timeout_is_valid (o->timeout))
    return ffm_cli_usage_error (context, command,
                                "--timeout must be a number of seconds from 0 "
                                "(none) to %.0f", FFM_CLI_MAX_TIMEOUT);
  if (o->max_evaluations < 0)
    return ffm_cli_usage_error (context, command,
                                "--max-evaluations must be 0 (none) or more");
  if (!ffm_cli_generator_limits_check (&o->limits, &max_memory, &error))
    return ffm_cli_usage_error (context, command, "%s", error->message);
  if (!(o->max_seconds >= 0 && o->max_seconds <= FFM_CLI_MAX_TIMEOUT))
    return ffm_cli_usage_error (context, command,
                                "--max-seconds must be a number of seconds from 0 "
                                "(none) to %.0f", FFM_CLI_MAX_TIMEOUT);
  if (o->budget_reference != NULL
      && !ffm_cli_parse_budget_reference (o->budget_reference, &out->time_unit,
                                          &out->time_unit_given, &error))
    return ffm_cli_usage_error (context, command, "%s", error->message);
  if (o->budget != NULL
      && !ffm_cli_parse_budget (o->budget, &out->budget_multiple,
                                &out->context.max_modelled_seconds, &error))
    return ffm_cli_usage_error (context, command, "%s", error->message);
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
  {
    double modelled = out->context.max_modelled_seconds;
    ffm_search_context_init (&out->context, problem);
    out->context.max_modelled_seconds = modelled;
  }
  out->context.max_evaluations = (guint64) o->max_evaluations;
  out->context.max_seconds = o->max_seconds;
  out->context.objective = out->objective;
  out->context.seed = (guint64) run->seed;
  out->context.n_threads = ffm_cli_run_options_get_threads (run);
  out->context.max_fused_loops = o->max_fused_loops;
  out->context.max_fused_loops_per_rank_var = o->max_fused_per_var;
  out->context.unfused = o->unfused;
  out->context.imperfect = imperfect;
  out->context.max_memory = max_memory;
  out->context.max_template_seconds = o->limits.max_template_seconds;
  out->context.max_templates = (guint) o->limits.max_templates;
  if (!ffm_cli_constraints_build (o, problem, &out->constraints, &error))
    return ffm_cli_fail (command, error);
  out->context.constraints = out->constraints;
  return FFM_EXIT_OK;
}

void
ffm_cli_search_clear (FfmCliSearch *s)
{
  g_clear_pointer (&s->constraints, ffm_constraints_unref);
  s->context.constraints = NULL;
  g_clear_pointer (&s->strategy_values, ffm_param_values_free);
  s->plugin = NULL;
}

void
ffm_cli_search_record (const FfmCliSearch *s, FfmResultInfo *info)
{
  g_autoptr (FfmParamValues) values =
    ffm_cli_resolve_params (s->plugin->descriptor->vtable.search->params,
                            s->strategy_values);

  ffm_result_info_set_strategy (info, s->plugin->descriptor->name, values);
  ffm_result_info_set_objective (info, ffm_objective_to_string (s->objective));
  ffm_result_info_set_option_int (info, "max_fused_loops", s->context.max_fused_loops);
  ffm_result_info_set_option_int (info, "max_fused_loops_per_rank_var",
                                  s->context.max_fused_loops_per_rank_var);
  ffm_result_info_set_option_boolean (info, "unfused", s->context.unfused);
  ffm_result_info_set_option_int (info, "seed", (gint64) s->context.seed);
  ffm_result_info_set_option_int (info, "threads", s->context.n_threads);
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

/* ---- Budgets ---- */

gboolean
ffm_cli_parse_budget (const char *text, double *multiple, double *seconds,
                      GError **error)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);

  *multiple = *seconds = 0;
  if (end != text && end != NULL && (*end == 'x' || *end == 's') && end[1] == '\0'
      && v > 0 && v <= FFM_CLI_MAX_TIMEOUT)
    {
      *(*end == 'x' ? multiple : seconds) = v;
      return TRUE;
    }
  g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
               "--budget must be Nx (N times ffm's time on the same problem, "
               "e.g. 100x) or Ns (N seconds of modelled time), N > 0; got '%s'",
               text);
  return FALSE;
}

/* --budget-reference: wall, cpu, or seconds (a number, an optional "s"). */
gboolean
ffm_cli_parse_budget_reference (const char *text, FfmCliTimeUnit *unit, double *given,
                                GError **error)
{
  char *end = NULL;
  double v;

  *given = 0;
  if (strcmp (text, "wall") == 0 || strcmp (text, "cpu") == 0)
    {
      *unit = text[0] == 'w' ? FFM_CLI_TIME_UNIT_WALL : FFM_CLI_TIME_UNIT_CPU;
      return TRUE;
    }
  v = g_ascii_strtod (text, &end);
  if (end != text && end != NULL && (*end == '\0' || (*end == 's' && end[1] == '\0'))
      && v > 0 && v <= FFM_CLI_MAX_TIMEOUT)
    {
      *unit = FFM_CLI_TIME_UNIT_GIVEN;
      *given = v;
      return TRUE;
    }
  g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
               "--budget-reference takes wall, cpu or a number of seconds more than 0 "
               "and at most %g (e.g. 49.5); got '%s'", (double) FFM_CLI_MAX_TIMEOUT, text);
  return FALSE;
}

const char *
ffm_cli_time_unit_to_string (FfmCliTimeUnit unit)
{
  switch (unit)
    {
    case FFM_CLI_TIME_UNIT_CPU:
      return "cpu";
    case FFM_CLI_TIME_UNIT_GIVEN:
      return "given";
    case FFM_CLI_TIME_UNIT_WALL:
    default:
      return "wall";
    }
}

/* CPU time of the whole process so far (every thread), s. */
double
ffm_cli_process_cpu_seconds (void)
{
  struct rusage u;

  if (getrusage (RUSAGE_SELF, &u) != 0)
    return NAN;
  return (double) u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6
    + (double) u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

void
ffm_cli_search_set_budget_multiple (FfmCliSearch *s, double ffm_seconds)
{
  s->ffm_seconds = ffm_seconds;
  s->context.max_modelled_seconds = s->budget_multiple * ffm_seconds;
}

gboolean
ffm_cli_search_time_ffm (const FfmCliSearch *s, FfmPluginRegistry *registry,
                         double *seconds, GError **error)
{
  const FfmPluginInfo *ffm = ffm_plugin_registry_lookup (registry, FFM_PLUGIN_KIND_SEARCH,
                                                         "ffm", error);
  g_autoptr (FfmSearchResult) result = NULL;
  FfmSearchContext ctx = s->context;
  gint64 start;
  double cpu;

  if (s->time_unit == FFM_CLI_TIME_UNIT_GIVEN)
    {
      *seconds = s->time_unit_given;
      return TRUE;
    }
  if (ffm == NULL)
    return FALSE;
  ctx.max_evaluations = 0;
  ctx.max_seconds = 0;
  ctx.max_modelled_seconds = 0;
  ctx.mapspace = NULL;
  cpu = ffm_cli_process_cpu_seconds ();
  start = g_get_monotonic_time ();
  result = ffm->descriptor->vtable.search->run (&ctx, NULL, error);
  *seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  cpu = ffm_cli_process_cpu_seconds () - cpu;
  if (result == NULL)
    {
      g_prefix_error (error, "measuring ffm's time for --budget: ");
      return FALSE;
    }
  if (s->time_unit == FFM_CLI_TIME_UNIT_CPU && cpu > 0)
    *seconds = cpu / MAX (ctx.n_threads, 1);
  return TRUE;
}

char *
ffm_cli_trace_to_csv (const FfmSearchResult *result, const char *strategy,
                      guint run, gboolean header)
{
  const GArray *trace = ffm_search_result_get_trace (result);
  GString *out = g_string_new (NULL);
  char buf[4][G_ASCII_DTOSTR_BUF_SIZE];

  if (header)
    g_string_append_printf (out, "%sevaluations,seconds,modelled_seconds,"
                            "pmapping_queries,best_objective\n",
                            strategy != NULL ? "strategy,run," : "");
  for (guint i = 0; i < trace->len; i++)
    {
      const FfmTracePoint *p = &g_array_index (trace, FfmTracePoint, i);
      if (strategy != NULL)
        g_string_append_printf (out, "%s,%u,", strategy, run);
      g_string_append_printf (out, "%" G_GUINT64_FORMAT ",%s,%s,%s,%s\n", p->evaluations,
                              ffm_format_double (p->seconds, buf[0]),
                              ffm_format_double (p->modelled_seconds, buf[1]),
                              ffm_format_double (p->pmapping_queries, buf[2]),
                              ffm_format_double (p->best_objective, buf[3]));
    }
  return g_string_free (out, FALSE);
}

void
ffm_cli_write_trace_json (FfmJsonWriter *b, const FfmSearchResult *result)
{
  const GArray *trace = ffm_search_result_get_trace (result);

  ffm_json_writer_key (b, "trace");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < trace->len; i++)
    {
      const FfmTracePoint *p = &g_array_index (trace, FfmTracePoint, i);
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_uint (b, "evaluations", p->evaluations);
      ffm_json_writer_member_double (b, "seconds", p->seconds);
      ffm_json_writer_member_double (b, "modelled_seconds", p->modelled_seconds);
      ffm_json_writer_member_double (b, "pmapping_queries", p->pmapping_queries);
      ffm_json_writer_member_double (b, "best_objective", p->best_objective);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
}

void
ffm_cli_search_write_budget_json (FfmJsonWriter *b, const FfmCliSearch *s)
{
  ffm_json_writer_key (b, "budget");
  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_uint (b, "max_evaluations", s->context.max_evaluations);
  ffm_json_writer_member_double (b, "max_seconds", s->context.max_seconds);
  ffm_json_writer_member_double (b, "max_modelled_seconds", s->context.max_modelled_seconds);
  ffm_json_writer_member_double (b, "ffm_multiple", s->budget_multiple);
  ffm_json_writer_member_double (b, "ffm_seconds", s->ffm_seconds);
  ffm_json_writer_member_string (b, "time_unit", ffm_cli_time_unit_to_string (s->time_unit));
  ffm_json_writer_end_object (b);
}
