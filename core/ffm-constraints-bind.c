/* ffm-constraints-bind.c: constraints checked against one workload and
 * architecture and resolved per Einsum (ffm-constraints-private.h), and
 * the definition of the constrained mapspace as a predicate on pmappings
 * (ffm_bound_constraints_admit_pmapping()).
 *
 * Tensor constraints (fuse, unfuse, backing, keep, forbid) are about
 * tensors, not Einsums: a set expression is evaluated in every Einsum's
 * scope (roles such as `weight` differ per Einsum), and a tensor it selects
 * anywhere is constrained in every Einsum that touches it, so that the
 * producer and the consumers of a shared tensor always agree on where it
 * is backed (otherwise no pmappings of theirs could join). Contradictions
 * are found per tensor after every constraint is applied, and name every
 * constraint involved. */
#include "ffm-constraints-private.h"

#include <string.h>

#define INVALID FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_INVALID
#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))
#define ALL_ONES G_MAXUINT64

struct _FfmBoundConstraints {
  FfmConstraints *constraints;  /* a copy of what was bound */
  FfmWorkload *workload;        /* references */
  FfmArch *arch;
  guint n_einsums;
  FfmEinsumConstraints *einsums;  /* [n_einsums] */
};

/* Per tensor, while binding. */
typedef struct {
  guint64 backing;          /* levels it may be backed at */
  guint64 keep;             /* levels it must be kept at */
  guint64 forbid;           /* levels it may not be kept at */
  guint64 backing_entries;  /* constraints that restricted each */
  guint64 keep_entries;
  guint64 forbid_entries;
} TensorBinding;

typedef struct {
  const FfmConstraints *c;
  const FfmWorkload *w;
  const FfmArch *a;
  guint n_levels;
  FfmEinsumConstraints *ec;     /* [n_einsums] */
  TensorBinding *tb;            /* [n_tensors] */
  int *stationary_entry;        /* [n_einsums * 64]: entry that set it, -1 */
  int *max_fused_entry;         /* [n_einsums] */
  guint64 skip;                 /* entries left out (bit i), for _without */
  GError **error;
} Binder;

static guint64
entry_bit (guint index)
{
  return BIT (MIN (index, 63u));
}

/* ---- Names ---- */

static char *
level_names (const FfmArch *a, FfmLevelKind kind)
{
  GString *s = g_string_new (NULL);

  for (guint l = 0; l < ffm_arch_get_n_levels (a); l++)
    if (ffm_arch_get_level (a, l)->kind == kind)
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", ffm_arch_get_level (a, l)->name);
  return g_string_free (s, FALSE);
}

/* Level @name of kind @kind, or -1 with the error set. */
static int
find_level (Binder *B, const FfmConstraintEntry *e, const char *name,
            FfmLevelKind kind)
{
  int l = ffm_arch_find_level (B->a, name);
  const char *what = kind == FFM_LEVEL_FANOUT ? "fanout" : "memory";
  const char *whats = kind == FFM_LEVEL_FANOUT ? "fanouts" : "memories";

  if (l < 0 || ffm_arch_get_level (B->a, l)->kind != kind)
    {
      g_autofree char *names = level_names (B->a, kind);
      g_set_error (B->error, INVALID, "%s: %s: %s %s '%s' (the %s of "
                   "architecture %s: %s)", e->origin,
                   ffm_constraint_kind_to_string (e->spec.kind),
                   l < 0 ? "unknown" : "not a", what, name, whats,
                   ffm_arch_get_name (B->a), names[0] ? names : "none");
      return -1;
    }
  if (l >= FFM_CONSTRAINTS_MAX_LEVELS)
    {
      g_set_error (B->error, INVALID, "%s: level %s: constraints reach only the "
                   "first %d levels of an architecture", e->origin, name,
                   FFM_CONSTRAINTS_MAX_LEVELS);
      return -1;
    }
  return l;
}

/* The levels of @e as a mask, or 0 with the error set. */
static guint64
level_mask (Binder *B, const FfmConstraintEntry *e)
{
  guint64 mask = 0;

  for (guint i = 0; e->levels != NULL && e->levels[i] != NULL; i++)
    {
      int l = find_level (B, e, e->levels[i], FFM_LEVEL_MEMORY);
      if (l < 0)
        return 0;
      mask |= BIT (l);
    }
  return mask;
}

/* The Einsums @e selects: *@explicit is TRUE when it names them. FALSE
 * with the error set for an unknown name. */
static gboolean
select_einsums (Binder *B, const FfmConstraintEntry *e, gboolean *selected,
                gboolean *explicit)
{
  guint n = ffm_workload_get_n_einsums (B->w);

  *explicit = e->einsums != NULL;
  for (guint i = 0; i < n; i++)
    selected[i] = !*explicit;
  for (guint k = 0; e->einsums != NULL && e->einsums[k] != NULL; k++)
    {
      int i = ffm_workload_find_einsum (B->w, e->einsums[k]);
      if (i < 0)
        {
          GString *names = g_string_new (NULL);
          for (guint j = 0; j < n; j++)
            g_string_append_printf (names, "%s%s", j ? ", " : "",
                                    ffm_workload_get_einsum (B->w, j)->name);
          g_set_error (B->error, INVALID, "%s: %s: unknown Einsum '%s' (the "
                       "Einsums of workload %s: %s)", e->origin,
                       ffm_constraint_kind_to_string (e->spec.kind), e->einsums[k],
                       ffm_workload_get_name (B->w), names->str);
          g_string_free (names, TRUE);
          return FALSE;
        }
      selected[i] = TRUE;
    }
  return TRUE;
}

static gboolean
unknown_rank_var (Binder *B, const FfmConstraintEntry *e, const FfmEinsum *es,
                  const char *var)
{
  GString *names = g_string_new (NULL);

  for (guint v = 0; v < es->n_rank_vars; v++)
    g_string_append_printf (names, "%s%s", v ? ", " : "", es->rank_var_names[v]);
  g_set_error (B->error, INVALID, "%s: %s: Einsum %s has no rank variable '%s' "
               "(its rank variables: %s)", e->origin,
               ffm_constraint_kind_to_string (e->spec.kind), es->name, var, names->str);
  g_string_free (names, TRUE);
  return FALSE;
}

