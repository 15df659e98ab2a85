/* ffm-main.c: the `ffm` command: finds the subcommand and hands over.
 *
 *   ffm COMMAND [OPTION…]      run a subcommand (ffm-commands.h)
 *   ffm help [COMMAND]         this overview, or a subcommand's --help
 *   ffm help --man             the manual page ffm(1) (ffm-cli-manpage.h)
 *   ffm --help | -h            this overview
 *   ffm version | --version    the version of ffm and of its plugin ABI
 * Options belong to subcommands; there are no options before COMMAND.
 * Exit codes: 0 ok, 1 runtime or input error (a failed write to standard
 * output included), 2 usage error (with the usage on stderr). */
#include "ffm-cli-common.h"
#include "ffm-cli-manpage.h"
#include "ffm-cli-output.h"

#include <locale.h>
#include <stdarg.h>
#include <string.h>

typedef struct {
  const char *name;
  FfmCommandFunc handler;
  const char *summary;
} FfmCommand;

static int cmd_help (int argc, char **argv);
static int cmd_version (int argc, char **argv);

static const FfmCommand commands[] = {
#define FFM_COMMAND_ENTRY_(name, handler, summary) { name, handler, summary },
  FFM_COMMANDS (FFM_COMMAND_ENTRY_)
#undef FFM_COMMAND_ENTRY_
  { "help", cmd_help, "Show the help of ffm or of one command" },
  { "version", cmd_version, "Print the version of ffm and of its plugin ABI" },
};

static const FfmCommand *
find_command (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

static void
print_usage (gboolean to_stderr)
{
  GString *text = g_string_new (NULL);
  int width = 0;

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    width = MAX (width, (int) strlen (commands[i].name));

  g_string_append (text,
                   "Usage:\n"
                   "  ffm COMMAND [OPTION…]\n"
                   "\n"
                   "Find optimal fused mappings of tensor workloads onto "
                   "accelerator architectures.\n"
                   "\n"
                   "Commands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    g_string_append_printf (text, "  %-*s  %s\n", width, commands[i].name,
                            commands[i].summary);
  {
    g_autofree char *docs = ffm_cli_doc_dir (FALSE);
    g_string_append_printf (text,
                            "\n"
                            "Use \"ffm help COMMAND\" or \"ffm COMMAND --help\" for the "
                            "options of a command,\n"
                            "\"man ffm\" for the manual page (\"ffm help --man\" prints it).\n"
                            "Documentation: %s (README.md, then docs/)\n", docs);
  }
  if (to_stderr)
    g_printerr ("%s", text->str);
  else
    g_print ("%s", text->str);
  g_string_free (text, TRUE);
}

static int usage_error (const char *format, ...) G_GNUC_PRINTF (1, 2);

static int
usage_error (const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("ffm: %s\n\n", message);
  print_usage (TRUE);
  return FFM_EXIT_USAGE;
}

static void
print_version (void)
{
  g_print ("ffm %s (plugin ABI %d.%d)\n", FFM_VERSION_STRING,
           FFM_PLUGIN_ABI_MAJOR, FFM_PLUGIN_ABI_MINOR);
}

/* `ffm help [COMMAND]`: a subcommand's help is what its own --help prints,
 * so it is produced by running it with --help. */
static int
cmd_help (int argc, char **argv)
{
  const FfmCommand *command;

  if (argc > 2)
    return usage_error ("help takes at most one command, got '%s' too", argv[2]);
  if (argc < 2 || strcmp (argv[1], "help") == 0)
    {
      print_usage (FALSE);
      return FFM_EXIT_OK;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "-?") == 0)
    {
      g_print ("Usage:\n  ffm help [COMMAND]\n  ffm help --man\n\n"
               "%s: the list of commands, the help of one (what \"ffm COMMAND "
               "--help\" prints), or the manual page ffm(1) in man(7) format.\n",
               find_command ("help")->summary);
      return FFM_EXIT_OK;
    }
  if (strcmp (argv[1], "--man") == 0)
    {
      g_autofree char *page = ffm_cli_manpage_build ();
      g_print ("%s", page);
      return FFM_EXIT_OK;
    }
  command = find_command (argv[1]);
  if (command == NULL)
    return usage_error ("unknown command '%s'", argv[1]);
  if (command->handler == cmd_version)
    {
      g_print ("Usage:\n  ffm version\n\n%s.\n", command->summary);
      return FFM_EXIT_OK;
    }
  {
    char *help_argv[] = { (char *) command->name, (char *) "--help", NULL };
    return command->handler (2, help_argv);
  }
}

static int
cmd_version (int argc, char **argv)
{
  if (argc > 1)
    return usage_error ("version takes no arguments, got '%s'", argv[1]);
  print_version ();
  return FFM_EXIT_OK;
}

static int
dispatch (int argc, char **argv)
{
  const FfmCommand *command;

  if (argc < 2)
    return usage_error ("no command given");
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "-?") == 0)
    return cmd_help (1, argv + 1);
  if (strcmp (argv[1], "--version") == 0)
    return cmd_version (1, argv + 1);
  if (argv[1][0] == '-')
    return usage_error ("unknown option '%s' (options go after the command)",
                        argv[1]);

  command = find_command (argv[1]);
  if (command == NULL)
    return usage_error ("unknown command '%s'", argv[1]);
  return command->handler (argc - 1, argv + 1);
}

int
main (int argc, char **argv)
{
  const char *too_old;
  int status;

  setlocale (LC_ALL, "");
  g_log_writer_default_set_use_stderr (TRUE);
  g_set_prgname ("ffm");
  /* The libffm found at run time (LD_LIBRARY_PATH, another install) must
   * be at least the one this ffm was built against. */
  too_old = ffm_check_version (FFM_MAJOR_VERSION, FFM_MINOR_VERSION, FFM_MICRO_VERSION);
  if (too_old != NULL)
    {
      g_printerr ("ffm: %s: this ffm %s needs libffm %d.%d.%d or a later %d.x\n",
                  too_old, FFM_VERSION_STRING, FFM_MAJOR_VERSION, FFM_MINOR_VERSION,
                  FFM_MICRO_VERSION, FFM_MAJOR_VERSION);
      return FFM_EXIT_FAILURE;
    }
  ffm_cli_output_init ();
  status = dispatch (argc, argv);
  return ffm_cli_output_finish (argc > 1 && find_command (argv[1]) != NULL
                                ? argv[1] : NULL, status);
}
