/* ffm-cmd-map.c: `ffm map`, the best mapping of a workload on an
 * architecture, found by one search strategy.
 *
 *   ffm map --arch A --workload W [--param K=V]... [--arch-param K=V]...
 *           [--strategy ffm] [--strategy-param K=V]...
 *           [--objective edp|energy|latency|pareto] [--max-fused-loops N]
 *           [--unfused] [--imperfect spatial|temporal|all] [--timeout S]
 *           [--threads N] [--seed N]
 *           [--json OUT] [--csv OUT] [--loop-nest] [--stats] [--quiet]
 *           [--html OUT.html] [--diagram OUT.svg] [--diagram-dot OUT.dot]
 *           [--max-evaluations N] [--max-seconds S] [--budget Nx|Ns]
 *           [--trace-csv OUT] [--constraints FILE]... [--policy NAME]
 *           [--fuse T[@L]] [--no-fuse T] [--backing|--keep|--forbid|
 *           --stationary T@L]...
 *
 * Runs the strategy (a search plugin, ffm-plugin.h) and re-evaluates what
 * it returns with the cost model, then prints on stdout the report of the
 * best mapping (ffm-cli-report.h: totals, per Einsum with the component
 * that bounds it, per component, fanout utilization, per tensor and
 * tensor class, fusion decisions, details, the LoopTree with iteration
 * counts; --loop-nest adds the loop nest). For --objective pareto it
 * prints the energy-latency front first, then the lowest-EDP point in
 * full. --stats (or --verbose) adds the strategy's statistics; --quiet
 * prints nothing on stdout (for scripts that read --json or --csv
 * files). --json writes a self-describing result file (ffm-result.h:
 * `ffm eval OUT` re-evaluates it with no other argument), --csv the
 * report's tables, --html the whole result as one page and --diagram the
 * mapping as a LoopTree (ffm-cli-visual.h). On a terminal, runs longer than a second draw a
 * progress line on stderr (ffm-cli-progress.h). Ctrl-C and --timeout stop
 * the search (ffm-cli-cancel.h); a strategy that has a mapping by then
 * returns its best so far, which is printed marked as interrupted.
 * Strategies that evaluate mappings one by one (set, tileflow, random,
 * third parties' on ffm-mapspace.h) take the budgets --max-evaluations,
 * --max-seconds and --budget (the FFM paper's modelled time, §7.3; "100x"
 * is 100 times ffm's own run, measured first); their convergence trace
 * goes to --json and --trace-csv, with the wall time and the modelled time
 * of each point. Mapping constraints (--constraints, --policy and the
 * short options; ffm-constraints.h) narrow the mapspace of every
 * strategy; the text lists them and the JSON holds them as a constraint
 * document ("constraints", null without).
 * Exit codes: 0 ok, 1 when the problem does not load, the strategy fails,
 * nothing fits or the search was stopped before it had a mapping, 2 for
 * usage errors. */
#include "ffm-cli-cancel.h"
#include "ffm-cli-mpi.h"
#include "ffm-cli-output.h"
#include "ffm-cli-progress.h"
#include "ffm-cli-report.h"
#include "ffm-cli-search.h"
#include "ffm-cli-table.h"
#include "ffm-cli-visual.h"

#include <string.h>

#define COMMAND "map"

typedef struct {
  FfmCliCommon common;
  FfmCliRunOptions run;
  FfmCliProblemOptions problem;
  FfmCliSearchOptions search;
  FfmCliOutputOptions output;
  FfmCliVisualOptions visual;   /* --html, --diagram, --diagram-dot */
  gboolean loop_nest;           /* --loop-nest */
  gboolean stats;               /* --stats */
  gboolean quiet;               /* --quiet */
  char *trace_csv;              /* --trace-csv OUT (owned) */
  gboolean mpi_worker;          /* an MPI rank other than 0 (ffm-cli-mpi.h) */
} MapOptions;

/* ---- Tables ---- */

