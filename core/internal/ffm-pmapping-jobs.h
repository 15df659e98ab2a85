/* ffm-pmapping-jobs.h: the pmapping generator's jobs, for running them in
 * other processes (an internal header, docs/layout.md: not installed, not
 * part of the plugin API).
 *
 * ffm_pmappings_generate() builds one job per (Einsum, template) (phase 1),
 * runs them (phase 2: the tile search; phase 3: each Einsum's merge by its
 * last job) and finishes the set (phase 4). A job runner set with
 * ffm_pmapping_set_job_runner() replaces phase 2's thread pool: it may run
 * some jobs here (ffm_pmapping_jobs_run()) and hand others to processes
 * that built the same jobs from the same workload, architecture and
 * options (ffm_pmapping_jobs_new()), ran them with
 * ffm_pmapping_jobs_run_to_bytes() and sent back the bytes, which
 * ffm_pmapping_jobs_complete_from_bytes() puts where the job's result
 * would have been. A job's result does not depend on where or when it ran,
 * and every merge runs in template order, so the set is the same bit for
 * bit. The bytes are a flat copy of the job's Pareto groups (compatibility,
 * columns, values, tiles) for processes of the same ffm build and
 * machine type (their sizes are checked). The MPI runner of `ffm map` is
 * cli/ffm-cli-mpi.c. */
#pragma once

#include <ffm/ffm-pmapping.h>

G_BEGIN_DECLS

typedef struct _FfmPmappingJobs FfmPmappingJobs;

/* Runs every job of @jobs (each exactly once: here with
 * ffm_pmapping_jobs_run(), or elsewhere and then
 * ffm_pmapping_jobs_complete_from_bytes()), or fails with @error. Called
 * on the thread that called ffm_pmappings_generate(). */
typedef gboolean (*FfmPmappingJobRunner) (FfmPmappingJobs *jobs,
                                          gpointer user_data,
                                          GError **error);

/* Every later ffm_pmappings_generate() of this process runs its jobs with
 * @runner (NULL: the thread pool again). Set it before any generation
 * starts. */
FFM_API void ffm_pmapping_set_job_runner (FfmPmappingJobRunner runner,
                                          gpointer user_data);

/* Phase 1 alone: the jobs of a generation, ready to run. (transfer full) */
FFM_API FfmPmappingJobs *ffm_pmapping_jobs_new (FfmWorkload *workload,
                                                FfmArch *arch,
                                                const FfmPmappingOptions *options,
                                                GError **error);
FFM_API void ffm_pmapping_jobs_free (FfmPmappingJobs *jobs);

FFM_API guint ffm_pmapping_jobs_get_n_jobs (const FfmPmappingJobs *jobs);
/* The options' threads (one per processor when they say 0). */
FFM_API guint ffm_pmapping_jobs_get_n_threads (const FfmPmappingJobs *jobs);
/* The options the jobs were built with (transfer none). */
FFM_API const FfmPmappingOptions *ffm_pmapping_jobs_get_options (const FfmPmappingJobs *jobs);
/* A hash of the job list (in order, each job's template and all the
 * generator reads of its Einsum and the architecture): processes with
 * equal fingerprints built the same jobs from the same inputs. */
FFM_API guint64 ffm_pmapping_jobs_get_fingerprint (const FfmPmappingJobs *jobs);
/* The name of job @job's Einsum (transfer none), and its template. */
FFM_API const char *ffm_pmapping_jobs_describe (const FfmPmappingJobs *jobs,
                                                guint job,
                                                guint *template_id);

/* Waves (options.drop_unjoinable, every Einsum): jobs [0, n) are the
 * first wave, the Einsums with no tensor of their own; the parts of
 * shared tensors their pmappings have limit what the later Einsums keep.
 * A runner completes every job of the first wave (here, or elsewhere and
 * then ffm_pmapping_jobs_complete_from_bytes()), then calls
 * ffm_pmapping_jobs_begin_second_wave() before it runs any later job
 * here, and hands the bytes it returns to every other process's jobs
 * (ffm_pmapping_jobs_set_second_wave()) before they run a later job. The
 * jobs of either wave run in any order; the set is that of the thread
 * pool, bit for bit. 0: one wave, no call needed. */
FFM_API guint ffm_pmapping_jobs_get_n_first_wave (const FfmPmappingJobs *jobs);
/* Once the first wave is complete here: the later Einsums' parts, set
 * here, and as bytes for the other processes (transfer full; the bytes
 * say "no parts" when the generation failed or was cancelled: the later
 * jobs then skip). Called once. */
FFM_API GBytes *ffm_pmapping_jobs_begin_second_wave (FfmPmappingJobs *jobs);
/* The parts of ffm_pmapping_jobs_begin_second_wave() in a process with the
 * same jobs, before it runs a later job. Fails, saying why, when the bytes
 * are not such parts, or when they do not fit the memory budget. Called
 * once. */
FFM_API gboolean ffm_pmapping_jobs_set_second_wave (FfmPmappingJobs *jobs,
                                                    GBytes *bytes,
                                                    GError **error);

/* Runs job @job here, merging its Einsum when it is the last one (as the
 * thread pool does). Thread-safe for distinct jobs. */
FFM_API void ffm_pmapping_jobs_run (FfmPmappingJobs *jobs, guint job);
/* Runs job @job for another process and returns its result as bytes
 * (transfer full); @seconds, if not NULL, gets the tile search's time.
 * Thread-safe for distinct jobs. */
FFM_API GBytes *ffm_pmapping_jobs_run_to_bytes (FfmPmappingJobs *jobs,
                                                guint job,
                                                double *seconds);
/* Job @job's result from the bytes of ffm_pmapping_jobs_run_to_bytes() in
 * a process with the same jobs; merges its Einsum when it is the last one.
 * Fails, naming the job, when the bytes are not such a result. Safe while
 * other threads run other jobs. */
FFM_API gboolean ffm_pmapping_jobs_complete_from_bytes (FfmPmappingJobs *jobs,
                                                        guint job,
                                                        GBytes *bytes,
                                                        GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmPmappingJobs, ffm_pmapping_jobs_free)

G_END_DECLS
