/* csv-strict.c: strict CSV for the tests (csv-strict.h). */
#include "csv-strict.h"

#include <string.h>

static gboolean
fail (char **message, guint line, const char *format, const char *what)
{
  if (message != NULL)
    *message = g_strdup_printf ("line %u: %s%s", line, format, what != NULL ? what : "");
  return FALSE;
}

/* Reads one record starting at *@p (which it advances past the LF). */
static gboolean
read_record (const char **p, guint line, GPtrArray *fields, char **message)
{
  const char *s = *p;

  for (;;)
    {
      GString *field = g_string_new (NULL);
      if (*s == '"')
        {
          s++;
          for (;;)
            {
              if (*s == '\0')
                {
                  g_string_free (field, TRUE);
                  return fail (message, line, "a quoted field is not closed", NULL);
                }
              if (*s == '"' && s[1] == '"')
                {
                  g_string_append_c (field, '"');
                  s += 2;
                  continue;
                }
              if (*s == '"')
                {
                  s++;
                  break;
                }
              g_string_append_c (field, *s++);
            }
          if (*s != ',' && *s != '\n')
            {
              g_string_free (field, TRUE);
              return fail (message, line, "text after a closing quote", NULL);
            }
        }
      else
        {
          while (*s != ',' && *s != '\n' && *s != '\0')
            {
              if (*s == '"' || *s == '\r')
                {
                  g_string_free (field, TRUE);
                  return fail (message, line, *s == '"' ? "a quote in an unquoted field"
                                                        : "a CR outside quotes", NULL);
                }
              g_string_append_c (field, *s++);
            }
          if (*s == '\0')
            {
              g_string_free (field, TRUE);
              return fail (message, line, "the last record has no final line end", NULL);
            }
        }
      g_ptr_array_add (fields, g_string_free (field, FALSE));
      if (*s == ',')
        {
          s++;
          continue;
        }
      /* *s == '\n' */
      *p = s + 1;
      return TRUE;
    }
}

GPtrArray *
csv_strict_parse (const char *text, char **message)
{
  g_autoptr (GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  const char *p = text;
  guint line = 1;

  if (!g_utf8_validate (text, -1, NULL))
    {
      fail (message, 0, "not valid UTF-8", NULL);
      return NULL;
    }
  if (*p == '\0')
    {
      fail (message, 1, "empty: no header", NULL);
      return NULL;
    }
  while (*p != '\0')
    {
      GPtrArray *fields = g_ptr_array_new ();
      const char *start = p;
      guint record_line;
      GStrv row;

      if (*p == '\n')
        {
          g_ptr_array_unref (fields);
          fail (message, line, "an empty line", NULL);
          return NULL;
        }
      if (!read_record (&p, line, fields, message))
        {
          g_ptr_array_set_free_func (fields, g_free);
          g_ptr_array_unref (fields);
          return NULL;
        }
      g_ptr_array_add (fields, NULL);
      row = (GStrv) g_ptr_array_free (fields, FALSE);
      record_line = line;
      for (const char *q = start; q < p; q++)
        line += *q == '\n';
      if (records->len == 0)
        for (guint i = 0; row[i] != NULL; i++)
          {
            if (row[i][0] == '\0')
              {
                g_strfreev (row);
                fail (message, 1, "an empty column name in the header", NULL);
                return NULL;
              }
            for (guint j = 0; j < i; j++)
              if (strcmp (row[i], row[j]) == 0)
                {
                  char *name = g_strdup (row[i]);
                  g_strfreev (row);
                  fail (message, 1, "a column named twice in the header: ", name);
                  g_free (name);
                  return NULL;
                }
          }
      else if (g_strv_length (row) != g_strv_length (g_ptr_array_index (records, 0)))
        {
          g_autofree char *counts = g_strdup_printf ("%u fields, the header has %u",
                                                     g_strv_length (row),
                                                     g_strv_length (g_ptr_array_index (records, 0)));
          g_strfreev (row);
          fail (message, record_line, "", counts);
          return NULL;
        }
      g_ptr_array_add (records, row);
    }
  return g_steal_pointer (&records);
}

GPtrArray *
csv_strict_assert (const char *text, const char *what)
{
  g_autofree char *message = NULL;
  GPtrArray *records = csv_strict_parse (text, &message);

  if (records == NULL)
    g_error ("%s: not strict CSV: %s\n%s", what, message, text);
  return records;
}

int
csv_column (const GStrv header, const char *name)
{
  for (guint i = 0; header[i] != NULL; i++)
    if (strcmp (header[i], name) == 0)
      return (int) i;
  return -1;
}
