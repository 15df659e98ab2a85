/* ffm-params.c: declared parameters and the user's KEY=VALUE settings
 * (see ffm-params.h).
 *
 * Values are kept as the user's text and checked against the declaration
 * each time a getter reads them, so one FfmParamValues can be handed to
 * several owners (a workload and an architecture) and each reports its own
 * problems in its own name. */
#include <ffm/ffm-params.h>
#include <ffm/ffm-limits.h>
#include <ffm/ffm-expr.h>

#include <math.h>
#include <string.h>


struct _FfmParamValues {
  GPtrArray *keys;      /* char*, NULL-terminated, in order of first setting */
  GHashTable *values;   /* key (owned by keys) -> char* */
};

FfmParamValues *
ffm_param_values_new (void)
{
  FfmParamValues *values = g_new0 (FfmParamValues, 1);

  values->keys = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (values->keys, NULL);
  values->values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  return values;
}

void
ffm_param_values_free (FfmParamValues *values)
{
  if (values == NULL)
    return;
  g_hash_table_unref (values->values);
  g_ptr_array_unref (values->keys);
  g_free (values);
}

FfmParamValues *
ffm_param_values_copy (const FfmParamValues *values)
{
  FfmParamValues *copy = ffm_param_values_new ();

  g_return_val_if_fail (values != NULL, copy);
  for (guint i = 0; i + 1 < values->keys->len; i++)
    {
      const char *key = values->keys->pdata[i];
      ffm_param_values_set (copy, key, g_hash_table_lookup (values->values, key));
    }
  return copy;
}

void
ffm_param_values_set (FfmParamValues *values, const char *key, const char *value)
{
  gpointer stored_key = NULL;

  g_return_if_fail (values != NULL && key != NULL && value != NULL);
  if (g_hash_table_lookup_extended (values->values, key, &stored_key, NULL))
    {
      g_hash_table_insert (values->values, stored_key, g_strdup (value));
      return;
    }
  stored_key = g_strdup (key);
  values->keys->pdata[values->keys->len - 1] = stored_key;
  g_ptr_array_add (values->keys, NULL);
  g_hash_table_insert (values->values, stored_key, g_strdup (value));
}

gboolean
ffm_param_values_parse_assignment (FfmParamValues *values,
                                   const char *assignment, GError **error)
{
  const char *eq;
  g_autofree char *key = NULL;
  g_autofree char *stripped = NULL;

  g_return_val_if_fail (values != NULL && assignment != NULL, FALSE);
  eq = strchr (assignment, '=');
  if (eq == NULL)
    {
      g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_SYNTAX,
                   "'%s' is not KEY=VALUE (no '=')", assignment);
      return FALSE;
    }
  key = g_strndup (assignment, (gsize) (eq - assignment));
  stripped = g_strstrip (g_strdup (key));
  if (stripped[0] == '\0')
    {
      g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_SYNTAX,
                   "'%s' is not KEY=VALUE (no key before '=')", assignment);
      return FALSE;
    }
  ffm_param_values_set (values, stripped, eq + 1);
  return TRUE;
}

const char *
ffm_param_values_lookup (const FfmParamValues *values, const char *key)
{
  g_return_val_if_fail (key != NULL, NULL);
  if (values == NULL)
    return NULL;
  return g_hash_table_lookup (values->values, key);
}

const char *const *
ffm_param_values_get_keys (const FfmParamValues *values)
{
  static const char *const none[] = { NULL };

  if (values == NULL)
    return none;
  return (const char *const *) values->keys->pdata;
}

/* ---- Declarations ---- */

const FfmParamSpec *
ffm_param_spec_find (const FfmParamSpec *specs, const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);
  for (; specs != NULL && specs->name != NULL; specs++)
    if (strcmp (specs->name, name) == 0)
      return specs;
  return NULL;
}

const char *
ffm_param_type_to_string (FfmParamType type)
{
  switch (type)
    {
    case FFM_PARAM_NUMBER: return "number";
    case FFM_PARAM_INTEGER: return "integer";
    case FFM_PARAM_STRING: return "string";
    case FFM_PARAM_BOOL: return "bool";
    }
  return "unknown";
}

void
ffm_param_specs_free (FfmParamSpec *specs)
{
  if (specs == NULL)
    return;
  for (FfmParamSpec *s = specs; s->name != NULL; s++)
    {
      g_free ((char *) s->name);
      g_free ((char *) s->default_value);
      g_free ((char *) s->help);
      g_strfreev ((char **) s->choices);
    }
  g_free (specs);
}

