/* ffm-chart.h: the charts of the HTML report, drawn as SVG by hand
 * (ffm-canvas.h).
 *
 * An HTML report must be one self-contained file that reads in any
 * browser, in every build (with or without PLplot), and whose numbers a
 * test can find in its DOM; so its charts are SVG written here rather
 * than images. They take the data structures of ffm-plot.h, so that the
 * PLplot figure of a command (--plot) and the chart in its report are
 * drawn from the same numbers:
 *   - horizontal bars, one per label, the value written at the end (energy
 *     by component, by tensor class, by Einsum; utilization);
 *   - lines over x, optionally with bands and log axes (a sweep's EDP, a
 *     comparison's convergence);
 *   - grouped stacked bars (a sweep's energy per point and policy);
 *   - a fusion diagram (rows of Einsums, arcs for the tensors passed on
 *     chip: ffm-fusion-layout.h).
 * Every bar, point and box is a group with data-label and data-value (the
 * exact number), so the DOM holds the same numbers as the JSON. */
#pragma once

#include "ffm-canvas.h"
#include "ffm-plot.h"

G_BEGIN_DECLS

/* Horizontal bars: value[i] (>= 0; NAN: "-") labelled label[i]; the text
 * after each bar is @format's (ffm_format_si (v, unit) when @percent is
 * FALSE, "42.0 %" of a fraction when TRUE). (transfer full) */
FfmCanvas *ffm_chart_bars (const char *title, const char *const *labels, const double *values,
                           guint n, const char *unit, gboolean percent);

/* Lines (ffm-plot.h's series and axes; y_max clips the y axis). */
FfmCanvas *ffm_chart_lines (const FfmPlotAxes *axes, const FfmPlotSeries *series,
                            guint n_series);

/* Grouped stacked bars (ffm-plot.h). */
FfmCanvas *ffm_chart_grouped_bars (const FfmPlotAxes *axes, const FfmPlotBarGroups *bars);

/* A fusion diagram: one row per FfmPlotFusionRow, arcs coloured by
 * kinds[kind[k]]. */
FfmCanvas *ffm_chart_fusion (const char *title, const FfmPlotFusionRow *rows, guint n_rows,
                             const char *const *kinds, guint n_kinds);

G_END_DECLS
