/* ffm-constraints.h: mapping constraints and fixed-fusion policies.
 *
 * A constraint set narrows the mapspace every strategy searches: which
 * shared tensors are fused (kept on chip) or not, where any tensor is
 * backed, where a tensor must or must not be kept, the dataflow of a
 * memory (which tensors' tiles stay there while the others stream), the
 * order of a memory's loops, which rank variables a fanout dimension may
 * spread, fixed tile sizes, and the number of fused loops. The pmapping
 * generator (ffm-pmapping.h, FfmPmappingOptions.constraints) honours them
 * while it enumerates, so a constrained search is as fast as a free one
 * and optimal within the constraints; every strategy that builds on the
 * generator's pmappings searches the constrained space.
 *
 * Named constraint sets shipped with ffm are *policies*: `transfusion`
 * (the hand-fused TransFusion dataflow the FFM paper compares against in
 * §8), `unfused` (no fusion at all). They live in the data folder
 * `policies/` (ffm-paths.h) and are found by name like workloads.
 *
 * The file format (docs/file-formats.md, "Constraint files"):
 *   { "ffm_constraints": 1, "name": "...", "description": "...",
 *     "constraints": [ { "fuse": "intermediates - (K | V)" },
 *                      { "unfuse": "K | V" },
 *                      { "stationary": "intermediates", "level": "GlobalBuffer" },
 *                      { "tile": { "m": 64 }, "level": "GlobalBuffer",
 *                        "einsums": ["QK"] }, ... ] }
 * Tensors are tensor-set expressions (ffm-expr.h) over the workload's
 * tensor names and classes; levels name memories (or a fanout and its
 * dimension); rank variables are those of each Einsum.
 *
 * Life cycle: an FfmConstraints is parsed text (names and expressions);
 * ffm_constraints_bind() checks it against one workload and architecture
 * (unknown tensor, level, Einsum or rank variable; contradictions between
 * constraints: each error names the file, the line and the cause) and
 * resolves it into an FfmBoundConstraints the generator reads.
 * ffm_bound_constraints_admit_pmapping() says whether a pmapping (with its
 * tiles) satisfies a bound set: the definition of the constrained
 * mapspace, which tests hold the generator to and which the exhaustive
 * strategy filters its enumeration with.
 *
 * Semantics, per Einsum (backing = the outermost storage node of a tensor
 * on the Einsum's path; "outermost memory" = the first level of the
 * architecture; a loop is non-trivial when it has more than one
 * iteration; persistent tiles are exempt from orders):
 *   fuse T [at L]   every tensor of T that two Einsums share is backed
 *                   below the outermost memory (at L if given);
 *   unfuse T        every shared tensor of T is backed in the outermost
 *                   memory;
 *   backing T at L  every tensor of T is backed at one of the levels L;
 *   keep T at L     every tensor of T has a storage node at each level L;
 *   forbid T at L   no tensor of T has a storage node at any level L;
 *   stationary S at L (S-stationary dataflow): no storage node at L of a
 *                   tensor outside S lies above a node at L of a tensor of
 *                   S, persistent tiles and the backing nodes of shared
 *                   tensors (which fusion places) aside (the tiles of S stay in L
 *                   while the others' are refetched below them); L is not
 *                   the outermost memory;
 *   loop_order V at L: the non-trivial temporal loops at L (below L's
 *                   first storage node and above the next memory's) that
 *                   lie below the fused loops iterate the listed rank
 *                   variables in the listed order, outermost first (the
 *                   order of fused loops is chosen by the join);
 *   spatial V on F.D: non-trivial spatial loops on fanout F dimension D
 *                   iterate only rank variables in V;
 *   tile v=N at L   the tile of rank variable v one instance holds at every
 *                   storage node at L of a tensor v indexes is N (N divides
 *                   v's bound; spatial loops below the node over a fanout
 *                   above L spread the node's tile over instances);
 *   max_fused_loops N: at most N non-trivial loops above the deepest
 *                   backing node of a shared tensor.
 * Einsum-scoped constraints (stationary, loop_order, spatial, tile,
 * max_fused_loops) take "einsums": a list of Einsum names (default: every
 * Einsum; then a rank variable an Einsum lacks leaves it out). */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-workload.h>
