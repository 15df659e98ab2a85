/* ffm-timeloop-mapping.c: Timeloop mappings to ffm mappings and back.
 *
 * A Timeloop mapping gives, per storage level (outermost first in the
 * nest), the tensors it keeps, its temporal loops (`factors`, and a
 * `permutation` listing them innermost first) and, when a fanout lies below
 * it, its spatial loops (X for the first `split` entries of the
 * permutation, Y for the rest). Literally that is the nest
 *     L0 storage, L0 temporal loops, L0 spatial loops,
 *     L1 storage, L1 temporal loops, ...  compute
 * with loops of one iteration left out.
 *
 * Storage nodes. Timeloop counts a level's fills as the data that changes
 * between consecutive iterations of the loops above it, so a tile stays
 * across the innermost loops above the level that do not index its
 * tensor. An ffm storage node refills its tile on every iteration of
 * every loop above it. So the translation moves each storage node of a
 * tensor (but its first, the backing one) up past every loop right above
 * it that does not index the tensor (spatial loops too: they run in
 * parallel, not one after another) and past other tensors' storage nodes,
 * stopping at a loop whose variable indexes the tensor and at the
 * tensor's storage node in an outer level. The tile held is the same
 * (loops that do not index a tensor do not change its tile); only the
 * refills Timeloop does not count go. A loop whose variable is part of a
 * sum (`p+r`) stops the move: Timeloop would keep the overlap of
 * consecutive tiles, which ffm cannot (a warning says so).
 *
 * Export writes the nest back: each memory's kept tensors, its temporal
 * loops (those between its level boundary and the next), the spatial
 * loops of the fanout below it. A level's boundary is where Timeloop's
 * level would begin: right below the spatial loops of the fanout above
 * it, or, without such loops, right above the first loop that indexes one
 * of its tensors below its storage nodes. Reading the written file back
 * gives the same mapping when the ffm mapping's storage nodes sit where
 * this rule puts them (every mapping this module imports); otherwise the
 * export warns with both costs. */
#include "ffm-timeloop-private.h"
#include <ffm/ffm-cost.h>

#include <string.h>

#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))

static const char *const directive_keys[] = {
  "target", "type", "factors", "permutation", "split", "keep", "bypass", NULL
};

/* A memory on the compute unit's path. */
typedef struct {
  guint level;              /* architecture level */
  int fanout;               /* the fanout right below it, -1 none */
  const char *name;
} Memory;

typedef struct {
  const FfmWorkload *w;
  const FfmArch *a;
  guint einsum;
  const FfmEinsum *e;
  guint compute;
  guint n_memories;
  Memory memories[32];
} Context;

static gboolean
context_init (Context *c, const FfmWorkload *w, const FfmArch *a, guint einsum,
              GError **error)
{
  g_autofree guint *path = NULL;
  guint n_path = 0;
  int compute = -1;

  memset (c, 0, sizeof *c);
  c->w = w;
  c->a = a;
  c->einsum = einsum;
  c->e = ffm_workload_get_einsum (w, einsum);
  for (guint l = 0; l < ffm_arch_get_n_levels (a) && compute < 0; l++)
    {
      gboolean enabled = FALSE;
      if (ffm_arch_get_level (a, l)->kind != FFM_LEVEL_COMPUTE)
        continue;
      if (!ffm_arch_compute_enabled (a, l, w, einsum, &enabled, error))
        return FALSE;
      if (enabled)
        compute = (int) l;
    }
  if (compute < 0)
    {
      g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_INVALID,
                   "architecture %s has no compute unit for Einsum %s",
                   ffm_arch_get_name (a), c->e->name);
      return FALSE;
    }
  c->compute = (guint) compute;
  path = ffm_arch_get_compute_path (a, c->compute, &n_path);
  for (guint i = 0; i < n_path; i++)
    {
      const FfmLevel *l = ffm_arch_get_level (a, path[i]);
      if (l->kind == FFM_LEVEL_MEMORY)
        {
          if (c->n_memories == G_N_ELEMENTS (c->memories))
            {
              g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                           "architecture %s: more than %u memories on a path",
                           ffm_arch_get_name (a), (guint) G_N_ELEMENTS (c->memories));
              return FALSE;
            }
          c->memories[c->n_memories].level = path[i];
          c->memories[c->n_memories].fanout = -1;
          c->memories[c->n_memories].name = l->name;
          c->n_memories++;
        }
      else if (l->kind == FFM_LEVEL_FANOUT && c->n_memories > 0
               && c->memories[c->n_memories - 1].fanout < 0)
        c->memories[c->n_memories - 1].fanout = (int) path[i];
    }
  return TRUE;
}

/* The fanout dimension Timeloop's X (@y FALSE) or Y means: the one named
 * so, else the first or the second; -1 if there is none. */
static int
fanout_dim (const FfmLevel *fanout, gboolean y)
{
  const FfmFanoutSpec *f = &fanout->u.fanout;

  for (guint d = 0; d < f->n_dims; d++)
    if (strcmp (f->dims[d].name, y ? "Y" : "X") == 0)
      return (int) d;
  for (guint d = 0; d < f->n_dims; d++)
    if (strcmp (f->dims[d].name, "X") == 0 || strcmp (f->dims[d].name, "Y") == 0)
      return -1;        /* named X/Y, but not this one */
  return (guint) (y ? 1 : 0) < f->n_dims ? (y ? 1 : 0) : -1;
}

/* TRUE if variable @v indexes a rank of access @a alone (REL_RELEVANT),
 * *@partial if it appears in a sum. */
static gboolean
var_indexes (const FfmEinsum *e, const FfmWorkload *w, guint a, guint v,
             gboolean *partial)
{
  const FfmTensor *t = ffm_workload_get_tensor (w, e->accesses[a].tensor);
  gboolean alone = FALSE;

  *partial = FALSE;
  for (guint r = 0; r < t->n_ranks; r++)
    {
      const FfmProjection *p = &e->accesses[a].projections[r];
      for (guint k = 0; k < p->n_terms; k++)
        if (p->terms[k].var == v)
          {
            if (p->n_terms == 1)
              alone = TRUE;
            else
              *partial = TRUE;
          }
    }
  return alone;
}

