/* fuzz-arch.c: libFuzzer target for the architecture loader.
 *
 * Any bytes: an architecture or an error, never a crash, hang or leak. An
 * architecture that loads is written back (ffm_arch_to_json()) and must
 * load again to the same text. */
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
  g_autoptr (FfmArch) arch = ffm_arch_load_from_data (text, "fuzz.json", NULL, &error);
  g_autofree char *json = NULL, *again = NULL;
  g_autoptr (FfmArch) back = NULL;

  if (arch == NULL)
    {
      if (error == NULL || error->message[0] == '\0')
        abort ();
      return 0;
    }
  json = ffm_arch_to_json (arch);
  back = ffm_arch_load_from_data (json, "written.json", NULL, &error);
  if (back == NULL)
    {
      fprintf (stderr, "a loaded architecture does not load back: %s\n%s\n",
               error->message, json);
      abort ();
    }
  again = ffm_arch_to_json (back);
  if (strcmp (json, again) != 0)
    abort ();
  return 0;
}
