/* ffm-cli-table.c: tables as text and CSV (ffm-cli-table.h). */
#include "ffm-cli-table.h"

#include <ffm/ffm.h>
#include <stdarg.h>
#include <string.h>

typedef struct {
  char *key;                    /* CSV name */
  char *heading;                /* text heading */
  gboolean text;                /* left-aligned */
} Column;

typedef struct {
  char *text;                   /* NULL: empty ("-") */
  char *csv;                    /* NULL: empty */
} Cell;

struct _FfmCliTable {
  char *name;
  char *title;
  GArray *columns;              /* of Column */
  GArray *cells;                /* of Cell, row-major, n_rows x columns->len */
  guint n_rows;
  guint next;                   /* next cell of the current row */
};

static void
column_clear (gpointer data)
{
  Column *c = data;

  g_free (c->key);
  g_free (c->heading);
}

static void
cell_clear (gpointer data)
{
  Cell *c = data;

  g_free (c->text);
  g_free (c->csv);
}

FfmCliTable *
ffm_cli_table_new (const char *name, const char *title)
{
  FfmCliTable *t = g_new0 (FfmCliTable, 1);

  t->name = g_strdup (name);
  t->title = g_strdup (title);
  t->columns = g_array_new (FALSE, TRUE, sizeof (Column));
  g_array_set_clear_func (t->columns, column_clear);
  t->cells = g_array_new (FALSE, TRUE, sizeof (Cell));
  g_array_set_clear_func (t->cells, cell_clear);
  return t;
}

void
ffm_cli_table_free (FfmCliTable *t)
{
  if (t == NULL)
    return;
  g_free (t->name);
  g_free (t->title);
  g_array_unref (t->columns);
  g_array_unref (t->cells);
  g_free (t);
}

GPtrArray *
ffm_cli_tables_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_cli_table_free);
}

const char *
ffm_cli_table_get_name (const FfmCliTable *t)
{
  return t->name;
}

guint
ffm_cli_table_get_n_rows (const FfmCliTable *t)
{
  return t->n_rows;
}

static void
add_column (FfmCliTable *t, const char *key, const char *heading, gboolean text)
{
  Column c = { g_strdup (key), g_strdup (heading), text };

  g_return_if_fail (t->n_rows == 0);
  g_array_append_val (t->columns, c);
}

void
ffm_cli_table_add_column (FfmCliTable *t, const char *key, const char *heading)
{
  add_column (t, key, heading, FALSE);
}

void
ffm_cli_table_add_text_column (FfmCliTable *t, const char *key, const char *heading)
{
  add_column (t, key, heading, TRUE);
}

void
ffm_cli_table_add_row (FfmCliTable *t)
{
  g_array_set_size (t->cells, (t->n_rows + 1) * t->columns->len);
  t->n_rows++;
  t->next = 0;
}

void
ffm_cli_table_cell_take (FfmCliTable *t, char *text, char *csv)
{
  Cell *c;

  if (t->n_rows == 0 || t->next >= t->columns->len)
    {
      g_critical ("table %s: a cell outside the row", t->name);
      g_free (text);
      g_free (csv);
      return;
    }
  c = &g_array_index (t->cells, Cell, (t->n_rows - 1) * t->columns->len + t->next);
  c->text = text;
  c->csv = csv != NULL ? csv : g_strdup (text);
  t->next++;
}

void
ffm_cli_table_cell (FfmCliTable *t, const char *text, const char *csv)
{
  ffm_cli_table_cell_take (t, g_strdup (text), g_strdup (csv != NULL ? csv : text));
}

void
ffm_cli_table_cell_printf (FfmCliTable *t, const char *format, ...)
{
  va_list args;
  char *text;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  ffm_cli_table_cell_take (t, text, NULL);
}

void
ffm_cli_table_cell_empty (FfmCliTable *t)
{
  ffm_cli_table_cell_take (t, NULL, g_strdup (""));
}

