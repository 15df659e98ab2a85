/* ffm-pareto.h: Pareto pruning of flat tables.
 *
 * FFM keeps, inside each compatibility group, only the pmappings that no
 * other pmapping beats in every criterion at once: objectives (energy,
 * latency) and reservations (buffer capacity per lifetime). The paper proves
 * that this keeps the optimum [1, §6.4]. This module does the pruning on a
 * row-major table of doubles where every column is minimised.
 *
 * Row A dominates row B when A <= B in every column. Of several identical
 * rows the first (lowest index) is kept; otherwise a row is kept iff no row
 * dominates it. Survivors keep their relative order, so the result depends
 * only on the table, never on thread timing.
 *
 * Cost: sorting (n log n) plus, for each row, a comparison with the rows
 * kept so far (n x survivors x columns at worst); one and two columns have
 * an n log n path, and large tables with many survivors a k-d tree over
 * the rows a first pass could not drop (ffm-pareto.c).
 *
 * [1] The FFM paper, §3.2 and §6.4. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>

G_BEGIN_DECLS

/* Prunes @values (@n_rows rows of @n_columns doubles, row-major) in place:
 * the survivors are moved to the front in their original order. If @kept
 * is non-NULL it receives, for each survivor, its original row index (room
 * for @n_rows entries). Returns the number of survivors. NaN is not
 * allowed. With no columns, only the first row survives. */
FFM_API guint ffm_pareto_prune (double *values,
                                guint n_rows,
                                guint n_columns,
                                guint *kept);

/* TRUE if row @a dominates or equals row @b (a[i] <= b[i] for every i). */
FFM_API gboolean ffm_pareto_dominates (const double *a,
                                       const double *b,
                                       guint n_columns);

/* ffm_pareto_prune() with one pair of columns compared lexicographically
 * (an objective with a tie-break): row A dominates row B when A <= B in
 * every column but @primary and @secondary, and A's @primary is below B's,
 * or equal to it with A's @secondary <= B's. Among rows with the same
 * other columns, only the rows of the least @primary survive, and of those
 * the least @secondary. The relation is transitive, so the same
 * survivor scan is exact (ffm-pareto.c). */
FFM_API guint ffm_pareto_prune_lexicographic (double *values,
                                              guint n_rows,
                                              guint n_columns,
                                              guint primary,
                                              guint secondary,
                                              guint *kept);

/* ffm_pareto_prune() of a table that grew: its first @n_front rows are a
 * Pareto set already (no row among them dominates or equals another; what
 * an earlier pruning of those rows kept). The survivors, their order and
 * @kept are exactly ffm_pareto_prune()'s on the whole table; the front's
 * rows are not checked against each other, which is what makes pruning
 * a growing table again and again cheap (a group of the tile search, a
 * group of the join). */
FFM_API guint ffm_pareto_prune_front (double *values,
                                      guint n_rows,
                                      guint n_columns,
                                      guint n_front,
                                      guint *kept);

/* ffm_pareto_prune_front() with ffm_pareto_prune_lexicographic()'s
 * relation; the front is a set of its survivors. */
FFM_API guint ffm_pareto_prune_lexicographic_front (double *values,
                                                    guint n_rows,
                                                    guint n_columns,
                                                    guint n_front,
                                                    guint primary,
                                                    guint secondary,
                                                    guint *kept);

G_END_DECLS
