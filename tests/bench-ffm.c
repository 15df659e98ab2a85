/* bench-ffm.c: the ffm strategy's speed on the FFM paper's experiments.
 *
 *   gpt     GPT-3 6.7B, one layer, batch 64, 4096 tokens, on TPUv4i,
 *           objective EDP (the paper: 1.5 CPU-hours in Python; goal here:
 *           under 60 s wall on 2 cores and under 4 GiB peak memory);
 *   chains  matrix-multiplication chains of 1, 2, 4, ..., 64 Einsums
 *           (workload matmul-chain, the paper's Fig. 9) on TPUv4i, EDP:
 *           time per Einsum should stay flat;
 *   paper   the GPT-3 run at 1 and at 2 fused loops (FFM_BENCH_PAPER_LOOPS,
 *           default "1,2"), each mapping compared point by point with the
 *           paper's §7.6 description (paper-gpt3-mapping.h); not run
 *           unless FFM_BENCH=paper (minutes, GiBs);
 *   matrix  every architecture the arch models offer x {gpt3-6.7b batch 1 /
 *           2048 tokens, llama3-8b one decode step over 2047 cached tokens,
 *           resnet50, mobilenet-v3} at the defaults, each stopped after
 *           FFM_BENCH_MATRIX_SECONDS (default 120); goal: each under 60 s
 *           and 4 GiB. Not run unless FFM_BENCH=matrix (4.5 minutes with a
 *           90 s cap on 2 cores, 2026-12-04); FFM_BENCH_MATRIX_ARCHS
 *           (MODEL:NAME,...) runs those only, FFM_BENCH_MATRIX_LOOPS=N
 *           at --max-fused-loops N (-1 unlimited). Pairs where an Einsum is one
 *           no compute unit serves (the CiM macros serve only Einsums of
 *           three tensors) are counted apart from failures;
 *   long-chains  chains of 100, 400 and 1,000 matmuls on the edge chip, one
 *           thread: the time per Einsum against that at 100 (goal: within
 *           1.5x at 1,000). Not run unless FFM_BENCH=long-chains (10 s);
 *   deep    an 8 x 8 x 8 matmul below DRAM and six buffers of default
 *           may_keep (tests/hostile/arch/six-buffers.json, found through
 *           FFM_SOURCE_ROOT), EDP: goal under 10 s and 2 GiB.
 * Each run is a child process, so its peak memory is its own. Prints one
 * line per run: wall time, CPU time, peak resident memory, the result and
 * the strategy's phase times and join survivors, where the CPU time went
 * (the generation's phases and the join's passes, `ffm map --stats`'s
 * seconds_cpu_*), and the EDP with all its digits (to compare runs bit for
 * bit).
 *
 * FFM_BENCH=gpt|chains|paper|matrix|long-chains|deep selects one part (gpt, chains and
 * deep by default); FFM_BENCH_THREADS (default 2);
 * FFM_BENCH_MAX_CHAIN (default 64); FFM_BENCH_GPT_PARAMS overrides the
 * GPT parameters ("batch=64,new_tokens=4096"); FFM_BENCH_REUSE=0 sets the
 * strategy parameter reuse=false (every Einsum enumerated, even when it
 * equals an earlier one). Run with
 * `meson test -C BUILD --benchmark --suite bench` or directly. */
#include <ffm/ffm.h>

#include "paper-gpt3-mapping.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static guint
env_uint (const char *name, guint fallback)
{
  const char *v = g_getenv (name);

  return v != NULL && *v != '\0' ? (guint) g_ascii_strtoull (v, NULL, 10) : fallback;
}

static double
stat_or_zero (const FfmSearchResult *r, const char *name)
{
  double v = 0;

  ffm_search_result_lookup_stat (r, name, &v);
  return v;
}

/* Where the CPU time went (the strategy's seconds_cpu_* statistics): the
 * generation's phases summed over Einsums, the join's set-up and passes
 * summed over steps. */
