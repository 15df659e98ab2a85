/* tileflow.c: TileFlow's genetic algorithm (Zheng et al., MICRO 2023) on
 * the fused mapspace, as the FFM paper runs it (§7.2): storage placements,
 * shared loops and intra-Einsum mappings evolved by populations of 10,
 * crossover rate 0.7, mutation rate 0.2.
 *
 * Written against the public headers only (ffm-mapspace.h,
 * ffm-search-meter.h), as a third party would. The paper's GA is its
 * authors' own (TileFlow's public code searches tile sizes by MCTS); this
 * follows their description and code:
 *   - islands: independent populations with no migration (the paper: 10
 *     per population, 2000 in total over 192 threads); here `islands`
 *     (default 4) of `population` (default 10), the budget split evenly,
 *     spread over the threads;
 *   - start: random valid states (ffm_mapspace_random_state());
 *   - a generation: roulette-wheel selection of `population` parents with
 *     replacement, weight 1 / objective (a state that does not fit weighs
 *     0; all zero: uniform); consecutive parents (i, i + 1) make two
 *     children: with probability `crossover` each child is one parent with
 *     one random Einsum's choice taken from the other, the rest repaired
 *     into a compatible state (ffm_mapspace_change()), else copies; each
 *     child mutates with probability `mutation` by one of SET's moves
 *     (another row, other shared loops, another backing:
 *     ffm_mapspace_move()); elitism: the best of the previous generation
 *     replaces the worst child (the reference's code appended it and cut
 *     the population back, which drops it for even populations);
 *   - only states that changed are evaluated (and charged): a copy keeps
 *     its parent's objective; an island whose generations change nothing
 *     1000 times in a row has converged and stops;
 *   - with no budget from the host, 100 generations per island. */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#define OWNER "strategy tileflow"

/* TUNING: as in set.c: draws before the backtracking search for a first
 * state, and that search's limit. */
#define START_SAMPLES 1000
#define START_NODES 1000000
#define DEFAULT_GENERATIONS 100
/* An island whose generations change nothing this many times in a row
 * has converged to states with no move left (copies are free, so it
 * would otherwise never spend its budget). */
#define IDLE_GENERATIONS 1000

static const FfmParamSpec tileflow_params[] = {
  { "islands", FFM_PARAM_INTEGER, "4",
    "independent populations (no migration); the budget is split evenly",
    1, 4096, NULL },
  { "population", FFM_PARAM_INTEGER, "10",
    "mappings per population (the FFM paper's 10)", 2, 100000, NULL },
  { "crossover", FFM_PARAM_NUMBER, "0.7",
    "probability that a pair of parents crosses over (the paper's 0.7)", 0, 1, NULL },
  { "mutation", FFM_PARAM_NUMBER, "0.2",
    "probability that a child mutates (the paper's 0.2)", 0, 1, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL }
};

typedef struct {
  const FfmSearchContext *ctx;
  FfmMapspace *ms;
  guint n;                      /* Einsums */
  guint population;
  double crossover, mutation;
} Shared;

typedef struct {
  FfmSearchMeter *meter;
  FfmMapspaceWorkspace *ws;
  FfmMapspaceCost *cost;
  GRand *rand;
  FfmMapspaceChoice *pop, *next; /* population x n */
  double *value, *next_value;   /* objective of each (INFINITY: does not fit) */
  gboolean *changed;            /* next[i] differs from the parent it copies */
  guint *parents;
  FfmMapspaceChoice *best;
  guint started;                /* members drawn so far */
  guint idle;                   /* consecutive generations that changed nothing */
  GError *error;
} Island;

static void
island_free (Island *is)
{
  ffm_search_meter_free (is->meter);
  ffm_mapspace_workspace_free (is->ws);
  ffm_mapspace_cost_free (is->cost);
  g_rand_free (is->rand);
  g_free (is->pop);
  g_free (is->next);
  g_free (is->value);
  g_free (is->next_value);
  g_free (is->changed);
  g_free (is->parents);
  g_free (is->best);
  g_clear_error (&is->error);
  g_free (is);
}

static FfmMapspaceChoice *
member (FfmMapspaceChoice *pop, const Shared *sh, guint i)
{
  return pop + (gsize) i * sh->n;
}

/* Records @value of @state; keeps the island's best state. */
static void
offer (Island *is, const Shared *sh, const FfmMapspaceChoice *state, double value)
{
  if (ffm_search_meter_offer (is->meter, value))
    ffm_mapspace_state_copy (sh->ms, is->best, state);
}

