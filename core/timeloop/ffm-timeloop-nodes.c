/* ffm-timeloop-nodes.c: a Timeloop architecture's tree as the chain of
 * components Timeloop models.
 *
 * Two forms describe one architecture:
 *   - Timeloop's own (v0.3/v0.4): `subtree`s with `local` components; a
 *     component's instances are the product of the ranges in its and its
 *     subtrees' names (`PE[0..15]`), attributes of a subtree apply to the
 *     components below it;
 *   - the front end's (what users write, and the tutorials' exercises):
 *     `nodes`, a list read in order. A !Container's attributes apply to
 *     every node after it; its `spatial: {meshX, meshY}` multiplies the
 *     instances of every node after it, and Timeloop sees there a
 *     placeholder storage level, `inter_NAME_spatial`, that keeps nothing
 *     and holds the container's spatial constraints. A !Component is a
 *     level (its own `spatial` makes it replicated, behind such a
 *     placeholder too). !Parallel lists nodes side by side that Timeloop
 *     chains one after the other (each usually keeps one tensor);
 *     !Hierarchical nests a list; !Nothing is skipped. The first node, if
 *     a container, names the top level (NAME_top_level), as the front end
 *     writes it for Timeloop.
 * `variables` apply to every component, below the containers' attributes.
 * A component with `enabled: false` is left out; network components are
 * left out with a warning (ffm does not model networks). */
#include "ffm-timeloop-private.h"
#include "ffm-workload-private.h"

#include <math.h>
#include <string.h>

static const char *const subtree_keys[] = {
  "name", "attributes", "local", "subtree", "description", NULL
};
static const char *const component_keys[] = {
  "name", "class", "subclass", "attributes", "required_actions", "actions",
  "description", "enabled", "area_scale", "energy_scale", "constraints",
  "spatial", "sparse_optimizations", "area_share", NULL
};
static const char *const container_keys[] = {
  "name", "attributes", "spatial", "constraints", "networks", "description",
  "sparse_optimizations", "enabled", NULL
};
static const char *const branch_keys[] = { "nodes", "name", "description", NULL };
static const char *const spatial_keys[] = { "meshX", "meshY", NULL };

static const char *const storage_classes[] = {
  "DRAM", "SRAM", "regfile", "smartbuffer", "storage", NULL
};
static const char *const compute_classes[] = {
  "mac", "intmac", "fpmac", "compute", NULL
};
static const char *const network_classes[] = {
  "XY_NoC", "Legacy", "ReductionTree", "SimpleMulticast", "wire", NULL
};

static void
comp_free (gpointer data)
{
  FfmTlComp *c = data;

  g_free (c->name);
  g_free (c->base);
  g_free (c->hier);
  g_free (c->cls);
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

  if (g_ascii_strcasecmp (id, "above") == 0 || ffm_workload_is_class_word (id))
    return g_strconcat (id, "_", NULL);
  return g_steal_pointer (&id);
}

