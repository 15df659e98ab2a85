/* ffm-pmapping.c: the pmapping generator's driver (ffm-pmapping.h).
 *
 * Phases:
 *   1. templates of every Einsum (ffm-pmapping-template.c), built and
 *      compiled in workload order on the calling thread; an Einsum whose
 *      signature (ffm-pmapping-signature.c) equals an earlier one's is not
 *      enumerated but gets a renamed copy of its groups after phase 3;
 *   2. the tile enumeration of every template (ffm-pmapping-tiles.c), spread
 *      over a GThreadPool; each template writes only its own result slot;
 *   3. per Einsum, the templates' groups merged in template order into
 *      compatibility groups and Pareto-pruned, by the thread that finishes
 *      the Einsum's last template (the template results' rows are freed
 *      then, which bounds memory by the Einsums in flight);
 *   4. the memories the join must track are chosen over all Einsums, the
 *      other memories' columns dropped and the groups pruned again.
 * Nothing in phases 2-3 depends on which thread runs what or when: every
 * merge runs in a fixed order, so the result is the same for any number of
 * threads.
 *
 * Describing a row (ffm_pmapping_describe()): the fused loops are the loops
 * above the deepest backing storage node of a shared tensor; a shared
 * tensor's compatibility loops are those above its own backing node; a
 * reservation's lifetime depth is the number of fused loops of more than
 * one iteration above it (the model's n_loops_above counts the loops above
 * it in its tensor's view, which for generated paths, whose storage nodes
 * go from outer to inner memories with spatial loops between the memories
 * they separate, are the first n_loops_above loops of the path).
 *
 * [1] the reference implementation (accelforge). */
#include "ffm-pmapping-private.h"
#include "ffm-joinable-parts-private.h"
#include "ffm-tile-chain-private.h"
#include "ffm-pmapping-diagnostics.h"
#include "ffm-pmapping-jobs.h"
#include <ffm/ffm-limits.h>
#include <ffm/ffm-tsan.h>
#include <ffm/ffm-pareto.h>
#include "ffm-cost-private.h"
#include <ffm/ffm-memory-budget.h>
#include <ffm/ffm-format.h>

#include <math.h>
#include <string.h>
#include <unistd.h>

#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))

/* ---- Options ---- */

static void
options_set_defaults (FfmPmappingOptions *options)
{
  memset (options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->objectives = FFM_PMAPPING_ENERGY | FFM_PMAPPING_LATENCY;
  options->max_fused_loops = -1;
  options->max_fused_loops_per_rank_var = 1;
  options->n_threads = 0;
  options->einsum = -1;
  options->unfused = FALSE;
  options->reuse_equal_einsums = TRUE;
  options->cancel = NULL;
  options->progress = NULL;
  options->progress_data = NULL;
  options->constraints = NULL;
  options->max_memory = 0;
}

void
ffm_pmapping_options_init_sized (FfmPmappingOptions *options, gsize struct_size)
{
  FfmPmappingOptions defaults;

  g_return_if_fail (options != NULL);
  g_return_if_fail (struct_size >= G_STRUCT_OFFSET (FfmPmappingOptions, objectives));
  options_set_defaults (&defaults);
  defaults.struct_size = MIN (struct_size, sizeof defaults);
  memcpy (options, &defaults, defaults.struct_size);
}

/* The caller's options over the defaults: a caller built before a field
 * was appended does not have it (its struct_size says so). */
static void
options_copy (FfmPmappingOptions *out, const FfmPmappingOptions *options)
{
  options_set_defaults (out);
  if (options != NULL)
    memcpy (out, options, MIN (options->struct_size, sizeof *out));
  out->struct_size = sizeof *out;
}

guint64
ffm_pmapping_default_max_memory (void)
{
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);

  if (pages <= 0 || page <= 0)
    return G_GUINT64_CONSTANT (4) << 30;   /* unknown: 4 GiB */
  /* TUNING: three quarters of the machine, leaving the rest to the join,
   * the process's other data and the system. */
  return (guint64) pages * (guint64) page / 4 * 3;
}

/* The options' memory budget in bytes (0: the default). */
static guint64
options_max_memory (const FfmPmappingOptions *options)
{
  if (options->struct_size >= G_STRUCT_OFFSET (FfmPmappingOptions, max_memory)
                              + sizeof options->max_memory
      && options->max_memory > 0)
    return options->max_memory;
  return ffm_pmapping_default_max_memory ();
}

void
ffm_pmapping_options_set_diagnostics (FfmPmappingOptions *options,
                                      gboolean prune_partial,
                                      gboolean track_all_memories)
{
  g_return_if_fail (options != NULL);
  FFM_PMAPPING_NO_PARTIAL_PRUNING (options) = !prune_partial;
  FFM_PMAPPING_TRACK_ALL_MEMORIES (options) = track_all_memories;
}

int
ffm_pmapping_group_find_column (const FfmPmappingGroup *g, FfmPmappingColumnKind kind,
                                guint level, int depth)
{
  g_return_val_if_fail (g != NULL, -1);
  for (guint j = 0; j < g->n_columns; j++)
    if (g->columns[j].kind == kind
        && (kind != FFM_PMAPPING_COLUMN_RESERVATION
            || (g->columns[j].level == level && g->columns[j].depth == depth)))
      return (int) j;
  return -1;
}

gboolean
ffm_pmapping_options_is_cancelled (const FfmPmappingOptions *options)
{
  return options != NULL
    && options->struct_size >= G_STRUCT_OFFSET (FfmPmappingOptions, cancel) + sizeof options->cancel
    && options->cancel != NULL && g_atomic_int_get (options->cancel) != 0;
}

void
ffm_pmapping_progress_format (const FfmPmappingProgress *p, char *buffer, gsize size)
{
  g_snprintf (buffer, size, "Einsum %u of %u%s%s%s, template %u of %u",
              MIN (p->einsums_done + 1, p->n_einsums), p->n_einsums,
              p->einsum_name != NULL ? " (" : "",
              p->einsum_name != NULL ? p->einsum_name : "",
              p->einsum_name != NULL ? ")" : "", p->templates_done, p->n_templates);
}

/* ---- Describing a row ---- */

gboolean
ffm_describe_info_init (FfmDescribeInfo *info, const FfmWorkload *workload,
                        const FfmArch *arch, const FfmPmappingModel *model,
                        guint objectives)
{
  guint n_nodes = ffm_pmapping_model_get_n_nodes (model);
  guint einsum = ffm_pmapping_model_get_einsum (model);
  const FfmEinsum *e = ffm_workload_get_einsum (workload, einsum);
  guint64 seen = 0;
  guint loops_before = 0, n_path;
  g_autofree guint *path = NULL;

  memset (info, 0, sizeof *info);
  info->workload = workload;
  info->einsum = e;
  info->objectives = objectives;
  info->n_loops = ffm_pmapping_model_get_n_loops (model);
  for (guint i = 0; i < n_nodes; i++)
    {
      const FfmMappingNode *node = ffm_pmapping_model_get_node (model, i);
      int level;

      if (node->kind == FFM_NODE_TEMPORAL || node->kind == FFM_NODE_SPATIAL)
        {
          loops_before++;
          continue;
        }
      if (node->kind != FFM_NODE_STORAGE)
        continue;
      level = ffm_arch_find_level (arch, node->level);
      for (guint k = 0; node->tensors[k] != NULL; k++)
        {
          int tensor = ffm_workload_find_tensor (workload, node->tensors[k]);
          int access = tensor >= 0 ? ffm_einsum_find_access (e, tensor) : -1;
          const FfmTensor *t;
          guint s;
          double bits;

          if (access < 0 || (seen & BIT (access)))
            continue;
          seen |= BIT (access);
          t = ffm_workload_get_tensor (workload, tensor);
          if (!(t->classes & FFM_TENSOR_SHARED))
            continue;
          if (!ffm_arch_bits_per_value (arch, level, workload, einsum, access,
                                        &bits, NULL))
            return FALSE;
          s = info->n_shared++;
          info->shared_access[s] = access;
          info->shared_prefix[s] = loops_before;
          info->shared_level[s] = level;
          info->shared_persistent[s] = node->persistent;
          info->shared_bits[s] = bits;
          info->n_fused = MAX (info->n_fused, loops_before);
          for (guint v = 0; v < FFM_MAX_EINSUM_RANK_VARS; v++)
            info->rank_of_var[s][v] = -1;
          for (guint r = t->n_ranks; r-- > 0; )
            {
              const FfmProjection *p = &e->accesses[access].projections[r];
              if (p->n_terms == 1)
                info->rank_of_var[s][p->terms[0].var] = r;
            }
        }
    }
  path = ffm_arch_get_compute_path (arch, ffm_pmapping_model_get_compute_level (model),
                                    &n_path);
  for (guint p = 0; p < n_path; p++)
    if (ffm_arch_get_level (arch, path[p])->kind == FFM_LEVEL_MEMORY
        && isfinite (ffm_pmapping_model_get_level_size (model, path[p]))
        && info->n_memories < G_N_ELEMENTS (info->memories))
      info->memories[info->n_memories++] = path[p];
  return TRUE;
}

guint
ffm_describe_row (const FfmDescribeInfo *info, const FfmPmappingModel *model,
                  const guint64 *tiles, const FfmPmappingCost *cost,
                  FfmCompatibility *compat, FfmPmappingColumn *columns,
                  double *values)
{
  const FfmEinsum *e = info->einsum;
  guint nt_prefix[FFM_COST_MAX_LOOPS + 1];
  int depth_of[64];
  double reserved[G_N_ELEMENTS (info->memories)][FFM_COMPAT_MAX_LOOPS + 2];
  guint n_columns = 0, n_buffets, F = 0;

  if (cost->status != FFM_COST_VALID)
    return 0;
  memset (compat, 0, sizeof *compat);
  compat->einsum = ffm_pmapping_model_get_einsum (model);
  nt_prefix[0] = 0;
  for (guint j = 0; j < info->n_loops; j++)
    {
      const FfmLoopInfo *l = ffm_pmapping_model_get_loop (model, j);
      guint64 enclosing = l->enclosing >= 0 ? tiles[l->enclosing]
        : e->rank_var_bounds[l->rank_var];
      guint64 count = ffm_chain_iterations (enclosing, tiles[j]);
      gboolean fused_nt = j < info->n_fused && count > 1;

      nt_prefix[j + 1] = nt_prefix[j] + (fused_nt ? 1 : 0);
      if (!fused_nt)
        continue;
      if (F == FFM_COMPAT_MAX_LOOPS)
        return 0;
      compat->loops[F].rank_var = l->rank_var;
      compat->loops[F].spatial = l->spatial;
      compat->loops[F].fanout_level = -1;
      compat->loops[F].fanout_dim = -1;
      if (l->spatial)
        {
          const FfmFanoutDimInfo *f =
            ffm_pmapping_model_get_fanout_dim (model, l->fanout_dim);
          compat->loops[F].fanout_level = f->level;
          compat->loops[F].fanout_dim = f->dim;
        }
      compat->loops[F].count = count;
      compat->loops[F].tile = tiles[j];
      F++;
    }
  compat->n_loops = F;

  for (guint s = 0; s < info->n_shared; s++)
    {
      FfmCompatTensor *ct = &compat->tensors[compat->n_tensors++];
      guint64 var_tiles[FFM_MAX_EINSUM_RANK_VARS];
      guint a = info->shared_access[s];

      ct->tensor = e->accesses[a].tensor;
      ct->access = a;
      ct->backing_level = info->shared_level[s];
      ct->persistent = info->shared_persistent[s];
      ct->n_loops = nt_prefix[info->shared_prefix[s]];
      for (guint k = 0; k < ct->n_loops; k++)
        {
          int r = info->rank_of_var[s][compat->loops[k].rank_var];
          ct->ranks[k] = r >= 0 ? (guint) r : G_MAXUINT;
        }
      memcpy (var_tiles, e->rank_var_bounds, sizeof var_tiles);
      for (guint j = 0; j < info->shared_prefix[s]; j++)
        var_tiles[ffm_pmapping_model_get_loop (model, j)->rank_var] = tiles[j];
      ct->backing_bits = (double) ffm_access_tile_values (e, a, var_tiles)
        * info->shared_bits[s];
    }

  n_buffets = ffm_pmapping_model_get_n_buffets (model);
  g_return_val_if_fail (n_buffets <= G_N_ELEMENTS (depth_of), 0);
  /* Each memory's reservation at each depth d (-1..F): the occupancy of
   * its buffets alive at d, summed in buffet order (one pass: this runs
   * at every leaf of the tile search). */
  memset (reserved, 0, sizeof reserved[0] * info->n_memories);
  for (guint b = 0; b < n_buffets; b++)
    {
      const FfmBuffetInfo *bi = ffm_pmapping_model_get_buffet (model, b);
      if (bi->persistent || bi->n_loops_above < 0)
        depth_of[b] = -1;
      else
        {
          depth_of[b] = nt_prefix[MIN ((guint) bi->n_loops_above, info->n_fused)];
          compat->stops |= 1u << depth_of[b];
        }
      for (guint k = 0; k < info->n_memories; k++)
        if (info->memories[k] == bi->level)
          for (int d = depth_of[b]; d <= (int) F; d++)
            reserved[k][d + 1] += cost->buffet_occupancy[b];
    }

  if (info->objectives & FFM_PMAPPING_ENERGY)
    {
      columns[n_columns] = (FfmPmappingColumn) { FFM_PMAPPING_COLUMN_ENERGY, 0, 0 };
      values[n_columns++] = cost->energy;
    }
  if (info->objectives & FFM_PMAPPING_LATENCY)
    {
      columns[n_columns] = (FfmPmappingColumn) { FFM_PMAPPING_COLUMN_LATENCY, 0, 0 };
      values[n_columns++] = cost->latency;
    }
  for (guint k = 0; k < info->n_memories; k++)
    for (int d = -1; d <= (int) F; d++)
      {
        columns[n_columns] = (FfmPmappingColumn) {
          FFM_PMAPPING_COLUMN_RESERVATION, info->memories[k], d };
        values[n_columns++] = reserved[k][d + 1];
      }
  return n_columns;
}

