/* ffm-constraints-loader.c: constraint files (docs/file-formats.md,
 * "Constraint files").
 *
 * A file is an object { "ffm_constraints": 1, "name", "description",
 * "source", "constraints": [...] }; each constraint is an object with one
 * member naming its kind (fuse, unfuse, backing, keep, forbid, stationary,
 * loop_order, spatial, tile, max_fused_loops) and the members that kind
 * takes (level, fanout, dimension, einsums, comment). Every constraint's
 * origin is "FILE:LINE: $.constraints[i]" (the line of its kind member),
 * so that binding errors, found later against a workload, point at it. */
#include "ffm-constraints-private.h"
#include "ffm-json-util.h"
#include <ffm/ffm-limits.h>

#include <math.h>
#include <string.h>

#define FORMAT_VERSION 1
#define INVALID FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_INVALID

static const char *const top_members[] = {
  "ffm_constraints", "name", "description", "source", "constraints", NULL
};
static const char *const entry_members[] = {
  "fuse", "unfuse", "backing", "keep", "forbid", "stationary", "loop_order",
  "spatial", "tile", "max_fused_loops", "level", "fanout", "dimension",
  "einsums", "comment", NULL
};

typedef struct {
  const FfmJsonDoc *doc;
  GError **error;
} Loader;

/* A string or a non-empty list of strings, as a NULL-terminated vector
 * (transfer full), or NULL with the error set. */
static GStrv
read_names (const Loader *L, JsonNode *node, const char *path, const char *what)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    g_ptr_array_add (out, g_strdup (json_node_get_string (node)));
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *item = json_array_get_element (array, i);
          g_autofree char *item_path = g_strdup_printf ("%s[%u]", path, i);
          const char *s = ffm_json_require_string (L->doc, item, item_path, INVALID,
                                                   L->error);
          if (s == NULL)
            {
              g_ptr_array_unref (out);
              return NULL;
            }
          g_ptr_array_add (out, g_strdup (s));
        }
      if (out->len == 0)
        {
          ffm_json_set_error (L->error, INVALID, L->doc, node, path,
                              "expected at least one %s, got an empty list", what);
          g_ptr_array_unref (out);
          return NULL;
        }
    }
  else
    {
      ffm_json_set_error (L->error, INVALID, L->doc, node, path,
                          "expected a %s or a list of them", what);
      g_ptr_array_unref (out);
      return NULL;
    }
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}

/* A whole number in [@min, @max]. */
static gboolean
read_count (const Loader *L, JsonNode *node, const char *path, double min,
            double max, double *out)
{
  if (!ffm_json_require_number (L->doc, node, path, INVALID, out, L->error))
    return FALSE;
  if (*out != floor (*out) || *out < min || *out > max)
    {
      ffm_json_set_error (L->error, INVALID, L->doc, node, path,
                          "expected a whole number from %.0f to %.0f, got %g",
                          min, max, *out);
      return FALSE;
    }
  return TRUE;
}

