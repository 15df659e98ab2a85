/* ffm-workload-loader-scope.c: messages, the scope (parameters, let,
 * repeat variables), expressions, {expr} substitution, small member
 * checks, and freeing the loader's records
 * (ffm-workload-loader-private.h). */
#include "ffm-workload-loader-private.h"

/* ---- The loader's records ---- */

void
loader_raw_access_clear (RawAccess *a)
{
  g_free (a->tensor);
  for (guint r = 0; r < a->n_entries; r++)
    {
      g_free (a->entries[r].rank);
      for (guint t = 0; t < a->entries[r].n_terms; t++)
        g_free (a->entries[r].vars[t]);
    }
}

void
loader_raw_einsum_free (gpointer data)
{
  RawEinsum *e = data;

  g_free (e->name);
  g_free (e->text);
  g_free (e->when);
  for (guint i = 0; i < e->n_inputs; i++)
    loader_raw_access_clear (&e->inputs[i]);
  loader_raw_access_clear (&e->output);
  for (guint r = 0; r < 3; r++)
    {
      g_free (e->roles[r]);
      g_free (e->role_paths[r]);
    }
  if (e->bounds != NULL)
    {
      for (guint b = 0; b < e->bounds->len; b++)
        g_free (g_array_index (e->bounds, RawBound, b).var);
      g_array_unref (e->bounds);
    }
  g_free (e->path);
  g_free (e);
}

void
loader_tensor_decl_free (gpointer data)
{
  TensorDecl *d = data;

  g_strfreev (d->ranks);
  g_free (d->path);
  g_free (d);
}

void
loader_rank_decl_free (gpointer data)
{
  RankDecl *d = data;

  g_free (d->path);
  g_free (d);
}

/* ---- Messages ---- */

gboolean
loader_fail (Loader *L, JsonNode *node, const char *path, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  ffm_json_set_error (L->error, INVALID, L->doc, node, path, "%s", message);
  return FALSE;
}

/* "i = 2, l.c = 64" for the repeat variables in scope, "" if none. */
static char *
frames_description (Loader *L)
{
  GString *s = g_string_new (NULL);

  for (Frame *f = L->frame; f != NULL; f = f->outer)
    {
      if (s->len)
        g_string_append (s, ", ");
      if (f->record != NULL)
        g_string_append_printf (s, "%s = values[%.15g]", f->var, f->index);
      else if (f->value.type == FFM_VALUE_STRING)
        g_string_append_printf (s, "%s = '%s'", f->var, f->value.string);
      else
        g_string_append_printf (s, "%s = %.15g", f->var, f->value.number);
      if (f->index_var != NULL)
        g_string_append_printf (s, ", %s = %.15g", f->index_var, f->index);
    }
  return g_string_free (s, FALSE);
}

char *
loader_path_in_frames (Loader *L, const char *path)
{
  g_autofree char *frames = frames_description (L);

  if (frames[0] == '\0')
    return g_strdup (path);
  return g_strdup_printf ("%s (%s)", path, frames);
}

/* ---- Scope: parameters, lets, repeat variables ---- */

static gboolean
frame_resolve (Frame *f, const char *name, FfmValue *out)
{
  gsize n = strlen (f->var);

  if (f->index_var != NULL && strcmp (name, f->index_var) == 0)
    {
      memset (out, 0, sizeof *out);
      out->type = FFM_VALUE_NUMBER;
      out->number = f->index;
      return TRUE;
    }
  if (f->record == NULL && strcmp (name, f->var) == 0)
    {
      *out = f->value;
      return TRUE;
    }
  if (f->record != NULL && strncmp (name, f->var, n) == 0 && name[n] == '.')
    {
      JsonNode *field;
      const char *key = name + n + 1;

      if (!json_object_has_member (f->record, key))
        return FALSE;
      field = json_object_get_member (f->record, key);
      if (!JSON_NODE_HOLDS_VALUE (field))
        return FALSE;
      memset (out, 0, sizeof *out);
      switch (json_node_get_value_type (field))
        {
        case G_TYPE_STRING:
          out->type = FFM_VALUE_STRING;
          out->string = json_node_get_string (field);
          return TRUE;
        case G_TYPE_BOOLEAN:
          out->type = FFM_VALUE_NUMBER;
          out->number = json_node_get_boolean (field) ? 1 : 0;
          return TRUE;
        case G_TYPE_INT64:
          out->type = FFM_VALUE_NUMBER;
          out->number = (double) json_node_get_int (field);
          return TRUE;
        case G_TYPE_DOUBLE:
          out->type = FFM_VALUE_NUMBER;
          out->number = json_node_get_double (field);
          return TRUE;
        default:
          return FALSE;
        }
    }
  return FALSE;
}

static gboolean
loader_resolve (const char *name, FfmValue *out, gpointer user_data)
{
  Loader *L = user_data;

  for (Frame *f = L->frame; f != NULL; f = f->outer)
    if (frame_resolve (f, name, out))
      return TRUE;
  if (ffm_params_reader_lookup (L->params, name, out))
    return TRUE;
  g_free (L->last_unknown);
  L->last_unknown = g_strdup (name);
  return FALSE;
}

