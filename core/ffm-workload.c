/* ffm-workload.c: the workload model (see ffm-workload.h): accessors,
 * footprints, tensor-set scopes, and finding workload files by name. The
 * JSON loader is ffm-workload-loader.c. */
#include "ffm-workload-private.h"
#include <ffm/ffm-paths.h>

#include <string.h>

/* ---- Life cycle ---- */

static void
tensor_clear (gpointer data)
{
  FfmTensor *t = data;

  g_free (t->name);
  for (guint r = 0; r < t->n_ranks; r++)
    g_free (t->rank_names[r]);
}

static void
einsum_clear (gpointer data)
{
  FfmEinsum *e = data;

  g_free (e->name);
  g_free (e->text);
  for (guint v = 0; v < e->n_rank_vars; v++)
    g_free (e->rank_var_names[v]);
}

static void
rank_size_clear (gpointer data)
{
  g_free (((FfmRankSize *) data)->name);
}

FfmWorkload *
ffm_workload_new_empty (const char *name, const char *source_file)
{
  FfmWorkload *w = g_new0 (FfmWorkload, 1);

  g_atomic_ref_count_init (&w->ref);
  w->name = g_strdup (name);
  w->source_file = g_strdup (source_file);
  w->param_specs = g_new0 (FfmParamSpec, 1);
  w->param_values = ffm_param_values_new ();
  w->tensors = g_array_new (FALSE, TRUE, sizeof (FfmTensor));
  g_array_set_clear_func (w->tensors, tensor_clear);
  w->einsums = g_array_new (FALSE, TRUE, sizeof (FfmEinsum));
  g_array_set_clear_func (w->einsums, einsum_clear);
  w->ranks = g_array_new (FALSE, TRUE, sizeof (FfmRankSize));
  g_array_set_clear_func (w->ranks, rank_size_clear);
  w->tensor_readers = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  w->tensor_values = g_array_new (FALSE, TRUE, sizeof (guint64));
  w->tensor_index = g_hash_table_new (g_str_hash, g_str_equal);
  w->einsum_index = g_hash_table_new (g_str_hash, g_str_equal);
  w->left_out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return w;
}

FfmWorkload *
ffm_workload_ref (FfmWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, NULL);
  g_atomic_ref_count_inc (&workload->ref);
  return workload;
}

void
ffm_workload_unref (FfmWorkload *w)
{
  if (w == NULL || !g_atomic_ref_count_dec (&w->ref))
    return;
  g_hash_table_unref (w->tensor_index);
  g_hash_table_unref (w->einsum_index);
  g_hash_table_unref (w->left_out);
  g_array_unref (w->tensor_values);
  g_ptr_array_unref (w->tensor_readers);
  g_array_unref (w->ranks);
  g_array_unref (w->einsums);
  g_array_unref (w->tensors);
  ffm_param_values_free (w->param_values);
  ffm_param_specs_free (w->param_specs);
  g_free (w->name);
  g_free (w->description);
  g_free (w->data_source);
  g_free (w->layer);
  g_free (w->source_file);
  g_free (w);
}

/* ---- Finding workload files ---- */

GStrv
ffm_workload_search_dirs (void)
{
  return ffm_paths_data_dirs ("workloads");
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  /* g_ptr_array_sort passes pointers to the elements */
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GStrv
ffm_workload_list_available (void)
{
  g_auto (GStrv) dirs = ffm_workload_search_dirs ();
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint d = 0; dirs[d] != NULL; d++)
    {
      g_autoptr (GDir) dir = g_dir_open (dirs[d], 0, NULL);
      const char *entry;

      if (dir == NULL)
        continue;
      while ((entry = g_dir_read_name (dir)) != NULL)
        {
          char *name;
          if (!g_str_has_suffix (entry, ".json"))
            continue;
          name = g_strndup (entry, strlen (entry) - strlen (".json"));
          if (g_hash_table_contains (seen, name))
            {
              g_free (name);
              continue;
            }
          g_ptr_array_add (names, name);
          g_hash_table_add (seen, name);
        }
    }
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

/* ---- Reading ---- */

const char *
ffm_workload_get_name (const FfmWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, NULL);
  return workload->name;
}

