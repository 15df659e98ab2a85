/* ffm-html-report.c: self-contained HTML pages of results
 * (ffm-html-report.h). */
#include "ffm-html-report.h"
#include "ffm-chart.h"
#include "ffm-cli-report.h"
#include "ffm-cli-table.h"
#include "ffm-diagram.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* ---- The page ---- */

static const char style[] =
  "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;"
  "margin:0;background:#fafafa}\n"
  "header,main,footer{padding:0 24px}\n"
  "header{background:#fff;border-bottom:1px solid #ddd;padding-bottom:8px}\n"
  "h1{font-size:1.5em;margin:0;padding-top:16px}\n"
  "h2{font-size:1.25em;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}\n"
  "h3{font-size:1.05em;margin:20px 0 6px}\n"
  ".subtitle{color:#555;margin:4px 0 8px}\n"
  "nav ul{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:4px 16px}\n"
  "nav a{color:#1f5fa8}\n"
  "dl.summary{display:grid;grid-template-columns:max-content auto;gap:2px 16px;margin:8px 0}\n"
  "dl.summary dt{font-weight:600}\n"
  "dl.summary dd{margin:0;font-variant-numeric:tabular-nums}\n"
  ".scroll{overflow-x:auto;max-width:100%;background:#fff;border:1px solid #e2e2e2}\n"
  "figure{margin:12px 0}\n"
  "figcaption{color:#555;font-size:.9em;margin-top:4px}\n"
  "svg{display:block}\n"
  "table{border-collapse:collapse;background:#fff;font-size:13px;margin:6px 0 14px}\n"
  "caption{text-align:left;font-weight:600;padding:4px 0}\n"
  "th,td{border:1px solid #ddd;padding:3px 8px;white-space:nowrap}\n"
  "th{background:#f0f0f0;text-align:left}\n"
  "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}\n"
  "button.sort{font:inherit;font-weight:600;border:0;background:none;padding:0;"
  "cursor:pointer}\n"
  "th[aria-sort=ascending] button.sort::after{content:' \\25B2'}\n"
  "th[aria-sort=descending] button.sort::after{content:' \\25BC'}\n"
  "details{margin:6px 0}\n"
  "summary{cursor:pointer;font-weight:600}\n"
  "pre{background:#fff;border:1px solid #e2e2e2;padding:8px;overflow-x:auto;font-size:12px}\n"
  ".warning{color:#a00000}\n"
  ".tools button{margin-right:8px}\n"
  "footer{color:#666;font-size:.85em;padding-bottom:24px}\n"
  ".result{border-top:3px solid #ccc;margin-top:24px}\n"
  "@media print{.tools,nav{display:none}.scroll{overflow:visible}}\n";

/* Conveniences only: the page reads without them. */
static const char script[] =
  "(function () {\n"
  "  'use strict';\n"
  "  document.documentElement.classList.add('js');\n"
  "  function number(cell) {\n"
  "    var v = parseFloat(cell.getAttribute('data-value'));\n"
  "    return isNaN(v) ? -Infinity : v;\n"
  "  }\n"
  "  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {\n"
  "    if (!table.tHead || !table.tBodies.length) { return; }\n"
  "    var heads = table.tHead.rows[0].cells;\n"
  "    Array.prototype.forEach.call(heads, function (th, col) {\n"
  "      var button = document.createElement('button');\n"
  "      button.type = 'button';\n"
  "      button.className = 'sort';\n"
  "      button.textContent = th.textContent;\n"
  "      th.textContent = '';\n"
  "      th.appendChild(button);\n"
  "      button.addEventListener('click', function () {\n"
  "        var body = table.tBodies[0];\n"
  "        var rows = Array.prototype.slice.call(body.rows);\n"
  "        var numeric = th.classList.contains('num');\n"
  "        var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;\n"
  "        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });\n"
  "        th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');\n"
  "        rows.sort(function (a, b) {\n"
  "          var x = a.cells[col], y = b.cells[col];\n"
  "          if (numeric) {\n"
  "            var p = number(x), q = number(y);\n"
  "            return dir * ((p > q) - (p < q));\n"
  "          }\n"
  "          return dir * x.textContent.localeCompare(y.textContent);\n"
  "        });\n"
  "        rows.forEach(function (r) { body.appendChild(r); });\n"
  "      });\n"
  "    });\n"
  "  });\n"
  "  Array.prototype.forEach.call(document.querySelectorAll('.tools'), function (tools) {\n"
  "    var scope = tools.parentNode;\n"
  "    [['Expand all', true], ['Collapse all', false]].forEach(function (what) {\n"
  "      var button = document.createElement('button');\n"
  "      button.type = 'button';\n"
  "      button.textContent = what[0];\n"
  "      button.addEventListener('click', function () {\n"
  "        Array.prototype.forEach.call(scope.querySelectorAll('details'), function (d) {\n"
  "          d.open = what[1];\n"
  "        });\n"
  "      });\n"
  "      tools.appendChild(button);\n"
  "    });\n"
  "  });\n"
  "  var record = document.getElementById('ffm-record');\n"
  "  var link = document.getElementById('ffm-record-download');\n"
  "  if (record && link && window.Blob && window.URL) {\n"
  "    link.href = URL.createObjectURL(new Blob([record.textContent],\n"
  "                                             { type: 'application/json' }));\n"
  "    link.hidden = false;\n"
  "  }\n"
  "}());\n";

/* @text as HTML text or an attribute value; control characters dropped. */
static void
esc (GString *out, const char *text)
{
  if (text == NULL)
    return;
  for (const char *p = text; *p != '\0'; p++)
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
        if ((guchar) *p >= 0x20 || *p == '\n' || *p == '\t')
          g_string_append_c (out, *p);
        break;
      }
}

static void G_GNUC_PRINTF (2, 3)
escf (GString *out, const char *format, ...)
{
  va_list args;
  g_autofree char *text = NULL;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  esc (out, text);
}

typedef struct {
  GString *body;
  GPtrArray *nav;               /* id, heading, ... (owned) */
  char *title;
  char *subtitle;
} Page;

static void
page_init (Page *p, const char *title, const char *subtitle)
{
  p->body = g_string_new (NULL);
  p->nav = g_ptr_array_new_with_free_func (g_free);
  p->title = g_utf8_make_valid (title, -1);
  p->subtitle = subtitle != NULL ? g_utf8_make_valid (subtitle, -1) : NULL;
}

static void
section_begin (Page *p, const char *id, const char *heading)
{
  g_ptr_array_add (p->nav, g_strdup (id));
  g_ptr_array_add (p->nav, g_strdup (heading));
  g_string_append_printf (p->body, "<section id=\"%s\">\n<h2>", id);
  esc (p->body, heading);
  g_string_append (p->body, "</h2>\n");
}

static void
section_end (Page *p)
{
  g_string_append (p->body, "</section>\n");
}

static void
paragraph (GString *out, const char *css, const char *text)
{
  if (css != NULL)
    g_string_append_printf (out, "<p class=\"%s\">", css);
  else
    g_string_append (out, "<p>");
  esc (out, text);
  g_string_append (out, "</p>\n");
}

/* A drawing inline (its SVG), in a scrolling frame, with a caption. */
static void
figure (GString *out, FfmCanvas *canvas, const char *css, const char *caption)
{
  g_autofree char *svg = ffm_canvas_to_svg (canvas, FALSE, css);

  g_string_append_printf (out, "<figure class=\"%s\">\n<div class=\"scroll\">\n", css);
  g_string_append (out, svg);
  g_string_append (out, "</div>\n");
  if (caption != NULL)
    {
      g_string_append (out, "<figcaption>");
      esc (out, caption);
      g_string_append (out, "</figcaption>\n");
    }
  g_string_append (out, "</figure>\n");
  ffm_canvas_free (canvas);
}