gboolean
loader_fail_expr (Loader *L, JsonNode *node, const char *path, GError *expr_error)
{
  g_autofree char *where = loader_path_in_frames (L, path);
  const char *hint = "";
  g_autofree char *hint_text = NULL;

  if (expr_error->code == FFM_EXPR_ERROR_UNKNOWN_NAME && L->last_unknown != NULL
      && ffm_params_reader_is_unset (L->params, L->last_unknown))
    {
      hint_text = g_strdup_printf (" (parameter %s has no value: set it with "
                                   "--param %s=VALUE)",
                                   L->last_unknown, L->last_unknown);
      hint = hint_text;
    }
  ffm_json_set_error (L->error, INVALID, L->doc, node, where, "%s%s",
                      expr_error->message, hint);
  g_error_free (expr_error);
  return FALSE;
}

static gboolean
eval_text (Loader *L, const char *text, JsonNode *node, const char *path,
           FfmValue *out)
{
  FfmExprScope scope = { loader_resolve, L, 0 };
  GError *local = NULL;
  g_autoptr (FfmExpr) expr = ffm_expr_parse (text, &local);

  if (expr == NULL || !ffm_expr_evaluate (expr, &scope, out, &local))
    return loader_fail_expr (L, node, path, local);
  return ffm_params_value_keep (out, L->strings)
         || loader_fail (L, node, path, "expected a number or a string, got a tensor set "
                         "from \"%s\"", text);
}

/* A JSON number, boolean, or expression string. */
static gboolean
eval_node (Loader *L, JsonNode *node, const char *path, FfmValue *out)
{
  memset (out, 0, sizeof *out);
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node))
    switch (json_node_get_value_type (node))
      {
      case G_TYPE_INT64:
        out->type = FFM_VALUE_NUMBER;
        out->number = (double) json_node_get_int (node);
        return TRUE;
      case G_TYPE_DOUBLE:
        out->type = FFM_VALUE_NUMBER;
        out->number = json_node_get_double (node);
        return TRUE;
      case G_TYPE_BOOLEAN:
        out->type = FFM_VALUE_NUMBER;
        out->number = json_node_get_boolean (node) ? 1 : 0;
        return TRUE;
      case G_TYPE_STRING:
        return eval_text (L, json_node_get_string (node), node, path, out);
      default:
        break;
      }
  g_free (ffm_json_require_number_or_expr (L->doc, node, path, INVALID, L->error));
  if (L->error != NULL && *L->error == NULL)
    loader_fail (L, node, path, "expected a number, a boolean or an expression string");
  return FALSE;
}

char *
loader_describe_names (Loader *L, const char *text)
{
  return ffm_params_describe_names (text, loader_resolve, L);
}

gboolean
loader_eval_bool (Loader *L, JsonNode *node, const char *path, gboolean *out)
{
  FfmValue v;

  if (!eval_node (L, node, path, &v))
    return FALSE;
  if (v.type != FFM_VALUE_NUMBER)
    return loader_fail (L, node, path, "expected a condition (a number), got a string");
  *out = v.number != 0;
  return TRUE;
}

gboolean
loader_eval_integer (Loader *L, JsonNode *node, const char *path, const char *what,
                     gint64 min, gint64 *out)
{
  FfmValue v;
  const char *text = JSON_NODE_HOLDS_VALUE (node)
                     && json_node_get_value_type (node) == G_TYPE_STRING
                     ? json_node_get_string (node) : NULL;
  g_autofree char *where = loader_path_in_frames (L, path);
  g_autofree char *values = text ? loader_describe_names (L, text) : g_strdup ("");

  if (!eval_node (L, node, path, &v))
    return FALSE;
  if (v.type != FFM_VALUE_NUMBER)
    return loader_fail (L, node, where, "%s: expected an integer, got the string '%s'",
                        what, v.string);
  if (v.number != floor (v.number) || fabs (v.number) > FFM_MAX_EXACT_INTEGER)
    return loader_fail (L, node, where, "%s: expected an integer, got %.15g%s%s%s%s%s", what,
                        v.number, text ? " from \"" : "", text ? text : "", text ? "\"" : "",
                        values[0] ? " with " : "", values);
  if (v.number < (double) min)
    return loader_fail (L, node, where, "%s is %.15g (must be at least %" G_GINT64_FORMAT
                        ")%s%s%s%s%s", what, v.number, min, text ? " from \"" : "",
                        text ? text : "", text ? "\"" : "", values[0] ? " with " : "", values);
  *out = (gint64) v.number;
  return TRUE;
}

