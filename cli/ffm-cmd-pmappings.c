/* ffm-cmd-pmappings.c: `ffm pmappings --arch A --workload W [--einsum NAME]`,
 * the single-Einsum exploration alone (ffm-pmapping.h).
 *
 * Prints, per Einsum, the templates enumerated, the tile vectors evaluated
 * by the cost model and how many were valid, the compatibility groups, the
 * Pareto survivors and the time its threads spent on it (thread time:
 * with several threads their sum exceeds the wall time), then the totals
 * and the wall time. --groups also lists each group's compatibility and
 * size, --templates every template. --json OUT writes the same as a
 * result file (ffm-result.h: what produced it, then the numbers), --csv
 * OUT the tables. On a terminal a progress line shows the Einsum and the
 * templates done of the total (ffm-cli-progress.h). Exit 0 on success, 1
 * when the problem does not load or an Einsum has no pmapping (the
 * message names the Einsum and the memory), 2 for usage errors. The
 * constraint options of ffm map (--constraints, --policy, --fuse, ...)
 * narrow the pmappings generated (ffm-constraints.h). */
#include "ffm-cli-common.h"
#include "ffm-cli-cancel.h"
#include "ffm-cli-output.h"
#include "ffm-cli-progress.h"
#include "ffm-cli-search.h"
#include "ffm-cli-table.h"

#include <string.h>

#define COMMAND "pmappings"

typedef struct {
  FfmCliCommon common;
  FfmCliRunOptions run;
  FfmCliProblemOptions problem;
  FfmCliOutputOptions output;
  char *einsum;                 /* --einsum NAME (owned) */
  char *objective;              /* --objective (owned) */
  int max_fused_loops;          /* --max-fused-loops */
  int max_fused_per_var;        /* --max-fused-loops-per-rank-var */
  gboolean unfused;
  gboolean groups;
  gboolean templates;
  gboolean no_reuse;
  gboolean joinable_only;       /* --joinable-only */
  gboolean quiet;
  double timeout;               /* --timeout S, 0 = none */
  char *imperfect;              /* --imperfect (owned) */
  FfmCliSearchOptions constraint; /* only its constraint options and
                                     generator limits */
} PmappingsOptions;

/* Each template of @pm as an indented tree. */
static void
append_templates (GString *out, const FfmEinsumPmappings *pm, const char *einsum)
{
  g_string_append_printf (out, "\nTemplates of %s (tiles are placeholders):\n", einsum);
  for (guint t = 0; t < ffm_einsum_pmappings_get_n_templates (pm); t++)
    {
      const GPtrArray *nodes = ffm_einsum_pmappings_get_template (pm, t);
      g_autoptr (FfmMapping) m = ffm_mapping_new ();
      g_autofree char *text = NULL;
      for (guint i = 0; i < nodes->len; i++)
        g_ptr_array_add (ffm_mapping_get_root (m),
                         ffm_mapping_node_copy (g_ptr_array_index (nodes, i)));
      text = ffm_mapping_to_tree_string (m);
      g_string_append_printf (out, "  template %u:\n%s", t, text);
    }
}

