/* ffm-plot-pareto.h: the trade-off plot of `ffm sweep --plot-pareto X,Y`:
 * every design point as a marker (one colour per policy) and the Pareto
 * front of the two quantities (both minimised) as a line, log axes when
 * every value is positive and they span more than a decade. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One design point. */
typedef struct {
  const char *series;     /* the legend entry it belongs to (a policy) */
  double x, y;            /* NAN: not drawn (a failed point) */
} FfmParetoPoint;

/* Indices of the points on the Pareto front of @points (no other point has
 * both x and y at most as large, one of them smaller), by increasing x
 * (transfer full; *@n_front of them). Points with NAN are left out. */
guint *ffm_pareto_front (const FfmParetoPoint *points, guint n_points, guint *n_front);

/* Draws @points and their front into @path (.svg, .png or .pdf). */
gboolean ffm_plot_pareto (const char *path, const char *title, const char *x_label,
                          const char *y_label, const FfmParetoPoint *points,
                          guint n_points, GError **error);

G_END_DECLS
