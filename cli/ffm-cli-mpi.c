/* ffm-cli-mpi.c: `ffm map` over MPI ranks (ffm-cli-mpi.h); built with
 * meson -Dmpi=enabled only.
 *
 * Protocol (point to point on MPI_COMM_WORLD, rank 0 with each other rank;
 * only the thread that called ffm_pmappings_generate() on rank 0, and the
 * main thread elsewhere, call MPI):
 *   0 -> r  GENERATE  the generator's options and rank 0's job count and
 *                     fingerprint (r builds the same jobs and checks);
 *   r -> 0  READY     r's threads: rank 0 answers with that many JOBs;
 *   0 -> r  JOB       a job index, or -1: no more for this thread;
 *   r -> 0  RESULT    a job index and its result's bytes, which also asks
 *                     for the next JOB;
 *   0 -> r  PARTS     before r's first JOB of the second wave: the parts
 *                     the first wave's pmappings have (bytes of
 *                     ffm_pmapping_jobs_begin_second_wave());
 *   r -> 0  DONE      every thread of r got its -1: jobs run, busy seconds
 *                     and peak memory;
 *   r -> 0  FAILED    why r cannot go on (text);
 *   0 -> r  QUIT      the command is over.
 * The jobs go out in the generator's order (Einsum by Einsum) to whichever
 * thread asks first, rank 0's own threads included; with waves
 * (ffm-pmapping-jobs.h) a request for a job of the second wave waits
 * until every job of the first came back: a rank that finishes
 * early gets more (dynamic balancing), and few Einsums are in flight at
 * once, so rank 0 frees each Einsum's template rows as its last job comes
 * back. Waiting ranks poll with short sleeps rather than block in MPI,
 * which would spin a core that rank 0's threads and join need.
 *
 * Faults: a rank that fails sends FAILED, and rank 0 fails the search
 * naming it; a rank that dies makes the launcher end every rank (rank 0
 * then says so on stderr from its SIGTERM handler); when rank 0 fails in
 * the middle of a generation it calls MPI_Abort so that no rank waits
 * forever. Rank 0 prints a mapping only after every job came back. */
#include "ffm-cli-mpi-private.h"
#include "ffm-pmapping-jobs.h"
#include "ffm-config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

enum {
  TAG_GENERATE = 1,
  TAG_READY,
  TAG_JOB,
  TAG_RESULT,
  TAG_DONE,
  TAG_FAILED,
  TAG_QUIT,
  TAG_PARTS,
};
G_STATIC_ASSERT (TAG_QUIT == FFM_CLI_MPI_TAG_QUIT);
G_STATIC_ASSERT (TAG_FAILED == FFM_CLI_MPI_TAG_FAILED);

/* What GENERATE carries. */
typedef struct {
  FfmPmappingOptions options;   /* cancel cleared, n_threads rank 0's */
  guint64 fingerprint;
  guint32 n_jobs;
  guint32 reserved;
} GenerateMessage;

/* What DONE carries (n_jobs: jobs; busy_seconds: their tile search
 * time). */
typedef FfmCliMpiRankStats RankStats;

static gboolean mpi_started;
static int mpi_rank;
static int mpi_size = 1;
static gboolean served;         /* a worker reached ffm_cli_mpi_serve() */
static gboolean in_generation;  /* rank 0 left a generation half done */
static RankStats *rank_stats;   /* [mpi_size], rank 0: sums over generations */
static guint n_generations;
static RankStats *point_stats;  /* [mpi_size], rank 0: ffm-cli-mpi-points.c's */
static const char *point_unit;  /* what point_stats count */
static const char *stop_text;   /* what on_sigterm() prints */

gboolean
ffm_cli_mpi_is_built (void)
{
  return TRUE;
}

static guint64
peak_kib (void)
{
  struct rusage usage;
  return getrusage (RUSAGE_SELF, &usage) == 0 ? (guint64) usage.ru_maxrss : 0;
}

/* Sleeps a little longer each time nothing happens (up to 5 ms). */
static void
idle (guint *spins)
{
  g_usleep (MIN (50u << MIN (*spins, 7u), 5000u));
  (*spins)++;
}

