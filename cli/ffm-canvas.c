/* ffm-canvas.c: shapes written as SVG or rendered with cairo
 * (ffm-canvas.h). */
#include "ffm-canvas.h"

#include <ffm/ffm.h>
#include <math.h>
#include <string.h>

#ifdef FFM_HAVE_CAIRO
#include <cairo.h>
#include <cairo-pdf.h>
#endif

G_DEFINE_QUARK (ffm-canvas-error-quark, ffm_canvas_error)

/* The font the layout's character width is measured on, then its
 * stand-ins (all close to 0.6 em per character). */
#define FONT_FAMILY "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace"

typedef enum {
  ITEM_RECT,
  ITEM_POLY,
  ITEM_TEXT,
  ITEM_BEGIN,
  ITEM_END,
} ItemKind;

typedef struct {
  ItemKind kind;
  double x, y, w, h, radius;    /* RECT; TEXT uses x, y */
  guint32 fill, stroke;
  double stroke_width;
  gboolean dashed;
  double *xy;                   /* POLY: 2 n (owned) */
  guint n;
  char *text;                   /* TEXT (owned) */
  double size;
  gboolean bold;
  FfmCanvasAnchor anchor;
  char *css_class, *tooltip;    /* BEGIN (owned) */
  GPtrArray *data;              /* BEGIN: key, value, ... (owned strings) */
} Item;

struct _FfmCanvas {
  double width, height;
  char *title;
  GArray *items;                /* of Item */
  int open_groups;
};

static void
item_clear (gpointer data)
{
  Item *it = data;

  g_free (it->xy);
  g_free (it->text);
  g_free (it->css_class);
  g_free (it->tooltip);
  if (it->data != NULL)
    g_ptr_array_unref (it->data);
}

FfmCanvas *
ffm_canvas_new (double width, double height)
{
  FfmCanvas *c = g_new0 (FfmCanvas, 1);

  c->width = width;
  c->height = height;
  c->items = g_array_new (FALSE, TRUE, sizeof (Item));
  g_array_set_clear_func (c->items, item_clear);
  return c;
}

void
ffm_canvas_free (FfmCanvas *c)
{
  if (c == NULL)
    return;
  g_array_unref (c->items);
  g_free (c->title);
  g_free (c);
}

void
ffm_canvas_set_size (FfmCanvas *c, double width, double height)
{
  c->width = width;
  c->height = height;
}

double
ffm_canvas_get_width (const FfmCanvas *c)
{
  return c->width;
}

double
ffm_canvas_get_height (const FfmCanvas *c)
{
  return c->height;
}

void
ffm_canvas_set_title (FfmCanvas *c, const char *title)
{
  g_free (c->title);
  c->title = g_strdup (title);
}

double
ffm_canvas_text_width (const char *text, double size)
{
  return text == NULL ? 0
    : (double) g_utf8_strlen (text, -1) * FFM_CANVAS_CHAR_WIDTH * size;
}

static Item *
add (FfmCanvas *c, ItemKind kind)
{
  Item it = { 0 };

  it.kind = kind;
  g_array_append_val (c->items, it);
  return &g_array_index (c->items, Item, c->items->len - 1);
}

void
ffm_canvas_rect (FfmCanvas *c, double x, double y, double width, double height,
                 double radius, guint32 fill, guint32 stroke, double stroke_width,
                 gboolean dashed)
{
  Item *it = add (c, ITEM_RECT);

  it->x = x;
  it->y = y;
  it->w = width;
  it->h = height;
  it->radius = radius;
  it->fill = fill;
  it->stroke = stroke;
  it->stroke_width = stroke_width;
  it->dashed = dashed;
}

void
ffm_canvas_polyline (FfmCanvas *c, const double *xy, guint n, guint32 fill, guint32 stroke,
                     double stroke_width, gboolean dashed)
{
  Item *it;

  if (n < 2)
    return;
  it = add (c, ITEM_POLY);
  it->xy = g_memdup2 (xy, sizeof (double) * 2 * n);
  it->n = n;
  it->fill = fill;
  it->stroke = stroke;
  it->stroke_width = stroke_width;
  it->dashed = dashed;
}