gboolean
ffm_pmapping_describe (const FfmWorkload *workload, const FfmArch *arch,
                       const FfmPmappingModel *model, const guint64 *tiles,
                       const FfmPmappingCost *cost, guint objectives,
                       FfmCompatibility *compat, GArray *columns,
                       GArray *values)
{
  FfmDescribeInfo info;
  FfmPmappingColumn cols[FFM_DESCRIBE_MAX_COLUMNS];
  double vals[FFM_DESCRIBE_MAX_COLUMNS];
  guint n;

  g_return_val_if_fail (workload != NULL && arch != NULL && model != NULL, FALSE);
  g_return_val_if_fail (tiles != NULL && cost != NULL && compat != NULL, FALSE);
  if (!ffm_describe_info_init (&info, workload, arch, model, objectives))
    return FALSE;
  n = ffm_describe_row (&info, model, tiles, cost, compat, cols, vals);
  if (n == 0)
    return FALSE;
  if (columns != NULL)
    g_array_append_vals (columns, cols, n);
  if (values != NULL)
    g_array_append_vals (values, vals, n);
  return TRUE;
}

/* ---- Template results ---- */

FfmTemplateResult *
ffm_template_result_new (guint n_levels)
{
  FfmTemplateResult *r = g_new0 (FfmTemplateResult, 1);

  r->groups = g_ptr_array_new ();
  r->index = g_hash_table_new (ffm_compatibility_hash_func,
                               ffm_compatibility_equal_func);
  r->rejected = g_new0 (guint64, MAX (n_levels, 1));
  r->min_excess = g_new (double, MAX (n_levels, 1));
  r->min_need = g_new0 (double, MAX (n_levels, 1));
  for (guint i = 0; i < MAX (n_levels, 1); i++)
    r->min_excess[i] = -1;
  return r;
}

static void
template_group_free (FfmTemplateGroup *g)
{
  g_array_free (g->columns, TRUE);
  g_array_free (g->values, TRUE);
  g_array_free (g->tiles, TRUE);
  g_free (g);
}

void
ffm_template_result_free (FfmTemplateResult *r)
{
  if (r == NULL)
    return;
  ffm_memory_budget_release (r->budget, r->charged);
  g_hash_table_destroy (r->index);
  for (guint i = 0; i < r->groups->len; i++)
    template_group_free (g_ptr_array_index (r->groups, i));
  g_ptr_array_free (r->groups, TRUE);
  g_free (r->rejected);
  g_free (r->min_excess);
  g_free (r->min_need);
  g_free (r);
}

guint
ffm_pmapping_objectives_for (FfmObjective objective)
{
  guint both = FFM_PMAPPING_ENERGY | FFM_PMAPPING_LATENCY;

  switch (objective)
    {
    case FFM_OBJECTIVE_ENERGY:
      return both | FFM_PMAPPING_ENERGY_FIRST;
    case FFM_OBJECTIVE_LATENCY:
      return both | FFM_PMAPPING_LATENCY_FIRST;
    case FFM_OBJECTIVE_EDP:
    case FFM_OBJECTIVE_PARETO:
    default:
      return both;
    }
}

guint
ffm_pmapping_prune_rows (double *values, guint n_rows, guint n_columns,
                         guint objectives, guint *kept)
{
  return ffm_pmapping_prune_rows_front (values, n_rows, n_columns, 0, objectives, kept);
}

guint
ffm_pmapping_prune_rows_front (double *values, guint n_rows, guint n_columns,
                               guint n_front, guint objectives, guint *kept)
{
  guint both = FFM_PMAPPING_ENERGY | FFM_PMAPPING_LATENCY;

  /* the objectives are the first columns, energy before latency */
  if ((objectives & both) == both && n_columns >= 2
      && (objectives & (FFM_PMAPPING_ENERGY_FIRST | FFM_PMAPPING_LATENCY_FIRST)))
    {
      guint first = (objectives & FFM_PMAPPING_ENERGY_FIRST) ? 0 : 1;
      return ffm_pareto_prune_lexicographic_front (values, n_rows, n_columns, n_front,
                                                   first, 1 - first, kept);
    }
  return ffm_pareto_prune_front (values, n_rows, n_columns, n_front, kept);
}

void ffm_template_group_prune (FfmTemplateGroup *g, guint n_loops);

void
ffm_template_group_prune (FfmTemplateGroup *g, guint n_loops)
{
  guint *kept = g_new (guint, MAX (g->n_rows, 1));
  /* The rows up to the last pruning are a Pareto set already. */
  guint n = ffm_pmapping_prune_rows_front ((double *) g->values->data, g->n_rows,
                                           g->n_columns, g->pruned_rows, g->objectives,
                                           kept);
  guint64 *tiles = (guint64 *) g->tiles->data;

  for (guint i = 0; i < n; i++)
    if (kept[i] != i)
      memmove (tiles + (gsize) i * n_loops, tiles + (gsize) kept[i] * n_loops,
               sizeof (guint64) * n_loops);
  g_array_set_size (g->values, (gsize) n * g->n_columns);
  g_array_set_size (g->tiles, (gsize) n * n_loops);
  g->n_rows = n;
  g->pruned_rows = n;
  g_free (kept);
}

void
ffm_template_result_prune (FfmTemplateResult *r)
{
  gsize bytes = 0;

  for (guint i = 0; i < r->groups->len; i++)
    {
      FfmTemplateGroup *g = g_ptr_array_index (r->groups, i);
      if (g->n_rows != g->pruned_rows)
        ffm_template_group_prune (g, r->n_loops);
      bytes += (gsize) g->n_rows * (sizeof (double) * g->n_columns
                                    + sizeof (guint64) * r->n_loops);
    }
  /* The rows were charged in chunks of at least 64 KiB while the search
   * ran; what stays until the merge is what the survivors hold (a deep
   * architecture's hundreds of thousands of templates of a few rows each
   * would otherwise hold 64 KiB each of the budget). */
  if (r->budget != NULL && r->charged > bytes)
    {
      ffm_memory_budget_release (r->budget, r->charged - bytes);
      r->charged = bytes;
      r->bytes = bytes;
    }
}

/* ---- Per-Einsum results ---- */

typedef struct {
  FfmPmappingGroup pub;
  GArray *columns;          /* of FfmPmappingColumn */
  GArray *values;           /* of double */
  GArray *refs;             /* of FfmPmappingRef */
} Group;

struct _FfmEinsumPmappings {
  FfmPmappingSet *set;      /* borrowed: the set that holds it */
  guint einsum;
  const FfmEinsum *e;       /* borrowed from the set's workload */
  GPtrArray *templates;     /* of FfmPmappingTemplate* */
  GPtrArray *results;       /* of FfmTemplateResult*, until phase 4; their
                               groups are freed once merged */
  gint pending;             /* templates not enumerated yet (atomic) */
  FfmEinsumPmappings *same_as; /* an earlier Einsum with the same
                                  signature, whose groups these copy */
  GArray *tile_pool;        /* of guint64 */
  GPtrArray *groups;        /* of Group* */
  FfmPmappingStats stats;
  guint n_chains_last;      /* templates searched with the variable of most
                               chains last (diagnostics) */
  guint64 n_bucket_cuts;    /* groups of complete rows cut by their bounds
                               (diagnostics) */
  guint n_choices_bounded;  /* storage choices left out by their bound
                               (diagnostics) */
  FfmJoinableParts *joinable; /* the parts its shared tensors may have
                                 (options.drop_unjoinable), or NULL */
  gsize joinable_charged;   /* bytes of @joinable reserved from the budget */
  gboolean copied;          /* @same_as's groups were copied into @groups
                               (copy_einsum()) */
  guint64 n_unjoinable;     /* vectors the generation dropped for them */
  guint n_groups_unjoinable; /* groups the finished set dropped */
  gsize charged;            /* bytes of the groups reserved from the set's
                               budget */
  FfmMemoryBudget *budget;  /* borrowed: the set's */
  double *capacity;         /* [n_levels] bits */
  guint objectives;         /* the options' FfmPmappingObjectives */
};

struct _FfmPmappingSet {
  FfmWorkload *workload;
  FfmArch *arch;
  FfmPmappingOptions options;
  GPtrArray *einsums;       /* of FfmEinsumPmappings* */
  FfmEinsumPmappings **by_einsum; /* [n workload Einsums], borrowed */
  GArray *tracked;          /* of guint */
  gboolean *untracked_early; /* [n levels]: memories known to be untracked
                               before the search (memory_untracked_early()),
                               whose reservations no group carries */
  double seconds;
  GAsyncQueue *workspaces;  /* of FfmTileWorkspace*, one per thread, while
                               generating */
  /* Progress (options.progress): templates and Einsums done (atomic), of
   * how many. */
  gint templates_done;
  gint einsums_done;
  guint n_templates;
  FfmBoundConstraints *constraints; /* options.constraints bound; NULL if none */
  FfmMemoryBudget *budget;  /* options.max_memory: every workspace's and
                               result's bytes */
  gint failed;              /* (atomic) a job failed: the others skip */
  GMutex failure_lock;
  GError *failure;          /* the first job's failure, under the lock */
};

static void
group_free (Group *g)
{
  g_array_free (g->columns, TRUE);
  g_array_free (g->values, TRUE);
  g_array_free (g->refs, TRUE);
  g_free (g);
}

/* The bytes of @g's rows, as charged to the budget. */
static gsize
group_bytes (const Group *g)
{
  return sizeof (double) * g->values->len + sizeof (FfmPmappingRef) * g->refs->len;
}

