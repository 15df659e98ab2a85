/* ffm-pmapping-storage.c: the storage choices of one Einsum and the orders
 * of their storage nodes, steps 1 and 2 of building its templates
 * (ffm-pmapping-template.c says how, and builds each order's template):
 * every set of tensors each memory on a compute unit's path keeps, between
 * what it must and what it may keep; every order of each memory's nodes,
 * under the mapping constraints' stationary sets; and, with one Einsum in
 * the workload, choices whose lower bound a pmapping found while building
 * beats left out (rule (g), below). */
#include "ffm-pmapping-private.h"
#include <ffm/ffm-memory-budget.h>
#include <ffm/ffm-format.h>
#include "ffm-cost-private.h"
#include "ffm-pmapping-diagnostics.h"
#include "ffm-storage-bound.h"

#include <math.h>
#include <string.h>

#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))

/* Whether the storage-node order @order (G0 first) has, at every memory
 * with a stationary set, the nodes of the set above the others (G0 holds
 * the outermost memory's and the persistent nodes, which no dataflow
 * orders; the backing nodes of shared tensors go where fusion puts them,
 * so no dataflow orders them either: ffm-constraints.h). */
static gboolean
stationary_ok (const TemplateBuilder *b, const TemplateItem *order, guint n_order, guint n_g0)
{
  guint64 other_above = 0;      /* memories with a node outside their set */

  if (b->ec == NULL || b->e->is_copy)
    return TRUE;
  for (guint i = n_g0; i < n_order; i++)
    {
      guint level = order[i].level;
      guint64 s = level < FFM_CONSTRAINTS_MAX_LEVELS ? b->ec->stationary[level] : 0;
      if (s == 0 || (order[i].backing && (b->shared & BIT (order[i].access))))
        continue;
      if (!(s & BIT (order[i].access)))
        other_above |= BIT (level);
      else if (other_above & BIT (level))
        return FALSE;
    }
  return TRUE;
}

/* Every order of the nodes of each memory below G0, memory by memory.
 * @order holds the nodes placed so far; @rest[start..end) the nodes of the
 * memory being permuted. */
static gboolean
permute_levels (TemplateBuilder *b, TemplateItem *order, guint n_order, guint n_g0,
                TemplateItem *rest, guint n_rest, guint start, GError **error)
{
  guint end = start;

  if (start == n_rest)
    return !stationary_ok (b, order, n_order, n_g0)
      || template_build_from_order (b, order, n_order, n_g0, error);
  while (end < n_rest && rest[end].level == rest[start].level)
    end++;
  if (b->e->is_copy)
    {
      /* A copy's nodes of one memory form one group: one order suffices. */
      memcpy (&order[n_order], &rest[start], sizeof (TemplateItem) * (end - start));
      return permute_levels (b, order, n_order + end - start, n_g0, rest,
                             n_rest, end, error);
    }
  {
    /* Heap-free enumeration: lexicographic permutations of indices. */
    guint k = end - start, idx[FFM_MAX_EINSUM_TENSORS];
    for (guint i = 0; i < k; i++)
      idx[i] = i;
    for (;;)
      {
        gint i, j;
        for (guint x = 0; x < k; x++)
          order[n_order + x] = rest[start + idx[x]];
        if (!permute_levels (b, order, n_order + k, n_g0, rest, n_rest, end,
                             error))
          return FALSE;
        for (i = (gint) k - 2; i >= 0 && idx[i] > idx[i + 1]; i--)
          ;
        if (i < 0)
          break;
        for (j = (gint) k - 1; idx[j] < idx[i]; j--)
          ;
        { guint tmp = idx[i]; idx[i] = idx[j]; idx[j] = tmp; }
        for (guint x = i + 1, y = k - 1; x < y; x++, y--)
          { guint tmp = idx[x]; idx[x] = idx[y]; idx[y] = tmp; }
      }
  }
  return TRUE;
}

static gboolean store_choice (TemplateBuilder *b, GError **error);

