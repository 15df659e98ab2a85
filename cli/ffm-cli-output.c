/* ffm-cli-output.c: checked writes to standard output and to files
 * (ffm-cli-output.h). */
#include "ffm-cli-output.h"
#include "ffm-cli-common.h"
#include "ffm-cli-table.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
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


/* Where @path would be written: the resolved folder and the name, or the
 * path as given when its folder does not exist (transfer full). */
static char *
output_place (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *real = realpath (dir, NULL);
  char *place;

  if (real == NULL)
    return g_canonicalize_filename (path, NULL);
  place = g_build_filename (real, base, NULL);
  free (g_steal_pointer (&real));
  return place;
}

static gboolean
same_output (const char *a, const char *b)
{
  struct stat sa, sb;
  g_autofree char *pa = NULL, *pb = NULL;

  if (strcmp (a, b) == 0)
    return TRUE;
  if (strcmp (a, "-") == 0 || strcmp (b, "-") == 0)
    return FALSE;
  if (stat (a, &sa) == 0 && stat (b, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  pa = output_place (a);
  pb = output_place (b);
  return strcmp (pa, pb) == 0;
}

gboolean
ffm_cli_output_paths_check (gboolean *to_stdout, GError **error,
                            const char *first_option, ...)
{
  g_autoptr (GPtrArray) options = g_ptr_array_new ();
  g_autoptr (GPtrArray) paths = g_ptr_array_new ();
  va_list ap;

  va_start (ap, first_option);
  for (const char *option = first_option; option != NULL;
       option = va_arg (ap, const char *))
    {
      const char *path = va_arg (ap, const char *);
      if (path == NULL)
        continue;
      g_ptr_array_add (options, (gpointer) option);
      g_ptr_array_add (paths, (gpointer) path);
    }
  va_end (ap);
  if (to_stdout != NULL)
    *to_stdout = FALSE;
  for (guint i = 0; i < paths->len; i++)
    {
      const char *a = paths->pdata[i];
      if (to_stdout != NULL && strcmp (a, "-") == 0)
        *to_stdout = TRUE;
      if (strcmp (a, "/dev/null") == 0)
        continue;
      for (guint j = 0; j < i; j++)
        if (same_output (a, paths->pdata[j]))
          {
            if (strcmp (a, "-") == 0)
              g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           "%s - and %s - cannot both write to standard output",
                           (const char *) options->pdata[j],
                           (const char *) options->pdata[i]);
            else
              g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           "%s %s and %s %s name the same file (one would "
                           "overwrite the other): give each output its own file",
                           (const char *) options->pdata[j],
                           (const char *) paths->pdata[j],
                           (const char *) options->pdata[i], a);
            return FALSE;
          }
    }
  return TRUE;
}

const char *
ffm_cli_output_options_conflict (const FfmCliOutputOptions *o)
{
  /* Called from the main thread while the options are checked. */
  static char message[1024];
  g_autoptr (GError) error = NULL;

  if (ffm_cli_output_paths_check (NULL, &error, "--json", o->json, "--csv", o->csv,
                                  NULL))
    return NULL;
  g_strlcpy (message, error->message, sizeof message);
  return message;
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
