/* test-pmapping.c: the pmapping generator (ffm-pmapping.h) against brute
 * force, and its invariants.
 *
 * The brute force below enumerates the whole single-Einsum mapspace of
 * core/ffm-pmapping-template.c independently of the generator: every
 * storage choice, every order of every memory's storage nodes, every
 * sequence of loops in every gap between storage nodes (any subset of the
 * rank variables, in any order, plus spatial loops in the gap the fanout
 * separates), every perfect factorization. It is the witness of the
 * generator's canonicalizations (one loop per rank variable per gap in a
 * fixed order, lowering non-backing nodes, raising through irrelevant
 * unfused loops, spatial loops at the bottom of their gap): for every
 * brute-force pmapping, the generator must keep one with the same shared
 * tensors' backing memories and fused loops that is no worse in energy,
 * latency and every memory's use, and the single-Einsum optimum (energy,
 * latency, EDP) must be equal to the last bit. Cases are small and random
 * (fixed seeds): two chained Einsums of two rank variables each, on
 * architectures of one to three memories with random capacities, energies
 * and bandwidths and an optional fanout. */
#include <ffm/ffm.h>
#include "ffm-pmapping-diagnostics.h"
#include "ffm-storage-bound.h"
#include "random-problem.h"
#include "random-arch.h"
#include "inputs.h"
#include "debug-flags.h"
#include <math.h>
#include <string.h>

#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))

/* ---- Helpers ---- */

static FfmPmappingSet *
generate (FfmWorkload *w, FfmArch *a, const FfmPmappingOptions *options)
{
  g_autoptr(GError) error = NULL;
  FfmPmappingSet *set = ffm_pmappings_generate (w, a, options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (set);
  return set;
}

/* generate() with the debug flags @flags (FFM_DEBUG's syntax: a knob of
 * the generator's internals) added for the one run. */
static FfmPmappingSet *
generate_with_debug (FfmWorkload *w, FfmArch *a, const FfmPmappingOptions *options,
                     const char *flags)
{
  FfmPmappingSet *set;

  test_debug_push (flags);
  set = generate (w, a, options);
  test_debug_pop ();
  return set;
}

/* Templates enumerated, and tile vectors evaluated, over every Einsum. */
static guint
count_templates (const FfmPmappingSet *set)
{
  guint n = 0;

  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    n += ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (set, i))->n_templates;
  return n;
}

static guint64
count_evaluated (const FfmPmappingSet *set)
{
  guint64 n = 0;

  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    n += ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (set, i))->n_evaluated;
  return n;
}

/* Rebuilds the pmapping of row @ref of @pm (without its one-iteration loops
 * if @drop), compiles it and evaluates it; the evaluation must be valid.
 * @nodes receives the node list and @model the compiled model, which
 * borrows the nodes: free the model first (transfer full, both). */
static FfmPmappingCost *
evaluate_row (FfmWorkload *w, FfmArch *a, const FfmEinsumPmappings *pm,
              const FfmPmappingRef *ref, gboolean drop, GPtrArray **nodes,
              FfmPmappingModel **model)
{
  g_autoptr(GError) error = NULL;
  FfmPmappingModel *m;
  FfmPmappingCost *cost;

  *nodes = ffm_einsum_pmappings_rebuild (pm, ref, drop);
  m = ffm_pmapping_model_new (w, a, (const FfmMappingNode *const *) (*nodes)->pdata,
                              (*nodes)->len, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ffm_pmapping_model_check_tiles (m, NULL, &error));
  g_assert_no_error (error);
  cost = ffm_pmapping_cost_new (m);
  ffm_pmapping_model_evaluate (m, NULL, cost);
  g_assert_cmpint (cost->status, ==, FFM_COST_VALID);
  *model = m;
  return cost;
}

static int
column_of (const FfmPmappingGroup *g, FfmPmappingColumnKind kind)
{
  for (guint c = 0; c < g->n_columns; c++)
    if (g->columns[c].kind == kind)
      return c;
  return -1;
}

/* Best energy, latency and EDP over every row of every group. */
static void
best_of_set (const FfmEinsumPmappings *pm, double *energy, double *latency,
             double *edp)
{
  *energy = *latency = *edp = INFINITY;
  for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
    {
      const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
      int ce = column_of (g, FFM_PMAPPING_COLUMN_ENERGY);
      int cl = column_of (g, FFM_PMAPPING_COLUMN_LATENCY);
      g_assert_cmpint (ce, >=, 0);
      g_assert_cmpint (cl, >=, 0);
      for (guint r = 0; r < g->n_rows; r++)
        {
          double e = g->values[(gsize) r * g->n_columns + ce];
          double l = g->values[(gsize) r * g->n_columns + cl];
          *energy = MIN (*energy, e);
          *latency = MIN (*latency, l);
          *edp = MIN (*edp, e * l);
        }
    }
}

/* The least (energy, latency) over every row, lexicographically, energy
 * first or latency first: the objective and its tie-break. */
static void
lex_best_of_set (const FfmEinsumPmappings *pm, gboolean energy_first,
                 double *best, double *tie)
{
  *best = *tie = INFINITY;
  for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
    {
      const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
      int ce = column_of (g, FFM_PMAPPING_COLUMN_ENERGY);
      int cl = column_of (g, FFM_PMAPPING_COLUMN_LATENCY);
      for (guint r = 0; r < g->n_rows; r++)
        {
          double e = g->values[(gsize) r * g->n_columns + ce];
          double l = g->values[(gsize) r * g->n_columns + cl];
          double v = energy_first ? e : l, t = energy_first ? l : e;
          if (v < *best || (v == *best && t < *tie))
            {
              *best = v;
              *tie = t;
            }
        }
    }
}

static gint
compare_value_rows (gconstpointer x, gconstpointer y, gpointer n_columns)
{
  const double *a = x, *b = y;

  for (guint c = 0; c < GPOINTER_TO_UINT (n_columns); c++)
    if (a[c] != b[c])
      return a[c] < b[c] ? -1 : 1;
  return 0;
}

/* The rows of @g's table, sorted (transfer full). */
static double *
sorted_value_rows (const FfmPmappingGroup *g)
{
  double *rows = g_memdup2 (g->values, sizeof (double) * MAX (g->n_rows * g->n_columns, 1));

  g_qsort_with_data (rows, (gint) g->n_rows, sizeof (double) * g->n_columns,
                     compare_value_rows, GUINT_TO_POINTER (g->n_columns));
  return rows;
}

/* Two groups are equal: equal compatibilities, equal tables (bit for
 * bit; with @same_refs in the same order, with equal references and
 * tiles; otherwise as sets of rows). */
static void
assert_groups_equal (const FfmEinsumPmappings *pa, const FfmPmappingGroup *ga,
                     const FfmEinsumPmappings *pb, const FfmPmappingGroup *gb,
                     gboolean same_refs)
{
  g_assert_true (ffm_compatibility_equal (&ga->compat, &gb->compat));
  g_assert_cmpuint (ga->n_columns, ==, gb->n_columns);
  g_assert_cmpuint (ga->n_rows, ==, gb->n_rows);
  g_assert_cmpmem (ga->columns, sizeof (FfmPmappingColumn) * ga->n_columns,
                   gb->columns, sizeof (FfmPmappingColumn) * gb->n_columns);
  if (!same_refs)
    {
      g_autofree double *rows_a = sorted_value_rows (ga);
      g_autofree double *rows_b = sorted_value_rows (gb);
      g_assert_cmpmem (rows_a, sizeof (double) * ga->n_rows * ga->n_columns,
                       rows_b, sizeof (double) * gb->n_rows * gb->n_columns);
      return;
    }
  g_assert_cmpmem (ga->values, sizeof (double) * ga->n_rows * ga->n_columns,
                   gb->values, sizeof (double) * gb->n_rows * gb->n_columns);
  for (guint r = 0; same_refs && r < ga->n_rows; r++)
    {
      const FfmPmappingModel *m = ffm_einsum_pmappings_get_model (pa, ga->refs[r].template_id);
      g_assert_cmpuint (ga->refs[r].template_id, ==, gb->refs[r].template_id);
      if (ffm_pmapping_model_get_n_loops (m) == 0)
        continue;   /* no tiles kept */
      g_assert_cmpmem (ffm_einsum_pmappings_get_tiles (pa, &ga->refs[r]),
                       sizeof (guint64) * ffm_pmapping_model_get_n_loops (m),
                       ffm_einsum_pmappings_get_tiles (pb, &gb->refs[r]),
                       sizeof (guint64) * ffm_pmapping_model_get_n_loops (m));
    }
}

/* Two sets are equal: same Einsums, groups with equal compatibilities in
 * the same order (or, with @any_order, in any order), equal tables (bit
 * for bit: with @same_refs row for row, with equal references and tiles;
 * otherwise as sets of rows). */
static void
assert_sets_equal_ordered (const FfmPmappingSet *a, const FfmPmappingSet *b,
                           gboolean same_refs, gboolean any_order)
{
  g_assert_cmpuint (ffm_pmapping_set_get_n_einsums (a), ==,
                    ffm_pmapping_set_get_n_einsums (b));
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (a); i++)
    {
      const FfmEinsumPmappings *pa = ffm_pmapping_set_get_einsum (a, i);
      const FfmEinsumPmappings *pb = ffm_pmapping_set_get_einsum (b, i);
      guint n = ffm_einsum_pmappings_get_n_groups (pa);
      g_assert_cmpuint (n, ==, ffm_einsum_pmappings_get_n_groups (pb));
      for (guint k = 0; k < n; k++)
        {
          const FfmPmappingGroup *ga = ffm_einsum_pmappings_get_group (pa, k);
          const FfmPmappingGroup *gb = ffm_einsum_pmappings_get_group (pb, k);
          for (guint j = 0; any_order && j < n
                 && !ffm_compatibility_equal (&ga->compat, &gb->compat); j++)
            gb = ffm_einsum_pmappings_get_group (pb, j);
          assert_groups_equal (pa, ga, pb, gb, same_refs);
        }
    }
}

static void
assert_sets_equal (const FfmPmappingSet *a, const FfmPmappingSet *b,
                   gboolean same_refs)
{
  assert_sets_equal_ordered (a, b, same_refs, FALSE);
}

/* Within every group, the rows form the Pareto set of the other set's
 * group with the same compatibility, as sets of value vectors. */
static void
assert_pareto_sets_equal (const FfmPmappingSet *a, const FfmPmappingSet *b)
{
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (a); i++)
    {
      const FfmEinsumPmappings *pa = ffm_pmapping_set_get_einsum (a, i);
      const FfmEinsumPmappings *pb = ffm_pmapping_set_get_einsum (b, i);
      g_assert_cmpuint (ffm_einsum_pmappings_get_n_groups (pa), ==,
                        ffm_einsum_pmappings_get_n_groups (pb));
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pa); k++)
        {
          const FfmPmappingGroup *ga = ffm_einsum_pmappings_get_group (pa, k);
          const FfmPmappingGroup *gb = NULL;
          for (guint j = 0; j < ffm_einsum_pmappings_get_n_groups (pb) && gb == NULL; j++)
            if (ffm_compatibility_equal (&ga->compat,
                                         &ffm_einsum_pmappings_get_group (pb, j)->compat))
              gb = ffm_einsum_pmappings_get_group (pb, j);
          g_assert_nonnull (gb);
          g_assert_cmpuint (ga->n_rows, ==, gb->n_rows);
          for (guint r = 0; r < ga->n_rows; r++)
            {
              gboolean found = FALSE;
              for (guint s = 0; s < gb->n_rows && !found; s++)
                found = memcmp (ga->values + (gsize) r * ga->n_columns,
                                gb->values + (gsize) s * gb->n_columns,
                                sizeof (double) * ga->n_columns) == 0;
              g_assert_true (found);
            }
        }
    }
}

/* ---- Pareto ---- */

static void
test_pareto (void)
{
  /* rows: 0 (1,5) 1 (2,2) 2 (3,3: dominated by 1) 3 (1,5: duplicate of 0)
   *       4 (5,1) 5 (0,9) */
  double two[] = { 1, 5, 2, 2, 3, 3, 1, 5, 5, 1, 0, 9 };
  double three[] = { 1, 1, 1, 0, 2, 2, 1, 1, 1, 2, 0, 0, 1, 1, 2 };
  guint kept[6];
  guint n;

  g_test_summary ("Pareto pruning keeps exactly the non-dominated rows, the "
                  "first of duplicates, in their original order");
  n = ffm_pareto_prune (two, 6, 2, kept);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpuint (kept[0], ==, 0);
  g_assert_cmpuint (kept[1], ==, 1);
  g_assert_cmpuint (kept[2], ==, 4);
  g_assert_cmpuint (kept[3], ==, 5);
  g_assert_cmpfloat (two[2], ==, 2);
  g_assert_cmpfloat (two[7], ==, 9);
  /* 3 columns: (1,1,1) (0,2,2) (1,1,1)dup (2,0,0) (1,1,2)dominated */
  n = ffm_pareto_prune (three, 5, 3, kept);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpuint (kept[0], ==, 0);
  g_assert_cmpuint (kept[1], ==, 1);
  g_assert_cmpuint (kept[2], ==, 3);
}

/* Lexicographic dominance on (column 0, then column 1), the other columns
 * Pareto, against its definition on random tables. */
static gboolean
lex_dominates (const double *a, const double *b, guint n)
{
  if (a[0] > b[0] || (a[0] == b[0] && a[1] > b[1]))
    return FALSE;
  for (guint c = 2; c < n; c++)
    if (a[c] > b[c])
      return FALSE;
  return TRUE;
}

static void
test_pareto_lexicographic (void)
{
  /* (E, L, R): 1 beats 0 (same E, lower L); 2 loses to 1 (higher E);
   * 3 keeps its lower R; 4 its lower E; 5 duplicates 1 */
  double rows[] = { 1, 5, 2, 1, 3, 2, 2, 1, 2, 2, 1, 1, 0, 9, 3, 1, 3, 2 };
  g_autoptr(GRand) r = g_rand_new_with_seed (7);
  guint kept[64];
  guint n;

  g_test_summary ("Pruning with a lexicographic pair keeps exactly the rows "
                  "no other row beats in the pair (primary, then secondary) "
                  "and in every other column");
  n = ffm_pareto_prune_lexicographic (rows, 6, 3, 0, 1, kept);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpuint (kept[0], ==, 1);
  g_assert_cmpuint (kept[1], ==, 3);
  g_assert_cmpuint (kept[2], ==, 4);
  for (guint trial = 0; trial < 200; trial++)
    {
      guint n_rows = g_rand_int_range (r, 1, 64), n_cols = g_rand_int_range (r, 2, 5);
      double table[64 * 4], copy[64 * 4];
      guint expect = 0, primary = g_rand_int_range (r, 0, 2);
      for (guint i = 0; i < n_rows * n_cols; i++)
        table[i] = copy[i] = g_rand_int_range (r, 0, 4);
      /* the pair as columns 1, 0 half of the time: swap them in the copy */
      if (primary == 1)
        for (guint i = 0; i < n_rows; i++)
          {
            double t = copy[i * n_cols];
            copy[i * n_cols] = copy[i * n_cols + 1];
            copy[i * n_cols + 1] = t;
          }
      n = ffm_pareto_prune_lexicographic (table, n_rows, n_cols, primary,
                                          1 - primary, kept);
      for (guint i = 0; i < n_rows; i++)
        {
          gboolean beaten = FALSE;
          for (guint j = 0; j < n_rows && !beaten; j++)
            beaten = j != i && lex_dominates (copy + j * n_cols, copy + i * n_cols, n_cols)
              && (j < i || !lex_dominates (copy + i * n_cols, copy + j * n_cols, n_cols));
          if (!beaten)
            {
              g_assert_cmpuint (expect, <, n);
              g_assert_cmpuint (kept[expect], ==, i);
              expect++;
            }
        }
      g_assert_cmpuint (n, ==, expect);
    }
}

/* Pruning a table whose first rows are a Pareto set already (the groups
 * of the tile search, pruned as they grow) gives what pruning the whole
 * table gives: the same survivors, values and indices, with and without a
 * lexicographic pair, appended rows copying front rows included. */
static void
test_pareto_front (void)
{
  g_autoptr(GRand) r = g_rand_new_with_seed (11);
  enum { MAX_ROWS = 400, MAX_COLS = 12 };
  g_autofree double *table = g_new (double, MAX_ROWS * MAX_COLS);
  g_autofree double *whole = g_new (double, MAX_ROWS * MAX_COLS);
  guint kept_front[MAX_ROWS], kept_whole[MAX_ROWS], dropped = 0;

  g_test_summary ("Pruning rows appended to a Pareto front equals pruning "
                  "the whole table");
  for (guint trial = 0; trial < 400; trial++)
    {
      guint n_cols = g_rand_int_range (r, 1, MAX_COLS + 1);
      guint n_first = g_rand_int_range (r, 0, MAX_ROWS / 2);
      int primary = n_cols >= 2 && g_rand_boolean (r) ? g_rand_int_range (r, 0, 2) : -1;
      int secondary = primary >= 0 ? 1 - primary : -1;
      guint levels = g_rand_int_range (r, 2, 40);
      guint n_front, n_rows, n_a, n_b;

      for (guint i = 0; i < n_first * n_cols; i++)
        table[i] = g_rand_int_range (r, 0, (gint) levels);
      n_front = primary >= 0
        ? ffm_pareto_prune_lexicographic (table, n_first, n_cols, (guint) primary,
                                          (guint) secondary, NULL)
        : ffm_pareto_prune (table, n_first, n_cols, NULL);
      n_rows = n_front + g_rand_int_range (r, 0, MAX_ROWS / 2);
      for (guint i = n_front; i < n_rows; i++)
        {
          if (n_front > 0 && g_rand_int_range (r, 0, 8) == 0)
            memcpy (table + (gsize) i * n_cols,
                    table + (gsize) g_rand_int_range (r, 0, (gint) n_front) * n_cols,
                    sizeof (double) * n_cols);
          else
            for (guint c = 0; c < n_cols; c++)
              table[(gsize) i * n_cols + c] = g_rand_int_range (r, 0, (gint) levels);
        }
      memcpy (whole, table, sizeof (double) * n_rows * n_cols);
      n_a = primary >= 0
        ? ffm_pareto_prune_lexicographic_front (table, n_rows, n_cols, n_front,
                                                (guint) primary, (guint) secondary,
                                                kept_front)
        : ffm_pareto_prune_front (table, n_rows, n_cols, n_front, kept_front);
      n_b = primary >= 0
        ? ffm_pareto_prune_lexicographic (whole, n_rows, n_cols, (guint) primary,
                                          (guint) secondary, kept_whole)
        : ffm_pareto_prune (whole, n_rows, n_cols, kept_whole);
      g_assert_cmpuint (n_a, ==, n_b);
      g_assert_cmpmem (kept_front, sizeof (guint) * n_a, kept_whole, sizeof (guint) * n_b);
      g_assert_cmpmem (table, sizeof (double) * n_a * n_cols,
                       whole, sizeof (double) * n_b * n_cols);
      for (guint i = 0; i < n_a; i++)
        dropped += kept_front[i] < n_front ? 0 : 1;
      dropped += n_rows - n_a;
    }
  /* the trials exercised both halves: appended rows survived and fell */
  g_assert_cmpuint (dropped, >, 0);
}

/* Large tables with many survivors (points near a simplex: every column
 * trades against the others) take the filter and k-d tree path of the
 * pruning (ffm-pareto.c); its survivors must be exactly the rows no other
 * row beats, by the definition, with and without a lexicographic pair. */
static void
test_pareto_many (void)
{
  g_autoptr(GRand) r = g_rand_new_with_seed (5);
  enum { N_ROWS = 9000, MAX_COLS = 12 };
  /* the last two: few values in the first two columns, so that rows tie
   * there and the others decide */
  static const guint cols[] = { 5, 8, 12, 12, 6, 6 };
  g_autofree double *table = g_new (double, N_ROWS * MAX_COLS);
  g_autofree double *copy = g_new (double, N_ROWS * MAX_COLS);
  g_autofree double *orig = g_new (double, N_ROWS * MAX_COLS);
  g_autofree guint *kept = g_new (guint, N_ROWS);
  guint most = 0;

  g_test_summary ("Pruning large tables with many survivors keeps exactly the "
                  "rows no other row beats");
  for (guint trial = 0; trial < G_N_ELEMENTS (cols); trial++)
    {
      guint n_cols = cols[trial];
      int primary = trial % 2 == 1 ? (int) (trial / 2 % 2) : -1;
      guint n, expect = 0;

      for (guint i = 0; i < N_ROWS; i++)
        {
          double *row = table + (gsize) i * n_cols, sum = 0;
          if (i > 0 && g_rand_int_range (r, 0, 20) == 0)
            {
              /* a copy of an earlier row */
              memcpy (row, table + (gsize) g_rand_int_range (r, 0, (gint) i) * n_cols,
                      sizeof (double) * n_cols);
              continue;
            }
          for (guint c = 0; c < n_cols; c++)
            sum += row[c] = g_rand_double_range (r, 0.01, 1);
          for (guint c = 0; c < n_cols; c++)
            {
              /* on the simplex, rounded (ties), or above it (dominated) */
              row[c] = floor (row[c] / sum * 1000);
              if (g_rand_int_range (r, 0, 4) == 0)
                row[c] += g_rand_int_range (r, 0, 50);
            }
          if (trial >= 4)
            for (guint c = 0; c < 2; c++)
              row[c] = g_rand_int_range (r, 0, 3);
          /* infinite columns (the join's open reservations are -inf):
           * the sort keys' sums of -inf and +inf are NaN */
          for (guint k = 0; k < 2; k++)
            if (g_rand_int_range (r, 0, 10) == 0)
              row[2 + g_rand_int_range (r, 0, (gint) n_cols - 2)]
                = g_rand_boolean (r) ? -INFINITY : INFINITY;
        }
      memcpy (orig, table, sizeof (double) * N_ROWS * n_cols);
      memcpy (copy, table, sizeof (double) * N_ROWS * n_cols);
      if (primary == 1)
        for (guint i = 0; i < N_ROWS; i++)
          {
            double t = copy[(gsize) i * n_cols];
            copy[(gsize) i * n_cols] = copy[(gsize) i * n_cols + 1];
            copy[(gsize) i * n_cols + 1] = t;
          }
      n = primary >= 0
        ? ffm_pareto_prune_lexicographic (table, N_ROWS, n_cols, (guint) primary,
                                          (guint) (1 - primary), kept)
        : ffm_pareto_prune (table, N_ROWS, n_cols, kept);
      for (guint i = 0; i < N_ROWS; i++)
        {
          const double *ri = copy + (gsize) i * n_cols;
          gboolean beaten = FALSE;
          for (guint j = 0; j < N_ROWS && !beaten; j++)
            {
              const double *rj = copy + (gsize) j * n_cols;
              if (j == i)
                continue;
              if (primary >= 0)
                beaten = lex_dominates (rj, ri, n_cols)
                  && (j < i || !lex_dominates (ri, rj, n_cols));
              else
                beaten = ffm_pareto_dominates (rj, ri, n_cols)
                  && (j < i || !ffm_pareto_dominates (ri, rj, n_cols));
            }
          if (!beaten)
            {
              g_assert_cmpuint (expect, <, n);
              g_assert_cmpuint (kept[expect], ==, i);
              expect++;
            }
        }
      g_assert_cmpuint (n, ==, expect);
      g_test_message ("%u columns%s: %u of %u rows survive", n_cols,
                      primary >= 0 ? " (a lexicographic pair)" : "", n, (guint) N_ROWS);
      most = MAX (most, n);

      /* The same table's first half pruned, the second appended: pruning
       * with that front gives what pruning it whole gives (both large:
       * the tree checks the new rows and the front's rows). */
      {
        g_autofree double *whole = g_new (double, N_ROWS * MAX_COLS);
        g_autofree guint *kept_whole = g_new (guint, N_ROWS);
        guint half = N_ROWS / 2, n_front, n_rows, n_a, n_b;
        memcpy (table, orig, sizeof (double) * N_ROWS * n_cols);
        memcpy (whole, table + (gsize) half * n_cols, sizeof (double) * half * n_cols);
        n_front = primary >= 0
          ? ffm_pareto_prune_lexicographic (table, half, n_cols, (guint) primary,
                                            (guint) (1 - primary), NULL)
          : ffm_pareto_prune (table, half, n_cols, NULL);
        memcpy (table + (gsize) n_front * n_cols, whole, sizeof (double) * half * n_cols);
        n_rows = n_front + half;
        memcpy (whole, table, sizeof (double) * n_rows * n_cols);
        n_a = primary >= 0
          ? ffm_pareto_prune_lexicographic_front (table, n_rows, n_cols, n_front,
                                                  (guint) primary, (guint) (1 - primary),
                                                  kept)
          : ffm_pareto_prune_front (table, n_rows, n_cols, n_front, kept);
        n_b = primary >= 0
          ? ffm_pareto_prune_lexicographic (whole, n_rows, n_cols, (guint) primary,
                                            (guint) (1 - primary), kept_whole)
          : ffm_pareto_prune (whole, n_rows, n_cols, kept_whole);
        g_assert_cmpuint (n_a, ==, n_b);
        g_assert_cmpmem (kept, sizeof (guint) * n_a, kept_whole, sizeof (guint) * n_b);
        g_assert_cmpmem (table, sizeof (double) * n_a * n_cols,
                         whole, sizeof (double) * n_b * n_cols);
      }
    }
  /* enough survivors that the tree, not the plain scan, decided */
  g_assert_cmpuint (most, >, 8192);
}

/* ---- Brute force ---- */

typedef enum {
  B_STORAGE = 1,
  B_TEMPORAL,
  B_SPATIAL,
} BKind;

typedef struct {
  BKind kind;
  guint access;
  guint level;
  gboolean backing;
  gboolean persistent;
  guint var;
  guint dim;
} BItem;

/* What the witness compares of a pmapping: energy, latency, then the
 * reservation of each of 8 levels at depths -1, 0 and 1 (with at most one
 * fused loop, depth 1 is the deepest; a pmapping without fused loops has
 * its whole use at depths 0 and 1). */
