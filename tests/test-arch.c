/* test-arch.c: the architecture model (ffm-arch.h), its JSON loader and
 * writer, and the JSON architectures shipped with the json model.
 *
 * - the C construction API: instance counts, compute paths, finish errors;
 * - invalid files, table-driven: tests/data/arch/invalid/NAME.json with the
 *   expected error code and message substrings (file:line, JSON path, cause);
 * - valid files: every field checked, and a round trip through
 *   ffm_arch_to_json() that must give back an equal architecture;
 * - shipped architectures: load with defaults (numbers checked against the
 *   reference), with every parameter changed, and with bad parameters;
 * - set-expression evaluation against workloads (keep, enabled, reuse,
 *   spatial variables, bits per value, per-Einsum sizes). */
#include <ffm/ffm.h>
#include "inputs.h"
#include <json-glib/json-glib.h>

#include <math.h>
#include <string.h>

/* The architecture zoo: published accelerators written from their papers,
 * configurations and Timeloop's example designs (docs/architectures.md,
 * "The architecture zoo"), not from the reference implementation. */
static const char *const zoo_names[] = {
  "eyeriss-v1", "eyeriss-v2", "gemmini", "maeri-like", "nvdla-large",
  "nvdla-small", "shidiannao", "systolic-os", "systolic-ws",
  "timeloop-eyeriss-like", "timeloop-simba-like", "timeloop-simple-os",
  "timeloop-simple-ws", "tpu-v1", NULL
};

static char *
shipped_path (const char *name)
{
  g_autofree char *file = g_strconcat (name, ".json", NULL);

  return g_test_build_filename (G_TEST_DIST, "..", "arch-models", "json",
                                "architectures", file, NULL);
}

static char *
data_path (const char *kind, const char *file)
{
  return g_test_build_filename (G_TEST_DIST, "data", "arch", kind, file, NULL);
}

static FfmArch *
load_shipped (const char *name, const FfmParamValues *params)
{
  g_autofree char *path = shipped_path (name);
  g_autoptr (GError) error = NULL;
  FfmArch *arch = ffm_arch_load_file (path, params, &error);

  g_assert_no_error (error);
  g_assert_nonnull (arch);
  return arch;
}

static const FfmLevel *
level_named (const FfmArch *arch, const char *name)
{
  int index = ffm_arch_find_level (arch, name);

  g_assert_cmpint (index, >=, 0);
  return ffm_arch_get_level (arch, (guint) index);
}

/* ---- Equality, for round trips ---- */

static void
assert_same_number (double a, double b)
{
  if (isnan (a))
    g_assert_true (isnan (b));
  else
    g_assert_cmpfloat (a, ==, b);
}

static void
assert_memory_equal (const FfmMemorySpec *a, const FfmMemorySpec *b)
{
  assert_same_number (a->size, b->size);
  g_assert_cmpstr (a->size_per_einsum, ==, b->size_per_einsum);
  assert_same_number (a->read_energy, b->read_energy);
  assert_same_number (a->write_energy, b->write_energy);
  assert_same_number (a->read_bandwidth, b->read_bandwidth);
  assert_same_number (a->write_bandwidth, b->write_bandwidth);
  g_assert_cmpint (a->ports, ==, b->ports);
  assert_same_number (a->bits_per_action, b->bits_per_action);
  g_assert_cmpint (a->skip_initial_output_write, ==, b->skip_initial_output_write);
  g_assert_cmpstr (a->keep, ==, b->keep);
  g_assert_cmpstr (a->may_keep, ==, b->may_keep);
  assert_same_number (a->fill_energy, b->fill_energy);
  assert_same_number (a->update_energy, b->update_energy);
  assert_same_number (a->drain_energy, b->drain_energy);
  g_assert_cmpint (a->drains_read, ==, b->drains_read);
  g_assert_cmpuint (a->energy_overrides ? a->energy_overrides->len : 0, ==,
                    b->energy_overrides ? b->energy_overrides->len : 0);
  for (guint i = 0; a->energy_overrides && i < a->energy_overrides->len; i++)
    {
      const FfmEnergyOverride *x = &g_array_index (a->energy_overrides,
                                                   FfmEnergyOverride, i);
      const FfmEnergyOverride *y = &g_array_index (b->energy_overrides,
                                                   FfmEnergyOverride, i);
      g_assert_cmpstr (x->tensors, ==, y->tensors);
      assert_same_number (x->energies.read, y->energies.read);
      assert_same_number (x->energies.fill, y->energies.fill);
      assert_same_number (x->energies.update, y->energies.update);
      assert_same_number (x->energies.drain, y->energies.drain);
    }
  g_assert_cmpuint (a->bits_overrides ? a->bits_overrides->len : 0, ==,
                    b->bits_overrides ? b->bits_overrides->len : 0);
  for (guint i = 0; a->bits_overrides && i < a->bits_overrides->len; i++)
    {
      const FfmBitsOverride *x = &g_array_index (a->bits_overrides, FfmBitsOverride, i);
      const FfmBitsOverride *y = &g_array_index (b->bits_overrides, FfmBitsOverride, i);
      g_assert_cmpstr (x->tensors, ==, y->tensors);
      g_assert_cmpstr (x->bits_text, ==, y->bits_text);
      assert_same_number (x->bits, y->bits);
    }
}

static void
assert_level_equal (const FfmLevel *a, const FfmLevel *b)
{
  g_assert_cmpint (a->kind, ==, b->kind);
  g_assert_cmpstr (a->name, ==, b->name);
  g_assert_cmpstr (a->description, ==, b->description);
  assert_same_number (a->leak_power, b->leak_power);
  assert_same_number (a->area, b->area);
  switch (a->kind)
    {
    case FFM_LEVEL_MEMORY:
      assert_memory_equal (&a->u.memory, &b->u.memory);
      break;
    case FFM_LEVEL_FANOUT:
      g_assert_cmpuint (a->u.fanout.n_dims, ==, b->u.fanout.n_dims);
      for (guint d = 0; d < a->u.fanout.n_dims; d++)
        {
          const FfmFanoutDim *x = &a->u.fanout.dims[d], *y = &b->u.fanout.dims[d];
          g_assert_cmpstr (x->name, ==, y->name);
          g_assert_cmpuint (x->count, ==, y->count);
          g_assert_cmpstr (x->reuse, ==, y->reuse);
          g_assert_cmpstr (x->may_reuse, ==, y->may_reuse);
          assert_same_number (x->min_usage, y->min_usage);
          g_assert_cmpstr (x->allowed_rank_vars, ==, y->allowed_rank_vars);
        }
      break;
    case FFM_LEVEL_COMPUTE:
      assert_same_number (a->u.compute.energy, b->u.compute.energy);
      assert_same_number (a->u.compute.throughput, b->u.compute.throughput);
      g_assert_cmpstr (a->u.compute.enabled, ==, b->u.compute.enabled);
      break;
    }
}

static void
assert_arch_equal (const FfmArch *a, const FfmArch *b)
{
  const char *const *names = ffm_arch_get_variable_names (a);

  g_assert_cmpstr (ffm_arch_get_name (a), ==, ffm_arch_get_name (b));
  g_assert_cmpstr (ffm_arch_get_description (a), ==, ffm_arch_get_description (b));
  g_assert_cmpstr (ffm_arch_get_source (a), ==, ffm_arch_get_source (b));
  g_assert_cmpuint (g_strv_length ((char **) names), ==,
                    g_strv_length ((char **) ffm_arch_get_variable_names (b)));
  for (guint i = 0; names[i] != NULL; i++)
    {
      double x = 0, y = 0;
      g_assert_true (ffm_arch_get_variable (a, names[i], &x));
      g_assert_true (ffm_arch_get_variable (b, names[i], &y));
      assert_same_number (x, y);
    }
  g_assert_cmpuint (ffm_arch_get_n_levels (a), ==, ffm_arch_get_n_levels (b));
  for (guint i = 0; i < ffm_arch_get_n_levels (a); i++)
    {
      assert_level_equal (ffm_arch_get_level (a, i), ffm_arch_get_level (b, i));
      g_assert_cmpuint (ffm_arch_get_instances_above (a, i), ==,
                        ffm_arch_get_instances_above (b, i));
    }
}

/* Loads what ffm_arch_to_json() wrote and checks it is the same; writing
 * the copy again must give the same text. */
static void
assert_round_trip (const FfmArch *arch)
{
  g_autofree char *text = ffm_arch_to_json (arch);
  g_autofree char *again = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) copy = ffm_arch_load_from_data (text, "round-trip.json",
                                                      NULL, &error);

  g_assert_no_error (error);
  assert_arch_equal (arch, copy);
  again = ffm_arch_to_json (copy);
  g_assert_cmpstr (text, ==, again);
}

/* ---- The C construction API ---- */

/* TPUv4i's structure (as in the reference implementation, accelforge) built in C, leak added to check the
 * instance counts. */
static FfmArch *
build_tpu_like (void)
{
  FfmArch *arch = ffm_arch_new ("tpu-like");
  FfmLevel *level;
  FfmFanoutDim *dim;

  level = ffm_arch_add_memory (arch, "MainMemory");
  level->u.memory.size = INFINITY;
  level->u.memory.read_energy = 7.03e-12;
  level->u.memory.write_energy = 7.03e-12;
  level->u.memory.keep = g_strdup ("~Intermediates");
  level->u.memory.may_keep = g_strdup ("All");
  level = ffm_arch_add_memory (arch, "GlobalBuffer");
  level->u.memory.size = 1024.0 * 1024 * 128 * 8;
  level->u.memory.ports = FFM_PORTS_SEPARATE;
  level->u.memory.keep = g_strdup ("~MainMemory");
  level->u.memory.may_keep = g_strdup ("all");
  level = ffm_arch_add_fanout (arch, "Cores");
  dim = ffm_level_add_fanout_dim (level, "Z", 4);
  dim->may_reuse = g_strdup ("nothing");
  dim->min_usage = 1;
  level = ffm_arch_add_memory (arch, "LocalBuffer");
  level->u.memory.size = 1024.0 * 1024 * 4 * 8;
  level->u.memory.keep = g_strdup ("input | output");
  level->leak_power = 1e-3;
  ffm_level_add_bits_override (level, "output", 24);
  level = ffm_arch_add_compute (arch, "ScalarUnit");
  level->u.compute.throughput = 1.05e9 * 128;
  level->u.compute.enabled = g_strdup ("len(all) == 2");
  level = ffm_arch_add_fanout (arch, "ProcessingElement");
  dim = ffm_level_add_fanout_dim (level, "reuse_input", 128);
  dim->reuse = g_strdup ("input");
  dim->min_usage = 1;
  dim = ffm_level_add_fanout_dim (level, "reuse_output", 128);
  dim->reuse = g_strdup ("output");
  dim->min_usage = 1;
  level = ffm_arch_add_memory (arch, "Register");
  level->u.memory.size_per_einsum = g_strdup ("weight.bits_per_value");
  level->u.memory.keep = g_strdup ("weight");
  level = ffm_arch_add_compute (arch, "MAC");
  level->u.compute.energy = 0.084e-12;
  level->u.compute.throughput = 1.05e9;
  level->u.compute.enabled = g_strdup ("len(all) == 3");
  return arch;
}

