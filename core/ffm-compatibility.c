/* ffm-compatibility.c: equality, hashing and printing of compatibilities
 * (ffm-compatibility.h). Fields are compared one by one, never with memcmp,
 * so padding and unused entries never matter. */
#include <ffm/ffm-compatibility.h>
#include <ffm/ffm-hash.h>

#include <string.h>

static gboolean
loop_equal (const FfmCompatLoop *a, const FfmCompatLoop *b)
{
  return a->rank_var == b->rank_var && a->spatial == b->spatial
    && a->fanout_level == b->fanout_level && a->fanout_dim == b->fanout_dim
    && a->count == b->count && a->tile == b->tile;
}

static gboolean
tensor_equal (const FfmCompatTensor *a, const FfmCompatTensor *b)
{
  if (a->tensor != b->tensor || a->access != b->access
      || a->backing_level != b->backing_level
      || a->persistent != b->persistent || a->n_loops != b->n_loops
      || a->backing_bits != b->backing_bits)
    return FALSE;
  for (guint i = 0; i < a->n_loops; i++)
    if (a->ranks[i] != b->ranks[i])
      return FALSE;
  return TRUE;
}

gboolean
ffm_compatibility_equal (const FfmCompatibility *a, const FfmCompatibility *b)
{
  if (a->einsum != b->einsum || a->n_loops != b->n_loops
      || a->n_tensors != b->n_tensors || a->stops != b->stops)
    return FALSE;
  for (guint i = 0; i < a->n_loops; i++)
    if (!loop_equal (&a->loops[i], &b->loops[i]))
      return FALSE;
  for (guint i = 0; i < a->n_tensors; i++)
    if (!tensor_equal (&a->tensors[i], &b->tensors[i]))
      return FALSE;
  return TRUE;
}

static inline guint
mix (guint h, guint64 v)
{
  return ffm_fnv1a32_word (h, (guint32) (v ^ (v >> 32)));
}

guint
ffm_compatibility_hash (const FfmCompatibility *c)
{
  guint h = FFM_FNV1A32_INIT;

  h = mix (h, c->einsum);
  h = mix (h, c->n_loops);
  h = mix (h, c->n_tensors);
  h = mix (h, c->stops);
  for (guint i = 0; i < c->n_loops; i++)
    {
      h = mix (h, c->loops[i].rank_var);
      h = mix (h, c->loops[i].spatial);
      h = mix (h, c->loops[i].count);
    }
  for (guint i = 0; i < c->n_tensors; i++)
    {
      h = mix (h, c->tensors[i].tensor);
      h = mix (h, c->tensors[i].backing_level);
      h = mix (h, c->tensors[i].n_loops);
      h = mix (h, c->tensors[i].persistent);
    }
  return h;
}

guint
ffm_compatibility_hash_func (gconstpointer compat)
{
  return ffm_compatibility_hash (compat);
}

gboolean
ffm_compatibility_equal_func (gconstpointer a, gconstpointer b)
{
  return ffm_compatibility_equal (a, b);
}

const FfmCompatTensor *
ffm_compatibility_find_tensor (const FfmCompatibility *compat, guint tensor)
{
  for (guint i = 0; i < compat->n_tensors; i++)
    if (compat->tensors[i].tensor == tensor)
      return &compat->tensors[i];
  return NULL;
}

char *
ffm_compatibility_to_string (const FfmCompatibility *compat,
                             const FfmWorkload *workload, const FfmArch *arch)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < compat->n_tensors; i++)
    {
      const FfmCompatTensor *t = &compat->tensors[i];
      const FfmTensor *tensor = ffm_workload_get_tensor (workload, t->tensor);
      if (i > 0)
        g_string_append_c (s, ' ');
      g_string_append_printf (s, "%s@%s%s[", tensor->name,
                              ffm_arch_get_level (arch, t->backing_level)->name,
                              t->persistent ? "(persistent)" : "");
      for (guint k = 0; k < t->n_loops; k++)
        g_string_append_printf (s, "%s%s/%" G_GUINT64_FORMAT " %s",
                                k > 0 ? ", " : "",
                                tensor->rank_names[t->ranks[k]],
                                compat->loops[k].count,
                                compat->loops[k].spatial ? "s" : "t");
      g_string_append_c (s, ']');
    }
  if (compat->stops != 0)
    {
      gboolean first = TRUE;
      g_string_append (s, " stops {");
      for (guint d = 0; d <= compat->n_loops; d++)
        if (compat->stops & (1u << d))
          {
            g_string_append_printf (s, first ? "%u" : ",%u", d);
            first = FALSE;
          }
      g_string_append_c (s, '}');
    }
  return g_string_free (s, FALSE);
}
