/* ffm-join.c: which pmappings join, and the fused LoopTree they make
 * (ffm-join.h).
 *
 * A pmapping is read once into flat arrays (its nodes, their depths, its
 * loops with the rank each loop walks in every tensor, its shared tensors);
 * a chain checks each new pmapping against the ones before it with those
 * arrays only. The tree is built recursively over runs of Einsums that
 * share d loops (ffm-join.h, "The tree").
 *
 * [1] the reference implementation (accelforge); docs/ffm-search.md. */
#include <ffm/ffm-join.h>
#include <ffm/ffm-cost.h>

#include <math.h>
#include <string.h>

#define NONE G_MAXUINT

/* ---- Statuses and ranks ---- */

const char *
ffm_join_status_to_string (FfmJoinStatus status)
{
  switch (status)
    {
    case FFM_JOIN_OK:
      return "joins";
    case FFM_JOIN_WRONG_EINSUM:
      return "it is not the next Einsum in workload order";
    case FFM_JOIN_LOOPS:
      return "the loops it must share with the previous Einsum differ";
    case FFM_JOIN_BACKING:
      return "a shared tensor is backed in another memory, at another depth "
        "or with another tile";
    case FFM_JOIN_DEPENDENCY:
      return "a shared loop walks a tensor along different ranks in its "
        "producer and its consumer";
    case FFM_JOIN_COPY:
      return "a copy of a shared tensor would lie on the path of another "
        "Einsum using that tensor";
    default:
      return "unknown";
    }
}

gboolean
ffm_join_memory_is_unbounded (const FfmArch *a, guint level)
{
  const FfmLevel *l;

  g_return_val_if_fail (a != NULL && level < ffm_arch_get_n_levels (a), FALSE);
  l = ffm_arch_get_level (a, level);
  return l->kind == FFM_LEVEL_MEMORY && l->u.memory.size_per_einsum == NULL
    && isinf (l->u.memory.size);
}

int
ffm_join_plain_rank (const FfmWorkload *workload, const FfmEinsum *einsum,
                     guint access, guint var)
{
  const FfmTensor *t;

  g_return_val_if_fail (workload != NULL && einsum != NULL, -1);
  g_return_val_if_fail (access < einsum->n_accesses, -1);
  t = ffm_workload_get_tensor (workload, einsum->accesses[access].tensor);
  for (guint r = 0; r < t->n_ranks; r++)
    {
      const FfmProjection *p = &einsum->accesses[access].projections[r];
      if (p->n_terms == 1 && p->terms[0].var == var
          && p->terms[0].coefficient == 1)
        return (int) r;
    }
  return -1;
}

/* ---- One pmapping ---- */

typedef struct {
  FfmMappingNode *node;     /* owned; STORAGE nodes hold one tensor */
  guint depth;              /* loops above it */
  int tensor;               /* STORAGE: workload tensor, else -1 */
  int access;               /* STORAGE: access in the Einsum, else -1 */
  gboolean backing;         /* STORAGE: first node of its tensor */
  int loop;                 /* loops: index among the loops, else -1 */
} JoinNode;

typedef struct {
  guint64 count;            /* iterations (> 1) */
  guint64 tile;
  gboolean spatial;
  int fanout_level;         /* -1 temporal */
  const char *dimension;    /* spatial: dimension name (borrowed from node) */
  const char *var_name;     /* the Einsum's rank variable (borrowed) */
  int prank[FFM_MAX_EINSUM_TENSORS]; /* per access: rank walked, -1 */
} JoinLoop;

typedef struct {
  guint tensor;
  guint access;
  int level;                /* backing memory */
  gboolean persistent;
  guint depth;              /* fused loops above the backing node */
  double bits;              /* backing tile, bits */
  guint copy_depth;         /* shallowest non-backing node, NONE if none */
} JoinShared;

struct _FfmJoinPmapping {
  guint einsum;
  const FfmEinsum *e;       /* borrowed from the workload */
  guint n_nodes;
  JoinNode *nodes;
  guint n_loops;
  JoinLoop *loops;
  guint n_fused;
  guint n_shared;
  JoinShared shared[FFM_MAX_EINSUM_TENSORS];
};

void
ffm_join_pmapping_free (FfmJoinPmapping *p)
{
  if (p == NULL)
    return;
  for (guint i = 0; i < p->n_nodes; i++)
    ffm_mapping_node_free (p->nodes[i].node);
  g_free (p->nodes);
  g_free (p->loops);
  g_free (p);
}

guint
ffm_join_pmapping_get_einsum (const FfmJoinPmapping *p)
{
  return p->einsum;
}

guint
ffm_join_pmapping_get_n_fused_loops (const FfmJoinPmapping *p)
{
  return p->n_fused;
}

static const JoinShared *
find_shared (const FfmJoinPmapping *p, guint tensor)
{
  for (guint i = 0; i < p->n_shared; i++)
    if (p->shared[i].tensor == tensor)
      return &p->shared[i];
  return NULL;
}

