/* paper-gpt3-mapping.c: the FFM paper's §7.6 description of its GPT-3
 * mapping as checks on a mapping (paper-gpt3-mapping.h). */
#include "paper-gpt3-mapping.h"

#include <string.h>

/* A path with its Einsum, and each node's loop iteration count. */
typedef struct {
  const GPtrArray *nodes;   /* borrowed: from the root to the compute node */
  const FfmEinsum *einsum;
  guint64 iterations[256];  /* per node (loops; 1 for the others) */
} Path;

static gboolean
path_init (Path *p, const GPtrArray *nodes, const FfmWorkload *workload)
{
  const FfmMappingNode *leaf = g_ptr_array_index (nodes, nodes->len - 1);
  int e = leaf->kind == FFM_NODE_COMPUTE
    ? ffm_workload_find_einsum (workload, leaf->einsum) : -1;
  guint64 tile[FFM_MAX_EINSUM_RANK_VARS];

  if (e < 0 || nodes->len > G_N_ELEMENTS (p->iterations))
    return FALSE;
  p->nodes = nodes;
  p->einsum = ffm_workload_get_einsum (workload, (guint) e);
  memcpy (tile, p->einsum->rank_var_bounds, sizeof tile);
  for (guint k = 0; k < nodes->len; k++)
    {
      const FfmMappingNode *node = g_ptr_array_index (nodes, k);
      int v;
      p->iterations[k] = 1;
      if ((node->kind != FFM_NODE_TEMPORAL && node->kind != FFM_NODE_SPATIAL)
          || node->tile == 0)
        continue;
      v = ffm_einsum_find_rank_var (p->einsum,
                                    ffm_mapping_node_get_rank_var_for (node, p->einsum->name));
      if (v < 0)
        continue;
      p->iterations[k] = (tile[v] + node->tile - 1) / node->tile;
      tile[v] = MIN (tile[v], node->tile);
    }
  return TRUE;
}

static const FfmMappingNode *
path_node (const Path *p, guint k)
{
  return g_ptr_array_index (p->nodes, k);
}

static const char *
path_var (const Path *p, guint k)
{
  return ffm_mapping_node_get_rank_var_for (path_node (p, k), p->einsum->name);
}

static gboolean
is_loop (const FfmMappingNode *node)
{
  return node->kind == FFM_NODE_TEMPORAL || node->kind == FFM_NODE_SPATIAL;
}

/* Position of the storage node of @tensor at @level on @p, or -1. */
static int
storage_at (const Path *p, const char *tensor, const char *level)
{
  for (guint k = 0; k < p->nodes->len; k++)
    {
      const FfmMappingNode *node = path_node (p, k);
      if (node->kind == FFM_NODE_STORAGE && g_strcmp0 (node->level, level) == 0
          && node->tensors != NULL && g_strv_contains ((const char * const *) node->tensors, tensor))
        return (int) k;
    }
  return -1;
}

/* Whether rank variable @var of @p's Einsum indexes @tensor there. */
static gboolean
indexes (const Path *p, const FfmWorkload *workload, const char *var, const char *tensor)
{
  int v = ffm_einsum_find_rank_var (p->einsum, var);
  int t = ffm_workload_find_tensor (workload, tensor);

  for (guint a = 0; v >= 0 && t >= 0 && a < p->einsum->n_accesses; a++)
    {
      const FfmTensorAccess *acc = &p->einsum->accesses[a];
      const FfmTensor *ten = ffm_workload_get_tensor (workload, acc->tensor);
      if ((int) acc->tensor != t)
        continue;
      for (guint r = 0; r < ten->n_ranks; r++)
        for (guint i = 0; i < acc->projections[r].n_terms; i++)
          if ((int) acc->projections[r].terms[i].var == v)
            return TRUE;
    }
  return FALSE;
}

/* The loops above node @at that tile @tensor (more than one iteration, over
 * a variable indexing it), as "b tile 1 (64 iterations), ...", or "whole"
 * (transfer full); *@any: whether there is one; *@var_tile: the tile of
 * the innermost of them over @var (may be NULL), 0 if none. */
