/* ffm-cost.c: the cost of a whole mapping.
 *
 * A LoopTree with splits is cut at its SEQUENTIAL nodes into one
 * root-to-compute path per Einsum (as the reference implementation, accelforge, rebuilds a mapping); each path is
 * compiled and evaluated by the pmapping model (ffm-cost-pmapping.c), and
 * the Einsums' energies and latencies are summed (§3.6, §3.7). Buffer
 * capacity is checked over lifetimes: while an Einsum computes, every tile
 * stored on its path is live, including tiles of other Einsums' tensors
 * stored above a split; the peak of a memory is the largest such sum over
 * the Einsums.
 *
 * Before evaluating, the mapping is checked as a whole: every Einsum once,
 * producers before consumers, no loop above a split that would hand a
 * consumer a partial tile of what its producer writes, and one backing
 * memory per shared tensor. Errors name the mapping file and the node. */
#include <ffm/ffm-cost.h>
#include "ffm-cost-private.h"

#include <json-glib/json-glib.h>
#include <ffm/ffm-json-writer.h>
#include <ffm/ffm-format.h>
#include <math.h>
#include <string.h>

/* One Einsum's path through the tree. */
typedef struct {
  GPtrArray *nodes;         /* const FfmMappingNode *, root to compute */
  GPtrArray *splits;        /* the SEQUENTIAL nodes on the way */
  GArray *split_prefix;     /* guint: number of path nodes above each split */
  GArray *split_branch;     /* guint: the branch taken at each split */
  guint einsum;
  FfmPmappingModel *model;
  FfmPmappingCost *cost;
} Leaf;

struct _FfmCostReport {
  FfmWorkload *workload;
  FfmArch *arch;
  FfmMapping *mapping;      /* our copy: the models point into it */
  char *source;
  GPtrArray *leaves;        /* of Leaf *, in workload order of their Einsums */
  double energy;
  double latency;
  double dynamic_energy;
  double leak_energy;
  gboolean fits;
  char *problem;
  guint n_levels;
  double *peak;             /* [n_levels] bits */
  double *level_energy;     /* [n_levels] J, dynamic + leak */
  double *level_leak;       /* [n_levels] J */
};

static void
leaf_free (gpointer data)
{
  Leaf *leaf = data;

  g_ptr_array_unref (leaf->nodes);
  g_ptr_array_unref (leaf->splits);
  g_array_unref (leaf->split_prefix);
  g_array_unref (leaf->split_branch);
  ffm_pmapping_model_free (leaf->model);
  ffm_pmapping_cost_free (leaf->cost);
  g_free (leaf);
}

void
ffm_cost_report_free (FfmCostReport *report)
{
  if (report == NULL)
    return;
  ffm_workload_unref (report->workload);
  ffm_arch_unref (report->arch);
  ffm_mapping_free (report->mapping);
  g_free (report->source);
  g_ptr_array_unref (report->leaves);
  g_free (report->problem);
  g_free (report->peak);
  g_free (report->level_energy);
  g_free (report->level_leak);
  g_free (report);
}

/* ---- Cutting the tree into paths ---- */

static void
collect_leaves (const GPtrArray *list, GPtrArray *prefix, GPtrArray *splits,
                GArray *split_prefix, GArray *split_branch, GPtrArray *out)
{
  guint prefix_len = prefix->len;

  for (guint i = 0; i < list->len; i++)
    {
      FfmMappingNode *node = g_ptr_array_index (list, i);
      if (node->kind == FFM_NODE_SEQUENTIAL)
        {
          guint n_above = prefix->len;
          for (guint b = 0; node->branches != NULL && b < node->branches->len; b++)
            {
              g_ptr_array_add (splits, node);
              g_array_append_val (split_prefix, n_above);
              g_array_append_val (split_branch, b);
              collect_leaves (g_ptr_array_index (node->branches, b), prefix,
                              splits, split_prefix, split_branch, out);
              g_ptr_array_set_size (splits, splits->len - 1);
              g_array_set_size (split_prefix, split_prefix->len - 1);
              g_array_set_size (split_branch, split_branch->len - 1);
            }
          break;
        }
      g_ptr_array_add (prefix, node);
      if (node->kind == FFM_NODE_COMPUTE)
        {
          Leaf *leaf = g_new0 (Leaf, 1);
          leaf->nodes = g_ptr_array_copy (prefix, NULL, NULL);
          leaf->splits = g_ptr_array_copy (splits, NULL, NULL);
          leaf->split_prefix = g_array_copy (split_prefix);
          leaf->split_branch = g_array_copy (split_branch);
          g_ptr_array_add (out, leaf);
          break;
        }
    }
  g_ptr_array_set_size (prefix, prefix_len);
}

static const FfmMappingNode *
leaf_compute (const Leaf *leaf)
{
  return g_ptr_array_index (leaf->nodes, leaf->nodes->len - 1);
}

/* ---- Whole-mapping checks ---- */

static gboolean
check_einsums_once (FfmCostReport *r, GPtrArray *leaves, GError **error)
{
  guint n = ffm_workload_get_n_einsums (r->workload);
  g_autofree int *seen = g_new (int, n);

  for (guint e = 0; e < n; e++)
    seen[e] = -1;
  for (guint i = 0; i < leaves->len; i++)
    {
      Leaf *leaf = g_ptr_array_index (leaves, i);
      if (seen[leaf->einsum] >= 0)
        {
          ffm_cost_node_error (error, r->source, leaf_compute (leaf),
                               "Einsum %s is computed twice in the mapping",
                               ffm_workload_get_einsum (r->workload,
                                                        leaf->einsum)->name);
          return FALSE;
        }
      seen[leaf->einsum] = i;
    }
  for (guint e = 0; e < n; e++)
    if (seen[e] < 0)
      {
        g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                     "%s: Einsum %s of workload %s is not in the mapping",
                     r->source, ffm_workload_get_einsum (r->workload, e)->name,
                     ffm_workload_get_name (r->workload));
        return FALSE;
      }
  return TRUE;
}

/* The rank of access @a that rank variable @var indexes alone, or -1. */
static int
plain_rank (const FfmWorkload *w, const FfmEinsum *e, guint a, int var)
{
  const FfmTensor *t = ffm_workload_get_tensor (w, e->accesses[a].tensor);

  if (var < 0)
    return -1;
  for (guint r = 0; r < t->n_ranks; r++)
    {
      const FfmProjection *p = &e->accesses[a].projections[r];
      if (p->n_terms == 1 && p->terms[0].var == (guint) var
          && p->terms[0].coefficient == 1)
        return r;
    }
  return -1;
}

/* Iterations of loop node @k of @leaf, those of its first (largest) block
 * when its tile leaves a remainder; 0 if its rank variable is not the
 * Einsum's, which compiling reports. */
