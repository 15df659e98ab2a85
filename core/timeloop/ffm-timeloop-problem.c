/* ffm-timeloop-problem.c: a Timeloop problem (shape + instance) as an ffm
 * workload, and the naming rules shared with the mapping translation.
 *
 * A shape's dimensions become rank variables (their names in lower case),
 * each data space a tensor of its name whose ranks are its projection's
 * entries: a rank indexed by one dimension is named after it (rank M,
 * variable m), a rank indexed by a sum (`[[P, Wstride], [R, Wdilation]]`,
 * a sliding window; each term [DIMENSION] or [DIMENSION, COEFFICIENT], in
 * the order Timeloop reads it) after the dimensions it sums (rank P_R
 * indexed by Wstride*p + Wdilation*r, its size the extent of that sum).
 * The read-write data space is the Einsum's output; a data space named
 * Weights (any case) is the Einsum's weight. Instance keys that are
 * neither a dimension nor a coefficient (the front end writes H, W, Hpad,
 * ... for its convolutions) are ignored with a warning.
 * The workload is written as ffm workload JSON and loaded by the workload
 * loader, so it obeys every rule of a workload file; the checks here come
 * first and name the YAML file, line and key. */
#include "ffm-timeloop-private.h"
#include "ffm-workload-private.h"

#include <ffm/ffm-json-writer.h>

#include <string.h>

static const char *const problem_keys[] = { "version", "shape", "instance", NULL };
static const char *const instance_keys_ignored[] = { "densities", NULL };
static const char *const shape_keys[] = {
  "name", "dimensions", "coefficients", "data-spaces", "data_spaces", NULL
};
static const char *const dataspace_keys[] = {
  "name", "projection", "read-write", "read_write", NULL
};
static const char *const coefficient_keys[] = { "name", "default", NULL };

/* ---- Names ---- */

char *
ffm_tl_identifier (const char *name)
{
  GString *s = g_string_new (NULL);

  if (!g_ascii_isalpha (name[0]) && name[0] != '_')
    g_string_append_c (s, '_');
  for (const char *p = name; *p != '\0'; p++)
    g_string_append_c (s, g_ascii_isalnum (*p) || *p == '_' ? *p : '_');
  return g_string_free (s, FALSE);
}

char *
ffm_tl_dimension_var (const char *dim)
{
  return g_ascii_strdown (dim, -1);
}

char *
ffm_tl_tensor_name (const char *name)
{
  return ffm_tl_identifier (name);
}

/* ---- Reading the problem ---- */

typedef struct {
  char *coefficient;        /* NULL = 1 */
  guint dim;
} Term;

typedef struct {
  guint n_terms;
  Term terms[8];
} Rank;

typedef struct {
  char *name;               /* ffm tensor name */
  const FfmTlNode *node;
  gboolean output;
  guint n_ranks;
  Rank ranks[8];
} DataSpace;

typedef struct {
  FfmTimeloopSpec *spec;
  const FfmTlNode *problem;
  GPtrArray *dims;          /* of char * (Timeloop names) */
  GPtrArray *vars;          /* of char * (rank variables) */
  GPtrArray *coef_names;    /* of char * */
  GArray *coef_values;      /* of guint64: default, then the instance's */
  GArray *dim_sizes;        /* of guint64, from the instance */
  GArray *spaces;           /* of DataSpace */
  char *name;               /* the shape's name */
} Problem;

static void
problem_clear (Problem *p)
{
  g_ptr_array_unref (p->dims);
  g_ptr_array_unref (p->vars);
  g_ptr_array_unref (p->coef_names);
  g_array_unref (p->coef_values);
  g_array_unref (p->dim_sizes);
  for (guint i = 0; i < p->spaces->len; i++)
    {
      DataSpace *d = &g_array_index (p->spaces, DataSpace, i);
      g_free (d->name);
      for (guint r = 0; r < d->n_ranks; r++)
        for (guint t = 0; t < d->ranks[r].n_terms; t++)
          g_free (d->ranks[r].terms[t].coefficient);
    }
  g_array_unref (p->spaces);
  g_free (p->name);
}

