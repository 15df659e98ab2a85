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
 * [1] shared/reference/ffm-spec.md §2.1 (min_usage), §4.7-§4.8. */
#include "ffm-pmapping-private.h"

#include <math.h>
#include <string.h>

#define MAX_VARS FFM_MAX_EINSUM_RANK_VARS
#define MAX_LOOPS FFM_COST_MAX_LOOPS
#define MAX_DIMS 16
#define MAX_BUFFETS 64

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
  guint var_n_loops[MAX_VARS];
  guint var_loops[MAX_VARS][MAX_LOOPS];
  GArray *chains[MAX_VARS];         /* of guint64, var_n_loops tiles per chain */
  guint n_chains[MAX_VARS];
  guint64 chain_dim[MAX_VARS][MAX_DIMS];  /* largest product a var adds per dim */
  GArray *buckets[MAX_VARS];        /* of Bucket: chains sorted by what the
                                       search checks, so that a whole bucket
                                       is accepted or skipped at once */

  guint n_dims;
  guint64 dim_count[MAX_DIMS];
  double dim_min[MAX_DIMS];
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
  gboolean relaxed;                 /* try best: keep the highest usage */
  double best_score;
  guint64 usage_rejected;

  guint64 tiles[MAX_LOOPS];
  guint64 used[MAX_VARS + 1][MAX_DIMS]; /* per depth: spatial products chosen */
  guint fused[MAX_VARS + 1];        /* per depth: fused loops of > 1 iteration */
  guint64 var_tiles[MAX_VARS];      /* scratch for occupancy */
  FfmCompatibility compat;
  FfmPmappingColumn columns[FFM_DESCRIBE_MAX_COLUMNS];
  double values[FFM_DESCRIBE_MAX_COLUMNS];
} Enum;

/* ---- Chains ---- */

