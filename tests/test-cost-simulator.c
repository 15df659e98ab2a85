/* test-cost-simulator.c: the analytical cost model must equal the literal
 * loop-nest simulator (loop-nest-simulator.c) on every count, for hundreds
 * of random valid mappings of random small workloads on random
 * architectures: matmuls, chains of 2-3 matmuls fused through an on-chip
 * intermediate under a Sequential split, convolutions (p+r and 2p+r
 * indexing), element-wise Einsums, spatial fanouts with and without
 * multicast, random skip flags and bits per action. Fixed seeds. */
#include <ffm/ffm.h>
#include <math.h>
#include <string.h>

#include "loop-nest-simulator.h"

/* TUNING: cases per kind; 3 x 220 runs in a few seconds and gives well over
 * 500 compared mappings (each fused chain compares every Einsum). */
#define CASES_PER_KIND 220
/* TUNING: probability that a spatial loop is put somewhere random instead
 * of just above the first storage node its fanout replicates (the model
 * then may refuse the mapping; such cases are counted, not compared). */
#define P_RANDOM_SPATIAL 0.15
/* TUNING: probability that storage nodes are ordered per tensor only (not
 * by level across tensors), which the mapper allows with
 * force_memory_hierarchy_order off; spatial loops then move in views. */
#define P_SHUFFLED_STORAGE 0.2
/* TUNING: the same with remainder tiles, where loops of one variable that
 * a view reorders count differently (0.4 and 0.5 make about a third of the
 * mappings move a spatial loop in some view). */
#define P_RANDOM_SPATIAL_IMPERFECT 0.4
#define P_SHUFFLED_STORAGE_IMPERFECT 0.5

typedef struct {
  guint compared;           /* Einsum paths compared */
  guint refused;            /* mappings the model refused (spatial reorder) */
  guint with_remainder;     /* compared paths with a tile that does not divide */
} Stats;

/* ---- Random architectures ---- */

static double
pick (GRand *r, const double *values, guint n)
{
  return values[g_rand_int_range (r, 0, n)];
}

static void
add_random_memory (GRand *r, FfmArch *a, const char *name)
{
  static const double energies[] = { 1, 2, 3, 5 };
  static const double bandwidths[] = { 1, 2, 4, INFINITY };
  static const double bits_per_action[] = { 1, 1, 2, 8 };
  FfmLevel *l = ffm_arch_add_memory (a, name);

  l->u.memory.size = INFINITY;
  l->u.memory.read_energy = pick (r, energies, G_N_ELEMENTS (energies));
  l->u.memory.write_energy = pick (r, energies, G_N_ELEMENTS (energies));
  l->u.memory.read_bandwidth = pick (r, bandwidths, G_N_ELEMENTS (bandwidths));
  l->u.memory.write_bandwidth = pick (r, bandwidths, G_N_ELEMENTS (bandwidths));
  l->u.memory.ports = g_rand_boolean (r) ? FFM_PORTS_SHARED : FFM_PORTS_SEPARATE;
  l->u.memory.bits_per_action = pick (r, bits_per_action, G_N_ELEMENTS (bits_per_action));
  l->u.memory.skip_initial_output_write = g_rand_double (r) < 0.8;
  l->leak_power = g_rand_boolean (r) ? 0 : 0.5;
}

static void
add_random_fanout (GRand *r, FfmArch *a, const char *name)
{
  static const char *const reuse_sets[] = { NULL, NULL, "nothing", "inputs",
                                            "outputs", "all" };
  FfmLevel *l = ffm_arch_add_fanout (a, name);
  guint n_dims = g_rand_double (r) < 0.7 ? 1 : 2;

  for (guint d = 0; d < n_dims; d++)
    {
      g_autofree char *dim_name = g_strdup_printf ("d%u", d);
      FfmFanoutDim *dim = ffm_level_add_fanout_dim (l, dim_name,
                                                    g_rand_int_range (r, 2, 5));
      const char *set = reuse_sets[g_rand_int_range (r, 0, G_N_ELEMENTS (reuse_sets))];
      dim->may_reuse = g_strdup (set);
    }
}

/* MainMemory, then optionally a fanout, GLB, a fanout, LocalBuffer, a
 * fanout, then the MAC (2 to 4 memories and fanouts in all). */
static FfmArch *
random_arch (GRand *r)
{
  FfmArch *a = ffm_arch_new ("random");
  g_autoptr(GError) error = NULL;
  gboolean glb = g_rand_double (r) < 0.8, lb = g_rand_double (r) < 0.5;
  guint fanouts = 0;
  FfmLevel *mac;

  add_random_memory (r, a, "MainMemory");
  if (glb)
    {
      if (g_rand_double (r) < 0.25)
        {
          add_random_fanout (r, a, "F0");
          fanouts++;
        }
      add_random_memory (r, a, "GlobalBuffer");
    }
  if (lb)
    {
      if (g_rand_double (r) < 0.5)
        {
          add_random_fanout (r, a, "F1");
          fanouts++;
        }
      add_random_memory (r, a, "LocalBuffer");
    }
  if (fanouts < 2 && g_rand_double (r) < 0.6)
    add_random_fanout (r, a, "F2");
  mac = ffm_arch_add_compute (a, "MAC");
  mac->u.compute.energy = 1;
  mac->u.compute.throughput = 1;
  mac->leak_power = g_rand_boolean (r) ? 0 : 0.25;
  g_assert_true (ffm_arch_finish (a, &error));
  g_assert_no_error (error);
  return a;
}

