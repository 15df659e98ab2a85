/* ffm-cli-table.h: the tables `ffm` prints, as text for people and as
 * CSV for programs, from one description.
 *
 * Every cell holds two spellings: what a person reads in the aligned text
 * table (engineering units, "13.06 kJ"; grouped counts, "1,806,140") and
 * what a program reads in the CSV file (exact: the shortest text that
 * reads back as the same double, "13056.000000000002"; counts as plain
 * integers). Both come from the same cells, so the text and the CSV of a
 * command never disagree.
 *
 * CSV follows RFC 4180: a header line naming the columns, one record per
 * line, the same number of fields in every record, a field quoted with
 * double quotes when it holds a comma, a quote or a line break (quotes
 * doubled inside), lines ending in LF (as Python's csv module and
 * spreadsheets read them). Column names carry the unit ("energy_j",
 * "latency_s"). A command that prints several tables writes them as one
 * CSV: a first column "table" names the table of each record, and the
 * columns are the union of the tables' columns, empty where a table has
 * none (ffm_cli_tables_to_csv()). Empty cells are empty fields. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FfmCliTable FfmCliTable;

/* A table called @name in CSV (its "table" field: "per_einsum") and
 * @title above the text table ("Per Einsum"; may be NULL). */
FfmCliTable *ffm_cli_table_new (const char *name, const char *title);
void ffm_cli_table_free (FfmCliTable *table);

const char *ffm_cli_table_get_name (const FfmCliTable *table);
guint ffm_cli_table_get_n_rows (const FfmCliTable *table);

/* Adds a column: @key is its CSV name ("energy_j"), @heading its text
 * heading ("energy"). Text columns are left-aligned, others right-aligned
 * (numbers). Add every column before the first row. */
void ffm_cli_table_add_column (FfmCliTable *table, const char *key,
                               const char *heading);
void ffm_cli_table_add_text_column (FfmCliTable *table, const char *key,
                                    const char *heading);

/* Starts a row; fill its cells in column order. Cells not filled before
 * the next row (or the end) are empty. */
void ffm_cli_table_add_row (FfmCliTable *table);
/* A cell with @text in the table and @csv in the CSV (NULL: @text). */
void ffm_cli_table_cell (FfmCliTable *table, const char *text, const char *csv);
void ffm_cli_table_cell_take (FfmCliTable *table, char *text, char *csv);
/* printf-formatted, the same in both. */
void ffm_cli_table_cell_printf (FfmCliTable *table, const char *format, ...)
  G_GNUC_PRINTF (2, 3);
/* An empty cell: "-" in the text, nothing in the CSV. */
void ffm_cli_table_cell_empty (FfmCliTable *table);
/* A quantity of @unit: ffm_format_si() in the text, exact in the CSV. */
void ffm_cli_table_cell_quantity (FfmCliTable *table, double value,
                                  const char *unit);
/* An area in m^2: mm^2 in the text (ffm_format_area()), exact m^2 in the
 * CSV. */
void ffm_cli_table_cell_area (FfmCliTable *table, double square_metres);
/* A count: grouped digits in the text, plain digits in the CSV. */
void ffm_cli_table_cell_count (FfmCliTable *table, guint64 count);
/* A double that counts (actions): ffm_format_amount() in the text. */
void ffm_cli_table_cell_amount (FfmCliTable *table, double amount);
/* A fraction in [0, 1]: "42.5 %" in the text, the exact fraction in the
 * CSV. */
void ffm_cli_table_cell_percent (FfmCliTable *table, double fraction);
/* Yes or no: "yes"/"no" in the text, "true"/"false" in the CSV. */
void ffm_cli_table_cell_boolean (FfmCliTable *table, gboolean value);

/* Appends the title line (when there is one), the heading line and one
 * line per row, each indented by two spaces, columns separated by two
 * spaces and aligned. */
void ffm_cli_table_append_text (const FfmCliTable *table, GString *out);
char *ffm_cli_table_to_text (const FfmCliTable *table);

/* The CSV of one table (header, records). (transfer full) */
char *ffm_cli_table_to_csv (const FfmCliTable *table);
/* The CSV of @tables (of FfmCliTable*): one table alone as
 * ffm_cli_table_to_csv(), several with the "table" column and the union
 * of their columns. (transfer full) */
char *ffm_cli_tables_to_csv (const GPtrArray *tables);

/* Reading a table back (the HTML report): its title (may be NULL), its
 * columns (CSV key, text heading, text or number), and a cell's text
 * (NULL when empty) and CSV spellings ("" when empty). */
const char *ffm_cli_table_get_title (const FfmCliTable *table);
guint ffm_cli_table_get_n_columns (const FfmCliTable *table);
const char *ffm_cli_table_get_key (const FfmCliTable *table, guint column);
const char *ffm_cli_table_get_heading (const FfmCliTable *table, guint column);
gboolean ffm_cli_table_column_is_text (const FfmCliTable *table, guint column);
const char *ffm_cli_table_get_text (const FfmCliTable *table, guint row, guint column);
const char *ffm_cli_table_get_csv (const FfmCliTable *table, guint row, guint column);

/* A new array of tables that frees them (transfer full). */
GPtrArray *ffm_cli_tables_new (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmCliTable, ffm_cli_table_free)

G_END_DECLS
