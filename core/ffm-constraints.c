/* ffm-constraints.c: constraint sets as written, policies, and writing
 * them back (ffm-constraints.h). Loading from JSON is in
 * ffm-constraints-loader.c, binding to a problem and admitting pmappings
 * in ffm-constraints-bind.c. */
#include <ffm/ffm-constraints.h>
#include "ffm-constraints-private.h"
#include <ffm/ffm-paths.h>

#include <string.h>

#define INVALID FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_INVALID

/* Indexed by FfmConstraintKind; the members naming kinds in files. */
static const char *const kind_names[] = {
  [FFM_CONSTRAINT_FUSE] = "fuse",
  [FFM_CONSTRAINT_UNFUSE] = "unfuse",
  [FFM_CONSTRAINT_BACKING] = "backing",
  [FFM_CONSTRAINT_KEEP] = "keep",
  [FFM_CONSTRAINT_FORBID] = "forbid",
  [FFM_CONSTRAINT_STATIONARY] = "stationary",
  [FFM_CONSTRAINT_LOOP_ORDER] = "loop_order",
  [FFM_CONSTRAINT_SPATIAL] = "spatial",
  [FFM_CONSTRAINT_TILE] = "tile",
  [FFM_CONSTRAINT_MAX_FUSED_LOOPS] = "max_fused_loops",
};

const char *
ffm_constraint_kind_to_string (FfmConstraintKind kind)
{
  if ((guint) kind < G_N_ELEMENTS (kind_names) && kind_names[kind] != NULL)
    return kind_names[kind];
  return "unknown";
}

gboolean
ffm_constraint_kind_from_string (const char *text, FfmConstraintKind *out)
{
  for (guint k = 1; k < G_N_ELEMENTS (kind_names); k++)
    if (g_strcmp0 (text, kind_names[k]) == 0)
      {
        *out = (FfmConstraintKind) k;
        return TRUE;
      }
  return FALSE;
}

/* ---- Sets ---- */

struct _FfmConstraints {
  gatomicrefcount ref_count;  /* a set may be shared by the threads of a search */
  char *name;
  char *description;
  GPtrArray *entries;       /* of FfmConstraintEntry* */
};

static void
entry_free (FfmConstraintEntry *e)
{
  g_free (e->tensors);
  g_strfreev (e->levels);
  g_strfreev (e->einsums);
  g_strfreev (e->rank_vars);
  g_free (e->dimension);
  ffm_expr_free (e->tensors_expr);
  g_free (e->origin);
  g_free (e);
}

static FfmConstraintEntry *
entry_copy (const FfmConstraintEntry *from)
{
  FfmConstraintEntry *e = g_new0 (FfmConstraintEntry, 1);

  e->spec = from->spec;
  e->tensors = g_strdup (from->tensors);
  e->levels = g_strdupv (from->levels);
  e->einsums = g_strdupv (from->einsums);
  e->rank_vars = g_strdupv (from->rank_vars);
  e->dimension = g_strdup (from->dimension);
  e->origin = g_strdup (from->origin);
  if (e->tensors != NULL)
    e->tensors_expr = ffm_expr_parse (e->tensors, NULL);
  e->spec.tensors = e->tensors;
  e->spec.levels = (const char *const *) e->levels;
  e->spec.einsums = (const char *const *) e->einsums;
  e->spec.rank_vars = (const char *const *) e->rank_vars;
  e->spec.dimension = e->dimension;
  return e;
}

FfmConstraints *
ffm_constraints_new (const char *name)
{
  FfmConstraints *c = g_new0 (FfmConstraints, 1);

  g_atomic_ref_count_init (&c->ref_count);
  c->name = g_strdup (name != NULL ? name : "constraints");
  c->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  return c;
}

FfmConstraints *
ffm_constraints_ref (FfmConstraints *constraints)
{
  g_return_val_if_fail (constraints != NULL, NULL);
  g_atomic_ref_count_inc (&constraints->ref_count);
  return constraints;
}

void
ffm_constraints_unref (FfmConstraints *constraints)
{
  if (constraints == NULL || !g_atomic_ref_count_dec (&constraints->ref_count))
    return;
  g_free (constraints->name);
  g_free (constraints->description);
  g_ptr_array_unref (constraints->entries);
  g_free (constraints);
}

static guint
strv_length0 (const char *const *v)
{
  return v != NULL ? g_strv_length ((char **) v) : 0;
}

/* Which fields each kind takes: 'r' required, 'o' optional, '1' exactly
 * one (a list of one), '-' none. Order: tensors, levels, dimension,
 * einsums, rank_vars, tile, max_fused_loops. */
