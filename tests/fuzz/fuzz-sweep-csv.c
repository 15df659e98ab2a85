/* fuzz-sweep-csv.c: libFuzzer target for the reader of `ffm sweep --csv`,
 * the file a sweep resumes from (cli/ffm-sweep-csv.h).
 *
 * Any bytes, as the CSV of a sweep of two axes (m = 4, 8; arch.glb = 1)
 * under two policies (ffm, unfused): the rows it resumes, or an error with
 * a message. The lines of the points it resumed, written back under the
 * header, must resume the same points again, with the same lines. */
#include "ffm-sweep-csv.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static GArray *
make_axes (void)
{
  GArray *axes = g_array_new (FALSE, TRUE, sizeof (Axis));
  Axis m = { g_strdup ("m"), FALSE, g_strsplit ("4,8", ",", -1) };
  Axis glb = { g_strdup ("glb"), TRUE, g_strsplit ("1", ",", -1) };

  g_array_set_clear_func (axes, (GDestroyNotify) ffm_sweep_axis_clear);
  g_array_append_val (axes, m);
  g_array_append_val (axes, glb);
  return axes;
}

static GPtrArray *
make_points (const GArray *axes)
{
  static const char *const policies[] = { "ffm", "unfused" };
  GPtrArray *points = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_sweep_point_free);
  const Axis *m = &g_array_index (axes, Axis, 0);

  for (guint v = 0; m->values[v] != NULL; v++)
    for (guint k = 0; k < G_N_ELEMENTS (policies); k++)
      {
        Point *p = g_new0 (Point, 1);
        p->index = points->len;
        p->policy = policies[k];
        p->values = g_new0 (char *, 3);
        p->values[0] = g_strdup (m->values[v]);
        p->values[1] = g_strdup ("1");
        p->key = ffm_sweep_point_key (p->policy, p->values);
        g_ptr_array_add (points, p);
      }
  return points;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GArray) axes = make_axes ();
  g_autoptr (GPtrArray) points = make_points (axes);
  g_autoptr (GPtrArray) again = make_points (axes);
  g_autofree char *text = g_malloc (size + 1);
  g_autofree char *header = ffm_sweep_csv_header (axes);
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) written = NULL;
  guint n = 0, n_again = 0;

  memcpy (text, data, size);
  text[size] = '\0';
  if (!ffm_sweep_rows_from_text ("fuzz.csv", text, size, axes, points, &n, &error))
    {
      if (error == NULL || error->message[0] == '\0')
        abort ();
      return 0;
    }
  if (n > points->len)
    abort ();
  written = g_string_new (header);
  g_string_append_c (written, '\n');
  for (guint i = 0; i < points->len; i++)
    {
      const Point *p = points->pdata[i];
      if (p->done)
        g_string_append_printf (written, "%s\n", p->line);
    }
  if (!ffm_sweep_rows_from_text ("written.csv", written->str, written->len, axes, again,
                                 &n_again, &error) || n_again != n)
    {
      fprintf (stderr, "resumed rows do not resume again (%u, then %u): %s\n%s\n", n,
               n_again, error != NULL ? error->message : "", written->str);
      abort ();
    }
  for (guint i = 0; i < points->len; i++)
    {
      const Point *a = points->pdata[i], *b = again->pdata[i];
      if (a->done != b->done || (a->done && strcmp (a->line, b->line) != 0))
        abort ();
    }
  return 0;
}
