/* ffm-component-library.c: Accelergy's compound component classes, read
 * from YAML and estimated as sums of their subcomponents (see
 * ffm-estimator.h).
 *
 * The format is Accelergy's (version 0.4; 0.3 reads the same):
 *
 *   compound_components:
 *     version: 0.4
 *     classes:
 *     - name: smartbuffer_SRAM
 *       attributes: {technology: must_specify, width: must_specify,
 *                    n_rw_ports: 1, ...}          # defaults, in order
 *       subcomponents:
 *       - name: storage                           # or name[LO..HI] copies
 *         class: SRAM
 *         area_scale: 1                           # optional
 *         attributes: {width: width, depth: depth}
 *       actions:
 *       - name: read
 *         subcomponents:
 *         - name: storage                         # or name[I] / name[LO..HI]
 *           actions: [{name: read, energy_scale: 1}]
 *
 * Values are Accelergy's Python expressions over the class's attributes;
 * they are rewritten into ffm's expression language (X if C else Y,
 * and/or/not, True/False, math.f) and evaluated in order. A value that
 * does not parse, or is a bare unknown name, is text (technology: 32nm,
 * type: LPDDR4); an expression over names that are not attributes is an
 * error. YAML anchors, aliases and merge keys (<<: *write_action) work.
 * Action arguments are read and ignored (ffm's leakage is a power, not an
 * energy per cycle). */
#include <ffm/ffm-estimator.h>
#include "ffm-estimator-private.h"
#include <ffm/ffm-plugin-registry.h>
#include <ffm/ffm-expr.h>
#include <ffm/ffm-format.h>
#include <ffm/ffm-limits.h>
#include "ffm-bounded-read.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <yaml.h>

#define MAX_COMPONENT_FILE_BYTES FFM_MAX_INPUT_FILE_BYTES
#define MAX_YAML_DEPTH 64

/* An ordered list of (name, value text) pairs. */
typedef struct {
  GPtrArray *names;    /* of char* */
  GPtrArray *texts;    /* of char* */
} Pairs;

typedef struct {
  char *name;          /* base name, without [LO..HI] */
  char *range;         /* "LO..HI" or NULL: one copy */
  char *class_name;
  char *area_scale;    /* expression or NULL (1) */
  Pairs attributes;
  guint line;
} Subcomponent;

typedef struct {
  char *sub_name;      /* base name */
  char *range;         /* "I", "LO..HI" or NULL: every copy */
  char *action;
  char *energy_scale;  /* expression or NULL (1) */
} ActionPart;

typedef struct {
  char *name;
  GPtrArray *parts;    /* of ActionPart* */
} CompoundAction;

typedef struct {
  char *name;
  char *file;
  guint line;
  Pairs attributes;    /* defaults */
  GPtrArray *subcomponents;   /* of Subcomponent* */
  GPtrArray *actions;         /* of CompoundAction* */
} CompoundClass;

struct _FfmComponentLibrary {
  const FfmPluginRegistry *registry;   /* NULL: the default */
  GPtrArray *classes;                  /* of CompoundClass*, in order read */
};

/* ---- Memory ---- */

static void
pairs_init (Pairs *p)
{
  p->names = g_ptr_array_new_with_free_func (g_free);
  p->texts = g_ptr_array_new_with_free_func (g_free);
}

static void
pairs_clear (Pairs *p)
{
  g_clear_pointer (&p->names, g_ptr_array_unref);
  g_clear_pointer (&p->texts, g_ptr_array_unref);
}

static void
subcomponent_free (gpointer data)
{
  Subcomponent *s = data;

  g_free (s->name);
  g_free (s->range);
  g_free (s->class_name);
  g_free (s->area_scale);
  pairs_clear (&s->attributes);
  g_free (s);
}

static void
action_part_free (gpointer data)
{
  ActionPart *p = data;

  g_free (p->sub_name);
  g_free (p->range);
  g_free (p->action);
  g_free (p->energy_scale);
  g_free (p);
}

static void
compound_action_free (gpointer data)
{
  CompoundAction *a = data;

  g_free (a->name);
  g_ptr_array_unref (a->parts);
  g_free (a);
}

static void
compound_class_free (gpointer data)
{
  CompoundClass *c = data;

  g_free (c->name);
  g_free (c->file);
  pairs_clear (&c->attributes);
  g_ptr_array_unref (c->subcomponents);
  g_ptr_array_unref (c->actions);
  g_free (c);
}

FfmComponentLibrary *
ffm_component_library_new (const FfmPluginRegistry *registry)
{
  FfmComponentLibrary *library = g_new0 (FfmComponentLibrary, 1);

  library->registry = registry;
  library->classes = g_ptr_array_new_with_free_func (compound_class_free);
  return library;
}

void
ffm_component_library_free (FfmComponentLibrary *library)
{
  if (library == NULL)
    return;
  g_ptr_array_unref (library->classes);
  g_free (library);
}

static const FfmPluginRegistry *
library_registry (const FfmComponentLibrary *library)
{
  return library->registry != NULL ? library->registry : ffm_estimators_current ();
}

static CompoundClass *
find_class (const FfmComponentLibrary *library, const char *name)
{
  for (guint i = 0; i < library->classes->len; i++)
    {
      CompoundClass *c = library->classes->pdata[i];
      if (strcmp (c->name, name) == 0)
        return c;
    }
  return NULL;
}

gboolean
ffm_component_library_has_class (const FfmComponentLibrary *library,
                                 const char *class_name)
{
  g_return_val_if_fail (library != NULL && class_name != NULL, FALSE);
  return find_class (library, class_name) != NULL;
}

GStrv
ffm_component_library_list_classes (const FfmComponentLibrary *library)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (library != NULL, NULL);
  for (guint i = 0; i < library->classes->len; i++)
    g_strv_builder_add (builder, ((CompoundClass *) library->classes->pdata[i])->name);
  return g_strv_builder_end (builder);
}

