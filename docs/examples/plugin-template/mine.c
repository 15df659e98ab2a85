/* mine.c: the skeleton of an ffm search strategy (the plugin template,
 * docs/plugin-guide.md). As it stands it samples random valid states and
 * keeps the best: replace the loop in mine_run() with your search.
 * Parameter: `samples_per_draw` (draws before a backtracking search). */
#include <ffm/ffm.h>

#define OWNER "strategy mine"

static const FfmParamSpec mine_params[] = {
  { "samples_per_draw", FFM_PARAM_INTEGER, "100",
    "random draws tried before a backtracking search finds a state that fits", 1, 1e6, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL }
};

static FfmSearchResult *
mine_run (const FfmSearchContext *ctx, const FfmParamValues *values, GError **error)
{
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (FfmMapspaceWorkspace) ws = NULL;
  g_autoptr (FfmMapspaceCost) cost = NULL;
  g_autoptr (FfmSearchMeter) meter = NULL;
  g_autoptr (GRand) rand = NULL;
  g_autofree FfmMapspaceChoice *state = NULL, *best = NULL;
  g_autoptr (GError) reason = NULL;
  const char *too_old;
  gint64 samples;

  /* The libffm running now must be the one built against, or a later
   * release of its major version (ffm_check_version()). */
  too_old = ffm_check_version (FFM_MAJOR_VERSION, FFM_MINOR_VERSION, FFM_MICRO_VERSION);
  if (too_old != NULL)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "%s was built against libffm %s: %s", OWNER, FFM_VERSION_STRING, too_old);
      return NULL;
    }
  if (!ffm_param_values_validate (values, mine_params, OWNER, error)
      || !ffm_param_values_get_integer (values, mine_params, OWNER, "samples_per_draw",
                                        &samples, error)
      || !ffm_search_context_require_one_objective (ctx, OWNER, error))
    return NULL;
  /* The fused mapspace: the host's if it shares one, else built here. */
  ms = ffm_mapspace_new_for_context (ctx, error);
  if (ms == NULL)
    return NULL;
  ws = ffm_mapspace_workspace_new (ms);
  cost = ffm_mapspace_cost_new (ms);
  /* One part; with no budget from the host, 1000 evaluations. */
  meter = ffm_search_meter_new (ctx, ms, 0, 1, 1000);
  rand = g_rand_new_with_seed ((guint32) ctx->seed);
  state = ffm_mapspace_state_new (ms);
  best = ffm_mapspace_state_new (ms);

  while (ffm_search_meter_has_room (meter, 1))
    {
      guint64 tried = 0;
      gboolean found = ffm_mapspace_random_state (ws, rand, (guint) samples, 100000,
                                                  state, cost, &tried, &reason);
      /* Every state evaluated is charged, fitting or not. */
      ffm_search_meter_charge_states (meter, tried);
      if (!found)
        break;
      if (ffm_search_meter_offer (meter, ffm_mapspace_cost_get_objective (cost, ctx->objective)))
        ffm_mapspace_state_copy (ms, best, state);
    }
  /* The best state, built and evaluated by the cost model, with the
   * trace and statistics; or why there is none (@reason). */
  return ffm_search_meter_best_result (ms, &meter, &best, 1, OWNER, reason, error);
}

static const FfmSearchVTable mine_vtable = {
  .struct_size = sizeof (FfmSearchVTable),
  .params = mine_params,
  .run = mine_run,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_SEARCH, "mine", "0.1",
                   "Template: random valid states (replace with your search)",
                   search, &mine_vtable)