#define BROW_DEPTHS 3
#define BROW_COLUMNS (2 + 8 * BROW_DEPTHS)

/* The brute-force pmappings of one relaxed key, kept Pareto-pruned. */
typedef struct {
  FfmCompatibility compat;  /* of the first one, for messages */
  GArray *rows;             /* of double, BROW_COLUMNS per row */
  guint n_rows;
  guint pruned;
} Front;

static void
front_free (gpointer data)
{
  Front *f = data;
  g_array_free (f->rows, TRUE);
  g_free (f);
}

static void
front_prune (Front *f)
{
  f->n_rows = ffm_pareto_prune ((double *) f->rows->data, f->n_rows,
                                BROW_COLUMNS, NULL);
  g_array_set_size (f->rows, (gsize) f->n_rows * BROW_COLUMNS);
  f->pruned = f->n_rows;
}

static void relaxed_key (const FfmCompatibility *c, GString *key);

typedef struct {
  FfmWorkload *w;
  FfmArch *a;
  guint einsum;
  const FfmEinsum *e;
  guint compute;
  guint *path;
  guint n_path;
  int first_memory;
  int fanout;               /* the fanout level on the path, or -1 */
  guint64 kept[16];
  guint64 shared, inter, persistent, direct[8];
  GHashTable *fronts;       /* relaxed key -> Front* */
  guint64 evaluated;
  guint64 valid;
  double best_energy, best_latency, best_edp;
  double energy_tie, latency_tie;   /* latency of the least energy, and back */
  int max_fused;
  guint imperfect;          /* FfmImperfect: loop kinds that may leave remainders */
  const FfmBoundConstraints *bound;  /* keep only what it admits; may be NULL */
  guint64 rejected;         /* pmappings the constraints do not admit */
  /* The storage choices' lower bounds (ffm-storage-bound.h), witnessed
   * at every pmapping evaluated (not with remainder tiles, where the
   * generator does not use them): the current choice's. */
  FfmStorageBound *storage_bound;
  double choice_energy, choice_latency;
  guint64 bound_checked;    /* pmappings checked against them */
} Brute;

static void brute_loops (Brute *b, const BItem *nodes, guint n_nodes, guint n_g0);

static void
brute_choose (Brute *b, guint p)
{
  guint64 must, may, free_set, sub = 0;
  guint level;

  if (p == b->n_path)
    {
      guint64 all = 0;
      BItem g0[16], rest[16];
      guint n_g0 = 0, n_rest = 0;
      guint64 seen = 0;
      for (guint q = 0; q < b->n_path; q++)
        all |= b->kept[b->path[q]];
      if (all != BIT (b->e->n_accesses) - 1)
        return;
      if (b->storage_bound != NULL)
        {
          /* the sum of per-tensor terms is the whole path's bound */
          double direct, latency;
          guint64 chains[FFM_MAX_EINSUM_TENSORS];
          ffm_storage_bound_chains (b->storage_bound, b->kept, chains);
          g_assert_true (ffm_storage_bound_evaluate (b->storage_bound, chains,
                                                     &b->choice_energy,
                                                     &b->choice_latency, NULL));
          g_assert_true (ffm_storage_bound_evaluate_direct (b->storage_bound, chains,
                                                            &direct, &latency, NULL));
          g_assert_cmpfloat (fabs (direct - b->choice_energy), <=, 1e-12 * direct);
          g_assert_cmpfloat (latency, ==, b->choice_latency);
        }
      for (guint q = 0; q < b->n_path; q++)
        for (guint a = 0; a < b->e->n_accesses; a++)
          if (b->kept[b->path[q]] & BIT (a))
            {
              BItem it = { B_STORAGE, a, b->path[q], !(seen & BIT (a)), FALSE, 0, 0 };
              it.persistent = it.backing && (b->persistent & BIT (a));
              seen |= BIT (a);
              if ((int) it.level == b->first_memory || it.persistent)
                g0[n_g0++] = it;
              else
                rest[n_rest++] = it;
            }
      /* every permutation of the rest that keeps memories in order */
      {
        guint idx[16];
        for (guint i = 0; i < n_rest; i++)
          idx[i] = i;
        for (;;)
          {
            BItem order[32];
            gboolean sorted = TRUE;
            guint n = 0;
            for (guint i = 0; i < n_g0; i++)
              order[n++] = g0[i];
            for (guint i = 0; i < n_rest; i++)
              {
                order[n++] = rest[idx[i]];
                if (i > 0 && rest[idx[i]].level < rest[idx[i - 1]].level)
                  sorted = FALSE;
              }
            if (sorted)
              brute_loops (b, order, n, n_g0);
            /* next permutation */
            {
              gint i, j;
              for (i = (gint) n_rest - 2; i >= 0 && idx[i] > idx[i + 1]; i--)
                ;
              if (i < 0)
                break;
              for (j = (gint) n_rest - 1; idx[j] < idx[i]; j--)
                ;
              { guint t = idx[i]; idx[i] = idx[j]; idx[j] = t; }
              for (guint x = i + 1, y = n_rest - 1; x < y; x++, y--)
                { guint t = idx[x]; idx[x] = idx[y]; idx[y] = t; }
            }
          }
      }
      return;
    }
  level = b->path[p];
  if (ffm_arch_get_level (b->a, level)->kind != FFM_LEVEL_MEMORY)
    {
      brute_choose (b, p + 1);
      return;
    }
  g_assert_true (ffm_arch_eval_keep (b->a, level, b->w, b->einsum, b->kept,
                                     &must, &may, NULL));
  free_set = may & ~must;
  for (;;)
    {
      b->kept[level] = must | sub;
      brute_choose (b, p + 1);
      if (sub == free_set)
        break;
      sub = (sub - free_set) & free_set;
    }
  b->kept[level] = 0;
}

/* Loop kinds a gap may hold: temporal per var; spatial per var in the
 * fanout's gap. */
typedef struct {
  BKind kind;
  guint var;
  gboolean after;           /* remainder tiles: a temporal loop after the
                               spatial loop over the same variable */
} LoopKind;

typedef struct {
  Brute *b;
  const BItem *nodes;
  guint n_nodes;
  guint n_g0;
  guint n_gaps;
  guint gap_node[16];       /* gap g follows node gap_node[g]-1 (0: before any) */
  int fanout_gap;
  LoopKind kinds[16][12];
  guint n_kinds[16];
  BItem seq[16][12];        /* chosen loops per gap */
  guint n_seq[16];
} Gaps;

static void brute_tiles (Brute *b, const BItem *items, guint n);

static void
brute_gap (Gaps *g, guint gap)
{
  Brute *b = g->b;

  if (gap == g->n_gaps)
    {
      BItem items[64];
      guint n = 0, node = 0;
      guint64 has_loop = 0;
      for (guint k = 0; k < g->n_gaps; k++)
        {
          while (node < g->gap_node[k])
            items[n++] = g->nodes[node++];
          for (guint i = 0; i < g->n_seq[k]; i++)
            {
              items[n++] = g->seq[k][i];
              has_loop |= BIT (g->seq[k][i].var);
            }
        }
      while (node < g->n_nodes)
        items[n++] = g->nodes[node++];
      for (guint v = 0; v < b->e->n_rank_vars; v++)
        if (b->e->rank_var_bounds[v] > 1 && !(has_loop & BIT (v)))
          return;
      brute_tiles (b, items, n);
      return;
    }
  /* every ordered subset of the gap's loop kinds (each kind at most once) */
  {
    guint k = g->n_kinds[gap];
    guint used = 0;
    /* iterative DFS over sequences */
    guint stack[12], depth = 0;
    stack[0] = 0;
    g->n_seq[gap] = 0;
    brute_gap (g, gap + 1);
    for (;;)
      {
        if (stack[depth] < k)
          {
            guint c = stack[depth]++;
            if (used & (1u << c))
              continue;
            /* With remainder tiles the mapspace puts a gap's spatial loop
             * below its temporal loop over the same variable, and may have
             * a second temporal loop over it below the spatial one. */
            if (b->imperfect && g->kinds[gap][c].kind == B_TEMPORAL)
              {
                gboolean after_spatial = FALSE;
                for (guint q = 0; q < depth; q++)
                  after_spatial |= g->seq[gap][q].kind == B_SPATIAL
                    && g->seq[gap][q].var == g->kinds[gap][c].var;
                if (after_spatial != g->kinds[gap][c].after)
                  continue;
              }
            used |= 1u << c;
            g->seq[gap][depth] = (BItem) { g->kinds[gap][c].kind, 0,
                                           g->kinds[gap][c].kind == B_SPATIAL
                                           ? (guint) b->fanout : 0,
                                           FALSE, FALSE, g->kinds[gap][c].var, 0 };
            g->n_seq[gap] = depth + 1;
            brute_gap (g, gap + 1);
            depth++;
            stack[depth] = 0;
            continue;
          }
        if (depth == 0)
          break;
        depth--;
        used &= ~(1u << (stack[depth] - 1));
      }
    g->n_seq[gap] = 0;
  }
}

static void
brute_loops (Brute *b, const BItem *nodes, guint n_nodes, guint n_g0)
{
  Gaps g = { 0 };
  guint64 stored = 0;

  g.b = b;
  g.nodes = nodes;
  g.n_nodes = n_nodes;
  g.n_g0 = n_g0;
  g.fanout_gap = -1;
  /* gaps: after G0, then after each other node */
  for (guint i = n_g0; i <= n_nodes; i++)
    {
      guint gap = g.n_gaps++;
      g.gap_node[gap] = i;
      stored = 0;
      for (guint k = 0; k < i; k++)
        stored |= BIT (nodes[k].access);
      for (guint v = 0; v < b->e->n_rank_vars; v++)
        {
          gboolean ok = b->e->rank_var_bounds[v] > 1;
          for (guint a = 0; a < b->e->n_accesses && ok; a++)
            if (!(stored & BIT (a)) && !(b->direct[a] & BIT (v)))
              ok = FALSE;   /* no recomputation */
          if (ok)
            g.kinds[gap][g.n_kinds[gap]++] = (LoopKind) { B_TEMPORAL, v, FALSE };
        }
      if (b->fanout >= 0)
        {
          gboolean above = i == 0 || nodes[i - 1].level < (guint) b->fanout;
          gboolean below = i == n_nodes || nodes[i].level > (guint) b->fanout;
          if (above && below)
            {
              guint64 allowed;
              g_assert_true (ffm_arch_fanout_spatial_vars (b->a, b->fanout, 0, b->w,
                                                           b->einsum, &allowed, NULL));
              g.fanout_gap = gap;
              for (guint v = 0; v < b->e->n_rank_vars; v++)
                {
                  gboolean ok = b->e->rank_var_bounds[v] > 1 && (allowed & BIT (v));
                  for (guint a = 0; a < b->e->n_accesses && ok; a++)
                    if (!(stored & BIT (a)) && ((b->shared | b->inter) & BIT (a))
                        && !(b->direct[a] & BIT (v)))
                      ok = FALSE;
                  if (ok)
                    g.kinds[gap][g.n_kinds[gap]++] = (LoopKind) { B_SPATIAL, v, FALSE };
                }
              /* the temporal loops that may follow the spatial ones */
              for (guint k = 0, n0 = g.n_kinds[gap]; b->imperfect && k < n0; k++)
                if (g.kinds[gap][k].kind == B_SPATIAL)
                  for (guint q = 0; q < n0; q++)
                    if (g.kinds[gap][q].kind == B_TEMPORAL
                        && g.kinds[gap][q].var == g.kinds[gap][k].var)
                      g.kinds[gap][g.n_kinds[gap]++] =
                        (LoopKind) { B_TEMPORAL, g.kinds[gap][k].var, TRUE };
            }
        }
    }
  brute_gap (&g, 0);
}

typedef struct {
  Brute *b;
  FfmPmappingModel *m;
  GPtrArray *nodes;         /* the path, tiles set at each leaf for the
                               constraints' check */
  FfmPmappingCost *cost;
  guint n_loops;
  guint64 tiles[64];
  guint var_loops[8][64];
  guint var_n[8];
  guint n_fused;
} Tiles;

/* The mapspace with remainder tiles: the first loop of more than one
 * iteration of a variable (every loop above it takes the whole bound), if
 * its kind may, takes any tile that is the smallest giving its iteration
 * count; the loops below divide. */
static gboolean
remainder_tile_ok (const Tiles *t, guint v, guint i, guint64 outer, guint64 d)
{
  const FfmLoopInfo *l = ffm_pmapping_model_get_loop (t->m, t->var_loops[v][i]);
  guint64 count = (outer + d - 1) / d;

  if (!(t->b->imperfect & (l->spatial ? FFM_IMPERFECT_SPATIAL : FFM_IMPERFECT_TEMPORAL))
      || outer != t->b->e->rank_var_bounds[v])
    return FALSE;
  return (outer + count - 1) / count == d;
}

static void
brute_assign (Tiles *t, guint v, guint i, guint64 outer)
{
  Brute *b = t->b;

  if (v == b->e->n_rank_vars)
    {
      FfmCompatibility compat;
      g_autoptr(GArray) cols = g_array_new (FALSE, FALSE, sizeof (FfmPmappingColumn));
      g_autoptr(GArray) vals = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr(GString) key = g_string_new (NULL);
      double row[BROW_COLUMNS] = { 0 };
      Front *front;
      guint fused = 0, per_var[8] = { 0 };

      for (guint j = 0; j < t->n_fused; j++)
        {
          const FfmLoopInfo *l = ffm_pmapping_model_get_loop (t->m, j);
          guint64 enclosing = l->enclosing >= 0 ? t->tiles[l->enclosing]
            : b->e->rank_var_bounds[l->rank_var];
          if (t->tiles[j] < enclosing)
            {
              fused++;
              per_var[l->rank_var]++;
              if (per_var[l->rank_var] > 1)
                return;
            }
        }
      if (b->max_fused >= 0 && (int) fused > b->max_fused)
        return;
      if (b->bound != NULL)
        {
          for (guint j = 0; j < t->n_loops; j++)
            ((FfmMappingNode *) g_ptr_array_index (t->nodes,
                                                   ffm_pmapping_model_get_loop (t->m, j)->node))->tile
              = t->tiles[j];
          if (!ffm_bound_constraints_admit_pmapping (b->bound, b->einsum,
                                                     (const FfmMappingNode *const *) t->nodes->pdata,
                                                     t->nodes->len, NULL))
            {
              b->rejected++;
              return;
            }
        }
      ffm_pmapping_model_evaluate (t->m, t->tiles, t->cost);
      b->evaluated++;
      if (b->storage_bound != NULL
          && (t->cost->status == FFM_COST_VALID || t->cost->status == FFM_COST_DOES_NOT_FIT))
        {
          /* the choice's bounds hold, fitting or not (the latency's
           * exactly: the generator compares latencies with it as they are) */
          g_assert_cmpfloat (t->cost->dynamic_energy, >=, b->choice_energy * (1 - 1e-12));
          g_assert_cmpfloat (t->cost->latency, >=, b->choice_latency);
          b->bound_checked++;
        }
      if (t->cost->status != FFM_COST_VALID)
        return;
      g_assert_true (ffm_pmapping_describe (b->w, b->a, t->m, t->tiles, t->cost,
                                            FFM_PMAPPING_ENERGY | FFM_PMAPPING_LATENCY,
                                            &compat, cols, vals));
      row[0] = t->cost->energy;
      row[1] = t->cost->latency;
      for (guint c = 0; c < cols->len; c++)
        {
          const FfmPmappingColumn *cd = &g_array_index (cols, FfmPmappingColumn, c);
          if (cd->kind != FFM_PMAPPING_COLUMN_RESERVATION)
            continue;
          g_assert_cmpuint (cd->level, <, 8);
          g_assert_cmpint (cd->depth, <, BROW_DEPTHS - 1);
          for (int d = cd->depth; d < BROW_DEPTHS - 1; d++)
            row[2 + cd->level * BROW_DEPTHS + (d + 1)] = g_array_index (vals, double, c);
        }
      b->valid++;
      if (row[0] < b->best_energy || (row[0] == b->best_energy && row[1] < b->energy_tie))
        b->energy_tie = row[1];
      if (row[1] < b->best_latency || (row[1] == b->best_latency && row[0] < b->latency_tie))
        b->latency_tie = row[0];
      b->best_energy = MIN (b->best_energy, row[0]);
      b->best_latency = MIN (b->best_latency, row[1]);
      b->best_edp = MIN (b->best_edp, row[0] * row[1]);
      relaxed_key (&compat, key);
      front = g_hash_table_lookup (b->fronts, key->str);
      if (front == NULL)
        {
          front = g_new0 (Front, 1);
          front->compat = compat;
          front->rows = g_array_new (FALSE, FALSE, sizeof (double));
          g_hash_table_insert (b->fronts, g_strdup (key->str), front);
        }
      g_array_append_vals (front->rows, row, BROW_COLUMNS);
      front->n_rows++;
      if (front->n_rows > 2 * front->pruned + 256)
        front_prune (front);
      return;
    }
  if (i == t->var_n[v])
    {
      brute_assign (t, v + 1, 0, b->e->rank_var_bounds[v + 1 < b->e->n_rank_vars ? v + 1 : v]);
      return;
    }
  if (i == t->var_n[v] - 1)
    {
      t->tiles[t->var_loops[v][i]] = 1;
      brute_assign (t, v, i + 1, 1);
      return;
    }
  for (guint64 d = 1; d <= outer; d++)
    if (outer % d == 0 || remainder_tile_ok (t, v, i, outer, d))
      {
        t->tiles[t->var_loops[v][i]] = d;
        brute_assign (t, v, i + 1, d);
      }
}

static void
brute_tiles (Brute *b, const BItem *items, guint n)
{
  g_autoptr(GPtrArray) nodes = ffm_mapping_node_list_new ();
  g_autoptr(GError) error = NULL;
  Tiles t = { 0 };
  int last_shared_backing = -1;
  guint loops = 0;

  for (guint i = 0; i < n; i++)
    {
      const BItem *it = &items[i];
      if (it->kind == B_STORAGE)
        {
          const char *names[] = {
            ffm_workload_get_tensor (b->w, b->e->accesses[it->access].tensor)->name, NULL };
          g_ptr_array_add (nodes, ffm_mapping_node_new_storage (names,
                                                                ffm_arch_get_level (b->a, it->level)->name,
                                                                it->persistent));
          if (it->backing && (b->shared & BIT (it->access)))
            last_shared_backing = loops;
        }
      else if (it->kind == B_TEMPORAL)
        {
          g_ptr_array_add (nodes, ffm_mapping_node_new_temporal (b->e->rank_var_names[it->var], 1));
          loops++;
        }
      else
        {
          const FfmLevel *f = ffm_arch_get_level (b->a, it->level);
          g_ptr_array_add (nodes, ffm_mapping_node_new_spatial (b->e->rank_var_names[it->var], 1,
                                                                f->name, f->u.fanout.dims[0].name));
          loops++;
        }
    }
  g_ptr_array_add (nodes, ffm_mapping_node_new_compute (b->e->name,
                                                        ffm_arch_get_level (b->a, b->compute)->name));
  t.m = ffm_pmapping_model_new (b->w, b->a, (const FfmMappingNode *const *) nodes->pdata,
                                nodes->len, NULL, &error);
  g_assert_no_error (error);
  t.b = b;
  t.nodes = ffm_mapping_node_list_new ();
  for (guint i = 0; i < nodes->len; i++)
    g_ptr_array_add (t.nodes, ffm_mapping_node_copy (g_ptr_array_index (nodes, i)));
  t.cost = ffm_pmapping_cost_new (t.m);
  t.n_loops = ffm_pmapping_model_get_n_loops (t.m);
  t.n_fused = last_shared_backing < 0 ? 0 : (guint) last_shared_backing;
  for (guint j = 0; j < t.n_loops; j++)
    {
      guint v = ffm_pmapping_model_get_loop (t.m, j)->rank_var;
      t.var_loops[v][t.var_n[v]++] = j;
    }
  /* variables without loops have bound 1; start the chain of var 0 */
  {
    guint v0 = 0;
    brute_assign (&t, v0, 0, b->e->rank_var_bounds[0]);
  }
  ffm_pmapping_cost_free (t.cost);
  ffm_pmapping_model_free (t.m);
  g_ptr_array_unref (t.nodes);
}

static Brute *
brute_force (FfmWorkload *w, FfmArch *a, guint einsum, int max_fused,
             guint imperfect, const FfmBoundConstraints *bound)
{
  Brute *bp = g_new0 (Brute, 1);
#define b (*bp)
  const FfmEinsum *e = ffm_workload_get_einsum (w, einsum);
  guint n_levels = ffm_arch_get_n_levels (a);

  b.w = w;
  b.a = a;
  b.einsum = einsum;
  b.e = e;
  b.max_fused = max_fused;
  b.imperfect = imperfect;
  b.bound = bound;
  b.fronts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, front_free);
  b.best_energy = b.best_latency = b.best_edp = INFINITY;
  b.energy_tie = b.latency_tie = INFINITY;
  b.fanout = -1;
  for (guint l = 0; l < n_levels; l++)
    if (ffm_arch_get_level (a, l)->kind == FFM_LEVEL_COMPUTE)
      b.compute = l;
  b.path = ffm_arch_get_compute_path (a, b.compute, &b.n_path);
  b.first_memory = b.path[0];
  for (guint p = 0; p < b.n_path; p++)
    if (ffm_arch_get_level (a, b.path[p])->kind == FFM_LEVEL_FANOUT)
      b.fanout = b.path[p];
  for (guint ac = 0; ac < e->n_accesses; ac++)
    {
      const FfmTensor *t = ffm_workload_get_tensor (w, e->accesses[ac].tensor);
      if (t->classes & FFM_TENSOR_SHARED)
        b.shared |= BIT (ac);
      if (t->classes & FFM_TENSOR_INTERMEDIATE)
        b.inter |= BIT (ac);
      if (t->classes & FFM_TENSOR_PERSISTENT)
        b.persistent |= BIT (ac);
      for (guint r = 0; r < t->n_ranks; r++)
        if (e->accesses[ac].projections[r].n_terms == 1)
          b.direct[ac] |= BIT (e->accesses[ac].projections[r].terms[0].var);
    }
  if (!imperfect)
    b.storage_bound = ffm_storage_bound_new (w, a, einsum, b.compute);
  brute_choose (bp, 0);
  g_clear_pointer (&b.storage_bound, ffm_storage_bound_free);
  g_free (b.path);
#undef b
  return bp;
}

/* The loops of one shared tensor in a canonical order (the join may
 * permute loops; this witness ignores order). */
static void
relaxed_key (const FfmCompatibility *c, GString *key)
{
  for (guint t = 0; t < c->n_tensors; t++)
    {
      const FfmCompatTensor *ct = &c->tensors[t];
      guint64 loops[FFM_COMPAT_MAX_LOOPS];
      /* rank, kind, count and (remainder tiles: the count does not fix
       * the tile) tile */
      for (guint k = 0; k < ct->n_loops; k++)
        loops[k] = ((guint64) ct->ranks[k] << 56) | ((guint64) c->loops[k].spatial << 55)
          | (c->loops[k].count << 24) | c->loops[k].tile;
      for (guint x = 1; x < ct->n_loops; x++)
        for (guint y = x; y > 0 && loops[y - 1] > loops[y]; y--)
          {
            guint64 tmp = loops[y];
            loops[y] = loops[y - 1];
            loops[y - 1] = tmp;
          }
      g_string_append_printf (key, "%u@%u%c:", ct->tensor, ct->backing_level,
                              ct->persistent ? 'p' : '-');
      for (guint k = 0; k < ct->n_loops; k++)
        g_string_append_printf (key, "%" G_GINT64_MODIFIER "x,", loops[k]);
      g_string_append_c (key, ';');
    }
}

/* Every row of @set rebuilds to a pmapping @bound admits. */
static void
assert_rows_admitted (FfmWorkload *w, FfmArch *a, const FfmPmappingSet *set,
                      const FfmBoundConstraints *bound)
{
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
        {
          const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
          for (guint r = 0; r < g->n_rows; r++)
            {
              g_autoptr (GPtrArray) nodes = ffm_einsum_pmappings_rebuild (pm, &g->refs[r],
                                                                          FALSE);
              g_autoptr (GString) why = g_string_new (NULL);
              gboolean ok = ffm_bound_constraints_admit_pmapping (bound,
                                                                  ffm_einsum_pmappings_get_einsum (pm),
                                                                  (const FfmMappingNode *const *) nodes->pdata,
                                                                  nodes->len, why);
              if (!ok)
                g_test_message ("generated pmapping not admitted: %s", why->str);
              g_assert_true (ok);
            }
        }
    }
}

/* @set's optimum equals @brute's in energy, latency and EDP, and the
 * generations with each objective's tie-break (lexicographic pruning) keep
 * the least energy of least latency and the least latency of least energy
 * (with @diagnostics: every tile vector evaluated, every memory tracked). */
static void
assert_best_as_brute (FfmWorkload *w, FfmArch *a, const FfmPmappingSet *set,
                      const FfmPmappingOptions *options, gboolean diagnostics,
                      const Brute *brute)
{
  double ge, gl, gedp;

  g_assert_cmpuint (brute->valid, >, 0);
  best_of_set (ffm_pmapping_set_get_einsum (set, 0), &ge, &gl, &gedp);
  g_assert_cmpfloat (ge, ==, brute->best_energy);
  g_assert_cmpfloat (gl, ==, brute->best_latency);
  g_assert_cmpfloat (gedp, ==, brute->best_edp);
  for (int first = 0; first < 2; first++)
    {
      g_autoptr(FfmPmappingSet) lex = NULL;
      double best, tie;
      FfmPmappingOptions lo = *options;
      lo.objectives = ffm_pmapping_objectives_for (first == 0 ? FFM_OBJECTIVE_ENERGY
                                                   : FFM_OBJECTIVE_LATENCY);
      lex = generate_with_debug (w, a, &lo, diagnostics ? "track-all-memories" : "");
      lex_best_of_set (ffm_pmapping_set_get_einsum (lex, 0), first == 0, &best, &tie);
      g_assert_cmpfloat (best, ==, first == 0 ? brute->best_energy : brute->best_latency);
      g_assert_cmpfloat (tie, ==, first == 0 ? brute->energy_tie : brute->latency_tie);
    }
}

