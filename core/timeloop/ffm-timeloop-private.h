/* ffm-timeloop-private.h (private): what the Timeloop bridge's files share.
 *
 * - ffm-timeloop-yaml.c: YAML files (and design folders) read with libyaml
 *   into a small tree whose nodes remember their file, line and tag,
 *   merged into one specification; the warnings it collects, by kind;
 *   helpers to read the tree and to say where a problem is
 *   ("FILE:LINE: KEY.PATH: cause").
 * - ffm-timeloop-nodes.c: the architecture's tree, in either of Timeloop's
 *   forms (v0.4 `subtree`/`local`, the front end's `nodes` with
 *   !Container, !Component, !Parallel), flattened into the chain of
 *   components Timeloop models, with their attributes and the constraints
 *   written on them.
 * - ffm-timeloop-components.c: compound component classes (`components`,
 *   `compound_components`, the `_components/NAME.yaml` files) and the energy
 *   estimator hook.
 * - ffm-timeloop-arch.c: the chain + `ERT` (+ `ART`) -> FfmArch.
 * - ffm-timeloop-problem.c: `problem` -> FfmWorkload; the name rules the
 *   mapping translation shares (dimension D is rank variable d).
 * - ffm-timeloop-mapping.c: `mapping` -> FfmMapping and back to YAML.
 * - ffm-timeloop-constraints.c: Timeloop's mapspace constraints ->
 *   FfmConstraints. */
#pragma once

#include <ffm/ffm-timeloop.h>
#include <ffm/ffm-limits.h>

G_BEGIN_DECLS

typedef enum {
  FFM_TL_SCALAR = 1,
  FFM_TL_SEQUENCE,
  FFM_TL_MAPPING,
} FfmTlKind;

typedef struct _FfmTlNode FfmTlNode;

struct _FfmTlNode {
  FfmTlKind kind;
  const char *file;         /* owned by the specification */
  guint line;               /* 1-based */
  char *text;               /* SCALAR: the value as written */
  char *tag;                /* a local tag as written ("!Container"), or NULL */
  gboolean quoted;          /* SCALAR: written in quotes (a string, never a
                               number or a boolean) */
  guint n_items;            /* SEQUENCE: items; MAPPING: keys */
  FfmTlNode **items;        /* SEQUENCE: the items; MAPPING: key, value,
                               key, value, ... (keys are scalars) */
};

/* ---- Warnings ----
 *
 * Each warning has a kind. Kinds that change a number (ffm's count or
 * energy differs from Timeloop's for the same mapping, or the mapspace
 * searched differs) are listed first and in full; the others are
 * summarised in one line per kind unless the caller asks for all
 * (ffm_timeloop_spec_steal_warnings_grouped()). */
typedef enum {
  FFM_TL_WARN_NETWORK = 0,       /* network energy not modelled (numbers) */
  FFM_TL_WARN_SLIDING_WINDOW,    /* halo reuse not kept (numbers) */
  FFM_TL_WARN_NOT_MODELLED,      /* an attribute changing Timeloop's model (numbers) */
  FFM_TL_WARN_CONSTRAINT,        /* a constraint not translated (mapspace) */
  FFM_TL_WARN_ESTIMATED,         /* an energy from an estimator (numbers) */
  FFM_TL_WARN_UNKNOWN_ATTRIBUTE, /* unknown attribute ignored */
  FFM_TL_WARN_INSTANCE_KEY,      /* instance key that is no dimension */
  FFM_TL_WARN_DENSITY,           /* densities ignored */
  FFM_TL_WARN_DEFAULT,           /* a default Timeloop takes (datawidth) */
  FFM_TL_WARN_MERGE,             /* a top-level key given twice */
  FFM_TL_WARN_ERT,               /* several energies of one action */
  FFM_TL_WARN_MAPPER,            /* mapper settings not followed */
  FFM_TL_WARN_DEPRECATED,        /* deprecated Timeloop key */
  FFM_TL_WARN_N_KINDS
} FfmTlWarnKind;

/* ---- The merged specification (ffm-timeloop-yaml.c) ---- */

/* The value of top-level key @key, or NULL. */
FfmTlNode *ffm_tl_spec_get (const FfmTimeloopSpec *spec, const char *key);
/* The key node of top-level key @key (for its file and line), or NULL. */
FfmTlNode *ffm_tl_spec_get_key (const FfmTimeloopSpec *spec, const char *key);
/* The files read, in order, joined with ", " (transfer none). */
const char *ffm_tl_spec_get_files (const FfmTimeloopSpec *spec);
/* Every value given for the component class keys (`components`,
 * `compound_components`) in every file, in order: they add up, unlike
 * the other top-level keys (transfer none; of FfmTlNode *). */
