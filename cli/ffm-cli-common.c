/* ffm-cli-common.c: options, messages and loading shared by the `ffm`
 * subcommands (see ffm-cli-common.h). */
#include "ffm-cli-common.h"
#include "ffm-cli-mpi.h"
#include "ffm-config.h"

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
ffm_cli_run_options_get_threads (const FfmCliRunOptions *run)
{
  if (run->threads > 0)
    return (guint) run->threads;
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
ffm_cli_add_common_options (GOptionContext *context, FfmCliCommon *common,
                            gboolean plugins)
{
  const GOptionEntry plugin_entries[] = {
    { "plugin-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &common->plugin_dirs,
      "Also look for plugins in DIR, before FFM_PLUGIN_PATH and the built-in "
      "folder (repeatable)", "DIR" },
    G_OPTION_ENTRY_NULL
  };
  const GOptionEntry entries[] = {
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &common->verbose,
      "Log what ffm does on stderr", NULL },
    G_OPTION_ENTRY_NULL
  };

  if (plugins)
    g_option_context_add_main_entries (context, plugin_entries, NULL);
  g_option_context_add_main_entries (context, entries, NULL);
}

void
ffm_cli_add_run_options (GOptionContext *context, FfmCliRunOptions *run, guint which)
{
  const GOptionEntry threads[] = {
    { "threads", 0, 0, G_OPTION_ARG_INT, &run->threads,
      "Use N worker threads (default: one per processor)", "N" },
    G_OPTION_ENTRY_NULL
  };
  const GOptionEntry seed[] = {
    { "seed", 0, 0, G_OPTION_ARG_INT64, &run->seed,
      "Seed of randomised strategies (default: 1)", "N" },
    G_OPTION_ENTRY_NULL
  };

  run->offered |= which;
  if (which & FFM_CLI_RUN_THREADS)
    g_option_context_add_main_entries (context, threads, NULL);
  if (which & FFM_CLI_RUN_SEED)
    g_option_context_add_main_entries (context, seed, NULL);
}

static void
add_problem_options (GOptionContext *context, FfmCliProblemOptions *options,
                     gboolean timeloop)
{
  const GOptionEntry entries[] = {
    /* FILENAME, not STRING: the value may be a path, kept byte for byte. */
    { "arch", 'a', 0, G_OPTION_ARG_FILENAME, &options->arch,
      timeloop ? "Architecture: a name from `ffm list`, MODEL:NAME, a JSON file, or "
      "Timeloop YAML files timeloop:ARCH.yaml,ERT.yaml"
      : "Architecture: a name from `ffm list`, MODEL:NAME or a JSON file", "ARCH" },
    { "arch-param", 0, 0, G_OPTION_ARG_STRING_ARRAY, &options->arch_params,
      "Set an architecture parameter (repeatable)", "KEY=VALUE" },
    { "workload", 'w', 0, G_OPTION_ARG_FILENAME, &options->workload,
      timeloop ? "Workload: a name from the workload folders, a JSON file, or a "
      "Timeloop problem timeloop:PROBLEM.yaml"
      : "Workload: a name from the workload folders or a JSON file", "WORKLOAD" },
    { "param", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &options->params,
      "Set a workload parameter (repeatable)", "KEY=VALUE" },
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

void
ffm_cli_add_problem_options (GOptionContext *context,
                             FfmCliProblemOptions *options)
{
  add_problem_options (context, options, TRUE);
}

void
ffm_cli_add_ffm_problem_options (GOptionContext *context,
                                 FfmCliProblemOptions *options)
{
  add_problem_options (context, options, FALSE);
}

static void
print_help_to_stderr (GOptionContext *context)
{
  g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

  g_printerr ("\n%s", help);
}

/* Where ffm_cli_parse() puts the help while the manual page is made. */
static GString *help_sink;

void
ffm_cli_help_capture (GString *sink)
{
  help_sink = sink;
}

gboolean
ffm_cli_parse (GOptionContext *context,
               const char *command,
               FfmCliCommon *common,
               FfmCliRunOptions *run,
               int argc,
               char **argv,
               GStrv *positional)
{
  g_auto (GStrv) args = g_new0 (char *, argc + 1);
  g_autoptr (GError) error = NULL;
  GStrvBuilder *rest;

  if (help_sink != NULL)
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);
      g_string_append (help_sink, help);
      return FALSE;
    }
  /* A copy: GLib removes what it parses, and argv belongs to the caller. */
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);
  if (!g_option_context_parse_strv (context, &args, &error))
    {
      ffm_cli_usage_error (context, command, "%s", error->message);
      return FALSE;
    }
  if (run != NULL && (run->threads < 0 || run->threads > FFM_MAX_THREADS))
    {
      ffm_cli_usage_error (context, command,
                           "--threads must be 0 (one per processor) to %d, "
                           "not %d", FFM_MAX_THREADS, run->threads);
      return FALSE;
    }
  if (run != NULL && run->seed < 0)
    {
      ffm_cli_usage_error (context, command,
                           "--seed must be 0 or more, not %" G_GINT64_FORMAT,
                           run->seed);
      return FALSE;
    }
  if (common != NULL && common->verbose)
    g_log_set_debug_enabled (TRUE);

  rest = g_strv_builder_new ();
  for (guint i = 1; args[0] != NULL && args[i] != NULL; i++)
    g_strv_builder_add (rest, args[i]);
  *positional = g_strv_builder_end (rest);
  g_strv_builder_unref (rest);
  return TRUE;
}

