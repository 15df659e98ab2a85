/* ffm-params-reader.c: the `parameters` and `let` members of architecture
 * and workload files, read one way for both (ffm-params-reader-private.h). */
#include "ffm-params-reader-private.h"

#include <ffm/ffm-json-writer.h>
#include <ffm/ffm-limits.h>

#include <math.h>
#include <stdarg.h>
#include <string.h>

struct _FfmParamsReader {
  FfmParamsReaderRules rules;
  GHashTable *values;                   /* name -> FfmValue* (owned) */
  GPtrArray *names;                     /* bound names in order (owned) */
  GHashTable *unset;                    /* parameters left without a value */
  GHashTable *declared;                 /* every parameter's name */
  GPtrArray *strings;                   /* storage of string values */
};

static gboolean fail (FfmParamsReader *r, GError **error, JsonNode *node,
                      const char *path, const char *format, ...) G_GNUC_PRINTF (5, 6);

/* Sets "FILE:LINE: PATH: message" in the file's error domain; FALSE. */
static gboolean
fail (FfmParamsReader *r, GError **error, JsonNode *node, const char *path,
      const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  ffm_json_set_error (error, r->rules.domain, r->rules.code, r->rules.doc, node,
                      path, "%s", message);
  return FALSE;
}

FfmParamsReader *
ffm_params_reader_new (const FfmParamsReaderRules *rules)
{
  FfmParamsReader *r = g_new0 (FfmParamsReader, 1);

  r->rules = *rules;
  r->values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  r->names = g_ptr_array_new_with_free_func (g_free);
  r->unset = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r->declared = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r->strings = g_ptr_array_new_with_free_func (g_free);
  return r;
}

void
ffm_params_reader_free (FfmParamsReader *r)
{
  if (r == NULL)
    return;
  g_hash_table_unref (r->values);
  g_ptr_array_unref (r->names);
  g_hash_table_unref (r->unset);
  g_hash_table_unref (r->declared);
  g_ptr_array_unref (r->strings);
  g_free (r);
}

static void
bind_value (FfmParamsReader *r, const char *name, const FfmValue *value)
{
  FfmValue *copy = g_new (FfmValue, 1);
  char *key = g_strdup (name);

  *copy = *value;
  if (copy->type == FFM_VALUE_STRING)
    {
      char *text = g_strdup (copy->string);
      g_ptr_array_add (r->strings, text);
      copy->string = text;
    }
  g_ptr_array_add (r->names, key);
  g_hash_table_replace (r->values, key, copy);
}

void
ffm_params_reader_define (FfmParamsReader *r, const char *name, const FfmValue *value)
{
  bind_value (r, name, value);
}

gboolean
ffm_params_reader_lookup (FfmParamsReader *r, const char *name, FfmValue *out)
{
  const FfmValue *value = g_hash_table_lookup (r->values, name);

  if (value == NULL)
    return FALSE;
  *out = *value;
  return TRUE;
}

gboolean
ffm_params_reader_is_unset (FfmParamsReader *r, const char *name)
{
  return g_hash_table_contains (r->unset, name);
}

const GPtrArray *
ffm_params_reader_get_names (FfmParamsReader *r)
{
  return r->names;
}

gboolean
ffm_params_value_keep (FfmValue *value, GPtrArray *strings)
{
  char *copy;

  if (value->type == FFM_VALUE_SET)
    return FALSE;
  if (value->type != FFM_VALUE_STRING)
    return TRUE;
  copy = g_strdup (value->string);
  g_ptr_array_add (strings, copy);
  value->string = copy;
  return TRUE;
}

char *
ffm_params_format_value (const FfmValue *v)
{
  switch (v->type)
    {
    case FFM_VALUE_NUMBER:
      if (v->number == floor (v->number) && fabs (v->number) <= FFM_MAX_EXACT_INTEGER)
        return g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) v->number);
      return g_strdup_printf ("%.15g", v->number);
    case FFM_VALUE_STRING:
      return g_strdup (v->string);
    case FFM_VALUE_SET:
      return g_strdup_printf ("set 0x%" G_GINT64_MODIFIER "x", v->set);
    }
  return g_strdup ("?");
}

static void
collect_name (const char *name, gpointer user_data)
{
  GPtrArray *names = user_data;

  for (guint i = 0; i < names->len; i++)
    if (strcmp (names->pdata[i], name) == 0)
      return;
  g_ptr_array_add (names, g_strdup (name));
}

