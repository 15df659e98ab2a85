/* edge.c: the ~33 TOPS edge accelerator architecture model.
 *
 * The accelerator the FFM paper designs in §8 [1] (the "FFM" accelerator,
 * also the hardware of its TransFusion baseline): organised like TPUv4i,
 * with a 5 MB global buffer, one 128x128 matrix unit, a 256-lane vector
 * unit for softmax and normalisation, and off-chip LPDDR4. The hierarchy,
 * outermost first:
 *
 *   MainMemory         LPDDR4; keeps every tensor that is not an
 *                      intermediate
 *   GlobalBuffer       5 MiB; keeps what MainMemory does not, may keep any;
 *                      separate read and write ports
 *   VectorUnit         compute for 2-tensor Einsums, 256 operations per cycle
 *   ProcessingElement  fanout reuse_input x128, reuse_output x128, both
 *                      filled
 *   Register           one weight per PE
 *   MAC                compute for 3-tensor Einsums, one MAC per cycle
 *
 * No local buffer: the paper names none ([2] §3.2 recommends leaving it
 * out).
 *
 * The paper's Table 3 (energies, bandwidths, clocks) is not available, so
 * most numbers are labelled estimates from [2] §3.2 and §7. Each one is a
 * parameter, and its help text and docs/architectures.md say which numbers
 * are estimates and where each comes from:
 *   paper [1] §8    5 MB global buffer, 128x128 MACs, 256 vector lanes,
 *                   LPDDR4
 *   MODEL           LPDDR4 8 pJ/bit (hwcomponents / Accelergy LPDDR4 model
 *                   the paper cites); global buffer 0.314 / 0.342 pJ/bit,
 *                   1.61 mm^2, 0.47 mW leak (CACTI 7 through hwcomponents,
 *                   7 nm, 1024-bit wide, 16 banks, as the paper does)
 *   EST             LPDDR4 25.6 GB/s (LPDDR4-3200 x64); clock 1.0 GHz
 *                   (128*128*2*f = 33 TOPS gives f = 1.007 GHz); global
 *                   buffer 2048 / 1024 GB/s (TPUv4i's CMEM); MAC 0.084 pJ
 *                   (TPUv4i's); vector unit 0 pJ/op (the reference TPU
 *                   convention; 0.1 to 0.37 pJ would be realistic); 7 nm
 *                   technology (the design mirrors TPUv4i)
 *
 * The register is sized as in tpuv4i.c: by default it holds one weight of
 * the workload's width (weight_bits=N sizes it at N bits instead).
 *
 * Energies, leakage and area that follow the design: the global buffer's
 * read and write energy, leakage and area are the published numbers above
 * (at 5 MiB and 7 nm) times the ratio of the SRAM estimator's answer for
 * the buffer asked for (glb_mib, technology_nm; 1024-bit words, 16 banks)
 * to its answer at 5 MiB and 7 nm (ffm-estimator.h; the sram estimator
 * fits CACTI 7). At the published size the ratio is exactly 1, so the
 * defaults give the numbers above; a 40 MiB buffer costs what CACTI says a
 * 40 MiB buffer costs relative to a 5 MiB one. The register's area comes
 * from the register estimator at technology_nm (8 bits when weight_bits is
 * 0); its access energy stays 0, the reference convention of counting it
 * in the MAC's. The MAC's area comes from the intmac estimator (8-bit
 * multiplier, 16-bit adder) at technology_nm, so that a larger array costs
 * area; its energy stays mac_pj.
 *
 * [1] Fast and Fusiest Mapper paper, §8.
 * [2] accelforge's architecture files (the DRAM figures) and the papers
 *     they cite; where they leave gaps, the estimates are labelled here.
 *
 * Units: parameters are in the units their help names (MiB, GB/s, pJ/bit,
 * GHz, mW); the architecture built is SI (bits, J per action, actions/s,
 * W, m^2). */
#include <ffm/ffm.h>
#include <ffm/ffm-single-arch-model.h>

#include <math.h>

#define EDGE_ARCH_NAME "edge"

#define MIB_BITS (1024.0 * 1024.0 * 8.0)  /* bits in one MiB */
#define GBPS_BITS 8e9                      /* bits/s in one GB/s */
#define PJ 1e-12                           /* J in one pJ */
#define MW 1e-3                            /* W in one mW */
#define GHZ 1e9                            /* Hz in one GHz */

