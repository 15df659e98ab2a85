/* aladdin.c: integer arithmetic, registers and comparators from the Aladdin
 * tables, scaled by bit width and technology node.
 *
 * The numbers are the 45 nm rows Accelergy's library plug-in carries for
 * its aladdin_* classes, characterised with Aladdin [1] (synthesised
 * units at 1 GHz); they are the rows the timeloop-accelergy-exercises'
 * stored logs print ("Best-matching entry"), so a Timeloop design that
 * uses these classes gets the numbers its stored ERT holds:
 *
 *   class          width   energy (pJ)          leakage (pJ/ns)   area (um^2)
 *   adder          32      0.21 per add         0.0024            278
 *   multiplier     32x32   12.68 per multiply   0.08              6350
 *   register       1       0.009 read, 0 write  0                 5.98
 *   comparator     32      0.02947 per compare  2.51e-5           71
 *
 * Scaling, first order: adders, registers and comparators linearly with
 * their width, multipliers with the product of their operand widths (the
 * aladdin_multiplier class as the library plug-in does: linearly in each
 * of width, width_a and width_b given, 32 for those not given); energy and leakage from 45 nm to the node with the
 * Stillmaker-Baas energy polynomial at 0.8 V, area with their area table
 * [2] (ffm_technology_energy_scale()).
 *
 * Two families of classes:
 *   - aladdin_adder, aladdin_multiplier, aladdin_register,
 *     aladdin_comparator keep the library plug-in's reading of the table:
 *     the width is attribute width (or datawidth; width_a/width_b too for
 *     the multiplier), 32 (1 for the register) when absent, and any other
 *     attribute (n_bits) is ignored, so a Timeloop design's compound
 *     classes sum to its stored ERT;
 *   - intadder, intmultiplier, intmac, register, comparator, counter read
 *     the width from n_bits, width, precision or datawidth (required) and
 *     charge a register write like a read.
 *
 * [1] Y. S. Shao, B. Reagen, G.-Y. Wei, D. Brooks, "Aladdin: a pre-RTL,
 *     power-performance accelerator simulator", ISCA 2014.
 * [2] A. Stillmaker, B. Baas, "Scaling equations for the accurate
 *     prediction of CMOS device performance from 180 nm to 7 nm",
 *     Integration 58 (2017). */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#define ALADDIN_NAME "aladdin"
#define ALADDIN_ACCURACY 70.0      /* Accelergy's Aladdin table claims 70 % */
#define TABLE_NODE_NM 45.0
#define MIN_NODE_NM 7.0
#define MAX_NODE_NM 130.0
#define MAX_WIDTH 4096.0           /* bits */
#define PJ 1e-12
#define UM2 1e-12                  /* m^2 in one um^2 */
#define TABLE_CYCLE 1e-9           /* s: the table's leakage is pJ per 1 ns */

/* One table row at 45 nm: energy per action, leakage per cycle and area of
 * a unit of @width bits (the multiplier: @width x @width). */
typedef struct {
  double width;
  double energy_pj;
  double leak_pj_per_cycle;
  double area_um2;
} TableRow;

static const TableRow adder_row = { 32, 0.21, 0.0024, 278 };
static const TableRow multiplier_row = { 32, 12.68, 0.08, 6350 };
static const TableRow register_row = { 1, 0.009, 0, 5.98 };
static const TableRow comparator_row = { 32, 0.02947, 2.51e-5, 71 };

#define SOURCE "Aladdin 45 nm table (Shao et al., ISCA 2014) as in Accelergy's " \
  "library plug-in, scaled by width and node (Stillmaker-Baas 2017)"
#define TABLE_READING "Accelergy's reading of the table"

