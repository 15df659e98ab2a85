/* ffm-pmapping-tiles-group-front.c: a template's own pmappings by their
 * fused tiles, the front the partial tile vectors of an Einsum of a
 * workload with several are held to (ffm-pmapping-tiles-incumbent.c says
 * why the test is sound). Each leaf a group takes joins the points of its
 * fused tiles (tiles_leaf()): its energy and latency as the model gives
 * them, and its bits in each occupancy class of a tracked memory (the
 * cost terms' classes, ffm-pmapping-terms.c, whose sums the groups'
 * reservation columns are); only Pareto points are kept. */
#include "ffm-pmapping-private.h"
#include <ffm/ffm-memory-budget.h>
#include <ffm/ffm-pareto.h>

#include <math.h>
#include <string.h>

/* TUNING: points a group front keeps per fused-tile key (Pareto points
 * only; a point past them is not added: fewer rows beaten, the same
 * result) and in all (each charged to the generation's budget). */
#define GROUP_FRONT_KEY_POINTS 32u
#define GROUP_FRONT_MAX_POINTS (1u << 16)

/* The occupancy classes a group front compares (at most one per unit). */
#define GROUP_FRONT_MAX_OCC 64u

struct GroupFront {
  GHashTable *points;       /* key (guint64 [1 + n_fused]: n_fused, the fused
                               tiles; owned) -> GArray of double: n_values
                               per point */
  guint n_fused;
  guint n_occ;              /* occupancy classes compared */
  guint n_values;           /* per point: energy, latency, each class's bits */
  guint occ_unit[GROUP_FRONT_MAX_OCC]; /* per class: its unit at the last depth */
  int buffet_occ[MAX_BUFFETS];  /* per buffet: its class, -1 when untracked */
  gboolean latency;         /* latency is a column of the groups */
  gboolean occ_exact;       /* every occupancy an integer number of bits
                               (integer bits per value): compared exactly */
  guint depth;              /* the first depth with every fused tile chosen */
  guint n_points;
  gsize charged;            /* bytes reserved from the budget */
  gboolean full;            /* the budget or the cap said no more */
  /* the list of the last row's fused tiles (rows of one diff come together) */
  guint64 last_key[MAX_LOOPS];
  GArray *last;
  gboolean last_valid;
};

static guint
group_key_hash (gconstpointer p)
{
  const guint64 *k = p;
  guint64 h = hash_diff (k + 1, (guint) k[0]);
  return (guint) (h ^ (h >> 32));
}

static gboolean
group_key_equal (gconstpointer a, gconstpointer b)
{
  const guint64 *x = a, *y = b;
  return x[0] == y[0] && diff_equal (x + 1, y + 1, (guint) x[0]);
}

void
tiles_group_front_free (FfmTileSearch *en)
{
  struct GroupFront *gf = en->group_front;

  if (gf == NULL)
    return;
  g_hash_table_destroy (gf->points);
  ffm_memory_budget_release (en->budget, gf->charged);
  g_free (gf);
  en->group_front = NULL;
}

/* The list of points of fused tiles @tiles, or NULL when there is none. */
static GArray *
group_front_lookup (struct GroupFront *gf, const guint64 *tiles)
{
  guint64 key[1 + MAX_LOOPS];

  if (gf->last_valid && diff_equal (gf->last_key, tiles, gf->n_fused))
    return gf->last;
  key[0] = gf->n_fused;
  if (gf->n_fused > 0)      /* (a table without a diff has no buffer) */
    {
      memcpy (key + 1, tiles, sizeof (guint64) * gf->n_fused);
      memcpy (gf->last_key, tiles, sizeof (guint64) * gf->n_fused);
    }
  gf->last = g_hash_table_lookup (gf->points, key);
  gf->last_valid = TRUE;
  return gf->last;
}

/* Sets up the group front (its comment at the top), or leaves it off:
 * latency or reservations it cannot bound (persistent tensors in a
 * tracked memory, a reservation above every loop), remainder tiles. */
