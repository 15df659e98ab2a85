/* test-cost-model.c: the cost model against numbers derived by hand and the
 * worked checks of the reference implementation (accelforge) and its test_model.
 *
 * Every expected number below is derived in the comment above its test
 * from the rules in docs/cost-model.md (counts in values; actions = values
 * x bits per value / bits per action; on `simple` every action and every
 * operation costs 1 J and the MAC does one operation per second, so energy
 * counts bits and operations and latency counts operations). */
#include <ffm/ffm.h>
#include "inputs.h"
#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* ---- Helpers ---- */

static char *
source_path (const char *first, ...)
{
  /* G_TEST_SRCDIR is tests/; the architectures and workloads live beside it */
  return g_test_build_filename (G_TEST_DIST, first, NULL);
}

static FfmWorkload *
load_workload (const char *file, const char *const *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmParamValues) values = ffm_param_values_new ();
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, file, NULL);
  FfmWorkload *w;

  for (guint i = 0; params != NULL && params[i] != NULL; i++)
    g_assert_true (ffm_param_values_parse_assignment (values, params[i], NULL));
  w = ffm_workload_load (path, values, &error);
  g_assert_no_error (error);
  return w;
}

static FfmArch *
load_arch (const char *file)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, file, NULL);
  FfmArch *a = ffm_arch_load_file (path, NULL, &error);
  g_assert_no_error (error);
  return a;
}

static FfmMapping *
load_mapping (const char *file)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cost",
                                                 file, NULL);
  FfmMapping *m = ffm_mapping_load_file (path, &error);
  g_assert_no_error (error);
  return m;
}

static FfmMapping *
load_mapping_text (const char *text)
{
  g_autoptr(GError) error = NULL;
  FfmMapping *m = ffm_mapping_load_from_data (text, "test-mapping", &error);
  g_assert_no_error (error);
  return m;
}

static FfmCostReport *
evaluate (FfmWorkload *w, FfmArch *a, FfmMapping *m)
{
  g_autoptr(GError) error = NULL;
  FfmCostReport *r = ffm_cost_evaluate_mapping (w, a, m, &error);
  g_assert_no_error (error);
  g_assert_nonnull (r);
  return r;
}

/* A single-path mapping compiled as a pmapping model. */
static FfmPmappingModel *
compile_path (FfmWorkload *w, FfmArch *a, FfmMapping *m)
{
  g_autoptr(GError) error = NULL;
  const GPtrArray *root = ffm_mapping_peek_root (m);
  FfmPmappingModel *model =
    ffm_pmapping_model_new (w, a, (const FfmMappingNode *const *) root->pdata,
                            root->len, ffm_mapping_get_source_file (m), &error);
  g_assert_no_error (error);
  g_assert_true (ffm_pmapping_model_check_tiles (model, NULL, &error));
  g_assert_no_error (error);
  return model;
}

/* The buffet of (level, tensor) in a model, or -1. */
static int
find_buffet (const FfmPmappingModel *model, const FfmArch *a,
             const FfmWorkload *w, const char *level, const char *tensor)
{
  for (guint b = 0; b < ffm_pmapping_model_get_n_buffets (model); b++)
    {
      const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (model, b);
      if (strcmp (ffm_arch_get_level (a, info->level)->name, level) == 0
          && strcmp (ffm_workload_get_tensor (w, info->tensor)->name, tensor) == 0)
        return b;
    }
  return -1;
}

static const FfmActionCounts *
counts_of (const FfmPmappingModel *model, const FfmPmappingCost *cost,
           const FfmArch *a, const FfmWorkload *w, const char *level,
           const char *tensor)
{
  int b = find_buffet (model, a, w, level, tensor);
  g_assert_cmpint (b, >=, 0);
  return &cost->counts[b];
}

static void
assert_counts (const FfmActionCounts *c, guint64 reads, guint64 fills,
               guint64 drains, guint64 updates)
{
  g_assert_cmpuint (c->reads, ==, reads);
  g_assert_cmpuint (c->fills, ==, fills);
  g_assert_cmpuint (c->drains, ==, drains);
  g_assert_cmpuint (c->updates, ==, updates);
}

/* Energy of one (level, tensor) of the report's Einsum @e, J (the memory's
 * read and write energies: for architectures without per-action ones). */
static double
tensor_energy (const FfmCostReport *r, guint e, const FfmArch *a,
               const FfmWorkload *w, const char *level, const char *tensor)
{
  const FfmPmappingModel *model = ffm_cost_report_get_model (r, e);
  const FfmPmappingCost *cost = ffm_cost_report_get_cost (r, e);
  int b = find_buffet (model, a, w, level, tensor);
  const FfmBuffetInfo *info;
  const FfmMemorySpec *mem;
  const FfmActionCounts *c;

  g_assert_cmpint (b, >=, 0);
  info = ffm_pmapping_model_get_buffet (model, b);
  mem = &ffm_arch_get_level (a, info->level)->u.memory;
  g_assert_true (ffm_memory_spec_has_two_energies (mem));
  c = &cost->counts[b];
  return (double) (c->reads + c->drains) * info->action_scale * mem->read_energy
    + (double) (c->fills + c->updates) * info->action_scale * mem->write_energy;
}

static int
level_index (const FfmArch *a, const char *name)
{
  int l = ffm_arch_find_level (a, name);
  g_assert_cmpint (l, >=, 0);
  return l;
}

/* ---- accelforge's test_model: unfused matmul on simple ----
 *
 * matmuls (n_einsums 1, m 64, kn 32, 8 bits): T1[m,n1] = T0[m,n0]*W0[n0,n1];
 * T0 and T1 have 64*32 = 2048 values, W0 32*32 = 1024, 65,536 operations.
 * Mapping: MainMemory [T0,W0,T1], GlobalBuffer [T0,W0,T1], loops m, n0, n1
 * with tile 1, MAC. No loop is above the GlobalBuffer node, so each tile
 * there is the whole tensor, filled once:
 *   MainMemory T0: reads 2048 (the GLB fill)      -> 16,384 bits = 16,384 J
 *   MainMemory W0: reads 1024                       ->  8,192 J
 *   MainMemory T1: the GLB's fill of T1 is the output's initial zero, skipped
 *     at both ends (both skip initial output writes): reads 2048 - 2048 = 0;
 *     the GLB drains T1 once: MainMemory updates 2048 -> 16,384 J
 *   GlobalBuffer: serves every operation: T0 and W0 reads 65,536 each; T1
 *     reads 65,536 - 2048 (first read of each output skipped) = 63,488,
 *     updates 65,536, fills 2048 - 2048 = 0, drains 2048; fills T0 2048,
 *     W0 1024.
 *   GLB energy = 8 x (65,536 + 2048 + 65,536 + 1024 + 63,488 + 2048 + 65,536)
 *     = 2,121,728 J; MAC 65,536 J; MainMemory 40,960 J; total 2,228,224 J.
 *   Latency: MAC 65,536 operations at 1/s; the memories are unbounded.
 * Variants: MainMemory bits_per_value {T0: 4} halves T0 there (8,192);
 * {all: 16} doubles all three (32,768 / 32,768 / 16,384); with
 * skip_initial_output_write false at MainMemory its read of T1's initial
 * zeros counts: T1 = 2048 reads + 2048 updates = 32,768 J. */

#define SIMPLE_TEMPLATE \
  "{ \"ffm_architecture\": 1, \"name\": \"simple-variant\", \"levels\": [" \
  "  { \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 1," \
  "    \"write_energy\": 1, \"keep\": \"~intermediates\", \"may_keep\": \"all\" %s }," \
  "  { \"memory\": \"GlobalBuffer\", \"size\": \"inf\", \"read_energy\": 1," \
  "    \"write_energy\": 1, \"keep\": \"~MainMemory\", \"may_keep\": \"all\" }," \
  "  { \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1 } ] }"

static void
check_test_model_variant (const char *extra, double t0, double t1, double w0)
{
  g_autofree char *text = g_strdup_printf (SIMPLE_TEMPLATE, extra);
  g_autoptr(FfmArch) a = inputs_arch_from_text (text);
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (1, 64, 32);
  g_autoptr(FfmMapping) m = load_mapping ("unfused-matmul-simple.json");
  g_autoptr(FfmCostReport) r = evaluate (w, a, m);

  g_assert_cmpfloat (tensor_energy (r, 0, a, w, "MainMemory", "T0"), ==, t0);
  g_assert_cmpfloat (tensor_energy (r, 0, a, w, "MainMemory", "T1"), ==, t1);
  g_assert_cmpfloat (tensor_energy (r, 0, a, w, "MainMemory", "W0"), ==, w0);
}