static void
print_profile (const FfmSearchResult *r)
{
  const GArray *stats = ffm_search_result_get_stats (r);
  double dirty = 0, clean = 0;

  for (guint i = 0; i < stats->len; i++)
    {
      const FfmStat *st = &g_array_index (stats, FfmStat, i);
      if (g_str_has_prefix (st->name, "seconds_cpu_dirty_join_"))
        dirty += st->value;
      else if (g_str_has_prefix (st->name, "seconds_cpu_join_")
               && !g_str_equal (st->name, "seconds_cpu_join_units"))
        clean += st->value;
    }
  printf ("  CPU s: pmappings %.2f (templates %.2f, tile search %.2f: order %.2f, "
          "extend %.2f, partial pruning %.2f, leaves %.2f; groups %.2f), "
          "join units %.2f, dirty join %.2f, join %.2f\n",
          stat_or_zero (r, "seconds_cpu_pmappings"), stat_or_zero (r, "seconds_cpu_templates"),
          stat_or_zero (r, "seconds_cpu_tiles"), stat_or_zero (r, "seconds_cpu_order"),
          stat_or_zero (r, "seconds_cpu_extend"),
          stat_or_zero (r, "seconds_cpu_partial_pruning"),
          stat_or_zero (r, "seconds_cpu_leaves"), stat_or_zero (r, "seconds_cpu_groups"),
          stat_or_zero (r, "seconds_cpu_join_units"), dirty, clean);
}

/* run_one()'s exit status when an Einsum is one no compute unit of the
 * architecture serves (FFM_MAPPING_ERROR_UNSERVED): the pair is not one
 * the architecture runs, by its design; the matrix counts these apart. */
#define RUN_UNSERVED 3

/* Runs ffm on one problem and prints what it found (in the child);
 * @max_fused_loops: 0 for the default; @paper: also the §7.6 points. */
static int
run_one (const char *arch, const char *workload, const char *params, guint threads,
         int max_fused_loops, gboolean paper)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (FfmWorkload) w = NULL;
  g_autoptr (FfmArch) a = NULL;
  g_autoptr (FfmProblem) problem = NULL;
  g_autoptr (FfmSearchResult) result = NULL;
  g_autoptr (FfmParamValues) strategy = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) assignments = g_strsplit (params, ",", -1);
  const FfmPluginInfo *ffm;
  const FfmSolution *s;
  const GArray *stats;
  FfmSearchContext ctx;

  for (guint i = 0; assignments[i] != NULL; i++)
    if (*assignments[i] != '\0'
        && !ffm_param_values_parse_assignment (values, assignments[i], &error))
      break;
  ffm_plugin_registry_scan (registry);
  if (error == NULL)
    w = ffm_workload_load (workload, values, &error);
  if (w != NULL)
    a = ffm_plugin_registry_build_arch (registry, arch, NULL, &error);
  ffm = a != NULL ? ffm_plugin_registry_lookup (registry, FFM_PLUGIN_KIND_SEARCH,
                                                "ffm", &error) : NULL;
  if (ffm == NULL)
    {
      printf ("  error: %s\n", error->message);
      return 1;
    }
  problem = ffm_problem_new (w, a);
  ffm_search_context_init (&ctx, problem);
  ctx.objective = FFM_OBJECTIVE_EDP;
  ctx.n_threads = threads;
  if (max_fused_loops != 0)
    ctx.max_fused_loops = max_fused_loops;
  if (env_uint ("FFM_BENCH_REUSE", 1) == 0)
    ffm_param_values_set (strategy, "reuse", "false");
  result = ffm->descriptor->vtable.search->run (&ctx, strategy, &error);
  if (result == NULL)
    {
      printf ("  error: %s\n", error->message);
      return g_error_matches (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_UNSERVED)
        ? RUN_UNSERVED : 1;
    }
  s = ffm_search_result_get_solution (result, 0);
  printf ("  EDP %.6g J*s (energy %.6g J, latency %.6g s); phases: "
          "pmappings %.2f s, dirty join %.2f s, join %.2f s, rebuild %.3f s; "
          "pmappings %.0f (%.0f Einsums reused)\n", s->energy * s->latency, s->energy, s->latency,
          stat_or_zero (result, "seconds_pmappings"),
          stat_or_zero (result, "seconds_dirty_join"),
          stat_or_zero (result, "seconds_join"),
          stat_or_zero (result, "seconds_rebuild"),
          stat_or_zero (result, "pmappings_generated"),
          stat_or_zero (result, "einsums_reused"));
  stats = ffm_search_result_get_stats (result);
  printf ("  survivors:");
  for (guint i = 0; i < stats->len; i++)
    {
      const FfmStat *st = &g_array_index (stats, FfmStat, i);
      if (g_str_has_prefix (st->name, "join_survivors_"))
        printf (" %.0f", st->value);
    }
  printf ("\n");
  print_profile (result);
  /* All the digits, to compare runs bit for bit. */
  printf ("  EDP %.17g J*s\n", s->energy * s->latency);
  if (paper)
    {
      /* TPUv4i's 4 cores, each with its LocalBuffer (the paper's LLBs) */
      g_autoptr (GArray) points = paper_gpt3_points (s->mapping, w, 4);
      printf ("  the paper's §7.6 mapping, point by point:\n");
      for (guint i = 0; i < points->len; i++)
        {
          const PaperPoint *p = &g_array_index (points, PaperPoint, i);
          printf ("    [%s] %s\n           found: %s\n", p->holds ? "same" : "differs",
                  p->paper, p->found);
        }
    }
  fflush (stdout);
  return 0;
}

