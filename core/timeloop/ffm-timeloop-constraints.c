/* ffm-timeloop-constraints.c: Timeloop's mapspace constraints as an ffm
 * constraint set.
 *
 * Timeloop's constraints come from the architecture's nodes (`constraints:
 * {dataspace, temporal, spatial}` on a component, `spatial` on a
 * container: its placeholder level's), and from target lists
 * (`architecture_constraints`, `mapspace_constraints`, `mapspace`,
 * `constraints`, `extra_mapping_constraints`: {target, type, ...}). The
 * front end processes those of the nodes form before Timeloop reads them,
 * and this translation does the same: each branch of a !Parallel bypasses
 * what it does not keep; factors of 1 and dimensions of size 1 join the
 * permutation (innermost), so that a `split` counts them too.
 *
 * Per storage level (an ffm memory; a container's name stands for its
 * placeholder, inter_NAME_spatial):
 *   - dataspace keep / bypass: keep / forbid at the level;
 *   - temporal permutation (innermost first, `_` separating the innermost
 *     from the outermost): a loop order at the level, outermost first,
 *     the dimensions left out free (ffm's loop_order leaves them free
 *     anywhere, Timeloop between the two parts: ffm admits more); none at
 *     the innermost level when no fanout lies below it, which Timeloop's
 *     mapspace ignores too;
 *   - temporal and spatial factors: where the factors of a dimension are
 *     known (`=`, or 0 for the whole dimension) at a level and at every
 *     level below it, that level's tile of the dimension, their product (a
 *     tile constraint); the others are left out;
 *   - spatial factors of 1 and `split`: the rank variables each dimension
 *     of the fanout below the level may spread (X gets the first `split`
 *     dimensions of the permutation, Y the rest; without a split, both);
 * left out with a warning per kind: factors that leave the tile open,
 * `<=`/`>=` factors, spatial factors above 1, no_reuse, no_link_transfer,
 * rmw_first_update, utilization, max_overbooked_proportion and the
 * mapper's settings. So the set admits every mapping Timeloop's
 * constraints admit, and more where they say what ffm's cannot. */
#include "ffm-timeloop-private.h"

#include <string.h>

#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))
#define V FFM_MAX_EINSUM_RANK_VARS

static const char *const target_keys[] = {
  "target", "type", "factors", "permutation", "split", "keep", "bypass",
  "no_reuse", "no_link_transfer", "no_coalesce", "rmw_first_update",
  "default_max_factor", "default_min_factor", "remainders", "proportion",
  "min", "factors_only", "maximize_dims", "maximize_dims_capacity", NULL
};
static const char *const group_keys[] = {
  "spatial", "temporal", "dataspace", "max_overbooked_proportion",
  "utilization", NULL
};
static const char *const list_roots[] = {
  "architecture_constraints", "mapspace_constraints", "mapspace",
  "constraints", "extra_mapping_constraints", NULL
};
/* Keys of a constraint that ffm's constraints cannot say. */
static const char *const untranslated[] = {
  "no_reuse", "no_link_transfer", "no_coalesce", "rmw_first_update",
  "default_max_factor", "default_min_factor", "remainders", "proportion",
  "min", "factors_only", "maximize_dims", "maximize_dims_capacity", NULL
};

/* What Timeloop's constraints say about one storage level. */
typedef struct {
  guint level;              /* ffm level index (a memory) */
  int fanout;               /* the fanout below it, -1 none */
  const char *name;
  guint64 keep, bypass;     /* access masks */
  const FfmTlNode *keep_node, *bypass_node;
  guint64 t_known, s_known; /* dims with an exact factor */
  guint64 t_factor[V], s_factor[V];
  gboolean has_t_perm, has_s_perm;
  guint t_perm[V], n_t_prefix, n_t_perm;   /* innermost first; prefix, suffix */
  guint s_perm[V], n_s_perm;
  int split;                /* -1 none */
  const FfmTlNode *t_node, *s_node;
  gboolean front_end;
} Level;

typedef struct {
  FfmTimeloopSpec *spec;
  const FfmWorkload *w;
  const FfmArch *a;
  const FfmEinsum *e;
  guint n_levels;
  Level levels[64];
} Ctx;