/* ---- Tensor sets ---- */

typedef struct {
  const FfmWorkload *w;
  const char *unknown;
} NameCheck;

static void
check_identifier (const char *name, gpointer data)
{
  NameCheck *nc = data;
  FfmEinsumSetScope scope;
  FfmValue value;

  if (nc->unknown != NULL)
    return;
  ffm_einsum_set_scope_init (&scope, nc->w, 0, NULL);
  if (!scope.scope.resolve (name, &value, scope.scope.user_data)
      || value.type != FFM_VALUE_SET)
    nc->unknown = name;
}

/* Evaluates @e's tensor set in every Einsum: @per_einsum[i] = the accesses
 * of Einsum i, @tensors[t] = TRUE for every tensor selected somewhere. */
static gboolean
eval_tensors (Binder *B, const FfmConstraintEntry *e, guint64 *per_einsum,
              gboolean *tensors)
{
  NameCheck nc = { B->w, NULL };
  guint n_einsums = ffm_workload_get_n_einsums (B->w);
  gboolean any = FALSE;

  ffm_expr_foreach_identifier (e->tensors_expr, check_identifier, &nc);
  if (nc.unknown != NULL)
    {
      g_set_error (B->error, INVALID, "%s: %s \"%s\": unknown tensor '%s' "
                   "(workload %s has no tensor of that name, and it is no tensor "
                   "class: all, nothing, inputs, outputs, intermediates, shared, "
                   "persistent, input, weight, output)", e->origin,
                   ffm_constraint_kind_to_string (e->spec.kind), e->tensors,
                   nc.unknown, ffm_workload_get_name (B->w));
      return FALSE;
    }
  memset (tensors, 0, sizeof (gboolean) * ffm_workload_get_n_tensors (B->w));
  for (guint i = 0; i < n_einsums; i++)
    {
      const FfmEinsum *es = ffm_workload_get_einsum (B->w, i);
      FfmEinsumSetScope scope;
      GError *local = NULL;

      ffm_einsum_set_scope_init (&scope, B->w, i, NULL);
      if (!ffm_expr_evaluate_set (e->tensors_expr, &scope.scope, &per_einsum[i], &local))
        {
          g_set_error (B->error, INVALID, "%s: %s \"%s\" in Einsum %s: %s",
                       e->origin, ffm_constraint_kind_to_string (e->spec.kind),
                       e->tensors, es->name, local->message);
          g_error_free (local);
          return FALSE;
        }
      for (guint a = 0; a < es->n_accesses; a++)
        if (per_einsum[i] & BIT (a))
          {
            tensors[es->accesses[a].tensor] = TRUE;
            any = TRUE;
          }
    }
  if (!any)
    {
      g_set_error (B->error, INVALID, "%s: %s \"%s\" selects no tensor of workload %s",
                   e->origin, ffm_constraint_kind_to_string (e->spec.kind),
                   e->tensors, ffm_workload_get_name (B->w));
      return FALSE;
    }
  return TRUE;
}

static gboolean
bind_tensor_entry (Binder *B, const FfmConstraintEntry *e, guint index)
{
  guint n_tensors = ffm_workload_get_n_tensors (B->w);
  guint n_einsums = ffm_workload_get_n_einsums (B->w);
  g_autofree guint64 *per_einsum = g_new0 (guint64, MAX (n_einsums, 1));
  g_autofree gboolean *tensors = g_new0 (gboolean, MAX (n_tensors, 1));
  guint64 levels = 0;
  FfmConstraintKind kind = e->spec.kind;

  if (!eval_tensors (B, e, per_einsum, tensors))
    return FALSE;
  if (e->levels != NULL && (levels = level_mask (B, e)) == 0)
    return FALSE;
  if (kind == FFM_CONSTRAINT_FUSE || kind == FFM_CONSTRAINT_UNFUSE)
    {
      for (guint t = 0; t < n_tensors; t++)
        if (tensors[t] && !(ffm_workload_get_tensor (B->w, t)->classes & FFM_TENSOR_SHARED))
          {
            g_set_error (B->error, INVALID, "%s: %s \"%s\" selects %s, which no two "
                         "Einsums share (only tensors passed between Einsums can be "
                         "fused; select them with `shared` or `intermediates`)",
                         e->origin, ffm_constraint_kind_to_string (kind), e->tensors,
                         ffm_workload_get_tensor (B->w, t)->name);
            return FALSE;
          }
      if (kind == FFM_CONSTRAINT_FUSE && (levels & BIT (0)))
        {
          g_set_error (B->error, INVALID, "%s: fuse at %s: that is the outermost "
                       "memory, where unfused tensors are backed (use unfuse)",
                       e->origin, ffm_arch_get_level (B->a, 0)->name);
          return FALSE;
        }
      if (kind == FFM_CONSTRAINT_UNFUSE)
        levels = BIT (0);
      else if (levels == 0)
        levels = ALL_ONES & ~BIT (0);
    }
  for (guint t = 0; t < n_tensors; t++)
    {
      TensorBinding *tb = &B->tb[t];
      if (!tensors[t])
        continue;
      switch (kind)
        {
        case FFM_CONSTRAINT_KEEP:
          tb->keep |= levels;
          tb->keep_entries |= entry_bit (index);
          break;
        case FFM_CONSTRAINT_FORBID:
          tb->forbid |= levels;
          tb->forbid_entries |= entry_bit (index);
          break;
        default:
          tb->backing &= levels;
          tb->backing_entries |= entry_bit (index);
          break;
        }
    }
  return TRUE;
}

/* ---- Einsum constraints ---- */

