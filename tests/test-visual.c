/* test-visual.c: looking at results, as a person would (the built `ffm`,
 * FFM_EXE, and the modules behind it):
 *   - the mapping diagram (--diagram, --diagram-dot) for every shipped
 *     architecture with a small workload: the SVG parses (GMarkup, a strict
 *     XML parser), holds one box per node of the mapping (storage boxes,
 *     loops, spatial loops, computes, splits), marks the fused loops, and
 *     the DOT holds the same tree; PNG and PDF are whole files;
 *   - a wide mapping (ResNet-50's 54 unfused Einsums) folds into parts no
 *     wider than the maximum;
 *   - the HTML report of map, eval (one file and several), sweep and
 *     compare: valid for `tidy -errors` (skipped without tidy), every
 *     inline SVG parses, the embedded record is the --json file, a
 *     "</script>" in a path cannot end the record;
 *   - in a browser: headless Chromium loads each kind of report (skipped,
 *     saying so, without chromium), runs its script without a console
 *     message, the DOM holds the sections and the same numbers as the JSON,
 *     and a screenshot is not blank;
 *   - the fusion diagram's arcs never touch at any length of the edge
 *     study (docs/results/edge-study.csv) nor in random rows whose arcs can
 *     be separated, and every label fits its box;
 *   - hostile use of each new option: a bad suffix, an unwritable path, a
 *     result file that does not parse. */
#include <ffm/ffm.h>

#include "ffm-diagram.h"
#include "ffm-fusion-layout.h"
#include "ffm-plot.h"
#include "ffm-run.h"
#include "json-strict.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#ifdef FFM_TEST_CAIRO
#include <cairo.h>
#endif

/* Not inlined: gcc 12 at -O3 then takes the pointers into the text for
 * pointers to this function's local variable (-Wdangling-pointer). */
static G_GNUC_NO_INLINE char *
read_text (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, &error))
    g_error ("%s: %s", path, error->message);
  return text;
}

static void
assert_contains (const char *text, const char *needle)
{
  if (strstr (text, needle) == NULL)
    g_error ("'%s' not found in:\n%.4000s", needle, text);
}

static JsonNode *
parse_json (const char *text, const char *what)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;

  json_strict_assert (text, what);
  if (!json_parser_load_from_data (parser, text, -1, &error))
    g_error ("%s: %s", what, error->message);
  return json_node_copy (json_parser_get_root (parser));
}

static double
number (const char *text)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);

  if (end == text || *end != '\0')
    g_error ("'%s' is not a number", text);
  return v;
}

/* ---- SVG, counted with GMarkup ---- */

typedef struct {
  GHashTable *classes;          /* class attribute of <g> -> count */
  guint tensors;                /* tensors listed by storage boxes */
  guint fused;                  /* loops marked fused */
  guint elements;
  GPtrArray *iterations;        /* "RANKVAR/TILE=ITERATIONS" of each loop */
  GPtrArray *usage;             /* "RANKVAR/TILE=USED/COUNT" of each spatial loop */
} SvgCount;

static void
svg_start (GMarkupParseContext *context, const char *element, const char **names,
           const char **values, gpointer data, GError **error)
{
  SvgCount *c = data;
  const char *cls = NULL, *tensors = NULL, *fused = NULL, *rv = NULL, *tile = NULL;
  const char *iter = NULL, *used = NULL, *count = NULL;

  c->elements++;
  if (strcmp (element, "g") != 0)
    return;
  for (guint i = 0; names[i] != NULL; i++)
    {
      if (strcmp (names[i], "class") == 0)
        cls = values[i];
      else if (strcmp (names[i], "data-tensors") == 0)
        tensors = values[i];
      else if (strcmp (names[i], "data-fused") == 0)
        fused = values[i];
      else if (strcmp (names[i], "data-rank-var") == 0)
        rv = values[i];
      else if (strcmp (names[i], "data-tile") == 0)
        tile = values[i];
      else if (strcmp (names[i], "data-iterations") == 0)
        iter = values[i];
      else if (strcmp (names[i], "data-used") == 0)
        used = values[i];
      else if (strcmp (names[i], "data-count") == 0)
        count = values[i];
    }
  if (cls == NULL)
    return;
  g_hash_table_insert (c->classes, g_strdup (cls),
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (c->classes, cls))
                                         + 1));
  if (tensors != NULL)
    {
      g_auto (GStrv) items = g_strsplit (tensors, ",", -1);
      c->tensors += g_strv_length (items);
    }
  c->fused += fused != NULL && strcmp (fused, "true") == 0;
  if (rv != NULL && tile != NULL && iter != NULL)
    g_ptr_array_add (c->iterations, g_strdup_printf ("%s/%s=%s", rv, tile, iter));
  if (rv != NULL && tile != NULL && used != NULL && count != NULL)
    g_ptr_array_add (c->usage, g_strdup_printf ("%s/%s=%s/%s", rv, tile, used, count));
}

static void
svg_count_clear (SvgCount *c)
{
  g_clear_pointer (&c->classes, g_hash_table_unref);
  g_clear_pointer (&c->iterations, g_ptr_array_unref);
  g_clear_pointer (&c->usage, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SvgCount, svg_count_clear)

/* Parses @len bytes of SVG strictly (GMarkup: well-formed XML), counting
 * into @c. */
static void
svg_parse (const char *text, gssize len, SvgCount *c, const char *what)
{
  static const GMarkupParser parser = { svg_start, NULL, NULL, NULL, NULL };
  g_autoptr (GMarkupParseContext) context = NULL;
  g_autoptr (GError) error = NULL;

  if (c->classes == NULL)
    {
      c->classes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      c->iterations = g_ptr_array_new_with_free_func (g_free);
      c->usage = g_ptr_array_new_with_free_func (g_free);
    }
  context = g_markup_parse_context_new (&parser, 0, c, NULL);
  if (!g_markup_parse_context_parse (context, text, len, &error)
      || !g_markup_parse_context_end_parse (context, &error))
    g_error ("%s does not parse as XML: %s", what, error->message);
}

static guint
svg_class (const SvgCount *c, const char *cls)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (c->classes, cls));
}

/* Every <svg>...</svg> of an HTML page, parsed; returns how many. The
 * first one holding @first_class (may be NULL) is counted into @c. */
static guint
html_svgs (const char *html, const char *first_class, SvgCount *c)
{
  guint n = 0;
  gboolean counted = FALSE;

  for (const char *p = strstr (html, "<svg"); p != NULL; p = strstr (p + 4, "<svg"))
    {
      const char *end = strstr (p, "</svg>");
      const char *tag_end = strchr (p, '>');
      g_auto (SvgCount) local = { 0 };
      g_autofree char *what = g_strdup_printf ("inline SVG %u", n + 1);
      g_assert_nonnull (end);
      svg_parse (p, end + 6 - p, &local, what);
      if (!counted && first_class != NULL && tag_end != NULL
          && g_strstr_len (p, tag_end - p, first_class) != NULL)
        {
          svg_parse (p, end + 6 - p, c, what);
          counted = TRUE;
        }
      n++;
    }
  g_assert_true (first_class == NULL || counted);
  return n;
}

/* ---- What a mapping holds ---- */

typedef struct {
  guint storage_boxes;          /* consecutive storage nodes: one per level */
  guint tensors;
  guint loops, spatial, fused, computes, splits;
} Expect;