/* ---- Names ---- */

static int
find_dim (const Ctx *c, const char *dim)
{
  g_autofree char *var = ffm_tl_dimension_var (dim);
  return ffm_einsum_find_rank_var (c->e, var);
}

static Level *
find_target (Ctx *c, const char *name)
{
  g_autofree char *id = ffm_tl_identifier (name);
  g_autofree char *dummy = g_strdup_printf ("inter_%s_spatial", id);

  for (guint i = 0; i < c->n_levels; i++)
    if (strcmp (c->levels[i].name, id) == 0 || strcmp (c->levels[i].name, name) == 0)
      return &c->levels[i];
  for (guint i = 0; i < c->n_levels; i++)
    if (strcmp (c->levels[i].name, dummy) == 0)
      return &c->levels[i];
  return NULL;
}

/* ---- Reading one constraint ---- */

/* The data spaces of list @node as an access mask. */
static gboolean
read_spaces (Ctx *c, const FfmTlNode *node, const char *path, guint64 *mask,
             GError **error)
{
  if (!ffm_tl_require (node, FFM_TL_SEQUENCE, path, error))
    return FALSE;
  for (guint i = 0; i < node->n_items; i++)
    {
      g_autofree char *sub = ffm_tl_path_index (path, i);
      const char *name = ffm_tl_string (node->items[i], sub, error);
      int t, a;
      if (name == NULL)
        return FALSE;
      t = ffm_workload_find_tensor (c->w, name);
      a = t >= 0 ? ffm_einsum_find_access (c->e, (guint) t) : -1;
      if (a < 0)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node->items[i], sub,
                            "'%s' is not a data space of the problem", name);
      *mask |= BIT (a);
    }
  return TRUE;
}

/* `factors`: a string ("R=1 S=1", "R=1,S=1", "M4") or a list of such. */
static gboolean
read_factors (Ctx *c, const FfmTlNode *node, const char *path,
              guint64 *known, guint64 *factors, GError **error)
{
  g_autoptr (GString) text = g_string_new (NULL);
  g_auto (GStrv) tokens = NULL;
  gboolean open_bounds = FALSE;

  if (node->kind == FFM_TL_SEQUENCE)
    for (guint i = 0; i < node->n_items; i++)
      {
        g_autofree char *sub = ffm_tl_path_index (path, i);
        const char *t = ffm_tl_string (node->items[i], sub, error);
        if (t == NULL)
          return FALSE;
        g_string_append_printf (text, " %s", t);
      }
  else
    {
      const char *t = ffm_tl_string (node, path, error);
      if (t == NULL)
        return FALSE;
      g_string_append (text, t);
    }
  tokens = g_strsplit_set (text->str, " \t,", -1);
  for (guint i = 0; tokens[i] != NULL; i++)
    {
      const char *tok = tokens[i], *p = tok;
      g_autofree char *dim = NULL;
      guint64 value;
      char *end = NULL;
      int v;

      if (tok[0] == '\0')
        continue;
      while (g_ascii_isalpha (*p) || *p == '_')
        p++;
      dim = g_strndup (tok, p - tok);
      if (g_str_has_prefix (p, "<=") || g_str_has_prefix (p, ">="))
        {
          open_bounds = TRUE;
          continue;
        }
      while (*p == '=')
        p++;
      value = g_ascii_strtoull (p, &end, 10);
      if (dim[0] == '\0' || end == p || *end != '\0')
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                            "'%s' is not DIMENSION=FACTOR", tok);
      if ((v = find_dim (c, dim)) < 0)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                            "'%s': %s is not a dimension of the problem", tok, dim);
      if (value == 0)
        value = c->e->rank_var_bounds[v];   /* Timeloop: the whole dimension */
      if (value > c->e->rank_var_bounds[v])
        continue;                           /* Timeloop ignores it too */
      if ((*known & BIT (v)) && factors[v] != value)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                            "dimension %s gets factors %" G_GUINT64_FORMAT " and %"
                            G_GUINT64_FORMAT " at one level (Timeloop refuses a "
                            "re-specification)", dim, factors[v], value);
      *known |= BIT (v);
      factors[v] = value;
    }
  if (open_bounds)
    ffm_tl_warn (c->spec, FFM_TL_WARN_CONSTRAINT, node, path, "factors bounded "
                 "with <= or >= are not translated: ffm searches every factor "
                 "there");
  return TRUE;
}

