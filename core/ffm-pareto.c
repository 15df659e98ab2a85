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
#include <ffm/ffm-pareto.h>
#include "ffm-quicksort-private.h"

#include <math.h>
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

/* The rows in sort order, without a callback per comparison (the join's
 * prunings spent a sixth of their time in compare_rows() through
 * g_qsort_with_data()): each row's key holds its first two sort columns
 * and the sum of the others, and the row itself is read only when all
 * three tie. If A dominates B, A's key is no larger (a sum is monotone in
 * each term, rounding included: a NaN sum ties), so the full comparison
 * decides, as before; the order is otherwise not compare_rows()', but a
 * row's survival does not depend on it (a dominated row is one any
 * dominator of it beats, and of equal rows the lowest index survives, as
 * before). */
typedef struct {
  double k0, k1;                /* the first two sort columns (0 if none) */
  double rest;                  /* the sum of the other columns */
  guint row;
} SortKey;

static inline int
key_compare (const SortContext *ctx, const SortKey *a, const SortKey *b)
{
  guint ra = a->row, rb = b->row;

  if (a->k0 < b->k0)
    return -1;
  if (a->k0 > b->k0)
    return 1;
  if (a->k1 < b->k1)
    return -1;
  if (a->k1 > b->k1)
    return 1;
  if (a->rest < b->rest)
    return -1;
  if (a->rest > b->rest)
    return 1;
  if (ctx->n_columns <= 2)
    return ra < rb ? -1 : (ra > rb ? 1 : 0);
  return compare_rows (&ra, &rb, (gpointer) ctx);
}

#define KEY_LESS(ctx, a, b) (key_compare ((ctx), (a), (b)) < 0)
FFM_DEFINE_QUICKSORT (sort_keys, SortKey, SortContext, KEY_LESS)
#undef KEY_LESS

/* Rows @first .. @first + @n - 1 of the context's table into @order, in
 * key_compare()'s order. */
static void
sort_rows (const SortContext *ctx, guint first, guint n, guint *order)
{
  g_autofree SortKey *keys = g_new (SortKey, MAX (n, 1));
  guint c0 = ctx->n_columns > 0 ? ctx->order[0] : 0;
  guint c1 = ctx->n_columns > 1 ? ctx->order[1] : 0;

  for (guint i = 0; i < n; i++)
    {
      const double *r = ctx->values + (gsize) (first + i) * ctx->n_columns;
      keys[i].k0 = ctx->n_columns > 0 ? r[c0] : 0;
      keys[i].k1 = ctx->n_columns > 1 ? r[c1] : 0;
      keys[i].rest = 0;
      for (guint k = 2; k < ctx->n_columns; k++)
        keys[i].rest += r[ctx->order[k]];
      keys[i].row = first + i;
    }
  sort_keys (ctx, keys, n);
  for (guint i = 0; i < n; i++)
    order[i] = keys[i].row;
}

static inline gboolean
dominates_all (const double *a, const double *b, guint n_columns)
{
  for (guint c = 0; c < n_columns; c++)
    if (a[c] > b[c])
      return FALSE;
  return TRUE;
}

gboolean
ffm_pareto_dominates (const double *a, const double *b, guint n_columns)
{
  return dominates_all (a, b, n_columns);
}

