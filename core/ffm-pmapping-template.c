/* ffm-pmapping-template.c: the pmapping templates of one Einsum.
 *
 * A template is a LoopTree path (storage nodes, temporal and spatial loops,
 * the compute node) whose loop tiles are left free for the tile
 * enumeration (ffm-pmapping-tiles.c). Templates are built in three steps
 * [1, §4.2-§4.6]:
 *   1. storage choices: for every memory on the compute unit's path,
 *      outermost first, every set of tensors between what it must keep and
 *      what it may keep (evaluated with what the memories above keep);
 *   2. storage-node orders: memories outer to inner; the outermost memory's
 *      nodes and persistent nodes first, in a fixed order; every order of
 *      the nodes of each other memory;
 *   3. loops: after every group of storage nodes one canonical set of
 *      temporal loops (one per allowed rank variable, in rank-variable
 *      order), spatial loops for every fanout dimension right above the
 *      memories the fanout replicates, and a temporal loop for every rank
 *      variable that would otherwise have none below the fused loops.
 *
 * The mapspace (what brute force in tests/test-pmapping.c enumerates, and
 * what the generator must cover without loss) is: every storage choice;
 * storage nodes ordered outer memory to inner memory, the outermost
 * memory's nodes and persistent nodes above every loop (the outermost
 * memory holds whole tensors; a persistent tile lives for the whole
 * workload); any temporal loops anywhere below them and spatial loops
 * between the memories their fanout separates, in any order, each loop
 * tiling its rank variable by a perfect factor, the innermost loop of each
 * rank variable down to tile 1; no recomputation (a loop above every
 * storage node of a tensor iterates a rank variable that indexes it); at
 * most max_fused_loops loops of more than one iteration above the backing
 * node of a shared tensor, at most max_fused_loops_per_rank_var of them per
 * rank variable. Every canonicalization below comes with its argument that
 * no pmapping of that space is lost that could beat, in every objective
 * and every reservation, all the pmappings kept with the same
 * compatibility.
 *
 * [1] the reference implementation (accelforge), its pmapping generator
 *     (mapper/FFM/_make_pmappings), reservations and the closed form of
 *     the counts. */
#include "ffm-pmapping-private.h"
#include <ffm/ffm-memory-budget.h>
#include <ffm/ffm-format.h>

#include <math.h>
#include <string.h>

#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))

/* ---- Relevancy ---- */

void
template_compute_relevancy (TemplateBuilder *b)
{
  const FfmEinsum *e = b->e;

  for (guint a = 0; a < e->n_accesses; a++)
    {
      const FfmTensor *t = ffm_workload_get_tensor (b->w, e->accesses[a].tensor);
      guint64 direct = 0, any = 0;
      for (guint r = 0; r < t->n_ranks; r++)
        {
          const FfmProjection *p = &e->accesses[a].projections[r];
          for (guint k = 0; k < p->n_terms; k++)
            {
              any |= BIT (p->terms[k].var);
              if (p->n_terms == 1)
                direct |= BIT (p->terms[k].var);
            }
        }
      b->direct[a] = direct;
      b->partial[a] = any & ~direct;
      b->irrelevant[a] = ((BIT (e->n_rank_vars) - 1)) & ~any;
      b->all |= BIT (a);
      if (t->classes & FFM_TENSOR_SHARED)
        b->shared |= BIT (a);
      if (t->classes & (FFM_TENSOR_SHARED | FFM_TENSOR_INTERMEDIATE))
        b->fusable_or_inter |= BIT (a);
      if (t->classes & FFM_TENSOR_PERSISTENT)
        b->persistent |= BIT (a);
    }
  for (guint v = 0; v < e->n_rank_vars; v++)
    if (e->rank_var_bounds[v] > 1)
      b->vars |= BIT (v);
}

