/* ffm-constraints-private.h (private): constraints resolved for one Einsum,
 * as the pmapping generator reads them (ffm-pmapping-storage.c,
 * ffm-pmapping-template.c, ffm-pmapping-tiles*.c, ffm-pmapping-signature.c)
 * and as ffm_bound_constraints_admit_pmapping() checks them. Masks over accesses
 * (bit a = access a of the Einsum), over rank variables (bit v) and over
 * architecture levels (bit l; architectures have at most 64 levels). */
#pragma once

#include <ffm/ffm-constraints.h>

G_BEGIN_DECLS

#define FFM_CONSTRAINTS_MAX_LEVELS 64
/* TUNING: loop orders per Einsum (one per memory at most). */
#define FFM_CONSTRAINTS_MAX_ORDERS 8

/* One constraint as stored: its spec (pointing into the owned copies),
 * the parsed tensor set and where it came from. */
typedef struct {
  FfmConstraintSpec spec;
  char *tensors;
  GStrv levels;
  GStrv einsums;
  GStrv rank_vars;
  char *dimension;
  FfmExpr *tensors_expr;    /* NULL when the kind takes no tensors */
  char *origin;
} FfmConstraintEntry;

const FfmConstraintEntry *ffm_constraints_get_entry (const FfmConstraints *constraints,
                                                     guint index);
/* The kind named @text in files; FALSE if none. */
gboolean ffm_constraint_kind_from_string (const char *text, FfmConstraintKind *out);

/* A loop order at one memory. */
typedef struct {
  guint level;
  guint n_vars;
  guint vars[FFM_MAX_EINSUM_RANK_VARS];  /* outermost first */
  guint entry;                           /* the constraint's index */
} FfmLoopOrderConstraint;

/* A fixed tile at one memory. */
typedef struct {
  guint level;
  guint var;
  guint64 tile;
  guint entry;
} FfmTileConstraint;

typedef struct {
  gboolean any;             /* some constraint applies to this Einsum */
  /* Storage. */
  guint64 backing_levels[FFM_MAX_EINSUM_TENSORS]; /* levels where the access
                                                     may be backed */
  guint64 keep[FFM_CONSTRAINTS_MAX_LEVELS];       /* per level: must keep */
  guint64 forbid[FFM_CONSTRAINTS_MAX_LEVELS];     /* per level: may not keep */
  /* Dataflow. */
  guint64 stationary[FFM_CONSTRAINTS_MAX_LEVELS]; /* per level: accesses whose
                                                     nodes go first; 0 none */
  guint n_orders;
  FfmLoopOrderConstraint orders[FFM_CONSTRAINTS_MAX_ORDERS];
  /* Spatial rank variables per fanout level and dimension; all ones when
   * free. */
  guint64 spatial[FFM_CONSTRAINTS_MAX_LEVELS][FFM_MAX_FANOUT_DIMS];
  /* Tiles. */
  guint n_tiles;
  FfmTileConstraint tiles[2 * FFM_MAX_EINSUM_RANK_VARS];
  guint64 pinned_vars;      /* rank variables with a fixed tile */
  int max_fused_loops;      /* -1: no limit of their own */
  guint64 entries;          /* the constraints that apply (bit i = entry i;
                               entries past 63 share bit 63) */
} FfmEinsumConstraints;

/* The resolved constraints of Einsum @einsum, or NULL when @bound is NULL
 * or no constraint applies to it. */
const FfmEinsumConstraints *ffm_bound_constraints_get_einsum (const FfmBoundConstraints *bound,
                                                              guint einsum);

/* Whether the resolved constraints order the loops of the Einsum: then
 * the template builder keeps every rank variable in every gap (its
 * canonical moves of loops past storage nodes could break the order). */
gboolean ffm_einsum_constraints_orders_loops (const FfmEinsumConstraints *ec);

/* Appends what of @ec the templates do not show (fixed tiles, fused-loop
 * limit), for the generator's reuse of equal Einsums. */
void ffm_einsum_constraints_append_signature (const FfmEinsumConstraints *ec,
                                              GString *signature);

/* "constraints[2] (file.json:7: fuse Q at GlobalBuffer), ..." for the
 * constraints that apply to @einsum (transfer full). */
char *ffm_bound_constraints_describe_einsum (const FfmBoundConstraints *bound,
                                             guint einsum);

/* A copy of @bound without constraint @skip, for finding which constraint
 * leaves an Einsum without pmappings (transfer full; NULL if binding fails,
 * which it cannot for a subset of a bound set). */
FfmBoundConstraints *ffm_bound_constraints_without (const FfmBoundConstraints *bound,
                                                    guint skip);

G_END_DECLS