static void
expect_list (JsonArray *nodes, Expect *e)
{
  guint n = json_array_get_length (nodes);
  JsonObject *last = json_array_get_object_element (nodes, n - 1);
  gboolean split_below = json_object_has_member (last, "sequential");
  g_autoptr (GHashTable) run = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < n; i++)
    {
      JsonObject *o = json_array_get_object_element (nodes, i);
      if (json_object_has_member (o, "storage"))
        {
          const char *level = json_object_get_string_member (o, "level");
          if (g_hash_table_add (run, (gpointer) level))
            e->storage_boxes++;
          e->tensors += json_array_get_length (json_object_get_array_member (o, "storage"));
          continue;
        }
      g_hash_table_remove_all (run);
      if (json_object_has_member (o, "temporal"))
        {
          e->loops++;
          e->fused += split_below;
        }
      else if (json_object_has_member (o, "spatial"))
        {
          e->spatial++;
          e->fused += split_below;
        }
      else if (json_object_has_member (o, "compute"))
        e->computes++;
      else if (json_object_has_member (o, "sequential"))
        {
          JsonArray *branches = json_object_get_array_member (o, "sequential");
          e->splits++;
          for (guint b = 0; b < json_array_get_length (branches); b++)
            expect_list (json_array_get_array_element (branches, b), e);
        }
    }
}

static Expect
expect_mapping (JsonObject *result)
{
  Expect e = { 0 };

  expect_list (json_object_get_array_member (json_object_get_object_member (result, "mapping"),
                                             "nodes"), &e);
  return e;
}

static void
assert_diagram_matches (const SvgCount *c, const Expect *e, const char *what)
{
  guint loops = svg_class (c, "node loop") + svg_class (c, "node loop fused");
  guint spatial = svg_class (c, "node spatial") + svg_class (c, "node spatial fused");

  if (svg_class (c, "node storage") != e->storage_boxes || c->tensors != e->tensors
      || loops != e->loops || spatial != e->spatial || c->fused != e->fused
      || svg_class (c, "node compute") != e->computes || svg_class (c, "node split") != e->splits)
    g_error ("%s: the diagram has %u storage boxes (%u tensors), %u loops, %u spatial loops "
             "(%u fused), %u computes, %u splits; the mapping %u (%u), %u, %u (%u), %u, %u",
             what, svg_class (c, "node storage"), c->tensors, loops, spatial, c->fused,
             svg_class (c, "node compute"), svg_class (c, "node split"), e->storage_boxes,
             e->tensors, e->loops, e->spatial, e->fused, e->computes, e->splits);
}

/* ---- Tools on the machine ---- */

static char *
tidy_path (void)
{
  return g_find_program_in_path ("tidy");
}

/* `tidy -errors -q`: no error and no warning. */
static void
assert_tidy (const char *tidy, const char *path)
{
  g_auto (FfmTestRun) run = { 0 };
  FfmTestRunOptions o = { 0 };

  o.program = tidy;
  ffm_test_run_full (&run, (const char *const[]) { "-errors", "-q", path, NULL }, &o);
  if (run.status != 0 || *run.err != '\0')
    g_error ("tidy -errors %s: exit %d:\n%s", path, run.status, run.err);
}

/* ---- The diagram for every architecture ---- */

static GPtrArray *
architectures (void)
{
  g_auto (FfmTestRun) run = { 0 };
  g_auto (GStrv) lines = NULL;
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  FFM_TEST_RUN (&run, "list", "--names");
  g_assert_cmpint (run.status, ==, 0);
  lines = g_strsplit (run.out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "architecture "))
      g_ptr_array_add (names, g_strdup (lines[i] + strlen ("architecture ")));
  return names;
}

/* The shipped architectures whose search of the chain below takes most of
 * this program's time (maeri-like: 38 s of CPU): drawn by
 * /visual/every-architecture-slow-chips, in the suite 'slow'
 * (tests/meson.build); /visual/every-architecture draws every other one. */
static const char *const slow_chips[] = { "maeri-like", NULL };

/* @data: TRUE for the slow chips, FALSE for the others. */
static void
test_every_architecture (gconstpointer data)
{
  gboolean slow = GPOINTER_TO_INT (data);
  g_autofree char *dir = ffm_test_scratch_dir ("visual-archs");
  g_autoptr (GPtrArray) all = architectures ();
  g_autoptr (GPtrArray) archs = g_ptr_array_new ();
  g_autofree char *tidy = tidy_path ();
  guint n_drawn = 0;

  g_test_summary (slow ? "For the shipped architectures slowest to search, as for every other"
                       : "For every shipped architecture (but the slowest to search), ffm map "
                         "--diagram, --diagram-dot and --html on two chained matmuls: the SVG "
                         "parses and has one box per node of the mapping, the DOT the same "
                         "tree, the page every section and valid HTML");
  g_assert_cmpuint (all->len, >=, 10);
  for (guint a = 0; a < all->len; a++)
    if (g_strv_contains (slow_chips, all->pdata[a]) == slow)
      g_ptr_array_add (archs, all->pdata[a]);
  if (slow)
    g_assert_cmpuint (archs->len, ==, g_strv_length ((char **) slow_chips));
  for (guint a = 0; a < archs->len; a++)
    {
      const char *arch = archs->pdata[a];
      g_autofree char *svg = g_strdup_printf ("%s/%s.svg", dir, arch);
      g_autofree char *dot = g_strdup_printf ("%s/%s.dot", dir, arch);
      g_autofree char *html = g_strdup_printf ("%s/%s.html", dir, arch);
      g_autofree char *json = g_strdup_printf ("%s/%s.json", dir, arch);
      g_autofree char *svg_text = NULL, *dot_text = NULL, *html_text = NULL, *json_text = NULL;
      g_autoptr (JsonNode) root = NULL;
      g_auto (FfmTestRun) run = { 0 };
      g_auto (SvgCount) c = { 0 };
      g_auto (SvgCount) in_page = { 0 };
      Expect e;
      guint boxes, arrows = 0, nodes = 0;

      FFM_TEST_RUN (&run, "map", "--arch", arch, "--workload", "matmuls", "--param",
                    "n_einsums=2", "--param", "m=32", "--param", "kn=32", "--threads", "2",
                    "--quiet", "--json", json, "--diagram", svg, "--diagram-dot", dot,
                    "--html", html, "--timeout", "60");
      /* The zoo's maeri-like takes 38 s of CPU here (its search is slow,
       * docs/pmapping-generator.md): stopped by --timeout on a loaded
       * machine, it is left out, and said so. */
      if (run.status != 0 && run.err != NULL && strstr (run.err, "stopped by --timeout") != NULL)
        {
          g_test_message ("%s: stopped by --timeout, not drawn", arch);
          continue;
        }
      if (run.status != 0)
        g_error ("ffm map on %s: exit %d: %s", arch, run.status, run.err);
      n_drawn++;
      json_text = read_text (json);
      root = parse_json (json_text, json);
      e = expect_mapping (json_node_get_object (root));
      g_assert_cmpuint (e.computes, ==, 2);
      svg_text = read_text (svg);
      g_assert_true (g_str_has_prefix (svg_text, "<?xml"));
      svg_parse (svg_text, -1, &c, svg);
      assert_diagram_matches (&c, &e, arch);
      /* One band per memory that keeps something, and the compute band. */
      g_assert_cmpuint (svg_class (&c, "band"), >=, 2);
      g_assert_cmpuint (svg_class (&c, "einsum-frame"), ==, e.splits > 0 ? 2 : 0);
      boxes = e.storage_boxes + e.loops + e.spatial + e.computes + e.splits;
      /* The DOT source: the same boxes, a tree's edges. */
      dot_text = read_text (dot);
      g_assert_true (g_str_has_prefix (dot_text, "//"));
      assert_contains (dot_text, "digraph mapping {");
      for (const char *p = dot_text; (p = strstr (p, " [label=\"")) != NULL; p++)
        nodes++;
      for (const char *p = dot_text; (p = strstr (p, " -> ")) != NULL; p++)
        arrows++;
      g_assert_cmpuint (nodes, ==, boxes);
      g_assert_cmpuint (arrows, ==, boxes - 1);
      /* The page: the same diagram inline, every SVG well-formed. */
      html_text = read_text (html);
      g_assert_cmpuint (html_svgs (html_text, "mapping-diagram", &in_page), >=, 6);
      assert_diagram_matches (&in_page, &e, html);
      for (guint s = 0; s < 6; s++)
        {
          static const char *const ids[] = { "id=\"summary\"", "id=\"mapping\"",
                                             "id=\"energy\"", "id=\"utilization\"",
                                             "id=\"fusion\"", "id=\"record\"" };
          assert_contains (html_text, ids[s]);
        }
      if (tidy != NULL)
        assert_tidy (tidy, html);
    }
  /* Most are drawn (all but two at most), or the test checks little. */
  g_assert_cmpuint (n_drawn + 2, >=, archs->len);
  if (tidy == NULL)
    g_test_message ("tidy is not installed (Debian: tidy): the pages were not validated");
  ffm_test_remove_dir (dir);
}

