/* loop-nest-simulator.c (tests only): the cost model's independent witness.
 *
 * What it does: it runs one Einsum's loop nest literally, one iteration at
 * a time, for every tensor of the Einsum, and counts every value that
 * moves. It never computes a product of loop counts; every number comes
 * from enumerating events and sets of elements.
 *
 * Semantics (the LoopTree model's definition, as in the reference implementation):
 *
 * 1. The tensor's view. For tensor t, the nest is: all temporal loops, the
 *    holders of t (its storage nodes, then the compute unit), and the
 *    spatial loops, each placed just above the first holder of t whose
 *    level its fanout replicates (the fanout is above that level in the
 *    architecture). Loops between two holders keep their path order.
 *    A loop's iteration i covers [lo + i*tile, lo + (i+1)*tile) cut to the
 *    block of the enclosing loop, the previous loop over the same rank
 *    variable on the path (or [0, bound)): a tile that does not divide its
 *    enclosing block leaves a last, smaller iteration (a remainder tile),
 *    and blocks that are remainders have fewer iterations. The path
 *    defines which combinations of iteration indices exist; the view only
 *    orders them. Each loop runs over the indices of the largest block
 *    (ceil(enclosing tile / tile)), and a combination of the indices of the
 *    loops entered so far is run when some existing combination of all
 *    loops extends it (loops not entered taken at index 0, whose blocks
 *    are the largest): a holder receives one tile per distinct existing
 *    combination of the loops above it in its view.
 *    A spatial iteration runs on its own instance: the instance of a holder
 *    is the list of iteration indices of the spatial loops above it; a
 *    fanout dimension uses the product of its loops' largest iteration
 *    counts.
 *
 * 2. Tiles. When execution reaches a holder, the holder (that instance of
 *    it) receives the tile of t for the current ranges: for each rank of t,
 *    the dense range [min, max] of its index expression over the ranges.
 *    This happens on every arrival, even if the previous tile was the same
 *    data: a storage node refills on every iteration of every loop above it
 *    ("a tile changes" = a new (loop iteration above the node) arrives;
 *    reuse comes only from where nodes sit). The compute unit's tile is the
 *    one point it computes.
 *
 * 3. Transfers. The parent of a holder is the previous holder of t in the
 *    view; the first holder (the backing storage) has none. On arrival the
 *    holder is filled from its parent: each value is written into the
 *    holder (fills; the compute unit's own buffer is not charged) and read
 *    from the parent (reads). If t is the Einsum's output, when the holder's
 *    subtree is done its tile goes back up: read from the holder (drains)
 *    and written into the parent (updates).
 *
 * 4. Multicast and reduction. A fanout dimension broadcasts (or reduces)
 *    only data that does not depend on the position along it: arrivals at
 *    different instances of a holder that happen at the same time (same
 *    temporal iteration indices), from the same parent instance, with
 *    exactly the same tile, and that differ only in spatial loops whose
 *    fanout dimension may reuse t and whose rank variable appears in no
 *    index of t, are one parent transfer: the parent reads (or is updated)
 *    once for the group. (Two instances that happen to need the same tile
 *    through different indices, like p+r on a diagonal, are served
 *    separately.)
 *
 * 5. Initial values. The first time an instance of a holder receives an
 *    output value (ever), the value is its initial zero and carries no
 *    data: if the holder's level skips initial output writes (the compute
 *    unit always does), that fill is not counted, and the parent's read for
 *    it is not counted either if the parent's level skips them too.
 *
 * Counts are totals over instances plus, per level, the busiest instance.
 * Occupancy (reservations) is not simulated. */
#include "loop-nest-simulator.h"

#include <stdio.h>
#include <string.h>

#define SIM_MAX_VIEW 96