/* A row of the summary: <dt>@name</dt><dd data-key data-value>@text</dd>. */
static void
summary_item (GString *out, const char *name, const char *key, const char *text,
              const char *value)
{
  g_string_append (out, "<dt>");
  esc (out, name);
  g_string_append (out, "</dt><dd");
  if (key != NULL)
    {
      g_string_append (out, " data-key=\"");
      esc (out, key);
      g_string_append (out, "\"");
    }
  if (value != NULL)
    {
      g_string_append (out, " data-value=\"");
      esc (out, value);
      g_string_append (out, "\"");
    }
  g_string_append_c (out, '>');
  esc (out, text);
  g_string_append (out, "</dd>\n");
}

static char *
exact (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (ffm_format_double (v, buf));
}

static void
summary_quantity (GString *out, const char *name, const char *key, double v, const char *unit)
{
  g_autofree char *text = ffm_format_si (v, unit);
  g_autofree char *value = exact (v);

  summary_item (out, name, key, text, value);
}

/* A table: numbers right-aligned with their exact values; only the rows
 * whose column @filter_column (-1: all) reads @filter_value. */
static void
table_html (GString *out, const FfmCliTable *t, const char *caption, int filter_column,
            const char *filter_value)
{
  guint n_columns = ffm_cli_table_get_n_columns (t);

  g_string_append_printf (out, "<table class=\"sortable\" data-table=\"%s\">\n",
                          ffm_cli_table_get_name (t));
  if (caption != NULL)
    {
      g_string_append (out, "<caption>");
      esc (out, caption);
      g_string_append (out, "</caption>\n");
    }
  g_string_append (out, "<thead><tr>");
  for (guint c = 0; c < n_columns; c++)
    {
      g_string_append_printf (out, "<th scope=\"col\"%s data-key=\"",
                              ffm_cli_table_column_is_text (t, c) ? "" : " class=\"num\"");
      esc (out, ffm_cli_table_get_key (t, c));
      g_string_append (out, "\">");
      esc (out, *ffm_cli_table_get_heading (t, c) != '\0' ? ffm_cli_table_get_heading (t, c)
                                                          : ffm_cli_table_get_key (t, c));
      g_string_append (out, "</th>");
    }
  g_string_append (out, "</tr></thead>\n<tbody>\n");
  for (guint r = 0; r < ffm_cli_table_get_n_rows (t); r++)
    {
      if (filter_column >= 0
          && g_strcmp0 (ffm_cli_table_get_csv (t, r, (guint) filter_column), filter_value) != 0)
        continue;
      g_string_append (out, "<tr>");
      for (guint c = 0; c < n_columns; c++)
        {
          const char *text = ffm_cli_table_get_text (t, r, c);
          if (ffm_cli_table_column_is_text (t, c))
            g_string_append (out, "<td>");
          else
            {
              g_string_append (out, "<td class=\"num\" data-value=\"");
              esc (out, ffm_cli_table_get_csv (t, r, c));
              g_string_append (out, "\">");
            }
          esc (out, text != NULL ? text : "-");
          g_string_append (out, "</td>");
        }
      g_string_append (out, "</tr>\n");
    }
  g_string_append (out, "</tbody>\n</table>\n");
}

/* The JSON record, safe inside <script>: every '<' as \u003c (valid
 * inside JSON strings, the only place '<' can be). */
static void
embed_json (GString *out, const char *json)
{
  g_string_append (out, "<script type=\"application/json\" id=\"ffm-record\">");
  for (const char *p = json; p != NULL && *p != '\0'; p++)
    {
      if (*p == '<')
        g_string_append (out, "\\u003c");
      else
        g_string_append_c (out, *p);
    }
  g_string_append (out, "</script>\n");
}

static void
record_section (Page *p, const char *json)
{
  section_begin (p, "record", "Result record");
  g_string_append_printf (p->body, "<p>This page holds the command's whole JSON record "
                          "(%" G_GSIZE_FORMAT " bytes), the same as its --json file: the "
                          "element <code>script#ffm-record</code> in the page's source. "
                          "<a id=\"ffm-record-download\" download=\"ffm-record.json\" "
                          "href=\"#record\" hidden>Download it</a></p>\n",
                          json != NULL ? strlen (json) : 0);
  section_end (p);
}

static char *
page_finish (Page *p, const char *json)
{
  GString *out = g_string_new ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                               "<meta charset=\"utf-8\">\n"
                               "<meta name=\"viewport\" content=\"width=device-width, "
                               "initial-scale=1\">\n"
                               "<meta name=\"generator\" content=\"ffm " FFM_VERSION_STRING
                               "\">\n<title>");

  esc (out, p->title);
  g_string_append (out, "</title>\n<style>\n");
  g_string_append (out, style);
  g_string_append (out, "</style>\n</head>\n<body>\n<header>\n<h1>");
  esc (out, p->title);
  g_string_append (out, "</h1>\n");
  if (p->subtitle != NULL)
    paragraph (out, "subtitle", p->subtitle);
  g_string_append (out, "<nav aria-label=\"sections\"><ul>\n");
  for (guint i = 0; i + 1 < p->nav->len; i += 2)
    {
      g_string_append_printf (out, "<li><a href=\"#%s\">", (const char *) p->nav->pdata[i]);
      esc (out, p->nav->pdata[i + 1]);
      g_string_append (out, "</a></li>\n");
    }
  g_string_append (out, "</ul></nav>\n</header>\n<main>\n");
  g_string_append (out, p->body->str);
  g_string_append (out, "</main>\n<footer>\n<p>Written by ffm " FFM_VERSION_STRING
                   ", the Fast and Fusiest Mapper. The page is self-contained: its "
                   "charts are SVG drawn by ffm and its record is embedded.</p>\n"
                   "</footer>\n");
  embed_json (out, json);
  g_string_append (out, "<script>\n");
  g_string_append (out, script);
  g_string_append (out, "</script>\n</body>\n</html>\n");
  g_string_free (p->body, TRUE);
  g_ptr_array_unref (p->nav);
  g_free (p->title);
  g_free (p->subtitle);
  return g_string_free (out, FALSE);
}

gboolean
ffm_html_check_path (const char *path, const char *option, GError **error)
{
  if (g_str_has_suffix (path, ".html") || g_str_has_suffix (path, ".htm")
      || g_str_has_suffix (path, ".HTML") || g_str_has_suffix (path, ".HTM"))
    return TRUE;
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
               "%s %s: the report is an HTML page: name it OUT.html", option, path);
  return FALSE;
}

static gboolean
write_page (const char *path, const char *html, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (html == NULL)
    return FALSE;
  if (!ffm_output_file_write (path, html, -1, &local))
    {
      g_set_error (error, G_FILE_ERROR, local->code, "--html: %s", local->message);
      return FALSE;
    }
  return TRUE;
}

/* ---- A mapping ---- */

static const FfmCliTable *
find_table (const GPtrArray *tables, const char *name)
{
  for (guint i = 0; tables != NULL && i < tables->len; i++)
    if (strcmp (ffm_cli_table_get_name (g_ptr_array_index (tables, i)), name) == 0)
      return g_ptr_array_index (tables, i);
  return NULL;
}

/* The member @name of the record's object (or of its results[@index] for
 * eval's several files), or NULL. */
static JsonObject *
record_object (JsonNode *root, guint index, guint n)
{
  JsonObject *o;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  o = json_node_get_object (root);
  if (n > 1)
    {
      JsonArray *a = json_object_has_member (o, "results")
        ? json_object_get_array_member (o, "results") : NULL;
      if (a == NULL || index >= json_array_get_length (a))
        return NULL;
      return json_array_get_object_element (a, index);
    }
  return o;
}

static const char *
member_string (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL && json_object_has_member (o, name)
    ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
    ? json_node_get_string (n) : NULL;
}