/* Iterations and fanout use, as the report says them: m = 64 split in 4
 * over TPUv4i's cores, 16 each. */
static void
test_diagram_numbers (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("visual-numbers");
  g_autofree char *svg = g_build_filename (dir, "d.svg", NULL);
  g_autofree char *json = g_build_filename (dir, "r.json", NULL);
  g_autofree char *svg_text = NULL, *json_text = NULL;
  g_autoptr (JsonNode) root = NULL;
  g_auto (FfmTestRun) run = { 0 };
  g_auto (SvgCount) c = { 0 };
  JsonArray *fanouts;
  guint found = 0;

  g_test_summary ("The diagram's loops say their iterations and their spatial loops the "
                  "instances used of their fanout, as the JSON report");
  FFM_TEST_RUN (&run, "map", "--arch", "tpuv4i", "--workload", "matmuls", "--param",
                "n_einsums=1", "--param", "m=64", "--param", "kn=64", "--threads", "2",
                "--quiet", "--json", json, "--diagram", svg);
  g_assert_cmpint (run.status, ==, 0);
  svg_text = read_text (svg);
  svg_parse (svg_text, -1, &c, svg);
  json_text = read_text (json);
  root = parse_json (json_text, json);
  fanouts = json_object_get_array_member (
    json_array_get_object_element (json_object_get_array_member (json_node_get_object (root),
                                                                 "per_einsum"), 0), "fanouts");
  /* Every spatial loop says used/count of its dimension: the report's. */
  for (guint i = 0; i < c.usage->len; i++)
    {
      const char *u = strchr (c.usage->pdata[i], '=') + 1;
      gboolean known = FALSE;
      for (guint k = 0; k < json_array_get_length (fanouts); k++)
        {
          JsonObject *f = json_array_get_object_element (fanouts, k);
          g_autofree char *want = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT,
                                                   json_object_get_int_member (f, "used"),
                                                   json_object_get_int_member (f, "count"));
          known |= strcmp (u, want) == 0;
        }
      if (!known)
        g_error ("spatial loop %s: not a fanout use of the report",
                 (const char *) c.usage->pdata[i]);
      found++;
    }
  g_assert_cmpuint (found, >=, 2);
  /* The innermost loop over m (tile 1) below a tile of 16: 16 iterations. */
  {
    gboolean seen = FALSE;
    for (guint i = 0; i < c.iterations->len; i++)
      seen |= strcmp (c.iterations->pdata[i], "m/1=16") == 0;
    if (!seen)
      {
        g_autofree char *all = g_strjoinv (" ", (char **) c.iterations->pdata);
        g_error ("no loop m tile 1 with 16 iterations among %s", all);
      }
  }
  ffm_test_remove_dir (dir);
}

static void
test_png_pdf (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("visual-raster");
  g_autofree char *json = g_build_filename (dir, "r.json", NULL);
  g_autofree char *png = g_build_filename (dir, "d.png", NULL);
  g_autofree char *pdf = g_build_filename (dir, "d.pdf", NULL);
  g_auto (FfmTestRun) run = { 0 };
  g_auto (FfmTestRun) again = { 0 };

  g_test_summary ("ffm eval RESULT --diagram OUT.png and OUT.pdf (cairo) write whole files, "
                  "or say clearly that this build has no cairo");
  FFM_TEST_RUN (&run, "map", "--arch", "tpuv4i", "--workload", "matmuls", "--param",
                "n_einsums=3", "--threads", "2", "--quiet", "--json", json);
  g_assert_cmpint (run.status, ==, 0);
  FFM_TEST_RUN (&again, "eval", json, "--diagram", png);
  if (g_strcmp0 (g_getenv ("FFM_HAVE_CAIRO"), "1") != 0)
    {
      g_assert_cmpint (again.status, ==, 1);
      assert_contains (again.err, "without cairo");
      assert_contains (again.err, "libcairo2-dev");
      g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
      g_test_skip ("this build has no cairo: .png and .pdf are refused, as tested");
      ffm_test_remove_dir (dir);
      return;
    }
  g_assert_cmpint (again.status, ==, 0);
  {
    g_autofree char *data = NULL;
    gsize size = 0;
    g_assert_true (g_file_get_contents (png, &data, &size, NULL));
    g_assert_cmpuint (size, >, 5000);
    g_assert_cmpint (memcmp (data, "\x89PNG\r\n\x1a\n", 8), ==, 0);
    g_assert_cmpint (memcmp (data + size - 8, "IEND\xae\x42\x60\x82", 8), ==, 0);
  }
  {
    g_auto (FfmTestRun) third = { 0 };
    g_autofree char *data = NULL;
    gsize size = 0;
    FFM_TEST_RUN (&third, "eval", json, "--diagram", pdf);
    g_assert_cmpint (third.status, ==, 0);
    g_assert_true (g_file_get_contents (pdf, &data, &size, NULL));
    g_assert_cmpuint (size, >, 2000);
    g_assert_cmpint (memcmp (data, "%PDF-", 5), ==, 0);
    g_assert_nonnull (g_strstr_len (data + size - 32, 32, "%%EOF"));
  }
  ffm_test_remove_dir (dir);
}

/* 54 unfused Einsums (ResNet-50's count; a chain of matmuls maps in a
 * tenth of a second): 54 branches of one split, folded into parts. */
