/* tpuv4i.c: the TPUv4i architecture model.
 *
 * The accelerator the FFM paper evaluates on (§7.1 [1]), after Google's
 * TPUv4i [2]. The hierarchy, outermost first:
 *
 *   MainMemory         DRAM, 614 GB/s, 7.03 pJ/bit; keeps every tensor that
 *                      is not an intermediate, may keep any
 *   GlobalBuffer       128 MiB (CMEM); keeps what MainMemory does not (the
 *                      intermediates), may keep any; separate read and
 *                      write ports
 *   Cores              fanout Z x4: the cores share nothing (may_reuse
 *                      nothing) and a mapping must use all four (min_usage 1)
 *   LocalBuffer        4 MiB per core; keeps input | output (weights bypass
 *                      it)
 *   ScalarUnit         compute for 2-tensor Einsums (softmax, copies), 128
 *                      operations per cycle per core
 *   ProcessingElement  fanout reuse_input x128 (PEs that share one input)
 *                      and reuse_output x128 (PEs that reduce into one
 *                      output), both to be filled: the weight-stationary
 *                      128x128 array
 *   Register           one weight per PE
 *   MAC                compute for 3-tensor Einsums, one MAC per cycle
 *
 * The per-action energies and bandwidths are those of the reference
 * model's tpu_v4i architecture ([3] §3.1, [4] §2.4), which takes them from
 * [2]. Every number is a parameter; the defaults reproduce the paper.
 *
 * The register holds exactly one weight of the workload's width: its size
 * is the expression "weight.bits_per_value", evaluated per Einsum, as in the
 * reference (0 for Einsums without a weight, which do not run on the MACs).
 * weight_bits=N fixes it at N bits instead (a wider weight then fits
 * nowhere, a narrower one leaves room for several).
 *
 * Energies and areas that follow the design: the buffers' read and write
 * energies and areas are the published numbers (at 128 MiB and 4 MiB, 7
 * nm) times the ratio of the SRAM estimator's answer for the buffer asked
 * for (glb_mib, lb_mib, technology_nm; 1024-bit words, 16 banks) to its
 * answer at the published size (ffm-estimator.h; the sram estimator fits
 * CACTI 7), exactly 1 at the published sizes. The register's area scales
 * the same way from its published 8-bit area by the register estimator.
 * The reference gives no leakage and counts register accesses in the MAC's
 * energy: both stay 0 whatever the sizes.
 *
 * [1] Fast and Fusiest Mapper paper, §7.1.
 * [2] Jouppi et al., "Ten lessons from three generations shaped Google's
 *     TPUv4i", ISCA 2021.
 * [3] accelforge's architecture files and the papers they cite.
 * [4] the reference implementation (accelforge).
 *
 * Units: parameters are in the units their help names (MiB, GB/s, pJ/bit,
 * GHz); the architecture built is SI (bits, J per action, actions/s, m^2). */
#include <ffm/ffm.h>
#include <ffm/ffm-single-arch-model.h>

#include <math.h>

#define TPU_ARCH_NAME "tpuv4i"

#define MIB_BITS (1024.0 * 1024.0 * 8.0)  /* bits in one MiB */
#define GBPS_BITS 8e9                      /* bits/s in one GB/s */
#define PJ 1e-12                           /* J in one pJ */
#define GHZ 1e9                            /* Hz in one GHz */

/* Areas per instance at the default sizes ([3] §3.1), m^2. The buffers and
 * the register scale by the estimators' ratio, the scalar unit linearly
 * with its lanes (an estimate: area does not enter the objectives). */
#define GLB_AREA_128MIB 112e-6
#define LB_AREA_4MIB 51e-6
#define SCALAR_AREA_128LANES 8.7e-6
#define REGISTER_AREA 8.5e-11             /* 10 % of 14 mm^2 / 16384 PEs */
#define MAC_AREA 8.5e-10                  /* 90 % of 14 mm^2 / 16384 PEs */
/* The published buffers and register the numbers above describe. */
#define GLB_PUBLISHED_MIB 128.0
#define LB_PUBLISHED_MIB 4.0
#define REGISTER_PUBLISHED_BITS 8
#define PUBLISHED_NODE_NM 7.0