static FfmCliTable *
pareto_table (const FfmCliSearchRun *sr)
{
  FfmCliTable *t = ffm_cli_table_new ("pareto", NULL);

  ffm_cli_table_add_column (t, "point", "point");
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "latency_s", "latency");
  ffm_cli_table_add_column (t, "edp_js", "EDP");
  ffm_cli_table_add_text_column (t, "lowest_edp", "");
  for (guint i = 0; i < sr->reports->len; i++)
    {
      const FfmCostReport *r = g_ptr_array_index (sr->reports, i);
      ffm_cli_table_add_row (t);
      ffm_cli_table_cell_count (t, i + 1);
      ffm_cli_table_cell_quantity (t, ffm_cost_report_get_energy (r), "J");
      ffm_cli_table_cell_quantity (t, ffm_cost_report_get_latency (r), "s");
      ffm_cli_table_cell_quantity (t, ffm_cost_report_get_edp (r), "J*s");
      ffm_cli_table_cell (t, i == sr->best ? "<- lowest EDP, shown below" : "",
                          i == sr->best ? "true" : "false");
    }
  return t;
}

static FfmCliTable *
stats_table (const FfmSearchResult *result, double seconds)
{
  const GArray *stats = ffm_search_result_get_stats (result);
  FfmCliTable *t = ffm_cli_table_new ("stats", "Search statistics");

  ffm_cli_table_add_text_column (t, "statistic", "statistic");
  ffm_cli_table_add_column (t, "value", "value");
  for (guint i = 0; i < stats->len; i++)
    {
      const FfmStat *st = &g_array_index (stats, FfmStat, i);
      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, st->name, NULL);
      if (g_str_has_prefix (st->name, "seconds"))
        ffm_cli_table_cell_quantity (t, st->value, "s");
      else
        ffm_cli_table_cell_amount (t, st->value);
    }
  ffm_cli_table_add_row (t);
  ffm_cli_table_cell (t, "wall_seconds", NULL);
  ffm_cli_table_cell_quantity (t, seconds, "s");
  return t;
}

/* ---- JSON ---- */

static void
write_join_steps (FfmJsonWriter *b, const GArray *stats)
{
  /* The survivors after each join step, as a list (ffm's statistics
   * join_survivors_NN_EINSUM). */
  ffm_json_writer_key (b, "join_steps");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < stats->len; i++)
    {
      const FfmStat *st = &g_array_index (stats, FfmStat, i);
      const char *rest;
      if (!g_str_has_prefix (st->name, "join_survivors_"))
        continue;
      rest = st->name + strlen ("join_survivors_");
      while (g_ascii_isdigit (*rest))
        rest++;
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_string (b, "einsum", *rest == '_' ? rest + 1 : rest);
      ffm_json_writer_member_uint (b, "survivors", (guint64) st->value);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
}

