/* ffm-workload-loader.c: reads a workload JSON file (format in
 * docs/file-formats.md, "Workloads") into an FfmWorkload.
 *
 * Loading runs in two phases. Expansion walks the file in order: parameters,
 * `let`, checks, rank sizes, then the Einsum list, unrolling repeat blocks
 * and substituting `{expr}`; it produces raw Einsums (parsed strings, names,
 * evaluated bounds) while the parameter scope is alive. Building then turns
 * the raw Einsums kept by `when` into the resolved model: tensors and their
 * rank lists, rank-variable bounds (the bounding box of accelforge's workload files),
 * footprints, producers and readers, classes, roles, persistence and bits.
 * Every error goes through ffm_json_set_error(), so it names the file, the
 * line of the offending value and its JSON path.
 *
 * This file holds the entry points; the phases are in the files
 * ffm-workload-loader-private.h lists. */
#include "ffm-workload-loader-private.h"

/* ---- Building (phase 2) ---- */

static gboolean
build (Loader *L, JsonNode *root, JsonNode *einsums_node)
{
  g_autoptr (GPtrArray) kept = g_ptr_array_new ();
  TopRole top[3] = { { 0 } };
  gboolean ok = FALSE;

  for (guint i = 0; i < L->raw->len; i++)
    if (((RawEinsum *) L->raw->pdata[i])->included)
      g_ptr_array_add (kept, L->raw->pdata[i]);
  if (kept->len == 0 && L->raw->len > 0)
    return loader_fail (L, einsums_node, "$.einsums", "workload %s has no Einsums with these "
                        "parameters (\"when\" left out all %u)", L->w->name, L->raw->len);
  if (kept->len == 0)
    return loader_fail (L, einsums_node, "$.einsums", "workload %s has no Einsums", L->w->name);
  for (guint i = 0; i < kept->len; i++)
    if (!loader_check_name_lengths (L, kept->pdata[i]))
      return FALSE;
  for (guint i = 0; i < kept->len; i++)
    {
      RawEinsum *r = kept->pdata[i];
      const char *why;
      if ((why = loader_reserved_tensor_name (r->output.tensor)) != NULL)
        return loader_fail_einsum (L, r, "tensor name %s is reserved (%s)", r->output.tensor, why);
      for (guint k = 0; k < r->n_inputs; k++)
        if ((why = loader_reserved_tensor_name (r->inputs[k].tensor)) != NULL)
          return loader_fail_einsum (L, r, "tensor name %s is reserved (%s)",
                                     r->inputs[k].tensor, why);
    }
  if (!loader_resolve_tensor_ranks (L, kept))
    return FALSE;
  g_array_set_size (L->w->tensor_values, L->w->tensors->len);
  for (guint i = 0; i < kept->len; i++)
    if (!loader_build_einsum (L, kept->pdata[i]))
      return FALSE;
  {
    guint64 total = 0;
    for (guint i = 0; i < L->w->einsums->len; i++)
      if (__builtin_add_overflow (total, ffm_einsum_get_n_operations (loader_einsum_at (L, i)),
                                  &total))
        return loader_fail (L, einsums_node, "$.einsums", "more than 2^64 operations in total");
  }
  if (loader_compute_classes (L, kept) && loader_read_top_roles (L, root, top)
      && loader_decide_roles (L, kept, top) && loader_decide_persistent (L, root)
      && loader_decide_bits (L, root, kept) && loader_check_tensor_decls (L)
      && loader_check_bit_counts (L, root))
    ok = TRUE;
  if (ok)
    loader_record_left_out (L);
  for (guint k = 0; k < 3; k++)
    {
      ffm_expr_free (top[k].expr);
      g_free (top[k].path);
    }
  return ok;
}

/* ---- Entry points ---- */