/* ---- Loops between storage nodes ----
 *
 * Groups: G0 = the outermost memory's nodes and the persistent nodes (no
 * loop may go between them: mapspace); then one group per other node (for
 * a copy Einsum, one group per memory, as its model merges a memory's
 * nodes). After each group Gi come the temporal loops over the set R below,
 * at most one loop per rank variable, in rank-variable order:
 *
 * (a) One loop per rank variable per gap, order fixed. Inside a gap no
 *     storage node separates the loops, so every holder of every tensor
 *     sees the gap's loops all above it or all below it: counts depend on
 *     the product of each rank variable's iteration counts in the gap
 *     (as in the reference implementation, accelforge), so two loops over one variable merge into one with
 *     the product. Order could matter only through reservations that sink
 *     into the gap (§3.2): a backing node's reservation stays right below
 *     it, and after rule (c) the gap below a non-backing node holds no
 *     loop relevant to its tensor, so its reservation stays right below it
 *     too. For fused loops the order is part of the compatibility: the join
 *     tries the permutations inside each block between reservation stops
 *     (as in the reference implementation, accelforge), and the loops of one gap lie in one block.
 * (b) No recomputation (mapspace): R keeps only variables that index every
 *     tensor not stored yet.
 * (c) Lowering non-backing nodes: no loop in the gap right below a
 *     non-backing node s of tensor t iterates a variable relevant to t.
 *     Such a loop can move just above s: t's tile at s shrinks by its
 *     count n while s is refilled n times as often, so fills, skipped first
 *     fills, write-backs and the parent's reads stay equal (relevant
 *     temporal loop: every factor of §3.4b is unchanged); the child below
 *     sees the same loops; s holds only t, so no other tensor's counts or
 *     reservations move. s's reservation, which sank past relevant loops
 *     only up to the first irrelevant one, now sits below that loop
 *     wherever it was: its tile is no larger and its lifetime no longer
 *     (more loops above it). Placing the moved loop last in the gap above s
 *     lets a reservation sinking from the node above go at least as deep as
 *     before.
 * (d) Raising through irrelevant unfused loops: below every shared
 *     tensor's backing node (the unfused region) no loop in the gap right
 *     above a node s iterates a variable irrelevant to s's tensor t (unless
 *     partially relevant to a tensor of the group above). Moving such a
 *     loop below s leaves t's tile at s unchanged, divides s's refills by
 *     its count, and leaves the child's traffic and the skipped first
 *     fills (irrelevant loops do not multiply them) unchanged: every count
 *     is equal or smaller. s's reservation keeps its tile and, being below
 *     every fused loop either way, its lifetime depth; a reservation
 *     sinking from the node above can only go deeper.
 * (e) A gap that the fused-loop limit allows no loop in is empty.
 *
 * With remainder tiles (ffm-pmapping-imperfect.c: the first loop of more
 * than one iteration of a variable may leave a remainder, the loops below
 * it divide) the moves of (a), (c) and (d) still give equal or smaller
 * counts: merging two adjacent loops of one variable, the inner one
 * dividing the outer one or the outer one of one iteration, leaves the
 * same blocks below; but only where the loops they move keep their order
 * among the variable's loops. With a remainder, spatial then temporal and
 * temporal then spatial are different mappings (7 points over 4 instances
 * in tiles of 2, then 2 steps each; or in 2 steps of 4, then 4 instances:
 * 2 steps either way but other blocks below), and the mapspace with
 * remainders has both in a fanout's gap: its temporal loops, its spatial
 * loops, then a temporal loop over each variable of a spatial loop
 * (place_spatial_loops()). Rule (c) then moves a loop from the gap below a
 * node to that last place, in the same order; but rule (d) would move a
 * temporal loop of the fanout's gap from before the spatial loops to below
 * the next node, after them: it leaves the variables of the gap's spatial
 * loops alone there (@spatial_here).
 *
 * Mapping constraints: (c) and (d) move loops past storage nodes, which
 * changes the tile a node sees and the order of a memory's loops, so they
 * leave alone the rank variables of a fixed tile, and every variable of an
 * Einsum whose loops are ordered (ffm-constraints.h).
 *
 * Loop orders (constraint loop_order at memory L, listed variables
 * v_0 .. v_{n-1}): the unfused gaps at L (those right below a node of L,
 * below every shared backing node) hold, in path order, loops whose listed
 * variables go in the listed order. One template per non-decreasing choice
 * of cuts c_1 <= ... <= c_{G-1} over the G gaps: gap j may iterate the
 * listed variables of index c_j .. c_{j+1} (c_0 = 0, c_G = n-1), inside the
 * gap in listed order after the unlisted ones. Every admitted pmapping
 * has, after merging each gap's loops over one variable (rule (a)), its
 * listed variables non-decreasing along the gaps, hence lies in one of
 * these templates (its other loops at one iteration); no template holds a
 * pmapping that breaks the order.
 */

static guint64
loop_set_after (const TemplateBuilder *b, const TemplateItem *items, const guint *group_start,
                guint n_groups, guint g, guint64 seen, gboolean fused_region,
                guint64 spatial_here)
{
  guint64 r = b->vars, partial_here = 0;

  for (guint a = 0; a < b->e->n_accesses; a++)
    if (!(seen & BIT (a)))
      r &= b->direct[a];                                      /* (b) */
  if (b->opt->max_fused_loops == 0 && (b->shared & ~seen))
    r = 0;                                                    /* (e) */
  for (guint i = group_start[g]; i < group_start[g + 1]; i++)
    {
      partial_here |= b->partial[items[i].access];
      if (!items[i].backing)
        r &= ~(b->direct[items[i].access] & ~b->exempt);      /* (c) */
    }
  if (!fused_region && g + 1 < n_groups)
    for (guint i = group_start[g + 1]; i < group_start[g + 2]; i++)
      r &= ~(b->irrelevant[items[i].access] & ~partial_here
             & ~spatial_here & ~b->exempt);                   /* (d) */
  return r;
}

