/* ffm-pmapping-waves.c: joinable parts between Einsums
 * (options.drop_unjoinable): the generation's jobs in two waves, the parts
 * the first wave leaves the second (as bytes for other processes:
 * ffm-pmapping-jobs.h), and the groups that no other user of a shared
 * tensor agrees with dropped once every Einsum is done. */
#include "ffm-pmapping-private.h"
#include "ffm-joinable-parts-private.h"
#include "ffm-pmapping-jobs.h"
#include <ffm/ffm-tsan.h>

#include <string.h>

/* ---- Joinable parts (options.drop_unjoinable) ----
 *
 * Pmappings of Einsums that share a tensor must agree on its part
 * (ffm-joinable-parts-private.h) to be joined. The Einsums are generated
 * in two waves: first those with no tensor of their own (every tensor
 * shared with another Einsum: nothing else to place, so the fewest
 * pmappings; in a transformer the attention's QK, softmax and AV), then
 * the rest, each skipping the vectors whose part some finished Einsum
 * sharing the tensor lacks. GPT-3 6.7B's V projection, for one, makes
 * 924 parts of its output where AV reads 47 (batch 1, 2048 tokens, any
 * number of fused loops). When every Einsum is done, groups whose part
 * some other user of the tensor lacks are dropped, until none is. Only
 * pmappings that no join can use go, so the optimum is the same; the
 * Pareto groups that stay are those of a generation without parts, row
 * for row. */

/* The Einsums whose pmappings @rep's are (itself and those reusing it). */
static GPtrArray *
reuse_members (FfmPmappingSet *set, FfmEinsumPmappings *rep)
{
  GPtrArray *members = g_ptr_array_new ();

  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      if (pm == rep || pm->same_as == rep)
        g_ptr_array_add (members, pm);
    }
  return members;
}

static gboolean
tensor_is_shared (FfmPmappingSet *set, guint tensor)
{
  return (ffm_workload_get_tensor (set->workload, tensor)->classes
          & FFM_TENSOR_SHARED) != 0;
}

/* Whether @rep goes in the first wave: no Einsum it stands for has a
 * tensor of its own. */
static gboolean
first_wave (FfmPmappingSet *set, FfmEinsumPmappings *rep)
{
  g_autoptr(GPtrArray) members = reuse_members (set, rep);

  for (guint i = 0; i < members->len; i++)
    {
      FfmEinsumPmappings *m = g_ptr_array_index (members, i);
      for (guint a = 0; a < m->e->n_accesses; a++)
        if (!tensor_is_shared (set, m->e->accesses[a].tensor))
          return FALSE;
    }
  return TRUE;
}

/* The parts that @user's groups have for @tensor: their hashes (sorted,
 * unique), and what they are made of appended to @list (of FfmPart, one
 * per hash: tens of thousands of groups share a few hundred parts; may be
 * NULL). Before the copies, an Einsum reused for another has the other's
 * groups; after them its own, which the finished set's pass thins out
 * apart from the other's. */
static GArray *
user_parts (FfmPmappingSet *set, FfmEinsumPmappings *user, guint tensor, GArray *list)
{
  FfmEinsumPmappings *src = user->same_as != NULL && !user->copied ? user->same_as : user;
  int access = ffm_einsum_find_access (user->e, tensor);
  GArray *hashes = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GHashTable) listed = list != NULL
    ? g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL) : NULL;

  for (guint i = 0; access >= 0 && i < src->groups->len; i++)
    {
      const FfmCompatibility *c = &((EinsumGroup *) g_ptr_array_index (src->groups, i))->pub.compat;
      for (guint t = 0; t < c->n_tensors; t++)
        if (c->tensors[t].access == (guint) access)
          {
            FfmPart part;
            guint64 h = ffm_joinable_part_of_compat (set->workload, src->e, c, t, &part);
            g_array_append_val (hashes, h);
            if (list != NULL && !g_hash_table_contains (listed, &h))
              {
                g_hash_table_add (listed, g_memdup2 (&h, sizeof h));
                g_array_append_val (list, part);
              }
          }
    }
  ffm_joinable_hashes_sort_unique (hashes);
  return hashes;
}

/* The parts @rep's generation may keep, from the Einsums @done: per
 * access, the union over the Einsums it stands for of what every done
 * user of their tensor has (the intersection over those users); no list
 * where one of them has an unshared tensor there or no done user. NULL
 * when no access has a list. */
