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

/* One shared tensor of a group (the same for every loop order of a
 * generator group's split: an order never moves a loop across a backing
 * node). */
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
} MsTensor;

/* A group is small (GPT-3 6.7B at batch 64 has 1.7 million): what its
 * loop orders share (rows, tensors, capacities, row indices) is stored
 * once, in the mapspace's pools, and pointed to. */
typedef struct {
  /* Hot: what evaluation reads. */
  const double *values;     /* rows, width doubles each (shared by the orders) */
  guint32 n_rows;
  guint32 width;            /* 2 + n_mem * (n_fused + 3) */
  guint32 n_fused;
  guint32 n_tensors;
  const MsTensor *tensors;  /* [n_tensors] by access index (the same tensors
                               in all groups of an Einsum; shared by the orders) */
  const double *size;       /* [n_mem] capacity of each tracked memory for this
                               group's compute unit, bits (0 off its path) */
  /* Cold: the rules and the accessors. */
  const MsLoop *loops;      /* [n_fused] in this group's order */
  const gint32 *ranks;      /* [n_fused x n_access]: the plain rank of each access
                               walked by each fused loop, -1 (ms_rank()) */
  guint32 n_access;
  guint32 pm_group;
  guint32 order;
  guint32 compute_level;
  gboolean usable;
  guint8 perm[MS_MAX_LOOPS];/* fused loop d is the generator group's perm[d] */
  const guint32 *pm_rows;   /* [n_rows] rows in the FfmPmappingGroup (shared) */
} MsGroup;

static inline gint32
ms_rank (const MsGroup *g, guint d, guint access)
{
  return g->ranks[d * g->n_access + access];
}

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

/* The indexes local moves draw from, per Einsum (ffm-mapspace-moves.c):
 * built once, so that a move reads a few flat arrays instead of scanning
 * every group (groups are large and an Einsum may have a million). */
typedef struct {
  guint32 n_usable;
  guint32 *usable;          /* [n_usable] usable groups, increasing */
  guint32 *usable_index;    /* [groups] position in usable, MS_NONE */
  /* Backing classes: usable groups with the same backing memory and
   * persistence of every shared tensor, members in group order. */
  guint32 *class_of;        /* [groups] MS_NONE when not usable */
  guint32 *class_pos;       /* [groups] position in its class */
  guint32 *class_first;     /* [classes + 1] */
  guint32 *class_members;   /* [n_usable] */
  /* Per shared tensor (access order) t: usable groups sorted by the
   * backing memory of t (then group), runs of one memory. */
  guint32 n_tensors;
  guint32 *by_level;        /* [n_tensors * n_usable] */
  gint32 *level_of;         /* [n_tensors * n_usable] t's memory of usable[i] */
  guint32 *level_run;       /* [n_tensors * n_usable] run start of usable[i] in by_level */
  guint32 *level_run_end;   /* [n_tensors * n_usable] run end */
  /* Tile neighbours: per usable group and fused loop d, the bucket of
   * groups of its class equal to it in every fused loop but d's tile,
   * sorted by d's tile (then group). */
  guint32 *slot_first;      /* [n_usable + 1] slots of usable[i]: one per fused loop */
  guint32 *slot_bucket;     /* [slots] */
  guint32 *slot_pos;        /* [slots] position in the bucket's members */
  guint32 *bucket_first;    /* [buckets + 1] */
  guint32 *bucket_members;  /* [slots] groups */
  guint64 *bucket_tiles;    /* [slots] d's tile of each member */
} MsMoves;

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
  MsTensor *tensor_pool;    /* what groups point to */
  MsLoop *loop_pool;
  gint32 *rank_pool;
  double *size_pool;
  guint32 *row_pool;
  /* ffm_mapspace_group_get_compatibility(): every group's, made on the
   * first call (large: most callers want ffm_mapspace_group_copy_compatibility()). */
  GMutex compat_lock;
  FfmCompatibility *compats;

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
  /* Reverse indexes, for repairs: the edges into each node (in_first[v] ..
   * in_first[v + 1]: source node and edge), and the nodes with an edge of
   * each group (group_node_first[global group] .. [+ 1]). */
  guint32 *in_first;        /* [n_nodes + 1] */
  guint32 *in_source;       /* [n_edges] */
  guint32 *in_edge;         /* [n_edges] */
  guint32 *group_node_first; /* [all groups + 1] */
  guint32 *group_nodes;     /* [n_edges] */

  double *explored_weight;  /* [n] the generator's evaluated per Pareto pmapping */
  double *query_weight;     /* [n] under the charge */
  double state_query_weight;
  double seconds_per_pmapping;
  double build_seconds;
  FfmMapspaceCharge charge;
  FfmMapspaceSpace space;
  double log_states;        /* log of the compatible states (rows multiplied) */

  /* Memory: what the arrays above and the move indexes hold, and the
   * budget they are checked against (the pmapping set's limit less what
   * the set holds). */
  guint64 bytes;
  guint64 peak_bytes;       /* the most held while building */
  guint64 limit;            /* 0: none */
  guint64 total_limit;      /* the budget, the pmappings included (messages) */

  MsMoves *moves;           /* [n] (ffm-mapspace-moves.c) */
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

