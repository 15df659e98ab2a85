/* ffm-timeloop-yaml.c: Timeloop's YAML files, read with libyaml into a tree
 * of nodes that remember their file, line and tag, merged as Timeloop
 * merges the files of its command line (see ffm-timeloop-private.h).
 *
 * libyaml's document API resolves aliases into references to one node;
 * the tree copies a referenced subtree at every use, so the node budget
 * (FFM_TIMELOOP_MAX_NODES) also bounds what aliases expand to, and the
 * depth limit bounds the recursion.
 *
 * A folder names a design as the exercises of Timeloop's tutorials lay
 * them out (their top.yaml.jinja2 includes the same files): DIR/arch.yaml,
 * DIR/problem.yaml or else _include/default_problem.yaml, _include/
 * mapper.yaml, every _components/NAME.yaml, the _include and _components
 * folders looked up in DIR and then beside it; DIR/mapping.yaml holds
 * mapping constraints there (extra_mapping_constraints). A folder without
 * arch.yaml stands for its .yaml files (a components folder). Jinja
 * templates are not rendered: a file using them is an error that says so. */
#include "ffm-timeloop-private.h"
#include "ffm-bounded-read.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <yaml.h>

typedef struct {
  FfmTlWarnKind kind;
  char *text;
} Warning;

struct _FfmTimeloopSpec {
  GPtrArray *nodes;         /* every node (owned) */
  GPtrArray *files;         /* file names (owned), the nodes point into them */
  char *files_text;         /* files joined with ", " */
  GPtrArray *keys;          /* merged top level: key nodes (not owned) */
  GPtrArray *values;        /* their values (not owned) */
  GPtrArray *class_roots;   /* values of `components` and
                               `compound_components`, every file's */
  GPtrArray *class_texts;   /* file, text, file, text, ... (owned) of the
                               files that define classes: what the
                               component estimators read */
  GArray *warnings;         /* of Warning (texts owned) */
  FfmTimeloopConventions conventions;
  FfmTimeloopEstimator estimator;
  gpointer estimator_data;
};

/* The component class keys: their values add up over the files. */
static const char *const class_keys[] = { "components", "compound_components", NULL };

static const struct {
  gboolean changes_numbers;
  const char *summary;      /* "N <summary>" */
} warn_kinds[FFM_TL_WARN_N_KINDS] = {
  [FFM_TL_WARN_NETWORK] = { TRUE, "network energies not modelled" },
  [FFM_TL_WARN_SLIDING_WINDOW] = { TRUE, "sliding-window overlaps refilled" },
  [FFM_TL_WARN_NOT_MODELLED] = { TRUE, "attributes of Timeloop's model ffm does not follow" },
  [FFM_TL_WARN_CONSTRAINT] = { TRUE, "mapspace constraints not translated" },
  [FFM_TL_WARN_ESTIMATED] = { TRUE, "energies estimated, not from an ERT" },
  [FFM_TL_WARN_UNKNOWN_ATTRIBUTE] = { FALSE, "unknown attributes ignored" },
  [FFM_TL_WARN_INSTANCE_KEY] = { FALSE, "instance keys that are no dimension or coefficient ignored" },
  [FFM_TL_WARN_DENSITY] = { FALSE, "densities ignored (dense tensors)" },
  [FFM_TL_WARN_DEFAULT] = { FALSE, "Timeloop defaults taken" },
  [FFM_TL_WARN_MERGE] = { FALSE, "top-level keys given twice (the later one used)" },
  [FFM_TL_WARN_ERT] = { FALSE, "actions with several ERT energies (the largest used, as Timeloop does)" },
  [FFM_TL_WARN_MAPPER] = { FALSE, "mapper settings not followed (ffm searches its own way)" },
  [FFM_TL_WARN_DEPRECATED] = { FALSE, "deprecated Timeloop keys" },
};

static void
node_free (gpointer data)
{
  FfmTlNode *node = data;

  g_free (node->text);
  g_free (node->tag);
  g_free (node->items);
  g_free (node);
}

static void
warning_clear (gpointer data)
{
  g_free (((Warning *) data)->text);
}