/* Checks the generator against brute force on one Einsum, under
 * @constraints (may be NULL). */
static void
check_against_brute_force_constrained (FfmWorkload *w, FfmArch *a, guint einsum,
                                       guint imperfect,
                                       const FfmConstraints *constraints)
{
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) set = NULL;
  g_autoptr(FfmPmappingSet) unpruned = NULL;
  const FfmEinsumPmappings *pm;
  Brute *brute;
  GHashTableIter iter;
  gpointer key_ptr, front_ptr;
  g_autoptr(GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                        g_free, NULL);
  GPtrArray *keyed_rows;

  g_autoptr (FfmBoundConstraints) bound = NULL;

  ffm_pmapping_options_init (&options);
  options.einsum = einsum;
  options.n_threads = 1;
  /* the one-loop space (its witness below needs it; the optimality tests
   * cover more fused loops) */
  options.max_fused_loops = 1;
  test_debug_push ("track-all-memories");
  options.imperfect = imperfect;
  options.constraints = constraints;
  if (constraints != NULL)
    {
      g_autoptr (GError) error = NULL;
      bound = ffm_constraints_bind (constraints, w, a, &error);
      g_assert_no_error (error);
      set = ffm_pmappings_generate (w, a, &options, &error);
      if (set == NULL)
        {
          /* Nothing satisfies the constraints: brute force agrees. */
          g_test_message ("einsum %u: %s", einsum, error->message);
          g_assert_true (error->domain == FFM_CONSTRAINTS_ERROR
                         || error->domain == FFM_MAPPING_ERROR);
          brute = brute_force (w, a, einsum, options.max_fused_loops, imperfect, bound);
          g_assert_cmpuint (brute->valid, ==, 0);
          g_hash_table_destroy (brute->fronts);
          g_free (brute);
          test_debug_pop ();
          return;
        }
      assert_rows_admitted (w, a, set, bound);
    }
  else
    set = generate (w, a, &options);
  unpruned = generate_with_debug (w, a, &options, "no-partial-pruning");
  test_debug_pop ();
  assert_pareto_sets_equal (set, unpruned);

  pm = ffm_pmapping_set_get_einsum (set, 0);
  brute = brute_force (w, a, einsum, options.max_fused_loops, imperfect, bound);
  assert_best_as_brute (w, a, set, &options, TRUE, brute);

  /* Dominance witness: every brute-force pmapping has a generated one with
   * the same backing memories and fused loops that is no worse in energy,
   * latency and every memory's reservation at every lifetime depth
   * (checked against each brute-force key's Pareto front, which is
   * enough: dominance is transitive). With at most one fused loop the
   * loops' order cannot differ. */
  g_assert_cmpint (options.max_fused_loops, ==, 1);
  keyed_rows = g_ptr_array_new ();
  for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
    {
      const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
      GString *key = g_string_new (NULL);
      GPtrArray *list;
      relaxed_key (&g->compat, key);
      list = g_hash_table_lookup (by_key, key->str);
      if (list == NULL)
        {
          list = g_ptr_array_new ();
          g_ptr_array_add (keyed_rows, list);
          g_hash_table_insert (by_key, g_string_free (key, FALSE), list);
        }
      else
        g_string_free (key, TRUE);
      g_ptr_array_add (list, (gpointer) g);
    }
  g_hash_table_iter_init (&iter, brute->fronts);
  while (g_hash_table_iter_next (&iter, &key_ptr, &front_ptr))
    {
      Front *front = front_ptr;
      GPtrArray *list = g_hash_table_lookup (by_key, key_ptr);

      if (list == NULL)
        {
          g_autofree char *c = ffm_compatibility_to_string (&front->compat, w, a);
          g_test_message ("no generated group like brute-force %s", c);
        }
      g_assert_nonnull (list);
      if (front->n_rows != front->pruned)
        front_prune (front);
      for (guint i = 0; i < front->n_rows; i++)
        {
          const double *r = &g_array_index (front->rows, double, (gsize) i * BROW_COLUMNS);
          gboolean found = FALSE;
          for (guint k = 0; k < list->len && !found; k++)
            {
              const FfmPmappingGroup *g = g_ptr_array_index (list, k);
              int ce = column_of (g, FFM_PMAPPING_COLUMN_ENERGY);
              int cl = column_of (g, FFM_PMAPPING_COLUMN_LATENCY);
              for (guint s = 0; s < g->n_rows && !found; s++)
                {
                  const double *v = g->values + (gsize) s * g->n_columns;
                  gboolean ok = v[ce] <= r[0] && v[cl] <= r[1];
                  for (guint c = 0; c < g->n_columns && ok; c++)
                    {
                      const FfmPmappingColumn *cd = &g->columns[c];
                      if (cd->kind != FFM_PMAPPING_COLUMN_RESERVATION)
                        continue;
                      for (int d = cd->depth; d < BROW_DEPTHS - 1 && ok; d++)
                        ok = v[c] <= r[2 + cd->level * BROW_DEPTHS + (d + 1)];
                    }
                  found = ok;
                }
            }
          if (!found)
            {
              g_autofree char *c = ffm_compatibility_to_string (&front->compat, w, a);
              g_test_message ("brute-force pmapping not dominated: %s E=%g L=%g",
                              c, r[0], r[1]);
            }
          g_assert_true (found);
        }
    }
  for (guint k = 0; k < keyed_rows->len; k++)
    g_ptr_array_free (g_ptr_array_index (keyed_rows, k), TRUE);
  g_ptr_array_free (keyed_rows, TRUE);
  g_test_message ("einsum %u: brute force evaluated %" G_GUINT64_FORMAT
                  " (%" G_GUINT64_FORMAT " valid, %" G_GUINT64_FORMAT " not "
                  "admitted, %" G_GUINT64_FORMAT " within their storage "
                  "choice's bounds); generator %" G_GUINT64_FORMAT " evaluated", einsum,
                  brute->evaluated, brute->valid, brute->rejected, brute->bound_checked,
                  ffm_einsum_pmappings_get_stats (pm)->n_evaluated);
  if (!imperfect)
    g_assert_cmpuint (brute->bound_checked, >=, brute->valid);
  g_hash_table_destroy (brute->fronts);
  g_free (brute);
}

static char *random_arch (GRand *rand, int variant);

/* The (energy, latency) Pareto front of @rows (2 doubles each), sorted,
 * without repeats. */
static void
energy_latency_front (GArray *rows)
{
  guint n = ffm_pareto_prune ((double *) rows->data, rows->len / 2, 2, NULL), m = 0;
  double *v = (double *) rows->data;

  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && (v[2 * (j - 1)] > v[2 * j]
                                || (v[2 * (j - 1)] == v[2 * j]
                                    && v[2 * (j - 1) + 1] > v[2 * j + 1])); j--)
      {
        double e = v[2 * j], l = v[2 * j + 1];
        v[2 * j] = v[2 * (j - 1)];
        v[2 * j + 1] = v[2 * (j - 1) + 1];
        v[2 * (j - 1)] = e;
        v[2 * (j - 1) + 1] = l;
      }
  for (guint i = 0; i < n; i++)
    if (m == 0 || v[2 * i] != v[2 * (m - 1)] || v[2 * i + 1] != v[2 * (m - 1) + 1])
      {
        v[2 * m] = v[2 * i];
        v[2 * m + 1] = v[2 * i + 1];
        m++;
      }
  g_array_set_size (rows, 2 * m);
}

static GArray *
set_energy_latency_front (const FfmPmappingSet *set)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (double));
  const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, 0);

  for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
    {
      const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
      int ce = column_of (g, FFM_PMAPPING_COLUMN_ENERGY);
      int cl = column_of (g, FFM_PMAPPING_COLUMN_LATENCY);
      for (guint r = 0; r < g->n_rows; r++)
        {
          double el[2] = { g->values[(gsize) r * g->n_columns + ce],
                           g->values[(gsize) r * g->n_columns + cl] };
          g_array_append_vals (rows, el, 2);
        }
    }
  energy_latency_front (rows);
  return rows;
}

static void
assert_fronts_equal (GArray *x, GArray *y)
{
  g_assert_cmpuint (x->len, ==, y->len);
  g_assert_cmpmem (x->data, sizeof (double) * x->len, y->data, sizeof (double) * y->len);
}

/* A random matmul Z[m,n] = A[m,k] * B[k,n] with ranks from 1 to @most
 * and their product at most @limit, as a workload file's text (transfer
 * full). */
static char *
random_matmul_text (GRand *rand, int most, int limit)
{
  int m, k, n;

  do
    {
      m = g_rand_int_range (rand, 1, most + 1);
      k = g_rand_int_range (rand, 1, most + 1);
      n = g_rand_int_range (rand, 1, most + 1);
    }
  while (m * k * n > limit);
  return g_strdup_printf ("{ \"ffm_workload\": 1, \"name\": \"random\", "
                          "\"ranks\": { \"M\": %d, \"K\": %d, \"N\": %d }, "
                          "\"bits_per_value\": { \"all\": 8 }, "
                          "\"einsums\": [ \"Z[m,n] = A[m,k] * B[k,n]\" ] }", m, k, n);
}

/* One Einsum alone, with a bound rule on (the default): the optimum, both
 * tie-breaks and the whole (energy, latency) Pareto front equal brute
 * force's, and the generation's with the rule off (FFM_DEBUG=@off_flag).
 * *@n_bounded gets the storage choices the bounds left out, *@n_beaten the
 * partial tile vectors a pmapping found beat. */
static void
check_bounds_against_brute (FfmWorkload *w, FfmArch *a, const char *off_flag,
                            guint *n_bounded, guint64 *n_beaten)
{
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) set = NULL;
  g_autoptr(FfmPmappingSet) unbounded = NULL;
  g_autoptr(GArray) brute_front = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) front = NULL;
  g_autoptr(GArray) unbounded_front = NULL;
  GHashTableIter iter;
  gpointer key_ptr, front_ptr;
  Brute *brute;

  ffm_pmapping_options_init (&options);
  options.n_threads = 1;
  set = generate (w, a, &options);
  *n_bounded = ffm_pmapping_set_count_choices_bounded (set);
  *n_beaten = ffm_pmapping_set_count_rows_beaten (set);
  unbounded = generate_with_debug (w, a, &options, off_flag);
  if (strcmp (off_flag, "no-choice-bounds") == 0)
    g_assert_cmpuint (ffm_pmapping_set_count_choices_bounded (unbounded), ==, 0);
  else
    g_assert_cmpuint (ffm_pmapping_set_count_rows_beaten (unbounded), ==, 0);
  brute = brute_force (w, a, 0, -1, FFM_IMPERFECT_NONE, NULL);
  assert_best_as_brute (w, a, set, &options, FALSE, brute);
  g_hash_table_iter_init (&iter, brute->fronts);
  while (g_hash_table_iter_next (&iter, &key_ptr, &front_ptr))
    {
      Front *f = front_ptr;
      for (guint i = 0; i < f->n_rows; i++)
        g_array_append_vals (brute_front,
                             &g_array_index (f->rows, double, (gsize) i * BROW_COLUMNS), 2);
    }
  energy_latency_front (brute_front);
  front = set_energy_latency_front (set);
  unbounded_front = set_energy_latency_front (unbounded);
  assert_fronts_equal (front, brute_front);
  assert_fronts_equal (unbounded_front, brute_front);
  g_test_message ("%u choices bounded, %" G_GUINT64_FORMAT " partial vectors beaten; "
                  "front of %u; brute force %" G_GUINT64_FORMAT " valid, %" G_GUINT64_FORMAT
                  " within their choice's bounds", *n_bounded, *n_beaten, front->len / 2,
                  brute->valid, brute->bound_checked);
  g_hash_table_destroy (brute->fronts);
  g_free (brute);
}

static guint
check_choices_bounded (FfmWorkload *w, FfmArch *a)
{
  guint n_bounded;
  guint64 n_beaten;

  check_bounds_against_brute (w, a, "no-choice-bounds", &n_bounded, &n_beaten);
  return n_bounded;
}

static void
test_choices_bounded (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261204);
  /* DRAM and a small buffer: the pmappings of the choices of least bound
   * cost more than the bounds of others, so six choices are searched
   * before the bound cuts the rest (21 of 27) */
  static const char nested[] =
    "{ \"ffm_architecture\": 1, \"name\": \"nested\", \"levels\": ["
    "{ \"memory\": \"DRAM\", \"size\": \"inf\", \"read_energy\": 100, "
    "\"write_energy\": 100 },"
    "{ \"memory\": \"Buffer\", \"size\": 48, \"read_energy\": 1, \"write_energy\": 1 },"
    "{ \"compute\": \"MAC\", \"energy\": 0.5, \"throughput\": 1 } ] }";
  static const char matmul[] =
    "{ \"ffm_workload\": 1, \"name\": \"mm\", "
    "\"ranks\": { \"M\": 2, \"K\": 2, \"N\": 2 }, "
    "\"bits_per_value\": { \"all\": 8 }, "
    "\"einsums\": [ \"Z[m,n] = A[m,k] * B[k,n]\" ] }";
  guint n_bounded = 0;

  g_test_summary ("With one Einsum, the storage choices whose lower bound a "
                  "pmapping found beats are left out, and the result is the "
                  "same: optimum, tie-breaks and (energy, latency) front equal "
                  "brute force's (which also checks the bounds at every "
                  "pmapping) and the generation without the bounds");
  {
    g_autoptr(FfmArch) a = inputs_arch_from_text (nested);
    g_autoptr(FfmWorkload) w = inputs_workload_from_text (matmul);
    guint n = check_choices_bounded (w, a);
    g_assert_cmpuint (n, >, 0);
    n_bounded += n;
  }
  for (guint i = 0; i < 24; i++)
    {
      int variant = (int) (i % 5);
      /* TUNING: brute force grows with the product of the ranks, fastest
       * with the fanout and the second buffer (a product of 8 is up to
       * 7 million pmappings) */
      int limit = variant == 1 || variant == 4 ? 4 : 6;
      g_autofree char *arch_text = random_arch (rand, variant);
      g_autofree char *workload_text = random_matmul_text (rand, 3, limit);
      g_autoptr(FfmArch) a = inputs_arch_from_text (arch_text);
      g_autoptr(FfmWorkload) w = inputs_workload_from_text (workload_text);
      g_test_message ("case %u: %s\n%s", i, workload_text, arch_text);
      n_bounded += check_choices_bounded (w, a);
    }
  g_assert_cmpuint (n_bounded, >, 0);
}

/* The generation of @w on @a (one Einsum) with the partial vectors'
 * bound against the pmappings found, against the generation without it:
 * the same optimum and (energy, latency) front. Returns the vectors
 * beaten; *@unsound_differs is set when the bound scaled by 8 (unsound,
 * FFM_DEBUG=incumbent-bound-scale=8) gives another front. */
static guint64
check_incumbent_against_unbounded (FfmWorkload *w, FfmArch *a, gboolean *unsound_differs)
{
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) set = NULL;
  g_autoptr(FfmPmappingSet) unbounded = NULL;
  g_autoptr(GArray) front = NULL;
  g_autoptr(GArray) unbounded_front = NULL;
  guint64 beaten;

  ffm_pmapping_options_init (&options);
  options.n_threads = 1;
  set = generate (w, a, &options);
  unbounded = generate_with_debug (w, a, &options, "no-incumbent-bounds");
  beaten = ffm_pmapping_set_count_rows_beaten (set);
  g_assert_cmpuint (ffm_pmapping_set_count_rows_beaten (unbounded), ==, 0);
  front = set_energy_latency_front (set);
  unbounded_front = set_energy_latency_front (unbounded);
  assert_fronts_equal (front, unbounded_front);
  if (ffm_debug_has_test_hooks () && beaten > 0)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FfmPmappingSet) unsound = NULL;
      g_autoptr(GArray) unsound_front = NULL;
      /* unsound, it may leave the Einsum no pmapping at all */
      test_debug_push ("incumbent-bound-scale=8");
      unsound = ffm_pmappings_generate (w, a, &options, &error);
      test_debug_pop ();
      if (unsound != NULL)
        unsound_front = set_energy_latency_front (unsound);
      if (unsound == NULL || unsound_front->len != front->len
          || memcmp (unsound_front->data, front->data, sizeof (double) * front->len) != 0)
        *unsound_differs = TRUE;
    }
  g_test_message ("%" G_GUINT64_FORMAT " partial vectors beaten, front of %u, %"
                  G_GUINT64_FORMAT " evaluated (%" G_GUINT64_FORMAT " without the bound)",
                  beaten, front->len / 2, count_evaluated (set), count_evaluated (unbounded));
  return beaten;
}

/* Timeloop's example problem (tests/data/zoo/conv-layer.json), smaller:
 * 3 -> 4 channels, 4 x 4 outputs. Transfer full. */
static FfmWorkload *
load_small_conv_layer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmParamValues) values = ffm_param_values_new ();
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "zoo",
                                                 "conv-layer.json", NULL);
  FfmWorkload *w;

  g_assert_true (ffm_param_values_parse_assignment (values, "m=4", NULL));
  g_assert_true (ffm_param_values_parse_assignment (values, "p=4", NULL));
  g_assert_true (ffm_param_values_parse_assignment (values, "q=4", NULL));
  w = ffm_workload_load (path, values, &error);
  g_assert_no_error (error);
  return w;
}

static void
test_incumbent_bounds (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261207);
  /* (eyeriss-like's ifmap scratchpad holds no input tile of this layer
   * with the generator's default options) */
  static const char *const designs[] = {
    "timeloop-simba-like.json", "timeloop-simple-os.json", "timeloop-simple-ws.json",
  };
  /* deeper than random_arch(): DRAM (keeping every tensor: brute force
   * holds the storage choices' bounds to pmappings that do not fit too,
   * which a choice keeping nothing above the fanout breaks), a buffer, a
   * fanout, a small register file per PE */
  static const char deep[] =
    "{ \"ffm_architecture\": 1, \"name\": \"deep\", \"levels\": ["
    "{ \"memory\": \"DRAM\", \"size\": \"inf\", \"read_energy\": 100, "
    "\"write_energy\": 100, \"read_bandwidth\": 4, \"write_bandwidth\": 4, \"keep\": \"all\" },"
    "{ \"memory\": \"Buffer\", \"size\": 64, \"read_energy\": 4, \"write_energy\": 4 },"
    "{ \"fanout\": \"PE\", \"count\": 2 },"
    "{ \"memory\": \"Reg\", \"size\": 16, \"read_energy\": 0.5, \"write_energy\": 0.5 },"
    "{ \"compute\": \"MAC\", \"energy\": 0.25, \"throughput\": 1 } ] }";
  guint64 beaten_small = 0, beaten_large = 0;
  gboolean unsound_differs = FALSE;

  g_test_summary ("With one Einsum, partial tile vectors whose every completion a "
                  "pmapping found beats (in energy and latency) are not extended, and "
                  "the result is the same: the optimum and (energy, latency) front "
                  "equal brute force's on small problems and the generation's without "
                  "the bound on Timeloop's example designs; the bound made unsound "
                  "changes a front");
  for (guint i = 0; i < G_N_ELEMENTS (designs); i++)
    {
      g_autoptr(FfmArch) a = inputs_load_arch (designs[i]);
      g_autoptr(FfmWorkload) w = load_small_conv_layer ();
      g_test_message ("%s x conv-layer m=4 p=q=4", designs[i]);
      beaten_large += check_incumbent_against_unbounded (w, a, &unsound_differs);
    }
  for (guint i = 0; i < 18; i++)
    {
      int variant = (int) (i % 6);
      g_autofree char *arch_text = variant == 5 ? g_strdup (deep) : random_arch (rand, variant);
      /* TUNING: brute force grows fastest on the deep architecture (a
       * product of 4 there is 10 minutes), then with the fanout and the
       * second buffer */
      g_autofree char *workload_text =
        random_matmul_text (rand, 4, variant == 5 ? 2 : variant == 1 || variant == 4 ? 4 : 6);
      guint n_bounded;
      guint64 n_beaten;
      g_autoptr(FfmArch) a = inputs_arch_from_text (arch_text);
      g_autoptr(FfmWorkload) w = inputs_workload_from_text (workload_text);
      g_test_message ("case %u: %s\n%s", i, workload_text, arch_text);
      check_bounds_against_brute (w, a, "no-incumbent-bounds", &n_bounded, &n_beaten);
      beaten_small += n_beaten;
    }
  g_test_message ("partial vectors beaten: %" G_GUINT64_FORMAT " on the small problems, %"
                  G_GUINT64_FORMAT " on the designs", beaten_small, beaten_large);
  g_assert_cmpuint (beaten_small, >, 0);
  g_assert_cmpuint (beaten_large, >, 0);
  if (ffm_debug_has_test_hooks ())
    g_assert_true (unsound_differs);
}

/* Case @i from @seed of the random problems with several Einsums: in
 * turn a chain or small DAG with fanouts, tight capacities and persistent
 * weights (random-problem.h), a fused-loop problem with attention blocks,
 * a small random architecture (random-arch.h). FALSE when it has one
 * Einsum only (*@w and *@a are set either way). */
static gboolean
random_problem_of_einsums (guint64 seed, guint i, FfmWorkload **w, FfmArch **a)
{
  int loops = -1;

  if (i % 3 == 0)
    random_problem_make (seed + i, w, a, &loops);
  else if (i % 3 == 1)
    random_problem_make_fused (seed + i, w, a);
  else
    random_arch_problem_make (seed + i, RANDOM_ARCH_SMALL, w, a);
  return ffm_workload_get_n_einsums (*w) >= 2;
}

/* Whether two sets differ in their groups' count or rows (NULL: failed). */
static gboolean
sets_differ_in_rows (const FfmPmappingSet *p, const FfmPmappingSet *q)
{
  if (p == NULL || q == NULL)
    return p != q;
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (p); i++)
    {
      const FfmEinsumPmappings *x = ffm_pmapping_set_get_einsum (p, i);
      const FfmEinsumPmappings *y = ffm_pmapping_set_get_einsum (q, i);
      guint64 rows_x = 0, rows_y = 0;
      for (guint g = 0; g < ffm_einsum_pmappings_get_n_groups (x); g++)
        rows_x += ffm_einsum_pmappings_get_group (x, g)->n_rows;
      for (guint g = 0; g < ffm_einsum_pmappings_get_n_groups (y); g++)
        rows_y += ffm_einsum_pmappings_get_group (y, g)->n_rows;
      if (rows_x != rows_y
          || ffm_einsum_pmappings_get_n_groups (x) != ffm_einsum_pmappings_get_n_groups (y))
        return TRUE;
    }
  return FALSE;
}

/* The generation of @w on @a with objectives @objectives, with the
 * partial vectors' bound against the template's own pmappings of their
 * group (several Einsums, ffm-pmapping-tiles-incumbent.c) and without it:
 * the same groups with the same rows of values (the groups and their rows
 * in another order, maybe). Returns the vectors beaten; sets
 * *@unsound_differs when the bound scaled by 8 (unsound) changes a group. */
static guint64
check_group_bounds (FfmWorkload *w, FfmArch *a, guint objectives, const char *flags,
                    gboolean *unsound_differs)
{
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) set = NULL;
  g_autoptr(FfmPmappingSet) unbounded = NULL;
  guint64 beaten;

  ffm_pmapping_options_init (&options);
  options.n_threads = 1;
  options.objectives = objectives;
  test_debug_push (flags);
  {
    /* a random problem may have no pmapping: then neither way has one */
    g_autoptr(GError) error = NULL;
    set = ffm_pmappings_generate (w, a, &options, &error);
    if (set == NULL)
      {
        g_autoptr(GError) unbounded_error = NULL;
        g_test_message ("no pmapping: %s", error->message);
        test_debug_push ("no-incumbent-bounds");
        unbounded = ffm_pmappings_generate (w, a, &options, &unbounded_error);
        test_debug_pop ();
        g_assert_null (unbounded);
        g_assert_error (unbounded_error, error->domain, error->code);
        test_debug_pop ();
        return 0;
      }
  }
  unbounded = generate_with_debug (w, a, &options, "no-incumbent-bounds");
  beaten = ffm_pmapping_set_count_rows_beaten (set);
  g_assert_cmpuint (ffm_pmapping_set_count_rows_beaten (unbounded), ==, 0);
  /* (rows beaten change the search's chunks, so the order in which a
   * template's groups first get a row and their rows come, and of two
   * rows of equal values which comes first and stays) */
  assert_sets_equal_ordered (set, unbounded, FALSE, TRUE);
  if (ffm_debug_has_test_hooks () && beaten > 0 && !*unsound_differs)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FfmPmappingSet) unsound = NULL;
      test_debug_push ("incumbent-bound-scale=8");
      unsound = ffm_pmappings_generate (w, a, &options, &error);
      test_debug_pop ();
      *unsound_differs = sets_differ_in_rows (set, unsound);
    }
  test_debug_pop ();
  return beaten;
}

/* Timeloop's four example designs (tests/data/zoo). */
static const char *const timeloop_designs[] = {
  "timeloop-eyeriss-like.json", "timeloop-simba-like.json", "timeloop-simple-os.json",
  "timeloop-simple-ws.json",
};