/* With remainder tiles, the rank variables spatial loops will iterate in
 * the gap after group @g (as place_spatial_loops() places them: after the
 * last storage node above their fanout); 0 without remainder tiles. An
 * architecture expression that fails here fails again, with its error,
 * when the spatial loops are placed. */
static guint64
spatial_vars_after (const TemplateBuilder *b, const TemplateItem *nodes, guint n_nodes,
                    const guint *group_start, guint g)
{
  guint64 vars = 0;

  if (!b->remainders)
    return 0;
  for (guint p = 0; p < b->n_path; p++)
    {
      guint level = b->path[p];
      const FfmLevel *l = ffm_arch_get_level (b->a, level);
      int last = -1;
      guint64 stored = 0;

      if (l->kind != FFM_LEVEL_FANOUT)
        continue;
      for (guint i = 0; i < n_nodes; i++)
        if (nodes[i].level < level)
          last = i;
      if (last < (int) group_start[g] || last >= (int) group_start[g + 1])
        continue;
      for (int i = 0; i <= last; i++)
        stored |= BIT (nodes[i].access);
      for (guint d = 0; d < l->u.fanout.n_dims; d++)
        {
          guint64 allowed, r;
          if (l->u.fanout.dims[d].count <= 1
              || !ffm_arch_fanout_spatial_vars (b->a, level, d, b->w, b->einsum,
                                                &allowed, NULL))
            continue;
          r = b->vars & allowed;
          for (guint a = 0; a < b->e->n_accesses; a++)
            if ((b->fusable_or_inter & BIT (a)) && !(stored & BIT (a)))
              r &= b->direct[a];
          vars |= r;
        }
    }
  return vars;
}

/* The groups of storage nodes (see above): @group_start[0..n_groups]. */
static guint
node_groups (const TemplateBuilder *b, const TemplateItem *nodes, guint n_nodes, guint n_g0,
             guint *group_start)
{
  guint n_groups = 0;

  group_start[n_groups++] = 0;
  for (guint i = n_g0; i < n_nodes; i++)
    {
      /* A copy Einsum's nodes of one memory form one group. */
      if (i > n_g0 && b->e->is_copy && nodes[i].level == nodes[i - 1].level)
        continue;
      group_start[n_groups++] = i;
    }
  group_start[n_groups] = n_nodes;
  return n_groups;
}

/* The loop order (index into ec->orders) that applies to the gap after
 * group @g, or -1: the gap is below every shared backing node and its
 * closest storage node above is at the order's memory. */
static int
gap_order (const TemplateBuilder *b, const TemplateItem *nodes, const guint *group_start,
           guint g, gboolean fused_region)
{
  guint last;

  if (b->ec == NULL || b->ec->n_orders == 0 || fused_region
      || group_start[g + 1] == 0)
    return -1;
  last = nodes[group_start[g + 1] - 1].level;
  for (guint k = 0; k < b->ec->n_orders; k++)
    if (b->ec->orders[k].level == last)
      return (int) k;
  return -1;
}

/* Counts, per loop order, the gaps it applies to (for the plans). */
static void
count_order_gaps (const TemplateBuilder *b, const TemplateItem *nodes, guint n_nodes, guint n_g0,
                  OrderPlan *plan)
{
  guint group_start[MAX_TEMPLATE_NODES + 2], n_groups;
  guint64 seen = 0;
  gboolean fused_region = TRUE;

  memset (plan->n_gaps, 0, sizeof plan->n_gaps);
  n_groups = node_groups (b, nodes, n_nodes, n_g0, group_start);
  for (guint g = 0; g < n_groups; g++)
    {
      int k;
      for (guint i = group_start[g]; i < group_start[g + 1]; i++)
        seen |= BIT (nodes[i].access);
      fused_region = fused_region && (b->shared & ~seen) != 0;
      if ((k = gap_order (b, nodes, group_start, g, fused_region)) >= 0)
        plan->n_gaps[k]++;
    }
}

/* Appends the temporal loops of each gap. @nodes are the ordered storage
 * nodes, @n_g0 of them in G0; @plan (may be NULL without loop orders)
 * says which listed variables each ordered gap iterates. */