static char *
exact (double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (ffm_format_double (value, buffer));
}

void
ffm_cli_table_cell_quantity (FfmCliTable *t, double value, const char *unit)
{
  ffm_cli_table_cell_take (t, ffm_format_si (value, unit), exact (value));
}

void
ffm_cli_table_cell_area (FfmCliTable *t, double square_metres)
{
  ffm_cli_table_cell_take (t, ffm_format_area (square_metres), exact (square_metres));
}

void
ffm_cli_table_cell_count (FfmCliTable *t, guint64 count)
{
  ffm_cli_table_cell_take (t, ffm_format_count (count),
                           g_strdup_printf ("%" G_GUINT64_FORMAT, count));
}

void
ffm_cli_table_cell_amount (FfmCliTable *t, double amount)
{
  ffm_cli_table_cell_take (t, ffm_format_amount (amount), exact (amount));
}

void
ffm_cli_table_cell_percent (FfmCliTable *t, double fraction)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (number, sizeof number, "%.1f", 100 * fraction);
  ffm_cli_table_cell_take (t, g_strdup_printf ("%s %%", number), exact (fraction));
}

void
ffm_cli_table_cell_boolean (FfmCliTable *t, gboolean value)
{
  ffm_cli_table_cell (t, value ? "yes" : "no", value ? "true" : "false");
}

/* ---- Text ---- */

static const Cell *
cell_at (const FfmCliTable *t, guint row, guint col)
{
  return &g_array_index (t->cells, Cell, row * t->columns->len + col);
}

static int
text_width (const char *s)
{
  return (int) g_utf8_strlen (s != NULL ? s : "-", -1);
}