/* The parameter values, read from the user's settings and the defaults. */
typedef struct {
  double glb_mib;                 /* MiB */
  double lb_mib;                  /* MiB per core */
  double clock_ghz;               /* GHz */
  double dram_gbps;               /* GB/s, each of read and write */
  double dram_pj_per_bit;         /* pJ/bit, read and write */
  double glb_read_pj_per_bit;     /* pJ/bit */
  double glb_write_pj_per_bit;    /* pJ/bit */
  double glb_read_gbps;           /* GB/s */
  double glb_write_gbps;          /* GB/s */
  double lb_read_pj_per_bit;      /* pJ/bit */
  double lb_write_pj_per_bit;     /* pJ/bit */
  double mac_pj;                  /* pJ per MAC */
  double scalar_pj;               /* pJ per scalar operation */
  gint64 n_cores;
  gint64 array_rows;              /* PEs per column: reduce into one output */
  gint64 array_cols;              /* PEs per row: share one input */
  gint64 scalar_lanes;            /* scalar operations per cycle per core */
  gint64 weight_bits;             /* register size in bits; 0 = one weight */
  double technology_nm;           /* nm */
} TpuConfig;

static const FfmParamSpec tpu_params[] = {
  { "glb_mib", FFM_PARAM_NUMBER, "128",
    "global buffer (CMEM) capacity, MiB [paper 7.1]", 0.001, 1e6, NULL },
  { "n_cores", FFM_PARAM_INTEGER, "4",
    "number of cores (fanout Z under the global buffer) [paper 7.1]", 1, 1024, NULL },
  { "lb_mib", FFM_PARAM_NUMBER, "4",
    "local buffer capacity per core, MiB [paper 7.1]", 0.001, 1e6, NULL },
  { "array_rows", FFM_PARAM_INTEGER, "128",
    "PE array rows: PEs that reduce into one output (reuse_output) [paper 7.1]", 1, 4096, NULL },
  { "array_cols", FFM_PARAM_INTEGER, "128",
    "PE array columns: PEs that share one input (reuse_input) [paper 7.1]", 1, 4096, NULL },
  { "clock_ghz", FFM_PARAM_NUMBER, "1.05",
    "clock of the MACs and the scalar unit, GHz [paper 7.1]", 0.001, 100, NULL },
  { "dram_gbps", FFM_PARAM_NUMBER, "614",
    "DRAM bandwidth, GB/s, for reads and for writes [paper 7.1]", 0.001, 1e6, NULL },
  { "dram_pj_per_bit", FFM_PARAM_NUMBER, "7.03",
    "DRAM energy per bit read or written, pJ/bit [tpu_v4i model, TPUv4i paper]", 0, 1000, NULL },
  { "glb_read_pj_per_bit", FFM_PARAM_NUMBER, "1.88",
    "global buffer read energy at 128 MiB, pJ/bit; scaled to glb_mib and "
    "technology_nm by the SRAM estimator [tpu_v4i model]", 0, 1000, NULL },
  { "glb_write_pj_per_bit", FFM_PARAM_NUMBER, "2.36",
    "global buffer write energy at 128 MiB, pJ/bit; scaled likewise [tpu_v4i model]",
    0, 1000, NULL },
  { "glb_read_gbps", FFM_PARAM_NUMBER, "2048",
    "global buffer read bandwidth, GB/s (own port) [tpu_v4i model]", 0.001, 1e6, NULL },
  { "glb_write_gbps", FFM_PARAM_NUMBER, "1024",
    "global buffer write bandwidth, GB/s (own port) [tpu_v4i model]", 0.001, 1e6, NULL },
  { "lb_read_pj_per_bit", FFM_PARAM_NUMBER, "0.249",
    "local buffer read energy at 4 MiB, pJ/bit; scaled to lb_mib and "
    "technology_nm by the SRAM estimator [tpu_v4i model]", 0, 1000, NULL },
  { "lb_write_pj_per_bit", FFM_PARAM_NUMBER, "0.293",
    "local buffer write energy at 4 MiB, pJ/bit; scaled likewise [tpu_v4i model]",
    0, 1000, NULL },
  { "mac_pj", FFM_PARAM_NUMBER, "0.084",
    "energy per 8-bit MAC, pJ [tpu_v4i model]", 0, 1000, NULL },
  { "scalar_lanes", FFM_PARAM_INTEGER, "128",
    "scalar unit operations per cycle per core [tpu_v4i model]", 1, 65536, NULL },
  { "scalar_pj", FFM_PARAM_NUMBER, "0",
    "energy per scalar-unit operation, pJ [tpu_v4i model: 0]", 0, 1000, NULL },
  { "weight_bits", FFM_PARAM_INTEGER, "0",
    "PE register size, bits; 0 = one weight of the workload's width", 0, 64, NULL },
  { "technology_nm", FFM_PARAM_NUMBER, "7",
    "process node, nm: scales the buffers and the register by the estimators "
    "[TPUv4i: 7 nm]", 7, 130, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL }
};