static char *
tiling_above (const Path *p, const FfmWorkload *workload, guint at, const char *tensor,
              const char *var, guint64 *var_tile, gboolean *any)
{
  GString *s = g_string_new (NULL);

  *var_tile = 0;
  *any = FALSE;
  for (guint k = 0; k < at; k++)
    {
      const FfmMappingNode *node = path_node (p, k);
      if (!is_loop (node) || p->iterations[k] <= 1
          || !indexes (p, workload, path_var (p, k), tensor))
        continue;
      g_string_append_printf (s, "%s%s tile %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
                              " iterations)", *any ? ", " : "", path_var (p, k),
                              node->tile, p->iterations[k]);
      *any = TRUE;
      if (var != NULL && g_str_equal (path_var (p, k), var))
        *var_tile = node->tile;
    }
  if (!*any)
    g_string_append (s, "whole");
  return g_string_free (s, FALSE);
}

static void
point_free (gpointer data)
{
  g_free (((PaperPoint *) data)->found);
}

static void
add_point (GArray *points, const char *paper, gboolean holds, GString *found)
{
  PaperPoint pt = { paper, holds, g_string_free (found, FALSE) };

  g_array_append_val (points, pt);
}

/* The path computing @einsum, or NULL. */
static const Path *
find_path (const Path *paths, guint n, const char *einsum)
{
  for (guint i = 0; i < n; i++)
    if (g_str_equal (paths[i].einsum->name, einsum))
      return &paths[i];
  return NULL;
}

/* Whether @p's Einsum reads or writes @tensor. */
static gboolean
accesses (const Path *p, const FfmWorkload *workload, const char *tensor)
{
  int t = ffm_workload_find_tensor (workload, tensor);

  for (guint a = 0; t >= 0 && a < p->einsum->n_accesses; a++)
    if ((int) p->einsum->accesses[a].tensor == t)
      return TRUE;
  return FALSE;
}

/* Where @tensor is kept in the GlobalBuffer: the first path of an Einsum
 * that reads or writes it with it there, its position in *at; NULL if
 * nowhere. */
static const Path *
find_in_glb (const Path *paths, guint n, const FfmWorkload *workload, const char *tensor,
             int *at)
{
  for (guint i = 0; i < n; i++)
    if (accesses (&paths[i], workload, tensor)
        && (*at = storage_at (&paths[i], tensor, "GlobalBuffer")) >= 0)
      return &paths[i];
  return NULL;
}

/* §7.6: "1024x reuse of WQ" in the PE registers. */
#define PAPER_WQ_REUSE 1024

/* How each of @tensors is tiled in the GlobalBuffer, into @found; TRUE if
 * each is, by a loop over @var (with a tile of 1 if @tile_one). */
static gboolean
glb_tiling (const Path *paths, guint n, const FfmWorkload *workload,
            const char *const *tensors, guint n_tensors, const char *var,
            gboolean tile_one, gboolean with_einsum, GString *found)
{
  gboolean all = TRUE;

  for (guint t = 0; t < n_tensors; t++)
    {
      int at = -1;
      const Path *p = find_in_glb (paths, n, workload, tensors[t], &at);
      guint64 var_tile = 0;
      gboolean any;
      g_autofree char *tiling = p != NULL
        ? tiling_above (p, workload, (guint) at, tensors[t], var, &var_tile, &any) : NULL;
      g_string_append_printf (found, "%s%s: ", t > 0 ? "; " : "", tensors[t]);
      if (p == NULL)
        g_string_append (found, "not kept in the GlobalBuffer");
      else if (with_einsum)
        g_string_append_printf (found, "%s (in %s)", tiling, p->einsum->name);
      else
        g_string_append (found, tiling);
      all &= var_tile != 0 && (!tile_one || var_tile == 1);
    }
  return all;
}