typedef struct {
  gboolean is_loop;
  /* loop */
  guint var;
  guint64 tile;
  guint64 n;
  gboolean spatial;
  int fanout;               /* arch level of the fanout */
  int dim;
  guint64 may_reuse;        /* tensors the fanout dimension may reuse */
  guint64 indexes;          /* accesses whose indices use the loop's variable */
  guint order;              /* position on the path */
  guint loop;               /* index among the path's loops */
  int enclosing;            /* path loop enclosing it (same variable), -1 = bound */
  /* holder */
  int level;                /* arch level; the compute level for the compute unit */
  gboolean is_compute;
} SimNode;

typedef struct {
  const FfmWorkload *w;
  const FfmArch *a;
  const FfmEinsum *e;
  guint einsum;
  guint compute;
  int *pos;                 /* [n_levels] path position or -1 */
  GArray *loops;            /* SimNode, path order */
  GArray *storage;          /* SimNode holders, path order, with .var = access */
  guint n_path_nodes;       /* nodes above the compute node */
  SimResult *result;
  gboolean asymmetric;

  /* per view */
  guint access;
  gboolean output;
  SimNode view[SIM_MAX_VIEW];
  guint n_view;
  guint64 lo[FFM_MAX_EINSUM_RANK_VARS];
  guint64 cur[FFM_MAX_EINSUM_RANK_VARS];
  guint64 index[SIM_MAX_VIEW];
  gboolean entered[SIM_MAX_VIEW];   /* per path loop: its index is set */
  guint64 loop_index[SIM_MAX_VIEW]; /* per path loop */
  gboolean reordered;       /* a view entered a loop before one enclosing
                               it over a variable of the tensor */
  guint64 extent[FFM_MAX_TENSOR_RANKS];  /* global extents of the tensor */
  GHashTable *touched;      /* "holder|instance|element" */
  GHashTable *read_groups;  /* group key -> initial count + 1 */
  GHashTable *update_groups;
  GHashTable *unit;         /* "level|access|what|instance" -> count */
  GHashTable *compute_steps;/* instance -> executions */
  guint64 compute_events;
} Sim;

static gboolean
sim_fail (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
sim_fail (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                       message);
  return FALSE;
}

static int
find_var (const FfmEinsum *e, const char *name)
{
  for (guint v = 0; v < e->n_rank_vars; v++)
    if (g_strcmp0 (e->rank_var_names[v], name) == 0)
      return v;
  return -1;
}

static int
find_access (const Sim *s, const char *tensor)
{
  for (guint a = 0; a < s->e->n_accesses; a++)
    if (strcmp (ffm_workload_get_tensor (s->w, s->e->accesses[a].tensor)->name,
                tensor) == 0)
      return a;
  return -1;
}

/* ---- Reading the path ---- */