static void
test_c_api_build (void)
{
  g_autoptr (FfmArch) arch = build_tpu_like ();
  g_autoptr (GError) error = NULL;
  g_autofree guint *scalar_path = NULL, *mac_path = NULL;
  guint n_scalar = 0, n_mac = 0;
  static const guint64 instances[] = { 1, 1, 1, 4, 4, 4, 65536, 65536 };
  static const guint expected_mac_path[] = { 0, 1, 2, 3, 5, 6, 7 };

  g_test_summary ("An architecture built with the C API finishes, counts "
                  "instances through every fanout above and gives each "
                  "compute unit its path");
  ffm_arch_set_description (arch, "built in C");
  ffm_arch_set_source (arch, "accelforge tpu_v4i.yaml");
  g_assert_true (ffm_arch_finish (arch, &error));
  g_assert_no_error (error);

  g_assert_cmpstr (ffm_arch_get_name (arch), ==, "tpu-like");
  g_assert_cmpstr (ffm_arch_get_description (arch), ==, "built in C");
  g_assert_cmpstr (ffm_arch_get_source (arch), ==, "accelforge tpu_v4i.yaml");
  g_assert_cmpuint (ffm_arch_get_n_levels (arch), ==, 8);
  g_assert_cmpint (ffm_arch_find_level (arch, "Register"), ==, 6);
  g_assert_cmpint (ffm_arch_find_level (arch, "Nope"), ==, -1);
  for (guint i = 0; i < 8; i++)
    g_assert_cmpuint (ffm_arch_get_instances_above (arch, i), ==, instances[i]);
  g_assert_cmpuint (ffm_arch_get_fanout_count (arch, 2), ==, 4);
  g_assert_cmpuint (ffm_arch_get_fanout_count (arch, 5), ==, 16384);
  g_assert_cmpuint (ffm_arch_get_fanout_count (arch, 0), ==, 1);

  scalar_path = ffm_arch_get_compute_path (arch, 4, &n_scalar);
  g_assert_cmpuint (n_scalar, ==, 5);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpuint (scalar_path[i], ==, i);
  mac_path = ffm_arch_get_compute_path (arch, 7, &n_mac);
  g_assert_cmpuint (n_mac, ==, G_N_ELEMENTS (expected_mac_path));
  for (guint i = 0; i < n_mac; i++)
    g_assert_cmpuint (mac_path[i], ==, expected_mac_path[i]);

  /* Defaults the constructors fill in. */
  g_assert_cmpfloat (level_named (arch, "GlobalBuffer")->u.memory.read_bandwidth, ==, INFINITY);
  g_assert_cmpfloat (level_named (arch, "GlobalBuffer")->u.memory.bits_per_action, ==, 1);
  g_assert_true (level_named (arch, "GlobalBuffer")->u.memory.skip_initial_output_write);
  g_assert_true (isnan (level_named (arch, "Register")->u.memory.size));
  g_assert_nonnull (level_named (arch, "Register")->u.memory.size_per_einsum_expr);
  g_assert_nonnull (level_named (arch, "LocalBuffer")->u.memory.keep_expr);
  g_assert_null (level_named (arch, "LocalBuffer")->u.memory.may_keep_expr);
  assert_round_trip (arch);
}

typedef struct {
  const char *name;
  void (*mutate) (FfmArch *arch);
  const char *message;          /* exact */
} FinishCase;

static FfmLevel *
mutable_level (FfmArch *arch, const char *name)
{
  return (FfmLevel *) ffm_arch_get_level (arch, (guint) ffm_arch_find_level (arch, name));
}

static void mutate_size (FfmArch *a) { mutable_level (a, "LocalBuffer")->u.memory.size = 0; }
static void mutate_no_size (FfmArch *a) { mutable_level (a, "LocalBuffer")->u.memory.size = NAN; }
static void mutate_energy (FfmArch *a) { mutable_level (a, "MainMemory")->u.memory.read_energy = -1; }
static void mutate_bandwidth (FfmArch *a) { mutable_level (a, "GlobalBuffer")->u.memory.write_bandwidth = 0; }
static void mutate_count (FfmArch *a) { mutable_level (a, "ProcessingElement")->u.fanout.dims[1].count = 0; }
static void mutate_min_usage (FfmArch *a) { mutable_level (a, "Cores")->u.fanout.dims[0].min_usage = 2; }
static void mutate_throughput (FfmArch *a) { mutable_level (a, "MAC")->u.compute.throughput = 0; }
static void mutate_leak (FfmArch *a) { mutable_level (a, "MAC")->leak_power = -1; }
static void mutate_name (FfmArch *a)
{
  FfmLevel *l = mutable_level (a, "Register");
  g_free (l->name);
  l->name = g_strdup ("LocalBuffer");
}
static void mutate_keep (FfmArch *a)
{
  FfmLevel *l = mutable_level (a, "GlobalBuffer");
  g_free (l->u.memory.keep);
  l->u.memory.keep = g_strdup ("~Register");
}
static void mutate_keep_syntax (FfmArch *a)
{
  FfmLevel *l = mutable_level (a, "GlobalBuffer");
  g_free (l->u.memory.keep);
  l->u.memory.keep = g_strdup ("input |");
}
static void mutate_enabled (FfmArch *a)
{
  FfmLevel *l = mutable_level (a, "MAC");
  g_free (l->u.compute.enabled);
  l->u.compute.enabled = g_strdup ("weight");
}
static void mutate_reserved (FfmArch *a)
{
  FfmLevel *l = mutable_level (a, "Register");
  g_free (l->name);
  l->name = g_strdup ("Intermediates");
}

static const FinishCase finish_cases[] = {
  { "size", mutate_size,
    "architecture tpu-like: memory LocalBuffer: size must be a number of bits > 0, got 0" },
  { "no-size", mutate_no_size,
    "architecture tpu-like: memory LocalBuffer: has no size (capacity in bits)" },
  { "energy", mutate_energy,
    "architecture tpu-like: memory MainMemory: read_energy must be a finite number >= 0, got -1" },
  { "bandwidth", mutate_bandwidth,
    "architecture tpu-like: memory GlobalBuffer: write_bandwidth must be a number > 0, got 0" },
  { "count", mutate_count,
    "architecture tpu-like: fanout ProcessingElement: dimension reuse_output: count must be at least 1, got 0" },
  { "min-usage", mutate_min_usage,
    "architecture tpu-like: fanout Cores: dimension Z: min_usage must be in [0, 1], got 2" },
  { "throughput", mutate_throughput,
    "architecture tpu-like: compute MAC: throughput must be a number > 0, got 0" },
  { "leak", mutate_leak,
    "architecture tpu-like: compute MAC: leak_power must be a finite number >= 0, got -1" },
  { "duplicate", mutate_name,
    "architecture tpu-like: memory LocalBuffer: another level (number 4) has the same name" },
  { "keep-below", mutate_keep,
    "architecture tpu-like: memory GlobalBuffer: keep refers to Register, which is not a memory above this one" },
  { "keep-syntax", mutate_keep_syntax, NULL },
  { "enabled-type", mutate_enabled, NULL },
  { "reserved", mutate_reserved,
    "architecture tpu-like: memory Intermediates: the name \"Intermediates\" is reserved for a tensor class in set expressions" },
};

static void
test_c_api_finish_errors (gconstpointer data)
{
  const FinishCase *c = data;
  g_autoptr (FfmArch) arch = build_tpu_like ();
  g_autoptr (GError) error = NULL;

  g_test_summary ("ffm_arch_finish() rejects a bad level, naming the "
                  "architecture, the level and the cause");
  c->mutate (arch);
  g_assert_false (ffm_arch_finish (arch, &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID);
  if (c->message != NULL)
    g_assert_cmpstr (error->message, ==, c->message);
  else
    g_assert_true (g_str_has_prefix (error->message, "architecture tpu-like: "));
  if (strcmp (c->name, "keep-syntax") == 0)
    g_assert_nonnull (strstr (error->message, "memory GlobalBuffer: keep: "));
  if (strcmp (c->name, "enabled-type") == 0)
    g_assert_nonnull (strstr (error->message, "compute MAC: enabled: "));
}

static void
test_c_api_structure_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) empty = ffm_arch_new ("e");
  g_autoptr (FfmArch) fanout_first = ffm_arch_new ("f");
  g_autoptr (FfmArch) tail = ffm_arch_new ("t");
  g_autoptr (FfmArch) no_compute = ffm_arch_new ("n");
  FfmLevel *level;

  g_test_summary ("Structural rules: levels exist, the first is a memory, "
                  "the last is a compute unit, a fanout has dimensions");
  g_assert_false (ffm_arch_finish (empty, &error));
  g_assert_cmpstr (error->message, ==, "architecture e: has no levels");
  g_clear_error (&error);

  level = ffm_arch_add_fanout (fanout_first, "Chips");
  ffm_level_add_fanout_dim (level, "chips", 2);
  ffm_arch_add_memory (fanout_first, "DRAM")->u.memory.size = INFINITY;
  ffm_arch_add_compute (fanout_first, "MAC");
  g_assert_false (ffm_arch_finish (fanout_first, &error));
  g_assert_cmpstr (error->message, ==,
                   "architecture f: fanout Chips: the first level must be a "
                   "memory (the off-chip memory that holds the workload's tensors)");
  g_clear_error (&error);

  ffm_arch_add_memory (no_compute, "DRAM")->u.memory.size = INFINITY;
  ffm_arch_add_memory (no_compute, "SRAM")->u.memory.size = 1024;
  g_assert_false (ffm_arch_finish (no_compute, &error));
  g_assert_cmpstr (error->message, ==, "architecture n: has no compute unit");
  g_clear_error (&error);

  ffm_arch_add_memory (tail, "DRAM")->u.memory.size = INFINITY;
  ffm_arch_add_compute (tail, "MAC");
  ffm_arch_add_fanout (tail, "Spare");
  g_assert_false (ffm_arch_finish (tail, &error));
  g_assert_cmpstr (error->message, ==,
                   "architecture t: fanout Spare: is listed after the last "
                   "compute unit, so it is on no compute path");
}

/* ---- Invalid files ---- */

typedef struct {
  const char *file;
  int code;                     /* FFM_ARCH_ERROR_* */
  const char *expect[4];        /* substrings of the message */
} InvalidCase;

