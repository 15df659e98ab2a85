/* ffm-joinable-parts.c: the parts of shared tensors that pmappings of
 * different Einsums must agree on to be joined
 * (ffm-joinable-parts-private.h). */
#include "ffm-joinable-parts-private.h"
#include <ffm/ffm-join.h>

#include <stdlib.h>
#include <string.h>

static int
part_loop_cmp (const FfmPartLoop *a, const FfmPartLoop *b)
{
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  if (a->count != b->count)
    return a->count < b->count ? -1 : 1;
  if (a->tile != b->tile)
    return a->tile < b->tile ? -1 : 1;
  if (a->spatial != b->spatial)
    return a->spatial < b->spatial ? -1 : 1;
  if (a->fanout_level != b->fanout_level)
    return a->fanout_level < b->fanout_level ? -1 : 1;
  if (a->fanout_dim != b->fanout_dim)
    return a->fanout_dim < b->fanout_dim ? -1 : 1;
  return 0;
}

static guint64
mix (guint64 h, guint64 v)
{
  h ^= v + G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
  h *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  return h ^ (h >> 33);
}

guint64
ffm_joinable_part_hash (guint level, gboolean persistent, FfmPartLoop *loops,
                        guint n)
{
  guint64 h = G_GUINT64_CONSTANT (0x243f6a8885a308d3);

  /* Insertion sort: a tensor has at most FFM_COMPAT_MAX_LOOPS loops. */
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && part_loop_cmp (&loops[j - 1], &loops[j]) > 0; j--)
      {
        FfmPartLoop x = loops[j];
        loops[j] = loops[j - 1];
        loops[j - 1] = x;
      }
  h = mix (h, level);
  h = mix (h, persistent ? 1 : 0);
  h = mix (h, n);
  for (guint i = 0; i < n; i++)
    {
      h = mix (h, (guint64) (gint64) loops[i].rank);
      h = mix (h, loops[i].count);
      h = mix (h, loops[i].tile);
      h = mix (h, (guint64) (loops[i].spatial ? 1 : 0));
      h = mix (h, (guint64) (gint64) loops[i].fanout_level);
      h = mix (h, (guint64) (gint64) loops[i].fanout_dim);
    }
  return h;
}

guint64
ffm_joinable_part_of_compat (const FfmWorkload *workload, const FfmEinsum *einsum,
                             const FfmCompatibility *compat, guint t, FfmPart *out)
{
  const FfmCompatTensor *ct = &compat->tensors[t];
  FfmPart part;

  part.level = ct->backing_level;
  part.persistent = ct->persistent ? TRUE : FALSE;
  part.n_loops = MIN (ct->n_loops, FFM_COMPAT_MAX_LOOPS);
  for (guint k = 0; k < part.n_loops; k++)
    {
      const FfmCompatLoop *l = &compat->loops[k];
      part.loops[k].rank = ffm_join_plain_rank (workload, einsum, ct->access, l->rank_var);
      part.loops[k].spatial = l->spatial ? 1 : 0;
      part.loops[k].fanout_level = l->spatial ? l->fanout_level : -1;
      part.loops[k].fanout_dim = l->spatial ? l->fanout_dim : -1;
      part.loops[k].count = l->count;
      part.loops[k].tile = l->tile;
    }
  if (out != NULL)
    {
      guint64 h = ffm_joinable_part_hash (part.level, part.persistent, part.loops,
                                          part.n_loops);
      *out = part;
      return h;
    }
  return ffm_joinable_part_hash (part.level, part.persistent, part.loops, part.n_loops);
}

struct _FfmJoinableParts {
  GArray *allowed[FFM_MAX_EINSUM_TENSORS];  /* hashes, sorted, unique;
                                               NULL: any */
  GArray *list[FFM_MAX_EINSUM_TENSORS];     /* of FfmPart, one per hash */
};

FfmJoinableParts *
ffm_joinable_parts_new (void)
{
  return g_new0 (FfmJoinableParts, 1);
}

void
ffm_joinable_parts_free (FfmJoinableParts *parts)
{
  if (parts == NULL)
    return;
  for (guint a = 0; a < FFM_MAX_EINSUM_TENSORS; a++)
    {
      if (parts->allowed[a] != NULL)
        g_array_unref (parts->allowed[a]);
      if (parts->list[a] != NULL)
        g_array_unref (parts->list[a]);
    }
  g_free (parts);
}