static char *
result_json (const FfmResultInfo *info, const FfmCliSearch *search,
             const FfmCliSearchRun *sr, const char *stopped)
{
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
  const FfmCostReport *best = g_ptr_array_index (sr->reports, sr->best);
  const GArray *stats = ffm_search_result_get_stats (sr->result);

  ffm_json_writer_begin_object (b);
  ffm_result_info_write_json (info, b);
  ffm_json_writer_member_string (b, "workload", ffm_workload_get_name (ffm_cost_report_get_workload (best)));
  ffm_json_writer_member_string (b, "architecture", ffm_arch_get_name (ffm_cost_report_get_arch (best)));
  ffm_json_writer_member_string (b, "strategy", search->plugin->descriptor->name);
  ffm_json_writer_member_string (b, "objective", ffm_objective_to_string (search->objective));
  ffm_json_writer_member_string (b, "imperfect",
                                 ffm_imperfect_to_string (search->context.imperfect));
  ffm_json_writer_member_double (b, "wall_s", sr->seconds);
  ffm_json_writer_member_boolean (b, "interrupted", stopped != NULL);
  {
    double cut = 0;
    /* A strategy that reports cut templates (ffm, under the generator's
     * limits) no longer proves its mapping optimal. */
    ffm_search_result_lookup_stat (sr->result, "templates_cut", &cut);
    ffm_json_writer_member_boolean (b, "proven_optimal",
                                    stopped == NULL && cut == 0
                                    && ffm_search_result_lookup_stat (sr->result,
                                                                      "templates_cut",
                                                                      &cut));
  }
  ffm_json_writer_member_string (b, "stopped_by", stopped);
  ffm_cli_search_write_budget_json (b, search);
  ffm_json_writer_key (b, "constraints");
  if (search->constraints != NULL)
    ffm_constraints_write_json (search->constraints, b);
  else
    ffm_json_writer_null (b);
  ffm_cli_report_write_json (best, b);
  if (search->objective == FFM_OBJECTIVE_PARETO)
    {
      ffm_json_writer_key (b, "pareto");
      ffm_json_writer_begin_array (b);
      for (guint i = 0; i < sr->reports->len; i++)
        {
          ffm_json_writer_begin_object (b);
          ffm_cli_report_write_json (g_ptr_array_index (sr->reports, i), b);
          ffm_json_writer_end_object (b);
        }
      ffm_json_writer_end_array (b);
    }
  ffm_json_writer_key (b, "stats");
  ffm_json_writer_begin_object (b);
  for (guint i = 0; i < stats->len; i++)
    {
      const FfmStat *st = &g_array_index (stats, FfmStat, i);
      ffm_json_writer_member_double (b, st->name, st->value);
    }
  ffm_json_writer_member_double (b, "wall_s", sr->seconds);
  ffm_json_writer_end_object (b);
  ffm_cli_write_trace_json (b, sr->result);
  write_join_steps (b, stats);
  ffm_json_writer_end_object (b);
  return ffm_json_writer_finish (b);
}

/* ---- Text ---- */

/* Evaluations, queries, wall and modelled time, for strategies that
 * count them (ffm-search-meter.h), and whether the search was stopped. */
static void
append_search (GString *out, const FfmSearchResult *result,
               const FfmCliSearch *search, const char *stopped)
{
  double evaluations, queries = 0, modelled = 0, wall = 0, cut = 0;

  if (stopped != NULL)
    g_string_append_printf (out, "\nINTERRUPTED: %s; the mapping above is the "
                            "best found so far.\n", stopped);
  if (ffm_search_result_lookup_stat (result, "templates_cut", &cut) && cut > 0)
    g_string_append_printf (out, "\nNOT PROVEN OPTIMAL: %.0f templates cut by "
                            "--max-template-seconds or --max-templates; the "
                            "optimum may lie in what was cut.\n", cut);
  if (!ffm_search_result_lookup_stat (result, "evaluations", &evaluations))
    return;
  ffm_search_result_lookup_stat (result, "pmapping_queries", &queries);
  ffm_search_result_lookup_stat (result, "modelled_seconds", &modelled);
  ffm_search_result_lookup_stat (result, "search_seconds", &wall);
  g_string_append_printf (out, "\nSearch: %.0f evaluations standing for %.4g "
                          "pmapping evaluations; wall time %.3g s, modelled "
                          "time %.4g s", evaluations, queries, wall, modelled);
  if (search->context.max_modelled_seconds > 0)
    {
      g_string_append_printf (out, " of a budget of %.4g s",
                              search->context.max_modelled_seconds);
      if (search->budget_multiple > 0 && search->time_unit == FFM_CLI_TIME_UNIT_GIVEN)
        g_string_append_printf (out, " (%gx the %.4g s given by --budget-reference)",
                                search->budget_multiple, search->ffm_seconds);
      else if (search->budget_multiple > 0)
        g_string_append_printf (out, " (%gx ffm's %.3g s, %s)", search->budget_multiple,
                                search->ffm_seconds,
                                search->time_unit == FFM_CLI_TIME_UNIT_CPU
                                ? "CPU time over its threads" : "wall time");
    }
  g_string_append_c (out, '\n');
}

