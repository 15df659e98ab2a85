/* ffm-chart.c: the report's charts as SVG shapes (ffm-chart.h). */
#include "ffm-chart.h"
#include "ffm-fusion-layout.h"

#include <ffm/ffm.h>
#include <math.h>
#include <string.h>

/* TUNING: sizes, pixels. */
#define FONT 11.0
#define TITLE_FONT 13.0
#define CHAR (FFM_CANVAS_CHAR_WIDTH * FONT)
#define MARGIN 12.0
#define WIDTH 760.0

#define INK 0x222222
#define GREY 0x777777
#define GRID 0xe3e3e3

/* The series colours (a qualitative palette, as ffm-plot.c's). */
static const guint32 palette[] = { 0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                   0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf };
#define N_COLOURS G_N_ELEMENTS (palette)

static guint32
colour (guint i)
{
  return palette[i % N_COLOURS];
}

/* @c mixed with white: @f = 0 keeps it, 1 is white. */
static guint32
lighter (guint32 c, double f)
{
  guint r = (c >> 16) & 0xFF, g = (c >> 8) & 0xFF, b = c & 0xFF;

  r = (guint) (r + (255 - r) * f);
  g = (guint) (g + (255 - g) * f);
  b = (guint) (b + (255 - b) * f);
  return (r << 16) | (g << 8) | b;
}

static char *
exact (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (isfinite (v) ? g_ascii_formatd (buf, sizeof buf, "%.17g", v) : "");
}

static guint
chars (const char *text)
{
  return text != NULL ? (guint) g_utf8_strlen (text, -1) : 0;
}

/* ---- Bars ---- */

FfmCanvas *
ffm_chart_bars (const char *title, const char *const *labels, const double *values, guint n,
                const char *unit, gboolean percent)
{
  double label_w = 0, top = MARGIN + 24, max = percent ? 1 : 0, area;
  FfmCanvas *c;

  for (guint i = 0; i < n; i++)
    {
      label_w = MAX (label_w, chars (labels[i]) * CHAR);
      if (isfinite (values[i]) && values[i] > max)
        max = values[i];
    }
  if (max <= 0)
    max = 1;
  label_w += 10;
  area = WIDTH - 2 * MARGIN - label_w - 14 * CHAR;
  c = ffm_canvas_new (WIDTH, top + 22.0 * n + MARGIN);
  ffm_canvas_set_title (c, title);
  ffm_canvas_text (c, MARGIN, MARGIN + 13, title, TITLE_FONT, TRUE, INK, FFM_CANVAS_START);
  for (guint i = 0; i < n; i++)
    {
      double y = top + 22.0 * i, v = values[i];
      double w = isfinite (v) && v > 0 ? area * v / max : 0;
      g_autofree char *text = !isfinite (v) ? g_strdup ("-")
        : percent ? g_strdup_printf ("%.1f %%", 100 * v) : ffm_format_si (v, unit);
      g_autofree char *data = exact (v);
      ffm_canvas_begin_group (c, "bar", NULL);
      ffm_canvas_group_data (c, "label", labels[i]);
      ffm_canvas_group_data (c, "value", data);
      ffm_canvas_text (c, MARGIN + label_w - 6, y + 12, labels[i], FONT, FALSE, INK,
                       FFM_CANVAS_END);
      ffm_canvas_rect (c, MARGIN + label_w, y + 2, MAX (w, 1), 14, 0, colour (0),
                       FFM_CANVAS_NONE, 0, FALSE);
      ffm_canvas_text (c, MARGIN + label_w + MAX (w, 1) + 6, y + 12, text, FONT, FALSE, INK,
                       FFM_CANVAS_START);
      ffm_canvas_end_group (c);
    }
  return c;
}

/* ---- Axes ---- */

typedef struct {
  double lo, hi;                /* in axis units (log10 on a log axis) */
  gboolean log;
  double px0, px1;              /* pixels of lo and hi */
} Axis;

static double
to_px (const Axis *a, double v)
{
  double u = a->log ? log10 (v) : v;

  return a->px0 + (u - a->lo) / (a->hi - a->lo) * (a->px1 - a->px0);
}

