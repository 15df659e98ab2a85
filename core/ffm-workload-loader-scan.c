/* ffm-workload-loader-scan.c: Einsum strings ("Z[m,n] = A[m,k] * B[k,n]")
 * into raw accesses (ffm-workload-loader-private.h). */
#include "ffm-workload-loader-private.h"

/* ---- Einsum strings ---- */

static gboolean
scan_error (Scan *s, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
scan_error (Scan *s, const char *format, ...)
{
  g_autofree char *what = NULL;
  va_list args;

  if (s->error != NULL)
    return FALSE;
  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  s->error = g_error_new (INVALID, "%s at character %d of \"%s\"", what,
                          (int) (s->p - s->text) + 1, s->text);
  return FALSE;
}

static void
skip_spaces (Scan *s)
{
  while (g_ascii_isspace (*s->p))
    s->p++;
}

static char *
scan_identifier (Scan *s)
{
  const char *start = s->p;

  if (!g_ascii_isalpha (*s->p) && *s->p != '_')
    return NULL;
  while (g_ascii_isalnum (*s->p) || *s->p == '_')
    s->p++;
  return g_strndup (start, (gsize) (s->p - start));
}

static gboolean
scan_integer (Scan *s, gint64 *out)
{
  gint64 v = 0;

  if (!g_ascii_isdigit (*s->p))
    return scan_error (s, "expected an integer");
  while (g_ascii_isdigit (*s->p))
    {
      if (v > (G_MAXINT64 - 9) / 10)
        return scan_error (s, "integer too large");
      v = v * 10 + (*s->p++ - '0');
    }
  *out = v;
  return TRUE;
}

static gboolean
add_term (Scan *s, RawEntry *e, char *var, gint64 coef)
{
  for (guint t = 0; t < e->n_terms; t++)
    if (strcmp (e->vars[t], var) == 0)
      {
        e->coefs[t] += coef;
        g_free (var);
        return TRUE;
      }
  if (!g_ascii_islower (var[0]))
    {
      g_free (var);
      return scan_error (s, "rank variables start with a lower-case letter "
                         "(to name a rank, write RANK:variable)");
    }
  if (e->n_terms == FFM_MAX_AFFINE_TERMS)
    {
      g_free (var);
      return scan_error (s, "more than %d variables in one index expression",
                         FFM_MAX_AFFINE_TERMS);
    }
  e->vars[e->n_terms] = var;
  e->coefs[e->n_terms++] = coef;
  return TRUE;
}

/* term := INT ['*' VAR] | VAR ['*' INT] */
static gboolean
scan_term (Scan *s, RawEntry *e)
{
  char *var;
  gint64 coef = 1;

  skip_spaces (s);
  if (g_ascii_isdigit (*s->p))
    {
      if (!scan_integer (s, &coef))
        return FALSE;
      skip_spaces (s);
      if (*s->p != '*')
        {
          e->offset += coef;
          return TRUE;
        }
      s->p++;
      skip_spaces (s);
      if ((var = scan_identifier (s)) == NULL)
        return scan_error (s, "expected a rank variable after '*'");
    }
  else
    {
      if ((var = scan_identifier (s)) == NULL)
        return scan_error (s, "expected a rank variable or an integer");
      skip_spaces (s);
      if (*s->p == '*')
        {
          s->p++;
          skip_spaces (s);
          if (!scan_integer (s, &coef))
            {
              g_free (var);
              return FALSE;
            }
        }
    }
  if (coef == 0)
    {
      g_free (var);
      return scan_error (s, "a coefficient of 0");
    }
  return add_term (s, e, var, coef);
}

/* entry := [RANK ':'] term ('+' term)* */
static gboolean
scan_entry (Scan *s, RawEntry *e)
{
  const char *start;
  char *word;

  skip_spaces (s);
  start = s->p;
  word = scan_identifier (s);
  skip_spaces (s);
  if (word != NULL && *s->p == ':')
    {
      e->rank = word;
      s->p++;
    }
  else
    {
      g_free (word);
      s->p = start;
    }
  for (;;)
    {
      if (!scan_term (s, e))
        return FALSE;
      skip_spaces (s);
      if (*s->p != '+')
        break;
      s->p++;
    }
  if (e->rank == NULL && e->n_terms == 1 && e->coefs[0] == 1 && e->offset == 0)
    e->rank = g_ascii_strup (e->vars[0], -1);
  return TRUE;
}

/* access := NAME ['[' [entry (',' entry)*] ']'] */
static gboolean
scan_access (Scan *s, RawAccess *a)
{
  skip_spaces (s);
  if ((a->tensor = scan_identifier (s)) == NULL)
    return scan_error (s, "expected a tensor name");
  skip_spaces (s);
  if (*s->p != '[')
    return TRUE;
  s->p++;
  skip_spaces (s);
  if (*s->p == ']')
    {
      s->p++;
      return TRUE;
    }
  for (;;)
    {
      if (a->n_entries == FFM_MAX_TENSOR_RANKS)
        return scan_error (s, "tensor %s has more than %d ranks", a->tensor,
                           FFM_MAX_TENSOR_RANKS);
      if (!scan_entry (s, &a->entries[a->n_entries++]))
        return FALSE;
      skip_spaces (s);
      if (*s->p == ']')
        {
          s->p++;
          return TRUE;
        }
      if (*s->p != ',')
        return scan_error (s, "expected ',' or ']'");
      s->p++;
    }
}

static gboolean
same_access (const RawAccess *a, const RawAccess *b)
{
  if (a->n_entries != b->n_entries)
    return FALSE;
  for (guint r = 0; r < a->n_entries; r++)
    {
      const RawEntry *x = &a->entries[r], *y = &b->entries[r];
      if (g_strcmp0 (x->rank, y->rank) != 0 || x->n_terms != y->n_terms
          || x->offset != y->offset)
        return FALSE;
      for (guint t = 0; t < x->n_terms; t++)
        if (strcmp (x->vars[t], y->vars[t]) != 0 || x->coefs[t] != y->coefs[t])
          return FALSE;
    }
  return TRUE;
}

gboolean
loader_scan_einsum (Scan *s, RawEinsum *e)
{
  if (!scan_access (s, &e->output))
    return FALSE;
  skip_spaces (s);
  if (*s->p != '=')
    return scan_error (s, "expected '=' after the output tensor");
  s->p++;
  for (;;)
    {
      RawAccess a = { 0 };
      gboolean repeated = FALSE;

      if (!scan_access (s, &a))
        {
          loader_raw_access_clear (&a);
          return FALSE;
        }
      if (strcmp (a.tensor, e->output.tensor) == 0)
        {
          loader_raw_access_clear (&a);
          return scan_error (s, "tensor %s is both read and written", e->output.tensor);
        }
      for (guint i = 0; i < e->n_inputs; i++)
        if (strcmp (e->inputs[i].tensor, a.tensor) == 0)
          {
            if (!same_access (&e->inputs[i], &a))
              {
                char *name = g_strdup (a.tensor);
                loader_raw_access_clear (&a);
                scan_error (s, "tensor %s appears twice with different indices", name);
                g_free (name);
                return FALSE;
              }
            repeated = TRUE;
          }
      if (repeated)
        loader_raw_access_clear (&a);
      else if (e->n_inputs == FFM_MAX_EINSUM_TENSORS - 1)
        {
          loader_raw_access_clear (&a);
          return scan_error (s, "more than %d tensors in one Einsum", FFM_MAX_EINSUM_TENSORS);
        }
      else
        e->inputs[e->n_inputs++] = a;
      skip_spaces (s);
      if (*s->p == '\0')
        return TRUE;
      if (*s->p != '*' && *s->p != '+')
        return scan_error (s, "expected '*', '+' or the end of the Einsum");
      s->p++;
    }
}