static void
test_unfused_simple (void)
{
  g_autoptr(FfmArch) a = load_arch ("../arch-models/json/architectures/simple.json");
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (1, 64, 32);
  g_autoptr(FfmMapping) m = load_mapping ("unfused-matmul-simple.json");
  g_autoptr(FfmCostReport) r = evaluate (w, a, m);
  const FfmPmappingModel *model = ffm_cost_report_get_model (r, 0);
  const FfmPmappingCost *cost = ffm_cost_report_get_cost (r, 0);

  g_test_summary ("accelforge's test_model: unfused matmul on simple, by hand");
  assert_counts (counts_of (model, cost, a, w, "MainMemory", "T0"), 2048, 0, 0, 0);
  assert_counts (counts_of (model, cost, a, w, "MainMemory", "W0"), 1024, 0, 0, 0);
  assert_counts (counts_of (model, cost, a, w, "MainMemory", "T1"), 0, 0, 0, 2048);
  assert_counts (counts_of (model, cost, a, w, "GlobalBuffer", "T0"), 65536, 2048, 0, 0);
  assert_counts (counts_of (model, cost, a, w, "GlobalBuffer", "W0"), 65536, 1024, 0, 0);
  assert_counts (counts_of (model, cost, a, w, "GlobalBuffer", "T1"), 63488, 0, 2048, 65536);
  g_assert_cmpuint (cost->operations, ==, 65536);
  g_assert_cmpfloat (tensor_energy (r, 0, a, w, "MainMemory", "T0"), ==, 16384);
  g_assert_cmpfloat (tensor_energy (r, 0, a, w, "MainMemory", "T1"), ==, 16384);
  g_assert_cmpfloat (tensor_energy (r, 0, a, w, "MainMemory", "W0"), ==, 8192);
  g_assert_cmpfloat (ffm_cost_report_get_energy (r), ==, 2228224);
  g_assert_cmpfloat (ffm_cost_report_get_latency (r), ==, 65536);
  g_assert_cmpfloat (ffm_cost_report_get_edp (r), ==, 2228224.0 * 65536.0);
  g_assert_true (ffm_cost_report_fits (r));

  check_test_model_variant ("", 16384, 16384, 8192);
  check_test_model_variant (", \"bits_per_value\": { \"T0\": 4 }", 8192, 16384, 8192);
  check_test_model_variant (", \"bits_per_value\": { \"all\": 16 }", 32768, 32768, 16384);
  check_test_model_variant (", \"skip_initial_output_write\": false", 16384, 32768, 8192);
}

/* ---- Per-action energies ----
 *
 * The same mapping and counts as test_unfused_simple, with an energy per
 * action (J per bit): MainMemory read 1, update 5; GlobalBuffer read 2,
 * fill 3, update 7, drain 11. 8 bits per value.
 *   MainMemory: T0 2048 reads, W0 1024 reads: 8 x 3072 = 24,576; T1 2048
 *     updates x 5 = 81,920; total 106,496.
 *   GlobalBuffer: reads 65,536 + 65,536 + 63,488 = 194,560 x 2; fills
 *     2048 + 1024 = 3072 x 3; T1 drains 2048 x 11; updates 65,536 x 7:
 *     8 x (389,120 + 9,216 + 22,528 + 458,752) = 7,036,928 (read actions
 *     8 x (389,120 + 22,528) = 3,293,184 J, write actions 3,743,744 J).
 *   MAC 65,536; total 7,208,960 J.
 * Drains that read nothing ("drains_read": false on the GlobalBuffer):
 *   minus 22,528 x 8 = 180,224: 7,028,736 J; the GlobalBuffer's read
 *   actions are then 8 x 194,560 = 1,556,480 (not 1,572,864), which at one
 *   read action per second is its latency.
 * T1 updated at 13 J ("energy_by_tensor": {"T1": {"update_energy": 13}}):
 *   plus 65,536 x 8 x 6 = 3,145,728: 10,354,688 J. */

#define PER_ACTION_TEMPLATE \
  "{ \"ffm_architecture\": 1, \"name\": \"per-action\", \"levels\": [" \
  "  { \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 1," \
  "    \"write_energy\": 1, \"update_energy\": 5, \"keep\": \"~intermediates\"," \
  "    \"may_keep\": \"all\" }," \
  "  { \"memory\": \"GlobalBuffer\", \"size\": \"inf\", \"read_energy\": 2," \
  "    \"write_energy\": 100, \"fill_energy\": 3, \"update_energy\": 7, %s," \
  "    \"read_bandwidth\": 1, \"keep\": \"~MainMemory\", \"may_keep\": \"all\" }," \
  "  { \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1 } ] }"

static FfmCostReport *
evaluate_per_action (const char *glb_members, FfmArch **arch)
{
  g_autofree char *text = g_strdup_printf (PER_ACTION_TEMPLATE, glb_members);
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (1, 64, 32);
  g_autoptr(FfmMapping) m = load_mapping ("unfused-matmul-simple.json");

  *arch = inputs_arch_from_text (text);
  return evaluate (w, *arch, m);
}

static void
test_per_action_energies (void)
{
  g_autoptr(FfmArch) a = NULL, b = NULL, c = NULL;
  g_autoptr(FfmCostReport) r = evaluate_per_action ("\"drain_energy\": 11", &a);
  g_autoptr(FfmCostReport) no_drain = evaluate_per_action ("\"drains_read\": false", &b);
  g_autoptr(FfmCostReport) by_tensor =
    evaluate_per_action ("\"drain_energy\": 11, \"energy_by_tensor\": "
                         "{ \"T1\": { \"update_energy\": 13 } }", &c);
  g_autofree char *json = ffm_cost_report_to_json (r);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  int glb = level_index (a, "GlobalBuffer"), mm = level_index (a, "MainMemory");
  const FfmPmappingCost *cost = ffm_cost_report_get_cost (r, 0);
  const FfmPmappingCost *cost_nd = ffm_cost_report_get_cost (no_drain, 0);
  JsonArray *components;
  gboolean seen = FALSE;

  g_test_summary ("Read, fill, update and drain energies, drains that read "
                  "nothing and per-tensor overrides, by hand");
  g_assert_cmpfloat (cost->level_energy[mm], ==, 106496);
  g_assert_cmpfloat (cost->level_energy[glb], ==, 7036928);
  g_assert_cmpfloat (ffm_cost_report_get_energy (r), ==, 7208960);
  g_assert_cmpfloat (cost->level_read_actions[glb], ==, 1572864);
  g_assert_cmpfloat (cost->level_latency[glb], ==, 1572864);

  g_assert_cmpfloat (ffm_cost_report_get_energy (no_drain), ==, 7028736);
  g_assert_cmpfloat (cost_nd->level_read_actions[glb], ==, 1556480);
  g_assert_cmpfloat (cost_nd->level_latency[glb], ==, 1556480);
  g_assert_cmpfloat (ffm_cost_report_get_latency (no_drain), ==, 1556480);

  g_assert_cmpfloat (ffm_cost_report_get_energy (by_tensor), ==, 10354688);

  /* The report's per-component read and write energies. */
  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  components = json_object_get_array_member (
    json_array_get_object_element (json_object_get_array_member (
      json_node_get_object (json_parser_get_root (parser)), "per_einsum"), 0),
    "per_component");
  for (guint i = 0; i < json_array_get_length (components); i++)
    {
      JsonObject *o = json_array_get_object_element (components, i);
      if (strcmp (json_object_get_string_member (o, "name"), "GlobalBuffer") != 0)
        continue;
      g_assert_cmpfloat (json_object_get_double_member (o, "read_energy_j"), ==, 3293184);
      g_assert_cmpfloat (json_object_get_double_member (o, "write_energy_j"), ==, 3743744);
      seen = TRUE;
    }
  g_assert_true (seen);
}

/* ---- the reference's first worked check: matmuls(2, 64, 64) straight from
 * MainMemory ----
 *
 * Every tensor in MainMemory, no other storage, loops m, n_i, n_{i+1} with
 * tile 1 in each branch of a split at the root. Per Einsum: 262,144
 * operations; each input is read once per operation (262,144 x 8 bits =
 * 2,097,152); the output is updated once per operation (2,097,152) and read
 * once per operation except the first read of each of its 4096 values
 * ((262,144 - 4096) x 8 = 2,064,384); MAC 262,144. Sum per Einsum
 * 8,617,984 J; latency 262,144 s (the MAC); totals 17,235,968 J, 524,288 s. */