static gboolean
read_path (Sim *s, const FfmMappingNode *const *nodes, guint n_nodes,
           GError **error)
{
  const FfmMappingNode *leaf = nodes[n_nodes - 1];
  g_autofree guint *path = NULL;
  guint n_path;

  s->einsum = ffm_workload_find_einsum (s->w, leaf->einsum);
  s->compute = ffm_arch_find_level (s->a, leaf->level);
  s->e = ffm_workload_get_einsum (s->w, s->einsum);
  if (s->e->is_copy)
    return sim_fail (error, "the simulator does not do copy Einsums");
  path = ffm_arch_get_compute_path (s->a, s->compute, &n_path);
  s->pos = g_new (int, ffm_arch_get_n_levels (s->a));
  for (guint i = 0; i < ffm_arch_get_n_levels (s->a); i++)
    s->pos[i] = -1;
  for (guint i = 0; i < n_path; i++)
    s->pos[path[i]] = i;

  s->n_path_nodes = n_nodes - 1;
  for (guint k = 0; k + 1 < n_nodes; k++)
    {
      const FfmMappingNode *node = nodes[k];
      SimNode x = { 0 };
      x.order = k;
      if (node->kind == FFM_NODE_STORAGE)
        {
          for (guint t = 0; node->tensors[t] != NULL; t++)
            {
              int a = find_access (s, node->tensors[t]);
              if (a < 0)
                continue;
              x.level = ffm_arch_find_level (s->a, node->level);
              x.var = a;
              g_array_append_val (s->storage, x);
            }
          continue;
        }
      x.is_loop = TRUE;
      x.spatial = node->kind == FFM_NODE_SPATIAL;
      x.tile = node->tile;
      if (find_var (s->e, node->rank_var) < 0)
        return sim_fail (error, "no rank variable %s", node->rank_var);
      x.var = find_var (s->e, node->rank_var);
      if (x.spatial)
        {
          int f = ffm_arch_find_level (s->a, node->level);
          const FfmLevel *l = ffm_arch_get_level (s->a, f);
          if (l->kind != FFM_LEVEL_FANOUT)   /* named by the level below it */
            l = ffm_arch_get_level (s->a, --f);
          x.fanout = f;
          x.dim = -1;
          for (guint d = 0; d < l->u.fanout.n_dims; d++)
            if (strcmp (l->u.fanout.dims[d].name, node->dimension) == 0)
              x.dim = d;
          if (x.dim < 0)
            return sim_fail (error, "no dimension %s", node->dimension);
          if (!ffm_arch_fanout_reuse_masks (s->a, x.fanout, x.dim, s->w, s->einsum,
                                            NULL, &x.may_reuse, error))
            return FALSE;
          for (guint a = 0; a < s->e->n_accesses; a++)
            {
              const FfmTensor *t = ffm_workload_get_tensor (s->w, s->e->accesses[a].tensor);
              for (guint r = 0; r < t->n_ranks; r++)
                for (guint term = 0; term < s->e->accesses[a].projections[r].n_terms; term++)
                  if (s->e->accesses[a].projections[r].terms[term].var == x.var)
                    x.indexes |= G_GUINT64_CONSTANT (1) << a;
            }
        }
      g_array_append_val (s->loops, x);
    }
  /* enclosing loops and largest iteration counts, from the path order */
  for (guint j = 0; j < s->loops->len; j++)
    {
      SimNode *x = &g_array_index (s->loops, SimNode, j);
      guint64 enclosing = s->e->rank_var_bounds[x->var];
      x->loop = j;
      x->enclosing = -1;
      for (guint i = 0; i < j; i++)
        if (g_array_index (s->loops, SimNode, i).var == x->var)
          {
            enclosing = g_array_index (s->loops, SimNode, i).tile;
            x->enclosing = i;
          }
      if (x->tile == 0 || x->tile > enclosing)
        return sim_fail (error, "tile %" G_GUINT64_FORMAT " out of range",
                         x->tile);
      x->n = (enclosing + x->tile - 1) / x->tile;
    }
  return TRUE;
}

/* ---- The view of one tensor (semantics 1) ---- */

/* Puts the spatial loops not yet placed whose fanout replicates @holder's
 * level just above it. */
static guint
place_spatial (Sim *s, gboolean *placed, guint n, int level)
{
  for (guint j = 0; j < s->loops->len; j++)
    {
      const SimNode *sp = &g_array_index (s->loops, SimNode, j);
      if (sp->spatial && !placed[j] && s->pos[sp->fanout] < s->pos[level])
        {
          s->view[n++] = *sp;
          placed[j] = TRUE;
        }
    }
  return n;
}

static void
build_view (Sim *s, guint access)
{
  gboolean placed[SIM_MAX_VIEW] = { FALSE };
  SimNode compute = { 0 };
  guint n = 0;

  for (guint order = 0; order < s->n_path_nodes; order++)
    {
      for (guint j = 0; j < s->loops->len; j++)
        {
          const SimNode *loop = &g_array_index (s->loops, SimNode, j);
          if (loop->order == order && !loop->spatial)
            s->view[n++] = *loop;
        }
      for (guint i = 0; i < s->storage->len; i++)
        {
          const SimNode *h = &g_array_index (s->storage, SimNode, i);
          if (h->order == order && h->var == access)
            {
              n = place_spatial (s, placed, n, h->level);
              s->view[n++] = *h;
            }
        }
    }
  compute.level = s->compute;
  compute.is_compute = TRUE;
  n = place_spatial (s, placed, n, s->compute);
  s->view[n++] = compute;

  /* loops between two holders keep their path order */
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && s->view[j].is_loop && s->view[j - 1].is_loop
                      && s->view[j - 1].order > s->view[j].order; j--)
      {
        SimNode tmp = s->view[j];
        s->view[j] = s->view[j - 1];
        s->view[j - 1] = tmp;
      }
  s->n_view = n;
}

