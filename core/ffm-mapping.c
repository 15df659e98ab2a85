/* ffm-mapping.c: the LoopTree data model, its structural checks and its
 * printing as a tree and as loop-nest pseudo-code (see ffm-mapping.h).
 * The JSON reader and writer are in ffm-mapping-json.c. */
#include <ffm/ffm-mapping.h>

#include <stdarg.h>
#include <string.h>

struct _FfmMapping {
  GPtrArray *root;          /* of FfmMappingNode*, owns them */
  char *source_file;        /* file (or display name) read from, or NULL */
  char *workload;           /* optional workload name, or NULL */
  char *architecture;       /* optional architecture name, or NULL */
};

/* ---- Nodes ---- */

static FfmMappingNode *
node_alloc (FfmNodeKind kind)
{
  FfmMappingNode *node = g_new0 (FfmMappingNode, 1);

  node->kind = kind;
  return node;
}

GPtrArray *
ffm_mapping_node_list_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_mapping_node_free);
}

FfmMappingNode *
ffm_mapping_node_new_storage (const char *const *tensors,
                              const char *level,
                              gboolean persistent)
{
  FfmMappingNode *node;

  g_return_val_if_fail (tensors != NULL, NULL);
  g_return_val_if_fail (level != NULL, NULL);

  node = node_alloc (FFM_NODE_STORAGE);
  node->tensors = g_strdupv ((char **) tensors);
  node->level = g_strdup (level);
  node->persistent = persistent != FALSE;
  return node;
}

FfmMappingNode *
ffm_mapping_node_new_temporal (const char *rank_var,
                               guint64 tile)
{
  FfmMappingNode *node;

  g_return_val_if_fail (rank_var != NULL, NULL);

  node = node_alloc (FFM_NODE_TEMPORAL);
  node->rank_var = g_strdup (rank_var);
  node->tile = tile;
  return node;
}

FfmMappingNode *
ffm_mapping_node_new_spatial (const char *rank_var,
                              guint64 tile,
                              const char *fanout_level,
                              const char *dimension)
{
  FfmMappingNode *node;

  g_return_val_if_fail (rank_var != NULL, NULL);
  g_return_val_if_fail (fanout_level != NULL, NULL);
  g_return_val_if_fail (dimension != NULL, NULL);

  node = node_alloc (FFM_NODE_SPATIAL);
  node->rank_var = g_strdup (rank_var);
  node->tile = tile;
  node->level = g_strdup (fanout_level);
  node->dimension = g_strdup (dimension);
  return node;
}

FfmMappingNode *
ffm_mapping_node_new_compute (const char *einsum,
                              const char *compute_level)
{
  FfmMappingNode *node;

  g_return_val_if_fail (einsum != NULL, NULL);
  g_return_val_if_fail (compute_level != NULL, NULL);

  node = node_alloc (FFM_NODE_COMPUTE);
  node->einsum = g_strdup (einsum);
  node->level = g_strdup (compute_level);
  return node;
}

FfmMappingNode *
ffm_mapping_node_new_sequential (void)
{
  FfmMappingNode *node = node_alloc (FFM_NODE_SEQUENTIAL);

  node->branches = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  return node;
}

GPtrArray *
ffm_mapping_node_add_branch (FfmMappingNode *sequential)
{
  GPtrArray *branch;

  g_return_val_if_fail (sequential != NULL, NULL);
  g_return_val_if_fail (sequential->kind == FFM_NODE_SEQUENTIAL, NULL);

  branch = ffm_mapping_node_list_new ();
  g_ptr_array_add (sequential->branches, branch);
  return branch;
}

void
ffm_mapping_node_free (FfmMappingNode *node)
{
  if (node == NULL)
    return;
  g_strfreev (node->tensors);
  g_free (node->level);
  g_free (node->rank_var);
  g_free (node->dimension);
  g_free (node->einsum);
  if (node->branches != NULL)
    g_ptr_array_unref (node->branches);
  g_free (node->json_path);
  g_strfreev (node->rank_var_einsums);
  g_strfreev (node->rank_var_names);
  g_free (node);
}

static GPtrArray *
node_list_copy (const GPtrArray *list)
{
  GPtrArray *copy = ffm_mapping_node_list_new ();

  for (guint i = 0; i < list->len; i++)
    g_ptr_array_add (copy, ffm_mapping_node_copy (g_ptr_array_index (list, i)));
  return copy;
}