GStrv
ffm_component_library_list_actions (const FfmComponentLibrary *library,
                                    const char *class_name)
{
  const CompoundClass *c;
  g_autoptr (GStrvBuilder) builder = NULL;

  g_return_val_if_fail (library != NULL && class_name != NULL, NULL);
  c = find_class (library, class_name);
  if (c == NULL)
    return ffm_plugin_registry_estimator_actions (library_registry (library),
                                                  class_name);
  builder = g_strv_builder_new ();
  for (guint i = 0; i < c->actions->len; i++)
    {
      const CompoundAction *a = c->actions->pdata[i];
      if (strcmp (a->name, "leak") != 0)
        g_strv_builder_add (builder, a->name);
    }
  return g_strv_builder_end (builder);
}

/* ---- Reading YAML ---- */

typedef struct {
  yaml_document_t *doc;
  const char *file;
  GError **error;
} Reader;

static gboolean reader_fail (Reader *r, const yaml_node_t *node, const char *path,
                             const char *format, ...) G_GNUC_PRINTF (4, 5);

static gboolean
reader_fail (Reader *r, const yaml_node_t *node, const char *path,
             const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (node != NULL)
    g_set_error (r->error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_INVALID,
                 "%s:%zu: %s: %s", r->file, node->start_mark.line + 1, path, message);
  else
    g_set_error (r->error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_INVALID,
                 "%s: %s: %s", r->file, path, message);
  return FALSE;
}

static yaml_node_t *
node_at (Reader *r, int index)
{
  return yaml_document_get_node (r->doc, index);
}

static const char *
scalar_text (const yaml_node_t *node)
{
  return node != NULL && node->type == YAML_SCALAR_NODE
           ? (const char *) node->data.scalar.value : NULL;
}

/* The value of @key in mapping @node, following merge keys (<<) after the
 * mapping's own keys; NULL when absent. */
static yaml_node_t *
map_get (Reader *r, yaml_node_t *node, const char *key, guint depth)
{
  yaml_node_pair_t *pair;

  if (node == NULL || node->type != YAML_MAPPING_NODE || depth > MAX_YAML_DEPTH)
    return NULL;
  for (pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top;
       pair++)
    {
      const char *k = scalar_text (node_at (r, pair->key));
      if (k != NULL && strcmp (k, key) == 0)
        return node_at (r, pair->value);
    }
  for (pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top;
       pair++)
    {
      const char *k = scalar_text (node_at (r, pair->key));
      yaml_node_t *merged;
      if (k == NULL || strcmp (k, "<<") != 0)
        continue;
      merged = node_at (r, pair->value);
      if (merged != NULL && merged->type == YAML_SEQUENCE_NODE)
        {
          for (yaml_node_item_t *it = merged->data.sequence.items.start;
               it < merged->data.sequence.items.top; it++)
            {
              yaml_node_t *found = map_get (r, node_at (r, *it), key, depth + 1);
              if (found != NULL)
                return found;
            }
        }
      else
        {
          yaml_node_t *found = map_get (r, merged, key, depth + 1);
          if (found != NULL)
            return found;
        }
    }
  return NULL;
}

static gboolean
require_kind (Reader *r, yaml_node_t *node, yaml_node_type_t type, const char *path)
{
  static const char *const names[] = { "nothing", "a value", "a list", "a mapping" };

  if (node != NULL && node->type == type)
    return TRUE;
  return reader_fail (r, node, path, "expected %s, got %s", names[type],
                      node != NULL ? names[node->type] : "nothing");
}

/* A scalar member, required. */
static const char *
require_scalar (Reader *r, yaml_node_t *map, const char *key, const char *path)
{
  yaml_node_t *node = map_get (r, map, key, 0);
  g_autofree char *sub = g_strdup_printf ("%s.%s", path, key);

  if (node == NULL)
    {
      reader_fail (r, map, path, "missing \"%s\"", key);
      return NULL;
    }
  if (!require_kind (r, node, YAML_SCALAR_NODE, sub))
    return NULL;
  return scalar_text (node);
}

/* "name[LO..HI]" into name and range. */
static gboolean
split_name (Reader *r, yaml_node_t *node, const char *path, const char *text,
            char **name, char **range)
{
  const char *open = strchr (text, '[');
  size_t len = strlen (text);

  if (open == NULL)
    {
      *name = g_strstrip (g_strdup (text));
      *range = NULL;
    }
  else
    {
      if (len == 0 || text[len - 1] != ']' || open == text)
        return reader_fail (r, node, path, "'%s' is not NAME or NAME[LO..HI]", text);
      *name = g_strstrip (g_strndup (text, open - text));
      *range = g_strstrip (g_strndup (open + 1, text + len - 1 - (open + 1)));
    }
  if ((*name)[0] == '\0')
    return reader_fail (r, node, path, "empty name");
  return TRUE;
}