static gboolean
usable (double v, gboolean log_axis)
{
  return isfinite (v) && (!log_axis || v > 0);
}

/* A tick value's text: "0.1", "1000", "1e+06". */
static char *
tick_text (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (fabs (v) < 1e-12)
    return g_strdup ("0");
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

/* Ticks of @a (values, not axis units), about 5 of them. */
static GArray *
ticks (const Axis *a)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (double));

  if (a->log)
    {
      double step = MAX (1, ceil ((a->hi - a->lo) / 6));
      /* Less than two decades: 1, 2 and 5 of each. */
      static const double few[] = { 1, 2, 5 };
      guint n_few = a->hi - a->lo < 2 ? 3 : 1;
      for (double e = floor (a->lo); e <= a->hi + 1e-9; e += step)
        for (guint k = 0; k < n_few; k++)
          {
            double v = few[k] * pow (10, e);
            if (log10 (v) >= a->lo - 1e-9 && log10 (v) <= a->hi + 1e-9)
              g_array_append_val (out, v);
          }
    }
  else
    {
      double raw = (a->hi - a->lo) / 5, mag = pow (10, floor (log10 (raw))), step;
      double f = raw / mag;
      step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
      for (double v = ceil (a->lo / step) * step; v <= a->hi + 1e-9 * step; v += step)
        g_array_append_val (out, v);
    }
  return out;
}

static void
fit_axis (Axis *a, double lo, double hi, double pad)
{
  if (!isfinite (lo))
    {
      lo = a->log ? 0 : 0;
      hi = 1;
    }
  if (hi - lo < 1e-12)
    {
      lo -= 0.5;
      hi += 0.5;
    }
  a->lo = lo - pad * (hi - lo);
  a->hi = hi + pad * (hi - lo);
}

/* Grid, frame, ticks and labels; @x_ticks FALSE for a categorical x. */
static void
draw_axes (FfmCanvas *c, const Axis *x, const Axis *y, const FfmPlotAxes *axes,
           gboolean x_ticks)
{
  g_autoptr (GArray) xt = x_ticks ? ticks (x) : g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) yt = ticks (y);

  for (guint i = 0; i < xt->len; i++)
    {
      double v = g_array_index (xt, double, i), px = to_px (x, v);
      g_autofree char *t = tick_text (v);
      ffm_canvas_line (c, px, y->px1, px, y->px0, GRID, 1, FALSE);
      ffm_canvas_text (c, px, y->px0 + 15, t, FONT, FALSE, INK, FFM_CANVAS_MIDDLE);
    }
  for (guint i = 0; i < yt->len; i++)
    {
      double v = g_array_index (yt, double, i), py = to_px (y, v);
      g_autofree char *t = tick_text (v);
      ffm_canvas_line (c, x->px0, py, x->px1, py, GRID, 1, FALSE);
      ffm_canvas_text (c, x->px0 - 5, py + 4, t, FONT, FALSE, INK, FFM_CANVAS_END);
    }
  ffm_canvas_rect (c, x->px0, y->px1, x->px1 - x->px0, y->px0 - y->px1, 0, FFM_CANVAS_NONE,
                   0x444444, 1, FALSE);
  if (axes->title != NULL)
    ffm_canvas_text (c, MARGIN, MARGIN + 13, axes->title, TITLE_FONT, TRUE, INK,
                     FFM_CANVAS_START);
  if (axes->x_label != NULL)
    {
      g_autofree char *t = g_strdup_printf ("%s%s", axes->x_label, x->log ? " (log)" : "");
      ffm_canvas_text (c, (x->px0 + x->px1) / 2, y->px0 + 32, t, FONT, FALSE, INK,
                       FFM_CANVAS_MIDDLE);
    }
  if (axes->y_label != NULL)
    {
      g_autofree char *t = g_strdup_printf ("%s%s", axes->y_label, y->log ? " (log)" : "");
      ffm_canvas_text (c, x->px0, y->px1 - 8, t, FONT, FALSE, INK, FFM_CANVAS_START);
    }
}

/* ---- Lines ---- */

