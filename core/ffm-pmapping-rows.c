/* ffm-pmapping-rows.c: a complete tile vector described as a row of its
 * compatibility group, and one template's groups of rows
 * (FfmTemplateResult), Pareto-pruned as they grow.
 *
 * Describing a row (ffm_pmapping_describe()): the fused loops are the loops
 * above the deepest backing storage node of a shared tensor; a shared
 * tensor's compatibility loops are those above its own backing node; a
 * reservation's lifetime depth is the number of fused loops of more than
 * one iteration above it (the model's n_loops_above counts the loops above
 * it in its tensor's view, which for generated paths, whose storage nodes
 * go from outer to inner memories with spatial loops between the memories
 * they separate, are the first n_loops_above loops of the path). */
#include "ffm-pmapping-private.h"
#include "ffm-tile-chain-private.h"
#include "ffm-cost-private.h"
#include <ffm/ffm-pareto.h>

#include <math.h>
#include <string.h>

#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))

int
ffm_pmapping_columns_find (const FfmPmappingColumn *columns, guint n_columns,
                           const FfmPmappingColumn *c)
{
  for (guint j = 0; j < n_columns; j++)
    if (columns[j].kind == c->kind
        && (c->kind != FFM_PMAPPING_COLUMN_RESERVATION
            || (columns[j].level == c->level && columns[j].depth == c->depth)))
      return (int) j;
  return -1;
}

int
ffm_pmapping_group_find_column (const FfmPmappingGroup *g, FfmPmappingColumnKind kind,
                                guint level, int depth)
{
  const FfmPmappingColumn c = { kind, level, depth };

  g_return_val_if_fail (g != NULL, -1);
  return ffm_pmapping_columns_find (g->columns, g->n_columns, &c);
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
        && isfinite (ffm_pmapping_model_get_level_size (model, path[p])))
      info->memories[info->n_memories++] = path[p];
  return TRUE;
}

