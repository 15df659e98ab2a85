/* test-arch-models.c: the tpuv4i and edge architecture-model plugins.
 *
 * Each model is loaded through the plugin host from this build's plugin
 * folders (FFM_PLUGIN_SYSTEM_PATH of the test environment), built with its
 * defaults and with changed parameters, and checked level by level against
 * the numbers of accelforge's architecture files and the papers they cite. Bad
 * parameter values must fail with errors naming the architecture and the
 * parameter. */
#include <ffm/ffm.h>
#include "inputs.h"
#include <ffm/ffm-single-arch-model.h>

#include <math.h>
#include <string.h>

static FfmPluginRegistry *registry;

/* ---- Helpers ---- */

/* Relative comparison for numbers computed from parameters in other units
 * (7.03 * 1e-12 need not be the literal 7.03e-12 to the last bit). */
#define assert_close(a, b)                                                   \
  G_STMT_START {                                                             \
    double a_ = (a), b_ = (b);                                               \
    g_assert_cmpfloat_with_epsilon (a_, b_, 1e-12 * MAX (fabs (a_), fabs (b_))); \
  } G_STMT_END

static guint64
instances_of (const FfmArch *arch, const char *name)
{
  int index = ffm_arch_find_level (arch, name);

  g_assert_cmpint (index, >=, 0);
  return ffm_arch_get_instances_above (arch, (guint) index);
}

static const FfmArchModelVTable *
model_vtable (const char *name)
{
  const FfmPluginInfo *info = ffm_plugin_registry_find (registry,
                                                        FFM_PLUGIN_KIND_ARCH_MODEL,
                                                        name);

  g_assert_nonnull (info);
  g_assert_cmpint (info->descriptor->kind, ==, FFM_PLUGIN_KIND_ARCH_MODEL);
  g_assert_cmpuint (info->descriptor->abi_major, ==, FFM_PLUGIN_ABI_MAJOR);
  return info->descriptor->vtable.arch;
}

static void
assert_level_order (const FfmArch *arch, const char *const *names)
{
  guint n = g_strv_length ((char **) names);

  g_assert_cmpuint (ffm_arch_get_n_levels (arch), ==, n);
  for (guint i = 0; i < n; i++)
    {
      const FfmLevel *level = ffm_arch_get_level (arch, i);
      g_assert_cmpstr (level->name, ==, names[i]);
      /* Every level says what it is and where its numbers come from. */
      g_assert_nonnull (level->description);
    }
}

static void
assert_compute_path (const FfmArch *arch, const char *compute,
                     const guint *expected, guint n_expected)
{
  g_autofree guint *path = NULL;
  guint n = 0;

  path = ffm_arch_get_compute_path (arch, (guint) ffm_arch_find_level (arch, compute), &n);
  g_assert_cmpmem (path, n * sizeof (guint), expected, n_expected * sizeof (guint));
}

/* A bad setting and what the error must say. */
typedef struct {
  const char *assignment;
  int code;                 /* FfmParamError */
  const char *parameter;    /* named in the message */
} BadParam;

static void
check_bad_params (const char *arch, const BadParam *cases, guint n_cases)
{
  g_autofree char *owner = g_strdup_printf ("architecture %s", arch);

  for (guint i = 0; i < n_cases; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmArch) built = inputs_build_arch (registry, arch, &error, cases[i].assignment, NULL);

      g_test_message ("%s %s: %s", arch, cases[i].assignment,
                      error ? error->message : "(no error)");
      g_assert_null (built);
      g_assert_error (error, FFM_PARAM_ERROR, cases[i].code);
      g_assert_nonnull (strstr (error->message, owner));
      g_assert_nonnull (strstr (error->message, cases[i].parameter));
    }
}

/* The spec array a model declares is well formed, copied for the caller,
 * and every parameter's help names a unit or a source. */
static void
check_param_specs (const char *model, const char *arch, guint n_expected)
{
  const FfmArchModelVTable *vtable = model_vtable (model);
  g_autoptr (GError) error = NULL;
  FfmParamSpec *specs = vtable->get_params (arch, &error);
  g_autofree char *owner = g_strdup_printf ("architecture %s", arch);
  guint n = 0;

  g_assert_no_error (error);
  g_assert_nonnull (specs);
  g_assert_true (ffm_plugin_check_param_specs (specs, owner, &error));
  g_assert_no_error (error);
  for (n = 0; specs[n].name != NULL; n++)
    {
      g_assert_nonnull (specs[n].default_value);
      g_assert_cmpuint (strlen (specs[n].help), >, 10);
    }
  g_assert_cmpuint (n, ==, n_expected);
  ffm_param_specs_free (specs);

  specs = vtable->get_params ("no-such-chip", &error);
  g_assert_null (specs);
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no-such-chip"));
}

