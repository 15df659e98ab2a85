/* ffm-timeloop-arch.c: a Timeloop v0.4 architecture with its energy
 * reference table as an ffm architecture.
 *
 * The tree of `subtree`s and their `local` components is one chain of
 * levels (Timeloop's storage hierarchy), outermost first, ending in the
 * compute unit. A component's instance count is the product of the ranges
 * in its and its subtrees' names (`PE[0..15]`: 16), or its `instances`
 * attribute; attributes of a subtree apply to the components below it.
 * Between two levels whose instance counts grow, ffm has a fanout level:
 * dimension X grows by the ratio of their meshX, Y by that of meshY.
 *
 * A memory charges what Timeloop charges (docs/timeloop.md): an action
 * moves one block (block-size words of datawidth bits), costs the ERT's
 * read, fill or update energy (Timeloop's action names, first match:
 * random_read, read; random_fill, random_write, fill, write; random_update,
 * random_write, update, write), and a drain reads nothing. Capacity is
 * depth x block-size words (or entries, or sizeKB); bandwidths are words
 * per cycle, and one cycle is the global-cycle-seconds attribute (1 ns if
 * none). The compute unit does one operation per cycle per instance at the
 * ERT's energy (mac_random, mult_random, mac, mult, compute). Leak in the
 * ERT is energy per cycle per instance. */
#include "ffm-timeloop-private.h"

#include <math.h>
#include <string.h>

#define PJ 1e-12
#define UM2 1e-12
#define DEFAULT_CYCLE_SECONDS 1e-9
#define DEFAULT_WORD_BITS 16            /* Timeloop's */

static const char *const arch_keys[] = {
  "version", "subtree", "local", "attributes", "name", "nodes", "storage",
  "arithmetic", "constraints", NULL
};
static const char *const subtree_keys[] = {
  "name", "attributes", "local", "subtree", "description", NULL
};
static const char *const component_keys[] = {
  "name", "class", "subclass", "attributes", "required_actions", "actions",
  "description", NULL
};
static const char *const ert_keys[] = { "version", "tables", NULL };
/* Top-level keys of Timeloop's mapper that ffm's search does not follow. */
static const char *const search_keys[] = {
  "mapper", "mapspace", "mapspace_constraints", "architecture_constraints",
  "arch_constraints", "constraints", NULL
};
static const char *const table_keys[] = { "name", "actions", NULL };
static const char *const action_keys[] = { "name", "arguments", "energy", NULL };
static const char *const art_table_keys[] = { "name", "area", NULL };

/* Attributes ffm reads (memories and compute units), ... */
static const char *const used_attributes[] = {
  "depth", "memory_depth", "entries", "sizeKB", "width", "memory_width",
  "datawidth", "word-bits", "word_width", "block-size", "n_words",
  "cluster-size", "read_bandwidth", "write_bandwidth", "bandwidth",
  "multiple-buffering", "instances", "meshX", "meshY",
  "global-cycle-seconds", "vector-access-energy", "energy-per-hop", NULL
};
/* ... those that only feed Accelergy's or Timeloop's own energy and area
 * models (ffm takes energies from the ERT) ... */
static const char *const estimator_attributes[] = {
  "technology", "num-ports", "num-banks", "n_banks", "n_rdwr_ports",
  "n_rd_ports", "n_wr_ports", "latency", "addr-gen-energy", "cluster-area",
  "type", "area", "voltage", "ports", "banks", NULL
};
/* ... and those that change Timeloop's model in ways ffm does not follow. */
static const char *const ignored_attributes[] = {
  "min-utilization", "allow_overbooking", "network_read", "network_fill",
  "network_drain", "network_update", "metadata_datawidth",
  "metadata-block-size", "metadata_storage_width", "metadata_storage_depth",
  "read-write", NULL
};

static const char *const storage_classes[] = {
  "DRAM", "SRAM", "regfile", "smartbuffer", "storage", NULL
};
static const char *const compute_classes[] = {
  "mac", "intmac", "fpmac", "compute", NULL
};
static const char *const network_classes[] = {
  "XY_NoC", "Legacy", "ReductionTree", "SimpleMulticast", "wire", NULL
};

static const char *const read_actions[] = { "random_read", "read", NULL };
static const char *const fill_actions[] = {
  "random_fill", "random_write", "fill", "write", NULL
};
static const char *const update_actions[] = {
  "random_update", "random_write", "update", "write", NULL
};
static const char *const compute_actions[] = {
  "mac_random", "mult_random", "mac", "mult", "compute", NULL
};
static const char *const leak_actions[] = { "leak", NULL };

typedef enum {
  COMP_STORAGE = 1,
  COMP_COMPUTE,
} CompKind;

/* One component of the chain. */
typedef struct {
  CompKind kind;
  char *name;               /* ffm level name */
  char *base;               /* Timeloop name without the range */
  char *hier;               /* dotted path of subtree base names and base */
  const FfmTlNode *node;
  char *path;               /* key path in the YAML */
  GPtrArray *attr_keys;     /* FfmTlNode * keys, inherited first (not owned) */
  GPtrArray *attr_values;
  guint64 instances;
  char *fanout_name;        /* the ranged names since the level above */
} Comp;

