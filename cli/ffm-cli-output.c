/* ffm-cli-output.c: checked writes to standard output and to files
 * (ffm-cli-output.h). */
#include "ffm-cli-output.h"
#include "ffm-cli-common.h"
#include "ffm-cli-table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The errno of the first failed write to stdout, 0 if none. Written from
 * the thread that prints; g_print() serialises calls to the handler. */
static int stdout_errno;

static void
print_to_stdout (const char *text)
{
  if (fputs (text, stdout) == EOF && stdout_errno == 0)
    stdout_errno = errno != 0 ? errno : EIO;
}

/* Flushes stdout; TRUE if everything written to it arrived. */
static gboolean
stdout_ok (void)
{
  if (fflush (stdout) != 0 && stdout_errno == 0)
    stdout_errno = errno != 0 ? errno : EIO;
  if (stdout_errno == 0 && ferror (stdout))
    stdout_errno = EIO;
  return stdout_errno == 0;
}

static void
report (const char *command)
{
  g_printerr ("ffm%s%s: cannot write to standard output: %s\n",
              command != NULL ? " " : "", command != NULL ? command : "",
              g_strerror (stdout_errno));
}

static gboolean finished;

/* For the paths that call exit() themselves (GOption's --help). */
static void
check_at_exit (void)
{
  if (!finished && !stdout_ok ())
    {
      report (g_get_prgname () != NULL && g_str_has_prefix (g_get_prgname (), "ffm ")
              ? g_get_prgname () + 4 : NULL);
      _exit (FFM_EXIT_FAILURE);
    }
}

void
ffm_cli_output_init (void)
{
  g_set_print_handler (print_to_stdout);
  atexit (check_at_exit);
}

int
ffm_cli_output_finish (const char *command, int status)
{
  finished = TRUE;
  if (stdout_ok ())
    return status;
  report (command);
  return status == FFM_EXIT_OK ? FFM_EXIT_FAILURE : status;
}

gboolean
ffm_cli_output_write (const char *path, const char *text, GError **error)
{
  if (g_strcmp0 (path, "-") == 0)
    {
      g_print ("%s", text);
      return TRUE;
    }
  return ffm_output_file_write (path, text, -1, error);
}

/* ---- --json and --csv ---- */

void
ffm_cli_output_options_clear (FfmCliOutputOptions *o)
{
  g_clear_pointer (&o->json, g_free);
  g_clear_pointer (&o->csv, g_free);
  g_clear_pointer (&o->help[0], g_free);
  g_clear_pointer (&o->help[1], g_free);
}

void
ffm_cli_add_output_options (GOptionContext *context, FfmCliOutputOptions *o,
                            const char *what)
{
  /* GLib keeps pointers to the help texts: the options own them. */
  o->help[0] = g_strdup_printf ("Write %s as JSON to OUT (- = standard output, "
                                "instead of the text)", what);
  o->help[1] = g_strdup_printf ("Write the tables of %s as CSV to OUT (- = standard "
                                "output, instead of the text)", what);
  {
    const GOptionEntry entries[] = {
      { "json", 0, 0, G_OPTION_ARG_FILENAME, &o->json, o->help[0], "OUT" },
      { "csv", 0, 0, G_OPTION_ARG_FILENAME, &o->csv, o->help[1], "OUT" },
      G_OPTION_ENTRY_NULL
    };
    g_option_context_add_main_entries (context, entries, NULL);
  }
}

const char *
ffm_cli_output_options_conflict (const FfmCliOutputOptions *o)
{
  if (g_strcmp0 (o->json, "-") == 0 && g_strcmp0 (o->csv, "-") == 0)
    return "--json - and --csv - cannot both write to standard output";
  return NULL;
}

gboolean
ffm_cli_output_wants_text (const FfmCliOutputOptions *o)
{
  return g_strcmp0 (o->json, "-") != 0 && g_strcmp0 (o->csv, "-") != 0;
}

gboolean
ffm_cli_output_write_results (const FfmCliOutputOptions *o, const char *json,
                              const GPtrArray *tables, GError **error)
{
  if (o->json != NULL && json != NULL && !ffm_cli_output_write (o->json, json, error))
    return FALSE;
  if (o->csv != NULL && tables != NULL)
    {
      g_autofree char *csv = ffm_cli_tables_to_csv (tables);
      if (!ffm_cli_output_write (o->csv, csv, error))
        return FALSE;
    }
  return TRUE;
}
