/* ffm-pmapping-tiles-dfs.c: the depth-first tile search
 * (ffm-pmapping-tiles.c) of templates without partial pruning, and the
 * probe of "try best": one rank variable's chain at a time, each branch
 * cut by the bounds on partial tile vectors (capacity, fanout, minimum
 * usage, fused loops); the buckets that pass those bounds are shared with
 * the tables (ffm-pmapping-tiles-extend.c). */
#include "ffm-pmapping-private.h"
#include "ffm-tile-chain-private.h"
#include "ffm-workload-private.h"

#include <math.h>
#include <string.h>

/* TUNING: the depth-first search reads the clock once per this many
 * nodes (a read costs about as much as a few nodes). */
#define DEADLINE_CHECK_NODES 1024

/* ---- Bounds on partial tile vectors ---- */

/* The occupancy lower bound of every memory, with the variables chosen up
 * to @depth (exclusive) at their tiles and the others at their smallest.
 * With a fused-loop budget of one loop, at most one of the others (@free,
 * or none) has a fused loop of more than one iteration: every memory's
 * bound is then taken per choice of @free, and the branch is cut only when
 * every choice overflows some memory (with two or more loops left, every
 * other variable is taken as free). */
gboolean
tiles_capacity_ok (FfmTileSearch *en, guint depth)
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
  tiles_reject_at (en, en->memories[best_level], best_occ, best_cap);
  return FALSE;
}

/* CapacityBase's entries (@out, RANKS + 1) of affine buffet @b in the
 * pass of @free: tiles_capacity_ok()'s tiles, split for variable @v. */
static void
capacity_base_affine (const FfmTileSearch *en, guint v, guint budget, int free,
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

/* The chain-independent part of tiles_capacity_ok (@en, @depth) for variable
 * @v = order[@depth - 1]. */
static void
capacity_base (const FfmTileSearch *en, guint depth, guint v, CapacityBase *cb)
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

/* tiles_capacity_ok (@en, @depth) for chain @c of @v, whose tiles are in
 * en->tiles, from @cb (capacity_base()). */
static gboolean
capacity_chain_ok (FfmTileSearch *en, const CapacityBase *cb, guint depth, guint v, guint c)
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
  tiles_reject_at (en, en->memories[best_level], best_occ, best_cap);
  return FALSE;
}

/* capacity_chain_ok(), checked against tiles_capacity_ok(): the same answer
 * and the same rejection statistics (FFM_DEBUG=check-terms). */
static gboolean
capacity_chain_checked (FfmTileSearch *en, const CapacityBase *cb, guint depth, guint v, guint c)
{
  FfmTemplateResult *r = en->out;
  guint n_levels = ffm_arch_get_n_levels (en->arch);
  g_autofree guint64 *rejected = g_memdup2 (r->rejected, sizeof (guint64) * n_levels);
  g_autofree double *min_excess = g_memdup2 (r->min_excess, sizeof (double) * n_levels);
  g_autofree double *min_need = g_memdup2 (r->min_need, sizeof (double) * n_levels);
  g_autofree guint64 *slow_rejected = NULL;
  g_autofree double *slow_min_excess = NULL, *slow_min_need = NULL;
  gboolean slow = tiles_capacity_ok (en, depth), fast;

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
dim_reach (const FfmTileSearch *en, guint depth, guint d)
{
  return MIN ((double) en->used[depth][d] * en->reach_after[depth][d],
              en->dim_count_f[d]);
}

static double
usage_score_bound (const FfmTileSearch *en, guint depth)
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
usage_reachable (FfmTileSearch *en, guint depth)
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

/* ---- Search ---- */

/* The survivors' lists, allocated at the first use: one per depth for
 * tiles_dfs(), one for tiles_table_extend(), each as long as the most buckets of
 * a variable. */
void
tiles_survivor_lists (FfmTileSearch *en)
{
  if (en->survivor_block == NULL)
    {
      guint most = 0;
      for (guint u = 0; u < en->n_vars; u++)
        most = MAX (most, en->buckets[u]->len);
      /* one list per depth for tiles_dfs(), one for tiles_table_extend() */
      en->survivor_block = g_new (guint, (gsize) MAX (most, 1) * (en->n_vars + 2));
      for (guint k = 0; k <= en->n_vars + 1; k++)
        en->survivors[k].bucket = en->survivor_block + (gsize) k * MAX (most, 1);
    }
}

/* The buckets of order[@depth] that pass the fused-loop budget, the
 * fanout dimensions' counts and usage_reachable() at used[@depth] and
 * fused[@depth], into @s, in search order (the largest spatial products
 * first while probing). */
void
tiles_passing_buckets (FfmTileSearch *en, guint depth, struct Survivors *s)
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
      /* one placement per set on interchangeable dimensions
       * (setup_symmetric_dims()) */
      for (guint p = 0; p < en->n_symmetric_pairs && ok; p++)
        {
          guint da = en->symmetric_pair[p][0], db = en->symmetric_pair[p][1];
          ok = en->used[depth][da] != 1 || en->used[depth][db] != 1
            || bucket->prod[db] <= bucket->prod[da];
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
 * (used[@depth], fused[@depth]), into en->survivors[@depth], in tiles_dfs()'s
 * order. On a node of the same state (the next chain of the parent's
 * bucket) the list is reused: the tests give the same answers (the probe's
 * best score only grows, so a bucket it cut stays cut; tiles_dfs() asks
 * usage_reachable() again while probing), and the cuts are counted again
 * as if asked. Probing visited 7.2 M nodes of MobileNet-V3's T7 on TPUv4i
 * and tested 35 buckets at each: 249 M tests, 90,000 passed. */
static void
search_survivors (FfmTileSearch *en, guint depth)
{
  struct Survivors *s = &en->survivors[depth];

  if (depth > 0 && s->valid)
    {
      if (!en->relaxed)
        en->usage_rejected += s->unreachable;
      return;
    }
  tiles_survivor_lists (en);
  tiles_passing_buckets (en, depth, s);
}

void
tiles_dfs (FfmTileSearch *en, guint depth)
{
  guint v;
  double bound;
  CapacityBase *cb;
  gboolean tiles_needed;

  en->out->n_partial++;
  if (depth == en->n_vars)
    {
      tiles_leaf (en);
      return;
    }
  if (en->min_reached
      || en->stopped
      || ((en->out->n_partial % DEADLINE_CHECK_NODES) == 0 && search_interrupted (en)))
    return;
  v = en->order[depth];
  tiles_needed = en->n_affine > 0 || TILES_CHECKING (en);
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
          /* The capacity test reads the chain's tiles only for affine
           * buffets (and the check); most chains fail it (GPT-3's QK:
           * 1.9 M of them, 2.4 % of its instructions in these writes). */
          if (tiles_needed)
            for (guint i = 0; i < en->var_n_loops[v]; i++)
              en->tiles[en->var_loops[v][i]] = chain[i];
          fits = TILES_CHECKING (en) ? capacity_chain_checked (en, cb, depth + 1, v, c)
            : capacity_chain_ok (en, cb, depth + 1, v, c);
          if (!fits)
            continue;
          if (!tiles_needed)
            for (guint i = 0; i < en->var_n_loops[v]; i++)
              en->tiles[en->var_loops[v][i]] = chain[i];
          tiles_dfs (en, depth + 1);
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
void
tiles_probe_best_usage (FfmTileSearch *en)
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
  tiles_set_order (en, en->dfs_order);
  tiles_dfs (en, 0);
  tiles_set_order (en, order);
  en->probing = FALSE;
  en->relaxed = FALSE;
}