/* "batch=1, new_tokens=2048" of inputs.@what.parameters (transfer full). */
static char *
input_parameters (JsonObject *o, const char *what)
{
  JsonObject *inputs = o != NULL && json_object_has_member (o, "inputs")
    ? json_object_get_object_member (o, "inputs") : NULL;
  JsonObject *src = inputs != NULL && json_object_has_member (inputs, what)
    ? json_object_get_object_member (inputs, what) : NULL;
  JsonObject *params = src != NULL && json_object_has_member (src, "parameters")
    ? json_object_get_object_member (src, "parameters") : NULL;
  GString *out = g_string_new (NULL);
  g_autoptr (GList) keys = params != NULL ? json_object_get_members (params) : NULL;

  for (GList *k = keys; k != NULL; k = k->next)
    {
      const char *v = member_string (params, k->data);
      g_string_append_printf (out, "%s%s=%s", out->len ? ", " : "", (const char *) k->data,
                              v != NULL ? v : "?");
    }
  return g_string_free (out, FALSE);
}

static void
result_summary (GString *out, const FfmCostReport *r, JsonObject *o)
{
  const FfmArch *a = ffm_cost_report_get_arch (r);
  double leak = 0;

  for (guint l = 0; l < ffm_arch_get_n_levels (a); l++)
    leak += ffm_cost_report_get_level_leak (r, l);
  g_string_append (out, "<dl class=\"summary\">\n");
  summary_quantity (out, "Energy", "energy_j", ffm_cost_report_get_energy (r), "J");
  summary_quantity (out, "of which leak", "leak_energy_j", leak, "J");
  summary_quantity (out, "Latency", "latency_s", ffm_cost_report_get_latency (r), "s");
  summary_quantity (out, "EDP", "edp_js", ffm_cost_report_get_edp (r), "J*s");
  if (ffm_arch_get_area (a) > 0)
    {
      g_autofree char *text = ffm_format_area (ffm_arch_get_area (a));
      g_autofree char *value = exact (ffm_arch_get_area (a));
      summary_item (out, "Area", "area_m2", text, value);
    }
  if (ffm_cost_report_fits (r))
    summary_item (out, "Fits", "fits", "yes", "true");
  else
    {
      g_autofree char *why = g_strdup_printf ("no: %s", ffm_cost_report_get_problem (r));
      summary_item (out, "Fits", "fits", why, "false");
    }
  summary_item (out, "Workload", "workload", ffm_workload_get_name (ffm_cost_report_get_workload (r)),
                NULL);
  summary_item (out, "Architecture", "architecture", ffm_arch_get_name (a), NULL);
  if (o != NULL)
    {
      static const char *const keys[] = { "strategy", "objective", "imperfect", "stopped_by" };
      static const char *const names[] = { "Strategy", "Objective", "Remainder tiles",
                                           "Stopped by" };
      g_autofree char *wp = input_parameters (o, "workload");
      g_autofree char *ap = NULL;
      for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
        if (member_string (o, keys[k]) != NULL)
          summary_item (out, names[k], keys[k], member_string (o, keys[k]), NULL);
      if (json_object_has_member (o, "proven_optimal"))
        summary_item (out, "Proven optimal", "proven_optimal",
                      json_object_get_boolean_member (o, "proven_optimal") ? "yes" : "no", NULL);
      if (json_object_has_member (o, "wall_s"))
        summary_quantity (out, "Search time", "wall_s",
                          json_object_get_double_member (o, "wall_s"), "s");
      if (*wp != '\0')
        summary_item (out, "Workload parameters", NULL, wp, NULL);
      ap = input_parameters (o, "architecture");
      if (*ap != '\0')
        summary_item (out, "Architecture parameters", NULL, ap, NULL);
    }
  g_string_append (out, "</dl>\n");
}

static void
mapping_section (GString *out, const FfmHtmlResult *res, const char *id)
{
  const FfmCostReport *r = res->report;
  g_autofree char *tree = ffm_mapping_to_tree_string_for_workload (
    ffm_cost_report_get_mapping (r), ffm_cost_report_get_workload (r));

  g_string_append_printf (out, "<h3 id=\"%s-diagram\">The mapping as a LoopTree</h3>\n", id);
  figure (out, ffm_diagram_draw (r, NULL), "mapping-diagram",
          "Bands: memory levels, outermost on top; a node sits in the band of the memory "
          "kept innermost above it. Hover a node for its details.");
  g_string_append (out, "<details><summary>The same LoopTree as text</summary>\n<pre>");
  esc (out, tree);
  g_string_append (out, "</pre>\n</details>\n");
}

static const char *const tensor_kinds[] = { "weight", "input", "intermediate", "output" };

static void
energy_section (GString *out, const FfmCostReport *r)
{
  const FfmArch *a = ffm_cost_report_get_arch (r);
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  g_autoptr (GPtrArray) labels = g_ptr_array_new ();
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  double by_kind[G_N_ELEMENTS (tensor_kinds)] = { 0 };
  const char *kind_labels[G_N_ELEMENTS (tensor_kinds)];
  guint n_kinds = 0;

  for (guint l = 0; l < ffm_arch_get_n_levels (a); l++)
    {
      const FfmLevel *level = ffm_arch_get_level (a, l);
      double e = ffm_cost_report_get_level_energy (r, l);
      if (level->kind == FFM_LEVEL_FANOUT && e == 0)
        continue;
      g_ptr_array_add (labels, level->name);
      g_array_append_val (values, e);
    }
  figure (out, ffm_chart_bars ("Energy by component", (const char *const *) labels->pdata,
                               (const double *) values->data, values->len, "J", FALSE),
          "chart energy-components", NULL);
  for (guint t = 0; t < ffm_workload_get_n_tensors (w); t++)
    {
      double e = 0;
      ffm_cost_report_get_tensor_totals (r, t, &e, NULL, NULL);
      for (guint k = 0; k < G_N_ELEMENTS (tensor_kinds); k++)
        if (strcmp (ffm_workload_get_tensor_kind (w, t), tensor_kinds[k]) == 0)
          by_kind[k] += e;
    }
  {
    double v[G_N_ELEMENTS (tensor_kinds)];
    for (guint k = 0; k < G_N_ELEMENTS (tensor_kinds); k++)
      {
        gboolean present = FALSE;
        for (guint t = 0; t < ffm_workload_get_n_tensors (w); t++)
          present |= strcmp (ffm_workload_get_tensor_kind (w, t), tensor_kinds[k]) == 0;
        if (!present)
          continue;
        kind_labels[n_kinds] = tensor_kinds[k];
        v[n_kinds++] = by_kind[k];
      }
    figure (out, ffm_chart_bars ("Memory energy by tensor class", kind_labels, v, n_kinds, "J",
                                 FALSE), "chart energy-classes", NULL);
  }
  g_ptr_array_set_size (labels, 0);
  g_array_set_size (values, 0);
  for (guint i = 0; i < ffm_cost_report_get_n_einsums (r); i++)
    {
      g_ptr_array_add (labels, ffm_workload_get_einsum (w, ffm_cost_report_get_einsum (r, i))->name);
      g_array_append_val (values, ffm_cost_report_get_cost (r, i)->energy);
    }
  figure (out, ffm_chart_bars ("Energy by Einsum", (const char *const *) labels->pdata,
                               (const double *) values->data, values->len, "J", FALSE),
          "chart energy-einsums", NULL);
}

static void
utilization_section (GString *out, const FfmCostReport *r, const GPtrArray *tables)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  g_autoptr (GPtrArray) labels = g_ptr_array_new ();
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  const FfmCliTable *fanouts = find_table (tables, "fanouts");

  for (guint i = 0; i < ffm_cost_report_get_n_einsums (r); i++)
    {
      double busy = ffm_cost_report_get_compute_utilization (r, i);
      g_ptr_array_add (labels, ffm_workload_get_einsum (w, ffm_cost_report_get_einsum (r, i))->name);
      g_array_append_val (values, busy);
    }
  figure (out, ffm_chart_bars ("Compute busy per Einsum (operations / (units x rate x "
                               "latency))", (const char *const *) labels->pdata,
                               (const double *) values->data, values->len, NULL, TRUE),
          "chart utilization", NULL);
  if (fanouts != NULL && ffm_cli_table_get_n_rows (fanouts) > 0)
    table_html (out, fanouts, "Fanout utilization (instances used)", -1, NULL);
}

