/* ffm-workload-loader.c: reads a workload JSON file (format in
 * docs/file-formats.md, "Workloads") into an FfmWorkload.
 *
 * Loading runs in two phases. Expansion walks the file in order: parameters,
 * `let`, checks, rank sizes, then the Einsum list, unrolling repeat blocks
 * and substituting `{expr}`; it produces raw Einsums (parsed strings, names,
 * evaluated bounds) while the parameter scope is alive. Building then turns
 * the raw Einsums kept by `when` into the resolved model: tensors and their
 * rank lists, rank-variable bounds (the bounding box of accelforge's workload files),
 * footprints, producers and readers, classes, roles, persistence and bits.
 * Every error goes through ffm_json_set_error(), so it names the file, the
 * line of the offending value and its JSON path. */
#include "ffm-workload-private.h"
#include "ffm-json-util.h"
#include "ffm-params-reader-private.h"
#include <ffm/ffm-limits.h>

#include <math.h>
#include <string.h>

/* Limits that keep hostile files from exhausting memory: real workloads
 * have at most a few hundred Einsums (DenseNet-201: 201). */
#define MAX_EINSUMS 100000
#define MAX_REPEAT_DEPTH 16
#define MAX_BITS 65536

#define INVALID FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_INVALID

/* ---- Raw Einsums (phase 1) ---- */

typedef struct {
  char *rank;                           /* NULL: bare affine, name from elsewhere */
  guint n_terms;
  char *vars[FFM_MAX_AFFINE_TERMS];
  gint64 coefs[FFM_MAX_AFFINE_TERMS];
  gint64 offset;
} RawEntry;

typedef struct {
  char *tensor;
  guint n_entries;
  RawEntry entries[FFM_MAX_TENSOR_RANKS];
} RawAccess;

typedef struct {
  char *var;
  gint64 bound;
} RawBound;

typedef struct {
  char *name;
  char *text;
  char *when;                           /* the "when" text, when left out */
  gboolean copy;
  gboolean included;
  guint n_inputs;
  RawAccess inputs[FFM_MAX_EINSUM_TENSORS];
  RawAccess output;
  char *roles[3];                       /* input, weight, output; NULL = default */
  JsonNode *role_nodes[3];
  char *role_paths[3];
  GArray *bounds;                       /* of RawBound */
  JsonNode *node;                       /* for messages */
  char *path;                           /* JSON path + repeat variables */
} RawEinsum;

typedef struct {
  char **ranks;                         /* NULL if not declared */
  gboolean has_bits;
  gint64 bits;
  gboolean has_persistent;
  gboolean persistent;
  JsonNode *node;
  char *path;
} TensorDecl;

typedef struct {
  gint64 size;
  JsonNode *node;
  char *path;
} RankDecl;

/* One repeat variable in scope. */
typedef struct _Frame Frame;
struct _Frame {
  const char *var;
  FfmValue value;                       /* scalar values */
  JsonObject *record;                   /* object values (fields var.name) */
  const char *index_var;                /* NULL if none */
  double index;
  Frame *outer;
};

typedef struct {
  FfmJsonDoc *doc;
  FfmWorkload *w;
  char *owner;                          /* "workload NAME" */
  const FfmParamValues *user;
  FfmParamsReader *params;              /* parameters and lets */
  GPtrArray *strings;                   /* storage for string values */
  char *last_unknown;                   /* last identifier the scope missed */
  Frame *frame;
  int repeat_depth;
  GHashTable *rank_decls;               /* name -> RankDecl* */
  GHashTable *tensor_decls;             /* name -> TensorDecl* */
  GPtrArray *raw;                       /* RawEinsum* */
  GHashTable *seen_tensors;             /* every tensor name, kept or not */
  GError **error;
} Loader;

static void
raw_access_clear (RawAccess *a)
{
  g_free (a->tensor);
  for (guint r = 0; r < a->n_entries; r++)
    {
      g_free (a->entries[r].rank);
      for (guint t = 0; t < a->entries[r].n_terms; t++)
        g_free (a->entries[r].vars[t]);
    }
}