guint
ffm_join_pmapping_get_copy_depth (const FfmJoinPmapping *p, guint tensor)
{
  const JoinShared *s = find_shared (p, tensor);

  return s != NULL ? s->copy_depth : NONE;
}

static gboolean
read_storage (FfmJoinPmapping *p, const FfmWorkload *w, const FfmArch *a,
              const FfmMappingNode *node, guint depth, GArray *nodes,
              guint64 *seen, GError **error)
{
  int level = ffm_arch_find_level (a, node->level);

  if (level < 0)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "Einsum %s: architecture %s has no memory %s", p->e->name,
                   ffm_arch_get_name (a), node->level);
      return FALSE;
    }
  for (guint k = 0; node->tensors != NULL && node->tensors[k] != NULL; k++)
    {
      const char *one[2] = { node->tensors[k], NULL };
      int tensor = ffm_workload_find_tensor (w, node->tensors[k]);
      JoinNode jn = { 0 };

      if (tensor < 0)
        {
          g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                       "Einsum %s: workload %s has no tensor %s", p->e->name,
                       ffm_workload_get_name (w), node->tensors[k]);
          return FALSE;
        }
      jn.node = ffm_mapping_node_new_storage (one, node->level, node->persistent);
      jn.depth = depth;
      jn.tensor = tensor;
      jn.access = ffm_einsum_find_access (p->e, tensor);
      jn.loop = -1;
      if (jn.access >= 0)
        {
          jn.backing = !(*seen & (G_GUINT64_CONSTANT (1) << jn.access));
          *seen |= G_GUINT64_CONSTANT (1) << jn.access;
        }
      g_array_append_val (nodes, jn);
    }
  return TRUE;
}

/* Reads a loop node; FALSE (no error) when it iterates once. */
static gboolean
read_loop (FfmJoinPmapping *p, const FfmWorkload *w, const FfmArch *a,
           const FfmMappingNode *node, guint64 *var_tile, GArray *loops,
           int *var_out, GError **error)
{
  const char *name = ffm_mapping_node_get_rank_var_for (node, p->e->name);
  int var = name != NULL ? ffm_einsum_find_rank_var (p->e, name) : -1;
  JoinLoop l = { 0 };

  *var_out = var;
  if (var < 0 || node->tile == 0)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "Einsum %s: a loop over %s, which is not one of its rank "
                   "variables (or has tile 0)", p->e->name,
                   name != NULL ? name : "(none)");
      return FALSE;
    }
  l.count = var_tile[var] / node->tile + (var_tile[var] % node->tile != 0);
  l.tile = node->tile;
  var_tile[var] = node->tile;
  if (l.count <= 1)
    return FALSE;
  l.spatial = node->kind == FFM_NODE_SPATIAL;
  l.fanout_level = l.spatial ? ffm_arch_find_level (a, node->level) : -1;
  l.dimension = node->dimension;
  l.var_name = p->e->rank_var_names[var];
  for (guint acc = 0; acc < FFM_MAX_EINSUM_TENSORS; acc++)
    l.prank[acc] = acc < p->e->n_accesses
      ? ffm_join_plain_rank (w, p->e, acc, var) : -1;
  g_array_append_val (loops, l);
  return TRUE;
}

/* Bits of shared tensor @s's tile at its backing node @i (0 in an
 * unbounded memory, where its size never matters). */
static gboolean
backing_bits (const FfmJoinPmapping *p, const FfmWorkload *w, const FfmArch *a,
              guint i, JoinShared *s, GError **error)
{
  guint64 var_tile[FFM_MAX_EINSUM_RANK_VARS];
  double bits;

  s->bits = 0;
  if (ffm_join_memory_is_unbounded (a, s->level))
    return TRUE;
  /* Each variable at its nearest loop above the node. */
  memcpy (var_tile, p->e->rank_var_bounds, sizeof var_tile);
  for (guint k = 0; k < i; k++)
    if (p->nodes[k].loop >= 0)
      {
        const FfmMappingNode *ln = p->nodes[k].node;
        const char *name = ffm_mapping_node_get_rank_var_for (ln, p->e->name);
        var_tile[ffm_einsum_find_rank_var (p->e, name)] = ln->tile;
      }
  if (!ffm_arch_bits_per_value (a, s->level, w, p->einsum, s->access, &bits, error))
    return FALSE;
  s->bits = (double) ffm_access_tile_values (p->e, s->access, var_tile) * bits;
  return TRUE;
}

/* The shared tensors: backing node, depth, tile bits, copies. */
static gboolean
read_shared (FfmJoinPmapping *p, const FfmWorkload *w, const FfmArch *a,
             GError **error)
{
  for (guint i = 0; i < p->n_nodes; i++)
    {
      const JoinNode *jn = &p->nodes[i];
      const FfmTensor *t;
      JoinShared *s;

      if (jn->tensor < 0 || jn->access < 0)
        continue;
      t = ffm_workload_get_tensor (w, jn->tensor);
      if (!(t->classes & FFM_TENSOR_SHARED))
        continue;
      if (!jn->backing)
        {
          s = (JoinShared *) find_shared (p, jn->tensor);
          if (s != NULL)
            s->copy_depth = MIN (s->copy_depth, jn->depth);
          continue;
        }
      g_return_val_if_fail (p->n_shared < FFM_MAX_EINSUM_TENSORS, FALSE);
      s = &p->shared[p->n_shared++];
      s->tensor = jn->tensor;
      s->access = jn->access;
      s->level = ffm_arch_find_level (a, jn->node->level);
      s->persistent = jn->node->persistent;
      s->depth = jn->depth;
      s->copy_depth = NONE;
      if (!backing_bits (p, w, a, i, s, error))
        return FALSE;
      p->n_fused = MAX (p->n_fused, s->depth);
    }
  return TRUE;
}