static FfmJoinableParts *
joinable_parts_from_done (FfmPmappingSet *set, FfmEinsumPmappings *rep,
                          const gboolean *done)
{
  g_autoptr(GPtrArray) members = reuse_members (set, rep);
  g_autoptr(FfmJoinableParts) parts = ffm_joinable_parts_new ();

  for (guint a = 0; a < rep->e->n_accesses; a++)
    {
      g_autoptr(GArray) allowed = g_array_new (FALSE, FALSE, sizeof (FfmPart));
      gboolean any = FALSE;
      for (guint i = 0; i < members->len && !any; i++)
        {
          FfmEinsumPmappings *m = g_ptr_array_index (members, i);
          guint tensor = m->e->accesses[a].tensor;
          g_autoptr(GArray) common = NULL;      /* hashes */
          g_autoptr(GArray) list = NULL;        /* the first done user's parts */
          if (!tensor_is_shared (set, tensor))
            {
              any = TRUE;
              break;
            }
          for (guint u = 0; u < set->einsums->len; u++)
            {
              FfmEinsumPmappings *user = g_ptr_array_index (set->einsums, u);
              FfmEinsumPmappings *urep = user->same_as != NULL ? user->same_as : user;
              if (user == m || !done[urep->einsum]
                  || ffm_einsum_find_access (user->e, tensor) < 0)
                continue;
              if (common == NULL)
                {
                  list = g_array_new (FALSE, FALSE, sizeof (FfmPart));
                  common = user_parts (set, user, tensor, list);
                }
              else
                {
                  g_autoptr(GArray) theirs = user_parts (set, user, tensor, NULL);
                  guint n = 0;
                  for (guint k = 0; k < common->len; k++)
                    if (ffm_joinable_hashes_have (theirs, g_array_index (common, guint64, k)))
                      g_array_index (common, guint64, n++) = g_array_index (common, guint64, k);
                  g_array_set_size (common, n);
                }
            }
          if (common == NULL)
            {
              any = TRUE;
              break;
            }
          for (guint k = 0; k < list->len; k++)
            {
              FfmPart p = g_array_index (list, FfmPart, k);
              if (ffm_joinable_hashes_have (common, ffm_joinable_part_hash (p.level, p.persistent,
                                                              p.loops, p.n_loops)))
                g_array_append_val (allowed, p);
            }
        }
      if (!any)
        ffm_joinable_parts_restrict (parts, a, allowed);
    }
  if (ffm_joinable_parts_count_restricted (parts) == 0)
    return NULL;
  return g_steal_pointer (&parts);
}

/* With options.drop_unjoinable (and every Einsum): the jobs of the first
 * wave first, each wave in the generator's order (Einsum by Einsum), and
 * @jobs->n_first the first wave's; nothing changes when a wave would be
 * empty. */
void
pmapping_jobs_order_in_waves (FfmPmappingJobs *jobs)
{
  FfmPmappingSet *set = jobs->set;
  guint n_einsums = ffm_workload_get_n_einsums (set->workload);
  g_autoptr(GPtrArray) ordered = NULL;
  guint n_first = 0;

  jobs->wave1 = g_new0 (gboolean, MAX (n_einsums, 1));
  if (!set->options.drop_unjoinable || set->options.einsum >= 0)
    return;
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      if (pm->same_as == NULL)
        jobs->wave1[pm->einsum] = first_wave (set, pm);
    }
  for (guint i = 0; i < jobs->jobs->len; i++)
    n_first += jobs->wave1[((PmappingJob *) g_ptr_array_index (jobs->jobs, i))->pm->einsum] ? 1 : 0;
  if (n_first == 0 || n_first == jobs->jobs->len)
    return;
  ordered = g_ptr_array_new_full (jobs->jobs->len, g_free);
  for (int wave = 1; wave >= 0; wave--)
    for (guint i = 0; i < jobs->jobs->len; i++)
      {
        PmappingJob *job = g_ptr_array_index (jobs->jobs, i);
        if (jobs->wave1[job->pm->einsum] == (wave == 1))
          g_ptr_array_add (ordered, job);
      }
  /* The jobs move to @ordered: the old array must not free them. */
  g_ptr_array_set_free_func (jobs->jobs, NULL);
  g_ptr_array_unref (jobs->jobs);
  jobs->jobs = g_steal_pointer (&ordered);
  jobs->n_first = n_first;
}

guint
ffm_pmapping_jobs_get_n_first_wave (const FfmPmappingJobs *jobs)
{
  return jobs->n_first;
}

/* Gives @pm the parts @parts (transfer full), charged to the budget.
 * FALSE (the generation failed) when they do not fit. */
static gboolean
einsum_pmappings_set_joinable (FfmPmappingSet *set, FfmEinsumPmappings *pm, FfmJoinableParts *parts)
{
  gsize bytes = ffm_joinable_parts_get_bytes (parts);

  ffm_memory_budget_release (set->budget, pm->joinable_charged);
  pm->joinable_charged = 0;
  ffm_joinable_parts_free (pm->joinable);
  pm->joinable = parts;
  if (ffm_memory_budget_reserve (set->budget, bytes))
    {
      pm->joinable_charged = bytes;
      return TRUE;
    }
  {
    g_autofree char *what = g_strdup_printf ("Einsum %s: the parts of its tensors "
                                             "its users have", pm->e->name);
    pmapping_set_fail_out_of_memory (set, what, bytes);
  }
  return FALSE;
}

