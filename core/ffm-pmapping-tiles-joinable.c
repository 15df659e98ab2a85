/* ffm-pmapping-tiles-joinable.c: the joinable parts of shared tensors
 * (options.drop_unjoinable) in the tile search (ffm-pmapping-tiles.c):
 * partial and complete tile vectors whose part no other Einsum agrees
 * with are dropped as soon as their fused tiles fix it. */
#include "ffm-pmapping-private.h"
#include "ffm-joinable-parts-private.h"
#include "ffm-tile-chain-private.h"
#include <ffm/ffm-join.h>

#include <string.h>

/* ---- Joinable parts (options.drop_unjoinable) ----
 *
 * A shared tensor's part (ffm-joinable-parts-private.h) is fixed by the
 * tiles of the fused loops above its backing node; once the search has
 * chosen them (at jt->depth), a partial vector whose part the tensor's
 * list lacks is dropped with everything below it: no completion changes
 * the part, and pruning compares only vectors of one diff (hence one
 * part), so no other vector's fate depends on it. Leaves are checked
 * again from their compatibility (every search path goes through
 * tiles_leaf()); the check mode holds the two computations to each other. */

/* Which shared tensors have a list, and what their parts are made of. */
static void
joinable_setup (FfmTileSearch *en)
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
part_loop (const FfmTileSearch *en, const struct JoinableTensor *jt, guint j, guint64 count,
           guint64 tile, FfmPartLoop *out)
{
  out->rank = jt->rank[j];
  out->spatial = en->loops[j].spatial ? 1 : 0;
  out->fanout_level = jt->fanout_level[j];
  out->fanout_dim = jt->fanout_dim[j];
  out->count = count;
  out->tile = tile;
}

void
tiles_joinable_free_projections (FfmTileSearch *en)
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
joinable_chains (FfmTileSearch *en)
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
void
tiles_joinable_depths (FfmTileSearch *en)
{
  tiles_joinable_free_projections (en);
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
joinable_part (const FfmTileSearch *en, const struct JoinableTensor *jt, const guint64 *tiles,
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

/* Whether every joinable tensor checked at depth @depth has, at @tiles,
 * a part (or at a projection's depth, loops over the ranks chosen so far)
 * its list has. */
gboolean
tiles_joinable_ok_at (const FfmTileSearch *en, const guint64 *tiles, guint depth)
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
gboolean
tiles_joinable_template_ok (FfmTileSearch *en)
{
  joinable_setup (en);
  for (guint i = 0; i < en->n_jt; i++)
    en->jt[i].depth = en->jt[i].prefix == 0 ? 0 : G_MAXUINT;
  /* Before the search orders are chosen: they count the live chains (the
   * order decides which of two pmappings of equal cost a group keeps, so
   * every process of an MPI run has the same lists: ffm-pmapping-jobs.h). */
  joinable_chains (en);
  if (tiles_joinable_ok_at (en, en->tiles, 0))
    return TRUE;
  en->n_unjoinable++;
  return FALSE;
}

/* Whether the compatibility in en->compat (a leaf's) has, for every
 * joinable tensor, a part its list has. The check mode compares each
 * part with the one the tiles give. */
gboolean
tiles_joinable_leaf_ok (FfmTileSearch *en)
{
  gboolean ok = TRUE;

  for (guint i = 0; i < en->n_jt; i++)
    {
      const struct JoinableTensor *jt = &en->jt[i];
      guint64 part = ffm_joinable_part_of_compat (en->info.workload, en->e,
                                                  &en->compat, jt->shared, NULL);
      if (TILES_CHECKING (en) && part != joinable_part (en, jt, en->tiles, G_MAXUINT))
        g_warning ("joinable parts: template %u, tensor access %u: the leaf's "
                   "compatibility and its tiles give different parts", en->t->id,
                   jt->access);
      if (!ffm_joinable_parts_allows (en->joinable, jt->access, part))
        ok = FALSE;
    }
  return ok;
}
