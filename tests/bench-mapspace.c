/* bench-mapspace.c: the fused mapspace's speed (ffm-mapspace.h) on the
 * FFM paper's experiment, GPT-3 6.7B (one layer, batch 64, 4096 tokens,
 * 10 Einsums) on TPUv4i.
 *
 * Generates the pmappings (not timed here: bench-pmappings does that),
 * builds the mapspace, then, on one thread, measures for about a second
 * each:
 *   - state evaluations per second (the goal: >= 1 million per core):
 *     a pool of drawn states evaluated round robin, so that the caches see
 *     what a search sees;
 *   - draws (ffm_mapspace_sample()) per second;
 *   - changes (ffm_mapspace_change() to a random group of a random Einsum,
 *     with repair) per second, and how many repaired others;
 *   - a baseline's own work per state: each local move of
 *     ffm_mapspace_move() (SET's moves, a genetic algorithm's mutations)
 *     on a copy of a drawn state, then its evaluation, and a crossover
 *     (one Einsum's choice from another state, the rest repaired): the
 *     microseconds a step costs besides its charge (the goal: <= 50 us
 *     on this problem);
 * and first the space's statistics (pmappings, groups, graph, memory). 
 * FFM_BENCH_GPT_PARAMS overrides the workload parameters
 * ("batch=64,new_tokens=4096"), FFM_BENCH_MAX_FUSED_LOOPS the fused-loop
 * limit (default: the context's default), FFM_BENCH_SECONDS the time per
 * measure (default 1). Run with `meson test -C BUILD --benchmark --suite
 * bench` or directly. */
#include <ffm/ffm.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#define POOL 4096

static double
env_double (const char *name, double fallback)
{
  const char *v = g_getenv (name);

  return v != NULL && *v != '\0' ? g_ascii_strtod (v, NULL) : fallback;
}

static double
now (void)
{
  return (double) g_get_monotonic_time () / G_USEC_PER_SEC;
}

