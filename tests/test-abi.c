/* test-abi.c: pins the layout of every structure that crosses the plugin
 * boundary, on x86_64 (LP64).
 *
 * A plugin built against an older header reads these structures with the
 * offsets it was compiled with. If one of these numbers changes, the plugin
 * ABI changed: appending at the end of a struct needs FFM_PLUGIN_ABI_MINOR
 * bumped (and these pins extended), anything else needs FFM_PLUGIN_ABI_MAJOR
 * bumped. Update the pins only together with the version. */
#include <ffm/ffm.h>
#include <stddef.h>
#include <string.h>

#define PIN_SIZE(type, size) g_assert_cmpuint (sizeof (type), ==, (size))
#define PIN_OFFSET(type, field, offset) \
  g_assert_cmpuint (offsetof (type, field), ==, (offset))

static gboolean
is_x86_64 (void)
{
#if defined(__x86_64__) && defined(__LP64__)
  return TRUE;
#else
  return FALSE;
#endif
}

static void
test_versions (void)
{
  g_test_summary ("The ABI version these pins describe; bump both together");
  g_assert_cmpint (FFM_PLUGIN_ABI_MAJOR, ==, 2);
  g_assert_cmpint (FFM_PLUGIN_ABI_MINOR, ==, 3);
  g_assert_cmpstr (FFM_PLUGIN_ENTRY_SYMBOL, ==, "ffm_plugin_get_descriptor");
}

/* Search plugins allocate FfmPmappingOptions and fill it with
 * ffm_pmapping_options_init(), which records the plugin's sizeof in
 * struct_size: the library reads only that much, so fields appended later
 * get their defaults for plugins built before them (ABI 2.0; before it, the
 * library wrote the whole struct into the plugin's copy). FfmPmappingStats
 * is only read through a pointer. */
static void
test_pmapping_options (void)
{
  g_test_summary ("The layout of the pmapping generator's options and stats");
  if (!is_x86_64 ())
    {
      g_test_skip ("pins are for x86_64");
      return;
    }
  PIN_SIZE (FfmPmappingOptions, 112);
  PIN_OFFSET (FfmPmappingOptions, struct_size, 0);
  PIN_OFFSET (FfmPmappingOptions, objectives, 8);
  PIN_OFFSET (FfmPmappingOptions, max_fused_loops, 12);
  PIN_OFFSET (FfmPmappingOptions, max_fused_loops_per_rank_var, 16);
  PIN_OFFSET (FfmPmappingOptions, n_threads, 20);
  PIN_OFFSET (FfmPmappingOptions, einsum, 24);
  PIN_OFFSET (FfmPmappingOptions, unfused, 28);
  PIN_OFFSET (FfmPmappingOptions, reserved_, 32);
  g_assert_cmpuint (sizeof (((FfmPmappingOptions *) NULL)->reserved_), ==, 8);
  PIN_OFFSET (FfmPmappingOptions, reuse_equal_einsums, 40);
  PIN_OFFSET (FfmPmappingOptions, cancel, 48);
  PIN_OFFSET (FfmPmappingOptions, progress, 56);
  PIN_OFFSET (FfmPmappingOptions, progress_data, 64);
  PIN_SIZE (FfmPmappingProgress, 32);
  PIN_OFFSET (FfmPmappingProgress, templates_done, 8);
  PIN_OFFSET (FfmPmappingProgress, einsum, 16);
  PIN_OFFSET (FfmPmappingProgress, einsum_name, 24);
  PIN_OFFSET (FfmPmappingOptions, imperfect, 72);
  PIN_OFFSET (FfmPmappingOptions, constraints, 80);
  PIN_OFFSET (FfmPmappingOptions, max_memory, 88);
  PIN_OFFSET (FfmPmappingOptions, max_template_seconds, 96);
  PIN_OFFSET (FfmPmappingOptions, max_templates, 104);
  PIN_SIZE (FfmPmappingStats, 64);
  PIN_OFFSET (FfmPmappingStats, n_evaluated, 8);
  PIN_OFFSET (FfmPmappingStats, seconds, 48);
  PIN_OFFSET (FfmPmappingStats, reused_from, 56);
  PIN_OFFSET (FfmPmappingStats, n_templates_cut, 60);
}

