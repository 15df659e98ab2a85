/* test-estimators.c: the component estimators (ffm-estimator.h) and the
 * plugins shipped in estimators/: each against the published numbers it
 * cites, monotonicity and technology scaling, the choice of the most
 * accurate answer (with the fixture estimators of
 * tests/fixtures/plugins/estimators), compound classes, architectures
 * whose levels name classes, and the edge and tpuv4i models that scale with
 * them. */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#define PJ 1e-12
#define UM2 1e-12

static void
assert_rel (double got, double want, double tolerance)
{
  if (!(fabs (got - want) <= tolerance * fabs (want)))
    g_error ("%.17g is not within %g %% of %.17g", got, 100 * tolerance, want);
}

static void
assert_contains (const char *text, const char *needle)
{
  if (strstr (text, needle) == NULL)
    g_error ("'%s' not found in: %s", needle, text);
}

/* "a=1 b=2" as attributes. */
static FfmParamValues *
attributes (const char *text)
{
  FfmParamValues *values = ffm_param_values_new ();
  g_auto (GStrv) parts = g_strsplit (text, " ", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    if (parts[i][0] != '\0')
      g_assert_true (ffm_param_values_parse_assignment (values, parts[i], NULL));
  return values;
}

/* Asks @registry (NULL: the default one) about class @cls with @attrs. */
static gboolean
estimate_in (const FfmPluginRegistry *registry, const char *cls, const char *attrs,
             const char *action, FfmComponentEstimate *out, GError **error)
{
  g_autoptr (FfmParamValues) values = attributes (attrs);
  g_autoptr (FfmEstimateQuery) query = ffm_estimate_query_new ("C", cls, values, action);

  return ffm_plugin_registry_estimate (registry != NULL ? registry
                                                        : ffm_estimators_get_default (),
                                       query, out, error);
}

/* The energy of @action (NULL: 0) and, in @out, the rest; fails the test on
 * an error. */
static double
energy_of (const char *cls, const char *attrs, const char *action,
           FfmComponentEstimate *out)
{
  FfmComponentEstimate local;
  g_autoptr (GError) error = NULL;

  if (out == NULL)
    out = &local;
  if (!estimate_in (NULL, cls, attrs, action, out, &error))
    g_error ("%s %s %s: %s", cls, attrs, action, error->message);
  return action != NULL ? out->energy.value : 0;
}

static char *
fixture_dir (const char *name)
{
  return g_test_build_filename (G_TEST_BUILT, "fixtures", "plugins", name, NULL);
}

/* The shipped estimators plus the fixtures of folder @fixture. */
static FfmPluginRegistry *
registry_with (const char *fixture)
{
  FfmPluginRegistry *registry = ffm_plugin_registry_new ();
  g_autofree char *dir = fixture_dir (fixture);

  ffm_plugin_registry_add_dir (registry, dir);
  ffm_plugin_registry_scan (registry);
  return registry;
}

/* ---- Technology scaling ---- */

static void
test_technology_scaling (void)
{
  g_test_summary ("Stillmaker-Baas scaling: the factor Accelergy's library plug-in "
                  "prints for 45 to 32 nm (0.6593402787798331), identity, area "
                  "table entries, and energy falling with the node");
  assert_rel (ffm_technology_energy_scale (45, 32, NAN), 0.6593402787798331, 1e-12);
  g_assert_cmpfloat (ffm_technology_energy_scale (22, 22, 0.9), ==, 1.0);
  assert_rel (ffm_technology_area_scale (45, 7), 0.059, 1e-12);
  assert_rel (ffm_technology_area_scale (7, 130), 110, 1e-12);
  assert_rel (ffm_technology_area_scale (45, 45), 1, 1e-12);
  {
    static const double nodes[] = { 130, 90, 65, 45, 32, 22, 16, 14, 10, 7 };
    for (guint i = 1; i < G_N_ELEMENTS (nodes); i++)
      {
        g_assert_cmpfloat (ffm_technology_energy_scale (45, nodes[i], NAN), <,
                           ffm_technology_energy_scale (45, nodes[i - 1], NAN));
        g_assert_cmpfloat (ffm_technology_area_scale (45, nodes[i]), <,
                           ffm_technology_area_scale (45, nodes[i - 1]));
      }
  }
}

/* ---- Each estimator against its sources ---- */

static void
test_aladdin (void)
{
  FfmComponentEstimate e;

  g_test_summary ("aladdin: the 45 nm Aladdin table rows (adder 0.21 pJ, 278 um^2, "
                  "2.4 uW; multiplier 12.68 pJ, 6350 um^2; register 0.009 pJ; "
                  "comparator 0.02947 pJ, 71 um^2) and the values Accelergy's logs "
                  "print for the exercises");
  assert_rel (energy_of ("aladdin_adder", "technology=45nm", "add", &e), 0.21 * PJ, 1e-12);
  assert_rel (e.area.value, 278 * UM2, 1e-12);
  assert_rel (e.leak_power.value, 2.4e-6, 1e-12);
  g_assert_cmpstr (e.energy.estimator, ==, "aladdin");
  g_assert_cmpfloat (e.energy.accuracy, ==, 70);
  /* Accelergy's log: aladdin_adder(width=16, 32nm).read = 0.06923072927188248 pJ */
  assert_rel (energy_of ("aladdin_adder", "width=16 technology=32nm", "read", NULL),
              0.06923072927188248 * PJ, 1e-12);
  assert_rel (energy_of ("aladdin_multiplier", "technology=45", "multiply", &e),
              12.68 * PJ, 1e-12);
  assert_rel (e.area.value, 6350 * UM2, 1e-12);
  /* Accelergy's log (the 2024 tutorial's intmac): aladdin_multiplier(width=8,
   * 45nm).multiply: "scaled 0.25x", 3.17 pJ; width_a and width_b scale too. */
  assert_rel (energy_of ("aladdin_multiplier", "width=8 technology=45nm", "multiply",
                         NULL), 3.17 * PJ, 1e-12);
  assert_rel (energy_of ("aladdin_multiplier", "width_a=8 width_b=16 technology=45nm",
                         "multiply", NULL), 12.68 * PJ / 8, 1e-12);
  assert_rel (energy_of ("aladdin_register", "technology=45nm", "read", &e), 0.009 * PJ,
              1e-12);
  assert_rel (e.area.value, 5.98 * UM2, 1e-12);
  g_assert_cmpfloat (energy_of ("aladdin_register", "technology=45nm", "write", NULL),
                     ==, 0);
  /* The table's reading: a comparator's n_bits does not scale it. */
  assert_rel (energy_of ("aladdin_comparator", "n_bits=6 technology=32nm", "compare",
                         &e), 0.019430758015641682 * PJ, 1e-12);
  assert_rel (e.leak_power.value, 1.654944099737381e-05 * PJ / 1e-9, 1e-9);
  /* The generic classes scale with the bits. */
  assert_rel (energy_of ("comparator", "n_bits=8 technology=45nm", "compare", NULL),
              0.02947 * PJ / 4, 1e-12);
  assert_rel (energy_of ("register", "n_bits=8 technology=45nm", "write", NULL),
              8 * 0.009 * PJ, 1e-12);
  /* intmac 8 x 8 + 16: 12.68 x 64/1024 + 0.21 x 16/32 pJ. */
  assert_rel (energy_of ("intmac", "multiplier_width=8 technology=45nm", "compute", NULL),
              (12.68 * 64 / 1024 + 0.105) * PJ, 1e-12);
}

static void
test_horowitz (void)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autoptr (GPtrArray) answers = NULL;
  g_autoptr (FfmParamValues) values = attributes ("n_bits=8 technology=45nm");
  g_autoptr (FfmEstimateQuery) query = ffm_estimate_query_new ("C", "intadder", values,
                                                               "add");
  FfmComponentEstimate e;

  g_test_summary ("horowitz: Horowitz's ISSCC 2014 45 nm table (8 and 32-bit integer "
                  "add and multiply, 16 and 32-bit floating point) at its own widths");
  assert_rel (energy_of ("fpadder", "datawidth=32 technology=45nm", "add", &e),
              0.9 * PJ, 1e-12);
  assert_rel (e.area.value, 4184 * UM2, 1e-12);
  g_assert_true (isnan (e.leak_power.value));
  assert_rel (energy_of ("fpadder", "exponent=8 mantissa=24 technology=45nm", "add",
                         NULL), 0.9 * PJ, 1e-12);
  assert_rel (energy_of ("fpmultiplier", "datawidth=16 technology=45nm", "multiply",
                         &e), 1.1 * PJ, 1e-12);
  assert_rel (e.area.value, 1640 * UM2, 1e-12);
  assert_rel (energy_of ("fpmultiplier", "datawidth=32 technology=45nm", "multiply",
                         NULL), 3.7 * PJ, 1e-12);
  assert_rel (energy_of ("fpmac", "datawidth=16 technology=45nm", "compute", NULL),
              1.5 * PJ, 1e-12);
  /* The integer classes: aladdin (70 %) wins, horowitz answers too. */
  ffm_plugin_registry_scan (registry);
  answers = ffm_plugin_registry_estimator_answers (registry, query);
  for (guint i = 0; i < answers->len; i++)
    {
      const FfmEstimatorAnswer *a = answers->pdata[i];
      if (strcmp (a->estimator, "horowitz") == 0)
        {
          g_assert_no_error (a->error);
          assert_rel (a->estimate.energy, 0.03 * PJ, 1e-12);
          assert_rel (a->estimate.area, 36 * UM2, 1e-12);
          g_assert_cmpfloat (a->estimate.accuracy, ==, 60);
        }
    }
  g_assert_cmpstr ((energy_of ("intadder", "n_bits=8 technology=45nm", "add", &e),
                    e.energy.estimator), ==, "aladdin");
  {
    g_autoptr (FfmParamValues) v32 = attributes ("n_bits=32 technology=45nm");
    g_autoptr (FfmEstimateQuery) q32 = ffm_estimate_query_new ("C", "intmultiplier",
                                                               v32, "multiply");
    g_autoptr (GPtrArray) a32 = ffm_plugin_registry_estimator_answers (registry, q32);
    gboolean seen = FALSE;
    for (guint i = 0; i < a32->len; i++)
      {
        const FfmEstimatorAnswer *a = a32->pdata[i];
        if (strcmp (a->estimator, "horowitz") == 0)
          {
            assert_rel (a->estimate.energy, 3.1 * PJ, 1e-12);
            assert_rel (a->estimate.area, 3495 * UM2, 1e-12);
            seen = TRUE;
          }
      }
    g_assert_true (seen);
  }
}

