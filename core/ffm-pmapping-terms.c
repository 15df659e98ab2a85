/* ffm-pmapping-terms.c: a template's cost as a sum of monomials, for
 * pruning partial tile vectors.
 *
 * With perfect factorization and indices that are single rank variables,
 * every count the cost model adds up (as in the reference implementation, accelforge; the model's
 * count_transfer) is a product of loop iteration counts and rank-variable
 * tiles: a fill is the tile held times the iterations of the loops above,
 * a skipped first fill the tile times the relevant temporal and the spatial
 * loops above, an occupancy the tile at the reservation times the bits per
 * value. So each objective quantity the pruning needs (dynamic energy, each
 * memory port's or compute unit's latency, each memory's occupancy per
 * reservation depth) is a signed sum of monomials
 *     coef x prod_{loops j in mask} n_j x prod_{vars v} tile_v(pos_v)
 * and every monomial factors into one factor per rank variable. The tile
 * search (ffm-pmapping-tiles.c) uses that to compare partial tile vectors
 * term by term (as in the reference implementation, accelforge, TCM).
 *
 * The monomials mirror the model's rules for the paths the generator makes
 * (storage nodes outer to inner, spatial loops between the memories they
 * separate, so that every tensor's view keeps path order):
 *   - holders of a tensor: its storage nodes, then the compute unit;
 *   - for each holder h below its parent p, with x = the tensor's tile at h:
 *       p reads      x * all / mc          (mc: multicast spatial loops
 *                                            between p and h)
 *       p unit reads x * temporal * seg    (seg: other spatial loops
 *                                            between p and h)
 *       h fills      x * all,  unit x * temporal       (h a storage node)
 *     and for the output, drains at h and updates at p likewise, minus the
 *     skipped first fills x * first (relevant temporal and spatial loops)
 *     at h, and x * first / mc at p when p skips them too;
 *   - compute: operations = all loops, steps = temporal loops;
 *   - actions = counts x bits per value / bits per action; energy = actions
 *     x the energy of the action (a buffet's read, fill, update, drain
 *     energies); latency per port = unit actions / bandwidth, drains left
 *     out of a memory whose drains do not read.
 * An affine index (a convolution's p + r, a stride's 2p) has the extent
 * 1 + sum_k coef_k (tile_k - 1) per rank, a sum of monomials of one
 * variable each and a constant; a tensor's tile, the product over its
 * ranks, expands into at most MAX_TILE_MONOMIALS monomials, each again one
 * factor per rank variable (with remainder tiles the model sums extents
 * over blocks, and the sum of a product over independent variables'
 * blocks factors the same way). A template is not eligible (no pruning)
 * when it is a copy, when a variable appears twice in one tensor's indices
 * (its tile would be squared, which a monomial's one position per
 * variable cannot write), when the expansion is larger, or when a
 * bandwidth is 0.
 * tests/test-pmapping.c checks the sums against the model at every leaf
 * (FFM_DEBUG=check-terms). */
#include "ffm-pmapping-private.h"
#include "ffm-cost-private.h"
#include "ffm-tile-chain-private.h"

#include <math.h>
#include <string.h>

#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))

/* A conv input's two affine ranks give 3 x 3 monomials; more than this
 * many and the template is enumerated without partial pruning. */
#define MAX_TILE_MONOMIALS 64

/* One monomial of a tensor's tile: coef x prod_v tile_v(pos[v]), -2 for
 * the variables it does not contain. */
typedef struct {
  double coef;
  int pos[FFM_MAX_EINSUM_RANK_VARS];
} TileMonomial;

typedef struct {
  const FfmWorkload *w;
  const FfmArch *a;
  const FfmPmappingModel *m;
  const FfmEinsum *e;
  FfmTerms *terms;
  guint n_loops;
  FfmLoopInfo loops[FFM_COST_MAX_LOOPS];
  guint loop_node[FFM_COST_MAX_LOOPS];
  guint64 may_reuse[64];    /* per fanout dim of the model */
  int class_energy;
  int class_read[64];       /* per level: latency class of reads (-1 none) */
  int class_write[64];
  gboolean need_latency;
  gboolean inexpressible;   /* a tile the monomials cannot write */
} Builder;

static guint
add_class (FfmTerms *t, FfmTermClassKind kind, guint level, int nla)
{
  FfmTermClass c = { kind, level, nla };
  for (guint i = 0; i < t->classes->len; i++)
    {
      const FfmTermClass *o = &g_array_index (t->classes, FfmTermClass, i);
      if (o->kind == kind && o->level == level && o->nla == nla)
        return i;
    }
  g_array_append_val (t->classes, c);
  return t->classes->len - 1;
}

