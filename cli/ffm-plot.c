/* ffm-plot.c: plots drawn by PLplot's cairo drivers (ffm-plot.h).
 *
 * Why PLplot: a well-kept C library packaged by Debian (libplplot-dev,
 * plplot-driver-cairo), called in process (no script to generate and no
 * second program to find on PATH, as gnuplot would need), log axes,
 * filled polygons with transparency for spread bands, legends and bars,
 * and SVG, PNG and PDF from one set of calls. Its drawback, global state
 * and exit() on fatal errors, is contained here: one plot at a time, and
 * an exit handler that jumps back out. */
#include "ffm-plot.h"
#include "ffm-fusion-layout.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

G_DEFINE_QUARK (ffm-plot-error-quark, ffm_plot_error)

/* Whether @path names a format ffm plots (the suffix chooses); in every
 * build, so that a bad name is the same usage error with or without
 * PLplot. */
static gboolean
check_format (const char *path, GError **error)
{
  if (g_str_has_suffix (path, ".svg") || g_str_has_suffix (path, ".png")
      || g_str_has_suffix (path, ".pdf"))
    return TRUE;
  g_set_error (error, FFM_PLOT_ERROR, FFM_PLOT_ERROR_FORMAT,
               "%s: a plot is written as .svg, .png or .pdf (the file "
               "name's suffix chooses)", path);
  return FALSE;
}

/* TUNING: the fusion diagram in pixels: title, legend lines, the inset
 * of a box in its column and the gap below each row. */
#define FUSION_TITLE_PX 48.0
#define FUSION_LEGEND_PX 22.0
#define BOX_INSET 5.0
#define FUSION_NOTE "Arcs: a tensor passed on chip (coloured by memory); boxes shaded " \
  "alike: fused together"

void
ffm_plot_fusion_geometry (const FfmPlotFusionRow *rows, guint n_rows, guint n_kinds,
                          FfmPlotFusionGeometry *g)
{
  guint label_chars = 0, box_chars = 0, n_columns = 0;
  double height = FUSION_TITLE_PX, legend_width;

  memset (g, 0, sizeof *g);
  g->box_font = 11;
  g->row_font = 12;
  g->box_height = 24;
  g->level_step = 8;
  g->row_gap = 14;
  for (guint r = 0; r < n_rows; r++)
    {
      g_autoptr (FfmFusionLayout) layout = ffm_fusion_layout_new (rows[r].n_boxes, rows[r].from,
                                                                  rows[r].to, rows[r].n_links);
      label_chars = MAX (label_chars, rows[r].label != NULL ? g_utf8_strlen (rows[r].label, -1)
                                                            : 0);
      n_columns = MAX (n_columns, rows[r].n_boxes);
      for (guint i = 0; i < rows[r].n_boxes; i++)
        box_chars = MAX (box_chars, g_utf8_strlen (rows[r].boxes[i], -1));
      height += 4 + (layout->levels_above + layout->levels_below) * g->level_step
        + g->box_height + g->row_gap;
    }
  /* Labels are monospace: a box is as wide as its longest label and
   * 12 px, the label column as its longest label and 20 px. */
  g->label_column = 20 + label_chars * FFM_PLOT_MONO_ADVANCE * g->row_font;
  /* The legend's last line (monospace too) must fit the page. */
  legend_width = g->label_column + strlen (FUSION_NOTE) * FFM_PLOT_MONO_ADVANCE * g->row_font;
  g->widest_label = box_chars * FFM_PLOT_MONO_ADVANCE * g->box_font;
  g->column = MAX (g->widest_label + 2 * BOX_INSET + 12, 56);
  g->box_inner = g->column - 2 * BOX_INSET;
  g->width = (int) CLAMP (ceil (MAX (g->label_column + n_columns * g->column, legend_width) + 20),
                         720, 16000);
  g->height = (int) CLAMP (ceil (height + 20 + FUSION_LEGEND_PX * (n_kinds + 1)), 240, 16000);
}

#ifdef FFM_HAVE_PLPLOT

#include <plplot.h>
#include <setjmp.h>
#include <stdio.h>

/* Colours of the series (a qualitative palette), cmap0 1..N; their bands
 * use N+1..2N with transparency. */
static const guint8 palette[][3] = {
  { 31, 119, 180 }, { 255, 127, 14 }, { 44, 160, 44 }, { 214, 39, 40 },
  { 148, 103, 189 }, { 140, 86, 75 }, { 227, 119, 194 }, { 127, 127, 127 },
  { 188, 189, 34 }, { 23, 190, 207 },
};
#define N_COLOURS G_N_ELEMENTS (palette)
/* TUNING: band opacity: the lines stay readable through overlapping bands. */
#define BAND_ALPHA 0.18

static jmp_buf escape;
static char message[512];

static int
on_plplot_exit (const char *text)
{
  g_strlcpy (message, text != NULL ? text : "unknown error", sizeof message);
  longjmp (escape, 1);
  return 1;
}