static FfmTimeloopSpec *
spec_new (void)
{
  FfmTimeloopSpec *spec = g_new0 (FfmTimeloopSpec, 1);

  spec->nodes = g_ptr_array_new_with_free_func (node_free);
  spec->files = g_ptr_array_new_with_free_func (g_free);
  spec->keys = g_ptr_array_new ();
  spec->values = g_ptr_array_new ();
  spec->class_roots = g_ptr_array_new ();
  spec->class_texts = g_ptr_array_new_with_free_func (g_free);
  spec->warnings = g_array_new (FALSE, TRUE, sizeof (Warning));
  g_array_set_clear_func (spec->warnings, warning_clear);
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
  g_ptr_array_unref (spec->class_roots);
  g_ptr_array_unref (spec->class_texts);
  g_array_unref (spec->warnings);
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
ffm_tl_warn (FfmTimeloopSpec *spec, FfmTlWarnKind kind, const FfmTlNode *node,
             const char *path, const char *format, ...)
{
  Warning w = { kind, NULL };
  va_list args;

  va_start (args, format);
  w.text = located_message (node, path, format, args);
  va_end (args);
  /* One warning per text: a component's attribute reached twice says one
   * thing. */
  for (guint i = 0; i < spec->warnings->len; i++)
    if (strcmp (g_array_index (spec->warnings, Warning, i).text, w.text) == 0)
      {
        g_free (w.text);
        return;
      }
  g_array_append_val (spec->warnings, w);
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
  return ffm_timeloop_spec_steal_warnings_grouped (spec, TRUE);
}

GStrv
ffm_timeloop_spec_steal_warnings_grouped (FfmTimeloopSpec *spec, gboolean all)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (spec != NULL, NULL);
  /* What changes a number first, in full. */
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < spec->warnings->len; i++)
      {
        const Warning *w = &g_array_index (spec->warnings, Warning, i);
        if (warn_kinds[w->kind].changes_numbers == (pass == 0)
            && (all || pass == 0))
          g_strv_builder_add (builder, w->text);
      }
  /* The rest, one line per kind. */
  for (guint k = 0; !all && k < FFM_TL_WARN_N_KINDS; k++)
    {
      const Warning *first = NULL;
      guint n = 0;
      if (warn_kinds[k].changes_numbers)
        continue;
      for (guint i = 0; i < spec->warnings->len; i++)
        if (g_array_index (spec->warnings, Warning, i).kind == k)
          {
            if (first == NULL)
              first = &g_array_index (spec->warnings, Warning, i);
            n++;
          }
      if (n == 1)
        g_strv_builder_add (builder, first->text);
      else if (n > 1)
        {
          g_autofree char *line =
            g_strdup_printf ("%u %s, the first: %s (--verbose lists all)", n,
                             warn_kinds[k].summary, first->text);
          g_strv_builder_add (builder, line);
        }
    }
  g_array_set_size (spec->warnings, 0);
  return g_strv_builder_end (builder);
}

const char *const *
ffm_timeloop_convention_names (void)
{
  static const char *const names[] = {
    "blocks", "whole-blocks", "clusters", "leak", "operand-reuse", NULL
  };
  return names;
}

gboolean
ffm_timeloop_conventions_parse (const char *text, FfmTimeloopConventions *out,
                                GError **error)
{
  const char *const *names = ffm_timeloop_convention_names ();
  g_auto (GStrv) words = NULL;

  g_return_val_if_fail (text != NULL && out != NULL, FALSE);
  *out = FFM_TIMELOOP_CONVENTIONS_TIMELOOP;
  words = g_strsplit (text, ",", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      const char *w = g_strstrip (words[i]);
      guint k;
      if (w[0] == '\0' || strcmp (w, "none") == 0)
        continue;
      if (strcmp (w, "all") == 0)
        {
          *out = FFM_TIMELOOP_CONVENTIONS_FFM;
          continue;
        }
      for (k = 0; names[k] != NULL && strcmp (names[k], w) != 0; k++)
        ;
      if (names[k] == NULL)
        {
          g_autofree char *list = g_strjoinv (", ", (char **) names);
          g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_INVALID,
                       "unknown convention '%s' (expected all, none or some of: %s)",
                       w, list);
          return FALSE;
        }
      *out |= 1 << k;
    }
  return TRUE;
}

void
ffm_timeloop_spec_set_conventions (FfmTimeloopSpec *spec,
                                   FfmTimeloopConventions conventions)
{
  g_return_if_fail (spec != NULL);
  spec->conventions = conventions;
}

FfmTimeloopConventions
ffm_tl_spec_get_conventions (const FfmTimeloopSpec *spec)
{
  return spec->conventions;
}

void
ffm_timeloop_spec_set_estimator (FfmTimeloopSpec *spec,
                                 FfmTimeloopEstimator estimator,
                                 gpointer user_data)
{
  g_return_if_fail (spec != NULL);
  spec->estimator = estimator;
  spec->estimator_data = user_data;
}

