/* ffm-join.h: joining per-Einsum pmappings into one fused mapping.
 *
 * A full mapping is one pmapping per Einsum (ffm-pmapping.h). This module
 * says which choices go together and builds the LoopTree they make; every
 * search strategy that joins pmappings (the FFM join, the exhaustive
 * verifier) uses it, so all of them search the same space of fused
 * mappings and `ffm eval` can check any of their answers.
 *
 * The rules [1, §4; 2], for Einsums in workload order E_0..E_{n-1}:
 *   - the fused loops of a pmapping are its loops (of more than one
 *     iteration) above the backing node (first storage node) of its
 *     deepest shared tensor; a shared tensor T has depth a_T: the number of
 *     fused loops above its backing node;
 *   - consecutive Einsums E_{k-1}, E_k share exactly s_k loops, where s_k
 *     is the largest depth of a tensor that some Einsum before k and some
 *     Einsum from k on use (0 if none): those s_k loops are one set of loop
 *     nodes in the tree, so both pmappings must have at least s_k fused
 *     loops and agree on the first s_k of them (iterations, tile, temporal
 *     or spatial, fanout level and dimension; the rank variables may be
 *     named differently: the tree records each Einsum's name);
 *   - every Einsum using a shared tensor backs it in the same memory, at
 *     the same depth, persistent or not alike, with a tile of the same size
 *     in bits (unless the memory is unbounded: the cost model takes the
 *     largest, which only matters for capacity), and its loops above the
 *     backing node walk the same ranks of the tensor (each loop indexing
 *     one rank alone, coefficient 1);
 *   - a consumer and the producer of a tensor walk the same rank of it with
 *     every loop they share (data dependencies);
 *   - a storage node that holds a shared tensor without backing it (a
 *     copy) may not lie on the path of another Einsum using that tensor.
 * Loops are compared in order; a strategy tries every order of a
 * pmapping's fused loops that its blocks allow (ffm_join_pmapping_reorder()
 * below).
 *
 * The tree: the Einsums sharing at least d loops form runs of consecutive
 * Einsums. Below the d-th loop of a run, its storage nodes come first, then
 * either its (d+1)-th loop (if the whole run shares it) or a SEQUENTIAL
 * split with one branch per run sharing d+1 loops. A shared tensor's
 * backing node is one node: right above the split where its users part,
 * or above the next loop when they all share it. Every other node stays
 * where its pmapping has it, below the loops it had above it; persistent
 * nodes go to the root. docs/ffm-search.md draws examples.
 *
 * Representation: FfmJoinPmapping is one pmapping read for joining (its
 * nodes copied, loops of one iteration dropped); FfmJoinChain is a prefix
 * E_0..E_k of chosen pmappings, checked as each is pushed (no allocation),
 * so that an enumeration can walk every combination depth first.
 * Determinism: pure functions of their inputs.
 *
 * [1] The FFM paper, §3.1, §4 (compatibility), §5.1 (reservation trees).
 * [2] the reference implementation, accelforge: mapping reconstruction
 *     from pmappings and the compatibility its join of pmappings
 *     (mapper/FFM/_join_pmappings) compares. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-workload.h>
#include <ffm/ffm-arch.h>
#include <ffm/ffm-mapping.h>

G_BEGIN_DECLS

/* Why a pmapping cannot join a chain. */
typedef enum {
  FFM_JOIN_OK = 0,
  FFM_JOIN_WRONG_EINSUM,    /* not the next Einsum in workload order */
  FFM_JOIN_LOOPS,           /* fewer fused loops than it must share, or different ones */
  FFM_JOIN_BACKING,         /* a shared tensor backed differently */
  FFM_JOIN_DEPENDENCY,      /* a shared loop walks the producer's and the
                               consumer's tensor along different ranks */
  FFM_JOIN_COPY,            /* a copy of a shared tensor on another user's path */
} FfmJoinStatus;

/* A phrase for messages ("the shared loops differ", ...). */
FFM_API const char *ffm_join_status_to_string (FfmJoinStatus status);

/* TRUE if memory @level of @arch has infinite capacity (for every Einsum):
 * users of a tensor backed there need not agree on its tile's size. */
FFM_API gboolean ffm_join_memory_is_unbounded (const FfmArch *arch,
                                               guint level);

/* The rank of access @access of @einsum that rank variable @var indexes
 * alone with coefficient 1, or -1. */
FFM_API int ffm_join_plain_rank (const FfmWorkload *workload,
                                 const FfmEinsum *einsum,
                                 guint access,
                                 guint var);

/* ---- One pmapping ---- */

typedef struct _FfmJoinPmapping FfmJoinPmapping;

