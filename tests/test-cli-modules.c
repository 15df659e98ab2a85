/* test-cli-modules.c: the command's building blocks called directly:
 * tables as text and CSV (ffm-cli-table.h), numbers for people
 * (ffm-format.h), the progress line's text (ffm-cli-progress.h) and the
 * fairness notes and warnings (ffm-cli-fairness.h). */
#include "ffm-cli-fairness.h"
#include "ffm-cli-progress.h"
#include "ffm-cli-table.h"

#include "csv-strict.h"

#include <math.h>
#include <string.h>

/* ---- Numbers ---- */

static void
test_format (void)
{
  static const struct {
    double value;
    const char *unit;
    const char *text;
  } si[] = {
    { 13056, "J", "13.06 kJ" },
    { 1.5e-8, "s", "15 ns" },
    { 2.5e-13, "J", "250 fJ" },
    { 999.96, "J", "1 kJ" },
    { 1, "s", "1 s" },
    { -3.2e6, "W", "-3.2 MW" },
    { 0, "J", "0 J" },
    { INFINITY, "b", "inf b" },
    { NAN, "J", "nan J" },
  };

  g_test_summary ("engineering units with four digits, grouped whole counts");
  for (guint i = 0; i < G_N_ELEMENTS (si); i++)
    {
      g_autofree char *text = ffm_format_si (si[i].value, si[i].unit);
      g_assert_cmpstr (text, ==, si[i].text);
    }
  {
    g_autofree char *a = ffm_format_count (1806140);
    g_autofree char *b = ffm_format_count (999);
    g_autofree char *c = ffm_format_count (G_MAXUINT64);
    g_autofree char *d = ffm_format_amount (262144.0);
    g_autofree char *e = ffm_format_amount (2.5);
    g_autofree char *f = ffm_format_area (4.121e-4);
    g_assert_cmpstr (a, ==, "1,806,140");
    g_assert_cmpstr (b, ==, "999");
    g_assert_cmpstr (c, ==, "18,446,744,073,709,551,615");
    g_assert_cmpstr (d, ==, "262,144");
    g_assert_cmpstr (e, ==, "2.5");
    g_assert_cmpstr (f, ==, "412.1 mm^2");
  }
}

/* ---- Tables ---- */

static FfmCliTable *
sample_table (const char *name)
{
  FfmCliTable *t = ffm_cli_table_new (name, "A title");

  ffm_cli_table_add_text_column (t, "name", "name");
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "count", "count");
  ffm_cli_table_add_row (t);
  ffm_cli_table_cell (t, "plain", NULL);
  ffm_cli_table_cell_quantity (t, 13056.000000000002, "J");
  ffm_cli_table_cell_count (t, 1806140);
  ffm_cli_table_add_row (t);
  ffm_cli_table_cell (t, "a, \"quoted\"\nname", NULL);
  ffm_cli_table_cell_quantity (t, 1e-12, "J");
  /* the last cell left empty */
  return t;
}

static void
test_table (void)
{
  g_autoptr (FfmCliTable) t = sample_table ("sample");
  g_autofree char *text = ffm_cli_table_to_text (t);
  g_autofree char *csv = ffm_cli_table_to_csv (t);
  g_autoptr (GPtrArray) records = csv_strict_assert (csv, "one table");
  GStrv row;

  g_test_summary ("a table: aligned text in engineering units, strict CSV with "
                  "exact numbers, quoting, empty cells");
  g_assert_true (g_str_has_prefix (text, "A title\n  name"));
  g_assert_nonnull (strstr (text, "13.06 kJ"));
  g_assert_nonnull (strstr (text, "1,806,140"));
  g_assert_nonnull (strstr (text, "1 pJ"));
  g_assert_cmpuint (records->len, ==, 3);
  row = g_ptr_array_index (records, 0);
  g_assert_cmpstr (row[0], ==, "name");
  g_assert_cmpstr (row[1], ==, "energy_j");
  row = g_ptr_array_index (records, 1);
  g_assert_cmpstr (row[1], ==, "13056.000000000002");
  g_assert_cmpstr (row[2], ==, "1806140");
  row = g_ptr_array_index (records, 2);
  g_assert_cmpstr (row[0], ==, "a, \"quoted\"\nname");
  g_assert_cmpstr (row[1], ==, "1e-12");
  g_assert_cmpstr (row[2], ==, "");
  g_assert_nonnull (strstr (csv, "\"a, \"\"quoted\"\"\nname\""));
}