static int
find_string (const GPtrArray *list, const char *name)
{
  for (guint i = 0; i < list->len; i++)
    if (strcmp (list->pdata[i], name) == 0)
      return (int) i;
  return -1;
}

static gboolean
read_dimensions (Problem *p, const FfmTlNode *shape, GError **error)
{
  const FfmTlNode *dims = ffm_tl_get (shape, "dimensions");

  if (dims == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, shape,
                        "problem.shape", "missing key 'dimensions'");
  if (!ffm_tl_require (dims, FFM_TL_SEQUENCE, "problem.shape.dimensions", error))
    return FALSE;
  if (dims->n_items == 0 || dims->n_items > FFM_MAX_EINSUM_RANK_VARS)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, dims,
                        "problem.shape.dimensions", "expected 1 to %d "
                        "dimensions, got %u", FFM_MAX_EINSUM_RANK_VARS,
                        dims->n_items);
  for (guint i = 0; i < dims->n_items; i++)
    {
      g_autofree char *path = ffm_tl_path_index ("problem.shape.dimensions", i);
      const char *name = ffm_tl_string (dims->items[i], path, error);
      char *var;

      if (name == NULL)
        return FALSE;
      if (!g_ascii_isalpha (name[0]))
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, dims->items[i],
                            path, "dimension '%s': ffm's rank variables begin "
                            "with a letter", name);
      for (const char *c = name; *c != '\0'; c++)
        if (!g_ascii_isalnum (*c) && *c != '_')
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                              dims->items[i], path, "dimension '%s': use "
                              "letters, digits and '_' only", name);
      var = ffm_tl_dimension_var (name);
      if (find_string (p->vars, var) >= 0)
        {
          ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, dims->items[i], path,
                       "dimension '%s' is given twice (ffm's rank variables "
                       "ignore case: '%s')", name, var);
          g_free (var);
          return FALSE;
        }
      g_ptr_array_add (p->dims, g_strdup (name));
      g_ptr_array_add (p->vars, var);
    }
  return TRUE;
}

static gboolean
read_coefficients (Problem *p, const FfmTlNode *shape, GError **error)
{
  const FfmTlNode *list = ffm_tl_get (shape, "coefficients");

  if (list == NULL)
    return TRUE;
  if (!ffm_tl_require (list, FFM_TL_SEQUENCE, "problem.shape.coefficients", error))
    return FALSE;
  for (guint i = 0; i < list->n_items; i++)
    {
      g_autofree char *path = ffm_tl_path_index ("problem.shape.coefficients", i);
      g_autofree char *name_path = ffm_tl_path_key (path, "name");
      g_autofree char *default_path = ffm_tl_path_key (path, "default");
      const FfmTlNode *c = list->items[i], *value;
      const char *name;
      guint64 v = 1;

      if (!ffm_tl_check_keys (c, path, coefficient_keys, error))
        return FALSE;
      if (ffm_tl_get (c, "name") == NULL)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c, path,
                            "missing key 'name'");
      name = ffm_tl_string (ffm_tl_get (c, "name"), name_path, error);
      if (name == NULL)
        return FALSE;
      if ((value = ffm_tl_get (c, "default")) != NULL
          && !ffm_tl_count (value, default_path, 1, &v, error))
        return FALSE;
      g_ptr_array_add (p->coef_names, g_strdup (name));
      g_array_append_val (p->coef_values, v);
    }
  return TRUE;
}

/* One term of a projection: [DIMENSION] or [DIMENSION, COEFFICIENT], the
 * dimension first as Timeloop's parser reads it. */
