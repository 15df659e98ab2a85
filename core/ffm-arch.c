/* ffm-arch.c: the architecture data model (see ffm-arch.h).
 *
 * Levels are allocated one by one so the pointers ffm_arch_add_*() return
 * stay valid while a model fills them in. ffm_arch_finish() checks every
 * level, parses the expressions, and precomputes the instance counts; after
 * it the architecture is read-only and may be shared between threads. */
#include <ffm/ffm-arch.h>
#include <ffm/ffm-limits.h>
#include "ffm-arch-private.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

struct _FfmArch {
  grefcount ref;
  char *name;
  char *description;            /* may be NULL */
  char *source;                 /* may be NULL */
  GPtrArray *levels;            /* of FfmLevel *, owned */
  GPtrArray *variable_names;    /* of char *, owned, NULL-terminated */
  GArray *variable_values;      /* of double, parallel to variable_names */
  guint64 *instances_above;     /* per level; set by ffm_arch_finish() */
  gboolean finished;
};

/* Names the workload's set scope gives meaning to (ffm-workload.h), plus
 * `above`: a memory named like one of them would shadow it. */
static const char *const reserved_memory_names[] = {
  "all", "nothing", "inputs", "outputs", "intermediates", "shared",
  "persistent", "input", "weight", "weights", "output", "above", NULL
};

static const char *
level_kind_name (FfmLevelKind kind)
{
  switch (kind)
    {
    case FFM_LEVEL_MEMORY:
      return "memory";
    case FFM_LEVEL_FANOUT:
      return "fanout";
    case FFM_LEVEL_COMPUTE:
      return "compute";
    }
  return "level";
}

/* ---- Construction and destruction ---- */

static void
level_free (gpointer data)
{
  FfmLevel *level = data;

  g_free (level->name);
  g_free (level->description);
  g_free (level->estimated_by);
  switch (level->kind)
    {
    case FFM_LEVEL_MEMORY:
      {
        FfmMemorySpec *m = &level->u.memory;
        g_free (m->keep);
        g_free (m->may_keep);
        g_free (m->size_per_einsum);
        g_clear_pointer (&m->keep_expr, ffm_expr_free);
        g_clear_pointer (&m->may_keep_expr, ffm_expr_free);
        g_clear_pointer (&m->size_per_einsum_expr, ffm_expr_free);
        if (m->bits_overrides != NULL)
          {
            for (guint i = 0; i < m->bits_overrides->len; i++)
              {
                FfmBitsOverride *o = &g_array_index (m->bits_overrides,
                                                     FfmBitsOverride, i);
                g_free (o->tensors);
                g_free (o->bits_text);
                g_clear_pointer (&o->tensors_expr, ffm_expr_free);
                g_clear_pointer (&o->bits_expr, ffm_expr_free);
              }
            g_array_unref (m->bits_overrides);
          }
        if (m->energy_overrides != NULL)
          {
            for (guint i = 0; i < m->energy_overrides->len; i++)
              {
                FfmEnergyOverride *o = &g_array_index (m->energy_overrides,
                                                       FfmEnergyOverride, i);
                g_free (o->tensors);
                g_clear_pointer (&o->tensors_expr, ffm_expr_free);
              }
            g_array_unref (m->energy_overrides);
          }
        break;
      }
    case FFM_LEVEL_FANOUT:
      for (guint d = 0; d < level->u.fanout.n_dims; d++)
        {
          FfmFanoutDim *dim = &level->u.fanout.dims[d];
          g_free (dim->name);
          g_free (dim->reuse);
          g_free (dim->may_reuse);
          g_free (dim->allowed_rank_vars);
          g_clear_pointer (&dim->reuse_expr, ffm_expr_free);
          g_clear_pointer (&dim->may_reuse_expr, ffm_expr_free);
          g_clear_pointer (&dim->allowed_rank_vars_expr, ffm_expr_free);
        }
      break;
    case FFM_LEVEL_COMPUTE:
      g_free (level->u.compute.enabled);
      g_clear_pointer (&level->u.compute.enabled_expr, ffm_expr_free);
      break;
    }
  g_free (level);
}

/**
 * ffm_arch_new:
 * @name: the architecture's name, used in messages
 *
 * Returns: (transfer full): an empty, unfinished architecture
 */
FfmArch *
ffm_arch_new (const char *name)
{
  FfmArch *arch;

  g_return_val_if_fail (name != NULL, NULL);
  arch = g_new0 (FfmArch, 1);
  g_ref_count_init (&arch->ref);
  arch->name = g_strdup (name);
  arch->levels = g_ptr_array_new_with_free_func (level_free);
  arch->variable_names = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (arch->variable_names, NULL);
  arch->variable_values = g_array_new (FALSE, FALSE, sizeof (double));
  return arch;
}

FfmArch *
ffm_arch_ref (FfmArch *arch)
{
  g_return_val_if_fail (arch != NULL, NULL);
  g_ref_count_inc (&arch->ref);
  return arch;
}

void
ffm_arch_unref (FfmArch *arch)
{
  if (arch == NULL || !g_ref_count_dec (&arch->ref))
    return;
  g_free (arch->name);
  g_free (arch->description);
  g_free (arch->source);
  g_ptr_array_unref (arch->levels);
  g_ptr_array_unref (arch->variable_names);
  g_array_unref (arch->variable_values);
  g_free (arch->instances_above);
  g_free (arch);
}

static FfmLevel *
add_level (FfmArch *arch, FfmLevelKind kind, const char *name)
{
  FfmLevel *level = g_new0 (FfmLevel, 1);

  level->kind = kind;
  level->name = g_strdup (name);
  g_ptr_array_add (arch->levels, level);
  return level;
}

FfmLevel *
ffm_arch_add_memory (FfmArch *arch, const char *name)
{
  FfmLevel *level;
  FfmMemorySpec *m;

  g_return_val_if_fail (arch != NULL && !arch->finished && name != NULL, NULL);
  level = add_level (arch, FFM_LEVEL_MEMORY, name);
  m = &level->u.memory;
  m->size = NAN;                  /* required: finish fails until it is set */
  m->read_bandwidth = INFINITY;
  m->write_bandwidth = INFINITY;
  m->ports = FFM_PORTS_SHARED;
  m->bits_per_action = 1;
  m->skip_initial_output_write = TRUE;
  m->fill_energy = m->update_energy = m->drain_energy = NAN;
  m->drains_read = TRUE;
  return level;
}

