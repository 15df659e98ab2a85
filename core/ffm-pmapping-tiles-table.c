/* ffm-pmapping-tiles-table.c: the tables of partial tile vectors
 * (ffm-pmapping-tiles.c), their memory from the generation's budget, the
 * thread's workspace, and their pruning by partial dominance: a row
 * another row of the same diff matches or beats in every unit is
 * dropped. */
#include "ffm-pmapping-private.h"
#include "ffm-row-key-sort-private.h"

#include <math.h>
#include <string.h>

/* TUNING: rows ahead that the gather in sort order prefetches (tried
 * 4-16 on MobileNet-V3's depthwise convolution). */
#define PRUNE_PREFETCH 8

static void
table_clear (Table *t, FfmMemoryBudget *budget)
{
  ffm_budget_buffer_clear (&t->chains, budget);
  ffm_budget_buffer_clear (&t->vals, budget);
  ffm_budget_buffer_clear (&t->mags, budget);
  ffm_budget_buffer_clear (&t->diff, budget);
  t->n_rows = 0;
}

/* Grows each of the four @buffers to @need bytes from the search's
 * budget; FALSE when one cannot grow: then, if @fatal, the search is out
 * of memory. */
static gboolean
reserve_buffers (FfmTileSearch *en, FfmBudgetBuffer *buffers[4], const gsize need[4],
                 gboolean fatal)
{
  for (guint i = 0; i < 4; i++)
    if (!ffm_budget_buffer_reserve (buffers[i], en->budget, need[i]))
      {
        if (fatal)
          tiles_out_of_memory (en, need[i] - MIN (need[i], buffers[i]->capacity));
        return FALSE;
      }
  return TRUE;
}

/* The bytes per row of a table's buffers at @n_units units, in the order
 * chains, values, magnitudes, diffs (tiles_table_try_reserve() and
 * tiles_rows_reserved() must agree on them). */
static void
table_buffer_row_bytes (const FfmTileSearch *en, guint n_units, gsize bytes[4])
{
  bytes[0] = sizeof (guint32) * MAX (en->n_vars, 1);
  bytes[1] = sizeof (double) * MAX (n_units, 1);
  bytes[2] = sizeof (double) * MAX (n_units, 1);
  bytes[3] = sizeof (guint64) * MAX (en->n_diff, 1);
}

/* Bytes of one row of @n_units units. */
gsize
tiles_table_row_bytes (const FfmTileSearch *en, guint n_units)
{
  gsize bytes[4];

  table_buffer_row_bytes (en, n_units, bytes);
  return bytes[0] + bytes[1] + bytes[2] + bytes[3];
}

/* Makes @t hold @n_rows rows of @n_units units; FALSE when the budget
 * cannot give it: then, if @fatal, the search is out of memory (en->out
 * says how much it asked for). */
gboolean
tiles_table_try_reserve (FfmTileSearch *en, Table *t, gsize n_rows, guint n_units, gboolean fatal)
{
  gsize row[4], need[4];
  FfmBudgetBuffer *buffers[4] = { &t->chains, &t->vals, &t->mags, &t->diff };

  table_buffer_row_bytes (en, n_units, row);
  for (guint i = 0; i < 4; i++)
    need[i] = ffm_budget_bytes (n_rows, row[i]);
  return reserve_buffers (en, buffers, need, fatal);
}

gboolean
tiles_table_reserve (FfmTileSearch *en, Table *t, gsize n_rows, guint n_units)
{
  return tiles_table_try_reserve (en, t, n_rows, n_units, TRUE);
}

/* Sets en->tiles for the variables chosen in row @r of @t (depth @k). */
void
tiles_restore_row (FfmTileSearch *en, const Table *t, guint r, guint k)
{
  const guint32 *chains = TABLE_CHAINS (t) + (gsize) r * en->n_vars;

  for (guint q = 0; q < k; q++)
    {
      guint v = en->order[q];
      guint nl = en->var_n_loops[v];
      const guint64 *chain = nl > 0
        ? &g_array_index (en->chains[v], guint64, (gsize) chains[v] * nl) : NULL;
      for (guint i = 0; i < nl; i++)
        en->tiles[en->var_loops[v][i]] = chain[i];
    }
}

/* The bytes per row of the pruning scratch at @n_units units, in the
 * order keys, kept, alive, values (tiles_prune_scratch_try_reserve() and
 * tiles_rows_reserved() must agree on them). */
