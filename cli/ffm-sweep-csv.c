/* ffm-sweep-csv.c: the rows of `ffm sweep` as CSV (ffm-sweep-csv.h). */
#include "ffm-sweep-csv.h"

#include <math.h>
#include <string.h>

void
ffm_sweep_point_free (Point *p)
{
  g_strfreev (p->values);
  g_free (p->key);
  g_free (p->fused);
  g_free (p->level_energy);
  g_free (p->class_energy);
  g_free (p->offchip_class_energy);
  g_free (p->einsums);
  g_free (p->fused_einsums);
  g_free (p->error);
  g_free (p->line);
  g_clear_pointer (&p->problem, ffm_problem_unref);
  g_clear_pointer (&p->constraints, ffm_constraints_unref);
  g_free (p);
}

void
ffm_sweep_axis_clear (Axis *a)
{
  g_free (a->name);
  g_strfreev (a->values);
}

/* ---- CSV ---- */

void
ffm_sweep_csv_field (GString *line, const char *text)
{
  if (line->len > 0)
    g_string_append_c (line, ',');
  if (text == NULL)
    return;
  if (strpbrk (text, ",\"\n\r") == NULL)
    {
      g_string_append (line, text);
      return;
    }
  g_string_append_c (line, '"');
  for (const char *c = text; *c != '\0'; c++)
    {
      if (*c == '"')
        g_string_append_c (line, '"');
      g_string_append_c (line, *c);
    }
  g_string_append_c (line, '"');
}

void
ffm_sweep_csv_double (GString *line, gboolean have, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  ffm_sweep_csv_field (line, have ? g_ascii_formatd (buf, sizeof buf, "%.17g", v) : NULL);
}

/* Splits one CSV record of @text at *@pos into fields (quotes as written by
 * ffm_sweep_csv_field; a quoted field may hold newlines); advances *@pos past it.
 * NULL at the end of the text. */
GPtrArray *
ffm_sweep_csv_record (const char *text, gsize *pos)
{
  GPtrArray *fields;
  GString *f = g_string_new (NULL);
  const char *c = text + *pos;

  if (*c == '\0')
    {
      g_string_free (f, TRUE);
      return NULL;
    }
  fields = g_ptr_array_new_with_free_func (g_free);
  for (;;)
    {
      if (*c == '"')
        {
          for (c++; *c != '\0'; c++)
            {
              if (*c == '"' && c[1] == '"')
                g_string_append_c (f, *c++);
              else if (*c == '"')
                {
                  c++;
                  break;
                }
              else
                g_string_append_c (f, *c);
            }
        }
      while (*c != '\0' && *c != ',' && *c != '\n' && *c != '\r')
        g_string_append_c (f, *c++);
      g_ptr_array_add (fields, g_string_free (f, FALSE));
      f = g_string_new (NULL);
      if (*c == ',')
        {
          c++;
          continue;
        }
      if (*c == '\r')
        c++;
      if (*c == '\n')
        c++;
      break;
    }
  g_string_free (f, TRUE);
  *pos = (gsize) (c - text);
  return fields;
}

/* The fixed columns after the policy and the axes. */
static const char *const result_columns[] = {
  "status", "energy_j", "latency_s", "edp_js", "area_m2", "seconds", "fused",
  "energy_by_level", "energy_by_tensor_class", "offchip_energy_by_tensor_class",
  "einsums", "fused_einsums", "error", NULL
};
#define N_RESULT_COLUMNS (G_N_ELEMENTS (result_columns) - 1)

char *
ffm_sweep_csv_header (const GArray *axes)
{
  GString *line = g_string_new (NULL);

  ffm_sweep_csv_field (line, "policy");
  for (guint i = 0; i < axes->len; i++)
    {
      const Axis *a = &g_array_index (axes, Axis, i);
      g_autofree char *name = g_strdup_printf ("%s%s", a->arch ? "arch." : "", a->name);
      ffm_sweep_csv_field (line, name);
    }
  for (guint i = 0; result_columns[i] != NULL; i++)
    ffm_sweep_csv_field (line, result_columns[i]);
  return g_string_free (line, FALSE);
}

char *
ffm_sweep_point_key (const char *policy, char **values)
{
  g_autofree char *joined = g_strjoinv ("\x1f", values);

  return g_strdup_printf ("%s\x1f%s", policy, joined);
}

void
ffm_sweep_point_make_line (Point *p)
{
  GString *line = g_string_new (NULL);

  ffm_sweep_csv_field (line, p->policy);
  for (guint i = 0; p->values[i] != NULL; i++)
    ffm_sweep_csv_field (line, p->values[i]);
  ffm_sweep_csv_field (line, p->ok ? "ok" : "failed");
  ffm_sweep_csv_double (line, p->ok, p->energy);
  ffm_sweep_csv_double (line, p->ok, p->latency);
  ffm_sweep_csv_double (line, p->ok, p->edp);
  ffm_sweep_csv_double (line, p->ok, p->area);
  {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    ffm_sweep_csv_field (line, g_ascii_formatd (buf, sizeof buf, "%.3f", p->seconds));
  }
  ffm_sweep_csv_field (line, p->fused);
  ffm_sweep_csv_field (line, p->level_energy);
  ffm_sweep_csv_field (line, p->class_energy);
  ffm_sweep_csv_field (line, p->offchip_class_energy);
  ffm_sweep_csv_field (line, p->einsums);
  ffm_sweep_csv_field (line, p->fused_einsums);
  ffm_sweep_csv_field (line, p->error);
  g_free (p->line);
  p->line = g_string_free (line, FALSE);
}