gboolean
ffm_describe_compat (const FfmDescribeInfo *info, const FfmPmappingModel *model,
                     const guint64 *tiles, FfmCompatibility *compat, guint *nt_prefix)
{
  const FfmEinsum *e = info->einsum;
  guint n_buffets, F = 0;

  memset (compat, 0, sizeof *compat);
  compat->einsum = ffm_pmapping_model_get_einsum (model);
  nt_prefix[0] = 0;
  for (guint j = 0; j < info->n_loops; j++)
    {
      const FfmLoopInfo *l;
      guint64 enclosing, count;

      /* (only the fused loops' tiles are read: @tiles may hold no others) */
      if (j >= info->n_fused)
        {
          nt_prefix[j + 1] = nt_prefix[j];
          continue;
        }
      l = ffm_pmapping_model_get_loop (model, j);
      enclosing = l->enclosing >= 0 ? tiles[l->enclosing] : e->rank_var_bounds[l->rank_var];
      count = ffm_chain_iterations (enclosing, tiles[j]);
      nt_prefix[j + 1] = nt_prefix[j] + (count > 1 ? 1 : 0);
      if (count <= 1)
        continue;
      if (F == FFM_COMPAT_MAX_LOOPS)
        return FALSE;
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

  /* the depths where a reservation begins */
  n_buffets = ffm_pmapping_model_get_n_buffets (model);
  for (guint b = 0; b < n_buffets; b++)
    {
      const FfmBuffetInfo *bi = ffm_pmapping_model_get_buffet (model, b);
      if (!bi->persistent && bi->n_loops_above >= 0)
        compat->stops |= 1u << nt_prefix[MIN ((guint) bi->n_loops_above, info->n_fused)];
    }
  return TRUE;
}

guint
ffm_describe_row (const FfmDescribeInfo *info, const FfmPmappingModel *model,
                  const guint64 *tiles, const FfmPmappingCost *cost,
                  FfmCompatibility *compat, FfmPmappingColumn *columns,
                  double *values)
{
  guint nt_prefix[FFM_COST_MAX_LOOPS + 1];
  int depth_of[64];
  double reserved[G_N_ELEMENTS (info->memories)][FFM_COMPAT_MAX_LOOPS + 2];
  guint n_columns = 0, n_buffets, F;

  if (cost->status != FFM_COST_VALID)
    return 0;
  n_buffets = ffm_pmapping_model_get_n_buffets (model);
  g_return_val_if_fail (n_buffets <= G_N_ELEMENTS (depth_of), 0);
  if (!ffm_describe_compat (info, model, tiles, compat, nt_prefix))
    return 0;
  F = compat->n_loops;
  /* Each memory's reservation at each depth d (-1..F): the occupancy of
   * its buffets alive at d, summed in buffet order (one pass: this runs
   * at every leaf of the tile search). */
  memset (reserved, 0, sizeof reserved[0] * info->n_memories);
  for (guint b = 0; b < n_buffets; b++)
    {
      const FfmBuffetInfo *bi = ffm_pmapping_model_get_buffet (model, b);
      depth_of[b] = bi->persistent || bi->n_loops_above < 0 ? -1
        : (int) nt_prefix[MIN ((guint) bi->n_loops_above, info->n_fused)];
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

void
ffm_template_group_free (FfmTemplateGroup *g, FfmMemoryBudget *budget)
{
  g_array_free (g->columns, TRUE);
  ffm_budget_buffer_clear (&g->values, budget);
  ffm_budget_buffer_clear (&g->tiles, budget);
  g_free (g);
}

void
ffm_template_result_clear_groups (FfmTemplateResult *r)
{
  g_hash_table_remove_all (r->index);
  for (guint i = 0; i < r->groups->len; i++)
    ffm_template_group_free (g_ptr_array_index (r->groups, i), r->budget);
  g_ptr_array_set_size (r->groups, 0);
  ffm_memory_budget_release (r->budget, r->charged);
  r->charged = 0;
}

void
ffm_template_result_free (FfmTemplateResult *r)
{
  if (r == NULL)
    return;
  ffm_template_result_clear_groups (r);
  g_hash_table_destroy (r->index);
  g_ptr_array_free (r->groups, TRUE);
  g_free (r->rejected);
  g_free (r->min_excess);
  g_free (r->min_need);
  g_free (r);
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

void
ffm_template_group_prune (FfmTemplateGroup *g, guint n_loops)
{
  guint *kept = g_new (guint, MAX (g->n_rows, 1));
  /* The rows up to the last pruning are a Pareto set already. */
  guint n = ffm_pmapping_prune_rows_front (TEMPLATE_GROUP_VALUES (g), g->n_rows,
                                           g->n_columns, g->pruned_rows, g->objectives,
                                           kept);
  guint64 *tiles = TEMPLATE_GROUP_TILES (g);

  for (guint i = 0; i < n && n_loops > 0; i++)
    if (kept[i] != i)
      memmove (tiles + (gsize) i * n_loops, tiles + (gsize) kept[i] * n_loops,
               sizeof (guint64) * n_loops);
  g->n_rows = n;
  g->pruned_rows = n;
  g_free (kept);
}

/* Cuts @buffer to @bytes (no more than it holds), giving the rest back to
 * @budget. A failed reallocation leaves it as it was, still charged. */
static void
budget_buffer_cut (FfmBudgetBuffer *buffer, FfmMemoryBudget *budget, gsize bytes)
{
  gpointer data;

  if (bytes >= buffer->capacity)
    return;
  if (bytes == 0)
    {
      ffm_budget_buffer_clear (buffer, budget);
      return;
    }
  data = g_try_realloc (buffer->data, bytes);
  if (data == NULL)
    return;
  ffm_memory_budget_release (budget, buffer->capacity - bytes);
  buffer->data = data;
  buffer->capacity = bytes;
}

void
ffm_template_result_prune (FfmTemplateResult *r)
{
  for (guint i = 0; i < r->groups->len; i++)
    {
      FfmTemplateGroup *g = g_ptr_array_index (r->groups, i);
      if (g->n_rows != g->pruned_rows)
        ffm_template_group_prune (g, r->n_loops);
      /* The buffers grew to twice the Pareto rows and more while the
       * search ran; until the merge the result holds only the rows kept
       * (kept, that room was 745 MB, uncounted, at the peak of Llama-3 8B
       * decode's first four Einsums on maeri-like, whose budget peaked at
       * 347 MB). */
      budget_buffer_cut (&g->values, r->budget,
                         sizeof (double) * (gsize) g->n_rows * g->n_columns);
      budget_buffer_cut (&g->tiles, r->budget,
                         sizeof (guint64) * (gsize) g->n_rows * r->n_loops);
    }
}