const char *
ffm_workload_get_description (const FfmWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, NULL);
  return workload->description;
}

const char *
ffm_workload_get_source_file (const FfmWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, NULL);
  return workload->source_file;
}

const char *
ffm_workload_get_data_source (const FfmWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, NULL);
  return workload->data_source;
}

const char *
ffm_workload_get_layer (const FfmWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, NULL);
  return workload->layer;
}

const FfmParamSpec *
ffm_workload_get_param_specs (const FfmWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, NULL);
  return workload->param_specs;
}

const FfmParamValues *
ffm_workload_get_param_values (const FfmWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, NULL);
  return workload->param_values;
}

guint
ffm_workload_get_n_tensors (const FfmWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, 0);
  return workload->tensors->len;
}

const FfmTensor *
ffm_workload_get_tensor (const FfmWorkload *workload, guint index)
{
  g_return_val_if_fail (workload != NULL, NULL);
  g_return_val_if_fail (index < workload->tensors->len, NULL);
  return &g_array_index (workload->tensors, FfmTensor, index);
}

int
ffm_workload_find_tensor (const FfmWorkload *workload, const char *name)
{
  g_return_val_if_fail (workload != NULL && name != NULL, -1);
  return GPOINTER_TO_INT (g_hash_table_lookup (workload->tensor_index, name)) - 1;
}

guint
ffm_workload_get_n_einsums (const FfmWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, 0);
  return workload->einsums->len;
}

const FfmEinsum *
ffm_workload_get_einsum (const FfmWorkload *workload, guint index)
{
  g_return_val_if_fail (workload != NULL, NULL);
  g_return_val_if_fail (index < workload->einsums->len, NULL);
  return &g_array_index (workload->einsums, FfmEinsum, index);
}

int
ffm_workload_find_einsum (const FfmWorkload *workload, const char *name)
{
  g_return_val_if_fail (workload != NULL && name != NULL, -1);
  return GPOINTER_TO_INT (g_hash_table_lookup (workload->einsum_index, name)) - 1;
}

guint
ffm_workload_get_n_ranks (const FfmWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, 0);
  return workload->ranks->len;
}

const char *
ffm_workload_get_rank (const FfmWorkload *workload, guint index, guint64 *size)
{
  const FfmRankSize *r;

  g_return_val_if_fail (workload != NULL, NULL);
  g_return_val_if_fail (index < workload->ranks->len, NULL);
  r = &g_array_index (workload->ranks, FfmRankSize, index);
  if (size != NULL)
    *size = r->size;
  return r->name;
}

gboolean
ffm_workload_get_rank_size (const FfmWorkload *workload, const char *rank,
                            guint64 *size)
{
  g_return_val_if_fail (workload != NULL && rank != NULL, FALSE);
  for (guint i = 0; i < workload->ranks->len; i++)
    {
      const FfmRankSize *r = &g_array_index (workload->ranks, FfmRankSize, i);
      if (strcmp (r->name, rank) == 0)
        {
          if (size != NULL)
            *size = r->size;
          return TRUE;
        }
    }
  return FALSE;
}

guint64
ffm_workload_get_total_operations (const FfmWorkload *workload)
{
  guint64 total = 0;

  g_return_val_if_fail (workload != NULL, 0);
  for (guint e = 0; e < workload->einsums->len; e++)
    total += ffm_einsum_get_n_operations (&g_array_index (workload->einsums,
                                                          FfmEinsum, e));
  return total;
}

guint64
ffm_workload_get_tensor_values (const FfmWorkload *workload, guint tensor)
{
  g_return_val_if_fail (workload != NULL, 0);
  g_return_val_if_fail (tensor < workload->tensor_values->len, 0);
  return g_array_index (workload->tensor_values, guint64, tensor);
}