/* The tile position of every rank variable just above path node @node:
 * the last loop over it before the node, -1 for its bound; -2 for
 * variables that do not index access @access. */
static void
tile_positions (const Builder *b, guint access, guint n_loops_above, int *pos)
{
  for (guint v = 0; v < b->e->n_rank_vars; v++)
    pos[v] = ffm_access_uses_var (b->e, access, v) ? -1 : -2;
  for (guint j = 0; j < n_loops_above; j++)
    if (pos[b->loops[j].rank_var] != -2)
      pos[b->loops[j].rank_var] = j;
}

static void
add_monomial (Builder *b, int cls, double coef, guint64 mask, const int *pos)
{
  FfmTerm term;

  if (cls < 0 || coef == 0)
    return;
  memset (&term, 0, sizeof term);
  for (guint v = 0; v < FFM_MAX_EINSUM_RANK_VARS; v++)
    term.pos[v] = -2;
  term.cls = cls;
  term.coef = coef;
  term.mask = mask;
  for (guint v = 0; v < b->e->n_rank_vars; v++)
    {
      term.pos[v] = pos[v];
      if (pos[v] == -1)
        term.coef *= (double) b->e->rank_var_bounds[v];  /* a constant tile */
    }
  g_array_append_val (b->terms->terms, term);
}

/* The tile of access @access with its variables' tiles at @pos (as
 * tile_positions() gives them) as monomials: per rank, the constant
 * 1 - sum_k coef_k or one term coef_k tile_k, multiplied out. 0 when it
 * cannot be written so (a variable twice in one monomial, or too many). */
static guint
expand_tile (const Builder *b, guint access, const int *pos, TileMonomial *out)
{
  const FfmTensor *t = ffm_workload_get_tensor (b->w, b->e->accesses[access].tensor);
  TileMonomial next[MAX_TILE_MONOMIALS];
  guint n = 1;

  out[0].coef = 1;
  for (guint v = 0; v < FFM_MAX_EINSUM_RANK_VARS; v++)
    out[0].pos[v] = -2;
  for (guint r = 0; r < t->n_ranks; r++)
    {
      const FfmProjection *p = &b->e->accesses[access].projections[r];
      double constant = 1;
      guint m = 0;
      for (guint k = 0; k < p->n_terms; k++)
        constant -= (double) p->terms[k].coefficient;
      for (guint i = 0; i < n; i++)
        {
          if (constant != 0)
            {
              if (m == MAX_TILE_MONOMIALS)
                return 0;
              next[m] = out[i];
              next[m++].coef *= constant;
            }
          for (guint k = 0; k < p->n_terms; k++)
            {
              guint var = p->terms[k].var;
              if (out[i].pos[var] != -2 || m == MAX_TILE_MONOMIALS)
                return 0;
              next[m] = out[i];
              next[m].coef *= (double) p->terms[k].coefficient;
              next[m++].pos[var] = pos[var];
            }
        }
      memcpy (out, next, sizeof (TileMonomial) * m);
      n = m;
    }
  return n;
}

/* Adds coef x (loops in @mask) x the tile of @access at @pos, one term per
 * monomial of the tile. */
static void
add_term (Builder *b, int cls, double coef, guint64 mask, guint access,
          const int *pos)
{
  TileMonomial monos[MAX_TILE_MONOMIALS];
  guint n;

  if (cls < 0 || coef == 0)
    return;
  n = expand_tile (b, access, pos, monos);
  if (n == 0)
    b->inexpressible = TRUE;
  for (guint i = 0; i < n; i++)
    add_monomial (b, cls, coef * monos[i].coef, mask, monos[i].pos);
}

/* Loops before path node @node. */
static guint
loops_before (const Builder *b, guint node)
{
  guint n = 0;
  while (n < b->n_loops && b->loop_node[n] < node)
    n++;
  return n;
}

static gboolean
level_bandwidths (const Builder *b, guint level, double *rbw, double *wbw)
{
  const FfmLevel *l = ffm_arch_get_level (b->a, level);
  *rbw = l->u.memory.read_bandwidth;
  *wbw = l->u.memory.write_bandwidth;
  return *rbw > 0 && *wbw > 0;
}