static const char *const kind_fields[] = {
  [FFM_CONSTRAINT_FUSE] = "ro----" "-",
  [FFM_CONSTRAINT_UNFUSE] = "r-----" "-",
  [FFM_CONSTRAINT_BACKING] = "rr----" "-",
  [FFM_CONSTRAINT_KEEP] = "rr----" "-",
  [FFM_CONSTRAINT_FORBID] = "rr----" "-",
  [FFM_CONSTRAINT_STATIONARY] = "r1-o--" "-",
  [FFM_CONSTRAINT_LOOP_ORDER] = "-1-or-" "-",
  [FFM_CONSTRAINT_SPATIAL] = "-1oor-" "-",
  [FFM_CONSTRAINT_TILE] = "-1-o1r" "-",
  [FFM_CONSTRAINT_MAX_FUSED_LOOPS] = "---o--" "r",
};

static const char *const field_names[] = {
  "tensors", "level", "dimension", "einsums", "rank variables", "tile",
  "max_fused_loops",
};

/* Checks the fields of @spec against its kind. */
static gboolean
check_spec (const FfmConstraintSpec *spec, const char *origin, GError **error)
{
  const char *kind = ffm_constraint_kind_to_string (spec->kind);
  const char *fields;
  guint counts[7];

  if ((guint) spec->kind >= G_N_ELEMENTS (kind_fields) || kind_fields[spec->kind] == NULL)
    {
      g_set_error (error, INVALID, "%s: unknown constraint kind %d", origin,
                   (int) spec->kind);
      return FALSE;
    }
  fields = kind_fields[spec->kind];
  counts[0] = spec->tensors != NULL;
  counts[1] = strv_length0 (spec->levels);
  counts[2] = spec->dimension != NULL;
  counts[3] = spec->einsums != NULL ? 1 : 0;
  counts[4] = strv_length0 (spec->rank_vars);
  counts[5] = spec->tile != 0;
  counts[6] = spec->kind == FFM_CONSTRAINT_MAX_FUSED_LOOPS;
  for (guint f = 0; f < 7; f++)
    {
      if (fields[f] == '-' && counts[f] > 0 && f != 6)
        {
          g_set_error (error, INVALID, "%s: a %s constraint takes no %s", origin,
                       kind, field_names[f]);
          return FALSE;
        }
      if ((fields[f] == 'r' || fields[f] == '1') && counts[f] == 0)
        {
          g_set_error (error, INVALID, "%s: a %s constraint needs %s", origin,
                       kind, f == 1 && spec->kind == FFM_CONSTRAINT_SPATIAL
                       ? "a fanout level" : field_names[f]);
          return FALSE;
        }
      if (fields[f] == '1' && counts[f] > 1)
        {
          g_set_error (error, INVALID, "%s: a %s constraint takes exactly one %s, "
                       "got %u", origin, kind, field_names[f], counts[f]);
          return FALSE;
        }
    }
  if (spec->einsums != NULL && spec->einsums[0] == NULL)
    {
      g_set_error (error, INVALID, "%s: the list of Einsums is empty (leave it "
                   "out for every Einsum)", origin);
      return FALSE;
    }
  if (spec->kind == FFM_CONSTRAINT_MAX_FUSED_LOOPS && spec->max_fused_loops < 0)
    {
      g_set_error (error, INVALID, "%s: max_fused_loops must be 0 or more, got %d",
                   origin, spec->max_fused_loops);
      return FALSE;
    }
  for (guint i = 0; spec->levels != NULL && spec->levels[i] != NULL; i++)
    if (spec->levels[i][0] == '\0')
      {
        g_set_error (error, INVALID, "%s: an empty level name", origin);
        return FALSE;
      }
  for (guint i = 0; spec->rank_vars != NULL && spec->rank_vars[i] != NULL; i++)
    {
      if (spec->rank_vars[i][0] == '\0')
        {
          g_set_error (error, INVALID, "%s: an empty rank variable name", origin);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (strcmp (spec->rank_vars[i], spec->rank_vars[j]) == 0)
          {
            g_set_error (error, INVALID, "%s: rank variable %s is listed twice",
                         origin, spec->rank_vars[i]);
            return FALSE;
          }
    }
  for (guint i = 0; spec->levels != NULL && spec->levels[i] != NULL; i++)
    for (guint j = 0; j < i; j++)
      if (strcmp (spec->levels[i], spec->levels[j]) == 0)
        {
          g_set_error (error, INVALID, "%s: level %s is listed twice", origin,
                       spec->levels[i]);
          return FALSE;
        }
  return TRUE;
}

gboolean
ffm_constraints_add (FfmConstraints *constraints, const FfmConstraintSpec *spec,
                     const char *origin, GError **error)
{
  FfmConstraintEntry *e;
  GError *local = NULL;

  g_return_val_if_fail (constraints != NULL && spec != NULL, FALSE);
  if (origin == NULL)
    origin = constraints->name;
  if (!check_spec (spec, origin, error))
    return FALSE;
  e = g_new0 (FfmConstraintEntry, 1);
  e->spec = *spec;
  e->tensors = g_strdup (spec->tensors);
  e->levels = g_strdupv ((char **) spec->levels);
  e->einsums = g_strdupv ((char **) spec->einsums);
  e->rank_vars = g_strdupv ((char **) spec->rank_vars);
  e->dimension = g_strdup (spec->dimension);
  e->origin = g_strdup (origin);
  e->spec.tensors = e->tensors;
  e->spec.levels = (const char *const *) e->levels;
  e->spec.einsums = (const char *const *) e->einsums;
  e->spec.rank_vars = (const char *const *) e->rank_vars;
  e->spec.dimension = e->dimension;
  if (e->tensors != NULL && (e->tensors_expr = ffm_expr_parse (e->tensors, &local)) == NULL)
    {
      g_set_error (error, INVALID, "%s: %s: %s", origin,
                   ffm_constraint_kind_to_string (spec->kind), local->message);
      g_error_free (local);
      entry_free (e);
      return FALSE;
    }
  g_ptr_array_add (constraints->entries, e);
  return TRUE;
}

void
ffm_constraints_append (FfmConstraints *constraints, const FfmConstraints *from)
{
  g_return_if_fail (constraints != NULL && from != NULL);
  for (guint i = 0; i < from->entries->len; i++)
    g_ptr_array_add (constraints->entries,
                     entry_copy (g_ptr_array_index (from->entries, i)));
}

const char *
ffm_constraints_get_name (const FfmConstraints *constraints)
{
  g_return_val_if_fail (constraints != NULL, NULL);
  return constraints->name;
}

const char *
ffm_constraints_get_description (const FfmConstraints *constraints)
{
  g_return_val_if_fail (constraints != NULL, NULL);
  return constraints->description;
}

void
ffm_constraints_set_description (FfmConstraints *constraints,
                                 const char *description)
{
  g_return_if_fail (constraints != NULL);
  g_free (constraints->description);
  constraints->description = g_strdup (description);
}

guint
ffm_constraints_get_n (const FfmConstraints *constraints)
{
  return constraints != NULL ? constraints->entries->len : 0;
}

const FfmConstraintEntry *
ffm_constraints_get_entry (const FfmConstraints *constraints, guint index)
{
  g_return_val_if_fail (constraints != NULL && index < constraints->entries->len, NULL);
  return g_ptr_array_index (constraints->entries, index);
}

const FfmConstraintSpec *
ffm_constraints_get (const FfmConstraints *constraints, guint index)
{
  return &ffm_constraints_get_entry (constraints, index)->spec;
}

const char *
ffm_constraints_get_origin (const FfmConstraints *constraints, guint index)
{
  return ffm_constraints_get_entry (constraints, index)->origin;
}

static void
append_list (GString *s, const char *const *v, const char *sep)
{
  for (guint i = 0; v != NULL && v[i] != NULL; i++)
    g_string_append_printf (s, "%s%s", i > 0 ? sep : "", v[i]);
}

char *
ffm_constraints_describe (const FfmConstraints *constraints, guint index)
{
  const FfmConstraintSpec *spec = ffm_constraints_get (constraints, index);
  GString *s = g_string_new (ffm_constraint_kind_to_string (spec->kind));

  if (spec->tensors != NULL)
    g_string_append_printf (s, " %s", spec->tensors);
  switch (spec->kind)
    {
    case FFM_CONSTRAINT_LOOP_ORDER:
      g_string_append (s, " ");
      append_list (s, spec->rank_vars, ", ");
      break;
    case FFM_CONSTRAINT_SPATIAL:
      g_string_append (s, " ");
      append_list (s, spec->rank_vars, " | ");
      g_string_append_printf (s, " on %s%s%s", spec->levels[0],
                              spec->dimension != NULL ? "." : "",
                              spec->dimension != NULL ? spec->dimension : "");
      break;
    case FFM_CONSTRAINT_TILE:
      g_string_append_printf (s, " %s=%" G_GUINT64_FORMAT, spec->rank_vars[0], spec->tile);
      break;
    case FFM_CONSTRAINT_MAX_FUSED_LOOPS:
      g_string_append_printf (s, " %d", spec->max_fused_loops);
      break;
    default:
      break;
    }
  if (spec->levels != NULL && spec->kind != FFM_CONSTRAINT_SPATIAL)
    {
      g_string_append (s, " at ");
      append_list (s, spec->levels, " or ");
    }
  if (spec->einsums != NULL)
    {
      g_string_append (s, " in ");
      append_list (s, spec->einsums, ", ");
    }
  g_string_append_printf (s, " (%s)", ffm_constraints_get_origin (constraints, index));
  return g_string_free (s, FALSE);
}

/* ---- Writing ---- */

static void
write_strv (FfmJsonWriter *w, const char *key, const char *const *v)
{
  ffm_json_writer_key (w, key);
  ffm_json_writer_begin_array_inline (w);
  for (guint i = 0; v[i] != NULL; i++)
    ffm_json_writer_string (w, v[i]);
  ffm_json_writer_end_array (w);
}

/* One level as a string, several as a list (both read back). */
static void
write_levels (FfmJsonWriter *w, const char *key, const char *const *v)
{
  if (v[1] == NULL)
    ffm_json_writer_member_string (w, key, v[0]);
  else
    write_strv (w, key, v);
}

void
ffm_constraints_write_json (const FfmConstraints *constraints, FfmJsonWriter *w)
{
  g_return_if_fail (constraints != NULL && w != NULL);
  ffm_json_writer_begin_object (w);
  ffm_json_writer_member_int (w, "ffm_constraints", 1);
  ffm_json_writer_member_string (w, "name", constraints->name);
  if (constraints->description != NULL)
    ffm_json_writer_member_string (w, "description", constraints->description);
  ffm_json_writer_key (w, "constraints");
  ffm_json_writer_begin_array (w);
  for (guint i = 0; i < constraints->entries->len; i++)
    {
      const FfmConstraintSpec *spec = ffm_constraints_get (constraints, i);
      const char *kind = ffm_constraint_kind_to_string (spec->kind);

      ffm_json_writer_begin_object_inline (w);
      switch (spec->kind)
        {
        case FFM_CONSTRAINT_LOOP_ORDER:
          write_strv (w, kind, spec->rank_vars);
          break;
        case FFM_CONSTRAINT_SPATIAL:
          write_strv (w, kind, spec->rank_vars);
          break;
        case FFM_CONSTRAINT_TILE:
          ffm_json_writer_key (w, kind);
          ffm_json_writer_begin_object_inline (w);
          ffm_json_writer_member_uint (w, spec->rank_vars[0], spec->tile);
          ffm_json_writer_end_object (w);
          break;
        case FFM_CONSTRAINT_MAX_FUSED_LOOPS:
          ffm_json_writer_member_int (w, kind, spec->max_fused_loops);
          break;
        default:
          ffm_json_writer_member_string (w, kind, spec->tensors);
          break;
        }
      if (spec->levels != NULL)
        write_levels (w, spec->kind == FFM_CONSTRAINT_SPATIAL ? "fanout" : "level",
                      spec->levels);
      if (spec->dimension != NULL)
        ffm_json_writer_member_string (w, "dimension", spec->dimension);
      if (spec->einsums != NULL)
        write_strv (w, "einsums", spec->einsums);
      ffm_json_writer_end_object (w);
    }
  ffm_json_writer_end_array (w);
  ffm_json_writer_end_object (w);
}

/* ---- Policies ---- */

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GStrv
ffm_constraints_list_policies (void)
{
  g_auto (GStrv) dirs = ffm_paths_data_dirs ("policies");
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
          if (!g_hash_table_add (seen, name))
            {
              g_free (name);
              continue;
            }
          g_ptr_array_add (names, name);
        }
    }
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (GStrv) g_ptr_array_steal (names, NULL);
}