GArray *
paper_gpt3_points (const FfmMapping *mapping, const FfmWorkload *workload,
                   guint n_cores)
{
  g_autoptr (GPtrArray) raw = ffm_mapping_dup_paths (mapping);
  g_autofree Path *paths = g_new0 (Path, MAX (raw->len, 1));
  GArray *points = g_array_new (FALSE, TRUE, sizeof (PaperPoint));
  static const char *weights[][2] = { { "WQ", "Q" }, { "WK", "K" }, { "WV", "V" } };
  static const char *const tiled[] = { "I", "Q", "K" };
  static const char *const heads[] = { "QK", "QK_softmax" };
  guint n = 0;
  gboolean all;
  GString *found;
  const Path *q;

  g_array_set_clear_func (points, point_free);
  for (guint i = 0; i < raw->len; i++)
    if (path_init (&paths[n], g_ptr_array_index (raw, i), workload))
      n++;

  /* 1. Weights whole in the GLB, reused across the batch. */
  all = TRUE;
  found = g_string_new (NULL);
  for (guint w = 0; w < G_N_ELEMENTS (weights); w++)
    {
      const Path *p = find_path (paths, n, weights[w][1]);
      int at = p != NULL ? storage_at (p, weights[w][0], "GlobalBuffer") : -1;
      guint64 var_tile;
      gboolean any, batch_below = FALSE;
      g_autofree char *tiling = NULL;
      g_string_append_printf (found, "%s%s: ", w > 0 ? "; " : "", weights[w][0]);
      if (at < 0)
        {
          g_string_append (found, p == NULL ? "no path computes its Einsum"
                           : "not kept in the GlobalBuffer");
          all = FALSE;
          continue;
        }
      tiling = tiling_above (p, workload, (guint) at, weights[w][0], NULL, &var_tile, &any);
      for (guint k = (guint) at + 1; k < p->nodes->len; k++)
        if (is_loop (path_node (p, k)) && p->iterations[k] > 1
            && g_str_equal (path_var (p, k), "b"))
          batch_below = TRUE;
      g_string_append_printf (found, "%s in the GlobalBuffer, %s", tiling,
                              batch_below ? "a batch loop below it" : "no batch loop below it");
      all &= !any && batch_below;
    }
  add_point (points, "weights kept whole in the GLB and reused across the batch",
             all, found);

  /* 2. I, Q, K in the GLB one batch element at a time. */
  found = g_string_new (NULL);
  all = glb_tiling (paths, n, workload, tiled, G_N_ELEMENTS (tiled), "b", TRUE, TRUE, found);
  add_point (points, "I, Q and K tiled in the GLB one batch element at a time",
             all, found);

  /* 3. QK and QK_softmax tiled in heads. */
  found = g_string_new (NULL);
  all = glb_tiling (paths, n, workload, heads, G_N_ELEMENTS (heads), "h", FALSE, FALSE, found);
  add_point (points, "QK and QK_softmax tiled in the heads rank in the GLB", all, found);

  /* 4. Q's LLBs parallel over tokens, all used. */
  q = find_path (paths, n, "Q");
  found = g_string_new (NULL);
  {
    guint64 cores = 1;
    gboolean tokens = FALSE;
    for (guint k = 0; q != NULL && k < q->nodes->len; k++)
      {
        const FfmMappingNode *node = path_node (q, k);
        if (node->kind != FFM_NODE_SPATIAL || g_strcmp0 (node->level, "Cores") != 0)
          continue;
        cores *= q->iterations[k];
        g_string_append_printf (found, "%sparallel over %s across %" G_GUINT64_FORMAT
                                " cores", found->len > 0 ? ", " : "", path_var (q, k),
                                q->iterations[k]);
        tokens |= g_str_equal (path_var (q, k), "m") && q->iterations[k] > 1;
      }
    if (found->len == 0)
      g_string_append (found, q == NULL ? "no path computes Q" : "no loop across the cores");
    g_string_append_printf (found, " (%" G_GUINT64_FORMAT " of %u used)", cores, n_cores);
    add_point (points, "Q's LLBs (one per core) parallel over tokens, all of them used",
               tokens && cores == n_cores, found);
  }

  /* 5. WQ reused in the PE registers. */
  found = g_string_new (NULL);
  {
    int at = q != NULL ? storage_at (q, "WQ", "Register") : -1;
    guint64 reuse = 1;
    GString *how = g_string_new (NULL);
    for (guint k = at >= 0 ? (guint) at + 1 : 0; at >= 0 && k < q->nodes->len; k++)
      {
        const FfmMappingNode *node = path_node (q, k);
        if (node->kind != FFM_NODE_TEMPORAL || q->iterations[k] <= 1
            || indexes (q, workload, path_var (q, k), "WQ"))
          continue;
        reuse *= q->iterations[k];
        g_string_append_printf (how, "%s%s %" G_GUINT64_FORMAT, how->len > 0 ? " x " : "",
                                path_var (q, k), q->iterations[k]);
      }
    if (at < 0)
      g_string_append (found, "WQ not kept in the Register");
    else
      g_string_append_printf (found, "%" G_GUINT64_FORMAT "x (%s)", reuse,
                              how->len > 0 ? how->str : "no loop below");
    g_string_free (how, TRUE);
    add_point (points, "WQ reused 1024x in the PE registers",
               at >= 0 && reuse == PAPER_WQ_REUSE, found);
  }
  return points;
}