char *
ffm_params_describe_names (const char *text, FfmExprResolveFunc resolve,
                           gpointer user_data)
{
  g_autoptr (FfmExpr) expr = ffm_expr_parse (text, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GString *s = g_string_new (NULL);

  if (expr == NULL)
    return g_string_free (s, FALSE);
  ffm_expr_foreach_identifier (expr, collect_name, names);
  for (guint i = 0; i < names->len; i++)
    {
      FfmValue v;
      g_autofree char *shown = NULL;

      if (!resolve (names->pdata[i], &v, user_data))
        continue;
      shown = ffm_params_format_value (&v);
      g_string_append_printf (s, "%s%s = %s%s%s", s->len ? ", " : "",
                              (char *) names->pdata[i],
                              v.type == FFM_VALUE_STRING ? "'" : "", shown,
                              v.type == FFM_VALUE_STRING ? "'" : "");
    }
  return g_string_free (s, FALSE);
}

/* ---- Declarations ---- */

static gboolean
is_name (const char *s, gboolean lower_only)
{
  if (s == NULL || !((lower_only ? g_ascii_islower (s[0]) : g_ascii_isalpha (s[0]))
                     || s[0] == '_'))
    return FALSE;
  for (const char *p = s + 1; *p; p++)
    if (!(lower_only ? g_ascii_islower (*p) || g_ascii_isdigit (*p)
                     : g_ascii_isalnum (*p)) && *p != '_')
      return FALSE;
  return TRUE;
}

static gboolean
node_holds (JsonNode *node, GType type)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node)
         && json_node_get_value_type (node) == type;
}

static gboolean
is_inf_text (JsonNode *node)
{
  return node_holds (node, G_TYPE_STRING) && strcmp (json_node_get_string (node), "inf") == 0;
}

/* The declared type, or the default's. */
static gboolean
param_type (FfmParamsReader *r, const char *name, JsonNode *node, JsonNode *def,
            const char *path, FfmParamType *type, GError **error)
{
  static const struct { const char *name; FfmParamType type; } types[] = {
    { "integer", FFM_PARAM_INTEGER }, { "number", FFM_PARAM_NUMBER },
    { "string", FFM_PARAM_STRING }, { "bool", FFM_PARAM_BOOL },
  };
  JsonNode *type_node = ffm_json_get_member (node, "type");
  g_autofree char *sub = g_strdup_printf ("%s.type", path);
  const char *text;

  if (type_node == NULL)
    {
      if (node_holds (def, G_TYPE_BOOLEAN))
        *type = FFM_PARAM_BOOL;
      else if (node_holds (def, G_TYPE_STRING))
        *type = is_inf_text (def) ? FFM_PARAM_NUMBER : FFM_PARAM_STRING;
      else if (node_holds (def, G_TYPE_INT64))
        *type = r->rules.whole_default_is_integer ? FFM_PARAM_INTEGER : FFM_PARAM_NUMBER;
      else if (node_holds (def, G_TYPE_DOUBLE))
        *type = FFM_PARAM_NUMBER;
      else
        return fail (r, error, node, path, "parameter %s needs a \"type\" (integer, "
                     "number, string or bool) or a \"default\" to infer it from", name);
      return TRUE;
    }
  text = ffm_json_require_string (r->rules.doc, type_node, sub, r->rules.domain,
                                  r->rules.code, error);
  if (text == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (strcmp (text, types[i].name) == 0)
      {
        *type = types[i].type;
        return TRUE;
      }
  return fail (r, error, type_node, sub, "unknown parameter type '%s' (expected "
               "integer, number, string or bool)", text);
}

/* A bound: a JSON number ("inf" too), or an expression over constants. */
static gboolean
read_bound (FfmParamsReader *r, JsonNode *node, const char *path, double *out,
            GError **error)
{
  FfmValue v;
  double ignored;

  if (!node_holds (node, G_TYPE_STRING) || ffm_json_node_get_double (node, &ignored))
    return ffm_json_require_number (r->rules.doc, node, path, r->rules.domain,
                                    r->rules.code, out, error);
  if (!r->rules.eval (r->rules.loader, node, path, &v, error))
    return FALSE;
  if (v.type != FFM_VALUE_NUMBER)
    return fail (r, error, node, path, "expected a number, got a string");
  *out = v.number;
  return TRUE;
}

/* min and max, encoded as FfmParamSpec says: both 0 without either, an
 * infinite max without a maximum (a plugin's declarations need min <= max). */
static gboolean
read_range (FfmParamsReader *r, JsonNode *node, const char *path,
            FfmParamSpec *spec, GError **error)
{
  JsonNode *min = ffm_json_get_member (node, "min");
  JsonNode *max = ffm_json_get_member (node, "max");
  g_autofree char *min_path = g_strdup_printf ("%s.min", path);
  g_autofree char *max_path = g_strdup_printf ("%s.max", path);

  if (min == NULL && max == NULL)
    return TRUE;
  if (spec->type != FFM_PARAM_INTEGER && spec->type != FFM_PARAM_NUMBER)
    return fail (r, error, min ? min : max, path, "\"min\" and \"max\" apply to "
                 "integer and number parameters only");
  spec->min = -INFINITY;
  spec->max = INFINITY;
  if (min != NULL && !read_bound (r, min, min_path, &spec->min, error))
    return FALSE;
  if (max != NULL && !read_bound (r, max, max_path, &spec->max, error))
    return FALSE;
  if (max != NULL && spec->max < spec->min)
    return fail (r, error, max, max_path, "max %g is below min %g", spec->max, spec->min);
  return TRUE;
}

static gboolean
read_choices (FfmParamsReader *r, JsonNode *choices, const char *path,
              FfmParamSpec *spec, GError **error)
{
  g_autofree char *sub = g_strdup_printf ("%s.choices", path);
  JsonArray *array;
  char **list;

  if (spec->type != FFM_PARAM_STRING)
    return fail (r, error, choices, sub, "\"choices\" applies to string parameters only");
  if (!ffm_json_require_array (r->rules.doc, choices, sub, r->rules.domain,
                               r->rules.code, error))
    return FALSE;
  array = json_node_get_array (choices);
  list = g_new0 (char *, json_array_get_length (array) + 1);
  spec->choices = (const char *const *) list;
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *item = g_strdup_printf ("%s[%u]", sub, i);
      const char *c = ffm_json_require_string (r->rules.doc,
                                               json_array_get_element (array, i),
                                               item, r->rules.domain, r->rules.code,
                                               error);
      if (c == NULL)
        return FALSE;
      list[i] = g_strdup (c);
    }
  return TRUE;
}