/* ---- Import ---- */

typedef struct {
  guint64 factors[FFM_MAX_EINSUM_RANK_VARS];
  guint perm[FFM_MAX_EINSUM_RANK_VARS];   /* innermost first */
  guint n_perm;
  const FfmTlNode *node;                  /* the directive */
} Loops;

typedef struct {
  Loops temporal;
  Loops spatial;
  guint split;
  gboolean has_split;
  guint64 keep;                           /* access mask */
  const FfmTlNode *datatype;
} LevelPlan;

typedef enum {
  ITEM_STORAGE = 1,
  ITEM_LOOP,
} ItemKind;

typedef struct {
  ItemKind kind;
  guint memory;             /* STORAGE: memory index; LOOP: its level's */
  guint access;             /* STORAGE */
  guint var;                /* LOOP */
  guint64 tile;
  gboolean spatial;
  gboolean y;               /* spatial along Y */
  const FfmTlNode *node;
} Item;

static int
find_var (const FfmEinsum *e, const char *dim)
{
  g_autofree char *var = ffm_tl_dimension_var (dim);
  return ffm_einsum_find_rank_var (e, var);
}

static char *
dims_list (const FfmEinsum *e)
{
  GString *s = g_string_new (NULL);

  for (guint v = 0; v < e->n_rank_vars; v++)
    {
      g_autofree char *up = g_ascii_strup (e->rank_var_names[v], -1);
      g_string_append_printf (s, "%s%s", v ? ", " : "", up);
    }
  return g_string_free (s, FALSE);
}

/* "M=4 N=4 K=1" or "M4 N4 K1" */
static gboolean
parse_factors (const Context *c, const FfmTlNode *node, const char *path,
               Loops *loops, GError **error)
{
  const char *text = ffm_tl_string (node, path, error);
  g_auto (GStrv) tokens = NULL;
  guint64 seen = 0;

  if (text == NULL)
    return FALSE;
  tokens = g_strsplit_set (text, " \t,", -1);
  for (guint i = 0; tokens[i] != NULL; i++)
    {
      const char *tok = tokens[i], *eq = strchr (tok, '='), *digits = NULL;
      g_autofree char *dim = NULL;
      char *end = NULL;
      guint64 value;
      int v = -1;

      if (tok[0] == '\0')
        continue;
      if (eq != NULL)
        {
          dim = g_strndup (tok, eq - tok);
          v = find_var (c->e, dim);
          digits = eq + 1;
        }
      else
        /* the longest dimension name followed by digits only */
        for (gsize n = strlen (tok); n > 0 && v < 0; n--)
          {
            g_autofree char *head = g_strndup (tok, n);
            int cand = find_var (c->e, head);
            gboolean all_digits = tok[n] != '\0';
            for (const char *d = tok + n; *d != '\0'; d++)
              all_digits &= g_ascii_isdigit (*d);
            if (cand >= 0 && all_digits)
              {
                v = cand;
                dim = g_steal_pointer (&head);
                digits = tok + n;
              }
          }
      if (v < 0)
        {
          g_autofree char *dims = dims_list (c->e);
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                              "'%s' is not DIMENSION=FACTOR for a dimension "
                              "of the problem (%s)", tok, dims);
        }
      value = g_ascii_strtoull (digits, &end, 10);
      if (end == digits || *end != '\0')
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                            "'%s': the factor of %s is not a whole number",
                            tok, dim);
      if (value == 0)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, node, path,
                            "'%s': a factor 0 (the rest of the dimension) is "
                            "not supported: give the factor", tok);
      if (seen & BIT (v))
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                            "dimension %s has two factors", dim);
      seen |= BIT (v);
      loops->factors[v] = value;
    }
  return TRUE;
}

/* "KNM" (one letter per dimension) or "K N M"; innermost first. */
static gboolean
parse_permutation (const Context *c, const FfmTlNode *node, const char *path,
                   Loops *loops, GError **error)
{
  const char *text = ffm_tl_string (node, path, error);
  guint64 seen = 0;

  if (text == NULL)
    return FALSE;
  for (const char *p = text; *p != '\0';)
    {
      int v = -1;
      gsize len = 0;

      if (g_ascii_isspace (*p) || *p == ',')
        {
          p++;
          continue;
        }
      /* the longest dimension name at p */
      for (gsize n = strlen (p); n > 0 && v < 0; n--)
        {
          g_autofree char *head = g_strndup (p, n);
          if (strpbrk (head, " \t,") == NULL && (v = find_var (c->e, head)) >= 0)
            len = n;
        }
      if (v < 0)
        {
          g_autofree char *dims = dims_list (c->e);
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                              "'%s' from character %d is not a dimension of "
                              "the problem (%s)", text, (int) (p - text) + 1,
                              dims);
        }
      if (seen & BIT (v))
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node, path,
                            "'%s' lists dimension %.*s twice", text, (int) len, p);
      seen |= BIT (v);
      loops->perm[loops->n_perm++] = (guint) v;
      p += len;
    }
  return TRUE;
}

/* Dimensions the permutation leaves out go outermost; one with a factor
 * above 1 is an error (its place is unknown). */
static gboolean
complete_permutation (const Context *c, Loops *loops, const char *path,
                      GError **error)
{
  for (guint v = 0; v < c->e->n_rank_vars; v++)
    {
      gboolean listed = FALSE;
      for (guint i = 0; i < loops->n_perm; i++)
        listed |= loops->perm[i] == v;
      if (listed)
        continue;
      if (loops->factors[v] > 1 && loops->node != NULL)
        {
          g_autofree char *up = g_ascii_strup (c->e->rank_var_names[v], -1);
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, loops->node,
                              path, "the permutation does not place dimension "
                              "%s (factor %" G_GUINT64_FORMAT ")", up,
                              loops->factors[v]);
        }
      loops->perm[loops->n_perm++] = v;
    }
  return TRUE;
}