static gint
hash_cmp (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

void
ffm_joinable_hashes_sort_unique (GArray *hashes)
{
  guint n = 0;

  g_array_sort (hashes, hash_cmp);
  for (guint i = 0; i < hashes->len; i++)
    if (n == 0 || g_array_index (hashes, guint64, i) != g_array_index (hashes, guint64, n - 1))
      g_array_index (hashes, guint64, n++) = g_array_index (hashes, guint64, i);
  g_array_set_size (hashes, n);
}

gboolean
ffm_joinable_hashes_have (const GArray *hashes, guint64 h)
{
  /* An empty array's data may be NULL, which bsearch() must not get. */
  return hashes->len > 0
    && bsearch (&h, hashes->data, hashes->len, sizeof (guint64), hash_cmp) != NULL;
}

typedef struct {
  guint64 hash;
  guint index;              /* into the list: the first of equal hashes wins */
} HashedPart;

static gint
hashed_part_cmp (gconstpointer a, gconstpointer b)
{
  const HashedPart *x = a, *y = b;
  if (x->hash != y->hash)
    return x->hash < y->hash ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

void
ffm_joinable_parts_restrict (FfmJoinableParts *parts, guint access,
                             const GArray *list)
{
  GArray *hashes, *kept;
  g_autofree HashedPart *by_hash = NULL;

  g_return_if_fail (parts != NULL && access < FFM_MAX_EINSUM_TENSORS && list != NULL);
  by_hash = g_new (HashedPart, MAX (list->len, 1));
  for (guint i = 0; i < list->len; i++)
    {
      FfmPart p = g_array_index (list, FfmPart, i);
      by_hash[i].hash = ffm_joinable_part_hash (p.level, p.persistent, p.loops, p.n_loops);
      by_hash[i].index = i;
    }
  qsort (by_hash, list->len, sizeof (HashedPart), hashed_part_cmp);
  /* One part per hash, for the projections. */
  hashes = g_array_sized_new (FALSE, FALSE, sizeof (guint64), list->len);
  kept = g_array_new (FALSE, FALSE, sizeof (FfmPart));
  for (guint i = 0; i < list->len; i++)
    if (i == 0 || by_hash[i].hash != by_hash[i - 1].hash)
      {
        g_array_append_val (hashes, by_hash[i].hash);
        g_array_append_val (kept, g_array_index (list, FfmPart, by_hash[i].index));
      }
  if (parts->allowed[access] != NULL)
    g_array_unref (parts->allowed[access]);
  if (parts->list[access] != NULL)
    g_array_unref (parts->list[access]);
  parts->allowed[access] = hashes;
  parts->list[access] = kept;
}

const GArray *
ffm_joinable_parts_get_list (const FfmJoinableParts *parts, guint access)
{
  return parts != NULL && access < FFM_MAX_EINSUM_TENSORS ? parts->list[access] : NULL;
}

gsize
ffm_joinable_parts_get_bytes (const FfmJoinableParts *parts)
{
  gsize bytes = 0;

  for (guint a = 0; parts != NULL && a < FFM_MAX_EINSUM_TENSORS; a++)
    if (parts->allowed[a] != NULL)
      bytes += parts->allowed[a]->len * (sizeof (guint64) + sizeof (FfmPart));
  return bytes;
}

gboolean
ffm_joinable_parts_restricts (const FfmJoinableParts *parts, guint access)
{
  return parts != NULL && access < FFM_MAX_EINSUM_TENSORS
    && parts->allowed[access] != NULL;
}

gboolean
ffm_joinable_parts_allows (const FfmJoinableParts *parts, guint access, guint64 part)
{
  if (!ffm_joinable_parts_restricts (parts, access))
    return TRUE;
  return ffm_joinable_hashes_have (parts->allowed[access], part);
}

GArray *
ffm_joinable_parts_project (const FfmJoinableParts *parts, guint access,
                            guint64 rank_mask)
{
  GArray *out;

  if (!ffm_joinable_parts_restricts (parts, access))
    return NULL;
  out = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < parts->list[access]->len; i++)
    {
      const FfmPart *p = &g_array_index (parts->list[access], FfmPart, i);
      FfmPartLoop loops[FFM_COMPAT_MAX_LOOPS];
      guint n = 0;
      guint64 h;
      /* The loops stay sorted. */
      for (guint k = 0; k < p->n_loops; k++)
        if (p->loops[k].rank >= 0 && p->loops[k].rank < 64
            && (rank_mask & (G_GUINT64_CONSTANT (1) << p->loops[k].rank)))
          loops[n++] = p->loops[k];
      h = ffm_joinable_part_hash (p->level, p->persistent, loops, n);
      g_array_append_val (out, h);
    }
  ffm_joinable_hashes_sort_unique (out);
  return out;
}

guint
ffm_joinable_parts_count_restricted (const FfmJoinableParts *parts)
{
  guint n = 0;

  for (guint a = 0; parts != NULL && a < FFM_MAX_EINSUM_TENSORS; a++)
    n += parts->allowed[a] != NULL;
  return n;
}