static void
check_unknown_chip (const char *model)
{
  const FfmArchModelVTable *vtable = model_vtable (model);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autofree char *qualified = g_strdup_printf ("%s:no-such-chip", model);
  g_auto (GStrv) names = vtable->list_architectures ();

  g_assert_cmpuint (g_strv_length (names), ==, 1);
  g_assert_cmpstr (names[0], ==, model);
  g_assert_null (vtable->describe ("no-such-chip"));

  arch = vtable->build ("no-such-chip", NULL, &error);
  g_assert_null (arch);
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, model));
  g_assert_nonnull (strstr (error->message, "no-such-chip"));
  g_clear_error (&error);

  /* Through the host, as `ffm --arch tpuv4i:no-such-chip` does. */
  arch = inputs_build_arch (registry, qualified, &error, NULL);
  g_assert_null (arch);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "no-such-chip"));
}

/* ---- TPUv4i ---- */

static void
test_tpu_descriptor (void)
{
  const FfmArchModelVTable *vtable = model_vtable ("tpuv4i");
  g_autofree char *summary = vtable->describe ("tpuv4i");

  g_test_summary ("tpuv4i offers one architecture, describes it and declares "
                  "well-formed parameters");
  g_assert_nonnull (summary);
  g_assert_nonnull (strstr (summary, "1.05 GHz"));
  g_assert_nonnull (strstr (summary, "614 GB/s"));
  check_param_specs ("tpuv4i", "tpuv4i", 19);
}

static void
test_tpu_defaults (void)
{
  static const char *const order[] = {
    "MainMemory", "GlobalBuffer", "Cores", "LocalBuffer", "ScalarUnit",
    "ProcessingElement", "Register", "MAC", NULL
  };
  static const guint mac_path[] = { 0, 1, 2, 3, 5, 6, 7 };
  static const guint scalar_path[] = { 0, 1, 2, 3, 4 };
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = inputs_build_arch (registry, "tpuv4i", &error, NULL);
  const FfmLevel *l;

  g_test_summary ("TPUv4i with its defaults is the paper's 7.1 chip, with the "
                  "reference model's per-action numbers");
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_arch_get_name (arch), ==, "tpuv4i");
  g_assert_nonnull (ffm_arch_get_source (arch));
  assert_level_order (arch, order);

  l = inputs_level_named (arch, "MainMemory", FFM_LEVEL_MEMORY);
  g_assert_true (isinf (l->u.memory.size));
  assert_close (l->u.memory.read_energy, 7.03e-12);
  assert_close (l->u.memory.write_energy, 7.03e-12);
  assert_close (l->u.memory.read_bandwidth, 8 * 614e9);
  assert_close (l->u.memory.write_bandwidth, 8 * 614e9);
  g_assert_cmpint (l->u.memory.ports, ==, FFM_PORTS_SHARED);
  g_assert_cmpstr (l->u.memory.keep, ==, "~intermediates");
  g_assert_cmpstr (l->u.memory.may_keep, ==, "all");

  l = inputs_level_named (arch, "GlobalBuffer", FFM_LEVEL_MEMORY);
  g_assert_cmpfloat (l->u.memory.size, ==, 1073741824.0);
  assert_close (l->u.memory.read_energy, 1.88e-12);
  assert_close (l->u.memory.write_energy, 2.36e-12);
  assert_close (l->u.memory.read_bandwidth, 8 * 2048e9);
  assert_close (l->u.memory.write_bandwidth, 8 * 1024e9);
  g_assert_cmpint (l->u.memory.ports, ==, FFM_PORTS_SEPARATE);
  g_assert_cmpstr (l->u.memory.keep, ==, "~MainMemory");
  g_assert_cmpstr (l->u.memory.may_keep, ==, "all");
  assert_close (l->area, 112e-6);

  l = inputs_level_named (arch, "Cores", FFM_LEVEL_FANOUT);
  g_assert_cmpuint (l->u.fanout.n_dims, ==, 1);
  g_assert_cmpstr (l->u.fanout.dims[0].name, ==, "Z");
  g_assert_cmpuint (l->u.fanout.dims[0].count, ==, 4);
  g_assert_null (l->u.fanout.dims[0].reuse);
  g_assert_cmpstr (l->u.fanout.dims[0].may_reuse, ==, "nothing");
  g_assert_cmpfloat (l->u.fanout.dims[0].min_usage, ==, 1.0);

  l = inputs_level_named (arch, "LocalBuffer", FFM_LEVEL_MEMORY);
  g_assert_cmpfloat (l->u.memory.size, ==, 33554432.0);
  assert_close (l->u.memory.read_energy, 0.249e-12);
  assert_close (l->u.memory.write_energy, 0.293e-12);
  g_assert_true (isinf (l->u.memory.read_bandwidth));
  g_assert_cmpstr (l->u.memory.keep, ==, "input | output");
  g_assert_cmpuint (instances_of (arch, "LocalBuffer"), ==, 4);

  l = inputs_level_named (arch, "ScalarUnit", FFM_LEVEL_COMPUTE);
  g_assert_cmpfloat (l->u.compute.energy, ==, 0.0);
  assert_close (l->u.compute.throughput, 1.05e9 * 128);
  g_assert_cmpstr (l->u.compute.enabled, ==, "len(all) == 2");

  l = inputs_level_named (arch, "ProcessingElement", FFM_LEVEL_FANOUT);
  g_assert_cmpuint (l->u.fanout.n_dims, ==, 2);
  g_assert_cmpstr (l->u.fanout.dims[0].name, ==, "reuse_input");
  g_assert_cmpuint (l->u.fanout.dims[0].count, ==, 128);
  g_assert_cmpstr (l->u.fanout.dims[0].reuse, ==, "input");
  g_assert_cmpfloat (l->u.fanout.dims[0].min_usage, ==, 1.0);
  g_assert_cmpstr (l->u.fanout.dims[1].name, ==, "reuse_output");
  g_assert_cmpuint (l->u.fanout.dims[1].count, ==, 128);
  g_assert_cmpstr (l->u.fanout.dims[1].reuse, ==, "output");
  g_assert_cmpfloat (l->u.fanout.dims[1].min_usage, ==, 1.0);

  l = inputs_level_named (arch, "Register", FFM_LEVEL_MEMORY);
  g_assert_cmpstr (l->u.memory.size_per_einsum, ==, "weight.bits_per_value");
  g_assert_cmpstr (l->u.memory.keep, ==, "weight");
  g_assert_cmpfloat (l->u.memory.read_energy, ==, 0.0);
  g_assert_cmpuint (instances_of (arch, "Register"), ==, 4 * 128 * 128);

  l = inputs_level_named (arch, "MAC", FFM_LEVEL_COMPUTE);
  assert_close (l->u.compute.energy, 0.084e-12);
  assert_close (l->u.compute.throughput, 1.05e9);
  g_assert_cmpstr (l->u.compute.enabled, ==, "len(all) == 3");
  g_assert_cmpuint (instances_of (arch, "MAC"), ==, 65536);
  /* Peak: 4 x 16384 MACs x 2 ops x 1.05 GHz = 137.6 TOPS (arch-models §3.1). */
  assert_close (2.0 * (double) instances_of (arch, "MAC") * l->u.compute.throughput,
                137.625600e12);

  assert_compute_path (arch, "MAC", mac_path, G_N_ELEMENTS (mac_path));
  assert_compute_path (arch, "ScalarUnit", scalar_path, G_N_ELEMENTS (scalar_path));
}

