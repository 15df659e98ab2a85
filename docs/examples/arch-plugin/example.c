/* example.c: a minimal ffm architecture-model plugin, built out of tree.
 *
 * Offers one architecture, "example": DRAM, an on-chip buffer, a row of
 * processing elements that share their inputs, each with one MAC.
 *
 *   MainMemory  DRAM, 8 pJ/bit, dram_gbps GB/s; keeps the workload's inputs
 *               and outputs (everything but intermediates)
 *   Buffer      buffer_kib KiB, 0.5 pJ/bit; keeps what MainMemory does not
 *   PE          fanout of n_pes; the PEs share their inputs (multicast)
 *   MAC         0.1 pJ per MAC, one per cycle at clock_ghz
 *
 * Build:  cc -shared -fPIC -fvisibility=hidden -o ffm-arch-example.so \
 *           example.c $(pkg-config --cflags --libs ffm)
 * Use:    FFM_PLUGIN_PATH=$PWD ffm list
 *
 * The file name must be ffm-arch-<name>.so, <name> being the name in
 * FFM_PLUGIN_DEFINE below. Only the descriptor getter is exported. */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#define EXAMPLE_NAME "example"
#define EXAMPLE_OWNER "architecture " EXAMPLE_NAME

/* Declared parameters: name, type, default, help (with unit), min, max. */
static const FfmParamSpec example_params[] = {
  { "buffer_kib", FFM_PARAM_NUMBER, "256", "on-chip buffer capacity, KiB", 1, 1e6, NULL },
  { "n_pes", FFM_PARAM_INTEGER, "16", "processing elements (one MAC each)", 1, 65536, NULL },
  { "clock_ghz", FFM_PARAM_NUMBER, "1", "clock, GHz", 0.001, 100, NULL },
  { "dram_gbps", FFM_PARAM_NUMBER, "25.6", "DRAM bandwidth, GB/s", 0.001, 1e6, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL }
};

static gboolean
check_name (const char *arch_name, GError **error)
{
  if (arch_name != NULL && strcmp (arch_name, EXAMPLE_NAME) == 0)
    return TRUE;
  g_set_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_NOT_FOUND,
               "architecture model " EXAMPLE_NAME ": no architecture '%s'",
               arch_name ? arch_name : "(null)");
  return FALSE;
}

static GStrv
example_list_architectures (void)
{
  char *names[] = { (char *) EXAMPLE_NAME, NULL };

  return g_strdupv (names);
}

static char *
example_describe (const char *arch_name)
{
  if (!check_name (arch_name, NULL))
    return NULL;
  return g_strdup ("example plugin: DRAM, one buffer, a row of PEs with one MAC each");
}

/* The host frees what get_params returns with ffm_param_specs_free():
 * hand out a copy of the static array. */
static FfmParamSpec *
example_get_params (const char *arch_name, GError **error)
{
  if (!check_name (arch_name, error))
    return NULL;
  return ffm_param_specs_copy (example_params);
}

static FfmArch *
example_build (const char *arch_name, const FfmParamValues *values, GError **error)
{
  g_autoptr (FfmParamValues) empty = ffm_param_values_new ();
  g_autoptr (FfmArch) arch = NULL;
  double buffer_kib, clock_ghz, dram_gbps;
  gint64 n_pes;
  FfmLevel *level;
  FfmFanoutDim *dim;

  if (!check_name (arch_name, error))
    return NULL;
  if (values == NULL)
    values = empty;
  /* Unknown keys first, then each value (the getters check type and range
   * and fill in defaults; their errors name the architecture). */
  if (!ffm_param_values_validate (values, example_params, EXAMPLE_OWNER, error)
      || !ffm_param_values_get_number (values, example_params, EXAMPLE_OWNER,
                                       "buffer_kib", &buffer_kib, error)
      || !ffm_param_values_get_integer (values, example_params, EXAMPLE_OWNER,
                                        "n_pes", &n_pes, error)
      || !ffm_param_values_get_number (values, example_params, EXAMPLE_OWNER,
                                       "clock_ghz", &clock_ghz, error)
      || !ffm_param_values_get_number (values, example_params, EXAMPLE_OWNER,
                                       "dram_gbps", &dram_gbps, error))
    return NULL;

  /* Units inside ffm are SI: bits, joules per action, actions per second. */
  arch = ffm_arch_new (EXAMPLE_NAME);
  ffm_arch_set_description (arch, "example plugin from docs/examples/arch-plugin");

  level = ffm_arch_add_memory (arch, "MainMemory");
  level->u.memory.size = INFINITY;
  level->u.memory.read_energy = 8e-12;
  level->u.memory.write_energy = 8e-12;
  level->u.memory.read_bandwidth = dram_gbps * 8e9;
  level->u.memory.write_bandwidth = dram_gbps * 8e9;
  level->u.memory.keep = g_strdup ("~intermediates");
  level->u.memory.may_keep = g_strdup ("all");

  level = ffm_arch_add_memory (arch, "Buffer");
  level->u.memory.size = buffer_kib * 1024 * 8;
  level->u.memory.read_energy = 0.5e-12;
  level->u.memory.write_energy = 0.5e-12;
  level->u.memory.read_bandwidth = INFINITY;
  level->u.memory.write_bandwidth = INFINITY;
  level->u.memory.keep = g_strdup ("~MainMemory");
  level->u.memory.may_keep = g_strdup ("all");

  /* A fanout replicates the levels below it. */
  level = ffm_arch_add_fanout (arch, "PE");
  dim = ffm_level_add_fanout_dim (level, "X", (guint64) n_pes);
  dim->reuse = g_strdup ("input");

  level = ffm_arch_add_compute (arch, "MAC");
  level->u.compute.energy = 0.1e-12;
  level->u.compute.throughput = clock_ghz * 1e9;

  if (!ffm_arch_finish (arch, error))
    return NULL;
  return g_steal_pointer (&arch);
}

static const FfmArchModelVTable example_vtable = {
  .struct_size = sizeof (FfmArchModelVTable),
  .list_architectures = example_list_architectures,
  .describe = example_describe,
  .get_params = example_get_params,
  .build = example_build,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_ARCH_MODEL, EXAMPLE_NAME, "1.0",
                   "minimal out-of-tree example architecture model", arch,
                   &example_vtable)
