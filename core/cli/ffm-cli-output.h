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

G_END_DECLS