static gboolean
class_is (const char *cls, const char *const *classes)
{
  for (guint i = 0; classes[i] != NULL; i++)
    if (strstr (cls, classes[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* ---- Attributes ---- */

/* Adds @attrs (a mapping) to @keys/@values, later ones replacing earlier
 * ones of the same name ('-' and '_' alike). */
static gboolean
add_attributes (const FfmTlNode *attrs, const char *path, GPtrArray *keys,
                GPtrArray *values, GError **error)
{
  if (attrs == NULL)
    return TRUE;
  if (!ffm_tl_require (attrs, FFM_TL_MAPPING, path, error))
    return FALSE;
  for (guint i = 0; i < attrs->n_items; i++)
    for (guint j = 0; j < i; j++)
      if (ffm_tl_key_equal (attrs->items[2 * i]->text, attrs->items[2 * j]->text))
        {
          g_autofree char *sub = ffm_tl_path_key (path, attrs->items[2 * i]->text);
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, attrs->items[2 * i],
                              sub, "'%s' and '%s' (line %u) are one key to "
                              "Timeloop ('-' and '_' alike): give it once",
                              attrs->items[2 * i]->text, attrs->items[2 * j]->text,
                              attrs->items[2 * j]->line);
        }
  for (guint i = 0; i < attrs->n_items; i++)
    {
      FfmTlNode *key = attrs->items[2 * i], *value = attrs->items[2 * i + 1];
      guint j;
      for (j = 0; j < keys->len; j++)
        if (ffm_tl_key_equal (((FfmTlNode *) keys->pdata[j])->text, key->text))
          break;
      if (j < keys->len)
        {
          /* Later wins, but in its place among the inherited ones. */
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

/* Adds @attrs only where @keys has no such name (the front end: a
 * container's attributes never override a component's). */
static void
add_missing_attributes (const GPtrArray *from_keys, const GPtrArray *from_values,
                        GPtrArray *keys, GPtrArray *values)
{
  for (guint i = 0; i < from_keys->len; i++)
    {
      const FfmTlNode *key = from_keys->pdata[i];
      gboolean found = FALSE;
      for (guint j = 0; j < keys->len && !found; j++)
        found = ffm_tl_key_equal (((FfmTlNode *) keys->pdata[j])->text, key->text);
      if (!found)
        {
          g_ptr_array_add (keys, (gpointer) key);
          g_ptr_array_add (values, from_values->pdata[i]);
        }
    }
}

const FfmTlNode *
ffm_tl_comp_attribute (const FfmTlComp *c, const char *name,
                       const FfmTlNode **key)
{
  for (guint i = c->attr_keys->len; i-- > 0;)
    if (ffm_tl_key_equal (((FfmTlNode *) c->attr_keys->pdata[i])->text, name))
      {
        if (key != NULL)
          *key = c->attr_keys->pdata[i];
        return c->attr_values->pdata[i];
      }
  return NULL;
}

/* ---- Shared ---- */

typedef struct {
  FfmTimeloopSpec *spec;
  GPtrArray *comps;         /* of FfmTlComp * */
  GPtrArray *parallels;     /* of FfmTlParallel * */
  guint parallel;           /* the !Parallel being walked (1-based), 0 none */
} Walk;

static void
parallel_free (gpointer data)
{
  FfmTlParallel *p = data;

  g_ptr_array_unref (p->keeps);
  g_free (p);
}

/* The `dataspace: keep` list in @constraints, or NULL. */
static const FfmTlNode *
keep_list (const FfmTlNode *constraints)
{
  const FfmTlNode *ds = ffm_tl_get (constraints, "dataspace");

  return ffm_tl_get (ds, "keep");
}

/* A component's kind from its class; FALSE (and *@skip) for one ffm
 * leaves out, with the warning or error that says so. */
static gboolean
classify (Walk *w, const FfmTlNode *cls_node, const char *cls,
          const char *base, const char *class_path, FfmTlCompKind *kind,
          gboolean *skip, GError **error)
{
  *skip = FALSE;
  if (strcmp (cls, "dummy_storage") == 0)
    *kind = FFM_TL_COMP_DUMMY;
  else if (class_is (cls, storage_classes))
    *kind = FFM_TL_COMP_STORAGE;
  else if (class_is (cls, compute_classes))
    *kind = FFM_TL_COMP_COMPUTE;
  else if (class_is (cls, network_classes))
    {
      ffm_tl_warn (w->spec, FFM_TL_WARN_NETWORK, cls_node, class_path,
                   "network %s (class %s) is not modelled: ffm charges "
                   "nothing for moving data between levels", base, cls);
      *skip = TRUE;
    }
  else if (strcmp (cls, "nothing") == 0)
    *skip = TRUE;
  else
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, cls_node, class_path,
                        "component %s: class %s is neither a memory (a class "
                        "containing DRAM, SRAM, regfile, smartbuffer or storage, "
                        "as Timeloop reads them) nor a compute unit (mac, "
                        "intmac, fpmac, compute)", base, cls);
  return TRUE;
}

static FfmTlComp *
comp_new (FfmTlCompKind kind, const char *base, const char *hier,
          const char *cls, const FfmTlNode *node, const char *path)
{
  FfmTlComp *c = g_new0 (FfmTlComp, 1);

  c->kind = kind;
  c->base = g_strdup (base);
  c->name = level_name (base);
  c->hier = hier[0] != '\0' ? g_strdup_printf ("%s.%s", hier, base) : g_strdup (base);
  c->cls = g_strdup (cls);
  c->node = node;
  c->path = g_strdup (path);
  c->attr_keys = g_ptr_array_new ();
  c->attr_values = g_ptr_array_new ();
  return c;
}

/* Whether mapping @node says `enabled: false`. */
static gboolean
is_disabled (const FfmTlNode *node, const char *path, gboolean *disabled,
             GError **error)
{
  const FfmTlNode *v = ffm_tl_get (node, "enabled");
  g_autofree char *sub = ffm_tl_path_key (path, "enabled");
  gboolean enabled = TRUE;

  if (v != NULL && !ffm_tl_bool (v, sub, &enabled, error))
    return FALSE;
  *disabled = !enabled;
  return TRUE;
}

/* ---- Timeloop's form: subtree and local ---- */

typedef struct {
  GPtrArray *attr_keys;     /* inherited attributes (not owned) */
  GPtrArray *attr_values;
  guint64 instances;
  char *hier;               /* dotted base names */
  GPtrArray *ranged;        /* ranged subtree base names, outermost first */
} Scope;

static gboolean walk_subtree (Walk *w, const FfmTlNode *node, const char *path,
                              const Scope *outer, guint depth, GError **error);

static gboolean
add_component (Walk *w, const FfmTlNode *node, const char *path,
               const Scope *scope, GPtrArray *ranged_since, GError **error)
{
  g_autofree char *name_path = ffm_tl_path_key (path, "name");
  g_autofree char *class_path = ffm_tl_path_key (path, "class");
  g_autofree char *attr_path = ffm_tl_path_key (path, "attributes");
  g_autofree char *base = NULL;
  const FfmTlNode *cls_node;
  const char *cls;
  FfmTlCompKind kind = FFM_TL_COMP_STORAGE;
  FfmTlComp *c;
  guint64 count;
  gboolean skip, disabled;

  if (!ffm_tl_check_keys (node, path, component_keys, error)
      || !is_disabled (node, path, &disabled, error))
    return FALSE;
  if (disabled)
    return TRUE;
  if (ffm_tl_get (node, "name") == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "missing key 'name'");
  if ((cls_node = ffm_tl_get (node, "class")) == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "missing key 'class'");
  if ((cls = ffm_tl_string (cls_node, class_path, error)) == NULL
      || !parse_name (ffm_tl_get (node, "name"), name_path, &base, &count, error)
      || !classify (w, cls_node, cls, base, class_path, &kind, &skip, error))
    return FALSE;
  if (skip)
    return TRUE;
  c = comp_new (kind, base, scope->hier, cls, node, path);
  g_ptr_array_extend (c->attr_keys, scope->attr_keys, NULL, NULL);
  g_ptr_array_extend (c->attr_values, scope->attr_values, NULL, NULL);
  c->instances = scope->instances * count;
  c->constraints = ffm_tl_get (node, "constraints");
  if (count > 1)
    g_ptr_array_add (ranged_since, g_strdup_printf ("%s_array", c->name));
  if (ranged_since->len > 0)
    {
      g_ptr_array_add (ranged_since, NULL);
      c->fanout_name = g_strjoinv ("_", (char **) ranged_since->pdata);
      g_ptr_array_set_size (ranged_since, 0);
    }
  g_ptr_array_add (w->comps, c);
  return add_attributes (ffm_tl_get (node, "attributes"), attr_path,
                         c->attr_keys, c->attr_values, error);
}

static gboolean
walk_body (Walk *w, const FfmTlNode *node, const char *path, Scope *scope,
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
          if (!add_component (w, local->items[i], item_path, scope,
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
      return walk_subtree (w, sub->items[0], item_path, scope, depth + 1, error);
    }
  return TRUE;
}

static gboolean
walk_subtree (Walk *w, const FfmTlNode *node, const char *path,
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
       && walk_body (w, node, path, &scope, depth, error);
  g_ptr_array_unref (scope.attr_keys);
  g_ptr_array_unref (scope.attr_values);
  g_free (scope.hier);
  return ok;
}

/* ---- The front end's form: nodes ---- */

typedef struct {
  GPtrArray *attr_keys;     /* variables, then the containers' attributes */
  GPtrArray *attr_values;
  guint64 mesh_x, mesh_y;
  char *top;                /* "NAME_top_level" */
  gboolean first;           /* no node placed yet */
} Nodes;

/* `spatial: {meshX, meshY}` (1 x 1 when absent). */
static gboolean
read_spatial (const FfmTlNode *node, const char *path, guint64 *mx,
              guint64 *my, GError **error)
{
  const FfmTlNode *sp = ffm_tl_get (node, "spatial"), *v;
  g_autofree char *sp_path = ffm_tl_path_key (path, "spatial");

  *mx = *my = 1;
  if (sp == NULL)
    return TRUE;
  if (!ffm_tl_check_keys (sp, sp_path, spatial_keys, error))
    return FALSE;
  if ((v = ffm_tl_get (sp, "meshX")) != NULL)
    {
      g_autofree char *sub = ffm_tl_path_key (sp_path, "meshX");
      if (!ffm_tl_count (v, sub, 1, mx, error))
        return FALSE;
    }
  if ((v = ffm_tl_get (sp, "meshY")) != NULL)
    {
      g_autofree char *sub = ffm_tl_path_key (sp_path, "meshY");
      if (!ffm_tl_count (v, sub, 1, my, error))
        return FALSE;
    }
  if (*mx > G_MAXUINT32 || *my > G_MAXUINT32)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, sp, sp_path,
                        "a mesh of more than 2^32 along one side");
  return TRUE;
}

static gboolean
grow_mesh (Nodes *n, guint64 mx, guint64 my, const FfmTlNode *node,
           const char *path, GError **error)
{
  if (!g_uint64_checked_mul (&n->mesh_x, n->mesh_x, mx)
      || !g_uint64_checked_mul (&n->mesh_y, n->mesh_y, my)
      || n->mesh_x > G_MAXUINT32 || n->mesh_y > G_MAXUINT32)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, node, path,
                        "the meshes multiply to more than 2^32 instances "
                        "along one side");
  return TRUE;
}

/* Places a placeholder level inter_NAME_spatial at the current mesh: the
 * level Timeloop sees above a fanout, holding @constraints' spatial part. */
static void
place_dummy (Walk *w, Nodes *n, const char *name, const FfmTlNode *node,
             const char *path, const FfmTlNode *constraints)
{
  g_autofree char *base = g_strdup_printf ("inter_%s_spatial", name);
  FfmTlComp *c = comp_new (FFM_TL_COMP_DUMMY, base, n->top, "", node, path);

  c->mesh_x = n->mesh_x;
  c->mesh_y = n->mesh_y;
  c->instances = n->mesh_x * n->mesh_y;
  c->constraints = constraints;
  c->fanout_name = level_name (name);
  c->front_end = TRUE;
  g_ptr_array_add (w->comps, c);
}

static gboolean walk_nodes (Walk *w, Nodes *n, const FfmTlNode *list,
                            const char *path, gboolean parallel, guint depth,
                            GError **error);

static gboolean
walk_node (Walk *w, Nodes *n, const FfmTlNode *node, const char *path,
           gboolean parallel, guint depth, GError **error)
{
  g_autofree char *name_path = ffm_tl_path_key (path, "name");
  g_autofree char *attr_path = ffm_tl_path_key (path, "attributes");
  g_autofree char *nodes_path = ffm_tl_path_key (path, "nodes");
  const char *tag = node->tag, *name;
  gboolean disabled;
  guint64 mx, my;

  if (node->kind != FFM_TL_MAPPING)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "expected a node (a mapping tagged !Container, "
                        "!Component, !Parallel, !Hierarchical or !Nothing), "
                        "got a %s", ffm_tl_kind_name (node->kind));
  if (tag == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "a node without a tag: write !Container, !Component, "
                        "!Parallel, !Hierarchical or !Nothing before it");
  if (strcmp (tag, "!Nothing") == 0)
    {
      /* A branch that keeps nothing of its own but its `keep` (the data
       * that bypasses its siblings). */
      if (parallel && w->parallel > 0)
        g_ptr_array_add (((FfmTlParallel *) w->parallels->pdata[w->parallel - 1])->keeps,
                         (gpointer) keep_list (ffm_tl_get (node, "constraints")));
      return TRUE;
    }
  if (strcmp (tag, "!Parallel") == 0 || strcmp (tag, "!Hierarchical") == 0)
    {
      const FfmTlNode *list = ffm_tl_get (node, "nodes");
      guint outer = w->parallel;
      gboolean ok;
      if (!ffm_tl_check_keys (node, path, branch_keys, error))
        return FALSE;
      if (list == NULL)
        return TRUE;
      if (strcmp (tag, "!Parallel") == 0)
        {
          FfmTlParallel *p = g_new0 (FfmTlParallel, 1);
          p->node = node;
          p->keeps = g_ptr_array_new ();
          g_ptr_array_add (w->parallels, p);
          w->parallel = w->parallels->len;
        }
      ok = walk_nodes (w, n, list, nodes_path, strcmp (tag, "!Parallel") == 0,
                       depth + 1, error);
      w->parallel = outer;
      return ok;
    }
  if (strcmp (tag, "!Pipelined") == 0)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, node, path,
                        "!Pipelined: Timeloop models one chain of levels, "
                        "and ffm does too");
  if (strcmp (tag, "!Container") != 0 && strcmp (tag, "!Component") != 0)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "unknown tag %s (expected !Container, !Component, "
                        "!Parallel, !Hierarchical or !Nothing)", tag);
  if (!ffm_tl_check_keys (node, path, strcmp (tag, "!Container") == 0
                          ? container_keys : component_keys, error)
      || !is_disabled (node, path, &disabled, error))
    return FALSE;
  if (disabled)
    return TRUE;
  if (ffm_tl_get (node, "name") == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                        "missing key 'name'");
  if ((name = ffm_tl_string (ffm_tl_get (node, "name"), name_path, error)) == NULL
      || !read_spatial (node, path, &mx, &my, error))
    return FALSE;
  if (strchr (name, '[') != NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, ffm_tl_get (node, "name"),
                        name_path, "'%s': in the nodes form a component is "
                        "replicated by `spatial: {meshX: N}`, not by a range "
                        "in its name", name);
  if (parallel && (strcmp (tag, "!Container") == 0 || mx * my > 1))
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, node, path,
                        "%s under !Parallel: %s (the front end refuses it too)",
                        name, strcmp (tag, "!Container") == 0
                        ? "a container" : "a component with a fanout");

  if (strcmp (tag, "!Container") == 0)
    {
      if (n->first)
        {
          g_free (n->top);
          n->top = g_strdup_printf ("%s_top_level", name);
        }
      n->first = FALSE;
      if (!add_attributes (ffm_tl_get (node, "attributes"), attr_path,
                           n->attr_keys, n->attr_values, error))
        return FALSE;
      if (mx * my > 1)
        {
          place_dummy (w, n, name, node, path, ffm_tl_get (node, "constraints"));
          return grow_mesh (n, mx, my, node, path, error);
        }
      return TRUE;
    }

  /* A component. */
  {
    g_autofree char *class_path = ffm_tl_path_key (path, "class");
    const FfmTlNode *cls_node = ffm_tl_get (node, "class");
    const char *cls;
    FfmTlCompKind kind;
    gboolean skip;
    FfmTlComp *c;

    n->first = FALSE;
    if (cls_node == NULL)
      return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                          "missing key 'class'");
    if ((cls = ffm_tl_string (cls_node, class_path, error)) == NULL
        || !classify (w, cls_node, cls, name, class_path, &kind, &skip, error))
      return FALSE;
    if (skip)
      return TRUE;
    if (mx * my > 1)
      {
        place_dummy (w, n, name, node, path, ffm_tl_get (node, "constraints"));
        if (!grow_mesh (n, mx, my, node, path, error))
          return FALSE;
      }
    c = comp_new (kind, name, n->top, cls, node, path);
    c->mesh_x = n->mesh_x;
    c->mesh_y = n->mesh_y;
    c->instances = n->mesh_x * n->mesh_y;
    c->constraints = ffm_tl_get (node, "constraints");
    c->front_end = TRUE;
    if (parallel && w->parallel > 0)
      {
        c->parallel = w->parallel;
        g_ptr_array_add (((FfmTlParallel *) w->parallels->pdata[w->parallel - 1])->keeps,
                         (gpointer) keep_list (c->constraints));
      }
    if (!add_attributes (ffm_tl_get (node, "attributes"), attr_path,
                         c->attr_keys, c->attr_values, error))
      {
        comp_free (c);
        return FALSE;
      }
    add_missing_attributes (n->attr_keys, n->attr_values, c->attr_keys,
                            c->attr_values);
    g_ptr_array_add (w->comps, c);
    return TRUE;
  }
}