/* Dominance with the context's lexicographic pair. */
static inline gboolean
dominates (const SortContext *ctx, const double *a, const double *b)
{
  guint p, q;

  if (ctx->primary < 0)
    return dominates_all (a, b, ctx->n_columns);
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

/* Whether one of the @n rows of @list dominates @row; the one that does
 * moves to the front of @list. */
static inline gboolean
find_dominator (const SortContext *ctx, const double **list, guint n,
                const double *row)
{
  for (guint k = 0; k < n; k++)
    if (dominates (ctx, list[k], row))
      {
        const double *hit = list[k];
        memmove (list + 1, list, sizeof *list * k);
        list[0] = hit;
        return TRUE;
      }
  return FALSE;
}

/* The survivors of @order (sorted rows after the table's first @n_front
 * rows, the front: a Pareto set that may dominate them and needs no check
 * itself) into @survivors, each row checked against the front and the
 * survivors before it. Which one is checked first decides the cost: a
 * dominated row is usually dominated by one of few strong rows, so they
 * are kept in a move-to-front list (a row that dominated another moves to
 * the front, a new survivor goes there too). Only the order of the checks
 * changes, so the survivors are the same. On Simba's convolutions (12
 * columns, ~1,500 survivors per group) this alone took ResNet-18's T1
 * from 78 s to 62 s on one thread. */
static guint
scan_exact (const SortContext *ctx, const guint *order, guint n_rows,
            guint *survivors, guint n_front)
{
  const double **check = g_new (const double *, (gsize) n_rows + n_front);
  const double *values = ctx->values;
  guint n_columns = ctx->n_columns, n = 0, n_check = n_front;

  for (guint i = 0; i < n_front; i++)
    check[i] = values + (gsize) i * n_columns;
  for (guint i = 0; i < n_rows; i++)
    {
      const double *row = values + (gsize) order[i] * n_columns;
      if (!find_dominator (ctx, check, n_check, row))
        {
          memmove (check + 1, check, sizeof *check * n_check);
          check[0] = row;
          n_check++;
          survivors[n++] = order[i];
        }
    }
  g_free (check);
  return n;
}

/* ---- Many survivors: a filter, then a k-d tree ----
 *
 * Checking every row against every earlier survivor costs survivors^2 / 2
 * checks at least, which decides everything once survivors number 10^5
 * (the join's groups: 9 M rows and 358,581 survivors of 12 columns at one
 * step of Llama-3 decode on Simba, 111 s). Two facts make it cheaper:
 *   - any earlier row that dominates a row proves it dominated, survivor
 *     or not (what dominates the dominator dominates the row). So a first
 *     pass drops the rows that one of the FILTER_WINDOW rows most recently
 *     useful (move to front) dominates; the rest are the candidates, a
 *     superset of the survivors, in sort order.
 *   - a candidate survives iff no candidate before it in sort order
 *     dominates it. A k-d tree over the candidates answers that: a
 *     subtree whose least values (per column) exceed the row's in some
 *     column, or whose least rank is not before the row's, holds no
 *     dominator. With a lexicographic pair the secondary is left out of
 *     that test (a lower primary dominates whatever the secondary); the
 *     leaves apply the exact relation.
 * The survivors are exactly those of the plain scan (/pmapping/pareto-many
 * checks them against the definition on tables with 8,000+ survivors). */

/* TUNING (first choices, not swept yet): tables of more rows than this
 * take the filter and the tree (small tables keep the plain scan, which
 * builds nothing); the first pass checks each row against FILTER_WINDOW
 * recent dominators; the tree's leaves hold KD_LEAF points. */
#define MANY_ROWS 8192
#define FILTER_WINDOW 32
#define KD_LEAF 16

typedef struct {
  guint lo, hi;             /* its points: perm[lo..hi) */
  guint left, right;        /* children (0: a leaf; the root is node 0) */
  guint min_rank;           /* least rank under it */
} KdNode;

/* A k-d tree over points (rows of the table) with ranks: a row is
 * dominated by a point only if the point's rank is below the row's. */
typedef struct {
  const SortContext *ctx;
  const guint *rows;        /* the row of each point */
  const guint *rank;        /* the rank of each point */
  guint *perm;              /* points, in tree order */
  GArray *nodes;            /* of KdNode */
  GArray *mins;             /* per node, per column: least value under it */
  guint n_split;            /* columns the tree splits on and tests */
  guint split[64];
} KdTree;

static inline double
kd_value (const KdTree *t, guint point, guint column)
{
  return t->ctx->values[(gsize) t->rows[point] * t->ctx->n_columns + column];
}

/* Partitions perm[lo..hi) so that perm[mid] holds the point of median
 * value in @column, those before it no larger, those after no smaller.
 * Three-way (less, equal, greater): columns often repeat one value
 * (reservations), which a two-way partition turns quadratic. */
static void
kd_select (KdTree *t, guint lo, guint hi, guint mid, guint column)
{
  guint *p = t->perm;

  while (hi - lo > 1)
    {
      guint a = lo, b = lo + (hi - lo) / 2, c = hi - 1, lt = lo, gt = hi, i = lo, tmp;
      double va = kd_value (t, p[a], column), vb = kd_value (t, p[b], column),
        vc = kd_value (t, p[c], column);
      double pivot = (va < vb) ? ((vb < vc) ? vb : (va < vc ? vc : va))
        : ((va < vc) ? va : (vb < vc ? vc : vb));
      /* p[lo..lt) < pivot, p[lt..i) == pivot, p[gt..hi) > pivot */
      while (i < gt)
        {
          double v = kd_value (t, p[i], column);
          if (v < pivot)
            {
              tmp = p[i];
              p[i++] = p[lt];
              p[lt++] = tmp;
            }
          else if (v > pivot)
            {
              tmp = p[i];
              p[i] = p[--gt];
              p[gt] = tmp;
            }
          else
            i++;
        }
      if (mid < lt)
        hi = lt;
      else if (mid >= gt)
        lo = gt;
      else
        return;
    }
}

static guint
kd_build_node (KdTree *t, guint lo, guint hi, guint depth)
{
  guint n_columns = t->ctx->n_columns, id = t->nodes->len;
  KdNode node = { lo, hi, 0, 0, G_MAXUINT };
  double *mins;

  g_array_set_size (t->mins, t->mins->len + n_columns);
  mins = &g_array_index (t->mins, double, (gsize) id * n_columns);
  for (guint c = 0; c < n_columns; c++)
    mins[c] = INFINITY;
  for (guint i = lo; i < hi; i++)
    {
      node.min_rank = MIN (node.min_rank, t->rank[t->perm[i]]);
      for (guint c = 0; c < n_columns; c++)
        mins[c] = MIN (mins[c], kd_value (t, t->perm[i], c));
    }
  g_array_append_val (t->nodes, node);
  if (hi - lo > KD_LEAF)
    {
      guint mid = lo + (hi - lo) / 2, left, right;
      kd_select (t, lo, hi, mid, t->split[depth % t->n_split]);
      left = kd_build_node (t, lo, mid, depth + 1);
      right = kd_build_node (t, mid, hi, depth + 1);
      g_array_index (t->nodes, KdNode, id).left = left;
      g_array_index (t->nodes, KdNode, id).right = right;
    }
  return id;
}

/* Builds the tree over @n points (@n >= 1): @rows and @rank borrowed. */
static void
kd_init (KdTree *t, const SortContext *ctx, const guint *rows, const guint *rank,
         guint n)
{
  guint n_columns = ctx->n_columns;

  t->ctx = ctx;
  t->rows = rows;
  t->rank = rank;
  t->perm = g_new (guint, n);
  t->nodes = g_array_sized_new (FALSE, FALSE, sizeof (KdNode), 2 * (n / KD_LEAF + 1));
  t->mins = g_array_new (FALSE, FALSE, sizeof (double));
  t->n_split = 0;
  /* Columns equal at every point neither split nor exclude; with a
   * lexicographic pair a lower primary dominates whatever the secondary,
   * so the secondary is no necessary condition. */
  for (guint c = 0; c < n_columns && t->n_split < G_N_ELEMENTS (t->split); c++)
    {
      double first = ctx->values[(gsize) rows[0] * n_columns + c];
      gboolean varies = FALSE;
      for (guint i = 1; i < n && !varies; i++)
        varies = ctx->values[(gsize) rows[i] * n_columns + c] != first;
      if (varies && (int) c != ctx->secondary)
        t->split[t->n_split++] = c;
    }
  if (t->n_split == 0)
    t->split[t->n_split++] = 0;
  for (guint i = 0; i < n; i++)
    t->perm[i] = i;
  kd_build_node (t, 0, n, 0);
}

static void
kd_clear (KdTree *t)
{
  g_free (t->perm);
  g_array_free (t->nodes, TRUE);
  g_array_free (t->mins, TRUE);
}

/* Whether a point of rank below @rank dominates @row. */
static gboolean
kd_dominated (const KdTree *t, const double *row, guint rank)
{
  const SortContext *ctx = t->ctx;
  guint n_columns = ctx->n_columns;
  const KdNode *nodes = (const KdNode *) t->nodes->data;
  const double *all_mins = (const double *) t->mins->data;
  /* depth first: at most one pending sibling per level (< 64 levels for
   * any guint count of points) */
  guint stack[2 * 64], depth = 0;

  stack[depth++] = 0;
  while (depth > 0)
    {
      guint id = stack[--depth];
      const KdNode *nd = &nodes[id];
      const double *mins = all_mins + (gsize) id * n_columns;
      gboolean may = nd->min_rank < rank;

      for (guint k = 0; may && k < t->n_split; k++)
        may = mins[t->split[k]] <= row[t->split[k]];
      if (!may)
        continue;
      if (nd->left == 0)
        {
          for (guint i = nd->lo; i < nd->hi; i++)
            {
              guint pt = t->perm[i];
              if (t->rank[pt] < rank
                  && dominates (ctx, ctx->values + (gsize) t->rows[pt] * n_columns, row))
                return TRUE;
            }
          continue;
        }
      /* the lower half is the likelier to dominate: searched first */
      stack[depth++] = nd->right;
      stack[depth++] = nd->left;
    }
  return FALSE;
}

/* scan_exact() for many rows (@n_rows + @n_front > MANY_ROWS). */
static guint
scan_many (const SortContext *ctx, const guint *order, guint n_rows,
           guint *survivors, guint n_front)
{
  const double *values = ctx->values;
  const double *window[FILTER_WINDOW];
  guint n_columns = ctx->n_columns, n_window = 0, m = 0, n = 0;
  guint *cand = g_new (guint, (gsize) n_rows + n_front);
  guint *rank;
  KdTree t;

  /* the first pass: the window starts with rows of the front */
  for (; n_window < MIN (n_front, (guint) FILTER_WINDOW); n_window++)
    window[n_window] = values + (gsize) n_window * n_columns;
  for (guint i = 0; i < n_rows; i++)
    {
      const double *row = values + (gsize) order[i] * n_columns;
      if (find_dominator (ctx, window, n_window, row))
        continue;
      cand[m++] = order[i];
      n_window = MIN (n_window + 1, (guint) FILTER_WINDOW);
      memmove (window + 1, window, sizeof *window * (n_window - 1));
      window[0] = row;
    }
  if (m + n_front <= MANY_ROWS)
    {
      n = scan_exact (ctx, cand, m, survivors, n_front);
      g_free (cand);
      return n;
    }
  /* The tree over the front (rank 0: before every new row) and the
   * candidates (ranks 1.. in sort order). */
  rank = g_new (guint, (gsize) m + n_front);
  for (guint i = 0; i < m; i++)
    rank[i] = i + 1;
  for (guint i = 0; i < n_front; i++)
    {
      cand[m + i] = i;
      rank[m + i] = 0;
    }
  kd_init (&t, ctx, cand, rank, m + n_front);
  for (guint i = 0; i < m; i++)
    if (!kd_dominated (&t, values + (gsize) cand[i] * n_columns, i + 1))
      survivors[n++] = cand[i];
  kd_clear (&t);
  g_free (rank);
  g_free (cand);
  return n;
}

/* Collects the survivors of @order (sorted rows) into @survivors; with
 * @n_front, the table's first rows are a Pareto set (the front) no row of
 * @order needs to beat but whose rows may dominate them. */
static guint
scan_sorted (const SortContext *ctx, const guint *order, guint n_rows,
             guint *survivors, guint n_front)
{
  const double *values = ctx->values;
  guint n_columns = ctx->n_columns, n = 0;

  if (n_columns <= 1 || (ctx->primary >= 0 && n_columns == 2))
    {
      /* the least row in sort order beats every other */
      if (n_rows == 0)
        return 0;
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
  if ((gsize) n_rows + n_front > MANY_ROWS)
    return scan_many (ctx, order, n_rows, survivors, n_front);
  return scan_exact (ctx, order, n_rows, survivors, n_front);
}

/* Which of the table's first @n_front rows (the front) one of @by (rows
 * after them; none equal to one of them) dominates: flags in @beaten. */
static void
mark_beaten (const SortContext *ctx, guint n_front, const guint *by, guint n_by,
             gboolean *beaten)
{
  const double *values = ctx->values;
  guint n_columns = ctx->n_columns;

  if (n_by == 0)
    return;
  if ((gsize) n_front * n_by <= (gsize) MANY_ROWS * 64)
    {
      for (guint i = 0; i < n_front; i++)
        {
          const double *row = values + (gsize) i * n_columns;
          for (guint j = 0; j < n_by && !beaten[i]; j++)
            beaten[i] = dominates (ctx, values + (gsize) by[j] * n_columns, row);
        }
      return;
    }
  {
    g_autofree guint *rank = g_new0 (guint, n_by);
    KdTree t;
    kd_init (&t, ctx, by, rank, n_by);
    for (guint i = 0; i < n_front; i++)
      beaten[i] = kd_dominated (&t, values + (gsize) i * n_columns, 1);
    kd_clear (&t);
  }
}

/* Moves the survivors (ascending indices) to the front of @values. */
static void
compact (double *values, guint n_columns, const guint *survivors, guint n,
         guint *kept)
{
  for (guint i = 0; i < n; i++)
    {
      if (survivors[i] != i)
        memmove (values + (gsize) i * n_columns,
                 values + (gsize) survivors[i] * n_columns,
                 sizeof (double) * n_columns);
      if (kept != NULL)
        kept[i] = survivors[i];
    }
}

static guint
prune (double *values, guint n_rows, guint n_columns, guint n_front,
       int primary, int secondary, guint *kept)
{
  g_autofree guint *columns = g_new (guint, MAX (n_columns, 1));
  SortContext ctx = { values, n_columns, columns, primary, secondary };
  guint *order, *survivors, n, k = 0;

  g_return_val_if_fail (values != NULL || n_rows == 0, 0);
  g_return_val_if_fail (n_front <= n_rows, 0);
  if (n_rows == 0)
    return 0;
  /* The n log n paths of one and two columns sort everything. */
  if (n_columns <= 2)
    n_front = 0;
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
  sort_rows (&ctx, n_front, n_rows - n_front, order);
  if (n_front == 0)
    {
      n = scan_sorted (&ctx, order, n_rows, survivors, 0);
      qsort (survivors, n, sizeof (guint), compare_guint);
    }
  else
    {
      /* The front is one Pareto set already: its rows need no check
       * against each other. The new rows are checked against the front
       * and the new survivors; then a front row stays unless a new
       * survivor dominates it (whatever dominates it dominates through a
       * survivor, and a new row equal to a front row is not a survivor:
       * the front's copy has the lower index). */
      gboolean *beaten = g_new0 (gboolean, n_front);
      guint n_new, n_old = 0;
      n_new = scan_sorted (&ctx, order, n_rows - n_front, survivors + n_front, n_front);
      qsort (survivors + n_front, n_new, sizeof (guint), compare_guint);
      mark_beaten (&ctx, n_front, survivors + n_front, n_new, beaten);
      for (guint i = 0; i < n_front; i++)
        if (!beaten[i])
          survivors[n_old++] = i;
      memmove (survivors + n_old, survivors + n_front, sizeof (guint) * n_new);
      n = n_old + n_new;
      g_free (beaten);
    }
  compact (values, n_columns, survivors, n, kept);
  g_free (order);
  g_free (survivors);
  return n;
}

guint
ffm_pareto_prune (double *values, guint n_rows, guint n_columns, guint *kept)
{
  return ffm_pareto_prune_front (values, n_rows, n_columns, 0, kept);
}

guint
ffm_pareto_prune_lexicographic (double *values, guint n_rows, guint n_columns,
                                guint primary, guint secondary, guint *kept)
{
  return ffm_pareto_prune_lexicographic_front (values, n_rows, n_columns, 0, primary,
                                               secondary, kept);
}

guint
ffm_pareto_prune_front (double *values, guint n_rows, guint n_columns,
                        guint n_front, guint *kept)
{
  return prune (values, n_rows, n_columns, n_front, -1, -1, kept);
}

guint
ffm_pareto_prune_lexicographic_front (double *values, guint n_rows,
                                      guint n_columns, guint n_front,
                                      guint primary, guint secondary,
                                      guint *kept)
{
  g_return_val_if_fail (primary < n_columns && secondary < n_columns
                        && primary != secondary, 0);
  return prune (values, n_rows, n_columns, n_front, (int) primary, (int) secondary,
                kept);
}