static void
raw_einsum_free (gpointer data)
{
  RawEinsum *e = data;

  g_free (e->name);
  g_free (e->text);
  g_free (e->when);
  for (guint i = 0; i < e->n_inputs; i++)
    raw_access_clear (&e->inputs[i]);
  raw_access_clear (&e->output);
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

static void
tensor_decl_free (gpointer data)
{
  TensorDecl *d = data;

  g_strfreev (d->ranks);
  g_free (d->path);
  g_free (d);
}

static void
rank_decl_free (gpointer data)
{
  RankDecl *d = data;

  g_free (d->path);
  g_free (d);
}

/* ---- Messages ---- */

static gboolean
fail (Loader *L, JsonNode *node, const char *path, const char *format, ...)
  G_GNUC_PRINTF (4, 5);

static gboolean
fail (Loader *L, JsonNode *node, const char *path, const char *format, ...)
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

/* @path with the repeat variables in scope appended: "$.einsums[0].einsums[1]
 * (i = 2)". */
static char *
path_in_frames (Loader *L, const char *path)
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

/* Wraps an expression error with the place and a hint about parameters
 * that have no value. */
static gboolean
fail_expr (Loader *L, JsonNode *node, const char *path, GError *expr_error)
{
  g_autofree char *where = path_in_frames (L, path);
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
    return fail_expr (L, node, path, local);
  return ffm_params_value_keep (out, L->strings)
         || fail (L, node, path, "expected a number or a string, got a tensor set "
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
    fail (L, node, path, "expected a number, a boolean or an expression string");
  return FALSE;
}

/* "new_tokens = 1, cached_tokens = 2048": the values of the names @text uses. */
static char *
describe_names (Loader *L, const char *text)
{
  return ffm_params_describe_names (text, loader_resolve, L);
}

static gboolean
eval_bool (Loader *L, JsonNode *node, const char *path, gboolean *out)
{
  FfmValue v;

  if (!eval_node (L, node, path, &v))
    return FALSE;
  if (v.type != FFM_VALUE_NUMBER)
    return fail (L, node, path, "expected a condition (a number), got a string");
  *out = v.number != 0;
  return TRUE;
}

/* An integer >= @min. @what names the quantity in messages ("rank M"). */
static gboolean
eval_integer (Loader *L, JsonNode *node, const char *path, const char *what,
              gint64 min, gint64 *out)
{
  FfmValue v;
  const char *text = JSON_NODE_HOLDS_VALUE (node)
                     && json_node_get_value_type (node) == G_TYPE_STRING
                     ? json_node_get_string (node) : NULL;
  g_autofree char *where = path_in_frames (L, path);
  g_autofree char *values = text ? describe_names (L, text) : g_strdup ("");

  if (!eval_node (L, node, path, &v))
    return FALSE;
  if (v.type != FFM_VALUE_NUMBER)
    return fail (L, node, where, "%s: expected an integer, got the string '%s'",
                 what, v.string);
  if (v.number != floor (v.number) || fabs (v.number) > FFM_MAX_EXACT_INTEGER)
    return fail (L, node, where, "%s: expected an integer, got %.15g%s%s%s%s%s", what,
                 v.number, text ? " from \"" : "", text ? text : "", text ? "\"" : "",
                 values[0] ? " with " : "", values);
  if (v.number < (double) min)
    return fail (L, node, where, "%s is %.15g (must be at least %" G_GINT64_FORMAT
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
  g_autofree char *where = path_in_frames (L, path);

  if (expr == NULL || !ffm_expr_evaluate (expr, &scope, out, &local))
    {
      ffm_json_set_error (L->error, INVALID, L->doc, node, where, "in {%s} of \"%s\": %s",
                          inner, text, local->message);
      g_error_free (local);
      return FALSE;
    }
  if (out->type == FFM_VALUE_SET)
    return fail (L, node, where, "in {%s} of \"%s\": a tensor set cannot be "
                 "substituted", inner, text);
  /* A name holds digits, not "1e+300" or "nan". */
  if (out->type == FFM_VALUE_NUMBER
      && !(out->number == floor (out->number) && fabs (out->number) <= FFM_MAX_EXACT_INTEGER))
    return fail (L, node, where, "in {%s} of \"%s\": the value %g is not a whole "
                 "number of magnitude at most 2^53 (what a name can hold)",
                 inner, text, out->number);
  return ffm_params_value_keep (out, L->strings);   /* the expression dies here */
}

/* Replaces each {expr} in @text by its value; {{ and }} are braces. */
static char *
substitute (Loader *L, const char *text, JsonNode *node, const char *path)
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
          fail (L, node, path, "unmatched '}' at character %d of \"%s\" (write }} for a brace)",
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
              fail (L, node, path, "unmatched '{' at character %d of \"%s\"",
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

static gboolean
is_identifier (const char *s, gboolean lower_first)
{
  if (s == NULL || !(lower_first ? (g_ascii_islower (s[0]) || s[0] == '_')
                                 : (g_ascii_isalpha (s[0]) || s[0] == '_')))
    return FALSE;
  for (const char *p = s + 1; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

static gboolean
check_object (Loader *L, JsonNode *node, const char *path,
              const char *const *allowed)
{
  g_autofree char *where = path_in_frames (L, path);

  return ffm_json_require_object (L->doc, node, where, INVALID, L->error)
         && ffm_json_check_members (L->doc, node, where, allowed, INVALID, L->error);
}

static const char *
require_string (Loader *L, JsonNode *node, const char *path)
{
  g_autofree char *where = path_in_frames (L, path);

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

/* Declares the parameters into the workload, binds their values (recorded
 * in the workload as text) and evaluates `let`. */
static gboolean
read_parameters_and_lets (Loader *L, JsonNode *root)
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

/* ---- checks, ranks ---- */

static gboolean
read_checks (Loader *L, JsonNode *root)
{
  static const char *const allowed[] = { "assert", "message", "when", NULL };
  JsonNode *checks = ffm_json_get_member (root, "checks");
  JsonArray *array;

  if (checks == NULL)
    return TRUE;
  if (!ffm_json_require_array (L->doc, checks, "$.checks", INVALID, L->error))
    return FALSE;
  array = json_node_get_array (checks);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *check = json_array_get_element (array, i);
      g_autofree char *path = g_strdup_printf ("$.checks[%u]", i);
      g_autofree char *sub = NULL;
      JsonNode *when, *assert_node, *message;
      const char *text, *msg = NULL;
      gboolean on = TRUE, holds = TRUE;

      if (!check_object (L, check, path, allowed))
        return FALSE;
      if ((when = ffm_json_get_member (check, "when")) != NULL)
        {
          sub = g_strdup_printf ("%s.when", path);
          if (!eval_bool (L, when, sub, &on))
            return FALSE;
          g_clear_pointer (&sub, g_free);
        }
      sub = g_strdup_printf ("%s.assert", path);
      assert_node = ffm_json_get_member (check, "assert");
      if ((text = require_string (L, assert_node, sub)) == NULL)
        return FALSE;
      if ((message = ffm_json_get_member (check, "message")) != NULL)
        {
          g_autofree char *msub = g_strdup_printf ("%s.message", path);
          if ((msg = require_string (L, message, msub)) == NULL)
            return FALSE;
        }
      if (!on)
        continue;
      if (!eval_bool (L, assert_node, sub, &holds))
        return FALSE;
      if (!holds)
        {
          g_autofree char *values = describe_names (L, text);
          g_autofree char *what = msg ? g_strdup (msg)
                                      : g_strdup_printf ("assert \"%s\"", text);
          return fail (L, assert_node, path, "%s: check failed: %s%s%s%s", L->owner,
                       what, values[0] ? " (" : "", values, values[0] ? ")" : "");
        }
    }
  return TRUE;
}

static gboolean
declare_rank (Loader *L, const char *key, JsonNode *node, const char *path)
{
  g_autofree char *name = substitute (L, key, node, path);
  g_autofree char *what = NULL;
  g_autofree char *where = NULL;
  RankDecl *old;
  gint64 size;

  if (name == NULL)
    return FALSE;
  where = path_in_frames (L, path);
  if (!is_identifier (name, FALSE))
    return fail (L, node, where, "rank name '%s' must match [A-Za-z_][A-Za-z0-9_]*", name);
  what = g_strdup_printf ("rank %s", name);
  if (!eval_integer (L, node, path, what, 1, &size))
    return FALSE;
  old = g_hash_table_lookup (L->rank_decls, name);
  if (old != NULL)
    {
      if (old->size != size)
        {
          g_autofree char *first = ffm_json_where (L->doc, old->node, old->path);
          return fail (L, node, where, "rank %s has size %" G_GINT64_FORMAT " here but %"
                       G_GINT64_FORMAT " at %s (a rank has one size in the workload)",
                       name, size, old->size, first);
        }
      return TRUE;
    }
  old = g_new0 (RankDecl, 1);
  old->size = size;
  old->node = node;
  old->path = g_steal_pointer (&where);
  g_hash_table_insert (L->rank_decls, g_strdup (name), old);
  {
    FfmRankSize r = { g_strdup (name), (guint64) size };
    g_array_append_val (L->w->ranks, r);
  }
  return TRUE;
}

static gboolean
read_ranks (Loader *L, JsonNode *ranks, const char *path)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *node;
  g_autofree char *where = path_in_frames (L, path);

  if (ranks == NULL)
    return TRUE;
  if (!ffm_json_require_object (L->doc, ranks, where, INVALID, L->error))
    return FALSE;
  json_object_iter_init_ordered (&iter, json_node_get_object (ranks));
  while (json_object_iter_next_ordered (&iter, &key, &node))
    {
      g_autofree char *sub = g_strdup_printf ("%s.%s", path, key);
      if (!declare_rank (L, key, node, sub))
        return FALSE;
    }
  return TRUE;
}

/* ---- Einsum strings ---- */

typedef struct {
  const char *text;
  const char *p;
  GError *error;
} Scan;

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

/* einsum := access '=' access (('*'|'+') access)* */
static gboolean
scan_einsum (Scan *s, RawEinsum *e)
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
          raw_access_clear (&a);
          return FALSE;
        }
      if (strcmp (a.tensor, e->output.tensor) == 0)
        {
          raw_access_clear (&a);
          return scan_error (s, "tensor %s is both read and written", e->output.tensor);
        }
      for (guint i = 0; i < e->n_inputs; i++)
        if (strcmp (e->inputs[i].tensor, a.tensor) == 0)
          {
            if (!same_access (&e->inputs[i], &a))
              {
                char *name = g_strdup (a.tensor);
                raw_access_clear (&a);
                scan_error (s, "tensor %s appears twice with different indices", name);
                g_free (name);
                return FALSE;
              }
            repeated = TRUE;
          }
      if (repeated)
        raw_access_clear (&a);
      else if (e->n_inputs == FFM_MAX_EINSUM_TENSORS - 1)
        {
          raw_access_clear (&a);
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

/* ---- Einsum list expansion ---- */

static gboolean expand_list (Loader *L, JsonNode *list, const char *path);

static gboolean
read_einsum_roles (Loader *L, RawEinsum *e, JsonNode *roles, const char *path)
{
  static const char *const allowed[] = { "input", "weight", "output", NULL };

  if (!check_object (L, roles, path, allowed))
    return FALSE;
  for (guint r = 0; r < 3; r++)
    {
      JsonNode *node = ffm_json_get_member (roles, allowed[r]);
      g_autofree char *sub = g_strdup_printf ("%s.%s", path, allowed[r]);
      const char *text;

      if (node == NULL)
        continue;
      if ((text = require_string (L, node, sub)) == NULL
          || (e->roles[r] = substitute (L, text, node, sub)) == NULL)
        return FALSE;
      e->role_nodes[r] = node;
      e->role_paths[r] = path_in_frames (L, sub);
    }
  return TRUE;
}

static gboolean
read_einsum_bounds (Loader *L, RawEinsum *e, JsonNode *bounds, const char *path)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *node;
  g_autofree char *where = path_in_frames (L, path);

  if (!ffm_json_require_object (L->doc, bounds, where, INVALID, L->error))
    return FALSE;
  e->bounds = g_array_new (FALSE, TRUE, sizeof (RawBound));
  json_object_iter_init_ordered (&iter, json_node_get_object (bounds));
  while (json_object_iter_next_ordered (&iter, &key, &node))
    {
      g_autofree char *sub = g_strdup_printf ("%s.%s", path, key);
      g_autofree char *what = NULL;
      RawBound b = { 0 };

      if ((b.var = substitute (L, key, node, sub)) == NULL)
        return FALSE;
      what = g_strdup_printf ("bound of %s", b.var);
      if (!eval_integer (L, node, sub, what, 1, &b.bound))
        {
          g_free (b.var);
          return FALSE;
        }
      g_array_append_val (e->bounds, b);
    }
  return TRUE;
}

/* One Einsum: @node is the string, or the object with "einsum". */
static gboolean
add_einsum (Loader *L, JsonNode *node, const char *path)
{
  static const char *const allowed[] = {
    "einsum", "name", "copy", "when", "roles", "bounds", NULL
  };
  gboolean is_object = JSON_NODE_HOLDS_OBJECT (node);
  JsonNode *text_node = is_object ? ffm_json_get_member (node, "einsum") : node;
  g_autofree char *text_path = is_object ? g_strdup_printf ("%s.einsum", path)
                                         : g_strdup (path);
  RawEinsum *e;
  const char *text;
  JsonNode *member;
  Scan scan = { 0 };

  if (is_object && !check_object (L, node, path, allowed))
    return FALSE;
  if (L->raw->len >= MAX_EINSUMS)
    return fail (L, node, path, "more than %d Einsums", MAX_EINSUMS);
  if ((text = require_string (L, text_node, text_path)) == NULL)
    return FALSE;
  e = g_new0 (RawEinsum, 1);
  g_ptr_array_add (L->raw, e);
  e->node = text_node;
  e->path = path_in_frames (L, text_path);
  e->included = TRUE;
  if (is_object && (member = ffm_json_get_member (node, "when")) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.when", path);
      if (!eval_bool (L, member, sub, &e->included))
        return FALSE;
      if (!e->included)
        e->when = JSON_NODE_HOLDS_VALUE (member)
                    && json_node_get_value_type (member) == G_TYPE_STRING
                    ? g_strdup (json_node_get_string (member)) : g_strdup ("false");
    }
  if (!e->included)
    {
      /* A left-out Einsum is still checked for syntax, unless its text
       * cannot even be substituted (a field this iteration's record lacks). */
      GError **error = L->error;
      GError *ignored = NULL;
      L->error = &ignored;
      e->text = substitute (L, text, text_node, text_path);
      L->error = error;
      if (e->text == NULL)
        {
          g_error_free (ignored);
          g_ptr_array_remove_index (L->raw, L->raw->len - 1);
          return TRUE;
        }
    }
  else if ((e->text = substitute (L, text, text_node, text_path)) == NULL)
    return FALSE;
  scan.text = e->text;
  scan.p = e->text;
  if (!scan_einsum (&scan, e))
    {
      ffm_json_set_error (L->error, INVALID, L->doc, text_node, e->path, "%s",
                          scan.error->message);
      g_error_free (scan.error);
      return FALSE;
    }
  g_hash_table_add (L->seen_tensors, g_strdup (e->output.tensor));
  for (guint i = 0; i < e->n_inputs; i++)
    g_hash_table_add (L->seen_tensors, g_strdup (e->inputs[i].tensor));
  if (!is_object)
    {
      e->name = g_strdup (e->output.tensor);
      return TRUE;
    }
  if (!e->included)
    {
      e->name = g_strdup (e->output.tensor);
      return TRUE;              /* options of left-out Einsums may not evaluate */
    }
  if ((member = ffm_json_get_member (node, "name")) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.name", path);
      const char *name = require_string (L, member, sub);
      if (name == NULL || (e->name = substitute (L, name, member, sub)) == NULL)
        return FALSE;
      if (e->name[0] == '\0')
        return fail (L, member, sub, "empty Einsum name");
    }
  else
    e->name = g_strdup (e->output.tensor);
  if ((member = ffm_json_get_member (node, "copy")) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.copy", path);
      if (!ffm_json_require_bool (L->doc, member, sub, INVALID, &e->copy, L->error))
        return FALSE;
      if (e->copy && e->n_inputs != 1)
        return fail (L, text_node, e->path, "a copy Einsum has exactly one input, \"%s\" "
                     "has %u", e->text, e->n_inputs);
    }
  if ((member = ffm_json_get_member (node, "roles")) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.roles", path);
      if (!read_einsum_roles (L, e, member, sub))
        return FALSE;
    }
  if ((member = ffm_json_get_member (node, "bounds")) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.bounds", path);
      if (!read_einsum_bounds (L, e, member, sub))
        return FALSE;
    }
  return TRUE;
}

/* One iteration of a repeat block. */
static gboolean
repeat_body (Loader *L, Frame *frame, JsonNode *block, const char *path)
{
  g_autofree char *ranks_path = g_strdup_printf ("%s.ranks", path);
  g_autofree char *list_path = g_strdup_printf ("%s.einsums", path);
  gboolean ok;

  frame->outer = L->frame;
  L->frame = frame;
  ok = read_ranks (L, ffm_json_get_member (block, "ranks"), ranks_path)
       && expand_list (L, ffm_json_get_member (block, "einsums"), list_path);
  L->frame = frame->outer;
  return ok;
}

static gboolean
read_repeat_range (Loader *L, JsonNode *spec, const char *path, gint64 *from,
                   gint64 *to)
{
  JsonNode *count = ffm_json_get_member (spec, "count");
  JsonNode *from_node = ffm_json_get_member (spec, "from");
  JsonNode *to_node = ffm_json_get_member (spec, "to");
  g_autofree char *sub = NULL;

  if (count != NULL)
    {
      gint64 n;
      sub = g_strdup_printf ("%s.count", path);
      if (!eval_integer (L, count, sub, "repeat count", 0, &n))
        return FALSE;
      *from = 0;
      *to = n - 1;
      return TRUE;
    }
  if (from_node == NULL || to_node == NULL)
    return fail (L, from_node ? from_node : to_node, path, "a repeat needs \"from\" "
                 "and \"to\" together");
  sub = g_strdup_printf ("%s.from", path);
  if (!eval_integer (L, from_node, sub, "repeat from", -(gint64) FFM_MAX_EXACT_INTEGER, from))
    return FALSE;
  g_free (sub);
  sub = g_strdup_printf ("%s.to", path);
  return eval_integer (L, to_node, sub, "repeat to", -(gint64) FFM_MAX_EXACT_INTEGER, to);
}

static gboolean
expand_repeat (Loader *L, JsonNode *block, const char *path)
{
  static const char *const allowed[] = { "repeat", "einsums", "ranks", "when", NULL };
  static const char *const spec_allowed[] = {
    "var", "index", "count", "from", "to", "values", NULL
  };
  g_autofree char *spec_path = g_strdup_printf ("%s.repeat", path);
  JsonNode *spec = ffm_json_get_member (block, "repeat");
  JsonNode *when, *var_node, *index_node, *values, *count;
  const char *var, *index_var = NULL;
  gboolean on = TRUE;
  int forms;

  if (!check_object (L, block, path, allowed) || !check_object (L, spec, spec_path, spec_allowed))
    return FALSE;
  if (ffm_json_get_member (block, "einsums") == NULL)
    return fail (L, block, path, "a repeat block needs \"einsums\"");
  if (L->repeat_depth >= MAX_REPEAT_DEPTH)
    return fail (L, block, path, "repeat blocks nested more than %d deep", MAX_REPEAT_DEPTH);
  if ((when = ffm_json_get_member (block, "when")) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.when", path);
      if (!eval_bool (L, when, sub, &on))
        return FALSE;
    }
  if (!on)
    return TRUE;
  var_node = ffm_json_get_member (spec, "var");
  {
    g_autofree char *sub = g_strdup_printf ("%s.var", spec_path);
    if ((var = require_string (L, var_node, sub)) == NULL)
      return FALSE;
    if (!is_identifier (var, FALSE))
      return fail (L, var_node, sub, "repeat variable '%s' must match [A-Za-z_][A-Za-z0-9_]*", var);
  }
  if ((index_node = ffm_json_get_member (spec, "index")) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.index", spec_path);
      if ((index_var = require_string (L, index_node, sub)) == NULL)
        return FALSE;
      if (!is_identifier (index_var, FALSE) || strcmp (index_var, var) == 0)
        return fail (L, index_node, sub, "index variable '%s' must be a name other than "
                     "the repeat variable", index_var);
    }
  values = ffm_json_get_member (spec, "values");
  count = ffm_json_get_member (spec, "count");
  forms = (values != NULL) + (count != NULL)
          + (ffm_json_get_member (spec, "from") != NULL
             || ffm_json_get_member (spec, "to") != NULL);
  if (forms != 1)
    return fail (L, spec, spec_path, "a repeat needs exactly one of \"count\", "
                 "\"from\"/\"to\" or \"values\"");
  L->repeat_depth++;
  if (values != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.values", spec_path);
      JsonArray *array;

      if (!ffm_json_require_array (L->doc, values, sub, INVALID, L->error))
        return FALSE;
      array = json_node_get_array (values);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *item = json_array_get_element (array, i);
          Frame frame = { var, { 0 }, NULL, index_var, i, NULL };
          g_autofree char *item_path = g_strdup_printf ("%s[%u]", sub, i);

          if (JSON_NODE_HOLDS_OBJECT (item))
            frame.record = json_node_get_object (item);
          else if (JSON_NODE_HOLDS_VALUE (item)
                   && json_node_get_value_type (item) == G_TYPE_STRING)
            {
              frame.value.type = FFM_VALUE_STRING;
              frame.value.string = json_node_get_string (item);
            }
          else if (!ffm_json_require_number (L->doc, item, item_path, INVALID,
                                             &frame.value.number, L->error))
            {
              g_prefix_error (L->error, "repeat values are numbers, strings or objects: ");
              return FALSE;
            }
          if (!repeat_body (L, &frame, block, path))
            return FALSE;
        }
    }
  else
    {
      gint64 from, to;
      if (!read_repeat_range (L, spec, spec_path, &from, &to))
        return FALSE;
      if (to >= from && to - from >= MAX_EINSUMS)
        return fail (L, spec, spec_path, "repeat of more than %d iterations", MAX_EINSUMS);
      for (gint64 i = from; i <= to; i++)
        {
          Frame frame = { var, { FFM_VALUE_NUMBER, (double) i, NULL, 0 }, NULL,
                          index_var, (double) (i - from), NULL };
          if (!repeat_body (L, &frame, block, path))
            return FALSE;
        }
    }
  L->repeat_depth--;
  return TRUE;
}

static gboolean
expand_list (Loader *L, JsonNode *list, const char *path)
{
  g_autofree char *where = path_in_frames (L, path);
  JsonArray *array;

  if (!ffm_json_require_array (L->doc, list, where, INVALID, L->error))
    return FALSE;
  array = json_node_get_array (list);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      g_autofree char *sub = g_strdup_printf ("%s[%u]", path, i);

      if (JSON_NODE_HOLDS_OBJECT (item) && ffm_json_get_member (item, "repeat") != NULL)
        {
          if (!expand_repeat (L, item, sub))
            return FALSE;
        }
      else if (JSON_NODE_HOLDS_OBJECT (item)
               || (JSON_NODE_HOLDS_VALUE (item)
                   && json_node_get_value_type (item) == G_TYPE_STRING))
        {
          if (!add_einsum (L, item, sub))
            return FALSE;
        }
      else
        {
          g_autofree char *w = path_in_frames (L, sub);
          return fail (L, item, w, "expected an Einsum string, an object with "
                       "\"einsum\" or a repeat block");
        }
    }
  return TRUE;
}

/* ---- tensors ---- */

static gboolean
read_tensor_decls (Loader *L, JsonNode *root)
{
  static const char *const allowed[] = { "bits", "persistent", "ranks", NULL };
  JsonNode *tensors = ffm_json_get_member (root, "tensors");
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  if (tensors == NULL)
    return TRUE;
  if (!ffm_json_require_object (L->doc, tensors, "$.tensors", INVALID, L->error))
    return FALSE;
  json_object_iter_init_ordered (&iter, json_node_get_object (tensors));
  while (json_object_iter_next_ordered (&iter, &name, &node))
    {
      g_autofree char *path = g_strdup_printf ("$.tensors.%s", name);
      TensorDecl *d;
      JsonNode *m;

      if (!check_object (L, node, path, allowed))
        return FALSE;
      d = g_new0 (TensorDecl, 1);
      d->node = node;
      d->path = g_strdup (path);
      g_hash_table_insert (L->tensor_decls, g_strdup (name), d);
      if ((m = ffm_json_get_member (node, "bits")) != NULL)
        {
          g_autofree char *sub = g_strdup_printf ("%s.bits", path);
          g_autofree char *what = g_strdup_printf ("bits of %s", name);
          if (!eval_integer (L, m, sub, what, 1, &d->bits))
            return FALSE;
          if (d->bits > MAX_BITS)
            return fail (L, m, sub, "%" G_GINT64_FORMAT " bits per value (at most %d)",
                         d->bits, MAX_BITS);
          d->has_bits = TRUE;
        }
      if ((m = ffm_json_get_member (node, "persistent")) != NULL)
        {
          g_autofree char *sub = g_strdup_printf ("%s.persistent", path);
          if (!ffm_json_require_bool (L->doc, m, sub, INVALID, &d->persistent, L->error))
            return FALSE;
          d->has_persistent = TRUE;
        }
      if ((m = ffm_json_get_member (node, "ranks")) != NULL)
        {
          g_autofree char *sub = g_strdup_printf ("%s.ranks", path);
          JsonArray *array;
          guint n;

          if (!ffm_json_require_array (L->doc, m, sub, INVALID, L->error))
            return FALSE;
          array = json_node_get_array (m);
          n = json_array_get_length (array);
          if (n > FFM_MAX_TENSOR_RANKS)
            return fail (L, m, sub, "more than %d ranks", FFM_MAX_TENSOR_RANKS);
          d->ranks = g_new0 (char *, n + 1);
          for (guint i = 0; i < n; i++)
            {
              g_autofree char *item = g_strdup_printf ("%s[%u]", sub, i);
              JsonNode *rn = json_array_get_element (array, i);
              const char *r = require_string (L, rn, item);
              if (r == NULL)
                return FALSE;
              if (!is_identifier (r, FALSE))
                return fail (L, rn, item, "rank name '%s' must match [A-Za-z_][A-Za-z0-9_]*", r);
              d->ranks[i] = g_strdup (r);
            }
        }
    }
  return TRUE;
}

/* ---- Building the model (phase 2) ---- */

static FfmTensor *
tensor_at (Loader *L, guint t)
{
  return &g_array_index (L->w->tensors, FfmTensor, t);
}

static FfmEinsum *
einsum_at (Loader *L, guint e)
{
  return &g_array_index (L->w->einsums, FfmEinsum, e);
}

static gboolean
fail_einsum (Loader *L, RawEinsum *r, const char *format, ...) G_GNUC_PRINTF (3, 4);

/* Why @name cannot name a tensor, or NULL: tensor sets (roles, persistent,
 * bits_per_value keys) would read a class word as the class and inf, true
 * or false as a number, so the workload would not load back as written. */
static const char *
reserved_tensor_name (const char *name)
{
  if (!ffm_workload_tensor_name_allowed (name))
    return "a class word";
  if (strcmp (name, "inf") == 0 || strcmp (name, "true") == 0
      || strcmp (name, "false") == 0)
    return "a constant of set expressions";
  return NULL;
}

static gboolean
fail_einsum (Loader *L, RawEinsum *r, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  ffm_json_set_error (L->error, INVALID, L->doc, r->node, r->path, "Einsum %s: %s",
                      r->name, message);
  return FALSE;
}

static guint
intern_tensor (Loader *L, const char *name)
{
  gpointer found = g_hash_table_lookup (L->w->tensor_index, name);
  FfmTensor t = { 0 };

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  t.name = g_strdup (name);
  t.producer = G_MAXUINT;
  g_array_append_val (L->w->tensors, t);
  g_hash_table_insert (L->w->tensor_index, tensor_at (L, L->w->tensors->len - 1)->name,
                       GUINT_TO_POINTER (L->w->tensors->len));
  g_ptr_array_add (L->w->tensor_readers, g_array_new (FALSE, FALSE, sizeof (guint)));
  return L->w->tensors->len - 1;
}

/* Decides each tensor's rank names from its accesses and declaration, and
 * checks that every Einsum agrees. */
static gboolean
resolve_tensor_ranks (Loader *L, GPtrArray *kept)
{
  g_autofree RawAccess **first = NULL;
  g_autofree RawEinsum **first_einsum = NULL;

  for (guint e = 0; e < kept->len; e++)
    {
      RawEinsum *r = kept->pdata[e];
      for (guint i = 0; i < r->n_inputs; i++)
        intern_tensor (L, r->inputs[i].tensor);
      intern_tensor (L, r->output.tensor);
    }
  first = g_new0 (RawAccess *, L->w->tensors->len);
  first_einsum = g_new0 (RawEinsum *, L->w->tensors->len);

  for (guint pass = 0; pass < 2; pass++)
    for (guint e = 0; e < kept->len; e++)
      {
        RawEinsum *r = kept->pdata[e];
        for (guint i = 0; i <= r->n_inputs; i++)
          {
            RawAccess *a = i < r->n_inputs ? &r->inputs[i] : &r->output;
            guint t = intern_tensor (L, a->tensor);
            FfmTensor *tensor = tensor_at (L, t);
            TensorDecl *decl = g_hash_table_lookup (L->tensor_decls, a->tensor);

            if (pass == 0)
              {
                /* pass 0: first access fixes the count; names fill in */
                if (first[t] == NULL)
                  {
                    first[t] = a;
                    first_einsum[t] = r;
                    tensor->n_ranks = a->n_entries;
                    if (decl != NULL && decl->ranks != NULL)
                      {
                        if (g_strv_length (decl->ranks) != a->n_entries)
                          return fail_einsum (L, r, "tensor %s has %u ranks here but %u in "
                                              "its \"tensors\" entry", a->tensor,
                                              a->n_entries, g_strv_length (decl->ranks));
                        for (guint k = 0; k < a->n_entries; k++)
                          tensor->rank_names[k] = g_strdup (decl->ranks[k]);
                      }
                  }
                if (a->n_entries != tensor->n_ranks)
                  return fail_einsum (L, r, "tensor %s has %u ranks here but %u in "
                                      "Einsum %s", a->tensor, a->n_entries,
                                      tensor->n_ranks, first_einsum[t]->name);
                for (guint k = 0; k < a->n_entries; k++)
                  if (tensor->rank_names[k] == NULL && a->entries[k].rank != NULL)
                    tensor->rank_names[k] = g_strdup (a->entries[k].rank);
                continue;
              }
            /* pass 1: every named entry must agree */
            for (guint k = 0; k < a->n_entries; k++)
              {
                if (tensor->rank_names[k] == NULL)
                  return fail_einsum (L, r, "rank %u of tensor %s is indexed by an "
                                      "expression and named nowhere: write RANK:expr "
                                      "or declare \"tensors\": {\"%s\": {\"ranks\": "
                                      "[...]}}", k + 1, a->tensor, a->tensor);
                if (a->entries[k].rank != NULL
                    && strcmp (a->entries[k].rank, tensor->rank_names[k]) != 0)
                  return fail_einsum (L, r, "rank %u of tensor %s is %s here but %s "
                                      "elsewhere (a tensor keeps its own rank names: "
                                      "write %s:%s to index rank %s)", k + 1, a->tensor,
                                      a->entries[k].rank, tensor->rank_names[k],
                                      tensor->rank_names[k],
                                      a->entries[k].n_terms ? a->entries[k].vars[0] : "0",
                                      tensor->rank_names[k]);
                for (guint j = 0; j < k; j++)
                  if (strcmp (tensor->rank_names[j], tensor->rank_names[k]) == 0)
                    return fail_einsum (L, r, "tensor %s has rank %s twice", a->tensor,
                                        tensor->rank_names[k]);
              }
          }
      }
  return TRUE;
}

static int
var_index (FfmEinsum *e, const char *var)
{
  for (guint v = 0; v < e->n_rank_vars; v++)
    if (strcmp (e->rank_var_names[v], var) == 0)
      return (int) v;
  return -1;
}

static gboolean
fill_access (Loader *L, RawEinsum *r, FfmEinsum *e, RawAccess *a, gboolean output)
{
  FfmTensorAccess *acc = &e->accesses[e->n_accesses++];

  acc->tensor = intern_tensor (L, a->tensor);
  acc->is_output = output;
  for (guint k = 0; k < a->n_entries; k++)
    {
      RawEntry *entry = &a->entries[k];
      FfmProjection *p = &acc->projections[k];

      p->n_terms = entry->n_terms;
      p->offset = entry->offset;
      for (guint t = 0; t < entry->n_terms; t++)
        {
          int v = var_index (e, entry->vars[t]);
          if (v < 0)
            {
              if (e->n_rank_vars == FFM_MAX_EINSUM_RANK_VARS)
                return fail_einsum (L, r, "more than %d rank variables",
                                    FFM_MAX_EINSUM_RANK_VARS);
              v = (int) e->n_rank_vars;
              e->rank_var_names[e->n_rank_vars++] = g_strdup (entry->vars[t]);
            }
          p->terms[t].var = (guint) v;
          p->terms[t].coefficient = entry->coefs[t];
        }
    }
  return TRUE;
}

/* Rank-variable bounds: the bounding box of accelforge's workload files. */
static gboolean
compute_bounds (Loader *L, RawEinsum *r, FfmEinsum *e)
{
  gint64 bound[FFM_MAX_EINSUM_RANK_VARS];

  for (guint v = 0; v < e->n_rank_vars; v++)
    bound[v] = -1;                                  /* no size yet */
  for (guint b = 0; r->bounds != NULL && b < r->bounds->len; b++)
    {
      RawBound *rb = &g_array_index (r->bounds, RawBound, b);
      int v = var_index (e, rb->var);
      if (v < 0)
        return fail_einsum (L, r, "\"bounds\" names '%s', which is not one of its rank "
                            "variables", rb->var);
      bound[v] = bound[v] < 0 ? rb->bound : MIN (bound[v], rb->bound);
    }
  /* 1. sizes of ranks indexed by a variable alone */
  for (guint a = 0; a < e->n_accesses; a++)
    {
      FfmTensor *t = tensor_at (L, e->accesses[a].tensor);
      for (guint k = 0; k < t->n_ranks; k++)
        {
          FfmProjection *p = &e->accesses[a].projections[k];
          RankDecl *size = g_hash_table_lookup (L->rank_decls, t->rank_names[k]);
          guint v;
          if (size == NULL || p->n_terms != 1 || p->terms[0].coefficient != 1
              || p->offset != 0)
            continue;
          v = p->terms[0].var;
          bound[v] = bound[v] < 0 ? size->size : MIN (bound[v], size->size);
        }
    }
  for (guint v = 0; v < e->n_rank_vars; v++)
    if (bound[v] < 0)
      return fail_einsum (L, r, "rank variable %s has no bound: no rank it indexes alone "
                          "has a size (declare the rank's size in \"ranks\", or give "
                          "\"bounds\": {\"%s\": N})", e->rank_var_names[v],
                          e->rank_var_names[v]);
  /* 2. affine entries tighten: a*(bound-1) + offset <= size-1, others at 0 */
  for (guint a = 0; a < e->n_accesses; a++)
    {
      FfmTensor *t = tensor_at (L, e->accesses[a].tensor);
      for (guint k = 0; k < t->n_ranks; k++)
        {
          FfmProjection *p = &e->accesses[a].projections[k];
          RankDecl *size = g_hash_table_lookup (L->rank_decls, t->rank_names[k]);
          if (size == NULL)
            continue;
          for (guint i = 0; i < p->n_terms; i++)
            {
              gint64 room = size->size - 1 - p->offset;
              gint64 limit = room < 0 ? 0 : room / p->terms[i].coefficient + 1;
              guint v = p->terms[i].var;
              if (limit < bound[v])
                bound[v] = limit;
              if (bound[v] == 0)
                return fail_einsum (L, r, "rank variable %s has an empty range: rank %s "
                                    "of %s has size %" G_GINT64_FORMAT " and index "
                                    "offset %" G_GINT64_FORMAT, e->rank_var_names[v],
                                    t->rank_names[k], t->name, size->size, p->offset);
            }
        }
    }
  for (guint v = 0; v < e->n_rank_vars; v++)
    e->rank_var_bounds[v] = (guint64) bound[v];
  return TRUE;
}

static gboolean
build_einsum (Loader *L, RawEinsum *r)
{
  FfmEinsum blank = { 0 };
  FfmEinsum *e;
  guint index = L->w->einsums->len;
  guint64 ops = 1;

  if (g_hash_table_contains (L->w->einsum_index, r->name))
    return fail_einsum (L, r, "the name is already used by Einsum #%u (give a unique "
                        "\"name\")",
                        GPOINTER_TO_UINT (g_hash_table_lookup (L->w->einsum_index,
                                                               r->name)));
  g_array_append_val (L->w->einsums, blank);
  e = einsum_at (L, index);
  e->name = g_strdup (r->name);
  e->text = g_strdup (r->text);
  e->is_copy = r->copy;
  g_hash_table_insert (L->w->einsum_index, e->name, GUINT_TO_POINTER (index + 1));
  /* Variables in order of appearance: the output is written first. */
  for (guint k = 0; k < r->output.n_entries; k++)
    for (guint t = 0; t < r->output.entries[k].n_terms; t++)
      if (var_index (e, r->output.entries[k].vars[t]) < 0)
        {
          if (e->n_rank_vars == FFM_MAX_EINSUM_RANK_VARS)
            return fail_einsum (L, r, "more than %d rank variables", FFM_MAX_EINSUM_RANK_VARS);
          e->rank_var_names[e->n_rank_vars++] = g_strdup (r->output.entries[k].vars[t]);
        }
  for (guint i = 0; i < r->n_inputs; i++)
    if (!fill_access (L, r, e, &r->inputs[i], FALSE))
      return FALSE;
  if (!fill_access (L, r, e, &r->output, TRUE))
    return FALSE;
  e->output_access = e->n_accesses - 1;
  if (!compute_bounds (L, r, e))
    return FALSE;
  for (guint v = 0; v < e->n_rank_vars; v++)
    if (__builtin_mul_overflow (ops, e->rank_var_bounds[v], &ops))
      return fail_einsum (L, r, "more than 2^64 operations");
  for (guint a = 0; a < e->n_accesses; a++)
    {
      guint64 values;
      guint t = e->accesses[a].tensor;
      guint64 *largest = &g_array_index (L->w->tensor_values, guint64, t);
      if (!ffm_workload_access_values_checked (e, a, &values))
        return fail_einsum (L, r, "tensor %s has more than 2^64 values",
                            tensor_at (L, t)->name);
      *largest = MAX (*largest, values);
    }
  return TRUE;
}

static gboolean
compute_classes (Loader *L, GPtrArray *kept)
{
  FfmWorkload *w = L->w;

  for (guint i = 0; i < w->einsums->len; i++)
    {
      FfmEinsum *e = einsum_at (L, i);
      for (guint a = 0; a < e->n_accesses; a++)
        {
          guint t = e->accesses[a].tensor;
          FfmTensor *tensor = tensor_at (L, t);
          if (!e->accesses[a].is_output)
            {
              g_array_append_val (w->tensor_readers->pdata[t], i);
              continue;
            }
          if (tensor->producer != G_MAXUINT)
            return fail_einsum (L, kept->pdata[i], "tensor %s is already written by "
                                "Einsum %s (a tensor has one producer)", tensor->name,
                                einsum_at (L, tensor->producer)->name);
          tensor->producer = i;
        }
    }
  for (guint t = 0; t < w->tensors->len; t++)
    {
      FfmTensor *tensor = tensor_at (L, t);
      GArray *readers = w->tensor_readers->pdata[t];
      guint touching = readers->len + (tensor->producer != G_MAXUINT);

      for (guint i = 0; i < readers->len; i++)
        {
          guint reader = g_array_index (readers, guint, i);
          if (tensor->producer != G_MAXUINT && reader < tensor->producer)
            return fail_einsum (L, kept->pdata[reader], "reads tensor %s before Einsum "
                                "%s writes it (Einsums run in file order)", tensor->name,
                                einsum_at (L, tensor->producer)->name);
        }
      if (tensor->producer == G_MAXUINT)
        tensor->classes |= FFM_TENSOR_INPUT;
      else if (readers->len == 0)
        tensor->classes |= FFM_TENSOR_OUTPUT;
      else
        tensor->classes |= FFM_TENSOR_INTERMEDIATE;
      if (touching >= 2)
        tensor->classes |= FFM_TENSOR_SHARED;
    }
  return TRUE;
}

/* ---- Roles, persistence, bits (set expressions per Einsum) ---- */

typedef struct {
  Loader *L;
  guint einsum;
  guint decided_roles;
  gboolean persistent_decided;
} SetScope;

static gboolean
set_scope_resolve (const char *name, FfmValue *out, gpointer user_data)
{
  SetScope *s = user_data;

  if (ffm_workload_resolve_set_name (s->L->w, s->einsum, s->decided_roles,
                                     s->persistent_decided, name, out))
    return TRUE;
  g_free (s->L->last_unknown);
  s->L->last_unknown = g_strdup (name);
  return FALSE;
}

static gboolean
eval_set (Loader *L, FfmExpr *expr, SetScope *ss, JsonNode *node, const char *path,
          guint64 *out)
{
  FfmEinsum *e = einsum_at (L, ss->einsum);
  FfmExprScope scope = { set_scope_resolve, ss, 0 };
  GError *local = NULL;

  scope.universe = (G_GUINT64_CONSTANT (1) << e->n_accesses) - 1;
  if (!ffm_expr_evaluate_set (expr, &scope, out, &local))
    {
      ffm_json_set_error (L->error, INVALID, L->doc, node, path, "in Einsum %s: %s",
                          e->name, local->message);
      g_error_free (local);
      return FALSE;
    }
  return TRUE;
}

static void
set_role (FfmEinsum *e, FfmTensorRole role, guint64 set)
{
  for (guint a = 0; a < e->n_accesses; a++)
    if (set & (G_GUINT64_CONSTANT (1) << a))
      e->accesses[a].roles |= role;
}

/* The default input of accelforge's workload files, with the documented fallback. */
static guint64
default_input (Loader *L, FfmEinsum *e)
{
  guint n_inputs = e->n_accesses - 1;

  for (guint a = 0; a < n_inputs; a++)
    if (tensor_at (L, e->accesses[a].tensor)->classes & FFM_TENSOR_INTERMEDIATE)
      {
        if (n_inputs == 2)
          {
            guint other = 1 - a;
            gboolean other_intermediate = tensor_at (L, e->accesses[other].tensor)->classes
                                          & FFM_TENSOR_INTERMEDIATE;
            if (other_intermediate)
              return 1;                               /* both: the first */
          }
        return G_GUINT64_CONSTANT (1) << a;
      }
  return n_inputs > 0 ? 1 : 0;                        /* neither: the first */
}

typedef struct {
  FfmExpr *expr;
  JsonNode *node;
  char *path;
} TopRole;

/* Evaluates the role rule @k of Einsum @i (the Einsum's own, else the
 * top-level one) into *@set. FALSE with *@found FALSE when there is none. */
static gboolean
eval_role_rule (Loader *L, RawEinsum *r, TopRole *top, SetScope *ss, guint k,
                gboolean *found, guint64 *set)
{
  static const char *const names[3] = { "input", "weight", "output" };
  FfmEinsum *e = einsum_at (L, ss->einsum);

  *found = TRUE;
  if (r->roles[k] != NULL)
    {
      const char *sub = r->role_paths[k];
      GError *local = NULL;
      g_autoptr (FfmExpr) expr = ffm_expr_parse (r->roles[k], &local);
      if (expr == NULL)
        {
          ffm_json_set_error (L->error, INVALID, L->doc, r->role_nodes[k], sub,
                              "Einsum %s: %s", e->name, local->message);
          g_error_free (local);
          return FALSE;
        }
      if (!eval_set (L, expr, ss, r->role_nodes[k], sub, set))
        return FALSE;
      if (*set == 0 && g_ascii_strcasecmp (r->roles[k], "nothing") != 0)
        return fail (L, r->role_nodes[k], sub, "Einsum %s: role %s = \"%s\" "
                     "selects none of its tensors", e->name, names[k], r->roles[k]);
      return TRUE;
    }
  if (top[k].expr != NULL)
    return eval_set (L, top[k].expr, ss, top[k].node, top[k].path, set);
  *found = FALSE;
  return TRUE;
}

/* Roles per Einsum: explicit rules first; a missing input or weight is the
 * other inputs of the one given; with neither, the default of §0.4. */
static gboolean
decide_roles (Loader *L, GPtrArray *kept, TopRole *top)
{
  for (guint i = 0; i < L->w->einsums->len; i++)
    {
      FfmEinsum *e = einsum_at (L, i);
      RawEinsum *r = kept->pdata[i];
      guint64 inputs = (G_GUINT64_CONSTANT (1) << (e->n_accesses - 1)) - 1;
      SetScope ss = { L, i, 0, FALSE };
      guint64 input = 0, weight = 0, output = 0;
      gboolean has_input, has_weight, has_output;

      if (!eval_role_rule (L, r, top, &ss, 0, &has_input, &input))
        return FALSE;
      if (has_input)
        {
          set_role (e, FFM_ROLE_INPUT, input);
          ss.decided_roles |= FFM_ROLE_INPUT;
        }
      if (!eval_role_rule (L, r, top, &ss, 1, &has_weight, &weight))
        return FALSE;
      if (!has_input)
        {
          input = has_weight ? inputs & ~weight : default_input (L, e);
          set_role (e, FFM_ROLE_INPUT, input);
          ss.decided_roles |= FFM_ROLE_INPUT;
        }
      if (!has_weight)
        weight = inputs & ~input;
      set_role (e, FFM_ROLE_WEIGHT, weight);
      ss.decided_roles |= FFM_ROLE_WEIGHT;
      if (!eval_role_rule (L, r, top, &ss, 2, &has_output, &output))
        return FALSE;
      if (!has_output)
        output = G_GUINT64_CONSTANT (1) << e->output_access;
      set_role (e, FFM_ROLE_OUTPUT, output);
    }
  return TRUE;
}

static gboolean
read_top_roles (Loader *L, JsonNode *root, TopRole *top)
{
  static const char *const allowed[] = { "input", "weight", "output", NULL };
  JsonNode *roles = ffm_json_get_member (root, "roles");

  if (roles == NULL)
    return TRUE;
  if (!check_object (L, roles, "$.roles", allowed))
    return FALSE;
  for (guint k = 0; k < 3; k++)
    {
      JsonNode *node = ffm_json_get_member (roles, allowed[k]);
      GError *local = NULL;
      const char *text;

      if (node == NULL)
        continue;
      top[k].path = g_strdup_printf ("$.roles.%s", allowed[k]);
      top[k].node = node;
      if ((text = require_string (L, node, top[k].path)) == NULL)
        return FALSE;
      if ((top[k].expr = ffm_expr_parse (text, &local)) == NULL)
        return fail_expr (L, node, top[k].path, local);
    }
  return TRUE;
}

static gboolean
decide_persistent (Loader *L, JsonNode *root)
{
  JsonNode *node = ffm_json_get_member (root, "persistent");
  g_autoptr (FfmExpr) expr = NULL;
  GError *local = NULL;
  GHashTableIter iter;
  gpointer key, value;
  const char *text;

  if (node != NULL)
    {
      if ((text = require_string (L, node, "$.persistent")) == NULL)
        return FALSE;
      if ((expr = ffm_expr_parse (text, &local)) == NULL)
        return fail_expr (L, node, "$.persistent", local);
      for (guint i = 0; i < L->w->einsums->len; i++)
        {
          FfmEinsum *e = einsum_at (L, i);
          SetScope ss = { L, i, FFM_ROLE_INPUT | FFM_ROLE_WEIGHT | FFM_ROLE_OUTPUT, FALSE };
          guint64 set;
          if (!eval_set (L, expr, &ss, node, "$.persistent", &set))
            return FALSE;
          for (guint a = 0; a < e->n_accesses; a++)
            if (set & (G_GUINT64_CONSTANT (1) << a))
              tensor_at (L, e->accesses[a].tensor)->classes |= FFM_TENSOR_PERSISTENT;
        }
    }
  g_hash_table_iter_init (&iter, L->tensor_decls);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      TensorDecl *d = value;
      int t = ffm_workload_find_tensor (L->w, key);
      if (t < 0 || !d->has_persistent)
        continue;
      if (d->persistent)
        tensor_at (L, (guint) t)->classes |= FFM_TENSOR_PERSISTENT;
      else
        tensor_at (L, (guint) t)->classes &= ~(guint) FFM_TENSOR_PERSISTENT;
    }
  return TRUE;
}

typedef struct {
  FfmExpr *expr;                        /* NULL for "other" */
  gint64 bits;
  JsonNode *node;
  char *path;
  const char *key;
} BitsRule;

static void
bits_rule_clear (gpointer data)
{
  BitsRule *r = data;

  ffm_expr_free (r->expr);
  g_free (r->path);
}

static gboolean
read_bits_rules (Loader *L, JsonNode *map, GArray *rules)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *node;

  if (!ffm_json_require_object (L->doc, map, "$.bits_per_value", INVALID, L->error))
    return FALSE;
  json_object_iter_init_ordered (&iter, json_node_get_object (map));
  while (json_object_iter_next_ordered (&iter, &key, &node))
    {
      BitsRule rule = { 0 };
      GError *local = NULL;
      g_autofree char *what = g_strdup_printf ("bits for \"%s\"", key);

      rule.path = g_strdup_printf ("$.bits_per_value.%s", key);
      rule.node = node;
      rule.key = key;
      g_array_append_val (rules, rule);
      if (!eval_integer (L, node, rule.path, what, 1,
                         &g_array_index (rules, BitsRule, rules->len - 1).bits))
        return FALSE;
      if (g_array_index (rules, BitsRule, rules->len - 1).bits > MAX_BITS)
        return fail (L, node, rule.path, "%s: at most %d bits per value", what, MAX_BITS);
      if (g_ascii_strcasecmp (key, "other") == 0)
        continue;
      if ((g_array_index (rules, BitsRule, rules->len - 1).expr
           = ffm_expr_parse (key, &local)) == NULL)
        return fail_expr (L, node, rule.path, local);
    }
  return TRUE;
}

static gboolean
decide_bits (Loader *L, JsonNode *root, GPtrArray *kept)
{
  JsonNode *map = ffm_json_get_member (root, "bits_per_value");
  g_autoptr (GArray) rules = g_array_new (FALSE, TRUE, sizeof (BitsRule));
  g_autofree guint *from_einsum = g_new0 (guint, L->w->tensors->len);

  g_array_set_clear_func (rules, bits_rule_clear);
  if (map != NULL && !read_bits_rules (L, map, rules))
    return FALSE;
  for (guint i = 0; i < L->w->einsums->len; i++)
    {
      FfmEinsum *e = einsum_at (L, i);
      SetScope ss = { L, i, FFM_ROLE_INPUT | FFM_ROLE_WEIGHT | FFM_ROLE_OUTPUT, TRUE };
      gint64 bits[FFM_MAX_EINSUM_TENSORS] = { 0 };
      const char *by[FFM_MAX_EINSUM_TENSORS] = { 0 };
      BitsRule *other = NULL;

      for (guint k = 0; k < rules->len; k++)
        {
          BitsRule *rule = &g_array_index (rules, BitsRule, k);
          guint64 set;
          if (rule->expr == NULL)
            {
              other = rule;
              continue;
            }
          if (!eval_set (L, rule->expr, &ss, rule->node, rule->path, &set))
            return FALSE;
          for (guint a = 0; a < e->n_accesses; a++)
            if (set & (G_GUINT64_CONSTANT (1) << a))
              {
                if (by[a] != NULL)
                  return fail (L, rule->node, rule->path, "in Einsum %s: keys \"%s\" and "
                               "\"%s\" both select tensor %s (keys must not overlap)",
                               e->name, by[a], rule->key,
                               tensor_at (L, e->accesses[a].tensor)->name);
                by[a] = rule->key;
                bits[a] = rule->bits;
              }
        }
      for (guint a = 0; a < e->n_accesses; a++)
        {
          FfmTensor *t = tensor_at (L, e->accesses[a].tensor);
          if (by[a] == NULL && other != NULL)
            bits[a] = other->bits, by[a] = other->key;
          if (by[a] == NULL)
            continue;
          if (t->bits_per_value != 0 && t->bits_per_value != (guint) bits[a])
            return fail_einsum (L, kept->pdata[i], "tensor %s gets %" G_GINT64_FORMAT
                                " bits per value here but %u in Einsum %s", t->name,
                                bits[a], t->bits_per_value,
                                einsum_at (L, from_einsum[e->accesses[a].tensor])->name);
          t->bits_per_value = (guint) bits[a];
          from_einsum[e->accesses[a].tensor] = i;
        }
    }
  for (guint t = 0; t < L->w->tensors->len; t++)
    {
      FfmTensor *tensor = tensor_at (L, t);
      TensorDecl *d = g_hash_table_lookup (L->tensor_decls, tensor->name);
      if (d != NULL && d->has_bits)
        tensor->bits_per_value = (guint) d->bits;
      if (tensor->bits_per_value == 0)
        return fail (L, map, map ? "$.bits_per_value" : NULL, "tensor %s has no bits per "
                     "value: add \"bits_per_value\": {\"all\": 8} (or \"other\"), or "
                     "\"tensors\": {\"%s\": {\"bits\": N}}", tensor->name, tensor->name);
    }
  return TRUE;
}

/* Bits of every tensor and of every access, and their sums over the
 * workload (what `ffm show-workload` reports), fit in 64 bits: refused
 * here, so no count downstream wraps. */
static gboolean
check_bit_counts (Loader *L, JsonNode *root)
{
  FfmWorkload *w = L->w;
  guint64 tensor_total = 0, footprint_total = 0;

  for (guint t = 0; t < w->tensors->len; t++)
    {
      guint64 bits;
      const FfmTensor *tensor = ffm_workload_get_tensor (w, t);
      if (__builtin_mul_overflow (ffm_workload_get_tensor_values (w, t),
                                  (guint64) tensor->bits_per_value, &bits)
          || __builtin_add_overflow (tensor_total, bits, &tensor_total))
        return fail (L, root, NULL, "tensor %s: %" G_GUINT64_FORMAT " values x %u "
                     "bits, with the other tensors, is more than 2^64 bits (the "
                     "limit of ffm's counts)", tensor->name,
                     ffm_workload_get_tensor_values (w, t), tensor->bits_per_value);
    }
  for (guint i = 0; i < w->einsums->len; i++)
    {
      const FfmEinsum *e = einsum_at (L, i);
      for (guint a = 0; a < e->n_accesses; a++)
        {
          guint64 bits;
          const FfmTensor *tensor = ffm_workload_get_tensor (w, e->accesses[a].tensor);
          if (__builtin_mul_overflow (ffm_einsum_get_access_values (e, a),
                                      (guint64) tensor->bits_per_value, &bits)
              || __builtin_add_overflow (footprint_total, bits, &footprint_total))
            return fail (L, root, NULL, "Einsum %s: the footprint of tensor %s, "
                         "with the other footprints, is more than 2^64 bits (the "
                         "limit of ffm's counts)", e->name, tensor->name);
        }
    }
  return TRUE;
}

static gboolean
check_tensor_decls (Loader *L)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, L->tensor_decls);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      TensorDecl *d = value;
      if (g_hash_table_contains (L->seen_tensors, key))
        continue;
      {
        g_autoptr (GString) known = g_string_new (NULL);
        for (guint t = 0; t < L->w->tensors->len; t++)
          g_string_append_printf (known, "%s%s", t ? ", " : "", tensor_at (L, t)->name);
        return fail (L, d->node, d->path, "unknown tensor '%s' (no Einsum uses it; the "
                     "tensors are: %s)", (char *) key, known->str);
      }
    }
  return TRUE;
}

