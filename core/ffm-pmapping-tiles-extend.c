/* ffm-pmapping-tiles-extend.c: one depth of the breadth-first tile search
 * (ffm-pmapping-tiles.c): each row of a table extended by every chain of
 * the depth's variable that passes the bounds (buckets, fused loops,
 * fanout, minimum usage, capacity, joinable parts), its children's units
 * summed from its own; at the last depth, children that a leaf taken in
 * an earlier chunk beats are not written (bucket bounds, the taken-leaf
 * store: ffm-pmapping-tiles-taken.c). */
#include "ffm-pmapping-private.h"
#include "ffm-tile-chain-private.h"
#include "ffm-workload-private.h"

#include <math.h>
#include <string.h>

/* Whether a joinable tensor is checked at depth @depth: all its loops are
 * chosen there, or the list has a projection for it. */
static gboolean
joinable_checked_at (const struct JoinableTensor *jt, guint depth)
{
  return jt->depth == depth || (depth < jt->depth && jt->proj[depth] != NULL);
}

/* affine_values() from affine_occupancy_split() for @b, as tiles_capacity_ok()
 * computes it: every variable's tile and ffm_access_tile_values()
 * (FFM_DEBUG=check-terms compares the two). */
static guint64
affine_values_slowly (FfmTileSearch *en, guint b, guint k, gboolean trivial_fused)
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

/* tiles_table_extend()'s occupancy bound of (non-affine) buffet @b without
 * depth @k's variable v, computed as it was before it was split into a
 * part no row changes and the row's tiles: every variable's tile in turn
 * (FFM_DEBUG=check-terms compares the two; integer products as
 * doubles, exact below 2^53, so the order does not matter). */