/* A complete storage choice: its nodes, then every order. */
static gboolean
finish_choice (TemplateBuilder *b, GError **error)
{
  TemplateItem g0[MAX_TEMPLATE_NODES], rest[MAX_TEMPLATE_NODES];
  TemplateItem order[MAX_TEMPLATE_NODES];
  guint n_g0 = 0, n_rest = 0;
  guint64 seen = 0;

  for (guint p = 0; p < b->n_path; p++)
    seen |= b->kept[b->path[p]];
  b->coverable |= seen;
  if (seen != b->all)
    return TRUE;
  if (b->ec != NULL)
    for (guint l = 0; l < FFM_CONSTRAINTS_MAX_LEVELS; l++)
      if (b->ec->keep[l] != 0 && (b->kept[l] & b->ec->keep[l]) != b->ec->keep[l])
        return TRUE;      /* a memory it must keep is not on this path */
  b->n_complete++;
  if (b->collecting)
    return store_choice (b, error);
  seen = 0;
  for (guint p = 0; p < b->n_path; p++)
    {
      guint level = b->path[p];
      for (guint a = 0; a < b->e->n_accesses; a++)
        {
          TemplateItem it = { .kind = ITEM_STORAGE, .access = a, .level = level };
          if (!(b->kept[level] & BIT (a)))
            continue;
          it.backing = !(seen & BIT (a));
          it.persistent = it.backing && (b->persistent & BIT (a));
          seen |= BIT (a);
          if ((int) level == b->first_memory || it.persistent)
            g0[n_g0++] = it;
          else
            rest[n_rest++] = it;
        }
    }
  if (n_g0 + n_rest > MAX_BUFFETS)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "Einsum %s: a choice of what the memories keep has %u tiles of "
                   "tensors on the path to %s, more than the limit of %d (docs/limits.md); "
                   "narrow the memories' may_keep", b->e->name, n_g0 + n_rest,
                   ffm_arch_get_level (b->a, b->compute)->name, MAX_BUFFETS);
      return FALSE;
    }
  memcpy (order, g0, sizeof (TemplateItem) * n_g0);
  return permute_levels (b, order, n_g0, n_g0, rest, n_rest, 0, error);
}

static gboolean
choose_level (TemplateBuilder *b, guint p, GError **error)
{
  guint level;
  guint64 must, may, free_set, above = 0, sub;

  if (p == b->n_path)
    return finish_choice (b, error);
  level = b->path[p];
  if (ffm_arch_get_level (b->a, level)->kind != FFM_LEVEL_MEMORY)
    return choose_level (b, p + 1, error);
  if (!template_level_must_may (b, p, b->kept, &must, &may, error))
    return FALSE;
  for (guint q = 0; q < p; q++)
    above |= b->kept[b->path[q]];
  if (b->ec != NULL && level < FFM_CONSTRAINTS_MAX_LEVELS)
    {
      /* Mapping constraints: a tensor not kept above is backed here only
       * where it may be backed; kept here where it must be, never where
       * it may not; and kept here when no memory below may back it. */
      guint64 not_here = b->ec->forbid[level], must_here = b->ec->keep[level];
      guint64 below = 0;
      for (guint q = p + 1; q < b->n_path; q++)
        if (b->path[q] < FFM_CONSTRAINTS_MAX_LEVELS
            && ffm_arch_get_level (b->a, b->path[q])->kind == FFM_LEVEL_MEMORY)
          below |= BIT (b->path[q]);
      for (guint a = 0; a < b->e->n_accesses; a++)
        {
          if (above & BIT (a))
            continue;
          if (!(b->ec->backing_levels[a] & BIT (level)))
            not_here |= BIT (a);
          else if (!(b->ec->backing_levels[a] & below))
            must_here |= BIT (a);
        }
      /* Keeping here what must be kept here and may not be, or what the
       * architecture does not allow: no choice of this branch works. */
      if ((must & not_here) || (b->ec->keep[level] & ~may & b->all))
        return TRUE;
      may &= ~not_here;
      must |= must_here & may;
    }
  free_set = may & ~must;
  sub = 0;
  for (;;)
    {
      b->kept[level] = must | sub;
      if (!choose_level (b, p + 1, error))
        return FALSE;
      if (sub == free_set)
        break;
      sub = (sub - free_set) & free_set;
    }
  b->kept[level] = 0;
  return TRUE;
}

