/* ffm-mapping-json.c: mappings to and from JSON (docs/file-formats.md,
 * "Mappings").
 *
 * A node is an object whose kind is named by the one member among
 * storage/temporal/spatial/compute/sequential it has. Loading checks the
 * structure only (types, members, positive tiles, list shapes); names are
 * checked by the cost model against a workload and an architecture, using
 * the json_path and line recorded in every node. Writing produces the same
 * format with one node per line and a fixed member order, so a file
 * written by ffm_mapping_write_json() reads back equal and writes back the
 * same text. */
#include <ffm/ffm-mapping.h>
#include "ffm-mapping-private.h"
#include "ffm-json-util.h"
#include <ffm/ffm-limits.h>
#include <ffm/ffm-json-writer.h>
#include <ffm/ffm-output-file.h>

#include <string.h>

#define MAPPING_FORMAT_VERSION 1

static const char *const kind_members[] = {
  "storage", "temporal", "spatial", "compute", "sequential", NULL
};
static const FfmNodeKind kind_values[] = {
  FFM_NODE_STORAGE, FFM_NODE_TEMPORAL, FFM_NODE_SPATIAL, FFM_NODE_COMPUTE,
  FFM_NODE_SEQUENTIAL,
};
/* Members other than the kind, over all kinds. */
static const char *const field_members[] = {
  "level", "tile", "dimension", "persistent", "rank_vars", "remainder", NULL
};

static const char *const storage_members[] = { "storage", "level", "persistent", NULL };
static const char *const temporal_members[] = {
  "temporal", "tile", "rank_vars", "remainder", NULL
};
static const char *const spatial_members[] = {
  "spatial", "tile", "level", "dimension", "rank_vars", "remainder", NULL
};
static const char *const compute_members[] = { "compute", "level", NULL };
static const char *const sequential_members[] = { "sequential", NULL };
static const char *const top_members[] = {
  "ffm_mapping", "workload", "architecture", "nodes", NULL
};

#define INVALID FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID

/* ---- Reading ---- */

static gboolean parse_rank_vars (const FfmJsonDoc *doc, JsonNode *object_node,
                                 const char *path, FfmMappingNode *node,
                                 GError **error);
static gboolean parse_list (const FfmJsonDoc *doc, JsonNode *array_node,
                            const char *path, guint depth, GPtrArray *list,
                            GError **error);

/* A required member; when missing the message points at @anchor (the
 * node's kind member), the nearest place with a line. */
static JsonNode *
require_member (const FfmJsonDoc *doc, JsonNode *object_node, JsonNode *anchor,
                const char *path, const char *member, const char *kind,
                GError **error)
{
  JsonNode *value = ffm_json_get_member (object_node, member);

  if (value == NULL)
    ffm_json_set_error (error, INVALID, doc, anchor, path,
                        "missing member \"%s\" (a %s node needs it)", member, kind);
  return value;
}

/* A non-empty string (transfer none) or NULL with @error set. */
static const char *
require_name (const FfmJsonDoc *doc, JsonNode *value, const char *path,
              GError **error)
{
  const char *s = ffm_json_require_string (doc, value, path, INVALID, error);

  if (s != NULL && s[0] == '\0')
    {
      ffm_json_set_error (error, INVALID, doc, value, path,
                          "expected a non-empty name, got \"\"");
      return NULL;
    }
  return s;
}

/* The required member @member of a node, as a non-empty name. */
static const char *
member_name (const FfmJsonDoc *doc, JsonNode *object_node, JsonNode *anchor,
             const char *path, const char *member, const char *kind,
             GError **error)
{
  g_autofree char *member_path = g_strdup_printf ("%s.%s", path, member);
  JsonNode *value = require_member (doc, object_node, anchor, path, member, kind, error);

  return value ? require_name (doc, value, member_path, error) : NULL;
}

/* A positive integer member (@member of the node at @path). */
static gboolean
parse_positive (const FfmJsonDoc *doc, JsonNode *value, const char *path,
                const char *member, guint64 *out, GError **error)
{
  g_autofree char *member_path = g_strdup_printf ("%s.%s", path, member);
  GType type;

  type = JSON_NODE_HOLDS_VALUE (value) ? json_node_get_value_type (value) : G_TYPE_INVALID;
  if (type == G_TYPE_INT64 && json_node_get_int (value) > 0)
    {
      *out = (guint64) json_node_get_int (value);
      return TRUE;
    }
  if (type == G_TYPE_INT64)
    ffm_json_set_error (error, INVALID, doc, value, member_path,
                        "expected a positive integer, got %" G_GINT64_FORMAT,
                        json_node_get_int (value));
  else if (type == G_TYPE_DOUBLE)
    ffm_json_set_error (error, INVALID, doc, value, member_path,
                        "expected a positive integer, got %g", json_node_get_double (value));
  else
    ffm_json_set_error (error, INVALID, doc, value, member_path,
                        "expected a positive integer, got %s",
                        JSON_NODE_HOLDS_OBJECT (value) ? "an object"
                        : JSON_NODE_HOLDS_ARRAY (value) ? "an array"
                        : JSON_NODE_HOLDS_NULL (value) ? "null"
                        : type == G_TYPE_STRING ? "a string" : "a boolean");
  return FALSE;
}

