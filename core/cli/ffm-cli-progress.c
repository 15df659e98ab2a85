/* ffm-cli-progress.c: a progress line redrawn by a thread. */
#include "ffm-cli-progress.h"

#include <unistd.h>

/* TUNING: the line appears only for runs longer than this (s) and is
 * redrawn this often (s): short runs stay silent, long ones do not flood
 * stderr. */
#define PROGRESS_DELAY 1.0
#define PROGRESS_INTERVAL 0.25

struct _FfmCliProgress {
  char *command;                /* owned */
  GMutex lock;
  GCond wake;
  char phase[64];               /* last phase reported */
  double fraction;              /* its progress, < 0 unknown */
  gint64 start;                 /* monotonic, us */
  gboolean done;
  gboolean drawn;
  GThread *drawer;              /* NULL when stderr is not a terminal */
};

static gpointer
draw_thread (gpointer data)
{
  FfmCliProgress *p = data;

  g_mutex_lock (&p->lock);
  while (!p->done)
    {
      double elapsed = (double) (g_get_monotonic_time () - p->start) / G_USEC_PER_SEC;
      if (elapsed >= PROGRESS_DELAY)
        {
          if (p->fraction >= 0)
            g_printerr ("\r\033[Kffm %s: %s %3.0f%% (%.0f s)", p->command, p->phase,
                        100 * p->fraction, elapsed);
          else
            g_printerr ("\r\033[Kffm %s: %s (%.0f s)", p->command, p->phase, elapsed);
          p->drawn = TRUE;
        }
      g_cond_wait_until (&p->wake, &p->lock, g_get_monotonic_time ()
                         + (gint64) (PROGRESS_INTERVAL * G_USEC_PER_SEC));
    }
  if (p->drawn)
    g_printerr ("\r\033[K");
  g_mutex_unlock (&p->lock);
  return NULL;
}

FfmCliProgress *
ffm_cli_progress_start (const char *command)
{
  FfmCliProgress *p = g_new0 (FfmCliProgress, 1);

  p->command = g_strdup (command);
  g_mutex_init (&p->lock);
  g_cond_init (&p->wake);
  g_strlcpy (p->phase, "working", sizeof p->phase);
  p->fraction = -1;
  p->start = g_get_monotonic_time ();
  if (isatty (2))
    p->drawer = g_thread_new ("progress", draw_thread, p);
  return p;
}

void
ffm_cli_progress_update (double fraction, const char *phase, gpointer data)
{
  FfmCliProgress *p = data;

  g_mutex_lock (&p->lock);
  g_strlcpy (p->phase, phase != NULL ? phase : "", sizeof p->phase);
  p->fraction = fraction;
  g_mutex_unlock (&p->lock);
}

double
ffm_cli_progress_get_elapsed (const FfmCliProgress *p)
{
  return (double) (g_get_monotonic_time () - p->start) / G_USEC_PER_SEC;
}

void
ffm_cli_progress_stop (FfmCliProgress *p)
{
  if (p == NULL)
    return;
  if (p->drawer != NULL)
    {
      g_mutex_lock (&p->lock);
      p->done = TRUE;
      g_cond_signal (&p->wake);
      g_mutex_unlock (&p->lock);
      g_thread_join (p->drawer);
    }
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->wake);
  g_free (p->command);
  g_free (p);
}