static guint
place_temporal_loops (const TemplateBuilder *b, const TemplateItem *nodes, guint n_nodes,
                      guint n_g0, const OrderPlan *plan, TemplateItem *out)
{
  guint group_start[MAX_TEMPLATE_NODES + 2], n_groups, n = 0;
  guint gap_index[FFM_CONSTRAINTS_MAX_ORDERS] = { 0 };
  guint64 seen = 0;
  gboolean fused_region = TRUE;

  n_groups = node_groups (b, nodes, n_nodes, n_g0, group_start);
  for (guint g = 0; g < n_groups; g++)
    {
      guint64 r;
      int k;
      for (guint i = group_start[g]; i < group_start[g + 1]; i++)
        {
          out[n++] = nodes[i];
          seen |= BIT (nodes[i].access);
        }
      fused_region = fused_region && (b->shared & ~seen) != 0;
      r = loop_set_after (b, nodes, group_start, n_groups, g, seen,
                          fused_region,
                          spatial_vars_after (b, nodes, n_nodes, group_start, g));
      k = plan != NULL ? gap_order (b, nodes, group_start, g, fused_region) : -1;
      if (k < 0)
        {
          for (guint v = 0; v < b->e->n_rank_vars; v++)
            if (r & BIT (v))
              out[n++] = (TemplateItem) { .kind = ITEM_TEMPORAL, .var = v };
          continue;
        }
      {
        const FfmLoopOrderConstraint *o = &b->ec->orders[k];
        guint j = gap_index[k]++, G = plan->n_gaps[k];
        guint lo = j == 0 ? 0 : plan->cut[k][j - 1];
        guint hi = j + 1 == G ? o->n_vars - 1 : plan->cut[k][j];
        guint64 listed = 0;
        for (guint x = 0; x < o->n_vars; x++)
          listed |= BIT (o->vars[x]);
        /* the unlisted variables, then the listed ones of the gap's
         * interval, in listed order */
        for (guint v = 0; v < b->e->n_rank_vars; v++)
          if ((r & BIT (v)) && !(listed & BIT (v)))
            out[n++] = (TemplateItem) { .kind = ITEM_TEMPORAL, .var = v };
        for (guint x = lo; x <= hi; x++)
          if (r & BIT (o->vars[x]))
            out[n++] = (TemplateItem) { .kind = ITEM_TEMPORAL, .var = o->vars[x] };
      }
    }
  return n;
}

/* ---- Spatial loops ----
 *
 * For each fanout dimension, one spatial loop per allowed rank variable,
 * placed after the last storage node above the fanout and the loops that
 * follow it, i.e. at the bottom of the only gap between the memories the
 * fanout separates (with storage nodes ordered by memory, it is the gap
 * the mapspace allows). Inside that gap a spatial loop's place among the
 * temporal loops changes no count: in every tensor's view the model moves
 * it to just above the tensor's first holder below the fanout and keeps
 * path order inside a run of loops (as in the reference implementation, accelforge), and products of
 * iteration counts do not depend on order; the reservation of a node above
 * the fanout cannot sink past a spatial loop of another memory's fanout,
 * so the bottom is the place that lets it sink furthest. Allowed rank
 * variables: those the dimension's `reuse` and allowed_rank_vars permit,
 * that index every shared or intermediate tensor not stored above (no
 * recomputation). */