typedef struct {
  FfmTimeloopSpec *spec;
  GPtrArray *comps;         /* of Comp * */
  const FfmTlNode *ert;
  const FfmTlNode *art;
} Arch;

static void
comp_free (gpointer data)
{
  Comp *c = data;

  g_free (c->name);
  g_free (c->base);
  g_free (c->hier);
  g_free (c->path);
  g_free (c->fanout_name);
  g_ptr_array_unref (c->attr_keys);
  g_ptr_array_unref (c->attr_values);
  g_free (c);
}

/* ---- Names and ranges ---- */

/* "PE[0..15]" -> base "PE", count 16; "PE" -> "PE", 1. */
static gboolean
parse_name (const FfmTlNode *node, const char *path, char **base,
            guint64 *count, GError **error)
{
  const char *text = ffm_tl_string (node, path, error);
  const char *open, *dots;
  char *end = NULL;
  guint64 lo, hi;

  if (text == NULL)
    return FALSE;
  open = strchr (text, '[');
  if (open == NULL)
    {
      *base = g_strdup (text);
      *count = 1;
      return TRUE;
    }
  dots = strstr (open, "..");
  if (dots == NULL || open == text)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "'%s': a range is written NAME[FIRST..LAST]", text);
  lo = g_ascii_strtoull (open + 1, &end, 10);
  if (end != dots)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "'%s': a range is written NAME[FIRST..LAST] with "
                        "whole numbers", text);
  hi = g_ascii_strtoull (dots + 2, &end, 10);
  if (end == dots + 2 || strcmp (end, "]") != 0 || hi < lo || hi - lo >= G_MAXUINT32)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "'%s': a range is written NAME[FIRST..LAST] with "
                        "whole numbers, FIRST <= LAST", text);
  *base = g_strndup (text, open - text);
  *count = hi - lo + 1;
  return TRUE;
}

/* An ffm level name for Timeloop name @base: an identifier, not a word
 * of the set expressions. */
static char *
level_name (const char *base)
{
  g_autofree char *id = ffm_tl_identifier (base);

  if (g_ascii_strcasecmp (id, "above") == 0)
    return g_strconcat (id, "_", NULL);
  return ffm_tl_tensor_name (id);
}

