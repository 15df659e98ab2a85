/* ffm-cmd-map.c: `ffm map`, the best mapping of a workload on an
 * architecture, found by one search strategy.
 *
 *   ffm map --arch A --workload W [--param K=V]... [--arch-param K=V]...
 *           [--strategy ffm] [--strategy-param K=V]...
 *           [--objective edp|energy|latency|pareto] [--max-fused-loops N]
 *           [--unfused] [--timeout S] [--threads N] [--json OUT]
 *           [--max-evaluations N] [--max-seconds S] [--budget Nx|Ns]
 *           [--trace-csv OUT] [--constraints FILE]... [--policy NAME]
 *           [--fuse T[@L]] [--no-fuse T] [--backing|--keep|--forbid|
 *           --stationary T@L]...
 *
 * Runs the strategy (a search plugin, ffm-plugin.h) and re-evaluates what
 * it returns with the cost model, then prints on stdout: the totals, the
 * per-Einsum table, the fusion decisions (where each tensor passed between
 * Einsums is backed, on chip or not, under how many shared loops), the
 * LoopTree and the strategy's statistics. For --objective pareto it prints
 * the energy-latency front, then the lowest-EDP point in full. --json
 * writes the same as JSON to OUT ("-": stdout, instead of the text). On a
 * terminal, runs longer than a second draw a progress line on stderr.
 * Ctrl-C and --timeout stop the search (ffm-cli-cancel.h); a strategy
 * that has a mapping by then returns its best so far, which is printed
 * marked as interrupted. Strategies that evaluate mappings one by one
 * (set, tileflow, random, third parties' on ffm-mapspace.h) take the
 * budgets --max-evaluations, --max-seconds and --budget (the FFM paper's
 * modelled time, §7.3; "100x" is 100 times ffm's own run, measured first);
 * their convergence trace goes to --json and --trace-csv, with the wall
 * time and the modelled time of each point. Mapping constraints
 * (--constraints, --policy and the short options; ffm-constraints.h)
 * narrow the mapspace of every strategy; the text lists them and the JSON
 * holds them as a constraint document ("constraints", null without).
 * Exit codes: 0 ok, 1 when the problem does not load, the strategy fails,
 * nothing fits or the search was stopped before it had a mapping, 2 for
 * usage errors. */
#include "ffm-cli-cancel.h"
#include "ffm-cli-output.h"
#include "ffm-cli-progress.h"
#include "ffm-cli-search.h"

#include <string.h>
#include <unistd.h>

#define COMMAND "map"

static const char map_description[] =
  "Searches the mapspace of fused mappings with a strategy (default ffm, the\n"
  "Fast and Fusiest Mapper: optimal for its space) and prints the best\n"
  "mapping found: totals, per Einsum, fusion decisions and the LoopTree.\n"
  "Example:\n"
  "  ffm map --arch simple --workload matmuls --param n_einsums=2\n"
  "See docs/ffm-search.md.";

typedef struct {
  FfmCliCommon common;
  FfmCliProblemOptions problem;
  FfmCliSearchOptions search;
  char *json;                   /* --json OUT (owned) */
  char *trace_csv;              /* --trace-csv OUT (owned) */
} MapOptions;

/* ---- Text ---- */

static void
print_solution (const FfmWorkload *w, const FfmArch *a, const FfmSolution *s,
                const FfmCostReport *report)
{
  g_autoptr (GArray) fusion = ffm_cli_fusion_decisions (w, a, s->mapping);
  g_autofree char *tree = ffm_mapping_to_tree_string (s->mapping);

  g_print ("Energy   %.6g J\nLatency  %.6g s\nEDP      %.6g J*s\n\n",
           ffm_cost_report_get_energy (report), ffm_cost_report_get_latency (report),
           ffm_cost_report_get_edp (report));
  g_print ("%-20s %14s %14s\n", "Einsum", "energy (J)", "latency (s)");
  for (guint i = 0; i < ffm_cost_report_get_n_einsums (report); i++)
    {
      const FfmPmappingCost *c = ffm_cost_report_get_cost (report, i);
      g_print ("%-20s %14.6g %14.6g\n",
               ffm_workload_get_einsum (w, ffm_cost_report_get_einsum (report, i))->name,
               c->energy, c->latency);
    }
  g_print ("\nTensors passed between Einsums (fusion):\n");
  if (fusion->len == 0)
    g_print ("  (none)\n");
  for (guint i = 0; i < fusion->len; i++)
    {
      const FfmCliFusion *f = &g_array_index (fusion, FfmCliFusion, i);
      g_print ("  %-18s from %-14s backed in %-14s %s", f->tensor, f->producer,
               f->level >= 0 ? ffm_arch_get_level (a, f->level)->name : "?",
               f->on_chip ? "on chip" : "off chip");
      if (f->loops > 0)
        g_print (", in tiles under %u shared loop%s", f->loops, f->loops > 1 ? "s" : "");
      g_print ("\n");
    }
  g_print ("\nMapping:\n%s", tree);
}