static gboolean
place_spatial_loops (const TemplateBuilder *b, TemplateItem *items, guint *n_items,
                     GError **error)
{
  for (guint p = 0; p < b->n_path; p++)
    {
      guint level = b->path[p];
      const FfmLevel *l = ffm_arch_get_level (b->a, level);
      guint pos = 0;
      guint64 stored = 0, spatial = 0;

      if (l->kind != FFM_LEVEL_FANOUT)
        continue;
      for (guint i = 0; i < *n_items; i++)
        if (items[i].kind == ITEM_STORAGE && items[i].level < level)
          pos = i + 1;
      for (guint i = 0; i < pos; i++)
        if (items[i].kind == ITEM_STORAGE)
          stored |= BIT (items[i].access);
      while (pos < *n_items && items[pos].kind != ITEM_STORAGE)
        pos++;
      for (guint d = 0; d < l->u.fanout.n_dims; d++)
        {
          guint64 allowed, r;
          if (l->u.fanout.dims[d].count <= 1)
            continue;
          if (!ffm_arch_fanout_spatial_vars (b->a, level, d, b->w, b->einsum,
                                             &allowed, error))
            return FALSE;
          r = b->vars & allowed;
          if (b->ec != NULL && level < FFM_CONSTRAINTS_MAX_LEVELS)
            r &= b->ec->spatial[level][d];
          for (guint a = 0; a < b->e->n_accesses; a++)
            if ((b->fusable_or_inter & BIT (a)) && !(stored & BIT (a)))
              r &= b->direct[a];
          for (guint v = 0; v < b->e->n_rank_vars; v++)
            if (r & BIT (v))
              {
                g_assert (*n_items < b->max_items);
                memmove (&items[pos + 1], &items[pos],
                         sizeof (TemplateItem) * (*n_items - pos));
                items[pos] = (TemplateItem) { .kind = ITEM_SPATIAL, .var = v,
                                      .level = level, .dim = d };
                (*n_items)++;
                pos++;
                spatial |= BIT (v);
              }
        }
      /* With remainder tiles, a temporal loop after the spatial loops over
       * each of their variables (allowed by rules (b) and (e)): a fanout
       * spread first, then each instance's steps over its block, which
       * the loops above the spatial ones cannot give (see the rules). With
       * one iteration it changes nothing: no count, and no reservation,
       * since the reservation of a node above the fanout stops above the
       * spatial loops. */
      if (b->remainders)
        {
          guint64 after = spatial;
          for (guint a = 0; a < b->e->n_accesses; a++)
            if (!(stored & BIT (a)))
              after &= b->direct[a];
          if (b->opt->max_fused_loops == 0 && (b->shared & ~stored))
            after = 0;
          for (guint v = 0; v < b->e->n_rank_vars; v++)
            if (after & BIT (v))
              {
                g_assert (*n_items < b->max_items);
                memmove (&items[pos + 1], &items[pos],
                         sizeof (TemplateItem) * (*n_items - pos));
                items[pos] = (TemplateItem) { .kind = ITEM_TEMPORAL, .var = v };
                (*n_items)++;
                pos++;
              }
        }
    }
  return TRUE;
}

/* ---- Missing loops ----
 *
 * Every rank variable needs a loop whose tile goes down to 1. A variable
 * without a temporal loop below the fused loops gets one right below the
 * deepest backing node, after the temporal loops there (as in the reference implementation, accelforge): by
 * rules (c) and (d) a loop over it in any gap the rules exclude can be moved
 * (up past a non-backing node whose tensor it indexes, down past one whose
 * tensor it does not index) without loss until it reaches an allowed gap,
 * and below the deepest backing node it is unfused. */

static void
add_missing_loops (const TemplateBuilder *b, TemplateItem *items, guint *n_items)
{
  int last_backing = -1, last_shared_backing = -1;
  guint pos;

  for (guint i = 0; i < *n_items; i++)
    if (items[i].kind == ITEM_STORAGE && items[i].backing)
      {
        last_backing = i;
        if (b->shared & BIT (items[i].access))
          last_shared_backing = i;
      }
  pos = last_backing + 1;
  while (pos < *n_items && items[pos].kind == ITEM_TEMPORAL)
    pos++;
  for (guint v = 0; v < b->e->n_rank_vars; v++)
    {
      gboolean has = FALSE;
      if (!(b->vars & BIT (v)))
        continue;
      for (guint i = last_shared_backing + 1; i < *n_items && !has; i++)
        has = items[i].kind == ITEM_TEMPORAL && items[i].var == v;
      if (has)
        continue;
      g_assert (*n_items < b->max_items);
      memmove (&items[pos + 1], &items[pos], sizeof (TemplateItem) * (*n_items - pos));
      items[pos] = (TemplateItem) { .kind = ITEM_TEMPORAL, .var = v };
      (*n_items)++;
      pos++;
    }
}

/* ---- Templates ---- */

/* Canonical text of a template: runs of storage nodes with no loop between
 * them are sets (any order of them is the same pmapping: no loop separates
 * their tiles, and each reservation stays at its node or sinks into the gap
 * below the run). */
static char *
template_key (const TemplateItem *items, guint n)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; )
    {
      if (items[i].kind != ITEM_STORAGE)
        {
          g_string_append_printf (s, "%c%u.%u.%u|",
                                  items[i].kind == ITEM_TEMPORAL ? 'T' : 'P',
                                  items[i].var, items[i].level, items[i].dim);
          i++;
          continue;
        }
      {
        guint end = i, keys[MAX_TEMPLATE_NODES], k = 0;
        while (end < n && items[end].kind == ITEM_STORAGE)
          {
            keys[k++] = items[end].level * 64 + items[end].access;
            end++;
          }
        for (guint x = 1; x < k; x++)
          for (guint y = x; y > 0 && keys[y - 1] > keys[y]; y--)
            {
              guint tmp = keys[y];
              keys[y] = keys[y - 1];
              keys[y - 1] = tmp;
            }
        for (guint x = 0; x < k; x++)
          g_string_append_printf (s, "S%u|", keys[x]);
        i = end;
      }
    }
  return g_string_free (s, FALSE);
}