/* ---- Documentation ---- */

char *
ffm_cli_doc_dir (gboolean installed)
{
  if (!installed && ffm_paths_is_uninstalled ())
    return g_strdup (FFM_SOURCE_ROOT);
  return g_strdup (FFM_INSTALLED_DOCDIR);
}

char *
ffm_cli_doc_path (const char *doc)
{
  g_autofree char *dir = ffm_cli_doc_dir (help_sink != NULL);

  return g_build_filename (dir, "docs", doc, NULL);
}

char *
ffm_cli_describe (const char *text, const char *doc)
{
  g_autofree char *path = ffm_cli_doc_path (doc);

  return g_strdup_printf ("%sSee %s.", text, path);
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
  /* Past the budget under a limit of the process (ulimit, a control group)
   * tighter than the machine, raising --max-memory past that limit would
   * only trade the budget's message for a failed allocation: say so. */
  if (g_error_matches (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY))
    {
      FfmMemoryDefault why;

      ffm_memory_budget_default_limit (&why);
      if (why.kind != FFM_MEMORY_LIMIT_PHYSICAL)
        {
          g_autofree char *limit = ffm_format_bytes (why.limit);
          g_printerr ("ffm %s: note: this process may hold at most %s (its %s); the "
                      "default budget is three quarters of what that leaves once the "
                      "memory already mapped and its threads' stacks and malloc "
                      "arenas are set aside (docs/limits.md)\n", command, limit,
                      ffm_memory_limit_kind_to_string (why.kind));
        }
    }
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
  /* Architectures that name component classes ask these estimators. */
  ffm_estimators_set_default (registry);
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
    {
      const char *const *keys;
      guint n_before = g_strv_length ((char **) ffm_param_values_get_keys (values));
      if (!ffm_param_values_parse_assignment (values, assignments[i], error))
        {
          g_prefix_error (error, "%s: ", option);
          return NULL;
        }
      /* A key set twice would silently keep the last value. */
      keys = ffm_param_values_get_keys (values);
      if (g_strv_length ((char **) keys) == n_before)
        {
          g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                       "%s %s: the key is set twice (give each key once)", option,
                       assignments[i]);
          return NULL;
        }
    }
  return g_steal_pointer (&values);
}

void
ffm_cli_warn_timeloop (const char *command, FfmTimeloopSpec *spec)
{
  /* What changes a number in full, the rest one line per kind; --verbose
   * (debug logs on) lists everything. */
  g_auto (GStrv) warnings =
    ffm_timeloop_spec_steal_warnings_grouped (spec, g_log_get_debug_enabled ());

  for (guint i = 0; warnings[i] != NULL; i++)
    ffm_cli_warn (command, "%s", warnings[i]);
}