static void
test_dram (void)
{
  FfmComponentEstimate e;

  g_test_summary ("dram: published energies per bit (LPDDR4 8, HBM2 3.9, GDDR6 7.5 "
                  "pJ/bit; DDR4 derived 44.8) and JEDEC bandwidths (25.6, 256, 64 "
                  "GB/s)");
  /* The exercises' ERTs: 512 pJ per 64-bit LPDDR4 access. */
  assert_rel (energy_of ("DRAM", "type=LPDDR4 width=64", "read", &e), 512 * PJ, 1e-12);
  assert_rel (e.bandwidth.value, 25.6e9 * 8, 1e-12);
  g_assert_cmpfloat (e.action_bits.value, ==, 64);
  g_assert_cmpfloat (e.area.value, ==, 0);
  assert_rel (energy_of ("DRAM", "type=HBM2", "write", &e), 3.9 * 1024 * PJ, 1e-12);
  assert_rel (e.bandwidth.value, 256e9 * 8, 1e-12);
  assert_rel (energy_of ("DRAM", "type=GDDR6", "read", &e), 7.5 * 32 * PJ, 1e-12);
  assert_rel (e.bandwidth.value, 64e9 * 8, 1e-12);
  assert_rel (energy_of ("DRAM", "type=ddr4 width=1", "read", &e), 44.8 * PJ, 1e-12);
  g_assert_cmpfloat (e.energy.accuracy, ==, 50);
  assert_rel (energy_of ("DRAM", "", "read", NULL), 512 * PJ, 1e-12);
}