/* Where each parameter of tpu_params lands in a TpuConfig, same order. */
static const gsize tpu_param_offsets[] = {
  G_STRUCT_OFFSET (TpuConfig, glb_mib),
  G_STRUCT_OFFSET (TpuConfig, n_cores),
  G_STRUCT_OFFSET (TpuConfig, lb_mib),
  G_STRUCT_OFFSET (TpuConfig, array_rows),
  G_STRUCT_OFFSET (TpuConfig, array_cols),
  G_STRUCT_OFFSET (TpuConfig, clock_ghz),
  G_STRUCT_OFFSET (TpuConfig, dram_gbps),
  G_STRUCT_OFFSET (TpuConfig, dram_pj_per_bit),
  G_STRUCT_OFFSET (TpuConfig, glb_read_pj_per_bit),
  G_STRUCT_OFFSET (TpuConfig, glb_write_pj_per_bit),
  G_STRUCT_OFFSET (TpuConfig, glb_read_gbps),
  G_STRUCT_OFFSET (TpuConfig, glb_write_gbps),
  G_STRUCT_OFFSET (TpuConfig, lb_read_pj_per_bit),
  G_STRUCT_OFFSET (TpuConfig, lb_write_pj_per_bit),
  G_STRUCT_OFFSET (TpuConfig, mac_pj),
  G_STRUCT_OFFSET (TpuConfig, scalar_lanes),
  G_STRUCT_OFFSET (TpuConfig, scalar_pj),
  G_STRUCT_OFFSET (TpuConfig, weight_bits),
  G_STRUCT_OFFSET (TpuConfig, technology_nm),
};

G_STATIC_ASSERT (G_N_ELEMENTS (tpu_param_offsets) == G_N_ELEMENTS (tpu_params) - 1);

#define TPU_SUMMARY \
  "TPUv4i of the FFM paper 7.1: 128 MiB global buffer, 4 cores with 4 MiB " \
  "local buffers and 128x128 weight-stationary MACs, scalar unit, 1.05 GHz, " \
  "DRAM 614 GB/s; energies of the TPUv4i paper (Jouppi et al., ISCA 2021)"

#define TPU_SOURCE \
  "FFM paper 7.1 (structure, sizes, clock, DRAM bandwidth); per-action " \
  "energies and bandwidths of the reference tpu_v4i model (accelforge " \
  "examples/arches/tpu_v4i.yaml), taken from Jouppi et al., ISCA 2021"

/* ---- Parameters ---- */

/* ---- Sizes that follow the design ---- */

/* Ratio of @now to @published, exactly 1 when they are equal. */
static double
ratio (const FfmEstimatedValue *now, const FfmEstimatedValue *published)
{
  return now->value == published->value ? 1.0 : now->value / published->value;
}

/* The SRAM estimator's read and write answers for buffer @name of @mib at
 * @nm (1024-bit words, 16 banks). */
