/* json-strict.c: a strict JSON checker for the tests (json-strict.h). */
#include "json-strict.h"

#include <string.h>

typedef struct {
  const char *start;
  const char *p;
  char *message;
  int depth;
} Checker;

static gboolean
fail (Checker *c, const char *why)
{
  int line = 1;

  for (const char *q = c->start; q < c->p; q++)
    if (*q == '\n')
      line++;
  if (c->message == NULL)
    c->message = g_strdup_printf ("line %d, byte %ld: %s (near \"%.20s\")", line,
                                  (long) (c->p - c->start), why, c->p);
  return FALSE;
}

static void
skip_space (Checker *c)
{
  while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')
    c->p++;
}

static gboolean
check_string (Checker *c, GString *out)
{
  c->p++;                       /* opening quote */
  for (;;)
    {
      guchar u = (guchar) *c->p;
      if (u == '"')
        {
          c->p++;
          return TRUE;
        }
      if (u == '\0')
        return fail (c, "unterminated string");
      if (u < 0x20)
        return fail (c, "control character in a string");
      if (u == '\\')
        {
          c->p++;
          if (strchr ("\"\\/bfnrt", *c->p) != NULL && *c->p != '\0')
            {
              if (out)
                g_string_append_c (out, *c->p);
              c->p++;
              continue;
            }
          if (*c->p != 'u')
            return fail (c, "bad escape in a string");
          for (int i = 1; i <= 4; i++)
            if (!g_ascii_isxdigit (c->p[i]))
              return fail (c, "bad \\u escape");
          if (out)
            g_string_append_len (out, c->p, 5);
          c->p += 5;
          continue;
        }
      if (out)
        g_string_append_c (out, (char) u);
      c->p++;
    }
}

static gboolean
check_number (Checker *c)
{
  const char *p = c->p;

  if (*p == '-')
    p++;
  if (*p == '0')
    p++;
  else if (*p >= '1' && *p <= '9')
    while (g_ascii_isdigit (*p))
      p++;
  else
    return fail (c, "bad number");
  if (*p == '.')
    {
      p++;
      if (!g_ascii_isdigit (*p))
        return fail (c, "bad fraction");
      while (g_ascii_isdigit (*p))
        p++;
    }
  if (*p == 'e' || *p == 'E')
    {
      p++;
      if (*p == '+' || *p == '-')
        p++;
      if (!g_ascii_isdigit (*p))
        return fail (c, "bad exponent");
      while (g_ascii_isdigit (*p))
        p++;
    }
  /* What follows a number must end it ("1e-08.0", "0x10", "01"). */
  if (*p != '\0' && strchr (" \t\r\n,]}", *p) == NULL)
    {
      c->p = p;
      return fail (c, "junk after a number");
    }
  c->p = p;
  return TRUE;
}

static gboolean check_value (Checker *c);

static gboolean
check_object (Checker *c)
{
  g_autoptr (GHashTable) keys = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                       g_free, NULL);
  c->p++;
  skip_space (c);
  if (*c->p == '}')
    {
      c->p++;
      return TRUE;
    }
  for (;;)
    {
      GString *key = g_string_new (NULL);
      skip_space (c);
      if (*c->p != '"')
        {
          g_string_free (key, TRUE);
          return fail (c, "expected a key");
        }
      if (!check_string (c, key))
        {
          g_string_free (key, TRUE);
          return FALSE;
        }
      if (!g_hash_table_add (keys, g_string_free (key, FALSE)))
        return fail (c, "duplicate key");
      skip_space (c);
      if (*c->p != ':')
        return fail (c, "expected ':'");
      c->p++;
      if (!check_value (c))
        return FALSE;
      skip_space (c);
      if (*c->p == ',')
        {
          c->p++;
          continue;
        }
      if (*c->p == '}')
        {
          c->p++;
          return TRUE;
        }
      return fail (c, "expected ',' or '}'");
    }
}

static gboolean
check_array (Checker *c)
{
  c->p++;
  skip_space (c);
  if (*c->p == ']')
    {
      c->p++;
      return TRUE;
    }
  for (;;)
    {
      if (!check_value (c))
        return FALSE;
      skip_space (c);
      if (*c->p == ',')
        {
          c->p++;
          continue;
        }
      if (*c->p == ']')
        {
          c->p++;
          return TRUE;
        }
      return fail (c, "expected ',' or ']'");
    }
}

static gboolean
check_value (Checker *c)
{
  gboolean ok;

  skip_space (c);
  if (++c->depth > 1000)
    return fail (c, "nested too deep for this checker");
  switch (*c->p)
    {
    case '{':
      ok = check_object (c);
      break;
    case '[':
      ok = check_array (c);
      break;
    case '"':
      ok = check_string (c, NULL);
      break;
    case 't':
      ok = strncmp (c->p, "true", 4) == 0 ? (c->p += 4, TRUE) : fail (c, "bad literal");
      break;
    case 'f':
      ok = strncmp (c->p, "false", 5) == 0 ? (c->p += 5, TRUE) : fail (c, "bad literal");
      break;
    case 'n':
      ok = strncmp (c->p, "null", 4) == 0 ? (c->p += 4, TRUE) : fail (c, "bad literal");
      break;
    default:
      ok = check_number (c);
    }
  c->depth--;
  return ok;
}

gboolean
json_strict_check (const char *text, char **message)
{
  Checker c = { text, text, NULL, 0 };
  const char *end;

  if (!g_utf8_validate (text, -1, &end))
    {
      c.p = end;
      fail (&c, "invalid UTF-8");
    }
  else if (check_value (&c))
    {
      skip_space (&c);
      if (*c.p != '\0')
        fail (&c, "text after the value");
    }
  if (c.message == NULL)
    return TRUE;
  if (message != NULL)
    *message = c.message;
  else
    g_free (c.message);
  return FALSE;
}

void
json_strict_assert (const char *text, const char *what)
{
  g_autofree char *message = NULL;

  if (!json_strict_check (text, &message))
    g_error ("%s: not strict JSON: %s", what, message);
}