/* Evaluates the inside of one {expr} of @text. */
static gboolean
eval_substitution (Loader *L, const char *inner, const char *text, JsonNode *node,
                   const char *path, FfmValue *out)
{
  FfmExprScope scope = { loader_resolve, L, 0 };
  GError *local = NULL;
  g_autoptr (FfmExpr) expr = ffm_expr_parse (inner, &local);
  g_autofree char *where = loader_path_in_frames (L, path);

  if (expr == NULL || !ffm_expr_evaluate (expr, &scope, out, &local))
    {
      ffm_json_set_error (L->error, INVALID, L->doc, node, where, "in {%s} of \"%s\": %s",
                          inner, text, local->message);
      g_error_free (local);
      return FALSE;
    }
  if (out->type == FFM_VALUE_SET)
    return loader_fail (L, node, where, "in {%s} of \"%s\": a tensor set cannot be "
                        "substituted", inner, text);
  /* A name holds digits, not "1e+300" or "nan". */
  if (out->type == FFM_VALUE_NUMBER
      && !(out->number == floor (out->number) && fabs (out->number) <= FFM_MAX_EXACT_INTEGER))
    return loader_fail (L, node, where, "in {%s} of \"%s\": the value %g is not a whole "
                        "number of magnitude at most 2^53 (what a name can hold)",
                        inner, text, out->number);
  return ffm_params_value_keep (out, L->strings);   /* the expression dies here */
}

char *
loader_substitute (Loader *L, const char *text, JsonNode *node, const char *path)
{
  g_autoptr (GString) out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}'))
        {
          g_string_append_c (out, *p);
          p++;
          continue;
        }
      if (*p == '}')
        {
          loader_fail (L, node, path,
                       "unmatched '}' at character %d of \"%s\" (write }} for a brace)",
                       (int) (p - text) + 1, text);
          return NULL;
        }
      if (*p == '{')
        {
          const char *end = strchr (p, '}');
          g_autofree char *inner = NULL;
          g_autofree char *shown = NULL;
          FfmValue v;

          if (end == NULL)
            {
              loader_fail (L, node, path, "unmatched '{' at character %d of \"%s\"",
                           (int) (p - text) + 1, text);
              return NULL;
            }
          inner = g_strndup (p + 1, (gsize) (end - p - 1));
          if (!eval_substitution (L, inner, text, node, path, &v))
            return NULL;
          shown = ffm_params_format_value (&v);
          g_string_append (out, shown);
          p = end;
          continue;
        }
      g_string_append_c (out, *p);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* ---- Small checks ---- */

gboolean
loader_is_identifier (const char *s, gboolean lower_first)
{
  if (s == NULL || !(lower_first ? (g_ascii_islower (s[0]) || s[0] == '_')
                                 : (g_ascii_isalpha (s[0]) || s[0] == '_')))
    return FALSE;
  for (const char *p = s + 1; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

gboolean
loader_check_object (Loader *L, JsonNode *node, const char *path,
                     const char *const *allowed)
{
  g_autofree char *where = loader_path_in_frames (L, path);

  return ffm_json_require_object (L->doc, node, where, INVALID, L->error)
         && ffm_json_check_members (L->doc, node, where, allowed, INVALID, L->error);
}

const char *
loader_require_string (Loader *L, JsonNode *node, const char *path)
{
  g_autofree char *where = loader_path_in_frames (L, path);

  return ffm_json_require_string (L->doc, node, where, INVALID, L->error);
}

/* ---- Parameters and let (ffm-params-reader.c) ---- */

/* The reader's expressions: a JSON number, boolean or expression string. */
static gboolean
eval_for_reader (gpointer loader, JsonNode *node, const char *path, FfmValue *out,
                 GError **error)
{
  Loader *L = loader;
  GError **saved = L->error;
  gboolean ok;

  L->error = error;
  ok = eval_node (L, node, path, out);
  L->error = saved;
  return ok;
}

gboolean
loader_read_parameters_and_lets (Loader *L, JsonNode *root)
{
  FfmParamsReaderRules rules = {
    .doc = L->doc, .domain = FFM_WORKLOAD_ERROR, .code = FFM_WORKLOAD_ERROR_INVALID,
    .owner = L->owner, .whole_default_is_integer = TRUE, .default_required = FALSE,
    .value_errors_name_file = TRUE, .eval = eval_for_reader, .loader = L,
  };

  L->params = ffm_params_reader_new (&rules);
  ffm_param_specs_free (L->w->param_specs);
  L->w->param_specs = ffm_params_reader_read_specs (L->params, root, L->error);
  if (L->w->param_specs == NULL
      || !ffm_params_reader_bind (L->params, L->w->param_specs, root, L->user, L->error))
    return FALSE;
  for (const FfmParamSpec *s = L->w->param_specs; s->name != NULL; s++)
    {
      FfmValue v;
      g_autofree char *shown = NULL;

      if (!ffm_params_reader_lookup (L->params, s->name, &v))
        continue;
      shown = v.type == FFM_VALUE_STRING ? g_strdup (v.string)
              : s->type == FFM_PARAM_BOOL ? g_strdup (v.number ? "true" : "false")
              : ffm_params_format_value (&v);
      ffm_param_values_set (L->w->param_values, s->name, shown);
    }
  return ffm_params_reader_read_lets (L->params, root, L->error);
}
