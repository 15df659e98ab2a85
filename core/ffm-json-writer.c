/* ffm-json-writer.c: valid JSON out, whatever the values (ffm-json-writer.h). */
#include <ffm/ffm-json-writer.h>
#include <ffm/ffm-limits.h>

#include <math.h>
#include <string.h>

typedef struct {
  char bracket;                 /* '{' or '[' */
  gboolean is_inline;           /* on one line (containers inside it may not be) */
  guint n_values;               /* values written in it so far */
  gboolean have_key;            /* object: a key waits for its value */
} Frame;

struct _FfmJsonWriter {
  GString *out;
  GArray *frames;               /* of Frame, innermost last */
  guint depth;                  /* open containers that are not inline */
  gboolean done;                /* a top-level value was written */
};

FfmJsonWriter *
ffm_json_writer_new (void)
{
  FfmJsonWriter *w = g_new0 (FfmJsonWriter, 1);

  w->out = g_string_new (NULL);
  w->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  return w;
}

void
ffm_json_writer_free (FfmJsonWriter *w)
{
  if (w == NULL)
    return;
  g_string_free (w->out, TRUE);
  g_array_unref (w->frames);
  g_free (w);
}

static Frame *
top (FfmJsonWriter *w)
{
  return w->frames->len > 0
           ? &g_array_index (w->frames, Frame, w->frames->len - 1) : NULL;
}

static void
newline (FfmJsonWriter *w)
{
  g_string_append_c (w->out, '\n');
  for (guint i = 0; i < w->depth; i++)
    g_string_append (w->out, "  ");
}

/* Separator and indentation before an element of the open array or the key
 * of the next member. */
static void
begin_item (FfmJsonWriter *w, Frame *f)
{
  if (f->n_values > 0)
    g_string_append_c (w->out, ',');
  if (f->is_inline)
    {
      if (f->n_values > 0)
        g_string_append_c (w->out, ' ');
    }
  else
    newline (w);
}

static void
append_string (GString *out, const char *s)
{
  g_autofree char *valid = NULL;

  /* JSON text is UTF-8: a byte that is not (a file name, a plugin's
   * description) becomes U+FFFD rather than an unreadable document. */
  if (!g_utf8_validate (s, -1, NULL))
    s = valid = g_utf8_make_valid (s, -1);
  g_string_append_c (out, '"');
  for (const char *c = s; *c != '\0'; c++)
    {
      guchar u = (guchar) *c;
      switch (u)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        default:
          if (u < 0x20 || u == 0x7f)
            g_string_append_printf (out, "\\u%04x", u);
          else
            g_string_append_c (out, (char) u);
        }
    }
  g_string_append_c (out, '"');
}

/* Checks that a value may come now and writes what goes before it. */
static gboolean
before_value (FfmJsonWriter *w)
{
  Frame *f = top (w);

  if (f == NULL)
    {
      g_return_val_if_fail (!w->done, FALSE);
      w->done = TRUE;
      return TRUE;
    }
  if (f->bracket == '{')
    {
      if (!f->have_key)
        {
          g_critical ("ffm_json_writer: a value in an object needs a key first");
          return FALSE;
        }
      f->have_key = FALSE;
    }
  else
    begin_item (w, f);
  f->n_values++;
  return TRUE;
}

void
ffm_json_writer_key (FfmJsonWriter *w, const char *name)
{
  Frame *f;

  g_return_if_fail (w != NULL && name != NULL);
  f = top (w);
  if (f == NULL || f->bracket != '{' || f->have_key)
    {
      g_critical ("ffm_json_writer_key: \"%s\" is not in an object waiting for a key",
                  name);
      return;
    }
  begin_item (w, f);
  append_string (w->out, name);
  g_string_append (w->out, ": ");
  f->have_key = TRUE;
}

static void
begin (FfmJsonWriter *w, char bracket, gboolean is_inline)
{
  Frame f = { bracket, is_inline, 0, FALSE };

  if (!before_value (w))
    return;
  g_string_append_c (w->out, bracket);
  g_array_append_val (w->frames, f);
  if (!is_inline)
    w->depth++;
}

static void
end (FfmJsonWriter *w, char bracket)
{
  Frame *f = top (w);
  Frame closed;

  if (f == NULL || f->bracket != bracket || f->have_key)
    {
      g_critical ("ffm_json_writer: unbalanced end of %s",
                  bracket == '{' ? "object" : "array");
      return;
    }
  closed = *f;
  g_array_set_size (w->frames, w->frames->len - 1);
  if (!closed.is_inline)
    {
      w->depth--;
      if (closed.n_values > 0)
        newline (w);
    }
  g_string_append_c (w->out, bracket == '{' ? '}' : ']');
}

void
ffm_json_writer_begin_object (FfmJsonWriter *w)
{
  g_return_if_fail (w != NULL);
  begin (w, '{', FALSE);
}

void
ffm_json_writer_begin_array (FfmJsonWriter *w)
{
  g_return_if_fail (w != NULL);
  begin (w, '[', FALSE);
}

void
ffm_json_writer_begin_object_inline (FfmJsonWriter *w)
{
  g_return_if_fail (w != NULL);
  begin (w, '{', TRUE);
}

void
ffm_json_writer_begin_array_inline (FfmJsonWriter *w)
{
  g_return_if_fail (w != NULL);
  begin (w, '[', TRUE);
}

void
ffm_json_writer_end_object (FfmJsonWriter *w)
{
  g_return_if_fail (w != NULL);
  end (w, '{');
}