/* This thread's CPU time, s: rates per core even on a loaded machine. */
static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main (int argc, char **argv)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmWorkload) w = NULL;
  g_autoptr (FfmArch) a = NULL;
  g_autoptr (FfmProblem) problem = NULL;
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (FfmMapspaceWorkspace) ws = NULL;
  g_autoptr (FfmMapspaceCost) cost = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (1);
  const char *params = g_getenv ("FFM_BENCH_GPT_PARAMS");
  double seconds = env_double ("FFM_BENCH_SECONDS", 1), t0, t, c0, sink = 0, groups = 0;
  g_auto (GStrv) assignments = NULL;
  FfmSearchContext ctx;
  FfmMapspaceChoice *pool;
  guint n, fits = 0;
  guint64 count, repaired = 0;

  setvbuf (stdout, NULL, _IOLBF, 0);
  if (params == NULL)
    params = "batch=64,new_tokens=4096";
  assignments = g_strsplit (params, ",", -1);
  for (guint i = 0; assignments[i] != NULL; i++)
    if (*assignments[i] != '\0'
        && !ffm_param_values_parse_assignment (values, assignments[i], &error))
      break;
  ffm_plugin_registry_scan (registry);
  if (error == NULL)
    w = ffm_workload_load ("gpt3-6.7b", values, &error);
  if (w != NULL)
    a = ffm_plugin_registry_build_arch (registry, "tpuv4i", NULL, &error);
  if (a == NULL)
    {
      printf ("error: %s\n", error->message);
      return 1;
    }
  problem = ffm_problem_new (w, a);
  ffm_search_context_init (&ctx, problem);
  ctx.n_threads = 2;
  ctx.max_fused_loops = (int) env_double ("FFM_BENCH_MAX_FUSED_LOOPS", ctx.max_fused_loops);
  printf ("GPT-3 6.7B layer (%s), TPUv4i, max fused loops %d\n", params,
          ctx.max_fused_loops);
  t0 = now ();
  ms = ffm_mapspace_new_for_context (&ctx, &error);
  if (ms == NULL)
    {
      printf ("error: %s\n", error->message);
      return 1;
    }
  n = ffm_mapspace_get_n_einsums (ms);
  for (guint x = 0; x < n; x++)
    groups += ffm_mapspace_get_n_groups (ms, x);
  printf ("  pmappings and mapspace %.1f s (mapspace alone %.3f s): %u Einsums, "
          "%.0f groups, %.4g compatible group combinations\n", now () - t0,
          ffm_mapspace_get_build_seconds (ms), n, groups,
          ffm_mapspace_get_n_combinations (ms));
  printf ("  query weight of a state %.4g pmapping evaluations, %.3g us each "
          "(measured with pruning off)\n",
          ffm_mapspace_get_state_query_weight (ms),
          1e6 * ffm_mapspace_get_seconds_per_pmapping (ms));
  printf ("  log10 compatible group combinations %.2f, states %.2f; mapspace "
          "memory %.1f MiB, pmappings %.1f MiB\n",
          ffm_mapspace_get_log10_n_combinations (ms), ffm_mapspace_get_log10_n_states (ms),
          ffm_mapspace_get_memory_bytes (ms) / 1048576.0,
          ffm_pmapping_set_get_memory_held (ffm_mapspace_get_pmapping_set (ms)) / 1048576.0);
  printf ("  %-12s %10s %8s %9s %8s %9s %10s %10s %12s\n", "Einsum", "pmappings",
          "pm.grps", "groups", "usable", "keys", "links", "most", "weight");
  for (guint x = 0; x < ffm_mapspace_get_n_einsums (ms); x++)
    {
      FfmMapspaceEinsumStats st;
      ffm_mapspace_get_einsum_stats (ms, x, &st);
      printf ("  %-12s %10" G_GUINT64_FORMAT " %8u %9u %8u %9u %10" G_GUINT64_FORMAT
              " %10" G_GUINT64_FORMAT " %12.4g\n",
              ffm_workload_get_einsum (w, x)->name, st.pmappings, st.pmapping_groups,
              st.groups, st.usable_groups, st.keys, st.links, st.most_links,
              st.query_weight);
    }

  ws = ffm_mapspace_workspace_new (ms);
  cost = ffm_mapspace_cost_new (ms);
  pool = g_new (FfmMapspaceChoice, (gsize) POOL * n);
  for (guint k = 0; k < POOL; k++)
    ffm_mapspace_sample (ws, rand, pool + (gsize) k * n);

  count = 0;
  t0 = now ();
  c0 = cpu_now ();
  do
    {
      for (guint k = 0; k < POOL; k++)
        {
          ffm_mapspace_evaluate (ms, pool + (gsize) k * n, cost);
          sink += cost->energy;
          fits += cost->fits;
        }
      count += POOL;
    }
  while ((t = now ()) - t0 < seconds);
  printf ("  evaluations: %.3g per CPU second of one thread (%.0f ns each), "
          "%.3g per wall second; %.1f%% fit\n", count / (cpu_now () - c0),
          1e9 * (cpu_now () - c0) / count, count / (t - t0), 100.0 * fits / count);

  count = 0;
  t0 = now ();
  do
    {
      for (guint k = 0; k < POOL; k++)
        ffm_mapspace_sample (ws, rand, pool + (gsize) k * n);
      count += POOL;
    }
  while ((t = now ()) - t0 < seconds);
  printf ("  draws: %.3g per second\n", count / (t - t0));

  count = 0;
  t0 = now ();
  do
    {
      for (guint k = 0; k < 256; k++)
        {
          FfmMapspaceChoice *s = pool + (gsize) (k % POOL) * n;
          guint x = (guint) g_rand_int_range (rand, 0, (gint32) n), g, changed = 0;
          do
            g = (guint) g_rand_int_range (rand, 0, (gint32) ffm_mapspace_get_n_groups (ms, x));
          while (!ffm_mapspace_group_is_usable (ms, x, g));
          ffm_mapspace_change (ws, rand, s, x, g, 0, &changed);
          repaired += changed > 0;
        }
      count += 256;
    }
  while ((t = now ()) - t0 < seconds);
  printf ("  changes: %.3g per second (%.0f%% repaired other Einsums)\n",
          count / (t - t0), 100.0 * repaired / count);

  /* A baseline's step: a move on a copy of a state, then its evaluation. */
  {
    static const char *const names[] = { "row", "loops", "backing", "group" };
    g_autofree FfmMapspaceChoice *cand = ffm_mapspace_state_new (ms);
    for (guint kind = FFM_MAPSPACE_MOVE_ROW; kind <= FFM_MAPSPACE_MOVE_GROUP; kind++)
      {
        guint64 moved = 0, others = 0;
        count = 0;
        repaired = 0;
        t0 = now ();
        c0 = cpu_now ();
        do
          {
            for (guint k = 0; k < 256; k++)
              {
                guint changed = 0;
                ffm_mapspace_state_copy (ms, cand, pool + (gsize) ((count + k) % POOL) * n);
                if (ffm_mapspace_move (ws, rand, cand, kind, NULL, &changed))
                  {
                    moved++;
                    repaired += changed > 0;
                    others += changed;
                  }
                ffm_mapspace_evaluate (ms, cand, cost);
                sink += cost->energy;
              }
            count += 256;
          }
        while ((t = now ()) - t0 < seconds);
        printf ("  step with a %s move: %.2f us per step of one thread (%.0f%% moved, "
                "%.0f%% of those repaired others, %.2f others on average)\n", names[kind],
                1e6 * (cpu_now () - c0) / count, 100.0 * moved / count,
                moved > 0 ? 100.0 * repaired / moved : 0, moved > 0 ? (double) others / moved : 0);
      }
    /* Crossover: one Einsum's choice from another state, the rest repaired. */
    count = 0;
    t0 = now ();
    c0 = cpu_now ();
    do
      {
        for (guint k = 0; k < 256; k++)
          {
            const FfmMapspaceChoice *other = pool + (gsize) ((count + k + 1) % POOL) * n;
            guint x = (guint) g_rand_int_range (rand, 0, (gint32) n);
            ffm_mapspace_state_copy (ms, cand, pool + (gsize) ((count + k) % POOL) * n);
            ffm_mapspace_change (ws, rand, cand, x, other[x].group, other[x].row, NULL);
            ffm_mapspace_evaluate (ms, cand, cost);
            sink += cost->energy;
          }
        count += 256;
      }
    while ((t = now ()) - t0 < seconds);
    printf ("  step with a crossover: %.2f us per step of one thread\n",
            1e6 * (cpu_now () - c0) / count);
  }
  {
    /* The process's peak resident memory (Linux). */
    g_autofree char *status = NULL;
    if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
      {
        const char *hwm = strstr (status, "VmHWM:");
        if (hwm != NULL)
          printf ("  peak resident memory %.1f MiB\n",
                  g_ascii_strtod (hwm + 6, NULL) / 1024.0);
      }
  }
  g_free (pool);
  return sink == 42 ? 1 : 0;
}