static gboolean
parse_tensor_list (const Context *c, const FfmTlNode *node, const char *path,
                   guint64 *mask, GError **error)
{
  if (!ffm_tl_require (node, FFM_TL_SEQUENCE, path, error))
    return FALSE;
  *mask = 0;
  for (guint i = 0; i < node->n_items; i++)
    {
      g_autofree char *sub = ffm_tl_path_index (path, i);
      const char *name = ffm_tl_string (node->items[i], sub, error);
      g_autofree char *tensor = NULL;
      int t, a;

      if (name == NULL)
        return FALSE;
      tensor = ffm_tl_tensor_name (name);
      t = ffm_workload_find_tensor (c->w, tensor);
      a = t >= 0 ? ffm_einsum_find_access (c->e, (guint) t) : -1;
      if (a < 0)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, node->items[i],
                            sub, "'%s' is not a data space of the problem", name);
      *mask |= BIT (a);
    }
  return TRUE;
}

static gboolean
parse_directive (const Context *c, const FfmTlNode *d, const char *path,
                 LevelPlan *plans, GError **error)
{
  g_autofree char *target_path = ffm_tl_path_key (path, "target");
  g_autofree char *type_path = ffm_tl_path_key (path, "type");
  g_autofree char *factors_path = ffm_tl_path_key (path, "factors");
  g_autofree char *perm_path = ffm_tl_path_key (path, "permutation");
  g_autofree char *split_path = ffm_tl_path_key (path, "split");
  const FfmTlNode *target, *type, *n;
  const char *target_name, *type_name;
  g_autofree char *level_name = NULL;
  LevelPlan *plan = NULL;
  Loops *loops;
  guint m;

  if (!ffm_tl_check_keys (d, path, directive_keys, error))
    return FALSE;
  if ((target = ffm_tl_get (d, "target")) == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, d, path,
                        "missing key 'target' (a storage level)");
  if ((type = ffm_tl_get (d, "type")) == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, d, path,
                        "missing key 'type' (temporal, spatial or datatype)");
  if ((target_name = ffm_tl_string (target, target_path, error)) == NULL
      || (type_name = ffm_tl_string (type, type_path, error)) == NULL)
    return FALSE;
  level_name = ffm_tl_identifier (target_name);
  for (m = 0; m < c->n_memories; m++)
    if (strcmp (c->memories[m].name, level_name) == 0
        || strcmp (c->memories[m].name, target_name) == 0)
      {
        plan = &plans[m];
        break;
      }
  if (plan == NULL)
    {
      /* The front end's name for a container with a fanout: its placeholder
       * level, inter_NAME_spatial. */
      g_autofree char *dummy = g_strdup_printf ("inter_%s_spatial", level_name);
      for (m = 0; m < c->n_memories; m++)
        if (strcmp (c->memories[m].name, dummy) == 0)
          {
            plan = &plans[m];
            break;
          }
    }
  if (plan == NULL)
    {
      GString *names = g_string_new (NULL);
      for (guint i = 0; i < c->n_memories; i++)
        g_string_append_printf (names, "%s%s", i ? ", " : "", c->memories[i].name);
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, target, target_path,
                   "no storage level %s in architecture %s (its storage "
                   "levels: %s)", target_name, ffm_arch_get_name (c->a),
                   names->str);
      g_string_free (names, TRUE);
      return FALSE;
    }
  if (strcmp (type_name, "datatype") == 0 || strcmp (type_name, "bypass") == 0
      || strcmp (type_name, "dataspace") == 0)
    {
      const FfmTlNode *keep = ffm_tl_get (d, "keep"), *bypass = ffm_tl_get (d, "bypass");
      guint64 kept = 0, bypassed = 0;
      if (plan->datatype != NULL)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, d, path,
                            "a second datatype directive for %s (the first "
                            "at line %u)", target_name, plan->datatype->line);
      plan->datatype = d;
      if (ffm_tl_get (d, "factors") != NULL || ffm_tl_get (d, "permutation") != NULL)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, d, path,
                            "a datatype directive has keep and bypass, not "
                            "factors or a permutation");
      if (keep != NULL)
        {
          g_autofree char *sub = ffm_tl_path_key (path, "keep");
          if (!parse_tensor_list (c, keep, sub, &kept, error))
            return FALSE;
        }
      if (bypass != NULL)
        {
          g_autofree char *sub = ffm_tl_path_key (path, "bypass");
          if (!parse_tensor_list (c, bypass, sub, &bypassed, error))
            return FALSE;
        }
      if (kept & bypassed)
        {
          guint a = (guint) g_bit_nth_lsf (kept & bypassed, -1);
          return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, d, path,
                              "data space %s is both kept and bypassed",
                              ffm_workload_get_tensor (c->w, c->e->accesses[a].tensor)->name);
        }
      plan->keep &= ~bypassed;
      return TRUE;
    }
  if (strcmp (type_name, "temporal") == 0)
    loops = &plan->temporal;
  else if (strcmp (type_name, "spatial") == 0)
    loops = &plan->spatial;
  else
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, type, type_path,
                        "unknown type '%s' (expected temporal, spatial or "
                        "datatype, also written dataspace or bypass)", type_name);
  if (loops->node != NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, d, path,
                        "a second %s directive for %s (the first at line %u)",
                        type_name, target_name, loops->node->line);
  loops->node = d;
  if (ffm_tl_get (d, "keep") != NULL || ffm_tl_get (d, "bypass") != NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, d, path,
                        "keep and bypass belong in a datatype directive");
  if ((n = ffm_tl_get (d, "factors")) != NULL
      && !parse_factors (c, n, factors_path, loops, error))
    return FALSE;
  if ((n = ffm_tl_get (d, "permutation")) != NULL
      && !parse_permutation (c, n, perm_path, loops, error))
    return FALSE;
  if ((n = ffm_tl_get (d, "split")) != NULL)
    {
      guint64 split;
      if (loops == &plan->temporal)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, n, split_path,
                            "split belongs in a spatial directive");
      if (!ffm_tl_count (n, split_path, 0, &split, error))
        return FALSE;
      plan->split = (guint) MIN (split, FFM_MAX_EINSUM_RANK_VARS);
      plan->has_split = TRUE;
    }
  if (loops == &plan->spatial && c->memories[m].fanout < 0)
    for (guint v = 0; v < c->e->n_rank_vars; v++)
      if (loops->factors[v] > 1)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, d, path,
                            "%s has no fanout below it: its spatial factors "
                            "must be 1", target_name);
  return complete_permutation (c, loops, perm_path, error);
}