FfmJoinPmapping *
ffm_join_pmapping_new (const FfmWorkload *w, const FfmArch *a,
                       const FfmMappingNode *const *nodes, guint n_nodes,
                       GError **error)
{
  g_autoptr (FfmJoinPmapping) p = g_new0 (FfmJoinPmapping, 1);
  g_autoptr (GArray) jnodes = g_array_new (FALSE, TRUE, sizeof (JoinNode));
  g_autoptr (GArray) loops = g_array_new (FALSE, TRUE, sizeof (JoinLoop));
  const FfmMappingNode *last;
  guint64 var_tile[FFM_MAX_EINSUM_RANK_VARS];
  guint64 seen = 0;
  int einsum;

  g_return_val_if_fail (w != NULL && a != NULL && nodes != NULL, NULL);
  last = n_nodes > 0 ? nodes[n_nodes - 1] : NULL;
  einsum = last != NULL && last->kind == FFM_NODE_COMPUTE
    ? ffm_workload_find_einsum (w, last->einsum) : -1;
  if (einsum < 0)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "a pmapping must end in the compute node of an Einsum of "
                   "workload %s", ffm_workload_get_name (w));
      return NULL;
    }
  p->einsum = einsum;
  p->e = ffm_workload_get_einsum (w, einsum);
  memcpy (var_tile, p->e->rank_var_bounds, sizeof var_tile);
  for (guint i = 0; i + 1 < n_nodes; i++)
    {
      const FfmMappingNode *node = nodes[i];
      if (node->kind == FFM_NODE_STORAGE)
        {
          if (!read_storage (p, w, a, node, loops->len, jnodes, &seen, error))
            goto fail;
        }
      else if (node->kind == FFM_NODE_TEMPORAL || node->kind == FFM_NODE_SPATIAL)
        {
          JoinNode jn = { 0 };
          GError *local = NULL;
          int var;
          if (!read_loop (p, w, a, node, var_tile, loops, &var, &local))
            {
              if (local != NULL)
                {
                  g_propagate_error (error, local);
                  goto fail;
                }
              continue;   /* one iteration: dropped */
            }
          jn.node = ffm_mapping_node_copy (node);
          jn.depth = loops->len - 1;
          jn.tensor = -1;
          jn.access = -1;
          jn.loop = loops->len - 1;
          g_array_append_val (jnodes, jn);
        }
      else
        {
          g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                       "Einsum %s: a pmapping has no split and one compute "
                       "node, at its end", p->e->name);
          goto fail;
        }
    }
  {
    JoinNode jn = { ffm_mapping_node_copy (last), loops->len, -1, -1, FALSE, -1 };
    g_array_append_val (jnodes, jn);
  }
  p->n_nodes = jnodes->len;
  p->nodes = (JoinNode *) g_array_free (g_steal_pointer (&jnodes), FALSE);
  p->n_loops = loops->len;
  p->loops = (JoinLoop *) g_array_free (g_steal_pointer (&loops), FALSE);
  /* Loop names and dimensions point into the copied nodes. */
  for (guint i = 0; i < p->n_nodes; i++)
    if (p->nodes[i].loop >= 0)
      p->loops[p->nodes[i].loop].dimension = p->nodes[i].node->dimension;
  if (!read_shared (p, w, a, error))
    return NULL;
  return g_steal_pointer (&p);

fail:
  for (guint i = 0; i < jnodes->len; i++)
    ffm_mapping_node_free (g_array_index (jnodes, JoinNode, i).node);
  return NULL;
}

/* ---- Loop orders ---- */

/* The blocks of fused loops (runs with no storage node between them):
 * block k is loops starts[k] .. starts[k+1]-1. Returns the number. */
static guint
fused_blocks (const FfmJoinPmapping *p, guint *starts)
{
  gboolean cut[FFM_COST_MAX_LOOPS + 1] = { FALSE };
  guint n = 0;

  for (guint i = 0; i < p->n_nodes; i++)
    if (p->nodes[i].loop < 0 && p->nodes[i].depth > 0
        && p->nodes[i].depth < p->n_fused)
      cut[p->nodes[i].depth] = TRUE;
  starts[n++] = 0;
  for (guint j = 1; j < p->n_fused; j++)
    if (cut[j])
      starts[n++] = j;
  starts[n] = p->n_fused;
  return p->n_fused > 0 ? n : 0;
}