static gboolean
class_is (const char *cls, const char *const *classes)
{
  for (guint i = 0; classes[i] != NULL; i++)
    if (strstr (cls, classes[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* ---- Walking the tree ---- */

typedef struct {
  GPtrArray *attr_keys;     /* inherited attributes (not owned) */
  GPtrArray *attr_values;
  guint64 instances;
  char *hier;               /* dotted base names */
  GPtrArray *ranged;        /* ranged subtree base names, outermost first */
} Scope;

/* Adds @attrs (a mapping) to @keys/@values, later ones replacing earlier
 * ones of the same name. */
static gboolean
add_attributes (const FfmTlNode *attrs, const char *path, GPtrArray *keys,
                GPtrArray *values, GError **error)
{
  if (attrs == NULL)
    return TRUE;
  if (!ffm_tl_require (attrs, FFM_TL_MAPPING, path, error))
    return FALSE;
  for (guint i = 0; i < attrs->n_items; i++)
    {
      FfmTlNode *key = attrs->items[2 * i], *value = attrs->items[2 * i + 1];
      guint j;
      for (j = 0; j < keys->len; j++)
        if (strcmp (((FfmTlNode *) keys->pdata[j])->text, key->text) == 0)
          break;
      if (j < keys->len)
        {
          keys->pdata[j] = key;
          values->pdata[j] = value;
        }
      else
        {
          g_ptr_array_add (keys, key);
          g_ptr_array_add (values, value);
        }
    }
  return TRUE;
}

static gboolean walk_subtree (Arch *a, const FfmTlNode *node, const char *path,
                              const Scope *outer, guint depth, GError **error);

static gboolean
add_component (Arch *a, const FfmTlNode *node, const char *path,
               const Scope *scope, GPtrArray *ranged_since, GError **error)
{
  g_autofree char *name_path = ffm_tl_path_key (path, "name");
  g_autofree char *class_path = ffm_tl_path_key (path, "class");
  g_autofree char *attr_path = ffm_tl_path_key (path, "attributes");
  const FfmTlNode *cls_node;
  const char *cls;
  Comp *c;
  guint64 count;
  char *base;

  if (!ffm_tl_check_keys (node, path, component_keys, error))
    return FALSE;
  if (ffm_tl_get (node, "name") == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "missing key 'name'");
  if ((cls_node = ffm_tl_get (node, "class")) == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "missing key 'class'");
  if ((cls = ffm_tl_string (cls_node, class_path, error)) == NULL
      || !parse_name (ffm_tl_get (node, "name"), name_path, &base, &count, error))
    return FALSE;
  if (!class_is (cls, storage_classes) && !class_is (cls, compute_classes))
    {
      if (class_is (cls, network_classes))
        {
          ffm_tl_warn (a->spec, cls_node, class_path, "network %s (class %s) "
                       "is not modelled: ffm charges nothing for moving data "
                       "between levels", base, cls);
          g_free (base);
          return TRUE;
        }
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, cls_node, class_path,
                   "component %s: class %s is neither a memory (a class "
                   "containing DRAM, SRAM, regfile, smartbuffer or storage, as "
                   "Timeloop reads them) nor a compute unit (mac, intmac, "
                   "fpmac, compute)", base, cls);
      g_free (base);
      return FALSE;
    }
  c = g_new0 (Comp, 1);
  c->kind = class_is (cls, storage_classes) ? COMP_STORAGE : COMP_COMPUTE;
  c->base = base;
  c->name = level_name (base);
  c->hier = scope->hier[0] != '\0' ? g_strdup_printf ("%s.%s", scope->hier, base)
                                   : g_strdup (base);
  c->node = node;
  c->path = g_strdup (path);
  c->attr_keys = g_ptr_array_copy (scope->attr_keys, NULL, NULL);
  c->attr_values = g_ptr_array_copy (scope->attr_values, NULL, NULL);
  c->instances = scope->instances * count;
  if (count > 1)
    g_ptr_array_add (ranged_since, g_strdup_printf ("%s_array", c->name));
  if (ranged_since->len > 0)
    {
      g_ptr_array_add (ranged_since, NULL);
      c->fanout_name = g_strjoinv ("_", (char **) ranged_since->pdata);
      g_ptr_array_set_size (ranged_since, 0);
    }
  g_ptr_array_add (a->comps, c);
  return add_attributes (ffm_tl_get (node, "attributes"), attr_path,
                         c->attr_keys, c->attr_values, error);
}

static gboolean
walk_body (Arch *a, const FfmTlNode *node, const char *path, Scope *scope,
           guint depth, GError **error)
{
  const FfmTlNode *local = ffm_tl_get (node, "local");
  const FfmTlNode *sub = ffm_tl_get (node, "subtree");
  g_autofree char *local_path = ffm_tl_path_key (path, "local");
  g_autofree char *sub_path = ffm_tl_path_key (path, "subtree");

  if (local != NULL)
    {
      if (!ffm_tl_require (local, FFM_TL_SEQUENCE, local_path, error))
        return FALSE;
      for (guint i = 0; i < local->n_items; i++)
        {
          g_autofree char *item_path = ffm_tl_path_index (local_path, i);
          if (!add_component (a, local->items[i], item_path, scope,
                              scope->ranged, error))
            return FALSE;
        }
    }
  if (sub == NULL)
    return TRUE;
  if (!ffm_tl_require (sub, FFM_TL_SEQUENCE, sub_path, error))
    return FALSE;
  if (sub->n_items > 1)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, sub->items[1],
                        sub_path, "a second subtree at one level: ffm and "
                        "Timeloop take one chain of levels");
  if (sub->n_items == 1)
    {
      g_autofree char *item_path = ffm_tl_path_index (sub_path, 0);
      return walk_subtree (a, sub->items[0], item_path, scope, depth + 1, error);
    }
  return TRUE;
}

static gboolean
walk_subtree (Arch *a, const FfmTlNode *node, const char *path,
              const Scope *outer, guint depth, GError **error)
{
  g_autofree char *name_path = ffm_tl_path_key (path, "name");
  g_autofree char *attr_path = ffm_tl_path_key (path, "attributes");
  g_autofree char *base = NULL;
  Scope scope;
  guint64 count = 1;
  gboolean ok;

  if (!ffm_tl_check_keys (node, path, subtree_keys, error))
    return FALSE;
  if (ffm_tl_get (node, "name") == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "missing key 'name'");
  if (!parse_name (ffm_tl_get (node, "name"), name_path, &base, &count, error))
    return FALSE;
  scope.attr_keys = g_ptr_array_copy (outer->attr_keys, NULL, NULL);
  scope.attr_values = g_ptr_array_copy (outer->attr_values, NULL, NULL);
  scope.instances = outer->instances * count;
  scope.hier = outer->hier[0] != '\0' ? g_strdup_printf ("%s.%s", outer->hier, base)
                                      : g_strdup (base);
  scope.ranged = outer->ranged;
  if (count > 1)
    g_ptr_array_add (scope.ranged, level_name (base));
  ok = add_attributes (ffm_tl_get (node, "attributes"), attr_path,
                       scope.attr_keys, scope.attr_values, error)
       && walk_body (a, node, path, &scope, depth, error);
  g_ptr_array_unref (scope.attr_keys);
  g_ptr_array_unref (scope.attr_values);
  g_free (scope.hier);
  return ok;
}

/* ---- Attributes ---- */

static const FfmTlNode *
attribute (const Comp *c, const char *name, const FfmTlNode **key)
{
  for (guint i = c->attr_keys->len; i-- > 0;)
    if (strcmp (((FfmTlNode *) c->attr_keys->pdata[i])->text, name) == 0)
      {
        if (key != NULL)
          *key = c->attr_keys->pdata[i];
        return c->attr_values->pdata[i];
      }
  return NULL;
}

/* The first of @names the component has, as a number; FALSE on a value
 * that is not one. *@found says whether one was there. */
static gboolean
attribute_number (const Comp *c, const char *const *names, double *out,
                  gboolean *found, GError **error)
{
  *found = FALSE;
  for (guint i = 0; names[i] != NULL; i++)
    {
      const FfmTlNode *v = attribute (c, names[i], NULL);
      g_autofree char *path = NULL;
      if (v == NULL)
        continue;
      path = g_strdup_printf ("%s (%s).attributes.%s", c->path, c->base, names[i]);
      *found = TRUE;
      return ffm_tl_number (v, path, out, error);
    }
  return TRUE;
}

static gboolean
attribute_whole (const Comp *c, const char *const *names, double *out,
                 gboolean *found, GError **error)
{
  const FfmTlNode *v = NULL;

  if (!attribute_number (c, names, out, found, error))
    return FALSE;
  if (!*found || (*out >= 1 && *out == floor (*out) && *out <= 9007199254740992.0))
    return TRUE;
  for (guint i = 0; names[i] != NULL && v == NULL; i++)
    v = attribute (c, names[i], NULL);
  return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, v, c->path,
                      "%s: %s must be a whole number >= 1, got %s", c->base,
                      names[0], v->text);
}

/* Warns about attributes ffm does not follow, once per component. */
static void
check_attributes (Arch *a, const Comp *c)
{
  for (guint i = 0; i < c->attr_keys->len; i++)
    {
      const FfmTlNode *key = c->attr_keys->pdata[i];
      const FfmTlNode *value = c->attr_values->pdata[i];
      g_autofree char *path = g_strdup_printf ("%s (%s).attributes.%s",
                                               c->path, c->base, key->text);
      if (g_strv_contains (used_attributes, key->text)
          || g_strv_contains (estimator_attributes, key->text))
        {
          double hop;
          if (strcmp (key->text, "energy-per-hop") == 0
              && (value->kind != FFM_TL_SCALAR
                  || !ffm_tl_number (value, path, &hop, NULL) || hop != 0))
            ffm_tl_warn (a->spec, key, path, "network energy is not modelled: "
                         "ffm charges nothing per hop");
          continue;
        }
      if (g_strv_contains (ignored_attributes, key->text))
        ffm_tl_warn (a->spec, key, path, "ignored: ffm does not model %s",
                     key->text);
      else
        ffm_tl_warn (a->spec, key, path, "unknown attribute, ignored");
    }
}

/* ---- Tables ---- */

/* The ERT or ART table of component @c: the one named like its dotted
 * path, else the one whose last name is its name (Timeloop's rule), ranges
 * left out. */
static gboolean
find_table (const FfmTlNode *table_root, const char *kind, const Comp *c,
            const FfmTlNode **out, GError **error)
{
  const FfmTlNode *tables = ffm_tl_get (table_root, "tables");
  g_autofree char *tables_path = g_strdup_printf ("%s.tables", kind);

  *out = NULL;
  if (table_root == NULL)
    return TRUE;
  if (tables == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, table_root, kind,
                        "missing key 'tables'");
  if (tables->kind == FFM_TL_MAPPING)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, tables, tables_path,
                        "tables keyed by component (an %s of version 0.2) are "
                        "not read: give the list of {name, actions} of "
                        "version 0.3 or 0.4", kind);
  if (!ffm_tl_require (tables, FFM_TL_SEQUENCE, tables_path, error))
    return FALSE;
  for (guint i = 0; i < tables->n_items; i++)
    {
      const FfmTlNode *t = tables->items[i], *name = ffm_tl_get (t, "name");
      g_autofree char *path = ffm_tl_path_index (tables_path, i);
      g_autoptr (GString) plain = g_string_new (NULL);
      const char *last;

      if (t->kind != FFM_TL_MAPPING || name == NULL || name->kind != FFM_TL_SCALAR)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, t, path,
                            "a table is a mapping with a 'name'");
      /* "System.PE[0..15].RegisterFile" -> "System.PE.RegisterFile" */
      for (const char *p = name->text; *p != '\0'; p++)
        {
          if (*p == '[')
            {
              const char *close = strchr (p, ']');
              if (close != NULL)
                {
                  p = close;
                  continue;
                }
            }
          g_string_append_c (plain, *p);
        }
      if (strcmp (plain->str, c->hier) == 0)
        {
          *out = t;
          return TRUE;
        }
      last = strrchr (plain->str, '.');
      last = last != NULL ? last + 1 : plain->str;
      if (*out == NULL && strcmp (last, c->base) == 0)
        *out = t;
    }
  return TRUE;
}