FfmTimeloopEstimator
ffm_tl_spec_get_estimator (const FfmTimeloopSpec *spec, gpointer *user_data)
{
  *user_data = spec->estimator_data;
  return spec->estimator;
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
  /* Local tags (the front end's !Container, !Component, ...) only; the
   * standard ones libyaml resolves say nothing more than the kind. */
  if (yn->tag != NULL && yn->tag[0] == '!')
    node->tag = g_strdup ((const char *) yn->tag);
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

      if (g_strv_contains (class_keys, key->text))
        g_ptr_array_add (spec->class_roots, value);
      for (j = 0; j < spec->keys->len; j++)
        if (strcmp (((FfmTlNode *) spec->keys->pdata[j])->text, key->text) == 0)
          break;
      if (j < spec->keys->len)
        {
          const FfmTlNode *old = spec->keys->pdata[j];
          if (!g_strv_contains (class_keys, key->text))
            ffm_tl_warn (spec, FFM_TL_WARN_MERGE, key, key->text, "also given "
                         "in %s:%u; the later one is used, as Timeloop does",
                         old->file, old->line);
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

/* The first line of @text that uses Jinja's template syntax ({{ }}, {% %})
 * outside a comment, or 0. */
static guint
jinja_line (const char *text, gsize length)
{
  guint line = 1;
  gboolean comment = FALSE;

  for (gsize i = 0; i < length; i++)
    {
      char c = text[i];
      if (c == '\n')
        {
          line++;
          comment = FALSE;
          continue;
        }
      if (c == '#' && (i == 0 || g_ascii_isspace (text[i - 1])))
        comment = TRUE;
      if (!comment && c == '{' && i + 1 < length
          && (text[i + 1] == '{' || text[i + 1] == '%'))
        return line;
    }
  return 0;
}

/* Reads one YAML text into the specification. With @as_constraints (a
 * design folder's mapping.yaml), its `mapping` is the mapspace
 * constraints the exercises' template makes of it. */
static gboolean
load_text (FfmTimeloopSpec *spec, const char *text, gsize length,
           const char *file, gboolean as_constraints, GError **error)
{
  yaml_parser_t parser;
  yaml_document_t doc, extra;
  yaml_node_t *top;
  Reader r;
  FfmTlNode *root;
  gboolean ok = FALSE, more;
  guint jinja;

  g_ptr_array_add (spec->files, g_strdup (file));
  r.spec = spec;
  r.file = spec->files->pdata[spec->files->len - 1];
  r.doc = &doc;
  if ((jinja = jinja_line (text, length)) > 0)
    {
      g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                   "%s:%u: a Jinja template ('{{' or '{%%'): ffm reads YAML, "
                   "it does not render Jinja; render the file first (Timeloop's "
                   "front end writes the result as parsed-processed-input.yaml "
                   "next to its outputs) or give plain values", r.file, jinja);
      return FALSE;
    }
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
  if (ok && as_constraints)
    for (guint i = 0; i < root->n_items; i++)
      if (strcmp (root->items[2 * i]->text, "mapping") == 0)
        {
          g_free (root->items[2 * i]->text);
          root->items[2 * i]->text = g_strdup ("extra_mapping_constraints");
        }
  if (ok)
    {
      guint n_roots = spec->class_roots->len;
      merge_root (spec, root);
      if (spec->class_roots->len > n_roots)
        {
          g_ptr_array_add (spec->class_texts, g_strdup (r.file));
          g_ptr_array_add (spec->class_texts, g_strndup (text, length));
        }
    }
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
load_file (FfmTimeloopSpec *spec, const char *path, gboolean as_constraints,
           GError **error)
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
  return load_text (spec, text, length, path, as_constraints, error);
}

static int
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The YAML files in folder @dir, sorted (transfer full: NULL when it
 * cannot be read, *@error set). */
static GPtrArray *
yaml_files_in (const char *dir, GError **error)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = NULL;
  GError *local = NULL;
  const char *name;

  d = g_dir_open (dir, 0, &local);
  if (d == NULL)
    {
      g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_PARSE, "%s",
                   local->message);
      g_error_free (local);
      return NULL;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    if ((g_str_has_suffix (name, ".yaml") || g_str_has_suffix (name, ".yml"))
        && name[0] != '.')
      {
        char *path = g_build_filename (dir, name, NULL);
        if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
          {
            if (files->len >= FFM_TIMELOOP_MAX_FILES)
              {
                g_free (path);
                g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_PARSE,
                             "%s: more than %d YAML files", dir,
                             FFM_TIMELOOP_MAX_FILES);
                return NULL;
              }
            g_ptr_array_add (files, path);
          }
        else
          g_free (path);
      }
  g_ptr_array_sort (files, compare_paths);
  return g_steal_pointer (&files);
}