static void
test_group_bounds (void)
{
  static const guint objectives[] = {
    FFM_PMAPPING_ENERGY | FFM_PMAPPING_LATENCY, FFM_PMAPPING_ENERGY,
  };
  guint64 beaten_random = 0, beaten_designs = 0;
  gboolean unsound_differs = FALSE;

  g_test_summary ("With several Einsums, partial tile vectors whose every completion a "
                  "pmapping of the same template and group beats (energy, latency, each "
                  "tracked memory's occupancy) are not extended, and every group comes out "
                  "the same, row for row; the bound made unsound changes a group");
  for (guint i = 0; i < 120; i++)
    {
      g_autoptr(FfmWorkload) w = NULL;
      g_autoptr(FfmArch) a = NULL;
      if (!random_problem_of_einsums (20261207, i, &w, &a))
        continue;
      g_test_message ("case %u", i);
      /* small tables are one chunk, extended before any leaf: chunks of a
       * few rows let the leaves of one bound the rows of the next */
      beaten_random += check_group_bounds (w, a, objectives[i % 2], "chunk-rows=4",
                                           &unsound_differs);
    }
  for (guint i = 0; i < G_N_ELEMENTS (timeloop_designs); i++)
    {
      g_autoptr(FfmArch) a = inputs_load_arch (timeloop_designs[i]);
      g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 8, 8);
      g_test_message ("%s x 2 matmuls 8 x 8", timeloop_designs[i]);
      beaten_designs += check_group_bounds (w, a, objectives[i % 2], "chunk-rows=64",
                                            &unsound_differs);
    }
  g_test_message ("partial vectors beaten: %" G_GUINT64_FORMAT " on the random problems, %"
                  G_GUINT64_FORMAT " on the designs", beaten_random, beaten_designs);
  g_assert_cmpuint (beaten_random, >, 0);
  g_assert_cmpuint (beaten_designs, >, 0);
  if (ffm_debug_has_test_hooks ())
    g_assert_true (unsound_differs);
}

/* The generation of @w on @a with the Einsum fronts (each template after
 * an Einsum's first held to the pmappings of those before its wave,
 * @flags added) against the same without them: the same groups, row for
 * row; on 1 and 3 threads the same sets and the same vectors evaluated.
 * Adds the vectors evaluated with and without to @evaluated; sets
 * *@unsound_differs when the fronts compared without reservations (an
 * unsound test hook) change a group. */
static void
check_einsum_front (FfmWorkload *w, FfmArch *a, guint objectives, const char *flags,
                    guint64 *evaluated, gboolean *unsound_differs)
{
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) set = NULL;
  g_autoptr(FfmPmappingSet) alone = NULL;
  g_autoptr(FfmPmappingSet) threads = NULL;
  g_autoptr(GError) error = NULL;

  ffm_pmapping_options_init (&options);
  options.n_threads = 1;
  options.objectives = objectives;
  test_debug_push (flags);
  test_debug_push ("einsum-front-first-wave=1");
  set = ffm_pmappings_generate (w, a, &options, &error);
  if (set == NULL)
    {
      /* a random problem may have no pmapping: then neither way has one */
      g_autoptr(GError) alone_error = NULL;
      g_test_message ("no pmapping: %s", error->message);
      test_debug_push ("no-einsum-front");
      alone = ffm_pmappings_generate (w, a, &options, &alone_error);
      test_debug_pop ();
      g_assert_null (alone);
      g_assert_error (alone_error, error->domain, error->code);
      test_debug_pop ();
      test_debug_pop ();
      return;
    }
  alone = generate_with_debug (w, a, &options, "no-einsum-front");
  evaluated[0] += count_evaluated (set);
  evaluated[1] += count_evaluated (alone);
  g_assert_cmpuint (count_evaluated (set), <=, count_evaluated (alone));
  /* (fewer rows change the chunks, so the order of groups and rows) */
  assert_sets_equal_ordered (set, alone, FALSE, TRUE);
  options.n_threads = 3;
  threads = generate (w, a, &options);
  assert_sets_equal_ordered (set, threads, TRUE, FALSE);
  g_assert_cmpuint (count_evaluated (set), ==, count_evaluated (threads));
  options.n_threads = 1;
  if (ffm_debug_has_test_hooks () && !*unsound_differs
      && count_evaluated (set) < count_evaluated (alone))
    {
      g_autoptr(GError) unsound_error = NULL;
      g_autoptr(FfmPmappingSet) unsound = NULL;
      test_debug_push ("einsum-front-unsound");
      unsound = ffm_pmappings_generate (w, a, &options, &unsound_error);
      test_debug_pop ();
      *unsound_differs = sets_differ_in_rows (set, unsound);
    }
  test_debug_pop ();
  test_debug_pop ();
}

static void
test_einsum_front (void)
{
  static const guint objectives[] = {
    FFM_PMAPPING_ENERGY | FFM_PMAPPING_LATENCY, FFM_PMAPPING_ENERGY,
  };
  guint64 evaluated[2] = { 0, 0 }, designs[2] = { 0, 0 };
  gboolean unsound_differs = FALSE;

  g_test_summary ("An Einsum's templates searched in waves, each held to the pmappings of "
                  "the waves before it by group: every group comes out the same, row for "
                  "row, with fewer vectors evaluated; the same sets on 1 and 3 threads; "
                  "the points compared without their reservations change a group");
  for (guint i = 0; i < 90; i++)
    {
      g_autoptr(FfmWorkload) w = NULL;
      g_autoptr(FfmArch) a = NULL;
      if (!random_problem_of_einsums (20261208, i, &w, &a))
        continue;
      g_test_message ("case %u", i);
      check_einsum_front (w, a, objectives[i % 2], "chunk-rows=4", evaluated,
                          &unsound_differs);
    }
  for (guint i = 0; i < G_N_ELEMENTS (timeloop_designs) + 1; i++)
    {
      g_autoptr(FfmArch) a = i < G_N_ELEMENTS (timeloop_designs)
        ? inputs_load_arch (timeloop_designs[i]) : NULL;
      g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 8, 8);
      if (a == NULL)
        {
          /* the reliability issue's user chip (a register file that may
           * keep everything: 1,771 templates per matmul at m = kn = 256) */
          g_autoptr(GError) error = NULL;
          g_autofree char *path = g_test_build_filename (G_TEST_DIST, "hostile", "arch",
                                                         "user-chip-may-keep-all.json", NULL);
          a = ffm_arch_load_file (path, NULL, &error);
          g_assert_no_error (error);
        }
      g_test_message ("%s x 2 matmuls 8 x 8", ffm_arch_get_name (a));
      check_einsum_front (w, a, objectives[i % 2], "chunk-rows=64", designs,
                          &unsound_differs);
    }
  g_test_message ("vectors evaluated with the fronts / without: %" G_GUINT64_FORMAT " / %"
                  G_GUINT64_FORMAT " on the random problems, %" G_GUINT64_FORMAT " / %"
                  G_GUINT64_FORMAT " on the designs", evaluated[0], evaluated[1],
                  designs[0], designs[1]);
  g_assert_cmpuint (evaluated[0], <, evaluated[1]);
  g_assert_cmpuint (designs[0], <, designs[1]);
  if (ffm_debug_has_test_hooks ())
    g_assert_true (unsound_differs);
}

/* The Einsum fronts on 1, 2 and 3 threads: waves of one template and of
 * two, the user chip and two of Timeloop's designs x 2 matmuls (the
 * fronts beating some vectors: 46,732 evaluated against 1,120,848 without
 * on the user chip): the same
 * sets, row for row, and the same vectors evaluated (what a template
 * prunes depends on the waves before it, not on which thread ran what;
 * CI runs it under ThreadSanitizer). */
static void
test_threads_einsum_front (void)
{
  static const char *const waves[] = { "einsum-front-first-wave=1", "einsum-front-first-wave=2" };
  g_autofree char *user = g_test_build_filename (G_TEST_DIST, "hostile", "arch",
                                                 "user-chip-may-keep-all.json", NULL);
  /* (simba-like at this size: the fronts beat nothing) */
  const char *const archs[] = { user, "timeloop-simple-ws.json", "timeloop-simple-os.json" };
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 8, 8);

  g_test_summary ("With an Einsum's templates in waves, the pmappings and the vectors "
                  "evaluated do not depend on the number of threads");
  for (guint i = 0; i < G_N_ELEMENTS (archs); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FfmArch) a = i == 0 ? ffm_arch_load_file (archs[i], NULL, &error)
                                    : inputs_load_arch (archs[i]);
      g_autoptr(FfmPmappingSet) one = NULL;
      g_autoptr(FfmPmappingSet) alone = NULL;
      FfmPmappingOptions options;

      g_assert_no_error (error);
      test_debug_push (waves[i % 2]);
      ffm_pmapping_options_init (&options);
      options.n_threads = 1;
      one = generate (w, a, &options);
      /* (the fronts are at work, or the equalities below say nothing) */
      alone = generate_with_debug (w, a, &options, "no-einsum-front");
      g_test_message ("%s: %" G_GUINT64_FORMAT " evaluated, %" G_GUINT64_FORMAT " without the fronts", archs[i], count_evaluated (one), count_evaluated (alone));
      g_assert_cmpuint (count_evaluated (one), <, count_evaluated (alone));
      for (guint n = 2; n <= 3; n++)
        {
          g_autoptr(FfmPmappingSet) many = NULL;
          options.n_threads = n;
          many = generate (w, a, &options);
          assert_sets_equal_ordered (one, many, TRUE, FALSE);
          g_assert_cmpuint (count_evaluated (one), ==, count_evaluated (many));
        }
      test_debug_pop ();
    }
}

/* Partial tile vectors written to tables, over every Einsum. */
static guint64
count_partial_rows (const FfmPmappingSet *set)
{
  guint64 n = 0;

  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    n += ffm_einsum_pmappings_get_profile (ffm_pmapping_set_get_einsum (set, i))->n_partial_rows;
  return n;
}

/* Whether @set (NULL: the generation failed) is not what @unbounded is:
 * with one Einsum the (energy, latency) fronts, which is what the
 * one-Einsum bound keeps; otherwise the groups, each with the same rows of
 * values (in any order, as assert_sets_equal_ordered() compares them). */
static gboolean
set_differs (const FfmPmappingSet *set, const FfmPmappingSet *unbounded)
{
  if (set == NULL)
    return TRUE;
  if (ffm_pmapping_set_get_n_einsums (unbounded) == 1)
    {
      g_autoptr(GArray) f = set_energy_latency_front (set);
      g_autoptr(GArray) g = set_energy_latency_front (unbounded);
      return f->len != g->len || memcmp (f->data, g->data, sizeof (double) * f->len) != 0;
    }
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *p = ffm_pmapping_set_get_einsum (set, i);
      const FfmEinsumPmappings *q = ffm_pmapping_set_get_einsum (unbounded, i);
      if (ffm_einsum_pmappings_get_n_groups (p) != ffm_einsum_pmappings_get_n_groups (q))
        return TRUE;
      for (guint g = 0; g < ffm_einsum_pmappings_get_n_groups (p); g++)
        {
          const FfmPmappingGroup *gp = ffm_einsum_pmappings_get_group (p, g);
          const FfmPmappingGroup *gq = NULL;
          g_autofree double *rows_p = NULL;
          g_autofree double *rows_q = NULL;
          for (guint h = 0; h < ffm_einsum_pmappings_get_n_groups (q) && gq == NULL; h++)
            if (ffm_compatibility_equal (&gp->compat, &ffm_einsum_pmappings_get_group (q, h)->compat))
              gq = ffm_einsum_pmappings_get_group (q, h);
          if (gq == NULL || gq->n_rows != gp->n_rows || gq->n_columns != gp->n_columns)
            return TRUE;
          rows_p = sorted_value_rows (gp);
          rows_q = sorted_value_rows (gq);
          if (memcmp (rows_p, rows_q, sizeof (double) * gp->n_rows * gp->n_columns) != 0)
            return TRUE;
        }
    }
  return FALSE;
}

/* The two refinements of the partial vectors' bound against the
 * pmappings found (ffm-pmapping-tiles-incumbent.c): the last variable's
 * energy as the least over its chains, per bucket the row's spatial
 * products leave, and a row's children held to the front bucket by
 * bucket before they are made. Each on its own: the result as without
 * any bound (the groups row for row; with one Einsum the front); fewer
 * rows written than without the chains; each made unsound (the largest
 * factors where the least belong) another result on some problem. */
static void
test_incumbent_chains (void)
{
  static const char two_layers[] =
    "{ \"ffm_workload\": 1, \"name\": \"two-layers\", \"bits_per_value\": { \"all\": 8 }, "
    "\"einsums\": ["
    "{ \"einsum\": \"A[m1,p1,q1] = I[c1,p1,q1] * W1[c1,m1]\", "
    "\"bounds\": { \"c1\": 8, \"m1\": 8, \"p1\": 4, \"q1\": 4 } },"
    "{ \"einsum\": \"B[m2,p2,q2] = J[c2,H:p2+r2,W:q2+s2] * W2[c2,m2,r2,s2]\", "
    "\"bounds\": { \"c2\": 8, \"m2\": 8, \"p2\": 4, \"q2\": 4, \"r2\": 3, "
    "\"s2\": 3 } } ] }";
  static const char *const rules[] = { "no-incumbent-last-chains", "no-incumbent-buckets" };
  static const char *const unsound[] = { "incumbent-last-max", "incumbent-bucket-max" };
  guint64 rows_on = 0, rows_off[G_N_ELEMENTS (rules)] = { 0 };
  gboolean differs[G_N_ELEMENTS (unsound)] = { FALSE };
  guint n_cases = 0;

  g_test_summary ("The partial vectors' bound with the last variable's chains taken "
                  "per bucket, and a row's buckets held to the pmappings found before "
                  "their children are made: the same result as without a bound, fewer "
                  "rows written than without each rule, and each rule made unsound "
                  "changes a result");
  for (guint i = 0; i < 2 * G_N_ELEMENTS (timeloop_designs) + 1 + 36; i++)
    {
      FfmPmappingOptions options;
      g_autoptr(FfmWorkload) w = NULL;
      g_autoptr(FfmArch) a = NULL;
      g_autoptr(FfmPmappingSet) unbounded = NULL;
      g_autoptr(FfmPmappingSet) set = NULL;
      const char *chunk = "chunk-rows=64";
      guint d = i % G_N_ELEMENTS (timeloop_designs);
      int loops = -1;

      ffm_pmapping_options_init (&options);
      options.n_threads = 1;
      if (i < G_N_ELEMENTS (timeloop_designs))
        {
          a = inputs_load_arch (timeloop_designs[d]);
          w = inputs_load_matmuls (2, 8, 8);
          g_test_message ("%s x 2 matmuls 8 x 8", timeloop_designs[d]);
        }
      else if (i < 2 * G_N_ELEMENTS (timeloop_designs))
        {
          a = inputs_load_arch (timeloop_designs[d]);
          w = load_small_conv_layer ();
          g_test_message ("%s x conv-layer m=4 p=q=4", timeloop_designs[d]);
        }
      else if (i == 2 * G_N_ELEMENTS (timeloop_designs))
        {
          /* ResNet's first block, small: a pointwise layer and a 3x3 one
           * that share no tensor (the groups track no memory) */
          a = inputs_load_arch ("timeloop-simba-like.json");
          w = inputs_workload_from_text (two_layers);
          g_test_message ("timeloop-simba-like.json x a 1x1 and a 3x3 layer");
        }
      else
        {
          guint seed = 20261208 + i;
          chunk = "chunk-rows=4";
          if (i % 3 == 0)
            random_problem_make (seed, &w, &a, &loops);
          else if (i % 3 == 1)
            random_problem_make_fused (seed, &w, &a);
          else
            random_arch_problem_make (seed, RANDOM_ARCH_SMALL, &w, &a);
          g_test_message ("case %u", i);
        }
      test_debug_push (chunk);
      {
        g_autoptr(GError) error = NULL;
        test_debug_push ("no-incumbent-bounds");
        unbounded = ffm_pmappings_generate (w, a, &options, &error);
        test_debug_pop ();
        if (unbounded == NULL)
          {
            /* a random problem may have no pmapping at all */
            g_test_message ("no pmapping: %s", error->message);
            test_debug_pop ();
            continue;
          }
      }
      n_cases++;
      set = generate (w, a, &options);
      g_assert_false (set_differs (set, unbounded));
      if (ffm_pmapping_set_get_n_einsums (set) > 1)
        assert_sets_equal_ordered (set, unbounded, FALSE, TRUE);
      rows_on += count_partial_rows (set);
      for (guint r = 0; r < G_N_ELEMENTS (rules); r++)
        {
          g_autoptr(FfmPmappingSet) off = generate_with_debug (w, a, &options, rules[r]);
          g_assert_false (set_differs (off, unbounded));
          rows_off[r] += count_partial_rows (off);
          g_test_message ("  rows written %" G_GUINT64_FORMAT ", without %s %" G_GUINT64_FORMAT,
                          count_partial_rows (set), rules[r], count_partial_rows (off));
        }
      for (guint r = 0; r < G_N_ELEMENTS (unsound) && ffm_debug_has_test_hooks (); r++)
        if (!differs[r])
          {
            g_autoptr(GError) error = NULL;
            g_autoptr(FfmPmappingSet) bad = NULL;
            test_debug_push (unsound[r]);
            bad = ffm_pmappings_generate (w, a, &options, &error);
            test_debug_pop ();
            differs[r] = set_differs (bad, unbounded);
          }
      test_debug_pop ();
    }
  g_test_message ("%u cases; rows written: %" G_GUINT64_FORMAT " with both rules, %"
                  G_GUINT64_FORMAT " without the last variable's chains, %" G_GUINT64_FORMAT
                  " without the buckets", n_cases, rows_on, rows_off[0], rows_off[1]);
  g_assert_cmpuint (n_cases, >, 2 * G_N_ELEMENTS (timeloop_designs) + 1);
  /* (the buckets' rule saves making rows more than writing them: held
   * to the front one by one they are seldom written either; its worth is
   * in the benchmarks, docs/pmapping-generator.md) */
  g_assert_cmpuint (rows_on, <, rows_off[0]);
  for (guint r = 0; r < G_N_ELEMENTS (unsound) && ffm_debug_has_test_hooks (); r++)
    {
      g_test_message ("%s: %s", unsound[r], differs[r] ? "another result" : "the same");
      g_assert_true (differs[r]);
    }
}

static void
check_against_brute_force (FfmWorkload *w, FfmArch *a, guint einsum, guint imperfect)
{
  check_against_brute_force_constrained (w, a, einsum, imperfect, NULL);
}

/* A random architecture: DRAM; optionally a fanout (variant 1); a global
 * buffer of random capacity (in variant 3 with per-action energies). */
static char *
random_arch (GRand *rand, int variant)
{
  GString *s = g_string_new ("{ \"ffm_architecture\": 1, \"name\": \"random\", \"levels\": [");
  int e1 = g_rand_int_range (rand, 1, 6), e2 = g_rand_int_range (rand, 1, 4);
  int glb_values = g_rand_int_range (rand, 2, 10);
  const char *bw[] = { "\"inf\"", "8", "16" };
  /* Per-action energies of the global buffer (variant 3), Timeloop's
   * convention among them. */
  const char *per_action[] = {
    "\"fill_energy\": 3, \"update_energy\": 5, \"drain_energy\": 0.5, ",
    "\"fill_energy\": 2, \"update_energy\": 4, \"drains_read\": false, ",
    "\"drain_energy\": 6, \"energy_by_tensor\": { \"output\": "
    "{ \"read_energy\": 9, \"update_energy\": 0.25 } }, "
  };

  g_string_append_printf (s, "{ \"memory\": \"MainMemory\", \"size\": \"inf\", "
                          "\"read_energy\": %d, \"write_energy\": %d, "
                          "\"read_bandwidth\": %s, \"write_bandwidth\": %s, %s"
                          "\"keep\": \"~intermediates\", \"may_keep\": \"all\" },",
                          e1, e1, bw[g_rand_int_range (rand, 0, 3)],
                          bw[g_rand_int_range (rand, 0, 3)],
                          variant == 3 ? "\"update_energy\": 7, " : "");
  if (variant == 1)
    g_string_append_printf (s, "{ \"fanout\": \"X\", \"count\": %d%s },",
                            g_rand_int_range (rand, 2, 4),
                            g_rand_boolean (rand) ? ", \"may_reuse\": \"nothing\"" : "");
  /* The matmul variant's global buffer may keep a copy of the weight only
   * (keeps its brute force small). */
  g_string_append_printf (s, "{ \"memory\": \"GlobalBuffer\", \"size\": %d, "
                          "\"read_energy\": %d, \"write_energy\": %d, "
                          "\"read_bandwidth\": %s, \"write_bandwidth\": %s, %s"
                          "\"keep\": \"~MainMemory\", \"may_keep\": \"%s\" },",
                          glb_values * 8, e2, e2 + g_rand_int_range (rand, 0, 2),
                          bw[g_rand_int_range (rand, 0, 3)],
                          bw[g_rand_int_range (rand, 0, 3)],
                          variant == 3 ? per_action[g_rand_int_range (rand, 0, 3)] : "",
                          variant == 2 ? "weight" : "all");
  /* Variant 4: a second buffer right below, no fanout between, which may
   * keep the inputs (a copy of a tensor in both with no loop between is
   * redundant: the generator leaves such templates out; more tensors make
   * the brute force minutes per Einsum). */
  if (variant == 4)
    g_string_append_printf (s, "{ \"memory\": \"LocalBuffer\", \"size\": %d, "
                            "\"read_energy\": %d, \"write_energy\": %d, "
                            "\"read_bandwidth\": %s, \"write_bandwidth\": %s, "
                            "\"may_keep\": \"input\" },",
                            g_rand_int_range (rand, 1, glb_values + 1) * 8,
                            g_rand_int_range (rand, 0, 2), g_rand_int_range (rand, 0, 2),
                            bw[g_rand_int_range (rand, 0, 3)], bw[g_rand_int_range (rand, 0, 3)]);
  g_string_append_printf (s, "{ \"compute\": \"MAC\", \"energy\": 1, \"throughput\": %d } ] }",
                          g_rand_int_range (rand, 1, 3));
  return g_string_free (s, FALSE);
}

static char *
random_workload (GRand *rand, guint imperfect, gboolean small)
{
  /* with remainder tiles, sizes with few divisors (smaller with a fanout,
   * whose brute force is much larger) */
  const int sizes[] = { 1, 2, 3, 4, 4 }, odd[] = { 1, 3, 3, 5, 7 },
    small_odd[] = { 1, 2, 3, 3, 3 };
  const int *s = !imperfect ? sizes : small ? small_odd : odd;
  return g_strdup_printf ("{ \"ffm_workload\": 1, \"name\": \"random\", "
                          "\"ranks\": { \"M\": %d, \"K\": %d, \"J\": %d }, "
                          "\"bits_per_value\": { \"all\": 8 }, "
                          "\"einsums\": [ \"Y[m] = A[k] * B[k,m]\", "
                          "\"Z[j] = Y[m] * C[m,j]\" ] }",
                          s[g_rand_int_range (rand, 1, 5)],
                          s[g_rand_int_range (rand, 0, 5)],
                          s[g_rand_int_range (rand, 1, 5)]);
}

/* Ranks of 1 or 2 (the brute force over two buffers below DRAM is
 * otherwise minutes per Einsum). */
static char *
random_tiny_workload (GRand *rand)
{
  return g_strdup_printf ("{ \"ffm_workload\": 1, \"name\": \"random\", "
                          "\"ranks\": { \"M\": %d, \"K\": %d, \"J\": %d }, "
                          "\"bits_per_value\": { \"all\": 8 }, "
                          "\"einsums\": [ \"Y[m] = A[k] * B[k,m]\", "
                          "\"Z[j] = Y[m] * C[m,j]\" ] }",
                          g_rand_int_range (rand, 1, 3), g_rand_int_range (rand, 1, 3),
                          g_rand_int_range (rand, 1, 3));
}

static char *
random_matmuls (GRand *rand, guint imperfect)
{
  return g_strdup_printf ("{ \"ffm_workload\": 1, \"name\": \"random-mm\", "
                          "\"ranks\": { \"M\": %d, \"K\": 2, \"N\": 2, \"J\": %d }, "
                          "\"bits_per_value\": { \"all\": 8 }, "
                          "\"einsums\": [ \"T1[m,n] = T0[m,k] * W0[k,n]\", "
                          "\"T2[m,j] = T1[m,n] * W1[n,j]\" ] }",
                          imperfect ? 2 * g_rand_int_range (rand, 1, 3) + 1
                          : g_rand_int_range (rand, 1, 3) * 2,
                          g_rand_int_range (rand, 2, 4));
}

/* The random cases of test_brute_force_random() and
 * test_brute_force_remainders(): @variant picks the architecture and
 * workload kind, @seed the problems. */
static void
brute_force_cases (int variant, guint32 seed, guint cases, guint imperfect)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);

  for (guint i = 0; i < cases; i++)
    {
      g_autofree char *arch_text = random_arch (rand, variant);
      g_autofree char *workload_text = variant == 2 ? random_matmuls (rand, imperfect)
                                                    : variant == 4 ? random_tiny_workload (rand)
                                                    : random_workload (rand, imperfect,
                                                                       variant == 1);
      g_autoptr(FfmArch) a = inputs_arch_from_text (arch_text);
      g_autoptr(FfmWorkload) w = inputs_workload_from_text (workload_text);

      g_test_message ("case %u: %s\n%s", i, workload_text, arch_text);
      for (guint e = 0; e < ffm_workload_get_n_einsums (w); e++)
        check_against_brute_force (w, a, e, imperfect);
    }
}

/* Architectures for test_symmetric_dims(): three 2-way tree levels (as
 * maeri-like's six), a 4 x 4 mesh of two equal dimensions (as gemmini's
 * and the Timeloop designs' PE arrays), two equal dimensions that share
 * different tensors, and two equal fanouts with a memory between them. */
#define SYMMETRIC_DRAM_AND_BUFFER \
  "{ \"ffm_architecture\": 1, \"name\": \"sym\", \"levels\": [" \
  "{ \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 10, " \
  "\"write_energy\": 10, \"read_bandwidth\": 8, \"write_bandwidth\": 8, " \
  "\"keep\": \"~intermediates\", \"may_keep\": \"all\" }, " \
  "{ \"memory\": \"Buffer\", \"size\": 1024, \"read_energy\": 1, \"write_energy\": 1.5, " \
  "\"read_bandwidth\": 32, \"write_bandwidth\": 32, \"may_keep\": \"all\" }, "