/* The energy of the first of @names in ERT table @table, pJ; several
 * entries of one action (arguments) give the largest, as Timeloop does. */
static gboolean
table_energy (Arch *a, const FfmTlNode *table, const char *const *names,
              double *pj, gboolean *found, GError **error)
{
  const FfmTlNode *actions = ffm_tl_get (table, "actions");
  const char *tname = ffm_tl_get (table, "name")->text;
  g_autofree char *path = g_strdup_printf ("ERT.tables (%s).actions", tname);

  *found = FALSE;
  if (!ffm_tl_check_keys (table, "ERT.tables", table_keys, error))
    return FALSE;
  if (actions == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, table,
                        "ERT.tables", "table %s: missing key 'actions'", tname);
  if (!ffm_tl_require (actions, FFM_TL_SEQUENCE, path, error))
    return FALSE;
  for (guint n = 0; names[n] != NULL && !*found; n++)
    {
      guint entries = 0;
      for (guint i = 0; i < actions->n_items; i++)
        {
          const FfmTlNode *act = actions->items[i], *name, *energy;
          g_autofree char *sub = ffm_tl_path_index (path, i);
          g_autofree char *energy_path = ffm_tl_path_key (sub, "energy");
          double value;

          if (!ffm_tl_check_keys (act, sub, action_keys, error))
            return FALSE;
          name = ffm_tl_get (act, "name");
          if (name == NULL || name->kind != FFM_TL_SCALAR)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, act, sub,
                                "missing key 'name'");
          if (strcmp (name->text, names[n]) != 0)
            continue;
          if ((energy = ffm_tl_get (act, "energy")) == NULL)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, act, sub,
                                "missing key 'energy'");
          if (!ffm_tl_number (energy, energy_path, &value, error))
            return FALSE;
          if (value < 0)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, energy,
                                energy_path, "an energy must be >= 0, got %s",
                                energy->text);
          *pj = entries == 0 ? value : MAX (*pj, value);
          entries++;
          *found = TRUE;
          if (entries == 2)
            ffm_tl_warn (a->spec, act, sub, "%s has several energies for "
                         "action %s (arguments): the largest is used, as "
                         "Timeloop does", tname, names[n]);
        }
    }
  return TRUE;
}

