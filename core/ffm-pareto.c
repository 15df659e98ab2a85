/* ffm-pareto.c: Pareto pruning of a row-major table (ffm-pareto.h).
 *
 * Why comparing each row with the survivors only is enough: sort the rows
 * lexicographically (ties by index). If A dominates B then A <= B in every
 * column, so A sorts before B (or equals B and has a lower index). If A is
 * itself dominated, whatever dominates A sorts before A and dominates B too
 * (dominance is transitive). So a row is dominated iff some earlier
 * *survivor* dominates it. With a lexicographic pair the rows sort by the
 * pair first (primary, then secondary), then by the other columns: a
 * dominator still sorts first, and the relation is still transitive (a
 * primary below, or equal with a secondary no larger, composes). */
#include "ffm-pareto.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const double *values;
  guint n_columns;
  const guint *order;       /* columns in sort order */
  int primary;              /* lexicographic pair, -1 for none */
  int secondary;
} SortContext;

static int
compare_rows (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const SortContext *ctx = data;
  guint a = *(const guint *) pa, b = *(const guint *) pb;
  const double *ra = ctx->values + (gsize) a * ctx->n_columns;
  const double *rb = ctx->values + (gsize) b * ctx->n_columns;

  for (guint k = 0; k < ctx->n_columns; k++)
    {
      guint c = ctx->order[k];
      if (ra[c] < rb[c])
        return -1;
      if (ra[c] > rb[c])
        return 1;
    }
  return a < b ? -1 : (a > b ? 1 : 0);
}

gboolean
ffm_pareto_dominates (const double *a, const double *b, guint n_columns)
{
  for (guint c = 0; c < n_columns; c++)
    if (a[c] > b[c])
      return FALSE;
  return TRUE;
}

/* Dominance with the context's lexicographic pair. */
static gboolean
dominates (const SortContext *ctx, const double *a, const double *b)
{
  guint p, q;

  if (ctx->primary < 0)
    return ffm_pareto_dominates (a, b, ctx->n_columns);
  p = (guint) ctx->primary;
  q = (guint) ctx->secondary;
  if (a[p] > b[p] || (a[p] == b[p] && a[q] > b[q]))
    return FALSE;
  for (guint c = 0; c < ctx->n_columns; c++)
    if (c != p && c != q && a[c] > b[c])
      return FALSE;
  return TRUE;
}

static int
compare_guint (gconstpointer pa, gconstpointer pb)
{
  guint a = *(const guint *) pa, b = *(const guint *) pb;
  return a < b ? -1 : (a > b ? 1 : 0);
}

/* Collects the survivors of @order (sorted rows) into @survivors. */
static guint
scan_sorted (const SortContext *ctx, const guint *order, guint n_rows,
             guint *survivors)
{
  const double *values = ctx->values;
  guint n_columns = ctx->n_columns, n = 0;

  if (n_columns <= 1 || (ctx->primary >= 0 && n_columns == 2))
    {
      /* the least row in sort order beats every other */
      survivors[0] = order[0];
      return 1;
    }
  if (n_columns == 2)
    {
      /* Sorted by column 0 then column 1: a row survives iff its column 1
       * is strictly below every earlier survivor's. */
      double best = 0;
      for (guint i = 0; i < n_rows; i++)
        {
          double c1 = values[(gsize) order[i] * 2 + 1];
          if (n == 0 || c1 < best)
            {
              survivors[n++] = order[i];
              best = c1;
            }
        }
      return n;
    }
  for (guint i = 0; i < n_rows; i++)
    {
      const double *row = values + (gsize) order[i] * n_columns;
      gboolean dominated = FALSE;
      /* Recent survivors are the likeliest to dominate: scan backwards. */
      for (guint k = n; k-- > 0 && !dominated; )
        dominated = dominates (ctx, values + (gsize) survivors[k] * n_columns, row);
      if (!dominated)
        survivors[n++] = order[i];
    }
  return n;
}

static guint
prune (double *values, guint n_rows, guint n_columns, int primary,
       int secondary, guint *kept)
{
  g_autofree guint *columns = g_new (guint, MAX (n_columns, 1));
  SortContext ctx = { values, n_columns, columns, primary, secondary };
  guint *order, *survivors, n, k = 0;

  g_return_val_if_fail (values != NULL || n_rows == 0, 0);
  if (n_rows == 0)
    return 0;
  /* Sort order: the lexicographic pair first (a dominator sorts before
   * what it dominates: its primary is below, or equal with its secondary
   * no larger, and then it is no larger in every other column). */
  if (primary >= 0)
    {
      columns[k++] = (guint) primary;
      columns[k++] = (guint) secondary;
    }
  for (guint c = 0; c < n_columns; c++)
    if ((int) c != primary && (int) c != secondary)
      columns[k++] = c;
  order = g_new (guint, n_rows);
  survivors = g_new (guint, n_rows);
  for (guint i = 0; i < n_rows; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n_rows, sizeof (guint), compare_rows, &ctx);
  n = scan_sorted (&ctx, order, n_rows, survivors);
  qsort (survivors, n, sizeof (guint), compare_guint);
  for (guint i = 0; i < n; i++)
    {
      if (survivors[i] != i)
        memmove (values + (gsize) i * n_columns,
                 values + (gsize) survivors[i] * n_columns,
                 sizeof (double) * n_columns);
      if (kept != NULL)
        kept[i] = survivors[i];
    }
  g_free (order);
  g_free (survivors);
  return n;
}

guint
ffm_pareto_prune (double *values, guint n_rows, guint n_columns, guint *kept)
{
  return prune (values, n_rows, n_columns, -1, -1, kept);
}

guint
ffm_pareto_prune_lexicographic (double *values, guint n_rows, guint n_columns,
                                guint primary, guint secondary, guint *kept)
{
  g_return_val_if_fail (primary < n_columns && secondary < n_columns
                        && primary != secondary, 0);
  return prune (values, n_rows, n_columns, (int) primary, (int) secondary, kept);
}