static gboolean
load_entry (const Loader *L, FfmConstraints *c, JsonNode *node, guint index)
{
  g_autofree char *path = g_strdup_printf ("$.constraints[%u]", index);
  g_autofree char *origin = NULL;
  g_auto (GStrv) levels = NULL;
  g_auto (GStrv) einsums = NULL;
  g_auto (GStrv) rank_vars = NULL;
  FfmConstraintSpec spec = { 0 };
  JsonObject *object;
  JsonNode *kind_node = NULL, *value;
  const char *kind_name = NULL;
  const char *dimension = NULL;

  if (!ffm_json_require_object (L->doc, node, path, INVALID, L->error)
      || !ffm_json_check_members (L->doc, node, path, entry_members, INVALID, L->error))
    return FALSE;
  object = json_node_get_object (node);
  for (guint k = 0; entry_members[k] != NULL; k++)
    {
      FfmConstraintKind kind;
      if (!ffm_constraint_kind_from_string (entry_members[k], &kind)
          || !json_object_has_member (object, entry_members[k]))
        continue;
      if (kind_node != NULL)
        {
          ffm_json_set_error (L->error, INVALID, L->doc, node, path,
                              "a constraint has one kind, this one has both "
                              "\"%s\" and \"%s\"", kind_name, entry_members[k]);
          return FALSE;
        }
      kind_node = json_object_get_member (object, entry_members[k]);
      kind_name = entry_members[k];
      spec.kind = kind;
    }
  if (kind_node == NULL)
    {
      ffm_json_set_error (L->error, INVALID, L->doc, node, path,
                          "a constraint needs one of fuse, unfuse, backing, keep, "
                          "forbid, stationary, loop_order, spatial, tile, "
                          "max_fused_loops");
      return FALSE;
    }
  {
    g_autofree char *kind_path = g_strdup_printf ("%s.%s", path, kind_name);
    origin = ffm_json_where (L->doc, kind_node, path);

    switch (spec.kind)
      {
      case FFM_CONSTRAINT_LOOP_ORDER:
      case FFM_CONSTRAINT_SPATIAL:
        if (!JSON_NODE_HOLDS_ARRAY (kind_node))
          {
            ffm_json_set_error (L->error, INVALID, L->doc, kind_node, kind_path,
                                "expected a list of rank variables");
            return FALSE;
          }
        if ((rank_vars = read_names (L, kind_node, kind_path, "rank variable")) == NULL)
          return FALSE;
        break;
      case FFM_CONSTRAINT_TILE:
        {
          JsonObject *tiles;
          g_autoptr (GList) members = NULL;
          if (!ffm_json_require_object (L->doc, kind_node, kind_path, INVALID, L->error))
            return FALSE;
          tiles = json_node_get_object (kind_node);
          members = json_object_get_members (tiles);
          if (members == NULL)
            {
              ffm_json_set_error (L->error, INVALID, L->doc, kind_node, kind_path,
                                  "expected at least one rank variable and its tile, "
                                  "e.g. {\"m\": 64}");
              return FALSE;
            }
          break;
        }
      case FFM_CONSTRAINT_MAX_FUSED_LOOPS:
        {
          double n;
          if (!read_count (L, kind_node, kind_path, 0, 1024, &n))
            return FALSE;
          spec.max_fused_loops = (int) n;
          break;
        }
      default:
        if ((spec.tensors = ffm_json_require_string (L->doc, kind_node, kind_path,
                                                     INVALID, L->error)) == NULL)
          return FALSE;
        break;
      }
  }
  if ((value = json_object_get_member (object, "level")) != NULL)
    {
      if (spec.kind == FFM_CONSTRAINT_SPATIAL)
        {
          g_autofree char *p = g_strdup_printf ("%s.level", path);
          ffm_json_set_error (L->error, INVALID, L->doc, value, p,
                              "a spatial constraint names a \"fanout\", not a level");
          return FALSE;
        }
      {
        g_autofree char *p = g_strdup_printf ("%s.level", path);
        if ((levels = read_names (L, value, p, "level name")) == NULL)
          return FALSE;
      }
    }
  if ((value = json_object_get_member (object, "fanout")) != NULL)
    {
      g_autofree char *p = g_strdup_printf ("%s.fanout", path);
      if (spec.kind != FFM_CONSTRAINT_SPATIAL)
        {
          ffm_json_set_error (L->error, INVALID, L->doc, value, p,
                              "only a spatial constraint names a fanout");
          return FALSE;
        }
      if ((levels = read_names (L, value, p, "fanout name")) == NULL)
        return FALSE;
    }
  if ((value = json_object_get_member (object, "dimension")) != NULL)
    {
      g_autofree char *p = g_strdup_printf ("%s.dimension", path);
      if ((dimension = ffm_json_require_string (L->doc, value, p, INVALID, L->error)) == NULL)
        return FALSE;
    }
  if ((value = json_object_get_member (object, "einsums")) != NULL)
    {
      g_autofree char *p = g_strdup_printf ("%s.einsums", path);
      if ((einsums = read_names (L, value, p, "Einsum name")) == NULL)
        return FALSE;
    }
  if ((value = json_object_get_member (object, "comment")) != NULL)
    {
      g_autofree char *p = g_strdup_printf ("%s.comment", path);
      if (ffm_json_require_string (L->doc, value, p, INVALID, L->error) == NULL)
        return FALSE;
    }
  spec.levels = (const char *const *) levels;
  spec.einsums = (const char *const *) einsums;
  spec.dimension = dimension;
  if (spec.kind != FFM_CONSTRAINT_TILE)
    {
      spec.rank_vars = (const char *const *) rank_vars;
      return ffm_constraints_add (c, &spec, origin, L->error);
    }
  /* One constraint per rank variable of the tile object, in file order. */
  {
    JsonObject *tiles = json_node_get_object (kind_node);
    g_autoptr (GList) members = json_object_get_members (tiles);
    for (GList *m = members; m != NULL; m = m->next)
      {
        const char *var = m->data;
        const char *vars[] = { var, NULL };
        g_autofree char *p = g_strdup_printf ("%s.tile.%s", path, var);
        double n;
        if (!read_count (L, json_object_get_member (tiles, var), p, 1, FFM_MAX_EXACT_INTEGER, &n))
          return FALSE;
        spec.rank_vars = vars;
        spec.tile = (guint64) n;
        if (!ffm_constraints_add (c, &spec, origin, L->error))
          return FALSE;
      }
  }
  return TRUE;
}

