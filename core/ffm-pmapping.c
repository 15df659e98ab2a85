/* ffm-pmapping.c: the pmapping generator's driver (ffm-pmapping.h) and its
 * jobs (ffm-pmapping-jobs.h).
 *
 * Phases:
 *   1. templates of every Einsum (ffm-pmapping-storage.c and
 *      ffm-pmapping-template.c), built and compiled in workload order on
 *      the calling thread; an Einsum whose signature
 *      (ffm-pmapping-signature.c) equals an earlier one's is not
 *      enumerated but gets a renamed copy of its groups after phase 3;
 *   2. the tile enumeration of every template (ffm-pmapping-tiles.c), one
 *      job each, spread over a GThreadPool (or another process: the job
 *      runner); each job writes only its own result slot; with
 *      options.drop_unjoinable, in two waves (ffm-pmapping-waves.c);
 *   3. per Einsum, the templates' groups merged in template order into
 *      compatibility groups and Pareto-pruned (ffm-pmapping-set.c), by the
 *      thread that finishes the Einsum's last template (the template
 *      results' rows are freed then, which bounds memory by the Einsums in
 *      flight);
 *   4. the memories the join must track are chosen over all Einsums, the
 *      other memories' columns dropped and the groups pruned again.
 * Nothing in phases 2-3 depends on which thread runs what or when: every
 * merge runs in a fixed order, so the result is the same for any number of
 * threads.
 *
 * [1] the reference implementation (accelforge). */
#include "ffm-pmapping-private.h"
#include "ffm-pmapping-jobs.h"
#include "ffm-einsum-front-private.h"
#include <ffm/ffm-limits.h>
#include <ffm/ffm-tsan.h>
#include <ffm/ffm-memory-budget.h>
#include <ffm/ffm-hash.h>

#include <math.h>
#include <string.h>

#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))

/* The address the jobs of a pool release when they end and the caller
 * acquires after the pool (ffm-tsan.h). */
static gconstpointer
jobs_done_key (gconstpointer user_data)
{
  return user_data;
}

/* Tells options.progress that a template of @pm starts or has ended
 * (@ended), and whether that was the Einsum's last (@einsum_done). */
static void
report_progress (FfmPmappingSet *set, FfmEinsumPmappings *pm, gboolean ended,
                 gboolean einsum_done)
{
  FfmPmappingProgress p;

  if (set->options.progress == NULL)
    return;
  p.templates_done = (guint) (ended ? g_atomic_int_add (&set->templates_done, 1) + 1
                                    : g_atomic_int_get (&set->templates_done));
  p.einsums_done = (guint) (einsum_done ? g_atomic_int_add (&set->einsums_done, 1) + 1
                                        : g_atomic_int_get (&set->einsums_done));
  p.n_einsums = set->einsums->len;
  p.n_templates = set->n_templates;
  p.einsum = (int) pm->einsum;
  p.einsum_name = pm->e->name;
  set->options.progress (&p, set->options.progress_data);
}

static void
run_template_job (gpointer data, gpointer user_data)
{
  PmappingJob *job = data;
  FfmPmappingSet *set = user_data;
  const FfmPmappingTemplate *t;
  FfmTemplateResult *r;
  FfmTileWorkspace *ws;
  gboolean cancelled;

  /* Nothing of the set is read before the hand-off is visible to TSan. */
  FFM_TSAN_ACQUIRE (job);
  cancelled = ffm_pmapping_options_is_cancelled (&set->options)
    || pmapping_set_failed (set);
  t = g_ptr_array_index (job->pm->templates, job->template_id);
  r = g_ptr_array_index (job->pm->results, job->template_id);
  /* Cancelled: the remaining templates are skipped (the caller fails the
   * whole generation, so their empty results are never read) and not
   * reported as done. */
  if (!cancelled)
    {
      report_progress (set, job->pm, FALSE, FALSE);
      if (!job->searched)
        {
          ws = g_async_queue_pop (set->workspaces);
          FFM_TSAN_ACQUIRE (ws);
          ffm_pmapping_template_enumerate (set->workload, set->arch, t, &set->options,
                                           set->untracked_early, job->pm->joinable,
                                           job->pm->front, ws, r);
          FFM_TSAN_RELEASE (ws);
          g_async_queue_push (set->workspaces, ws);
        }
      pmapping_set_check_template_result (set, job->pm, job->template_id, r);
    }
  /* The last template of an Einsum merges them all, in template order
   * (whichever thread that is, the result is the same), so that finished
   * Einsums hold only their Pareto groups while others still run. */
  if (g_atomic_int_dec_and_test (&job->pm->pending))
    {
      einsum_pmappings_merge (job->pm);
      if (!cancelled)
        report_progress (set, job->pm, TRUE, TRUE);
    }
  else if (!cancelled)
    report_progress (set, job->pm, TRUE, FALSE);
  FFM_TSAN_RELEASE (jobs_done_key (set));
}

