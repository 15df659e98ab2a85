/* set.c: SET's simulated annealing (Cai et al., ISCA 2023) on the fused
 * mapspace, as the FFM paper runs it (§7.2, §7.3): storage placements,
 * shared loops and intra-Einsum mappings changed at random, each change
 * repaired into a compatible state, accepted with SET's rule.
 *
 * Written against the public headers only (ffm-mapspace.h,
 * ffm-search-meter.h), as a third party would.
 *
 *   - chains: SET runs `tries` = 4 independent annealing chains with seeds
 *     seed + i and keeps the best; here `chains` (default 4), each with an
 *     equal share of the budget, spread over the threads;
 *   - start: a random valid state (ffm_mapspace_random_state());
 *   - moves: one of the three the FFM authors gave SET in the pmapping
 *     space, drawn by weight (default 1:1:1): an intra-Einsum move (another
 *     row of one Einsum), a loop move (another tile of one shared loop, or
 *     other shared loops, same storage placement) and a backing move (one
 *     shared tensor backed in another memory); the other Einsums are
 *     repaired into compatible equivalents (ffm_mapspace_move());
 *   - acceptance (SET's): a candidate no worse than the current state is
 *     taken; a worse one with probability exp(-((new - cur) / cur) / T);
 *     one that does not fit never;
 *   - temperature (SET's): T(x) = t0 (1 - x) / (1 + cooling x), t0 = 0.07,
 *     cooling = 8, x = the chain's spent fraction of its budget
 *     (evaluations or modelled time, so that runs are reproducible);
 *   - SET jumps back to the best state once, after 90 % of its rounds
 *     (`jump_at`; FFM's port did not);
 *   - with no budget from the host, each chain gets SET's default round
 *     count: 100 rounds per Einsum.
 * Every candidate evaluated is charged (ffm-search-meter.h); the trace
 * records each improvement. */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#define OWNER "strategy set"

/* TUNING: draws before the backtracking search for the first state (most
 * random states fit on real problems), and that search's limit. */
#define START_SAMPLES 1000
#define START_NODES 1000000
/* SET's default: 100 rounds per layer (its `round` input). */
#define ROUNDS_PER_EINSUM 100

static const FfmParamSpec set_params[] = {
  { "chains", FFM_PARAM_INTEGER, "4",
    "independent annealing chains (SET's tries); the budget is split evenly",
    1, 4096, NULL },
  { "t0", FFM_PARAM_NUMBER, "0.07", "initial temperature (SET's 0.07)", 0, 10, NULL },
  { "cooling", FFM_PARAM_NUMBER, "8",
    "cooling rate c of T(x) = t0 (1 - x) / (1 + c x) (SET's 8)", 0, 1000, NULL },
  { "jump_at", FFM_PARAM_NUMBER, "0.9",
    "fraction of the budget after which a chain returns to its best state "
    "once (SET's 0.9; 1 = never)", 0, 1, NULL },
  { "row_weight", FFM_PARAM_NUMBER, "1",
    "weight of intra-Einsum moves (another pmapping, same compatibility)", 0, 1e6, NULL },
  { "loop_weight", FFM_PARAM_NUMBER, "1",
    "weight of loop moves (other shared loops or tiles, same storage placement)",
    0, 1e6, NULL },
  { "backing_weight", FFM_PARAM_NUMBER, "1",
    "weight of backing moves (a shared tensor backed in another memory)", 0, 1e6, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL }
};

typedef struct {
  const FfmSearchContext *ctx;
  FfmMapspace *ms;
  double t0, cooling, jump_at;
  double weight[3];             /* row, loop, backing */
} Shared;

typedef struct {
  guint index;
  FfmSearchMeter *meter;
  FfmMapspaceWorkspace *ws;
  FfmMapspaceCost *cost;
  GRand *rand;
  FfmMapspaceChoice *cur, *cand, *best;
  double cur_value;
  gboolean started, jumped;
  GError *error;                /* why it could not start */
} Chain;