static guint64
loop_iterations (const FfmWorkload *w, const Leaf *leaf, guint k)
{
  const FfmEinsum *e = ffm_workload_get_einsum (w, leaf->einsum);
  const FfmMappingNode *node = g_ptr_array_index (leaf->nodes, k);
  const char *name = ffm_mapping_node_get_rank_var_for (node, e->name);
  int var = ffm_einsum_find_rank_var (e, name);
  guint64 enclosing;

  if (var < 0 || node->tile == 0)
    return 0;
  enclosing = e->rank_var_bounds[var];
  for (guint i = 0; i < k; i++)
    {
      const FfmMappingNode *above = g_ptr_array_index (leaf->nodes, i);
      if ((above->kind == FFM_NODE_TEMPORAL || above->kind == FFM_NODE_SPATIAL)
          && g_strcmp0 (ffm_mapping_node_get_rank_var_for (above, e->name), name) == 0)
        enclosing = above->tile;
    }
  return enclosing / node->tile + (enclosing % node->tile != 0);
}

/* The memory of the first storage node of @tensor on the path, or -1. */
static int
backing_level (const FfmCostReport *r, const Leaf *leaf, guint tensor)
{
  const char *name = ffm_workload_get_tensor (r->workload, tensor)->name;

  for (guint k = 0; k < leaf->nodes->len; k++)
    {
      const FfmMappingNode *node = g_ptr_array_index (leaf->nodes, k);
      if (node->kind == FFM_NODE_STORAGE
          && g_strv_contains ((const char *const *) node->tensors, name))
        return ffm_arch_find_level (r->arch, node->level);
    }
  return -1;
}