/* One random member per step until the population is full. */
static gboolean
start_one (Island *is, const Shared *sh)
{
  FfmMapspaceChoice *m = member (is->pop, sh, is->started);
  guint64 tried = 0;

  if (!ffm_mapspace_random_state (is->ws, is->rand, START_SAMPLES, START_NODES, m,
                                  is->cost, &tried, &is->error))
    {
      ffm_search_meter_charge_states (is->meter, tried);
      return FALSE;
    }
  ffm_search_meter_charge_states (is->meter, tried);
  is->value[is->started] = ffm_mapspace_cost_get_objective (is->cost, sh->ctx->objective);
  offer (is, sh, m, is->value[is->started]);
  is->started++;
  return !ffm_search_meter_is_done (is->meter);
}

static void
select_parents (Island *is, const Shared *sh)
{
  guint P = sh->population;
  double total = 0;

  for (guint i = 0; i < P; i++)
    total += isfinite (is->value[i]) && is->value[i] > 0 ? 1 / is->value[i] : 0;
  for (guint k = 0; k < P; k++)
    {
      guint i = 0;
      if (total > 0)
        {
          double r = g_rand_double (is->rand) * total;
          for (i = 0; i + 1 < P; i++)
            {
              double w = isfinite (is->value[i]) && is->value[i] > 0 ? 1 / is->value[i] : 0;
              if (r < w)
                break;
              r -= w;
            }
        }
      else
        i = (guint) g_rand_int_range (is->rand, 0, (gint32) P);
      is->parents[k] = i;
    }
}

/* Child @c of parents @a (giving one Einsum) and @b (the rest). */
static void
cross (Island *is, const Shared *sh, guint a, guint b, guint c)
{
  FfmMapspaceChoice *child = member (is->next, sh, c);
  const FfmMapspaceChoice *pa = member (is->pop, sh, a);
  guint x = (guint) g_rand_int_range (is->rand, 0, (gint32) sh->n);

  ffm_mapspace_state_copy (sh->ms, child, member (is->pop, sh, b));
  is->next_value[c] = is->value[b];
  is->changed[c] = FALSE;
  if (pa[x].group == child[x].group && pa[x].row == child[x].row)
    return;
  if (ffm_mapspace_change (is->ws, is->rand, child, x, pa[x].group, pa[x].row, NULL))
    is->changed[c] = TRUE;
}

static gboolean
generation (Island *is, const Shared *sh)
{
  static const FfmMapspaceMove moves[3] = {
    FFM_MAPSPACE_MOVE_ROW, FFM_MAPSPACE_MOVE_LOOPS, FFM_MAPSPACE_MOVE_BACKING,
  };
  guint P = sh->population, elite = 0, worst = 0;
  FfmMapspaceChoice *tmp;
  double *tv;

  select_parents (is, sh);
  for (guint i = 0; i < P; i += 2)
    {
      guint a = is->parents[i], b = is->parents[(i + 1) % P];
      gboolean crossing = g_rand_double (is->rand) < sh->crossover;
      for (guint c = i; c < MIN (i + 2, P); c++)
        {
          guint p = c == i ? a : b, q = c == i ? b : a;
          if (crossing)
            cross (is, sh, q, p, c);
          else
            {
              ffm_mapspace_state_copy (sh->ms, member (is->next, sh, c), member (is->pop, sh, p));
              is->next_value[c] = is->value[p];
              is->changed[c] = FALSE;
            }
        }
    }
  for (guint c = 0; c < P; c++)
    if (g_rand_double (is->rand) < sh->mutation
        && ffm_mapspace_move (is->ws, is->rand, member (is->next, sh, c),
                              moves[g_rand_int_range (is->rand, 0, 3)], NULL, NULL))
      is->changed[c] = TRUE;
  {
    gboolean any = FALSE;
    for (guint c = 0; c < P; c++)
      any |= is->changed[c];
    is->idle = any ? 0 : is->idle + 1;
    if (is->idle >= IDLE_GENERATIONS)
      return FALSE;
    /* Still a charge-free step: let the cancel flag and the clock stop it. */
    if (!any && !ffm_search_meter_charge (is->meter, 0, 0))
      return FALSE;
  }
  for (guint c = 0; c < P; c++)
    {
      if (!is->changed[c])
        continue;
      if (!ffm_search_meter_has_room (is->meter, 1))
        return FALSE;           /* the budget ends inside the generation */
      ffm_mapspace_evaluate (sh->ms, member (is->next, sh, c), is->cost);
      is->next_value[c] = ffm_mapspace_cost_get_objective (is->cost, sh->ctx->objective);
      ffm_search_meter_charge_states (is->meter, 1);
      offer (is, sh, member (is->next, sh, c), is->next_value[c]);
      if (ffm_search_meter_is_done (is->meter))
        return FALSE;
    }
  /* Elitism: the previous best replaces the worst child. */
  for (guint i = 1; i < P; i++)
    {
      if (is->value[i] < is->value[elite])
        elite = i;
      if (is->next_value[i] > is->next_value[worst])
        worst = i;
    }
  if (is->value[elite] < is->next_value[worst])
    {
      ffm_mapspace_state_copy (sh->ms, member (is->next, sh, worst), member (is->pop, sh, elite));
      is->next_value[worst] = is->value[elite];
    }
  tmp = is->pop;
  is->pop = is->next;
  is->next = tmp;
  tv = is->value;
  is->value = is->next_value;
  is->next_value = tv;
  return TRUE;
}