/* ---- Random workloads ---- */

typedef enum {
  KIND_SINGLE,              /* one Einsum of any shape */
  KIND_CHAIN,               /* 2-3 matmuls, fused */
} WorkloadKind;

static int
pick_int (GRand *r, const int *values, guint n)
{
  return values[g_rand_int_range (r, 0, n)];
}

static FfmWorkload *
random_single_workload (GRand *r, gboolean imperfect)
{
  static const int perfect_sizes[] = { 1, 2, 3, 4, 6 };
  static const int imperfect_sizes[] = { 1, 3, 4, 5, 7 };
  const int *small = imperfect ? imperfect_sizes : perfect_sizes;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  FfmWorkload *w;

  switch (g_rand_int_range (r, 0, 5))
    {
    case 0:
    case 1:
      text = g_strdup_printf (
        "{\"ffm_workload\": 1, \"name\": \"mm\", \"ranks\": {\"M\": %d, \"K\": %d, \"N\": %d},"
        " \"bits_per_value\": {\"all\": %d},"
        " \"einsums\": [\"Z[m,n] = A[m,k] * B[k,n]\"]}",
        pick_int (r, small, 5), pick_int (r, small, 5), pick_int (r, small, 5),
        g_rand_boolean (r) ? 8 : 16);
      break;
    case 2:
      {
        int p = g_rand_int_range (r, 2, 5), rr = g_rand_int_range (r, 1, 4);
        text = g_strdup_printf (
          "{\"ffm_workload\": 1, \"name\": \"conv\","
          " \"ranks\": {\"K\": %d, \"P\": %d, \"C\": %d, \"R\": %d, \"H\": %d},"
          " \"bits_per_value\": {\"all\": 8},"
          " \"einsums\": [\"O[k,p] = I[c,H:p+r] * W[k,c,r]\"]}",
          g_rand_int_range (r, 1, 3), p, g_rand_int_range (r, 1, 3), rr, p + rr - 1);
        break;
      }
    case 3:
      {
        int p = g_rand_int_range (r, 2, 4), rr = g_rand_int_range (r, 1, 4);
        text = g_strdup_printf (
          "{\"ffm_workload\": 1, \"name\": \"strided\","
          " \"ranks\": {\"P\": %d, \"R\": %d, \"H\": %d, \"C\": %d},"
          " \"bits_per_value\": {\"all\": 8},"
          " \"einsums\": [\"O[c,p] = I[H:2*p+r] * W[r,c]\"]}",
          p, rr, 2 * (p - 1) + rr, g_rand_int_range (r, 1, 3));
        break;
      }
    default:
      text = g_strdup_printf (
        "{\"ffm_workload\": 1, \"name\": \"elementwise\", \"ranks\": {\"M\": %d, \"N\": %d},"
        " \"bits_per_value\": {\"all\": 8},"
        " \"einsums\": [\"B[m,n] = A[m,n]\"]}",
        pick_int (r, small, 5), pick_int (r, small, 5));
      break;
    }
  w = ffm_workload_load_from_data (text, "random", NULL, &error);
  g_assert_no_error (error);
  return w;
}

static FfmWorkload *
random_chain_workload (GRand *r, gboolean imperfect)
{
  static const int perfect_sizes[] = { 1, 2, 3, 4 };
  static const int imperfect_sizes[] = { 2, 3, 4, 5 };
  const int *small = imperfect ? imperfect_sizes : perfect_sizes;
  int n = g_rand_int_range (r, 2, 4);
  GString *text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  FfmWorkload *w;

  g_string_append_printf (text,
                          "{\"ffm_workload\": 1, \"name\": \"chain\", \"ranks\": {\"M\": %d",
                          pick_int (r, imperfect ? (const int[]) { 3, 5, 7 }
                                    : (const int[]) { 2, 4, 6 }, 3));
  for (int i = 0; i <= n; i++)
    g_string_append_printf (text, ", \"N%d\": %d", i, pick_int (r, small, 4));
  g_string_append (text, "}, \"bits_per_value\": {\"all\": 8}, \"einsums\": [");
  for (int i = 0; i < n; i++)
    g_string_append_printf (text, "%s\"T%d[m,n%d] = T%d[m,n%d] * W%d[n%d,n%d]\"",
                            i ? ", " : "", i + 1, i + 1, i, i, i, i, i + 1);
  g_string_append (text, "]}");
  w = ffm_workload_load_from_data (text->str, "chain", NULL, &error);
  g_assert_no_error (error);
  g_string_free (text, TRUE);
  return w;
}