static void
on_plplot_abort (const char *text)
{
  /* Not fatal for PLplot, but the plot is wrong: remember it. */
  if (message[0] == '\0')
    g_strlcpy (message, text != NULL ? text : "unknown error", sizeof message);
}

static gboolean
has_device (const char *name)
{
  const char *menus[128], *names[128];
  const char **m = menus, **d = names;
  int n = G_N_ELEMENTS (names);

  plgDevs (&m, &d, &n);
  for (int i = 0; i < n; i++)
    if (g_strcmp0 (d[i], name) == 0)
      return TRUE;
  return FALSE;
}

gboolean
ffm_plot_is_available (void)
{
  return has_device ("svgcairo") && has_device ("pngcairo") && has_device ("pdfcairo");
}

static const char *device_for (const char *path, const char **trailer,
                               gsize *trailer_len);

gboolean
ffm_plot_check (const char *path, GError **error)
{
  const char *trailer, *device;

  if (!check_format (path, error))
    return FALSE;
  device = device_for (path, &trailer, &(gsize) { 0 });
  if (!has_device (device))
    {
      g_set_error (error, FFM_PLOT_ERROR, FFM_PLOT_ERROR_UNAVAILABLE,
                   "%s: PLplot has no %s driver (install plplot-driver-cairo)",
                   path, device);
      return FALSE;
    }
  return TRUE;
}

/* The description draw_lines() writes for end() to put in an SVG (one
 * plot at a time: PLplot is not reentrant either). */
static GString *svg_desc;

typedef struct {
  const char *path;
  char *tmp;                    /* owned */
  const char *device;
  FILE *file;                   /* until PLplot takes it */
  int width, height;            /* pixels; 0: 960 x 640 */
} Target;

static const char *
device_for (const char *path, const char **trailer, gsize *trailer_len)
{
  if (g_str_has_suffix (path, ".svg"))
    {
      *trailer = "</svg>";
      *trailer_len = 6;
      return "svgcairo";
    }
  if (g_str_has_suffix (path, ".png"))
    {
      *trailer = "IEND\xae\x42\x60\x82";
      *trailer_len = 8;
      return "pngcairo";
    }
  if (g_str_has_suffix (path, ".pdf"))
    {
      *trailer = "%%EOF";
      *trailer_len = 5;
      return "pdfcairo";
    }
  return NULL;
}

/* Checks the format and the driver and opens the temporary file. */
static gboolean
begin (Target *t, const char *path, GError **error)
{
  const char *trailer;
  gsize trailer_len;
  FILE *f;
  int fd;

  t->path = path;
  if (!ffm_plot_check (path, error))
    return FALSE;
  t->device = device_for (path, &trailer, &trailer_len);
  /* Not mkstemp(): the plot gets the usual permissions (0666 less the
   * umask), like every other file ffm writes. */
  t->tmp = g_strdup_printf ("%s.tmp-%d", path, (int) getpid ());
  fd = g_open (t->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0 || (f = fdopen (fd, "wb")) == NULL)
    {
      int saved = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, FFM_PLOT_ERROR, FFM_PLOT_ERROR_WRITE,
                   "%s: cannot write the plot: %s", path, g_strerror (saved));
      g_clear_pointer (&t->tmp, g_free);
      return FALSE;
    }
  t->file = f;
  return TRUE;
}

/* Starts PLplot on the temporary file. Call it after setjmp (escape): its
 * errors jump there. */
static void
start (Target *t)
{
  message[0] = '\0';
  plsexit (on_plplot_exit);
  plsabort (on_plplot_abort);
  plsdev (t->device);
  plsfile (t->file);            /* PLplot closes it in plend() */
  t->file = NULL;
  plspage (0, 0, t->width > 0 ? t->width : 960, t->height > 0 ? t->height : 640, 0, 0);
  plscolbg (255, 255, 255);
  plscmap0n ((PLINT) (2 * N_COLOURS + 2));
  plscol0 (1, 0, 0, 0);         /* axes and text: black */
  for (guint i = 0; i < N_COLOURS; i++)
    {
      plscol0a ((PLINT) (2 + i), palette[i][0], palette[i][1], palette[i][2], 1.0);
      plscol0a ((PLINT) (2 + N_COLOURS + i), palette[i][0], palette[i][1], palette[i][2],
                BAND_ALPHA);
    }
  plinit ();
  plcol0 (1);
}

/* TRUE if the last bytes of @data (binary: PNG holds zeros) contain
 * @trailer: a writer that stopped early did not get there. */
static gboolean
ends_with (const char *data, gsize size, const char *trailer, gsize len)
{
  for (gsize at = size >= 64 ? size - 64 : 0; at + len <= size; at++)
    if (memcmp (data + at, trailer, len) == 0)
      return TRUE;
  return FALSE;
}

