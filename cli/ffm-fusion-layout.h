/* ffm-fusion-layout.h: where the arcs of a fusion diagram go.
 *
 * A fusion diagram (the FFM paper's Fig. 13) draws the Einsums of a
 * workload as a row of boxes and joins two boxes when the producer passes
 * a tensor to the consumer on chip. Drawn naively (every arc above the
 * row, its height by its length) arcs cross and run over each other as
 * soon as an Einsum feeds several others (GPT-3's I feeds V, K and Q).
 * This module places them so that no two arcs touch:
 *   - an arc is a bridge: up (or down) from a port on its first box, across,
 *     and back to a port on its last box;
 *   - two arcs whose spans interleave (a < c < b < d) cannot both be on one
 *     side without crossing: arcs go above or below the row so that no
 *     interleaving pair shares a side (a two-colouring of the interleave
 *     graph; a component that cannot be two-coloured keeps its conflicts,
 *     which the check below reports);
 *   - on a side, an arc is one level above every arc it spans (shared end
 *     boxes included), so nested bridges never touch;
 *   - each box gives every arc end its own port: arcs leaving to the left
 *     in its left half, to the right in its right half, the farther the
 *     other end, the further out, so that legs never cross a neighbour's
 *     span.
 * Units: box i spans x in [i, i + 1); a port's x is in (i, i + 1); levels
 * count from 1 (the lowest bridge). The PLplot fusion diagram and the HTML
 * report's SVG one both use it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint from, to;               /* the boxes, from < to */
  guint link;                   /* the index of the link it draws (first of duplicates) */
  gboolean below;               /* drawn under the row */
  guint level;                  /* 1 = the lowest bridge on its side */
  double x_from, x_to;          /* the ports */
} FfmFusionArc;

typedef struct {
  guint n_boxes;
  GArray *arcs;                 /* of FfmFusionArc */
  guint levels_above;           /* the highest level above, 0 = none */
  guint levels_below;
} FfmFusionLayout;

/* Places the links (from[k], to[k]) between @n_boxes boxes. Links out of
 * range or from a box to itself are left out; a pair given twice (two
 * tensors between the same Einsums) is one arc. (transfer full) */
FfmFusionLayout *ffm_fusion_layout_new (guint n_boxes, const guint *from, const guint *to,
                                        guint n_links);
void ffm_fusion_layout_free (FfmFusionLayout *layout);

/* The arc as a polyline of 4 points (x, height): height > 0 above the
 * row, < 0 below, in levels (the row's edge at 0). */
void ffm_fusion_arc_points (const FfmFusionArc *arc, double xy[8]);

/* TRUE when no two arcs cross or touch and every port is inside its box;
 * otherwise FALSE with @why (may be NULL) naming the first two that do
 * (transfer full). */
gboolean ffm_fusion_layout_check (const FfmFusionLayout *layout, char **why);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmFusionLayout, ffm_fusion_layout_free)

G_END_DECLS
