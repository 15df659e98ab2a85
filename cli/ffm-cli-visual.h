/* ffm-cli-visual.h: the options that let a person look at a result:
 * --diagram OUT.svg|png|pdf and --diagram-dot OUT.dot (the mapping as a
 * LoopTree diagram, ffm-diagram.h) and --html OUT.html (one self-contained
 * page, ffm-html-report.h).
 *
 * `ffm map` and `ffm eval` take all three, `ffm sweep` and `ffm compare`
 * --html only. The names are checked before any work (a bad suffix is a
 * usage error, a .png in a build without cairo says so), and every file
 * is written whole or not at all, its failure an error naming the option
 * and the file. */
#pragma once

#include <ffm/ffm.h>

#include "ffm-canvas.h"
#include "ffm-html-report.h"

G_BEGIN_DECLS

typedef struct {
  char *diagram;                /* --diagram OUT (owned), NULL if not given */
  char *diagram_dot;            /* --diagram-dot OUT (owned) */
  char *html;                   /* --html OUT (owned) */
  char *help;                   /* --html's help text (owned) */
} FfmCliVisualOptions;

#define FFM_CLI_VISUAL_OPTIONS_INIT { NULL, NULL, NULL, NULL }

/* Adds --html, and --diagram and --diagram-dot when @diagram. @what names
 * what the page shows ("the result"). */
void ffm_cli_add_visual_options (GOptionContext *context, FfmCliVisualOptions *options,
                                 gboolean diagram, const char *what);
void ffm_cli_visual_options_clear (FfmCliVisualOptions *options);

/* FALSE with the error when a name cannot be written (a suffix that
 * names no format, .png or .pdf without cairo, an HTML page not named
 * .html); for the command to refuse before its work. */
gboolean ffm_cli_visual_check (const FfmCliVisualOptions *options, GError **error);

/* TRUE when some option asks for a page or a diagram. */
gboolean ffm_cli_visual_wanted (const FfmCliVisualOptions *options);

/* Writes what the options ask for one mapping (--diagram,
 * --diagram-dot) and the page of @n results (--html; @json the command's
 * record, @comparison_tables and @warnings for several, may be NULL). The
 * diagrams need one result. */
gboolean ffm_cli_visual_write_results (const FfmCliVisualOptions *options,
                                       const char *command,
                                       const FfmHtmlResult *results, guint n,
                                       const GPtrArray *comparison_tables,
                                       const GPtrArray *warnings,
                                       const char *json, GError **error);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FfmCliVisualOptions, ffm_cli_visual_options_clear)

G_END_DECLS