/* Every dimension's factors multiply to its size. */
static gboolean
check_factors (const Context *c, const LevelPlan *plans, const FfmTlNode *root,
               GError **error)
{
  for (guint v = 0; v < c->e->n_rank_vars; v++)
    {
      guint64 product = 1;
      GString *parts = g_string_new (NULL);
      for (guint m = 0; m < c->n_memories; m++)
        {
          const guint64 t = plans[m].temporal.factors[v], s = plans[m].spatial.factors[v];
          /* factors come from the file: a product too large is not the size */
          if (!g_uint64_checked_mul (&product, product, t)
              || !g_uint64_checked_mul (&product, product, s))
            product = G_MAXUINT64;
          if (t > 1)
            g_string_append_printf (parts, "%s%s %" G_GUINT64_FORMAT,
                                    parts->len > 0 ? ", " : "",
                                    c->memories[m].name, t);
          if (s > 1)
            g_string_append_printf (parts, "%s%s spatial %" G_GUINT64_FORMAT,
                                    parts->len > 0 ? ", " : "",
                                    c->memories[m].name, s);
        }
      if (product != c->e->rank_var_bounds[v])
        {
          g_autofree char *up = g_ascii_strup (c->e->rank_var_names[v], -1);
          ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, root, "mapping",
                       "the factors of dimension %s multiply to %"
                       G_GUINT64_FORMAT " (%s), not its size %"
                       G_GUINT64_FORMAT, up, product,
                       parts->len > 0 ? parts->str : "none",
                       c->e->rank_var_bounds[v]);
          g_string_free (parts, TRUE);
          return FALSE;
        }
      g_string_free (parts, TRUE);
    }
  return TRUE;
}

/* The literal nest: per level its storage items, temporal loops
 * (outermost first), spatial loops; one-iteration loops left out. */
static GArray *
literal_items (const Context *c, const LevelPlan *plans)
{
  GArray *items = g_array_new (FALSE, TRUE, sizeof (Item));
  guint64 tile[FFM_MAX_EINSUM_RANK_VARS];

  for (guint v = 0; v < c->e->n_rank_vars; v++)
    tile[v] = c->e->rank_var_bounds[v];
  for (guint m = 0; m < c->n_memories; m++)
    {
      const LevelPlan *p = &plans[m];
      for (guint a = 0; a < c->e->n_accesses; a++)
        if (p->keep & BIT (a))
          {
            Item it = { ITEM_STORAGE, m, a, 0, 0, FALSE, FALSE,
                        p->datatype != NULL ? p->datatype : p->temporal.node };
            g_array_append_val (items, it);
          }
      for (int s = 0; s < 2; s++)
        {
          const Loops *loops = s ? &p->spatial : &p->temporal;
          guint split = p->has_split ? p->split : loops->n_perm;
          for (guint i = loops->n_perm; i-- > 0;)
            {
              guint v = loops->perm[i];
              guint64 f = loops->factors[v];
              Item it = { ITEM_LOOP, m, 0, v, 0, s == 1, s == 1 && i >= split,
                          loops->node };
              if (f <= 1)
                continue;
              tile[v] /= f;
              it.tile = tile[v];
              g_array_append_val (items, it);
            }
        }
    }
  return items;
}

static gboolean
hoistable_past (const Context *c, const Item *above, guint access)
{
  gboolean partial;

  if (above->kind == ITEM_STORAGE)
    return above->access != access;
  if (above->spatial)
    return TRUE;
  return !var_indexes (c->e, c->w, access, above->var, &partial) && !partial;
}

/* Moves every non-backing storage item up past what Timeloop keeps its
 * tile across (see the top of this file). */
static void
hoist_storage (const Context *c, GArray *items, FfmTimeloopSpec *spec)
{
  guint64 seen = 0;

  for (guint i = 0; i < items->len; i++)
    {
      Item it = g_array_index (items, Item, i);
      guint q = i;

      if (it.kind != ITEM_STORAGE)
        continue;
      if (!(seen & BIT (it.access)))
        {
          seen |= BIT (it.access);
          continue;
        }
      while (q > 0 && hoistable_past (c, &g_array_index (items, Item, q - 1), it.access))
        q--;
      if (q > 0)
        {
          const Item *stop = &g_array_index (items, Item, q - 1);
          gboolean partial = FALSE;
          if (stop->kind == ITEM_LOOP && !stop->spatial
              && !var_indexes (c->e, c->w, it.access, stop->var, &partial) && partial)
            {
              g_autofree char *up = g_ascii_strup (c->e->rank_var_names[stop->var], -1);
              ffm_tl_warn (spec, FFM_TL_WARN_SLIDING_WINDOW, stop->node,
                           "mapping", "Timeloop keeps the "
                           "overlap of consecutive tiles of %s in %s across "
                           "the loop over %s (a sliding window); ffm refills "
                           "the whole tile, so it counts more fills there",
                           ffm_workload_get_tensor (c->w, c->e->accesses[it.access].tensor)->name,
                           c->memories[it.memory].name, up);
            }
        }
      if (q == i)
        continue;
      g_array_remove_index (items, i);
      g_array_insert_val (items, q, it);
    }
}

static FfmMappingNode *
located (FfmMappingNode *node, const FfmTlNode *where, const char *what)
{
  if (where != NULL)
    {
      node->line = (int) where->line;
      node->json_path = g_strdup (what);
    }
  return node;
}

