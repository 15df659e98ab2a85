/* ffm-mapspace-private.h: what the mapspace's files share (ffm-mapspace.h).
 *
 *   ffm-mapspace.c        groups read from the pmapping set, accessors,
 *                         states to mappings;
 *   ffm-mapspace-graph.c  the graph of compatible groups (the join rules of
 *                         ffm-join.h at group level), pruned to the nodes
 *                         that complete;
 *   ffm-mapspace-cost.c   the cost of a state from the cached rows;
 *   ffm-mapspace-walk.c   draws, alternatives, changes, random valid states.
 *
 * Rows are flat: [energy, latency, then per tracked memory m: P[-1..F],
 * T], F the group's fused loops, P[d] the bits the row reserves in m at
 * lifetime depth <= d *without* the backing tiles of shared tensors (those
 * are one node per tensor in the tree, counted once, by the cost), T the
 * row's whole use of m (everything on its path while it runs). */
#pragma once

#include <ffm/ffm-mapspace.h>
#include <ffm/ffm-join.h>

G_BEGIN_DECLS

#define MS_NONE G_MAXUINT32
#define MS_MAX_LOOPS FFM_COMPAT_MAX_LOOPS
#define MS_MAX_MEM FFM_MAPSPACE_MAX_MEMORIES
/* Columns of one memory's P: depths -1 .. F. */
#define MS_DEPTHS (MS_MAX_LOOPS + 2)

/* One fused loop as the rules compare it (the rank variable is the
 * Einsum's own name for it and is compared through the tensors' ranks). */
typedef struct {
  guint64 count;
  guint64 tile;
  gint32 spatial;
  gint32 fanout_level;
  gint32 fanout_dim;
  gint32 pad_;              /* zero: keys are compared as bytes */
} MsLoop;

/* One shared tensor of a group. */
typedef struct {
  guint32 tensor;           /* workload index */
  guint32 access;           /* access index in the Einsum */
  gint32 level;             /* backing memory */
  gint32 persistent;
  guint32 depth;            /* fused loops above its backing node */
  gint32 mem;               /* tracked memory index of the backing, -1 */
  double bits;              /* backing tile; 0 in an unbounded memory */
  guint32 copy;             /* fused loops above its shallowest copy, MS_NONE */
  gint32 plain;             /* every loop above the backing walks one rank of it */
  gint32 ranks[MS_MAX_LOOPS]; /* the tensor's rank walked by spine loop d < depth */
} MsTensor;

typedef struct {
  /* Hot: what evaluation reads. */
  const double *values;     /* rows, width doubles each (in the mapspace's pool) */
  guint32 n_rows;
  guint32 width;            /* 2 + n_mem * (n_fused + 3) */
  guint32 n_fused;
  guint32 n_tensors;
  MsTensor tensors[FFM_MAX_EINSUM_TENSORS]; /* by access index (the same in all
                                               groups of an Einsum) */
  double size[MS_MAX_MEM];  /* capacity of each tracked memory for this group's
                               compute unit, bits (0 off its path) */
  /* Cold: the rules and the accessors. */
  MsLoop loops[MS_MAX_LOOPS];
  gint32 ranks[MS_MAX_LOOPS][FFM_MAX_EINSUM_TENSORS]; /* plain rank of each access
                                                          walked by each fused loop */
  FfmCompatibility compat;  /* its loops in this group's order */
  guint32 pm_group;
  guint32 order;
  guint32 compute_level;
  gboolean usable;
  gsize values_offset;      /* into the pool, while building */
  guint32 *pm_rows;         /* [n_rows] rows in the FfmPmappingGroup */
} MsGroup;

/* A shared tensor of one Einsum as the cost reads it: which Einsum's group
 * says how it is backed (its first user) and where in that group. */
typedef struct {
  guint32 einsum;
  guint32 index;            /* into that group's tensors[] */
} MsTensorRef;

/* Lists indexed by Einsum (or boundary): entries [first[x], first[x + 1]). */
typedef struct {
  guint32 *first;           /* [n + 1] */
  MsTensorRef *refs;
} MsLists;