static gboolean
walk_nodes (Walk *w, Nodes *n, const FfmTlNode *list, const char *path,
            gboolean parallel, guint depth, GError **error)
{
  if (!ffm_tl_require (list, FFM_TL_SEQUENCE, path, error))
    return FALSE;
  if (depth > FFM_TIMELOOP_MAX_DEPTH)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, list, path,
                        "nodes nested more than %d deep", FFM_TIMELOOP_MAX_DEPTH);
  for (guint i = 0; i < list->n_items; i++)
    {
      g_autofree char *item_path = ffm_tl_path_index (path, i);
      if (!walk_node (w, n, list->items[i], item_path, parallel, depth, error))
        return FALSE;
    }
  return TRUE;
}

/* The `variables` that apply to every component (numbers and strings;
 * `version` is the section's own). */
static gboolean
variable_attributes (FfmTimeloopSpec *spec, GPtrArray *keys, GPtrArray *values,
                     GError **error)
{
  const FfmTlNode *vars = ffm_tl_spec_get (spec, "variables");

  if (vars == NULL)
    return TRUE;
  if (!ffm_tl_require (vars, FFM_TL_MAPPING, "variables", error)
      || !ffm_tl_check_version (vars, "variables", error))
    return FALSE;
  for (guint i = 0; i < vars->n_items; i++)
    if (strcmp (vars->items[2 * i]->text, "version") != 0)
      {
        g_ptr_array_add (keys, vars->items[2 * i]);
        g_ptr_array_add (values, vars->items[2 * i + 1]);
      }
  return TRUE;
}