static FfmMapping *
build_mapping (const Context *c, const GArray *items, const char *source)
{
  FfmMapping *mapping = ffm_mapping_new ();
  GPtrArray *root = ffm_mapping_get_root (mapping);

  ffm_mapping_set_source_file (mapping, source);
  ffm_mapping_set_workload_name (mapping, ffm_workload_get_name (c->w));
  ffm_mapping_set_architecture_name (mapping, ffm_arch_get_name (c->a));
  for (guint i = 0; i < items->len;)
    {
      const Item *it = &g_array_index (items, Item, i);
      if (it->kind == ITEM_STORAGE)
        {
          /* consecutive items of one memory make one node, data space order */
          g_autoptr (GPtrArray) names = g_ptr_array_new ();
          g_autofree char *what = g_strdup_printf ("mapping (%s storage)",
                                                   c->memories[it->memory].name);
          guint j = i;
          guint64 mask = 0;
          while (j < items->len && g_array_index (items, Item, j).kind == ITEM_STORAGE
                 && g_array_index (items, Item, j).memory == it->memory)
            mask |= BIT (g_array_index (items, Item, j++).access);
          for (guint a = 0; a < c->e->n_accesses; a++)
            if (mask & BIT (a))
              g_ptr_array_add (names, (gpointer) ffm_workload_get_tensor (
                                 c->w, c->e->accesses[a].tensor)->name);
          g_ptr_array_add (names, NULL);
          g_ptr_array_add (root, located (ffm_mapping_node_new_storage (
                                            (const char *const *) names->pdata,
                                            c->memories[it->memory].name, FALSE),
                                          it->node, what));
          i = j;
          continue;
        }
      if (it->spatial)
        {
          const FfmLevel *f = ffm_arch_get_level (c->a, c->memories[it->memory].fanout);
          g_autofree char *what = g_strdup_printf ("mapping (%s spatial)",
                                                   c->memories[it->memory].name);
          int d = fanout_dim (f, it->y);
          g_ptr_array_add (root, located (ffm_mapping_node_new_spatial (
                                            c->e->rank_var_names[it->var], it->tile,
                                            f->name, d >= 0 ? f->u.fanout.dims[d].name
                                                            : (it->y ? "Y" : "X")),
                                          it->node, what));
        }
      else
        {
          g_autofree char *what = g_strdup_printf ("mapping (%s temporal)",
                                                   c->memories[it->memory].name);
          g_ptr_array_add (root, located (ffm_mapping_node_new_temporal (
                                            c->e->rank_var_names[it->var], it->tile),
                                          it->node, what));
        }
      i++;
    }
  g_ptr_array_add (root, ffm_mapping_node_new_compute (
                     c->e->name, ffm_arch_get_level (c->a, c->compute)->name));
  return mapping;
}

FfmMapping *
ffm_timeloop_spec_to_mapping (FfmTimeloopSpec *spec, const FfmWorkload *workload,
                              const FfmArch *arch, FfmTimeloopMappingFlags flags,
                              GError **error)
{
  const FfmTlNode *root;
  g_autofree LevelPlan *plans = NULL;
  g_autoptr (GArray) items = NULL;
  Context c;

  g_return_val_if_fail (spec != NULL && workload != NULL && arch != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  root = ffm_tl_spec_get (spec, "mapping");
  if (root == NULL)
    {
      g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_MISSING,
                   "%s: no 'mapping' (a Timeloop mapping)",
                   ffm_tl_spec_get_files (spec));
      return NULL;
    }
  if (ffm_workload_get_n_einsums (workload) != 1)
    {
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, root, "mapping",
                   "a Timeloop mapping maps one Einsum; workload %s has %u",
                   ffm_workload_get_name (workload),
                   ffm_workload_get_n_einsums (workload));
      return NULL;
    }
  if (!ffm_tl_require (root, FFM_TL_SEQUENCE, "mapping", error)
      || !context_init (&c, workload, arch, 0, error))
    return NULL;
  plans = g_new0 (LevelPlan, c.n_memories);
  for (guint m = 0; m < c.n_memories; m++)
    {
      guint64 must = 0, may = 0;
      /* A level without a datatype directive keeps what it may keep
       * (everything, except on placeholder levels). */
      if (!ffm_arch_eval_keep (arch, c.memories[m].level, workload, 0, NULL,
                               &must, &may, NULL))
        may = BIT (c.e->n_accesses) - 1;
      plans[m].keep = may;
      for (guint v = 0; v < c.e->n_rank_vars; v++)
        plans[m].temporal.factors[v] = plans[m].spatial.factors[v] = 1;
    }
  for (guint i = 0; i < root->n_items; i++)
    {
      g_autofree char *path = ffm_tl_path_index ("mapping", i);
      if (!parse_directive (&c, root->items[i], path, plans, error))
        return NULL;
    }
  for (guint m = 0; m < c.n_memories; m++)
    if (!complete_permutation (&c, &plans[m].temporal, "mapping", error)
        || !complete_permutation (&c, &plans[m].spatial, "mapping", error))
      return NULL;
  if (plans[0].keep != BIT (c.e->n_accesses) - 1)
    {
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID,
                   plans[0].datatype != NULL ? plans[0].datatype : root, "mapping",
                   "the outermost level, %s, must keep every data space",
                   c.memories[0].name);
      return NULL;
    }
  if (!check_factors (&c, plans, root, error))
    return NULL;
  items = literal_items (&c, plans);
  if (!(flags & FFM_TIMELOOP_MAPPING_LITERAL))
    hoist_storage (&c, items, spec);
  return build_mapping (&c, items, root->file);
}

/* ---- Export ---- */

/* The Timeloop name of rank variable @v: the name of a rank it indexes
 * alone (the problem's dimension when the workload came from Timeloop),
 * else the variable in upper case (transfer full). */
