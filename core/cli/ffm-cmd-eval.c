/* ffm-cmd-eval.c: `ffm eval`, the cost of a given mapping.
 *
 *   ffm eval RESULT.json [--arch A] [--arch-param K=V]... [--workload W]
 *            [--param K=V]... [--json OUT] [--csv OUT] [--loop-nest]
 *   ffm eval --mapping M.json --arch A --workload W [--param K=V]...
 *
 * Reads a result file (what `ffm map --json` and `ffm eval --json` write,
 * ffm-result.h) or a plain mapping file, positional or after --mapping.
 * A result file records the architecture and the workload with every
 * parameter value, so it needs no other argument: it is rebuilt and its
 * mapping evaluated to the same costs, bit for bit. Options given on the
 * command line override what the file records, and each override is
 * reported on stderr ("note: ..."). A plain mapping file needs --arch and
 * --workload (or the names it records). The mapping is evaluated with the
 * cost model (ffm-cost.h) and its report printed (ffm-cli-report.h);
 * --json writes a result file in turn, --csv the tables.
 * A mapping that does not match the workload (an unknown tensor, a loop
 * over a rank variable the Einsum lacks) is an error naming the mapping
 * file and the node, and what differs between the workload the mapping
 * was made for and this one. A mapping that matches but does not fit the
 * architecture (a memory or a fanout too small) is reported in full and
 * ends with exit code 1 and the reason.
 * Exit codes: 0 ok, 1 when something does not load, the mapping does not
 * match or does not fit, 2 for usage errors. */
#include "ffm-cli-common.h"
#include "ffm-cli-output.h"
#include "ffm-cli-report.h"
#include "ffm-cli-table.h"

#include <string.h>

#define COMMAND "eval"

typedef struct {
  FfmCliCommon common;
  FfmCliProblemOptions problem;
  FfmCliOutputOptions output;
  char *mapping;                /* --mapping FILE (owned) */
  gboolean loop_nest;           /* --loop-nest */
} EvalOptions;

/* ---- What the result file records, and the command line changes ---- */

/* A recorded source as --arch/--workload takes it: the name or path the
 * user gave, or the recorded file when that path is gone (the result was
 * made from another folder). */
static const char *
recorded_spec (const FfmResultSource *s)
{
  gboolean path = s->given == NULL || strchr (s->given, '/') != NULL
                  || g_str_has_suffix (s->given, ".json");

  if (path && s->file != NULL
      && (s->given == NULL || !g_file_test (s->given, G_FILE_TEST_EXISTS)))
    return s->file;
  return s->given;
}

/* "KEY=VALUE" strings: @recorded's values (when @keep_recorded), then the
 * command line's @given over them; each value that replaces a recorded
 * one becomes a note. */
static char **
merge_params (const FfmParamValues *recorded, gboolean keep_recorded, char **given,
              const char *option, const char *file, GPtrArray *notes)
{
  g_autoptr (FfmParamValues) merged = ffm_param_values_new ();
  GStrvBuilder *out = g_strv_builder_new ();
  char **result;

  for (const char *const *k = recorded != NULL && keep_recorded
                              ? ffm_param_values_get_keys (recorded) : NULL;
       k != NULL && *k != NULL; k++)
    ffm_param_values_set (merged, *k, ffm_param_values_lookup (recorded, *k));
  for (guint i = 0; given != NULL && given[i] != NULL; i++)
    {
      g_auto (GStrv) kv = g_strsplit (given[i], "=", 2);
      const char *old;
      if (kv[0] == NULL || kv[1] == NULL)
        {
          /* Malformed: left for the loader to refuse with its message. */
          g_strv_builder_add (out, given[i]);
          continue;
        }
      old = keep_recorded && recorded != NULL ? ffm_param_values_lookup (recorded, kv[0]) : NULL;
      if (old != NULL && strcmp (old, kv[1]) != 0)
        g_ptr_array_add (notes, g_strdup_printf ("%s %s replaces %s=%s recorded in %s",
                                                 option, given[i], kv[0], old, file));
      ffm_param_values_set (merged, kv[0], kv[1]);
    }
  for (const char *const *k = ffm_param_values_get_keys (merged); *k != NULL; k++)
    {
      g_autofree char *kv = g_strdup_printf ("%s=%s", *k, ffm_param_values_lookup (merged, *k));
      g_strv_builder_add (out, kv);
    }
  result = g_strv_builder_end (out);
  g_strv_builder_unref (out);
  return result;
}

