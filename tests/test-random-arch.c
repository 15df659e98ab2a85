/* test-random-arch.c: random architectures as a property test.
 *
 * Random valid architectures x random small workloads (random-arch.h:
 * 1-8 memory levels, random keep / may_keep sets, per-tensor memories side
 * by side, 0-3 fanouts of 1-4 dimensions, random sizes and bandwidths;
 * 1-3 Einsums of up to 7 rank variables) are searched by the ffm strategy
 * (EDP, one thread) under a memory budget of 64 MiB, each in a child
 * process of its own so that one case's abort names its seed and the
 * others still run. Every case must end in one of these ways:
 *
 *   - mappings, each of which re-evaluates with the cost model to exactly
 *     the energy and latency the strategy reported, fits, and shows no
 *     mismatch between the pmappings' costs and the full model;
 *   - the budget's error (FFM_SEARCH_ERROR_OUT_OF_MEMORY, naming it);
 *   - infeasible (FFM_SEARCH_ERROR_INFEASIBLE: a memory that must keep a
 *     tensor cannot hold one value of it, or the generator's own limits);
 *   - the generator's refusal naming the Einsum (FFM_MAPPING_ERROR: no
 *     pmapping fits a memory, a template past the cost model's limit of
 *     loops; docs/limits.md);
 *   - cancelled after FFM_RANDOM_ARCH_SECONDS of CPU time (default 0.3),
 *     as Ctrl-C and --timeout do: the best mapping so far (checked as
 *     above) or the cancellation's error. A search still running 30 s of
 *     CPU after it was cancelled fails.
 *
 * and its peak resident memory must stay within twice the budget plus
 * what the process holds before it searches (sanitizer builds excepted):
 * past the budget, the budget's error, never more memory. A GLib warning
 * or critical, an abort or a crash fails the case; the test then prints
 * every failing seed with its two JSON files (random-arch.h).
 *
 * The generator's known defects (docs/pmapping-generator.md, and the
 * architecture issue's part B) are listed below by seed: those cases must
 * still fail as recorded, so that the list is pruned when they are fixed.
 *
 * The small ones are also compared with exhaustive search, to the last
 * bit, in test-ffm-optimality.c (/ffm/optimality/random-arch).
 *
 * FFM_RANDOM_ARCH_CASES=N (default 300; /random-arch/many, in the suite
 * 'slow', 3000),
 * FFM_RANDOM_ARCH_SEED=S (the first seed, default 1, /random-arch/many's
 * 1001; case i uses S + i),
 * FFM_RANDOM_ARCH_SECONDS=T (per case, before cancelling),
 * FFM_RANDOM_ARCH_VERBOSE=1 prints one line per case,
 * FFM_RANDOM_ARCH_DUMP=DIR writes every case's JSON files there (with
 * FFM_RANDOM_ARCH_DUMP_ONLY=1 too, nothing is searched: for
 * `ffm map --arch DIR/seed-S-arch.json --workload DIR/seed-S-workload.json`). */
#include <ffm/ffm.h>

#include "random-arch.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#define DEFAULT_CASES 100
#else
#define SANITIZED 0
#define DEFAULT_CASES 300
#endif
#define BUDGET ((guint64) 64 << 20)

/* How a child ended (its exit status). */
enum {
  CASE_MAPPED = 0,
  CASE_OUT_OF_MEMORY = 10,
  CASE_INFEASIBLE = 11,
  CASE_CANCELLED = 12,
  CASE_REFUSED = 13,        /* the generator's clear refusal naming the Einsum:
                               no pmapping fits, or a template past its limit
                               of loops */
  CASE_WRONG = 20,          /* a mapping that does not re-evaluate, or an unclear error */
  CASE_HUNG = 21,           /* still running long after it was cancelled */
};

/* The generator's known defects, by seed: each must still fail (a
 * signal, or a wrong mapping or an unclear error), so that the list is
 * pruned when they are fixed. Seeds 8, 47 and 51 (two compute units
 * serving one Einsum: einsum_pmappings_merge's columns), 78, 126 and 206
 * (build_with_plan's fixed item array) and 3149 (the join hoisted an inner
 * copy of a weight above the split without its outer copy) were here and
 * are fixed. Ended by { 0, NULL }. */