static FfmPmappingJobRunner job_runner;
static gpointer job_runner_data;

void
ffm_pmapping_set_job_runner (FfmPmappingJobRunner runner, gpointer user_data)
{
  job_runner = runner;
  job_runner_data = user_data;
}

void
ffm_pmapping_jobs_free (FfmPmappingJobs *jobs)
{
  if (jobs == NULL)
    return;
  g_clear_pointer (&jobs->set, ffm_pmapping_set_free);
  g_ptr_array_unref (jobs->jobs);
  g_free (jobs->wave1);
  g_free (jobs);
}

/* A new generation's set, before any Einsum (transfer full: @jobs frees
 * it), or NULL when the options' constraints do not bind. */
static FfmPmappingSet *
pmapping_set_new (FfmWorkload *workload, FfmArch *arch, const FfmPmappingOptions *options,
                  GError **error)
{
  FfmPmappingSet *set = g_new0 (FfmPmappingSet, 1);

  set->workload = ffm_workload_ref (workload);
  set->arch = ffm_arch_ref (arch);
  pmapping_options_copy (&set->options, options);
  set->budget = ffm_memory_budget_new (pmapping_options_max_memory (&set->options));
  g_mutex_init (&set->failure_lock);
  set->einsums = g_ptr_array_new_with_free_func ((GDestroyNotify) einsum_pmappings_free);
  set->tracked = g_array_new (FALSE, FALSE, sizeof (guint));
  set->by_einsum = g_new0 (FfmEinsumPmappings *,
                           MAX (ffm_workload_get_n_einsums (workload), 1));
  if (set->options.constraints != NULL)
    {
      set->constraints = ffm_constraints_bind (set->options.constraints, workload,
                                               arch, error);
      if (set->constraints == NULL)
        {
          ffm_pmapping_set_free (set);
          return NULL;
        }
      /* The set's own copy, so that the caller may free theirs. */
      set->options.constraints = ffm_bound_constraints_get_constraints (set->constraints);
    }
  if (set->options.objectives == 0)
    set->options.objectives = FFM_PMAPPING_ENERGY | FFM_PMAPPING_LATENCY;
  return set;
}

/* Einsum @e's entry in @set, with its memories' capacities and its
 * templates; NULL when an architecture expression fails or the Einsum has
 * no template (under constraints: which leave it none, when it has
 * templates without them). The entry belongs to @set either way. */
static FfmEinsumPmappings *
einsum_pmappings_new (FfmPmappingSet *set, guint e, GError **error)
{
  FfmWorkload *workload = set->workload;
  FfmArch *arch = set->arch;
  guint n_levels = ffm_arch_get_n_levels (arch);
  const FfmEinsumConstraints *ec = ffm_bound_constraints_get_einsum (set->constraints, e);
  FfmEinsumPmappings *pm = g_new0 (FfmEinsumPmappings, 1);
  GError *local = NULL;

  pm->set = set;
  pm->budget = set->budget;
  pm->einsum = e;
  pm->e = ffm_workload_get_einsum (workload, e);
  pm->templates = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_pmapping_template_free);
  pm->seed_results = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_template_result_free);
  pm->results = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_template_result_free);
  pm->tile_pool = g_array_new (FALSE, FALSE, sizeof (guint64));
  pm->groups = g_ptr_array_new ();
  pm->capacity = g_new0 (double, MAX (n_levels, 1));
  pm->objectives = set->options.objectives;
  double cpu_start = ffm_thread_cpu_seconds ();

  g_ptr_array_add (set->einsums, pm);
  set->by_einsum[e] = pm;
  for (guint l = 0; l < n_levels; l++)
    if (ffm_arch_get_level (arch, l)->kind == FFM_LEVEL_MEMORY
        && !ffm_arch_memory_size (arch, l, workload, e, &pm->capacity[l], error))
      return NULL;
  if (!ffm_pmapping_templates_build (workload, arch, e, &set->options, ec,
                                     set->budget, pm->templates, pm->seed_results,
                                     &pm->stats.n_templates_cut,
                                     &pm->n_choices_bounded, &local)
      || (ec != NULL && pm->templates->len == 0))
    {
      /* Under constraints, say which leave the Einsum nothing, when
       * it has templates without them. */
      if (ec != NULL && (local == NULL || local->domain == FFM_MAPPING_ERROR))
        {
          g_autoptr (GPtrArray) free_templates =
            g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_pmapping_template_free);
          if (ffm_pmapping_templates_build (workload, arch, e, &set->options, NULL,
                                            NULL, free_templates, NULL, NULL, NULL,
                                            NULL))
            {
              pmapping_set_unsatisfiable_error (set, e, local, error);
              g_clear_error (&local);
              return NULL;
            }
        }
      g_propagate_error (error, local);
      return NULL;
    }
  pm->stats.n_templates = pm->templates->len;
  pm->stats.reused_from = -1;
  pm->profile.cpu_templates = ffm_thread_cpu_seconds () - cpu_start;
  return pm;
}

