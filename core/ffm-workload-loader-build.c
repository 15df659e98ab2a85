/* ffm-workload-loader-build.c: building the model (phase 2): tensors and
 * their rank lists, accesses, rank-variable bounds, Einsum classes
 * (ffm-workload-loader-private.h). */
#include "ffm-workload-loader-private.h"

/* ---- Building the model (phase 2) ---- */

FfmTensor *
loader_tensor_at (Loader *L, guint t)
{
  return &g_array_index (L->w->tensors, FfmTensor, t);
}

FfmEinsum *
loader_einsum_at (Loader *L, guint e)
{
  return &g_array_index (L->w->einsums, FfmEinsum, e);
}

const char *
loader_reserved_tensor_name (const char *name)
{
  if (!ffm_workload_tensor_name_allowed (name))
    return "a class word";
  if (strcmp (name, "inf") == 0 || strcmp (name, "true") == 0
      || strcmp (name, "false") == 0)
    return "a constant of set expressions";
  return NULL;
}

gboolean
loader_fail_einsum (Loader *L, RawEinsum *r, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  ffm_json_set_error (L->error, INVALID, L->doc, r->node, r->path, "Einsum %s: %s",
                      r->name, message);
  return FALSE;
}

static guint
intern_tensor (Loader *L, const char *name)
{
  gpointer found = g_hash_table_lookup (L->w->tensor_index, name);
  FfmTensor t = { 0 };

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  t.name = g_strdup (name);
  t.producer = G_MAXUINT;
  g_array_append_val (L->w->tensors, t);
  g_hash_table_insert (L->w->tensor_index, loader_tensor_at (L, L->w->tensors->len - 1)->name,
                       GUINT_TO_POINTER (L->w->tensors->len));
  g_ptr_array_add (L->w->tensor_readers, g_array_new (FALSE, FALSE, sizeof (guint)));
  return L->w->tensors->len - 1;
}

gboolean
loader_resolve_tensor_ranks (Loader *L, GPtrArray *kept)
{
  g_autofree RawAccess **first = NULL;
  g_autofree RawEinsum **first_einsum = NULL;

  for (guint e = 0; e < kept->len; e++)
    {
      RawEinsum *r = kept->pdata[e];
      for (guint i = 0; i < r->n_inputs; i++)
        intern_tensor (L, r->inputs[i].tensor);
      intern_tensor (L, r->output.tensor);
    }
  first = g_new0 (RawAccess *, L->w->tensors->len);
  first_einsum = g_new0 (RawEinsum *, L->w->tensors->len);

  for (guint pass = 0; pass < 2; pass++)
    for (guint e = 0; e < kept->len; e++)
      {
        RawEinsum *r = kept->pdata[e];
        for (guint i = 0; i <= r->n_inputs; i++)
          {
            RawAccess *a = i < r->n_inputs ? &r->inputs[i] : &r->output;
            guint t = intern_tensor (L, a->tensor);
            FfmTensor *tensor = loader_tensor_at (L, t);
            TensorDecl *decl = g_hash_table_lookup (L->tensor_decls, a->tensor);

            if (pass == 0)
              {
                /* pass 0: first access fixes the count; names fill in */
                if (first[t] == NULL)
                  {
                    first[t] = a;
                    first_einsum[t] = r;
                    tensor->n_ranks = a->n_entries;
                    if (decl != NULL && decl->ranks != NULL)
                      {
                        if (g_strv_length (decl->ranks) != a->n_entries)
                          return loader_fail_einsum (L, r, "tensor %s has %u ranks here but %u in "
                                                     "its \"tensors\" entry", a->tensor,
                                                     a->n_entries, g_strv_length (decl->ranks));
                        for (guint k = 0; k < a->n_entries; k++)
                          tensor->rank_names[k] = g_strdup (decl->ranks[k]);
                      }
                  }
                if (a->n_entries != tensor->n_ranks)
                  return loader_fail_einsum (L, r, "tensor %s has %u ranks here but %u in "
                                             "Einsum %s", a->tensor, a->n_entries,
                                             tensor->n_ranks, first_einsum[t]->name);
                for (guint k = 0; k < a->n_entries; k++)
                  if (tensor->rank_names[k] == NULL && a->entries[k].rank != NULL)
                    tensor->rank_names[k] = g_strdup (a->entries[k].rank);
                continue;
              }
            /* pass 1: every named entry must agree */
            for (guint k = 0; k < a->n_entries; k++)
              {
                if (tensor->rank_names[k] == NULL)
                  return loader_fail_einsum (L, r, "rank %u of tensor %s is indexed by an "
                                             "expression and named nowhere: write RANK:expr "
                                             "or declare \"tensors\": {\"%s\": {\"ranks\": "
                                             "[...]}}", k + 1, a->tensor, a->tensor);
                if (a->entries[k].rank != NULL
                    && strcmp (a->entries[k].rank, tensor->rank_names[k]) != 0)
                  return loader_fail_einsum (L, r, "rank %u of tensor %s is %s here but %s "
                                             "elsewhere (a tensor keeps its own rank names: "
                                             "write %s:%s to index rank %s)", k + 1, a->tensor,
                                             a->entries[k].rank, tensor->rank_names[k],
                                             tensor->rank_names[k],
                                             a->entries[k].n_terms ? a->entries[k].vars[0] : "0",
                                             tensor->rank_names[k]);
                for (guint j = 0; j < k; j++)
                  if (strcmp (tensor->rank_names[j], tensor->rank_names[k]) == 0)
                    return loader_fail_einsum (L, r, "tensor %s has rank %s twice", a->tensor,
                                               tensor->rank_names[k]);
              }
          }
      }
  return TRUE;
}

