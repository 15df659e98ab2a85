/* ffm-pmapping-tiles-chains.c: each rank variable's divisor chains (with
 * remainder tiles when the mapspace has them), their buckets (same
 * fused-loop count and spatial products) and their factors of the cost
 * terms' monomials, shared between the templates of a workspace.
 *
 * A variable's chains depend on a small part of its template only: its
 * bound and, per loop over it, whether the loop is spatial (on which
 * fanout dimension, of which count) and whether it is fused; and on the
 * fused-loop limits and remainder tiles of the options. Templates that
 * differ in their storage nodes' order or in what is kept where share
 * them: GPT-3 6.7B b64's QK has 158 templates of 5 variables, whose 790
 * chains have 34 distinct keys (one fused loop). So each workspace
 * (one thread's at a time) keeps the sets it built, in flat arrays, found
 * by their key once per template and variable (never inside the search),
 * and so does it keep each factor column (one descriptor's factor of
 * every chain, ffm_terms_var_factor()) by the descriptor expressed in the
 * variable's own loops. A cached set is immutable but for its columns,
 * appended by the workspace's own thread. The cache's bytes come from
 * the generation's memory budget; when the budget says no, the template
 * builds its own set, as before; the cache is cleared at a template's
 * start once it holds more than CHAIN_CACHE_BYTES.
 *
 * FFM_DEBUG=check-shared-setup (builds with the test hooks) builds every
 * set and column taken from the cache afresh as well, and warns when the
 * two differ in any bit. */
#include "ffm-pmapping-private.h"
#include "ffm-tile-chain-private.h"
#include <ffm/ffm-hash.h>

#include <string.h>

/* TUNING: the bytes a workspace's cache holds before it is cleared at a
 * template's start; at most a sixteenth of the budget. Far above what was
 * measured: GPT-3 6.7B b64's V in the full space held 1.7 and 2.1 MB in
 * its two workspaces (35 and 32 sets, with their columns). */
#define CHAIN_CACHE_BYTES ((gsize) 64 << 20)

/* What a variable's chains depend on; zeroed before it is filled, and
 * compared as bytes. */
typedef struct {
  guint64 bound;
  guint64 dim_count[MAX_DIMS];      /* of the dimensions its spatial loops
                                       use, 0 for the others */
  guint32 n_loops;
  guint32 n_dims;
  gint32 max_fused_loops;
  gint32 max_fused_loops_per_rank_var;
  guint32 imperfect;                /* options' imperfect with remainder
                                       tiles, else 0 */
  guint32 remainders;               /* tiles may leave remainders */
  guint8 loop_kind[MAX_LOOPS];      /* per loop: 1 + 2 fused + 4 (fanout
                                       dimension + 1) when spatial */
} ChainKey;

/* One factor column's descriptor, in the variable's own loops: the mask
 * of its loops summed (bit i + 1: its i-th loop) and how many of its
 * loops lie above the position (-1: no position). */
typedef struct {
  guint64 mask;
  gint32 cut;
  guint32 reserved_;
} ColumnKey;

typedef struct TileChainSet {
  ChainKey key;
  guint32 hash;
  guint n_chains;
  GArray *chains;                   /* of guint64, n_loops per chain, in
                                       bucket order */
  GArray *buckets;                  /* of Bucket */
  guint64 chain_dim[MAX_DIMS];      /* largest product per dimension */
  GArray *column_keys;              /* of ColumnKey */
  GArray *columns;                  /* of double, n_chains per column */
  gsize bytes;                      /* reserved from the cache's budget */
} TileChainSet;

typedef struct TileChainCache {
  GPtrArray *sets;                  /* of TileChainSet* (owned) */
  gsize bytes;                      /* reserved from budget */
  gsize limit;                      /* cleared above this at a start */
  gsize peak;                       /* most bytes held (the debug log) */
  guint n_cleared;                  /* times cleared (the debug log) */
  FfmMemoryBudget *budget;          /* borrowed: the workspace's */
} TileChainCache;

/* ---- Building a set ---- */