/* The default of a number or integer parameter: a JSON number, or "inf"
 * for a number; whole for an integer, within min and max. */
static char *
number_default (FfmParamsReader *r, JsonNode *def, const char *path,
                const FfmParamSpec *spec, GError **error)
{
  gboolean integer = spec->type == FFM_PARAM_INTEGER;
  gboolean has_range = spec->min != 0 || spec->max != 0;
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  double value;

  if (is_inf_text (def) && !integer)
    value = INFINITY;
  else if (!node_holds (def, G_TYPE_INT64) && !node_holds (def, G_TYPE_DOUBLE))
    {
      fail (r, error, def, path, "expected a number%s as the default (the parameter "
            "is a%s %s)", integer ? "" : " or \"inf\"", integer ? "n" : "",
            ffm_param_type_to_string (spec->type));
      return NULL;
    }
  else if (!ffm_json_require_number (r->rules.doc, def, path, r->rules.domain,
                                     r->rules.code, &value, error))
    return NULL;
  if (integer && value != floor (value))
    {
      fail (r, error, def, path, "the default of an integer parameter must be a "
            "whole number, got %g", value);
      return NULL;
    }
  if (has_range && (value < spec->min || value > spec->max))
    {
      fail (r, error, def, path, "the default %g is outside [%g, %g]", value,
            spec->min, spec->max);
      return NULL;
    }
  if (node_holds (def, G_TYPE_INT64))   /* exact, beyond 2^53 too */
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (def));
  return integer ? g_strdup_printf ("%.0f", value)
                 : g_strdup (ffm_format_double (value, buffer));
}

/* The default as text of the parameter's type. */
static char *
default_text (FfmParamsReader *r, JsonNode *def, const char *path,
              const FfmParamSpec *spec, GError **error)
{
  switch (spec->type)
    {
    case FFM_PARAM_INTEGER:
    case FFM_PARAM_NUMBER:
      return number_default (r, def, path, spec, error);
    case FFM_PARAM_BOOL:
      if (node_holds (def, G_TYPE_BOOLEAN))
        return g_strdup (json_node_get_boolean (def) ? "true" : "false");
      fail (r, error, def, path, "expected true or false (the parameter is a bool)");
      return NULL;
    case FFM_PARAM_STRING:
      if (!node_holds (def, G_TYPE_STRING))
        {
          fail (r, error, def, path, "expected a string (the parameter is a string)");
          return NULL;
        }
      if (spec->choices != NULL
          && !g_strv_contains (spec->choices, json_node_get_string (def)))
        {
          fail (r, error, def, path, "the default \"%s\" is not one of the choices",
                json_node_get_string (def));
          return NULL;
        }
      return g_strdup (json_node_get_string (def));
    }
  return NULL;
}