/* Ends PLplot, checks what it wrote and renames it into place. */
static gboolean
end (Target *t, GError **error)
{
  const char *trailer;
  gsize trailer_len, size = 0;
  g_autofree char *data = NULL;
  gboolean ok;

  plend ();
  device_for (t->path, &trailer, &trailer_len);
  ok = message[0] == '\0' && g_file_get_contents (t->tmp, &data, &size, NULL)
    && ends_with (data, size, trailer, trailer_len);
  if (!ok)
    {
      g_set_error (error, FFM_PLOT_ERROR,
                   message[0] != '\0' ? FFM_PLOT_ERROR_FAILED : FFM_PLOT_ERROR_WRITE,
                   "%s: %s", t->path, message[0] != '\0' ? message
                   : "the plot was not written completely (disk full?)");
      g_unlink (t->tmp);
      g_clear_pointer (&t->tmp, g_free);
      return FALSE;
    }
  if (svg_desc != NULL && g_str_has_suffix (t->path, ".svg"))
    {
      /* The description goes right after the opening <svg ...> tag. */
      const char *open = strstr (data, "<svg");
      const char *close = open != NULL ? strchr (open, '>') : NULL;
      if (close != NULL)
        {
          g_autofree char *escaped = g_markup_escape_text (svg_desc->str, -1);
          g_autofree char *text = g_strdup_printf ("%.*s\n<desc>%s</desc>%s",
                                                   (int) (close + 1 - data), data,
                                                   escaped, close + 1);
          if (!g_file_set_contents (t->tmp, text, -1, NULL))
            {
              g_set_error (error, FFM_PLOT_ERROR, FFM_PLOT_ERROR_WRITE,
                           "%s: the plot could not be written (disk full?)", t->path);
              g_unlink (t->tmp);
              g_clear_pointer (&t->tmp, g_free);
              return FALSE;
            }
        }
    }
  if (g_rename (t->tmp, t->path) != 0)
    {
      int saved = errno;
      g_set_error (error, FFM_PLOT_ERROR, FFM_PLOT_ERROR_WRITE, "%s: %s", t->path,
                   g_strerror (saved));
      g_unlink (t->tmp);
      g_clear_pointer (&t->tmp, g_free);
      return FALSE;
    }
  g_clear_pointer (&t->tmp, g_free);
  return TRUE;
}

/* After a jump out of PLplot: the stream is abandoned, the file removed. */
static void
fail (Target *t, GError **error)
{
  if (t->file != NULL)
    fclose (t->file);
  g_set_error (error, FFM_PLOT_ERROR, FFM_PLOT_ERROR_FAILED, "%s: PLplot: %s",
               t->path, message);
  if (t->tmp != NULL)
    g_unlink (t->tmp);
  g_clear_pointer (&t->tmp, g_free);
}

/* Runs @draw between start() and end(), PLplot's fatal errors caught. The
 * drawing happens in @draw's own frame, so that nothing here is live
 * across the jump. */
static gboolean
guarded (Target *t, void (*draw) (gconstpointer), gconstpointer data, GError **error)
{
  if (setjmp (escape) != 0)
    {
      fail (t, error);
      return FALSE;
    }
  start (t);
  draw (data);
  return end (t, error);
}

static gboolean
usable (double v, gboolean log_axis)
{
  return isfinite (v) && (!log_axis || v > 0);
}

static double
axis_value (double v, gboolean log_axis)
{
  return log_axis ? log10 (v) : v;
}

static void
widen (double *lo, double *hi, double v)
{
  *lo = MIN (*lo, v);
  *hi = MAX (*hi, v);
}

/* Lines and bands of one series, split at gaps. */
static void
draw_series (const FfmPlotAxes *axes, const FfmPlotSeries *s, guint colour)
{
  g_autofree PLFLT *x = g_new (PLFLT, 2 * MAX (s->n, 1));
  g_autofree PLFLT *y = g_new (PLFLT, 2 * MAX (s->n, 1));

  for (guint i = 0; i < s->n; )
    {
      guint j = i, m = 0;
      while (j < s->n && usable (s->x[j], axes->log_x) && usable (s->y[j], axes->log_y))
        j++;
      if (j == i)
        {
          i++;
          continue;
        }
      if (s->low != NULL && s->high != NULL)
        {
          for (guint k = i; k < j; k++, m++)
            {
              x[m] = axis_value (s->x[k], axes->log_x);
              y[m] = axis_value (usable (s->high[k], axes->log_y) ? s->high[k] : s->y[k],
                                 axes->log_y);
            }
          for (guint k = j; k-- > i; m++)
            {
              x[m] = axis_value (s->x[k], axes->log_x);
              y[m] = axis_value (usable (s->low[k], axes->log_y) ? s->low[k] : s->y[k],
                                 axes->log_y);
            }
          if (m >= 3)
            {
              plcol0 ((PLINT) (2 + N_COLOURS + colour));
              plfill ((PLINT) m, x, y);
            }
        }
      for (guint k = i; k < j; k++)
        {
          x[k - i] = axis_value (s->x[k], axes->log_x);
          y[k - i] = axis_value (s->y[k], axes->log_y);
        }
      plcol0 ((PLINT) (2 + colour));
      plwidth (2.0);
      if (j - i >= 2)
        plline ((PLINT) (j - i), x, y);
      if (s->markers || j - i == 1)
        plstring ((PLINT) (j - i), x, y, "#(728)");
      plwidth (1.0);
      i = j;
    }
}