/* Evaluations, queries, wall and modelled time, for strategies that
 * count them (ffm-search-meter.h). */
static void
print_search (const FfmSearchResult *result, const FfmCliSearch *search,
              const char *stopped)
{
  double evaluations, queries = 0, modelled = 0, wall = 0;

  if (stopped != NULL)
    g_print ("INTERRUPTED: %s; the mapping above is the best found so far.\n",
             stopped);
  if (!ffm_search_result_lookup_stat (result, "evaluations", &evaluations))
    return;
  ffm_search_result_lookup_stat (result, "pmapping_queries", &queries);
  ffm_search_result_lookup_stat (result, "modelled_seconds", &modelled);
  ffm_search_result_lookup_stat (result, "search_seconds", &wall);
  g_print ("\nSearch: %.0f evaluations standing for %.4g pmapping evaluations; "
           "wall time %.3g s, modelled time %.4g s", evaluations, queries, wall,
           modelled);
  if (search->context.max_modelled_seconds > 0)
    {
      g_print (" of a budget of %.4g s", search->context.max_modelled_seconds);
      if (search->budget_multiple > 0)
        g_print (" (%gx ffm's %.3g s)", search->budget_multiple, search->ffm_seconds);
    }
  g_print ("\n");
}

/* The mapping constraints searched under, one line each. */
static void
print_constraints (const FfmConstraints *c)
{
  if (c == NULL)
    return;
  g_print ("\nConstraints (%s):\n", ffm_constraints_get_name (c));
  for (guint i = 0; i < ffm_constraints_get_n (c); i++)
    {
      g_autofree char *line = ffm_constraints_describe (c, i);
      g_print ("  %s\n", line);
    }
}

static void
print_stats (const FfmSearchResult *result)
{
  const GArray *stats = ffm_search_result_get_stats (result);

  g_print ("\nSearch statistics:\n");
  for (guint i = 0; i < stats->len; i++)
    {
      const FfmStat *st = &g_array_index (stats, FfmStat, i);
      g_print ("  %-32s %.6g\n", st->name, st->value);
    }
}

/* ---- JSON ---- */

static void
add_solution_json (FfmJsonWriter *b, const FfmWorkload *w, const FfmArch *a,
                   const FfmSolution *s, const FfmCostReport *report)
{
  g_autoptr (GArray) fusion = ffm_cli_fusion_decisions (w, a, s->mapping);

  ffm_json_writer_member_double (b, "energy_j", ffm_cost_report_get_energy (report));
  ffm_json_writer_member_double (b, "latency_s", ffm_cost_report_get_latency (report));
  ffm_json_writer_member_double (b, "edp_js", ffm_cost_report_get_edp (report));
  ffm_json_writer_key (b, "per_einsum");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < ffm_cost_report_get_n_einsums (report); i++)
    {
      const FfmPmappingCost *c = ffm_cost_report_get_cost (report, i);
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "name",
                                     ffm_workload_get_einsum (w, ffm_cost_report_get_einsum (report, i))->name);
      ffm_json_writer_member_double (b, "energy_j", c->energy);
      ffm_json_writer_member_double (b, "latency_s", c->latency);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "fused_tensors");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < fusion->len; i++)
    {
      const FfmCliFusion *f = &g_array_index (fusion, FfmCliFusion, i);
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "tensor", f->tensor);
      ffm_json_writer_member_string (b, "producer", f->producer);
      ffm_json_writer_member_string (b, "level", f->level >= 0
                                     ? ffm_arch_get_level (a, f->level)->name : NULL);
      ffm_json_writer_member_boolean (b, "on_chip", f->on_chip);
      ffm_json_writer_member_uint (b, "shared_loops", f->loops);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "mapping");
  ffm_mapping_write_json (s->mapping, b);
}

