/* ffm-pmapping-tiles-setup.c: the tile search's setup for one template
 * (ffm-pmapping-tiles.c): the loops of each rank variable, their divisor
 * chains (with remainder tiles when the mapspace has them) and the chains'
 * buckets (same fused-loop count and spatial products), the fanout
 * dimensions and their minimum usage, the buffets and the memories they
 * fill, each chain's factor of each buffet's occupancy, and fixed tiles
 * (mapping constraints). */
#include "ffm-pmapping-private.h"
#include "ffm-tile-chain-private.h"
#include "ffm-workload-private.h"

#include <math.h>
#include <string.h>

/* Sets the search order to @order and what dim_reach() needs of it, which
 * it would otherwise multiply out for every bucket of every row (an
 * eighth of ResNet-18's instructions on TPUv4i). Capping the products at
 * the dimension's count changes no reach (a used count is at least 1) and
 * keeps them exact integers in a double. */
void
tiles_set_order (FfmTileSearch *en, const guint *order)
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
chain_ok (FfmTileSearch *en, guint v, const guint64 *tiles)
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
make_chains (FfmTileSearch *en, guint v, guint i, guint64 outer, guint64 *tiles)
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
make_remainder_chains (FfmTileSearch *en, guint v)
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
chain_signature (const FfmTileSearch *en, guint v, const guint64 *tiles, Bucket *sig)
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
  const FfmTileSearch *en;
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
make_buckets (FfmTileSearch *en, guint v)
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
  const FfmTileSearch *en = data;
  guint a = *(const guint *) pa, b = *(const guint *) pb;

  if (en->n_chains[a] != en->n_chains[b])
    return en->n_chains[a] < en->n_chains[b] ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);
}

/* Whether storage node @n holds a tensor rank variable @var indexes. */
static gboolean
storage_node_uses_var (const FfmTileSearch *en, const FfmWorkload *w,
                       const FfmMappingNode *n, guint var)
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
setup_fixed_tiles (FfmTileSearch *en, const FfmWorkload *w)
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
 * occupancy, for tiles_table_extend()'s capacity bound: computed once, not per
 * row and chain (GPT-3's V at unlimited fused loops spent 8 % of its time
 * raising tiles to powers there). Products of integer tiles and bits,
 * exact below 2^53, so the bound's products do not depend on grouping. */
static void
setup_chain_occupancy (FfmTileSearch *en)
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

gboolean
tiles_setup (FfmTileSearch *en, const FfmWorkload *w, const FfmArch *a, const gboolean *untracked)
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
   * per rank, or affine (tiles_capacity_ok() and the tables' occupancy bounds). */
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
  tiles_set_order (en, en->dfs_order);
  return TRUE;
}