static gboolean
estimate_buffer (const char *name, double mib, double nm, FfmComponentEstimate *read,
                 FfmComponentEstimate *write, GError **error)
{
  g_autoptr (FfmParamValues) attrs = ffm_param_values_new ();
  g_autofree char *depth = g_strdup_printf ("%.17g", mib * MIB_BITS / 1024);
  g_autofree char *tech = g_strdup_printf ("%.17g", nm);

  ffm_param_values_set (attrs, "width", "1024");
  ffm_param_values_set (attrs, "depth", depth);
  ffm_param_values_set (attrs, "n_banks", "16");
  ffm_param_values_set (attrs, "technology", tech);
  return ffm_estimate_component (name, "SRAM", attrs, "read", read, error)
         && ffm_estimate_component (name, "SRAM", attrs, "write", write, error);
}

/* A buffer's energies and area: the published ones at @published_mib and 7
 * nm, times the estimator's ratio for @mib at @nm. */
static gboolean
scale_buffer (FfmLevel *level, double mib, double published_mib, double nm,
              double read_pj, double write_pj, double published_area,
              GError **error)
{
  FfmComponentEstimate read, write, read0, write0;

  if (!estimate_buffer (level->name, mib, nm, &read, &write, error)
      || !estimate_buffer (level->name, published_mib, PUBLISHED_NODE_NM, &read0,
                           &write0, error))
    return FALSE;
  level->u.memory.read_energy = read_pj * PJ * ratio (&read.energy, &read0.energy);
  level->u.memory.write_energy = write_pj * PJ * ratio (&write.energy, &write0.energy);
  level->area = published_area * ratio (&read.area, &read0.area);
  level->estimated_by = g_strdup_printf ("read_energy, write_energy, area: published "
                                         "%g MiB, 7 nm numbers x %s's ratio (%g %%)",
                                         published_mib, read.energy.estimator,
                                         read.energy.accuracy);
  return TRUE;
}

/* ---- Hierarchy ---- */

static void
add_main_memory (FfmArch *arch, const TpuConfig *c)
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
  level->description = g_strdup ("off-chip DRAM; bandwidth from the FFM paper 7.1, "
                                 "energy the upper end of the TPUv4i paper's range");
}

static gboolean
add_global_buffer (FfmArch *arch, const TpuConfig *c, GError **error)
{
  FfmLevel *level = ffm_arch_add_memory (arch, "GlobalBuffer");
  FfmMemorySpec *m = &level->u.memory;

  m->size = c->glb_mib * MIB_BITS;
  if (!scale_buffer (level, c->glb_mib, GLB_PUBLISHED_MIB, c->technology_nm,
                     c->glb_read_pj_per_bit, c->glb_write_pj_per_bit, GLB_AREA_128MIB,
                     error))
    return FALSE;
  m->read_bandwidth = c->glb_read_gbps * GBPS_BITS;
  m->write_bandwidth = c->glb_write_gbps * GBPS_BITS;
  m->ports = FFM_PORTS_SEPARATE;
  m->keep = g_strdup ("~MainMemory");
  m->may_keep = g_strdup ("all");
  level->description = g_strdup ("on-chip CMEM shared by the cores");
  return TRUE;
}

static void
add_cores (FfmArch *arch, const TpuConfig *c)
{
  FfmLevel *level = ffm_arch_add_fanout (arch, "Cores");
  FfmFanoutDim *z = ffm_level_add_fanout_dim (level, "Z", (guint64) c->n_cores);

  /* The cores do not multicast to each other: each fetches its own copy. */
  z->may_reuse = g_strdup ("nothing");
  z->min_usage = 1.0;
  level->description = g_strdup ("the cores, each with its own local buffer");
}

static gboolean
add_local_buffer (FfmArch *arch, const TpuConfig *c, GError **error)
{
  FfmLevel *level = ffm_arch_add_memory (arch, "LocalBuffer");
  FfmMemorySpec *m = &level->u.memory;

  m->size = c->lb_mib * MIB_BITS;
  if (!scale_buffer (level, c->lb_mib, LB_PUBLISHED_MIB, c->technology_nm,
                     c->lb_read_pj_per_bit, c->lb_write_pj_per_bit, LB_AREA_4MIB, error))
    return FALSE;
  m->read_bandwidth = INFINITY;
  m->write_bandwidth = INFINITY;
  m->keep = g_strdup ("input | output");
  level->description = g_strdup ("per-core buffer of inputs and outputs; weights bypass it");
  return TRUE;
}