static FfmConstraints *
load_doc (const FfmJsonDoc *doc, GError **error)
{
  Loader L = { doc, error };
  JsonNode *root = ffm_json_doc_get_root (doc);
  JsonNode *value;
  g_autoptr (FfmConstraints) c = NULL;
  const char *name;
  double version;

  if (!ffm_json_require_object (doc, root, "$", INVALID, error)
      || !ffm_json_check_members (doc, root, "$", top_members, INVALID, error))
    return NULL;
  value = ffm_json_get_member (root, "ffm_constraints");
  if (value == NULL)
    {
      ffm_json_set_error (error, INVALID, doc, root, "$",
                          "not a constraint file: missing \"ffm_constraints\": %d",
                          FORMAT_VERSION);
      return NULL;
    }
  if (!ffm_json_require_number (doc, value, "$.ffm_constraints", INVALID, &version, error))
    return NULL;
  if (version != FORMAT_VERSION)
    {
      ffm_json_set_error (error, INVALID, doc, value, "$.ffm_constraints",
                          "format version %g is not supported (this ffm reads %d)",
                          version, FORMAT_VERSION);
      return NULL;
    }
  value = ffm_json_get_member (root, "name");
  if (value == NULL)
    {
      g_autofree char *base = g_path_get_basename (ffm_json_doc_get_name (doc));
      if (g_str_has_suffix (base, ".json"))
        base[strlen (base) - strlen (".json")] = '\0';
      c = ffm_constraints_new (base);
    }
  else
    {
      if ((name = ffm_json_require_string (doc, value, "$.name", INVALID, error)) == NULL)
        return NULL;
      c = ffm_constraints_new (name);
    }
  if ((value = ffm_json_get_member (root, "description")) != NULL)
    {
      const char *d = ffm_json_require_string (doc, value, "$.description", INVALID, error);
      if (d == NULL)
        return NULL;
      ffm_constraints_set_description (c, d);
    }
  if ((value = ffm_json_get_member (root, "source")) != NULL
      && ffm_json_require_string (doc, value, "$.source", INVALID, error) == NULL)
    return NULL;
  value = ffm_json_get_member (root, "constraints");
  if (value == NULL)
    {
      ffm_json_set_error (error, INVALID, doc, root, "$",
                          "missing member \"constraints\" (a list, may be empty)");
      return NULL;
    }
  if (!ffm_json_require_array (doc, value, "$.constraints", INVALID, error))
    return NULL;
  {
    JsonArray *array = json_node_get_array (value);
    for (guint i = 0; i < json_array_get_length (array); i++)
      if (!load_entry (&L, c, json_array_get_element (array, i), i))
        return NULL;
  }
  return g_steal_pointer (&c);
}

FfmConstraints *
ffm_constraints_load_file (const char *path, GError **error)
{
  g_autoptr (FfmJsonDoc) doc = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  doc = ffm_json_doc_load_file (path, FFM_CONSTRAINTS_ERROR,
                                FFM_CONSTRAINTS_ERROR_PARSE, error);
  if (doc == NULL)
    return NULL;
  return load_doc (doc, error);
}

FfmConstraints *
ffm_constraints_load_from_data (const char *json_text, const char *display_name,
                                GError **error)
{
  g_autoptr (FfmJsonDoc) doc = NULL;

  g_return_val_if_fail (json_text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  doc = ffm_json_doc_load_data (json_text, display_name != NULL ? display_name : "<data>",
                                FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_PARSE,
                                error);
  if (doc == NULL)
    return NULL;
  return load_doc (doc, error);
}
