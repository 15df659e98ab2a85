/* ffm-search-meter.c: budgets, traces and parts of a search
 * (ffm-search-meter.h). */
#include <ffm/ffm-search-meter.h>

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* TUNING: the wall clock and the cancel flag are read every this many
 * charges: cheap at a million evaluations per second, prompt at a few.
 * The budget spent is reported to the host's progress callback at most
 * every PROGRESS_EVERY s (by part 0: the parts advance alike). */
#define CHECK_EVERY 16
#define PROGRESS_EVERY 0.25

/* What the parts of one search share (ffm_search_meter_link_parts()). */
typedef struct {
  gint ref_count;
  /* The fewest evaluations at which a part reached the target (G_MAXUINT64:
   * none yet): every part runs up to there, so that the merged trace up to
   * its first point at the target is the same whatever the threads' pace. */
  atomic_uint_fast64_t hit;
} Shared;

struct _FfmSearchMeter {
  const FfmSearchContext *ctx;  /* borrowed */
  const FfmMapspace *ms;        /* borrowed, NULL */
  double state_weight;          /* queries per state (0 without a mapspace) */
  double seconds_per_pmapping;
  double scale;                 /* n_parts / threads: a part's queries to the
                                   search's modelled time, per pmapping second */
  guint n_parts;
  guint part;
  double target;                /* stop at an objective this low; 0 = none */
  gint64 last_progress;         /* monotonic, us */
  guint64 max_evaluations;      /* the part's share; 0 = none */
  double max_queries;           /* the part's share; 0 = none */
  double max_seconds;           /* 0 = none */
  gint64 start;                 /* monotonic, us */
  guint64 evaluations;
  double queries;
  guint calls;
  gboolean done;
  gboolean cancelled;
  gboolean exhausted;
  gboolean reached;             /* the target */
  double best;
  Shared *shared;               /* NULL unless linked */
  GArray *trace;                /* of FfmTracePoint, the part's own counts */
};

FfmSearchMeter *
ffm_search_meter_new (const FfmSearchContext *ctx, const FfmMapspace *ms,
                      guint part, guint n_parts, guint64 default_evaluations)
{
  FfmSearchMeter *m;
  guint threads;
  guint64 evaluations;
  double modelled;

  g_return_val_if_fail (ctx != NULL && n_parts > 0 && part < n_parts, NULL);
  m = g_new0 (FfmSearchMeter, 1);
  m->ctx = ctx;
  m->n_parts = n_parts;
  m->part = part;
  if (FFM_SEARCH_CONTEXT_HAS (ctx, target_objective) && ctx->target_objective > 0)
    m->target = ctx->target_objective;
  threads = MAX (1, MIN (ctx->n_threads, n_parts));
  m->scale = (double) n_parts / threads;
  m->ms = ms;
  if (ms != NULL)
    {
      m->state_weight = ffm_mapspace_get_state_query_weight (ms);
      m->seconds_per_pmapping = ffm_mapspace_get_seconds_per_pmapping (ms);
    }
  modelled = FFM_SEARCH_CONTEXT_HAS (ctx, max_modelled_seconds) ? ctx->max_modelled_seconds : 0;
  evaluations = ctx->max_evaluations;
  if (evaluations == 0 && ctx->max_seconds <= 0 && modelled <= 0)
    evaluations = default_evaluations;
  if (evaluations > 0)
    {
      m->max_evaluations = evaluations / n_parts + (part < evaluations % n_parts ? 1 : 0);
      if (m->max_evaluations == 0)
        m->done = m->exhausted = TRUE;  /* fewer evaluations than parts */
    }
  if (modelled > 0 && m->seconds_per_pmapping > 0)
    m->max_queries = modelled / (m->seconds_per_pmapping * m->scale);
  m->max_seconds = ctx->max_seconds > 0 ? ctx->max_seconds : 0;
  m->start = m->last_progress = g_get_monotonic_time ();
  m->best = INFINITY;
  m->trace = g_array_new (FALSE, FALSE, sizeof (FfmTracePoint));
  return m;
}