/* TRUE when a message from @source (MPI_ANY_SOURCE) waits; its status in
 * @status. */
static gboolean
message_waiting (int source, MPI_Status *status)
{
  int flag = 0;
  MPI_Iprobe (source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, status);
  return flag != 0;
}

/* Receives the message @status announced into a new buffer. */
static GBytes *
receive_bytes (const MPI_Status *status)
{
  int count = 0;
  guint8 *data;

  MPI_Get_count (status, MPI_BYTE, &count);
  data = g_malloc (MAX (count, 1));
  MPI_Recv (data, count, MPI_BYTE, status->MPI_SOURCE, status->MPI_TAG,
            MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return g_bytes_new_take (data, (gsize) count);
}

static void
send_text (int dest, int tag, const char *text)
{
  MPI_Send (text, (int) strlen (text) + 1, MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}

static void
send_int (int dest, int tag, gint32 value)
{
  MPI_Send (&value, 1, MPI_INT32_T, dest, tag, MPI_COMM_WORLD);
}

/* ---- Starting ---- */

static gboolean
launched_by_mpi (void)
{
  return g_getenv ("OMPI_COMM_WORLD_SIZE") != NULL || g_getenv ("PMIX_RANK") != NULL
    || g_getenv ("PMI_RANK") != NULL;
}

int
ffm_cli_mpi_begin (const char *command, gboolean *is_worker)
{
  int provided = 0;

  *is_worker = FALSE;
  if (mpi_started || !launched_by_mpi ())
    return FFM_EXIT_OK;
  /* SERIALIZED: rank 0 calls MPI from the thread that generates, which
   * need not be the main thread. */
  if (MPI_Init_thread (NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    {
      g_printerr ("ffm %s: MPI did not start (MPI_Init_thread failed)\n", command);
      return FFM_EXIT_FAILURE;
    }
  mpi_started = TRUE;
  MPI_Comm_rank (MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size (MPI_COMM_WORLD, &mpi_size);
  if (provided < MPI_THREAD_SERIALIZED && mpi_size > 1)
    {
      if (mpi_rank == 0)
        g_printerr ("ffm %s: this MPI library does not let threads call it one "
                    "at a time (MPI_THREAD_SERIALIZED)\n", command);
      MPI_Finalize ();
      mpi_started = FALSE;
      return FFM_EXIT_FAILURE;
    }
  *is_worker = mpi_size > 1 && mpi_rank > 0;
  return FFM_EXIT_OK;
}

/* ---- Rank 0 ---- */

typedef struct {
  FfmPmappingJobs *jobs;
  GMutex lock;
  GCond second_wave;            /* signalled when @parts is set or @stop */
  guint next;                   /* the next job to hand out */
  gboolean stop;                /* hand out no more (failure, cancel) */
  guint n_first;                /* jobs of the first wave */
  guint first_done;             /* of them completed here */
  GBytes *parts;                /* the second wave's, once the first is done */
  guint64 local_jobs;
  double local_seconds;
} Dispatch;

#define JOB_LATER (-2)

/* The next job, or -1 when there is none or the generation stops; a job of
 * the second wave before its parts are set: with @wait, waits for them,
 * else JOB_LATER. */
static gint32
dispatch_take (Dispatch *d, gboolean wait)
{
  gint32 job = -1;

  g_mutex_lock (&d->lock);
  for (;;)
    {
      if (ffm_pmapping_options_is_cancelled (ffm_pmapping_jobs_get_options (d->jobs)))
        d->stop = TRUE;
      if (d->stop || d->next >= ffm_pmapping_jobs_get_n_jobs (d->jobs))
        break;
      if (d->next < d->n_first || d->n_first == 0 || d->parts != NULL)
        {
          job = (gint32) d->next++;
          break;
        }
      /* A job of the second wave, before its parts. */
      if (!wait)
        {
          job = JOB_LATER;
          break;
        }
      /* Woken when the parts come; cancellation is polled. */
      g_cond_wait_until (&d->second_wave, &d->lock,
                         g_get_monotonic_time () + 20 * G_TIME_SPAN_MILLISECOND);
    }
  g_mutex_unlock (&d->lock);
  return job;
}

/* Job @job came back (here or from a rank). */
static void
dispatch_done (Dispatch *d, guint job)
{
  g_mutex_lock (&d->lock);
  if (job < d->n_first)
    d->first_done++;
  g_mutex_unlock (&d->lock);
}

static void
dispatch_stop (Dispatch *d)
{
  g_mutex_lock (&d->lock);
  d->stop = TRUE;
  g_cond_broadcast (&d->second_wave);
  g_mutex_unlock (&d->lock);
}

static gpointer
local_thread (gpointer data)
{
  Dispatch *d = data;
  gint32 job;

  while ((job = dispatch_take (d, TRUE)) >= 0)
    {
      gint64 start = g_get_monotonic_time ();
      ffm_pmapping_jobs_run (d->jobs, (guint) job);
      dispatch_done (d, (guint) job);
      g_mutex_lock (&d->lock);
      d->local_jobs++;
      d->local_seconds += (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
      g_mutex_unlock (&d->lock);
    }
  return NULL;
}

/* Sends rank @dest job @job (or -1), the second wave's parts first when
 * it is the rank's first job of that wave. */
static void
send_job (Dispatch *d, gboolean *parts_sent, int dest, gint32 job)
{
  if (job >= 0 && (guint) job >= d->n_first && d->n_first > 0 && !parts_sent[dest])
    {
      gsize size;
      const guint8 *data = g_bytes_get_data (d->parts, &size);
      MPI_Send (data, (int) size, MPI_BYTE, dest, TAG_PARTS, MPI_COMM_WORLD);
      parts_sent[dest] = TRUE;
    }
  send_int (dest, TAG_JOB, job);
}

/* Rank @source asks for a job: the next, or later (queued in @waiting,
 * behind the others that wait) when it would be one of the second wave
 * before its parts. */
static void
answer_request (Dispatch *d, gboolean *parts_sent, GQueue *waiting, int source)
{
  gint32 job = g_queue_is_empty (waiting) ? dispatch_take (d, FALSE) : JOB_LATER;

  if (job == JOB_LATER)
    g_queue_push_tail (waiting, GINT_TO_POINTER (source));
  else
    send_job (d, parts_sent, source, job);
}

/* Once every job of the first wave came back: the second wave's parts,
 * then the requests that waited for them. FALSE, with @error, when the
 * parts cannot be sent. */
static gboolean
begin_second_wave (Dispatch *d, gboolean *parts_sent, GQueue *waiting, GError **error)
{
  gboolean ready, ok = TRUE;

  g_mutex_lock (&d->lock);
  ready = !d->stop && d->n_first > 0 && d->parts == NULL
    && d->first_done == d->n_first;
  g_mutex_unlock (&d->lock);
  if (ready)
    {
      /* No job runs now: the first wave is done, the second waits. */
      GBytes *parts = ffm_pmapping_jobs_begin_second_wave (d->jobs);
      gsize size = g_bytes_get_size (parts);
      if (size > (gsize) G_MAXINT)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                       "MPI: the parts of shared tensors the first Einsums' "
                       "pmappings have take %zu bytes, more than one MPI message "
                       "carries (2 GiB); run without MPI, or with the strategy "
                       "parameter joinable_only=false", size);
          g_bytes_unref (parts);
          parts = NULL;
          ok = FALSE;
          dispatch_stop (d);
        }
      g_mutex_lock (&d->lock);
      d->parts = parts;
      g_cond_broadcast (&d->second_wave);
      g_mutex_unlock (&d->lock);
    }
  while (!g_queue_is_empty (waiting))
    {
      gint32 job;
      int dest = GPOINTER_TO_INT (g_queue_peek_head (waiting));
      if ((job = dispatch_take (d, FALSE)) == JOB_LATER)
        break;
      g_queue_pop_head (waiting);
      send_job (d, parts_sent, dest, job);
    }
  return ok;
}

static gboolean
run_jobs_over_ranks (FfmPmappingJobs *jobs, gpointer user_data, GError **error)
{
  Dispatch d = { .jobs = jobs };
  g_autofree gboolean *parts_sent = g_new0 (gboolean, mpi_size);
  GQueue waiting = G_QUEUE_INIT;        /* ranks (as pointers) asking for a
                                           job of the second wave early */
  GenerateMessage m;
  g_autofree gboolean *done = g_new0 (gboolean, mpi_size);
  g_autoptr (GPtrArray) threads = g_ptr_array_new ();
  guint n_local = ffm_pmapping_jobs_get_n_threads (jobs), n_done = 1, spins = 0;
  gboolean ok = TRUE;

  g_mutex_init (&d.lock);
  g_cond_init (&d.second_wave);
  d.n_first = ffm_pmapping_jobs_get_n_first_wave (jobs);
  memset (&m, 0, sizeof m);
  m.options = *ffm_pmapping_jobs_get_options (jobs);
  /* Pointers mean nothing in another process. */
  m.options.cancel = NULL;
  m.options.progress = NULL;
  m.options.progress_data = NULL;
  /* Each rank binds its own constraints, from the same command line:
   * the fingerprint covers them. */
  m.options.constraints = NULL;
  m.fingerprint = ffm_pmapping_jobs_get_fingerprint (jobs);
  m.n_jobs = ffm_pmapping_jobs_get_n_jobs (jobs);
  in_generation = TRUE;
  for (int r = 1; r < mpi_size; r++)
    MPI_Send (&m, sizeof m, MPI_BYTE, r, TAG_GENERATE, MPI_COMM_WORLD);
  for (guint i = 0; i < MAX (n_local, 1); i++)
    g_ptr_array_add (threads, g_thread_new ("ffm-mpi-local", local_thread, &d));

  while (n_done < (guint) mpi_size)
    {
      MPI_Status status;
      g_autoptr (GBytes) bytes = NULL;

      /* (after a failure: answers the waiting requests with -1) */
      if (!begin_second_wave (&d, parts_sent, &waiting, error))
        ok = FALSE;
      if (!message_waiting (MPI_ANY_SOURCE, &status))
        {
          idle (&spins);
          continue;
        }
      spins = 0;
      bytes = receive_bytes (&status);
      switch (status.MPI_TAG)
        {
        case TAG_READY:
          {
            gint32 slots = 0;
            if (g_bytes_get_size (bytes) == sizeof slots)
              memcpy (&slots, g_bytes_get_data (bytes, NULL), sizeof slots);
            for (gint32 s = 0; s < MAX (slots, 1); s++)
              answer_request (&d, parts_sent, &waiting, status.MPI_SOURCE);
            break;
          }
        case TAG_RESULT:
          {
            gsize size;
            const guint8 *data = g_bytes_get_data (bytes, &size);
            guint32 job = G_MAXUINT32;
            g_autoptr (GBytes) result = NULL;

            if (size >= sizeof job)
              memcpy (&job, data, sizeof job);
            if (job >= ffm_pmapping_jobs_get_n_jobs (jobs))
              {
                if (ok)
                  g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                               "MPI: rank %d sent a result of no job", status.MPI_SOURCE);
                ok = FALSE;
              }
            else if (ok)
              {
                result = g_bytes_new_from_bytes (bytes, sizeof job, size - sizeof job);
                if (!ffm_pmapping_jobs_complete_from_bytes (jobs, job, result, error))
                  {
                    g_prefix_error (error, "MPI: rank %d sent ", status.MPI_SOURCE);
                    ok = FALSE;
                  }
              }
            if (!ok)
              dispatch_stop (&d);
            else
              dispatch_done (&d, job);
            answer_request (&d, parts_sent, &waiting, status.MPI_SOURCE);
            break;
          }
        case TAG_DONE:
          if (g_bytes_get_size (bytes) == sizeof (RankStats))
            {
              const RankStats *s = g_bytes_get_data (bytes, NULL);
              rank_stats[status.MPI_SOURCE].n_jobs += s->n_jobs;
              rank_stats[status.MPI_SOURCE].busy_seconds += s->busy_seconds;
              rank_stats[status.MPI_SOURCE].peak_kib
                = MAX (rank_stats[status.MPI_SOURCE].peak_kib, s->peak_kib);
            }
          if (!done[status.MPI_SOURCE])
            n_done++;
          done[status.MPI_SOURCE] = TRUE;
          break;
        case TAG_FAILED:
          if (ok)
            g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                         "MPI: rank %d failed: %s", status.MPI_SOURCE,
                         (const char *) g_bytes_get_data (bytes, NULL));
          ok = FALSE;
          dispatch_stop (&d);
          /* The failed rank sends nothing more: the others are drained
           * only when the run ends well, so stop waiting now. */
          n_done = (guint) mpi_size;
          break;
        default:
          break;
        }
    }
  dispatch_stop (&d);     /* local threads waiting for parts that never come */
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));
  rank_stats[0].n_jobs += d.local_jobs;
  rank_stats[0].busy_seconds += d.local_seconds;
  g_queue_clear (&waiting);
  g_clear_pointer (&d.parts, g_bytes_unref);
  g_cond_clear (&d.second_wave);
  g_mutex_clear (&d.lock);
  n_generations++;
  if (ok)
    in_generation = FALSE;
  return ok;
}

