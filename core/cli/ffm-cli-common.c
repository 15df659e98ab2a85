/* ffm-cli-common.c: options, messages and loading shared by the `ffm`
 * subcommands (see ffm-cli-common.h). */
#include "ffm-cli-common.h"

#include <stdarg.h>
#include <string.h>

/* ---- Subcommand summaries ---- */

static const struct {
  const char *name;
  const char *summary;
} command_summaries[] = {
#define FFM_COMMAND_SUMMARY_(name, handler, summary) { name, summary },
  FFM_COMMANDS (FFM_COMMAND_SUMMARY_)
#undef FFM_COMMAND_SUMMARY_
};

const char *
ffm_cli_command_summary (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (command_summaries); i++)
    if (strcmp (command_summaries[i].name, name) == 0)
      return command_summaries[i].summary;
  return NULL;
}

/* ---- Option structs ---- */

void
ffm_cli_common_init (FfmCliCommon *common)
{
  *common = (FfmCliCommon) FFM_CLI_COMMON_INIT;
}

void
ffm_cli_common_clear (FfmCliCommon *common)
{
  g_clear_pointer (&common->plugin_dirs, g_strfreev);
}

guint
ffm_cli_common_get_threads (const FfmCliCommon *common)
{
  if (common->threads > 0)
    return (guint) common->threads;
  return MAX (1, g_get_num_processors ());
}

void
ffm_cli_problem_options_init (FfmCliProblemOptions *options)
{
  *options = (FfmCliProblemOptions) FFM_CLI_PROBLEM_OPTIONS_INIT;
}

void
ffm_cli_problem_options_clear (FfmCliProblemOptions *options)
{
  g_clear_pointer (&options->arch, g_free);
  g_clear_pointer (&options->arch_params, g_strfreev);
  g_clear_pointer (&options->workload, g_free);
  g_clear_pointer (&options->params, g_strfreev);
}

/* ---- Contexts and parsing ---- */

GOptionContext *
ffm_cli_context_new (const char *command,
                     const char *parameter_string,
                     const char *description)
{
  g_autofree char *prgname = g_strdup_printf ("ffm %s", command);
  GOptionContext *context;

  /* GLib prints the program name in the usage line: "ffm list [OPTION…]". */
  g_set_prgname (prgname);
  context = g_option_context_new (parameter_string);
  g_option_context_set_summary (context, ffm_cli_command_summary (command));
  if (description != NULL)
    g_option_context_set_description (context, description);
  return context;
}