static gboolean
bind_stationary (Binder *B, const FfmConstraintEntry *e, guint index,
                 const gboolean *selected)
{
  guint n_einsums = ffm_workload_get_n_einsums (B->w);
  g_autofree guint64 *per_einsum = g_new0 (guint64, MAX (n_einsums, 1));
  g_autofree gboolean *tensors = g_new0 (gboolean, MAX (ffm_workload_get_n_tensors (B->w), 1));
  int l;

  if (!eval_tensors (B, e, per_einsum, tensors))
    return FALSE;
  if ((l = find_level (B, e, e->levels[0], FFM_LEVEL_MEMORY)) < 0)
    return FALSE;
  if (l == 0)
    {
      /* Its tiles are whole tensors above every loop: no dataflow to set. */
      g_set_error (B->error, INVALID, "%s: stationary at %s: that is the outermost "
                   "memory, which holds whole tensors; name a memory below it",
                   e->origin, e->levels[0]);
      return FALSE;
    }
  for (guint i = 0; i < n_einsums; i++)
    {
      int *set_by = &B->stationary_entry[(gsize) i * FFM_CONSTRAINTS_MAX_LEVELS + l];
      if (!selected[i])
        continue;
      if (*set_by >= 0 && B->ec[i].stationary[l] != per_einsum[i])
        {
          g_autofree char *other = ffm_constraints_describe (B->c, (guint) *set_by);
          g_set_error (B->error, INVALID, "%s: stationary \"%s\" at %s contradicts "
                       "%s in Einsum %s: one memory has one dataflow", e->origin,
                       e->tensors, e->levels[0], other,
                       ffm_workload_get_einsum (B->w, i)->name);
          return FALSE;
        }
      *set_by = (int) index;
      B->ec[i].stationary[l] = per_einsum[i];
      B->ec[i].entries |= entry_bit (index);
    }
  return TRUE;
}

/* The rank variables of @e that Einsum @i has, as indices; *@n_found of
 * them. FALSE with the error set when @explicit and one is missing. */
static gboolean
map_rank_vars (Binder *B, const FfmConstraintEntry *e, guint i, gboolean explicit,
               guint *vars, guint *n_found)
{
  const FfmEinsum *es = ffm_workload_get_einsum (B->w, i);

  *n_found = 0;
  for (guint k = 0; e->rank_vars[k] != NULL; k++)
    {
      int v = ffm_einsum_find_rank_var (es, e->rank_vars[k]);
      if (v < 0)
        {
          if (explicit)
            return unknown_rank_var (B, e, es, e->rank_vars[k]);
          continue;
        }
      vars[(*n_found)++] = (guint) v;
    }
  return TRUE;
}

static gboolean
none_applies (Binder *B, const FfmConstraintEntry *e)
{
  GString *vars = g_string_new (NULL);

  for (guint k = 0; e->rank_vars[k] != NULL; k++)
    g_string_append_printf (vars, "%s%s", k ? ", " : "", e->rank_vars[k]);
  g_set_error (B->error, INVALID, "%s: %s: no Einsum of workload %s has rank "
               "variable%s %s", e->origin, ffm_constraint_kind_to_string (e->spec.kind),
               ffm_workload_get_name (B->w), e->rank_vars[1] != NULL ? "s" : "",
               vars->str);
  g_string_free (vars, TRUE);
  return FALSE;
}

static gboolean
bind_loop_order (Binder *B, const FfmConstraintEntry *e, guint index,
                 const gboolean *selected, gboolean explicit)
{
  guint n_listed = g_strv_length (e->rank_vars), applied = 0;
  int l;

  if ((l = find_level (B, e, e->levels[0], FFM_LEVEL_MEMORY)) < 0)
    return FALSE;
  for (guint i = 0; i < ffm_workload_get_n_einsums (B->w); i++)
    {
      FfmEinsumConstraints *ec = &B->ec[i];
      FfmLoopOrderConstraint o = { (guint) l, 0, { 0 }, index };
      if (!selected[i])
        continue;
      if (!map_rank_vars (B, e, i, explicit, o.vars, &o.n_vars))
        return FALSE;
      if (o.n_vars < n_listed)
        continue;             /* every Einsum: those that have them all */
      for (guint k = 0; k < ec->n_orders; k++)
        if (ec->orders[k].level == (guint) l)
          {
            g_autofree char *other = ffm_constraints_describe (B->c, ec->orders[k].entry);
            g_set_error (B->error, INVALID, "%s: loop_order at %s contradicts %s "
                         "in Einsum %s: one memory has one loop order", e->origin,
                         e->levels[0], other, ffm_workload_get_einsum (B->w, i)->name);
            return FALSE;
          }
      if (ec->n_orders == FFM_CONSTRAINTS_MAX_ORDERS)
        {
          g_set_error (B->error, INVALID, "%s: Einsum %s has more than %d loop orders",
                       e->origin, ffm_workload_get_einsum (B->w, i)->name,
                       FFM_CONSTRAINTS_MAX_ORDERS);
          return FALSE;
        }
      ec->orders[ec->n_orders++] = o;
      ec->entries |= entry_bit (index);
      applied++;
    }
  return applied > 0 || none_applies (B, e);
}