/* ---- Keys ---- */

/* Iteration indices of the loops above view position @pos, of the kind
 * asked: spatial ones (an instance), temporal ones (a time). */
static void
append_indices (const Sim *s, guint pos, gboolean spatial, GString *key)
{
  for (guint i = 0; i < pos; i++)
    if (s->view[i].is_loop && s->view[i].spatial == spatial)
      g_string_append_printf (key, "%u:%" G_GUINT64_FORMAT ",", i, s->index[i]);
}

static char *
instance_key (const Sim *s, guint pos)
{
  GString *key = g_string_new (NULL);
  g_string_append_printf (key, "h%u|", pos);
  append_indices (s, pos, TRUE, key);
  return g_string_free (key, FALSE);
}

/* The parent transfer a holder's arrival belongs to (semantics 4). */
static char *
group_key (const Sim *s, guint parent, guint pos, const guint64 *min,
           const guint64 *max, guint n_ranks)
{
  GString *key = g_string_new (NULL);
  g_autofree char *parent_instance = instance_key (s, parent);

  g_string_append_printf (key, "%s|h%u|t", parent_instance, pos);
  append_indices (s, pos, FALSE, key);
  g_string_append (key, "|s");
  for (guint i = parent + 1; i < pos; i++)
    {
      const SimNode *x = &s->view[i];
      if (!x->is_loop || !x->spatial)
        continue;
      if (!(x->may_reuse & (G_GUINT64_CONSTANT (1) << s->access))
          || (x->indexes & (G_GUINT64_CONSTANT (1) << s->access)))
        g_string_append_printf (key, "%u:%" G_GUINT64_FORMAT ",", i, s->index[i]);
    }
  g_string_append (key, "|box");
  for (guint r = 0; r < n_ranks; r++)
    g_string_append_printf (key, "%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT ",",
                            min[r], max[r]);
  return g_string_free (key, FALSE);
}

static void
add_unit (Sim *s, int level, const char *what, const char *instance,
          guint64 amount)
{
  char *key = g_strdup_printf ("%d|%u|%s|%s", level, s->access, what, instance);
  guint64 *count = g_hash_table_lookup (s->unit, key);

  if (count == NULL)
    {
      count = g_new0 (guint64, 1);
      g_hash_table_insert (s->unit, key, count);
    }
  else
    g_free (key);
  *count += amount;
}

/* ---- Execution (semantics 2-5) ---- */

static gboolean
level_skips (const Sim *s, const SimNode *h)
{
  if (h->is_compute)
    return TRUE;
  return ffm_arch_get_level (s->a, h->level)->u.memory.skip_initial_output_write;
}

/* The tile of the tensor for the current ranges: per rank [min, max]. */
static guint64
current_tile (const Sim *s, guint64 *min, guint64 *max)
{
  const FfmTensorAccess *acc = &s->e->accesses[s->access];
  const FfmTensor *t = ffm_workload_get_tensor (s->w, acc->tensor);
  guint64 size = 1;

  for (guint r = 0; r < t->n_ranks; r++)
    {
      const FfmProjection *p = &acc->projections[r];
      min[r] = max[r] = (guint64) p->offset;
      for (guint k = 0; k < p->n_terms; k++)
        {
          guint v = p->terms[k].var;
          guint64 c = (guint64) p->terms[k].coefficient;
          min[r] += c * s->lo[v];
          max[r] += c * (s->lo[v] + s->cur[v] - 1);
        }
      size *= max[r] - min[r] + 1;
    }
  return size;
}