static gboolean
required_energy (Arch *a, const Comp *c, const FfmTlNode *table,
                 const char *const *names, double *joules, GError **error)
{
  gboolean found;
  double pj = 0;

  if (!table_energy (a, table, names, &pj, &found, error))
    return FALSE;
  if (!found)
    {
      g_autofree char *list = g_strjoinv (", ", (char **) names);
      return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, table,
                          "ERT.tables", "table %s (for %s) has no energy for "
                          "any of the actions %s", ffm_tl_get (table, "name")->text,
                          c->base, list);
    }
  *joules = pj * PJ;
  return TRUE;
}

/* ---- Levels ---- */

static gboolean
no_table (const Arch *a, const Comp *c, const char *kind, GError **error)
{
  return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, c->node, c->path,
                      "%s %s (class %s) has no entry in the energy reference "
                      "table%s: ffm does not run Accelergy, give its ERT (e.g. "
                      "timeloop:arch.yaml,ERT.yaml)", kind, c->base,
                      ffm_tl_get (c->node, "class")->text,
                      a->ert == NULL ? " (the files have no ERT)" : "");
}

typedef struct {
  double cycle_seconds;
  double mesh_x;            /* per component */
  double mesh_y;
} Geometry;

static gboolean
component_geometry (const Comp *c, Geometry *g, GError **error)
{
  static const char *const instances_names[] = { "instances", NULL };
  static const char *const mesh_x_names[] = { "meshX", NULL };
  static const char *const mesh_y_names[] = { "meshY", NULL };
  static const char *const cycle_names[] = { "global-cycle-seconds", NULL };
  double instances = (double) c->instances, mx = 0, my = 0, cycle = 0;
  gboolean has_i, has_x, has_y, has_cycle;

  if (!attribute_whole (c, instances_names, &instances, &has_i, error)
      || !attribute_whole (c, mesh_x_names, &mx, &has_x, error)
      || !attribute_whole (c, mesh_y_names, &my, &has_y, error)
      || !attribute_number (c, cycle_names, &cycle, &has_cycle, error))
    return FALSE;
  if (has_i)
    ((Comp *) c)->instances = (guint64) instances;
  if (!has_x && !has_y)
    {
      mx = (double) c->instances;
      my = 1;
    }
  else if (!has_y)
    my = (double) c->instances / mx;
  else if (!has_x)
    mx = (double) c->instances / my;
  if (mx * my != (double) c->instances || mx != floor (mx) || my != floor (my))
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node, c->path,
                        "%s: %" G_GUINT64_FORMAT " instances do not make a "
                        "meshX x meshY grid of %g x %g", c->base, c->instances,
                        mx, my);
  if (has_cycle && !(cycle > 0))
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node, c->path,
                        "%s: global-cycle-seconds must be > 0", c->base);
  g->cycle_seconds = has_cycle ? cycle : DEFAULT_CYCLE_SECONDS;
  g->mesh_x = mx;
  g->mesh_y = my;
  return TRUE;
}