static char *
dimension_name (const Context *c, guint v)
{
  for (guint a = 0; a < c->e->n_accesses; a++)
    {
      const FfmTensor *t = ffm_workload_get_tensor (c->w, c->e->accesses[a].tensor);
      for (guint r = 0; r < t->n_ranks; r++)
        {
          const FfmProjection *p = &c->e->accesses[a].projections[r];
          if (p->n_terms == 1 && p->terms[0].var == v && p->terms[0].coefficient == 1
              && p->offset == 0)
            {
              g_autofree char *lower = g_ascii_strdown (t->rank_names[r], -1);
              if (strcmp (lower, c->e->rank_var_names[v]) == 0)
                return g_strdup (t->rank_names[r]);
            }
        }
    }
  return g_ascii_strup (c->e->rank_var_names[v], -1);
}

typedef struct {
  FfmNodeKind kind;
  guint memory;             /* STORAGE: its memory; loops: assigned level */
  guint64 accesses;         /* STORAGE */
  guint var;                /* loops */
  guint64 factor;           /* loops */
  gboolean y;               /* SPATIAL along Y */
  const FfmMappingNode *node;
} PathItem;

static gboolean
export_fail (GError **error, const FfmMapping *mapping, const FfmMappingNode *node,
             const char *format, ...) G_GNUC_PRINTF (4, 5);

static gboolean
export_fail (GError **error, const FfmMapping *mapping, const FfmMappingNode *node,
             const char *format, ...)
{
  g_autofree char *message = NULL;
  GString *s = g_string_new (NULL);
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (ffm_mapping_get_source_file (mapping) != NULL)
    g_string_append_printf (s, "%s:", ffm_mapping_get_source_file (mapping));
  if (node != NULL && node->line > 0)
    g_string_append_printf (s, "%d:", node->line);
  if (s->len > 0)
    g_string_append_c (s, ' ');
  if (node != NULL && node->json_path != NULL)
    g_string_append_printf (s, "%s: ", node->json_path);
  g_string_append (s, message);
  g_set_error_literal (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                       s->str);
  g_string_free (s, TRUE);
  return FALSE;
}

static int
memory_of_level (const Context *c, const char *name)
{
  for (guint m = 0; m < c->n_memories; m++)
    if (strcmp (c->memories[m].name, name) == 0)
      return (int) m;
  return -1;
}

/* The memory above the fanout a spatial node names (the fanout itself or
 * the level right below it), and whether its dimension is Timeloop's Y. */
static int
memory_above_fanout (const Context *c, const FfmMappingNode *node, gboolean *y)
{
  int level = node->level != NULL ? ffm_arch_find_level (c->a, node->level) : -1;
  const FfmLevel *f;

  if (level > 0 && ffm_arch_get_level (c->a, level)->kind != FFM_LEVEL_FANOUT
      && ffm_arch_get_level (c->a, level - 1)->kind == FFM_LEVEL_FANOUT)
    level--;
  if (level < 0)
    return -1;
  f = ffm_arch_get_level (c->a, level);
  for (guint m = 0; m < c->n_memories; m++)
    if (c->memories[m].fanout == level)
      {
        *y = node->dimension != NULL && fanout_dim (f, TRUE) >= 0
             && strcmp (f->u.fanout.dims[fanout_dim (f, TRUE)].name, node->dimension) == 0;
        if (f->u.fanout.n_dims > 2)
          return -2;
        return (int) m;
      }
  return -1;
}

/* The level boundaries (see the top of this file): boundary[m] is the
 * position in @items where memory m's Timeloop level begins. Below the
 * spatial loops of the fanout above it, when there are some; else as low as
 * the level above can reach: past the level's storage nodes, not past a
 * loop that indexes one of their tensors, a spatial loop of the level's
 * own fanout, or a second loop over a variable the level above has. */
static void
level_boundaries (const Context *c, const GPtrArray *items, guint *boundary)
{
  boundary[0] = 0;
  for (guint m = 1; m < c->n_memories; m++)
    {
      int last_spatial = -1;
      guint lo = boundary[m - 1], hi = items->len;
      guint64 used = 0;

      for (guint i = 0; i < items->len; i++)
        {
          const PathItem *it = items->pdata[i];
          if (it->kind == FFM_NODE_SPATIAL && it->memory == m - 1)
            last_spatial = (int) i;
          if (it->kind == FFM_NODE_SPATIAL && it->memory == m)
            hi = MIN (hi, i);
          if (it->kind != FFM_NODE_STORAGE || it->memory != m)
            continue;
          lo = MAX (lo, i + 1);
          /* the first loop below that indexes one of its tensors */
          for (guint j = i + 1; j < items->len; j++)
            {
              const PathItem *below = items->pdata[j];
              gboolean stop = FALSE, partial;
              if (below->kind == FFM_NODE_TEMPORAL)
                for (guint a = 0; a < c->e->n_accesses && !stop; a++)
                  if (it->accesses & BIT (a))
                    stop = var_indexes (c->e, c->w, a, below->var, &partial) || partial;
              if (below->kind == FFM_NODE_STORAGE && (below->accesses & it->accesses))
                stop = TRUE;
              if (stop)
                {
                  hi = MIN (hi, j);
                  break;
                }
            }
        }
      if (last_spatial >= 0)
        {
          boundary[m] = MAX ((guint) last_spatial + 1, boundary[m - 1]);
          continue;
        }
      for (guint i = boundary[m - 1]; i < lo; i++)
        if (((PathItem *) items->pdata[i])->kind == FFM_NODE_TEMPORAL)
          used |= BIT (((PathItem *) items->pdata[i])->var);
      while (lo < hi)
        {
          const PathItem *it = items->pdata[lo];
          if (it->kind == FFM_NODE_TEMPORAL && (used & BIT (it->var)))
            break;
          if (it->kind == FFM_NODE_TEMPORAL)
            used |= BIT (it->var);
          lo++;
        }
      boundary[m] = lo;
    }
}