/* The mapping constraints searched under, one line each. */
static void
append_constraints (GString *out, const FfmConstraints *c)
{
  if (c == NULL)
    return;
  g_string_append_printf (out, "\nConstraints (%s):\n", ffm_constraints_get_name (c));
  for (guint i = 0; i < ffm_constraints_get_n (c); i++)
    {
      g_autofree char *line = ffm_constraints_describe (c, i);
      g_string_append_printf (out, "  %s\n", line);
    }
}

static void
print_text (const MapOptions *o, const FfmCliSearch *search, const FfmCliSearchRun *sr,
            FfmCliTable *pareto, FfmCliTable *stats, const char *stopped)
{
  const FfmCostReport *best = g_ptr_array_index (sr->reports, sr->best);
  FfmCliReportOptions report_options = { o->loop_nest };
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree char *seconds = ffm_format_si (sr->seconds, "s");

  g_string_append_printf (out, "Best mapping of %s on %s (strategy %s, objective %s%s%s, %s)\n\n",
                          ffm_workload_get_name (ffm_cost_report_get_workload (best)),
                          ffm_arch_get_name (ffm_cost_report_get_arch (best)),
                          search->plugin->descriptor->name,
                          ffm_objective_to_string (search->objective),
                          search->context.imperfect ? ", remainder tiles " : "",
                          search->context.imperfect
                          ? ffm_imperfect_to_string (search->context.imperfect) : "",
                          seconds);
  if (pareto != NULL)
    {
      g_string_append_printf (out, "Energy-latency Pareto front (%u point%s):\n",
                              sr->reports->len, sr->reports->len == 1 ? "" : "s");
      ffm_cli_table_append_text (pareto, out);
      g_string_append_c (out, '\n');
    }
  ffm_cli_report_append_text (best, &report_options, out);
  append_search (out, sr->result, search, stopped);
  append_constraints (out, search->constraints);
  if (stats != NULL)
    {
      g_string_append_c (out, '\n');
      ffm_cli_table_append_text (stats, out);
    }
  g_print ("%s", out->str);
}

/* ---- Running ---- */