#include <ffm/ffm-arch.h>
#include <ffm/ffm-mapping.h>
#include <ffm/ffm-json-writer.h>

G_BEGIN_DECLS

typedef enum {
  FFM_CONSTRAINT_FUSE = 1,
  FFM_CONSTRAINT_UNFUSE,
  FFM_CONSTRAINT_BACKING,
  FFM_CONSTRAINT_KEEP,
  FFM_CONSTRAINT_FORBID,
  FFM_CONSTRAINT_STATIONARY,
  FFM_CONSTRAINT_LOOP_ORDER,
  FFM_CONSTRAINT_SPATIAL,
  FFM_CONSTRAINT_TILE,
  FFM_CONSTRAINT_MAX_FUSED_LOOPS,
} FfmConstraintKind;

/* One constraint as a caller writes it (the JSON loader and the command
 * line fill the same thing). Strings and lists are borrowed for the call
 * to ffm_constraints_add(), which copies them. Fields a kind does not use
 * must be NULL/0. */
typedef struct {
  FfmConstraintKind kind;
  const char *tensors;          /* set expression: FUSE, UNFUSE, BACKING,
                                   KEEP, FORBID, STATIONARY */
  const char *const *levels;    /* memory names: FUSE (optional, one or more),
                                   BACKING, KEEP, FORBID (one or more),
                                   STATIONARY, LOOP_ORDER, TILE (exactly one);
                                   SPATIAL: the fanout (exactly one) */
  const char *dimension;        /* SPATIAL: fanout dimension; NULL = all */
  const char *const *einsums;   /* Einsum names; NULL = every Einsum
                                   (STATIONARY, LOOP_ORDER, SPATIAL, TILE,
                                   MAX_FUSED_LOOPS) */
  const char *const *rank_vars; /* LOOP_ORDER: outermost first; SPATIAL:
                                   allowed; TILE: exactly one */
  guint64 tile;                 /* TILE: >= 1 */
  int max_fused_loops;          /* MAX_FUSED_LOOPS: >= 0 */
} FfmConstraintSpec;

typedef struct _FfmConstraints FfmConstraints;
typedef struct _FfmBoundConstraints FfmBoundConstraints;

/* ---- Building and loading ---- */

/* An empty set named @name (for messages and result files). */
FFM_API FfmConstraints *ffm_constraints_new (const char *name);
FFM_API FfmConstraints *ffm_constraints_ref (FfmConstraints *constraints);
FFM_API void ffm_constraints_unref (FfmConstraints *constraints);

/* Appends one constraint. @origin says where it comes from in messages
 * ("--fuse", "file.json:12"). Fails (FFM_CONSTRAINTS_ERROR_INVALID) when
 * @spec is malformed in itself: a missing or extra field for its kind, an
 * expression that does not parse, an empty list, a tile of 0. Names are
 * checked later, by ffm_constraints_bind(). */
FFM_API gboolean ffm_constraints_add (FfmConstraints *constraints,
                                      const FfmConstraintSpec *spec,
                                      const char *origin,
                                      GError **error);
/* Appends every constraint of @from (their origins kept). */
FFM_API void ffm_constraints_append (FfmConstraints *constraints,
                                     const FfmConstraints *from);

/* Loads a constraint file (docs/file-formats.md). Errors name the file,
 * the line and the member (FFM_CONSTRAINTS_ERROR_PARSE for JSON syntax,
 * _INVALID for the rest). */
FFM_API FfmConstraints *ffm_constraints_load_file (const char *path,
                                                   GError **error);
FFM_API FfmConstraints *ffm_constraints_load_from_data (const char *json_text,
                                                        const char *display_name,
                                                        GError **error);