static void
test_matmuls_from_main_memory (void)
{
  g_autoptr(FfmArch) a = load_arch ("../arch-models/json/architectures/simple.json");
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 64, 64);
  g_autoptr(FfmMapping) m = load_mapping_text (
    "{\"ffm_mapping\": 1, \"nodes\": ["
    " {\"storage\": [\"T0\", \"W0\", \"T1\", \"W1\", \"T2\"], \"level\": \"MainMemory\"},"
    " {\"sequential\": ["
    "  [{\"temporal\": \"m\", \"tile\": 1}, {\"temporal\": \"n0\", \"tile\": 1},"
    "   {\"temporal\": \"n1\", \"tile\": 1}, {\"compute\": \"Matmul0\", \"level\": \"MAC\"}],"
    "  [{\"temporal\": \"m\", \"tile\": 1}, {\"temporal\": \"n1\", \"tile\": 1},"
    "   {\"temporal\": \"n2\", \"tile\": 1}, {\"compute\": \"Matmul1\", \"level\": \"MAC\"}]"
    " ]}]}");
  g_autoptr(FfmCostReport) r = evaluate (w, a, m);

  g_test_summary ("reference check: simple, matmuls(2,64,64) from MainMemory");
  g_assert_cmpuint (ffm_cost_report_get_n_einsums (r), ==, 2);
  for (guint e = 0; e < 2; e++)
    {
      const FfmPmappingCost *c = ffm_cost_report_get_cost (r, e);
      const char *in = e == 0 ? "T0" : "T1", *wt = e == 0 ? "W0" : "W1";
      const char *out = e == 0 ? "T1" : "T2";
      g_assert_cmpfloat (tensor_energy (r, e, a, w, "MainMemory", in), ==, 2097152);
      g_assert_cmpfloat (tensor_energy (r, e, a, w, "MainMemory", wt), ==, 2097152);
      assert_counts (counts_of (ffm_cost_report_get_model (r, e), c, a, w,
                                "MainMemory", out), 262144 - 4096, 0, 0, 262144);
      g_assert_cmpfloat (c->energy, ==, 8617984);
      g_assert_cmpfloat (c->latency, ==, 262144);
    }
  g_assert_cmpfloat (ffm_cost_report_get_energy (r), ==, 17235968);
  g_assert_cmpfloat (ffm_cost_report_get_latency (r), ==, 524288);
}

/* ---- Hand-derived: two matmuls fused through an on-chip intermediate ----
 *
 * matmuls (2 Einsums, m 8, kn 4, 8 bits), fused-matmuls-simple.json:
 *   MainMemory [T0,W0,W1,T2]; for m tile 1; GlobalBuffer [T1];
 *   split { GLB [T0,W0]; n1; n0; Matmul0 | GLB [W1,T2]; n2; n1; Matmul1 }.
 * Each Einsum does 8*4*4 = 128 operations. Matmul0's path:
 *   T0[m,n0] (32 values): the GLB node sits below m, tile 1x4 = 4, filled
 *     once per m: GLB fills 8*4 = 32, MainMemory reads 32; the MAC reads the
 *     GLB once per operation: 128.
 *   W0[n0,n1] (16 values): tile 16 under the irrelevant m loop, refilled
 *     every m iteration: fills 8*16 = 128 = MainMemory reads; GLB reads 128.
 *   T1[m,n1]: backed in the GLB (its first node on the path, under m): the
 *     MAC reads 128 - 32 (first read of each of the 8*4 outputs) = 96 and
 *     updates 128.
 *   Energy: MainMemory 8*(32+128) = 1280; GLB 8*(32+128+128+128+96+128)
 *     = 5120; MAC 128; total 6528 J.
 * Matmul1's path (T1 input, W1 like W0, T2 output under m):
 *   T1: the MAC reads the GLB 128.  W1: fills 128, MainMemory reads 128,
 *     GLB reads 128.  T2: GLB tile 1x4 under m, 8 fills all of them
 *     initial zeros: fills 32 - 32 = 0, drains 32 = MainMemory updates,
 *     MainMemory reads 32 - 32 = 0; the MAC: GLB reads 128 - 32 = 96,
 *     updates 128.
 *   Energy: MainMemory 8*(128+32) = 1280; GLB 8*(128+128+128+32+96+128)
 *     = 5120; MAC 128; total 6528 J.
 * Workload: 13,056 J, 256 s.
 * Occupancy of the GLB (bits): during Matmul0, T1's backing tile 4 values
 *   (32), T0's reservation stops at the next storage node (W0): 4 values
 *   (32), W0's sinks through the relevant n1, n0 to the MAC: 1 value (8);
 *   72 bits. During Matmul1: T1 32, W1 (stopped by T2's node) 16 values
 *   (128), T2 sinks through n2 and stops above n1: 8; 168 bits = the peak.
 *   MainMemory holds all of T0, W0, W1, T2 on both paths: 8*(32+16+16+32)
 *   = 768 bits. */
static void
test_fused_simple (void)
{
  g_autoptr(FfmArch) a = load_arch ("../arch-models/json/architectures/simple.json");
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 8, 4);
  g_autoptr(FfmMapping) m = load_mapping ("fused-matmuls-simple.json");
  g_autoptr(FfmCostReport) r = evaluate (w, a, m);
  const FfmPmappingModel *m0 = ffm_cost_report_get_model (r, 0);
  const FfmPmappingModel *m1 = ffm_cost_report_get_model (r, 1);
  const FfmPmappingCost *c0 = ffm_cost_report_get_cost (r, 0);
  const FfmPmappingCost *c1 = ffm_cost_report_get_cost (r, 1);
  int glb = level_index (a, "GlobalBuffer"), mm = level_index (a, "MainMemory");

  g_test_summary ("Two matmuls fused through the global buffer, by hand");
  assert_counts (counts_of (m0, c0, a, w, "MainMemory", "T0"), 32, 0, 0, 0);
  assert_counts (counts_of (m0, c0, a, w, "MainMemory", "W0"), 128, 0, 0, 0);
  assert_counts (counts_of (m0, c0, a, w, "GlobalBuffer", "T0"), 128, 32, 0, 0);
  assert_counts (counts_of (m0, c0, a, w, "GlobalBuffer", "W0"), 128, 128, 0, 0);
  assert_counts (counts_of (m0, c0, a, w, "GlobalBuffer", "T1"), 96, 0, 0, 128);
  assert_counts (counts_of (m1, c1, a, w, "GlobalBuffer", "T1"), 128, 0, 0, 0);
  assert_counts (counts_of (m1, c1, a, w, "MainMemory", "W1"), 128, 0, 0, 0);
  assert_counts (counts_of (m1, c1, a, w, "GlobalBuffer", "W1"), 128, 128, 0, 0);
  assert_counts (counts_of (m1, c1, a, w, "MainMemory", "T2"), 0, 0, 0, 32);
  assert_counts (counts_of (m1, c1, a, w, "GlobalBuffer", "T2"), 96, 0, 32, 128);
  g_assert_cmpfloat (c0->energy, ==, 6528);
  g_assert_cmpfloat (c1->energy, ==, 6528);
  g_assert_cmpfloat (ffm_cost_report_get_energy (r), ==, 13056);
  g_assert_cmpfloat (ffm_cost_report_get_latency (r), ==, 256);
  g_assert_cmpfloat (c0->level_occupancy[glb], ==, 72);
  g_assert_cmpfloat (c1->level_occupancy[glb], ==, 168);
  g_assert_cmpfloat (ffm_cost_report_get_peak_occupancy (r, glb), ==, 168);
  g_assert_cmpfloat (ffm_cost_report_get_peak_occupancy (r, mm), ==, 768);
  g_assert_cmpint (ffm_pmapping_model_get_buffet (m0, find_buffet (m0, a, w, "GlobalBuffer", "T1"))->n_loops_above, ==, 1);
  g_assert_true (ffm_cost_report_fits (r));
}

/* ---- A shared loop whose rank variable has another name below the split ----
 * The same two matmuls, but the second Einsum indexes T1's rank M with its
 * own variable p (as QK reads K[b, M:p, h, e] in a transformer). The loop
 * above the split walks rank M of T1: `m` in Matmul0 and, through
 * "rank_vars": {"Matmul1": "p"}, `p` in Matmul1. Renaming changes nothing:
 * every count, the totals and the peak occupancy equal the fused case
 * above (13,056 J, 256 s, 168 bits in the GlobalBuffer). */
static const char *renamed_workload =
  "{ \"ffm_workload\": 1, \"name\": \"renamed\","
  "  \"ranks\": { \"M\": 8, \"P\": 8, \"N0\": 4, \"N1\": 4, \"N2\": 4 },"
  "  \"bits_per_value\": { \"all\": 8 },"
  "  \"einsums\": ["
  "    { \"einsum\": \"T1[m,n1] = T0[m,n0] * W0[n0,n1]\", \"name\": \"Matmul0\" },"
  "    { \"einsum\": \"T2[p,n2] = T1[M:p,n1] * W1[n1,n2]\", \"name\": \"Matmul1\" } ] }";