static gboolean
bind_spatial (Binder *B, const FfmConstraintEntry *e, guint index,
              const gboolean *selected, gboolean explicit)
{
  const FfmLevel *fanout;
  guint applied = 0;
  int l, dim = -1;

  if ((l = find_level (B, e, e->levels[0], FFM_LEVEL_FANOUT)) < 0)
    return FALSE;
  fanout = ffm_arch_get_level (B->a, l);
  if (e->dimension != NULL)
    {
      GString *names = g_string_new (NULL);
      for (guint d = 0; d < fanout->u.fanout.n_dims; d++)
        {
          if (strcmp (fanout->u.fanout.dims[d].name, e->dimension) == 0)
            dim = (int) d;
          g_string_append_printf (names, "%s%s", d ? ", " : "",
                                  fanout->u.fanout.dims[d].name);
        }
      if (dim < 0)
        {
          g_set_error (B->error, INVALID, "%s: spatial: fanout %s has no dimension "
                       "'%s' (its dimensions: %s)", e->origin, fanout->name,
                       e->dimension, names->str);
          g_string_free (names, TRUE);
          return FALSE;
        }
      g_string_free (names, TRUE);
    }
  for (guint i = 0; i < ffm_workload_get_n_einsums (B->w); i++)
    {
      guint vars[FFM_MAX_EINSUM_RANK_VARS], n;
      guint64 mask = 0;
      if (!selected[i])
        continue;
      if (!map_rank_vars (B, e, i, explicit, vars, &n))
        return FALSE;
      if (n == 0)
        continue;             /* every Einsum: those that have one of them */
      for (guint k = 0; k < n; k++)
        mask |= BIT (vars[k]);
      for (guint d = 0; d < fanout->u.fanout.n_dims; d++)
        if (dim < 0 || (guint) dim == d)
          B->ec[i].spatial[l][d] &= mask;
      B->ec[i].entries |= entry_bit (index);
      applied++;
    }
  return applied > 0 || none_applies (B, e);
}

static gboolean
bind_tile (Binder *B, const FfmConstraintEntry *e, guint index,
           const gboolean *selected, gboolean explicit)
{
  guint applied = 0;
  int l;

  if ((l = find_level (B, e, e->levels[0], FFM_LEVEL_MEMORY)) < 0)
    return FALSE;
  for (guint i = 0; i < ffm_workload_get_n_einsums (B->w); i++)
    {
      const FfmEinsum *es = ffm_workload_get_einsum (B->w, i);
      FfmEinsumConstraints *ec = &B->ec[i];
      guint vars[1], n;
      guint64 bound;
      if (!selected[i])
        continue;
      if (!map_rank_vars (B, e, i, explicit, vars, &n))
        return FALSE;
      if (n == 0)
        continue;
      bound = es->rank_var_bounds[vars[0]];
      if (e->spec.tile > bound || bound % e->spec.tile != 0)
        {
          g_set_error (B->error, INVALID, "%s: tile %s=%" G_GUINT64_FORMAT " in Einsum "
                       "%s: tiles divide the rank variable's bound, %" G_GUINT64_FORMAT,
                       e->origin, e->rank_vars[0], e->spec.tile, es->name, bound);
          return FALSE;
        }
      for (guint k = 0; k < ec->n_tiles; k++)
        if (ec->tiles[k].level == (guint) l && ec->tiles[k].var == vars[0]
            && ec->tiles[k].tile != e->spec.tile)
          {
            g_autofree char *other = ffm_constraints_describe (B->c, ec->tiles[k].entry);
            g_set_error (B->error, INVALID, "%s: tile %s=%" G_GUINT64_FORMAT " at %s "
                         "contradicts %s in Einsum %s", e->origin, e->rank_vars[0],
                         e->spec.tile, e->levels[0], other, es->name);
            return FALSE;
          }
      if (ec->n_tiles == G_N_ELEMENTS (ec->tiles))
        {
          g_set_error (B->error, INVALID, "%s: Einsum %s has more than %u fixed tiles",
                       e->origin, es->name, (guint) G_N_ELEMENTS (ec->tiles));
          return FALSE;
        }
      ec->tiles[ec->n_tiles++] = (FfmTileConstraint) { (guint) l, vars[0],
                                                       e->spec.tile, index };
      ec->pinned_vars |= BIT (vars[0]);
      ec->entries |= entry_bit (index);
      applied++;
    }
  return applied > 0 || none_applies (B, e);
}

static gboolean
bind_max_fused (Binder *B, const FfmConstraintEntry *e, guint index,
                const gboolean *selected)
{
  for (guint i = 0; i < ffm_workload_get_n_einsums (B->w); i++)
    {
      FfmEinsumConstraints *ec = &B->ec[i];
      if (!selected[i])
        continue;
      if (B->max_fused_entry[i] >= 0 && ec->max_fused_loops != e->spec.max_fused_loops)
        {
          g_autofree char *other = ffm_constraints_describe (B->c,
                                                             (guint) B->max_fused_entry[i]);
          g_set_error (B->error, INVALID, "%s: max_fused_loops %d contradicts %s in "
                       "Einsum %s", e->origin, e->spec.max_fused_loops, other,
                       ffm_workload_get_einsum (B->w, i)->name);
          return FALSE;
        }
      B->max_fused_entry[i] = (int) index;
      ec->max_fused_loops = e->spec.max_fused_loops;
      ec->entries |= entry_bit (index);
    }
  return TRUE;
}

/* ---- Contradictions between tensor constraints ---- */

static char *
describe_entries (const FfmConstraints *c, guint64 entries)
{
  GString *s = g_string_new (NULL);
  guint n = 0;

  for (guint i = 0; i < ffm_constraints_get_n (c); i++)
    if (entries & entry_bit (i))
      {
        g_autofree char *d = ffm_constraints_describe (c, i);
        g_string_append_printf (s, "%s%s", n++ ? "; " : "", d);
      }
  return g_string_free (s, FALSE);
}

static gboolean
check_tensor (Binder *B, guint t)
{
  const TensorBinding *tb = &B->tb[t];
  const char *name = ffm_workload_get_tensor (B->w, t)->name;
  guint64 memories = 0;

  for (guint l = 0; l < B->n_levels && l < FFM_CONSTRAINTS_MAX_LEVELS; l++)
    if (ffm_arch_get_level (B->a, l)->kind == FFM_LEVEL_MEMORY)
      memories |= BIT (l);
  if ((tb->backing & memories) == 0)
    {
      g_autofree char *list = describe_entries (B->c, tb->backing_entries);
      g_set_error (B->error, INVALID, "contradictory constraints: tensor %s can be "
                   "backed nowhere under %s", name, list);
      return FALSE;
    }
  if (tb->keep & tb->forbid)
    {
      g_autofree char *list = describe_entries (B->c, tb->keep_entries | tb->forbid_entries);
      g_set_error (B->error, INVALID, "contradictory constraints: tensor %s must be "
                   "kept and may not be kept at the same level under %s", name, list);
      return FALSE;
    }
  if ((tb->backing & memories & ~tb->forbid) == 0)
    {
      g_autofree char *list = describe_entries (B->c, tb->backing_entries | tb->forbid_entries);
      g_set_error (B->error, INVALID, "contradictory constraints: tensor %s may be "
                   "kept at none of the levels it may be backed at under %s", name, list);
      return FALSE;
    }
  return TRUE;
}

