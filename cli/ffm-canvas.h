/* ffm-canvas.h: a small vector drawing, written as SVG or rendered to PNG
 * and PDF with cairo.
 *
 * The mapping diagram and the charts of the HTML report are drawn once,
 * as a list of shapes (rectangles, lines, polylines, text), and then
 * written in whichever form is asked: SVG text (a file, or inline in an
 * HTML page), or, in a build with cairo (meson option -Dcairo), a PNG
 * image or a PDF page rendered from the same list. Drawing by hand rather
 * than through a layout library keeps the layout ours (the memory levels
 * as bands across the whole diagram, which a graph layout cannot promise)
 * and adds no dependency to the SVG path.
 *
 * Text is monospace (DejaVu Sans Mono first): every character advances
 * FFM_CANVAS_CHAR_WIDTH x the font size, so that layout code knows how
 * wide a label is without asking a font library, and a label sized to fit
 * its box fits it in every renderer. Coordinates are pixels, y down; a
 * text's y is its baseline. Colours are 0xRRGGBB; FFM_CANVAS_NONE draws no
 * fill or no outline.
 *
 * Groups carry a CSS class, a tooltip and data-* attributes into the SVG
 * (<g class="node storage" data-level="GlobalBuffer">): the test suite and
 * the report's script find the diagram's nodes by them; cairo ignores
 * them. Files are written whole or not at all (ffm-output-file.h). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define FFM_CANVAS_ERROR (ffm_canvas_error_quark ())

typedef enum {
  FFM_CANVAS_ERROR_FORMAT,      /* not .svg, .png or .pdf */
  FFM_CANVAS_ERROR_UNAVAILABLE, /* .png or .pdf in a build without cairo */
  FFM_CANVAS_ERROR_WRITE,       /* the file could not be written */
  FFM_CANVAS_ERROR_FAILED,      /* cairo reported an error */
} FfmCanvasError;

GQuark ffm_canvas_error_quark (void);

#define FFM_CANVAS_NONE 0xFFFFFFFFu
/* The advance of one monospace character, in font sizes. */
#define FFM_CANVAS_CHAR_WIDTH 0.6
/* PNG images larger than this many pixels (or this wide or tall) are
 * scaled down to fit: a huge mapping still gets a picture, in bounded
 * memory (4 bytes per pixel while rendering). */
#define FFM_CANVAS_MAX_PIXELS (48 * 1000 * 1000)
#define FFM_CANVAS_MAX_SIDE 16000

typedef enum {
  FFM_CANVAS_START,
  FFM_CANVAS_MIDDLE,
  FFM_CANVAS_END,
} FfmCanvasAnchor;

typedef struct _FfmCanvas FfmCanvas;

/* An empty drawing of @width x @height pixels on white. */
FfmCanvas *ffm_canvas_new (double width, double height);
void ffm_canvas_free (FfmCanvas *canvas);
void ffm_canvas_set_size (FfmCanvas *canvas, double width, double height);
double ffm_canvas_get_width (const FfmCanvas *canvas);
double ffm_canvas_get_height (const FfmCanvas *canvas);
/* A title for the whole drawing (SVG <title>, the image's accessible
 * name); may be NULL. */
void ffm_canvas_set_title (FfmCanvas *canvas, const char *title);

/* Width of @text (UTF-8) at @size: characters x FFM_CANVAS_CHAR_WIDTH x
 * @size. */
double ffm_canvas_text_width (const char *text, double size);

/* A rectangle with corners of @radius; @dashed outlines are dashed. */
void ffm_canvas_rect (FfmCanvas *canvas, double x, double y, double width, double height,
                      double radius, guint32 fill, guint32 stroke, double stroke_width,
                      gboolean dashed);
void ffm_canvas_line (FfmCanvas *canvas, double x1, double y1, double x2, double y2,
                      guint32 stroke, double stroke_width, gboolean dashed);
/* An open polyline through @n points (@xy holds x0, y0, x1, y1, ...), or
 * a filled polygon when @fill is not FFM_CANVAS_NONE. */
void ffm_canvas_polyline (FfmCanvas *canvas, const double *xy, guint n, guint32 fill,
                          guint32 stroke, double stroke_width, gboolean dashed);
/* @text at baseline @y, anchored at @x; monospace at @size pixels. */
void ffm_canvas_text (FfmCanvas *canvas, double x, double y, const char *text, double size,
                      gboolean bold, guint32 colour, FfmCanvasAnchor anchor);

/* Opens a group: @css_class (may be NULL) and a tooltip (may be NULL).
 * Groups nest; close each with ffm_canvas_end_group(). */
void ffm_canvas_begin_group (FfmCanvas *canvas, const char *css_class, const char *tooltip);
/* Adds data-@key="@value" to the group opened last (before anything is
 * drawn in it). @key is letters, digits and dashes. */
void ffm_canvas_group_data (FfmCanvas *canvas, const char *key, const char *value);
void ffm_canvas_end_group (FfmCanvas *canvas);

/* The drawing as SVG (transfer full). @standalone: an XML document (a
 * file); else an <svg> element for an HTML page. @css_class goes on the
 * <svg> element (may be NULL). */
char *ffm_canvas_to_svg (const FfmCanvas *canvas, gboolean standalone, const char *css_class);

/* TRUE when this build renders PNG and PDF (cairo). */
gboolean ffm_canvas_can_render (void);
/* TRUE if @path names a format this build writes (.svg always; .png and
 * .pdf with cairo); otherwise FALSE with FFM_CANVAS_ERROR_FORMAT or
 * _UNAVAILABLE, whose message names @option ("--diagram") and the way
 * out. For commands to check before their work. */
gboolean ffm_canvas_check_path (const char *path, const char *option, GError **error);
/* Writes the drawing to @path, the format by its suffix. */
gboolean ffm_canvas_write (const FfmCanvas *canvas, const char *path, const char *option,
                           GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmCanvas, ffm_canvas_free)

G_END_DECLS