static gboolean
check_name_length (Loader *L, RawEinsum *r, const char *what, const char *name)
{
  if (name == NULL || strlen (name) <= FFM_MAX_NAME_BYTES)
    return TRUE;
  ffm_json_set_error (L->error, INVALID, L->doc, r->node, r->path,
                      "%s \"%.40s...\" is %" G_GSIZE_FORMAT " bytes long, more than "
                      "the limit of %d for a name", what, name, strlen (name),
                      FFM_MAX_NAME_BYTES);
  return FALSE;
}

/* Names are copied into tables, messages and output files: keep them of a
 * size people write. */
static gboolean
check_name_lengths (Loader *L, RawEinsum *r)
{
  const RawAccess *accesses[FFM_MAX_EINSUM_TENSORS + 1];
  guint n = 0;

  if (!check_name_length (L, r, "the Einsum name", r->name))
    return FALSE;
  accesses[n++] = &r->output;
  for (guint k = 0; k < r->n_inputs; k++)
    accesses[n++] = &r->inputs[k];
  for (guint k = 0; k < n; k++)
    {
      if (!check_name_length (L, r, "the tensor name", accesses[k]->tensor))
        return FALSE;
      for (guint e = 0; e < accesses[k]->n_entries; e++)
        {
          const RawEntry *entry = &accesses[k]->entries[e];
          if (!check_name_length (L, r, "the rank name", entry->rank))
            return FALSE;
          for (guint t = 0; t < entry->n_terms; t++)
            if (!check_name_length (L, r, "the rank variable", entry->vars[t]))
              return FALSE;
        }
    }
  return TRUE;
}