/* The loops of [a, b) labelled by variable: label[i - a] = the first loop
 * of the block over the same variable. */
static void
block_labels (const FfmJoinPmapping *p, guint a, guint b, guint *label)
{
  for (guint i = a; i < b; i++)
    {
      label[i - a] = i - a;
      for (guint j = a; j < i; j++)
        if (g_strcmp0 (p->loops[i].var_name, p->loops[j].var_name) == 0)
          {
            label[i - a] = j - a;
            break;
          }
    }
}

/* Orders of @count[0 .. @n) loops per label: the multinomial coefficient
 * (capped at FFM_JOIN_MAX_ORDERS, which no index reaches). */
static guint
orders_of_counts (const guint *count, guint n)
{
  guint64 f = 1;
  guint total = 0;

  for (guint l = 0; l < n; l++)
    for (guint i = 1; i <= count[l]; i++)
      {
        total++;
        /* f * C(total, i) / C(total - 1, i - 1): exact at every step */
        f = f * total / i;
        if (f > FFM_JOIN_MAX_ORDERS)
          return FFM_JOIN_MAX_ORDERS + 1;
      }
  return (guint) f;
}

/* Orders of loops [a, b): every permutation that keeps the loops over one
 * variable in their order (their tiles nest: the outer one's tile holds
 * the inner one's). Swapping two loops with no storage node between them
 * changes no count and no reservation [1, §5.2] whatever their variables;
 * only the order of one variable's loops is fixed by their tiles. */
static guint
block_orders (const FfmJoinPmapping *p, guint a, guint b)
{
  guint label[FFM_COST_MAX_LOOPS], count[FFM_COST_MAX_LOOPS] = { 0 };

  block_labels (p, a, b, label);
  for (guint i = 0; i < b - a; i++)
    count[label[i]]++;
  return MIN (orders_of_counts (count, b - a), FFM_JOIN_MAX_ORDERS);
}

guint
ffm_join_pmapping_get_n_orders (const FfmJoinPmapping *p)
{
  guint starts[FFM_COST_MAX_LOOPS + 1], n = fused_blocks (p, starts);
  guint64 total = 1;

  for (guint k = 0; k < n; k++)
    total = MIN (total * block_orders (p, starts[k], starts[k + 1]),
                 (guint64) FFM_JOIN_MAX_ORDERS);
  return (guint) total;
}

void
ffm_join_pmapping_get_order (const FfmJoinPmapping *p, guint index, guint *order)
{
  guint starts[FFM_COST_MAX_LOOPS + 1], n = fused_blocks (p, starts);

  for (guint i = 0; i < p->n_fused; i++)
    order[i] = i;
  /* Mixed radix over blocks, block 0 the least significant digit; within
   * a block the orders of its variables' labels in lexicographic order
   * (every permutation in lexicographic order when the variables differ),
   * each variable's loops taken in their own order. */
  for (guint k = 0; k < n; k++)
    {
      guint a = starts[k], b = starts[k + 1], f = block_orders (p, a, b);
      guint r = index % f, label[FFM_COST_MAX_LOOPS];
      guint count[FFM_COST_MAX_LOOPS] = { 0 }, next[FFM_COST_MAX_LOOPS];
      index /= f;
      if (f == 1)
        continue;
      block_labels (p, a, b, label);
      for (guint i = 0; i < b - a; i++)
        {
          count[label[i]]++;
          next[i] = 0;
        }
      /* Index 0 is the pmapping's own order: shift by its rank (0 unless
       * one variable's loops are apart, as in m, n, m). */
      {
        guint own = 0, left[FFM_COST_MAX_LOOPS];
        memcpy (left, count, sizeof left);
        for (guint i = 0; i < b - a; i++)
          {
            for (guint l = 0; l < label[i]; l++)
              if (left[l] > 0)
                {
                  left[l]--;
                  own += orders_of_counts (left, b - a);
                  left[l]++;
                }
            left[label[i]]--;
          }
        r = (guint) (((guint64) r + own) % f);
      }
      for (guint i = a; i < b; i++)
        for (guint l = 0; l < b - a; l++)
          {
            guint rest;
            if (count[l] == 0)
              continue;
            count[l]--;
            rest = orders_of_counts (count, b - a);
            if (r < rest)
              {
                /* the next loop of label l, in the block's own order */
                guint j = next[l];
                while (label[j] != l)
                  j++;
                next[l] = j + 1;
                order[i] = a + j;
                break;
              }
            r -= rest;
            count[l]++;
          }
    }
}