static void
legend_at (const char *const *labels, guint n, gboolean boxes, const gboolean *markers,
           PLINT position, double text_scale, double plot_width)
{
  g_autofree PLINT *opt = g_new (PLINT, n), *colours = g_new (PLINT, n);
  g_autofree PLINT *text_colours = g_new (PLINT, n), *styles = g_new (PLINT, n);
  g_autofree PLINT *patterns = g_new0 (PLINT, n), *numbers = g_new (PLINT, n);
  g_autofree PLFLT *widths = g_new (PLFLT, n), *scales = g_new (PLFLT, n);
  g_autofree const char **symbols = g_new (const char *, n);
  PLFLT w, h;

  for (guint i = 0; i < n; i++)
    {
      opt[i] = boxes ? PL_LEGEND_COLOR_BOX
        : PL_LEGEND_LINE | (markers != NULL && markers[i] ? PL_LEGEND_SYMBOL : 0);
      colours[i] = (PLINT) (2 + i % N_COLOURS);
      text_colours[i] = 1;
      styles[i] = 1;
      widths[i] = 2.0;
      scales[i] = 1.0;
      numbers[i] = 1;
      symbols[i] = "#(728)";
    }
  plcol0 (1);
  pllegend (&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
            position, 0.02, 0.02, plot_width, 0, 1, 1, 0, 0, (PLINT) n, opt, 1.0, text_scale,
            2.0, 0.0,
            text_colours, (const char *const *) labels,
            colours, patterns, scales, widths, colours, styles, widths,
            colours, scales, numbers, (const char *const *) symbols);
}

static void
legend (const char *const *labels, guint n, gboolean boxes, const gboolean *markers)
{
  legend_at (labels, n, boxes, markers, PL_POSITION_TOP | PL_POSITION_RIGHT | PL_POSITION_INSIDE,
             0.9, 0.08);
}

typedef struct {
  const FfmPlotAxes *axes;
  const FfmPlotSeries *series;
  guint n_series;
} Lines;

/* The corner of the plot (PL_POSITION_TOP | _RIGHT, ...) where the fewest
 * points fall, for the legend not to hide data (top right first). */
static PLINT
quiet_corner (const Lines *l, double xlo, double xhi, double ylo, double yhi)
{
  static const PLINT corners[] = {
    PL_POSITION_TOP | PL_POSITION_RIGHT, PL_POSITION_TOP | PL_POSITION_LEFT,
    PL_POSITION_BOTTOM | PL_POSITION_RIGHT, PL_POSITION_BOTTOM | PL_POSITION_LEFT,
  };
  guint count[4] = { 0, 0, 0, 0 }, best = 0;

  for (guint s = 0; s < l->n_series; s++)
    for (guint i = 0; i < l->series[s].n; i++)
      {
        const FfmPlotSeries *se = &l->series[s];
        double fx, fy;
        if (!usable (se->x[i], l->axes->log_x) || !usable (se->y[i], l->axes->log_y))
          continue;
        fx = (axis_value (se->x[i], l->axes->log_x) - xlo) / (xhi - xlo);
        fy = (axis_value (se->y[i], l->axes->log_y) - ylo) / (yhi - ylo);
        /* A legend of a few series takes about a third by a quarter. */
        count[0] += fx > 0.62 && fy > 0.7;
        count[1] += fx < 0.38 && fy > 0.7;
        count[2] += fx > 0.62 && fy < 0.3;
        count[3] += fx < 0.38 && fy < 0.3;
      }
  for (guint k = 1; k < 4; k++)
    if (count[k] < count[best])
      best = k;
  return corners[best];
}