/* Producer @p and consumer @q (leaf positions, p < q) of @tensor. */
static gboolean
check_dependency (FfmCostReport *r, const Leaf *p, const Leaf *q,
                  guint tensor, GError **error)
{
  const FfmWorkload *w = r->workload;
  const FfmEinsum *ep = ffm_workload_get_einsum (w, p->einsum);
  const FfmEinsum *eq = ffm_workload_get_einsum (w, q->einsum);
  const char *name = ffm_workload_get_tensor (w, tensor)->name;
  int qa = ffm_einsum_find_access (eq, tensor);
  guint shared = 0, split = 0;
  int lp, lq;

  /* The deepest split both paths pass; the loops above it are shared. */
  while (split < p->splits->len && split < q->splits->len
         && g_ptr_array_index (p->splits, split) == g_ptr_array_index (q->splits, split))
    split++;
  if (split > 0)
    shared = g_array_index (p->split_prefix, guint, split - 1);
  for (guint k = 0; k < shared; k++)
    {
      const FfmMappingNode *node = g_ptr_array_index (p->nodes, k);
      int rp, rq;
      if (node->kind != FFM_NODE_TEMPORAL && node->kind != FFM_NODE_SPATIAL)
        continue;
      if (loop_iterations (w, p, k) <= 1)
        continue;
      rp = plain_rank (w, ep, ep->output_access,
                       ffm_einsum_find_rank_var (ep, ffm_mapping_node_get_rank_var_for (node, ep->name)));
      rq = plain_rank (w, eq, qa,
                       ffm_einsum_find_rank_var (eq, ffm_mapping_node_get_rank_var_for (node, eq->name)));
      if (rp < 0 || rq < 0 || rp != rq)
        {
          ffm_cost_node_error (error, r->source, node,
                               "this loop over %s encloses both %s, which "
                               "writes %s, and %s, which reads it, but %s "
                               "does not index the same rank of %s in both: "
                               "%s would read values of %s that %s has not "
                               "finished (a split that breaks a data "
                               "dependency)", node->rank_var, ep->name, name,
                               eq->name, node->rank_var, name, eq->name, name,
                               ep->name);
          return FALSE;
        }
    }
  lp = backing_level (r, p, tensor);
  lq = backing_level (r, q, tensor);
  if (lp != lq && lp >= 0 && lq >= 0)
    {
      ffm_cost_node_error (error, r->source, leaf_compute (q),
                           "%s writes %s to %s but %s reads it from %s: a "
                           "tensor passed between Einsums needs one backing "
                           "memory", ep->name, name,
                           ffm_arch_get_level (r->arch, lp)->name, eq->name,
                           ffm_arch_get_level (r->arch, lq)->name);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_dependencies (FfmCostReport *r, GPtrArray *leaves, GError **error)
{
  const FfmWorkload *w = r->workload;
  guint n = ffm_workload_get_n_einsums (w);
  g_autofree int *position = g_new (int, n);

  for (guint i = 0; i < leaves->len; i++)
    position[((Leaf *) g_ptr_array_index (leaves, i))->einsum] = i;
  for (guint i = 0; i < leaves->len; i++)
    {
      Leaf *q = g_ptr_array_index (leaves, i);
      const FfmEinsum *eq = ffm_workload_get_einsum (w, q->einsum);
      for (guint a = 0; a < eq->n_accesses; a++)
        {
          const FfmTensor *t;
          Leaf *p;
          if (a == eq->output_access)
            continue;
          t = ffm_workload_get_tensor (w, eq->accesses[a].tensor);
          if (t->producer == G_MAXUINT || t->producer == q->einsum)
            continue;
          if (position[t->producer] > (int) i)
            {
              ffm_cost_node_error (error, r->source, leaf_compute (q),
                                   "%s reads %s before %s, which writes it, "
                                   "runs: the branches of a split run in "
                                   "order (a split that breaks a data "
                                   "dependency)", eq->name, t->name,
                                   ffm_workload_get_einsum (w, t->producer)->name);
              return FALSE;
            }
          p = g_ptr_array_index (leaves, position[t->producer]);
          if (!check_dependency (r, p, q, eq->accesses[a].tensor, error))
            return FALSE;
        }
    }
  return TRUE;
}

/* ---- Capacity over lifetimes ---- */

/* A (node, tensor) pair with what is known of it: the tile's largest
 * reservation (a storage node), or the first and last branch whose
 * Einsums use the tensor (a split). Hashed, so that checking a mapping of
 * thousands of Einsums stays linear in their number. */
typedef struct {
  const FfmMappingNode *node;
  guint tensor;
  double bits;
  guint first, last;
} NodeTensor;

static guint
node_tensor_hash (gconstpointer key)
{
  const NodeTensor *k = key;
  return g_direct_hash (k->node) ^ (k->tensor * 2654435761u);
}

static gboolean
node_tensor_equal (gconstpointer a, gconstpointer b)
{
  const NodeTensor *x = a, *y = b;
  return x->node == y->node && x->tensor == y->tensor;
}

/* Entries in one array allocated for all of them up front (so that the
 * keys the index points to stay where they are), and their index. */
typedef struct {
  NodeTensor *items;
  guint n, capacity;
  GHashTable *index;
} NodeTensorTable;

static void
node_tensor_table_init (NodeTensorTable *t, guint capacity)
{
  t->items = g_new (NodeTensor, MAX (capacity, 1));
  t->n = 0;
  t->capacity = capacity;
  t->index = g_hash_table_new (node_tensor_hash, node_tensor_equal);
}

static void
node_tensor_table_clear (NodeTensorTable *t)
{
  g_hash_table_destroy (t->index);
  g_free (t->items);
}

/* The entry of (@node, @tensor), NULL if there is none and @add is FALSE. */
static NodeTensor *
node_tensor_get (NodeTensorTable *t, const FfmMappingNode *node, guint tensor,
                 gboolean add, gboolean *added)
{
  NodeTensor key = { node, tensor, 0, G_MAXUINT, 0 };
  NodeTensor *e = g_hash_table_lookup (t->index, &key);

  *added = FALSE;
  if (e == NULL && add)
    {
      g_assert (t->n < t->capacity);
      e = &t->items[t->n++];
      *e = key;
      g_hash_table_add (t->index, e);
      *added = TRUE;
    }
  return e;
}

/* For each path node k of @leaf, the split it sits directly above (only
 * storage nodes between them), as an index into leaf->splits, or -1: one
 * backward walk (a scan per node and tensor was cubic in the Einsums of a
 * chain, whose paths hold a storage node per tensor above every split). */
static int *
splits_directly_below (const Leaf *leaf)
{
  guint n = leaf->nodes->len, j = leaf->split_prefix->len;
  int *below = g_new (int, MAX (n, 1));

  for (guint k = n; k-- > 0; )
    {
      guint at;
      /* j: the first split with more than k nodes above it */
      while (j > 0 && g_array_index (leaf->split_prefix, guint, j - 1) > k)
        j--;
      if (j == leaf->split_prefix->len)
        {
          below[k] = -1;
          continue;
        }
      at = g_array_index (leaf->split_prefix, guint, j);
      if (at == k + 1)
        below[k] = (int) j;
      else
        below[k] = ((const FfmMappingNode *) g_ptr_array_index (leaf->nodes, k + 1))->kind
          == FFM_NODE_STORAGE && below[k + 1] == (int) j ? (int) j : -1;
    }
  return below;
}

/* Whether the tile of @tensor kept by storage node @k of @leaf is live
 * while @leaf's Einsum runs; @j: the split node @k sits directly above
 * (splits_directly_below()). A tile kept directly above a split (only
 * storage nodes between them) is live from the first to the last branch
 * whose Einsums use the tensor: it is produced in one branch and dies
 * after its last reader [paper §5.1: storage nodes immediately above splits
 * become reservations in the branches where they are live]. A tile with a
 * loop between it and the next split is live during everything below it
 * (the loop interleaves the branches), and so is a persistent tile. */
static gboolean
tile_live_for_leaf (NodeTensorTable *ranges, const Leaf *leaf, guint k, int j,
                    guint tensor)
{
  const FfmMappingNode *node = g_ptr_array_index (leaf->nodes, k);
  const NodeTensor *range;
  gboolean added;
  guint mine;

  if (node->persistent || j < 0)
    return TRUE;
  range = node_tensor_get (ranges, g_ptr_array_index (leaf->splits, j), tensor, FALSE,
                           &added);
  if (range == NULL)
    return TRUE;
  mine = g_array_index (leaf->split_branch, guint, j);
  return range->first <= mine && mine <= range->last;
}

static void
check_capacity (FfmCostReport *r)
{
  NodeTensorTable table, ranges;
  g_autofree double *live = g_new (double, r->n_levels);
  double worst = 0;
  int worst_level = -1;
  const char *worst_einsum = NULL;
  guint n_buffets = 0, n_split_uses = 0;

  for (guint i = 0; i < r->leaves->len; i++)
    {
      const Leaf *leaf = g_ptr_array_index (r->leaves, i);
      n_buffets += leaf->cost->n_buffets;
      n_split_uses += leaf->splits->len
        * ffm_workload_get_einsum (r->workload, leaf->einsum)->n_accesses;
    }
  node_tensor_table_init (&table, n_buffets);
  node_tensor_table_init (&ranges, n_split_uses);

  /* Each (storage node, tensor) tile: the largest reservation any Einsum
   * using the tensor computed for it. */
  for (guint i = 0; i < r->leaves->len; i++)
    {
      Leaf *leaf = g_ptr_array_index (r->leaves, i);
      for (guint b = 0; b < leaf->cost->n_buffets; b++)
        {
          const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (leaf->model, b);
          const FfmMappingNode *node = g_ptr_array_index (leaf->nodes, info->node);
          double bits = leaf->cost->buffet_occupancy[b];
          gboolean added;
          NodeTensor *o = node_tensor_get (&table, node, info->tensor, TRUE, &added);
          o->bits = added ? bits : MAX (o->bits, bits);
        }
    }
  /* Each (split, tensor): the first and last branch whose Einsums use the
   * tensor. */
  for (guint i = 0; i < r->leaves->len; i++)
    {
      const Leaf *leaf = g_ptr_array_index (r->leaves, i);
      const FfmEinsum *e = ffm_workload_get_einsum (r->workload, leaf->einsum);
      for (guint j = 0; j < leaf->splits->len; j++)
        for (guint a = 0; a < e->n_accesses; a++)
          {
            gboolean added;
            NodeTensor *range = node_tensor_get (&ranges, g_ptr_array_index (leaf->splits, j),
                                                 e->accesses[a].tensor, TRUE, &added);
            guint b = g_array_index (leaf->split_branch, guint, j);
            range->first = MIN (range->first, b);
            range->last = MAX (range->last, b);
          }
    }

  for (guint i = 0; i < r->leaves->len; i++)
    {
      Leaf *leaf = g_ptr_array_index (r->leaves, i);
      g_autofree int *below = splits_directly_below (leaf);
      memset (live, 0, sizeof (double) * r->n_levels);
      for (guint k = 0; k < leaf->nodes->len; k++)
        {
          const FfmMappingNode *node = g_ptr_array_index (leaf->nodes, k);
          int level;
          if (node->kind != FFM_NODE_STORAGE)
            continue;
          level = ffm_arch_find_level (r->arch, node->level);
          for (guint t = 0; node->tensors[t] != NULL; t++)
            {
              int tensor = ffm_workload_find_tensor (r->workload, node->tensors[t]);
              if (tensor >= 0 && level >= 0
                  && tile_live_for_leaf (&ranges, leaf, k, below[k], (guint) tensor))
                {
                  gboolean added;
                  const NodeTensor *o = node_tensor_get (&table, node, (guint) tensor,
                                                         FALSE, &added);
                  live[level] += o != NULL ? o->bits : 0;
                }
            }
        }
      for (guint l = 0; l < r->n_levels; l++)
        {
          double size, over;
          if (ffm_arch_get_level (r->arch, l)->kind != FFM_LEVEL_MEMORY)
            continue;
          r->peak[l] = MAX (r->peak[l], live[l]);
          size = ffm_pmapping_model_get_level_size (leaf->model, l);
          over = live[l] - size;
          if (live[l] > 0 && over > worst)
            {
              worst = over;
              worst_level = l;
              worst_einsum = ffm_workload_get_einsum (r->workload, leaf->einsum)->name;
            }
        }
    }
  node_tensor_table_clear (&table);
  node_tensor_table_clear (&ranges);
  if (worst_level >= 0 && r->problem == NULL)
    {
      r->fits = FALSE;
      r->problem = g_strdup_printf ("does not fit in %s by %.17g bits (while "
                                    "%s runs)",
                                    ffm_arch_get_level (r->arch, worst_level)->name,
                                    worst, worst_einsum);
    }
}

/* ---- Evaluating ---- */

static gint
compare_leaves (gconstpointer a, gconstpointer b)
{
  const Leaf *la = *(const Leaf *const *) a, *lb = *(const Leaf *const *) b;
  return (la->einsum > lb->einsum) - (la->einsum < lb->einsum);
}

static void
sum_report (FfmCostReport *r)
{
  for (guint i = 0; i < r->leaves->len; i++)
    {
      Leaf *leaf = g_ptr_array_index (r->leaves, i);
      const FfmPmappingCost *c = leaf->cost;
      r->energy += c->energy;
      r->dynamic_energy += c->dynamic_energy;
      r->leak_energy += c->leak_energy;
      r->latency += c->latency;
      for (guint l = 0; l < r->n_levels; l++)
        {
          double leak = ffm_pmapping_model_get_level_leak (leaf->model, c, l);
          r->level_leak[l] += leak;
          r->level_energy[l] += c->level_energy[l] + leak;
        }
      if (c->status != FFM_COST_VALID && c->status != FFM_COST_DOES_NOT_FIT
          && r->problem == NULL)
        {
          const char *name = ffm_workload_get_einsum (r->workload, leaf->einsum)->name;
          r->fits = FALSE;
          if (c->status == FFM_COST_FANOUT_EXCEEDED)
            r->problem = g_strdup_printf (
              "%s: spatial loops use %.17g instances more than %s.%s has",
              name, c->excess, ffm_arch_get_level (r->arch, c->bad_level)->name,
              ffm_arch_get_level (r->arch, c->bad_level)->u.fanout.dims[c->bad_dim].name);
          else
            r->problem = g_strdup_printf ("%s: %s", name,
                                          ffm_cost_status_to_string (c->status));
        }
    }
}

FfmCostReport *
ffm_cost_evaluate_mapping (const FfmWorkload *workload, const FfmArch *arch,
                           const FfmMapping *mapping, GError **error)
{
  g_autoptr(FfmCostReport) r = NULL;
  g_autoptr(GPtrArray) prefix = g_ptr_array_new ();
  g_autoptr(GPtrArray) splits = g_ptr_array_new ();
  g_autoptr(GArray) split_prefix = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GArray) split_branch = g_array_new (FALSE, FALSE, sizeof (guint));
  const char *file;

  g_return_val_if_fail (workload != NULL && arch != NULL && mapping != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  r = g_new0 (FfmCostReport, 1);
  r->workload = ffm_workload_ref ((FfmWorkload *) workload);
  r->arch = ffm_arch_ref ((FfmArch *) arch);
  r->mapping = ffm_mapping_copy (mapping);
  file = ffm_mapping_get_source_file (mapping);
  r->source = g_strdup (file != NULL ? file : "mapping");
  r->leaves = g_ptr_array_new_with_free_func (leaf_free);
  r->fits = TRUE;
  r->n_levels = ffm_arch_get_n_levels (arch);
  r->peak = g_new0 (double, MAX (r->n_levels, 1));
  r->level_energy = g_new0 (double, MAX (r->n_levels, 1));
  r->level_leak = g_new0 (double, MAX (r->n_levels, 1));

  collect_leaves (ffm_mapping_peek_root (r->mapping), prefix, splits,
                  split_prefix, split_branch, r->leaves);
  for (guint i = 0; i < r->leaves->len; i++)
    {
      Leaf *leaf = g_ptr_array_index (r->leaves, i);
      leaf->model = ffm_pmapping_model_new (workload, arch,
                                            (const FfmMappingNode *const *) leaf->nodes->pdata,
                                            leaf->nodes->len, r->source, error);
      if (leaf->model == NULL
          || !ffm_pmapping_model_check_tiles (leaf->model, NULL, error))
        return NULL;
      leaf->einsum = ffm_pmapping_model_get_einsum (leaf->model);
    }
  if (!check_einsums_once (r, r->leaves, error)
      || !check_dependencies (r, r->leaves, error))
    return NULL;

  for (guint i = 0; i < r->leaves->len; i++)
    {
      Leaf *leaf = g_ptr_array_index (r->leaves, i);
      leaf->cost = ffm_pmapping_cost_new (leaf->model);
      ffm_pmapping_model_evaluate (leaf->model, NULL, leaf->cost);
    }
  g_ptr_array_sort (r->leaves, compare_leaves);
  sum_report (r);
  check_capacity (r);
  return g_steal_pointer (&r);
}

/* ---- Reading ---- */

double
ffm_cost_report_get_energy (const FfmCostReport *r)
{
  return r->energy;
}

double
ffm_cost_report_get_latency (const FfmCostReport *r)
{
  return r->latency;
}

double
ffm_cost_report_get_edp (const FfmCostReport *r)
{
  return r->energy * r->latency;
}

gboolean
ffm_cost_report_fits (const FfmCostReport *r)
{
  return r->fits;
}

const char *
ffm_cost_report_get_problem (const FfmCostReport *r)
{
  return r->problem;
}

guint
ffm_cost_report_get_n_einsums (const FfmCostReport *r)
{
  return r->leaves->len;
}

static const Leaf *
report_leaf (const FfmCostReport *r, guint index)
{
  g_return_val_if_fail (index < r->leaves->len, NULL);
  return g_ptr_array_index (r->leaves, index);
}

guint
ffm_cost_report_get_einsum (const FfmCostReport *r, guint index)
{
  return report_leaf (r, index)->einsum;
}

const FfmPmappingModel *
ffm_cost_report_get_model (const FfmCostReport *r, guint index)
{
  return report_leaf (r, index)->model;
}

const FfmPmappingCost *
ffm_cost_report_get_cost (const FfmCostReport *r, guint index)
{
  return report_leaf (r, index)->cost;
}

double
ffm_cost_report_get_peak_occupancy (const FfmCostReport *r, guint level)
{
  g_return_val_if_fail (level < r->n_levels, 0);
  return r->peak[level];
}

double
ffm_cost_report_get_level_energy (const FfmCostReport *r, guint level)
{
  g_return_val_if_fail (level < r->n_levels, 0);
  return r->level_energy[level];
}

const FfmWorkload *
ffm_cost_report_get_workload (const FfmCostReport *r)
{
  return r->workload;
}

const FfmArch *
ffm_cost_report_get_arch (const FfmCostReport *r)
{
  return r->arch;
}

const FfmMapping *
ffm_cost_report_get_mapping (const FfmCostReport *r)
{
  return r->mapping;
}

const char *
ffm_cost_report_get_source (const FfmCostReport *r)
{
  return r->source;
}

double
ffm_cost_report_get_level_leak (const FfmCostReport *r, guint level)
{
  g_return_val_if_fail (level < r->n_levels, 0);
  return r->level_leak[level];
}

static double level_size (const FfmCostReport *r, guint level);

double
ffm_cost_report_get_level_size (const FfmCostReport *r, guint level)
{
  g_return_val_if_fail (level < r->n_levels, 0);
  if (ffm_arch_get_level (r->arch, level)->kind != FFM_LEVEL_MEMORY)
    return 0;
  return level_size (r, level);
}

double
ffm_cost_report_get_buffet_energy (const FfmCostReport *r, guint index,
                                   guint buffet, double *read_j, double *write_j)
{
  const Leaf *leaf = report_leaf (r, index);

  g_return_val_if_fail (leaf != NULL && buffet < leaf->cost->n_buffets, 0);
  return ffm_pmapping_model_get_buffet_energy (leaf->model, leaf->cost, buffet,
                                               read_j, write_j);
}

/* ---- Printing ---- */

/* Capacity of memory @level: its size, or for a size that depends on the
 * Einsum (a register holding one weight) the largest over the Einsums. */
static double
level_size (const FfmCostReport *r, guint level)
{
  double size = ffm_arch_get_level (r->arch, level)->u.memory.size;

  if (!isnan (size))
    return size;
  size = 0;
  for (guint i = 0; i < r->leaves->len; i++)
    {
      const Leaf *leaf = g_ptr_array_index (r->leaves, i);
      double s = ffm_pmapping_model_get_level_size (leaf->model, level);
      if (!isnan (s))
        size = MAX (size, s);
    }
  return size;
}

static double
buffet_energy (const Leaf *leaf, guint b)
{
  return ffm_pmapping_model_get_buffet_energy (leaf->model, leaf->cost, b, NULL, NULL);
}

/* The energy of memory @l's read actions and of its write actions in one
 * Einsum. */
static void
level_action_energy (const FfmCostReport *r, const Leaf *leaf, guint l,
                     double *read_j, double *write_j)
{
  const FfmPmappingCost *c = leaf->cost;
  const FfmMemorySpec *m = &ffm_arch_get_level (r->arch, l)->u.memory;

  if (ffm_memory_spec_has_two_energies (m) && !m->whole_actions && m->cluster_size == 1)
    {
      *read_j = c->level_read_actions[l] * m->read_energy;
      *write_j = c->level_write_actions[l] * m->write_energy;
      return;
    }
  *read_j = *write_j = 0;
  for (guint b = 0; b < c->n_buffets; b++)
    {
      const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (leaf->model, b);
      double rj, wj;
      if (info->level != l)
        continue;
      ffm_pmapping_model_get_buffet_energy (leaf->model, c, b, &rj, &wj);
      *read_j += rj;
      *write_j += wj;
    }
}

static void
append_row (GString *s, const int *widths, guint n, const char *const *cells)
{
  g_string_append (s, " ");
  for (guint i = 0; i < n; i++)
    {
      if (i == 0)
        g_string_append_printf (s, " %-*s", widths[i], cells[i]);
      else
        g_string_append_printf (s, "  %*s", widths[i], cells[i]);
    }
  g_string_append_c (s, '\n');
}

/* Appends a table whose rows are given as a flat GPtrArray of strings. */
static void
append_table (GString *s, const char *title, guint n_cols,
              const char *const *header, GPtrArray *cells)
{
  g_autofree int *widths = g_new0 (int, n_cols);

  for (guint c = 0; c < n_cols; c++)
    widths[c] = g_utf8_strlen (header[c], -1);
  for (guint i = 0; i < cells->len; i++)
    widths[i % n_cols] = MAX (widths[i % n_cols],
                              (int) g_utf8_strlen (g_ptr_array_index (cells, i), -1));
  g_string_append_printf (s, "\n%s\n", title);
  append_row (s, widths, n_cols, header);
  for (guint i = 0; i + n_cols <= cells->len; i += n_cols)
    append_row (s, widths, n_cols, (const char *const *) &cells->pdata[i]);
}

/* Loop @j of @leaf's path: its tile, its enclosing tile, its iterations
 * (of a full enclosing tile) and its remainder (0 when the tile divides). */
static void
leaf_loop (const FfmCostReport *r, const Leaf *leaf, guint j, guint64 *tile,
           guint64 *iterations, guint64 *remainder)
{
  const FfmLoopInfo *l = ffm_pmapping_model_get_loop (leaf->model, j);
  const guint64 *tiles = ffm_pmapping_model_get_tiles (leaf->model);
  guint64 enclosing = l->enclosing >= 0 ? tiles[l->enclosing]
    : ffm_workload_get_einsum (r->workload, leaf->einsum)->rank_var_bounds[l->rank_var];

  *tile = tiles[j];
  *iterations = enclosing / tiles[j] + (enclosing % tiles[j] != 0);
  *remainder = enclosing % tiles[j];
}

/* The table of loops whose tile leaves a remainder, if any. */
static void
append_remainder_table (const FfmCostReport *r, GString *s)
{
  static const char *const header[] = { "Einsum", "loop", "tile",
                                        "iterations", "remainder" };
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < r->leaves->len; i++)
    {
      const Leaf *leaf = g_ptr_array_index (r->leaves, i);
      const FfmEinsum *e = ffm_workload_get_einsum (r->workload, leaf->einsum);
      for (guint j = 0; j < ffm_pmapping_model_get_n_loops (leaf->model); j++)
        {
          const FfmLoopInfo *l = ffm_pmapping_model_get_loop (leaf->model, j);
          guint64 tile, iterations, remainder;
          leaf_loop (r, leaf, j, &tile, &iterations, &remainder);
          if (remainder == 0)
            continue;
          g_ptr_array_add (cells, g_strdup (e->name));
          g_ptr_array_add (cells, g_strdup_printf ("%s %s", l->spatial
                                                   ? "parallel-for" : "for",
                                                   e->rank_var_names[l->rank_var]));
          g_ptr_array_add (cells, g_strdup_printf ("%" G_GUINT64_FORMAT, tile));
          g_ptr_array_add (cells, g_strdup_printf ("%" G_GUINT64_FORMAT, iterations));
          g_ptr_array_add (cells, g_strdup_printf ("%" G_GUINT64_FORMAT, remainder));
        }
    }
  if (cells->len > 0)
    append_table (s, "Loops whose last iteration is a remainder tile "
                  "(iterations and remainder inside a full enclosing tile)",
                  G_N_ELEMENTS (header), header, cells);
}

char *
ffm_cost_report_to_table (const FfmCostReport *r)
{
  GString *s = g_string_new (NULL);
  g_autofree char *energy = ffm_format_si (r->energy, "J");
  g_autofree char *latency = ffm_format_si (r->latency, "s");
  g_autofree char *edp = ffm_format_si (r->energy * r->latency, "J*s");
  g_autofree char *leak = ffm_format_si (r->leak_energy, "J");

  g_string_append_printf (s, "Mapping %s: workload %s on architecture %s\n",
                          r->source, ffm_workload_get_name (r->workload),
                          ffm_arch_get_name (r->arch));
  g_string_append_printf (s, "  energy   %s (%.10g J; leak %s)\n", energy,
                          r->energy, leak);
  g_string_append_printf (s, "  latency  %s (%.10g s)\n", latency, r->latency);
  g_string_append_printf (s, "  EDP      %s (%.10g J*s)\n", edp,
                          r->energy * r->latency);
  g_string_append_printf (s, "  fits     %s\n",
                          r->fits ? "yes" : r->problem);

  {
    static const char *const header[] = { "Einsum", "compute", "operations",
                                          "energy", "latency", "status" };
    g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
    for (guint i = 0; i < r->leaves->len; i++)
      {
        const Leaf *leaf = g_ptr_array_index (r->leaves, i);
        g_ptr_array_add (cells, g_strdup (ffm_workload_get_einsum (r->workload,
                                                                   leaf->einsum)->name));
        g_ptr_array_add (cells, g_strdup (ffm_arch_get_level (r->arch,
                                                              ffm_pmapping_model_get_compute_level (leaf->model))->name));
        g_ptr_array_add (cells, g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                 leaf->cost->operations));
        g_ptr_array_add (cells, ffm_format_si (leaf->cost->energy, "J"));
        g_ptr_array_add (cells, ffm_format_si (leaf->cost->latency, "s"));
        g_ptr_array_add (cells, g_strdup (ffm_cost_status_to_string (leaf->cost->status)));
      }
    append_table (s, "Per Einsum", G_N_ELEMENTS (header), header, cells);
  }
  {
    static const char *const header[] = { "component", "kind", "energy",
                                          "leak", "peak occupancy", "size" };
    g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
    for (guint l = 0; l < r->n_levels; l++)
      {
        const FfmLevel *level = ffm_arch_get_level (r->arch, l);
        gboolean memory = level->kind == FFM_LEVEL_MEMORY;
        g_ptr_array_add (cells, g_strdup (level->name));
        g_ptr_array_add (cells, g_strdup (memory ? "memory"
                                          : level->kind == FFM_LEVEL_FANOUT
                                          ? "fanout" : "compute"));
        g_ptr_array_add (cells, ffm_format_si (r->level_energy[l], "J"));
        g_ptr_array_add (cells, ffm_format_si (r->level_leak[l], "J"));
        g_ptr_array_add (cells, memory ? g_strdup_printf ("%.10g b", r->peak[l])
                         : g_strdup ("-"));
        if (!memory)
          g_ptr_array_add (cells, g_strdup ("-"));
        else if (isinf (level_size (r, l)))
          g_ptr_array_add (cells, g_strdup ("inf"));
        else
          g_ptr_array_add (cells, g_strdup_printf ("%.10g b", level_size (r, l)));
      }
    append_table (s, "Per component (all Einsums)", G_N_ELEMENTS (header),
                  header, cells);
  }
  {
    static const char *const header[] = { "tensor", "energy", "read actions",
                                          "write actions" };
    g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
    guint n_tensors = ffm_workload_get_n_tensors (r->workload);
    g_autofree double *energy_t = g_new0 (double, MAX (n_tensors, 1));
    g_autofree double *reads_t = g_new0 (double, MAX (n_tensors, 1));
    g_autofree double *writes_t = g_new0 (double, MAX (n_tensors, 1));
    for (guint i = 0; i < r->leaves->len; i++)
      {
        const Leaf *leaf = g_ptr_array_index (r->leaves, i);
        for (guint b = 0; b < leaf->cost->n_buffets; b++)
          {
            const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (leaf->model, b);
            const FfmActionCounts *c = &leaf->cost->counts[b];
            energy_t[info->tensor] += buffet_energy (leaf, b);
            reads_t[info->tensor] += ffm_buffet_read_actions (info, c);
            writes_t[info->tensor] += ffm_buffet_write_actions (info, c);
          }
      }
    for (guint t = 0; t < n_tensors; t++)
      {
        g_ptr_array_add (cells, g_strdup (ffm_workload_get_tensor (r->workload, t)->name));
        g_ptr_array_add (cells, ffm_format_si (energy_t[t], "J"));
        g_ptr_array_add (cells, g_strdup_printf ("%.10g", reads_t[t]));
        g_ptr_array_add (cells, g_strdup_printf ("%.10g", writes_t[t]));
      }
    append_table (s, "Per tensor (all Einsums, all memories)",
                  G_N_ELEMENTS (header), header, cells);
  }
  {
    static const char *const header[] = { "Einsum", "component", "tensor",
                                          "reads", "fills", "drains",
                                          "updates", "read act.",
                                          "write act.", "energy",
                                          "occupancy" };
    g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
    for (guint i = 0; i < r->leaves->len; i++)
      {
        const Leaf *leaf = g_ptr_array_index (r->leaves, i);
        for (guint b = 0; b < leaf->cost->n_buffets; b++)
          {
            const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (leaf->model, b);
            const FfmActionCounts *c = &leaf->cost->counts[b];
            g_ptr_array_add (cells, g_strdup (ffm_workload_get_einsum (r->workload,
                                                                       leaf->einsum)->name));
            g_ptr_array_add (cells, g_strdup (ffm_arch_get_level (r->arch, info->level)->name));
            g_ptr_array_add (cells, g_strdup (ffm_workload_get_tensor (r->workload,
                                                                       info->tensor)->name));
            g_ptr_array_add (cells, g_strdup_printf ("%" G_GUINT64_FORMAT, c->reads));
            g_ptr_array_add (cells, g_strdup_printf ("%" G_GUINT64_FORMAT, c->fills));
            g_ptr_array_add (cells, g_strdup_printf ("%" G_GUINT64_FORMAT, c->drains));
            g_ptr_array_add (cells, g_strdup_printf ("%" G_GUINT64_FORMAT, c->updates));
            g_ptr_array_add (cells, g_strdup_printf ("%.10g",
                                                     ffm_buffet_read_actions (info, c)));
            g_ptr_array_add (cells, g_strdup_printf ("%.10g",
                                                     ffm_buffet_write_actions (info, c)));
            g_ptr_array_add (cells, ffm_format_si (buffet_energy (leaf, b), "J"));
            g_ptr_array_add (cells, g_strdup_printf ("%.10g b",
                                                     leaf->cost->buffet_occupancy[b]));
          }
      }
    append_table (s, "Per Einsum, component and tensor (counts in values, "
                  "actions = values x bits per value / bits per action)",
                  G_N_ELEMENTS (header), header, cells);
  }
  append_remainder_table (r, s);
  return g_string_free (s, FALSE);
}