/* ---- Storage choices bounded ----
 *
 * (g) With one Einsum in the workload (no shared tensor: no
 *     compatibility, no fused loop, and every memory untracked, so a
 *     pmapping's only criteria are its objectives), every pmapping of a
 *     storage choice has at least the choice's bound in energy and in
 *     latency (ffm-storage-bound.h: the choice's nodes with every loop
 *     below them; the compute unit's time with every instance busy, the
 *     same for every choice). A pmapping P found in any choice with
 *     latency at most that bound and energy below a choice's energy bound
 *     (by a margin above rounding) beats every pmapping of that choice in
 *     energy and is no worse in latency: the choice has nothing the
 *     Pareto set, either objective's tie-break or EDP could want, and its
 *     templates are not built. The choice of P itself is kept (P's energy
 *     is at least its bound), so P or a pmapping dominating it is in the
 *     result. Choices are searched (tile search here, on this thread,
 *     without time limit, so that every process builds the same
 *     templates) in order of least energy bound, until the bound of the
 *     next one is beaten (every later one is then beaten too) or
 *     SEED_TEMPLATES templates have been searched, or SEED_PROBE_TEMPLATES
 *     without a pmapping at the latency bound (the rest is then kept
 *     unless already beaten). The searched templates are built again for
 *     the search proper: the pmappings are the same.
 *
 *     Off with remainder tiles (their loops are not all counted as the
 *     bound's argument assumes), persistent tensors (tracked
 *     reservations), a template cap (its order would change), the
 *     diagnostics that keep every memory's reservations, and under
 *     FFM_DEBUG=no-choice-bounds (tests compare). */

/* TUNING: templates searched while building. An 8 x 8 x 8 matmul below
 * DRAM and six buffers searches 114 (16 choices) before the bound cuts
 * the other 2,048,367; a Timeloop case with a PE array (tests/data/
 * timeloop/case2) 192 (27 choices, 37 cut). */
#define SEED_TEMPLATES 4096u

/* TUNING: templates searched while building with no pmapping found at the
 * latency bound before the searching stops (the shipped architectures'
 * single matmuls: 2 to 32 templates in all, searched twice; none cut). */
#define SEED_PROBE_TEMPLATES 64u

/* TUNING: choices stored per budget reservation. */
#define CHOICE_CHUNK 65536u

static gboolean
choices_bounded (const TemplateBuilder *b)
{
  return ffm_workload_get_n_einsums (b->w) == 1
    && !b->e->is_copy && b->persistent == 0 && !b->remainders
    && b->opt->max_templates == 0
    && !FFM_PMAPPING_TRACK_ALL_MEMORIES (b->opt)
    && (b->opt->objectives & FFM_PMAPPING_ENERGY)
    && !ffm_debug_flag_is_set (FFM_DEBUG_NO_CHOICE_BOUNDS);
}

/* The front the tile search holds partial vectors to
 * (ffm-incumbent-front-private.h), or NULL: one Einsum alone, energy an
 * objective (the bound's energy is its cost terms' dynamic energy), not
 * turned off. The storage choices' seeds fill it (search_choice()). */
static FfmIncumbentFront *
incumbent_front_for (const FfmWorkload *w, const FfmEinsum *e,
                     const FfmPmappingOptions *options)
{
  if (ffm_workload_get_n_einsums (w) != 1 || e->is_copy
      || !(options->objectives & FFM_PMAPPING_ENERGY)
      || FFM_PMAPPING_TRACK_ALL_MEMORIES (options)
      || ffm_debug_flag_is_set (FFM_DEBUG_NO_INCUMBENT_BOUNDS))
    return NULL;
  return ffm_incumbent_front_new ((options->objectives & FFM_PMAPPING_LATENCY) != 0);
}

static gboolean
budget_error (TemplateBuilder *b, const char *what, GError **error)
{
  g_autofree char *limit = ffm_format_bytes (ffm_memory_budget_get_limit (b->budget));
  g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY,
               "Einsum %s: %s need more memory than the budget of %s allows; "
               "raise the budget (--max-memory) or narrow the mapspace (keep or "
               "forbid tensors per memory in the architecture's may_keep, or "
               "with mapping constraints)", b->e->name, what, limit);
  return FALSE;
}

