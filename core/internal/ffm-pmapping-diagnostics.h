/* ffm-pmapping-diagnostics.h: the pmapping generator's diagnostics, for
 * tests and analysis (an internal header, docs/layout.md: not installed,
 * not part of the plugin API).
 *
 * The switches that change how the generator works (every tile vector
 * evaluated, every finite memory tracked, an optimization off) are debug
 * flags (ffm-debug.h); what is here counts what the optimizations did. */
#pragma once

#include <ffm/ffm-pmapping.h>

G_BEGIN_DECLS

/* The memories whose reservations @set's groups left out from the start
 * of the search, being known untracked from the templates alone (the
 * others untracked are dropped once every Einsum is done). */
FFM_API guint ffm_pmapping_set_count_untracked_early (const FfmPmappingSet *set);

/* The storage choices of @set's Einsums whose templates were not built,
 * a pmapping found while building beating their lower bound
 * (ffm-storage-bound.h; docs/pmapping-generator.md, "Storage choices
 * bounded"); FFM_DEBUG=no-choice-bounds turns them off. */
FFM_API guint ffm_pmapping_set_count_choices_bounded (const FfmPmappingSet *set);

/* The templates of @set's Einsums that the pilots chose to search with
 * the variable of most chains last rather than in the greedy order
 * (docs/pmapping-generator.md, "The search order, chosen per template"). */
FFM_API guint ffm_pmapping_set_count_chains_last (const FfmPmappingSet *set);

/* The groups of complete rows (a bucket's chains with the same fused
 * tiles, under one parent) that @set's searches did not make, a leaf
 * taken in an earlier chunk beating their bound (docs/pmapping-generator.md,
 * "Bucket bounds"); FFM_DEBUG=no-bucket-bounds turns them off. Under
 * FFM_DEBUG=check-terms the groups are counted but still visited, each
 * child held to the store's answer. */
FFM_API guint64 ffm_pmapping_set_count_bucket_cuts (const FfmPmappingSet *set);

/* The partial tile vectors of @set's Einsums that were not extended, a
 * pmapping the storage choices' seeds found beating the lower bounds of
 * every completion (one-Einsum workloads; docs/pmapping-generator.md,
 * "Partial vectors against the pmappings found");
 * FFM_DEBUG=no-incumbent-bounds turns it off. */
FFM_API guint64 ffm_pmapping_set_count_rows_beaten (const FfmPmappingSet *set);

G_END_DECLS