/* The fusion row of one mapping: its Einsums and, for every tensor passed
 * on chip, a link from its producer to each consumer. */
static void
fusion_section (GString *out, const FfmCostReport *r, const GPtrArray *tables)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  const FfmArch *a = ffm_cost_report_get_arch (r);
  g_autoptr (GArray) fusion = ffm_cli_report_fusion_decisions (r);
  guint n = ffm_workload_get_n_einsums (w);
  g_autofree const char **boxes = g_new0 (const char *, MAX (n, 1));
  g_autoptr (GArray) from = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) to = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) kind = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) kinds = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) kind_levels = g_array_new (FALSE, FALSE, sizeof (int));
  const FfmCliTable *table = find_table (tables, "fusion");
  FfmPlotFusionRow row = { 0 };

  for (guint e = 0; e < n; e++)
    boxes[e] = ffm_workload_get_einsum (w, e)->name;
  for (guint i = 0; i < fusion->len; i++)
    {
      const FfmCliFusion *f = &g_array_index (fusion, FfmCliFusion, i);
      int t = ffm_workload_find_tensor (w, f->tensor), p = ffm_workload_find_einsum (w, f->producer);
      guint k;
      if (!f->on_chip || t < 0 || p < 0)
        continue;
      for (k = 0; k < kind_levels->len; k++)
        if (g_array_index (kind_levels, int, k) == f->level)
          break;
      if (k == kind_levels->len)
        {
          g_array_append_val (kind_levels, f->level);
          g_ptr_array_add (kinds, g_strdup_printf ("tensor kept in %s",
                                                   ffm_arch_get_level (a, (guint) f->level)->name));
        }
      for (guint e = 0; e < n; e++)
        {
          const FfmEinsum *es = ffm_workload_get_einsum (w, e);
          int acc = ffm_einsum_find_access (es, (guint) t);
          guint pu = (guint) p;
          if (acc < 0 || es->accesses[acc].is_output)
            continue;
          g_array_append_val (from, pu);
          g_array_append_val (to, e);
          g_array_append_val (kind, k);
        }
    }
  row.label = "this mapping";
  row.boxes = boxes;
  row.n_boxes = n;
  row.from = (const guint *) from->data;
  row.to = (const guint *) to->data;
  row.kind = (const guint *) kind->data;
  row.n_links = from->len;
  figure (out, ffm_chart_fusion ("Which Einsums are fused (the FFM paper's Fig. 13)", &row, 1,
                                 (const char *const *) kinds->pdata, kinds->len),
          "chart fusion", NULL);
  if (table != NULL && ffm_cli_table_get_n_rows (table) > 0)
    table_html (out, table, "Tensors passed between Einsums", -1, NULL);
}

static void
tables_section (GString *out, const FfmCostReport *r, const GPtrArray *tables)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);

  for (guint i = 0; tables != NULL && i < tables->len; i++)
    {
      const FfmCliTable *t = g_ptr_array_index (tables, i);
      const char *name = ffm_cli_table_get_name (t);
      const char *title = ffm_cli_table_get_title (t);
      if (ffm_cli_table_get_n_rows (t) == 0 || strcmp (name, "fanouts") == 0
          || strcmp (name, "fusion") == 0)
        continue;
      if (strcmp (name, "details") != 0)
        {
          table_html (out, t, title != NULL ? title : name, -1, NULL);
          continue;
        }
      /* The details, one collapsible section per Einsum. */
      g_string_append (out, "<h3>");
      esc (out, title);
      g_string_append (out, "</h3>\n<div class=\"per-einsum\">\n<div class=\"tools\"></div>\n");
      for (guint e = 0; e < ffm_cost_report_get_n_einsums (r); e++)
        {
          const char *einsum = ffm_workload_get_einsum (w, ffm_cost_report_get_einsum (r, e))->name;
          const FfmPmappingCost *c = ffm_cost_report_get_cost (r, e);
          g_autofree char *energy = ffm_format_si (c->energy, "J");
          g_autofree char *latency = ffm_format_si (c->latency, "s");
          g_string_append (out, "<details open data-einsum=\"");
          esc (out, einsum);
          g_string_append (out, "\"><summary>");
          escf (out, "Einsum %s: %s, %s", einsum, energy, latency);
          g_string_append (out, "</summary>\n");
          table_html (out, t, NULL, 0, einsum);
          g_string_append (out, "</details>\n");
        }
      g_string_append (out, "</div>\n");
    }
}

char *
ffm_html_results_to_string (const char *command, const FfmHtmlResult *results, guint n,
                            const GPtrArray *comparison_tables, const GPtrArray *warnings,
                            const char *json)
{
  Page p;
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonNode *root = NULL;
  g_autofree char *title = NULL, *subtitle = NULL;
  const FfmCostReport *first = results[0].report;

  if (json != NULL && json_parser_load_from_data (parser, json, -1, NULL))
    root = json_parser_get_root (parser);
  if (n == 1)
    title = g_strdup_printf ("ffm %s: %s on %s", command,
                             ffm_workload_get_name (ffm_cost_report_get_workload (first)),
                             ffm_arch_get_name (ffm_cost_report_get_arch (first)));
  else
    title = g_strdup_printf ("ffm %s: %u results", command, n);
  if (n == 1 && results[0].label != NULL)
    subtitle = g_strdup_printf ("The mapping of %s, evaluated by ffm's cost model", results[0].label);
  else if (n == 1)
    subtitle = g_strdup ("The best mapping found and its cost, by ffm's cost model");
  else
    subtitle = g_strdup ("The mappings side by side, each evaluated by ffm's cost model");
  page_init (&p, title, subtitle);
  if (comparison_tables != NULL && comparison_tables->len > 0)
    {
      section_begin (&p, "comparison", "Side by side");
      for (guint i = 0; i < comparison_tables->len; i++)
        table_html (p.body, g_ptr_array_index (comparison_tables, i), NULL, -1, NULL);
      for (guint i = 0; warnings != NULL && i < warnings->len; i++)
        {
          g_autofree char *text = g_strdup_printf ("Warning: %s",
                                                   (const char *) g_ptr_array_index (warnings, i));
          paragraph (p.body, "warning", text);
        }
      section_end (&p);
    }
  for (guint i = 0; i < n; i++)
    {
      const FfmHtmlResult *res = &results[i];
      JsonObject *o = record_object (root, i, n);
      g_autofree char *prefix = n > 1 ? g_strdup_printf ("r%u-", i + 1) : g_strdup ("");
      g_autofree char *id = NULL;
      if (n > 1)
        {
          g_autofree char *heading = g_strdup_printf ("Result %u: %s", i + 1,
                                                      res->label != NULL ? res->label : "");
          id = g_strdup_printf ("r%u", i + 1);
          section_begin (&p, id, heading);
          g_string_append (p.body, "<div class=\"result\">\n");
        }
#define SUB(ident, heading)                                                        \
      do {                                                                         \
        g_autofree char *sid = g_strconcat (prefix, ident, NULL);                  \
        if (n == 1)                                                                \
          section_begin (&p, sid, heading);                                        \
        else                                                                       \
          {                                                                        \
            g_string_append_printf (p.body, "<h3 id=\"%s\">", sid);                 \
            esc (p.body, heading);                                                 \
            g_string_append (p.body, "</h3>\n");                                   \
          }                                                                        \
      } while (0)
#define SUB_END() do { if (n == 1) section_end (&p); } while (0)
      SUB ("summary", "Summary");
      result_summary (p.body, res->report, o);
      SUB_END ();
      {
        g_autofree char *mid = g_strconcat (prefix, "mapping", NULL);
        SUB ("mapping", "Mapping");
        mapping_section (p.body, res, mid);
        SUB_END ();
      }
      SUB ("energy", "Energy");
      energy_section (p.body, res->report);
      SUB_END ();
      SUB ("utilization", "Utilization");
      utilization_section (p.body, res->report, res->tables);
      SUB_END ();
      SUB ("fusion", "Fusion");
      fusion_section (p.body, res->report, res->tables);
      SUB_END ();
      SUB ("tables", "Tables of the report");
      tables_section (p.body, res->report, res->tables);
      SUB_END ();
#undef SUB
#undef SUB_END
      if (n > 1)
        {
          g_string_append (p.body, "</div>\n");
          section_end (&p);
        }
    }
  record_section (&p, json);
  return page_finish (&p, json);
}