/* FOLDER/SUB when it exists, else FOLDER/../SUB when that does, else NULL
 * (transfer full). */
static char *
find_beside (const char *dir, const char *sub, GFileTest test)
{
  g_autofree char *here = g_build_filename (dir, sub, NULL);
  g_autofree char *name = NULL, *parent = NULL, *beside = NULL;
  gsize n = strlen (dir);

  if (g_file_test (here, test))
    return g_steal_pointer (&here);
  /* "design/", ".", "..": the parent by name where it has one, else by
   * "DIR/.." */
  while (n > 1 && G_IS_DIR_SEPARATOR (dir[n - 1]))
    n--;
  name = g_strndup (dir, n);
  {
    g_autofree char *base = g_path_get_basename (name);
    if (strcmp (base, ".") == 0 || strcmp (base, "..") == 0)
      beside = g_build_filename (name, "..", sub, NULL);
    else
      {
        parent = g_path_get_dirname (name);
        if (strcmp (parent, name) == 0)
          return NULL;          /* the root has no parent */
        beside = strcmp (parent, ".") == 0 ? g_strdup (sub)
                 : g_build_filename (parent, sub, NULL);
      }
  }
  if (g_file_test (beside, test))
    return g_steal_pointer (&beside);
  return NULL;
}

/* A folder: a design (arch.yaml and what the exercises' template
 * includes with it), or a folder of YAML files (components). */
static gboolean
load_folder (FfmTimeloopSpec *spec, const char *dir, GError **error)
{
  g_autofree char *arch = g_build_filename (dir, "arch.yaml", NULL);
  g_autofree char *problem = g_build_filename (dir, "problem.yaml", NULL);
  g_autofree char *mapping = g_build_filename (dir, "mapping.yaml", NULL);
  g_autofree char *components = NULL, *mapper = NULL;
  g_autoptr (GPtrArray) files = NULL;

  if (!g_file_test (arch, G_FILE_TEST_IS_REGULAR))
    {
      files = yaml_files_in (dir, error);
      if (files == NULL)
        return FALSE;
      if (files->len == 0)
        {
          g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_MISSING,
                       "%s: a folder with neither arch.yaml (a design folder) "
                       "nor YAML files (e.g. compound components)", dir);
          return FALSE;
        }
      for (guint i = 0; i < files->len; i++)
        if (!load_file (spec, files->pdata[i], FALSE, error))
          return FALSE;
      return TRUE;
    }
  /* The order of the exercises' top.yaml.jinja2: problem, mapping
   * constraints, architecture, components, mapper. */
  if (!g_file_test (problem, G_FILE_TEST_IS_REGULAR))
    {
      g_free (problem);
      problem = find_beside (dir, "_include/default_problem.yaml",
                             G_FILE_TEST_IS_REGULAR);
    }
  if (problem != NULL && !load_file (spec, problem, FALSE, error))
    return FALSE;
  if (g_file_test (mapping, G_FILE_TEST_IS_REGULAR)
      && !load_file (spec, mapping, TRUE, error))
    return FALSE;
  if (!load_file (spec, arch, FALSE, error))
    return FALSE;
  components = find_beside (dir, "_components", G_FILE_TEST_IS_DIR);
  if (components != NULL)
    {
      files = yaml_files_in (components, error);
      if (files == NULL)
        return FALSE;
      for (guint i = 0; i < files->len; i++)
        if (!load_file (spec, files->pdata[i], FALSE, error))
          return FALSE;
    }
  mapper = find_beside (dir, "_include/mapper.yaml", G_FILE_TEST_IS_REGULAR);
  return mapper == NULL || load_file (spec, mapper, FALSE, error);
}

static gboolean
load_path (FfmTimeloopSpec *spec, const char *path, GError **error)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    return load_folder (spec, path, error);
  return load_file (spec, path, FALSE, error);
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
    if (!load_path (spec, paths[i], error))
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
  if (!load_text (spec, text, strlen (text), display_name, FALSE, error))
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

const GPtrArray *
ffm_tl_spec_get_class_roots (const FfmTimeloopSpec *spec)
{
  return spec->class_roots;
}

const GPtrArray *
ffm_tl_spec_get_class_texts (const FfmTimeloopSpec *spec)
{
  return spec->class_texts;
}