/* Names only left-out Einsums have, with their condition, so that a
 * mapping naming one (made for other parameters) can be told why. */
static void
record_left_out (Loader *L)
{
  for (guint i = 0; i < L->raw->len; i++)
    {
      const RawEinsum *r = L->raw->pdata[i];
      const char *names[FFM_MAX_EINSUM_TENSORS + 2];
      guint n = 0;

      if (r->included || r->when == NULL)
        continue;
      names[n++] = r->name;
      names[n++] = r->output.tensor;
      for (guint k = 0; k < r->n_inputs; k++)
        names[n++] = r->inputs[k].tensor;
      for (guint k = 0; k < n; k++)
        if (names[k] != NULL && ffm_workload_find_tensor (L->w, names[k]) < 0
            && ffm_workload_find_einsum (L->w, names[k]) < 0
            && !g_hash_table_contains (L->w->left_out, names[k]))
          g_hash_table_insert (L->w->left_out, g_strdup (names[k]), g_strdup (r->when));
    }
}

static gboolean
build (Loader *L, JsonNode *root, JsonNode *einsums_node)
{
  g_autoptr (GPtrArray) kept = g_ptr_array_new ();
  TopRole top[3] = { { 0 } };
  gboolean ok = FALSE;

  for (guint i = 0; i < L->raw->len; i++)
    if (((RawEinsum *) L->raw->pdata[i])->included)
      g_ptr_array_add (kept, L->raw->pdata[i]);
  if (kept->len == 0 && L->raw->len > 0)
    return fail (L, einsums_node, "$.einsums", "workload %s has no Einsums with these "
                 "parameters (\"when\" left out all %u)", L->w->name, L->raw->len);
  if (kept->len == 0)
    return fail (L, einsums_node, "$.einsums", "workload %s has no Einsums", L->w->name);
  for (guint i = 0; i < kept->len; i++)
    if (!check_name_lengths (L, kept->pdata[i]))
      return FALSE;
  for (guint i = 0; i < kept->len; i++)
    {
      RawEinsum *r = kept->pdata[i];
      const char *why;
      if ((why = reserved_tensor_name (r->output.tensor)) != NULL)
        return fail_einsum (L, r, "tensor name %s is reserved (%s)", r->output.tensor, why);
      for (guint k = 0; k < r->n_inputs; k++)
        if ((why = reserved_tensor_name (r->inputs[k].tensor)) != NULL)
          return fail_einsum (L, r, "tensor name %s is reserved (%s)",
                              r->inputs[k].tensor, why);
    }
  if (!resolve_tensor_ranks (L, kept))
    return FALSE;
  g_array_set_size (L->w->tensor_values, L->w->tensors->len);
  for (guint i = 0; i < kept->len; i++)
    if (!build_einsum (L, kept->pdata[i]))
      return FALSE;
  {
    guint64 total = 0;
    for (guint i = 0; i < L->w->einsums->len; i++)
      if (__builtin_add_overflow (total, ffm_einsum_get_n_operations (einsum_at (L, i)),
                                  &total))
        return fail (L, einsums_node, "$.einsums", "more than 2^64 operations in total");
  }
  if (compute_classes (L, kept) && read_top_roles (L, root, top)
      && decide_roles (L, kept, top) && decide_persistent (L, root)
      && decide_bits (L, root, kept) && check_tensor_decls (L)
      && check_bit_counts (L, root))
    ok = TRUE;
  if (ok)
    record_left_out (L);
  for (guint k = 0; k < 3; k++)
    {
      ffm_expr_free (top[k].expr);
      g_free (top[k].path);
    }
  return ok;
}