#define SYMMETRIC_LEAF_AND_MAC \
  "{ \"memory\": \"Leaf\", \"size\": 48, \"read_energy\": 0.125, \"write_energy\": 0.25, " \
  "\"may_keep\": \"all\" }, " \
  "{ \"compute\": \"MAC\", \"energy\": 0.5, \"throughput\": 1, \"leak_power\": 0.0625 } ] }"

static const char *const symmetric_archs[] = {
  SYMMETRIC_DRAM_AND_BUFFER
  "{ \"fanout\": \"Tree0\", \"count\": 2 }, { \"fanout\": \"Tree1\", \"count\": 2 }, "
  "{ \"fanout\": \"Tree2\", \"count\": 2 }, "
  SYMMETRIC_LEAF_AND_MAC,
  SYMMETRIC_DRAM_AND_BUFFER
  "{ \"fanout\": \"PE\", \"dims\": [ { \"name\": \"X\", \"count\": 4 }, "
  "{ \"name\": \"Y\", \"count\": 4 } ] }, "
  SYMMETRIC_LEAF_AND_MAC,
  SYMMETRIC_DRAM_AND_BUFFER
  "{ \"fanout\": \"PE\", \"dims\": [ { \"name\": \"X\", \"count\": 4, \"may_reuse\": \"inputs\" }, "
  "{ \"name\": \"Y\", \"count\": 4, \"may_reuse\": \"outputs\" } ] }, "
  SYMMETRIC_LEAF_AND_MAC,
  SYMMETRIC_DRAM_AND_BUFFER
  "{ \"fanout\": \"Outer\", \"count\": 2 }, "
  "{ \"memory\": \"Middle\", \"size\": 256, \"read_energy\": 0.5, \"write_energy\": 0.5, "
  "\"may_keep\": \"output\" }, "
  "{ \"fanout\": \"Inner\", \"count\": 2 }, "
  SYMMETRIC_LEAF_AND_MAC,
};

/* Interchangeable fanout dimensions (setup_symmetric_dims() in
 * ffm-pmapping-tiles-setup.c): one placement of spatial factors per set
 * that costs the same. On every architecture above and a matmul chain, a
 * convolution layer and random small chains: the same pmappings as with
 * every placement (the groups row for row; with one Einsum the front),
 * fewer evaluated on the tree and the mesh, as many where the dimensions
 * differ; and the rule taken to dimensions that only share a count changes
 * some result. (The brute force of this file knows one fanout dimension;
 * exhaustive search holds the rule to every placement in
 * /ffm/optimality/symmetric-dims.) */
static void
test_symmetric_dims (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261207);
  guint64 evaluated[G_N_ELEMENTS (symmetric_archs)][2] = { { 0 } };
  gboolean unsound_differs = FALSE;

  g_test_summary ("Interchangeable fanout dimensions searched once per placement set: "
                  "the same pmappings as every placement, fewer evaluated where "
                  "dimensions are alike, and the rule taken to unlike dimensions "
                  "changes a result");
  for (guint k = 0; k < G_N_ELEMENTS (symmetric_archs); k++)
    {
      g_autoptr(FfmArch) a = inputs_arch_from_text (symmetric_archs[k]);
      for (guint i = 0; i < 4; i++)
        {
          FfmPmappingOptions options;
          g_autoptr(FfmWorkload) w = NULL;
          g_autoptr(FfmPmappingSet) set = NULL;
          g_autoptr(FfmPmappingSet) every = NULL;

          if (i == 0)
            w = inputs_load_matmuls (2, 8, 4);
          else if (i == 1)
            w = load_small_conv_layer ();
          else
            {
              g_autofree char *text = random_matmuls (rand, FFM_IMPERFECT_NONE);
              w = inputs_workload_from_text (text);
            }
          ffm_pmapping_options_init (&options);
          options.n_threads = 1;
          set = generate (w, a, &options);
          every = generate_with_debug (w, a, &options, "no-symmetric-dims");
          g_assert_false (set_differs (set, every));
          if (ffm_pmapping_set_get_n_einsums (set) > 1)
            assert_sets_equal_ordered (set, every, FALSE, TRUE);
          evaluated[k][0] += count_evaluated (set);
          evaluated[k][1] += count_evaluated (every);
          if (ffm_debug_has_test_hooks () && !unsound_differs && k >= 2)
            {
              g_autoptr(GError) error = NULL;
              g_autoptr(FfmPmappingSet) bad = NULL;
              test_debug_push ("symmetric-dims-by-count");
              bad = ffm_pmappings_generate (w, a, &options, &error);
              test_debug_pop ();
              unsound_differs = set_differs (bad, every);
            }
        }
      g_test_message ("architecture %u: %" G_GUINT64_FORMAT " pmappings evaluated, %"
                      G_GUINT64_FORMAT " with every placement", k, evaluated[k][0],
                      evaluated[k][1]);
    }
  g_assert_cmpuint (evaluated[0][0], <, evaluated[0][1]);
  g_assert_cmpuint (evaluated[1][0], <, evaluated[1][1]);
  g_assert_cmpuint (evaluated[2][0], ==, evaluated[2][1]);
  g_assert_cmpuint (evaluated[3][0], ==, evaluated[3][1]);
  if (ffm_debug_has_test_hooks ())
    g_assert_true (unsound_differs);
}

static void
test_brute_force_random (gconstpointer data)
{
  int variant = GPOINTER_TO_INT (data);
  /* TUNING: the fanout variant's brute force is ~20x larger per case. */
  guint cases = variant == 1 ? 2 : variant == 2 ? 2 : variant == 3 ? 10 : variant == 4 ? 30 : 6;

  g_test_summary ("On random small Einsums and architectures, the generator's "
                  "optimum equals brute force and every brute-force pmapping "
                  "is dominated by a generated one of the same compatibility");
  brute_force_cases (variant, 20240 + variant, cases, FFM_IMPERFECT_NONE);
}

/* The same with remainder tiles, on sizes with few divisors: temporal
 * ones without a fanout (spatial ones need one), spatial ones and both
 * with a fanout, both on the matmul chain. */
static void
test_brute_force_remainders (gconstpointer data)
{
  int variant = GPOINTER_TO_INT (data);
  /* TUNING: remainder tiles make each case larger (the fanout variant's
   * brute force evaluates up to 10^6 pmappings a case, 5-10 s): with a
   * fanout one case and spatial remainders only (both with -m slow), two
   * cases without; three times more with -m slow. */
  guint cases = (variant == 1 ? 1 : 2) * (g_test_slow () ? 3 : 1);

  g_test_summary ("With remainder tiles the generator's optimum equals brute "
                  "force over the same space and every brute-force pmapping "
                  "is dominated");
  if (variant == 1)
    {
      brute_force_cases (variant, 31001, cases, FFM_IMPERFECT_SPATIAL);
      if (g_test_slow ())
        brute_force_cases (variant, 33001, cases, FFM_IMPERFECT_ALL);
    }
  else
    brute_force_cases (variant, 32000 + variant, cases,
                       variant == 0 ? FFM_IMPERFECT_TEMPORAL : FFM_IMPERFECT_ALL);
}

/* ---- Under constraints ---- */

/* One random constraint on @w and @a (an architecture of random_arch():
 * MainMemory, maybe fanout X, GlobalBuffer, MAC), added to @c. */
static void
add_random_constraint (GRand *r, FfmConstraints *c, FfmWorkload *w, FfmArch *a)
{
  const char *glb[] = { "GlobalBuffer", NULL };
  const char *fanout[] = { "X", NULL };
  guint n_einsums = ffm_workload_get_n_einsums (w);
  guint einsum = g_rand_int_range (r, 0, n_einsums);
  const FfmEinsum *e = ffm_workload_get_einsum (w, einsum);
  const char *einsums[] = { e->name, NULL };
  const char *tensor = ffm_workload_get_tensor (w, g_rand_int_range (r, 0,
                                                                     ffm_workload_get_n_tensors (w)))->name;
  const char *roles[] = { "output", "weight", "input", "intermediates" };
  FfmConstraintSpec spec = { 0 };
  const char *vars[FFM_MAX_EINSUM_RANK_VARS + 1] = { NULL };
  g_autoptr (GError) error = NULL;
  int kind = g_rand_int_range (r, 0, 10);

  if (kind == 7 && ffm_arch_find_level (a, "X") < 0)
    kind = 8;
  switch (kind)
    {
    case 0:
      spec = (FfmConstraintSpec) { .kind = FFM_CONSTRAINT_FUSE, .tensors = "intermediates" };
      break;
    case 1:
      spec = (FfmConstraintSpec) { .kind = FFM_CONSTRAINT_UNFUSE, .tensors = "intermediates" };
      break;
    case 2:
      spec = (FfmConstraintSpec) { .kind = FFM_CONSTRAINT_FUSE, .tensors = "intermediates", .levels = glb };
      break;
    case 3:
      spec = (FfmConstraintSpec) { .kind = FFM_CONSTRAINT_KEEP, .tensors = tensor, .levels = glb };
      break;
    case 4:
      spec = (FfmConstraintSpec) { .kind = FFM_CONSTRAINT_FORBID, .tensors = tensor, .levels = glb };
      break;
    case 5:
      spec = (FfmConstraintSpec) { .kind = FFM_CONSTRAINT_STATIONARY,
                                   .tensors = roles[g_rand_int_range (r, 0, 4)],
                                   .levels = glb };
      break;
    case 6:
      {
        /* a random order of the Einsum's variables */
        guint n = e->n_rank_vars;
        for (guint v = 0; v < n; v++)
          vars[v] = e->rank_var_names[v];
        for (guint v = n; v > 1; v--)
          {
            guint x = g_rand_int_range (r, 0, v);
            const char *tmp = vars[v - 1];
            vars[v - 1] = vars[x];
            vars[x] = tmp;
          }
        spec = (FfmConstraintSpec) { .kind = FFM_CONSTRAINT_LOOP_ORDER, .levels = glb,
                                     .einsums = einsums, .rank_vars = vars };
        break;
      }
    case 7:
      vars[0] = e->rank_var_names[g_rand_int_range (r, 0, e->n_rank_vars)];
      spec = (FfmConstraintSpec) { .kind = FFM_CONSTRAINT_SPATIAL, .levels = fanout,
                                   .einsums = einsums, .rank_vars = vars };
      break;
    case 8:
      {
        guint v = g_rand_int_range (r, 0, e->n_rank_vars);
        guint64 bound = e->rank_var_bounds[v], tile;
        do
          tile = (guint64) g_rand_int_range (r, 1, (gint32) bound + 1);
        while (bound % tile != 0);
        vars[0] = e->rank_var_names[v];
        spec = (FfmConstraintSpec) { .kind = FFM_CONSTRAINT_TILE, .levels = glb,
                                     .einsums = einsums, .rank_vars = vars,
                                     .tile = tile };
        break;
      }
    default:
      spec = (FfmConstraintSpec) { .kind = FFM_CONSTRAINT_MAX_FUSED_LOOPS };
      spec.einsums = einsums;
      spec.max_fused_loops = 0;
      break;
    }
  g_assert_true (ffm_constraints_add (c, &spec, "random", &error));
  g_assert_no_error (error);
}

static void
test_brute_force_constrained (gconstpointer data)
{
  int variant = GPOINTER_TO_INT (data);
  g_autoptr(GRand) rand = g_rand_new_with_seed (31337 + variant);
  /* TUNING: the fanout variant's brute force is ~20x larger than the
   * others' (~10 s a case on one core): one case unless -m slow. */
  guint cases = variant == 1 ? (g_test_slow () ? 3 : 1) : 10, done = 0, unbound = 0;

  g_test_summary ("Under random constraints, every generated pmapping satisfies "
                  "them, the generator's optimum equals brute force's over the "
                  "pmappings the constraints admit, and every admitted "
                  "brute-force pmapping is dominated by a generated one of the "
                  "same compatibility");
  while (done < cases)
    {
      g_autofree char *arch_text = random_arch (rand, variant);
      g_autofree char *workload_text = variant == 2 ? random_matmuls (rand, FFM_IMPERFECT_NONE)
                                                    : random_workload (rand, FFM_IMPERFECT_NONE,
                                                                       variant == 1);
      g_autoptr(FfmArch) a = inputs_arch_from_text (arch_text);
      g_autoptr(FfmWorkload) w = inputs_workload_from_text (workload_text);
      g_autoptr(FfmConstraints) c = ffm_constraints_new ("random");
      g_autoptr(FfmBoundConstraints) bound = NULL;
      g_autoptr(FfmJsonWriter) writer = ffm_json_writer_new ();
      g_autofree char *text = NULL;
      guint n = g_rand_int_range (rand, 1, 4);

      for (guint k = 0; k < n; k++)
        add_random_constraint (rand, c, w, a);
      bound = ffm_constraints_bind (c, w, a, NULL);
      if (bound == NULL)
        {
          /* contradictory (fuse and unfuse, keep and forbid): another */
          g_assert_cmpuint (++unbound, <, 100);
          continue;
        }
      ffm_constraints_write_json (c, writer);
      text = ffm_json_writer_finish (writer);
      g_test_message ("case %u: %s\n%s\n%s", done, workload_text, arch_text, text);
      for (guint e = 0; e < ffm_workload_get_n_einsums (w); e++)
        check_against_brute_force_constrained (w, a, e, FFM_IMPERFECT_NONE, c);
      done++;
    }
}

/* ---- Fixed cases ---- */

static void
test_simple_matmul (void)
{
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 64, 64);
  g_autoptr(FfmArch) a = inputs_load_arch ("simple.json");
  g_autoptr(FfmPmappingSet) set = generate (w, a, NULL);
  double e, l, edp;

  g_test_summary ("simple + matmuls(2, 64, 64): each Einsum's best energy is "
                  "the compulsory DRAM traffic plus the compute (as in the reference implementation, accelforge)");
  g_assert_cmpuint (ffm_pmapping_set_get_n_einsums (set), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      best_of_set (pm, &e, &l, &edp);
      /* every tensor straight from MainMemory: 8,617,984 J, 262,144 s */
      g_assert_cmpfloat (e, ==, 8617984.0);
      g_assert_cmpfloat (l, ==, 262144.0);
      g_assert_cmpuint (ffm_einsum_pmappings_get_stats (pm)->n_templates, >, 0);
    }
}

static const char *tight_arch =
  "{ \"ffm_architecture\": 1, \"name\": \"tight\", \"levels\": ["
  "{ \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 4, \"write_energy\": 4,"
  "  \"keep\": \"~intermediates\", \"may_keep\": \"all\" },"
  "{ \"memory\": \"GlobalBuffer\", \"size\": 512, \"read_energy\": 1, \"write_energy\": 1,"
  "  \"read_bandwidth\": 64, \"write_bandwidth\": 64,"
  "  \"keep\": \"~MainMemory\", \"may_keep\": \"all\" },"
  "{ \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 4 } ] }";

static void
test_threads (void)
{
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (3, 16, 8);
  g_autoptr(FfmArch) a = inputs_arch_from_text (tight_arch);
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) one = NULL;

  g_test_summary ("The result does not depend on the number of threads (1, 2, 3, 7)");
  ffm_pmapping_options_init (&options);
  options.n_threads = 1;
  one = generate (w, a, &options);
  for (guint threads = 2; threads <= 7; threads++)
    {
      g_autoptr(FfmPmappingSet) other = NULL;
      if (threads > 3 && threads < 7)
        continue;
      options.n_threads = threads;
      other = generate (w, a, &options);
      assert_sets_equal (one, other, TRUE);
    }
}

/* With one Einsum, the storage choices' seeds of one choice search side
 * by side on the generation's threads while the templates are built
 * (ffm-pmapping-storage.c, search_choice()): Timeloop's simple-ws (16 seed
 * templates in 8 choices) and simba-like (2 in one), each on a small
 * convolution, give the same pmappings and leave out the same partial
 * vectors on 1, 2 and 3 threads. */
static void
test_threads_seeds (void)
{
  static const char *const designs[] = {
    "timeloop-simple-ws.json", "timeloop-simba-like.json",
  };

  g_test_summary ("The storage choices' seeds searched on several threads give the "
                  "same pmappings and bound the same partial vectors as on one");
  for (guint i = 0; i < G_N_ELEMENTS (designs); i++)
    {
      g_autoptr(FfmArch) a = inputs_load_arch (designs[i]);
      g_autoptr(FfmWorkload) w = load_small_conv_layer ();
      g_autoptr(FfmPmappingSet) one = NULL;
      FfmPmappingOptions options;
      guint64 beaten;

      ffm_pmapping_options_init (&options);
      options.n_threads = 1;
      one = generate (w, a, &options);
      beaten = ffm_pmapping_set_count_rows_beaten (one);
      g_test_message ("%s: %" G_GUINT64_FORMAT " partial vectors beaten", designs[i], beaten);
      g_assert_cmpuint (beaten, >, 0);
      for (guint threads = 2; threads <= 3; threads++)
        {
          g_autoptr(FfmPmappingSet) other = NULL;
          options.n_threads = threads;
          other = generate (w, a, &options);
          assert_sets_equal (one, other, TRUE);
          g_assert_cmpuint (ffm_pmapping_set_count_rows_beaten (other), ==, beaten);
        }
    }
}

/* A set cancel flag stops the generation with FFM_SEARCH_ERROR_CANCELLED
 * (whatever the thread count); a clear one changes nothing. */
static void
test_cancel (void)
{
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (3, 16, 8);
  g_autoptr(FfmArch) a = inputs_arch_from_text (tight_arch);
  FfmPmappingOptions options;
  gint flag = 0;

  g_test_summary ("The cancel flag stops the generator with a clear error");
  ffm_pmapping_options_init (&options);
  options.cancel = &flag;
  for (guint threads = 1; threads <= 2; threads++)
    {
      g_autoptr(FfmPmappingSet) set = NULL;
      g_autoptr(GError) error = NULL;

      options.n_threads = threads;
      g_atomic_int_set (&flag, 0);
      set = ffm_pmappings_generate (w, a, &options, &error);
      g_assert_no_error (error);
      g_assert_nonnull (set);
      g_clear_pointer (&set, ffm_pmapping_set_free);

      g_atomic_int_set (&flag, 1);
      set = ffm_pmappings_generate (w, a, &options, &error);
      g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_CANCELLED);
      g_assert_null (set);
      g_assert_nonnull (strstr (error->message, "cancelled"));
    }
}

/* The CPU time of the calling thread, s (with one thread the generator
 * runs its templates, and calls the progress function, on it). */
static double
thread_cpu_seconds (void)
{
  struct timespec ts;

  g_assert_cmpint (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts), ==, 0);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* Progress of a one-thread generation, which reports each template's start
 * then its end: the CPU time of each, and the cancel flag set as template
 * @cancel_at (in run order) starts. */
typedef struct {
  guint calls;
  double started;           /* CPU time at the last start */
  double heaviest;          /* CPU time of the heaviest template */
  int heaviest_at;
  int cancel_at;            /* -1: none */
  gint *flag;
  double cancelled;         /* CPU time when the flag was set */
} CancelProbe;

static void
cancel_probe_progress (const FfmPmappingProgress *p, gpointer data)
{
  CancelProbe *c = data;
  double now = thread_cpu_seconds ();
  int template = (int) (c->calls / 2);

  if (c->calls % 2 == 0)
    {
      c->started = now;
      if (template == c->cancel_at)
        {
          g_atomic_int_set (c->flag, 1);
          c->cancelled = now;
        }
    }
  else if (now - c->started > c->heaviest)
    {
      c->heaviest = now - c->started;
      c->heaviest_at = template;
    }
  c->calls++;
}

/* The cancel flag stops the template that runs, not only the ones after
 * it: set as the heaviest template of a problem starts, the generation
 * returns after a small part of that template's CPU time (SIGTERM and
 * Ctrl-C end `ffm map` within a second on chips whose templates take
 * seconds each). Measured in the thread's CPU time, which a loaded
 * machine does not stretch. */
static void
test_cancel_within_template (void)
{
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (1, 48, 48);
  g_autoptr(FfmArch) a = inputs_load_arch ("gemmini.json");
  g_autoptr(FfmPmappingSet) set = NULL;
  g_autoptr(GError) error = NULL;
  FfmPmappingOptions options;
  gint flag = 0;
  CancelProbe probe = { 0, 0, 0, -1, -1, &flag, 0 };
  double after;

  g_test_summary ("A cancel stops the running template's tile search, not only "
                  "the templates after it");
  /* (the bound against the pmappings found makes every template of this
   * single matmul fast: it is off here, so that a template lasts) */
  test_debug_push ("no-incumbent-bounds");
  ffm_pmapping_options_init (&options);
  options.n_threads = 1;
  options.cancel = &flag;
  options.progress = cancel_probe_progress;
  options.progress_data = &probe;
  set = generate (w, a, &options);
  g_clear_pointer (&set, ffm_pmapping_set_free);
  g_assert_cmpint (probe.heaviest_at, >=, 0);
  g_test_message ("heaviest template: %d, %.3f s of CPU", probe.heaviest_at, probe.heaviest);
  /* A template long enough that a search which ignores the flag shows. */
  g_assert_cmpfloat (probe.heaviest, >, 0.05);

  probe.calls = 0;
  probe.cancel_at = probe.heaviest_at;
  set = ffm_pmappings_generate (w, a, &options, &error);
  after = thread_cpu_seconds () - probe.cancelled;
  g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_CANCELLED);
  g_assert_null (set);
  g_test_message ("cancelled at its start: returned after %.4f s of CPU", after);
  g_assert_cmpfloat (after, <, probe.heaviest / 5);
  test_debug_pop ();
}

/* Einsums of equal shape, tensor classes and architecture answers get a
 * copy of the first one's pmappings: the same groups, rows and tiles as
 * enumerating each, tensors renamed. */
static void
assert_reuse_equals_fresh (FfmWorkload *w, FfmArch *a, guint expect_reused)
{
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) reused = NULL;
  g_autoptr(FfmPmappingSet) fresh = NULL;
  guint n_reused = 0;

  ffm_pmapping_options_init (&options);
  options.n_threads = 2;
  reused = generate (w, a, &options);
  options.reuse_equal_einsums = FALSE;
  fresh = generate (w, a, &options);
  assert_sets_equal (reused, fresh, TRUE);
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (reused); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (reused, i);
      const FfmPmappingStats *st = ffm_einsum_pmappings_get_stats (pm);
      g_assert_cmpint (ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (fresh, i))->reused_from,
                       ==, -1);
      if (st->reused_from < 0)
        continue;
      n_reused++;
      g_assert_cmpint (st->reused_from, <, (int) ffm_einsum_pmappings_get_einsum (pm));
      g_assert_cmpuint (st->n_evaluated, ==, 0);
      /* The copy names this Einsum's own tensors, and its rows rebuild to
       * pmappings of this Einsum that evaluate to the row. */
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
        {
          const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
          const FfmEinsum *e = ffm_workload_get_einsum (w, ffm_einsum_pmappings_get_einsum (pm));
          g_assert_cmpuint (g->compat.einsum, ==, ffm_einsum_pmappings_get_einsum (pm));
          for (guint t = 0; t < g->compat.n_tensors; t++)
            g_assert_cmpuint (g->compat.tensors[t].tensor, ==,
                              e->accesses[g->compat.tensors[t].access].tensor);
          for (guint r = 0; r < g->n_rows; r++)
            {
              g_autoptr(GPtrArray) nodes = NULL;
              g_autoptr(FfmPmappingModel) m = NULL;
              g_autoptr(FfmPmappingCost) cost = evaluate_row (w, a, pm, &g->refs[r], FALSE, &nodes, &m);
              FfmCompatibility compat;
              g_assert_cmpfloat (cost->energy, ==, g->values[(gsize) r * g->n_columns]);
              g_assert_true (ffm_pmapping_describe (w, a, m, ffm_pmapping_model_get_tiles (m),
                                                    cost, FFM_PMAPPING_ENERGY,
                                                    &compat, NULL, NULL));
              g_assert_true (ffm_compatibility_equal (&compat, &g->compat));
            }
        }
    }
  g_assert_cmpuint (n_reused, ==, expect_reused);
}

static void
test_reuse (void)
{
  /* Five matmuls: Matmul1..3 read and write intermediates alike (Matmul0
   * reads the workload input, Matmul4 writes the output). */
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (5, 16, 8);
  g_autoptr(FfmArch) a = inputs_arch_from_text (tight_arch);
  /* The same, but the GlobalBuffer may keep T2 only as the weight's
   * neighbour of Matmul2: an architecture answer that tells Matmul2 apart. */
  g_autoptr(FfmArch) b = inputs_arch_from_text (
    "{ \"ffm_architecture\": 1, \"name\": \"picky\", \"levels\": ["
    "{ \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 4, \"write_energy\": 4,"
    "  \"keep\": \"~intermediates\", \"may_keep\": \"all\" },"
    "{ \"memory\": \"GlobalBuffer\", \"size\": 512, \"read_energy\": 1, \"write_energy\": 1,"
    "  \"read_bandwidth\": 64, \"write_bandwidth\": 64,"
    "  \"keep\": \"~MainMemory\", \"may_keep\": \"all - W2\" },"
    "{ \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 4 } ] }");

  g_test_summary ("Einsums with equal signatures reuse the first one's "
                  "pmappings, which equal enumerating each; an architecture "
                  "answer that differs prevents reuse");
  assert_reuse_equals_fresh (w, a, 2);
  assert_reuse_equals_fresh (w, b, 1);
}

static const char *deep_arch =
  "{ \"ffm_architecture\": 1, \"name\": \"deep\", \"levels\": ["
  "{ \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 8, \"write_energy\": 8,"
  "  \"read_bandwidth\": 32, \"write_bandwidth\": 32,"
  "  \"keep\": \"~intermediates\", \"may_keep\": \"all\" },"
  "{ \"memory\": \"GlobalBuffer\", \"size\": 4096, \"read_energy\": 2, \"write_energy\": 3,"
  "  \"read_bandwidth\": 128, \"write_bandwidth\": 64, \"ports\": \"separate\","
  "  \"keep\": \"~MainMemory\", \"may_keep\": \"all\" },"
  "{ \"fanout\": \"X\", \"count\": 4, \"may_reuse\": \"input\" },"
  "{ \"memory\": \"LocalBuffer\", \"size\": 512, \"read_energy\": 1, \"write_energy\": 1,"
  "  \"keep\": \"input | output\" },"
  "{ \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 2 } ] }";