struct _FfmMapspace {
  grefcount ref_count;
  FfmPmappingSet *set;      /* owned */
  FfmWorkload *w;           /* borrowed from the set */
  FfmArch *a;
  guint n_einsums;
  guint n_mem;
  guint mem_level[MS_MAX_MEM];

  /* Groups: Einsum x's are groups[group_first[x] .. group_first[x + 1]). */
  guint32 *group_first;
  MsGroup *groups;
  double *pool;             /* all rows */

  /* What the cost needs besides the groups. */
  MsLists spine;            /* per boundary k (1..n-1, index k): tensors used
                               before k and from k on */
  MsLists first_use;        /* per Einsum: shared tensors it uses first */
  MsLists last_use;         /* per Einsum: shared tensors it uses last */
  MsLists spanning;         /* per Einsum: shared tensors used before and after
                               it that it does not use */

  /* The graph: nodes are the join's keys at group level, node_first[x] ..
   * node_first[x + 1] the keys before Einsum x (one before Einsum 0, one
   * after the last). Edges of node v: edge_first[v] .. edge_first[v + 1],
   * sorted by group; edge_cum is the running probability, over the
   * node's edges, of drawing each (its target's completions over the
   * node's), for draws uniform over compatible combinations. Completions
   * are kept as logarithms: they overflow doubles on long workloads. */
  guint32 *node_first;      /* [n + 2] */
  guint32 n_nodes;
  guint64 *edge_first;      /* [n_nodes + 1] */
  guint64 n_edges;
  guint32 *edge_group;      /* local group index in the Einsum */
  guint32 *edge_target;     /* global node index */
  double *edge_cum;
  double *log_completions;  /* [n_nodes]: log of the compatible completions */

  double *query_weight;     /* [n] */
  double state_query_weight;
  double seconds_per_pmapping;
  double build_seconds;
};

/* One level of the backtracking search for a fitting state: the node it
 * stands on, the edge and row being tried (in a rotated order, so that the
 * search starts at a random place). */
typedef struct {
  guint32 node;
  guint32 row;
  guint64 edge;
  guint32 edge_offset;
  guint32 row_offset;
} SearchLevel;

struct _FfmMapspaceWorkspace {
  FfmMapspace *ms;          /* a reference */
  guint32 *path;            /* [n + 1] nodes of a walked state */
  guint32 *best;            /* [n_nodes] fewest changes to complete */
  FfmMapspaceChoice *trial; /* [n] */
  SearchLevel *search;      /* [n + 1] */
  guint32 *cands;           /* [most groups of one Einsum] move candidates */
  FfmMapspaceCost *cost;    /* for the search's partial states */
};

static inline const MsGroup *
ms_group (const FfmMapspace *ms, guint einsum, guint group)
{
  return &ms->groups[ms->group_first[einsum] + group];
}

/* The edge of node @v labelled @group, or G_MAXUINT64 (binary search). */
guint64 ms_find_edge (const FfmMapspace *ms, guint32 v, guint32 group);

/* ffm-mapspace-graph.c: builds node_first .. completions and marks usable
 * groups. FALSE with FFM_SEARCH_ERROR_INFEASIBLE or _TOO_LARGE. */
gboolean ms_build_graph (FfmMapspace *ms, GError **error);

/* ffm-mapspace-cost.c: the static lists of the cost (spine .. spanning);
 * FALSE if the groups of one Einsum list different shared tensors (a bug). */
gboolean ms_build_cost_lists (FfmMapspace *ms, GError **error);
/* The cost of the first @n_prefix choices of @state as if the workload
 * ended there, except that tensors used later stay live: a lower bound on
 * the occupancy of each of those Einsums in any completion (what the
 * backtracking search prunes with). */
void ms_evaluate_prefix (const FfmMapspace *ms, const FfmMapspaceChoice *state,
                         guint n_prefix, FfmMapspaceCost *cost);
void ms_lists_clear (MsLists *lists);

G_END_DECLS
