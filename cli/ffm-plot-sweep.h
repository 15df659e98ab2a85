/* ffm-plot-sweep.h: the per-point plots of `ffm sweep` (the FFM paper's
 * §8, Fig. 12 and Fig. 13), drawn with ffm-plot.h.
 *
 * From the rows of a sweep (one per point and policy, as its CSV holds
 * them), beside the EDP plot OUT.EXT:
 *   OUT-energy-components.EXT  stacked bars, energy of each memory level
 *                              and the compute per point and policy
 *                              (Fig. 12(a));
 *   OUT-energy-classes.EXT     stacked bars, off-chip (outermost memory)
 *                              energy per tensor class (Fig. 12(b));
 *   OUT-energy-classes-all.EXT the same over every memory;
 *   OUT-fusion.EXT             a row per point and policy, the Einsums in
 *                              order as boxes, the pairs that share a
 *                              tensor kept on chip joined by an arc in the
 *                              colour of that memory, each fused group
 *                              shaded alike (Fig. 13).
 * When the points' totals differ by more than 10x, each point's bars are
 * scaled to its largest (the totals are written above the bars), so that
 * short sweeps and long ones both stay readable. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One row of a sweep; the strings are the CSV fields (borrowed). */
typedef struct {
  const char *policy;
  const char *point;              /* the swept values: "512" */
  gboolean ok;
  const char *level_energy;       /* "MainMemory=E;GlobalBuffer=E;..." */
  const char *class_energy;       /* "weights=E;..." over every memory */
  const char *offchip_class_energy; /* the same, outermost memory only */
  const char *einsums;            /* "I;V;K;..." */
  const char *fused_einsums;      /* "Q>QK@GlobalBuffer;..." */
} FfmPlotSweepRow;

/* @path with @what before its suffix: ("out.svg", "fusion") ->
 * "out-fusion.svg" (transfer full). */
char *ffm_plot_sweep_path (const char *path, const char *what);

/* Draws the four plots beside @path from @rows (in point order: the
 * policies of a point next to each other, @n_policies of them); @swept
 * names the swept parameters ("new_tokens"). Stops at the first plot that
 * fails. */
gboolean ffm_plot_sweep_breakdowns (const char *path,
                                    const char *swept,
                                    const FfmPlotSweepRow *rows,
                                    guint n_rows,
                                    guint n_policies,
                                    GError **error);

G_END_DECLS