/* Generates with and without partial pruning under @options and checks
 * that every group keeps the same Pareto set; returns the tile vectors
 * each evaluated. */
static void
assert_pruning_exact (FfmWorkload *w, FfmArch *a, FfmPmappingOptions *options,
                      guint64 *n_pruned, guint64 *n_full)
{
  g_autoptr(FfmPmappingSet) pruned = generate (w, a, options);
  g_autoptr(FfmPmappingSet) full = NULL;

  full = generate_with_debug (w, a, options, "no-partial-pruning");
  assert_pareto_sets_equal (pruned, full);
  *n_pruned = count_evaluated (pruned);
  *n_full = count_evaluated (full);
}

static void
test_partial_pruning (gconstpointer data)
{
  int which = GPOINTER_TO_INT (data);
  g_autoptr(FfmWorkload) w = which == 0 ? inputs_load_matmuls (2, 32, 16) : inputs_load_matmuls (2, 16, 32);
  g_autoptr(FfmArch) a = inputs_arch_from_text (deep_arch);
  FfmPmappingOptions options;
  guint64 n_pruned, n_full;

  g_test_summary ("Pruning partial tile vectors by dominance of their cost "
                  "terms leaves every group's Pareto set unchanged, and "
                  "evaluates fewer tile vectors");
  ffm_pmapping_options_init (&options);
  options.n_threads = 2;
  assert_pruning_exact (w, a, &options, &n_pruned, &n_full);
  g_test_message ("evaluated %" G_GUINT64_FORMAT " pruned, %" G_GUINT64_FORMAT
                  " in full", n_pruned, n_full);
  /* Tables cut into small chunks prune less (FFM_DEBUG=chunk-rows). */
  if (!ffm_debug_flag_is_set (FFM_DEBUG_CHUNK_ROWS))
    g_assert_cmpuint (n_pruned * 2, <, n_full);
}

/* With remainder tiles a spatial loop's iterations no longer fix the
 * busiest instance's steps (m = 10 over 4 instances: tiles of 3, 3 steps;
 * in 2 steps of 5, then 2 instances: the same usage of 2, 3 steps too but
 * other counts), so the cost terms have the compute unit's latency: the
 * pruned and the full enumerations keep the same Pareto sets, and the terms
 * equal the model at every evaluated vector. */
static void
test_remainder_partial_pruning (void)
{
  g_test_summary ("With remainder tiles, pruning partial tile vectors leaves "
                  "every group's Pareto set unchanged and the cost terms "
                  "equal the model");
  for (int m = 7; m <= 13; m += 3)
    {
      g_autofree char *wt = g_strdup_printf (
        "{\"ffm_workload\": 1, \"name\": \"mm\", \"ranks\": {\"M\": %d, "
        "\"N0\": 3, \"N1\": 2}, \"bits_per_value\": {\"all\": 8}, "
        "\"einsums\": [\"T1[m,n1] = T0[m,n0] * W0[n0,n1]\"]}", m);
      g_autoptr(FfmWorkload) w = inputs_workload_from_text (wt);
      g_autoptr(FfmArch) a = inputs_arch_from_text (
        "{\"ffm_architecture\": 1, \"name\": \"a\", \"levels\": ["
        " {\"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 1,"
        "  \"write_energy\": 1, \"keep\": \"all\"},"
        " {\"memory\": \"GlobalBuffer\", \"size\": 200, \"read_energy\": 0.5,"
        "  \"write_energy\": 0.5, \"read_bandwidth\": 4, \"write_bandwidth\": 4,"
        "  \"may_keep\": \"all\"},"
        " {\"fanout\": \"X\", \"count\": 4},"
        " {\"memory\": \"Reg\", \"size\": 32, \"read_energy\": 0.1,"
        "  \"write_energy\": 0.1, \"may_keep\": \"all\"},"
        " {\"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1}]}");
      FfmPmappingOptions options;
      guint64 n_pruned, n_full;

      ffm_pmapping_options_init (&options);
      options.n_threads = 1;
      options.imperfect = FFM_IMPERFECT_ALL;
      assert_pruning_exact (w, a, &options, &n_pruned, &n_full);
    }
}

/* Convolutions index their input by sums of rank variables (p + r, a
 * stride's 2p + r): a tile of extent 1 + sum coef (tile - 1) per rank, which
 * the cost terms write as monomials (ffm-pmapping-terms.c). Two chained
 * convolutions (2D, then strided 1D rows) with a fanout whose minimum usage
 * they cannot reach ("try best"), perfect and with remainders: the terms
 * equal the model at every evaluated vector, the pruned and the full
 * enumerations keep the same Pareto sets, and the pruning evaluates fewer. */
static void
test_affine_partial_pruning (void)
{
  /* Remainder tiles multiply the full enumeration's vectors: smaller
   * ranks there, so that it finishes in seconds. */
  static const struct {
    FfmImperfect imperfect;
    int k, c, p, q, h, w;
  } cases[] = {
    { FFM_IMPERFECT_NONE, 4, 3, 6, 4, 8, 5 },
    { FFM_IMPERFECT_ALL, 2, 2, 5, 2, 7, 3 },
  };
  g_autoptr(FfmArch) a = inputs_arch_from_text (
    "{\"ffm_architecture\": 1, \"name\": \"a\", \"levels\": ["
    " {\"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 8,"
    "  \"write_energy\": 8, \"read_bandwidth\": 16, \"write_bandwidth\": 16,"
    "  \"keep\": \"~intermediates\", \"may_keep\": \"all\"},"
    " {\"memory\": \"GlobalBuffer\", \"size\": 3000, \"read_energy\": 2,"
    "  \"write_energy\": 3, \"read_bandwidth\": 64, \"write_bandwidth\": 32,"
    "  \"may_keep\": \"all\"},"
    " {\"fanout\": \"X\", \"count\": 16, \"min_usage\": 1, \"may_reuse\": \"input\"},"
    " {\"memory\": \"Reg\", \"size\": 128, \"read_energy\": 0.1,"
    "  \"write_energy\": 0.1, \"may_keep\": \"all\"},"
    " {\"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1}]}");

  g_test_summary ("Convolutions (affine indices, strides) are pruned by "
                  "their cost terms: the terms equal the model, the Pareto "
                  "sets are unchanged, fewer tile vectors are evaluated");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "{\"ffm_workload\": 1, \"name\": \"convs\", \"ranks\": {\"K\": %d, \"C\": %d,"
        " \"P\": %d, \"Q\": %d, \"R\": 3, \"S\": 2, \"H\": %d, \"W\": %d, \"J\": 2,"
        " \"U\": 2}, \"bits_per_value\": {\"all\": 8},"
        " \"einsums\": [\"O[k,P:p,Q:q] = I[c,H:p+r,W:q+s] * F[k,c,r,s]\","
        " \"Z[j,U:u,Q:q] = O[k,P:2*u+r,Q:q] * G[j,k,r]\"]}",
        cases[i].k, cases[i].c, cases[i].p, cases[i].q, cases[i].h, cases[i].w);
      g_autoptr(FfmWorkload) w = inputs_workload_from_text (text);
      FfmPmappingOptions options;
      guint64 n_pruned, n_full;

      ffm_pmapping_options_init (&options);
      options.n_threads = 2;
      options.imperfect = cases[i].imperfect;
      assert_pruning_exact (w, a, &options, &n_pruned, &n_full);
      g_test_message ("imperfect %d: evaluated %" G_GUINT64_FORMAT " pruned, %"
                      G_GUINT64_FORMAT " in full", (int) cases[i].imperfect,
                      n_pruned, n_full);
      g_assert_cmpuint (n_pruned * 2, <, n_full);
    }
}

static void
test_tracked_and_columns (void)
{
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 16, 8);
  g_autoptr(FfmArch) a = inputs_arch_from_text (tight_arch);
  g_autoptr(FfmPmappingSet) set = generate (w, a, NULL);
  guint n_tracked;
  const guint *tracked = ffm_pmapping_set_get_tracked_levels (set, &n_tracked);

  g_test_summary ("Tracked memories, column layout and cumulative reservations");
  /* MainMemory is infinite; the 512-bit GlobalBuffer cannot hold the
   * workload (2 x (128 + 64 + 128) values x 8 bits) and backs T1. */
  g_assert_cmpuint (n_tracked, ==, 1);
  g_assert_cmpuint (tracked[0], ==, 1);
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
        {
          const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
          guint F = g->compat.n_loops;
          g_assert_cmpuint (g->n_columns, ==, 2 + F + 2);
          g_assert_cmpint (g->columns[0].kind, ==, FFM_PMAPPING_COLUMN_ENERGY);
          g_assert_cmpint (g->columns[1].kind, ==, FFM_PMAPPING_COLUMN_LATENCY);
          for (guint c = 2; c < g->n_columns; c++)
            {
              g_assert_cmpint (g->columns[c].kind, ==, FFM_PMAPPING_COLUMN_RESERVATION);
              g_assert_cmpuint (g->columns[c].level, ==, 1);
              g_assert_cmpint (g->columns[c].depth, ==, (int) c - 3);
            }
          for (guint r = 0; r < g->n_rows; r++)
            {
              const double *v = g->values + (gsize) r * g->n_columns;
              for (guint c = 3; c < g->n_columns; c++)
                g_assert_cmpfloat (v[c], >=, v[c - 1]);
              g_assert_cmpfloat (v[g->n_columns - 1], <=, 512);
            }
          /* A shared tensor backed in the GlobalBuffer has its tile there. */
          for (guint t = 0; t < g->compat.n_tensors; t++)
            if (g->compat.tensors[t].backing_level == 1)
              for (guint r = 0; r < g->n_rows; r++)
                g_assert_cmpfloat (g->values[(gsize) r * g->n_columns + g->n_columns - 1],
                                   >=, g->compat.tensors[t].backing_bits);
        }
    }
}

static void
test_rebuild (void)
{
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 16, 8);
  g_autoptr(FfmArch) a = inputs_arch_from_text (tight_arch);
  g_autoptr(FfmPmappingSet) set = generate (w, a, NULL);
  guint checked = 0;

  g_test_summary ("A row's reference rebuilds a pmapping whose evaluation "
                  "gives the row's objectives and compatibility, with or "
                  "without its loops of one iteration");
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
        {
          const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
          for (guint r = 0; r < g->n_rows; r++)
            for (int drop = 0; drop < 2; drop++)
              {
                g_autoptr(GPtrArray) nodes = NULL;
                g_autoptr(FfmPmappingModel) m = NULL;
                g_autoptr(FfmPmappingCost) cost = evaluate_row (w, a, pm, &g->refs[r], drop, &nodes, &m);
                FfmCompatibility compat;
                g_assert_cmpfloat (cost->energy, ==, g->values[(gsize) r * g->n_columns]);
                g_assert_cmpfloat (cost->latency, ==, g->values[(gsize) r * g->n_columns + 1]);
                if (!drop)
                  {
                    g_assert_true (ffm_pmapping_describe (w, a, m, ffm_pmapping_model_get_tiles (m),
                                                          cost, FFM_PMAPPING_ENERGY,
                                                          &compat, NULL, NULL));
                    g_assert_true (ffm_compatibility_equal (&compat, &g->compat));
                  }
                checked++;
              }
        }
    }
  g_assert_cmpuint (checked, >, 10);
}

static void
test_does_not_fit (void)
{
  const char *arch =
    "{ \"ffm_architecture\": 1, \"name\": \"tiny\", \"levels\": ["
    "{ \"memory\": \"MainMemory\", \"size\": \"inf\", \"keep\": \"~intermediates\","
    "  \"may_keep\": \"nothing\" },"
    "{ \"memory\": \"Scratch\", \"size\": 12, \"keep\": \"all\" },"
    "{ \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1 } ] }";
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 4, 4);
  g_autoptr(FfmArch) a = inputs_arch_from_text (arch);
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmPmappingSet) set = NULL;
  FfmPmappingOptions options;

  g_test_summary ("An Einsum that fits nowhere is an error naming the Einsum "
                  "and the memory");
  ffm_pmapping_options_init (&options);
  options.max_fused_loops = 1;
  set = ffm_pmappings_generate (w, a, &options, &error);
  /* Scratch must keep all three 8-bit tensors and backs T1, shared with
   * Matmul1. With one fused loop, the loop above T1's
   * backing node walks m or n1, not both, so T1's tile holds a whole row
   * or column of 4 values (32 bits), and T0 and W0 at least one value
   * each: 48 bits. */
  g_assert_null (set);
  g_assert_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "Einsum Matmul0"));
  g_assert_nonnull (strstr (error->message, "Scratch"));
  g_assert_nonnull (strstr (error->message, "48 bits"));
}

/* A matmul (three tensors) on an architecture whose only compute unit
 * serves Einsums of two (as the CiMLoop macros' units serve only three). */
static void
test_unserved (void)
{
  const char *arch =
    "{ \"ffm_architecture\": 1, \"name\": \"two-only\", \"levels\": ["
    "{ \"memory\": \"MainMemory\", \"size\": \"inf\" },"
    "{ \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1,"
    "  \"enabled\": \"len(all) == 2\" } ] }";
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (1, 4, 4);
  g_autoptr(FfmArch) a = inputs_arch_from_text (arch);
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmPmappingSet) set = ffm_pmappings_generate (w, a, NULL, &error);

  g_test_summary ("An Einsum no compute unit serves is its own error code "
                  "(the architecture's design, not a failed search), naming "
                  "the Einsum and the architecture");
  g_assert_null (set);
  g_assert_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_UNSERVED);
  g_assert_cmpstr (error->message, ==, "Einsum Matmul0: no compute unit of architecture "
                   "two-only serves it (every `enabled` is false)");
}

/* ---- Minimum fanout usage ---- */

/* A matmul on MainMemory, a fanout PE of @count and the MAC. */
static char *
usage_arch_text (guint count, double min_usage)
{
  return g_strdup_printf (
    "{ \"ffm_architecture\": 1, \"name\": \"usage\", \"levels\": ["
    "{ \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 1,"
    "  \"write_energy\": 1, \"read_bandwidth\": 1, \"write_bandwidth\": 1 },"
    "{ \"fanout\": \"PE\", \"dims\": [ { \"name\": \"d0\", \"count\": %u,"
    "  \"min_usage\": %g } ] },"
    "{ \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1 } ] }",
    count, min_usage);
}

/* The smallest and largest PE.d0 usage (instances used) over every row of
 * every group, from the rebuilt pmappings; returns the number of rows. */
static guint
fanout_usage_range (FfmWorkload *w, FfmArch *a, const FfmPmappingSet *set,
                    guint64 *lo, guint64 *hi)
{
  guint rows = 0;

  *lo = G_MAXUINT64;
  *hi = 0;
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
        {
          const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
          for (guint r = 0; r < g->n_rows; r++)
            {
              g_autoptr(GPtrArray) nodes = NULL;
              g_autoptr(FfmPmappingModel) m = NULL;
              g_autoptr(FfmPmappingCost) cost = evaluate_row (w, a, pm, &g->refs[r], FALSE, &nodes, &m);
              guint64 used = 1;
              if (ffm_pmapping_model_get_n_fanout_dims (m) > 0)
                used = cost->fanout_used[0];
              *lo = MIN (*lo, used);
              *hi = MAX (*hi, used);
              rows++;
            }
        }
    }
  return rows;
}

/* Prime rank sizes fill more of a fanout with remainder tiles: 7 points
 * (a 7 x 7 feature map's rows) on 4 PEs, 197 tokens (ViT-B/16) on 16 and
 * on 128 take one PE with tiles that divide (1 or the whole size), and
 * with remainder tiles 4 (tiles of 2), 16 (of 13) and 99 (of 2; 128
 * would take tiles of 197/128, which leave 69 PEs idle anyway). */
static void
test_remainder_fill_fanout (void)
{
  static const struct { guint size, pes; guint64 perfect, remainder; } cases[] = {
    { 7, 4, 1, 4 }, { 197, 16, 1, 16 }, { 197, 128, 1, 99 },
  };

  g_test_summary ("Rank sizes 7 and 197 use more of a fanout with spatial "
                  "remainder tiles than with tiles that divide");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      /* compute-bound: the latency is the busiest PE's steps */
      g_autofree char *arch_text = g_strdup_printf (
        "{ \"ffm_architecture\": 1, \"name\": \"fill\", \"levels\": ["
        "{ \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 1,"
        "  \"write_energy\": 1 },"
        "{ \"fanout\": \"PE\", \"count\": %u },"
        "{ \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1 } ] }",
        cases[i].pes);
      g_autofree char *wt = g_strdup_printf (
        "{\"ffm_workload\": 1, \"name\": \"rows\", \"ranks\": {\"M\": %u},"
        " \"bits_per_value\": {\"all\": 8}, \"einsums\": [\"B[m] = A[m]\"]}",
        cases[i].size);
      g_autoptr(FfmArch) a = inputs_arch_from_text (arch_text);
      g_autoptr(FfmWorkload) w = inputs_workload_from_text (wt);
      for (guint imperfect = 0; imperfect < 2; imperfect++)
        {
          FfmPmappingOptions options;
          g_autoptr(FfmPmappingSet) set = NULL;
          guint64 lo, hi;
          ffm_pmapping_options_init (&options);
          options.n_threads = 1;
          options.imperfect = imperfect ? FFM_IMPERFECT_SPATIAL : FFM_IMPERFECT_NONE;
          set = generate (w, a, &options);
          g_assert_cmpuint (fanout_usage_range (w, a, set, &lo, &hi), >, 0);
          g_assert_cmpuint (hi, ==, imperfect ? cases[i].remainder : cases[i].perfect);
        }
    }
}

/* MainMemory, a 4-way fanout PE that may multicast nothing but reduce
 * outputs, a LocalBuffer per instance and the MAC. */
static char *
local_usage_arch_text (double min_usage)
{
  return g_strdup_printf (
    "{ \"ffm_architecture\": 1, \"name\": \"usage\", \"levels\": ["
    "{ \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 8,"
    "  \"write_energy\": 8, \"keep\": \"all\" },"
    "{ \"fanout\": \"PE\", \"dims\": [ { \"name\": \"d0\", \"count\": 4,"
    "  \"may_reuse\": \"outputs\", \"min_usage\": %g } ] },"
    "{ \"memory\": \"LocalBuffer\", \"size\": 4096, \"read_energy\": 1,"
    "  \"write_energy\": 1 },"
    "{ \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1 } ] }", min_usage);
}

static void
test_min_usage_size_one (void)
{
  /* m has bound 1, so no loop: one tile chain that adds nothing to PE. */
  g_autoptr(FfmWorkload) w = inputs_workload_from_text (
    "{ \"ffm_workload\": 1, \"name\": \"usage\","
    "  \"ranks\": { \"M\": 1, \"N0\": 2, \"N1\": 2 },"
    "  \"bits_per_value\": { \"all\": 8 },"
    "  \"einsums\": [ \"T1[m,n1] = T0[m,n0] * W0[n0,n1]\" ] }");
  g_autofree char *text = local_usage_arch_text (0.5);
  g_autofree char *free_text = local_usage_arch_text (0);
  g_autoptr(FfmArch) a = inputs_arch_from_text (text);
  g_autoptr(FfmArch) unconstrained = inputs_arch_from_text (free_text);
  double energy[2], latency, edp;
  guint64 lo, hi, evaluated[2];

  g_test_summary ("A rank variable of bound 1 does not make the minimum "
                  "fanout usage look unreachable");
  for (int prune = 0; prune < 2; prune++)
    {
      FfmPmappingOptions options;
      g_autoptr(FfmPmappingSet) set = NULL;
      ffm_pmapping_options_init (&options);
      set = generate_with_debug (w, a, &options, prune ? "" : "no-partial-pruning");
      /* T0 cannot be multicast: across n1 every instance fetches its own
       * copy, so the lowest energy puts only n0 across PE (2 of 4
       * instances, just the minimum) and n1 in time below the LocalBuffer. */
      g_assert_cmpuint (fanout_usage_range (w, a, set, &lo, &hi), >, 0);
      g_assert_cmpuint (lo, ==, 2);
      g_assert_cmpuint (hi, ==, 4);
      best_of_set (ffm_pmapping_set_get_einsum (set, 0), &energy[prune], &latency, &edp);
    }
  g_assert_cmpfloat (energy[1], ==, energy[0]);
  /* The bound cuts the branches of usage 1 (no "try best" pass that
   * evaluates everything). (The bound against the pmappings found, which
   * applies without a minimum usage only, is off for the comparison.) */
  for (int constrained = 0; constrained < 2; constrained++)
    {
      g_autoptr(FfmPmappingSet) set =
        generate_with_debug (w, constrained ? a : unconstrained, NULL, "no-incumbent-bounds");
      evaluated[constrained] =
        ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (set, 0))->n_evaluated;
    }
  g_assert_cmpuint (evaluated[1], <, evaluated[0]);
}

static void
test_min_usage_try_best (void)
{
  /* Only m (bound 2) can go across PE: at most 2 of 4 instances, below the
   * minimum of 3, so every branch is cut before any leaf. */
  g_autoptr(FfmWorkload) w = inputs_workload_from_text (
    "{ \"ffm_workload\": 1, \"name\": \"usage\","
    "  \"ranks\": { \"M\": 2, \"N0\": 1, \"N1\": 1 },"
    "  \"bits_per_value\": { \"all\": 8 },"
    "  \"einsums\": [ \"T1[m,n1] = T0[m,n0] * W0[n0,n1]\" ] }");
  g_autofree char *text = usage_arch_text (4, 0.75);
  g_autoptr(FfmArch) a = inputs_arch_from_text (text);

  g_test_summary ("When no tile vector reaches a fanout's minimum usage, "
                  "even if the bound cuts every branch, \"try best\" keeps "
                  "the highest usage");
  for (int prune = 0; prune < 2; prune++)
    {
      FfmPmappingOptions options;
      g_autoptr(FfmPmappingSet) set = NULL;
      guint64 lo, hi;
      ffm_pmapping_options_init (&options);
      set = generate_with_debug (w, a, &options, prune ? "" : "no-partial-pruning");
      g_assert_cmpuint (fanout_usage_range (w, a, set, &lo, &hi), >, 0);
      g_assert_cmpuint (lo, ==, 2);
      g_assert_cmpuint (hi, ==, 2);
    }
}

static void
test_unfused (void)
{
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 16, 8);
  g_autoptr(FfmArch) a = inputs_arch_from_text (tight_arch);
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) set = NULL;

  g_test_summary ("--unfused backs every shared tensor in the outermost memory");
  ffm_pmapping_options_init (&options);
  options.unfused = TRUE;
  set = generate (w, a, &options);
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
        {
          const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
          g_assert_cmpuint (g->compat.n_loops, ==, 0);
          for (guint t = 0; t < g->compat.n_tensors; t++)
            g_assert_cmpuint (g->compat.tensors[t].backing_level, ==, 0);
        }
    }
}

/* ---- Progress ---- */

typedef struct {
  GMutex lock;
  guint calls;
  guint max_templates_done;     /* the largest count reported */
  guint max_einsums_done;
  guint n_templates;
  guint n_einsums;
  gboolean names_known;         /* every call named a workload Einsum */
  const FfmWorkload *w;
} ProgressLog;

static void
log_progress (const FfmPmappingProgress *p, gpointer data)
{
  ProgressLog *log = data;

  g_mutex_lock (&log->lock);
  log->calls++;
  log->max_templates_done = MAX (log->max_templates_done, p->templates_done);
  log->max_einsums_done = MAX (log->max_einsums_done, p->einsums_done);
  log->n_templates = p->n_templates;
  log->n_einsums = p->n_einsums;
  log->names_known &= p->einsum >= 0
    && g_strcmp0 (p->einsum_name, ffm_workload_get_einsum (log->w, (guint) p->einsum)->name) == 0
    && p->templates_done <= p->n_templates && p->einsums_done <= p->n_einsums;
  g_mutex_unlock (&log->lock);
}

/* The generator tells its progress callback every template's start and
 * end, from every thread: in the end all templates and all Einsums are
 * done (the two equal Einsums of a four-matmul chain copy the first). */
static void
test_progress (void)
{
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (4, 16, 16);
  g_autoptr (FfmArch) a = inputs_load_arch ("simple.json");
  g_autoptr (FfmPmappingSet) set = NULL;
  g_autoptr (GError) error = NULL;
  FfmPmappingOptions options;
  ProgressLog log = { .names_known = TRUE, .w = w };
  guint templates = 0;

  g_test_summary ("the progress callback counts templates and Einsums to the end, "
                  "from every thread");
  g_mutex_init (&log.lock);
  ffm_pmapping_options_init (&options);
  options.n_threads = 2;
  options.progress = log_progress;
  options.progress_data = &log;
  set = ffm_pmappings_generate (w, a, &options, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmPmappingStats *st = ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (set, i));
      if (st->reused_from < 0)
        templates += st->n_templates;
    }
  g_assert_true (log.names_known);
  g_assert_cmpuint (log.n_templates, ==, templates);
  g_assert_cmpuint (log.calls, ==, 2 * templates);
  g_assert_cmpuint (log.max_templates_done, ==, templates);
  g_assert_cmpuint (log.n_einsums, ==, 4);
  g_assert_cmpuint (log.max_einsums_done, ==, 4);
  g_mutex_clear (&log.lock);
}

/* Tables cut into chunks (FFM_DEBUG=chunk-rows, the bound that keeps
 * the tile search's memory flat) give the same Pareto sets as whole
 * tables, with more tile vectors evaluated the smaller the chunks. */
