/* ffm-pmapping-tiles-group-front.c: a template's own pmappings by their
 * fused tiles, the front the partial tile vectors of an Einsum of a
 * workload with several are held to (ffm-pmapping-tiles-incumbent.c says
 * why the test is sound). Each leaf a group takes joins the points of its
 * fused tiles (tiles_leaf()): its energy and latency as the model gives
 * them, and its bits in each occupancy class of a tracked memory (the
 * cost terms' classes, ffm-pmapping-terms.c, whose sums the groups'
 * reservation columns are); only Pareto points are kept.
 *
 * The points of the Einsum's earlier waves of templates
 * (ffm-einsum-front-private.h) are held by group, in the columns of the
 * groups: a row's group is computed from its fused tiles
 * (ffm_describe_compat()), the group's points are brought to this
 * template's columns once per fused tiles (shared_points_make()), and a
 * reservation column's bound is the sum of the bounds of the occupancy
 * classes that column sums (a point at most that in every column is at
 * most every completion's value there). */
#include "ffm-pmapping-private.h"
#include "ffm-einsum-front-private.h"
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

/* TUNING: bytes of the Einsum front's points a template keeps converted
 * by fused tiles (past them, the cache starts over). GPT-3 6.7B b64 on
 * TPUv4i grew by 0.6 GiB of peak memory with 65,536 keys per template. */
#define GROUP_FRONT_SHARED_BYTES (4u << 20)

/* The Einsum front's points of one group in this template's columns:
 * energy, latency, then each tracked memory's reservation at depth
 * -1..F (memory by memory, info.memories' order). */
typedef struct {
  guint n_cols;             /* reservation columns */
  guint n_points;
  guint64 *masks;           /* [n_cols]: the occupancy classes each sums */
  double *values;           /* [n_points x (2 + n_cols)] */
} SharedPoints;

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
  /* The Einsum front (NULL: none) and its points by fused tiles, as
   * above */
  const FfmEinsumFront *shared;
  GHashTable *shared_points;  /* key -> SharedPoints* (owned) */
  SharedPoints *shared_last;
  guint64 shared_last_key[MAX_LOOPS];
  gboolean shared_last_valid;
  gsize shared_charged;       /* bytes of shared_points from the budget */
  double *col_bound;          /* scratch: [most reservation columns] */
  guint occ_level[GROUP_FRONT_MAX_OCC]; /* per class: its memory */
  guint occ_nla[GROUP_FRONT_MAX_OCC];   /* per class: its loops above */
};

static void
shared_points_free (SharedPoints *sp)
{
  g_free (sp->masks);
  g_free (sp->values);
  g_free (sp);
}

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
  if (gf->shared_points != NULL)
    g_hash_table_destroy (gf->shared_points);
  g_free (gf->col_bound);
  ffm_memory_budget_release (en->budget, gf->charged + gf->shared_charged);
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
  for (guint i = 0; i < gf->n_occ; i++)
    {
      const FfmTermClass *o = &g_array_index (en->terms->classes, FfmTermClass,
                                              en->leaf_unit_class[gf->occ_unit[i]]);
      gf->occ_level[i] = o->level;
      gf->occ_nla[i] = (guint) MAX (o->nla, 0);
    }
  /* (the classes' loops above count the search's fused loops, the
   * groups' depths the rows': the same loops) */
  if (en->einsum_front != NULL && en->info.n_fused == en->n_fused
      && !ffm_debug_flag_is_set (FFM_DEBUG_NO_EINSUM_FRONT))
    {
      gf->shared = en->einsum_front;
      gf->shared_points = g_hash_table_new_full (group_key_hash, group_key_equal, g_free,
                                                 (GDestroyNotify) shared_points_free);
      gf->col_bound = g_new (double, MAX (en->info.n_memories, 1)
                                     * (FFM_COMPAT_MAX_LOOPS + 2));
    }
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

/* The Einsum front's points of the group of the rows whose fused tiles
 * are @tiles, in this template's columns (transfer full; n_points 0 when
 * there is none or no point can be at most such a row: a point with a
 * reservation where these rows have none). */
static SharedPoints *
shared_points_make (FfmTileSearch *en, const guint64 *tiles)
{
  struct GroupFront *gf = en->group_front;
  SharedPoints *sp = g_new0 (SharedPoints, 1);
  guint64 full[MAX_LOOPS];
  guint nt_prefix[MAX_LOOPS + 1], F, nm = en->info.n_memories, nv;
  FfmCompatibility compat;
  const FfmPmappingColumn *cols;
  const double *vals;
  guint n_cols, n_points;
  g_autofree int *slot = NULL;

  for (guint j = 0; j < en->n_loops; j++)
    full[j] = j < gf->n_fused ? tiles[j] : 1;
  if (!ffm_describe_compat (&en->info, en->m, full, &compat, nt_prefix)
      || !ffm_einsum_front_lookup (gf->shared, &compat, &cols, &n_cols, &vals, &n_points))
    return sp;
  F = compat.n_loops;
  sp->n_cols = nm * (F + 2);
  nv = 2 + sp->n_cols;
  sp->masks = g_new0 (guint64, MAX (sp->n_cols, 1));
  for (guint i = 0; i < gf->n_occ; i++)
    {
      guint start = nt_prefix[MIN (gf->occ_nla[i], gf->n_fused)];
      for (guint k = 0; k < nm; k++)
        if (en->info.memories[k] == gf->occ_level[i])
          for (guint d = start; d <= F; d++)
            sp->masks[k * (F + 2) + d + 1] |= G_GUINT64_CONSTANT (1) << i;
    }
  /* each of the group's columns: its slot here (-1: none) */
  slot = g_new (int, n_cols);
  for (guint c = 0; c < n_cols; c++)
    {
      slot[c] = -1;
      if (cols[c].kind == FFM_PMAPPING_COLUMN_ENERGY)
        slot[c] = 0;
      else if (cols[c].kind == FFM_PMAPPING_COLUMN_LATENCY)
        slot[c] = gf->latency ? 1 : -1;
      else if (cols[c].depth >= -1 && cols[c].depth <= (int) F)
        for (guint k = 0; k < nm; k++)
          if (en->info.memories[k] == cols[c].level)
            slot[c] = (int) (2 + k * (F + 2) + (guint) (cols[c].depth + 1));
    }
  sp->values = g_new0 (double, (gsize) n_points * nv);
  for (guint p = 0; p < n_points; p++)
    {
      const double *in = vals + (gsize) p * n_cols;
      double *out = sp->values + (gsize) sp->n_points * nv;
      gboolean usable = TRUE;
      memset (out, 0, sizeof (double) * nv);
      for (guint c = 0; c < n_cols && usable; c++)
        {
          if (slot[c] >= 0)
            out[slot[c]] = in[c];
          else if (cols[c].kind == FFM_PMAPPING_COLUMN_RESERVATION && in[c] > 0)
            usable = FALSE;
        }
      if (FFM_TEST_HOOKS && ffm_debug_flag_is_set (FFM_DEBUG_EINSUM_FRONT_UNSOUND))
        {
          usable = TRUE;
          memset (out + 2, 0, sizeof (double) * sp->n_cols);
        }
      if (usable)
        sp->n_points++;
    }
  return sp;
}

