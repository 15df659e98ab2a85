/* ffm-pmapping-tiles-incumbent.c: partial tile vectors held to the
 * pmappings already found (ffm-incumbent-front-private.h), for an Einsum
 * that is a workload of its own.
 *
 * A row of depth k holds its cost terms' units with the variables
 * order[0..k-1] chosen. Each later depth j multiplies every unit by a
 * factor of order[j]'s chain (its descriptor's, phi) and sums them into
 * the next depth's units (the gather lists). Every factor is a product of
 * iteration counts and tiles, so non-negative; a unit of value at least a
 * times a factor in [lo, hi] is at least a lo when a >= 0, a hi when
 * a < 0. Carried through the remaining depths, that gives each unit of a
 * complete row a lower bound over every completion of the row: the
 * energy units' sum bounds the dynamic energy (leak only adds), the
 * latency units' largest a memory port's latency. The compute unit's
 * latency is its steps over its throughput, and the steps (the temporal
 * loops' product, with perfect tiles) are the operations over the spatial
 * product, which is at most the row's spatial product on each fanout
 * dimension times what the remaining variables can add there
 * (reach_after), at most the dimension's count: that bound is computed as
 * the cost model computes the latency, so it is never above a
 * completion's. A row with more energy than a pmapping of the front (by
 * the rounding margin) and no less latency is not extended: none of its
 * completions is optimal (for energy, their product, or latency with
 * energy the tie-break), nor on the (energy, latency) front.
 * tests/test-pmapping.c holds the result to brute force's and to the
 * search without the bound.
 *
 * The last variable's factors are not taken each at its least: the
 * least of one descriptor and that of another come from different chains
 * (a large tile here, a small one there), and the energy so bounded can
 * be half any completion's (Timeloop's simba-like x ResNet-50's 3x3
 * convolution). The energy units of the last depth are sums of depth
 * n - 1's units times the chain's factors, so for one chain c the energy
 * is sum_i u_i W_c[i], W_c[i] >= 0 the chain's factors gathered per unit;
 * with u_i at least the carried lower bound l_i >= 0, each completion
 * through c has at least sum_i l_i W_c[i], and every completion at least
 * the least of that over the chains. Only chains whose weights no other
 * chain's are at most in every unit can give the least (l >= 0), and
 * only those of the buckets (spatial products) that fit beside the row's
 * spatial products: the chain whose factors are all the least is often
 * the one that puts the whole variable across a fanout the row has
 * already used. A depth n - 1 bound with a negative unit falls back to
 * the factors' least.
 *
 * A row's children through one bucket of its depth's variable are held to
 * the front as one before they are made: they have the bucket's spatial
 * products and, when the variable has no fused loop, the row's fused
 * tiles (the same points); the row's units carried with the least factors
 * over the bucket's chains bound every one of them.
 *
 * With several Einsums there is no front: a pmapping's worth depends on
 * its compatibility group, whose other columns are each tracked memory's
 * reservations. The same bound then holds a row to the template's own
 * pmappings of its group (the group front, below), from the depth where
 * every fused loop's tile is chosen: from there every completion of the
 * row has the row's fused tiles, so its compatibility, and its group is
 * that of the template's leaves with those tiles. A leaf P of that group
 * with less energy than the row's bound (by the margin), no more latency,
 * and in each occupancy class of a tracked memory (the units a
 * reservation column sums, ffm-pmapping-terms.c) no more bits than the
 * class's bound, is below every completion C in every column of the
 * group and strictly in energy: the group's Pareto pruning would drop C
 * for P (or for what drops P), so C is not made. The groups come out the
 * same, row for row (tests/test-pmapping.c, /pmapping/group-bounds). */
#include "ffm-pmapping-private.h"

#include <math.h>
#include <string.h>

/* TUNING: the last variable's chains whose weights are compared (above
 * this, each factor at its least: the chains' Pareto filter is quadratic
 * in a bucket's) and kept (the least over those of the buckets a row's
 * spatial products leave is taken for every row held to the front). */
#define LAST_CHAINS_MOST 4096u
#define LAST_CHAINS_KEPT 512u

/* The last variable's chains as weights of depth n_vars - 1's units in
 * the energy (en->front_last_w, the header's comment), bucket by bucket,
 * those no other chain's of the bucket are at most in every unit; off
 * when there are too many. */
