/* ffm-pmapping-tiles.c: the tile shapes of one template.
 *
 * Every loop of a template gets a tile: for each rank variable, its loops
 * (outermost first) form a divisor chain from the variable's bound down to
 * 1 at the innermost loop (perfect factorization [1, §4.7]). The search
 * assigns one rank variable's whole chain at a time, depth first, in a
 * fixed order, and cuts a branch as soon as no completion can be valid:
 *   - fanout: the product of the spatial iteration counts already chosen on
 *     a fanout dimension only grows as more variables are chosen, so once
 *     it exceeds the dimension's count no completion fits;
 *   - minimum usage: the chosen product times the largest product every
 *     remaining variable can add on the dimension bounds what any
 *     completion reaches; below the minimum, no completion reaches it;
 *   - fused-loop limits: the number of fused loops of more than one
 *     iteration only grows;
 *   - capacity: a tile's occupancy grows with every rank variable's tile
 *     at its reservation (extents are non-decreasing in the tiles), and a
 *     variable not chosen yet has tile at least 1 there if some loop over it
 *     is above the reservation, else its whole bound; so occupancy with
 *     those smallest tiles is a lower bound over every completion, and a
 *     memory whose lower bound exceeds its capacity fits no completion.
 * Every complete tile vector that survives is evaluated with the cost
 * model; the valid ones become rows of their compatibility group, and
 * groups are Pareto-pruned (ffm-pareto.h) as they grow and at the end.
 *
 * Minimum usage "try best" [1, §2.1]: when no tile vector of a template
 * reaches a fanout dimension's minimum usage, the template's valid vectors
 * with the highest usage (the product over constrained dimensions of the
 * used fraction) are kept instead.
 *
 * [1] the reference implementation (accelforge): min_usage and its
 *     tile-shape enumeration with partial-mapping pruning. */
#include "ffm-pmapping-private.h"
#include "ffm-joinable-parts-private.h"
#include "ffm-tile-chain-private.h"
#include "ffm-row-key-sort-private.h"
#include "ffm-workload-private.h"
#include <ffm/ffm-memory-budget.h>
#include <ffm/ffm-join.h>

#include <math.h>
#include <string.h>

#define MAX_VARS FFM_MAX_EINSUM_RANK_VARS
#define MAX_LOOPS FFM_COST_MAX_LOOPS
#define MAX_DIMS 16
#define MAX_BUFFETS 64
#define RANKS FFM_MAX_TENSOR_RANKS

/* TUNING: a group's rows are Pareto-pruned whenever they grow past twice
 * their count after the last pruning plus this many (bounds memory; 4096
 * keeps the pruning cost small against the evaluations; tried 1024-65536). */
#define PRUNE_SLACK 4096

/* Chains of one variable with the same fused-loop count and the same
 * spatial products on every fanout dimension. */
typedef struct {
  guint first;              /* first chain (index into the var's chains) */
  guint n;                  /* chains */
  guint fused;              /* fused loops of more than one iteration */
  guint64 prod[MAX_DIMS];   /* spatial iterations per fanout dimension */
} Bucket;

typedef struct {
  const FfmPmappingTemplate *t;
  const FfmPmappingModel *m;
  const FfmArch *arch;
  const FfmPmappingOptions *opt;
  const FfmEinsum *e;
  FfmTemplateResult *out;
  FfmPmappingCost *cost;
  FfmDescribeInfo info;

  guint n_loops;
  FfmLoopInfo loops[MAX_LOOPS];
  guint n_vars;
  guint64 bounds[MAX_VARS];
  guint order[MAX_VARS];
  guint dfs_order[MAX_VARS];        /* fewest chains first: the depth-first
                                       search's order (the probe for "try
                                       best" keeps it when partial pruning
                                       chose another) */
  guint var_n_loops[MAX_VARS];
  guint var_loops[MAX_VARS][MAX_LOOPS];
  GArray *chains[MAX_VARS];         /* of guint64, var_n_loops tiles per chain */
  guint n_chains[MAX_VARS];
  guint64 chain_dim[MAX_VARS][MAX_DIMS];  /* largest product a var adds per dim */
  double reach_after[MAX_VARS + 1][MAX_DIMS];  /* chain_dim's product over the
                                                  variables from a depth on, in
                                                  search order, at most the
                                                  dimension's count (see
                                                  set_order()) */
  GArray *buckets[MAX_VARS];        /* of Bucket: chains sorted by what the
                                       search checks, so that a whole bucket
                                       is accepted or skipped at once */

  guint n_dims;
  guint64 dim_count[MAX_DIMS];
  double dim_min[MAX_DIMS];
  guint n_min_dims;                 /* the dimensions with a minimum usage */
  guint min_dims[MAX_DIMS];
  double dim_count_f[MAX_DIMS];     /* dim_count, as the bounds use it */
  double dim_need[MAX_DIMS];        /* dim_min x dim_count: the instances to use */
  gboolean constrained;             /* some dimension has a minimum usage */

  guint n_buffets;
  guint buffet_level[MAX_BUFFETS];
  guint buffet_access[MAX_BUFFETS];
  double buffet_bits[MAX_BUFFETS];
  int res_loop[MAX_BUFFETS][MAX_VARS];  /* loop giving the var's tile at the
                                           reservation, -1 = the bound */
  guint n_memories;
  guint memories[MAX_BUFFETS];      /* levels of finite capacity with buffets */
  double capacity[MAX_BUFFETS];

  guint n_fused;
  gboolean remainders;              /* tiles may leave remainders (options'
                                       imperfect, and the model counts them) */
  gboolean relaxed;                 /* try best: keep the highest usage */
  gboolean probing;                 /* relaxed, first pass: find the highest
                                       usage of a valid vector, keep no row */
  double best_score;                /* probing: highest usage seen, or -1 */
  double target_score;              /* relaxed, second pass: that usage */
  gboolean probe_until_min;         /* probing: stop once the minimum usage
                                       is reached by a valid vector */
  gboolean min_reached;             /* ... which it was */
  guint64 usage_rejected;

  /* Pruning by dominance of cost terms (see "Partial dominance" below). */
  FfmTerms *terms;
  gboolean check_terms;     /* FFM_PMAPPING_CHECK_TERMS: terms vs model */
  guint *leaf_unit_class;   /* per unit at the last depth: its class */
  guint n_leaf_slots;       /* what the groups compare of a complete row
                               (search_leaves()) */
  guint *leaf_slot;         /* per unit at the last depth: its slot, or
                               G_MAXUINT when the groups ignore it */
  guint8 *leaf_slot_max;    /* per slot: TRUE for the largest of its units
                               (latency), FALSE for their sum */
  guint prune_sample_rows;  /* PRUNE_SAMPLE_ROWS, or
                               FFM_PMAPPING_PRUNE_SAMPLE_ROWS (tests) */
  guint radix_min_rows;     /* RADIX_MIN_ROWS, or
                               FFM_PMAPPING_RADIX_MIN_ROWS (tests) */
  gboolean every_leaf;      /* FFM_PMAPPING_EVERY_LEAF (tests): no
                               search_leaves() pruning */
  guint n_units[MAX_VARS + 1];        /* comparison units per depth */
  guint *unit_next[MAX_VARS];         /* [n_units[k]]: its unit at depth k+1 */
  guint *unit_desc[MAX_VARS];         /* [n_units[k]]: descriptor of var order[k] */
  /* Depth k's units grouped by their unit at depth k+1 (stably: in
   * increasing order within a group): gather_unit[k] and gather_desc[k]
   * ([n_units[k]]) list each one and its descriptor, gather_start[k]
   * ([n_units[k+1] + 1]) where each unit of depth k+1 starts among them.
   * table_extend() sums each new unit's group in that order straight into
   * the new row: the same sums, bit for bit, as adding each unit into its
   * next unit in turn, without a scatter whose stores wait on each other. */
  guint *gather_unit[MAX_VARS];
  guint *gather_desc[MAX_VARS];
  guint *gather_start[MAX_VARS];
  double *unit_init;                  /* [2 n_units[0]]: value, magnitude */
  guint n_desc[MAX_VARS];             /* per depth k: descriptors of order[k] */
  double *phi[MAX_VARS];              /* per depth: [n_chains x n_desc] factors
                                         (its variable's var_phi, borrowed) */
  double *var_phi[MAX_VARS];          /* per variable: the same, computed once
                                         for every search order tried */
  guint n_diff;                       /* diff entries: fused loops + dims */
  /* The last depth's bucket bounds (bucket_bounds()): the chains of each
   * bucket of its variable in groups of equal fused tiles; per group,
   * each descriptor's least and largest factor over its chains
   * ([n_groups x 2 n_desc]) and per slot whether every chain gives its
   * units the same factors ([n_groups x n_leaf_slots]); NULL until
   * table_extend() first asks. */
  guint *bucket_group_first;          /* [n_buckets + 1]: bucket b's groups */
  guint *chain_group;                 /* [n_chains]: its group */
  guint *group_chain;                 /* [n_groups]: a chain of the group */
  double *group_phi;
  guint8 *group_slot_exact;
  guint8 *group_cut;                  /* [most groups of a bucket]: scratch */
  gboolean bucket_bounds_on;          /* not FFM_PMAPPING_NO_BUCKET_BOUNDS
                                         (tests) */
  guint64 bucket_bound_cuts;          /* groups so cut (out->n_bucket_cuts,
                                         the debug log) */
  guint64 bucket_bound_tests;         /* groups whose bound was taken */
  guint8 *unit_lex[MAX_VARS + 1];     /* per depth: each unit's LEX_* kind
                                         for energy first (its ties broken by
                                         latency, no leak); NULL otherwise */
  guint var_exp[MAX_BUFFETS][MAX_VARS];  /* ranks of a buffet's tensor a var indexes */
  gboolean buffet_affine[MAX_BUFFETS];   /* an index of its tensor is not one
                                            variable: occupancy is not a
                                            product of per-variable tiles */
  int buffet_memory[MAX_BUFFETS];     /* index into memories, -1 infinite */
  guint memory_buffet[MAX_BUFFETS];   /* the buffets of memory q, in order: */
  guint memory_first[MAX_BUFFETS + 1];/* memory_buffet[memory_first[q]..] */
  double *chain_occ[MAX_VARS];        /* per variable: [n_chains x n_buffets]
                                         each chain's factor of each buffet's
                                         occupancy (its tile, or the bound, to
                                         the ranks it indexes) */
  /* Buffets whose tensor has an affine index (capacity_chain_ok()): */
  guint n_affine;
  int affine_index[MAX_BUFFETS];      /* the buffet's index among them, or -1 */
  guint64 *affine_coef;               /* [n_vars x n_affine x RANKS]: the
                                         variable's coefficient in each
                                         rank's index (summed over terms) */
  guint32 *affine_mask;               /* [n_vars x n_affine]: the ranks whose
                                         index has the variable */
  guint64 *capacity_affine;           /* [n_vars + 1 depths x (n_vars + 1)
                                         passes x n_affine x (RANKS + 1)]:
                                         CapacityBase's, see there */

  /* Fixed tiles (mapping constraints): chain position (loops of the
   * variable above a storage node) and the tile required there. */
  guint n_fixed[MAX_VARS];
  guint fixed_pos[MAX_VARS][MAX_BUFFETS];
  guint64 fixed_tile[MAX_VARS][MAX_BUFFETS];
  FfmPmappingOptions eff;           /* options with the Einsum's own
                                       fused-loop limit; opt points here */

  FfmMemoryBudget *budget;          /* the generation's (workspace's); NULL:
                                       unlimited */
  gboolean stopped;                 /* out of memory or out of time: the
                                       search unwinds */
  gint64 deadline;                  /* monotonic time (µs) at which the
                                       template's time limit ends; 0: none */

  /* The leaves taken so far by search_leaves() in this template's earlier
   * chunks, by diff (taken_store_add()): table_extend() does not write a
   * complete row that one of them dominates (taken_store_dominates()). */
  struct {
    /* One record per distinct diff, in open hashing: */
    FfmBudgetBuffer buckets;        /* guint32 [n_buckets]: record + 1, 0 empty */
    FfmBudgetBuffer hash;           /* guint64 per record: its diff's hash */
    FfmBudgetBuffer next;           /* guint32 per record: next in bucket + 1 */
    FfmBudgetBuffer diff;           /* guint64 [n_diff] per record */
    FfmBudgetBuffer first;          /* guint32 per record: its first leaf + 1 */
    FfmBudgetBuffer least;          /* double [n_leaf_slots] per record: each
                                       slot's least value over its leaves */
    /* and one entry per leaf: */
    FfmBudgetBuffer leaf_next;      /* guint32 per leaf: next of its diff + 1 */
    FfmBudgetBuffer leaf_record;    /* guint32 per leaf: its record + 1 (only
                                       in the check mode, for
                                       taken_store_dominates_slowly()) */
    FfmBudgetBuffer slots;          /* double [2 n_leaf_slots] per leaf */
    guint n_buckets;                /* a power of two, or 0 */
    guint n_records;
    guint n;                        /* leaves */
    guint fail;                     /* the slot where a leaf failed last
                                       (unit_dominates()) */
    gboolean full;                  /* the budget or the cap said no more */
  } taken;
  guint64 tiles[MAX_LOOPS];
  guint64 used[MAX_VARS + 1][MAX_DIMS]; /* per depth: spatial products chosen */
  guint fused[MAX_VARS + 1];        /* per depth: fused loops of > 1 iteration */
  guint64 var_tiles[MAX_VARS];      /* scratch for occupancy */
  /* search()'s buckets per depth: those of the depth's variable that pass
   * the fused-loop, fanout and usage tests at the node's spatial products
   * and fused loops, which every chain of the parent's bucket shares
   * (search_survivors()). */
  struct Survivors {
    guint *bucket;                  /* indices into buckets[order[depth]] */
    guint n;
    guint64 unreachable;            /* buckets usage_reachable() cut */
    gboolean valid;                 /* for the parent's current bucket */
  } survivors[MAX_VARS + 2];        /* and [n_vars + 1]: table_extend()'s */
  guint *survivor_block;            /* the survivors' indices, one block */
  struct CapacityBase *capacity_base;  /* [n_vars + 1]: search()'s, per depth
                                          (8.7 kB each: not on the stack) */
  FfmCompatibility compat;
  FfmPmappingColumn columns[FFM_DESCRIBE_MAX_COLUMNS];
  double values[FFM_DESCRIBE_MAX_COLUMNS];

  /* The parts (ffm-joinable-parts-private.h) the shared tensors may have,
   * or NULL; per shared tensor with a list (n_jt of them, in
   * describe-info order), what its part is made of: */
  const FfmJoinableParts *joinable;
  guint n_jt;
  struct JoinableTensor {
    guint access;
    guint shared;                   /* index among the compatibility's tensors */
    guint level;
    gboolean persistent;
    guint prefix;                   /* loops above its backing node */
    int rank[MAX_LOOPS];            /* per loop < prefix: the tensor's rank
                                       it walks (ffm_join_plain_rank()) */
    int fanout_level[MAX_LOOPS];    /* per spatial loop < prefix */
    int fanout_dim[MAX_LOOPS];
    guint depth;                    /* the search depth from which every
                                       loop < prefix has its tile (set by
                                       joinable_depths() for the order) */
    gboolean plain;                 /* each loop < prefix walks a rank of
                                       its own variable (below 64): ranks
                                       tell the variables apart */
    GArray *proj[MAX_VARS + 1];     /* per depth below that where the loops
                                       chosen so far gain a rank: the list's
                                       parts over those ranks
                                       (ffm_joinable_parts_project()), or NULL */
  } jt[FFM_MAX_EINSUM_TENSORS];
  guint var_pos[MAX_VARS];          /* each variable's depth in the order */
  guint8 *chain_dead[MAX_VARS];     /* per variable, NULL or per chain: its
                                       loops rule out a joinable tensor's
                                       list (joinable_chains()) */
  guint n_live_chains[MAX_VARS];    /* per variable, its chains not ruled
                                       out: what the search orders count */
  guint64 n_unjoinable;             /* partial and complete vectors, and
                                       leaves, dropped for their parts */
  gboolean joinable_in_tables;      /* table_extend() checks the parts */
} Enum;

/* Sets the search order to @order and what dim_reach() needs of it, which
 * it would otherwise multiply out for every bucket of every row (an
 * eighth of ResNet-18's instructions on TPUv4i). Capping the products at
 * the dimension's count changes no reach (a used count is at least 1) and
 * keeps them exact integers in a double. */
static void
set_order (Enum *en, const guint *order)
{
  memmove (en->order, order, sizeof (guint) * en->n_vars);
  for (guint d = 0; d < en->n_dims; d++)
    {
      en->reach_after[en->n_vars][d] = 1;
      for (guint i = en->n_vars; i-- > 0; )
        en->reach_after[i][d] = MIN (en->reach_after[i + 1][d]
                                     * (double) en->chain_dim[en->order[i]][d],
                                     (double) en->dim_count[d]);
    }
}

/* ---- Chains ---- */

static gboolean
chain_ok (Enum *en, guint v, const guint64 *tiles)
{
  guint64 prod[MAX_DIMS] = { 0 };
  guint fused = 0;
  guint64 enclosing = en->bounds[v];

  for (guint k = 0; k < en->n_fixed[v]; k++)
    {
      guint pos = en->fixed_pos[v][k];
      if ((pos == 0 ? en->bounds[v] : tiles[pos - 1]) != en->fixed_tile[v][k])
        return FALSE;
    }
  for (guint d = 0; d < en->n_dims; d++)
    prod[d] = 1;
  for (guint i = 0; i < en->var_n_loops[v]; i++)
    {
      guint j = en->var_loops[v][i];
      guint64 n = ffm_chain_iterations (enclosing, tiles[i]);
      if (n > 1 && j < en->n_fused)
        fused++;
      if (en->loops[j].spatial)
        {
          guint d = en->loops[j].fanout_dim;
          prod[d] *= n;
          if (prod[d] > en->dim_count[d])
            return FALSE;
        }
      enclosing = tiles[i];
    }
  if (en->opt->max_fused_loops_per_rank_var >= 0
      && fused > (guint) en->opt->max_fused_loops_per_rank_var)
    return FALSE;
  if (en->opt->max_fused_loops >= 0 && fused > (guint) en->opt->max_fused_loops)
    return FALSE;
  for (guint d = 0; d < en->n_dims; d++)
    en->chain_dim[v][d] = MAX (en->chain_dim[v][d], prod[d]);
  return TRUE;
}

/* Appends every divisor chain of loops [i, k) below tile @outer. */
static void
make_chains (Enum *en, guint v, guint i, guint64 outer, guint64 *tiles)
{
  guint k = en->var_n_loops[v];

  if (i == k)
    {
      if (chain_ok (en, v, tiles))
        {
          g_array_append_vals (en->chains[v], tiles, k);
          en->n_chains[v]++;
        }
      return;
    }
  if (i == k - 1)
    {
      tiles[i] = 1;   /* the innermost loop goes down to one point */
      make_chains (en, v, k, 1, tiles);
      return;
    }
  /* Every divisor of outer as this loop's tile, largest first (a loop of
   * one iteration first). */
  {
    GArray *divisors = g_array_new (FALSE, FALSE, sizeof (guint64));
    guint n_small;
    for (guint64 d = 1; d <= outer / d; d++)
      if (outer % d == 0)
        g_array_append_val (divisors, d);
    n_small = divisors->len;
    for (guint x = 0; x < n_small; x++)
      {
        guint64 d = g_array_index (divisors, guint64, x);
        tiles[i] = outer / d;
        make_chains (en, v, i + 1, tiles[i], tiles);
      }
    for (guint x = n_small; x-- > 0; )
      {
        guint64 d = g_array_index (divisors, guint64, x);
        if (d == outer / d)
          continue;
        tiles[i] = d;
        make_chains (en, v, i + 1, d, tiles);
      }
    g_array_free (divisors, TRUE);
  }
}

/* The chains of @v with remainder tiles (ffm-pmapping-imperfect.c), those
 * chain_ok() accepts. */
static void
make_remainder_chains (Enum *en, guint v)
{
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (guint64));
  gboolean may[MAX_LOOPS];
  guint k = en->var_n_loops[v];

  for (guint i = 0; i < k; i++)
    may[i] = (en->opt->imperfect & (en->loops[en->var_loops[v][i]].spatial
                                    ? FFM_IMPERFECT_SPATIAL
                                    : FFM_IMPERFECT_TEMPORAL)) != 0;
  ffm_pmapping_remainder_chains (en->bounds[v], may, k, all);
  for (guint c = 0; c < all->len / k; c++)
    {
      const guint64 *tiles = &g_array_index (all, guint64, (gsize) c * k);
      if (chain_ok (en, v, tiles))
        {
          g_array_append_vals (en->chains[v], tiles, k);
          en->n_chains[v]++;
        }
    }
}

/* What the search checks of one chain. */
static void
chain_signature (const Enum *en, guint v, const guint64 *tiles, Bucket *sig)
{
  guint64 enclosing = en->bounds[v];

  memset (sig, 0, sizeof *sig);
  for (guint d = 0; d < en->n_dims; d++)
    sig->prod[d] = 1;
  for (guint i = 0; i < en->var_n_loops[v]; i++)
    {
      guint j = en->var_loops[v][i];
      guint64 n = ffm_chain_iterations (enclosing, tiles[i]);
      if (n > 1 && j < en->n_fused)
        sig->fused++;
      if (en->loops[j].spatial)
        sig->prod[en->loops[j].fanout_dim] *= n;
      enclosing = tiles[i];
    }
}

typedef struct {
  const Enum *en;
  guint v;
  const Bucket *sigs;
} BucketSort;

static int
compare_signatures (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const BucketSort *bs = data;
  guint a = *(const guint *) pa, b = *(const guint *) pb;
  const Bucket *sa = &bs->sigs[a], *sb = &bs->sigs[b];

  if (sa->fused != sb->fused)
    return sa->fused < sb->fused ? -1 : 1;
  for (guint d = 0; d < bs->en->n_dims; d++)
    if (sa->prod[d] != sb->prod[d])
      return sa->prod[d] < sb->prod[d] ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);   /* stable: keeps enumeration order */
}