static void
test_tables_union (void)
{
  g_autoptr (GPtrArray) tables = ffm_cli_tables_new ();
  g_autoptr (GPtrArray) records = NULL;
  g_autofree char *csv = NULL;
  FfmCliTable *other = ffm_cli_table_new ("other", NULL);
  GStrv header, row;

  g_test_summary ("several tables: one CSV with a table column and the union of "
                  "the columns");
  g_ptr_array_add (tables, sample_table ("first"));
  ffm_cli_table_add_text_column (other, "name", "name");
  ffm_cli_table_add_column (other, "share", "share");
  ffm_cli_table_add_row (other);
  ffm_cli_table_cell (other, "x", NULL);
  ffm_cli_table_cell_percent (other, 0.25);
  g_ptr_array_add (tables, other);
  csv = ffm_cli_tables_to_csv (tables);
  records = csv_strict_assert (csv, "two tables");
  g_assert_cmpuint (records->len, ==, 4);
  header = g_ptr_array_index (records, 0);
  g_assert_cmpstr (header[0], ==, "table");
  g_assert_cmpint (csv_column (header, "name"), ==, 1);
  g_assert_cmpint (csv_column (header, "share"), ==, 4);
  row = g_ptr_array_index (records, 3);
  g_assert_cmpstr (row[0], ==, "other");
  g_assert_cmpstr (row[1], ==, "x");
  g_assert_cmpstr (row[2], ==, "");
  g_assert_cmpstr (row[4], ==, "0.25");
}

static void
test_csv_checker (void)
{
  static const char *const bad[] = {
    "",                                   /* no header */
    "a,b\n1\n",                           /* too few fields */
    "a,b\n1,2,3\n",                       /* too many */
    "a,b\n1,2",                           /* no final line end */
    "a,b\n1,\"2\n",                       /* unclosed quote */
    "a,b\n1,2\"x\n",                      /* quote in an unquoted field */
    "a,b\n1,\"2\"x\n",                    /* text after a closing quote */
    "a,b\r\n1,2\r\n",                     /* CR */
    "a,a\n1,2\n",                         /* a column twice */
    "a,\n1,2\n",                          /* an empty column name */
    "a,b\n\n1,2\n",                       /* an empty line */
    "a,b\n\xff,2\n",                      /* not UTF-8 */
  };

  g_test_summary ("the strict CSV checker refuses what RFC 4180 does not allow");
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *message = NULL;
      g_autoptr (GPtrArray) records = csv_strict_parse (bad[i], &message);
      if (records != NULL)
        g_error ("accepted: %s", bad[i]);
      g_assert_nonnull (message);
    }
  {
    g_autoptr (GPtrArray) ok = csv_strict_parse ("a,b\n\"x,\"\"y\"\"\",\n", NULL);
    g_assert_nonnull (ok);
    g_assert_cmpstr (((GStrv) g_ptr_array_index (ok, 1))[0], ==, "x,\"y\"");
  }
}

/* ---- Progress ---- */

static void
test_progress_format (void)
{
  g_autofree char *early = ffm_cli_progress_format ("map", "pmappings: Einsum 1 of 3 (A), "
                                                    "template 1 of 90", 0.5, 1.2, 1.2, 0);
  g_autofree char *estimate = ffm_cli_progress_format ("map", "join", 0.25, 75, 60, 0);
  g_autofree char *unknown = ffm_cli_progress_format ("pmappings", "searching", -1,
                                                      4000, 4000, 0);
  g_autofree char *cut = ffm_cli_progress_format ("map", "a very long phase name indeed",
                                                  0.5, 10, 10, 20);

  g_test_summary ("the progress line: phase, percentage, elapsed time, an estimate "
                  "once the phase has run a while, cut to the width");
  g_assert_cmpstr (early, ==, "ffm map: pmappings: Einsum 1 of 3 (A), template 1 of 90 50% (1 s)");
  g_assert_cmpstr (estimate, ==, "ffm map: join 25% (1 min 15 s, about 3 min 0 s left)");
  g_assert_cmpstr (unknown, ==, "ffm pmappings: searching (1 h 6 min)");
  g_assert_cmpuint (g_utf8_strlen (cut, -1), ==, 20);
}