static void
test_enums (void)
{
  g_test_summary ("Enum values stored in plugins' static data never change");
  g_assert_cmpuint (sizeof (FfmPluginKind), ==, sizeof (int));
  g_assert_cmpint (FFM_PLUGIN_KIND_ARCH_MODEL, ==, 1);
  g_assert_cmpint (FFM_PLUGIN_KIND_SEARCH, ==, 2);
  g_assert_cmpuint (sizeof (FfmParamType), ==, sizeof (int));
  g_assert_cmpint (FFM_PARAM_NUMBER, ==, 1);
  g_assert_cmpint (FFM_PARAM_INTEGER, ==, 2);
  g_assert_cmpint (FFM_PARAM_STRING, ==, 3);
  g_assert_cmpint (FFM_PARAM_BOOL, ==, 4);
  g_assert_cmpuint (sizeof (FfmObjective), ==, sizeof (int));
  g_assert_cmpint (FFM_OBJECTIVE_EDP, ==, 0);
  g_assert_cmpint (FFM_OBJECTIVE_ENERGY, ==, 1);
  g_assert_cmpint (FFM_OBJECTIVE_LATENCY, ==, 2);
  g_assert_cmpint (FFM_OBJECTIVE_PARETO, ==, 3);
  g_assert_cmpint (FFM_IMPERFECT_NONE, ==, 0);
  g_assert_cmpint (FFM_IMPERFECT_SPATIAL, ==, 1);
  g_assert_cmpint (FFM_IMPERFECT_TEMPORAL, ==, 2);
  g_assert_cmpint (FFM_IMPERFECT_ALL, ==, 3);
  g_assert_cmpint (FFM_PMAPPING_ENERGY, ==, 1);
  g_assert_cmpint (FFM_PMAPPING_LATENCY, ==, 2);
  g_assert_cmpint (FFM_PMAPPING_ENERGY_FIRST, ==, 4);
  g_assert_cmpint (FFM_PMAPPING_LATENCY_FIRST, ==, 8);
}

static void
test_descriptor (void)
{
  g_test_summary ("FfmPluginDescriptor: version fields first, 80 bytes");
  if (!is_x86_64 ())
    {
      g_test_skip ("layout pins are for x86_64");
      return;
    }
  PIN_OFFSET (FfmPluginDescriptor, abi_major, 0);
  PIN_OFFSET (FfmPluginDescriptor, abi_minor, 2);
  PIN_OFFSET (FfmPluginDescriptor, struct_size, 4);
  PIN_OFFSET (FfmPluginDescriptor, kind, 8);
  PIN_OFFSET (FfmPluginDescriptor, name, 16);
  PIN_OFFSET (FfmPluginDescriptor, version, 24);
  PIN_OFFSET (FfmPluginDescriptor, summary, 32);
  PIN_OFFSET (FfmPluginDescriptor, vtable, 40);
  PIN_OFFSET (FfmPluginDescriptor, reserved, 48);
  g_assert_cmpuint (sizeof (((FfmPluginDescriptor *) NULL)->reserved), ==, 32);
  PIN_SIZE (FfmPluginDescriptor, 80);
}

static void
test_vtables (void)
{
  g_test_summary ("Function tables: struct_size first, slots in order");
  if (!is_x86_64 ())
    {
      g_test_skip ("layout pins are for x86_64");
      return;
    }
  PIN_OFFSET (FfmArchModelVTable, struct_size, 0);
  PIN_OFFSET (FfmArchModelVTable, list_architectures, 8);
  PIN_OFFSET (FfmArchModelVTable, describe, 16);
  PIN_OFFSET (FfmArchModelVTable, get_params, 24);
  PIN_OFFSET (FfmArchModelVTable, build, 32);
  PIN_SIZE (FfmArchModelVTable, 40);

  PIN_OFFSET (FfmSearchVTable, struct_size, 0);
  PIN_OFFSET (FfmSearchVTable, params, 8);
  PIN_OFFSET (FfmSearchVTable, run, 16);
  PIN_SIZE (FfmSearchVTable, 24);

  /* ABI 2.3: component estimators. */
  PIN_OFFSET (FfmEstimatorVTable, struct_size, 0);
  PIN_OFFSET (FfmEstimatorVTable, classes, 8);
  PIN_OFFSET (FfmEstimatorVTable, estimate, 16);
  PIN_SIZE (FfmEstimatorVTable, 24);
}

