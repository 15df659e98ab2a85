/* ffm-cli-common.h: what every `ffm` subcommand shares.
 *
 * - One GOptionContext per subcommand, made by ffm_cli_context_new(): its
 *   usage line reads "ffm NAME [OPTION…]", its summary comes from
 *   ffm-commands.h, --help prints it on stdout.
 * - Common options (--plugin-dir, --verbose), run options (--threads,
 *   --seed: only on the commands they change) and problem options
 *   (--arch, --arch-param, --workload, --param), each filling a struct
 *   rather than file-level statics. All are added to the context's main
 *   group, so `ffm NAME --help` shows every option at once (GLib shows a
 *   named group's options only under --help-all).
 * - Where the documentation is (ffm_cli_doc_path()): the installed copy,
 *   or the source tree's docs/ when ffm runs from its build folder.
 * - Messages: "ffm NAME: message" on stderr. Exit codes: 0 ok, 1 runtime or
 *   input error, 2 usage error; a usage error also prints the subcommand's
 *   help on stderr.
 * - Loading what the options name: the plugin registry (scanned, with every
 *   file that failed to load reported as a warning), the architecture and
 *   the workload.
 * Tables and JSON go to stdout; everything else (logs, warnings, errors,
 * progress) goes to stderr. */
#pragma once

#include <ffm/ffm.h>

#include "ffm-commands.h"

G_BEGIN_DECLS

#define FFM_EXIT_OK 0
#define FFM_EXIT_FAILURE 1      /* runtime or input error */
#define FFM_EXIT_USAGE 2        /* bad arguments */
#define FFM_EXIT_TIMEOUT 124    /* stopped by --timeout (as timeout(1) exits) */
#define FFM_EXIT_INTERRUPTED 130 /* stopped by Ctrl-C (128 + SIGINT, as a shell reports) */

/* The fixed default of --seed: runs are reproducible unless asked not to be. */
#define FFM_CLI_DEFAULT_SEED 1

/* One-line summary of subcommand @name (from FFM_COMMANDS), or NULL. */
const char *ffm_cli_command_summary (const char *name);

/* ---- Options ---- */

/* Options every subcommand takes. */
typedef struct {
  char **plugin_dirs;           /* --plugin-dir DIR, repeatable, in order (owned) */
  gboolean verbose;             /* --verbose: debug and info logs on stderr */
} FfmCliCommon;

/* Options of the commands that search (threads and seed): only those
 * commands offer them. */
typedef struct {
  int threads;                  /* --threads N (>= 0 after parsing); 0 = one per processor */
  gint64 seed;                  /* --seed N (>= 0 after parsing); FFM_CLI_DEFAULT_SEED if not given */
  guint offered;                /* FfmCliRunOption flags added to the context */
} FfmCliRunOptions;

typedef enum {
  FFM_CLI_RUN_THREADS = 1 << 0,
  FFM_CLI_RUN_SEED = 1 << 1,
} FfmCliRunOption;

/* Options of subcommands that work on a problem (workload + architecture). */
typedef struct {
  char *arch;                   /* --arch NAME|MODEL:NAME|FILE.json|timeloop:FILE,... (owned) */
  char **arch_params;           /* --arch-param KEY=VALUE, repeatable (owned) */
  char *workload;               /* --workload NAME|FILE.json|timeloop:FILE,... (owned) */
  char **params;                /* --param KEY=VALUE for the workload (owned) */
} FfmCliProblemOptions;

/* Initialisers for g_auto() declarations. */
#define FFM_CLI_COMMON_INIT { NULL, FALSE }
#define FFM_CLI_RUN_OPTIONS_INIT { 0, FFM_CLI_DEFAULT_SEED, 0 }
#define FFM_CLI_PROBLEM_OPTIONS_INIT { NULL, NULL, NULL, NULL }

void ffm_cli_common_init (FfmCliCommon *common);
void ffm_cli_common_clear (FfmCliCommon *common);
/* --threads, or the number of processors when it is 0. */
guint ffm_cli_run_options_get_threads (const FfmCliRunOptions *run);

void ffm_cli_problem_options_init (FfmCliProblemOptions *options);
void ffm_cli_problem_options_clear (FfmCliProblemOptions *options);

/* A context for subcommand @command: sets the program name to
 * "ffm @command" (for GLib's usage line and log prefix), the summary from
 * FFM_COMMANDS, @parameter_string after [OPTION…] (may be NULL), and
 * @description below the options (may be NULL). */
GOptionContext *ffm_cli_context_new (const char *command,
                                     const char *parameter_string,
                                     const char *description);
/* Adds the common options, writing into @common (which must outlive the
 * context's parse): --verbose, and --plugin-dir when @plugins (commands
 * that load no plugin do not offer it). */
void ffm_cli_add_common_options (GOptionContext *context, FfmCliCommon *common,
                                 gboolean plugins);
/* Adds the run options in @which (FfmCliRunOption flags), writing into
 * @run. */
void ffm_cli_add_run_options (GOptionContext *context, FfmCliRunOptions *run,
                              guint which);
/* Adds --arch, --arch-param, --workload and --param. */
void ffm_cli_add_problem_options (GOptionContext *context,
                                  FfmCliProblemOptions *options);
/* The same without Timeloop files (timeloop:), for a command that loads
 * ffm's own files only (sweep). */
void ffm_cli_add_ffm_problem_options (GOptionContext *context,
                                      FfmCliProblemOptions *options);

