/* ffm-mapping.h: a mapping as a LoopTree.
 *
 * A mapping says, for every Einsum, the loop order, the tile sizes, which
 * memory keeps which tensor tile, how loops spread over spatial instances,
 * and which Einsums share loops (fusion). It is a tree of nodes:
 *   STORAGE   tensors kept in a memory level; the tile kept is defined by
 *             the loops above the node;
 *   TEMPORAL  a for-loop over one rank variable; `tile` is the size of the
 *             range one iteration handles (iterations = enclosing tile / tile);
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
 * (its JSON path and line) in errors. */
#pragma once

#include <glib.h>
#include "ffm-version.h"
#include "ffm-error.h"

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
  char *json_path;         /* e.g. "$.nodes[3].branches[1][0]"; may be NULL */
  int line;                /* source line, 0 if unknown */
};

typedef struct _FfmMapping FfmMapping;

FFM_API FfmMapping *ffm_mapping_new (void);
FFM_API void ffm_mapping_free (FfmMapping *mapping);
FFM_API FfmMapping *ffm_mapping_copy (const FfmMapping *mapping);

/* The root list of nodes (transfer none; append to build). */
FFM_API GPtrArray *ffm_mapping_get_root (FfmMapping *mapping);
FFM_API const GPtrArray *ffm_mapping_peek_root (const FfmMapping *mapping);

/* The file it was read from, or NULL. */
FFM_API const char *ffm_mapping_get_source_file (const FfmMapping *mapping);

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
/* A new node list that frees its nodes (transfer full). */
FFM_API GPtrArray *ffm_mapping_node_list_new (void);

/* ---- JSON (docs/file-formats.md) ---- */

FFM_API FfmMapping *ffm_mapping_load_file (const char *path, GError **error);
FFM_API FfmMapping *ffm_mapping_load_from_data (const char *json_text,
                                                const char *display_name,
                                                GError **error);
/* Serialises to the same format ffm_mapping_load_*() reads (transfer full). */
FFM_API char *ffm_mapping_to_json (const FfmMapping *mapping);
FFM_API gboolean ffm_mapping_save_file (const FfmMapping *mapping,
                                        const char *path,
                                        GError **error);

/* ---- Printing ---- */

/* An indented tree, one node per line (transfer full):
 *   Storage MainMemory [T0, W0, T1]
 *   for m in [0:64) tile 1
 *     ...
 *   Sequential
 *     branch 0 ... */
FFM_API char *ffm_mapping_to_tree_string (const FfmMapping *mapping);
/* Loop-nest pseudo-code (transfer full). */
FFM_API char *ffm_mapping_to_loop_nest_string (const FfmMapping *mapping);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmMapping, ffm_mapping_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmMappingNode, ffm_mapping_node_free)

G_END_DECLS