/* The transfer between holder (buffet @hb, or the compute unit when -1,
 * at path node @hnode) and its parent buffet @pb, for access @access. */
static void
add_transfer (Builder *b, guint access, gboolean output, int hb, guint hnode,
              int pb)
{
  const FfmBuffetInfo *p = ffm_pmapping_model_get_buffet (b->m, pb);
  const FfmBuffetInfo *h = hb >= 0 ? ffm_pmapping_model_get_buffet (b->m, hb) : NULL;
  guint above = loops_before (b, hnode), parent_above = loops_before (b, p->node);
  guint64 all = 0, temporal = 0, first = 0, first_t = 0, mc = 0, seg = 0;
  int pos[FFM_MAX_EINSUM_RANK_VARS];
  double prbw, pwbw, hrbw = 0, hwbw = 0;
  const FfmActionEnergies *pe = &p->energies, *he = h != NULL ? &h->energies : NULL;
  double ps = p->action_scale, hs = h != NULL ? h->action_scale : 0;
  gboolean h_skip, p_skip;

  for (guint j = 0; j < above; j++)
    {
      const FfmLoopInfo *l = &b->loops[j];
      gboolean relevant = FALSE;
      all |= BIT (j);
      for (guint r = 0; r < ffm_workload_get_tensor (b->w, b->e->accesses[access].tensor)->n_ranks; r++)
        {
          const FfmProjection *pr = &b->e->accesses[access].projections[r];
          if (pr->n_terms == 1 && pr->terms[0].var == l->rank_var)
            relevant = TRUE;
        }
      if (l->spatial)
        {
          first |= BIT (j);
          if (j >= parent_above)
            {
              if (!ffm_access_uses_var (b->e, access, l->rank_var)
                  && (b->may_reuse[l->fanout_dim] & BIT (access)))
                mc |= BIT (j);
              else
                seg |= BIT (j);
            }
        }
      else
        {
          temporal |= BIT (j);
          if (relevant)
            {
              first |= BIT (j);
              first_t |= BIT (j);
            }
        }
    }
  tile_positions (b, access, above, pos);
  level_bandwidths (b, p->level, &prbw, &pwbw);
  if (h != NULL)
    level_bandwidths (b, h->level, &hrbw, &hwbw);
  p_skip = ffm_arch_get_level (b->a, p->level)->u.memory.skip_initial_output_write;
  h_skip = h != NULL
    ? ffm_arch_get_level (b->a, h->level)->u.memory.skip_initial_output_write : TRUE;

  /* parent reads (serving h), unit reads */
  add_term (b, b->class_energy, ps * pe->read, all & ~mc, access, pos);
  if (!isinf (prbw))
    add_term (b, b->class_read[p->level], ps / prbw, temporal | seg, access, pos);
  if (h != NULL)
    {
      add_term (b, b->class_energy, hs * he->fill, all, access, pos);
      if (!isinf (hwbw))
        add_term (b, b->class_write[h->level], hs / hwbw, temporal, access, pos);
    }
  if (!output)
    return;
  if (h != NULL)
    {
      add_term (b, b->class_energy, hs * he->drain, all, access, pos);
      if (!isinf (hrbw) && h->drains_read)
        add_term (b, b->class_read[h->level], hs / hrbw, temporal, access, pos);
    }
  add_term (b, b->class_energy, ps * pe->update, all & ~mc, access, pos);
  if (!isinf (pwbw))
    add_term (b, b->class_write[p->level], ps / pwbw, temporal | seg, access, pos);
  if (h_skip)
    {
      if (h != NULL)
        {
          add_term (b, b->class_energy, -hs * he->fill, first, access, pos);
          if (!isinf (hwbw))
            add_term (b, b->class_write[h->level], -hs / hwbw, first_t, access, pos);
        }
      if (p_skip)
        {
          add_term (b, b->class_energy, -ps * pe->read, first & ~mc, access, pos);
          if (!isinf (prbw))
            add_term (b, b->class_read[p->level], -ps / prbw, first_t | seg, access, pos);
        }
    }
}