static void
test_fold (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("visual-fold");
  g_autofree char *json = g_build_filename (dir, "r.json", NULL);
  g_autofree char *svg = g_build_filename (dir, "d.svg", NULL);
  g_autofree char *text = NULL, *json_text = NULL;
  g_autoptr (JsonNode) root = NULL;
  g_auto (FfmTestRun) run = { 0 };
  g_auto (FfmTestRun) again = { 0 };
  g_auto (SvgCount) c = { 0 };
  g_autoptr (GRegex) size = g_regex_new ("<svg[^>]* width=\"([0-9.]+)\"", 0, 0, NULL);
  g_autoptr (GMatchInfo) match = NULL;
  Expect e;

  g_test_summary ("A mapping of 54 Einsums (as many as ResNet-50's) folds into parts no "
                  "wider than FFM_DIAGRAM_MAX_WIDTH, every node still drawn once");
  FFM_TEST_RUN (&run, "map", "--arch", "tpuv4i", "--workload", "matmuls", "--param",
                "n_einsums=54", "--unfused", "--threads", "2", "--quiet", "--json", json);
  g_assert_cmpint (run.status, ==, 0);
  FFM_TEST_RUN (&again, "eval", json, "--diagram", svg);
  g_assert_cmpint (again.status, ==, 0);
  text = read_text (svg);
  svg_parse (text, -1, &c, svg);
  json_text = read_text (json);
  root = parse_json (json_text, json);
  e = expect_mapping (json_node_get_object (root));
  g_assert_cmpuint (e.computes, >=, 50);
  assert_diagram_matches (&c, &e, "54 matmuls");
  g_assert_cmpuint (svg_class (&c, "stub"), >=, 2);
  assert_contains (text, "Part 1 of ");
  g_assert_true (g_regex_match (size, text, 0, &match));
  {
    g_autofree char *w = g_match_info_fetch (match, 1);
    g_assert_cmpfloat (number (w), <=, FFM_DIAGRAM_MAX_WIDTH);
  }
  ffm_test_remove_dir (dir);
}

/* ---- The pages ---- */

/* The record embedded in @html, parsed. */
static JsonNode *
embedded_record (const char *html)
{
  const char *start = strstr (html, "<script type=\"application/json\" id=\"ffm-record\">");
  const char *end;
  g_autofree char *json = NULL;

  g_assert_nonnull (start);
  start = strchr (start, '>') + 1;
  end = strstr (start, "</script>");
  g_assert_nonnull (end);
  json = g_strndup (start, end - start);
  g_assert_null (strchr (json, '<'));
  return parse_json (json, "the embedded record");
}

typedef struct {
  char *dir;
  char *map_html, *map_json;
  char *eval_html;
  char *eval2_html;
  char *sweep_html, *sweep_json;
  char *compare_html, *compare_json;
} Reports;

static void
reports_make (Reports *r)
{
  g_auto (FfmTestRun) map = { 0 };
  g_auto (FfmTestRun) map2 = { 0 };
  g_auto (FfmTestRun) eval = { 0 };
  g_auto (FfmTestRun) eval2 = { 0 };
  g_auto (FfmTestRun) sweep = { 0 };
  g_auto (FfmTestRun) compare = { 0 };
  g_autofree char *other = NULL;

  r->dir = ffm_test_scratch_dir ("visual-pages");
  r->map_html = g_build_filename (r->dir, "map.html", NULL);
  r->map_json = g_build_filename (r->dir, "map.json", NULL);
  r->eval_html = g_build_filename (r->dir, "eval.html", NULL);
  r->eval2_html = g_build_filename (r->dir, "eval2.html", NULL);
  r->sweep_html = g_build_filename (r->dir, "sweep.html", NULL);
  r->sweep_json = g_build_filename (r->dir, "sweep.json", NULL);
  r->compare_html = g_build_filename (r->dir, "compare.html", NULL);
  r->compare_json = g_build_filename (r->dir, "compare.json", NULL);
  other = g_build_filename (r->dir, "other.json", NULL);
  FFM_TEST_RUN (&map, "map", "--arch", "tpuv4i", "--workload", "matmuls", "--param",
                "n_einsums=3", "--threads", "2", "--quiet", "--json", r->map_json,
                "--html", r->map_html);
  g_assert_cmpint (map.status, ==, 0);
  FFM_TEST_RUN (&eval, "eval", r->map_json, "--html", r->eval_html);
  g_assert_cmpint (eval.status, ==, 0);
  FFM_TEST_RUN (&map2, "map", "--arch", "edge", "--workload", "matmuls", "--param",
                "n_einsums=3", "--threads", "2", "--quiet", "--json", other);
  g_assert_cmpint (map2.status, ==, 0);
  FFM_TEST_RUN (&eval2, "eval", r->map_json, other, "--html", r->eval2_html);
  g_assert_cmpint (eval2.status, ==, 0);
  FFM_TEST_RUN (&sweep, "sweep", "--arch", "simple", "--workload", "matmuls", "--param",
                "n_einsums=3", "--sweep", "m=16,64", "--policy", "ffm,unfused", "--threads", "2",
                "--json", r->sweep_json, "--html", r->sweep_html);
  g_assert_cmpint (sweep.status, ==, 0);
  FFM_TEST_RUN (&compare, "compare", "--arch", "simple", "--workload", "matmuls", "--param",
                "n_einsums=2", "--runs", "2", "--budget", "10x", "--threads", "2",
                "--json", r->compare_json, "--html", r->compare_html);
  g_assert_cmpint (compare.status, ==, 0);
}

static void
reports_clear (Reports *r)
{
  ffm_test_remove_dir (r->dir);
  g_free (r->dir);
  g_free (r->map_html);
  g_free (r->map_json);
  g_free (r->eval_html);
  g_free (r->eval2_html);
  g_free (r->sweep_html);
  g_free (r->sweep_json);
  g_free (r->compare_html);
  g_free (r->compare_json);
}

/* The value of data-value on the element with data-key="@key". */
static char *
data_value (const char *html, const char *key)
{
  g_autofree char *pattern = g_strdup_printf ("data-key=\"%s\" data-value=\"([^\"]*)\"", key);
  g_autoptr (GRegex) re = g_regex_new (pattern, 0, 0, NULL);
  g_autoptr (GMatchInfo) match = NULL;

  if (!g_regex_match (re, html, 0, &match))
    g_error ("no element with data-key=\"%s\" and a value", key);
  return g_match_info_fetch (match, 1);
}

/* The bars (label -> value) of the chart whose <svg> has class @cls. */
static GHashTable *
chart_bars (const char *html, const char *cls)
{
  g_autofree char *open = g_strdup_printf ("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                                           "class=\"%s\"", cls);
  const char *start = strstr (html, open), *end;
  g_autoptr (GRegex) re = g_regex_new ("<g class=\"bar\"[^>]* data-label=\"([^\"]*)\" "
                                       "data-value=\"([^\"]*)\"", 0, 0, NULL);
  g_autoptr (GMatchInfo) match = NULL;
  g_autofree char *svg = NULL;
  GHashTable *bars = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  if (start == NULL)
    g_error ("no chart %s", cls);
  end = strstr (start, "</svg>");
  svg = g_strndup (start, end - start);
  g_regex_match (re, svg, 0, &match);
  while (g_match_info_matches (match))
    {
      g_hash_table_insert (bars, g_match_info_fetch (match, 1), g_match_info_fetch (match, 2));
      g_match_info_next (match, NULL);
    }
  return bars;
}

static void
assert_same (const char *what, double dom, double json)
{
  if (dom != json)
    g_error ("%s: the page says %.17g, the JSON %.17g", what, dom, json);
}