static gboolean
memory_level (Arch *a, const Comp *c, gboolean outermost, const Geometry *g,
              FfmArch *arch, GError **error)
{
  static const char *const word_names[] = { "datawidth", "word-bits", "word_width", NULL };
  static const char *const block_names[] = { "block-size", "n_words", NULL };
  static const char *const width_names[] = { "width", "memory_width", NULL };
  static const char *const cluster_names[] = { "cluster-size", NULL };
  static const char *const entries_names[] = { "entries", NULL };
  static const char *const depth_names[] = { "depth", "memory_depth", NULL };
  static const char *const kb_names[] = { "sizeKB", NULL };
  static const char *const mb_names[] = { "multiple-buffering", NULL };
  static const char *const rbw_names[] = { "read_bandwidth", NULL };
  static const char *const wbw_names[] = { "write_bandwidth", NULL };
  static const char *const bw_names[] = { "bandwidth", NULL };
  static const char *const vae_names[] = { "vector-access-energy", NULL };
  double word = DEFAULT_WORD_BITS, block = 1, width = 0, cluster = 1, entries = 0,
    depth = 0, kb = 0, mb = 1, rbw = INFINITY, wbw = INFINITY, bw = 0, vae = NAN;
  gboolean has_word, has_block, has_width, has_cluster, has_entries, has_depth,
    has_kb, has_mb, has_rbw, has_wbw, has_bw, has_vae, found;
  const FfmTlNode *table = NULL;
  FfmLevel *level;
  FfmMemorySpec *m;
  double words = INFINITY, leak = 0;

  if (!attribute_whole (c, word_names, &word, &has_word, error)
      || !attribute_whole (c, block_names, &block, &has_block, error)
      || !attribute_whole (c, width_names, &width, &has_width, error)
      || !attribute_whole (c, cluster_names, &cluster, &has_cluster, error)
      || !attribute_whole (c, entries_names, &entries, &has_entries, error)
      || !attribute_whole (c, depth_names, &depth, &has_depth, error)
      || !attribute_number (c, kb_names, &kb, &has_kb, error)
      || !attribute_number (c, mb_names, &mb, &has_mb, error)
      || !attribute_number (c, rbw_names, &rbw, &has_rbw, error)
      || !attribute_number (c, wbw_names, &wbw, &has_wbw, error)
      || !attribute_number (c, bw_names, &bw, &has_bw, error)
      || !attribute_number (c, vae_names, &vae, &has_vae, error))
    return FALSE;
  if (!has_word)
    ffm_tl_warn (a->spec, c->node, c->path, "%s has no datawidth: Timeloop's "
                 "default of %d bits per word is used", c->base,
                 DEFAULT_WORD_BITS);
  if (has_width && !has_cluster)
    {
      if (fmod (width, word * block) != 0)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node, c->path,
                            "%s: width %g is not a multiple of datawidth x "
                            "block-size = %g", c->base, width, word * block);
      cluster = width / (word * block);
    }
  if (cluster != 1)
    ffm_tl_warn (a->spec, c->node, c->path, "%s: %g blocks per row "
                 "(cluster-size, or width / (datawidth x block-size)): ffm "
                 "charges one action per block of block-size words and does "
                 "not model clusters", c->base, cluster);
  if (has_entries)
    words = entries;
  else if (has_depth)
    words = depth * block;
  else if (has_kb)
    words = floor (kb * 1024 * 8 / word);
  if (has_mb)
    {
      if (!(mb >= 1))
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node, c->path,
                            "%s: multiple-buffering must be >= 1, got %g",
                            c->base, mb);
      words = floor (words / mb);
    }
  if (has_bw && !has_rbw && !has_wbw)
    {
      /* Timeloop: the deprecated bandwidth is split between the two. */
      rbw = wbw = bw / 2;
      ffm_tl_warn (a->spec, c->node, c->path, "%s: bandwidth is deprecated in "
                   "Timeloop; read_bandwidth = write_bandwidth = bandwidth / 2",
                   c->base);
    }
  if (!(rbw > 0) || !(wbw > 0))
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node, c->path,
                        "%s: bandwidths must be > 0 words per cycle", c->base);

  if (!find_table (a->ert, "ERT", c, &table, error))
    return FALSE;
  if (table == NULL && !has_vae)
    return no_table (a, c, "memory", error);

  level = ffm_arch_add_memory (arch, c->name);
  m = &level->u.memory;
  level->description = g_strdup_printf ("Timeloop %s (class %s), %s:%u",
                                        c->hier, ffm_tl_get (c->node, "class")->text,
                                        c->node->file, c->node->line);
  m->bits_per_action = word * block;
  ffm_level_add_bits_override (level, "all", word);
  m->size = words * word;
  m->drains_read = FALSE;
  m->ports = FFM_PORTS_SEPARATE;
  m->read_bandwidth = rbw / block / g->cycle_seconds;
  m->write_bandwidth = wbw / block / g->cycle_seconds;
  if (outermost)
    m->keep = g_strdup ("all");
  if (table == NULL)
    {
      /* Timeloop's fallback without an ERT entry */
      m->read_energy = m->write_energy = vae * PJ;
      return TRUE;
    }
  if (!required_energy (a, c, table, read_actions, &m->read_energy, error)
      || !required_energy (a, c, table, fill_actions, &m->fill_energy, error)
      || !required_energy (a, c, table, update_actions, &m->update_energy, error)
      || !table_energy (a, table, leak_actions, &leak, &found, error))
    return FALSE;
  m->write_energy = m->fill_energy;
  level->leak_power = found ? leak * PJ / g->cycle_seconds : 0;
  return TRUE;
}

