/* ffm-plot-sweep.c: the per-point plots of `ffm sweep`
 * (ffm-plot-sweep.h). The data come from the rows' CSV fields, so that a
 * resumed sweep (whose rows were read back from its CSV) plots the same
 * as an uninterrupted one. */
#include "ffm-plot-sweep.h"
#include "ffm-plot.h"

#include <ffm/ffm.h>
#include <math.h>
#include <string.h>

/* TUNING: totals further apart than this are scaled per point. */
#define SCALE_RATIO 10.0

char *
ffm_plot_sweep_path (const char *path, const char *what)
{
  const char *dot = strrchr (path, '.');
  const char *slash = strrchr (path, '/');

  if (dot == NULL || (slash != NULL && dot < slash))
    return g_strdup_printf ("%s-%s", path, what);
  return g_strdup_printf ("%.*s-%s%s", (int) (dot - path), path, what, dot);
}

/* The value of @name in "NAME=V;NAME=V" @pairs, 0 when absent. */
static double
pair_value (const char *pairs, const char *name)
{
  g_auto (GStrv) items = g_strsplit (pairs != NULL ? pairs : "", ";", -1);

  for (guint k = 0; items[k] != NULL; k++)
    {
      const char *eq = strrchr (items[k], '=');
      if (eq != NULL && (gsize) (eq - items[k]) == strlen (name)
          && strncmp (items[k], name, (gsize) (eq - items[k])) == 0)
        return g_ascii_strtod (eq + 1, NULL);
    }
  return 0;
}

/* The names of "NAME=V;..." over every row's field, in order of first
 * appearance; unless @keep_all, those with some energy only. */
static GPtrArray *
pair_names (const FfmPlotSweepRow *rows, guint n_rows, gsize field, gboolean keep_all)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  for (guint r = 0; r < n_rows; r++)
    {
      const char *pairs = G_STRUCT_MEMBER (const char *, &rows[r], field);
      g_auto (GStrv) items = NULL;
      if (!rows[r].ok || pairs == NULL)
        continue;
      items = g_strsplit (pairs, ";", -1);
      for (guint k = 0; items[k] != NULL; k++)
        {
          char *eq = strrchr (items[k], '=');
          gboolean known = FALSE;
          if (eq == NULL)
            continue;
          *eq = '\0';
          for (guint i = 0; i < names->len; i++)
            known |= strcmp (names->pdata[i], items[k]) == 0;
          if (!known)
            g_ptr_array_add (names, g_strdup (items[k]));
        }
    }
  /* Drop the names without energy in any row (fanouts, an absent class). */
  for (guint i = keep_all ? 0 : names->len; i-- > 0; )
    {
      gboolean some = FALSE;
      for (guint r = 0; r < n_rows && !some; r++)
        some = rows[r].ok
               && pair_value (G_STRUCT_MEMBER (const char *, &rows[r], field),
                              names->pdata[i]) > 0;
      if (!some)
        g_ptr_array_remove_index (names, i);
    }
  return names;
}