const char *
ffm_workload_get_tensor_kind (const FfmWorkload *workload, guint tensor)
{
  const FfmTensor *t;

  g_return_val_if_fail (workload != NULL, NULL);
  g_return_val_if_fail (tensor < workload->tensors->len, NULL);
  t = &g_array_index (workload->tensors, FfmTensor, tensor);
  if (t->classes & FFM_TENSOR_INTERMEDIATE)
    return "intermediate";
  if (t->classes & FFM_TENSOR_OUTPUT)
    return "output";
  for (guint e = 0; e < workload->einsums->len; e++)
    {
      const FfmEinsum *einsum = &g_array_index (workload->einsums, FfmEinsum, e);
      int a = ffm_einsum_find_access (einsum, tensor);
      if (a >= 0 && (einsum->accesses[a].roles & FFM_ROLE_WEIGHT))
        return "weight";
    }
  return "input";
}

const guint *
ffm_workload_get_tensor_readers (const FfmWorkload *workload, guint tensor,
                                 guint *n_readers)
{
  GArray *readers;

  g_return_val_if_fail (workload != NULL, NULL);
  g_return_val_if_fail (tensor < workload->tensor_readers->len, NULL);
  readers = workload->tensor_readers->pdata[tensor];
  if (n_readers != NULL)
    *n_readers = readers->len;
  return (const guint *) readers->data;
}

char *
ffm_tensor_classes_to_string (guint classes)
{
  static const struct {
    guint flag;
    const char *word;
  } words[] = {
    { FFM_TENSOR_INPUT, "input" },
    { FFM_TENSOR_OUTPUT, "output" },
    { FFM_TENSOR_INTERMEDIATE, "intermediate" },
    { FFM_TENSOR_SHARED, "shared" },
    { FFM_TENSOR_PERSISTENT, "persistent" },
  };
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (classes & words[i].flag)
      g_string_append_printf (out, "%s%s", out->len ? ", " : "", words[i].word);
  return g_string_free (out, FALSE);
}

/* ---- Einsums, projections, footprints ---- */

int
ffm_einsum_find_rank_var (const FfmEinsum *einsum, const char *name)
{
  g_return_val_if_fail (einsum != NULL && name != NULL, -1);
  for (guint v = 0; v < einsum->n_rank_vars; v++)
    if (strcmp (einsum->rank_var_names[v], name) == 0)
      return (int) v;
  return -1;
}

int
ffm_einsum_find_access (const FfmEinsum *einsum, guint tensor)
{
  g_return_val_if_fail (einsum != NULL, -1);
  for (guint a = 0; a < einsum->n_accesses; a++)
    if (einsum->accesses[a].tensor == tensor)
      return (int) a;
  return -1;
}

guint64
ffm_einsum_get_n_operations (const FfmEinsum *einsum)
{
  guint64 n = 1;

  g_return_val_if_fail (einsum != NULL, 0);
  if (einsum->is_copy)
    return 0;
  for (guint v = 0; v < einsum->n_rank_vars; v++)
    if (__builtin_mul_overflow (n, einsum->rank_var_bounds[v], &n))
      return G_MAXUINT64;
  return n;
}

guint64
ffm_projection_extent (const FfmProjection *projection, const guint64 *tile)
{
  return ffm_projection_extent_inline (projection, tile);
}

guint64
ffm_access_tile_values (const FfmEinsum *einsum, guint access,
                        const guint64 *tile)
{
  const FfmTensorAccess *a = &einsum->accesses[access];
  guint64 values = 1;

  /* The access does not store its tensor's rank count: projections past the
   * last rank are all-zero (no terms, extent 1), so all are multiplied. */
  for (guint r = 0; r < FFM_MAX_TENSOR_RANKS; r++)
    {
      guint64 extent = ffm_projection_extent (&a->projections[r], tile);
      if (__builtin_mul_overflow (values, extent, &values))
        return G_MAXUINT64;
    }
  return values;
}

