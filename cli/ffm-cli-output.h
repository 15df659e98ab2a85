/* ffm-cli-output.h: where `ffm` writes its results, with every write
 * checked.
 *
 * Tables and JSON go to standard output through g_print(); a full disk or
 * a closed pipe there must not end in exit code 0 with the output lost.
 * ffm_cli_output_init() routes g_print() through a handler that remembers
 * the first write error, and ffm_cli_output_finish() flushes standard
 * output and turns any error into exit code 1 with a message. Files named
 * by an option (--json OUT) are written with ffm_output_file_write()
 * (atomic for regular files, in place for devices), "-" meaning standard
 * output. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Installs the checked print handler. Once, at the start of main(). */
void ffm_cli_output_init (void);

/* Flushes standard output. When a write to it failed, prints
 * "ffm COMMAND: cannot write to standard output: CAUSE" on stderr and
 * returns FFM_EXIT_FAILURE if @status was FFM_EXIT_OK; otherwise returns
 * @status. @command may be NULL (no subcommand). */
int ffm_cli_output_finish (const char *command, int status);

/* Writes @text to @path, "-" being standard output. */
gboolean ffm_cli_output_write (const char *path, const char *text, GError **error);

/* ---- --json OUT and --csv OUT ----
 * Every command that prints a result takes both, with one meaning: write
 * the result as JSON (--json) or its tables as CSV (--csv, ffm-cli-table.h)
 * to OUT, "-" being standard output instead of the text. */
typedef struct {
  char *json;                   /* --json OUT (owned), NULL if not given */
  char *csv;                    /* --csv OUT (owned) */
  char *help[2];                /* the options' help texts (owned) */
} FfmCliOutputOptions;

#define FFM_CLI_OUTPUT_OPTIONS_INIT { NULL, NULL, { NULL, NULL } }

void ffm_cli_output_options_clear (FfmCliOutputOptions *options);
/* Adds --json OUT and --csv OUT; @what names what is written ("the
 * result", "the plugins"). */
void ffm_cli_add_output_options (GOptionContext *context,
                                 FfmCliOutputOptions *options,
                                 const char *what);
/* NULL when the options can be used together, else the usage error
 * (both to standard output, or both to one file:
 * ffm_cli_output_paths_check()). */
const char *ffm_cli_output_options_conflict (const FfmCliOutputOptions *options);
/* Checks the outputs of one command against each other: pairs of an
 * option's name and its path (NULL when not given), ended by a NULL name.
 * Refuses two of them naming the same file (the same text, the same
 * existing file, or the same place once the folder is resolved: one would
 * overwrite the other) and two "-" (standard output); /dev/null may be
 * named more than once. *@to_stdout (may be NULL) tells whether one of
 * them is "-", so that the command prints its data only. */
gboolean ffm_cli_output_paths_check (gboolean *to_stdout,
                                     GError **error,
                                     const char *first_option,
                                     ...) G_GNUC_NULL_TERMINATED;
/* TRUE unless --json or --csv writes to standard output. */
gboolean ffm_cli_output_wants_text (const FfmCliOutputOptions *options);
/* Writes @json (a document; may be NULL when --json was not given) and
 * the CSV of @tables (of FfmCliTable*; may be NULL when --csv was not
 * given) where the options say. */
gboolean ffm_cli_output_write_results (const FfmCliOutputOptions *options,
                                       const char *json,
                                       const GPtrArray *tables,
                                       GError **error);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FfmCliOutputOptions, ffm_cli_output_options_clear)

G_END_DECLS