/* `permutation`: a string (one letter per dimension, '_' between the
 * innermost and the outermost part; or names separated by spaces or
 * commas) or a list of names. Innermost first. */
static gboolean
read_permutation (Ctx *c, const FfmTlNode *node, const char *path, guint *perm,
                  guint *n_prefix, guint *n, GError **error)
{
  guint64 seen = 0;
  gboolean sep = FALSE;

  *n = 0;
  if (node->kind == FFM_TL_SEQUENCE)
    for (guint i = 0; i < node->n_items; i++)
      {
        g_autofree char *sub = ffm_tl_path_index (path, i);
        const char *t = ffm_tl_string (node->items[i], sub, error);
        int v;
        if (t == NULL)
          return FALSE;
        if ((v = find_dim (c, t)) < 0)
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node->items[i], sub,
                              "'%s' is not a dimension of the problem", t);
        if (seen & BIT (v))
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node->items[i], sub,
                              "dimension %s listed twice", t);
        seen |= BIT (v);
        perm[(*n)++] = (guint) v;
      }
  else
    {
      const char *t = ffm_tl_string (node, path, error);
      g_auto (GStrv) words = NULL;
      if (t == NULL)
        return FALSE;
      words = strpbrk (t, " ,\t") != NULL ? g_strsplit_set (t, " ,\t", -1) : NULL;
      for (guint i = 0; words != NULL ? words[i] != NULL : t[i] != '\0'; i++)
        {
          g_autofree char *dim = words != NULL ? g_strdup (words[i]) : g_strndup (t + i, 1);
          int v;
          if (dim[0] == '\0')
            continue;
          if (strcmp (dim, "_") == 0)
            {
              *n_prefix = *n;
              sep = TRUE;
              continue;
            }
          if ((v = find_dim (c, dim)) < 0)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                                "'%s': %s is not a dimension of the problem", t, dim);
          if (seen & BIT (v))
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                                "'%s' lists dimension %s twice", t, dim);
          seen |= BIT (v);
          perm[(*n)++] = (guint) v;
        }
    }
  if (!sep)
    *n_prefix = *n;
  return TRUE;
}

