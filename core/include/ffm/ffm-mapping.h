/* ffm-mapping.h: a mapping as a LoopTree.
 *
 * A mapping says, for every Einsum, the loop order, the tile sizes, which
 * memory keeps which tensor tile, how loops spread over spatial instances,
 * and which Einsums share loops (fusion). It is a tree of nodes:
 *   STORAGE   tensors kept in a memory level; the tile kept is defined by
 *             the loops above the node;
 *   TEMPORAL  a for-loop over one rank variable; `tile` is the size of the
 *             range one iteration handles (iterations = enclosing tile /
 *             tile; when the tile does not divide the enclosing tile, the
 *             loop runs ceil(enclosing / tile) iterations and the last one
 *             handles the remainder: imperfect factorization);
 *   SPATIAL   the same spread over the instances of one fanout dimension;
 *   COMPUTE   the leaf: one operation of an Einsum on a compute unit;
 *   SEQUENTIAL a split: its branches run one after another, below the loops
 *             they share.
 * A branch (and the root) is a list of nodes; only the last node of a list
 * may be a SEQUENTIAL or a COMPUTE. A one-Einsum mapping (a pmapping) is a
 * list without splits.
 *
 * Names (tensors, levels, rank variables, Einsums) are kept as text so a
 * mapping can be read before it is checked against a workload and an
 * architecture; the cost model resolves and checks them, naming the node
 * (its JSON path and line) in errors.
 *
 * References: [1] docs/file-formats.md "Mappings" (the JSON format);
 * docs/cost-model.md "What a mapping means" (LoopTree semantics).
 * Representation: each list is a GPtrArray of FfmMappingNode*, owning its
 * nodes; a SEQUENTIAL node owns its branches. Units: tiles are counts of
 * values of a rank variable. Everything here is deterministic: printing and
 * serialising depend only on the tree. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-workload.h>
#include <ffm/ffm-json-writer.h>
#include <ffm/ffm-workload.h>

G_BEGIN_DECLS

typedef enum {
  FFM_NODE_STORAGE = 1,
  FFM_NODE_TEMPORAL,
  FFM_NODE_SPATIAL,
  FFM_NODE_COMPUTE,
  FFM_NODE_SEQUENTIAL,
} FfmNodeKind;

typedef struct _FfmMappingNode FfmMappingNode;

/* One node. Fields not used by a kind are NULL/0. */
struct _FfmMappingNode {
  FfmNodeKind kind;
  /* STORAGE */
  GStrv tensors;           /* tensor names */
  char *level;             /* memory level name (STORAGE), fanout level name
                              (SPATIAL), compute level name (COMPUTE) */
  gboolean persistent;     /* STORAGE: lives for the whole workload */
  /* TEMPORAL, SPATIAL */
  char *rank_var;          /* rank variable name */
  guint64 tile;            /* tile shape produced by the loop (values) */
  char *dimension;         /* SPATIAL: fanout dimension name */
  /* COMPUTE */
  char *einsum;            /* Einsum name */
  /* SEQUENTIAL */
  GPtrArray *branches;     /* of GPtrArray* of FfmMappingNode* */
  /* where it came from, for messages */
  char *json_path;         /* e.g. "$.nodes[3].sequential[1][0]"; NULL when
                              built in memory */
  int line;                /* source line of the node's kind member (for a
                              SEQUENTIAL, where its branches end), 0 if
                              unknown */
  /* TEMPORAL, SPATIAL: the loop's rank variable in particular Einsums when
   * it is not rank_var there. A loop shared by fused Einsums walks one rank
   * of the tensor they pass, which each Einsum may index with its own
   * variable (the K projection walks K's rank M with `m`, QK with `p`).
   * Parallel NULL-terminated lists (Einsum name, rank variable), or NULL.
   * Set them with ffm_mapping_node_set_rank_var_for(). */
  GStrv rank_var_einsums;
  GStrv rank_var_names;
  /* TEMPORAL, SPATIAL: the tile of the last iteration inside a full
   * enclosing tile when `tile` does not divide it (enclosing mod tile), 0
   * when it divides or is not known. Informative: the cost model derives
   * remainders from the tiles and checks a remainder written in a mapping
   * file. Set by ffm_mapping_set_remainders(); "remainder" in JSON. */
  guint64 remainder;
};

typedef struct _FfmMapping FfmMapping;