static gboolean
read_header (Loader *L, JsonNode *root)
{
  static const char *const allowed[] = {
    "ffm_workload", "name", "description", "source", "layer", "parameters", "let",
    "checks", "ranks", "bits_per_value", "persistent", "roles", "tensors", "einsums",
    NULL
  };
  JsonNode *version = ffm_json_get_member (root, "ffm_workload");
  JsonNode *name_node;
  const char *name;
  double v;
  static const struct {
    const char *member;
    gsize offset;
  } texts[] = {
    { "description", G_STRUCT_OFFSET (FfmWorkload, description) },
    { "source", G_STRUCT_OFFSET (FfmWorkload, data_source) },
    { "layer", G_STRUCT_OFFSET (FfmWorkload, layer) },
  };

  if (!ffm_json_require_object (L->doc, root, "$", INVALID, L->error)
      || !ffm_json_check_members (L->doc, root, "$", allowed, INVALID, L->error))
    return FALSE;
  if (version == NULL)
    return loader_fail (L, root, "$", "missing \"ffm_workload\": %d (the format version): is "
                        "this a workload file?", FFM_WORKLOAD_FORMAT_VERSION);
  if (!ffm_json_require_number (L->doc, version, "$.ffm_workload", INVALID, &v, L->error))
    return FALSE;
  if (v != FFM_WORKLOAD_FORMAT_VERSION)
    return loader_fail (L, version, "$.ffm_workload", "unsupported format version %g (this ffm "
                        "reads %d)", v, FFM_WORKLOAD_FORMAT_VERSION);
  name_node = ffm_json_get_member (root, "name");
  if ((name = ffm_json_require_string (L->doc, name_node, "$.name", INVALID, L->error)) == NULL)
    return FALSE;
  if (name[0] == '\0' || strspn (name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789_.+-") != strlen (name))
    return loader_fail (L, name_node, "$.name",
                        "workload name '%s' must match [A-Za-z0-9_.+-]+", name);
  g_free (L->w->name);
  L->w->name = g_strdup (name);
  L->owner = g_strdup_printf ("workload %s", name);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      JsonNode *node = ffm_json_get_member (root, texts[i].member);
      g_autofree char *path = g_strdup_printf ("$.%s", texts[i].member);
      const char *text;
      if (node == NULL)
        continue;
      if ((text = ffm_json_require_string (L->doc, node, path, INVALID, L->error)) == NULL)
        return FALSE;
      G_STRUCT_MEMBER (char *, L->w, texts[i].offset) = g_strdup (text);
    }
  return TRUE;
}

static FfmWorkload *
load_doc (FfmJsonDoc *doc, const FfmParamValues *params, GError **error)
{
  Loader L = { 0 };
  JsonNode *root = ffm_json_doc_get_root (doc);
  JsonNode *einsums;
  gboolean ok;

  L.doc = doc;
  L.user = params;
  L.error = error;
  L.w = ffm_workload_new_empty ("?", ffm_json_doc_get_name (doc));
  L.strings = g_ptr_array_new_with_free_func (g_free);
  L.rank_decls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, loader_rank_decl_free);
  L.tensor_decls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, loader_tensor_decl_free);
  L.raw = g_ptr_array_new_with_free_func (loader_raw_einsum_free);
  L.seen_tensors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  einsums = ffm_json_get_member (root, "einsums");
  ok = read_header (&L, root) && loader_read_parameters_and_lets (&L, root)
       && loader_read_checks (&L, root)
       && loader_read_ranks (&L, ffm_json_get_member (root, "ranks"), "$.ranks")
       && loader_read_tensor_decls (&L, root)
       && (einsums != NULL || loader_fail (&L, root, "$", "missing \"einsums\" (the list of "
                                           "Einsums)"))
       && loader_expand_list (&L, einsums, "$.einsums")
       && build (&L, root, einsums);

  g_hash_table_unref (L.seen_tensors);
  g_ptr_array_unref (L.raw);
  g_hash_table_unref (L.tensor_decls);
  g_hash_table_unref (L.rank_decls);
  ffm_params_reader_free (L.params);
  g_ptr_array_unref (L.strings);
  g_free (L.last_unknown);
  g_free (L.owner);
  if (!ok)
    {
      ffm_workload_unref (L.w);
      return NULL;
    }
  return L.w;
}

FfmWorkload *
ffm_workload_load_from_data (const char *json_text, const char *display_name,
                             const FfmParamValues *params, GError **error)
{
  g_autoptr (FfmJsonDoc) doc = NULL;

  g_return_val_if_fail (json_text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  doc = ffm_json_doc_load_data (json_text, display_name, FFM_WORKLOAD_ERROR,
                                FFM_WORKLOAD_ERROR_PARSE, error);
  if (doc == NULL)
    return NULL;
  return load_doc (doc, params, error);
}

/* Finds NAME.json in the workload folders. */
static char *
find_by_name (const char *name, GError **error)
{
  g_auto (GStrv) dirs = ffm_workload_search_dirs ();
  g_auto (GStrv) available = NULL;
  g_autofree char *file = g_strdup_printf ("%s.json", name);
  g_autofree char *looked = NULL;
  g_autofree char *names = NULL;

  for (guint d = 0; dirs[d] != NULL; d++)
    {
      char *path = g_build_filename (dirs[d], file, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return path;
      g_free (path);
    }
  available = ffm_workload_list_available ();
  looked = g_strjoinv (", ", dirs);
  names = g_strjoinv (", ", available);
  g_set_error (error, FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_NOT_FOUND,
               "no workload named '%s' (looked for %s in: %s; available: %s)", name,
               file, looked[0] ? looked : "no folders",
               names[0] ? names : "none");
  return NULL;
}

FfmWorkload *
ffm_workload_load (const char *name_or_path, const FfmParamValues *params,
                   GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr (FfmJsonDoc) doc = NULL;

  g_return_val_if_fail (name_or_path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (strchr (name_or_path, '/') != NULL || g_str_has_suffix (name_or_path, ".json"))
    {
      if (!g_file_test (name_or_path, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_NOT_FOUND,
                       "%s: no such file", name_or_path);
          return NULL;
        }
      path = g_strdup (name_or_path);
    }
  else if ((path = find_by_name (name_or_path, error)) == NULL)
    return NULL;
  doc = ffm_json_doc_load_file (path, FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_PARSE, error);
  if (doc == NULL)
    return NULL;
  return load_doc (doc, params, error);
}
