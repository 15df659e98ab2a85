/* ffm-cost-pmapping.c: the cost model's evaluator of one pmapping: one
 * Einsum's pmapping compiled into flat arrays, and its evaluation, the
 * innermost loop of every search.
 *
 * Compiling resolves names to indices, checks the path against the workload
 * and the architecture, places reservations (as in the reference implementation, accelforge) and builds
 * one *view* per tensor (§3.3): the loops, the tensor's holders (its storage
 * nodes and the compute unit) and its reservations, with each spatial loop
 * moved to just above the first holder its fanout replicates. A view is
 * stored as a list of steps; each loop step carries the flags the counting
 * needs (spatial, relevant to the tensor, multicast), each holder and
 * reservation a tile expression (which loop gives the current tile of each
 * rank variable).
 *
 * Evaluating walks every view once, top-down, keeping running products of
 * the loops' iteration counts, and at each holder adds the closed form of
 * the recursive accounting (§3.4, §3.4b; docs/cost-model.md) for the
 * transfer between the holder and its parent. Nothing is allocated, nothing
 * is looked up by name.
 *
 * Timeloop's counting, where the architecture asks for it (FfmMemorySpec
 * whole_actions and cluster_size, FfmLevel leak_utilized, FfmComputeSpec
 * operand_reuse; docs/cost-model.md, "Conventions"): actions rounded up
 * per instance, tensor and kind; a cluster's instances sharing accesses;
 * leak on the instances the spatial loops use; and an input operand kept
 * by the compute unit across the innermost temporal loops that do not
 * index it (its holder sits above them in the view). None of it costs the
 * common case anything: the first three are a separate pass over the
 * buffets and levels that only such architectures take.
 *
 * Units: counts in values, actions = values x action_scale, bits, J, s. */
#include <ffm/ffm-cost.h>
#include "ffm-cost-private.h"
#include "ffm-tile-chain-private.h"

#include <math.h>
#include <string.h>

/* ---- Representation ---- */

typedef enum {
  REL_IRRELEVANT = 0,
  REL_PARTIAL,          /* the variable appears in a multi-term index (p+r) */
  REL_RELEVANT,         /* some rank is indexed by the variable alone */
} Relevancy;

enum {
  STEP_LOOP = 1,
  STEP_HOLDER,
  STEP_RESERVATION,
};

enum {
  LOOP_SPATIAL = 1 << 0,
  LOOP_RELEVANT = 1 << 1,   /* temporal, relevant: multiplies first fills */
  LOOP_MULTICAST = 1 << 2,  /* spatial, one parent transfer serves all instances */
};

/* Extent product of one access: ranks [first_rank, first_rank + n_ranks) of
 * the model's rank table. When every rank is indexed by one variable with
 * coefficient 1 (plain), the tile is the product of the values at
 * term_src[first_term .. first_term + n_ranks). */
typedef struct {
  guint16 first_rank;
  guint16 first_term;
  guint8 n_ranks;
  guint8 plain;
} TileExpr;

/* One step of a tensor's view. */
typedef struct {
  guint8 kind;              /* STEP_* */
  guint8 flags;             /* LOOP_* for loop steps */
  guint16 index;            /* loop, holder or buffet index */
} Step;

/* A holder of a tensor in its view: a storage buffet or the compute unit. */
typedef struct {
  int buffet;               /* -1 = the compute unit */
  gboolean skip;            /* skips the initial fill of an output */
  TileExpr tile;            /* tile held, at the holder */
} Holder;

/* One tensor's view. */
typedef struct {
  guint access;
  gboolean output;          /* written by the Einsum (never for a copy) */
  guint first_step;
  guint n_steps;
  guint32 uses;             /* rank variables in some index of the tensor */
} View;

/* Where a loop sits for one holder of a view, relative to the holder and
 * its parent (the counting of remainder tiles, count_imperfect()). */
enum {
  CAT_NONE = 0,             /* not above the holder */
  CAT_A = 1 << 0,           /* spatial, above the parent: fixes the parent's instance */
  CAT_B = 1 << 1,           /* temporal */
  CAT_C = 1 << 2,           /* spatial between parent and holder, not multicast */
  CAT_D = 1 << 3,           /* spatial between them, multicast */
  CAT_ALL = CAT_A | CAT_B | CAT_C | CAT_D,
};

typedef struct {
  FfmBuffetInfo info;
  TileExpr reservation;     /* tile at the reservation (occupancy) */
  gboolean level_skip;      /* the memory skips initial output writes */
  guint64 drain_mask;       /* all ones when drains are read actions, else 0 */
} Buffet;

/* The numbers of one architecture level that evaluation reads. */
typedef struct {
  FfmLevelKind kind;
  gboolean on_path;
  double read_energy;       /* J per action (compute: per operation) */
  double write_energy;
  double read_bandwidth;    /* actions per s per instance (compute: ops per s) */
  double write_bandwidth;
  gboolean separate_ports;
  gboolean two_energies;    /* no per-action energies: read x read_energy +
                               write x write_energy, as before they existed */
  double size;              /* bits, memories */
  /* Timeloop's counting (memories): */
  gboolean whole;           /* actions rounded up per instance and kind */
  double cluster;           /* instances sharing one access */
  double bits_per_action;
  double instances;         /* every fanout above */
  double leak_power;        /* W per instance */
  gboolean leak_utilized;   /* leak on the instances used only */
} LevelParams;

struct _FfmPmappingModel {
  FfmWorkload *workload;
  FfmArch *arch;
  char *source;
  GPtrArray *nodes;         /* of const FfmMappingNode *, not owned */
  guint einsum;
  guint compute_level;
  gboolean is_copy;

  guint n_vars;
  guint64 bounds[FFM_MAX_EINSUM_RANK_VARS];

  guint n_loops;
  FfmLoopInfo *loops;
  guint64 *tiles;           /* default tiles, from the nodes */
  guint16 *enclosing_src;   /* [n_loops] index into the evaluation's values */

  guint n_buffets;
  Buffet *buffets;
  guint n_fanout_dims;
  FfmFanoutDimInfo *fanout_dims;

  guint n_views;
  View views[FFM_MAX_EINSUM_TENSORS];
  Step *steps;
  Holder *holders;
  guint8 *holder_cats;      /* [holders x n_loops]: CAT_* of each loop for
                               each holder */

  guint16 *rank_first_term; /* rank table */
  guint16 *rank_n_terms;
  guint16 *term_src;        /* index into the evaluation's values */
  guint64 *term_coef;
  guint8 *term_var;         /* the term's rank variable */

  /* Remainder tiles: each variable's loops in path order, and whether the
   * model can count tiles that do not divide (else why not). */
  guint8 var_n_loops[FFM_MAX_EINSUM_RANK_VARS];
  guint8 var_loops[FFM_MAX_EINSUM_RANK_VARS][FFM_COST_MAX_LOOPS];
  gboolean imperfect_ok;
  const char *imperfect_refusal;

  guint n_levels;
  LevelParams *levels;
  guint *path;
  guint n_path;
  double total_leak_power;  /* W: every level, every instance */
  gboolean per_action;      /* some memory on the path has per-action energies */
  gboolean counted;         /* some memory on the path rounds or clusters */
  guint64 reuse_skip[FFM_MAX_EINSUM_TENSORS]; /* per access: the loops below the
                                                 compute unit's holder (operand
                                                 reuse), bit j = loop j */
  gboolean leak_utilized;   /* some level with leak leaks on used instances */
  gboolean no_overflow;     /* largest footprint x operations fits in 64 bits */
};

/* ---- Errors ---- */

void
ffm_cost_node_error (GError **error, const char *source,
                     const FfmMappingNode *node, const char *format, ...)
{
  g_autofree char *message = NULL;
  GString *text = g_string_new (NULL);
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (source != NULL)
    g_string_append_printf (text, "%s:", source);
  if (node != NULL && node->line > 0)
    g_string_append_printf (text, "%d:", node->line);
  if (text->len > 0)
    g_string_append_c (text, ' ');
  if (node != NULL && node->json_path != NULL)
    g_string_append_printf (text, "%s: ", node->json_path);
  g_string_append (text, message);
  g_set_error_literal (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                       text->str);
  g_string_free (text, TRUE);
}

const char *
ffm_cost_status_to_string (FfmCostStatus status)
{
  switch (status)
    {
    case FFM_COST_VALID:
      return "valid";
    case FFM_COST_DOES_NOT_FIT:
      return "does not fit";
    case FFM_COST_FANOUT_EXCEEDED:
      return "fanout exceeded";
    case FFM_COST_BAD_TILES:
      return "bad tiles";
    case FFM_COST_OVERFLOW:
      return "overflow";
    default:
      return "unknown";
    }
}

/* ---- Compiling ---- */

/* One node of the path as the compiler sees it (storage nodes are split
 * into one entry per tensor the Einsum uses, in the node's order). */
typedef enum {
  ENTRY_STORAGE = 1,
  ENTRY_LOOP,
} EntryKind;

typedef struct {
  EntryKind kind;
  guint node;               /* index in the path */
  guint access;             /* STORAGE */
  guint level;              /* STORAGE */
  gboolean persistent;      /* STORAGE */
  int buffet;               /* STORAGE: buffet index, -1 if dropped (copy) */
  guint loop;               /* LOOP */
} Entry;

/* Everything the compiler builds before it is frozen into the model. */
typedef struct {
  FfmPmappingModel *m;
  const FfmEinsum *einsum;
  int *pathpos;             /* [n_levels] position on the compute path, -1 = off */
  GArray *entries;          /* of Entry */
  int *fanout_pathpos;      /* [n_loops] spatial loops: their fanout's path position */
  guint64 *may_reuse;       /* [n_fanout_dims] access masks */
  int *reservation_gap;     /* [n_buffets] entry after which the reservation sits */
  Relevancy rel[FFM_MAX_EINSUM_TENSORS][FFM_MAX_EINSUM_RANK_VARS];
  GArray *steps;            /* of Step */
  GArray *holders;          /* of Holder */
  GArray *rank_first_term;  /* of guint16 */
  GArray *rank_n_terms;
  GArray *term_src;
  GArray *term_coef;        /* of guint64 */
  GArray *term_var;         /* of guint8 */
  GArray *holder_cats;      /* of guint8 */
} Compiler;

static const FfmMappingNode *
path_node (const FfmPmappingModel *m, guint index)
{
  return g_ptr_array_index (m->nodes, index);
}

static gboolean
fail_at (Compiler *c, guint node, GError **error, const char *format, ...)
  G_GNUC_PRINTF (4, 5);

static gboolean
fail_at (Compiler *c, guint node, GError **error, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  ffm_cost_node_error (error, c->m->source, path_node (c->m, node), "%s",
                       message);
  return FALSE;
}

/* Re-labels an error from the architecture helpers with the node. */
static gboolean
fail_from (Compiler *c, guint node, GError *local, GError **error)
{
  fail_at (c, node, error, "%s", local->message);
  g_error_free (local);
  return FALSE;
}