static void
test_estimator_types (void)
{
  g_test_summary ("What an estimator declares and fills in (ABI 2.3)");
  if (!is_x86_64 ())
    {
      g_test_skip ("layout pins are for x86_64");
      return;
    }
  PIN_OFFSET (FfmEstimatorClass, name, 0);
  PIN_OFFSET (FfmEstimatorClass, actions, 8);
  PIN_OFFSET (FfmEstimatorClass, attributes, 16);
  PIN_OFFSET (FfmEstimatorClass, source, 24);
  PIN_SIZE (FfmEstimatorClass, 32);
  PIN_OFFSET (FfmEstimate, energy, 0);
  PIN_OFFSET (FfmEstimate, leak_power, 8);
  PIN_OFFSET (FfmEstimate, area, 16);
  PIN_OFFSET (FfmEstimate, bandwidth, 24);
  PIN_OFFSET (FfmEstimate, action_bits, 32);
  PIN_OFFSET (FfmEstimate, accuracy, 40);
  PIN_OFFSET (FfmEstimate, note, 48);
  PIN_SIZE (FfmEstimate, 56);
}

static void
test_param_spec (void)
{
  g_test_summary ("FfmParamSpec: plugins declare static arrays of it");
  if (!is_x86_64 ())
    {
      g_test_skip ("layout pins are for x86_64");
      return;
    }
  PIN_OFFSET (FfmParamSpec, name, 0);
  PIN_OFFSET (FfmParamSpec, type, 8);
  PIN_OFFSET (FfmParamSpec, default_value, 16);
  PIN_OFFSET (FfmParamSpec, help, 24);
  PIN_OFFSET (FfmParamSpec, min, 32);
  PIN_OFFSET (FfmParamSpec, max, 40);
  PIN_OFFSET (FfmParamSpec, choices, 48);
  PIN_SIZE (FfmParamSpec, 56);
}

static void
test_search_context (void)
{
  g_test_summary ("FfmSearchContext and what a search returns");
  if (!is_x86_64 ())
    {
      g_test_skip ("layout pins are for x86_64");
      return;
    }
  PIN_OFFSET (FfmSearchContext, struct_size, 0);
  PIN_OFFSET (FfmSearchContext, problem, 8);
  PIN_OFFSET (FfmSearchContext, objective, 16);
  PIN_OFFSET (FfmSearchContext, max_evaluations, 24);
  PIN_OFFSET (FfmSearchContext, max_seconds, 32);
  PIN_OFFSET (FfmSearchContext, seed, 40);
  PIN_OFFSET (FfmSearchContext, n_threads, 48);
  PIN_OFFSET (FfmSearchContext, max_fused_loops, 52);
  PIN_OFFSET (FfmSearchContext, unfused, 56);
  PIN_OFFSET (FfmSearchContext, progress, 64);
  PIN_OFFSET (FfmSearchContext, progress_data, 72);
  PIN_OFFSET (FfmSearchContext, cancel, 80);
  PIN_OFFSET (FfmSearchContext, max_modelled_seconds, 88);
  PIN_OFFSET (FfmSearchContext, mapspace, 96);
  PIN_OFFSET (FfmSearchContext, imperfect, 104);
  PIN_OFFSET (FfmSearchContext, constraints, 112);
  PIN_OFFSET (FfmSearchContext, max_memory, 120);
  PIN_OFFSET (FfmSearchContext, max_template_seconds, 128);
  PIN_OFFSET (FfmSearchContext, max_templates, 136);
  PIN_OFFSET (FfmSearchContext, padding_2_1, 140);
  PIN_OFFSET (FfmSearchContext, max_fused_loops_per_rank_var, 144);
  PIN_OFFSET (FfmSearchContext, target_objective, 152);
  PIN_SIZE (FfmSearchContext, 160);

  PIN_OFFSET (FfmTracePoint, evaluations, 0);
  PIN_OFFSET (FfmTracePoint, seconds, 8);
  PIN_OFFSET (FfmTracePoint, best_objective, 16);
  PIN_OFFSET (FfmTracePoint, pmapping_queries, 24);
  PIN_OFFSET (FfmTracePoint, modelled_seconds, 32);
  PIN_SIZE (FfmTracePoint, 40);

  PIN_OFFSET (FfmSolution, mapping, 0);
  PIN_OFFSET (FfmSolution, energy, 8);
  PIN_OFFSET (FfmSolution, latency, 16);
  PIN_SIZE (FfmSolution, 24);

  PIN_OFFSET (FfmStat, name, 0);
  PIN_OFFSET (FfmStat, value, 8);
  PIN_SIZE (FfmStat, 16);
}

