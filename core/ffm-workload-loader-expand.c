/* ffm-workload-loader-expand.c: expansion (phase 1): checks, rank sizes,
 * tensor declarations, and the Einsum list with its repeat blocks unrolled
 * and `when` evaluated (ffm-workload-loader-private.h). */
#include "ffm-workload-loader-private.h"

/* ---- checks, ranks ---- */

gboolean
loader_read_checks (Loader *L, JsonNode *root)
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

      if (!loader_check_object (L, check, path, allowed))
        return FALSE;
      if ((when = ffm_json_get_member (check, "when")) != NULL)
        {
          sub = g_strdup_printf ("%s.when", path);
          if (!loader_eval_bool (L, when, sub, &on))
            return FALSE;
          g_clear_pointer (&sub, g_free);
        }
      sub = g_strdup_printf ("%s.assert", path);
      assert_node = ffm_json_get_member (check, "assert");
      if ((text = loader_require_string (L, assert_node, sub)) == NULL)
        return FALSE;
      if ((message = ffm_json_get_member (check, "message")) != NULL)
        {
          g_autofree char *msub = g_strdup_printf ("%s.message", path);
          if ((msg = loader_require_string (L, message, msub)) == NULL)
            return FALSE;
        }
      if (!on)
        continue;
      if (!loader_eval_bool (L, assert_node, sub, &holds))
        return FALSE;
      if (!holds)
        {
          g_autofree char *values = loader_describe_names (L, text);
          g_autofree char *what = msg ? g_strdup (msg)
                                      : g_strdup_printf ("assert \"%s\"", text);
          return loader_fail (L, assert_node, path, "%s: check failed: %s%s%s%s", L->owner,
                              what, values[0] ? " (" : "", values, values[0] ? ")" : "");
        }
    }
  return TRUE;
}

