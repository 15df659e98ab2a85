/* fuzz-mapping.c: libFuzzer target for the mapping loader and the cost
 * model's checks of a mapping against a workload and an architecture.
 *
 * Any bytes: a mapping or an error. A mapping that loads is written back
 * and must load again to the same text, and is evaluated on a two-matmul
 * chain on the simple architecture (both from the source tree, loaded
 * once): a cost report or an error naming the node, never a crash. */
#include <ffm/ffm.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static FfmWorkload *workload;
static FfmArch *arch;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  g_autoptr (FfmParamValues) params = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;

  ffm_param_values_set (params, "m", "8");
  ffm_param_values_set (params, "kn", "4");
  workload = ffm_workload_load (FFM_FUZZ_SOURCE_ROOT "/workloads/matmuls.json",
                                params, &error);
  if (workload != NULL)
    arch = ffm_arch_load_file (FFM_FUZZ_SOURCE_ROOT
                               "/arch-models/json/architectures/simple.json",
                               NULL, &error);
  if (arch == NULL)
    {
      fprintf (stderr, "fuzz-mapping: %s\n", error->message);
      abort ();
    }
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmMapping) m = ffm_mapping_load_from_data (text, "fuzz.json", &error);
  g_autoptr (FfmMapping) back = NULL;
  g_autoptr (FfmCostReport) report = NULL;
  g_autofree char *json = NULL, *again = NULL, *tree = NULL;

  if (m == NULL)
    {
      if (error == NULL || error->message[0] == '\0')
        abort ();
      return 0;
    }
  json = ffm_mapping_to_json (m);
  back = ffm_mapping_load_from_data (json, "written.json", &error);
  if (back == NULL)
    {
      fprintf (stderr, "a loaded mapping does not load back: %s\n%s\n",
               error->message, json);
      abort ();
    }
  again = ffm_mapping_to_json (back);
  if (strcmp (json, again) != 0)
    abort ();
  tree = ffm_mapping_to_tree_string (m);
  report = ffm_cost_evaluate_mapping (workload, arch, m, &error);
  if (report == NULL && (error == NULL || error->message[0] == '\0'))
    abort ();
  if (report != NULL)
    g_free (ffm_cost_report_to_json (report));
  return 0;
}