/* The jobs whose template the storage choices' seeds searched while the
 * templates were built take that result and search nothing. The seeds
 * search with every memory untracked: their results stand for the
 * templates' only when the set tracks none early either (not under
 * FFM_DEBUG=untracked-late); otherwise they are dropped. Their CPU time,
 * counted in cpu_templates while building (those the building thread
 * searched), moves to the tile search's phases. */
static void
jobs_take_seed_results (FfmPmappingJobs *jobs)
{
  FfmPmappingSet *set = jobs->set;
  gboolean all_untracked = TRUE;

  for (guint l = 0; l < ffm_arch_get_n_levels (set->arch); l++)
    if (ffm_arch_get_level (set->arch, l)->kind == FFM_LEVEL_MEMORY
        && !set->untracked_early[l])
      all_untracked = FALSE;
  for (guint i = 0; i < jobs->jobs->len; i++)
    {
      PmappingJob *job = g_ptr_array_index (jobs->jobs, i);
      FfmEinsumPmappings *pm = job->pm;
      guint t = job->template_id;
      FfmTemplateResult *seed;

      if (pm->seed_results == NULL || t >= pm->seed_results->len
          || g_ptr_array_index (pm->seed_results, t) == NULL)
        continue;
      seed = g_steal_pointer (&g_ptr_array_index (pm->seed_results, t));
      if (!all_untracked)
        {
          ffm_template_result_free (seed);
          continue;
        }
      ffm_template_result_free (g_ptr_array_index (pm->results, t));
      g_ptr_array_index (pm->results, t) = seed;
      job->searched = TRUE;
      if (!seed->on_helper)
        pm->profile.cpu_templates = MAX (pm->profile.cpu_templates - seed->cpu_tiles, 0);
    }
}

/* One job per template of @pm, unless an earlier Einsum has @pm's
 * signature (options.reuse_equal_einsums; @signatures maps them to their
 * Einsums): @pm then copies its groups. */
static gboolean
jobs_add_einsum (FfmPmappingJobs *jobs, FfmEinsumPmappings *pm, GHashTable *signatures,
                 GError **error)
{
  FfmPmappingSet *set = jobs->set;
  guint n_levels = ffm_arch_get_n_levels (set->arch);

  if (set->options.reuse_equal_einsums)
    {
      char *signature = ffm_pmapping_einsum_signature (set->workload, set->arch, pm->einsum,
                                                       pm->templates,
                                                       ffm_bound_constraints_get_einsum (set->constraints,
                                                                                         pm->einsum),
                                                       error);
      if (signature == NULL)
        return FALSE;
      pm->same_as = g_hash_table_lookup (signatures, signature);
      if (pm->same_as != NULL)
        {
          pm->stats.reused_from = (int) pm->same_as->einsum;
          g_free (signature);
          return TRUE;
        }
      g_hash_table_insert (signatures, signature, pm);
    }
  pm->pending = (gint) pm->templates->len;
  pm->jobs = g_ptr_array_sized_new (pm->templates->len);
  if (pm->templates->len == 0)
    einsum_pmappings_merge (pm);
  for (guint t = 0; t < pm->templates->len; t++)
    {
      PmappingJob *job = g_new0 (PmappingJob, 1);
      job->set = set;
      job->pm = pm;
      job->template_id = t;
      g_ptr_array_add (pm->results, ffm_template_result_new (n_levels));
      g_ptr_array_add (jobs->jobs, job);
      g_ptr_array_add (pm->jobs, job);
    }
  return TRUE;
}