static gboolean
parse_tile (const FfmJsonDoc *doc, JsonNode *object_node, JsonNode *anchor,
            const char *path, const char *kind, guint64 *out, GError **error)
{
  JsonNode *value = require_member (doc, object_node, anchor, path, "tile", kind, error);

  return value != NULL && parse_positive (doc, value, path, "tile", out, error);
}

/* The optional "remainder": the last iteration's tile (checked against the
 * tiles by the cost model). */
static gboolean
parse_remainder (const FfmJsonDoc *doc, JsonNode *object_node,
                 const char *path, guint64 *out, GError **error)
{
  JsonNode *value = ffm_json_get_member (object_node, "remainder");

  return value == NULL || parse_positive (doc, value, path, "remainder", out, error);
}

static char **
parse_tensor_list (const FfmJsonDoc *doc, JsonNode *value, const char *path,
                   GError **error)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *array;

  if (!ffm_json_require_array (doc, value, path, INVALID, error))
    return NULL;
  array = json_node_get_array (value);
  if (json_array_get_length (array) == 0)
    {
      ffm_json_set_error (error, INVALID, doc, value, path,
                          "expected at least one tensor name, got []");
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *element_path = g_strdup_printf ("%s[%u]", path, i);
      const char *name = require_name (doc, json_array_get_element (array, i),
                                       element_path, error);
      if (name == NULL)
        return NULL;
      g_strv_builder_add (builder, name);
    }
  return g_strv_builder_end (builder);
}

/* Finds the one kind member of a node object and its value. */
static gboolean
find_kind (const FfmJsonDoc *doc, JsonNode *object_node, const char *path,
           guint *kind_index, JsonNode **kind_value, GError **error)
{
  g_autofree char *kinds = g_strjoinv (", ", (char **) kind_members);
  const char *first_unknown = NULL;
  JsonNode *unknown_value = NULL;
  JsonObjectIter iter;
  const char *member;
  JsonNode *value;
  gboolean found = FALSE;

  json_object_iter_init_ordered (&iter, json_node_get_object (object_node));
  while (json_object_iter_next_ordered (&iter, &member, &value))
    {
      if (g_strv_contains (kind_members, member))
        {
          if (found)
            {
              ffm_json_set_error (error, INVALID, doc, value, path,
                                  "a node has one kind, but this one has both \"%s\" and \"%s\"",
                                  kind_members[*kind_index], member);
              return FALSE;
            }
          found = TRUE;
          *kind_index = g_strv_length ((char **) kind_members);
          for (guint k = 0; kind_members[k] != NULL; k++)
            if (strcmp (kind_members[k], member) == 0)
              *kind_index = k;
          *kind_value = value;
        }
      else if (first_unknown == NULL && !g_strv_contains (field_members, member))
        {
          first_unknown = member;
          unknown_value = value;
        }
    }
  if (found)
    return TRUE;
  if (first_unknown != NULL)
    ffm_json_set_error (error, INVALID, doc, unknown_value, path,
                        "unknown node kind \"%s\" (expected one of: %s)", first_unknown, kinds);
  else
    ffm_json_set_error (error, INVALID, doc, object_node, path,
                        "no node kind (expected a member among: %s)", kinds);
  return FALSE;
}

static gboolean
parse_branches (const FfmJsonDoc *doc, JsonNode *value, const char *path,
                guint depth, FfmMappingNode *node, GError **error)
{
  g_autofree char *branches_path = g_strdup_printf ("%s.sequential", path);
  JsonArray *array;

  if (!ffm_json_require_array (doc, value, branches_path, INVALID, error))
    return FALSE;
  /* The parser, the cost model and the printers recurse once per split. */
  if (depth >= FFM_MAX_SPLIT_DEPTH)
    {
      ffm_json_set_error (error, INVALID, doc, value, branches_path,
                          "sequential splits nested more than %d deep (the limit "
                          "of ffm's mappings)", FFM_MAX_SPLIT_DEPTH);
      return FALSE;
    }
  array = json_node_get_array (value);
  if (json_array_get_length (array) < 2)
    {
      ffm_json_set_error (error, INVALID, doc, value, branches_path,
                          "a sequential split needs at least 2 branches, got %u",
                          json_array_get_length (array));
      return FALSE;
    }
  for (guint b = 0; b < json_array_get_length (array); b++)
    {
      g_autofree char *branch_path = g_strdup_printf ("%s[%u]", branches_path, b);
      if (!parse_list (doc, json_array_get_element (array, b), branch_path,
                       depth + 1, ffm_mapping_node_add_branch (node), error))
        return FALSE;
    }
  return TRUE;
}