static void
append_directive_loops (GString *s, const Context *c, const char *target,
                        const char *type, const GPtrArray *items, guint memory,
                        FfmNodeKind kind)
{
  guint64 factors[FFM_MAX_EINSUM_RANK_VARS];
  guint order[FFM_MAX_EINSUM_RANK_VARS], n = 0, n_x = 0;
  gboolean listed[FFM_MAX_EINSUM_RANK_VARS] = { FALSE };
  gboolean single_letters = TRUE;
  g_autoptr (GPtrArray) dims = g_ptr_array_new_with_free_func (g_free);

  for (guint v = 0; v < c->e->n_rank_vars; v++)
    {
      char *d = dimension_name (c, v);
      single_letters &= strlen (d) == 1;
      g_ptr_array_add (dims, d);
      factors[v] = 1;
    }
  /* innermost first: X loops, then Y loops, then the others */
  for (int pass = 0; pass < 2; pass++)
    for (guint i = items->len; i-- > 0;)
      {
        const PathItem *it = items->pdata[i];
        if (it->kind != kind || it->memory != memory || (kind == FFM_NODE_SPATIAL
                                                         && it->y != (pass == 1)))
          continue;
        if (kind == FFM_NODE_TEMPORAL && pass == 1)
          continue;
        factors[it->var] = it->factor;
        order[n++] = it->var;
        listed[it->var] = TRUE;
        n_x += pass == 0;
      }
  for (guint v = 0; v < c->e->n_rank_vars; v++)
    if (!listed[v])
      order[n++] = v;
  g_string_append_printf (s, "- target: %s\n  type: %s\n  factors:", target, type);
  for (guint v = 0; v < c->e->n_rank_vars; v++)
    g_string_append_printf (s, " %s=%" G_GUINT64_FORMAT, (char *) dims->pdata[v],
                            factors[v]);
  g_string_append (s, "\n  permutation: ");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s", i > 0 && !single_letters ? " " : "",
                            (char *) dims->pdata[order[i]]);
  g_string_append_c (s, '\n');
  if (kind == FFM_NODE_SPATIAL)
    g_string_append_printf (s, "  split: %u\n", n_x);
}

static void
append_tensor_list (GString *s, const Context *c, const char *key, guint64 mask)
{
  gboolean first = TRUE;

  g_string_append_printf (s, "  %s: [", key);
  for (guint a = 0; a < c->e->n_accesses; a++)
    if (mask & BIT (a))
      {
        const char *name = ffm_workload_get_tensor (c->w, c->e->accesses[a].tensor)->name;
        g_string_append_printf (s, "%s%s", first ? "" : ", ", name);
        first = FALSE;
      }
  g_string_append (s, "]\n");
}

/* Reads @yaml back and compares its cost with @mapping's. */
static void
check_reading (const Context *c, const FfmMapping *mapping, const char *yaml,
               GPtrArray *warnings)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = ffm_timeloop_spec_load_data (yaml, "export",
                                                                  &error);
  g_autoptr (FfmMapping) back = NULL;
  g_autoptr (FfmCostReport) mine = NULL, theirs = NULL;

  if (spec != NULL)
    back = ffm_timeloop_spec_to_mapping (spec, c->w, c->a,
                                         FFM_TIMELOOP_MAPPING_DEFAULT, &error);
  if (back != NULL)
    theirs = ffm_cost_evaluate_mapping (c->w, c->a, back, &error);
  if (theirs != NULL)
    mine = ffm_cost_evaluate_mapping (c->w, c->a, mapping, &error);
  if (mine == NULL)
    {
      g_ptr_array_add (warnings, g_strdup_printf ("the written mapping could "
                                                  "not be checked: %s",
                                                  error->message));
      return;
    }
  if (ffm_cost_report_get_energy (mine) != ffm_cost_report_get_energy (theirs)
      || ffm_cost_report_get_latency (mine) != ffm_cost_report_get_latency (theirs))
    g_ptr_array_add (warnings, g_strdup_printf (
      "Timeloop reads this map.yaml as a mapping that costs %.10g J and %.10g "
      "s in ffm's model, where the ffm mapping costs %.10g J and %.10g s: "
      "some storage node refills a tile across a loop that does not index "
      "its tensor, which Timeloop keeps (docs/timeloop.md, \"Storage "
      "nodes\")", ffm_cost_report_get_energy (theirs),
      ffm_cost_report_get_latency (theirs), ffm_cost_report_get_energy (mine),
      ffm_cost_report_get_latency (mine)));
}