/* Whether @tiles is a chain of @v the search may take; each dimension's
 * product into @set's chain_dim. */
static gboolean
chain_ok (const FfmTileSearch *en, guint v, const guint64 *tiles, TileChainSet *set)
{
  guint64 prod[MAX_DIMS] = { 0 };
  guint fused = 0;
  guint64 enclosing = en->bounds[v];

  for (guint k = 0; k < en->n_fixed[v]; k++)
    {
      guint pos = en->fixed_pos[v][k];
      if ((pos == 0 ? en->bounds[v] : tiles[pos - 1]) != en->fixed_tile[v][k])
        return FALSE;
    }
  for (guint d = 0; d < en->n_dims; d++)
    prod[d] = 1;
  for (guint i = 0; i < en->var_n_loops[v]; i++)
    {
      guint j = en->var_loops[v][i];
      guint64 n = ffm_chain_iterations (enclosing, tiles[i]);
      if (n > 1 && j < en->n_fused)
        fused++;
      if (en->loops[j].spatial)
        {
          guint d = en->loops[j].fanout_dim;
          prod[d] *= n;
          if (prod[d] > en->dim_count[d])
            return FALSE;
        }
      enclosing = tiles[i];
    }
  if (en->opt->max_fused_loops_per_rank_var >= 0
      && fused > (guint) en->opt->max_fused_loops_per_rank_var)
    return FALSE;
  if (en->opt->max_fused_loops >= 0 && fused > (guint) en->opt->max_fused_loops)
    return FALSE;
  for (guint d = 0; d < en->n_dims; d++)
    set->chain_dim[d] = MAX (set->chain_dim[d], prod[d]);
  return TRUE;
}

/* Appends every divisor chain of loops [i, k) below tile @outer. Each
 * level's divisors go on the stack @divisors (one array for every level,
 * not one allocation per call), truncated back when the level is done. */
static void
make_chains (const FfmTileSearch *en, guint v, guint i, guint64 outer, guint64 *tiles,
             TileChainSet *set, GArray *divisors)
{
  guint k = en->var_n_loops[v];
  guint base = divisors->len, n_small;

  if (i == k)
    {
      if (chain_ok (en, v, tiles, set))
        {
          g_array_append_vals (set->chains, tiles, k);
          set->n_chains++;
        }
      return;
    }
  if (i == k - 1)
    {
      tiles[i] = 1;   /* the innermost loop goes down to one point */
      make_chains (en, v, k, 1, tiles, set, divisors);
      return;
    }
  /* Every divisor of outer as this loop's tile, largest first (a loop of
   * one iteration first). */
  for (guint64 d = 1; d <= outer / d; d++)
    if (outer % d == 0)
      g_array_append_val (divisors, d);
  n_small = divisors->len - base;
  for (guint x = 0; x < n_small; x++)
    {
      guint64 d = g_array_index (divisors, guint64, base + x);
      tiles[i] = outer / d;
      make_chains (en, v, i + 1, tiles[i], tiles, set, divisors);
    }
  for (guint x = n_small; x-- > 0; )
    {
      guint64 d = g_array_index (divisors, guint64, base + x);
      if (d == outer / d)
        continue;
      tiles[i] = d;
      make_chains (en, v, i + 1, d, tiles, set, divisors);
    }
  g_array_set_size (divisors, base);
}

/* The chains of @v with remainder tiles (ffm-pmapping-imperfect.c), those
 * chain_ok() accepts. */
static void
make_remainder_chains (const FfmTileSearch *en, guint v, TileChainSet *set)
{
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (guint64));
  gboolean may[MAX_LOOPS];
  guint k = en->var_n_loops[v];

  for (guint i = 0; i < k; i++)
    may[i] = (en->opt->imperfect & (en->loops[en->var_loops[v][i]].spatial
                                    ? FFM_IMPERFECT_SPATIAL
                                    : FFM_IMPERFECT_TEMPORAL)) != 0;
  ffm_pmapping_remainder_chains (en->bounds[v], may, k, all);
  for (guint c = 0; c < all->len / k; c++)
    {
      const guint64 *tiles = &g_array_index (all, guint64, (gsize) c * k);
      if (chain_ok (en, v, tiles, set))
        {
          g_array_append_vals (set->chains, tiles, k);
          set->n_chains++;
        }
    }
}