/* The SRAM estimator's @what (the energy of @action, or with NULL the
 * area) for a 1024-bit wide, 16-bank buffer of @mib at 7 nm, over the same
 * at @published_mib: how the models scale their published numbers. */
static double
sram_ratio (double mib, double published_mib, const char *action)
{
  double value[2];

  for (int i = 0; i < 2; i++)
    {
      g_autoptr (FfmParamValues) attrs = ffm_param_values_new ();
      g_autofree char *depth = g_strdup_printf ("%.17g", (i ? published_mib : mib)
                                                         * 8388608.0 / 1024);
      FfmComponentEstimate e;
      g_autoptr (GError) error = NULL;

      ffm_param_values_set (attrs, "width", "1024");
      ffm_param_values_set (attrs, "depth", depth);
      ffm_param_values_set (attrs, "n_banks", "16");
      ffm_param_values_set (attrs, "technology", "7");
      g_assert_true (ffm_estimate_component ("B", "SRAM", attrs, action, &e, &error));
      value[i] = action != NULL ? e.energy.value : e.area.value;
    }
  return value[0] / value[1];
}

static void
test_tpu_changed (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = inputs_build_arch (registry, "tpuv4i", &error,
                                         "glb_mib=2**6", "n_cores=2", "lb_mib=0.5",
                                         "array_rows=64", "array_cols=32",
                                         "clock_ghz=2", "dram_gbps=100",
                                         "dram_pj_per_bit=5", "glb_read_pj_per_bit=1",
                                         "glb_write_pj_per_bit=1.5",
                                         "glb_read_gbps=4096", "glb_write_gbps=512",
                                         "lb_read_pj_per_bit=0.125",
                                         "lb_write_pj_per_bit=0.25", "mac_pj=0.5",
                                         "scalar_lanes=64", "scalar_pj=0.25",
                                         "weight_bits=16", NULL);
  const FfmLevel *l;

  g_test_summary ("every TPUv4i parameter reaches its level, in SI units; the "
                  "buffers' energies and areas scale with their size by the SRAM "
                  "estimator's ratio");
  g_assert_no_error (error);

  l = inputs_level_named (arch, "MainMemory", FFM_LEVEL_MEMORY);
  assert_close (l->u.memory.read_energy, 5e-12);
  assert_close (l->u.memory.write_bandwidth, 8e11);
  l = inputs_level_named (arch, "GlobalBuffer", FFM_LEVEL_MEMORY);
  g_assert_cmpfloat (l->u.memory.size, ==, 536870912.0);
  assert_close (l->u.memory.read_energy, 1e-12 * sram_ratio (64, 128, "read"));
  assert_close (l->u.memory.write_energy, 1.5e-12 * sram_ratio (64, 128, "write"));
  g_assert_cmpfloat (l->u.memory.read_energy, <, 1e-12);
  assert_close (l->u.memory.read_bandwidth, 8 * 4096e9);
  assert_close (l->u.memory.write_bandwidth, 8 * 512e9);
  assert_close (l->area, 112e-6 * sram_ratio (64, 128, NULL));
  l = inputs_level_named (arch, "Cores", FFM_LEVEL_FANOUT);
  g_assert_cmpuint (l->u.fanout.dims[0].count, ==, 2);
  l = inputs_level_named (arch, "LocalBuffer", FFM_LEVEL_MEMORY);
  g_assert_cmpfloat (l->u.memory.size, ==, 4194304.0);
  assert_close (l->u.memory.read_energy, 0.125e-12 * sram_ratio (0.5, 4, "read"));
  assert_close (l->u.memory.write_energy, 0.25e-12 * sram_ratio (0.5, 4, "write"));
  l = inputs_level_named (arch, "ScalarUnit", FFM_LEVEL_COMPUTE);
  assert_close (l->u.compute.throughput, 2e9 * 64);
  assert_close (l->u.compute.energy, 0.25e-12);
  l = inputs_level_named (arch, "ProcessingElement", FFM_LEVEL_FANOUT);
  g_assert_cmpuint (l->u.fanout.dims[0].count, ==, 32);   /* columns share inputs */
  g_assert_cmpuint (l->u.fanout.dims[1].count, ==, 64);   /* rows reduce outputs */
  l = inputs_level_named (arch, "Register", FFM_LEVEL_MEMORY);
  g_assert_null (l->u.memory.size_per_einsum);
  g_assert_cmpfloat (l->u.memory.size, ==, 16.0);
  l = inputs_level_named (arch, "MAC", FFM_LEVEL_COMPUTE);
  assert_close (l->u.compute.throughput, 2e9);
  assert_close (l->u.compute.energy, 0.5e-12);
  g_assert_cmpuint (instances_of (arch, "MAC"), ==, 2 * 32 * 64);
}