gboolean
ffm_workload_access_values_checked (const FfmEinsum *einsum, guint access,
                                    guint64 *out)
{
  const FfmTensorAccess *a = &einsum->accesses[access];
  guint64 values = 1;

  for (guint r = 0; r < FFM_MAX_TENSOR_RANKS; r++)
    {
      const FfmProjection *p = &a->projections[r];
      guint64 extent = 1;
      for (guint t = 0; t < p->n_terms; t++)
        {
          guint64 span;
          if (__builtin_mul_overflow ((guint64) p->terms[t].coefficient,
                                      einsum->rank_var_bounds[p->terms[t].var] - 1,
                                      &span)
              || __builtin_add_overflow (extent, span, &extent))
            return FALSE;
        }
      if (__builtin_mul_overflow (values, extent, &values))
        return FALSE;
    }
  *out = values;
  return TRUE;
}

guint64
ffm_einsum_get_access_values (const FfmEinsum *einsum, guint access)
{
  g_return_val_if_fail (einsum != NULL && access < einsum->n_accesses, 0);
  return ffm_access_tile_values (einsum, access, einsum->rank_var_bounds);
}

gboolean
ffm_access_uses_var (const FfmEinsum *einsum, guint access, guint var)
{
  const FfmTensorAccess *a;

  g_return_val_if_fail (einsum != NULL && access < einsum->n_accesses, FALSE);
  a = &einsum->accesses[access];
  for (guint r = 0; r < FFM_MAX_TENSOR_RANKS; r++)
    for (guint t = 0; t < a->projections[r].n_terms; t++)
      if (a->projections[r].terms[t].var == var)
        return TRUE;
  return FALSE;
}

guint64
ffm_einsum_get_role_set (const FfmEinsum *einsum, FfmTensorRole role)
{
  guint64 set = 0;

  g_return_val_if_fail (einsum != NULL, 0);
  for (guint a = 0; a < einsum->n_accesses; a++)
    if (einsum->accesses[a].roles & role)
      set |= G_GUINT64_CONSTANT (1) << a;
  return set;
}

/* ---- Tensor-set scopes ---- */

typedef enum {
  WORD_ALL, WORD_NOTHING, WORD_INPUTS, WORD_OUTPUTS, WORD_INTERMEDIATES,
  WORD_SHARED, WORD_PERSISTENT, WORD_INPUT, WORD_WEIGHT, WORD_OUTPUT,
} ClassWord;

static const struct {
  const char *word;
  ClassWord kind;
} class_words[] = {
  { "all", WORD_ALL }, { "tensors", WORD_ALL }, { "nothing", WORD_NOTHING },
  { "inputs", WORD_INPUTS }, { "outputs", WORD_OUTPUTS },
  { "intermediates", WORD_INTERMEDIATES }, { "shared", WORD_SHARED },
  { "persistent", WORD_PERSISTENT }, { "input", WORD_INPUT },
  { "weight", WORD_WEIGHT }, { "weights", WORD_WEIGHT }, { "output", WORD_OUTPUT },
};

static int
find_class_word (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (class_words); i++)
    if (g_ascii_strcasecmp (class_words[i].word, name) == 0)
      return (int) class_words[i].kind;
  return -1;
}

gboolean
ffm_workload_is_class_word (const char *name)
{
  return find_class_word (name) >= 0;
}

gboolean
ffm_workload_tensor_name_allowed (const char *name)
{
  g_autofree char *lower = NULL;

  if (find_class_word (name) < 0)
    return TRUE;
  /* "Weights" may name a tensor (which then shadows the class word in
   * expressions); "weights" may not. */
  lower = g_ascii_strdown (name, -1);
  return strcmp (lower, name) != 0;
}

/* Accesses of @e whose tensor has class @flag. */
static guint64
class_set (const FfmWorkload *w, const FfmEinsum *e, guint flag)
{
  guint64 set = 0;

  for (guint a = 0; a < e->n_accesses; a++)
    {
      const FfmTensor *t = &g_array_index (w->tensors, FfmTensor, e->accesses[a].tensor);
      if (t->classes & flag)
        set |= G_GUINT64_CONSTANT (1) << a;
    }
  return set;
}

