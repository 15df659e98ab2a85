/* ffm-pmapping-set.c: what a generation holds per Einsum
 * (FfmEinsumPmappings) and in all (FfmPmappingSet): the templates' groups
 * merged in template order (phase 3 of ffm-pmapping.c), the groups of an
 * Einsum equal to an earlier one copied, the memories the join tracks
 * chosen and the other memories' columns dropped (phase 4), a failure and
 * the error of an Einsum without pmappings, and the set read back
 * (ffm-pmapping.h). */
#include "ffm-pmapping-private.h"
#include "ffm-einsum-front-private.h"
#include "ffm-joinable-parts-private.h"
#include "ffm-pmapping-diagnostics.h"
#include <ffm/ffm-tsan.h>
#include <ffm/ffm-format.h>

#include <math.h>
#include <string.h>

#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))

void
pmapping_group_free (EinsumGroup *g)
{
  g_array_free (g->columns, TRUE);
  g_array_free (g->values, TRUE);
  g_array_free (g->refs, TRUE);
  g_free (g);
}

/* The bytes of @g's rows, as charged to the budget. */
gsize
pmapping_group_bytes (const EinsumGroup *g)
{
  return sizeof (double) * g->values->len + sizeof (FfmPmappingRef) * g->refs->len;
}

static void
pmapping_group_sync (EinsumGroup *g)
{
  g->pub.n_columns = g->columns->len;
  g->pub.columns = (const FfmPmappingColumn *) g->columns->data;
  g->pub.n_rows = g->refs->len;
  g->pub.values = (const double *) g->values->data;
  g->pub.refs = (const FfmPmappingRef *) g->refs->data;
}

static void
pmapping_group_prune (EinsumGroup *g, guint objectives)
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
  pmapping_group_sync (g);
}

void
einsum_pmappings_free (FfmEinsumPmappings *pm)
{
  if (pm == NULL)
    return;
  ffm_memory_budget_release (pm->budget, pm->charged);
  ffm_memory_budget_release (pm->budget,
                             (gsize) pm->templates->len * FFM_PMAPPING_TEMPLATE_BYTES);
  g_ptr_array_unref (pm->templates);
  if (pm->seed_results != NULL)
    g_ptr_array_unref (pm->seed_results);
  if (pm->results != NULL)
    g_ptr_array_unref (pm->results);
  g_array_free (pm->tile_pool, TRUE);
  for (guint i = 0; i < pm->groups->len; i++)
    pmapping_group_free (g_ptr_array_index (pm->groups, i));
  g_ptr_array_free (pm->groups, TRUE);
  g_free (pm->capacity);
  ffm_memory_budget_release (pm->budget, pm->joinable_charged);
  ffm_joinable_parts_free (pm->joinable);
  ffm_einsum_front_free (pm->front);
  if (pm->jobs != NULL)
    g_ptr_array_unref (pm->jobs);
  g_free (pm);
}

/* Records the first failure of a job (@error, transfer full); the jobs
 * that start after it skip their template, and the generation fails with
 * it. */
static void
pmapping_set_fail (FfmPmappingSet *set, GError *error)
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
void
pmapping_set_fail_out_of_memory (FfmPmappingSet *set, const char *what, guint64 asked)
{
  g_autofree char *limit = ffm_format_bytes (ffm_memory_budget_get_limit (set->budget));
  g_autofree char *more = ffm_format_bytes (asked);
  g_autofree char *held = ffm_format_bytes (ffm_memory_budget_get_peak (set->budget));

  pmapping_set_fail (set, g_error_new (FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY,
                                     "%s needs more memory than the budget of %s "
                                     "allows (the generation held up to %s when it "
                                     "asked for %s more); raise the budget "
                                     "(--max-memory), or narrow the mapspace (fewer "
                                     "fused loops, no remainder tiles, mapping "
                                     "constraints)", what, limit, held, more));
}