static const struct {
  guint64 seed;
  const char *defect;
} known[] = {
  { 0, NULL },
};

static const FfmPluginInfo *ffm_strategy;

/* Set in the child running a case when it has used its CPU time
 * (SIGPROF): the search's cancel flag, as Ctrl-C and --timeout set it in
 * `ffm`. CPU time rather than wall time, so that a loaded machine cancels
 * the same cases as an idle one. */
static gint cancel_flag;

static void
on_cpu_limit (int sig)
{
  struct itimerval again = { { 0, 0 }, { 30, 0 } };

  (void) sig;
  if (!g_atomic_int_get (&cancel_flag))
    {
      g_atomic_int_set (&cancel_flag, 1);
      setitimer (ITIMER_PROF, &again, NULL);   /* ignoring the flag: stopped */
    }
  else
    _exit (CASE_HUNG);
}

/* A search that waits for ever uses no CPU: stopped by the wall clock. */
static void
on_alarm (int sig)
{
  (void) sig;
  _exit (CASE_HUNG);
}

static guint64
env_u64 (const char *name, guint64 fallback)
{
  const char *v = g_getenv (name);

  return v != NULL && *v != '\0' ? g_ascii_strtoull (v, NULL, 10) : fallback;
}

static const char *
known_defect (guint64 seed)
{
  for (guint i = 0; known[i].defect != NULL; i++)
    if (known[i].seed == seed)
      return known[i].defect;
  return NULL;
}

/* Every solution re-evaluates to what was reported, fits, and the
 * pmappings' costs matched the full model. */
static gboolean
mappings_ok (FfmProblem *problem, const FfmSearchResult *result, GString *why)
{
  double mismatches = -1;

  if (ffm_search_result_get_n_solutions (result) == 0)
    {
      g_string_append (why, "a result without a mapping");
      return FALSE;
    }
  if (!ffm_search_result_lookup_stat (result, "model_mismatches", &mismatches)
      || mismatches != 0)
    {
      g_string_append_printf (why, "%g mismatches between the pmappings' costs and "
                              "the full model", mismatches);
      return FALSE;
    }
  for (guint i = 0; i < ffm_search_result_get_n_solutions (result); i++)
    {
      const FfmSolution *s = ffm_search_result_get_solution (result, i);
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmCostReport) report =
        ffm_cost_evaluate_mapping (ffm_problem_get_workload (problem),
                                   ffm_problem_get_arch (problem), s->mapping, &error);
      if (report == NULL || !ffm_cost_report_fits (report)
          || ffm_cost_report_get_energy (report) != s->energy
          || ffm_cost_report_get_latency (report) != s->latency
          || !(s->energy > 0) || !isfinite (s->energy) || !(s->latency > 0))
        {
          g_string_append_printf (why, "the mapping found (energy %.17g, latency %.17g) "
                                  "re-evaluates to %.17g, %.17g (%s)", s->energy,
                                  s->latency,
                                  report != NULL ? ffm_cost_report_get_energy (report) : NAN,
                                  report != NULL ? ffm_cost_report_get_latency (report) : NAN,
                                  report == NULL ? error->message
                                  : ffm_cost_report_fits (report) ? "fits" : "does not fit");
          return FALSE;
        }
    }
  return TRUE;
}