/* A launcher that loses a rank ends the others with SIGTERM: say why
 * before going (write(2) only: this is a signal handler). */
static void
on_sigterm (int signum)
{
  ssize_t n = write (STDERR_FILENO, stop_text, strlen (stop_text));
  (void) n;
  _exit (FFM_EXIT_FAILURE);
}

void
ffm_cli_mpi_on_stop (const char *text)
{
  struct sigaction action;

  if (!mpi_started || mpi_size < 2 || mpi_rank != 0)
    return;
  stop_text = text;
  memset (&action, 0, sizeof action);
  action.sa_handler = on_sigterm;
  sigemptyset (&action.sa_mask);
  sigaction (SIGTERM, &action, NULL);
}

void
ffm_cli_mpi_lead (void)
{
  if (!mpi_started || mpi_size < 2 || mpi_rank != 0)
    return;
  rank_stats = g_new0 (RankStats, mpi_size);
  ffm_cli_mpi_on_stop ("ffm map: MPI: stopped by the launcher before the search "
                       "ended (a rank died, a node was lost, or the job was "
                       "cancelled): no mapping\n");
  ffm_pmapping_set_job_runner (run_jobs_over_ranks, NULL);
}

/* ---- Other ranks ---- */

typedef struct {
  FfmPmappingJobs *jobs;
  GAsyncQueue *todo;            /* of job + 1, or &no_more_jobs */
  GAsyncQueue *results;         /* of Result* */
} Worker;

