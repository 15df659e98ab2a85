/* fuzz-workload.c: libFuzzer target for the workload loader.
 *
 * Any bytes: the loader returns a workload or an error, never crashes,
 * hangs or leaks. A workload that loads is written back
 * (ffm_workload_to_json()) and must load again to the same text: the
 * writer and the loader agree on every workload the loader accepts. */
#include <ffm/ffm.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmWorkload) w = ffm_workload_load_from_data (text, "fuzz.json", NULL, &error);
  g_autofree char *json = NULL, *again = NULL;
  g_autoptr (FfmWorkload) back = NULL;

  if (w == NULL)
    {
      /* Every failure says why. */
      if (error == NULL || error->message[0] == '\0')
        abort ();
      return 0;
    }
  json = ffm_workload_to_json (w);
  back = ffm_workload_load_from_data (json, "written.json", NULL, &error);
  if (back == NULL)
    {
      fprintf (stderr, "a loaded workload does not load back: %s\n%s\n",
               error->message, json);
      abort ();
    }
  again = ffm_workload_to_json (back);
  if (strcmp (json, again) != 0)
    abort ();
  return 0;
}
