/* dram.c: off-chip DRAM energy per bit and bandwidth by kind.
 *
 * An access of `width` bits costs width x the kind's energy per bit; the
 * interface moves width x data_rate bits per second. DRAM's background
 * (refresh, standby) power is not modelled (leakage 0), nor its area (off
 * chip, 0), as in Accelergy's DRAM class. The kinds, with the published
 * figure each number comes from:
 *
 *   type     pJ/bit  source of the energy           width  MT/s   GB/s
 *   LPDDR4   8       Accelergy's DRAM table [1]     64     3200   25.6
 *   DDR4     44.8    DDR3's 70 pJ/bit [2] x (1.2 V / 1.5 V)^2, derived
 *                                                   64     3200   25.6
 *   HBM2     3.9     O'Connor et al. [3]            1024   2000   256
 *   GDDR6    7.5     Micron's comparison [4]        32     16000  64
 *   HBM2E    6.0     Micron's comparison [4]        1024   3600   461
 *   GDDR5    14      O'Connor et al. [3]            32     8000   32
 *   DDR3     70      Malladi et al. [2]             64     1600   12.8
 *   LPDDR    40      Malladi et al. [2]             32     400    1.6
 *
 * Widths are one interface (a 64-bit channel, a 1024-bit HBM stack, a
 * 32-bit GDDR device) and data rates the standards' top speed grades
 * (JEDEC JESD209-4 LPDDR4-3200, JESD79-4 DDR4-3200, JESD235A HBM2 2 Gb/s
 * per pin, JESD250 GDDR6 16 Gb/s per pin; HBM2E 3.6 Gb/s per Micron [4];
 * GDDR5 8 Gb/s; DDR3-1600; LPDDR-400). Attributes width and data_rate
 * override them.
 *
 * [1] Accelergy's CACTI plug-in, DRAM energy table ("public data"); the
 *     timeloop-accelergy-exercises' stored ERTs charge 512 pJ per 64-bit
 *     LPDDR4 access with it.
 * [2] K. Malladi et al., "Towards energy-proportional datacenter memory
 *     with mobile DRAM", ISCA 2012.
 * [3] M. O'Connor et al., "Fine-grained DRAM: energy-efficient DRAM for
 *     extreme bandwidth systems", MICRO 2017.
 * [4] Micron, "Ultra-bandwidth solutions" memory comparison (GDDR6 7.5,
 *     GDDR6X 7.25, HBM2E 6.0 pJ/bit average device power). */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#define DRAM_NAME "dram"
#define PJ 1e-12

typedef struct {
  const char *type;
  double pj_per_bit;
  double width;           /* bits per access: one interface */
  double data_rate;       /* MT/s per pin */
  double accuracy;        /* percent */
} DramKind;

/* Accuracy: 80 % for the figures published for the kind itself, 50 % for
 * the DDR4 figure derived by voltage scaling. */
static const DramKind kinds[] = {
  { "LPDDR4", 8, 64, 3200, 80 },
  { "DDR4", 44.8, 64, 3200, 50 },
  { "HBM2", 3.9, 1024, 2000, 80 },
  { "GDDR6", 7.5, 32, 16000, 80 },
  { "HBM2E", 6.0, 1024, 3600, 80 },
  { "GDDR5", 14, 32, 8000, 80 },
  { "DDR3", 70, 64, 1600, 80 },
  { "LPDDR", 40, 32, 400, 80 },
};

static const FfmEstimatorClass dram_classes[] = {
  { "DRAM", "read,write,update",
    "type (LPDDR4, DDR4, HBM2, GDDR6, HBM2E, GDDR5, DDR3, LPDDR; LPDDR4), "
    "width (bits per access, the interface's), data_rate (MT/s per pin)",
    "per-bit energies of Accelergy's DRAM table, O'Connor et al. MICRO 2017, "
    "Micron, Malladi et al. ISCA 2012; JEDEC data rates" },
  { NULL, NULL, NULL, NULL }
};

static const DramKind *
find_kind (const char *type)
{
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (g_ascii_strcasecmp (kinds[i].type, type) == 0)
      return &kinds[i];
  return NULL;
}

static gboolean
dram_estimate (const FfmEstimateQuery *query, FfmEstimate *estimate,
               GError **error)
{
  const char *action = ffm_estimate_query_get_action (query);
  const char *type = ffm_estimate_query_get_text (query, "type");
  const DramKind *kind;
  double width, rate;

  if (action != NULL && g_ascii_strcasecmp (action, "read") != 0
      && g_ascii_strcasecmp (action, "write") != 0
      && g_ascii_strcasecmp (action, "update") != 0)
    return ffm_estimate_query_unsupported (query, error, "no action '%s'", action);
  kind = find_kind (type != NULL ? type : "LPDDR4");
  if (kind == NULL)
    {
      g_autoptr (GString) known = g_string_new (NULL);
      for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
        g_string_append_printf (known, "%s%s", i > 0 ? ", " : "", kinds[i].type);
      return ffm_estimate_query_fail (query, error, "type", "unknown DRAM type '%s' "
                                      "(known: %s)", type, known->str);
    }
  if (!ffm_estimate_query_get_number (query, "width", kind->width, 1, 1 << 20,
                                      &width, error)
      || !ffm_estimate_query_get_number (query, "data_rate", kind->data_rate, 1, 1e6,
                                         &rate, error))
    return FALSE;

  if (action != NULL)
    estimate->energy = kind->pj_per_bit * PJ * width;
  estimate->leak_power = 0;
  estimate->area = 0;
  estimate->bandwidth = width * rate * 1e6;
  estimate->action_bits = width;
  estimate->accuracy = kind->accuracy;
  return TRUE;
}

static const FfmEstimatorVTable dram_vtable = {
  .struct_size = sizeof (FfmEstimatorVTable),
  .classes = dram_classes,
  .estimate = dram_estimate,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_ESTIMATOR, DRAM_NAME, "1.0",
                   "off-chip DRAM (LPDDR4, DDR4, HBM2, GDDR6, ...): published "
                   "energy per bit and JEDEC bandwidths", estimator, &dram_vtable)