/* What the search checks of one chain. */
static void
chain_signature (const FfmTileSearch *en, guint v, const guint64 *tiles, Bucket *sig)
{
  guint64 enclosing = en->bounds[v];

  memset (sig, 0, sizeof *sig);
  for (guint d = 0; d < en->n_dims; d++)
    sig->prod[d] = 1;
  for (guint i = 0; i < en->var_n_loops[v]; i++)
    {
      guint j = en->var_loops[v][i];
      guint64 n = ffm_chain_iterations (enclosing, tiles[i]);
      if (n > 1 && j < en->n_fused)
        sig->fused++;
      if (en->loops[j].spatial)
        sig->prod[en->loops[j].fanout_dim] *= n;
      enclosing = tiles[i];
    }
}

typedef struct {
  guint n_dims;
  const Bucket *sigs;
} BucketSort;

static int
compare_signatures (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const BucketSort *bs = data;
  guint a = *(const guint *) pa, b = *(const guint *) pb;
  const Bucket *sa = &bs->sigs[a], *sb = &bs->sigs[b];

  if (sa->fused != sb->fused)
    return sa->fused < sb->fused ? -1 : 1;
  for (guint d = 0; d < bs->n_dims; d++)
    if (sa->prod[d] != sb->prod[d])
      return sa->prod[d] < sb->prod[d] ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);   /* stable: keeps enumeration order */
}

/* Sorts the chains of @set by signature and records the buckets. */
static void
make_buckets (const FfmTileSearch *en, guint v, TileChainSet *set)
{
  guint n = set->n_chains, k = en->var_n_loops[v];
  g_autofree Bucket *sigs = g_new0 (Bucket, MAX (n, 1));
  g_autofree guint *order = g_new (guint, MAX (n, 1));
  GArray *sorted;
  BucketSort bs = { en->n_dims, sigs };

  set->buckets = g_array_new (FALSE, FALSE, sizeof (Bucket));
  if (k == 0)
    {
      Bucket b = { 0, 1, 0, { 0 } };
      for (guint d = 0; d < en->n_dims; d++)
        b.prod[d] = 1;
      g_array_append_val (set->buckets, b);
      return;
    }
  for (guint c = 0; c < n; c++)
    {
      chain_signature (en, v, &g_array_index (set->chains, guint64, (gsize) c * k),
                       &sigs[c]);
      order[c] = c;
    }
  g_qsort_with_data (order, (gint) n, sizeof (guint), compare_signatures, &bs);
  sorted = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n * k);
  for (guint i = 0; i < n; i++)
    {
      const Bucket *sig = &sigs[order[i]];
      Bucket *last = set->buckets->len > 0
        ? &g_array_index (set->buckets, Bucket, set->buckets->len - 1) : NULL;
      g_array_append_vals (sorted, &g_array_index (set->chains, guint64,
                                                   (gsize) order[i] * k), k);
      if (last != NULL && last->fused == sig->fused
          && memcmp (last->prod, sig->prod, sizeof (guint64) * en->n_dims) == 0)
        last->n++;
      else
        {
          Bucket b = *sig;
          b.first = i;
          b.n = 1;
          g_array_append_val (set->buckets, b);
        }
    }
  g_array_free (set->chains, TRUE);
  set->chains = sorted;
}

static void
chain_set_free (TileChainSet *set)
{
  if (set == NULL)
    return;
  if (set->chains != NULL)
    g_array_free (set->chains, TRUE);
  if (set->buckets != NULL)
    g_array_free (set->buckets, TRUE);
  if (set->column_keys != NULL)
    g_array_free (set->column_keys, TRUE);
  if (set->columns != NULL)
    g_array_free (set->columns, TRUE);
  g_free (set);
}