static void
test_wire (void)
{
  g_test_summary ("wire: 0.5 x 0.2 pF/mm x (0.8 V)^2 = 0.064 pJ per bit per mm");
  assert_rel (energy_of ("wire", "", "transfer", NULL), 0.064 * PJ, 1e-12);
  assert_rel (energy_of ("wire", "width=64 length_mm=2", "transfer", NULL),
              64 * 2 * 0.064 * PJ, 1e-12);
  assert_rel (energy_of ("noc_link", "width=32 length_mm=0.5 hops=3", "transfer", NULL),
              32 * 1.5 * 0.064 * PJ, 1e-12);
}

static void
test_sram_grid_points (void)
{
  FfmComponentEstimate e;

  g_test_summary ("sram: at a grid point the numbers are CACTI's (64 b x 16384 at "
                  "32 nm: 18.1554 pJ read, 14.1095 pJ write, 5.64529 uW, "
                  "0.217281 mm^2, as the eyeriss_like ERT)");
  assert_rel (energy_of ("SRAM", "width=64 depth=16384 technology=32nm", "read", &e),
              18.1554 * PJ, 1e-5);
  assert_rel (e.leak_power.value, 5.64529e-6, 1e-5);
  assert_rel (e.area.value, 0.217281e-6, 1e-5);
  g_assert_cmpfloat (e.action_bits.value, ==, 64);
  /* Bandwidth: 64 bits per 1.3014 ns random cycle. */
  assert_rel (e.bandwidth.value, 64 / 1.3014e-9, 1e-5);
  assert_rel (energy_of ("SRAM", "width=64 depth=16384 technology=32nm", "write", NULL),
              14.1095 * PJ, 1e-5);
  /* The depth may come as a size in bits. */
  assert_rel (energy_of ("SRAM", "width=64 size=1048576 technology=32nm", "read", NULL),
              18.1554 * PJ, 1e-5);
}

static void
test_sram_parts (void)
{
  double sram, smart, adder;

  g_test_summary ("smartbuffer_SRAM = SRAM + one address generator (intadder of "
                  "ceil(log2 depth) bits) per access; regfile = registers + "
                  "comparators");
  sram = energy_of ("SRAM", "width=64 depth=16384 technology=32nm", "read", NULL);
  smart = energy_of ("smartbuffer_SRAM", "width=64 depth=16384 technology=32nm", "read",
                     NULL);
  adder = energy_of ("intadder", "n_bits=14 technology=32nm", "add", NULL);
  assert_rel (smart, sram + adder, 1e-12);
  assert_rel (energy_of ("regfile", "width=16 depth=12 technology=45nm", "read", NULL),
              16 * energy_of ("register", "n_bits=1 technology=45nm", "read", NULL)
              + 12 * energy_of ("comparator", "n_bits=4 technology=45nm", "compare", NULL),
              1e-12);
  g_assert_cmpfloat (energy_of ("smartbuffer_RF", "width=16 depth=12 technology=45nm",
                                "read", NULL), >, 0);
}

static void
test_sram_monotone (void)
{
  static const double widths[] = { 32, 256, 1024 };
  static const char *const nodes[] = { "65nm", "45nm", "22nm", "7nm" };

  g_test_summary ("sram: read energy, leakage and area grow with capacity (1 KiB to "
                  "128 MiB) at every width and node; energies fall with the node");
  for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
    for (guint n = 0; n < G_N_ELEMENTS (nodes); n++)
      {
        double last_read = 0, last_leak = 0, last_area = 0;
        for (double bytes = 1024; bytes <= 128.0 * 1024 * 1024; bytes *= 1.25)
          {
            g_autofree char *attrs = g_strdup_printf ("width=%g depth=%.17g "
                                                      "technology=%s", widths[w],
                                                      ceil (bytes * 8 / widths[w]),
                                                      nodes[n]);
            FfmComponentEstimate e;
            double read = energy_of ("SRAM", attrs, "read", &e);
            if (!(read >= last_read && e.leak_power.value >= last_leak
                  && e.area.value >= last_area))
              g_error ("not monotone at %s: read %g (before %g), leak %g (%g), area %g "
                       "(%g)", attrs, read, last_read, e.leak_power.value, last_leak,
                       e.area.value, last_area);
            last_read = read;
            last_leak = e.leak_power.value;
            last_area = e.area.value;
          }
      }
  for (guint n = 1; n < G_N_ELEMENTS (nodes); n++)
    {
      g_autofree char *a = g_strdup_printf ("width=256 depth=4096 technology=%s",
                                            nodes[n - 1]);
      g_autofree char *b = g_strdup_printf ("width=256 depth=4096 technology=%s",
                                            nodes[n]);
      g_assert_cmpfloat (energy_of ("SRAM", b, "read", NULL), <,
                         energy_of ("SRAM", a, "read", NULL));
      g_assert_cmpfloat (energy_of ("SRAM", b, "write", NULL), <,
                         energy_of ("SRAM", a, "write", NULL));
    }
}

