/* ffm-fusion-layout.c: sides, levels and ports of a fusion diagram's arcs
 * (ffm-fusion-layout.h). */
#include "ffm-fusion-layout.h"

#include <math.h>

/* TUNING: the halves of a box that ports use (the middle stays clear for
 * readability). */
#define PORT_LEFT_LO 0.12
#define PORT_LEFT_HI 0.44
#define PORT_RIGHT_LO 0.56
#define PORT_RIGHT_HI 0.88

static gboolean
interleave (const FfmFusionArc *a, const FfmFusionArc *b)
{
  return (a->from < b->from && b->from < a->to && a->to < b->to)
    || (b->from < a->from && a->from < b->to && b->to < a->to);
}

/* Arcs on @below's side sharing box @box as their @right (to) or left
 * (from) end, sorted for the ports: at a right end the nearer other end
 * first (leftmost), at a left end the farther first (leftmost). */
static GPtrArray *
ends_at (GArray *arcs, guint box, gboolean below, gboolean right)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < arcs->len; i++)
    {
      FfmFusionArc *a = &g_array_index (arcs, FfmFusionArc, i);
      if (a->below == below && (right ? a->to : a->from) == box)
        g_ptr_array_add (out, a);
    }
  /* Insertion sort: few arcs per box. */
  for (guint i = 1; i < out->len; i++)
    for (guint j = i; j > 0; j--)
      {
        FfmFusionArc *x = out->pdata[j - 1], *y = out->pdata[j];
        gboolean swap = right ? x->from < y->from : x->to < y->to;
        if (!swap)
          break;
        out->pdata[j - 1] = y;
        out->pdata[j] = x;
      }
  return out;
}

FfmFusionLayout *
ffm_fusion_layout_new (guint n_boxes, const guint *from, const guint *to, guint n_links)
{
  FfmFusionLayout *layout = g_new0 (FfmFusionLayout, 1);
  GArray *arcs = g_array_new (FALSE, TRUE, sizeof (FfmFusionArc));
  g_autofree int *side = NULL;
  g_autofree guint *queue = NULL;

  layout->n_boxes = n_boxes;
  layout->arcs = arcs;
  for (guint k = 0; k < n_links; k++)
    {
      FfmFusionArc a = { 0 };
      gboolean twice = FALSE;
      if (from[k] >= n_boxes || to[k] >= n_boxes || from[k] == to[k])
        continue;
      a.from = MIN (from[k], to[k]);
      a.to = MAX (from[k], to[k]);
      a.link = k;
      for (guint i = 0; i < arcs->len && !twice; i++)
        twice = g_array_index (arcs, FfmFusionArc, i).from == a.from
                && g_array_index (arcs, FfmFusionArc, i).to == a.to;
      if (!twice)
        g_array_append_val (arcs, a);
    }

  /* Sides: two-colour the interleave graph, breadth first; an arc that
   * conflicts both ways takes the side with fewer conflicts. */
  side = g_new (int, MAX (arcs->len, 1));
  queue = g_new (guint, MAX (arcs->len, 1));
  for (guint i = 0; i < arcs->len; i++)
    side[i] = -1;
  for (guint start = 0; start < arcs->len; start++)
    {
      guint head = 0, tail = 0;
      if (side[start] >= 0)
        continue;
      side[start] = 0;
      queue[tail++] = start;
      while (head < tail)
        {
          guint i = queue[head++];
          for (guint j = 0; j < arcs->len; j++)
            {
              if (side[j] >= 0 || !interleave (&g_array_index (arcs, FfmFusionArc, i),
                                               &g_array_index (arcs, FfmFusionArc, j)))
                continue;
              {
                guint conflicts[2] = { 0, 0 };
                for (guint k = 0; k < arcs->len; k++)
                  if (side[k] >= 0 && interleave (&g_array_index (arcs, FfmFusionArc, j),
                                                  &g_array_index (arcs, FfmFusionArc, k)))
                    conflicts[side[k]]++;
                side[j] = conflicts[1] < conflicts[0] ? 1 : conflicts[0] < conflicts[1] ? 0
                  : 1 - side[i];
              }
              queue[tail++] = j;
            }
        }
    }
  for (guint i = 0; i < arcs->len; i++)
    g_array_index (arcs, FfmFusionArc, i).below = side[i] == 1;

  /* Levels: one above every arc spanned on the same side, shortest
   * first. */
  for (guint span = 1; span < MAX (n_boxes, 1); span++)
    for (guint i = 0; i < arcs->len; i++)
      {
        FfmFusionArc *a = &g_array_index (arcs, FfmFusionArc, i);
        guint level = 1;
        if (a->to - a->from != span)
          continue;
        for (guint j = 0; j < arcs->len; j++)
          {
            const FfmFusionArc *b = &g_array_index (arcs, FfmFusionArc, j);
            if (j != i && b->below == a->below && b->from >= a->from && b->to <= a->to
                && b->to - b->from < span)
              level = MAX (level, b->level + 1);
          }
        a->level = level;
        if (a->below)
          layout->levels_below = MAX (layout->levels_below, level);
        else
          layout->levels_above = MAX (layout->levels_above, level);
      }

  /* Ports. */
  for (guint box = 0; box < n_boxes; box++)
    for (int below = 0; below <= 1; below++)
      {
        g_autoptr (GPtrArray) left = ends_at (arcs, box, below, TRUE);
        g_autoptr (GPtrArray) right = ends_at (arcs, box, below, FALSE);
        for (guint k = 0; k < left->len; k++)
          ((FfmFusionArc *) left->pdata[k])->x_to
            = box + PORT_LEFT_LO + (k + 0.5) * (PORT_LEFT_HI - PORT_LEFT_LO) / left->len;
        for (guint k = 0; k < right->len; k++)
          ((FfmFusionArc *) right->pdata[k])->x_from
            = box + PORT_RIGHT_LO + (k + 0.5) * (PORT_RIGHT_HI - PORT_RIGHT_LO) / right->len;
      }
  return layout;
}

