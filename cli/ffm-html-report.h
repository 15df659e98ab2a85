/* ffm-html-report.h: one self-contained HTML file per result (`--html
 * OUT.html` on ffm map, eval, sweep and compare).
 *
 * What a colleague opens in a browser, with nothing else: no network, no
 * external script, style sheet or font; the charts and the mapping are SVG
 * inside the page (ffm-chart.h, ffm-diagram.h), the style is in the page,
 * and a few lines of script only add conveniences (sortable tables,
 * expand and collapse all, a download link for the embedded result): the
 * page reads in full without script. Sections:
 *   - a mapping (map, eval): summary (totals, how it was found, the
 *     inputs), the mapping diagram and its text LoopTree, energy by
 *     component, by tensor class and by Einsum as bar charts, utilization
 *     (compute busy per Einsum, fanouts), the fusion diagram and table,
 *     and every table of the text report (the per-Einsum details in one
 *     collapsible section per Einsum);
 *   - a sweep: the points table, EDP against the first swept parameter,
 *     energy by component and off-chip energy by tensor class per point
 *     and policy, and the fusion diagram of every point (as --plot draws
 *     them, ffm-plot-sweep.h);
 *   - a comparison: the distance to ffm's optimum per strategy at each
 *     checkpoint, the convergence chart (the paper's Fig. 8), every run;
 *   - always: the command's JSON record embedded whole in a
 *     <script type="application/json" id="ffm-record"> element (every '<'
 *     written as \u003c, so that no "</script>" in a name can end it), so
 *     that the page is a complete record of the result.
 * Numbers shown carry their exact value in data-value attributes, the
 * same as the JSON's. The page is HTML5 that `tidy -errors` accepts. */
#pragma once

#include <ffm/ffm.h>

G_BEGIN_DECLS

/* TRUE if @path ends in .html or .htm; otherwise a usage error naming
 * @option. */
gboolean ffm_html_check_path (const char *path, const char *option, GError **error);

/* One evaluated mapping of a result. */
typedef struct {
  const FfmCostReport *report;
  const char *label;            /* "decode.json", or NULL */
  const GPtrArray *tables;      /* of FfmCliTable*: the text report's tables
                                   and any the command adds (pareto, stats) */
} FfmHtmlResult;

/* A page for @n results (map: one; eval: one per file): @command ("map"),
 * @json the command's JSON record (embedded), @comparison (may be NULL)
 * the table eval prints for several files and @warnings (may be NULL, of
 * char*) its warnings. */
gboolean ffm_html_write_results (const char *path, const char *command,
                                 const FfmHtmlResult *results, guint n,
                                 const GPtrArray *comparison_tables,
                                 const GPtrArray *warnings, const char *json,
                                 GError **error);

/* The page of a sweep from its JSON (what `ffm sweep --json` writes);
 * @heading says what was swept ("gpt3-6.7b on edge, new_tokens"). */
gboolean ffm_html_write_sweep (const char *path, const char *heading, const char *json,
                               GError **error);

/* The page of a comparison from its JSON (`ffm compare --json`). */
gboolean ffm_html_write_compare (const char *path, const char *json, GError **error);

/* The same pages as text (transfer full), for tests and for writing. */
char *ffm_html_results_to_string (const char *command, const FfmHtmlResult *results, guint n,
                                  const GPtrArray *comparison_tables,
                                  const GPtrArray *warnings, const char *json);
char *ffm_html_sweep_to_string (const char *heading, const char *json, GError **error);
char *ffm_html_compare_to_string (const char *json, GError **error);

G_END_DECLS