/* Phase 1: the templates of every Einsum and one job per template to
 * enumerate. */
FfmPmappingJobs *
ffm_pmapping_jobs_new (FfmWorkload *workload, FfmArch *arch,
                       const FfmPmappingOptions *options, GError **error)
{
  g_autoptr(FfmPmappingJobs) jobs = NULL;
  g_autoptr(GHashTable) signatures = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                            g_free, NULL);
  FfmPmappingSet *set;
  guint n_einsums, n_levels;

  g_return_val_if_fail (workload != NULL && arch != NULL, NULL);
  g_return_val_if_fail (options == NULL
                        || options->struct_size >= G_STRUCT_OFFSET (FfmPmappingOptions, objectives),
                        NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  jobs = g_new0 (FfmPmappingJobs, 1);
  jobs->start = g_get_monotonic_time ();
  jobs->jobs = g_ptr_array_new_with_free_func (g_free);
  jobs->set = set = pmapping_set_new (workload, arch, options, error);
  if (set == NULL)
    return NULL;
  n_einsums = ffm_workload_get_n_einsums (workload);
  n_levels = ffm_arch_get_n_levels (arch);
  jobs->n_threads = set->options.n_threads > 0 ? set->options.n_threads
    : (guint) g_get_num_processors ();
  /* One workspace per thread is allocated up front. */
  jobs->n_threads = MIN (jobs->n_threads, FFM_MAX_THREADS);

  if (set->options.einsum >= (int) n_einsums)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "workload %s has no Einsum number %d",
                   ffm_workload_get_name (workload), set->options.einsum);
      return NULL;
    }

  for (guint e = 0; e < n_einsums; e++)
    {
      FfmEinsumPmappings *pm;
      if (set->options.einsum >= 0 && (guint) set->options.einsum != e)
        continue;
      pm = einsum_pmappings_new (set, e, error);
      if (pm == NULL || !jobs_add_einsum (jobs, pm, signatures, error))
        return NULL;
    }

  set->untracked_early = g_new0 (gboolean, MAX (n_levels, 1));
  for (guint l = 0; l < n_levels; l++)
    {
      set->untracked_early[l] = pmapping_set_memory_untracked_early (set, l);
      if (set->untracked_early[l] && !isinf (ffm_arch_get_level (arch, l)->u.memory.size))
        g_debug ("memory %s: untracked (known before the search)",
                 ffm_arch_get_level (arch, l)->name);
    }
  jobs_take_seed_results (jobs);

  /* Einsums that copy an earlier one, or have no template, are done. */
  set->n_templates = jobs->jobs->len;
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      if (pm->same_as != NULL || pm->templates->len == 0)
        set->einsums_done++;
    }

  set->workspaces = g_async_queue_new_full ((GDestroyNotify) ffm_tile_workspace_free);
  for (guint i = 0; i < MAX (jobs->n_threads, 1); i++)
    g_async_queue_push (set->workspaces, ffm_tile_workspace_new (set->budget));
  pmapping_jobs_order_in_waves (jobs);
  return g_steal_pointer (&jobs);
}

guint
ffm_pmapping_jobs_get_n_jobs (const FfmPmappingJobs *jobs)
{
  return jobs->jobs->len;
}

guint
ffm_pmapping_jobs_get_n_threads (const FfmPmappingJobs *jobs)
{
  return jobs->n_threads;
}

const FfmPmappingOptions *
ffm_pmapping_jobs_get_options (const FfmPmappingJobs *jobs)
{
  return &jobs->set->options;
}

/* FNV-1a over what identifies every job: its Einsum's signature (all the
 * generator reads of the Einsum and the architecture) and its template's
 * canonical form. */
guint64
ffm_pmapping_jobs_get_fingerprint (const FfmPmappingJobs *jobs)
{
  guint64 h = FFM_FNV1A64_INIT;
  const FfmEinsumPmappings *last = NULL;

  for (guint i = 0; i < jobs->jobs->len; i++)
    {
      const PmappingJob *job = g_ptr_array_index (jobs->jobs, i);
      const FfmPmappingTemplate *t = g_ptr_array_index (job->pm->templates,
                                                        job->template_id);
      guint32 ids[2] = { job->pm->einsum, job->template_id };

      if (job->pm != last)
        {
          g_autofree char *signature
            = ffm_pmapping_einsum_signature (jobs->set->workload, jobs->set->arch,
                                             job->pm->einsum, job->pm->templates,
                                             ffm_bound_constraints_get_einsum (jobs->set->constraints,
                                                                               job->pm->einsum),
                                             NULL);
          if (signature != NULL)
            h = ffm_fnv1a64 (h, signature, strlen (signature));
          last = job->pm;
        }
      h = ffm_fnv1a64 (h, ids, sizeof ids);
      if (t->key != NULL)
        h = ffm_fnv1a64 (h, t->key, strlen (t->key));
    }
  return h;
}