/* The pairs of mapping @node (merge keys included, own keys first). */
static gboolean
read_pairs (Reader *r, yaml_node_t *node, const char *path, Pairs *out, guint depth)
{
  yaml_node_pair_t *pair;

  if (node == NULL)
    return TRUE;
  if (depth > MAX_YAML_DEPTH)
    return reader_fail (r, node, path, "merge keys nested more than %d deep",
                        MAX_YAML_DEPTH);
  if (!require_kind (r, node, YAML_MAPPING_NODE, path))
    return FALSE;
  for (pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top;
       pair++)
    {
      yaml_node_t *key = node_at (r, pair->key), *value = node_at (r, pair->value);
      const char *k = scalar_text (key);
      g_autofree char *sub = NULL;

      if (k == NULL)
        return reader_fail (r, key, path, "a key must be a plain name");
      if (strcmp (k, "<<") == 0)
        continue;
      sub = g_strdup_printf ("%s.%s", path, k);
      if (!require_kind (r, value, YAML_SCALAR_NODE, sub))
        return FALSE;
      for (guint i = 0; i < out->names->len; i++)
        if (strcmp (out->names->pdata[i], k) == 0)
          return reader_fail (r, key, path, "attribute %s is given twice", k);
      if (out->names->len >= FFM_ESTIMATOR_MAX_ATTRIBUTES)
        return reader_fail (r, key, path, "more than %d attributes",
                            FFM_ESTIMATOR_MAX_ATTRIBUTES);
      g_ptr_array_add (out->names, g_strdup (k));
      g_ptr_array_add (out->texts, g_strdup (scalar_text (value)));
    }
  for (pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top;
       pair++)
    {
      const char *k = scalar_text (node_at (r, pair->key));
      yaml_node_t *merged = node_at (r, pair->value);
      Pairs more;
      gboolean ok;

      if (strcmp (k, "<<") != 0)
        continue;
      pairs_init (&more);
      ok = read_pairs (r, merged, path, &more, depth + 1);
      for (guint i = 0; ok && i < more.names->len; i++)
        {
          gboolean seen = FALSE;
          for (guint j = 0; j < out->names->len && !seen; j++)
            seen = strcmp (out->names->pdata[j], more.names->pdata[i]) == 0;
          if (!seen)
            {
              g_ptr_array_add (out->names, g_strdup (more.names->pdata[i]));
              g_ptr_array_add (out->texts, g_strdup (more.texts->pdata[i]));
            }
        }
      pairs_clear (&more);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static const char *const class_keys[] = { "name", "attributes", "subcomponents",
                                          "actions", NULL };
static const char *const sub_keys[] = { "name", "class", "attributes", "area_scale",
                                        "area_share", NULL };
static const char *const action_keys[] = { "name", "subcomponents", "arguments", NULL };
static const char *const part_keys[] = { "name", "actions", NULL };
static const char *const sub_action_keys[] = { "name", "energy_scale", "arguments",
                                               NULL };

/* Every key of mapping @node (merged ones included) is in @known. */
static gboolean
check_keys (Reader *r, yaml_node_t *node, const char *path,
            const char *const *known)
{
  for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
       pair < node->data.mapping.pairs.top; pair++)
    {
      const char *k = scalar_text (node_at (r, pair->key));
      if (k == NULL || strcmp (k, "<<") == 0)
        continue;
      if (!g_strv_contains (known, k))
        {
          g_autofree char *list = g_strjoinv (", ", (char **) known);
          return reader_fail (r, node_at (r, pair->key), path, "unknown key '%s' "
                              "(known: %s)", k, list);
        }
    }
  return TRUE;
}

static gboolean
read_subcomponent (Reader *r, yaml_node_t *node, const char *path, CompoundClass *c)
{
  Subcomponent *s;
  const char *name, *class_name;
  yaml_node_t *scale;

  if (!require_kind (r, node, YAML_MAPPING_NODE, path) || !check_keys (r, node, path, sub_keys)
      || (name = require_scalar (r, node, "name", path)) == NULL
      || (class_name = require_scalar (r, node, "class", path)) == NULL)
    return FALSE;
  s = g_new0 (Subcomponent, 1);
  pairs_init (&s->attributes);
  g_ptr_array_add (c->subcomponents, s);
  s->class_name = g_strdup (class_name);
  s->line = (guint) node->start_mark.line + 1;
  if (!split_name (r, node, path, name, &s->name, &s->range))
    return FALSE;
  for (guint i = 0; i + 1 < c->subcomponents->len; i++)
    if (strcmp (((Subcomponent *) c->subcomponents->pdata[i])->name, s->name) == 0)
      return reader_fail (r, node, path, "subcomponent %s is declared twice", s->name);
  if ((scale = map_get (r, node, "area_scale", 0)) != NULL)
    {
      if (!require_kind (r, scale, YAML_SCALAR_NODE, path))
        return FALSE;
      s->area_scale = g_strdup (scalar_text (scale));
    }
  {
    g_autofree char *sub = g_strdup_printf ("%s.attributes", path);
    return read_pairs (r, map_get (r, node, "attributes", 0), sub, &s->attributes, 0);
  }
}

static gboolean
read_action_part (Reader *r, yaml_node_t *node, const char *path, CompoundAction *a)
{
  const char *name;
  yaml_node_t *actions;
  g_autofree char *base = NULL, *range = NULL;
  g_autofree char *sub = g_strdup_printf ("%s.actions", path);

  if (!require_kind (r, node, YAML_MAPPING_NODE, path)
      || !check_keys (r, node, path, part_keys)
      || (name = require_scalar (r, node, "name", path)) == NULL
      || !split_name (r, node, path, name, &base, &range))
    return FALSE;
  actions = map_get (r, node, "actions", 0);
  if (!require_kind (r, actions, YAML_SEQUENCE_NODE, sub))
    return FALSE;
  for (yaml_node_item_t *it = actions->data.sequence.items.start;
       it < actions->data.sequence.items.top; it++)
    {
      yaml_node_t *item = node_at (r, *it);
      g_autofree char *item_path = g_strdup_printf ("%s[%d]", sub,
                                                    (int) (it - actions->data.sequence.items.start));
      const char *action;
      yaml_node_t *scale;
      ActionPart *p;

      if (!require_kind (r, item, YAML_MAPPING_NODE, item_path)
          || !check_keys (r, item, item_path, sub_action_keys)
          || (action = require_scalar (r, item, "name", item_path)) == NULL)
        return FALSE;
      p = g_new0 (ActionPart, 1);
      p->sub_name = g_strdup (base);
      p->range = g_strdup (range);
      p->action = g_strdup (action);
      g_ptr_array_add (a->parts, p);
      if ((scale = map_get (r, item, "energy_scale", 0)) != NULL)
        {
          if (!require_kind (r, scale, YAML_SCALAR_NODE, item_path))
            return FALSE;
          p->energy_scale = g_strdup (scalar_text (scale));
        }
    }
  return TRUE;
}

static gboolean
read_action (Reader *r, yaml_node_t *node, const char *path, CompoundClass *c)
{
  CompoundAction *a;
  const char *name;
  yaml_node_t *parts;
  g_autofree char *sub = g_strdup_printf ("%s.subcomponents", path);

  if (!require_kind (r, node, YAML_MAPPING_NODE, path)
      || !check_keys (r, node, path, action_keys)
      || (name = require_scalar (r, node, "name", path)) == NULL)
    return FALSE;
  for (guint i = 0; i < c->actions->len; i++)
    if (strcmp (((CompoundAction *) c->actions->pdata[i])->name, name) == 0)
      return reader_fail (r, node, path, "action %s is defined twice", name);
  a = g_new0 (CompoundAction, 1);
  a->name = g_strdup (name);
  a->parts = g_ptr_array_new_with_free_func (action_part_free);
  g_ptr_array_add (c->actions, a);
  parts = map_get (r, node, "subcomponents", 0);
  if (parts == NULL)
    return TRUE;          /* an action that costs nothing */
  if (!require_kind (r, parts, YAML_SEQUENCE_NODE, sub))
    return FALSE;
  for (yaml_node_item_t *it = parts->data.sequence.items.start;
       it < parts->data.sequence.items.top; it++)
    {
      g_autofree char *item_path = g_strdup_printf ("%s[%d]", sub,
                                                    (int) (it - parts->data.sequence.items.start));
      if (!read_action_part (r, node_at (r, *it), item_path, a))
        return FALSE;
    }
  return TRUE;
}

static gboolean
read_class (Reader *r, FfmComponentLibrary *library, yaml_node_t *node,
            const char *path)
{
  CompoundClass *c;
  const char *name;
  yaml_node_t *list;

  if (!require_kind (r, node, YAML_MAPPING_NODE, path)
      || !check_keys (r, node, path, class_keys)
      || (name = require_scalar (r, node, "name", path)) == NULL)
    return FALSE;
  if ((c = find_class (library, name)) != NULL)
    return reader_fail (r, node, path, "class %s is already defined (%s:%u)", name,
                        c->file, c->line);
  c = g_new0 (CompoundClass, 1);
  c->name = g_strdup (name);
  c->file = g_strdup (r->file);
  c->line = (guint) node->start_mark.line + 1;
  pairs_init (&c->attributes);
  c->subcomponents = g_ptr_array_new_with_free_func (subcomponent_free);
  c->actions = g_ptr_array_new_with_free_func (compound_action_free);
  g_ptr_array_add (library->classes, c);

  {
    g_autofree char *sub = g_strdup_printf ("%s.attributes", path);
    if (!read_pairs (r, map_get (r, node, "attributes", 0), sub, &c->attributes, 0))
      return FALSE;
  }
  if ((list = map_get (r, node, "subcomponents", 0)) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.subcomponents", path);
      if (!require_kind (r, list, YAML_SEQUENCE_NODE, sub))
        return FALSE;
      for (yaml_node_item_t *it = list->data.sequence.items.start;
           it < list->data.sequence.items.top; it++)
        {
          g_autofree char *item = g_strdup_printf ("%s[%d]", sub,
                                                   (int) (it - list->data.sequence.items.start));
          if (!read_subcomponent (r, node_at (r, *it), item, c))
            return FALSE;
        }
    }
  if ((list = map_get (r, node, "actions", 0)) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.actions", path);
      if (!require_kind (r, list, YAML_SEQUENCE_NODE, sub))
        return FALSE;
      for (yaml_node_item_t *it = list->data.sequence.items.start;
           it < list->data.sequence.items.top; it++)
        {
          g_autofree char *item = g_strdup_printf ("%s[%d]", sub,
                                                   (int) (it - list->data.sequence.items.start));
          if (!read_action (r, node_at (r, *it), item, c))
            return FALSE;
        }
    }
  /* Each action names declared subcomponents. */
  for (guint i = 0; i < c->actions->len; i++)
    {
      const CompoundAction *a = c->actions->pdata[i];
      for (guint j = 0; j < a->parts->len; j++)
        {
          const ActionPart *p = a->parts->pdata[j];
          gboolean known = FALSE;
          for (guint k = 0; k < c->subcomponents->len && !known; k++)
            known = strcmp (((Subcomponent *) c->subcomponents->pdata[k])->name,
                            p->sub_name) == 0;
          if (!known)
            return reader_fail (r, node, path, "action %s names subcomponent %s, "
                                "which class %s does not declare", a->name,
                                p->sub_name, c->name);
        }
    }
  return TRUE;
}

static gboolean
read_document (Reader *r, FfmComponentLibrary *library)
{
  yaml_node_t *root = yaml_document_get_root_node (r->doc);
  yaml_node_t *top, *version, *classes;
  const char *v;

  if (root == NULL)
    return reader_fail (r, NULL, "$", "the file is empty");
  top = map_get (r, root, "compound_components", 0);
  if (top == NULL)
    return reader_fail (r, root, "$", "no compound_components (is this an Accelergy "
                        "component file?)");
  if (!require_kind (r, top, YAML_MAPPING_NODE, "compound_components"))
    return FALSE;
  version = map_get (r, top, "version", 0);
  v = scalar_text (version);
  if (v != NULL && strcmp (v, "0.4") != 0 && strcmp (v, "0.3") != 0)
    return reader_fail (r, version, "compound_components.version", "unsupported "
                        "version %s (this ffm reads 0.3 and 0.4)", v);
  classes = map_get (r, top, "classes", 0);
  if (classes == NULL)
    return TRUE;
  if (!require_kind (r, classes, YAML_SEQUENCE_NODE, "compound_components.classes"))
    return FALSE;
  for (yaml_node_item_t *it = classes->data.sequence.items.start;
       it < classes->data.sequence.items.top; it++)
    {
      g_autofree char *path = g_strdup_printf ("compound_components.classes[%d]",
                                               (int) (it - classes->data.sequence.items.start));
      if (!read_class (r, library, node_at (r, *it), path))
        return FALSE;
    }
  return TRUE;
}

gboolean
ffm_component_library_load_data (FfmComponentLibrary *library, const char *yaml_text,
                                 const char *display_name, GError **error)
{
  yaml_parser_t parser;
  yaml_document_t doc;
  Reader r = { &doc, display_name != NULL ? display_name : "(data)", error };
  gboolean ok;
  guint n_before;

  g_return_val_if_fail (library != NULL && yaml_text != NULL, FALSE);

  if (!yaml_parser_initialize (&parser))
    {
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_PARSE,
                   "%s: cannot start the YAML parser", r.file);
      return FALSE;
    }
  yaml_parser_set_input_string (&parser, (const unsigned char *) yaml_text,
                                strlen (yaml_text));
  if (!yaml_parser_load (&parser, &doc))
    {
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_PARSE,
                   "%s:%zu:%zu: YAML syntax error: %s", r.file,
                   parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                   parser.problem != NULL ? parser.problem : "cannot be read");
      yaml_parser_delete (&parser);
      return FALSE;
    }
  n_before = library->classes->len;
  ok = read_document (&r, library);
  if (!ok)
    g_ptr_array_set_size (library->classes, n_before);   /* all or nothing */
  yaml_document_delete (&doc);
  yaml_parser_delete (&parser);
  return ok;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static gboolean