/* ---- Choosing among estimators ---- */

static void
test_most_accurate_wins (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_with ("estimators");
  g_autoptr (FfmPluginRegistry) coarse_only = ffm_plugin_registry_new ();
  g_autoptr (FfmParamValues) values = attributes ("width=64 depth=1024 technology=45nm");
  g_autoptr (FfmEstimateQuery) query = ffm_estimate_query_new ("GLB", "SRAM", values,
                                                               "read");
  g_autoptr (GPtrArray) answers = NULL;
  g_autoptr (GError) error = NULL;
  FfmComponentEstimate e;
  g_autofree char *dir = fixture_dir ("estimators");

  g_test_summary ("With a 10 % fixture estimator of SRAM loaded first, the energy "
                  "comes from sram (70 %), the area from a 99 % area-only fixture, "
                  "and each number says who gave it; alone, the fixture answers");
  g_assert_true (ffm_plugin_registry_estimate (registry, query, &e, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (e.energy.estimator, ==, "sram");
  g_assert_cmpfloat (e.energy.accuracy, ==, 70);
  g_assert_cmpfloat (e.energy.value, <, 1e-9);
  g_assert_cmpstr (e.area.estimator, ==, "areaonly");
  g_assert_cmpfloat (e.area.value, ==, 2);
  g_assert_cmpstr (e.leak_power.estimator, ==, "sram");

  answers = ffm_plugin_registry_estimator_answers (registry, query);
  g_assert_cmpuint (answers->len, ==, 3);
  {
    gboolean coarse = FALSE;
    for (guint i = 0; i < answers->len; i++)
      {
        const FfmEstimatorAnswer *a = answers->pdata[i];
        if (strcmp (a->estimator, "coarse") == 0)
          {
            coarse = TRUE;
            g_assert_cmpfloat (a->estimate.energy, ==, 1);
            g_assert_cmpfloat (a->estimate.accuracy, ==, 10);
            g_assert_cmpstr (a->estimate.note, ==, "a coarse fixture");
          }
      }
    g_assert_true (coarse);
  }

  /* Only the fixture: it is the most accurate there is. */
  {
    g_autofree char *system = g_strdup (g_getenv ("FFM_PLUGIN_SYSTEM_PATH"));
    g_setenv ("FFM_PLUGIN_SYSTEM_PATH", "", TRUE);
    ffm_plugin_registry_add_dir (coarse_only, dir);
    ffm_plugin_registry_scan (coarse_only);
    if (system != NULL)
      g_setenv ("FFM_PLUGIN_SYSTEM_PATH", system, TRUE);
    else
      g_unsetenv ("FFM_PLUGIN_SYSTEM_PATH");
  }
  g_assert_true (ffm_plugin_registry_estimate (coarse_only, query, &e, &error));
  g_assert_cmpfloat (e.energy.value, ==, 1);
  g_assert_cmpstr (e.energy.estimator, ==, "coarse");
}

static void
test_parts_and_loops (void)
{
  g_autoptr (FfmPluginRegistry) registry = registry_with ("estimators");
  g_autoptr (GError) error = NULL;
  FfmComponentEstimate e;

  g_test_summary ("An estimator's parts go to the registry that asked (the fixture "
                  "whole = 2 parts of a class only the fixture knows); a class "
                  "containing itself stops at the nesting limit with an error");
  g_assert_true (estimate_in (registry, "fixture_whole", "n_bits=4", "read", &e, &error));
  g_assert_no_error (error);
  assert_rel (e.energy.value, 8e-15, 1e-12);
  g_assert_false (estimate_in (registry, "fixture_loop", "", "read", &e, &error));
  g_assert_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_INVALID);
  assert_contains (error->message, "nested more than 16 deep");
}

static void
test_errors (void)
{
  g_autoptr (FfmPluginRegistry) broken = ffm_plugin_registry_new ();
  g_autofree char *dir = fixture_dir ("estimators-broken");
  const GPtrArray *failures;
  static const struct {
    const char *cls, *attrs, *action;
    int code;
    const char *message;
  } cases[] = {
    { "SRAMM", "", "read", FFM_ESTIMATOR_ERROR_UNKNOWN_CLASS,
      "component C: unknown component class 'SRAMM' (known classes: " },
    { "SRAM", "width=64 depth=64 technology=45nm", "erase",
      FFM_ESTIMATOR_ERROR_UNKNOWN_ACTION,
      "component C (class SRAM): no estimator gives the energy of action 'erase' "
      "(actions: read, write, update; sram: no action 'erase')" },
    { "SRAM", "depth=64 technology=45nm", "read", FFM_ESTIMATOR_ERROR_ATTRIBUTE,
      "component C (class SRAM): attribute width or datawidth: missing" },
    { "SRAM", "width=0 depth=64 technology=45nm", "read", FFM_ESTIMATOR_ERROR_ATTRIBUTE,
      "component C (class SRAM): attribute width: 0 is outside [1, 65536]" },
    { "SRAM", "width=64 depth=-5 technology=45nm", "read", FFM_ESTIMATOR_ERROR_ATTRIBUTE,
      "attribute depth: -5 is outside" },
    { "SRAM", "width=64 depth=1e15 technology=45nm", "read",
      FFM_ESTIMATOR_ERROR_ATTRIBUTE, "attribute depth: 1e+15 is outside" },
    { "SRAM", "width=64 depth=1e9 technology=45nm", "read",
      FFM_ESTIMATOR_ERROR_ATTRIBUTE, "more than the 1.07374e+09 bytes (1 GiB)" },
    { "SRAM", "width=64 depth=64 technology=3nm", "read", FFM_ESTIMATOR_ERROR_ATTRIBUTE,
      "attribute technology: 3nm is outside the 7-130 nm this class is modelled for" },
    { "SRAM", "width=64 depth=64 technology=banana", "read",
      FFM_ESTIMATOR_ERROR_ATTRIBUTE, "expected a node such as 45nm, got 'banana'" },
    { "SRAM", "width=wide depth=64 technology=45nm", "read",
      FFM_ESTIMATOR_ERROR_ATTRIBUTE, "attribute width: expected a number, got 'wide'" },
    { "DRAM", "type=SDR", "read", FFM_ESTIMATOR_ERROR_ATTRIBUTE,
      "attribute type: unknown DRAM type 'SDR' (known: LPDDR4, DDR4, HBM2, GDDR6" },
    { "intadder", "technology=45nm", "add", FFM_ESTIMATOR_ERROR_ATTRIBUTE,
      "attribute n_bits or width or precision or datawidth: missing" },
  };

  g_test_summary ("Unknown classes and actions, and zero, negative, huge, missing and "
                  "unreadable attributes, are errors naming the component, the class "
                  "and the attribute; broken estimator plugins are refused");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      FfmComponentEstimate e;
      g_assert_false (estimate_in (NULL, cases[i].cls, cases[i].attrs, cases[i].action,
                                   &e, &error));
      g_assert_error (error, FFM_ESTIMATOR_ERROR, cases[i].code);
      assert_contains (error->message, cases[i].message);
    }

  ffm_plugin_registry_add_dir (broken, dir);
  ffm_plugin_registry_scan (broken);
  failures = ffm_plugin_registry_get_failures (broken);
  {
    static const char *const expected[] = {
      "component class name 'bad class' is not [A-Za-z0-9_]+",
      "the estimator lists no component class",
      "the function table has no estimate function",
      "an estimator built for plugin ABI 2.2 (estimators need ABI 2.3 or later)",
    };
    g_assert_cmpuint (failures->len, ==, G_N_ELEMENTS (expected));
    for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
      assert_contains (((const GError *) failures->pdata[i])->message, expected[i]);
  }
  {
    g_autoptr (GError) error = NULL;
    FfmComponentEstimate e;
    g_assert_false (estimate_in (broken, "broken_class", "", "read", &e, &error));
    g_assert_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_INVALID);
    assert_contains (error->message, "estimator nonsense answered energy = -1 (must be "
                     "finite and >= 0)");
  }
}