static const FfmMapspaceMove move_kinds[3] = {
  FFM_MAPSPACE_MOVE_ROW, FFM_MAPSPACE_MOVE_LOOPS, FFM_MAPSPACE_MOVE_BACKING,
};

static void
chain_free (Chain *c)
{
  ffm_search_meter_free (c->meter);
  ffm_mapspace_workspace_free (c->ws);
  ffm_mapspace_cost_free (c->cost);
  g_rand_free (c->rand);
  g_free (c->cur);
  g_free (c->cand);
  g_free (c->best);
  g_clear_error (&c->error);
  g_free (c);
}

static gboolean
chain_start (Chain *c, const Shared *sh)
{
  guint64 tried = 0;
  gboolean ok = ffm_mapspace_random_state (c->ws, c->rand, START_SAMPLES, START_NODES,
                                           c->cur, c->cost, &tried, &c->error);

  ffm_search_meter_charge_states (c->meter, tried);
  c->started = TRUE;
  if (!ok)
    return FALSE;
  c->cur_value = ffm_mapspace_cost_get_objective (c->cost, sh->ctx->objective);
  ffm_mapspace_state_copy (sh->ms, c->best, c->cur);
  ffm_search_meter_offer (c->meter, c->cur_value);
  return !ffm_search_meter_is_done (c->meter);
}

/* A move kind drawn by weight; another kind when the drawn one has no
 * move from here (SET draws again). FALSE if none has. */
static gboolean
propose (Chain *c, const Shared *sh)
{
  double w[3], total = 0;

  memcpy (w, sh->weight, sizeof w);
  for (guint k = 0; k < 3; k++)
    total += w[k];
  while (total > 0)
    {
      double r = g_rand_double (c->rand) * total;
      guint k = 0;
      while (k < 2 && (r >= w[k] || w[k] == 0))
        r -= w[k++];
      ffm_mapspace_state_copy (sh->ms, c->cand, c->cur);
      if (ffm_mapspace_move (c->ws, c->rand, c->cand, move_kinds[k], NULL, NULL))
        return TRUE;
      total -= w[k];
      w[k] = 0;
    }
  return FALSE;
}

static gboolean
chain_step (gpointer data, gpointer user_data)
{
  Chain *c = data;
  const Shared *sh = user_data;
  double x, t, value;

  if (!c->started)
    return chain_start (c, sh);
  if (ffm_search_meter_is_done (c->meter) || !ffm_search_meter_has_room (c->meter, 1))
    return FALSE;
  x = ffm_search_meter_get_fraction (c->meter);
  if (!c->jumped && x >= sh->jump_at && sh->jump_at < 1)
    {
      ffm_mapspace_state_copy (sh->ms, c->cur, c->best);
      c->cur_value = ffm_search_meter_get_best (c->meter);
      c->jumped = TRUE;
    }
  if (!propose (c, sh))
    return FALSE;               /* a mapspace of one state */
  ffm_mapspace_evaluate (sh->ms, c->cand, c->cost);
  value = ffm_mapspace_cost_get_objective (c->cost, sh->ctx->objective);
  ffm_search_meter_charge_states (c->meter, 1);
  if (ffm_search_meter_offer (c->meter, value))
    ffm_mapspace_state_copy (sh->ms, c->best, c->cand);
  t = sh->t0 * (1 - x) / (1 + sh->cooling * x);
  if (value <= c->cur_value
      || (isfinite (value) && t > 0
          && g_rand_double (c->rand) < exp (-((value - c->cur_value) / c->cur_value) / t)))
    {
      FfmMapspaceChoice *tmp = c->cur;
      c->cur = c->cand;
      c->cand = tmp;
      c->cur_value = value;
    }
  return !ffm_search_meter_is_done (c->meter);
}