const char *
ffm_pmapping_jobs_describe (const FfmPmappingJobs *jobs, guint job,
                            guint *template_id)
{
  const PmappingJob *j;

  g_return_val_if_fail (job < jobs->jobs->len, NULL);
  j = g_ptr_array_index (jobs->jobs, job);
  if (template_id != NULL)
    *template_id = j->template_id;
  return j->pm->e->name;
}

void
ffm_pmapping_jobs_run (FfmPmappingJobs *jobs, guint job)
{
  g_return_if_fail (job < jobs->jobs->len);
  run_template_job (g_ptr_array_index (jobs->jobs, job), jobs->set);
}

GBytes *
ffm_pmapping_jobs_run_to_bytes (FfmPmappingJobs *jobs, guint job,
                                double *seconds)
{
  PmappingJob *j;
  FfmTemplateResult *r;
  GBytes *bytes;

  g_return_val_if_fail (job < jobs->jobs->len, NULL);
  j = g_ptr_array_index (jobs->jobs, job);
  r = g_ptr_array_index (j->pm->results, j->template_id);
  if (!j->searched && !ffm_pmapping_options_is_cancelled (&jobs->set->options)
      && !pmapping_set_failed (jobs->set))
    {
      const FfmPmappingTemplate *t = g_ptr_array_index (j->pm->templates,
                                                        j->template_id);
      FfmTileWorkspace *ws = g_async_queue_pop (jobs->set->workspaces);
      FFM_TSAN_ACQUIRE (ws);
      ffm_pmapping_template_enumerate (jobs->set->workload, jobs->set->arch, t,
                                       &jobs->set->options, jobs->set->untracked_early,
                                       j->pm->joinable, NULL, ws, r);
      FFM_TSAN_RELEASE (ws);
      g_async_queue_push (jobs->set->workspaces, ws);
    }
  if (seconds != NULL)
    *seconds = r->seconds;
  bytes = ffm_template_result_to_bytes (r, ffm_arch_get_n_levels (jobs->set->arch));
  /* This process never merges: the rows live on in @bytes only. */
  g_ptr_array_index (j->pm->results, j->template_id)
    = ffm_template_result_new (ffm_arch_get_n_levels (jobs->set->arch));
  ffm_template_result_free (r);
  return bytes;
}

gboolean
ffm_pmapping_jobs_complete_from_bytes (FfmPmappingJobs *jobs, guint job,
                                       GBytes *bytes, GError **error)
{
  PmappingJob *j;
  FfmTemplateResult *r;

  g_return_val_if_fail (job < jobs->jobs->len, FALSE);
  j = g_ptr_array_index (jobs->jobs, job);
  r = g_ptr_array_index (j->pm->results, j->template_id);
  /* Its rows are held here until the Einsum's merge: charged. */
  r->budget = jobs->set->budget;
  if (!ffm_template_result_from_bytes (r, ffm_arch_get_n_levels (jobs->set->arch),
                                       bytes, error))
    {
      g_prefix_error (error, "the result of template %u of Einsum %s: ",
                      j->template_id, j->pm->e->name);
      return FALSE;
    }
  pmapping_set_check_template_result (jobs->set, j->pm, j->template_id, r);
  if (g_atomic_int_dec_and_test (&j->pm->pending))
    {
      einsum_pmappings_merge (j->pm);
      report_progress (jobs->set, j->pm, TRUE, TRUE);
    }
  else
    report_progress (jobs->set, j->pm, TRUE, FALSE);
  return TRUE;
}