FfmJoinPmapping *
ffm_join_pmapping_reorder (const FfmJoinPmapping *p, const FfmWorkload *w,
                           const FfmArch *a, guint index)
{
  guint order[FFM_COST_MAX_LOOPS];
  int node_of_loop[FFM_COST_MAX_LOOPS];
  g_autoptr (GPtrArray) nodes = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  FfmJoinPmapping *out;

  g_return_val_if_fail (p != NULL && index < ffm_join_pmapping_get_n_orders (p), NULL);
  ffm_join_pmapping_get_order (p, index, order);
  for (guint i = 0; i < p->n_nodes; i++)
    if (p->nodes[i].loop >= 0)
      node_of_loop[p->nodes[i].loop] = (int) i;
  /* The loops of a block are consecutive nodes: swap them in place. */
  for (guint i = 0; i < p->n_nodes; i++)
    {
      int l = p->nodes[i].loop;
      guint k = l >= 0 && (guint) l < p->n_fused ? (guint) node_of_loop[order[l]] : i;
      g_ptr_array_add (nodes, p->nodes[k].node);
    }
  out = ffm_join_pmapping_new (w, a, (const FfmMappingNode *const *) nodes->pdata,
                               nodes->len, &error);
  /* It read before; reordering keeps every name and tile. */
  g_return_val_if_fail (out != NULL, NULL);
  return out;
}

/* ---- Chains ---- */

struct _FfmJoinChain {
  const FfmWorkload *w;
  const FfmArch *a;
  guint n_einsums;
  guint n_tensors;
  guint *first_user;            /* [n_tensors] */
  guint *last_user;             /* [n_tensors] */
  guint *producer;              /* [n_tensors]: Einsum, NONE if an input */
  GArray **across;              /* [n_einsums]: shared tensors used before
                                   Einsum x and from x on (guint) */
  guint len;
  const FfmJoinPmapping **p;    /* [n_einsums] */
  guint *split;                 /* [n_einsums]: split[k] = s_k, split[0] = 0 */
};

FfmJoinChain *
ffm_join_chain_new (const FfmWorkload *w, const FfmArch *a)
{
  FfmJoinChain *c;

  g_return_val_if_fail (w != NULL && a != NULL, NULL);
  c = g_new0 (FfmJoinChain, 1);
  c->w = w;
  c->a = a;
  c->n_einsums = ffm_workload_get_n_einsums (w);
  c->n_tensors = ffm_workload_get_n_tensors (w);
  c->first_user = g_new (guint, MAX (c->n_tensors, 1));
  c->last_user = g_new0 (guint, MAX (c->n_tensors, 1));
  for (guint t = 0; t < c->n_tensors; t++)
    c->first_user[t] = NONE;
  for (guint e = 0; e < c->n_einsums; e++)
    {
      const FfmEinsum *einsum = ffm_workload_get_einsum (w, e);
      for (guint acc = 0; acc < einsum->n_accesses; acc++)
        {
          guint t = einsum->accesses[acc].tensor;
          c->first_user[t] = MIN (c->first_user[t], e);
          c->last_user[t] = MAX (c->last_user[t], e);
        }
    }
  c->producer = g_new (guint, MAX (c->n_tensors, 1));
  for (guint t = 0; t < c->n_tensors; t++)
    c->producer[t] = ffm_workload_get_tensor (w, t)->producer;
  c->across = g_new0 (GArray *, MAX (c->n_einsums, 1));
  for (guint x = 0; x < c->n_einsums; x++)
    {
      c->across[x] = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint t = 0; t < c->n_tensors; t++)
        if (c->first_user[t] < x && c->last_user[t] >= x)
          g_array_append_val (c->across[x], t);
    }
  c->p = g_new0 (const FfmJoinPmapping *, MAX (c->n_einsums, 1));
  c->split = g_new0 (guint, MAX (c->n_einsums, 1));
  return c;
}

void
ffm_join_chain_free (FfmJoinChain *c)
{
  if (c == NULL)
    return;
  g_free (c->first_user);
  g_free (c->last_user);
  g_free (c->producer);
  for (guint x = 0; x < c->n_einsums; x++)
    g_array_free (c->across[x], TRUE);
  g_free (c->across);
  g_free (c->p);
  g_free (c->split);
  g_free (c);
}

guint
ffm_join_chain_get_length (const FfmJoinChain *c)
{
  return c->len;
}

const FfmJoinPmapping *
ffm_join_chain_get (const FfmJoinChain *c, guint index)
{
  g_return_val_if_fail (index < c->len, NULL);
  return c->p[index];
}

guint
ffm_join_chain_get_split_depth (const FfmJoinChain *c, guint index)
{
  g_return_val_if_fail (index > 0 && index < c->len, 0);
  return c->split[index];
}

void
ffm_join_chain_pop (FfmJoinChain *c)
{
  g_return_if_fail (c->len > 0);
  c->len--;
}

static gboolean
loops_equal (const JoinLoop *x, const JoinLoop *y)
{
  return x->count == y->count && x->tile == y->tile && x->spatial == y->spatial
    && x->fanout_level == y->fanout_level
    && (!x->spatial || g_strcmp0 (x->dimension, y->dimension) == 0);
}

/* Loops shared by chosen Einsums @j < @k, given split depth @s_k of @k. */
static guint
shared_depth (const FfmJoinChain *c, guint j, guint k, guint s_k)
{
  guint m = s_k;

  for (guint b = j + 1; b < k; b++)
    m = MIN (m, c->split[b]);
  return m;
}

/* s for the next Einsum x: the deepest tensor some chosen Einsum and some
 * Einsum from x on use. */