static int
run (GOptionContext *context, MapOptions *o)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmProblem) problem = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmResultInfo) info = NULL;
  g_autoptr (GPtrArray) tables = ffm_cli_tables_new ();
  g_auto (FfmCliSearch) search = { 0 };
  g_auto (FfmCliSearchRun) sr = { 0 };
  g_autofree char *json = NULL;
  FfmCliTable *pareto = NULL, *stats = NULL;
  const FfmCostReport *best;
  g_autofree char *stopped = NULL;
  gboolean to_stdout = FALSE;
  FfmCliStopReason stop_reason = FFM_CLI_STOP_NONE;
  int status;

  if (!ffm_cli_output_paths_check (&to_stdout, &error, "--json", o->output.json,
                                   "--csv", o->output.csv, "--trace-csv", o->trace_csv,
                                   "--html", o->visual.html, "--diagram", o->visual.diagram,
                                   "--diagram-dot", o->visual.diagram_dot, NULL))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (!ffm_cli_visual_check (&o->visual, &error))
    return g_error_matches (error, FFM_CANVAS_ERROR, FFM_CANVAS_ERROR_UNAVAILABLE)
      ? ffm_cli_fail (COMMAND, error) : ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  registry = ffm_cli_registry_new (&o->common);
  status = ffm_cli_load_problem (context, COMMAND, registry, &o->problem, &problem);
  if (status != FFM_EXIT_OK)
    return status;
  o->search.timeloop_arch = o->problem.arch;
  status = ffm_cli_search_prepare (context, COMMAND, &o->search, &o->run,
                                   registry, problem, &search);
  if (status != FFM_EXIT_OK)
    return status;
  /* Under mpirun the other ranks only run rank 0's pmapping jobs. */
  if (o->mpi_worker)
    return ffm_cli_mpi_serve (COMMAND, problem, search.constraints,
                              ffm_cli_run_options_get_threads (&o->run));
  ffm_cli_mpi_lead ();

  if (o->search.budget_reference != NULL && search.budget_multiple == 0)
    ffm_cli_warn (COMMAND, "--budget-reference %s applies to --budget Nx only; "
                  "ignored", o->search.budget_reference);
  if (search.budget_multiple > 0
      && g_strcmp0 (search.plugin->descriptor->name, "ffm") == 0)
    ffm_cli_warn (COMMAND, "--budget %s does not apply to ffm, which runs to "
                  "the optimum", o->search.budget);
  else if (search.budget_multiple > 0)
    {
      g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->search.timeout);
      g_autoptr (FfmCliProgress) progress = ffm_cli_progress_start (COMMAND, !o->quiet);
      double ffm_seconds = 0;

      search.context.progress = ffm_cli_progress_update;
      search.context.progress_data = progress;
      search.context.cancel = ffm_cli_cancel_get_flag (cancel);
      ffm_cli_progress_update (-1, "timing ffm for --budget", progress);
      if (!ffm_cli_search_time_ffm (&search, registry, &ffm_seconds, &error))
        {
          FfmCliStopReason reason = ffm_cli_cancel_get_reason (cancel);
          if (reason != FFM_CLI_STOP_NONE)
            g_prefix_error (&error, "%s: ", ffm_cli_cancel_describe (cancel));
          status = ffm_cli_fail (COMMAND, error);
          return reason != FFM_CLI_STOP_NONE ? ffm_cli_stop_exit_code (reason) : status;
        }
      ffm_cli_search_set_budget_multiple (&search, ffm_seconds);
    }

  {
    g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->search.timeout);
    g_autoptr (FfmCliProgress) progress = ffm_cli_progress_start (COMMAND, !o->quiet);
    gboolean ok;

    search.context.progress = ffm_cli_progress_update;
    search.context.progress_data = progress;
    search.context.cancel = ffm_cli_cancel_get_flag (cancel);
    ffm_cli_progress_update (-1, "searching", progress);
    ok = ffm_cli_search_run (&search, &sr, &error);
    g_clear_pointer (&progress, ffm_cli_progress_stop);
    stop_reason = ffm_cli_cancel_get_reason (cancel);
    if (ok && stop_reason != FFM_CLI_STOP_NONE)
      stopped = g_strdup (ffm_cli_cancel_describe (cancel));
    if (!ok)
      {
        if (stop_reason != FFM_CLI_STOP_NONE)
          g_prefix_error (&error, "%s with no mapping yet: ",
                          ffm_cli_cancel_describe (cancel));
        status = ffm_cli_fail (COMMAND, error);
        return stop_reason != FFM_CLI_STOP_NONE ? ffm_cli_stop_exit_code (stop_reason)
                                                : status;
      }
  }
  best = g_ptr_array_index (sr.reports, sr.best);

  ffm_cli_report_add_tables (best, tables);
  if (search.objective == FFM_OBJECTIVE_PARETO)
    {
      pareto = pareto_table (&sr);
      g_ptr_array_add (tables, pareto);
    }
  if (o->stats || o->common.verbose)
    {
      stats = stats_table (sr.result, sr.seconds);
      g_ptr_array_add (tables, stats);
    }
  if (!o->quiet && !to_stdout)
    print_text (o, &search, &sr, pareto, stats, stopped);
  else if (stopped != NULL)
    ffm_cli_warn (COMMAND, "%s: the mapping is the best found so far", stopped);
  if (!ffm_cost_report_fits (best))
    ffm_cli_warn (COMMAND, "the mapping does not fit: %s",
                  ffm_cost_report_get_problem (best));
  if (o->output.json != NULL || o->visual.html != NULL)
    {
      info = ffm_cli_problem_info_new (COMMAND, registry, &o->problem,
                                       ffm_problem_get_workload (problem),
                                       ffm_problem_get_arch (problem));
      ffm_cli_search_record (&search, info);
      json = result_json (info, &search, &sr, stopped);
    }
  if (!ffm_cli_output_write_results (&o->output, o->output.json != NULL ? json : NULL, tables,
                                     &error))
    return ffm_cli_fail (COMMAND, error);
  if (ffm_cli_visual_wanted (&o->visual))
    {
      FfmHtmlResult one = { best, NULL, tables };
      if (!ffm_cli_visual_write_results (&o->visual, COMMAND, &one, 1, NULL, NULL, json, &error))
        return ffm_cli_fail (COMMAND, error);
    }
  if (o->trace_csv != NULL)
    {
      g_autofree char *csv = ffm_cli_trace_to_csv (sr.result, NULL, 0, TRUE);
      if (!ffm_cli_output_write (o->trace_csv, csv, &error))
        return ffm_cli_fail (COMMAND, error);
    }
  /* The best mapping so far is written, but the run did not finish. */
  return ffm_cli_stop_exit_code (stop_reason);
}