static const FfmEstimatorClass aladdin_classes[] = {
  { "aladdin_adder", "add,read,write,update",
    "width|datawidth (bits, 32), technology (nm); " TABLE_READING, SOURCE },
  { "aladdin_multiplier", "multiply,read,write,update",
    "width_a|datawidth_a, width_b|datawidth_b (bits, width|datawidth or 32), "
    "technology (nm); " TABLE_READING, SOURCE },
  { "aladdin_register", "read,write,update",
    "width|datawidth (bits, 1), technology (nm); write costs 0 as in the table",
    SOURCE },
  { "aladdin_comparator", "compare,read,write,update",
    "width|datawidth (bits, 32; n_bits ignored as in the table), technology (nm)",
    SOURCE },
  { "intadder", "add,read",
    "n_bits|width|precision|datawidth (bits), technology (nm)", SOURCE },
  { "intmultiplier", "multiply,read",
    "width_a, width_b or n_bits|width|datawidth (bits), technology (nm)", SOURCE },
  { "intmac", "compute,mac_random,mac_reused",
    "multiplier_width|datawidth (bits), adder_width (bits, 2 x multiplier_width), "
    "technology (nm); a multiplier plus an adder", SOURCE },
  { "register", "read,write,update",
    "n_bits|width|datawidth (bits), technology (nm); a write costs a read", SOURCE },
  { "comparator", "compare,read",
    "n_bits|width|datawidth (bits), technology (nm)", SOURCE },
  { "counter", "count,add,read",
    "n_bits|width|datawidth (bits), technology (nm); an adder of that width", SOURCE },
  { NULL, NULL, NULL, NULL }
};

/* Which unit a class is and how it reads its width. */
typedef enum {
  UNIT_ADDER,
  UNIT_MULTIPLIER,
  UNIT_REGISTER,
  UNIT_COMPARATOR,
  UNIT_MAC,
} Unit;

typedef struct {
  const char *name;
  Unit unit;
  gboolean table_reading;   /* aladdin_*: width attributes only, defaults */
  const char *actions;      /* actions with the unit's energy */
  const char *free_actions; /* actions that cost nothing */
} ClassRule;

static const ClassRule rules[] = {
  { "aladdin_adder", UNIT_ADDER, TRUE, "add,read", "write,update" },
  { "aladdin_multiplier", UNIT_MULTIPLIER, TRUE, "multiply,read", "write,update" },
  { "aladdin_register", UNIT_REGISTER, TRUE, "read", "write,update" },
  { "aladdin_comparator", UNIT_COMPARATOR, TRUE, "compare,read", "write,update" },
  { "intadder", UNIT_ADDER, FALSE, "add,read", "" },
  { "intmultiplier", UNIT_MULTIPLIER, FALSE, "multiply,read", "" },
  { "intmac", UNIT_MAC, FALSE, "compute,mac_random,mac_reused", "" },
  { "register", UNIT_REGISTER, FALSE, "read,write,update", "" },
  { "comparator", UNIT_COMPARATOR, FALSE, "compare,read", "" },
  { "counter", UNIT_ADDER, FALSE, "count,add,read", "" },
};

static const ClassRule *
find_rule (const char *class_name)
{
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    if (g_ascii_strcasecmp (rules[i].name, class_name) == 0)
      return &rules[i];
  return NULL;
}