static void
test_chunked_tables (void)
{
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (3, 64, 48);
  g_autoptr(FfmArch) a = inputs_load_arch ("simple.json");
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) whole = NULL;
  guint64 n_whole, n_last;
  const guint chunks[] = { 1000, 64, 1 };

  g_test_summary ("Chunked tile tables keep every group's Pareto set");
  /* (the Einsum fronts beat across templates what whole tables beat
   * within one: the chunks' cost is seen without them) */
  test_debug_push ("no-einsum-front");
  ffm_pmapping_options_init (&options);
  options.n_threads = 2;
  options.max_fused_loops = -1;
  whole = generate (w, a, &options);
  n_whole = count_evaluated (whole);
  n_last = n_whole;
  for (guint c = 0; c < G_N_ELEMENTS (chunks); c++)
    {
      g_autoptr(FfmPmappingSet) cut = NULL;
      g_autofree char *flags = g_strdup_printf ("chunk-rows=%u", chunks[c]);
      guint64 n;

      cut = generate_with_debug (w, a, &options, flags);
      assert_pareto_sets_equal (whole, cut);
      n = count_evaluated (cut);
      g_test_message ("chunks of %u rows: %" G_GUINT64_FORMAT " evaluated (whole: %"
                      G_GUINT64_FORMAT ")", chunks[c], n, n_whole);
      g_assert_cmpuint (n, >=, n_last);
      n_last = n;
    }
  /* Chunks of one row prune nothing across rows: the cut happened. */
  g_assert_cmpuint (n_last, >, n_whole);
  test_debug_pop ();
}

/* One small 1D convolution (an affine input index). */
static FfmWorkload *
small_conv (void)
{
  return inputs_workload_from_text (
    "{\"ffm_workload\": 1, \"name\": \"conv\", \"ranks\": {\"K\": 8, \"C\": 4,"
    " \"P\": 12, \"R\": 3, \"H\": 14}, \"bits_per_value\": {\"all\": 8},"
    " \"einsums\": [\"O[k,P:p] = I[c,H:p+r] * F[k,c,r]\"]}");
}

/* Generates 3 chained matmuls on the simple architecture and a 1D
 * convolution on a deep one (unlimited fused loops, 2 threads,
 * FFM_DEBUG=check-terms), each without and with the debug flags @flags,
 * and checks that every group keeps its Pareto set;
 * with @same_leaves, also that the same tile vectors were evaluated. */
static void
assert_knob_keeps_pareto_sets (const char *flags, gboolean same_leaves)
{
  g_autoptr(FfmWorkload) mm = inputs_load_matmuls (3, 64, 48);
  g_autoptr(FfmArch) simple = inputs_load_arch ("simple.json");
  g_autoptr(FfmWorkload) conv = small_conv ();
  g_autoptr(FfmArch) deep = inputs_arch_from_text (deep_arch);
  FfmWorkload *workloads[] = { mm, conv };
  FfmArch *archs[] = { simple, deep };

  for (guint i = 0; i < G_N_ELEMENTS (workloads); i++)
    {
      FfmPmappingOptions options;
      g_autoptr(FfmPmappingSet) plain = NULL;
      g_autoptr(FfmPmappingSet) knob = NULL;

      ffm_pmapping_options_init (&options);
      options.n_threads = 2;
      options.max_fused_loops = -1;
      plain = generate (workloads[i], archs[i], &options);
      knob = generate_with_debug (workloads[i], archs[i], &options, flags);
      assert_pareto_sets_equal (plain, knob);
      if (same_leaves)
        g_assert_cmpuint (count_evaluated (plain), ==, count_evaluated (knob));
      g_test_message ("%s: %" G_GUINT64_FORMAT " evaluated with %s, %"
                      G_GUINT64_FORMAT " without", i == 0 ? "matmuls" : "conv",
                      count_evaluated (knob), flags, count_evaluated (plain));
    }
}

/* A table pruned in a sample first (FFM_DEBUG=prune-sample-rows: 8
 * rows here, so that small tables take that path) and left unpruned when
 * the sample drops nothing keeps every group's Pareto set: on matmuls and
 * on convolutions. */
static void
test_sampled_pruning (void)
{
  g_test_summary ("Pruning a table only when a sample of it shows that "
                  "pruning drops rows keeps every group's Pareto set");
  assert_knob_keeps_pareto_sets ("prune-sample-rows=8", FALSE);
}

/* Tables whose keys the radix sort orders (FFM_DEBUG=radix-min-rows:
 * 64 rows here, so that small tables take that path; with
 * FFM_DEBUG=check-terms each such sort checks its order) prune the same
 * rows as with the quicksort: the same leaves evaluated, the same groups. */
static void
test_radix_sorted_pruning (void)
{
  g_test_summary ("Pruning whose keys are sorted by radix keeps the same rows "
                  "as with the quicksort");
  assert_knob_keeps_pareto_sets ("radix-min-rows=64", TRUE);
}

/* The leaves of a template are evaluated unless a valid leaf of the same
 * diff matches or beats them in what the groups compare (energy, latency,
 * the reservations of memories not known untracked): every group keeps
 * its Pareto set, with fewer tile vectors evaluated than with every leaf
 * taken (FFM_DEBUG=every-leaf, for tests). */
static void
test_leaves_pruned (void)
{
  g_autoptr(FfmWorkload) conv = small_conv ();
  g_autoptr(FfmWorkload) mm = inputs_load_matmuls (3, 64, 48);
  g_autoptr(FfmArch) deep = inputs_arch_from_text (deep_arch);
  FfmWorkload *workloads[] = { conv, mm };

  g_test_summary ("Leaves that a valid leaf of the same diff dominates in what "
                  "the groups compare are not evaluated, and every group keeps "
                  "its Pareto set");
  for (guint i = 0; i < G_N_ELEMENTS (workloads); i++)
    for (int fused = 1; fused >= (i == 0 ? 1 : -1); fused -= 2)   /* one Einsum: 1 */
      {
        FfmPmappingOptions options;
        g_autoptr(FfmPmappingSet) pruned = NULL;
        g_autoptr(FfmPmappingSet) every = NULL;

        ffm_pmapping_options_init (&options);
        options.n_threads = 2;
        options.max_fused_loops = fused;
        pruned = generate (workloads[i], deep, &options);
        every = generate_with_debug (workloads[i], deep, &options,
                                   "every-leaf");
        assert_pareto_sets_equal (pruned, every);
        assert_pareto_sets_equal (every, pruned);
        g_test_message ("%s, max fused loops %d: %" G_GUINT64_FORMAT " evaluated, %"
                        G_GUINT64_FORMAT " with every leaf", i == 0 ? "conv" : "matmuls",
                        fused, count_evaluated (pruned), count_evaluated (every));
        g_assert_cmpuint (count_evaluated (pruned), <, count_evaluated (every));
      }
}

/* The cases of the tests that cut the tables into small chunks: a
 * convolution and three matmuls, on an architecture with a fanout and on
 * the simple one, at one and at any number of fused loops. */
typedef struct {
  FfmWorkload *w;
  FfmArch *a;
  int fused;
  const char *name;
} ChunkCase;

#define N_CHUNK_CASES 4

static void
chunk_cases (FfmWorkload *conv, FfmWorkload *mm, FfmArch *deep, FfmArch *simple,
             ChunkCase cases[N_CHUNK_CASES])
{
  const ChunkCase all[N_CHUNK_CASES] = {
    { conv, deep, 1, "conv, deep" },
    { mm, deep, 1, "matmuls, deep, 1 fused loop" },
    { mm, deep, -1, "matmuls, deep, unlimited fused loops" },
    { mm, simple, -1, "matmuls, simple, unlimited fused loops" },
  };

  memcpy (cases, all, sizeof all);
}

/* Complete rows that a leaf taken in an earlier chunk of the same template
 * dominates (same diff, every slot the groups compare) are not written:
 * with tables cut into small chunks, every group keeps the Pareto set it
 * has with each chunk pruning only its own rows
 * (FFM_DEBUG=leaves-per-chunk) and with every leaf evaluated, and
 * fewer leaves are evaluated than per chunk (else the store never
 * worked). */
static void
test_leaves_across_chunks (void)
{
  g_autoptr(FfmWorkload) conv = small_conv ();
  g_autoptr(FfmWorkload) mm = inputs_load_matmuls (3, 64, 48);
  g_autoptr(FfmArch) deep = inputs_arch_from_text (deep_arch);
  g_autoptr(FfmArch) simple = inputs_load_arch ("simple.json");
  ChunkCase cases[N_CHUNK_CASES];
  guint64 n_store = 0, n_per_chunk = 0;

  chunk_cases (conv, mm, deep, simple, cases);
  g_test_summary ("Leaves taken in earlier chunks prune the complete rows of later "
                  "ones, and every group keeps its Pareto set");
  test_debug_push ("chunk-rows=16");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      FfmPmappingOptions options;
      g_autoptr(FfmPmappingSet) store = NULL;
      g_autoptr(FfmPmappingSet) per_chunk = NULL;
      g_autoptr(FfmPmappingSet) every = NULL;

      ffm_pmapping_options_init (&options);
      options.n_threads = 2;
      options.max_fused_loops = cases[i].fused;
      store = generate (cases[i].w, cases[i].a, &options);
      per_chunk = generate_with_debug (cases[i].w, cases[i].a, &options,
                                     "leaves-per-chunk");
      every = generate_with_debug (cases[i].w, cases[i].a, &options,
                                 "every-leaf");
      assert_pareto_sets_equal (store, every);
      assert_pareto_sets_equal (every, store);
      assert_pareto_sets_equal (store, per_chunk);
      assert_pareto_sets_equal (per_chunk, store);
      g_test_message ("%s: %" G_GUINT64_FORMAT " evaluated, %" G_GUINT64_FORMAT
                      " with each chunk alone, %" G_GUINT64_FORMAT " with every leaf",
                      cases[i].name, count_evaluated (store), count_evaluated (per_chunk),
                      count_evaluated (every));
      n_store += count_evaluated (store);
      n_per_chunk += count_evaluated (per_chunk);
    }
  test_debug_pop ();
  g_assert_cmpuint (n_store, <, n_per_chunk);
}

/* Bucket bounds (ffm-pmapping-tiles-extend.c): at the last depth a group of a
 * bucket's chains (those with the same fused tiles) whose every child a
 * leaf of an earlier chunk beats is not visited. The children it skips are ones the store would have dropped one
 * by one, so the groups and the leaves evaluated stay the same; the check
 * mode (on in every test here) visits each cut bucket anyway and warns,
 * fatally, about any child the store does not dominate. Small chunks make
 * many of them; the convolution's affine input gives units of both signs
 * (the bound takes the largest factor under a negative unit). */
static void
test_bucket_bounds (void)
{
  g_autoptr(FfmWorkload) conv = small_conv ();
  g_autoptr(FfmWorkload) mm = inputs_load_matmuls (3, 64, 48);
  g_autoptr(FfmArch) deep = inputs_arch_from_text (deep_arch);
  g_autoptr(FfmArch) simple = inputs_load_arch ("simple.json");
  ChunkCase cases[N_CHUNK_CASES];
  guint64 n_cuts = 0;

  chunk_cases (conv, mm, deep, simple, cases);
  g_test_summary ("Groups of complete rows cut by their bounds hold only rows a "
                  "taken leaf dominates: the same groups and leaves without them");
  test_debug_push ("chunk-rows=16");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      FfmPmappingOptions options;
      g_autoptr(FfmPmappingSet) bounded = NULL;
      g_autoptr(FfmPmappingSet) unbounded = NULL;

      ffm_pmapping_options_init (&options);
      options.n_threads = 2;
      options.max_fused_loops = cases[i].fused;
      bounded = generate (cases[i].w, cases[i].a, &options);
      unbounded = generate_with_debug (cases[i].w, cases[i].a, &options,
                                     "no-bucket-bounds");
      assert_pareto_sets_equal (bounded, unbounded);
      assert_pareto_sets_equal (unbounded, bounded);
      g_assert_cmpuint (count_evaluated (bounded), ==, count_evaluated (unbounded));
      g_assert_cmpuint (ffm_pmapping_set_count_bucket_cuts (unbounded), ==, 0);
      g_test_message ("%s: %" G_GUINT64_FORMAT " groups of complete rows cut, %" G_GUINT64_FORMAT
                      " evaluated", cases[i].name,
                      ffm_pmapping_set_count_bucket_cuts (bounded), count_evaluated (bounded));
      n_cuts += ffm_pmapping_set_count_bucket_cuts (bounded);
    }
  test_debug_pop ();
  g_assert_cmpuint (n_cuts, >, 0);
}

/* The taken-leaf store (ffm-pmapping-tiles-taken.c) answers from each
 * diff's leaves laid out flat, sorted by slot and filtered by their float
 * values, and from the leaves listed since: its answers are those of its
 * plain lists (FFM_DEBUG=taken-store-lists), so the groups and the leaves
 * evaluated are the same with either, and the check mode (on here)
 * compares every answer with every leaf. With the flat values raised by a
 * float step (taken-layout-unsound, a test hook) it misses dominating
 * leaves of equal slots, which the check mode must see: else the layout
 * answered no question. */
static void
test_taken_store_layout (void)
{
  g_autoptr(FfmWorkload) conv = small_conv ();
  g_autoptr(FfmWorkload) mm = inputs_load_matmuls (3, 64, 48);
  g_autoptr(FfmArch) deep = inputs_arch_from_text (deep_arch);
  g_autoptr(FfmArch) simple = inputs_load_arch ("simple.json");
  ChunkCase cases[N_CHUNK_CASES];
  guint64 n_evaluated = 0;

  chunk_cases (conv, mm, deep, simple, cases);
  g_test_summary ("The taken-leaf store's flat layout answers as its lists do");
  if (g_test_subprocess ())
    {
      /* the check mode's warning ends this run */
      test_debug_push ("chunk-rows=64,taken-layout-unsound");
      for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
        {
          FfmPmappingOptions options;
          g_autoptr(FfmPmappingSet) unsound = NULL;
          ffm_pmapping_options_init (&options);
          options.max_fused_loops = cases[i].fused;
          unsound = generate (cases[i].w, cases[i].a, &options);
        }
      test_debug_pop ();
      return;
    }
  test_debug_push ("chunk-rows=64");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      FfmPmappingOptions options;
      g_autoptr(FfmPmappingSet) laid_out = NULL;
      g_autoptr(FfmPmappingSet) listed = NULL;

      ffm_pmapping_options_init (&options);
      options.n_threads = 2;
      options.max_fused_loops = cases[i].fused;
      laid_out = generate (cases[i].w, cases[i].a, &options);
      listed = generate_with_debug (cases[i].w, cases[i].a, &options, "taken-store-lists");
      assert_pareto_sets_equal (laid_out, listed);
      assert_pareto_sets_equal (listed, laid_out);
      g_assert_cmpuint (count_evaluated (laid_out), ==, count_evaluated (listed));
      g_test_message ("%s: %" G_GUINT64_FORMAT " evaluated either way", cases[i].name,
                      count_evaluated (laid_out));
      n_evaluated += count_evaluated (laid_out);
    }
  test_debug_pop ();
  g_assert_cmpuint (n_evaluated, >, 0);
  if (ffm_debug_has_test_hooks ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_failed ();
      g_test_trap_assert_stderr ("*taken-leaf store*every leaf says otherwise*");
    }
}

/* The search order of each template (greedy, the variable of most chains
 * last, or the pilots' choice between them) changes the work, never the
 * pmappings: every group keeps the same Pareto set under each. The forced
 * orders must differ somewhere, and the pilots, which on problems this
 * small would keep the greedy order (FFM_DEBUG=pilot-min-work lets
 * them choose), must choose each order somewhere, or the test would
 * compare a search with itself. */
static void
test_search_order (void)
{
  g_autoptr(FfmWorkload) conv = small_conv ();
  g_autoptr(FfmWorkload) mm = inputs_load_matmuls (3, 64, 48);
  g_autoptr(FfmArch) deep = inputs_arch_from_text (deep_arch);
  g_autofree char *usage_text = usage_arch_text (16, 1);
  g_autoptr(FfmArch) usage = inputs_arch_from_text (usage_text);
  struct { FfmWorkload *w; FfmArch *a; int fused; const char *name; } cases[] = {
    { conv, deep, 1, "conv, deep" },
    { mm, deep, 1, "matmuls, deep, 1 fused loop" },
    { mm, deep, -1, "matmuls, deep, unlimited fused loops" },
    { mm, usage, 1, "matmuls, minimum usage" },
  };
  const char *orders[] = { "greedy", "chains-last", NULL, NULL };
  const char *min_work[] = { NULL, NULL, NULL, "1" };
  guint64 partial[G_N_ELEMENTS (orders)] = { 0 };
  guint chosen_last = 0, chosen_greedy = 0;

  g_test_summary ("Every search order gives every group the same Pareto set");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      FfmPmappingSet *sets[G_N_ELEMENTS (orders)];
      FfmPmappingOptions options;

      ffm_pmapping_options_init (&options);
      options.n_threads = 2;
      options.max_fused_loops = cases[i].fused;
      for (guint o = 0; o < G_N_ELEMENTS (orders); o++)
        {
          guint64 n = 0;
          guint n_templates = 0, n_last;
          g_autofree char *flags =
            g_strdup_printf ("%s%s%s%s", orders[o] != NULL ? "order=" : "",
                             orders[o] != NULL ? orders[o] : "",
                             min_work[o] != NULL ? ",pilot-min-work=" : "",
                             min_work[o] != NULL ? min_work[o] : "");
          sets[o] = generate_with_debug (cases[i].w, cases[i].a, &options, flags);
          for (guint e = 0; e < ffm_pmapping_set_get_n_einsums (sets[o]); e++)
            {
              const FfmPmappingStats *st =
                ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (sets[o], e));
              n += st->n_partial;
              n_templates += st->n_templates;
            }
          partial[o] += n;
          n_last = ffm_pmapping_set_count_chains_last (sets[o]);
          g_test_message ("%s, order %s%s: %" G_GUINT64_FORMAT " partial vectors, "
                          "%u of %u templates chosen chains last", cases[i].name,
                          orders[o] != NULL ? orders[o] : "chosen",
                          min_work[o] != NULL ? " on any work" : "", n, n_last,
                          n_templates);
          if (orders[o] != NULL)
            g_assert_cmpuint (n_last, ==, 0);
          if (min_work[o] != NULL)
            {
              chosen_last += n_last;
              chosen_greedy += n_templates - n_last;
            }
        }
      for (guint o = 1; o < G_N_ELEMENTS (orders); o++)
        {
          assert_pareto_sets_equal (sets[0], sets[o]);
          assert_pareto_sets_equal (sets[o], sets[0]);
        }
      for (guint o = 0; o < G_N_ELEMENTS (orders); o++)
        ffm_pmapping_set_free (sets[o]);
    }
  g_assert_cmpuint (partial[0], !=, partial[1]);
  g_assert_cmpuint (chosen_last, >, 0);
  g_assert_cmpuint (chosen_greedy, >, 0);
}

/* Memories known to be untracked before the search (they hold the whole
 * workload, or every template keeps their tiles below its fused loops)
 * leave the groups' columns from the start instead of at the end
 * (FFM_DEBUG=untracked-late, for tests, drops them only at the end):
 * the same memories tracked, the same groups with the same columns, and
 * every group the same Pareto set of values. The cases mix memories
 * dropped early, dropped late and tracked: a memory taken for untracked
 * that the join must track changes the tracked list and fails here. */
static void
test_untracked_early (void)
{
  g_autoptr(FfmWorkload) mm = inputs_load_matmuls (3, 64, 48);
  g_autoptr(FfmWorkload) mm2 = inputs_load_matmuls (2, 32, 32);
  /* WeightBuffer backs nothing but may hold weights above the fused loop
   * (tracked); GlobalBuffer holds only the intermediate, in both Einsums
   * at the fused loop's depth (tracked: it backs the shared tensor). */
  g_autoptr(FfmArch) fused = inputs_arch_from_text (
    "{ \"ffm_architecture\": 1, \"name\": \"fused\", \"levels\": ["
    "{ \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 8, \"write_energy\": 8,"
    "  \"keep\": \"~intermediates\", \"may_keep\": \"all\" },"
    "{ \"memory\": \"WeightBuffer\", \"size\": 16384, \"read_energy\": 2, \"write_energy\": 2,"
    "  \"keep\": \"nothing\", \"may_keep\": \"weight\" },"
    "{ \"memory\": \"GlobalBuffer\", \"size\": 4096, \"read_energy\": 1, \"write_energy\": 1,"
    "  \"keep\": \"~MainMemory\", \"may_keep\": \"intermediates\" },"
    "{ \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1 } ] }");
  /* Persistent weights backed in WeightBuffer (tracked: they live for the
   * whole workload), which cannot hold the whole workload. */
  g_autoptr(FfmWorkload) pmm = inputs_workload_from_text (
    "{\"ffm_workload\": 1, \"name\": \"pmm\", \"ranks\": {\"M\": 32, \"N0\": 32,"
    " \"N1\": 32, \"N2\": 32}, \"bits_per_value\": {\"all\": 8}, \"persistent\": \"weight\","
    " \"einsums\": [{\"name\": \"A\", \"einsum\": \"T1[m,n1] = T0[m,n0] * W0[n0,n1]\","
    " \"roles\": {\"weight\": \"W0\"}}, {\"name\": \"B\","
    " \"einsum\": \"T2[m,n2] = T1[m,n1] * W1[n1,n2]\", \"roles\": {\"weight\": \"W1\"}}]}");
  g_autoptr(FfmArch) persist = inputs_arch_from_text (
    "{ \"ffm_architecture\": 1, \"name\": \"persist\", \"levels\": ["
    "{ \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 8, \"write_energy\": 8,"
    "  \"keep\": \"~intermediates - weight\", \"may_keep\": \"all - weight\" },"
    "{ \"memory\": \"WeightBuffer\", \"size\": 16384, \"read_energy\": 2, \"write_energy\": 2,"
    "  \"keep\": \"weight\", \"may_keep\": \"weight\" },"
    "{ \"memory\": \"GlobalBuffer\", \"size\": 4096, \"read_energy\": 1, \"write_energy\": 1,"
    "  \"keep\": \"~MainMemory - weight\", \"may_keep\": \"intermediates\" },"
    "{ \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1 } ] }");
  g_autoptr(FfmArch) simple = inputs_load_arch ("simple.json");
  g_autoptr(FfmArch) deep = inputs_arch_from_text (deep_arch);
  g_autoptr(FfmWorkload) conv = inputs_workload_from_text (
    "{\"ffm_workload\": 1, \"name\": \"convs\", \"ranks\": {\"K\": 8, \"C\": 4,"
    " \"P\": 12, \"R\": 3, \"H\": 14}, \"bits_per_value\": {\"all\": 8},"
    " \"einsums\": [\"T[k,P:p] = I[c,H:p+r] * F[k,c,r]\","
    "               \"O[k,P:p] = T[K:c,P:p] * G[k,c]\"]}");
  struct { FfmWorkload *w; FfmArch *a; int max_fused; } cases[] = {
    { mm, simple, 1 }, { mm, deep, 1 }, { conv, deep, -1 }, { mm2, fused, 1 },
    { pmm, persist, 1 },
  };
  guint early_total = 0;

  g_test_summary ("Memories known to be untracked before the search leave the "
                  "groups from the start: the same tracked memories, columns and "
                  "Pareto sets as dropping them at the end");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      FfmPmappingOptions options;
      g_autoptr(FfmPmappingSet) early = NULL;
      g_autoptr(FfmPmappingSet) late = NULL;
      g_autoptr(FfmPmappingSet) all = NULL;
      const guint *tracked_early, *tracked_late;
      guint n_early, n_late;

      ffm_pmapping_options_init (&options);
      options.n_threads = 2;
      options.max_fused_loops = cases[i].max_fused;
      early = generate (cases[i].w, cases[i].a, &options);
      late = generate_with_debug (cases[i].w, cases[i].a, &options,
                                "untracked-late");
      g_assert_cmpuint (ffm_pmapping_set_count_untracked_early (late), ==, 0);
      early_total += ffm_pmapping_set_count_untracked_early (early);
      g_test_message ("case %u: %u memories untracked before the search", i,
                      ffm_pmapping_set_count_untracked_early (early));

      tracked_early = ffm_pmapping_set_get_tracked_levels (early, &n_early);
      tracked_late = ffm_pmapping_set_get_tracked_levels (late, &n_late);
      g_assert_cmpmem (tracked_early, sizeof (guint) * n_early,
                       tracked_late, sizeof (guint) * n_late);
      for (guint e = 0; e < ffm_pmapping_set_get_n_einsums (early); e++)
        {
          const FfmEinsumPmappings *pe = ffm_pmapping_set_get_einsum (early, e);
          const FfmEinsumPmappings *pl = ffm_pmapping_set_get_einsum (late, e);
          g_assert_cmpuint (ffm_einsum_pmappings_get_n_groups (pe), ==,
                            ffm_einsum_pmappings_get_n_groups (pl));
          for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pe); k++)
            {
              const FfmPmappingGroup *ge = ffm_einsum_pmappings_get_group (pe, k);
              const FfmPmappingGroup *gl = ffm_einsum_pmappings_get_group (pl, k);
              g_assert_true (ffm_compatibility_equal (&ge->compat, &gl->compat));
              g_assert_cmpmem (ge->columns, sizeof (FfmPmappingColumn) * ge->n_columns,
                               gl->columns, sizeof (FfmPmappingColumn) * gl->n_columns);
            }
        }
      assert_pareto_sets_equal (early, late);

      /* Tracking every memory (a diagnostic) drops none early. */
      if (cases[i].w == conv)
        {
          all = generate_with_debug (cases[i].w, cases[i].a, &options,
                                     "track-all-memories");
          g_assert_cmpuint (ffm_pmapping_set_count_untracked_early (all), ==, 0);
        }
    }
  /* Not vacuous: some case drops memories early. */
  g_assert_cmpuint (early_total, >, 0);
}

/* ---- Memory budget and limits (FfmPmappingOptions.max_memory,
 * max_template_seconds, max_templates) ---- */