/* The child: searches the case and exits with how it ended. */
static G_GNUC_NORETURN void
child_case (guint64 seed, double seconds)
{
  g_autoptr (FfmWorkload) w = NULL;
  g_autoptr (FfmArch) a = NULL;
  g_autoptr (FfmProblem) problem = NULL;
  g_autoptr (FfmSearchResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) why = g_string_new (NULL);
  FfmSearchContext ctx;
  int status;

  random_arch_problem_make (seed, RANDOM_ARCH_ANY, &w, &a);
  problem = ffm_problem_new (w, a);
  ffm_search_context_init (&ctx, problem);
  ctx.objective = FFM_OBJECTIVE_EDP;
  ctx.n_threads = 1;
  ctx.max_memory = BUDGET;
  ctx.cancel = &cancel_flag;
  {
    struct itimerval limit = { { 0, 0 }, { (time_t) seconds,
                                           (suseconds_t) ((seconds - floor (seconds)) * 1e6) } };
    signal (SIGPROF, on_cpu_limit);
    signal (SIGALRM, on_alarm);
    setitimer (ITIMER_PROF, &limit, NULL);
    alarm ((guint) (seconds * 20 + 120));
  }
  result = ffm_strategy->descriptor->vtable.search->run (&ctx, NULL, &error);
  {
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer (ITIMER_PROF, &off, NULL);
    alarm (0);
  }
  if (result != NULL)
    status = !mappings_ok (problem, result, why) ? CASE_WRONG
      : g_atomic_int_get (&cancel_flag) ? CASE_CANCELLED : CASE_MAPPED;
  else if (g_error_matches (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY)
           && strstr (error->message, "budget") != NULL)
    status = CASE_OUT_OF_MEMORY;
  else if (g_error_matches (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE))
    status = CASE_INFEASIBLE;
  else if (g_error_matches (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_CANCELLED)
           && g_atomic_int_get (&cancel_flag))
    status = CASE_CANCELLED;
  else if (error->domain == FFM_MAPPING_ERROR && g_str_has_prefix (error->message, "Einsum "))
    status = CASE_REFUSED;
  else
    {
      g_string_append_printf (why, "neither a mapping nor the budget's, an infeasible "
                              "problem's, a cancellation's or the generator's error "
                              "naming the Einsum: %s", error->message);
      status = CASE_WRONG;
    }
  if (status == CASE_WRONG)
    g_printerr ("seed %" G_GUINT64_FORMAT ": %s\n", seed, why->str);
  if (g_getenv ("FFM_RANDOM_ARCH_VERBOSE") != NULL)
    g_printerr ("seed %" G_GUINT64_FORMAT ": %u Einsums, %u levels: status %d%s%s\n", seed,
                ffm_workload_get_n_einsums (w), ffm_arch_get_n_levels (a), status,
                error != NULL ? ": " : "", error != NULL ? error->message : "");
  fflush (stderr);
  _exit (status);
}

typedef struct {
  guint counts[5];          /* mapped, out of memory, infeasible, cancelled, refused */
  guint known_failed;
  GString *failures;        /* one line per failing seed */
  GString *fixed;           /* known defects that no longer fail */
  double worst_rss_mib;
  guint64 worst_rss_seed;
  double cpu;               /* seconds, the children's */
} Tally;

static void
dump_case (GString *out, guint64 seed)
{
  g_autofree char *wj = NULL, *aj = NULL;

  random_arch_problem_text (seed, RANDOM_ARCH_ANY, &wj, &aj);
  g_string_append_printf (out, "  workload:\n%s\n  architecture:\n%s\n", wj, aj);
}

/* Writes the case's files when asked; TRUE when it is only to be written. */
static gboolean
dump_files (guint64 seed)
{
  g_autofree char *wj = NULL, *aj = NULL;
  g_autofree char *wp = NULL, *ap = NULL;

  if (g_getenv ("FFM_RANDOM_ARCH_DUMP") == NULL)
    return FALSE;
  wp = g_strdup_printf ("%s/seed-%" G_GUINT64_FORMAT "-workload.json",
                        g_getenv ("FFM_RANDOM_ARCH_DUMP"), seed);
  ap = g_strdup_printf ("%s/seed-%" G_GUINT64_FORMAT "-arch.json",
                        g_getenv ("FFM_RANDOM_ARCH_DUMP"), seed);
  random_arch_problem_text (seed, RANDOM_ARCH_ANY, &wj, &aj);
  g_file_set_contents (wp, wj, -1, NULL);
  g_file_set_contents (ap, aj, -1, NULL);
  return g_getenv ("FFM_RANDOM_ARCH_DUMP_ONLY") != NULL;
}