void
ffm_cli_add_common_options (GOptionContext *context, FfmCliCommon *common)
{
  const GOptionEntry entries[] = {
    { "plugin-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &common->plugin_dirs,
      "Also look for plugins in DIR, before FFM_PLUGIN_PATH and the built-in "
      "folder (repeatable)", "DIR" },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &common->verbose,
      "Log what ffm does on stderr", NULL },
    { "threads", 0, 0, G_OPTION_ARG_INT, &common->threads,
      "Use N worker threads (default: one per processor)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &common->seed,
      "Seed of randomised strategies (default: 1)", "N" },
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

void
ffm_cli_add_problem_options (GOptionContext *context,
                             FfmCliProblemOptions *options)
{
  const GOptionEntry entries[] = {
    /* FILENAME, not STRING: the value may be a path, kept byte for byte. */
    { "arch", 'a', 0, G_OPTION_ARG_FILENAME, &options->arch,
      "Architecture: a name from `ffm list`, MODEL:NAME, a JSON file, or "
      "Timeloop YAML files timeloop:ARCH.yaml,ERT.yaml", "ARCH" },
    { "arch-param", 0, 0, G_OPTION_ARG_STRING_ARRAY, &options->arch_params,
      "Set an architecture parameter (repeatable)", "KEY=VALUE" },
    { "workload", 'w', 0, G_OPTION_ARG_FILENAME, &options->workload,
      "Workload: a name from the workload folders, a JSON file, or a "
      "Timeloop problem timeloop:PROBLEM.yaml", "WORKLOAD" },
    { "param", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &options->params,
      "Set a workload parameter (repeatable)", "KEY=VALUE" },
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

static void
print_help_to_stderr (GOptionContext *context)
{
  g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

  g_printerr ("\n%s", help);
}

gboolean
ffm_cli_parse (GOptionContext *context,
               const char *command,
               FfmCliCommon *common,
               int argc,
               char **argv,
               GStrv *positional)
{
  g_auto (GStrv) args = g_new0 (char *, argc + 1);
  g_autoptr (GError) error = NULL;
  GStrvBuilder *rest;

  /* A copy: GLib removes what it parses, and argv belongs to the caller. */
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);
  if (!g_option_context_parse_strv (context, &args, &error))
    {
      ffm_cli_usage_error (context, command, "%s", error->message);
      return FALSE;
    }
  if (common != NULL)
    {
      if (common->threads < 0 || common->threads > FFM_MAX_THREADS)
        {
          ffm_cli_usage_error (context, command,
                               "--threads must be 0 (one per processor) to %d, "
                               "not %d", FFM_MAX_THREADS, common->threads);
          return FALSE;
        }
      if (common->seed < 0)
        {
          ffm_cli_usage_error (context, command,
                               "--seed must be 0 or more, not %" G_GINT64_FORMAT,
                               common->seed);
          return FALSE;
        }
      if (common->verbose)
        g_log_set_debug_enabled (TRUE);
    }

  rest = g_strv_builder_new ();
  for (guint i = 1; args[0] != NULL && args[i] != NULL; i++)
    g_strv_builder_add (rest, args[i]);
  *positional = g_strv_builder_end (rest);
  g_strv_builder_unref (rest);
  return TRUE;
}

/* ---- Messages ---- */

int
ffm_cli_usage_error (GOptionContext *context,
                     const char *command,
                     const char *format,
                     ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("ffm %s: %s\n", command, message);
  if (context != NULL)
    print_help_to_stderr (context);
  return FFM_EXIT_USAGE;
}

int
ffm_cli_fail (const char *command, const GError *error)
{
  g_printerr ("ffm %s: %s\n", command, error->message);
  return FFM_EXIT_FAILURE;
}

void
ffm_cli_warn (const char *command, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("ffm %s: warning: %s\n", command, message);
}

/* ---- Loading ---- */

FfmPluginRegistry *
ffm_cli_registry_new (const FfmCliCommon *common)
{
  FfmPluginRegistry *registry = ffm_plugin_registry_new ();

  for (guint i = 0; common->plugin_dirs != NULL && common->plugin_dirs[i] != NULL; i++)
    ffm_plugin_registry_add_dir (registry, common->plugin_dirs[i]);
  ffm_plugin_registry_scan (registry);
  return registry;
}

void
ffm_cli_warn_plugin_failures (const char *command,
                              const FfmPluginRegistry *registry)
{
  const GPtrArray *failures = ffm_plugin_registry_get_failures (registry);

  for (guint i = 0; i < failures->len; i++)
    ffm_cli_warn (command, "%s", ((const GError *) failures->pdata[i])->message);
}

FfmParamValues *
ffm_cli_parse_assignments (char **assignments, const char *option, GError **error)
{
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();

  for (guint i = 0; assignments != NULL && assignments[i] != NULL; i++)
    if (!ffm_param_values_parse_assignment (values, assignments[i], error))
      {
        g_prefix_error (error, "%s: ", option);
        return NULL;
      }
  return g_steal_pointer (&values);
}

void
ffm_cli_warn_timeloop (const char *command, FfmTimeloopSpec *spec)
{
  g_auto (GStrv) warnings = ffm_timeloop_spec_steal_warnings (spec);

  for (guint i = 0; warnings[i] != NULL; i++)
    ffm_cli_warn (command, "%s", warnings[i]);
}

/* --arch timeloop:FILE,FILE... and --workload timeloop:FILE,...: Timeloop
 * YAML translated by core (ffm-timeloop.h). After the translation (@ok
 * whether it worked): the warnings, then the error. */
static int
timeloop_done (const char *command, FfmTimeloopSpec *spec, gboolean ok,
               const GError *error)
{
  if (spec != NULL)
    ffm_cli_warn_timeloop (command, spec);
  return ok ? FFM_EXIT_OK : ffm_cli_fail (command, error);
}

static int
load_timeloop_arch (GOptionContext *context, const char *command,
                    const FfmCliProblemOptions *options, FfmArch **out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = NULL;

  if (options->arch_params != NULL && options->arch_params[0] != NULL)
    return ffm_cli_usage_error (context, command,
                                "--arch-param: a Timeloop architecture has no "
                                "parameters (edit its YAML)");
  spec = ffm_timeloop_spec_load_list (options->arch + strlen (FFM_CLI_TIMELOOP_PREFIX),
                                      &error);
  if (spec != NULL)
    *out = ffm_timeloop_spec_to_arch (spec, &error);
  return timeloop_done (command, spec, spec != NULL && *out != NULL, error);
}

static int
load_timeloop_workload (GOptionContext *context, const char *command,
                        const FfmCliProblemOptions *options, FfmWorkload **out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = NULL;
  guint64 bits = FFM_CLI_TIMELOOP_DEFAULT_BITS;

  for (guint i = 0; options->params != NULL && options->params[i] != NULL; i++)
    {
      const char *p = options->params[i];
      if (!g_str_has_prefix (p, "bits=")
          || !g_ascii_string_to_unsigned (p + 5, 10, 1, 1024, &bits, NULL))
        return ffm_cli_usage_error (context, command,
                                    "--param %s: a Timeloop problem takes only "
                                    "bits=N (bits per value, 1 to 1024)", p);
    }
  spec = ffm_timeloop_spec_load_list (options->workload
                                      + strlen (FFM_CLI_TIMELOOP_PREFIX), &error);
  if (spec != NULL)
    *out = ffm_timeloop_spec_to_workload (spec, (guint) bits, &error);
  return timeloop_done (command, spec, spec != NULL && *out != NULL, error);
}

int
ffm_cli_load_arch (GOptionContext *context,
                   const char *command,
                   FfmPluginRegistry *registry,
                   const FfmCliProblemOptions *options,
                   FfmArch **out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmParamValues) values = NULL;

  if (options->arch == NULL)
    return ffm_cli_usage_error (context, command,
                                "--arch is required (a name from `ffm list`, "
                                "MODEL:NAME, a JSON file or timeloop:FILE.yaml,...)");
  if (g_str_has_prefix (options->arch, FFM_CLI_TIMELOOP_PREFIX))
    return load_timeloop_arch (context, command, options, out);
  values = ffm_cli_parse_assignments (options->arch_params, "--arch-param", &error);
  if (values == NULL)
    return ffm_cli_usage_error (context, command, "%s", error->message);
  *out = ffm_plugin_registry_build_arch (registry, options->arch, values, &error);
  if (*out == NULL)
    return ffm_cli_fail (command, error);
  return FFM_EXIT_OK;
}

int
ffm_cli_load_workload (GOptionContext *context,
                       const char *command,
                       const FfmCliProblemOptions *options,
                       FfmWorkload **out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmParamValues) values = NULL;

  if (options->workload == NULL)
    return ffm_cli_usage_error (context, command,
                                "--workload is required (a name from the "
                                "workload folders, a JSON file or "
                                "timeloop:FILE.yaml)");
  if (g_str_has_prefix (options->workload, FFM_CLI_TIMELOOP_PREFIX))
    return load_timeloop_workload (context, command, options, out);
  values = ffm_cli_parse_assignments (options->params, "--param", &error);
  if (values == NULL)
    return ffm_cli_usage_error (context, command, "%s", error->message);
  *out = ffm_workload_load (options->workload, values, &error);
  if (*out == NULL)
    return ffm_cli_fail (command, error);
  return FFM_EXIT_OK;
}

int
ffm_cli_load_problem (GOptionContext *context,
                      const char *command,
                      FfmPluginRegistry *registry,
                      const FfmCliProblemOptions *options,
                      FfmProblem **out)
{
  g_autoptr (FfmWorkload) workload = NULL;
  g_autoptr (FfmArch) arch = NULL;
  int status;

  /* Missing options are usage errors, reported before any loading. */
  if (options->workload == NULL || options->arch == NULL)
    return ffm_cli_usage_error (context, command,
                                "both --workload and --arch are required");
  /* Workload first: its errors are the likelier ones and need no plugin. */
  status = ffm_cli_load_workload (context, command, options, &workload);
  if (status != FFM_EXIT_OK)
    return status;
  status = ffm_cli_load_arch (context, command, registry, options, &arch);
  if (status != FFM_EXIT_OK)
    return status;
  *out = ffm_problem_new (workload, arch);
  return FFM_EXIT_OK;
}