typedef struct {
  guint32 job;
  double seconds;
  GBytes *bytes;
} Result;

/* What a thread pops when it has no more jobs (a GAsyncQueue holds no
 * NULL). */
static int no_more_jobs;

static gpointer
worker_thread (gpointer data)
{
  Worker *w = data;
  gpointer item;

  while ((item = g_async_queue_pop (w->todo)) != &no_more_jobs)
    {
      guint job = GPOINTER_TO_UINT (item);
      Result *r = g_new0 (Result, 1);
      r->job = job - 1;
      r->bytes = ffm_pmapping_jobs_run_to_bytes (w->jobs, job - 1, &r->seconds);
      g_async_queue_push (w->results, r);
    }
  return NULL;
}

/* Sends @r to rank 0 as one message: the job index, then the bytes.
 * FALSE, with the reason in @message, when MPI cannot carry it. */
static gboolean
send_result (const Result *r, const FfmPmappingJobs *jobs, char **message)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (r->bytes, &size);
  g_autofree guint8 *buffer = NULL;

  if (size > (gsize) G_MAXINT - sizeof r->job)
    {
      guint t = 0;
      const char *einsum = ffm_pmapping_jobs_describe (jobs, r->job, &t);
      *message = g_strdup_printf ("the Pareto groups of template %u of Einsum %s "
                                  "take %zu bytes, more than one MPI message "
                                  "carries (2 GiB)", t, einsum, size);
      return FALSE;
    }
  buffer = g_malloc (size + sizeof r->job);
  memcpy (buffer, &r->job, sizeof r->job);
  memcpy (buffer + sizeof r->job, data, size);
  MPI_Send (buffer, (int) (size + sizeof r->job), MPI_BYTE, 0, TAG_RESULT,
            MPI_COMM_WORLD);
  return TRUE;
}