/* What a change's repair knows of one node (ffm-mapspace-walk.c). */
typedef struct {
  guint32 epoch;            /* the change that wrote it */
  guint32 exact;            /* fewest changes from here to the end, MS_NONE */
  guint32 failed;           /* the largest budget found too small, MS_NONE */
  guint32 pad_;
  guint64 choice;           /* the edge of the fewest */
} MsRepairNode;

struct _FfmMapspaceWorkspace {
  FfmMapspace *ms;          /* a reference */
  guint32 *mark;            /* [n_nodes] a prefix repair's epoch (ffm-mapspace-walk.c) */
  guint64 *mark_edge;       /* [n_nodes] an edge from a marked node to a marked one */
  guint32 *mark_count;      /* [n_nodes] such edges met (a uniform draw among them) */
  guint32 mark_epoch;
  GArray *frontier, *next;  /* of guint32: nodes of one layer */
  guint32 *path;            /* [n + 1] nodes of a walked state */
  FfmMapspaceChoice *trial; /* [n] */
  SearchLevel *search;      /* [n + 1] */
  FfmMapspaceCost *cost;    /* for the search's partial states */
  /* A change's repair: */
  MsRepairNode *repair;     /* [n_nodes] */
  guint32 epoch;
  guint32 *labels;          /* [n] the groups before the change */
  guint held;               /* the Einsum changed, and its group */
  guint32 held_group;
  guint64 offset;           /* where each node's edges are tried from */
  guint32 calls_left;       /* of the search for the fewest changes */
  gboolean gave_up;
  guint64 n_greedy;         /* changes repaired greedily */
};

/* TUNING: the repair's search for the fewest changes visits at most this
 * many nodes; past it the greedy repair draws this many edges where a
 * choice breaks after the changed Einsum, and reads at most this many
 * edges backwards from it for the Einsums before. Measured on GPT-3 6.7B (batch 64, 4096 tokens):
 * docs/compare.md, "The baselines' own work". */
#define REPAIR_EXACT_CALLS 64
#define REPAIR_SAMPLES 16
#define REPAIR_PREFIX_EDGES 4096

static inline const MsGroup *
ms_group (const FfmMapspace *ms, guint einsum, guint group)
{
  return &ms->groups[ms->group_first[einsum] + group];
}

/* ffm-mapspace-moves.c: the move indexes of every Einsum (after the
 * graph: they hold usable groups only), charged to the memory budget;
 * FALSE with FFM_SEARCH_ERROR_OUT_OF_MEMORY past it. */
gboolean ms_build_moves (FfmMapspace *ms, GError **error);
void ms_moves_free (FfmMapspace *ms);
/* The group move @kind takes Einsum @x of @state to, drawn uniformly from
 * its candidates (ffm-mapspace.h, FfmMapspaceMove) with @tensor (the
 * shared tensor a BACKING move re-backs, access order) and @direction (a
 * LOOPS move: 0 the next larger tile of one loop, 1 the next smaller,
 * else any other loops), or MS_NONE when there is none. */
guint32 ms_move_target (const FfmMapspace *ms, GRand *rand,
                        const FfmMapspaceChoice *state, guint x,
                        FfmMapspaceMove kind, int tensor, int direction);
/* Every candidate of that move, in increasing group order, into @out
 * (room for the Einsum's groups); returns how many (for tests). */
guint ms_move_candidates (const FfmMapspace *ms, const FfmMapspaceChoice *state,
                          guint x, FfmMapspaceMove kind, int tensor,
                          int direction, guint32 *out);

/* Reserves @bytes of the mapspace's memory budget for @what; FALSE with
 * FFM_SEARCH_ERROR_OUT_OF_MEMORY (naming --max-memory) past it. */
gboolean ms_reserve (FfmMapspace *ms, guint64 bytes, const char *what, GError **error);

/* Fused loop @d of group @g of Einsum @x as the generator describes it
 * (its rank variable, tile, fanout), in the group's order. */
const FfmCompatLoop *ms_compat_loop (const FfmMapspace *ms, guint x, const MsGroup *g, guint d);

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