/* The kind-specific members of @node (already allocated). */
static gboolean
parse_fields (const FfmJsonDoc *doc, JsonNode *object_node, JsonNode *kind_value,
              const char *path, guint depth, FfmMappingNode *node, GError **error)
{
  const char *kind = ffm_mapping_node_kind_to_string (node->kind);
  g_autofree char *kind_path = g_strdup_printf ("%s.%s", path, kind);
  const char *name;

  switch (node->kind)
    {
    case FFM_NODE_STORAGE:
      {
        JsonNode *persistent = ffm_json_get_member (object_node, "persistent");
        g_autofree char *persistent_path = g_strdup_printf ("%s.persistent", path);

        node->tensors = parse_tensor_list (doc, kind_value, kind_path, error);
        if (node->tensors == NULL)
          return FALSE;
        if (persistent != NULL
            && !ffm_json_require_bool (doc, persistent, persistent_path, INVALID,
                                       &node->persistent, error))
          return FALSE;
        break;
      }
    case FFM_NODE_TEMPORAL:
    case FFM_NODE_SPATIAL:
      if ((name = require_name (doc, kind_value, kind_path, error)) == NULL)
        return FALSE;
      node->rank_var = g_strdup (name);
      if (!parse_tile (doc, object_node, kind_value, path, kind, &node->tile, error)
          || !parse_remainder (doc, object_node, path, &node->remainder, error)
          || !parse_rank_vars (doc, object_node, path, node, error))
        return FALSE;
      if (node->kind == FFM_NODE_TEMPORAL)
        return TRUE;
      break;
    case FFM_NODE_COMPUTE:
      if ((name = require_name (doc, kind_value, kind_path, error)) == NULL)
        return FALSE;
      node->einsum = g_strdup (name);
      break;
    case FFM_NODE_SEQUENTIAL:
      return parse_branches (doc, kind_value, path, depth, node, error);
    }
  if ((name = member_name (doc, object_node, kind_value, path, "level", kind, error)) == NULL)
    return FALSE;
  node->level = g_strdup (name);
  if (node->kind == FFM_NODE_SPATIAL)
    {
      name = member_name (doc, object_node, kind_value, path, "dimension", kind, error);
      if (name == NULL)
        return FALSE;
      node->dimension = g_strdup (name);
    }
  return TRUE;
}

/* "rank_vars": {"QK": "p"}: the loop's rank variable in particular
 * Einsums (see FfmMappingNode.rank_var_einsums). */
static gboolean
parse_rank_vars (const FfmJsonDoc *doc, JsonNode *object_node,
                 const char *path, FfmMappingNode *node, GError **error)
{
  JsonNode *member = ffm_json_get_member (object_node, "rank_vars");
  g_autofree char *member_path = g_strdup_printf ("%s.rank_vars", path);
  JsonObjectIter iter;
  const char *einsum;
  JsonNode *value;

  if (member == NULL)
    return TRUE;
  if (!ffm_json_require_object (doc, member, member_path, INVALID, error))
    return FALSE;
  json_object_iter_init_ordered (&iter, json_node_get_object (member));
  while (json_object_iter_next_ordered (&iter, &einsum, &value))
    {
      g_autofree char *value_path = g_strdup_printf ("%s.%s", member_path, einsum);
      const char *var = ffm_json_require_string (doc, value, value_path,
                                                 INVALID, error);
      if (var == NULL)
        return FALSE;
      ffm_mapping_node_set_rank_var_for (node, einsum, var);
    }
  return TRUE;
}