static void
result_free (Result *r)
{
  g_bytes_unref (r->bytes);
  g_free (r);
}

/* A test's fault: FFM_DEBUG=mpi-die=RANK:N kills rank RANK (SIGKILL) when
 * it receives its N-th job (docs/cluster.md); only in builds with the test
 * hooks, so that a shipped binary cannot be told to kill itself. */
static void
maybe_die (guint64 n_received)
{
#if FFM_TEST_HOOKS
  const char *spec = ffm_debug_flag_get_string (FFM_DEBUG_MPI_DIE);
  guint64 rank, n;
  char *end = NULL;

  if (spec == NULL)
    return;
  rank = g_ascii_strtoull (spec, &end, 10);
  if (end == NULL || *end != ':')
    return;
  n = g_ascii_strtoull (end + 1, NULL, 10);
  if (rank == (guint64) mpi_rank && n == n_received)
    raise (SIGKILL);
#else
  (void) n_received;
#endif
}

/* Runs one generation's jobs for rank 0. FALSE, with @message, when this
 * rank cannot. */
static gboolean
serve_generation (FfmProblem *problem, const FfmConstraints *constraints,
                  guint n_threads, const GenerateMessage *m, char **message)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmPmappingJobs) jobs = NULL;
  g_autoptr (GPtrArray) threads = g_ptr_array_new ();
  Worker w;
  FfmPmappingOptions options = m->options;
  RankStats stats = { 0 };
  guint active, outstanding = 0, spins = 0;
  guint64 received = 0;
  gboolean ok = TRUE;

  options.n_threads = n_threads;
  options.cancel = NULL;
  options.progress = NULL;
  options.progress_data = NULL;
  options.constraints = constraints;
  jobs = ffm_pmapping_jobs_new (ffm_problem_get_workload (problem),
                                ffm_problem_get_arch (problem), &options, &error);
  if (jobs == NULL)
    {
      *message = g_strdup (error->message);
      return FALSE;
    }
  if (ffm_pmapping_jobs_get_n_jobs (jobs) != m->n_jobs)
    {
      *message = g_strdup_printf ("it built %u pmapping jobs where rank 0 built %u: "
                                  "every rank must read the same architecture, "
                                  "workload, parameters and constraints",
                                  ffm_pmapping_jobs_get_n_jobs (jobs), m->n_jobs);
      return FALSE;
    }
  if (ffm_pmapping_jobs_get_fingerprint (jobs) != m->fingerprint)
    {
      *message = g_strdup_printf ("its %u pmapping jobs differ from rank 0's (other "
                                  "templates, sizes, architecture numbers or "
                                  "constraints): every rank must read the same "
                                  "architecture, workload, parameters and "
                                  "constraints", m->n_jobs);
      return FALSE;
    }
  w.jobs = jobs;
  w.todo = g_async_queue_new ();
  w.results = g_async_queue_new ();
  active = ffm_pmapping_jobs_get_n_threads (jobs);
  for (guint i = 0; i < active; i++)
    g_ptr_array_add (threads, g_thread_new ("ffm-mpi-worker", worker_thread, &w));
  send_int (0, TAG_READY, (gint32) active);

  while (active > 0 || outstanding > 0)
    {
      MPI_Status status;
      Result *r;
      gboolean busy = FALSE;

      if (message_waiting (0, &status) && status.MPI_TAG == TAG_PARTS)
        {
          g_autoptr (GBytes) parts = receive_bytes (&status);
          g_autoptr (GError) parts_error = NULL;
          /* Every job of the first wave came back to rank 0: none runs
           * here now, and every later one comes after this. */
          if (!ffm_pmapping_jobs_set_second_wave (jobs, parts, &parts_error))
            {
              *message = g_strdup (parts_error->message);
              ok = FALSE;
              break;
            }
          busy = TRUE;
        }
      else if (message_waiting (0, &status) && status.MPI_TAG == TAG_JOB)
        {
          gint32 job = -1;
          MPI_Recv (&job, 1, MPI_INT32_T, 0, TAG_JOB, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (job >= 0 && (guint) job < ffm_pmapping_jobs_get_n_jobs (jobs))
            {
              maybe_die (++received);
              outstanding++;
              g_async_queue_push (w.todo, GUINT_TO_POINTER ((guint) job + 1));
            }
          else
            {
              active--;
              g_async_queue_push (w.todo, &no_more_jobs);
            }
          busy = TRUE;
        }
      while ((r = g_async_queue_try_pop (w.results)) != NULL)
        {
          outstanding--;
          stats.n_jobs++;
          stats.busy_seconds += r->seconds;
          ok = send_result (r, jobs, message);
          result_free (r);
          busy = TRUE;
          if (!ok)
            break;
        }
      if (!ok)
        break;
      if (busy)
        spins = 0;
      else
        idle (&spins);
    }
  /* On failure the threads still hold jobs: let them finish theirs. */
  for (guint i = 0; i < threads->len; i++)
    g_async_queue_push (w.todo, &no_more_jobs);
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));
  g_async_queue_unref (w.todo);
  {
    Result *r;
    while ((r = g_async_queue_try_pop (w.results)) != NULL)
      result_free (r);
  }
  g_async_queue_unref (w.results);
  if (!ok)
    return FALSE;
  stats.peak_kib = peak_kib ();
  MPI_Send (&stats, sizeof stats, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD);
  return TRUE;
}