/* ---- Compound classes ---- */

static char *
data_file (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "estimators", name, NULL);
}

static void
test_compound (void)
{
  g_autoptr (FfmComponentLibrary) library = ffm_component_library_new (NULL);
  g_autofree char *path = data_file ("buffers.yaml");
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmParamValues) values = attributes ("width=64 depth=1024 technology=45nm");
  g_auto (GStrv) actions = NULL;
  FfmComponentEstimate e;
  double sram_read, sram_write, adder, adder_area, sram_area;

  g_test_summary ("Accelergy compound classes: defaults in order (Python if/else), "
                  "copies, energy_scale, area_scale, merge keys; sums of the parts");
  g_assert_true (ffm_component_library_load_file (library, path, &error));
  g_assert_no_error (error);
  g_assert_true (ffm_component_library_has_class (library, "test_buffer"));
  actions = ffm_component_library_list_actions (library, "test_buffer");
  g_assert_cmpuint (g_strv_length (actions), ==, 3);   /* write, read, update */

  sram_read = energy_of ("SRAM", "width=64 depth=1024 n_banks=1 technology=45nm", "read",
                         NULL);
  sram_write = energy_of ("SRAM", "width=64 depth=1024 technology=45nm", "write", &e);
  sram_area = e.area.value;
  adder = energy_of ("intadder", "n_bits=10 technology=45nm", "add", &e);
  adder_area = e.area.value;

#define ASK(action) \
  { g_autoptr (FfmEstimateQuery) q = ffm_estimate_query_new ("B", "test_buffer", \
                                                             values, action); \
    g_assert_true (ffm_component_library_estimate (library, q, &e, &error)); \
    g_assert_no_error (error); }
  ASK ("read");
  assert_rel (e.energy.value, sram_read + 2 * adder, 1e-12);
  g_assert_cmpstr (e.energy.estimator, ==, "compound test_buffer");
  assert_rel (e.area.value, sram_area + 2 * 0.5 * adder_area, 1e-12);
  ASK ("update");
  assert_rel (e.energy.value, sram_write + adder, 1e-12);
  ASK ("leak");
  g_assert_cmpfloat (e.energy.value, >, 0);
