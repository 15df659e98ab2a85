/* ffm-cli-output.c: checked writes to standard output and to files
 * (ffm-cli-output.h). */
#include "ffm-cli-output.h"
#include "ffm-cli-common.h"

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