FfmParamSpec *
ffm_param_specs_copy (const FfmParamSpec *specs)
{
  guint n = 0;
  FfmParamSpec *copy;

  g_return_val_if_fail (specs != NULL, NULL);

  while (specs[n].name != NULL)
    n++;
  copy = g_new0 (FfmParamSpec, n + 1);
  for (guint i = 0; i < n; i++)
    {
      copy[i] = specs[i];
      copy[i].name = g_strdup (specs[i].name);
      copy[i].default_value = g_strdup (specs[i].default_value);
      copy[i].help = g_strdup (specs[i].help);
      copy[i].choices = (const char *const *) g_strdupv ((char **) specs[i].choices);
    }
  return copy;
}

/* Edit distance, for "did you mean" in messages about unknown names. */
static guint
edit_distance (const char *a, const char *b)
{
  gsize n = strlen (b);
  g_autofree guint *row = g_new (guint, n + 1);

  for (gsize j = 0; j <= n; j++)
    row[j] = (guint) j;
  for (gsize i = 1; a[i - 1] != '\0'; i++)
    {
      guint diagonal = row[0];
      row[0] = (guint) i;
      for (gsize j = 1; j <= n; j++)
        {
          guint above = row[j];
          guint best = MIN (row[j], row[j - 1]) + 1;
          best = MIN (best, diagonal + (a[i - 1] != b[j - 1]));
          row[j] = best;
          diagonal = above;
        }
    }
  return row[n];
}

static void
set_unknown_error (GError **error, const FfmParamSpec *specs, const char *owner,
                   const char *name)
{
  g_autoptr (GString) known = g_string_new (NULL);
  const char *closest = NULL;
  guint closest_distance = G_MAXUINT;

  for (const FfmParamSpec *s = specs; s != NULL && s->name != NULL; s++)
    {
      guint d = edit_distance (name, s->name);
      g_string_append_printf (known, "%s%s", known->len ? ", " : "", s->name);
      if (d < closest_distance)
        closest = s->name, closest_distance = d;
    }
  if (known->len == 0)
    g_string_assign (known, "it declares no parameters");
  else
    g_string_prepend (known, "known: ");
  /* Suggest only near misses: at most a third of the name changed. */
  if (closest != NULL && closest_distance * 3 <= MAX (strlen (name), 3))
    g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_UNKNOWN,
                 "%s: unknown parameter '%s' (did you mean '%s'? %s)",
                 owner, name, closest, known->str);
  else
    g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_UNKNOWN,
                 "%s: unknown parameter '%s' (%s)", owner, name, known->str);
}

/* Reads a number: plain numbers, `inf`, and constant expressions
 * ("64*1024", "2**20") so that sizes can be given the way people think.
 * The expression parser reads every value, so that --param takes what a
 * file takes ("0x10" and "1e400" are errors in both). @why gets the
 * parser's reason (transfer full). */
static gboolean
parse_number_text (const char *text, double *out, char **why)
{
  g_autofree char *stripped = g_strstrip (g_strdup (text));
  g_autoptr (FfmExpr) expr = NULL;
  g_autoptr (GError) error = NULL;

  if (stripped[0] == '\0')
    return FALSE;
  expr = ffm_expr_parse (stripped, &error);
  if (expr != NULL && ffm_expr_evaluate_number (expr, NULL, out, &error))
    return TRUE;
  /* "unknown name 'big'" adds nothing to "got 'big'"; "unexpected 'x'
   * after a number" does. */
  if (error != NULL && !g_error_matches (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_UNKNOWN_NAME))
    *why = g_strdup (error->message);
  return FALSE;
}

static gboolean
parse_bool_text (const char *text, gboolean *out)
{
  static const char *const yes[] = { "true", "1", "yes", "on", NULL };
  static const char *const no[] = { "false", "0", "no", "off", NULL };
  g_autofree char *lower = g_ascii_strdown (text, -1);

  g_strstrip (lower);
  if (g_strv_contains (yes, lower))
    *out = TRUE;
  else if (g_strv_contains (no, lower))
    *out = FALSE;
  else
    return FALSE;
  return TRUE;
}