static char *
result_json (const MapOptions *o, const FfmWorkload *w, const FfmArch *a,
             const FfmSearchResult *result, GPtrArray *reports, guint best,
             FfmObjective objective, double seconds, const FfmCliSearch *search,
             const char *stopped)
{
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
  const GArray *stats = ffm_search_result_get_stats (result);

  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_string (b, "workload", ffm_workload_get_name (w));
  ffm_json_writer_member_string (b, "architecture", ffm_arch_get_name (a));
  ffm_json_writer_member_string (b, "strategy",
                                 o->search.strategy != NULL ? o->search.strategy : "ffm");
  ffm_json_writer_member_string (b, "objective", ffm_objective_to_string (objective));
  ffm_json_writer_member_boolean (b, "interrupted", stopped != NULL);
  ffm_json_writer_member_string (b, "stopped_by", stopped);
  ffm_cli_search_write_budget_json (b, search);
  ffm_json_writer_key (b, "constraints");
  if (search->constraints != NULL)
    ffm_constraints_write_json (search->constraints, b);
  else
    ffm_json_writer_null (b);
  add_solution_json (b, w, a, ffm_search_result_get_solution (result, best),
                     g_ptr_array_index (reports, best));
  if (objective == FFM_OBJECTIVE_PARETO)
    {
      ffm_json_writer_key (b, "pareto");
      ffm_json_writer_begin_array (b);
      for (guint i = 0; i < reports->len; i++)
        {
          ffm_json_writer_begin_object (b);
          add_solution_json (b, w, a, ffm_search_result_get_solution (result, i),
                             g_ptr_array_index (reports, i));
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
  ffm_json_writer_member_double (b, "wall_s", seconds);
  ffm_json_writer_end_object (b);
  ffm_cli_write_trace_json (b, result);
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
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "einsum", *rest == '_' ? rest + 1 : rest);
      ffm_json_writer_member_uint (b, "survivors", (guint64) st->value);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
  return ffm_json_writer_finish (b);
}

/* ---- Running ---- */

static int
run (GOptionContext *context, MapOptions *o)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmProblem) problem = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (FfmCliSearch) search = { 0 };
  g_auto (FfmCliSearchRun) sr = { 0 };
  FfmSearchResult *result;
  GPtrArray *reports;
  FfmObjective objective;
  FfmWorkload *w;
  FfmArch *a;
  guint best;
  double seconds;
  int status;
  g_autofree char *stopped = NULL;

  registry = ffm_cli_registry_new (&o->common);
  status = ffm_cli_load_problem (context, COMMAND, registry, &o->problem, &problem);
  if (status != FFM_EXIT_OK)
    return status;
  status = ffm_cli_search_prepare (context, COMMAND, &o->search, &o->common,
                                   registry, problem, &search);
  if (status != FFM_EXIT_OK)
    return status;
  w = ffm_problem_get_workload (problem);
  a = ffm_problem_get_arch (problem);
  objective = search.objective;

  if (search.budget_multiple > 0
      && g_strcmp0 (search.plugin->descriptor->name, "ffm") == 0)
    ffm_cli_warn (COMMAND, "--budget %s does not apply to ffm, which runs to "
                  "the optimum", o->search.budget);
  else if (search.budget_multiple > 0)
    {
      g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->search.timeout);
      g_autoptr (FfmCliProgress) progress = ffm_cli_progress_start (COMMAND);
      double ffm_seconds = 0;

      search.context.progress = ffm_cli_progress_update;
      search.context.progress_data = progress;
      search.context.cancel = ffm_cli_cancel_get_flag (cancel);
      ffm_cli_progress_update (-1, "timing ffm for --budget", progress);
      if (!ffm_cli_search_time_ffm (&search, registry, &ffm_seconds, &error))
        return ffm_cli_fail (COMMAND, error);
      ffm_cli_search_set_budget_multiple (&search, ffm_seconds);
    }

  {
    g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->search.timeout);
    g_autoptr (FfmCliProgress) progress = ffm_cli_progress_start (COMMAND);
    gboolean ok;

    search.context.progress = ffm_cli_progress_update;
    search.context.progress_data = progress;
    search.context.cancel = ffm_cli_cancel_get_flag (cancel);
    ffm_cli_progress_update (-1, "searching", progress);
    ok = ffm_cli_search_run (&search, &sr, &error);
    g_clear_pointer (&progress, ffm_cli_progress_stop);
    if (ok && ffm_cli_cancel_get_reason (cancel) != FFM_CLI_STOP_NONE)
      stopped = g_strdup (ffm_cli_cancel_describe (cancel));
    if (!ok)
      {
        if (ffm_cli_cancel_get_reason (cancel) != FFM_CLI_STOP_NONE)
          g_prefix_error (&error, "%s with no mapping yet: ",
                          ffm_cli_cancel_describe (cancel));
        return ffm_cli_fail (COMMAND, error);
      }
  }
  result = sr.result;
  reports = sr.reports;
  best = sr.best;
  seconds = sr.seconds;

  if (g_strcmp0 (o->json, "-") != 0)
    {
      g_print ("Best mapping of %s on %s (strategy %s, objective %s, %.2f s)\n\n",
               ffm_workload_get_name (w), ffm_arch_get_name (a),
               search.plugin->descriptor->name, ffm_objective_to_string (objective),
               seconds);
      if (objective == FFM_OBJECTIVE_PARETO)
        {
          g_print ("Energy-latency Pareto front (%u points):\n",
                   reports->len);
          g_print ("  %14s %14s %14s\n", "energy (J)", "latency (s)", "EDP (J*s)");
          for (guint i = 0; i < reports->len; i++)
            {
              const FfmCostReport *r = g_ptr_array_index (reports, i);
              g_print ("  %14.6g %14.6g %14.6g%s\n", ffm_cost_report_get_energy (r),
                       ffm_cost_report_get_latency (r), ffm_cost_report_get_edp (r),
                       i == best ? "  <- lowest EDP, shown below" : "");
            }
          g_print ("\n");
        }
      print_solution (w, a, ffm_search_result_get_solution (result, best),
                      g_ptr_array_index (reports, best));
      if (!ffm_cost_report_fits (g_ptr_array_index (reports, best)))
        ffm_cli_warn (COMMAND, "the mapping does not fit: %s",
                      ffm_cost_report_get_problem (g_ptr_array_index (reports, best)));
      print_search (result, &search, stopped);
      print_constraints (search.constraints);
      print_stats (result);
    }
  else if (stopped != NULL)
    ffm_cli_warn (COMMAND, "%s: the mapping is the best found so far", stopped);
  if (o->json != NULL)
    {
      g_autofree char *text = result_json (o, w, a, result, reports, best,
                                           objective, seconds, &search, stopped);
      if (!ffm_cli_output_write (o->json, text, &error))
        return ffm_cli_fail (COMMAND, error);
    }
  if (o->trace_csv != NULL)
    {
      g_autofree char *csv = ffm_cli_trace_to_csv (result, NULL, 0, TRUE);
      if (!ffm_cli_output_write (o->trace_csv, csv, &error))
        return ffm_cli_fail (COMMAND, error);
    }
  return FFM_EXIT_OK;
}

