/* horowitz.c: integer and floating-point adders, multipliers and MACs from
 * Horowitz's 45 nm table, scaled by width and node.
 *
 * M. Horowitz, "Computing's energy problem (and what we can do about it)",
 * ISSCC 2014, the table of operation energies and areas at 45 nm, 0.9 V:
 *
 *   operation          energy (pJ)   area (um^2)
 *   int add   8 b      0.03          36
 *   int add   32 b     0.1           137
 *   int mult  8 b      0.2           282
 *   int mult  32 b     3.1           3495
 *   fp add    16 b     0.4           1360
 *   fp add    32 b     0.9           4184
 *   fp mult   16 b     1.1           1640
 *   fp mult   32 b     3.7           7700
 *
 * Between its two widths a quantity follows the power law through both
 * points (E(w) = E(w0) (w / w0)^k); the same law extends it to 4-64 bits
 * (integers) and 8-64 bits (floating point). A MAC is a multiplier plus an
 * adder of the accumulator's width (twice the operands' unless
 * adder_width says). Nodes other than 45 nm scale with Stillmaker and
 * Baas (2017), as in the aladdin estimator. The table has no leakage: this
 * estimator gives none (another estimator's, or none, is used).
 *
 * Accuracy: 60 % for integers (two points per unit; the aladdin estimator,
 * which tabulates leakage too, answers them at 70 %), 70 % for floating
 * point (the only floating-point source shipped). */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#define HOROWITZ_NAME "horowitz"
#define INT_ACCURACY 60.0
#define FP_ACCURACY 70.0
#define TABLE_NODE_NM 45.0
#define MIN_NODE_NM 7.0
#define MAX_NODE_NM 130.0
#define PJ 1e-12
#define UM2 1e-12

/* One unit at two widths. */
typedef struct {
  double w0, e0, a0;   /* width (bits), energy (pJ), area (um^2) */
  double w1, e1, a1;
} TwoPoints;

static const TwoPoints int_add = { 8, 0.03, 36, 32, 0.1, 137 };
static const TwoPoints int_mult = { 8, 0.2, 282, 32, 3.1, 3495 };
static const TwoPoints fp_add = { 16, 0.4, 1360, 32, 0.9, 4184 };
static const TwoPoints fp_mult = { 16, 1.1, 1640, 32, 3.7, 7700 };

#define SOURCE "Horowitz, ISSCC 2014, 45 nm table; power law between widths; " \
  "node scaling Stillmaker-Baas 2017"

static const FfmEstimatorClass horowitz_classes[] = {
  { "intadder", "add,read", "n_bits|width|precision|datawidth (bits, 4-64), "
    "technology (nm)", SOURCE },
  { "intmultiplier", "multiply,read", "width_a, width_b or n_bits|width|datawidth "
    "(bits, 4-64), technology (nm)", SOURCE },
  { "intmac", "compute,mac_random,mac_reused", "multiplier_width|datawidth|width "
    "(bits), adder_width (bits, 2 x multiplier_width), technology (nm)", SOURCE },
  { "fpadder", "add,read", "datawidth|width (bits, 8-64) or exponent + mantissa, "
    "technology (nm)", SOURCE },
  { "fpmultiplier", "multiply,read", "datawidth|width (bits, 8-64) or exponent + "
    "mantissa, technology (nm)", SOURCE },
  { "fpmac", "compute,mac_random,mac_reused", "datawidth|width (bits, 8-64) or "
    "exponent + mantissa, adder_width (bits, datawidth), technology (nm)", SOURCE },
  { NULL, NULL, NULL, NULL }
};

/* Energy (J) and area (m^2) at @w bits and 45 nm. */
static void
at_width (const TwoPoints *p, double w, double *energy, double *area)
{
  double ke = log (p->e1 / p->e0) / log (p->w1 / p->w0);
  double ka = log (p->a1 / p->a0) / log (p->w1 / p->w0);

  *energy = p->e0 * pow (w / p->w0, ke) * PJ;
  *area = p->a0 * pow (w / p->w0, ka) * UM2;
}