static void
group_sync (Group *g)
{
  g->pub.n_columns = g->columns->len;
  g->pub.columns = (const FfmPmappingColumn *) g->columns->data;
  g->pub.n_rows = g->refs->len;
  g->pub.values = (const double *) g->values->data;
  g->pub.refs = (const FfmPmappingRef *) g->refs->data;
}

static void
group_prune (Group *g, guint objectives)
{
  guint n_rows = g->refs->len, n_columns = g->columns->len;
  guint *kept = g_new (guint, MAX (n_rows, 1));
  FfmPmappingRef *refs = (FfmPmappingRef *) g->refs->data;
  guint n = ffm_pmapping_prune_rows ((double *) g->values->data, n_rows,
                                     n_columns, objectives, kept);

  for (guint i = 0; i < n; i++)
    refs[i] = refs[kept[i]];
  g_array_set_size (g->values, (gsize) n * n_columns);
  g_array_set_size (g->refs, n);
  g_free (kept);
  group_sync (g);
}

static void
einsum_pmappings_free (FfmEinsumPmappings *pm)
{
  if (pm == NULL)
    return;
  ffm_memory_budget_release (pm->budget, pm->charged);
  ffm_memory_budget_release (pm->budget,
                             (gsize) pm->templates->len * FFM_PMAPPING_TEMPLATE_BYTES);
  g_ptr_array_unref (pm->templates);
  if (pm->results != NULL)
    g_ptr_array_unref (pm->results);
  g_array_free (pm->tile_pool, TRUE);
  for (guint i = 0; i < pm->groups->len; i++)
    group_free (g_ptr_array_index (pm->groups, i));
  g_ptr_array_free (pm->groups, TRUE);
  g_free (pm->capacity);
  ffm_memory_budget_release (pm->budget, pm->joinable_charged);
  ffm_joinable_parts_free (pm->joinable);
  g_free (pm);
}

/* Records the first failure of a job (@error, transfer full); the jobs
 * that start after it skip their template, and the generation fails with
 * it. */
static void
fail_generation (FfmPmappingSet *set, GError *error)
{
  g_mutex_lock (&set->failure_lock);
  /* GLib's mutex is invisible to ThreadSanitizer (ffm-tsan.h). */
  FFM_TSAN_ACQUIRE (&set->failure_lock);
  if (set->failure == NULL)
    set->failure = error;
  else
    g_error_free (error);
  g_atomic_int_set (&set->failed, 1);
  FFM_TSAN_RELEASE (&set->failure_lock);
  g_mutex_unlock (&set->failure_lock);
}

/* The generation needs @asked bytes more than its budget for @what. */
static void
fail_out_of_memory (FfmPmappingSet *set, const char *what, guint64 asked)
{
  g_autofree char *limit = ffm_format_bytes (ffm_memory_budget_get_limit (set->budget));
  g_autofree char *more = ffm_format_bytes (asked);
  g_autofree char *held = ffm_format_bytes (ffm_memory_budget_get_peak (set->budget));

  fail_generation (set, g_error_new (FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY,
                                     "%s needs more memory than the budget of %s "
                                     "allows (the generation held up to %s when it "
                                     "asked for %s more); raise the budget "
                                     "(--max-memory), or narrow the mapspace (fewer "
                                     "fused loops, no remainder tiles, mapping "
                                     "constraints)", what, limit, held, more));
}

/* After a template ran: an out-of-memory stop fails the generation. */
static void
check_template_result (FfmPmappingSet *set, FfmEinsumPmappings *pm,
                       guint template_id, const FfmTemplateResult *r)
{
  if (r->out_of_memory)
    {
      g_autofree char *what = g_strdup_printf ("Einsum %s, template %u of %u: the tile "
                                               "search", pm->e->name, template_id + 1,
                                               pm->templates->len);
      fail_out_of_memory (set, what, r->memory_asked);
    }
}

static gboolean
generation_failed (FfmPmappingSet *set)
{
  return g_atomic_int_get (&set->failed) != 0;
}

/* Merges the templates' groups in template order (phase 3). */
static void
merge_einsum (FfmEinsumPmappings *pm)
{
  g_autoptr(GHashTable) index = g_hash_table_new (ffm_compatibility_hash_func,
                                                  ffm_compatibility_equal_func);

  for (guint t = 0; t < pm->results->len; t++)
    {
      FfmTemplateResult *r = g_ptr_array_index (pm->results, t);
      pm->stats.n_evaluated += r->n_evaluated;
      pm->stats.n_valid += r->n_valid;
      pm->stats.n_partial += r->n_partial;
      pm->n_chains_last += r->n_chains_last;
      pm->n_bucket_cuts += r->n_bucket_cuts;
      pm->n_unjoinable += r->n_unjoinable;
      pm->stats.n_templates_cut += r->cut ? 1 : 0;
      pm->stats.seconds += r->seconds;
      for (guint k = 0; k < r->groups->len; k++)
        {
          FfmTemplateGroup *tg = g_ptr_array_index (r->groups, k);
          Group *g = g_hash_table_lookup (index, &tg->compat);
          if (g == NULL)
            {
              g = g_new0 (Group, 1);
              g->pub.compat = tg->compat;
              g->columns = g_array_new (FALSE, FALSE, sizeof (FfmPmappingColumn));
              g_array_append_vals (g->columns, tg->columns->data, tg->columns->len);
              g->values = g_array_new (FALSE, FALSE, sizeof (double));
              g->refs = g_array_new (FALSE, FALSE, sizeof (FfmPmappingRef));
              g_ptr_array_add (pm->groups, g);
              g_hash_table_insert (index, &g->pub.compat, g);
            }
          g_return_if_fail (g->columns->len == tg->n_columns);
          g_array_append_vals (g->values, tg->values->data, tg->values->len);
          for (guint row = 0; row < tg->n_rows; row++)
            {
              FfmPmappingRef ref = { t, pm->tile_pool->len };
              g_array_append_vals (pm->tile_pool,
                                   (guint64 *) tg->tiles->data + (gsize) row * r->n_loops,
                                   r->n_loops);
              g_array_append_val (g->refs, ref);
            }
        }
    }
  for (guint i = 0; i < pm->groups->len; i++)
    group_prune (g_ptr_array_index (pm->groups, i), pm->objectives);
  /* The rows now live in the groups; only the rejection records of the
   * results are read later (for the no-pmapping error). */
  for (guint t = 0; t < pm->results->len; t++)
    {
      FfmTemplateResult *r = g_ptr_array_index (pm->results, t);
      g_hash_table_remove_all (r->index);
      for (guint k = 0; k < r->groups->len; k++)
        template_group_free (g_ptr_array_index (r->groups, k));
      g_ptr_array_set_size (r->groups, 0);
      ffm_memory_budget_release (r->budget, r->charged);
      r->charged = r->bytes = 0;
    }
  /* The merged rows stay until the set is freed: charged to the budget. */
  {
    gsize bytes = sizeof (guint64) * pm->tile_pool->len;
    for (guint i = 0; i < pm->groups->len; i++)
      bytes += group_bytes (g_ptr_array_index (pm->groups, i));
    if (ffm_memory_budget_reserve (pm->budget, bytes))
      pm->charged = bytes;
    else if (pm->set != NULL)
      {
        g_autofree char *what = g_strdup_printf ("Einsum %s: its Pareto pmappings",
                                                 pm->e->name);
        fail_out_of_memory (pm->set, what, bytes);
      }
  }
}

/* Gives @pm a copy of the groups of @from, an Einsum with the same
 * signature: the same rows and tiles, the compatibility renamed to @pm's
 * Einsum and tensors (accesses correspond one to one). */
static void
copy_einsum (FfmEinsumPmappings *pm, const FfmEinsumPmappings *from)
{
  pm->stats.n_templates_cut = from->stats.n_templates_cut;
  for (guint i = 0; i < from->groups->len; i++)
    {
      const Group *src = g_ptr_array_index (from->groups, i);
      Group *g = g_new0 (Group, 1);
      g->pub.compat = src->pub.compat;
      g->pub.compat.einsum = pm->einsum;
      for (guint k = 0; k < g->pub.compat.n_tensors; k++)
        g->pub.compat.tensors[k].tensor
          = pm->e->accesses[g->pub.compat.tensors[k].access].tensor;
      g->columns = g_array_copy (src->columns);
      g->values = g_array_copy (src->values);
      g->refs = g_array_copy (src->refs);
      group_sync (g);
      g_ptr_array_add (pm->groups, g);
    }
  g_array_append_vals (pm->tile_pool, from->tile_pool->data, from->tile_pool->len);
  pm->copied = TRUE;
}

/* Charges the budget with the copy copy_einsum() gave @pm: the same
 * bytes as @from's rows. FALSE (and the generation failed) when they do
 * not fit. */
static gboolean
charge_copy (FfmPmappingSet *set, FfmEinsumPmappings *pm, const FfmEinsumPmappings *from)
{
  if (ffm_memory_budget_reserve (pm->budget, from->charged))
    {
      pm->charged = from->charged;
      return TRUE;
    }
  {
    g_autofree char *what = g_strdup_printf ("Einsum %s: its copy of the Pareto "
                                             "pmappings of %s (the same shape)",
                                             pm->e->name, from->e->name);
    fail_out_of_memory (set, what, from->charged);
  }
  return FALSE;
}

/* Keeps in the tile pool only the tiles of surviving rows. */
static void
compact_tiles (FfmEinsumPmappings *pm)
{
  GArray *pool = g_array_new (FALSE, FALSE, sizeof (guint64));

  for (guint i = 0; i < pm->groups->len; i++)
    {
      Group *g = g_ptr_array_index (pm->groups, i);
      FfmPmappingRef *refs = (FfmPmappingRef *) g->refs->data;
      for (guint r = 0; r < g->refs->len; r++)
        {
          const FfmPmappingTemplate *t = g_ptr_array_index (pm->templates,
                                                            refs[r].template_id);
          guint n = ffm_pmapping_model_get_n_loops (t->model);
          guint32 offset = pool->len;
          g_array_append_vals (pool, (guint64 *) pm->tile_pool->data + refs[r].tiles, n);
          refs[r].tiles = offset;
        }
    }
  g_array_free (pm->tile_pool, TRUE);
  pm->tile_pool = pool;
}

/* ---- Errors ---- */

/* Why an Einsum has no pmapping: the memory (or fanout) that rejected the
 * smallest attempt, from the templates' rejection records. */
static void
set_no_pmapping_error (FfmPmappingSet *set, FfmEinsumPmappings *pm,
                       GError **error)
{
  const FfmEinsum *e = ffm_workload_get_einsum (set->workload, pm->einsum);
  guint n_levels = ffm_arch_get_n_levels (set->arch);
  int best = -1, most = -1;
  double best_excess = -1, best_need = 0;
  guint64 most_count = 0;

  for (guint t = 0; t < pm->results->len; t++)
    {
      FfmTemplateResult *r = g_ptr_array_index (pm->results, t);
      for (guint l = 0; l < n_levels; l++)
        {
          if (r->min_excess[l] >= 0 && (best < 0 || r->min_excess[l] < best_excess))
            {
              best = l;
              best_excess = r->min_excess[l];
              best_need = r->min_need[l];
            }
          if (r->rejected[l] > most_count)
            {
              most = l;
              most_count = r->rejected[l];
            }
        }
    }
  if (best >= 0)
    g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                 "Einsum %s does not fit on architecture %s: no pmapping fits "
                 "memory %s, which even the smallest tiles need %.0f bits of "
                 "(it holds %.0f)", e->name, ffm_arch_get_name (set->arch),
                 ffm_arch_get_level (set->arch, best)->name, best_need,
                 best_need - best_excess);
  else if (most >= 0)
    g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                 "Einsum %s has no valid pmapping on architecture %s: every "
                 "tile choice overflows a memory or a fanout, most often %s",
                 e->name, ffm_arch_get_name (set->arch),
                 ffm_arch_get_level (set->arch, most)->name);
  else
    g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                 "Einsum %s has no valid pmapping on architecture %s",
                 e->name, ffm_arch_get_name (set->arch));
}

