/* ffm-plot.h: plots for the `ffm` commands, drawn by PLplot.
 *
 * People look at a convergence curve or a breakdown faster than they read
 * a table, so commands that produce series (ffm compare's Fig. 8, the
 * design-space sweep's plots) draw them with a plotting library rather
 * than by hand: PLplot, through its cairo drivers (SVG, PNG, PDF; the
 * format is the file name's suffix). PLplot is an optional build feature
 * (meson option -Dplot=auto|enabled|disabled): without it every function
 * here fails with FFM_PLOT_ERROR_UNAVAILABLE, whose message says that this
 * build has no plotting and how to get it, and everything else works.
 *
 * Two kinds of plot, sharing the axes description:
 *   - lines: one line per series over x, optionally with a band (low to
 *     high at each x: the spread of several runs), log axes on request;
 *   - stacked bars: one bar per category, made of stacked components.
 * The output is written to a temporary file beside the destination,
 * checked (the format's trailer is there), then renamed: a failed plot
 * leaves no half-written file. PLplot keeps global state: call these from
 * one thread at a time. Its fatal errors are caught and reported as
 * FFM_PLOT_ERROR_FAILED instead of ending the process. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define FFM_PLOT_ERROR (ffm_plot_error_quark ())

typedef enum {
  FFM_PLOT_ERROR_UNAVAILABLE,   /* built without PLplot, or no cairo driver */
  FFM_PLOT_ERROR_FORMAT,        /* not .svg, .png or .pdf */
  FFM_PLOT_ERROR_WRITE,         /* the file could not be written */
  FFM_PLOT_ERROR_FAILED,        /* PLplot reported an error */
} FfmPlotError;

GQuark ffm_plot_error_quark (void);

/* TRUE when this build draws plots (PLplot and its cairo drivers). */
gboolean ffm_plot_is_available (void);
/* TRUE if a plot can be written to @path: this build plots, its driver
 * is there and the suffix names a format. Otherwise FALSE with the error
 * the plot would give (FFM_PLOT_ERROR_UNAVAILABLE or _FORMAT), so that a
 * command can say so before its work rather than after. */
gboolean ffm_plot_check (const char *path, GError **error);

typedef struct {
  const char *title;
  const char *x_label;
  const char *y_label;
  gboolean log_x;               /* x on a log10 scale (every x must be > 0) */
  gboolean log_y;               /* likewise for y */
  double y_max;                 /* > 0: the top of the y axis (bands and lines
                                   above it are clipped); 0: fit the data */
} FfmPlotAxes;

/* One line: @n points (x[i], y[i]); a band from low[i] to high[i] when
 * both are non-NULL. Points whose y (or x on a log axis) is not finite
 * (or not positive on a log axis) are gaps in the line. */
typedef struct {
  const char *label;            /* in the legend */
  guint n;
  const double *x;
  const double *y;
  const double *low;            /* may be NULL */
  const double *high;           /* may be NULL */
  gboolean markers;             /* draw a marker at each point too */
} FfmPlotSeries;

/* Draws @series into @path (.svg, .png or .pdf). */
gboolean ffm_plot_lines (const char *path,
                         const FfmPlotAxes *axes,
                         const FfmPlotSeries *series,
                         guint n_series,
                         GError **error);

/* Stacked bars: bar c stacks values[c * n_components + k] for component
 * k = 0 .. n_components - 1 (non-negative), labelled categories[c];
 * components[k] names the legend entries. log_x is ignored. */
gboolean ffm_plot_stacked_bars (const char *path,
                                const FfmPlotAxes *axes,
                                const char *const *categories,
                                guint n_categories,
                                const char *const *components,
                                guint n_components,
                                const double *values,
                                GError **error);

G_END_DECLS
