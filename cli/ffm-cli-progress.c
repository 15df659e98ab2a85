/* ffm-cli-progress.c: a progress line redrawn by a thread
 * (ffm-cli-progress.h). */
#include "ffm-cli-progress.h"
#include <ffm/ffm-tsan.h>


#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* TUNING: the line appears only for runs longer than this (s) and is
 * redrawn this often (s): short runs stay silent, long ones do not flood
 * stderr. An estimate needs the phase to have run ESTIMATE_AFTER s and be
 * ESTIMATE_FROM done: earlier ones swing too much to help. */
#define PROGRESS_DELAY 1.0
#define PROGRESS_INTERVAL 0.25
#define ESTIMATE_AFTER 2.0
#define ESTIMATE_FROM 0.01

#define CLEAR_LINE "\r\033[K"

/* A line is on the terminal (for the signal handler). */
static volatile sig_atomic_t line_drawn;

struct _FfmCliProgress {
  char *command;                /* owned */
  GMutex lock;
  GCond wake;
  char phase[192];              /* last phase reported */
  double fraction;              /* its progress, < 0 unknown */
  gint64 start;                 /* monotonic, us */
  gint64 phase_start;           /* when the phase last changed */
  gboolean done;
  gboolean drawn;
  GThread *drawer;              /* NULL when not drawing */
};

static guint
terminal_width (void)
{
  struct winsize ws;

  if (ioctl (STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 80;
}

/* "12 s", "3 min 5 s", "2 h 10 min". */
static char *
duration_text (double seconds)
{
  guint64 s = (guint64) (seconds + 0.5);

  if (s < 60)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " s", s);
  if (s < 3600)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " min %" G_GUINT64_FORMAT " s",
                            s / 60, s % 60);
  return g_strdup_printf ("%" G_GUINT64_FORMAT " h %" G_GUINT64_FORMAT " min",
                          s / 3600, s % 3600 / 60);
}

char *
ffm_cli_progress_format (const char *command, const char *phase, double fraction,
                         double elapsed, double phase_elapsed, guint width)
{
  GString *line = g_string_new (NULL);
  g_autofree char *spent = duration_text (elapsed);

  g_string_append_printf (line, "ffm %s: %s", command, phase);
  if (fraction >= 0)
    g_string_append_printf (line, " %.0f%%", 100 * MIN (fraction, 1.0));
  g_string_append_printf (line, " (%s", spent);
  if (fraction >= ESTIMATE_FROM && fraction < 1 && phase_elapsed >= ESTIMATE_AFTER)
    {
      g_autofree char *left = duration_text (phase_elapsed * (1 - fraction) / fraction);
      g_string_append_printf (line, ", about %s left", left);
    }
  g_string_append_c (line, ')');
  if (width > 0 && g_utf8_strlen (line->str, -1) > (glong) width)
    {
      const char *cut = g_utf8_offset_to_pointer (line->str, width);
      g_string_truncate (line, (gsize) (cut - line->str));
    }
  return g_string_free (line, FALSE);
}

/* The lock, as ThreadSanitizer sees it: the generator's threads update
 * the progress through it (GLib's mutex is invisible to TSan, ffm-tsan.h). */
static void
progress_lock (FfmCliProgress *p)
{
  g_mutex_lock (&p->lock);
  FFM_TSAN_ACQUIRE (&p->lock);
}

static void
progress_unlock (FfmCliProgress *p)
{
  FFM_TSAN_RELEASE (&p->lock);
  g_mutex_unlock (&p->lock);
}

static gpointer
draw_thread (gpointer data)
{
  FfmCliProgress *p = data;

  progress_lock (p);
  while (!p->done)
    {
      gint64 now = g_get_monotonic_time ();
      double elapsed = (double) (now - p->start) / G_USEC_PER_SEC;
      if (elapsed >= PROGRESS_DELAY)
        {
          g_autofree char *line =
            ffm_cli_progress_format (p->command, p->phase, p->fraction, elapsed,
                                     (double) (now - p->phase_start) / G_USEC_PER_SEC,
                                     terminal_width () - 1);
          g_printerr (CLEAR_LINE "%s", line);
          p->drawn = TRUE;
          line_drawn = 1;
        }
      FFM_TSAN_RELEASE (&p->lock);
      g_cond_wait_until (&p->wake, &p->lock, g_get_monotonic_time ()
                         + (gint64) (PROGRESS_INTERVAL * G_USEC_PER_SEC));
      FFM_TSAN_ACQUIRE (&p->lock);
    }
  if (p->drawn)
    g_printerr (CLEAR_LINE);
  line_drawn = 0;
  progress_unlock (p);
  return NULL;
}

FfmCliProgress *
ffm_cli_progress_start (const char *command, gboolean enabled)
{
  FfmCliProgress *p = g_new0 (FfmCliProgress, 1);

  p->command = g_strdup (command);
  g_mutex_init (&p->lock);
  g_cond_init (&p->wake);
  g_strlcpy (p->phase, "working", sizeof p->phase);
  p->fraction = -1;
  p->start = p->phase_start = g_get_monotonic_time ();
  if (enabled && isatty (STDERR_FILENO))
    p->drawer = g_thread_new ("progress", draw_thread, p);
  return p;
}

/* The part of @phase before its first ':' names the phase: the clock of
 * the estimate restarts only when that changes, not at every template. */
static gboolean
same_phase (const char *a, const char *b)
{
  const char *ca = strchr (a, ':'), *cb = strchr (b, ':');
  gsize la = ca ? (gsize) (ca - a) : strlen (a);
  gsize lb = cb ? (gsize) (cb - b) : strlen (b);

  return la == lb && strncmp (a, b, la) == 0;
}

void
ffm_cli_progress_update (double fraction, const char *phase, gpointer data)
{
  FfmCliProgress *p = data;

  if (phase == NULL)
    phase = "";
  progress_lock (p);
  if (!same_phase (p->phase, phase))
    p->phase_start = g_get_monotonic_time ();
  g_strlcpy (p->phase, phase, sizeof p->phase);
  p->fraction = fraction;
  progress_unlock (p);
}

void
ffm_cli_progress_pmappings (const FfmPmappingProgress *progress, gpointer data)
{
  char where[128], phase[160];

  ffm_pmapping_progress_format (progress, where, sizeof where);
  g_snprintf (phase, sizeof phase, "pmappings: %s", where);
  ffm_cli_progress_update (progress->n_templates > 0
                           ? (double) progress->templates_done / progress->n_templates
                           : -1, phase, data);
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
      progress_lock (p);
      p->done = TRUE;
      g_cond_signal (&p->wake);
      progress_unlock (p);
      g_thread_join (p->drawer);
    }
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->wake);
  g_free (p->command);
  g_free (p);
}

void
ffm_cli_progress_clear_from_signal (void)
{
  if (line_drawn)
    {
      ssize_t ignored = write (STDERR_FILENO, CLEAR_LINE, sizeof CLEAR_LINE - 1);
      (void) ignored;
      line_drawn = 0;
    }
}