static void
compute_relevancy (Compiler *c)
{
  const FfmEinsum *e = c->einsum;

  memset (c->rel, 0, sizeof c->rel);
  for (guint a = 0; a < e->n_accesses; a++)
    {
      const FfmTensor *t = ffm_workload_get_tensor (c->m->workload,
                                                    e->accesses[a].tensor);
      for (guint r = 0; r < t->n_ranks; r++)
        {
          const FfmProjection *p = &e->accesses[a].projections[r];
          for (guint k = 0; k < p->n_terms; k++)
            {
              guint v = p->terms[k].var;
              if (p->n_terms == 1)
                c->rel[a][v] = REL_RELEVANT;
              else if (c->rel[a][v] == REL_IRRELEVANT)
                c->rel[a][v] = REL_PARTIAL;
            }
        }
    }
}

/* TRUE if some rank of access @a is indexed by an expression that uses both
 * @v1 and @v2 (or @v1 when they are equal). */
static gboolean
share_index (const Compiler *c, guint a, guint v1, guint v2)
{
  const FfmEinsum *e = c->einsum;
  const FfmTensor *t = ffm_workload_get_tensor (c->m->workload,
                                                e->accesses[a].tensor);

  for (guint r = 0; r < t->n_ranks; r++)
    {
      const FfmProjection *p = &e->accesses[a].projections[r];
      gboolean has1 = FALSE, has2 = FALSE;
      for (guint k = 0; k < p->n_terms; k++)
        {
          has1 |= p->terms[k].var == v1;
          has2 |= p->terms[k].var == v2;
        }
      if (has1 && has2)
        return TRUE;
    }
  return FALSE;
}

static gboolean
resolve_compute (Compiler *c, GError **error)
{
  FfmPmappingModel *m = c->m;
  guint last = m->nodes->len - 1;
  const FfmMappingNode *node = path_node (m, last);
  GError *local = NULL;
  gboolean enabled;
  int einsum, level;

  if (node->kind != FFM_NODE_COMPUTE)
    return fail_at (c, last, error, "a path must end in a compute node");
  einsum = ffm_workload_find_einsum (m->workload, node->einsum);
  if (einsum < 0)
    {
      g_autofree char *why = ffm_workload_explain_missing (m->workload, node->einsum);
      return fail_at (c, last, error, "workload %s has no Einsum %s%s",
                      ffm_workload_get_name (m->workload), node->einsum, why);
    }
  level = node->level != NULL ? ffm_arch_find_level (m->arch, node->level) : -1;
  if (level < 0)
    return fail_at (c, last, error, "architecture %s has no level %s",
                    ffm_arch_get_name (m->arch),
                    node->level != NULL ? node->level : "(none)");
  if (ffm_arch_get_level (m->arch, level)->kind != FFM_LEVEL_COMPUTE)
    return fail_at (c, last, error, "level %s is not a compute unit",
                    node->level);
  m->einsum = einsum;
  m->compute_level = level;
  c->einsum = ffm_workload_get_einsum (m->workload, einsum);
  if (!ffm_arch_compute_enabled (m->arch, level, m->workload, einsum,
                                 &enabled, &local))
    return fail_from (c, last, local, error);
  if (!enabled)
    return fail_at (c, last, error,
                    "compute unit %s does not serve Einsum %s (its `enabled` "
                    "is false for it)", node->level, node->einsum);
  m->is_copy = c->einsum->is_copy;
  m->n_vars = c->einsum->n_rank_vars;
  memcpy (m->bounds, c->einsum->rank_var_bounds, sizeof m->bounds);

  m->path = ffm_arch_get_compute_path (m->arch, level, &m->n_path);
  c->pathpos = g_new (int, m->n_levels);
  for (guint i = 0; i < m->n_levels; i++)
    c->pathpos[i] = -1;
  for (guint i = 0; i < m->n_path; i++)
    c->pathpos[m->path[i]] = i;
  return TRUE;
}

/* The fanout level and dimension a spatial node names. The node may name
 * the fanout itself, or (the reference's convention, where fanouts belong to
 * a component) the level right below a fanout that has the dimension. */
static gboolean
resolve_fanout (Compiler *c, guint index, int *level_out, int *dim_out,
                GError **error)
{
  const FfmMappingNode *node = path_node (c->m, index);
  const FfmArch *arch = c->m->arch;
  int level = node->level != NULL ? ffm_arch_find_level (arch, node->level) : -1;
  const FfmLevel *l;

  if (level < 0)
    return fail_at (c, index, error, "architecture %s has no level %s",
                    ffm_arch_get_name (arch),
                    node->level != NULL ? node->level : "(none)");
  l = ffm_arch_get_level (arch, level);
  if (l->kind != FFM_LEVEL_FANOUT && level > 0
      && ffm_arch_get_level (arch, level - 1)->kind == FFM_LEVEL_FANOUT)
    {
      level--;
      l = ffm_arch_get_level (arch, level);
    }
  if (l->kind != FFM_LEVEL_FANOUT)
    return fail_at (c, index, error,
                    "level %s is not a fanout (spatial loops run across a "
                    "fanout's instances)", node->level);
  if (c->pathpos[level] < 0)
    return fail_at (c, index, error,
                    "fanout %s is not on the path of compute unit %s",
                    l->name, ffm_arch_get_level (arch, c->m->compute_level)->name);
  for (guint d = 0; d < l->u.fanout.n_dims; d++)
    if (node->dimension != NULL
        && strcmp (l->u.fanout.dims[d].name, node->dimension) == 0)
      {
        *level_out = level;
        *dim_out = d;
        return TRUE;
      }
  return fail_at (c, index, error, "fanout %s has no dimension %s", l->name,
                  node->dimension != NULL ? node->dimension : "(none)");
}

static gboolean
add_storage_entries (Compiler *c, guint index, GError **error)
{
  FfmPmappingModel *m = c->m;
  const FfmMappingNode *node = path_node (m, index);
  int level = node->level != NULL ? ffm_arch_find_level (m->arch, node->level) : -1;

  if (level < 0)
    return fail_at (c, index, error, "architecture %s has no level %s",
                    ffm_arch_get_name (m->arch),
                    node->level != NULL ? node->level : "(none)");
  if (ffm_arch_get_level (m->arch, level)->kind != FFM_LEVEL_MEMORY)
    return fail_at (c, index, error,
                    "level %s is not a memory and cannot keep tensors",
                    node->level);
  if (c->pathpos[level] < 0)
    return fail_at (c, index, error,
                    "memory %s is not on the path of compute unit %s",
                    node->level,
                    ffm_arch_get_level (m->arch, m->compute_level)->name);
  for (guint k = 0; node->tensors != NULL && node->tensors[k] != NULL; k++)
    {
      int tensor = ffm_workload_find_tensor (m->workload, node->tensors[k]);
      int access;
      Entry entry = { 0 };

      if (tensor < 0)
        {
          g_autofree char *why = ffm_workload_explain_missing (m->workload,
                                                               node->tensors[k]);
          return fail_at (c, index, error, "workload %s has no tensor %s%s",
                          ffm_workload_get_name (m->workload), node->tensors[k], why);
        }
      access = ffm_einsum_find_access (c->einsum, tensor);
      if (access < 0)
        continue;   /* another Einsum's tensor, above a split */
      for (guint i = 0; i < c->entries->len; i++)
        {
          const Entry *e = &g_array_index (c->entries, Entry, i);
          if (e->kind != ENTRY_STORAGE || e->access != (guint) access)
            continue;
          if (e->level == (guint) level)
            return fail_at (c, index, error,
                            "tensor %s is already kept in %s above this node",
                            node->tensors[k], node->level);
          if (c->pathpos[e->level] > c->pathpos[level])
            return fail_at (c, index, error,
                            "tensor %s is kept in %s, which is above %s where "
                            "it is already kept: a tensor's storage nodes go "
                            "from outer to inner memories",
                            node->tensors[k], node->level,
                            ffm_arch_get_level (m->arch, e->level)->name);
        }
      entry.kind = ENTRY_STORAGE;
      entry.node = index;
      entry.access = access;
      entry.level = level;
      entry.persistent = node->persistent;
      entry.buffet = -1;
      g_array_append_val (c->entries, entry);
    }
  return TRUE;
}

static gboolean
add_loop_entry (Compiler *c, guint index, GArray *loops, GArray *tiles,
                GArray *fanout_dims, GArray *fanout_pathpos, GError **error)
{
  FfmPmappingModel *m = c->m;
  const FfmMappingNode *node = path_node (m, index);
  const char *var_name = ffm_mapping_node_get_rank_var_for (node, c->einsum->name);
  int var = var_name != NULL ? ffm_einsum_find_rank_var (c->einsum, var_name) : -1;
  FfmLoopInfo loop = { 0 };
  Entry entry = { 0 };
  int fanout_pos = -1;

  /* A rank_vars entry for an Einsum the workload lacks is a typo or a
   * mapping of another workload, not something to skip. */
  for (guint i = 0; node->rank_var_einsums != NULL && node->rank_var_einsums[i] != NULL; i++)
    if (ffm_workload_find_einsum (m->workload, node->rank_var_einsums[i]) < 0)
      {
        g_autofree char *why = ffm_workload_explain_missing (m->workload,
                                                             node->rank_var_einsums[i]);
        return fail_at (c, index, error, "rank_vars names Einsum %s, which "
                        "workload %s does not have%s", node->rank_var_einsums[i],
                        ffm_workload_get_name (m->workload), why);
      }
  if (var < 0)
    return fail_at (c, index, error,
                    "loop over %s, a rank variable Einsum %s does not have "
                    "(%s)", var_name != NULL ? var_name : "(none)",
                    c->einsum->name, c->einsum->text);
  if (loops->len >= FFM_COST_MAX_LOOPS)
    return fail_at (c, index, error, "more than %d loops on one path",
                    FFM_COST_MAX_LOOPS);
  loop.node = index;
  loop.rank_var = var;
  loop.spatial = node->kind == FFM_NODE_SPATIAL;
  loop.fanout_dim = -1;
  loop.enclosing = -1;
  for (int j = (int) loops->len - 1; j >= 0; j--)
    if (g_array_index (loops, FfmLoopInfo, j).rank_var == (guint) var)
      {
        loop.enclosing = j;
        break;
      }
  if (loop.spatial)
    {
      int level = -1, dim = -1;
      guint64 allowed;
      GError *local = NULL;
      FfmFanoutDimInfo info = { 0 };
      guint slot;

      if (!resolve_fanout (c, index, &level, &dim, error))
        return FALSE;
      if (!ffm_arch_fanout_spatial_vars (m->arch, level, dim, m->workload,
                                         m->einsum, &allowed, &local))
        return fail_from (c, index, local, error);
      if (!(allowed & (G_GUINT64_CONSTANT (1) << var)))
        return fail_at (c, index, error,
                        "a spatial loop over %s is not allowed on %s.%s (its "
                        "`reuse` tensors or allowed rank variables exclude it)",
                        var_name,
                        ffm_arch_get_level (m->arch, level)->name,
                        ffm_arch_get_level (m->arch, level)->u.fanout.dims[dim].name);
      for (slot = 0; slot < fanout_dims->len; slot++)
        {
          const FfmFanoutDimInfo *f = &g_array_index (fanout_dims,
                                                      FfmFanoutDimInfo, slot);
          if (f->level == (guint) level && f->dim == (guint) dim)
            break;
        }
      if (slot == fanout_dims->len)
        {
          const FfmFanoutDim *fd =
            &ffm_arch_get_level (m->arch, level)->u.fanout.dims[dim];
          info.level = level;
          info.dim = dim;
          info.count = fd->count;
          info.min_usage = fd->min_usage;
          g_array_append_val (fanout_dims, info);
        }
      loop.fanout_dim = slot;
      fanout_pos = c->pathpos[level];
    }
  g_array_append_val (fanout_pathpos, fanout_pos);
  entry.kind = ENTRY_LOOP;
  entry.node = index;
  entry.loop = loops->len;
  g_array_append_val (loops, loop);
  g_array_append_val (tiles, node->tile);
  g_array_append_val (c->entries, entry);
  return TRUE;
}

