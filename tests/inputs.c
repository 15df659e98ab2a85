/* inputs.c: the unit tests' inputs (inputs.h). */
#include "inputs.h"

#include <stdarg.h>

FfmWorkload *
inputs_load_workload (const char *file, const char *const *assignments)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  /* G_TEST_DIST is tests/; the workloads live beside it. */
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "workloads",
                                                 file, NULL);
  FfmWorkload *w;

  for (guint i = 0; assignments != NULL && assignments[i] != NULL; i++)
    g_assert_true (ffm_param_values_parse_assignment (values, assignments[i], NULL));
  w = ffm_workload_load (path, values, &error);
  g_assert_no_error (error);
  return w;
}

FfmWorkload *
inputs_load_matmuls (guint n_einsums, guint m, guint kn)
{
  g_autofree char *a = g_strdup_printf ("n_einsums=%u", n_einsums);
  g_autofree char *b = g_strdup_printf ("m=%u", m);
  g_autofree char *c = g_strdup_printf ("kn=%u", kn);
  const char *assignments[] = { a, b, c, NULL };

  return inputs_load_workload ("matmuls.json", assignments);
}

FfmArch *
inputs_load_arch (const char *file)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "arch-models",
                                                 "json", "architectures", file, NULL);
  FfmArch *a = ffm_arch_load_file (path, NULL, &error);

  g_assert_no_error (error);
  return a;
}

FfmWorkload *
inputs_workload_from_text (const char *text)
{
  g_autoptr (GError) error = NULL;
  FfmWorkload *w = ffm_workload_load_from_data (text, "test-workload", NULL, &error);

  g_assert_no_error (error);
  return w;
}

FfmArch *
inputs_arch_from_text (const char *text)
{
  g_autoptr (GError) error = NULL;
  FfmArch *a = ffm_arch_load_from_data (text, "test-arch", NULL, &error);

  g_assert_no_error (error);
  return a;
}

const char *const inputs_shipped_arch_names[] = {
  "eyeriss", "eyeriss-v1", "eyeriss-v2", "fanout-at-glb",
  "fanout-at-glb-with-fanout-node", "fanout-at-mac",
  "fanout-at-mac-with-constraints", "fanout-at-mac-with-fanout-node",
  "gemmini", "maeri-like", "nvdla", "nvdla-large", "nvdla-small",
  "shidiannao", "simba", "simple", "snowcat", "systolic-os", "systolic-ws",
  "timeloop-eyeriss-like", "timeloop-simba-like", "timeloop-simple-os",
  "timeloop-simple-ws", "tpu-v1",
  NULL
};

FfmArch *
inputs_build_arch (FfmPluginRegistry *registry, const char *arch, GError **error, ...)
{
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  const char *assignment;
  va_list ap;

  va_start (ap, error);
  while ((assignment = va_arg (ap, const char *)) != NULL)
    g_assert_true (ffm_param_values_parse_assignment (values, assignment, NULL));
  va_end (ap);
  return ffm_plugin_registry_build_arch (registry, arch, values, error);
}

const FfmLevel *
inputs_level_named (const FfmArch *arch, const char *name, FfmLevelKind kind)
{
  int index = ffm_arch_find_level (arch, name);
  const FfmLevel *level;

  g_assert_cmpint (index, >=, 0);
  level = ffm_arch_get_level (arch, (guint) index);
  g_assert_cmpint (level->kind, ==, kind);
  return level;
}