int
ffm_cli_mpi_serve (const char *command, FfmProblem *problem,
                   const FfmConstraints *constraints, guint n_threads)
{
  guint spins = 0;

  served = TRUE;
  for (;;)
    {
      MPI_Status status;
      g_autoptr (GBytes) bytes = NULL;

      if (!message_waiting (0, &status))
        {
          idle (&spins);
          continue;
        }
      spins = 0;
      bytes = receive_bytes (&status);
      if (status.MPI_TAG == TAG_QUIT)
        return FFM_EXIT_OK;
      if (status.MPI_TAG == TAG_GENERATE)
        {
          g_autofree char *message = NULL;
          if (g_bytes_get_size (bytes) != sizeof (GenerateMessage))
            message = g_strdup_printf ("rank 0 asked for jobs in a message of %zu "
                                       "bytes, not %zu: run the same ffm build on "
                                       "every rank", g_bytes_get_size (bytes),
                                       sizeof (GenerateMessage));
          if (message != NULL
              || !serve_generation (problem, constraints, n_threads,
                                    g_bytes_get_data (bytes, NULL), &message))
            {
              /* Rank 0 prints it and stops the run (MPI_Abort). */
              send_text (0, TAG_FAILED, message);
            }
        }
    }
}

/* ---- Ending ---- */