/* One of the architecture and the workload: the command line's name, or
 * the recorded one; the recorded parameters under the command line's,
 * when it is the same one. */
static void
merge_source (const FfmResultSource *recorded, const char *what, char **name,
              char ***params, const char *option, const char *param_option,
              const char *file, GPtrArray *notes)
{
  gboolean same = TRUE;
  char **merged;

  if (recorded == NULL)
    return;
  if (*name != NULL)
    {
      same = g_strcmp0 (*name, recorded->given) == 0
             || g_strcmp0 (*name, recorded->file) == 0;
      if (!same)
        g_ptr_array_add (notes, g_strdup_printf ("%s %s replaces the %s %s recorded "
                                                 "in %s (its parameters are not used)",
                                                 option, *name, what,
                                                 recorded_spec (recorded), file));
    }
  else
    *name = g_strdup (recorded_spec (recorded));
  merged = merge_params (recorded->parameters, same, *params, param_option, file, notes);
  g_strfreev (*params);
  *params = merged;
}

/* "made with batch=1, used with batch=2" for the parameters that differ
 * between @recorded and @used, or NULL. */
static char *
describe_param_differences (const FfmParamValues *recorded, const FfmParamValues *used)
{
  GString *made = g_string_new (NULL), *now = g_string_new (NULL);

  for (const char *const *k = ffm_param_values_get_keys (recorded); *k != NULL; k++)
    {
      const char *a = ffm_param_values_lookup (recorded, *k);
      const char *b = ffm_param_values_lookup (used, *k);
      if (g_strcmp0 (a, b) == 0)
        continue;
      g_string_append_printf (made, "%s%s=%s", made->len ? ", " : "", *k, a);
      g_string_append_printf (now, "%s%s=%s", now->len ? ", " : "", *k, b ? b : "(unset)");
    }
  if (made->len == 0)
    {
      g_string_free (made, TRUE);
      g_string_free (now, TRUE);
      return NULL;
    }
  {
    char *text = g_strdup_printf ("made with %s, evaluated with %s", made->str, now->str);
    g_string_free (made, TRUE);
    g_string_free (now, TRUE);
    return text;
  }
}

/* Why a mapping may not match: the workload or architecture it was made
 * for, where that differs from this one ("" when nothing differs). */
static char *
mismatch_context (const FfmResultInfo *info, const FfmMapping *mapping,
                  const FfmWorkload *w, const FfmArch *a)
{
  GString *out = g_string_new (NULL);
  const char *made_for = ffm_mapping_get_workload_name (mapping);
  const char *made_on = ffm_mapping_get_architecture_name (mapping);

  if (info != NULL && ffm_result_info_get_workload (info) != NULL)
    made_for = ffm_result_info_get_workload (info)->name;
  if (info != NULL && ffm_result_info_get_architecture (info) != NULL)
    made_on = ffm_result_info_get_architecture (info)->name;
  if (made_for != NULL && strcmp (made_for, ffm_workload_get_name (w)) != 0)
    g_string_append_printf (out, "; the mapping was made for workload %s, not %s",
                            made_for, ffm_workload_get_name (w));
  else if (info != NULL && ffm_result_info_get_workload (info) != NULL)
    {
      g_autofree char *diff =
        describe_param_differences (ffm_result_info_get_workload (info)->parameters,
                                    ffm_workload_get_param_values (w));
      if (diff != NULL)
        g_string_append_printf (out, "; workload %s: the mapping was %s",
                                ffm_workload_get_name (w), diff);
    }
  if (made_on != NULL && strcmp (made_on, ffm_arch_get_name (a)) != 0)
    g_string_append_printf (out, "; the mapping was made for architecture %s, not %s",
                            made_on, ffm_arch_get_name (a));
  return g_string_free (out, FALSE);
}

/* ---- Output ---- */