static gboolean
compute_level (Arch *a, const Comp *c, const Geometry *g, FfmArch *arch,
               GError **error)
{
  const FfmTlNode *table = NULL;
  FfmLevel *level;
  double leak = 0;
  gboolean found;

  if (!find_table (a->ert, "ERT", c, &table, error))
    return FALSE;
  if (table == NULL)
    return no_table (a, c, "compute unit", error);
  level = ffm_arch_add_compute (arch, c->name);
  level->description = g_strdup_printf ("Timeloop %s (class %s), %s:%u",
                                        c->hier, ffm_tl_get (c->node, "class")->text,
                                        c->node->file, c->node->line);
  level->u.compute.throughput = 1 / g->cycle_seconds;
  if (!required_energy (a, c, table, compute_actions,
                        &level->u.compute.energy, error)
      || !table_energy (a, table, leak_actions, &leak, &found, error))
    return FALSE;
  level->leak_power = found ? leak * PJ / g->cycle_seconds : 0;
  return TRUE;
}

static gboolean
set_area (Arch *a, const Comp *c, FfmLevel *level, GError **error)
{
  const FfmTlNode *table, *area;
  double um2;

  if (!find_table (a->art, "ART", c, &table, error))
    return FALSE;
  if (table == NULL)
    return TRUE;
  if (!ffm_tl_check_keys (table, "ART.tables", art_table_keys, error))
    return FALSE;
  if ((area = ffm_tl_get (table, "area")) == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, table, "ART.tables",
                        "missing key 'area'");
  if (!ffm_tl_number (area, "ART.tables.area", &um2, error))
    return FALSE;
  if (um2 < 0)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, area,
                        "ART.tables.area", "an area must be >= 0");
  level->area = um2 * UM2;
  return TRUE;
}

/* A fanout between @outer and @inner when the instances grow. */
static gboolean
fanout_level (const Comp *outer, const Geometry *go, const Comp *inner,
              const Geometry *gi, FfmArch *arch, GError **error)
{
  double fx = gi->mesh_x / go->mesh_x, fy = gi->mesh_y / go->mesh_y;
  FfmLevel *level;

  if (inner->instances == outer->instances)
    return TRUE;
  if (inner->instances < outer->instances
      || inner->instances % outer->instances != 0
      || fx != floor (fx) || fy != floor (fy) || fx < 1 || fy < 1)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, inner->node,
                        inner->path, "%s (%" G_GUINT64_FORMAT " instances, "
                        "mesh %g x %g) is not a whole fanout of %s (%"
                        G_GUINT64_FORMAT " instances, mesh %g x %g)",
                        inner->base, inner->instances, gi->mesh_x, gi->mesh_y,
                        outer->base, outer->instances, go->mesh_x, go->mesh_y);
  level = ffm_arch_add_fanout (arch, inner->fanout_name != NULL
                               ? inner->fanout_name : "Fanout");
  level->description = g_strdup_printf ("Timeloop: %" G_GUINT64_FORMAT " %s per %s",
                                        inner->instances / outer->instances,
                                        inner->base, outer->base);
  if (fx > 1)
    ffm_level_add_fanout_dim (level, "X", (guint64) fx);
  if (fy > 1)
    ffm_level_add_fanout_dim (level, "Y", (guint64) fy);
  return TRUE;
}

/* Unique level names: the chain's names, and fanouts named after them. */
static gboolean
check_names (Arch *a, GError **error)
{
  for (guint i = 0; i < a->comps->len; i++)
    {
      Comp *c = a->comps->pdata[i];
      for (guint j = 0; j < i; j++)
        {
          const Comp *d = a->comps->pdata[j];
          if (strcmp (c->name, d->name) == 0)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, c->node,
                                c->path, "a second level named %s (also %s:%u):"
                                " the levels' names must differ", c->base,
                                d->node->file, d->node->line);
          if (d->fanout_name != NULL && strcmp (c->name, d->fanout_name) == 0)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, c->node,
                                c->path, "level %s is named like the fanout "
                                "of the subtrees above %s", c->base, d->base);
        }
      if (c->fanout_name != NULL)
        for (guint j = 0; j < a->comps->len; j++)
          if (strcmp (c->fanout_name, ((Comp *) a->comps->pdata[j])->name) == 0)
            {
              char *renamed = g_strconcat (c->fanout_name, "_fanout", NULL);
              g_free (c->fanout_name);
              c->fanout_name = renamed;
            }
    }
  return TRUE;
}

