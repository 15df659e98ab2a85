/* test-plot.c: the plotting module (cli/ffm-plot.h).
 *
 * Built twice: against this build's ffm-plot.c (with PLplot when meson
 * found it: files are written, in each format, and checked), and from
 * ffm-plot.c compiled without PLplot (FFM_TEST_NO_PLOT): every call says
 * clearly that this build has no plotting and writes nothing. Every kind
 * of figure is also rendered to PNG and, in a build with cairo, decoded
 * and checked not blank; FFM_TEST_PLOT_DIR=DIR keeps the PNGs there for a
 * person to look at. */
#include "ffm-plot.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#ifdef FFM_TEST_CAIRO
#include <cairo.h>
#endif

static char *
tmp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("ffm-plot-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

/* A curve with a gap and a band, and a single point. */
static gboolean
plot_lines (const char *path, GError **error)
{
  static const double x[] = { 0.1, 0.3, 1, 3, 10, 30, 100 };
  static const double y[] = { 250, 120, NAN, 40, 12, 5, 0 };
  static const double lo[] = { 200, 90, NAN, 30, 8, 2, 0 };
  static const double hi[] = { 400, 150, NAN, 60, 20, 9, 1 };
  static const double one = 1, zero = 0;
  const FfmPlotSeries series[] = {
    { "point", 1, &one, &zero, NULL, NULL, TRUE },
    { "curve", G_N_ELEMENTS (x), x, y, lo, hi, FALSE },
  };
  const FfmPlotAxes axes = { "a test", "time / reference", "% above", TRUE, FALSE, 300, 0, 0, 0 };

  return ffm_plot_lines (path, &axes, series, G_N_ELEMENTS (series), error);
}

static gboolean
plot_bars (const char *path, GError **error)
{
  static const char *const categories[] = { "a", "b", "c" };
  static const char *const components[] = { "compute", "memory" };
  static const double values[] = { 1, 2, 3, 0.5, 0, 4 };
  const FfmPlotAxes axes = { "bars", "design", "energy (J)", FALSE, FALSE, 0, 0, 0, 0 };

  return ffm_plot_stacked_bars (path, &axes, categories, 3, components, 2, values, error);
}

/* Two points of two policies, one bar failed (NAN), notes above. */
static gboolean
plot_groups (const char *path, GError **error)
{
  static const char *const groups[] = { "512", "1024" };
  static const char *const bars[] = { "ffm", "transfusion" };
  static const char *const components[] = { "MainMemory", "GlobalBuffer", "MAC" };
  static const char *const notes[] = { "1 J", "2 J", "3 J", NULL };
  static const double values[] = { 0.5, 0.3, 0.2, 1.2, 0.5, 0.3, 2, 0.5, 0.5,
                                   NAN, NAN, NAN };
  const FfmPlotBarGroups g = { groups, 2, bars, 2, components, 3, values, notes };
  const FfmPlotAxes axes = { "grouped", "policy, then tokens", "energy (J)", FALSE, FALSE, 0, 0, 0, 0 };

  return ffm_plot_grouped_bars (path, &axes, &g, error);
}

/* A fused row (two groups, a long link), an unfused one, a failed one. */
static gboolean
plot_fusion_rows (const char *path, GError **error)
{
  static const char *const boxes[] = { "I", "Q", "QK", "QK_softmax", "Z", "FFA" };
  static const guint from[] = { 0, 1, 2, 4 }, to[] = { 3, 2, 3, 5 }, kind[] = { 0, 1, 1, 1 };
  static const char *const kinds[] = { "kept in Buffer", "kept in GlobalBuffer" };
  const FfmPlotFusionRow rows[] = {
    { "ffm, 512", FALSE, boxes, 6, from, to, kind, 4 },
    { "unfused, 512", FALSE, boxes, 6, NULL, NULL, NULL, 0 },
    { "transfusion, 512", TRUE, NULL, 0, NULL, NULL, NULL, 0 },
  };

  return ffm_plot_fusion (path, "fusion", rows, G_N_ELEMENTS (rows), kinds, 2, error);
}

#ifndef FFM_TEST_NO_PLOT

static void
check_file (const char *path, const char *head, gsize head_len, const char *tail)
{
  g_autofree char *data = NULL;
  gsize size = 0;

  g_assert_true (g_file_get_contents (path, &data, &size, NULL));
  g_assert_cmpuint (size, >, 1000);
  g_assert_cmpint (memcmp (data, head, head_len), ==, 0);
  if (tail != NULL)
    g_assert_nonnull (g_strstr_len (data + size - MIN (size, 64), MIN (size, 64), tail));
}

/* A PNG with enough ink and colours (decoded with cairo when this build
 * has it). */
static void
check_not_blank (const char *path)
{
#ifdef FFM_TEST_CAIRO
  cairo_surface_t *s = cairo_image_surface_create_from_png (path);
  int w, h, stride;
  guint64 inked = 0;
  unsigned char *data;
  g_autoptr (GHashTable) colours = g_hash_table_new (NULL, NULL);

  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  w = cairo_image_surface_get_width (s);
  h = cairo_image_surface_get_height (s);
  stride = cairo_image_surface_get_stride (s);
  data = cairo_image_surface_get_data (s);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        guint32 p = *(guint32 *) (data + (gsize) y * stride + 4 * x) & 0xFFFFFF;
        inked += p != 0xFFFFFF;
        if (g_hash_table_size (colours) < 256)
          g_hash_table_add (colours, GUINT_TO_POINTER (p + 1));
      }
  cairo_surface_destroy (s);
  if (inked < (guint64) w * h / 100 || g_hash_table_size (colours) < 8)
    g_error ("%s looks blank: %" G_GUINT64_FORMAT " of %d pixels inked, %u colours", path,
             inked, w * h, g_hash_table_size (colours));
#else
  (void) path;
#endif
}