load_one_file (FfmComponentLibrary *library, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize length;

  text = ffm_read_file_bounded (path, MAX_COMPONENT_FILE_BYTES, &length, NULL,
                                FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_PARSE,
                                error);
  if (text == NULL)
    return FALSE;
  if (strlen (text) != length)
    {
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_PARSE,
                   "%s: the file contains a NUL byte (not YAML text)", path);
      return FALSE;
    }
  return ffm_component_library_load_data (library, text, path, error);
}

gboolean
ffm_component_library_load_file (FfmComponentLibrary *library, const char *path,
                                 GError **error)
{
  g_autoptr (GDir) dir = NULL;
  g_autoptr (GPtrArray) names = NULL;
  const char *entry;

  g_return_val_if_fail (library != NULL && path != NULL, FALSE);

  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    return load_one_file (library, path, error);
  dir = g_dir_open (path, 0, error);
  if (dir == NULL)
    return FALSE;
  names = g_ptr_array_new_with_free_func (g_free);
  while ((entry = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (entry, ".yaml") || g_str_has_suffix (entry, ".yml"))
      g_ptr_array_add (names, g_strdup (entry));
  g_ptr_array_sort (names, compare_strings);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *file = g_build_filename (path, names->pdata[i], NULL);
      if (!load_one_file (library, file, error))
        return FALSE;
    }
  return TRUE;
}

