/* ils.c: an example search strategy that reaches the optimum, built out
 * of tree against the installed ffm SDK only (docs/plugin-guide.md).
 *
 * Iterated local search on the fused mapspace (ffm-mapspace.h). A state's
 * energy and latency are the sums of its rows' (one per Einsum), so once a
 * row's energy and latency are read, the objective of any neighbour that
 * changes one Einsum is known without evaluating it; only whether it fits
 * needs a full evaluation. Rows are read through the meter
 * (ffm_search_meter_read_rows()), which charges each as the query of one
 * pmapping of its Einsum (ffm_mapspace_get_query_weight()); each state
 * evaluated as a state. Descent: for each Einsum, every compatible (group,
 * row) ranked by the objective it would give; the `tries` best that
 * improve are evaluated until one fits. At a local optimum: perturb the
 * best state with `kicks` random moves of other fused loops, backing or
 * group (the others repaired), and descend again. */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#define OWNER "strategy ils"
#define ROW(array, i) g_array_index ((array), double, (i))

static const FfmParamSpec ils_params[] = {
  { "tries", FFM_PARAM_INTEGER, "4", "improving neighbours evaluated per Einsum", 1, 1000, NULL },
  { "kicks", FFM_PARAM_INTEGER, "2", "random moves that perturb a local optimum", 1, 100, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL } };

/* The kicks: the moves that change what Einsums share. */
static const FfmMapspaceMove kick_moves[] = {
  FFM_MAPSPACE_MOVE_LOOPS, FFM_MAPSPACE_MOVE_BACKING, FFM_MAPSPACE_MOVE_GROUP };

typedef struct {
  FfmMapspace *ms;
  FfmMapspaceWorkspace *ws;
  FfmMapspaceCost *cost;
  FfmSearchMeter *meter;
  FfmObjective objective;
  guint n, *groups, *base, *offset; /* offset[base[x] + g]: the first row's slot or unread */
  GArray *energy, *latency;     /* the rows read, by slot */
  double e, l;                  /* the current state's energy and latency */
} Ils;

static double
value_of (const Ils *s, double e, double l)
{
  return s->objective == FFM_OBJECTIVE_ENERGY ? e
         : s->objective == FFM_OBJECTIVE_LATENCY ? l : e * l;
}

/* The slot of Einsum @x's group @g's first row; rows read (and charged) once. */
static guint
rows_of (Ils *s, guint x, guint g)
{
  guint n_rows = ffm_mapspace_group_get_n_rows (s->ms, x, g), *slot = &s->offset[s->base[x] + g];
  if (*slot != G_MAXUINT)
    return *slot;
  *slot = s->energy->len;
  g_array_set_size (s->energy, *slot + n_rows);
  g_array_set_size (s->latency, *slot + n_rows);
  ffm_search_meter_read_rows (s->meter, x, g, 0, n_rows, &ROW (s->energy, *slot),
                              &ROW (s->latency, *slot));
  return *slot;
}

/* Evaluates @state (charged): its objective, INFINITY when it does not fit. */
static double
evaluate (Ils *s, const FfmMapspaceChoice *state)
{
  ffm_mapspace_evaluate (s->ms, state, s->cost);
  ffm_search_meter_charge_states (s->meter, 1);
  ffm_search_meter_offer (s->meter, ffm_mapspace_cost_get_objective (s->cost, s->objective));
  s->e = s->cost->energy;
  s->l = s->cost->latency;
  return ffm_mapspace_cost_get_objective (s->cost, s->objective);
}

/* Moves Einsum @x to the choice that improves @state's objective most and
 * fits, among the `tries` best; TRUE if it moved. */
static gboolean
improve (Ils *s, FfmMapspaceChoice *state, double *value, guint x, gint64 tries)
{
  guint n_groups = ffm_mapspace_list_alternatives (s->ws, state, x, s->groups);
  guint here = rows_of (s, x, state[x].group) + state[x].row;
  double e0 = s->e - ROW (s->energy, here), l0 = s->l - ROW (s->latency, here);
  FfmMapspaceChoice keep = state[x];
  double last = -INFINITY, e_keep = s->e, l_keep = s->l; /* tried: those up to last */

  for (gint64 t = 0; t < tries && ffm_search_meter_has_room (s->meter, 1); t++)
    {
      FfmMapspaceChoice next = keep;
      double next_value = *value;
      for (guint i = 0; i < n_groups; i++)
        {
          guint first = rows_of (s, x, s->groups[i]);
          guint n_rows = ffm_mapspace_group_get_n_rows (s->ms, x, s->groups[i]);
          for (guint r = 0; r < n_rows; r++)
            {
              double v = value_of (s, e0 + ROW (s->energy, first + r),
                                   l0 + ROW (s->latency, first + r));
              if (v < next_value && v > last)
                {
                  next_value = v;
                  next = (FfmMapspaceChoice) { s->groups[i], r };
                }
            }
        }
      if (next_value >= *value)
        break;
      last = next_value;
      state[x] = next;
      next_value = evaluate (s, state);
      if (next_value < *value)
        {
          *value = next_value;
          return TRUE;
        }
      state[x] = keep, s->e = e_keep, s->l = l_keep;
    }
  return FALSE;
}