static gboolean
collect_entries (Compiler *c, GError **error)
{
  FfmPmappingModel *m = c->m;
  g_autoptr(GArray) loops = g_array_new (FALSE, FALSE, sizeof (FfmLoopInfo));
  g_autoptr(GArray) tiles = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) fanout_dims = g_array_new (FALSE, FALSE,
                                               sizeof (FfmFanoutDimInfo));
  g_autoptr(GArray) fanout_pathpos = g_array_new (FALSE, FALSE, sizeof (int));

  for (guint i = 0; i + 1 < m->nodes->len; i++)
    {
      const FfmMappingNode *node = path_node (m, i);
      switch (node->kind)
        {
        case FFM_NODE_STORAGE:
          if (!add_storage_entries (c, i, error))
            return FALSE;
          break;
        case FFM_NODE_TEMPORAL:
        case FFM_NODE_SPATIAL:
          if (!add_loop_entry (c, i, loops, tiles, fanout_dims, fanout_pathpos,
                               error))
            return FALSE;
          break;
        case FFM_NODE_COMPUTE:
        case FFM_NODE_SEQUENTIAL:
        default:
          return fail_at (c, i, error,
                          "a compute or sequential node can only end a path");
        }
    }
  m->n_loops = loops->len;
  m->loops = (FfmLoopInfo *) g_array_free (g_steal_pointer (&loops), FALSE);
  m->tiles = (guint64 *) g_array_free (g_steal_pointer (&tiles), FALSE);
  m->n_fanout_dims = fanout_dims->len;
  m->fanout_dims = (FfmFanoutDimInfo *)
    g_array_free (g_steal_pointer (&fanout_dims), FALSE);
  c->fanout_pathpos = (int *) g_array_free (g_steal_pointer (&fanout_pathpos),
                                            FALSE);
  m->enclosing_src = g_new (guint16, MAX (m->n_loops, 1));
  for (guint j = 0; j < m->n_loops; j++)
    m->enclosing_src[j] = m->loops[j].enclosing >= 0
      ? (guint16) m->loops[j].enclosing
      : (guint16) (m->n_loops + m->loops[j].rank_var);
  return TRUE;
}

/* Every tensor of the Einsum kept somewhere, and only where allowed. */
static gboolean
check_storage (Compiler *c, GError **error)
{
  FfmPmappingModel *m = c->m;
  const FfmEinsum *e = c->einsum;
  g_autofree guint64 *kept = g_new0 (guint64, m->n_levels);
  guint64 stored = 0;

  for (guint i = 0; i < c->entries->len; i++)
    {
      const Entry *en = &g_array_index (c->entries, Entry, i);
      if (en->kind != ENTRY_STORAGE)
        continue;
      kept[en->level] |= G_GUINT64_CONSTANT (1) << en->access;
      stored |= G_GUINT64_CONSTANT (1) << en->access;
    }
  for (guint a = 0; a < e->n_accesses; a++)
    if (!(stored & (G_GUINT64_CONSTANT (1) << a)))
      return fail_at (c, m->nodes->len - 1, error,
                      "tensor %s of Einsum %s is not kept in any memory on "
                      "this path",
                      ffm_workload_get_tensor (m->workload,
                                               e->accesses[a].tensor)->name,
                      e->name);
  for (guint p = 0; p < m->n_path; p++)
    {
      guint level = m->path[p];
      guint64 must, may, bad;
      GError *local = NULL;

      if (kept[level] == 0)
        continue;
      if (!ffm_arch_eval_keep (m->arch, level, m->workload, m->einsum, kept,
                               &must, &may, &local))
        {
          for (guint i = 0; i < c->entries->len; i++)
            {
              const Entry *en = &g_array_index (c->entries, Entry, i);
              if (en->kind == ENTRY_STORAGE && en->level == level)
                return fail_from (c, en->node, local, error);
            }
          g_propagate_error (error, local);
          return FALSE;
        }
      bad = kept[level] & ~may;
      if (bad == 0)
        continue;
      for (guint i = 0; i < c->entries->len; i++)
        {
          const Entry *en = &g_array_index (c->entries, Entry, i);
          if (en->kind == ENTRY_STORAGE && en->level == level
              && (bad & (G_GUINT64_CONSTANT (1) << en->access)))
            {
              const FfmMemorySpec *ms =
                &ffm_arch_get_level (m->arch, level)->u.memory;
              return fail_at (c, en->node, error,
                              "memory %s may not keep tensor %s for Einsum %s "
                              "(keep: %s; may_keep: %s)",
                              ffm_arch_get_level (m->arch, level)->name,
                              ffm_workload_get_tensor (m->workload,
                                                       e->accesses[en->access].tensor)->name,
                              e->name,
                              ms->keep != NULL ? ms->keep : "nothing",
                              ms->may_keep != NULL ? ms->may_keep
                              : (ms->keep != NULL ? "nothing" : "all"));
            }
        }
    }
  return TRUE;
}

/* A copy Einsum moves its source to its destination: its storage nodes
 * become one chain of holders of the source, one per memory (the first
 * node of each memory), down to the deeper of the two backing nodes
 * (as in the reference implementation, accelforge; docs/cost-model.md). */
static gboolean
rewrite_copy (Compiler *c, GError **error)
{
  FfmPmappingModel *m = c->m;
  guint source = 0, dest = c->einsum->output_access;
  int backing_source = -1, backing_dest = -1, last, prev_pos = -1;
  g_autofree gboolean *level_seen = g_new0 (gboolean, m->n_levels);
  GArray *kept = g_array_new (FALSE, FALSE, sizeof (Entry));

  for (guint i = 0; i < c->entries->len; i++)
    {
      const Entry *en = &g_array_index (c->entries, Entry, i);
      if (en->kind != ENTRY_STORAGE)
        continue;
      if (en->access == source && backing_source < 0)
        backing_source = i;
      if (en->access == dest && backing_dest < 0)
        backing_dest = i;
    }
  last = MAX (backing_source, backing_dest);
  for (guint i = 0; i < c->entries->len; i++)
    {
      Entry en = g_array_index (c->entries, Entry, i);
      if (en.kind == ENTRY_STORAGE)
        {
          if ((int) i > last || level_seen[en.level])
            continue;
          level_seen[en.level] = TRUE;
          if (c->pathpos[en.level] < prev_pos)
            {
              g_array_free (kept, TRUE);
              return fail_at (c, en.node, error,
                              "copy Einsum %s: memory %s is above a memory kept "
                              "earlier on the path", c->einsum->name,
                              ffm_arch_get_level (m->arch, en.level)->name);
            }
          prev_pos = c->pathpos[en.level];
          en.access = source;
          en.persistent = FALSE;
        }
      g_array_append_val (kept, en);
    }
  g_array_free (c->entries, TRUE);
  c->entries = kept;
  return TRUE;
}

static void
create_buffets (Compiler *c)
{
  FfmPmappingModel *m = c->m;
  GArray *buffets = g_array_new (FALSE, TRUE, sizeof (Buffet));
  guint64 seen = 0;

  for (guint i = 0; i < c->entries->len; i++)
    {
      Entry *en = &g_array_index (c->entries, Entry, i);
      const FfmLevel *level;
      Buffet b = { 0 };

      if (en->kind != ENTRY_STORAGE)
        continue;
      level = ffm_arch_get_level (m->arch, en->level);
      b.info.level = en->level;
      b.info.access = en->access;
      b.info.tensor = c->einsum->accesses[en->access].tensor;
      b.info.backing = !(seen & (G_GUINT64_CONSTANT (1) << en->access));
      b.info.persistent = en->persistent;
      b.info.node = en->node;
      b.level_skip = level->u.memory.skip_initial_output_write && !m->is_copy;
      seen |= G_GUINT64_CONSTANT (1) << en->access;
      en->buffet = buffets->len;
      g_array_append_val (buffets, b);
    }
  m->n_buffets = buffets->len;
  m->buffets = (Buffet *) g_array_free (buffets, FALSE);
}

static gboolean
buffet_numbers (Compiler *c, GError **error)
{
  FfmPmappingModel *m = c->m;

  for (guint b = 0; b < m->n_buffets; b++)
    {
      Buffet *bf = &m->buffets[b];
      GError *local = NULL;
      double bits;

      if (!ffm_arch_bits_per_value (m->arch, bf->info.level, m->workload,
                                    m->einsum, bf->info.access, &bits, &local))
        return fail_from (c, bf->info.node, local, error);
      bf->info.bits_per_value = bits;
      bf->info.action_scale =
        bits / ffm_arch_get_level (m->arch, bf->info.level)->u.memory.bits_per_action;
      bf->info.drains_read =
        ffm_arch_get_level (m->arch, bf->info.level)->u.memory.drains_read;
      bf->drain_mask = bf->info.drains_read ? G_MAXUINT64 : 0;
      m->per_action |= !m->levels[bf->info.level].two_energies;
      m->counted |= m->levels[bf->info.level].whole
        || m->levels[bf->info.level].cluster != 1;
      if (!ffm_arch_action_energies (m->arch, bf->info.level, m->workload,
                                     m->einsum, bf->info.access,
                                     &bf->info.energies, &local))
        return fail_from (c, bf->info.node, local, error);
    }
  for (guint p = 0; p < m->n_path; p++)
    {
      guint level = m->path[p];
      GError *local = NULL;
      if (m->levels[level].kind != FFM_LEVEL_MEMORY)
        continue;
      if (!ffm_arch_memory_size (m->arch, level, m->workload, m->einsum,
                                 &m->levels[level].size, &local))
        return fail_from (c, m->nodes->len - 1, local, error);
    }
  for (guint d = 0; d < m->n_fanout_dims; d++)
    {
      GError *local = NULL;
      if (!ffm_arch_fanout_reuse_masks (m->arch, m->fanout_dims[d].level,
                                        m->fanout_dims[d].dim, m->workload,
                                        m->einsum, NULL, &c->may_reuse[d],
                                        &local))
        return fail_from (c, m->nodes->len - 1, local, error);
    }
  return TRUE;
}

/* Where each buffet's reservation sits (as in the reference implementation, accelforge): right below a
 * backing, persistent or copy storage node; otherwise it sinks past
 * temporal loops relevant to the tensor and spatial loops of its own
 * memory's fanout, stopping above an irrelevant temporal loop, another
 * fanout's spatial loop, any storage node or the compute unit, and below a
 * partially relevant loop. */