gboolean
ffm_sweep_parse_double (const char *text, double *out)
{
  char *end = NULL;

  if (text == NULL || *text == '\0')
    return FALSE;
  *out = g_ascii_strtod (text, &end);
  return end != NULL && *end == '\0';
}

/* A number a sweep writes in an "ok" row: finite and not negative. */
static gboolean
parse_result_number (const char *text, double *out)
{
  return ffm_sweep_parse_double (text, out) && isfinite (*out) && *out >= 0;
}

/* A point's seconds as a sweep writes them ("%.3f"): beyond
 * FFM_SWEEP_MAX_SECONDS the digits would not fit the line's buffer, and
 * the row written back would not be the row read. */
static gboolean
parse_seconds (const char *text, double *out)
{
  return parse_result_number (text, out) && *out <= FFM_SWEEP_MAX_SECONDS;
}

/* Reads the rows of @text (CSV of @length bytes from @path: a previous
 * run's file, or a row another MPI rank sent) into the points they match.
 * FALSE when the text is not this sweep's (other columns) or a row is
 * malformed. */
gboolean
ffm_sweep_rows_from_text (const char *path, const char *text, gsize length, const GArray *axes,
                GPtrArray *points, guint *n_resumed, GError **error)
{
  g_autofree char *header = ffm_sweep_csv_header (axes);
  g_autoptr (GHashTable) by_key = g_hash_table_new (g_str_hash, g_str_equal);
  gsize pos = 0;
  guint n_axes = axes->len, row = 1;
  GPtrArray *first;

  *n_resumed = 0;
  if (length == 0)
    return TRUE;
  if (strlen (text) != length)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--csv %s: not a CSV "
                   "file of ffm sweep (it holds a NUL byte)", path);
      return FALSE;
    }
  for (guint i = 0; i < points->len; i++)
    {
      Point *p = points->pdata[i];
      g_hash_table_insert (by_key, p->key, p);
    }
  first = ffm_sweep_csv_record (text, &pos);
  {
    g_autoptr (GPtrArray) fields = first;
    GString *got = g_string_new (NULL);
    for (guint i = 0; i < fields->len; i++)
      ffm_sweep_csv_field (got, fields->pdata[i]);
    if (strcmp (got->str, header) != 0)
      {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--csv %s: written by "
                     "another sweep (its columns are %s; this sweep's are %s): "
                     "name another file to start afresh", path, got->str, header);
        g_string_free (got, TRUE);
        return FALSE;
      }
    g_string_free (got, TRUE);
  }
  for (GPtrArray *next; (next = ffm_sweep_csv_record (text, &pos)) != NULL; )
    {
      g_autoptr (GPtrArray) fields = next;
      g_autofree char *key = NULL;
      const char *const *f;
      const char *status;
      Point *p;
      row++;
      if (fields->len == 1 && ((char *) fields->pdata[0])[0] == '\0')
        continue;               /* an empty line */
      if (fields->len != 1 + n_axes + N_RESULT_COLUMNS)
        {
          /* The last line of a killed run may be cut short: redo it. */
          if (text[pos] == '\0' && text[length - 1] != '\n')
            break;
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--csv %s: row %u "
                       "has %u fields, expected %u", path, row, fields->len,
                       (guint) (1 + n_axes + N_RESULT_COLUMNS));
          return FALSE;
        }
      g_ptr_array_add (fields, NULL);
      /* After the add, which may have moved the array. */
      f = (const char *const *) fields->pdata;
      {
        g_auto (GStrv) values = g_new0 (char *, n_axes + 1);
        for (guint i = 0; i < n_axes; i++)
          values[i] = g_strdup (f[1 + i]);
        key = ffm_sweep_point_key (f[0], values);
      }
      p = g_hash_table_lookup (by_key, key);
      if (p == NULL)
        {
          /* Rewriting the file at the end would lose the row. */
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--csv %s: row %u (policy "
                       "%s) is not a point of this sweep; the file is left as it is",
                       path, row, f[0]);
          return FALSE;
        }
      if (p->done)
        continue;               /* a row written twice */
      status = f[1 + n_axes];
      p->ok = strcmp (status, "ok") == 0;
      if ((!p->ok && strcmp (status, "failed") != 0)
          || (p->ok && (!parse_result_number (f[2 + n_axes], &p->energy)
                        || !parse_result_number (f[3 + n_axes], &p->latency)
                        || !parse_result_number (f[4 + n_axes], &p->edp)
                        || !parse_result_number (f[5 + n_axes], &p->area)))
          || !parse_seconds (f[6 + n_axes], &p->seconds))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--csv %s: row %u: "
                       "malformed status or numbers (a status is ok or failed; energy, "
                       "latency, EDP and area are finite and not negative; seconds "
                       "between 0 and %g)", path, row, FFM_SWEEP_MAX_SECONDS);
          return FALSE;
        }
      p->fused = g_strdup (f[7 + n_axes]);
      p->level_energy = g_strdup (f[8 + n_axes]);
      p->class_energy = g_strdup (f[9 + n_axes]);
      p->offchip_class_energy = g_strdup (f[10 + n_axes]);
      p->einsums = g_strdup (f[11 + n_axes]);
      p->fused_einsums = g_strdup (f[12 + n_axes]);
      p->error = *f[13 + n_axes] != '\0' ? g_strdup (f[13 + n_axes]) : NULL;
      p->done = TRUE;
      ffm_sweep_point_make_line (p);
      (*n_resumed)++;
    }
  return TRUE;
}

