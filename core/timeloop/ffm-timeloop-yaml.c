/* ffm-timeloop-yaml.c: Timeloop's YAML files, read with libyaml into a tree
 * of nodes that remember their file and line, merged as Timeloop merges
 * the files of its command line (see ffm-timeloop-private.h).
 *
 * libyaml's document API resolves aliases into references to one node;
 * the tree copies a referenced subtree at every use, so the node budget
 * (FFM_TIMELOOP_MAX_NODES) also bounds what aliases expand to, and the
 * depth limit bounds the recursion. */
#include "ffm-timeloop-private.h"
#include "ffm-bounded-read.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <yaml.h>

struct _FfmTimeloopSpec {
  GPtrArray *nodes;         /* every node (owned) */
  GPtrArray *files;         /* file names (owned), the nodes point into them */
  char *files_text;         /* files joined with ", " */
  GPtrArray *keys;          /* merged top level: key nodes (not owned) */
  GPtrArray *values;        /* their values (not owned) */
  GPtrArray *warnings;      /* of char * (owned) */
};

static void
node_free (gpointer data)
{
  FfmTlNode *node = data;

  g_free (node->text);
  g_free (node->items);
  g_free (node);
}

static FfmTimeloopSpec *
spec_new (void)
{
  FfmTimeloopSpec *spec = g_new0 (FfmTimeloopSpec, 1);

  spec->nodes = g_ptr_array_new_with_free_func (node_free);
  spec->files = g_ptr_array_new_with_free_func (g_free);
  spec->keys = g_ptr_array_new ();
  spec->values = g_ptr_array_new ();
  spec->warnings = g_ptr_array_new_with_free_func (g_free);
  return spec;
}

void
ffm_timeloop_spec_free (FfmTimeloopSpec *spec)
{
  if (spec == NULL)
    return;
  g_ptr_array_unref (spec->nodes);
  g_ptr_array_unref (spec->files);
  g_free (spec->files_text);
  g_ptr_array_unref (spec->keys);
  g_ptr_array_unref (spec->values);
  g_ptr_array_unref (spec->warnings);
  g_free (spec);
}

/* ---- Messages ---- */

/* "FILE:LINE: PATH: message" (transfer full). */
static char *
located_message (const FfmTlNode *node, const char *path, const char *format,
                 va_list args) G_GNUC_PRINTF (3, 0);

static char *
located_message (const FfmTlNode *node, const char *path, const char *format,
                 va_list args)
{
  GString *s = g_string_new (NULL);

  if (node != NULL)
    g_string_append_printf (s, "%s:%u: ", node->file, node->line);
  if (path != NULL)
    g_string_append_printf (s, "%s: ", path);
  g_string_append_vprintf (s, format, args);
  return g_string_free (s, FALSE);
}

void
ffm_tl_warn (FfmTimeloopSpec *spec, const FfmTlNode *node, const char *path,
             const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (spec->warnings, located_message (node, path, format, args));
  va_end (args);
}

gboolean
ffm_tl_fail (GError **error, int code, const FfmTlNode *node,
             const char *path, const char *format, ...)
{
  char *message;
  va_list args;

  va_start (args, format);
  message = located_message (node, path, format, args);
  va_end (args);
  g_set_error_literal (error, FFM_TIMELOOP_ERROR, code, message);
  g_free (message);
  return FALSE;
}

GStrv
ffm_timeloop_spec_steal_warnings (FfmTimeloopSpec *spec)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (spec != NULL, NULL);
  for (guint i = 0; i < spec->warnings->len; i++)
    g_strv_builder_add (builder, spec->warnings->pdata[i]);
  g_ptr_array_set_size (spec->warnings, 0);
  return g_strv_builder_end (builder);
}

/* ---- Reading YAML ---- */

typedef struct {
  FfmTimeloopSpec *spec;
  const char *file;         /* owned by spec->files */
  yaml_document_t *doc;
} Reader;