gboolean
ffm_cli_timeloop_constraints (const char *arch_option, const FfmWorkload *workload,
                              const FfmArch *arch, FfmConstraints **out,
                              GError **error)
{
  g_autoptr (FfmTimeloopSpec) spec = NULL;
  g_auto (GStrv) loading = NULL;

  *out = NULL;
  if (arch_option == NULL || !g_str_has_prefix (arch_option, FFM_CLI_TIMELOOP_PREFIX))
    return TRUE;
  spec = ffm_timeloop_spec_load_list (arch_option + strlen (FFM_CLI_TIMELOOP_PREFIX), error);
  if (spec == NULL)
    return FALSE;
  /* the architecture's own warnings were given when it was loaded */
  loading = ffm_timeloop_spec_steal_warnings (spec);
  *out = ffm_timeloop_spec_to_constraints (spec, workload, arch, error);
  ffm_cli_warn_timeloop (g_get_prgname () != NULL && g_str_has_prefix (g_get_prgname (), "ffm ")
                         ? g_get_prgname () + 4 : "map", spec);
  return *out != NULL;
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
  FfmTimeloopConventions conventions = FFM_TIMELOOP_CONVENTIONS_TIMELOOP;

  /* The one parameter: which of Timeloop's counting rules to replace by
   * ffm's (docs/cost-model.md, the conventions). */
  for (guint i = 0; options->arch_params != NULL && options->arch_params[i] != NULL; i++)
    {
      const char *p = options->arch_params[i];
      if (!g_str_has_prefix (p, "ffm_conventions="))
        return ffm_cli_usage_error (context, command,
                                    "--arch-param %s: a Timeloop architecture takes "
                                    "only ffm_conventions=LIST (%s, or all)", p,
                                    "blocks, whole-blocks, clusters, leak, operand-reuse");
      if (!ffm_timeloop_conventions_parse (p + strlen ("ffm_conventions="),
                                           &conventions, &error))
        return ffm_cli_usage_error (context, command, "--arch-param %s: %s", p,
                                    error->message);
    }
  spec = ffm_timeloop_spec_load_list (options->arch + strlen (FFM_CLI_TIMELOOP_PREFIX),
                                      &error);
  if (spec != NULL)
    {
      ffm_timeloop_spec_set_conventions (spec, conventions);
      *out = ffm_timeloop_spec_to_arch (spec, &error);
    }
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

/* Builds an architecture or loads a workload named @name with @values. */
typedef gpointer (*LoadFunc) (const char *name, const FfmParamValues *values,
                              gpointer user_data, GError **error);

/* What --arch and --workload share: the assignments of @option (KEY=VALUE
 * strings; a bad one is a usage error), then @load (its error is the
 * command's). */
static int
load_with_assignments (GOptionContext *context, const char *command, const char *name,
                       char **assignments, const char *option, LoadFunc load,
                       gpointer user_data, gpointer *out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmParamValues) values = ffm_cli_parse_assignments (assignments, option,
                                                                 &error);

  if (values == NULL)
    return ffm_cli_usage_error (context, command, "%s", error->message);
  *out = load (name, values, user_data, &error);
  if (*out == NULL)
    return ffm_cli_fail (command, error);
  return FFM_EXIT_OK;
}

static gpointer
build_arch (const char *name, const FfmParamValues *values, gpointer registry,
            GError **error)
{
  return ffm_plugin_registry_build_arch (registry, name, values, error);
}

static gpointer
load_workload (const char *name, const FfmParamValues *values, gpointer user_data,
               GError **error)
{
  return ffm_workload_load (name, values, error);
}

int
ffm_cli_load_arch (GOptionContext *context,
                   const char *command,
                   FfmPluginRegistry *registry,
                   const FfmCliProblemOptions *options,
                   FfmArch **out)
{
  if (options->arch == NULL)
    return ffm_cli_usage_error (context, command,
                                "--arch is required (a name from `ffm list`, "
                                "MODEL:NAME, a JSON file or timeloop:FILE.yaml,...)");
  if (g_str_has_prefix (options->arch, FFM_CLI_TIMELOOP_PREFIX))
    return load_timeloop_arch (context, command, options, out);
  return load_with_assignments (context, command, options->arch, options->arch_params,
                                "--arch-param", build_arch, registry, (gpointer *) out);
}