/* One constraint (@type: temporal, spatial, dataspace, ...) on @l. */
static gboolean
read_constraint (Ctx *c, Level *l, const char *type, const FfmTlNode *node,
                 const char *path, GError **error)
{
  const FfmTlNode *v;

  if (!ffm_tl_require (node, FFM_TL_MAPPING, path, error))
    return FALSE;
  for (guint k = 0; untranslated[k] != NULL; k++)
    if ((v = ffm_tl_get (node, untranslated[k])) != NULL
        && !(v->kind == FFM_TL_SEQUENCE && v->n_items == 0))
      {
        g_autofree char *sub = ffm_tl_path_key (path, untranslated[k]);
        ffm_tl_warn (c->spec, FFM_TL_WARN_CONSTRAINT, v, sub, "%s is not "
                     "translated: ffm's constraints have no equivalent",
                     untranslated[k]);
      }
  if (strcmp (type, "dataspace") == 0 || strcmp (type, "bypass") == 0
      || strcmp (type, "datatype") == 0)
    {
      g_autofree char *kp = ffm_tl_path_key (path, "keep");
      g_autofree char *bp = ffm_tl_path_key (path, "bypass");
      if ((v = ffm_tl_get (node, "keep")) != NULL)
        {
          if (!read_spaces (c, v, kp, &l->keep, error))
            return FALSE;
          l->keep_node = v;
        }
      if ((v = ffm_tl_get (node, "bypass")) != NULL)
        {
          if (!read_spaces (c, v, bp, &l->bypass, error))
            return FALSE;
          l->bypass_node = v;
        }
      if (l->keep & l->bypass)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                            "a data space is both kept and bypassed at %s", l->name);
      return TRUE;
    }
  if (strcmp (type, "temporal") == 0 || strcmp (type, "spatial") == 0)
    {
      gboolean spatial = strcmp (type, "spatial") == 0;
      g_autofree char *fp = ffm_tl_path_key (path, "factors");
      g_autofree char *pp = ffm_tl_path_key (path, "permutation");
      g_autofree char *sp = ffm_tl_path_key (path, "split");
      if ((v = ffm_tl_get (node, "factors")) != NULL
          && !read_factors (c, v, fp, spatial ? &l->s_known : &l->t_known,
                            spatial ? l->s_factor : l->t_factor, error))
        return FALSE;
      if ((v = ffm_tl_get (node, "permutation")) != NULL)
        {
          guint dummy_prefix;
          if (spatial && l->has_s_perm)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, v, pp,
                                "a second spatial permutation for %s", l->name);
          if (!spatial && l->has_t_perm)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, v, pp,
                                "a second temporal permutation for %s", l->name);
          if (!read_permutation (c, v, pp, spatial ? l->s_perm : l->t_perm,
                                 spatial ? &dummy_prefix : &l->n_t_prefix,
                                 spatial ? &l->n_s_perm : &l->n_t_perm, error))
            return FALSE;
          if (spatial)
            l->has_s_perm = TRUE;
          else
            l->has_t_perm = TRUE;
        }
      if ((v = ffm_tl_get (node, "split")) != NULL)
        {
          guint64 split;
          if (!spatial)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, v, sp,
                                "split belongs in a spatial constraint");
          if (v->kind == FFM_TL_SCALAR && !g_ascii_isdigit (v->text[0]))
            ffm_tl_warn (c->spec, FFM_TL_WARN_CONSTRAINT, v, sp, "split '%s' is "
                         "an expression of the front end: not translated",
                         v->text);
          else if (!ffm_tl_count (v, sp, 0, &split, error))
            return FALSE;
          else
            l->split = (int) MIN (split, (guint64) V + 1);
        }
      if (spatial)
        l->s_node = node;
      else
        l->t_node = node;
      return TRUE;
    }
  if (strcmp (type, "max_overbooked_proportion") == 0
      || strcmp (type, "utilization") == 0)
    {
      ffm_tl_warn (c->spec, FFM_TL_WARN_CONSTRAINT, node, path, "a %s "
                   "constraint is not translated", type);
      return TRUE;
    }
  return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                      "unknown constraint type '%s' (temporal, spatial, "
                      "dataspace, bypass, max_overbooked_proportion, "
                      "utilization)", type);
}

/* A `constraints:` group written on a node. */
static gboolean
read_group (Ctx *c, Level *l, const FfmTlNode *group, const char *path,
            GError **error)
{
  if (!ffm_tl_check_keys (group, path, group_keys, error))
    return FALSE;
  for (guint i = 0; i < group->n_items; i++)
    {
      g_autofree char *key = ffm_tl_key_normalize (group->items[2 * i]->text);
      g_autofree char *sub = ffm_tl_path_key (path, key);
      if (group->items[2 * i + 1]->kind == FFM_TL_MAPPING
          && group->items[2 * i + 1]->n_items == 0)
        continue;
      if (!read_constraint (c, l, key, group->items[2 * i + 1], sub, error))
        return FALSE;
    }
  return TRUE;
}

/* A list of {target, type, ...}. */
static gboolean
read_targets (Ctx *c, const FfmTlNode *list, const char *path, GError **error)
{
  if (!ffm_tl_require (list, FFM_TL_SEQUENCE, path, error))
    return FALSE;
  for (guint i = 0; i < list->n_items; i++)
    {
      const FfmTlNode *t = list->items[i], *target, *type;
      g_autofree char *sub = ffm_tl_path_index (path, i);
      g_autofree char *tp = ffm_tl_path_key (sub, "target");
      g_autofree char *yp = ffm_tl_path_key (sub, "type");
      const char *name, *kind;
      Level *l;

      if (!ffm_tl_check_keys (t, sub, target_keys, error))
        return FALSE;
      if ((target = ffm_tl_get (t, "target")) == NULL)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, t, sub,
                            "missing key 'target'");
      if ((type = ffm_tl_get (t, "type")) == NULL)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, t, sub,
                            "missing key 'type'");
      if ((name = ffm_tl_string (target, tp, error)) == NULL
          || (kind = ffm_tl_string (type, yp, error)) == NULL)
        return FALSE;
      if ((l = find_target (c, name)) == NULL)
        {
          GString *names = g_string_new (NULL);
          for (guint k = 0; k < c->n_levels; k++)
            g_string_append_printf (names, "%s%s", k ? ", " : "", c->levels[k].name);
          ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, target, tp, "no storage "
                       "level %s (the levels: %s)", name, names->str);
          g_string_free (names, TRUE);
          return FALSE;
        }
      if (!read_constraint (c, l, kind, t, sub, error))
        return FALSE;
    }
  return TRUE;
}