static FfmSearchResult *
ils_run (const FfmSearchContext *ctx, const FfmParamValues *values, GError **error)
{
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (FfmMapspaceWorkspace) ws = NULL;
  g_autoptr (FfmMapspaceCost) cost = NULL;
  g_autoptr (FfmSearchMeter) meter = NULL;
  g_autoptr (GRand) rand = NULL;
  g_autofree FfmMapspaceChoice *state = NULL, *best = NULL;
  g_autofree guint *groups = NULL, *base = NULL, *offset = NULL;
  g_autoptr (GArray) energy = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) latency = g_array_new (FALSE, FALSE, sizeof (double));
  Ils s;
  double value;
  gint64 tries, kicks;
  guint64 tried = 0;
  guint n, n_groups = 0;

  if (!ffm_param_values_validate (values, ils_params, OWNER, error)
      || !ffm_param_values_get_integer (values, ils_params, OWNER, "tries", &tries, error)
      || !ffm_param_values_get_integer (values, ils_params, OWNER, "kicks", &kicks, error)
      || !ffm_search_context_require_one_objective (ctx, OWNER, error))
    return NULL;
  if ((ms = ffm_mapspace_new_for_context (ctx, error)) == NULL)
    return NULL;
  n = ffm_mapspace_get_n_einsums (ms);
  base = g_new (guint, n);
  for (guint x = 0; x < n; x++)
    {
      base[x] = n_groups;
      n_groups += ffm_mapspace_get_n_groups (ms, x);
    }
  offset = g_new (guint, n_groups);
  memset (offset, 0xff, n_groups * sizeof (guint)); /* G_MAXUINT: not read yet */
  groups = g_new (guint, n_groups);
  ws = ffm_mapspace_workspace_new (ms);
  cost = ffm_mapspace_cost_new (ms);
  meter = ffm_search_meter_new (ctx, ms, 0, 1, 10000);
  rand = g_rand_new_with_seed ((guint32) ctx->seed);
  state = ffm_mapspace_state_new (ms);
  best = ffm_mapspace_state_new (ms);
  s = (Ils) { ms, ws, cost, meter, ctx->objective, n, groups, base, offset, energy, latency, 0, 0 };

  /* A random valid start, then descents from kicked copies of the best. */
  if (!ffm_mapspace_random_state (ws, rand, 1000, 1000000, state, cost, &tried, error))
    return NULL;
  ffm_search_meter_charge_states (meter, tried);
  value = evaluate (&s, state);
  ffm_mapspace_state_copy (ms, best, state);
  while (!ffm_search_meter_is_done (meter) && ffm_search_meter_has_room (meter, 1))
    {
      /* Descent: one Einsum at a time until none improves. */
      for (gboolean improved = TRUE; improved && !ffm_search_meter_is_done (meter);)
        {
          improved = FALSE;
          for (guint x = 0; x < n && !ffm_search_meter_is_done (meter); x++)
            improved |= improve (&s, state, &value, x, tries);
        }
      if (value <= ffm_search_meter_get_best (meter)) /* every better state is offered */
        ffm_mapspace_state_copy (ms, best, state);
      ffm_mapspace_state_copy (ms, state, best);
      for (gint64 k = 0; k < kicks; k++)
        ffm_mapspace_move (ws, rand, state, kick_moves[g_rand_int_range (rand, 0, 3)], NULL, NULL);
      if (!ffm_search_meter_has_room (meter, 1))
        break;
      value = evaluate (&s, state);
    }
  /* The best state, built and evaluated by the cost model, with the trace. */
  return ffm_search_meter_best_result (ms, &meter, &best, 1, OWNER, NULL, error);
}

static const FfmSearchVTable ils_vtable = {
  .struct_size = sizeof (FfmSearchVTable), .params = ils_params, .run = ils_run };

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_SEARCH, "ils", "1.0",
                   "Example: iterated local search on the fused mapspace",
                   search, &ils_vtable)