/* The Einsum front's points for fused tiles @tiles (NULL: none), made
 * once per key while there is room. */
static SharedPoints *
shared_points_lookup (FfmTileSearch *en, const guint64 *tiles)
{
  struct GroupFront *gf = en->group_front;
  guint64 key[1 + MAX_LOOPS];
  SharedPoints *sp;
  gsize bytes;

  if (gf->shared == NULL)
    return NULL;
  if (gf->shared_last_valid && diff_equal (gf->shared_last_key, tiles, gf->n_fused))
    return gf->shared_last;
  key[0] = gf->n_fused;
  memcpy (key + 1, tiles, sizeof (guint64) * gf->n_fused);
  memcpy (gf->shared_last_key, tiles, sizeof (guint64) * gf->n_fused);
  gf->shared_last_valid = TRUE;
  sp = g_hash_table_lookup (gf->shared_points, key);
  if (sp == NULL)
    {
      sp = shared_points_make (en, tiles);
      bytes = sizeof (guint64) * (1 + gf->n_fused) + sizeof *sp
        + sizeof (guint64) * sp->n_cols + sizeof (double) * sp->n_points * (2 + sp->n_cols);
      if (gf->shared_charged + bytes > GROUP_FRONT_SHARED_BYTES)
        {
          g_hash_table_remove_all (gf->shared_points);
          ffm_memory_budget_release (en->budget, gf->shared_charged);
          gf->shared_charged = 0;
        }
      if (!ffm_memory_budget_reserve (en->budget, bytes))
        {
          shared_points_free (sp);
          gf->shared = NULL;      /* no room: the template goes on without */
          gf->shared_last = NULL;
          return NULL;
        }
      gf->shared_charged += bytes;
      g_hash_table_insert (gf->shared_points, g_memdup2 (key, sizeof (guint64) * (1 + gf->n_fused)),
                           sp);
    }
  gf->shared_last = sp;
  return sp;
}

gboolean
tiles_group_front_has_points (FfmTileSearch *en, const guint64 *diff, guint k)
{
  struct GroupFront *gf = en->group_front;
  GArray *list;
  SharedPoints *sp;

  if (k < gf->depth)
    return FALSE;
  list = group_front_lookup (gf, diff);
  sp = shared_points_lookup (en, diff);
  return (list != NULL && list->len > 0) || (sp != NULL && sp->n_points > 0);
}

double
tiles_group_front_least_energy (FfmTileSearch *en, const double *cur, double latency)
{
  struct GroupFront *gf = en->group_front;
  double occ[GROUP_FRONT_MAX_OCC], least = INFINITY;
  const SharedPoints *sp = gf->shared != NULL ? gf->shared_last : NULL;
  const double *p = gf->last != NULL ? (const double *) gf->last->data : NULL;
  guint n = gf->last != NULL ? gf->last->len / gf->n_values : 0;

  for (guint i = 0; i < gf->n_occ; i++)
    occ[i] = (gf->occ_exact ? cur[gf->occ_unit[i]]
              : cur[gf->occ_unit[i]] * (1 - 4 * FFM_INCUMBENT_MARGIN)) * en->front_scale;
  for (guint i = 0; i < n; i++, p += gf->n_values)
    if (p[0] < least && (!gf->latency || p[1] <= latency)
        && ffm_pareto_dominates (p + 2, occ, gf->n_occ))
      least = p[0];
  if (sp != NULL && sp->n_points > 0)
    {
      guint nv = 2 + sp->n_cols;
      /* a reservation column's bound: the sum of its classes' */
      for (guint c = 0; c < sp->n_cols; c++)
        {
          double b = 0;
          for (guint i = 0; i < gf->n_occ; i++)
            if (sp->masks[c] & (G_GUINT64_CONSTANT (1) << i))
              b += occ[i];
          gf->col_bound[c] = b;
        }
      p = sp->values;
      for (guint i = 0; i < sp->n_points; i++, p += nv)
        if (p[0] < least && (!gf->latency || p[1] <= latency)
            && ffm_pareto_dominates (p + 2, gf->col_bound, sp->n_cols))
          least = p[0];
    }
  return least;
}