static FfmCliTable *
einsums_table (const FfmPmappingSet *set)
{
  FfmWorkload *w = ffm_pmapping_set_get_workload (set);
  FfmCliTable *t = ffm_cli_table_new ("einsums", NULL);
  guint64 evaluated = 0, valid = 0, rows = 0;
  guint templates = 0, n_groups = 0, cut = 0;
  double seconds = 0;

  ffm_cli_table_add_text_column (t, "einsum", "Einsum");
  ffm_cli_table_add_column (t, "templates", "templates");
  ffm_cli_table_add_column (t, "templates_cut", "cut");
  ffm_cli_table_add_column (t, "evaluated", "evaluated");
  ffm_cli_table_add_column (t, "valid", "valid");
  ffm_cli_table_add_column (t, "groups", "groups");
  ffm_cli_table_add_column (t, "pmappings", "pmappings");
  ffm_cli_table_add_column (t, "thread_seconds", "thread time");
  ffm_cli_table_add_text_column (t, "same_as", "same as");
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      const FfmPmappingStats *s = ffm_einsum_pmappings_get_stats (pm);
      const FfmEinsum *e = ffm_workload_get_einsum (w, ffm_einsum_pmappings_get_einsum (pm));

      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, e->name, NULL);
      ffm_cli_table_cell_count (t, s->n_templates);
      ffm_cli_table_cell_count (t, s->n_templates_cut);
      ffm_cli_table_cell_count (t, s->n_evaluated);
      ffm_cli_table_cell_count (t, s->n_valid);
      ffm_cli_table_cell_count (t, s->n_groups);
      ffm_cli_table_cell_count (t, s->n_rows);
      ffm_cli_table_cell_quantity (t, s->seconds, "s");
      /* An Einsum of the same signature as an earlier one: a renamed copy. */
      if (s->reused_from >= 0)
        ffm_cli_table_cell (t, ffm_workload_get_einsum (w, (guint) s->reused_from)->name, NULL);
      else
        ffm_cli_table_cell (t, "", NULL);
      templates += s->n_templates;
      cut += s->n_templates_cut;
      evaluated += s->n_evaluated;
      valid += s->n_valid;
      n_groups += s->n_groups;
      rows += s->n_rows;
      seconds += s->seconds;
    }
  ffm_cli_table_add_row (t);
  ffm_cli_table_cell (t, "total", NULL);
  ffm_cli_table_cell_count (t, templates);
  ffm_cli_table_cell_count (t, cut);
  ffm_cli_table_cell_count (t, evaluated);
  ffm_cli_table_cell_count (t, valid);
  ffm_cli_table_cell_count (t, n_groups);
  ffm_cli_table_cell_count (t, rows);
  ffm_cli_table_cell_quantity (t, seconds, "s");
  ffm_cli_table_cell (t, "", NULL);
  return t;
}

static FfmCliTable *
groups_table (const FfmPmappingSet *set)
{
  FfmWorkload *w = ffm_pmapping_set_get_workload (set);
  FfmArch *a = ffm_pmapping_set_get_arch (set);
  FfmCliTable *t = ffm_cli_table_new ("groups", "Compatibility groups");

  ffm_cli_table_add_text_column (t, "einsum", "Einsum");
  ffm_cli_table_add_column (t, "rows", "rows");
  ffm_cli_table_add_text_column (t, "compatibility", "compatibility");
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      const char *name = ffm_workload_get_einsum (w, ffm_einsum_pmappings_get_einsum (pm))->name;
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
        {
          const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
          g_autofree char *c = ffm_compatibility_to_string (&g->compat, w, a);
          ffm_cli_table_add_row (t);
          ffm_cli_table_cell (t, name, NULL);
          ffm_cli_table_cell_count (t, g->n_rows);
          ffm_cli_table_cell (t, c[0] ? c : "(no shared tensor)", c);
        }
    }
  return t;
}

static void
print_text (const FfmPmappingSet *set, GPtrArray *tables, gboolean templates)
{
  FfmWorkload *w = ffm_pmapping_set_get_workload (set);
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree char *wall = ffm_format_si (ffm_pmapping_set_get_seconds (set), "s");

  g_string_append_printf (out, "Pmappings of %s on %s\n\n", ffm_workload_get_name (w),
                          ffm_arch_get_name (ffm_pmapping_set_get_arch (set)));
  ffm_cli_table_append_text (g_ptr_array_index (tables, 0), out);
  g_string_append_printf (out, "\nWall time %s (thread time is summed over the "
                          "threads that worked on each Einsum)\n", wall);
  if (ffm_pmapping_set_get_n_templates_cut (set) > 0)
    g_string_append_printf (out, "NOT PROVEN OPTIMAL: %u templates cut by "
                            "--max-template-seconds or --max-templates; the "
                            "pmappings may miss the optimum\n",
                            ffm_pmapping_set_get_n_templates_cut (set));
  {
    guint64 vectors = 0;
    guint groups = ffm_pmapping_set_get_n_unjoinable (set, &vectors);
    if (vectors > 0 || groups > 0)
      g_string_append_printf (out, "Left out as no join could use them (--joinable-only): "
                              "%" G_GUINT64_FORMAT " tile vectors skipped, %u groups "
                              "dropped\n", vectors, groups);
  }
  for (guint i = 1; i < tables->len; i++)
    {
      g_string_append_c (out, '\n');
      ffm_cli_table_append_text (g_ptr_array_index (tables, i), out);
    }
  for (guint i = 0; templates && i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      append_templates (out, pm, ffm_workload_get_einsum (w, ffm_einsum_pmappings_get_einsum (pm))->name);
    }
  g_print ("%s", out->str);
}