/* Stacked bars of the pairs in @field, one bar per row, grouped by point. */
static gboolean
plot_pairs (const char *path, const char *swept, const char *title, const char *what,
            const FfmPlotSweepRow *rows, guint n_rows, guint n_policies,
            gsize field, const char *const *labels, GError **error)
{
  /* The classes all kept (a class's colour the same in both class
   * plots), the levels without energy (fanouts) left out. */
  g_autoptr (GPtrArray) names = pair_names (rows, n_rows, field, labels != NULL);
  guint n_groups = n_rows / MAX (n_policies, 1), n_k = names->len;
  g_autofree double *values = g_new0 (double, (gsize) MAX (n_rows, 1) * MAX (n_k, 1));
  g_autofree double *totals = g_new0 (double, MAX (n_rows, 1));
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) groups = g_ptr_array_new ();
  g_autoptr (GPtrArray) bars = g_ptr_array_new ();
  g_autoptr (GPtrArray) components = g_ptr_array_new ();
  double lo = INFINITY, hi = 0;
  gboolean scaled;
  g_autofree char *full_title = NULL, *y_label = NULL, *x_label = NULL;
  FfmPlotAxes axes = { 0 };
  FfmPlotBarGroups g;

  for (guint r = 0; r < n_rows; r++)
    {
      const char *pairs = G_STRUCT_MEMBER (const char *, &rows[r], field);
      for (guint k = 0; k < n_k; k++)
        {
          double v = rows[r].ok ? pair_value (pairs, names->pdata[k]) : NAN;
          values[(gsize) r * n_k + k] = v;
          if (isfinite (v) && v > 0)
            totals[r] += v;
        }
      g_ptr_array_add (notes, rows[r].ok ? ffm_format_si (totals[r], "J")
                                         : g_strdup ("failed"));
    }
  for (guint gi = 0; gi < n_groups; gi++)
    {
      double top = 0;
      for (guint b = 0; b < n_policies; b++)
        top = MAX (top, totals[gi * n_policies + b]);
      if (top > 0)
        {
          lo = MIN (lo, top);
          hi = MAX (hi, top);
        }
    }
  /* Totals orders of magnitude apart (a sequence-length sweep): each
   * point scaled to its largest bar, the totals written above. */
  scaled = isfinite (lo) && hi > SCALE_RATIO * lo;
  for (guint gi = 0; scaled && gi < n_groups; gi++)
    {
      double top = 0;
      for (guint b = 0; b < n_policies; b++)
        top = MAX (top, totals[gi * n_policies + b]);
      for (guint b = 0; top > 0 && b < n_policies; b++)
        for (guint k = 0; k < n_k; k++)
          values[(gsize) (gi * n_policies + b) * n_k + k] /= top;
    }
  for (guint gi = 0; gi < n_groups; gi++)
    g_ptr_array_add (groups, (gpointer) rows[gi * n_policies].point);
  for (guint b = 0; b < n_policies && b < n_rows; b++)
    g_ptr_array_add (bars, (gpointer) rows[b].policy);
  for (guint k = 0; k < n_k; k++)
    g_ptr_array_add (components, labels != NULL ? (gpointer) labels[k] : names->pdata[k]);
  full_title = g_strdup (title);
  y_label = scaled ? g_strdup_printf ("%s / the point's largest", what)
                   : g_strdup_printf ("%s (J)", what);
  axes.title = full_title;
  x_label = g_strdup_printf ("policy, then %s (totals above the bars)", swept);
  axes.x_label = x_label;
  axes.y_label = y_label;
  g = (FfmPlotBarGroups) { (const char *const *) groups->pdata, n_groups,
                           (const char *const *) bars->pdata, MIN (n_policies, n_rows),
                           (const char *const *) components->pdata, n_k, values,
                           (const char *const *) notes->pdata };
  return ffm_plot_grouped_bars (path, &axes, &g, error);
}

/* The legend names of the tensor classes (the sweep's class keys, in the
 * order they appear in the rows). */
static const char *
class_label (const char *key)
{
  if (strcmp (key, "weights") == 0)
    return "weights";
  if (strcmp (key, "intermediates_kv") == 0)
    return "K, V intermediates";
  if (strcmp (key, "intermediates_other") == 0)
    return "other intermediates";
  if (strcmp (key, "inputs_outputs") == 0)
    return "inputs, outputs";
  return key;
}

static gboolean
plot_classes (const char *path, const char *swept, const char *title, const char *what,
              const FfmPlotSweepRow *rows, guint n_rows, guint n_policies,
              gsize field, GError **error)
{
  g_autoptr (GPtrArray) names = pair_names (rows, n_rows, field, TRUE);
  g_autofree const char **labels = g_new0 (const char *, names->len + 1);

  for (guint k = 0; k < names->len; k++)
    labels[k] = class_label (names->pdata[k]);
  return plot_pairs (path, swept, title, what, rows, n_rows, n_policies, field, labels,
                     error);
}