gboolean
ffm_workload_resolve_set_name (const FfmWorkload *w, guint einsum,
                               guint decided_roles, gboolean persistent_decided,
                               const char *name, FfmValue *out)
{
  const FfmEinsum *e = &g_array_index (w->einsums, FfmEinsum, einsum);
  guint64 all = e->n_accesses >= 64 ? G_MAXUINT64
                : (G_GUINT64_CONSTANT (1) << e->n_accesses) - 1;
  int word = find_class_word (name);
  int tensor;

  /* A tensor spelled like a class word in another case (Timeloop's
   * Weights, Inputs, Outputs) is that tensor. */
  if (word >= 0 && ffm_workload_find_tensor (w, name) >= 0)
    word = -1;

  memset (out, 0, sizeof *out);
  out->type = FFM_VALUE_SET;
  switch (word)
    {
    case WORD_ALL: out->set = all; return TRUE;
    case WORD_NOTHING: out->set = 0; return TRUE;
    case WORD_INPUTS: out->set = class_set (w, e, FFM_TENSOR_INPUT); return TRUE;
    case WORD_OUTPUTS: out->set = class_set (w, e, FFM_TENSOR_OUTPUT); return TRUE;
    case WORD_INTERMEDIATES:
      out->set = class_set (w, e, FFM_TENSOR_INTERMEDIATE);
      return TRUE;
    case WORD_SHARED: out->set = class_set (w, e, FFM_TENSOR_SHARED); return TRUE;
    case WORD_PERSISTENT:
      if (!persistent_decided)
        return FALSE;
      out->set = class_set (w, e, FFM_TENSOR_PERSISTENT);
      return TRUE;
    case WORD_INPUT:
    case WORD_WEIGHT:
    case WORD_OUTPUT:
      {
        FfmTensorRole role = word == WORD_INPUT ? FFM_ROLE_INPUT
                             : word == WORD_WEIGHT ? FFM_ROLE_WEIGHT
                             : FFM_ROLE_OUTPUT;
        if (!(decided_roles & role))
          return FALSE;
        out->set = ffm_einsum_get_role_set (e, role);
        return TRUE;
      }
    default:
      break;
    }
  tensor = ffm_workload_find_tensor (w, name);
  if (tensor < 0)
    return FALSE;
  out->set = 0;
  for (guint a = 0; a < e->n_accesses; a++)
    if (e->accesses[a].tensor == (guint) tensor)
      out->set |= G_GUINT64_CONSTANT (1) << a;
  return TRUE;
}

static gboolean
einsum_scope_resolve (const char *name, FfmValue *out, gpointer user_data)
{
  const FfmEinsumSetScope *s = user_data;

  if (s->extra != NULL && s->extra->resolve != NULL
      && s->extra->resolve (name, out, s->extra->user_data))
    return TRUE;
  return ffm_workload_resolve_set_name (s->workload, s->einsum,
                                        FFM_ROLE_INPUT | FFM_ROLE_WEIGHT | FFM_ROLE_OUTPUT,
                                        TRUE, name, out);
}

void
ffm_einsum_set_scope_init (FfmEinsumSetScope *set_scope,
                           const FfmWorkload *workload, guint einsum,
                           const FfmExprScope *extra)
{
  const FfmEinsum *e;

  g_return_if_fail (set_scope != NULL && workload != NULL);
  g_return_if_fail (einsum < workload->einsums->len);
  e = &g_array_index (workload->einsums, FfmEinsum, einsum);
  set_scope->workload = workload;
  set_scope->einsum = einsum;
  set_scope->extra = extra;
  set_scope->scope.resolve = einsum_scope_resolve;
  set_scope->scope.user_data = set_scope;
  set_scope->scope.universe = (G_GUINT64_CONSTANT (1) << e->n_accesses) - 1;
}

const char *
ffm_workload_get_left_out_condition (const FfmWorkload *workload, const char *name)
{
  g_return_val_if_fail (workload != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  return g_hash_table_lookup (workload->left_out, name);
}

char *
ffm_workload_explain_missing (const FfmWorkload *workload, const char *name)
{
  const char *condition;

  g_return_val_if_fail (workload != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  condition = g_hash_table_lookup (workload->left_out, name);
  if (condition == NULL)
    return g_strdup ("");
  return g_strdup_printf (" (it is in the Einsums for \"%s\", which is false with the "
                          "parameters given: was the mapping made with other "
                          "parameters?)", condition);
}
