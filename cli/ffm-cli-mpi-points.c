/* ffm-cli-mpi-points.c: sweep points and compare runs over MPI ranks
 * (ffm-cli-mpi-points.h); built with meson -Dmpi=enabled only.
 *
 * Protocol (point to point on MPI_COMM_WORLD, rank 0 with each other rank;
 * on rank 0 only the dispatcher thread calls MPI while items are out):
 *   0 -> r  START   the fingerprint of the items, how many go out, and
 *                   the shared text;
 *   r -> 0  READY   r's slots (threads running an item each): rank 0
 *                   answers with that many ITEMs;
 *   0 -> r  ITEM    a position in rank 0's list and the item, or -1: no
 *                   more for this slot;
 *   r -> 0  RESULT  the position, the item and its text (or none: it was
 *                   stopped), which also asks for the next ITEM;
 *   r -> 0  DONE    every slot of r got its -1: items run, busy seconds,
 *                   peak memory;
 *   r -> 0  FAILED  why r cannot serve (text; also ffm-cli-mpi.c's);
 *   0 -> r  QUIT    the command is over (ffm_cli_mpi_end()).
 * Rank 0's dispatcher gives up on nothing while a rank lives: it waits for
 * every DONE or FAILED, then gives the items no rank ran back as NULL, so
 * the command sees each item once. Waiting polls with short sleeps, as in
 * ffm-cli-mpi.c, to leave the cores to the items. */
#include "ffm-cli-mpi-points.h"
#include "ffm-cli-mpi-private.h"
#include <ffm/ffm-hash.h>

#include <string.h>

enum {
  TAG_START = 16,
  TAG_READY,
  TAG_ITEM,
  TAG_RESULT,
  TAG_DONE,
  /* ffm-cli-mpi.c's, which a rank that stopped before serving sends */
  TAG_FAILED = FFM_CLI_MPI_TAG_FAILED,
};

typedef struct {
  guint64 fingerprint;
  guint32 n_items;
  guint32 reserved;
} StartMessage;

/* What ITEM carries, and RESULT before the text. */
typedef struct {
  gint32 position;              /* in rank 0's list; -1: no more */
  guint32 item;
} ItemMessage;

enum { OUT, REMOTE, LOCAL, BACK };      /* where an item is */

typedef struct {
  const char *command;
  const char *unit;
  const guint *items;
  guint n_items;
  const gint *cancel;
  FfmCliMpiRunHere here;
  FfmCliMpiResult result;
  gpointer data;
  GMutex lock;
  guint next;
  gboolean stop;
  guint8 *where;                /* [n_items] */
  FfmCliMpiRankStats local;
  GError *error;                /* the first rank that failed */
  GThread *dispatcher;
  GPtrArray *threads;
} Share;

static Share *share;            /* rank 0, while items are out */

gboolean
ffm_cli_mpi_is_worker (void)
{
  return ffm_cli_mpi_size () > 1 && ffm_cli_mpi_rank () > 0;
}

void
ffm_cli_mpi_fingerprint_add (guint64 *hash, const char *text)
{
  /* The NUL too, so that "ab","c" and "a","bc" differ. */
  const char *t = text != NULL ? text : "";

  if (*hash == 0)
    *hash = FFM_FNV1A64_INIT;
  *hash = ffm_fnv1a64 (*hash, t, strlen (t) + 1);
}

/* ---- Rank 0 ---- */

/* The next position to run (@rank: who runs it, 0 here), or -1. */
static gint32
share_take (Share *s, int rank)
{
  gint32 position = -1;

  g_mutex_lock (&s->lock);
  if (s->cancel != NULL && g_atomic_int_get (s->cancel))
    s->stop = TRUE;
  if (!s->stop && s->next < s->n_items)
    {
      position = (gint32) s->next++;
      s->where[position] = rank == 0 ? LOCAL : REMOTE;
    }
  g_mutex_unlock (&s->lock);
  return position;
}