void
ffm_canvas_line (FfmCanvas *c, double x1, double y1, double x2, double y2, guint32 stroke,
                 double stroke_width, gboolean dashed)
{
  const double xy[] = { x1, y1, x2, y2 };

  ffm_canvas_polyline (c, xy, 2, FFM_CANVAS_NONE, stroke, stroke_width, dashed);
}

void
ffm_canvas_text (FfmCanvas *c, double x, double y, const char *text, double size,
                 gboolean bold, guint32 colour, FfmCanvasAnchor anchor)
{
  Item *it;

  if (text == NULL || *text == '\0')
    return;
  it = add (c, ITEM_TEXT);
  it->x = x;
  it->y = y;
  it->text = g_utf8_make_valid (text, -1);
  it->size = size;
  it->bold = bold;
  it->fill = colour;
  it->anchor = anchor;
}

void
ffm_canvas_begin_group (FfmCanvas *c, const char *css_class, const char *tooltip)
{
  Item *it = add (c, ITEM_BEGIN);

  it->css_class = g_strdup (css_class);
  it->tooltip = tooltip != NULL ? g_utf8_make_valid (tooltip, -1) : NULL;
  c->open_groups++;
}

void
ffm_canvas_group_data (FfmCanvas *c, const char *key, const char *value)
{
  Item *it;

  g_return_if_fail (c->items->len > 0);
  it = &g_array_index (c->items, Item, c->items->len - 1);
  g_return_if_fail (it->kind == ITEM_BEGIN);
  if (it->data == NULL)
    it->data = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (it->data, g_strdup (key));
  g_ptr_array_add (it->data, g_utf8_make_valid (value != NULL ? value : "", -1));
}

void
ffm_canvas_end_group (FfmCanvas *c)
{
  g_return_if_fail (c->open_groups > 0);
  add (c, ITEM_END);
  c->open_groups--;
}

/* ---- SVG ---- */

/* @text escaped for XML character data and attribute values; characters
 * XML 1.0 does not allow at all (control characters) become '?'. */