static char *
result_json (const FfmPmappingSet *set, const FfmResultInfo *info, guint n_threads)
{
  FfmWorkload *w = ffm_pmapping_set_get_workload (set);
  FfmArch *a = ffm_pmapping_set_get_arch (set);
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
  guint n_tracked;
  const guint *tracked = ffm_pmapping_set_get_tracked_levels (set, &n_tracked);

  ffm_json_writer_begin_object (b);
  ffm_result_info_write_json (info, b);
  ffm_json_writer_member_string (b, "workload", ffm_workload_get_name (w));
  ffm_json_writer_member_string (b, "architecture", ffm_arch_get_name (a));
  ffm_json_writer_member_uint (b, "threads", n_threads);
  ffm_json_writer_member_double (b, "wall_s", ffm_pmapping_set_get_seconds (set));
  /* Cut templates (the generator's limits): the optimum may be missing. */
  ffm_json_writer_member_boolean (b, "proven_optimal",
                                  ffm_pmapping_set_get_n_templates_cut (set) == 0);
  {
    guint64 vectors = 0;
    guint groups = ffm_pmapping_set_get_n_unjoinable (set, &vectors);
    ffm_json_writer_member_uint (b, "unjoinable_vectors", vectors);
    ffm_json_writer_member_uint (b, "unjoinable_groups", groups);
  }
  ffm_json_writer_key (b, "tracked_memories");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < n_tracked; i++)
    ffm_json_writer_string (b, ffm_arch_get_level (a, tracked[i])->name);
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "einsums");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      const FfmPmappingStats *s = ffm_einsum_pmappings_get_stats (pm);
      const FfmEinsum *e = ffm_workload_get_einsum (w, ffm_einsum_pmappings_get_einsum (pm));

      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "name", e->name);
      ffm_json_writer_member_uint (b, "templates", s->n_templates);
      ffm_json_writer_member_uint (b, "templates_cut", s->n_templates_cut);
      ffm_json_writer_member_uint (b, "evaluated", s->n_evaluated);
      ffm_json_writer_member_uint (b, "valid", s->n_valid);
      ffm_json_writer_member_uint (b, "partial", s->n_partial);
      ffm_json_writer_member_uint (b, "groups", s->n_groups);
      ffm_json_writer_member_uint (b, "pmappings", s->n_rows);
      /* Thread time: summed over the threads that worked on it. */
      ffm_json_writer_member_double (b, "thread_seconds", s->seconds);
      ffm_json_writer_member_string (b, "same_as", s->reused_from >= 0
                                     ? ffm_workload_get_einsum (w, (guint) s->reused_from)->name
                                     : NULL);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
  return ffm_json_writer_finish (b);
}