void
ffm_fusion_layout_free (FfmFusionLayout *layout)
{
  if (layout == NULL)
    return;
  g_array_unref (layout->arcs);
  g_free (layout);
}

void
ffm_fusion_arc_points (const FfmFusionArc *arc, double xy[8])
{
  double h = arc->below ? -(double) arc->level : (double) arc->level;

  xy[0] = arc->x_from;
  xy[1] = 0;
  xy[2] = arc->x_from;
  xy[3] = h;
  xy[4] = arc->x_to;
  xy[5] = h;
  xy[6] = arc->x_to;
  xy[7] = 0;
}

/* Whether closed axis-aligned segments (a, b) and (c, d) share a point. */
static gboolean
segments_touch (const double *a, const double *b, const double *c, const double *d)
{
  double ax0 = MIN (a[0], b[0]), ax1 = MAX (a[0], b[0]);
  double ay0 = MIN (a[1], b[1]), ay1 = MAX (a[1], b[1]);
  double cx0 = MIN (c[0], d[0]), cx1 = MAX (c[0], d[0]);
  double cy0 = MIN (c[1], d[1]), cy1 = MAX (c[1], d[1]);
  const double eps = 1e-9;

  return ax0 <= cx1 + eps && cx0 <= ax1 + eps && ay0 <= cy1 + eps && cy0 <= ay1 + eps;
}

gboolean
ffm_fusion_layout_check (const FfmFusionLayout *layout, char **why)
{
  for (guint i = 0; i < layout->arcs->len; i++)
    {
      const FfmFusionArc *a = &g_array_index (layout->arcs, FfmFusionArc, i);
      double p[8];
      if (!(a->x_from > a->from && a->x_from < a->from + 1 && a->x_to > a->to
            && a->x_to < a->to + 1))
        {
          if (why != NULL)
            *why = g_strdup_printf ("the arc from box %u to box %u has a port outside its "
                                    "boxes", a->from, a->to);
          return FALSE;
        }
      ffm_fusion_arc_points (a, p);
      for (guint j = i + 1; j < layout->arcs->len; j++)
        {
          const FfmFusionArc *b = &g_array_index (layout->arcs, FfmFusionArc, j);
          double q[8];
          if (a->below != b->below)
            continue;
          ffm_fusion_arc_points (b, q);
          /* Legs start on the row's edge (height 0) at distinct ports: only
           * the parts off the edge may not touch. */
          p[1] = p[7] = q[1] = q[7] = a->below ? -1e-6 : 1e-6;
          for (guint s = 0; s < 3; s++)
            for (guint t = 0; t < 3; t++)
              if (segments_touch (p + 2 * s, p + 2 * s + 2, q + 2 * t, q + 2 * t + 2))
                {
                  if (why != NULL)
                    *why = g_strdup_printf ("the arcs %u-%u and %u-%u %s the row touch",
                                            a->from, a->to, b->from, b->to,
                                            a->below ? "below" : "above");
                  return FALSE;
                }
        }
    }
  return TRUE;
}
