/* ffm-pareto.c: Pareto pruning of a row-major table (ffm-pareto.h).
 *
 * Why comparing each row with the survivors only is enough: sort the rows
 * lexicographically (ties by index). If A dominates B then A <= B in every
 * column, so A sorts before B (or equals B and has a lower index). If A is
 * itself dominated, whatever dominates A sorts before A and dominates B too
 * (dominance is transitive). So a row is dominated iff some earlier
 * *survivor* dominates it. */
#include "ffm-pareto.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const double *values;
  guint n_columns;
} SortContext;

static int
compare_rows (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const SortContext *ctx = data;
  guint a = *(const guint *) pa, b = *(const guint *) pb;
  const double *ra = ctx->values + (gsize) a * ctx->n_columns;
  const double *rb = ctx->values + (gsize) b * ctx->n_columns;

  for (guint c = 0; c < ctx->n_columns; c++)
    {
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

static int
compare_guint (gconstpointer pa, gconstpointer pb)
{
  guint a = *(const guint *) pa, b = *(const guint *) pb;
  return a < b ? -1 : (a > b ? 1 : 0);
}

/* Collects the survivors of @order (sorted rows) into @survivors. */
static guint
scan_sorted (const double *values, guint n_columns, const guint *order,
             guint n_rows, guint *survivors)
{
  guint n = 0;

  if (n_columns == 0)
    {
      survivors[0] = order[0];
      return 1;
    }
  if (n_columns == 1)
    {
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
        dominated = ffm_pareto_dominates (values + (gsize) survivors[k] * n_columns,
                                          row, n_columns);
      if (!dominated)
        survivors[n++] = order[i];
    }
  return n;
}

guint
ffm_pareto_prune (double *values, guint n_rows, guint n_columns, guint *kept)
{
  SortContext ctx = { values, n_columns };
  guint *order, *survivors, n;

  g_return_val_if_fail (values != NULL || n_rows == 0, 0);
  if (n_rows == 0)
    return 0;
  order = g_new (guint, n_rows);
  survivors = g_new (guint, n_rows);
  for (guint i = 0; i < n_rows; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n_rows, sizeof (guint), compare_rows, &ctx);
  n = scan_sorted (values, n_columns, order, n_rows, survivors);
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