static void
last_chains_setup (FfmTileSearch *en)
{
  guint j, v, nu, nd, n_chains, n_buckets, n_kept = 0;
  g_autofree double *w = NULL;
  g_autofree double *sum = NULL;
  g_autofree guint *by_sum = NULL;

  en->front_last_n = 0;
  en->front_last_used_valid = FALSE;
  en->front_last_max = FFM_TEST_HOOKS
    && ffm_debug_flag_is_set (FFM_DEBUG_INCUMBENT_LAST_MAX);
  if (en->n_vars == 0 || ffm_debug_flag_is_set (FFM_DEBUG_NO_INCUMBENT_LAST_CHAINS))
    return;
  j = en->n_vars - 1;
  v = en->order[j];
  nu = en->n_units[j];
  nd = en->n_desc[j];
  n_chains = en->n_chains[v];
  n_buckets = en->buckets[v]->len;
  if (n_chains == 0 || n_chains > LAST_CHAINS_MOST || nu == 0)
    return;
  w = g_new0 (double, (gsize) n_chains * nu);
  sum = g_new0 (double, n_chains);
  by_sum = g_new (guint, n_chains);
  for (guint c = 0; c < n_chains; c++)
    {
      const double *phi = &en->phi[j][(gsize) c * nd];
      double *wc = w + (gsize) c * nu;
      for (guint to = 0; to < en->n_units[j + 1]; to++)
        {
          const FfmTermClass *cl = &g_array_index (en->terms->classes, FfmTermClass,
                                                   en->leaf_unit_class[to]);
          if (cl->kind != FFM_TERM_ENERGY)
            continue;
          for (guint i = en->gather_start[j][to]; i < en->gather_start[j][to + 1]; i++)
            wc[en->gather_unit[j][i]] += phi[en->gather_desc[j][i]];
        }
      for (guint i = 0; i < nu; i++)
        sum[c] += wc[i];
    }
  en->front_last_w = g_new (double, (gsize) MIN (n_chains, LAST_CHAINS_KEPT) * nu);
  en->front_last_first = g_new (guint, n_buckets + 1);
  en->front_last_fits = g_new (guint, MAX (n_buckets, 1));
  en->front_last_n_buckets = n_buckets;
  for (guint b = 0; b < n_buckets; b++)
    {
      const Bucket *bucket = &g_array_index (en->buckets[v], Bucket, b);
      guint first = n_kept;
      en->front_last_first[b] = first;
      /* the bucket's chains by their weights' sum (a chain cannot be at
       * most one of a smaller sum in every weight unless equal to it),
       * ties by index: the first of equal chains is kept */
      for (guint a = 0; a < bucket->n; a++)
        {
          guint c = bucket->first + a, x = a;
          for (; x > 0 && sum[by_sum[x - 1]] > sum[c]; x--)
            by_sum[x] = by_sum[x - 1];
          by_sum[x] = c;
        }
      for (guint a = 0; a < bucket->n; a++)
        {
          const double *wc = w + (gsize) by_sum[a] * nu;
          gboolean beaten = FALSE;
          for (guint q = first; q < n_kept && !beaten; q++)
            {
              const double *wq = en->front_last_w + (gsize) q * nu;
              guint i = 0;
              while (i < nu && wq[i] <= wc[i])
                i++;
              beaten = i == nu;
            }
          if (beaten)
            continue;
          if (n_kept == LAST_CHAINS_KEPT)
            {
              g_clear_pointer (&en->front_last_w, g_free);
              g_clear_pointer (&en->front_last_first, g_free);
              g_clear_pointer (&en->front_last_fits, g_free);
              g_debug ("template %u: more than %u chains of the last variable without "
                       "a smaller one in their bucket: each factor at its least",
                       en->t->id, LAST_CHAINS_KEPT);
              return;
            }
          memcpy (en->front_last_w + (gsize) n_kept * nu, wc, sizeof (double) * nu);
          n_kept++;
        }
    }
  en->front_last_first[n_buckets] = n_kept;
  en->front_last_n = n_kept;
  g_debug ("template %u: the last variable's %u chains in %u buckets bound by %u",
           en->t->id, n_chains, n_buckets, n_kept);
}

/* Whether every completion of a row whose depth n_vars - 1 units are at
 * least @prev and whose spatial products are @used has more energy than
 * @least, the least energy of a point that beats the row otherwise, by
 * the margin (the header's comment): the least over the last variable's
 * chains, only those of the buckets that leave every fanout dimension
 * within its count (a completion's products are at least @used). Stops at
 * the first chain that is not beaten. FALSE when @prev has a negative
 * unit or the bound is off. Under FFM_DEBUG=incumbent-last-max (tests):
 * when any chain is beaten, unsound. */