/* ---- An Einsum's templates in waves ----
 *
 * Most templates of an Einsum make nothing its merge keeps: what another
 * template makes in the same compatibility group is better. So the jobs
 * of an Einsum run in waves of templates, by template index: the first
 * FIRST_WAVE_TEMPLATES, then as many again as all before (waves end at
 * FIRST_WAVE_TEMPLATES times a power of two). When a wave ends, the
 * thread that ended it adds its templates' rows to the Einsum's front
 * (ffm-einsum-front-private.h), in template order, and starts the next
 * wave, whose tile searches hold their partial vectors to that front.
 * What a template prunes so depends on the templates of the waves before
 * it alone, not on the threads: the pmappings are the same on any number
 * of threads. The rows a front beats are rows the Einsum's merge would
 * drop for a point of the same group (or for what drops it), so the
 * merged groups are the same, row for row. Einsums run side by side: a
 * thread idles at a wave's end only when no other Einsum has a job
 * ready. Off under a job runner (each process searches its jobs alone:
 * the same groups), without energy among the objectives, and under
 * FFM_DEBUG=no-einsum-front. */

/* TUNING: the first wave's templates (the others double). A user's
 * 16 x 16 PE chip x 2 matmuls m = kn = 256 (1,771 templates per Einsum):
 * see docs/pmapping-generator.md. */
#define FIRST_WAVE_TEMPLATES 8u

typedef struct {
  FfmPmappingSet *set;
  GThreadPool *pool;        /* NULL: the calling thread runs the jobs */
  GQueue ready;             /* without a pool: the jobs to run, in order */
  GMutex lock;
  GCond all_done;
  gint n_left;              /* (atomic) jobs not ended */
  guint first_wave;         /* templates of an Einsum's first wave */
} JobRun;

static guint
wave_end_after (guint begin, guint first, guint n_templates)
{
  return MIN (n_templates, begin + MAX (first, begin));
}

/* Jobs run in the list's order, each as soon as its wave has begun: an
 * Einsum's next wave goes before the later Einsums' jobs, so that the
 * Einsums end (and give back their templates' rows) about one after the
 * other, as they would without waves; the others fill a wave's end. */
static gint
job_position_compare (gconstpointer a, gconstpointer b, gpointer user_data)
{
  guint x = ((const PmappingJob *) a)->position, y = ((const PmappingJob *) b)->position;

  return x < y ? -1 : x > y;
}

static void
job_run_submit (JobRun *run, PmappingJob *job)
{
  if (run->pool == NULL)
    {
      g_queue_insert_sorted (&run->ready, job, job_position_compare, NULL);
      return;
    }
  FFM_TSAN_RELEASE (job);
  g_thread_pool_push (run->pool, job, NULL);
}

/* The wave of @pm that just ended joins its front; the next begins (its
 * jobs submitted), or, after the last, the front is freed. */
static void
einsum_next_wave (JobRun *run, FfmEinsumPmappings *pm)
{
  guint begin, end;

  if (pm->wave_end >= pm->templates->len)
    {
      g_clear_pointer (&pm->front, ffm_einsum_front_free);
      return;
    }
  /* (after a failure or a cancel the later jobs skip: no front needed) */
  for (guint t = pm->wave_begin; t < pm->wave_end && !pmapping_set_failed (run->set)
                                 && !ffm_pmapping_options_is_cancelled (&run->set->options); t++)
    {
      const FfmTemplateResult *r = g_ptr_array_index (pm->results, t);
      for (guint k = 0; k < r->groups->len; k++)
        {
          const FfmTemplateGroup *g = g_ptr_array_index (r->groups, k);
          ffm_einsum_front_add_rows (pm->front, &g->compat,
                                     (const FfmPmappingColumn *) g->columns->data,
                                     g->n_columns, TEMPLATE_GROUP_VALUES (g), g->n_rows);
        }
    }
  end = wave_end_after (pm->wave_end, run->first_wave, pm->templates->len);
  g_debug ("Einsum %s: templates %u-%u searched with %u points of those before",
           pm->e->name, pm->wave_end, end - 1, ffm_einsum_front_get_n_points (pm->front));
  begin = pm->wave_begin = pm->wave_end;
  pm->wave_end = end;
  g_atomic_int_set (&pm->wave_pending, (gint) (end - begin));
  for (guint t = begin; t < end; t++)
    job_run_submit (run, g_ptr_array_index (pm->jobs, t));
}

