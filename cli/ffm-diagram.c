/* ffm-diagram.c: a mapping's LoopTree drawn in memory-level bands
 * (ffm-diagram.h).
 *
 * Three passes over a tree of boxes made from the mapping: labels (what
 * each box says, so its size), rows (the band of each box and its row in
 * the band: rows are shared across the diagram, so that every storage
 * node of one level lines up), then columns (each subtree takes the width
 * of its widest row, siblings side by side, so subtrees never overlap and
 * edges run down inside their own subtree). */
#include "ffm-diagram.h"
#include "ffm-cli-report.h"

#include <math.h>
#include <string.h>

/* TUNING: geometry, pixels. */
#define FONT 11.0
#define LINE_HEIGHT 14.0
#define PAD_X 6.0
#define PAD_Y 4.0
#define ROW_GAP 14.0            /* between rows, room for the split buses */
#define SIBLING_GAP 18.0        /* between sibling subtrees */
#define BAND_PAD 8.0            /* above and below the rows of a band */
#define EMPTY_BAND 14.0         /* height of a band with no box in a part */
#define FRAME_PAD 5.0           /* the Einsum frames around their subtrees */
#define MARGIN 12.0
#define WRAP 26                 /* characters per line of a tensor list */
#define PART_GAP 28.0

/* Colours. */
#define INK 0x222222
#define GREY 0x666666
#define ONCHIP 0xb34700         /* a tensor passed between Einsums on chip */
#define FUSED_FILL 0xfff0d9
#define FUSED_STROKE 0xc05800
#define SPATIAL_FILL 0xe9f0ff
#define SPATIAL_STROKE 0x3d68a8
#define COMPUTE_FILL 0xe2e2e2
#define COMPUTE_BAND 0xf4f4f4
#define FRAME 0x8a8a8a

static const guint32 band_fill[] = { 0xeaf2fb, 0xfdf0e1, 0xe8f5e9, 0xf3e8f8, 0xfff8d6,
                                     0xe4f4f3 };
static const guint32 storage_fill[] = { 0xc4dcf3, 0xf8d3a8, 0xbfe3c2, 0xdcc2ea, 0xf2df8f,
                                        0xb5dfda };

typedef enum {
  D_STORAGE,
  D_TEMPORAL,
  D_SPATIAL,
  D_COMPUTE,
  D_SPLIT,
} DKind;

/* A piece of a line of text in a box. */
typedef struct {
  char *text;
  gboolean bold;
  guint32 colour;
} Span;

typedef struct _DNode DNode;
struct _DNode {
  DKind kind;
  const FfmMappingNode *src;    /* the loop or compute node */
  GPtrArray *srcs;              /* STORAGE: the merged storage nodes */
  int level;                    /* STORAGE: memory level */
  DNode *parent;
  GPtrArray *children;          /* of DNode* (borrowed) */
  guint n_computes;             /* compute leaves below (itself included) */
  int einsum;                   /* COMPUTE: the report's index */
  /* labels */
  GPtrArray *lines;             /* of GArray of Span */
  char *css;                    /* "node storage", ... */
  GPtrArray *data;              /* key, value, ... for the SVG group */
  char *tooltip;
  gboolean fused;               /* a loop shared by the Einsums below a split */
  guint64 iterations;           /* loops: 0 = unknown */
  /* layout */
  int band;
  guint row;
  double w, h;                  /* the box */
  double l, r;                  /* the subtree, relative to the box's centre */
  double cx, y;                 /* the box's centre and top */
};

typedef struct {
  const FfmCostReport *report;
  const FfmWorkload *workload;
  const FfmArch *arch;
  GPtrArray *all;               /* every DNode (owned) */
  DNode *root;
  GArray *band_levels;          /* of int: memory levels with a band, outer first;
                                   the compute band is the last (level -1) */
  GArray *fusion;               /* of FfmCliFusion */
} Diagram;

/* ---- The tree of boxes ---- */

static void
span_clear (gpointer data)
{
  g_free (((Span *) data)->text);
}

static void
dnode_free (gpointer data)
{
  DNode *n = data;

  if (n->srcs != NULL)
    g_ptr_array_unref (n->srcs);
  if (n->children != NULL)
    g_ptr_array_unref (n->children);
  if (n->lines != NULL)
    g_ptr_array_unref (n->lines);
  if (n->data != NULL)
    g_ptr_array_unref (n->data);
  g_free (n->css);
  g_free (n->tooltip);
  g_free (n);
}

static DNode *
dnode_new (Diagram *d, DKind kind)
{
  DNode *n = g_new0 (DNode, 1);

  n->kind = kind;
  n->einsum = -1;
  n->level = -1;
  n->children = g_ptr_array_new ();
  n->lines = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  n->data = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (d->all, n);
  return n;
}

static void
add_child (DNode *parent, DNode *child)
{
  g_ptr_array_add (parent->children, child);
  child->parent = parent;
}

typedef struct {
  const FfmMappingNode *node;
  int level;
  guint order;
} StorageItem;