FfmTerms *
ffm_terms_build (const FfmWorkload *w, const FfmArch *a,
                 const FfmPmappingModel *m, guint objectives, guint n_fused,
                 gboolean remainders)
{
  Builder b = { 0 };
  FfmTerms *t;
  guint n_levels = ffm_arch_get_n_levels (a), n_path;
  guint n_buffets = ffm_pmapping_model_get_n_buffets (m);
  g_autofree guint *path = NULL;
  double leak = 0;
  const FfmLevel *compute;
  int pos[FFM_MAX_EINSUM_RANK_VARS];
  guint64 all = 0, temporal = 0;

  b.w = w;
  b.a = a;
  b.m = m;
  b.e = ffm_workload_get_einsum (w, ffm_pmapping_model_get_einsum (m));
  if (b.e->is_copy || n_levels > 64)
    return NULL;
  b.n_loops = ffm_pmapping_model_get_n_loops (m);
  for (guint j = 0; j < b.n_loops; j++)
    {
      b.loops[j] = *ffm_pmapping_model_get_loop (m, j);
      b.loop_node[j] = b.loops[j].node;
    }
  for (guint d = 0; d < ffm_pmapping_model_get_n_fanout_dims (m); d++)
    {
      const FfmFanoutDimInfo *f = ffm_pmapping_model_get_fanout_dim (m, d);
      if (!ffm_arch_fanout_reuse_masks (a, f->level, f->dim, w,
                                        ffm_pmapping_model_get_einsum (m), NULL,
                                        &b.may_reuse[d], NULL))
        return NULL;
    }
  for (guint l = 0; l < n_levels; l++)
    leak += ffm_arch_get_level (a, l)->leak_power
      * (double) ffm_arch_get_instances_above (a, l);

  t = g_new0 (FfmTerms, 1);
  t->classes = g_array_new (FALSE, FALSE, sizeof (FfmTermClass));
  t->terms = g_array_new (FALSE, FALSE, sizeof (FfmTerm));
  t->leak = leak > 0;
  b.terms = t;
  b.need_latency = (objectives & FFM_PMAPPING_LATENCY) || leak > 0;
  b.class_energy = (objectives & FFM_PMAPPING_ENERGY)
    ? (int) add_class (t, FFM_TERM_ENERGY, 0, 0) : -1;
  path = ffm_arch_get_compute_path (a, ffm_pmapping_model_get_compute_level (m), &n_path);
  for (guint l = 0; l < 64; l++)
    b.class_read[l] = b.class_write[l] = -1;
  for (guint p = 0; p < n_path; p++)
    {
      const FfmLevel *l = ffm_arch_get_level (a, path[p]);
      if (l->kind != FFM_LEVEL_MEMORY || !b.need_latency)
        continue;
      if (l->u.memory.read_bandwidth <= 0 || l->u.memory.write_bandwidth <= 0)
        {
          ffm_terms_free (t);
          return NULL;
        }
      if (l->u.memory.ports == FFM_PORTS_SEPARATE)
        {
          b.class_read[path[p]] = add_class (t, FFM_TERM_LATENCY, path[p], 0);
          b.class_write[path[p]] = add_class (t, FFM_TERM_LATENCY, path[p], 1);
        }
      else
        b.class_read[path[p]] = b.class_write[path[p]] =
          add_class (t, FFM_TERM_LATENCY, path[p], 0);
    }

  /* Transfers of every tensor's view. */
  for (guint ac = 0; ac < b.e->n_accesses; ac++)
    {
      int parent = -1;
      gboolean output = ac == b.e->output_access;
      for (guint bf = 0; bf < n_buffets; bf++)
        {
          const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (m, bf);
          if (info->access != ac)
            continue;
          if (parent >= 0)
            add_transfer (&b, ac, output, bf, info->node, parent);
          parent = bf;
        }
      if (parent >= 0)
        add_transfer (&b, ac, output, -1, ffm_pmapping_model_get_n_nodes (m) - 1,
                      parent);
    }

  /* Compute: operations and steps. */
  compute = ffm_arch_get_level (a, ffm_pmapping_model_get_compute_level (m));
  for (guint j = 0; j < b.n_loops; j++)
    {
      all |= BIT (j);
      if (!b.loops[j].spatial)
        temporal |= BIT (j);
    }
  for (guint v = 0; v < b.e->n_rank_vars; v++)
    pos[v] = -2;
  add_monomial (&b, b.class_energy, compute->u.compute.energy, all, pos);
  /* No term for the compute unit's latency with tiles that divide: its
   * steps are the operations divided by the product of all spatial
   * iteration counts, i.e. by the fanout usages, which the tile search
   * only compares between partial vectors that end with equal usages: it
   * is the same for every vector compared. With remainder tiles the
   * busiest instance's steps are not that quotient (7 points over 4
   * instances in tiles of 2: 2 steps, not 7 / 4), so they get their term:
   * the temporal loops summed, the spatial ones at instance 0. */
  if (b.need_latency && compute->u.compute.throughput <= 0)
    {
      ffm_terms_free (t);
      return NULL;
    }
  if (b.need_latency && remainders)
    add_monomial (&b, add_class (t, FFM_TERM_LATENCY,
                             ffm_pmapping_model_get_compute_level (m), 0),
              1 / compute->u.compute.throughput, temporal, pos);

  /* Occupancy of every buffet of a memory of finite size, by lifetime:
   * reservations below every fused loop all have the deepest lifetime
   * depth whatever the tiles, so they share one class. */
  for (guint bf = 0; bf < n_buffets; bf++)
    {
      const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (m, bf);
      guint nla = info->n_loops_above < 0 ? 0 : (guint) info->n_loops_above;
      if (!isfinite (ffm_pmapping_model_get_level_size (m, info->level)))
        continue;
      tile_positions (&b, info->access, nla, pos);
      add_term (&b, add_class (t, FFM_TERM_OCCUPANCY, info->level,
                               info->persistent ? -1 : (int) MIN (nla, n_fused)),
                info->bits_per_value, 0, info->access, pos);
    }
  if (b.inexpressible)
    {
      ffm_terms_free (t);
      return NULL;
    }
  return t;
}