static double
clamp_px (const Axis *a, double v)
{
  double px = to_px (a, v);

  return CLAMP (px, MIN (a->px0, a->px1), MAX (a->px0, a->px1));
}

FfmCanvas *
ffm_chart_lines (const FfmPlotAxes *axes, const FfmPlotSeries *series, guint n_series)
{
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY, legend_w = 0;
  const double height = 400;
  Axis x = { 0 }, y = { 0 };
  FfmCanvas *c;

  x.log = axes->log_x;
  y.log = axes->log_y;
  for (guint s = 0; s < n_series; s++)
    {
      legend_w = MAX (legend_w, chars (series[s].label) * CHAR);
      for (guint i = 0; i < series[s].n; i++)
        {
          const FfmPlotSeries *se = &series[s];
          if (!usable (se->x[i], x.log) || !usable (se->y[i], y.log))
            continue;
          xlo = MIN (xlo, x.log ? log10 (se->x[i]) : se->x[i]);
          xhi = MAX (xhi, x.log ? log10 (se->x[i]) : se->x[i]);
          ylo = MIN (ylo, y.log ? log10 (se->y[i]) : se->y[i]);
          yhi = MAX (yhi, y.log ? log10 (se->y[i]) : se->y[i]);
          if (se->low != NULL && usable (se->low[i], y.log))
            ylo = MIN (ylo, y.log ? log10 (se->low[i]) : se->low[i]);
          if (se->high != NULL && usable (se->high[i], y.log))
            yhi = MAX (yhi, y.log ? log10 (se->high[i]) : se->high[i]);
        }
    }
  if (axes->x_max > axes->x_min && usable (axes->x_min, x.log) && usable (axes->x_max, x.log))
    {
      xlo = MIN (xlo, x.log ? log10 (axes->x_min) : axes->x_min);
      xhi = MAX (xhi, x.log ? log10 (axes->x_max) : axes->x_max);
    }
  if (axes->y_min > 0 && usable (axes->y_min, y.log))
    ylo = y.log ? log10 (axes->y_min) : axes->y_min;
  if (axes->y_max > 0 && usable (axes->y_max, y.log))
    yhi = MIN (yhi, y.log ? log10 (axes->y_max) : axes->y_max);
  if (isfinite (ylo) && yhi < ylo)
    yhi = ylo + 1;
  fit_axis (&x, xlo, xhi, 0.03);
  fit_axis (&y, ylo, yhi, 0.06);
  legend_w += 40;
  x.px0 = MARGIN + 60;
  x.px1 = WIDTH - MARGIN - legend_w;
  y.px0 = height - 50;
  y.px1 = MARGIN + 40;
  c = ffm_canvas_new (WIDTH, height);
  ffm_canvas_set_title (c, axes->title);
  draw_axes (c, &x, &y, axes, TRUE);
  for (guint s = 0; s < n_series; s++)
    {
      const FfmPlotSeries *se = &series[s];
      g_autofree double *xy = g_new (double, 4 * MAX (se->n, 1));
      guint32 col = colour (s);
      ffm_canvas_begin_group (c, "series", se->label);
      ffm_canvas_group_data (c, "label", se->label != NULL ? se->label : "");
      for (guint i = 0; i < se->n; )
        {
          guint j = i, m = 0;
          while (j < se->n && usable (se->x[j], x.log) && usable (se->y[j], y.log))
            j++;
          if (j == i)
            {
              i++;
              continue;
            }
          if (se->low != NULL && se->high != NULL && j - i >= 2)
            {
              for (guint k = i; k < j; k++, m++)
                {
                  xy[2 * m] = clamp_px (&x, se->x[k]);
                  xy[2 * m + 1] = clamp_px (&y, usable (se->high[k], y.log) ? se->high[k]
                                                                           : se->y[k]);
                }
              for (guint k = j; k-- > i; m++)
                {
                  xy[2 * m] = clamp_px (&x, se->x[k]);
                  xy[2 * m + 1] = clamp_px (&y, usable (se->low[k], y.log) ? se->low[k]
                                                                          : se->y[k]);
                }
              ffm_canvas_polyline (c, xy, m, lighter (col, 0.8), FFM_CANVAS_NONE, 0, FALSE);
            }
          for (guint k = i; k < j; k++)
            {
              xy[2 * (k - i)] = clamp_px (&x, se->x[k]);
              xy[2 * (k - i) + 1] = clamp_px (&y, se->y[k]);
            }
          ffm_canvas_polyline (c, xy, j - i, FFM_CANVAS_NONE, col, 2, FALSE);
          if (se->markers || j - i == 1)
            for (guint k = i; k < j; k++)
              {
                g_autofree char *vx = exact (se->x[k]), *vy = exact (se->y[k]);
                ffm_canvas_begin_group (c, "point", NULL);
                ffm_canvas_group_data (c, "x", vx);
                ffm_canvas_group_data (c, "value", vy);
                ffm_canvas_rect (c, xy[2 * (k - i)] - 3.5, xy[2 * (k - i) + 1] - 3.5, 7, 7, 3.5,
                                 col, 0xffffff, 1, FALSE);
                ffm_canvas_end_group (c);
              }
          i = j;
        }
      ffm_canvas_end_group (c);
      /* The legend entry. */
      ffm_canvas_line (c, x.px1 + 14, y.px1 + 10 + 20.0 * s, x.px1 + 34, y.px1 + 10 + 20.0 * s,
                       col, 2.5, FALSE);
      ffm_canvas_text (c, x.px1 + 40, y.px1 + 14 + 20.0 * s, se->label, FONT, FALSE, INK,
                       FFM_CANVAS_START);
    }
  return c;
}