/* ---- Random mappings ---- */

typedef struct {
  GRand *r;
  const FfmWorkload *w;
  const FfmArch *a;
  guint *path;              /* the MAC's path */
  guint n_path;
  gboolean imperfect;       /* tiles need not divide their enclosing tile */
} Gen;

static int
path_pos (const Gen *g, guint level)
{
  for (guint i = 0; i < g->n_path; i++)
    if (g->path[i] == level)
      return i;
  return -1;
}

/* One loop before placement. */
typedef struct {
  guint var;
  gboolean spatial;
  guint fanout;
  guint dim;
  guint gap;                /* before storage node @gap (n_storage: before compute) */
  double tiebreak;
  guint64 n;
  guint64 tile;
} GenLoop;

static gint
compare_gen_loops (gconstpointer a, gconstpointer b)
{
  const GenLoop *x = a, *y = b;
  if (x->gap != y->gap)
    return x->gap < y->gap ? -1 : 1;
  return x->tiebreak < y->tiebreak ? -1 : x->tiebreak > y->tiebreak;
}

/* Splits @total over the loops of one variable (in position order); spatial
 * loops get at most @cap[k]. Every variable has a temporal loop, which takes
 * what the spatial ones cannot. */
static void
factorize (GRand *r, guint64 total, GenLoop **loops, guint n, const guint64 *cap)
{
  guint64 rest = total;
  guint64 prime = 2;
  g_autofree guint *temporal = g_new (guint, n);
  guint n_temporal = 0;

  for (guint k = 0; k < n; k++)
    {
      loops[k]->n = 1;
      if (!loops[k]->spatial)
        temporal[n_temporal++] = k;
    }
  g_assert_cmpuint (n_temporal, >, 0);
  while (rest > 1)
    {
      guint k;
      while (rest % prime != 0)
        prime++;
      rest /= prime;
      k = g_rand_int_range (r, 0, n);
      if (loops[k]->spatial && loops[k]->n * prime > cap[k])
        k = temporal[g_rand_int_range (r, 0, n_temporal)];
      loops[k]->n *= prime;
    }
  for (guint k = 0; k < n; k++)
    {
      total /= loops[k]->n;
      loops[k]->tile = total;
    }
}

/* Random tiles that need not divide (remainder tiles): each loop of one
 * variable (in position order) gets a tile from 1 to its enclosing tile,
 * the last one 1; a spatial loop's iterations ceil(enclosing / tile) stay
 * within @cap[k]. FALSE when the last loop is spatial and its enclosing
 * tile exceeds its cap (the caller then factorizes perfectly). */
static gboolean
tile_imperfectly (GRand *r, guint64 total, GenLoop **loops, guint n,
                  const guint64 *cap)
{
  guint64 enclosing = total;

  for (guint k = 0; k < n; k++)
    {
      guint64 smallest = 1, t;
      if (loops[k]->spatial)
        smallest = (enclosing + cap[k] - 1) / cap[k];
      if (k + 1 == n)
        {
          if (smallest > 1)
            return FALSE;
          t = 1;
        }
      else
        t = (guint64) g_rand_int_range (r, (gint32) smallest, (gint32) enclosing + 1);
      loops[k]->tile = t;
      loops[k]->n = (enclosing + t - 1) / t;
      enclosing = t;
    }
  return TRUE;
}

/* Reorders the storage nodes at random, keeping each tensor's nodes outer
 * to inner but no longer sorting by level across tensors (only per-tensor
 * hierarchy order), so spatial loops move in some tensors' views. */
static void
shuffle_storage (Gen *g, GPtrArray *storage, GArray *storage_pos)
{
  guint n = storage->len;
  g_autofree gboolean *placed = g_new0 (gboolean, n);
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();
  g_autoptr(GArray) pos = g_array_new (FALSE, FALSE, sizeof (int));

  while (nodes->len < n)
    {
      guint ready[64], n_ready = 0;
      for (guint i = 0; i < n; i++)
        {
          const FfmMappingNode *a = g_ptr_array_index (storage, i);
          gboolean ok = !placed[i];
          for (guint j = 0; ok && j < i; j++)
            {
              const FfmMappingNode *b = g_ptr_array_index (storage, j);
              if (placed[j])
                continue;
              for (guint t = 0; ok && a->tensors[t] != NULL; t++)
                ok = !g_strv_contains ((const char *const *) b->tensors, a->tensors[t]);
            }
          if (ok)
            ready[n_ready++] = i;
        }
      {
        guint pick_i = ready[g_rand_int_range (g->r, 0, n_ready)];
        placed[pick_i] = TRUE;
        g_ptr_array_add (nodes, g_ptr_array_index (storage, pick_i));
        g_array_append_val (pos, g_array_index (storage_pos, int, pick_i));
      }
    }
  for (guint i = 0; i < n; i++)
    {
      storage->pdata[i] = nodes->pdata[i];
      g_array_index (storage_pos, int, i) = g_array_index (pos, int, i);
    }
}