/* Sorts the chains of @v by signature and records the buckets. */
static void
make_buckets (Enum *en, guint v)
{
  guint n = en->n_chains[v], k = en->var_n_loops[v];
  g_autofree Bucket *sigs = g_new0 (Bucket, MAX (n, 1));
  g_autofree guint *order = g_new (guint, MAX (n, 1));
  GArray *sorted;
  BucketSort bs = { en, v, sigs };

  en->buckets[v] = g_array_new (FALSE, FALSE, sizeof (Bucket));
  if (k == 0)
    {
      Bucket b = { 0, 1, 0, { 0 } };
      for (guint d = 0; d < en->n_dims; d++)
        b.prod[d] = 1;
      g_array_append_val (en->buckets[v], b);
      return;
    }
  for (guint c = 0; c < n; c++)
    {
      chain_signature (en, v, &g_array_index (en->chains[v], guint64, (gsize) c * k),
                       &sigs[c]);
      order[c] = c;
    }
  g_qsort_with_data (order, (gint) n, sizeof (guint), compare_signatures, &bs);
  sorted = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n * k);
  for (guint i = 0; i < n; i++)
    {
      const Bucket *sig = &sigs[order[i]];
      Bucket *last = en->buckets[v]->len > 0
        ? &g_array_index (en->buckets[v], Bucket, en->buckets[v]->len - 1) : NULL;
      g_array_append_vals (sorted, &g_array_index (en->chains[v], guint64,
                                                   (gsize) order[i] * k), k);
      if (last != NULL && last->fused == sig->fused
          && memcmp (last->prod, sig->prod, sizeof (guint64) * en->n_dims) == 0)
        last->n++;
      else
        {
          Bucket b = *sig;
          b.first = i;
          b.n = 1;
          g_array_append_val (en->buckets[v], b);
        }
    }
  g_array_free (en->chains[v], TRUE);
  en->chains[v] = sorted;
}

/* ---- Setup ---- */

static int
compare_vars (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const Enum *en = data;
  guint a = *(const guint *) pa, b = *(const guint *) pb;

  if (en->n_chains[a] != en->n_chains[b])
    return en->n_chains[a] < en->n_chains[b] ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);
}

/* Whether storage node @n holds a tensor rank variable @var indexes. */
static gboolean
storage_node_uses_var (const Enum *en, const FfmWorkload *w, const FfmMappingNode *n,
                       guint var)
{
  for (guint k = 0; n->tensors[k] != NULL; k++)
    {
      int t = ffm_workload_find_tensor (w, n->tensors[k]);
      int a = t >= 0 ? ffm_einsum_find_access (en->e, (guint) t) : -1;
      if (a >= 0 && ffm_access_uses_var (en->e, (guint) a, var))
        return TRUE;
    }
  return FALSE;
}

/* The fixed tiles of the Einsum's constraints, as chain requirements: for
 * every storage node at the constraint's memory whose tensor the variable
 * indexes, the tile of the variable after the loops over it above the
 * node (one instance's tile: templates place a memory's nodes below the
 * spatial loops of the fanouts above it). */
static void
setup_fixed_tiles (Enum *en, const FfmWorkload *w)
{
  const FfmEinsumConstraints *ec = en->t->constraints;
  const GPtrArray *nodes = en->t->nodes;

  if (ec == NULL)
    return;
  for (guint k = 0; k < ec->n_tiles; k++)
    {
      const FfmTileConstraint *tc = &ec->tiles[k];
      const char *level = NULL;
      guint loops = 0;
      if (tc->var >= en->n_vars)
        continue;
      for (guint i = 0; i < nodes->len; i++)
        {
          const FfmMappingNode *n = g_ptr_array_index (nodes, i);
          if ((n->kind == FFM_NODE_TEMPORAL || n->kind == FFM_NODE_SPATIAL)
              && g_strcmp0 (n->rank_var, en->e->rank_var_names[tc->var]) == 0)
            loops++;
          if (n->kind != FFM_NODE_STORAGE)
            continue;
          if (level == NULL)
            level = ffm_arch_get_level (en->arch, tc->level)->name;
          if (strcmp (n->level, level) == 0 && en->n_fixed[tc->var] < MAX_BUFFETS
              && storage_node_uses_var (en, w, n, tc->var))
            {
              guint x = en->n_fixed[tc->var]++;
              en->fixed_pos[tc->var][x] = loops;
              en->fixed_tile[tc->var][x] = tc->tile;
            }
        }
    }
}

/* The buffets of each memory, and each chain's factor of each buffet's
 * occupancy, for table_extend()'s capacity bound: computed once, not per
 * row and chain (GPT-3's V at unlimited fused loops spent 8 % of its time
 * raising tiles to powers there). Products of integer tiles and bits,
 * exact below 2^53, so the bound's products do not depend on grouping. */
static void
setup_chain_occupancy (Enum *en)
{
  guint n = 0;

  for (guint q = 0; q < en->n_memories; q++)
    {
      en->memory_first[q] = n;
      for (guint b = 0; b < en->n_buffets; b++)
        if (en->buffet_memory[b] == (int) q)
          en->memory_buffet[n++] = b;
    }
  en->memory_first[en->n_memories] = n;
  en->n_affine = 0;
  for (guint b = 0; b < en->n_buffets; b++)
    en->affine_index[b] = en->buffet_memory[b] >= 0 && en->buffet_affine[b]
      ? (int) en->n_affine++ : -1;
  en->affine_coef = g_new0 (guint64, (gsize) MAX (en->n_vars * en->n_affine, 1) * RANKS);
  en->affine_mask = g_new0 (guint32, MAX (en->n_vars * en->n_affine, 1));
  for (guint b = 0; b < en->n_buffets; b++)
    {
      const FfmTensorAccess *access = &en->e->accesses[en->buffet_access[b]];
      int a = en->affine_index[b];
      if (a < 0)
        continue;
      for (guint r = 0; r < RANKS; r++)
        for (guint t = 0; t < access->projections[r].n_terms; t++)
          {
            const FfmAffineTerm *term = &access->projections[r].terms[t];
            gsize va = (gsize) term->var * en->n_affine + (guint) a;
            en->affine_coef[va * RANKS + r] += (guint64) term->coefficient;
            en->affine_mask[va] |= 1u << r;
          }
    }
  for (guint v = 0; v < en->n_vars; v++)
    {
      guint nl = en->var_n_loops[v], nc = en->n_chains[v];
      en->chain_occ[v] = g_new (double, (gsize) MAX (nc, 1) * MAX (en->n_buffets, 1));
      for (guint c = 0; c < nc; c++)
        {
          const guint64 *chain = nl > 0
            ? &g_array_index (en->chains[v], guint64, (gsize) c * nl) : NULL;
          for (guint b = 0; b < en->n_buffets; b++)
            {
              int j = en->res_loop[b][v];   /* a loop of v, or none */
              double tile = (double) en->bounds[v], f = 1;
              for (guint i = 0; i < nl; i++)
                if (en->var_loops[v][i] == (guint) j)
                  tile = (double) chain[i];
              for (guint x = 0; x < en->var_exp[b][v]; x++)
                f *= tile;
              en->chain_occ[v][(gsize) c * en->n_buffets + b] = f;
            }
        }
    }
}

static gboolean
setup (Enum *en, const FfmWorkload *w, const FfmArch *a, const gboolean *untracked)
{
  const FfmPmappingModel *m = en->m;
  guint64 scratch[MAX_LOOPS];

  en->e = ffm_workload_get_einsum (w, ffm_pmapping_model_get_einsum (m));
  en->n_loops = ffm_pmapping_model_get_n_loops (m);
  en->n_vars = en->e->n_rank_vars;
  memcpy (en->bounds, en->e->rank_var_bounds, sizeof en->bounds);
  for (guint j = 0; j < en->n_loops; j++)
    {
      const FfmLoopInfo *l = ffm_pmapping_model_get_loop (m, j);
      en->loops[j] = *l;
      en->var_loops[l->rank_var][en->var_n_loops[l->rank_var]++] = j;
    }
  if (!ffm_describe_info_init (&en->info, w, a, m, en->opt->objectives))
    return FALSE;
  en->n_fused = en->info.n_fused;
  /* The groups leave out the reservations of memories known to be
   * untracked (the bounds below still check their capacity). */
  if (untracked != NULL)
    {
      guint n = 0;
      for (guint k = 0; k < en->info.n_memories; k++)
        if (!untracked[en->info.memories[k]])
          en->info.memories[n++] = en->info.memories[k];
      en->info.n_memories = n;
    }
  en->remainders = en->opt->imperfect != FFM_IMPERFECT_NONE
    && ffm_pmapping_model_counts_remainders (m);

  en->n_dims = ffm_pmapping_model_get_n_fanout_dims (m);
  g_return_val_if_fail (en->n_dims <= MAX_DIMS, FALSE);
  for (guint d = 0; d < en->n_dims; d++)
    {
      const FfmFanoutDimInfo *f = ffm_pmapping_model_get_fanout_dim (m, d);
      en->dim_count[d] = f->count;
      en->dim_min[d] = f->min_usage;
      en->dim_count_f[d] = (double) f->count;
      en->dim_need[d] = f->min_usage * (double) f->count;
      if (f->min_usage > 0)
        {
          en->constrained = TRUE;
          en->min_dims[en->n_min_dims++] = d;
        }
    }

  en->n_buffets = ffm_pmapping_model_get_n_buffets (m);
  g_return_val_if_fail (en->n_buffets <= MAX_BUFFETS, FALSE);
  for (guint b = 0; b < en->n_buffets; b++)
    {
      const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (m, b);
      guint nla = info->n_loops_above < 0 ? 0 : (guint) info->n_loops_above;
      gboolean known = FALSE;

      en->buffet_level[b] = info->level;
      en->buffet_access[b] = info->access;
      en->buffet_bits[b] = info->bits_per_value;
      for (guint v = 0; v < en->n_vars; v++)
        en->res_loop[b][v] = -1;
      for (guint j = 0; j < nla && j < en->n_loops; j++)
        en->res_loop[b][en->loops[j].rank_var] = j;
      for (guint k = 0; k < en->n_memories; k++)
        known |= en->memories[k] == info->level;
      if (!known && isfinite (ffm_pmapping_model_get_level_size (m, info->level)))
        {
          en->capacity[en->n_memories] = ffm_pmapping_model_get_level_size (m, info->level);
          en->memories[en->n_memories++] = info->level;
        }
    }

  /* Each buffet's memory and tile shape: a product of one variable's tile
   * per rank, or affine (capacity_ok() and the tables' occupancy bounds). */
  for (guint b = 0; b < en->n_buffets; b++)
    {
      const FfmTensor *tensor = ffm_workload_get_tensor (en->info.workload,
                                                         en->e->accesses[en->buffet_access[b]].tensor);
      en->buffet_memory[b] = -1;
      for (guint q = 0; q < en->n_memories; q++)
        if (en->memories[q] == en->buffet_level[b])
          en->buffet_memory[b] = q;
      for (guint v = 0; v < en->n_vars; v++)
        en->var_exp[b][v] = 0;
      en->buffet_affine[b] = FALSE;
      for (guint r = 0; r < tensor->n_ranks; r++)
        {
          const FfmProjection *p = &en->e->accesses[en->buffet_access[b]].projections[r];
          if (p->n_terms == 1 && p->terms[0].coefficient == 1)
            en->var_exp[b][p->terms[0].var]++;
          else
            en->buffet_affine[b] = TRUE;
        }
    }
  setup_fixed_tiles (en, w);
  for (guint v = 0; v < en->n_vars; v++)
    {
      en->chains[v] = g_array_new (FALSE, FALSE, sizeof (guint64));
      /* A variable with one chain (no loops, or bound 1) adds nothing on
       * any fanout dimension: a factor 1 in usage_reachable's bound, not
       * the 0 chain_ok would leave (which cut every branch). */
      if (en->var_n_loops[v] == 0 || en->bounds[v] <= 1)
        for (guint d = 0; d < en->n_dims; d++)
          en->chain_dim[v][d] = 1;
      if (en->var_n_loops[v] == 0)
        {
          en->n_chains[v] = 1;    /* bound 1: nothing to choose */
          continue;
        }
      if (en->bounds[v] <= 1)
        {
          for (guint i = 0; i < en->var_n_loops[v]; i++)
            scratch[i] = 1;
          g_array_append_vals (en->chains[v], scratch, en->var_n_loops[v]);
          en->n_chains[v] = 1;
          continue;
        }
      if (en->remainders)
        make_remainder_chains (en, v);
      else
        make_chains (en, v, 0, en->bounds[v], scratch);
    }
  for (guint v = 0; v < en->n_vars; v++)
    make_buckets (en, v);
  setup_chain_occupancy (en);
  for (guint v = 0; v < en->n_vars; v++)
    en->dfs_order[v] = v;
  g_qsort_with_data (en->dfs_order, (gint) en->n_vars, sizeof (guint), compare_vars, en);
  set_order (en, en->dfs_order);
  return TRUE;
}

/* ---- Bounds on partial tile vectors ---- */

/* Records a rejection at @level with @need bits in a memory of @cap. */
static void
reject_at (Enum *en, guint level, double need, double cap)
{
  FfmTemplateResult *r = en->out;

  r->rejected[level]++;
  if (cap >= 0 && (r->min_excess[level] < 0 || need - cap < r->min_excess[level]))
    {
      r->min_excess[level] = need - cap;
      r->min_need[level] = need;
    }
}

/* The search needs @bytes more than the memory budget gives: it stops,
 * and the result says so (the generation then fails naming the Einsum,
 * the template and the budget). */
static void
out_of_memory (Enum *en, gsize bytes)
{
  en->stopped = TRUE;
  if (!en->out->out_of_memory)
    {
      en->out->out_of_memory = TRUE;
      en->out->memory_asked = bytes;
    }
}

/* TUNING: the depth-first search reads the clock once per this many
 * nodes (a read costs about as much as a few nodes). */
#define DEADLINE_CHECK_NODES 1024

/* TRUE, and the search stops with what it has (the template is "cut"),
 * once its time limit has passed. */
static gboolean
past_deadline (Enum *en)
{
  if (en->deadline == 0 || g_get_monotonic_time () < en->deadline)
    return FALSE;
  en->stopped = TRUE;
  en->out->cut = TRUE;
  return TRUE;
}

/* The smallest tile variable @v, not chosen yet, can have at the
 * reservation of buffet @b: 1 below one of its loops, its bound above all
 * of them; and its bound as well below a fused loop when the fused-loop
 * budget is spent (@trivial_fused): its fused loops then have one
 * iteration, and fused loops are the first loops of the template, so the
 * tile stays the bound down to the first unfused loop. */
static guint64
smallest_tile (const Enum *en, guint b, guint v, gboolean trivial_fused)
{
  int j = en->res_loop[b][v];

  if (j < 0 || (trivial_fused && (guint) j < en->n_fused))
    return en->bounds[v];
  return 1;
}

/* The fused loops of more than one iteration that the variables not
 * chosen yet may still add, after @fused: G_MAXUINT when unlimited. */
static guint
fused_budget (const Enum *en, guint fused)
{
  if (en->opt->max_fused_loops < 0)
    return G_MAXUINT;
  return (guint) en->opt->max_fused_loops > fused
    ? (guint) en->opt->max_fused_loops - fused : 0;
}

/* The occupancy lower bound of every memory, with the variables chosen up
 * to @depth (exclusive) at their tiles and the others at their smallest.
 * With a fused-loop budget of one loop, at most one of the others (@free,
 * or none) has a fused loop of more than one iteration: every memory's
 * bound is then taken per choice of @free, and the branch is cut only when
 * every choice overflows some memory (with two or more loops left, every
 * other variable is taken as free). */
static gboolean
capacity_ok (Enum *en, guint depth)
{
  gboolean chosen[MAX_VARS] = { FALSE };
  guint budget = fused_budget (en, en->fused[depth]);
  int best_level = -1;
  double best_occ = 0, best_cap = 0, best_excess = INFINITY;
  gboolean some_free = FALSE;

  for (guint i = 0; i < depth; i++)
    chosen[en->order[i]] = TRUE;
  for (guint v = 0; v < en->n_vars; v++)
    some_free |= !chosen[v] && en->var_n_loops[v] > 0;
  /* free = -1: every other variable free (budget >= 2) or none (budget 0,
   * or nothing left to choose); with budget 1, "none" bounds no lower
   * than any one free variable, so only those are tried. */
  for (int free = -1; free < (int) en->n_vars; free++)
    {
      double occ[MAX_BUFFETS] = { 0 };
      gboolean fits = TRUE;
      if (free < 0 && budget == 1 && some_free)
        continue;
      if (free >= 0 && (budget != 1 || chosen[free] || en->var_n_loops[free] == 0))
        continue;
      for (guint b = 0; b < en->n_buffets; b++)
        {
          int k = en->buffet_memory[b];
          guint64 values = 1;
          if (k < 0)
            continue;
          for (guint v = 0; v < en->n_vars; v++)
            {
              int j = en->res_loop[b][v];
              if (!en->buffet_affine[b] && en->var_exp[b][v] == 0)
                continue;
              if (chosen[v] || en->var_n_loops[v] == 0)
                en->var_tiles[v] = j >= 0 ? en->tiles[j] : en->bounds[v];
              else
                en->var_tiles[v] = smallest_tile (en, b, v,
                                                  budget == 0 || (budget == 1 && (int) v != free));
              /* One rank per factor: ffm_access_tile_values()' product,
               * without its pass over every possible rank (the probes
               * call this for every node they visit). */
              for (guint x = 0; x < en->var_exp[b][v] && values != G_MAXUINT64; x++)
                if (__builtin_mul_overflow (values, en->var_tiles[v], &values))
                  values = G_MAXUINT64;
            }
          if (en->buffet_affine[b])
            values = ffm_access_tile_values (en->e, en->buffet_access[b], en->var_tiles);
          occ[k] += (double) values * en->buffet_bits[b];
        }
      for (guint k = 0; k < en->n_memories; k++)
        if (occ[k] > en->capacity[k])
          {
            if (occ[k] - en->capacity[k] < best_excess)
              {
                best_excess = occ[k] - en->capacity[k];
                best_level = (int) k;
                best_occ = occ[k];
                best_cap = en->capacity[k];
              }
            fits = FALSE;
            break;
          }
      if (fits)
        return TRUE;
    }
  reject_at (en, en->memories[best_level], best_occ, best_cap);
  return FALSE;
}

/* capacity_ok() for the chains of one variable: what does not depend on
 * the chain, computed once per bucket (capacity_base()), so that each
 * chain multiplies in its own factors (capacity_chain_ok()). The probes
 * of try best ask this for every node they visit: capacity_ok() was a
 * fifth of MobileNet-V3's time on TPUv4i. Products of integer tiles as
 * doubles are exact below 2^53, so the occupancies are capacity_ok()'s
 * (FFM_PMAPPING_CHECK_TERMS compares the two at every chain). */
typedef struct CapacityBase {
  guint n_passes;
  int free[MAX_VARS + 1];                    /* per pass: capacity_ok()'s free */
  double prod[MAX_VARS + 1][MAX_BUFFETS];    /* per pass: the other variables'
                                                factor of each buffet */
  /* Buffets with an affine index, per pass and affine buffet (RANKS + 1
   * entries): each rank's extent with the variable's tile at 1 (where its
   * index has the variable), then the product of the other ranks'
   * extents. With the chain's tile t, a rank's extent is its entry plus
   * coefficient x (t - 1): ffm_access_tile_values() without a pass over
   * every rank and variable. */
  guint64 *affine;
} CapacityBase;

/* @a x @b, or G_MAXUINT64 when it overflows, as ffm_access_tile_values()
 * saturates: its factors are >= 1, so its product saturates exactly when
 * the true product does, in any order. */
static inline guint64
saturating_mul (guint64 a, guint64 b)
{
  guint64 n;
  return __builtin_mul_overflow (a, b, &n) ? G_MAXUINT64 : n;
}

/* The value count of affine buffet @b split for variable @v (@out,
 * RANKS + 1 entries): each rank's extent with @tiles and @v's tile at 1
 * where its index has @v, then the product of the other ranks' extents
 * (@tiles[@v] is not read). affine_values() completes it with a tile of
 * @v: ffm_access_tile_values() without a pass over every rank and
 * variable. */
static void
affine_split (const Enum *en, guint v, guint b, guint64 *tiles, guint64 *out)
{
  const FfmTensorAccess *access = &en->e->accesses[en->buffet_access[b]];
  guint32 mask = en->affine_mask[(gsize) v * en->n_affine + (guint) en->affine_index[b]];
  guint64 rest = 1;

  tiles[v] = 1;
  for (guint r = 0; r < RANKS; r++)
    {
      guint64 extent = ffm_projection_extent_inline (&access->projections[r], tiles);
      if (mask & (1u << r))
        out[r] = extent;
      else
        rest = saturating_mul (rest, extent);
    }
  out[RANKS] = rest;
}

/* ffm_access_tile_values() of affine buffet @b from its split for @v
 * (@split, affine_split()), with @v's tile from en->tiles. Each rank's
 * extent saturates where ffm_projection_extent() does (any overflow of
 * the exact sum), and the product where ffm_access_tile_values() does. */
static inline guint64
affine_values (const Enum *en, guint v, guint b, const guint64 *split)
{
  guint a = (guint) en->affine_index[b];
  const guint64 *coef = en->affine_coef + ((gsize) v * en->n_affine + a) * RANKS;
  guint32 mask = en->affine_mask[(gsize) v * en->n_affine + a];
  int j = en->res_loop[b][v];
  guint64 tile = j >= 0 ? en->tiles[j] : en->bounds[v];
  guint64 n = split[RANKS];

  for (; mask != 0; mask &= mask - 1)
    {
      guint r = (guint) __builtin_ctz (mask);
      guint64 span, extent;
      if (__builtin_mul_overflow (coef[r], tile - 1, &span)
          || __builtin_add_overflow (split[r], span, &extent))
        extent = G_MAXUINT64;
      n = saturating_mul (n, extent);
    }
  return n;
}

/* CapacityBase's entries (@out, RANKS + 1) of affine buffet @b in the
 * pass of @free: capacity_ok()'s tiles, split for variable @v. */
static void
capacity_base_affine (const Enum *en, guint v, guint budget, int free,
                      const gboolean *chosen, guint b, guint64 *out)
{
  guint64 tiles[MAX_VARS];

  for (guint u = 0; u < en->n_vars; u++)
    {
      int j = en->res_loop[b][u];
      if (u == v)
        tiles[u] = 1;
      else if (chosen[u] || en->var_n_loops[u] == 0)
        tiles[u] = j >= 0 ? en->tiles[j] : en->bounds[u];
      else
        tiles[u] = smallest_tile (en, b, u, budget == 0 || (budget == 1 && (int) u != free));
    }
  affine_split (en, v, b, tiles, out);
}