#undef ASK

  {
    g_autoptr (FfmParamValues) rows = attributes ("rows=2 technology=45nm");
    g_autoptr (FfmEstimateQuery) q = ffm_estimate_query_new ("R", "test_rows", rows,
                                                             "read");
    double cell;
    g_assert_true (ffm_component_library_estimate (library, q, &e, &error));
    FfmComponentEstimate c;
    cell = energy_of ("register", "n_bits=1 technology=45nm", "read", &c);
    assert_rel (e.energy.value, 8 * cell, 1e-12);
    assert_rel (e.area.value, 16 * c.area.value, 1e-12);
  }

  /* a subcomponent's attribute may name an earlier one of its own
   * (Accelergy's fpmac in the Timeloop exercises: exponent: 8, mantissa:
   * adder_width - exponent); the compound's attributes come first */
  {
    g_autoptr (FfmComponentLibrary) fp = ffm_component_library_new (NULL);
    g_autoptr (FfmParamValues) mac = attributes ("adder_width=32 technology=45nm");
    g_autoptr (FfmEstimateQuery) q = ffm_estimate_query_new ("M", "test_fpmac", mac, "compute");
    double add;
    g_assert_true (ffm_component_library_load_data (fp,
      "compound_components:\n  version: 0.4\n  classes:\n"
      "  - name: test_fpmac\n"
      "    attributes: {technology: must_specify, adder_width: must_specify}\n"
      "    subcomponents:\n"
      "    - {name: a, class: fpadder, attributes: {exponent: 8, "
      "mantissa: adder_width - exponent, technology: technology}}\n"
      "    actions:\n"
      "    - {name: compute, subcomponents: [{name: a, actions: [{name: add}]}]}\n",
      "fp.yaml", &error));
    g_assert_no_error (error);
    g_assert_true (ffm_component_library_estimate (fp, q, &e, &error));
    g_assert_no_error (error);
    add = energy_of ("fpadder", "exponent=8 mantissa=24 technology=45nm", "add", NULL);
    assert_rel (e.energy.value, add, 1e-12);
  }
}

static void
test_compound_errors (void)
{
  static const struct {
    const char *yaml;
    const char *message;
  } cases[] = {
    { "a: [", "x.yaml:2:1: YAML syntax error" },
    { "a: 1\n", "x.yaml:1: $: no compound_components" },
    { "compound_components: {version: 0.9}\n", "unsupported version 0.9" },
    { "compound_components:\n  classes:\n  - {name: k, actions: [{name: r, "
      "subcomponents: [{name: nope, actions: [{name: read}]}]}]}\n",
      "action r names subcomponent nope, which class k does not declare" },
    { "compound_components:\n  classes:\n  - {name: k}\n  - {name: k}\n",
      "class k is already defined (x.yaml:3)" },
    { "compound_components:\n  classes:\n  - {name: k, colour: red}\n",
      "unknown key 'colour'" },
    { "compound_components:\n  classes:\n  - {name: k, subcomponents: [{name: a}]}\n",
      "missing \"class\"" },
  };

  g_test_summary ("Broken component files are errors naming the file, the line and "
                  "the cause; nothing of a broken file is kept");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (FfmComponentLibrary) library = ffm_component_library_new (NULL);
      g_autoptr (GError) error = NULL;
      g_assert_false (ffm_component_library_load_data (library, cases[i].yaml, "x.yaml",
                                                       &error));
      g_assert_nonnull (error);
      assert_contains (error->message, cases[i].message);
      g_assert_false (ffm_component_library_has_class (library, "k"));
    }

  {
    g_autoptr (FfmComponentLibrary) library = ffm_component_library_new (NULL);
    g_autofree char *path = data_file ("buffers.yaml");
    g_autofree char *loop = data_file ("loop.yaml");
    g_autoptr (FfmParamValues) values = attributes ("depth=1024 technology=45nm");
    g_autoptr (FfmEstimateQuery) q = ffm_estimate_query_new ("B", "test_buffer", values,
                                                             "read");
    g_autoptr (FfmEstimateQuery) l = ffm_estimate_query_new ("L", "test_loop", NULL,
                                                             "read");
    g_autoptr (GError) error = NULL;
    FfmComponentEstimate e;

    g_assert_true (ffm_component_library_load_file (library, path, &error));
    g_assert_true (ffm_component_library_load_file (library, loop, &error));
    g_assert_false (ffm_component_library_estimate (library, q, &e, &error));
    assert_contains (error->message, "component B (class test_buffer): attribute width: "
                     "missing (class test_buffer needs it");
    g_clear_error (&error);
    g_assert_false (ffm_component_library_estimate (library, l, &e, &error));
    assert_contains (error->message, "nested more than 16 deep");
    g_clear_error (&error);
    g_assert_false (ffm_component_library_load_file (library, path, &error));
    assert_contains (error->message, "class test_buffer is already defined");
  }
}

/* ---- Architectures ---- */