static void
test_tpu_bad_params (void)
{
  static const BadParam cases[] = {
    { "glb_mib=-1", FFM_PARAM_ERROR_INVALID_VALUE, "glb_mib" },
    { "glb_mib=0", FFM_PARAM_ERROR_INVALID_VALUE, "glb_mib" },
    { "glb_mib=big", FFM_PARAM_ERROR_INVALID_VALUE, "glb_mib" },
    { "lb_mib=-4", FFM_PARAM_ERROR_INVALID_VALUE, "lb_mib" },
    { "n_cores=0", FFM_PARAM_ERROR_INVALID_VALUE, "n_cores" },
    { "n_cores=2.5", FFM_PARAM_ERROR_INVALID_VALUE, "n_cores" },
    { "array_rows=-128", FFM_PARAM_ERROR_INVALID_VALUE, "array_rows" },
    { "array_cols=100000", FFM_PARAM_ERROR_INVALID_VALUE, "array_cols" },
    { "clock_ghz=0", FFM_PARAM_ERROR_INVALID_VALUE, "clock_ghz" },
    { "clock_ghz=fast", FFM_PARAM_ERROR_INVALID_VALUE, "clock_ghz" },
    { "dram_gbps=-614", FFM_PARAM_ERROR_INVALID_VALUE, "dram_gbps" },
    { "dram_pj_per_bit=-7", FFM_PARAM_ERROR_INVALID_VALUE, "dram_pj_per_bit" },
    { "mac_pj=-0.084", FFM_PARAM_ERROR_INVALID_VALUE, "mac_pj" },
    { "weight_bits=65", FFM_PARAM_ERROR_INVALID_VALUE, "weight_bits" },
    { "glb_size=64", FFM_PARAM_ERROR_UNKNOWN, "glb_size" },
    { "voltage=0.8", FFM_PARAM_ERROR_UNKNOWN, "voltage" },
  };

  g_test_summary ("bad TPUv4i parameters fail, naming the architecture and "
                  "the parameter");
  check_bad_params ("tpuv4i", cases, G_N_ELEMENTS (cases));
}

static void
test_tpu_unknown_chip (void)
{
  g_test_summary ("the tpuv4i model refuses architecture names it does not offer");
  check_unknown_chip ("tpuv4i");
}

/* ---- The single-architecture helper (ffm-single-arch-model.h) ---- */

typedef struct {
  double size_kib;
  gint64 pes;
  const char *label;
} TinyConfig;

static const FfmParamSpec tiny_params[] = {
  { "size_kib", FFM_PARAM_NUMBER, "64", "buffer size (KiB)", 1, 1e6, NULL },
  { "pes", FFM_PARAM_INTEGER, "4", "PEs", 1, 4096, NULL },
  { "label", FFM_PARAM_STRING, "plain", "a label; 'fail' makes the build fail", 0, 0, NULL },
  { NULL, 0, NULL, NULL, 0, 0, NULL }
};

static const gsize tiny_offsets[] = {
  G_STRUCT_OFFSET (TinyConfig, size_kib),
  G_STRUCT_OFFSET (TinyConfig, pes),
  G_STRUCT_OFFSET (TinyConfig, label),
};