/* ---- Entry points ---- */

static gboolean
read_header (Loader *L, JsonNode *root)
{
  static const char *const allowed[] = {
    "ffm_workload", "name", "description", "source", "layer", "parameters", "let",
    "checks", "ranks", "bits_per_value", "persistent", "roles", "tensors", "einsums",
    NULL
  };
  JsonNode *version = ffm_json_get_member (root, "ffm_workload");
  JsonNode *name_node;
  const char *name;
  double v;
  static const struct {
    const char *member;
    gsize offset;
  } texts[] = {
    { "description", G_STRUCT_OFFSET (FfmWorkload, description) },
    { "source", G_STRUCT_OFFSET (FfmWorkload, data_source) },
    { "layer", G_STRUCT_OFFSET (FfmWorkload, layer) },
  };

  if (!ffm_json_require_object (L->doc, root, "$", INVALID, L->error)
      || !ffm_json_check_members (L->doc, root, "$", allowed, INVALID, L->error))
    return FALSE;
  if (version == NULL)
    return fail (L, root, "$", "missing \"ffm_workload\": %d (the format version): is "
                 "this a workload file?", FFM_WORKLOAD_FORMAT_VERSION);
  if (!ffm_json_require_number (L->doc, version, "$.ffm_workload", INVALID, &v, L->error))
    return FALSE;
  if (v != FFM_WORKLOAD_FORMAT_VERSION)
    return fail (L, version, "$.ffm_workload", "unsupported format version %g (this ffm "
                 "reads %d)", v, FFM_WORKLOAD_FORMAT_VERSION);
  name_node = ffm_json_get_member (root, "name");
  if ((name = ffm_json_require_string (L->doc, name_node, "$.name", INVALID, L->error)) == NULL)
    return FALSE;
  if (name[0] == '\0' || strspn (name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789_.+-") != strlen (name))
    return fail (L, name_node, "$.name", "workload name '%s' must match [A-Za-z0-9_.+-]+", name);
  g_free (L->w->name);
  L->w->name = g_strdup (name);
  L->owner = g_strdup_printf ("workload %s", name);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      JsonNode *node = ffm_json_get_member (root, texts[i].member);
      g_autofree char *path = g_strdup_printf ("$.%s", texts[i].member);
      const char *text;
      if (node == NULL)
        continue;
      if ((text = ffm_json_require_string (L->doc, node, path, INVALID, L->error)) == NULL)
        return FALSE;
      G_STRUCT_MEMBER (char *, L->w, texts[i].offset) = g_strdup (text);
    }
  return TRUE;
}

static FfmWorkload *
load_doc (FfmJsonDoc *doc, const FfmParamValues *params, GError **error)
{
  Loader L = { 0 };
  JsonNode *root = ffm_json_doc_get_root (doc);
  JsonNode *einsums;
  gboolean ok;

  L.doc = doc;
  L.user = params;
  L.error = error;
  L.w = ffm_workload_new_empty ("?", ffm_json_doc_get_name (doc));
  L.strings = g_ptr_array_new_with_free_func (g_free);
  L.rank_decls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, rank_decl_free);
  L.tensor_decls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, tensor_decl_free);
  L.raw = g_ptr_array_new_with_free_func (raw_einsum_free);
  L.seen_tensors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  einsums = ffm_json_get_member (root, "einsums");
  ok = read_header (&L, root) && read_parameters_and_lets (&L, root)
       && read_checks (&L, root)
       && read_ranks (&L, ffm_json_get_member (root, "ranks"), "$.ranks")
       && read_tensor_decls (&L, root)
       && (einsums != NULL || fail (&L, root, "$", "missing \"einsums\" (the list of "
                                    "Einsums)"))
       && expand_list (&L, einsums, "$.einsums")
       && build (&L, root, einsums);

  g_hash_table_unref (L.seen_tensors);
  g_ptr_array_unref (L.raw);
  g_hash_table_unref (L.tensor_decls);
  g_hash_table_unref (L.rank_decls);
  ffm_params_reader_free (L.params);
  g_ptr_array_unref (L.strings);
  g_free (L.last_unknown);
  g_free (L.owner);
  if (!ok)
    {
      ffm_workload_unref (L.w);
      return NULL;
    }
  return L.w;
}