static FfmTlNode *
new_node (Reader *r, FfmTlKind kind, const yaml_node_t *yn)
{
  FfmTlNode *node = g_new0 (FfmTlNode, 1);

  node->kind = kind;
  node->file = r->file;
  node->line = (guint) yn->start_mark.line + 1;
  g_ptr_array_add (r->spec->nodes, node);
  return node;
}

static FfmTlNode *
convert (Reader *r, yaml_node_t *yn, guint depth, GError **error)
{
  FfmTlNode *node;

  if (depth > FFM_TIMELOOP_MAX_DEPTH)
    {
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, NULL, NULL,
                   "%s:%zu: YAML nested more than %d levels deep", r->file,
                   yn->start_mark.line + 1, FFM_TIMELOOP_MAX_DEPTH);
      return NULL;
    }
  if (r->spec->nodes->len >= FFM_TIMELOOP_MAX_NODES)
    {
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, NULL, NULL,
                   "%s:%zu: more than %d YAML nodes (aliases count at every "
                   "use)", r->file, yn->start_mark.line + 1,
                   FFM_TIMELOOP_MAX_NODES);
      return NULL;
    }
  switch (yn->type)
    {
    case YAML_SCALAR_NODE:
      node = new_node (r, FFM_TL_SCALAR, yn);
      node->text = g_strndup ((const char *) yn->data.scalar.value,
                              yn->data.scalar.length);
      node->quoted = yn->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE
                     || yn->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
      return node;
    case YAML_SEQUENCE_NODE:
      {
        yaml_node_item_t *first = yn->data.sequence.items.start;
        guint n = (guint) (yn->data.sequence.items.top - first);
        node = new_node (r, FFM_TL_SEQUENCE, yn);
        node->n_items = n;
        node->items = g_new0 (FfmTlNode *, MAX (n, 1));
        for (guint i = 0; i < n; i++)
          {
            yaml_node_t *item = yaml_document_get_node (r->doc, first[i]);
            if ((node->items[i] = convert (r, item, depth + 1, error)) == NULL)
              return NULL;
          }
        return node;
      }
    case YAML_MAPPING_NODE:
      {
        yaml_node_pair_t *first = yn->data.mapping.pairs.start;
        guint n = (guint) (yn->data.mapping.pairs.top - first);
        node = new_node (r, FFM_TL_MAPPING, yn);
        node->n_items = n;
        node->items = g_new0 (FfmTlNode *, MAX (2 * n, 1));
        for (guint i = 0; i < n; i++)
          {
            yaml_node_t *key = yaml_document_get_node (r->doc, first[i].key);
            yaml_node_t *value = yaml_document_get_node (r->doc, first[i].value);
            FfmTlNode *k = convert (r, key, depth + 1, error);
            if (k == NULL)
              return NULL;
            if (k->kind != FFM_TL_SCALAR)
              {
                ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, k, NULL,
                             "a key must be a plain name, not a %s",
                             ffm_tl_kind_name (k->kind));
                return NULL;
              }
            for (guint j = 0; j < i; j++)
              if (strcmp (node->items[2 * j]->text, k->text) == 0)
                {
                  ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, k, NULL,
                               "key '%s' appears twice in one mapping (also "
                               "line %u)", k->text, node->items[2 * j]->line);
                  return NULL;
                }
            node->items[2 * i] = k;
            if ((node->items[2 * i + 1] = convert (r, value, depth + 1, error)) == NULL)
              return NULL;
          }
        return node;
      }
    case YAML_NO_NODE:
    default:
      node = new_node (r, FFM_TL_SCALAR, yn);
      node->text = g_strdup ("");
      return node;
    }
}

