/* ffm-cli-cancel.c: Ctrl-C and --timeout as one cancel flag. */
#include "ffm-cli-cancel.h"
#include "ffm-cli-progress.h"
#include "ffm-cli-common.h"

#include <signal.h>
#include <string.h>

/* The signal handler can reach only globals. Both are written with
 * lock-free atomics (async-signal-safe for int on every platform GLib
 * supports) and read by the search's threads. */
static gint stop_flag;
static gint stop_reason;
static gboolean guard_active;

struct _FfmCliCancel {
  double timeout;               /* s, 0 = none */
  struct sigaction old_action;  /* SIGINT's action before begin() */
  struct sigaction old_term;    /* SIGTERM's */
  gboolean term_taken;          /* begin() installed the SIGTERM handler */
  GThread *timer;               /* NULL without a timeout */
  GMutex lock;
  GCond wake;
  gint ending;                  /* end() asks the timer to leave; under
                                   @lock, and atomic so that ThreadSanitizer
                                   (blind to GLib's mutex) sees it too */
  char *timeout_text;           /* "stopped by --timeout N s" (owned) */
};

/* The first Ctrl-C or SIGTERM asks the command to stop; a second one
 * ends the process at once (the signal's default action), after clearing
 * the progress line so that the shell's prompt starts on a clean line. */
static void
on_stop_signal (int signum)
{
  gint reason = signum == SIGTERM ? FFM_CLI_STOP_TERMINATE : FFM_CLI_STOP_INTERRUPT;

  if (g_atomic_int_get (&stop_reason) == FFM_CLI_STOP_INTERRUPT
      || g_atomic_int_get (&stop_reason) == FFM_CLI_STOP_TERMINATE)
    {
      struct sigaction dfl;
      memset (&dfl, 0, sizeof dfl);
      dfl.sa_handler = SIG_DFL;
      sigemptyset (&dfl.sa_mask);
      ffm_cli_progress_clear_from_signal ();
      sigaction (signum, &dfl, NULL);
      raise (signum);
      return;
    }
  g_atomic_int_set (&stop_reason, reason);
  g_atomic_int_set (&stop_flag, 1);
}

static gpointer
timer_thread (gpointer data)
{
  FfmCliCancel *c = data;
  gint64 deadline = g_get_monotonic_time ()
    + (gint64) (c->timeout * G_USEC_PER_SEC);

  g_mutex_lock (&c->lock);
  while (!g_atomic_int_get (&c->ending))
    if (!g_cond_wait_until (&c->wake, &c->lock, deadline))
      {
        /* Ctrl-C first keeps its reason. */
        g_atomic_int_compare_and_exchange (&stop_reason, FFM_CLI_STOP_NONE,
                                           FFM_CLI_STOP_TIMEOUT);
        g_atomic_int_set (&stop_flag, 1);
        break;
      }
  g_mutex_unlock (&c->lock);
  return NULL;
}

gboolean
ffm_cli_timeout_is_valid (double t)
{
  return t >= 0 && t <= FFM_CLI_MAX_TIMEOUT;   /* FALSE for NaN */
}

FfmCliCancel *
ffm_cli_cancel_begin (double timeout_seconds)
{
  FfmCliCancel *c = g_new0 (FfmCliCancel, 1);
  struct sigaction action;

  g_return_val_if_fail (!guard_active, NULL);
  guard_active = TRUE;
  g_atomic_int_set (&stop_flag, 0);
  g_atomic_int_set (&stop_reason, FFM_CLI_STOP_NONE);
  g_mutex_init (&c->lock);
  g_cond_init (&c->wake);
  c->timeout = timeout_seconds > 0 ? timeout_seconds : 0;

  memset (&action, 0, sizeof action);
  action.sa_handler = on_stop_signal;
  sigemptyset (&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction (SIGINT, &action, &c->old_action);
  {
    struct sigaction current;
    if (sigaction (SIGTERM, NULL, &current) == 0 && current.sa_handler == SIG_DFL
        && !(current.sa_flags & SA_SIGINFO))
      {
        sigaction (SIGTERM, &action, &c->old_term);
        c->term_taken = TRUE;
      }
  }
  c->timeout_text = g_strdup_printf ("stopped by --timeout %g s", c->timeout);
  if (c->timeout > 0)
    c->timer = g_thread_new ("ffm-timeout", timer_thread, c);
  return c;
}

void
ffm_cli_cancel_end (FfmCliCancel *c)
{
  if (c == NULL)
    return;
  if (c->timer != NULL)
    {
      g_mutex_lock (&c->lock);
      g_atomic_int_set (&c->ending, TRUE);
      g_cond_signal (&c->wake);
      g_mutex_unlock (&c->lock);
      g_thread_join (c->timer);
    }
  sigaction (SIGINT, &c->old_action, NULL);
  if (c->term_taken)
    sigaction (SIGTERM, &c->old_term, NULL);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->wake);
  g_free (c->timeout_text);
  g_free (c);
  guard_active = FALSE;
}

const gint *
ffm_cli_cancel_get_flag (const FfmCliCancel *c)
{
  g_return_val_if_fail (c != NULL, NULL);
  return &stop_flag;
}

FfmCliStopReason
ffm_cli_cancel_get_reason (const FfmCliCancel *c)
{
  g_return_val_if_fail (c != NULL, FFM_CLI_STOP_NONE);
  return g_atomic_int_get (&stop_flag) ? (FfmCliStopReason) g_atomic_int_get (&stop_reason)
                                       : FFM_CLI_STOP_NONE;
}

int
ffm_cli_stop_exit_code (FfmCliStopReason reason)
{
  switch (reason)
    {
    case FFM_CLI_STOP_INTERRUPT: return FFM_EXIT_INTERRUPTED;
    case FFM_CLI_STOP_TIMEOUT: return FFM_EXIT_TIMEOUT;
    case FFM_CLI_STOP_NONE:
    default: return FFM_EXIT_OK;
    }
}

const char *
ffm_cli_cancel_describe (const FfmCliCancel *c)
{
  g_return_val_if_fail (c != NULL, NULL);
  switch (ffm_cli_cancel_get_reason (c))
    {
    case FFM_CLI_STOP_INTERRUPT:
      return "interrupted (Ctrl-C)";
    case FFM_CLI_STOP_TIMEOUT:
      return c->timeout_text;
    case FFM_CLI_STOP_TERMINATE:
      return "terminated (SIGTERM)";
    case FFM_CLI_STOP_NONE:
    default:
      return NULL;
    }
}