#define PARTS_MAGIC 0x50464d46u   /* "FFMP" */

#define PARTS_VERSION 1u

typedef struct {
  guint32 magic;
  guint32 version;
  guint32 part_size;        /* sizeof (FfmPart) of the writer */
  guint32 n_lists;
} PartsHeader;

typedef struct {
  guint32 einsum;
  guint32 access;
  guint32 n_parts;
  guint32 reserved;
} PartsList;

GBytes *
ffm_pmapping_jobs_begin_second_wave (FfmPmappingJobs *jobs)
{
  FfmPmappingSet *set = jobs->set;
  GByteArray *out = g_byte_array_new ();
  PartsHeader h = { PARTS_MAGIC, PARTS_VERSION, sizeof (FfmPart), 0 };

  g_return_val_if_fail (!jobs->second_begun, NULL);
  jobs->second_begun = TRUE;
  g_byte_array_append (out, (const guint8 *) &h, sizeof h);
  if (jobs->n_first == 0 || ffm_pmapping_options_is_cancelled (&set->options)
      || pmapping_set_failed (set))
    return g_byte_array_free_to_bytes (out);  /* the second wave skips */
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      FfmJoinableParts *parts;
      if (pm->same_as != NULL || jobs->wave1[pm->einsum] || pm->templates->len == 0)
        continue;
      parts = joinable_parts_from_done (set, pm, jobs->wave1);
      if (parts == NULL)
        continue;
      if (!einsum_pmappings_set_joinable (set, pm, parts))
        break;
      g_debug ("Einsum %s: generated after the Einsums without a tensor of their "
               "own, keeping only their parts of %u of its tensors", pm->e->name,
               ffm_joinable_parts_count_restricted (pm->joinable));
      for (guint a = 0; a < pm->e->n_accesses; a++)
        {
          const GArray *list = ffm_joinable_parts_get_list (pm->joinable, a);
          PartsList l = { pm->einsum, a, 0, 0 };
          if (list == NULL)
            continue;
          l.n_parts = list->len;
          g_byte_array_append (out, (const guint8 *) &l, sizeof l);
          g_byte_array_append (out, (const guint8 *) list->data,
                               (guint) (sizeof (FfmPart) * list->len));
          h.n_lists++;
        }
    }
  memcpy (out->data, &h, sizeof h);
  return g_byte_array_free_to_bytes (out);
}

gboolean
ffm_pmapping_jobs_set_second_wave (FfmPmappingJobs *jobs, GBytes *bytes, GError **error)
{
  FfmPmappingSet *set = jobs->set;
  gsize size, at = sizeof (PartsHeader);
  const guint8 *data = g_bytes_get_data (bytes, &size);
  PartsHeader h;
  guint n_einsums = ffm_workload_get_n_einsums (set->workload);
  g_autofree FfmJoinableParts **parts = g_new0 (FfmJoinableParts *, MAX (n_einsums, 1));
  gboolean ok = TRUE;
  const char *why = "bytes left over";
  gsize list_at = sizeof (PartsHeader);

  g_return_val_if_fail (!jobs->second_begun, FALSE);
  jobs->second_begun = TRUE;
  if (size < sizeof h)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "the second wave's parts: %zu bytes, shorter than their header", size);
      return FALSE;
    }
  memcpy (&h, data, sizeof h);
  if (h.magic != PARTS_MAGIC)
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "the second wave's parts: %zu bytes that do not start as parts do",
                   size);
      return FALSE;
    }
  if (h.version != PARTS_VERSION || h.part_size != sizeof (FfmPart))
    {
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                   "the second wave's parts come from another ffm build (format "
                   "%u, parts of %u bytes; this one reads %u, %zu bytes)",
                   h.version, h.part_size, PARTS_VERSION, sizeof (FfmPart));
      return FALSE;
    }
  for (guint k = 0; k < h.n_lists && ok; k++)
    {
      PartsList l;
      FfmEinsumPmappings *pm;
      g_autoptr(GArray) list = NULL;
      list_at = at;
      if (size - at < sizeof l)
        {
          why = "cut short";
          ok = FALSE;
          break;
        }
      memcpy (&l, data + at, sizeof l);
      at += sizeof l;
      pm = l.einsum < n_einsums ? set->by_einsum[l.einsum] : NULL;
      if (pm == NULL || pm->same_as != NULL || jobs->wave1[l.einsum]
          || l.access >= pm->e->n_accesses || l.access >= FFM_MAX_EINSUM_TENSORS)
        {
          why = "names no access of an Einsum of the second wave";
          ok = FALSE;
          break;
        }
      if ((size - at) / sizeof (FfmPart) < l.n_parts)
        {
          why = "cut short";
          ok = FALSE;
          break;
        }
      list = g_array_sized_new (FALSE, FALSE, sizeof (FfmPart), l.n_parts);
      g_array_append_vals (list, data + at, l.n_parts);
      at += sizeof (FfmPart) * l.n_parts;
      for (guint i = 0; i < list->len; i++)
        if (g_array_index (list, FfmPart, i).n_loops > FFM_COMPAT_MAX_LOOPS)
          {
            why = "has a part of too many loops";
            ok = FALSE;
          }
      if (!ok)
        break;
      if (parts[l.einsum] == NULL)
        parts[l.einsum] = ffm_joinable_parts_new ();
      ffm_joinable_parts_restrict (parts[l.einsum], l.access, list);
    }
  if (ok && at != size)
    {
      list_at = at;
      ok = FALSE;
    }
  for (guint e = 0; e < n_einsums; e++)
    {
      if (parts[e] == NULL)
        continue;
      if (ok)
        ok = einsum_pmappings_set_joinable (set, set->by_einsum[e], g_steal_pointer (&parts[e]));
      else
        ffm_joinable_parts_free (g_steal_pointer (&parts[e]));
    }
  if (ok)
    g_debug ("the second wave's parts: %u lists in %zu bytes", h.n_lists, size);
  if (!ok && set->failure == NULL)
    g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED,
                 "the second wave's parts are not those of this workload's jobs "
                 "(%zu bytes: the list at byte %zu %s)", size,
                 list_at, why);
  else if (!ok)
    g_propagate_error (error, g_error_copy (set->failure));
  return ok;
}