/* The numbers of a mapping's page are the JSON's. */
static void
check_result_numbers (const char *html, JsonObject *result)
{
  static const char *const keys[] = { "energy_j", "latency_s", "edp_js" };
  JsonArray *per_einsum = json_object_get_array_member (result, "per_einsum");
  JsonArray *classes = json_object_get_array_member (result, "per_tensor_class");
  g_autoptr (GHashTable) einsums = chart_bars (html, "chart energy-einsums");
  g_autoptr (GHashTable) kinds = chart_bars (html, "chart energy-classes");

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      g_autofree char *v = data_value (html, keys[k]);
      assert_same (keys[k], number (v), json_object_get_double_member (result, keys[k]));
    }
  g_assert_cmpuint (g_hash_table_size (einsums), ==, json_array_get_length (per_einsum));
  for (guint i = 0; i < json_array_get_length (per_einsum); i++)
    {
      JsonObject *e = json_array_get_object_element (per_einsum, i);
      const char *v = g_hash_table_lookup (einsums, json_object_get_string_member (e, "name"));
      g_assert_nonnull (v);
      assert_same (json_object_get_string_member (e, "name"), number (v),
                   json_object_get_double_member (e, "energy_j"));
    }
  for (guint i = 0; i < json_array_get_length (classes); i++)
    {
      JsonObject *e = json_array_get_object_element (classes, i);
      const char *v = g_hash_table_lookup (kinds, json_object_get_string_member (e, "class"));
      g_assert_nonnull (v);
      assert_same (json_object_get_string_member (e, "class"), number (v),
                   json_object_get_double_member (e, "energy_j"));
    }
}

/* The record embedded in the map page is its --json file. */
static void
check_record (const Reports *r)
{
  g_autofree char *html = read_text (r->map_html);
  g_autofree char *json = read_text (r->map_json);
  g_autoptr (JsonNode) record = embedded_record (html);
  g_autoptr (JsonNode) file = parse_json (json, r->map_json);

  g_assert_true (json_node_equal (record, file));
}

/* Sections and the JSON's numbers of a page of kind @kind, in @html (the
 * file, or the DOM a browser built from it). */
static void
check_numbers_in (const char *html, const Reports *r, const char *kind)
{
  if (strcmp (kind, "map") == 0 || strcmp (kind, "eval") == 0)
    {
      g_autofree char *json = read_text (r->map_json);
      g_autoptr (JsonNode) root = parse_json (json, r->map_json);
      static const char *const ids[] = { "summary", "mapping", "energy", "utilization",
                                         "fusion", "tables", "record" };
      for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
        {
          g_autofree char *id = g_strdup_printf ("<section id=\"%s\">", ids[i]);
          assert_contains (html, id);
        }
      assert_contains (html, "class=\"node compute\"");
      check_result_numbers (html, json_node_get_object (root));
    }
  else if (strcmp (kind, "eval2") == 0)
    {
      assert_contains (html, "<section id=\"comparison\">");
      assert_contains (html, "<section id=\"r1\">");
      assert_contains (html, "<section id=\"r2\">");
    }
  else if (strcmp (kind, "sweep") == 0)
    {
      g_autofree char *json = read_text (r->sweep_json);
      g_autoptr (JsonNode) root = parse_json (json, r->sweep_json);
      JsonArray *points = json_object_get_array_member (json_node_get_object (root), "points");
      g_autoptr (GRegex) re = g_regex_new ("data-value=\"([^\"]*)\"", 0, 0, NULL);
      static const char *const ids[] = { "summary", "points", "edp", "energy", "fusion",
                                         "record" };
      for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
        {
          g_autofree char *id = g_strdup_printf ("<section id=\"%s\">", ids[i]);
          assert_contains (html, id);
        }
      /* Every point's EDP is in the table, exactly. */
      for (guint i = 0; i < json_array_get_length (points); i++)
        {
          double edp = json_object_get_double_member (json_array_get_object_element (points, i),
                                                      "edp_js");
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_autofree char *needle = g_strdup_printf ("data-value=\"%s\"",
                                                     ffm_format_double (edp, buf));
          assert_contains (html, needle);
        }
      {
        guint rows = 0;
        for (const char *p = html; (p = strstr (p, "class=\"fusion-row\"")) != NULL; p++)
          rows++;
        g_assert_cmpuint (rows, ==, json_array_get_length (points));
      }
    }
  else
    {
      g_autofree char *json = read_text (r->compare_json);
      g_autoptr (JsonNode) root = parse_json (json, r->compare_json);
      JsonObject *o = json_node_get_object (root);
      g_autofree char *optimum = data_value (html, "optimum");
      static const char *const ids[] = { "summary", "checkpoints", "convergence", "runs",
                                         "record" };
      guint runs = 0, rows = 0;
      JsonArray *strategies = json_object_get_array_member (o, "strategies");
      for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
        {
          g_autofree char *id = g_strdup_printf ("<section id=\"%s\">", ids[i]);
          assert_contains (html, id);
        }
      assert_same ("optimum", number (optimum),
                   json_object_get_double_member (json_object_get_object_member (o, "ffm"),
                                                  "optimum"));
      for (guint i = 0; i < json_array_get_length (strategies); i++)
        runs += json_array_get_length (json_object_get_array_member (
          json_array_get_object_element (strategies, i), "runs"));
      {
        const char *table = strstr (html, "data-table=\"runs\"");
        g_assert_nonnull (table);
        for (const char *p = strstr (table, "<tbody>"); p != NULL
               && p < strstr (table, "</tbody>"); p = strstr (p + 1, "<tr>"))
          rows += g_str_has_prefix (p, "<tr>");
      }
      g_assert_cmpuint (rows, ==, runs);
    }
}

static void
test_pages (void)
{
  Reports r = { 0 };
  g_autofree char *tidy = tidy_path ();
  static const char *const kinds[] = { "map", "eval", "eval2", "sweep", "compare" };

  g_test_summary ("The pages of map, eval (one file, two), sweep and compare: sections, the "
                  "JSON's numbers, every inline SVG well-formed, the record embedded whole, "
                  "valid for tidy -errors");
  reports_make (&r);
  check_record (&r);
  {
    const char *paths[] = { r.map_html, r.eval_html, r.eval2_html, r.sweep_html, r.compare_html };
    for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
      {
        g_autofree char *html = read_text (paths[i]);
        g_assert_true (g_str_has_prefix (html, "<!DOCTYPE html>"));
        g_assert_cmpuint (html_svgs (html, NULL, NULL), >=, 1);
        check_numbers_in (html, &r, kinds[i]);
        /* Self-contained: nothing to fetch; the only URL is SVG's
         * namespace. */
        {
          guint urls = 0, namespaces = 0;
          for (const char *p = html; (p = strstr (p, "://")) != NULL; p++)
            urls++;
          for (const char *p = html; (p = strstr (p, "xmlns=\"http://www.w3.org/2000/svg\""))
                                     != NULL; p++)
            namespaces++;
          g_assert_cmpuint (urls, ==, namespaces);
          g_assert_null (strstr (html, " src="));
          g_assert_null (strstr (html, "<link"));
        }
        if (tidy != NULL)
          assert_tidy (tidy, paths[i]);
      }
  }
  if (tidy == NULL)
    g_test_message ("tidy is not installed (Debian: tidy): the pages were not validated");
  reports_clear (&r);
}