static FfmMappingNode *
parse_node (const FfmJsonDoc *doc, JsonNode *object_node, const char *path,
            guint depth, GError **error)
{
  static const char *const *const allowed[] = {
    storage_members, temporal_members, spatial_members, compute_members,
    sequential_members,
  };
  g_autoptr(FfmMappingNode) node = NULL;
  JsonNode *kind_value = NULL;
  guint k = 0;

  if (!ffm_json_require_object (doc, object_node, path, INVALID, error)
      || !find_kind (doc, object_node, path, &k, &kind_value, error)
      || !ffm_json_check_members (doc, object_node, path, allowed[k], INVALID, error))
    return NULL;
  node = g_new0 (FfmMappingNode, 1);
  node->kind = kind_values[k];
  if (node->kind == FFM_NODE_SEQUENTIAL)
    node->branches = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  node->json_path = g_strdup (path);
  node->line = ffm_json_doc_get_line (doc, kind_value);
  if (!parse_fields (doc, object_node, kind_value, path, depth, node, error))
    return NULL;
  return g_steal_pointer (&node);
}

static gboolean
parse_list (const FfmJsonDoc *doc, JsonNode *array_node, const char *path,
            guint depth, GPtrArray *list, GError **error)
{
  JsonArray *array;

  if (!ffm_json_require_array (doc, array_node, path, INVALID, error))
    return FALSE;
  array = json_node_get_array (array_node);
  if (json_array_get_length (array) == 0)
    {
      ffm_json_set_error (error, INVALID, doc, array_node, path,
                          "an empty list (it must end in a compute or a sequential node)");
      return FALSE;
    }
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *node_path = g_strdup_printf ("%s[%u]", path, i);
      FfmMappingNode *node = parse_node (doc, json_array_get_element (array, i),
                                         node_path, depth, error);
      if (node == NULL)
        return FALSE;
      g_ptr_array_add (list, node);
    }
  return TRUE;
}

static gboolean
parse_version (const FfmJsonDoc *doc, JsonNode *root, const char *path,
               GError **error)
{
  JsonNode *value = ffm_json_get_member (root, "ffm_mapping");
  g_autofree char *member_path = g_strdup_printf ("%s.ffm_mapping", path);

  if (value == NULL)
    {
      ffm_json_set_error (error, INVALID, doc, root, path,
                          "missing member \"ffm_mapping\" (the format version, %d)",
                          MAPPING_FORMAT_VERSION);
      return FALSE;
    }
  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_INT64
      && json_node_get_int (value) == MAPPING_FORMAT_VERSION)
    return TRUE;
  ffm_json_set_error (error, INVALID, doc, value, member_path,
                      "expected the format version %d", MAPPING_FORMAT_VERSION);
  return FALSE;
}

/* An optional name member of the mapping object at @path. */
static gboolean
optional_name (const FfmJsonDoc *doc, JsonNode *root, const char *path,
               const char *member, const char **out, GError **error)
{
  JsonNode *value = ffm_json_get_member (root, member);
  g_autofree char *member_path = g_strdup_printf ("%s.%s", path, member);

  *out = NULL;
  if (value == NULL)
    return TRUE;
  *out = require_name (doc, value, member_path, error);
  return *out != NULL;
}

FfmMapping *
ffm_mapping_from_json_node (const FfmJsonDoc *doc, JsonNode *root,
                            const char *path, GError **error)
{
  g_autoptr(FfmMapping) mapping = ffm_mapping_new ();
  g_autofree char *nodes_path = g_strdup_printf ("%s.nodes", path);
  const char *name;
  JsonNode *nodes;

  if (!ffm_json_require_object (doc, root, path, INVALID, error)
      || !ffm_json_check_members (doc, root, path, top_members, INVALID, error)
      || !parse_version (doc, root, path, error))
    return NULL;
  ffm_mapping_set_source_file (mapping, ffm_json_doc_get_name (doc));
  if (!optional_name (doc, root, path, "workload", &name, error))
    return NULL;
  ffm_mapping_set_workload_name (mapping, name);
  if (!optional_name (doc, root, path, "architecture", &name, error))
    return NULL;
  ffm_mapping_set_architecture_name (mapping, name);
  nodes = ffm_json_get_member (root, "nodes");
  if (nodes == NULL)
    {
      ffm_json_set_error (error, INVALID, doc, root, path, "missing member \"nodes\"");
      return NULL;
    }
  if (!parse_list (doc, nodes, nodes_path, 0, ffm_mapping_get_root (mapping), error)
      || !ffm_mapping_check_structure (mapping, error))
    return NULL;
  return g_steal_pointer (&mapping);
}

FfmMapping *
ffm_mapping_load_file (const char *path,
                       GError **error)
{
  g_autoptr(FfmJsonDoc) doc = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  doc = ffm_json_doc_load_file (path, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_PARSE, error);
  return doc ? ffm_mapping_from_json_node (doc, ffm_json_doc_get_root (doc), "$", error) : NULL;
}