static char *
result_json (const FfmResultInfo *info, const FfmCostReport *report, GPtrArray *notes)
{
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();

  ffm_json_writer_begin_object (b);
  ffm_result_info_write_json (info, b);
  ffm_json_writer_member_string (b, "workload", ffm_workload_get_name (ffm_cost_report_get_workload (report)));
  ffm_json_writer_member_string (b, "architecture", ffm_arch_get_name (ffm_cost_report_get_arch (report)));
  ffm_json_writer_key (b, "overrides");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < notes->len; i++)
    ffm_json_writer_string (b, g_ptr_array_index (notes, i));
  ffm_json_writer_end_array (b);
  ffm_cli_report_write_json (report, b);
  ffm_json_writer_end_object (b);
  return ffm_json_writer_finish (b);
}

/* The record of this evaluation: the problem as loaded, and how the
 * mapping was made when the file says. */
static FfmResultInfo *
eval_info (const FfmResultInfo *recorded, FfmPluginRegistry *registry,
           const FfmCliProblemOptions *problem, const FfmWorkload *w, const FfmArch *a)
{
  FfmResultInfo *info = ffm_cli_problem_info_new (COMMAND, registry, problem, w, a);

  if (recorded != NULL)
    ffm_result_info_set_search_from (info, recorded);
  return info;
}

static int
run_eval (GOptionContext *context, EvalOptions *o, const char *file)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmWorkload) workload = NULL;
  g_autoptr (FfmResultFile) result = NULL;
  g_autoptr (FfmCostReport) report = NULL;
  g_autoptr (FfmResultInfo) info = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) tables = ffm_cli_tables_new ();
  g_autofree char *json = NULL;
  const FfmResultInfo *recorded;
  const FfmMapping *mapping;
  int status;

  if (ffm_cli_output_options_conflict (&o->output) != NULL)
    return ffm_cli_usage_error (context, COMMAND, "%s",
                                ffm_cli_output_options_conflict (&o->output));
  result = ffm_result_file_load (file, &error);
  if (result == NULL)
    return ffm_cli_fail (COMMAND, error);
  recorded = ffm_result_file_get_info (result);
  mapping = ffm_result_file_get_mapping (result);
  if (mapping == NULL)
    {
      g_set_error (&error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "%s holds no mapping (it was written by ffm %s)", file,
                   ffm_result_info_get_command (recorded) != NULL
                   ? ffm_result_info_get_command (recorded) : "?");
      return ffm_cli_fail (COMMAND, error);
    }
  if (recorded != NULL)
    {
      merge_source (ffm_result_info_get_architecture (recorded), "architecture",
                    &o->problem.arch, &o->problem.arch_params, "--arch", "--arch-param",
                    file, notes);
      merge_source (ffm_result_info_get_workload (recorded), "workload",
                    &o->problem.workload, &o->problem.params, "--workload", "--param",
                    file, notes);
    }
  else
    {
      /* A plain mapping may name what it was made for. */
      if (o->problem.arch == NULL && ffm_mapping_get_architecture_name (mapping) != NULL)
        o->problem.arch = g_strdup (ffm_mapping_get_architecture_name (mapping));
      if (o->problem.workload == NULL && ffm_mapping_get_workload_name (mapping) != NULL)
        o->problem.workload = g_strdup (ffm_mapping_get_workload_name (mapping));
    }
  for (guint i = 0; i < notes->len; i++)
    g_printerr ("ffm %s: note: %s\n", COMMAND, (const char *) g_ptr_array_index (notes, i));

  if (o->problem.workload == NULL || o->problem.arch == NULL)
    return ffm_cli_usage_error (context, COMMAND,
                                "%s is a plain mapping naming no %s: give --arch and "
                                "--workload (and their parameters)", file,
                                o->problem.arch == NULL ? "architecture" : "workload");
  status = ffm_cli_load_workload (context, COMMAND, &o->problem, &workload);
  if (status != FFM_EXIT_OK)
    return status;
  registry = ffm_cli_registry_new (&o->common);
  status = ffm_cli_load_arch (context, COMMAND, registry, &o->problem, &arch);
  if (status != FFM_EXIT_OK)
    return status;
  report = ffm_cost_evaluate_mapping (workload, arch, mapping, &error);
  if (report == NULL)
    {
      g_autofree char *why = mismatch_context (recorded, mapping, workload, arch);
      g_printerr ("ffm %s: %s%s\n", COMMAND, error->message, why);
      return FFM_EXIT_FAILURE;
    }

  ffm_cli_report_add_tables (report, tables);
  if (ffm_cli_output_wants_text (&o->output))
    {
      FfmCliReportOptions report_options = { o->loop_nest };
      g_autoptr (GString) out = g_string_new (NULL);
      g_string_append_printf (out, "Mapping %s: workload %s on architecture %s\n\n", file,
                              ffm_workload_get_name (workload), ffm_arch_get_name (arch));
      ffm_cli_report_append_text (report, &report_options, out);
      g_print ("%s", out->str);
    }
  if (o->output.json != NULL)
    {
      info = eval_info (recorded, registry, &o->problem, workload, arch);
      json = result_json (info, report, notes);
    }
  if (!ffm_cli_output_write_results (&o->output, json, tables, &error))
    return ffm_cli_fail (COMMAND, error);
  if (!ffm_cost_report_fits (report))
    {
      g_printerr ("ffm %s: the mapping does not fit architecture %s: %s\n", COMMAND,
                  ffm_arch_get_name (arch), ffm_cost_report_get_problem (report));
      return FFM_EXIT_FAILURE;
    }
  return FFM_EXIT_OK;
}

