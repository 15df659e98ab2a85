/* ffm-incumbent-front.c: the Pareto front of the pmappings found so far
 * (ffm-incumbent-front-private.h). */
#include "ffm-incumbent-front-private.h"

#include <math.h>

struct _FfmIncumbentFront {
  gboolean use_latency;
  /* The front, by energy ascending, latency strictly descending. A few
   * hundred points at most in practice: insertion moves the tail. */
  GArray *energy;           /* of double */
  GArray *latency;          /* of double */
};

FfmIncumbentFront *
ffm_incumbent_front_new (gboolean use_latency)
{
  FfmIncumbentFront *f = g_atomic_rc_box_new0 (FfmIncumbentFront);

  f->use_latency = use_latency;
  f->energy = g_array_new (FALSE, FALSE, sizeof (double));
  f->latency = g_array_new (FALSE, FALSE, sizeof (double));
  return f;
}

FfmIncumbentFront *
ffm_incumbent_front_ref (FfmIncumbentFront *front)
{
  g_return_val_if_fail (front != NULL, NULL);
  return g_atomic_rc_box_acquire (front);
}

static void
front_clear (FfmIncumbentFront *f)
{
  g_array_unref (f->energy);
  g_array_unref (f->latency);
}

void
ffm_incumbent_front_unref (FfmIncumbentFront *front)
{
  if (front != NULL)
    g_atomic_rc_box_release_full (front, (GDestroyNotify) front_clear);
}

FfmIncumbentFront *
ffm_incumbent_front_copy (const FfmIncumbentFront *front)
{
  FfmIncumbentFront *f;

  g_return_val_if_fail (front != NULL, NULL);
  f = ffm_incumbent_front_new (front->use_latency);
  g_array_append_vals (f->energy, front->energy->data, front->energy->len);
  g_array_append_vals (f->latency, front->latency->data, front->latency->len);
  return f;
}

guint
ffm_incumbent_front_get_n_points (const FfmIncumbentFront *front)
{
  g_return_val_if_fail (front != NULL, 0);
  return front->energy->len;
}

/* The number of points with energy at most @energy (a prefix). */
static guint
prefix_at_most (const FfmIncumbentFront *f, double energy)
{
  const double *e = (const double *) f->energy->data;
  guint lo = 0, hi = f->energy->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (e[mid] <= energy)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

void
ffm_incumbent_front_add (FfmIncumbentFront *front, double energy, double latency)
{
  FfmIncumbentFront *f = front;
  guint at, end;

  g_return_if_fail (f != NULL);
  if (!isfinite (energy) || !(f->use_latency ? isfinite (latency) : TRUE))
    return;
  if (!f->use_latency)
    latency = 0;
  at = prefix_at_most (f, energy);
  /* dominated (or equal) by the last point of no more energy */
  if (at > 0 && g_array_index (f->latency, double, at - 1) <= latency)
    return;
  /* the points it dominates: from @at on, while their latency is no less */
  end = at;
  while (end < f->energy->len && g_array_index (f->latency, double, end) >= latency)
    end++;
  /* a point of equal energy before @at has more latency: it goes too */
  while (at > 0 && g_array_index (f->energy, double, at - 1) == energy)
    at--;
  g_array_remove_range (f->energy, at, end - at);
  g_array_remove_range (f->latency, at, end - at);
  g_array_insert_val (f->energy, at, energy);
  g_array_insert_val (f->latency, at, latency);
}

double
ffm_incumbent_front_least_energy (const FfmIncumbentFront *front, double latency)
{
  const FfmIncumbentFront *f = front;
  const double *l;
  guint lo = 0, hi;

  if (f == NULL || f->energy->len == 0)
    return INFINITY;
  if (!f->use_latency)
    return g_array_index (f->energy, double, 0);
  /* latency descends along the front: the first point at most @latency */
  l = (const double *) f->latency->data;
  hi = f->latency->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (l[mid] <= latency)
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo < f->energy->len ? g_array_index (f->energy, double, lo) : INFINITY;
}

gboolean
ffm_incumbent_front_beats (const FfmIncumbentFront *front, double energy, double latency)
{
  const FfmIncumbentFront *f = front;
  guint n;

  if (f == NULL || f->energy->len == 0 || !(energy > 0))
    return FALSE;
  n = prefix_at_most (f, energy - FFM_INCUMBENT_MARGIN * energy);
  /* strictly below: a point equal to the margin's edge does not beat */
  while (n > 0 && !(g_array_index (f->energy, double, n - 1)
                    < energy - FFM_INCUMBENT_MARGIN * energy))
    n--;
  if (n == 0)
    return FALSE;
  if (!f->use_latency)
    return TRUE;
  /* the least latency among them is the prefix's last */
  return g_array_index (f->latency, double, n - 1) <= latency;
}
