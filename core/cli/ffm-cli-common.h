/* ffm-cli-common.h: what every `ffm` subcommand shares.
 *
 * - One GOptionContext per subcommand, made by ffm_cli_context_new(): its
 *   usage line reads "ffm NAME [OPTION…]", its summary comes from
 *   ffm-commands.h, --help prints it on stdout.
 * - Common options (--plugin-dir, --verbose, --threads, --seed) and problem
 *   options (--arch, --arch-param, --workload, --param), each filling a
 *   struct rather than file-level statics. Both sets are added to the
 *   context's main group, so `ffm NAME --help` shows every option at once
 *   (GLib shows a named group's options only under --help-all).
 * - Messages: "ffm NAME: message" on stderr. Exit codes: 0 ok, 1 runtime or
 *   input error, 2 usage error; a usage error also prints the subcommand's
 *   help on stderr.
 * - Loading what the options name: the plugin registry (scanned, with every
 *   file that failed to load reported as a warning), the architecture and
 *   the workload.
 * Tables and JSON go to stdout; everything else (logs, warnings, errors,
 * progress) goes to stderr. */
#pragma once

#include <ffm.h>

#include "ffm-commands.h"

G_BEGIN_DECLS

#define FFM_EXIT_OK 0
#define FFM_EXIT_FAILURE 1      /* runtime or input error */
#define FFM_EXIT_USAGE 2        /* bad arguments */

/* The fixed default of --seed: runs are reproducible unless asked not to be. */
#define FFM_CLI_DEFAULT_SEED 1

/* One-line summary of subcommand @name (from FFM_COMMANDS), or NULL. */
const char *ffm_cli_command_summary (const char *name);

/* ---- Options ---- */

/* Options every subcommand takes. */
typedef struct {
  char **plugin_dirs;           /* --plugin-dir DIR, repeatable, in order (owned) */
  gboolean verbose;             /* --verbose: debug and info logs on stderr */
  int threads;                  /* --threads N (>= 0 after parsing); 0 = one per processor */
  gint64 seed;                  /* --seed N (>= 0 after parsing); FFM_CLI_DEFAULT_SEED if not given */
} FfmCliCommon;

/* Options of subcommands that work on a problem (workload + architecture). */
typedef struct {
  char *arch;                   /* --arch NAME|MODEL:NAME|FILE.json|timeloop:FILE,... (owned) */
  char **arch_params;           /* --arch-param KEY=VALUE, repeatable (owned) */
  char *workload;               /* --workload NAME|FILE.json|timeloop:FILE,... (owned) */
  char **params;                /* --param KEY=VALUE for the workload (owned) */
} FfmCliProblemOptions;

/* Initialisers for g_auto() declarations. */
#define FFM_CLI_COMMON_INIT { NULL, FALSE, 0, FFM_CLI_DEFAULT_SEED }
#define FFM_CLI_PROBLEM_OPTIONS_INIT { NULL, NULL, NULL, NULL }

void ffm_cli_common_init (FfmCliCommon *common);
void ffm_cli_common_clear (FfmCliCommon *common);
/* --threads, or the number of processors when it is 0. */
guint ffm_cli_common_get_threads (const FfmCliCommon *common);

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
 * context's parse). */
void ffm_cli_add_common_options (GOptionContext *context, FfmCliCommon *common);
/* Adds --arch, --arch-param, --workload and --param. */
void ffm_cli_add_problem_options (GOptionContext *context,
                                  FfmCliProblemOptions *options);

/* Parses argv[1..argc-1] (argv[0] is the subcommand name). On success
 * returns TRUE, stores the positional arguments in *@positional (transfer
 * full, NULL-terminated, may be empty) and, if @common is non-NULL, applies
 * --verbose. On a bad option prints "ffm COMMAND: message" and the help on
 * stderr and returns FALSE: return FFM_EXIT_USAGE. Negative --threads or
 * --seed are usage errors too. --help prints the help
 * on stdout and exits 0 (GLib's behaviour). */
gboolean ffm_cli_parse (GOptionContext *context,
                        const char *command,
                        FfmCliCommon *common,
                        int argc,
                        char **argv,
                        GStrv *positional);

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

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FfmCliCommon, ffm_cli_common_clear)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FfmCliProblemOptions, ffm_cli_problem_options_clear)

G_END_DECLS
