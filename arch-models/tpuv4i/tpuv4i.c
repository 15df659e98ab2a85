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
 * [1] Fast and Fusiest Mapper paper, §7.1.
 * [2] Jouppi et al., "Ten lessons from three generations shaped Google's
 *     TPUv4i", ISCA 2021.
 * [3] accelforge's architecture files and the papers they cite.
 * [4] the reference implementation (accelforge).
 *
 * Units: parameters are in the units their help names (MiB, GB/s, pJ/bit,
 * GHz); the architecture built is SI (bits, J per action, actions/s, m^2). */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#define TPU_ARCH_NAME "tpuv4i"
#define TPU_OWNER "architecture " TPU_ARCH_NAME

#define MIB_BITS (1024.0 * 1024.0 * 8.0)  /* bits in one MiB */
#define GBPS_BITS 8e9                      /* bits/s in one GB/s */
#define PJ 1e-12                           /* J in one pJ */
#define GHZ 1e9                            /* Hz in one GHz */

/* Areas per instance at the default sizes ([3] §3.1), m^2. Buffers and the
 * scalar unit scale linearly with their capacity or lanes (an estimate:
 * area does not enter the objectives). */
#define GLB_AREA_128MIB 112e-6
#define LB_AREA_4MIB 51e-6
#define SCALAR_AREA_128LANES 8.7e-6
#define REGISTER_AREA 8.5e-11             /* 10 % of 14 mm^2 / 16384 PEs */
#define MAC_AREA 8.5e-10                  /* 90 % of 14 mm^2 / 16384 PEs */

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
    "global buffer read energy, pJ/bit [tpu_v4i model]", 0, 1000, NULL },
  { "glb_write_pj_per_bit", FFM_PARAM_NUMBER, "2.36",
    "global buffer write energy, pJ/bit [tpu_v4i model]", 0, 1000, NULL },
  { "glb_read_gbps", FFM_PARAM_NUMBER, "2048",
    "global buffer read bandwidth, GB/s (own port) [tpu_v4i model]", 0.001, 1e6, NULL },
  { "glb_write_gbps", FFM_PARAM_NUMBER, "1024",
    "global buffer write bandwidth, GB/s (own port) [tpu_v4i model]", 0.001, 1e6, NULL },
  { "lb_read_pj_per_bit", FFM_PARAM_NUMBER, "0.249",
    "local buffer read energy, pJ/bit [tpu_v4i model]", 0, 1000, NULL },
  { "lb_write_pj_per_bit", FFM_PARAM_NUMBER, "0.293",
    "local buffer write energy, pJ/bit [tpu_v4i model]", 0, 1000, NULL },
  { "mac_pj", FFM_PARAM_NUMBER, "0.084",
    "energy per 8-bit MAC, pJ [tpu_v4i model]", 0, 1000, NULL },
  { "scalar_lanes", FFM_PARAM_INTEGER, "128",
    "scalar unit operations per cycle per core [tpu_v4i model]", 1, 65536, NULL },
  { "scalar_pj", FFM_PARAM_NUMBER, "0",
    "energy per scalar-unit operation, pJ [tpu_v4i model: 0]", 0, 1000, NULL },
  { "weight_bits", FFM_PARAM_INTEGER, "0",
    "PE register size, bits; 0 = one weight of the workload's width", 0, 64, NULL },
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