/* Global buffer area at 5 MiB ([2] §3.2, CACTI 7 nm), m^2; other sizes and
 * nodes scale it by the SRAM estimator's ratio. */
#define GLB_AREA_5MIB 1.61e-6
/* The published global buffer the numbers above describe. */
#define GLB_PUBLISHED_MIB 5.0
#define PUBLISHED_NODE_NM 7.0
#define GLB_WORD_BITS 1024.0
#define GLB_BANKS 16.0

/* The parameter values, read from the user's settings and the defaults. */
typedef struct {
  double glb_mib;                 /* MiB */
  double clock_ghz;               /* GHz */
  double dram_gbps;               /* GB/s, each of read and write */
  double dram_pj_per_bit;         /* pJ/bit, read and write */
  double glb_read_pj_per_bit;     /* pJ/bit */
  double glb_write_pj_per_bit;    /* pJ/bit */
  double glb_read_gbps;           /* GB/s */
  double glb_write_gbps;          /* GB/s */
  double glb_leak_mw;             /* mW */
  double mac_pj;                  /* pJ per MAC */
  double vector_pj;               /* pJ per vector-lane operation */
  gint64 array_rows;              /* PEs per column: reduce into one output */
  gint64 array_cols;              /* PEs per row: share one input */
  gint64 vector_lanes;            /* vector operations per cycle */
  gint64 weight_bits;             /* register size in bits; 0 = one weight */
  double technology_nm;           /* nm */
} EdgeConfig;

static const FfmParamSpec edge_params[] = {
  { "glb_mib", FFM_PARAM_NUMBER, "5",
    "global buffer capacity, MiB [paper 8: \"5 MB\", read as MiB; 4.768 = 5e6 bytes]",
    0.001, 1e6, NULL },
  { "array_rows", FFM_PARAM_INTEGER, "128",
    "matrix unit rows: PEs that reduce into one output (reuse_output) [paper 8]", 1, 4096, NULL },
  { "array_cols", FFM_PARAM_INTEGER, "128",
    "matrix unit columns: PEs that share one input (reuse_input) [paper 8]", 1, 4096, NULL },
  { "vector_lanes", FFM_PARAM_INTEGER, "256",
    "vector unit operations per cycle (2-tensor Einsums) [paper 8]", 1, 65536, NULL },
  { "clock_ghz", FFM_PARAM_NUMBER, "1.0",
    "clock of the MACs and the vector unit, GHz [EST: 128*128*2*f = 33 TOPS]", 0.001, 100, NULL },
  { "dram_gbps", FFM_PARAM_NUMBER, "25.6",
    "LPDDR4 bandwidth, GB/s, for reads and for writes [EST: LPDDR4-3200 x64; 17-34 plausible]",
    0.001, 1e6, NULL },
  { "dram_pj_per_bit", FFM_PARAM_NUMBER, "8",
    "LPDDR4 energy per bit read or written, pJ/bit [MODEL: hwcomponents/Accelergy LPDDR4]",
    0, 1000, NULL },
  { "glb_read_pj_per_bit", FFM_PARAM_NUMBER, "0.314",
    "global buffer read energy at 5 MiB, 7 nm, pJ/bit; scaled to glb_mib and "
    "technology_nm by the SRAM estimator [MODEL: CACTI 7 nm, 1024 b wide, 16 banks]",
    0, 1000, NULL },
  { "glb_write_pj_per_bit", FFM_PARAM_NUMBER, "0.342",
    "global buffer write energy at 5 MiB, 7 nm, pJ/bit; scaled like the read "
    "energy [MODEL: CACTI 7 nm, 1024 b wide, 16 banks]", 0, 1000, NULL },
  { "glb_read_gbps", FFM_PARAM_NUMBER, "2048",
    "global buffer read bandwidth, GB/s (own port) [EST: TPUv4i CMEM]", 0.001, 1e6, NULL },
  { "glb_write_gbps", FFM_PARAM_NUMBER, "1024",
    "global buffer write bandwidth, GB/s (own port) [EST: TPUv4i CMEM]", 0.001, 1e6, NULL },
  { "glb_leak_mw", FFM_PARAM_NUMBER, "0.47",
    "global buffer leakage power at 5 MiB, 7 nm, mW; scaled like the energies "
    "[MODEL: CACTI 7 nm, at 5 MiB]", 0, 1e6, NULL },
  { "mac_pj", FFM_PARAM_NUMBER, "0.084",
    "energy per MAC, pJ [EST: TPUv4i's MAC; Aladdin 7 nm int8 gives 0.109]", 0, 1000, NULL },
  { "vector_pj", FFM_PARAM_NUMBER, "0",
    "energy per vector operation, pJ [EST: 0 as the reference TPU; 0.1-0.37 realistic]",
    0, 1000, NULL },
  { "weight_bits", FFM_PARAM_INTEGER, "0",
    "PE register size, bits; 0 = one weight of the workload's width", 0, 64, NULL },
  { "technology_nm", FFM_PARAM_NUMBER, "7",
    "process node, nm: scales the global buffer and register by the estimators "
    "[EST: 7 as TPUv4i]", 7, 130, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL }
};