static int
var_index (FfmEinsum *e, const char *var)
{
  for (guint v = 0; v < e->n_rank_vars; v++)
    if (strcmp (e->rank_var_names[v], var) == 0)
      return (int) v;
  return -1;
}

static gboolean
fill_access (Loader *L, RawEinsum *r, FfmEinsum *e, RawAccess *a, gboolean output)
{
  FfmTensorAccess *acc = &e->accesses[e->n_accesses++];

  acc->tensor = intern_tensor (L, a->tensor);
  acc->is_output = output;
  for (guint k = 0; k < a->n_entries; k++)
    {
      RawEntry *entry = &a->entries[k];
      FfmProjection *p = &acc->projections[k];

      p->n_terms = entry->n_terms;
      p->offset = entry->offset;
      for (guint t = 0; t < entry->n_terms; t++)
        {
          int v = var_index (e, entry->vars[t]);
          if (v < 0)
            {
              if (e->n_rank_vars == FFM_MAX_EINSUM_RANK_VARS)
                return loader_fail_einsum (L, r, "more than %d rank variables",
                                           FFM_MAX_EINSUM_RANK_VARS);
              v = (int) e->n_rank_vars;
              e->rank_var_names[e->n_rank_vars++] = g_strdup (entry->vars[t]);
            }
          p->terms[t].var = (guint) v;
          p->terms[t].coefficient = entry->coefs[t];
        }
    }
  return TRUE;
}

/* Rank-variable bounds: the bounding box of accelforge's workload files. */
static gboolean
compute_bounds (Loader *L, RawEinsum *r, FfmEinsum *e)
{
  gint64 bound[FFM_MAX_EINSUM_RANK_VARS];

  for (guint v = 0; v < e->n_rank_vars; v++)
    bound[v] = -1;                                  /* no size yet */
  for (guint b = 0; r->bounds != NULL && b < r->bounds->len; b++)
    {
      RawBound *rb = &g_array_index (r->bounds, RawBound, b);
      int v = var_index (e, rb->var);
      if (v < 0)
        return loader_fail_einsum (L, r, "\"bounds\" names '%s', which is not one of its rank "
                                   "variables", rb->var);
      bound[v] = bound[v] < 0 ? rb->bound : MIN (bound[v], rb->bound);
    }
  /* 1. sizes of ranks indexed by a variable alone */
  for (guint a = 0; a < e->n_accesses; a++)
    {
      FfmTensor *t = loader_tensor_at (L, e->accesses[a].tensor);
      for (guint k = 0; k < t->n_ranks; k++)
        {
          FfmProjection *p = &e->accesses[a].projections[k];
          RankDecl *size = g_hash_table_lookup (L->rank_decls, t->rank_names[k]);
          guint v;
          if (size == NULL || p->n_terms != 1 || p->terms[0].coefficient != 1
              || p->offset != 0)
            continue;
          v = p->terms[0].var;
          bound[v] = bound[v] < 0 ? size->size : MIN (bound[v], size->size);
        }
    }
  for (guint v = 0; v < e->n_rank_vars; v++)
    if (bound[v] < 0)
      return loader_fail_einsum (L, r, "rank variable %s has no bound: no rank it indexes alone "
                                 "has a size (declare the rank's size in \"ranks\", or give "
                                 "\"bounds\": {\"%s\": N})", e->rank_var_names[v],
                                 e->rank_var_names[v]);
  /* 2. affine entries tighten: a*(bound-1) + offset <= size-1, others at 0 */
  for (guint a = 0; a < e->n_accesses; a++)
    {
      FfmTensor *t = loader_tensor_at (L, e->accesses[a].tensor);
      for (guint k = 0; k < t->n_ranks; k++)
        {
          FfmProjection *p = &e->accesses[a].projections[k];
          RankDecl *size = g_hash_table_lookup (L->rank_decls, t->rank_names[k]);
          if (size == NULL)
            continue;
          for (guint i = 0; i < p->n_terms; i++)
            {
              gint64 room = size->size - 1 - p->offset;
              gint64 limit = room < 0 ? 0 : room / p->terms[i].coefficient + 1;
              guint v = p->terms[i].var;
              if (limit < bound[v])
                bound[v] = limit;
              if (bound[v] == 0)
                return loader_fail_einsum (L, r, "rank variable %s has an empty range: rank %s "
                                           "of %s has size %" G_GINT64_FORMAT " and index "
                                           "offset %" G_GINT64_FORMAT, e->rank_var_names[v],
                                           t->rank_names[k], t->name, size->size, p->offset);
            }
        }
    }
  for (guint v = 0; v < e->n_rank_vars; v++)
    e->rank_var_bounds[v] = (guint64) bound[v];
  return TRUE;
}

