/* ffm-einsum-front-private.h: the pmappings that the templates of an
 * Einsum searched so far kept, by compatibility group, which the tile
 * search of its later templates holds partial tile vectors to.
 *
 * With several Einsums two pmappings compete only within a compatibility
 * group, whose columns are energy, latency and each tracked memory's
 * reservation at each fused depth. The templates of an Einsum often make
 * rows of the same groups, and most templates make nothing that survives
 * the Einsum's merge: a user's 16 x 16 PE chip whose memories may keep
 * every tensor has 1,771 templates per matmul, of which 49 give a
 * pmapping the merge keeps. A template searched alone cannot know. So the
 * generation searches an Einsum's templates in waves of fixed sizes (by
 * template index, not by thread), and each wave's rows join this front,
 * in template order, before the next wave starts
 * (ffm-pmapping.c): what a template prunes depends only on the templates
 * of the waves before it, never on the threads' timing. The tile search
 * (ffm-pmapping-tiles-group-front.c) computes a partial row's group from
 * its fused tiles and holds the row's lower bounds to the points of that
 * group here, as it does to the template's own leaves.
 *
 * A point is a row of a group: its values under its columns (energy,
 * latency, reservations: FfmPmappingColumn). Only points no other point
 * of the group is at most in every column are kept, at most
 * FFM_EINSUM_FRONT_KEY_POINTS per group (those of least energy) and
 * FFM_EINSUM_FRONT_MAX_POINTS in all, each, and each group, charged to
 * the generation's memory budget, of which a front holds at most a
 * sixteenth; a point left out only beats fewer rows. */
#pragma once

#include "ffm-pmapping-private.h"
#include <ffm/ffm-memory-budget.h>

G_BEGIN_DECLS

/* (FfmEinsumFront is declared in ffm-pmapping-private.h, whose tile
 * search holds one) */

/* An empty front whose points are charged to @budget (NULL: unlimited;
 * borrowed: it outlives the front). (transfer full) */
FfmEinsumFront *ffm_einsum_front_new (FfmMemoryBudget *budget);
void ffm_einsum_front_free (FfmEinsumFront *front);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmEinsumFront, ffm_einsum_front_free)

/* Adds the @n_rows rows of @values (@n_columns per row, under @columns)
 * of group @compat. Not thread safe: the generation adds between waves,
 * when no template of the Einsum is being searched. */
void ffm_einsum_front_add_rows (FfmEinsumFront *front, const FfmCompatibility *compat,
                                const FfmPmappingColumn *columns, guint n_columns,
                                const double *values, guint n_rows);

/* The points of group @compat: their columns (*@columns, *@n_columns) and
 * values (*@values, n_columns per point; transfer none, valid until the
 * next add). FALSE, and no point, when the group has none. */
gboolean ffm_einsum_front_lookup (const FfmEinsumFront *front, const FfmCompatibility *compat,
                                  const FfmPmappingColumn **columns, guint *n_columns,
                                  const double **values, guint *n_points);

/* Whether a group of the same shared tensors, backed where @like's are
 * (the rest of @like is not read), has a point: the groups a template's
 * rows can fall in. */
gboolean ffm_einsum_front_has_backing (const FfmEinsumFront *front,
                                       const FfmCompatibility *like);

/* Points held, in all. */
guint ffm_einsum_front_get_n_points (const FfmEinsumFront *front);

G_END_DECLS