static void
prune_scratch_buffer_row_bytes (guint n_units, gsize bytes[4])
{
  bytes[0] = sizeof (FfmRowKey);
  bytes[1] = sizeof (guint);
  bytes[2] = sizeof (gboolean);
  bytes[3] = 2 * sizeof (double) * MAX (n_units, 1);
}

gboolean
tiles_prune_scratch_try_reserve (FfmTileSearch *en, PruneScratch *s, guint n_rows, guint n_units,
                                 gboolean fatal)
{
  gsize row[4], need[4];
  FfmBudgetBuffer *buffers[4] = { &s->keys, &s->kept, &s->alive, &s->vals };

  prune_scratch_buffer_row_bytes (n_units, row);
  for (guint i = 0; i < 4; i++)
    need[i] = ffm_budget_bytes (n_rows, row[i]);
  return reserve_buffers (en, buffers, need, fatal);
}

gboolean
tiles_prune_scratch_reserve (FfmTileSearch *en, PruneScratch *s, guint n_rows, guint n_units)
{
  return tiles_prune_scratch_try_reserve (en, s, n_rows, n_units, TRUE);
}

static void
prune_scratch_clear (PruneScratch *s, FfmMemoryBudget *budget)
{
  ffm_budget_buffer_clear (&s->keys, budget);
  ffm_budget_buffer_clear (&s->kept, budget);
  ffm_budget_buffer_clear (&s->alive, budget);
  ffm_budget_buffer_clear (&s->vals, budget);
}

FfmTileWorkspace *
ffm_tile_workspace_new (FfmMemoryBudget *budget)
{
  FfmTileWorkspace *ws = g_new0 (FfmTileWorkspace, 1);

  ws->budget = budget;
  return ws;
}

void
ffm_tile_workspace_free (FfmTileWorkspace *ws)
{
  if (ws == NULL)
    return;
  for (guint k = 0; k < G_N_ELEMENTS (ws->tables); k++)
    table_clear (&ws->tables[k], ws->budget);
  prune_scratch_clear (&ws->scratch, ws->budget);
  tiles_chain_cache_free (ws->chain_cache);
  g_free (ws);
}

/* Moves row @from of @t to row @to (@to <= @from). */
void
tiles_table_move_row (const FfmTileSearch *en, Table *t, guint from, guint to, guint n_units)
{
  if (from == to)
    return;
  memcpy (TABLE_CHAINS (t) + (gsize) to * en->n_vars,
          TABLE_CHAINS (t) + (gsize) from * en->n_vars, sizeof (guint32) * en->n_vars);
  memcpy (TABLE_VALS (t) + (gsize) to * n_units,
          TABLE_VALS (t) + (gsize) from * n_units, sizeof (double) * n_units);
  memcpy (TABLE_MAGS (t) + (gsize) to * n_units,
          TABLE_MAGS (t) + (gsize) from * n_units, sizeof (double) * n_units);
  if (en->n_diff > 0)
    memcpy (TABLE_DIFF (t) + (gsize) to * en->n_diff,
            TABLE_DIFF (t) + (gsize) from * en->n_diff, sizeof (guint64) * en->n_diff);
}

/* Drops the rows from @first on of @t that another row from @first on with
 * the same diff dominates; survivors keep their order. */