/* ---- Binding ---- */

static FfmBoundConstraints *
bind (const FfmConstraints *constraints, const FfmWorkload *w, const FfmArch *a,
      guint64 skip, GError **error)
{
  guint n_einsums = ffm_workload_get_n_einsums (w);
  guint n_tensors = ffm_workload_get_n_tensors (w);
  g_autoptr (FfmBoundConstraints) bound = g_new0 (FfmBoundConstraints, 1);
  g_autofree TensorBinding *tb = g_new0 (TensorBinding, MAX (n_tensors, 1));
  g_autofree int *stationary_entry = g_new (int, (gsize) MAX (n_einsums, 1) * FFM_CONSTRAINTS_MAX_LEVELS);
  g_autofree int *max_fused_entry = g_new (int, MAX (n_einsums, 1));
  g_autofree gboolean *selected = g_new0 (gboolean, MAX (n_einsums, 1));
  Binder B = { 0 };

  bound->constraints = ffm_constraints_new (constraints != NULL
                                            ? ffm_constraints_get_name (constraints)
                                            : "constraints");
  if (constraints != NULL)
    {
      ffm_constraints_append (bound->constraints, constraints);
      ffm_constraints_set_description (bound->constraints,
                                       ffm_constraints_get_description (constraints));
    }
  bound->workload = ffm_workload_ref ((FfmWorkload *) w);
  bound->arch = ffm_arch_ref ((FfmArch *) a);
  bound->n_einsums = n_einsums;
  bound->einsums = g_new0 (FfmEinsumConstraints, MAX (n_einsums, 1));
  for (guint i = 0; i < n_einsums; i++)
    {
      FfmEinsumConstraints *ec = &bound->einsums[i];
      for (guint k = 0; k < FFM_MAX_EINSUM_TENSORS; k++)
        ec->backing_levels[k] = ALL_ONES;
      for (guint l = 0; l < FFM_CONSTRAINTS_MAX_LEVELS; l++)
        for (guint d = 0; d < FFM_MAX_FANOUT_DIMS; d++)
          ec->spatial[l][d] = ALL_ONES;
      ec->max_fused_loops = -1;
      max_fused_entry[i] = -1;
    }
  for (gsize k = 0; k < (gsize) MAX (n_einsums, 1) * FFM_CONSTRAINTS_MAX_LEVELS; k++)
    stationary_entry[k] = -1;
  for (guint t = 0; t < n_tensors; t++)
    tb[t].backing = ALL_ONES;

  B.c = bound->constraints;
  B.w = w;
  B.a = a;
  B.n_levels = ffm_arch_get_n_levels (a);
  B.ec = bound->einsums;
  B.tb = tb;
  B.stationary_entry = stationary_entry;
  B.max_fused_entry = max_fused_entry;
  B.skip = skip;
  B.error = error;

  for (guint i = 0; i < ffm_constraints_get_n (B.c); i++)
    {
      const FfmConstraintEntry *e = ffm_constraints_get_entry (B.c, i);
      gboolean explicit, ok = TRUE;

      if (skip & BIT (MIN (i, 63u)) && i < 63)
        continue;
      switch (e->spec.kind)
        {
        case FFM_CONSTRAINT_FUSE:
        case FFM_CONSTRAINT_UNFUSE:
        case FFM_CONSTRAINT_BACKING:
        case FFM_CONSTRAINT_KEEP:
        case FFM_CONSTRAINT_FORBID:
          ok = bind_tensor_entry (&B, e, i);
          break;
        default:
          if (!select_einsums (&B, e, selected, &explicit))
            return NULL;
          switch (e->spec.kind)
            {
            case FFM_CONSTRAINT_STATIONARY:
              ok = bind_stationary (&B, e, i, selected);
              break;
            case FFM_CONSTRAINT_LOOP_ORDER:
              ok = bind_loop_order (&B, e, i, selected, explicit);
              break;
            case FFM_CONSTRAINT_SPATIAL:
              ok = bind_spatial (&B, e, i, selected, explicit);
              break;
            case FFM_CONSTRAINT_TILE:
              ok = bind_tile (&B, e, i, selected, explicit);
              break;
            default:
              ok = bind_max_fused (&B, e, i, selected);
              break;
            }
          break;
        }
      if (!ok)
        return NULL;
    }
  for (guint t = 0; t < n_tensors; t++)
    if ((tb[t].backing_entries | tb[t].keep_entries | tb[t].forbid_entries)
        && !check_tensor (&B, t))
      return NULL;

  /* Tensor constraints into every Einsum that touches the tensor. */
  for (guint i = 0; i < n_einsums; i++)
    {
      const FfmEinsum *es = ffm_workload_get_einsum (w, i);
      FfmEinsumConstraints *ec = &bound->einsums[i];
      for (guint k = 0; k < es->n_accesses; k++)
        {
          const TensorBinding *t = &tb[es->accesses[k].tensor];
          ec->backing_levels[k] = t->backing;
          for (guint l = 0; l < FFM_CONSTRAINTS_MAX_LEVELS; l++)
            {
              if (t->keep & BIT (l))
                ec->keep[l] |= BIT (k);
              if (t->forbid & BIT (l))
                ec->forbid[l] |= BIT (k);
            }
          ec->entries |= t->backing_entries | t->keep_entries | t->forbid_entries;
        }
      ec->any = ec->entries != 0;
    }
  return g_steal_pointer (&bound);
}