static const InvalidCase invalid_cases[] = {
  { "bad-json", FFM_ARCH_ERROR_PARSE, { "bad-json.json:4:", "Parse error" } },
  { "not-an-object", FFM_ARCH_ERROR_INVALID,
    { "not-an-object.json", "$: expected an object, got an array" } },
  { "missing-version", FFM_ARCH_ERROR_INVALID,
    { "missing-version.json", "missing member \"ffm_architecture\"" } },
  { "wrong-version", FFM_ARCH_ERROR_INVALID,
    { "wrong-version.json:2: $.ffm_architecture: unsupported format version 2" } },
  { "unknown-top-member", FFM_ARCH_ERROR_INVALID,
    { "unknown-top-member.json:4: $: unknown member \"level\"" } },
  { "memory-without-size", FFM_ARCH_ERROR_INVALID,
    { "memory-without-size.json:8: $.levels[1]: memory GlobalBuffer: has no size" } },
  { "negative-size", FFM_ARCH_ERROR_INVALID,
    { "negative-size.json:7: $.levels[1].size: memory GlobalBuffer: size must be "
      "a number of bits > 0, got -524288" } },
  { "size-wrong-type", FFM_ARCH_ERROR_INVALID,
    { "size-wrong-type.json:4: $.levels[0].size: expected a number or an "
      "expression string, got an array" } },
  { "unknown-level-kind", FFM_ARCH_ERROR_INVALID,
    { "unknown-level-kind.json:5: $.levels[1]: unknown level kind", "got \"cache\"" } },
  { "two-kinds-in-level", FFM_ARCH_ERROR_INVALID,
    { "two-kinds-in-level.json:5: $.levels[1]:", "both \"memory\" and \"compute\"" } },
  { "duplicate-level-name", FFM_ARCH_ERROR_INVALID,
    { "duplicate-level-name.json:6: $.levels[2].memory: memory Buffer: another "
      "level (number 2) has the same name" } },
  { "level-name-not-identifier", FFM_ARCH_ERROR_INVALID,
    { "level-name-not-identifier.json:4: $.levels[0].memory:",
      "\"Main Memory\" is not an identifier" } },
  { "memory-named-like-class", FFM_ARCH_ERROR_INVALID,
    { "memory-named-like-class.json:5: $.levels[1].memory:",
      "\"Weights\" is reserved for a tensor class" } },
  { "unknown-parameter", FFM_ARCH_ERROR_INVALID,
    { "unknown-parameter.json:6: $.levels[1].size:", "unknown name 'glb_sise'",
      "(known names: glb_size)" } },
  { "division-by-zero", FFM_ARCH_ERROR_INVALID,
    { "division-by-zero.json:8: $.levels[1].throughput:", "division by zero",
      "\"1e9/clock\"" } },
  { "let-forward-reference", FFM_ARCH_ERROR_INVALID,
    { "let-forward-reference.json:4: $.let.glb_bits:", "unknown name 'glb_bytes'" } },
  { "bad-set-expression", FFM_ARCH_ERROR_INVALID,
    { "bad-set-expression.json:5: $.levels[0].keep: memory MainMemory: keep:",
      "all - (intermediates" } },
  { "set-expression-type", FFM_ARCH_ERROR_INVALID,
    { "set-expression-type.json:6: $.levels[1].keep: memory Buffer: keep:",
      "expected a tensor set, got a number" } },
  { "enabled-not-condition", FFM_ARCH_ERROR_INVALID,
    { "enabled-not-condition.json:6: $.levels[1].enabled: compute MAC: enabled:",
      "expected a number, got a tensor set" } },
  { "keep-refers-to-later-memory", FFM_ARCH_ERROR_INVALID,
    { "keep-refers-to-later-memory.json:5: $.levels[0].keep:",
      "refers to GlobalBuffer, which is not a memory above this one" } },
  { "fanout-count-zero", FFM_ARCH_ERROR_INVALID,
    { "fanout-count-zero.json:8: $.levels[1].dims[1].count: count must be a "
      "whole number >= 1, got 0" } },
  { "fanout-count-fractional", FFM_ARCH_ERROR_INVALID,
    { "fanout-count-fractional.json:5: $.levels[1].count:", "got 2.5" } },
  { "min-usage-above-one", FFM_ARCH_ERROR_INVALID,
    { "min-usage-above-one.json:8: $.levels[1].min_usage: fanout PE: dimension "
      "PE: min_usage must be in [0, 1], got 1.5" } },
  { "fanout-dims-and-count", FFM_ARCH_ERROR_INVALID,
    { "fanout-dims-and-count.json:6: $.levels[1]:",
      "\"count\" belongs inside a dimension" } },
  { "too-many-fanout-dims", FFM_ARCH_ERROR_INVALID,
    { "too-many-fanout-dims.json:8: $.levels[1].dims:", "at most 4 dimensions" } },
  { "no-compute", FFM_ARCH_ERROR_INVALID,
    { "no-compute.json:6: $.levels: has no compute unit" } },
  { "empty-levels", FFM_ARCH_ERROR_INVALID,
    { "empty-levels.json:4: $.levels: has no levels" } },
  { "first-level-not-memory", FFM_ARCH_ERROR_INVALID,
    { "first-level-not-memory.json:4: $.levels[0].fanout: fanout Chips: the "
      "first level must be a memory" } },
  { "level-after-last-compute", FFM_ARCH_ERROR_INVALID,
    { "level-after-last-compute.json:6: $.levels[2].memory: memory Orphan:",
      "on no compute path" } },
  { "unknown-member", FFM_ARCH_ERROR_INVALID,
    { "unknown-member.json:8: $.levels[1]: unknown member \"read_enrgy\"" } },
  { "negative-energy", FFM_ARCH_ERROR_INVALID,
    { "negative-energy.json:5: $.levels[0].write_energy: memory MainMemory: "
      "write_energy must be a finite number >= 0, got -1e-12" } },
  { "bad-ports", FFM_ARCH_ERROR_INVALID,
    { "bad-ports.json:5: $.levels[0].ports: expected \"shared\" or "
      "\"separate\", got \"dual\"" } },
  { "bits-override-zero", FFM_ARCH_ERROR_INVALID,
    { "bits-override-zero.json:8: $.levels[1].bits_per_value: memory Acc:",
      "bits_per_value of \"output\" must be a finite number > 0, got 0" } },
  { "default-out-of-range", FFM_ARCH_ERROR_INVALID,
    { "default-out-of-range.json:4: $.parameters.pes.default: the default 0 "
      "is outside [1, inf]" } },
  { "bad-param-type", FFM_ARCH_ERROR_INVALID,
    { "bad-param-type.json:4: $.parameters.mode.type: unknown parameter type 'enum'" } },
  { "negative-fill-energy", FFM_ARCH_ERROR_INVALID,
    { "negative-fill-energy.json:5: $.levels[0].fill_energy: memory MainMemory: "
      "fill_energy must be a finite number >= 0, got -2e-12" } },
  { "drain-energy-without-drain-read", FFM_ARCH_ERROR_INVALID,
    { "drain-energy-without-drain-read.json:6: $.levels[1].drain_energy: "
      "memory Buffer: drain_energy is set but drains_read is false" } },
  { "energy-override-unknown-member", FFM_ARCH_ERROR_INVALID,
    { "energy-override-unknown-member.json:6: "
      "$.levels[1].energy_by_tensor[\"output\"]: unknown member \"update\"" } },
  { "energy-override-negative", FFM_ARCH_ERROR_INVALID,
    { "energy-override-negative.json:7: $.levels[1].energy_by_tensor: memory "
      "Buffer: energy_by_tensor \"weight\": drain_energy must be a finite "
      "number >= 0, got -1" } },
  { "energy-override-bad-set", FFM_ARCH_ERROR_INVALID,
    { "energy-override-bad-set.json:6: $.levels[1].energy_by_tensor: memory "
      "Buffer: energy_by_tensor:", "(outputs" } },
};

static void
test_invalid_file (gconstpointer data)
{
  const InvalidCase *c = data;
  g_autofree char *file = g_strconcat (c->file, ".json", NULL);
  g_autofree char *path = data_path ("invalid", file);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = NULL;

  g_test_summary ("An invalid architecture file is refused with a message "
                  "naming the file, the line, the JSON path and the cause");
  arch = ffm_arch_load_file (path, NULL, &error);
  g_assert_null (arch);
  g_assert_error (error, FFM_ARCH_ERROR, c->code);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, path));
  for (guint i = 0; i < G_N_ELEMENTS (c->expect) && c->expect[i] != NULL; i++)
    if (strstr (error->message, c->expect[i]) == NULL)
      g_error ("message \"%s\" lacks \"%s\"", error->message, c->expect[i]);
}

/* Every file in the invalid folder has a row in the table, and back. */
static void
test_invalid_table_complete (void)
{
  g_autofree char *dir_path = g_test_build_filename (G_TEST_DIST, "data", "arch",
                                                     "invalid", NULL);
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  guint n_files = 0;

  g_test_summary ("The invalid-file table covers every file in "
                  "tests/data/arch/invalid");
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      gboolean found = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (invalid_cases); i++)
        {
          g_autofree char *file = g_strconcat (invalid_cases[i].file, ".json", NULL);
          found |= strcmp (file, name) == 0;
        }
      if (!found)
        g_error ("%s has no row in invalid_cases", name);
      n_files++;
    }
  g_assert_cmpuint (n_files, ==, G_N_ELEMENTS (invalid_cases));
  g_assert_cmpuint (n_files, >=, 12);
}

