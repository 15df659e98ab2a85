/* ffm-run.c: running the built `ffm` command in tests (ffm-run.h). */
#include "ffm-run.h"

#include <string.h>
#include <sys/wait.h>

void
run_clear (Run *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

void
run_ffm_argv (Run *run, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  const char *exe = g_getenv ("FFM_EXE");
  int wait_status = 0;

  if (exe == NULL)
    g_error ("FFM_EXE is not set: run this test through meson test");
  g_ptr_array_add (argv, (char *) exe);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &run->out, &run->err, &wait_status, &error);
  g_assert_no_error (error);
  run->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  g_test_message ("exit %d\nstdout:\n%s\nstderr:\n%s", run->status, run->out, run->err);
}

void
assert_contains (const char *text, const char *needle)
{
  if (strstr (text, needle) == NULL)
    g_error ("'%s' not found in:\n%s", needle, text);
}