static void
print_report (const char *command)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "ffm %s: MPI: %d ranks", command, mpi_size);
  if (n_generations > 0)
    g_string_append_printf (text, ", %u pmapping generation%s", n_generations,
                            n_generations == 1 ? "" : "s");
  g_string_append_c (text, ':');
  for (int r = 0; r < mpi_size; r++)
    {
      guint64 peak = r == 0 ? ffm_cli_mpi_peak_kib () : 0;
      g_string_append_printf (text, "%s rank %d", r > 0 ? ";" : "", r);
      if (rank_stats != NULL)
        {
          g_string_append_printf (text, " %" G_GUINT64_FORMAT " jobs, %.3g s busy,",
                                  rank_stats[r].n_jobs, rank_stats[r].busy_seconds);
          peak = MAX (peak, rank_stats[r].peak_kib);
        }
      if (point_stats != NULL)
        {
          g_string_append_printf (text, " %" G_GUINT64_FORMAT " %s, %.3g s busy,",
                                  point_stats[r].n_jobs, point_unit,
                                  point_stats[r].busy_seconds);
          peak = MAX (peak, point_stats[r].peak_kib);
        }
      g_string_append_printf (text, " peak %.0f MiB", (double) peak / 1024.0);
    }
  g_printerr ("%s\n", text->str);
  g_string_free (text, TRUE);
}