/* @v's chains and buckets, built. */
static TileChainSet *
chain_set_build (const FfmTileSearch *en, guint v)
{
  TileChainSet *set = g_new0 (TileChainSet, 1);
  guint nl = en->var_n_loops[v];

  set->chains = g_array_new (FALSE, FALSE, sizeof (guint64));
  set->column_keys = g_array_new (FALSE, FALSE, sizeof (ColumnKey));
  set->columns = g_array_new (FALSE, FALSE, sizeof (double));
  /* A variable with one chain (no loops, or bound 1) adds nothing on any
   * fanout dimension: a factor 1 in usage_reachable's bound, not the 0
   * chain_ok would leave (which cut every branch). */
  if (nl == 0 || en->bounds[v] <= 1)
    {
      for (guint d = 0; d < en->n_dims; d++)
        set->chain_dim[d] = 1;
      set->n_chains = 1;   /* nl == 0: bound 1, nothing to choose */
      if (nl > 0)
        {
          guint64 ones[MAX_LOOPS];
          for (guint i = 0; i < nl; i++)
            ones[i] = 1;
          g_array_append_vals (set->chains, ones, nl);
        }
    }
  else if (en->remainders)
    make_remainder_chains (en, v, set);
  else
    {
      guint64 tiles[MAX_LOOPS];
      g_autoptr(GArray) divisors = g_array_new (FALSE, FALSE, sizeof (guint64));
      make_chains (en, v, 0, en->bounds[v], tiles, set, divisors);
    }
  make_buckets (en, v, set);
  return set;
}

/* ---- The cache ---- */

/* @v's key; FALSE when its chains are not shared (fixed tiles, or too
 * many loops for a column's mask). */
static gboolean
chain_key (const FfmTileSearch *en, guint v, ChainKey *key)
{
  guint nl = en->var_n_loops[v];

  memset (key, 0, sizeof *key);
  if (en->n_fixed[v] > 0 || nl >= 63)
    return FALSE;
  key->bound = en->bounds[v];
  key->n_loops = nl;
  key->n_dims = en->n_dims;
  key->max_fused_loops = en->opt->max_fused_loops;
  key->max_fused_loops_per_rank_var = en->opt->max_fused_loops_per_rank_var;
  key->imperfect = en->remainders ? (guint32) en->opt->imperfect : 0;
  key->remainders = en->remainders != FALSE;
  for (guint i = 0; i < nl; i++)
    {
      guint j = en->var_loops[v][i];
      guint8 kind = 1 | (j < en->n_fused ? 2 : 0);
      if (en->loops[j].spatial)
        {
          guint d = (guint) en->loops[j].fanout_dim;
          kind |= (guint8) (4 * (d + 1));
          key->dim_count[d] = en->dim_count[d];
        }
      key->loop_kind[i] = kind;
    }
  return TRUE;
}

static gsize
chain_set_bytes (const TileChainSet *set)
{
  return sizeof *set + sizeof (guint64) * set->chains->len
    + sizeof (Bucket) * set->buckets->len;
}

static void
chain_cache_clear (TileChainCache *cache)
{
  for (guint i = 0; i < cache->sets->len; i++)
    chain_set_free (g_ptr_array_index (cache->sets, i));
  g_ptr_array_set_size (cache->sets, 0);
  ffm_memory_budget_release (cache->budget, cache->bytes);
  cache->bytes = 0;
}

TileChainCache *
tiles_chain_cache_get (FfmTileWorkspace *ws)
{
  TileChainCache *cache = ws->chain_cache;

  if (cache == NULL)
    {
      guint64 limit = ffm_memory_budget_get_limit (ws->budget);
      cache = ws->chain_cache = g_new0 (TileChainCache, 1);
      cache->sets = g_ptr_array_new ();
      cache->budget = ws->budget;
      cache->limit = limit > 0 ? (gsize) MIN (CHAIN_CACHE_BYTES, limit / 16)
        : CHAIN_CACHE_BYTES;
    }
  else if (cache->bytes > cache->limit)
    {
      cache->peak = MAX (cache->peak, cache->bytes);
      cache->n_cleared++;
      chain_cache_clear (cache);
    }
  return cache;
}

