/* ffm-cmd-eval.c: `ffm eval`, the cost of a given mapping.
 *
 *   ffm eval --arch A --workload W --mapping M.json [--json OUT]
 *
 * The mapping may also be a Timeloop map.yaml, --mapping timeloop:map.yaml,
 * translated for the workload and the architecture (docs/timeloop.md).
 * Loads the architecture, the workload and the mapping, evaluates the
 * mapping with the cost model (ffm-cost.h) and prints a table on stdout:
 * totals, per Einsum, per component, per (Einsum, component, tensor). With
 * --json the same report is written to OUT as JSON ("-": stdout, instead
 * of the table). A mapping that does not fit the architecture is a valid
 * answer (the table says where and by how much; exit code 0); a mapping
 * that does not match the workload or the architecture is an error naming
 * the mapping file and the node (exit code 1). */
#include "ffm-cli-common.h"
#include "ffm-cli-output.h"

#include <string.h>

#define COMMAND "eval"

static const char eval_description[] =
  "Prints energy, latency, EDP, and per Einsum, component and tensor the\n"
  "reads, fills, drains and updates (in values), actions, energy and buffer\n"
  "occupancy. Mapping files are described in docs/file-formats.md, the\n"
  "model in docs/cost-model.md. Example:\n"
  "  ffm eval --arch simple --workload matmuls --param n_einsums=1 \\\n"
  "    --mapping docs/examples/mappings/unfused_matmuls_to_simple.json";

typedef struct {
  FfmCliCommon common;
  FfmCliProblemOptions problem;
  char *mapping;                /* --mapping FILE (owned) */
  char *json;                   /* --json OUT (owned) */
} EvalOptions;

static int
write_json (const FfmCostReport *report, const char *out)
{
  g_autofree char *json = ffm_cost_report_to_json (report);
  g_autoptr (GError) error = NULL;

  if (!ffm_cli_output_write (out, json, &error))
    return ffm_cli_fail (COMMAND, error);
  return FFM_EXIT_OK;
}

static int
run_eval (GOptionContext *context, EvalOptions *options)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmWorkload) workload = NULL;
  g_autoptr (FfmMapping) mapping = NULL;
  g_autoptr (FfmCostReport) report = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  if (options->mapping == NULL)
    return ffm_cli_usage_error (context, COMMAND,
                                "--mapping is required (a mapping JSON file)");
  status = ffm_cli_load_workload (context, COMMAND, &options->problem, &workload);
  if (status != FFM_EXIT_OK)
    return status;
  registry = ffm_cli_registry_new (&options->common);
  status = ffm_cli_load_arch (context, COMMAND, registry, &options->problem, &arch);
  if (status != FFM_EXIT_OK)
    return status;
  if (g_str_has_prefix (options->mapping, FFM_CLI_TIMELOOP_PREFIX))
    {
      g_autoptr (FfmTimeloopSpec) spec =
        ffm_timeloop_spec_load_list (options->mapping
                                     + strlen (FFM_CLI_TIMELOOP_PREFIX), &error);
      if (spec != NULL)
        {
          mapping = ffm_timeloop_spec_to_mapping (spec, workload, arch,
                                                  FFM_TIMELOOP_MAPPING_DEFAULT,
                                                  &error);
          ffm_cli_warn_timeloop (COMMAND, spec);
        }
    }
  else
    mapping = ffm_mapping_load_file (options->mapping, &error);
  if (mapping == NULL)
    return ffm_cli_fail (COMMAND, error);
  report = ffm_cost_evaluate_mapping (workload, arch, mapping, &error);
  if (report == NULL)
    return ffm_cli_fail (COMMAND, error);

  if (g_strcmp0 (options->json, "-") != 0)
    {
      g_autofree char *table = ffm_cost_report_to_table (report);
      g_print ("%s", table);
    }
  if (options->json != NULL)
    return write_json (report, options->json);
  return FFM_EXIT_OK;
}

int
ffm_cmd_eval (int argc, char **argv)
{
  EvalOptions options = { FFM_CLI_COMMON_INIT, FFM_CLI_PROBLEM_OPTIONS_INIT,
                          NULL, NULL };
  const GOptionEntry entries[] = {
    { "mapping", 'm', 0, G_OPTION_ARG_FILENAME, &options.mapping,
      "The mapping to evaluate (JSON, or a Timeloop mapping "
      "timeloop:map.yaml)", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &options.json,
      "Also write the report as JSON to OUT (- = stdout, instead of the table)",
      "OUT" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = NULL;
  g_auto (GStrv) positional = NULL;
  int status;

  context = ffm_cli_context_new (COMMAND, NULL, eval_description);
  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_problem_options (context, &options.problem);
  ffm_cli_add_common_options (context, &options.common);

  if (!ffm_cli_parse (context, COMMAND, &options.common, argc, argv, &positional))
    status = FFM_EXIT_USAGE;
  else if (positional[0] != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "unexpected argument '%s'",
                                  positional[0]);
  else
    status = run_eval (context, &options);

  g_free (options.mapping);
  g_free (options.json);
  ffm_cli_problem_options_clear (&options.problem);
  ffm_cli_common_clear (&options.common);
  return status;
}