static int
compare_storage (gconstpointer a, gconstpointer b)
{
  const StorageItem *x = a, *y = b;

  if (x->level != y->level)
    return x->level < y->level ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The chain of boxes of @list below @parent (NULL: the root); returns its
 * first box. Consecutive storage nodes hold different tensors under the
 * same loops, so their order does not matter: they are shown outer level
 * first, one box per level. */
static DNode *
build_list (Diagram *d, const GPtrArray *list, DNode *parent)
{
  DNode *first = NULL, *last = parent;

  for (guint i = 0; i < list->len; )
    {
      const FfmMappingNode *node = g_ptr_array_index (list, i);
      DNode *n = NULL;

      if (node->kind == FFM_NODE_STORAGE)
        {
          g_autoptr (GArray) run = g_array_new (FALSE, FALSE, sizeof (StorageItem));
          for (; i < list->len; i++)
            {
              const FfmMappingNode *s = g_ptr_array_index (list, i);
              StorageItem item = { s, -1, run->len };
              if (s->kind != FFM_NODE_STORAGE)
                break;
              item.level = ffm_arch_find_level (d->arch, s->level);
              g_array_append_val (run, item);
            }
          g_array_sort (run, compare_storage);
          for (guint k = 0; k < run->len; k++)
            {
              const StorageItem *item = &g_array_index (run, StorageItem, k);
              if (n == NULL || n->level != item->level)
                {
                  n = dnode_new (d, D_STORAGE);
                  n->level = item->level;
                  n->srcs = g_ptr_array_new ();
                  if (last != NULL)
                    add_child (last, n);
                  if (first == NULL)
                    first = n;
                  last = n;
                }
              g_ptr_array_add (n->srcs, (gpointer) item->node);
            }
          continue;
        }
      i++;
      switch (node->kind)
        {
        case FFM_NODE_TEMPORAL:
          n = dnode_new (d, D_TEMPORAL);
          break;
        case FFM_NODE_SPATIAL:
          n = dnode_new (d, D_SPATIAL);
          n->level = ffm_arch_find_level (d->arch, node->level);
          break;
        case FFM_NODE_COMPUTE:
          n = dnode_new (d, D_COMPUTE);
          n->level = ffm_arch_find_level (d->arch, node->level);
          break;
        default:
          n = dnode_new (d, D_SPLIT);
          break;
        }
      n->src = node;
      if (last != NULL)
        add_child (last, n);
      if (first == NULL)
        first = n;
      last = n;
      if (node->kind == FFM_NODE_SEQUENTIAL && node->branches != NULL)
        for (guint b = 0; b < node->branches->len; b++)
          build_list (d, g_ptr_array_index (node->branches, b), n);
    }
  return first;
}

static guint
count_computes (DNode *n)
{
  n->n_computes = n->kind == D_COMPUTE;
  for (guint i = 0; i < n->children->len; i++)
    n->n_computes += count_computes (g_ptr_array_index (n->children, i));
  return n->n_computes;
}

/* The report's index of the Einsum computed at @n. */
static int
report_index (const Diagram *d, const char *einsum)
{
  for (guint i = 0; i < ffm_cost_report_get_n_einsums (d->report); i++)
    if (g_strcmp0 (ffm_workload_get_einsum (d->workload,
                                            ffm_cost_report_get_einsum (d->report, i))->name,
                   einsum) == 0)
      return (int) i;
  return -1;
}

/* The first compute leaf below @n. */
static const DNode *
first_compute (const DNode *n)
{
  while (n->kind != D_COMPUTE && n->children->len > 0)
    n = g_ptr_array_index (n->children, 0);
  return n->kind == D_COMPUTE ? n : NULL;
}

/* Iterations of every loop, from the first path through it (a loop shared
 * by fused Einsums has the same iterations in each). */
static void
set_iterations (Diagram *d)
{
  for (guint k = 0; k < d->all->len; k++)
    {
      DNode *leaf = g_ptr_array_index (d->all, k);
      g_autoptr (GPtrArray) path = g_ptr_array_new ();
      guint64 enclosing[FFM_MAX_EINSUM_RANK_VARS];
      const FfmEinsum *e;
      int w;

      if (leaf->kind != D_COMPUTE)
        continue;
      w = ffm_workload_find_einsum (d->workload, leaf->src->einsum);
      if (w < 0)
        continue;
      e = ffm_workload_get_einsum (d->workload, (guint) w);
      memcpy (enclosing, e->rank_var_bounds, sizeof enclosing);
      for (DNode *n = leaf; n != NULL; n = n->parent)
        g_ptr_array_insert (path, 0, n);
      for (guint i = 0; i < path->len; i++)
        {
          DNode *n = g_ptr_array_index (path, i);
          int v;
          if ((n->kind != D_TEMPORAL && n->kind != D_SPATIAL) || n->src->tile == 0)
            continue;
          v = ffm_einsum_find_rank_var (e, ffm_mapping_node_get_rank_var_for (n->src, e->name));
          if (v < 0)
            continue;
          if (n->iterations == 0)
            n->iterations = enclosing[v] / n->src->tile + (enclosing[v] % n->src->tile != 0);
          enclosing[v] = n->src->tile;
        }
    }
}

/* ---- Labels ---- */

static GArray *
new_line (DNode *n)
{
  GArray *line = g_array_new (FALSE, TRUE, sizeof (Span));

  g_array_set_clear_func (line, span_clear);
  g_ptr_array_add (n->lines, line);
  return line;
}

static void
add_span (GArray *line, const char *text, gboolean bold, guint32 colour)
{
  Span s = { g_strdup (text), bold, colour };

  g_array_append_val (line, s);
}

static guint
line_chars (const GArray *line)
{
  guint n = 0;

  for (guint i = 0; i < line->len; i++)
    n += (guint) g_utf8_strlen (g_array_index (line, Span, i).text, -1);
  return n;
}

static void
add_data (DNode *n, const char *key, const char *value)
{
  g_ptr_array_add (n->data, g_strdup (key));
  g_ptr_array_add (n->data, g_strdup (value));
}

/* TRUE when @tensor, a tensor passed between Einsums, is kept on chip and
 * backed at @level. */
static gboolean
passed_on_chip (const Diagram *d, const char *tensor, int level)
{
  for (guint i = 0; i < d->fusion->len; i++)
    {
      const FfmCliFusion *f = &g_array_index (d->fusion, FfmCliFusion, i);
      if (f->on_chip && f->level == level && strcmp (f->tensor, tensor) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
label_storage (Diagram *d, DNode *n)
{
  const FfmLevel *level = n->level >= 0 ? ffm_arch_get_level (d->arch, (guint) n->level) : NULL;
  const char *name = level != NULL ? level->name
    : ((const FfmMappingNode *) g_ptr_array_index (n->srcs, 0))->level;
  GString *all = g_string_new (NULL), *tip = g_string_new (NULL);
  GArray *line = new_line (n);
  guint count = 0;

  add_span (line, name, TRUE, INK);
  line = NULL;
  g_string_append_printf (tip, "%s keeps", name);
  for (guint s = 0; s < n->srcs->len; s++)
    {
      const FfmMappingNode *src = g_ptr_array_index (n->srcs, s);
      for (guint t = 0; src->tensors[t] != NULL; t++)
        {
          gboolean on_chip = passed_on_chip (d, src->tensors[t], n->level);
          g_autofree char *text = g_strdup_printf ("%s%s", src->tensors[t],
                                                   src->persistent ? "*" : "");
          guint chars = (guint) g_utf8_strlen (text, -1);
          if (line == NULL || (line->len > 0 && line_chars (line) + 2 + chars > WRAP))
            line = new_line (n);
          else if (line->len > 0)
            add_span (line, ", ", FALSE, INK);
          add_span (line, text, on_chip, on_chip ? ONCHIP : INK);
          g_string_append_printf (all, "%s%s", count ? "," : "", src->tensors[t]);
          g_string_append_printf (tip, "%s %s%s%s", count ? "," : "", src->tensors[t],
                                  src->persistent ? " (persistent)" : "",
                                  on_chip ? " (passed between Einsums on chip)" : "");
          count++;
        }
    }
  n->css = g_strdup ("node storage");
  add_data (n, "level", name);
  add_data (n, "tensors", all->str);
  n->tooltip = g_string_free (tip, FALSE);
  g_string_free (all, TRUE);
}

/* " (QK: p, AV: p)" for a loop whose rank variable has other names in
 * some Einsums, or "". */
static char *
renames (const FfmMappingNode *node)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; node->rank_var_einsums != NULL && node->rank_var_einsums[i] != NULL; i++)
    g_string_append_printf (out, "%s%s: %s", i ? ", " : "", node->rank_var_einsums[i],
                            node->rank_var_names[i]);
  return g_string_free (out, FALSE);
}

/* Instances used and instances there are of the fanout dimension of
 * spatial loop @n, for the first Einsum below it. */
static gboolean
spatial_usage (const Diagram *d, const DNode *n, guint64 *used, guint64 *count)
{
  const DNode *leaf = first_compute (n);
  const FfmPmappingModel *m;
  const FfmPmappingCost *c;
  const FfmLevel *level;
  int dim = -1;

  if (leaf == NULL || leaf->einsum < 0 || n->level < 0)
    return FALSE;
  level = ffm_arch_get_level (d->arch, (guint) n->level);
  if (level->kind != FFM_LEVEL_FANOUT)
    return FALSE;
  for (guint k = 0; k < level->u.fanout.n_dims; k++)
    if (g_strcmp0 (level->u.fanout.dims[k].name, n->src->dimension) == 0)
      dim = (int) k;
  if (dim < 0)
    return FALSE;
  m = ffm_cost_report_get_model (d->report, (guint) leaf->einsum);
  c = ffm_cost_report_get_cost (d->report, (guint) leaf->einsum);
  for (guint k = 0; k < ffm_pmapping_model_get_n_fanout_dims (m); k++)
    {
      const FfmFanoutDimInfo *info = ffm_pmapping_model_get_fanout_dim (m, k);
      if ((int) info->level == n->level && (int) info->dim == dim)
        {
          *used = c->fanout_used[k];
          *count = info->count;
          return TRUE;
        }
    }
  return FALSE;
}

static void
label_loop (Diagram *d, DNode *n)
{
  const FfmMappingNode *src = n->src;
  gboolean spatial = n->kind == D_SPATIAL;
  g_autofree char *other = renames (src);
  g_autofree char *tile = NULL, *first = NULL, *iter = NULL;
  GString *tip = g_string_new (NULL);
  GArray *line = new_line (n);

  tile = g_strdup_printf ("%" G_GUINT64_FORMAT, src->tile);
  iter = g_strdup_printf ("%" G_GUINT64_FORMAT, n->iterations);
  if (n->iterations > 0)
    first = g_strdup_printf ("%s %s tile %s \u00d7%s", spatial ? "S-for" : "for",
                             src->rank_var, tile, iter);
  else
    first = g_strdup_printf ("%s %s tile %s", spatial ? "S-for" : "for", src->rank_var, tile);
  add_span (line, first, n->fused, n->fused ? FUSED_STROKE : INK);
  g_string_append_printf (tip, "%s%s loop over %s, tile %s", n->fused ? "fused " : "",
                          spatial ? "spatial" : "temporal", src->rank_var, tile);
  if (n->iterations > 0)
    g_string_append_printf (tip, ", %s %s", iter, spatial ? "instances" : "iterations");
  if (src->remainder != 0)
    {
      g_autofree char *rem = g_strdup_printf ("remainder %" G_GUINT64_FORMAT, src->remainder);
      add_span (new_line (n), rem, FALSE, GREY);
      g_string_append_printf (tip, ", %s", rem);
    }
  if (*other != '\0')
    {
      add_span (new_line (n), other, FALSE, GREY);
      g_string_append_printf (tip, " (%s)", other);
    }
  if (spatial)
    {
      g_autofree char *where = g_strdup_printf ("%s.%s", src->level, src->dimension);
      guint64 used = 0, count = 0;
      add_span (new_line (n), where, FALSE, SPATIAL_STROKE);
      g_string_append_printf (tip, " across %s", where);
      if (spatial_usage (d, n, &used, &count) && count > 0)
        {
          g_autofree char *u = g_strdup_printf ("%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                                                " used (%.1f%%)", used, count,
                                                100.0 * (double) used / (double) count);
          g_autofree char *us = g_strdup_printf ("%" G_GUINT64_FORMAT, used);
          g_autofree char *cs = g_strdup_printf ("%" G_GUINT64_FORMAT, count);
          add_span (new_line (n), u, FALSE, SPATIAL_STROKE);
          g_string_append_printf (tip, "; the dimension has %s of %s instances in use", us, cs);
          add_data (n, "used", us);
          add_data (n, "count", cs);
        }
    }
  n->css = g_strdup (spatial ? (n->fused ? "node spatial fused" : "node spatial")
                             : (n->fused ? "node loop fused" : "node loop"));
  add_data (n, "rank-var", src->rank_var);
  add_data (n, "tile", tile);
  if (n->iterations > 0)
    add_data (n, "iterations", iter);
  add_data (n, "fused", n->fused ? "true" : "false");
  if (n->fused)
    g_string_append (tip, "; shared by the Einsums below (fused)");
  n->tooltip = g_string_free (tip, FALSE);
}

static void
label_compute (Diagram *d, DNode *n)
{
  g_autofree char *first = g_strdup_printf ("%s on %s", n->src->einsum, n->src->level);
  GString *tip = g_string_new (NULL);

  add_span (new_line (n), first, TRUE, INK);
  g_string_append_printf (tip, "Einsum %s computed on %s", n->src->einsum, n->src->level);
  if (n->einsum >= 0)
    {
      const FfmPmappingCost *c = ffm_cost_report_get_cost (d->report, (guint) n->einsum);
      double busy = ffm_cost_report_get_compute_utilization (d->report, (guint) n->einsum);
      g_autofree char *energy = ffm_format_si (c->energy, "J");
      g_autofree char *latency = ffm_format_si (c->latency, "s");
      g_autofree char *both = g_strdup_printf ("%s, %s", energy, latency);
      add_span (new_line (n), both, FALSE, INK);
      g_string_append_printf (tip, ": energy %s, latency %s", energy, latency);
      if (!isnan (busy))
        {
          g_autofree char *b = g_strdup_printf ("busy %.1f%%", 100 * busy);
          add_span (new_line (n), b, FALSE, GREY);
          g_string_append_printf (tip, ", compute busy %.1f %%", 100 * busy);
        }
      if (c->status != FFM_COST_VALID)
        add_span (new_line (n), ffm_cost_status_to_string (c->status), TRUE, 0xc00000);
    }
  n->css = g_strdup ("node compute");
  add_data (n, "einsum", n->src->einsum);
  n->tooltip = g_string_free (tip, FALSE);
}

static void
label (Diagram *d, DNode *n)
{
  switch (n->kind)
    {
    case D_STORAGE:
      label_storage (d, n);
      break;
    case D_TEMPORAL:
    case D_SPATIAL:
      label_loop (d, n);
      break;
    case D_COMPUTE:
      label_compute (d, n);
      break;
    case D_SPLIT:
      add_span (new_line (n), "split", TRUE, 0xffffff);
      n->css = g_strdup ("node split");
      n->tooltip = g_strdup_printf ("split: its %u branches run one after another, under "
                                    "the loops above", n->children->len);
      break;
    }
  {
    guint chars = 0;
    for (guint i = 0; i < n->lines->len; i++)
      chars = MAX (chars, line_chars (g_ptr_array_index (n->lines, i)));
    n->w = chars * FFM_CANVAS_CHAR_WIDTH * FONT + 2 * PAD_X;
    n->h = n->lines->len * LINE_HEIGHT + 2 * PAD_Y;
  }
}

/* ---- Building ---- */

static void
diagram_clear (Diagram *d)
{
  g_ptr_array_unref (d->all);
  g_array_unref (d->band_levels);
  g_array_unref (d->fusion);
}

static int
compare_ints (gconstpointer a, gconstpointer b)
{
  return *(const int *) a - *(const int *) b;
}

static void
diagram_build (Diagram *d, const FfmCostReport *report)
{
  const FfmMapping *mapping = ffm_cost_report_get_mapping (report);
  int compute_band = -1;

  d->report = report;
  d->workload = ffm_cost_report_get_workload (report);
  d->arch = ffm_cost_report_get_arch (report);
  d->all = g_ptr_array_new_with_free_func (dnode_free);
  d->fusion = ffm_cli_report_fusion_decisions (report);
  d->root = build_list (d, ffm_mapping_peek_root (mapping), NULL);
  count_computes (d->root);
  set_iterations (d);
  /* The bands: every memory some storage box keeps, outer first. */
  d->band_levels = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint i = 0; i < d->all->len; i++)
    {
      DNode *n = g_ptr_array_index (d->all, i);
      gboolean known = FALSE;
      if (n->kind == D_COMPUTE)
        n->einsum = report_index (d, n->src->einsum);
      if ((n->kind == D_TEMPORAL || n->kind == D_SPATIAL) && n->n_computes > 1)
        n->fused = TRUE;
      if (n->kind != D_STORAGE)
        continue;
      for (guint k = 0; k < d->band_levels->len; k++)
        known |= g_array_index (d->band_levels, int, k) == n->level;
      if (!known)
        g_array_append_val (d->band_levels, n->level);
    }
  g_array_sort (d->band_levels, compare_ints);
  g_array_append_val (d->band_levels, compute_band);
  for (guint i = 0; i < d->all->len; i++)
    label (d, g_ptr_array_index (d->all, i));
}

/* ---- Rows ---- */

static int
band_of_level (const Diagram *d, int level)
{
  for (guint k = 0; k + 1 < d->band_levels->len; k++)
    if (g_array_index (d->band_levels, int, k) == level)
      return (int) k;
  return 0;
}

/* The band and row of @n and its subtree, below a parent in band
 * @parent_band whose next row is @next_row: a box goes to its own level's
 * band when that is further in than its parent's, else stays in the
 * parent's band on the next row. */
static void
assign_rows (const Diagram *d, DNode *n, int parent_band, guint next_row)
{
  int own = n->kind == D_STORAGE ? band_of_level (d, n->level)
    : n->kind == D_COMPUTE ? (int) d->band_levels->len - 1 : -1;

  if (own > parent_band)
    {
      n->band = own;
      n->row = 0;
    }
  else
    {
      n->band = parent_band;
      n->row = next_row;
    }
  for (guint i = 0; i < n->children->len; i++)
    assign_rows (d, g_ptr_array_index (n->children, i), n->band, n->row + 1);
}

/* ---- Columns ---- */

/* The extents of @n's subtree relative to its box's centre; children
 * side by side, the box centred over its first and last child. */
static void
measure (DNode *n)
{
  double *pos;
  double centre;

  n->l = -n->w / 2;
  n->r = n->w / 2;
  if (n->children->len == 0)
    return;
  pos = g_new (double, n->children->len);
  for (guint i = 0; i < n->children->len; i++)
    {
      DNode *c = g_ptr_array_index (n->children, i);
      measure (c);
      if (i == 0)
        pos[i] = 0;
      else
        {
          DNode *prev = g_ptr_array_index (n->children, i - 1);
          pos[i] = pos[i - 1] + prev->r + SIBLING_GAP - c->l;
        }
    }
  centre = (pos[0] + pos[n->children->len - 1]) / 2;
  for (guint i = 0; i < n->children->len; i++)
    {
      DNode *c = g_ptr_array_index (n->children, i);
      n->l = MIN (n->l, pos[i] - centre + c->l);
      n->r = MAX (n->r, pos[i] - centre + c->r);
    }
  g_free (pos);
}

/* Absolute centres from @n's centre @cx. */
static void
place (DNode *n, double cx)
{
  double x;
  double first_centre = 0, last_centre = 0;

  n->cx = cx;
  if (n->children->len == 0)
    return;
  /* The same arithmetic as measure(): the children's centres relative to
   * the first, then shifted so that their middle is cx. */
  x = 0;
  for (guint i = 0; i < n->children->len; i++)
    {
      DNode *c = g_ptr_array_index (n->children, i);
      if (i > 0)
        {
          DNode *prev = g_ptr_array_index (n->children, i - 1);
          x += prev->r + SIBLING_GAP - c->l;
        }
      if (i == 0)
        first_centre = x;
      last_centre = x;
    }
  x = 0;
  for (guint i = 0; i < n->children->len; i++)
    {
      DNode *c = g_ptr_array_index (n->children, i);
      if (i > 0)
        {
          DNode *prev = g_ptr_array_index (n->children, i - 1);
          x += prev->r + SIBLING_GAP - c->l;
        }
      place (c, cx + x - (first_centre + last_centre) / 2);
    }
}

/* ---- Parts ---- */

/* The split where the diagram folds: the first box on the root's chain
 * with more than one child, or NULL. */
static DNode *
fold_point (DNode *root)
{
  for (DNode *n = root; n != NULL; n = n->children->len == 1
                                         ? g_ptr_array_index (n->children, 0) : NULL)
    if (n->children->len > 1)
      return n;
  return NULL;
}

/* ---- Drawing ---- */

typedef struct {
  Diagram *d;
  FfmCanvas *canvas;
  double width;                 /* of the canvas */
  double gutter;                /* the band labels' column */
} Drawing;

/* One more than the largest row of @n's subtree. */
static guint
count_rows (const DNode *n)
{
  guint rows = n->row + 1;

  for (guint i = 0; i < n->children->len; i++)
    rows = MAX (rows, count_rows (g_ptr_array_index (n->children, i)));
  return rows;
}

/* The height of each (band, row), at heights[band * @stride + row]. */
static void
collect_rows (const DNode *n, double *heights, guint *n_rows, guint n_bands, guint stride)
{
  if ((guint) n->band < n_bands)
    {
      double *h = &heights[(gsize) n->band * stride + n->row];
      *h = MAX (*h, n->h);
      n_rows[n->band] = MAX (n_rows[n->band], n->row + 1);
    }
  for (guint i = 0; i < n->children->len; i++)
    collect_rows (g_ptr_array_index (n->children, i), heights, n_rows, n_bands, stride);
}

static void
set_tops (DNode *n, const double *row_top, guint n_bands, guint stride)
{
  if ((guint) n->band < n_bands)
    n->y = row_top[(gsize) n->band * stride + n->row];
  for (guint i = 0; i < n->children->len; i++)
    set_tops (g_ptr_array_index (n->children, i), row_top, n_bands, stride);
}

static guint32
storage_colour (const Diagram *d, int band)
{
  return band == (int) d->band_levels->len - 1 ? COMPUTE_FILL
    : storage_fill[(guint) band % G_N_ELEMENTS (storage_fill)];
}

static void
draw_box (Drawing *g, const DNode *n)
{
  FfmCanvas *c = g->canvas;
  double x = n->cx - n->w / 2;
  guint32 fill = 0xffffff, stroke = 0x555555;
  double stroke_width = 1;

  switch (n->kind)
    {
    case D_STORAGE:
      fill = storage_colour (g->d, band_of_level (g->d, n->level));
      break;
    case D_TEMPORAL:
      break;
    case D_SPATIAL:
      fill = SPATIAL_FILL;
      stroke = SPATIAL_STROKE;
      break;
    case D_COMPUTE:
      fill = COMPUTE_FILL;
      break;
    case D_SPLIT:
      fill = 0x6b6b6b;
      stroke = 0x6b6b6b;
      break;
    }
  if (n->fused)
    {
      fill = FUSED_FILL;
      stroke = FUSED_STROKE;
      stroke_width = 2.5;
    }
  ffm_canvas_begin_group (c, n->css, n->tooltip);
  for (guint k = 0; k + 1 < n->data->len; k += 2)
    ffm_canvas_group_data (c, n->data->pdata[k], n->data->pdata[k + 1]);
  ffm_canvas_rect (c, x, n->y, n->w, n->h, n->kind == D_SPLIT ? n->h / 2 : 4, fill, stroke,
                   stroke_width, FALSE);
  for (guint i = 0; i < n->lines->len; i++)
    {
      const GArray *line = g_ptr_array_index (n->lines, i);
      double tx = n->kind == D_STORAGE || n->kind == D_COMPUTE || n->kind == D_SPLIT
        ? n->cx - line_chars (line) * FFM_CANVAS_CHAR_WIDTH * FONT / 2 : x + PAD_X;
      double ty = n->y + PAD_Y + (i + 1) * LINE_HEIGHT - 3.5;
      for (guint s = 0; s < line->len; s++)
        {
          const Span *span = &g_array_index (line, Span, s);
          ffm_canvas_text (c, tx, ty, span->text, FONT, span->bold || (i == 0 && s == 0
                                                                       && n->kind == D_SPLIT),
                           span->colour, FFM_CANVAS_START);
          tx += ffm_canvas_text_width (span->text, FONT);
        }
    }
  ffm_canvas_end_group (c);
}

static void
draw_edges (Drawing *g, const DNode *n)
{
  double bottom = n->y + n->h;

  if (n->children->len == 1)
    {
      const DNode *c = g_ptr_array_index (n->children, 0);
      ffm_canvas_line (g->canvas, n->cx, bottom, c->cx, c->y, 0x555555, 1.2, FALSE);
    }
  else if (n->children->len > 1)
    {
      const DNode *first = g_ptr_array_index (n->children, 0);
      const DNode *last = g_ptr_array_index (n->children, n->children->len - 1);
      double bus = bottom + ROW_GAP / 2;
      ffm_canvas_line (g->canvas, n->cx, bottom, n->cx, bus, 0x555555, 1.2, FALSE);
      ffm_canvas_line (g->canvas, first->cx, bus, last->cx, bus, 0x555555, 1.2, FALSE);
      for (guint i = 0; i < n->children->len; i++)
        {
          const DNode *c = g_ptr_array_index (n->children, i);
          ffm_canvas_line (g->canvas, c->cx, bus, c->cx, c->y, 0x555555, 1.2, FALSE);
        }
    }
  for (guint i = 0; i < n->children->len; i++)
    draw_edges (g, g_ptr_array_index (n->children, i));
}

/* The bottom of @n's subtree (its lowest box). */
static double
subtree_bottom (const DNode *n)
{
  double b = n->y + n->h;

  for (guint i = 0; i < n->children->len; i++)
    b = MAX (b, subtree_bottom (g_ptr_array_index (n->children, i)));
  return b;
}

/* A dashed frame around each Einsum's own subtree (the boxes below the
 * last split above its compute). */
static void
draw_frames (Drawing *g, const DNode *n, gboolean inside)
{
  if (!inside && n->n_computes == 1 && n->parent != NULL)
    {
      const DNode *leaf = first_compute (n);
      g_autofree char *tip = g_strdup_printf ("Einsum %s: its own loops and storage",
                                              leaf != NULL ? leaf->src->einsum : "?");
      ffm_canvas_begin_group (g->canvas, "einsum-frame", tip);
      if (leaf != NULL)
        ffm_canvas_group_data (g->canvas, "einsum", leaf->src->einsum);
      ffm_canvas_rect (g->canvas, n->cx + n->l - FRAME_PAD, n->y - FRAME_PAD,
                       n->r - n->l + 2 * FRAME_PAD, subtree_bottom (n) - n->y + 2 * FRAME_PAD,
                       6, FFM_CANVAS_NONE, FRAME, 1, TRUE);
      ffm_canvas_end_group (g->canvas);
      inside = TRUE;
    }
  for (guint i = 0; i < n->children->len; i++)
    draw_frames (g, g_ptr_array_index (n->children, i), inside);
}

static void
draw_boxes (Drawing *g, const DNode *n)
{
  draw_box (g, n);
  for (guint i = 0; i < n->children->len; i++)
    draw_boxes (g, g_ptr_array_index (n->children, i));
}

static const char *
band_name (const Diagram *d, guint band)
{
  int level = g_array_index (d->band_levels, int, band);

  return level >= 0 ? ffm_arch_get_level (d->arch, (guint) level)->name : "compute";
}

/* Lays out and draws one part, its top at @top; returns its bottom. When
 * @draw is FALSE only measures (the canvas's width is not known yet). */
static double
draw_part (Drawing *g, DNode *root, int base_band, double top, const char *heading,
           gboolean draw, double *width)
{
  Diagram *d = g->d;
  guint n_bands = d->band_levels->len, stride;
  g_autofree double *heights = NULL, *row_top = NULL;
  g_autofree guint *n_rows = g_new0 (guint, n_bands);
  g_autofree double *band_top = g_new0 (double, n_bands + 1);
  double y = top;

  if (heading != NULL)
    {
      if (draw)
        ffm_canvas_text (g->canvas, MARGIN, y + 14, heading, 12, TRUE, INK, FFM_CANVAS_START);
      y += 22;
    }
  assign_rows (d, root, base_band, 0);
  measure (root);
  place (root, g->gutter + MARGIN - root->l);
  *width = g->gutter + MARGIN + (root->r - root->l) + MARGIN;
  /* Rows are at most the boxes of a chain: bounded by the mapping. */
  stride = count_rows (root);
  heights = g_new0 (double, (gsize) n_bands * stride);
  row_top = g_new0 (double, (gsize) n_bands * stride);
  collect_rows (root, heights, n_rows, n_bands, stride);
  for (guint b = 0; b < n_bands; b++)
    {
      band_top[b] = y;
      if (n_rows[b] == 0)
        {
          y += EMPTY_BAND;
          continue;
        }
      y += BAND_PAD;
      for (guint r = 0; r < n_rows[b]; r++)
        {
          row_top[(gsize) b * stride + r] = y;
          y += heights[(gsize) b * stride + r] + (r + 1 < n_rows[b] ? ROW_GAP : 0);
        }
      y += BAND_PAD + (b + 1 < n_bands ? ROW_GAP / 2 : 0);
    }
  band_top[n_bands] = y;
  set_tops (root, row_top, n_bands, stride);
  if (!draw)
    return y;
  for (guint b = 0; b < n_bands; b++)
    {
      gboolean compute = b + 1 == n_bands;
      ffm_canvas_begin_group (g->canvas, "band", NULL);
      ffm_canvas_group_data (g->canvas, "level", band_name (d, b));
      ffm_canvas_rect (g->canvas, 0, band_top[b], g->width, band_top[b + 1] - band_top[b], 0,
                       compute ? COMPUTE_BAND : band_fill[b % G_N_ELEMENTS (band_fill)],
                       FFM_CANVAS_NONE, 0, FALSE);
      ffm_canvas_text (g->canvas, MARGIN, MIN (band_top[b] + 17, band_top[b + 1] - 3),
                       band_name (d, b), FONT, TRUE, GREY, FFM_CANVAS_START);
      ffm_canvas_end_group (g->canvas);
    }
  draw_frames (g, root, FALSE);
  draw_edges (g, root);
  draw_boxes (g, root);
  return y;
}

/* The legend, its top at @top; returns its bottom. */
static double
draw_legend (Drawing *g, double top, gboolean draw)
{
  static const struct {
    const char *text;
    guint32 fill, stroke;
    double width;
    gboolean dashed;
  } keys[] = {
    { "storage: a memory and the tensors it keeps", 0xc4dcf3, 0x555555, 1, FALSE },
    { "for: a loop (rank variable, tile, \u00d7iterations)", 0xffffff, 0x555555, 1, FALSE },
    { "S-for: a spatial loop (fanout dimension, instances used)", SPATIAL_FILL,
      SPATIAL_STROKE, 1, FALSE },
    { "fused loop: shared by the Einsums below a split", FUSED_FILL, FUSED_STROKE, 2.5, FALSE },
    { "one Einsum's own subtree", FFM_CANVAS_NONE, FRAME, 1, TRUE },
  };
  double x = MARGIN, y = top;

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      double w = 22 + 6 + ffm_canvas_text_width (keys[i].text, FONT) + 18;
      if (x > MARGIN && x + w > g->width - MARGIN)
        {
          x = MARGIN;
          y += 20;
        }
      if (draw)
        {
          ffm_canvas_rect (g->canvas, x, y, 22, 13, 3, keys[i].fill, keys[i].stroke,
                           keys[i].width, keys[i].dashed);
          ffm_canvas_text (g->canvas, x + 28, y + 11, keys[i].text, FONT, FALSE, INK,
                           FFM_CANVAS_START);
        }
      x += w;
    }
  y += 20;
  if (draw)
    {
      ffm_canvas_text (g->canvas, MARGIN, y + 11, "Tensor", FONT, FALSE, INK, FFM_CANVAS_START);
      ffm_canvas_text (g->canvas, MARGIN + ffm_canvas_text_width ("Tensor ", FONT), y + 11, "T",
                       FONT, TRUE, ONCHIP, FFM_CANVAS_START);
      ffm_canvas_text (g->canvas, MARGIN + ffm_canvas_text_width ("Tensor T ", FONT), y + 11,
                       "passed between Einsums and kept on chip (at its backing memory); "
                       "T* persistent; bands: the memory kept innermost above a node",
                       FONT, FALSE, INK, FFM_CANVAS_START);
    }
  return y + 20;
}