/* Appends to @list the nodes of one Einsum's subtree: storage nodes for its
 * tensors (backing ones for those not in @held, then random inner copies),
 * temporal and spatial loops, and the compute node. @held[a] is the path
 * position of the innermost memory already holding access a above (-1 if
 * none); @enclosing[v] the tile of v at the subtree's top. */
static void
random_subtree (Gen *g, guint einsum, const int *held,
                const guint64 *enclosing, GPtrArray *list)
{
  const FfmEinsum *e = ffm_workload_get_einsum (g->w, einsum);
  g_autoptr(GArray) loops = g_array_new (FALSE, TRUE, sizeof (GenLoop));
  /* storage nodes: per path position, the accesses kept there */
  guint64 keep[16] = { 0 };
  guint n_storage = 0;
  g_autoptr(GPtrArray) storage = g_ptr_array_new ();   /* FfmMappingNode * in order */
  g_autoptr(GArray) storage_pos = g_array_new (FALSE, FALSE, sizeof (int));
  guint64 dim_used[16][FFM_MAX_FANOUT_DIMS] = { { 0 } };

  for (guint a = 0; a < e->n_accesses; a++)
    {
      int last = held[a];
      if (last < 0)
        {
          keep[0] |= 1u << a;     /* backing in MainMemory */
          last = 0;
        }
      for (guint p = last + 1; p < g->n_path; p++)
        if (ffm_arch_get_level (g->a, g->path[p])->kind == FFM_LEVEL_MEMORY
            && g_rand_double (g->r) < 0.45)
          keep[p] |= 1u << a;
    }
  for (guint p = 0; p < g->n_path; p++)
    {
      guint order[FFM_MAX_EINSUM_TENSORS], n = 0;
      gboolean one_node = g_rand_boolean (g->r);
      for (guint a = 0; a < e->n_accesses; a++)
        if (keep[p] & (1u << a))
          order[n++] = a;
      for (guint i = n; i > 1; i--)       /* shuffle */
        {
          guint j = g_rand_int_range (g->r, 0, i), t = order[i - 1];
          order[i - 1] = order[j];
          order[j] = t;
        }
      for (guint i = 0; i < n; )
        {
          const char *names[FFM_MAX_EINSUM_TENSORS + 1];
          guint k = 0;
          int pos = p;
          do
            names[k++] = ffm_workload_get_tensor (g->w, e->accesses[order[i++]].tensor)->name;
          while (one_node && i < n);
          names[k] = NULL;
          g_ptr_array_add (storage, ffm_mapping_node_new_storage (
                             names, ffm_arch_get_level (g->a, g->path[p])->name, FALSE));
          g_array_append_val (storage_pos, pos);
        }
    }
  n_storage = storage->len;
  if (g_rand_double (g->r) < (g->imperfect ? P_SHUFFLED_STORAGE_IMPERFECT
                                            : P_SHUFFLED_STORAGE))
    shuffle_storage (g, storage, storage_pos);

  /* spatial loops: one per fanout dimension, sometimes none */
  for (guint p = 0; p < g->n_path; p++)
    {
      const FfmLevel *l = ffm_arch_get_level (g->a, g->path[p]);
      if (l->kind != FFM_LEVEL_FANOUT)
        continue;
      for (guint d = 0; d < l->u.fanout.n_dims; d++)
        {
          GenLoop loop = { 0 };
          guint tries = 0;
          if (g_rand_double (g->r) < 0.35)
            continue;
          do
            loop.var = g_rand_int_range (g->r, 0, e->n_rank_vars);
          while (enclosing[loop.var] == 1 && ++tries < 8);
          loop.spatial = TRUE;
          loop.fanout = p;
          loop.dim = d;
          loop.gap = n_storage;
          for (guint s = 0; s < n_storage; s++)
            if (g_array_index (storage_pos, int, s) > (int) p)
              {
                loop.gap = s;
                break;
              }
          if (g_rand_double (g->r) < (g->imperfect ? P_RANDOM_SPATIAL_IMPERFECT
                                                    : P_RANDOM_SPATIAL))
            loop.gap = g_rand_int_range (g->r, 0, n_storage + 1);
          loop.tiebreak = g_rand_double (g->r);
          g_array_append_val (loops, loop);
        }
    }
  /* temporal loops: 1-3 per variable, at random gaps (rarely above all) */
  for (guint v = 0; v < e->n_rank_vars; v++)
    {
      guint n = g_rand_int_range (g->r, 1, 4);
      for (guint k = 0; k < n; k++)
        {
          GenLoop loop = { 0 };
          loop.var = v;
          loop.gap = g_rand_double (g->r) < 0.1 ? 0
            : g_rand_int_range (g->r, MIN (1, n_storage), n_storage + 1);
          loop.tiebreak = g_rand_double (g->r);
          g_array_append_val (loops, loop);
        }
    }
  g_array_sort (loops, compare_gen_loops);

  /* iteration counts: a random factorization per variable */
  for (guint v = 0; v < e->n_rank_vars; v++)
    {
      GenLoop *mine[16];
      guint64 cap[16];
      guint n = 0;
      for (guint j = 0; j < loops->len; j++)
        {
          GenLoop *loop = &g_array_index (loops, GenLoop, j);
          if (loop->var != v)
            continue;
          cap[n] = 1;
          if (loop->spatial)
            {
              const FfmLevel *l = ffm_arch_get_level (g->a, g->path[loop->fanout]);
              guint64 used = dim_used[loop->fanout][loop->dim];
              cap[n] = l->u.fanout.dims[loop->dim].count / MAX (used, 1);
            }
          mine[n++] = loop;
        }
      if (!g->imperfect || !tile_imperfectly (g->r, enclosing[v], mine, n, cap))
        factorize (g->r, enclosing[v], mine, n, cap);
      for (guint k = 0; k < n; k++)
        if (mine[k]->spatial)
          {
            guint64 *used = &dim_used[mine[k]->fanout][mine[k]->dim];
            *used = MAX (*used, 1) * mine[k]->n;
          }
    }

  /* the nodes, gap by gap */
  for (guint s = 0; s <= n_storage; s++)
    {
      for (guint j = 0; j < loops->len; j++)
        {
          const GenLoop *loop = &g_array_index (loops, GenLoop, j);
          const char *var = e->rank_var_names[loop->var];
          if (loop->gap != s)
            continue;
          if (loop->spatial)
            {
              const FfmLevel *l = ffm_arch_get_level (g->a, g->path[loop->fanout]);
              g_ptr_array_add (list, ffm_mapping_node_new_spatial (
                                 var, loop->tile, l->name, l->u.fanout.dims[loop->dim].name));
            }
          else
            g_ptr_array_add (list, ffm_mapping_node_new_temporal (var, loop->tile));
        }
      if (s < n_storage)
        g_ptr_array_add (list, g_ptr_array_index (storage, s));
    }
  g_ptr_array_add (list, ffm_mapping_node_new_compute (
                     e->name, ffm_arch_get_level (g->a, g->path[g->n_path - 1])->name));
}