static void
draw_lines (gconstpointer data)
{
  const Lines *l = data;
  const FfmPlotAxes *axes = l->axes;
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY, pad;
  g_autofree const char **labels = g_new (const char *, MAX (l->n_series, 1));
  g_autofree gboolean *markers = g_new (gboolean, MAX (l->n_series, 1));

  for (guint s = 0; s < l->n_series; s++)
    for (guint i = 0; i < l->series[s].n; i++)
      {
        const FfmPlotSeries *se = &l->series[s];
        if (!usable (se->x[i], axes->log_x) || !usable (se->y[i], axes->log_y))
          continue;
        widen (&xlo, &xhi, axis_value (se->x[i], axes->log_x));
        widen (&ylo, &yhi, axis_value (se->y[i], axes->log_y));
        if (se->low != NULL && usable (se->low[i], axes->log_y))
          widen (&ylo, &yhi, axis_value (se->low[i], axes->log_y));
        if (se->high != NULL && usable (se->high[i], axes->log_y))
          widen (&ylo, &yhi, axis_value (se->high[i], axes->log_y));
      }
  if (!isfinite (xlo))
    {
      xlo = ylo = 0;
      xhi = yhi = 1;
    }
  if (xhi - xlo < 1e-12)
    {
      xlo -= 0.5;
      xhi += 0.5;
    }
  if (yhi - ylo < 1e-12)
    {
      ylo -= 0.5;
      yhi += 0.5;
    }
  {
    /* Pad the sides the data set; a range asked for is the axis. */
    gboolean fixed_x = axes->x_max > axes->x_min && usable (axes->x_min, axes->log_x)
      && usable (axes->x_max, axes->log_x);
    gboolean fixed_y_low = axes->y_min > 0 && usable (axes->y_min, axes->log_y);
    double xpad = 0.02 * (xhi - xlo);
    if (fixed_x)
      {
        double a = axis_value (axes->x_min, axes->log_x), b = axis_value (axes->x_max, axes->log_x);
        xlo = xlo - xpad < a ? xlo - xpad : a;
        xhi = xhi + xpad > b ? xhi + xpad : b;
      }
    else
      {
        xlo -= xpad;
        xhi += xpad;
      }
    if (fixed_y_low)
      ylo = axis_value (axes->y_min, axes->log_y);
    if (axes->y_max > 0 && usable (axes->y_max, axes->log_y))
      yhi = MIN (yhi, axis_value (axes->y_max, axes->log_y));
    if (yhi <= ylo)
      yhi = ylo + 1;
    pad = 0.05 * (yhi - ylo);
    if (!fixed_y_low)
      ylo -= pad;
    yhi += pad;
  }
  /* The box by hand: plenv's axis styles also draw the lines x = 0 and
   * y = 0, which on a log axis is the line at 1. */
  plenv (xlo, xhi, ylo, yhi, 0, -2);
  if (svg_desc != NULL)
    {
      g_string_append_printf (svg_desc, "%s. x axis: %s, %s scale, from %.4g to %.4g. "
                              "y axis: %s, %s scale, from %.4g to %.4g. Series:",
                              axes->title != NULL ? axes->title : "plot",
                              axes->x_label != NULL ? axes->x_label : "x",
                              axes->log_x ? "log10" : "linear",
                              axes->log_x ? pow (10, xlo) : xlo, axes->log_x ? pow (10, xhi) : xhi,
                              axes->y_label != NULL ? axes->y_label : "y",
                              axes->log_y ? "log10" : "linear",
                              axes->log_y ? pow (10, ylo) : ylo, axes->log_y ? pow (10, yhi) : yhi);
      for (guint s = 0; s < l->n_series; s++)
        g_string_append_printf (svg_desc, "%s %s (%u points%s)", s > 0 ? "," : "",
                                l->series[s].label != NULL ? l->series[s].label : "",
                                l->series[s].n,
                                l->series[s].low != NULL && l->series[s].high != NULL
                                ? ", with a band" : "");
      g_string_append_c (svg_desc, '.');
    }
  plcol0 ((PLINT) (2 + 7));     /* grey grid */
  plwidth (0.5);
  plbox (axes->log_x ? "gl" : "g", 0, 0, axes->log_y ? "gl" : "g", 0, 0);
  plwidth (1.0);
  plcol0 (1);
  plbox (axes->log_x ? "bcnstl" : "bcnst", 0, 0, axes->log_y ? "bcnstvl" : "bcnstv", 0, 0);
  pllab (axes->x_label != NULL ? axes->x_label : "",
         axes->y_label != NULL ? axes->y_label : "",
         axes->title != NULL ? axes->title : "");
  for (guint s = 0; s < l->n_series; s++)
    {
      draw_series (axes, &l->series[s], s % N_COLOURS);
      labels[s] = l->series[s].label != NULL ? l->series[s].label : "";
      markers[s] = l->series[s].markers || l->series[s].n == 1;
    }
  if (l->n_series > 0)
    legend_at (labels, l->n_series, FALSE, markers,
               quiet_corner (l, xlo, xhi, ylo, yhi) | PL_POSITION_INSIDE, 0.9, 0.08);
}

gboolean
ffm_plot_lines (const char *path, const FfmPlotAxes *axes,
                const FfmPlotSeries *series, guint n_series, GError **error)
{
  Target t = { 0 };
  Lines l = { axes, series, n_series };
  gboolean ok;

  if (!begin (&t, path, error))
    return FALSE;
  svg_desc = g_string_new (NULL);
  ok = guarded (&t, draw_lines, &l, error);
  g_string_free (svg_desc, TRUE);
  svg_desc = NULL;
  return ok;
}

typedef struct {
  const FfmPlotAxes *axes;
  const char *const *categories;
  guint n_categories;
  const char *const *components;
  guint n_components;
  const double *values;
} Bars;

