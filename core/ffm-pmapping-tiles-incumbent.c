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

/* Carries row @r of @t (depth @k)'s units through the remaining depths,
 * each factor at its least (a unit >= 0) or largest: a lower bound of
 * each unit of every completion, at the last depth (returned, in
 * en->front_scratch). */
static const double *
carry_units (FfmTileSearch *en, const Table *t, guint r, guint k)
{
  const double *units = TABLE_VALS (t) + (gsize) r * en->n_units[k];
  double *cur = en->front_scratch, *next = cur + en->front_most_units;

  memcpy (cur, units, sizeof (double) * en->n_units[k]);
  for (guint j = k; j < en->n_vars; j++)
    {
      guint nd = en->n_desc[j];
      const double *lo = en->front_phi + en->front_phi_at[j], *hi = lo + nd;
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

/* The group front's test of row @r of @t (depth @k). */
static gboolean
group_front_beats (FfmTileSearch *en, const Table *t, guint r, guint k)
{
  const guint64 *diff = TABLE_DIFF (t) + (gsize) r * en->n_diff;
  const double *cur;
  double energy, latency;

  if (!tiles_group_front_has_points (en, diff, k))
    return FALSE;
  cur = carry_units (en, t, r, k);
  carried_energy_latency (en, cur, &energy, &latency);
  /* Each bound with the rounding taken off (the model sums its parts in
   * another order, within FFM_INCUMBENT_MARGIN of the units': twice
   * that, for P's rounding and C's), but whole bits, compared exactly;
   * scaled by FFM_DEBUG=incumbent-bound-scale (tests: made unsound). */
  energy *= (1 - 4 * FFM_INCUMBENT_MARGIN) * en->front_scale;
  latency = MAX (latency * (1 - 4 * FFM_INCUMBENT_MARGIN),
                 compute_latency_bound (en, diff + en->n_fused, k)) * en->front_scale;
  if (tiles_group_front_beaten (en, cur, energy, latency))
    {
      en->n_beaten++;
      return TRUE;
    }
  return FALSE;
}

gboolean
tiles_incumbent_beats (FfmTileSearch *en, const Table *t, guint r, guint k)
{
  const guint64 *diff = TABLE_DIFF (t) + (gsize) r * en->n_diff;
  const double *cur;
  double energy, latency;

  if (en->front == NULL)
    return group_front_beats (en, t, r, k);
  cur = carry_units (en, t, r, k);
  carried_energy_latency (en, cur, &energy, &latency);
  /* a memory's latency bound, rounding taken off; the compute unit's is
   * the model's own arithmetic */
  latency = MAX (latency * (1 - FFM_INCUMBENT_MARGIN),
                 compute_latency_bound (en, diff + en->n_fused, k));
  if (ffm_incumbent_front_beats (en->front, energy * en->front_scale,
                                 latency * en->front_scale))
    {
      en->n_beaten++;
      return TRUE;
    }
  return FALSE;
}