static gboolean
chain_ok (Enum *en, guint v, const guint64 *tiles)
{
  guint64 prod[MAX_DIMS] = { 0 };
  guint fused = 0;
  guint64 enclosing = en->bounds[v];

  for (guint d = 0; d < en->n_dims; d++)
    prod[d] = 1;
  for (guint i = 0; i < en->var_n_loops[v]; i++)
    {
      guint j = en->var_loops[v][i];
      guint64 n = enclosing / tiles[i];
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
      guint64 n = enclosing / tiles[i];
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

static gboolean
setup (Enum *en, const FfmWorkload *w, const FfmArch *a)
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

  en->n_dims = ffm_pmapping_model_get_n_fanout_dims (m);
  g_return_val_if_fail (en->n_dims <= MAX_DIMS, FALSE);
  for (guint d = 0; d < en->n_dims; d++)
    {
      const FfmFanoutDimInfo *f = ffm_pmapping_model_get_fanout_dim (m, d);
      en->dim_count[d] = f->count;
      en->dim_min[d] = f->min_usage;
      if (f->min_usage > 0)
        en->constrained = TRUE;
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

  for (guint v = 0; v < en->n_vars; v++)
    {
      en->chains[v] = g_array_new (FALSE, FALSE, sizeof (guint64));
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
      make_chains (en, v, 0, en->bounds[v], scratch);
    }
  for (guint v = 0; v < en->n_vars; v++)
    make_buckets (en, v);
  for (guint v = 0; v < en->n_vars; v++)
    en->order[v] = v;
  g_qsort_with_data (en->order, (gint) en->n_vars, sizeof (guint), compare_vars, en);
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

/* The occupancy lower bound of every memory, with the variables chosen up
 * to @depth (exclusive) at their tiles and the others at their smallest. */
static gboolean
capacity_ok (Enum *en, guint depth)
{
  gboolean chosen[MAX_VARS] = { FALSE };
  double occ[MAX_BUFFETS] = { 0 };

  for (guint i = 0; i < depth; i++)
    chosen[en->order[i]] = TRUE;
  for (guint b = 0; b < en->n_buffets; b++)
    {
      guint k;
      for (k = 0; k < en->n_memories; k++)
        if (en->memories[k] == en->buffet_level[b])
          break;
      if (k == en->n_memories)
        continue;
      for (guint v = 0; v < en->n_vars; v++)
        {
          int j = en->res_loop[b][v];
          if (chosen[v] || en->var_n_loops[v] == 0)
            en->var_tiles[v] = j >= 0 ? en->tiles[j] : en->bounds[v];
          else
            en->var_tiles[v] = j >= 0 ? 1 : en->bounds[v];
        }
      occ[k] += (double) ffm_access_tile_values (en->e, en->buffet_access[b],
                                                 en->var_tiles)
        * en->buffet_bits[b];
    }
  for (guint k = 0; k < en->n_memories; k++)
    if (occ[k] > en->capacity[k])
      {
        reject_at (en, en->memories[k], occ[k], en->capacity[k]);
        return FALSE;
      }
  return TRUE;
}

static gboolean
usage_reachable (const Enum *en, guint depth)
{
  if (en->relaxed || !en->constrained)
    return TRUE;
  for (guint d = 0; d < en->n_dims; d++)
    {
      double reach = (double) en->used[depth][d];
      if (en->dim_min[d] <= 0)
        continue;
      for (guint i = depth; i < en->n_vars; i++)
        reach *= (double) en->chain_dim[en->order[i]][d];
      reach = MIN (reach, (double) en->dim_count[d]);
      if (reach < en->dim_min[d] * (double) en->dim_count[d])
        return FALSE;
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

static void
clear_groups (FfmTemplateResult *r)
{
  g_hash_table_remove_all (r->index);
  g_ptr_array_set_size (r->groups, 0);
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
  g->columns = g_array_new (FALSE, FALSE, sizeof (FfmPmappingColumn));
  g_array_append_vals (g->columns, en->columns, n_columns);
  g->values = g_array_new (FALSE, FALSE, sizeof (double));
  g->tiles = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_ptr_array_add (r->groups, g);
  g_hash_table_insert (r->index, &g->compat, g);
  return g;
}

void ffm_template_group_prune (FfmTemplateGroup *g, guint n_loops);

static void
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
      return;
    }
  if (!usage_ok (en))
    {
      double score;
      en->usage_rejected++;
      if (!en->relaxed)
        return;
      score = usage_score (en);
      if (score < en->best_score)
        return;
      if (score > en->best_score)
        {
          clear_groups (en->out);
          en->out->n_valid = 0;
          en->best_score = score;
        }
    }
  n_columns = ffm_describe_row (&en->info, en->m, en->tiles, cost, &en->compat,
                                en->columns, en->values);
  if (n_columns == 0)
    return;
  en->out->n_valid++;
  g = find_group (en, n_columns);
  g_array_append_vals (g->values, en->values, n_columns);
  g_array_append_vals (g->tiles, en->tiles, en->n_loops);
  g->n_rows++;
  if (g->n_rows > 2 * g->pruned_rows + PRUNE_SLACK)
    ffm_template_group_prune (g, en->n_loops);
}

/* ---- Search ---- */

static void
search (Enum *en, guint depth)
{
  guint v;

  en->out->n_partial++;
  if (depth == en->n_vars)
    {
      leaf (en);
      return;
    }
  v = en->order[depth];
  for (guint bi = 0; bi < en->buckets[v]->len; bi++)
    {
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
        continue;
      for (guint c = bucket->first; c < bucket->first + bucket->n; c++)
        {
          const guint64 *chain = en->var_n_loops[v] > 0
            ? &g_array_index (en->chains[v], guint64, (gsize) c * en->var_n_loops[v])
            : NULL;
          for (guint i = 0; i < en->var_n_loops[v]; i++)
            en->tiles[en->var_loops[v][i]] = chain[i];
          if (!capacity_ok (en, depth + 1))
            continue;
          search (en, depth + 1);
        }
    }
}

void
ffm_pmapping_template_enumerate (const FfmWorkload *workload,
                                 const FfmArch *arch,
                                 const FfmPmappingTemplate *t,
                                 const FfmPmappingOptions *options,
                                 FfmTemplateResult *out)
{
  Enum *en = g_new0 (Enum, 1);
  gint64 start = g_get_monotonic_time ();

  en->t = t;
  en->m = t->model;
  en->opt = options;
  en->out = out;
  if (setup (en, workload, arch))
    {
      out->n_loops = en->n_loops;
      en->cost = ffm_pmapping_cost_new (en->m);
      for (guint d = 0; d < en->n_dims; d++)
        en->used[0][d] = 1;
      if (capacity_ok (en, 0))
        {
          search (en, 0);
          if (en->constrained && out->groups->len == 0 && en->usage_rejected > 0)
            {
              en->relaxed = TRUE;
              en->best_score = -1;
              search (en, 0);
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
    }
  ffm_template_result_prune (out);
  out->seconds += (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  g_free (en);
}