gboolean
tiles_table_prune (FfmTileSearch *en, Table *t, guint first, guint n_units,
                   const guint8 *lex, PruneScratch *ps)
{
  guint n_rows = t->n_rows - first, n = 0, n_kept = 0, start = 0, nd = en->n_diff;
  guint fail = 0;           /* unit_dominates()' first unit to check */
  guint64 *diffs = TABLE_DIFF (t) + (gsize) first * nd;
  double *vals = TABLE_VALS (t) + (gsize) first * n_units;
  double *mags = TABLE_MAGS (t) + (gsize) first * n_units;
  struct {
    FfmRowKey *keys;
    guint *kept;
    gboolean *alive;
    double *vals;
  } sv, *s = &sv;

  if (n_rows < PRUNE_MIN_ROWS)
    return TRUE;
  if (!tiles_prune_scratch_reserve (en, ps, n_rows, n_units))
    return FALSE;
  sv.keys = ps->keys.data;
  sv.kept = ps->kept.data;
  sv.alive = ps->alive.data;
  sv.vals = ps->vals.data;
  /* Within a diff, rows sort by their first unit, then by a positive
   * weighting of the others: if A <= B in every unit then A's key <= B's
   * (rounding is monotone), so a row's dominators come before it; weights
   * scale every unit to at most 1, so that no magnitude decides alone. The
   * key needs no look-up of the rows while sorting, and a row whose key is
   * larger is no candidate dominator. With @lex, a dominator may have the
   * larger latency units: the key leaves them out. */
  {
    double weight[MAX_VARS * 64];
    guint nw = MIN (n_units, G_N_ELEMENTS (weight)), k0 = 0;
    while (lex != NULL && k0 + 1 < n_units && lex[k0] == LEX_LATENCY)
      k0++;
    for (guint u = 0; u < nw; u++)
      weight[u] = 0;
    for (guint i = 0; i < n_rows; i++)
      for (guint u = 0; u < nw; u++)
        weight[u] = MAX (weight[u], fabs (vals[(gsize) i * n_units + u]));
    for (guint u = 0; u < nw; u++)
      weight[u] = weight[u] > 0 && (lex == NULL || lex[u] != LEX_LATENCY)
        ? 1 / weight[u] : 0;
    for (guint i = 0; i < n_rows; i++)
      {
        const double *v = vals + (gsize) i * n_units;
        double rest = 0;
        for (guint u = 0; u < nw; u++)
          if (u != k0)
            rest += v[u] * weight[u];
        s->keys[i].hash = hash_diff (diffs + (gsize) i * nd, nd);
        s->keys[i].first = n_units > 0 ? v[k0] : 0;
        s->keys[i].rest = rest;
        s->keys[i].index = i;
        s->alive[i] = FALSE;
      }
  }
  if (n_rows >= en->radix_min_rows
      && ps->vals.capacity / FFM_ROW_KEY_RADIX_SCRATCH >= n_rows)
    {
      ffm_row_keys_sort_radix (s->keys, n_rows, s->vals);   /* not yet in use */
      if (TILES_CHECKING (en))
        for (guint i = 1; i < n_rows; i++)
          if (!ffm_row_key_less (&s->keys[i - 1], &s->keys[i]))
            g_warning ("radix sort: key %u of %u is out of order", i, n_rows);
    }
  else
    ffm_row_keys_sort (s->keys, n_rows);
  /* Values and magnitudes in sort order, so that the window reads
   * contiguous memory; diffs are read in place, only to confirm. */
  for (guint i = 0; i < n_rows; i++)
    {
      const double *v = vals + (gsize) s->keys[i].index * n_units;
      const double *m = mags + (gsize) s->keys[i].index * n_units;
      double *to = s->vals + (gsize) i * 2 * n_units;
      /* The rows are read in a random order: fetch a few ahead (TUNING:
       * the gather was a fifth of the pruning, waiting on memory). */
      if (i + PRUNE_PREFETCH < n_rows)
        {
          gsize ahead = (gsize) s->keys[i + PRUNE_PREFETCH].index * n_units;
          for (guint u = 0; u < n_units; u += 8)
            {
              __builtin_prefetch (vals + ahead + u);
              __builtin_prefetch (mags + ahead + u);
            }
        }
      for (guint u = 0; u < n_units; u++)
        {
          to[2 * u] = v[u];
          to[2 * u + 1] = m[u];
        }
    }
  for (guint i = 0; i < n_rows; i++)
    {
      guint r = s->keys[i].index;
      const double *ub = s->vals + (gsize) i * 2 * n_units;
      gboolean dominated = FALSE;
      if (i > 0 && s->keys[i].hash != s->keys[i - 1].hash)
        start = n_kept;     /* a new diff group */
      for (guint k = n_kept; k-- > start && !dominated && n_kept - k <= PRUNE_WINDOW; )
        {
          guint q = s->kept[k];     /* a sorted position */
          guint qr = s->keys[q].index;
          if (s->keys[q].rest > s->keys[i].rest)
            continue;
          /* Equal hashes; the diffs are compared only when the units say
           * dominated (a collision merely interleaves two diffs). */
          dominated = unit_dominates (s->vals + (gsize) q * 2 * n_units, ub,
                                      n_units, lex, &fail)
            && diff_equal (diffs + (gsize) qr * nd, diffs + (gsize) r * nd, nd);
        }
      if (!dominated)
        {
          s->kept[n_kept++] = i;
          s->alive[r] = TRUE;
        }
    }
  for (guint r = 0; r < n_rows; r++)
    {
      if (!s->alive[r])
        continue;
      tiles_table_move_row (en, t, first + r, first + n, n_units);
      n++;
    }
  t->n_rows = first + n;
  return TRUE;
}