int
ffm_cli_load_workload (GOptionContext *context,
                       const char *command,
                       const FfmCliProblemOptions *options,
                       FfmWorkload **out)
{
  if (options->workload == NULL)
    return ffm_cli_usage_error (context, command,
                                "--workload is required (a name from the "
                                "workload folders, a JSON file or "
                                "timeloop:FILE.yaml)");
  if (g_str_has_prefix (options->workload, FFM_CLI_TIMELOOP_PREFIX))
    return load_timeloop_workload (context, command, options, out);
  return load_with_assignments (context, command, options->workload, options->params,
                                "--param", load_workload, NULL, (gpointer *) out);
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

FfmParamValues *
ffm_cli_resolve_params (const FfmParamSpec *specs, const FfmParamValues *values)
{
  FfmParamValues *out = ffm_param_values_new ();

  for (guint i = 0; specs != NULL && specs[i].name != NULL; i++)
    {
      const char *v = values != NULL ? ffm_param_values_lookup (values, specs[i].name)
                                     : NULL;
      if (v == NULL)
        v = specs[i].default_value;
      if (v != NULL)
        ffm_param_values_set (out, specs[i].name, v);
    }
  /* Keys the declaration does not know were refused when the object was
   * built; keep any left (a model may take more than it declares). */
  for (const char *const *k = values != NULL ? ffm_param_values_get_keys (values) : NULL;
       k != NULL && *k != NULL; k++)
    if (ffm_param_values_lookup (out, *k) == NULL)
      ffm_param_values_set (out, *k, ffm_param_values_lookup (values, *k));
  return out;
}

/* An absolute form of @path (transfer full). */
static char *
absolute_path (const char *path)
{
  g_autofree char *cwd = NULL;

  if (path == NULL || g_path_is_absolute (path))
    return g_strdup (path);
  cwd = g_get_current_dir ();
  return g_canonicalize_filename (path, cwd);
}

FfmResultInfo *
ffm_cli_problem_info_new (const char *command, const FfmPluginRegistry *registry,
                          const FfmCliProblemOptions *options,
                          const FfmWorkload *workload, const FfmArch *arch)
{
  FfmResultInfo *info = ffm_result_info_new (command);
  g_autoptr (FfmParamValues) user = NULL;
  g_autoptr (FfmParamValues) resolved = NULL;
  g_autofree char *arch_file = NULL, *arch_name = NULL, *workload_file = NULL;
  const FfmPluginInfo *model = NULL;
  FfmParamSpec *specs;

  user = ffm_cli_parse_assignments (options->arch_params, "--arch-param", NULL);
  specs = ffm_plugin_registry_get_arch_params (registry, options->arch, NULL);
  resolved = ffm_cli_resolve_params (specs, user);
  if (specs != NULL)
    ffm_param_specs_free (specs);
  if (g_str_has_prefix (options->arch, FFM_CLI_TIMELOOP_PREFIX))
    {
      /* "timeloop:" and every file made absolute, so that `ffm eval
       * result.json` finds them from any folder. */
      g_autofree char *list = ffm_timeloop_list_absolute (options->arch
                                                          + strlen (FFM_CLI_TIMELOOP_PREFIX));
      arch_file = g_strconcat (FFM_CLI_TIMELOOP_PREFIX, list, NULL);
    }
  else if (ffm_plugin_registry_resolve_arch (registry, options->arch, &model, &arch_name, NULL)
           && model != NULL)
    arch_file = absolute_path (model->path);
  else
    arch_file = absolute_path (options->arch);
  ffm_result_info_set_architecture (info, options->arch, ffm_arch_get_name (arch),
                                    model != NULL ? model->descriptor->name : NULL,
                                    arch_file, resolved);
  if (g_str_has_prefix (options->workload, FFM_CLI_TIMELOOP_PREFIX))
    {
      g_autofree char *list = ffm_timeloop_list_absolute (options->workload
                                                          + strlen (FFM_CLI_TIMELOOP_PREFIX));
      g_autoptr (FfmParamValues) bits = ffm_param_values_new ();
      workload_file = g_strconcat (FFM_CLI_TIMELOOP_PREFIX, list, NULL);
      /* --param bits=N is the one parameter of a Timeloop problem */
      for (guint i = 0; options->params != NULL && options->params[i] != NULL; i++)
        if (g_str_has_prefix (options->params[i], "bits="))
          ffm_param_values_set (bits, "bits", options->params[i] + 5);
      ffm_result_info_set_workload (info, options->workload, ffm_workload_get_name (workload),
                                    workload_file, bits);
      return info;
    }
  workload_file = absolute_path (ffm_workload_get_source_file (workload));
  ffm_result_info_set_workload (info, options->workload, ffm_workload_get_name (workload),
                                workload_file, ffm_workload_get_param_values (workload));
  /* What `ffm eval` checks before it re-evaluates the result. */
  {
    g_autofree char *arch_digest = ffm_result_digest_file (arch_file);
    g_autofree char *workload_digest = ffm_result_digest_file (workload_file);
    if (arch_digest != NULL)
      ffm_result_info_set_digest (info, "architecture", arch_digest);
    if (workload_digest != NULL)
      ffm_result_info_set_digest (info, "workload", workload_digest);
  }
  return info;
}

int
ffm_cli_mpi_run_command (GOptionContext *context, const char *command,
                         FfmCliCommon *common, FfmCliRunOptions *run_options,
                         int argc, char **argv, gboolean *is_worker,
                         FfmCliCommandRun run, gpointer options)
{
  g_auto (GStrv) positional = NULL;
  int status = ffm_cli_mpi_begin (command, is_worker);

  if (status != FFM_EXIT_OK)
    return status;
  if (!ffm_cli_parse (context, command, common, run_options, argc, argv, &positional))
    status = FFM_EXIT_USAGE;
  else if (positional[0] != NULL)
    status = ffm_cli_usage_error (context, command, "unexpected argument '%s'",
                                  positional[0]);
  else
    status = run (context, options);
  return ffm_cli_mpi_end (command, status);
}