FfmMapping *
ffm_mapping_load_from_data (const char *json_text,
                            const char *display_name,
                            GError **error)
{
  g_autoptr(FfmJsonDoc) doc = NULL;

  g_return_val_if_fail (json_text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  doc = ffm_json_doc_load_data (json_text, display_name, FFM_MAPPING_ERROR,
                                FFM_MAPPING_ERROR_PARSE, error);
  return doc ? ffm_mapping_from_json_node (doc, ffm_json_doc_get_root (doc), "$", error) : NULL;
}

/* ---- Writing ---- */

static void write_list (FfmJsonWriter *w, const GPtrArray *list);

/* One node on one line; a sequential's branches span lines. */
static void
write_node (FfmJsonWriter *w, const FfmMappingNode *node)
{
  ffm_json_writer_begin_object_inline (w);
  ffm_json_writer_key (w, ffm_mapping_node_kind_to_string (node->kind));
  switch (node->kind)
    {
    case FFM_NODE_STORAGE:
      ffm_json_writer_begin_array_inline (w);
      for (guint i = 0; node->tensors != NULL && node->tensors[i] != NULL; i++)
        ffm_json_writer_string (w, node->tensors[i]);
      ffm_json_writer_end_array (w);
      ffm_json_writer_member_string (w, "level", node->level ? node->level : "");
      if (node->persistent)
        ffm_json_writer_member_boolean (w, "persistent", TRUE);
      break;
    case FFM_NODE_TEMPORAL:
    case FFM_NODE_SPATIAL:
      ffm_json_writer_string (w, node->rank_var ? node->rank_var : "");
      ffm_json_writer_member_uint (w, "tile", node->tile);
      if (node->remainder != 0)
        ffm_json_writer_member_uint (w, "remainder", node->remainder);
      if (node->rank_var_einsums != NULL && node->rank_var_einsums[0] != NULL)
        {
          ffm_json_writer_key (w, "rank_vars");
          ffm_json_writer_begin_object_inline (w);
          for (guint i = 0; node->rank_var_einsums[i] != NULL; i++)
            ffm_json_writer_member_string (w, node->rank_var_einsums[i],
                                           node->rank_var_names[i]);
          ffm_json_writer_end_object (w);
        }
      if (node->kind == FFM_NODE_SPATIAL)
        {
          ffm_json_writer_member_string (w, "level", node->level ? node->level : "");
          ffm_json_writer_member_string (w, "dimension",
                                         node->dimension ? node->dimension : "");
        }
      break;
    case FFM_NODE_COMPUTE:
      ffm_json_writer_string (w, node->einsum ? node->einsum : "");
      ffm_json_writer_member_string (w, "level", node->level ? node->level : "");
      break;
    case FFM_NODE_SEQUENTIAL:
      ffm_json_writer_begin_array (w);
      for (guint b = 0; node->branches != NULL && b < node->branches->len; b++)
        write_list (w, g_ptr_array_index (node->branches, b));
      ffm_json_writer_end_array (w);
      break;
    }
  ffm_json_writer_end_object (w);
}

static void
write_list (FfmJsonWriter *w, const GPtrArray *list)
{
  ffm_json_writer_begin_array (w);
  for (guint i = 0; i < list->len; i++)
    write_node (w, g_ptr_array_index (list, i));
  ffm_json_writer_end_array (w);
}

void
ffm_mapping_write_json (const FfmMapping *mapping, FfmJsonWriter *w)
{
  g_return_if_fail (mapping != NULL);
  g_return_if_fail (w != NULL);

  ffm_json_writer_begin_object (w);
  ffm_json_writer_member_int (w, "ffm_mapping", MAPPING_FORMAT_VERSION);
  if (ffm_mapping_get_workload_name (mapping) != NULL)
    ffm_json_writer_member_string (w, "workload", ffm_mapping_get_workload_name (mapping));
  if (ffm_mapping_get_architecture_name (mapping) != NULL)
    ffm_json_writer_member_string (w, "architecture",
                                   ffm_mapping_get_architecture_name (mapping));
  ffm_json_writer_key (w, "nodes");
  write_list (w, ffm_mapping_peek_root (mapping));
  ffm_json_writer_end_object (w);
}

char *
ffm_mapping_to_json (const FfmMapping *mapping)
{
  g_autoptr (FfmJsonWriter) w = ffm_json_writer_new ();

  g_return_val_if_fail (mapping != NULL, NULL);
  ffm_mapping_write_json (mapping, w);
  return ffm_json_writer_finish (w);
}

gboolean
ffm_mapping_save_file (const FfmMapping *mapping,
                       const char *path,
                       GError **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (mapping != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  text = ffm_mapping_to_json (mapping);
  return ffm_output_file_write (path, text, -1, error);
}