static const char estimated_arch[] =
  "{ \"ffm_architecture\": 1, \"name\": \"est\",\n"
  "  \"parameters\": { \"glb_kib\": { \"default\": 64, \"help\": \"KiB\" } },\n"
  "  \"levels\": [\n"
  "    { \"memory\": \"DRAM\", \"class\": \"DRAM\", \"attributes\": { \"type\": \"LPDDR4\" },\n"
  "      \"size\": \"inf\", \"keep\": \"~intermediates\", \"may_keep\": \"all\" },\n"
  "    { \"memory\": \"GLB\", \"class\": \"SRAM\",\n"
  "      \"attributes\": { \"width\": 64, \"technology\": \"45nm\" },\n"
  "      \"size\": \"glb_kib * 8192\", \"keep\": \"~DRAM\", \"may_keep\": \"all\",\n"
  "      \"write_energy\": \"2 * GLB.write_energy\" },\n"
  "    { \"compute\": \"MAC\", \"class\": \"intmac\",\n"
  "      \"attributes\": { \"multiplier_width\": 8, \"technology\": \"45nm\" },\n"
  "      \"throughput\": 1e9, \"area\": \"MAC.area + GLB.area\" } ] }\n";

static void
test_arch_classes (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = ffm_arch_load_from_data (estimated_arch, "est.json", NULL,
                                                      &error);
  g_autoptr (FfmArch) again = NULL;
  g_autofree char *json = NULL;
  FfmComponentEstimate e;
  const FfmLevel *glb, *dram, *mac;
  double read, write, area;

  g_test_summary ("A JSON architecture whose levels give class and attributes: "
                  "energies per bit from the estimators' per-access ones, the size "
                  "as the SRAM's capacity, bandwidths, leakage, area; members "
                  "override and may use LEVEL.read_energy...; who gave what is kept "
                  "through JSON");
  g_assert_no_error (error);
  dram = ffm_arch_get_level (arch, 0);
  glb = ffm_arch_get_level (arch, 1);
  mac = ffm_arch_get_level (arch, 2);
  assert_rel (dram->u.memory.read_energy, 8 * PJ, 1e-12);
  assert_rel (dram->u.memory.read_bandwidth, 25.6e9 * 8, 1e-12);
  read = energy_of ("SRAM", "width=64 depth=8192 technology=45nm", "read", &e);
  area = e.area.value;
  write = energy_of ("SRAM", "width=64 depth=8192 technology=45nm", "write", NULL);
  assert_rel (glb->u.memory.read_energy, read / 64, 1e-12);
  assert_rel (glb->u.memory.write_energy, 2 * write / 64, 1e-12);
  assert_rel (glb->leak_power, e.leak_power.value, 1e-12);
  assert_rel (glb->area, area, 1e-12);
  assert_rel (glb->u.memory.read_bandwidth, e.bandwidth.value, 1e-12);
  g_assert_cmpstr (glb->estimated_by, ==, "read_energy: sram 70 %; read_bandwidth, "
                   "write_bandwidth: sram 70 %; leak_power: sram 70 %; area: sram 70 %");
  assert_rel (mac->u.compute.energy, (12.68 * 64 / 1024 + 0.105) * PJ, 1e-12);
  assert_rel (mac->area, area + energy_of ("intmac", "multiplier_width=8 "
                                           "technology=45nm", NULL, &e) + e.area.value,
              1e-12);
  assert_contains (mac->estimated_by, "energy: aladdin 70 %");

  json = ffm_arch_to_json (arch);
  again = ffm_arch_load_from_data (json, "again.json", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_arch_get_level (again, 1)->estimated_by, ==, glb->estimated_by);
  g_assert_cmpfloat (ffm_arch_get_level (again, 1)->u.memory.read_energy, ==,
                     glb->u.memory.read_energy);
}

static void
test_arch_class_errors (void)
{
  static const struct {
    const char *level;
    const char *message;
  } cases[] = {
    { "{ \"memory\": \"G\", \"size\": 1024, \"attributes\": { \"width\": 8 } }",
      "e.json:3: $.levels[0]: \"attributes\" describe a component class: give "
      "\"class\" too" },
    { "{ \"memory\": \"G\", \"size\": 1024, \"class\": \"SRAMM\" }",
      "e.json:3: $.levels[0].class: component G: unknown component class 'SRAMM'" },
    { "{ \"memory\": \"G\", \"size\": 1024, \"class\": \"SRAM\", \"attributes\": "
      "{ \"width\": -8, \"technology\": 45 } }",
      "$.levels[0].class: component G (class SRAM): attribute width: -8 is outside" },
    { "{ \"memory\": \"G\", \"size\": 1024, \"class\": \"SRAM\", \"attributes\": "
      "{ \"width\": \"8 * nope\" } }",
      "$.levels[0].attributes.width: unknown name 'nope'" },
    { "{ \"compute\": \"M\", \"class\": \"intadder\", \"attributes\": { \"n_bits\": 8, "
      "\"technology\": 45 } }",
      "component M (class intadder): no estimator gives the energy of action "
      "'compute' (actions: add, read; " },
  };

  g_test_summary ("Wrong classes and attributes in an architecture file are errors "
                  "at the file's line, naming the level and the attribute");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "{ \"ffm_architecture\": 1, \"name\": \"e\",\n  \"levels\": [\n    %s,\n"
        "    { \"compute\": \"X\", \"energy\": 0, \"throughput\": 1 } ] }\n",
        cases[i].level);
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmArch) arch = ffm_arch_load_from_data (text, "e.json", NULL, &error);
      g_assert_null (arch);
      g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID);
      assert_contains (error->message, cases[i].message);
    }
}

/* ---- The models that scale ---- */