/* ---- Accelergy's Python expressions in ffm's language ---- */

typedef enum { TOK_WORD, TOK_NUMBER, TOK_STRING, TOK_OPEN, TOK_CLOSE, TOK_OTHER } TokKind;

typedef struct {
  TokKind kind;
  char *text;
} Token;

static void
token_clear (gpointer data)
{
  g_free (((Token *) data)->text);
}

static GArray *
tokenize (const char *text)
{
  GArray *tokens = g_array_new (FALSE, FALSE, sizeof (Token));
  const char *p = text;

  g_array_set_clear_func (tokens, token_clear);
  while (*p != '\0')
    {
      const char *start = p;
      Token t;

      if (g_ascii_isspace (*p))
        {
          p++;
          continue;
        }
      if (g_ascii_isalpha (*p) || *p == '_')
        {
          while (g_ascii_isalnum (*p) || *p == '_' || *p == '.')
            p++;
          t.kind = TOK_WORD;
        }
      else if (g_ascii_isdigit (*p) || (*p == '.' && g_ascii_isdigit (p[1])))
        {
          while (g_ascii_isalnum (*p) || *p == '.'
                 || ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')))
            p++;
          t.kind = TOK_NUMBER;
        }
      else if (*p == '\'' || *p == '"')
        {
          char quote = *p++;
          while (*p != '\0' && *p != quote)
            p++;
          if (*p == quote)
            p++;
          t.kind = TOK_STRING;
        }
      else if (*p == '(' || *p == '[')
        {
          p++;
          t.kind = TOK_OPEN;
        }
      else if (*p == ')' || *p == ']')
        {
          p++;
          t.kind = TOK_CLOSE;
        }
      else
        {
          /* Two-character operators stay together. */
          if (p[1] != '\0' && strchr ("*/=!<>&|", *p) != NULL
              && strchr ("*/=&|", p[1]) != NULL)
            p += 2;
          else
            p++;
          t.kind = TOK_OTHER;
        }
      t.text = g_strndup (start, p - start);
      g_array_append_val (tokens, t);
    }
  return tokens;
}

/* Rewrites tokens [@from, @to) into @out: `X if C else Y` (lowest
 * precedence, right to left) becomes `(C) ? (X) : (Y)`; and, or, not,
 * True, False and math.f become &&, ||, !, 1, 0 and f. */
static void
rewrite_range (GArray *tokens, guint from, guint to, GString *out)
{
  int depth = 0;
  guint if_at = G_MAXUINT, else_at = G_MAXUINT;

  for (guint i = from; i < to; i++)
    {
      const Token *t = &g_array_index (tokens, Token, i);
      if (t->kind == TOK_OPEN)
        depth++;
      else if (t->kind == TOK_CLOSE)
        depth--;
      else if (depth == 0 && t->kind == TOK_WORD && strcmp (t->text, "if") == 0
               && if_at == G_MAXUINT)
        if_at = i;
      else if (depth == 0 && t->kind == TOK_WORD && strcmp (t->text, "else") == 0
               && if_at != G_MAXUINT && else_at == G_MAXUINT)
        else_at = i;
    }
  if (if_at != G_MAXUINT && else_at != G_MAXUINT)
    {
      g_string_append (out, "((");
      rewrite_range (tokens, if_at + 1, else_at, out);
      g_string_append (out, ") ? (");
      rewrite_range (tokens, from, if_at, out);
      g_string_append (out, ") : (");
      rewrite_range (tokens, else_at + 1, to, out);
      g_string_append (out, "))");
      return;
    }
  for (guint i = from; i < to; i++)
    {
      const Token *t = &g_array_index (tokens, Token, i);
      const char *text = t->text;

      if (t->kind == TOK_WORD)
        {
          if (strcmp (text, "and") == 0)
            text = "&&";
          else if (strcmp (text, "or") == 0)
            text = "||";
          else if (strcmp (text, "not") == 0)
            text = "!";
          else if (strcmp (text, "True") == 0)
            text = "1";
          else if (strcmp (text, "False") == 0)
            text = "0";
          else if (g_str_has_prefix (text, "math."))
            text += strlen ("math.");
        }
      if (out->len > 0)
        g_string_append_c (out, ' ');
      g_string_append (out, text);
    }
}

static char *
python_to_ffm (const char *text)
{
  g_autoptr (GArray) tokens = tokenize (text);
  GString *out = g_string_new (NULL);

  rewrite_range (tokens, 0, tokens->len, out);
  return g_string_free (out, FALSE);
}

/* ---- Evaluation ---- */

/* The attributes in scope while evaluating one compound component. */
typedef struct {
  GHashTable *values;     /* name -> FfmValue* (strings owned by @strings) */
  GPtrArray *order;       /* names, in order set */
  GPtrArray *strings;     /* owned string storage */
} Scope;

static void
scope_init (Scope *s)
{
  s->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  s->order = g_ptr_array_new_with_free_func (g_free);
  s->strings = g_ptr_array_new_with_free_func (g_free);
}

static void
scope_clear (Scope *s)
{
  g_clear_pointer (&s->values, g_hash_table_unref);
  g_clear_pointer (&s->order, g_ptr_array_unref);
  g_clear_pointer (&s->strings, g_ptr_array_unref);
}

static void
scope_set (Scope *s, const char *name, const FfmValue *value)
{
  FfmValue *copy = g_new (FfmValue, 1);

  *copy = *value;
  if (value->type == FFM_VALUE_STRING)
    {
      char *owned = g_strdup (value->string);
      g_ptr_array_add (s->strings, owned);
      copy->string = owned;
    }
  if (!g_hash_table_contains (s->values, name))
    g_ptr_array_add (s->order, g_strdup (name));
  g_hash_table_replace (s->values, g_strdup (name), copy);
}

static gboolean
scope_resolve (const char *name, FfmValue *out, gpointer user_data)
{
  const Scope *s = user_data;
  const FfmValue *value = g_hash_table_lookup (s->values, name);

  if (value == NULL)
    return FALSE;
  *out = *value;
  return TRUE;
}

typedef struct {
  const Scope *scope;
  gboolean unknown;
  guint n;
} IdentCheck;

static void
check_ident (const char *name, gpointer user_data)
{
  IdentCheck *c = user_data;

  c->n++;
  if (!g_hash_table_contains (c->scope->values, name))
    c->unknown = TRUE;
}

/* Evaluates Accelergy value @text in @scope. A value that does not parse,
 * or is one unknown name, is text; an expression over unknown names is an
 * error. A string result is kept in the scope's storage (it outlives the
 * expression). */
static gboolean
eval_value (Scope *scope, const char *text, FfmValue *out,
            const char *where, GError **error)
{
  g_autofree char *rewritten = python_to_ffm (text);
  g_autoptr (FfmExpr) expr = ffm_expr_parse (rewritten, NULL);
  FfmExprScope es = { scope_resolve, (gpointer) scope, 0 };
  IdentCheck check = { scope, FALSE, 0 };
  g_autoptr (GError) local = NULL;

  if (expr != NULL)
    ffm_expr_foreach_identifier (expr, check_ident, &check);
  /* "LPDDR4" parses as a name: an unknown bare name is text. */
  if (expr == NULL || (check.unknown && check.n == 1
                       && strchr (rewritten, ' ') == NULL))
    {
      out->type = FFM_VALUE_STRING;
      out->string = text;
      return TRUE;
    }
  if (!ffm_expr_evaluate (expr, &es, out, &local))
    {
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_ATTRIBUTE,
                   "%s: '%s': %s", where, text, local->message);
      return FALSE;
    }
  if (out->type == FFM_VALUE_STRING)
    {
      char *copy = g_strdup (out->string);
      g_ptr_array_add (scope->strings, copy);
      out->string = copy;
    }
  return TRUE;
}