static char *
default_title (const FfmCostReport *report)
{
  g_autofree char *energy = ffm_format_si (ffm_cost_report_get_energy (report), "J");
  g_autofree char *latency = ffm_format_si (ffm_cost_report_get_latency (report), "s");
  g_autofree char *edp = ffm_format_si (ffm_cost_report_get_edp (report), "J*s");

  return g_strdup_printf ("Mapping of %s on %s: energy %s, latency %s, EDP %s",
                          ffm_workload_get_name (ffm_cost_report_get_workload (report)),
                          ffm_arch_get_name (ffm_cost_report_get_arch (report)),
                          energy, latency, edp);
}

/* The branches of @split in parts no wider than the maximum (each at
 * least one branch): the index of the first branch of each part, and the
 * end. */
static GArray *
fold (DNode *split, double gutter)
{
  GArray *starts = g_array_new (FALSE, FALSE, sizeof (guint));
  double used = 0;
  guint zero = 0;

  g_array_append_val (starts, zero);
  for (guint i = 0; i < split->children->len; i++)
    {
      DNode *c = g_ptr_array_index (split->children, i);
      double w = c->r - c->l + SIBLING_GAP;
      if (i > 0 && gutter + 2 * MARGIN + used + w > FFM_DIAGRAM_MAX_WIDTH)
        {
          g_array_append_val (starts, i);
          used = 0;
        }
      used += w;
    }
  g_array_append_val (starts, split->children->len);
  return starts;
}