/* Why the constraints leave Einsum @einsum no template (@cause: the
 * template builder's error, or NULL when it built none): the constraints
 * without which it has some, found by building its templates once without
 * each constraint that applies to it. */
static void
set_unsatisfiable_error (FfmPmappingSet *set, guint einsum, const GError *cause,
                         GError **error)
{
  const FfmEinsum *e = ffm_workload_get_einsum (set->workload, einsum);
  const FfmConstraints *c = ffm_bound_constraints_get_constraints (set->constraints);
  const FfmEinsumConstraints *ec = ffm_bound_constraints_get_einsum (set->constraints, einsum);
  g_autoptr (GString) culprits = g_string_new (NULL);
  g_autofree char *all = ffm_bound_constraints_describe_einsum (set->constraints, einsum);

  for (guint i = 0; i < ffm_constraints_get_n (c) && i < 63; i++)
    {
      g_autoptr (FfmBoundConstraints) without = NULL;
      g_autoptr (GPtrArray) templates = NULL;
      gboolean ok;

      if (!(ec->entries & (G_GUINT64_CONSTANT (1) << i)))
        continue;
      without = ffm_bound_constraints_without (set->constraints, i);
      if (without == NULL)
        continue;
      templates = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_pmapping_template_free);
      ok = ffm_pmapping_templates_build (set->workload, set->arch, einsum, &set->options,
                                         ffm_bound_constraints_get_einsum (without, einsum),
                                         NULL, templates, NULL, NULL, NULL);
      if (ok && templates->len > 0)
        {
          g_autofree char *d = ffm_constraints_describe (c, i);
          g_string_append_printf (culprits, "%s%s", culprits->len ? "; " : "", d);
        }
    }
  if (culprits->len > 0)
    g_set_error (error, FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_UNSATISFIABLE,
                 "Einsum %s: no pmapping satisfies the mapping constraints on "
                 "architecture %s%s%s%s; it has some without %s", e->name,
                 ffm_arch_get_name (set->arch), cause ? " (" : "",
                 cause ? cause->message : "", cause ? ")" : "", culprits->str);
  else
    g_set_error (error, FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_UNSATISFIABLE,
                 "Einsum %s: no pmapping satisfies the mapping constraints on "
                 "architecture %s%s%s%s; together they leave it none: %s", e->name,
                 ffm_arch_get_name (set->arch), cause ? " (" : "",
                 cause ? cause->message : "", cause ? ")" : "", all);
}

/* ---- Tracked memories (as in the reference implementation, accelforge) ---- */

/* Whether memory @level is infinite or can hold every tensor of every
 * Einsum at once: 1 if so, 0 if not, -1 when its size or bits per value
 * do not evaluate (then it is tracked). */
static int
memory_holds_workload (FfmPmappingSet *set, guint level)
{
  guint n_einsums = ffm_workload_get_n_einsums (set->workload);
  double total = 0, size = INFINITY;

  for (guint e = 0; e < n_einsums; e++)
    {
      const FfmEinsum *einsum = ffm_workload_get_einsum (set->workload, e);
      double s;
      if (!ffm_arch_memory_size (set->arch, level, set->workload, e, &s, NULL))
        return -1;
      size = MIN (size, s);
      for (guint a = 0; a < einsum->n_accesses; a++)
        {
          double bits;
          if (!ffm_arch_bits_per_value (set->arch, level, set->workload, e, a,
                                        &bits, NULL))
            return -1;
          total += (double) ffm_workload_get_tensor_values (set->workload,
                                                            einsum->accesses[a].tensor)
            * bits;
        }
    }
  return isinf (size) || total <= size ? 1 : 0;
}

/* Whether every template of every Einsum makes memory @level always below
 * (memory_is_tracked()) whatever its tiles: the memory backs no shared
 * tensor, and each of its tiles is reserved below every loop that can be
 * fused (a fused loop of one iteration only moves a reservation deeper). */
static gboolean
memory_below_in_every_template (FfmPmappingSet *set, guint level)
{
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      for (guint t = 0; t < pm->templates->len; t++)
        {
          const FfmPmappingTemplate *tp = g_ptr_array_index (pm->templates, t);
          FfmDescribeInfo info;
          guint n_buffets = ffm_pmapping_model_get_n_buffets (tp->model);
          if (!ffm_describe_info_init (&info, set->workload, set->arch, tp->model,
                                       set->options.objectives))
            return FALSE;
          for (guint s = 0; s < info.n_shared; s++)
            if (info.shared_level[s] == level)
              return FALSE;
          for (guint b = 0; b < n_buffets; b++)
            {
              const FfmBuffetInfo *bi = ffm_pmapping_model_get_buffet (tp->model, b);
              if (bi->level == level
                  && (bi->persistent || bi->n_loops_above < 0
                      || (guint) bi->n_loops_above < info.n_fused))
                return FALSE;
            }
        }
    }
  return TRUE;
}

/* Whether memory @level is known to be untracked from the templates
 * alone, before any tile is chosen: then the groups need not carry its
 * reservations while they are built. Those columns only split the
 * groups' Pareto sets (Register and LocalBuffer of TPUv4i, every memory
 * of ResNet-18 on TPUv4i, Simba or Eyeriss), which the drop at the end
 * merges again. Pruning on fewer columns keeps the same values: what
 * a dropped column would have kept is dominated in the others by what
 * survives, so the rows differ at most among ties. */
static gboolean
memory_untracked_early (FfmPmappingSet *set, guint level)
{
  const FfmLevel *l = ffm_arch_get_level (set->arch, level);

  if (l->kind != FFM_LEVEL_MEMORY)
    return FALSE;
  if (FFM_PMAPPING_TRACK_ALL_MEMORIES (&set->options))
    return isinf (l->u.memory.size);
  if (g_getenv ("FFM_PMAPPING_UNTRACKED_LATE") != NULL)
    return FALSE;           /* tests: the columns dropped only at the end */
  return memory_holds_workload (set, level) == 1
    || memory_below_in_every_template (set, level);
}

/* A memory is tracked unless it is infinite, can hold every tensor of
 * every Einsum at once, or is always below: in every group of every
 * Einsum it reserves nothing above the group's deepest fused loop and
 * backs no shared tensor (its tiles then never live while another Einsum
 * runs, and each pmapping's own capacity check suffices). */
static gboolean
memory_is_tracked (FfmPmappingSet *set, guint level)
{
  const FfmLevel *l = ffm_arch_get_level (set->arch, level);

  if (l->kind != FFM_LEVEL_MEMORY)
    return FALSE;
  if (FFM_PMAPPING_TRACK_ALL_MEMORIES (&set->options))
    return !isinf (ffm_arch_get_level (set->arch, level)->u.memory.size);
  if (set->untracked_early != NULL && set->untracked_early[level])
    return FALSE;
  switch (memory_holds_workload (set, level))
    {
    case 1:
      return FALSE;
    case -1:
      return TRUE;
    default:
      break;
    }
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      for (guint k = 0; k < pm->groups->len; k++)
        {
          Group *g = g_ptr_array_index (pm->groups, k);
          const FfmCompatibility *c = &g->pub.compat;
          int shallow = (int) c->n_loops - 1;  /* deepest depth above the bottom */
          int col = -1;
          for (guint t = 0; t < c->n_tensors; t++)
            if (c->tensors[t].backing_level == level)
              return TRUE;
          for (guint j = 0; j < g->columns->len; j++)
            {
              const FfmPmappingColumn *cd = &g_array_index (g->columns,
                                                            FfmPmappingColumn, j);
              if (cd->kind == FFM_PMAPPING_COLUMN_RESERVATION
                  && cd->level == level && cd->depth == shallow)
                col = j;
            }
          if (col < 0)
            continue;
          for (guint r = 0; r < g->refs->len; r++)
            if (g_array_index (g->values, double, (gsize) r * g->columns->len + col) > 0)
              return TRUE;
        }
    }
  return FALSE;
}

/* Drops the columns of untracked memories and prunes again. */
static void
drop_untracked (FfmPmappingSet *set, FfmEinsumPmappings *pm)
{
  for (guint k = 0; k < pm->groups->len; k++)
    {
      Group *g = g_ptr_array_index (pm->groups, k);
      guint n_old = g->columns->len, n_rows = g->refs->len, n_new = 0;
      gboolean keep[FFM_DESCRIBE_MAX_COLUMNS];
      GArray *columns = g_array_new (FALSE, FALSE, sizeof (FfmPmappingColumn));
      GArray *values;

      for (guint j = 0; j < n_old; j++)
        {
          const FfmPmappingColumn *cd = &g_array_index (g->columns,
                                                        FfmPmappingColumn, j);
          keep[j] = TRUE;
          if (cd->kind == FFM_PMAPPING_COLUMN_RESERVATION)
            {
              keep[j] = FALSE;
              for (guint t = 0; t < set->tracked->len; t++)
                keep[j] |= g_array_index (set->tracked, guint, t) == cd->level;
            }
          if (keep[j])
            {
              g_array_append_val (columns, *cd);
              n_new++;
            }
        }
      values = g_array_sized_new (FALSE, FALSE, sizeof (double),
                                  (guint) ((gsize) n_rows * n_new));
      for (guint r = 0; r < n_rows; r++)
        for (guint j = 0; j < n_old; j++)
          if (keep[j])
            g_array_append_val (values, g_array_index (g->values, double,
                                                       (gsize) r * n_old + j));
      g_array_free (g->columns, TRUE);
      g_array_free (g->values, TRUE);
      g->columns = columns;
      g->values = values;
      if (n_new != n_old)
        group_prune (g, set->options.objectives);
      else
        group_sync (g);
    }
}

/* ---- Generation ---- */

typedef struct {
  FfmPmappingSet *set;
  FfmEinsumPmappings *pm;
  guint template_id;
} Job;

/* The address the jobs of a pool release when they end and the caller
 * acquires after the pool (ffm-tsan.h). */
static gconstpointer
jobs_done_key (gconstpointer user_data)
{
  return user_data;
}

/* Tells options.progress that a template of @pm starts or has ended
 * (@ended), and whether that was the Einsum's last (@einsum_done). */
static void
report_progress (FfmPmappingSet *set, FfmEinsumPmappings *pm, gboolean ended,
                 gboolean einsum_done)
{
  FfmPmappingProgress p;

  if (set->options.progress == NULL)
    return;
  p.templates_done = (guint) (ended ? g_atomic_int_add (&set->templates_done, 1) + 1
                                    : g_atomic_int_get (&set->templates_done));
  p.einsums_done = (guint) (einsum_done ? g_atomic_int_add (&set->einsums_done, 1) + 1
                                        : g_atomic_int_get (&set->einsums_done));
  p.n_einsums = set->einsums->len;
  p.n_templates = set->n_templates;
  p.einsum = (int) pm->einsum;
  p.einsum_name = pm->e->name;
  set->options.progress (&p, set->options.progress_data);
}