FfmArch *
ffm_timeloop_spec_to_arch (FfmTimeloopSpec *spec, GError **error)
{
  const FfmTlNode *root;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (GPtrArray) geometry = NULL;
  g_autoptr (GPtrArray) ranged = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *description = NULL;
  GError *local = NULL;
  Arch a = { 0 };
  Scope scope = { 0 };
  gboolean ok;
  guint n_compute = 0;

  g_return_val_if_fail (spec != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  root = ffm_tl_spec_get (spec, "architecture");
  if (root == NULL)
    {
      g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_MISSING,
                   "%s: no 'architecture' (a Timeloop architecture)",
                   ffm_tl_spec_get_files (spec));
      return NULL;
    }
  if (ffm_tl_spec_get (spec, "sparse_optimizations") != NULL)
    {
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                   ffm_tl_spec_get_key (spec, "sparse_optimizations"),
                   "sparse_optimizations", "sparse optimizations cannot be "
                   "translated: ffm models dense tensors");
      return NULL;
    }
  if (!ffm_tl_check_keys (root, "architecture", arch_keys, error))
    return NULL;
  if (ffm_tl_get (root, "nodes") != NULL)
    {
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                   ffm_tl_get_key (root, "nodes"), "architecture.nodes",
                   "the 'nodes' form (!Container, !Component) of Timeloop's "
                   "Python front end is not read: write the v0.4 form with "
                   "subtree and local");
      return NULL;
    }
  if (ffm_tl_get (root, "storage") != NULL || ffm_tl_get (root, "arithmetic") != NULL)
    {
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, root, "architecture",
                   "the storage/arithmetic form (before v0.4) is not read: "
                   "write the v0.4 form with subtree and local");
      return NULL;
    }
  if (ffm_tl_get (root, "constraints") != NULL)
    ffm_tl_warn (spec, ffm_tl_get_key (root, "constraints"),
                 "architecture.constraints", "mapping constraints are not "
                 "translated: ffm searches the whole mapspace");
  for (guint i = 0; search_keys[i] != NULL; i++)
    if (ffm_tl_spec_get (spec, search_keys[i]) != NULL)
      ffm_tl_warn (spec, ffm_tl_spec_get_key (spec, search_keys[i]),
                   search_keys[i], "Timeloop's mapper settings and mapspace "
                   "constraints are not translated: ffm searches the whole "
                   "mapspace");
  a.spec = spec;
  a.comps = g_ptr_array_new_with_free_func (comp_free);
  a.ert = ffm_tl_spec_get (spec, "ERT");
  a.art = ffm_tl_spec_get (spec, "ART");
  if (a.ert != NULL && !ffm_tl_check_keys (a.ert, "ERT", ert_keys, error))
    {
      g_ptr_array_unref (a.comps);
      return NULL;
    }
  if (a.art != NULL && !ffm_tl_check_keys (a.art, "ART", ert_keys, error))
    {
      g_ptr_array_unref (a.comps);
      return NULL;
    }
  scope.attr_keys = g_ptr_array_new ();
  scope.attr_values = g_ptr_array_new ();
  scope.instances = 1;
  scope.hier = g_strdup ("");
  scope.ranged = ranged;
  ok = add_attributes (ffm_tl_get (root, "attributes"), "architecture.attributes",
                       scope.attr_keys, scope.attr_values, error)
       && walk_body (&a, root, "architecture", &scope, 0, error)
       && check_names (&a, error);
  g_ptr_array_unref (scope.attr_keys);
  g_ptr_array_unref (scope.attr_values);
  g_free (scope.hier);

  for (guint i = 0; ok && i < a.comps->len; i++)
    {
      const Comp *c = a.comps->pdata[i];
      if (c->kind == COMP_COMPUTE)
        n_compute++;
      if (c->kind == COMP_COMPUTE && i + 1 != a.comps->len)
        ok = ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, c->node, c->path,
                          "compute unit %s is not the last component: Timeloop "
                          "and ffm take one chain of memories ending in it",
                          c->base);
    }
  if (ok && (n_compute != 1 || a.comps->len < 2
             || ((Comp *) a.comps->pdata[0])->kind != COMP_STORAGE))
    ok = ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, root, "architecture",
                      "expected memories followed by one compute unit, got %u "
                      "components and %u compute units", a.comps->len, n_compute);

  if (ok)
    {
      const FfmTlNode *name = ffm_tl_get (root, "subtree") != NULL
        ? ffm_tl_get (ffm_tl_get (root, "subtree")->items[0], "name") : NULL;
      g_autofree char *base = NULL;
      guint64 count;
      if (name == NULL || !parse_name (name, NULL, &base, &count, NULL))
        base = g_strdup ("timeloop");
      arch = ffm_arch_new (base);
      description = g_strdup_printf ("Timeloop architecture from %s",
                                     ffm_tl_spec_get_files (spec));
      ffm_arch_set_description (arch, description);
      ffm_arch_set_source (arch, ffm_tl_spec_get_files (spec));
      geometry = g_ptr_array_new_with_free_func (g_free);
    }
  for (guint i = 0; ok && i < a.comps->len; i++)
    {
      const Comp *c = a.comps->pdata[i];
      Geometry *g = g_new0 (Geometry, 1);
      g_ptr_array_add (geometry, g);
      check_attributes (&a, c);
      ok = component_geometry (c, g, error)
           && (i == 0 || fanout_level (a.comps->pdata[i - 1], geometry->pdata[i - 1],
                                       c, g, arch, error))
           && (c->kind == COMP_STORAGE ? memory_level (&a, c, i == 0, g, arch, error)
                                       : compute_level (&a, c, g, arch, error))
           && set_area (&a, c, (FfmLevel *) ffm_arch_get_level (arch,
                                                                ffm_arch_get_n_levels (arch) - 1),
                        error);
    }
  g_ptr_array_unref (a.comps);
  if (!ok)
    return NULL;
  if (!ffm_arch_finish (arch, &local))
    {
      g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                   "%s:%u: architecture: %s", root->file, root->line,
                   local->message);
      g_error_free (local);
      return NULL;
    }
  return g_steal_pointer (&arch);
}