/* Marks the tile's elements as received by this instance; returns how many
 * it had never received. */
static guint64
receive (Sim *s, const char *instance, const guint64 *min, const guint64 *max,
         guint n_ranks)
{
  guint64 coord[FFM_MAX_TENSOR_RANKS];
  guint64 fresh = 0;

  memcpy (coord, min, sizeof (guint64) * n_ranks);
  for (;;)
    {
      guint64 linear = 0;
      char *key;
      for (guint r = 0; r < n_ranks; r++)
        linear = linear * s->extent[r] + coord[r];
      key = g_strdup_printf ("%s|%" G_GUINT64_FORMAT, instance, linear);
      if (!g_hash_table_contains (s->touched, key))
        {
          fresh++;
          g_hash_table_add (s->touched, key);
        }
      else
        g_free (key);
      /* next coordinate in the box */
      {
        int r = (int) n_ranks - 1;
        while (r >= 0 && coord[r] == max[r])
          {
            coord[r] = min[r];
            r--;
          }
        if (r < 0)
          break;
        coord[r]++;
      }
    }
  return fresh;
}

static void run_from (Sim *s, guint pos);

static int
parent_of (const Sim *s, guint pos)
{
  for (int i = (int) pos - 1; i >= 0; i--)
    if (!s->view[i].is_loop)
      return i;
  return -1;
}

static void
arrive (Sim *s, guint pos)
{
  const SimNode *h = &s->view[pos];
  guint n_ranks = ffm_workload_get_tensor (s->w, s->e->accesses[s->access].tensor)->n_ranks;
  guint64 min[FFM_MAX_TENSOR_RANKS], max[FFM_MAX_TENSOR_RANKS];
  guint64 size = current_tile (s, min, max);
  int parent = parent_of (s, pos);
  g_autofree char *instance = instance_key (s, pos);
  g_autofree char *parent_instance = parent >= 0 ? instance_key (s, parent) : NULL;
  guint64 fresh = 0;
  SimCounts *pc = NULL, *hc = NULL;

  if (h->is_compute)
    {
      guint64 *steps = g_hash_table_lookup (s->compute_steps, instance);
      if (steps == NULL)
        {
          steps = g_new0 (guint64, 1);
          g_hash_table_insert (s->compute_steps, g_strdup (instance), steps);
        }
      (*steps)++;
      s->compute_events++;
    }
  else
    hc = sim_result_get (s->result, h->level, s->access);

  if (parent >= 0)
    {
      const SimNode *p = &s->view[parent];
      g_autofree char *group = group_key (s, parent, pos, min, max, n_ranks);
      gboolean skip_here = s->output && level_skips (s, h);
      gboolean skip_parent = skip_here && level_skips (s, p);
      gpointer seen;

      pc = sim_result_get (s->result, p->level, s->access);
      if (s->output)
        fresh = receive (s, instance, min, max, n_ranks);
      if (hc != NULL)
        {
          guint64 written = size - (skip_here ? fresh : 0);
          hc->fills += written;
          add_unit (s, h->level, "fills", instance, written);
        }
      seen = g_hash_table_lookup (s->read_groups, group);
      if (seen == NULL)
        {
          guint64 read = size - (skip_parent ? fresh : 0);
          pc->reads += read;
          add_unit (s, p->level, "reads", parent_instance, read);
          g_hash_table_insert (s->read_groups, g_strdup (group),
                               GSIZE_TO_POINTER (fresh + 1));
        }
      else if (GPOINTER_TO_SIZE (seen) != fresh + 1)
        s->asymmetric = TRUE;
    }

  if (!h->is_compute)
    run_from (s, pos + 1);

  if (parent >= 0 && s->output)
    {
      g_autofree char *group = group_key (s, parent, pos, min, max, n_ranks);
      if (hc != NULL)
        {
          hc->drains += size;
          add_unit (s, h->level, "drains", instance, size);
        }
      if (!g_hash_table_contains (s->update_groups, group))
        {
          pc->updates += size;
          add_unit (s, s->view[parent].level, "updates", parent_instance, size);
          g_hash_table_add (s->update_groups, g_steal_pointer (&group));
        }
    }
}

