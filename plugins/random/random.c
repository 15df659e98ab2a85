/* random.c: Timeloop-style random sampling (Parashar et al., ISPASS 2019)
 * of the fused mapspace, as the FFM paper runs it (§7.2): "randomly
 * samples a pmapping for each Einsum", keeping the best.
 *
 * Written against the public headers only (ffm-mapspace.h,
 * ffm-search-meter.h), as a third party would.
 *   - every sample is a compatible state drawn uniformly over the
 *     compatible combinations of groups, with a uniform row in each
 *     (ffm_mapspace_sample(): no dead ends, unlike drawing each Einsum's
 *     pmapping independently); each is evaluated and charged, fitting or
 *     not (Timeloop counts invalid mappings too);
 *   - `streams` (default 4) independent streams with seeds seed + i share
 *     the budget evenly and run on the threads, so the result does not
 *     depend on the thread count;
 *   - Timeloop's own stopping rules, off by default as in the paper's
 *     runs: `victory_condition` (stop a stream after that many consecutive
 *     fitting samples that do not improve; Timeloop's default 500) and
 *     `invalid_limit` (after that many consecutive samples that do not fit;
 *     Timeloop's `timeout`, default 1000);
 *   - with no budget from the host, 10000 samples. */
#include <ffm/ffm.h>

#include <math.h>

#define OWNER "strategy random"
#define DEFAULT_SAMPLES 10000
/* Samples per step: small enough to stop promptly, large enough that the
 * step overhead does not count. */
#define BATCH 64

static const FfmParamSpec random_params[] = {
  { "streams", FFM_PARAM_INTEGER, "4",
    "independent sampling streams; the budget is split evenly", 1, 4096, NULL },
  { "victory_condition", FFM_PARAM_INTEGER, "0",
    "stop a stream after this many consecutive fitting samples that do not "
    "improve it (Timeloop's victory_condition; 0 = off)", 0, 1e15, NULL },
  { "invalid_limit", FFM_PARAM_INTEGER, "0",
    "stop a stream after this many consecutive samples that do not fit "
    "(Timeloop's timeout; 0 = off)", 0, 1e15, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL }
};

typedef struct {
  const FfmSearchContext *ctx;
  FfmMapspace *ms;
  guint64 victory, invalid_limit;
} Shared;

typedef struct {
  FfmSearchMeter *meter;
  FfmMapspaceWorkspace *ws;
  FfmMapspaceCost *cost;
  GRand *rand;
  FfmMapspaceChoice *state, *best;
  guint64 since_best, since_valid;
  gboolean stopped;             /* by a Timeloop rule */
} Stream;

static void
stream_free (Stream *s)
{
  ffm_search_meter_free (s->meter);
  ffm_mapspace_workspace_free (s->ws);
  ffm_mapspace_cost_free (s->cost);
  g_rand_free (s->rand);
  g_free (s->state);
  g_free (s->best);
  g_free (s);
}

static gboolean
stream_step (gpointer data, gpointer user_data)
{
  Stream *s = data;
  const Shared *sh = user_data;

  for (guint k = 0; k < BATCH; k++)
    {
      double value;
      if (!ffm_search_meter_has_room (s->meter, 1) || s->stopped)
        return FALSE;
      ffm_mapspace_sample (s->ws, s->rand, s->state);
      ffm_mapspace_evaluate (sh->ms, s->state, s->cost);
      value = ffm_mapspace_cost_get_objective (s->cost, sh->ctx->objective);
      ffm_search_meter_charge_states (s->meter, 1);
      if (ffm_search_meter_offer (s->meter, value))
        {
          ffm_mapspace_state_copy (sh->ms, s->best, s->state);
          s->since_best = 0;
        }
      else if (isfinite (value))
        s->since_best++;
      s->since_valid = isfinite (value) ? 0 : s->since_valid + 1;
      s->stopped = (sh->victory > 0 && s->since_best >= sh->victory)
        || (sh->invalid_limit > 0 && s->since_valid >= sh->invalid_limit);
    }
  return !ffm_search_meter_is_done (s->meter);
}

static FfmSearchResult *
random_run (const FfmSearchContext *ctx, const FfmParamValues *values, GError **error)
{
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (FfmSearchResult) result = NULL;
  g_autoptr (GPtrArray) streams = g_ptr_array_new_with_free_func ((GDestroyNotify) stream_free);
  g_autofree FfmSearchMeter **meters = NULL;
  g_autofree FfmMapspaceChoice **bests = NULL;
  Shared sh = { ctx, NULL, 0, 0 };
  gint64 n_streams, victory, invalid;

  if (!ffm_param_values_validate (values, random_params, OWNER, error)
      || !ffm_param_values_get_integer (values, random_params, OWNER, "streams", &n_streams, error)
      || !ffm_param_values_get_integer (values, random_params, OWNER, "victory_condition",
                                        &victory, error)
      || !ffm_param_values_get_integer (values, random_params, OWNER, "invalid_limit",
                                        &invalid, error))
    return NULL;
  if (!ffm_search_context_require_one_objective (ctx, OWNER, error))
    return NULL;
  sh.victory = (guint64) victory;
  sh.invalid_limit = (guint64) invalid;
  ms = ffm_mapspace_new_for_context (ctx, error);
  if (ms == NULL)
    return NULL;
  sh.ms = ms;
  meters = g_new0 (FfmSearchMeter *, n_streams);
  bests = g_new0 (FfmMapspaceChoice *, n_streams);
  for (guint i = 0; i < (guint) n_streams; i++)
    {
      Stream *s = g_new0 (Stream, 1);
      s->meter = meters[i] = ffm_search_meter_new (ctx, ms, i, (guint) n_streams,
                                                   DEFAULT_SAMPLES);
      s->ws = ffm_mapspace_workspace_new (ms);
      s->cost = ffm_mapspace_cost_new (ms);
      s->rand = g_rand_new_with_seed ((guint32) (ctx->seed + i));
      s->state = ffm_mapspace_state_new (ms);
      s->best = ffm_mapspace_state_new (ms);
      g_ptr_array_add (streams, s);
    }
  ffm_search_meter_link_parts (meters, (guint) n_streams);
  if (ctx->progress != NULL)
    ctx->progress (-1, "sampling", ctx->progress_data);
  ffm_search_run_parts (ctx->n_threads, streams->pdata, streams->len, stream_step, &sh);

  for (guint i = 0; i < streams->len; i++)
    bests[i] = ((Stream *) g_ptr_array_index (streams, i))->best;
  result = ffm_search_meter_best_result (ms, meters, bests, (guint) n_streams, OWNER,
                                         NULL, error);
  if (result == NULL)
    return NULL;
  ffm_search_result_set_stat (result, "streams", (double) n_streams);
  return g_steal_pointer (&result);
}

static const FfmSearchVTable random_vtable = {
  .struct_size = sizeof (FfmSearchVTable),
  .params = random_params,
  .run = random_run,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_SEARCH, "random", "1.0",
                   "Timeloop-style random sampling of the fused mapspace, keeping the "
                   "best: a baseline for ffm compare",
                   search, &random_vtable)