/* After a template ran: an out-of-memory stop fails the generation. */
void
pmapping_set_check_template_result (FfmPmappingSet *set, FfmEinsumPmappings *pm,
                                    guint template_id, const FfmTemplateResult *r)
{
  if (r->out_of_memory)
    {
      g_autofree char *what = g_strdup_printf ("Einsum %s, template %u of %u: the tile "
                                               "search", pm->e->name, template_id + 1,
                                               pm->templates->len);
      pmapping_set_fail_out_of_memory (set, what, r->memory_asked);
    }
}

gboolean
pmapping_set_failed (FfmPmappingSet *set)
{
  return g_atomic_int_get (&set->failed) != 0;
}

/* Column order: objectives first (energy before latency), then
 * reservations by level and depth. */
static int
column_compare (const FfmPmappingColumn *a, const FfmPmappingColumn *b)
{
  if (a->kind != b->kind)
    return a->kind < b->kind ? -1 : 1;
  if (a->kind != FFM_PMAPPING_COLUMN_RESERVATION)
    return 0;
  if (a->level != b->level)
    return a->level < b->level ? -1 : 1;
  return a->depth < b->depth ? -1 : a->depth > b->depth ? 1 : 0;
}

static int
find_column (const GArray *columns, const FfmPmappingColumn *c)
{
  return ffm_pmapping_columns_find ((const FfmPmappingColumn *) columns->data, columns->len, c);
}

/* Templates of one Einsum on different paths (two compute units, a
 * memory one path bypasses) can make rows of one compatibility whose
 * reservation columns differ: @g takes the union of its columns and
 * @columns, a memory a row's path does not have holding 0 bits. */
static void
group_widen (EinsumGroup *g, const FfmPmappingColumn *columns, guint n_columns)
{
  g_autoptr (GArray) all = g_array_copy (g->columns);
  guint n_old = g->columns->len, n_rows = g->refs->len;
  GArray *values;

  for (guint j = 0; j < n_columns; j++)
    if (find_column (all, &columns[j]) < 0)
      g_array_append_val (all, columns[j]);
  if (all->len == n_old)
    return;
  g_array_sort (all, (GCompareFunc) column_compare);
  values = g_array_sized_new (FALSE, TRUE, sizeof (double), n_rows * all->len);
  g_array_set_size (values, (gsize) n_rows * all->len);
  for (guint j = 0; j < n_old; j++)
    {
      guint to = (guint) find_column (all, &g_array_index (g->columns, FfmPmappingColumn, j));
      for (guint row = 0; row < n_rows; row++)
        g_array_index (values, double, (gsize) row * all->len + to)
          = g_array_index (g->values, double, (gsize) row * n_old + j);
    }
  g_array_free (g->values, TRUE);
  g->values = values;
  g_array_set_size (g->columns, 0);
  g_array_append_vals (g->columns, all->data, all->len);
}

/* Appends the rows of @tg to @g, whose columns hold all of @tg's. */
static void
group_append_values (EinsumGroup *g, const FfmTemplateGroup *tg)
{
  guint n = g->columns->len;
  gboolean same = n == tg->n_columns
    && memcmp (g->columns->data, tg->columns->data, sizeof (FfmPmappingColumn) * n) == 0;
  gsize start = g->values->len;
  g_autofree guint *to = NULL;

  if (same)
    {
      g_array_append_vals (g->values, TEMPLATE_GROUP_VALUES (tg), (guint) tg->n_rows * n);
      return;
    }
  to = g_new (guint, MAX (tg->n_columns, 1));
  for (guint j = 0; j < tg->n_columns; j++)
    to[j] = (guint) find_column (g->columns,
                                 &g_array_index (tg->columns, FfmPmappingColumn, j));
  g_array_set_size (g->values, start + (gsize) tg->n_rows * n);
  memset ((double *) g->values->data + start, 0, sizeof (double) * tg->n_rows * n);
  for (guint row = 0; row < tg->n_rows; row++)
    for (guint j = 0; j < tg->n_columns; j++)
      g_array_index (g->values, double, start + (gsize) row * n + to[j])
        = TEMPLATE_GROUP_VALUES (tg)[(gsize) row * tg->n_columns + j];
}