static void
append_padded (GString *out, const char *s, int width, gboolean left)
{
  int pad = width - text_width (s);

  if (!left)
    for (int i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
  g_string_append (out, s != NULL ? s : "-");
  if (left)
    for (int i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
}

static void
append_line (GString *out, const FfmCliTable *t, const int *widths,
             const char *const *cells)
{
  guint n = t->columns->len;
  gsize start = out->len;

  g_string_append (out, " ");
  for (guint c = 0; c < n; c++)
    {
      const Column *col = &g_array_index (t->columns, Column, c);
      g_string_append (out, c == 0 ? " " : "  ");
      /* The last column needs no padding on its right. */
      append_padded (out, cells[c], widths[c], col->text && c + 1 < n);
    }
  while (out->len > start && out->str[out->len - 1] == ' ')
    g_string_truncate (out, out->len - 1);
  g_string_append_c (out, '\n');
}

void
ffm_cli_table_append_text (const FfmCliTable *t, GString *out)
{
  guint n = t->columns->len;
  g_autofree int *widths = g_new0 (int, MAX (n, 1));
  g_autofree const char **line = g_new0 (const char *, MAX (n, 1));

  for (guint c = 0; c < n; c++)
    widths[c] = text_width (g_array_index (t->columns, Column, c).heading);
  for (guint r = 0; r < t->n_rows; r++)
    for (guint c = 0; c < n; c++)
      widths[c] = MAX (widths[c], text_width (cell_at (t, r, c)->text));
  if (t->title != NULL)
    g_string_append_printf (out, "%s\n", t->title);
  for (guint c = 0; c < n; c++)
    line[c] = g_array_index (t->columns, Column, c).heading;
  append_line (out, t, widths, line);
  for (guint r = 0; r < t->n_rows; r++)
    {
      for (guint c = 0; c < n; c++)
        line[c] = cell_at (t, r, c)->text;
      append_line (out, t, widths, line);
    }
}

char *
ffm_cli_table_to_text (const FfmCliTable *t)
{
  GString *out = g_string_new (NULL);

  ffm_cli_table_append_text (t, out);
  return g_string_free (out, FALSE);
}

/* ---- CSV ---- */

static void
append_field (GString *out, const char *field)
{
  if (field == NULL)
    return;
  if (strpbrk (field, ",\"\r\n") == NULL)
    {
      g_string_append (out, field);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = field; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

char *
ffm_cli_table_to_csv (const FfmCliTable *t)
{
  g_autoptr (GPtrArray) one = g_ptr_array_new ();

  g_ptr_array_add (one, (gpointer) t);
  return ffm_cli_tables_to_csv (one);
}

/* Position of @key in @keys, or -1. */
static int
find_key (GPtrArray *keys, const char *key)
{
  for (guint i = 0; i < keys->len; i++)
    if (strcmp (g_ptr_array_index (keys, i), key) == 0)
      return (int) i;
  return -1;
}

char *
ffm_cli_tables_to_csv (const GPtrArray *tables)
{
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  gboolean several = tables->len > 1;
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < tables->len; i++)
    {
      const FfmCliTable *t = g_ptr_array_index (tables, i);
      for (guint c = 0; c < t->columns->len; c++)
        {
          const char *key = g_array_index (t->columns, Column, c).key;
          if (find_key (keys, key) < 0)
            g_ptr_array_add (keys, (gpointer) key);
        }
    }
  if (several)
    g_string_append (out, "table");
  for (guint k = 0; k < keys->len; k++)
    {
      if (several || k > 0)
        g_string_append_c (out, ',');
      append_field (out, g_ptr_array_index (keys, k));
    }
  g_string_append_c (out, '\n');
  for (guint i = 0; i < tables->len; i++)
    {
      const FfmCliTable *t = g_ptr_array_index (tables, i);
      g_autofree int *column_of = g_new (int, MAX (keys->len, 1));

      for (guint k = 0; k < keys->len; k++)
        {
          column_of[k] = -1;
          for (guint c = 0; c < t->columns->len; c++)
            if (strcmp (g_array_index (t->columns, Column, c).key,
                        g_ptr_array_index (keys, k)) == 0)
              column_of[k] = (int) c;
        }
      for (guint r = 0; r < t->n_rows; r++)
        {
          if (several)
            append_field (out, t->name);
          for (guint k = 0; k < keys->len; k++)
            {
              if (several || k > 0)
                g_string_append_c (out, ',');
              if (column_of[k] >= 0)
                append_field (out, cell_at (t, r, (guint) column_of[k])->csv);
            }
          g_string_append_c (out, '\n');
        }
    }
  return g_string_free (out, FALSE);
}

/* ---- Reading a table back (the HTML report) ---- */

const char *
ffm_cli_table_get_title (const FfmCliTable *t)
{
  return t->title;
}

guint
ffm_cli_table_get_n_columns (const FfmCliTable *t)
{
  return t->columns->len;
}

const char *
ffm_cli_table_get_key (const FfmCliTable *t, guint column)
{
  g_return_val_if_fail (column < t->columns->len, NULL);
  return g_array_index (t->columns, Column, column).key;
}

const char *
ffm_cli_table_get_heading (const FfmCliTable *t, guint column)
{
  g_return_val_if_fail (column < t->columns->len, NULL);
  return g_array_index (t->columns, Column, column).heading;
}

gboolean
ffm_cli_table_column_is_text (const FfmCliTable *t, guint column)
{
  g_return_val_if_fail (column < t->columns->len, TRUE);
  return g_array_index (t->columns, Column, column).text;
}

const char *
ffm_cli_table_get_text (const FfmCliTable *t, guint row, guint column)
{
  const Cell *c;

  g_return_val_if_fail (row < t->n_rows && column < t->columns->len, NULL);
  c = &g_array_index (t->cells, Cell, row * t->columns->len + column);
  return c->text;
}

const char *
ffm_cli_table_get_csv (const FfmCliTable *t, guint row, guint column)
{
  const Cell *c;

  g_return_val_if_fail (row < t->n_rows && column < t->columns->len, NULL);
  c = &g_array_index (t->cells, Cell, row * t->columns->len + column);
  return c->csv != NULL ? c->csv : "";
}