/* A path with "</script>" in the record cannot end the embedded record. */
static void
test_script_in_record (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("visual-script");
  g_autofree char *nasty = g_build_filename (dir, "x<", "script><b>alert(1)", NULL);
  g_autofree char *workload = NULL, *html = NULL, *json = NULL, *text = NULL, *json_text = NULL;
  g_autofree char *src = g_build_filename (g_getenv ("FFM_SOURCE_ROOT"), "workloads",
                                           "matmuls.json", NULL);
  g_autofree char *contents = read_text (src);
  g_autoptr (JsonNode) record = NULL, file = NULL;
  g_auto (FfmTestRun) run = { 0 };
  guint scripts = 0;

  g_test_summary ("A '</script>' in a path the record holds is written \\u003c/script>: the "
                  "page has its two script elements and the record parses back whole");
  g_assert_cmpint (g_mkdir_with_parents (nasty, 0755), ==, 0);
  workload = g_build_filename (nasty, "matmuls.json", NULL);
  g_assert_true (g_file_set_contents (workload, contents, -1, NULL));
  html = g_build_filename (dir, "p.html", NULL);
  json = g_build_filename (dir, "p.json", NULL);
  FFM_TEST_RUN (&run, "map", "--arch", "simple", "--workload", workload, "--param",
                "n_einsums=2", "--threads", "2", "--quiet", "--json", json, "--html", html);
  g_assert_cmpint (run.status, ==, 0);
  text = read_text (html);
  g_assert_null (strstr (text, "</script><b>"));
  for (const char *p = text; (p = strstr (p, "<script")) != NULL; p++)
    scripts++;
  g_assert_cmpuint (scripts, ==, 2);
  record = embedded_record (text);
  json_text = read_text (json);
  file = parse_json (json_text, json);
  g_assert_true (json_node_equal (record, file));
  assert_contains (json_text, "</script><b>");
  g_unlink (workload);
  g_unlink (html);
  g_unlink (json);
  g_rmdir (nasty);
  {
    g_autofree char *parent = g_path_get_dirname (nasty);
    g_rmdir (parent);
  }
  ffm_test_remove_dir (dir);
}

/* ---- In a browser ---- */

static void
remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        remove_tree (path);
      else
        g_unlink (path);
    }
  g_rmdir (dir);
}

static char *
chromium_path (void)
{
  const char *env = g_getenv ("CHROMIUM");

  if (env != NULL && *env != '\0')
    return g_strdup (env);
  {
    char *p = g_find_program_in_path ("chromium");
    return p != NULL ? p : g_find_program_in_path ("chromium-browser");
  }
}

/* Runs headless Chromium on @page, once: the DOM it built (returned) and
 * a screenshot to @png; *@console gets the console lines. */
static char *
chromium (const char *browser, const char *dir, const char *page, const char *png,
          char **console)
{
  g_autofree char *profile = g_build_filename (dir, "profile", NULL);
  g_autofree char *profile_arg = g_strdup_printf ("--user-data-dir=%s", profile);
  g_autofree char *url = g_filename_to_uri (page, NULL, NULL);
  g_autofree char *shot = g_strdup_printf ("--screenshot=%s", png);
  g_auto (FfmTestRun) run = { 0 };
  FfmTestRunOptions o = { 0 };
  GString *lines = g_string_new (NULL);
  g_auto (GStrv) err = NULL;

  o.program = browser;
  o.deadline = 120;
  /* This machine's network is closed, and a test must not use one. */
  ffm_test_run_full (&run, (const char *const[]) {
                       "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                       "--no-first-run", "--disable-background-networking",
                       "--disable-component-update", "--disable-sync", profile_arg,
                       "--enable-logging=stderr", "--v=0", "--hide-scrollbars",
                       "--window-size=1280,2400", "--dump-dom", shot, url, NULL }, &o);
  if (run.status != 0)
    g_error ("%s %s: exit %d\n%s", browser, page, run.status, run.err);
  err = g_strsplit (run.err, "\n", -1);
  for (guint i = 0; err[i] != NULL; i++)
    if (strstr (err[i], ":CONSOLE") != NULL)
      g_string_append_printf (lines, "%s\n", err[i]);
  *console = g_string_free (lines, FALSE);
  return g_steal_pointer (&run.out);
}

/* TRUE when the screenshot @png is not blank: enough pixels differ from
 * the page's background and it has more than a few colours. */
static void
assert_not_blank (const char *png)
{
#ifdef FFM_TEST_CAIRO
  cairo_surface_t *s = cairo_image_surface_create_from_png (png);
  int w, h, stride;
  guint64 inked = 0;
  unsigned char *data;
  g_autoptr (GHashTable) colours = g_hash_table_new (NULL, NULL);

  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  w = cairo_image_surface_get_width (s);
  h = cairo_image_surface_get_height (s);
  stride = cairo_image_surface_get_stride (s);
  data = cairo_image_surface_get_data (s);
  g_assert_cmpint (w, >=, 800);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        guint32 p = *(guint32 *) (data + (gsize) y * stride + 4 * x) & 0xFFFFFF;
        inked += p != 0xFFFFFF && p != 0xFAFAFA;
        if (g_hash_table_size (colours) < 1000)
          g_hash_table_add (colours, GUINT_TO_POINTER (p + 1));
      }
  cairo_surface_destroy (s);
  if (inked < (guint64) w * h / 50 || g_hash_table_size (colours) < 16)
    g_error ("%s looks blank: %" G_GUINT64_FORMAT " of %d pixels inked, %u colours", png,
             inked, w * h, g_hash_table_size (colours));
#else
  g_autofree char *data = NULL;
  gsize size = 0;
  g_assert_true (g_file_get_contents (png, &data, &size, NULL));
  g_assert_cmpuint (size, >, 20000);
  g_test_message ("built without cairo: the screenshot is only checked by its size");
#endif
}

static void
test_browser (void)
{
  g_autofree char *browser = chromium_path ();
  Reports r = { 0 };
  static const char *const kinds[] = { "map", "eval", "eval2", "sweep", "compare" };

  g_test_summary ("Headless Chromium loads each kind of page (map, eval of one file and of "
                  "two, sweep, compare): no console message, the script ran, the DOM holds "
                  "the sections and the JSON's numbers, the screenshot is not blank");
  if (browser == NULL)
    {
      g_test_skip ("chromium is not installed (Debian: chromium; CI installs it): the "
                   "pages were not loaded in a browser");
      return;
    }
  reports_make (&r);
  {
    const char *paths[] = { r.map_html, r.eval_html, r.eval2_html, r.sweep_html, r.compare_html };
    for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
      {
        g_autofree char *console = NULL;
        g_autofree char *shot = g_strdup_printf ("%s/%s.png", r.dir, kinds[i]);
        g_autofree char *dom = chromium (browser, r.dir, paths[i], shot, &console);
        if (*console != '\0')
          g_error ("%s: console messages:\n%s", paths[i], console);
        /* The script ran: it marks the page and makes the headings buttons. */
        assert_contains (dom, "<html lang=\"en\" class=\"js\">");
        assert_contains (dom, "<button type=\"button\" class=\"sort\">");
        check_numbers_in (dom, &r, kinds[i]);
        assert_not_blank (shot);
      }
  }
  {
    g_autofree char *profile = g_build_filename (r.dir, "profile", NULL);
    remove_tree (profile);
  }
  reports_clear (&r);
}

/* ---- The fusion diagram's layout ---- */