static gboolean
var_indexes (const Sim *s, guint var)
{
  const FfmTensorAccess *acc = &s->e->accesses[s->access];
  const FfmTensor *t = ffm_workload_get_tensor (s->w, acc->tensor);

  for (guint r = 0; r < t->n_ranks; r++)
    for (guint k = 0; k < acc->projections[r].n_terms; k++)
      if (acc->projections[r].terms[k].var == var)
        return TRUE;
  return FALSE;
}

/* Walks the path loops over @var in path order with the indices entered
 * (those not entered at 0 where an entered loop lies below them, else the
 * walk stops there), setting s->lo[var] and s->cur[var] to the current
 * block. FALSE when an entered index lies beyond its block: no existing
 * combination extends the indices entered. */
static gboolean
place_var (Sim *s, guint var)
{
  guint64 lo = 0, cur = s->e->rank_var_bounds[var];
  int last_entered = -1;

  for (guint j = 0; j < s->loops->len; j++)
    {
      const SimNode *x = &g_array_index (s->loops, SimNode, j);
      if (x->var == var && s->entered[j])
        last_entered = j;
    }
  for (int j = 0; j <= last_entered; j++)
    {
      const SimNode *x = &g_array_index (s->loops, SimNode, j);
      guint64 i;
      if (x->var != var)
        continue;
      i = s->entered[j] ? s->loop_index[j] : 0;
      if (i * x->tile >= cur)
        return FALSE;
      lo += i * x->tile;
      cur = MIN (x->tile, cur - i * x->tile);
    }
  s->lo[var] = lo;
  s->cur[var] = cur;
  return TRUE;
}

static void
run_from (Sim *s, guint pos)
{
  const SimNode *x = &s->view[pos];

  if (!x->is_loop)
    {
      arrive (s, pos);
      return;
    }
  /* A loop over a variable of the tensor entered while the loop enclosing
   * it is not: the view moved a spatial loop across it (the model refuses
   * such mappings). */
  if (x->enclosing >= 0 && !s->entered[x->enclosing] && var_indexes (s, x->var))
    s->reordered = TRUE;
  s->entered[x->loop] = TRUE;
  for (guint64 i = 0; i < x->n; i++)
    {
      s->index[pos] = i;
      s->loop_index[x->loop] = i;
      if (place_var (s, x->var))
        run_from (s, pos + 1);
    }
  s->entered[x->loop] = FALSE;
  place_var (s, x->var);
}

static void
simulate_tensor (Sim *s, guint access)
{
  const FfmTensorAccess *acc = &s->e->accesses[access];
  const FfmTensor *t = ffm_workload_get_tensor (s->w, acc->tensor);

  s->access = access;
  s->output = access == s->e->output_access;
  for (guint r = 0; r < t->n_ranks; r++)
    {
      const FfmProjection *p = &acc->projections[r];
      s->extent[r] = (guint64) p->offset + 1;
      for (guint k = 0; k < p->n_terms; k++)
        s->extent[r] += (guint64) p->terms[k].coefficient
          * (s->e->rank_var_bounds[p->terms[k].var] - 1);
    }
  for (guint v = 0; v < s->e->n_rank_vars; v++)
    {
      s->lo[v] = 0;
      s->cur[v] = s->e->rank_var_bounds[v];
    }
  memset (s->entered, 0, sizeof s->entered);
  build_view (s, access);
  for (guint i = 0; i < s->n_view; i++)
    if (!s->view[i].is_loop && !s->view[i].is_compute)
      sim_result_get (s->result, s->view[i].level, access)->held = TRUE;
  s->compute_events = 0;
  g_hash_table_remove_all (s->compute_steps);
  g_hash_table_remove_all (s->touched);       /* keys are per view */
  g_hash_table_remove_all (s->read_groups);
  g_hash_table_remove_all (s->update_groups);
  run_from (s, 0);
}