static guint
next_split_depth (const FfmJoinChain *c, guint x)
{
  guint s = 0;

  for (guint i = 0; i < c->across[x]->len; i++)
    {
      guint t = g_array_index (c->across[x], guint, i);
      const JoinShared *js = find_shared (c->p[c->first_user[t]], t);
      if (js != NULL && !js->persistent)
        s = MAX (s, js->depth);
    }
  return s;
}

/* The same backing for @t in @p (the new pmapping) and @q (a chosen one). */
static gboolean
same_backing (const FfmJoinPmapping *p, const JoinShared *ps,
              const FfmJoinPmapping *q, const JoinShared *qs)
{
  if (ps->level != qs->level || ps->persistent != qs->persistent
      || ps->depth != qs->depth || ps->bits != qs->bits)
    return FALSE;
  for (guint d = 0; d < ps->depth; d++)
    if (p->loops[d].prank[ps->access] < 0
        || p->loops[d].prank[ps->access] != q->loops[d].prank[qs->access])
      return FALSE;
  return TRUE;
}

static FfmJoinStatus
check_tensor (const FfmJoinChain *c, const FfmJoinPmapping *p, guint x,
              guint s, const JoinShared *ps)
{
  guint t = ps->tensor;
  guint f = c->first_user[t], producer = c->producer[t];

  if (f < x)
    {
      const FfmJoinPmapping *q = c->p[f];
      const JoinShared *qs = find_shared (q, t);
      if (qs == NULL || !same_backing (p, ps, q, qs))
        return FFM_JOIN_BACKING;
    }
  /* Data dependency with the producer. */
  if (producer != G_MAXUINT && producer < x && ps->access != p->e->output_access)
    {
      const FfmJoinPmapping *q = c->p[producer];
      guint m = shared_depth (c, producer, x, s);
      for (guint d = 0; d < m; d++)
        if (p->loops[d].prank[ps->access] < 0
            || p->loops[d].prank[ps->access]
               != q->loops[d].prank[q->e->output_access])
          return FFM_JOIN_DEPENDENCY;
    }
  /* Copies on another user's path. */
  for (guint k = f; k < x; k++)
    {
      const JoinShared *ks = find_shared (c->p[k], t);
      guint m;
      if (ks == NULL)
        continue;
      m = shared_depth (c, k, x, s);
      if ((ps->copy_depth != NONE && m > ps->copy_depth)
          || (ks->copy_depth != NONE && m > ks->copy_depth))
        return FFM_JOIN_COPY;
    }
  return FFM_JOIN_OK;
}

FfmJoinStatus
ffm_join_chain_push (FfmJoinChain *c, const FfmJoinPmapping *p)
{
  guint x = c->len, s = 0;

  g_return_val_if_fail (p != NULL, FFM_JOIN_WRONG_EINSUM);
  if (x >= c->n_einsums || p->einsum != x)
    return FFM_JOIN_WRONG_EINSUM;
  if (x > 0)
    {
      const FfmJoinPmapping *q = c->p[x - 1];
      s = next_split_depth (c, x);
      if (q->n_fused < s || p->n_fused < s)
        return FFM_JOIN_LOOPS;
      for (guint d = 0; d < s; d++)
        if (!loops_equal (&p->loops[d], &q->loops[d]))
          return FFM_JOIN_LOOPS;
    }
  for (guint i = 0; i < p->n_shared; i++)
    {
      FfmJoinStatus st = check_tensor (c, p, x, s, &p->shared[i]);
      if (st != FFM_JOIN_OK)
        return st;
    }
  c->p[x] = p;
  c->split[x] = s;
  c->len++;
  return FFM_JOIN_OK;
}

/* ---- The tree ---- */

typedef struct {
  const FfmJoinChain *c;
  GHashTable *emitted;      /* "tensor/level" of shared backing nodes done */
  gboolean **done;          /* [Einsum][node]: own node already emitted */
} Builder;

/* Whether every user of shared tensor @t, backed at depth @a, shares loop
 * a + 1 with the others (its node then sits above that loop). */
static gboolean
users_share_next_loop (const FfmJoinChain *c, guint t, guint a)
{
  for (guint b = c->first_user[t] + 1; b <= c->last_user[t]; b++)
    if (c->split[b] < a + 1)
      return FALSE;
  return TRUE;
}

static gboolean
is_shared_backing (const FfmJoinChain *c, const JoinNode *jn)
{
  const FfmTensor *t;

  if (jn->tensor < 0 || jn->access < 0 || !jn->backing)
    return FALSE;
  t = ffm_workload_get_tensor (c->w, jn->tensor);
  return (t->classes & FFM_TENSOR_SHARED) != 0;
}

/* A node of an unshared tensor in an unbounded memory may go above a
 * split: no other Einsum reads it and it takes no capacity. */