/* Per choice: its accesses' chains, its bound, its place in the order,
 * whether it is kept. */
#define CHOICE_BYTES(n_accesses) ((n_accesses) * sizeof (guint64) + sizeof (double) \
                                  + sizeof (guint) + 1)

static gboolean
store_choice (TemplateBuilder *b, GError **error)
{
  guint n_acc = b->e->n_accesses;
  guint64 chain[FFM_MAX_EINSUM_TENSORS];

  if (b->choices->len % ((gsize) CHOICE_CHUNK * n_acc) == 0)
    {
      gsize bytes = (gsize) CHOICE_CHUNK * CHOICE_BYTES (n_acc);
      if (!ffm_memory_budget_reserve (b->budget, bytes))
        return budget_error (b, "its storage choices", error);
      b->choices_charged += bytes;
    }
  ffm_storage_bound_chains (b->bound, b->kept, chain);
  g_array_append_vals (b->choices, chain, n_acc);
  return TRUE;
}

static void
restore_choice (TemplateBuilder *b, guint i)
{
  guint n_acc = b->e->n_accesses;
  const guint64 *chain = &g_array_index (b->choices, guint64, (gsize) i * n_acc);

  memset (b->kept, 0, sizeof b->kept);
  for (guint p = 0; p < b->n_path; p++)
    for (guint a = 0; a < n_acc; a++)
      if (chain[a] & BIT (p))
        b->kept[b->path[p]] |= BIT (a);
}

typedef struct {
  double energy;
  guint index;
} ChoiceBound;

static int
compare_choice_bounds (const void *x, const void *y)
{
  const ChoiceBound *p = x, *q = y;

  if (p->energy != q->energy)
    return p->energy < q->energy ? -1 : 1;
  return p->index < q->index ? -1 : p->index > q->index;
}

/* The seed search of one storage choice's templates, shared by the
 * threads that run it: each takes the next template not yet taken. */
typedef struct {
  const FfmWorkload *w;
  const FfmArch *a;
  FfmMemoryBudget *budget;
  const GPtrArray *templates;         /* of FfmPmappingTemplate* */
  const FfmPmappingOptions *options;
  const gboolean *untracked;
  FfmTemplateResult **results;        /* [templates->len], filled */
  guint n_levels;
  gint next;                          /* atomic: the next template to take */
} SeedSearch;

static void
seed_search_run (SeedSearch *s, FfmTileWorkspace *ws, gboolean helper)
{
  for (;;)
    {
      guint i = (guint) g_atomic_int_add (&s->next, 1);
      if (i >= s->templates->len)
        return;
      FfmTemplateResult *r = ffm_template_result_new (s->n_levels);
      ffm_pmapping_template_enumerate (s->w, s->a, g_ptr_array_index (s->templates, i),
                                       s->options, s->untracked, NULL, NULL, ws, r);
      r->on_helper = helper;
      s->results[i] = r;
    }
}

static gpointer
seed_search_thread (gpointer data)
{
  SeedSearch *s = data;
  FfmTileWorkspace *ws = ffm_tile_workspace_new (s->budget);

  seed_search_run (s, ws, TRUE);
  ffm_tile_workspace_free (ws);
  return NULL;
}

/* Builds the current choice's templates apart and searches them, on
 * @n_threads threads (this one included): lowers *@incumbent to the least
 * energy of a pmapping found with latency at most @latency (any latency
 * when latency is no objective), adds the templates to *@searched, sets
 * *@out_of_memory when a search ran out of budget. Every template of the
 * choice searches with the front as it was before the choice (each copies
 * it when its search starts; their pmappings join it after all have
 * ended), so the pmappings are the same on any number of threads. */