static FfmMapping *
random_single_mapping (Gen *g)
{
  FfmMapping *m = ffm_mapping_new ();
  int held[FFM_MAX_EINSUM_TENSORS];
  const FfmEinsum *e = ffm_workload_get_einsum (g->w, 0);

  for (guint a = 0; a < FFM_MAX_EINSUM_TENSORS; a++)
    held[a] = -1;
  random_subtree (g, 0, held, e->rank_var_bounds, ffm_mapping_get_root (m));
  return m;
}

/* MainMemory [non-intermediates]; for m tile s; GLB [intermediates] (or
 * MainMemory if there is no GLB); split, one random subtree per Einsum. */
static FfmMapping *
random_chain_mapping (Gen *g)
{
  FfmMapping *m = ffm_mapping_new ();
  GPtrArray *root = ffm_mapping_get_root (m);
  guint n_einsums = ffm_workload_get_n_einsums (g->w);
  g_autoptr(GPtrArray) outer = g_ptr_array_new ();
  g_autoptr(GPtrArray) inner = g_ptr_array_new ();
  int glb = ffm_arch_find_level (g->a, "GlobalBuffer");
  int inner_pos = glb >= 0 ? path_pos (g, glb) : 0;
  const FfmEinsum *first = ffm_workload_get_einsum (g->w, 0);
  guint64 m_bound = first->rank_var_bounds[ffm_einsum_find_rank_var (first, "m")];
  guint64 shared;
  FfmMappingNode *split;

  for (guint t = 0; t < ffm_workload_get_n_tensors (g->w); t++)
    {
      const FfmTensor *tensor = ffm_workload_get_tensor (g->w, t);
      if ((tensor->classes & FFM_TENSOR_INTERMEDIATE) && glb >= 0)
        g_ptr_array_add (inner, tensor->name);
      else
        g_ptr_array_add (outer, tensor->name);
    }
  g_ptr_array_add (outer, NULL);
  g_ptr_array_add (inner, NULL);
  g_ptr_array_add (root, ffm_mapping_node_new_storage ((const char *const *) outer->pdata,
                                                       "MainMemory", FALSE));
  do
    shared = g_rand_int_range (g->r, 1, m_bound + 1);
  while (m_bound % shared != 0 && !g->imperfect);
  g_ptr_array_add (root, ffm_mapping_node_new_temporal ("m", shared));
  if (glb >= 0)
    g_ptr_array_add (root, ffm_mapping_node_new_storage ((const char *const *) inner->pdata,
                                                         "GlobalBuffer", FALSE));
  split = ffm_mapping_node_new_sequential ();
  for (guint i = 0; i < n_einsums; i++)
    {
      const FfmEinsum *e = ffm_workload_get_einsum (g->w, i);
      int held[FFM_MAX_EINSUM_TENSORS];
      guint64 enclosing[FFM_MAX_EINSUM_RANK_VARS];
      for (guint a = 0; a < e->n_accesses; a++)
        {
          const FfmTensor *t = ffm_workload_get_tensor (g->w, e->accesses[a].tensor);
          held[a] = (t->classes & FFM_TENSOR_INTERMEDIATE) ? inner_pos : 0;
        }
      for (guint v = 0; v < e->n_rank_vars; v++)
        enclosing[v] = strcmp (e->rank_var_names[v], "m") == 0 ? shared
          : e->rank_var_bounds[v];
      random_subtree (g, i, held, enclosing, ffm_mapping_node_add_branch (split));
    }
  g_ptr_array_add (root, split);
  return m;
}