gboolean
ffm_html_write_results (const char *path, const char *command, const FfmHtmlResult *results,
                        guint n, const GPtrArray *comparison_tables, const GPtrArray *warnings,
                        const char *json, GError **error)
{
  g_autofree char *html = ffm_html_results_to_string (command, results, n, comparison_tables,
                                                      warnings, json);

  return write_page (path, html, error);
}

/* ---- JSON helpers ---- */

static double
member_double (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL && json_object_has_member (o, name)
    ? json_object_get_member (o, name) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return NAN;
  switch (json_node_get_value_type (n))
    {
    case G_TYPE_DOUBLE:
      return json_node_get_double (n);
    case G_TYPE_INT64:
      return (double) json_node_get_int (n);
    default:
      return NAN;
    }
}

static JsonArray *
member_array (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL && json_object_has_member (o, name)
    ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

static JsonObject *
member_object (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL && json_object_has_member (o, name)
    ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static JsonObject *
element_object (JsonArray *a, guint i)
{
  JsonNode *n = json_array_get_element (a, i);

  return n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

/* The record's root object, or NULL with an error naming @what. */
static JsonObject *
parse_record (JsonParser *parser, const char *json, const char *what, GError **error)
{
  g_autoptr (GError) local = NULL;
  JsonNode *root;

  if (json == NULL || !json_parser_load_from_data (parser, json, -1, &local))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--html: the %s record does not "
                   "parse: %s", what, local != NULL ? local->message : "none");
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--html: the %s record is not "
                   "a JSON object", what);
      return NULL;
    }
  return json_node_get_object (root);
}

/* Index of @text in @names (of char*), added when absent. */
static guint
intern (GPtrArray *names, const char *text)
{
  for (guint i = 0; i < names->len; i++)
    if (g_strcmp0 (names->pdata[i], text) == 0)
      return i;
  g_ptr_array_add (names, g_strdup (text));
  return names->len - 1;
}

/* ---- A sweep ---- */

typedef struct {
  JsonObject *o;
  const char *policy;
  char *point;                  /* the swept values: "512", "512, 4" (owned) */
  gboolean ok;
} SweepRow;

/* Grouped stacked bars of the objects @member of the rows (keys: the
 * components), one group per point, one bar per policy; scaled per point
 * when the points' totals differ by more than 10x (as --plot does). */
static FfmCanvas *
sweep_bars (const char *title, const char *what, const char *swept, const char *member,
            const GArray *rows, GPtrArray *points, GPtrArray *policies, gboolean keep_all)
{
  g_autoptr (GPtrArray) components = g_ptr_array_new_with_free_func (g_free);
  guint n_groups = points->len, n_bars = policies->len;
  g_autofree double *values = NULL;
  g_autofree double *totals = g_new0 (double, MAX (n_groups * n_bars, 1));
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *y_label = NULL, *x_label = NULL;
  double lo = INFINITY, hi = 0;
  gboolean scaled;
  FfmPlotAxes axes = { 0 };
  FfmPlotBarGroups g;

  for (guint r = 0; r < rows->len; r++)
    {
      const SweepRow *row = &g_array_index (rows, SweepRow, r);
      JsonObject *m = member_object (row->o, member);
      g_autoptr (GList) keys = m != NULL ? json_object_get_members (m) : NULL;
      for (GList *k = keys; k != NULL; k = k->next)
        if (keep_all || member_double (m, k->data) > 0)
          intern (components, k->data);
    }
  values = g_new0 (double, MAX ((gsize) n_groups * n_bars * MAX (components->len, 1), 1));
  for (guint i = 0; i < (gsize) n_groups * n_bars * components->len; i++)
    values[i] = NAN;
  for (guint r = 0; r < rows->len; r++)
    {
      const SweepRow *row = &g_array_index (rows, SweepRow, r);
      JsonObject *m = member_object (row->o, member);
      guint bar = intern (points, row->point) * n_bars + intern (policies, row->policy);
      for (guint k = 0; row->ok && k < components->len; k++)
        {
          double v = member_double (m, components->pdata[k]);
          values[(gsize) bar * components->len + k] = v;
          if (isfinite (v) && v > 0)
            totals[bar] += v;
        }
    }
  for (guint b = 0; b < n_groups * n_bars; b++)
    g_ptr_array_add (notes, totals[b] > 0 ? ffm_format_si (totals[b], "J") : g_strdup ("-"));
  for (guint gi = 0; gi < n_groups; gi++)
    {
      double top = 0;
      for (guint b = 0; b < n_bars; b++)
        top = MAX (top, totals[gi * n_bars + b]);
      if (top > 0)
        {
          lo = MIN (lo, top);
          hi = MAX (hi, top);
        }
    }
  scaled = isfinite (lo) && hi > 10 * lo;
  for (guint gi = 0; scaled && gi < n_groups; gi++)
    {
      double top = 0;
      for (guint b = 0; b < n_bars; b++)
        top = MAX (top, totals[gi * n_bars + b]);
      for (guint b = 0; top > 0 && b < n_bars; b++)
        for (guint k = 0; k < components->len; k++)
          values[(gsize) (gi * n_bars + b) * components->len + k] /= top;
    }
  y_label = scaled ? g_strdup_printf ("%s / the point's largest", what)
                   : g_strdup_printf ("%s (J)", what);
  x_label = g_strdup_printf ("policy, then %s (totals above the bars)", swept);
  axes.title = title;
  axes.x_label = x_label;
  axes.y_label = y_label;
  g = (FfmPlotBarGroups) { (const char *const *) points->pdata, n_groups,
                           (const char *const *) policies->pdata, n_bars,
                           (const char *const *) components->pdata, components->len, values,
                           (const char *const *) notes->pdata };
  return ffm_chart_grouped_bars (&axes, &g);
}

static void
sweep_row_clear (gpointer data)
{
  g_free (((SweepRow *) data)->point);
}