static void
run_job_in_waves (gpointer data, gpointer user_data)
{
  PmappingJob *job = data;
  JobRun *run = user_data;
  FfmEinsumPmappings *pm;
  FfmPmappingSet *set;
  gboolean pooled;

  /* What the submitter wrote before the hand-off (ffm-tsan.h). */
  FFM_TSAN_ACQUIRE (job);
  pm = job->pm;
  set = run->set;
  pooled = run->pool != NULL;
  run_template_job (job, set);
  if (pm->front != NULL && g_atomic_int_dec_and_test (&pm->wave_pending))
    einsum_next_wave (run, pm);
  /* (once the count is 0 the caller may go on: @run is read no more) */
  if (g_atomic_int_dec_and_test (&run->n_left) && pooled)
    {
      g_mutex_lock (&run->lock);
      g_cond_signal (&run->all_done);
      g_mutex_unlock (&run->lock);
    }
  /* What this job wrote, the waves' fronts included (ffm-tsan.h). */
  FFM_TSAN_RELEASE (jobs_done_key (set));
}

/* Runs @list (each Einsum's jobs in template order) on @n_threads, each
 * Einsum's templates in waves where it has a front. */
static void
run_jobs (FfmPmappingJobs *jobs, GPtrArray *list)
{
  FfmPmappingSet *set = jobs->set;
  JobRun run = { .set = set };
  g_autoptr(GPtrArray) first = g_ptr_array_new ();
  gboolean fronts = (set->options.objectives & FFM_PMAPPING_ENERGY)
    && !ffm_debug_flag_is_set (FFM_DEBUG_NO_EINSUM_FRONT);

  if (list->len == 0)
    return;
  g_queue_init (&run.ready);
  g_mutex_init (&run.lock);
  g_cond_init (&run.all_done);
  run.n_left = (gint) list->len;
  run.first_wave = (guint) MAX (1, ffm_debug_flag_get_uint (FFM_DEBUG_EINSUM_FRONT_FIRST_WAVE,
                                                            FIRST_WAVE_TEMPLATES));
  if (jobs->n_threads > 1 && list->len > 1)
    {
      run.pool = g_thread_pool_new (run_job_in_waves, &run, (gint) jobs->n_threads, TRUE, NULL);
      g_thread_pool_set_sort_function (run.pool, job_position_compare, NULL);
    }
  for (guint i = 0; i < list->len; i++)
    {
      PmappingJob *job = g_ptr_array_index (list, i);
      FfmEinsumPmappings *pm = job->pm;
      job->position = i;
      if (job->template_id == 0)
        {
          pm->wave_begin = 0;
          pm->wave_end = pm->templates->len;
          if (fronts && pm->templates->len > run.first_wave)
            {
              pm->front = ffm_einsum_front_new (set->budget);
              pm->wave_end = run.first_wave;
            }
          g_atomic_int_set (&pm->wave_pending, (gint) pm->wave_end);
        }
    }
  /* (the first waves are all chosen before a job runs: once one runs, its
   * Einsum's state moves on) */
  for (guint i = 0; i < list->len; i++)
    {
      PmappingJob *job = g_ptr_array_index (list, i);
      if (job->template_id < job->pm->wave_end)
        g_ptr_array_add (first, job);
    }
  for (guint i = 0; i < first->len; i++)
    job_run_submit (&run, g_ptr_array_index (first, i));
  if (run.pool == NULL)
    {
      PmappingJob *job;
      while ((job = g_queue_pop_head (&run.ready)) != NULL)
        run_job_in_waves (job, &run);
    }
  else
    {
      g_mutex_lock (&run.lock);
      while (g_atomic_int_get (&run.n_left) > 0)
        g_cond_wait (&run.all_done, &run.lock);
      g_mutex_unlock (&run.lock);
      g_thread_pool_free (run.pool, FALSE, TRUE);
      /* What every job wrote (ffm-tsan.h). */
      FFM_TSAN_ACQUIRE (jobs_done_key (set));
    }
  g_mutex_clear (&run.lock);
  g_cond_clear (&run.all_done);
}

/* Phase 2 in two waves of Einsums (above), on the thread pool. */
static void
run_in_waves (FfmPmappingJobs *jobs)
{
  g_autoptr(GPtrArray) first = g_ptr_array_new ();
  g_autoptr(GPtrArray) second = g_ptr_array_new ();
  g_autoptr(GBytes) parts = NULL;

  for (guint i = 0; i < jobs->jobs->len; i++)
    g_ptr_array_add (i < jobs->n_first ? first : second, g_ptr_array_index (jobs->jobs, i));
  run_jobs (jobs, first);
  if (jobs->n_first > 0)
    parts = ffm_pmapping_jobs_begin_second_wave (jobs);
  run_jobs (jobs, second);
}

