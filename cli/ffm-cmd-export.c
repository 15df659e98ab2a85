/* ffm-cmd-export.c: `ffm export timeloop`, an ffm mapping as a Timeloop
 * map.yaml.
 *
 *   ffm export timeloop --arch A --workload W --mapping M.json [-o OUT]
 *
 * The mapping is a mapping file or the JSON `ffm map --json` writes (its
 * "mapping" member); it must map one Einsum. The YAML goes to stdout or
 * OUT, warnings (a mapping Timeloop reads otherwise) to stderr. Exit codes:
 * 0 ok, 1 when the mapping cannot be written for Timeloop, 2 for usage
 * errors. */
#include "ffm-cli-common.h"
#include "ffm-cli-output.h"

#include <json-glib/json-glib.h>
#include <string.h>

#define COMMAND "export"

static const char export_description[] =
  "Writes a single-Einsum ffm mapping as a Timeloop map.yaml (loop orders\n"
  "innermost first, keep/bypass per level, spatial splits), so that\n"
  "Timeloop can evaluate ffm's choice. Example:\n"
  "  ffm map --arch timeloop:arch.yaml,ERT.yaml \\\n"
  "    --workload timeloop:problem.yaml --json best.json\n"
  "  ffm export timeloop --arch timeloop:arch.yaml,ERT.yaml \\\n"
  "    --workload timeloop:problem.yaml --mapping best.json -o map.yaml\n";

typedef struct {
  FfmCliCommon common;
  FfmCliProblemOptions problem;
  char *mapping;                /* --mapping FILE (owned) */
  char *output;                 /* --output OUT (owned) */
} ExportOptions;

/* A mapping file, or the mapping of a result file (ffm-result.h), which
 * `ffm map --json` and `ffm eval --json` write. */
static FfmMapping *
load_mapping (const char *path, GError **error)
{
  g_autoptr (FfmResultFile) file = ffm_result_file_load (path, error);

  if (file == NULL)
    return NULL;
  if (ffm_result_file_get_mapping (file) == NULL)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "%s holds no mapping", path);
      return NULL;
    }
  return ffm_mapping_copy (ffm_result_file_get_mapping (file));
}

static int
run_export (GOptionContext *context, ExportOptions *o)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmWorkload) workload = NULL;
  g_autoptr (FfmMapping) mapping = NULL;
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  g_autofree char *yaml = NULL;
  int status;

  if (o->mapping == NULL)
    return ffm_cli_usage_error (context, COMMAND,
                                "--mapping is required (a mapping JSON file)");
  status = ffm_cli_load_workload (context, COMMAND, &o->problem, &workload);
  if (status != FFM_EXIT_OK)
    return status;
  registry = ffm_cli_registry_new (&o->common);
  status = ffm_cli_load_arch (context, COMMAND, registry, &o->problem, &arch);
  if (status != FFM_EXIT_OK)
    return status;
  mapping = load_mapping (o->mapping, &error);
  if (mapping == NULL)
    return ffm_cli_fail (COMMAND, error);
  yaml = ffm_timeloop_mapping_to_yaml (mapping, workload, arch, warnings, &error);
  for (guint i = 0; i < warnings->len; i++)
    ffm_cli_warn (COMMAND, "%s", (const char *) warnings->pdata[i]);
  if (yaml == NULL)
    return ffm_cli_fail (COMMAND, error);
  if (!ffm_cli_output_write (o->output != NULL ? o->output : "-", yaml, &error))
    return ffm_cli_fail (COMMAND, error);
  return FFM_EXIT_OK;
}

int
ffm_cmd_export (int argc, char **argv)
{
  ExportOptions o = { FFM_CLI_COMMON_INIT, FFM_CLI_PROBLEM_OPTIONS_INIT, NULL, NULL };
  const GOptionEntry entries[] = {
    { "mapping", 'm', 0, G_OPTION_ARG_FILENAME, &o.mapping,
      "The mapping to export (a mapping JSON file, or what ffm map --json "
      "writes)", "FILE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
      "Write the YAML to OUT (default: stdout)", "OUT" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autofree char *description = NULL;
  g_auto (GStrv) positional = NULL;
  int status;

  description = ffm_cli_describe (export_description, "timeloop.md");
  context = ffm_cli_context_new (COMMAND, "timeloop", description);
  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_problem_options (context, &o.problem);
  ffm_cli_add_common_options (context, &o.common, TRUE);

  if (!ffm_cli_parse (context, COMMAND, &o.common, NULL, argc, argv, &positional))
    status = FFM_EXIT_USAGE;
  else if (positional[0] == NULL)
    status = ffm_cli_usage_error (context, COMMAND,
                                  "give the format to export: timeloop");
  else if (strcmp (positional[0], "timeloop") != 0)
    status = ffm_cli_usage_error (context, COMMAND, "unknown format '%s' (ffm "
                                  "exports timeloop)", positional[0]);
  else if (positional[1] != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "unexpected argument '%s'",
                                  positional[1]);
  else
    status = run_export (context, &o);

  g_free (o.mapping);
  g_free (o.output);
  ffm_cli_problem_options_clear (&o.problem);
  ffm_cli_common_clear (&o.common);
  return status;
}