int
ffm_cli_mpi_end (const char *command, int status)
{
  if (!mpi_started)
    return status;
  if (mpi_size > 1 && mpi_rank == 0)
    {
      if (in_generation)
        {
          /* Other ranks may be in the middle of jobs or sends. */
          g_printerr ("ffm %s: MPI: stopping every rank\n", command);
          MPI_Abort (MPI_COMM_WORLD, status != 0 ? status : FFM_EXIT_FAILURE);
        }
      /* Sweeps report even when a point failed: every rank finished. */
      if ((status == FFM_EXIT_OK && n_generations > 0) || point_stats != NULL)
        print_report (command);
      for (int r = 1; r < mpi_size; r++)
        MPI_Send (NULL, 0, MPI_BYTE, r, TAG_QUIT, MPI_COMM_WORLD);
      ffm_pmapping_set_job_runner (NULL, NULL);
      signal (SIGTERM, SIG_DFL);
      g_clear_pointer (&rank_stats, g_free);
      g_clear_pointer (&point_stats, g_free);
    }
  else if (mpi_size > 1 && !served)
    {
      /* Failed before serving (the message is on stderr): rank 0 would wait
       * for this rank's READY. */
      char text[128];
      guint spins = 0;
      g_snprintf (text, sizeof text, "it stopped before running jobs, with exit "
                  "status %d (its message is above)", status);
      send_text (0, TAG_FAILED, text);
      for (;;)
        {
          MPI_Status st;
          if (message_waiting (0, &st))
            {
              /* Anything else (a START, a GENERATE) is for a rank that serves. */
              g_bytes_unref (receive_bytes (&st));
              if (st.MPI_TAG == TAG_QUIT)
                break;
            }
          else
            idle (&spins);
        }
    }
  MPI_Finalize ();
  mpi_started = FALSE;
  return status;
}

/* ---- For ffm-cli-mpi-points.c ---- */

int
ffm_cli_mpi_rank (void)
{
  return mpi_rank;
}

int
ffm_cli_mpi_size (void)
{
  return mpi_started ? mpi_size : 1;
}

void
ffm_cli_mpi_set_served (void)
{
  served = TRUE;
}

void
ffm_cli_mpi_set_busy (gboolean busy)
{
  in_generation = busy;
}

void
ffm_cli_mpi_add_stats (int rank, const FfmCliMpiRankStats *stats, const char *unit)
{
  if (rank < 0 || rank >= mpi_size)
    return;
  if (point_stats == NULL)
    point_stats = g_new0 (RankStats, mpi_size);
  point_unit = unit;
  point_stats[rank].n_jobs += stats->n_jobs;
  point_stats[rank].busy_seconds += stats->busy_seconds;
  point_stats[rank].peak_kib = MAX (point_stats[rank].peak_kib, stats->peak_kib);
}

guint64
ffm_cli_mpi_peak_kib (void)
{
  return peak_kib ();
}

void
ffm_cli_mpi_idle (guint *spins)
{
  idle (spins);
}

gboolean
ffm_cli_mpi_message_waiting (int source, MPI_Status *status)
{
  return message_waiting (source, status);
}

GBytes *
ffm_cli_mpi_receive_bytes (const MPI_Status *status)
{
  return receive_bytes (status);
}

void
ffm_cli_mpi_send_text (int dest, int tag, const char *text)
{
  send_text (dest, tag, text);
}

void
ffm_cli_mpi_send_int (int dest, int tag, gint32 value)
{
  send_int (dest, tag, value);
}

void
ffm_cli_mpi_maybe_die (guint64 n_received)
{
  maybe_die (n_received);
}