static void
add_global_buffer (FfmArch *arch, const TpuConfig *c)
{
  FfmLevel *level = ffm_arch_add_memory (arch, "GlobalBuffer");
  FfmMemorySpec *m = &level->u.memory;

  m->size = c->glb_mib * MIB_BITS;
  m->read_energy = c->glb_read_pj_per_bit * PJ;
  m->write_energy = c->glb_write_pj_per_bit * PJ;
  m->read_bandwidth = c->glb_read_gbps * GBPS_BITS;
  m->write_bandwidth = c->glb_write_gbps * GBPS_BITS;
  m->ports = FFM_PORTS_SEPARATE;
  m->keep = g_strdup ("~MainMemory");
  m->may_keep = g_strdup ("all");
  level->area = GLB_AREA_128MIB * c->glb_mib / 128.0;
  level->description = g_strdup ("on-chip CMEM shared by the cores");
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

static void
add_local_buffer (FfmArch *arch, const TpuConfig *c)
{
  FfmLevel *level = ffm_arch_add_memory (arch, "LocalBuffer");
  FfmMemorySpec *m = &level->u.memory;

  m->size = c->lb_mib * MIB_BITS;
  m->read_energy = c->lb_read_pj_per_bit * PJ;
  m->write_energy = c->lb_write_pj_per_bit * PJ;
  m->read_bandwidth = INFINITY;
  m->write_bandwidth = INFINITY;
  m->keep = g_strdup ("input | output");
  level->area = LB_AREA_4MIB * c->lb_mib / 4.0;
  level->description = g_strdup ("per-core buffer of inputs and outputs; weights bypass it");
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

static void
add_register (FfmArch *arch, const TpuConfig *c)
{
  FfmLevel *level = ffm_arch_add_memory (arch, "Register");
  FfmMemorySpec *m = &level->u.memory;

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
  level->area = REGISTER_AREA;
  level->description = g_strdup ("the one stationary weight of a PE");
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

/* ---- Function table ---- */

static gboolean
check_arch_name (const char *arch_name, GError **error)
{
  if (arch_name != NULL && strcmp (arch_name, TPU_ARCH_NAME) == 0)
    return TRUE;
  g_set_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_NOT_FOUND,
               "architecture model " TPU_ARCH_NAME ": no architecture '%s' "
               "(this model offers only '" TPU_ARCH_NAME "')",
               arch_name ? arch_name : "(null)");
  return FALSE;
}

static GStrv
tpu_list_architectures (void)
{
  const char *const names[] = { TPU_ARCH_NAME, NULL };

  return g_strdupv ((char **) names);
}

static char *
tpu_describe (const char *arch_name)
{
  if (!check_arch_name (arch_name, NULL))
    return NULL;
  return g_strdup (TPU_SUMMARY);
}

static FfmParamSpec *
tpu_get_params (const char *arch_name, GError **error)
{
  if (!check_arch_name (arch_name, error))
    return NULL;
  return ffm_param_specs_copy (tpu_params);
}

static FfmArch *
tpu_build (const char *arch_name, const FfmParamValues *values, GError **error)
{
  TpuConfig config;
  g_autoptr (FfmArch) arch = NULL;

  if (!check_arch_name (arch_name, error))
    return NULL;
  memset (&config, 0, sizeof config);
  if (!ffm_param_values_read_all (values, tpu_params, TPU_OWNER,
                                  tpu_param_offsets, &config, error))
    return NULL;

  arch = ffm_arch_new (TPU_ARCH_NAME);
  ffm_arch_set_description (arch, TPU_SUMMARY);
  ffm_arch_set_source (arch, TPU_SOURCE);
  add_main_memory (arch, &config);
  add_global_buffer (arch, &config);
  add_cores (arch, &config);
  add_local_buffer (arch, &config);
  add_scalar_unit (arch, &config);
  add_pe_array (arch, &config);
  add_register (arch, &config);
  add_mac (arch, &config);
  if (!ffm_arch_finish (arch, error))
    return NULL;
  return g_steal_pointer (&arch);
}

static const FfmArchModelVTable tpu_vtable = {
  .struct_size = sizeof (FfmArchModelVTable),
  .list_architectures = tpu_list_architectures,
  .describe = tpu_describe,
  .get_params = tpu_get_params,
  .build = tpu_build,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_ARCH_MODEL, TPU_ARCH_NAME, "1.0",
                   "TPUv4i of the FFM paper (section 7.1)", arch, &tpu_vtable)