FfmConstraints *
ffm_constraints_load_policy (const char *name_or_path, GError **error)
{
  g_auto (GStrv) dirs = NULL;
  g_auto (GStrv) available = NULL;
  g_autofree char *file = NULL;
  g_autofree char *looked = NULL;
  g_autofree char *names = NULL;

  g_return_val_if_fail (name_or_path != NULL, NULL);
  if (strchr (name_or_path, '/') != NULL || g_str_has_suffix (name_or_path, ".json"))
    {
      if (!g_file_test (name_or_path, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_NOT_FOUND,
                       "%s: no such file", name_or_path);
          return NULL;
        }
      return ffm_constraints_load_file (name_or_path, error);
    }
  dirs = ffm_paths_data_dirs ("policies");
  file = g_strdup_printf ("%s.json", name_or_path);
  for (guint d = 0; dirs[d] != NULL; d++)
    {
      g_autofree char *path = g_build_filename (dirs[d], file, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return ffm_constraints_load_file (path, error);
    }
  available = ffm_constraints_list_policies ();
  looked = g_strjoinv (", ", dirs);
  names = g_strjoinv (", ", available);
  g_set_error (error, FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_NOT_FOUND,
               "no policy named '%s' (looked for %s in: %s; available: %s)",
               name_or_path, file, looked[0] ? looked : "no folders",
               names[0] ? names : "none");
  return NULL;
}
