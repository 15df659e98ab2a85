/* ffm-plot-pareto.c: the trade-off plot of a sweep (see ffm-plot-pareto.h),
 * drawn with ffm_plot_lines(): each policy's points a series of markers
 * with gaps between them, the front a line with markers. */
#include "ffm-plot-pareto.h"
#include "ffm-plot.h"

#include <math.h>
#include <string.h>

typedef struct {
  const FfmParetoPoint *points;
} SortData;

static int
compare_x (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const FfmParetoPoint *points = ((const SortData *) user_data)->points;
  const FfmParetoPoint *p = &points[*(const guint *) a], *q = &points[*(const guint *) b];

  if (p->x != q->x)
    return p->x < q->x ? -1 : 1;
  return p->y < q->y ? -1 : p->y > q->y;
}

guint *
ffm_pareto_front (const FfmParetoPoint *points, guint n_points, guint *n_front)
{
  g_autofree guint *order = g_new (guint, MAX (n_points, 1));
  guint *front = g_new (guint, MAX (n_points, 1));
  SortData data = { points };
  guint n = 0, m = 0;
  double best_y = INFINITY;

  for (guint i = 0; i < n_points; i++)
    if (!isnan (points[i].x) && !isnan (points[i].y))
      order[n++] = i;
  g_qsort_with_data (order, (gint) n, sizeof (guint), compare_x, &data);
  /* By increasing x, a point is on the front when its y is below every y
   * before it. */
  for (guint i = 0; i < n; i++)
    if (points[order[i]].y < best_y)
      {
        front[m++] = order[i];
        best_y = points[order[i]].y;
      }
  *n_front = m;
  return front;
}

gboolean
ffm_plot_pareto (const char *path, const char *title, const char *x_label,
                 const char *y_label, const FfmParetoPoint *points, guint n_points,
                 GError **error)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GPtrArray) xs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) ys = g_ptr_array_new_with_free_func (g_free);
  g_autofree FfmPlotSeries *series = NULL;
  g_autofree guint *front = NULL;
  g_autofree double *fx = NULL, *fy = NULL;
  FfmPlotAxes axes = { .title = title, .x_label = x_label, .y_label = y_label,
                       .log_x = TRUE, .log_y = TRUE };
  double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
  guint n_front, n_series;

  for (guint i = 0; i < n_points; i++)
    {
      gboolean seen = FALSE;
      for (guint k = 0; k < names->len && !seen; k++)
        seen = strcmp (names->pdata[k], points[i].series) == 0;
      if (!seen)
        g_ptr_array_add (names, (gpointer) points[i].series);
      if (!isnan (points[i].x) && !isnan (points[i].y))
        {
          axes.log_x &= points[i].x > 0;
          axes.log_y &= points[i].y > 0;
          lo[0] = MIN (lo[0], points[i].x);
          hi[0] = MAX (hi[0], points[i].x);
          lo[1] = MIN (lo[1], points[i].y);
          hi[1] = MAX (hi[1], points[i].y);
        }
    }
  /* A log axis within one decade would have no labelled tick. */
  axes.log_x &= hi[0] > 10 * lo[0];
  axes.log_y &= hi[1] > 10 * lo[1];
  n_series = names->len + 1;
  series = g_new0 (FfmPlotSeries, n_series);
  /* Each policy: its points with a gap (NAN) after each, so markers only. */
  for (guint k = 0; k < names->len; k++)
    {
      double *x = g_new (double, 2 * MAX (n_points, 1));
      double *y = g_new (double, 2 * MAX (n_points, 1));
      guint m = 0;
      for (guint i = 0; i < n_points; i++)
        if (strcmp (points[i].series, names->pdata[k]) == 0)
          {
            x[m] = points[i].x;
            y[m++] = points[i].y;
            x[m] = NAN;
            y[m++] = NAN;
          }
      g_ptr_array_add (xs, x);
      g_ptr_array_add (ys, y);
      series[k] = (FfmPlotSeries) { names->pdata[k], m, x, y, NULL, NULL, TRUE };
    }
  front = ffm_pareto_front (points, n_points, &n_front);
  fx = g_new (double, MAX (n_front, 1));
  fy = g_new (double, MAX (n_front, 1));
  for (guint i = 0; i < n_front; i++)
    {
      fx[i] = points[front[i]].x;
      fy[i] = points[front[i]].y;
    }
  series[names->len] = (FfmPlotSeries) { "Pareto front", n_front, fx, fy, NULL, NULL,
                                         TRUE };
  return ffm_plot_lines (path, &axes, series, n_series, error);
}