static void
place_reservations (Compiler *c)
{
  FfmPmappingModel *m = c->m;

  c->reservation_gap = g_new (int, MAX (m->n_buffets, 1));
  for (guint i = 0; i < c->entries->len; i++)
    {
      const Entry *en = &g_array_index (c->entries, Entry, i);
      const Buffet *b;
      guint k;

      if (en->kind != ENTRY_STORAGE)
        continue;
      b = &m->buffets[en->buffet];
      if (b->info.backing || b->info.persistent || m->is_copy)
        {
          c->reservation_gap[en->buffet] = i;
          continue;
        }
      for (k = i + 1; k < c->entries->len; k++)
        {
          const Entry *next = &g_array_index (c->entries, Entry, k);
          const FfmLoopInfo *loop;
          if (next->kind == ENTRY_STORAGE)
            break;
          loop = &m->loops[next->loop];
          if (loop->spatial)
            {
              if (c->fanout_pathpos[next->loop] + 1 == c->pathpos[en->level])
                continue;
              break;
            }
          if (c->rel[en->access][loop->rank_var] == REL_RELEVANT)
            continue;
          if (c->rel[en->access][loop->rank_var] == REL_PARTIAL)
            k++;
          break;
        }
      c->reservation_gap[en->buffet] = (int) k - 1;
    }
}

/* ---- Views ---- */

enum {
  ITEM_LOOP = 1,
  ITEM_HOLDER,
  ITEM_RESERVATION,
};

typedef struct {
  int kind;
  int index;                /* loop, buffet (-1 for compute) */
  int order;                /* original position, for loops */
  int pathpos;              /* holders */
} Item;

static TileExpr
add_tile_expr (Compiler *c, guint access, const guint16 *cur_src)
{
  const FfmEinsum *e = c->einsum;
  const FfmTensor *t = ffm_workload_get_tensor (c->m->workload,
                                                e->accesses[access].tensor);
  TileExpr expr;

  expr.first_rank = c->rank_n_terms->len;
  expr.first_term = c->term_src->len;
  expr.n_ranks = t->n_ranks;
  expr.plain = TRUE;
  for (guint r = 0; r < t->n_ranks; r++)
    {
      const FfmProjection *p = &e->accesses[access].projections[r];
      guint16 first = c->term_src->len, n = p->n_terms;
      if (p->n_terms != 1 || p->terms[0].coefficient != 1)
        expr.plain = FALSE;
      g_array_append_val (c->rank_first_term, first);
      g_array_append_val (c->rank_n_terms, n);
      for (guint k = 0; k < p->n_terms; k++)
        {
          guint16 src = cur_src[p->terms[k].var];
          guint64 coef = (guint64) p->terms[k].coefficient;
          guint8 var = p->terms[k].var;
          g_array_append_val (c->term_src, src);
          g_array_append_val (c->term_coef, coef);
          g_array_append_val (c->term_var, var);
        }
    }
  return expr;
}

/* Whether the compute unit keeps input @access across the innermost
 * temporal loops that do not index it (Timeloop's counting, where the unit
 * asks for it): when a fanout lies between the tensor's innermost memory
 * and the unit, Timeloop counts what its network delivers at that
 * boundary, once per change of the operand; without one, the innermost
 * memory serves every operation. @items: the view so far (temporal loops,
 * holders, reservations). */
static gboolean
operand_reused (Compiler *c, guint access, const Item *items, guint n)
{
  FfmPmappingModel *m = c->m;
  int inner = -1;

  if (!ffm_arch_get_level (m->arch, m->compute_level)->u.compute.operand_reuse
      || access == c->einsum->output_access)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (items[i].kind == ITEM_HOLDER)
      inner = MAX (inner, items[i].pathpos);
  if (inner < 0)
    return FALSE;
  for (guint p = (guint) inner + 1; p < (guint) c->pathpos[m->compute_level]; p++)
    if (ffm_arch_get_level (m->arch, m->path[p])->kind == FFM_LEVEL_FANOUT)
      return TRUE;
  return FALSE;
}

/* The tensor's view before spatial loops move: temporal loops, the
 * tensor's holders and reservations, in path order. */
static guint
view_items (Compiler *c, guint access, Item *items)
{
  FfmPmappingModel *m = c->m;
  guint n = 0;

  for (guint i = 0; i < c->entries->len; i++)
    {
      const Entry *en = &g_array_index (c->entries, Entry, i);
      if (en->kind == ENTRY_LOOP && !m->loops[en->loop].spatial)
        items[n++] = (Item) { ITEM_LOOP, en->loop, en->loop, -1 };
      else if (en->kind == ENTRY_STORAGE && en->access == access)
        items[n++] = (Item) { ITEM_HOLDER, en->buffet, -1,
                              c->pathpos[en->level] };
      for (guint b = 0; b < m->n_buffets; b++)
        if (m->buffets[b].info.access == access && c->reservation_gap[b] == (int) i)
          items[n++] = (Item) { ITEM_RESERVATION, b, -1, -1 };
    }
  if (!m->is_copy)
    {
      guint pos = n;
      if (operand_reused (c, access, items, n))
        while (pos > 0 && items[pos - 1].kind == ITEM_LOOP
               && c->rel[access][m->loops[items[pos - 1].index].rank_var] == REL_IRRELEVANT)
          {
            m->reuse_skip[access] |= G_GUINT64_CONSTANT (1) << items[pos - 1].index;
            pos--;
          }
      memmove (&items[pos + 1], &items[pos], sizeof (Item) * (n - pos));
      items[pos] = (Item) { ITEM_HOLDER, -1, -1, c->pathpos[m->compute_level] };
      n++;
    }
  return n;
}

/* Moves every spatial loop to just above the first holder its fanout
 * replicates, then restores the path order inside each run of loops. */
static guint
place_spatial_loops (Compiler *c, const Item *items, guint n_items, Item *out)
{
  FfmPmappingModel *m = c->m;
  gboolean *placed = g_newa (gboolean, MAX (m->n_loops, 1));
  guint n = 0;

  memset (placed, 0, sizeof (gboolean) * MAX (m->n_loops, 1));
  for (guint i = 0; i < n_items; i++)
    {
      if (items[i].kind == ITEM_HOLDER)
        for (guint j = 0; j < m->n_loops; j++)
          if (m->loops[j].spatial && !placed[j]
              && c->fanout_pathpos[j] < items[i].pathpos)
            {
              out[n++] = (Item) { ITEM_LOOP, j, j, -1 };
              placed[j] = TRUE;
            }
      out[n++] = items[i];
    }
  for (guint j = 0; j < m->n_loops; j++)
    if (m->loops[j].spatial && !placed[j])
      out[n++] = (Item) { ITEM_LOOP, j, j, -1 };

  for (guint i = 0; i < n; )
    {
      guint end = i;
      while (end < n && out[end].kind == ITEM_LOOP)
        end++;
      for (guint a = i + 1; a < end; a++)       /* insertion sort of the run */
        for (guint b = a; b > i && out[b - 1].order > out[b].order; b--)
          {
            Item tmp = out[b];
            out[b] = out[b - 1];
            out[b - 1] = tmp;
          }
      i = end > i ? end : i + 1;
    }
  return n;
}

static gboolean
check_view_order (Compiler *c, guint access, const Item *view, guint n,
                  GError **error)
{
  FfmPmappingModel *m = c->m;

  for (guint p = 0; p < n; p++)
    for (guint q = p + 1; q < n; q++)
      {
        const FfmLoopInfo *lp, *lq;
        if (view[p].kind != ITEM_LOOP || view[q].kind != ITEM_LOOP
            || view[p].index < view[q].index)
          continue;
        lp = &m->loops[view[p].index];
        lq = &m->loops[view[q].index];
        if (share_index (c, access, lp->rank_var, lq->rank_var))
          return fail_at (c, lp->node, error,
                          "for tensor %s this spatial loop would move across "
                          "the loop over %s (%s), and both index the tensor: "
                          "put the spatial loop just above the first storage "
                          "node its fanout replicates",
                          ffm_workload_get_tensor (m->workload,
                                                   c->einsum->accesses[access].tensor)->name,
                          c->einsum->rank_var_names[lq->rank_var],
                          path_node (m, lq->node)->json_path != NULL
                          ? path_node (m, lq->node)->json_path : "below");
      }
  return TRUE;
}

static void
emit_view (Compiler *c, guint access, const Item *view, guint n)
{
  FfmPmappingModel *m = c->m;
  View *v = &m->views[m->n_views++];
  guint16 cur_src[FFM_MAX_EINSUM_RANK_VARS];
  int loops_above = 0;
  /* per loop seen so far: its category for a holder below the next one */
  guint8 cats[FFM_COST_MAX_LOOPS] = { CAT_NONE };

  v->access = access;
  v->output = access == c->einsum->output_access && !m->is_copy;
  v->first_step = c->steps->len;
  v->uses = 0;
  for (guint var = 0; var < m->n_vars; var++)
    {
      cur_src[var] = m->n_loops + var;
      if (c->rel[access][var] != REL_IRRELEVANT)
        v->uses |= 1u << var;
    }

  for (guint i = 0; i < n; i++)
    {
      Step step = { 0 };
      if (view[i].kind == ITEM_LOOP)
        {
          const FfmLoopInfo *loop = &m->loops[view[i].index];
          Relevancy rel = c->rel[access][loop->rank_var];
          step.kind = STEP_LOOP;
          step.index = view[i].index;
          if (loop->spatial)
            {
              step.flags |= LOOP_SPATIAL;
              if (rel == REL_IRRELEVANT
                  && (c->may_reuse[loop->fanout_dim] & (G_GUINT64_CONSTANT (1) << access)))
                step.flags |= LOOP_MULTICAST;
            }
          else if (rel == REL_RELEVANT)
            step.flags |= LOOP_RELEVANT;
          cats[view[i].index] = !loop->spatial ? CAT_B
            : (step.flags & LOOP_MULTICAST) ? CAT_D : CAT_C;
          cur_src[loop->rank_var] = view[i].index;
          loops_above++;
        }
      else if (view[i].kind == ITEM_HOLDER)
        {
          Holder h;
          h.buffet = view[i].index;
          h.skip = h.buffet >= 0 ? m->buffets[h.buffet].level_skip : !m->is_copy;
          h.tile = add_tile_expr (c, access, cur_src);
          step.kind = STEP_HOLDER;
          step.index = c->holders->len;
          g_array_append_val (c->holders, h);
          g_array_append_vals (c->holder_cats, cats, m->n_loops);
          /* spatial loops above this holder are above the next one's parent */
          for (guint j = 0; j < m->n_loops; j++)
            if (cats[j] == CAT_C || cats[j] == CAT_D)
              cats[j] = CAT_A;
        }
      else
        {
          Buffet *b = &m->buffets[view[i].index];
          step.kind = STEP_RESERVATION;
          step.index = view[i].index;
          b->reservation = add_tile_expr (c, access, cur_src);
          b->info.n_loops_above = b->info.persistent ? -1 : loops_above;
        }
      g_array_append_val (c->steps, step);
    }
  v->n_steps = c->steps->len - v->first_step;
}

