/* ffm-debug.h: the debug flags, one table for every switch that changes
 * how ffm works inside without changing what it finds.
 *
 * The generator and the join have knobs that only tests and diagnosis
 * want: turn an exact optimization off to compare with and without it,
 * shrink a chunk to one row so that small problems cross chunk borders,
 * force one search order, check the incremental cost terms against the
 * cost model at every step. They are read from one environment variable,
 * FFM_DEBUG, a comma-separated list of flags (`FFM_DEBUG=no-bucket-bounds,
 * chunk-rows=16`), once, the first time any flag is asked for; asking in a
 * hot loop costs an array read. `FFM_DEBUG=help` lists the flags on
 * standard error. A name the table does not have, or a value that does
 * not parse, is warned about once and ignored: a typo never changes a
 * run silently. docs/layout.md lists the flags.
 *
 * Two flags exist only in builds with the test hooks (meson option
 * test_hooks, on unless the build type is release or plain): the
 * generator's self-checks (check-terms) and the MPI fault injection
 * (mpi-die); elsewhere they are refused with a warning and the code that
 * honours them is not compiled. */
#pragma once

#include <glib.h>

#include <ffm/ffm-version.h>

G_BEGIN_DECLS

/* One per flag; append only (the values are part of the ABI). */
typedef enum {
  /* Boolean flags. */
  FFM_DEBUG_CHECK_TERMS,          /* check-terms: the tile search holds its
                                     incremental cost terms, bounds and
                                     joinable parts to the cost model at
                                     every step (test hooks only) */
  FFM_DEBUG_EVERY_LEAF,           /* every-leaf: evaluate every complete
                                     tile vector (no leaf skipped by its
                                     bound) */
  FFM_DEBUG_NO_BUCKET_BOUNDS,     /* no-bucket-bounds: no group of complete
                                     rows cut by a bucket's bound */
  FFM_DEBUG_NO_CHOICE_BOUNDS,     /* no-choice-bounds: every storage
                                     choice's templates built */
  FFM_DEBUG_LEAVES_PER_CHUNK,     /* leaves-per-chunk: each chunk prunes
                                     its own leaves only */
  FFM_DEBUG_UNTRACKED_LATE,       /* untracked-late: memories left out of
                                     the reservations only after every
                                     Einsum is done */
  FFM_DEBUG_NO_PARTIAL_PRUNING,   /* no-partial-pruning: every valid tile
                                     vector evaluated, none pruned by its
                                     cost terms */
  FFM_DEBUG_TRACK_ALL_MEMORIES,   /* track-all-memories: the reservation
                                     columns of every finite memory kept */
  /* Flags with a value. */
  FFM_DEBUG_ORDER,                /* order=greedy|chains-last: the tile
                                     search's variable order, forced */
  FFM_DEBUG_PILOT_MIN_WORK,       /* pilot-min-work=N: the pilots choose
                                     the order from this much work on */
  FFM_DEBUG_CHUNK_ROWS,           /* chunk-rows=N: the tile search's chunk,
                                     in rows */
  FFM_DEBUG_PRUNE_SAMPLE_ROWS,    /* prune-sample-rows=N (at most the
                                     default) */
  FFM_DEBUG_RADIX_MIN_ROWS,       /* radix-min-rows=N (at most the
                                     default) */
  FFM_DEBUG_JOIN_WALK_CHUNK,      /* join-walk-chunk=N: rows per step of
                                     the join's walk */
  FFM_DEBUG_JOIN_GROW_PRUNE_ROWS, /* join-grow-prune-rows=N: a group being
                                     filled is pruned at twice its last
                                     survivors plus N rows */
  FFM_DEBUG_MPI_DIE,              /* mpi-die=RANK:N: rank RANK kills itself
                                     after N results (test hooks only) */
  FFM_DEBUG_CHECK_SHARED_SETUP,   /* check-shared-setup: every rank
                                     variable's chains and factors the
                                     tile search takes from the set-up
                                     shared between templates built afresh
                                     too and compared (test hooks only) */
  FFM_DEBUG_JOIN_RESTART_ROWS,    /* join-restart-rows=N: the clean join
                                     starts over after a finer dirty pass
                                     once a step keeps more than N rows
                                     (by default: more than 1,024 and 4
                                     times the dirty pass's) */
  FFM_DEBUG_NO_INCUMBENT_BOUNDS,  /* no-incumbent-bounds: no partial tile
                                     vector left unextended because a
                                     pmapping found beats its bound */
  FFM_DEBUG_INCUMBENT_BOUND_SCALE, /* incumbent-bound-scale=X: those bounds
                                     multiplied by X (test hooks only: X > 1
                                     makes them unsound, which the tests
                                     must see) */
  FFM_DEBUG_JOIN_BEAM_EMPTY_STEP, /* join-beam-empty-step=N: a dirty pass
                                     with a beam keeps no row at the Nth
                                     Einsum's step (1: the first), as a
                                     beam whose rows no later step can take
                                     leaves it (test hooks only) */
  FFM_DEBUG_NO_INCUMBENT_LAST_CHAINS, /* no-incumbent-last-chains: those
                                     bounds take each factor of the last
                                     variable at its least, not the least
                                     energy over its chains */
  FFM_DEBUG_INCUMBENT_LAST_MAX,   /* incumbent-last-max: the energy over
                                     the last variable's chains taken at
                                     its largest (test hooks only: unsound,
                                     which the tests must see) */
  FFM_DEBUG_NO_INCUMBENT_BUCKETS, /* no-incumbent-buckets: no bucket of
                                     chains left unvisited because a
                                     pmapping found beats the bound of its
                                     every child */
  FFM_DEBUG_INCUMBENT_BUCKET_MAX, /* incumbent-bucket-max: that bound with
                                     the bucket's largest factors (test
                                     hooks only: unsound, which the tests
                                     must see) */
  FFM_DEBUG_NO_SYMMETRIC_DIMS,    /* no-symmetric-dims: every placement of
                                     spatial factors on interchangeable
                                     fanout dimensions, not one per set */
  FFM_DEBUG_SYMMETRIC_DIMS_BY_COUNT, /* symmetric-dims-by-count: dimensions
                                     of equal count taken as interchangeable
                                     whatever else differs (test hooks
                                     only: unsound, which the tests must
                                     see) */
  FFM_DEBUG_NO_EINSUM_FRONT,      /* no-einsum-front: the templates of an
                                     Einsum searched all at once, no partial
                                     tile vector held to the pmappings of
                                     the Einsum's earlier templates */
  FFM_DEBUG_EINSUM_FRONT_FIRST_WAVE, /* einsum-front-first-wave=N: an
                                     Einsum's first wave of templates is its
                                     first N (by default 8), the later waves
                                     doubling */
  FFM_DEBUG_EINSUM_FRONT_UNSOUND, /* einsum-front-unsound: the points of
                                     the Einsum's earlier waves compared
                                     without their reservations (test hooks
                                     only: unsound, which the tests must
                                     see) */
  FFM_DEBUG_TAKEN_STORE_LISTS,    /* taken-store-lists: the taken-leaf
                                     store keeps each diff's leaves on a
                                     list, never laid out flat */
  FFM_DEBUG_TAKEN_LAYOUT_UNSOUND, /* taken-layout-unsound: the store's
                                     flat values raised by one float step
                                     (test hooks only: unsound, which the
                                     tests must see) */
  FFM_DEBUG_N_FLAGS
} FfmDebugFlag;

/* Whether @flag is given in FFM_DEBUG (with or without a value). */
FFM_API gboolean ffm_debug_flag_is_set (FfmDebugFlag flag);

/* @flag's value as a positive integer, or @fallback when the flag is not
 * given. */
FFM_API guint64 ffm_debug_flag_get_uint (FfmDebugFlag flag, guint64 fallback);

/* @flag's value as a positive number, or @fallback. */
FFM_API double ffm_debug_flag_get_double (FfmDebugFlag flag, double fallback);

/* @flag's value as written, or NULL when the flag is not given or has no
 * value. (transfer none: valid until the flags are set again) */
FFM_API const char *ffm_debug_flag_get_string (FfmDebugFlag flag);

/* Replaces the flags with those of @spec (FFM_DEBUG's syntax; NULL or ""
 * for none), as tests do between runs; not while a search runs. */
FFM_API void ffm_debug_flags_set (const char *spec);

/* Whether this build has the test hooks (check-terms, mpi-die). */
FFM_API gboolean ffm_debug_has_test_hooks (void);

G_END_DECLS