void
tiles_chain_cache_free (TileChainCache *cache)
{
  if (cache == NULL)
    return;
  cache->peak = MAX (cache->peak, cache->bytes);
  g_debug ("shared set-up: %u chain sets at the end, at most %" G_GSIZE_FORMAT
           " bytes held, cleared %u times", cache->sets->len, cache->peak, cache->n_cleared);
  chain_cache_clear (cache);
  g_ptr_array_free (cache->sets, TRUE);
  g_free (cache);
}

/* Whether two sets hold the same chains, buckets and products. */
static gboolean
chain_sets_equal (const TileChainSet *a, const TileChainSet *b)
{
  if (a->n_chains != b->n_chains || a->chains->len != b->chains->len
      || a->buckets->len != b->buckets->len
      || (a->chains->len > 0
          && memcmp (a->chains->data, b->chains->data,
                     sizeof (guint64) * a->chains->len) != 0)
      || memcmp (a->chain_dim, b->chain_dim, sizeof a->chain_dim) != 0)
    return FALSE;
  for (guint i = 0; i < a->buckets->len; i++)
    {
      const Bucket *x = &g_array_index (a->buckets, Bucket, i);
      const Bucket *y = &g_array_index (b->buckets, Bucket, i);
      if (x->first != y->first || x->n != y->n || x->fused != y->fused
          || memcmp (x->prod, y->prod, sizeof x->prod) != 0)
        return FALSE;
    }
  return TRUE;
}

static void
chain_set_use (FfmTileSearch *en, guint v, TileChainSet *set, gboolean owned)
{
  en->chain_set[v] = set;
  en->chain_set_owned[v] = owned;
  en->chains[v] = set->chains;
  en->buckets[v] = set->buckets;
  en->n_chains[v] = set->n_chains;
  memcpy (en->chain_dim[v], set->chain_dim, sizeof en->chain_dim[v]);
}

void
tiles_chains_take (FfmTileSearch *en, guint v)
{
  TileChainCache *cache = en->chain_cache;
  TileChainSet *set;
  ChainKey key;
  guint32 hash;

  en->out->n_chain_sets++;
  if (cache == NULL || !chain_key (en, v, &key))
    {
      chain_set_use (en, v, chain_set_build (en, v), TRUE);
      return;
    }
  hash = ffm_fnv1a32 (FFM_FNV1A32_INIT, &key, sizeof key);
  for (guint i = 0; i < cache->sets->len; i++)
    {
      set = g_ptr_array_index (cache->sets, i);
      if (set->hash == hash && memcmp (&set->key, &key, sizeof key) == 0)
        {
          if (TILES_CHECKING_SHARED (en))
            {
              TileChainSet *fresh = chain_set_build (en, v);
              if (!chain_sets_equal (set, fresh))
                g_warning ("shared set-up: template %u, rank variable %s: the cached "
                           "chains differ from those built for it", en->t->id,
                           en->e->rank_var_names[v]);
              chain_set_free (fresh);
            }
          en->out->n_chain_sets_shared++;
          chain_set_use (en, v, set, FALSE);
          return;
        }
    }
  set = chain_set_build (en, v);
  set->key = key;
  set->hash = hash;
  set->bytes = chain_set_bytes (set);
  if (!ffm_memory_budget_reserve (cache->budget, set->bytes))
    {
      set->bytes = 0;
      chain_set_use (en, v, set, TRUE);
      return;
    }
  cache->bytes += set->bytes;
  g_ptr_array_add (cache->sets, set);
  chain_set_use (en, v, set, FALSE);
}

