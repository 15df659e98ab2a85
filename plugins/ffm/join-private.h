/* join-private.h (private to the ffm plugin): what the join's files
 * share: keys (what a group of partial mappings carries to the next
 * Einsum), units (the right side of a step), the problem, and the plan of
 * one merge. units.c reads the pmapping set into units; merge.c holds the
 * rules and the row arithmetic of one merge; join.c runs the steps. */
#pragma once

#include "join.h"

G_BEGIN_DECLS

#define NONE G_MAXUINT
#define MAX_LOOPS FFM_COMPAT_MAX_LOOPS
#define MAX_LIVE 64             /* tensors carried across one step */
#define MAX_MEM 16              /* tracked memories */

/* The bytes of a key with their hash (merge.c). */
typedef struct {
  guint hash;
  guint len;                    /* bytes of data */
  guint8 data[];
} ByteKey;

/* One fused loop of a key's spine (the loop nodes the next Einsum must
 * share), as the rules compare it. */
typedef struct {
  guint64 count;
  guint64 tile;
  int spatial;
  int fanout_level;
  int fanout_dim;
} KeyLoop;

/* A tensor some joined Einsum used and some later one will use. */
typedef struct {
  guint tensor;
  int level;                    /* backing memory */
  int persistent;
  guint depth;                  /* fused loops above its backing node */
  double bits;                  /* backing tile */
  int ranks[MAX_LOOPS];         /* rank walked by spine loops < depth */
  int produced;                 /* its producer is joined */
  guint dep_depth;              /* loops the producer shares with the open Einsum */
  int dep_ranks[MAX_LOOPS];     /* the producer's rank per spine loop < dep_depth */
  guint last_use;               /* loops its latest user shares with the open Einsum */
  guint open_copy;              /* shallowest copy still over the open path, NONE */
} KeyLive;

/* What every row of a group shares: everything its future depends on. */
typedef struct {
  guint n_spine;                /* loops the next Einsum must share */
  KeyLoop spine[MAX_LOOPS];
  guint n_live;
  KeyLive live[MAX_LIVE];       /* by tensor index */
} JoinKey;

/* The bytes of @k that hold something: a group keeps only these (the
 * tensors past n_live are never read; a whole JoinKey is 12 kB, and GPT-3
 * at unlimited fused loops makes 200,000 groups in one step). */
static inline gsize
join_key_size (const JoinKey *k)
{
  return G_STRUCT_OFFSET (JoinKey, live) + sizeof (KeyLive) * k->n_live;
}

/* The right side of a step: the rows of one generator group with the same
 * copies, compute unit and order of fused loops. GPT-3 at unlimited fused
 * loops makes millions of units, so a unit borrows its group's
 * compatibility and names its loop order by a permutation, and the units
 * of one group's orders share their rows and table (1.7 M units there, of
 * 2 kB each when each copied the compatibility). */
typedef struct {
  guint group;                  /* index among the Einsum's groups */
  const FfmPmappingGroup *g;
  const FfmCompatibility *compat; /* g's (borrowed from the pmapping set) */
  guint8 perm[MAX_LOOPS];       /* this unit's fused loop d is
                                   compat->loops[perm[d]] */
  guint order;                  /* ffm_join_pmapping_get_order() index */
  guint n_orders;               /* orders of the group's loops */
  guint compute_level;
  guint copy[FFM_MAX_EINSUM_TENSORS]; /* per compat tensor: shallowest copy, NONE */
  gint8 ranks[MAX_LOOPS][FFM_MAX_EINSUM_TENSORS]; /* plain rank per fused loop
                                                     (unit order), access; -1 */
  gboolean unbounded[FFM_MAX_EINSUM_TENSORS]; /* per compat tensor: backed in
                                                 an unbounded memory */
  double size[MAX_MEM];         /* capacity per tracked memory (0 off its path) */
  guint n_fused;
  guint width;                  /* n_obj + n_mem * (n_fused + 2) */
  GArray *rows;                 /* of guint: row in the group (shared by the
                                   group's orders: g_array_unref) */
  GArray *table;                /* of double: width per row (shared too) */
} Unit;