static gboolean
search_choice (TemplateBuilder *b, FfmTileWorkspace *ws, guint n_threads,
               const gboolean *untracked, double latency, double *incumbent,
               guint *searched, gboolean *out_of_memory, GError **error)
{
  g_autoptr(GPtrArray) templates =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_pmapping_template_free);
  g_autoptr(GHashTable) keys = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *out = b->out, *out_seeds = b->out_seeds;
  GHashTable *out_keys = b->keys;
  guint64 n_redundant = b->n_redundant;
  FfmPmappingOptions options = *b->opt;
  guint n_levels = ffm_arch_get_n_levels (b->a);
  g_autofree FfmTemplateResult **results = NULL;
  g_autofree GThread **threads = NULL;
  guint n_helpers = 0;
  gboolean ok;

  b->out = templates;
  b->out_seeds = NULL;
  b->keys = keys;
  ok = finish_choice (b, error);
  b->out = out;
  b->out_seeds = out_seeds;
  b->keys = out_keys;
  b->n_redundant = n_redundant;
  if (!ok)
    {
      ffm_memory_budget_release (b->budget,
                                 (guint64) templates->len * FFM_PMAPPING_TEMPLATE_BYTES);
      return FALSE;
    }
  options.max_template_seconds = 0;
  options.progress = NULL;
  results = g_new0 (FfmTemplateResult *, MAX (templates->len, 1));
  SeedSearch s = {
    .w = b->w, .a = b->a, .budget = b->budget, .templates = templates,
    .options = &options, .untracked = untracked, .results = results,
    .n_levels = n_levels, .next = 0 };
  /* A helper thread that cannot start leaves its share to the others. */
  threads = g_new0 (GThread *, MAX (n_threads, 1));
  for (guint t = 1; t < MIN (n_threads, templates->len); t++)
    {
      threads[n_helpers] = g_thread_try_new ("ffm-seeds", seed_search_thread, &s, NULL);
      if (threads[n_helpers] != NULL)
        n_helpers++;
    }
  seed_search_run (&s, ws, FALSE);
  for (guint t = 0; t < n_helpers; t++)
    g_thread_join (threads[t]);

  for (guint i = 0; i < templates->len; i++)
    {
      FfmTemplateResult *r = results[i];
      const FfmPmappingTemplate *t = g_ptr_array_index (templates, i);
      *out_of_memory |= r->out_of_memory;   /* the search proper reports it */
      for (guint g = 0; g < r->groups->len; g++)
        {
          const FfmTemplateGroup *tg = g_ptr_array_index (r->groups, g);
          const FfmPmappingGroup view = {
            .n_columns = tg->n_columns,
            .columns = (const FfmPmappingColumn *) tg->columns->data };
          int ce = ffm_pmapping_group_find_column (&view, FFM_PMAPPING_COLUMN_ENERGY, 0, 0);
          int cl = ffm_pmapping_group_find_column (&view, FFM_PMAPPING_COLUMN_LATENCY, 0, 0);
          for (guint row = 0; ce >= 0 && row < tg->n_rows; row++)
            {
              const double *v = TEMPLATE_GROUP_VALUES (tg) + (gsize) row * tg->n_columns;
              if (cl < 0 || v[cl] <= latency)
                *incumbent = MIN (*incumbent, v[ce]);
              if (b->front != NULL)
                ffm_incumbent_front_add (b->front, v[ce], cl >= 0 ? v[cl] : 0);
            }
        }
      /* Kept for the search proper, which then need not search the
       * template again (with every memory untracked, as here), unless it
       * is incomplete. */
      if (b->seed_results != NULL && !r->out_of_memory && !r->cut
          && !ffm_pmapping_options_is_cancelled (&options)
          && !g_hash_table_contains (b->seed_results, t->key))
        g_hash_table_insert (b->seed_results, g_strdup (t->key), r);
      else
        ffm_template_result_free (r);
    }
  *searched += templates->len;
  ffm_memory_budget_release (b->budget, (guint64) templates->len * FFM_PMAPPING_TEMPLATE_BYTES);
  return TRUE;
}