/* Where each parameter of edge_params lands in an EdgeConfig, same order. */
static const gsize edge_param_offsets[] = {
  G_STRUCT_OFFSET (EdgeConfig, glb_mib),
  G_STRUCT_OFFSET (EdgeConfig, array_rows),
  G_STRUCT_OFFSET (EdgeConfig, array_cols),
  G_STRUCT_OFFSET (EdgeConfig, vector_lanes),
  G_STRUCT_OFFSET (EdgeConfig, clock_ghz),
  G_STRUCT_OFFSET (EdgeConfig, dram_gbps),
  G_STRUCT_OFFSET (EdgeConfig, dram_pj_per_bit),
  G_STRUCT_OFFSET (EdgeConfig, glb_read_pj_per_bit),
  G_STRUCT_OFFSET (EdgeConfig, glb_write_pj_per_bit),
  G_STRUCT_OFFSET (EdgeConfig, glb_read_gbps),
  G_STRUCT_OFFSET (EdgeConfig, glb_write_gbps),
  G_STRUCT_OFFSET (EdgeConfig, glb_leak_mw),
  G_STRUCT_OFFSET (EdgeConfig, mac_pj),
  G_STRUCT_OFFSET (EdgeConfig, vector_pj),
  G_STRUCT_OFFSET (EdgeConfig, weight_bits),
  G_STRUCT_OFFSET (EdgeConfig, technology_nm),
};

G_STATIC_ASSERT (G_N_ELEMENTS (edge_param_offsets) == G_N_ELEMENTS (edge_params) - 1);

#define EDGE_SUMMARY \
  "~33 TOPS edge accelerator of the FFM paper 8 (5 MiB global buffer, " \
  "128x128 MACs, 256-lane vector unit, LPDDR4). Paper Table 3 missing: " \
  "ESTIMATES are LPDDR4 25.6 GB/s (LPDDR4-3200 x64), clock 1.0 GHz " \
  "(33 TOPS / 128x128x2), buffer 2048/1024 GB/s and MAC 0.084 pJ (TPUv4i), " \
  "vector 0 pJ/op (reference TPU convention); MODELLED: LPDDR4 8 pJ/bit " \
  "(hwcomponents), buffer 0.314/0.342 pJ/bit (CACTI, 7 nm assumed). " \
  "See docs/architectures.md"

#define EDGE_SOURCE \
  "FFM paper 8 (structure: 5 MB buffer, 128x128 MACs, 256-lane vector unit, " \
  "LPDDR4); hwcomponents LPDDR4 model (8 pJ/bit); CACTI 7 through " \
  "hwcomponents-cacti at 7 nm (buffer energy, area, leak); the rest are " \
  "labelled estimates, see docs/architectures.md"

/* ---- Parameters ---- */

/* ---- Hierarchy ---- */

static void
add_main_memory (FfmArch *arch, const EdgeConfig *c)
{
  FfmLevel *level = ffm_arch_add_memory (arch, "MainMemory");
  FfmMemorySpec *m = &level->u.memory;

  m->size = INFINITY;
  m->read_energy = c->dram_pj_per_bit * PJ;
  m->write_energy = c->dram_pj_per_bit * PJ;
  m->read_bandwidth = c->dram_gbps * GBPS_BITS;
  m->write_bandwidth = c->dram_gbps * GBPS_BITS;
  m->ports = FFM_PORTS_SHARED;
  m->keep = g_strdup ("~intermediates");
  m->may_keep = g_strdup ("all");
  level->description = g_strdup ("off-chip LPDDR4: energy from the hwcomponents LPDDR4 "
                                 "model [MODEL], bandwidth LPDDR4-3200 x64 [EST]");
}