static gboolean
is_hoistable (const FfmJoinChain *c, const JoinNode *jn)
{
  int level;

  if (jn->loop >= 0 || jn->node->kind != FFM_NODE_STORAGE || jn->node->persistent
      || jn->tensor < 0
      || (ffm_workload_get_tensor (c->w, jn->tensor)->classes & FFM_TENSOR_SHARED))
    return FALSE;
  level = ffm_arch_find_level (c->a, jn->node->level);
  return level >= 0 && ffm_join_memory_is_unbounded (c->a, (guint) level);
}

/* Appends storage node @i of Einsum @k once (shared backing nodes once
 * for all their users). */
static void
emit_node (Builder *b, guint k, guint i, GPtrArray *list)
{
  const JoinNode *jn = &b->c->p[k]->nodes[i];

  if (is_shared_backing (b->c, jn))
    {
      g_autofree char *key = g_strdup_printf ("%d/%s", jn->tensor, jn->node->level);
      if (g_hash_table_contains (b->emitted, key))
        return;
      g_hash_table_add (b->emitted, g_steal_pointer (&key));
    }
  else if (b->done[k][i])
    return;
  b->done[k][i] = TRUE;
  g_ptr_array_add (list, ffm_mapping_node_copy (jn->node));
}

/* Einsum @k alone from depth @e on: its path below its e-th loop. */
static void
emit_single (Builder *b, guint k, guint e, GPtrArray *list)
{
  const FfmJoinPmapping *p = b->c->p[k];

  for (guint i = 0; i < p->n_nodes; i++)
    {
      const JoinNode *jn = &p->nodes[i];
      if (jn->loop >= 0 ? (guint) jn->loop < e : jn->depth < e)
        continue;
      if (jn->node->kind == FFM_NODE_STORAGE && jn->node->persistent)
        continue;
      if (jn->node->kind == FFM_NODE_STORAGE)
        emit_node (b, k, i, list);
      else
        g_ptr_array_add (list, ffm_mapping_node_copy (jn->node));
    }
}

typedef struct {
  guint k;
  guint i;
  int level;
} SegmentNode;

/* Storage nodes at depth @e of Einsums [lo, hi], which all share loop e+1:
 * their own nodes, and shared backing nodes whose users all lie here; in
 * memory order (each Einsum's nodes of one memory in its own order), so
 * that no Einsum sees its memories out of order. */
static void
emit_segment (Builder *b, guint lo, guint hi, guint e, GPtrArray *list)
{
  g_autoptr (GArray) seg = g_array_new (FALSE, FALSE, sizeof (SegmentNode));

  for (guint k = lo; k <= hi; k++)
    {
      const FfmJoinPmapping *p = b->c->p[k];
      for (guint i = 0; i < p->n_nodes; i++)
        {
          const JoinNode *jn = &p->nodes[i];
          SegmentNode sn = { k, i, 0 };
          if (jn->loop >= 0 || jn->depth != e || jn->node->kind != FFM_NODE_STORAGE
              || jn->node->persistent)
            continue;
          sn.level = ffm_arch_find_level (b->c->a, jn->node->level);
          g_array_append_val (seg, sn);
        }
    }
  for (guint x = 1; x < seg->len; x++)     /* stable insertion sort */
    for (guint y = x; y > 0 && g_array_index (seg, SegmentNode, y - 1).level
                               > g_array_index (seg, SegmentNode, y).level; y--)
      {
        SegmentNode t = g_array_index (seg, SegmentNode, y);
        g_array_index (seg, SegmentNode, y) = g_array_index (seg, SegmentNode, y - 1);
        g_array_index (seg, SegmentNode, y - 1) = t;
      }
  for (guint x = 0; x < seg->len; x++)
    emit_node (b, g_array_index (seg, SegmentNode, x).k,
               g_array_index (seg, SegmentNode, x).i, list);
}

static gboolean
is_split_level (const Builder *b, const JoinNode *jn, guint e)
{
  return jn->loop < 0 && jn->depth == e && !jn->node->persistent
    && is_shared_backing (b->c, jn) && !users_share_next_loop (b->c, jn->tensor, e);
}

/* Shared backing nodes at depth @e of Einsums [lo, hi] whose users part
 * at this depth: they go right above the split. Nodes of unshared tensors
 * in unbounded memories that come before them in their Einsum's path go
 * there too, keeping each Einsum's order (a copy Einsum's holders must go
 * outer to inner), unless an outer node of the same tensor stays below the
 * split (a bounded memory): hoisted, the inner node would sit above it, and
 * a tensor's nodes go from outer to inner memories. */
static void
emit_split_level (Builder *b, guint lo, guint hi, guint e, GPtrArray *list)
{
  for (guint k = lo; k <= hi; k++)
    {
      const FfmJoinPmapping *p = b->c->p[k];
      gboolean stays_below[FFM_MAX_EINSUM_TENSORS] = { FALSE };
      int last = -1;
      for (guint i = 0; i < p->n_nodes; i++)
        if (is_split_level (b, &p->nodes[i], e))
          last = (int) i;
      for (int i = 0; i <= last; i++)
        {
          const JoinNode *jn = &p->nodes[i];
          gboolean held = jn->access >= 0 && stays_below[jn->access];
          if (is_split_level (b, jn, e)
              || (jn->depth == e && !held && is_hoistable (b->c, jn)))
            emit_node (b, k, (guint) i, list);
          else if (jn->loop < 0 && jn->depth == e && jn->access >= 0
                   && jn->node->kind == FFM_NODE_STORAGE && !jn->node->persistent)
            stays_below[jn->access] = TRUE;
        }
    }
}