/* The rows that table @t and scratch @s hold at @n_units units without
 * growing: what tiles_table_try_reserve() and tiles_prune_scratch_try_reserve() would
 * accept with no new memory (tiles_table_extend() calls them only past it;
 * called for every row, they were 5 % of GPT-3's V). */
gsize
tiles_rows_reserved (const FfmTileSearch *en, const Table *t, const PruneScratch *s, guint n_units)
{
  const FfmBudgetBuffer *buffers[8] = {
    &t->chains, &t->vals, &t->mags, &t->diff, &s->keys, &s->kept, &s->alive, &s->vals,
  };
  gsize row_bytes[8];
  gsize rows = G_MAXSIZE;

  table_buffer_row_bytes (en, n_units, row_bytes);
  prune_scratch_buffer_row_bytes (n_units, row_bytes + 4);
  for (guint i = 0; i < 8; i++)
    rows = MIN (rows, buffers[i]->capacity / row_bytes[i]);
  return rows;
}

/* The units a complete row carries (one per class) against the terms
 * evaluated at its tiles: the tables' bookkeeping (extension, pruning,
 * the moves of chunks and samples) kept each row's values with its
 * chains (FFM_DEBUG=check-terms). */
void
tiles_check_table_row (FfmTileSearch *en, const Table *t, guint r)
{
  guint nu = en->n_units[en->n_vars];
  const double *vals = TABLE_VALS (t) + (gsize) r * nu;
  const double *mags = TABLE_MAGS (t) + (gsize) r * nu;
  double sums[256];

  g_return_if_fail (en->terms->classes->len <= G_N_ELEMENTS (sums));
  ffm_terms_evaluate (en->terms, en->m, en->bounds, en->tiles, sums);
  for (guint u = 0; u < nu; u++)
    {
      double expect = sums[en->leaf_unit_class[u]];
      if (fabs (vals[u] - expect) > 1e-9 * (mags[u] + fabs (expect)) + 1e-30)
        g_warning ("table check: row %u unit %u holds %.17g, its tiles give %.17g",
                   r, u, vals[u], expect);
    }
}

/* Prunes the whole of @t, or only a sample of it when the sample drops
 * fewer than 1 in @futile_ratio of its rows. */
gboolean
tiles_table_prune_sampled (FfmTileSearch *en, Table *t, guint n_units, const guint8 *lex,
                           guint futile_ratio, PruneScratch *ps)
{
  guint total = t->n_rows, sample = en->prune_sample_rows, first;

  if (total <= 2 * sample)
    return tiles_table_prune (en, t, 0, n_units, lex, ps);
  /* The sample is the last rows: its survivors stay where they are and
   * nothing moves (a sample of the first rows moved the rest behind its
   * survivors; no difference in time measurable on Simba x ResNet-18,
   * but less to read). */
  first = total - sample;
  if (!tiles_table_prune (en, t, first, n_units, lex, ps))
    return FALSE;
  if ((gsize) (total - t->n_rows) * futile_ratio < sample)
    return TRUE;
  return tiles_table_prune (en, t, 0, n_units, lex, ps);
}

/* A complete row's slots (setup_leaf_slots()): value and magnitude
 * interleaved into @to. */
void
tiles_leaf_slots (const FfmTileSearch *en, const Table *t, guint r, double *to)
{
  guint nu = en->n_units[en->n_vars];
  const double *vals = TABLE_VALS (t) + (gsize) r * nu;
  const double *mags = TABLE_MAGS (t) + (gsize) r * nu;

  for (guint x = 0; x < en->n_leaf_slots; x++)
    to[2 * x] = to[2 * x + 1] = en->leaf_slot_max[x] ? -INFINITY : 0;
  for (guint u = 0; u < nu; u++)
    {
      guint x = en->leaf_slot[u];
      if (x == G_MAXUINT)
        continue;
      if (!en->leaf_slot_max[x])
        {
          to[2 * x] += vals[u];
          to[2 * x + 1] += mags[u];
        }
      else if (vals[u] > to[2 * x])
        {
          to[2 * x] = vals[u];
          to[2 * x + 1] = mags[u];
        }
    }
}