FfmMappingNode *
ffm_mapping_node_copy (const FfmMappingNode *node)
{
  FfmMappingNode *copy;

  g_return_val_if_fail (node != NULL, NULL);

  copy = node_alloc (node->kind);
  copy->tensors = g_strdupv (node->tensors);
  copy->level = g_strdup (node->level);
  copy->persistent = node->persistent;
  copy->rank_var = g_strdup (node->rank_var);
  copy->tile = node->tile;
  copy->dimension = g_strdup (node->dimension);
  copy->einsum = g_strdup (node->einsum);
  if (node->branches != NULL)
    {
      copy->branches = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
      for (guint b = 0; b < node->branches->len; b++)
        g_ptr_array_add (copy->branches,
                         node_list_copy (g_ptr_array_index (node->branches, b)));
    }
  copy->json_path = g_strdup (node->json_path);
  copy->line = node->line;
  copy->rank_var_einsums = g_strdupv (node->rank_var_einsums);
  copy->rank_var_names = g_strdupv (node->rank_var_names);
  copy->remainder = node->remainder;
  return copy;
}

const char *
ffm_mapping_node_get_rank_var_for (const FfmMappingNode *node,
                                   const char *einsum)
{
  g_return_val_if_fail (node != NULL, NULL);

  for (guint i = 0; einsum != NULL && node->rank_var_einsums != NULL
                    && node->rank_var_einsums[i] != NULL; i++)
    if (strcmp (node->rank_var_einsums[i], einsum) == 0)
      return node->rank_var_names[i];
  return node->rank_var;
}

void
ffm_mapping_node_set_rank_var_for (FfmMappingNode *node,
                                   const char *einsum,
                                   const char *rank_var)
{
  guint n = node->rank_var_einsums ? g_strv_length (node->rank_var_einsums) : 0;

  g_return_if_fail (node != NULL && einsum != NULL && rank_var != NULL);

  for (guint i = 0; i < n; i++)
    if (strcmp (node->rank_var_einsums[i], einsum) == 0)
      {
        g_free (node->rank_var_names[i]);
        node->rank_var_names[i] = g_strdup (rank_var);
        return;
      }
  node->rank_var_einsums = g_renew (char *, node->rank_var_einsums, n + 2);
  node->rank_var_names = g_renew (char *, node->rank_var_names, n + 2);
  node->rank_var_einsums[n] = g_strdup (einsum);
  node->rank_var_names[n] = g_strdup (rank_var);
  node->rank_var_einsums[n + 1] = NULL;
  node->rank_var_names[n + 1] = NULL;
}

const char *
ffm_mapping_node_kind_to_string (FfmNodeKind kind)
{
  switch (kind)
    {
    case FFM_NODE_STORAGE:
      return "storage";
    case FFM_NODE_TEMPORAL:
      return "temporal";
    case FFM_NODE_SPATIAL:
      return "spatial";
    case FFM_NODE_COMPUTE:
      return "compute";
    case FFM_NODE_SEQUENTIAL:
      return "sequential";
    }
  return "unknown";
}

/* ---- Mappings ---- */

FfmMapping *
ffm_mapping_new (void)
{
  FfmMapping *mapping = g_new0 (FfmMapping, 1);

  mapping->root = ffm_mapping_node_list_new ();
  return mapping;
}

void
ffm_mapping_free (FfmMapping *mapping)
{
  if (mapping == NULL)
    return;
  g_ptr_array_unref (mapping->root);
  g_free (mapping->source_file);
  g_free (mapping->workload);
  g_free (mapping->architecture);
  g_free (mapping);
}

FfmMapping *
ffm_mapping_copy (const FfmMapping *mapping)
{
  FfmMapping *copy;

  g_return_val_if_fail (mapping != NULL, NULL);

  copy = g_new0 (FfmMapping, 1);
  copy->root = node_list_copy (mapping->root);
  copy->source_file = g_strdup (mapping->source_file);
  copy->workload = g_strdup (mapping->workload);
  copy->architecture = g_strdup (mapping->architecture);
  return copy;
}

GPtrArray *
ffm_mapping_get_root (FfmMapping *mapping)
{
  g_return_val_if_fail (mapping != NULL, NULL);
  return mapping->root;
}