static gpointer
local_thread (gpointer data)
{
  Share *s = data;
  gint32 position;

  while ((position = share_take (s, 0)) >= 0)
    {
      gint64 start = g_get_monotonic_time ();
      s->here (s->items[position], s->data);
      g_mutex_lock (&s->lock);
      s->where[position] = BACK;
      s->local.n_jobs++;
      s->local.busy_seconds += (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
      g_mutex_unlock (&s->lock);
    }
  return NULL;
}

static void
send_item (Share *s, int rank)
{
  ItemMessage m = { share_take (s, rank), 0 };

  if (m.position >= 0)
    m.item = s->items[m.position];
  MPI_Send (&m, sizeof m, MPI_BYTE, rank, TAG_ITEM, MPI_COMM_WORLD);
}

static void
fail (Share *s, int rank, const char *why)
{
  g_mutex_lock (&s->lock);
  if (s->error == NULL)
    g_set_error (&s->error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                 "MPI: rank %d failed: %s", rank, why);
  s->stop = TRUE;
  g_mutex_unlock (&s->lock);
}

static gpointer
dispatcher_thread (gpointer data)
{
  Share *s = data;
  int size = ffm_cli_mpi_size ();
  g_autofree gboolean *done = g_new0 (gboolean, size);
  guint n_done = 1, spins = 0;

  while (n_done < (guint) size)
    {
      MPI_Status status;
      g_autoptr (GBytes) bytes = NULL;
      gsize length;
      const guint8 *body;
      int from;

      if (!ffm_cli_mpi_message_waiting (MPI_ANY_SOURCE, &status))
        {
          ffm_cli_mpi_idle (&spins);
          continue;
        }
      spins = 0;
      bytes = ffm_cli_mpi_receive_bytes (&status);
      body = g_bytes_get_data (bytes, &length);
      from = status.MPI_SOURCE;
      if (done[from])
        continue;               /* a failed rank says nothing more that counts */
      switch (status.MPI_TAG)
        {
        case TAG_READY:
          {
            gint32 slots = 1;
            if (length == sizeof slots)
              memcpy (&slots, body, sizeof slots);
            for (gint32 k = 0; k < MAX (slots, 1); k++)
              send_item (s, from);
            break;
          }
        case TAG_RESULT:
          {
            ItemMessage m = { -1, 0 };
            g_autofree char *text = NULL;
            if (length >= sizeof m + 1)
              memcpy (&m, body, sizeof m);
            if (m.position < 0 || (guint) m.position >= s->n_items
                || s->items[m.position] != m.item || s->where[m.position] != REMOTE)
              {
                fail (s, from, "it sent the result of an item it was not given");
                done[from] = TRUE;
                n_done++;
                break;
              }
            /* A flag byte, then the text: none when the item was stopped. */
            if (body[sizeof m] != 0)
              text = g_strndup ((const char *) body + sizeof m + 1, length - sizeof m - 1);
            g_mutex_lock (&s->lock);
            s->where[m.position] = BACK;
            g_mutex_unlock (&s->lock);
            s->result (m.item, text, s->data);
            send_item (s, from);
            break;
          }
        case TAG_DONE:
          if (length == sizeof (FfmCliMpiRankStats))
            {
              FfmCliMpiRankStats st;
              memcpy (&st, body, sizeof st);
              ffm_cli_mpi_add_stats (from, &st, s->unit);
            }
          done[from] = TRUE;
          n_done++;
          break;
        case TAG_FAILED:
          {
            g_autofree char *why = g_strndup ((const char *) body, length);
            fail (s, from, why);
            done[from] = TRUE;
            n_done++;
            break;
          }
        default:
          break;
        }
    }
  for (guint i = 0; i < s->threads->len; i++)
    g_thread_join (g_ptr_array_index (s->threads, i));
  g_ptr_array_set_size (s->threads, 0);
  /* What a failed rank held, and what was never handed out: back to the
   * command unrun, so that it sees every item once. */
  for (guint i = 0; i < s->n_items; i++)
    if (s->where[i] != BACK)
      {
        s->where[i] = BACK;
        s->result (s->items[i], NULL, s->data);
      }
  return NULL;
}

gboolean
ffm_cli_mpi_points_share (const char *command, const char *unit, const char *stopped,
                          const char *shared, const guint *items, guint n_items, guint64 fingerprint,
                          guint n_local, const gint *cancel, FfmCliMpiRunHere here,
                          FfmCliMpiResult result, gpointer data)
{
  StartMessage m = { fingerprint, n_items, 0 };
  gsize n_shared = shared != NULL ? strlen (shared) : 0;
  g_autofree guint8 *start = g_malloc (sizeof m + n_shared);
  Share *s;

  if (ffm_cli_mpi_size () < 2 || ffm_cli_mpi_rank () != 0 || share != NULL)
    return FALSE;
  s = g_new0 (Share, 1);
  s->command = command;
  s->unit = unit;
  s->items = items;
  s->n_items = n_items;
  s->cancel = cancel;
  s->here = here;
  s->result = result;
  s->data = data;
  s->where = g_new0 (guint8, MAX (n_items, 1));
  s->threads = g_ptr_array_new ();
  g_mutex_init (&s->lock);
  share = s;
  ffm_cli_mpi_on_stop (stopped);
  ffm_cli_mpi_set_busy (TRUE);
  /* The shared text follows the message, its length implied. */
  m.reserved = shared != NULL;
  memcpy (start, &m, sizeof m);
  if (n_shared > 0)
    memcpy (start + sizeof m, shared, n_shared);
  for (int r = 1; r < ffm_cli_mpi_size (); r++)
    MPI_Send (start, (int) (sizeof m + n_shared), MPI_BYTE, r, TAG_START, MPI_COMM_WORLD);
  for (guint i = 0; i < MAX (n_local, 1); i++)
    g_ptr_array_add (s->threads, g_thread_new ("ffm-mpi-local", local_thread, s));
  s->dispatcher = g_thread_new ("ffm-mpi-points", dispatcher_thread, s);
  return TRUE;
}

gboolean
ffm_cli_mpi_points_finish (GError **error)
{
  Share *s = share;
  gboolean ok;

  if (s == NULL)
    return TRUE;
  g_thread_join (s->dispatcher);
  s->local.peak_kib = ffm_cli_mpi_peak_kib ();
  ffm_cli_mpi_add_stats (0, &s->local, s->unit);
  /* Every rank answered: nobody waits on rank 0 in the middle of items. */
  ffm_cli_mpi_set_busy (FALSE);
  ok = s->error == NULL;
  if (!ok)
    g_propagate_error (error, g_steal_pointer (&s->error));
  g_ptr_array_unref (s->threads);
  g_mutex_clear (&s->lock);
  g_free (s->where);
  g_free (s);
  share = NULL;
  return ok;
}

/* ---- Other ranks ---- */

typedef struct {
  FfmCliMpiRunThere there;
  gpointer data;
  const char *shared;
  guint threads_per_item;
  GAsyncQueue *todo;            /* of ItemMessage*, or &no_more */
  GAsyncQueue *results;         /* of Result* */
} Worker;

typedef struct {
  ItemMessage m;
  double seconds;
  char *text;
} Result;

static int no_more;

static gpointer
worker_thread (gpointer data)
{
  Worker *w = data;
  gpointer got;

  while ((got = g_async_queue_pop (w->todo)) != &no_more)
    {
      Result *r = g_new0 (Result, 1);
      gint64 start = g_get_monotonic_time ();
      r->m = *(ItemMessage *) got;
      g_free (got);
      r->text = w->there (r->m.item, w->threads_per_item, w->shared, w->data);
      r->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
      g_async_queue_push (w->results, r);
    }
  return NULL;
}

static void
send_result (const Result *r)
{
  gsize n = r->text != NULL ? strlen (r->text) : 0;
  g_autofree guint8 *buffer = g_malloc (sizeof r->m + 1 + n);

  memcpy (buffer, &r->m, sizeof r->m);
  buffer[sizeof r->m] = r->text != NULL;
  if (n > 0)
    memcpy (buffer + sizeof r->m + 1, r->text, n);
  /* One result is a row of text: far below MPI's 2 GiB per message. */
  MPI_Send (buffer, (int) (sizeof r->m + 1 + n), MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
}

/* Runs rank 0's items. FALSE, with @message, when this rank cannot. */
static gboolean
serve_items (const StartMessage *m, const char *shared, guint64 fingerprint,
             guint n_threads, guint max_parallel, FfmCliMpiRunThere there,
             gpointer data, char **message)
{
  g_autoptr (GPtrArray) threads = g_ptr_array_new ();
  FfmCliMpiRankStats stats = { 0 };
  Worker w = { there, data, shared, 1, NULL, NULL };
  guint slots, active, outstanding = 0, spins = 0;
  guint64 received = 0;

  if (m->fingerprint != fingerprint)
    {
      *message = g_strdup ("its list of points or runs differs from rank 0's: every "
                           "rank must read the same command line, architecture, "
                           "workload, parameters and constraints");
      return FALSE;
    }
  /* As one process shares its threads: up to one item per thread. */
  slots = MAX (1, MIN (max_parallel > 0 ? MIN (n_threads, max_parallel) : n_threads,
                       m->n_items));
  w.threads_per_item = MAX (1, n_threads / slots);
  w.todo = g_async_queue_new ();
  w.results = g_async_queue_new ();
  for (guint i = 0; i < slots; i++)
    g_ptr_array_add (threads, g_thread_new ("ffm-mpi-worker", worker_thread, &w));
  ffm_cli_mpi_send_int (0, TAG_READY, (gint32) slots);
  active = slots;
  while (active > 0 || outstanding > 0)
    {
      MPI_Status status;
      Result *r;
      gboolean busy = FALSE;

      if (ffm_cli_mpi_message_waiting (0, &status) && status.MPI_TAG == TAG_ITEM)
        {
          ItemMessage im;
          MPI_Recv (&im, sizeof im, MPI_BYTE, 0, TAG_ITEM, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (im.position >= 0)
            {
              ffm_cli_mpi_maybe_die (++received);
              outstanding++;
              g_async_queue_push (w.todo, g_memdup2 (&im, sizeof im));
            }
          else
            {
              active--;
              g_async_queue_push (w.todo, &no_more);
            }
          busy = TRUE;
        }
      while ((r = g_async_queue_try_pop (w.results)) != NULL)
        {
          outstanding--;
          stats.n_jobs++;
          stats.busy_seconds += r->seconds;
          send_result (r);
          g_free (r->text);
          g_free (r);
          busy = TRUE;
        }
      if (busy)
        spins = 0;
      else
        ffm_cli_mpi_idle (&spins);
    }
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));
  g_async_queue_unref (w.todo);
  g_async_queue_unref (w.results);
  stats.peak_kib = ffm_cli_mpi_peak_kib ();
  MPI_Send (&stats, sizeof stats, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD);
  return TRUE;
}

int
ffm_cli_mpi_points_serve (const char *command, guint64 fingerprint, guint n_threads,
                          guint max_parallel, FfmCliMpiRunThere there, gpointer data)
{
  guint spins = 0;

  ffm_cli_mpi_set_served ();
  for (;;)
    {
      MPI_Status status;
      g_autoptr (GBytes) bytes = NULL;

      if (!ffm_cli_mpi_message_waiting (0, &status))
        {
          ffm_cli_mpi_idle (&spins);
          continue;
        }
      spins = 0;
      bytes = ffm_cli_mpi_receive_bytes (&status);
      if (status.MPI_TAG == FFM_CLI_MPI_TAG_QUIT)
        return FFM_EXIT_OK;
      if (status.MPI_TAG == TAG_START)
        {
          g_autofree char *message = NULL;
          g_autofree char *shared = NULL;
          gsize size;
          const guint8 *body = g_bytes_get_data (bytes, &size);
          StartMessage m;
          if (size < sizeof m)
            message = g_strdup_printf ("rank 0 started ffm %s in a message of %zu "
                                       "bytes, less than %zu: run the same ffm build "
                                       "on every rank", command, size, sizeof m);
          else
            {
              memcpy (&m, body, sizeof m);
              if (m.reserved)
                shared = g_strndup ((const char *) body + sizeof m, size - sizeof m);
            }
          if (message != NULL
              || !serve_items (&m, shared, fingerprint, n_threads, max_parallel, there,
                               data, &message))
            ffm_cli_mpi_send_text (0, TAG_FAILED, message);
        }
    }
}