/* ---- Comparing ---- */

/* Root-to-compute paths, in tree order. */
static void
collect_paths (const GPtrArray *list, GPtrArray *prefix, GPtrArray *out)
{
  guint n = prefix->len;

  for (guint i = 0; i < list->len; i++)
    {
      FfmMappingNode *node = g_ptr_array_index (list, i);
      if (node->kind == FFM_NODE_SEQUENTIAL)
        {
          for (guint b = 0; b < node->branches->len; b++)
            collect_paths (g_ptr_array_index (node->branches, b), prefix, out);
          break;
        }
      g_ptr_array_add (prefix, node);
      if (node->kind == FFM_NODE_COMPUTE)
        g_ptr_array_add (out, g_ptr_array_copy (prefix, NULL, NULL));
    }
  g_ptr_array_set_size (prefix, n);
}

static void
compare_counts (const FfmActionCounts *c, const FfmActionCounts *u,
                const SimCounts *s)
{
  g_assert_cmpuint (c->reads, ==, s->reads);
  g_assert_cmpuint (c->fills, ==, s->fills);
  g_assert_cmpuint (c->drains, ==, s->drains);
  g_assert_cmpuint (c->updates, ==, s->updates);
  g_assert_cmpuint (u->reads, ==, s->unit_reads);
  g_assert_cmpuint (u->fills, ==, s->unit_fills);
  g_assert_cmpuint (u->drains, ==, s->unit_drains);
  g_assert_cmpuint (u->updates, ==, s->unit_updates);
}

static void
assert_close (double model, double witness)
{
  g_assert_cmpfloat (fabs (model - witness), <=, 1e-9 * MAX (fabs (witness), 1));
}

/* Energy and latency recomputed from the simulator's counts and the
 * architecture's numbers. */
static void
compare_totals (const FfmWorkload *w, const FfmArch *a, guint einsum,
                SimResult *sim, const FfmPmappingCost *cost, guint compute)
{
  double energy = 0, latency = 0, leak = 0;

  for (guint l = 0; l < sim->n_levels; l++)
    {
      const FfmLevel *level = ffm_arch_get_level (a, l);
      double ur = 0, uw = 0, lat;
      leak += level->leak_power * (double) ffm_arch_get_instances_above (a, l);
      if (level->kind != FFM_LEVEL_MEMORY)
        continue;
      for (guint acc = 0; acc < sim->n_accesses; acc++)
        {
          SimCounts *s = sim_result_get (sim, l, acc);
          double bits, scale;
          if (!s->held)
            continue;
          g_assert_true (ffm_arch_bits_per_value (a, l, w, einsum, acc, &bits, NULL));
          scale = bits / level->u.memory.bits_per_action;
          energy += (double) (s->reads + s->drains) * scale * level->u.memory.read_energy
            + (double) (s->fills + s->updates) * scale * level->u.memory.write_energy;
          ur += (double) (s->unit_reads + s->unit_drains) * scale;
          uw += (double) (s->unit_fills + s->unit_updates) * scale;
        }
      {
        double rt = ur > 0 && !isinf (level->u.memory.read_bandwidth)
          ? ur / level->u.memory.read_bandwidth : 0;
        double wt = uw > 0 && !isinf (level->u.memory.write_bandwidth)
          ? uw / level->u.memory.write_bandwidth : 0;
        lat = level->u.memory.ports == FFM_PORTS_SEPARATE ? MAX (rt, wt) : rt + wt;
      }
      latency = MAX (latency, lat);
    }
  energy += (double) sim->operations * ffm_arch_get_level (a, compute)->u.compute.energy;
  latency = MAX (latency, (double) sim->steps
                 / ffm_arch_get_level (a, compute)->u.compute.throughput);
  assert_close (cost->latency, latency);
  assert_close (cost->energy, energy + leak * latency);
}