const GPtrArray *
ffm_mapping_peek_root (const FfmMapping *mapping)
{
  g_return_val_if_fail (mapping != NULL, NULL);
  return mapping->root;
}

const char *
ffm_mapping_get_source_file (const FfmMapping *mapping)
{
  g_return_val_if_fail (mapping != NULL, NULL);
  return mapping->source_file;
}

void
ffm_mapping_set_source_file (FfmMapping *mapping,
                             const char *source_file)
{
  g_return_if_fail (mapping != NULL);
  g_free (mapping->source_file);
  mapping->source_file = g_strdup (source_file);
}

const char *
ffm_mapping_get_workload_name (const FfmMapping *mapping)
{
  g_return_val_if_fail (mapping != NULL, NULL);
  return mapping->workload;
}

void
ffm_mapping_set_workload_name (FfmMapping *mapping,
                               const char *name)
{
  g_return_if_fail (mapping != NULL);
  g_free (mapping->workload);
  mapping->workload = g_strdup (name);
}

const char *
ffm_mapping_get_architecture_name (const FfmMapping *mapping)
{
  g_return_val_if_fail (mapping != NULL, NULL);
  return mapping->architecture;
}

void
ffm_mapping_set_architecture_name (FfmMapping *mapping,
                                   const char *name)
{
  g_return_if_fail (mapping != NULL);
  g_free (mapping->architecture);
  mapping->architecture = g_strdup (name);
}

/* ---- Equality ---- */

static gboolean
strv_equal0 (char **a, char **b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strv_equal ((const char *const *) a, (const char *const *) b);
}

static gboolean
node_list_equal (const GPtrArray *a, const GPtrArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    if (!ffm_mapping_node_equal (g_ptr_array_index (a, i), g_ptr_array_index (b, i)))
      return FALSE;
  return TRUE;
}

gboolean
ffm_mapping_node_equal (const FfmMappingNode *a,
                        const FfmMappingNode *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (a->kind != b->kind
      || !strv_equal0 (a->tensors, b->tensors)
      || g_strcmp0 (a->level, b->level) != 0
      || (a->persistent != FALSE) != (b->persistent != FALSE)
      || g_strcmp0 (a->rank_var, b->rank_var) != 0
      || a->tile != b->tile
      || g_strcmp0 (a->dimension, b->dimension) != 0
      || g_strcmp0 (a->einsum, b->einsum) != 0
      || !strv_equal0 (a->rank_var_einsums, b->rank_var_einsums)
      || !strv_equal0 (a->rank_var_names, b->rank_var_names))
    return FALSE;
  if (a->branches == NULL || b->branches == NULL)
    return a->branches == b->branches;
  if (a->branches->len != b->branches->len)
    return FALSE;
  for (guint i = 0; i < a->branches->len; i++)
    if (!node_list_equal (g_ptr_array_index (a->branches, i),
                          g_ptr_array_index (b->branches, i)))
      return FALSE;
  return TRUE;
}

gboolean
ffm_mapping_equal (const FfmMapping *a,
                   const FfmMapping *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  return g_strcmp0 (a->workload, b->workload) == 0
         && g_strcmp0 (a->architecture, b->architecture) == 0
         && node_list_equal (a->root, b->root);
}

/* ---- Structural checks ---- */

/* Sets "FILE:LINE: PATH: message", leaving out what is unknown; the same
 * shape as the JSON loaders' messages. */
static void G_GNUC_PRINTF (5, 6)
set_structure_error (GError **error, const FfmMapping *mapping, int line,
                     const char *path, const char *format, ...)
{
  g_autofree char *message = NULL;
  GString *where = g_string_new (NULL);
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (mapping->source_file != NULL)
    {
      g_string_append (where, mapping->source_file);
      if (line > 0)
        g_string_append_printf (where, ":%d", line);
      g_string_append (where, ": ");
    }
  g_string_append_printf (where, "%s: %s", path, message);
  g_set_error_literal (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID, where->str);
  g_string_free (where, TRUE);
}

static gboolean check_list (const FfmMapping *mapping, const GPtrArray *list,
                            const char *path, int line, GError **error);

static gboolean
is_name (const char *s)
{
  return s != NULL && s[0] != '\0';
}