/* ---- The chain ---- */

/* Unique level names: the chain's names, and fanouts named after them. */
static gboolean
check_names (GPtrArray *comps, GError **error)
{
  for (guint i = 0; i < comps->len; i++)
    {
      FfmTlComp *c = comps->pdata[i];
      for (guint j = 0; j < i; j++)
        {
          const FfmTlComp *d = comps->pdata[j];
          if (strcmp (c->name, d->name) == 0)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node,
                                c->path, "a second level named %s (also %s:%u):"
                                " the levels' names must differ", c->base,
                                d->node->file, d->node->line);
        }
    }
  for (guint i = 0; i < comps->len; i++)
    {
      FfmTlComp *c = comps->pdata[i];
      gboolean clash = TRUE;
      while (c->fanout_name != NULL && clash)
        {
          clash = FALSE;
          for (guint j = 0; j < comps->len; j++)
            {
              const FfmTlComp *d = comps->pdata[j];
              if (strcmp (c->fanout_name, d->name) == 0
                  || (j < i && d->fanout_name != NULL
                      && strcmp (c->fanout_name, d->fanout_name) == 0))
                clash = TRUE;
            }
          if (clash)
            {
              char *renamed = g_strconcat (c->fanout_name, "_fanout", NULL);
              g_free (c->fanout_name);
              c->fanout_name = renamed;
            }
        }
    }
  return TRUE;
}