/* Loop e of the run [lo, hi]: one node, with each Einsum's variable. */
static void
emit_shared_loop (Builder *b, guint lo, guint hi, guint e, GPtrArray *list)
{
  const FfmJoinChain *c = b->c;
  FfmMappingNode *node = NULL;

  for (guint k = lo; k <= hi; k++)
    {
      const FfmJoinPmapping *p = c->p[k];
      for (guint i = 0; i < p->n_nodes; i++)
        if (p->nodes[i].loop == (int) e)
          {
            const char *var = p->loops[e].var_name;
            if (node == NULL)
              {
                node = ffm_mapping_node_copy (p->nodes[i].node);
                g_clear_pointer (&node->rank_var_einsums, g_strfreev);
                g_clear_pointer (&node->rank_var_names, g_strfreev);
                g_free (node->rank_var);
                node->rank_var = g_strdup (var);
              }
            else if (g_strcmp0 (var, node->rank_var) != 0)
              ffm_mapping_node_set_rank_var_for (node, p->e->name, var);
            break;
          }
    }
  g_ptr_array_add (list, node);
}

static void
emit_run (Builder *b, guint lo, guint hi, guint e, GPtrArray *list)
{
  const FfmJoinChain *c = b->c;
  gboolean splits = FALSE;

  if (lo == hi)
    {
      emit_single (b, lo, e, list);
      return;
    }
  for (guint k = lo + 1; k <= hi; k++)
    splits |= c->split[k] <= e;
  if (!splits)
    {
      emit_segment (b, lo, hi, e, list);
      emit_shared_loop (b, lo, hi, e, list);
      emit_run (b, lo, hi, e + 1, list);
      return;
    }
  emit_split_level (b, lo, hi, e, list);
  {
    FfmMappingNode *seq = ffm_mapping_node_new_sequential ();
    guint start = lo;
    for (guint k = lo + 1; k <= hi + 1; k++)
      if (k > hi || c->split[k] <= e)
        {
          emit_run (b, start, k - 1, e, ffm_mapping_node_add_branch (seq));
          start = k;
        }
    g_ptr_array_add (list, seq);
  }
}

FfmMapping *
ffm_join_chain_build_mapping (const FfmJoinChain *c)
{
  g_autoptr (FfmMapping) m = NULL;
  GPtrArray *root;
  Builder b = { c, NULL, NULL };

  g_return_val_if_fail (c != NULL && c->len == c->n_einsums && c->len > 0, NULL);
  m = ffm_mapping_new ();
  ffm_mapping_set_workload_name (m, ffm_workload_get_name (c->w));
  ffm_mapping_set_architecture_name (m, ffm_arch_get_name (c->a));
  root = ffm_mapping_get_root (m);
  b.emitted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  b.done = g_new (gboolean *, c->len);
  for (guint k = 0; k < c->len; k++)
    b.done[k] = g_new0 (gboolean, c->p[k]->n_nodes);
  /* Persistent tiles live for the whole workload: at the root. */
  for (guint k = 0; k < c->len; k++)
    for (guint i = 0; i < c->p[k]->n_nodes; i++)
      {
        const JoinNode *jn = &c->p[k]->nodes[i];
        if (jn->node->kind == FFM_NODE_STORAGE && jn->node->persistent)
          emit_node (&b, k, i, root);
      }
  emit_run (&b, 0, c->len - 1, 0, root);
  g_hash_table_destroy (b.emitted);
  for (guint k = 0; k < c->len; k++)
    g_free (b.done[k]);
  g_free (b.done);
  return g_steal_pointer (&m);
}

FfmMapping *
ffm_join_build_mapping (const FfmWorkload *w, const FfmArch *a,
                        const GPtrArray *pmappings, GError **error)
{
  g_autoptr (FfmJoinChain) c = NULL;

  g_return_val_if_fail (w != NULL && a != NULL && pmappings != NULL, NULL);
  c = ffm_join_chain_new (w, a);
  if (pmappings->len != c->n_einsums)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "workload %s has %u Einsums, got %u pmappings",
                   ffm_workload_get_name (w), c->n_einsums, pmappings->len);
      return NULL;
    }
  for (guint i = 0; i < pmappings->len; i++)
    {
      const FfmJoinPmapping *p = g_ptr_array_index (pmappings, i);
      FfmJoinStatus st = ffm_join_chain_push (c, p);
      if (st != FFM_JOIN_OK)
        {
          g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                       "the pmapping of Einsum %s cannot join the pmappings "
                       "before it: %s",
                       ffm_workload_get_einsum (w, MIN (i, c->n_einsums - 1))->name,
                       ffm_join_status_to_string (st));
          return NULL;
        }
    }
  return ffm_join_chain_build_mapping (c);
}