static gboolean
eval_number (Scope *scope, const char *text, double *out, const char *where,
             GError **error)
{
  FfmValue v;

  if (!eval_value (scope, text, &v, where, error))
    return FALSE;
  if (v.type != FFM_VALUE_NUMBER || !isfinite (v.number))
    {
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_ATTRIBUTE,
                   "%s: '%s' is not a finite number", where, text);
      return FALSE;
    }
  *out = v.number;
  return TRUE;
}

/* "LO..HI" or "I": the number of copies it names, and its first index. */
static gboolean
eval_range (Scope *scope, const char *range, double *count, double *first,
            const char *where, GError **error)
{
  const char *dots;

  if (range == NULL)
    {
      *count = 1;
      *first = 0;
      return TRUE;
    }
  dots = strstr (range, "..");
  if (dots == NULL)
    {
      if (!eval_number (scope, range, first, where, error))
        return FALSE;
      *count = 1;
    }
  else
    {
      g_autofree char *lo_text = g_strndup (range, dots - range);
      double lo, hi;
      if (!eval_number (scope, lo_text, &lo, where, error)
          || !eval_number (scope, dots + 2, &hi, where, error))
        return FALSE;
      *first = lo;
      *count = floor (hi) - floor (lo) + 1;
    }
  if (!(*count >= 0 && *count <= FFM_ESTIMATOR_MAX_INSTANCES))
    {
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_ATTRIBUTE,
                   "%s: [%s] names %g copies (0 to %g allowed)", where, range, *count,
                   FFM_ESTIMATOR_MAX_INSTANCES);
      return FALSE;
    }
  return TRUE;
}

static char *
value_text (const FfmValue *v)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (v->type == FFM_VALUE_STRING)
    return g_strdup (v->string);
  return g_strdup (ffm_format_double (v->number, buffer));
}

/* Attributes that a subcomponent inherits from its compound class unless it
 * sets them (Accelergy passes these down). */
static const char *const inherited_attributes[] = {
  "technology", "global_cycle_seconds", "voltage", NULL
};

static gboolean estimate_any (const FfmComponentLibrary *library,
                              const FfmEstimateQuery *query, guint depth,
                              FfmComponentEstimate *out, GError **error);

typedef struct {
  const CompoundClass *c;
  const char *component;
  Scope scope;
  GPtrArray *sub_attrs;   /* of FfmParamValues*, per subcomponent */
  GArray *sub_counts;     /* of double, per subcomponent */
} Instance;

static void
instance_clear (Instance *in)
{
  scope_clear (&in->scope);
  g_clear_pointer (&in->sub_attrs, g_ptr_array_unref);
  g_clear_pointer (&in->sub_counts, g_array_unref);
}

/* The compound's attributes (given, then defaults in order) and each
 * subcomponent's attributes and copies. */