/* Loads policy @name_or_path: a path (with a '/' or ending in .json), or
 * the name of a file NAME.json in the policy folders
 * (ffm_paths_data_dirs ("policies")); FFM_CONSTRAINTS_ERROR_NOT_FOUND
 * lists the policies available. */
FFM_API FfmConstraints *ffm_constraints_load_policy (const char *name_or_path,
                                                     GError **error);
/* Names of the policies in the policy folders, sorted (transfer full). */
FFM_API GStrv ffm_constraints_list_policies (void);

/* ---- Reading ---- */

FFM_API const char *ffm_constraints_get_name (const FfmConstraints *constraints);
/* The file's description, or NULL. */
FFM_API const char *ffm_constraints_get_description (const FfmConstraints *constraints);
FFM_API void ffm_constraints_set_description (FfmConstraints *constraints,
                                              const char *description);
FFM_API guint ffm_constraints_get_n (const FfmConstraints *constraints);
/* Constraint @index as added (transfer none: valid while @constraints
 * lives). */
FFM_API const FfmConstraintSpec *ffm_constraints_get (const FfmConstraints *constraints,
                                                      guint index);
FFM_API const char *ffm_constraints_get_origin (const FfmConstraints *constraints,
                                                guint index);
/* "fuse", "unfuse", ..., the member naming the kind in files. */
FFM_API const char *ffm_constraint_kind_to_string (FfmConstraintKind kind);
/* One line describing constraint @index, e.g. "fuse Q | QK at GlobalBuffer
 * (file.json:7)" (transfer full). */
FFM_API char *ffm_constraints_describe (const FfmConstraints *constraints,
                                        guint index);

/* Writes the set as a constraint document (the format the loader reads)
 * as the next value of @writer. */
FFM_API void ffm_constraints_write_json (const FfmConstraints *constraints,
                                         FfmJsonWriter *writer);

/* ---- Binding to a problem ---- */

/* Checks @constraints against @workload and @arch and resolves them.
 * Fails (FFM_CONSTRAINTS_ERROR_INVALID) naming the constraint's origin and
 * the cause: an unknown tensor, level, fanout dimension, Einsum or rank
 * variable; a level of the wrong kind; a tile that does not divide the
 * rank variable's bound; a fused tensor no two Einsums share; two
 * constraints that contradict each other (both named). @constraints may
 * be NULL: an empty set. (transfer full) */
FFM_API FfmBoundConstraints *ffm_constraints_bind (const FfmConstraints *constraints,
                                                   const FfmWorkload *workload,
                                                   const FfmArch *arch,
                                                   GError **error);
FFM_API void ffm_bound_constraints_free (FfmBoundConstraints *bound);
/* The set bound (transfer none). */
FFM_API const FfmConstraints *ffm_bound_constraints_get_constraints (const FfmBoundConstraints *bound);
/* Whether any constraint applies to @einsum. */
FFM_API gboolean ffm_bound_constraints_restrict_einsum (const FfmBoundConstraints *bound,
                                                        guint einsum);

/* Whether the pmapping @nodes (STORAGE, TEMPORAL, SPATIAL nodes then the
 * COMPUTE of Einsum @einsum, with their tiles; storage nodes of tensors
 * the Einsum does not touch are ignored) satisfies every constraint. When
 * it does not and @why is not NULL, appends the first violated constraint
 * and how. */
FFM_API gboolean ffm_bound_constraints_admit_pmapping (const FfmBoundConstraints *bound,
                                                       guint einsum,
                                                       const FfmMappingNode *const *nodes,
                                                       guint n_nodes,
                                                       GString *why);
/* The same for every Einsum's path of a full mapping (names resolved
 * against the bound workload and architecture; a path that does not
 * resolve is not admitted). */
FFM_API gboolean ffm_bound_constraints_admit_mapping (const FfmBoundConstraints *bound,
                                                      const FfmMapping *mapping,
                                                      GString *why);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmConstraints, ffm_constraints_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmBoundConstraints, ffm_bound_constraints_free)

G_END_DECLS