void
ffm_search_meter_free (FfmSearchMeter *m)
{
  if (m == NULL)
    return;
  g_array_unref (m->trace);
  if (m->shared != NULL && g_atomic_int_dec_and_test (&m->shared->ref_count))
    g_free (m->shared);
  g_free (m);
}

void
ffm_search_meter_link_parts (FfmSearchMeter *const *meters, guint n)
{
  Shared *sh;

  g_return_if_fail (meters != NULL && n > 0);
  sh = g_new0 (Shared, 1);
  atomic_init (&sh->hit, G_MAXUINT64);
  for (guint i = 0; i < n; i++)
    {
      g_return_if_fail (meters[i]->shared == NULL);
      meters[i]->shared = sh;
      sh->ref_count++;
    }
}

static double
elapsed (const FfmSearchMeter *m)
{
  return (double) (g_get_monotonic_time () - m->start) / G_USEC_PER_SEC;
}

gboolean
ffm_search_meter_charge (FfmSearchMeter *m, guint64 evaluations,
                         double pmapping_queries)
{
  m->evaluations += evaluations;
  m->queries += pmapping_queries;
  if (m->done)
    return FALSE;
  if (m->shared != NULL && m->evaluations >= atomic_load (&m->shared->hit))
    {
      m->done = TRUE;
      return FALSE;
    }
  if ((m->max_evaluations > 0 && m->evaluations >= m->max_evaluations)
      || (m->max_queries > 0 && m->queries >= m->max_queries))
    m->done = m->exhausted = TRUE;
  else if (++m->calls % CHECK_EVERY == 0 || evaluations == 0)
    {
      if (ffm_search_context_is_cancelled (m->ctx))
        m->done = m->cancelled = TRUE;
      else if (m->max_seconds > 0 && elapsed (m) >= m->max_seconds)
        m->done = m->exhausted = TRUE;
      else if (m->part == 0 && m->ctx->progress != NULL)
        {
          gint64 now = g_get_monotonic_time ();
          if (now - m->last_progress >= PROGRESS_EVERY * G_USEC_PER_SEC)
            {
              m->last_progress = now;
              m->ctx->progress (ffm_search_meter_get_fraction (m), "budget spent",
                                m->ctx->progress_data);
            }
        }
    }
  return !m->done;
}

gboolean
ffm_search_meter_charge_states (FfmSearchMeter *m, guint64 n)
{
  return ffm_search_meter_charge (m, n, m->state_weight * (double) n);
}

gboolean
ffm_search_meter_read_rows (FfmSearchMeter *m, guint einsum, guint group, guint first,
                            guint n, double *energy, double *latency)
{
  g_return_val_if_fail (m != NULL && m->ms != NULL, FALSE);
  g_return_val_if_fail (einsum < ffm_mapspace_get_n_einsums (m->ms)
                        && group < ffm_mapspace_get_n_groups (m->ms, einsum), FALSE);
  g_return_val_if_fail ((guint64) first + n
                        <= ffm_mapspace_group_get_n_rows (m->ms, einsum, group), FALSE);
  for (guint r = 0; r < n; r++)
    {
      double e, l;
      ffm_mapspace_group_get_objectives (m->ms, einsum, group, first + r, &e, &l);
      if (energy != NULL)
        energy[r] = e;
      if (latency != NULL)
        latency[r] = l;
    }
  return ffm_search_meter_charge (m, 0, n * ffm_mapspace_get_query_weight (m->ms, einsum));
}

gboolean
ffm_search_meter_is_done (const FfmSearchMeter *m)
{
  return m->done || (m->shared != NULL && m->evaluations >= atomic_load (&m->shared->hit));
}

gboolean
ffm_search_meter_has_room (const FfmSearchMeter *m, guint64 n)
{
  return !ffm_search_meter_is_done (m) && (m->max_evaluations == 0 || m->evaluations + n <= m->max_evaluations)
    && (m->max_queries <= 0 || m->queries + m->state_weight * (double) n <= m->max_queries);
}