/* ---- Derived figures ---- */

void
ffm_cost_report_get_level_action_energy (const FfmCostReport *r, guint index, guint level,
                                         double *read_j, double *write_j)
{
  const Leaf *leaf = report_leaf (r, index);
  double rj = 0, wj = 0;

  g_return_if_fail (leaf != NULL && level < r->n_levels);
  if (ffm_arch_get_level (r->arch, level)->kind == FFM_LEVEL_MEMORY)
    level_action_energy (r, leaf, level, &rj, &wj);
  if (read_j != NULL)
    *read_j = rj;
  if (write_j != NULL)
    *write_j = wj;
}

int
ffm_cost_report_get_bounding_level (const FfmCostReport *r, guint index)
{
  const Leaf *leaf = report_leaf (r, index);
  int best = -1;

  g_return_val_if_fail (leaf != NULL, -1);
  for (guint l = 0; l < leaf->cost->n_levels; l++)
    if (leaf->cost->level_latency[l] > 0
        && (best < 0 || leaf->cost->level_latency[l] > leaf->cost->level_latency[best]))
      best = (int) l;
  return best;
}

double
ffm_cost_report_get_compute_utilization (const FfmCostReport *r, guint index)
{
  const Leaf *leaf = report_leaf (r, index);
  guint compute;
  double rate;

  g_return_val_if_fail (leaf != NULL, NAN);
  compute = ffm_pmapping_model_get_compute_level (leaf->model);
  rate = ffm_arch_get_level (r->arch, compute)->u.compute.throughput
    * (double) ffm_arch_get_instances_above (r->arch, compute);
  if (leaf->cost->latency <= 0 || !isfinite (rate) || rate <= 0 || leaf->cost->operations == 0)
    return NAN;
  return (double) leaf->cost->operations / rate / leaf->cost->latency;
}