FfmLevel *
ffm_arch_add_fanout (FfmArch *arch, const char *name)
{
  g_return_val_if_fail (arch != NULL && !arch->finished && name != NULL, NULL);
  return add_level (arch, FFM_LEVEL_FANOUT, name);
}

FfmFanoutDim *
ffm_level_add_fanout_dim (FfmLevel *fanout, const char *name, guint64 count)
{
  FfmFanoutDim *dim;

  g_return_val_if_fail (fanout != NULL && fanout->kind == FFM_LEVEL_FANOUT, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (fanout->u.fanout.n_dims < FFM_MAX_FANOUT_DIMS, NULL);
  dim = &fanout->u.fanout.dims[fanout->u.fanout.n_dims++];
  dim->name = g_strdup (name);
  dim->count = count;
  dim->min_usage = 0;
  return dim;
}

FfmLevel *
ffm_arch_add_compute (FfmArch *arch, const char *name)
{
  FfmLevel *level;

  g_return_val_if_fail (arch != NULL && !arch->finished && name != NULL, NULL);
  level = add_level (arch, FFM_LEVEL_COMPUTE, name);
  level->u.compute.throughput = INFINITY;
  return level;
}

void
ffm_arch_set_description (FfmArch *arch, const char *description)
{
  g_return_if_fail (arch != NULL && !arch->finished);
  g_free (arch->description);
  arch->description = g_strdup (description);
}

void
ffm_arch_set_source (FfmArch *arch, const char *source)
{
  g_return_if_fail (arch != NULL && !arch->finished);
  g_free (arch->source);
  arch->source = g_strdup (source);
}

static int
find_variable (const FfmArch *arch, const char *name)
{
  for (guint i = 0; i + 1 < arch->variable_names->len; i++)
    if (strcmp (arch->variable_names->pdata[i], name) == 0)
      return (int) i;
  return -1;
}

void
ffm_arch_set_variable (FfmArch *arch, const char *name, double value)
{
  int i;

  g_return_if_fail (arch != NULL && !arch->finished && name != NULL);
  i = find_variable (arch, name);
  if (i >= 0)
    {
      g_array_index (arch->variable_values, double, i) = value;
      return;
    }
  g_ptr_array_insert (arch->variable_names,
                      (int) arch->variable_names->len - 1, g_strdup (name));
  g_array_append_val (arch->variable_values, value);
}

static FfmBitsOverride *
add_override (FfmLevel *memory, const char *tensors)
{
  FfmMemorySpec *m = &memory->u.memory;
  FfmBitsOverride o = { 0 };

  if (m->bits_overrides == NULL)
    m->bits_overrides = g_array_new (FALSE, TRUE, sizeof (FfmBitsOverride));
  o.tensors = g_strdup (tensors);
  g_array_append_val (m->bits_overrides, o);
  return &g_array_index (m->bits_overrides, FfmBitsOverride,
                         m->bits_overrides->len - 1);
}

void
ffm_level_add_bits_override (FfmLevel *memory, const char *tensors,
                             double bits)
{
  g_return_if_fail (memory != NULL && memory->kind == FFM_LEVEL_MEMORY);
  g_return_if_fail (tensors != NULL);
  add_override (memory, tensors)->bits = bits;
}

void
ffm_level_add_bits_override_expr (FfmLevel *memory, const char *tensors,
                                  const char *bits_expr)
{
  FfmBitsOverride *o;

  g_return_if_fail (memory != NULL && memory->kind == FFM_LEVEL_MEMORY);
  g_return_if_fail (tensors != NULL && bits_expr != NULL);
  o = add_override (memory, tensors);
  o->bits = NAN;
  o->bits_text = g_strdup (bits_expr);
}

FfmEnergyOverride *
ffm_level_add_energy_override (FfmLevel *memory, const char *tensors)
{
  FfmMemorySpec *m;
  FfmEnergyOverride o = { 0 };

  g_return_val_if_fail (memory != NULL && memory->kind == FFM_LEVEL_MEMORY, NULL);
  g_return_val_if_fail (tensors != NULL, NULL);
  m = &memory->u.memory;
  if (m->energy_overrides == NULL)
    m->energy_overrides = g_array_new (FALSE, TRUE, sizeof (FfmEnergyOverride));
  o.tensors = g_strdup (tensors);
  o.energies.read = o.energies.fill = o.energies.update = o.energies.drain = NAN;
  g_array_append_val (m->energy_overrides, o);
  return &g_array_index (m->energy_overrides, FfmEnergyOverride,
                         m->energy_overrides->len - 1);
}

gboolean
ffm_memory_spec_has_two_energies (const FfmMemorySpec *m)
{
  g_return_val_if_fail (m != NULL, TRUE);
  return isnan (m->fill_energy) && isnan (m->update_energy)
         && isnan (m->drain_energy) && m->drains_read
         && (m->energy_overrides == NULL || m->energy_overrides->len == 0);
}

/* ---- Checking (ffm_arch_finish) ---- */

typedef struct {
  FfmArch *arch;
  FfmArchProblem *problem;
  GError **error;
} Check;

static gboolean check_fail (Check *c, int level, int dim, const char *member,
                            const char *format, ...) G_GNUC_PRINTF (5, 6);

/* Records where the problem is and sets the bare cause, prefixed with the
 * level ("memory GlobalBuffer: ..."). Always returns FALSE. */
static gboolean
check_fail (Check *c, int level, int dim, const char *member,
            const char *format, ...)
{
  g_autofree char *cause = NULL;
  va_list args;

  va_start (args, format);
  cause = g_strdup_vprintf (format, args);
  va_end (args);
  c->problem->level = level;
  c->problem->dim = dim;
  c->problem->member = member;
  if (level >= 0)
    {
      const FfmLevel *l = c->arch->levels->pdata[level];
      g_set_error (c->error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID,
                   "%s %s: %s", level_kind_name (l->kind), l->name, cause);
    }
  else
    g_set_error_literal (c->error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID,
                         cause);
  return FALSE;
}

static gboolean
is_identifier (const char *name)
{
  if (name == NULL || !(g_ascii_isalpha (name[0]) || name[0] == '_'))
    return FALSE;
  for (const char *p = name + 1; *p != '\0'; p++)
    if (!(g_ascii_isalnum (*p) || *p == '_'))
      return FALSE;
  return TRUE;
}

/* What a trial evaluation expects an expression to produce. */
typedef enum {
  TRIAL_SET,          /* tensor set (keep, reuse, ...) */
  TRIAL_NUMBER,       /* number over tensor sets (size_per_einsum) */
  TRIAL_BITS,         /* number over `bits` (bits overrides) */
  TRIAL_BOOL,         /* condition over tensor sets (enabled) */
  TRIAL_RANK_VARS,    /* condition over rank variables (allowed_rank_vars) */
} TrialKind;

typedef struct {
  const FfmArch *arch;
  TrialKind kind;
} Trial;

/* Stands in for a workload: every unknown name is a one-tensor set (or a
 * rank variable, 1), so only type errors can come out. */
static gboolean
trial_resolve (const char *name, FfmValue *out, gpointer user_data)
{
  Trial *t = user_data;
  double value;

  memset (out, 0, sizeof *out);
  out->type = FFM_VALUE_NUMBER;
  if (t->kind == TRIAL_BITS && strcmp (name, "bits") == 0)
    out->number = 8;
  else if (ffm_arch_get_variable (t->arch, name, &value))
    out->number = value;
  else if (g_str_has_suffix (name, ".bits_per_value"))
    out->number = 8;
  else if (t->kind == TRIAL_RANK_VARS)
    out->number = 1;
  else
    {
      out->type = FFM_VALUE_SET;
      out->set = 1;
    }
  return TRUE;
}

/* Parses @text into @out and evaluates it once against a stand-in scope, to
 * report syntax and type errors when the architecture is built rather than
 * in the middle of a search. */
static gboolean
check_expr (Check *c, int level, int dim, const char *member,
            const char *text, TrialKind kind, FfmExpr **out)
{
  g_autoptr (GError) local = NULL;
  Trial trial = { c->arch, kind };
  FfmExprScope scope = { trial_resolve, &trial, 0xff };
  FfmValue value;
  gboolean truth, ok;

  if (text == NULL)
    return TRUE;
  g_clear_pointer (out, ffm_expr_free);
  *out = ffm_expr_parse (text, &local);
  if (*out == NULL)
    return check_fail (c, level, dim, member, "%s: %s", member, local->message);
  switch (kind)
    {
    case TRIAL_SET:
      ok = ffm_expr_evaluate_set (*out, &scope, &value.set, &local);
      break;
    case TRIAL_NUMBER:
    case TRIAL_BITS:
      ok = ffm_expr_evaluate_number (*out, &scope, &value.number, &local);
      break;
    default:
      ok = ffm_expr_evaluate_bool (*out, &scope, &truth, &local);
      break;
    }
  if (!ok && g_error_matches (local, FFM_EXPR_ERROR, FFM_EXPR_ERROR_TYPE))
    return check_fail (c, level, dim, member, "%s: %s", member, local->message);
  return TRUE;
}

static gboolean
check_nonnegative (Check *c, int level, const char *member, double value)
{
  if (value >= 0 && isfinite (value))
    return TRUE;
  return check_fail (c, level, -1, member,
                     "%s must be a finite number >= 0, got %g", member, value);
}

static gboolean
check_positive (Check *c, int level, const char *member, double value,
                gboolean infinity_allowed)
{
  if (value > 0 && (infinity_allowed ? !isnan (value) : isfinite (value)))
    return TRUE;
  return check_fail (c, level, -1, member, "%s must be a %snumber > 0, got %g",
                     member, infinity_allowed ? "" : "finite ", value);
}

/* Fill, update and drain energies: NAN (unset) or finite and >= 0. In an
 * energy override (@tensors its set) the member is energy_by_tensor. */
static gboolean
check_action_energies (Check *c, int level, const char *tensors, double fill,
                       double update, double drain)
{
  static const char *const names[] = { "fill_energy", "update_energy",
                                       "drain_energy" };
  const double values[] = { fill, update, drain };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      if (isnan (values[i]) || (values[i] >= 0 && isfinite (values[i])))
        continue;
      if (tensors != NULL)
        return check_fail (c, level, -1, "energy_by_tensor",
                           "energy_by_tensor \"%s\": %s must be a finite "
                           "number >= 0, got %g", tensors, names[i], values[i]);
      return check_fail (c, level, -1, names[i],
                         "%s must be a finite number >= 0, got %g", names[i],
                         values[i]);
    }
  return TRUE;
}