static pid_t
start_case (guint64 seed, double seconds)
{
  pid_t pid;

  fflush (stdout);
  fflush (stderr);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  /* a known defect runs to its end, so that it fails the same way however
   * fast the machine is */
  if (pid == 0)
    child_case (seed, known_defect (seed) != NULL ? 600 : seconds);
  return pid;
}

/* Classifies the case of @seed, whose child ended with @wstatus, @ru. */
static void
finish_case (guint64 seed, int wstatus, const struct rusage *ru, double base_rss_mib,
             Tally *t)
{
  const char *defect = known_defect (seed);
  gboolean failed = FALSE;
  double rss;

  rss = (double) ru->ru_maxrss / 1024;
  t->cpu += (double) ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6
    + (double) ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
  if (g_getenv ("FFM_RANDOM_ARCH_VERBOSE") != NULL)
    g_printerr ("seed %" G_GUINT64_FORMAT ": CPU %.2f s, peak %.0f MiB\n", seed,
                (double) ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6, rss);
  if (rss > t->worst_rss_mib)
    {
      t->worst_rss_mib = rss;
      t->worst_rss_seed = seed;
    }
  if (WIFSIGNALED (wstatus))
    {
      failed = TRUE;
      if (defect == NULL)
        g_string_append_printf (t->failures, "seed %" G_GUINT64_FORMAT ": ended by signal "
                                "%d (an assertion, a critical or a crash; its message "
                                "is above)\n", seed, WTERMSIG (wstatus));
    }
  else
    switch (WEXITSTATUS (wstatus))
      {
      case CASE_MAPPED:
        t->counts[0]++;
        break;
      case CASE_OUT_OF_MEMORY:
        t->counts[1]++;
        break;
      case CASE_INFEASIBLE:
        t->counts[2]++;
        break;
      case CASE_CANCELLED:
        t->counts[3]++;
        break;
      case CASE_REFUSED:
        t->counts[4]++;
        break;
      case CASE_HUNG:
        failed = TRUE;
        if (defect == NULL)
          g_string_append_printf (t->failures, "seed %" G_GUINT64_FORMAT ": still running "
                                  "30 s after it was cancelled\n", seed);
        break;
      default:
        failed = TRUE;
        if (defect == NULL)
          g_string_append_printf (t->failures, "seed %" G_GUINT64_FORMAT ": %s (exit %d; "
                                  "the reason is above)\n", seed,
                                  WEXITSTATUS (wstatus) == CASE_WRONG
                                  ? "a wrong mapping or an unclear error" : "failed",
                                  WEXITSTATUS (wstatus));
        break;
      }
  if (!failed && !SANITIZED && rss > base_rss_mib + 2.0 * (double) (BUDGET >> 20))
    {
      failed = TRUE;
      g_string_append_printf (t->failures, "seed %" G_GUINT64_FORMAT ": peak resident "
                              "memory %.0f MiB, more than twice the budget of %.0f MiB "
                              "past the %.0f MiB held before the search\n", seed, rss,
                              (double) (BUDGET >> 20), base_rss_mib);
    }
  if (defect != NULL)
    {
      if (failed)
        t->known_failed++;
      else
        g_string_append_printf (t->fixed, " %" G_GUINT64_FORMAT, seed);
      return;
    }
  if (failed)
    dump_case (t->failures, seed);
}