static gboolean
instance_init (Instance *in, const CompoundClass *c, const FfmEstimateQuery *query,
               GError **error)
{
  const FfmParamValues *given = ffm_estimate_query_get_attributes (query);
  const char *const *keys = ffm_param_values_get_keys (given);
  Scope literal;

  memset (in, 0, sizeof *in);
  in->c = c;
  in->component = ffm_estimate_query_get_component (query);
  scope_init (&in->scope);
  in->sub_attrs = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_param_values_free);
  in->sub_counts = g_array_new (FALSE, FALSE, sizeof (double));

  /* Given attributes: numbers where they read as constant numbers. */
  scope_init (&literal);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      const char *text = ffm_param_values_lookup (given, keys[i]);
      FfmValue v;
      g_autoptr (GError) ignored = NULL;
      if (eval_value (&literal, text, &v, keys[i], &ignored)
          && v.type == FFM_VALUE_NUMBER)
        scope_set (&in->scope, keys[i], &v);
      else
        {
          v.type = FFM_VALUE_STRING;
          v.string = text;
          scope_set (&in->scope, keys[i], &v);
        }
    }
  scope_clear (&literal);

  for (guint i = 0; i < c->attributes.names->len; i++)
    {
      const char *name = c->attributes.names->pdata[i];
      const char *text = c->attributes.texts->pdata[i];
      g_autofree char *where = NULL;
      FfmValue v;

      if (g_hash_table_contains (in->scope.values, name))
        continue;
      if (strcmp (text, "must_specify") == 0)
        {
          g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_ATTRIBUTE,
                       "component %s (class %s): attribute %s: missing (class %s "
                       "needs it, %s:%u)", in->component, c->name, name, c->name,
                       c->file, c->line);
          return FALSE;
        }
      where = g_strdup_printf ("component %s (class %s): attribute %s", in->component,
                               c->name, name);
      if (!eval_value (&in->scope, text, &v, where, error))
        return FALSE;
      scope_set (&in->scope, name, &v);
    }

  for (guint s = 0; s < c->subcomponents->len; s++)
    {
      const Subcomponent *sub = c->subcomponents->pdata[s];
      FfmParamValues *attrs = ffm_param_values_new ();
      g_autofree char *where = g_strdup_printf ("component %s (class %s): "
                                                "subcomponent %s", in->component,
                                                c->name, sub->name);
      double count, first;

      g_ptr_array_add (in->sub_attrs, attrs);
      for (guint i = 0; i < sub->attributes.names->len; i++)
        {
          FfmValue v;
          g_autofree char *text = NULL;
          g_autofree char *attr_where = g_strdup_printf ("%s: attribute %s", where,
                                                         (char *) sub->attributes.names->pdata[i]);
          if (!eval_value (&in->scope, sub->attributes.texts->pdata[i], &v, attr_where,
                           error))
            return FALSE;
          text = value_text (&v);
          ffm_param_values_set (attrs, sub->attributes.names->pdata[i], text);
        }
      for (guint i = 0; inherited_attributes[i] != NULL; i++)
        {
          const FfmValue *v = g_hash_table_lookup (in->scope.values,
                                                   inherited_attributes[i]);
          if (v != NULL && ffm_param_values_lookup (attrs, inherited_attributes[i]) == NULL)
            {
              g_autofree char *text = value_text (v);
              ffm_param_values_set (attrs, inherited_attributes[i], text);
            }
        }
      if (!eval_range (&in->scope, sub->range, &count, &first, where, error))
        return FALSE;
      g_array_append_val (in->sub_counts, count);
    }
  return TRUE;
}

static int
find_sub (const CompoundClass *c, const char *name)
{
  for (guint i = 0; i < c->subcomponents->len; i++)
    if (strcmp (((Subcomponent *) c->subcomponents->pdata[i])->name, name) == 0)
      return (int) i;
  return -1;
}

/* What one subcomponent gives: its action energy (NAN when no action),
 * leakage, area, and the lowest accuracy. */
static gboolean
estimate_sub (const FfmComponentLibrary *library, const Instance *in, guint s,
              const char *action, guint depth, FfmComponentEstimate *out,
              GError **error)
{
  const Subcomponent *sub = in->c->subcomponents->pdata[s];
  g_autofree char *name = g_strdup_printf ("%s.%s", in->component, sub->name);
  g_autoptr (FfmEstimateQuery) q = ffm_estimate_query_new (name, sub->class_name,
                                                           in->sub_attrs->pdata[s],
                                                           action);

  return estimate_any (library, q, depth + 1, out, error);
}

static void
note_accuracy (double *accuracy, const FfmEstimatedValue *v)
{
  if (v->estimator != NULL && v->accuracy < *accuracy)
    *accuracy = v->accuracy;
}

static gboolean
scale_of (Instance *in, const char *text, double *out, const char *what,
          GError **error)
{
  g_autofree char *where = NULL;

  if (text == NULL)
    {
      *out = 1;
      return TRUE;
    }
  where = g_strdup_printf ("component %s (class %s): %s", in->component, in->c->name,
                           what);
  if (!eval_number (&in->scope, text, out, where, error))
    return FALSE;
  if (*out < 0)
    {
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_ATTRIBUTE,
                   "%s: '%s' is %g (must be >= 0)", where, text, *out);
      return FALSE;
    }
  return TRUE;
}

/* Sums @action (or, for leak = TRUE, the leakage named by action "leak")
 * over the parts of compound action @a. */
static gboolean
sum_action (const FfmComponentLibrary *library, Instance *in,
            const CompoundAction *a, gboolean leak, guint depth, double *sum,
            double *accuracy, GError **error)
{
  *sum = 0;
  for (guint i = 0; i < a->parts->len; i++)
    {
      const ActionPart *p = a->parts->pdata[i];
      int s = find_sub (in->c, p->sub_name);
      FfmComponentEstimate sub;
      double count, first, scale;
      g_autofree char *where = g_strdup_printf ("action %s, subcomponent %s",
                                                a->name, p->sub_name);

      if (p->range != NULL)
        {
          g_autofree char *range_where = g_strdup_printf ("component %s (class %s): %s",
                                                          in->component, in->c->name,
                                                          where);
          if (!eval_range (&in->scope, p->range, &count, &first, range_where, error))
            return FALSE;
        }
      else
        count = g_array_index (in->sub_counts, double, s);
      if (!scale_of (in, p->energy_scale, &scale, where, error)
          || !estimate_sub (library, in, (guint) s, leak ? NULL : p->action, depth, &sub,
                            error))
        return FALSE;
      if (leak)
        {
          if (!isnan (sub.leak_power.value))
            *sum += count * sub.leak_power.value * scale;
          note_accuracy (accuracy, &sub.leak_power);
        }
      else
        {
          *sum += count * sub.energy.value * scale;
          note_accuracy (accuracy, &sub.energy);
        }
    }
  return TRUE;
}