static void
test_fused_renamed_rank_var (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmArch) a = load_arch ("../arch-models/json/architectures/simple.json");
  g_autoptr(FfmWorkload) w = ffm_workload_load_from_data (renamed_workload,
                                                          "renamed", NULL, &error);
  g_autoptr(FfmMapping) m = NULL;
  g_autoptr(FfmMapping) plain = NULL;
  g_autoptr(FfmCostReport) r = NULL;
  int glb = level_index (a, "GlobalBuffer");

  g_test_summary ("A loop shared by fused Einsums that name its rank "
                  "variable differently (rank_vars)");
  g_assert_no_error (error);
  m = load_mapping ("fused-matmuls-renamed.json");
  r = evaluate (w, a, m);
  g_assert_cmpfloat (ffm_cost_report_get_energy (r), ==, 13056);
  g_assert_cmpfloat (ffm_cost_report_get_latency (r), ==, 256);
  g_assert_cmpfloat (ffm_cost_report_get_peak_occupancy (r, glb), ==, 168);
  g_assert_true (ffm_cost_report_fits (r));

  /* Without the per-Einsum name the loop walks a variable Matmul1 lacks. */
  plain = load_mapping ("fused-matmuls-simple.json");
  g_assert_null (ffm_cost_evaluate_mapping (w, a, plain, &error));
  g_assert_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "fused-matmuls-simple.json"));
  g_assert_nonnull (strstr (error->message, "Matmul1"));
}

/* ---- Lifetimes of tiles kept directly above a split ----
 * Three matmuls (m = kn = 4, 8 bits: every tensor 16 values = 128 bits).
 * The GlobalBuffer keeps the whole T1 (Matmul0 -> Matmul1) and T2
 * (Matmul1 -> Matmul2) directly above the split; branch 0 also keeps W0
 * and branch 2 W2 (128 bits each). A tile directly above a split lives
 * from the first to the last branch that uses its tensor (paper §5.1), so
 * T1 is dead while Matmul2 runs and T2 before Matmul1 starts:
 *   Matmul0: T1 + W0 = 256, Matmul1: T1 + T2 = 256, Matmul2: T2 + W2 = 256.
 * The peak is 256 bits: a 256-bit GlobalBuffer fits, 255 bits does not
 * (had both tiles lived through every branch, Matmul0 would need 384). */
static void
test_split_lifetimes (void)
{
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (3, 4, 4);
  g_autoptr(FfmMapping) m = load_mapping ("chain3-whole-tensors.json");
  g_autoptr(FfmArch) fits = NULL, tight = NULL;
  g_autoptr(FfmCostReport) r1 = NULL, r2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmParamValues) values = ffm_param_values_new ();
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "arch-models",
                                                 "json", "architectures",
                                                 "simple.json", NULL);
  int glb;

  g_test_summary ("Tiles kept directly above a split live from their "
                  "producer's branch to their last reader's");
  ffm_param_values_set (values, "global_buffer_size", "256");
  fits = ffm_arch_load_file (path, values, &error);
  g_assert_no_error (error);
  glb = level_index (fits, "GlobalBuffer");
  r1 = evaluate (w, fits, m);
  g_assert_cmpfloat (ffm_cost_report_get_peak_occupancy (r1, glb), ==, 256);
  g_assert_true (ffm_cost_report_fits (r1));

  ffm_param_values_set (values, "global_buffer_size", "255");
  tight = ffm_arch_load_file (path, values, &error);
  g_assert_no_error (error);
  r2 = evaluate (w, tight, m);
  g_assert_false (ffm_cost_report_fits (r2));
  g_assert_nonnull (strstr (ffm_cost_report_get_problem (r2), "GlobalBuffer by 1 bits"));
}

/* ---- Capacity: the same mapping with a 160-bit global buffer ----
 * Matmul0 needs 72 bits, Matmul1 168: 8 bits too many while Matmul1 runs.
 * A valid answer, not an error. */
static void
test_does_not_fit (void)
{
  g_autoptr(FfmParamValues) params = ffm_param_values_new ();
  g_autofree char *path = source_path ("../arch-models/json/architectures/simple.json", NULL);
  g_autoptr(FfmArch) a = NULL;
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 8, 4);
  g_autoptr(FfmMapping) m = load_mapping ("fused-matmuls-simple.json");
  g_autoptr(FfmCostReport) r = NULL;
  g_autoptr(GError) error = NULL;
  int glb;

  g_test_summary ("A mapping that does not fit is a result naming the memory "
                  "and the excess");
  ffm_param_values_set (params, "global_buffer_size", "160");
  a = ffm_arch_load_file (path, params, &error);
  g_assert_no_error (error);
  glb = level_index (a, "GlobalBuffer");
  r = evaluate (w, a, m);
  g_assert_false (ffm_cost_report_fits (r));
  g_assert_cmpstr (ffm_cost_report_get_problem (r), ==,
                   "does not fit in GlobalBuffer by 8 bits (while Matmul1 runs)");
  g_assert_cmpint (ffm_cost_report_get_cost (r, 1)->status, ==, FFM_COST_DOES_NOT_FIT);
  g_assert_cmpint (ffm_cost_report_get_cost (r, 1)->bad_level, ==, glb);
  g_assert_cmpfloat (ffm_cost_report_get_cost (r, 1)->excess, ==, 8);
  g_assert_cmpint (ffm_cost_report_get_cost (r, 0)->status, ==, FFM_COST_VALID);
  /* the cost is still there */
  g_assert_cmpfloat (ffm_cost_report_get_energy (r), ==, 13056);
}

/* ---- reference check: TPU matmul (m = kn = 64, Matmul0 of two) ----
 * matmul0-tpu.json: MainMemory [T0,W0]; GLB [T1,W0]; spatial m tile 16 on
 * the 4 cores (Z); LocalBuffer [T0,T1]; spatial n1 on reuse_input, n0 on
 * reuse_output (64 of 128 each); Register [W0]; for m tile 1; MAC.
 *   MAC steps: 64/16 = 4 cores... each core runs its 16 rows one by one:
 *     262,144 / (4 x 64 x 64) = 16 steps -> 16 / 1.05e9 s.
 *   LocalBuffer T0 reads: n1 does not index T0 and reuse_input may reuse
 *     input: one read serves the 64 PEs of a row: 262,144 / 64 = 4096
 *     values = 32,768 bits.
 *   GLB W0 reads: each of the 4 x 64 x 64 registers is filled once; Z may
 *     reuse nothing, so each core's registers get their own copy: 16,384
 *     values = 131,072 bits; Register W0 writes the same 131,072 bits.
 *   MainMemory: T0 to the LocalBuffers, 4 cores x 16x64 = 4096 values;
 *     W0 to the GLB 4096 values: 65,536 bits read, nothing written ->
 *     latency 65,536 / (8 x 614e9) s. */
static void
test_tpu_matmul (void)
{
  g_autoptr(FfmArch) a = load_arch ("data/cost/tpu-like.json");
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 64, 64);
  g_autoptr(FfmMapping) m = load_mapping ("matmul0-tpu.json");
  g_autoptr(FfmPmappingModel) model = compile_path (w, a, m);
  g_autoptr(FfmPmappingCost) cost = ffm_pmapping_cost_new (model);
  int mac = level_index (a, "MAC"), mm = level_index (a, "MainMemory");
  int lb = find_buffet (model, a, w, "LocalBuffer", "T0");
  int glb_w0 = find_buffet (model, a, w, "GlobalBuffer", "W0");
  int reg = find_buffet (model, a, w, "Register", "W0");

  g_test_summary ("reference check: TPU matmul with multicast and per-core "
                  "copies");
  ffm_pmapping_model_evaluate (model, NULL, cost);
  g_assert_cmpint (cost->status, ==, FFM_COST_VALID);
  g_assert_cmpuint (cost->steps, ==, 16);
  g_assert_cmpfloat_with_epsilon (cost->level_latency[mac], 16 / 1.05e9, 1e-20);
  g_assert_cmpfloat (cost->counts[lb].reads * 8.0, ==, 32768);
  g_assert_cmpfloat (cost->counts[glb_w0].reads * 8.0, ==, 131072);
  g_assert_cmpfloat (cost->counts[reg].fills * 8.0, ==, 131072);
  g_assert_cmpfloat (cost->level_read_actions[mm], ==, 65536);
  g_assert_cmpfloat (cost->level_write_actions[mm], ==, 0);
  g_assert_cmpfloat_with_epsilon (cost->level_latency[mm], 65536 / 4.912e12, 1e-22);
  g_assert_cmpuint (cost->fanout_used[0], ==, 4);
  /* Register: one weight per register, 8 bits */
  g_assert_cmpfloat (cost->buffet_occupancy[reg], ==, 8);
}