/* Drops the groups whose part of a shared tensor some other user of the
 * tensor lacks, until there is none (every Einsum generated). */
void
pmapping_set_drop_unjoinable_groups (FfmPmappingSet *set)
{
  gboolean changed = TRUE;

  while (changed)
    {
      changed = FALSE;
      for (guint i = 0; i < set->einsums->len; i++)
        {
          FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
          g_autofree gboolean *dead = g_new0 (gboolean, MAX (pm->groups->len, 1));
          guint n = 0;
          for (guint a = 0; a < pm->e->n_accesses; a++)
            {
              guint tensor = pm->e->accesses[a].tensor;
              if (!tensor_is_shared (set, tensor))
                continue;
              for (guint u = 0; u < set->einsums->len; u++)
                {
                  FfmEinsumPmappings *user = g_ptr_array_index (set->einsums, u);
                  g_autoptr(GArray) theirs = NULL;
                  if (user == pm || ffm_einsum_find_access (user->e, tensor) < 0)
                    continue;
                  theirs = user_parts (set, user, tensor, NULL);
                  for (guint k = 0; k < pm->groups->len; k++)
                    {
                      const FfmCompatibility *c = &((EinsumGroup *) g_ptr_array_index (pm->groups, k))->pub.compat;
                      for (guint t = 0; t < c->n_tensors && !dead[k]; t++)
                        if (c->tensors[t].access == a
                            && !ffm_joinable_hashes_have (theirs, ffm_joinable_part_of_compat (set->workload,
                                                                                pm->e, c, t, NULL)))
                          dead[k] = TRUE;
                    }
                }
            }
          for (guint k = 0; k < pm->groups->len; k++)
            {
              EinsumGroup *g = g_ptr_array_index (pm->groups, k);
              if (dead[k])
                {
                  /* Its rows were charged with the merged set's
                   * (einsum_pmappings_merge()); the tile pool keeps theirs. */
                  gsize bytes = MIN (pmapping_group_bytes (g), pm->charged);
                  ffm_memory_budget_release (pm->budget, bytes);
                  pm->charged -= bytes;
                  pmapping_group_free (g);
                }
              else
                g_ptr_array_index (pm->groups, n++) = g;
            }
          if (n < pm->groups->len)
            {
              pm->n_groups_unjoinable += pm->groups->len - n;
              g_ptr_array_set_size (pm->groups, n);
              changed = TRUE;
            }
        }
    }
  for (guint i = 0; i < set->einsums->len; i++)
    {
      FfmEinsumPmappings *pm = g_ptr_array_index (set->einsums, i);
      g_debug ("Einsum %s: %" G_GUINT64_FORMAT " vectors of unjoinable parts skipped, "
               "%u groups dropped, %u kept", pm->e->name, pm->n_unjoinable,
               pm->n_groups_unjoinable, pm->groups->len);
    }
}