static void
run_cases (guint64 n, guint64 first)
{
  const char *seconds_s = g_getenv ("FFM_RANDOM_ARCH_SECONDS");
  double seconds = seconds_s != NULL ? g_ascii_strtod (seconds_s, NULL) : 0.3;
  struct rusage ru;
  Tally t = { { 0 }, 0, NULL, NULL, 0, 0, 0 };
  double base;

  g_test_summary ("Random architectures x random workloads: a mapping that "
                  "re-evaluates exactly, the budget's error or infeasible, within "
                  "the budget; never an abort, a critical or an unclear error");
  getrusage (RUSAGE_SELF, &ru);
  base = (double) ru.ru_maxrss / 1024;
  t.failures = g_string_new (NULL);
  t.fixed = g_string_new (NULL);
  /* the cases in parallel, one child per processor (at most 4) */
  {
    guint parallel = CLAMP (g_get_num_processors (), 1, 4);
    g_autoptr (GHashTable) running = g_hash_table_new (NULL, NULL);   /* pid -> seed index */
    guint64 next = 0;

    while (next < n || g_hash_table_size (running) > 0)
      {
        struct rusage cru;
        int wstatus = 0;
        pid_t pid;

        while (next < n && g_hash_table_size (running) < parallel)
          {
            guint64 seed = first + next++;
            if (dump_files (seed))
              {
                t.counts[0]++;
                continue;
              }
            g_hash_table_insert (running, GINT_TO_POINTER (start_case (seed, seconds)),
                                 GSIZE_TO_POINTER ((gsize) (seed - first)));
          }
        if (g_hash_table_size (running) == 0)
          continue;
        pid = wait4 (-1, &wstatus, 0, &cru);
        g_assert_cmpint (pid, >, 0);
        if (!g_hash_table_contains (running, GINT_TO_POINTER (pid)))
          continue;
        finish_case (first + GPOINTER_TO_SIZE (g_hash_table_lookup (running,
                                                                   GINT_TO_POINTER (pid))),
                     wstatus, &cru, base, &t);
        g_hash_table_remove (running, GINT_TO_POINTER (pid));
      }
  }
  g_test_message ("%" G_GUINT64_FORMAT " cases: %u mapped, %u the budget's error, "
                  "%u infeasible, %u cancelled after %g s, %u refused by the generator "
                  "naming the Einsum, %u known generator defects; the largest peak "
                  "resident memory %.0f MiB (seed %" G_GUINT64_FORMAT "; %.0f MiB before "
                  "searching); %.1f s of CPU", n, t.counts[0], t.counts[1], t.counts[2],
                  t.counts[3], seconds, t.counts[4], t.known_failed, t.worst_rss_mib,
                  t.worst_rss_seed, base, t.cpu);
  if (t.fixed->len > 0)
    g_test_message ("known defects that no longer fail (remove them from the list in "
                    "test-random-arch.c):%s", t.fixed->str);
  if (t.failures->len > 0)
    g_test_message ("failing cases:\n%s", t.failures->str);
  g_assert_cmpuint (t.failures->len, ==, 0);
  g_assert_cmpuint (t.fixed->len, ==, 0);
  /* Most cases map, so that the checks of a mapping are not vacuous. */
  g_assert_cmpuint (t.counts[0], >, n / 2);
  g_string_free (t.failures, TRUE);
  g_string_free (t.fixed, TRUE);
}

/* The default suite's cases: seeds 1-300. */
static void
test_random_arch (void)
{
  run_cases (env_u64 ("FFM_RANDOM_ARCH_CASES", DEFAULT_CASES),
             env_u64 ("FFM_RANDOM_ARCH_SEED", 1));
}

/* The suite 'slow': ten times as many, other seeds. */
static void
test_random_arch_many (void)
{
  run_cases (env_u64 ("FFM_RANDOM_ARCH_CASES", DEFAULT_CASES * 10),
             env_u64 ("FFM_RANDOM_ARCH_SEED", 1001));
}

int
main (int argc, char **argv)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (GError) error = NULL;

  g_test_init (&argc, &argv, NULL);
  registry = ffm_plugin_registry_new ();
  ffm_plugin_registry_scan (registry);
  ffm_strategy = ffm_plugin_registry_lookup (registry, FFM_PLUGIN_KIND_SEARCH, "ffm", &error);
  g_assert_no_error (error);
  g_test_add_func ("/random-arch/ffm", test_random_arch);
  g_test_add_func ("/random-arch/many", test_random_arch_many);
  return g_test_run ();
}