/* A copy of @a holding its elements and no more: g_array_copy() keeps the
 * room @a grew to, which after a Pareto pruning can be many times the rows
 * kept (a 40-matmul chain's copies held 152 MB for 4 MB of rows). */
static GArray *
array_copy_exact (const GArray *a)
{
  GArray *copy = g_array_sized_new (FALSE, FALSE, g_array_get_element_size ((GArray *) a),
                                    a->len);

  g_array_append_vals (copy, a->data, a->len);
  return copy;
}

/* Gives the arrays of @g, pruned, no more room than their elements. */
static void
group_shrink (EinsumGroup *g)
{
  GArray *values = array_copy_exact (g->values), *refs = array_copy_exact (g->refs);

  g_array_free (g->values, TRUE);
  g_array_free (g->refs, TRUE);
  g->values = values;
  g->refs = refs;
  pmapping_group_sync (g);
}

/* The bytes of @pm's rows: their values, references and tiles. */
static gsize
einsum_pmappings_bytes (const FfmEinsumPmappings *pm)
{
  gsize bytes = sizeof (guint64) * pm->tile_pool->len;

  for (guint i = 0; i < pm->groups->len; i++)
    bytes += pmapping_group_bytes (g_ptr_array_index (pm->groups, i));
  return bytes;
}

/* Gives back to the budget what the rows no longer need once the finished
 * set dropped some (groups no neighbour can join, untracked columns and
 * the rows they alone kept): the charge is what is held. */
void
einsum_pmappings_recharge (FfmEinsumPmappings *pm)
{
  gsize bytes = einsum_pmappings_bytes (pm);

  if (bytes < pm->charged)
    {
      ffm_memory_budget_release (pm->budget, pm->charged - bytes);
      pm->charged = bytes;
    }
}

/* Merges the templates' groups in template order (phase 3). */
void
einsum_pmappings_merge (FfmEinsumPmappings *pm)
{
  g_autoptr(GHashTable) index = g_hash_table_new (ffm_compatibility_hash_func,
                                                  ffm_compatibility_equal_func);
  double cpu_start = ffm_thread_cpu_seconds ();

  for (guint t = 0; t < pm->results->len; t++)
    {
      FfmTemplateResult *r = g_ptr_array_index (pm->results, t);
      pm->profile.cpu_tiles += r->cpu_tiles;
      pm->profile.cpu_order += r->cpu_order;
      pm->profile.cpu_extend += r->cpu_extend;
      pm->profile.cpu_partial_pruning += r->cpu_partial_pruning;
      pm->profile.cpu_leaves += r->cpu_leaves;
      pm->profile.cpu_groups += r->cpu_groups;
      pm->profile.n_partial_rows += r->n_partial_rows;
      pm->profile.n_chain_sets += r->n_chain_sets;
      pm->profile.n_chain_sets_shared += r->n_chain_sets_shared;
      pm->profile.peak_table_rows = MAX (pm->profile.peak_table_rows, r->peak_table_rows);
      pm->stats.n_evaluated += r->n_evaluated;
      pm->stats.n_valid += r->n_valid;
      pm->stats.n_partial += r->n_partial;
      pm->n_chains_last += r->n_chains_last;
      pm->n_bucket_cuts += r->n_bucket_cuts;
      pm->profile.n_partial_beaten += r->n_beaten;
      pm->n_unjoinable += r->n_unjoinable;
      pm->stats.n_templates_cut += r->cut ? 1 : 0;
      pm->stats.seconds += r->seconds;
      for (guint k = 0; k < r->groups->len; k++)
        {
          FfmTemplateGroup *tg = g_ptr_array_index (r->groups, k);
          EinsumGroup *g = g_hash_table_lookup (index, &tg->compat);
          if (g == NULL)
            {
              g = g_new0 (EinsumGroup, 1);
              g->pub.compat = tg->compat;
              g->columns = g_array_new (FALSE, FALSE, sizeof (FfmPmappingColumn));
              g_array_append_vals (g->columns, tg->columns->data, tg->columns->len);
              g->values = g_array_new (FALSE, FALSE, sizeof (double));
              g->refs = g_array_new (FALSE, FALSE, sizeof (FfmPmappingRef));
              g_ptr_array_add (pm->groups, g);
              g_hash_table_insert (index, &g->pub.compat, g);
            }
          group_widen (g, (const FfmPmappingColumn *) tg->columns->data, tg->n_columns);
          group_append_values (g, tg);
          for (guint row = 0; row < tg->n_rows; row++)
            {
              FfmPmappingRef ref = { t, pm->tile_pool->len };
              if (r->n_loops > 0)
                g_array_append_vals (pm->tile_pool,
                                     TEMPLATE_GROUP_TILES (tg) + (gsize) row * r->n_loops,
                                     r->n_loops);
              g_array_append_val (g->refs, ref);
            }
        }
    }
  for (guint i = 0; i < pm->groups->len; i++)
    {
      pmapping_group_prune (g_ptr_array_index (pm->groups, i), pm->objectives);
      group_shrink (g_ptr_array_index (pm->groups, i));
    }
  /* The pool held the tiles of every row before the pruning: only the
   * survivors' are kept, charged and copied to the Einsums of the same
   * signature (a 400-matmul chain copied the whole pool 394 times: a
   * quarter of its CPU time and most of its 4.5 GB). Compacting again in
   * phase 4 gives the same layout: it depends only on the rows kept. */
  einsum_pmappings_compact_tiles (pm);
  /* The rows now live in the groups; only the rejection records of the
   * results are read later (for the no-pmapping error). */
  for (guint t = 0; t < pm->results->len; t++)
    ffm_template_result_clear_groups (g_ptr_array_index (pm->results, t));
  pm->profile.cpu_groups += ffm_thread_cpu_seconds () - cpu_start;
  /* The merged rows stay until the set is freed: charged to the budget. */
  {
    gsize bytes = einsum_pmappings_bytes (pm);
    if (ffm_memory_budget_reserve (pm->budget, bytes))
      pm->charged = bytes;
    else if (pm->set != NULL)
      {
        g_autofree char *what = g_strdup_printf ("Einsum %s: its Pareto pmappings",
                                                 pm->e->name);
        pmapping_set_fail_out_of_memory (pm->set, what, bytes);
      }
  }
}