static gboolean
parse_failed (const yaml_parser_t *parser, const char *file, GError **error)
{
  const char *problem = parser->problem != NULL ? parser->problem : "cannot be read";

  if (parser->context != NULL)
    g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_PARSE,
                 "%s:%zu:%zu: YAML syntax error: %s (%s, line %zu)", file,
                 parser->problem_mark.line + 1, parser->problem_mark.column + 1,
                 problem, parser->context, parser->context_mark.line + 1);
  else
    g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_PARSE,
                 "%s:%zu:%zu: YAML syntax error: %s", file,
                 parser->problem_mark.line + 1, parser->problem_mark.column + 1,
                 problem);
  return FALSE;
}

/* Adds the top-level keys of @root; a key seen in an earlier file is
 * replaced (Timeloop keeps the last), with a warning. */
static void
merge_root (FfmTimeloopSpec *spec, FfmTlNode *root)
{
  for (guint i = 0; i < root->n_items; i++)
    {
      FfmTlNode *key = root->items[2 * i], *value = root->items[2 * i + 1];
      guint j;

      for (j = 0; j < spec->keys->len; j++)
        if (strcmp (((FfmTlNode *) spec->keys->pdata[j])->text, key->text) == 0)
          break;
      if (j < spec->keys->len)
        {
          const FfmTlNode *old = spec->keys->pdata[j];
          ffm_tl_warn (spec, key, key->text, "also given in %s:%u; the later "
                       "one is used, as Timeloop does", old->file, old->line);
          spec->keys->pdata[j] = key;
          spec->values->pdata[j] = value;
        }
      else
        {
          g_ptr_array_add (spec->keys, key);
          g_ptr_array_add (spec->values, value);
        }
    }
}

static gboolean
load_text (FfmTimeloopSpec *spec, const char *text, gsize length,
           const char *file, GError **error)
{
  yaml_parser_t parser;
  yaml_document_t doc, extra;
  yaml_node_t *top;
  Reader r;
  FfmTlNode *root;
  gboolean ok = FALSE, more;

  g_ptr_array_add (spec->files, g_strdup (file));
  r.spec = spec;
  r.file = spec->files->pdata[spec->files->len - 1];
  r.doc = &doc;
  if (!yaml_parser_initialize (&parser))
    {
      g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_PARSE,
                   "%s: cannot start the YAML parser", file);
      return FALSE;
    }
  yaml_parser_set_input_string (&parser, (const unsigned char *) text, length);
  if (!yaml_parser_load (&parser, &doc))
    {
      parse_failed (&parser, r.file, error);
      yaml_parser_delete (&parser);
      return FALSE;
    }
  top = yaml_document_get_root_node (&doc);
  if (top == NULL)
    g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_INVALID,
                 "%s: no YAML document (the file is empty)", r.file);
  else if ((root = convert (&r, top, 0, error)) != NULL)
    {
      if (root->kind != FFM_TL_MAPPING)
        ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, root, NULL,
                     "expected a mapping of top-level keys (architecture, "
                     "problem, mapping, ERT, ...), got a %s",
                     ffm_tl_kind_name (root->kind));
      else
        ok = TRUE;
    }
  yaml_document_delete (&doc);
  if (ok)
    {
      /* Timeloop reads one document per file: a second one is a mistake. */
      if (!yaml_parser_load (&parser, &extra))
        ok = parse_failed (&parser, r.file, error);
      else
        {
          more = yaml_document_get_root_node (&extra) != NULL;
          if (more)
            ok = ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, NULL, NULL,
                              "%s:%zu: a second YAML document ('---'): give "
                              "each part in its own file", r.file,
                              extra.start_mark.line + 1);
          yaml_document_delete (&extra);
        }
    }
  yaml_parser_delete (&parser);
  if (ok)
    merge_root (spec, root);
  return ok;
}

static void
set_files_text (FfmTimeloopSpec *spec)
{
  g_ptr_array_add (spec->files, NULL);
  spec->files_text = g_strjoinv (", ", (char **) spec->files->pdata);
  g_ptr_array_remove_index (spec->files, spec->files->len - 1);
}

