/* hillclimb.c: an example search strategy built out of tree, against the
 * installed ffm SDK only (docs/plugin-guide.md walks through it).
 *
 * Hill climbing with random restarts on the fused mapspace
 * (ffm-mapspace.h): from a random valid state, look at every choice of
 * one Einsum (every compatible group, every row) with the others fixed,
 * move to the best if it improves, and go on with the next Einsum; when a
 * whole round over the Einsums improves nothing, the state is a local
 * optimum: start again from a new random state. The host's budgets, cancel
 * flag and trace are kept by an FfmSearchMeter; every state evaluated is
 * charged. Parameter: `rows` (how many rows of each group to try, 0 = all). */
#include <ffm/ffm.h>

#include <math.h>

#define OWNER "strategy hillclimb"

static const FfmParamSpec hillclimb_params[] = {
  { "rows", FFM_PARAM_INTEGER, "0",
    "rows tried in each compatible group of the Einsum being improved (0 = all)",
    0, 1e9, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL }
};

/* One pass over the choices of @einsum: TRUE if @state improved. */
static gboolean
improve_einsum (FfmMapspace *ms, FfmSearchMeter *meter, FfmMapspaceCost *cost,
                FfmObjective objective, FfmMapspaceChoice *state, double *value,
                guint einsum, guint *groups, gint64 max_rows, FfmMapspaceWorkspace *ws)
{
  guint n_groups = ffm_mapspace_list_alternatives (ws, state, einsum, groups);
  FfmMapspaceChoice keep = state[einsum], best = keep;
  gboolean improved = FALSE;

  for (guint i = 0; i < n_groups && !ffm_search_meter_is_done (meter); i++)
    {
      guint rows = ffm_mapspace_group_get_n_rows (ms, einsum, groups[i]);
      if (max_rows > 0 && rows > max_rows)
        rows = (guint) max_rows;
      for (guint r = 0; r < rows && ffm_search_meter_has_room (meter, 1); r++)
        {
          double v;
          state[einsum].group = groups[i];
          state[einsum].row = r;
          ffm_mapspace_evaluate (ms, state, cost);
          v = ffm_mapspace_cost_get_objective (cost, objective);
          ffm_search_meter_charge_states (meter, 1);
          ffm_search_meter_offer (meter, v);
          if (v < *value)
            {
              *value = v;
              best = state[einsum];
              improved = TRUE;
            }
        }
    }
  state[einsum] = improved ? best : keep;
  return improved;
}

static FfmSearchResult *
hillclimb_run (const FfmSearchContext *ctx, const FfmParamValues *values, GError **error)
{
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (FfmMapspaceWorkspace) ws = NULL;
  g_autoptr (FfmMapspaceCost) cost = NULL;
  g_autoptr (FfmSearchMeter) meter = NULL;
  g_autoptr (GRand) rand = NULL;
  g_autofree FfmMapspaceChoice *state = NULL, *best = NULL;
  g_autofree guint *groups = NULL;
  double best_value = INFINITY;
  gint64 max_rows;
  guint n, most = 1;

  if (!ffm_param_values_validate (values, hillclimb_params, OWNER, error)
      || !ffm_param_values_get_integer (values, hillclimb_params, OWNER, "rows",
                                        &max_rows, error))
    return NULL;
  if (!ffm_search_context_require_one_objective (ctx, OWNER, error))
    return NULL;
  /* The mapspace: the host's if it shares one, else built here. */
  ms = ffm_mapspace_new_for_context (ctx, error);
  if (ms == NULL)
    return NULL;
  n = ffm_mapspace_get_n_einsums (ms);
  for (guint x = 0; x < n; x++)
    most = MAX (most, ffm_mapspace_get_n_groups (ms, x));
  ws = ffm_mapspace_workspace_new (ms);
  cost = ffm_mapspace_cost_new (ms);
  /* One part; with no budget from the host, 10000 evaluations. */
  meter = ffm_search_meter_new (ctx, ms, 0, 1, 10000);
  rand = g_rand_new_with_seed ((guint32) ctx->seed);
  state = ffm_mapspace_state_new (ms);
  best = ffm_mapspace_state_new (ms);
  groups = g_new (guint, most);

  while (!ffm_search_meter_is_done (meter) && ffm_search_meter_has_room (meter, 1))
    {
      guint64 tried = 0;
      double value;
      gboolean improved = TRUE;

      /* A random valid start (compatible, fitting). */
      if (!ffm_mapspace_random_state (ws, rand, 1000, 1000000, state, cost, &tried, error))
        return NULL;
      ffm_search_meter_charge_states (meter, tried);
      value = ffm_mapspace_cost_get_objective (cost, ctx->objective);
      ffm_search_meter_offer (meter, value);
      while (improved && !ffm_search_meter_is_done (meter))
        {
          improved = FALSE;
          for (guint x = 0; x < n && !ffm_search_meter_is_done (meter); x++)
            improved |= improve_einsum (ms, meter, cost, ctx->objective, state, &value,
                                        x, groups, max_rows, ws);
        }
      if (value < best_value)
        {
          best_value = value;
          ffm_mapspace_state_copy (ms, best, state);
        }
    }
  /* The best state, built and evaluated by the cost model, with the
   * trace and statistics; or why there is none. */
  return ffm_search_meter_best_result (ms, &meter, &best, 1, OWNER, NULL, error);
}

static const FfmSearchVTable hillclimb_vtable = {
  .struct_size = sizeof (FfmSearchVTable),
  .params = hillclimb_params,
  .run = hillclimb_run,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_SEARCH, "hillclimb", "1.0",
                   "Example: hill climbing with random restarts on the fused mapspace",
                   search, &hillclimb_vtable)