static void
run_template_job (gpointer data, gpointer user_data)
{
  Job *job = data;
  FfmPmappingSet *set = user_data;
  const FfmPmappingTemplate *t;
  FfmTemplateResult *r;
  FfmTileWorkspace *ws;
  gboolean cancelled;

  /* Nothing of the set is read before the hand-off is visible to TSan. */
  FFM_TSAN_ACQUIRE (job);
  cancelled = ffm_pmapping_options_is_cancelled (&set->options)
    || generation_failed (set);
  t = g_ptr_array_index (job->pm->templates, job->template_id);
  r = g_ptr_array_index (job->pm->results, job->template_id);
  /* Cancelled: the remaining templates are skipped (the caller fails the
   * whole generation, so their empty results are never read) and not
   * reported as done. */
  if (!cancelled)
    {
      report_progress (set, job->pm, FALSE, FALSE);
      ws = g_async_queue_pop (set->workspaces);
      FFM_TSAN_ACQUIRE (ws);
      ffm_pmapping_template_enumerate (set->workload, set->arch, t, &set->options,
                                       set->untracked_early, job->pm->joinable, ws, r);
      FFM_TSAN_RELEASE (ws);
      g_async_queue_push (set->workspaces, ws);
      check_template_result (set, job->pm, job->template_id, r);
    }
  /* The last template of an Einsum merges them all, in template order
   * (whichever thread that is, the result is the same), so that finished
   * Einsums hold only their Pareto groups while others still run. */
  if (g_atomic_int_dec_and_test (&job->pm->pending))
    {
      merge_einsum (job->pm);
      if (!cancelled)
        report_progress (set, job->pm, TRUE, TRUE);
    }
  else if (!cancelled)
    report_progress (set, job->pm, TRUE, FALSE);
  FFM_TSAN_RELEASE (jobs_done_key (set));
}

static void
run_pool (GFunc func, gpointer user_data, guint n_threads, GPtrArray *jobs)
{
  GThreadPool *pool;

  if (n_threads <= 1 || jobs->len <= 1)
    {
      for (guint i = 0; i < jobs->len; i++)
        func (g_ptr_array_index (jobs, i), user_data);
      return;
    }
  pool = g_thread_pool_new (func, user_data, (gint) n_threads, TRUE, NULL);
  for (guint i = 0; i < jobs->len; i++)
    {
      FFM_TSAN_RELEASE (g_ptr_array_index (jobs, i));
      g_thread_pool_push (pool, g_ptr_array_index (jobs, i), NULL);
    }
  g_thread_pool_free (pool, FALSE, TRUE);
  /* What every job wrote (ffm-tsan.h). */
  FFM_TSAN_ACQUIRE (jobs_done_key (user_data));
}

/* ---- Jobs (ffm-pmapping-jobs.h) ---- */

struct _FfmPmappingJobs {
  FfmPmappingSet *set;      /* owned until jobs_finish() */
  GPtrArray *jobs;          /* of Job*: the first wave's first */
  guint n_threads;
  gint64 start;
  guint n_first;            /* jobs of the first wave (0: one wave) */
  gboolean *wave1;          /* [n workload Einsums]: in the first wave */
  gboolean second_begun;    /* the second wave's parts are set */
};

static FfmPmappingJobRunner job_runner;
static gpointer job_runner_data;

static void order_in_waves (FfmPmappingJobs *jobs);

void
ffm_pmapping_set_job_runner (FfmPmappingJobRunner runner, gpointer user_data)
{
  job_runner = runner;
  job_runner_data = user_data;
}

void
ffm_pmapping_jobs_free (FfmPmappingJobs *jobs)
{
  if (jobs == NULL)
    return;
  g_clear_pointer (&jobs->set, ffm_pmapping_set_free);
  g_ptr_array_unref (jobs->jobs);
  g_free (jobs->wave1);
  g_free (jobs);
}

/* Phase 1: the templates of every Einsum and one job per template to
 * enumerate. */
FfmPmappingJobs *
ffm_pmapping_jobs_new (FfmWorkload *workload, FfmArch *arch,
                       const FfmPmappingOptions *options, GError **error)
{
  g_autoptr(FfmPmappingJobs) jobs = NULL;
  g_autoptr(GHashTable) signatures = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                            g_free, NULL);
  FfmPmappingSet *set;
  guint n_einsums, n_levels;

  g_return_val_if_fail (workload != NULL && arch != NULL, NULL);
  g_return_val_if_fail (options == NULL
                        || options->struct_size >= G_STRUCT_OFFSET (FfmPmappingOptions, objectives),
                        NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  jobs = g_new0 (FfmPmappingJobs, 1);
  jobs->start = g_get_monotonic_time ();
  jobs->jobs = g_ptr_array_new_with_free_func (g_free);
  jobs->set = set = g_new0 (FfmPmappingSet, 1);
  set->workload = ffm_workload_ref (workload);
  set->arch = ffm_arch_ref (arch);
  options_copy (&set->options, options);
  set->budget = ffm_memory_budget_new (options_max_memory (&set->options));
  g_mutex_init (&set->failure_lock);
  if (set->options.constraints != NULL)
    {
      set->constraints = ffm_constraints_bind (set->options.constraints, workload,
                                               arch, error);
      if (set->constraints == NULL)
        return NULL;
      /* The set's own copy, so that the caller may free theirs. */
      set->options.constraints = ffm_bound_constraints_get_constraints (set->constraints);
    }
  if (set->options.objectives == 0)
    set->options.objectives = FFM_PMAPPING_ENERGY | FFM_PMAPPING_LATENCY;
  set->einsums = g_ptr_array_new_with_free_func ((GDestroyNotify) einsum_pmappings_free);
  set->tracked = g_array_new (FALSE, FALSE, sizeof (guint));
  n_einsums = ffm_workload_get_n_einsums (workload);
  n_levels = ffm_arch_get_n_levels (arch);
  set->by_einsum = g_new0 (FfmEinsumPmappings *, MAX (n_einsums, 1));
  jobs->n_threads = set->options.n_threads > 0 ? set->options.n_threads
    : (guint) g_get_num_processors ();
  /* One workspace per thread is allocated up front. */
  jobs->n_threads = MIN (jobs->n_threads, FFM_MAX_THREADS);

  if (set->options.einsum >= (int) n_einsums)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "workload %s has no Einsum number %d",
                   ffm_workload_get_name (workload), set->options.einsum);
      return NULL;
    }

  for (guint e = 0; e < n_einsums; e++)
    {
      FfmEinsumPmappings *pm;
      if (set->options.einsum >= 0 && (guint) set->options.einsum != e)
        continue;
      pm = g_new0 (FfmEinsumPmappings, 1);
      pm->set = set;
      pm->budget = set->budget;
      pm->einsum = e;
      pm->e = ffm_workload_get_einsum (workload, e);
      pm->templates = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_pmapping_template_free);
      pm->results = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_template_result_free);
      pm->tile_pool = g_array_new (FALSE, FALSE, sizeof (guint64));
      pm->groups = g_ptr_array_new ();
      pm->capacity = g_new0 (double, MAX (n_levels, 1));
      pm->objectives = set->options.objectives;
      g_ptr_array_add (set->einsums, pm);
      set->by_einsum[e] = pm;
      for (guint l = 0; l < n_levels; l++)
        if (ffm_arch_get_level (arch, l)->kind == FFM_LEVEL_MEMORY
            && !ffm_arch_memory_size (arch, l, workload, e, &pm->capacity[l], error))
          return NULL;
      {
        const FfmEinsumConstraints *ec = ffm_bound_constraints_get_einsum (set->constraints, e);
        GError *local = NULL;
        if (!ffm_pmapping_templates_build (workload, arch, e, &set->options, ec,
                                           set->budget, pm->templates,
                                           &pm->stats.n_templates_cut,
                                           &pm->n_choices_bounded, &local)
            || (ec != NULL && pm->templates->len == 0))
          {
            /* Under constraints, say which leave the Einsum nothing, when
             * it has templates without them. */
            if (ec != NULL && (local == NULL || local->domain == FFM_MAPPING_ERROR))
              {
                g_autoptr (GPtrArray) free_templates =
                  g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_pmapping_template_free);
                if (ffm_pmapping_templates_build (workload, arch, e, &set->options, NULL,
                                                  NULL, free_templates, NULL, NULL,
                                                  NULL))
                  {
                    set_unsatisfiable_error (set, e, local, error);
                    g_clear_error (&local);
                    return NULL;
                  }
              }
            g_propagate_error (error, local);
            return NULL;
          }
      }
      pm->stats.n_templates = pm->templates->len;
      pm->stats.reused_from = -1;
      if (set->options.reuse_equal_einsums)
        {
          char *signature = ffm_pmapping_einsum_signature (workload, arch, e,
                                                           pm->templates,
                                                           ffm_bound_constraints_get_einsum (set->constraints, e),
                                                           error);
          if (signature == NULL)
            return NULL;
          pm->same_as = g_hash_table_lookup (signatures, signature);
          if (pm->same_as != NULL)
            {
              pm->stats.reused_from = (int) pm->same_as->einsum;
              g_free (signature);
              continue;
            }
          g_hash_table_insert (signatures, signature, pm);
        }
      pm->pending = (gint) pm->templates->len;
      if (pm->templates->len == 0)
        merge_einsum (pm);
      for (guint t = 0; t < pm->templates->len; t++)
        {
          Job *job = g_new0 (Job, 1);
          job->set = set;
          job->pm = pm;
          job->template_id = t;
          g_ptr_array_add (pm->results, ffm_template_result_new (n_levels));
          g_ptr_array_add (jobs->jobs, job);
        }
    }

  set->untracked_early = g_new0 (gboolean, MAX (n_levels, 1));
  for (guint l = 0; l < n_levels; l++)
    {
      set->untracked_early[l] = memory_untracked_early (set, l);
      if (set->untracked_early[l] && !isinf (ffm_arch_get_level (arch, l)->u.memory.size))
        g_debug ("memory %s: untracked (known before the search)",
                 ffm_arch_get_level (arch, l)->name);
    }

  /* Einsums that copy an earlier one, or have no template, are done. */
  set->n_templates = jobs->jobs->len;
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      if (pm->same_as != NULL || pm->templates->len == 0)
        set->einsums_done++;
    }

  set->workspaces = g_async_queue_new_full ((GDestroyNotify) ffm_tile_workspace_free);
  for (guint i = 0; i < MAX (jobs->n_threads, 1); i++)
    g_async_queue_push (set->workspaces, ffm_tile_workspace_new (set->budget));
  order_in_waves (jobs);
  return g_steal_pointer (&jobs);
}

guint
ffm_pmapping_jobs_get_n_jobs (const FfmPmappingJobs *jobs)
{
  return jobs->jobs->len;
}

guint
ffm_pmapping_jobs_get_n_threads (const FfmPmappingJobs *jobs)
{
  return jobs->n_threads;
}

const FfmPmappingOptions *
ffm_pmapping_jobs_get_options (const FfmPmappingJobs *jobs)
{
  return &jobs->set->options;
}

static guint64
fnv1a (guint64 h, const void *data, gsize size)
{
  const guchar *p = data;

  for (gsize k = 0; k < size; k++)
    h = (h ^ p[k]) * G_GUINT64_CONSTANT (1099511628211);
  return h;
}

/* FNV-1a over what identifies every job: its Einsum's signature (all the
 * generator reads of the Einsum and the architecture) and its template's
 * canonical form. */
guint64
ffm_pmapping_jobs_get_fingerprint (const FfmPmappingJobs *jobs)
{
  guint64 h = G_GUINT64_CONSTANT (14695981039346656037);
  const FfmEinsumPmappings *last = NULL;

  for (guint i = 0; i < jobs->jobs->len; i++)
    {
      const Job *job = g_ptr_array_index (jobs->jobs, i);
      const FfmPmappingTemplate *t = g_ptr_array_index (job->pm->templates,
                                                        job->template_id);
      guint32 ids[2] = { job->pm->einsum, job->template_id };

      if (job->pm != last)
        {
          g_autofree char *signature
            = ffm_pmapping_einsum_signature (jobs->set->workload, jobs->set->arch,
                                             job->pm->einsum, job->pm->templates,
                                             ffm_bound_constraints_get_einsum (jobs->set->constraints,
                                                                               job->pm->einsum),
                                             NULL);
          if (signature != NULL)
            h = fnv1a (h, signature, strlen (signature));
          last = job->pm;
        }
      h = fnv1a (h, ids, sizeof ids);
      if (t->key != NULL)
        h = fnv1a (h, t->key, strlen (t->key));
    }
  return h;
}

