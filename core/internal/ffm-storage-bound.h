/* ffm-storage-bound.h: lower bounds of a storage choice's pmappings (an
 * internal header, docs/layout.md: the template builder's and the
 * tests'; not installed).
 *
 * A storage choice says which memories on a compute unit's path keep
 * which tensors of one Einsum; its templates place loops between the
 * storage nodes. The bound path has the same nodes and every loop below
 * the innermost one: each node holds its tensor's whole footprint, filled
 * (or drained) once, and the compute unit reads and updates its operands
 * once per operation. Temporal loops above a node only add refills,
 * drains and halos; spatial loops add copies, and let one action of a
 * memory above a fanout serve each instance of the fanouts below it (a
 * read multicast, partial sums reduced on the way). So the bound path's
 * energy per level, divided by the instances of the fanouts below the
 * level, summed (actions and operations, no leak), bounds the energy of
 * every pmapping of the choice; the compute unit's time with every
 * instance busy bounds the latency. Capacities are ignored (the bound
 * path need not fit).
 *
 * The template builder (ffm-pmapping-storage.c) searches a few choices
 * of least bound first and leaves out the choices whose bound a pmapping
 * already found beats: docs/pmapping-generator.md, "Storage choices
 * bounded". Both bounds are witnessed in tests/test-pmapping.c against
 * every pmapping brute force evaluates. */
#pragma once

#include <ffm/ffm.h>

G_BEGIN_DECLS

typedef struct _FfmStorageBound FfmStorageBound;

/* The bounds of Einsum @einsum's storage choices on the path of compute
 * level @compute of @arch (both borrowed: they outlive the result).
 * (transfer full) */
FFM_API FfmStorageBound *ffm_storage_bound_new (const FfmWorkload *workload,
                                                const FfmArch *arch,
                                                guint einsum,
                                                guint compute);
FFM_API void ffm_storage_bound_free (FfmStorageBound *bound);

/* The choice @kept (per architecture level, bit a set when the memory
 * keeps the Einsum's access a) as chains: @chains[a] has bit p set when
 * path position p keeps access a (every access kept somewhere on the
 * path; the path of at most 64 levels). */
FFM_API void ffm_storage_bound_chains (const FfmStorageBound *bound,
                                       const guint64 *kept,
                                       guint64 *chains);

/* The bound of the choice @chains (as above): *@energy in J, *@latency in
 * s. The energy is a sum of one term per tensor, each computed once per
 * chain of memories and cached (ffm_storage_bound_evaluate_direct()
 * compiles the whole path instead: the same value up to rounding). Fails
 * when the path does not compile (a memory does not let a tensor be kept
 * there) or its counts overflow; the template builder then bounds the
 * choice by 0. */
FFM_API gboolean ffm_storage_bound_evaluate (FfmStorageBound *bound,
                                             const guint64 *chains,
                                             double *energy,
                                             double *latency,
                                             GError **error);
FFM_API gboolean ffm_storage_bound_evaluate_direct (FfmStorageBound *bound,
                                                    const guint64 *chains,
                                                    double *energy,
                                                    double *latency,
                                                    GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmStorageBound, ffm_storage_bound_free)

G_END_DECLS