static gboolean
read_spec (FfmParamsReader *r, const char *name, JsonNode *node, const char *path,
           FfmParamSpec *spec, GError **error)
{
  static const char *const allowed[] = {
    "type", "default", "help", "min", "max", "choices", "required_when", NULL
  };
  JsonNode *def, *help, *choices;
  g_autofree char *sub = NULL;

  if (!is_name (name, TRUE))
    return fail (r, error, node, path, "parameter name '%s' must match [a-z_][a-z0-9_]*",
                 name);
  if (!ffm_json_require_object (r->rules.doc, node, path, r->rules.domain,
                                r->rules.code, error)
      || !ffm_json_check_members (r->rules.doc, node, path, allowed, r->rules.domain,
                                  r->rules.code, error))
    return FALSE;
  spec->name = g_strdup (name);
  def = ffm_json_get_member (node, "default");
  sub = g_strdup_printf ("%s.default", path);
  if (def == NULL && r->rules.default_required)
    return fail (r, error, NULL, sub, "missing (every parameter needs a default)");
  if (!param_type (r, name, node, def, path, &spec->type, error))
    return FALSE;
  if ((help = ffm_json_get_member (node, "help")) != NULL)
    {
      g_autofree char *help_path = g_strdup_printf ("%s.help", path);
      const char *text = ffm_json_require_string (r->rules.doc, help, help_path,
                                                  r->rules.domain, r->rules.code, error);
      if (text == NULL)
        return FALSE;
      spec->help = g_strdup (text);
    }
  if (!read_range (r, node, path, spec, error))
    return FALSE;
  if ((choices = ffm_json_get_member (node, "choices")) != NULL
      && !read_choices (r, choices, path, spec, error))
    return FALSE;
  if (def != NULL
      && (spec->default_value = default_text (r, def, sub, spec, error)) == NULL)
    return FALSE;
  return TRUE;
}

FfmParamSpec *
ffm_params_reader_read_specs (FfmParamsReader *r, JsonNode *root, GError **error)
{
  JsonNode *params = ffm_json_get_member (root, "parameters");
  FfmParamSpec *specs;
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;
  guint n = 0;

  if (params != NULL)
    {
      if (!ffm_json_require_object (r->rules.doc, params, "$.parameters",
                                    r->rules.domain, r->rules.code, error))
        return NULL;
      n = json_object_get_size (json_node_get_object (params));
    }
  /* Sized by the file's count; each declaration costs the file more. */
  specs = g_new0 (FfmParamSpec, n + 1);
  if (params == NULL)
    return specs;
  json_object_iter_init_ordered (&iter, json_node_get_object (params));
  for (guint i = 0; json_object_iter_next_ordered (&iter, &name, &node); i++)
    {
      g_autofree char *path = g_strdup_printf ("$.parameters.%s", name);
      if (!read_spec (r, name, node, path, &specs[i], error))
        {
          ffm_param_specs_free (specs);
          return NULL;
        }
    }
  return specs;
}

/* ---- Values ---- */

static gboolean
value_error (FfmParamsReader *r, GError **error, GError *local)
{
  if (r->rules.value_errors_name_file)
    g_propagate_prefixed_error (error, local, "%s: ", ffm_json_doc_get_name (r->rules.doc));
  else
    g_propagate_error (error, local);
  return FALSE;
}

/* The value of @spec in @values (or its default). */
static gboolean
get_value (FfmParamsReader *r, const FfmParamValues *values, const FfmParamSpec *spec,
           FfmValue *out, GError **error)
{
  GError *local = NULL;
  gint64 integer = 0;
  gboolean flag = FALSE;
  gboolean ok = TRUE;

  memset (out, 0, sizeof *out);
  out->type = FFM_VALUE_NUMBER;
  /* Given @spec, the getters find the name first: linear in the number of
   * parameters, not quadratic (a file may declare 100000). */
  switch (spec->type)
    {
    case FFM_PARAM_NUMBER:
      ok = ffm_param_values_get_number (values, spec, r->rules.owner, spec->name,
                                        &out->number, &local);
      break;
    case FFM_PARAM_INTEGER:
      ok = ffm_param_values_get_integer (values, spec, r->rules.owner, spec->name,
                                         &integer, &local);
      out->number = (double) integer;
      break;
    case FFM_PARAM_BOOL:
      ok = ffm_param_values_get_bool (values, spec, r->rules.owner, spec->name, &flag,
                                      &local);
      out->number = flag ? 1 : 0;
      break;
    case FFM_PARAM_STRING:
      out->type = FFM_VALUE_STRING;
      out->string = ffm_param_values_get_string (values, spec, r->rules.owner,
                                                 spec->name, &local);
      ok = out->string != NULL;
      break;
    }
  return ok || value_error (r, error, local);
}