FfmWorkload *
ffm_workload_load_from_data (const char *json_text, const char *display_name,
                             const FfmParamValues *params, GError **error)
{
  g_autoptr (FfmJsonDoc) doc = NULL;

  g_return_val_if_fail (json_text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  doc = ffm_json_doc_load_data (json_text, display_name, FFM_WORKLOAD_ERROR,
                                FFM_WORKLOAD_ERROR_PARSE, error);
  if (doc == NULL)
    return NULL;
  return load_doc (doc, params, error);
}

/* Finds NAME.json in the workload folders. */
static char *
find_by_name (const char *name, GError **error)
{
  g_auto (GStrv) dirs = ffm_workload_search_dirs ();
  g_auto (GStrv) available = NULL;
  g_autofree char *file = g_strdup_printf ("%s.json", name);
  g_autofree char *looked = NULL;
  g_autofree char *names = NULL;

  for (guint d = 0; dirs[d] != NULL; d++)
    {
      char *path = g_build_filename (dirs[d], file, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return path;
      g_free (path);
    }
  available = ffm_workload_list_available ();
  looked = g_strjoinv (", ", dirs);
  names = g_strjoinv (", ", available);
  g_set_error (error, FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_NOT_FOUND,
               "no workload named '%s' (looked for %s in: %s; available: %s)", name,
               file, looked[0] ? looked : "no folders",
               names[0] ? names : "none");
  return NULL;
}

FfmWorkload *
ffm_workload_load (const char *name_or_path, const FfmParamValues *params,
                   GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr (FfmJsonDoc) doc = NULL;

  g_return_val_if_fail (name_or_path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (strchr (name_or_path, '/') != NULL || g_str_has_suffix (name_or_path, ".json"))
    {
      if (!g_file_test (name_or_path, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_NOT_FOUND,
                       "%s: no such file", name_or_path);
          return NULL;
        }
      path = g_strdup (name_or_path);
    }
  else if ((path = find_by_name (name_or_path, error)) == NULL)
    return NULL;
  doc = ffm_json_doc_load_file (path, FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_PARSE, error);
  if (doc == NULL)
    return NULL;
  return load_doc (doc, params, error);
}
