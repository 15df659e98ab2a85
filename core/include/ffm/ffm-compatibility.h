/* ffm-compatibility.h: the compatibility of a pmapping, the key FFM joins by.
 *
 * Two pmappings of different Einsums can be joined into one fused mapping
 * iff they agree, for every tensor they share, on (1) the memory that backs
 * the tensor, (2) the tile shape of the tensor there and (3) the order in
 * which its tiles are produced and consumed: the loops above its backing
 * storage node [1, §4.1]. A compatibility records exactly that for every
 * *shared* tensor of one Einsum (a tensor that two or more Einsums touch),
 * together with the depths of the reservations inside the fused loops,
 * which bound the loop permutations the join may try [2].
 *
 * Representation: a plain, fixed-size struct (no pointers), so it can be
 * copied, compared and hashed cheaply. The fused loops of an Einsum form one
 * spine, outermost first: the loops above the deepest backing storage node
 * of a shared tensor. A shared tensor's loops are a prefix of the spine
 * (those above its own backing node); for each of them the compatibility
 * says which rank *of that tensor* the loop walks, which is what lets the
 * `p` loop of `QK[b,m,p,h] = Q[b,m,h,e] * K[b,M:p,h,e]` match the `m` loop
 * of the Einsum that writes K (both walk K's rank M). Only loops that
 * iterate more than once appear: a loop of one iteration does not exist for
 * compatibility.
 *
 * Units: counts are iterations, tiles are values of the rank variable,
 * occupancy in bits. Determinism: plain data, equality is field by field.
 *
 * [1] The FFM paper, §4 (compatibility criteria).
 * [2] the reference implementation, accelforge: its join of pmappings
 *     (mapper/FFM/_join_pmappings), which keys groups by this data and
 *     tracks reservations per lifetime depth. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-workload.h>
#include <ffm/ffm-arch.h>

G_BEGIN_DECLS

/* Upper bound on the fused loops of one pmapping. */
#define FFM_COMPAT_MAX_LOOPS 16

/* One fused loop of the spine. */
typedef struct {
  guint rank_var;           /* rank variable of the Einsum the loop walks */
  gboolean spatial;         /* TRUE: spread over a fanout dimension */
  int fanout_level;         /* spatial: the fanout's architecture level; -1 temporal */
  int fanout_dim;           /* spatial: the dimension within the level; -1 temporal */
  guint64 count;            /* iterations (> 1) */
  guint64 tile;             /* tile of the rank variable one iteration handles, values */
} FfmCompatLoop;

/* One shared tensor of the Einsum. */
typedef struct {
  guint tensor;             /* index of the tensor in the workload */
  guint access;             /* index of the access in the Einsum */
  guint backing_level;      /* memory of its backing (first) storage node */
  gboolean persistent;      /* its backing tile lives for the whole workload */
  guint n_loops;            /* its loops: the first n_loops loops of the spine */
  guint ranks[FFM_COMPAT_MAX_LOOPS]; /* ranks[i]: the rank of the tensor (index
                                        into its rank_names) that spine loop i walks */
  double backing_bits;      /* occupancy of its backing tile, bits */
} FfmCompatTensor;

/* The compatibility of one pmapping. Zero-initialise before filling, so
 * that unused entries compare equal. */
typedef struct {
  guint einsum;             /* the Einsum, workload index */
  guint n_loops;            /* fused loops: max over tensors of their n_loops */
  FfmCompatLoop loops[FFM_COMPAT_MAX_LOOPS]; /* the spine, outermost first */
  guint n_tensors;          /* shared tensors of the Einsum */
  FfmCompatTensor tensors[FFM_MAX_EINSUM_TENSORS]; /* in access order */
  guint32 stops;            /* bit d (0 <= d <= n_loops): some reservation of
                               the pmapping sits below exactly d fused loops;
                               the join may permute loops only within the
                               blocks between consecutive stops */
} FfmCompatibility;

/* Field-by-field equality and a hash consistent with it (for GHashTable:
 * pass ffm_compatibility_hash_func and ffm_compatibility_equal_func). */
FFM_API gboolean ffm_compatibility_equal (const FfmCompatibility *a,
                                          const FfmCompatibility *b);
FFM_API guint ffm_compatibility_hash (const FfmCompatibility *compat);
FFM_API guint ffm_compatibility_hash_func (gconstpointer compat);
FFM_API gboolean ffm_compatibility_equal_func (gconstpointer a,
                                               gconstpointer b);

/* The shared tensor entry of workload tensor @tensor, or NULL. */
FFM_API const FfmCompatTensor *ffm_compatibility_find_tensor (const FfmCompatibility *compat,
                                                              guint tensor);

/* One line of text, e.g.
 *   "K@GlobalBuffer[M/4 t, H/32 t] V@MainMemory[] stops {1}"
 * (each shared tensor: name@backing memory, then its loops as
 * RANK/count, "t" temporal or "s" spatial) (transfer full). */
FFM_API char *ffm_compatibility_to_string (const FfmCompatibility *compat,
                                           const FfmWorkload *workload,
                                           const FfmArch *arch);

G_END_DECLS