static gboolean
load_file (FfmTimeloopSpec *spec, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  GStatBuf st;
  gsize length = 0;

  if (g_stat (path, &st) != 0)
    {
      g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_PARSE,
                   "%s: %s", path, g_strerror (errno));
      return FALSE;
    }
  text = ffm_read_file_bounded (path, FFM_TIMELOOP_MAX_FILE_BYTES, &length,
                                NULL, FFM_TIMELOOP_ERROR,
                                FFM_TIMELOOP_ERROR_PARSE, error);
  if (text == NULL)
    return FALSE;
  return load_text (spec, text, length, path, error);
}

FfmTimeloopSpec *
ffm_timeloop_spec_load (const char *const *paths, GError **error)
{
  g_autoptr (FfmTimeloopSpec) spec = NULL;

  g_return_val_if_fail (paths != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (paths[0] == NULL)
    {
      g_set_error_literal (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_MISSING,
                           "no Timeloop file given");
      return NULL;
    }
  spec = spec_new ();
  for (guint i = 0; paths[i] != NULL; i++)
    if (!load_file (spec, paths[i], error))
      return NULL;
  set_files_text (spec);
  return g_steal_pointer (&spec);
}

FfmTimeloopSpec *
ffm_timeloop_spec_load_list (const char *list, GError **error)
{
  g_auto (GStrv) paths = NULL;

  g_return_val_if_fail (list != NULL, NULL);
  paths = g_strsplit (list, ",", -1);
  /* "" splits into no name at all, "a,,b" into an empty one */
  for (guint i = 0; i == 0 || paths[i] != NULL; i++)
    if (paths[i] == NULL || paths[i][0] == '\0')
      {
        g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_MISSING,
                     "timeloop:%s: an empty file name in the list (write "
                     "timeloop:FILE.yaml,FILE.yaml)", list);
        return NULL;
      }
  return ffm_timeloop_spec_load ((const char *const *) paths, error);
}

FfmTimeloopSpec *
ffm_timeloop_spec_load_data (const char *text, const char *display_name,
                             GError **error)
{
  g_autoptr (FfmTimeloopSpec) spec = spec_new ();

  g_return_val_if_fail (text != NULL && display_name != NULL, NULL);
  if (!load_text (spec, text, strlen (text), display_name, error))
    return NULL;
  set_files_text (spec);
  return g_steal_pointer (&spec);
}

/* ---- The merged top level ---- */

FfmTlNode *
ffm_tl_spec_get (const FfmTimeloopSpec *spec, const char *key)
{
  for (guint i = 0; i < spec->keys->len; i++)
    if (strcmp (((FfmTlNode *) spec->keys->pdata[i])->text, key) == 0)
      return spec->values->pdata[i];
  return NULL;
}

FfmTlNode *
ffm_tl_spec_get_key (const FfmTimeloopSpec *spec, const char *key)
{
  for (guint i = 0; i < spec->keys->len; i++)
    if (strcmp (((FfmTlNode *) spec->keys->pdata[i])->text, key) == 0)
      return spec->keys->pdata[i];
  return NULL;
}

gboolean
ffm_timeloop_spec_has (const FfmTimeloopSpec *spec, const char *key)
{
  g_return_val_if_fail (spec != NULL && key != NULL, FALSE);
  return ffm_tl_spec_get (spec, key) != NULL;
}

const char *
ffm_tl_spec_get_files (const FfmTimeloopSpec *spec)
{
  return spec->files_text;
}

/* ---- Reading the tree ---- */

const char *
ffm_tl_kind_name (FfmTlKind kind)
{
  switch (kind)
    {
    case FFM_TL_SCALAR:
      return "single value";
    case FFM_TL_SEQUENCE:
      return "list";
    case FFM_TL_MAPPING:
      return "mapping";
    }
  return "node";
}