int
ffm_cmd_map (int argc, char **argv)
{
  MapOptions o = { FFM_CLI_COMMON_INIT, FFM_CLI_PROBLEM_OPTIONS_INIT,
                   FFM_CLI_SEARCH_OPTIONS_INIT, NULL, NULL };
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &o.json,
      "Also write the result as JSON to OUT (- = stdout, instead of the text)",
      "OUT" },
    { "trace-csv", 0, 0, G_OPTION_ARG_FILENAME, &o.trace_csv,
      "Write the convergence trace (evaluations, wall and modelled seconds, "
      "best objective) as CSV to OUT (- = stdout)", "OUT" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = ffm_cli_context_new (COMMAND, NULL,
                                                            map_description);
  g_auto (GStrv) positional = NULL;
  int status;

  ffm_cli_add_search_options (context, &o.search);
  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_problem_options (context, &o.problem);
  ffm_cli_add_common_options (context, &o.common);
  if (!ffm_cli_parse (context, COMMAND, &o.common, argc, argv, &positional))
    status = FFM_EXIT_USAGE;
  else if (positional[0] != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "unexpected argument '%s'",
                                  positional[0]);
  else
    status = run (context, &o);
  g_free (o.json);
  g_free (o.trace_csv);
  ffm_cli_search_options_clear (&o.search);
  ffm_cli_problem_options_clear (&o.problem);
  ffm_cli_common_clear (&o.common);
  return status;
}