GPtrArray *
ffm_tl_components (FfmTimeloopSpec *spec, GPtrArray **parallels, GError **error)
{
  static const char *const arch_keys[] = {
    "version", "subtree", "local", "attributes", "name", "nodes", "storage",
    "arithmetic", "constraints", NULL
  };
  const FfmTlNode *root = ffm_tl_spec_get (spec, "architecture");
  g_autoptr (GPtrArray) comps = g_ptr_array_new_with_free_func (comp_free);
  g_autoptr (GPtrArray) var_keys = g_ptr_array_new ();
  g_autoptr (GPtrArray) var_values = g_ptr_array_new ();
  g_autoptr (GPtrArray) groups = g_ptr_array_new_with_free_func (parallel_free);
  Walk w = { spec, comps, groups, 0 };

  if (!ffm_tl_check_keys (root, "architecture", arch_keys, error)
      || !ffm_tl_check_version (root, "architecture", error)
      || !variable_attributes (spec, var_keys, var_values, error))
    return NULL;
  if (ffm_tl_get (root, "storage") != NULL || ffm_tl_get (root, "arithmetic") != NULL)
    {
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, root, "architecture",
                   "the storage/arithmetic form (before v0.3) is not read: "
                   "write the nodes form or the subtree form");
      return NULL;
    }
  if (ffm_tl_get (root, "nodes") != NULL)
    {
      Nodes n = { var_keys, var_values, 1, 1, g_strdup ("top_level"), TRUE };
      gboolean ok;
      if (ffm_tl_get (root, "subtree") != NULL || ffm_tl_get (root, "local") != NULL)
        {
          ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, root, "architecture",
                       "both nodes (the front end's form) and subtree/local "
                       "(Timeloop's): give one");
          g_free (n.top);
          return NULL;
        }
      ok = add_attributes (ffm_tl_get (root, "attributes"), "architecture.attributes",
                           n.attr_keys, n.attr_values, error)
           && walk_nodes (&w, &n, ffm_tl_get (root, "nodes"), "architecture.nodes",
                          FALSE, 0, error);
      g_free (n.top);
      if (!ok)
        return NULL;
    }
  else
    {
      g_autoptr (GPtrArray) ranged = g_ptr_array_new_with_free_func (g_free);
      Scope scope = { var_keys, var_values, 1, (char *) "", ranged };
      if (!add_attributes (ffm_tl_get (root, "attributes"), "architecture.attributes",
                           scope.attr_keys, scope.attr_values, error)
          || !walk_body (&w, root, "architecture", &scope, 0, error))
        return NULL;
      /* A placeholder level names the fanout below it (the front end's
       * inter_NAME_spatial stands above NAME's fanout). */
      for (guint i = 0; i < comps->len; i++)
        {
          FfmTlComp *d = comps->pdata[i];
          if (d->kind == FFM_TL_COMP_DUMMY && g_str_has_prefix (d->base, "inter_")
              && g_str_has_suffix (d->base, "_spatial") && strlen (d->base) > 14)
            {
              g_autofree char *mid = g_strndup (d->base + 6, strlen (d->base) - 14);
              g_free (d->fanout_name);
              d->fanout_name = level_name (mid);
            }
        }
    }
  if (!check_names (comps, error))
    return NULL;
  if (parallels != NULL)
    *parallels = g_steal_pointer (&groups);
  return g_steal_pointer (&comps);
}
