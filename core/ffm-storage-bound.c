/* ffm-storage-bound.c: lower bounds of a storage choice's pmappings
 * (ffm-storage-bound.h). */
#include "ffm-storage-bound.h"

#include <math.h>
#include <string.h>

#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))

struct _FfmStorageBound {
  const FfmWorkload *workload;
  const FfmArch *arch;
  guint einsum;
  guint compute;
  guint *path;
  guint n_path;
  guint64 instances;        /* compute instances: every fanout on the path */
  double *spread;           /* [n_path]: instances of the fanouts below */
  gboolean have_ref;        /* ref_* set (by the first choice evaluated) */
  guint64 ref_chain[FFM_MAX_EINSUM_TENSORS]; /* per access: path positions */
  double ref_energy;
  double latency;           /* valid once have_ref */
  GHashTable *terms;        /* (chain << 3 | access) -> energy of the path
                               with that chain, the others the reference's */
  const char *unsound;      /* why the bound path bounds nothing, or NULL */
};

FfmStorageBound *
ffm_storage_bound_new (const FfmWorkload *workload, const FfmArch *arch,
                       guint einsum, guint compute)
{
  FfmStorageBound *sb = g_new0 (FfmStorageBound, 1);

  sb->workload = workload;
  sb->arch = arch;
  sb->einsum = einsum;
  sb->compute = compute;
  sb->path = ffm_arch_get_compute_path (arch, compute, &sb->n_path);
  sb->instances = 1;
  sb->spread = g_new (double, MAX (sb->n_path, 1));
  for (guint p = sb->n_path; p-- > 0; )
    {
      guint64 count = MAX (ffm_arch_get_fanout_count (arch, sb->path[p]), 1);
      sb->spread[p] = (double) sb->instances;
      /* saturated, the latency bound only weakens */
      sb->instances = sb->instances > G_MAXUINT64 / count ? G_MAXUINT64
        : sb->instances * count;
    }
  sb->terms = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  /* Timeloop's counting can make a pmapping cheaper than the bound path:
   * an operand kept by the compute unit across loops (when a fanout lies
   * on the way, ffm-cost-pmapping.c), a cluster's instances sharing
   * accesses. Then no bound. */
  for (guint p = 0; p < sb->n_path; p++)
    {
      const FfmLevel *l = ffm_arch_get_level (arch, sb->path[p]);
      if (l->kind == FFM_LEVEL_MEMORY && l->u.memory.cluster_size != 1)
        sb->unsound = "a memory's instances share accesses in clusters";
      if (l->kind == FFM_LEVEL_FANOUT && p > 0
          && ffm_arch_get_level (arch, compute)->u.compute.operand_reuse)
        sb->unsound = "the compute unit reuses operands";
    }
  return sb;
}

void
ffm_storage_bound_free (FfmStorageBound *sb)
{
  if (sb == NULL)
    return;
  g_hash_table_destroy (sb->terms);
  g_free (sb->spread);
  g_free (sb->path);
  g_free (sb);
}

void
ffm_storage_bound_chains (const FfmStorageBound *sb, const guint64 *kept, guint64 *chain)
{
  const FfmEinsum *e = ffm_workload_get_einsum (sb->workload, sb->einsum);

  for (guint a = 0; a < e->n_accesses; a++)
    {
      chain[a] = 0;
      for (guint p = 0; p < sb->n_path; p++)
        if (kept[sb->path[p]] & BIT (a))
          chain[a] |= BIT (p);
    }
}

/* The path of @chain's storage nodes, one loop per rank variable below
 * them all (tile 1), compiled and evaluated: the energy of each level over
 * the instances of the fanouts below it. Spatial loops can serve that
 * many instances with one action of a memory above them (one read
 * multicast, one update of partial sums reduced on the way), so that the
 * compute unit's reads and updates of a memory above a fanout can be
 * fewer than its operations; no action serves more. */
static gboolean
evaluate_chains (FfmStorageBound *sb, const guint64 *chain, double *energy,
                 guint64 *operations, GError **error)
{
  const FfmEinsum *e = ffm_workload_get_einsum (sb->workload, sb->einsum);
  g_autoptr(GPtrArray) nodes = ffm_mapping_node_list_new ();
  g_autoptr(FfmPmappingModel) model = NULL;
  FfmPmappingCost *cost;

  for (guint p = 0; p < sb->n_path; p++)
    {
      const FfmLevel *l = ffm_arch_get_level (sb->arch, sb->path[p]);
      if (l->kind != FFM_LEVEL_MEMORY)
        continue;
      for (guint a = 0; a < e->n_accesses; a++)
        if (chain[a] & BIT (p))
          {
            const char *names[2] = {
              ffm_workload_get_tensor (sb->workload, e->accesses[a].tensor)->name, NULL };
            g_ptr_array_add (nodes, ffm_mapping_node_new_storage (names, l->name, FALSE));
          }
    }
  for (guint v = 0; v < e->n_rank_vars; v++)
    if (e->rank_var_bounds[v] > 1)
      g_ptr_array_add (nodes, ffm_mapping_node_new_temporal (e->rank_var_names[v], 1));
  g_ptr_array_add (nodes, ffm_mapping_node_new_compute (e->name,
                                                        ffm_arch_get_level (sb->arch,
                                                                            sb->compute)->name));
  model = ffm_pmapping_model_new (sb->workload, sb->arch,
                                  (const FfmMappingNode *const *) nodes->pdata,
                                  nodes->len, NULL, error);
  if (model == NULL)
    return FALSE;
  cost = ffm_pmapping_cost_new (model);
  ffm_pmapping_model_evaluate (model, NULL, cost);
  if (cost->status == FFM_COST_OVERFLOW)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "Einsum %s: the counts of its storage choice's bound overflow",
                   e->name);
      ffm_pmapping_cost_free (cost);
      return FALSE;
    }
  *energy = 0;
  for (guint p = 0; p < sb->n_path; p++)
    *energy += cost->level_energy[sb->path[p]] / sb->spread[p];
  *operations = cost->operations;
  ffm_pmapping_cost_free (cost);
  return TRUE;
}