/* Reads the pmapping @nodes (STORAGE, TEMPORAL, SPATIAL nodes then one
 * COMPUTE, as ffm_einsum_pmappings_rebuild() makes them) for joining. The
 * nodes are copied; loops of one iteration are dropped (they change no
 * count), and a storage node of several tensors becomes one node per
 * tensor in the listed order. Fails with FFM_MAPPING_ERROR_INVALID when a
 * name is unknown or the path does not end in a COMPUTE node; the path is
 * otherwise assumed to compile (ffm_pmapping_model_new()). (transfer full) */
FFM_API FfmJoinPmapping *ffm_join_pmapping_new (const FfmWorkload *workload,
                                                const FfmArch *arch,
                                                const FfmMappingNode *const *nodes,
                                                guint n_nodes,
                                                GError **error);
FFM_API void ffm_join_pmapping_free (FfmJoinPmapping *pmapping);
FFM_API guint ffm_join_pmapping_get_einsum (const FfmJoinPmapping *pmapping);
/* Its fused loops (of more than one iteration). */
FFM_API guint ffm_join_pmapping_get_n_fused_loops (const FfmJoinPmapping *pmapping);
/* The fused loops above the shallowest storage node that holds shared
 * tensor @tensor without backing it (a copy), or G_MAXUINT if it has none. */
FFM_API guint ffm_join_pmapping_get_copy_depth (const FfmJoinPmapping *pmapping,
                                                guint tensor);

/* Loop orders. The fused loops of a pmapping fall into blocks: runs of
 * consecutive fused loops with no storage node between them (so no
 * reservation either). Reordering the loops of a block changes no count
 * and no reservation [1, §5.2], so a pmapping stands for all the orders its
 * blocks allow; the joining rules compare loops in order, and a strategy
 * tries each order. Blocks holding two loops over one rank variable are
 * not reordered. At most FFM_JOIN_MAX_ORDERS orders are offered. */
#define FFM_JOIN_MAX_ORDERS 720

/* The orders @pmapping allows (1 when no block has two loops). */
FFM_API guint ffm_join_pmapping_get_n_orders (const FfmJoinPmapping *pmapping);
/* Order @index (0 = the pmapping's own) as a permutation: @order receives
 * ffm_join_pmapping_get_n_fused_loops() entries, order[i] = the fused loop
 * (in the pmapping's own order) that comes i-th. */
FFM_API void ffm_join_pmapping_get_order (const FfmJoinPmapping *pmapping,
                                          guint index,
                                          guint *order);
/* The same pmapping with its fused loops in order @index: a new pmapping
 * whose path has those loops reordered (transfer full). */
FFM_API FfmJoinPmapping *ffm_join_pmapping_reorder (const FfmJoinPmapping *pmapping,
                                                    const FfmWorkload *workload,
                                                    const FfmArch *arch,
                                                    guint index);

/* ---- Chains ---- */

typedef struct _FfmJoinChain FfmJoinChain;

/* An empty chain for @workload on @arch (both borrowed: they must outlive
 * the chain). (transfer full) */
FFM_API FfmJoinChain *ffm_join_chain_new (const FfmWorkload *workload,
                                          const FfmArch *arch);
FFM_API void ffm_join_chain_free (FfmJoinChain *chain);

/* Appends @pmapping (borrowed: it must stay alive while in the chain), the
 * pmapping of the next Einsum in workload order, if it may join the
 * pmappings already in the chain under the rules above; otherwise returns
 * why not and leaves the chain unchanged. Allocates nothing; work is linear
 * in the chain's length times the Einsum's tensors. */
FFM_API FfmJoinStatus ffm_join_chain_push (FfmJoinChain *chain,
                                           const FfmJoinPmapping *pmapping);
/* Removes the last pmapping. */
FFM_API void ffm_join_chain_pop (FfmJoinChain *chain);
FFM_API guint ffm_join_chain_get_length (const FfmJoinChain *chain);
/* The pmapping of Einsum @index (transfer none). */
FFM_API const FfmJoinPmapping *ffm_join_chain_get (const FfmJoinChain *chain,
                                                   guint index);
/* s_@index: the loops Einsums @index - 1 and @index share
 * (1 <= @index < length). */
FFM_API guint ffm_join_chain_get_split_depth (const FfmJoinChain *chain,
                                              guint index);
/* The LoopTree of a complete chain (one pmapping per Einsum), named after
 * the workload and the architecture (transfer full). */
FFM_API FfmMapping *ffm_join_chain_build_mapping (const FfmJoinChain *chain);

/* Pushes @pmappings (of FfmJoinPmapping*, one per Einsum in workload
 * order) and builds their mapping; FFM_MAPPING_ERROR_INVALID naming the
 * Einsum and the rule when they cannot join. (transfer full) */
FFM_API FfmMapping *ffm_join_build_mapping (const FfmWorkload *workload,
                                            const FfmArch *arch,
                                            const GPtrArray *pmappings,
                                            GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmJoinPmapping, ffm_join_pmapping_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmJoinChain, ffm_join_chain_free)

G_END_DECLS