/* Gives @pm a copy of the groups of @from, an Einsum with the same
 * signature: the same rows and tiles, the compatibility renamed to @pm's
 * Einsum and tensors (accesses correspond one to one). */
void
einsum_pmappings_copy (FfmEinsumPmappings *pm, const FfmEinsumPmappings *from)
{
  pm->stats.n_templates_cut = from->stats.n_templates_cut;
  for (guint i = 0; i < from->groups->len; i++)
    {
      const EinsumGroup *src = g_ptr_array_index (from->groups, i);
      EinsumGroup *g = g_new0 (EinsumGroup, 1);
      g->pub.compat = src->pub.compat;
      g->pub.compat.einsum = pm->einsum;
      for (guint k = 0; k < g->pub.compat.n_tensors; k++)
        g->pub.compat.tensors[k].tensor
          = pm->e->accesses[g->pub.compat.tensors[k].access].tensor;
      g->columns = array_copy_exact (src->columns);
      g->values = array_copy_exact (src->values);
      g->refs = array_copy_exact (src->refs);
      pmapping_group_sync (g);
      g_ptr_array_add (pm->groups, g);
    }
  g_array_append_vals (pm->tile_pool, from->tile_pool->data, from->tile_pool->len);
  pm->copied = TRUE;
}

/* Charges the budget with the copy einsum_pmappings_copy() gave @pm: the same
 * bytes as @from's rows. FALSE (and the generation failed) when they do
 * not fit. */
gboolean
einsum_pmappings_charge_copy (FfmPmappingSet *set, FfmEinsumPmappings *pm, const FfmEinsumPmappings *from)
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
    pmapping_set_fail_out_of_memory (set, what, from->charged);
  }
  return FALSE;
}