static gboolean
list_has (const char *list, const char *item)
{
  g_auto (GStrv) parts = g_strsplit (list, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    if (g_ascii_strcasecmp (parts[i], item) == 0)
      return TRUE;
  return FALSE;
}

/* A row scaled to @factor times its width (the multiplier: @factor = the
 * product of the widths over 32 x 32) and to node @nm. */
typedef struct {
  double energy;     /* J */
  double leak;       /* W */
  double area;       /* m^2 */
} Scaled;

static Scaled
scale_row (const TableRow *row, double factor, double nm)
{
  double e_scale = ffm_technology_energy_scale (TABLE_NODE_NM, nm, NAN);
  double a_scale = ffm_technology_area_scale (TABLE_NODE_NM, nm);
  Scaled s;

  s.energy = row->energy_pj * PJ * factor * e_scale;
  s.leak = row->leak_pj_per_cycle * PJ / TABLE_CYCLE * factor * e_scale;
  s.area = row->area_um2 * UM2 * factor * a_scale;
  return s;
}

static void
add_scaled (Scaled *sum, Scaled part)
{
  sum->energy += part.energy;
  sum->leak += part.leak;
  sum->area += part.area;
}

static gboolean
read_width (const FfmEstimateQuery *query, const ClassRule *rule,
            const char *generic_names, double table_default, double *out,
            GError **error)
{
  if (rule->table_reading)
    return ffm_estimate_query_get_number (query, "width|datawidth", table_default,
                                          0, MAX_WIDTH, out, error);
  return ffm_estimate_query_get_number (query, generic_names, NAN, 1, MAX_WIDTH,
                                        out, error);
}

static gboolean
estimate_unit (const FfmEstimateQuery *query, const ClassRule *rule, double nm,
               Scaled *out, GError **error)
{
  double w, wa, wb;

  switch (rule->unit)
    {
    case UNIT_ADDER:
      if (!read_width (query, rule, "n_bits|width|precision|datawidth", 32, &w, error))
        return FALSE;
      *out = scale_row (&adder_row, w / adder_row.width, nm);
      return TRUE;
    case UNIT_REGISTER:
      if (!read_width (query, rule, "n_bits|width|datawidth", 1, &w, error))
        return FALSE;
      *out = scale_row (&register_row, w / register_row.width, nm);
      return TRUE;
    case UNIT_COMPARATOR:
      if (!read_width (query, rule, "n_bits|width|datawidth", 32, &w, error))
        return FALSE;
      *out = scale_row (&comparator_row, w / comparator_row.width, nm);
      return TRUE;
    case UNIT_MULTIPLIER:
      if (rule->table_reading)
        {
          /* The library plug-in scales by each attribute of the row that
           * is given, linearly, the others staying at 32: width=8 alone is
           * 0.25x the 32x32 row (the 2024 tutorial's intmac: 3.17 pJ). */
          if (!ffm_estimate_query_get_number (query, "width|datawidth", 32, 0,
                                              MAX_WIDTH, &w, error)
              || !ffm_estimate_query_get_number (query, "width_a|datawidth_a", 32, 0,
                                                 MAX_WIDTH, &wa, error)
              || !ffm_estimate_query_get_number (query, "width_b|datawidth_b", 32, 0,
                                                 MAX_WIDTH, &wb, error))
            return FALSE;
          *out = scale_row (&multiplier_row, (w / multiplier_row.width)
                                               * (wa / multiplier_row.width)
                                               * (wb / multiplier_row.width), nm);
          return TRUE;
        }
      else if (ffm_estimate_query_get_text (query, "width_a") != NULL)
        {
          if (!ffm_estimate_query_get_number (query, "width_a", NAN, 1, MAX_WIDTH,
                                              &wa, error)
              || !ffm_estimate_query_get_number (query, "width_b", wa, 1, MAX_WIDTH,
                                                 &wb, error))
            return FALSE;
        }
      else
        {
          if (!ffm_estimate_query_get_number (query, "n_bits|width|datawidth", NAN,
                                              1, MAX_WIDTH, &wa, error))
            return FALSE;
          wb = wa;
        }
      *out = scale_row (&multiplier_row,
                        wa * wb / (multiplier_row.width * multiplier_row.width), nm);
      return TRUE;
    case UNIT_MAC:
      {
        double mw, aw;
        if (!ffm_estimate_query_get_number (query, "multiplier_width|datawidth|width",
                                            NAN, 1, MAX_WIDTH, &mw, error)
            || !ffm_estimate_query_get_number (query, "adder_width", 2 * mw, 1,
                                               2 * MAX_WIDTH, &aw, error))
          return FALSE;
        *out = scale_row (&multiplier_row,
                          mw * mw / (multiplier_row.width * multiplier_row.width), nm);
        add_scaled (out, scale_row (&adder_row, aw / adder_row.width, nm));
        return TRUE;
      }
    }
  return FALSE;
}

static gboolean
aladdin_estimate (const FfmEstimateQuery *query, FfmEstimate *estimate,
                  GError **error)
{
  const ClassRule *rule = find_rule (ffm_estimate_query_get_class (query));
  const char *action = ffm_estimate_query_get_action (query);
  Scaled s;
  double nm;

  if (rule == NULL)
    return ffm_estimate_query_unsupported (query, error, "not an Aladdin class");
  if (action != NULL && !list_has (rule->actions, action)
      && !list_has (rule->free_actions, action))
    return ffm_estimate_query_unsupported (query, error, "no action '%s'", action);
  if (!ffm_estimate_query_get_technology (query, NAN, MIN_NODE_NM, MAX_NODE_NM, &nm,
                                          error)
      || !estimate_unit (query, rule, nm, &s, error))
    return FALSE;

  if (action != NULL)
    estimate->energy = list_has (rule->actions, action) ? s.energy : 0;
  estimate->leak_power = s.leak;
  estimate->area = s.area;
  estimate->accuracy = ALADDIN_ACCURACY;
  return TRUE;
}

static const FfmEstimatorVTable aladdin_vtable = {
  .struct_size = sizeof (FfmEstimatorVTable),
  .classes = aladdin_classes,
  .estimate = aladdin_estimate,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_ESTIMATOR, ALADDIN_NAME, "1.0",
                   "integer adders, multipliers, MACs, registers, comparators: "
                   "Aladdin 45 nm table scaled by width and node", estimator,
                   &aladdin_vtable)