void
ffm_cost_report_get_tensor_totals (const FfmCostReport *r, guint tensor, double *energy_j,
                                   double *read_actions, double *write_actions)
{
  double e = 0, reads = 0, writes = 0;

  for (guint i = 0; i < r->leaves->len; i++)
    {
      const Leaf *leaf = g_ptr_array_index (r->leaves, i);
      for (guint b = 0; b < leaf->cost->n_buffets; b++)
        {
          const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (leaf->model, b);
          const FfmActionCounts *c = &leaf->cost->counts[b];
          if (info->tensor != tensor)
            continue;
          e += buffet_energy (leaf, b);
          reads += ffm_buffet_read_actions (info, c);
          writes += ffm_buffet_write_actions (info, c);
        }
    }
  if (energy_j != NULL)
    *energy_j = e;
  if (read_actions != NULL)
    *read_actions = reads;
  if (write_actions != NULL)
    *write_actions = writes;
}

/* ---- JSON ---- */

static const char *
level_kind_name (const FfmLevel *level)
{
  return level->kind == FFM_LEVEL_MEMORY ? "memory"
    : level->kind == FFM_LEVEL_FANOUT ? "fanout" : "compute";
}

/* A double, or null when it is NAN (unknown). */
static void
member_double_or_null (FfmJsonWriter *b, const char *name, double value)
{
  if (isnan (value))
    ffm_json_writer_member_null (b, name);
  else
    ffm_json_writer_member_double (b, name, value);
}