/* A budget that holds the search changes nothing; one that holds the
 * templates but not the tile search's tables fails naming the Einsum, the
 * template and the budget; one that cannot hold the templates says so. */
static void
test_memory_budget (void)
{
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 64, 64);
  g_autoptr(FfmArch) a = inputs_load_arch ("simple.json");
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) free_run = NULL;
  g_autoptr(FfmPmappingSet) budgeted = NULL;
  guint n_templates;

  g_test_summary ("The memory budget stops the generation with a clear error, "
                  "never an abort, and a sufficient one changes nothing");
  ffm_pmapping_options_init (&options);
  options.reuse_equal_einsums = FALSE;
  options.n_threads = 1;
  free_run = generate (w, a, &options);
  n_templates = count_templates (free_run);
  g_assert_cmpuint (n_templates, >, 1);
  options.max_memory = G_GUINT64_CONSTANT (1) << 30;
  budgeted = generate (w, a, &options);
  assert_sets_equal (free_run, budgeted, TRUE);

  for (guint threads = 1; threads <= 2; threads++)
    {
      g_autoptr(FfmPmappingSet) set = NULL;
      g_autoptr(GError) error = NULL;

      options.n_threads = threads;
      /* Room for the templates and a few KiB: the tables do not fit. */
      options.max_memory = (guint64) n_templates * 16 * 1024 + 4096;
      set = ffm_pmappings_generate (w, a, &options, &error);
      g_assert_null (set);
      g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY);
      g_assert_true (g_regex_match_simple ("^Einsum Matmul[01], template [0-9]+ of [0-9]+: "
                                           "the tile search needs more memory than "
                                           "the budget of .* allows", error->message,
                                           0, 0));
      g_clear_error (&error);

      /* Not even the templates. */
      options.max_memory = 16 * 1024;
      set = ffm_pmappings_generate (w, a, &options, &error);
      g_assert_null (set);
      g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY);
      g_assert_true (g_regex_match_simple ("^Einsum Matmul0: its templates need more "
                                           "memory than the budget of 16.0 KiB allows \\(1 "
                                           "built so far", error->message, 0, 0));
    }
  g_assert_cmpuint (ffm_pmapping_default_max_memory (), >, 0);
}

/* --max-templates keeps the first templates of each Einsum and counts the
 * others as cut; --max-template-seconds stops templates and counts them;
 * both say so in the statistics. */
static void
test_template_limits (void)
{
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (2, 64, 64);
  g_autoptr(FfmArch) a = inputs_load_arch ("simple.json");
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) all = NULL;
  g_autoptr(FfmPmappingSet) capped = NULL;
  g_autoptr(FfmPmappingSet) timed = NULL;
  g_autoptr(GError) error = NULL;

  g_test_summary ("Template caps and time limits cut the search and say how much");
  ffm_pmapping_options_init (&options);
  options.reuse_equal_einsums = FALSE;
  all = generate (w, a, &options);
  options.max_templates = 2;
  capped = generate (w, a, &options);
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (all); i++)
    {
      const FfmPmappingStats *sa = ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (all, i));
      const FfmPmappingStats *sc = ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (capped, i));
      g_assert_cmpuint (sa->n_templates_cut, ==, 0);
      g_assert_cmpuint (sa->n_templates, >, 2);
      g_assert_cmpuint (sc->n_templates, ==, 2);
      g_assert_cmpuint (sc->n_templates + sc->n_templates_cut, ==, sa->n_templates);
    }

  /* A limit no template meets: everything is cut, and the error says so. */
  options.max_templates = 0;
  options.max_template_seconds = 1e-9;
  timed = ffm_pmappings_generate (w, a, &options, &error);
  g_assert_null (timed);
  g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE);
  g_assert_nonnull (strstr (error->message, "templates cut by --max-template-seconds"));
  g_clear_error (&error);

  /* A generous one cuts nothing. */
  options.max_template_seconds = 3600;
  timed = generate (w, a, &options);
  assert_sets_equal (all, timed, TRUE);
}

/* ---- Joinable parts ---- */

/* g_ptr_array_sort() passes pointers to the elements. */
static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* A shared tensor's part of @c (its index @t among the compatibility's
 * tensors) as text, written here from the compatibility's definition
 * (ffm-compatibility.h), not with the generator's hashing: backing memory,
 * persistence, and the sorted loops above the backing node, each with the
 * rank of the tensor it walks. */
static char *
part_text (const FfmWorkload *w, const FfmCompatibility *c, guint t)
{
  const FfmCompatTensor *ct = &c->tensors[t];
  const FfmEinsum *e = ffm_workload_get_einsum (w, c->einsum);
  g_autoptr(GPtrArray) loops = g_ptr_array_new_with_free_func (g_free);
  GString *s = g_string_new (NULL);

  for (guint k = 0; k < ct->n_loops; k++)
    {
      const FfmCompatLoop *l = &c->loops[k];
      g_ptr_array_add (loops, g_strdup_printf (
        "r%d:%" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT ":%d/%d/%d",
        ffm_join_plain_rank (w, e, ct->access, l->rank_var), l->count, l->tile,
        l->spatial ? 1 : 0, l->spatial ? l->fanout_level : -1,
        l->spatial ? l->fanout_dim : -1));
    }
  g_ptr_array_sort (loops, compare_strings);
  g_string_append_printf (s, "L%u P%d", ct->backing_level, ct->persistent ? 1 : 0);
  for (guint k = 0; k < loops->len; k++)
    g_string_append_printf (s, " %s", (const char *) g_ptr_array_index (loops, k));
  return g_string_free (s, FALSE);
}

/* The groups of @set (per Einsum of @set, per group) that the greatest
 * fixed point keeps: a group stays while each of its shared tensors' part
 * is that of some staying group of every other Einsum touching the
 * tensor. Starting from every group and dropping only what must go gives
 * the greatest such set (any smaller fixed point would drop groups a join
 * could use). */
static GPtrArray *
greatest_joinable (const FfmWorkload *w, const FfmPmappingSet *set)
{
  guint n = ffm_pmapping_set_get_n_einsums (set);
  GPtrArray *alive = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  gboolean changed = TRUE;

  /* texts[i][k * FFM_MAX_EINSUM_TENSORS + t]: group k's part of tensor t */
  for (guint i = 0; i < n; i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      guint ng = ffm_einsum_pmappings_get_n_groups (pm);
      gboolean *live = g_new (gboolean, MAX (ng, 1));
      GPtrArray *tx = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 0; k < ng; k++)
        {
          const FfmCompatibility *c = &ffm_einsum_pmappings_get_group (pm, k)->compat;
          live[k] = TRUE;
          for (guint t = 0; t < FFM_MAX_EINSUM_TENSORS; t++)
            g_ptr_array_add (tx, t < c->n_tensors ? part_text (w, c, t) : NULL);
        }
      g_ptr_array_add (alive, live);
      g_ptr_array_add (texts, tx);
    }
  while (changed)
    {
      changed = FALSE;
      for (guint i = 0; i < n; i++)
        {
          const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
          gboolean *live = g_ptr_array_index (alive, i);
          for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
            {
              const FfmCompatibility *c = &ffm_einsum_pmappings_get_group (pm, k)->compat;
              for (guint t = 0; t < c->n_tensors && live[k]; t++)
                {
                  const GPtrArray *mine = g_ptr_array_index (texts, i);
                  const char *part = g_ptr_array_index (mine, k * FFM_MAX_EINSUM_TENSORS + t);
                  for (guint j = 0; j < n && live[k]; j++)
                    {
                      const FfmEinsumPmappings *other = ffm_pmapping_set_get_einsum (set, j);
                      const gboolean *olive = g_ptr_array_index (alive, j);
                      const GPtrArray *theirs = g_ptr_array_index (texts, j);
                      gboolean found = FALSE;
                      if (j == i || ffm_einsum_find_access (ffm_workload_get_einsum (w, ffm_einsum_pmappings_get_einsum (other)),
                                                            c->tensors[t].tensor) < 0)
                        continue;
                      for (guint q = 0; q < ffm_einsum_pmappings_get_n_groups (other) && !found; q++)
                        {
                          const FfmCompatibility *oc = &ffm_einsum_pmappings_get_group (other, q)->compat;
                          for (guint u = 0; u < oc->n_tensors && !found; u++)
                            found = olive[q] && oc->tensors[u].tensor == c->tensors[t].tensor
                              && strcmp (part, g_ptr_array_index (theirs, q * FFM_MAX_EINSUM_TENSORS + u)) == 0;
                        }
                      if (!found)
                        {
                          live[k] = FALSE;
                          changed = TRUE;
                        }
                    }
                }
            }
        }
    }
  return alive;
}

static guint
count_groups (const FfmPmappingSet *set)
{
  guint n = 0;

  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    n += ffm_einsum_pmappings_get_n_groups (ffm_pmapping_set_get_einsum (set, i));
  return n;
}

static const FfmPmappingGroup *
find_group_by_compat (const FfmEinsumPmappings *pm, const FfmCompatibility *c)
{
  for (guint j = 0; j < ffm_einsum_pmappings_get_n_groups (pm); j++)
    if (ffm_compatibility_equal (c, &ffm_einsum_pmappings_get_group (pm, j)->compat))
      return ffm_einsum_pmappings_get_group (pm, j);
  return NULL;
}

/* @kept (drop_unjoinable) against @all (without): every group of @kept
 * is @all's with the same Pareto rows, and @kept has exactly the groups of
 * @all that greatest_joinable() keeps (no group is left out that a join
 * could use, none kept that none could). Returns the groups @all has
 * more. */
static guint
assert_joinable_only (const FfmWorkload *w, const FfmPmappingSet *kept,
                      const FfmPmappingSet *all)
{
  g_autoptr(GPtrArray) alive = greatest_joinable (w, all);
  guint dropped = 0;

  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (all); i++)
    {
      const FfmEinsumPmappings *pa = ffm_pmapping_set_get_einsum (all, i);
      const FfmEinsumPmappings *pk = ffm_pmapping_set_get_einsum (kept, i);
      const gboolean *live = g_ptr_array_index (alive, i);
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pk); k++)
        {
          const FfmPmappingGroup *gk = ffm_einsum_pmappings_get_group (pk, k);
          const FfmPmappingGroup *ga = find_group_by_compat (pa, &gk->compat);
          g_assert_nonnull (ga);
          g_assert_cmpuint (gk->n_rows, ==, ga->n_rows);
          g_assert_cmpuint (gk->n_columns, ==, ga->n_columns);
          for (guint r = 0; r < gk->n_rows; r++)
            {
              gboolean found = FALSE;
              for (guint q = 0; q < ga->n_rows && !found; q++)
                found = memcmp (gk->values + (gsize) r * gk->n_columns,
                                ga->values + (gsize) q * ga->n_columns,
                                sizeof (double) * gk->n_columns) == 0;
              g_assert_true (found);
            }
        }
      for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pa); k++)
        {
          const FfmPmappingGroup *ga = ffm_einsum_pmappings_get_group (pa, k);
          gboolean in_kept = find_group_by_compat (pk, &ga->compat) != NULL;
          g_assert_cmpint (in_kept, ==, live[k]);
          dropped += !in_kept;
        }
    }
  return dropped;
}

static void
test_joinable_only (void)
{
  static const char *attention =
    "{\"ffm_workload\": 1, \"name\": \"attention\", "
    "\"ranks\": {\"B\": 2, \"H\": 2, \"M\": 4, \"P\": 4, \"E\": 2, \"F\": 2}, "
    "\"bits_per_value\": {\"all\": 8}, \"einsums\": ["
    "\"QK[b,h,m,p] = Q[b,h,m,e] * K[b,h,p,e]\", "
    "\"S[b,h,m,p] = QK[b,h,m,p]\", "
    "\"AV[b,h,m,f] = S[b,h,m,p] * V[b,h,p,f]\", "
    "\"Z[b,h,m,f] = AV[b,h,m,f] * AV[b,h,m,f]\"]}";
  /* As GPT's: V written by a projection, read by AV, which (like QK's
   * copy S) has no tensor of its own and goes first. */
  static const char *gpt =
    "{\"ffm_workload\": 1, \"name\": \"gpt\", "
    "\"ranks\": {\"B\": 2, \"M\": 4, \"P\": 4, \"D\": 2, \"E\": 2, \"F\": 4, \"G\": 2}, "
    "\"bits_per_value\": {\"all\": 8}, \"einsums\": ["
    "\"V[b,p,f] = I[b,p,d] * WV[d,f]\", "
    "\"QK[b,m,p] = Q[b,m,e] * K[b,p,e]\", "
    "\"S[b,m,p] = QK[b,m,p]\", "
    "\"AV[b,m,f] = S[b,m,p] * V[b,p,f]\", "
    "\"Z[b,m,g] = AV[b,m,f] * WZ[f,g]\"]}";
  const char *workloads[] = { attention, gpt };
  g_autoptr(FfmArch) deep = inputs_arch_from_text (deep_arch);
  g_autoptr(FfmArch) simple = inputs_load_arch ("simple.json");
  FfmArch *arches[] = { deep, simple };
  const int fused[] = { 1, 2, -1 };
  guint64 vectors = 0;
  guint dropped_groups = 0, dropped_by_set = 0;

  g_test_summary ("drop_unjoinable leaves out exactly the pmappings whose part "
                  "of a shared tensor no other Einsum touching it has (at the "
                  "fixed point), and keeps the others' Pareto rows; threads do "
                  "not change what it keeps");
  for (guint wi = 0; wi < G_N_ELEMENTS (workloads); wi++)
    for (guint ai = 0; ai < G_N_ELEMENTS (arches); ai++)
      for (guint fi = 0; fi < G_N_ELEMENTS (fused); fi++)
        {
          g_autoptr(FfmWorkload) w = inputs_workload_from_text (workloads[wi]);
          FfmPmappingOptions options;
          g_autoptr(FfmPmappingSet) all = NULL, kept = NULL, kept1 = NULL;
          guint64 v = 0;
          guint d;

          ffm_pmapping_options_init (&options);
          options.max_fused_loops = fused[fi];
          options.n_threads = 2;
          all = generate (w, arches[ai], &options);
          options.drop_unjoinable = TRUE;
          kept = generate (w, arches[ai], &options);
          options.n_threads = 1;
          kept1 = generate (w, arches[ai], &options);
          assert_pareto_sets_equal (kept, kept1);
          assert_pareto_sets_equal (kept1, kept);
          d = assert_joinable_only (w, kept, all);
          dropped_by_set += ffm_pmapping_set_get_n_unjoinable (kept, &v);
          g_test_message ("%s on %s, %d fused loops: %u groups of %u left out, "
                          "%" G_GUINT64_FORMAT " tile vectors skipped",
                          ffm_workload_get_name (w), ffm_arch_get_name (arches[ai]),
                          fused[fi], d, count_groups (all), v);
          dropped_groups += d;
          vectors += v;
        }
  /* Random chains, DAGs and attention blocks (those of the optimality
   * test of more fused loops), at 1, 2 and any number of fused loops. */
  for (guint64 seed = 200000; seed < 200060; seed++)
    {
      g_autoptr(FfmWorkload) w = NULL;
      g_autoptr(FfmArch) a = NULL;
      FfmPmappingOptions options;
      g_autoptr(FfmPmappingSet) all = NULL, kept = NULL;
      g_autoptr(GError) error = NULL;
      guint64 v = 0;

      random_problem_make_fused (seed, &w, &a);
      ffm_pmapping_options_init (&options);
      options.max_fused_loops = fused[seed % G_N_ELEMENTS (fused)];
      options.n_threads = 2;
      all = ffm_pmappings_generate (w, a, &options, &error);
      if (all == NULL)
        {
          /* infeasible: then with the option too */
          g_clear_error (&error);
          options.drop_unjoinable = TRUE;
          kept = ffm_pmappings_generate (w, a, &options, &error);
          g_assert_null (kept);
          g_assert_nonnull (error);
          continue;
        }
      options.drop_unjoinable = TRUE;
      kept = ffm_pmappings_generate (w, a, &options, &error);
      if (kept == NULL)
        {
          /* Only when no group of some Einsum could be joined: then the
           * fixed point of the full set is empty for it. */
          g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE);
          continue;
        }
      dropped_groups += assert_joinable_only (w, kept, all);
      dropped_by_set += ffm_pmapping_set_get_n_unjoinable (kept, &v);
      vectors += v;
    }
  g_test_message ("in all: %u groups left out, %u of them by the finished sets, "
                  "%" G_GUINT64_FORMAT " tile vectors skipped", dropped_groups,
                  dropped_by_set, vectors);
  /* Not a comparison of equal sets: the generation skipped vectors, and
   * the finished sets lost groups. */
  g_assert_cmpuint (vectors, >, 0);
  g_assert_cmpuint (dropped_groups, >, 0);
  g_assert_cmpuint (dropped_by_set, >, 0);
}

/* The bytes of the rows of @set's groups, as the budget counts them:
 * values, references and the rows' tiles. */
static guint64
group_row_bytes (const FfmPmappingSet *set)
{
  guint64 bytes = 0;

  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      for (guint j = 0; j < ffm_einsum_pmappings_get_n_groups (pm); j++)
        {
          const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, j);
          bytes += (guint64) g->n_rows * (g->n_columns * sizeof (double)
                                          + sizeof (FfmPmappingRef));
          for (guint r = 0; r < g->n_rows; r++)
            bytes += sizeof (guint64) * ffm_pmapping_model_get_n_loops (
              ffm_einsum_pmappings_get_model (pm, g->refs[r].template_id));
        }
    }
  return bytes;
}

static void
test_joinable_only_budget (void)
{
  /* Every Einsum has a weight of its own: one wave, no lists, so both
   * runs generate the same; only the finished set's pass drops groups:
   * those of Matmul1 whose tiles of T1 in the global buffer are not
   * Matmul0's (constrained to two rows). Matmul2 is a copy of Matmul1's
   * generation (the same shape and kinds of tensors, unconstrained). */
  g_autoptr(FfmWorkload) w = inputs_load_matmuls (4, 16, 16);
  g_autoptr(FfmArch) a = inputs_arch_from_text (deep_arch);
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmConstraints) c = ffm_constraints_load_from_data (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"tile\": {\"m\": 2}, "
    "\"level\": \"GlobalBuffer\", \"einsums\": [\"Matmul0\"]}]}", "rows.json", &error);
  FfmPmappingOptions options;
  g_autoptr(FfmPmappingSet) all = NULL, kept = NULL;
  guint64 vectors = 1;
  guint dropped;

  g_assert_no_error (error);

  g_test_summary ("the groups the finished set drops give their bytes back to "
                  "the memory budget; an Einsum's copy of another's pmappings "
                  "is charged as the original");
  ffm_pmapping_options_init (&options);
  options.n_threads = 2;
  options.constraints = c;
  all = generate (w, a, &options);
  options.drop_unjoinable = TRUE;
  kept = generate (w, a, &options);
  dropped = ffm_pmapping_set_get_n_unjoinable (kept, &vectors);
  g_test_message ("%u groups of %u dropped; %" G_GUINT64_FORMAT " bytes held "
                  "instead of %" G_GUINT64_FORMAT, dropped, count_groups (all),
                  ffm_pmapping_set_get_memory_held (kept),
                  ffm_pmapping_set_get_memory_held (all));
  g_assert_cmpuint (vectors, ==, 0);
  g_assert_cmpuint (dropped, >, 0);
  g_assert_cmpuint (assert_joinable_only (w, kept, all), ==, dropped);
  g_assert_cmpuint (ffm_pmapping_set_get_memory_held (all)
                    - ffm_pmapping_set_get_memory_held (kept), ==,
                    group_row_bytes (all) - group_row_bytes (kept));
  /* Matmul2's copy is charged as its own generation would be, and the
   * finished set's pass thins it out by its own parts, not Matmul1's. */
  {
    g_autoptr(FfmPmappingSet) fresh = NULL;
    const FfmPmappingStats *st;
    options.reuse_equal_einsums = FALSE;
    fresh = generate (w, a, &options);
    g_assert_cmpint (ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (kept, 2))->reused_from,
                     ==, 1);
    st = ffm_einsum_pmappings_get_stats (ffm_pmapping_set_get_einsum (fresh, 2));
    g_assert_cmpuint (st->reused_from, ==, -1);
    assert_pareto_sets_equal (fresh, kept);
    assert_pareto_sets_equal (kept, fresh);
    g_assert_cmpuint (ffm_pmapping_set_get_memory_held (fresh), ==,
                      ffm_pmapping_set_get_memory_held (kept));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* The generator's pruning terms must equal the model at every leaf,
   * and its fast paths (the taken-leaf store, the capacity bound per
   * chain) their slow witnesses (a difference is a g_warning, fatal
   * here): on for every test, none turns it off (one that did left the
   * tests registered after it unchecked). Builds without the test hooks
   * have no self-checks to turn on. */
  if (ffm_debug_has_test_hooks ())
    test_debug_push ("check-terms");
  g_test_add_func ("/pmapping/pareto", test_pareto);
  g_test_add_func ("/pmapping/pareto-lexicographic", test_pareto_lexicographic);
  g_test_add_func ("/pmapping/pareto-front", test_pareto_front);
  g_test_add_func ("/pmapping/pareto-many", test_pareto_many);
  g_test_add_func ("/pmapping/remainders/partial-pruning", test_remainder_partial_pruning);
  g_test_add_func ("/pmapping/remainders/fill-fanout", test_remainder_fill_fanout);
  g_test_add_func ("/pmapping/affine/partial-pruning", test_affine_partial_pruning);
  g_test_add_func ("/pmapping/simple-matmul", test_simple_matmul);
  g_test_add_func ("/pmapping/threads", test_threads);
  g_test_add_func ("/pmapping/threads-seeds", test_threads_seeds);
  g_test_add_func ("/pmapping/cancel", test_cancel);
  g_test_add_func ("/pmapping/cancel-within-template", test_cancel_within_template);
  g_test_add_func ("/pmapping/memory-budget", test_memory_budget);
  g_test_add_func ("/pmapping/chunked-tables", test_chunked_tables);
  g_test_add_func ("/pmapping/sampled-pruning", test_sampled_pruning);
  g_test_add_func ("/pmapping/radix-sorted-pruning", test_radix_sorted_pruning);
  g_test_add_func ("/pmapping/untracked-early", test_untracked_early);
  g_test_add_func ("/pmapping/leaves-pruned", test_leaves_pruned);
  g_test_add_func ("/pmapping/search-order", test_search_order);
  g_test_add_func ("/pmapping/leaves-across-chunks", test_leaves_across_chunks);
  g_test_add_func ("/pmapping/bucket-bounds", test_bucket_bounds);
  g_test_add_func ("/pmapping/taken-store-layout", test_taken_store_layout);
  g_test_add_func ("/pmapping/template-limits", test_template_limits);
  g_test_add_func ("/pmapping/reuse", test_reuse);
  g_test_add_func ("/pmapping/joinable-only", test_joinable_only);
  g_test_add_func ("/pmapping/choices-bounded", test_choices_bounded);
  g_test_add_func ("/pmapping/incumbent-bounds", test_incumbent_bounds);
  g_test_add_func ("/pmapping/group-bounds", test_group_bounds);
  g_test_add_func ("/pmapping/einsum-front", test_einsum_front);
  g_test_add_func ("/pmapping/threads-einsum-front", test_threads_einsum_front);
  g_test_add_func ("/pmapping/incumbent-chains", test_incumbent_chains);
  g_test_add_func ("/pmapping/symmetric-dims", test_symmetric_dims);
  g_test_add_func ("/pmapping/joinable-only/budget", test_joinable_only_budget);
  g_test_add_func ("/pmapping/tracked-columns", test_tracked_and_columns);
  g_test_add_func ("/pmapping/rebuild", test_rebuild);
  g_test_add_data_func ("/pmapping/partial-pruning/tall", GINT_TO_POINTER (0),
                        test_partial_pruning);
  g_test_add_data_func ("/pmapping/partial-pruning/wide", GINT_TO_POINTER (1),
                        test_partial_pruning);
  g_test_add_func ("/pmapping/does-not-fit", test_does_not_fit);
  g_test_add_func ("/pmapping/unserved", test_unserved);
  g_test_add_func ("/pmapping/unfused", test_unfused);
  g_test_add_func ("/pmapping/min-usage/size-one", test_min_usage_size_one);
  g_test_add_func ("/pmapping/min-usage/try-best", test_min_usage_try_best);
  g_test_add_func ("/pmapping/progress", test_progress);
  g_test_add_data_func ("/pmapping/brute-force/two-memories", GINT_TO_POINTER (0),
                        test_brute_force_random);
  g_test_add_data_func ("/pmapping/brute-force/fanout", GINT_TO_POINTER (1),
                        test_brute_force_random);
  g_test_add_data_func ("/pmapping/brute-force/two-buffers", GINT_TO_POINTER (4),
                        test_brute_force_random);
  g_test_add_data_func ("/pmapping/brute-force-remainders/two-memories",
                        GINT_TO_POINTER (0), test_brute_force_remainders);
  g_test_add_data_func ("/pmapping/brute-force-remainders/fanout",
                        GINT_TO_POINTER (1), test_brute_force_remainders);
  g_test_add_data_func ("/pmapping/brute-force-remainders/matmuls",
                        GINT_TO_POINTER (2), test_brute_force_remainders);
  g_test_add_data_func ("/pmapping/brute-force/matmuls", GINT_TO_POINTER (2),
                        test_brute_force_random);
  g_test_add_data_func ("/pmapping/brute-force/per-action-energies",
                        GINT_TO_POINTER (3), test_brute_force_random);
  g_test_add_data_func ("/pmapping/brute-force/constrained/two-memories",
                        GINT_TO_POINTER (0), test_brute_force_constrained);
  g_test_add_data_func ("/pmapping/brute-force/constrained/fanout",
                        GINT_TO_POINTER (1), test_brute_force_constrained);
  g_test_add_data_func ("/pmapping/brute-force/constrained/matmuls",
                        GINT_TO_POINTER (2), test_brute_force_constrained);
  return g_test_run ();
}