/* run() as ffm_cli_mpi_run_command() calls it. */
static int
run_command (GOptionContext *context, gpointer options)
{
  return run (context, options);
}

int
ffm_cmd_map (int argc, char **argv)
{
  MapOptions o = { FFM_CLI_COMMON_INIT, FFM_CLI_RUN_OPTIONS_INIT,
                   FFM_CLI_PROBLEM_OPTIONS_INIT, FFM_CLI_SEARCH_OPTIONS_INIT,
                   FFM_CLI_OUTPUT_OPTIONS_INIT, FFM_CLI_VISUAL_OPTIONS_INIT, FALSE, FALSE,
                   FALSE, NULL, FALSE };
  const GOptionEntry entries[] = {
    { "loop-nest", 0, 0, G_OPTION_ARG_NONE, &o.loop_nest,
      "Also print the mapping as loop-nest pseudo-code", NULL },
    { "stats", 0, 0, G_OPTION_ARG_NONE, &o.stats,
      "Also print the strategy's search statistics (so does --verbose)", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet,
      "Print nothing on standard output and no progress (for scripts "
      "reading --json or --csv files)", NULL },
    { "trace-csv", 0, 0, G_OPTION_ARG_FILENAME, &o.trace_csv,
      "Write the convergence trace (evaluations, wall and modelled seconds, "
      "best objective) as CSV to OUT (- = stdout)", "OUT" },
    G_OPTION_ENTRY_NULL
  };
  g_autofree char *description = ffm_cli_describe (
    "Searches the mapspace of fused mappings with a strategy (default ffm, the\n"
    "Fast and Fusiest Mapper: optimal for its space) and prints the best\n"
    "mapping found: totals, per Einsum (with the component that bounds its\n"
    "latency), per component, fanout utilization, per tensor, fusion\n"
    "decisions and the LoopTree with iteration counts. --json OUT writes a\n"
    "result file that `ffm eval OUT` re-evaluates with no other argument.\n"
    "Example:\n"
    "  ffm map --arch simple --workload matmuls --param n_einsums=2\n",
    "ffm-search.md");
  g_autoptr (GOptionContext) context = ffm_cli_context_new (COMMAND, NULL, description);
  int status;

  ffm_cli_add_search_options (context, &o.search);
  ffm_cli_add_output_options (context, &o.output, "the result");
  ffm_cli_add_visual_options (context, &o.visual, TRUE, "the result");
  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_problem_options (context, &o.problem);
  ffm_cli_add_run_options (context, &o.run, FFM_CLI_RUN_THREADS | FFM_CLI_RUN_SEED);
  ffm_cli_add_common_options (context, &o.common, TRUE);
  status = ffm_cli_mpi_run_command (context, COMMAND, &o.common, &o.run, argc, argv,
                                    &o.mpi_worker, run_command, &o);
  g_free (o.trace_csv);
  ffm_cli_visual_options_clear (&o.visual);
  ffm_cli_output_options_clear (&o.output);
  ffm_cli_search_options_clear (&o.search);
  ffm_cli_problem_options_clear (&o.problem);
  ffm_cli_common_clear (&o.common);
  return status;
}