static void
occupancy_base_checked (FfmTileSearch *en, guint k, guint b, double fast, double fast_forced)
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
affine_occupancy_split (const FfmTileSearch *en, guint b, guint k, gboolean trivial_fused,
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

/* Writes a new row's units (dv, dm) at depth @k + 1: each sums its group
 * of the parent's units (src, src_mag) times the chain's factors @phi
 * (gather_unit). @with_slots (a constant where it is called, so each
 * copy's loop stays tight): also the row's leaf slots into @slots, as
 * tiles_leaf_slots() sums them, in the same order. */
static inline void
gather_row (const FfmTileSearch *en, guint k, const double *src, const double *src_mag,
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
child_diff (const FfmTileSearch *en, guint k, const guint64 *src_diff, const guint64 *chain,
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
 * tiles_taken_store_dominates() would find, and the group's chains are not
 * visited. Slots whose units get the same phi from every chain of the
 * group are the children's exactly and compare as unit_dominates() does,
 * equality included. The check mode visits the chains anyway and warns
 * about any child the store does not dominate or whose diff differs. */

/* Makes the groups of bucket_bounds for the last depth's variable. */
static void
bucket_bounds (FfmTileSearch *en)
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
  en->group_record = g_new (guint32, (gsize) GROUP_RECORD_SLOTS * MAX (ng, 1));
  en->group_record_stamp = g_new0 (guint32, (gsize) GROUP_RECORD_SLOTS * MAX (ng, 1));
  en->group_record_epoch = 0;
  en->n_bound_groups = ng;
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
bucket_bound_slots (const FfmTileSearch *en, guint g, const double *src, const double *src_mag,
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

/* TUNING: a group's bound is held to the first this many leaves of its
 * diff's list, not to all of them: the leaf that beats it is nearly always
 * among the first (those that beat a bound or a row move to the front),
 * while a bound none beats walked the whole list. A group not cut is only
 * visited chain by chain. Gemmini x GPT-3 6.7B b1/2048 (2 threads): 5.0 G
 * leaves walked for 239 M bounds, 123 CPU-s; at most 32: 1.3 G, 118 s;
 * 8: 0.53 G, 105 s; 4: 0.35 G but 114 s (bounds found late are children
 * to visit). The rows' own check (tiles_taken_store_dominates()) walks
 * the whole list: capped at 8 or 32, more leaves were evaluated and the
 * search took longer. Since the leaves of a large diff are laid out flat
 * (ffm-pmapping-tiles-taken.c) the cap is on the leaves listed since;
 * those laid out are filtered whole, as the rows' check does. */
#define BOUND_WALK_LEAVES 8u

/* Whether a taken leaf of @record beats the bound @slots of group @g in
 * every slot (tiles_bound_beaten_by()): the leaf that answered last, the
 * leaves laid out (their float values filter), then the first
 * BOUND_WALK_LEAVES listed since, the one that does moving to the front
 * of the list as tiles_taken_store_dominates() moves its dominators. */
static gboolean
bound_dominated (FfmTileSearch *en, guint32 record, guint g, const double *slots)
{
  guint ns = en->n_leaf_slots, walked = 0;
  const guint8 *exact = en->group_slot_exact + (gsize) g * ns;
  guint32 *next = en->taken.leaf_next.data;
  guint32 *first = (guint32 *) en->taken.first.data + (record - 1);
  const double *stored = en->taken.slots.data;
  const double *least = (const double *) en->taken.least.data + (gsize) (record - 1) * ns;
  TakenSegment *s = (TakenSegment *) en->taken.segments.data + (record - 1);

  for (guint x = 0; x < ns; x++)
    if (slots[2 * x] < least[x])
      return FALSE;
  if (taken_hot_or_flat (en, s, slots, exact))
    return TRUE;
  for (guint32 e = *first, prev = 0; e != 0 && walked++ < BOUND_WALK_LEAVES;
       prev = e, e = next[e - 1])
    if (tiles_bound_beaten_by (stored + (gsize) (e - 1) * 2 * ns, slots, exact, ns))
      {
        if (prev != 0)
          {
            next[prev - 1] = next[e - 1];
            next[e - 1] = *first;
            *first = e;
          }
        s->hot = e;
        return TRUE;
      }
  return FALSE;
}

/* ---- Extending a table ---- */

/* What tiles_table_extend() keeps while it extends the rows of one table:
 * the depth's constants, then what the chains of the row being extended
 * share. */
typedef struct {
  guint k, v, nu, nu2, nd, nl;      /* the depth, its variable, the units
                                       of its rows and of their children,
                                       v's descriptors and loops */
  const Table *in;
  Table *out;
  FfmTileWorkspace *ws;
  gsize room;       /* rows that @out and the scratch hold without growing
                       (capacities only grow while extending) */
  /* Complete rows a leaf taken in an earlier chunk dominates are dropped
   * as tiles_search_leaves() would drop them, before they are sorted. */
  gboolean against_taken;
  guint64 record_diff[MAX_LOOPS + MAX_DIMS];
  guint32 record;                    /* the child's (record_diff's when valid) */
  gboolean record_diff_valid;
  /* The bucket bounds' record of a group's diff is a function of the
   * parent's diff (the group's fused tiles and the bucket's spatial
   * products added): rows of one diff share them, looked up once per
   * group and parent diff while the slot of that diff lasts
   * (en->group_record). */
  gboolean group_record_slot_valid;
  guint group_record_slot;                           /* the row's diff's */
  guint64 slot_diff[GROUP_RECORD_SLOTS][MAX_LOOPS + MAX_DIMS];
  guint32 slot_epoch[GROUP_RECORD_SLOTS];            /* 0: free */
  gboolean group_records;            /* the bucket's groups' records are
                                        looked up (in group_slot_records):
                                        its children's too */
  const guint32 *group_slot_records;
  /* The buckets that pass at the row's spatial products and fused loops
   * (tiles_passing_buckets()), kept while consecutive rows share them (rows of
   * one diff do): testing every bucket for every row was 13 % of GPT-3
   * V's instructions at unlimited fused loops. */
  struct Survivors *passing;
  guint64 passing_used[MAX_DIMS];
  guint passing_fused;               /* G_MAXUINT: none yet */
  /* The occupancy bounds' part that no row changes (the variables after
   * v at their smallest tiles, variables without loops at their bounds,
   * the bits), and per buffet the loops whose tiles the row sets: */
  double const_occ[MAX_BUFFETS], const_forced[MAX_BUFFETS];
  guint occ_buffet[MAX_BUFFETS], occ_first[MAX_BUFFETS + 1];
  guint occ_loop[MAX_BUFFETS * MAX_VARS * RANKS];  /* var_exp <= RANKS */
  guint n_occ;
  /* The joinable tensors whose last fused tile this depth chooses: their
   * parts are checked once per distinct diff prefix (consecutive rows
   * mostly share it). */
  guint joinable_prefix;
  guint64 joinable_seen[MAX_LOOPS];
  gboolean joinable_seen_valid, joinable_seen_ok;
  /* The row being extended: */
  const double *src, *src_mag;
  const guint64 *src_diff;
  const guint32 *src_chains;
  guint kids;                        /* its children start here in @out */
  double base_occ[MAX_BUFFETS];      /* the other variables at their smallest */
  double base_forced[MAX_BUFFETS];   /* same, with their fused loops trivial */
  /* and of buffets with an affine index, split for v (affine_split()): */
  guint64 affine_occ[MAX_BUFFETS][RANKS + 1], affine_forced[MAX_BUFFETS][RANKS + 1];
  gboolean affine_split_done[2];
} Extension;

/* How extend_bucket() ended. */
typedef enum {
  EXTEND_DONE,                      /* every chain of the bucket is done */
  EXTEND_FULL,                      /* the chunk is full: the row goes into
                                       the next one */
  EXTEND_OUT_OF_MEMORY,             /* the row's first child does not fit */
} ExtendStatus;

/* The constants of depth x->k: the passing buckets' list, the occupancy
 * bounds' part that no row changes, and the joinable tensors checked. */
static inline void
extend_begin (FfmTileSearch *en, Extension *x)
{
  guint k = x->k, v = x->v, n_occ = 0, n_occ_loops = 0;

  x->room = 0;
  x->against_taken = k + 1 == en->n_vars && tiles_taken_store_on (en);
  /* the leaves taken since the last extension, flat with the others */
  if (x->against_taken)
    tiles_taken_store_flatten (en);
  x->record = 0;
  x->record_diff_valid = FALSE;
  x->group_record_slot_valid = FALSE;
  x->group_records = FALSE;
  /* the store has grown since the last extension */
  memset (x->slot_epoch, 0, sizeof x->slot_epoch);
  x->passing = &en->survivors[en->n_vars + 1];
  x->passing_fused = G_MAXUINT;
  x->joinable_prefix = 0;
  x->joinable_seen_valid = FALSE;
  x->joinable_seen_ok = TRUE;
  for (guint i = 0; i < en->n_jt; i++)
    if (joinable_checked_at (&en->jt[i], k + 1))
      x->joinable_prefix = MAX (x->joinable_prefix, en->jt[i].prefix);

  tiles_survivor_lists (en);
  for (guint b = 0; b < en->n_buffets; b++)
    {
      if (en->buffet_memory[b] < 0 || en->buffet_affine[b])
        continue;
      x->const_occ[b] = x->const_forced[b] = en->buffet_bits[b];
      x->occ_buffet[n_occ] = b;
      x->occ_first[n_occ++] = n_occ_loops;
      for (guint q = 0; q < en->n_vars; q++)
        {
          guint u = en->order[q];
          int j = en->res_loop[b][u];
          for (guint i = 0; i < en->var_exp[b][u] && u != v; i++)
            if ((q < k || en->var_n_loops[u] == 0) && j >= 0)
              x->occ_loop[n_occ_loops++] = (guint) j;
            else if (q < k || en->var_n_loops[u] == 0)
              {
                x->const_occ[b] *= (double) en->bounds[u];
                x->const_forced[b] *= (double) en->bounds[u];
              }
            else
              {
                x->const_occ[b] *= (double) smallest_tile (en, b, u, FALSE);
                x->const_forced[b] *= (double) smallest_tile (en, b, u, TRUE);
              }
        }
    }
  x->occ_first[n_occ] = n_occ_loops;
  x->n_occ = n_occ;
}

/* Starts row @r of x->in: en->tiles, the row's spatial products and fused
 * count (depth k), its occupancy bounds without v's factor, and the
 * buckets that pass. */
static inline void
extend_row_begin (FfmTileSearch *en, Extension *x, guint r)
{
  guint k = x->k;
  struct Survivors *passing = x->passing;

  x->src = TABLE_VALS (x->in) + (gsize) r * x->nu;
  x->src_mag = TABLE_MAGS (x->in) + (gsize) r * x->nu;
  x->src_diff = TABLE_DIFF (x->in) + (gsize) r * en->n_diff;
  x->src_chains = TABLE_CHAINS (x->in) + (gsize) r * en->n_vars;
  x->kids = x->out->n_rows;
  x->affine_split_done[0] = x->affine_split_done[1] = FALSE;

  en->out->n_partial++;
  tiles_restore_row (en, x->in, r, k);
  /* spatial products and fused count of the row */
  en->fused[k] = 0;
  for (guint d = 0; d < en->n_dims; d++)
    en->used[k][d] = x->src_diff[en->n_fused + d];
  for (guint j = 0; j < en->n_fused; j++)
    if (x->src_diff[j] != 0)
      {
        const FfmLoopInfo *l = &en->loops[j];
        guint64 enclosing = l->enclosing >= 0 ? en->tiles[l->enclosing]
          : en->bounds[l->rank_var];
        if (ffm_chain_iterations (enclosing, en->tiles[j]) > 1)
          en->fused[k]++;
      }
  /* Occupancy lower bounds without variable v's factor: the row's
   * tiles times the part no row changes (const_occ, const_forced). */
  for (guint i = 0; i < x->n_occ; i++)
    {
      guint b = x->occ_buffet[i];
      double tiles = 1;
      for (guint j = x->occ_first[i]; j < x->occ_first[i + 1]; j++)
        tiles *= (double) en->tiles[x->occ_loop[j]];
      x->base_occ[b] = x->const_occ[b] * tiles;
      x->base_forced[b] = x->const_forced[b] * tiles;
      if (TILES_CHECKING (en))
        occupancy_base_checked (en, k, b, x->base_occ[b], x->base_forced[b]);
    }
  if (x->passing_fused == en->fused[k]
      && memcmp (x->passing_used, en->used[k], sizeof (guint64) * en->n_dims) == 0)
    {
      if (!en->relaxed)
        en->usage_rejected += passing->unreachable;
    }
  else
    {
      tiles_passing_buckets (en, k, passing);
      x->passing_fused = en->fused[k];
      memcpy (x->passing_used, en->used[k], sizeof (guint64) * en->n_dims);
    }
}

/* Bucket bounds for bucket @b of v at the row: sets en->group_cut of each
 * group of its chains whose children a taken leaf all beats (bucket
 * bounds, above), *@group0 to its first group and *@n_cut to the groups
 * cut. FALSE when every group is cut (and the check mode, which visits
 * them and holds every child to that, is off): the bucket is skipped. */
static inline gboolean
extend_bucket_bounds (FfmTileSearch *en, Extension *x, guint b, guint *group0,
                      guint *n_cut)
{
  guint n_groups, nl = x->nl;

  *group0 = *n_cut = 0;
  x->group_records = FALSE;
  if (!(x->against_taken && en->bucket_bounds_on && en->taken.n > 0))
    return TRUE;
  if (en->group_phi == NULL)
    bucket_bounds (en);
  /* a parent of another diff: every group's record looked up anew (the
   * store does not grow while extending) */
  if (!x->group_record_slot_valid
      || !diff_equal (x->src_diff, x->slot_diff[x->group_record_slot], en->n_diff))
    {
      guint slot = (guint) hash_diff (x->src_diff, en->n_diff) & (GROUP_RECORD_SLOTS - 1);
      x->group_record_slot_valid = TRUE;
      x->group_record_slot = slot;
      if (x->slot_epoch[slot] == 0
          || !diff_equal (x->src_diff, x->slot_diff[slot], en->n_diff))
        {
          /* the slot's records are another diff's, or none: a new epoch */
          if (++en->group_record_epoch == 0)
            {
              memset (en->group_record_stamp, 0,
                      sizeof (guint32) * GROUP_RECORD_SLOTS * en->n_bound_groups);
              memset (x->slot_epoch, 0, sizeof x->slot_epoch);
              en->group_record_epoch = 1;
            }
          x->slot_epoch[slot] = en->group_record_epoch;
          if (en->n_diff > 0)
            memcpy (x->slot_diff[slot], x->src_diff, sizeof (guint64) * en->n_diff);
        }
    }
  *group0 = en->bucket_group_first[b];
  n_groups = en->bucket_group_first[b + 1] - *group0;
  guint32 *records = en->group_record + (gsize) x->group_record_slot * en->n_bound_groups;
  guint32 *stamps = en->group_record_stamp + (gsize) x->group_record_slot * en->n_bound_groups;
  guint32 epoch = x->slot_epoch[x->group_record_slot];
  x->group_slot_records = records;
  for (guint g = 0; g < n_groups; g++)
    {
      guint32 grecord;
      en->group_cut[g] = FALSE;
      if (stamps[*group0 + g] == epoch)
        grecord = records[*group0 + g];
      else
        {
          guint64 gdiff[MAX_LOOPS + MAX_DIMS];
          const guint64 *chain = nl > 0
            ? &g_array_index (en->chains[x->v], guint64,
                              (gsize) en->group_chain[*group0 + g] * nl) : NULL;
          child_diff (en, x->k, x->src_diff, chain, gdiff);
          grecord = tiles_taken_store_record (en, gdiff, hash_diff (gdiff, en->n_diff));
          records[*group0 + g] = grecord;
          stamps[*group0 + g] = epoch;
        }
      x->group_records = TRUE;
      if (grecord != 0)
        {
          double gslots[2 * MAX_VARS * 64];
          bucket_bound_slots (en, *group0 + g, x->src, x->src_mag, gslots);
          en->group_cut[g] = bound_dominated (en, grecord, *group0 + g, gslots);
          en->bucket_bound_tests++;
          *n_cut += en->group_cut[g];
        }
    }
  en->bucket_bound_cuts += *n_cut;
  return !(*n_cut == n_groups && !TILES_CHECKING (en));
}

/* Whether chain @c of v, whose tiles are in en->tiles, fits every memory
 * by the occupancy bounds (@forced: the fused-loop budget is spent); a
 * rejection is recorded where it does not. */
static inline gboolean
extend_chain_fits (FfmTileSearch *en, const Extension *x, guint c, gboolean forced)
{
  guint v = x->v;
  const double *base = forced ? x->base_forced : x->base_occ;
  const guint64 (*affine)[RANKS + 1] = forced ? x->affine_forced : x->affine_occ;
  const double *factor = en->chain_occ[v] + (gsize) c * en->n_buffets;

  for (guint q = 0; q < en->n_memories; q++)
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
          if (TILES_CHECKING (en) && values != affine_values_slowly (en, b, x->k, forced))
            g_warning ("table_extend: template %u, depth %u, chain %u, buffet %u: "
                       "%" G_GUINT64_FORMAT " values, ffm_access_tile_values() "
                       "says otherwise", en->t->id, x->k, c, b, values);
          occ += (double) values * en->buffet_bits[b];
        }
      if (occ > en->capacity[q])
        {
          tiles_reject_at (en, en->memories[q], occ, en->capacity[q]);
          return FALSE;
        }
    }
  return TRUE;
}

/* Whether the child whose diff is @diff has, for every joinable tensor
 * checked at this depth, a part its list has (asked again only when the
 * diff's prefix changes); counted when not. */
static inline gboolean
extend_child_joinable (FfmTileSearch *en, Extension *x, const guint64 *diff)
{
  if (!x->joinable_seen_valid
      || memcmp (x->joinable_seen, diff, sizeof (guint64) * x->joinable_prefix) != 0)
    {
      memcpy (x->joinable_seen, diff, sizeof (guint64) * x->joinable_prefix);
      x->joinable_seen_ok = tiles_joinable_ok_at (en, diff, x->k + 1);
      x->joinable_seen_valid = TRUE;
    }
  if (!x->joinable_seen_ok)
    {
      en->n_unjoinable++;
      return FALSE;
    }
  return TRUE;
}

/* Writes the child of the row through chain @c (its diff written already)
 * as the next row of x->out, unless a leaf taken in an earlier chunk
 * dominates it: FALSE then. @bound_cut (check mode): bucket bounds cut the
 * chain's group, of bucket @b. */
static inline gboolean
extend_write_child (FfmTileSearch *en, Extension *x, guint c, guint b, gboolean bound_cut)
{
  Table *out = x->out;
  guint nu2 = x->nu2;
  const double *phi = &en->phi[x->k][(gsize) c * x->nd];
  guint32 *chains;
  /* A complete row whose diff has leaves taken in earlier chunks is
   * compared with them. Consecutive chains mostly share their fused tiles,
   * so the diff's record is looked up again only when the diff changes
   * (the store does not grow while extending). */
  gboolean against_record = FALSE;
  if (x->group_records)
    {
      x->record = x->group_slot_records[en->chain_group[c]];
      x->record_diff_valid = FALSE;
      against_record = x->record != 0;
    }
  else if (x->against_taken && en->taken.n > 0)
    {
      const guint64 *diff = en->n_diff > 0
        ? TABLE_DIFF (out) + (gsize) out->n_rows * en->n_diff : NULL;
      if (!x->record_diff_valid || !diff_equal (diff, x->record_diff, en->n_diff))
        {
          if (en->n_diff > 0)
            memcpy (x->record_diff, diff, sizeof (guint64) * en->n_diff);
          x->record = tiles_taken_store_record (en, diff, hash_diff (diff, en->n_diff));
          x->record_diff_valid = TRUE;
        }
      against_record = x->record != 0;
    }
  /* The new row, written in place: each unit of depth k+1 sums its group
   * of depth k's units (gather_unit); against a record, its slots are
   * summed on the way (as tiles_leaf_slots() does, in the same order). */
  {
    double *dv = TABLE_VALS (out) + (gsize) out->n_rows * nu2;
    double *dm = TABLE_MAGS (out) + (gsize) out->n_rows * nu2;
    double slots[2 * MAX_VARS * 64];
    /* two copies, each with its loop kept tight */
    if (against_record)
      gather_row (en, x->k, x->src, x->src_mag, phi, dv, dm, TRUE, slots);
    else
      gather_row (en, x->k, x->src, x->src_mag, phi, dv, dm, FALSE, NULL);
    if (x->against_taken && en->taken.n > 0)
      {
        gboolean dominated = against_record
          && tiles_taken_store_dominates (en, x->record, slots);
        if (TILES_CHECKING (en))
          {
            /* slots from the written row, and every leaf */
            tiles_leaf_slots (en, out, out->n_rows, slots);
            if (dominated != tiles_taken_store_dominates_slowly (
                  en, en->n_diff > 0 ? TABLE_DIFF (out) + (gsize) out->n_rows * en->n_diff
                  : NULL, slots))
              g_warning ("taken-leaf store: template %u answered %s for a "
                         "complete row, every leaf says otherwise",
                         en->t->id, dominated ? "dominated" : "not dominated");
            if (bound_cut && !dominated)
              g_warning ("bucket bounds: template %u cut the group of chain %u "
                         "(bucket %u) of a row at the last depth, but that "
                         "chain's row is not dominated", en->t->id, c, b);
          }
        if (dominated)
          {
            en->out->n_partial++;   /* as tiles_search_leaves() counts it */
            return FALSE;
          }
      }
  }
  chains = TABLE_CHAINS (out) + (gsize) out->n_rows * en->n_vars;
  memcpy (chains, x->src_chains, sizeof (guint32) * en->n_vars);
  chains[x->v] = c;
  out->n_rows++;
  return TRUE;
}

/* TUNING: a bucket is held to the front as one when it has this many
 * chains at least (a test costs about what one child's does); and once a
 * template has tested this many, only while the tests cut a quarter of a
 * chain each, or one bucket in BUCKET_TEST_SAMPLE to see whether they
 * have come to (the front grows). Simba-like x ResNet-50 lost 20 % on its
 * pointwise layers to tests that cut nothing. */
#define BUCKET_TEST_MIN_CHAINS 4
#define BUCKET_TEST_WARMUP 1024
#define BUCKET_TEST_SAMPLE 64

/* Whether to hold @bucket's children to the front as one (the tuning
 * above); deterministic: a template's own counts decide. */
static inline gboolean
bucket_test_worth (FfmTileSearch *en, const Bucket *bucket)
{
  if (bucket->n < BUCKET_TEST_MIN_CHAINS)
    return FALSE;
  return en->bucket_front_tests < BUCKET_TEST_WARMUP
    || 4 * en->bucket_front_cut >= en->bucket_front_tests
    || en->bucket_front_skipped++ % BUCKET_TEST_SAMPLE == 0;
}

/* Extends the row by every chain of its @xb-th passing bucket that passes
 * the bounds: its fused loops and spatial products, bucket bounds, the
 * joinable parts' chains, capacity, and the room the budget gives. */
static inline ExtendStatus
extend_bucket (FfmTileSearch *en, Extension *x, guint xb)
{
  guint k = x->k, v = x->v, nl = x->nl, b = x->passing->bucket[xb];
  const Bucket *bucket = &g_array_index (en->buckets[v], Bucket, b);
  guint fused = en->fused[k] + bucket->fused, group0, n_groups_cut;
  guint kids = x->kids, joinable_prefix = x->joinable_prefix;
  const guint64 *src_diff = x->src_diff;
  Table *out = x->out;

  for (guint d = 0; d < en->n_dims; d++)
    en->used[k + 1][d] = en->used[k][d] * bucket->prod[d];
  en->fused[k + 1] = fused;
  /* With the fused-loop budget spent, the variables still to choose have
   * trivial fused loops (see smallest_tile()). */
  gboolean forced = fused_budget (en, fused) == 0;
  guint64 (*affine)[RANKS + 1] = forced ? x->affine_forced : x->affine_occ;
  /* split when a chain first needs them (most rows have no chain past the
   * buckets' tests) */
  if (en->n_affine > 0 && !x->affine_split_done[forced])
    {
      for (guint a = 0; a < en->n_buffets; a++)
        if (en->affine_index[a] >= 0)
          affine_occupancy_split (en, a, k, forced, affine[en->affine_index[a]]);
      x->affine_split_done[forced] = TRUE;
    }
  /* A bucket whose every child a pmapping found beats (its chains' least
   * factors) is not visited. */
  if (en->front_phi != NULL && k + 1 < en->n_vars && bucket_test_worth (en, bucket))
    {
      en->bucket_front_tests++;
      if (tiles_incumbent_beats_bucket (en, x->src, src_diff, k, b))
        {
          en->bucket_front_cut += bucket->n;
          en->n_beaten += bucket->n;
          return EXTEND_DONE;
        }
    }
  /* The groups of the bucket's chains whose children a taken leaf all
   * beats (bucket bounds, above) are not visited. */
  if (!extend_bucket_bounds (en, x, b, &group0, &n_groups_cut))
    return EXTEND_DONE;
  for (guint c = bucket->first; c < bucket->first + bucket->n; c++)
    {
      const guint64 *chain = nl > 0
        ? &g_array_index (en->chains[v], guint64, (gsize) c * nl) : NULL;
      gboolean bound_cut = n_groups_cut > 0 && en->group_cut[en->chain_group[c] - group0];
      if (bound_cut && !TILES_CHECKING (en))
        continue;
      if (en->chain_dead[v] != NULL && en->chain_dead[v][c])
        {
          en->n_unjoinable++;
          continue;
        }
      for (guint i = 0; i < nl; i++)
        en->tiles[en->var_loops[v][i]] = chain[i];
      if (!extend_chain_fits (en, x, c, forced))
        continue;
      /* The table and the scratch that will prune it grow together, so
       * that a chunk the budget cut can still be pruned. */
      if ((gsize) out->n_rows + 1 > x->room)
        {
          if (!tiles_table_try_reserve (en, out, (gsize) out->n_rows + 1, x->nu2, kids == 0)
              || !tiles_prune_scratch_try_reserve (en, &x->ws->scratch, out->n_rows + 1,
                                                   x->nu2, kids == 0))
            return kids == 0 ? EXTEND_OUT_OF_MEMORY : EXTEND_FULL;
          x->room = tiles_rows_reserved (en, out, &x->ws->scratch, x->nu2);
        }
      if (en->n_diff > 0)
        child_diff (en, k, src_diff, chain,
                    TABLE_DIFF (out) + (gsize) out->n_rows * en->n_diff);
      if (joinable_prefix > 0
          && !extend_child_joinable (en, x, TABLE_DIFF (out) + (gsize) out->n_rows * en->n_diff))
        continue;
      extend_write_child (en, x, c, b, bound_cut);
    }
  return EXTEND_DONE;
}

/* Extends the rows of @in (depth @k) from *@next on by every feasible
 * chain of the depth's variable into @out, until @out holds @max_rows rows
 * or more, or the memory budget gives it no more (each row's children go
 * in whole: a row whose children do not fit is left for the next chunk);
 * *@next is then the first row not extended. Out of memory (FALSE) only
 * when one row's children alone do not fit. */
gboolean
tiles_table_extend (FfmTileSearch *en, const Table *in, guint k, Table *out, FfmTileWorkspace *ws,
                    guint *next, guint max_rows)
{
  Extension x;

  x.k = k;
  x.v = en->order[k];
  x.nu = en->n_units[k];
  x.nu2 = en->n_units[k + 1];
  x.nd = en->n_desc[k];
  x.nl = en->var_n_loops[x.v];
  x.in = in;
  x.out = out;
  x.ws = ws;
  extend_begin (en, &x);
  for (guint r = *next; r < in->n_rows && out->n_rows < max_rows; r++, *next = r)
    {
      if (search_interrupted (en))
        return FALSE;
      if (en->front_phi != NULL
          && tiles_incumbent_beats (en, in, r, k))
        continue;
      extend_row_begin (en, &x, r);
      for (guint xb = 0; xb < x.passing->n; xb++)
        switch (extend_bucket (en, &x, xb))
          {
          case EXTEND_OUT_OF_MEMORY:
            return FALSE;
          case EXTEND_FULL:
            out->n_rows = x.kids;   /* the chunk is full: this row next time */
            *next = r;
            return TRUE;
          case EXTEND_DONE:
            break;
          }
      /* The children of one row first compete among themselves: a
       * subset's dominated rows are dominated in the whole table too.
       * Not complete rows whose leaves tiles_search_leaves() prunes: it
       * compares them by the groups' few slots, which drops every row this
       * would (once the dominating row's leaf is valid) and far more, so
       * this pruning by every unit only cost time there (the 64-Einsum
       * matmul chain 32.1 -> 25.9 s, GPT-3 6.7B b64 10.0 -> 7.6 s; same
       * pmappings). */
      if (!(k + 1 == en->n_vars && leaves_pruned (en))
          && !tiles_table_prune (en, out, x.kids, x.nu2, en->unit_lex[k + 1], &ws->scratch))
        return FALSE;
      /* Children the pmappings found already beat are not kept: they
       * would be written, sorted and pruned with the table before being
       * dropped when it is extended. */
      if (en->front_phi != NULL && k + 1 < en->n_vars)
        {
          guint kept = x.kids;
          for (guint c = x.kids; c < out->n_rows; c++)
            if (!tiles_incumbent_beats (en, out, c, k + 1))
              {
                if (c != kept)
                  tiles_table_move_row (en, out, c, kept, x.nu2);
                kept++;
              }
          out->n_rows = kept;
        }
    }
  return TRUE;
}