void
ffm_json_writer_end_array (FfmJsonWriter *w)
{
  g_return_if_fail (w != NULL);
  end (w, '[');
}

void
ffm_json_writer_string (FfmJsonWriter *w, const char *value)
{
  g_return_if_fail (w != NULL);
  if (!before_value (w))
    return;
  if (value == NULL)
    g_string_append (w->out, "null");
  else
    append_string (w->out, value);
}

char *
ffm_format_double (double value, char *buffer)
{
  g_return_val_if_fail (buffer != NULL, NULL);
  if (isnan (value))
    return strcpy (buffer, "nan");
  if (isinf (value))
    return strcpy (buffer, value > 0 ? "inf" : "-inf");
  /* "-0" would read back as the integer 0. */
  if (value == 0 && signbit (value))
    return strcpy (buffer, "-0.0");
  /* %.17g always reads back; fewer digits usually do and read better. */
  for (int digits = 15; digits <= 17; digits++)
    {
      char format[8];
      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buffer, G_ASCII_DTOSTR_BUF_SIZE, format, value);
      if (g_ascii_strtod (buffer, NULL) == value)
        break;
    }
  /* A whole number beyond 2^53 printed as digits ("12069544874830208")
   * would read back as an integer, which ffm's readers refuse beyond 2^53
   * (ffm-limits.h): write it with an exponent, as the double it is. */
  if (fabs (value) > FFM_MAX_EXACT_INTEGER && strpbrk (buffer, ".eE") == NULL)
    for (int digits = 1; digits <= 17; digits++)
      {
        char format[8];
        g_snprintf (format, sizeof format, "%%.%de", digits);
        g_ascii_formatd (buffer, G_ASCII_DTOSTR_BUF_SIZE, format, value);
        if (g_ascii_strtod (buffer, NULL) == value)
          break;
      }
  return buffer;
}

void
ffm_json_writer_double (FfmJsonWriter *w, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_if_fail (w != NULL);
  if (!before_value (w))
    return;
  ffm_format_double (value, buffer);
  /* %g never writes a JSON-invalid number ("1e-08", "-0", "5"); the three
   * values JSON cannot spell are strings. */
  if (isfinite (value))
    g_string_append (w->out, buffer);
  else
    append_string (w->out, buffer);
}

void
ffm_json_writer_int (FfmJsonWriter *w, gint64 value)
{
  g_return_if_fail (w != NULL);
  if (before_value (w))
    g_string_append_printf (w->out, "%" G_GINT64_FORMAT, value);
}

void
ffm_json_writer_uint (FfmJsonWriter *w, guint64 value)
{
  g_return_if_fail (w != NULL);
  if (before_value (w))
    g_string_append_printf (w->out, "%" G_GUINT64_FORMAT, value);
}

void
ffm_json_writer_boolean (FfmJsonWriter *w, gboolean value)
{
  g_return_if_fail (w != NULL);
  if (before_value (w))
    g_string_append (w->out, value ? "true" : "false");
}

void
ffm_json_writer_null (FfmJsonWriter *w)
{
  g_return_if_fail (w != NULL);
  if (before_value (w))
    g_string_append (w->out, "null");
}

void
ffm_json_writer_member_string (FfmJsonWriter *w, const char *name, const char *value)
{
  ffm_json_writer_key (w, name);
  ffm_json_writer_string (w, value);
}

void
ffm_json_writer_member_double (FfmJsonWriter *w, const char *name, double value)
{
  ffm_json_writer_key (w, name);
  ffm_json_writer_double (w, value);
}

void
ffm_json_writer_member_int (FfmJsonWriter *w, const char *name, gint64 value)
{
  ffm_json_writer_key (w, name);
  ffm_json_writer_int (w, value);
}

void
ffm_json_writer_member_uint (FfmJsonWriter *w, const char *name, guint64 value)
{
  ffm_json_writer_key (w, name);
  ffm_json_writer_uint (w, value);
}

void
ffm_json_writer_member_boolean (FfmJsonWriter *w, const char *name, gboolean value)
{
  ffm_json_writer_key (w, name);
  ffm_json_writer_boolean (w, value);
}

void
ffm_json_writer_member_null (FfmJsonWriter *w, const char *name)
{
  ffm_json_writer_key (w, name);
  ffm_json_writer_null (w);
}

char *
ffm_json_writer_finish (FfmJsonWriter *w)
{
  char *text;

  g_return_val_if_fail (w != NULL, NULL);
  if (w->frames->len > 0)
    {
      g_critical ("ffm_json_writer_finish: %u container(s) still open",
                  w->frames->len);
      while (w->frames->len > 0)
        {
          Frame *f = top (w);
          if (f->have_key)
            ffm_json_writer_null (w);
          end (w, f->bracket);
        }
    }
  if (!w->done)
    {
      g_critical ("ffm_json_writer_finish: nothing was written");
      g_string_append (w->out, "null");
    }
  g_string_append_c (w->out, '\n');
  text = g_string_free (w->out, FALSE);
  w->out = g_string_new (NULL);
  w->done = FALSE;
  return text;
}

gboolean
ffm_json_node_get_double (JsonNode *node, double *out)
{
  GType type;

  g_return_val_if_fail (out != NULL, FALSE);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out = (double) json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else if (type == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (node);
      if (strcmp (s, "inf") == 0)
        *out = INFINITY;
      else if (strcmp (s, "-inf") == 0)
        *out = -INFINITY;
      else if (strcmp (s, "nan") == 0)
        *out = NAN;
      else
        return FALSE;
    }
  else
    return FALSE;
  return TRUE;
}