static gboolean
declare_rank (Loader *L, const char *key, JsonNode *node, const char *path)
{
  g_autofree char *name = loader_substitute (L, key, node, path);
  g_autofree char *what = NULL;
  g_autofree char *where = NULL;
  RankDecl *old;
  gint64 size;

  if (name == NULL)
    return FALSE;
  where = loader_path_in_frames (L, path);
  if (!loader_is_identifier (name, FALSE))
    return loader_fail (L, node, where, "rank name '%s' must match [A-Za-z_][A-Za-z0-9_]*", name);
  what = g_strdup_printf ("rank %s", name);
  if (!loader_eval_integer (L, node, path, what, 1, &size))
    return FALSE;
  old = g_hash_table_lookup (L->rank_decls, name);
  if (old != NULL)
    {
      if (old->size != size)
        {
          g_autofree char *first = ffm_json_where (L->doc, old->node, old->path);
          return loader_fail (L, node, where, "rank %s has size %" G_GINT64_FORMAT " here but %"
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

gboolean
loader_read_ranks (Loader *L, JsonNode *ranks, const char *path)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *node;
  g_autofree char *where = loader_path_in_frames (L, path);

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

/* ---- Einsum list expansion ---- */

static gboolean
read_einsum_roles (Loader *L, RawEinsum *e, JsonNode *roles, const char *path)
{
  static const char *const allowed[] = { "input", "weight", "output", NULL };

  if (!loader_check_object (L, roles, path, allowed))
    return FALSE;
  for (guint r = 0; r < 3; r++)
    {
      JsonNode *node = ffm_json_get_member (roles, allowed[r]);
      g_autofree char *sub = g_strdup_printf ("%s.%s", path, allowed[r]);
      const char *text;

      if (node == NULL)
        continue;
      if ((text = loader_require_string (L, node, sub)) == NULL
          || (e->roles[r] = loader_substitute (L, text, node, sub)) == NULL)
        return FALSE;
      e->role_nodes[r] = node;
      e->role_paths[r] = loader_path_in_frames (L, sub);
    }
  return TRUE;
}

static gboolean
read_einsum_bounds (Loader *L, RawEinsum *e, JsonNode *bounds, const char *path)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *node;
  g_autofree char *where = loader_path_in_frames (L, path);

  if (!ffm_json_require_object (L->doc, bounds, where, INVALID, L->error))
    return FALSE;
  e->bounds = g_array_new (FALSE, TRUE, sizeof (RawBound));
  json_object_iter_init_ordered (&iter, json_node_get_object (bounds));
  while (json_object_iter_next_ordered (&iter, &key, &node))
    {
      g_autofree char *sub = g_strdup_printf ("%s.%s", path, key);
      g_autofree char *what = NULL;
      RawBound b = { 0 };

      if ((b.var = loader_substitute (L, key, node, sub)) == NULL)
        return FALSE;
      what = g_strdup_printf ("bound of %s", b.var);
      if (!loader_eval_integer (L, node, sub, what, 1, &b.bound))
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

  if (is_object && !loader_check_object (L, node, path, allowed))
    return FALSE;
  if (L->raw->len >= MAX_EINSUMS)
    return loader_fail (L, node, path, "more than %d Einsums", MAX_EINSUMS);
  if ((text = loader_require_string (L, text_node, text_path)) == NULL)
    return FALSE;
  e = g_new0 (RawEinsum, 1);
  g_ptr_array_add (L->raw, e);
  e->node = text_node;
  e->path = loader_path_in_frames (L, text_path);
  e->included = TRUE;
  if (is_object && (member = ffm_json_get_member (node, "when")) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.when", path);
      if (!loader_eval_bool (L, member, sub, &e->included))
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
      e->text = loader_substitute (L, text, text_node, text_path);
      L->error = error;
      if (e->text == NULL)
        {
          g_error_free (ignored);
          g_ptr_array_remove_index (L->raw, L->raw->len - 1);
          return TRUE;
        }
    }
  else if ((e->text = loader_substitute (L, text, text_node, text_path)) == NULL)
    return FALSE;
  scan.text = e->text;
  scan.p = e->text;
  if (!loader_scan_einsum (&scan, e))
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
      const char *name = loader_require_string (L, member, sub);
      if (name == NULL || (e->name = loader_substitute (L, name, member, sub)) == NULL)
        return FALSE;
      if (e->name[0] == '\0')
        return loader_fail (L, member, sub, "empty Einsum name");
    }
  else
    e->name = g_strdup (e->output.tensor);
  if ((member = ffm_json_get_member (node, "copy")) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.copy", path);
      if (!ffm_json_require_bool (L->doc, member, sub, INVALID, &e->copy, L->error))
        return FALSE;
      if (e->copy && e->n_inputs != 1)
        return loader_fail (L, text_node, e->path, "a copy Einsum has exactly one input, \"%s\" "
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
  ok = loader_read_ranks (L, ffm_json_get_member (block, "ranks"), ranks_path)
       && loader_expand_list (L, ffm_json_get_member (block, "einsums"), list_path);
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
      if (!loader_eval_integer (L, count, sub, "repeat count", 0, &n))
        return FALSE;
      *from = 0;
      *to = n - 1;
      return TRUE;
    }
  if (from_node == NULL || to_node == NULL)
    return loader_fail (L, from_node ? from_node : to_node, path, "a repeat needs \"from\" "
                        "and \"to\" together");
  sub = g_strdup_printf ("%s.from", path);
  if (!loader_eval_integer (L, from_node, sub, "repeat from", -(gint64) FFM_MAX_EXACT_INTEGER,
                           from))
    return FALSE;
  g_free (sub);
  sub = g_strdup_printf ("%s.to", path);
  return loader_eval_integer (L, to_node, sub, "repeat to", -(gint64) FFM_MAX_EXACT_INTEGER, to);
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

  if (!loader_check_object (L, block, path, allowed)
      || !loader_check_object (L, spec, spec_path, spec_allowed))
    return FALSE;
  if (ffm_json_get_member (block, "einsums") == NULL)
    return loader_fail (L, block, path, "a repeat block needs \"einsums\"");
  if (L->repeat_depth >= MAX_REPEAT_DEPTH)
    return loader_fail (L, block, path, "repeat blocks nested more than %d deep", MAX_REPEAT_DEPTH);
  if ((when = ffm_json_get_member (block, "when")) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.when", path);
      if (!loader_eval_bool (L, when, sub, &on))
        return FALSE;
    }
  if (!on)
    return TRUE;
  var_node = ffm_json_get_member (spec, "var");
  {
    g_autofree char *sub = g_strdup_printf ("%s.var", spec_path);
    if ((var = loader_require_string (L, var_node, sub)) == NULL)
      return FALSE;
    if (!loader_is_identifier (var, FALSE))
      return loader_fail (L, var_node, sub,
                          "repeat variable '%s' must match [A-Za-z_][A-Za-z0-9_]*", var);
  }
  if ((index_node = ffm_json_get_member (spec, "index")) != NULL)
    {
      g_autofree char *sub = g_strdup_printf ("%s.index", spec_path);
      if ((index_var = loader_require_string (L, index_node, sub)) == NULL)
        return FALSE;
      if (!loader_is_identifier (index_var, FALSE) || strcmp (index_var, var) == 0)
        return loader_fail (L, index_node, sub, "index variable '%s' must be a name other than "
                            "the repeat variable", index_var);
    }
  values = ffm_json_get_member (spec, "values");
  count = ffm_json_get_member (spec, "count");
  forms = (values != NULL) + (count != NULL)
          + (ffm_json_get_member (spec, "from") != NULL
             || ffm_json_get_member (spec, "to") != NULL);
  if (forms != 1)
    return loader_fail (L, spec, spec_path, "a repeat needs exactly one of \"count\", "
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
        return loader_fail (L, spec, spec_path, "repeat of more than %d iterations", MAX_EINSUMS);
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

gboolean
loader_expand_list (Loader *L, JsonNode *list, const char *path)
{
  g_autofree char *where = loader_path_in_frames (L, path);
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
          g_autofree char *w = loader_path_in_frames (L, sub);
          return loader_fail (L, item, w, "expected an Einsum string, an object with "
                              "\"einsum\" or a repeat block");
        }
    }
  return TRUE;
}

/* ---- tensors ---- */

gboolean
loader_read_tensor_decls (Loader *L, JsonNode *root)
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

      if (!loader_check_object (L, node, path, allowed))
        return FALSE;
      d = g_new0 (TensorDecl, 1);
      d->node = node;
      d->path = g_strdup (path);
      g_hash_table_insert (L->tensor_decls, g_strdup (name), d);
      if ((m = ffm_json_get_member (node, "bits")) != NULL)
        {
          g_autofree char *sub = g_strdup_printf ("%s.bits", path);
          g_autofree char *what = g_strdup_printf ("bits of %s", name);
          if (!loader_eval_integer (L, m, sub, what, 1, &d->bits))
            return FALSE;
          if (d->bits > MAX_BITS)
            return loader_fail (L, m, sub, "%" G_GINT64_FORMAT " bits per value (at most %d)",
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
            return loader_fail (L, m, sub, "more than %d ranks", FFM_MAX_TENSOR_RANKS);
          d->ranks = g_new0 (char *, n + 1);
          for (guint i = 0; i < n; i++)
            {
              g_autofree char *item = g_strdup_printf ("%s[%u]", sub, i);
              JsonNode *rn = json_array_get_element (array, i);
              const char *r = loader_require_string (L, rn, item);
              if (r == NULL)
                return FALSE;
              if (!loader_is_identifier (r, FALSE))
                return loader_fail (L, rn, item,
                                    "rank name '%s' must match [A-Za-z_][A-Za-z0-9_]*", r);
              d->ranks[i] = g_strdup (r);
            }
        }
    }
  return TRUE;
}