/* ---- reference check: Eyeriss InputScratchpad latency ----
 * matmul0-eyeriss.json on eyeriss.json, matmuls(2, 64, 64): m over 8 PE
 * rows, n0 over 8 PE columns; each PE's InputScratchpad gets its 8x8 T0
 * block once (64 values, 512 bits of writes) and serves its 8*8*64 = 4096
 * operations (32,768 bits of reads): (32,768 + 512) / 9.846e9 = 3.38e-6 s. */
static void
test_eyeriss_latency (void)
{
  g_autoptr(FfmArch) a = load_arch ("../arch-models/json/architectures/eyeriss.json");
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 64, 64);
  g_autoptr(FfmMapping) m = load_mapping ("matmul0-eyeriss.json");
  g_autoptr(FfmPmappingModel) model = compile_path (w, a, m);
  g_autoptr(FfmPmappingCost) cost = ffm_pmapping_cost_new (model);
  int isp = level_index (a, "InputScratchpad");
  int b = find_buffet (model, a, w, "InputScratchpad", "T0");

  g_test_summary ("reference check: Eyeriss InputScratchpad latency");
  ffm_pmapping_model_evaluate (model, NULL, cost);
  g_assert_cmpint (cost->status, ==, FFM_COST_VALID);
  g_assert_cmpuint (cost->unit_counts[b].reads, ==, 4096);
  g_assert_cmpuint (cost->unit_counts[b].fills, ==, 64);
  g_assert_cmpuint (cost->counts[b].fills, ==, 64 * 64);
  g_assert_cmpfloat_with_epsilon (cost->level_latency[isp],
                                  (32768.0 + 512.0) / 9846153846.153845, 1e-18);
  g_assert_cmpfloat_with_epsilon (cost->level_latency[isp], 3.38e-6, 0.01e-6);
}

/* ---- reference check: snowcat reduces to compulsory traffic ----
 * Every tensor whole in MainMemory (T1 too) and in the free global buffer
 * above every loop: each input is read from MainMemory once and each output
 * written once: 3 x 4096 x 8 bits per Einsum, 196,608 J for matmuls(2,64,64);
 * the latency is 0 (every component is infinitely fast). */
static void
test_snowcat (void)
{
  g_autoptr(FfmArch) a = load_arch ("../arch-models/json/architectures/snowcat.json");
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 64, 64);
  g_autoptr(FfmMapping) m = load_mapping_text (
    "{\"ffm_mapping\": 1, \"nodes\": ["
    " {\"storage\": [\"T0\", \"W0\", \"T1\", \"W1\", \"T2\"], \"level\": \"MainMemory\"},"
    " {\"sequential\": ["
    "  [{\"storage\": [\"T0\", \"W0\", \"T1\"], \"level\": \"GlobalBuffer\"},"
    "   {\"temporal\": \"m\", \"tile\": 1}, {\"temporal\": \"n0\", \"tile\": 1},"
    "   {\"temporal\": \"n1\", \"tile\": 1}, {\"compute\": \"Matmul0\", \"level\": \"MAC\"}],"
    "  [{\"storage\": [\"T1\", \"W1\", \"T2\"], \"level\": \"GlobalBuffer\"},"
    "   {\"temporal\": \"m\", \"tile\": 1}, {\"temporal\": \"n1\", \"tile\": 1},"
    "   {\"temporal\": \"n2\", \"tile\": 1}, {\"compute\": \"Matmul1\", \"level\": \"MAC\"}]"
    " ]}]}");
  g_autoptr(FfmCostReport) r = evaluate (w, a, m);

  g_test_summary ("reference check: snowcat counts compulsory traffic");
  g_assert_cmpfloat (ffm_cost_report_get_energy (r), ==, 196608);
  g_assert_cmpfloat (ffm_cost_report_get_latency (r), ==, 0);
}

/* ---- accelforge's TestFanout: 4-way fanouts ----
 * With the 4 instances of X each computing a quarter of m, the MAC (1
 * operation/s) takes 64*64*64/4 = 65,536 s, wherever the fanout sits. */
static void
check_fanout_arch (const char *file, const char *spatial_level,
                   const char *dimension, gboolean above_glb)
{
  g_autofree char *arch_path = g_strdup_printf ("../arch-models/json/architectures/%s", file);
  g_autoptr(FfmArch) a = load_arch (arch_path);
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (1, 64, 64);
  g_autofree char *spatial = g_strdup_printf (
    " {\"spatial\": \"m\", \"tile\": 16, \"level\": \"%s\", \"dimension\": \"%s\"},",
    spatial_level, dimension);
  g_autofree char *text = g_strdup_printf (
    "{\"ffm_mapping\": 1, \"nodes\": ["
    " {\"storage\": [\"T0\", \"W0\", \"T1\"], \"level\": \"MainMemory\"},"
    " %s"
    " {\"storage\": [\"T0\", \"W0\", \"T1\"], \"level\": \"GlobalBuffer\"},"
    " %s"
    " {\"temporal\": \"m\", \"tile\": 1}, {\"temporal\": \"n0\", \"tile\": 1},"
    " {\"temporal\": \"n1\", \"tile\": 1}, {\"compute\": \"Matmul0\", \"level\": \"MAC\"}]}",
    above_glb ? spatial : "", above_glb ? "" : spatial);
  g_autoptr(FfmMapping) m = load_mapping_text (text);
  g_autoptr(FfmCostReport) r = evaluate (w, a, m);

  g_assert_true (ffm_cost_report_fits (r));
  g_assert_cmpfloat (ffm_cost_report_get_latency (r), ==, 65536);
}

static void
test_fanout_variations (void)
{
  g_test_summary ("accelforge's TestFanout: fanout variations give 65,536 s");
  check_fanout_arch ("fanout-at-glb.json", "X", "X", TRUE);
  check_fanout_arch ("fanout-at-glb-with-fanout-node.json", "GlobalBuffer", "X", TRUE);
  check_fanout_arch ("fanout-at-mac.json", "MAC", "X", FALSE);
  check_fanout_arch ("fanout-at-mac-with-fanout-node.json", "MAC", "X", FALSE);
  check_fanout_arch ("fanout-at-mac-with-constraints.json", "MACArray", "X", FALSE);
}

/* ---- Hand-derived: a spatial level with multicast and with reduction ----
 * Architecture: MainMemory -> GlobalBuffer -> fanout F (X: 4, may reuse
 * everything) -> MAC (1 J/op, 1 op/s), 1 J per bit everywhere, 8 bits.
 * Workload Z[m,n] = A[m,k] * B[k,n] with m = 2, k = 4, n = 2: 16 operations.
 * Mapping 1, reduction: MainMemory [A,B,Z]; GLB [A,B,Z]; spatial k tile 1
 * on X (4 instances); for m; for n; MAC. Steps: 2*2 = 4.
 *   A (8 values), B (8): k indexes both, so each instance gets its own
 *     operands: GLB reads 16 each (one per operation); fills 8 each.
 *   Z (4 values): k does not index Z and X may reuse Z: the 4 instances'
 *     partial sums are reduced on the way up: GLB updates 16/4 = 4 (one per
 *     output value); each instance's first read of its partial sum is
 *     skipped, so GLB reads (16 - 16)/4 = 0; GLB fills/drains of Z: 0 / 4
 *     (tile whole, initial zeros skipped); MainMemory Z updates 4.
 *   Per GLB instance (there is one): reads of A 16, B 16; latency is 0.
 * Mapping 2, multicast: spatial n tile 1 on X (2 instances), then for m,
 * for k. n does not index A: one GLB read serves both instances:
 *   GLB A reads 16/2 = 8; B reads 16 (n indexes B); Z: n indexes Z, no
 *   reduction: updates 16, reads 16 - 4 = 12. Steps 2*4 = 8. */
static const char *spatial_arch =
  "{ \"ffm_architecture\": 1, \"name\": \"spatial\", \"levels\": ["
  "  { \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 1,"
  "    \"write_energy\": 1, \"keep\": \"all\" },"
  "  { \"memory\": \"GlobalBuffer\", \"size\": \"inf\", \"read_energy\": 1,"
  "    \"write_energy\": 1 },"
  "  { \"fanout\": \"F\", \"dims\": [ { \"name\": \"X\", \"count\": 4 } ] },"
  "  { \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1 } ] }";