static FfmSearchResult *
set_run (const FfmSearchContext *ctx, const FfmParamValues *values, GError **error)
{
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (FfmSearchResult) result = NULL;
  g_autoptr (GPtrArray) chains = g_ptr_array_new_with_free_func ((GDestroyNotify) chain_free);
  g_autofree FfmSearchMeter **meters = NULL;
  g_autofree FfmMapspaceChoice **bests = NULL;
  const GError *reason = NULL;
  Shared sh = { ctx, NULL, 0, 0, 0, { 0 } };
  gint64 n_chains;

  if (!ffm_param_values_validate (values, set_params, OWNER, error)
      || !ffm_param_values_get_integer (values, set_params, OWNER, "chains", &n_chains, error)
      || !ffm_param_values_get_number (values, set_params, OWNER, "t0", &sh.t0, error)
      || !ffm_param_values_get_number (values, set_params, OWNER, "cooling", &sh.cooling, error)
      || !ffm_param_values_get_number (values, set_params, OWNER, "jump_at", &sh.jump_at, error)
      || !ffm_param_values_get_number (values, set_params, OWNER, "row_weight", &sh.weight[0], error)
      || !ffm_param_values_get_number (values, set_params, OWNER, "loop_weight", &sh.weight[1], error)
      || !ffm_param_values_get_number (values, set_params, OWNER, "backing_weight", &sh.weight[2], error))
    return NULL;
  if (!ffm_search_context_require_one_objective (ctx, OWNER, error))
    return NULL;
  if (sh.weight[0] + sh.weight[1] + sh.weight[2] <= 0)
    {
      g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                   "%s: row_weight, loop_weight and backing_weight are all 0: "
                   "no move to make", OWNER);
      return NULL;
    }
  ms = ffm_mapspace_new_for_context (ctx, error);
  if (ms == NULL)
    return NULL;
  sh.ms = ms;
  meters = g_new0 (FfmSearchMeter *, n_chains);
  bests = g_new0 (FfmMapspaceChoice *, n_chains);
  for (guint i = 0; i < (guint) n_chains; i++)
    {
      Chain *c = g_new0 (Chain, 1);
      c->index = i;
      c->meter = meters[i] = ffm_search_meter_new (
        ctx, ms, i, (guint) n_chains,
        (guint64) n_chains * ROUNDS_PER_EINSUM * ffm_mapspace_get_n_einsums (ms));
      c->ws = ffm_mapspace_workspace_new (ms);
      c->cost = ffm_mapspace_cost_new (ms);
      c->rand = g_rand_new_with_seed ((guint32) (ctx->seed + i));
      c->cur = ffm_mapspace_state_new (ms);
      c->cand = ffm_mapspace_state_new (ms);
      c->best = ffm_mapspace_state_new (ms);
      g_ptr_array_add (chains, c);
    }
  ffm_search_meter_link_parts (meters, (guint) n_chains);
  if (ctx->progress != NULL)
    ctx->progress (-1, "annealing", ctx->progress_data);
  ffm_search_run_parts (ctx->n_threads, chains->pdata, chains->len, chain_step, &sh);

  for (guint i = 0; i < chains->len; i++)
    {
      const Chain *c = g_ptr_array_index (chains, i);
      bests[i] = c->best;
      if (reason == NULL)
        reason = c->error;
    }
  result = ffm_search_meter_best_result (ms, meters, bests, (guint) n_chains, OWNER,
                                         reason, error);
  if (result == NULL)
    return NULL;
  ffm_search_result_set_stat (result, "chains", (double) n_chains);
  ffm_search_result_set_stat (result, "mapspace_combinations",
                              ffm_mapspace_get_n_combinations (ms));
  return g_steal_pointer (&result);
}

static const FfmSearchVTable set_vtable = {
  .struct_size = sizeof (FfmSearchVTable),
  .params = set_params,
  .run = set_run,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_SEARCH, "set", "1.0",
                   "SET's simulated annealing (Cai et al. 2023) on the fused mapspace: "
                   "a baseline for ffm compare",
                   search, &set_vtable)