/* Rows of the edge study's fusion diagram, from its CSV (the Einsums and
 * the pairs kept on chip). */
static GPtrArray *
edge_study_rows (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("FFM_SOURCE_ROOT"), "docs", "results",
                                            "edge-study.csv", NULL);
  g_autofree char *text = read_text (path);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_auto (GStrv) header = g_strsplit (lines[0], ",", -1);
  int einsums = -1, pairs = -1;
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);

  for (guint i = 0; header[i] != NULL; i++)
    {
      if (strcmp (header[i], "einsums") == 0)
        einsums = (int) i;
      if (strcmp (header[i], "fused_einsums") == 0)
        pairs = (int) i;
    }
  g_assert_cmpint (einsums, >=, 0);
  g_assert_cmpint (pairs, >=, 0);
  for (guint l = 1; lines[l] != NULL; l++)
    {
      /* The fields used hold no comma: a plain split is enough. */
      g_auto (GStrv) f = g_strsplit (lines[l], ",", -1);
      if (g_strv_length (f) <= (guint) MAX (einsums, pairs))
        continue;
      {
        char **row = g_new0 (char *, 4);
        row[0] = g_strdup_printf ("%s, %s", f[0], f[1]);
        row[1] = g_strdup (f[einsums]);
        row[2] = g_strdup (f[pairs]);
        g_ptr_array_add (rows, row);
      }
    }
  g_assert_cmpuint (rows->len, ==, 12);
  return rows;
}

/* Whether the interleave graph of the links is two-colourable (then the
 * layout must separate every arc). */
static gboolean
separable (guint n, const guint *from, const guint *to)
{
  g_autofree int *side = g_new (int, MAX (n, 1));
  gboolean changed = TRUE, ok = TRUE;

  for (guint i = 0; i < n; i++)
    side[i] = -1;
  for (guint s = 0; s < n; s++)
    {
      if (side[s] >= 0)
        continue;
      side[s] = 0;
      changed = TRUE;
      while (changed)
        {
          changed = FALSE;
          for (guint i = 0; i < n; i++)
            for (guint j = 0; j < n; j++)
              {
                guint a = MIN (from[i], to[i]), b = MAX (from[i], to[i]);
                guint c = MIN (from[j], to[j]), d = MAX (from[j], to[j]);
                gboolean cross = (a < c && c < b && b < d) || (c < a && a < d && d < b);
                if (!cross || side[i] < 0)
                  continue;
                if (side[j] < 0)
                  {
                    side[j] = 1 - side[i];
                    changed = TRUE;
                  }
                else if (side[j] == side[i])
                  ok = FALSE;
              }
        }
    }
  return ok;
}

static void
test_fusion_layout (void)
{
  g_autoptr (GPtrArray) rows = edge_study_rows ();
  g_autofree FfmPlotFusionRow *plot_rows = g_new0 (FfmPlotFusionRow, rows->len);
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) strvs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  FfmPlotFusionGeometry geo;
  guint naive_fails = 0;
  GRand *rand = g_rand_new_with_seed (44);

  g_test_summary ("The fusion diagram's arcs do not touch at any length of the edge study "
                  "(where drawing every arc above does), nor in 2000 random rows whose "
                  "arcs can be separated; every label fits its box");
  for (guint r = 0; r < rows->len; r++)
    {
      char **row = rows->pdata[r];
      char **boxes = g_strsplit (row[1], ";", -1);
      g_auto (GStrv) pairs = g_strsplit (row[2], ";", -1);
      guint n = g_strv_length (pairs), m = 0;
      guint *from = g_new0 (guint, MAX (n, 1)), *to = g_new0 (guint, MAX (n, 1));
      g_autoptr (FfmFusionLayout) layout = NULL;
      g_autofree char *why = NULL;
      g_ptr_array_add (strvs, boxes);
      g_ptr_array_add (keep, from);
      g_ptr_array_add (keep, to);
      for (guint k = 0; k < n; k++)
        {
          char *gt = strchr (pairs[k], '>'), *at = strrchr (pairs[k], '@');
          int a = -1, b = -1;
          if (gt == NULL || at == NULL)
            continue;
          *gt = *at = '\0';
          for (guint i = 0; boxes[i] != NULL; i++)
            {
              if (strcmp (boxes[i], pairs[k]) == 0)
                a = (int) i;
              if (strcmp (boxes[i], gt + 1) == 0)
                b = (int) i;
            }
          g_assert_cmpint (a, >=, 0);
          g_assert_cmpint (b, >=, 0);
          from[m] = (guint) a;
          to[m++] = (guint) b;
        }
      layout = ffm_fusion_layout_new (g_strv_length (boxes), from, to, m);
      if (!ffm_fusion_layout_check (layout, &why))
        g_error ("edge study row %s: %s", row[0], why);
      /* The checker finds the overlaps of the old drawing (every arc
         above, from the middle of its boxes, height by length) where
         there are any: this test can fail. */
      {
        FfmFusionLayout naive = { layout->n_boxes, g_array_copy (layout->arcs), 0, 0 };
        for (guint i = 0; i < naive.arcs->len; i++)
          {
            FfmFusionArc *a = &g_array_index (naive.arcs, FfmFusionArc, i);
            a->below = FALSE;
            a->level = MIN (a->to - a->from, 5);
            a->x_from = a->from + 0.5;
            a->x_to = a->to + 0.5;
          }
        naive_fails += !ffm_fusion_layout_check (&naive, NULL);
        g_array_unref (naive.arcs);
      }
      plot_rows[r] = (FfmPlotFusionRow) { row[0], FALSE, (const char *const *) boxes,
                                          g_strv_length (boxes), from, to, from, m };
    }
  /* At 512 tokens FFM's I feeds V, K and Q: the old drawing overlapped. */
  g_assert_cmpuint (naive_fails, >=, 1);
  ffm_plot_fusion_geometry (plot_rows, rows->len, 1, &geo);
  g_assert_cmpfloat (geo.widest_label, <=, geo.box_inner - 8);
  g_assert_cmpfloat (geo.widest_label, >=, 10 * FFM_PLOT_MONO_ADVANCE * geo.box_font - 1e-9);
  g_assert_cmpint (geo.width, >=, (int) (geo.label_column + 10 * geo.column));
  /* Long names get wide boxes. */
  {
    static const char *const long_boxes[] = { "attention_softmax_scaled", "Z" };
    const FfmPlotFusionRow one = { "a row label of some length", FALSE, long_boxes, 2, NULL,
                                   NULL, NULL, 0 };
    ffm_plot_fusion_geometry (&one, 1, 0, &geo);
    g_assert_cmpfloat (geo.widest_label, <=, geo.box_inner - 8);
    g_assert_cmpfloat (geo.label_column, >=, 26 * FFM_PLOT_MONO_ADVANCE * geo.row_font);
  }
  /* Random rows: every arc separated whenever the interleave graph allows. */
  for (guint t = 0; t < 2000; t++)
    {
      guint n_boxes = (guint) g_rand_int_range (rand, 2, 14);
      guint n_links = (guint) g_rand_int_range (rand, 0, 2 * n_boxes);
      g_autofree guint *from = g_new (guint, MAX (n_links, 1));
      g_autofree guint *to = g_new (guint, MAX (n_links, 1));
      g_autoptr (FfmFusionLayout) layout = NULL;
      g_autoptr (GArray) f = g_array_new (FALSE, FALSE, sizeof (guint));
      g_autoptr (GArray) g = g_array_new (FALSE, FALSE, sizeof (guint));
      g_autofree char *why = NULL;
      for (guint k = 0; k < n_links; k++)
        {
          from[k] = (guint) g_rand_int_range (rand, 0, n_boxes);
          to[k] = (guint) g_rand_int_range (rand, 0, n_boxes);
        }
      layout = ffm_fusion_layout_new (n_boxes, from, to, n_links);
      for (guint i = 0; i < layout->arcs->len; i++)
        {
          g_array_append_val (f, g_array_index (layout->arcs, FfmFusionArc, i).from);
          g_array_append_val (g, g_array_index (layout->arcs, FfmFusionArc, i).to);
        }
      if (separable (f->len, (guint *) f->data, (guint *) g->data)
          && !ffm_fusion_layout_check (layout, &why))
        g_error ("random row %u (%u boxes, %u links): %s", t, n_boxes, n_links, why);
    }
  g_rand_free (rand);
}