static gboolean
build_bounded (TemplateBuilder *b, GError **error)
{
  g_autoptr(FfmStorageBound) sb = ffm_storage_bound_new (b->w, b->a, b->einsum, b->compute);
  guint n_acc = b->e->n_accesses, n_levels = ffm_arch_get_n_levels (b->a);
  guint n = 0, searched = 0;
  gboolean out_of_memory = FALSE;
  ChoiceBound *order = NULL;
  guint8 *keep = NULL;
  g_autofree gboolean *untracked = g_new (gboolean, MAX (n_levels, 1));
  FfmTileWorkspace *ws = NULL;
  double latency = 0, incumbent = INFINITY;
  /* The seeds of one choice search side by side, as the search proper's
   * templates do. */
  guint n_threads = MIN (b->opt->n_threads > 0 ? b->opt->n_threads
                         : (guint) g_get_num_processors (), FFM_MAX_THREADS);
  gboolean ok;

  b->choices = g_array_new (FALSE, FALSE, sizeof (guint64));
  b->bound = sb;
  b->collecting = TRUE;
  ok = choose_level (b, 0, error);
  b->collecting = FALSE;
  b->bound = NULL;
  if (ok)
    {
      n = b->choices->len / n_acc;
      order = g_new (ChoiceBound, MAX (n, 1));
      keep = g_new0 (guint8, MAX (n, 1));
    }
  for (guint i = 0; ok && i < n; i++)
    {
      g_autoptr(GError) local = NULL;
      double l;
      order[i].index = i;
      /* a bound path that does not compile bounds nothing: 0 */
      if (ffm_storage_bound_evaluate (sb, &g_array_index (b->choices, guint64,
                                                          (gsize) i * n_acc),
                                      &order[i].energy, &l, &local))
        latency = l;
      else
        {
          g_debug ("Einsum %s: no bound for a storage choice: %s", b->e->name,
                   local->message);
          order[i].energy = 0;
        }
    }
  if (ok)
    {
      qsort (order, n, sizeof *order, compare_choice_bounds);
      for (guint l = 0; l < MAX (n_levels, 1); l++)
        untracked[l] = TRUE;
      ws = ffm_tile_workspace_new (b->budget);
    }
  if (!(b->opt->objectives & FFM_PMAPPING_LATENCY))
    latency = INFINITY;
  for (guint k = 0; ok && k < n; k++)
    {
      guint i = order[k].index;
      if (incumbent <= order[k].energy * (1 - 1e-9))
        {
          b->n_bounded = n - k;
          break;
        }
      keep[i] = 1;
      /* Past SEED_PROBE_TEMPLATES with no pmapping at the latency bound
       * yet, none may come (a memory bounds the latency, not the compute
       * unit) and the bound could never cut: stop paying for the search
       * twice. */
      if (searched < (isinf (incumbent) ? SEED_PROBE_TEMPLATES : SEED_TEMPLATES)
          && !out_of_memory && !ffm_pmapping_options_is_cancelled (b->opt))
        {
          restore_choice (b, i);
          b->n_seeded++;
          ok = search_choice (b, ws, n_threads, untracked, latency, &incumbent, &searched,
                              &out_of_memory, error);
        }
    }
  b->n_seed_templates = searched;
  ffm_tile_workspace_free (ws);
  g_free (order);
  /* the templates proper, in the order choose_level() makes the choices */
  for (guint i = 0; ok && i < n; i++)
    if (keep[i])
      {
        restore_choice (b, i);
        ok = finish_choice (b, error);
      }
  memset (b->kept, 0, sizeof b->kept);
  g_free (keep);
  g_array_free (b->choices, TRUE);
  b->choices = NULL;
  ffm_memory_budget_release (b->budget, b->choices_charged);
  b->choices_charged = 0;
  return ok;
}