FfmBoundConstraints *
ffm_constraints_bind (const FfmConstraints *constraints, const FfmWorkload *workload,
                      const FfmArch *arch, GError **error)
{
  g_return_val_if_fail (workload != NULL && arch != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  return bind (constraints, workload, arch, 0, error);
}

FfmBoundConstraints *
ffm_bound_constraints_without (const FfmBoundConstraints *bound, guint skip)
{
  g_return_val_if_fail (bound != NULL, NULL);
  if (skip >= 63)
    return NULL;
  return bind (bound->constraints, bound->workload, bound->arch, BIT (skip), NULL);
}

void
ffm_bound_constraints_free (FfmBoundConstraints *bound)
{
  if (bound == NULL)
    return;
  ffm_constraints_unref (bound->constraints);
  if (bound->workload != NULL)
    ffm_workload_unref (bound->workload);
  if (bound->arch != NULL)
    ffm_arch_unref (bound->arch);
  g_free (bound->einsums);
  g_free (bound);
}

const FfmConstraints *
ffm_bound_constraints_get_constraints (const FfmBoundConstraints *bound)
{
  g_return_val_if_fail (bound != NULL, NULL);
  return bound->constraints;
}

gboolean
ffm_bound_constraints_restrict_einsum (const FfmBoundConstraints *bound, guint einsum)
{
  return ffm_bound_constraints_get_einsum (bound, einsum) != NULL;
}

const FfmEinsumConstraints *
ffm_bound_constraints_get_einsum (const FfmBoundConstraints *bound, guint einsum)
{
  if (bound == NULL || einsum >= bound->n_einsums || !bound->einsums[einsum].any)
    return NULL;
  return &bound->einsums[einsum];
}

gboolean
ffm_einsum_constraints_orders_loops (const FfmEinsumConstraints *ec)
{
  return ec != NULL && ec->n_orders > 0;
}

void
ffm_einsum_constraints_append_signature (const FfmEinsumConstraints *ec,
                                         GString *s)
{
  if (ec == NULL)
    return;
  g_string_append_printf (s, "|C%d", ec->max_fused_loops);
  for (guint k = 0; k < ec->n_tiles; k++)
    g_string_append_printf (s, ",t%u.%u=%" G_GUINT64_FORMAT, ec->tiles[k].level,
                            ec->tiles[k].var, ec->tiles[k].tile);
}

char *
ffm_bound_constraints_describe_einsum (const FfmBoundConstraints *bound, guint einsum)
{
  const FfmEinsumConstraints *ec = ffm_bound_constraints_get_einsum (bound, einsum);

  return describe_entries (bound->constraints, ec != NULL ? ec->entries : 0);
}

/* ---- Admitting pmappings ---- */

typedef struct {
  FfmNodeKind kind;
  int level;
  guint64 accesses;         /* STORAGE: the Einsum's tensors it holds */
  gboolean persistent;
  int var;                  /* loops */
  int dim;                  /* SPATIAL */
  guint64 tile;
  gboolean nontrivial;
} PathNode;

static gboolean
violated (GString *why, const FfmBoundConstraints *b, guint entry,
          const char *format, ...) G_GNUC_PRINTF (4, 5);

static gboolean
violated (GString *why, const FfmBoundConstraints *b, guint entry,
          const char *format, ...)
{
  if (why != NULL)
    {
      g_autofree char *d = ffm_constraints_describe (b->constraints, entry);
      va_list args;
      va_start (args, format);
      g_string_append_printf (why, "%s: ", d);
      g_string_append_vprintf (why, format, args);
      va_end (args);
    }
  return FALSE;
}

/* The first entry among @entries that is a tensor constraint of @kind and
 * selects tensor @t somewhere (for messages). */
static guint
tensor_entry (const FfmBoundConstraints *b, guint t, guint64 entries)
{
  for (guint i = 0; i < ffm_constraints_get_n (b->constraints); i++)
    if (entries & entry_bit (i))
      {
        const FfmConstraintEntry *e = ffm_constraints_get_entry (b->constraints, i);
        if (e->tensors_expr == NULL)
          continue;
        for (guint x = 0; x < ffm_workload_get_n_einsums (b->workload); x++)
          {
            const FfmEinsum *es = ffm_workload_get_einsum (b->workload, x);
            int acc = ffm_einsum_find_access (es, t);
            FfmEinsumSetScope scope;
            guint64 mask;
            if (acc < 0)
              continue;
            ffm_einsum_set_scope_init (&scope, b->workload, x, NULL);
            if (ffm_expr_evaluate_set (e->tensors_expr, &scope.scope, &mask, NULL)
                && (mask & BIT (acc)))
              return i;
          }
      }
  return 0;
}

/* Whether a spatial loop naming level @loop_level (its fanout, or the
 * component right below the fanout) spreads over a fanout above level
 * @level. */
static gboolean
fanout_above (const FfmArch *arch, int loop_level, guint level)
{
  if (loop_level > 0 && ffm_arch_get_level (arch, (guint) loop_level)->kind != FFM_LEVEL_FANOUT
      && ffm_arch_get_level (arch, (guint) loop_level - 1)->kind == FFM_LEVEL_FANOUT)
    loop_level--;
  return loop_level >= 0 && (guint) loop_level < level;
}

/* Reads @nodes into @out (at most @max); FALSE (with @why) when a name does
 * not resolve. */
static gboolean
read_path (const FfmBoundConstraints *b, const FfmEinsum *es,
           const FfmMappingNode *const *nodes, guint n_nodes, PathNode *out,
           guint *n_out, GString *why)
{
  guint64 tiles[FFM_MAX_EINSUM_RANK_VARS];
  guint n = 0;

  memcpy (tiles, es->rank_var_bounds, sizeof tiles);
  for (guint i = 0; i < n_nodes; i++)
    {
      const FfmMappingNode *node = nodes[i];
      PathNode p = { node->kind, -1, 0, node->persistent, -1, -1, 0, FALSE };

      switch (node->kind)
        {
        case FFM_NODE_STORAGE:
          p.level = ffm_arch_find_level (b->arch, node->level);
          for (guint k = 0; node->tensors[k] != NULL; k++)
            {
              int t = ffm_workload_find_tensor (b->workload, node->tensors[k]);
              int acc = t >= 0 ? ffm_einsum_find_access (es, (guint) t) : -1;
              if (acc >= 0)
                p.accesses |= BIT (acc);
            }
          if (p.accesses == 0)
            continue;
          break;
        case FFM_NODE_TEMPORAL:
        case FFM_NODE_SPATIAL:
          p.var = ffm_einsum_find_rank_var (es, ffm_mapping_node_get_rank_var_for (node, es->name));
          if (p.var < 0 || node->tile == 0)
            {
              if (why != NULL)
                g_string_append_printf (why, "a loop over %s that Einsum %s does not have",
                                        node->rank_var, es->name);
              return FALSE;
            }
          p.tile = node->tile;
          p.nontrivial = tiles[p.var] / node->tile > 1;
          tiles[p.var] = node->tile;
          if (node->kind == FFM_NODE_SPATIAL)
            {
              const FfmLevel *f;
              p.level = ffm_arch_find_level (b->arch, node->level);
              f = p.level >= 0 ? ffm_arch_get_level (b->arch, p.level) : NULL;
              for (guint d = 0; f != NULL && f->kind == FFM_LEVEL_FANOUT
                   && d < f->u.fanout.n_dims; d++)
                if (g_strcmp0 (f->u.fanout.dims[d].name, node->dimension) == 0)
                  p.dim = (int) d;
            }
          break;
        default:
          continue;
        }
      if (p.kind == FFM_NODE_STORAGE && p.level < 0)
        {
          if (why != NULL)
            g_string_append_printf (why, "unknown level %s", node->level);
          return FALSE;
        }
      out[n++] = p;
    }
  *n_out = n;
  return TRUE;
}

gboolean
ffm_bound_constraints_admit_pmapping (const FfmBoundConstraints *b, guint einsum,
                                      const FfmMappingNode *const *nodes,
                                      guint n_nodes, GString *why)
{
  const FfmEinsumConstraints *ec;
  const FfmEinsum *es;
  g_autofree PathNode *path = NULL;
  guint n = 0, n_fused_pos = 0;
  guint64 seen = 0, shared = 0;
  guint64 kept_at[FFM_MAX_EINSUM_TENSORS] = { 0 };

  g_return_val_if_fail (b != NULL && nodes != NULL, FALSE);
  g_return_val_if_fail (einsum < b->n_einsums, FALSE);
  ec = ffm_bound_constraints_get_einsum (b, einsum);
  if (ec == NULL)
    return TRUE;
  es = ffm_workload_get_einsum (b->workload, einsum);
  path = g_new (PathNode, MAX (n_nodes, 1));
  if (!read_path (b, es, nodes, n_nodes, path, &n, why))
    return FALSE;
  for (guint a = 0; a < es->n_accesses; a++)
    if (ffm_workload_get_tensor (b->workload, es->accesses[a].tensor)->classes
        & FFM_TENSOR_SHARED)
      shared |= BIT (a);

  /* Storage: backing levels, keep, forbid; where the fused loops end. */
  for (guint i = 0; i < n; i++)
    {
      const PathNode *p = &path[i];
      if (p->kind != FFM_NODE_STORAGE)
        continue;
      for (guint a = 0; a < es->n_accesses; a++)
        {
          guint t = es->accesses[a].tensor;
          if (!(p->accesses & BIT (a)))
            continue;
          if (p->level < FFM_CONSTRAINTS_MAX_LEVELS)
            kept_at[a] |= BIT (p->level);
          if (!(seen & BIT (a)))
            {
              if (p->level >= FFM_CONSTRAINTS_MAX_LEVELS
                  || !(ec->backing_levels[a] & BIT (p->level)))
                return violated (why, b, tensor_entry (b, t, ec->entries), "%s is "
                                 "backed at %s", ffm_workload_get_tensor (b->workload, t)->name,
                                 ffm_arch_get_level (b->arch, p->level)->name);
              if (shared & BIT (a))
                n_fused_pos = i;
            }
          seen |= BIT (a);
        }
    }
  for (guint a = 0; a < es->n_accesses; a++)
    for (guint l = 0; l < FFM_CONSTRAINTS_MAX_LEVELS; l++)
      {
        const char *tensor = ffm_workload_get_tensor (b->workload, es->accesses[a].tensor)->name;
        if ((ec->keep[l] & BIT (a)) && !(kept_at[a] & BIT (l)))
          return violated (why, b, tensor_entry (b, es->accesses[a].tensor, ec->entries),
                           "%s is not kept at %s", tensor, ffm_arch_get_level (b->arch, l)->name);
        if ((ec->forbid[l] & BIT (a)) && (kept_at[a] & BIT (l)))
          return violated (why, b, tensor_entry (b, es->accesses[a].tensor, ec->entries),
                           "%s is kept at %s", tensor, ffm_arch_get_level (b->arch, l)->name);
      }

  /* Fused loops. */
  if (ec->max_fused_loops >= 0)
    {
      guint fused = 0;
      for (guint i = 0; i < n_fused_pos; i++)
        fused += path[i].kind != FFM_NODE_STORAGE && path[i].nontrivial;
      if (fused > (guint) ec->max_fused_loops)
        {
          guint entry = 0;
          for (guint i = 0; i < ffm_constraints_get_n (b->constraints); i++)
            if ((ec->entries & entry_bit (i))
                && ffm_constraints_get (b->constraints, i)->kind == FFM_CONSTRAINT_MAX_FUSED_LOOPS)
              entry = i;
          return violated (why, b, entry, "%u fused loops", fused);
        }
    }

  /* Dataflow: no node outside S above a node of S at the level; the
   * backing nodes of shared tensors (placed by fusion) and persistent
   * tiles aside. */
  for (guint l = 0; l < FFM_CONSTRAINTS_MAX_LEVELS; l++)
    {
      gboolean other_above = FALSE;
      guint64 above = 0;
      if (ec->stationary[l] == 0)
        continue;
      for (guint i = 0; i < n; i++)
        {
          const PathNode *p = &path[i];
          gboolean fused_backing;
          if (p->kind != FFM_NODE_STORAGE)
            continue;
          fused_backing = (p->accesses & ~(shared & ~above)) == 0;
          above |= p->accesses;
          if (p->level != (int) l || p->persistent || fused_backing)
            continue;
          if ((p->accesses & ec->stationary[l]) && other_above)
            {
              guint entry = 0;
              for (guint x = 0; x < ffm_constraints_get_n (b->constraints); x++)
                {
                  const FfmConstraintSpec *s = ffm_constraints_get (b->constraints, x);
                  if ((ec->entries & entry_bit (x)) && s->kind == FFM_CONSTRAINT_STATIONARY
                      && ffm_arch_find_level (b->arch, s->levels[0]) == (int) l)
                    entry = x;
                }
              return violated (why, b, entry, "a tile of another tensor lies above "
                               "one of the stationary tensors at %s",
                               ffm_arch_get_level (b->arch, l)->name);
            }
          if (p->accesses & ~ec->stationary[l])
            other_above = TRUE;
        }
    }

  /* Loop orders, below the fused loops. */
  for (guint k = 0; k < ec->n_orders; k++)
    {
      const FfmLoopOrderConstraint *o = &ec->orders[k];
      int rank[FFM_MAX_EINSUM_RANK_VARS];
      int last = -1, here = -1;
      for (guint v = 0; v < FFM_MAX_EINSUM_RANK_VARS; v++)
        rank[v] = -1;
      for (guint x = 0; x < o->n_vars; x++)
        rank[o->vars[x]] = (int) x;
      for (guint i = 0; i < n; i++)
        {
          const PathNode *p = &path[i];
          if (p->kind == FFM_NODE_STORAGE)
            {
              here = p->level;
              continue;
            }
          if (i < n_fused_pos || here != (int) o->level || p->kind != FFM_NODE_TEMPORAL
              || !p->nontrivial || rank[p->var] < 0)
            continue;
          if (rank[p->var] < last)
            return violated (why, b, o->entry, "a loop over %s below a loop over %s",
                             es->rank_var_names[p->var], es->rank_var_names[o->vars[last]]);
          last = rank[p->var];
        }
    }

  /* Spatial loops. */
  for (guint i = 0; i < n; i++)
    {
      const PathNode *p = &path[i];
      if (p->kind != FFM_NODE_SPATIAL || !p->nontrivial || p->level < 0
          || p->level >= FFM_CONSTRAINTS_MAX_LEVELS || p->dim < 0)
        continue;
      if (!(ec->spatial[p->level][p->dim] & BIT (p->var)))
        {
          guint entry = 0;
          for (guint x = 0; x < ffm_constraints_get_n (b->constraints); x++)
            if ((ec->entries & entry_bit (x))
                && ffm_constraints_get (b->constraints, x)->kind == FFM_CONSTRAINT_SPATIAL)
              entry = x;
          return violated (why, b, entry, "a spatial loop over %s",
                           es->rank_var_names[p->var]);
        }
    }

  /* Fixed tiles: the tile of the variable at every node of the level that
   * holds a tensor the variable indexes (the others' tiles do not depend
   * on it), per instance. */
  for (guint k = 0; k < ec->n_tiles; k++)
    {
      const FfmTileConstraint *tc = &ec->tiles[k];
      guint64 tile = es->rank_var_bounds[tc->var], indexed = 0;
      for (guint a = 0; a < es->n_accesses; a++)
        if (ffm_access_uses_var (es, a, tc->var))
          indexed |= BIT (a);
      for (guint i = 0; i < n; i++)
        {
          const PathNode *p = &path[i];
          guint64 per_instance;
          if (p->kind != FFM_NODE_STORAGE && p->var == (int) tc->var)
            tile = p->tile;
          if (p->kind != FFM_NODE_STORAGE || p->level != (int) tc->level
              || !(p->accesses & indexed))
            continue;
          /* one instance's tile: spatial loops below the node over a
           * fanout above its memory spread the node's tile over instances */
          per_instance = tile;
          for (guint j = i + 1; j < n; j++)
            if (path[j].kind == FFM_NODE_SPATIAL && path[j].var == (int) tc->var
                && fanout_above (b->arch, path[j].level, tc->level))
              per_instance = path[j].tile;
          if (per_instance != tc->tile)
            return violated (why, b, tc->entry, "the tile of %s at %s is %" G_GUINT64_FORMAT,
                             es->rank_var_names[tc->var],
                             ffm_arch_get_level (b->arch, tc->level)->name, per_instance);
        }
    }
  return TRUE;
}

gboolean
ffm_bound_constraints_admit_mapping (const FfmBoundConstraints *b,
                                     const FfmMapping *mapping, GString *why)
{
  g_autoptr (GPtrArray) paths = NULL;

  g_return_val_if_fail (b != NULL && mapping != NULL, FALSE);
  paths = ffm_mapping_dup_paths (mapping);
  for (guint p = 0; p < paths->len; p++)
    {
      const GPtrArray *path = g_ptr_array_index (paths, p);
      const FfmMappingNode *last = g_ptr_array_index (path, path->len - 1);
      int einsum = ffm_workload_find_einsum (b->workload, last->einsum);
      if (einsum < 0)
        {
          if (why != NULL)
            g_string_append_printf (why, "unknown Einsum %s", last->einsum);
          return FALSE;
        }
      if (!ffm_bound_constraints_admit_pmapping (b, (guint) einsum,
                                                 (const FfmMappingNode *const *) path->pdata,
                                                 path->len, why))
        {
          if (why != NULL)
            {
              g_autofree char *prefix = g_strdup_printf ("Einsum %s: ", last->einsum);
              g_string_prepend (why, prefix);
            }
          return FALSE;
        }
    }
  return TRUE;
}