/* ---- Hostile use ---- */

static void
test_hostile (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("visual-hostile");
  g_autofree char *json = g_build_filename (dir, "r.json", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.json", NULL);
  g_autofree char *out = g_build_filename (dir, "out.html", NULL);
  g_autofree char *svg = g_build_filename (dir, "out.svg", NULL);
  g_autofree char *dot = g_build_filename (dir, "out.dot", NULL);
  g_autofree char *nowhere_html = g_build_filename (dir, "no", "such", "x.html", NULL);
  g_autofree char *nowhere_svg = g_build_filename (dir, "no", "such", "x.svg", NULL);
  g_autofree char *nowhere_dot = g_build_filename (dir, "no", "such", "x.dot", NULL);
  g_auto (FfmTestRun) map = { 0 };
  static const char *const base[] = { "--arch", "simple", "--workload", "matmuls", "--param",
                                      "n_einsums=2", "--threads", "2", "--quiet" };
  struct {
    const char *command;
    const char *option;
    const char *value;
    int status;
    const char *says;
  } cases[] = {
    /* bad suffixes: usage errors before any work */
    { "map", "--html", "out.txt", 2, "name it OUT.html" },
    { "map", "--diagram", "out.jpg", 2, ".svg, .png or .pdf" },
    { "map", "--diagram-dot", "out.svg", 2, "OUT.dot" },
    { "map", "--diagram-dot", "-", 2, "OUT.dot" },
    { "eval", "--html", "out.json", 2, "name it OUT.html" },
    { "eval", "--diagram", "out", 2, ".svg, .png or .pdf" },
    { "sweep", "--html", "out.pdf", 2, "name it OUT.html" },
    { "compare", "--html", "out", 2, "name it OUT.html" },
    /* unwritable paths: the error names the option and the file */
    { "map", "--html", nowhere_html, 1, "--html" },
    { "map", "--diagram", nowhere_svg, 1, "--diagram" },
    { "map", "--diagram-dot", nowhere_dot, 1, "--diagram-dot" },
    { "eval", "--html", nowhere_html, 1, "--html" },
    { "sweep", "--html", nowhere_html, 1, "--html" },
    { "compare", "--html", nowhere_html, 1, "--html" },
  };

  g_test_summary ("Each new option refuses a bad suffix (exit 2, before any work), reports an "
                  "unwritable path (exit 1, naming the option and the file), and a result "
                  "file that does not parse writes nothing");
  FFM_TEST_RUN (&map, "map", "--arch", "simple", "--workload", "matmuls", "--param",
                "n_einsums=2", "--quiet", "--json", json);
  g_assert_cmpint (map.status, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GPtrArray) args = g_ptr_array_new ();
      g_auto (FfmTestRun) run = { 0 };
      g_ptr_array_add (args, (gpointer) cases[i].command);
      if (strcmp (cases[i].command, "eval") == 0)
        g_ptr_array_add (args, json);
      else
        for (guint k = 0; k < G_N_ELEMENTS (base); k++)
          if (strcmp (cases[i].command, "map") == 0 || strcmp (base[k], "--quiet") != 0)
            g_ptr_array_add (args, (gpointer) base[k]);
      if (strcmp (cases[i].command, "sweep") == 0)
        {
          g_ptr_array_add (args, "--sweep");
          g_ptr_array_add (args, "m=16");
        }
      if (strcmp (cases[i].command, "compare") == 0)
        {
          g_ptr_array_add (args, "--runs");
          g_ptr_array_add (args, "1");
          g_ptr_array_add (args, "--budget");
          g_ptr_array_add (args, "2x");
        }
      g_ptr_array_add (args, (gpointer) cases[i].option);
      g_ptr_array_add (args, (gpointer) cases[i].value);
      g_ptr_array_add (args, NULL);
      ffm_test_run (&run, (const char *const *) args->pdata);
      if (run.status != cases[i].status || strstr (run.err, cases[i].says) == NULL
          || (cases[i].status == 1 && strstr (run.err, cases[i].value) == NULL))
        g_error ("ffm %s %s %s: exit %d (expected %d), stderr:\n%s", cases[i].command,
                 cases[i].option, cases[i].value, run.status, cases[i].status, run.err);
      /* Usage errors come before any work: no output was written. */
      if (cases[i].status == 2)
        g_assert_cmpuint (strlen (run.out), ==, 0);
    }
  /* A result file that does not parse: an error naming it, nothing written. */
  g_assert_true (g_file_set_contents (bad, "{\"ffm_result\": 1, \"mapping\": [", -1, NULL));
  {
    g_auto (FfmTestRun) run = { 0 };
    FFM_TEST_RUN (&run, "eval", bad, "--html", out, "--diagram", svg, "--diagram-dot", dot);
    g_assert_cmpint (run.status, ==, 1);
    assert_contains (run.err, bad);
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (svg, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (dot, G_FILE_TEST_EXISTS));
  }
  /* Several files: one page for all, but one diagram needs one mapping. */
  {
    g_auto (FfmTestRun) run = { 0 };
    FFM_TEST_RUN (&run, "eval", json, json, "--diagram", svg);
    g_assert_cmpint (run.status, ==, 2);
    assert_contains (run.err, "one mapping");
  }
  /* A full disk: the page is not half-written. */
  {
    g_auto (FfmTestRun) run = { 0 };
    FfmTestRunOptions o = { 0 };
    o.file_size = 4096;
    ffm_test_run_full (&run, (const char *const[]) { "eval", json, "--html", out, NULL }, &o);
    g_assert_cmpint (run.status, ==, 1);
    assert_contains (run.err, "--html");
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
  ffm_test_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/visual/every-architecture", GINT_TO_POINTER (FALSE),
                        test_every_architecture);
  g_test_add_data_func ("/visual/every-architecture-slow-chips", GINT_TO_POINTER (TRUE),
                        test_every_architecture);
  g_test_add_func ("/visual/diagram-numbers", test_diagram_numbers);
  g_test_add_func ("/visual/png-pdf", test_png_pdf);
  g_test_add_func ("/visual/fold", test_fold);
  g_test_add_func ("/visual/pages", test_pages);
  g_test_add_func ("/visual/script-in-record", test_script_in_record);
  g_test_add_func ("/visual/browser", test_browser);
  g_test_add_func ("/visual/fusion-layout", test_fusion_layout);
  g_test_add_func ("/visual/hostile", test_hostile);
  return g_test_run ();
}