/* ---- The front end's processing ---- */

/* Each branch of a !Parallel bypasses what it does not keep; a data space
 * kept by two branches, or by none, is an error (the front end's). */
static gboolean
parallel_bypass (Ctx *c, const GPtrArray *comps, const GPtrArray *parallels,
                 GError **error)
{
  guint64 all = BIT (c->e->n_accesses) - 1;

  for (guint g = 0; g < parallels->len; g++)
    {
      const FfmTlParallel *p = parallels->pdata[g];
      guint64 seen = 0;
      for (guint b = 0; b < p->keeps->len; b++)
        {
          guint64 mask = 0;
          const FfmTlNode *k = p->keeps->pdata[b];
          if (k != NULL && !read_spaces (c, k, "constraints.dataspace.keep", &mask, error))
            return FALSE;
          if (mask & seen)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, k, "!Parallel",
                                "a data space is kept in two branches of this "
                                "!Parallel (the front end refuses it)");
          seen |= mask;
        }
      if (seen != all)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, p->node, "!Parallel",
                            "a data space is kept in no branch of this "
                            "!Parallel: add a branch `!Nothing {constraints: "
                            "{dataspace: {keep: [...]}}}` for what passes by (the "
                            "front end refuses it too)");
    }
  for (guint i = 0; i < comps->len; i++)
    {
      const FfmTlComp *comp = comps->pdata[i];
      Level *l;
      if (comp->parallel == 0 || (l = find_target (c, comp->base)) == NULL)
        continue;
      l->bypass |= all & ~l->keep;
    }
  return TRUE;
}

/* The front end's permutation optimizer: dimensions with a factor of 1
 * and of size 1 join a permutation (innermost) when it leaves them out. */
static void
complete_permutation (const Ctx *c, guint *perm, guint *n, guint *n_prefix,
                      guint64 known, const guint64 *factors, gboolean has)
{
  if (!has)
    return;
  for (int pass = 0; pass < 2; pass++)
    for (guint v = 0; v < c->e->n_rank_vars; v++)
      {
        gboolean listed = FALSE, add;
        for (guint i = 0; i < *n; i++)
          listed |= perm[i] == v;
        add = pass == 0 ? (known & BIT (v)) && factors[v] == 1
                        : c->e->rank_var_bounds[v] == 1;
        if (listed || !add)
          continue;
        memmove (perm + 1, perm, sizeof (guint) * *n);
        perm[0] = v;
        (*n)++;
        (*n_prefix)++;
      }
}

/* ---- Writing ffm's constraints ---- */

static gboolean
add (FfmConstraints *set, const FfmConstraintSpec *spec, const FfmTlNode *where,
     GError **error)
{
  g_autofree char *origin = where != NULL
    ? g_strdup_printf ("%s:%u", where->file, where->line) : NULL;
  GError *local = NULL;

  if (ffm_constraints_add (set, spec, origin, &local))
    return TRUE;
  g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_INVALID, "%s",
               local->message);
  g_error_free (local);
  return FALSE;
}

static char *
tensor_set (const Ctx *c, guint64 mask)
{
  GString *s = g_string_new (NULL);

  for (guint a = 0; a < c->e->n_accesses; a++)
    if (mask & BIT (a))
      g_string_append_printf (s, "%s%s", s->len ? " | " : "",
                              ffm_workload_get_tensor (c->w, c->e->accesses[a].tensor)->name);
  return g_string_free (s, FALSE);
}