static void
add_einsum_json (const FfmCostReport *r, FfmJsonWriter *b, guint index)
{
  const Leaf *leaf = report_leaf (r, index);
  const FfmPmappingCost *c = leaf->cost;
  int bound = ffm_cost_report_get_bounding_level (r, index);

  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_string (b, "name", ffm_workload_get_einsum (r->workload, leaf->einsum)->name);
  ffm_json_writer_member_string (b, "compute", ffm_arch_get_level (r->arch,
                                                ffm_pmapping_model_get_compute_level (leaf->model))->name);
  ffm_json_writer_member_double (b, "energy_j", c->energy);
  ffm_json_writer_member_double (b, "latency_s", c->latency);
  ffm_json_writer_member_double (b, "dynamic_energy_j", c->dynamic_energy);
  ffm_json_writer_member_double (b, "leak_energy_j", c->leak_energy);
  ffm_json_writer_member_uint (b, "operations", c->operations);
  ffm_json_writer_member_string (b, "status", ffm_cost_status_to_string (c->status));
  ffm_json_writer_member_string (b, "bounded_by", bound >= 0
                                 ? ffm_arch_get_level (r->arch, (guint) bound)->name : NULL);
  member_double_or_null (b, "compute_utilization",
                         ffm_cost_report_get_compute_utilization (r, index));
  ffm_json_writer_key (b, "per_component");
  ffm_json_writer_begin_array (b);
  for (guint l = 0; l < r->n_levels; l++)
    {
      const FfmLevel *level = ffm_arch_get_level (r->arch, l);
      if (level->kind == FFM_LEVEL_FANOUT)
        continue;
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "name", level->name);
      ffm_json_writer_member_double (b, "energy_j", c->level_energy[l]);
      ffm_json_writer_member_double (b, "latency_s", c->level_latency[l]);
      if (level->kind == FFM_LEVEL_MEMORY)
        {
          double read_j, write_j;
          level_action_energy (r, leaf, l, &read_j, &write_j);
          ffm_json_writer_member_double (b, "read_actions", c->level_read_actions[l]);
          ffm_json_writer_member_double (b, "write_actions", c->level_write_actions[l]);
          ffm_json_writer_member_double (b, "read_energy_j", read_j);
          ffm_json_writer_member_double (b, "write_energy_j", write_j);
          ffm_json_writer_member_double (b, "occupancy_bits", c->level_occupancy[l]);
        }
      else
        ffm_json_writer_member_uint (b, "operations", c->operations);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "fanouts");
  ffm_json_writer_begin_array (b);
  for (guint d = 0; d < ffm_pmapping_model_get_n_fanout_dims (leaf->model); d++)
    {
      const FfmFanoutDimInfo *info = ffm_pmapping_model_get_fanout_dim (leaf->model, d);
      const FfmLevel *level = ffm_arch_get_level (r->arch, info->level);
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_string (b, "level", level->name);
      ffm_json_writer_member_string (b, "dimension", level->u.fanout.dims[info->dim].name);
      ffm_json_writer_member_uint (b, "used", c->fanout_used[d]);
      ffm_json_writer_member_uint (b, "count", info->count);
      ffm_json_writer_member_double (b, "utilization",
                                     (double) c->fanout_used[d] / (double) info->count);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "per_tensor");
  ffm_json_writer_begin_array (b);
  for (guint k = 0; k < c->n_buffets; k++)
    {
      const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (leaf->model, k);
      const FfmActionCounts *n = &c->counts[k];
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "component", ffm_arch_get_level (r->arch, info->level)->name);
      ffm_json_writer_member_string (b, "tensor", ffm_workload_get_tensor (r->workload, info->tensor)->name);
      ffm_json_writer_member_uint (b, "reads", n->reads);
      ffm_json_writer_member_uint (b, "fills", n->fills);
      ffm_json_writer_member_uint (b, "drains", n->drains);
      ffm_json_writer_member_uint (b, "updates", n->updates);
      ffm_json_writer_member_double (b, "read_actions", ffm_buffet_read_actions (info, n));
      ffm_json_writer_member_double (b, "write_actions", ffm_buffet_write_actions (info, n));
      ffm_json_writer_member_double (b, "energy_j", buffet_energy (leaf, k));
      ffm_json_writer_member_double (b, "occupancy_bits", c->buffet_occupancy[k]);
      ffm_json_writer_member_int (b, "lifetime_depth", info->n_loops_above);
      ffm_json_writer_member_boolean (b, "backing", info->backing);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "loops");
  ffm_json_writer_begin_array (b);
  for (guint j = 0; j < ffm_pmapping_model_get_n_loops (leaf->model); j++)
    {
      const FfmLoopInfo *l = ffm_pmapping_model_get_loop (leaf->model, j);
      guint64 tile, iterations, remainder;
      leaf_loop (r, leaf, j, &tile, &iterations, &remainder);
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "rank_var", ffm_workload_get_einsum (r->workload,
                                                                            leaf->einsum)->rank_var_names[l->rank_var]);
      ffm_json_writer_member_boolean (b, "spatial", l->spatial);
      ffm_json_writer_member_uint (b, "tile", tile);
      ffm_json_writer_member_uint (b, "iterations", iterations);
      ffm_json_writer_member_uint (b, "remainder", remainder);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
}