/* Keeps in the tile pool only the tiles of surviving rows. */
void
einsum_pmappings_compact_tiles (FfmEinsumPmappings *pm)
{
  GArray *pool = g_array_new (FALSE, FALSE, sizeof (guint64));

  for (guint i = 0; i < pm->groups->len; i++)
    {
      EinsumGroup *g = g_ptr_array_index (pm->groups, i);
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
void
pmapping_set_no_pmapping_error (FfmPmappingSet *set, FfmEinsumPmappings *pm,
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
void
pmapping_set_unsatisfiable_error (FfmPmappingSet *set, guint einsum, const GError *cause,
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
                                         NULL, templates, NULL, NULL, NULL, NULL);
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
 * (pmapping_set_memory_is_tracked()) whatever its tiles: the memory backs no shared
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
gboolean
pmapping_set_memory_untracked_early (FfmPmappingSet *set, guint level)
{
  const FfmLevel *l = ffm_arch_get_level (set->arch, level);

  if (l->kind != FFM_LEVEL_MEMORY)
    return FALSE;
  if (FFM_PMAPPING_TRACK_ALL_MEMORIES (&set->options))
    return isinf (l->u.memory.size);
  if (ffm_debug_flag_is_set (FFM_DEBUG_UNTRACKED_LATE))
    return FALSE;           /* tests: the columns dropped only at the end */
  return memory_holds_workload (set, level) == 1
    || memory_below_in_every_template (set, level);
}

/* A memory is tracked unless it is infinite, can hold every tensor of
 * every Einsum at once, or is always below: in every group of every
 * Einsum it reserves nothing above the group's deepest fused loop and
 * backs no shared tensor (its tiles then never live while another Einsum
 * runs, and each pmapping's own capacity check suffices). */
gboolean
pmapping_set_memory_is_tracked (FfmPmappingSet *set, guint level)
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
          EinsumGroup *g = g_ptr_array_index (pm->groups, k);
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
void
pmapping_set_drop_untracked (FfmPmappingSet *set, FfmEinsumPmappings *pm)
{
  for (guint k = 0; k < pm->groups->len; k++)
    {
      EinsumGroup *g = g_ptr_array_index (pm->groups, k);
      guint n_old = g->columns->len, n_rows = g->refs->len, n_new = 0;
      gboolean keep[FFM_DESCRIBE_MAX_COLUMNS];
      GArray *columns, *values;
      const double *from;
      double *to;

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
          n_new += keep[j];
        }
      /* Every column tracked (most groups): nothing to rebuild. */
      if (n_new == n_old)
        continue;
      columns = g_array_sized_new (FALSE, FALSE, sizeof (FfmPmappingColumn), n_new);
      for (guint j = 0; j < n_old; j++)
        if (keep[j])
          g_array_append_val (columns, g_array_index (g->columns, FfmPmappingColumn, j));
      values = g_array_sized_new (FALSE, FALSE, sizeof (double),
                                  (guint) ((gsize) n_rows * n_new));
      g_array_set_size (values, (guint) ((gsize) n_rows * n_new));
      from = (const double *) g->values->data;
      to = (double *) values->data;
      for (guint r = 0; r < n_rows; r++)
        for (guint j = 0; j < n_old; j++)
          if (keep[j])
            *to++ = from[(gsize) r * n_old + j];
      g_array_free (g->columns, TRUE);
      g_array_free (g->values, TRUE);
      g->columns = columns;
      g->values = values;
      pmapping_group_prune (g, set->options.objectives);
    }
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

guint64
ffm_pmapping_set_get_memory_peak (const FfmPmappingSet *set)
{
  return ffm_memory_budget_get_peak (set->budget);
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

guint64
ffm_pmapping_set_count_rows_beaten (const FfmPmappingSet *set)
{
  guint64 n = 0;

  g_return_val_if_fail (set != NULL, 0);
  for (guint i = 0; i < set->einsums->len; i++)
    n += ((const FfmEinsumPmappings *) g_ptr_array_index (set->einsums, i))->profile.n_partial_beaten;
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

const FfmPmappingProfile *
ffm_einsum_pmappings_get_profile (const FfmEinsumPmappings *pm)
{
  return &pm->profile;
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
  return &((EinsumGroup *) g_ptr_array_index (pm->groups, index))->pub;
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