/* Fused loop @d of @u, in the unit's order. */
static inline const FfmCompatLoop *
join_unit_loop (const Unit *u, guint d)
{
  return &u->compat->loops[u->perm[d]];
}

/* One Einsum's step. */
typedef struct {
  guint einsum;
  const FfmEinsum *e;
  const FfmEinsumPmappings *pm;
  GArray *units;                /* of Unit */
  GHashTable *index;            /* match key -> GArray of guint (units) */
  GArray *before;               /* of guint: shared tensors it uses that an
                                   earlier Einsum used, sorted */
  GArray *live_after;           /* of guint: shared tensors used up to it and after, sorted */
  double min_energy;            /* over its rows */
  double min_latency;
  gsize units_charged;          /* bytes of its units taken from the budget */
} Step;

struct _JoinProblem {
  FfmPmappingSet *set;
  FfmWorkload *w;
  FfmArch *a;
  guint n_einsums;
  guint n_obj;                  /* objective columns: energy, latency (2):
                                   energy and latency break their ties with
                                   the other one */
  int first;                    /* for energy or latency: the column
                                   compared first (0 energy, 1 latency),
                                   the other only breaks ties; -1 for EDP
                                   and the Pareto set */
  guint n_mem;
  guint mem_level[MAX_MEM];
  guint n_threads;
  Step *steps;
  FfmMemoryBudget *budget;      /* what the join may hold: the search's
                                   budget less what the pmappings hold */
  double *rest_energy;          /* [n_einsums]: sum of minima after x */
  double *rest_latency;
  double *mean_min_energy;      /* [n_einsums]: mean of minima 0..x */
  double *mean_min_latency;
};

/* Everything the row arithmetic needs for one (left group, unit) pair. */
typedef struct {
  JoinKey key;                  /* the result's key */
  guint s;                      /* depth Einsum x hangs at (left spine) */
  double ded[MAX_MEM][MAX_LOOPS + 1]; /* [m][d + 1]: counted twice at depth <= d */
  double readd[MAX_MEM];        /* reserved again at depth s */
} Plan;

/* ---- merge.c ---- */

/* Keys as bytes (join_key_bytes(), join_match_bytes()) are written into
 * a caller's scratch array and returned from it (valid until its next
 * use): hash tables of ByteKey (join_byte_key_hash(), _equal()) are looked
 * up without allocating, and store join_byte_key_copy() (g_free). */
const ByteKey *join_key_bytes (const JoinKey *k, GByteArray *scratch);
const KeyLive *join_key_find (const JoinKey *k, guint tensor);
const ByteKey *join_match_bytes (guint s, const KeyLoop *loops,
                                 const KeyLive *const *tensors, guint n,
                                 GByteArray *scratch);
const ByteKey *join_left_match_bytes (const Step *st, const JoinKey *k,
                                      GByteArray *scratch);
guint join_byte_key_hash (gconstpointer key);
gboolean join_byte_key_equal (gconstpointer a, gconstpointer b);
ByteKey *join_byte_key_copy (const ByteKey *k);
void join_compat_loop (const FfmCompatLoop *c, KeyLoop *k);
gboolean join_unit_live (const Unit *u, guint t, KeyLive *out);
int join_compat_find (const FfmCompatibility *c, guint tensor);
gboolean join_plan_merge (const JoinProblem *p, const Step *st,
                          const JoinKey *k, const Unit *u, Plan *plan);
guint join_row_width (const JoinProblem *p, guint spine);
gboolean join_combine_row (const JoinProblem *p, const Plan *plan,
                           const Unit *u, const double *L, const double *R,
                           double *N);

/* join.c: the parallel parts of the join (reading units, walking,
 * filling and pruning groups). join_run_items() runs @job (@item,
 * @user) for items 0 .. @n - 1 on @n_threads threads; with @sizes
 * (NULL: in index order), on several threads the largest start first
 * (ties in index order), so that no large one starts last. Jobs must not
 * depend on each other's order. */
typedef void (*JoinItemJob) (guint item, gpointer user);
void join_run_items (guint n_threads, JoinItemJob job, gpointer user,
                     const guint64 *sizes, guint n);

G_END_DECLS