static const char *const tensor_kinds[] = { "weight", "input", "intermediate", "output" };

void
ffm_cost_report_write_json_members (const FfmCostReport *r, FfmJsonWriter *b)
{
  guint n_tensors = ffm_workload_get_n_tensors (r->workload);
  g_autofree double *tensor_energy = g_new0 (double, MAX (n_tensors, 1));
  double area = ffm_arch_get_area (r->arch);

  ffm_json_writer_member_double (b, "energy_j", r->energy);
  ffm_json_writer_member_double (b, "latency_s", r->latency);
  ffm_json_writer_member_double (b, "edp_js", r->energy * r->latency);
  ffm_json_writer_member_double (b, "dynamic_energy_j", r->dynamic_energy);
  ffm_json_writer_member_double (b, "leak_energy_j", r->leak_energy);
  ffm_json_writer_member_boolean (b, "fits", r->fits);
  ffm_json_writer_member_string (b, "problem", r->problem);
  if (area > 0)
    ffm_json_writer_member_double (b, "area_m2", area);
  else
    ffm_json_writer_member_null (b, "area_m2");

  ffm_json_writer_key (b, "per_einsum");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < r->leaves->len; i++)
    add_einsum_json (r, b, i);
  ffm_json_writer_end_array (b);

  ffm_json_writer_key (b, "per_component");
  ffm_json_writer_begin_array (b);
  for (guint l = 0; l < r->n_levels; l++)
    {
      const FfmLevel *level = ffm_arch_get_level (r->arch, l);
      double level_area = ffm_arch_get_level_area (r->arch, l);
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "name", level->name);
      ffm_json_writer_member_string (b, "kind", level_kind_name (level));
      ffm_json_writer_member_double (b, "energy_j", r->level_energy[l]);
      ffm_json_writer_member_double (b, "energy_share",
                                     r->energy > 0 ? r->level_energy[l] / r->energy : 0);
      ffm_json_writer_member_double (b, "leak_energy_j", r->level_leak[l]);
      if (level->kind == FFM_LEVEL_MEMORY)
        {
          double rj = 0, wj = 0;
          for (guint i = 0; i < r->leaves->len; i++)
            {
              double er, ew;
              level_action_energy (r, g_ptr_array_index (r->leaves, i), l, &er, &ew);
              rj += er;
              wj += ew;
            }
          ffm_json_writer_member_double (b, "read_energy_j", rj);
          ffm_json_writer_member_double (b, "write_energy_j", wj);
          ffm_json_writer_member_double (b, "peak_occupancy_bits", r->peak[l]);
          ffm_json_writer_member_double (b, "size_bits", level_size (r, l));   /* "inf" = unbounded */
        }
      if (level_area > 0)
        ffm_json_writer_member_double (b, "area_m2", level_area);
      else
        ffm_json_writer_member_null (b, "area_m2");
      if (level->estimated_by != NULL)
        ffm_json_writer_member_string (b, "estimated_by", level->estimated_by);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);

  ffm_json_writer_key (b, "per_tensor");
  ffm_json_writer_begin_array (b);
  for (guint t = 0; t < n_tensors; t++)
    {
      double reads, writes;
      ffm_cost_report_get_tensor_totals (r, t, &tensor_energy[t], &reads, &writes);
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_string (b, "name", ffm_workload_get_tensor (r->workload, t)->name);
      ffm_json_writer_member_string (b, "class", ffm_workload_get_tensor_kind (r->workload, t));
      ffm_json_writer_member_double (b, "energy_j", tensor_energy[t]);
      ffm_json_writer_member_double (b, "read_actions", reads);
      ffm_json_writer_member_double (b, "write_actions", writes);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);

  ffm_json_writer_key (b, "per_tensor_class");
  ffm_json_writer_begin_array (b);
  for (guint k = 0; k < G_N_ELEMENTS (tensor_kinds); k++)
    {
      double e = 0;
      guint n = 0;
      for (guint t = 0; t < n_tensors; t++)
        if (strcmp (ffm_workload_get_tensor_kind (r->workload, t), tensor_kinds[k]) == 0)
          {
            e += tensor_energy[t];
            n++;
          }
      if (n == 0)
        continue;
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_string (b, "class", tensor_kinds[k]);
      ffm_json_writer_member_uint (b, "tensors", n);
      ffm_json_writer_member_double (b, "energy_j", e);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
}

char *
ffm_cost_report_to_json (const FfmCostReport *r)
{
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();

  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_string (b, "mapping", r->source);
  ffm_json_writer_member_string (b, "workload", ffm_workload_get_name (r->workload));
  ffm_json_writer_member_string (b, "architecture", ffm_arch_get_name (r->arch));
  ffm_cost_report_write_json_members (r, b);
  ffm_json_writer_end_object (b);
  return ffm_json_writer_finish (b);
}
