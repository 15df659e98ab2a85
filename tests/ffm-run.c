/* ffm-run.c: running the built `ffm` from a test (ffm-run.h). */
/* posix_openpt(), grantpt(), ptsname() */
#define _GNU_SOURCE
#include "ffm-run.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

typedef struct {
  const FfmTestRunOptions *options;
} ChildSetup;

static void
set_limit (int resource, guint64 value)
{
  struct rlimit limit = { (rlim_t) value, (rlim_t) value };

  if (value != 0)
    setrlimit (resource, &limit);
}

/* In the child, before exec: its own process group (so that the deadline
 * kills everything it started) and the resource limits. */
static void
child_setup (gpointer data)
{
  const ChildSetup *setup = data;

  setpgid (0, 0);
  set_limit (RLIMIT_AS, setup->options->address_space);
  set_limit (RLIMIT_DATA, setup->options->data_size);
  set_limit (RLIMIT_FSIZE, setup->options->file_size);
  set_limit (RLIMIT_NOFILE, setup->options->open_files);
  /* A file-size limit must end in EFBIG, not in SIGXFSZ. */
  if (setup->options->file_size != 0)
    signal (SIGXFSZ, SIG_IGN);
}

static char *
read_and_remove (const char *path)
{
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    text = g_strdup ("");
  g_unlink (path);
  return text;
}

static int
temp_file (char **path)
{
  int fd = g_file_open_tmp ("ffm-run-XXXXXX", path, NULL);

  g_assert_cmpint (fd, >=, 0);
  return fd;
}

/* A pseudo-terminal: its master (non-blocking, returned) and its slave
 * in *@slave, 200 columns wide. */
static int
open_terminal (int *slave)
{
  struct winsize size = { 50, 200, 0, 0 };
  int master = posix_openpt (O_RDWR | O_NOCTTY);

  g_assert_cmpint (master, >=, 0);
  g_assert_cmpint (grantpt (master), ==, 0);
  g_assert_cmpint (unlockpt (master), ==, 0);
  *slave = open (ptsname (master), O_RDWR | O_NOCTTY);
  g_assert_cmpint (*slave, >=, 0);
  ioctl (master, TIOCSWINSZ, &size);
  fcntl (master, F_SETFL, fcntl (master, F_GETFL) | O_NONBLOCK);
  return master;
}

/* Appends what the terminal has to @text; FALSE once it is closed. */
static gboolean
drain_terminal (int master, GString *text)
{
  char buffer[4096];

  for (;;)
    {
      ssize_t n = read (master, buffer, sizeof buffer);
      if (n > 0)
        {
          g_string_append_len (text, buffer, n);
          continue;
        }
      /* EIO: every slave descriptor is closed (the program ended). */
      return n < 0 && (errno == EAGAIN || errno == EINTR);
    }
}

/* What stderr holds so far. */
static gboolean
stderr_contains (const char *err_path, GString *terminal, const char *needle)
{
  g_autofree char *text = NULL;

  if (terminal != NULL)
    return strstr (terminal->str, needle) != NULL;
  return g_file_get_contents (err_path, &text, NULL, NULL) && strstr (text, needle) != NULL;
}