/* Column @key's factors of every chain of @v into @out[c x @stride]. */
static void
compute_factors (const FfmTileSearch *en, guint v, const ColumnKey *key, double *out,
                 gsize stride)
{
  guint nl = en->var_n_loops[v];
  guint loops[MAX_LOOPS];

  /* ffm_terms_var_factor() reads the loops' indices only to compare them
   * with the position and the mask: the variable's own loops, numbered
   * from 1, give the same factors. */
  for (guint i = 0; i < nl; i++)
    loops[i] = i + 1;
  for (guint c = 0; c < en->n_chains[v]; c++)
    {
      const guint64 *chain = nl > 0
        ? &g_array_index (en->chains[v], guint64, (gsize) c * nl) : NULL;
      out[(gsize) c * stride] = nl > 0
        ? ffm_terms_var_factor (en->bounds[v], chain, loops, nl, key->mask, key->cut)
        : 1;
    }
}

void
tiles_chains_factors (FfmTileSearch *en, guint v, guint64 mask, int pos,
                      double *out, gsize stride)
{
  TileChainSet *set = en->chain_set[v];
  guint nl = en->var_n_loops[v], nc = en->n_chains[v];
  ColumnKey key = { 0, -1, 0 };
  const double *column = NULL;

  if (nl >= 63)
    {
      for (guint c = 0; c < nc; c++)
        {
          const guint64 *chain = nl > 0
            ? &g_array_index (en->chains[v], guint64, (gsize) c * nl) : NULL;
          out[(gsize) c * stride] = ffm_terms_var_factor (en->bounds[v], chain,
                                                          en->var_loops[v], nl, mask, pos);
        }
      return;
    }
  for (guint i = 0; i < nl; i++)
    {
      guint j = en->var_loops[v][i];
      if (mask & (G_GUINT64_CONSTANT (1) << j))
        key.mask |= G_GUINT64_CONSTANT (1) << (i + 1);
      if (pos >= 0 && (int) j <= pos)
        key.cut = (gint32) i + 1;
    }
  if (pos >= 0 && key.cut < 0)
    key.cut = 0;
  for (guint k = 0; k < set->column_keys->len; k++)
    if (memcmp (&g_array_index (set->column_keys, ColumnKey, k), &key, sizeof key) == 0)
      {
        column = &g_array_index (set->columns, double, (gsize) k * nc);
        break;
      }
  if (column == NULL && !en->chain_set_owned[v] && en->chain_cache != NULL
      && ffm_memory_budget_reserve (en->chain_cache->budget,
                                    sizeof key + sizeof (double) * MAX (nc, 1)))
    {
      gsize at = set->columns->len;
      en->chain_cache->bytes += sizeof key + sizeof (double) * MAX (nc, 1);
      g_array_append_val (set->column_keys, key);
      g_array_set_size (set->columns, at + MAX (nc, 1));
      compute_factors (en, v, &key, &g_array_index (set->columns, double, at), 1);
      column = &g_array_index (set->columns, double, at);
    }
  else if (column != NULL && TILES_CHECKING_SHARED (en))
    {
      g_autofree double *fresh = g_new (double, MAX (nc, 1));
      for (guint c = 0; c < nc; c++)
        {
          const guint64 *chain = nl > 0
            ? &g_array_index (en->chains[v], guint64, (gsize) c * nl) : NULL;
          fresh[c] = nl > 0 ? ffm_terms_var_factor (en->bounds[v], chain, en->var_loops[v],
                                                    nl, mask, pos) : 1;
        }
      if (memcmp (fresh, column, sizeof (double) * nc) != 0)
        g_warning ("shared set-up: template %u, rank variable %s: cached factors differ "
                   "from those computed for it", en->t->id, en->e->rank_var_names[v]);
    }
  if (column == NULL)
    {
      compute_factors (en, v, &key, out, stride);
      return;
    }
  for (guint c = 0; c < nc; c++)
    out[(gsize) c * stride] = column[c];
}

void
tiles_chains_release (FfmTileSearch *en)
{
  for (guint v = 0; v < MAX_VARS; v++)
    {
      if (en->chain_set_owned[v])
        chain_set_free (en->chain_set[v]);
      en->chain_set[v] = NULL;
      en->chain_set_owned[v] = FALSE;
      en->chains[v] = NULL;
      en->buckets[v] = NULL;
    }
}
