/* ffm-incumbent-front-private.h: the (energy, latency) Pareto front of
 * the complete pmappings found so far for an Einsum that is a workload of
 * its own, which the tile search holds partial tile vectors to.
 *
 * With one Einsum a pmapping is the whole mapping, and every objective
 * ffm minimises (energy, latency, their product) grows with both. A
 * partial tile vector whose every completion has energy and latency
 * above those of a pmapping already found can give neither the optimum
 * nor a point of the (energy, latency) front, so it need not be
 * extended. The storage choices' seeds (ffm-pmapping-storage.c: the
 * templates of the choices of least bound, searched while the templates
 * are built) fill the front; each template's search holds its rows to a
 * copy of it that its own leaves join, so the pmappings generated do
 * not depend on the threads' timing. The tile
 * search's lower bounds of a partial vector's completions are its cost
 * terms' units with each remaining variable's least (or, under a
 * negative unit, largest) factor (ffm-pmapping-tiles-extend.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FfmIncumbentFront FfmIncumbentFront;

/* An empty front; with @use_latency FALSE only energy is compared (latency
 * is no objective). (transfer full) */
FfmIncumbentFront *ffm_incumbent_front_new (gboolean use_latency);
FfmIncumbentFront *ffm_incumbent_front_ref (FfmIncumbentFront *front);
void ffm_incumbent_front_unref (FfmIncumbentFront *front);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmIncumbentFront, ffm_incumbent_front_unref)

/* A new front with @front's points (transfer full): a template's own,
 * which its leaves join as they are found. */
FfmIncumbentFront *ffm_incumbent_front_copy (const FfmIncumbentFront *front);

/* Adds a complete, valid pmapping's energy and latency (not thread safe:
 * the seeds fill the Einsum's front on the building thread before the
 * search proper reads it, and each template's copy is its own thread's). */
void ffm_incumbent_front_add (FfmIncumbentFront *front, double energy, double latency);

/* Points on the front. */
guint ffm_incumbent_front_get_n_points (const FfmIncumbentFront *front);

/* Whether a point of the front has energy below @energy by more than
 * FFM_INCUMBENT_MARGIN of it and latency at most @latency (lower bounds
 * of every completion of a partial vector; the caller makes @latency one
 * that rounding cannot put above a completion's): every completion then
 * has more energy than the point and no less latency, so it is neither
 * optimal (for energy, for their product, for latency with energy the
 * tie-break) nor on the (energy, latency) front. */
gboolean ffm_incumbent_front_beats (const FfmIncumbentFront *front, double energy,
                                    double latency);

/* The least energy of a point of the front with latency at most
 * @latency (INFINITY: none): ffm_incumbent_front_beats() is TRUE exactly
 * when it is below @energy by more than FFM_INCUMBENT_MARGIN of it (and
 * @energy > 0), so one answer serves several energy bounds. */
double ffm_incumbent_front_least_energy (const FfmIncumbentFront *front, double latency);

/* The relative margin of ffm_incumbent_front_beats() and of the tile
 * search's latency bound: the bounds are sums of products in another
 * order than the cost model's (a few ulps off), and an energy bound
 * within it of a pmapping found is not taken as beaten. */
#define FFM_INCUMBENT_MARGIN 1e-9

G_END_DECLS