static void
draw_bars (gconstpointer data)
{
  const Bars *b = data;
  double top = 0;

  for (guint c = 0; c < b->n_categories; c++)
    {
      double sum = 0;
      for (guint k = 0; k < b->n_components; k++)
        {
          double v = b->values[(gsize) c * b->n_components + k];
          if (isfinite (v) && v > 0)
            sum += v;
        }
      top = MAX (top, sum);
    }
  if (top <= 0)
    top = 1;
  pladv (0);
  plvsta ();
  /* Headroom for the legend (a line per component) above the bars. */
  plwind (-0.6, (double) b->n_categories - 0.4, 0,
          (1.15 + 0.09 * MIN (b->n_components, 6)) * top);
  plcol0 ((PLINT) (2 + 7));     /* grey grid */
  plwidth (0.5);
  plbox ("", 0, 0, "g", 0, 0);
  plwidth (1.0);
  plcol0 (1);
  plbox ("bc", 0, 0, "bcnstv", 0, 0);
  pllab (b->axes->x_label != NULL ? b->axes->x_label : "",
         b->axes->y_label != NULL ? b->axes->y_label : "",
         b->axes->title != NULL ? b->axes->title : "");
  for (guint c = 0; c < b->n_categories; c++)
    {
      double base = 0;
      for (guint k = 0; k < b->n_components; k++)
        {
          double v = b->values[(gsize) c * b->n_components + k];
          PLFLT bx[4] = { c - 0.35, c + 0.35, c + 0.35, c - 0.35 };
          PLFLT by[4];
          if (!isfinite (v) || v <= 0)
            continue;
          by[0] = by[1] = base;
          by[2] = by[3] = base + v;
          plcol0 ((PLINT) (2 + k % N_COLOURS));
          plfill (4, bx, by);
          base += v;
        }
      plcol0 (1);
      plmtex ("b", 1.2, ((double) c + 0.6) / ((double) b->n_categories + 0.2), 0.5,
              b->categories[c]);
    }
  if (b->n_components > 0)
    legend (b->components, b->n_components, TRUE, NULL);
}

gboolean
ffm_plot_stacked_bars (const char *path, const FfmPlotAxes *axes,
                       const char *const *categories, guint n_categories,
                       const char *const *components, guint n_components,
                       const double *values, GError **error)
{
  Target t = { 0 };
  Bars b = { axes, categories, n_categories, components, n_components, values };

  if (!begin (&t, path, error))
    return FALSE;
  return guarded (&t, draw_bars, &b, error);
}

typedef struct {
  const FfmPlotAxes *axes;
  const FfmPlotBarGroups *g;
  int width;                    /* of the page, pixels */
} Groups;

/* TUNING: pixels left of the bars (the y axis), right of them (the
 * legend), and per bar slot (room for a label like "transfusion"). */
#define BARS_LEFT_PX 110
#define BARS_RIGHT_PX 330
#define BAR_SLOT_PX 95

static double
bar_value (const FfmPlotBarGroups *g, guint bar, guint k)
{
  double v = g->values[(gsize) bar * g->n_components + k];

  return isfinite (v) && v > 0 ? v : 0;
}

static void
draw_grouped (gconstpointer data)
{
  const Groups *d = data;
  const FfmPlotBarGroups *g = d->g;
  guint n = g->n_groups * g->n_bars, slots = g->n_groups * (g->n_bars + 1);
  double top = 0, xmin = -0.8, xmax = (double) slots - 1.2;
  /* PLplot's characters grow with the page: a wide page gets smaller
   * ones (halfway, so that they stay legible). */
  double font = sqrt (MIN (1.0, 960.0 / d->width));

  for (guint b = 0; b < n; b++)
    {
      double sum = 0;
      for (guint k = 0; k < g->n_components; k++)
        sum += bar_value (g, b, k);
      top = MAX (top, sum);
    }
  if (top <= 0)
    top = 1;
  pladv (0);
  plschr (0, font);
  /* Room below for two rows of labels and the axis title, at the right
   * for the legend (outside: it would hide the tallest bars). */
  plvpor ((double) BARS_LEFT_PX / d->width,
          1.0 - MAX ((double) BARS_RIGHT_PX / d->width, 0.25), 0.2, 0.9);
  plwind (xmin, xmax, 0, 1.2 * top);
  plcol0 ((PLINT) (2 + 7));
  plwidth (0.5);
  plbox ("", 0, 0, "g", 0, 0);
  plwidth (1.0);
  plcol0 (1);
  plbox ("bc", 0, 0, "bcnstv", 0, 0);
  pllab ("", d->axes->y_label != NULL ? d->axes->y_label : "",
         d->axes->title != NULL ? d->axes->title : "");
  plmtex ("b", 4.8, 0.5, 0.5, d->axes->x_label != NULL ? d->axes->x_label : "");
  for (guint gi = 0; gi < g->n_groups; gi++)
    {
      for (guint b = 0; b < g->n_bars; b++)
        {
          guint bar = gi * g->n_bars + b;
          double x = (double) gi * (g->n_bars + 1) + b, base = 0;
          for (guint k = 0; k < g->n_components; k++)
            {
              double v = bar_value (g, bar, k);
              PLFLT bx[4] = { x - 0.4, x + 0.4, x + 0.4, x - 0.4 };
              PLFLT by[4] = { base, base, base + v, base + v };
              if (v <= 0)
                continue;
              plcol0 ((PLINT) (2 + k % N_COLOURS));
              plfill (4, bx, by);
              base += v;
            }
          plcol0 (1);
          plschr (0, 0.7 * font);
          if (g->notes != NULL && g->notes[bar] != NULL)
            plptex (x, base + 0.02 * top, 1, 0, 0.5, g->notes[bar]);
          plmtex ("b", 1.3 / 0.7, (x - xmin) / (xmax - xmin), 0.5, g->bars[b]);
          plschr (0, font);
        }
      plmtex ("b", 3.0, ((double) gi * (g->n_bars + 1) + (g->n_bars - 1) / 2.0 - xmin)
              / (xmax - xmin), 0.5, g->groups[gi]);
    }
  plschr (0, 1.0);
  if (g->n_components > 0)
    legend_at (g->components, g->n_components, TRUE, NULL,
               PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.9 * font,
               60.0 / (d->width * (1.0 - MAX ((double) BARS_RIGHT_PX / d->width, 0.25))
                       - BARS_LEFT_PX));
}