static gboolean
read_term (Problem *p, const FfmTlNode *node, const char *path, Term *term,
           GError **error)
{
  const FfmTlNode *dim_node;
  const char *dim;
  int d;

  if (node->kind != FFM_TL_SEQUENCE || node->n_items < 1 || node->n_items > 2)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "a projection term is [DIMENSION] or [DIMENSION, "
                        "COEFFICIENT]");
  dim_node = node->items[0];
  if ((dim = ffm_tl_string (dim_node, path, error)) == NULL)
    return FALSE;
  if ((d = find_string (p->dims, dim)) < 0)
    {
      if (node->n_items == 2 && node->items[1]->kind == FFM_TL_SCALAR
          && find_string (p->dims, node->items[1]->text) >= 0)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, dim_node, path,
                            "[%s, %s]: Timeloop reads a term as [DIMENSION, "
                            "COEFFICIENT]: write [%s, %s]", dim,
                            node->items[1]->text, node->items[1]->text, dim);
      return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, dim_node, path,
                          "'%s' is not a dimension of the shape", dim);
    }
  term->dim = (guint) d;
  term->coefficient = NULL;
  if (node->n_items == 2)
    {
      const char *coef = ffm_tl_string (node->items[1], path, error);
      if (coef == NULL)
        return FALSE;
      if (find_string (p->coef_names, coef) < 0)
        {
          char *end = NULL;
          guint64 value = g_ascii_strtoull (coef, &end, 10);
          if (end == coef || *end != '\0' || value == 0 || value > G_MAXUINT32)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID,
                                node->items[1], path, "'%s' is neither a "
                                "coefficient of the shape nor a positive "
                                "integer", coef);
        }
      term->coefficient = g_strdup (coef);
    }
  return TRUE;
}

static gboolean
read_data_space (Problem *p, const FfmTlNode *node, const char *path,
                 GError **error)
{
  g_autofree char *proj_path = ffm_tl_path_key (path, "projection");
  g_autofree char *name_path = ffm_tl_path_key (path, "name");
  const FfmTlNode *proj, *rw;
  const char *name;
  DataSpace d = { 0 };

  if (!ffm_tl_check_keys (node, path, dataspace_keys, error))
    return FALSE;
  if (ffm_tl_get (node, "name") == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "missing key 'name'");
  if ((name = ffm_tl_string (ffm_tl_get (node, "name"), name_path, error)) == NULL)
    return FALSE;
  d.name = ffm_tl_tensor_name (name);
  d.node = node;
  g_array_append_val (p->spaces, d);
  if (strcmp (d.name, name) != 0)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                        ffm_tl_get (node, "name"), name_path, "data space '%s': "
                        "ffm's tensor names are letters, digits and '_' (e.g. %s)",
                        name, d.name);
  if (!ffm_workload_tensor_name_allowed (name))
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                        ffm_tl_get (node, "name"), name_path, "data space '%s' "
                        "is spelled like a word of ffm's tensor-set expressions "
                        "(all, inputs, weights, ...): capitalise it (%c%s) or "
                        "rename it", name, g_ascii_toupper (name[0]), name + 1);
  rw = ffm_tl_get (node, "read-write");
  if (rw == NULL)
    rw = ffm_tl_get (node, "read_write");
  if (rw != NULL && !ffm_tl_bool (rw, path, &g_array_index (p->spaces, DataSpace,
                                                            p->spaces->len - 1).output,
                                  error))
    return FALSE;
  if ((proj = ffm_tl_get (node, "projection")) == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "missing key 'projection'");
  if (!ffm_tl_require (proj, FFM_TL_SEQUENCE, proj_path, error))
    return FALSE;
  if (proj->n_items == 0 || proj->n_items > 8)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, proj, proj_path,
                        "ffm's tensors have 1 to 8 ranks, this one %u",
                        proj->n_items);
  for (guint r = 0; r < proj->n_items; r++)
    {
      g_autofree char *rank_path = ffm_tl_path_index (proj_path, r);
      const FfmTlNode *rank = proj->items[r];
      DataSpace *ds = &g_array_index (p->spaces, DataSpace, p->spaces->len - 1);

      if (rank->kind == FFM_TL_SCALAR)
        {
          /* Timeloop's short form: projection: [M, K], one dimension per
           * rank. */
          int dd = find_string (p->dims, rank->text);
          if (dd < 0)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, rank, rank_path,
                                "'%s' is not a dimension of the shape", rank->text);
          ds->n_ranks = r + 1;
          ds->ranks[r].n_terms = 1;
          ds->ranks[r].terms[0].dim = (guint) dd;
          ds->ranks[r].terms[0].coefficient = NULL;
          continue;
        }
      if (!ffm_tl_require (rank, FFM_TL_SEQUENCE, rank_path, error))
        return FALSE;
      if (rank->n_items == 0 || rank->n_items > 4)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, rank,
                            rank_path, "a rank is a list of 1 to 4 terms such "
                            "as [[M]] or [[P, Wstride], [R]]");
      ds->n_ranks = r + 1;
      ds->ranks[r].n_terms = rank->n_items;
      for (guint t = 0; t < rank->n_items; t++)
        {
          g_autofree char *term_path = ffm_tl_path_index (rank_path, t);
          if (rank->items[t]->kind == FFM_TL_SCALAR)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, rank->items[t],
                                term_path, "a term is a list: write [[%s]] for "
                                "a rank indexed by %s", rank->items[t]->text,
                                rank->items[t]->text);
          if (!read_term (p, rank->items[t], term_path, &ds->ranks[r].terms[t],
                          error))
            return FALSE;
        }
    }
  return TRUE;
}

