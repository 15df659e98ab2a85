/* ffm-mapspace-diagnostics.h: the mapspace's insides, for tests (an
 * internal header, docs/layout.md: not installed, not part of the plugin
 * API).
 *
 * Local moves draw from indexes built once (ffm-mapspace-moves.c); the
 * tests compare the candidates those give with a scan of every group by
 * the moves' definitions (ffm-mapspace.h, FfmMapspaceMove). */
#pragma once

#include <ffm/ffm-mapspace.h>

G_BEGIN_DECLS

/* Every group move @kind may take Einsum @einsum of compatible @state to,
 * in increasing order, into @groups (room for the Einsum's groups), for a
 * BACKING move of shared tensor @tensor (in access order) and a LOOPS move
 * in @direction (0 the nearest larger tile of one fused loop, 1 the
 * nearest smaller, 2 any other fused loops with the same storage
 * placement; 0 and 1 fall back to 2 when there is none). Returns how
 * many; 0 for ROW. */
FFM_API guint ffm_mapspace_list_move_targets (const FfmMapspace *mapspace,
                                              const FfmMapspaceChoice *state,
                                              guint einsum,
                                              FfmMapspaceMove kind,
                                              int tensor,
                                              int direction,
                                              guint *groups);

/* ffm_mapspace_new() with the memory budget @limit (bytes, the
 * pmappings' held bytes included) instead of the set's own limit. */
FFM_API FfmMapspace *ffm_mapspace_new_limited (FfmPmappingSet *set,
                                               guint64 limit,
                                               GError **error);

/* The most bytes the mapspace held while it was built (its graph's
 * temporary links and keys included), besides its pmapping set. */
FFM_API guint64 ffm_mapspace_get_memory_peak (const FfmMapspace *mapspace);

G_END_DECLS