char *
ffm_timeloop_mapping_to_yaml (const FfmMapping *mapping, const FfmWorkload *workload,
                              const FfmArch *arch, GPtrArray *warnings,
                              GError **error)
{
  const GPtrArray *root;
  const FfmMappingNode *compute;
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) s = g_string_new (NULL);
  guint64 tile[FFM_MAX_EINSUM_RANK_VARS];
  guint boundary[G_N_ELEMENTS (((Context *) 0)->memories)];
  guint64 keep[G_N_ELEMENTS (((Context *) 0)->memories)] = { 0 };
  g_autoptr (GError) cost_error = NULL;
  g_autoptr (FfmCostReport) report = NULL;
  int einsum;
  Context c;

  g_return_val_if_fail (mapping != NULL && workload != NULL && arch != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  root = ffm_mapping_peek_root (mapping);
  for (guint i = 0; i < root->len; i++)
    if (((FfmMappingNode *) root->pdata[i])->kind == FFM_NODE_SEQUENTIAL)
      {
        export_fail (error, mapping, root->pdata[i], "a Timeloop mapping maps "
                     "one Einsum: this mapping has a split (fused Einsums)");
        return NULL;
      }
  compute = root->len > 0 ? root->pdata[root->len - 1] : NULL;
  einsum = compute != NULL && compute->kind == FFM_NODE_COMPUTE
    ? ffm_workload_find_einsum (workload, compute->einsum) : -1;
  if (einsum < 0)
    {
      export_fail (error, mapping, compute, "the mapping does not end in a "
                   "compute node of an Einsum of workload %s",
                   ffm_workload_get_name (workload));
      return NULL;
    }
  /* A mapping the cost model refuses is refused here too, naming the node. */
  report = ffm_cost_evaluate_mapping (workload, arch, mapping, &cost_error);
  if (report == NULL && ffm_workload_get_n_einsums (workload) == 1)
    {
      g_propagate_error (error, g_steal_pointer (&cost_error));
      return NULL;
    }
  if (!context_init (&c, workload, arch, (guint) einsum, error))
    return NULL;
  if (ffm_arch_get_level (arch, c.compute)->name == NULL
      || strcmp (compute->level, ffm_arch_get_level (arch, c.compute)->name) != 0)
    {
      export_fail (error, mapping, compute, "compute node on %s: the Einsum "
                   "runs on %s", compute->level,
                   ffm_arch_get_level (arch, c.compute)->name);
      return NULL;
    }

  for (guint v = 0; v < c.e->n_rank_vars; v++)
    tile[v] = c.e->rank_var_bounds[v];
  for (guint i = 0; i + 1 < root->len; i++)
    {
      const FfmMappingNode *node = root->pdata[i];
      PathItem *it = g_new0 (PathItem, 1);
      it->kind = node->kind;
      it->node = node;
      g_ptr_array_add (items, it);
      if (node->kind == FFM_NODE_STORAGE)
        {
          int m = memory_of_level (&c, node->level);
          if (m < 0)
            {
              export_fail (error, mapping, node, "%s is not a memory on the "
                           "path of %s", node->level,
                           ffm_arch_get_level (arch, c.compute)->name);
              return NULL;
            }
          it->memory = (guint) m;
          for (guint k = 0; node->tensors[k] != NULL; k++)
            {
              int t = ffm_workload_find_tensor (workload, node->tensors[k]);
              int a = t >= 0 ? ffm_einsum_find_access (c.e, (guint) t) : -1;
              if (a >= 0)
                it->accesses |= BIT (a);
            }
          keep[m] |= it->accesses;
          continue;
        }
      {
        const char *var = ffm_mapping_node_get_rank_var_for (node, c.e->name);
        int v = ffm_einsum_find_rank_var (c.e, var);
        if (v < 0 || node->tile == 0 || tile[v] % node->tile != 0)
          {
            export_fail (error, mapping, node, "the loop over %s does not "
                         "divide its rank variable of Einsum %s", var, c.e->name);
            return NULL;
          }
        it->var = (guint) v;
        it->factor = tile[v] / node->tile;
        tile[v] = node->tile;
      }
      if (node->kind == FFM_NODE_SPATIAL)
        {
          int m = memory_above_fanout (&c, node, &it->y);
          if (m < 0)
            {
              export_fail (error, mapping, node, m == -2
                           ? "fanout %s has more than two dimensions: Timeloop's "
                             "fanouts have X and Y"
                           : "%s is not a fanout below a memory on the path",
                           node->level);
              return NULL;
            }
          it->memory = (guint) m;
        }
    }
  for (guint a = 0; a < c.e->n_accesses; a++)
    if (!(keep[0] & BIT (a)))
      {
        export_fail (error, mapping, root->pdata[0], "tensor %s is not kept in "
                     "%s: Timeloop's outermost level keeps every tensor",
                     ffm_workload_get_tensor (workload, c.e->accesses[a].tensor)->name,
                     c.memories[0].name);
        return NULL;
      }

  /* Loops of one iteration say nothing. */
  for (guint i = items->len; i-- > 0;)
    if (((PathItem *) items->pdata[i])->kind != FFM_NODE_STORAGE
        && ((PathItem *) items->pdata[i])->factor <= 1)
      g_ptr_array_remove_index (items, i);
  level_boundaries (&c, items, boundary);
  for (guint i = 0; i < items->len; i++)
    {
      PathItem *it = items->pdata[i];
      if (it->kind != FFM_NODE_TEMPORAL)
        continue;
      it->memory = 0;
      for (guint m = 0; m < c.n_memories; m++)
        if (boundary[m] <= i)
          it->memory = m;
    }
  /* One loop per dimension per level: Timeloop has one factor each. */
  for (guint i = 0; i < items->len; i++)
    {
      PathItem *x = items->pdata[i];
      if (x->kind == FFM_NODE_STORAGE)
        continue;
      for (guint j = 0; j < i; j++)
        {
          const PathItem *y = items->pdata[j];
          if (y->kind == x->kind && y->memory == x->memory && y->var == x->var)
            {
              export_fail (error, mapping, x->node, "a second %s loop over %s "
                           "in %s's level: Timeloop has one factor per "
                           "dimension per level", x->kind == FFM_NODE_SPATIAL
                           ? "spatial" : "temporal",
                           c.e->rank_var_names[x->var], c.memories[x->memory].name);
              return NULL;
            }
        }
    }
  g_string_append_printf (s, "# Timeloop mapping of Einsum %s (workload %s) on "
                          "architecture %s, written by ffm export timeloop%s%s.\n"
                          "# Permutations list loops innermost first.\n"
                          "mapping:\n", c.e->name, ffm_workload_get_name (workload),
                          ffm_arch_get_name (arch),
                          ffm_mapping_get_source_file (mapping) ? " from " : "",
                          ffm_mapping_get_source_file (mapping)
                          ? ffm_mapping_get_source_file (mapping) : "");
  for (guint m = 0; m < c.n_memories; m++)
    {
      g_string_append_printf (s, "- target: %s\n  type: datatype\n",
                              c.memories[m].name);
      append_tensor_list (s, &c, "keep", keep[m]);
      append_tensor_list (s, &c, "bypass", (BIT (c.e->n_accesses) - 1) & ~keep[m]);
      append_directive_loops (s, &c, c.memories[m].name, "temporal", items, m,
                              FFM_NODE_TEMPORAL);
      if (c.memories[m].fanout >= 0)
        append_directive_loops (s, &c, c.memories[m].name, "spatial", items, m,
                                FFM_NODE_SPATIAL);
    }
  if (warnings != NULL)
    check_reading (&c, mapping, s->str, warnings);
  return g_string_free (g_steal_pointer (&s), FALSE);
}
