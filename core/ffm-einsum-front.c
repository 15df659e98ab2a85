/* ffm-einsum-front.c: an Einsum's pmappings of the template waves done,
 * by compatibility group (ffm-einsum-front-private.h). */
#include "ffm-einsum-front-private.h"
#include <ffm/ffm-pareto.h>

#include <string.h>

/* TUNING: points kept per group (those of least energy: a partial row is
 * beaten by a point of less energy) and in all. */
#define FFM_EINSUM_FRONT_KEY_POINTS 32u
#define FFM_EINSUM_FRONT_MAX_POINTS (1u << 18)

typedef struct {
  FfmCompatibility compat;  /* the key */
  GArray *columns;          /* of FfmPmappingColumn */
  GArray *values;           /* of double, columns->len per point */
} FrontGroup;

/* What a group holds besides its points (charged to the budget with
 * them: a compatibility is 1.3 KB, and a front of one point per group
 * held 24,287 groups on a random architecture): the struct, its two
 * arrays' headers and its columns, the hash table's entry. */
#define FRONT_GROUP_BYTES(n_columns) \
  (sizeof (FrontGroup) + 2 * 64 + 64 + sizeof (FfmPmappingColumn) * (gsize) (n_columns))

/* TUNING: the share of the budget's limit one front may hold (the tile
 * searches need the rest: past it the front takes no more points, so a
 * problem that fit without fronts fits with them). */
#define FRONT_BUDGET_SHARE 16u

struct _FfmEinsumFront {
  GHashTable *groups;       /* &FrontGroup.compat -> FrontGroup* (owned) */
  GHashTable *backings;     /* backing_key() of the groups with a point
                               (a set; a group keeps a point once it has one) */
  FfmMemoryBudget *budget;
  gsize charged;
  gsize most;               /* bytes it may hold (FRONT_BUDGET_SHARE) */
  guint n_points;
  gboolean full;            /* the budget or the cap said no more */
};

/* Takes @bytes from the budget within the front's share; FALSE (full)
 * when either says no. */
static gboolean
front_reserve (FfmEinsumFront *f, gsize bytes)
{
  if (f->charged + bytes > f->most || !ffm_memory_budget_reserve (f->budget, bytes))
    {
      f->full = TRUE;
      return FALSE;
    }
  f->charged += bytes;
  return TRUE;
}

static void
front_group_free (FrontGroup *g)
{
  g_array_unref (g->columns);
  g_array_unref (g->values);
  g_free (g);
}

FfmEinsumFront *
ffm_einsum_front_new (FfmMemoryBudget *budget)
{
  FfmEinsumFront *f = g_new0 (FfmEinsumFront, 1);

  f->groups = g_hash_table_new_full (ffm_compatibility_hash_func,
                                     ffm_compatibility_equal_func, NULL,
                                     (GDestroyNotify) front_group_free);
  f->backings = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  f->budget = budget;
  /* (no budget, or a limit of 0: unlimited) */
  f->most = budget != NULL && ffm_memory_budget_get_limit (budget) > 0
    ? (gsize) MIN (ffm_memory_budget_get_limit (budget) / FRONT_BUDGET_SHARE, (guint64) G_MAXSIZE)
    : G_MAXSIZE;
  return f;
}

void
ffm_einsum_front_free (FfmEinsumFront *front)
{
  if (front == NULL)
    return;
  g_hash_table_destroy (front->groups);
  g_hash_table_destroy (front->backings);
  ffm_memory_budget_release (front->budget, front->charged);
  g_free (front);
}

guint
ffm_einsum_front_get_n_points (const FfmEinsumFront *front)
{
  return front->n_points;
}

/* What of @c a template decides alone: each shared tensor's backing
 * memory and persistence (the loops and tiles come with a row's fused
 * tiles). */
static gint64
backing_key (const FfmCompatibility *c)
{
  guint64 h = 1469598103934665603u;

  for (guint i = 0; i < c->n_tensors; i++)
    {
      const guint64 x[3] = { c->tensors[i].tensor, c->tensors[i].backing_level,
                             c->tensors[i].persistent ? 1 : 0 };
      for (guint j = 0; j < 3; j++)
        h = (h ^ x[j]) * 1099511628211u;
    }
  return (gint64) h;
}

gboolean
ffm_einsum_front_has_backing (const FfmEinsumFront *front, const FfmCompatibility *like)
{
  gint64 key = backing_key (like);

  return g_hash_table_contains (front->backings, &key);
}

static int
find_column (const GArray *columns, const FfmPmappingColumn *c)
{
  return ffm_pmapping_columns_find ((const FfmPmappingColumn *) columns->data, columns->len, c);
}

/* Gives @g every column of @columns (a point lacking one has 0 there, as
 * in the Einsum's merge); FALSE when the budget has no room for the
 * points so widened. */