/* ---- Grouped stacked bars ---- */

static double
bar_value (const FfmPlotBarGroups *g, guint bar, guint k)
{
  double v = g->values[(gsize) bar * g->n_components + k];

  return isfinite (v) && v > 0 ? v : 0;
}

/* A row of legend entries (colour k, @names[k]) from @y, wrapping at
 * @width; returns the bottom. */
static double
legend_row (FfmCanvas *c, const char *const *names, guint n, double y, double width)
{
  double x = MARGIN;

  for (guint k = 0; k < n; k++)
    {
      double w = 20 + chars (names[k]) * CHAR + 18;
      if (x > MARGIN && x + w > width - MARGIN)
        {
          x = MARGIN;
          y += 18;
        }
      if (c != NULL)
        {
          ffm_canvas_rect (c, x, y, 14, 12, 0, colour (k), FFM_CANVAS_NONE, 0, FALSE);
          ffm_canvas_text (c, x + 20, y + 10, names[k], FONT, FALSE, INK, FFM_CANVAS_START);
        }
      x += w;
    }
  return y + (n > 0 ? 18 : 0);
}

FfmCanvas *
ffm_chart_grouped_bars (const FfmPlotAxes *axes, const FfmPlotBarGroups *g)
{
  guint n = g->n_groups * g->n_bars;
  double slot = 4, top = 0, left = MARGIN + 60, plot_w, width, legend_bottom;
  const double plot_h = 300;
  Axis y = { 0 };
  FfmCanvas *c;

  for (guint b = 0; b < g->n_bars; b++)
    slot = MAX (slot, chars (g->bars[b]));
  for (guint b = 0; g->notes != NULL && b < n; b++)
    slot = MAX (slot, chars (g->notes[b]));
  slot = slot * FFM_CANVAS_CHAR_WIDTH * 9 + 8;
  for (guint b = 0; b < n; b++)
    {
      double sum = 0;
      for (guint k = 0; k < g->n_components; k++)
        sum += bar_value (g, b, k);
      top = MAX (top, sum);
    }
  if (top <= 0)
    top = 1;
  plot_w = slot * g->n_groups * (g->n_bars + 1);
  width = MAX (WIDTH, left + plot_w + 2 * MARGIN);
  /* The legend above the plot, so that a wide chart keeps it in view. */
  legend_bottom = legend_row (NULL, g->components, g->n_components, MARGIN + 24, width);
  y.lo = 0;
  y.hi = 1.12 * top;
  y.px1 = legend_bottom + 26;
  y.px0 = y.px1 + plot_h;
  c = ffm_canvas_new (width, y.px0 + 70);
  ffm_canvas_set_title (c, axes->title);
  legend_row (c, g->components, g->n_components, MARGIN + 24, width);
  {
    Axis x = { 0, 1, FALSE, left, left + plot_w };
    FfmPlotAxes a = *axes;
    a.x_label = NULL;
    draw_axes (c, &x, &y, &a, FALSE);
  }
  for (guint gi = 0; gi < g->n_groups; gi++)
    {
      double gx = left + slot * gi * (g->n_bars + 1) + slot / 2;
      for (guint b = 0; b < g->n_bars; b++)
        {
          guint bar = gi * g->n_bars + b;
          double bx = gx + slot * b, base = 0;
          double sum = 0;
          for (guint k = 0; k < g->n_components; k++)
            sum += bar_value (g, bar, k);
          {
            g_autofree char *v = exact (sum);
            ffm_canvas_begin_group (c, "bar", NULL);
            ffm_canvas_group_data (c, "group", g->groups[gi]);
            ffm_canvas_group_data (c, "label", g->bars[b]);
            ffm_canvas_group_data (c, "value", v);
          }
          for (guint k = 0; k < g->n_components; k++)
            {
              double v = bar_value (g, bar, k);
              double y0 = to_px (&y, base), y1 = to_px (&y, base + v);
              if (v <= 0)
                continue;
              ffm_canvas_rect (c, bx + 3, y1, slot - 6, y0 - y1, 0, colour (k), FFM_CANVAS_NONE,
                               0, FALSE);
              base += v;
            }
          if (g->notes != NULL && g->notes[bar] != NULL)
            ffm_canvas_text (c, bx + slot / 2, to_px (&y, base) - 4, g->notes[bar], 9, FALSE,
                             INK, FFM_CANVAS_MIDDLE);
          ffm_canvas_text (c, bx + slot / 2, y.px0 + 14, g->bars[b], 9, FALSE, INK,
                           FFM_CANVAS_MIDDLE);
          ffm_canvas_end_group (c);
        }
      ffm_canvas_text (c, gx + slot * g->n_bars / 2, y.px0 + 30, g->groups[gi], FONT, TRUE,
                       INK, FFM_CANVAS_MIDDLE);
    }
  if (axes->x_label != NULL)
    ffm_canvas_text (c, left + plot_w / 2, y.px0 + 50, axes->x_label, FONT, FALSE, INK,
                     FFM_CANVAS_MIDDLE);
  return c;
}

