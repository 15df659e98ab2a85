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
 * The kinds of plot, the first three sharing the axes description:
 *   - lines: one line per series over x, optionally with a band (low to
 *     high at each x: the spread of several runs), log axes on request;
 *   - stacked bars: one bar per category, made of stacked components;
 *   - grouped stacked bars: the same, in groups (a bar per policy at each
 *     design point: the FFM paper's Fig. 12);
 *   - a fusion diagram: rows of boxes (Einsums) with the fused ones joined
 *     (the paper's Fig. 13).
 * An SVG line plot carries a plain-text description of itself (a <desc>
 * element: title, each axis with its label, scale (linear or log10) and
 * range, the series), for screen readers and for tests, since the
 * drawing's text is glyph outlines.
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
  double x_min, x_max;          /* x_max > x_min: the x axis spans at least
                                   this range (the data may widen it);
                                   both 0: fit the data */
  double y_min;                 /* > 0: the bottom of the y axis, lower values
                                   drawn on it (a log axis cannot show 0);
                                   0: fit the data */
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

/* Bars in groups: group g (a design point) holds n_bars bars (the
 * policies), bar b of it stacks values[(g * n_bars + b) * n_components + k]
 * for component k (NAN or <= 0: nothing). Each bar is labelled bars[b]
 * below it, each group groups[g] below its bars; notes (NULL, or one per
 * bar, NULL entries allowed) are written above the bars (their totals). */
typedef struct {
  const char *const *groups;
  guint n_groups;
  const char *const *bars;
  guint n_bars;
  const char *const *components;
  guint n_components;
  const double *values;
  const char *const *notes;
} FfmPlotBarGroups;

/* Draws @bars into @path (.svg, .png or .pdf); the axes' log flags are
 * ignored. */
gboolean ffm_plot_grouped_bars (const char *path,
                                const FfmPlotAxes *axes,
                                const FfmPlotBarGroups *bars,
                                GError **error);

/* One row of a fusion diagram: boxes in order (the Einsums), and links
 * between boxes (a producer and a consumer sharing a tensor kept on chip),
 * link k joining boxes from[k] and to[k], drawn in the colour of
 * kinds[kind[k]] (the memory the tensor stays in). Boxes joined by links
 * are shaded alike: one fused group. A failed row is drawn as its label
 * and the word "failed". */
typedef struct {
  const char *label;
  gboolean failed;
  const char *const *boxes;
  guint n_boxes;
  const guint *from;
  const guint *to;
  const guint *kind;
  guint n_links;
} FfmPlotFusionRow;

/* Where ffm_plot_fusion() puts things, in pixels of its page (computed in
 * every build: the tests check that each label fits its box). Arcs are
 * placed by ffm-fusion-layout.h, so that none touches another; boxes are
 * as wide as their longest label in a monospace font. */
typedef struct {
  int width, height;            /* the page */
  double label_column;          /* the rows' labels, left of the boxes */
  double column;                /* one box's slot */
  double box_inner;             /* a box's width */
  double widest_label;          /* the longest box label at box_font */
  double box_font;              /* box labels' character height */
  double row_font;              /* rows' labels */
  double box_height;
  double level_step;            /* between two levels of arcs */
  double row_gap;
} FfmPlotFusionGeometry;

/* The advance of a monospace character in PLplot's cairo drivers, in
 * character heights (PLplot 5.15 with DejaVu Sans Mono: 0.80, measured on
 * PNG output; rounded up). */
#define FFM_PLOT_MONO_ADVANCE 0.82

void ffm_plot_fusion_geometry (const FfmPlotFusionRow *rows, guint n_rows, guint n_kinds,
                               FfmPlotFusionGeometry *geometry);

/* Draws the rows top to bottom into @path, with a legend of @kinds
 * ("kept in GlobalBuffer"). */
gboolean ffm_plot_fusion (const char *path,
                          const char *title,
                          const FfmPlotFusionRow *rows,
                          guint n_rows,
                          const char *const *kinds,
                          guint n_kinds,
                          GError **error);

G_END_DECLS
