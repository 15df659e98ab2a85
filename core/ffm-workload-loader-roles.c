/* ffm-workload-loader-roles.c: roles, persistence and bits, the set
 * expressions of each Einsum (top-level and its own) decided on the built
 * model (ffm-workload-loader-private.h). */
#include "ffm-workload-loader-private.h"

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
  FfmEinsum *e = loader_einsum_at (L, ss->einsum);
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
    if (loader_tensor_at (L, e->accesses[a].tensor)->classes & FFM_TENSOR_INTERMEDIATE)
      {
        if (n_inputs == 2)
          {
            guint other = 1 - a;
            gboolean other_intermediate = loader_tensor_at (L, e->accesses[other].tensor)->classes
                                          & FFM_TENSOR_INTERMEDIATE;
            if (other_intermediate)
              return 1;                               /* both: the first */
          }
        return G_GUINT64_CONSTANT (1) << a;
      }
  return n_inputs > 0 ? 1 : 0;                        /* neither: the first */
}

/* Evaluates the role rule @k of Einsum @i (the Einsum's own, else the
 * top-level one) into *@set. FALSE with *@found FALSE when there is none. */
static gboolean
eval_role_rule (Loader *L, RawEinsum *r, TopRole *top, SetScope *ss, guint k,
                gboolean *found, guint64 *set)
{
  static const char *const names[3] = { "input", "weight", "output" };
  FfmEinsum *e = loader_einsum_at (L, ss->einsum);

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
        return loader_fail (L, r->role_nodes[k], sub, "Einsum %s: role %s = \"%s\" "
                            "selects none of its tensors", e->name, names[k], r->roles[k]);
      return TRUE;
    }
  if (top[k].expr != NULL)
    return eval_set (L, top[k].expr, ss, top[k].node, top[k].path, set);
  *found = FALSE;
  return TRUE;
}

gboolean
loader_decide_roles (Loader *L, GPtrArray *kept, TopRole *top)
{
  for (guint i = 0; i < L->w->einsums->len; i++)
    {
      FfmEinsum *e = loader_einsum_at (L, i);
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

gboolean
loader_read_top_roles (Loader *L, JsonNode *root, TopRole *top)
{
  static const char *const allowed[] = { "input", "weight", "output", NULL };
  JsonNode *roles = ffm_json_get_member (root, "roles");

  if (roles == NULL)
    return TRUE;
  if (!loader_check_object (L, roles, "$.roles", allowed))
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
      if ((text = loader_require_string (L, node, top[k].path)) == NULL)
        return FALSE;
      if ((top[k].expr = ffm_expr_parse (text, &local)) == NULL)
        return loader_fail_expr (L, node, top[k].path, local);
    }
  return TRUE;
}

gboolean
loader_decide_persistent (Loader *L, JsonNode *root)
{
  JsonNode *node = ffm_json_get_member (root, "persistent");
  g_autoptr (FfmExpr) expr = NULL;
  GError *local = NULL;
  GHashTableIter iter;
  gpointer key, value;
  const char *text;

  if (node != NULL)
    {
      if ((text = loader_require_string (L, node, "$.persistent")) == NULL)
        return FALSE;
      if ((expr = ffm_expr_parse (text, &local)) == NULL)
        return loader_fail_expr (L, node, "$.persistent", local);
      for (guint i = 0; i < L->w->einsums->len; i++)
        {
          FfmEinsum *e = loader_einsum_at (L, i);
          SetScope ss = { L, i, FFM_ROLE_INPUT | FFM_ROLE_WEIGHT | FFM_ROLE_OUTPUT, FALSE };
          guint64 set;
          if (!eval_set (L, expr, &ss, node, "$.persistent", &set))
            return FALSE;
          for (guint a = 0; a < e->n_accesses; a++)
            if (set & (G_GUINT64_CONSTANT (1) << a))
              loader_tensor_at (L, e->accesses[a].tensor)->classes |= FFM_TENSOR_PERSISTENT;
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
        loader_tensor_at (L, (guint) t)->classes |= FFM_TENSOR_PERSISTENT;
      else
        loader_tensor_at (L, (guint) t)->classes &= ~(guint) FFM_TENSOR_PERSISTENT;
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
      if (!loader_eval_integer (L, node, rule.path, what, 1,
                                &g_array_index (rules, BitsRule, rules->len - 1).bits))
        return FALSE;
      if (g_array_index (rules, BitsRule, rules->len - 1).bits > MAX_BITS)
        return loader_fail (L, node, rule.path, "%s: at most %d bits per value", what, MAX_BITS);
      if (g_ascii_strcasecmp (key, "other") == 0)
        continue;
      if ((g_array_index (rules, BitsRule, rules->len - 1).expr
           = ffm_expr_parse (key, &local)) == NULL)
        return loader_fail_expr (L, node, rule.path, local);
    }
  return TRUE;
}

gboolean
loader_decide_bits (Loader *L, JsonNode *root, GPtrArray *kept)
{
  JsonNode *map = ffm_json_get_member (root, "bits_per_value");
  g_autoptr (GArray) rules = g_array_new (FALSE, TRUE, sizeof (BitsRule));
  g_autofree guint *from_einsum = g_new0 (guint, L->w->tensors->len);

  g_array_set_clear_func (rules, bits_rule_clear);
  if (map != NULL && !read_bits_rules (L, map, rules))
    return FALSE;
  for (guint i = 0; i < L->w->einsums->len; i++)
    {
      FfmEinsum *e = loader_einsum_at (L, i);
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
                  return loader_fail (L, rule->node, rule->path, "in Einsum %s: keys \"%s\" and "
                                      "\"%s\" both select tensor %s (keys must not overlap)",
                                      e->name, by[a], rule->key,
                                      loader_tensor_at (L, e->accesses[a].tensor)->name);
                by[a] = rule->key;
                bits[a] = rule->bits;
              }
        }
      for (guint a = 0; a < e->n_accesses; a++)
        {
          FfmTensor *t = loader_tensor_at (L, e->accesses[a].tensor);
          if (by[a] == NULL && other != NULL)
            bits[a] = other->bits, by[a] = other->key;
          if (by[a] == NULL)
            continue;
          if (t->bits_per_value != 0 && t->bits_per_value != (guint) bits[a])
            return loader_fail_einsum (L, kept->pdata[i], "tensor %s gets %" G_GINT64_FORMAT
                                       " bits per value here but %u in Einsum %s", t->name,
                                       bits[a], t->bits_per_value,
                                       loader_einsum_at (L, from_einsum[e->accesses[a].tensor])->name);
          t->bits_per_value = (guint) bits[a];
          from_einsum[e->accesses[a].tensor] = i;
        }
    }
  for (guint t = 0; t < L->w->tensors->len; t++)
    {
      FfmTensor *tensor = loader_tensor_at (L, t);
      TensorDecl *d = g_hash_table_lookup (L->tensor_decls, tensor->name);
      if (d != NULL && d->has_bits)
        tensor->bits_per_value = (guint) d->bits;
      if (tensor->bits_per_value == 0)
        return loader_fail (L, map, map ? "$.bits_per_value" : NULL, "tensor %s has no bits per "
                            "value: add \"bits_per_value\": {\"all\": 8} (or \"other\"), or "
                            "\"tensors\": {\"%s\": {\"bits\": N}}", tensor->name, tensor->name);
    }
  return TRUE;
}