const GPtrArray *ffm_tl_spec_get_class_roots (const FfmTimeloopSpec *spec);
/* The files that define classes, and their text: file, text, file, text,
 * ... (transfer none). */
const GPtrArray *ffm_tl_spec_get_class_texts (const FfmTimeloopSpec *spec);
/* The conventions asked for (ffm_timeloop_spec_set_conventions()). */
FfmTimeloopConventions ffm_tl_spec_get_conventions (const FfmTimeloopSpec *spec);
/* The estimator hook, or NULL. */
FfmTimeloopEstimator ffm_tl_spec_get_estimator (const FfmTimeloopSpec *spec,
                                                gpointer *user_data);

/* Adds "FILE:LINE: PATH: message" to the warnings (@node may be NULL:
 * then only the message; @path may be NULL). */
void ffm_tl_warn (FfmTimeloopSpec *spec, FfmTlWarnKind kind,
                  const FfmTlNode *node, const char *path,
                  const char *format, ...) G_GNUC_PRINTF (5, 6);
/* Sets @error (FFM_TIMELOOP_ERROR, @code) to "FILE:LINE: PATH: message";
 * returns FALSE. */
gboolean ffm_tl_fail (GError **error, int code, const FfmTlNode *node,
                      const char *path, const char *format, ...)
  G_GNUC_PRINTF (5, 6);

/* ---- Reading the tree ---- */

const char *ffm_tl_kind_name (FfmTlKind kind);
/* The value of @key in mapping @node, or NULL (also when @node is not a
 * mapping). Keys match as Timeloop matches them: '-' and '_' alike
 * (`block-size` is `block_size`). */
FfmTlNode *ffm_tl_get (const FfmTlNode *node, const char *key);
/* The key node of @key in mapping @node, or NULL. */
FfmTlNode *ffm_tl_get_key (const FfmTlNode *node, const char *key);
/* TRUE when @a and @b name the same key ('-' and '_' alike). */
gboolean ffm_tl_key_equal (const char *a, const char *b);
/* @name with '-' made '_' (transfer full). */
char *ffm_tl_key_normalize (const char *name);
/* @node must be of @kind ("PATH: expected a mapping, got a sequence"). */
gboolean ffm_tl_require (const FfmTlNode *node, FfmTlKind kind,
                         const char *path, GError **error);
/* Every key of mapping @node is in @known (NULL-terminated, '-' and '_'
 * alike); the first other one is an error naming it and listing @known. */
gboolean ffm_tl_check_keys (const FfmTlNode *node, const char *path,
                            const char *const *known, GError **error);
/* A `version` of a Timeloop section: absent, or 0.3 or 0.4 (as a number
 * or a string); anything else is an error naming it. */
gboolean ffm_tl_check_version (const FfmTlNode *section, const char *path,
                               GError **error);
/* Scalars. A number is a plain scalar that g_ascii_strtod() reads whole
 * (an integer written beyond 2^53 is an error: it cannot be held
 * exactly); a count a whole number >= @min; a boolean true/false/yes/no/
 * on/off in any case. */
const char *ffm_tl_string (const FfmTlNode *node, const char *path,
                           GError **error);
/* The scalar's text, possibly empty (names may be). */
const char *ffm_tl_string_or_empty (const FfmTlNode *node, const char *path,
                                    GError **error);
gboolean ffm_tl_number (const FfmTlNode *node, const char *path,
                        double *out, GError **error);
gboolean ffm_tl_count (const FfmTlNode *node, const char *path, guint64 min,
                       guint64 *out, GError **error);
gboolean ffm_tl_bool (const FfmTlNode *node, const char *path,
                      gboolean *out, GError **error);
/* PATH.KEY and PATH[INDEX] (transfer full). */
char *ffm_tl_path_key (const char *path, const char *key);
char *ffm_tl_path_index (const char *path, guint index);

/* ---- The chain of components (ffm-timeloop-nodes.c) ---- */

typedef enum {
  FFM_TL_COMP_STORAGE = 1,
  FFM_TL_COMP_COMPUTE,
  FFM_TL_COMP_DUMMY,        /* a placeholder storage level (the front end's
                               `inter_NAME_spatial`, class dummy_storage):
                               keeps nothing, costs nothing */
} FfmTlCompKind;