static void
compare_einsum (const FfmWorkload *w, const FfmArch *a,
                const FfmPmappingModel *model, const FfmPmappingCost *cost,
                GPtrArray *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimResult) sim = sim_run (w, a, (const FfmMappingNode *const *) path->pdata,
                                      path->len, &error);
  guint einsum = ffm_pmapping_model_get_einsum (model);
  guint n_buffets = ffm_pmapping_model_get_n_buffets (model);
  guint held = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (cost->operations, ==, sim->operations);
  g_assert_cmpuint (cost->steps, ==, sim->steps);
  for (guint b = 0; b < n_buffets; b++)
    {
      const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (model, b);
      SimCounts *s = sim_result_get (sim, info->level, info->access);
      g_assert_true (s->held);
      compare_counts (&cost->counts[b], &cost->unit_counts[b], s);
    }
  for (guint i = 0; i < sim->n_levels * sim->n_accesses; i++)
    held += sim->counts[i].held;
  g_assert_cmpuint (held, ==, n_buffets);
  for (guint d = 0; d < ffm_pmapping_model_get_n_fanout_dims (model); d++)
    {
      const FfmFanoutDimInfo *f = ffm_pmapping_model_get_fanout_dim (model, d);
      g_assert_cmpuint (cost->fanout_used[d], ==,
                        sim->fanout_used[f->level * FFM_MAX_FANOUT_DIMS + f->dim]);
    }
  compare_totals (w, a, einsum, sim, cost, ffm_pmapping_model_get_compute_level (model));
}

/* TRUE if some loop of @path has a tile that does not divide its
 * enclosing tile. */
static gboolean
has_remainder (const FfmWorkload *w, const GPtrArray *path)
{
  const FfmMappingNode *leaf = g_ptr_array_index (path, path->len - 1);
  const FfmEinsum *e = ffm_workload_get_einsum (w, ffm_workload_find_einsum (w, leaf->einsum));
  guint64 tile[FFM_MAX_EINSUM_RANK_VARS];

  memcpy (tile, e->rank_var_bounds, sizeof tile);
  for (guint k = 0; k + 1 < path->len; k++)
    {
      const FfmMappingNode *n = g_ptr_array_index (path, k);
      int v;
      if (n->kind != FFM_NODE_TEMPORAL && n->kind != FFM_NODE_SPATIAL)
        continue;
      v = ffm_einsum_find_rank_var (e, ffm_mapping_node_get_rank_var_for (n, e->name));
      if (tile[v] % n->tile != 0)
        return TRUE;
      tile[v] = n->tile;
    }
  return FALSE;
}

/* Evaluates @m as a whole and compares every Einsum with the simulator.
 * Returns FALSE if the model refused the mapping for a spatial loop that
 * would move across a loop indexing the same tensor (a legitimate refusal:
 * the generator sometimes puts spatial loops anywhere). */
static gboolean
compare_mapping (const FfmWorkload *w, const FfmArch *a, FfmMapping *m,
                 Stats *stats)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmCostReport) r = ffm_cost_evaluate_mapping (w, a, m, &error);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GPtrArray) prefix = g_ptr_array_new ();

  if (r == NULL)
    {
      if (error == NULL || strstr (error->message, "would move across") == NULL)
        {
          g_autofree char *tree = ffm_mapping_to_tree_string (m);
          g_printerr ("%s\n", tree);
        }
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, "would move across"));
      stats->refused++;
      return FALSE;
    }
  collect_paths (ffm_mapping_peek_root (m), prefix, paths);
  g_assert_cmpuint (paths->len, ==, ffm_cost_report_get_n_einsums (r));
  for (guint i = 0; i < paths->len; i++)
    {
      GPtrArray *path = g_ptr_array_index (paths, i);
      const FfmMappingNode *leaf = g_ptr_array_index (path, path->len - 1);
      guint einsum = ffm_workload_find_einsum (w, leaf->einsum);
      for (guint k = 0; k < ffm_cost_report_get_n_einsums (r); k++)
        if (ffm_cost_report_get_einsum (r, k) == einsum)
          {
            if (g_test_verbose ())
              {
                g_autofree char *tree = ffm_mapping_to_tree_string (m);
                g_test_message ("%s", tree);
              }
            compare_einsum (w, a, ffm_cost_report_get_model (r, k),
                            ffm_cost_report_get_cost (r, k), path);
            stats->compared++;
            stats->with_remainder += has_remainder (w, path);
          }
    }
  return TRUE;
}

/* FFM_COST_SIM_CASES=N runs N cases per kind instead (for a longer local
 * search; the seeds stay fixed). */
static guint
cases_per_kind (void)
{
  const char *env = g_getenv ("FFM_COST_SIM_CASES");
  return env != NULL ? (guint) g_ascii_strtoull (env, NULL, 10) : CASES_PER_KIND;
}

static void
run_random_cases (WorkloadKind kind, guint32 seed, gboolean imperfect,
                  Stats *stats)
{
  g_autoptr(GRand) r = g_rand_new_with_seed (seed);
  guint n = cases_per_kind ();

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(FfmArch) a = random_arch (r);
      g_autoptr(FfmWorkload) w = kind == KIND_CHAIN ? random_chain_workload (r, imperfect)
        : random_single_workload (r, imperfect);
      g_autoptr(FfmMapping) m = NULL;
      Gen g = { r, w, a, NULL, 0, imperfect };

      g.path = ffm_arch_get_compute_path (a, ffm_arch_find_level (a, "MAC"), &g.n_path);
      m = kind == KIND_CHAIN ? random_chain_mapping (&g) : random_single_mapping (&g);
      compare_mapping (w, a, m, stats);
      g_free (g.path);
    }
}