static gboolean
lookup_resolve (const char *name, FfmValue *out, gpointer user_data)
{
  return ffm_params_reader_lookup (user_data, name, out);
}

/* A parameter whose `required_when` holds must have been given. */
static gboolean
check_required_when (FfmParamsReader *r, const FfmParamSpec *spec, JsonNode *cond,
                     const FfmParamValues *values, GError **error)
{
  g_autofree char *path = g_strdup_printf ("$.parameters.%s.required_when", spec->name);
  const char *text = node_holds (cond, G_TYPE_STRING) ? json_node_get_string (cond) : "true";
  g_autofree char *shown = NULL;
  g_autofree char *where = NULL;
  FfmValue v;

  if (!r->rules.eval (r->rules.loader, cond, path, &v, error))
    return FALSE;
  if (v.type != FFM_VALUE_NUMBER)
    return fail (r, error, cond, path, "expected a condition (a number), got a string");
  if (v.number == 0 || ffm_param_values_lookup (values, spec->name) != NULL)
    return TRUE;
  shown = ffm_params_describe_names (text, lookup_resolve, r);
  where = ffm_json_where (r->rules.doc, cond, path);
  g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_MISSING,
               "%s: %s: parameter %s is required when %s%s%s%s; set it with "
               "--param %s=VALUE", where, r->rules.owner, spec->name, text,
               shown[0] ? " (" : "", shown, shown[0] ? ")" : "", spec->name);
  return FALSE;
}

gboolean
ffm_params_reader_bind (FfmParamsReader *r, const FfmParamSpec *specs, JsonNode *root,
                        const FfmParamValues *given, GError **error)
{
  g_autoptr (FfmParamValues) empty = given ? NULL : ffm_param_values_new ();
  const FfmParamValues *values = given ? given : empty;
  JsonNode *params = ffm_json_get_member (root, "parameters");
  GError *local = NULL;

  if (!ffm_param_values_validate (values, specs, r->rules.owner, &local))
    return value_error (r, error, local);
  for (const FfmParamSpec *s = specs; s->name != NULL; s++)
    {
      gboolean conditional = ffm_json_get_member (ffm_json_get_member (params, s->name),
                                                  "required_when") != NULL;
      FfmValue value;

      g_hash_table_add (r->declared, g_strdup (s->name));
      if (conditional && s->default_value == NULL
          && ffm_param_values_lookup (values, s->name) == NULL)
        {
          g_hash_table_add (r->unset, g_strdup (s->name));
          continue;
        }
      if (!get_value (r, values, s, &value, error))
        return FALSE;
      bind_value (r, s->name, &value);
    }
  /* required_when: over the parameters, now that all are known. */
  for (const FfmParamSpec *s = specs; s->name != NULL; s++)
    {
      JsonNode *cond = ffm_json_get_member (ffm_json_get_member (params, s->name),
                                            "required_when");
      if (cond != NULL && !check_required_when (r, s, cond, values, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
ffm_params_reader_read_lets (FfmParamsReader *r, JsonNode *root, GError **error)
{
  JsonNode *lets = ffm_json_get_member (root, "let");
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  if (lets == NULL)
    return TRUE;
  if (!ffm_json_require_object (r->rules.doc, lets, "$.let", r->rules.domain,
                                r->rules.code, error))
    return FALSE;
  json_object_iter_init_ordered (&iter, json_node_get_object (lets));
  while (json_object_iter_next_ordered (&iter, &name, &node))
    {
      g_autofree char *path = g_strdup_printf ("$.let.%s", name);
      FfmValue value;

      if (!is_name (name, FALSE))
        return fail (r, error, node, path, "name '%s' must match [A-Za-z_][A-Za-z0-9_]*",
                     name);
      if (g_hash_table_contains (r->declared, name))
        return fail (r, error, node, path, "'%s' is already a parameter", name);
      if (g_hash_table_contains (r->values, name))
        return fail (r, error, node, path, "'%s' is defined twice", name);
      if (!r->rules.eval (r->rules.loader, node, path, &value, error))
        return FALSE;
      bind_value (r, name, &value);
    }
  return TRUE;
}