void
ffm_test_run_full (FfmTestRun *run, const char *const *args,
                   const FfmTestRunOptions *options)
{
  static const FfmTestRunOptions defaults = { 0 };
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_auto (GStrv) envp = g_get_environ ();
  g_autoptr (GError) error = NULL;
  g_autofree char *out_path = NULL, *err_path = NULL;
  const char *exe = options != NULL && options->program != NULL ? options->program
                                                                : g_getenv ("FFM_EXE");
  g_autoptr (GString) terminal = NULL;
  ChildSetup setup;
  int in_fd, out_fd, err_fd, master = -1, wait_status = 0;
  guint interrupts_sent = 0;
  gint64 deadline, next_interrupt = 0;
  GPid pid;

  if (options == NULL)
    options = &defaults;
  setup.options = options;
  memset (run, 0, sizeof *run);
  if (exe == NULL)
    g_error ("FFM_EXE is not set: run this test through meson test");
  for (guint i = 0; options->launcher != NULL && options->launcher[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) options->launcher[i]);
  g_ptr_array_add (argv, (char *) exe);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  for (guint i = 0; options->env != NULL && options->env[i] != NULL; i++)
    {
      const char *eq = strchr (options->env[i], '=');
      g_autofree char *key = g_strndup (options->env[i], (gsize) (eq - options->env[i]));
      g_assert_nonnull (eq);
      envp = eq[1] == '\0' ? g_environ_unsetenv (envp, key)
                           : g_environ_setenv (envp, key, eq + 1, TRUE);
    }

  in_fd = open (options->stdin_path ? options->stdin_path : "/dev/null", O_RDONLY);
  g_assert_cmpint (in_fd, >=, 0);
  if (options->stdout_path != NULL)
    out_fd = open (options->stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  else
    out_fd = temp_file (&out_path);
  g_assert_cmpint (out_fd, >=, 0);
  if (options->terminal)
    {
      master = open_terminal (&err_fd);
      terminal = g_string_new (NULL);
    }
  else
    err_fd = temp_file (&err_path);

  g_spawn_async_with_fds (options->cwd, (char **) argv->pdata, envp,
                          G_SPAWN_DO_NOT_REAP_CHILD, child_setup, &setup, &pid,
                          in_fd, out_fd, err_fd, &error);
  g_assert_no_error (error);
  close (in_fd);
  close (out_fd);
  close (err_fd);

  deadline = g_get_monotonic_time ()
             + (gint64) ((options->deadline > 0 ? options->deadline : 120) * G_USEC_PER_SEC);
  for (;;)
    {
      pid_t done;
      if (master >= 0)
        drain_terminal (master, terminal);
      done = waitpid (pid, &wait_status, WNOHANG);
      if (done == pid)
        break;
      if (options->interrupt_on != NULL
          && interrupts_sent < MAX (options->interrupts, 1)
          && g_get_monotonic_time () >= next_interrupt
          && stderr_contains (err_path, terminal, options->interrupt_on))
        {
          kill (pid, options->interrupt_signal > 0 ? options->interrupt_signal : SIGINT);
          run->interrupted = TRUE;
          interrupts_sent++;
          next_interrupt = g_get_monotonic_time () + G_USEC_PER_SEC / 2;
        }
      g_assert_true (done == 0 || errno == EINTR);
      if (g_get_monotonic_time () > deadline && !run->timed_out)
        {
          run->timed_out = TRUE;
          kill (-pid, SIGKILL);
          kill (pid, SIGKILL);
        }
      g_usleep (5000);
    }
  g_spawn_close_pid (pid);
  if (WIFEXITED (wait_status))
    run->status = WEXITSTATUS (wait_status);
  else
    {
      run->status = -1;
      run->signal = WIFSIGNALED (wait_status) ? WTERMSIG (wait_status) : 0;
    }
  run->out = out_path ? read_and_remove (out_path) : g_strdup ("");
  if (master >= 0)
    {
      /* Until the terminal reports its last writer gone (bounded: 5 s). */
      for (guint i = 0; i < 5000 && drain_terminal (master, terminal); i++)
        g_usleep (1000);
      close (master);
      run->err = g_string_free (g_steal_pointer (&terminal), FALSE);
    }
  else
    run->err = read_and_remove (err_path);
  g_test_message ("exit %d%s\nstdout:\n%.4000s\nstderr:\n%.4000s", run->status,
                  run->timed_out ? " (killed at the deadline)" : "", run->out, run->err);
}

void
ffm_test_run (FfmTestRun *run, const char *const *args)
{
  ffm_test_run_full (run, args, NULL);
}

void
ffm_test_run_clear (FfmTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

char *
ffm_test_scratch_dir (const char *prefix)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *tmpl = g_strdup_printf ("%s-XXXXXX", prefix);
  char *dir = g_dir_make_tmp (tmpl, &error);

  g_assert_no_error (error);
  return dir;
}

void
ffm_test_remove_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}