double
ffm_search_meter_get_modelled_seconds (const FfmSearchMeter *m)
{
  return m->seconds_per_pmapping > 0 ? m->queries * m->seconds_per_pmapping * m->scale
    : elapsed (m);
}

gboolean
ffm_search_meter_offer (FfmSearchMeter *m, double objective)
{
  FfmTracePoint p;

  if (!(objective < m->best))
    return FALSE;
  m->best = objective;
  if (m->target > 0 && objective <= m->target)
    {
      m->done = m->reached = TRUE;
      if (m->shared != NULL)
        {
          uint_fast64_t seen = atomic_load (&m->shared->hit);
          while (m->evaluations < seen
                 && !atomic_compare_exchange_weak (&m->shared->hit, &seen, m->evaluations))
            ;
        }
    }
  p.evaluations = m->evaluations;
  p.seconds = elapsed (m);
  p.best_objective = objective;
  p.pmapping_queries = m->queries;
  p.modelled_seconds = ffm_search_meter_get_modelled_seconds (m);
  g_array_append_val (m->trace, p);
  return TRUE;
}

double
ffm_search_meter_get_best (const FfmSearchMeter *m)
{
  return m->best;
}

double
ffm_search_meter_get_fraction (const FfmSearchMeter *m)
{
  double f = 0;

  if (m->max_evaluations > 0)
    f = (double) m->evaluations / (double) m->max_evaluations;
  if (m->max_queries > 0)
    f = MAX (f, m->queries / m->max_queries);
  if (m->max_evaluations == 0 && m->max_queries <= 0 && m->max_seconds > 0)
    f = elapsed (m) / m->max_seconds;
  return CLAMP (f, 0, 1);
}

guint64
ffm_search_meter_get_evaluations (const FfmSearchMeter *m)
{
  return m->evaluations;
}

double
ffm_search_meter_get_pmapping_queries (const FfmSearchMeter *m)
{
  return m->queries;
}

gboolean
ffm_search_meter_was_cancelled (const FfmSearchMeter *m)
{
  return m->cancelled;
}

/* ---- Merging ---- */

typedef struct {
  FfmTracePoint p;
  guint part;
} Tagged;

static int
tagged_compare (gconstpointer a, gconstpointer b)
{
  const Tagged *x = a, *y = b;

  if (x->p.evaluations != y->p.evaluations)
    return x->p.evaluations < y->p.evaluations ? -1 : 1;
  if (x->p.pmapping_queries != y->p.pmapping_queries)
    return x->p.pmapping_queries < y->p.pmapping_queries ? -1 : 1;
  return (int) x->part - (int) y->part;
}

void
ffm_search_meter_finish (FfmSearchMeter *const *meters, guint n,
                         FfmSearchResult *result)
{
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (Tagged));
  double best = INFINITY, queries = 0, modelled = 0, seconds = 0, last_seconds = 0;
  guint64 evaluations = 0;
  gboolean cancelled = FALSE, exhausted = FALSE, reached = FALSE;
  FfmTracePoint last;

  g_return_if_fail (n > 0 && result != NULL);
  for (guint k = 0; k < n; k++)
    {
      const FfmSearchMeter *m = meters[k];
      for (guint i = 0; i < m->trace->len; i++)
        {
          Tagged t = { g_array_index (m->trace, FfmTracePoint, i), k };
          t.p.evaluations *= n;
          t.p.pmapping_queries *= n;
          g_array_append_val (all, t);
        }
      evaluations += m->evaluations;
      queries += m->queries;
      modelled = MAX (modelled, ffm_search_meter_get_modelled_seconds (m));
      seconds = MAX (seconds, elapsed (m));
      cancelled |= m->cancelled;
      exhausted |= m->exhausted;
      reached |= m->reached;
    }
  g_array_sort (all, tagged_compare);
  for (guint i = 0; i < all->len; i++)
    {
      FfmTracePoint *p = &g_array_index (all, Tagged, i).p;
      /* Parts record their own clocks: keep the merged trace monotone. */
      p->seconds = MAX (p->seconds, last_seconds);
      last_seconds = p->seconds;
      if (!(p->best_objective < best))
        continue;
      best = p->best_objective;
      ffm_search_result_add_trace (result, p);
    }
  last.evaluations = evaluations;
  last.seconds = seconds;
  last.best_objective = best;
  last.pmapping_queries = queries;
  last.modelled_seconds = modelled;
  ffm_search_result_add_trace (result, &last);
  ffm_search_result_set_stat (result, "evaluations", (double) evaluations);
  ffm_search_result_set_stat (result, "pmapping_queries", queries);
  ffm_search_result_set_stat (result, "modelled_seconds", modelled);
  ffm_search_result_set_stat (result, "seconds_per_pmapping", meters[0]->seconds_per_pmapping);
  ffm_search_result_set_stat (result, "search_seconds", seconds);
  ffm_search_result_set_stat (result, "interrupted", cancelled ? 1 : 0);
  ffm_search_result_set_stat (result, "budget_exhausted", exhausted ? 1 : 0);
  ffm_search_result_set_stat (result, "target_reached", reached ? 1 : 0);
}