char *
ffm_html_sweep_to_string (const char *heading, const char *json, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = parse_record (parser, json, "sweep", error);
  JsonArray *points_json;
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (SweepRow));
  g_autoptr (GPtrArray) params = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) points = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) policies = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (FfmCliTable) table = ffm_cli_table_new ("points", "Every point and policy");
  g_autofree char *title = NULL, *swept = NULL;
  guint n_failed = 0;
  Page p;

  if (root == NULL)
    return NULL;
  points_json = member_array (root, "points");
  if (points_json == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--html: the sweep record has "
                   "no points");
      return NULL;
    }
  g_array_set_clear_func (rows, sweep_row_clear);
  for (guint i = 0; i < json_array_get_length (points_json); i++)
    {
      JsonObject *o = element_object (points_json, i);
      JsonObject *pv = member_object (o, "parameters");
      g_autoptr (GList) keys = pv != NULL ? json_object_get_members (pv) : NULL;
      GString *point = g_string_new (NULL);
      SweepRow row = { o, member_string (o, "policy"), NULL,
                       g_strcmp0 (member_string (o, "status"), "ok") == 0 };
      if (o == NULL)
        {
          g_string_free (point, TRUE);
          continue;
        }
      for (GList *k = keys; k != NULL; k = k->next)
        {
          intern (params, k->data);
          g_string_append_printf (point, "%s%s", point->len ? ", " : "",
                                  member_string (pv, k->data) != NULL
                                  ? member_string (pv, k->data) : "?");
        }
      row.point = g_string_free (point, FALSE);
      if (row.policy == NULL)
        row.policy = "?";
      intern (points, row.point);
      intern (policies, row.policy);
      n_failed += !row.ok;
      g_array_append_val (rows, row);
    }
  {
    GString *s = g_string_new (NULL);
    for (guint i = 0; i < params->len; i++)
      g_string_append_printf (s, "%s%s", i ? ", " : "", (const char *) params->pdata[i]);
    swept = g_string_free (s, FALSE);
  }
  title = g_strdup_printf ("ffm sweep: %s", heading != NULL ? heading : swept);
  {
    g_autofree char *sub = g_strdup_printf ("The best mapping at %u point%s of %s under %u "
                                            "polic%s", points->len, points->len == 1 ? "" : "s",
                                            swept, policies->len,
                                            policies->len == 1 ? "y" : "ies");
    page_init (&p, title, sub);
  }

  section_begin (&p, "summary", "Summary");
  g_string_append (p.body, "<dl class=\"summary\">\n");
  summary_item (p.body, "Swept", "swept", swept, NULL);
  {
    GString *s = g_string_new (NULL);
    g_autofree char *count = g_strdup_printf ("%u", rows->len);
    g_autofree char *failed = g_strdup_printf ("%u", n_failed);
    for (guint i = 0; i < policies->len; i++)
      g_string_append_printf (s, "%s%s", i ? ", " : "", (const char *) policies->pdata[i]);
    summary_item (p.body, "Policies", "policies", s->str, NULL);
    summary_item (p.body, "Rows (points x policies)", "rows", count, count);
    summary_item (p.body, "Failed", "failed", failed, failed);
    g_string_free (s, TRUE);
  }
  g_string_append (p.body, "</dl>\n");
  section_end (&p);

  /* The table. */
  ffm_cli_table_add_text_column (table, "policy", "policy");
  for (guint i = 0; i < params->len; i++)
    ffm_cli_table_add_text_column (table, params->pdata[i], params->pdata[i]);
  ffm_cli_table_add_text_column (table, "status", "status");
  ffm_cli_table_add_column (table, "energy_j", "energy");
  ffm_cli_table_add_column (table, "latency_s", "latency");
  ffm_cli_table_add_column (table, "edp_js", "EDP");
  ffm_cli_table_add_column (table, "seconds", "wall time");
  ffm_cli_table_add_text_column (table, "on_chip", "kept on chip");
  ffm_cli_table_add_text_column (table, "error", "error");
  for (guint r = 0; r < rows->len; r++)
    {
      const SweepRow *row = &g_array_index (rows, SweepRow, r);
      JsonObject *pv = member_object (row->o, "parameters");
      JsonArray *fused = member_array (row->o, "fused_tensors");
      JsonObject *levels = member_object (row->o, "energy_by_level_j");
      g_autoptr (GList) level_names = levels != NULL ? json_object_get_members (levels) : NULL;
      const char *outermost = level_names != NULL ? level_names->data : NULL;
      GString *on_chip = g_string_new (NULL);
      ffm_cli_table_add_row (table);
      ffm_cli_table_cell (table, row->policy, NULL);
      for (guint i = 0; i < params->len; i++)
        ffm_cli_table_cell (table, member_string (pv, params->pdata[i]) != NULL
                            ? member_string (pv, params->pdata[i]) : "", NULL);
      ffm_cli_table_cell (table, row->ok ? "ok" : "failed", NULL);
      if (row->ok)
        {
          ffm_cli_table_cell_quantity (table, member_double (row->o, "energy_j"), "J");
          ffm_cli_table_cell_quantity (table, member_double (row->o, "latency_s"), "s");
          ffm_cli_table_cell_quantity (table, member_double (row->o, "edp_js"), "J*s");
        }
      else
        {
          ffm_cli_table_cell_empty (table);
          ffm_cli_table_cell_empty (table);
          ffm_cli_table_cell_empty (table);
        }
      ffm_cli_table_cell_quantity (table, member_double (row->o, "seconds"), "s");
      /* "GlobalBuffer: I, V, K": every tensor passed between Einsums is
       * listed with where it is backed; the outermost memory (the first
       * of the energies by level) is off chip. */
      {
        g_autoptr (GPtrArray) where = g_ptr_array_new_with_free_func (g_free);
        g_autoptr (GPtrArray) lists = g_ptr_array_new_with_free_func (g_free);
        for (guint k = 0; fused != NULL && k < json_array_get_length (fused); k++)
          {
            JsonObject *f = element_object (fused, k);
            const char *level = member_string (f, "level");
            guint at;
            if (f == NULL || level == NULL || g_strcmp0 (level, outermost) == 0)
              continue;
            at = intern (where, level);
            if (at == lists->len)
              g_ptr_array_add (lists, g_strdup (member_string (f, "tensor")));
            else
              {
                char *more = g_strdup_printf ("%s, %s", (char *) lists->pdata[at],
                                              member_string (f, "tensor"));
                g_free (lists->pdata[at]);
                lists->pdata[at] = more;
              }
          }
        for (guint k = 0; k < where->len; k++)
          g_string_append_printf (on_chip, "%s%s: %s", k ? "; " : "",
                                  (char *) where->pdata[k], (char *) lists->pdata[k]);
      }
      ffm_cli_table_cell (table, on_chip->str, NULL);
      ffm_cli_table_cell (table, member_string (row->o, "error") != NULL
                          ? member_string (row->o, "error") : "", NULL);
      g_string_free (on_chip, TRUE);
    }
  section_begin (&p, "points", "Points");
  table_html (p.body, table, NULL, -1, NULL);
  section_end (&p);

  /* EDP against the first swept parameter, when it is a number. */
  section_begin (&p, "edp", "EDP");
  {
    g_autoptr (GPtrArray) xs = g_ptr_array_new_with_free_func (g_free);
    g_autofree double *x = NULL, *y = NULL;
    g_autofree FfmPlotSeries *series = g_new0 (FfmPlotSeries, MAX (policies->len, 1));
    gboolean numeric = params->len > 0;
    for (guint r = 0; r < rows->len && numeric; r++)
      {
        const SweepRow *row = &g_array_index (rows, SweepRow, r);
        const char *v = member_string (member_object (row->o, "parameters"), params->pdata[0]);
        char *end = NULL;
        if (v == NULL)
          continue;
        g_ascii_strtod (v, &end);
        numeric = end != v && *end == '\0';
        intern (xs, v);
      }
    if (!numeric)
      paragraph (p.body, NULL, "The first swept parameter is not a number: no line plot "
                 "(the table above has every point).");
    else
      {
        g_autofree char *t = g_strdup_printf ("EDP of the best mapping against %s",
                                              (const char *) params->pdata[0]);
        FfmPlotAxes axes = { t, params->pdata[0], "EDP (J*s)", TRUE, TRUE, 0, 0, 0, 0 };
        x = g_new (double, xs->len);
        y = g_new (double, (gsize) xs->len * policies->len);
        for (guint i = 0; i < xs->len; i++)
          {
            x[i] = g_ascii_strtod (xs->pdata[i], NULL);
            axes.log_x &= x[i] > 0;
          }
        for (guint i = 0; i < (gsize) xs->len * policies->len; i++)
          y[i] = NAN;
        for (guint r = 0; r < rows->len; r++)
          {
            const SweepRow *row = &g_array_index (rows, SweepRow, r);
            JsonObject *pv = member_object (row->o, "parameters");
            gboolean first_elsewhere = TRUE;
            const char *v = member_string (pv, params->pdata[0]);
            /* The other parameters at the value of the first row. */
            for (guint k = 1; k < params->len; k++)
              first_elsewhere &= g_strcmp0 (member_string (pv, params->pdata[k]),
                                            member_string (member_object (g_array_index (rows, SweepRow, 0).o,
                                                                          "parameters"),
                                                           params->pdata[k])) == 0;
            if (!row->ok || !first_elsewhere || v == NULL)
              continue;
            y[(gsize) intern (policies, row->policy) * xs->len + intern (xs, v)]
              = member_double (row->o, "edp_js");
          }
        for (guint k = 0; k < policies->len; k++)
          series[k] = (FfmPlotSeries) { policies->pdata[k], xs->len, x, y + (gsize) k * xs->len,
                                        NULL, NULL, TRUE };
        figure (p.body, ffm_chart_lines (&axes, series, policies->len), "chart sweep-edp",
                params->len > 1 ? "The other swept parameters at their first value." : NULL);
      }
  }
  section_end (&p);

  section_begin (&p, "energy", "Energy");
  figure (p.body, sweep_bars ("Energy by component", "energy", swept, "energy_by_level_j", rows,
                              points, policies, FALSE), "chart sweep-components",
          "The FFM paper's Fig. 12(a).");
  figure (p.body, sweep_bars ("Off-chip energy by tensor class", "off-chip energy", swept,
                              "offchip_energy_by_tensor_class_j", rows, points, policies, TRUE),
          "chart sweep-classes", "The FFM paper's Fig. 12(b): the outermost memory's energy.");
  section_end (&p);

  section_begin (&p, "fusion", "Fusion");
  {
    g_autofree FfmPlotFusionRow *frows = g_new0 (FfmPlotFusionRow, MAX (rows->len, 1));
    g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GPtrArray) levels = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GPtrArray) kinds = g_ptr_array_new_with_free_func (g_free);
    for (guint r = 0; r < rows->len; r++)
      {
        const SweepRow *row = &g_array_index (rows, SweepRow, r);
        JsonArray *einsums = member_array (row->o, "einsums");
        JsonArray *pairs = member_array (row->o, "fused_einsums");
        guint n = einsums != NULL ? json_array_get_length (einsums) : 0;
        guint n_pairs = pairs != NULL ? json_array_get_length (pairs) : 0;
        const char **boxes = g_new0 (const char *, MAX (n, 1));
        guint *from = g_new0 (guint, MAX (n_pairs, 1)), *to = g_new0 (guint, MAX (n_pairs, 1));
        guint *kind = g_new0 (guint, MAX (n_pairs, 1)), m = 0;
        FfmPlotFusionRow *o = &frows[r];
        g_ptr_array_add (keep, boxes);
        g_ptr_array_add (keep, from);
        g_ptr_array_add (keep, to);
        g_ptr_array_add (keep, kind);
        g_ptr_array_add (keep, g_strdup_printf ("%s, %s", row->policy, row->point));
        o->label = g_ptr_array_index (keep, keep->len - 1);
        o->failed = !row->ok;
        for (guint i = 0; i < n; i++)
          boxes[i] = json_array_get_string_element (einsums, i);
        o->boxes = boxes;
        o->n_boxes = row->ok ? n : 0;
        for (guint k = 0; k < n_pairs; k++)
          {
            JsonObject *pair = element_object (pairs, k);
            const char *a = member_string (pair, "producer"), *b = member_string (pair, "consumer");
            const char *level = member_string (pair, "level");
            int ia = -1, ib = -1;
            guint before;
            if (a == NULL || b == NULL || level == NULL)
              continue;
            for (guint i = 0; i < n; i++)
              {
                if (g_strcmp0 (boxes[i], a) == 0)
                  ia = (int) i;
                if (g_strcmp0 (boxes[i], b) == 0)
                  ib = (int) i;
              }
            before = levels->len;
            kind[m] = intern (levels, level);
            if (levels->len > before)
              g_ptr_array_add (kinds, g_strdup_printf ("tensor kept in %s", level));
            if (ia < 0 || ib < 0)
              continue;
            from[m] = (guint) ia;
            to[m++] = (guint) ib;
          }
        o->from = from;
        o->to = to;
        o->kind = kind;
        o->n_links = m;
      }
    {
      g_autofree char *t = g_strdup_printf ("Fusion per policy and %s", swept);
      figure (p.body, ffm_chart_fusion (t, frows, rows->len, (const char *const *) kinds->pdata,
                                        kinds->len), "chart sweep-fusion",
              "The FFM paper's Fig. 13.");
    }
  }
  section_end (&p);
  record_section (&p, json);
  return page_finish (&p, json);
}