typedef struct {
  FfmTlCompKind kind;
  char *name;               /* ffm level name (an identifier) */
  char *base;               /* Timeloop name without the range */
  char *hier;               /* dotted path of the names above, and base */
  char *cls;                /* class as written ("" for dummies) */
  const FfmTlNode *node;    /* the component (or the container of a dummy) */
  char *path;               /* key path in the YAML */
  GPtrArray *attr_keys;     /* FfmTlNode * keys, inherited first (not owned) */
  GPtrArray *attr_values;
  guint64 instances;
  guint64 mesh_x, mesh_y;   /* from the containers (nodes form); 0 = from
                               the attributes (meshX, meshY) */
  char *fanout_name;        /* the ranged names since the level above (a
                               placeholder: its fanout's name) */
  const FfmTlNode *constraints; /* `constraints:` written on it, or NULL */
  guint parallel;           /* a branch of the n-th !Parallel (1-based), 0 none */
  gboolean front_end;       /* from the nodes form (the front end processes
                               its constraints) */
} FfmTlComp;

/* One !Parallel: the `dataspace: keep` lists of its branches, in order
 * (NULL for a branch without one; !Nothing branches count), and the
 * !Parallel node. */
typedef struct {
  const FfmTlNode *node;
  GPtrArray *keeps;         /* of const FfmTlNode * (not owned) */
} FfmTlParallel;

/* The chain of the `architecture`, outermost first, ending in the compute
 * unit (transfer full; of FfmTlComp *). With @parallels (may be NULL),
 * also the !Parallel nodes, indexed by FfmTlComp.parallel - 1 (transfer
 * full). */
GPtrArray *ffm_tl_components (FfmTimeloopSpec *spec, GPtrArray **parallels,
                              GError **error);

/* The attribute @name of @c ('-' and '_' alike; the component's own over
 * its containers'), or NULL; *@key its key node. */
const FfmTlNode *ffm_tl_comp_attribute (const FfmTlComp *c, const char *name,
                                        const FfmTlNode **key);

/* ---- Compound component classes (ffm-timeloop-components.c) ---- */

/* The component estimators, asked about components without an ERT entry
 * (transfer full; @spec must outlive it). */
typedef struct _FfmTlEstimators FfmTlEstimators;
FfmTlEstimators *ffm_tl_estimators_new (const FfmTimeloopSpec *spec);
void ffm_tl_estimators_free (FfmTlEstimators *e);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmTlEstimators, ffm_tl_estimators_free)

/* Timeloop's action names for each energy, in its order of preference. */
typedef struct {
  const char *const *read, *const *fill, *const *update, *const *compute;
} FfmTlEstimatorActions;

/* Prices @c with the component estimators through the design's compound
 * classes (its class, or its subclass for Timeloop's "class: storage"; its
 * attributes after the containers'): the energies of the first of each
 * kind's actions the class has, pJ per action (a memory without a fill
 * or update action leaves it NAN), with @with_leak the leakage as pJ per
 * cycle of @cycle_seconds, the area in um^2 per instance, and
 * @out->source the estimated_by line (owned by @e). FALSE with *@why
 * (transfer full) saying why not. */
gboolean ffm_tl_estimators_price (FfmTlEstimators *e, const FfmTlComp *c,
                                  const FfmTlEstimatorActions *actions,
                                  double cycle_seconds, gboolean with_leak,
                                  FfmTimeloopActionEnergies *out, char **why);

/* One line describing class @cls: "a compound class (FILE:LINE) of
 * SRAM, 2 x intadder" or "a primitive class" (transfer full). */
char *ffm_tl_describe_class (const FfmTimeloopSpec *spec, const char *cls);
/* Checks the class definitions (names, subcomponents, actions; two
 * classes of one name are an error). */
gboolean ffm_tl_check_classes (const FfmTimeloopSpec *spec, GError **error);

/* ---- Names (ffm-timeloop-problem.c) ---- */

/* The rank variable of Timeloop dimension @dim: its name in lower case
 * (transfer full). */
char *ffm_tl_dimension_var (const char *dim);
/* The ffm tensor name of data space @name: an identifier made of it
 * (transfer full). */
char *ffm_tl_tensor_name (const char *name);
/* An identifier made of @name: characters other than letters, digits and
 * '_' become '_' (a leading digit gets a '_' before it) (transfer full). */
char *ffm_tl_identifier (const char *name);

G_END_DECLS