static const char *spatial_workload =
  "{ \"ffm_workload\": 1, \"name\": \"mm\", \"ranks\": { \"M\": 2, \"K\": 4, \"N\": 2 },"
  "  \"bits_per_value\": { \"all\": 8 },"
  "  \"einsums\": [ \"Z[m,n] = A[m,k] * B[k,n]\" ] }";

static FfmCostReport *
evaluate_spatial (FfmWorkload *w, FfmArch *a, const char *var, int tile,
                  const char *t1, const char *t2)
{
  g_autofree char *text = g_strdup_printf (
    "{\"ffm_mapping\": 1, \"nodes\": ["
    " {\"storage\": [\"A\", \"B\", \"Z\"], \"level\": \"MainMemory\"},"
    " {\"storage\": [\"A\", \"B\", \"Z\"], \"level\": \"GlobalBuffer\"},"
    " {\"spatial\": \"%s\", \"tile\": %d, \"level\": \"F\", \"dimension\": \"X\"},"
    " {\"temporal\": \"%s\", \"tile\": 1}, {\"temporal\": \"%s\", \"tile\": 1},"
    " {\"compute\": \"Z\", \"level\": \"MAC\"}]}", var, tile, t1, t2);
  g_autoptr(FfmMapping) m = load_mapping_text (text);
  return evaluate (w, a, m);
}

static void
test_spatial_multicast_reduction (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmArch) a = inputs_arch_from_text (spatial_arch);
  g_autoptr(FfmWorkload) w = ffm_workload_load_from_data (spatial_workload, "mm",
                                                          NULL, &error);
  g_autoptr(FfmCostReport) r1 = NULL, r2 = NULL;
  const FfmPmappingModel *model;
  const FfmPmappingCost *c;

  g_test_summary ("A spatial level: reduction of outputs and multicast of "
                  "inputs, by hand");
  g_assert_no_error (error);
  r1 = evaluate_spatial (w, a, "k", 1, "m", "n");
  model = ffm_cost_report_get_model (r1, 0);
  c = ffm_cost_report_get_cost (r1, 0);
  g_assert_cmpuint (c->operations, ==, 16);
  g_assert_cmpuint (c->steps, ==, 4);
  assert_counts (counts_of (model, c, a, w, "GlobalBuffer", "A"), 16, 8, 0, 0);
  assert_counts (counts_of (model, c, a, w, "GlobalBuffer", "B"), 16, 8, 0, 0);
  assert_counts (counts_of (model, c, a, w, "GlobalBuffer", "Z"), 0, 0, 4, 4);
  assert_counts (counts_of (model, c, a, w, "MainMemory", "Z"), 0, 0, 0, 4);
  g_assert_cmpuint (c->fanout_used[0], ==, 4);

  r2 = evaluate_spatial (w, a, "n", 1, "m", "k");
  model = ffm_cost_report_get_model (r2, 0);
  c = ffm_cost_report_get_cost (r2, 0);
  g_assert_cmpuint (c->steps, ==, 8);
  assert_counts (counts_of (model, c, a, w, "GlobalBuffer", "A"), 8, 8, 0, 0);
  assert_counts (counts_of (model, c, a, w, "GlobalBuffer", "B"), 16, 8, 0, 0);
  assert_counts (counts_of (model, c, a, w, "GlobalBuffer", "Z"), 12, 0, 4, 16);
  g_assert_cmpuint (c->fanout_used[0], ==, 2);
}

/* ---- Copy Einsums (as in the reference implementation, accelforge) ----
 * I[m,d] = I_in[m,d] (copy, 4x8 = 32 values of 16 bits), then
 * O[m,e] = I[m,d] * W[d,e]. With I_in in MainMemory and I backed in the
 * GlobalBuffer, the copy reads MainMemory 32 values and writes the GLB 32
 * values, charged to I_in: 512 bits each; no operations. With both in
 * MainMemory the copy is free. */
static const char *copy_workload =
  "{ \"ffm_workload\": 1, \"name\": \"copy\", \"ranks\": { \"M\": 4, \"D\": 8, \"E\": 2 },"
  "  \"bits_per_value\": { \"all\": 16 },"
  "  \"einsums\": [ { \"einsum\": \"I[m,d] = I_in[m,d]\", \"copy\": true },"
  "                 \"O[m,e] = I[m,d] * W[d,e]\" ] }";

static void
test_copy (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmArch) a = load_arch ("../arch-models/json/architectures/simple.json");
  g_autoptr(FfmWorkload) w = ffm_workload_load_from_data (copy_workload, "copy",
                                                          NULL, &error);
  g_autoptr(FfmMapping) on_chip = NULL, off_chip = NULL;
  g_autoptr(FfmCostReport) r1 = NULL, r2 = NULL;
  const FfmPmappingModel *model;
  const FfmPmappingCost *c;
#define COPY_FMT \
    "{\"ffm_mapping\": 1, \"nodes\": [" \
    " {\"storage\": [\"I_in\", \"W\", \"O\"%s], \"level\": \"MainMemory\"}," \
    " %s" \
    " {\"sequential\": [" \
    "  [{\"temporal\": \"m\", \"tile\": 1}, {\"temporal\": \"d\", \"tile\": 1}," \
    "   {\"compute\": \"I\", \"level\": \"MAC\"}]," \
    "  [{\"temporal\": \"m\", \"tile\": 1}, {\"temporal\": \"d\", \"tile\": 1}," \
    "   {\"temporal\": \"e\", \"tile\": 1}, {\"compute\": \"O\", \"level\": \"MAC\"}]" \
    " ]}]}"
  g_autofree char *t1 = g_strdup_printf (COPY_FMT, "", "{\"storage\": [\"I\"], \"level\": \"GlobalBuffer\"},");
  g_autofree char *t2 = g_strdup_printf (COPY_FMT, ", \"I\"", "");

  g_test_summary ("Copy Einsums move data and do no operations");
  g_assert_no_error (error);
  on_chip = load_mapping_text (t1);
  off_chip = load_mapping_text (t2);
  r1 = evaluate (w, a, on_chip);
  model = ffm_cost_report_get_model (r1, 0);
  c = ffm_cost_report_get_cost (r1, 0);
  g_assert_cmpuint (c->operations, ==, 0);
  assert_counts (counts_of (model, c, a, w, "MainMemory", "I_in"), 32, 0, 0, 0);
  assert_counts (counts_of (model, c, a, w, "GlobalBuffer", "I_in"), 0, 32, 0, 0);
  g_assert_cmpfloat (c->energy, ==, 1024);
  g_assert_cmpfloat (c->latency, ==, 0);

  r2 = evaluate (w, a, off_chip);
  c = ffm_cost_report_get_cost (r2, 0);
  g_assert_cmpfloat (c->energy, ==, 0);
  g_assert_cmpfloat (c->latency, ==, 0);
}

/* ---- Bad mappings: clear errors naming the file and the node ---- */

static void
check_bad (const char *mapping_file, FfmWorkload *w, FfmArch *a,
           const char *node_path, const char *fragment)
{
  g_autoptr(FfmMapping) m = load_mapping (mapping_file);
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmCostReport) r = ffm_cost_evaluate_mapping (w, a, m, &error);

  g_assert_null (r);
  g_assert_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID);
  if (g_test_verbose ())
    g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, mapping_file));
  g_assert_nonnull (strstr (error->message, node_path));
  g_assert_nonnull (strstr (error->message, fragment));
}

static void
test_bad_mappings (void)
{
  g_autoptr(FfmArch) simple = load_arch ("../arch-models/json/architectures/simple.json");
  g_autoptr(FfmArch) tpu = load_arch ("data/cost/tpu-like.json");
  g_autoptr(FfmWorkload) w1 = inputs_load_matmuls (1, 64, 32);
  g_autoptr(FfmWorkload) w2 = inputs_load_matmuls (2, 8, 4);
  const char *chain_params[] = { NULL };
  g_autoptr(FfmWorkload) chain = load_workload ("data/cost/reduce-chain.json",
                                                chain_params);

  g_test_summary ("accelforge's test_model: bad mappings give errors naming the "
                  "file and the node");
  check_bad ("bad-no-m-loop.json", w1, simple, ":7: $.nodes[3]",
             "rank variable m of Einsum Matmul0 (bound 64) is never looped "
             "down to tile 1");
  check_bad ("bad-unknown-variable.json", w1, simple, ":6: $.nodes[2]",
             "loop over k, a rank variable Einsum Matmul0 does not have");
  check_bad ("bad-may-not-keep.json", w2, tpu, ":7: $.nodes[3]",
             "memory LocalBuffer may not keep tensor W0 for Einsum Matmul0");
  check_bad ("bad-branch-order.json", w2, simple,
             "$.nodes[3].sequential[0][3]",
             "Matmul1 reads T1 before Matmul0, which writes it, runs");
  check_bad ("bad-partial-tile.json", chain, simple, ":7: $.nodes[1]",
             "breaks a data dependency");
}