gboolean
loader_build_einsum (Loader *L, RawEinsum *r)
{
  FfmEinsum blank = { 0 };
  FfmEinsum *e;
  guint index = L->w->einsums->len;
  guint64 ops = 1;

  if (g_hash_table_contains (L->w->einsum_index, r->name))
    return loader_fail_einsum (L, r, "the name is already used by Einsum #%u (give a unique "
                               "\"name\")",
                               GPOINTER_TO_UINT (g_hash_table_lookup (L->w->einsum_index,
                                                               r->name)));
  g_array_append_val (L->w->einsums, blank);
  e = loader_einsum_at (L, index);
  e->name = g_strdup (r->name);
  e->text = g_strdup (r->text);
  e->is_copy = r->copy;
  g_hash_table_insert (L->w->einsum_index, e->name, GUINT_TO_POINTER (index + 1));
  /* Variables in order of appearance: the output is written first. */
  for (guint k = 0; k < r->output.n_entries; k++)
    for (guint t = 0; t < r->output.entries[k].n_terms; t++)
      if (var_index (e, r->output.entries[k].vars[t]) < 0)
        {
          if (e->n_rank_vars == FFM_MAX_EINSUM_RANK_VARS)
            return loader_fail_einsum (L, r, "more than %d rank variables",
                                       FFM_MAX_EINSUM_RANK_VARS);
          e->rank_var_names[e->n_rank_vars++] = g_strdup (r->output.entries[k].vars[t]);
        }
  for (guint i = 0; i < r->n_inputs; i++)
    if (!fill_access (L, r, e, &r->inputs[i], FALSE))
      return FALSE;
  if (!fill_access (L, r, e, &r->output, TRUE))
    return FALSE;
  e->output_access = e->n_accesses - 1;
  if (!compute_bounds (L, r, e))
    return FALSE;
  for (guint v = 0; v < e->n_rank_vars; v++)
    if (__builtin_mul_overflow (ops, e->rank_var_bounds[v], &ops))
      return loader_fail_einsum (L, r, "more than 2^64 operations");
  for (guint a = 0; a < e->n_accesses; a++)
    {
      guint64 values;
      guint t = e->accesses[a].tensor;
      guint64 *largest = &g_array_index (L->w->tensor_values, guint64, t);
      if (!ffm_workload_access_values_checked (e, a, &values))
        return loader_fail_einsum (L, r, "tensor %s has more than 2^64 values",
                                   loader_tensor_at (L, t)->name);
      *largest = MAX (*largest, values);
    }
  return TRUE;
}

gboolean
loader_compute_classes (Loader *L, GPtrArray *kept)
{
  FfmWorkload *w = L->w;

  for (guint i = 0; i < w->einsums->len; i++)
    {
      FfmEinsum *e = loader_einsum_at (L, i);
      for (guint a = 0; a < e->n_accesses; a++)
        {
          guint t = e->accesses[a].tensor;
          FfmTensor *tensor = loader_tensor_at (L, t);
          if (!e->accesses[a].is_output)
            {
              g_array_append_val (w->tensor_readers->pdata[t], i);
              continue;
            }
          if (tensor->producer != G_MAXUINT)
            return loader_fail_einsum (L, kept->pdata[i], "tensor %s is already written by "
                                       "Einsum %s (a tensor has one producer)", tensor->name,
                                       loader_einsum_at (L, tensor->producer)->name);
          tensor->producer = i;
        }
    }
  for (guint t = 0; t < w->tensors->len; t++)
    {
      FfmTensor *tensor = loader_tensor_at (L, t);
      GArray *readers = w->tensor_readers->pdata[t];
      guint touching = readers->len + (tensor->producer != G_MAXUINT);

      for (guint i = 0; i < readers->len; i++)
        {
          guint reader = g_array_index (readers, guint, i);
          if (tensor->producer != G_MAXUINT && reader < tensor->producer)
            return loader_fail_einsum (L, kept->pdata[reader], "reads tensor %s before Einsum "
                                       "%s writes it (Einsums run in file order)", tensor->name,
                                       loader_einsum_at (L, tensor->producer)->name);
        }
      if (tensor->producer == G_MAXUINT)
        tensor->classes |= FFM_TENSOR_INPUT;
      else if (readers->len == 0)
        tensor->classes |= FFM_TENSOR_OUTPUT;
      else
        tensor->classes |= FFM_TENSOR_INTERMEDIATE;
      if (touching >= 2)
        tensor->classes |= FFM_TENSOR_SHARED;
    }
  return TRUE;
}