/* The busiest instance of each (level, access, what). */
static void
collect_units (Sim *s)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, s->unit);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      int level;
      guint access;
      char what[16];
      guint64 count = *(guint64 *) value;
      SimCounts *c;
      guint64 *slot;

      g_assert_cmpint (sscanf (key, "%d|%u|%15[a-z]|", &level, &access, what), ==, 3);
      c = sim_result_get (s->result, level, access);
      slot = strcmp (what, "reads") == 0 ? &c->unit_reads
        : strcmp (what, "fills") == 0 ? &c->unit_fills
        : strcmp (what, "drains") == 0 ? &c->unit_drains : &c->unit_updates;
      *slot = MAX (*slot, count);
    }
}

SimResult *
sim_run (const FfmWorkload *workload, const FfmArch *arch,
         const FfmMappingNode *const *nodes, guint n_nodes, GError **error)
{
  Sim s = { 0 };
  SimResult *result = NULL;
  gboolean ok;

  s.w = workload;
  s.a = arch;
  s.loops = g_array_new (FALSE, TRUE, sizeof (SimNode));
  s.storage = g_array_new (FALSE, TRUE, sizeof (SimNode));
  ok = read_path (&s, nodes, n_nodes, error);
  if (ok && s.loops->len + s.storage->len + 1 > SIM_MAX_VIEW)
    ok = sim_fail (error, "path too long for the simulator");
  if (ok)
    {
      result = g_new0 (SimResult, 1);
      result->n_levels = ffm_arch_get_n_levels (arch);
      result->n_accesses = s.e->n_accesses;
      result->counts = g_new0 (SimCounts, result->n_levels * result->n_accesses);
      result->fanout_used = g_new0 (guint64, result->n_levels * FFM_MAX_FANOUT_DIMS);
      s.result = result;
      s.touched = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      s.read_groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      s.update_groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      s.unit = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      s.compute_steps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      for (guint a = 0; a < s.e->n_accesses; a++)
        {
          GHashTableIter iter;
          gpointer value;
          simulate_tensor (&s, a);
          if (a == 0)
            {
              result->operations = s.compute_events;
              g_hash_table_iter_init (&iter, s.compute_steps);
              while (g_hash_table_iter_next (&iter, NULL, &value))
                result->steps = MAX (result->steps, *(guint64 *) value);
            }
        }
      collect_units (&s);
      /* instances used per fanout dimension: product of its loops' counts */
      for (guint j = 0; j < s.loops->len; j++)
        {
          const SimNode *x = &g_array_index (s.loops, SimNode, j);
          guint64 *used;
          if (!x->spatial)
            continue;
          used = &result->fanout_used[x->fanout * FFM_MAX_FANOUT_DIMS + x->dim];
          *used = (*used == 0 ? 1 : *used) * x->n;
        }
      if (s.asymmetric || s.reordered)
        {
          ok = sim_fail (error, s.asymmetric
                         ? "a multicast group disagrees about initial values"
                         : "a view enters a loop over a variable of the tensor "
                         "before the loop that encloses it");
          sim_result_free (g_steal_pointer (&result));
        }
      g_hash_table_unref (s.touched);
      g_hash_table_unref (s.read_groups);
      g_hash_table_unref (s.update_groups);
      g_hash_table_unref (s.unit);
      g_hash_table_unref (s.compute_steps);
    }
  g_free (s.pos);
  g_array_unref (s.loops);
  g_array_unref (s.storage);
  return ok ? result : NULL;
}

void
sim_result_free (SimResult *result)
{
  if (result == NULL)
    return;
  g_free (result->counts);
  g_free (result->fanout_used);
  g_free (result);
}
