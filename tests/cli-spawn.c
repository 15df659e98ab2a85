/* cli-spawn.c: running the built `ffm` from tests (cli-spawn.h). */
#include "cli-spawn.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

void
run_clear (Run *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

static const char *
ffm_exe (void)
{
  const char *exe = g_getenv ("FFM_EXE");

  if (exe == NULL)
    g_error ("FFM_EXE is not set: run this test through meson test");
  return exe;
}

static GPtrArray *
argv_of (const char *const *args)
{
  GPtrArray *argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (char *) ffm_exe ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  return argv;
}

void
run_ffm_argv (Run *run, const char *const *args)
{
  g_autoptr (GPtrArray) argv = argv_of (args);
  g_autoptr (GError) error = NULL;
  int wait_status = 0;

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &run->out, &run->err, &wait_status, &error);
  g_assert_no_error (error);
  run->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  g_test_message ("exit %d\nstdout:\n%s\nstderr:\n%s", run->status, run->out, run->err);
}

static char *
read_all (int fd)
{
  GIOChannel *channel = g_io_channel_unix_new (fd);
  g_autoptr (GError) error = NULL;
  char *text = NULL;
  gsize length;

  g_io_channel_set_close_on_unref (channel, TRUE);
  g_io_channel_read_to_end (channel, &text, &length, &error);
  g_io_channel_unref (channel);
  g_assert_no_error (error);
  return text;
}

void
run_ffm_interrupted (Run *run, double delay_seconds, const char *const *args)
{
  g_autoptr (GPtrArray) argv = argv_of (args);
  g_autoptr (GError) error = NULL;
  GPid pid;
  int out_fd, err_fd, wait_status;

  g_spawn_async_with_pipes (NULL, (char **) argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                            NULL, NULL, &pid, NULL, &out_fd, &err_fd, &error);
  g_assert_no_error (error);
  g_usleep ((gulong) (delay_seconds * G_USEC_PER_SEC));
  g_assert_cmpint (kill (pid, SIGINT), ==, 0);
  /* Outputs are small: the child never blocks on a full pipe first. */
  run->out = read_all (out_fd);
  run->err = read_all (err_fd);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_spawn_close_pid (pid);
  run->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  g_test_message ("exit %d\nstdout:\n%s\nstderr:\n%s", run->status, run->out, run->err);
}

void
assert_contains (const char *text, const char *needle)
{
  if (text == NULL || strstr (text, needle) == NULL)
    g_error ("'%s' not found in:\n%s", needle, text);
}

JsonObject *
parse_object (JsonParser *parser, const char *text)
{
  g_autoptr (GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_node_get_object (json_parser_get_root (parser));
}