void
ffm_pmapping_template_free (FfmPmappingTemplate *t)
{
  if (t == NULL)
    return;
  ffm_pmapping_model_free (t->model);
  ffm_incumbent_front_unref (t->front);
  g_ptr_array_unref (t->nodes);
  g_free (t->key);
  g_free (t);
}

static gboolean
emit_template (TemplateBuilder *b, const TemplateItem *items, guint n, GError **error)
{
  g_autofree char *key = template_key (items, n);
  FfmPmappingTemplate *t;
  const FfmLevel *cl = ffm_arch_get_level (b->a, b->compute);
  GError *local = NULL;

  if (g_hash_table_contains (b->keys, key))
    return TRUE;
  if (b->opt->max_templates > 0 && b->out->len >= b->opt->max_templates)
    {
      g_hash_table_add (b->keys, key);
      g_ptr_array_add (b->cut_keys, g_steal_pointer (&key));
      b->n_cut++;
      return TRUE;
    }
  if (!ffm_memory_budget_reserve (b->budget, FFM_PMAPPING_TEMPLATE_BYTES))
    {
      g_autofree char *limit = ffm_format_bytes (ffm_memory_budget_get_limit (b->budget));
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY,
                   "Einsum %s: its templates need more memory than the budget of %s "
                   "allows (%u built so far, about %u KiB each); raise the budget "
                   "(--max-memory), cap the templates (--max-templates), or narrow "
                   "the mapspace (keep or forbid tensors per memory in the "
                   "architecture's may_keep, or with mapping constraints)",
                   b->e->name, limit, b->out->len, FFM_PMAPPING_TEMPLATE_BYTES / 1024);
      return FALSE;
    }
  t = g_new0 (FfmPmappingTemplate, 1);
  t->id = b->out->len;
  t->einsum = b->einsum;
  t->compute_level = b->compute;
  t->constraints = b->ec;
  t->nodes = ffm_mapping_node_list_new ();
  for (guint i = 0; i < n; i++)
    {
      const TemplateItem *it = &items[i];
      FfmMappingNode *node = NULL;
      switch (it->kind)
        {
        case ITEM_STORAGE:
          {
            const char *names[2] = {
              ffm_workload_get_tensor (b->w, b->e->accesses[it->access].tensor)->name,
              NULL };
            node = ffm_mapping_node_new_storage (names,
                                                 ffm_arch_get_level (b->a, it->level)->name,
                                                 it->persistent);
            break;
          }
        case ITEM_TEMPORAL:
          node = ffm_mapping_node_new_temporal (b->e->rank_var_names[it->var], 1);
          break;
        case ITEM_SPATIAL:
        default:
          {
            const FfmLevel *f = ffm_arch_get_level (b->a, it->level);
            node = ffm_mapping_node_new_spatial (b->e->rank_var_names[it->var], 1,
                                                 f->name,
                                                 f->u.fanout.dims[it->dim].name);
            break;
          }
        }
      g_ptr_array_add (t->nodes, node);
    }
  g_ptr_array_add (t->nodes, ffm_mapping_node_new_compute (b->e->name, cl->name));
  t->model = ffm_pmapping_model_new (b->w, b->a,
                                     (const FfmMappingNode *const *) t->nodes->pdata,
                                     t->nodes->len, NULL, &local);
  if (t->model == NULL)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "Einsum %s: a generated template does not compile (a bug in "
                   "the pmapping generator): %s", b->e->name, local->message);
      g_error_free (local);
      ffm_pmapping_template_free (t);
      return FALSE;
    }
  t->key = g_steal_pointer (&key);
  if (b->front != NULL)
    t->front = ffm_incumbent_front_ref (b->front);
  g_hash_table_add (b->keys, t->key);
  g_ptr_array_add (b->out, t);
  if (b->out_seeds != NULL)
    {
      /* a template the seeds searched keeps their result */
      gpointer seed_key = NULL, seed = NULL;
      if (b->seed_results != NULL
          && g_hash_table_steal_extended (b->seed_results, t->key, &seed_key, &seed))
        g_free (seed_key);
      g_ptr_array_add (b->out_seeds, seed);
    }
  return TRUE;
}

/* Whether the loops of @items that some loop order constrains go in its
 * order (a missing loop added by add_missing_loops() may not). */