char *
ffm_timeloop_list_absolute (const char *list)
{
  g_auto (GStrv) paths = NULL;
  g_autofree char *cwd = g_get_current_dir ();
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (list != NULL, NULL);
  paths = g_strsplit (list, ",", -1);
  for (guint i = 0; paths[i] != NULL; i++)
    {
      g_autofree char *abs = paths[i][0] == '\0' ? g_strdup ("")
                             : g_canonicalize_filename (paths[i], cwd);
      g_string_append_printf (s, "%s%s", i > 0 ? "," : "", abs);
    }
  return g_string_free (s, FALSE);
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

gboolean
ffm_tl_key_equal (const char *a, const char *b)
{
  for (; *a != '\0' && *b != '\0'; a++, b++)
    if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
      return FALSE;
  return *a == *b;
}

char *
ffm_tl_key_normalize (const char *name)
{
  char *s = g_strdup (name);

  g_strdelimit (s, "-", '_');
  return s;
}

FfmTlNode *
ffm_tl_get_key (const FfmTlNode *node, const char *key)
{
  if (node == NULL || node->kind != FFM_TL_MAPPING)
    return NULL;
  for (guint i = 0; i < node->n_items; i++)
    if (ffm_tl_key_equal (node->items[2 * i]->text, key))
      return node->items[2 * i];
  return NULL;
}

FfmTlNode *
ffm_tl_get (const FfmTlNode *node, const char *key)
{
  if (node == NULL || node->kind != FFM_TL_MAPPING)
    return NULL;
  for (guint i = 0; i < node->n_items; i++)
    if (ffm_tl_key_equal (node->items[2 * i]->text, key))
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
      gboolean found = FALSE;
      for (guint k = 0; known[k] != NULL && !found; k++)
        found = ffm_tl_key_equal (known[k], key->text);
      if (!found)
        {
          g_autofree char *list = g_strjoinv (", ", (char **) known);
          g_autofree char *sub = ffm_tl_path_key (path, key->text);
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, key, sub,
                              "unknown key '%s' (expected one of: %s)",
                              key->text, list);
        }
    }
  /* Two keys that Timeloop reads as one ('-' and '_' alike). */
  for (guint i = 0; i < node->n_items; i++)
    for (guint j = 0; j < i; j++)
      if (ffm_tl_key_equal (node->items[2 * i]->text, node->items[2 * j]->text))
        {
          g_autofree char *sub = ffm_tl_path_key (path, node->items[2 * i]->text);
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node->items[2 * i],
                              sub, "'%s' and '%s' (line %u) are one key to "
                              "Timeloop ('-' and '_' alike): give it once",
                              node->items[2 * i]->text, node->items[2 * j]->text,
                              node->items[2 * j]->line);
        }
  return TRUE;
}

gboolean
ffm_tl_check_version (const FfmTlNode *section, const char *path,
                      GError **error)
{
  const FfmTlNode *v = ffm_tl_get (section, "version");
  g_autofree char *sub = ffm_tl_path_key (path, "version");

  if (v == NULL)
    return TRUE;
  if (v->kind == FFM_TL_SCALAR
      && (strcmp (v->text, "0.4") == 0 || strcmp (v->text, "0.3") == 0))
    return TRUE;
  return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, v, sub,
                      "version %s: ffm reads Timeloop's versions 0.3 and 0.4",
                      v->kind == FFM_TL_SCALAR ? v->text : ffm_tl_kind_name (v->kind));
}

const char *
ffm_tl_string_or_empty (const FfmTlNode *node, const char *path,
                        GError **error)
{
  if (!ffm_tl_require (node, FFM_TL_SCALAR, path, error))
    return NULL;
  return node->text;
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
  /* An integer as written that a double cannot hold exactly (as JSON
   * files refuse them): 2^53 + 1 reads as 2^53. */
  {
    const char *digits = text + (text[0] == '-' || text[0] == '+');
    if (digits[0] != '\0' && strspn (digits, "0123456789") == strlen (digits))
      {
        guint64 magnitude;
        errno = 0;
        magnitude = g_ascii_strtoull (digits, NULL, 10);
        if (errno == ERANGE || magnitude > (guint64) FFM_MAX_EXACT_INTEGER)
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                              "%s is beyond 2^53, the largest integer ffm holds "
                              "exactly", text);
      }
  }
  return TRUE;
}

gboolean
ffm_tl_count (const FfmTlNode *node, const char *path, guint64 min,
              guint64 *out, GError **error)
{
  double value;

  if (!ffm_tl_number (node, path, &value, error))
    return FALSE;
  if (!(value >= (double) min && value <= FFM_MAX_EXACT_INTEGER
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