static void
test_invalid_data (void)
{
  g_autoptr (GError) error = NULL;

  g_test_summary ("ffm_arch_load_from_data() names the display name");
  g_assert_null (ffm_arch_load_from_data ("{\"ffm_architecture\": 1, \"levels\": 3}",
                                          "inline.json", NULL, &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==,
                   "inline.json:1: $.levels: expected an array, got a number");
  g_clear_error (&error);
  g_assert_null (ffm_arch_load_file ("/nonexistent/arch.json", NULL, &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_PARSE);
  g_assert_true (g_str_has_prefix (error->message, "/nonexistent/arch.json: cannot read"));
}

/* ---- Valid files ---- */

static void
test_valid_every_field (void)
{
  g_autofree char *path = data_path ("valid", "every-field.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = ffm_arch_load_file (path, NULL, &error);
  const FfmLevel *l;
  const FfmMemorySpec *m;
  const FfmFanoutDim *d;
  const FfmBitsOverride *o;
  double value;

  g_test_summary ("Every member of the format lands in the right field, "
                  "numbers evaluated over parameters and lets");
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_arch_get_name (arch), ==, "every-field");
  g_assert_cmpstr (ffm_arch_get_description (arch), ==,
                   "A TPU-like test architecture that sets every member of the format");
  g_assert_cmpstr (ffm_arch_get_source (arch), ==,
                   "tests/data/arch/valid: written for the loader tests");
  g_assert_cmpuint (ffm_arch_get_n_levels (arch), ==, 8);

  /* Parameters and lets become variables, in order. */
  {
    static const char *const names[] = { "glb_mib", "cores", "separate_ports",
                                         "clock", "dram_energy", "glb_bits",
                                         "fast", "lanes", NULL };
    const char *const *got = ffm_arch_get_variable_names (arch);
    for (guint i = 0; names[i] != NULL; i++)
      g_assert_cmpstr (got[i], ==, names[i]);
    g_assert_null (got[8]);
  }
  g_assert_true (ffm_arch_get_variable (arch, "separate_ports", &value));
  g_assert_cmpfloat (value, ==, 1);
  g_assert_true (ffm_arch_get_variable (arch, "fast", &value));
  g_assert_cmpfloat (value, ==, 1);
  g_assert_true (ffm_arch_get_variable (arch, "lanes", &value));
  g_assert_cmpfloat (value, ==, 128);
  g_assert_false (ffm_arch_get_variable (arch, "dram", &value));

  l = ffm_arch_get_level (arch, 0);
  m = &l->u.memory;
  g_assert_cmpint (l->kind, ==, FFM_LEVEL_MEMORY);
  g_assert_cmpstr (l->name, ==, "MainMemory");
  g_assert_cmpstr (l->description, ==, "off-chip");
  g_assert_cmpfloat (m->size, ==, INFINITY);
  g_assert_cmpfloat (m->read_energy, ==, 8e-12);
  g_assert_cmpfloat (m->write_energy, ==, 8e-12);
  g_assert_cmpfloat (m->read_bandwidth, ==, 8 * 614e9);
  g_assert_cmpfloat (m->write_bandwidth, ==, 4912000000000.0);
  g_assert_cmpint (m->ports, ==, FFM_PORTS_SHARED);
  g_assert_cmpfloat (m->bits_per_action, ==, 1);
  g_assert_true (m->skip_initial_output_write);
  g_assert_cmpstr (m->keep, ==, "~intermediates");
  g_assert_cmpstr (m->may_keep, ==, "all");
  g_assert_cmpfloat (l->leak_power, ==, 0);
  g_assert_null (m->bits_overrides);
  /* No per-action energy: the two energies of the format before them. */
  g_assert_true (isnan (m->fill_energy) && isnan (m->update_energy)
                 && isnan (m->drain_energy));
  g_assert_true (m->drains_read);
  g_assert_null (m->energy_overrides);
  g_assert_true (ffm_memory_spec_has_two_energies (m));

  l = ffm_arch_get_level (arch, 1);
  m = &l->u.memory;
  g_assert_cmpstr (l->name, ==, "GlobalBuffer");
  g_assert_null (l->description);
  g_assert_cmpfloat (m->size, ==, 2.0 * 8 * 1024 * 1024);
  g_assert_cmpfloat (m->read_energy, ==, 1.88e-12);
  g_assert_cmpfloat (m->write_energy, ==, 2.36e-12);
  g_assert_cmpfloat (m->read_bandwidth, ==, 8 * 2048e9);
  g_assert_cmpfloat (m->write_bandwidth, ==, 8 * 1024e9);
  g_assert_cmpint (m->ports, ==, FFM_PORTS_SEPARATE);
  g_assert_cmpfloat (l->leak_power, ==, 0.5e-3);
  g_assert_cmpfloat (l->area, ==, 112e-6);
  g_assert_cmpstr (m->keep, ==, "~MainMemory.tensors");

  l = ffm_arch_get_level (arch, 2);
  g_assert_cmpint (l->kind, ==, FFM_LEVEL_FANOUT);
  g_assert_cmpstr (l->name, ==, "Cores");
  g_assert_cmpstr (l->description, ==, "the reference's LocalBuffer spatial Z");
  g_assert_cmpuint (l->u.fanout.n_dims, ==, 1);
  d = &l->u.fanout.dims[0];
  g_assert_cmpstr (d->name, ==, "Z");
  g_assert_cmpuint (d->count, ==, 4);
  g_assert_null (d->reuse);
  g_assert_cmpstr (d->may_reuse, ==, "nothing");
  g_assert_cmpfloat (d->min_usage, ==, 1);
  g_assert_null (d->allowed_rank_vars);

  l = ffm_arch_get_level (arch, 3);
  m = &l->u.memory;
  g_assert_cmpstr (l->name, ==, "LocalBuffer");
  g_assert_cmpfloat (m->size, ==, 33554432);
  g_assert_cmpfloat (m->bits_per_action, ==, 8);
  g_assert_false (m->skip_initial_output_write);
  g_assert_cmpfloat (m->read_bandwidth, ==, INFINITY);
  g_assert_cmpstr (m->keep, ==, "input | output");
  g_assert_null (m->may_keep);
  g_assert_cmpuint (m->bits_overrides->len, ==, 2);
  o = &g_array_index (m->bits_overrides, FfmBitsOverride, 0);
  g_assert_cmpstr (o->tensors, ==, "output");
  g_assert_cmpstr (o->bits_text, ==, "2*bits");
  g_assert_true (isnan (o->bits));
  o = &g_array_index (m->bits_overrides, FfmBitsOverride, 1);
  g_assert_cmpstr (o->tensors, ==, "weight");
  g_assert_null (o->bits_text);
  g_assert_cmpfloat (o->bits, ==, 4);
  g_assert_cmpuint (ffm_arch_get_instances_above (arch, 3), ==, 4);
  g_assert_cmpfloat (m->fill_energy, ==, 0.3e-12);
  g_assert_cmpfloat (m->update_energy, ==, 0.25e-12 + 0.06e-12);
  g_assert_cmpfloat (m->drain_energy, ==, 0.2e-12);
  g_assert_true (m->drains_read);
  g_assert_false (ffm_memory_spec_has_two_energies (m));
  g_assert_cmpuint (m->energy_overrides->len, ==, 2);
  {
    const FfmEnergyOverride *e = &g_array_index (m->energy_overrides,
                                                 FfmEnergyOverride, 0);
    g_assert_cmpstr (e->tensors, ==, "output");
    g_assert_cmpfloat (e->energies.update, ==, 0.5e-12);
    g_assert_cmpfloat (e->energies.read, ==, 0.26e-12);
    g_assert_true (isnan (e->energies.fill) && isnan (e->energies.drain));
    e = &g_array_index (m->energy_overrides, FfmEnergyOverride, 1);
    g_assert_cmpstr (e->tensors, ==, "weight");
    g_assert_cmpfloat (e->energies.fill, ==, 0.1e-12);
  }

  l = ffm_arch_get_level (arch, 4);
  g_assert_cmpint (l->kind, ==, FFM_LEVEL_COMPUTE);
  g_assert_cmpstr (l->name, ==, "ScalarUnit");
  g_assert_cmpfloat (l->u.compute.energy, ==, 0);
  g_assert_cmpfloat (l->u.compute.throughput, ==, 1.05e9 * 128);
  g_assert_cmpstr (l->u.compute.enabled, ==, "len(all) == 2");

  l = ffm_arch_get_level (arch, 5);
  g_assert_cmpuint (l->u.fanout.n_dims, ==, 2);
  g_assert_cmpstr (l->u.fanout.dims[0].reuse, ==, "input");
  g_assert_null (l->u.fanout.dims[0].may_reuse);
  d = &l->u.fanout.dims[1];
  g_assert_cmpstr (d->name, ==, "reuse_output");
  g_assert_cmpuint (d->count, ==, 128);
  g_assert_cmpstr (d->may_reuse, ==, "output | input");
  g_assert_cmpfloat (d->min_usage, ==, 0.5);
  g_assert_cmpstr (d->allowed_rank_vars, ==, "!b");
  g_assert_cmpuint (ffm_arch_get_fanout_count (arch, 5), ==, 16384);

  l = ffm_arch_get_level (arch, 6);
  g_assert_cmpstr (l->u.memory.size_per_einsum, ==, "weight.bits_per_value");
  g_assert_true (isnan (l->u.memory.size));
  g_assert_false (l->u.memory.drains_read);
  g_assert_cmpuint (ffm_arch_get_instances_above (arch, 6), ==, 4 * 16384);

  l = ffm_arch_get_level (arch, 7);
  g_assert_cmpstr (l->description, ==, "one \"8-bit\" MAC\n(\\ TPU)");
  g_assert_cmpfloat (l->u.compute.energy, ==, 0.084e-12);
  g_assert_cmpfloat (l->u.compute.throughput, ==, 1.05e9);
  g_assert_cmpfloat (l->leak_power, ==, 2e-9);
  g_assert_cmpfloat (l->area, ==, 8.5e-10);
}

static void
test_valid_parameters (void)
{
  g_autofree char *path = data_path ("valid", "every-field.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (FfmArch) arch = NULL;
  g_autofree char *description = NULL;
  FfmParamSpec *specs;

  g_test_summary ("Declared parameters of every type are listed and applied");
  specs = ffm_arch_file_get_param_specs (path, &description, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (description, ==,
                   "A TPU-like test architecture that sets every member of the format");
  g_assert_cmpstr (specs[0].name, ==, "glb_mib");
  g_assert_cmpint (specs[0].type, ==, FFM_PARAM_NUMBER);
  g_assert_cmpstr (specs[0].default_value, ==, "2");
  g_assert_cmpstr (specs[0].help, ==, "global buffer capacity, MiB");
  g_assert_cmpfloat (specs[0].min, ==, 0.5);
  g_assert_cmpfloat (specs[0].max, ==, 1024);
  g_assert_cmpint (specs[1].type, ==, FFM_PARAM_INTEGER);
  g_assert_cmpstr (specs[1].default_value, ==, "4");
  g_assert_cmpfloat (specs[1].min, ==, 1);
  g_assert_cmpfloat (specs[1].max, ==, INFINITY);
  g_assert_cmpint (specs[2].type, ==, FFM_PARAM_STRING);
  g_assert_cmpstr (specs[2].default_value, ==, "lpddr4");
  g_assert_cmpstr (specs[2].choices[1], ==, "hbm2");
  g_assert_null (specs[2].choices[2]);
  g_assert_cmpint (specs[3].type, ==, FFM_PARAM_BOOL);
  g_assert_cmpstr (specs[3].default_value, ==, "true");
  g_assert_cmpstr (specs[4].name, ==, "clock");
  g_assert_cmpfloat (specs[4].min, ==, 0);
  g_assert_cmpfloat (specs[4].max, ==, 0);
  g_assert_null (specs[5].name);
  ffm_param_specs_free (specs);

  ffm_param_values_set (values, "glb_mib", "16");
  ffm_param_values_set (values, "cores", "2");
  ffm_param_values_set (values, "dram", "hbm2");
  ffm_param_values_set (values, "separate_ports", "false");
  arch = ffm_arch_load_file (path, values, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (level_named (arch, "GlobalBuffer")->u.memory.size, ==, 16.0 * 8 * 1024 * 1024);
  g_assert_cmpfloat (level_named (arch, "GlobalBuffer")->u.memory.read_bandwidth, ==, 8 * 1024e9);
  g_assert_cmpfloat (level_named (arch, "MainMemory")->u.memory.read_energy, ==, 3.9e-12);
  g_assert_cmpuint (level_named (arch, "Cores")->u.fanout.dims[0].count, ==, 2);
  g_assert_cmpuint (ffm_arch_get_instances_above (arch, 7), ==, 2 * 16384);
  assert_round_trip (arch);
}

static void
test_valid_minimal (void)
{
  g_autofree char *path = data_path ("valid", "minimal.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = ffm_arch_load_file (path, NULL, &error);
  const FfmLevel *dram, *pe;

  g_test_summary ("Defaults of a file with only the required members");
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_arch_get_name (arch), ==, "minimal");
  g_assert_null (ffm_arch_get_description (arch));
  g_assert_null (ffm_arch_get_source (arch));
  g_assert_null (ffm_arch_get_variable_names (arch)[0]);
  dram = ffm_arch_get_level (arch, 0);
  g_assert_cmpfloat (dram->u.memory.read_energy, ==, 0);
  g_assert_cmpfloat (dram->u.memory.write_bandwidth, ==, INFINITY);
  g_assert_cmpint (dram->u.memory.ports, ==, FFM_PORTS_SHARED);
  g_assert_cmpfloat (dram->u.memory.bits_per_action, ==, 1);
  g_assert_true (dram->u.memory.skip_initial_output_write);
  g_assert_null (dram->u.memory.keep);
  g_assert_null (dram->u.memory.may_keep);
  pe = ffm_arch_get_level (arch, 1);
  g_assert_cmpfloat (pe->u.compute.energy, ==, 0);
  g_assert_cmpfloat (pe->u.compute.throughput, ==, INFINITY);
  g_assert_null (pe->u.compute.enabled);
  assert_round_trip (arch);
}

static void
test_round_trip_all (void)
{
  static const char *const valid[] = { "every-field.json", "minimal.json", NULL };

  g_test_summary ("Every valid and every shipped architecture survives "
                  "ffm_arch_to_json() and loading back unchanged");
  for (guint i = 0; valid[i] != NULL; i++)
    {
      g_autofree char *path = data_path ("valid", valid[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmArch) arch = ffm_arch_load_file (path, NULL, &error);
      g_assert_no_error (error);
      assert_round_trip (arch);
    }
  for (guint i = 0; inputs_shipped_arch_names[i] != NULL; i++)
    {
      g_autoptr (FfmArch) arch = load_shipped (inputs_shipped_arch_names[i], NULL);
      assert_round_trip (arch);
    }
}

/* ---- Shipped architectures ---- */

static void
test_shipped_headers (void)
{
  g_autofree char *dir_path = g_test_build_filename (G_TEST_DIST, "..", "arch-models",
                                                     "json", "architectures", NULL);
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *file;
  guint n = 0;

  g_test_summary ("Every shipped architecture loads with its defaults, is "
                  "named after its file and names its source");
  g_assert_nonnull (dir);
  while ((file = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *stem = g_strndup (file, strlen (file) - strlen (".json"));
      g_autoptr (FfmArch) arch = NULL;

      g_assert_true (g_str_has_suffix (file, ".json"));
      g_assert_true (g_strv_contains (inputs_shipped_arch_names, stem));
      arch = load_shipped (stem, NULL);
      g_assert_cmpstr (ffm_arch_get_name (arch), ==, stem);
      g_assert_nonnull (ffm_arch_get_source (arch));
      if (!g_strv_contains (zoo_names, stem))
        g_assert_nonnull (strstr (ffm_arch_get_source (arch), "accelforge"));
      g_assert_nonnull (ffm_arch_get_description (arch));
      g_assert_cmpstr (ffm_arch_get_level (arch, 0)->name, ==, "MainMemory");
      n++;
    }
  g_assert_cmpuint (n, ==, g_strv_length ((char **) inputs_shipped_arch_names));
}

static void
assert_memory (const FfmArch *arch, const char *name, double size,
               double read_energy, double write_energy, double read_bw,
               double write_bw, double leak, const char *keep,
               const char *may_keep)
{
  const FfmLevel *l = level_named (arch, name);

  g_assert_cmpint (l->kind, ==, FFM_LEVEL_MEMORY);
  if (isnan (size))
    g_assert_true (isnan (l->u.memory.size));
  else
    g_assert_cmpfloat (l->u.memory.size, ==, size);
  g_assert_cmpfloat (l->u.memory.read_energy, ==, read_energy);
  g_assert_cmpfloat (l->u.memory.write_energy, ==, write_energy);
  g_assert_cmpfloat (l->u.memory.read_bandwidth, ==, read_bw);
  g_assert_cmpfloat (l->u.memory.write_bandwidth, ==, write_bw);
  g_assert_cmpfloat (l->leak_power, ==, leak);
  g_assert_cmpstr (l->u.memory.keep, ==, keep);
  g_assert_cmpstr (l->u.memory.may_keep, ==, may_keep);
}

static void
assert_compute (const FfmArch *arch, const char *name, double energy,
                double throughput, double leak)
{
  const FfmLevel *l = level_named (arch, name);

  g_assert_cmpint (l->kind, ==, FFM_LEVEL_COMPUTE);
  g_assert_cmpfloat (l->u.compute.energy, ==, energy);
  g_assert_cmpfloat (l->u.compute.throughput, ==, throughput);
  g_assert_cmpfloat (l->leak_power, ==, leak);
}

static void
assert_dim (const FfmArch *arch, const char *level, guint d, const char *name,
            guint64 count, const char *reuse, double min_usage)
{
  const FfmLevel *l = level_named (arch, level);

  g_assert_cmpint (l->kind, ==, FFM_LEVEL_FANOUT);
  g_assert_cmpuint (d, <, l->u.fanout.n_dims);
  g_assert_cmpstr (l->u.fanout.dims[d].name, ==, name);
  g_assert_cmpuint (l->u.fanout.dims[d].count, ==, count);
  g_assert_cmpstr (l->u.fanout.dims[d].reuse, ==, reuse);
  g_assert_cmpfloat (l->u.fanout.dims[d].min_usage, ==, min_usage);
}

static void
assert_level_order (const FfmArch *arch, const char *const *names)
{
  g_assert_cmpuint (ffm_arch_get_n_levels (arch), ==, g_strv_length ((char **) names));
  for (guint i = 0; names[i] != NULL; i++)
    g_assert_cmpstr (ffm_arch_get_level (arch, i)->name, ==, names[i]);
}

static void
test_shipped_simple_snowcat (void)
{
  g_autoptr (FfmArch) simple = load_shipped ("simple", NULL);
  g_autoptr (FfmArch) snowcat = load_shipped ("snowcat", NULL);
  static const char *const order[] = { "MainMemory", "GlobalBuffer", "MAC", NULL };

  g_test_summary ("simple and snowcat have the reference's numbers (as in the reference implementation, accelforge)");
  assert_level_order (simple, order);
  assert_memory (simple, "MainMemory", INFINITY, 1, 1, INFINITY, INFINITY, 0,
                 "~intermediates", "all");
  assert_memory (simple, "GlobalBuffer", INFINITY, 1, 1, INFINITY, INFINITY, 0,
                 "~MainMemory", "all");
  assert_compute (simple, "MAC", 1, 1, 0);

  assert_level_order (snowcat, order);
  assert_memory (snowcat, "MainMemory", INFINITY, 1, 1, INFINITY, INFINITY, 0,
                 "~intermediates", "all");
  assert_memory (snowcat, "GlobalBuffer", 1e15, 0, 0, INFINITY, INFINITY, 0,
                 "all", NULL);
  assert_compute (snowcat, "MAC", 0, INFINITY, 0);
}

static void
test_shipped_eyeriss (void)
{
  g_autoptr (FfmArch) arch = load_shipped ("eyeriss", NULL);
  static const char *const order[] = {
    "MainMemory", "GlobalBuffer", "ProcessingElement", "InputScratchpad",
    "WeightScratchpad", "OutputScratchpad", "MAC", NULL
  };
  const FfmLevel *glb;

  g_test_summary ("eyeriss has the reference's numbers (arch-models 3.3)");
  assert_level_order (arch, order);
  assert_memory (arch, "MainMemory", INFINITY, 8e-12, 8e-12, 3355443200,
                 3355443200, 0, "~intermediates", "all");
  assert_memory (arch, "GlobalBuffer", 1048576, 9.056430298994264e-11,
                 9.122346940403464e-11, 6.4e9, 6.4e9, 2.5508039081958506e-4,
                 "~MainMemory", "all");
  glb = level_named (arch, "GlobalBuffer");
  g_assert_cmpfloat (glb->u.memory.bits_per_action, ==, 64);
  g_assert_cmpint (glb->u.memory.ports, ==, FFM_PORTS_SHARED);
  assert_dim (arch, "ProcessingElement", 0, "reuse_weight", 14, "weight", 1);
  assert_dim (arch, "ProcessingElement", 1, "reuse_output", 12, "output", 1);
  assert_memory (arch, "InputScratchpad", 192, 2.2733893884485344e-14,
                 3.1554801000964905e-14, 9846153846.153845, 9846153846.153845,
                 4.3815839033400895e-7, "input", NULL);
  assert_memory (arch, "WeightScratchpad", 3072, 4.0152965248454046e-14,
                 6.235570339922515e-14, 34461538461.53846, 34461538461.53846,
                 7.663684917510134e-7, "weight", NULL);
  assert_memory (arch, "OutputScratchpad", 256, 2.6247402328781873e-14,
                 3.728731056542402e-14, 9846153846.153845, 9846153846.153845,
                 4.4143907783400897e-7, "output", NULL);
  assert_compute (arch, "MAC", 1.2813796807700769e-12, 200e6, 8.851870775236185e-6);
  g_assert_cmpuint (ffm_arch_get_instances_above (arch, 6), ==, 168);
  g_assert_cmpuint (ffm_arch_get_instances_above (arch, 3), ==, 168);
  g_assert_cmpuint (ffm_arch_get_instances_above (arch, 1), ==, 1);
}

static void
test_shipped_simba (void)
{
  g_autoptr (FfmArch) arch = load_shipped ("simba", NULL);
  static const char *const order[] = {
    "MainMemory", "GlobalBuffer", "ProcessingElement", "InputBuffer",
    "WeightBuffer", "AccumulationBuffer", "VectorMAC", "Register", "MAC", NULL
  };
  const FfmMemorySpec *acc;
  const FfmBitsOverride *o;

  g_test_summary ("simba has the reference's numbers (arch-models 3.4)");
  assert_level_order (arch, order);
  assert_memory (arch, "MainMemory", INFINITY, 8e-12, 8e-12, 3355443200,
                 3355443200, 0, "~intermediates", "all");
  assert_memory (arch, "GlobalBuffer", 524288, 8.294876234356374e-14,
                 9.034393027274906e-14, 1812499999999.9998, 1812499999999.9998,
                 9.50865964351506e-6, "input | output", NULL);
  assert_dim (arch, "ProcessingElement", 0, "reuse_all", 16, NULL, 1);
  assert_memory (arch, "InputBuffer", 65536, 9.645592307867024e-15,
                 2.0688423349341654e-14, 639999999999.9999, 639999999999.9999,
                 1.2069544874830208e-6, "input", NULL);
  assert_memory (arch, "WeightBuffer", 262144, 6.681971929354662e-14,
                 6.873086384000309e-14, 1279999999999.9998, 1279999999999.9998,
                 1.2611510646849734e-5, "weight", NULL);
  assert_memory (arch, "AccumulationBuffer", 24576, 7.074774077633321e-15,
                 1.3827004365611064e-14, 392499999999.9999, 392499999999.9999,
                 6.034779422382222e-7, "output", NULL);
  acc = &level_named (arch, "AccumulationBuffer")->u.memory;
  g_assert_cmpuint (acc->bits_overrides->len, ==, 1);
  o = &g_array_index (acc->bits_overrides, FfmBitsOverride, 0);
  g_assert_cmpstr (o->tensors, ==, "output");
  g_assert_cmpstr (o->bits_text, ==, "accumulator_scale*bits");
  assert_dim (arch, "VectorMAC", 0, "reuse_output", 8, "output", 1);
  assert_dim (arch, "VectorMAC", 1, "reuse_input", 8, "input", 1);
  assert_memory (arch, "Register", NAN, 0, 0, INFINITY, INFINITY, 0, "weight", NULL);
  g_assert_cmpstr (level_named (arch, "Register")->u.memory.size_per_einsum, ==,
                   "weight.bits_per_value");
  assert_compute (arch, "MAC", 1.7924412301183831e-13, 2499999999.9999995,
                  1.2382323818087997e-6);
  g_assert_cmpuint (ffm_arch_get_instances_above (arch, 8), ==, 1024);
  g_assert_cmpuint (ffm_arch_get_instances_above (arch, 5), ==, 16);
}

static void
test_shipped_nvdla (void)
{
  g_autoptr (FfmArch) arch = load_shipped ("nvdla", NULL);
  static const char *const order[] = {
    "MainMemory", "GlobalBuffer", "ProcessingElement", "Register", "MAC", NULL
  };

  g_test_summary ("nvdla has the reference's numbers (arch-models 3.5)");
  assert_level_order (arch, order);
  assert_memory (arch, "MainMemory", INFINITY, 7.03e-12, 7.03e-12, 8 * 38.4e9,
                 8 * 38.4e9, 0, "~intermediates", "all");
  assert_memory (arch, "GlobalBuffer", 524288, 0.249e-12, 0.293e-12, 512e9 * 8,
                 128e9 * 8, 0, "all", NULL);
  g_assert_cmpint (level_named (arch, "GlobalBuffer")->u.memory.ports, ==,
                   FFM_PORTS_SEPARATE);
  assert_dim (arch, "ProcessingElement", 0, "reuse_input", 32, "input", 1);
  assert_dim (arch, "ProcessingElement", 1, "reuse_output", 192, "output", 1);
  g_assert_cmpstr (level_named (arch, "Register")->u.memory.size_per_einsum, ==,
                   "max(weight.bits_per_value, 1)");
  assert_compute (arch, "MAC", 0.084e-12, 1e9, 0);
  g_assert_cmpuint (ffm_arch_get_instances_above (arch, 4), ==, 6144);
}

/* The zoo: each file loads, says where it comes from, and keeps the
 * numbers of its source (a few per file, checked against the paper,
 * configuration or Timeloop file its source member names). */
static void
test_zoo (void)
{
  g_test_summary ("The architecture zoo loads and keeps its sources' numbers");
  for (guint i = 0; zoo_names[i] != NULL; i++)
    {
      g_autoptr (FfmArch) arch = load_shipped (zoo_names[i], NULL);
      const char *source = ffm_arch_get_source (arch);

      g_assert_nonnull (source);
      g_assert_true (strlen (source) > 40);
      g_assert_cmpstr (ffm_arch_get_level (arch, 0)->name, ==, "MainMemory");
    }
  {
    /* Gemmini's defaultConfig: 16 x 16 mesh, 256 KiB scratchpad, 64 KiB
     * accumulator */
    g_autoptr (FfmArch) a = load_shipped ("gemmini", NULL);
    g_assert_cmpfloat (level_named (a, "Scratchpad")->u.memory.size, ==, 256.0 * 8192);
    g_assert_cmpfloat (level_named (a, "Accumulator")->u.memory.size, ==, 64.0 * 8192);
    g_assert_cmpuint (level_named (a, "Mesh")->u.fanout.dims[0].count, ==, 16);
    g_assert_cmpuint (level_named (a, "Mesh")->u.fanout.dims[1].count, ==, 16);
  }
  {
    /* TPUv1: 256 x 256 weight-stationary MACs, 24 MiB, 4 MiB, 700 MHz */
    g_autoptr (FfmArch) a = load_shipped ("tpu-v1", NULL);
    assert_dim (a, "MatrixMultiplyUnit", 0, "rows", 256, "output", 0);
    assert_dim (a, "MatrixMultiplyUnit", 1, "cols", 256, "input", 0);
    g_assert_cmpfloat (level_named (a, "UnifiedBuffer")->u.memory.size, ==, 24.0 * 8388608);
    g_assert_cmpfloat (level_named (a, "Accumulators")->u.memory.size, ==, 4.0 * 8388608);
    g_assert_cmpfloat (level_named (a, "MAC")->u.compute.throughput, ==, 700e6);
  }
  {
    /* Eyeriss v1: 12 x 14 PEs, spads of 12, 224 and 24 16-bit words */
    g_autoptr (FfmArch) a = load_shipped ("eyeriss-v1", NULL);
    g_assert_cmpfloat (level_named (a, "IfmapSpad")->u.memory.size, ==, 12 * 16);
    g_assert_cmpfloat (level_named (a, "FilterSpad")->u.memory.size, ==, 224 * 16);
    g_assert_cmpfloat (level_named (a, "PsumSpad")->u.memory.size, ==, 24 * 16);
    g_assert_cmpfloat (level_named (a, "GlobalBuffer")->u.memory.size, ==, 108.0 * 8192);
  }
  {
    /* nv_small: atomic C 8, atomic K 8, 32 banks x 512 x 8 bytes */
    g_autoptr (FfmArch) a = load_shipped ("nvdla-small", NULL);
    assert_dim (a, "MacCells", 0, "k", 8, "input", 0);
    assert_dim (a, "Multipliers", 0, "c", 8, "output", 0);
    g_assert_cmpfloat (level_named (a, "ConvBuffer")->u.memory.size, ==, 128.0 * 8192);
  }
  {
    /* Timeloop's eyeriss_like: the ERT's 18.183829 pJ per 64-bit read of
     * the global buffer, 14 x 12 PEs in two containers */
    g_autoptr (FfmArch) a = load_shipped ("timeloop-eyeriss-like", NULL);
    const FfmLevel *glb = level_named (a, "shared_glb");
    g_assert_cmpfloat (glb->u.memory.size, ==, 16384.0 * 64);
    g_assert_cmpfloat (glb->u.memory.bits_per_action, ==, 64);
    g_assert_cmpfloat_with_epsilon (glb->u.memory.read_energy, 18.183829e-12, 1e-24);
    g_assert_cmpuint (level_named (a, "PE_column")->u.fanout.dims[0].count, ==, 14);
    g_assert_cmpuint (level_named (a, "PE")->u.fanout.dims[0].count, ==, 12);
  }
  {
    /* SCALE-Sim's scale.cfg: 32 x 32, 512 / 512 / 256 KB */
    g_autoptr (FfmArch) a = load_shipped ("systolic-os", NULL);
    assert_dim (a, "Array", 0, "rows", 32, "weight", 0);
    g_assert_cmpfloat (level_named (a, "IfmapSRAM")->u.memory.size, ==, 512.0 * 8192);
    g_assert_cmpfloat (level_named (a, "OfmapSRAM")->u.memory.size, ==, 256.0 * 8192);
  }
}

static void
test_shipped_fanouts (void)
{
  static const struct {
    const char *name;
    const char *fanout;
    guint position;             /* index of the fanout level */
    const char *allowed;
  } variants[] = {
    { "fanout-at-glb", "X", 1, NULL },
    { "fanout-at-glb-with-fanout-node", "GLBArray", 1, NULL },
    { "fanout-at-mac", "X", 2, NULL },
    { "fanout-at-mac-with-fanout-node", "MACArray", 2, NULL },
    { "fanout-at-mac-with-constraints", "MACArray", 2, "m" },
  };

  g_test_summary ("The five fanout variations: a 4-way fanout X above the "
                  "global buffer or above the MAC");
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autoptr (FfmArch) arch = load_shipped (variants[i].name, NULL);
      const FfmLevel *fanout = ffm_arch_get_level (arch, variants[i].position);

      g_assert_cmpuint (ffm_arch_get_n_levels (arch), ==, 4);
      assert_memory (arch, "MainMemory", INFINITY, 1, 1, INFINITY, INFINITY, 0,
                     "~intermediates", "all");
      assert_memory (arch, "GlobalBuffer", INFINITY, 0, 0, INFINITY, INFINITY, 0,
                     "all", NULL);
      assert_compute (arch, "MAC", 0, 1, 0);
      g_assert_cmpstr (fanout->name, ==, variants[i].fanout);
      g_assert_cmpuint (fanout->u.fanout.n_dims, ==, 1);
      g_assert_cmpstr (fanout->u.fanout.dims[0].name, ==, "X");
      g_assert_cmpuint (fanout->u.fanout.dims[0].count, ==, 4);
      g_assert_null (fanout->u.fanout.dims[0].reuse);
      g_assert_cmpfloat (fanout->u.fanout.dims[0].min_usage, ==, 0);
      g_assert_cmpstr (fanout->u.fanout.dims[0].allowed_rank_vars, ==,
                       variants[i].allowed);
      g_assert_cmpuint (ffm_arch_get_instances_above (arch, 3), ==, 4);
      g_assert_cmpuint (ffm_arch_get_instances_above (arch, (guint) ffm_arch_find_level (arch, "GlobalBuffer")),
                        ==, variants[i].position == 1 ? 4 : 1);
    }
}

/* A different valid value for @spec. */
static char *
changed_value (const FfmParamSpec *spec)
{
  double x;

  switch (spec->type)
    {
    case FFM_PARAM_BOOL:
      return g_strdup (strcmp (spec->default_value, "true") == 0 ? "false" : "true");
    case FFM_PARAM_STRING:
      return g_strdup (strcmp (spec->default_value, spec->choices[0]) == 0
                       ? spec->choices[1] : spec->choices[0]);
    case FFM_PARAM_INTEGER:
      return g_strdup_printf ("%.0f", g_ascii_strtod (spec->default_value, NULL) + 1);
    case FFM_PARAM_NUMBER:
      x = g_ascii_strtod (spec->default_value, NULL);
      if (isinf (x))
        return g_strdup ("123456");
      return g_strdup_printf ("%.17g", x == 0 ? 1 : x * 2);
    }
  g_assert_not_reached ();
  return NULL;
}

/* The architecture's levels as JSON, without the variables. */
static char *
levels_json (const FfmArch *arch)
{
  g_autofree char *text = ffm_arch_to_json (arch);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();

  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  json_object_remove_member (json_node_get_object (json_parser_get_root (parser)), "let");
  json_generator_set_root (gen, json_parser_get_root (parser));
  return json_generator_to_data (gen, NULL);
}

static void
test_shipped_parameters (void)
{
  g_test_summary ("Every parameter of every shipped architecture can be "
                  "changed, and each one changes the architecture");
  for (guint i = 0; inputs_shipped_arch_names[i] != NULL; i++)
    {
      g_autofree char *path = shipped_path (inputs_shipped_arch_names[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmArch) defaults = load_shipped (inputs_shipped_arch_names[i], NULL);
      g_autofree char *default_levels = levels_json (defaults);
      g_autoptr (FfmParamValues) all = ffm_param_values_new ();
      g_autoptr (FfmArch) changed = NULL;
      FfmParamSpec *specs = ffm_arch_file_get_param_specs (path, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (specs[0].name);
      for (const FfmParamSpec *spec = specs; spec->name != NULL; spec++)
        {
          g_autofree char *value = changed_value (spec);
          g_autoptr (FfmParamValues) one = ffm_param_values_new ();
          g_autoptr (FfmArch) arch = NULL;
          g_autofree char *levels = NULL;
          double got;

          g_assert_nonnull (spec->help);
          ffm_param_values_set (one, spec->name, value);
          ffm_param_values_set (all, spec->name, value);
          arch = ffm_arch_load_file (path, one, &error);
          g_assert_no_error (error);
          if (spec->type != FFM_PARAM_STRING)
            {
              g_assert_true (ffm_arch_get_variable (arch, spec->name, &got));
              g_assert_cmpfloat (got, ==, spec->type == FFM_PARAM_BOOL
                                            ? (strcmp (value, "true") == 0)
                                            : g_ascii_strtod (value, NULL));
            }
          levels = levels_json (arch);
          /* A parameter used only inside a per-Einsum expression changes
           * its value, not the expression's text. */
          if (strcmp (levels, default_levels) == 0)
            g_assert_true (strstr (default_levels, spec->name) != NULL);
        }
      changed = ffm_arch_load_file (path, all, &error);
      g_assert_no_error (error);
      ffm_param_specs_free (specs);
    }
}

typedef struct {
  const char *arch;
  const char *key;
  const char *value;
  int code;                     /* FfmParamError */
  const char *expect[3];
} ParamErrorCase;

static const ParamErrorCase param_error_cases[] = {
  { "simple", "glb_sise", "5", FFM_PARAM_ERROR_UNKNOWN,
    { "architecture simple: unknown parameter 'glb_sise'", "global_buffer_size" } },
  { "simple", "main_memory_energy", "big", FFM_PARAM_ERROR_INVALID_VALUE,
    { "architecture simple: parameter main_memory_energy:", "'big'" } },
  { "simple", "main_memory_energy", "-1", FFM_PARAM_ERROR_INVALID_VALUE,
    { "architecture simple: parameter main_memory_energy:", "-1" } },
  { "simple", "global_buffer_size", "0", FFM_PARAM_ERROR_INVALID_VALUE,
    { "architecture simple: parameter global_buffer_size:" } },
  { "eyeriss", "pe_rows", "2.5", FFM_PARAM_ERROR_INVALID_VALUE,
    { "architecture eyeriss: parameter pe_rows:", "integer", "2.5" } },
  { "nvdla", "glb_kib", "0", FFM_PARAM_ERROR_INVALID_VALUE,
    { "architecture nvdla: parameter glb_kib:" } },
  { "fanout-at-mac", "fanout", "0", FFM_PARAM_ERROR_INVALID_VALUE,
    { "architecture fanout-at-mac: parameter fanout:" } },
};

static void
test_shipped_parameter_errors (gconstpointer data)
{
  const ParamErrorCase *c = data;
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autofree char *path = shipped_path (c->arch);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = NULL;

  g_test_summary ("A bad parameter value is refused with a message naming "
                  "the architecture and the parameter");
  ffm_param_values_set (values, c->key, c->value);
  arch = ffm_arch_load_file (path, values, &error);
  g_assert_null (arch);
  g_assert_error (error, FFM_PARAM_ERROR, c->code);
  g_test_message ("%s", error->message);
  for (guint i = 0; i < G_N_ELEMENTS (c->expect) && c->expect[i] != NULL; i++)
    if (strstr (error->message, c->expect[i]) == NULL)
      g_error ("message \"%s\" lacks \"%s\"", error->message, c->expect[i]);
}

static void
test_derived_value_error (void)
{
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autofree char *path = shipped_path ("simple");
  g_autoptr (GError) error = NULL;

  g_test_summary ("A parameter value that passes its own range but breaks a "
                  "level is reported at the level, with the file and line");
  ffm_param_values_set (values, "global_buffer_throughput", "inf");
  ffm_param_values_set (values, "main_memory_energy", "inf");
  g_assert_null (ffm_arch_load_file (path, values, &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "simple.json:"));
  g_assert_nonnull (strstr (error->message,
                            "$.levels[0].read_energy: memory MainMemory: "
                            "read_energy must be a finite number >= 0, got inf"));
}


/* ---- Evaluating set expressions for one Einsum ---- */

/* T1 = T0 * W0 (input T0, weight W0); T2 = T1 (2 tensors); T3 = T2 * W1. */
static const char eval_workload_json[] =
  "{ \"ffm_workload\": 1, \"name\": \"eval\","
  "  \"ranks\": { \"M\": 8, \"K\": 4, \"N\": 16, \"P\": 2 },"
  "  \"bits_per_value\": { \"all - W0\": 8, \"W0\": 16 },"
  "  \"einsums\": [ \"T1[m,n] = T0[m,k] * W0[k,n]\", \"T2[m,n] = T1[m,n]\","
  "                \"T3[m,p] = T2[m,n] * W1[n,p]\" ] }";

static FfmWorkload *
eval_workload (void)
{
  g_autoptr (GError) error = NULL;
  FfmWorkload *w = ffm_workload_load_from_data (eval_workload_json, "eval.json",
                                                NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (ffm_workload_get_n_einsums (w), ==, 3);
  /* The masks below assume inputs in order of appearance, output last. */
  g_assert_cmpuint (ffm_workload_get_einsum (w, 0)->n_accesses, ==, 3);
  g_assert_cmpuint (ffm_workload_get_einsum (w, 0)->accesses[1].tensor, ==,
                    (guint) ffm_workload_find_tensor (w, "W0"));
  g_assert_cmpuint (ffm_workload_get_tensor (w, (guint) ffm_workload_find_tensor (w, "W0"))->bits_per_value, ==, 16);
  g_assert_cmpuint (ffm_workload_get_tensor (w, (guint) ffm_workload_find_tensor (w, "T0"))->bits_per_value, ==, 8);
  return w;
}

static FfmArch *
load_valid (const char *file)
{
  g_autofree char *path = data_path ("valid", file);
  g_autoptr (GError) error = NULL;
  FfmArch *arch = ffm_arch_load_file (path, NULL, &error);

  g_assert_no_error (error);
  return arch;
}

static void
test_eval_keep (void)
{
  g_autoptr (FfmWorkload) w = eval_workload ();
  g_autoptr (FfmArch) arch = load_valid ("every-field.json");
  g_autoptr (GError) error = NULL;
  guint64 kept[8] = { 0 };
  guint64 must = 99, may = 99;

  g_test_summary ("keep and may_keep per Einsum, with memory names meaning "
                  "the caller's current choice above");
  /* MainMemory: keep ~intermediates, may_keep all. T1 is the intermediate. */
  g_assert_true (ffm_arch_eval_keep (arch, 0, w, 0, kept, &must, &may, &error));
  g_assert_no_error (error);
  g_assert_cmphex (must, ==, 0x3);
  g_assert_cmphex (may, ==, 0x7);
  /* Einsum T2 = T1: both tensors are intermediates. */
  g_assert_true (ffm_arch_eval_keep (arch, 0, w, 1, NULL, &must, &may, &error));
  g_assert_cmphex (must, ==, 0x0);
  g_assert_cmphex (may, ==, 0x3);

  /* GlobalBuffer: keep ~MainMemory.tensors, may_keep all. */
  kept[0] = 0x3;
  g_assert_true (ffm_arch_eval_keep (arch, 1, w, 0, kept, &must, &may, &error));
  g_assert_cmphex (must, ==, 0x4);
  g_assert_cmphex (may, ==, 0x7);
  kept[0] = 0x7;
  g_assert_true (ffm_arch_eval_keep (arch, 1, w, 0, kept, &must, &may, &error));
  g_assert_cmphex (must, ==, 0x0);

  /* LocalBuffer: keep input | output, no may_keep: may = must. */
  g_assert_true (ffm_arch_eval_keep (arch, 3, w, 0, NULL, &must, &may, &error));
  g_assert_cmphex (must, ==, 0x5);
  g_assert_cmphex (may, ==, 0x5);
  /* Register: keep weight; the copy-like T2 = T1 has no weight. */
  g_assert_true (ffm_arch_eval_keep (arch, 6, w, 0, NULL, &must, &may, &error));
  g_assert_cmphex (must, ==, 0x2);
  g_assert_true (ffm_arch_eval_keep (arch, 6, w, 1, NULL, &must, &may, &error));
  g_assert_cmphex (must, ==, 0x0);

  /* Without the caller's choices, memory names are unknown. */
  g_assert_false (ffm_arch_eval_keep (arch, 1, w, 0, NULL, &must, &may, &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==,
                   "architecture every-field: memory GlobalBuffer: keep for Einsum T1: "
                   "unknown name 'MainMemory.tensors' at character 2 of \"~MainMemory.tensors\"");
}

static void
test_eval_keep_above (void)
{
  static const char json[] =
    "{ \"ffm_architecture\": 1, \"name\": \"above\", \"levels\": ["
    "  { \"memory\": \"A\", \"size\": \"inf\", \"keep\": \"weight\", \"may_keep\": \"all\" },"
    "  { \"memory\": \"B\", \"size\": 1024, \"keep\": \"~Above\", \"may_keep\": \"above | B2\" },"
    "  { \"memory\": \"B2\", \"size\": 64, \"keep\": \"A & B\" },"
    "  { \"compute\": \"C\" } ] }";
  g_autoptr (FfmWorkload) w = eval_workload ();
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = ffm_arch_load_from_data (json, "above.json", NULL, &error);
  guint64 kept[4] = { 0x3, 0x4, 0, 0 };
  guint64 must, may;

  g_test_summary ("`above` is the union of the memories above; a name that "
                  "is not a memory above is the workload's (here unknown)");
  g_assert_null (arch);
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "above.json:1: $.levels[1].may_keep: "
                            "memory B: may_keep refers to B2, which is not a memory above this one"));
  g_clear_error (&error);

  {
    g_autofree char *fixed = g_strdup (json);
    char *p = strstr (fixed, "above | B2");
    memcpy (p, "above     ", strlen ("above | B2"));
    arch = ffm_arch_load_from_data (fixed, "above.json", NULL, &error);
  }
  g_assert_no_error (error);
  g_assert_true (ffm_arch_eval_keep (arch, 1, w, 0, kept, &must, &may, &error));
  g_assert_cmphex (must, ==, 0x4);
  g_assert_cmphex (may, ==, 0x7);
  g_assert_true (ffm_arch_eval_keep (arch, 2, w, 0, kept, &must, &may, &error));
  g_assert_cmphex (must, ==, 0x0);
  kept[1] = 0x2;
  g_assert_true (ffm_arch_eval_keep (arch, 2, w, 0, kept, &must, &may, &error));
  g_assert_cmphex (must, ==, 0x2);
  g_assert_no_error (error);
}

static void
test_eval_enabled (void)
{
  g_autoptr (FfmWorkload) w = eval_workload ();
  g_autoptr (FfmArch) arch = load_valid ("every-field.json");
  g_autoptr (FfmArch) simple = load_shipped ("simple", NULL);
  g_autoptr (GError) error = NULL;
  gboolean enabled;

  g_test_summary ("A compute unit serves the Einsums its `enabled` selects");
  for (guint e = 0; e < 3; e++)
    {
      gboolean two = e == 1;
      g_assert_true (ffm_arch_compute_enabled (arch, 4, w, e, &enabled, &error));
      g_assert_cmpint (enabled, ==, two);
      g_assert_true (ffm_arch_compute_enabled (arch, 7, w, e, &enabled, &error));
      g_assert_cmpint (enabled, ==, !two);
      g_assert_true (ffm_arch_compute_enabled (simple, 2, w, e, &enabled, &error));
      g_assert_true (enabled);
    }
  g_assert_no_error (error);
}

static void
test_eval_fanout (void)
{
  g_autoptr (FfmWorkload) w = eval_workload ();
  g_autoptr (FfmArch) arch = load_valid ("every-field.json");
  g_autoptr (FfmArch) constrained = load_shipped ("fanout-at-mac-with-constraints", NULL);
  g_autoptr (GError) error = NULL;
  const FfmEinsum *e0 = ffm_workload_get_einsum (w, 0);
  guint64 m = G_GUINT64_CONSTANT (1) << ffm_einsum_find_rank_var (e0, "m");
  guint64 k = G_GUINT64_CONSTANT (1) << ffm_einsum_find_rank_var (e0, "k");
  guint64 n = G_GUINT64_CONSTANT (1) << ffm_einsum_find_rank_var (e0, "n");
  guint64 reuse, may_reuse, vars;

  g_test_summary ("Fanout dimensions: reuse and may_reuse masks, and the rank "
                  "variables a spatial loop may use");
  g_assert_cmpuint (e0->n_rank_vars, ==, 3);
  /* Cores.Z: no reuse, may_reuse nothing; every variable may be spatial. */
  g_assert_true (ffm_arch_fanout_reuse_masks (arch, 2, 0, w, 0, &reuse, &may_reuse, &error));
  g_assert_cmphex (reuse, ==, 0);
  g_assert_cmphex (may_reuse, ==, 0);
  g_assert_true (ffm_arch_fanout_spatial_vars (arch, 2, 0, w, 0, &vars, &error));
  g_assert_cmphex (vars, ==, m | k | n);
  /* PE.reuse_input: T0[m,k] is shared, so only n may be spatial. */
  g_assert_true (ffm_arch_fanout_reuse_masks (arch, 5, 0, w, 0, &reuse, &may_reuse, &error));
  g_assert_cmphex (reuse, ==, 0x1);
  g_assert_cmphex (may_reuse, ==, 0x1);
  g_assert_true (ffm_arch_fanout_spatial_vars (arch, 5, 0, w, 0, &vars, &error));
  g_assert_cmphex (vars, ==, n);
  /* PE.reuse_output: T1[m,n] shared; allowed_rank_vars "!b" allows all. */
  g_assert_true (ffm_arch_fanout_reuse_masks (arch, 5, 1, w, 0, &reuse, &may_reuse, &error));
  g_assert_cmphex (reuse, ==, 0x4);
  g_assert_cmphex (may_reuse, ==, 0x5);
  g_assert_true (ffm_arch_fanout_spatial_vars (arch, 5, 1, w, 0, &vars, &error));
  g_assert_cmphex (vars, ==, k);
  /* No reuse and no may_reuse: may_reuse is all. */
  g_assert_true (ffm_arch_fanout_reuse_masks (constrained, 2, 0, w, 0, &reuse, &may_reuse, &error));
  g_assert_cmphex (reuse, ==, 0);
  g_assert_cmphex (may_reuse, ==, 0x7);
  /* allowed_rank_vars "m": only m, in every Einsum that has one. */
  g_assert_true (ffm_arch_fanout_spatial_vars (constrained, 2, 0, w, 0, &vars, &error));
  g_assert_cmphex (vars, ==, m);
  g_assert_true (ffm_arch_fanout_spatial_vars (constrained, 2, 0, w, 2, &vars, &error));
  g_assert_cmphex (vars, ==, G_GUINT64_CONSTANT (1)
                             << ffm_einsum_find_rank_var (ffm_workload_get_einsum (w, 2), "m"));
  g_assert_no_error (error);
}

static void
test_eval_bits_and_sizes (void)
{
  g_autoptr (FfmWorkload) w = eval_workload ();
  g_autoptr (FfmArch) arch = load_valid ("every-field.json");
  g_autoptr (FfmArch) simba = load_shipped ("simba", NULL);
  g_autoptr (FfmArch) nvdla = load_shipped ("nvdla", NULL);
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (FfmArch) simba4 = NULL;
  g_autoptr (GError) error = NULL;
  double bits, size;

  g_test_summary ("Bits per value inside a memory (overrides, expressions "
                  "over the tensor's bits) and per-Einsum capacities");
  /* LocalBuffer: output "2*bits", weight 4; T0 keeps its 8. */
  g_assert_true (ffm_arch_bits_per_value (arch, 3, w, 0, 0, &bits, &error));
  g_assert_cmpfloat (bits, ==, 8);
  g_assert_true (ffm_arch_bits_per_value (arch, 3, w, 0, 1, &bits, &error));
  g_assert_cmpfloat (bits, ==, 4);
  g_assert_true (ffm_arch_bits_per_value (arch, 3, w, 0, 2, &bits, &error));
  g_assert_cmpfloat (bits, ==, 16);
  g_assert_true (ffm_arch_bits_per_value (arch, 1, w, 0, 1, &bits, &error));
  g_assert_cmpfloat (bits, ==, 16);
  g_assert_true (ffm_arch_bits_per_value (arch, 7, w, 0, 2, &bits, &error));
  g_assert_cmpfloat (bits, ==, 8);
  /* simba's AccumulationBuffer keeps partial sums accumulator_scale times wider. */
  g_assert_true (ffm_arch_bits_per_value (simba, 5, w, 0, 2, &bits, &error));
  g_assert_cmpfloat (bits, ==, 24);
  ffm_param_values_set (values, "accumulator_scale", "4");
  simba4 = load_shipped ("simba", values);
  g_assert_true (ffm_arch_bits_per_value (simba4, 5, w, 0, 2, &bits, &error));
  g_assert_cmpfloat (bits, ==, 32);

  /* Register: one weight; nothing (or 1 bit on nvdla) without a weight. */
  g_assert_true (ffm_arch_memory_size (arch, 6, w, 0, &size, &error));
  g_assert_cmpfloat (size, ==, 16);
  g_assert_true (ffm_arch_memory_size (arch, 6, w, 2, &size, &error));
  g_assert_cmpfloat (size, ==, 8);
  g_assert_true (ffm_arch_memory_size (arch, 6, w, 1, &size, &error));
  g_assert_cmpfloat (size, ==, 0);
  g_assert_true (ffm_arch_memory_size (simba, 7, w, 0, &size, &error));
  g_assert_cmpfloat (size, ==, 16);
  g_assert_true (ffm_arch_memory_size (nvdla, 3, w, 1, &size, &error));
  g_assert_cmpfloat (size, ==, 1);
  g_assert_true (ffm_arch_memory_size (arch, 1, w, 0, &size, &error));
  g_assert_cmpfloat (size, ==, 2.0 * 8 * 1024 * 1024);
  g_assert_no_error (error);
}

static void
test_eval_errors (void)
{
  static const char json[] =
    "{ \"ffm_architecture\": 1, \"name\": \"bad\", \"levels\": ["
    "  { \"memory\": \"M\", \"size\": \"inf\", \"keep\": \"Q | weight\" },"
    "  { \"memory\": \"R\", \"size\": \"K.bits_per_value - 100\" },"
    "  { \"compute\": \"C\", \"enabled\": \"len(Q) == 2\" } ] }";
  g_autoptr (FfmWorkload) w = eval_workload ();
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = ffm_arch_load_from_data (json, "bad.json", NULL, &error);
  guint64 must, may;
  gboolean enabled;
  double size;

  g_test_summary ("An expression that does not fit the workload fails with "
                  "the architecture, level, field and Einsum named");
  g_assert_no_error (error);
  g_assert_false (ffm_arch_eval_keep (arch, 0, w, 2, NULL, &must, &may, &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, "architecture bad: memory M: keep for Einsum T3: "
                   "unknown name 'Q' at character 1 of \"Q | weight\"");
  g_clear_error (&error);
  g_assert_false (ffm_arch_compute_enabled (arch, 2, w, 0, &enabled, &error));
  g_assert_nonnull (strstr (error->message, "compute C: enabled for Einsum T1: unknown name 'Q'"));
  g_clear_error (&error);
  g_assert_false (ffm_arch_memory_size (arch, 1, w, 0, &size, &error));
  g_assert_nonnull (strstr (error->message, "memory R: size for Einsum T1: unknown name 'K.bits_per_value'"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/arch/c-api/build", test_c_api_build);
  for (guint i = 0; i < G_N_ELEMENTS (finish_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/arch/c-api/finish-error/%s",
                                               finish_cases[i].name);
      g_test_add_data_func (name, &finish_cases[i], test_c_api_finish_errors);
    }
  g_test_add_func ("/arch/c-api/structure-errors", test_c_api_structure_errors);
  for (guint i = 0; i < G_N_ELEMENTS (invalid_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/arch/invalid/%s",
                                               invalid_cases[i].file);
      g_test_add_data_func (name, &invalid_cases[i], test_invalid_file);
    }
  g_test_add_func ("/arch/invalid-table-complete", test_invalid_table_complete);
  g_test_add_func ("/arch/invalid-data", test_invalid_data);
  g_test_add_func ("/arch/valid/every-field", test_valid_every_field);
  g_test_add_func ("/arch/valid/parameters", test_valid_parameters);
  g_test_add_func ("/arch/valid/minimal", test_valid_minimal);
  g_test_add_func ("/arch/round-trip", test_round_trip_all);
  g_test_add_func ("/arch/shipped/headers", test_shipped_headers);
  g_test_add_func ("/arch/shipped/simple-snowcat", test_shipped_simple_snowcat);
  g_test_add_func ("/arch/shipped/eyeriss", test_shipped_eyeriss);
  g_test_add_func ("/arch/shipped/simba", test_shipped_simba);
  g_test_add_func ("/arch/shipped/nvdla", test_shipped_nvdla);
  g_test_add_func ("/arch/shipped/fanouts", test_shipped_fanouts);
  g_test_add_func ("/arch/shipped/zoo", test_zoo);
  g_test_add_func ("/arch/shipped/parameters", test_shipped_parameters);
  for (guint i = 0; i < G_N_ELEMENTS (param_error_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/arch/shipped/parameter-error/%u", i);
      g_test_add_data_func (name, &param_error_cases[i], test_shipped_parameter_errors);
    }
  g_test_add_func ("/arch/shipped/derived-value-error", test_derived_value_error);
  g_test_add_func ("/arch/eval/keep", test_eval_keep);
  g_test_add_func ("/arch/eval/keep-above", test_eval_keep_above);
  g_test_add_func ("/arch/eval/enabled", test_eval_enabled);
  g_test_add_func ("/arch/eval/fanout", test_eval_fanout);
  g_test_add_func ("/arch/eval/bits-and-sizes", test_eval_bits_and_sizes);
  g_test_add_func ("/arch/eval/errors", test_eval_errors);
  return g_test_run ();
}