static FfmArch *
build (const char *name, const char *const *settings)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  FfmArch *arch;

  ffm_plugin_registry_scan (registry);
  for (guint i = 0; settings != NULL && settings[i] != NULL; i++)
    g_assert_true (ffm_param_values_parse_assignment (values, settings[i], NULL));
  arch = ffm_plugin_registry_build_arch (registry, name, values, &error);
  g_assert_no_error (error);
  return arch;
}

static const FfmLevel *
level (const FfmArch *arch, const char *name)
{
  int index = ffm_arch_find_level (arch, name);

  g_assert_cmpint (index, >=, 0);
  return ffm_arch_get_level (arch, (guint) index);
}

static void
test_edge_scales (void)
{
  static const char *const sizes[] = { "glb_mib=1", "glb_mib=5", "glb_mib=40" };
  double last_read = 0, last_write = 0, last_leak = 0, last_area = 0;

  g_test_summary ("edge: at the published 5 MiB and 7 nm the global buffer has "
                  "exactly its published numbers; 1, 5 and 40 MiB give growing "
                  "energies, leakage and area; a larger node costs more");
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      const char *settings[] = { sizes[i], NULL };
      g_autoptr (FfmArch) arch = build ("edge", settings);
      const FfmLevel *glb = level (arch, "GlobalBuffer");
      if (i == 1)
        {
          g_assert_cmpfloat (glb->u.memory.read_energy, ==, 0.314 * PJ);
          g_assert_cmpfloat (glb->u.memory.write_energy, ==, 0.342 * PJ);
          g_assert_cmpfloat (glb->leak_power, ==, 0.47e-3);
          g_assert_cmpfloat (glb->area, ==, 1.61e-6);
        }
      g_assert_cmpfloat (glb->u.memory.read_energy, >, last_read);
      g_assert_cmpfloat (glb->u.memory.write_energy, >, last_write);
      g_assert_cmpfloat (glb->leak_power, >, last_leak);
      g_assert_cmpfloat (glb->area, >, last_area);
      g_assert_nonnull (glb->estimated_by);
      last_read = glb->u.memory.read_energy;
      last_write = glb->u.memory.write_energy;
      last_leak = glb->leak_power;
      last_area = glb->area;
      g_assert_cmpfloat (level (arch, "Register")->area, >, 0);
      g_assert_cmpfloat (level (arch, "Register")->u.memory.read_energy, ==, 0);
    }
  {
    const char *settings[] = { "technology_nm=22", NULL };
    g_autoptr (FfmArch) arch = build ("edge", settings);
    g_assert_cmpfloat (level (arch, "GlobalBuffer")->u.memory.read_energy, >,
                       0.314 * PJ);
  }
}

static void
test_tpuv4i_scales (void)
{
  g_autoptr (FfmArch) published = build ("tpuv4i", NULL);
  const char *settings[] = { "glb_mib=32", "lb_mib=8", "weight_bits=16", NULL };
  g_autoptr (FfmArch) changed = build ("tpuv4i", settings);

  g_test_summary ("tpuv4i: the published numbers at 128 MiB and 4 MiB; a smaller "
                  "global buffer costs less, a larger local buffer more; no leakage "
                  "either way (the reference gives none)");
  g_assert_cmpfloat (level (published, "GlobalBuffer")->u.memory.read_energy, ==,
                     1.88 * PJ);
  g_assert_cmpfloat (level (published, "LocalBuffer")->u.memory.write_energy, ==,
                     0.293 * PJ);
  g_assert_cmpfloat (level (published, "GlobalBuffer")->area, ==, 112e-6);
  g_assert_cmpfloat (level (published, "Register")->area, ==, 8.5e-11);
  g_assert_cmpfloat (level (changed, "GlobalBuffer")->u.memory.read_energy, <,
                     1.88 * PJ);
  g_assert_cmpfloat (level (changed, "GlobalBuffer")->area, <, 112e-6);
  g_assert_cmpfloat (level (changed, "LocalBuffer")->u.memory.read_energy, >,
                     0.249 * PJ);
  g_assert_cmpfloat (level (changed, "Register")->area, >, 8.5e-11);
  g_assert_cmpfloat (level (changed, "GlobalBuffer")->leak_power, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/estimators/technology-scaling", test_technology_scaling);
  g_test_add_func ("/estimators/aladdin", test_aladdin);
  g_test_add_func ("/estimators/horowitz", test_horowitz);
  g_test_add_func ("/estimators/dram", test_dram);
  g_test_add_func ("/estimators/wire", test_wire);
  g_test_add_func ("/estimators/sram/grid-points", test_sram_grid_points);
  g_test_add_func ("/estimators/sram/parts", test_sram_parts);
  g_test_add_func ("/estimators/sram/monotone", test_sram_monotone);
  g_test_add_func ("/estimators/choice/most-accurate-wins", test_most_accurate_wins);
  g_test_add_func ("/estimators/choice/parts-and-loops", test_parts_and_loops);
  g_test_add_func ("/estimators/choice/errors", test_errors);
  g_test_add_func ("/estimators/compound/sums", test_compound);
  g_test_add_func ("/estimators/compound/errors", test_compound_errors);
  g_test_add_func ("/estimators/arch/classes", test_arch_classes);
  g_test_add_func ("/estimators/arch/class-errors", test_arch_class_errors);
  g_test_add_func ("/estimators/models/edge", test_edge_scales);
  g_test_add_func ("/estimators/models/tpuv4i", test_tpuv4i_scales);
  return g_test_run ();
}