static gboolean
read_instance (Problem *p, const FfmTlNode *problem, GError **error)
{
  const FfmTlNode *inst = ffm_tl_get (problem, "instance");
  const char *path = "problem.instance";

  if (inst == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, problem, "problem",
                        "missing key 'instance' (the size of each dimension)");
  if (!ffm_tl_require (inst, FFM_TL_MAPPING, path, error))
    return FALSE;
  g_array_set_size (p->dim_sizes, p->dims->len);
  for (guint i = 0; i < inst->n_items; i++)
    {
      const FfmTlNode *key = inst->items[2 * i], *value = inst->items[2 * i + 1];
      g_autofree char *sub = ffm_tl_path_key (path, key->text);
      int d = find_string (p->dims, key->text);
      int c = find_string (p->coef_names, key->text);
      guint64 v;

      if (g_strv_contains (instance_keys_ignored, key->text))
        {
          if (value->kind != FFM_TL_MAPPING || value->n_items > 0)
            ffm_tl_warn (p->spec, FFM_TL_WARN_DENSITY, key, sub, "densities "
                         "are ignored: ffm models dense tensors");
          continue;
        }
      if (d < 0 && c < 0)
        {
          /* The front end writes the sizes its expressions use (H, W,
           * Hpad, ...) next to the dimensions; Timeloop ignores them. */
          GString *dims = g_string_new (NULL);
          for (guint k = 0; k < p->dims->len; k++)
            g_string_append_printf (dims, "%s%s", k > 0 ? ", " : "",
                                    (const char *) p->dims->pdata[k]);
          ffm_tl_warn (p->spec, FFM_TL_WARN_INSTANCE_KEY, key, sub, "'%s' is "
                       "neither a dimension (%s) nor a coefficient of the "
                       "shape: ignored, as Timeloop does", key->text, dims->str);
          g_string_free (dims, TRUE);
          continue;
        }
      if (!ffm_tl_count (value, sub, 1, &v, error))
        return FALSE;
      if (d >= 0)
        g_array_index (p->dim_sizes, guint64, d) = v;
      else
        g_array_index (p->coef_values, guint64, c) = v;
    }
  for (guint d = 0; d < p->dims->len; d++)
    if (g_array_index (p->dim_sizes, guint64, d) == 0)
      {
        g_autofree char *sub = ffm_tl_path_key (path, p->dims->pdata[d]);
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, inst, sub,
                            "dimension %s is missing from the instance (give "
                            "its size, e.g. %s: 16)", (char *) p->dims->pdata[d],
                            (char *) p->dims->pdata[d]);
      }
  return TRUE;
}

static guint64 coefficient_value (const Problem *p, const Term *t);

/* Every rank's extent, 1 + sum coef x (size - 1), is at most 2^53. */
static gboolean
check_extents (const Problem *p, GError **error)
{
  for (guint i = 0; i < p->spaces->len; i++)
    {
      const DataSpace *d = &g_array_index (p->spaces, DataSpace, i);
      for (guint r = 0; r < d->n_ranks; r++)
        {
          guint64 extent = 1;
          gboolean ok = TRUE;
          for (guint t = 0; t < d->ranks[r].n_terms; t++)
            {
              guint64 term;
              ok = ok && g_uint64_checked_mul (&term, coefficient_value (p, &d->ranks[r].terms[t]),
                                               g_array_index (p->dim_sizes, guint64,
                                                              d->ranks[r].terms[t].dim) - 1)
                   && g_uint64_checked_add (&extent, extent, term);
            }
          if (!ok || extent > (guint64) FFM_MAX_EXACT_INTEGER)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, d->node,
                                "problem.shape.data_spaces", "data space %s: "
                                "rank %u spans more than 2^53 values", d->name, r);
        }
    }
  return TRUE;
}

