/* fuzz-result.c: libFuzzer target for the result-file reader (what
 * `ffm eval RESULT.json` reads first).
 *
 * Any bytes: a result (or plain mapping) file, or an error with a message.
 * A record that loads is written back with ffm_result_info_write_json()
 * and must load again, and write the same text again: the reader and the
 * writer agree on every member, digests included. */
#include <ffm/ffm.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* The record alone, as a result file without a mapping (transfer full). */
static char *
record_text (const FfmResultInfo *info)
{
  FfmJsonWriter *w = ffm_json_writer_new ();
  char *text;

  ffm_json_writer_begin_object (w);
  ffm_result_info_write_json (info, w);
  ffm_json_writer_end_object (w);
  text = ffm_json_writer_finish (w);
  ffm_json_writer_free (w);
  return text;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmResultFile) file = ffm_result_file_load_from_data (text, "fuzz.json",
                                                                    &error);
  g_autoptr (FfmResultFile) back = NULL;
  g_autofree char *written = NULL, *again = NULL;
  const FfmResultInfo *info;

  if (file == NULL)
    {
      if (error == NULL || error->message[0] == '\0')
        abort ();
      return 0;
    }
  info = ffm_result_file_get_info (file);
  if (info == NULL)
    return 0;                   /* a plain mapping: fuzz-mapping's */
  for (const char *const *k = ffm_result_info_list_digests (info); *k != NULL; k++)
    if (ffm_result_info_get_digest (info, *k) == NULL)
      abort ();
  written = record_text (info);
  back = ffm_result_file_load_from_data (written, "written.json", &error);
  if (back == NULL || ffm_result_file_get_info (back) == NULL)
    {
      fprintf (stderr, "a record that loaded does not load back: %s\n%s\n",
               error != NULL ? error->message : "no record", written);
      abort ();
    }
  again = record_text (ffm_result_file_get_info (back));
  if (strcmp (written, again) != 0)
    {
      fprintf (stderr, "written twice, two texts:\n%s\n%s\n", written, again);
      abort ();
    }
  return 0;
}
