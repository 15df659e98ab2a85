/* fifo.c: an example component estimator, built out of tree against the
 * installed SDK (docs/estimators.md, "Writing an estimator").
 *
 * It knows one class, `fifo`: depth x width flip-flops and two pointers
 * (counters of ceil(log2 depth) bits). A push writes one entry and moves
 * the write pointer; a pop reads one entry and moves the read pointer. The
 * parts are estimated by whichever estimators answer best for `register`
 * and `counter` (ffm_estimate_query_estimate_part()), so the fifo follows
 * them from node to node. */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

static const FfmEstimatorClass fifo_classes[] = {
  { "fifo", "push,pop", "width (bits), depth (entries), technology (nm)",
    "flip-flops and two counters, from the register and counter estimators" },
  { NULL, NULL, NULL, NULL }
};

/* Adds @copies of part @class_name's answer (its @action energy once) to
 * @e; the accuracy is the least of the parts'. */
static gboolean
add_part (const FfmEstimateQuery *query, const char *part, const char *class_name,
          double bits, double copies, const char *action, FfmEstimate *e,
          GError **error)
{
  g_autoptr (FfmParamValues) attrs = ffm_param_values_new ();
  g_autofree char *n_bits = g_strdup_printf ("%g", bits);
  FfmComponentEstimate p;

  ffm_param_values_set (attrs, "n_bits", n_bits);
  ffm_param_values_set (attrs, "technology",
                        ffm_estimate_query_get_text (query, "technology"));
  if (!ffm_estimate_query_estimate_part (query, part, class_name, attrs, action, &p,
                                         error))
    return FALSE;
  if (action != NULL)
    e->energy += p.energy.value;
  e->leak_power += copies * p.leak_power.value;
  e->area += copies * p.area.value;
  e->accuracy = MIN (e->accuracy, p.area.accuracy);
  return TRUE;
}

static gboolean
fifo_estimate (const FfmEstimateQuery *query, FfmEstimate *e, GError **error)
{
  const char *action = ffm_estimate_query_get_action (query);
  double width, depth, tech;

  if (action != NULL && strcmp (action, "push") != 0 && strcmp (action, "pop") != 0)
    return ffm_estimate_query_unsupported (query, error, "no action '%s'", action);
  if (!ffm_estimate_query_get_number (query, "width", NAN, 1, 4096, &width, error)
      || !ffm_estimate_query_get_number (query, "depth", NAN, 1, 65536, &depth, error)
      || !ffm_estimate_query_get_technology (query, NAN, 7, 130, &tech, error))
    return FALSE;
  e->energy = action != NULL ? 0 : NAN;
  e->leak_power = 0;
  e->area = 0;
  e->accuracy = 50;    /* a sketch: no clock tree, no muxes */
  return add_part (query, "entries", "register", width, depth,
                   action == NULL ? NULL : strcmp (action, "push") == 0 ? "write"
                                                                         : "read",
                   e, error)
         && add_part (query, "pointers", "counter", MAX (1, ceil (log2 (depth))), 2,
                      action == NULL ? NULL : "add", e, error);
}

static const FfmEstimatorVTable fifo_vtable = {
  .struct_size = sizeof (FfmEstimatorVTable),
  .classes = fifo_classes,
  .estimate = fifo_estimate,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_ESTIMATOR, "fifo", "1.0",
                   "an example: register FIFOs from the register and counter "
                   "estimators", estimator, &fifo_vtable)