static gboolean
tiny_add_levels (FfmArch *arch, const void *data, GError **error)
{
  const TinyConfig *c = data;
  FfmLevel *l;

  if (strcmp (c->label, "fail") == 0)
    {
      g_set_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID,
                   "architecture tiny: label 'fail' refused");
      return FALSE;
    }
  l = ffm_arch_add_memory (arch, "Main");
  l->u.memory.size = INFINITY;
  l = ffm_arch_add_memory (arch, "Buffer");
  l->u.memory.size = c->size_kib * 8192;
  l = ffm_arch_add_fanout (arch, "PE");
  ffm_level_add_fanout_dim (l, "x", (guint) c->pes);
  ffm_arch_add_compute (arch, "MAC");
  return TRUE;
}

static const FfmSingleArchModel tiny_model = {
  .name = "tiny",
  .summary = "a buffer over PEs",
  .source = "test-arch-models.c",
  .params = tiny_params,
  .param_offsets = tiny_offsets,
  .config_size = sizeof (TinyConfig),
  .add_levels = tiny_add_levels,
};

static void
test_single_arch_model (void)
{
  g_auto (GStrv) names = ffm_single_arch_model_list (&tiny_model);
  g_autofree char *about = ffm_single_arch_model_describe (&tiny_model, "tiny");
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (FfmArch) arch = NULL;
  FfmParamSpec *specs;

  g_test_summary ("A model of one architecture from a table: its name only, its "
                  "parameters read into its struct, errors that name what the user set");
  g_assert_cmpuint (g_strv_length (names), ==, 1);
  g_assert_cmpstr (names[0], ==, "tiny");
  g_assert_cmpstr (about, ==, "a buffer over PEs");
  g_assert_null (ffm_single_arch_model_describe (&tiny_model, "huge"));
  g_assert_null (ffm_single_arch_model_get_params (&tiny_model, "huge", &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "only 'tiny'"));
  g_clear_error (&error);
  specs = ffm_single_arch_model_get_params (&tiny_model, "tiny", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (specs[2].name, ==, "label");
  g_assert_null (specs[3].name);
  ffm_param_specs_free (specs);

  /* Defaults, then values. */
  arch = ffm_single_arch_model_build (&tiny_model, "tiny", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_arch_get_name (arch), ==, "tiny");
  g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.size, ==, 64 * 8192);
  g_clear_pointer (&arch, ffm_arch_unref);
  ffm_param_values_set (values, "size_kib", "2");
  ffm_param_values_set (values, "pes", "16");
  arch = ffm_single_arch_model_build (&tiny_model, "tiny", values, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.size, ==, 2 * 8192);
  g_clear_pointer (&arch, ffm_arch_unref);

  /* A value out of range, an unknown parameter, the model's own refusal. */
  ffm_param_values_set (values, "pes", "0");
  g_assert_null (ffm_single_arch_model_build (&tiny_model, "tiny", values, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "pes"));
  g_assert_nonnull (strstr (error->message, "architecture tiny"));
  g_clear_error (&error);
  ffm_param_values_set (values, "pes", "4");
  ffm_param_values_set (values, "label", "fail");
  g_assert_null (ffm_single_arch_model_build (&tiny_model, "tiny", values, &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (ffm_single_arch_model_build (&tiny_model, "other", NULL, &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_NOT_FOUND);
}

/* ---- Edge ---- */

static void
test_edge_descriptor (void)
{
  static const char *const estimated[] = {
    "clock_ghz", "dram_gbps", "glb_read_gbps", "glb_write_gbps", "mac_pj",
    "vector_pj", NULL
  };
  static const char *const modelled[] = {
    "dram_pj_per_bit", "glb_read_pj_per_bit", "glb_write_pj_per_bit",
    "glb_leak_mw", NULL
  };
  const FfmArchModelVTable *vtable = model_vtable ("edge");
  g_autofree char *summary = vtable->describe ("edge");
  g_autoptr (GError) error = NULL;
  FfmParamSpec *specs;

  g_test_summary ("the edge model says which numbers are estimates, in its "
                  "description and in each parameter's help");
  g_assert_nonnull (summary);
  g_assert_null (strchr (summary, '\n'));
  g_assert_nonnull (strstr (summary, "ESTIMATES"));
  g_assert_nonnull (strstr (summary, "25.6 GB/s"));
  g_assert_nonnull (strstr (summary, "docs/architectures.md"));
  check_param_specs ("edge", "edge", 16);

  specs = vtable->get_params ("edge", &error);
  g_assert_no_error (error);
  for (guint i = 0; estimated[i] != NULL; i++)
    {
      const FfmParamSpec *spec = ffm_param_spec_find (specs, estimated[i]);
      g_assert_nonnull (spec);
      g_assert_nonnull (strstr (spec->help, "[EST"));
    }
  for (guint i = 0; modelled[i] != NULL; i++)
    {
      const FfmParamSpec *spec = ffm_param_spec_find (specs, modelled[i]);
      g_assert_nonnull (spec);
      g_assert_nonnull (strstr (spec->help, "[MODEL"));
    }
  ffm_param_specs_free (specs);
}

static void
test_edge_defaults (void)
{
  static const char *const order[] = {
    "MainMemory", "GlobalBuffer", "VectorUnit", "ProcessingElement", "Register", "MAC", NULL
  };
  static const guint mac_path[] = { 0, 1, 3, 4, 5 };
  static const guint vector_path[] = { 0, 1, 2 };
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = inputs_build_arch (registry, "edge", &error, NULL);
  const FfmLevel *l;

  g_test_summary ("the edge accelerator with its defaults: the paper's 8 "
                  "structure and the labelled estimates of arch-models 3.2");
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_arch_get_name (arch), ==, "edge");
  assert_level_order (arch, order);

  l = inputs_level_named (arch, "MainMemory", FFM_LEVEL_MEMORY);
  g_assert_true (isinf (l->u.memory.size));
  assert_close (l->u.memory.read_energy, 8e-12);
  assert_close (l->u.memory.write_energy, 8e-12);
  assert_close (l->u.memory.read_bandwidth, 8 * 25.6e9);
  g_assert_cmpstr (l->u.memory.keep, ==, "~intermediates");

  l = inputs_level_named (arch, "GlobalBuffer", FFM_LEVEL_MEMORY);
  g_assert_cmpfloat (l->u.memory.size, ==, 41943040.0);
  assert_close (l->u.memory.read_energy, 0.314e-12);
  assert_close (l->u.memory.write_energy, 0.342e-12);
  assert_close (l->u.memory.read_bandwidth, 8 * 2048e9);
  assert_close (l->u.memory.write_bandwidth, 8 * 1024e9);
  g_assert_cmpint (l->u.memory.ports, ==, FFM_PORTS_SEPARATE);
  assert_close (l->leak_power, 0.47e-3);
  assert_close (l->area, 1.61e-6);
  g_assert_cmpstr (l->u.memory.keep, ==, "~MainMemory");

  l = inputs_level_named (arch, "VectorUnit", FFM_LEVEL_COMPUTE);
  assert_close (l->u.compute.throughput, 256e9);
  g_assert_cmpfloat (l->u.compute.energy, ==, 0.0);
  g_assert_cmpstr (l->u.compute.enabled, ==, "len(all) == 2");

  l = inputs_level_named (arch, "ProcessingElement", FFM_LEVEL_FANOUT);
  g_assert_cmpuint (l->u.fanout.n_dims, ==, 2);
  g_assert_cmpuint (l->u.fanout.dims[0].count, ==, 128);
  g_assert_cmpstr (l->u.fanout.dims[0].reuse, ==, "input");
  g_assert_cmpuint (l->u.fanout.dims[1].count, ==, 128);
  g_assert_cmpstr (l->u.fanout.dims[1].reuse, ==, "output");

  l = inputs_level_named (arch, "Register", FFM_LEVEL_MEMORY);
  g_assert_cmpstr (l->u.memory.size_per_einsum, ==, "weight.bits_per_value");
  g_assert_cmpstr (l->u.memory.keep, ==, "weight");

  l = inputs_level_named (arch, "MAC", FFM_LEVEL_COMPUTE);
  assert_close (l->u.compute.energy, 0.084e-12);
  assert_close (l->u.compute.throughput, 1e9);
  /* ~33 TOPS: 128 x 128 MACs x 2 ops x 1.0 GHz = 32.8 TOPS. */
  assert_close (2.0 * (double) instances_of (arch, "MAC") * l->u.compute.throughput,
                32.768e12);

  assert_compute_path (arch, "MAC", mac_path, G_N_ELEMENTS (mac_path));
  assert_compute_path (arch, "VectorUnit", vector_path, G_N_ELEMENTS (vector_path));
}

static void
test_edge_changed (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = inputs_build_arch (registry, "edge", &error,
                                         "glb_mib=4.768", "array_rows=64",
                                         "array_cols=256", "vector_lanes=128",
                                         "clock_ghz=1.05", "dram_gbps=34.1",
                                         "dram_pj_per_bit=6.25",
                                         "glb_read_pj_per_bit=0.41",
                                         "glb_write_pj_per_bit=0.42",
                                         "glb_read_gbps=1000", "glb_write_gbps=500",
                                         "glb_leak_mw=0", "mac_pj=0.109",
                                         "vector_pj=0.37", "weight_bits=8", NULL);
  const FfmLevel *l;

  g_test_summary ("every edge parameter reaches its level, in SI units; the global "
                  "buffer's energies scale with its size by the SRAM estimator's "
                  "ratio");
  g_assert_no_error (error);
  l = inputs_level_named (arch, "MainMemory", FFM_LEVEL_MEMORY);
  assert_close (l->u.memory.read_energy, 6.25e-12);
  assert_close (l->u.memory.read_bandwidth, 8 * 34.1e9);
  l = inputs_level_named (arch, "GlobalBuffer", FFM_LEVEL_MEMORY);
  assert_close (l->u.memory.size, 4.768 * 8388608);
  assert_close (l->u.memory.read_energy, 0.41e-12 * sram_ratio (4.768, 5, "read"));
  assert_close (l->u.memory.write_energy, 0.42e-12 * sram_ratio (4.768, 5, "write"));
  g_assert_cmpfloat (l->u.memory.read_energy, <, 0.41e-12);
  assert_close (l->u.memory.read_bandwidth, 8e12);
  assert_close (l->u.memory.write_bandwidth, 4e12);
  g_assert_cmpfloat (l->leak_power, ==, 0.0);
  l = inputs_level_named (arch, "VectorUnit", FFM_LEVEL_COMPUTE);
  assert_close (l->u.compute.throughput, 1.05e9 * 128);
  assert_close (l->u.compute.energy, 0.37e-12);
  l = inputs_level_named (arch, "ProcessingElement", FFM_LEVEL_FANOUT);
  g_assert_cmpuint (l->u.fanout.dims[0].count, ==, 256);
  g_assert_cmpuint (l->u.fanout.dims[1].count, ==, 64);
  l = inputs_level_named (arch, "Register", FFM_LEVEL_MEMORY);
  g_assert_null (l->u.memory.size_per_einsum);
  g_assert_cmpfloat (l->u.memory.size, ==, 8.0);
  l = inputs_level_named (arch, "MAC", FFM_LEVEL_COMPUTE);
  assert_close (l->u.compute.energy, 0.109e-12);
  assert_close (l->u.compute.throughput, 1.05e9);
}

static void
test_edge_bad_params (void)
{
  static const BadParam cases[] = {
    { "glb_mib=-5", FFM_PARAM_ERROR_INVALID_VALUE, "glb_mib" },
    { "vector_lanes=0", FFM_PARAM_ERROR_INVALID_VALUE, "vector_lanes" },
    { "vector_lanes=1.5", FFM_PARAM_ERROR_INVALID_VALUE, "vector_lanes" },
    { "array_cols=-1", FFM_PARAM_ERROR_INVALID_VALUE, "array_cols" },
    { "clock_ghz=-1", FFM_PARAM_ERROR_INVALID_VALUE, "clock_ghz" },
    { "dram_gbps=0", FFM_PARAM_ERROR_INVALID_VALUE, "dram_gbps" },
    { "glb_leak_mw=-0.47", FFM_PARAM_ERROR_INVALID_VALUE, "glb_leak_mw" },
    { "vector_pj=lots", FFM_PARAM_ERROR_INVALID_VALUE, "vector_pj" },
    { "n_cores=4", FFM_PARAM_ERROR_UNKNOWN, "n_cores" },
    { "tech_nm=7", FFM_PARAM_ERROR_UNKNOWN, "tech_nm" },
  };

  g_test_summary ("bad edge parameters fail, naming the architecture and the "
                  "parameter");
  check_bad_params ("edge", cases, G_N_ELEMENTS (cases));
}

static void
test_edge_unknown_chip (void)
{
  g_test_summary ("the edge model refuses architecture names it does not offer");
  check_unknown_chip ("edge");
}

/* ---- Through the cost model ---- */

/* The matmuls workload with one 64 x 64 x 64 Einsum, 8 bits per value. */
static FfmWorkload *
load_matmul_64 (void)
{
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (g_getenv ("FFM_SOURCE_ROOT"), "workloads",
                                            "matmuls.json", NULL);
  FfmWorkload *workload;

  ffm_param_values_set (values, "n_einsums", "1");
  ffm_param_values_set (values, "m", "64");
  ffm_param_values_set (values, "kn", "64");
  workload = ffm_workload_load (path, values, &error);
  g_assert_no_error (error);
  return workload;
}

static FfmCostReport *
evaluate (const FfmWorkload *workload, const FfmArch *arch, const char *mapping_file)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "archplugins",
                                                 mapping_file, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmMapping) mapping = ffm_mapping_load_file (path, &error);
  FfmCostReport *report;

  g_assert_no_error (error);
  report = ffm_cost_evaluate_mapping (workload, arch, mapping, &error);
  g_assert_no_error (error);
  g_assert_nonnull (report);
  return report;
}