static gboolean
last_chains_beaten (FfmTileSearch *en, const double *prev, const guint64 *used, double least,
                    double scale)
{
  guint nu = en->n_units[en->n_vars - 1], v = en->order[en->n_vars - 1];

  if (en->front_last_n == 0)
    return FALSE;
  for (guint i = 0; i < nu; i++)
    if (!(prev[i] >= 0))
      return FALSE;
  if (!en->front_last_used_valid
      || memcmp (en->front_last_used, used, sizeof (guint64) * en->n_dims) != 0)
    {
      en->front_last_n_fits = 0;
      for (guint b = 0; b < en->front_last_n_buckets; b++)
        {
          const Bucket *bucket = &g_array_index (en->buckets[v], Bucket, b);
          gboolean ok = TRUE;
          for (guint d = 0; d < en->n_dims && ok; d++)
            ok = MAX (used[d], 1) * bucket->prod[d] <= en->dim_count[d];
          if (ok)
            en->front_last_fits[en->front_last_n_fits++] = b;
        }
      memcpy (en->front_last_used, used, sizeof (guint64) * en->n_dims);
      en->front_last_used_valid = TRUE;
    }
  for (guint x = 0; x < en->front_last_n_fits; x++)
    {
      guint b = en->front_last_fits[x];
      for (guint c = en->front_last_first[b]; c < en->front_last_first[b + 1]; c++)
        {
          const double *wc = en->front_last_w + (gsize) c * nu;
          double e = 0;
          gboolean beaten;
          for (guint i = 0; i < nu; i++)
            e += prev[i] * wc[i];
          e *= scale;
          beaten = e > 0 && least < e;
          if (beaten == en->front_last_max)
            return beaten;
        }
    }
  /* (no chain fits: no completion) */
  return !en->front_last_max;
}

/* Each depth's buckets' least and largest factors (en->front_bucket_phi)
 * where the children of one bucket share their fused tiles, or any with
 * the one-Einsum front, which has no groups. */
static void
bucket_phi_setup (FfmTileSearch *en)
{
  gboolean largest = FFM_TEST_HOOKS
    && ffm_debug_flag_is_set (FFM_DEBUG_INCUMBENT_BUCKET_MAX);

  if (ffm_debug_flag_is_set (FFM_DEBUG_NO_INCUMBENT_BUCKETS))
    return;
  for (guint k = 0; k < en->n_vars; k++)
    {
      guint v = en->order[k], nd = en->n_desc[k], n_buckets = en->buckets[v]->len;
      gboolean fused = FALSE;
      double *lo;
      for (guint i = 0; i < en->var_n_loops[v]; i++)
        fused |= en->var_loops[v][i] < en->n_fused;
      if ((en->front == NULL && fused) || nd == 0 || n_buckets < 2)
        continue;
      lo = en->front_bucket_phi[k] = g_new (double, (gsize) n_buckets * 2 * nd);
      for (guint b = 0; b < n_buckets; b++, lo += 2 * nd)
        {
          const Bucket *bucket = &g_array_index (en->buckets[v], Bucket, b);
          double *hi = lo + nd;
          for (guint d = 0; d < nd; d++)
            {
              lo[d] = INFINITY;
              hi[d] = -INFINITY;
            }
          for (guint c = bucket->first; c < bucket->first + bucket->n; c++)
            for (guint d = 0; d < nd; d++)
              {
                double f = en->phi[k][(gsize) c * nd + d];
                lo[d] = MIN (lo[d], f);
                hi[d] = MAX (hi[d], f);
              }
          if (largest)   /* (tests: unsound) */
            for (guint d = 0; d < nd; d++)
              {
                double x = lo[d];
                lo[d] = hi[d];
                hi[d] = x;
              }
        }
    }
}