FFM_API FfmMapping *ffm_mapping_new (void);
FFM_API void ffm_mapping_free (FfmMapping *mapping);
FFM_API FfmMapping *ffm_mapping_copy (const FfmMapping *mapping);

/* The root list of nodes (transfer none; append to build). */
FFM_API GPtrArray *ffm_mapping_get_root (FfmMapping *mapping);
FFM_API const GPtrArray *ffm_mapping_peek_root (const FfmMapping *mapping);

/* The file it was read from (or the display name given to
 * ffm_mapping_load_from_data()), or NULL. */
FFM_API const char *ffm_mapping_get_source_file (const FfmMapping *mapping);
FFM_API void ffm_mapping_set_source_file (FfmMapping *mapping,
                                          const char *source_file);

/* Optional names of the workload and architecture the mapping was made
 * for ("workload" and "architecture" in JSON), or NULL. Informative only. */
FFM_API const char *ffm_mapping_get_workload_name (const FfmMapping *mapping);
FFM_API void ffm_mapping_set_workload_name (FfmMapping *mapping,
                                            const char *name);
FFM_API const char *ffm_mapping_get_architecture_name (const FfmMapping *mapping);
FFM_API void ffm_mapping_set_architecture_name (FfmMapping *mapping,
                                                const char *name);

/* TRUE when both mappings have the same workload and architecture names
 * and the same tree (kinds, names, tiles, flags, in order). Where a
 * mapping came from (source file, json_path, line) and the remainders
 * (derived from the tiles) are ignored. */
FFM_API gboolean ffm_mapping_equal (const FfmMapping *a,
                                    const FfmMapping *b);
FFM_API gboolean ffm_mapping_node_equal (const FfmMappingNode *a,
                                         const FfmMappingNode *b);

/* Checks the rules of the tree that need no workload or architecture:
 * every list is non-empty and ends in a COMPUTE or a SEQUENTIAL, which
 * appear nowhere else; a SEQUENTIAL has at least 2 branches; names are
 * non-empty; a STORAGE lists at least one tensor, none twice; tiles are
 * >= 1. ffm_mapping_load_*() runs it. Errors (FFM_MAPPING_ERROR_INVALID)
 * read "FILE:LINE: $.nodes[3]: cause" with what is known of the place. */
FFM_API gboolean ffm_mapping_check_structure (const FfmMapping *mapping,
                                              GError **error);

/* The root-to-compute paths, one per COMPUTE in depth-first order: each a
 * GPtrArray of the (borrowed) STORAGE, TEMPORAL, SPATIAL and COMPUTE nodes
 * from the root to that COMPUTE, SEQUENTIAL nodes left out (transfer
 * container: free the outer array; it frees the inner ones). */
FFM_API GPtrArray *ffm_mapping_dup_paths (const FfmMapping *mapping);

/* Sets every loop node's remainder from its tile and its enclosing tile
 * (the tile of the loop above it over the same rank variable on the path
 * to each compute node, or the rank variable's bound in @workload). Loops
 * whose names do not resolve are left as they are (the cost model reports
 * them). */
FFM_API void ffm_mapping_set_remainders (FfmMapping *mapping,
                                         const FfmWorkload *workload);

/* "storage", "temporal", "spatial", "compute" or "sequential" (the JSON
 * member naming the kind). */
FFM_API const char *ffm_mapping_node_kind_to_string (FfmNodeKind kind);

/* The rank variable loop @node iterates in Einsum @einsum: its per-Einsum
 * name if one is set, else rank_var (transfer none). */
FFM_API const char *ffm_mapping_node_get_rank_var_for (const FfmMappingNode *node,
                                                       const char *einsum);
/* Sets the loop's rank variable in Einsum @einsum (replacing an earlier
 * setting for it). */
FFM_API void ffm_mapping_node_set_rank_var_for (FfmMappingNode *node,
                                                const char *einsum,
                                                const char *rank_var);

/* Node constructors (transfer full); append them to a list. */
FFM_API FfmMappingNode *ffm_mapping_node_new_storage (const char *const *tensors,
                                                      const char *level,
                                                      gboolean persistent);
FFM_API FfmMappingNode *ffm_mapping_node_new_temporal (const char *rank_var,
                                                       guint64 tile);
FFM_API FfmMappingNode *ffm_mapping_node_new_spatial (const char *rank_var,
                                                      guint64 tile,
                                                      const char *fanout_level,
                                                      const char *dimension);