FfmCanvas *
ffm_diagram_draw (const FfmCostReport *report, const char *title)
{
  Diagram d = { 0 };
  Drawing g = { 0 };
  g_autofree char *default_text = title == NULL ? default_title (report) : NULL;
  g_autoptr (GArray) starts = NULL;
  g_autoptr (GPtrArray) full = NULL;
  DNode *split;
  double gutter_chars = 0, width = 0, y;
  guint n_parts = 1;

  diagram_build (&d, report);
  g.d = &d;
  for (guint b = 0; b < d.band_levels->len; b++)
    gutter_chars = MAX (gutter_chars, g_utf8_strlen (band_name (&d, b), -1));
  g.gutter = gutter_chars * FFM_CANVAS_CHAR_WIDTH * FONT + 8;
  measure (d.root);
  split = fold_point (d.root);
  if (split != NULL && g.gutter + 2 * MARGIN + d.root->r - d.root->l > FFM_DIAGRAM_MAX_WIDTH)
    {
      starts = fold (split, g.gutter);
      n_parts = starts->len - 1;
    }
  if (n_parts > 1)
    full = g_ptr_array_ref (split->children);

  /* Two passes: measure every part for the canvas's width, then draw. */
  g.canvas = ffm_canvas_new (1, 1);
  ffm_canvas_set_title (g.canvas, title != NULL ? title : default_text);
  for (int pass = 0; pass < 2; pass++)
    {
      y = MARGIN;
      if (pass == 1)
        ffm_canvas_text (g.canvas, MARGIN, y + 14, title != NULL ? title : default_text, 14,
                         TRUE, INK, FFM_CANVAS_START);
      y += 26;
      for (guint p = 0; p < n_parts; p++)
        {
          DNode *root = d.root;
          DNode *stub = NULL;
          g_autofree char *heading = NULL;
          double part_width = 0;
          if (n_parts > 1)
            {
              guint a = g_array_index (starts, guint, p), b = g_array_index (starts, guint, p + 1);
              GPtrArray *subset = g_ptr_array_new ();
              const DNode *first = first_compute (g_ptr_array_index (full, a));
              const DNode *last = first_compute (g_ptr_array_index (full, b - 1));
              for (guint i = a; i < b; i++)
                g_ptr_array_add (subset, g_ptr_array_index (full, i));
              heading = g_strdup_printf ("Part %u of %u: branches %u to %u of %u of the "
                                         "split (Einsums %s to %s)", p + 1, n_parts, a + 1, b,
                                         full->len, first != NULL ? first->src->einsum : "?",
                                         last != NULL ? last->src->einsum : "?");
              if (p == 0)
                {
                  g_ptr_array_unref (split->children);
                  split->children = subset;
                }
              else
                {
                  /* A stub in the split's band stands for everything above. */
                  stub = dnode_new (&d, D_SPLIT);
                  g_ptr_array_unref (stub->children);
                  stub->children = subset;
                  add_span (new_line (stub), "split, continued from part 1", TRUE, 0xffffff);
                  stub->css = g_strdup ("stub");
                  stub->tooltip = g_strdup ("the split of part 1 and everything above it");
                  stub->w = 28 * FFM_CANVAS_CHAR_WIDTH * FONT + 2 * PAD_X;
                  stub->h = LINE_HEIGHT + 2 * PAD_Y;
                  root = stub;
                }
            }
          /* A stub stands in the split's band. */
          y = draw_part (&g, root, stub != NULL ? split->band : 0, y, heading, pass == 1,
                         &part_width) + PART_GAP;
          width = MAX (width, part_width);
          if (n_parts > 1 && p == 0)
            {
              g_ptr_array_unref (split->children);
              split->children = g_ptr_array_ref (full);
            }
        }
      if (pass == 0)
        {
          g.width = MAX (width, 720);
          y = draw_legend (&g, y, FALSE);
          ffm_canvas_set_size (g.canvas, g.width, y + MARGIN);
        }
      else
        draw_legend (&g, y, TRUE);
    }
  diagram_clear (&d);
  return g.canvas;
}