/* Checks one node's own fields; @path names it. */
static gboolean
check_node_fields (const FfmMapping *mapping, const FfmMappingNode *node,
                   const char *path, GError **error)
{
  const char *kind = ffm_mapping_node_kind_to_string (node->kind);

  switch (node->kind)
    {
    case FFM_NODE_STORAGE:
      if (node->tensors == NULL || node->tensors[0] == NULL)
        {
          set_structure_error (error, mapping, node->line, path,
                               "a storage node needs at least one tensor");
          return FALSE;
        }
      for (guint i = 0; node->tensors[i] != NULL; i++)
        {
          if (!is_name (node->tensors[i]))
            {
              set_structure_error (error, mapping, node->line, path,
                                   "tensor %u has an empty name", i);
              return FALSE;
            }
          for (guint j = 0; j < i; j++)
            if (strcmp (node->tensors[i], node->tensors[j]) == 0)
              {
                set_structure_error (error, mapping, node->line, path,
                                     "tensor \"%s\" is listed twice", node->tensors[i]);
                return FALSE;
              }
        }
      break;
    case FFM_NODE_TEMPORAL:
    case FFM_NODE_SPATIAL:
      if (!is_name (node->rank_var))
        {
          set_structure_error (error, mapping, node->line, path,
                               "a %s loop needs a rank variable", kind);
          return FALSE;
        }
      for (guint i = 0; node->rank_var_einsums != NULL
                        && node->rank_var_einsums[i] != NULL; i++)
        if (!is_name (node->rank_var_einsums[i]) || !is_name (node->rank_var_names[i]))
          {
            set_structure_error (error, mapping, node->line, path,
                                 "rank_vars: \"%s\": \"%s\" is not an Einsum "
                                 "name and a rank variable name",
                                 node->rank_var_einsums[i], node->rank_var_names[i]);
            return FALSE;
          }
      if (node->tile == 0)
        {
          set_structure_error (error, mapping, node->line, path,
                               "the tile of a loop must be at least 1, got 0");
          return FALSE;
        }
      if (node->remainder >= node->tile)
        {
          set_structure_error (error, mapping, node->line, path,
                               "the remainder %" G_GUINT64_FORMAT " of a loop "
                               "must be smaller than its tile %" G_GUINT64_FORMAT,
                               node->remainder, node->tile);
          return FALSE;
        }
      if (node->kind == FFM_NODE_SPATIAL && !is_name (node->dimension))
        {
          set_structure_error (error, mapping, node->line, path,
                               "a spatial loop needs a fanout dimension");
          return FALSE;
        }
      break;
    case FFM_NODE_COMPUTE:
      if (!is_name (node->einsum))
        {
          set_structure_error (error, mapping, node->line, path,
                               "a compute node needs an Einsum name");
          return FALSE;
        }
      break;
    case FFM_NODE_SEQUENTIAL:
      return TRUE;
    default:
      set_structure_error (error, mapping, node->line, path,
                           "unknown node kind %d", (int) node->kind);
      return FALSE;
    }
  if (node->kind != FFM_NODE_TEMPORAL && !is_name (node->level))
    {
      set_structure_error (error, mapping, node->line, path,
                           "a %s node needs a level", kind);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_sequential (const FfmMapping *mapping, const FfmMappingNode *node,
                  const char *path, GError **error)
{
  if (node->branches == NULL || node->branches->len < 2)
    {
      set_structure_error (error, mapping, node->line, path,
                           "a sequential split needs at least 2 branches, got %u",
                           node->branches ? node->branches->len : 0);
      return FALSE;
    }
  for (guint b = 0; b < node->branches->len; b++)
    {
      g_autofree char *branch_path = g_strdup_printf ("%s.sequential[%u]", path, b);
      if (!check_list (mapping, g_ptr_array_index (node->branches, b), branch_path,
                       node->line, error))
        return FALSE;
    }
  return TRUE;
}

/* @line is where the list is, for the message about an empty one. */
static gboolean
check_list (const FfmMapping *mapping, const GPtrArray *list, const char *path,
            int line, GError **error)
{
  if (list->len == 0)
    {
      set_structure_error (error, mapping, line, path,
                           "an empty list (it must end in a compute or a sequential node)");
      return FALSE;
    }
  for (guint i = 0; i < list->len; i++)
    {
      const FfmMappingNode *node = g_ptr_array_index (list, i);
      g_autofree char *node_path = g_strdup_printf ("%s[%u]", path, i);
      gboolean last = i + 1 == list->len;
      gboolean ends = node->kind == FFM_NODE_COMPUTE || node->kind == FFM_NODE_SEQUENTIAL;

      if (!check_node_fields (mapping, node, node_path, error))
        return FALSE;
      if (ends && !last)
        {
          set_structure_error (error, mapping, node->line, node_path,
                               "a %s node must be the last of its list, but %u node%s follow%s",
                               ffm_mapping_node_kind_to_string (node->kind),
                               list->len - i - 1, list->len - i - 1 == 1 ? "" : "s",
                               list->len - i - 1 == 1 ? "s" : "");
          return FALSE;
        }
      if (!ends && last)
        {
          set_structure_error (error, mapping, node->line, node_path,
                               "the list ends in a %s node (it must end in a compute or a sequential node)",
                               ffm_mapping_node_kind_to_string (node->kind));
          return FALSE;
        }
      if (node->kind == FFM_NODE_SEQUENTIAL
          && !check_sequential (mapping, node, node_path, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
ffm_mapping_check_structure (const FfmMapping *mapping,
                             GError **error)
{
  g_return_val_if_fail (mapping != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return check_list (mapping, mapping->root, "$.nodes", 0, error);
}

/* ---- Paths ---- */

static void
collect_paths (const GPtrArray *list, GPtrArray *prefix, GPtrArray *paths)
{
  guint saved = prefix->len;

  for (guint i = 0; i < list->len; i++)
    {
      FfmMappingNode *node = g_ptr_array_index (list, i);

      if (node->kind == FFM_NODE_SEQUENTIAL)
        {
          for (guint b = 0; node->branches != NULL && b < node->branches->len; b++)
            collect_paths (g_ptr_array_index (node->branches, b), prefix, paths);
          continue;
        }
      g_ptr_array_add (prefix, node);
      if (node->kind == FFM_NODE_COMPUTE)
        {
          GPtrArray *path = g_ptr_array_sized_new (prefix->len);
          for (guint k = 0; k < prefix->len; k++)
            g_ptr_array_add (path, g_ptr_array_index (prefix, k));
          g_ptr_array_add (paths, path);
        }
    }
  g_ptr_array_set_size (prefix, saved);
}

GPtrArray *
ffm_mapping_dup_paths (const FfmMapping *mapping)
{
  g_autoptr(GPtrArray) prefix = g_ptr_array_new ();
  GPtrArray *paths;

  g_return_val_if_fail (mapping != NULL, NULL);

  paths = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  collect_paths (mapping->root, prefix, paths);
  return paths;
}

/* ---- Remainders ---- */

void
ffm_mapping_set_remainders (FfmMapping *mapping, const FfmWorkload *workload)
{
  g_autoptr(GPtrArray) paths = NULL;

  g_return_if_fail (mapping != NULL && workload != NULL);

  paths = ffm_mapping_dup_paths (mapping);
  for (guint p = 0; p < paths->len; p++)
    {
      GPtrArray *path = g_ptr_array_index (paths, p);
      const FfmMappingNode *leaf = g_ptr_array_index (path, path->len - 1);
      int einsum = ffm_workload_find_einsum (workload, leaf->einsum);
      const FfmEinsum *e;
      guint64 tile[FFM_MAX_EINSUM_RANK_VARS];

      if (einsum < 0)
        continue;
      e = ffm_workload_get_einsum (workload, einsum);
      memcpy (tile, e->rank_var_bounds, sizeof tile);
      for (guint k = 0; k + 1 < path->len; k++)
        {
          FfmMappingNode *node = g_ptr_array_index (path, k);
          int v;
          if ((node->kind != FFM_NODE_TEMPORAL && node->kind != FFM_NODE_SPATIAL)
              || node->tile == 0)
            continue;
          v = ffm_einsum_find_rank_var (e, ffm_mapping_node_get_rank_var_for (node, e->name));
          if (v < 0 || node->tile > tile[v])
            continue;
          node->remainder = tile[v] % node->tile;
          tile[v] = node->tile;
        }
    }
}

/* ---- Printing as a tree ---- */

static void
append_spaces (GString *out, guint n)
{
  for (guint i = 0; i < n; i++)
    g_string_append_c (out, ' ');
}

/* " (QK: p, AV: p)" for a loop with per-Einsum rank variables. */
static void
append_rank_var_renames (GString *out, const FfmMappingNode *node)
{
  if (node->rank_var_einsums == NULL || node->rank_var_einsums[0] == NULL)
    return;
  g_string_append (out, " (");
  for (guint i = 0; node->rank_var_einsums[i] != NULL; i++)
    g_string_append_printf (out, "%s%s: %s", i > 0 ? ", " : "",
                            node->rank_var_einsums[i], node->rank_var_names[i]);
  g_string_append_c (out, ')');
}

static void
append_tensor_list (GString *out, char **tensors)
{
  for (guint i = 0; tensors != NULL && tensors[i] != NULL; i++)
    g_string_append_printf (out, "%s%s", i ? ", " : "", tensors[i]);
}

/* " (4 iterations)" when @iterations knows the loop. */
static void
append_iterations (GString *out, GHashTable *iterations, const FfmMappingNode *node)
{
  gpointer value;
  guint64 n;

  if (iterations == NULL || !g_hash_table_lookup_extended (iterations, node, NULL, &value))
    return;
  n = *(const guint64 *) value;
  g_string_append_printf (out, " (%" G_GUINT64_FORMAT " %s%s)", n,
                          node->kind == FFM_NODE_SPATIAL ? "instance" : "iteration",
                          n == 1 ? "" : "s");
}

/* One line of text for a node, without indentation or newline;
 * @iterations (may be NULL) maps loop nodes to their iterations. */
static void
append_node_text (GString *out, const FfmMappingNode *node, GHashTable *iterations)
{
  switch (node->kind)
    {
    case FFM_NODE_STORAGE:
      g_string_append_printf (out, "%s: ", node->level);
      append_tensor_list (out, node->tensors);
      if (node->persistent)
        g_string_append (out, " (persistent)");
      break;
    case FFM_NODE_TEMPORAL:
      g_string_append_printf (out, "for %s", node->rank_var);
      append_rank_var_renames (out, node);
      g_string_append_printf (out, " tile %" G_GUINT64_FORMAT, node->tile);
      if (node->remainder != 0)
        g_string_append_printf (out, " (remainder %" G_GUINT64_FORMAT ")",
                                node->remainder);
      append_iterations (out, iterations, node);
      break;
    case FFM_NODE_SPATIAL:
      g_string_append_printf (out, "parallel-for %s", node->rank_var);
      append_rank_var_renames (out, node);
      g_string_append_printf (out, " tile %" G_GUINT64_FORMAT, node->tile);
      if (node->remainder != 0)
        g_string_append_printf (out, " (remainder %" G_GUINT64_FORMAT ")",
                                node->remainder);
      g_string_append_printf (out, " across %s.%s", node->level, node->dimension);
      append_iterations (out, iterations, node);
      break;
    case FFM_NODE_COMPUTE:
      g_string_append_printf (out, "compute %s on %s", node->einsum, node->level);
      break;
    case FFM_NODE_SEQUENTIAL:
      g_string_append (out, "sequential");
      break;
    default:
      g_string_append (out, "?");
      break;
    }
}

static gboolean
is_loop (const FfmMappingNode *node)
{
  return node->kind == FFM_NODE_TEMPORAL || node->kind == FFM_NODE_SPATIAL;
}

/* Prints @list; each line starts with @guide (the branch rails of the
 * enclosing splits), except the first, which starts with @first_guide. */
static void
print_tree_list (GString *out, const GPtrArray *list, const char *guide,
                 const char *first_guide, GHashTable *iterations)
{
  guint indent = 0;

  for (guint i = 0; i < list->len; i++)
    {
      const FfmMappingNode *node = g_ptr_array_index (list, i);

      g_string_append (out, i == 0 ? first_guide : guide);
      append_spaces (out, indent);
      append_node_text (out, node, iterations);
      g_string_append_c (out, '\n');
      if (is_loop (node))
        indent += 2;
      if (node->kind != FFM_NODE_SEQUENTIAL || node->branches == NULL)
        continue;
      for (guint b = 0; b < node->branches->len; b++)
        {
          gboolean last = b + 1 == node->branches->len;
          g_autoptr(GString) base = g_string_new (guide);
          g_autofree char *first = NULL;
          g_autofree char *rest = NULL;

          append_spaces (base, indent);
          first = g_strconcat (base->str, last ? "└── " : "├── ", NULL);
          rest = g_strconcat (base->str, last ? "    " : "│   ", NULL);
          print_tree_list (out, g_ptr_array_index (node->branches, b), rest, first,
                           iterations);
        }
    }
}

char *
ffm_mapping_to_tree_string (const FfmMapping *mapping)
{
  GString *out;

  g_return_val_if_fail (mapping != NULL, NULL);

  out = g_string_new (NULL);
  print_tree_list (out, mapping->root, "", "", NULL);
  return g_string_free (out, FALSE);
}

/* Loop node -> iterations (guint64 *, owned), from the first path through
 * each loop whose Einsum and rank variable @workload knows. */
static GHashTable *
loop_iterations (const FfmMapping *mapping, const FfmWorkload *workload)
{
  GHashTable *out = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr(GPtrArray) paths = ffm_mapping_dup_paths (mapping);

  for (guint p = 0; p < paths->len; p++)
    {
      const GPtrArray *path = g_ptr_array_index (paths, p);
      const FfmMappingNode *compute = g_ptr_array_index (path, path->len - 1);
      int e = ffm_workload_find_einsum (workload, compute->einsum);
      const FfmEinsum *einsum;
      guint64 enclosing[FFM_MAX_EINSUM_RANK_VARS];

      if (e < 0)
        continue;
      einsum = ffm_workload_get_einsum (workload, (guint) e);
      memcpy (enclosing, einsum->rank_var_bounds, sizeof enclosing);
      for (guint k = 0; k + 1 < path->len; k++)
        {
          const FfmMappingNode *node = g_ptr_array_index (path, k);
          int v;
          if (!is_loop (node) || node->tile == 0)
            continue;
          v = ffm_einsum_find_rank_var (einsum,
                                        ffm_mapping_node_get_rank_var_for (node, einsum->name));
          if (v < 0)
            continue;
          if (!g_hash_table_contains (out, node))
            {
              guint64 *n = g_new (guint64, 1);
              *n = enclosing[v] / node->tile + (enclosing[v] % node->tile != 0);
              g_hash_table_insert (out, (gpointer) node, n);
            }
          enclosing[v] = node->tile;
        }
    }
  return out;
}

char *
ffm_mapping_to_tree_string_for_workload (const FfmMapping *mapping,
                                         const FfmWorkload *workload)
{
  g_autoptr(GHashTable) iterations = NULL;
  GString *out;

  g_return_val_if_fail (mapping != NULL, NULL);
  g_return_val_if_fail (workload != NULL, NULL);

  iterations = loop_iterations (mapping, workload);
  out = g_string_new (NULL);
  print_tree_list (out, mapping->root, "", "", iterations);
  return g_string_free (out, FALSE);
}

/* ---- Printing as a loop nest ---- */

/* What the loops above a point did to one rank variable. */
typedef struct {
  const char *rank_var;     /* borrowed from the node */
  guint count;              /* loops over it so far on this path */
  guint64 tile;             /* tile of the innermost of them (values) */
} LoopState;

typedef struct {
  const char *const *rank_vars;  /* known bounds: names, may be NULL */
  const guint64 *bounds;         /* and values */
  GArray *state;                 /* of LoopState, one per rank variable seen */
} LoopNestPrinter;

static LoopState *
find_state (LoopNestPrinter *p, const char *rank_var)
{
  for (guint i = 0; i < p->state->len; i++)
    {
      LoopState *s = &g_array_index (p->state, LoopState, i);
      if (strcmp (s->rank_var, rank_var) == 0)
        return s;
    }
  return NULL;
}

static void
append_bound (GString *out, LoopNestPrinter *p, const char *rank_var)
{
  for (guint i = 0; p->rank_vars != NULL && p->rank_vars[i] != NULL; i++)
    if (strcmp (p->rank_vars[i], rank_var) == 0)
      {
        g_string_append_printf (out, "%" G_GUINT64_FORMAT, p->bounds[i]);
        return;
      }
  g_string_append_printf (out, "|%s|", rank_var);
}

/* "m_2 in [0, 16/4)" for a loop, updating the per-path state. The state
 * array may grow, so no LoopState pointer is kept across the append. */
static void
append_loop_range (GString *out, LoopNestPrinter *p, const FfmMappingNode *node)
{
  const char *var = node->rank_var ? node->rank_var : "?";
  LoopState *s = find_state (p, var);
  guint count = s ? s->count + 1 : 1;

  g_string_append_printf (out, "%s_%u in [0, %s", var, count,
                          node->remainder != 0 ? "ceil(" : "");
  if (s != NULL)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT, s->tile);
  else
    append_bound (out, p, var);
  g_string_append_printf (out, "/%" G_GUINT64_FORMAT ")%s", node->tile,
                          node->remainder != 0 ? ")" : "");
  if (s != NULL)
    {
      s->count = count;
      s->tile = node->tile;
    }
  else
    {
      LoopState fresh = { var, count, node->tile };
      g_array_append_val (p->state, fresh);
    }
}

static void
append_last_tile (GString *out, const FfmMappingNode *node)
{
  if (node->remainder != 0)
    g_string_append_printf (out, "  // last tile %" G_GUINT64_FORMAT,
                            node->remainder);
}

/* @label numbers the branch holding @list ("2.1": first branch of a split
 * inside the second branch of the outer split), "" at the root. */
static void
print_loop_nest_list (GString *out, LoopNestPrinter *p, const GPtrArray *list,
                      guint indent, const char *label)
{
  g_autoptr(GArray) saved = g_array_copy (p->state);

  for (guint i = 0; i < list->len; i++)
    {
      const FfmMappingNode *node = g_ptr_array_index (list, i);

      if (node->kind == FFM_NODE_SEQUENTIAL)
        {
          guint n = node->branches ? node->branches->len : 0;
          for (guint b = 0; b < n; b++)
            {
              g_autofree char *sub = g_strdup_printf ("%s%s%u", label,
                                                      label[0] ? "." : "", b + 1);
              append_spaces (out, indent);
              g_string_append_printf (out, "// branch %s of %u\n", sub, n);
              print_loop_nest_list (out, p, g_ptr_array_index (node->branches, b),
                                    indent, sub);
            }
          continue;
        }
      append_spaces (out, indent);
      switch (node->kind)
        {
        case FFM_NODE_STORAGE:
          g_string_append_printf (out, "// %s holds ", node->level);
          append_tensor_list (out, node->tensors);
          if (node->persistent)
            g_string_append (out, " (persistent)");
          break;
        case FFM_NODE_TEMPORAL:
          g_string_append (out, "for ");
          append_loop_range (out, p, node);
          g_string_append_c (out, ':');
          append_last_tile (out, node);
          indent += 2;
          break;
        case FFM_NODE_SPATIAL:
          g_string_append (out, "parallel-for ");
          append_loop_range (out, p, node);
          g_string_append_printf (out, " across %s.%s:", node->level, node->dimension);
          append_last_tile (out, node);
          indent += 2;
          break;
        case FFM_NODE_COMPUTE:
          g_string_append_printf (out, "%s()  // on %s", node->einsum, node->level);
          break;
        default:
          g_string_append (out, "// ?");
          break;
        }
      g_string_append_c (out, '\n');
    }
  /* A branch's loops do not enclose the next branch. */
  g_array_set_size (p->state, 0);
  g_array_append_vals (p->state, saved->data, saved->len);
}

char *
ffm_mapping_to_loop_nest_string_with_bounds (const FfmMapping *mapping,
                                             const char *const *rank_vars,
                                             const guint64 *bounds)
{
  LoopNestPrinter printer = { rank_vars, bounds, NULL };
  GString *out;

  g_return_val_if_fail (mapping != NULL, NULL);
  g_return_val_if_fail (rank_vars == NULL || bounds != NULL, NULL);

  printer.state = g_array_new (FALSE, FALSE, sizeof (LoopState));
  out = g_string_new (NULL);
  print_loop_nest_list (out, &printer, mapping->root, 0, "");
  g_array_unref (printer.state);
  return g_string_free (out, FALSE);
}

char *
ffm_mapping_to_loop_nest_string (const FfmMapping *mapping)
{
  return ffm_mapping_to_loop_nest_string_with_bounds (mapping, NULL, NULL);
}