void
tiles_group_front_setup (FfmTileSearch *en)
{
  struct GroupFront *gf;
  const FfmPmappingModel *m = en->m;
  guint nu = en->n_units[en->n_vars];
  guint64 fused_vars = 0, chosen = 0;
  const char *why = NULL;

  if (en->remainders || !(en->opt->objectives & FFM_PMAPPING_ENERGY)
      || FFM_PMAPPING_TRACK_ALL_MEMORIES (en->opt) || en->n_fused > MAX_LOOPS)
    return;
  gf = g_new0 (struct GroupFront, 1);
  gf->n_fused = en->n_fused;
  gf->latency = (en->opt->objectives & FFM_PMAPPING_LATENCY) != 0;
  gf->occ_exact = TRUE;
  for (guint u = 0; u < nu; u++)
    {
      const FfmTermClass *c = &g_array_index (en->terms->classes, FfmTermClass,
                                              en->leaf_unit_class[u]);
      gboolean tracked = FALSE;
      if (c->kind != FFM_TERM_OCCUPANCY)
        continue;
      for (guint q = 0; q < en->info.n_memories; q++)
        tracked |= en->info.memories[q] == c->level;
      if (!tracked)
        continue;
      for (guint i = 0; i < gf->n_occ; i++)
        {
          const FfmTermClass *o = &g_array_index (en->terms->classes, FfmTermClass,
                                                  en->leaf_unit_class[gf->occ_unit[i]]);
          if (o->level == c->level && o->nla == c->nla)
            {
              why = "two units of one occupancy class";
              goto off;
            }
        }
      if (gf->n_occ == GROUP_FRONT_MAX_OCC)
        {
          why = "too many occupancy classes";
          goto off;
        }
      gf->occ_unit[gf->n_occ++] = u;
    }
  for (guint b = 0; b < en->n_buffets; b++)
    {
      const FfmBuffetInfo *bi = ffm_pmapping_model_get_buffet (m, b);
      gboolean tracked = FALSE;
      gf->buffet_occ[b] = -1;
      for (guint q = 0; q < en->info.n_memories; q++)
        tracked |= en->info.memories[q] == bi->level;
      if (!tracked)
        continue;
      /* the groups put these at depth -1, the terms in class 0 */
      if (bi->persistent || bi->n_loops_above < 0)
        {
          why = "a tracked reservation above every loop";
          goto off;
        }
      for (guint i = 0; i < gf->n_occ; i++)
        {
          const FfmTermClass *o = &g_array_index (en->terms->classes, FfmTermClass,
                                                  en->leaf_unit_class[gf->occ_unit[i]]);
          if (o->level == bi->level
              && o->nla == (int) MIN ((guint) bi->n_loops_above, en->n_fused))
            gf->buffet_occ[b] = (int) i;
        }
      if (gf->buffet_occ[b] < 0)
        {
          why = "a tracked reservation without its occupancy class";
          goto off;
        }
      if (bi->bits_per_value != floor (bi->bits_per_value))
        gf->occ_exact = FALSE;
    }
  gf->n_values = 2 + gf->n_occ;
  for (guint j = 0; j < en->n_fused; j++)
    fused_vars |= G_GUINT64_CONSTANT (1) << en->loops[j].rank_var;
  while (gf->depth < en->n_vars && (chosen & fused_vars) != fused_vars)
    chosen |= G_GUINT64_CONSTANT (1) << en->order[gf->depth++];
  gf->points = g_hash_table_new_full (group_key_hash, group_key_equal, g_free,
                                      (GDestroyNotify) g_array_unref);
  en->group_front = gf;
  g_debug ("template %u: group front from depth %u of %u, %u occupancy classes",
           en->t->id, gf->depth, en->n_vars, gf->n_occ);
  return;
off:
  g_debug ("template %u: no group front: %s", en->t->id, why);
  g_free (gf);
}

void
tiles_group_front_add_leaf (FfmTileSearch *en)
{
  struct GroupFront *gf = en->group_front;
  const FfmPmappingCost *cost = en->cost;
  double point[2 + GROUP_FRONT_MAX_OCC];
  gsize bytes = sizeof (double) * gf->n_values;
  GArray *list;

  if (gf->full)
    return;
  point[0] = cost->energy;
  point[1] = gf->latency ? cost->latency : 0;
  for (guint i = 0; i < gf->n_occ; i++)
    point[2 + i] = 0;
  for (guint b = 0; b < en->n_buffets; b++)
    if (gf->buffet_occ[b] >= 0)
      point[2 + gf->buffet_occ[b]] += cost->buffet_occupancy[b];
  list = group_front_lookup (gf, en->tiles);
  if (list == NULL)
    {
      guint64 *key = g_new (guint64, 1 + gf->n_fused);
      key[0] = gf->n_fused;
      memcpy (key + 1, en->tiles, sizeof (guint64) * gf->n_fused);
      list = g_array_new (FALSE, FALSE, sizeof (double));
      g_hash_table_insert (gf->points, key, list);
      gf->last = list;
    }
  /* Pareto points only: one at most this one in every value makes it
   * useless; it makes those it is at most useless */
  for (guint i = 0; i < list->len / gf->n_values; i++)
    if (ffm_pareto_dominates (&g_array_index (list, double, (gsize) i * gf->n_values), point,
                       gf->n_values))
      return;
  for (guint i = list->len / gf->n_values; i-- > 0; )
    if (ffm_pareto_dominates (point, &g_array_index (list, double, (gsize) i * gf->n_values),
                       gf->n_values))
      {
        g_array_remove_range (list, i * gf->n_values, gf->n_values);
        gf->n_points--;
        ffm_memory_budget_release (en->budget, bytes);
        gf->charged -= bytes;
      }
  if (list->len / gf->n_values >= GROUP_FRONT_KEY_POINTS)
    return;
  if (gf->n_points >= GROUP_FRONT_MAX_POINTS
      || !ffm_memory_budget_reserve (en->budget, bytes))
    {
      gf->full = TRUE;
      return;
    }
  gf->charged += bytes;
  gf->n_points++;
  g_array_append_vals (list, point, gf->n_values);
}

gboolean
tiles_group_front_has_points (FfmTileSearch *en, const guint64 *diff, guint k)
{
  struct GroupFront *gf = en->group_front;
  GArray *list;

  if (k < gf->depth)
    return FALSE;
  list = group_front_lookup (gf, diff);
  return list != NULL && list->len > 0;
}

double
tiles_group_front_least_energy (FfmTileSearch *en, const double *cur, double latency)
{
  struct GroupFront *gf = en->group_front;
  double occ[GROUP_FRONT_MAX_OCC], least = INFINITY;
  const double *p = (const double *) gf->last->data;
  guint n = gf->last->len / gf->n_values;

  for (guint i = 0; i < gf->n_occ; i++)
    occ[i] = (gf->occ_exact ? cur[gf->occ_unit[i]]
              : cur[gf->occ_unit[i]] * (1 - 4 * FFM_INCUMBENT_MARGIN)) * en->front_scale;
  for (guint i = 0; i < n; i++, p += gf->n_values)
    if (p[0] < least && (!gf->latency || p[1] <= latency)
        && ffm_pareto_dominates (p + 2, occ, gf->n_occ))
      least = p[0];
  return least;
}