static gboolean
loops_in_order (const TemplateBuilder *b, const TemplateItem *items, guint n)
{
  int last_shared = -1;

  for (guint i = 0; i < n; i++)
    if (items[i].kind == ITEM_STORAGE && items[i].backing
        && (b->shared & BIT (items[i].access)))
      last_shared = (int) i;
  for (guint k = 0; k < b->ec->n_orders; k++)
    {
      const FfmLoopOrderConstraint *o = &b->ec->orders[k];
      int rank[FFM_MAX_EINSUM_RANK_VARS], last = -1, here = -1;
      for (guint v = 0; v < FFM_MAX_EINSUM_RANK_VARS; v++)
        rank[v] = -1;
      for (guint x = 0; x < o->n_vars; x++)
        rank[o->vars[x]] = (int) x;
      for (guint i = 0; i < n; i++)
        {
          if (items[i].kind == ITEM_STORAGE)
            {
              here = (int) items[i].level;
              continue;
            }
          if ((int) i < last_shared || here != (int) o->level
              || items[i].kind != ITEM_TEMPORAL || rank[items[i].var] < 0)
            continue;
          if (rank[items[i].var] < last)
            return FALSE;
          last = rank[items[i].var];
        }
    }
  return TRUE;
}

/* ---- Redundant copies ----
 *
 * (f) A non-backing node s1 of tensor t at memory M1 followed right away
 *     (no loop between them, no fanout between the two memories) by t's
 *     next node s2 at M2: s1's tile is s2's, refilled exactly when s2 is,
 *     and passes the same data both ways. Without s1, s2 is filled from
 *     (and writes back to) s1's parent as often as s1 was, so every count
 *     but s1's own reads and writes is unchanged: energy, M1's traffic and
 *     reservation only fall, latency cannot grow. The template without s1
 *     (the same order) is generated from the choice that does not keep t
 *     in M1, unless the memories' keep and may_keep need t in M1 or react
 *     to it (checked: the choice must stay admitted level by level), or
 *     mapping constraints apply (left alone: their checks see the nodes).
 *     The loops the rules above place are the same in both (s1 is no
 *     backing node and its tensor is s2's). */

/* Whether the path has a fanout of more than one instance strictly
 * between memories @upper and @lower. */
static gboolean
fanout_between (const TemplateBuilder *b, guint upper, guint lower)
{
  for (guint p = 0; p < b->n_path; p++)
    {
      const FfmLevel *l = ffm_arch_get_level (b->a, b->path[p]);
      if (b->path[p] <= upper || b->path[p] >= lower || l->kind != FFM_LEVEL_FANOUT)
        continue;
      for (guint d = 0; d < l->u.fanout.n_dims; d++)
        if (l->u.fanout.dims[d].count > 1)
          return TRUE;
    }
  return FALSE;
}

/* Whether the current storage choice without access @a at memory @level
 * is one choose_level() makes. */
static gboolean
choice_without_admitted (const TemplateBuilder *b, guint level, guint a)
{
  guint64 alt[G_N_ELEMENTS (b->kept)];
  guint start = b->n_path;

  for (guint p = 0; p < b->n_path; p++)
    if (b->path[p] == level)
      start = p;
  if (start == b->n_path)
    return FALSE;
  for (guint p = start; p < b->n_path; p++)
    {
      guint64 must, may, here;
      g_autoptr(GError) error = NULL;
      if (ffm_arch_get_level (b->a, b->path[p])->kind != FFM_LEVEL_MEMORY)
        continue;
      /* as choose_level() sees it: the memories above chosen, the rest not */
      memcpy (alt, b->kept, sizeof alt);
      alt[level] &= ~BIT (a);
      for (guint q = p; q < b->n_path; q++)
        alt[b->path[q]] = 0;
      here = p == start ? b->kept[level] & ~BIT (a) : b->kept[b->path[p]];
      if (!template_level_must_may (b, p, alt, &must, &may, &error)
          || (must & ~here) != 0 || (here & ~(must | may)) != 0)
        return FALSE;
    }
  return TRUE;
}

/* Whether @items (a complete template) has a redundant copy (f). */
static gboolean
has_redundant_copy (const TemplateBuilder *b, const TemplateItem *items, guint n)
{
  if (b->ec != NULL)
    return FALSE;
  for (guint i = 0; i + 1 < n; i++)
    {
      const TemplateItem *s1 = &items[i], *s2 = &items[i + 1];
      if (s1->kind == ITEM_STORAGE && s2->kind == ITEM_STORAGE
          && s1->access == s2->access && !s1->backing
          && !fanout_between (b, s1->level, s2->level)
          && choice_without_admitted (b, s1->level, s1->access))
        return TRUE;
    }
  return FALSE;
}