/* ---- Reservations and lifetimes ----
 * The reference implementation's rule on the unfused simple mapping (m 64, kn 32): the GLB
 * node [T0, W0, T1] is three consecutive nodes; T0's reservation is stopped
 * by W0's node and W0's by T1's, so T0 and W0 occupy whole tensors (2048
 * and 1024 values); T1's sinks through m (relevant) and stops above n0:
 * one row, 32 values. GLB occupancy 8 * (2048 + 1024 + 32) = 24,832 bits.
 * Lifetime depths: MainMemory and GLB T0, W0 reserve at depth 0; T1 in the
 * GLB at depth 1. */
static void
test_reservations (void)
{
  g_autoptr(FfmArch) a = load_arch ("../arch-models/json/architectures/simple.json");
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (1, 64, 32);
  g_autoptr(FfmMapping) m = load_mapping ("unfused-matmul-simple.json");
  g_autoptr(FfmPmappingModel) model = compile_path (w, a, m);
  g_autoptr(FfmPmappingCost) cost = ffm_pmapping_cost_new (model);
  int glb = level_index (a, "GlobalBuffer");
  int t0 = find_buffet (model, a, w, "GlobalBuffer", "T0");
  int w0 = find_buffet (model, a, w, "GlobalBuffer", "W0");
  int t1 = find_buffet (model, a, w, "GlobalBuffer", "T1");

  g_test_summary ("As in the reference implementation: reservation placement and lifetimes");
  ffm_pmapping_model_evaluate (model, NULL, cost);
  g_assert_cmpfloat (cost->buffet_occupancy[t0], ==, 2048 * 8);
  g_assert_cmpfloat (cost->buffet_occupancy[w0], ==, 1024 * 8);
  g_assert_cmpfloat (cost->buffet_occupancy[t1], ==, 32 * 8);
  g_assert_cmpfloat (cost->level_occupancy[glb], ==, 24832);
  g_assert_cmpint (ffm_pmapping_model_get_buffet (model, t0)->n_loops_above, ==, 0);
  g_assert_cmpint (ffm_pmapping_model_get_buffet (model, t1)->n_loops_above, ==, 1);
  g_assert_false (ffm_pmapping_model_get_buffet (model, t1)->backing);

  /* A persistent node lives for the whole workload: depth -1, whole tile
   * (W0 in MainMemory: 32x32 values of 8 bits). */
  {
    g_autoptr(FfmMapping) pm = load_mapping_text (
      "{\"ffm_mapping\": 1, \"nodes\": ["
      " {\"storage\": [\"W0\"], \"level\": \"MainMemory\", \"persistent\": true},"
      " {\"storage\": [\"T0\", \"T1\"], \"level\": \"MainMemory\"},"
      " {\"temporal\": \"m\", \"tile\": 1}, {\"temporal\": \"n0\", \"tile\": 1},"
      " {\"temporal\": \"n1\", \"tile\": 1}, {\"compute\": \"Matmul0\", \"level\": \"MAC\"}]}");
    g_autoptr(FfmPmappingModel) pmodel = compile_path (w, a, pm);
    g_autoptr(FfmPmappingCost) pcost = ffm_pmapping_cost_new (pmodel);
    int pw = find_buffet (pmodel, a, w, "MainMemory", "W0");
    ffm_pmapping_model_evaluate (pmodel, NULL, pcost);
    g_assert_true (ffm_pmapping_model_get_buffet (pmodel, pw)->persistent);
    g_assert_cmpint (ffm_pmapping_model_get_buffet (pmodel, pw)->n_loops_above, ==, -1);
    g_assert_cmpfloat (pcost->buffet_occupancy[pw], ==, 32 * 32 * 8);
  }
}

/* ---- Evaluating again with other tiles ----
 * The same compiled model with m tiled 64 -> 8 -> 1 above the GLB: the
 * tiles array is all that changes. Bad tiles are a status, not a crash. */
static void
test_retile (void)
{
  g_autoptr(FfmArch) a = load_arch ("../arch-models/json/architectures/simple.json");
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (1, 64, 32);
  g_autoptr(FfmMapping) m = load_mapping ("unfused-matmul-simple.json");
  g_autoptr(FfmPmappingModel) model = compile_path (w, a, m);
  g_autoptr(FfmPmappingCost) cost = ffm_pmapping_cost_new (model);
  guint64 tiles[3] = { 1, 1, 1 };
  guint64 bad[3] = { 65, 1, 1 };
  guint64 zero[3] = { 0, 1, 1 };
  guint64 remainder[3] = { 3, 1, 1 };

  g_test_summary ("A compiled model evaluates other tiles without recompiling");
  ffm_pmapping_model_evaluate (model, tiles, cost);
  g_assert_cmpint (cost->status, ==, FFM_COST_VALID);
  g_assert_cmpuint (cost->operations, ==, 65536);
  ffm_pmapping_model_evaluate (model, bad, cost);
  g_assert_cmpint (cost->status, ==, FFM_COST_BAD_TILES);
  g_assert_cmpint (cost->bad_level, ==, 0);
  /* 64 rows in tiles of 3: 21 of 3 and a last one of 1 (22 blocks) */
  ffm_pmapping_model_evaluate (model, remainder, cost);
  g_assert_cmpint (cost->status, ==, FFM_COST_VALID);
  g_assert_cmpuint (cost->operations, ==, 22 * 32 * 32);
  ffm_pmapping_model_evaluate (model, zero, cost);
  g_assert_cmpint (cost->status, ==, FFM_COST_BAD_TILES);
  tiles[0] = 2;                 /* m in two iterations of 2... of 32 rows */
  ffm_pmapping_model_evaluate (model, tiles, cost);
  g_assert_cmpint (cost->status, ==, FFM_COST_VALID);
  g_assert_cmpuint (cost->operations, ==, 32768);
}

/* ---- Remainder tiles ----
 * docs/cost-model.md "Remainder tiles", by hand: matmuls(1, m 7, kn 3) on
 * simple, m tiled 3 above the GLB (blocks 3, 3, 1), n0 tiled 2 below it
 * (blocks 2, 1). T0[m,n0] reaches the GLB once per m block: 7 x 3 = 21
 * values (MainMemory reads 21); W0, which m does not index, once per m
 * iteration: 3 x 9 = 27. The MAC does 7 x 3 x 3 = 63 operations and reads
 * T1 63 times less its 7 x 3 = 21 initial zeros; the GLB's T1 tile is
 * only ever initial zeros (fills 0) and drains 21. Energy: MainMemory 8 x
 * (21 + 27 + 21) = 552 J, GLB 8 x (21 + 63 + 27 + 63 + 0 + 21 + 42 + 63)
 * = 2,400 J, MAC 63 J: 3,015 J in 63 s. Reservations hold the largest
 * tile: T0 in the GLB 3 x 3 values. */