static gboolean
emit (Ctx *c, FfmConstraints *set, GError **error)
{
  guint64 tile[V];
  gboolean known[V];

  for (guint v = 0; v < c->e->n_rank_vars; v++)
    {
      tile[v] = 1;
      known[v] = TRUE;
    }
  /* innermost level first: the tiles */
  for (guint i = c->n_levels; i-- > 0;)
    {
      Level *l = &c->levels[i];
      const char *levels[2] = { l->name, NULL };
      for (guint v = 0; v < c->e->n_rank_vars; v++)
        {
          guint64 f = 1;
          if (!known[v])
            continue;
          if (!(l->t_known & BIT (v)))
            {
              known[v] = FALSE;
              continue;
            }
          f = l->t_factor[v];
          if (l->fanout >= 0)
            {
              if (!(l->s_known & BIT (v)))
                {
                  known[v] = FALSE;
                  continue;
                }
              f *= l->s_factor[v];
            }
          if (!g_uint64_checked_mul (&tile[v], tile[v], f)
              || tile[v] > c->e->rank_var_bounds[v]
              || c->e->rank_var_bounds[v] % tile[v] != 0)
            {
              g_autofree char *up = g_ascii_strup (c->e->rank_var_names[v], -1);
              ffm_tl_warn (c->spec, FFM_TL_WARN_CONSTRAINT, l->t_node, l->name,
                           "the factors of %s at and below %s multiply to a tile "
                           "that does not divide %" G_GUINT64_FORMAT ": not "
                           "translated", up, l->name, c->e->rank_var_bounds[v]);
              known[v] = FALSE;
              continue;
            }
          {
            const char *vars[2] = { c->e->rank_var_names[v], NULL };
            FfmConstraintSpec spec = { 0 };
            spec.kind = FFM_CONSTRAINT_TILE;
            spec.levels = levels;
            spec.rank_vars = vars;
            spec.tile = tile[v];
            if (!add (set, &spec, l->t_node, error))
              return FALSE;
          }
        }
    }
  for (guint i = 0; i < c->n_levels; i++)
    {
      Level *l = &c->levels[i];
      const char *levels[2] = { l->name, NULL };
      FfmConstraintSpec spec = { 0 };

      spec.levels = levels;
      if (l->keep != 0)
        {
          g_autofree char *set_text = tensor_set (c, l->keep);
          spec.kind = FFM_CONSTRAINT_KEEP;
          spec.tensors = set_text;
          if (!add (set, &spec, l->keep_node, error))
            return FALSE;
        }
      if (l->bypass != 0)
        {
          g_autofree char *set_text = tensor_set (c, l->bypass);
          memset (&spec, 0, sizeof spec);
          spec.levels = levels;
          spec.kind = FFM_CONSTRAINT_FORBID;
          spec.tensors = set_text;
          if (!add (set, &spec, l->bypass_node != NULL ? l->bypass_node : l->keep_node,
                    error))
            return FALSE;
        }
      /* Timeloop ignores the temporal permutation of the innermost
       * storage level when no fanout lies below it (the order of loops
       * under every buffer changes no count): so does the translation. */
      if (l->has_t_perm && l->n_t_perm > 1
          && !(i + 1 == c->n_levels && l->fanout < 0))
        {
          const char *vars[V + 1];
          guint n = 0;
          /* outermost first: the suffix, then the prefix, each reversed */
          for (guint k = l->n_t_perm; k-- > l->n_t_prefix;)
            vars[n++] = c->e->rank_var_names[l->t_perm[k]];
          for (guint k = l->n_t_prefix; k-- > 0;)
            vars[n++] = c->e->rank_var_names[l->t_perm[k]];
          vars[n] = NULL;
          memset (&spec, 0, sizeof spec);
          spec.levels = levels;
          spec.kind = FFM_CONSTRAINT_LOOP_ORDER;
          spec.rank_vars = vars;
          if (!add (set, &spec, l->t_node, error))
            return FALSE;
        }
      if (l->fanout >= 0 && l->s_node != NULL)
        {
          const FfmLevel *f = ffm_arch_get_level (c->a, (guint) l->fanout);
          const char *fl[2] = { f->name, NULL };
          gboolean exact = FALSE;
          for (guint v = 0; v < c->e->n_rank_vars; v++)
            exact |= (l->s_known & BIT (v)) && l->s_factor[v] > 1;
          if (exact)
            ffm_tl_warn (c->spec, FFM_TL_WARN_CONSTRAINT, l->s_node, l->name,
                         "spatial factors above 1 are not translated: ffm "
                         "lets the fanout spread those dimensions by any factor");
          for (guint d = 0; d < f->u.fanout.n_dims; d++)
            {
              gboolean y = strcmp (f->u.fanout.dims[d].name, "Y") == 0;
              const char *vars[V + 1];
              guint n = 0;
              for (guint v = 0; v < c->e->n_rank_vars; v++)
                {
                  int pos = -1;
                  gboolean allowed;
                  if ((l->s_known & BIT (v)) && l->s_factor[v] == 1)
                    continue;
                  for (guint k = 0; k < l->n_s_perm; k++)
                    if (l->s_perm[k] == v)
                      pos = (int) k;
                  /* Timeloop: the first `split` loops of the permutation go
                   * along X, the rest along Y; the dimensions it leaves out
                   * follow it (in an order the mapper chooses). Without a
                   * split the mapper tries every split. */
                  if (l->split < 0)
                    allowed = TRUE;
                  else if (pos >= 0)
                    allowed = y ? pos >= l->split : pos < l->split;
                  else
                    allowed = y || (guint) l->split > l->n_s_perm;
                  if (allowed)
                    vars[n++] = c->e->rank_var_names[v];
                }
              vars[n] = NULL;
              if (n == c->e->n_rank_vars)
                continue;       /* every variable: nothing to say */
              if (n == 0)
                {
                  /* nothing may spread: a variable of bound 1 says so */
                  for (guint v = 0; v < c->e->n_rank_vars && n == 0; v++)
                    if (c->e->rank_var_bounds[v] == 1)
                      vars[n++] = c->e->rank_var_names[v];
                  vars[n] = NULL;
                  if (n == 0)
                    {
                      ffm_tl_warn (c->spec, FFM_TL_WARN_CONSTRAINT, l->s_node, l->name,
                                   "dimension %s of %s may spread no problem "
                                   "dimension: not translated",
                                   f->u.fanout.dims[d].name, f->name);
                      continue;
                    }
                }
              memset (&spec, 0, sizeof spec);
              spec.kind = FFM_CONSTRAINT_SPATIAL;
              spec.levels = fl;
              spec.dimension = f->u.fanout.dims[d].name;
              spec.rank_vars = vars;
              if (!add (set, &spec, l->s_node, error))
                return FALSE;
            }
        }
    }
  return TRUE;
}