/* The SRAM estimator's read and write answers for a global buffer of @mib
 * at @nm. */
static gboolean
estimate_glb (double mib, double nm, FfmComponentEstimate *read,
              FfmComponentEstimate *write, GError **error)
{
  g_autoptr (FfmParamValues) attrs = ffm_param_values_new ();
  g_autofree char *depth = g_strdup_printf ("%.17g", mib * MIB_BITS / GLB_WORD_BITS);
  g_autofree char *tech = g_strdup_printf ("%.17g", nm);

  ffm_param_values_set (attrs, "width", "1024");
  ffm_param_values_set (attrs, "depth", depth);
  ffm_param_values_set (attrs, "n_banks", "16");
  ffm_param_values_set (attrs, "technology", tech);
  return ffm_estimate_component ("GlobalBuffer", "SRAM", attrs, "read", read, error)
         && ffm_estimate_component ("GlobalBuffer", "SRAM", attrs, "write", write, error);
}

/* Ratio of @now to @published, exactly 1 when they are equal. */
static double
ratio (const FfmEstimatedValue *now, const FfmEstimatedValue *published)
{
  return now->value == published->value ? 1.0 : now->value / published->value;
}

static gboolean
add_global_buffer (FfmArch *arch, const EdgeConfig *c, GError **error)
{
  FfmLevel *level = ffm_arch_add_memory (arch, "GlobalBuffer");
  FfmMemorySpec *m = &level->u.memory;
  FfmComponentEstimate read, write, read0, write0;

  if (!estimate_glb (c->glb_mib, c->technology_nm, &read, &write, error)
      || !estimate_glb (GLB_PUBLISHED_MIB, PUBLISHED_NODE_NM, &read0, &write0, error))
    return FALSE;
  m->size = c->glb_mib * MIB_BITS;
  m->read_energy = c->glb_read_pj_per_bit * PJ * ratio (&read.energy, &read0.energy);
  m->write_energy = c->glb_write_pj_per_bit * PJ * ratio (&write.energy, &write0.energy);
  m->read_bandwidth = c->glb_read_gbps * GBPS_BITS;
  m->write_bandwidth = c->glb_write_gbps * GBPS_BITS;
  m->ports = FFM_PORTS_SEPARATE;
  m->keep = g_strdup ("~MainMemory");
  m->may_keep = g_strdup ("all");
  level->leak_power = c->glb_leak_mw * MW * ratio (&read.leak_power, &read0.leak_power);
  level->area = GLB_AREA_5MIB * ratio (&read.area, &read0.area);
  level->description = g_strdup ("on-chip SRAM: energy and leak from CACTI 7 nm [MODEL] "
                                 "at 5 MiB, scaled to its size and node by the SRAM "
                                 "estimator; bandwidths copied from TPUv4i [EST]");
  level->estimated_by = g_strdup_printf ("read_energy, write_energy, leak_power, area: "
                                         "published 5 MiB, 7 nm numbers x %s's ratio "
                                         "(%g %%)", read.energy.estimator,
                                         read.energy.accuracy);
  return TRUE;
}

static void
add_vector_unit (FfmArch *arch, const EdgeConfig *c)
{
  FfmLevel *level = ffm_arch_add_compute (arch, "VectorUnit");
  FfmComputeSpec *u = &level->u.compute;

  u->energy = c->vector_pj * PJ;
  u->throughput = c->clock_ghz * GHZ * (double) c->vector_lanes;
  u->enabled = g_strdup ("len(all) == 2");
  level->description = g_strdup ("vector unit for 2-tensor Einsums (softmax, "
                                 "normalisation): lanes [paper], clock and energy [EST]");
}