static void
test_remainder_tiles (void)
{
  g_autoptr(FfmArch) a = load_arch ("../arch-models/json/architectures/simple.json");
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (1, 7, 3);
  g_autoptr(FfmMapping) m = load_mapping ("remainder-matmul-simple.json");
  g_autoptr(FfmCostReport) r = evaluate (w, a, m);
  const FfmPmappingModel *model = ffm_cost_report_get_model (r, 0);
  const FfmPmappingCost *cost = ffm_cost_report_get_cost (r, 0);
  int mm_t0 = find_buffet (model, a, w, "MainMemory", "T0");
  int glb_t0 = find_buffet (model, a, w, "GlobalBuffer", "T0");
  int glb_w0 = find_buffet (model, a, w, "GlobalBuffer", "W0");
  int glb_t1 = find_buffet (model, a, w, "GlobalBuffer", "T1");
  g_autofree char *table = ffm_cost_report_to_table (r);
  g_autofree char *json = ffm_cost_report_to_json (r);

  g_test_summary ("Remainder tiles are counted exactly (hand-derived counts) "
                  "and reported; a wrong written remainder and an Einsum the "
                  "model cannot count remainders for are errors");
  g_assert_true (ffm_pmapping_model_counts_remainders (model));
  g_assert_cmpfloat (ffm_cost_report_get_energy (r), ==, 3015);
  g_assert_cmpfloat (ffm_cost_report_get_latency (r), ==, 63);
  g_assert_cmpuint (cost->operations, ==, 63);
  g_assert_cmpuint (cost->counts[mm_t0].reads, ==, 21);
  g_assert_cmpuint (cost->counts[glb_t0].fills, ==, 21);
  g_assert_cmpuint (cost->counts[glb_w0].fills, ==, 27);
  g_assert_cmpuint (cost->counts[glb_t1].reads, ==, 42);
  g_assert_cmpuint (cost->counts[glb_t1].fills, ==, 0);
  g_assert_cmpuint (cost->counts[glb_t1].drains, ==, 21);
  g_assert_cmpfloat (cost->buffet_occupancy[glb_t0], ==, 3 * 3 * 8);
  g_assert_nonnull (strstr (table, "remainder tile"));
  g_assert_nonnull (strstr (table, "for n0     2           2          1"));
  g_assert_nonnull (strstr (json, "\"remainder\": 1"));

  check_bad ("bad-remainder.json", w, a, ":5: $.nodes[1]",
             "remainder 2 of the loop over m does not match its tiles: 7 mod "
             "3 is 1");
  {
    /* D[m] = A[M:m, N:m]: m appears twice in A's indices */
    g_autoptr(FfmWorkload) diag = inputs_workload_from_text (
      "{\"ffm_workload\": 1, \"name\": \"diag\", \"ranks\": {\"M\": 5, \"N\": 5},"
      " \"bits_per_value\": {\"all\": 8}, \"einsums\": [\"D[m] = A[M:m,N:m]\"]}");
    g_autoptr(FfmMapping) dm = load_mapping_text (
      "{\"ffm_mapping\": 1, \"nodes\": ["
      " {\"storage\": [\"A\", \"D\"], \"level\": \"MainMemory\"},"
      " {\"temporal\": \"m\", \"tile\": 2}, {\"temporal\": \"m\", \"tile\": 1},"
      " {\"compute\": \"D\", \"level\": \"MAC\"}]}");
    g_autoptr(GError) error = NULL;
    g_autoptr(FfmCostReport) dr = ffm_cost_evaluate_mapping (diag, a, dm, &error);
    g_assert_null (dr);
    g_assert_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "tile 2 of the loop over m does "
                              "not divide its enclosing tile 5, and Einsum D "
                              "cannot have remainder tiles: a rank variable "
                              "appears twice in the indices of one tensor"));
  }
}

/* ---- Reports as text and JSON ---- */
static void
test_report_output (void)
{
  g_autoptr(FfmArch) a = load_arch ("../arch-models/json/architectures/simple.json");
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 8, 4);
  g_autoptr(FfmMapping) m = load_mapping ("fused-matmuls-simple.json");
  g_autoptr(FfmCostReport) r = evaluate (w, a, m);
  g_autofree char *table = ffm_cost_report_to_table (r);
  g_autofree char *json = ffm_cost_report_to_json (r);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root, *e0;
  JsonArray *per_einsum;

  g_test_summary ("The report prints as a table and as JSON with the "
                  "required members");
  g_assert_nonnull (strstr (table, "Matmul0"));
  g_assert_nonnull (strstr (table, "GlobalBuffer"));
  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpfloat (json_object_get_double_member (root, "energy_j"), ==, 13056);
  g_assert_cmpfloat (json_object_get_double_member (root, "latency_s"), ==, 256);
  g_assert_cmpfloat (json_object_get_double_member (root, "edp_js"), ==, 13056.0 * 256);
  per_einsum = json_object_get_array_member (root, "per_einsum");
  g_assert_cmpuint (json_array_get_length (per_einsum), ==, 2);
  e0 = json_array_get_object_element (per_einsum, 0);
  g_assert_cmpstr (json_object_get_string_member (e0, "name"), ==, "Matmul0");
  g_assert_cmpfloat (json_object_get_double_member (e0, "energy_j"), ==, 6528);
  g_assert_cmpfloat (json_object_get_double_member (e0, "latency_s"), ==, 128);
}

/* ---- ffm eval ----
 * The command on the fused example: the table and the JSON file. */
static void
test_eval_command (void)
{
  const char *exe = g_getenv ("FFM_EXE");
  g_autofree char *arch = g_test_build_filename (G_TEST_DIST, "..", "arch-models",
                                                 "json", "architectures",
                                                 "simple.json", NULL);
  g_autofree char *workload = g_test_build_filename (G_TEST_DIST, "..", "workloads",
                                                     "matmuls.json", NULL);
  g_autofree char *mapping = g_test_build_filename (G_TEST_DIST, "data", "cost",
                                                    "fused-matmuls-simple.json", NULL);
  g_autofree char *bad = g_test_build_filename (G_TEST_DIST, "data", "cost",
                                                "bad-branch-order.json", NULL);
  g_autofree char *dir = g_dir_make_tmp ("ffm-eval-XXXXXX", NULL);
  g_autofree char *json_path = g_build_filename (dir, "eval.json", NULL);
  g_autofree char *out = NULL, *err = NULL, *json = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  g_test_summary ("ffm eval prints the table and writes the JSON report");
  if (exe == NULL)
    {
      g_test_skip ("FFM_EXE is not set (run through meson test)");
      return;
    }
  {
    const char *argv[] = { exe, "eval", "--arch", arch, "--workload", workload,
                           "--param", "m=8", "--param", "kn=4",
                           "--mapping", mapping, "--json", json_path, NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL,
                                 NULL, &out, &err, &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (out, "Energy   13.06 kJ"));
    g_assert_nonnull (strstr (out, "Matmul1"));
    g_assert_true (g_file_get_contents (json_path, &json, NULL, &error));
    g_assert_nonnull (strstr (json, "\"edp_js\": 3342336"));
    g_assert_nonnull (strstr (json, "\"per_einsum\""));
    g_assert_cmpint (g_remove (json_path), ==, 0);
    g_assert_cmpint (g_rmdir (dir), ==, 0);
  }
  {
    /* remainder tiles: the table lists them, the JSON has each loop's */
    g_autofree char *remainder = g_test_build_filename (G_TEST_DIST, "data", "cost",
                                                        "remainder-matmul-simple.json",
                                                        NULL);
    const char *argv[] = { exe, "eval", "--arch", arch, "--workload", workload,
                           "--param", "n_einsums=1", "--param", "m=7",
                           "--param", "kn=3", "--mapping", remainder,
                           "--json", "-", NULL };
    g_autofree char *out3 = NULL, *err3 = NULL;
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL,
                                 NULL, &out3, &err3, &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (out3, "\"energy_j\": 3015"));
    g_assert_nonnull (strstr (out3, "\"rank_var\": \"n0\",\n"));
    g_assert_nonnull (strstr (out3, "\"remainder\": 1"));
  }
  {
    const char *argv[] = { exe, "eval", "--arch", arch, "--workload", workload,
                           "--mapping", bad, NULL };
    g_autofree char *out2 = NULL, *err2 = NULL;
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL,
                                 NULL, &out2, &err2, &status, &error));
    g_assert_false (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (err2, "bad-branch-order.json:12: $.nodes[3].sequential[0][3]"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cost/simple/unfused", test_unfused_simple);
  g_test_add_func ("/cost/simple/matmuls-from-main-memory", test_matmuls_from_main_memory);
  g_test_add_func ("/cost/simple/per-action-energies", test_per_action_energies);
  g_test_add_func ("/cost/simple/fused", test_fused_simple);
  g_test_add_func ("/cost/simple/fused-renamed-rank-var", test_fused_renamed_rank_var);
  g_test_add_func ("/cost/simple/does-not-fit", test_does_not_fit);
  g_test_add_func ("/cost/simple/split-lifetimes", test_split_lifetimes);
  g_test_add_func ("/cost/tpu/matmul", test_tpu_matmul);
  g_test_add_func ("/cost/eyeriss/input-scratchpad-latency", test_eyeriss_latency);
  g_test_add_func ("/cost/snowcat/compulsory", test_snowcat);
  g_test_add_func ("/cost/fanout-variations", test_fanout_variations);
  g_test_add_func ("/cost/spatial/multicast-reduction", test_spatial_multicast_reduction);
  g_test_add_func ("/cost/copy", test_copy);
  g_test_add_func ("/cost/bad-mappings", test_bad_mappings);
  g_test_add_func ("/cost/reservations", test_reservations);
  g_test_add_func ("/cost/retile", test_retile);
  g_test_add_func ("/cost/remainder-tiles", test_remainder_tiles);
  g_test_add_func ("/cost/report-output", test_report_output);
  g_test_add_func ("/cost/eval-command", test_eval_command);
  return g_test_run ();
}
