/* test-pmapping-shared-setup.c: the set-up the tile search shares between
 * templates (docs/pmapping-generator.md, "Set-up shared between
 * templates"). Each template's search takes each rank variable's chains,
 * buckets and factor columns from its workspace's cache when an earlier
 * template left a set of the same key there. With
 * FFM_DEBUG=check-shared-setup every set and column so taken is built
 * afresh as well and compared bit for bit; a difference is a warning,
 * which fails the test. On shipped problems (a matmul chain, with and
 * without remainder tiles; GPT-3 6.7B on TPUv4i at one fused loop and in
 * the full space; ResNet-18's convolutions, affine indices)
 * the sets must be taken from the cache for most variables, or the check
 * checked nothing. */
#include <ffm/ffm.h>
#include "inputs.h"

/* The chain sets set up and those shared, summed over @set's Einsums. */
static void
count_sets (const FfmPmappingSet *set, guint64 *n_sets, guint64 *n_shared)
{
  *n_sets = *n_shared = 0;
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmPmappingProfile *p
        = ffm_einsum_pmappings_get_profile (ffm_pmapping_set_get_einsum (set, i));
      *n_sets += p->n_chain_sets;
      *n_shared += p->n_chain_sets_shared;
    }
}

/* Generates @w on @a with the check on, 2 threads (two workspaces, each
 * its own cache); the sets shared must be at least @min_share of all. */
static void
check_shared (FfmWorkload *w, FfmArch *a, FfmPmappingOptions *options, double min_share,
              const char *what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmPmappingSet) set = NULL;
  guint64 n_sets, n_shared;

  ffm_debug_flags_set ("check-shared-setup");
  options->n_threads = 2;
  set = ffm_pmappings_generate (w, a, options, &error);
  ffm_debug_flags_set (NULL);
  g_assert_no_error (error);
  count_sets (set, &n_sets, &n_shared);
  g_test_message ("%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                  " variables' chains shared", what, n_shared, n_sets);
  g_assert_cmpuint (n_sets, >, 0);
  g_assert_cmpfloat ((double) n_shared, >=, min_share * (double) n_sets);
}

static gboolean
have_test_hooks (void)
{
  if (ffm_debug_has_test_hooks ())
    return TRUE;
  g_test_skip ("the check needs the test hooks (meson -Dtest_hooks=enabled)");
  return FALSE;
}

static void
test_matmuls (void)
{
  const char *const params[] = { "n_einsums=3", "m=256", "kn=512", NULL };
  g_autoptr(FfmWorkload) w = NULL;
  g_autoptr(FfmArch) a = NULL;
  FfmPmappingOptions options;

  if (!have_test_hooks ())
    return;
  w = inputs_load_workload ("matmuls.json", params);
  a = inputs_load_arch ("simple.json");
  ffm_pmapping_options_init (&options);
  check_shared (w, a, &options, 0.5, "matmuls on simple");
  /* Remainder tiles: other chains, other keys. */
  ffm_pmapping_options_init (&options);
  options.imperfect = FFM_IMPERFECT_ALL;
  check_shared (w, a, &options, 0.5, "matmuls on simple, remainder tiles");
}

static void
test_gpt3 (void)
{
  g_autoptr(FfmPluginRegistry) registry = NULL;
  g_autoptr(FfmParamValues) values = ffm_param_values_new ();
  g_autoptr(FfmWorkload) w = NULL;
  g_autoptr(FfmArch) a = NULL;
  g_autoptr(GError) error = NULL;
  FfmPmappingOptions options;

  if (!have_test_hooks ())
    return;
  registry = ffm_plugin_registry_new ();
  ffm_plugin_registry_scan (registry);
  a = inputs_build_arch (registry, "tpuv4i", &error, NULL);
  g_assert_no_error (error);
  g_assert_true (ffm_param_values_parse_assignment (values, "batch=1", NULL));
  g_assert_true (ffm_param_values_parse_assignment (values, "new_tokens=256", NULL));
  w = ffm_workload_load ("gpt3-6.7b", values, &error);
  g_assert_no_error (error);
  ffm_pmapping_options_init (&options);
  options.max_fused_loops = 1;
  check_shared (w, a, &options, 0.8, "GPT-3 6.7B b1/256 on TPUv4i, one fused loop");
  ffm_pmapping_options_init (&options);
  options.einsum = ffm_workload_find_einsum (w, "QK");
  check_shared (w, a, &options, 0.8, "GPT-3 6.7B b1/256 on TPUv4i, QK, full space");
}

static void
test_convolutions (void)
{
  g_autoptr(FfmWorkload) w = NULL;
  g_autoptr(FfmArch) a = NULL;
  FfmPmappingOptions options;

  if (!have_test_hooks ())
    return;
  w = inputs_load_workload ("resnet18.json", NULL);
  a = inputs_load_arch ("simple.json");
  ffm_pmapping_options_init (&options);
  options.max_fused_loops = 1;
  check_shared (w, a, &options, 0.5, "ResNet-18 on simple, one fused loop");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pmapping-shared-setup/matmuls", test_matmuls);
  g_test_add_func ("/pmapping-shared-setup/gpt3", test_gpt3);
  g_test_add_func ("/pmapping-shared-setup/convolutions", test_convolutions);
  return g_test_run ();
}