/* ---- DOT ---- */

/* @text as a DOT string's contents (quotes and backslashes escaped). */
static void
append_dot_escaped (GString *out, const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (out, '\\');
      if ((guchar) *p < 0x20)
        g_string_append_c (out, ' ');
      else
        g_string_append_c (out, *p);
    }
}

static void
dot_node (const Diagram *d, GString *out, const DNode *n, GHashTable *ids, gboolean inside,
          const char *indent)
{
  guint id = GPOINTER_TO_UINT (g_hash_table_lookup (ids, n));
  gboolean frame = !inside && n->n_computes == 1 && n->parent != NULL;
  g_autofree char *deeper = g_strconcat (indent, "  ", NULL);
  guint32 fill = 0xffffff, stroke = 0x555555;

  if (frame)
    {
      const DNode *leaf = first_compute (n);
      g_string_append_printf (out, "%ssubgraph cluster_%u {\n%s  label=\"Einsum ", indent, id,
                              indent);
      append_dot_escaped (out, leaf != NULL ? leaf->src->einsum : "?");
      g_string_append_printf (out, "\"; style=dashed; color=\"#%06x\";\n", FRAME);
      indent = deeper;
      inside = TRUE;
    }
  switch (n->kind)
    {
    case D_STORAGE:
      fill = storage_colour (d, band_of_level (d, n->level));
      break;
    case D_SPATIAL:
      fill = SPATIAL_FILL;
      stroke = SPATIAL_STROKE;
      break;
    case D_COMPUTE:
      fill = COMPUTE_FILL;
      break;
    case D_SPLIT:
      fill = 0x6b6b6b;
      break;
    default:
      break;
    }
  if (n->fused)
    {
      fill = FUSED_FILL;
      stroke = FUSED_STROKE;
    }
  g_string_append_printf (out, "%sn%u [label=\"", indent, id);
  for (guint i = 0; i < n->lines->len; i++)
    {
      const GArray *line = g_ptr_array_index (n->lines, i);
      for (guint s = 0; s < line->len; s++)
        append_dot_escaped (out, g_array_index (line, Span, s).text);
      g_string_append (out, i + 1 < n->lines->len ? "\\n" : "");
    }
  g_string_append_printf (out, "\", fillcolor=\"#%06x\", color=\"#%06x\"%s%s, tooltip=\"",
                          fill, stroke, n->fused ? ", penwidth=2.5" : "",
                          n->kind == D_SPLIT ? ", fontcolor=\"#ffffff\"" : "");
  append_dot_escaped (out, n->tooltip != NULL ? n->tooltip : "");
  g_string_append (out, " [band: ");
  append_dot_escaped (out, band_name (d, (guint) n->band));
  g_string_append (out, "]\"];\n");
  for (guint i = 0; i < n->children->len; i++)
    dot_node (d, out, g_ptr_array_index (n->children, i), ids, inside, indent);
  if (frame)
    g_string_append_printf (out, "%.*s}\n", (int) strlen (indent) - 2, indent);
}