/* ---- Fusion ---- */

static guint
find_root (guint *parent, guint i)
{
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

#define BOX_H 22.0
#define LEVEL_STEP 7.0

FfmCanvas *
ffm_chart_fusion (const char *title, const FfmPlotFusionRow *rows, guint n_rows,
                  const char *const *kinds, guint n_kinds)
{
  double label_w = 0, col = 0, y, width;
  guint n_columns = 0;
  g_autoptr (GPtrArray) layouts = g_ptr_array_new_with_free_func (
    (GDestroyNotify) ffm_fusion_layout_free);
  FfmCanvas *c;

  for (guint r = 0; r < n_rows; r++)
    {
      label_w = MAX (label_w, chars (rows[r].label) * CHAR);
      n_columns = MAX (n_columns, rows[r].n_boxes);
      for (guint i = 0; i < rows[r].n_boxes; i++)
        col = MAX (col, chars (rows[r].boxes[i]) * CHAR);
      g_ptr_array_add (layouts, ffm_fusion_layout_new (rows[r].n_boxes, rows[r].from,
                                                       rows[r].to, rows[r].n_links));
    }
  label_w += 12;
  col = MAX (col + 16, 48);
  width = MAX (WIDTH, 2 * MARGIN + label_w + col * n_columns);
  /* Height: every row's arcs, then the legend. */
  y = MARGIN + 28;
  for (guint r = 0; r < n_rows; r++)
    {
      const FfmFusionLayout *l = g_ptr_array_index (layouts, r);
      y += (l->levels_above + l->levels_below) * LEVEL_STEP + BOX_H + 16;
    }
  c = ffm_canvas_new (width, y + 22.0 * (n_kinds + 2) + MARGIN);
  ffm_canvas_set_title (c, title);
  ffm_canvas_text (c, MARGIN, MARGIN + 13, title, TITLE_FONT, TRUE, INK, FFM_CANVAS_START);
  y = MARGIN + 28;
  for (guint r = 0; r < n_rows; r++)
    {
      const FfmPlotFusionRow *row = &rows[r];
      const FfmFusionLayout *l = g_ptr_array_index (layouts, r);
      double box_top = y + l->levels_above * LEVEL_STEP + 6, x0 = MARGIN + label_w;
      g_autofree guint *parent = g_new (guint, MAX (row->n_boxes, 1));
      g_autofree guint *size = g_new0 (guint, MAX (row->n_boxes, 1));
      g_autofree int *shade = g_new (int, MAX (row->n_boxes, 1));
      guint n_groups = 0;

      ffm_canvas_begin_group (c, "fusion-row", NULL);
      ffm_canvas_group_data (c, "label", row->label);
      ffm_canvas_text (c, x0 - 8, box_top + 15, row->label, FONT, FALSE, INK, FFM_CANVAS_END);
      if (row->failed)
        {
          ffm_canvas_text (c, x0 + 4, box_top + 15, "failed (no mapping)", FONT, FALSE,
                           0xc00000, FFM_CANVAS_START);
          ffm_canvas_end_group (c);
          y += BOX_H + 16;
          continue;
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
          guint root = find_root (parent, i);
          if (size[root] > 1 && shade[root] < 0)
            shade[root] = (int) n_groups++;
        }
      for (guint i = 0; i < l->arcs->len; i++)
        {
          const FfmFusionArc *a = &g_array_index (l->arcs, FfmFusionArc, i);
          double p[8], xy[8];
          ffm_fusion_arc_points (a, p);
          for (guint k = 0; k < 4; k++)
            {
              xy[2 * k] = x0 + p[2 * k] * col;
              xy[2 * k + 1] = p[2 * k + 1] >= 0 ? box_top - p[2 * k + 1] * LEVEL_STEP
                                                : box_top + BOX_H - p[2 * k + 1] * LEVEL_STEP;
            }
          ffm_canvas_begin_group (c, "arc", NULL);
          ffm_canvas_group_data (c, "from", row->boxes[a->from]);
          ffm_canvas_group_data (c, "to", row->boxes[a->to]);
          ffm_canvas_polyline (c, xy, 4, FFM_CANVAS_NONE,
                               colour (row->kind != NULL ? row->kind[a->link] : 0), 2, FALSE);
          ffm_canvas_end_group (c);
        }
      for (guint i = 0; i < row->n_boxes; i++)
        {
          int sh = shade[find_root (parent, i)];
          ffm_canvas_begin_group (c, "einsum-box", NULL);
          ffm_canvas_group_data (c, "einsum", row->boxes[i]);
          ffm_canvas_rect (c, x0 + i * col + 3, box_top, col - 6, BOX_H, 3,
                           sh >= 0 ? lighter (colour ((guint) sh), 0.78) : 0xffffff, 0x555555, 1,
                           FALSE);
          ffm_canvas_text (c, x0 + (i + 0.5) * col, box_top + 15, row->boxes[i], FONT, FALSE,
                           INK, FFM_CANVAS_MIDDLE);
          ffm_canvas_end_group (c);
        }
      ffm_canvas_end_group (c);
      y += (l->levels_above + l->levels_below) * LEVEL_STEP + BOX_H + 16;
    }
  for (guint i = 0; i < n_kinds; i++)
    {
      ffm_canvas_line (c, MARGIN, y + 8 + 22.0 * i, MARGIN + 24, y + 8 + 22.0 * i, colour (i),
                       2.5, FALSE);
      ffm_canvas_text (c, MARGIN + 30, y + 12 + 22.0 * i, kinds[i], FONT, FALSE, INK,
                       FFM_CANVAS_START);
    }
  ffm_canvas_text (c, MARGIN, y + 12 + 22.0 * n_kinds,
                   "Arcs: a tensor passed on chip from one Einsum to another; boxes shaded "
                   "alike: fused together", FONT, FALSE, INK, FFM_CANVAS_START);
  return c;
}