static gboolean
action_is (const char *action, const char *list)
{
  g_auto (GStrv) parts = NULL;

  if (action == NULL)
    return TRUE;
  parts = g_strsplit (list, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (g_ascii_strcasecmp (parts[i], action) == 0)
      return TRUE;
  return FALSE;
}

/* @w must lie in [@lo, @hi], the widths the table extends to: outside, the
 * query is not this estimator's (UNSUPPORTED: another may answer it). */
static gboolean
in_range (const FfmEstimateQuery *query, double w, double lo, double hi,
          GError **error)
{
  if (w >= lo && w <= hi)
    return TRUE;
  return ffm_estimate_query_unsupported (query, error, "%g bits is outside the %g-%g "
                                         "bits Horowitz's table is extended to", w, lo,
                                         hi);
}

/* The floating-point width: datawidth or width, else exponent + mantissa. */
static gboolean
fp_width (const FfmEstimateQuery *query, double *w, GError **error)
{
  double exponent, mantissa;

  if (ffm_estimate_query_get_text (query, "datawidth|width") != NULL)
    return ffm_estimate_query_get_number (query, "datawidth|width", NAN, 1, 4096, w,
                                          error)
           && in_range (query, *w, 8, 64, error);
  if (!ffm_estimate_query_get_number (query, "exponent", NAN, 1, 64, &exponent,
                                      error)
      || !ffm_estimate_query_get_number (query, "mantissa", NAN, 1, 4096, &mantissa,
                                         error))
    return FALSE;
  *w = exponent + mantissa;
  return in_range (query, *w, 8, 64, error);
}

static gboolean
horowitz_estimate (const FfmEstimateQuery *query, FfmEstimate *estimate,
                   GError **error)
{
  const char *class_name = ffm_estimate_query_get_class (query);
  const char *action = ffm_estimate_query_get_action (query);
  double nm, energy = 0, area = 0, e, a;
  gboolean fp = g_ascii_strncasecmp (class_name, "fp", 2) == 0;

  if (!ffm_estimate_query_get_technology (query, NAN, MIN_NODE_NM, MAX_NODE_NM, &nm,
                                          error))
    return FALSE;

  if (g_ascii_strcasecmp (class_name, "intadder") == 0
      || g_ascii_strcasecmp (class_name, "fpadder") == 0)
    {
      double w;
      if (!action_is (action, "add,read"))
        return ffm_estimate_query_unsupported (query, error, "no action '%s'", action);
      if (fp ? !fp_width (query, &w, error)
             : (!ffm_estimate_query_get_number (query, "n_bits|width|precision|datawidth",
                                                NAN, 1, 4096, &w, error)
                || !in_range (query, w, 4, 64, error)))
        return FALSE;
      at_width (fp ? &fp_add : &int_add, w, &energy, &area);
    }
  else if (g_ascii_strcasecmp (class_name, "intmultiplier") == 0
           || g_ascii_strcasecmp (class_name, "fpmultiplier") == 0)
    {
      double w;
      if (!action_is (action, "multiply,read"))
        return ffm_estimate_query_unsupported (query, error, "no action '%s'", action);
      if (fp)
        {
          if (!fp_width (query, &w, error))
            return FALSE;
        }
      else if (ffm_estimate_query_get_text (query, "width_a") != NULL)
        {
          double wa, wb;
          if (!ffm_estimate_query_get_number (query, "width_a", NAN, 1, 4096, &wa,
                                              error)
              || !ffm_estimate_query_get_number (query, "width_b", wa, 1, 4096, &wb,
                                                 error))
            return FALSE;
          w = sqrt (wa * wb);   /* the same product of widths */
        }
      else if (!ffm_estimate_query_get_number (query, "n_bits|width|datawidth", NAN,
                                               1, 4096, &w, error))
        return FALSE;
      if (!in_range (query, w, 4, 64, error))
        return FALSE;
      at_width (fp ? &fp_mult : &int_mult, w, &energy, &area);
    }
  else if (g_ascii_strcasecmp (class_name, "intmac") == 0
           || g_ascii_strcasecmp (class_name, "fpmac") == 0)
    {
      double w, aw;
      if (!action_is (action, "compute,mac_random,mac_reused"))
        return ffm_estimate_query_unsupported (query, error, "no action '%s'", action);
      if (fp ? !fp_width (query, &w, error)
             : (!ffm_estimate_query_get_number (query, "multiplier_width|datawidth|width",
                                                NAN, 1, 4096, &w, error)
                || !in_range (query, w, 4, 64, error)))
        return FALSE;
      if (!ffm_estimate_query_get_number (query, "adder_width", fp ? w : 2 * w, 1,
                                          8192, &aw, error)
          || !in_range (query, aw, 4, 128, error))
        return FALSE;
      at_width (fp ? &fp_mult : &int_mult, w, &energy, &area);
      at_width (fp ? &fp_add : &int_add, aw, &e, &a);
      energy += e;
      area += a;
    }
  else
    return ffm_estimate_query_unsupported (query, error, "not a Horowitz class");

  if (action != NULL)
    estimate->energy = energy * ffm_technology_energy_scale (TABLE_NODE_NM, nm, NAN);
  estimate->area = area * ffm_technology_area_scale (TABLE_NODE_NM, nm);
  estimate->accuracy = fp ? FP_ACCURACY : INT_ACCURACY;
  return TRUE;
}

static const FfmEstimatorVTable horowitz_vtable = {
  .struct_size = sizeof (FfmEstimatorVTable),
  .classes = horowitz_classes,
  .estimate = horowitz_estimate,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_ESTIMATOR, HOROWITZ_NAME, "1.0",
                   "integer and floating-point adders, multipliers, MACs: Horowitz "
                   "ISSCC 2014 45 nm table scaled by width and node", estimator,
                   &horowitz_vtable)