const char *
ffm_pmapping_jobs_describe (const FfmPmappingJobs *jobs, guint job,
                            guint *template_id)
{
  const Job *j;

  g_return_val_if_fail (job < jobs->jobs->len, NULL);
  j = g_ptr_array_index (jobs->jobs, job);
  if (template_id != NULL)
    *template_id = j->template_id;
  return j->pm->e->name;
}

void
ffm_pmapping_jobs_run (FfmPmappingJobs *jobs, guint job)
{
  g_return_if_fail (job < jobs->jobs->len);
  run_template_job (g_ptr_array_index (jobs->jobs, job), jobs->set);
}

GBytes *
ffm_pmapping_jobs_run_to_bytes (FfmPmappingJobs *jobs, guint job,
                                double *seconds)
{
  Job *j;
  FfmTemplateResult *r;
  GBytes *bytes;

  g_return_val_if_fail (job < jobs->jobs->len, NULL);
  j = g_ptr_array_index (jobs->jobs, job);
  r = g_ptr_array_index (j->pm->results, j->template_id);
  if (!ffm_pmapping_options_is_cancelled (&jobs->set->options)
      && !generation_failed (jobs->set))
    {
      const FfmPmappingTemplate *t = g_ptr_array_index (j->pm->templates,
                                                        j->template_id);
      FfmTileWorkspace *ws = g_async_queue_pop (jobs->set->workspaces);
      FFM_TSAN_ACQUIRE (ws);
      ffm_pmapping_template_enumerate (jobs->set->workload, jobs->set->arch, t,
                                       &jobs->set->options, jobs->set->untracked_early,
                                       j->pm->joinable, ws, r);
      FFM_TSAN_RELEASE (ws);
      g_async_queue_push (jobs->set->workspaces, ws);
    }
  if (seconds != NULL)
    *seconds = r->seconds;
  bytes = ffm_template_result_to_bytes (r, ffm_arch_get_n_levels (jobs->set->arch));
  /* This process never merges: the rows live on in @bytes only. */
  g_ptr_array_index (j->pm->results, j->template_id)
    = ffm_template_result_new (ffm_arch_get_n_levels (jobs->set->arch));
  ffm_template_result_free (r);
  return bytes;
}

gboolean
ffm_pmapping_jobs_complete_from_bytes (FfmPmappingJobs *jobs, guint job,
                                       GBytes *bytes, GError **error)
{
  Job *j;
  FfmTemplateResult *r;

  g_return_val_if_fail (job < jobs->jobs->len, FALSE);
  j = g_ptr_array_index (jobs->jobs, job);
  r = g_ptr_array_index (j->pm->results, j->template_id);
  if (!ffm_template_result_from_bytes (r, ffm_arch_get_n_levels (jobs->set->arch),
                                       bytes, error))
    {
      g_prefix_error (error, "the result of template %u of Einsum %s: ",
                      j->template_id, j->pm->e->name);
      return FALSE;
    }
  check_template_result (jobs->set, j->pm, j->template_id, r);
  if (g_atomic_int_dec_and_test (&j->pm->pending))
    {
      merge_einsum (j->pm);
      report_progress (jobs->set, j->pm, TRUE, TRUE);
    }
  else
    report_progress (jobs->set, j->pm, TRUE, FALSE);
  return TRUE;
}

/* ---- Joinable parts (options.drop_unjoinable) ----
 *
 * Pmappings of Einsums that share a tensor must agree on its part
 * (ffm-joinable-parts-private.h) to be joined. The Einsums are generated
 * in two waves: first those with no tensor of their own (every tensor
 * shared with another Einsum: nothing else to place, so the fewest
 * pmappings; in a transformer the attention's QK, softmax and AV), then
 * the rest, each skipping the vectors whose part some finished Einsum
 * sharing the tensor lacks. GPT-3 6.7B's V projection, for one, makes
 * 924 parts of its output where AV reads 47 (batch 1, 2048 tokens, any
 * number of fused loops). When every Einsum is done, groups whose part
 * some other user of the tensor lacks are dropped, until none is. Only
 * pmappings that no join can use go, so the optimum is the same; the
 * Pareto groups that stay are those of a generation without parts, row
 * for row. */

/* The Einsums whose pmappings @rep's are (itself and those reusing it). */
static GPtrArray *
reuse_members (FfmPmappingSet *set, FfmEinsumPmappings *rep)
{
  GPtrArray *members = g_ptr_array_new ();

  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      if (pm == rep || pm->same_as == rep)
        g_ptr_array_add (members, pm);
    }
  return members;
}

static gboolean
tensor_is_shared (FfmPmappingSet *set, guint tensor)
{
  return (ffm_workload_get_tensor (set->workload, tensor)->classes
          & FFM_TENSOR_SHARED) != 0;
}

/* Whether @rep goes in the first wave: no Einsum it stands for has a
 * tensor of its own. */
static gboolean
first_wave (FfmPmappingSet *set, FfmEinsumPmappings *rep)
{
  g_autoptr(GPtrArray) members = reuse_members (set, rep);

  for (guint i = 0; i < members->len; i++)
    {
      FfmEinsumPmappings *m = g_ptr_array_index (members, i);
      for (guint a = 0; a < m->e->n_accesses; a++)
        if (!tensor_is_shared (set, m->e->accesses[a].tensor))
          return FALSE;
    }
  return TRUE;
}

/* The parts that @user's groups have for @tensor: their hashes (sorted,
 * unique), and what they are made of appended to @list (of FfmPart, one
 * per hash: tens of thousands of groups share a few hundred parts; may be
 * NULL). Before the copies, an Einsum reused for another has the other's
 * groups; after them its own, which the finished set's pass thins out
 * apart from the other's. */
static GArray *
user_parts (FfmPmappingSet *set, FfmEinsumPmappings *user, guint tensor, GArray *list)
{
  FfmEinsumPmappings *src = user->same_as != NULL && !user->copied ? user->same_as : user;
  int access = ffm_einsum_find_access (user->e, tensor);
  GArray *hashes = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GHashTable) listed = list != NULL
    ? g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL) : NULL;

  for (guint i = 0; access >= 0 && i < src->groups->len; i++)
    {
      const FfmCompatibility *c = &((Group *) g_ptr_array_index (src->groups, i))->pub.compat;
      for (guint t = 0; t < c->n_tensors; t++)
        if (c->tensors[t].access == (guint) access)
          {
            FfmPart part;
            guint64 h = ffm_joinable_part_of_compat (set->workload, src->e, c, t, &part);
            g_array_append_val (hashes, h);
            if (list != NULL && !g_hash_table_contains (listed, &h))
              {
                g_hash_table_add (listed, g_memdup2 (&h, sizeof h));
                g_array_append_val (list, part);
              }
          }
    }
  ffm_joinable_hashes_sort_unique (hashes);
  return hashes;
}

/* The parts @rep's generation may keep, from the Einsums @done: per
 * access, the union over the Einsums it stands for of what every done
 * user of their tensor has (the intersection over those users); no list
 * where one of them has an unshared tensor there or no done user. NULL
 * when no access has a list. */
static FfmJoinableParts *
joinable_parts_from_done (FfmPmappingSet *set, FfmEinsumPmappings *rep,
                          const gboolean *done)
{
  g_autoptr(GPtrArray) members = reuse_members (set, rep);
  g_autoptr(FfmJoinableParts) parts = ffm_joinable_parts_new ();

  for (guint a = 0; a < rep->e->n_accesses; a++)
    {
      g_autoptr(GArray) allowed = g_array_new (FALSE, FALSE, sizeof (FfmPart));
      gboolean any = FALSE;
      for (guint i = 0; i < members->len && !any; i++)
        {
          FfmEinsumPmappings *m = g_ptr_array_index (members, i);
          guint tensor = m->e->accesses[a].tensor;
          g_autoptr(GArray) common = NULL;      /* hashes */
          g_autoptr(GArray) list = NULL;        /* the first done user's parts */
          if (!tensor_is_shared (set, tensor))
            {
              any = TRUE;
              break;
            }
          for (guint u = 0; u < set->einsums->len; u++)
            {
              FfmEinsumPmappings *user = g_ptr_array_index (set->einsums, u);
              FfmEinsumPmappings *urep = user->same_as != NULL ? user->same_as : user;
              if (user == m || !done[urep->einsum]
                  || ffm_einsum_find_access (user->e, tensor) < 0)
                continue;
              if (common == NULL)
                {
                  list = g_array_new (FALSE, FALSE, sizeof (FfmPart));
                  common = user_parts (set, user, tensor, list);
                }
              else
                {
                  g_autoptr(GArray) theirs = user_parts (set, user, tensor, NULL);
                  guint n = 0;
                  for (guint k = 0; k < common->len; k++)
                    if (ffm_joinable_hashes_have (theirs, g_array_index (common, guint64, k)))
                      g_array_index (common, guint64, n++) = g_array_index (common, guint64, k);
                  g_array_set_size (common, n);
                }
            }
          if (common == NULL)
            {
              any = TRUE;
              break;
            }
          for (guint k = 0; k < list->len; k++)
            {
              FfmPart p = g_array_index (list, FfmPart, k);
              if (ffm_joinable_hashes_have (common, ffm_joinable_part_hash (p.level, p.persistent,
                                                              p.loops, p.n_loops)))
                g_array_append_val (allowed, p);
            }
        }
      if (!any)
        ffm_joinable_parts_restrict (parts, a, allowed);
    }
  if (ffm_joinable_parts_count_restricted (parts) == 0)
    return NULL;
  return g_steal_pointer (&parts);
}

/* With options.drop_unjoinable (and every Einsum): the jobs of the first
 * wave first, each wave in the generator's order (Einsum by Einsum), and
 * @jobs->n_first the first wave's; nothing changes when a wave would be
 * empty. */
static void
order_in_waves (FfmPmappingJobs *jobs)
{
  FfmPmappingSet *set = jobs->set;
  guint n_einsums = ffm_workload_get_n_einsums (set->workload);
  g_autoptr(GPtrArray) ordered = NULL;
  guint n_first = 0;

  jobs->wave1 = g_new0 (gboolean, MAX (n_einsums, 1));
  if (!set->options.drop_unjoinable || set->options.einsum >= 0)
    return;
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      if (pm->same_as == NULL)
        jobs->wave1[pm->einsum] = first_wave (set, pm);
    }
  for (guint i = 0; i < jobs->jobs->len; i++)
    n_first += jobs->wave1[((Job *) g_ptr_array_index (jobs->jobs, i))->pm->einsum] ? 1 : 0;
  if (n_first == 0 || n_first == jobs->jobs->len)
    return;
  ordered = g_ptr_array_new_full (jobs->jobs->len, g_free);
  for (int wave = 1; wave >= 0; wave--)
    for (guint i = 0; i < jobs->jobs->len; i++)
      {
        Job *job = g_ptr_array_index (jobs->jobs, i);
        if (jobs->wave1[job->pm->einsum] == (wave == 1))
          g_ptr_array_add (ordered, job);
      }
  /* The jobs move to @ordered: the old array must not free them. */
  g_ptr_array_set_free_func (jobs->jobs, NULL);
  g_ptr_array_unref (jobs->jobs);
  jobs->jobs = g_steal_pointer (&ordered);
  jobs->n_first = n_first;
}

guint
ffm_pmapping_jobs_get_n_first_wave (const FfmPmappingJobs *jobs)
{
  return jobs->n_first;
}

/* Gives @pm the parts @parts (transfer full), charged to the budget.
 * FALSE (the generation failed) when they do not fit. */