/* A range is set unless min and max are both 0; max < min or an infinite
 * max means no upper bound (so "at least 1" is min 1 and max 0 or inf). */
static gboolean
check_range (const FfmParamSpec *spec, const char *owner, const char *text,
             double x, GError **error)
{
  gboolean has_range = spec->min != 0 || spec->max != 0;
  gboolean has_max = has_range && spec->max >= spec->min && spec->max < INFINITY;

  if (!has_range || (x >= spec->min && (!has_max || x <= spec->max)))
    return TRUE;
  if (has_max)
    g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                 "%s: parameter %s: %s is out of range [%.15g, %.15g]",
                 owner, spec->name, text, spec->min, spec->max);
  else
    g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                 "%s: parameter %s: %s is below the minimum %.15g",
                 owner, spec->name, text, spec->min);
  return FALSE;
}

/* Parsed form of one value, whatever the type. */
typedef struct {
  double number;
  gboolean boolean;
  const char *string;
} Parsed;

static gboolean
parse_value (const FfmParamSpec *spec, const char *owner, const char *text,
             Parsed *out, GError **error)
{
  switch (spec->type)
    {
    case FFM_PARAM_NUMBER:
    case FFM_PARAM_INTEGER:
      {
        g_autofree char *why = NULL;
        if (!parse_number_text (text, &out->number, &why))
          {
            g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                         "%s: parameter %s: expected %s, got '%s'%s%s", owner, spec->name,
                         spec->type == FFM_PARAM_NUMBER ? "a number" : "an integer",
                         text, why != NULL ? ": " : "", why != NULL ? why : "");
            return FALSE;
          }
      }
      if (spec->type == FFM_PARAM_INTEGER && fabs (out->number) > FFM_MAX_EXACT_INTEGER)
        {
          g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                       "%s: parameter %s: '%s' is beyond 2^53 = %.0f, the largest "
                       "integer ffm reads exactly", owner, spec->name, text,
                       FFM_MAX_EXACT_INTEGER);
          return FALSE;
        }
      if (spec->type == FFM_PARAM_INTEGER && out->number != floor (out->number))
        {
          g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                       "%s: parameter %s: expected an integer, got '%s'",
                       owner, spec->name, text);
          return FALSE;
        }
      return check_range (spec, owner, text, out->number, error);
    case FFM_PARAM_BOOL:
      if (!parse_bool_text (text, &out->boolean))
        {
          g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                       "%s: parameter %s: expected true or false, got '%s'",
                       owner, spec->name, text);
          return FALSE;
        }
      return TRUE;
    case FFM_PARAM_STRING:
      if (spec->choices != NULL && !g_strv_contains (spec->choices, text))
        {
          g_autofree char *options = g_strjoinv (", ", (char **) spec->choices);
          g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                       "%s: parameter %s: expected one of %s, got '%s'",
                       owner, spec->name, options, text);
          return FALSE;
        }
      out->string = text;
      return TRUE;
    }
  g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
               "%s: parameter %s: declared with an unknown type %d",
               owner, spec->name, (int) spec->type);
  return FALSE;
}

gboolean
ffm_param_values_validate (const FfmParamValues *values,
                           const FfmParamSpec *specs, const char *owner,
                           GError **error)
{
  const char *const *keys = ffm_param_values_get_keys (values);

  for (guint i = 0; keys[i] != NULL; i++)
    {
      const FfmParamSpec *spec = ffm_param_spec_find (specs, keys[i]);
      Parsed parsed = { 0 };

      if (spec == NULL)
        {
          set_unknown_error (error, specs, owner, keys[i]);
          return FALSE;
        }
      if (!parse_value (spec, owner, ffm_param_values_lookup (values, keys[i]),
                        &parsed, error))
        return FALSE;
    }
  return TRUE;
}