static void
add_scalar_unit (FfmArch *arch, const TpuConfig *c)
{
  FfmLevel *level = ffm_arch_add_compute (arch, "ScalarUnit");
  FfmComputeSpec *u = &level->u.compute;

  u->energy = c->scalar_pj * PJ;
  u->throughput = c->clock_ghz * GHZ * (double) c->scalar_lanes;
  u->enabled = g_strdup ("len(all) == 2");
  level->area = SCALAR_AREA_128LANES * (double) c->scalar_lanes / 128.0;
  level->description = g_strdup ("per-core unit for 2-tensor Einsums (softmax, copies)");
}

static void
add_pe_array (FfmArch *arch, const TpuConfig *c)
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
  level->description = g_strdup ("weight-stationary systolic array: inputs shared along "
                                 "a row, outputs reduced along a column");
}

/* The register estimator's answer for a @bits-bit register at @nm. */
static gboolean
estimate_register (int bits, double nm, FfmComponentEstimate *out, GError **error)
{
  g_autoptr (FfmParamValues) attrs = ffm_param_values_new ();
  g_autofree char *n_bits = g_strdup_printf ("%d", bits);
  g_autofree char *tech = g_strdup_printf ("%.17g", nm);

  ffm_param_values_set (attrs, "n_bits", n_bits);
  ffm_param_values_set (attrs, "technology", tech);
  return ffm_estimate_component ("Register", "register", attrs, NULL, out, error);
}

static gboolean
add_register (FfmArch *arch, const TpuConfig *c, GError **error)
{
  FfmLevel *level = ffm_arch_add_memory (arch, "Register");
  FfmMemorySpec *m = &level->u.memory;
  FfmComponentEstimate reg, reg0;

  if (!estimate_register (c->weight_bits > 0 ? (int) c->weight_bits
                                             : REGISTER_PUBLISHED_BITS,
                          c->technology_nm, &reg, error)
      || !estimate_register (REGISTER_PUBLISHED_BITS, PUBLISHED_NODE_NM, &reg0, error))
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
  level->area = REGISTER_AREA * ratio (&reg.area, &reg0.area);
  level->description = g_strdup ("the one stationary weight of a PE");
  level->estimated_by = g_strdup_printf ("area: published 8-bit area x %s's ratio "
                                         "(%g %%)", reg.area.estimator,
                                         reg.area.accuracy);
  return TRUE;
}

static void
add_mac (FfmArch *arch, const TpuConfig *c)
{
  FfmLevel *level = ffm_arch_add_compute (arch, "MAC");
  FfmComputeSpec *u = &level->u.compute;

  u->energy = c->mac_pj * PJ;
  u->throughput = c->clock_ghz * GHZ;
  u->enabled = g_strdup ("len(all) == 3");
  level->area = MAC_AREA;
  level->description = g_strdup ("8-bit multiply-accumulate for 3-tensor Einsums");
}

/* ---- The model ---- */

static gboolean
tpu_add_levels (FfmArch *arch, const void *data, GError **error)
{
  const TpuConfig *config = data;

  add_main_memory (arch, config);
  if (!add_global_buffer (arch, config, error))
    return FALSE;
  add_cores (arch, config);
  if (!add_local_buffer (arch, config, error))
    return FALSE;
  add_scalar_unit (arch, config);
  add_pe_array (arch, config);
  if (!add_register (arch, config, error))
    return FALSE;
  add_mac (arch, config);
  return TRUE;
}

static const FfmSingleArchModel tpu_model = {
  .name = TPU_ARCH_NAME,
  .summary = TPU_SUMMARY,
  .source = TPU_SOURCE,
  .params = tpu_params,
  .param_offsets = tpu_param_offsets,
  .config_size = sizeof (TpuConfig),
  .add_levels = tpu_add_levels,
};

FFM_SINGLE_ARCH_MODEL_DEFINE (tpu_model, TPU_ARCH_NAME, "1.0",
                              "TPUv4i of the FFM paper (section 7.1)")