static gboolean
plot_fusion (const char *path, const char *swept, const FfmPlotSweepRow *rows, guint n_rows,
             GError **error)
{
  g_autofree FfmPlotFusionRow *out = g_new0 (FfmPlotFusionRow, MAX (n_rows, 1));
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) strvs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_autoptr (GPtrArray) levels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) kinds = g_ptr_array_new_with_free_func (g_free);

  for (guint r = 0; r < n_rows; r++)
    {
      FfmPlotFusionRow *o = &out[r];
      char **boxes = g_strsplit (rows[r].einsums != NULL ? rows[r].einsums : "", ";", -1);
      g_auto (GStrv) pairs = g_strsplit (rows[r].fused_einsums != NULL
                                         ? rows[r].fused_einsums : "", ";", -1);
      guint n_pairs = g_strv_length (pairs), n = 0;
      guint *from = g_new0 (guint, MAX (n_pairs, 1)), *to = g_new0 (guint, MAX (n_pairs, 1));
      guint *kind = g_new0 (guint, MAX (n_pairs, 1));

      g_ptr_array_add (strvs, boxes);
      g_ptr_array_add (keep, from);
      g_ptr_array_add (keep, to);
      g_ptr_array_add (keep, kind);
      g_ptr_array_add (keep, g_strdup_printf ("%s, %s", rows[r].policy, rows[r].point));
      o->label = g_ptr_array_index (keep, keep->len - 1);
      o->failed = !rows[r].ok;
      o->boxes = (const char *const *) boxes;
      /* A failed point has no Einsums: g_strsplit gives an empty list. */
      o->n_boxes = g_strv_length (boxes);
      for (guint k = 0; k < n_pairs; k++)
        {
          char *gt = strchr (pairs[k], '>'), *at = strrchr (pairs[k], '@');
          guint level = G_MAXUINT;
          int a = -1, b = -1;
          if (gt == NULL || at == NULL || at < gt)
            continue;
          *gt = *at = '\0';
          for (guint i = 0; i < o->n_boxes; i++)
            {
              if (strcmp (boxes[i], pairs[k]) == 0)
                a = (int) i;
              if (strcmp (boxes[i], gt + 1) == 0)
                b = (int) i;
            }
          for (guint l = 0; l < levels->len; l++)
            if (strcmp (levels->pdata[l], at + 1) == 0)
              level = l;
          if (level == G_MAXUINT)
            {
              level = levels->len;
              g_ptr_array_add (levels, g_strdup (at + 1));
              g_ptr_array_add (kinds, g_strdup_printf ("tensor kept in %s", at + 1));
            }
          if (a < 0 || b < 0)
            continue;
          from[n] = (guint) a;
          to[n] = (guint) b;
          kind[n++] = level;
        }
      o->from = from;
      o->to = to;
      o->kind = kind;
      o->n_links = n;
    }
  g_autofree char *title = g_strdup_printf ("Fusion per policy and %s", swept);

  return ffm_plot_fusion (path, title,
                          out, n_rows, (const char *const *) kinds->pdata, kinds->len, error);
}

gboolean
ffm_plot_sweep_breakdowns (const char *path, const char *swept,
                           const FfmPlotSweepRow *rows, guint n_rows,
                           guint n_policies, GError **error)
{
  g_autofree char *components = ffm_plot_sweep_path (path, "energy-components");
  g_autofree char *classes = ffm_plot_sweep_path (path, "energy-classes");
  g_autofree char *classes_all = ffm_plot_sweep_path (path, "energy-classes-all");
  g_autofree char *fusion = ffm_plot_sweep_path (path, "fusion");

  return plot_pairs (components, swept, "Energy by component", "energy", rows, n_rows,
                     n_policies,
                     G_STRUCT_OFFSET (FfmPlotSweepRow, level_energy), NULL, error)
    && plot_classes (classes, swept, "Off-chip energy by tensor class", "off-chip energy",
                     rows, n_rows, n_policies,
                     G_STRUCT_OFFSET (FfmPlotSweepRow, offchip_class_energy), error)
    && plot_classes (classes_all, swept, "Energy by tensor class, every memory", "energy",
                     rows, n_rows, n_policies,
                     G_STRUCT_OFFSET (FfmPlotSweepRow, class_energy), error)
    && plot_fusion (fusion, swept, rows, n_rows, error);
}