/* A plugin built against a shorter FfmPmappingOptions: the library must
 * write no byte past the plugin's struct_size, and read the fields it
 * lacks as their defaults. */
static void
test_pmapping_options_sized (void)
{
  union {
    FfmPmappingOptions options;
    guint8 bytes[sizeof (FfmPmappingOptions) + 16];
  } u;
  gsize old_size = G_STRUCT_OFFSET (FfmPmappingOptions, cancel);

  g_test_summary ("ffm_pmapping_options_init_sized() writes only the caller's size");
  memset (u.bytes, 0xa5, sizeof u.bytes);
  ffm_pmapping_options_init_sized (&u.options, old_size);
  g_assert_cmpuint (u.options.struct_size, ==, old_size);
  g_assert_cmpint (u.options.max_fused_loops, ==, -1);
  g_assert_true (u.options.reuse_equal_einsums);
  for (gsize i = old_size; i < sizeof u.bytes; i++)
    g_assert_cmpuint (u.bytes[i], ==, 0xa5);
  /* The missing cancel field is not read: the bytes past the plugin's
   * struct (0xa5...) would be a wild pointer. */
  g_assert_false (ffm_pmapping_options_is_cancelled (&u.options));

  ffm_pmapping_options_init (&u.options);
  g_assert_cmpuint (u.options.struct_size, ==, sizeof (FfmPmappingOptions));
  g_assert_null (u.options.cancel);
  g_assert_null (u.options.constraints);
}

/* A plugin built before FfmPmappingOptions.constraints: the generator must
 * not read the bytes where the field would be (here 0xa5..., a wild
 * pointer), and generates the unconstrained pmappings. */
static void
test_pmapping_options_before_constraints (void)
{
  static const char workload[] =
    "{ \"ffm_workload\": 1, \"name\": \"w\", \"ranks\": { \"M\": 4, \"K\": 4 },"
    "  \"bits_per_value\": { \"all\": 8 }, \"einsums\": [ \"Z[m] = A[k] * B[k,m]\" ] }";
  static const char arch[] =
    "{ \"ffm_architecture\": 1, \"name\": \"a\", \"levels\": ["
    "  { \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 1,"
    "    \"write_energy\": 1 },"
    "  { \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1 } ] }";
  union {
    FfmPmappingOptions options;
    guint8 bytes[sizeof (FfmPmappingOptions) + 16];
  } u;
  gsize old_size = G_STRUCT_OFFSET (FfmPmappingOptions, constraints);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmWorkload) w = ffm_workload_load_from_data (workload, "w", NULL, &error);
  g_autoptr (FfmArch) a = NULL;
  g_autoptr (FfmPmappingSet) set = NULL;

  g_test_summary ("A caller built before the constraints field gets none");
  g_assert_no_error (error);
  a = ffm_arch_load_from_data (arch, "a", NULL, &error);
  g_assert_no_error (error);
  memset (u.bytes, 0xa5, sizeof u.bytes);
  ffm_pmapping_options_init_sized (&u.options, old_size);
  u.options.n_threads = 1;
  set = ffm_pmappings_generate (w, a, &u.options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (set);
  g_assert_null (ffm_pmapping_set_get_constraints (set));
  g_assert_null (ffm_pmapping_set_get_options (set)->constraints);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/abi/versions", test_versions);
  g_test_add_func ("/abi/pmapping-options", test_pmapping_options);
  g_test_add_func ("/abi/pmapping-options-sized", test_pmapping_options_sized);
  g_test_add_func ("/abi/pmapping-options-before-constraints",
                   test_pmapping_options_before_constraints);
  g_test_add_func ("/abi/enums", test_enums);
  g_test_add_func ("/abi/descriptor", test_descriptor);
  g_test_add_func ("/abi/vtables", test_vtables);
  g_test_add_func ("/abi/estimator-types", test_estimator_types);
  g_test_add_func ("/abi/param-spec", test_param_spec);
  g_test_add_func ("/abi/search-context", test_search_context);
  return g_test_run ();
}
