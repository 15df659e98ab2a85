/* ffm-workload-writer.c: an FfmWorkload back to a workload JSON file (the
 * format ffm-workload-loader.c reads; docs/file-formats.md, "Workloads"),
 * with every parameter, repeat and `when` already resolved: the Einsums as
 * strings, their roles and rank-variable bounds. The loader reads it back
 * into the same workload. */
#include "ffm-workload-private.h"
#include <ffm/ffm-json-writer.h>

static char *
access_to_text (const FfmWorkload *w, const FfmEinsum *e, guint a)
{
  const FfmTensorAccess *acc = &e->accesses[a];
  const FfmTensor *t = &g_array_index (w->tensors, FfmTensor, acc->tensor);
  GString *s = g_string_new (t->name);

  g_string_append_c (s, '[');
  for (guint r = 0; r < t->n_ranks; r++)
    {
      const FfmProjection *p = &acc->projections[r];
      g_string_append_printf (s, "%s%s:", r ? ", " : "", t->rank_names[r]);
      for (guint k = 0; k < p->n_terms; k++)
        {
          if (k > 0)
            g_string_append_c (s, '+');
          if (p->terms[k].coefficient != 1)
            g_string_append_printf (s, "%" G_GINT64_FORMAT "*", p->terms[k].coefficient);
          g_string_append (s, e->rank_var_names[p->terms[k].var]);
        }
      if (p->offset != 0 || p->n_terms == 0)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, p->n_terms ? "+" : "", p->offset);
    }
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static char *
role_to_text (const FfmWorkload *w, const FfmEinsum *e, FfmTensorRole role)
{
  GString *s = g_string_new (NULL);

  for (guint a = 0; a < e->n_accesses; a++)
    if (e->accesses[a].roles & role)
      g_string_append_printf (s, "%s%s", s->len ? " | " : "",
                              g_array_index (w->tensors, FfmTensor,
                                             e->accesses[a].tensor).name);
  if (s->len == 0)
    g_string_assign (s, "nothing");
  return g_string_free (s, FALSE);
}

static void
write_einsum (FfmJsonWriter *b, const FfmWorkload *w, const FfmEinsum *e)
{
  static const char *const role_names[] = { "input", "weight", "output" };
  static const FfmTensorRole roles[] = { FFM_ROLE_INPUT, FFM_ROLE_WEIGHT, FFM_ROLE_OUTPUT };
  GString *text;

  ffm_json_writer_begin_object (b);
  ffm_json_writer_key (b, "name");
  text = g_string_new (NULL);
  for (const char *p = e->name; *p; p++)         /* names are substituted: escape */
    {
      g_string_append_c (text, *p);
      if (*p == '{' || *p == '}')
        g_string_append_c (text, *p);
    }
  ffm_json_writer_string (b, text->str);
  g_string_truncate (text, 0);
  {
    g_autofree char *out = access_to_text (w, e, e->output_access);
    g_string_append_printf (text, "%s =", out);
  }
  for (guint a = 0; a < e->n_accesses; a++)
    if (a != e->output_access)
      {
        g_autofree char *in = access_to_text (w, e, a);
        g_string_append_printf (text, "%s %s", a ? " *" : "", in);
      }
  ffm_json_writer_key (b, "einsum");
  ffm_json_writer_string (b, text->str);
  g_string_free (text, TRUE);
  if (e->is_copy)
    {
      ffm_json_writer_key (b, "copy");
      ffm_json_writer_boolean (b, TRUE);
    }
  ffm_json_writer_key (b, "roles");
  ffm_json_writer_begin_object (b);
  for (guint r = 0; r < 3; r++)
    {
      g_autofree char *set = role_to_text (w, e, roles[r]);
      ffm_json_writer_key (b, role_names[r]);
      ffm_json_writer_string (b, set);
    }
  ffm_json_writer_end_object (b);
  ffm_json_writer_key (b, "bounds");
  ffm_json_writer_begin_object (b);
  for (guint v = 0; v < e->n_rank_vars; v++)
    {
      ffm_json_writer_key (b, e->rank_var_names[v]);
      ffm_json_writer_uint (b, e->rank_var_bounds[v]);
    }
  ffm_json_writer_end_object (b);
  ffm_json_writer_end_object (b);
}

char *
ffm_workload_to_json (const FfmWorkload *w)
{
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
  static const struct {
    const char *member;
    gsize offset;
  } texts[] = {
    { "description", G_STRUCT_OFFSET (FfmWorkload, description) },
    { "source", G_STRUCT_OFFSET (FfmWorkload, data_source) },
    { "layer", G_STRUCT_OFFSET (FfmWorkload, layer) },
  };

  g_return_val_if_fail (w != NULL, NULL);
  ffm_json_writer_begin_object (b);
  ffm_json_writer_key (b, "ffm_workload");
  ffm_json_writer_int (b, FFM_WORKLOAD_FORMAT_VERSION);
  ffm_json_writer_key (b, "name");
  ffm_json_writer_string (b, w->name);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      const char *text = G_STRUCT_MEMBER (char *, w, texts[i].offset);
      if (text == NULL)
        continue;
      ffm_json_writer_key (b, texts[i].member);
      ffm_json_writer_string (b, text);
    }
  ffm_json_writer_key (b, "ranks");
  ffm_json_writer_begin_object (b);
  for (guint i = 0; i < w->ranks->len; i++)
    {
      const FfmRankSize *r = &g_array_index (w->ranks, FfmRankSize, i);
      ffm_json_writer_key (b, r->name);
      ffm_json_writer_uint (b, r->size);
    }
  ffm_json_writer_end_object (b);
  ffm_json_writer_key (b, "tensors");
  ffm_json_writer_begin_object (b);
  for (guint t = 0; t < w->tensors->len; t++)
    {
      const FfmTensor *tensor = &g_array_index (w->tensors, FfmTensor, t);
      ffm_json_writer_key (b, tensor->name);
      ffm_json_writer_begin_object (b);
      ffm_json_writer_key (b, "bits");
      ffm_json_writer_int (b, tensor->bits_per_value);
      ffm_json_writer_key (b, "persistent");
      ffm_json_writer_boolean (b, (tensor->classes & FFM_TENSOR_PERSISTENT) != 0);
      ffm_json_writer_key (b, "ranks");
      ffm_json_writer_begin_array (b);
      for (guint r = 0; r < tensor->n_ranks; r++)
        ffm_json_writer_string (b, tensor->rank_names[r]);
      ffm_json_writer_end_array (b);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_object (b);
  ffm_json_writer_key (b, "einsums");
  ffm_json_writer_begin_array (b);
  for (guint e = 0; e < w->einsums->len; e++)
    write_einsum (b, w, &g_array_index (w->einsums, FfmEinsum, e));
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
  return ffm_json_writer_finish (b);
}