static gboolean
build_views (Compiler *c, GError **error)
{
  FfmPmappingModel *m = c->m;
  guint cap = c->entries->len + m->n_buffets + m->n_loops + 2;
  g_autofree Item *items = g_new (Item, cap);
  g_autofree Item *view = g_new (Item, cap);

  c->steps = g_array_new (FALSE, FALSE, sizeof (Step));
  c->holders = g_array_new (FALSE, FALSE, sizeof (Holder));
  c->rank_first_term = g_array_new (FALSE, FALSE, sizeof (guint16));
  c->rank_n_terms = g_array_new (FALSE, FALSE, sizeof (guint16));
  c->term_src = g_array_new (FALSE, FALSE, sizeof (guint16));
  c->term_coef = g_array_new (FALSE, FALSE, sizeof (guint64));
  c->term_var = g_array_new (FALSE, FALSE, sizeof (guint8));
  c->holder_cats = g_array_new (FALSE, FALSE, sizeof (guint8));

  for (guint a = 0; a < c->einsum->n_accesses; a++)
    {
      guint n_items, n;
      if (m->is_copy && a != 0)
        continue;   /* the copy's holders all hold the source */
      n_items = view_items (c, a, items);
      n = place_spatial_loops (c, items, n_items, view);
      if (!check_view_order (c, a, view, n, error))
        return FALSE;
      emit_view (c, a, view, n);
    }
  m->steps = (Step *) g_array_free (g_steal_pointer (&c->steps), FALSE);
  m->holders = (Holder *) g_array_free (g_steal_pointer (&c->holders), FALSE);
  m->rank_first_term = (guint16 *) g_array_free (g_steal_pointer (&c->rank_first_term), FALSE);
  m->rank_n_terms = (guint16 *) g_array_free (g_steal_pointer (&c->rank_n_terms), FALSE);
  m->term_src = (guint16 *) g_array_free (g_steal_pointer (&c->term_src), FALSE);
  m->term_coef = (guint64 *) g_array_free (g_steal_pointer (&c->term_coef), FALSE);
  m->term_var = (guint8 *) g_array_free (g_steal_pointer (&c->term_var), FALSE);
  m->holder_cats = (guint8 *) g_array_free (g_steal_pointer (&c->holder_cats), FALSE);
  return TRUE;
}

/* The chains of remainder-tile counting, and whether the model can count
 * them: each count factors into one walk per rank variable when no
 * variable appears twice in one tensor's indices, and the skipped first
 * fills of the output (the elements an instance ever receives) are
 * products of per-variable extents when its indices are single variables
 * (docs/cost-model.md, "Remainder tiles"). */
gboolean
ffm_cost_einsum_counts_remainders (const FfmWorkload *w, const FfmEinsum *e,
                                   const char **why)
{
  for (guint a = 0; a < e->n_accesses; a++)
    {
      const FfmTensor *t = ffm_workload_get_tensor (w, e->accesses[a].tensor);
      guint32 seen = 0;
      for (guint r = 0; r < t->n_ranks; r++)
        {
          const FfmProjection *p = &e->accesses[a].projections[r];
          for (guint k = 0; k < p->n_terms; k++)
            {
              if (seen & (1u << p->terms[k].var))
                {
                  *why = "a rank variable appears twice in the indices of one "
                    "tensor";
                  return FALSE;
                }
              seen |= 1u << p->terms[k].var;
            }
          if (a == e->output_access && !e->is_copy
              && (p->n_terms != 1 || p->terms[0].coefficient != 1))
            {
              *why = "an index of the output is not a single rank variable";
              return FALSE;
            }
        }
    }
  *why = NULL;
  return TRUE;
}

static void
prepare_imperfect (Compiler *c)
{
  FfmPmappingModel *m = c->m;

  for (guint j = 0; j < m->n_loops; j++)
    {
      guint v = m->loops[j].rank_var;
      m->var_loops[v][m->var_n_loops[v]++] = j;
    }
  m->imperfect_ok = ffm_cost_einsum_counts_remainders (m->workload, c->einsum,
                                                       &m->imperfect_refusal);
}

static void
cache_levels (FfmPmappingModel *m)
{
  m->n_levels = ffm_arch_get_n_levels (m->arch);
  m->levels = g_new0 (LevelParams, m->n_levels);
  m->total_leak_power = 0;
  for (guint i = 0; i < m->n_levels; i++)
    {
      const FfmLevel *l = ffm_arch_get_level (m->arch, i);
      LevelParams *p = &m->levels[i];
      p->kind = l->kind;
      if (l->kind == FFM_LEVEL_MEMORY)
        {
          p->read_energy = l->u.memory.read_energy;
          p->write_energy = l->u.memory.write_energy;
          p->read_bandwidth = l->u.memory.read_bandwidth;
          p->write_bandwidth = l->u.memory.write_bandwidth;
          p->separate_ports = l->u.memory.ports == FFM_PORTS_SEPARATE;
          p->whole = l->u.memory.whole_actions;
          p->cluster = l->u.memory.cluster_size;
          p->bits_per_action = l->u.memory.bits_per_action;
          /* rounding and clusters price each buffet on its own */
          p->two_energies = ffm_memory_spec_has_two_energies (&l->u.memory)
            && !p->whole && p->cluster == 1;
          p->size = l->u.memory.size;
        }
      else if (l->kind == FFM_LEVEL_COMPUTE)
        {
          p->read_energy = l->u.compute.energy;
          p->read_bandwidth = l->u.compute.throughput;
        }
      p->instances = (double) ffm_arch_get_instances_above (m->arch, i);
      p->leak_power = l->leak_power;
      p->leak_utilized = l->leak_utilized;
      m->leak_utilized |= l->leak_utilized && l->leak_power > 0;
      m->total_leak_power += l->leak_power * p->instances;
    }
}

static void
compiler_clear (Compiler *c)
{
  g_free (c->pathpos);
  if (c->entries != NULL)
    g_array_free (c->entries, TRUE);
  g_free (c->fanout_pathpos);
  g_free (c->may_reuse);
  g_free (c->reservation_gap);
  if (c->steps != NULL)
    g_array_free (c->steps, TRUE);
  if (c->holders != NULL)
    g_array_free (c->holders, TRUE);
  if (c->rank_first_term != NULL)
    g_array_free (c->rank_first_term, TRUE);
  if (c->rank_n_terms != NULL)
    g_array_free (c->rank_n_terms, TRUE);
  if (c->term_src != NULL)
    g_array_free (c->term_src, TRUE);
  if (c->term_coef != NULL)
    g_array_free (c->term_coef, TRUE);
  if (c->term_var != NULL)
    g_array_free (c->term_var, TRUE);
  if (c->holder_cats != NULL)
    g_array_free (c->holder_cats, TRUE);
}