static void
append_escaped (GString *out, const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    {
      switch (*p)
        {
        case '&':
          g_string_append (out, "&amp;");
          break;
        case '<':
          g_string_append (out, "&lt;");
          break;
        case '>':
          g_string_append (out, "&gt;");
          break;
        case '"':
          g_string_append (out, "&quot;");
          break;
        default:
          if ((guchar) *p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
            g_string_append_c (out, '?');
          else
            g_string_append_c (out, *p);
          break;
        }
    }
}

/* A coordinate with at most two decimals, without trailing zeros. */
static void
append_number (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char *end;

  if (!isfinite (v))
    v = 0;
  g_ascii_formatd (buf, sizeof buf, "%.2f", v);
  end = buf + strlen (buf);
  while (end > buf && end[-1] == '0')
    *--end = '\0';
  if (end > buf && end[-1] == '.')
    *--end = '\0';
  if (strcmp (buf, "-0") == 0)
    strcpy (buf, "0");
  g_string_append (out, buf);
}

static void
append_attr_number (GString *out, const char *name, double v)
{
  g_string_append_printf (out, " %s=\"", name);
  append_number (out, v);
  g_string_append_c (out, '"');
}

static void
append_paint (GString *out, const char *name, guint32 colour)
{
  if (colour == FFM_CANVAS_NONE)
    g_string_append_printf (out, " %s=\"none\"", name);
  else
    g_string_append_printf (out, " %s=\"#%06x\"", name, colour & 0xFFFFFFu);
}

static void
append_stroke (GString *out, const Item *it)
{
  append_paint (out, "stroke", it->stroke);
  if (it->stroke != FFM_CANVAS_NONE)
    {
      append_attr_number (out, "stroke-width", it->stroke_width);
      if (it->dashed)
        g_string_append (out, " stroke-dasharray=\"4 3\"");
    }
}

char *
ffm_canvas_to_svg (const FfmCanvas *c, gboolean standalone, const char *css_class)
{
  GString *out = g_string_new (NULL);
  int depth = 0;

  if (standalone)
    g_string_append (out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  g_string_append (out, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
  if (css_class != NULL)
    {
      g_string_append (out, " class=\"");
      append_escaped (out, css_class);
      g_string_append_c (out, '"');
    }
  append_attr_number (out, "width", ceil (c->width));
  append_attr_number (out, "height", ceil (c->height));
  g_string_append (out, " viewBox=\"0 0 ");
  append_number (out, ceil (c->width));
  g_string_append_c (out, ' ');
  append_number (out, ceil (c->height));
  g_string_append (out, "\" role=\"img\" style=\"font-family: " FONT_FAMILY "\">\n");
  if (c->title != NULL)
    {
      g_string_append (out, "<title>");
      append_escaped (out, c->title);
      g_string_append (out, "</title>\n");
    }
  g_string_append (out, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
  for (guint i = 0; i < c->items->len; i++)
    {
      const Item *it = &g_array_index (c->items, Item, i);
      switch (it->kind)
        {
        case ITEM_RECT:
          g_string_append (out, "<rect");
          append_attr_number (out, "x", it->x);
          append_attr_number (out, "y", it->y);
          append_attr_number (out, "width", MAX (it->w, 0));
          append_attr_number (out, "height", MAX (it->h, 0));
          if (it->radius > 0)
            append_attr_number (out, "rx", it->radius);
          append_paint (out, "fill", it->fill);
          append_stroke (out, it);
          g_string_append (out, "/>\n");
          break;
        case ITEM_POLY:
          g_string_append (out, it->fill != FFM_CANVAS_NONE ? "<polygon points=\""
                                                             : "<polyline points=\"");
          for (guint k = 0; k < it->n; k++)
            {
              if (k > 0)
                g_string_append_c (out, ' ');
              append_number (out, it->xy[2 * k]);
              g_string_append_c (out, ',');
              append_number (out, it->xy[2 * k + 1]);
            }
          g_string_append_c (out, '"');
          append_paint (out, "fill", it->fill);
          append_stroke (out, it);
          g_string_append (out, " stroke-linejoin=\"round\"/>\n");
          break;
        case ITEM_TEXT:
          g_string_append (out, "<text");
          append_attr_number (out, "x", it->x);
          append_attr_number (out, "y", it->y);
          append_attr_number (out, "font-size", it->size);
          if (it->bold)
            g_string_append (out, " font-weight=\"bold\"");
          if (it->anchor != FFM_CANVAS_START)
            g_string_append_printf (out, " text-anchor=\"%s\"",
                                    it->anchor == FFM_CANVAS_MIDDLE ? "middle" : "end");
          append_paint (out, "fill", it->fill);
          /* Spaces kept as written (aligned columns of labels). */
          g_string_append (out, " xml:space=\"preserve\">");
          append_escaped (out, it->text);
          g_string_append (out, "</text>\n");
          break;
        case ITEM_BEGIN:
          g_string_append (out, "<g");
          if (it->css_class != NULL)
            {
              g_string_append (out, " class=\"");
              append_escaped (out, it->css_class);
              g_string_append_c (out, '"');
            }
          for (guint k = 0; it->data != NULL && k + 1 < it->data->len; k += 2)
            {
              g_string_append_printf (out, " data-%s=\"", (const char *) it->data->pdata[k]);
              append_escaped (out, it->data->pdata[k + 1]);
              g_string_append_c (out, '"');
            }
          g_string_append (out, ">");
          if (it->tooltip != NULL)
            {
              g_string_append (out, "<title>");
              append_escaped (out, it->tooltip);
              g_string_append (out, "</title>");
            }
          g_string_append_c (out, '\n');
          depth++;
          break;
        case ITEM_END:
          if (depth > 0)
            {
              g_string_append (out, "</g>\n");
              depth--;
            }
          break;
        }
    }
  for (; depth > 0; depth--)
    g_string_append (out, "</g>\n");
  g_string_append (out, "</svg>\n");
  return g_string_free (out, FALSE);
}

/* ---- Files ---- */

static gboolean
has_suffix (const char *path, const char *suffix)
{
  gsize n = strlen (path), k = strlen (suffix);

  return n > k && g_ascii_strcasecmp (path + n - k, suffix) == 0;
}

gboolean
ffm_canvas_check_path (const char *path, const char *option, GError **error)
{
  if (has_suffix (path, ".svg"))
    return TRUE;
  if (!has_suffix (path, ".png") && !has_suffix (path, ".pdf"))
    {
      g_set_error (error, FFM_CANVAS_ERROR, FFM_CANVAS_ERROR_FORMAT,
                   "%s %s: a diagram is written as .svg, .png or .pdf (the file "
                   "name's suffix chooses)", option, path);
      return FALSE;
    }
  if (!ffm_canvas_can_render ())
    {
      g_set_error (error, FFM_CANVAS_ERROR, FFM_CANVAS_ERROR_UNAVAILABLE,
                   "%s %s: this build of ffm writes diagrams as .svg only (it was "
                   "built without cairo: install libcairo2-dev and rebuild, "
                   "-Dcairo=enabled to insist); write OUT.svg instead", option, path);
      return FALSE;
    }
  return TRUE;
}

#ifdef FFM_HAVE_CAIRO

gboolean
ffm_canvas_can_render (void)
{
  return TRUE;
}

static void
set_colour (cairo_t *cr, guint32 colour)
{
  cairo_set_source_rgb (cr, ((colour >> 16) & 0xFF) / 255.0, ((colour >> 8) & 0xFF) / 255.0,
                        (colour & 0xFF) / 255.0);
}

/* Fills then outlines the current path as @it says. */
static void
paint (cairo_t *cr, const Item *it)
{
  static const double dash[] = { 4, 3 };

  if (it->fill != FFM_CANVAS_NONE)
    {
      set_colour (cr, it->fill);
      if (it->stroke != FFM_CANVAS_NONE)
        cairo_fill_preserve (cr);
      else
        cairo_fill (cr);
    }
  if (it->stroke != FFM_CANVAS_NONE)
    {
      set_colour (cr, it->stroke);
      cairo_set_line_width (cr, it->stroke_width);
      cairo_set_dash (cr, dash, it->dashed ? 2 : 0, 0);
      cairo_stroke (cr);
    }
  cairo_new_path (cr);
}

static void
render (const FfmCanvas *c, cairo_t *cr)
{
  cairo_font_options_t *fo = cairo_font_options_create ();

  /* Unhinted advances: the layout counts 0.6 em per character, and hinted
   * ones round up to whole pixels. */
  cairo_font_options_set_hint_metrics (fo, CAIRO_HINT_METRICS_OFF);
  cairo_set_font_options (cr, fo);
  cairo_font_options_destroy (fo);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint i = 0; i < c->items->len; i++)
    {
      const Item *it = &g_array_index (c->items, Item, i);
      switch (it->kind)
        {
        case ITEM_RECT:
          {
            double r = MIN (it->radius, MIN (it->w, it->h) / 2);
            if (r > 0)
              {
                cairo_new_sub_path (cr);
                cairo_arc (cr, it->x + it->w - r, it->y + r, r, -G_PI / 2, 0);
                cairo_arc (cr, it->x + it->w - r, it->y + it->h - r, r, 0, G_PI / 2);
                cairo_arc (cr, it->x + r, it->y + it->h - r, r, G_PI / 2, G_PI);
                cairo_arc (cr, it->x + r, it->y + r, r, G_PI, 3 * G_PI / 2);
                cairo_close_path (cr);
              }
            else
              cairo_rectangle (cr, it->x, it->y, it->w, it->h);
            paint (cr, it);
          }
          break;
        case ITEM_POLY:
          cairo_move_to (cr, it->xy[0], it->xy[1]);
          for (guint k = 1; k < it->n; k++)
            cairo_line_to (cr, it->xy[2 * k], it->xy[2 * k + 1]);
          if (it->fill != FFM_CANVAS_NONE)
            cairo_close_path (cr);
          paint (cr, it);
          break;
        case ITEM_TEXT:
          {
            cairo_text_extents_t ext;
            double x = it->x;
            cairo_select_font_face (cr, "DejaVu Sans Mono", CAIRO_FONT_SLANT_NORMAL,
                                    it->bold ? CAIRO_FONT_WEIGHT_BOLD
                                             : CAIRO_FONT_WEIGHT_NORMAL);
            cairo_set_font_size (cr, it->size);
            cairo_text_extents (cr, it->text, &ext);
            if (it->anchor == FFM_CANVAS_MIDDLE)
              x -= ext.x_advance / 2;
            else if (it->anchor == FFM_CANVAS_END)
              x -= ext.x_advance;
            set_colour (cr, it->fill);
            cairo_move_to (cr, x, it->y);
            cairo_show_text (cr, it->text);
            cairo_new_path (cr);
          }
          break;
        case ITEM_BEGIN:
        case ITEM_END:
          break;
        }
    }
}

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

/* The drawing as PNG (@png) or PDF bytes, or NULL with an error. */
static GByteArray *
render_bytes (const FfmCanvas *c, gboolean png, const char *path, const char *option,
              GError **error)
{
  GByteArray *bytes = g_byte_array_new ();
  double width = MAX (1, ceil (c->width)), height = MAX (1, ceil (c->height));
  double scale = 1;
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;

  if (png)
    {
      /* Bounded memory: a huge drawing is scaled down. */
      scale = MIN (1.0, MIN (FFM_CANVAS_MAX_SIDE / width, FFM_CANVAS_MAX_SIDE / height));
      scale = MIN (scale, sqrt (FFM_CANVAS_MAX_PIXELS / (width * height)));
      surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                            MAX (1, (int) floor (width * scale)),
                                            MAX (1, (int) floor (height * scale)));
    }
  else
    {
      /* PDF points are 1/72 in; a pixel is taken as 1/96 in. */
      scale = 0.75;
      surface = cairo_pdf_surface_create_for_stream (append_bytes, bytes, width * scale,
                                                     height * scale);
    }
  cr = cairo_create (surface);
  cairo_scale (cr, scale, scale);
  render (c, cr);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && png)
    status = cairo_surface_write_to_png_stream (surface, append_bytes, bytes);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, FFM_CANVAS_ERROR, FFM_CANVAS_ERROR_FAILED, "%s %s: cairo: %s",
                   option, path, cairo_status_to_string (status));
      g_byte_array_unref (bytes);
      return NULL;
    }
  return bytes;
}

