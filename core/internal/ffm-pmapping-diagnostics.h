/* ffm-pmapping-diagnostics.h: the pmapping generator's diagnostics, for
 * tests and analysis (an internal header, docs/layout.md: not installed,
 * not part of the plugin API).
 *
 * The generator can evaluate every valid tile vector instead of pruning
 * partial ones by their cost terms (the result must be the same: the
 * pruning is exact), and keep the reservation columns of every memory of
 * finite capacity rather than only those the join must track. Both cost
 * time and memory and change nothing a search sees, so they live here
 * rather than in FfmPmappingOptions' public fields. */
#pragma once

#include <ffm/ffm-pmapping.h>

G_BEGIN_DECLS

/* @prune_partial: FALSE evaluates every valid tile vector (default TRUE);
 * @track_all_memories: TRUE keeps every finite memory's reservations
 * (default FALSE). Call after ffm_pmapping_options_init(). */
FFM_API void ffm_pmapping_options_set_diagnostics (FfmPmappingOptions *options,
                                                   gboolean prune_partial,
                                                   gboolean track_all_memories);

/* The memories whose reservations @set's groups left out from the start
 * of the search, being known untracked from the templates alone (the
 * others untracked are dropped once every Einsum is done). */
FFM_API guint ffm_pmapping_set_count_untracked_early (const FfmPmappingSet *set);

/* The storage choices of @set's Einsums whose templates were not built,
 * a pmapping found while building beating their lower bound
 * (ffm-storage-bound.h; docs/pmapping-generator.md, "Storage choices
 * bounded"); FFM_PMAPPING_NO_CHOICE_BOUNDS=1 turns them off. */
FFM_API guint ffm_pmapping_set_count_choices_bounded (const FfmPmappingSet *set);

/* The templates of @set's Einsums that the pilots chose to search with
 * the variable of most chains last rather than in the greedy order
 * (docs/pmapping-generator.md, "The search order, chosen per template"). */
FFM_API guint ffm_pmapping_set_count_chains_last (const FfmPmappingSet *set);

/* The groups of complete rows (a bucket's chains with the same fused
 * tiles, under one parent) that @set's searches did not make, a leaf
 * taken in an earlier chunk beating their bound (docs/pmapping-generator.md,
 * "Bucket bounds"); FFM_PMAPPING_NO_BUCKET_BOUNDS=1 turns them off. Under
 * FFM_PMAPPING_CHECK_TERMS the groups are counted but still visited, each
 * child held to the store's answer. */
FFM_API guint64 ffm_pmapping_set_count_bucket_cuts (const FfmPmappingSet *set);

G_END_DECLS
