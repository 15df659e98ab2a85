/* ffm-pmapping-tiles-setup.c: the tile search's setup for one template
 * (ffm-pmapping-tiles.c): the loops of each rank variable (their chains
 * and buckets come from ffm-pmapping-tiles-chains.c), the fanout
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
      int at[MAX_BUFFETS];    /* per buffet: the chain position of its tile */
      en->chain_occ[v] = g_new (double, (gsize) MAX (nc, 1) * MAX (en->n_buffets, 1));
      for (guint b = 0; b < en->n_buffets; b++)
        {
          int j = en->res_loop[b][v];   /* a loop of v, or none: the bound */
          at[b] = -1;
          for (guint i = 0; i < nl; i++)
            if (en->var_loops[v][i] == (guint) j)
              at[b] = (int) i;
        }
      for (guint c = 0; c < nc; c++)
        {
          const guint64 *chain = nl > 0
            ? &g_array_index (en->chains[v], guint64, (gsize) c * nl) : NULL;
          for (guint b = 0; b < en->n_buffets; b++)
            {
              double tile = at[b] >= 0 ? (double) chain[at[b]] : (double) en->bounds[v];
              double f = 1;
              for (guint x = 0; x < en->var_exp[b][v]; x++)
                f *= tile;
              en->chain_occ[v][(gsize) c * en->n_buffets + b] = f;
            }
        }
    }
}

/* Whether fanout dimensions @a and @b (@a < @b) are interchangeable in
 * this template: swapping the spatial factors every variable puts on them
 * changes no cost. They must agree on everything the model reads of a
 * dimension (count, minimum usage, which tensors must and may be shared),
 * have no level but fanouts between them in the architecture (a memory
 * there would see one and not the other), spread the same variables,
 * none fused, none with a fixed tile, and their loops must form one run
 * of spatial loop nodes that no storage node, temporal loop or
 * reservation splits. Remainder tiles are left out: their last instance
 * depends on the order of the loops. */
static gboolean
dims_interchangeable (const FfmTileSearch *en, const FfmWorkload *w, const FfmArch *a,
                      guint da, guint db)
{
  const FfmPmappingModel *m = en->m;
  const FfmFanoutDimInfo *fa = ffm_pmapping_model_get_fanout_dim (m, da);
  const FfmFanoutDimInfo *fb = ffm_pmapping_model_get_fanout_dim (m, db);
  guint einsum = ffm_pmapping_model_get_einsum (m);
  guint64 reuse_a, may_a, reuse_b, may_b;
  guint vars_a = 0, vars_b = 0;
  int lo = -1, hi = -1;

  if (en->remainders || fa->count != fb->count || fa->min_usage != fb->min_usage)
    return FALSE;
  if (!ffm_arch_fanout_reuse_masks (a, fa->level, fa->dim, w, einsum, &reuse_a, &may_a, NULL)
      || !ffm_arch_fanout_reuse_masks (a, fb->level, fb->dim, w, einsum, &reuse_b, &may_b, NULL)
      || reuse_a != reuse_b || may_a != may_b)
    return FALSE;
  for (guint l = MIN (fa->level, fb->level) + 1; l < MAX (fa->level, fb->level); l++)
    if (ffm_arch_get_level (a, l)->kind != FFM_LEVEL_FANOUT)
      return FALSE;
  for (guint j = 0; j < en->n_loops; j++)
    {
      const FfmLoopInfo *l = &en->loops[j];
      if (!l->spatial || ((guint) l->fanout_dim != da && (guint) l->fanout_dim != db))
        continue;
      if (j < en->n_fused || en->n_fixed[l->rank_var] > 0)
        return FALSE;
      if ((guint) l->fanout_dim == da)
        {
          if (vars_a & (1u << l->rank_var))
            return FALSE;
          vars_a |= 1u << l->rank_var;
        }
      else
        {
          if (vars_b & (1u << l->rank_var))
            return FALSE;
          vars_b |= 1u << l->rank_var;
        }
      if (lo < 0)
        lo = (int) j;
      hi = (int) j;
    }
  if (vars_a != vars_b || lo < 0)
    return FALSE;
  for (int j = lo; j < hi; j++)
    if (!en->loops[j].spatial || !en->loops[j + 1].spatial
        || en->loops[j + 1].node != en->loops[j].node + 1)
      return FALSE;
  for (guint b = 0; b < ffm_pmapping_model_get_n_buffets (m); b++)
    {
      int above = ffm_pmapping_model_get_buffet (m, b)->n_loops_above;
      if (above > lo && above <= hi)
        return FALSE;
    }
  return TRUE;
}

/* Fanout dimensions that are interchangeable (dims_interchangeable())
 * give every pmapping copies that differ only in which of them carries
 * which spatial factors: six 2-way tree levels spreading four variables
 * give 5^6 = 15,625 placements of 210 distinct ones. The search keeps the
 * copy whose dimensions, in order, take non-increasing factors from the
 * first variable that uses them (in the search's variable order: columns
 * sorted), which it can tell from the spatial products alone: of two
 * neighbours in a class, while both are unused, the later may not take
 * more. Rows with the same products (one partial-pruning diff) stay
 * comparable, so pruning among them keeps its meaning. */
static void
setup_symmetric_dims (FfmTileSearch *en, const FfmWorkload *w, const FfmArch *a)
{
  en->n_symmetric_pairs = 0;
  if (ffm_debug_flag_is_set (FFM_DEBUG_NO_SYMMETRIC_DIMS))
    return;
  for (guint da = 0; da < en->n_dims; da++)
    for (guint db = da + 1; db < en->n_dims; db++)
      if (ffm_debug_flag_is_set (FFM_DEBUG_SYMMETRIC_DIMS_BY_COUNT)
          ? en->dim_count[da] == en->dim_count[db]
          : dims_interchangeable (en, w, a, da, db))
        {
          en->symmetric_pair[en->n_symmetric_pairs][0] = (guint8) da;
          en->symmetric_pair[en->n_symmetric_pairs][1] = (guint8) db;
          en->n_symmetric_pairs++;
          break;
        }
  if (en->n_symmetric_pairs > 0)
    g_debug ("template %u: %u pairs of interchangeable fanout dimensions",
             en->t->id, en->n_symmetric_pairs);
}

gboolean
tiles_setup (FfmTileSearch *en, const FfmWorkload *w, const FfmArch *a, const gboolean *untracked)
{
  const FfmPmappingModel *m = en->m;

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
  setup_symmetric_dims (en, w, a);
  for (guint v = 0; v < en->n_vars; v++)
    tiles_chains_take (en, v);
  setup_chain_occupancy (en);
  for (guint v = 0; v < en->n_vars; v++)
    en->dfs_order[v] = v;
  g_qsort_with_data (en->dfs_order, (gint) en->n_vars, sizeof (guint), compare_vars, en);
  tiles_set_order (en, en->dfs_order);
  return TRUE;
}