/* Copies @path to $FFM_TEST_PLOT_DIR/@name when that is set. */
static void
keep (const char *path, const char *name)
{
  const char *dir = g_getenv ("FFM_TEST_PLOT_DIR");
  g_autofree char *data = NULL, *to = NULL;
  gsize size = 0;

  if (dir == NULL || *dir == '\0')
    return;
  to = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_get_contents (path, &data, &size, NULL));
  g_assert_true (g_file_set_contents (to, data, (gssize) size, NULL));
}

static void
test_formats (void)
{
  g_autofree char *dir = tmp_dir ();
  static const char *const names[] = { "lines.svg", "lines.png", "lines.pdf", "bars.svg",
                                       "bars.png", "groups.svg", "groups.png", "fusion.svg",
                                       "fusion.pdf", "fusion.png" };

  g_test_summary ("PLplot writes line plots with bands and log axes, stacked "
                  "bars, grouped stacked bars and fusion diagrams, as SVG, PNG and PDF; "
                  "every kind as a PNG that is not blank");
  if (!ffm_plot_is_available ())
    {
      g_test_skip ("this build has no plotting (PLplot not found)");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_autoptr (GError) error = NULL;
      gboolean ok = i < 3 ? plot_lines (path, &error)
                    : i < 5 ? plot_bars (path, &error)
                    : i < 7 ? plot_groups (path, &error) : plot_fusion_rows (path, &error);
      g_assert_no_error (error);
      g_assert_true (ok);
      if (g_str_has_suffix (path, ".svg"))
        check_file (path, "<?xml", 5, "</svg>");
      else if (g_str_has_suffix (path, ".png"))
        {
          check_file (path, "\x89PNG", 4, NULL);
          check_not_blank (path);
          keep (path, names[i]);
        }
      else
        check_file (path, "%PDF", 4, "%%EOF");
      g_unlink (path);
    }
  g_rmdir (dir);
}

static void
test_errors (void)
{
  g_autofree char *dir = tmp_dir ();
  g_autofree char *txt = g_build_filename (dir, "plot.txt", NULL);
  g_autofree char *missing = g_build_filename (dir, "no", "such", "plot.svg", NULL);
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;

  g_test_summary ("A bad suffix or an unwritable path is an error naming the file; "
                  "nothing is left behind");
  if (!ffm_plot_is_available ())
    {
      g_test_skip ("this build has no plotting (PLplot not found)");
      return;
    }
  g_assert_false (plot_lines (txt, &e1));
  g_assert_error (e1, FFM_PLOT_ERROR, FFM_PLOT_ERROR_FORMAT);
  g_assert_nonnull (strstr (e1->message, "plot.txt"));
  g_assert_false (g_file_test (txt, G_FILE_TEST_EXISTS));
  g_assert_false (plot_lines (missing, &e2));
  g_assert_error (e2, FFM_PLOT_ERROR, FFM_PLOT_ERROR_WRITE);
  g_assert_nonnull (strstr (e2->message, "plot.svg"));
  g_rmdir (dir);
}

#else

static void
test_no_plotting (void)
{
  g_autofree char *dir = tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "plot.svg", NULL);
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (GError) e3 = NULL;
  g_autoptr (GError) e4 = NULL;
  g_autoptr (GError) e5 = NULL;

  g_test_summary ("Without PLplot every plot says that this build has no plotting, "
                  "and writes nothing");
  g_assert_false (ffm_plot_is_available ());
  g_assert_false (ffm_plot_check (path, &e1));
  g_assert_error (e1, FFM_PLOT_ERROR, FFM_PLOT_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (e1->message, "this build of ffm has no plotting"));
  g_assert_nonnull (strstr (e1->message, "-Dplot=enabled"));
  g_assert_false (plot_lines (path, &e2));
  g_assert_error (e2, FFM_PLOT_ERROR, FFM_PLOT_ERROR_UNAVAILABLE);
  g_assert_false (plot_bars (path, &e3));
  g_assert_error (e3, FFM_PLOT_ERROR, FFM_PLOT_ERROR_UNAVAILABLE);
  g_assert_false (plot_groups (path, &e4));
  g_assert_error (e4, FFM_PLOT_ERROR, FFM_PLOT_ERROR_UNAVAILABLE);
  g_assert_false (plot_fusion_rows (path, &e5));
  g_assert_error (e5, FFM_PLOT_ERROR, FFM_PLOT_ERROR_UNAVAILABLE);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_rmdir (dir);
}

#endif

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#ifndef FFM_TEST_NO_PLOT
  g_test_add_func ("/plot/formats", test_formats);
  g_test_add_func ("/plot/errors", test_errors);
#else
  g_test_add_func ("/plot/no-plotting", test_no_plotting);
#endif
  return g_test_run ();
}