typedef struct {
  Check *c;
  int level;
  const char *member;
  gboolean ok;
} RefCheck;

/* A keep expression may name memories above its own level only: those are
 * the ones whose choice is known when its own is made. */
static void
check_memory_reference (const char *name, gpointer user_data)
{
  RefCheck *r = user_data;
  g_autofree char *base = g_strdup (name);
  char *dot;
  int index;

  if (!r->ok)
    return;
  dot = strchr (base, '.');
  if (dot != NULL)
    *dot = '\0';
  index = ffm_arch_find_level (r->c->arch, base);
  if (index < 0)
    return;
  if (index >= r->level
      || ((FfmLevel *) r->c->arch->levels->pdata[index])->kind != FFM_LEVEL_MEMORY)
    r->ok = check_fail (r->c, r->level, -1, r->member,
                        "%s refers to %s, which is not a memory above this one",
                        r->member, base);
}

static gboolean
check_keep_expr (Check *c, int level, const char *member, const char *text,
                 FfmExpr **out)
{
  RefCheck r = { c, level, member, TRUE };

  if (!check_expr (c, level, -1, member, text, TRIAL_SET, out))
    return FALSE;
  if (*out != NULL)
    ffm_expr_foreach_identifier (*out, check_memory_reference, &r);
  return r.ok;
}