gboolean
ffm_pmapping_templates_build (const FfmWorkload *workload, const FfmArch *arch,
                              guint einsum, const FfmPmappingOptions *options,
                              const FfmEinsumConstraints *constraints,
                              FfmMemoryBudget *budget, GPtrArray *out,
                              GPtrArray *out_seeds, guint *n_cut, guint *n_bounded,
                              GError **error)
{
  const FfmEinsum *e = ffm_workload_get_einsum (workload, einsum);
  g_autoptr(GHashTable) keys = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) cut_keys = g_ptr_array_new_with_free_func (g_free);
  guint n_levels = ffm_arch_get_n_levels (arch), served = 0;

  g_return_val_if_fail (n_levels <= 64, FALSE);
  /* One front for the Einsum: its compute units' pmappings compete. */
  g_autoptr(FfmIncumbentFront) front = incumbent_front_for (workload, e, options);
  /* The seeds' results, until their templates are emitted again. */
  g_autoptr(GHashTable) seed_results = front != NULL && out_seeds != NULL
    ? g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                             (GDestroyNotify) ffm_template_result_free)
    : NULL;

  for (guint level = 0; level < n_levels; level++)
    {
      TemplateBuilder b = { 0 };
      gboolean enabled;
      gboolean ok;

      if (ffm_arch_get_level (arch, level)->kind != FFM_LEVEL_COMPUTE)
        continue;
      if (!ffm_arch_compute_enabled (arch, level, workload, einsum, &enabled,
                                     error))
        return FALSE;
      if (!enabled)
        continue;
      served++;
      b.w = workload;
      b.a = arch;
      b.e = e;
      b.einsum = einsum;
      b.eff = *options;
      b.ec = constraints;
      if (constraints != NULL && constraints->max_fused_loops >= 0
          && (options->max_fused_loops < 0
              || constraints->max_fused_loops < options->max_fused_loops))
        b.eff.max_fused_loops = constraints->max_fused_loops;
      if (constraints != NULL)
        b.exempt = ffm_einsum_constraints_orders_loops (constraints)
          ? BIT (e->n_rank_vars) - 1 : constraints->pinned_vars;
      b.opt = &b.eff;
      {
        const char *why;
        b.remainders = options->imperfect != FFM_IMPERFECT_NONE
          && ffm_cost_einsum_counts_remainders (workload, e, &why);
      }
      b.compute = level;
      b.out = out;
      b.keys = keys;
      b.budget = budget;
      b.cut_keys = cut_keys;
      b.path = ffm_arch_get_compute_path (arch, level, &b.n_path);
      b.first_memory = -1;
      for (guint p = 0; p < b.n_path && b.first_memory < 0; p++)
        if (ffm_arch_get_level (arch, b.path[p])->kind == FFM_LEVEL_MEMORY)
          b.first_memory = b.path[p];
      template_compute_relevancy (&b);
      b.out_seeds = out_seeds;
      if (choices_bounded (&b))
        {
          b.front = front;
          b.seed_results = seed_results;
          ok = build_bounded (&b, error);
        }
      else
        ok = choose_level (&b, 0, error);
      if (n_bounded != NULL)
        *n_bounded += b.n_bounded;
      if (b.n_seeded > 0)
        g_debug ("Einsum %s on %s: %u storage choices left out by their bound "
                 "(%u searched while building, %u templates)", e->name,
                 ffm_arch_get_level (arch, level)->name, b.n_bounded, b.n_seeded,
                 b.n_seed_templates);
      if (n_cut != NULL)
        *n_cut += b.n_cut;
      if (b.n_redundant > 0)
        g_debug ("Einsum %s on %s: %" G_GUINT64_FORMAT " templates with a redundant "
                 "copy left out", e->name, ffm_arch_get_level (arch, level)->name,
                 b.n_redundant);
      if (ok && b.n_complete == 0)
        {
          g_autoptr(GString) names = g_string_new (NULL);
          for (guint a = 0; a < e->n_accesses; a++)
            if (!(b.coverable & BIT (a)))
              g_string_append_printf (names, "%s%s", names->len ? ", " : "",
                                      ffm_workload_get_tensor (workload,
                                                               e->accesses[a].tensor)->name);
          g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                       "Einsum %s: no memory on the path of %s may keep %s "
                       "(architecture %s)", e->name,
                       ffm_arch_get_level (arch, level)->name,
                       names->len ? names->str : "every tensor at once",
                       ffm_arch_get_name (arch));
          ok = FALSE;
        }
      g_free (b.path);
      if (!ok)
        return FALSE;
    }
  if (served == 0)
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_UNSERVED,
                   "Einsum %s: no compute unit of architecture %s serves it "
                   "(every `enabled` is false)", e->name, ffm_arch_get_name (arch));
      return FALSE;
    }
  return TRUE;
}
