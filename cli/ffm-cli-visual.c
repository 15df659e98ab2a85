/* ffm-cli-visual.c: --diagram, --diagram-dot and --html
 * (ffm-cli-visual.h). */
#include "ffm-cli-visual.h"
#include "ffm-diagram.h"

#include <string.h>

void
ffm_cli_add_visual_options (GOptionContext *context, FfmCliVisualOptions *o, gboolean diagram,
                            const char *what)
{
  GOptionEntry entries[] = {
    { "html", 0, 0, G_OPTION_ARG_FILENAME, &o->html, NULL, "OUT.html" },
    { "diagram", 0, 0, G_OPTION_ARG_FILENAME, &o->diagram,
      "Draw the mapping as a LoopTree in memory-level bands to OUT (.svg; .png and .pdf "
      "in a build with cairo)", "OUT" },
    { "diagram-dot", 0, 0, G_OPTION_ARG_FILENAME, &o->diagram_dot,
      "Write the mapping's LoopTree as Graphviz DOT to OUT.dot", "OUT.dot" },
    G_OPTION_ENTRY_NULL
  };

  g_free (o->help);
  o->help = g_strdup_printf ("Write %s as one self-contained HTML page (summary, tables, "
                             "charts%s, the JSON record) to OUT.html", what,
                             diagram ? ", the mapping diagram" : "");
  entries[0].description = o->help;
  if (!diagram)
    entries[1] = entries[3];
  g_option_context_add_main_entries (context, entries, NULL);
}

void
ffm_cli_visual_options_clear (FfmCliVisualOptions *o)
{
  g_clear_pointer (&o->diagram, g_free);
  g_clear_pointer (&o->diagram_dot, g_free);
  g_clear_pointer (&o->html, g_free);
  g_clear_pointer (&o->help, g_free);
}

gboolean
ffm_cli_visual_wanted (const FfmCliVisualOptions *o)
{
  return o->diagram != NULL || o->diagram_dot != NULL || o->html != NULL;
}

gboolean
ffm_cli_visual_check (const FfmCliVisualOptions *o, GError **error)
{
  if (o->diagram != NULL && !ffm_diagram_check_path (o->diagram, "--diagram", error))
    return FALSE;
  /* A file (not "-": the report goes to standard output). */
  if (o->diagram_dot != NULL && !g_str_has_suffix (o->diagram_dot, ".dot")
      && !g_str_has_suffix (o->diagram_dot, ".gv"))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--diagram-dot %s: Graphviz "
                   "source is named OUT.dot or OUT.gv", o->diagram_dot);
      return FALSE;
    }
  if (o->html != NULL && !ffm_html_check_path (o->html, "--html", error))
    return FALSE;
  return TRUE;
}

gboolean
ffm_cli_visual_write_results (const FfmCliVisualOptions *o, const char *command,
                              const FfmHtmlResult *results, guint n,
                              const GPtrArray *comparison_tables, const GPtrArray *warnings,
                              const char *json, GError **error)
{
  if ((o->diagram != NULL || o->diagram_dot != NULL) && n != 1)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--diagram draws one mapping: "
                   "give one file (or use --html, which shows each)");
      return FALSE;
    }
  if (o->diagram != NULL && !ffm_diagram_write (results[0].report, NULL, o->diagram, error))
    return FALSE;
  if (o->diagram_dot != NULL
      && !ffm_diagram_write_dot (results[0].report, NULL, o->diagram_dot, error))
    return FALSE;
  if (o->html != NULL
      && !ffm_html_write_results (o->html, command, results, n, comparison_tables, warnings,
                                  json, error))
    return FALSE;
  return TRUE;
}