/* Bits moved by tensor @tensor at level @level_name (all instances): reads
 * when @reads, else fills. */
static double
buffet_bits (const FfmArch *arch, const FfmWorkload *workload,
             const FfmPmappingModel *model, const FfmPmappingCost *cost,
             const char *level_name, const char *tensor, gboolean reads)
{
  int level = ffm_arch_find_level (arch, level_name);
  int t = ffm_workload_find_tensor (workload, tensor);

  for (guint b = 0; b < ffm_pmapping_model_get_n_buffets (model); b++)
    {
      const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (model, b);
      if ((int) info->level == level && (int) info->tensor == t)
        return (double) (reads ? cost->counts[b].reads : cost->counts[b].fills)
               * info->bits_per_value;
    }
  g_assert_not_reached ();
  return 0;
}

static void
test_tpu_matmul_latency (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = inputs_build_arch (registry, "tpuv4i", &error, NULL);
  g_autoptr (FfmWorkload) workload = load_matmul_64 ();
  g_autoptr (FfmCostReport) report = NULL;
  const FfmPmappingModel *model;
  const FfmPmappingCost *cost;
  int mac = ffm_arch_find_level (arch, "MAC");
  double bits = -1;

  g_test_summary ("a 64x64x64 matmul on 4 cores x 64 x 64 PEs at 1.05 GHz takes "
                  "16 steps = 1.5238e-8 s, with the data movement of the reference implementation (accelforge)");
  g_assert_no_error (error);

  /* The register holds one 8-bit weight for this Einsum. */
  g_assert_true (ffm_arch_memory_size (arch, (guint) ffm_arch_find_level (arch, "Register"),
                                       workload, 0, &bits, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (bits, ==, 8.0);

  report = evaluate (workload, arch, "matmul-tpuv4i.json");
  g_assert_true (ffm_cost_report_fits (report));
  model = ffm_cost_report_get_model (report, 0);
  cost = ffm_cost_report_get_cost (report, 0);
  g_assert_cmpint (cost->status, ==, FFM_COST_VALID);
  g_assert_cmpuint (cost->operations, ==, 262144);
  g_assert_cmpuint (cost->steps, ==, 16);
  assert_close (cost->level_latency[mac], 16 / 1.05e9);
  g_assert_cmpfloat_with_epsilon (cost->level_latency[mac], 1.5238e-8, 1e-12);
  g_assert_cmpfloat (ffm_cost_report_get_latency (report), >=, cost->level_latency[mac]);
  assert_close (cost->level_energy[mac], 262144 * 0.084e-12);

  /* The cores do not multicast (Z may_reuse nothing): each reads W0. */
  g_assert_cmpfloat (buffet_bits (arch, workload, model, cost, "GlobalBuffer", "W0", TRUE),
                     ==, 131072.0);
  /* T0 is multicast along the rows of the array (the reuse_input loop on n1). */
  g_assert_cmpfloat (buffet_bits (arch, workload, model, cost, "LocalBuffer", "T0", TRUE),
                     ==, 32768.0);
  /* One weight per register, 16384 registers. */
  g_assert_cmpfloat (buffet_bits (arch, workload, model, cost, "Register", "W0", FALSE),
                     ==, 131072.0);
}

static void
test_tpu_register_width (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = inputs_build_arch (registry, "tpuv4i", &error, "weight_bits=4", NULL);
  g_autoptr (FfmWorkload) workload = load_matmul_64 ();
  g_autoptr (FfmCostReport) report = NULL;
  const FfmPmappingCost *cost;

  g_test_summary ("a register fixed at 4 bits cannot hold an 8-bit weight");
  g_assert_no_error (error);
  report = evaluate (workload, arch, "matmul-tpuv4i.json");
  g_assert_false (ffm_cost_report_fits (report));
  cost = ffm_cost_report_get_cost (report, 0);
  g_assert_cmpint (cost->status, ==, FFM_COST_DOES_NOT_FIT);
  g_assert_cmpint (cost->bad_level, ==, ffm_arch_find_level (arch, "Register"));
}

static void
test_edge_matmul_latency (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = inputs_build_arch (registry, "edge", &error, NULL);
  g_autoptr (FfmWorkload) workload = load_matmul_64 ();
  g_autoptr (FfmCostReport) report = NULL;
  const FfmPmappingCost *cost;
  int mac = ffm_arch_find_level (arch, "MAC");
  int dram = ffm_arch_find_level (arch, "MainMemory");

  g_test_summary ("a 64x64x64 matmul on 64 x 64 of the edge MACs at 1.0 GHz takes "
                  "64 steps; LPDDR4 at 25.6 GB/s dominates");
  g_assert_no_error (error);
  report = evaluate (workload, arch, "matmul-edge.json");
  g_assert_true (ffm_cost_report_fits (report));
  cost = ffm_cost_report_get_cost (report, 0);
  g_assert_cmpint (cost->status, ==, FFM_COST_VALID);
  g_assert_cmpuint (cost->steps, ==, 64);
  assert_close (cost->level_latency[mac], 64 / 1e9);
  g_assert_cmpfloat (cost->level_latency[dram], >, cost->level_latency[mac]);
  assert_close (ffm_cost_report_get_latency (report), cost->level_latency[dram]);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);

  registry = ffm_plugin_registry_new ();
  ffm_plugin_registry_scan (registry);

  g_test_add_func ("/arch-models/single-arch-model", test_single_arch_model);
  g_test_add_func ("/arch-models/tpuv4i/descriptor", test_tpu_descriptor);
  g_test_add_func ("/arch-models/tpuv4i/defaults", test_tpu_defaults);
  g_test_add_func ("/arch-models/tpuv4i/changed", test_tpu_changed);
  g_test_add_func ("/arch-models/tpuv4i/bad-params", test_tpu_bad_params);
  g_test_add_func ("/arch-models/tpuv4i/unknown-chip", test_tpu_unknown_chip);
  g_test_add_func ("/arch-models/tpuv4i/matmul-latency", test_tpu_matmul_latency);
  g_test_add_func ("/arch-models/tpuv4i/register-width", test_tpu_register_width);
  g_test_add_func ("/arch-models/edge/descriptor", test_edge_descriptor);
  g_test_add_func ("/arch-models/edge/defaults", test_edge_defaults);
  g_test_add_func ("/arch-models/edge/changed", test_edge_changed);
  g_test_add_func ("/arch-models/edge/bad-params", test_edge_bad_params);
  g_test_add_func ("/arch-models/edge/unknown-chip", test_edge_unknown_chip);
  g_test_add_func ("/arch-models/edge/matmul-latency", test_edge_matmul_latency);

  status = g_test_run ();
  ffm_plugin_registry_free (registry);
  return status;
}
