/* ffm-workload-loader-checks.c: the checks of the built workload (name
 * lengths, unused tensor declarations, 64-bit bit counts) and the names
 * only left-out Einsums have (ffm-workload-loader-private.h). */
#include "ffm-workload-loader-private.h"

gboolean
loader_check_bit_counts (Loader *L, JsonNode *root)
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
        return loader_fail (L, root, NULL, "tensor %s: %" G_GUINT64_FORMAT " values x %u "
                            "bits, with the other tensors, is more than 2^64 bits (the "
                            "limit of ffm's counts)", tensor->name,
                            ffm_workload_get_tensor_values (w, t), tensor->bits_per_value);
    }
  for (guint i = 0; i < w->einsums->len; i++)
    {
      const FfmEinsum *e = loader_einsum_at (L, i);
      for (guint a = 0; a < e->n_accesses; a++)
        {
          guint64 bits;
          const FfmTensor *tensor = ffm_workload_get_tensor (w, e->accesses[a].tensor);
          if (__builtin_mul_overflow (ffm_einsum_get_access_values (e, a),
                                      (guint64) tensor->bits_per_value, &bits)
              || __builtin_add_overflow (footprint_total, bits, &footprint_total))
            return loader_fail (L, root, NULL, "Einsum %s: the footprint of tensor %s, "
                                "with the other footprints, is more than 2^64 bits (the "
                                "limit of ffm's counts)", e->name, tensor->name);
        }
    }
  return TRUE;
}

gboolean
loader_check_tensor_decls (Loader *L)
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
          g_string_append_printf (known, "%s%s", t ? ", " : "", loader_tensor_at (L, t)->name);
        return loader_fail (L, d->node, d->path, "unknown tensor '%s' (no Einsum uses it; the "
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

gboolean
loader_check_name_lengths (Loader *L, RawEinsum *r)
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

void
loader_record_left_out (Loader *L)
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