static gboolean
group_widen (FfmEinsumFront *f, FrontGroup *g, const FfmPmappingColumn *columns,
             guint n_columns)
{
  guint n_old = g->columns->len, n_points = n_old > 0 ? g->values->len / n_old : 0, n_new = n_old;
  gsize extra;
  GArray *values;

  for (guint j = 0; j < n_columns; j++)
    if (find_column (g->columns, &columns[j]) < 0)
      n_new++;
  if (n_new == n_old)
    return TRUE;
  extra = sizeof (double) * (gsize) n_points * (n_new - n_old);
  if (!front_reserve (f, extra))
    return FALSE;
  for (guint j = 0; j < n_columns; j++)
    if (find_column (g->columns, &columns[j]) < 0)
      g_array_append_val (g->columns, columns[j]);
  values = g_array_sized_new (FALSE, TRUE, sizeof (double), n_points * n_new);
  g_array_set_size (values, (gsize) n_points * n_new);
  for (guint p = 0; p < n_points; p++)
    memcpy (&g_array_index (values, double, (gsize) p * n_new),
            &g_array_index (g->values, double, (gsize) p * n_old), sizeof (double) * n_old);
  g_array_unref (g->values);
  g->values = values;
  return TRUE;
}

static void
group_remove_point (FfmEinsumFront *f, FrontGroup *g, guint p)
{
  gsize bytes = sizeof (double) * g->columns->len;

  g_array_remove_range (g->values, p * g->columns->len, g->columns->len);
  f->n_points--;
  ffm_memory_budget_release (f->budget, bytes);
  f->charged -= bytes;
}

/* Adds @point (in @g's columns) unless a point is at most it in every
 * column; drops the points it is at most. */
static void
group_add_point (FfmEinsumFront *f, FrontGroup *g, const double *point, int energy_col)
{
  guint n = g->columns->len, n_points = g->values->len / n;
  gsize bytes = sizeof (double) * n;

  for (guint p = 0; p < n_points; p++)
    if (ffm_pareto_dominates (&g_array_index (g->values, double, (gsize) p * n), point, n))
      return;
  for (guint p = n_points; p-- > 0; )
    if (ffm_pareto_dominates (point, &g_array_index (g->values, double, (gsize) p * n), n))
      group_remove_point (f, g, p);
  n_points = g->values->len / n;
  if (n_points >= FFM_EINSUM_FRONT_KEY_POINTS)
    {
      /* full: it takes the place of the point of most energy, if it has less */
      guint most = 0;
      if (energy_col < 0)
        return;
      for (guint p = 1; p < n_points; p++)
        if (g_array_index (g->values, double, (gsize) p * n + (guint) energy_col)
            > g_array_index (g->values, double, (gsize) most * n + (guint) energy_col))
          most = p;
      if (!(point[energy_col]
            < g_array_index (g->values, double, (gsize) most * n + (guint) energy_col)))
        return;
      group_remove_point (f, g, most);
    }
  if (f->n_points >= FFM_EINSUM_FRONT_MAX_POINTS || !front_reserve (f, bytes))
    {
      f->full = TRUE;
      return;
    }
  f->n_points++;
  g_array_append_vals (g->values, point, n);
  {
    gint64 key = backing_key (&g->compat);
    if (!g_hash_table_contains (f->backings, &key))
      g_hash_table_add (f->backings, g_memdup2 (&key, sizeof key));
  }
}

void
ffm_einsum_front_add_rows (FfmEinsumFront *front, const FfmCompatibility *compat,
                           const FfmPmappingColumn *columns, guint n_columns,
                           const double *values, guint n_rows)
{
  FrontGroup *g;
  g_autofree int *to = NULL;
  g_autofree double *point = NULL;
  FfmPmappingColumn energy = { FFM_PMAPPING_COLUMN_ENERGY, 0, 0 };
  int energy_col;

  if (front->full || n_rows == 0 || n_columns == 0)
    return;
  g = g_hash_table_lookup (front->groups, compat);
  if (g == NULL)
    {
      if (!front_reserve (front, FRONT_GROUP_BYTES (n_columns)))
        return;
      g = g_new0 (FrontGroup, 1);
      g->compat = *compat;
      g->columns = g_array_new (FALSE, FALSE, sizeof (FfmPmappingColumn));
      g->values = g_array_new (FALSE, FALSE, sizeof (double));
      g_hash_table_insert (front->groups, &g->compat, g);
    }
  if (!group_widen (front, g, columns, n_columns))
    return;
  to = g_new (int, n_columns);
  for (guint j = 0; j < n_columns; j++)
    to[j] = find_column (g->columns, &columns[j]);
  energy_col = find_column (g->columns, &energy);
  point = g_new (double, g->columns->len);
  for (guint r = 0; r < n_rows && !front->full; r++)
    {
      memset (point, 0, sizeof (double) * g->columns->len);
      for (guint j = 0; j < n_columns; j++)
        point[to[j]] = values[(gsize) r * n_columns + j];
      group_add_point (front, g, point, energy_col);
    }
}

gboolean
ffm_einsum_front_lookup (const FfmEinsumFront *front, const FfmCompatibility *compat,
                         const FfmPmappingColumn **columns, guint *n_columns,
                         const double **values, guint *n_points)
{
  const FrontGroup *g = g_hash_table_lookup (front->groups, compat);

  if (g == NULL || g->values->len == 0)
    {
      *n_points = 0;
      return FALSE;
    }
  *columns = (const FfmPmappingColumn *) g->columns->data;
  *n_columns = g->columns->len;
  *values = (const double *) g->values->data;
  *n_points = g->values->len / g->columns->len;
  return TRUE;
}