int
ffm_cmd_eval (int argc, char **argv)
{
  EvalOptions o = { FFM_CLI_COMMON_INIT, FFM_CLI_PROBLEM_OPTIONS_INIT,
                    FFM_CLI_OUTPUT_OPTIONS_INIT, NULL, FALSE };
  const GOptionEntry entries[] = {
    { "mapping", 'm', 0, G_OPTION_ARG_FILENAME, &o.mapping,
      "The mapping or result file to evaluate (or give it as the argument)", "FILE" },
    { "loop-nest", 0, 0, G_OPTION_ARG_NONE, &o.loop_nest,
      "Also print the mapping as loop-nest pseudo-code", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autofree char *description = ffm_cli_describe (
    "Evaluates a mapping with the cost model and prints energy, latency, EDP,\n"
    "per Einsum (with the component bounding its latency), per component,\n"
    "fanout utilization, per tensor and per (Einsum, component, tensor) the\n"
    "reads, fills, drains and updates, and the LoopTree. FILE is a result file\n"
    "(ffm map --json, ffm eval --json), which needs no other option, or a\n"
    "mapping file, which needs --arch and --workload. Options override what a\n"
    "result file records. Examples:\n"
    "  ffm map --arch simple --workload matmuls --json result.json\n"
    "  ffm eval result.json\n"
    "  ffm eval --arch simple --workload matmuls --param n_einsums=1 \\\n"
    "    --mapping docs/examples/mappings/unfused_matmuls_to_simple.json\n"
    "Mapping and result files: file-formats.md; the model: cost-model.md.\n",
    "cost-model.md");
  g_autoptr (GOptionContext) context = NULL;
  g_auto (GStrv) positional = NULL;
  int status;

  context = ffm_cli_context_new (COMMAND, "[FILE]", description);
  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_output_options (context, &o.output, "the result");
  ffm_cli_add_problem_options (context, &o.problem);
  ffm_cli_add_common_options (context, &o.common, TRUE);

  if (!ffm_cli_parse (context, COMMAND, &o.common, NULL, argc, argv, &positional))
    status = FFM_EXIT_USAGE;
  else if (positional[0] != NULL && positional[1] != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "unexpected argument '%s' (one "
                                  "mapping or result file at a time)", positional[1]);
  else if (positional[0] != NULL && o.mapping != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "give the file as the argument or "
                                  "after --mapping, not both");
  else if (positional[0] == NULL && o.mapping == NULL)
    status = ffm_cli_usage_error (context, COMMAND, "which mapping? (a result file or "
                                  "--mapping FILE)");
  else
    status = run_eval (context, &o, positional[0] != NULL ? positional[0] : o.mapping);

  g_free (o.mapping);
  ffm_cli_output_options_clear (&o.output);
  ffm_cli_problem_options_clear (&o.problem);
  ffm_cli_common_clear (&o.common);
  return status;
}