/* The items a template of @n_nodes storage nodes can have: the nodes;
 * in each gap (one per group of nodes, at most n_nodes + 1) at most one
 * temporal loop per rank variable; per fanout dimension on the path one
 * spatial loop per rank variable, and after each fanout one temporal loop
 * per rank variable (remainder tiles); and the missing loops, one per
 * rank variable. */
static guint
template_max_items (const TemplateBuilder *b, guint n_nodes)
{
  guint R = b->e->n_rank_vars, per_var = n_nodes + 2;

  for (guint p = 0; p < b->n_path; p++)
    {
      const FfmLevel *l = ffm_arch_get_level (b->a, b->path[p]);
      if (l->kind == FFM_LEVEL_FANOUT)
        per_var += l->u.fanout.n_dims + 1;
    }
  return n_nodes + per_var * R;
}

static gboolean
build_with_plan (TemplateBuilder *b, const TemplateItem *nodes, guint n_nodes, guint n_g0,
                 const OrderPlan *plan, GError **error)
{
  g_autofree TemplateItem *items = NULL;
  guint n;

  g_assert (n_nodes <= MAX_TEMPLATE_NODES);
  b->max_items = template_max_items (b, n_nodes);
  items = g_new (TemplateItem, b->max_items);
  n = place_temporal_loops (b, nodes, n_nodes, n_g0, plan, items);
  g_assert (n <= b->max_items);
  if (!place_spatial_loops (b, items, &n, error))
    return FALSE;
  add_missing_loops (b, items, &n);
  if (plan != NULL && !loops_in_order (b, items, n))
    return TRUE;
  if (has_redundant_copy (b, items, n))
    {
      b->n_redundant++;
      return TRUE;
    }
  if (n > FFM_COST_MAX_LOOPS + n_nodes)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "Einsum %s: a template needs more than %d loops",
                   b->e->name, FFM_COST_MAX_LOOPS);
      return FALSE;
    }
  return emit_template (b, items, n, error);
}

/* Every plan of cuts for loop orders @k.. (cut index @j of order @k next). */
static gboolean
build_plans (TemplateBuilder *b, const TemplateItem *nodes, guint n_nodes, guint n_g0,
             OrderPlan *plan, guint k, guint j, GError **error)
{
  guint lo, n_vars;

  if (k == b->ec->n_orders)
    return build_with_plan (b, nodes, n_nodes, n_g0, plan, error);
  n_vars = b->ec->orders[k].n_vars;
  if (plan->n_gaps[k] <= 1 || j + 1 >= plan->n_gaps[k])
    return build_plans (b, nodes, n_nodes, n_g0, plan, k + 1, 0, error);
  lo = j == 0 ? 0 : plan->cut[k][j - 1];
  for (guint c = lo; c < n_vars; c++)
    {
      plan->cut[k][j] = c;
      if (!build_plans (b, nodes, n_nodes, n_g0, plan, k, j + 1, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
template_build_from_order (TemplateBuilder *b, const TemplateItem *nodes, guint n_nodes, guint n_g0,
                           GError **error)
{
  OrderPlan plan;

  if (b->ec == NULL || b->ec->n_orders == 0)
    return build_with_plan (b, nodes, n_nodes, n_g0, NULL, error);
  count_order_gaps (b, nodes, n_nodes, n_g0, &plan);
  return build_plans (b, nodes, n_nodes, n_g0, &plan, 0, 0, error);
}

/* What memory path[@p] must and may keep given the choices @kept of the
 * memories above it (the architecture's keep and may_keep, a copy's one
 * place per chain, the unfused option; not the mapping constraints). */
gboolean
template_level_must_may (const TemplateBuilder *b, guint p, const guint64 *kept, guint64 *must_out,
                         guint64 *may_out, GError **error)
{
  guint level = b->path[p];
  guint64 must, may, above = 0;

  if (!ffm_arch_eval_keep (b->a, level, b->w, b->einsum, kept, &must, &may, error))
    return FALSE;
  for (guint q = 0; q < p; q++)
    above |= kept[b->path[q]];
  if (b->e->is_copy)
    may &= ~above | must;     /* a copy keeps each tensor in one place per memory chain */
  if (b->opt->unfused)
    {
      /* Unfused: every shared tensor is backed in the outermost memory. */
      if ((int) level == b->first_memory)
        must |= b->shared & may;
      else if ((must | may) & b->shared & ~above)
        {
          must &= ~(b->shared & ~above);
          may &= ~(b->shared & ~above);
        }
    }
  *must_out = must;
  *may_out = may;
  return TRUE;
}