FFM_API FfmMappingNode *ffm_mapping_node_new_compute (const char *einsum,
                                                      const char *compute_level);
/* A split with no branches; add them with ffm_mapping_node_add_branch(). */
FFM_API FfmMappingNode *ffm_mapping_node_new_sequential (void);
/* Adds an empty branch and returns it (transfer none). */
FFM_API GPtrArray *ffm_mapping_node_add_branch (FfmMappingNode *sequential);
FFM_API void ffm_mapping_node_free (FfmMappingNode *node);
/* A deep copy, including json_path and line (transfer full). */
FFM_API FfmMappingNode *ffm_mapping_node_copy (const FfmMappingNode *node);
/* A new node list that frees its nodes (transfer full). */
FFM_API GPtrArray *ffm_mapping_node_list_new (void);

/* ---- JSON (docs/file-formats.md) ---- */

FFM_API FfmMapping *ffm_mapping_load_file (const char *path, GError **error);
FFM_API FfmMapping *ffm_mapping_load_from_data (const char *json_text,
                                                const char *display_name,
                                                GError **error);
/* Serialises to the same format ffm_mapping_load_*() reads (transfer full). */
FFM_API char *ffm_mapping_to_json (const FfmMapping *mapping);
/* The same document as the next value of @writer (a member of a result). */
FFM_API void ffm_mapping_write_json (const FfmMapping *mapping,
                                     FfmJsonWriter *writer);
FFM_API gboolean ffm_mapping_save_file (const FfmMapping *mapping,
                                        const char *path,
                                        GError **error);

/* ---- Printing ---- */

/* An indented tree, one node per line; a loop indents what it encloses and
 * a split draws its branches (transfer full):
 *   MainMemory: T0, W0, T1, W1, T2
 *   for m tile 1
 *     GlobalBuffer: T1
 *     sequential
 *     ├── GlobalBuffer: T0, W0
 *     │   for n1 tile 1
 *     │     for n0 tile 1
 *     │       compute Matmul0 on MAC
 *     └── GlobalBuffer: W1, T2
 *         ...
 * Spatial loops read "parallel-for n1 tile 1 across PE.reuse_output";
 * a loop with a remainder ends in " (remainder 5)"; persistent storage
 * ends in " (persistent)". */
FFM_API char *ffm_mapping_to_tree_string (const FfmMapping *mapping);
/* The same tree with each loop's iterations in @workload next to its tile
 * (iterations = enclosing tile / tile, rounded up; instances for a
 * spatial loop):
 *   for m tile 1 (16 iterations)
 *   parallel-for n1 tile 1 across PE.reuse_output (4 instances)
 * A loop shared by fused Einsums has the same iterations in each; a loop
 * whose Einsum or rank variable @workload does not have prints as in
 * ffm_mapping_to_tree_string(). (transfer full) */
FFM_API char *ffm_mapping_to_tree_string_for_workload (const FfmMapping *mapping,
                                                       const FfmWorkload *workload);
/* Loop-nest pseudo-code (transfer full). Loop variables are numbered per
 * rank variable along each path (m_1 outermost); a loop runs over
 * [0, E/t) where t is its tile and E the enclosing tile of its rank
 * variable, or |m| (the rank variable's bound) when no loop encloses it:
 *   // MainMemory holds T0, W0, T1
 *   for m_1 in [0, |m|/1):
 *     parallel-for n1_1 in [0, |n1|/1) across PE.reuse_output:
 *       Matmul0()  // on MAC
 * A loop with a remainder runs over [0, ceil(E/t)) and says its last tile
 * in a comment ("  // last tile 5").
 * Branches of a split follow one another at the split's indentation, each
 * opened by a "// branch 1 of 2" comment; branches of a split inside
 * branch 2 are numbered 2.1, 2.2, ... */
FFM_API char *ffm_mapping_to_loop_nest_string (const FfmMapping *mapping);
/* The same, with the bounds of some rank variables known: @rank_vars
 * (NULL-terminated, may be NULL) names them and @bounds[i] is the bound of
 * @rank_vars[i]; known bounds print as numbers ("[0, 64/1)"). */
FFM_API char *ffm_mapping_to_loop_nest_string_with_bounds (const FfmMapping *mapping,
                                                           const char *const *rank_vars,
                                                           const guint64 *bounds);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmMapping, ffm_mapping_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmMappingNode, ffm_mapping_node_free)

G_END_DECLS