void
tiles_incumbent_setup (FfmTileSearch *en)
{
  const FfmIncumbentFront *front = en->t->front;
  gsize total = 0;
  guint most = 1;

  tiles_incumbent_free (en);
  g_debug ("template %u: front %u points, terms %d, constrained %d", en->t->id,
           front != NULL ? ffm_incumbent_front_get_n_points (front) : 0,
           en->terms != NULL, en->constrained);
  /* (the front of other templates' pmappings is off under a minimum
   * usage: try best keeps a template's highest usage, which another
   * template's pmapping need not reach; the group front holds the
   * template's own, which its pass took at the same usage) */
  if (en->terms == NULL || (front != NULL && en->constrained)
      || en->leaf_unit_class == NULL || en->probing
      || ffm_debug_flag_is_set (FFM_DEBUG_NO_INCUMBENT_BOUNDS))
    return;
  if (front == NULL)
    {
      tiles_group_front_setup (en);
      if (en->group_front == NULL)
        return;
    }
  for (guint k = 0; k < en->n_vars; k++)
    {
      en->front_phi_at[k] = total;
      total += 2 * (gsize) en->n_desc[k];
    }
  for (guint k = 0; k <= en->n_vars; k++)
    most = MAX (most, en->n_units[k]);
  en->front_phi = g_new (double, MAX (total, 1));
  for (guint k = 0; k < en->n_vars; k++)
    {
      guint v = en->order[k], nd = en->n_desc[k];
      double *lo = en->front_phi + en->front_phi_at[k], *hi = lo + nd;
      for (guint d = 0; d < nd; d++)
        {
          lo[d] = INFINITY;
          hi[d] = -INFINITY;
        }
      for (guint c = 0; c < en->n_chains[v]; c++)
        for (guint d = 0; d < nd; d++)
          {
            double f = en->phi[k][(gsize) c * nd + d];
            lo[d] = MIN (lo[d], f);
            hi[d] = MAX (hi[d], f);
          }
      for (guint d = 0; d < nd; d++)
        if (!(lo[d] >= 0) || !isfinite (hi[d]))
          {
            /* a factor the argument does not cover: no bound */
            g_clear_pointer (&en->front_phi, g_free);
            tiles_group_front_free (en);
            return;
          }
    }
  en->front_most_units = most;
  en->front_scratch = g_new (double, 2 * (gsize) most);
  /* the template's own leaves join a copy, as its chunks reach them */
  if (front != NULL)
    en->front = ffm_incumbent_front_copy (front);
  last_chains_setup (en);
  bucket_phi_setup (en);
  /* the operations (0: too many to count, no compute bound) and the
   * compute unit's throughput */
  en->front_ops = 1;
  for (guint v = 0; v < en->n_vars && en->front_ops > 0; v++)
    en->front_ops = en->bounds[v] > 0 && en->front_ops > G_MAXUINT64 / en->bounds[v]
      ? 0 : en->front_ops * en->bounds[v];
  en->front_throughput =
    ffm_arch_get_level (en->arch, en->t->compute_level)->u.compute.throughput;
  en->front_scale = ffm_debug_flag_get_double (FFM_DEBUG_INCUMBENT_BOUND_SCALE, 1);
  if (!FFM_TEST_HOOKS)
    en->front_scale = 1;
}

void
tiles_incumbent_free (FfmTileSearch *en)
{
  g_clear_pointer (&en->front_phi, g_free);
  g_clear_pointer (&en->front_scratch, g_free);
  g_clear_pointer (&en->front_last_w, g_free);
  g_clear_pointer (&en->front_last_first, g_free);
  g_clear_pointer (&en->front_last_fits, g_free);
  en->front_last_n = 0;
  for (guint k = 0; k < MAX_VARS; k++)
    g_clear_pointer (&en->front_bucket_phi[k], g_free);
  g_clear_pointer (&en->front, ffm_incumbent_front_unref);
  tiles_group_front_free (en);
}

/* The compute unit's least latency over the completions of a row of
 * depth @k whose spatial products per fanout dimension are @used, as the
 * cost model computes it (time_for() in ffm-cost-pmapping.c). */
static double
compute_latency_bound (const FfmTileSearch *en, const guint64 *used, guint k)
{
  guint64 spatial = 1, steps;

  if (en->front_ops == 0 || isinf (en->front_throughput))
    return 0;
  for (guint d = 0; d < en->n_dims; d++)
    {
      double reach = MIN ((double) en->dim_count[d],
                          (double) MAX (used[d], 1) * en->reach_after[k][d]);
      guint64 most = reach >= (double) G_MAXUINT32 ? G_MAXUINT32 : (guint64) reach;
      spatial = spatial > G_MAXUINT64 / MAX (most, 1) ? G_MAXUINT64 : spatial * MAX (most, 1);
    }
  steps = en->front_ops / spatial + (en->front_ops % spatial != 0);
  return steps == 0 ? 0 : (double) steps / en->front_throughput;
}

/* Carries @units (of depth @k) through the remaining depths, each factor
 * at its least (a unit >= 0) or largest (@first_phi: depth k's least then
 * largest, NULL: those over every chain): a lower bound of each unit of
 * every completion, at the last depth (returned, in en->front_scratch).
 * *@prev: the bound at depth n_vars - 1 (in the scratch too), NULL when
 * @k is n_vars. */