static const CompoundAction *
find_action (const CompoundClass *c, const char *name)
{
  for (guint i = 0; i < c->actions->len; i++)
    {
      const CompoundAction *a = c->actions->pdata[i];
      if (strcmp (a->name, name) == 0)
        return a;
    }
  return NULL;
}

static void
set_value (FfmEstimatedValue *v, double value, double accuracy, const char *label)
{
  v->value = value;
  v->accuracy = accuracy;
  v->estimator = label;
}

static gboolean
estimate_compound (const FfmComponentLibrary *library, const CompoundClass *c,
                   const FfmEstimateQuery *query, guint depth,
                   FfmComponentEstimate *out, GError **error)
{
  const char *action = ffm_estimate_query_get_action (query);
  g_autofree char *label_text = g_strdup_printf ("compound %s", c->name);
  const char *label = g_intern_string (label_text);
  Instance in;
  double area = 0, leak = 0, area_accuracy = 100, leak_accuracy = 100;
  const CompoundAction *leak_action = find_action (c, "leak");
  gboolean ok = FALSE;

  if (action != NULL && strcmp (action, "leak") != 0 && find_action (c, action) == NULL)
    {
      g_auto (GStrv) actions = ffm_component_library_list_actions (library, c->name);
      g_autofree char *list = actions[0] != NULL ? g_strjoinv (", ", actions)
                                                 : g_strdup ("none");
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_UNKNOWN_ACTION,
                   "component %s (class %s): class %s has no action '%s' (actions: "
                   "%s)", ffm_estimate_query_get_component (query), c->name, c->name,
                   action, list);
      return FALSE;
    }
  if (!instance_init (&in, c, query, error))
    goto out;

  /* Area: every copy of every subcomponent. */
  for (guint s = 0; s < c->subcomponents->len; s++)
    {
      const Subcomponent *sub = c->subcomponents->pdata[s];
      FfmComponentEstimate e;
      double scale;
      if (!scale_of (&in, sub->area_scale, &scale, "area_scale", error)
          || !estimate_sub (library, &in, s, NULL, depth, &e, error))
        goto out;
      if (!isnan (e.area.value))
        area += g_array_index (in.sub_counts, double, s) * e.area.value * scale;
      note_accuracy (&area_accuracy, &e.area);
      if (leak_action == NULL)
        {
          if (!isnan (e.leak_power.value))
            leak += g_array_index (in.sub_counts, double, s) * e.leak_power.value;
          note_accuracy (&leak_accuracy, &e.leak_power);
        }
    }
  if (leak_action != NULL
      && !sum_action (library, &in, leak_action, TRUE, depth, &leak, &leak_accuracy,
                      error))
    goto out;
  set_value (&out->area, area, area_accuracy, label);
  set_value (&out->leak_power, leak, leak_accuracy, label);

  if (action != NULL && strcmp (action, "leak") != 0)
    {
      double energy, accuracy = 100;
      if (!sum_action (library, &in, find_action (c, action), FALSE, depth, &energy,
                       &accuracy, error))
        goto out;
      set_value (&out->energy, energy, accuracy, label);
    }
  else if (action != NULL)
    set_value (&out->energy, leak, leak_accuracy, label);   /* "leak": a power */

  /* A memory's access moves its `width` bits. */
  {
    const FfmValue *w = g_hash_table_lookup (in.scope.values, "width");
    if (w != NULL && w->type == FFM_VALUE_NUMBER && w->number > 0)
      set_value (&out->action_bits, w->number, MIN (area_accuracy, leak_accuracy),
                 label);
  }
  ok = TRUE;
out:
  instance_clear (&in);
  return ok;
}

static gboolean
estimate_any (const FfmComponentLibrary *library, const FfmEstimateQuery *query,
              guint depth, FfmComponentEstimate *out, GError **error)
{
  const CompoundClass *c = find_class (library, ffm_estimate_query_get_class (query));

  if (depth > FFM_ESTIMATOR_MAX_DEPTH)
    {
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_INVALID,
                   "component %s (class %s): compound classes nested more than %d "
                   "deep (does a class contain itself?)",
                   ffm_estimate_query_get_component (query),
                   ffm_estimate_query_get_class (query), FFM_ESTIMATOR_MAX_DEPTH);
      return FALSE;
    }
  if (c != NULL)
    {
      out->energy.value = out->leak_power.value = out->area.value = NAN;
      out->bandwidth.value = out->action_bits.value = NAN;
      out->energy.estimator = out->leak_power.estimator = out->area.estimator = NULL;
      out->bandwidth.estimator = out->action_bits.estimator = NULL;
      out->energy.accuracy = out->leak_power.accuracy = out->area.accuracy = 0;
      out->bandwidth.accuracy = out->action_bits.accuracy = 0;
      return estimate_compound (library, c, query, depth, out, error);
    }
  /* Accelergy's "leak" action of a primitive is its leakage. */
  if (g_strcmp0 (ffm_estimate_query_get_action (query), "leak") == 0)
    {
      g_autoptr (FfmEstimateQuery) q = ffm_estimate_query_new (
        ffm_estimate_query_get_component (query), ffm_estimate_query_get_class (query),
        ffm_estimate_query_get_attributes (query), NULL);
      if (!ffm_plugin_registry_estimate (library_registry (library), q, out, error))
        return FALSE;
      out->energy = out->leak_power;
      return TRUE;
    }
  return ffm_plugin_registry_estimate (library_registry (library), query, out, error);
}

gboolean
ffm_component_library_estimate (const FfmComponentLibrary *library,
                                const FfmEstimateQuery *query,
                                FfmComponentEstimate *out, GError **error)
{
  g_return_val_if_fail (library != NULL && query != NULL && out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  return estimate_any (library, query, 0, out, error);
}