typedef struct {
  double wall;              /* s */
  double cpu;               /* s, user + system */
  double peak_mib;          /* MiB */
  int status;
} Measure;

/* Runs run_one() in a child process and measures it; @seconds > 0: the
 * child is stopped (SIGALRM) after that long, status -SIGALRM. */
static Measure
measure_arch (const char *arch, const char *workload, const char *params, guint threads,
              int max_fused_loops, gboolean paper, guint seconds)
{
  Measure m = { 0 };
  struct rusage ru;
  gint64 start = g_get_monotonic_time ();
  int wstatus = 0;
  pid_t pid;

  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    {
      if (seconds > 0)
        alarm (seconds);
      _exit (run_one (arch, workload, params, threads, max_fused_loops, paper));
    }
  wait4 (pid, &wstatus, 0, &ru);
  m.wall = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  m.cpu = (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6
    + (double) ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  m.peak_mib = (double) ru.ru_maxrss / 1024;
  m.status = WIFEXITED (wstatus) ? WEXITSTATUS (wstatus)
    : WIFSIGNALED (wstatus) ? -WTERMSIG (wstatus) : -1;
  return m;
}

static Measure
measure (const char *workload, const char *params, guint threads, int max_fused_loops,
         gboolean paper)
{
  return measure_arch ("tpuv4i", workload, params, threads, max_fused_loops, paper, 0);
}

static void
bench_gpt (guint threads)
{
  const char *params = g_getenv ("FFM_BENCH_GPT_PARAMS");
  Measure m;

  if (params == NULL)
    params = "batch=64,new_tokens=4096";
  /* the two goals: the default space (any number of fused
   * loops), 60 s and 8 GiB; one fused loop, 3 s and 2 GiB */
  for (int loops = 0; loops <= 1; loops++)
    {
      printf ("GPT-3 6.7B layer (%s), TPUv4i, EDP, %s, %u threads\n", params,
              loops == 0 ? "defaults" : "--max-fused-loops 1", threads);
      m = measure ("gpt3-6.7b", params, threads, loops, FALSE);
      printf ("  wall %.1f s, CPU %.1f s, peak memory %.0f MiB%s\n\n", m.wall, m.cpu,
              m.peak_mib, m.status == 0 ? "" : " (failed)");
    }
}

static void
bench_chains (guint threads)
{
  guint max = env_uint ("FFM_BENCH_MAX_CHAIN", 64);

  printf ("Matmul chains (matmul-chain), TPUv4i, EDP, %u threads\n", threads);
  printf ("%8s %10s %10s %14s %12s\n", "Einsums", "wall (s)", "CPU (s)",
          "wall/Einsum", "peak (MiB)");
  for (guint n = 1; n <= max; n *= 2)
    {
      g_autofree char *params = g_strdup_printf ("n_einsums=%u", n);
      Measure m = measure ("matmul-chain", params, threads, 0, FALSE);
      printf ("%8u %10.2f %10.2f %14.3f %12.0f%s\n", n, m.wall, m.cpu,
              m.wall / n, m.peak_mib, m.status == 0 ? "" : " (failed)");
      fflush (stdout);
    }
  printf ("\n");
}

/* Long chains on the edge chip (matmuls of 128 x 128, one thread): the
 * time per Einsum at 100, 400 and 1,000 against that at 100; the goal is
 * within 1.5x at 1,000 (the buffer is tracked from about 120 Einsums on,
 * and the join's rows then differ in what they reserve there). */
static void
bench_long_chains (void)
{
  static const guint lengths[] = { 100, 400, 1000 };
  double per_einsum_100 = 0;

  printf ("Long matmul chains (matmuls, m = kn = 128), edge, EDP, 1 thread\n");
  printf ("%8s %10s %10s %14s %12s %10s\n", "Einsums", "wall (s)", "CPU (s)",
          "wall/Einsum", "peak (MiB)", "vs 100");
  for (guint i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      g_autofree char *params = g_strdup_printf ("n_einsums=%u", lengths[i]);
      Measure m = measure_arch ("edge", "matmuls", params, 1, 0, FALSE, 0);
      double per_einsum = m.wall / lengths[i];
      if (lengths[i] == 100)
        per_einsum_100 = per_einsum;
      printf ("%8u %10.2f %10.2f %14.4f %12.0f %9.2fx%s\n", lengths[i], m.wall, m.cpu,
              per_einsum, m.peak_mib, per_einsum_100 > 0 ? per_einsum / per_einsum_100 : 0,
              m.status == 0 ? "" : " (failed)");
    }
  printf ("\n");
}

/* The paper's §7.6 experiment at each number of fused loops. */
static void
bench_paper (guint threads)
{
  const char *loops = g_getenv ("FFM_BENCH_PAPER_LOOPS");
  g_auto (GStrv) each = g_strsplit (loops != NULL ? loops : "1,2", ",", -1);

  for (guint i = 0; each[i] != NULL; i++)
    {
      int n = (int) g_ascii_strtoll (each[i], NULL, 10);
      Measure m;
      printf ("GPT-3 6.7B layer (batch=64,new_tokens=4096), TPUv4i, EDP, "
              "--max-fused-loops %d, %u threads\n", n, threads);
      m = measure ("gpt3-6.7b", "batch=64,new_tokens=4096", threads, n, TRUE);
      printf ("  wall %.1f s, CPU %.1f s, peak memory %.0f MiB%s\n\n", m.wall, m.cpu,
              m.peak_mib, m.status == 0 ? "" : " (failed)");
    }
}

/* Item 2's matrix: every shipped architecture x four workloads at the
 * defaults, with a line per run and a summary against 60 s and 4 GiB. */
static void
bench_matrix (guint threads)
{
  static const struct { const char *workload, *params; } workloads[] = {
    { "gpt3-6.7b", "batch=1,new_tokens=2048" },
    { "llama3-8b", "decode=true,new_tokens=1,cached_tokens=2047" },
    { "resnet50", "" },
    { "mobilenet-v3", "" },
  };
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_auto (GStrv) archs = NULL;
  guint seconds = env_uint ("FFM_BENCH_MATRIX_SECONDS", 120);
  /* FFM_BENCH_MATRIX_LOOPS: --max-fused-loops for every run (-1:
   * unlimited; unset: the default) */
  const char *loops = g_getenv ("FFM_BENCH_MATRIX_LOOPS");
  int max_fused_loops = loops != NULL ? (int) g_ascii_strtoll (loops, NULL, 10) : 0;
  const char *only = g_getenv ("FFM_BENCH_MATRIX_ARCHS");
  g_auto (GStrv) wanted = only != NULL ? g_strsplit (only, ",", -1) : NULL;
  guint n = 0, n_within = 0, n_slow = 0, n_failed = 0, n_unserved = 0;

  ffm_plugin_registry_scan (registry);
  archs = ffm_plugin_registry_list_architectures (registry);
  for (guint i = 0; archs[i] != NULL; i++)
    for (guint j = 0; j < G_N_ELEMENTS (workloads)
           && (wanted == NULL || g_strv_contains ((const char *const *) wanted, archs[i])); j++)
      {
        Measure m;
        printf ("%s x %s (%s), EDP, %s, %u threads\n", archs[i],
                workloads[j].workload, workloads[j].params,
                max_fused_loops == 0 ? "defaults" : max_fused_loops < 0
                ? "unlimited fused loops" : "--max-fused-loops set", threads);
        m = measure_arch (archs[i], workloads[j].workload, workloads[j].params, threads,
                          max_fused_loops, FALSE, seconds);
        n++;
        if (m.status == -SIGALRM)
          {
            printf ("  stopped after %u s (FFM_BENCH_MATRIX_SECONDS), peak memory %.0f MiB\n\n",
                    seconds, m.peak_mib);
            n_slow++;
            continue;
          }
        printf ("  wall %.1f s, CPU %.1f s, peak memory %.0f MiB%s\n\n", m.wall, m.cpu,
                m.peak_mib, m.status == 0 ? ""
                : m.status == RUN_UNSERVED ? " (not served by the architecture)" : " (failed)");
        if (m.status == RUN_UNSERVED)
          n_unserved++;
        else if (m.status != 0)
          n_failed++;
        else if (m.wall <= 60 && m.peak_mib <= 4096)
          n_within++;
        else
          n_slow++;
      }
  printf ("matrix: %u runs, %u within 60 s and 4 GiB, %u over, %u failed, "
          "%u an Einsum no compute unit serves\n", n, n_within, n_slow, n_failed, n_unserved);
}

static void
bench_deep (guint threads)
{
  const char *root = g_getenv ("FFM_SOURCE_ROOT");
  g_autofree char *arch = g_build_filename (root != NULL ? root : ".", "tests", "hostile",
                                            "arch", "six-buffers.json", NULL);
  Measure m;

  printf ("8 x 8 x 8 matmul, DRAM and six buffers (default may_keep), EDP, %u threads\n",
          threads);
  m = measure_arch (arch, "matmuls", "n_einsums=1,m=8,kn=8", threads, 0, FALSE, 0);
  printf ("  wall %.2f s, CPU %.2f s, peak memory %.0f MiB%s\n\n", m.wall, m.cpu,
          m.peak_mib, m.status != 0 ? " (failed)"
          : m.wall <= 10 && m.peak_mib <= 2048 ? " (goal: 10 s, 2 GiB: met)"
          : " (goal: 10 s, 2 GiB: not met)");
}

int
main (int argc, char **argv)
{
  const char *which = g_getenv ("FFM_BENCH");
  guint threads = env_uint ("FFM_BENCH_THREADS", 2);

  setvbuf (stdout, NULL, _IOLBF, 0);
  if (which == NULL || g_str_equal (which, "chains"))
    bench_chains (threads);
  if (which == NULL || g_str_equal (which, "deep"))
    bench_deep (threads);
  if (which == NULL || g_str_equal (which, "gpt"))
    bench_gpt (threads);
  if (which != NULL && g_str_equal (which, "paper"))
    bench_paper (threads);
  if (which != NULL && g_str_equal (which, "matrix"))
    bench_matrix (threads);
  if (which != NULL && g_str_equal (which, "long-chains"))
    bench_long_chains ();
  return 0;
}