/* The text for @name (user's or default) parsed for its declared type. */
static const FfmParamSpec *
get_parsed (const FfmParamValues *values, const FfmParamSpec *specs,
            const char *owner, const char *name, FfmParamType type,
            Parsed *out, GError **error)
{
  const FfmParamSpec *spec = ffm_param_spec_find (specs, name);
  const char *text;

  if (spec == NULL)
    {
      set_unknown_error (error, specs, owner, name);
      return NULL;
    }
  if (spec->type != type
      && !(type == FFM_PARAM_NUMBER && spec->type == FFM_PARAM_INTEGER))
    {
      g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                   "%s: parameter %s: is declared as %s, read as %s", owner, name,
                   ffm_param_type_to_string (spec->type),
                   ffm_param_type_to_string (type));
      return NULL;
    }
  text = ffm_param_values_lookup (values, name);
  if (text == NULL)
    text = spec->default_value;
  if (text == NULL)
    {
      g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_MISSING,
                   "%s: parameter %s is required (%s%s%s); set it with %s=VALUE",
                   owner, name, ffm_param_type_to_string (spec->type),
                   spec->help ? ": " : "", spec->help ? spec->help : "", name);
      return NULL;
    }
  if (!parse_value (spec, owner, text, out, error))
    return NULL;
  return spec;
}

gboolean
ffm_param_values_get_number (const FfmParamValues *values,
                             const FfmParamSpec *specs, const char *owner,
                             const char *name, double *out, GError **error)
{
  Parsed parsed = { 0 };

  g_return_val_if_fail (name != NULL && out != NULL, FALSE);
  if (get_parsed (values, specs, owner, name, FFM_PARAM_NUMBER, &parsed, error) == NULL)
    return FALSE;
  *out = parsed.number;
  return TRUE;
}

gboolean
ffm_param_values_get_integer (const FfmParamValues *values,
                              const FfmParamSpec *specs, const char *owner,
                              const char *name, gint64 *out, GError **error)
{
  Parsed parsed = { 0 };

  g_return_val_if_fail (name != NULL && out != NULL, FALSE);
  if (get_parsed (values, specs, owner, name, FFM_PARAM_INTEGER, &parsed, error) == NULL)
    return FALSE;
  *out = (gint64) parsed.number;
  return TRUE;
}

gboolean
ffm_param_values_get_bool (const FfmParamValues *values,
                           const FfmParamSpec *specs, const char *owner,
                           const char *name, gboolean *out, GError **error)
{
  Parsed parsed = { 0 };

  g_return_val_if_fail (name != NULL && out != NULL, FALSE);
  if (get_parsed (values, specs, owner, name, FFM_PARAM_BOOL, &parsed, error) == NULL)
    return FALSE;
  *out = parsed.boolean;
  return TRUE;
}

const char *
ffm_param_values_get_string (const FfmParamValues *values,
                             const FfmParamSpec *specs, const char *owner,
                             const char *name, GError **error)
{
  Parsed parsed = { 0 };

  g_return_val_if_fail (name != NULL, NULL);
  if (get_parsed (values, specs, owner, name, FFM_PARAM_STRING, &parsed, error) == NULL)
    return NULL;
  return parsed.string;
}

gboolean
ffm_param_values_read_all (const FfmParamValues *values,
                           const FfmParamSpec *specs,
                           const char *owner,
                           const gsize *offsets,
                           gpointer base,
                           GError **error)
{
  g_autoptr (FfmParamValues) empty = NULL;

  g_return_val_if_fail (specs != NULL && offsets != NULL && base != NULL, FALSE);

  if (values == NULL)
    values = empty = ffm_param_values_new ();
  if (!ffm_param_values_validate (values, specs, owner, error))
    return FALSE;
  for (guint i = 0; specs[i].name != NULL; i++)
    {
      gpointer field = G_STRUCT_MEMBER_P (base, offsets[i]);
      const char *name = specs[i].name;
      /* The getters look @name up from the declarations they are given:
       * from this one it is the first, so reading them all stays linear
       * in their number. */
      const FfmParamSpec *spec = &specs[i];
      gboolean ok = TRUE;

      switch (specs[i].type)
        {
        case FFM_PARAM_NUMBER:
          ok = ffm_param_values_get_number (values, spec, owner, name, field, error);
          break;
        case FFM_PARAM_INTEGER:
          ok = ffm_param_values_get_integer (values, spec, owner, name, field, error);
          break;
        case FFM_PARAM_BOOL:
          ok = ffm_param_values_get_bool (values, spec, owner, name, field, error);
          break;
        case FFM_PARAM_STRING:
          {
            const char *text = ffm_param_values_get_string (values, spec, owner,
                                                            name, error);
            ok = text != NULL;
            /* The string lives in @values or @specs; the empty set made
             * here would die with this function, so defaults come from
             * @specs in that case, which the caller keeps. */
            *(const char **) field = text;
            break;
          }
        }
      if (!ok)
        return FALSE;
    }
  return TRUE;
}