static gboolean
check_memory (Check *c, int index, FfmLevel *level)
{
  FfmMemorySpec *m = &level->u.memory;

  if (m->size_per_einsum != NULL)
    {
      m->size = NAN;
      if (!check_expr (c, index, -1, "size", m->size_per_einsum, TRIAL_NUMBER,
                       &m->size_per_einsum_expr))
        return FALSE;
    }
  else if (isnan (m->size))
    return check_fail (c, index, -1, "size", "has no size (capacity in bits)");
  else if (!(m->size > 0))
    return check_fail (c, index, -1, "size",
                       "size must be a number of bits > 0, got %g", m->size);
  if (!check_nonnegative (c, index, "read_energy", m->read_energy)
      || !check_nonnegative (c, index, "write_energy", m->write_energy)
      || !check_positive (c, index, "read_bandwidth", m->read_bandwidth, TRUE)
      || !check_positive (c, index, "write_bandwidth", m->write_bandwidth, TRUE)
      || !check_positive (c, index, "bits_per_action", m->bits_per_action, FALSE))
    return FALSE;
  if (m->ports != FFM_PORTS_SHARED && m->ports != FFM_PORTS_SEPARATE)
    return check_fail (c, index, -1, "ports", "ports must be shared or separate");
  if (!check_action_energies (c, index, NULL, m->fill_energy, m->update_energy,
                              m->drain_energy)
      || (!m->drains_read && !isnan (m->drain_energy)
          && !check_fail (c, index, -1, "drain_energy",
                          "drain_energy is set but drains_read is false "
                          "(drains that read nothing cost nothing)")))
    return FALSE;
  for (guint i = 0; m->energy_overrides != NULL && i < m->energy_overrides->len; i++)
    {
      FfmEnergyOverride *o = &g_array_index (m->energy_overrides,
                                             FfmEnergyOverride, i);
      c->problem->override_index = (int) i;
      if (!check_expr (c, index, -1, "energy_by_tensor", o->tensors, TRIAL_SET,
                       &o->tensors_expr)
          || !check_action_energies (c, index, o->tensors, o->energies.fill,
                                     o->energies.update, o->energies.drain)
          || (!isnan (o->energies.read)
              && !check_nonnegative (c, index, "energy_by_tensor",
                                     o->energies.read)))
        return FALSE;
      if (!m->drains_read && !isnan (o->energies.drain))
        return check_fail (c, index, -1, "energy_by_tensor",
                           "energy_by_tensor \"%s\" sets a drain energy but "
                           "drains_read is false", o->tensors);
    }
  c->problem->override_index = -1;
  if (!check_keep_expr (c, index, "keep", m->keep, &m->keep_expr)
      || !check_keep_expr (c, index, "may_keep", m->may_keep, &m->may_keep_expr))
    return FALSE;
  for (guint i = 0; m->bits_overrides != NULL && i < m->bits_overrides->len; i++)
    {
      FfmBitsOverride *o = &g_array_index (m->bits_overrides, FfmBitsOverride, i);
      c->problem->override_index = (int) i;
      if (!check_expr (c, index, -1, "bits_per_value", o->tensors, TRIAL_SET,
                       &o->tensors_expr))
        return FALSE;
      if (o->bits_text != NULL)
        {
          o->bits = NAN;
          if (!check_expr (c, index, -1, "bits_per_value", o->bits_text,
                           TRIAL_BITS, &o->bits_expr))
            return FALSE;
        }
      else if (!(o->bits > 0 && isfinite (o->bits)))
        return check_fail (c, index, -1, "bits_per_value",
                           "bits_per_value of \"%s\" must be a finite number "
                           "> 0, got %g", o->tensors, o->bits);
    }
  c->problem->override_index = -1;
  return TRUE;
}