FfmConstraints *
ffm_timeloop_spec_to_constraints (FfmTimeloopSpec *spec, const FfmWorkload *workload,
                                  const FfmArch *arch, GError **error)
{
  g_autoptr (FfmConstraints) set = NULL;
  g_autoptr (GPtrArray) comps = NULL, parallels = NULL;
  g_autofree guint *path = NULL;
  g_autofree char *name = NULL;
  guint n_path = 0;
  int compute = -1;
  Ctx *c;
  gboolean ok = TRUE;

  g_return_val_if_fail (spec != NULL && workload != NULL && arch != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  name = g_strdup_printf ("timeloop:%s", ffm_tl_spec_get_files (spec));
  set = ffm_constraints_new (name);
  ffm_constraints_set_description (set, "Timeloop's mapspace constraints, translated");
  if (ffm_tl_spec_get (spec, "mapper") != NULL)
    ffm_tl_warn (spec, FFM_TL_WARN_MAPPER, ffm_tl_spec_get_key (spec, "mapper"),
                 "mapper", "Timeloop's mapper settings are not followed: ffm "
                 "searches the constrained mapspace its own way");
  if (ffm_workload_get_n_einsums (workload) != 1 || ffm_tl_spec_get (spec, "architecture") == NULL)
    return g_steal_pointer (&set);
  for (guint l = 0; l < ffm_arch_get_n_levels (arch) && compute < 0; l++)
    if (ffm_arch_get_level (arch, l)->kind == FFM_LEVEL_COMPUTE)
      compute = (int) l;
  if (compute < 0)
    return g_steal_pointer (&set);
  comps = ffm_tl_components (spec, &parallels, error);
  if (comps == NULL)
    return NULL;
  c = g_new0 (Ctx, 1);
  c->spec = spec;
  c->w = workload;
  c->a = arch;
  c->e = ffm_workload_get_einsum (workload, 0);
  path = ffm_arch_get_compute_path (arch, (guint) compute, &n_path);
  for (guint i = 0; i < n_path && c->n_levels < G_N_ELEMENTS (c->levels); i++)
    {
      const FfmLevel *l = ffm_arch_get_level (arch, path[i]);
      if (l->kind == FFM_LEVEL_MEMORY)
        {
          Level *lv = &c->levels[c->n_levels++];
          lv->level = path[i];
          lv->fanout = -1;
          lv->name = l->name;
          lv->split = -1;
        }
      else if (l->kind == FFM_LEVEL_FANOUT && c->n_levels > 0
               && c->levels[c->n_levels - 1].fanout < 0)
        c->levels[c->n_levels - 1].fanout = (int) path[i];
    }
  /* the nodes' own constraints */
  for (guint i = 0; ok && i < comps->len; i++)
    {
      const FfmTlComp *comp = comps->pdata[i];
      g_autofree char *cpath = ffm_tl_path_key (comp->path, "constraints");
      Level *l;
      if (comp->constraints == NULL || (l = find_target (c, comp->base)) == NULL)
        continue;
      l->front_end |= comp->front_end;
      if (comp->kind == FFM_TL_COMP_DUMMY && comp->front_end)
        {
          /* a container's constraints: its spatial ones are its
           * placeholder's */
          const FfmTlNode *sp = ffm_tl_get (comp->constraints, "spatial");
          g_autofree char *sub = ffm_tl_path_key (cpath, "spatial");
          if (!ffm_tl_check_keys (comp->constraints, cpath, group_keys, error))
            ok = FALSE;
          else if (sp != NULL)
            ok = read_constraint (c, l, "spatial", sp, sub, error);
          continue;
        }
      ok = read_group (c, l, comp->constraints, cpath, error);
    }
  /* the target lists */
  for (guint k = 0; ok && list_roots[k] != NULL; k++)
    {
      const FfmTlNode *root = ffm_tl_spec_get (spec, list_roots[k]), *targets;
      g_autofree char *tpath = ffm_tl_path_key (list_roots[k], "targets");
      if (root == NULL)
        continue;
      if (root->kind == FFM_TL_SEQUENCE)
        ok = read_targets (c, root, list_roots[k], error);
      else if ((targets = ffm_tl_get (root, "targets")) != NULL)
        ok = read_targets (c, targets, tpath, error);
      if (ok && root->kind == FFM_TL_MAPPING)
        {
          const FfmTlNode *tmpl = ffm_tl_get (root, "template");
          if (tmpl != NULL && tmpl->kind == FFM_TL_SCALAR
              && strcmp (tmpl->text, "uber") != 0)
            ffm_tl_warn (spec, FFM_TL_WARN_CONSTRAINT, tmpl, list_roots[k],
                         "mapspace template %s is not translated: ffm searches "
                         "the uber mapspace (every loop order, bypass, factor)",
                         tmpl->text);
        }
    }
  if (ok)
    ok = parallel_bypass (c, comps, parallels, error);
  for (guint i = 0; ok && i < c->n_levels; i++)
    {
      Level *l = &c->levels[i];
      complete_permutation (c, l->t_perm, &l->n_t_perm, &l->n_t_prefix,
                            l->t_known, l->t_factor, l->has_t_perm);
      {
        guint prefix = l->n_s_perm;
        complete_permutation (c, l->s_perm, &l->n_s_perm, &prefix,
                              l->s_known, l->s_factor, l->has_s_perm);
      }
    }
  if (ok)
    ok = emit (c, set, error);
  g_free (c);
  if (!ok)
    return NULL;
  return g_steal_pointer (&set);
}