/* Parses argv[1..argc-1] (argv[0] is the subcommand name). On success
 * returns TRUE, stores the positional arguments in *@positional (transfer
 * full, NULL-terminated, may be empty) and, if @common is non-NULL, applies
 * --verbose. On a bad option prints "ffm COMMAND: message" and the help on
 * stderr and returns FALSE: return FFM_EXIT_USAGE. Negative --threads or
 * --seed (@run, may be NULL) are usage errors too. --help prints the help
 * on stdout and exits 0 (GLib's behaviour); while the manual page is
 * generated (ffm_cli_help_capture_begin()) it adds the help to the page
 * instead and returns FALSE. */
gboolean ffm_cli_parse (GOptionContext *context,
                        const char *command,
                        FfmCliCommon *common,
                        FfmCliRunOptions *run,
                        int argc,
                        char **argv,
                        GStrv *positional);

/* ---- Help and documentation ---- */

/* Makes every later ffm_cli_parse() append its context's help to @sink
 * (with no output and FALSE returned) rather than parse: how `ffm help
 * --man` collects each command's options. NULL stops. */
void ffm_cli_help_capture (GString *sink);

/* The documentation folder, holding README.md and docs/: the installed
 * one (<datadir>/doc/ffm), or this source tree when ffm runs from its
 * build folder; with @installed, always the installed one (for the manual
 * page). (transfer full) */
char *ffm_cli_doc_dir (gboolean installed);
/* @doc (a file name, "ffm-search.md") in the documentation folder's docs/
 * (transfer full). */
char *ffm_cli_doc_path (const char *doc);
/* @text, then "See PATH." with the path of @doc (transfer full): the
 * description of a command's --help. */
char *ffm_cli_describe (const char *text, const char *doc);

/* ---- Messages ---- */

/* Prints "ffm COMMAND: message" and the context's help on stderr; returns
 * FFM_EXIT_USAGE. */
int ffm_cli_usage_error (GOptionContext *context,
                         const char *command,
                         const char *format,
                         ...) G_GNUC_PRINTF (3, 4);
/* Prints "ffm COMMAND: message" on stderr; returns FFM_EXIT_FAILURE. */
int ffm_cli_fail (const char *command, const GError *error);
/* Prints "ffm COMMAND: warning: message" on stderr. */
void ffm_cli_warn (const char *command, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* ---- Loading ---- */

/* A registry with the --plugin-dir folders added, scanned. Files that
 * failed to load are left in the registry (ffm list shows them); print
 * them with ffm_cli_warn_plugin_failures(). */
FfmPluginRegistry *ffm_cli_registry_new (const FfmCliCommon *common);
/* One warning per file that failed to load. */
void ffm_cli_warn_plugin_failures (const char *command,
                                   const FfmPluginRegistry *registry);

/* Parses KEY=VALUE strings (NULL-terminated; @assignments may be NULL) into
 * new values. @option names the option in messages ("--arch-param").
 * FFM_PARAM_ERROR_SYNTAX for a string without '=' or key. */
FfmParamValues *ffm_cli_parse_assignments (char **assignments,
                                           const char *option,
                                           GError **error);

/* The next three print their error and return the exit code: FFM_EXIT_OK
 * with *@out set, FFM_EXIT_USAGE when an option is missing or malformed
 * (with the help), FFM_EXIT_FAILURE when loading fails. */

/* The prefix of --arch, --workload and --mapping values that name Timeloop
 * YAML files ("timeloop:arch.yaml,ERT.yaml"), and the bits per value of a
 * Timeloop problem without --param bits=N. */
#define FFM_CLI_TIMELOOP_PREFIX "timeloop:"
#define FFM_CLI_TIMELOOP_DEFAULT_BITS 8

/* Prints the warnings @spec collected, one ffm_cli_warn() each. */
void ffm_cli_warn_timeloop (const char *command, FfmTimeloopSpec *spec);

/* Builds the architecture --arch names, with --arch-param (or from
 * Timeloop files: timeloop:FILE,FILE). */
int ffm_cli_load_arch (GOptionContext *context,
                       const char *command,
                       FfmPluginRegistry *registry,
                       const FfmCliProblemOptions *options,
                       FfmArch **out);
/* Loads the workload --workload names, with --param (or a Timeloop
 * problem: timeloop:FILE, with --param bits=N only). */
int ffm_cli_load_workload (GOptionContext *context,
                           const char *command,
                           const FfmCliProblemOptions *options,
                           FfmWorkload **out);
/* Both, as a problem. */
int ffm_cli_load_problem (GOptionContext *context,
                          const char *command,
                          FfmPluginRegistry *registry,
                          const FfmCliProblemOptions *options,
                          FfmProblem **out);

/* The record (ffm-result.h) of the problem @options name, loaded as
 * @workload and @arch: both as the user named them, with every parameter
 * value, the defaults included, for result files (transfer full). */
FfmResultInfo *ffm_cli_problem_info_new (const char *command,
                                         const FfmPluginRegistry *registry,
                                         const FfmCliProblemOptions *options,
                                         const FfmWorkload *workload,
                                         const FfmArch *arch);

/* Every parameter of @specs with its value: the one in @values if set,
 * else the default; parameters with neither are left out (transfer
 * full). */
FfmParamValues *ffm_cli_resolve_params (const FfmParamSpec *specs,
                                        const FfmParamValues *values);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FfmCliCommon, ffm_cli_common_clear)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FfmCliProblemOptions, ffm_cli_problem_options_clear)

G_END_DECLS