/* The chain-independent part of capacity_ok (@en, @depth) for variable
 * @v = order[@depth - 1]. */
static void
capacity_base (const Enum *en, guint depth, guint v, CapacityBase *cb)
{
  gboolean chosen[MAX_VARS] = { FALSE };
  guint budget = fused_budget (en, en->fused[depth]);
  gboolean some_free = FALSE;

  for (guint i = 0; i < depth; i++)
    chosen[en->order[i]] = TRUE;
  for (guint u = 0; u < en->n_vars; u++)
    some_free |= !chosen[u] && en->var_n_loops[u] > 0;
  cb->n_passes = 0;
  for (int free = -1; free < (int) en->n_vars; free++)
    {
      double *prod = cb->prod[cb->n_passes];
      if (free < 0 && budget == 1 && some_free)
        continue;
      if (free >= 0 && (budget != 1 || chosen[free] || en->var_n_loops[free] == 0))
        continue;
      cb->free[cb->n_passes++] = free;
      for (guint b = 0; b < en->n_buffets; b++)
        {
          double f = 1;
          if (en->affine_index[b] >= 0)
            {
              capacity_base_affine (en, v, budget, free, chosen, b,
                                    cb->affine + ((gsize) (cb->n_passes - 1) * en->n_affine
                                                  + (guint) en->affine_index[b]) * (RANKS + 1));
              continue;
            }
          if (en->buffet_memory[b] < 0)
            continue;
          for (guint u = 0; u < en->n_vars; u++)
            {
              int j = en->res_loop[b][u];
              guint64 tile;
              if (u == v || en->var_exp[b][u] == 0)
                continue;
              if (chosen[u] || en->var_n_loops[u] == 0)
                tile = j >= 0 ? en->tiles[j] : en->bounds[u];
              else
                tile = smallest_tile (en, b, u, budget == 0 || (budget == 1 && (int) u != free));
              for (guint x = 0; x < en->var_exp[b][u]; x++)
                f *= (double) tile;
            }
          prod[b] = f;
        }
    }
}

/* capacity_ok (@en, @depth) for chain @c of @v, whose tiles are in
 * en->tiles, from @cb (capacity_base()). */
static gboolean
capacity_chain_ok (Enum *en, const CapacityBase *cb, guint depth, guint v, guint c)
{
  const double *factor = en->chain_occ[v] + (gsize) c * en->n_buffets;
  int best_level = -1;
  double best_occ = 0, best_cap = 0, best_excess = INFINITY;

  for (guint pass = 0; pass < cb->n_passes; pass++)
    {
      gboolean fits = TRUE;
      for (guint q = 0; q < en->n_memories && fits; q++)
        {
          double occ = 0;
          for (guint i = en->memory_first[q]; i < en->memory_first[q + 1]; i++)
            {
              guint b = en->memory_buffet[i];
              double values;
              if (!en->buffet_affine[b])
                values = cb->prod[pass][b] * factor[b];
              else
                values = (double) affine_values (en, v, b, cb->affine
                                                 + ((gsize) pass * en->n_affine
                                                    + (guint) en->affine_index[b]) * (RANKS + 1));
              occ += values * en->buffet_bits[b];
            }
          if (occ > en->capacity[q])
            {
              if (occ - en->capacity[q] < best_excess)
                {
                  best_excess = occ - en->capacity[q];
                  best_level = (int) q;
                  best_occ = occ;
                  best_cap = en->capacity[q];
                }
              fits = FALSE;
            }
        }
      if (fits)
        return TRUE;
    }
  reject_at (en, en->memories[best_level], best_occ, best_cap);
  return FALSE;
}

/* capacity_chain_ok(), checked against capacity_ok(): the same answer
 * and the same rejection statistics (FFM_PMAPPING_CHECK_TERMS). */
static gboolean
capacity_chain_checked (Enum *en, const CapacityBase *cb, guint depth, guint v, guint c)
{
  FfmTemplateResult *r = en->out;
  guint n_levels = ffm_arch_get_n_levels (en->arch);
  g_autofree guint64 *rejected = g_memdup2 (r->rejected, sizeof (guint64) * n_levels);
  g_autofree double *min_excess = g_memdup2 (r->min_excess, sizeof (double) * n_levels);
  g_autofree double *min_need = g_memdup2 (r->min_need, sizeof (double) * n_levels);
  g_autofree guint64 *slow_rejected = NULL;
  g_autofree double *slow_min_excess = NULL, *slow_min_need = NULL;
  gboolean slow = capacity_ok (en, depth), fast;

  slow_rejected = g_memdup2 (r->rejected, sizeof (guint64) * n_levels);
  slow_min_excess = g_memdup2 (r->min_excess, sizeof (double) * n_levels);
  slow_min_need = g_memdup2 (r->min_need, sizeof (double) * n_levels);
  memcpy (r->rejected, rejected, sizeof (guint64) * n_levels);
  memcpy (r->min_excess, min_excess, sizeof (double) * n_levels);
  memcpy (r->min_need, min_need, sizeof (double) * n_levels);
  fast = capacity_chain_ok (en, cb, depth, v, c);
  if (fast != slow
      || memcmp (r->rejected, slow_rejected, sizeof (guint64) * n_levels) != 0
      || memcmp (r->min_excess, slow_min_excess, sizeof (double) * n_levels) != 0
      || memcmp (r->min_need, slow_min_need, sizeof (double) * n_levels) != 0)
    g_warning ("capacity_chain_ok: template %u, depth %u, chain %u: capacity_ok() "
               "says otherwise (fits %d against %d, or other rejections)",
               en->t->id, depth, c, fast, slow);
  return fast;
}

/* An upper bound on the usage score (usage_score()) of every completion of
 * the variables chosen up to @depth: each constrained dimension's product
 * at its largest reach. Computed in the same order as usage_score(), with
 * factors at least as large, so it bounds the score exactly in floating
 * point too. */
/* The most instances of fanout dimension @d that a completion of the
 * variables chosen up to @depth can use. */
static double
dim_reach (const Enum *en, guint depth, guint d)
{
  return MIN ((double) en->used[depth][d] * en->reach_after[depth][d],
              en->dim_count_f[d]);
}

static double
usage_score_bound (const Enum *en, guint depth)
{
  double bound = 1;

  for (guint i = 0; i < en->n_min_dims; i++)
    {
      guint d = en->min_dims[i];
      bound *= dim_reach (en, depth, d) / en->dim_count_f[d];
    }
  return bound;
}

/* Counts its cuts in usage_rejected: a template whose every branch is cut
 * here reaches no leaf, and still needs the "try best" pass. In that pass
 * the bound cuts, while probing, what cannot beat the best usage found so
 * far, and then what cannot reach the best usage. Inline: asked for every
 * bucket of every node (as a call, 3 % of MobileNet-V3's T7). */