static void
add_pe_array (FfmArch *arch, const EdgeConfig *c)
{
  FfmLevel *level = ffm_arch_add_fanout (arch, "ProcessingElement");
  FfmFanoutDim *in = ffm_level_add_fanout_dim (level, "reuse_input",
                                               (guint64) c->array_cols);
  FfmFanoutDim *out = ffm_level_add_fanout_dim (level, "reuse_output",
                                                (guint64) c->array_rows);

  in->reuse = g_strdup ("input");
  in->min_usage = 1.0;
  out->reuse = g_strdup ("output");
  out->min_usage = 1.0;
  level->description = g_strdup ("weight-stationary matrix unit: inputs shared along a "
                                 "row, outputs reduced along a column");
}

static gboolean
add_register (FfmArch *arch, const EdgeConfig *c, GError **error)
{
  FfmLevel *level = ffm_arch_add_memory (arch, "Register");
  FfmMemorySpec *m = &level->u.memory;
  g_autoptr (FfmParamValues) attrs = ffm_param_values_new ();
  g_autofree char *bits = g_strdup_printf ("%d", c->weight_bits > 0
                                                   ? (int) c->weight_bits : 8);
  g_autofree char *tech = g_strdup_printf ("%.17g", c->technology_nm);
  FfmComponentEstimate reg;

  ffm_param_values_set (attrs, "n_bits", bits);
  ffm_param_values_set (attrs, "technology", tech);
  if (!ffm_estimate_component ("Register", "register", attrs, NULL, &reg, error))
    return FALSE;

  if (c->weight_bits == 0)
    {
      /* One weight of the workload's width (0 when there is no weight). */
      m->size = NAN;
      m->size_per_einsum = g_strdup ("weight.bits_per_value");
    }
  else
    m->size = (double) c->weight_bits;
  m->read_energy = 0;
  m->write_energy = 0;
  m->read_bandwidth = INFINITY;
  m->write_bandwidth = INFINITY;
  m->keep = g_strdup ("weight");
  level->area = reg.area.value;
  level->leak_power = reg.leak_power.value;
  level->description = g_strdup ("the one stationary weight of a PE; area and leak "
                                 "from the register estimator, access energy in "
                                 "the MAC's");
  level->estimated_by = g_strdup_printf ("leak_power, area: %s (%g %%)",
                                         reg.area.estimator, reg.area.accuracy);
  return TRUE;
}

static gboolean
add_mac (FfmArch *arch, const EdgeConfig *c, GError **error)
{
  FfmLevel *level = ffm_arch_add_compute (arch, "MAC");
  FfmComputeSpec *u = &level->u.compute;
  g_autoptr (FfmParamValues) attrs = ffm_param_values_new ();
  g_autofree char *tech = g_strdup_printf ("%.17g", c->technology_nm);
  FfmComponentEstimate mac;

  ffm_param_values_set (attrs, "multiplier_width", "8");
  ffm_param_values_set (attrs, "adder_width", "16");
  ffm_param_values_set (attrs, "technology", tech);
  if (!ffm_estimate_component ("MAC", "intmac", attrs, NULL, &mac, error))
    return FALSE;

  u->energy = c->mac_pj * PJ;
  u->throughput = c->clock_ghz * GHZ;
  u->enabled = g_strdup ("len(all) == 3");
  level->area = mac.area.value;
  level->description = g_strdup ("multiply-accumulate for 3-tensor Einsums: energy "
                                 "TPUv4i's [EST], clock [EST], area from the intmac "
                                 "estimator");
  level->estimated_by = g_strdup_printf ("area: %s (%g %%)", mac.area.estimator,
                                         mac.area.accuracy);
  return TRUE;
}

/* ---- The model ---- */

static gboolean
edge_add_levels (FfmArch *arch, const void *data, GError **error)
{
  const EdgeConfig *config = data;

  add_main_memory (arch, config);
  if (!add_global_buffer (arch, config, error))
    return FALSE;
  add_vector_unit (arch, config);
  add_pe_array (arch, config);
  return add_register (arch, config, error) && add_mac (arch, config, error);
}

static const FfmSingleArchModel edge_model = {
  .name = EDGE_ARCH_NAME,
  .summary = EDGE_SUMMARY,
  .source = EDGE_SOURCE,
  .params = edge_params,
  .param_offsets = edge_param_offsets,
  .config_size = sizeof (EdgeConfig),
  .add_levels = edge_add_levels,
};

FFM_SINGLE_ARCH_MODEL_DEFINE (edge_model, EDGE_ARCH_NAME, "1.0",
                              "~33 TOPS edge accelerator of the FFM paper (section 8; "
                              "some numbers estimated)")