static gboolean
set_joinable (FfmPmappingSet *set, FfmEinsumPmappings *pm, FfmJoinableParts *parts)
{
  gsize bytes = ffm_joinable_parts_get_bytes (parts);

  ffm_memory_budget_release (set->budget, pm->joinable_charged);
  pm->joinable_charged = 0;
  ffm_joinable_parts_free (pm->joinable);
  pm->joinable = parts;
  if (ffm_memory_budget_reserve (set->budget, bytes))
    {
      pm->joinable_charged = bytes;
      return TRUE;
    }
  {
    g_autofree char *what = g_strdup_printf ("Einsum %s: the parts of its tensors "
                                             "its users have", pm->e->name);
    fail_out_of_memory (set, what, bytes);
  }
  return FALSE;
}

#define PARTS_MAGIC 0x50464d46u   /* "FFMP" */
#define PARTS_VERSION 1u

typedef struct {
  guint32 magic;
  guint32 version;
  guint32 part_size;        /* sizeof (FfmPart) of the writer */
  guint32 n_lists;
} PartsHeader;

typedef struct {
  guint32 einsum;
  guint32 access;
  guint32 n_parts;
  guint32 reserved;
} PartsList;

GBytes *
ffm_pmapping_jobs_begin_second_wave (FfmPmappingJobs *jobs)
{
  FfmPmappingSet *set = jobs->set;
  GByteArray *out = g_byte_array_new ();
  PartsHeader h = { PARTS_MAGIC, PARTS_VERSION, sizeof (FfmPart), 0 };

  g_return_val_if_fail (!jobs->second_begun, NULL);
  jobs->second_begun = TRUE;
  g_byte_array_append (out, (const guint8 *) &h, sizeof h);
  if (jobs->n_first == 0 || ffm_pmapping_options_is_cancelled (&set->options)
      || generation_failed (set))
    return g_byte_array_free_to_bytes (out);  /* the second wave skips */
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      FfmJoinableParts *parts;
      if (pm->same_as != NULL || jobs->wave1[pm->einsum] || pm->templates->len == 0)
        continue;
      parts = joinable_parts_from_done (set, pm, jobs->wave1);
      if (parts == NULL)
        continue;
      if (!set_joinable (set, pm, parts))
        break;
      g_debug ("Einsum %s: generated after the Einsums without a tensor of their "
               "own, keeping only their parts of %u of its tensors", pm->e->name,
               ffm_joinable_parts_count_restricted (pm->joinable));
      for (guint a = 0; a < pm->e->n_accesses; a++)
        {
          const GArray *list = ffm_joinable_parts_get_list (pm->joinable, a);
          PartsList l = { pm->einsum, a, 0, 0 };
          if (list == NULL)
            continue;
          l.n_parts = list->len;
          g_byte_array_append (out, (const guint8 *) &l, sizeof l);
          g_byte_array_append (out, (const guint8 *) list->data,
                               (guint) (sizeof (FfmPart) * list->len));
          h.n_lists++;
        }
    }
  memcpy (out->data, &h, sizeof h);
  return g_byte_array_free_to_bytes (out);
}

gboolean
ffm_pmapping_jobs_set_second_wave (FfmPmappingJobs *jobs, GBytes *bytes, GError **error)
{
  FfmPmappingSet *set = jobs->set;
  gsize size, at = sizeof (PartsHeader);
  const guint8 *data = g_bytes_get_data (bytes, &size);
  PartsHeader h;
  guint n_einsums = ffm_workload_get_n_einsums (set->workload);
  g_autofree FfmJoinableParts **parts = g_new0 (FfmJoinableParts *, MAX (n_einsums, 1));
  gboolean ok = TRUE;
  const char *why = "bytes left over";
  gsize list_at = sizeof (PartsHeader);

  g_return_val_if_fail (!jobs->second_begun, FALSE);
  jobs->second_begun = TRUE;
  if (size < sizeof h)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "the second wave's parts: %zu bytes, shorter than their header", size);
      return FALSE;
    }
  memcpy (&h, data, sizeof h);
  if (h.magic != PARTS_MAGIC)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "the second wave's parts: %zu bytes that do not start as parts do",
                   size);
      return FALSE;
    }
  if (h.version != PARTS_VERSION || h.part_size != sizeof (FfmPart))
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "the second wave's parts come from another ffm build (format "
                   "%u, parts of %u bytes; this one reads %u, %zu bytes)",
                   h.version, h.part_size, PARTS_VERSION, sizeof (FfmPart));
      return FALSE;
    }
  for (guint k = 0; k < h.n_lists && ok; k++)
    {
      PartsList l;
      FfmEinsumPmappings *pm;
      g_autoptr(GArray) list = NULL;
      list_at = at;
      if (size - at < sizeof l)
        {
          why = "cut short";
          ok = FALSE;
          break;
        }
      memcpy (&l, data + at, sizeof l);
      at += sizeof l;
      pm = l.einsum < n_einsums ? set->by_einsum[l.einsum] : NULL;
      if (pm == NULL || pm->same_as != NULL || jobs->wave1[l.einsum]
          || l.access >= pm->e->n_accesses || l.access >= FFM_MAX_EINSUM_TENSORS)
        {
          why = "names no access of an Einsum of the second wave";
          ok = FALSE;
          break;
        }
      if ((size - at) / sizeof (FfmPart) < l.n_parts)
        {
          why = "cut short";
          ok = FALSE;
          break;
        }
      list = g_array_sized_new (FALSE, FALSE, sizeof (FfmPart), l.n_parts);
      g_array_append_vals (list, data + at, l.n_parts);
      at += sizeof (FfmPart) * l.n_parts;
      for (guint i = 0; i < list->len; i++)
        if (g_array_index (list, FfmPart, i).n_loops > FFM_COMPAT_MAX_LOOPS)
          {
            why = "has a part of too many loops";
            ok = FALSE;
          }
      if (!ok)
        break;
      if (parts[l.einsum] == NULL)
        parts[l.einsum] = ffm_joinable_parts_new ();
      ffm_joinable_parts_restrict (parts[l.einsum], l.access, list);
    }
  if (ok && at != size)
    {
      list_at = at;
      ok = FALSE;
    }
  for (guint e = 0; e < n_einsums; e++)
    {
      if (parts[e] == NULL)
        continue;
      if (ok)
        ok = set_joinable (set, set->by_einsum[e], g_steal_pointer (&parts[e]));
      else
        ffm_joinable_parts_free (g_steal_pointer (&parts[e]));
    }
  if (ok)
    g_debug ("the second wave's parts: %u lists in %zu bytes", h.n_lists, size);
  if (!ok && set->failure == NULL)
    g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                 "the second wave's parts are not those of this workload's jobs "
                 "(%zu bytes: the list at byte %zu %s)", size,
                 list_at, why);
  else if (!ok)
    g_propagate_error (error, g_error_copy (set->failure));
  return ok;
}

/* Phase 2 in two waves (above), on the thread pool. */
static void
run_in_waves (FfmPmappingJobs *jobs)
{
  g_autoptr(GPtrArray) first = g_ptr_array_new ();
  g_autoptr(GPtrArray) second = g_ptr_array_new ();
  g_autoptr(GBytes) parts = NULL;

  for (guint i = 0; i < jobs->jobs->len; i++)
    g_ptr_array_add (i < jobs->n_first ? first : second, g_ptr_array_index (jobs->jobs, i));
  run_pool (run_template_job, jobs->set, jobs->n_threads, first);
  if (jobs->n_first > 0)
    parts = ffm_pmapping_jobs_begin_second_wave (jobs);
  run_pool (run_template_job, jobs->set, jobs->n_threads, second);
}

/* Drops the groups whose part of a shared tensor some other user of the
 * tensor lacks, until there is none (every Einsum generated). */
static void
drop_unjoinable_groups (FfmPmappingSet *set)
{
  gboolean changed = TRUE;

  while (changed)
    {
      changed = FALSE;
      for (guint i = 0; i < set->einsums->len; i++)
        {
          FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
          g_autofree gboolean *dead = g_new0 (gboolean, MAX (pm->groups->len, 1));
          guint n = 0;
          for (guint a = 0; a < pm->e->n_accesses; a++)
            {
              guint tensor = pm->e->accesses[a].tensor;
              if (!tensor_is_shared (set, tensor))
                continue;
              for (guint u = 0; u < set->einsums->len; u++)
                {
                  FfmEinsumPmappings *user = g_ptr_array_index (set->einsums, u);
                  g_autoptr(GArray) theirs = NULL;
                  if (user == pm || ffm_einsum_find_access (user->e, tensor) < 0)
                    continue;
                  theirs = user_parts (set, user, tensor, NULL);
                  for (guint k = 0; k < pm->groups->len; k++)
                    {
                      const FfmCompatibility *c = &((Group *) g_ptr_array_index (pm->groups, k))->pub.compat;
                      for (guint t = 0; t < c->n_tensors && !dead[k]; t++)
                        if (c->tensors[t].access == a
                            && !ffm_joinable_hashes_have (theirs, ffm_joinable_part_of_compat (set->workload,
                                                                                pm->e, c, t, NULL)))
                          dead[k] = TRUE;
                    }
                }
            }
          for (guint k = 0; k < pm->groups->len; k++)
            {
              Group *g = g_ptr_array_index (pm->groups, k);
              if (dead[k])
                {
                  /* Its rows were charged with the merged set's
                   * (merge_einsum()); the tile pool keeps theirs. */
                  gsize bytes = MIN (group_bytes (g), pm->charged);
                  ffm_memory_budget_release (pm->budget, bytes);
                  pm->charged -= bytes;
                  group_free (g);
                }
              else
                g_ptr_array_index (pm->groups, n++) = g;
            }
          if (n < pm->groups->len)
            {
              pm->n_groups_unjoinable += pm->groups->len - n;
              g_ptr_array_set_size (pm->groups, n);
              changed = TRUE;
            }
        }
    }
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      g_debug ("Einsum %s: %" G_GUINT64_FORMAT " vectors of unjoinable parts skipped, "
               "%u groups dropped, %u kept", pm->e->name, pm->n_unjoinable,
               pm->n_groups_unjoinable, pm->groups->len);
    }
}