static gboolean
set_reference (FfmStorageBound *sb, const guint64 *chain, GError **error)
{
  double throughput = ffm_arch_get_level (sb->arch, sb->compute)->u.compute.throughput;
  guint64 operations, steps;

  if (!evaluate_chains (sb, chain, &sb->ref_energy, &operations, error))
    return FALSE;
  /* @chain holds the Einsum's accesses only */
  memset (sb->ref_chain, 0, sizeof sb->ref_chain);
  memcpy (sb->ref_chain, chain,
          sizeof (guint64) * ffm_workload_get_einsum (sb->workload, sb->einsum)->n_accesses);
  /* Every loop's count multiplies the steps of one instance, except those
   * of spatial loops, whose product per fanout dimension is at most its
   * count: the steps are at least the operations over the instances.
   * Latency is the largest of the components' times, the compute unit's
   * (steps over throughput, computed as the model does, so that a
   * pmapping of exactly that many steps has exactly this latency) among
   * them. */
  steps = operations / sb->instances + (operations % sb->instances != 0);
  sb->latency = steps == 0 || isinf (throughput) ? 0 : (double) steps / throughput;
  sb->have_ref = TRUE;
  return TRUE;
}

gboolean
ffm_storage_bound_evaluate_direct (FfmStorageBound *sb, const guint64 *chain,
                                   double *energy, double *latency, GError **error)
{
  guint64 operations;

  if (sb->unsound != NULL)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                   "no storage bound: %s", sb->unsound);
      return FALSE;
    }
  if (!sb->have_ref && !set_reference (sb, chain, error))
    return FALSE;
  if (!evaluate_chains (sb, chain, energy, &operations, error))
    return FALSE;
  *latency = sb->latency;
  return TRUE;
}

/* With every loop below every storage node, a tensor's counts depend on
 * its own chain of memories only (its fills come from its parent, its
 * reads go to its child or the compute unit), and the energy is a sum
 * over the counts: the energy of a choice is the reference's plus, per
 * tensor, what its own chain changes. tests/test-pmapping.c checks the
 * sum against ffm_storage_bound_evaluate_direct(). */
gboolean
ffm_storage_bound_evaluate (FfmStorageBound *sb, const guint64 *chain,
                            double *energy, double *latency, GError **error)
{
  const FfmEinsum *e = ffm_workload_get_einsum (sb->workload, sb->einsum);
  double sum;

  if (sb->unsound != NULL)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                   "no storage bound: %s", sb->unsound);
      return FALSE;
    }
  if (sb->n_path > 60)        /* the cache's keys hold 61 bits of chain */
    return ffm_storage_bound_evaluate_direct (sb, chain, energy, latency, error);
  if (!sb->have_ref && !set_reference (sb, chain, error))
    return FALSE;
  sum = sb->ref_energy;
  for (guint a = 0; a < e->n_accesses; a++)
    {
      gint64 key = (gint64) (chain[a] << 3 | a);
      double *term;
      if (chain[a] == sb->ref_chain[a])
        continue;
      term = g_hash_table_lookup (sb->terms, &key);
      if (term == NULL)
        {
          guint64 mixed[FFM_MAX_EINSUM_TENSORS];
          double value;
          guint64 operations;
          g_autoptr(GError) local = NULL;
          memcpy (mixed, sb->ref_chain, sizeof mixed);
          mixed[a] = chain[a];
          /* A memory may let a tensor be kept only beside others: then
           * this choice is evaluated whole (and the term stays unknown). */
          if (!evaluate_chains (sb, mixed, &value, &operations, &local))
            value = NAN;
          else
            value -= sb->ref_energy;
          term = g_new (double, 1);
          *term = value;
          g_hash_table_insert (sb->terms, g_memdup2 (&key, sizeof key), term);
        }
      if (isnan (*term))
        return ffm_storage_bound_evaluate_direct (sb, chain, energy, latency, error);
      sum += *term;
    }
  *energy = sum;
  *latency = sb->latency;
  return TRUE;
}