static gboolean
check_fanout (Check *c, int index, FfmLevel *level)
{
  FfmFanoutSpec *f = &level->u.fanout;

  if (f->n_dims == 0)
    return check_fail (c, index, -1, "dims", "has no dimensions");
  for (guint d = 0; d < f->n_dims; d++)
    {
      FfmFanoutDim *dim = &f->dims[d];
      if (!is_identifier (dim->name))
        return check_fail (c, index, (int) d, "name",
                           "dimension name \"%s\" is not an identifier "
                           "(letters, digits and _, not starting with a digit)",
                           dim->name);
      for (guint e = 0; e < d; e++)
        if (strcmp (f->dims[e].name, dim->name) == 0)
          return check_fail (c, index, (int) d, "name",
                             "two dimensions are named \"%s\"", dim->name);
      if (dim->count < 1)
        return check_fail (c, index, (int) d, "count",
                           "dimension %s: count must be at least 1, got %"
                           G_GUINT64_FORMAT, dim->name, dim->count);
      if (!(dim->min_usage >= 0 && dim->min_usage <= 1))
        return check_fail (c, index, (int) d, "min_usage",
                           "dimension %s: min_usage must be in [0, 1], got %g",
                           dim->name, dim->min_usage);
      if (!check_expr (c, index, (int) d, "reuse", dim->reuse, TRIAL_SET,
                       &dim->reuse_expr)
          || !check_expr (c, index, (int) d, "may_reuse", dim->may_reuse,
                          TRIAL_SET, &dim->may_reuse_expr)
          || !check_expr (c, index, (int) d, "allowed_rank_vars",
                          dim->allowed_rank_vars, TRIAL_RANK_VARS,
                          &dim->allowed_rank_vars_expr))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_compute (Check *c, int index, FfmLevel *level)
{
  FfmComputeSpec *compute = &level->u.compute;

  return check_nonnegative (c, index, "energy", compute->energy)
         && check_positive (c, index, "throughput", compute->throughput, TRUE)
         && check_expr (c, index, -1, "enabled", compute->enabled, TRIAL_BOOL,
                        &compute->enabled_expr);
}

/* Names first, for every level: expressions of one level may name others. */
static gboolean
check_level_name (Check *c, int index)
{
  FfmLevel *level = c->arch->levels->pdata[index];
  const char *kind = level_kind_name (level->kind);

  if (strlen (level->name) > FFM_MAX_NAME_BYTES)
    return check_fail (c, index, -1, kind, "the level name is %" G_GSIZE_FORMAT
                       " bytes long, more than the limit of %d for a name",
                       strlen (level->name), FFM_MAX_NAME_BYTES);
  if (!is_identifier (level->name))
    return check_fail (c, index, -1, kind,
                       "level name \"%s\" is not an identifier (letters, "
                       "digits and _, not starting with a digit)", level->name);
  for (int j = 0; j < index; j++)
    if (strcmp (((FfmLevel *) c->arch->levels->pdata[j])->name, level->name) == 0)
      return check_fail (c, index, -1, kind,
                         "another level (number %d) has the same name", j + 1);
  if (level->kind == FFM_LEVEL_MEMORY)
    for (guint i = 0; reserved_memory_names[i] != NULL; i++)
      if (g_ascii_strcasecmp (level->name, reserved_memory_names[i]) == 0)
        return check_fail (c, index, -1, kind,
                           "the name \"%s\" is reserved for a tensor class in "
                           "set expressions", level->name);
  return TRUE;
}

static gboolean
check_level (Check *c, int index)
{
  FfmLevel *level = c->arch->levels->pdata[index];

  if (!check_nonnegative (c, index, "leak_power", level->leak_power)
      || !check_nonnegative (c, index, "area", level->area))
    return FALSE;
  switch (level->kind)
    {
    case FFM_LEVEL_MEMORY:
      return check_memory (c, index, level);
    case FFM_LEVEL_FANOUT:
      return check_fanout (c, index, level);
    case FFM_LEVEL_COMPUTE:
      return check_compute (c, index, level);
    }
  return check_fail (c, index, -1, NULL, "unknown level kind %d", level->kind);
}

static gboolean
check_structure (Check *c)
{
  GPtrArray *levels = c->arch->levels;
  const FfmLevel *first, *last;
  gboolean any_compute = FALSE;

  if (levels->len == 0)
    return check_fail (c, -1, -1, NULL, "has no levels");
  /* The pmapping generator and the cost model keep per-level state in
   * 64-bit masks and fixed arrays. */
  if (levels->len > FFM_MAX_ARCH_LEVELS)
    return check_fail (c, -1, -1, NULL, "has %u levels, more than the limit of %d",
                       levels->len, FFM_MAX_ARCH_LEVELS);
  first = levels->pdata[0];
  if (first->kind != FFM_LEVEL_MEMORY)
    return check_fail (c, 0, -1, level_kind_name (first->kind),
                       "the first level must be a memory (the off-chip "
                       "memory that holds the workload's tensors)");
  for (guint i = 0; i < levels->len; i++)
    any_compute |= ((FfmLevel *) levels->pdata[i])->kind == FFM_LEVEL_COMPUTE;
  if (!any_compute)
    return check_fail (c, -1, -1, NULL, "has no compute unit");
  {
    guint dims = 0;
    for (guint i = 0; i < levels->len; i++)
      {
        const FfmLevel *l = levels->pdata[i];
        if (l->kind == FFM_LEVEL_FANOUT)
          dims += l->u.fanout.n_dims;
        else if (l->kind == FFM_LEVEL_COMPUTE && dims > FFM_MAX_PATH_FANOUT_DIMS)
          return check_fail (c, (int) i, -1, NULL, "has %u fanout dimensions above it, "
                             "more than the limit of %d", dims, FFM_MAX_PATH_FANOUT_DIMS);
      }
  }
  last = levels->pdata[levels->len - 1];
  if (last->kind != FFM_LEVEL_COMPUTE)
    return check_fail (c, (int) levels->len - 1, -1, level_kind_name (last->kind),
                       "is listed after the last compute unit, so it is on no "
                       "compute path");
  return TRUE;
}

static gboolean
compute_instances (Check *c)
{
  guint n = c->arch->levels->len;
  guint64 instances = 1;

  c->arch->instances_above = g_new (guint64, n);
  for (guint i = 0; i < n; i++)
    {
      FfmLevel *level = c->arch->levels->pdata[i];
      c->arch->instances_above[i] = instances;
      if (level->kind != FFM_LEVEL_FANOUT)
        continue;
      for (guint d = 0; d < level->u.fanout.n_dims; d++)
        if (!g_uint64_checked_mul (&instances, instances,
                                   level->u.fanout.dims[d].count))
          return check_fail (c, (int) i, (int) d, "count",
                             "the product of the fanout counts overflows");
    }
  return TRUE;
}

gboolean
ffm_arch_finish_located (FfmArch *arch, FfmArchProblem *problem,
                         GError **error)
{
  Check c = { arch, problem, error };

  g_return_val_if_fail (arch != NULL && !arch->finished, FALSE);
  g_return_val_if_fail (problem != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  *problem = (FfmArchProblem) { -1, -1, -1, NULL };
  if (!check_structure (&c))
    return FALSE;
  for (guint i = 0; i < arch->levels->len; i++)
    if (!check_level_name (&c, (int) i))
      return FALSE;
  for (guint i = 0; i < arch->levels->len; i++)
    if (!check_level (&c, (int) i))
      return FALSE;
  g_clear_pointer (&arch->instances_above, g_free);
  if (!compute_instances (&c))
    return FALSE;
  arch->finished = TRUE;
  return TRUE;
}

/**
 * ffm_arch_finish:
 * @arch: an architecture being built
 * @error: return location for an error
 *
 * Checks the hierarchy and parses its expressions; see ffm-arch.h.
 *
 * Returns: TRUE if the architecture is valid and now immutable
 */
gboolean
ffm_arch_finish (FfmArch *arch, GError **error)
{
  FfmArchProblem problem;
  GError *local = NULL;

  g_return_val_if_fail (arch != NULL && !arch->finished, FALSE);
  if (ffm_arch_finish_located (arch, &problem, &local))
    return TRUE;
  g_prefix_error (&local, "architecture %s: ", arch->name);
  g_propagate_error (error, local);
  return FALSE;
}

/* ---- Reading ---- */

const char *
ffm_arch_get_name (const FfmArch *arch)
{
  g_return_val_if_fail (arch != NULL, NULL);
  return arch->name;
}

const char *
ffm_arch_get_description (const FfmArch *arch)
{
  g_return_val_if_fail (arch != NULL, NULL);
  return arch->description;
}

const char *
ffm_arch_get_source (const FfmArch *arch)
{
  g_return_val_if_fail (arch != NULL, NULL);
  return arch->source;
}

const char *const *
ffm_arch_get_variable_names (const FfmArch *arch)
{
  g_return_val_if_fail (arch != NULL, NULL);
  return (const char *const *) arch->variable_names->pdata;
}

gboolean
ffm_arch_get_variable (const FfmArch *arch, const char *name, double *value)
{
  int i;

  g_return_val_if_fail (arch != NULL && name != NULL, FALSE);
  i = find_variable (arch, name);
  if (i < 0)
    return FALSE;
  if (value != NULL)
    *value = g_array_index (arch->variable_values, double, i);
  return TRUE;
}

guint
ffm_arch_get_n_levels (const FfmArch *arch)
{
  g_return_val_if_fail (arch != NULL, 0);
  return arch->levels->len;
}

const FfmLevel *
ffm_arch_get_level (const FfmArch *arch, guint index)
{
  g_return_val_if_fail (arch != NULL && index < arch->levels->len, NULL);
  return arch->levels->pdata[index];
}

int
ffm_arch_find_level (const FfmArch *arch, const char *name)
{
  g_return_val_if_fail (arch != NULL && name != NULL, -1);
  for (guint i = 0; i < arch->levels->len; i++)
    if (strcmp (((FfmLevel *) arch->levels->pdata[i])->name, name) == 0)
      return (int) i;
  return -1;
}

guint64
ffm_arch_get_instances_above (const FfmArch *arch, guint index)
{
  g_return_val_if_fail (arch != NULL && arch->finished, 0);
  g_return_val_if_fail (index < arch->levels->len, 0);
  return arch->instances_above[index];
}

double
ffm_arch_get_level_area (const FfmArch *arch, guint index)
{
  g_return_val_if_fail (arch != NULL && arch->finished, 0);
  g_return_val_if_fail (index < arch->levels->len, 0);
  return ((const FfmLevel *) arch->levels->pdata[index])->area
    * (double) arch->instances_above[index];
}

double
ffm_arch_get_area (const FfmArch *arch)
{
  double area = 0;

  g_return_val_if_fail (arch != NULL && arch->finished, 0);
  for (guint l = 0; l < arch->levels->len; l++)
    area += ffm_arch_get_level_area (arch, l);
  return area;
}

guint64
ffm_arch_get_fanout_count (const FfmArch *arch, guint index)
{
  const FfmLevel *level;
  guint64 count = 1;

  g_return_val_if_fail (arch != NULL && arch->finished, 0);
  g_return_val_if_fail (index < arch->levels->len, 0);
  level = arch->levels->pdata[index];
  if (level->kind == FFM_LEVEL_FANOUT)
    for (guint d = 0; d < level->u.fanout.n_dims; d++)
      count *= level->u.fanout.dims[d].count;  /* finish checked overflow */
  return count;
}

guint *
ffm_arch_get_compute_path (const FfmArch *arch, guint compute,
                           guint *n_levels)
{
  guint *path;
  guint n = 0;

  g_return_val_if_fail (arch != NULL && n_levels != NULL, NULL);
  g_return_val_if_fail (compute < arch->levels->len, NULL);
  g_return_val_if_fail (((FfmLevel *) arch->levels->pdata[compute])->kind
                        == FFM_LEVEL_COMPUTE, NULL);
  path = g_new (guint, compute + 1);
  for (guint i = 0; i < compute; i++)
    if (((FfmLevel *) arch->levels->pdata[i])->kind != FFM_LEVEL_COMPUTE)
      path[n++] = i;
  path[n++] = compute;
  *n_levels = n;
  return path;
}

/* ---- Evaluating set expressions for one Einsum ---- */

/* What names mean while evaluating one expression of one level. */
typedef struct {
  const FfmArch *arch;
  guint level;
  const guint64 *kept;          /* per level; NULL = no memory names */
  guint64 above;                /* union of kept[] over memories above */
  FfmEinsumSetScope *set_scope; /* for SET.bits_per_value */
  const FfmWorkload *workload;
  const FfmEinsum *einsum;
  gboolean has_bits;            /* `bits` is defined (bits overrides) */
  double bits;
  gboolean rank_var_mode;       /* names are rank variables (allowed_rank_vars) */
  guint rank_var;               /* the variable being tested */
} EvalContext;

static double
set_max_bits (const EvalContext *ctx, guint64 set)
{
  double bits = 0;

  for (guint a = 0; a < ctx->einsum->n_accesses; a++)
    if (set & (G_GUINT64_CONSTANT (1) << a))
      {
        const FfmTensor *t = ffm_workload_get_tensor (ctx->workload,
                                                      ctx->einsum->accesses[a].tensor);
        bits = MAX (bits, (double) t->bits_per_value);
      }
  return bits;
}

static gboolean
resolve_kept_memory (const EvalContext *ctx, const char *name, FfmValue *out)
{
  size_t n = strlen (name);
  g_autofree char *base = NULL;
  int index;

  if (g_ascii_strcasecmp (name, "above") == 0)
    {
      out->type = FFM_VALUE_SET;
      out->set = ctx->above;
      return TRUE;
    }
  if (n > strlen (".tensors") && g_str_has_suffix (name, ".tensors"))
    base = g_strndup (name, n - strlen (".tensors"));
  index = ffm_arch_find_level (ctx->arch, base ? base : name);
  if (index < 0 || (guint) index >= ctx->level
      || ((FfmLevel *) ctx->arch->levels->pdata[index])->kind != FFM_LEVEL_MEMORY)
    return FALSE;
  out->type = FFM_VALUE_SET;
  out->set = ctx->kept[index];
  return TRUE;
}

static gboolean
eval_resolve (const char *name, FfmValue *out, gpointer user_data)
{
  EvalContext *ctx = user_data;
  double value;

  memset (out, 0, sizeof *out);
  if (ctx->has_bits && strcmp (name, "bits") == 0)
    {
      out->type = FFM_VALUE_NUMBER;
      out->number = ctx->bits;
      return TRUE;
    }
  if (ctx->rank_var_mode)
    {
      int v = ffm_einsum_find_rank_var (ctx->einsum, name);
      if (v >= 0 || !ffm_arch_get_variable (ctx->arch, name, &value))
        value = v >= 0 && (guint) v == ctx->rank_var;
      out->type = FFM_VALUE_NUMBER;
      out->number = value;
      return TRUE;
    }
  if (ctx->kept != NULL && resolve_kept_memory (ctx, name, out))
    return TRUE;
  if (g_str_has_suffix (name, ".bits_per_value") && ctx->set_scope != NULL)
    {
      g_autofree char *base = g_strndup (name, strlen (name)
                                               - strlen (".bits_per_value"));
      FfmValue set;
      memset (&set, 0, sizeof set);
      if (!ctx->set_scope->scope.resolve (base, &set,
                                          ctx->set_scope->scope.user_data)
          || set.type != FFM_VALUE_SET)
        return FALSE;
      out->type = FFM_VALUE_NUMBER;
      out->number = set_max_bits (ctx, set.set);
      return TRUE;
    }
  if (ffm_arch_get_variable (ctx->arch, name, &value))
    {
      out->type = FFM_VALUE_NUMBER;
      out->number = value;
      return TRUE;
    }
  return FALSE;
}

/* Prepares @ctx and @set_scope for evaluating expressions of @level for
 * @einsum; @extra must outlive the evaluations. */
static void
eval_context_init (EvalContext *ctx, FfmExprScope *extra,
                   FfmEinsumSetScope *set_scope, const FfmArch *arch,
                   guint level, const FfmWorkload *workload, guint einsum)
{
  memset (ctx, 0, sizeof *ctx);
  ctx->arch = arch;
  ctx->level = level;
  ctx->workload = workload;
  ctx->einsum = ffm_workload_get_einsum (workload, einsum);
  ctx->set_scope = set_scope;
  extra->resolve = eval_resolve;
  extra->user_data = ctx;
  extra->universe = 0;
  ffm_einsum_set_scope_init (set_scope, workload, einsum, extra);
}

/* Wraps an evaluation error with the architecture, level, field and Einsum. */
static gboolean
eval_failed (const EvalContext *ctx, const char *field, GError *local,
             GError **error)
{
  const FfmLevel *level = ctx->arch->levels->pdata[ctx->level];

  g_set_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID,
               "architecture %s: %s %s: %s for Einsum %s: %s", ctx->arch->name,
               level_kind_name (level->kind), level->name, field,
               ctx->einsum->name, local->message);
  g_error_free (local);
  return FALSE;
}

static gboolean
check_level_args (const FfmArch *arch, guint level, FfmLevelKind kind,
                  const FfmWorkload *workload, guint einsum)
{
  g_return_val_if_fail (arch != NULL && arch->finished, FALSE);
  g_return_val_if_fail (level < arch->levels->len, FALSE);
  g_return_val_if_fail (((FfmLevel *) arch->levels->pdata[level])->kind == kind,
                        FALSE);
  g_return_val_if_fail (workload != NULL, FALSE);
  g_return_val_if_fail (einsum < ffm_workload_get_n_einsums (workload), FALSE);
  return TRUE;
}

gboolean
ffm_arch_eval_keep (const FfmArch *arch, guint level,
                    const FfmWorkload *workload, guint einsum,
                    const guint64 *kept, guint64 *must, guint64 *may,
                    GError **error)
{
  const FfmMemorySpec *m;
  EvalContext ctx;
  FfmExprScope extra;
  FfmEinsumSetScope set_scope;
  GError *local = NULL;
  guint64 keep = 0, may_keep;

  if (!check_level_args (arch, level, FFM_LEVEL_MEMORY, workload, einsum))
    return FALSE;
  g_return_val_if_fail (must != NULL && may != NULL, FALSE);
  m = &((FfmLevel *) arch->levels->pdata[level])->u.memory;
  eval_context_init (&ctx, &extra, &set_scope, arch, level, workload, einsum);
  ctx.kept = kept;
  for (guint i = 0; kept != NULL && i < level; i++)
    if (((FfmLevel *) arch->levels->pdata[i])->kind == FFM_LEVEL_MEMORY)
      ctx.above |= kept[i];

  if (m->keep_expr != NULL
      && !ffm_expr_evaluate_set (m->keep_expr, &set_scope.scope, &keep, &local))
    return eval_failed (&ctx, "keep", local, error);
  if (m->may_keep_expr != NULL)
    {
      if (!ffm_expr_evaluate_set (m->may_keep_expr, &set_scope.scope,
                                  &may_keep, &local))
        return eval_failed (&ctx, "may_keep", local, error);
    }
  else
    may_keep = m->keep_expr != NULL ? 0 : set_scope.scope.universe;
  *must = keep & set_scope.scope.universe;
  *may = (may_keep | keep) & set_scope.scope.universe;
  return TRUE;
}

gboolean
ffm_arch_compute_enabled (const FfmArch *arch, guint level,
                          const FfmWorkload *workload, guint einsum,
                          gboolean *enabled, GError **error)
{
  const FfmComputeSpec *compute;
  EvalContext ctx;
  FfmExprScope extra;
  FfmEinsumSetScope set_scope;
  GError *local = NULL;

  if (!check_level_args (arch, level, FFM_LEVEL_COMPUTE, workload, einsum))
    return FALSE;
  g_return_val_if_fail (enabled != NULL, FALSE);
  compute = &((FfmLevel *) arch->levels->pdata[level])->u.compute;
  *enabled = TRUE;
  if (compute->enabled_expr == NULL)
    return TRUE;
  eval_context_init (&ctx, &extra, &set_scope, arch, level, workload, einsum);
  if (!ffm_expr_evaluate_bool (compute->enabled_expr, &set_scope.scope, enabled,
                               &local))
    return eval_failed (&ctx, "enabled", local, error);
  return TRUE;
}

gboolean
ffm_arch_fanout_reuse_masks (const FfmArch *arch, guint level, guint dim,
                             const FfmWorkload *workload, guint einsum,
                             guint64 *reuse, guint64 *may_reuse,
                             GError **error)
{
  const FfmFanoutDim *d;
  EvalContext ctx;
  FfmExprScope extra;
  FfmEinsumSetScope set_scope;
  GError *local = NULL;
  guint64 r = 0, mr;

  if (!check_level_args (arch, level, FFM_LEVEL_FANOUT, workload, einsum))
    return FALSE;
  g_return_val_if_fail (dim < ((FfmLevel *) arch->levels->pdata[level])->u.fanout.n_dims,
                        FALSE);
  d = &((FfmLevel *) arch->levels->pdata[level])->u.fanout.dims[dim];
  eval_context_init (&ctx, &extra, &set_scope, arch, level, workload, einsum);
  if (d->reuse_expr != NULL
      && !ffm_expr_evaluate_set (d->reuse_expr, &set_scope.scope, &r, &local))
    return eval_failed (&ctx, "reuse", local, error);
  if (d->may_reuse_expr != NULL)
    {
      if (!ffm_expr_evaluate_set (d->may_reuse_expr, &set_scope.scope, &mr,
                                  &local))
        return eval_failed (&ctx, "may_reuse", local, error);
    }
  else
    mr = d->reuse_expr != NULL ? r : set_scope.scope.universe;
  if (reuse != NULL)
    *reuse = r & set_scope.scope.universe;
  if (may_reuse != NULL)
    *may_reuse = mr & set_scope.scope.universe;
  return TRUE;
}

gboolean
ffm_arch_fanout_spatial_vars (const FfmArch *arch, guint level, guint dim,
                              const FfmWorkload *workload, guint einsum,
                              guint64 *vars, GError **error)
{
  const FfmFanoutDim *d;
  EvalContext ctx;
  FfmExprScope scope;
  guint64 reuse, out = 0;

  g_return_val_if_fail (vars != NULL, FALSE);
  if (!ffm_arch_fanout_reuse_masks (arch, level, dim, workload, einsum, &reuse,
                                    NULL, error))
    return FALSE;
  d = &((FfmLevel *) arch->levels->pdata[level])->u.fanout.dims[dim];
  memset (&ctx, 0, sizeof ctx);
  ctx.arch = arch;
  ctx.level = level;
  ctx.workload = workload;
  ctx.einsum = ffm_workload_get_einsum (workload, einsum);
  ctx.rank_var_mode = TRUE;
  scope = (FfmExprScope) { eval_resolve, &ctx, 0 };
  for (guint v = 0; v < ctx.einsum->n_rank_vars; v++)
    {
      gboolean allowed = TRUE;
      GError *local = NULL;

      ctx.rank_var = v;
      if (d->allowed_rank_vars_expr != NULL
          && !ffm_expr_evaluate_bool (d->allowed_rank_vars_expr, &scope,
                                      &allowed, &local))
        return eval_failed (&ctx, "allowed_rank_vars", local, error);
      for (guint a = 0; allowed && a < ctx.einsum->n_accesses; a++)
        if ((reuse & (G_GUINT64_CONSTANT (1) << a))
            && ffm_access_uses_var (ctx.einsum, a, v))
          allowed = FALSE;
      if (allowed)
        out |= G_GUINT64_CONSTANT (1) << v;
    }
  *vars = out;
  return TRUE;
}

gboolean
ffm_arch_bits_per_value (const FfmArch *arch, guint level,
                         const FfmWorkload *workload, guint einsum,
                         guint access, double *bits, GError **error)
{
  const FfmLevel *l;
  const FfmEinsum *e;
  const FfmTensor *tensor;
  const GArray *overrides;
  EvalContext ctx;
  FfmExprScope extra;
  FfmEinsumSetScope set_scope;

  g_return_val_if_fail (arch != NULL && arch->finished && bits != NULL, FALSE);
  g_return_val_if_fail (level < arch->levels->len && workload != NULL, FALSE);
  g_return_val_if_fail (einsum < ffm_workload_get_n_einsums (workload), FALSE);
  e = ffm_workload_get_einsum (workload, einsum);
  g_return_val_if_fail (access < e->n_accesses, FALSE);
  tensor = ffm_workload_get_tensor (workload, e->accesses[access].tensor);
  *bits = tensor->bits_per_value;
  l = arch->levels->pdata[level];
  overrides = l->kind == FFM_LEVEL_MEMORY ? l->u.memory.bits_overrides : NULL;
  if (overrides == NULL || overrides->len == 0)
    return TRUE;

  eval_context_init (&ctx, &extra, &set_scope, arch, level, workload, einsum);
  for (guint i = 0; i < overrides->len; i++)
    {
      const FfmBitsOverride *o = &g_array_index (overrides, FfmBitsOverride, i);
      GError *local = NULL;
      guint64 set;

      if (!ffm_expr_evaluate_set (o->tensors_expr, &set_scope.scope, &set, &local))
        return eval_failed (&ctx, "bits_per_value", local, error);
      if (!(set & (G_GUINT64_CONSTANT (1) << access)))
        continue;
      if (o->bits_expr == NULL)
        {
          *bits = o->bits;
          return TRUE;
        }
      ctx.has_bits = TRUE;
      ctx.bits = tensor->bits_per_value;
      if (!ffm_expr_evaluate_number (o->bits_expr, &set_scope.scope, bits, &local))
        return eval_failed (&ctx, "bits_per_value", local, error);
      if (!(*bits > 0 && isfinite (*bits)))
        {
          g_set_error (&local, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID,
                       "\"%s\" gives %g bits per value for tensor %s "
                       "(expected a finite number > 0)", o->bits_text, *bits,
                       tensor->name);
          return eval_failed (&ctx, "bits_per_value", local, error);
        }
      return TRUE;
    }
  return TRUE;
}

/* @value unless it is NAN (unset), else @fallback. */
static double
energy_or (double value, double fallback)
{
  return isnan (value) ? fallback : value;
}

gboolean
ffm_arch_action_energies (const FfmArch *arch, guint level,
                          const FfmWorkload *workload, guint einsum,
                          guint access, FfmActionEnergies *out, GError **error)
{
  const FfmMemorySpec *m;
  const FfmEnergyOverride *chosen = NULL;

  if (!check_level_args (arch, level, FFM_LEVEL_MEMORY, workload, einsum))
    return FALSE;
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (access < ffm_workload_get_einsum (workload, einsum)->n_accesses,
                        FALSE);
  m = &((FfmLevel *) arch->levels->pdata[level])->u.memory;
  if (m->energy_overrides != NULL && m->energy_overrides->len > 0)
    {
      EvalContext ctx;
      FfmExprScope extra;
      FfmEinsumSetScope set_scope;

      eval_context_init (&ctx, &extra, &set_scope, arch, level, workload, einsum);
      for (guint i = 0; i < m->energy_overrides->len && chosen == NULL; i++)
        {
          const FfmEnergyOverride *o = &g_array_index (m->energy_overrides,
                                                       FfmEnergyOverride, i);
          GError *local = NULL;
          guint64 set;

          if (!ffm_expr_evaluate_set (o->tensors_expr, &set_scope.scope, &set,
                                      &local))
            return eval_failed (&ctx, "energy_by_tensor", local, error);
          if (set & (G_GUINT64_CONSTANT (1) << access))
            chosen = o;
        }
    }
  /* The override first, then the memory's action energy, then its read or
   * write energy; a drain defaults to what a read costs. */
  out->read = energy_or (chosen != NULL ? chosen->energies.read : NAN,
                         m->read_energy);
  out->fill = energy_or (chosen != NULL ? chosen->energies.fill : NAN,
                         energy_or (m->fill_energy, m->write_energy));
  out->update = energy_or (chosen != NULL ? chosen->energies.update : NAN,
                           energy_or (m->update_energy, m->write_energy));
  out->drain = !m->drains_read ? 0
    : energy_or (chosen != NULL ? chosen->energies.drain : NAN,
                 energy_or (m->drain_energy, out->read));
  return TRUE;
}

gboolean
ffm_arch_memory_size (const FfmArch *arch, guint level,
                      const FfmWorkload *workload, guint einsum,
                      double *bits, GError **error)
{
  const FfmMemorySpec *m;
  EvalContext ctx;
  FfmExprScope extra;
  FfmEinsumSetScope set_scope;
  GError *local = NULL;

  if (!check_level_args (arch, level, FFM_LEVEL_MEMORY, workload, einsum))
    return FALSE;
  g_return_val_if_fail (bits != NULL, FALSE);
  m = &((FfmLevel *) arch->levels->pdata[level])->u.memory;
  if (m->size_per_einsum_expr == NULL)
    {
      *bits = m->size;
      return TRUE;
    }
  eval_context_init (&ctx, &extra, &set_scope, arch, level, workload, einsum);
  if (!ffm_expr_evaluate_number (m->size_per_einsum_expr, &set_scope.scope,
                                 bits, &local))
    return eval_failed (&ctx, "size", local, error);
  if (!(*bits >= 0))
    {
      g_set_error (&local, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID,
                   "\"%s\" gives a size of %g bits (expected a number >= 0)",
                   m->size_per_einsum, *bits);
      return eval_failed (&ctx, "size", local, error);
    }
  return TRUE;
}