static int
run (GOptionContext *context, PmappingsOptions *o)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmWorkload) workload = NULL;
  g_autoptr (FfmPmappingSet) set = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) tables = ffm_cli_tables_new ();
  g_autofree char *json = NULL;
  FfmPmappingOptions options;
  g_autoptr (FfmConstraints) constraints = NULL;
  FfmObjective objective = FFM_OBJECTIVE_EDP;
  guint imperfect = FFM_IMPERFECT_NONE;
  guint64 max_memory = 0;
  int status;

  if (ffm_cli_output_options_conflict (&o->output) != NULL)
    return ffm_cli_usage_error (context, COMMAND, "%s",
                                ffm_cli_output_options_conflict (&o->output));
  if (o->objective != NULL
      && !ffm_objective_from_string (o->objective, &objective, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (o->imperfect != NULL
      && !ffm_imperfect_from_string (o->imperfect, &imperfect, &error))
    return ffm_cli_usage_error (context, COMMAND, "--imperfect: %s", error->message);
  if (o->max_fused_loops < -1)
    return ffm_cli_usage_error (context, COMMAND,
                                "--max-fused-loops must be -1 (no limit) or more");
  if (o->max_fused_per_var < -1)
    return ffm_cli_usage_error (context, COMMAND,
                                "--max-fused-loops-per-rank-var must be -1 (no "
                                "limit) or more");
  if (!ffm_cli_timeout_is_valid (o->timeout))
    return ffm_cli_usage_error (context, COMMAND,
                                "--timeout must be a number of seconds from 0 "
                                "(none) to %.0f", FFM_CLI_MAX_TIMEOUT);
  if (!ffm_cli_generator_limits_check (&o->constraint.limits, &max_memory, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  registry = ffm_cli_registry_new (&o->common);
  ffm_cli_warn_plugin_failures (COMMAND, registry);
  status = ffm_cli_load_arch (context, COMMAND, registry, &o->problem, &arch);
  if (status != FFM_EXIT_OK)
    return status;
  status = ffm_cli_load_workload (context, COMMAND, &o->problem, &workload);
  if (status != FFM_EXIT_OK)
    return status;

  {
    g_autoptr (FfmProblem) problem = ffm_problem_new (workload, arch);
    if (!ffm_cli_constraints_build (&o->constraint, problem, &constraints, &error))
      return ffm_cli_fail (COMMAND, error);
  }
  ffm_pmapping_options_init (&options);
  options.constraints = constraints;
  options.objectives = ffm_pmapping_objectives_for (objective);
  options.max_fused_loops = o->max_fused_loops;
  options.max_fused_loops_per_rank_var = o->max_fused_per_var;
  options.unfused = o->unfused;
  options.reuse_equal_einsums = !o->no_reuse;
  options.drop_unjoinable = o->joinable_only;
  options.imperfect = imperfect;
  options.n_threads = ffm_cli_run_options_get_threads (&o->run);
  options.max_memory = max_memory;
  options.max_template_seconds = o->constraint.limits.max_template_seconds;
  options.max_templates = (guint) o->constraint.limits.max_templates;
  if (o->einsum != NULL)
    {
      options.einsum = ffm_workload_find_einsum (workload, o->einsum);
      if (options.einsum < 0)
        return ffm_cli_usage_error (context, COMMAND,
                                    "workload %s has no Einsum %s",
                                    ffm_workload_get_name (workload), o->einsum);
      /* Which pmappings no join can use depends on the other Einsums. */
      if (o->joinable_only)
        return ffm_cli_usage_error (context, COMMAND,
                                    "--joinable-only needs every Einsum: drop --einsum");
    }
  {
    g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->timeout);
    g_autoptr (FfmCliProgress) progress = ffm_cli_progress_start (COMMAND, !o->quiet);

    options.cancel = ffm_cli_cancel_get_flag (cancel);
    options.progress = ffm_cli_progress_pmappings;
    options.progress_data = progress;
    set = ffm_pmappings_generate (workload, arch, &options, &error);
    options.cancel = NULL;
    options.progress = NULL;
    g_clear_pointer (&progress, ffm_cli_progress_stop);
    if (set == NULL)
      {
        FfmCliStopReason reason = ffm_cli_cancel_get_reason (cancel);
        if (reason != FFM_CLI_STOP_NONE)
          g_prefix_error (&error, "%s: ", ffm_cli_cancel_describe (cancel));
        status = ffm_cli_fail (COMMAND, error);
        return reason != FFM_CLI_STOP_NONE ? ffm_cli_stop_exit_code (reason) : status;
      }
  }
  g_ptr_array_add (tables, einsums_table (set));
  if (o->groups)
    g_ptr_array_add (tables, groups_table (set));
  if (!o->quiet && ffm_cli_output_wants_text (&o->output))
    print_text (set, tables, o->templates);
  if (o->output.json != NULL)
    {
      g_autoptr (FfmResultInfo) info =
        ffm_cli_problem_info_new (COMMAND, registry, &o->problem, workload, arch);
      ffm_result_info_set_objective (info, ffm_objective_to_string (objective));
      ffm_result_info_set_option_int (info, "max_fused_loops", o->max_fused_loops);
      ffm_result_info_set_option_int (info, "max_fused_loops_per_rank_var",
                                      o->max_fused_per_var);
      ffm_result_info_set_option_boolean (info, "unfused", o->unfused);
      ffm_result_info_set_option_boolean (info, "reuse", !o->no_reuse);
      ffm_result_info_set_option_boolean (info, "joinable_only", o->joinable_only);
      ffm_result_info_set_option_string (info, "einsum", o->einsum);
      ffm_result_info_set_option_int (info, "threads", options.n_threads);
      json = result_json (set, info, options.n_threads);
    }
  if (!ffm_cli_output_write_results (&o->output, json, tables, &error))
    return ffm_cli_fail (COMMAND, error);
  return FFM_EXIT_OK;
}

int
ffm_cmd_pmappings (int argc, char **argv)
{
  PmappingsOptions o = { FFM_CLI_COMMON_INIT, FFM_CLI_RUN_OPTIONS_INIT,
                         FFM_CLI_PROBLEM_OPTIONS_INIT, FFM_CLI_OUTPUT_OPTIONS_INIT,
                         NULL, NULL, -1, 1, FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, 0,
                         NULL, FFM_CLI_SEARCH_OPTIONS_INIT };
  const GOptionEntry entries[] = {
    { "einsum", 'e', 0, G_OPTION_ARG_STRING, &o.einsum,
      "Only this Einsum", "NAME" },
    { "objective", 'o', 0, G_OPTION_ARG_STRING, &o.objective,
      "Objectives kept: energy, latency, edp or pareto (default edp)", "OBJ" },
    { "max-fused-loops", 0, 0, G_OPTION_ARG_INT, &o.max_fused_loops,
      "Fused loops per pmapping, -1 = no limit (default -1)", "N" },
    { "max-fused-loops-per-rank-var", 0, 0, G_OPTION_ARG_INT, &o.max_fused_per_var,
      "Fused loops per rank variable, -1 = no limit (default 1)", "N" },
    { "unfused", 0, 0, G_OPTION_ARG_NONE, &o.unfused,
      "Back every shared tensor in the outermost memory", NULL },
    { "groups", 0, 0, G_OPTION_ARG_NONE, &o.groups,
      "List each compatibility group", NULL },
    { "templates", 0, 0, G_OPTION_ARG_NONE, &o.templates,
      "Print every template (tiles are placeholders)", NULL },
    { "no-reuse", 0, 0, G_OPTION_ARG_NONE, &o.no_reuse,
      "Enumerate every Einsum, also those equal to an earlier one", NULL },
    { "joinable-only", 0, 0, G_OPTION_ARG_NONE, &o.joinable_only,
      "Leave out the pmappings no pmapping of another Einsum sharing a tensor "
      "agrees with (as `ffm map` does; needs every Einsum)", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o.timeout,
      "Stop after SECONDS (as Ctrl-C does) with an error", "SECONDS" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet,
      "Print nothing on standard output and no progress", NULL },
    { "imperfect", 0, 0, G_OPTION_ARG_STRING, &o.imperfect,
      ffm_cli_imperfect_help, "LOOPS" },
    G_OPTION_ENTRY_NULL
  };
  g_autofree char *description = ffm_cli_describe (
    "Generates every Pareto-optimal pmapping of each Einsum (the first phase\n"
    "of FFM) and reports what it took. --objective energy|latency|edp|pareto\n"
    "chooses the objectives kept, as `ffm map` does: energy and latency for\n"
    "edp and pareto; for energy (latency) both, the other breaking ties.\n"
    "Example:\n"
    "  ffm pmappings --arch simple --workload matmuls --param n_einsums=2\n",
    "pmapping-generator.md");
  g_autoptr (GOptionContext) context = ffm_cli_context_new (COMMAND, NULL, description);
  g_auto (GStrv) positional = NULL;
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_output_options (context, &o.output, "the counts");
  ffm_cli_add_constraint_options (context, &o.constraint);
  ffm_cli_add_generator_limit_options (context, &o.constraint.limits);
  ffm_cli_add_problem_options (context, &o.problem);
  ffm_cli_add_run_options (context, &o.run, FFM_CLI_RUN_THREADS);
  ffm_cli_add_common_options (context, &o.common, TRUE);
  if (!ffm_cli_parse (context, COMMAND, &o.common, &o.run, argc, argv, &positional))
    status = FFM_EXIT_USAGE;
  else if (positional[0] != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "unexpected argument '%s'",
                                  positional[0]);
  else
    status = run (context, &o);
  ffm_cli_output_options_clear (&o.output);
  ffm_cli_search_options_clear (&o.constraint);
  ffm_cli_common_clear (&o.common);
  ffm_cli_problem_options_clear (&o.problem);
  g_free (o.einsum);
  g_free (o.objective);
  g_free (o.imperfect);
  return status;
}