static gboolean
island_step (gpointer data, gpointer user_data)
{
  Island *is = data;
  const Shared *sh = user_data;

  if (ffm_search_meter_is_done (is->meter) || is->error != NULL)
    return FALSE;
  if (is->started < sh->population)
    return start_one (is, sh);
  return generation (is, sh);
}

static FfmSearchResult *
tileflow_run (const FfmSearchContext *ctx, const FfmParamValues *values, GError **error)
{
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (FfmSearchResult) result = NULL;
  g_autoptr (GPtrArray) islands = g_ptr_array_new_with_free_func ((GDestroyNotify) island_free);
  g_autofree FfmSearchMeter **meters = NULL;
  g_autofree FfmMapspaceChoice **bests = NULL;
  const GError *reason = NULL;
  Shared sh = { ctx, NULL, 0, 0, 0, 0 };
  gint64 n_islands, population;

  if (!ffm_param_values_validate (values, tileflow_params, OWNER, error)
      || !ffm_param_values_get_integer (values, tileflow_params, OWNER, "islands", &n_islands, error)
      || !ffm_param_values_get_integer (values, tileflow_params, OWNER, "population", &population, error)
      || !ffm_param_values_get_number (values, tileflow_params, OWNER, "crossover", &sh.crossover, error)
      || !ffm_param_values_get_number (values, tileflow_params, OWNER, "mutation", &sh.mutation, error))
    return NULL;
  if (!ffm_search_context_require_one_objective (ctx, OWNER, error))
    return NULL;
  ms = ffm_mapspace_new_for_context (ctx, error);
  if (ms == NULL)
    return NULL;
  sh.ms = ms;
  sh.n = ffm_mapspace_get_n_einsums (ms);
  sh.population = (guint) population;
  meters = g_new0 (FfmSearchMeter *, n_islands);
  bests = g_new0 (FfmMapspaceChoice *, n_islands);
  for (guint i = 0; i < (guint) n_islands; i++)
    {
      Island *is = g_new0 (Island, 1);
      gsize size = (gsize) population * sh.n;
      is->meter = meters[i] = ffm_search_meter_new (
        ctx, ms, i, (guint) n_islands,
        (guint64) n_islands * population * (DEFAULT_GENERATIONS + 1));
      is->ws = ffm_mapspace_workspace_new (ms);
      is->cost = ffm_mapspace_cost_new (ms);
      is->rand = g_rand_new_with_seed ((guint32) (ctx->seed + i));
      is->pop = g_new0 (FfmMapspaceChoice, size);
      is->next = g_new0 (FfmMapspaceChoice, size);
      is->value = g_new (double, population);
      is->next_value = g_new (double, population);
      is->changed = g_new0 (gboolean, population);
      is->parents = g_new0 (guint, population);
      is->best = ffm_mapspace_state_new (ms);
      g_ptr_array_add (islands, is);
    }
  ffm_search_meter_link_parts (meters, (guint) n_islands);
  if (ctx->progress != NULL)
    ctx->progress (-1, "evolving", ctx->progress_data);
  ffm_search_run_parts (ctx->n_threads, islands->pdata, islands->len, island_step, &sh);

  for (guint i = 0; i < islands->len; i++)
    {
      const Island *is = g_ptr_array_index (islands, i);
      bests[i] = is->best;
      if (reason == NULL)
        reason = is->error;
    }
  result = ffm_search_meter_best_result (ms, meters, bests, (guint) n_islands, OWNER,
                                         reason, error);
  if (result == NULL)
    return NULL;
  ffm_search_result_set_stat (result, "islands", (double) n_islands);
  ffm_search_result_set_stat (result, "population", (double) population);
  return g_steal_pointer (&result);
}

static const FfmSearchVTable tileflow_vtable = {
  .struct_size = sizeof (FfmSearchVTable),
  .params = tileflow_params,
  .run = tileflow_run,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_SEARCH, "tileflow", "1.0",
                   "TileFlow's genetic algorithm (Zheng et al. 2023) on the fused "
                   "mapspace: a baseline for ffm compare",
                   search, &tileflow_vtable)