gboolean
ffm_plot_grouped_bars (const char *path, const FfmPlotAxes *axes,
                       const FfmPlotBarGroups *bars, GError **error)
{
  Target t = { 0 };
  Groups d = { axes, bars, 0 };

  /* Wider with many bars, so that their labels stay apart. */
  t.width = (int) CLAMP ((BARS_LEFT_PX + BAR_SLOT_PX * bars->n_groups * (bars->n_bars + 1))
                         / 0.8, 960, 6000);
  d.width = t.width;
  if (!begin (&t, path, error))
    return FALSE;
  return guarded (&t, draw_grouped, &d, error);
}

typedef struct {
  const char *title;
  const FfmPlotFusionRow *rows;
  guint n_rows;
  const char *const *kinds;
  guint n_kinds;
  FfmPlotFusionGeometry geo;
} Fusion;

static guint
find_root (guint *parent, guint i)
{
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

/* The character scale (plschr) that makes characters @px pixels high. */
static double
char_scale (double px)
{
  PLFLT def, ht, xmin, xmax, ymin, ymax, xp, yp;
  PLINT xleng, yleng, xoff, yoff;

  plgchr (&def, &ht);
  plgspa (&xmin, &xmax, &ymin, &ymax);
  plgpage (&xp, &yp, &xleng, &yleng, &xoff, &yoff);
  /* def is in mm; the page is xleng pixels over xmax - xmin mm. */
  return px / (def * (double) xleng / (xmax - xmin));
}

/* Draws row @row with its top at pixel @top (y down; the world is the
 * page in pixels, y up). Returns the next row's top. */
static double
draw_fusion_row (const Fusion *f, const FfmPlotFusionRow *row, double top)
{
  const FfmPlotFusionGeometry *g = &f->geo;
  g_autoptr (FfmFusionLayout) layout = ffm_fusion_layout_new (row->n_boxes, row->from, row->to,
                                                              row->n_links);
  g_autofree guint *parent = g_new (guint, MAX (row->n_boxes, 1));
  g_autofree guint *size = g_new0 (guint, MAX (row->n_boxes, 1));
  g_autofree int *shade = g_new (int, MAX (row->n_boxes, 1));
  double H = g->height, box_top = top + layout->levels_above * g->level_step + 4;
  double mid = H - (box_top + g->box_height / 2), x0 = g->label_column;
  guint n_groups = 0;

  plcol0 (1);
  plsfont (PL_FCI_MONO, -1, -1);
  plschr (0, char_scale (g->row_font));
  plptex (x0 - 10, mid, 1, 0, 1.0, row->label);
  plsfont (PL_FCI_SANS, -1, -1);
  if (row->failed)
    {
      plptex (x0 + 6, mid, 1, 0, 0, "failed (no mapping)");
      return box_top + g->box_height + g->row_gap;
    }
  for (guint i = 0; i < row->n_boxes; i++)
    parent[i] = i;
  for (guint k = 0; k < row->n_links; k++)
    if (row->from[k] < row->n_boxes && row->to[k] < row->n_boxes)
      parent[find_root (parent, row->from[k])] = find_root (parent, row->to[k]);
  for (guint i = 0; i < row->n_boxes; i++)
    {
      size[find_root (parent, i)]++;
      shade[i] = -1;
    }
  for (guint i = 0; i < row->n_boxes; i++)
    {
      guint r = find_root (parent, i);
      if (size[r] > 1 && shade[r] < 0)
        shade[r] = (int) (n_groups++ % N_COLOURS);
    }
  /* The arcs (ffm-fusion-layout.h: none touches another). */
  for (guint i = 0; i < layout->arcs->len; i++)
    {
      const FfmFusionArc *a = &g_array_index (layout->arcs, FfmFusionArc, i);
      double p[8];
      PLFLT ax[4], ay[4];
      ffm_fusion_arc_points (a, p);
      for (guint k = 0; k < 4; k++)
        {
          ax[k] = x0 + p[2 * k] * g->column;
          ay[k] = H - (p[2 * k + 1] >= 0 ? box_top - p[2 * k + 1] * g->level_step
                                         : box_top + g->box_height - p[2 * k + 1] * g->level_step);
        }
      plcol0 ((PLINT) (2 + row->kind[a->link] % N_COLOURS));
      plwidth (2.0);
      plline (4, ax, ay);
      plwidth (1.0);
    }
  plsfont (PL_FCI_MONO, -1, -1);
  plschr (0, char_scale (g->box_font));
  for (guint i = 0; i < row->n_boxes; i++)
    {
      double l = x0 + i * g->column + BOX_INSET, r = x0 + (i + 1) * g->column - BOX_INSET;
      double b = H - (box_top + g->box_height), t = H - box_top;
      PLFLT bx[5] = { l, r, r, l, l };
      PLFLT by[5] = { b, b, t, t, b };
      int sh = shade[find_root (parent, i)];
      if (sh >= 0)
        {
          /* The light (band) colours, drawn over white: fused groups. */
          plcol0 (0);
          plfill (4, bx, by);
          plcol0 ((PLINT) (2 + N_COLOURS + (guint) sh));
          plfill (4, bx, by);
        }
      plcol0 (1);
      plline (5, bx, by);
      plptex ((l + r) / 2, mid, 1, 0, 0.5, row->boxes[i]);
    }
  plsfont (PL_FCI_SANS, -1, -1);
  return box_top + g->box_height + layout->levels_below * g->level_step + g->row_gap;
}

static void
draw_fusion (gconstpointer data)
{
  const Fusion *f = data;
  const FfmPlotFusionGeometry *g = &f->geo;
  double H = g->height, y = FUSION_TITLE_PX;

  pladv (0);
  plvpor (0, 1, 0, 1);
  plwind (0, g->width, 0, H);
  plcol0 (1);
  plschr (0, char_scale (18));
  plptex (g->width / 2.0, H - FUSION_TITLE_PX / 2, 1, 0, 0.5, f->title != NULL ? f->title : "");
  for (guint r = 0; r < f->n_rows; r++)
    y = draw_fusion_row (f, &f->rows[r], y);
  /* The legend below the rows: one arc colour per memory and what the
   * shading means, monospace (its width is known). */
  plsfont (PL_FCI_MONO, -1, -1);
  plschr (0, char_scale (g->row_font));
  for (guint i = 0; i < f->n_kinds; i++)
    {
      double ly = H - (y + 10 + FUSION_LEGEND_PX * i);
      PLFLT lx[2] = { g->label_column, g->label_column + 40 }, lys[2] = { ly, ly };
      plcol0 ((PLINT) (2 + i % N_COLOURS));
      plwidth (2.5);
      plline (2, lx, lys);
      plwidth (1.0);
      plcol0 (1);
      plptex (g->label_column + 50, ly, 1, 0, 0, f->kinds[i]);
    }
  plcol0 (1);
  plptex (g->label_column, H - (y + 10 + FUSION_LEGEND_PX * f->n_kinds), 1, 0, 0,
          FUSION_NOTE);
  plsfont (PL_FCI_SANS, -1, -1);
  plschr (0, 1.0);
}

gboolean
ffm_plot_fusion (const char *path, const char *title, const FfmPlotFusionRow *rows,
                 guint n_rows, const char *const *kinds, guint n_kinds, GError **error)
{
  Target t = { 0 };
  Fusion f = { title, rows, n_rows, kinds, n_kinds, { 0 } };

  ffm_plot_fusion_geometry (rows, n_rows, n_kinds, &f.geo);
  t.width = f.geo.width;
  t.height = f.geo.height;
  if (!begin (&t, path, error))
    return FALSE;
  return guarded (&t, draw_fusion, &f, error);
}

#else  /* !FFM_HAVE_PLPLOT */

static gboolean
unavailable (const char *path, GError **error)
{
  g_set_error (error, FFM_PLOT_ERROR, FFM_PLOT_ERROR_UNAVAILABLE,
               "%s: this build of ffm has no plotting (it was configured "
               "without PLplot; install libplplot-dev and plplot-driver-cairo "
               "and rebuild with -Dplot=enabled); everything else works, and "
               "--json and --csv hold the numbers", path);
  return FALSE;
}

gboolean
ffm_plot_is_available (void)
{
  return FALSE;
}

gboolean
ffm_plot_check (const char *path, GError **error)
{
  return check_format (path, error) && unavailable (path, error);
}

gboolean
ffm_plot_lines (const char *path, const FfmPlotAxes *axes,
                const FfmPlotSeries *series, guint n_series, GError **error)
{
  return unavailable (path, error);
}

gboolean
ffm_plot_stacked_bars (const char *path, const FfmPlotAxes *axes,
                       const char *const *categories, guint n_categories,
                       const char *const *components, guint n_components,
                       const double *values, GError **error)
{
  return unavailable (path, error);
}

gboolean
ffm_plot_grouped_bars (const char *path, const FfmPlotAxes *axes,
                       const FfmPlotBarGroups *bars, GError **error)
{
  return unavailable (path, error);
}

gboolean
ffm_plot_fusion (const char *path, const char *title, const FfmPlotFusionRow *rows,
                 guint n_rows, const char *const *kinds, guint n_kinds, GError **error)
{
  return unavailable (path, error);
}

#endif