static void
test_random_single (void)
{
  Stats stats = { 0 };

  g_test_summary ("Model = simulator on random single-Einsum mappings "
                  "(matmul, convolutions, element-wise) with fanouts");
  run_random_cases (KIND_SINGLE, 20240601, FALSE, &stats);
  run_random_cases (KIND_SINGLE, 77, FALSE, &stats);
  g_test_message ("compared %u Einsum mappings, %u refused", stats.compared,
                  stats.refused);
  g_assert_cmpuint (stats.compared, >=, MIN (300, cases_per_kind ()));
}

static void
test_random_chains (void)
{
  Stats stats = { 0 };

  g_test_summary ("Model = simulator on random chains of 2-3 matmuls fused "
                  "through an on-chip intermediate");
  run_random_cases (KIND_CHAIN, 424242, FALSE, &stats);
  g_test_message ("compared %u Einsum mappings, %u refused", stats.compared,
                  stats.refused);
  g_assert_cmpuint (stats.compared, >=, MIN (300, cases_per_kind ()));
}

static void
test_random_imperfect (void)
{
  Stats stats = { 0 };

  g_test_summary ("Model = simulator on random mappings whose tiles need not "
                  "divide their enclosing tiles (remainder tiles), single "
                  "Einsums and fused chains");
  run_random_cases (KIND_SINGLE, 31337, TRUE, &stats);
  run_random_cases (KIND_SINGLE, 4711, TRUE, &stats);
  run_random_cases (KIND_CHAIN, 2718, TRUE, &stats);
  run_random_cases (KIND_CHAIN, 1618, TRUE, &stats);
  g_test_message ("compared %u Einsum mappings (%u with a remainder tile), "
                  "%u refused", stats.compared, stats.with_remainder,
                  stats.refused);
  g_assert_cmpuint (stats.with_remainder, >=, MIN (500, cases_per_kind ()));
}

/* The shipped example mappings, small. */
static void
test_examples (void)
{
  static const struct {
    const char *mapping;
    const char *arch;
    const char *params[4];
  } cases[] = {
    { "data/cost/unfused-matmul-simple.json", "../arch-models/json/architectures/simple.json",
      { "n_einsums=1", "m=4", "kn=3", NULL } },
    { "data/cost/fused-matmuls-simple.json", "../arch-models/json/architectures/simple.json",
      { "n_einsums=2", "m=4", "kn=3", NULL } },
    { "data/cost/matmul0-tpu.json", "data/cost/tpu-like.json",
      { "n_einsums=2", "m=32", "kn=4", NULL } },
  };
  Stats stats = { 0 };

  g_test_summary ("Model = simulator on the hand-made mappings");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *mpath = g_test_build_filename (G_TEST_DIST, cases[i].mapping, NULL);
      g_autofree char *apath = g_test_build_filename (G_TEST_DIST, cases[i].arch, NULL);
      g_autofree char *wpath = g_test_build_filename (G_TEST_DIST, "..", "workloads",
                                                      "matmuls.json", NULL);
      g_autoptr(FfmParamValues) params = ffm_param_values_new ();
      g_autoptr(FfmMapping) m = ffm_mapping_load_file (mpath, &error);
      g_autoptr(FfmArch) a = ffm_arch_load_file (apath, NULL, &error);
      g_autoptr(FfmWorkload) w = NULL;
      g_autoptr(FfmPmappingModel) model = NULL;
      g_autoptr(FfmPmappingCost) cost = NULL;
      const GPtrArray *root;

      g_assert_no_error (error);
      for (guint k = 0; cases[i].params[k] != NULL; k++)
        g_assert_true (ffm_param_values_parse_assignment (params, cases[i].params[k], NULL));
      w = ffm_workload_load (wpath, params, &error);
      g_assert_no_error (error);
      root = ffm_mapping_peek_root (m);
      if (((FfmMappingNode *) g_ptr_array_index (root, root->len - 1))->kind
          == FFM_NODE_SEQUENTIAL)
        {
          compare_mapping (w, a, m, &stats);
          continue;
        }
      /* a single path: compare the pmapping model directly */
      model = ffm_pmapping_model_new (w, a, (const FfmMappingNode *const *) root->pdata,
                                      root->len, cases[i].mapping, &error);
      g_assert_no_error (error);
      cost = ffm_pmapping_cost_new (model);
      ffm_pmapping_model_evaluate (model, NULL, cost);
      {
        g_autoptr(GPtrArray) path = g_ptr_array_new ();   /* borrows the nodes */
        for (guint k = 0; k < root->len; k++)
          g_ptr_array_add (path, g_ptr_array_index (root, k));
        compare_einsum (w, a, model, cost, path);
      }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cost-simulator/examples", test_examples);
  g_test_add_func ("/cost-simulator/random-single", test_random_single);
  g_test_add_func ("/cost-simulator/random-chains", test_random_chains);
  g_test_add_func ("/cost-simulator/random-imperfect", test_random_imperfect);
  return g_test_run ();
}