static const double *
carry_units (FfmTileSearch *en, const double *units, guint k, const double *first_phi,
             const double **prev)
{
  double *cur = en->front_scratch, *next = cur + en->front_most_units;

  memcpy (cur, units, sizeof (double) * en->n_units[k]);
  for (guint j = k; j < en->n_vars; j++)
    {
      guint nd = en->n_desc[j];
      const double *lo = j == k && first_phi != NULL ? first_phi
        : en->front_phi + en->front_phi_at[j];
      const double *hi = lo + nd;
      const guint *gu = en->gather_unit[j], *gd = en->gather_desc[j];
      const guint *gs = en->gather_start[j];
      double *swap;
      for (guint to = 0; to < en->n_units[j + 1]; to++)
        {
          double s = 0;
          for (guint i = gs[to]; i < gs[to + 1]; i++)
            {
              double u = cur[gu[i]];
              s += u * (u >= 0 ? lo[gd[i]] : hi[gd[i]]);
            }
          next[to] = s;
        }
      swap = cur;
      cur = next;
      next = swap;
    }
  /* (next: depth n_vars - 1's bound, when a depth was carried) */
  *prev = k < en->n_vars ? next : NULL;
  return cur;
}

/* The energy units' sum and the latency units' largest of @cur. */
static void
carried_energy_latency (const FfmTileSearch *en, const double *cur, double *energy,
                        double *latency)
{
  *energy = 0;
  *latency = 0;
  for (guint u = 0; u < en->n_units[en->n_vars]; u++)
    {
      const FfmTermClass *c = &g_array_index (en->terms->classes, FfmTermClass,
                                              en->leaf_unit_class[u]);
      if (c->kind == FFM_TERM_ENERGY)
        *energy += cur[u];
      else if (c->kind == FFM_TERM_LATENCY)
        *latency = MAX (*latency, cur[u]);
    }
}

/* Whether every completion of a row of depth @k whose units are @units
 * (@first_phi: carried with those factor bounds at depth k, see
 * carry_units()), whose fused tiles are @diff's and whose spatial
 * products are @used, at depth @used_depth (k, or k + 1 for the children
 * of one bucket), is beaten by a pmapping found. */
static gboolean
units_beaten (FfmTileSearch *en, const double *units, guint k, const double *first_phi,
              const guint64 *diff, const guint64 *used, guint used_depth)
{
  const double *cur, *prev;
  double energy, latency, least, scale;

  if (en->front == NULL && !tiles_group_front_has_points (en, diff, used_depth))
    return FALSE;
  cur = carry_units (en, units, k, first_phi, &prev);
  carried_energy_latency (en, cur, &energy, &latency);
  if (en->front != NULL)
    {
      /* a memory's latency bound, rounding taken off; the compute unit's
       * is the model's own arithmetic; a point beats the row when its
       * energy is below the row's by the margin */
      latency = MAX (latency * (1 - FFM_INCUMBENT_MARGIN),
                     compute_latency_bound (en, used, used_depth));
      least = ffm_incumbent_front_least_energy (en->front, latency * en->front_scale);
      scale = (1 - FFM_INCUMBENT_MARGIN) * en->front_scale;
    }
  else
    {
      /* Each bound with the rounding taken off (the model sums its parts
       * in another order, within FFM_INCUMBENT_MARGIN of the units': twice
       * that, for P's rounding and C's), but whole bits, compared
       * exactly; scaled by FFM_DEBUG=incumbent-bound-scale (tests: made
       * unsound). */
      latency = MAX (latency * (1 - 4 * FFM_INCUMBENT_MARGIN),
                     compute_latency_bound (en, used, used_depth)) * en->front_scale;
      least = tiles_group_front_least_energy (en, cur, latency);
      scale = (1 - 4 * FFM_INCUMBENT_MARGIN) * en->front_scale;
    }
  if (isinf (least))
    return FALSE;
  /* the energy over every chain of the last variable at each factor's
   * least, then chain by chain (the header's comment) */
  if (!en->front_last_max && energy * scale > 0 && least < energy * scale)
    return TRUE;
  return prev != NULL && last_chains_beaten (en, prev, used, least, scale);
}

gboolean
tiles_incumbent_beats (FfmTileSearch *en, const Table *t, guint r, guint k)
{
  const guint64 *diff = TABLE_DIFF (t) + (gsize) r * en->n_diff;

  if (units_beaten (en, TABLE_VALS (t) + (gsize) r * en->n_units[k], k, NULL, diff,
                    diff + en->n_fused, k))
    {
      en->n_beaten++;
      return TRUE;
    }
  return FALSE;
}

gboolean
tiles_incumbent_beats_bucket (FfmTileSearch *en, const double *units, const guint64 *diff,
                              guint k, guint b)
{
  if (en->front_bucket_phi[k] == NULL)
    return FALSE;
  return units_beaten (en, units, k, en->front_bucket_phi[k] + (gsize) b * 2 * en->n_desc[k],
                       diff, en->used[k + 1], k + 1);
}