/* Phases 3 (the Einsums reused) and 4, once every job ran. */
static FfmPmappingSet *
jobs_finish (FfmPmappingJobs *jobs, GError **error)
{
  FfmPmappingSet *set = jobs->set;
  guint n_levels = ffm_arch_get_n_levels (set->arch);

  g_clear_pointer (&set->workspaces, g_async_queue_unref);
  if (set->failure != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&set->failure));
      return NULL;
    }
  if (ffm_pmapping_options_is_cancelled (&set->options))
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_CANCELLED,
                   "pmapping generation cancelled after %.1f s",
                   (double) (g_get_monotonic_time () - jobs->start) / G_USEC_PER_SEC);
      return NULL;
    }
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      if (pm->same_as == NULL)
        continue;
      einsum_pmappings_copy (pm, pm->same_as);
      if (!einsum_pmappings_charge_copy (set, pm, pm->same_as))
        {
          g_propagate_error (error, g_steal_pointer (&set->failure));
          return NULL;
        }
    }
  if (set->options.drop_unjoinable && set->options.einsum < 0)
    pmapping_set_drop_unjoinable_groups (set);
  /* An Einsum with no pmapping at all first: it leaves its neighbours none
   * to fuse with, and the error must name it, not a neighbour whose groups
   * were dropped for that reason. */
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      FfmEinsumPmappings *src = pm->same_as != NULL ? pm->same_as : pm;
      if (pm->groups->len == 0 && (pm->n_groups_unjoinable > 0 || src->n_unjoinable > 0))
        continue;
      if (pm->groups->len == 0 && pm->stats.n_templates_cut > 0)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                       "Einsum %s: no pmapping found in what the limits left "
                       "(%u of its templates cut by --max-template-seconds or "
                       "--max-templates); raise or drop them", pm->e->name,
                       pm->stats.n_templates_cut);
          return NULL;
        }
      if (pm->groups->len == 0)
        {
          pmapping_set_no_pmapping_error (set, pm, error);
          if (error != NULL && *error != NULL
              && ffm_bound_constraints_restrict_einsum (set->constraints, pm->einsum))
            {
              g_autofree char *list = ffm_bound_constraints_describe_einsum (set->constraints,
                                                                             pm->einsum);
              g_prefix_error (error, "under the mapping constraints %s: ", list);
              (*error)->domain = FFM_CONSTRAINTS_ERROR;
              (*error)->code = FFM_CONSTRAINTS_ERROR_UNSATISFIABLE;
            }
          return NULL;
        }
    }
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      if (pm->groups->len == 0)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                       "Einsum %s: none of its pmappings can be fused with those of "
                       "the Einsums that share its tensors (they never agree on a "
                       "shared tensor's memory and fused loops)%s; nothing to join",
                       pm->e->name, set->constraints != NULL
                       ? ": the mapping constraints may be what keeps them apart" : "");
          return NULL;
        }
    }

  /* Phase 4: tracked memories. */
  for (guint l = 0; l < n_levels; l++)
    if (pmapping_set_memory_is_tracked (set, l))
      g_array_append_val (set->tracked, l);
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      pmapping_set_drop_untracked (set, pm);
      einsum_pmappings_compact_tiles (pm);
      einsum_pmappings_recharge (pm);
      g_ptr_array_unref (pm->results);
      pm->results = NULL;
      pm->stats.n_groups = pm->groups->len;
      for (guint k = 0; k < pm->groups->len; k++)
        pm->stats.n_rows += ((EinsumGroup *) g_ptr_array_index (pm->groups, k))->refs->len;
    }
  set->seconds = (double) (g_get_monotonic_time () - jobs->start) / G_USEC_PER_SEC;
  jobs->set = NULL;
  return set;
}

FfmPmappingSet *
ffm_pmappings_generate (FfmWorkload *workload, FfmArch *arch,
                        const FfmPmappingOptions *options, GError **error)
{
  g_autoptr(FfmPmappingJobs) jobs = ffm_pmapping_jobs_new (workload, arch,
                                                           options, error);

  if (jobs == NULL)
    return NULL;
  /* Phase 2: tiles; phase 3: merges (by each Einsum's last template),
   * here or, with a job runner, wherever it sends the jobs. */
  if (job_runner != NULL && jobs->jobs->len > 0)
    {
      if (!job_runner (jobs, job_runner_data, error))
        return NULL;
    }
  else
    run_in_waves (jobs);
  return jobs_finish (jobs, error);
}

