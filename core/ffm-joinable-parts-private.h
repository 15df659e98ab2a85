/* ffm-joinable-parts-private.h (private): which pmappings of an Einsum can
 * be fused with some pmapping of every other Einsum that shares a tensor
 * with it.
 *
 * Two pmappings of Einsums that share a tensor join only if they agree on
 * its backing memory, on whether it persists, and on the fused loops above
 * its backing node: their counts, tiles and fanouts and the rank of the
 * tensor each walks (ffm-compatibility.h; the join of plugins/ffm matches
 * exactly these, loop by loop). The join may reorder fused loops, but only
 * within blocks that never cross a tensor's backing node, so the loops
 * above it are the same *set* on both sides whatever the order. A *part*
 * is a 64-bit hash of that set (sorted) with the memory and persistence;
 * the tensor's name is left out, so Einsums reused for each other (same
 * signature) share parts access by access.
 *
 * The generator (options.drop_unjoinable) uses parts twice: an Einsum
 * generated after others that share its tensors skips every partial tile
 * vector whose part for such a tensor none of theirs has (its pmappings
 * could never be joined), and the finished set drops every group whose
 * part some other user of the tensor lacks. A hash collision can only
 * keep a pmapping that cannot be joined, never drop one that can. */
#pragma once

#include "ffm-pmapping-private.h"

G_BEGIN_DECLS

/* One fused loop above a tensor's backing node, as a part sees it. */
typedef struct {
  int rank;                 /* rank of the tensor it walks
                               (ffm_join_plain_rank()), -1 if none */
  int spatial;
  int fanout_level;         /* -1 for a temporal loop */
  int fanout_dim;
  guint64 count;            /* iterations, > 1 */
  guint64 tile;
} FfmPartLoop;

/* What a part is made of, its loops sorted. */
typedef struct {
  guint level;
  gboolean persistent;
  guint n_loops;
  FfmPartLoop loops[FFM_COMPAT_MAX_LOOPS];
} FfmPart;

/* The part of a tensor backed in memory @level (@persistent) under the
 * loops @loops[0..@n) (sorted in place: the order does not count). */
guint64 ffm_joinable_part_hash (guint level, gboolean persistent,
                                FfmPartLoop *loops, guint n);

/* The part of @compat's shared tensor @t (index into compat->tensors) of
 * Einsum @einsum of @workload: its hash, and what it is made of in @out
 * (may be NULL). */
guint64 ffm_joinable_part_of_compat (const FfmWorkload *workload,
                                     const FfmEinsum *einsum,
                                     const FfmCompatibility *compat,
                                     guint t, FfmPart *out);

/* The parts one Einsum's pmappings may have, per access: an access
 * without a list may have any. */
FfmJoinableParts *ffm_joinable_parts_new (void);
void ffm_joinable_parts_free (FfmJoinableParts *parts);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmJoinableParts, ffm_joinable_parts_free)

/* Access @access may have only the parts of @list (of FfmPart, any
 * order, repeats allowed; transfer none): replaces what it allowed
 * before. */
void ffm_joinable_parts_restrict (FfmJoinableParts *parts, guint access,
                                  const GArray *list);
/* @access's list: one FfmPart per hash (transfer none), or NULL when it
 * has none. */
const GArray *ffm_joinable_parts_get_list (const FfmJoinableParts *parts, guint access);
/* The bytes the lists hold (for the memory budget). */
gsize ffm_joinable_parts_get_bytes (const FfmJoinableParts *parts);
/* Whether @access has a list. */
gboolean ffm_joinable_parts_restricts (const FfmJoinableParts *parts,
                                       guint access);
/* Whether @access may have @part (TRUE when it has no list). */
gboolean ffm_joinable_parts_allows (const FfmJoinableParts *parts,
                                    guint access, guint64 part);
/* The parts of @access's list with only their loops over the ranks of
 * @rank_mask (bit r: rank r), hashed as ffm_joinable_part_hash() does:
 * sorted, unique (transfer full). A part whose loops over those ranks
 * differ from every one of these is none of the list's, whatever its
 * other loops. NULL when @access has no list. */
GArray *ffm_joinable_parts_project (const FfmJoinableParts *parts, guint access,
                                    guint64 rank_mask);
/* Sorts @hashes (of guint64) and drops repeats, in place. */
void ffm_joinable_hashes_sort_unique (GArray *hashes);
/* Whether the sorted @hashes (of ffm_joinable_parts_project()) hold @h. */
gboolean ffm_joinable_hashes_have (const GArray *hashes, guint64 h);
/* Accesses with a list. */
guint ffm_joinable_parts_count_restricted (const FfmJoinableParts *parts);

G_END_DECLS