static void
test_pmapping_progress_text (void)
{
  FfmPmappingProgress p = { 2, 7, 120, 450, 3, "QK" };
  char text[128];

  g_test_summary ("the generator's progress as text");
  ffm_pmapping_progress_format (&p, text, sizeof text);
  g_assert_cmpstr (text, ==, "Einsum 3 of 7 (QK), template 120 of 450");
  p.einsums_done = 7;
  p.einsum_name = NULL;
  ffm_pmapping_progress_format (&p, text, sizeof text);
  g_assert_cmpstr (text, ==, "Einsum 7 of 7, template 120 of 450");
}

/* ---- Fairness ---- */

static FfmArch *
arch_with (const char *name, double main_energy, double buffer_energy)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *json = g_strdup_printf (
    "{ \"ffm_architecture\": 1, \"name\": \"%s\", \"levels\": ["
    " { \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": %g,"
    "   \"write_energy\": %g, \"read_bandwidth\": \"inf\", \"write_bandwidth\": \"inf\" },"
    " { \"memory\": \"Buffer\", \"size\": 65536, \"read_energy\": %g,"
    "   \"write_energy\": %g, \"read_bandwidth\": \"inf\", \"write_bandwidth\": \"inf\" },"
    " { \"compute\": \"MAC\", \"energy\": 1e-12, \"throughput\": 1e9 } ] }",
    name, main_energy, main_energy, buffer_energy, buffer_energy);
  FfmArch *a = ffm_arch_load_from_data (json, name, NULL, &error);

  g_assert_no_error (error);
  return a;
}

static void
test_fairness (void)
{
  g_autoptr (FfmArch) charged = arch_with ("charged", 8e-12, 1e-13);
  g_autoptr (FfmArch) also = arch_with ("also", 4e-12, 1e-13);
  g_autoptr (FfmArch) free_main = arch_with ("freemain", 0, 1e-13);
  g_autoptr (FfmArch) free_buffer = arch_with ("freebuffer", 8e-12, 0);
  g_autofree char *note = ffm_cli_fairness_note (free_main);
  g_autofree char *no_note = ffm_cli_fairness_note (charged);

  g_test_summary ("a free main memory is noted; a comparison warns when main "
                  "memory is charged by some and not others, or free memories "
                  "differ, and only then");
  g_assert_true (ffm_cli_main_memory_is_charged (charged));
  g_assert_false (ffm_cli_main_memory_is_charged (free_main));
  g_assert_true (ffm_cli_memory_is_free (free_buffer, 1));
  g_assert_nonnull (strstr (note, "MainMemory, the main memory of freemain, is free"));
  g_assert_null (no_note);
  {
    const FfmArch *archs[] = { charged, also };
    g_autoptr (GPtrArray) w = ffm_cli_fairness_compare (archs, NULL, 2);
    g_assert_cmpuint (w->len, ==, 0);
  }
  {
    const FfmArch *archs[] = { charged, free_main };
    const char *labels[] = { "a.json", "b.json" };
    g_autoptr (GPtrArray) w = ffm_cli_fairness_compare (archs, labels, 2);
    g_assert_cmpuint (w->len, ==, 1);
    g_assert_cmpstr (g_ptr_array_index (w, 0), ==,
                     "not a like-for-like comparison: a.json charges energy for "
                     "main-memory traffic, b.json does not (a free main memory), so "
                     "b.json leaves it out");
  }
  {
    const FfmArch *archs[] = { charged, free_buffer };
    g_autoptr (GPtrArray) w = ffm_cli_fairness_compare (archs, NULL, 2);
    g_assert_cmpuint (w->len, ==, 1);
    g_assert_nonnull (strstr (g_ptr_array_index (w, 0), "charged: none; freebuffer: Buffer"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-modules/format", test_format);
  g_test_add_func ("/cli-modules/table", test_table);
  g_test_add_func ("/cli-modules/tables-union", test_tables_union);
  g_test_add_func ("/cli-modules/csv-checker", test_csv_checker);
  g_test_add_func ("/cli-modules/progress-format", test_progress_format);
  g_test_add_func ("/cli-modules/pmapping-progress-text", test_pmapping_progress_text);
  g_test_add_func ("/cli-modules/fairness", test_fairness);
  return g_test_run ();
}