static inline gboolean
usage_reachable (Enum *en, guint depth)
{
  if (!en->constrained)
    return TRUE;
  if (en->relaxed)
    {
      double bound = usage_score_bound (en, depth);
      return en->probing ? bound > en->best_score : bound >= en->target_score;
    }
  for (guint i = 0; i < en->n_min_dims; i++)
    {
      guint d = en->min_dims[i];
      if (dim_reach (en, depth, d) < en->dim_need[d])
        {
          en->usage_rejected++;
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- Leaves ---- */

static double
usage_score (const Enum *en)
{
  double score = 1;

  for (guint d = 0; d < en->n_dims; d++)
    if (en->dim_min[d] > 0)
      score *= (double) en->cost->fanout_used[d] / (double) en->dim_count[d];
  return score;
}

static gboolean
usage_ok (const Enum *en)
{
  for (guint d = 0; d < en->n_dims; d++)
    if (en->dim_min[d] > 0
        && (double) en->cost->fanout_used[d]
           < en->dim_min[d] * (double) en->dim_count[d])
      return FALSE;
  return TRUE;
}

/* ---- Joinable parts (options.drop_unjoinable) ----
 *
 * A shared tensor's part (ffm-joinable-parts-private.h) is fixed by the
 * tiles of the fused loops above its backing node; once the search has
 * chosen them (at jt->depth), a partial vector whose part the tensor's
 * list lacks is dropped with everything below it: no completion changes
 * the part, and pruning compares only vectors of one diff (hence one
 * part), so no other vector's fate depends on it. Leaves are checked
 * again from their compatibility (every search path goes through
 * leaf()); the check mode holds the two computations to each other. */

/* Which shared tensors have a list, and what their parts are made of. */
static void
joinable_setup (Enum *en)
{
  if (en->joinable == NULL)
    return;
  for (guint s = 0; s < en->info.n_shared; s++)
    {
      guint a = en->info.shared_access[s];
      struct JoinableTensor *jt;
      if (!ffm_joinable_parts_restricts (en->joinable, a))
        continue;
      jt = &en->jt[en->n_jt++];
      jt->access = a;
      jt->shared = s;
      jt->level = en->info.shared_level[s];
      jt->persistent = en->info.shared_persistent[s];
      jt->prefix = en->info.shared_prefix[s];
      jt->plain = TRUE;
      for (guint j = 0; j < jt->prefix; j++)
        {
          const FfmLoopInfo *l = &en->loops[j];
          jt->rank[j] = ffm_join_plain_rank (en->info.workload, en->e, a, l->rank_var);
          jt->plain = jt->plain && jt->rank[j] >= 0 && jt->rank[j] < 64;
          for (guint x = 0; x < j && jt->plain; x++)
            jt->plain = jt->rank[x] != jt->rank[j]
              || en->loops[x].rank_var == l->rank_var;
          jt->fanout_level[j] = jt->fanout_dim[j] = -1;
          if (l->spatial)
            {
              const FfmFanoutDimInfo *f = ffm_pmapping_model_get_fanout_dim (en->m, l->fanout_dim);
              jt->fanout_level[j] = (int) f->level;
              jt->fanout_dim[j] = (int) f->dim;
            }
        }
    }
}

/* Loop @j (above @jt's backing node) of @count iterations of tile @tile,
 * as a part sees it. */
static void
part_loop (const Enum *en, const struct JoinableTensor *jt, guint j, guint64 count,
           guint64 tile, FfmPartLoop *out)
{
  out->rank = jt->rank[j];
  out->spatial = en->loops[j].spatial ? 1 : 0;
  out->fanout_level = jt->fanout_level[j];
  out->fanout_dim = jt->fanout_dim[j];
  out->count = count;
  out->tile = tile;
}

static void
joinable_free_projections (Enum *en)
{
  for (guint i = 0; i < en->n_jt; i++)
    for (guint q = 0; q <= MAX_VARS; q++)
      g_clear_pointer (&en->jt[i].proj[q], g_array_unref);
}

/* Per variable, the chains whose loops above some joinable tensor's
 * backing node rule out its list on their own: their loops over the
 * variable's rank are those of no part of the list (the list projected
 * onto that rank), whatever the other variables' loops. The tables skip
 * them at every depth; the pilots see that too. The depth-first searches
 * (the probe for the minimum usage among them) visit every chain, so
 * that what they decide is what they decide without lists. */
static void
joinable_chains (Enum *en)
{
  for (guint v = 0; v < MAX_VARS; v++)
    g_clear_pointer (&en->chain_dead[v], g_free);
  memcpy (en->n_live_chains, en->n_chains, sizeof en->n_live_chains);
  for (guint i = 0; i < en->n_jt; i++)
    {
      const struct JoinableTensor *jt = &en->jt[i];
      if (!jt->plain)
        continue;
      for (guint v = 0; v < en->n_vars; v++)
        {
          guint nl = en->var_n_loops[v], n_chains, first = G_MAXUINT;
          g_autoptr(GArray) proj = NULL;
          for (guint x = 0; x < nl && first == G_MAXUINT; x++)
            if (en->var_loops[v][x] < jt->prefix)
              first = en->var_loops[v][x];
          if (first == G_MAXUINT || en->chains[v] == NULL || en->chains[v]->len == 0)
            continue;
          proj = ffm_joinable_parts_project (en->joinable, jt->access,
                                             G_GUINT64_CONSTANT (1) << jt->rank[first]);
          n_chains = en->chains[v]->len / nl;
          if (en->chain_dead[v] == NULL)
            en->chain_dead[v] = g_new0 (guint8, n_chains);
          for (guint c = 0; c < n_chains; c++)
            {
              const guint64 *chain = &g_array_index (en->chains[v], guint64, (gsize) c * nl);
              FfmPartLoop loops[MAX_LOOPS];
              guint64 enclosing = en->bounds[v];
              guint n = 0;
              for (guint x = 0; x < nl; x++)
                {
                  guint j = en->var_loops[v][x];
                  guint64 count = ffm_chain_iterations (enclosing, chain[x]);
                  if (j < jt->prefix && count > 1)
                    part_loop (en, jt, j, count, chain[x], &loops[n++]);
                  enclosing = chain[x];
                }
              if (!en->chain_dead[v][c]
                  && !ffm_joinable_hashes_have (proj, ffm_joinable_part_hash (jt->level,
                                                                              jt->persistent,
                                                                              loops, n)))
                {
                  en->chain_dead[v][c] = 1;
                  en->n_live_chains[v]--;
                }
            }
        }
    }
}

/* Each joinable tensor's depth in the present search order, and its
 * list's projections for the depths before: at depth q the loops of the
 * variables order[0..q) have their tiles, so a vector's loops over their
 * ranks are final. Only where each loop above the backing node walks a
 * rank of its own (below 64), so that ranks tell the variables apart. */
static void
joinable_depths (Enum *en)
{
  joinable_free_projections (en);
  for (guint q = 0; q < en->n_vars; q++)
    en->var_pos[en->order[q]] = q;
  for (guint i = 0; i < en->n_jt; i++)
    {
      struct JoinableTensor *jt = &en->jt[i];
      jt->depth = 0;
      for (guint j = 0; j < jt->prefix; j++)
        jt->depth = MAX (jt->depth, en->var_pos[en->loops[j].rank_var] + 1);
      if (!jt->plain)
        continue;
      for (guint q = 1; q < jt->depth; q++)
        {
          guint64 mask = 0;
          gboolean gained = FALSE;
          for (guint j = 0; j < jt->prefix; j++)
            {
              guint pos = en->var_pos[en->loops[j].rank_var];
              if (pos < q)
                mask |= G_GUINT64_CONSTANT (1) << jt->rank[j];
              gained = gained || pos == q - 1;
            }
          if (gained)
            jt->proj[q] = ffm_joinable_parts_project (en->joinable, jt->access, mask);
        }
    }
}

/* The part of @jt at @tiles with only the loops whose variables come
 * before depth @depth in the order (all of them for G_MAXUINT); only the
 * loops above its backing node are read: a diff holds them at the same
 * indices. */
static guint64
joinable_part (const Enum *en, const struct JoinableTensor *jt, const guint64 *tiles,
               guint depth)
{
  FfmPartLoop loops[MAX_LOOPS];
  guint n = 0;

  for (guint j = 0; j < jt->prefix; j++)
    {
      const FfmLoopInfo *l = &en->loops[j];
      guint64 enclosing, count;
      if (depth != G_MAXUINT && en->var_pos[l->rank_var] >= depth)
        continue;
      enclosing = l->enclosing >= 0 ? tiles[l->enclosing] : en->bounds[l->rank_var];
      count = ffm_chain_iterations (enclosing, tiles[j]);
      if (count <= 1)
        continue;   /* as in the compatibility: it does not exist */
      part_loop (en, jt, j, count, tiles[j], &loops[n++]);
    }
  return ffm_joinable_part_hash (jt->level, jt->persistent, loops, n);
}

/* Whether a joinable tensor is checked at depth @depth: all its loops are
 * chosen there, or the list has a projection for it. */
static gboolean
joinable_checked_at (const struct JoinableTensor *jt, guint depth)
{
  return jt->depth == depth || (depth < jt->depth && jt->proj[depth] != NULL);
}

/* Whether every joinable tensor checked at depth @depth has, at @tiles,
 * a part (or at a projection's depth, loops over the ranks chosen so far)
 * its list has. */
static gboolean
joinable_ok_at (const Enum *en, const guint64 *tiles, guint depth)
{
  for (guint i = 0; i < en->n_jt; i++)
    {
      const struct JoinableTensor *jt = &en->jt[i];
      if (jt->depth == depth)
        {
          if (!ffm_joinable_parts_allows (en->joinable, jt->access,
                                          joinable_part (en, jt, tiles, G_MAXUINT)))
            return FALSE;
        }
      else if (depth < jt->depth && jt->proj[depth] != NULL
               && !ffm_joinable_hashes_have (jt->proj[depth],
                                             joinable_part (en, jt, tiles, depth)))
        return FALSE;
    }
  return TRUE;
}

/* Sets up the joinable tensors; FALSE (counted) when one without fused
 * loops above its backing node has a part its list lacks: every vector of
 * the template has that part. */
static gboolean
joinable_template_ok (Enum *en)
{
  joinable_setup (en);
  for (guint i = 0; i < en->n_jt; i++)
    en->jt[i].depth = en->jt[i].prefix == 0 ? 0 : G_MAXUINT;
  /* Before the search orders are chosen: they count the live chains (the
   * order decides which of two pmappings of equal cost a group keeps, so
   * every process of an MPI run has the same lists: ffm-pmapping-jobs.h). */
  joinable_chains (en);
  if (joinable_ok_at (en, en->tiles, 0))
    return TRUE;
  en->n_unjoinable++;
  return FALSE;
}

/* Whether the compatibility in en->compat (a leaf's) has, for every
 * joinable tensor, a part its list has. The check mode compares each
 * part with the one the tiles give. */
static gboolean
joinable_leaf_ok (Enum *en)
{
  gboolean ok = TRUE;

  for (guint i = 0; i < en->n_jt; i++)
    {
      const struct JoinableTensor *jt = &en->jt[i];
      guint64 part = ffm_joinable_part_of_compat (en->info.workload, en->e,
                                                  &en->compat, jt->shared, NULL);
      if (en->check_terms && part != joinable_part (en, jt, en->tiles, G_MAXUINT))
        g_warning ("joinable parts: template %u, tensor access %u: the leaf's "
                   "compatibility and its tiles give different parts", en->t->id,
                   jt->access);
      if (!ffm_joinable_parts_allows (en->joinable, jt->access, part))
        ok = FALSE;
    }
  return ok;
}

static FfmTemplateGroup *
find_group (Enum *en, guint n_columns)
{
  FfmTemplateResult *r = en->out;
  FfmTemplateGroup *g = g_hash_table_lookup (r->index, &en->compat);

  if (g != NULL)
    return g;
  g = g_new0 (FfmTemplateGroup, 1);
  g->compat = en->compat;
  g->n_columns = n_columns;
  g->objectives = en->opt->objectives;
  g->columns = g_array_new (FALSE, FALSE, sizeof (FfmPmappingColumn));
  g_array_append_vals (g->columns, en->columns, n_columns);
  g->values = g_array_new (FALSE, FALSE, sizeof (double));
  g->tiles = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_ptr_array_add (r->groups, g);
  g_hash_table_insert (r->index, &g->compat, g);
  return g;
}

void ffm_template_group_prune (FfmTemplateGroup *g, guint n_loops);
static void check_terms (Enum *en);

/* Evaluates the tile vector in en->tiles; TRUE when a group took it. */
static gboolean
leaf (Enum *en)
{
  FfmPmappingCost *cost = en->cost;
  FfmTemplateGroup *g;
  guint n_columns;

  ffm_pmapping_model_evaluate (en->m, en->tiles, cost);
  en->out->n_evaluated++;
  if (cost->status != FFM_COST_VALID)
    {
      if (cost->bad_level >= 0 && cost->status != FFM_COST_BAD_TILES)
        reject_at (en, cost->bad_level,
                   cost->status == FFM_COST_DOES_NOT_FIT
                   ? cost->level_occupancy[cost->bad_level] : -1, -1);
      return FALSE;
    }
  if (en->probing)
    {
      en->best_score = MAX (en->best_score, usage_score (en));
      /* a vector the groups would take (not one of too many fused loops) */
      if (en->probe_until_min && usage_ok (en)
          && ffm_describe_row (&en->info, en->m, en->tiles, cost, &en->compat,
                               en->columns, en->values) > 0)
        en->min_reached = TRUE;
      return FALSE;
    }
  if (!usage_ok (en))
    {
      en->usage_rejected++;
      if (!en->relaxed || usage_score (en) < en->target_score)
        return FALSE;
    }
  if (en->check_terms && en->terms != NULL)
    check_terms (en);
  n_columns = ffm_describe_row (&en->info, en->m, en->tiles, cost, &en->compat,
                                en->columns, en->values);
  if (n_columns == 0)
    return FALSE;
  en->out->n_valid++;
  if (en->n_jt > 0 && !joinable_leaf_ok (en))
    {
      /* A row the tables kept has a part of its list (check mode). */
      if (en->check_terms && en->joinable_in_tables)
        g_warning ("joinable parts: template %u: a leaf of the tables has a part "
                   "its tensor's list lacks", en->t->id);
      en->n_unjoinable++;
      return FALSE;
    }
  g = find_group (en, n_columns);
  /* Rows are charged to the budget in chunks (TUNING: a quarter of what
   * the result holds, at least 64 KiB: few atomic operations). */
  {
    FfmTemplateResult *r = en->out;
    gsize row = sizeof (double) * n_columns + sizeof (guint64) * en->n_loops;
    r->bytes += row;
    if (r->bytes > r->charged)
      {
        gsize chunk = MAX (MAX (r->bytes - r->charged, r->charged / 4), (gsize) 65536);
        if (!ffm_memory_budget_reserve (en->budget, chunk))
          {
            r->bytes -= row;
            out_of_memory (en, chunk);
            return FALSE;
          }
        r->charged += chunk;
        r->budget = en->budget;
      }
  }
  g_array_append_vals (g->values, en->values, n_columns);
  g_array_append_vals (g->tiles, en->tiles, en->n_loops);
  g->n_rows++;
  if (g->n_rows > 2 * g->pruned_rows + PRUNE_SLACK)
    ffm_template_group_prune (g, en->n_loops);
  return TRUE;
}

/* The term model's sums against the cost model's numbers (a debugging aid,
 * on with FFM_PMAPPING_CHECK_TERMS=1; tests turn it on). */
static void
check_terms (Enum *en)
{
  const FfmTerms *t = en->terms;
  double sums[256], occ[64] = { 0 }, lat[64][2] = { { 0 } };
  gboolean has_lat[64] = { FALSE };

  g_return_if_fail (t->classes->len <= G_N_ELEMENTS (sums));
  ffm_terms_evaluate (t, en->m, en->bounds, en->tiles, sums);
  for (guint c = 0; c < t->classes->len; c++)
    {
      const FfmTermClass *k = &g_array_index (t->classes, FfmTermClass, c);
      double expect = 0;
      if (k->kind == FFM_TERM_ENERGY)
        expect = en->cost->dynamic_energy;
      else if (k->kind == FFM_TERM_OCCUPANCY)
        {
          occ[k->level] += sums[c];
          continue;
        }
      else
        {
          lat[k->level][k->nla] = sums[c];
          has_lat[k->level] = TRUE;
          continue;
        }
      if (fabs (sums[c] - expect) > 1e-9 * fabs (expect) + 1e-30)
        g_warning ("term check: energy %.17g, model %.17g", sums[c], expect);
    }
  for (guint l = 0; l < 64 && l < en->cost->n_levels; l++)
    {
      double model = en->cost->level_occupancy[l];
      double mine = MAX (lat[l][0], lat[l][1]);
      if (occ[l] != 0 && fabs (occ[l] - model) > 1e-9 * model)
        g_warning ("term check: occupancy of level %u %.17g, model %.17g", l,
                   occ[l], model);
      if (has_lat[l] && fabs (mine - en->cost->level_latency[l])
          > 1e-9 * en->cost->level_latency[l] + 1e-30)
        g_warning ("term check: latency of level %u %.17g, model %.17g", l,
                   mine, en->cost->level_latency[l]);
    }
}

/* ---- Search ---- */

/* The survivors' lists, allocated at the first use: one per depth for
 * search(), one for table_extend(), each as long as the most buckets of
 * a variable. */
static void
survivor_lists (Enum *en)
{
  if (en->survivor_block == NULL)
    {
      guint most = 0;
      for (guint u = 0; u < en->n_vars; u++)
        most = MAX (most, en->buckets[u]->len);
      /* one list per depth for search(), one for table_extend() */
      en->survivor_block = g_new (guint, (gsize) MAX (most, 1) * (en->n_vars + 2));
      for (guint k = 0; k <= en->n_vars + 1; k++)
        en->survivors[k].bucket = en->survivor_block + (gsize) k * MAX (most, 1);
    }
}

/* The buckets of order[@depth] that pass the fused-loop budget, the
 * fanout dimensions' counts and usage_reachable() at used[@depth] and
 * fused[@depth], into @s, in search order (the largest spatial products
 * first while probing). */
static void
passing_buckets (Enum *en, guint depth, struct Survivors *s)
{
  guint v = en->order[depth], n = en->buckets[v]->len;

  s->n = 0;
  s->valid = TRUE;
  s->unreachable = 0;
  for (guint x = 0; x < n; x++)
    {
      /* buckets go by ascending spatial products: probing for the highest
       * usage takes the largest first */
      guint bi = en->probing ? n - 1 - x : x;
      const Bucket *bucket = &g_array_index (en->buckets[v], Bucket, bi);
      guint fused = en->fused[depth] + bucket->fused;
      gboolean ok = TRUE;

      if (en->opt->max_fused_loops >= 0 && fused > (guint) en->opt->max_fused_loops)
        continue;
      for (guint d = 0; d < en->n_dims && ok; d++)
        {
          en->used[depth + 1][d] = en->used[depth][d] * bucket->prod[d];
          ok = en->used[depth + 1][d] <= en->dim_count[d];
        }
      if (!ok)
        continue;
      en->fused[depth + 1] = fused;
      if (!usage_reachable (en, depth + 1))
        {
          s->unreachable++;
          continue;
        }
      s->bucket[s->n++] = bi;
    }
}

/* The buckets of order[@depth] that pass the fused-loop budget, the
 * fanout dimensions' counts and usage_reachable() at the node's state
 * (used[@depth], fused[@depth]), into en->survivors[@depth], in search()'s
 * order. On a node of the same state (the next chain of the parent's
 * bucket) the list is reused: the tests give the same answers (the probe's
 * best score only grows, so a bucket it cut stays cut; search() asks
 * usage_reachable() again while probing), and the cuts are counted again
 * as if asked. Probing visited 7.2 M nodes of MobileNet-V3's T7 on TPUv4i
 * and tested 35 buckets at each: 249 M tests, 90,000 passed. */
static void
search_survivors (Enum *en, guint depth)
{
  struct Survivors *s = &en->survivors[depth];

  if (depth > 0 && s->valid)
    {
      if (!en->relaxed)
        en->usage_rejected += s->unreachable;
      return;
    }
  survivor_lists (en);
  passing_buckets (en, depth, s);
}

static void
search (Enum *en, guint depth)
{
  guint v;
  double bound;
  CapacityBase *cb;

  en->out->n_partial++;
  if (depth == en->n_vars)
    {
      leaf (en);
      return;
    }
  if (en->min_reached
      || en->stopped
      || ((en->out->n_partial % DEADLINE_CHECK_NODES) == 0 && past_deadline (en)))
    return;
  v = en->order[depth];
  search_survivors (en, depth);
  for (guint x = 0; x < en->survivors[depth].n; x++)
    {
      const Bucket *bucket = &g_array_index (en->buckets[v], Bucket,
                                             en->survivors[depth].bucket[x]);

      /* the children overwrote these */
      for (guint d = 0; d < en->n_dims; d++)
        en->used[depth + 1][d] = en->used[depth][d] * bucket->prod[d];
      en->fused[depth + 1] = en->fused[depth] + bucket->fused;
      /* the best score may have grown since the list was made */
      if (en->probing && !usage_reachable (en, depth + 1))
        continue;
      if (depth + 1 < en->n_vars)
        en->survivors[depth + 1].valid = FALSE;
      /* The bucket's chains share its spatial products, hence this bound;
       * computed once, not after each of them. */
      bound = en->probing ? usage_score_bound (en, depth + 1) : 0;
      if (en->capacity_base == NULL)
        {
          gsize per_depth = (gsize) (en->n_vars + 1) * en->n_affine * (RANKS + 1);
          en->capacity_base = g_new (CapacityBase, en->n_vars + 1);
          en->capacity_affine = g_new (guint64, MAX (per_depth * (en->n_vars + 1), 1));
          for (guint k = 0; k <= en->n_vars; k++)
            en->capacity_base[k].affine = en->capacity_affine + k * per_depth;
        }
      cb = &en->capacity_base[depth + 1];
      capacity_base (en, depth + 1, v, cb);
      for (guint c = bucket->first; c < bucket->first + bucket->n; c++)
        {
          const guint64 *chain = en->var_n_loops[v] > 0
            ? &g_array_index (en->chains[v], guint64, (gsize) c * en->var_n_loops[v])
            : NULL;
          gboolean fits;
          for (guint i = 0; i < en->var_n_loops[v]; i++)
            en->tiles[en->var_loops[v][i]] = chain[i];
          fits = en->check_terms ? capacity_chain_checked (en, cb, depth + 1, v, c)
            : capacity_chain_ok (en, cb, depth + 1, v, c);
          if (!fits)
            continue;
          search (en, depth + 1);
          if (en->min_reached)
            return;
          /* Probing: the chains of one bucket have the same usage; once
           * one of them reached the bucket's bound, no other can beat it. */
          if (en->probing && bound <= en->best_score)
            break;
        }
    }
}

/* Try best's first pass: the highest usage score of a valid vector into
 * en->best_score (-1: none), by a depth-first branch and bound; with
 * en->probe_until_min it stops at the first valid vector that reaches the
 * minimum usage (en->min_reached). Leaves en->relaxed set. */
static void
probe_best_usage (Enum *en)
{
  guint order[MAX_VARS];

  en->relaxed = TRUE;
  en->probing = TRUE;
  en->best_score = -1;
  en->min_reached = FALSE;
  /* TUNING: partial pruning's order (fewest units) made the probe visit
   * 10x the nodes on convolutions: fewest chains first finds a high usage
   * early and bounds the rest. */
  memcpy (order, en->order, sizeof order);
  set_order (en, en->dfs_order);
  search (en, 0);
  set_order (en, order);
  en->probing = FALSE;
  en->relaxed = FALSE;
}

/* ---- Partial dominance ----
 *
 * Every quantity the objectives and reservations are made of is a signed
 * sum of monomials, each a product of one factor per rank variable
 * (ffm-pmapping-terms.c). After the chains of the first k variables of the
 * search order are chosen, group the monomials of each quantity ("class")
 * by their factors for the remaining variables: a *unit*. A partial tile
 * vector's value for a unit is the sum over its monomials of coefficient x
 * the chosen variables' factors; any completion multiplies the unit by the
 * same non-negative product of the remaining factors, whichever partial
 * vector it completes. So if partial vectors A and B agree on everything
 * that is not monotone (the "diff": fused loops' tiles, which fix the
 * compatibility and every reservation's lifetime depth; spatial products
 * per fanout dimension, which fix fanout validity and minimum usage) and
 * A <= B in every unit, then for every completion c, A+c <= B+c in dynamic
 * energy, in every port's latency (hence in latency and in leak energy),
 * in every occupancy (hence in capacity and in every reservation column),
 * with the same compatibility: B+c is never needed, and B is dropped
 * [the reference implementation, accelforge; the FFM paper §6.4 for why dominated pmappings of one
 * group can go]. The comparison is made safe against rounding: A <= B must
 * hold by a margin of 1e-12 of the units' magnitudes (sums of absolute
 * monomial values), unless the two values are identical; identical
 * partial vectors keep the first. The search goes breadth first, one
 * variable at a time, pruning the table after each. */

/* TUNING: tables smaller than this are not pruned (pruning costs more than
 * it saves; tried 16-1024). */
#define PRUNE_MIN_ROWS 64
/* TUNING: a row is compared with at most this many survivors, the
 * nearest before it in sort order (the likeliest to dominate it). Leaving
 * a dominated row in is safe (the final Pareto pruning drops its leaves);
 * the bound keeps pruning linear in the table. Tried 64-4096 on GPT-3 V. */
#define PRUNE_WINDOW 32
/* TUNING: rows ahead that the gather in sort order prefetches (tried
 * 4-16 on MobileNet-V3's depthwise convolution). */
#define PRUNE_PREFETCH 8
/* TUNING: tables of this many rows or more sort their keys by radix
 * (ffm-row-key-sort-private.h), in the values' scratch, which is not yet
 * in use then and holds enough at 4 units or more (when it is smaller,
 * and below this many rows, the quicksort runs). */
#define RADIX_MIN_ROWS 16384
/* Relative margin that covers the rounding of the unit sums. */
#define DOMINANCE_MARGIN 1e-12

/* What a unit is made of, for energy-first dominance (unit_dominates()). */
enum {
  LEX_OTHER = 0,            /* occupancy: never worse */
  LEX_ENERGY,               /* never worse; below breaks the tie */
  LEX_LATENCY,              /* never worse unless energy is below */
};

typedef struct {
  int cls;
  guint desc[MAX_VARS];     /* descriptor per depth's variable */
} UnitKey;

/* Descriptor of term @t for variable @v: its mask restricted to v's
 * loops and its tile position. */
static guint
intern_desc (GArray *descs, guint64 mask, int pos)
{
  for (guint i = 0; i < descs->len; i += 2)
    if (g_array_index (descs, guint64, i) == mask
        && (int) (gint64) g_array_index (descs, guint64, i + 1) == pos)
      return i / 2;
  g_array_append_val (descs, mask);
  {
    guint64 p = (guint64) (gint64) pos;
    g_array_append_val (descs, p);
  }
  return descs->len / 2 - 1;
}

static guint
hash_unit_key (const UnitKey *key)
{
  const guint8 *p = (const guint8 *) key;
  guint32 h = 2166136261u;    /* FNV-1a */

  for (gsize i = 0; i < sizeof *key; i++)
    h = (h ^ p[i]) * 16777619u;
  return h;
}

/* Numbers the distinct keys among @keys in order of first appearance
 * (@ids[i]: key i's number); returns how many there are. An open
 * addressing table of positions: setup_units() runs for every template
 * and order, and GBytes keys in a GHashTable took 8 % of a matmul
 * chain's instructions. */
static guint
number_keys (const UnitKey *keys, guint n, guint *ids)
{
  gsize size = 16;
  guint count = 0;
  g_autofree guint *slot = NULL;    /* key index + 1; 0: empty */

  while (size < 2 * (gsize) n)
    size *= 2;
  slot = g_new0 (guint, size);
  for (guint i = 0; i < n; i++)
    for (gsize h = hash_unit_key (&keys[i]) & (size - 1); ; h = (h + 1) & (size - 1))
      {
        if (slot[h] == 0)
          {
            slot[h] = i + 1;
            ids[i] = count++;
            break;
          }
        if (memcmp (&keys[slot[h] - 1], &keys[i], sizeof (UnitKey)) == 0)
          {
            ids[i] = ids[slot[h] - 1];
            break;
          }
      }
  return count;
}

/* Number of units when the variables in @assigned are chosen: terms
 * grouped by class and by their descriptors of the other variables. */
static guint
count_units (const Enum *en, const guint *desc, guint n_terms,
             guint64 assigned)
{
  g_autofree UnitKey *keys = g_new0 (UnitKey, MAX (n_terms, 1));
  g_autofree guint *ids = g_new (guint, MAX (n_terms, 1));

  for (guint i = 0; i < n_terms; i++)
    {
      const FfmTerm *term = &g_array_index (en->terms->terms, FfmTerm, i);
      keys[i].cls = term->cls;
      for (guint v = 0; v < en->n_vars; v++)
        if (!(assigned & (G_GUINT64_CONSTANT (1) << v)))
          keys[i].desc[v] = desc[(gsize) i * en->n_vars + v];
    }
  return number_keys (keys, n_terms, ids);
}

/* The first position in @order of a variable of the most chains. */
static guint
most_chains_position (const Enum *en, const guint *order)
{
  guint m = 0;

  for (guint q = 1; q < en->n_vars; q++)
    if (en->n_live_chains[order[q]] > en->n_live_chains[order[m]])
      m = q;
  return m;
}

/* TUNING: the search order is greedy: next comes the variable whose
 * choice leaves the fewest units (the more terms merge, the more partial
 * vectors compare), ties to fewer chains. Tried on GPT-3 V / TPUv4i:
 * fewest chains first and most chains first both take over 120 s where
 * greedy takes 22 s. */
static void
choose_order (Enum *en, const guint *desc, guint n_terms, gboolean chains_last)
{
  guint64 assigned = 0;
  guint order[MAX_VARS] = { 0 };
  guint k = 0;

  /* Variables of one chain (bound 1, or tiles fixed by constraints) first:
   * each is a depth of one row, instead of a pass over a large table that
   * only copies it. */
  for (guint v = 0; v < en->n_vars; v++)
    if (en->n_chains[v] == 1)
      {
        order[k++] = v;
        assigned |= G_GUINT64_CONSTANT (1) << v;
      }
  for (; k < en->n_vars; k++)
    {
      int best = -1;
      guint best_units = 0;
      for (guint v = 0; v < en->n_vars; v++)
        {
          guint units;
          if (assigned & (G_GUINT64_CONSTANT (1) << v))
            continue;
          units = count_units (en, desc, n_terms, assigned | (G_GUINT64_CONSTANT (1) << v));
          if (best < 0 || units < best_units
              || (units == best_units && en->n_live_chains[v] < en->n_live_chains[best]))
            {
              best = v;
              best_units = units;
            }
        }
      order[k] = (guint) best;
      assigned |= G_GUINT64_CONSTANT (1) << best;
    }
  if (chains_last && en->n_vars > 1)
    {
      /* The alternative (choose_search_order()): the variable of most
       * chains moves last, where its rows are only sorted and compared by
       * the few quantities the groups keep (search_leaves()). */
      guint m = most_chains_position (en, order), v;
      v = order[m];
      memmove (order + m, order + m + 1, sizeof (guint) * (en->n_vars - 1 - m));
      order[en->n_vars - 1] = v;
    }
  set_order (en, order);
}

/* What the groups compare of a complete row, from its units (one per
 * class at the last depth): the energy units' sum (dynamic energy; leak
 * only adds a non-negative multiple of the latency), the latency units'
 * largest (the latency, but for the compute unit's, equal for rows of one
 * diff, or counted among the units with remainders), and each occupancy
 * unit of a memory whose reservations the groups carry (a reservation
 * column is a sum of them over lifetime classes). The occupancy units of
 * the other memories only decide whether a row fits. */
static void
setup_leaf_slots (Enum *en)
{
  guint nu = en->n_units[en->n_vars], n = 0;
  guint energy = G_MAXUINT, latency = G_MAXUINT;

  en->leaf_slot = g_new (guint, MAX (nu, 1));
  en->leaf_slot_max = g_new0 (guint8, MAX (nu, 1));
  for (guint u = 0; u < nu; u++)
    {
      const FfmTermClass *c = &g_array_index (en->terms->classes, FfmTermClass,
                                              en->leaf_unit_class[u]);
      en->leaf_slot[u] = G_MAXUINT;
      if (c->kind == FFM_TERM_ENERGY)
        {
          if (energy == G_MAXUINT)
            energy = n++;
          en->leaf_slot[u] = energy;
        }
      else if (c->kind == FFM_TERM_LATENCY)
        {
          if (latency == G_MAXUINT)
            {
              latency = n++;
              en->leaf_slot_max[latency] = TRUE;
            }
          en->leaf_slot[u] = latency;
        }
      else
        for (guint k = 0; k < en->info.n_memories; k++)
          if (en->info.memories[k] == c->level)
            en->leaf_slot[u] = n++;
    }
  en->n_leaf_slots = n;
}

/* gather_unit, gather_desc and gather_start of depth @k (their comment
 * in Enum): a counting sort of depth k's units by their next unit. */
static void
setup_gather (Enum *en, guint k)
{
  guint nu = en->n_units[k], nu2 = en->n_units[k + 1];
  guint *start = g_new0 (guint, (gsize) nu2 + 1);
  guint *at = g_new (guint, MAX (nu2, 1));

  en->gather_unit[k] = g_new (guint, MAX (nu, 1));
  en->gather_desc[k] = g_new (guint, MAX (nu, 1));
  for (guint u = 0; u < nu; u++)
    start[en->unit_next[k][u] + 1]++;
  for (guint to = 0; to < nu2; to++)
    {
      start[to + 1] += start[to];
      at[to] = start[to];
    }
  for (guint u = 0; u < nu; u++)
    {
      guint i = at[en->unit_next[k][u]]++;
      en->gather_unit[k][i] = u;
      en->gather_desc[k][i] = en->unit_desc[k][u];
    }
  en->gather_start[k] = start;
  g_free (at);
}

/* Frees what setup_units() made for one search order. */
static void
free_units (Enum *en)
{
  for (guint k = 0; k < MAX_VARS; k++)
    {
      g_clear_pointer (&en->unit_next[k], g_free);
      g_clear_pointer (&en->unit_desc[k], g_free);
      g_clear_pointer (&en->gather_unit[k], g_free);
      g_clear_pointer (&en->gather_desc[k], g_free);
      g_clear_pointer (&en->gather_start[k], g_free);
      en->phi[k] = NULL;    /* borrowed */
    }
  for (guint k = 0; k <= MAX_VARS; k++)
    g_clear_pointer (&en->unit_lex[k], g_free);
  g_clear_pointer (&en->unit_init, g_free);
  g_clear_pointer (&en->leaf_unit_class, g_free);
  g_clear_pointer (&en->leaf_slot, g_free);
  g_clear_pointer (&en->leaf_slot_max, g_free);
  g_clear_pointer (&en->bucket_group_first, g_free);
  g_clear_pointer (&en->chain_group, g_free);
  g_clear_pointer (&en->group_chain, g_free);
  g_clear_pointer (&en->group_phi, g_free);
  g_clear_pointer (&en->group_slot_exact, g_free);
  g_clear_pointer (&en->group_cut, g_free);
}

/* The search order (choose_order(): greedy, or with @chains_last its
 * alternative) and the comparison units of each depth in that order. */
static gboolean
setup_units (Enum *en, gboolean chains_last)
{
  const FfmTerms *t = en->terms;
  guint n_terms = t->terms->len, n = en->n_vars;
  g_autofree guint *vdesc = g_new0 (guint, (gsize) MAX (n_terms, 1) * MAX (n, 1));
  g_autofree guint *desc = g_new0 (guint, (gsize) MAX (n_terms, 1) * MAX (n, 1));
  g_autofree guint *unit = g_new0 (guint, MAX (n_terms, 1));
  g_autofree guint *next_unit = g_new0 (guint, MAX (n_terms, 1));
  g_autofree UnitKey *keys = g_new (UnitKey, MAX (n_terms, 1));
  GArray *descs[MAX_VARS];
  /* Energy first, without leak (which makes energy depend on latency):
   * lexicographic dominance (unit_dominates()); otherwise plain dominance,
   * which keeps any tie-break too. */
  gboolean lex_energy = (en->opt->objectives & FFM_PMAPPING_ENERGY_FIRST)
    && !t->leak;

  /* Descriptors per variable, then the order, then factors per depth. */
  for (guint v = 0; v < n; v++)
    {
      guint64 vmask = 0;
      descs[v] = g_array_new (FALSE, FALSE, sizeof (guint64));
      for (guint i = 0; i < en->var_n_loops[v]; i++)
        vmask |= G_GUINT64_CONSTANT (1) << en->var_loops[v][i];
      for (guint i = 0; i < n_terms; i++)
        {
          const FfmTerm *term = &g_array_index (t->terms, FfmTerm, i);
          vdesc[(gsize) i * n + v] = intern_desc (descs[v], term->mask & vmask,
                                                  term->pos[v] >= 0 ? term->pos[v] : -1);
        }
    }
  choose_order (en, vdesc, n_terms, chains_last);
  for (guint k = 0; k < n; k++)
    {
      guint v = en->order[k];
      guint k_chains = en->n_chains[v], nl = en->var_n_loops[v];

      for (guint i = 0; i < n_terms; i++)
        desc[(gsize) i * n + k] = vdesc[(gsize) i * n + v];
      en->n_desc[k] = descs[v]->len / 2;
      if (en->var_phi[v] == NULL)
        {
          en->var_phi[v] = g_new (double, (gsize) MAX (k_chains, 1) * MAX (en->n_desc[k], 1));
          for (guint c = 0; c < k_chains; c++)
            {
              const guint64 *chain = nl > 0
                ? &g_array_index (en->chains[v], guint64, (gsize) c * nl) : NULL;
              for (guint d = 0; d < en->n_desc[k]; d++)
                {
                  guint64 mask = g_array_index (descs[v], guint64, 2 * d);
                  int pos = (int) (gint64) g_array_index (descs[v], guint64, 2 * d + 1);
                  /* exact with remainder tiles too */
                  en->var_phi[v][(gsize) c * en->n_desc[k] + d] =
                    nl > 0 ? ffm_terms_var_factor (en->bounds[v], chain, en->var_loops[v],
                                                   nl, mask, pos) : 1;
                }
            }
        }
      en->phi[k] = en->var_phi[v];
    }
  for (guint v = 0; v < n; v++)
    g_array_free (descs[v], TRUE);

  /* Units per depth: terms with the same class and the same descriptors
   * for the variables not chosen yet. */
  for (guint k = 0; k <= n; k++)
    {
      memset (keys, 0, sizeof (UnitKey) * MAX (n_terms, 1));
      for (guint i = 0; i < n_terms; i++)
        {
          const FfmTerm *term = &g_array_index (t->terms, FfmTerm, i);
          keys[i].cls = term->cls;
          for (guint q = k; q < n; q++)
            keys[i].desc[q] = desc[(gsize) i * n + q];
        }
      en->n_units[k] = number_keys (keys, n_terms, next_unit);
      if (lex_energy)
        {
          en->unit_lex[k] = g_new0 (guint8, MAX (en->n_units[k], 1));
          for (guint i = 0; i < n_terms; i++)
            {
              const FfmTerm *term = &g_array_index (t->terms, FfmTerm, i);
              FfmTermClassKind kind = g_array_index (t->classes, FfmTermClass,
                                                     term->cls).kind;
              en->unit_lex[k][next_unit[i]] = kind == FFM_TERM_ENERGY ? LEX_ENERGY
                : kind == FFM_TERM_LATENCY ? LEX_LATENCY : LEX_OTHER;
            }
        }
      if (k == 0)
        {
          en->unit_init = g_new0 (double, 2 * (gsize) MAX (en->n_units[0], 1));
          for (guint i = 0; i < n_terms; i++)
            {
              const FfmTerm *term = &g_array_index (t->terms, FfmTerm, i);
              en->unit_init[2 * next_unit[i]] += term->coef;
              en->unit_init[2 * next_unit[i] + 1] += fabs (term->coef);
            }
        }
      else
        {
          en->unit_next[k - 1] = g_new (guint, MAX (en->n_units[k - 1], 1));
          en->unit_desc[k - 1] = g_new (guint, MAX (en->n_units[k - 1], 1));
          for (guint i = 0; i < n_terms; i++)
            {
              en->unit_next[k - 1][unit[i]] = next_unit[i];
              en->unit_desc[k - 1][unit[i]] = desc[(gsize) i * n + (k - 1)];
            }
          setup_gather (en, k - 1);
        }
      if (k == n)
        {
          en->leaf_unit_class = g_new0 (guint, MAX (en->n_units[n], 1));
          for (guint i = 0; i < n_terms; i++)
            en->leaf_unit_class[next_unit[i]] =
              (guint) g_array_index (t->terms, FfmTerm, i).cls;
          setup_leaf_slots (en);
        }
      memcpy (unit, next_unit, sizeof (guint) * n_terms);
    }
  en->n_diff = en->n_fused + en->n_dims;
  if (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    {
      GString *text = g_string_new (NULL);
      for (guint c = 0; c < t->classes->len; c++)
        {
          const FfmTermClass *k = &g_array_index (t->classes, FfmTermClass, c);
          g_string_append_printf (text, " %c%u.%d", "?ELO"[k->kind], k->level, k->nla);
        }
      g_debug ("template %u: %u terms, classes%s; units per depth:", en->t->id,
               n_terms, text->str);
      g_string_free (text, TRUE);
    }
  return TRUE;
}

/* A table of partial tile vectors at one depth. Values and magnitudes sit
 * in separate arrays, as the children's unit sums make them; pruning
 * gathers them, interleaved, in sort order (PruneScratch). Its buffers are
 * reserved from the generation's memory budget (ffm-memory-budget.h) and
 * keep their capacity from depth to depth and template to template. */
typedef struct {
  guint n_rows;
  FfmBudgetBuffer chains;   /* of guint32, n_vars per row */
  FfmBudgetBuffer vals;     /* of double, n_units per row: unit values */
  FfmBudgetBuffer mags;     /* of double, n_units per row: their magnitudes */
  FfmBudgetBuffer diff;     /* of guint64, n_diff per row */
} Table;

#define TABLE_CHAINS(t) ((guint32 *) (t)->chains.data)
#define TABLE_VALS(t) ((double *) (t)->vals.data)
#define TABLE_MAGS(t) ((double *) (t)->mags.data)
#define TABLE_DIFF(t) ((guint64 *) (t)->diff.data)

static void
table_clear (Table *t, FfmMemoryBudget *budget)
{
  ffm_budget_buffer_clear (&t->chains, budget);
  ffm_budget_buffer_clear (&t->vals, budget);
  ffm_budget_buffer_clear (&t->mags, budget);
  ffm_budget_buffer_clear (&t->diff, budget);
  t->n_rows = 0;
}

/* Grows each of the four @buffers to @need bytes from the search's
 * budget; FALSE when one cannot grow: then, if @fatal, the search is out
 * of memory. */
static gboolean
reserve_buffers (Enum *en, FfmBudgetBuffer *buffers[4], const gsize need[4],
                 gboolean fatal)
{
  for (guint i = 0; i < 4; i++)
    if (!ffm_budget_buffer_reserve (buffers[i], en->budget, need[i]))
      {
        if (fatal)
          out_of_memory (en, need[i] - MIN (need[i], buffers[i]->capacity));
        return FALSE;
      }
  return TRUE;
}

/* The bytes per row of a table's buffers at @n_units units, in the order
 * chains, values, magnitudes, diffs (table_try_reserve() and
 * rows_reserved() must agree on them). */
static void
table_buffer_row_bytes (const Enum *en, guint n_units, gsize bytes[4])
{
  bytes[0] = sizeof (guint32) * MAX (en->n_vars, 1);
  bytes[1] = sizeof (double) * MAX (n_units, 1);
  bytes[2] = sizeof (double) * MAX (n_units, 1);
  bytes[3] = sizeof (guint64) * MAX (en->n_diff, 1);
}

/* Bytes of one row of @n_units units. */
static gsize
table_row_bytes (const Enum *en, guint n_units)
{
  gsize bytes[4];

  table_buffer_row_bytes (en, n_units, bytes);
  return bytes[0] + bytes[1] + bytes[2] + bytes[3];
}

/* Makes @t hold @n_rows rows of @n_units units; FALSE when the budget
 * cannot give it: then, if @fatal, the search is out of memory (en->out
 * says how much it asked for). */
static gboolean
table_try_reserve (Enum *en, Table *t, gsize n_rows, guint n_units, gboolean fatal)
{
  gsize row[4], need[4];
  FfmBudgetBuffer *buffers[4] = { &t->chains, &t->vals, &t->mags, &t->diff };

  table_buffer_row_bytes (en, n_units, row);
  for (guint i = 0; i < 4; i++)
    need[i] = ffm_budget_bytes (n_rows, row[i]);
  return reserve_buffers (en, buffers, need, fatal);
}

static gboolean
table_reserve (Enum *en, Table *t, gsize n_rows, guint n_units)
{
  return table_try_reserve (en, t, n_rows, n_units, TRUE);
}

/* Sets en->tiles for the variables chosen in row @r of @t (depth @k). */
static void
restore_row (Enum *en, const Table *t, guint r, guint k)
{
  const guint32 *chains = TABLE_CHAINS (t) + (gsize) r * en->n_vars;

  for (guint q = 0; q < k; q++)
    {
      guint v = en->order[q];
      guint nl = en->var_n_loops[v];
      const guint64 *chain = nl > 0
        ? &g_array_index (en->chains[v], guint64, (gsize) chains[v] * nl) : NULL;
      for (guint i = 0; i < nl; i++)
        en->tiles[en->var_loops[v][i]] = chain[i];
    }
}

/* Whether A is worse than B in unit @u, by the rounding margin where the
 * two differ. */
static inline gboolean
unit_worse (const double *a, const double *b, guint u)
{
  double av = a[2 * u], bv = b[2 * u];
  return av > bv
    || (av < bv && av > bv - DOMINANCE_MARGIN * (a[2 * u + 1] + b[2 * u + 1]));
}

/* A <= B in every unit, by the rounding margin where the two differ; @a
 * and @b interleave each unit's value and magnitude. Equal values pass; a
 * larger one fails at once (the margin only ever asks more of A).
 *
 * With @lex (energy first, ties broken by latency): A <= B in every energy
 * and occupancy unit, and A below B (by the margin) in some energy unit
 * or A <= B in every latency unit. Below in an energy unit, every
 * completion of A has less energy than the same completion of B (each
 * unit's completion factor is positive; without leak energy is a sum of
 * units), so B is never the cheapest and its latency never matters;
 * otherwise A's energy is never above B's and its latency, every port's,
 * never either.
 *
 * @fail (< @n_units): the unit where A was worse last time, checked first
 * and updated (a row survives the window only after failing every
 * candidate; its neighbours in sort order mostly agree with it on the
 * units the last variables left alone and differ in the same few). */
static inline gboolean
unit_dominates (const double *a, const double *b, guint n_units,
                const guint8 *lex, guint *fail)
{
  gboolean below = FALSE, latency_ok = TRUE;

  if (n_units > 0 && (lex == NULL || lex[*fail] != LEX_LATENCY)
      && unit_worse (a, b, *fail))
    return FALSE;
  for (guint u = 0; u < n_units; u++)
    {
      gboolean worse = unit_worse (a, b, u);
      if (lex != NULL && lex[u] == LEX_LATENCY)
        latency_ok &= !worse;
      else if (worse)
        {
          *fail = u;
          return FALSE;
        }
      else if (lex != NULL && lex[u] == LEX_ENERGY && a[2 * u] < b[2 * u])
        below = TRUE;
    }
  return below || latency_ok;
}

static guint64
hash_diff (const guint64 *diff, guint n)
{
  guint64 h = G_GUINT64_CONSTANT (1469598103934665603);
  for (guint i = 0; i < n; i++)
    {
      h ^= diff[i];
      h *= G_GUINT64_CONSTANT (1099511628211);
      h ^= h >> 29;
    }
  return h;
}

static inline gboolean
diff_equal (const guint64 *a, const guint64 *b, guint n)
{
  for (guint i = 0; i < n; i++)
    if (a[i] != b[i])
      return FALSE;
  return TRUE;
}

/* Scratch space of table_prune, kept in the thread's workspace so that
 * pruning every row's children, at every depth of every template,
 * allocates nothing once it has grown; sized from the rows and units of
 * the table being pruned, within the memory budget. */
typedef struct {
  FfmBudgetBuffer keys;     /* of FfmRowKey */
  FfmBudgetBuffer kept;     /* of guint */
  FfmBudgetBuffer alive;    /* of gboolean */
  FfmBudgetBuffer vals;     /* of double: the rows' values and magnitudes,
                               interleaved, in sort order */
} PruneScratch;

/* The bytes per row of the pruning scratch at @n_units units, in the
 * order keys, kept, alive, values (prune_scratch_try_reserve() and
 * rows_reserved() must agree on them). */
static void
prune_scratch_buffer_row_bytes (guint n_units, gsize bytes[4])
{
  bytes[0] = sizeof (FfmRowKey);
  bytes[1] = sizeof (guint);
  bytes[2] = sizeof (gboolean);
  bytes[3] = 2 * sizeof (double) * MAX (n_units, 1);
}

static gboolean
prune_scratch_try_reserve (Enum *en, PruneScratch *s, guint n_rows, guint n_units,
                           gboolean fatal)
{
  gsize row[4], need[4];
  FfmBudgetBuffer *buffers[4] = { &s->keys, &s->kept, &s->alive, &s->vals };

  prune_scratch_buffer_row_bytes (n_units, row);
  for (guint i = 0; i < 4; i++)
    need[i] = ffm_budget_bytes (n_rows, row[i]);
  return reserve_buffers (en, buffers, need, fatal);
}

static gboolean
prune_scratch_reserve (Enum *en, PruneScratch *s, guint n_rows, guint n_units)
{
  return prune_scratch_try_reserve (en, s, n_rows, n_units, TRUE);
}

static void
prune_scratch_clear (PruneScratch *s, FfmMemoryBudget *budget)
{
  ffm_budget_buffer_clear (&s->keys, budget);
  ffm_budget_buffer_clear (&s->kept, budget);
  ffm_budget_buffer_clear (&s->alive, budget);
  ffm_budget_buffer_clear (&s->vals, budget);
}

/* What one thread's searches reuse from template to template: the tables
 * of two depths and the pruning scratch. Their buffers keep their
 * capacity, so that the search neither reallocates nor faults fresh pages
 * in for every depth of every template; that capacity is reserved from
 * @budget, the generation's, until the workspace is freed. */
struct _FfmTileWorkspace {
  Table tables[MAX_VARS + 1];   /* per depth: the chunk being extended */
  PruneScratch scratch;
  FfmMemoryBudget *budget;  /* borrowed; NULL: unlimited */
};

FfmTileWorkspace *
ffm_tile_workspace_new (FfmMemoryBudget *budget)
{
  FfmTileWorkspace *ws = g_new0 (FfmTileWorkspace, 1);

  ws->budget = budget;
  return ws;
}

void
ffm_tile_workspace_free (FfmTileWorkspace *ws)
{
  if (ws == NULL)
    return;
  for (guint k = 0; k < G_N_ELEMENTS (ws->tables); k++)
    table_clear (&ws->tables[k], ws->budget);
  prune_scratch_clear (&ws->scratch, ws->budget);
  g_free (ws);
}

/* Moves row @from of @t to row @to (@to <= @from). */
static void
table_move_row (const Enum *en, Table *t, guint from, guint to, guint n_units)
{
  if (from == to)
    return;
  memcpy (TABLE_CHAINS (t) + (gsize) to * en->n_vars,
          TABLE_CHAINS (t) + (gsize) from * en->n_vars, sizeof (guint32) * en->n_vars);
  memcpy (TABLE_VALS (t) + (gsize) to * n_units,
          TABLE_VALS (t) + (gsize) from * n_units, sizeof (double) * n_units);
  memcpy (TABLE_MAGS (t) + (gsize) to * n_units,
          TABLE_MAGS (t) + (gsize) from * n_units, sizeof (double) * n_units);
  if (en->n_diff > 0)
    memcpy (TABLE_DIFF (t) + (gsize) to * en->n_diff,
            TABLE_DIFF (t) + (gsize) from * en->n_diff, sizeof (guint64) * en->n_diff);
}

/* Drops the rows from @first on of @t that another row from @first on with
 * the same diff dominates; survivors keep their order. */
static gboolean
table_prune (Enum *en, Table *t, guint first, guint n_units,
             const guint8 *lex, PruneScratch *ps)
{
  guint n_rows = t->n_rows - first, n = 0, n_kept = 0, start = 0, nd = en->n_diff;
  guint fail = 0;           /* unit_dominates()' first unit to check */
  guint64 *diffs = TABLE_DIFF (t) + (gsize) first * nd;
  double *vals = TABLE_VALS (t) + (gsize) first * n_units;
  double *mags = TABLE_MAGS (t) + (gsize) first * n_units;
  struct {
    FfmRowKey *keys;
    guint *kept;
    gboolean *alive;
    double *vals;
  } sv, *s = &sv;

  if (n_rows < PRUNE_MIN_ROWS)
    return TRUE;
  if (!prune_scratch_reserve (en, ps, n_rows, n_units))
    return FALSE;
  sv.keys = ps->keys.data;
  sv.kept = ps->kept.data;
  sv.alive = ps->alive.data;
  sv.vals = ps->vals.data;
  /* Within a diff, rows sort by their first unit, then by a positive
   * weighting of the others: if A <= B in every unit then A's key <= B's
   * (rounding is monotone), so a row's dominators come before it; weights
   * scale every unit to at most 1, so that no magnitude decides alone. The
   * key needs no look-up of the rows while sorting, and a row whose key is
   * larger is no candidate dominator. With @lex, a dominator may have the
   * larger latency units: the key leaves them out. */
  {
    double weight[MAX_VARS * 64];
    guint nw = MIN (n_units, G_N_ELEMENTS (weight)), k0 = 0;
    while (lex != NULL && k0 + 1 < n_units && lex[k0] == LEX_LATENCY)
      k0++;
    for (guint u = 0; u < nw; u++)
      weight[u] = 0;
    for (guint i = 0; i < n_rows; i++)
      for (guint u = 0; u < nw; u++)
        weight[u] = MAX (weight[u], fabs (vals[(gsize) i * n_units + u]));
    for (guint u = 0; u < nw; u++)
      weight[u] = weight[u] > 0 && (lex == NULL || lex[u] != LEX_LATENCY)
        ? 1 / weight[u] : 0;
    for (guint i = 0; i < n_rows; i++)
      {
        const double *v = vals + (gsize) i * n_units;
        double rest = 0;
        for (guint u = 0; u < nw; u++)
          if (u != k0)
            rest += v[u] * weight[u];
        s->keys[i].hash = hash_diff (diffs + (gsize) i * nd, nd);
        s->keys[i].first = n_units > 0 ? v[k0] : 0;
        s->keys[i].rest = rest;
        s->keys[i].index = i;
        s->alive[i] = FALSE;
      }
  }
  if (n_rows >= en->radix_min_rows
      && ps->vals.capacity / FFM_ROW_KEY_RADIX_SCRATCH >= n_rows)
    {
      ffm_row_keys_sort_radix (s->keys, n_rows, s->vals);   /* not yet in use */
      if (en->check_terms)
        for (guint i = 1; i < n_rows; i++)
          if (!ffm_row_key_less (&s->keys[i - 1], &s->keys[i]))
            g_warning ("radix sort: key %u of %u is out of order", i, n_rows);
    }
  else
    ffm_row_keys_sort (s->keys, n_rows);
  /* Values and magnitudes in sort order, so that the window reads
   * contiguous memory; diffs are read in place, only to confirm. */
  for (guint i = 0; i < n_rows; i++)
    {
      const double *v = vals + (gsize) s->keys[i].index * n_units;
      const double *m = mags + (gsize) s->keys[i].index * n_units;
      double *to = s->vals + (gsize) i * 2 * n_units;
      /* The rows are read in a random order: fetch a few ahead (TUNING:
       * the gather was a fifth of the pruning, waiting on memory). */
      if (i + PRUNE_PREFETCH < n_rows)
        {
          gsize ahead = (gsize) s->keys[i + PRUNE_PREFETCH].index * n_units;
          for (guint u = 0; u < n_units; u += 8)
            {
              __builtin_prefetch (vals + ahead + u);
              __builtin_prefetch (mags + ahead + u);
            }
        }
      for (guint u = 0; u < n_units; u++)
        {
          to[2 * u] = v[u];
          to[2 * u + 1] = m[u];
        }
    }
  for (guint i = 0; i < n_rows; i++)
    {
      guint r = s->keys[i].index;
      const double *ub = s->vals + (gsize) i * 2 * n_units;
      gboolean dominated = FALSE;
      if (i > 0 && s->keys[i].hash != s->keys[i - 1].hash)
        start = n_kept;     /* a new diff group */
      for (guint k = n_kept; k-- > start && !dominated && n_kept - k <= PRUNE_WINDOW; )
        {
          guint q = s->kept[k];     /* a sorted position */
          guint qr = s->keys[q].index;
          if (s->keys[q].rest > s->keys[i].rest)
            continue;
          /* Equal hashes; the diffs are compared only when the units say
           * dominated (a collision merely interleaves two diffs). */
          dominated = unit_dominates (s->vals + (gsize) q * 2 * n_units, ub,
                                      n_units, lex, &fail)
            && diff_equal (diffs + (gsize) qr * nd, diffs + (gsize) r * nd, nd);
        }
      if (!dominated)
        {
          s->kept[n_kept++] = i;
          s->alive[r] = TRUE;
        }
    }
  for (guint r = 0; r < n_rows; r++)
    {
      if (!s->alive[r])
        continue;
      table_move_row (en, t, first + r, first + n, n_units);
      n++;
    }
  t->n_rows = first + n;
  return TRUE;
}

/* affine_values() from affine_occupancy_split() for @b, as capacity_ok()
 * computes it: every variable's tile and ffm_access_tile_values()
 * (FFM_PMAPPING_CHECK_TERMS compares the two). */
static guint64
affine_values_slowly (Enum *en, guint b, guint k, gboolean trivial_fused)
{
  for (guint q = 0; q < en->n_vars; q++)
    {
      guint u = en->order[q];
      int j = en->res_loop[b][u];
      if (q <= k || en->var_n_loops[u] == 0)
        en->var_tiles[u] = j >= 0 ? en->tiles[j] : en->bounds[u];
      else
        en->var_tiles[u] = smallest_tile (en, b, u, trivial_fused);
    }
  return ffm_access_tile_values (en->e, en->buffet_access[b], en->var_tiles);
}

/* table_extend()'s occupancy bound of (non-affine) buffet @b without
 * depth @k's variable v, computed as it was before it was split into a
 * part no row changes and the row's tiles: every variable's tile in turn
 * (FFM_PMAPPING_CHECK_TERMS compares the two; integer products as
 * doubles, exact below 2^53, so the order does not matter). */
static void
occupancy_base_checked (Enum *en, guint k, guint b, double fast, double fast_forced)
{
  guint v = en->order[k];
  double base = en->buffet_bits[b], forced = en->buffet_bits[b];

  for (guint q = 0; q < en->n_vars; q++)
    {
      guint u = en->order[q];
      int j = en->res_loop[b][u];
      double tile, tile_forced;
      if (u == v || en->var_exp[b][u] == 0)
        continue;
      if (q < k || en->var_n_loops[u] == 0)
        tile = tile_forced = (double) (j >= 0 ? en->tiles[j] : en->bounds[u]);
      else
        {
          tile = (double) smallest_tile (en, b, u, FALSE);
          tile_forced = (double) smallest_tile (en, b, u, TRUE);
        }
      for (guint x = 0; x < en->var_exp[b][u]; x++)
        {
          base *= tile;
          forced *= tile_forced;
        }
    }
  if (base != fast || forced != fast_forced)
    g_warning ("table_extend: template %u, depth %u, buffet %u: occupancy bound %g "
               "(%g forced), computed tile by tile %g (%g)", en->t->id, k, b,
               fast, fast_forced, base, forced);
}

/* The occupancy lower bound of buffet @b, whose tensor has an affine
 * index, while depth @k's variable v is being chosen: the split for v
 * (@split, affine_split()) of the variables chosen so far at their tiles
 * and the others at their smallest (@trivial_fused: with the fused-loop
 * budget spent), v's tile from en->tiles. Extents only grow with tiles, so
 * this bounds every completion. */
static void
affine_occupancy_split (const Enum *en, guint b, guint k, gboolean trivial_fused,
                        guint64 *split)
{
  guint64 tiles[MAX_VARS];

  for (guint q = 0; q < en->n_vars; q++)
    {
      guint u = en->order[q];
      int j = en->res_loop[b][u];
      if (q < k || en->var_n_loops[u] == 0)
        tiles[u] = j >= 0 ? en->tiles[j] : en->bounds[u];
      else
        tiles[u] = smallest_tile (en, b, u, trivial_fused);
    }
  affine_split (en, en->order[k], b, tiles, split);
}

/* The rows that table @t and scratch @s hold at @n_units units without
 * growing: what table_try_reserve() and prune_scratch_try_reserve() would
 * accept with no new memory (table_extend() calls them only past it;
 * called for every row, they were 5 % of GPT-3's V). */
static gsize
rows_reserved (const Enum *en, const Table *t, const PruneScratch *s, guint n_units)
{
  const FfmBudgetBuffer *buffers[8] = {
    &t->chains, &t->vals, &t->mags, &t->diff, &s->keys, &s->kept, &s->alive, &s->vals,
  };
  gsize row_bytes[8];
  gsize rows = G_MAXSIZE;

  table_buffer_row_bytes (en, n_units, row_bytes);
  prune_scratch_buffer_row_bytes (n_units, row_bytes + 4);
  for (guint i = 0; i < 8; i++)
    rows = MIN (rows, buffers[i]->capacity / row_bytes[i]);
  return rows;
}

/* Extends the rows of @in (depth @k) from *@next on by every feasible
 * chain of the depth's variable into @out, until @out holds @max_rows rows
 * or more, or the memory budget gives it no more (each row's children go
 * in whole: a row whose children do not fit is left for the next chunk);
 * *@next is then the first row not extended. Out of memory (FALSE) only
 * when one row's children alone do not fit. */
static gboolean leaves_pruned (const Enum *en);
static gboolean taken_store_on (const Enum *en);
static guint32 taken_store_record (const Enum *en, const guint64 *diff, guint64 h);
static gboolean taken_store_dominates (Enum *en, guint32 record, const double *slots);
static gboolean taken_store_dominates_slowly (Enum *en, const guint64 *diff,
                                              const double *slots);
static void leaf_slots (const Enum *en, const Table *t, guint r, double *to);

/* Writes a new row's units (dv, dm) at depth @k + 1: each sums its group
 * of the parent's units (src, src_mag) times the chain's factors @phi
 * (gather_unit). @with_slots (a constant where it is called, so each
 * copy's loop stays tight): also the row's leaf slots into @slots, as
 * leaf_slots() sums them, in the same order. */
static inline void
gather_row (const Enum *en, guint k, const double *src, const double *src_mag,
            const double *phi, double *dv, double *dm, gboolean with_slots, double *slots)
{
  const guint *gu = en->gather_unit[k], *gd = en->gather_desc[k];
  const guint *gs = en->gather_start[k];
  guint nu2 = en->n_units[k + 1];

  if (with_slots)
    for (guint x = 0; x < en->n_leaf_slots; x++)
      slots[2 * x] = slots[2 * x + 1] = en->leaf_slot_max[x] ? -INFINITY : 0;
  for (guint to = 0; to < nu2; to++)
    {
      double sv = 0, sm = 0;
      guint x;
      for (guint i = gs[to]; i < gs[to + 1]; i++)
        {
          double f = phi[gd[i]];
          sv += src[gu[i]] * f;
          sm += src_mag[gu[i]] * f;
        }
      dv[to] = sv;
      dm[to] = sm;
      /* leaf_slot covers the last depth's units only */
      if (!with_slots || (x = en->leaf_slot[to]) == G_MAXUINT)
        continue;
      if (!en->leaf_slot_max[x])
        {
          slots[2 * x] += sv;
          slots[2 * x + 1] += sm;
        }
      else if (sv > slots[2 * x])
        {
          slots[2 * x] = sv;
          slots[2 * x + 1] = sm;
        }
    }
}

/* The diff of a child at depth @k + 1 (en->used[k + 1] set): the parent's
 * (@src_diff, NULL when there is no diff), with the fused tiles of the
 * depth's variable from @chain and the spatial products. */
static inline void
child_diff (const Enum *en, guint k, const guint64 *src_diff, const guint64 *chain,
            guint64 *diff)
{
  guint v = en->order[k];

  if (en->n_diff == 0)
    return;
  memcpy (diff, src_diff, sizeof (guint64) * en->n_diff);
  for (guint i = 0; i < en->var_n_loops[v]; i++)
    if (en->var_loops[v][i] < en->n_fused)
      diff[en->var_loops[v][i]] = chain[i];
  for (guint d = 0; d < en->n_dims; d++)
    diff[en->n_fused + d] = en->used[k + 1][d];
}

/* ---- Bucket bounds: a parent's complete rows, all dominated at once ----
 *
 * At the last depth a row's children through one bucket of the last
 * variable differ only in the chain's factors phi (gather_row()): each
 * child unit is a sum of the parent's units times phi of one descriptor.
 * Every phi is non-negative, so taking for each descriptor the least phi
 * over the bucket's chains (the largest where the parent's unit is
 * negative) gives, unit by unit and slot by slot, a value no child goes
 * below: floating-point products and sums are monotone in each operand,
 * and the sums run in gather_row()'s order, so this holds for the
 * computed values too, not only for exact ones. The magnitudes summed
 * with the largest phi bound the children's from above. The chains of a
 * bucket that give the variable's fused loops the same tiles make
 * children of one diff (the spatial products are the bucket's): the
 * bound is taken per such group, and when a leaf of that diff taken in an
 * earlier chunk beats it in every slot, by the rounding margin
 * (bound_dominated()), it beats every child of the group as
 * taken_store_dominates() would find, and the group's chains are not
 * visited. Slots whose units get the same phi from every chain of the
 * group are the children's exactly and compare as unit_dominates() does,
 * equality included. The check mode visits the chains anyway and warns
 * about any child the store does not dominate or whose diff differs. */

/* Makes the groups of bucket_bounds for the last depth's variable. */
static void
bucket_bounds (Enum *en)
{
  guint k = en->n_vars - 1, v = en->order[k], nd = en->n_desc[k];
  guint nb = en->buckets[v]->len, ns = en->n_leaf_slots, nu2 = en->n_units[k + 1];
  guint nl = en->var_n_loops[v], nc = en->n_chains[v], ng = 0, most = 1;
  const guint *gd = en->gather_desc[k], *gs = en->gather_start[k];
  guint fused_pos[MAX_LOOPS], n_fused_pos = 0;

  for (guint i = 0; i < nl; i++)
    if (en->var_loops[v][i] < en->n_fused)
      fused_pos[n_fused_pos++] = i;
  en->bucket_group_first = g_new (guint, (gsize) nb + 1);
  en->chain_group = g_new (guint, MAX (nc, 1));
  en->group_chain = g_new (guint, MAX (nc, 1));
  /* Groups in order of their first chain, bucket by bucket (a bucket's
   * chains are contiguous); a chain joins the first group with its fused
   * tiles. */
  for (guint b = 0; b < nb; b++)
    {
      const Bucket *bucket = &g_array_index (en->buckets[v], Bucket, b);
      en->bucket_group_first[b] = ng;
      for (guint c = bucket->first; c < bucket->first + bucket->n; c++)
        {
          const guint64 *chain = nl > 0
            ? &g_array_index (en->chains[v], guint64, (gsize) c * nl) : NULL;
          guint g = en->bucket_group_first[b];
          for (; g < ng; g++)
            {
              const guint64 *other = nl > 0
                ? &g_array_index (en->chains[v], guint64, (gsize) en->group_chain[g] * nl) : NULL;
              guint i = 0;
              while (i < n_fused_pos && chain[fused_pos[i]] == other[fused_pos[i]])
                i++;
              if (i == n_fused_pos)
                break;
            }
          if (g == ng)
            en->group_chain[ng++] = c;
          en->chain_group[c] = g;
        }
      most = MAX (most, ng - en->bucket_group_first[b]);
    }
  en->bucket_group_first[nb] = ng;
  g_debug ("template %u: the last depth's %u chains in %u bound groups of %u buckets",
           en->t->id, nc, ng, nb);
  en->group_phi = g_new (double, (gsize) MAX (ng, 1) * 2 * MAX (nd, 1));
  en->group_slot_exact = g_new (guint8, (gsize) MAX (ng, 1) * MAX (ns, 1));
  en->group_cut = g_new (guint8, most);
  for (guint g = 0; g < ng; g++)
    {
      double *lo = en->group_phi + (gsize) g * 2 * nd, *hi = lo + nd;
      for (guint d = 0; d < nd; d++)
        {
          lo[d] = INFINITY;
          hi[d] = -INFINITY;
        }
    }
  for (guint c = 0; c < nc; c++)
    {
      double *lo = en->group_phi + (gsize) en->chain_group[c] * 2 * nd, *hi = lo + nd;
      for (guint d = 0; d < nd; d++)
        {
          double f = en->phi[k][(gsize) c * nd + d];
          lo[d] = MIN (lo[d], f);
          hi[d] = MAX (hi[d], f);
        }
    }
  for (guint g = 0; g < ng; g++)
    {
      const double *lo = en->group_phi + (gsize) g * 2 * nd, *hi = lo + nd;
      guint8 *exact = en->group_slot_exact + (gsize) g * ns;
      for (guint x = 0; x < ns; x++)
        exact[x] = TRUE;
      for (guint to = 0; to < nu2; to++)
        {
          guint x = en->leaf_slot[to];
          if (x == G_MAXUINT)
            continue;
          for (guint i = gs[to]; i < gs[to + 1]; i++)
            if (lo[gd[i]] != hi[gd[i]])
              exact[x] = FALSE;
        }
    }
}

/* The leaf slots that no child of the parent (@src, @src_mag) through
 * the chains of group @g goes below, magnitudes bounding theirs from
 * above. */
static void
bucket_bound_slots (const Enum *en, guint g, const double *src, const double *src_mag,
                    double *slots)
{
  guint k = en->n_vars - 1, nd = en->n_desc[k], nu2 = en->n_units[k + 1];
  const guint *gu = en->gather_unit[k], *gd = en->gather_desc[k];
  const guint *gs = en->gather_start[k];
  const double *lo = en->group_phi + (gsize) g * 2 * nd, *hi = lo + nd;

  for (guint x = 0; x < en->n_leaf_slots; x++)
    slots[2 * x] = slots[2 * x + 1] = en->leaf_slot_max[x] ? -INFINITY : 0;
  for (guint to = 0; to < nu2; to++)
    {
      double sv = 0, sm = 0;
      guint x = en->leaf_slot[to];
      if (x == G_MAXUINT)
        continue;
      for (guint i = gs[to]; i < gs[to + 1]; i++)
        {
          double u = src[gu[i]];
          sv += u * (u >= 0 ? lo[gd[i]] : hi[gd[i]]);
          sm += src_mag[gu[i]] * hi[gd[i]];
        }
      if (!en->leaf_slot_max[x])
        {
          slots[2 * x] += sv;
          slots[2 * x + 1] += sm;
        }
      else
        {
          /* the largest unit's value; the largest magnitude of any */
          slots[2 * x] = MAX (slots[2 * x], sv);
          slots[2 * x + 1] = MAX (slots[2 * x + 1], sm);
        }
    }
}

/* Whether a leaf of @record beats the bound @slots of group @g in every
 * slot: as unit_dominates() where the slot is exact, else below the bound
 * by the rounding margin (so below every child by it). */
static gboolean
bound_dominated (const Enum *en, guint32 record, guint g, const double *slots)
{
  guint ns = en->n_leaf_slots;
  const guint8 *exact = en->group_slot_exact + (gsize) g * ns;
  const guint32 *next = en->taken.leaf_next.data;
  const double *stored = en->taken.slots.data;
  const double *least = (const double *) en->taken.least.data + (gsize) (record - 1) * ns;

  for (guint x = 0; x < ns; x++)
    if (slots[2 * x] < least[x])
      return FALSE;
  for (guint32 e = ((const guint32 *) en->taken.first.data)[record - 1]; e != 0;
       e = next[e - 1])
    {
      const double *a = stored + (gsize) (e - 1) * 2 * ns;
      gboolean beats = TRUE;
      for (guint x = 0; x < ns && beats; x++)
        beats = exact[x] ? !unit_worse (a, slots, x)
          : a[2 * x] <= slots[2 * x] - DOMINANCE_MARGIN * (a[2 * x + 1] + slots[2 * x + 1]);
      if (beats)
        return TRUE;
    }
  return FALSE;
}

static gboolean
table_extend (Enum *en, const Table *in, guint k, Table *out, FfmTileWorkspace *ws,
              guint *next, guint max_rows)
{
  guint v = en->order[k], nu = en->n_units[k], nu2 = en->n_units[k + 1];
  guint nd = en->n_desc[k], nl = en->var_n_loops[v];
  double base_occ[MAX_BUFFETS];      /* the other variables at their smallest */
  double base_forced[MAX_BUFFETS];   /* same, with their fused loops trivial */
  /* and of buffets with an affine index, split for v (affine_split()): */
  guint64 affine_occ[MAX_BUFFETS][RANKS + 1], affine_forced[MAX_BUFFETS][RANKS + 1];
  gsize room = 0;   /* rows that @out and the scratch hold without growing
                       (capacities only grow while extending) */
  /* Complete rows a leaf taken in an earlier chunk dominates are dropped
   * as search_leaves() would drop them, before they are sorted. */
  gboolean against_taken = k + 1 == en->n_vars && taken_store_on (en);
  guint64 record_diff[MAX_LOOPS + MAX_DIMS];
  guint32 record = G_MAXUINT32;      /* record_diff's, or none looked up yet */
  /* The buckets that pass at the row's spatial products and fused loops
   * (passing_buckets()), kept while consecutive rows share them (rows of
   * one diff do): testing every bucket for every row was 13 % of GPT-3
   * V's instructions at unlimited fused loops. */
  struct Survivors *passing = &en->survivors[en->n_vars + 1];
  guint64 passing_used[MAX_DIMS];
  guint passing_fused = G_MAXUINT;   /* none yet */
  /* The occupancy bounds' part that no row changes (the variables after
   * v at their smallest tiles, variables without loops at their bounds,
   * the bits), and per buffet the loops whose tiles the row sets: */
  double const_occ[MAX_BUFFETS], const_forced[MAX_BUFFETS];
  guint occ_buffet[MAX_BUFFETS], occ_first[MAX_BUFFETS + 1];
  guint occ_loop[MAX_BUFFETS * MAX_VARS * RANKS];  /* var_exp <= RANKS */
  guint n_occ = 0, n_occ_loops = 0;
  /* The joinable tensors whose last fused tile this depth chooses: their
   * parts are checked once per distinct diff prefix (consecutive rows
   * mostly share it). */
  guint joinable_prefix = 0;
  guint64 joinable_seen[MAX_LOOPS];
  gboolean joinable_seen_valid = FALSE, joinable_seen_ok = TRUE;

  for (guint i = 0; i < en->n_jt; i++)
    if (joinable_checked_at (&en->jt[i], k + 1))
      joinable_prefix = MAX (joinable_prefix, en->jt[i].prefix);

  survivor_lists (en);
  for (guint b = 0; b < en->n_buffets; b++)
    {
      if (en->buffet_memory[b] < 0 || en->buffet_affine[b])
        continue;
      const_occ[b] = const_forced[b] = en->buffet_bits[b];
      occ_buffet[n_occ] = b;
      occ_first[n_occ++] = n_occ_loops;
      for (guint q = 0; q < en->n_vars; q++)
        {
          guint u = en->order[q];
          int j = en->res_loop[b][u];
          for (guint x = 0; x < en->var_exp[b][u] && u != v; x++)
            if ((q < k || en->var_n_loops[u] == 0) && j >= 0)
              occ_loop[n_occ_loops++] = (guint) j;
            else if (q < k || en->var_n_loops[u] == 0)
              {
                const_occ[b] *= (double) en->bounds[u];
                const_forced[b] *= (double) en->bounds[u];
              }
            else
              {
                const_occ[b] *= (double) smallest_tile (en, b, u, FALSE);
                const_forced[b] *= (double) smallest_tile (en, b, u, TRUE);
              }
        }
    }
  occ_first[n_occ] = n_occ_loops;

  for (guint r = *next; r < in->n_rows && out->n_rows < max_rows; r++, *next = r)
    {
      const double *src = TABLE_VALS (in) + (gsize) r * nu;
      const double *src_mag = TABLE_MAGS (in) + (gsize) r * nu;
      const guint64 *src_diff = TABLE_DIFF (in) + (gsize) r * en->n_diff;
      const guint32 *src_chains = TABLE_CHAINS (in) + (gsize) r * en->n_vars;
      guint kids = out->n_rows;   /* this row's children start here */

      if (past_deadline (en))
        return FALSE;

      gboolean affine_split_done[2] = { FALSE, FALSE };

      en->out->n_partial++;
      restore_row (en, in, r, k);
      /* spatial products and fused count of the row */
      en->fused[k] = 0;
      for (guint d = 0; d < en->n_dims; d++)
        en->used[k][d] = src_diff[en->n_fused + d];
      for (guint j = 0; j < en->n_fused; j++)
        if (src_diff[j] != 0)
          {
            const FfmLoopInfo *l = &en->loops[j];
            guint64 enclosing = l->enclosing >= 0 ? en->tiles[l->enclosing]
              : en->bounds[l->rank_var];
            if (ffm_chain_iterations (enclosing, en->tiles[j]) > 1)
              en->fused[k]++;
          }
      /* Occupancy lower bounds without variable v's factor: the row's
       * tiles times the part no row changes (const_occ, const_forced). */
      for (guint i = 0; i < n_occ; i++)
        {
          guint b = occ_buffet[i];
          double tiles = 1;
          for (guint x = occ_first[i]; x < occ_first[i + 1]; x++)
            tiles *= (double) en->tiles[occ_loop[x]];
          base_occ[b] = const_occ[b] * tiles;
          base_forced[b] = const_forced[b] * tiles;
          if (G_UNLIKELY (en->check_terms))
            occupancy_base_checked (en, k, b, base_occ[b], base_forced[b]);
        }
      if (passing_fused == en->fused[k]
          && memcmp (passing_used, en->used[k], sizeof (guint64) * en->n_dims) == 0)
        {
          if (!en->relaxed)
            en->usage_rejected += passing->unreachable;
        }
      else
        {
          passing_buckets (en, k, passing);
          passing_fused = en->fused[k];
          memcpy (passing_used, en->used[k], sizeof (guint64) * en->n_dims);
        }
      for (guint x = 0; x < passing->n; x++)
        {
          const Bucket *bucket = &g_array_index (en->buckets[v], Bucket, passing->bucket[x]);
          guint fused = en->fused[k] + bucket->fused;

          for (guint d = 0; d < en->n_dims; d++)
            en->used[k + 1][d] = en->used[k][d] * bucket->prod[d];
          en->fused[k + 1] = fused;
          /* With the fused-loop budget spent, the variables still to
           * choose have trivial fused loops (see smallest_tile()). */
          gboolean forced = fused_budget (en, fused) == 0;
          const double *base = forced ? base_forced : base_occ;
          guint64 (*affine)[RANKS + 1] = forced ? affine_forced : affine_occ;
          /* split when a chain first needs them (most rows have no chain
           * past the buckets' tests) */
          if (en->n_affine > 0 && !affine_split_done[forced])
            {
              for (guint b = 0; b < en->n_buffets; b++)
                if (en->affine_index[b] >= 0)
                  affine_occupancy_split (en, b, k, forced, affine[en->affine_index[b]]);
              affine_split_done[forced] = TRUE;
            }
          /* The groups of the bucket's chains whose children a taken
           * leaf all beats (bucket bounds, above) are not visited; the
           * check mode visits them and holds every child to that. */
          guint n_groups = 0, n_groups_cut = 0, group0 = 0;
          if (against_taken && en->bucket_bounds_on && en->taken.n > 0)
            {
              guint b = passing->bucket[x];
              if (en->group_phi == NULL)
                bucket_bounds (en);
              group0 = en->bucket_group_first[b];
              n_groups = en->bucket_group_first[b + 1] - group0;
              for (guint g = 0; g < n_groups; g++)
                {
                  guint64 gdiff[MAX_LOOPS + MAX_DIMS];
                  const guint64 *chain = nl > 0
                    ? &g_array_index (en->chains[v], guint64,
                                      (gsize) en->group_chain[group0 + g] * nl) : NULL;
                  guint32 grecord;
                  en->group_cut[g] = FALSE;
                  child_diff (en, k, src_diff, chain, gdiff);
                  grecord = taken_store_record (en, gdiff, hash_diff (gdiff, en->n_diff));
                  if (grecord != 0)
                    {
                      double gslots[2 * MAX_VARS * 64];
                      bucket_bound_slots (en, group0 + g, src, src_mag, gslots);
                      en->group_cut[g] = bound_dominated (en, grecord, group0 + g, gslots);
                      en->bucket_bound_tests++;
                      n_groups_cut += en->group_cut[g];
                    }
                }
              en->bucket_bound_cuts += n_groups_cut;
              if (n_groups_cut == n_groups && !en->check_terms)
                continue;
            }
          for (guint c = bucket->first; c < bucket->first + bucket->n; c++)
            {
              const guint64 *chain = nl > 0
                ? &g_array_index (en->chains[v], guint64, (gsize) c * nl) : NULL;
              const double *phi = &en->phi[k][(gsize) c * nd];
              guint32 *chains;
              const double *factor = en->chain_occ[v] + (gsize) c * en->n_buffets;
              gboolean fits = TRUE;
              gboolean bound_cut = n_groups_cut > 0 && en->group_cut[en->chain_group[c] - group0];
              if (bound_cut && !en->check_terms)
                continue;
              if (en->chain_dead[v] != NULL && en->chain_dead[v][c])
                {
                  en->n_unjoinable++;
                  continue;
                }
              for (guint i = 0; i < nl; i++)
                en->tiles[en->var_loops[v][i]] = chain[i];
              for (guint q = 0; q < en->n_memories && fits; q++)
                {
                  double occ = 0;
                  for (guint i = en->memory_first[q]; i < en->memory_first[q + 1]; i++)
                    {
                      guint b = en->memory_buffet[i];
                      if (!en->buffet_affine[b])
                        {
                          occ += base[b] * factor[b];
                          continue;
                        }
                      guint64 values = affine_values (en, v, b, affine[en->affine_index[b]]);
                      if (en->check_terms && values != affine_values_slowly (en, b, k, forced))
                        g_warning ("table_extend: template %u, depth %u, chain %u, buffet %u: "
                                   "%" G_GUINT64_FORMAT " values, ffm_access_tile_values() "
                                   "says otherwise", en->t->id, k, c, b, values);
                      occ += (double) values * en->buffet_bits[b];
                    }
                  if (occ > en->capacity[q])
                    {
                      reject_at (en, en->memories[q], occ, en->capacity[q]);
                      fits = FALSE;
                    }
                }
              if (!fits)
                continue;
              /* The table and the scratch that will prune it grow together,
               * so that a chunk the budget cut can still be pruned. */
              if ((gsize) out->n_rows + 1 > room)
                {
                  if (!table_try_reserve (en, out, (gsize) out->n_rows + 1, nu2, kids == 0)
                      || !prune_scratch_try_reserve (en, &ws->scratch, out->n_rows + 1,
                                                     nu2, kids == 0))
                    {
                      if (kids == 0)
                        return FALSE;
                      out->n_rows = kids;   /* the chunk is full: this row next time */
                      *next = r;
                      return TRUE;
                    }
                  room = rows_reserved (en, out, &ws->scratch, nu2);
                }
              if (en->n_diff > 0)
                child_diff (en, k, src_diff, chain,
                            TABLE_DIFF (out) + (gsize) out->n_rows * en->n_diff);
              if (joinable_prefix > 0)
                {
                  const guint64 *diff = TABLE_DIFF (out) + (gsize) out->n_rows * en->n_diff;
                  if (!joinable_seen_valid
                      || memcmp (joinable_seen, diff, sizeof (guint64) * joinable_prefix) != 0)
                    {
                      memcpy (joinable_seen, diff, sizeof (guint64) * joinable_prefix);
                      joinable_seen_ok = joinable_ok_at (en, diff, k + 1);
                      joinable_seen_valid = TRUE;
                    }
                  if (!joinable_seen_ok)
                    {
                      en->n_unjoinable++;
                      continue;
                    }
                }
              /* A complete row whose diff has leaves taken in earlier
               * chunks is compared with them. Consecutive chains mostly
               * share their fused tiles, so the diff's record is looked up
               * again only when the diff changes (the store does not grow
               * while extending). */
              gboolean against_record = FALSE;
              if (against_taken && en->taken.n > 0)
                {
                  const guint64 *diff = en->n_diff > 0
                    ? TABLE_DIFF (out) + (gsize) out->n_rows * en->n_diff : NULL;
                  if (record == G_MAXUINT32 || !diff_equal (diff, record_diff, en->n_diff))
                    {
                      if (en->n_diff > 0)
                        memcpy (record_diff, diff, sizeof (guint64) * en->n_diff);
                      record = taken_store_record (en, diff, hash_diff (diff, en->n_diff));
                    }
                  against_record = record != 0;
                }
              /* The new row, written in place: each unit of depth k+1 sums
               * its group of depth k's units (gather_unit); against a
               * record, its slots are summed on the way (as leaf_slots()
               * does, in the same order). */
              {
                double *dv = TABLE_VALS (out) + (gsize) out->n_rows * nu2;
                double *dm = TABLE_MAGS (out) + (gsize) out->n_rows * nu2;
                double slots[2 * MAX_VARS * 64];
                /* two copies, each with its loop kept tight */
                if (against_record)
                  gather_row (en, k, src, src_mag, phi, dv, dm, TRUE, slots);
                else
                  gather_row (en, k, src, src_mag, phi, dv, dm, FALSE, NULL);
                if (against_taken && en->taken.n > 0)
                  {
                    gboolean dominated = against_record
                      && taken_store_dominates (en, record, slots);
                    if (en->check_terms)
                      {
                        /* slots from the written row, and every leaf */
                        leaf_slots (en, out, out->n_rows, slots);
                        if (dominated != taken_store_dominates_slowly (
                              en, en->n_diff > 0 ? TABLE_DIFF (out) + (gsize) out->n_rows * en->n_diff
                              : NULL, slots))
                          g_warning ("taken-leaf store: template %u answered %s for a "
                                     "complete row, every leaf says otherwise",
                                     en->t->id, dominated ? "dominated" : "not dominated");
                        if (bound_cut && !dominated)
                          g_warning ("bucket bounds: template %u cut the group of chain %u "
                                     "(bucket %u) of a row at the last depth, but that "
                                     "chain's row is not dominated", en->t->id, c,
                                     passing->bucket[x]);
                      }
                    if (dominated)
                      {
                        en->out->n_partial++;   /* as search_leaves() counts it */
                        continue;
                      }
                  }
              }
              chains = TABLE_CHAINS (out) + (gsize) out->n_rows * en->n_vars;
              memcpy (chains, src_chains, sizeof (guint32) * en->n_vars);
              chains[v] = c;
              out->n_rows++;
            }
        }
      /* The children of one row first compete among themselves: a
       * subset's dominated rows are dominated in the whole table too.
       * Not complete rows whose leaves search_leaves() prunes: it compares
       * them by the groups' few slots, which drops every row this would
       * (once the dominating row's leaf is valid) and far more, so this
       * pruning by every unit only cost time there (the 64-Einsum matmul
       * chain 32.1 -> 25.9 s, GPT-3 6.7B b64 10.0 -> 7.6 s; same
       * pmappings). */
      if (!(k + 1 == en->n_vars && leaves_pruned (en))
          && !table_prune (en, out, kids, nu2, en->unit_lex[k + 1], &ws->scratch))
        return FALSE;
    }
  return TRUE;
}

/* TUNING: the bytes of one depth's table extended at a time. Tables larger
 * than this, or than the memory budget leaves, are cut into chunks, each
 * pruned and searched to the leaves before the next (depth first over
 * chunks, breadth first within one), so that the search's memory stays
 * bounded: a row that a row of another chunk dominates is no longer
 * dropped there, only by the next depths' pruning or the groups' Pareto
 * pruning (the result is the same; its leaves may be more). GPT-3 6.7B's
 * largest tables at one fused loop hold 7 M rows of 188 bytes (cut in
 * chunks of 1.1 M rows); unlimited fused loops make 100 M rows and more.
 * FFM_PMAPPING_CHUNK_ROWS sets a number of rows instead (tests cut small
 * problems; FFM_PMAPPING_PRUNE_SAMPLE_ROWS likewise shrinks the sample of
 * table_prune_sampled()). All depths together hold at most TABLES_BYTES
 * (a depth's chunk at most its share), so that deep searches whose pruning keeps
 * nearly every row (Simba's convolutions: 8 variables, 3 M rows of 27
 * units at one depth) leave room for the depths below instead of running
 * out of memory there (Simba x ResNet-18 on 2 threads: 9.0 GB and 83 s
 * with 8 GiB, 1.5 GB and 70 s with 1 GiB). */
#define CHUNK_BYTES ((gsize) 2 << 30)

/* TUNING: the complete rows extended at a time, when search_leaves()
 * prunes them and the taken-leaf store is on. Each chunk's leaves go into
 * the store before the next chunk is made, and table_extend() drops the
 * next chunks' rows (whole buckets of them: bucket bounds) that a taken
 * leaf beats before they are written, sorted or compared; a chunk this
 * size also stays in the caches. GPT-3 6.7B b64's V (one fused loop, one
 * thread): the largest templates made 0.83 M complete rows in one chunk,
 * 9.4 M in all, 1.9 M in chunks of 16,384 (2.9 -> 2.1 s; 4,096 to 65,536
 * rows measured within 10 % of that, one chunk 35 % slower); more leaves
 * are evaluated (9,886 -> 15,717: a chunk's own window sees fewer rows),
 * the same pmappings kept. */
#define LAST_DEPTH_CHUNK_ROWS 16384u
#define TABLES_BYTES ((gsize) 1 << 30)

/* The units a complete row carries (one per class) against the terms
 * evaluated at its tiles: the tables' bookkeeping (extension, pruning,
 * the moves of chunks and samples) kept each row's values with its
 * chains (FFM_PMAPPING_CHECK_TERMS). */
static void
check_table_row (Enum *en, const Table *t, guint r)
{
  guint nu = en->n_units[en->n_vars];
  const double *vals = TABLE_VALS (t) + (gsize) r * nu;
  const double *mags = TABLE_MAGS (t) + (gsize) r * nu;
  double sums[256];

  g_return_if_fail (en->terms->classes->len <= G_N_ELEMENTS (sums));
  ffm_terms_evaluate (en->terms, en->m, en->bounds, en->tiles, sums);
  for (guint u = 0; u < nu; u++)
    {
      double expect = sums[en->leaf_unit_class[u]];
      if (fabs (vals[u] - expect) > 1e-9 * (mags[u] + fabs (expect)) + 1e-30)
        g_warning ("table check: row %u unit %u holds %.17g, its tiles give %.17g",
                   r, u, vals[u], expect);
    }
}

/* TUNING: a table of more than twice this many rows is pruned in a sample
 * first, its last rows; when that drops fewer than 1 in
 * PRUNE_FUTILE_RATIO of them, the rest is left unpruned (the pruning
 * is optional: the next depth's pruning and the groups' Pareto pruning
 * drop what it would have). The table whose rows lack only the last
 * variable is left unpruned below 1 in PRUNE_FUTILE_RATIO_LAST: its rows'
 * only descendants are their children at the last depth, whose few units
 * (one per class) prune them far more cheaply, while its own rows carry
 * the most units of all (GPT-3's V: 300 k to 400 k rows of 21 to 25
 * units, of which pruning dropped 12 % to 21 % in about a second each,
 * then 97 % of their children at 7 units). Measured with 2 threads,
 * release build, against 1 in 50 everywhere (CPU time, mean of 2-3
 * runs; mappings identical): GPT-3 6.7B b64 45.0 to 39.0 s, ResNet-18 on
 * TPUv4i 27.5 to 21.5 s, MobileNet-V3 on TPUv4i 52.6 to 49.6 s, ResNet-18
 * on Simba 111.5 to 101.5 s, on Eyeriss 15.5 to 15.0 s; 1 in 2
 * everywhere and 1 in 4 everywhere each gained less. */
#define PRUNE_SAMPLE_ROWS 65536
#define PRUNE_FUTILE_RATIO 4
#define PRUNE_FUTILE_RATIO_LAST 2

/* Prunes the whole of @t, or only a sample of it when the sample drops
 * fewer than 1 in @futile_ratio of its rows. */
static gboolean
table_prune_sampled (Enum *en, Table *t, guint n_units, const guint8 *lex,
                     guint futile_ratio, PruneScratch *ps)
{
  guint total = t->n_rows, sample = en->prune_sample_rows, first;

  if (total <= 2 * sample)
    return table_prune (en, t, 0, n_units, lex, ps);
  /* The sample is the last rows: its survivors stay where they are and
   * nothing moves (a sample of the first rows moved the rest behind its
   * survivors; no difference in time measurable on Simba x ResNet-18,
   * but less to read). */
  first = total - sample;
  if (!table_prune (en, t, first, n_units, lex, ps))
    return FALSE;
  if ((gsize) (total - t->n_rows) * futile_ratio < sample)
    return TRUE;
  return table_prune (en, t, 0, n_units, lex, ps);
}

/* A complete row's slots (setup_leaf_slots()): value and magnitude
 * interleaved into @to. */
static void
leaf_slots (const Enum *en, const Table *t, guint r, double *to)
{
  guint nu = en->n_units[en->n_vars];
  const double *vals = TABLE_VALS (t) + (gsize) r * nu;
  const double *mags = TABLE_MAGS (t) + (gsize) r * nu;

  for (guint x = 0; x < en->n_leaf_slots; x++)
    to[2 * x] = to[2 * x + 1] = en->leaf_slot_max[x] ? -INFINITY : 0;
  for (guint u = 0; u < nu; u++)
    {
      guint x = en->leaf_slot[u];
      if (x == G_MAXUINT)
        continue;
      if (!en->leaf_slot_max[x])
        {
          to[2 * x] += vals[u];
          to[2 * x + 1] += mags[u];
        }
      else if (vals[u] > to[2 * x])
        {
          to[2 * x] = vals[u];
          to[2 * x + 1] = mags[u];
        }
    }
}

/* Whether search_leaves() compares complete rows by fewer slots than
 * their units. */
static gboolean
leaves_pruned (const Enum *en)
{
  return en->n_leaf_slots > 0 && en->n_leaf_slots < en->n_units[en->n_vars]
    && !en->every_leaf;
}

/* TUNING: leaves a template's store keeps (taken_store_add()): at most
 * 2^20 leaves of about a hundred bytes each (slots and a link; each
 * distinct diff once more, with its hash and least slots), taken from
 * the generation's budget; past it the chunks that follow only
 * prune among themselves, as before the store. GPT-3's V at unlimited
 * fused loops: 84 % of its largest templates' complete rows are dominated
 * by a leaf of an earlier chunk. */
#define TAKEN_STORE_MAX (1u << 20)

/* Whether complete rows are checked against the leaves of earlier chunks:
 * when search_leaves() prunes by slots, unless a test turns it off
 * (FFM_PMAPPING_LEAVES_PER_CHUNK=1: each chunk prunes only its own rows).
 * Under FFM_PMAPPING_CHECK_TERMS the rows it drops are not term-checked;
 * each answer is checked against every leaf instead
 * (taken_store_dominates_slowly()). */
static gboolean
taken_store_on (const Enum *en)
{
  return leaves_pruned (en) && en->n_leaf_slots <= MAX_VARS * 64
    && g_getenv ("FFM_PMAPPING_LEAVES_PER_CHUNK") == NULL;
}

static void
taken_store_clear (Enum *en)
{
  ffm_budget_buffer_clear (&en->taken.buckets, en->budget);
  ffm_budget_buffer_clear (&en->taken.hash, en->budget);
  ffm_budget_buffer_clear (&en->taken.next, en->budget);
  ffm_budget_buffer_clear (&en->taken.diff, en->budget);
  ffm_budget_buffer_clear (&en->taken.first, en->budget);
  ffm_budget_buffer_clear (&en->taken.least, en->budget);
  ffm_budget_buffer_clear (&en->taken.leaf_next, en->budget);
  ffm_budget_buffer_clear (&en->taken.leaf_record, en->budget);
  ffm_budget_buffer_clear (&en->taken.slots, en->budget);
  en->taken.n_buckets = en->taken.n_records = en->taken.n = 0;
  en->taken.full = FALSE;
  en->taken.fail = 0;
}

/* The record of diff @diff (hash @h) + 1, or 0 when no leaf has it. */
static guint32
taken_store_record (const Enum *en, const guint64 *diff, guint64 h)
{
  const guint32 *bucket = en->taken.buckets.data, *next = en->taken.next.data;
  const guint64 *hashes = en->taken.hash.data, *diffs = en->taken.diff.data;
  guint nd = en->n_diff;

  if (en->taken.n_buckets == 0)
    return 0;
  for (guint32 d = bucket[h & (en->taken.n_buckets - 1)]; d != 0; d = next[d - 1])
    if (hashes[d - 1] == h && diff_equal (diffs + (gsize) (d - 1) * nd, diff, nd))
      return d;
  return 0;
}

/* Whether a taken leaf of the diff of @record (taken_store_record(), not
 * 0) matches or beats @slots in every slot (unit_dominates(), with its
 * rounding margin). GPT-3's V at unlimited fused loops asks 180 M times,
 * 81 % dominated, its diffs holding some fifty leaves each: a row below
 * every leaf of its diff in some slot is answered by the diff's least
 * values, and a dominating leaf moves to the front of its diff's list (a
 * few strong leaves dominate most rows that follow; the answer does not
 * depend on the order). */
static gboolean
taken_store_dominates (Enum *en, guint32 record, const double *slots)
{
  guint32 *first, *next = en->taken.leaf_next.data;
  const double *stored = en->taken.slots.data, *least;
  guint ns = en->n_leaf_slots;

  /* A leaf dominates only with every slot at most the row's. */
  least = (const double *) en->taken.least.data + (gsize) (record - 1) * ns;
  for (guint x = 0; x < ns; x++)
    if (slots[2 * x] < least[x])
      return FALSE;
  first = (guint32 *) en->taken.first.data + (record - 1);
  for (guint32 e = *first, prev = 0; e != 0; prev = e, e = next[e - 1])
    if (unit_dominates (stored + (gsize) (e - 1) * 2 * ns, slots, ns, NULL, &en->taken.fail))
      {
        if (prev != 0)
          {
            next[prev - 1] = next[e - 1];
            next[e - 1] = *first;
            *first = e;
          }
        return TRUE;
      }
  return FALSE;
}

/* The same question asked of every leaf in turn, without the buckets,
 * the lists, their order or the least values: the check mode's witness
 * of taken_store_record() and taken_store_dominates() (a leaf they miss
 * would only cost time, so no other test sees it). */
static gboolean
taken_store_dominates_slowly (Enum *en, const guint64 *diff, const double *slots)
{
  const guint32 *leaf_record = en->taken.leaf_record.data;
  const guint64 *diffs = en->taken.diff.data;
  const double *stored = en->taken.slots.data;
  guint nd = en->n_diff, ns = en->n_leaf_slots, fail = 0;

  for (guint e = 0; e < en->taken.n; e++)
    if (diff_equal (diffs + (gsize) (leaf_record[e] - 1) * nd, diff, nd)
        && unit_dominates (stored + (gsize) e * 2 * ns, slots, ns, NULL, &fail))
      return TRUE;
  return FALSE;
}

/* Adds a taken leaf (its diff and slots) to the store; when the budget or
 * the cap says no, the store stops growing (the search stays exact). */
static void
taken_store_add (Enum *en, const guint64 *diff, guint64 h, const double *slots)
{
  guint nd = en->n_diff, ns = en->n_leaf_slots, n = en->taken.n;
  guint32 d;
  double *least;

  if (en->taken.full)
    return;
  if (n >= TAKEN_STORE_MAX
      || !ffm_budget_buffer_reserve (&en->taken.leaf_next, en->budget,
                                     ffm_budget_bytes (n + 1, sizeof (guint32)))
      || (en->check_terms
          && !ffm_budget_buffer_reserve (&en->taken.leaf_record, en->budget,
                                         ffm_budget_bytes (n + 1, sizeof (guint32))))
      || !ffm_budget_buffer_reserve (&en->taken.slots, en->budget,
                                     ffm_budget_bytes (n + 1, 2 * sizeof (double) * ns)))
    {
      en->taken.full = TRUE;
      return;
    }
  d = taken_store_record (en, diff, h);
  if (d == 0)
    {
      guint nr = en->taken.n_records;
      guint32 *bucket, *next;
      if (!ffm_budget_buffer_reserve (&en->taken.hash, en->budget,
                                      ffm_budget_bytes (nr + 1, sizeof (guint64)))
          || !ffm_budget_buffer_reserve (&en->taken.next, en->budget,
                                         ffm_budget_bytes (nr + 1, sizeof (guint32)))
          || !ffm_budget_buffer_reserve (&en->taken.diff, en->budget,
                                         ffm_budget_bytes (nr + 1, sizeof (guint64) * MAX (nd, 1)))
          || !ffm_budget_buffer_reserve (&en->taken.first, en->budget,
                                         ffm_budget_bytes (nr + 1, sizeof (guint32)))
          || !ffm_budget_buffer_reserve (&en->taken.least, en->budget,
                                         ffm_budget_bytes (nr + 1, sizeof (double) * MAX (ns, 1))))
        {
          en->taken.full = TRUE;
          return;
        }
      /* Buckets: at least twice the records, rebuilt when they double. */
      if (2 * (gsize) (nr + 1) > en->taken.n_buckets)
        {
          guint nb = MAX (en->taken.n_buckets * 2, 1024u);
          const guint64 *hashes = en->taken.hash.data;
          if (!ffm_budget_buffer_reserve (&en->taken.buckets, en->budget,
                                          ffm_budget_bytes (nb, sizeof (guint32))))
            {
              en->taken.full = TRUE;
              return;
            }
          bucket = en->taken.buckets.data;
          next = en->taken.next.data;
          memset (bucket, 0, sizeof (guint32) * nb);
          en->taken.n_buckets = nb;
          for (guint r = 0; r < nr; r++)
            {
              next[r] = bucket[hashes[r] & (nb - 1)];
              bucket[hashes[r] & (nb - 1)] = r + 1;
            }
        }
      bucket = en->taken.buckets.data;
      next = en->taken.next.data;
      ((guint64 *) en->taken.hash.data)[nr] = h;
      if (nd > 0)
        memcpy ((guint64 *) en->taken.diff.data + (gsize) nr * nd, diff, sizeof (guint64) * nd);
      ((guint32 *) en->taken.first.data)[nr] = 0;
      least = (double *) en->taken.least.data + (gsize) nr * ns;
      for (guint x = 0; x < ns; x++)
        least[x] = INFINITY;
      next[nr] = bucket[h & (en->taken.n_buckets - 1)];
      bucket[h & (en->taken.n_buckets - 1)] = nr + 1;
      en->taken.n_records = nr + 1;
      d = nr + 1;
    }
  least = (double *) en->taken.least.data + (gsize) (d - 1) * ns;
  for (guint x = 0; x < ns; x++)
    least[x] = MIN (least[x], slots[2 * x]);
  memcpy ((double *) en->taken.slots.data + (gsize) n * 2 * ns, slots, 2 * sizeof (double) * ns);
  {
    guint32 *first = (guint32 *) en->taken.first.data + (d - 1);
    ((guint32 *) en->taken.leaf_next.data)[n] = *first;
    if (en->check_terms)
      ((guint32 *) en->taken.leaf_record.data)[n] = d;
    *first = n + 1;
  }
  en->taken.n = n + 1;
}

/* The leaves of the complete rows of @t, each evaluated unless a row of
 * the same diff whose leaf a group took matches or beats it in every slot
 * (setup_leaf_slots(), by the rounding margin of unit_dominates()): the
 * groups keep only those quantities, so they would drop its leaf. Only
 * rows whose leaves were valid dominate: the occupancy units of memories
 * the groups ignore no longer show that a dominator fits wherever the row
 * does. Rows go in sort order (table_prune()), so that dominators come
 * first; a row is compared with the PRUNE_WINDOW rows taken last before
 * it. Such a table is not pruned by its units first (search_chunks()):
 * a row another matches or beats in every unit is dropped here too, once
 * that one's leaf is valid. Small tables, and templates whose groups
 * compare every unit, take every leaf. */
static void
search_leaves (Enum *en, const Table *t, PruneScratch *ps)
{
  guint n_rows = t->n_rows, ns = en->n_leaf_slots, nd = en->n_diff, n_taken = 0;
  guint start = 0, fail = 0;
  const guint64 *diffs = TABLE_DIFF (t);
  gboolean store = taken_store_on (en);
  FfmRowKey *keys;
  guint *taken;
  double *slots;

  if (n_rows < PRUNE_MIN_ROWS || !leaves_pruned (en) || ns > MAX_VARS * 64
      || !prune_scratch_reserve (en, ps, n_rows, en->n_units[en->n_vars]))
    {
      for (guint r = 0; r < n_rows && !en->stopped; r++)
        {
          restore_row (en, t, r, en->n_vars);
          if (en->check_terms)
            check_table_row (en, t, r);
          en->out->n_partial++;
          if (leaf (en) && store)
            {
              /* taken: later chunks' rows it dominates are not written */
              double row[2 * MAX_VARS * 64];
              leaf_slots (en, t, r, row);
              taken_store_add (en, diffs + (gsize) r * nd, hash_diff (diffs + (gsize) r * nd, nd),
                               row);
            }
        }
      return;
    }
  keys = ps->keys.data;
  taken = ps->kept.data;
  slots = ps->vals.data;
  /* Each row's slots once, in table order (2 ns <= 2 units per row: they
   * fit the scratch), then keys as table_prune() makes them. */
  {
    double weight[MAX_VARS * 64];
    for (guint x = 0; x < ns; x++)
      weight[x] = 0;
    for (guint r = 0; r < n_rows; r++)
      {
        double *row = slots + (gsize) r * 2 * ns;
        leaf_slots (en, t, r, row);
        for (guint x = 0; x < ns; x++)
          weight[x] = MAX (weight[x], fabs (row[2 * x]));
      }
    for (guint x = 0; x < ns; x++)
      weight[x] = weight[x] > 0 ? 1 / weight[x] : 0;
    for (guint r = 0; r < n_rows; r++)
      {
        const double *row = slots + (gsize) r * 2 * ns;
        double rest = 0;
        for (guint x = 1; x < ns; x++)
          rest += row[2 * x] * weight[x];
        keys[r].hash = hash_diff (diffs + (gsize) r * nd, nd);
        keys[r].first = row[0];
        keys[r].rest = rest;
        keys[r].index = r;
      }
  }
  /* The radix sort's scratch follows the slots, when the scratch has room. */
  if (n_rows >= en->radix_min_rows
      && (ps->vals.capacity - (gsize) n_rows * 2 * ns * sizeof (double))
         / FFM_ROW_KEY_RADIX_SCRATCH >= n_rows)
    {
      ffm_row_keys_sort_radix (keys, n_rows, slots + (gsize) n_rows * 2 * ns);
      if (en->check_terms)
        for (guint i = 1; i < n_rows; i++)
          if (!ffm_row_key_less (&keys[i - 1], &keys[i]))
            g_warning ("radix sort: leaf key %u of %u is out of order", i, n_rows);
    }
  else
    ffm_row_keys_sort (keys, n_rows);

  for (guint i = 0; i < n_rows && !en->stopped; i++)
    {
      guint r = keys[i].index;
      const double *row = slots + (gsize) r * 2 * ns;
      gboolean dominated = FALSE;
      if (i > 0 && keys[i].hash != keys[i - 1].hash)
        start = n_taken;    /* a new diff */
      for (guint k = n_taken; k-- > start && !dominated && n_taken - k <= PRUNE_WINDOW; )
        {
          const FfmRowKey *q = &keys[taken[k]];
          if (q->rest > keys[i].rest)
            continue;
          dominated = unit_dominates (slots + (gsize) q->index * 2 * ns, row, ns, NULL, &fail)
            && diff_equal (diffs + (gsize) q->index * nd, diffs + (gsize) r * nd, nd);
        }
      en->out->n_partial++;
      if (dominated && !en->check_terms)
        continue;     /* its tiles are not needed */
      restore_row (en, t, r, en->n_vars);
      if (en->check_terms)
        check_table_row (en, t, r);
      if (!dominated && leaf (en))
        {
          taken[n_taken++] = i;
          if (store)
            taken_store_add (en, diffs + (gsize) r * nd, keys[i].hash, row);
        }
    }
}

/* Searches from depth @k, whose rows are in ws->tables[k], to the leaves. */
static void
search_chunks (Enum *en, FfmTileWorkspace *ws, guint k, guint chunk_rows)
{
  Table *in = &ws->tables[k], *out = &ws->tables[k + 1];
  guint next = 0, max_rows = chunk_rows;

  if (k == en->n_vars)
    {
      search_leaves (en, in, &ws->scratch);
      return;
    }
  while (next < in->n_rows && !en->stopped)
    {
      gint64 start = g_get_monotonic_time ();
      guint first = next, before;

      out->n_rows = 0;
      if (max_rows == 0)
        max_rows = (guint) MIN (MIN (CHUNK_BYTES, TABLES_BYTES / MAX (en->n_vars, 1))
                                / table_row_bytes (en, en->n_units[k + 1]),
                                G_MAXUINT);
      if (k + 1 == en->n_vars && leaves_pruned (en) && taken_store_on (en))
        max_rows = MIN (max_rows, LAST_DEPTH_CHUNK_ROWS);
      if (!table_extend (en, in, k, out, ws, &next, max_rows))
        return;
      before = out->n_rows;
      /* The complete rows' own pruning is search_leaves()', by fewer
       * slots, when it compares them. */
      if (!(k + 1 == en->n_vars && leaves_pruned (en))
          && !table_prune_sampled (en, out, en->n_units[k + 1], en->unit_lex[k + 1],
                                   k + 2 == en->n_vars ? PRUNE_FUTILE_RATIO_LAST
                                   : PRUNE_FUTILE_RATIO, &ws->scratch))
        return;
      g_debug ("template %u depth %u (%s, %u chains, %u units): rows %u-%u of %u "
               "extended to %u, %u after pruning (%.3f s; groups cut by bucket bounds so "
               "far: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bounds taken)",
               en->t->id, k,
               en->e->rank_var_names[en->order[k]], en->n_chains[en->order[k]],
               en->n_units[k + 1], first, next, in->n_rows, before, out->n_rows,
               (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC,
               en->bucket_bound_cuts, en->bucket_bound_tests);
      search_chunks (en, ws, k + 1, chunk_rows);
    }
}

/* Makes @table the search's root: one row, no variable chosen. */
static gboolean
table_set_root (Enum *en, Table *table)
{
  g_autofree guint64 *diff = g_new0 (guint64, MAX (en->n_diff, 1));
  g_autofree guint32 *chains = g_new0 (guint32, MAX (en->n_vars, 1));

  table->n_rows = 0;
  if (!table_reserve (en, table, 1, en->n_units[0]))
    return FALSE;
  for (guint d = 0; d < en->n_dims; d++)
    diff[en->n_fused + d] = 1;
  memcpy (TABLE_CHAINS (table), chains, sizeof (guint32) * en->n_vars);
  for (guint u = 0; u < en->n_units[0]; u++)
    {
      TABLE_VALS (table)[u] = en->unit_init[2 * u];
      TABLE_MAGS (table)[u] = en->unit_init[2 * u + 1];
    }
  if (en->n_diff > 0)
    memcpy (TABLE_DIFF (table), diff, sizeof (guint64) * en->n_diff);
  table->n_rows = 1;
  return TRUE;
}

/* TUNING: the pilot (pilot_work()) extends at most PILOT_ROWS rows per
 * depth, from at most PILOT_PARENTS rows of the depth above spread over
 * its pruned sample. Measured (2 threads, wall, one round each; the
 * 4-Einsum matmul chain in callgrind instructions, greedy 22.64 G):
 * 1024/64: GPT-3 6.7B b64 15.3 s (worse choices), ResNet-18 on TPUv4i
 * 4.8 s, the chain 21.66 G; 2048/128: 11.2 s, 5.0 s, 22.11 G; 4096/256:
 * 12.4 s, 5.5 s, 23.20 G. */
#define PILOT_ROWS 2048
#define PILOT_PARENTS 128

/* TUNING: the alternative order is taken when its pilot work is below
 * this share of the greedy order's: the pilots' sample pruning misjudges
 * both (per template, the estimated ratio of the two orders' work was
 * within 2-3x of the measured one). Over the templates of GPT-3 6.7B
 * b64, ResNet-18 on TPUv4i and on Eyeriss (1 thread, each template timed
 * in both orders), 0.5 gave 22.1, 9.5 and 7.0 s, 0.7 gave 20.2, 9.3 and
 * 7.5 s, 1.0 gave 19.5, 9.1 and 8.0 s (greedy alone: 34.4, 20.0, 7.0 s;
 * the best order of each template: 18.6, 9.0, 6.9 s). */
#define PILOT_MARGIN 0.7

/* TUNING: below this pilot work of the greedy order (about 20 ms of
 * search), the greedy order is kept without a second pilot, which would
 * cost more than it could save. */
#define PILOT_MIN_WORK 1e6

/* An estimate of the search's work in the present order: a search of
 * samples, each depth extending PILOT_PARENTS rows of the pruned sample
 * above; the rows a depth would hold follow from the sample's children
 * per row and the share its pruning keeps, and each costs its units (it
 * is summed, extended and compared by them). Pruning keeps more of a
 * sample than of a whole table, so the estimate errs high for depths that
 * prune well, alike for every order. Negative when the search stopped
 * (time, memory). Counters of the template's result are left as they
 * were: the search proper counts its rows and rejections. */
static double
pilot_work (Enum *en, FfmTileWorkspace *ws, double enough)
{
  FfmTemplateResult *r = en->out;
  guint n_levels = ffm_arch_get_n_levels (en->arch);
  guint64 n_partial = r->n_partial, usage_rejected = en->usage_rejected;
  g_autofree guint64 *rejected = g_memdup2 (r->rejected, sizeof (guint64) * n_levels);
  g_autofree double *min_excess = g_memdup2 (r->min_excess, sizeof (double) * n_levels);
  g_autofree double *min_need = g_memdup2 (r->min_need, sizeof (double) * n_levels);
  double rows = 1, work = 0;

  if (!table_set_root (en, &ws->tables[0]))
    return -1;
  for (guint k = 0; k < en->n_vars && !en->stopped; k++)
    {
      Table *in = &ws->tables[k], *out = &ws->tables[k + 1];
      guint nu2 = en->n_units[k + 1], next = 0, stride;

      out->n_rows = 0;
      if (in->n_rows == 0
          || !table_extend (en, in, k, out, ws, &next, PILOT_ROWS) || next == 0)
        break;
      rows *= (double) out->n_rows / next;
      work += rows * (en->n_units[k] + nu2 + en->n_diff);
      if (k + 1 == en->n_vars || out->n_rows == 0 || work >= enough)
        break;
      {
        guint before = out->n_rows;
        if (!table_prune (en, out, 0, nu2, en->unit_lex[k + 1], &ws->scratch))
          break;
        rows *= (double) out->n_rows / before;
      }
      stride = (out->n_rows + PILOT_PARENTS - 1) / PILOT_PARENTS;
      if (stride > 1)
        {
          guint n = 0;
          for (guint i = 0; i < out->n_rows; i += stride)
            table_move_row (en, out, i, n++, nu2);
          out->n_rows = n;
        }
    }
  r->n_partial = n_partial;
  en->usage_rejected = usage_rejected;
  memcpy (r->rejected, rejected, sizeof (guint64) * n_levels);
  memcpy (r->min_excess, min_excess, sizeof (double) * n_levels);
  memcpy (r->min_need, min_need, sizeof (double) * n_levels);
  return en->stopped ? -1 : work;
}

/* TUNING: the greedy order (choose_order()) makes the units few early, so
 * that tables prune well; moving the variable of most chains last instead
 * makes its fan-out meet only the leaves' cheap comparison
 * (search_leaves()). Either can be many times faster than the other for
 * one template (GPT-3 6.7B's templates: 0.52 s greedy against 14.8 s, and
 * 1.09 s against 0.13 s), and neither rule wins on every workload, so the
 * pilots (pilot_work()) of both orders pick. The greedy order stays when
 * its pilot says the search is small (PILOT_MIN_WORK, or
 * FFM_PMAPPING_PILOT_MIN_WORK for tests), when the alternative is the
 * same order, and when a pilot stopped (time, memory: the search then
 * stops too). FFM_PMAPPING_ORDER=greedy or =chains-last forces one order
 * (tests). */
static void
choose_search_order (Enum *en, FfmTileWorkspace *ws)
{
  const char *force = g_getenv ("FFM_PMAPPING_ORDER");
  const char *min_knob = g_getenv ("FFM_PMAPPING_PILOT_MIN_WORK");
  double min_work = PILOT_MIN_WORK, w_greedy, w_last;
  gboolean last;

  /* No alternative: one variable, or the greedy order ends with the
   * variable of most chains. */
  if (en->n_vars < 2 || most_chains_position (en, en->order) == en->n_vars - 1
      || (force != NULL && strcmp (force, "greedy") == 0))
    return;
  if (force != NULL && strcmp (force, "chains-last") == 0)
    {
      free_units (en);
      setup_units (en, TRUE);
      return;
    }
  if (min_knob != NULL && g_ascii_strtod (min_knob, NULL) > 0)
    min_work = g_ascii_strtod (min_knob, NULL);
  w_greedy = pilot_work (en, ws, G_MAXDOUBLE);
  if (w_greedy < min_work)    /* negative when it stopped */
    return;
  free_units (en);
  setup_units (en, TRUE);
  /* Its pilot stops once it cannot win. */
  w_last = pilot_work (en, ws, PILOT_MARGIN * w_greedy);
  last = w_last >= 0 && w_last < PILOT_MARGIN * w_greedy;
  g_debug ("template %u: pilot work %.3g greedy, %.3g chains last: %s", en->t->id,
           w_greedy, w_last, last ? "chains last" : "greedy");
  en->out->n_chains_last += last;
  if (!last)
    {
      free_units (en);
      setup_units (en, FALSE);
    }
}

static void
search_pruned (Enum *en, FfmTileWorkspace *ws)
{
  const char *knob = g_getenv ("FFM_PMAPPING_CHUNK_ROWS");
  const char *sample = g_getenv ("FFM_PMAPPING_PRUNE_SAMPLE_ROWS");
  const char *radix = g_getenv ("FFM_PMAPPING_RADIX_MIN_ROWS");
  guint chunk_rows = 0;     /* 0: CHUNK_BYTES */

  if (knob != NULL && g_ascii_strtoull (knob, NULL, 10) > 0)
    chunk_rows = (guint) MIN (g_ascii_strtoull (knob, NULL, 10), G_MAXUINT);
  en->prune_sample_rows = PRUNE_SAMPLE_ROWS;
  if (sample != NULL && g_ascii_strtoull (sample, NULL, 10) > 0)
    en->prune_sample_rows = (guint) MIN (g_ascii_strtoull (sample, NULL, 10),
                                         PRUNE_SAMPLE_ROWS);
  en->radix_min_rows = RADIX_MIN_ROWS;
  en->every_leaf = g_getenv ("FFM_PMAPPING_EVERY_LEAF") != NULL;
  en->bucket_bounds_on = g_getenv ("FFM_PMAPPING_NO_BUCKET_BOUNDS") == NULL;
  if (radix != NULL && g_ascii_strtoull (radix, NULL, 10) > 0)
    en->radix_min_rows = (guint) MIN (g_ascii_strtoull (radix, NULL, 10),
                                      RADIX_MIN_ROWS);
  choose_search_order (en, ws);
  /* The pilots skip the chains ruled out (their work is the search's), the
   * checks per depth start after them (they depend on the order). */
  joinable_depths (en);
  en->joinable_in_tables = en->n_jt > 0;
  if (en->stopped || !table_set_root (en, &ws->tables[0]))
    return;
  search_chunks (en, ws, 0, chunk_rows);
  en->out->n_bucket_cuts += en->bucket_bound_cuts;
}

void
ffm_pmapping_template_enumerate (const FfmWorkload *workload,
                                 const FfmArch *arch,
                                 const FfmPmappingTemplate *t,
                                 const FfmPmappingOptions *options,
                                 const gboolean *untracked,
                                 const FfmJoinableParts *joinable,
                                 FfmTileWorkspace *workspace,
                                 FfmTemplateResult *out)
{
  Enum *en = g_new0 (Enum, 1);
  FfmTileWorkspace *own = workspace == NULL ? ffm_tile_workspace_new (NULL) : NULL;
  FfmTileWorkspace *ws = workspace != NULL ? workspace : own;
  gint64 start = g_get_monotonic_time ();

  en->t = t;
  en->m = t->model;
  en->arch = arch;
  en->eff = *options;
  /* The Einsum's own fused-loop limit (mapping constraints), if tighter. */
  if (t->constraints != NULL && t->constraints->max_fused_loops >= 0
      && (options->max_fused_loops < 0
          || t->constraints->max_fused_loops < options->max_fused_loops))
    en->eff.max_fused_loops = t->constraints->max_fused_loops;
  en->opt = &en->eff;
  en->out = out;
  en->budget = ws->budget;
  if (options->struct_size >= G_STRUCT_OFFSET (FfmPmappingOptions, max_template_seconds)
                              + sizeof options->max_template_seconds
      && options->max_template_seconds > 0)
    en->deadline = start + (gint64) (options->max_template_seconds * G_USEC_PER_SEC);
  en->joinable = joinable;
  if (setup (en, workload, arch, untracked) && joinable_template_ok (en))
    {
      out->n_loops = en->n_loops;
      en->cost = ffm_pmapping_cost_new (en->m);
      for (guint d = 0; d < en->n_dims; d++)
        en->used[0][d] = 1;
      if (!FFM_PMAPPING_NO_PARTIAL_PRUNING (options))
        en->terms = ffm_terms_build (workload, arch, en->m, options->objectives,
                                     en->n_fused, en->remainders);
      en->check_terms = g_getenv ("FFM_PMAPPING_CHECK_TERMS") != NULL;
      if (en->terms != NULL && !setup_units (en, FALSE))
        g_clear_pointer (&en->terms, ffm_terms_free);
      if (capacity_ok (en, 0))
        {
          if (en->constrained && en->terms != NULL)
            {
              /* A minimum usage with partial pruning: the probe first, as
               * the breadth-first search is no branch and bound and would
               * build its tables twice when no vector reaches the
               * minimum. The probe stops at the first valid vector that
               * reaches it (then the plain pass), or finds the highest
               * usage (then try best). */
              en->probe_until_min = TRUE;
              probe_best_usage (en);
              if (en->min_reached)
                search_pruned (en, ws);
              else if (!en->stopped && en->best_score >= 0)
                {
                  en->relaxed = TRUE;
                  en->target_score = en->best_score;
                  search_pruned (en, ws);
                }
            }
          else
            {
              if (en->terms != NULL)
                search_pruned (en, ws);
              else
                search (en, 0);
              /* As without parts: no valid vector at the minimum usage,
               * joinable or not. */
              if (en->constrained && out->groups->len == 0 && en->n_unjoinable == 0
                  && en->usage_rejected > 0 && !en->stopped)
                {
                  /* Try best in two passes: a depth-first branch and bound
                   * finds the highest usage of a valid vector (highest
                   * products first), then the search keeps the vectors of
                   * that usage, pruned by it (a single pass that keeps the
                   * best so far cannot prune the breadth-first search by its
                   * bound). */
                  probe_best_usage (en);
                  en->relaxed = TRUE;
                  en->target_score = en->best_score;
                  if (en->best_score >= 0)   /* else no valid vector at any usage */
                    search (en, 0);
                }
            }
        }
      ffm_pmapping_cost_free (en->cost);
    }
  for (guint v = 0; v < en->n_vars; v++)
    {
      if (en->chains[v] != NULL)
        g_array_free (en->chains[v], TRUE);
      if (en->buckets[v] != NULL)
        g_array_free (en->buckets[v], TRUE);
      g_free (en->var_phi[v]);
      g_free (en->chain_occ[v]);
    }
  g_free (en->capacity_base);
  g_free (en->survivor_block);
  g_free (en->capacity_affine);
  g_free (en->affine_coef);
  g_free (en->affine_mask);
  free_units (en);
  joinable_free_projections (en);
  for (guint v = 0; v < MAX_VARS; v++)
    g_free (en->chain_dead[v]);
  taken_store_clear (en);
  ffm_terms_free (en->terms);
  ffm_tile_workspace_free (own);
  ffm_template_result_prune (out);
  out->n_unjoinable += en->n_unjoinable;
  out->seconds += (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  g_debug ("template %u of Einsum %s: %s%s, %" G_GUINT64_FORMAT " partial, %" G_GUINT64_FORMAT
           " evaluated, %" G_GUINT64_FORMAT " unjoinable, %.3f s", t->id, en->e->name,
           en->terms != NULL ? "pruned" : "full", en->relaxed ? " (try best)" : "",
           out->n_partial, out->n_evaluated, en->n_unjoinable, out->seconds);
  g_free (en);
}