#else  /* !FFM_HAVE_CAIRO */

gboolean
ffm_canvas_can_render (void)
{
  return FALSE;
}

static GByteArray *
render_bytes (const FfmCanvas *c, gboolean png, const char *path, const char *option,
              GError **error)
{
  ffm_canvas_check_path (path, option, error);
  return NULL;
}

#endif

gboolean
ffm_canvas_write (const FfmCanvas *c, const char *path, const char *option, GError **error)
{
  g_autoptr (GError) local = NULL;
  gboolean ok;

  if (!ffm_canvas_check_path (path, option, error))
    return FALSE;
  if (has_suffix (path, ".svg"))
    {
      g_autofree char *svg = ffm_canvas_to_svg (c, TRUE, NULL);
      ok = ffm_output_file_write (path, svg, -1, &local);
    }
  else
    {
      g_autoptr (GByteArray) bytes = render_bytes (c, has_suffix (path, ".png"), path, option,
                                                   error);
      if (bytes == NULL)
        return FALSE;
      ok = ffm_output_file_write (path, (const char *) bytes->data, (gssize) bytes->len, &local);
    }
  if (!ok)
    g_set_error (error, FFM_CANVAS_ERROR, FFM_CANVAS_ERROR_WRITE, "%s: %s", option,
                 local->message);
  return ok;
}