FfmSearchResult *
ffm_search_meter_best_result (const FfmMapspace *ms, FfmSearchMeter *const *meters,
                              FfmMapspaceChoice *const *best_states, guint n,
                              const char *owner, const GError *reason, GError **error)
{
  g_autoptr (FfmSearchResult) result = NULL;
  int best = -1;

  for (guint p = 0; p < n; p++)
    if (isfinite (meters[p]->best) && (best < 0 || meters[p]->best < meters[best]->best))
      best = (int) p;
  if (best < 0)
    {
      gboolean cancelled = FALSE;
      for (guint p = 0; p < n; p++)
        cancelled |= meters[p]->cancelled;
      if (reason != NULL)
        g_propagate_error (error, g_error_copy (reason));
      else if (cancelled)
        g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_CANCELLED,
                     "%s was stopped before it found a mapping that fits", owner);
      else
        g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                     "%s found no mapping that fits within its budget", owner);
      return NULL;
    }
  result = ffm_search_result_new ();
  if (!ffm_mapspace_add_solution (ms, best_states[best], result, error))
    return NULL;
  ffm_search_meter_finish (meters, n, result);
  ffm_search_result_set_stat (result, "best_part", best);
  return g_steal_pointer (&result);
}

/* ---- Parts on threads ---- */

typedef struct {
  gpointer *parts;
  guint n_parts;
  guint stride;
  guint first;
  FfmSearchStepFunc step;
  gpointer user_data;
} Lane;

static gpointer
run_lane (gpointer data)
{
  Lane *lane = data;
  guint n = 0;
  g_autofree gboolean *live = g_new0 (gboolean, lane->n_parts);

  for (guint p = lane->first; p < lane->n_parts; p += lane->stride)
    {
      live[p] = TRUE;
      n++;
    }
  while (n > 0)
    for (guint p = lane->first; p < lane->n_parts; p += lane->stride)
      if (live[p] && !lane->step (lane->parts[p], lane->user_data))
        {
          live[p] = FALSE;
          n--;
        }
  return NULL;
}

void
ffm_search_run_parts (guint n_threads, gpointer *parts, guint n_parts,
                      FfmSearchStepFunc step, gpointer user_data)
{
  guint lanes = MAX (1, MIN (n_threads, n_parts));
  g_autofree Lane *lane = g_new0 (Lane, lanes);
  g_autofree GThread **threads = g_new0 (GThread *, lanes);

  for (guint t = 0; t < lanes; t++)
    lane[t] = (Lane) { parts, n_parts, lanes, t, step, user_data };
  for (guint t = 1; t < lanes; t++)
    threads[t] = g_thread_new ("ffm-search", run_lane, &lane[t]);
  run_lane (&lane[0]);
  for (guint t = 1; t < lanes; t++)
    g_thread_join (threads[t]);
}