/* Phases 3 (the Einsums reused) and 4, once every job ran. */
static FfmPmappingSet *
jobs_finish (FfmPmappingJobs *jobs, GError **error)
{
  FfmPmappingSet *set = jobs->set;
  guint n_levels = ffm_arch_get_n_levels (set->arch);

  g_clear_pointer (&set->workspaces, g_async_queue_unref);
  if (set->failure != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&set->failure));
      return NULL;
    }
  if (ffm_pmapping_options_is_cancelled (&set->options))
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_CANCELLED,
                   "pmapping generation cancelled after %.1f s",
                   (double) (g_get_monotonic_time () - jobs->start) / G_USEC_PER_SEC);
      return NULL;
    }
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      if (pm->same_as == NULL)
        continue;
      copy_einsum (pm, pm->same_as);
      if (!charge_copy (set, pm, pm->same_as))
        {
          g_propagate_error (error, g_steal_pointer (&set->failure));
          return NULL;
        }
    }
  if (set->options.drop_unjoinable && set->options.einsum < 0)
    drop_unjoinable_groups (set);
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      FfmEinsumPmappings *src = pm->same_as != NULL ? pm->same_as : pm;
      if (pm->groups->len == 0 && (pm->n_groups_unjoinable > 0 || src->n_unjoinable > 0))
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                       "Einsum %s: none of its pmappings can be fused with those of "
                       "the Einsums that share its tensors (they never agree on a "
                       "shared tensor's memory and fused loops)%s; nothing to join",
                       pm->e->name, set->constraints != NULL
                       ? ": the mapping constraints may be what keeps them apart" : "");
          return NULL;
        }
      if (pm->groups->len == 0 && pm->stats.n_templates_cut > 0)
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                       "Einsum %s: no pmapping found in what the limits left "
                       "(%u of its templates cut by --max-template-seconds or "
                       "--max-templates); raise or drop them", pm->e->name,
                       pm->stats.n_templates_cut);
          return NULL;
        }
      if (pm->groups->len == 0)
        {
          set_no_pmapping_error (set, pm, error);
          if (error != NULL && *error != NULL
              && ffm_bound_constraints_restrict_einsum (set->constraints, pm->einsum))
            {
              g_autofree char *list = ffm_bound_constraints_describe_einsum (set->constraints,
                                                                             pm->einsum);
              g_prefix_error (error, "under the mapping constraints %s: ", list);
              (*error)->domain = FFM_CONSTRAINTS_ERROR;
              (*error)->code = FFM_CONSTRAINTS_ERROR_UNSATISFIABLE;
            }
          return NULL;
        }
    }

  /* Phase 4: tracked memories. */
  for (guint l = 0; l < n_levels; l++)
    if (memory_is_tracked (set, l))
      g_array_append_val (set->tracked, l);
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      drop_untracked (set, pm);
      compact_tiles (pm);
      g_ptr_array_unref (pm->results);
      pm->results = NULL;
      pm->stats.n_groups = pm->groups->len;
      for (guint k = 0; k < pm->groups->len; k++)
        pm->stats.n_rows += ((Group *) g_ptr_array_index (pm->groups, k))->refs->len;
    }
  set->seconds = (double) (g_get_monotonic_time () - jobs->start) / G_USEC_PER_SEC;
  jobs->set = NULL;
  return set;
}

FfmPmappingSet *
ffm_pmappings_generate (FfmWorkload *workload, FfmArch *arch,
                        const FfmPmappingOptions *options, GError **error)
{
  g_autoptr(FfmPmappingJobs) jobs = ffm_pmapping_jobs_new (workload, arch,
                                                           options, error);

  if (jobs == NULL)
    return NULL;
  /* Phase 2: tiles; phase 3: merges (by each Einsum's last template),
   * here or, with a job runner, wherever it sends the jobs. */
  if (job_runner != NULL && jobs->jobs->len > 0)
    {
      if (!job_runner (jobs, job_runner_data, error))
        return NULL;
    }
  else
    run_in_waves (jobs);
  return jobs_finish (jobs, error);
}

void
ffm_pmapping_set_free (FfmPmappingSet *set)
{
  if (set == NULL)
    return;
  g_clear_pointer (&set->einsums, g_ptr_array_unref);
  g_free (set->by_einsum);
  g_clear_error (&set->failure);
  g_mutex_clear (&set->failure_lock);
  if (set->tracked != NULL)
    g_array_free (set->tracked, TRUE);
  g_free (set->untracked_early);
  g_clear_pointer (&set->workspaces, g_async_queue_unref);
  /* Last: the Einsums and workspaces give their bytes back to it. */
  ffm_memory_budget_free (set->budget);
  ffm_bound_constraints_free (set->constraints);
  ffm_workload_unref (set->workload);
  ffm_arch_unref (set->arch);
  g_free (set);
}

/* ---- Reading ---- */

guint
ffm_pmapping_set_get_n_templates_cut (const FfmPmappingSet *set)
{
  guint n = 0;

  for (guint i = 0; i < set->einsums->len; i++)
    n += ((const FfmEinsumPmappings *) g_ptr_array_index (set->einsums, i))->stats.n_templates_cut;
  return n;
}

guint
ffm_pmapping_set_get_n_unjoinable (const FfmPmappingSet *set, guint64 *vectors)
{
  guint groups = 0;
  guint64 n = 0;

  g_return_val_if_fail (set != NULL, 0);
  for (guint i = 0; i < set->einsums->len; i++)
    {
      const FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      groups += pm->n_groups_unjoinable;
      n += pm->n_unjoinable;
    }
  if (vectors != NULL)
    *vectors = n;
  return groups;
}

guint64
ffm_pmapping_set_get_memory_held (const FfmPmappingSet *set)
{
  return ffm_memory_budget_get_used (set->budget);
}

guint64
ffm_pmapping_set_get_memory_limit (const FfmPmappingSet *set)
{
  return ffm_memory_budget_get_limit (set->budget);
}

FfmWorkload *
ffm_pmapping_set_get_workload (const FfmPmappingSet *set)
{
  return set->workload;
}

FfmArch *
ffm_pmapping_set_get_arch (const FfmPmappingSet *set)
{
  return set->arch;
}

const FfmPmappingOptions *
ffm_pmapping_set_get_options (const FfmPmappingSet *set)
{
  return &set->options;
}

guint
ffm_pmapping_set_get_n_einsums (const FfmPmappingSet *set)
{
  return set->einsums->len;
}

const FfmEinsumPmappings *
ffm_pmapping_set_get_einsum (const FfmPmappingSet *set, guint index)
{
  g_return_val_if_fail (index < set->einsums->len, NULL);
  return g_ptr_array_index (set->einsums, index);
}

const FfmEinsumPmappings *
ffm_pmapping_set_lookup_einsum (const FfmPmappingSet *set, guint einsum)
{
  if (einsum >= ffm_workload_get_n_einsums (set->workload))
    return NULL;
  return set->by_einsum[einsum];
}

const guint *
ffm_pmapping_set_get_tracked_levels (const FfmPmappingSet *set, guint *n_levels)
{
  if (n_levels != NULL)
    *n_levels = set->tracked->len;
  return (const guint *) set->tracked->data;
}

guint
ffm_pmapping_set_count_untracked_early (const FfmPmappingSet *set)
{
  guint n = 0;

  g_return_val_if_fail (set != NULL, 0);
  for (guint l = 0; set->untracked_early != NULL && l < ffm_arch_get_n_levels (set->arch); l++)
    n += set->untracked_early[l]
      && !isinf (ffm_arch_get_level (set->arch, l)->u.memory.size) ? 1 : 0;
  return n;
}

guint
ffm_pmapping_set_count_choices_bounded (const FfmPmappingSet *set)
{
  guint n = 0;

  g_return_val_if_fail (set != NULL, 0);
  for (guint i = 0; i < set->einsums->len; i++)
    n += ((const FfmEinsumPmappings *) g_ptr_array_index (set->einsums, i))->n_choices_bounded;
  return n;
}

guint
ffm_pmapping_set_count_chains_last (const FfmPmappingSet *set)
{
  guint n = 0;

  g_return_val_if_fail (set != NULL, 0);
  for (guint i = 0; i < set->einsums->len; i++)
    n += ((const FfmEinsumPmappings *) g_ptr_array_index (set->einsums, i))->n_chains_last;
  return n;
}

guint64
ffm_pmapping_set_count_bucket_cuts (const FfmPmappingSet *set)
{
  guint64 n = 0;

  g_return_val_if_fail (set != NULL, 0);
  for (guint i = 0; i < set->einsums->len; i++)
    n += ((const FfmEinsumPmappings *) g_ptr_array_index (set->einsums, i))->n_bucket_cuts;
  return n;
}

const FfmBoundConstraints *
ffm_pmapping_set_get_constraints (const FfmPmappingSet *set)
{
  return set->constraints;
}

double
ffm_pmapping_set_get_seconds (const FfmPmappingSet *set)
{
  return set->seconds;
}

guint
ffm_einsum_pmappings_get_einsum (const FfmEinsumPmappings *pm)
{
  return pm->einsum;
}

const FfmPmappingStats *
ffm_einsum_pmappings_get_stats (const FfmEinsumPmappings *pm)
{
  return &pm->stats;
}

guint
ffm_einsum_pmappings_get_n_groups (const FfmEinsumPmappings *pm)
{
  return pm->groups->len;
}

const FfmPmappingGroup *
ffm_einsum_pmappings_get_group (const FfmEinsumPmappings *pm, guint index)
{
  g_return_val_if_fail (index < pm->groups->len, NULL);
  return &((Group *) g_ptr_array_index (pm->groups, index))->pub;
}

guint
ffm_einsum_pmappings_get_n_templates (const FfmEinsumPmappings *pm)
{
  return pm->templates->len;
}

const GPtrArray *
ffm_einsum_pmappings_get_template (const FfmEinsumPmappings *pm, guint id)
{
  g_return_val_if_fail (id < pm->templates->len, NULL);
  return ((FfmPmappingTemplate *) g_ptr_array_index (pm->templates, id))->nodes;
}

const FfmPmappingModel *
ffm_einsum_pmappings_get_model (const FfmEinsumPmappings *pm, guint id)
{
  g_return_val_if_fail (id < pm->templates->len, NULL);
  return ((FfmPmappingTemplate *) g_ptr_array_index (pm->templates, id))->model;
}

const guint64 *
ffm_einsum_pmappings_get_tiles (const FfmEinsumPmappings *pm,
                                const FfmPmappingRef *ref)
{
  g_return_val_if_fail (ref != NULL && ref->tiles < pm->tile_pool->len, NULL);
  return (const guint64 *) pm->tile_pool->data + ref->tiles;
}

double
ffm_einsum_pmappings_get_capacity (const FfmEinsumPmappings *pm, guint level)
{
  return pm->capacity[level];
}

GPtrArray *
ffm_einsum_pmappings_rebuild (const FfmEinsumPmappings *pm,
                              const FfmPmappingRef *ref, gboolean drop_trivial)
{
  const FfmPmappingTemplate *t;
  const guint64 *tiles;
  GPtrArray *out;
  guint n_loops;

  g_return_val_if_fail (pm != NULL && ref != NULL, NULL);
  g_return_val_if_fail (ref->template_id < pm->templates->len, NULL);
  t = g_ptr_array_index (pm->templates, ref->template_id);
  n_loops = ffm_pmapping_model_get_n_loops (t->model);
  /* A template without loops has no tiles (the pool may be empty). */
  tiles = n_loops > 0 ? ffm_einsum_pmappings_get_tiles (pm, ref) : NULL;
  out = ffm_mapping_node_list_new ();
  for (guint i = 0, j = 0; i < t->nodes->len; i++)
    {
      const FfmMappingNode *node = g_ptr_array_index (t->nodes, i);
      FfmMappingNode *copy;
      if (node->kind == FFM_NODE_TEMPORAL || node->kind == FFM_NODE_SPATIAL)
        {
          g_assert (j < n_loops
                    && ffm_pmapping_model_get_loop (t->model, j)->node == i);
          copy = ffm_mapping_node_copy (node);
          copy->tile = tiles[j];
          j++;
          g_ptr_array_add (out, copy);
          continue;
        }
      g_ptr_array_add (out, ffm_mapping_node_copy (node));
    }
  if (drop_trivial)
    {
      /* A loop of one iteration: its tile equals the enclosing tile (the
       * previous kept loop's over the variable, or the bound). */
      GHashTable *last_tile = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint v = 0; v < pm->e->n_rank_vars; v++)
        g_hash_table_insert (last_tile, pm->e->rank_var_names[v],
                             (gpointer) &pm->e->rank_var_bounds[v]);
      for (guint i = 0; i < out->len; )
        {
          FfmMappingNode *node = g_ptr_array_index (out, i);
          if (node->kind == FFM_NODE_TEMPORAL || node->kind == FFM_NODE_SPATIAL)
            {
              gpointer prev;
              gboolean trivial = FALSE;
              if (g_hash_table_lookup_extended (last_tile, node->rank_var, NULL,
                                                &prev))
                trivial = *(guint64 *) prev == node->tile;
              if (trivial)
                {
                  g_ptr_array_remove_index (out, i);
                  continue;
                }
              g_hash_table_insert (last_tile, node->rank_var, &node->tile);
            }
          i++;
        }
      g_hash_table_destroy (last_tile);
    }
  return out;
}