void
ffm_terms_free (FfmTerms *t)
{
  if (t == NULL)
    return;
  g_array_free (t->classes, TRUE);
  g_array_free (t->terms, TRUE);
  g_free (t);
}

double
ffm_terms_var_factor (guint64 bound, const guint64 *chain, const guint *loops,
                      guint n, guint64 mask, int pos)
{
  guint8 modes[FFM_COST_MAX_LOOPS] = { 0 };
  guint64 count = 1, extent = bound;
  gboolean ovf = FALSE, divides = TRUE;

  /* Tiles that divide their enclosing tiles (the perfect model, every
   * chain without remainders): one block at every depth, so the count is
   * the product of the summed loops' iterations and the extent that
   * count times the last tile walked, what ffm_chain_walk() gives, at a
   * tenth of its cost (the tile search computes this for every chain of
   * every variable of every template). */
  for (guint i = 0; i < n && divides; i++)
    {
      if (pos >= 0 && (int) loops[i] > pos)
        break;
      if (chain[i] == 0 || extent % chain[i] != 0)
        divides = FALSE;
      else
        {
          if (mask & BIT (loops[i]))
            count *= extent / chain[i];
          extent = chain[i];
        }
    }
  if (divides)
    return pos >= 0 ? (double) (count * extent) : (double) count;

  for (guint i = 0; i < n; i++)
    modes[i] = pos >= 0 && (int) loops[i] > pos ? FFM_CHAIN_SKIP
      : (mask & BIT (loops[i])) ? FFM_CHAIN_SUM : FFM_CHAIN_FIX;
  ffm_chain_walk (bound, chain, modes, n, &count, &extent, &ovf);
  return pos >= 0 ? (double) extent : (double) count;
}

/* Value of every class at complete tiles @tiles (for checks). */
void
ffm_terms_evaluate (const FfmTerms *t, const FfmPmappingModel *m,
                    const guint64 *bounds, const guint64 *tiles, double *out)
{
  guint n_loops = ffm_pmapping_model_get_n_loops (m);
  guint var_loops[FFM_MAX_EINSUM_RANK_VARS][FFM_COST_MAX_LOOPS];
  guint64 chains[FFM_MAX_EINSUM_RANK_VARS][FFM_COST_MAX_LOOPS];
  guint var_n[FFM_MAX_EINSUM_RANK_VARS] = { 0 };

  for (guint j = 0; j < n_loops; j++)
    {
      guint v = ffm_pmapping_model_get_loop (m, j)->rank_var;
      chains[v][var_n[v]] = tiles[j];
      var_loops[v][var_n[v]++] = j;
    }
  for (guint c = 0; c < t->classes->len; c++)
    out[c] = 0;
  for (guint i = 0; i < t->terms->len; i++)
    {
      const FfmTerm *term = &g_array_index (t->terms, FfmTerm, i);
      double v = term->coef;
      for (guint r = 0; r < FFM_MAX_EINSUM_RANK_VARS; r++)
        if (var_n[r] > 0)
          v *= ffm_terms_var_factor (bounds[r], chains[r], var_loops[r], var_n[r],
                                     term->mask, term->pos[r]);
      out[term->cls] += v;
    }
}