FfmTlNode *
ffm_tl_get_key (const FfmTlNode *node, const char *key)
{
  if (node == NULL || node->kind != FFM_TL_MAPPING)
    return NULL;
  for (guint i = 0; i < node->n_items; i++)
    if (strcmp (node->items[2 * i]->text, key) == 0)
      return node->items[2 * i];
  return NULL;
}

FfmTlNode *
ffm_tl_get (const FfmTlNode *node, const char *key)
{
  if (node == NULL || node->kind != FFM_TL_MAPPING)
    return NULL;
  for (guint i = 0; i < node->n_items; i++)
    if (strcmp (node->items[2 * i]->text, key) == 0)
      return node->items[2 * i + 1];
  return NULL;
}

gboolean
ffm_tl_require (const FfmTlNode *node, FfmTlKind kind, const char *path,
                GError **error)
{
  if (node->kind == kind)
    return TRUE;
  return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                      "expected a %s, got a %s", ffm_tl_kind_name (kind),
                      ffm_tl_kind_name (node->kind));
}

gboolean
ffm_tl_check_keys (const FfmTlNode *node, const char *path,
                   const char *const *known, GError **error)
{
  if (!ffm_tl_require (node, FFM_TL_MAPPING, path, error))
    return FALSE;
  for (guint i = 0; i < node->n_items; i++)
    {
      const FfmTlNode *key = node->items[2 * i];
      if (!g_strv_contains (known, key->text))
        {
          g_autofree char *list = g_strjoinv (", ", (char **) known);
          g_autofree char *sub = ffm_tl_path_key (path, key->text);
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, key, sub,
                              "unknown key '%s' (expected one of: %s)",
                              key->text, list);
        }
    }
  return TRUE;
}

const char *
ffm_tl_string (const FfmTlNode *node, const char *path, GError **error)
{
  if (!ffm_tl_require (node, FFM_TL_SCALAR, path, error))
    return NULL;
  if (node->text[0] == '\0')
    {
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                   "expected a value, got nothing");
      return NULL;
    }
  return node->text;
}

gboolean
ffm_tl_number (const FfmTlNode *node, const char *path, double *out,
               GError **error)
{
  const char *text = ffm_tl_string (node, path, error);
  char *end = NULL;

  if (text == NULL)
    return FALSE;
  *out = g_ascii_strtod (text, &end);
  if (node->quoted || end == text || *end != '\0' || !isfinite (*out))
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "expected a number, got '%s'", text);
  return TRUE;
}

gboolean
ffm_tl_count (const FfmTlNode *node, const char *path, guint64 min,
              guint64 *out, GError **error)
{
  double value;

  if (!ffm_tl_number (node, path, &value, error))
    return FALSE;
  if (!(value >= (double) min && value <= 9007199254740992.0
        && value == floor (value)))
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "expected a whole number >= %" G_GUINT64_FORMAT
                        ", got %s", min, node->text);
  *out = (guint64) value;
  return TRUE;
}

gboolean
ffm_tl_bool (const FfmTlNode *node, const char *path, gboolean *out,
             GError **error)
{
  static const char *const yes[] = { "true", "yes", "on", NULL };
  static const char *const no[] = { "false", "no", "off", NULL };
  const char *text = ffm_tl_string (node, path, error);
  g_autofree char *lower = NULL;

  if (text == NULL)
    return FALSE;
  lower = g_ascii_strdown (text, -1);
  if (!node->quoted && g_strv_contains (yes, lower))
    *out = TRUE;
  else if (!node->quoted && g_strv_contains (no, lower))
    *out = FALSE;
  else
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "expected True or False, got '%s'", text);
  return TRUE;
}

char *
ffm_tl_path_key (const char *path, const char *key)
{
  return path != NULL ? g_strdup_printf ("%s.%s", path, key) : g_strdup (key);
}

char *
ffm_tl_path_index (const char *path, guint index)
{
  return g_strdup_printf ("%s[%u]", path, index);
}
