/* loop-nest-simulator.h (tests only): a literal, slow witness for the cost
 * model. It executes one Einsum's loop nest iteration by iteration, keeps
 * the tile every storage node holds, and counts each value that moves. It
 * shares nothing with the analytical model but the loaded workload,
 * architecture and mapping structs; see loop-nest-simulator.c for its exact
 * semantics. Small rank sizes only. */
#pragma once

#include <ffm/ffm.h>

G_BEGIN_DECLS

/* Values moved at one (memory level, tensor). */
typedef struct {
  gboolean held;            /* the tensor has a storage node at this level */
  guint64 reads;            /* all instances, as FfmActionCounts */
  guint64 fills;
  guint64 drains;
  guint64 updates;
  guint64 unit_reads;       /* the busiest instance of the level */
  guint64 unit_fills;
  guint64 unit_drains;
  guint64 unit_updates;
} SimCounts;

typedef struct {
  guint n_levels;           /* of the architecture */
  guint n_accesses;         /* of the Einsum */
  SimCounts *counts;        /* [level * n_accesses + access] */
  guint64 operations;       /* compute executions */
  guint64 steps;            /* executions of the busiest compute instance */
  guint64 *fanout_used;     /* [level * FFM_MAX_FANOUT_DIMS + dim]: instances used */
} SimResult;

/* Simulates the path @nodes (storage and loop nodes, then a compute node;
 * storage of tensors the Einsum does not use is ignored). Fails on names it
 * cannot resolve, on copy Einsums, and when a multicast group's receivers
 * disagree about initial values (which would mean the semantics below are
 * ambiguous for that mapping). */
SimResult *sim_run (const FfmWorkload *workload,
                    const FfmArch *arch,
                    const FfmMappingNode *const *nodes,
                    guint n_nodes,
                    GError **error);
void sim_result_free (SimResult *result);

static inline SimCounts *
sim_result_get (SimResult *result, guint level, guint access)
{
  return &result->counts[level * result->n_accesses + access];
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimResult, sim_result_free)

G_END_DECLS