gboolean
ffm_html_write_sweep (const char *path, const char *heading, const char *json, GError **error)
{
  g_autofree char *html = ffm_html_sweep_to_string (heading, json, error);

  return write_page (path, html, error);
}

/* ---- A comparison ---- */

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The best objective @run's trace reached by @t modelled seconds, or
 * NAN. */
static double
best_by (JsonObject *run, double t)
{
  JsonArray *trace = member_array (run, "trace");
  double best = NAN;

  for (guint i = 0; trace != NULL && i < json_array_get_length (trace); i++)
    {
      JsonObject *pt = element_object (trace, i);
      if (member_double (pt, "modelled_seconds") <= t)
        best = member_double (pt, "best_objective");
    }
  return best;
}

/* "12.3 % [4.1, 20.2]" of one checkpoint object (transfer full). */
static char *
spread_text (JsonObject *s)
{
  double median = member_double (s, "median_percent");

  if (!isfinite (median))
    return g_strdup ("no mapping");
  return g_strdup_printf ("%.3g %% [%.3g, %.3g]", median, member_double (s, "min_percent"),
                          member_double (s, "max_percent"));
}

char *
ffm_html_compare_to_string (const char *json, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = parse_record (parser, json, "comparison", error);
  JsonArray *strategies, *checkpoints;
  JsonObject *ffm;
  double optimum, ffm_seconds;
  g_autofree char *title = NULL, *sub = NULL;
  Page p;

  if (root == NULL)
    return NULL;
  strategies = member_array (root, "strategies");
  checkpoints = member_array (root, "checkpoints");
  ffm = member_object (root, "ffm");
  optimum = member_double (ffm, "optimum");
  /* T, the unit of the checkpoints (ffm's wall time unless the record
   * says otherwise: --budget-reference). */
  ffm_seconds = member_double (ffm, "time_unit_seconds");
  if (!isfinite (ffm_seconds))
    ffm_seconds = member_double (ffm, "seconds");
  if (strategies == NULL || !isfinite (optimum))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--html: the comparison record "
                   "has no strategies or no optimum");
      return NULL;
    }
  title = g_strdup_printf ("ffm compare: %s on %s",
                           member_string (root, "workload") != NULL
                           ? member_string (root, "workload") : "?",
                           member_string (root, "architecture") != NULL
                           ? member_string (root, "architecture") : "?");
  sub = g_strdup_printf ("Strategies head to head on one problem, cost model, mapspace and "
                         "budget; objective %s", member_string (root, "objective") != NULL
                         ? member_string (root, "objective") : "?");
  page_init (&p, title, sub);

  section_begin (&p, "summary", "Summary");
  g_string_append (p.body, "<dl class=\"summary\">\n");
  {
    g_autofree char *opt = g_strdup_printf ("%.6g", optimum);
    g_autofree char *opt_exact = exact (optimum);
    g_autofree char *runs = g_strdup_printf ("%.0f", member_double (root, "runs"));
    summary_item (p.body, "Workload", "workload", member_string (root, "workload"), NULL);
    summary_item (p.body, "Architecture", "architecture", member_string (root, "architecture"),
                  NULL);
    summary_item (p.body, "Objective", "objective", member_string (root, "objective"), NULL);
    summary_item (p.body, "ffm's optimum", "optimum", opt, opt_exact);
    if (isfinite (ffm_seconds))
      summary_quantity (p.body, "ffm's time", "ffm_seconds", ffm_seconds, "s");
    if (isfinite (member_double (root, "shared_pmappings_seconds")))
      summary_quantity (p.body, "Shared pmapping generation", "shared_pmappings_seconds",
                        member_double (root, "shared_pmappings_seconds"), "s");
    summary_item (p.body, "Runs per strategy", "runs", runs, runs);
    if (json_object_has_member (root, "interrupted")
        && json_object_get_boolean_member (root, "interrupted"))
      summary_item (p.body, "Interrupted", "interrupted", member_string (root, "stopped_by"),
                    NULL);
  }
  g_string_append (p.body, "</dl>\n");
  section_end (&p);

  section_begin (&p, "checkpoints", "Distance to the optimum");
  for (int wall = 0; wall <= 1; wall++)
    {
      g_autoptr (FfmCliTable) t = ffm_cli_table_new (wall ? "at_wall_time" : "at_modelled_time",
                                                     NULL);
      ffm_cli_table_add_text_column (t, "strategy", "strategy");
      for (guint k = 0; checkpoints != NULL && k < json_array_get_length (checkpoints); k++)
        {
          g_autofree char *key = g_strdup_printf ("percent_at_%gx",
                                                  json_array_get_double_element (checkpoints, k));
          g_autofree char *heading = g_strdup_printf ("%gx",
                                                      json_array_get_double_element (checkpoints, k));
          ffm_cli_table_add_column (t, key, heading);
        }
      for (guint i = 0; i < json_array_get_length (strategies); i++)
        {
          JsonObject *s = element_object (strategies, i);
          JsonArray *at = member_array (s, wall ? "at_wall_time" : "at_modelled_time");
          ffm_cli_table_add_row (t);
          ffm_cli_table_cell (t, member_string (s, "name"), NULL);
          for (guint k = 0; at != NULL && k < json_array_get_length (at)
                            && checkpoints != NULL && k < json_array_get_length (checkpoints); k++)
            {
              JsonObject *sp = element_object (at, k);
              g_autofree char *median = exact (member_double (sp, "median_percent"));
              ffm_cli_table_cell_take (t, spread_text (sp),
                                       isfinite (member_double (sp, "median_percent"))
                                       ? g_steal_pointer (&median) : g_strdup (""));
            }
        }
      table_html (p.body, t, wall ? "Percent above ffm's optimum by k x ffm's time, wall clock "
                                    "(shared pmapping generation included): median [min, max] "
                                    "over runs"
                                  : "Percent above ffm's optimum by k x ffm's time, modelled as "
                                    "in the FFM paper: median [min, max] over runs", -1, NULL);
    }
  section_end (&p);

  section_begin (&p, "convergence", "Convergence");
  {
    /* Percent above the optimum against modelled time over ffm's, the
     * median and spread over runs at log-spaced times (as --plot). */
    const guint n_points = 60;
    double lo = INFINITY, hi = 0;
    guint n_strategies = json_array_get_length (strategies);
    g_autofree FfmPlotSeries *series = g_new0 (FfmPlotSeries, n_strategies + 1);
    g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
    /* As ffm compare --plot draws Fig. 8: both axes log10, time to
     * 10,000x ffm's, 0 % drawn at the bottom (0.01 %). */
    static const double one = 1, floor_value = 0.01;
    double top = 10;
    FfmPlotAxes axes = { "Percent above the optimum against modelled time",
                         "modelled time / ffm's time", "% above optimal (0 drawn at 0.01 %)",
                         TRUE, TRUE, 0, 0.1, 1e4, floor_value };
    for (guint i = 0; i < n_strategies; i++)
      {
        JsonArray *runs = member_array (element_object (strategies, i), "runs");
        for (guint r = 0; runs != NULL && r < json_array_get_length (runs); r++)
          {
            JsonArray *trace = member_array (element_object (runs, r), "trace");
            for (guint k = 0; trace != NULL && k < json_array_get_length (trace); k++)
              {
                double t = member_double (element_object (trace, k), "modelled_seconds")
                  / ffm_seconds;
                if (isfinite (t) && t > 0)
                  {
                    lo = MIN (lo, t);
                    hi = MAX (hi, t);
                  }
              }
          }
      }
    if (!isfinite (lo) || hi <= lo)
      {
        lo = 0.1;
        hi = 10;
      }
    series[0] = (FfmPlotSeries) { "ffm", 1, &one, &floor_value, NULL, NULL, TRUE };
    for (guint i = 0; i < n_strategies; i++)
      {
        JsonObject *s = element_object (strategies, i);
        JsonArray *runs = member_array (s, "runs");
        guint n_runs = runs != NULL ? json_array_get_length (runs) : 0;
        double *x = g_new (double, n_points), *y = g_new (double, n_points);
        double *low = g_new (double, n_points), *high = g_new (double, n_points);
        g_autofree double *at = g_new (double, MAX (n_runs, 1));
        g_ptr_array_add (owned, x);
        g_ptr_array_add (owned, y);
        g_ptr_array_add (owned, low);
        g_ptr_array_add (owned, high);
        for (guint k = 0; k < n_points; k++)
          {
            guint m = 0;
            x[k] = lo * pow (hi / lo, (double) k / (n_points - 1));
            for (guint r = 0; r < n_runs; r++)
              {
                double best = best_by (element_object (runs, r), x[k] * ffm_seconds);
                if (isfinite (best))
                  at[m++] = 100 * (best - optimum) / fabs (optimum);
              }
            qsort (at, m, sizeof (double), compare_doubles);
            y[k] = m == 0 ? NAN : MAX (m % 2 ? at[m / 2] : (at[m / 2 - 1] + at[m / 2]) / 2,
                                       floor_value);
            low[k] = m == 0 ? NAN : MAX (at[0], floor_value);
            high[k] = m == 0 ? NAN : MAX (at[m - 1], floor_value);
            if (isfinite (y[k]))
              top = MAX (top, y[k]);
          }
        series[i + 1] = (FfmPlotSeries) { member_string (s, "name"), n_points, x, y,
                                          n_runs > 1 ? low : NULL, n_runs > 1 ? high : NULL,
                                          FALSE };
      }
    axes.y_max = 1.15 * top;
    figure (p.body, ffm_chart_lines (&axes, series, n_strategies + 1), "chart convergence",
            "The FFM paper's Fig. 8: the median over runs, the band from the best run to the "
            "worst; ffm reaches its optimum at 1x.");
  }
  section_end (&p);

  section_begin (&p, "runs", "Every run");
  {
    g_autoptr (FfmCliTable) t = ffm_cli_table_new ("runs", NULL);
    ffm_cli_table_add_text_column (t, "strategy", "strategy");
    ffm_cli_table_add_column (t, "run", "run");
    ffm_cli_table_add_column (t, "seed", "seed");
    ffm_cli_table_add_column (t, "objective", "objective");
    ffm_cli_table_add_column (t, "percent_above_optimum", "% above optimum");
    ffm_cli_table_add_column (t, "seconds", "wall time");
    ffm_cli_table_add_text_column (t, "interrupted", "interrupted");
    for (guint i = 0; i < json_array_get_length (strategies); i++)
      {
        JsonObject *s = element_object (strategies, i);
        JsonArray *runs = member_array (s, "runs");
        for (guint r = 0; runs != NULL && r < json_array_get_length (runs); r++)
          {
            JsonObject *run = element_object (runs, r);
            double pct = member_double (run, "percent_above_optimum");
            ffm_cli_table_add_row (t);
            ffm_cli_table_cell (t, member_string (s, "name"), NULL);
            ffm_cli_table_cell_count (t, r + 1);
            ffm_cli_table_cell_printf (t, "%.0f", member_double (run, "seed"));
            ffm_cli_table_cell_take (t, g_strdup_printf ("%.6g", member_double (run, "objective")),
                                     exact (member_double (run, "objective")));
            if (isfinite (pct))
              ffm_cli_table_cell_take (t, g_strdup_printf ("%.3g %%", pct), exact (pct));
            else
              ffm_cli_table_cell_empty (t);
            ffm_cli_table_cell_quantity (t, member_double (run, "seconds"), "s");
            ffm_cli_table_cell_boolean (t, json_object_has_member (run, "interrupted")
                                        && json_object_get_boolean_member (run, "interrupted"));
          }
      }
    table_html (p.body, t, NULL, -1, NULL);
  }
  section_end (&p);
  record_section (&p, json);
  return page_finish (&p, json);
}

gboolean
ffm_html_write_compare (const char *path, const char *json, GError **error)
{
  g_autofree char *html = ffm_html_compare_to_string (json, error);

  return write_page (path, html, error);
}
