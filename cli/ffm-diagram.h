/* ffm-diagram.h: a fused mapping drawn as a LoopTree diagram
 * (`ffm map --diagram`, `ffm eval --diagram`, the HTML report).
 *
 * The FFM paper draws its GPT-3 mapping (Fig. 10) as a LoopTree whose
 * nodes sit in horizontal bands, one per memory level, outermost on top;
 * this module draws a mapping the same way, from its cost report:
 *   - a band per memory level that keeps a tensor in the mapping, and a
 *     compute band at the bottom; a node sits in the band of the innermost
 *     memory kept above it (a storage node in its own level's band);
 *   - storage nodes: the level and the tensors it keeps (consecutive
 *     storage nodes of one level merged into one box); a tensor passed
 *     between Einsums and kept on chip is bold and coloured, a persistent
 *     one starred;
 *   - loops: rank variable, tile and iterations ("for m tile 128 x16");
 *     spatial loops ("S-for") with the fanout dimension, the instances it
 *     uses of those there are and the share; a fused loop (above a split,
 *     shared by the Einsums below it) is outlined thick and coloured;
 *   - splits as small "split" nodes; every Einsum's own subtree framed;
 *     each compute leaf with the Einsum's energy, latency and how busy its
 *     compute units are.
 * Wide mappings are folded: when the diagram would be wider than
 * FFM_DIAGRAM_MAX_WIDTH, the branches of its outermost split are wrapped
 * into parts stacked top to bottom ("part 2 of 9"), each with its bands
 * and a stub standing for the split above; a single branch wider than that
 * stays whole. GPT-3 6.7B's 10 Einsums on TPUv4i fit in one part, 2,255 px
 * wide; ResNet-50's 54 Einsums mapped unfused take 6 parts of 10.
 *
 * The same tree is available as Graphviz DOT (--diagram-dot), for those
 * who want to restyle it: one node per box, the Einsums' subtrees as
 * clusters, the band of each node in its tooltip. */
#pragma once

#include <ffm/ffm.h>

#include "ffm-canvas.h"

G_BEGIN_DECLS

/* TUNING: the widest part of a folded diagram, pixels (a screen and a
 * half: wide enough for GPT-3's 10 Einsums unfolded). */
#define FFM_DIAGRAM_MAX_WIDTH 2400.0

/* The diagram of @report's mapping; @title above it (NULL: "Mapping of
 * WORKLOAD on ARCH" with the totals). (transfer full) */
FfmCanvas *ffm_diagram_draw (const FfmCostReport *report, const char *title);

/* The same tree as a Graphviz DOT digraph (transfer full). */
char *ffm_diagram_to_dot (const FfmCostReport *report, const char *title);

/* Checks @path before any work: the suffix names a format this build
 * writes (ffm_canvas_check_path()); errors name @option. */
gboolean ffm_diagram_check_path (const char *path, const char *option, GError **error);

/* Draws the diagram into @path (.svg, .png or .pdf). */
gboolean ffm_diagram_write (const FfmCostReport *report, const char *title, const char *path,
                            GError **error);
/* Writes the DOT source to @path. */
gboolean ffm_diagram_write_dot (const FfmCostReport *report, const char *title,
                                const char *path, GError **error);

G_END_DECLS
