/* wire.c: on-chip wires and network links, energy per bit per mm to first
 * order.
 *
 * Sending `width` bits over `length_mm` millimetres charges, for each bit
 * that toggles, the wire's capacitance to the supply:
 *
 *   E = activity x c_per_mm x length_mm x voltage^2 x width
 *
 * with c_per_mm = 0.2 pF/mm, the capacitance per length of on-chip wires,
 * which stays near 0.2 fF/um from node to node because wires shrink in
 * width and spacing together (R. Ho, K. Mai, M. Horowitz, "The future of
 * wires", Proc. IEEE 89(4), 2001); activity 0.5 (random data toggles half
 * the bits) and voltage 0.8 V by default: 0.064 pJ per bit per mm.
 * Repeaters, routers and arbitration are not included (a first-order
 * model: state them as their own components); the wire neither leaks nor
 * takes area of its own (it is routed over logic). */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#define WIRE_NAME "wire"
#define WIRE_ACCURACY 40.0          /* first order: repeaters and routers left out */
#define C_PER_MM 0.2e-12            /* F per mm */

static const FfmEstimatorClass wire_classes[] = {
  { "wire", "transfer,read",
    "width (bits, 1), length_mm (mm, 1), voltage (V, 0.8), activity (0.5), "
    "c_per_mm (F/mm, 0.2e-12)",
    "first-order C V^2 with 0.2 pF/mm (Ho, Mai, Horowitz, Proc. IEEE 2001)" },
  { "noc_link", "transfer,read",
    "width (bits, 1), length_mm (mm per hop, 1), hops (1), voltage (V, 0.8), "
    "activity (0.5); the wires of the hops only, no routers",
    "first-order C V^2 with 0.2 pF/mm (Ho, Mai, Horowitz, Proc. IEEE 2001)" },
  { NULL, NULL, NULL, NULL }
};

static gboolean
wire_estimate (const FfmEstimateQuery *query, FfmEstimate *estimate,
               GError **error)
{
  const char *action = ffm_estimate_query_get_action (query);
  double width, length, voltage, activity, c, hops = 1;

  if (action != NULL && g_ascii_strcasecmp (action, "transfer") != 0
      && g_ascii_strcasecmp (action, "read") != 0)
    return ffm_estimate_query_unsupported (query, error, "no action '%s'", action);
  if (!ffm_estimate_query_get_number (query, "width|datawidth", 1, 1, 1 << 20, &width,
                                      error)
      || !ffm_estimate_query_get_number (query, "length_mm", 1, 0, 1000, &length,
                                         error)
      || !ffm_estimate_query_get_number (query, "voltage", 0.8, 0.1, 5, &voltage,
                                         error)
      || !ffm_estimate_query_get_number (query, "activity", 0.5, 0, 1, &activity,
                                         error)
      || !ffm_estimate_query_get_number (query, "c_per_mm", C_PER_MM, 0, 1e-9, &c,
                                         error))
    return FALSE;
  if (g_ascii_strcasecmp (ffm_estimate_query_get_class (query), "noc_link") == 0
      && !ffm_estimate_query_get_number (query, "hops", 1, 0, 1e6, &hops, error))
    return FALSE;

  if (action != NULL)
    estimate->energy = activity * c * length * hops * voltage * voltage * width;
  estimate->leak_power = 0;
  estimate->action_bits = width;
  estimate->accuracy = WIRE_ACCURACY;
  return TRUE;
}

static const FfmEstimatorVTable wire_vtable = {
  .struct_size = sizeof (FfmEstimatorVTable),
  .classes = wire_classes,
  .estimate = wire_estimate,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_ESTIMATOR, WIRE_NAME, "1.0",
                   "on-chip wires and network links: first-order energy per bit "
                   "per mm (C V^2, 0.2 pF/mm)", estimator, &wire_vtable)