static gboolean
read_problem (Problem *p, GError **error)
{
  const FfmTlNode *problem = p->problem, *shape, *spaces, *name;
  guint n_outputs = 0;

  if (!ffm_tl_check_keys (problem, "problem", problem_keys, error)
      || !ffm_tl_check_version (problem, "problem", error))
    return FALSE;
  if ((shape = ffm_tl_get (problem, "shape")) == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, problem, "problem",
                        "missing key 'shape'");
  if (shape->kind == FFM_TL_SCALAR)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, shape,
                        "problem.shape", "a named shape ('%s', from Timeloop's "
                        "problem-shapes folder) is not read: write the shape "
                        "in the file", shape->text);
  if (!ffm_tl_check_keys (shape, "problem.shape", shape_keys, error))
    return FALSE;
  name = ffm_tl_get (shape, "name");
  if (name != NULL)
    {
      /* The front end writes '' when the user gave no name. */
      const char *text = ffm_tl_string_or_empty (name, "problem.shape.name", error);
      if (text == NULL)
        return FALSE;
      p->name = text[0] != '\0' ? ffm_tl_identifier (text) : g_strdup ("problem");
    }
  else
    p->name = g_strdup ("problem");
  if (!read_dimensions (p, shape, error) || !read_coefficients (p, shape, error))
    return FALSE;
  spaces = ffm_tl_get (shape, "data-spaces");
  if (spaces == NULL)
    spaces = ffm_tl_get (shape, "data_spaces");
  if (spaces == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, shape,
                        "problem.shape", "missing key 'data-spaces'");
  if (!ffm_tl_require (spaces, FFM_TL_SEQUENCE, "problem.shape.data-spaces", error))
    return FALSE;
  if (spaces->n_items < 2 || spaces->n_items > FFM_MAX_EINSUM_TENSORS)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, spaces,
                        "problem.shape.data-spaces", "ffm's Einsums have 2 to "
                        "%d tensors, this shape %u", FFM_MAX_EINSUM_TENSORS,
                        spaces->n_items);
  for (guint i = 0; i < spaces->n_items; i++)
    {
      g_autofree char *path = ffm_tl_path_index ("problem.shape.data-spaces", i);
      if (!read_data_space (p, spaces->items[i], path, error))
        return FALSE;
      for (guint j = 0; j < i; j++)
        if (strcmp (g_array_index (p->spaces, DataSpace, j).name,
                    g_array_index (p->spaces, DataSpace, i).name) == 0)
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, spaces->items[i],
                              path, "a second data space named %s",
                              g_array_index (p->spaces, DataSpace, i).name);
      n_outputs += g_array_index (p->spaces, DataSpace, i).output;
    }
  if (n_outputs != 1)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, spaces,
                        "problem.shape.data-spaces", "ffm's Einsums have one "
                        "output: exactly one data space must be read-write: "
                        "True (this shape has %u)", n_outputs);
  /* A dimension no data space uses would repeat the whole computation; an
   * Einsum has no such variable. */
  for (guint d = 0; d < p->dims->len; d++)
    {
      gboolean used = FALSE;
      for (guint i = 0; i < p->spaces->len && !used; i++)
        {
          const DataSpace *ds = &g_array_index (p->spaces, DataSpace, i);
          for (guint r = 0; r < ds->n_ranks; r++)
            for (guint t = 0; t < ds->ranks[r].n_terms; t++)
              used |= ds->ranks[r].terms[t].dim == d;
        }
      if (!used)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                            ffm_tl_get (shape, "dimensions"),
                            "problem.shape.dimensions", "dimension %s indexes "
                            "no data space (an Einsum cannot loop over it)",
                            (char *) p->dims->pdata[d]);
    }
  return read_instance (p, problem, error) && check_extents (p, error);
}