static void
dot_edges (GString *out, const DNode *n, GHashTable *ids)
{
  for (guint i = 0; i < n->children->len; i++)
    {
      const DNode *c = g_ptr_array_index (n->children, i);
      g_string_append_printf (out, "  n%u -> n%u;\n",
                              GPOINTER_TO_UINT (g_hash_table_lookup (ids, n)),
                              GPOINTER_TO_UINT (g_hash_table_lookup (ids, c)));
      dot_edges (out, c, ids);
    }
}

char *
ffm_diagram_to_dot (const FfmCostReport *report, const char *title)
{
  Diagram d = { 0 };
  g_autoptr (GHashTable) ids = g_hash_table_new (NULL, NULL);
  g_autofree char *default_text = title == NULL ? default_title (report) : NULL;
  GString *out = g_string_new (NULL);

  diagram_build (&d, report);
  assign_rows (&d, d.root, 0, 0);
  for (guint i = 0; i < d.all->len; i++)
    g_hash_table_insert (ids, g_ptr_array_index (d.all, i), GUINT_TO_POINTER (i));
  g_string_append (out, "// The LoopTree of an ffm mapping (ffm-diagram.h): render with\n"
                   "// dot -Tsvg. The memory band of each node is in its tooltip.\n"
                   "digraph mapping {\n  label=\"");
  append_dot_escaped (out, title != NULL ? title : default_text);
  g_string_append (out, "\";\n  labelloc=t;\n  rankdir=TB;\n"
                   "  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans Mono\", "
                   "fontsize=10];\n  edge [arrowhead=none, color=\"#555555\"];\n");
  dot_node (&d, out, d.root, ids, FALSE, "  ");
  dot_edges (out, d.root, ids);
  g_string_append (out, "}\n");
  diagram_clear (&d);
  return g_string_free (out, FALSE);
}

/* ---- Files ---- */

gboolean
ffm_diagram_check_path (const char *path, const char *option, GError **error)
{
  return ffm_canvas_check_path (path, option, error);
}

gboolean
ffm_diagram_write (const FfmCostReport *report, const char *title, const char *path,
                   GError **error)
{
  g_autoptr (FfmCanvas) canvas = ffm_diagram_draw (report, title);

  return ffm_canvas_write (canvas, path, "--diagram", error);
}

gboolean
ffm_diagram_write_dot (const FfmCostReport *report, const char *title, const char *path,
                       GError **error)
{
  g_autofree char *dot = ffm_diagram_to_dot (report, title);
  g_autoptr (GError) local = NULL;

  if (!ffm_output_file_write (path, dot, -1, &local))
    {
      g_set_error (error, G_FILE_ERROR, local->code, "--diagram-dot: %s", local->message);
      return FALSE;
    }
  return TRUE;
}