FfmPmappingModel *
ffm_pmapping_model_new (const FfmWorkload *workload, const FfmArch *arch,
                        const FfmMappingNode *const *nodes, guint n_nodes,
                        const char *source, GError **error)
{
  g_autoptr(FfmPmappingModel) m = NULL;
  Compiler c = { 0 };
  gboolean ok;

  g_return_val_if_fail (workload != NULL && arch != NULL, NULL);
  g_return_val_if_fail (nodes != NULL && n_nodes > 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  m = g_new0 (FfmPmappingModel, 1);
  m->workload = ffm_workload_ref ((FfmWorkload *) workload);
  m->arch = ffm_arch_ref ((FfmArch *) arch);
  m->source = g_strdup (source);
  m->nodes = g_ptr_array_new ();
  for (guint i = 0; i < n_nodes; i++)
    g_ptr_array_add (m->nodes, (gpointer) nodes[i]);
  cache_levels (m);

  c.m = m;
  c.entries = g_array_new (FALSE, TRUE, sizeof (Entry));
  ok = resolve_compute (&c, error);
  if (ok)
    {
      compute_relevancy (&c);
      ok = collect_entries (&c, error) && check_storage (&c, error)
        && (!m->is_copy || rewrite_copy (&c, error));
    }
  if (ok)
    {
      for (guint p = 0; p < m->n_path; p++)
        m->levels[m->path[p]].on_path = TRUE;
      create_buffets (&c);
      c.may_reuse = g_new0 (guint64, MAX (m->n_fanout_dims, 1));
      ok = buffet_numbers (&c, error);
    }
  if (ok)
    {
      place_reservations (&c);
      ok = build_views (&c, error);
    }
  if (ok)
    prepare_imperfect (&c);
  if (ok)
    {
      guint64 ops = 1, largest = 1, product;
      m->no_overflow = TRUE;
      for (guint v = 0; v < m->n_vars; v++)
        m->no_overflow &= g_uint64_checked_mul (&ops, ops, MAX (m->bounds[v], 1));
      for (guint a = 0; a < c.einsum->n_accesses; a++)
        largest = MAX (largest, ffm_einsum_get_access_values (c.einsum, a));
      m->no_overflow = m->no_overflow
        && g_uint64_checked_mul (&product, largest, ops);
    }
  compiler_clear (&c);
  if (!ok)
    return NULL;
  return g_steal_pointer (&m);
}

void
ffm_pmapping_model_free (FfmPmappingModel *m)
{
  if (m == NULL)
    return;
  ffm_workload_unref (m->workload);
  ffm_arch_unref (m->arch);
  g_free (m->source);
  g_ptr_array_unref (m->nodes);
  g_free (m->loops);
  g_free (m->tiles);
  g_free (m->enclosing_src);
  g_free (m->buffets);
  g_free (m->fanout_dims);
  g_free (m->steps);
  g_free (m->holders);
  g_free (m->rank_first_term);
  g_free (m->rank_n_terms);
  g_free (m->term_src);
  g_free (m->term_coef);
  g_free (m->term_var);
  g_free (m->holder_cats);
  g_free (m->levels);
  g_free (m->path);
  g_free (m);
}

/* ---- Reading ---- */

guint
ffm_pmapping_model_get_einsum (const FfmPmappingModel *m)
{
  return m->einsum;
}

guint
ffm_pmapping_model_get_compute_level (const FfmPmappingModel *m)
{
  return m->compute_level;
}

guint
ffm_pmapping_model_get_n_loops (const FfmPmappingModel *m)
{
  return m->n_loops;
}

const FfmLoopInfo *
ffm_pmapping_model_get_loop (const FfmPmappingModel *m, guint loop)
{
  g_return_val_if_fail (loop < m->n_loops, NULL);
  return &m->loops[loop];
}

const guint64 *
ffm_pmapping_model_get_tiles (const FfmPmappingModel *m)
{
  return m->tiles;
}

guint
ffm_pmapping_model_get_n_buffets (const FfmPmappingModel *m)
{
  return m->n_buffets;
}

const FfmBuffetInfo *
ffm_pmapping_model_get_buffet (const FfmPmappingModel *m, guint buffet)
{
  g_return_val_if_fail (buffet < m->n_buffets, NULL);
  return &m->buffets[buffet].info;
}

guint
ffm_pmapping_model_get_n_fanout_dims (const FfmPmappingModel *m)
{
  return m->n_fanout_dims;
}

const FfmFanoutDimInfo *
ffm_pmapping_model_get_fanout_dim (const FfmPmappingModel *m, guint index)
{
  g_return_val_if_fail (index < m->n_fanout_dims, NULL);
  return &m->fanout_dims[index];
}

guint64
ffm_pmapping_model_get_operand_reuse_loops (const FfmPmappingModel *m,
                                            guint access)
{
  g_return_val_if_fail (access < FFM_MAX_EINSUM_TENSORS, 0);
  return m->reuse_skip[access];
}

double
ffm_pmapping_model_get_level_size (const FfmPmappingModel *m, guint level)
{
  g_return_val_if_fail (level < m->n_levels, 0);
  return m->levels[level].size;
}

gboolean
ffm_pmapping_model_counts_remainders (const FfmPmappingModel *m)
{
  return m->imperfect_ok;
}

const FfmMappingNode *
ffm_pmapping_model_get_node (const FfmPmappingModel *m, guint node)
{
  g_return_val_if_fail (node < m->nodes->len, NULL);
  return g_ptr_array_index (m->nodes, node);
}

guint
ffm_pmapping_model_get_n_nodes (const FfmPmappingModel *m)
{
  return m->nodes->len;
}

gboolean
ffm_pmapping_model_check_tiles (const FfmPmappingModel *m,
                                const guint64 *tiles, GError **error)
{
  const FfmEinsum *e = ffm_workload_get_einsum (m->workload, m->einsum);

  if (tiles == NULL)
    tiles = m->tiles;
  for (guint j = 0; j < m->n_loops; j++)
    {
      const FfmLoopInfo *loop = &m->loops[j];
      guint64 enclosing = loop->enclosing >= 0 ? tiles[loop->enclosing]
        : m->bounds[loop->rank_var];
      const char *var = e->rank_var_names[loop->rank_var];

      if (tiles[j] == 0)
        {
          ffm_cost_node_error (error, m->source, path_node (m, loop->node),
                               "tile of the loop over %s must be at least 1",
                               var);
          return FALSE;
        }
      if (tiles[j] > enclosing)
        {
          ffm_cost_node_error (error, m->source, path_node (m, loop->node),
                               "tile %" G_GUINT64_FORMAT " of the loop over %s "
                               "is larger than its enclosing tile %"
                               G_GUINT64_FORMAT " (%s)", tiles[j], var,
                               enclosing, loop->enclosing >= 0
                               ? "the tile of the loop above"
                               : "the bound of the rank variable");
          return FALSE;
        }
      if (enclosing % tiles[j] != 0 && !m->imperfect_ok)
        {
          ffm_cost_node_error (error, m->source, path_node (m, loop->node),
                               "tile %" G_GUINT64_FORMAT " of the loop over %s "
                               "does not divide its enclosing tile %"
                               G_GUINT64_FORMAT ", and Einsum %s cannot have "
                               "remainder tiles: %s",
                               tiles[j], var, enclosing, e->name,
                               m->imperfect_refusal);
          return FALSE;
        }
      if (tiles == m->tiles && path_node (m, loop->node)->remainder != 0
          && path_node (m, loop->node)->remainder != enclosing % tiles[j])
        {
          ffm_cost_node_error (error, m->source, path_node (m, loop->node),
                               "remainder %" G_GUINT64_FORMAT " of the loop "
                               "over %s does not match its tiles: %"
                               G_GUINT64_FORMAT " mod %" G_GUINT64_FORMAT
                               " is %" G_GUINT64_FORMAT,
                               path_node (m, loop->node)->remainder, var,
                               enclosing, tiles[j], enclosing % tiles[j]);
          return FALSE;
        }
    }
  for (guint v = 0; v < m->n_vars; v++)
    {
      int last = -1;
      if (m->bounds[v] <= 1)
        continue;
      for (guint j = 0; j < m->n_loops; j++)
        if (m->loops[j].rank_var == v)
          last = j;
      if (last < 0 || tiles[last] != 1)
        {
          ffm_cost_node_error (error, m->source,
                               path_node (m, m->nodes->len - 1),
                               "rank variable %s of Einsum %s (bound %"
                               G_GUINT64_FORMAT ") is never looped down to "
                               "tile 1: the innermost loop over %s must have "
                               "tile 1 so that the compute unit handles one "
                               "point", e->rank_var_names[v], e->name,
                               m->bounds[v], e->rank_var_names[v]);
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- Evaluating ---- */

/* Number of per-level arrays in FfmPmappingCost, all in one block. */
#define N_LEVEL_ARRAYS 7

FfmPmappingCost *
ffm_pmapping_cost_new (const FfmPmappingModel *m)
{
  FfmPmappingCost *cost = g_new0 (FfmPmappingCost, 1);
  guint nl = MAX (m->n_levels, 1), nb = MAX (m->n_buffets, 1);
  double *block = g_new0 (double, N_LEVEL_ARRAYS * nl + nb);

  cost->n_levels = m->n_levels;
  cost->level_energy = block;
  cost->level_latency = block + nl;
  cost->level_occupancy = block + 2 * nl;
  cost->level_read_actions = block + 3 * nl;
  cost->level_write_actions = block + 4 * nl;
  cost->level_unit_read_actions = block + 5 * nl;
  cost->level_unit_write_actions = block + 6 * nl;
  cost->buffet_occupancy = block + N_LEVEL_ARRAYS * nl;
  cost->n_buffets = m->n_buffets;
  cost->counts = g_new0 (FfmActionCounts, 2 * nb);
  cost->unit_counts = cost->counts + nb;
  cost->n_fanout_dims = m->n_fanout_dims;
  cost->fanout_used = g_new0 (guint64, MAX (m->n_fanout_dims, 1));
  return cost;
}

void
ffm_pmapping_cost_free (FfmPmappingCost *cost)
{
  if (cost == NULL)
    return;
  g_free (cost->level_energy);      /* the block of every per-level array */
  g_free (cost->counts);            /* counts and unit_counts */
  g_free (cost->fanout_used);
  g_free (cost);
}

static void
reset_cost (const FfmPmappingModel *m, FfmPmappingCost *out)
{
  out->status = FFM_COST_VALID;
  out->bad_level = -1;
  out->bad_dim = -1;
  out->excess = 0;
  out->energy = out->dynamic_energy = out->leak_energy = out->latency = 0;
  out->operations = out->steps = 0;
  /* buffet_occupancy is written by every evaluation, no need to clear it */
  memset (out->level_energy, 0, sizeof (double) * N_LEVEL_ARRAYS * MAX (m->n_levels, 1));
  memset (out->counts, 0, sizeof (FfmActionCounts) * 2 * MAX (m->n_buffets, 1));
}

/* Overflow-checked arithmetic: a wrapped count would be a wrong answer, so
 * overflow sets a flag that makes the result FFM_COST_OVERFLOW. Every count
 * is at most (largest footprint) x (operations of the Einsum): when the
 * model proved at compile time that this fits (no_overflow), the checks are
 * compiled out (ovf == NULL). */
static inline guint64
mul (guint64 a, guint64 b, gboolean *ovf)
{
  guint64 r;
  if (ovf == NULL)
    return a * b;
  if (G_UNLIKELY (__builtin_mul_overflow (a, b, &r)))
    *ovf = TRUE;
  return r;
}

static inline void
add (guint64 *acc, guint64 v, gboolean *ovf)
{
  if (ovf == NULL)
    *acc += v;
  else if (G_UNLIKELY (__builtin_add_overflow (*acc, v, acc)))
    *ovf = TRUE;
}

static inline guint64
tile_of (const FfmPmappingModel *m, TileExpr e, const guint64 *vals)
{
  guint64 v = 1;

  if (G_LIKELY (e.plain))
    {
      const guint16 *src = &m->term_src[e.first_term];
      for (guint r = 0; r < e.n_ranks; r++)
        v *= vals[src[r]];
      return v;
    }
  for (guint r = e.first_rank; r < (guint) e.first_rank + e.n_ranks; r++)
    {
      guint64 extent = 1;
      guint t0 = m->rank_first_term[r], t1 = t0 + m->rank_n_terms[r];
      for (guint t = t0; t < t1; t++)
        extent += m->term_coef[t] * (vals[m->term_src[t]] - 1);
      v *= extent;  /* tiles never exceed the footprint, which fits (workload load) */
    }
  return v;
}

/* Running products of iteration counts while walking a view top-down. */
typedef struct {
  guint64 all;              /* every loop above */
  guint64 temporal;         /* temporal loops above */
  guint64 first;            /* relevant temporal loops and all spatial loops:
                               how often a new value arrives */
  guint64 first_temporal;   /* relevant temporal loops only */
  guint64 seg_multicast;    /* multicast spatial loops since the last holder */
  guint64 seg_spatial;      /* other spatial loops since the last holder */
} Products;

/* What moves between a holder and its parent, in values: fills (and
 * drains) at the holder, reads (and updates) at the parent, each over all
 * instances and for the busiest instance, and for an output the first
 * fills that carry no data, at the holder and at the parent. */
typedef struct {
  guint64 fills, unit_fills;
  guint64 reads, unit_reads;
  guint64 first, unit_first;
  guint64 first_parent, unit_first_parent;
} Transfer;

/* Adds @t, the transfers between holder @h and its parent buffet @parent,
 * to the counts (the closed form of the LoopTree model's recursion). */
static inline void
add_transfer (const FfmPmappingModel *m, const View *v, const Holder *h,
              int parent, const Transfer *t, FfmPmappingCost *out,
              gboolean *ovf) __attribute__ ((always_inline));

static inline void
add_transfer (const FfmPmappingModel *m, const View *v, const Holder *h,
              int parent, const Transfer *t, FfmPmappingCost *out,
              gboolean *ovf)
{
  FfmActionCounts *pc = &out->counts[parent], *pu = &out->unit_counts[parent];
  FfmActionCounts *yc = h->buffet >= 0 ? &out->counts[h->buffet] : NULL;
  FfmActionCounts *yu = h->buffet >= 0 ? &out->unit_counts[h->buffet] : NULL;

  add (&pc->reads, t->reads, ovf);
  add (&pu->reads, t->unit_reads, ovf);
  if (yc != NULL)
    {
      add (&yc->fills, t->fills, ovf);
      add (&yu->fills, t->unit_fills, ovf);
    }
  if (!v->output)
    return;
  if (yc != NULL)
    {
      add (&yc->drains, t->fills, ovf);
      add (&yu->drains, t->unit_fills, ovf);
    }
  add (&pc->updates, t->reads, ovf);
  add (&pu->updates, t->unit_reads, ovf);
  if (h->skip)
    {
      /* The first fill of each output value carries no data: skipped at the
       * holder, and at the parent if the parent skips too. */
      if (yc != NULL)
        {
          yc->fills -= t->first;
          yu->fills -= t->unit_first;
        }
      if (m->buffets[parent].level_skip)
        {
          pc->reads -= t->first_parent;
          pu->reads -= t->unit_first_parent;
        }
    }
}

/* The transfers between a holder of tile @x and its parent with tiles
 * that divide: closed forms in the running products. */
static inline void
count_transfer (const FfmPmappingModel *m, const View *v, const Holder *h,
                int parent, guint64 x, const Products *p, FfmPmappingCost *out,
                gboolean *ovf) __attribute__ ((always_inline));

static inline void
count_transfer (const FfmPmappingModel *m, const View *v, const Holder *h,
                int parent, guint64 x, const Products *p, FfmPmappingCost *out,
                gboolean *ovf)
{
  Transfer t;

  t.fills = mul (x, p->all, ovf);
  t.reads = mul (x, p->all / p->seg_multicast, ovf);
  t.unit_fills = mul (x, p->temporal, ovf);
  t.unit_reads = mul (t.unit_fills, p->seg_spatial, ovf);
  if (v->output && h->skip)
    {
      t.first = mul (x, p->first, ovf);
      t.unit_first = mul (x, p->first_temporal, ovf);
      t.first_parent = t.first / p->seg_multicast;
      t.unit_first_parent = mul (t.unit_first, p->seg_spatial, ovf);
    }
  else
    t.first = t.unit_first = t.first_parent = t.unit_first_parent = 0;
  add_transfer (m, v, h, parent, &t, out, ovf);
}

/* Inlined into its two callers so that the overflow checks compile out of
 * the unchecked one (ovf == NULL). */
static inline void
walk_view (const FfmPmappingModel *m, const View *v, const guint64 *vals,
           const guint64 *n, FfmPmappingCost *out, gboolean *ovf)
  __attribute__ ((always_inline));

static inline void
walk_view (const FfmPmappingModel *m, const View *v, const guint64 *vals,
           const guint64 *n, FfmPmappingCost *out, gboolean *ovf)
{
  Products p = { 1, 1, 1, 1, 1, 1 };
  int parent = -1;

  for (guint s = v->first_step; s < v->first_step + v->n_steps; s++)
    {
      const Step *step = &m->steps[s];
      switch (step->kind)
        {
        case STEP_LOOP:
          {
            /* Branch-free: every other product is a product of a subset
             * of the loops in `all`, so checking `all` checks them all. */
            guint64 k = n[step->index];
            guint f = step->flags;
            p.all = mul (p.all, k, ovf);
            p.temporal *= (f & LOOP_SPATIAL) ? 1 : k;
            p.first *= (f & (LOOP_SPATIAL | LOOP_RELEVANT)) ? k : 1;
            p.first_temporal *= (f & LOOP_RELEVANT) ? k : 1;
            p.seg_multicast *= (f & LOOP_MULTICAST) ? k : 1;
            p.seg_spatial *= (f & (LOOP_SPATIAL | LOOP_MULTICAST)) == LOOP_SPATIAL
              ? k : 1;
            break;
          }
        case STEP_RESERVATION:
          {
            const Buffet *b = &m->buffets[step->index];
            out->buffet_occupancy[step->index] =
              (double) tile_of (m, b->reservation, vals) * b->info.bits_per_value;
            break;
          }
        case STEP_HOLDER:
        default:
          {
            const Holder *h = &m->holders[step->index];
            if (parent >= 0)
              count_transfer (m, v, h, parent, tile_of (m, h->tile, vals), &p,
                              out, ovf);
            parent = h->buffet;
            p.seg_multicast = p.seg_spatial = 1;
            break;
          }
        }
    }
}

/* ---- Remainder tiles ----
 *
 * With tiles that do not divide, a count is no longer a product of loop
 * counts, but it still factors per rank variable, each factor a walk of
 * that variable's loops (ffm-tile-chain-private.h) in modes set by where
 * each loop sits for the holder (CAT_*): a sum over the loops that
 * multiply the count, the first block of a fixed spatial instance or of a
 * loop projected away. The tensor's tile enters through the variables that
 * index it: per rank, the sum over blocks of its extent
 * 1 + sum(coef x (tile - 1)) is linear in each variable's block count and
 * extent sum (no variable appears in two ranks, prepare_imperfect()).
 *
 *   count              rank variables       others (count of blocks)
 *                      indexing the tensor
 *   fills              SUM A B C D          SUM A B C D
 *   unit fills         SUM B                SUM B
 *   reads              SUM A B C D          SUM A B C
 *   unit reads         SUM B C              SUM B C
 *   first fills        SUM A B C D          SUM A C D
 *   unit first fills   SUM B                (none)
 *   first, parent      SUM A B C D          SUM A C
 *   unit first, parent SUM B C              SUM C
 *
 * (A: spatial above the parent; B: temporal; C, D: spatial between parent
 * and holder, D multicast; the other loops FIX, and loops below the holder
 * SKIP for the variables that index the tensor.) The unit counts are those
 * of instance 0, which every count's walk shows is the busiest: a block is
 * never smaller than a later one of the same loop. With tiles that divide,
 * every row is the perfect closed form. */

/* Masks of the walks: for the variables indexing the tensor, then for the
 * others. */
static const guint8 rel_masks[3] = { CAT_ALL, CAT_B, CAT_B | CAT_C };
static const guint8 irr_masks[7] = {
  CAT_ALL, CAT_B, CAT_A | CAT_B | CAT_C, CAT_B | CAT_C,
  CAT_A | CAT_C | CAT_D, CAT_A | CAT_C, CAT_C,
};

static void
walk_var (const FfmPmappingModel *m, guint var, const guint64 *tiles,
          const guint8 *cats, gboolean indexes, guint8 mask, guint64 *count,
          guint64 *extent, gboolean *ovf)
{
  guint64 chain[FFM_COST_MAX_LOOPS];
  guint8 modes[FFM_COST_MAX_LOOPS];
  guint n = m->var_n_loops[var];

  for (guint i = 0; i < n; i++)
    {
      guint j = m->var_loops[var][i];
      chain[i] = tiles[j];
      if (cats[j] == CAT_NONE)
        modes[i] = indexes ? FFM_CHAIN_SKIP : FFM_CHAIN_FIX;
      else
        modes[i] = (cats[j] & mask) ? FFM_CHAIN_SUM : FFM_CHAIN_FIX;
    }
  ffm_chain_walk (m->bounds[var], chain, modes, n, count, extent, ovf);
}

static void
count_imperfect (const FfmPmappingModel *m, const View *v, const Holder *h,
                 guint holder, int parent, const guint64 *tiles,
                 FfmPmappingCost *out, gboolean *ovf)
{
  const guint8 *cats = m->holder_cats + (gsize) holder * m->n_loops;
  guint64 cnt[FFM_MAX_EINSUM_RANK_VARS][3], ext[FFM_MAX_EINSUM_RANK_VARS][3];
  guint64 rel[3] = { 1, 1, 1 }, irr[7] = { 1, 1, 1, 1, 1, 1, 1 };
  guint n_irr = v->output && h->skip ? 7 : 4;
  Transfer t;

  for (guint var = 0; var < m->n_vars; var++)
    {
      if (v->uses & (1u << var))
        for (guint k = 0; k < 3; k++)
          walk_var (m, var, tiles, cats, TRUE, rel_masks[k], &cnt[var][k],
                    &ext[var][k], ovf);
      else
        for (guint k = 0; k < n_irr; k++)
          {
            guint64 c, e;
            walk_var (m, var, tiles, cats, FALSE, irr_masks[k], &c, &e, ovf);
            irr[k] = mul (irr[k], c, ovf);
          }
    }
  /* The tile: per rank, the sum over blocks of its extent. */
  for (guint r = h->tile.first_rank; r < (guint) h->tile.first_rank + h->tile.n_ranks; r++)
    {
      guint t0 = m->rank_first_term[r], t1 = t0 + m->rank_n_terms[r];
      for (guint k = 0; k < 3; k++)
        {
          guint64 sum = 1;
          for (guint a = t0; a < t1; a++)
            sum = mul (sum, cnt[m->term_var[a]][k], ovf);
          for (guint a = t0; a < t1; a++)
            {
              guint var = m->term_var[a];
              guint64 term = mul (m->term_coef[a], ext[var][k] - cnt[var][k], ovf);
              for (guint b = t0; b < t1; b++)
                if (b != a)
                  term = mul (term, cnt[m->term_var[b]][k], ovf);
              add (&sum, term, ovf);
            }
          rel[k] = mul (rel[k], sum, ovf);
        }
    }
  t.fills = mul (rel[0], irr[0], ovf);
  t.unit_fills = mul (rel[1], irr[1], ovf);
  t.reads = mul (rel[0], irr[2], ovf);
  t.unit_reads = mul (rel[2], irr[3], ovf);
  if (v->output && h->skip)
    {
      t.first = mul (rel[0], irr[4], ovf);
      t.unit_first = rel[1];
      t.first_parent = mul (rel[0], irr[5], ovf);
      t.unit_first_parent = mul (rel[2], irr[6], ovf);
    }
  else
    t.first = t.unit_first = t.first_parent = t.unit_first_parent = 0;
  add_transfer (m, v, h, parent, &t, out, ovf);
}

static void
walk_view_imperfect (const FfmPmappingModel *m, const View *v,
                     const guint64 *vals, const guint64 *tiles,
                     FfmPmappingCost *out, gboolean *ovf)
{
  int parent = -1;

  for (guint s = v->first_step; s < v->first_step + v->n_steps; s++)
    {
      const Step *step = &m->steps[s];
      if (step->kind == STEP_RESERVATION)
        {
          /* a reservation holds the largest tile, that of the first blocks */
          const Buffet *b = &m->buffets[step->index];
          out->buffet_occupancy[step->index] =
            (double) tile_of (m, b->reservation, vals) * b->info.bits_per_value;
        }
      else if (step->kind == STEP_HOLDER)
        {
          const Holder *h = &m->holders[step->index];
          if (parent >= 0)
            count_imperfect (m, v, h, step->index, parent, tiles, out, ovf);
          parent = h->buffet;
        }
    }
}

/* Operations (every loop summed) and steps (temporal loops summed, the
 * busiest compute instance) with remainder tiles. */
static void
count_compute_imperfect (const FfmPmappingModel *m, const guint64 *tiles,
                         guint64 *ops, guint64 *steps, gboolean *ovf)
{
  *ops = *steps = 1;
  for (guint var = 0; var < m->n_vars; var++)
    {
      guint64 chain[FFM_COST_MAX_LOOPS], c, e;
      guint8 all[FFM_COST_MAX_LOOPS], temporal[FFM_COST_MAX_LOOPS];
      guint n = m->var_n_loops[var];
      for (guint i = 0; i < n; i++)
        {
          guint j = m->var_loops[var][i];
          chain[i] = tiles[j];
          all[i] = FFM_CHAIN_SUM;
          temporal[i] = m->loops[j].spatial ? FFM_CHAIN_FIX : FFM_CHAIN_SUM;
        }
      ffm_chain_walk (m->bounds[var], chain, all, n, &c, &e, ovf);
      *ops = mul (*ops, c, ovf);
      ffm_chain_walk (m->bounds[var], chain, temporal, n, &c, &e, ovf);
      *steps = mul (*steps, c, ovf);
    }
}

static inline double
time_for (double actions, double bandwidth)
{
  if (actions <= 0 || isinf (bandwidth))
    return 0;
  return actions / bandwidth;   /* bandwidth 0: infinite time */
}

static inline double
read_actions_of (const FfmBuffetInfo *info, const FfmActionCounts *c)
{
  return (double) (c->reads + (info->drains_read ? c->drains : 0))
    * info->action_scale;
}

static inline double
write_actions_of (const FfmBuffetInfo *info, const FfmActionCounts *c)
{
  return (double) (c->fills + c->updates) * info->action_scale;
}

/* With one energy for reads and drains and one for fills and updates, the
 * energy is computed as it was before per-action energies existed (same
 * operations, same bits). */
static inline double
energy_of (const FfmBuffetInfo *info, const FfmActionCounts *c,
           double *read_j, double *write_j)
{
  const FfmActionEnergies *e = &info->energies;
  double s = info->action_scale, r, w;

  if ((e->drain == e->read || !info->drains_read) && e->fill == e->update)
    {
      r = read_actions_of (info, c) * e->read;
      w = write_actions_of (info, c) * e->fill;
    }
  else
    {
      r = ((double) c->reads * e->read + (double) c->drains * e->drain) * s;
      w = ((double) c->fills * e->fill + (double) c->updates * e->update) * s;
    }
  if (read_j != NULL)
    *read_j = r;
  if (write_j != NULL)
    *write_j = w;
  return r + w;
}

double
ffm_buffet_read_actions (const FfmBuffetInfo *info, const FfmActionCounts *counts)
{
  return read_actions_of (info, counts);
}

double
ffm_buffet_write_actions (const FfmBuffetInfo *info, const FfmActionCounts *counts)
{
  return write_actions_of (info, counts);
}

double
ffm_buffet_energy (const FfmBuffetInfo *info, const FfmActionCounts *counts,
                   double *read_j, double *write_j)
{
  return energy_of (info, counts, read_j, write_j);
}

/* Actions of one kind with Timeloop's rounding: each of the @total /
 * @unit instances does @unit values' worth, rounded up to whole actions
 * (computed on integers where the bit counts are whole: 1/3 of an action
 * is no float). */
static double
whole_actions (guint64 total, guint64 unit, double bits_per_value,
               double bits_per_action)
{
  double per_instance;

  if (unit == 0)
    return 0;
  if (bits_per_value == floor (bits_per_value) && bits_per_action == floor (bits_per_action)
      && bits_per_value < 4294967296.0 && bits_per_action < 4294967296.0
      && unit < G_GUINT64_CONSTANT (4294967296))
    {
      guint64 num = unit * (guint64) bits_per_value, den = (guint64) bits_per_action;
      per_instance = (double) ((num + den - 1) / den);
    }
  else
    per_instance = ceil ((double) unit * bits_per_value / bits_per_action);
  return per_instance * ((double) total / (double) unit);
}

/* Instances of level @l the spatial loops use: the product of the fanout
 * dimensions used above it (1 for the levels above every fanout). */
static inline double
used_instances (const FfmPmappingModel *m, const FfmPmappingCost *out, guint l)
{
  double used = 1;

  for (guint d = 0; d < m->n_fanout_dims; d++)
    if (m->fanout_dims[d].level < l)
      used *= (double) out->fanout_used[d];
  return used;
}

/* The energy of buffet @bf's actions with Timeloop's counting: whole
 * actions per instance and kind, and a cluster's instances sharing one
 * access (of the instances used, at most instances / cluster_size pay). */
static double
counted_energy (const FfmPmappingModel *m, const Buffet *bf,
                const FfmActionCounts *c, const FfmActionCounts *u,
                const FfmPmappingCost *out, double *read_j, double *write_j)
{
  const LevelParams *p = &m->levels[bf->info.level];
  const FfmActionEnergies *e = &bf->info.energies;
  double bpv = bf->info.bits_per_value, bpa = p->bits_per_action, r, w;

  if (p->whole)
    {
      r = whole_actions (c->reads, u->reads, bpv, bpa) * e->read
        + (bf->info.drains_read ? whole_actions (c->drains, u->drains, bpv, bpa) * e->drain : 0);
      w = whole_actions (c->fills, u->fills, bpv, bpa) * e->fill
        + whole_actions (c->updates, u->updates, bpv, bpa) * e->update;
    }
  else
    energy_of (&bf->info, c, &r, &w);
  if (p->cluster != 1)
    {
      double used = used_instances (m, out, bf->info.level);
      double clusters = floor (p->instances / p->cluster);
      if (used > clusters && clusters >= 1)
        {
          r *= clusters / used;
          w *= clusters / used;
        }
    }
  if (read_j != NULL)
    *read_j = r;
  if (write_j != NULL)
    *write_j = w;
  return r + w;
}

double
ffm_pmapping_model_get_buffet_energy (const FfmPmappingModel *m,
                                      const FfmPmappingCost *cost, guint buffet,
                                      double *read_j, double *write_j)
{
  const Buffet *bf;

  g_return_val_if_fail (buffet < m->n_buffets, 0);
  bf = &m->buffets[buffet];
  if (m->levels[bf->info.level].whole || m->levels[bf->info.level].cluster != 1)
    return counted_energy (m, bf, &cost->counts[buffet], &cost->unit_counts[buffet],
                           cost, read_j, write_j);
  return energy_of (&bf->info, &cost->counts[buffet], read_j, write_j);
}

/* Per-buffet actions and occupancy summed per level. Inlined into its two
 * callers so that the common case (no memory with per-action energies:
 * every drain is a read, energy per level from its actions) has no test
 * in the loop. */
static inline void
sum_buffets (const FfmPmappingModel *m, FfmPmappingCost *out,
             gboolean per_action) __attribute__ ((always_inline));

static inline void
sum_buffets (const FfmPmappingModel *m, FfmPmappingCost *out,
             gboolean per_action)
{
  for (guint b = 0; b < m->n_buffets; b++)
    {
      const Buffet *bf = &m->buffets[b];
      const FfmActionCounts *c = &out->counts[b], *u = &out->unit_counts[b];
      guint l = bf->info.level;
      double s = bf->info.action_scale;
      guint64 dm = per_action ? bf->drain_mask : G_MAXUINT64;
      /* read_actions_of() and write_actions_of() */
      out->level_read_actions[l] += (double) (c->reads + (c->drains & dm)) * s;
      out->level_write_actions[l] += (double) (c->fills + c->updates) * s;
      out->level_unit_read_actions[l] += (double) (u->reads + (u->drains & dm)) * s;
      out->level_unit_write_actions[l] += (double) (u->fills + u->updates) * s;
      out->level_occupancy[l] += out->buffet_occupancy[b];
      if (per_action && !m->levels[l].two_energies)
        out->level_energy[l] += G_UNLIKELY (m->counted)
          ? counted_energy (m, bf, c, u, out, NULL, NULL)
          : energy_of (&bf->info, c, NULL, NULL);
    }
}

/* Leak energy of level @l over @latency: every instance, or (Timeloop)
 * the instances used, at least one. */
static inline double
level_leak (const FfmPmappingModel *m, const FfmPmappingCost *out, guint l,
            double latency)
{
  const LevelParams *p = &m->levels[l];

  if (p->leak_power == 0)
    return 0;
  if (!p->leak_utilized)
    return p->leak_power * p->instances * latency;
  return p->leak_power * (p->on_path ? MAX (used_instances (m, out, l), 1) : 1) * latency;
}

double
ffm_pmapping_model_get_level_leak (const FfmPmappingModel *m,
                                   const FfmPmappingCost *cost, guint level)
{
  g_return_val_if_fail (level < m->n_levels, 0);
  return level_leak (m, cost, level, cost->latency);
}

/* Per-level actions, energy, latency, occupancy; then leak and capacity. */
static void
sum_levels (const FfmPmappingModel *m, FfmPmappingCost *out)
{
  double latency = 0, dynamic = 0;

  if (G_UNLIKELY (m->per_action))
    sum_buffets (m, out, TRUE);
  else
    sum_buffets (m, out, FALSE);
  for (guint i = 0; i < m->n_path; i++)
    {
      guint l = m->path[i];
      const LevelParams *p = &m->levels[l];
      if (p->kind == FFM_LEVEL_MEMORY)
        {
          double r = time_for (out->level_unit_read_actions[l], p->read_bandwidth);
          double w = time_for (out->level_unit_write_actions[l], p->write_bandwidth);
          if (p->two_energies)
            out->level_energy[l] = out->level_read_actions[l] * p->read_energy
              + out->level_write_actions[l] * p->write_energy;
          out->level_latency[l] = p->separate_ports ? MAX (r, w) : r + w;
        }
      else if (p->kind == FFM_LEVEL_COMPUTE)
        {
          out->level_energy[l] = (double) out->operations * p->read_energy;
          out->level_latency[l] = time_for ((double) out->steps, p->read_bandwidth);
        }
      dynamic += out->level_energy[l];
      latency = MAX (latency, out->level_latency[l]);
    }
  out->dynamic_energy = dynamic;
  out->latency = latency;
  if (G_UNLIKELY (m->leak_utilized))
    {
      out->leak_energy = 0;
      for (guint l = 0; l < m->n_levels; l++)
        out->leak_energy += level_leak (m, out, l, latency);
    }
  else
    out->leak_energy = m->total_leak_power * latency;
  out->energy = dynamic + out->leak_energy;

  for (guint i = 0; i < m->n_path && out->status == FFM_COST_VALID; i++)
    {
      guint l = m->path[i];
      if (m->levels[l].kind == FFM_LEVEL_MEMORY
          && out->level_occupancy[l] > m->levels[l].size)
        {
          out->status = FFM_COST_DOES_NOT_FIT;
          out->bad_level = l;
          out->excess = out->level_occupancy[l] - m->levels[l].size;
        }
    }
  for (guint d = 0; d < m->n_fanout_dims && out->status == FFM_COST_VALID; d++)
    if (out->fanout_used[d] > m->fanout_dims[d].count)
      {
        out->status = FFM_COST_FANOUT_EXCEEDED;
        out->bad_level = m->fanout_dims[d].level;
        out->bad_dim = m->fanout_dims[d].dim;
        out->excess = (double) (out->fanout_used[d] - m->fanout_dims[d].count);
      }
}

void
ffm_pmapping_model_evaluate (const FfmPmappingModel *m, const guint64 *tiles,
                             FfmPmappingCost *out)
{
  guint64 vals[FFM_COST_MAX_LOOPS + FFM_MAX_EINSUM_RANK_VARS];
  guint64 n[FFM_COST_MAX_LOOPS];
  guint64 ops = 1, steps = 1;
  gboolean ovf = FALSE, imperfect = FALSE;

  reset_cost (m, out);
  if (tiles == NULL)
    tiles = m->tiles;
  for (guint v = 0; v < m->n_vars; v++)
    vals[m->n_loops + v] = m->bounds[v];
  for (guint d = 0; d < m->n_fanout_dims; d++)
    out->fanout_used[d] = 1;
  for (guint j = 0; j < m->n_loops; j++)
    {
      guint64 t = tiles[j], enclosing = vals[m->enclosing_src[j]];
      if (G_UNLIKELY (t == 0 || t > enclosing
                      || (enclosing % t != 0 && !m->imperfect_ok)))
        {
          out->status = FFM_COST_BAD_TILES;
          out->bad_level = j;
          return;
        }
      imperfect |= enclosing % t != 0;
      vals[j] = t;
      /* with a remainder, the iterations of the first (largest) block:
       * the instances a spatial loop uses */
      n[j] = ffm_chain_iterations (enclosing, t);
      ops = mul (ops, n[j], &ovf);
      if (m->loops[j].spatial)
        out->fanout_used[m->loops[j].fanout_dim] *= n[j];
      else
        steps = mul (steps, n[j], &ovf);
    }
  if (G_UNLIKELY (imperfect))
    {
      ovf = FALSE;
      count_compute_imperfect (m, tiles, &ops, &steps, &ovf);
    }
  out->operations = m->is_copy ? 0 : ops;
  out->steps = m->is_copy ? 0 : steps;

  if (G_UNLIKELY (imperfect))
    for (guint i = 0; i < m->n_views; i++)
      walk_view_imperfect (m, &m->views[i], vals, tiles, out, &ovf);
  else if (m->no_overflow)
    for (guint i = 0; i < m->n_views; i++)
      walk_view (m, &m->views[i], vals, n, out, NULL);
  else
    for (guint i = 0; i < m->n_views; i++)
      walk_view (m, &m->views[i], vals, n, out, &ovf);
  sum_levels (m, out);
  if (G_UNLIKELY (ovf))
    {
      out->status = FFM_COST_OVERFLOW;
      out->bad_level = -1;
      out->bad_dim = -1;
      out->excess = 0;
    }
}