/* ---- Writing the workload ---- */

static guint64
coefficient_value (const Problem *p, const Term *t)
{
  int c;

  if (t->coefficient == NULL)
    return 1;
  c = find_string (p->coef_names, t->coefficient);
  if (c >= 0)
    return g_array_index (p->coef_values, guint64, c);
  return g_ascii_strtoull (t->coefficient, NULL, 10);
}

/* The rank's name and size: a single dimension's own name and size, or
 * the dimensions joined with '_' and the extent of the sum. */
static char *
rank_name (const Problem *p, const Rank *r, guint64 *size)
{
  GString *name = g_string_new (NULL);
  guint64 extent = 1;

  for (guint t = 0; t < r->n_terms; t++)
    {
      guint d = r->terms[t].dim;
      if (t > 0)
        g_string_append_c (name, '_');
      g_string_append (name, p->dims->pdata[d]);
      extent += coefficient_value (p, &r->terms[t])
        * (g_array_index (p->dim_sizes, guint64, d) - 1);
    }
  *size = extent;
  return g_string_free (name, FALSE);
}

static void
append_access (const Problem *p, const DataSpace *d, GString *s,
               GHashTable *ranks)
{
  g_autoptr (GPtrArray) used = g_ptr_array_new_with_free_func (g_free);

  g_string_append_printf (s, "%s[", d->name);
  for (guint r = 0; r < d->n_ranks; r++)
    {
      guint64 size;
      g_autofree char *base = rank_name (p, &d->ranks[r], &size);
      char *name = g_strdup (base);

      /* A rank name is one size in the workload and one rank per tensor. */
      for (guint k = 2;
           find_string (used, name) >= 0
           || (g_hash_table_contains (ranks, name)
               && GPOINTER_TO_SIZE (g_hash_table_lookup (ranks, name)) != size);
           k++)
        {
          g_free (name);
          name = g_strdup_printf ("%s_%u", base, k);
        }
      g_hash_table_insert (ranks, g_strdup (name), GSIZE_TO_POINTER (size));
      g_string_append_printf (s, "%s%s:", r > 0 ? "," : "", name);
      for (guint t = 0; t < d->ranks[r].n_terms; t++)
        {
          guint64 coef = coefficient_value (p, &d->ranks[r].terms[t]);
          if (t > 0)
            g_string_append_c (s, '+');
          if (coef != 1)
            g_string_append_printf (s, "%" G_GUINT64_FORMAT "*", coef);
          g_string_append (s, p->vars->pdata[d->ranks[r].terms[t].dim]);
        }
      g_ptr_array_add (used, name);
    }
  g_string_append_c (s, ']');
}

static char *
workload_json (const Problem *p, guint bits)
{
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
  g_autoptr (GHashTable) ranks = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                        g_free, NULL);
  g_autoptr (GString) einsum = g_string_new (NULL);
  g_autofree char *description =
    g_strdup_printf ("Timeloop problem %s (%s:%u)", p->name, p->problem->file,
                     p->problem->line);
  const DataSpace *out = NULL;
  gboolean first = TRUE;
  GHashTableIter iter;
  gpointer key, value;
  g_autoptr (GList) names = NULL;

  for (guint i = 0; i < p->spaces->len; i++)
    if (g_array_index (p->spaces, DataSpace, i).output)
      out = &g_array_index (p->spaces, DataSpace, i);
  append_access (p, out, einsum, ranks);
  g_string_append (einsum, " = ");
  for (guint i = 0; i < p->spaces->len; i++)
    {
      const DataSpace *d = &g_array_index (p->spaces, DataSpace, i);
      if (d->output)
        continue;
      if (!first)
        g_string_append (einsum, " * ");
      append_access (p, d, einsum, ranks);
      first = FALSE;
    }

  ffm_json_writer_begin_object (b);
  ffm_json_writer_key (b, "ffm_workload");
  ffm_json_writer_int (b, 1);
  ffm_json_writer_key (b, "name");
  ffm_json_writer_string (b, p->name);
  ffm_json_writer_key (b, "description");
  ffm_json_writer_string (b, description);
  ffm_json_writer_key (b, "source");
  ffm_json_writer_string (b, p->problem->file);
  ffm_json_writer_key (b, "ranks");
  ffm_json_writer_begin_object (b);
  g_hash_table_iter_init (&iter, ranks);
  while (g_hash_table_iter_next (&iter, &key, &value))
    names = g_list_prepend (names, key);
  names = g_list_sort (names, (GCompareFunc) strcmp);
  for (GList *l = names; l != NULL; l = l->next)
    {
      ffm_json_writer_key (b, l->data);
      ffm_json_writer_uint (b, GPOINTER_TO_SIZE (g_hash_table_lookup (ranks, l->data)));
    }
  ffm_json_writer_end_object (b);
  ffm_json_writer_key (b, "bits_per_value");
  ffm_json_writer_begin_object (b);
  ffm_json_writer_key (b, "all");
  ffm_json_writer_int (b, bits);
  ffm_json_writer_end_object (b);
  ffm_json_writer_key (b, "einsums");
  ffm_json_writer_begin_array (b);
  ffm_json_writer_begin_object (b);
  ffm_json_writer_key (b, "einsum");
  ffm_json_writer_string (b, einsum->str);
  /* Timeloop names the weights; ffm's default would take the first input. */
  for (guint i = 0; i < p->spaces->len; i++)
    {
      const DataSpace *d = &g_array_index (p->spaces, DataSpace, i);
      g_autofree char *lower = g_ascii_strdown (d->name, -1);
      if (d->output || (strcmp (lower, "weights") != 0 && strcmp (lower, "weight") != 0))
        continue;
      ffm_json_writer_key (b, "roles");
      ffm_json_writer_begin_object (b);
      ffm_json_writer_key (b, "weight");
      ffm_json_writer_string (b, d->name);
      ffm_json_writer_end_object (b);
      break;
    }
  ffm_json_writer_key (b, "name");
  ffm_json_writer_string (b, p->name);
  ffm_json_writer_key (b, "bounds");
  ffm_json_writer_begin_object (b);
  for (guint d = 0; d < p->vars->len; d++)
    {
      ffm_json_writer_key (b, p->vars->pdata[d]);
      ffm_json_writer_uint (b, g_array_index (p->dim_sizes, guint64, d));
    }
  ffm_json_writer_end_object (b);
  ffm_json_writer_end_object (b);
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);

  return ffm_json_writer_finish (b);
}

FfmWorkload *
ffm_timeloop_spec_to_workload (FfmTimeloopSpec *spec, guint bits_per_value,
                               GError **error)
{
  Problem p = { 0 };
  g_autofree char *json = NULL;
  g_autofree char *display = NULL;
  FfmWorkload *w = NULL;
  GError *local = NULL;

  g_return_val_if_fail (spec != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  p.problem = ffm_tl_spec_get (spec, "problem");
  if (p.problem == NULL)
    {
      g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_MISSING,
                   "%s: no 'problem' (a Timeloop problem: shape and instance)",
                   ffm_tl_spec_get_files (spec));
      return NULL;
    }
  if (bits_per_value == 0)
    {
      g_set_error_literal (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_INVALID,
                           "bits per value must be at least 1");
      return NULL;
    }
  p.spec = spec;
  p.dims = g_ptr_array_new_with_free_func (g_free);
  p.vars = g_ptr_array_new_with_free_func (g_free);
  p.coef_names = g_ptr_array_new_with_free_func (g_free);
  p.coef_values = g_array_new (FALSE, TRUE, sizeof (guint64));
  p.dim_sizes = g_array_new (FALSE, TRUE, sizeof (guint64));
  p.spaces = g_array_new (FALSE, TRUE, sizeof (DataSpace));
  if (read_problem (&p, error))
    {
      json = workload_json (&p, bits_per_value);
      display = g_strdup_printf ("%s (problem as an ffm workload)",
                                 p.problem->file);
      w = ffm_workload_load_from_data (json, display, NULL, &local);
      if (w == NULL)
        {
          /* The checks above should have caught it: say where it came from. */
          g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                       "%s:%u: problem: %s", p.problem->file, p.problem->line,
                       local->message);
          g_error_free (local);
        }
    }
  problem_clear (&p);
  return w;
}
