/* ffm-hash.h: FNV-1a, the one hash ffm uses for keys and fingerprints.
 *
 * Hash tables of compatibilities, tile-search units and join keys, and the
 * fingerprints MPI ranks compare, all need a cheap byte or word hash; each
 * used to carry its own copy of FNV-1a's constants and loop. Header-only
 * (static inline: the hash runs in hot loops), so it adds no symbol to
 * the ABI; plugins may use it too. FNV-1a: Fowler, Noll and Vo,
 * http://www.isthe.com/chongo/tech/comp/fnv/ (public domain). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define FFM_FNV1A32_INIT 2166136261u
#define FFM_FNV1A32_PRIME 16777619u
#define FFM_FNV1A64_INIT G_GUINT64_CONSTANT (14695981039346656037)
#define FFM_FNV1A64_PRIME G_GUINT64_CONSTANT (1099511628211)

/* @h (FFM_FNV1A32_INIT to start) with the @size bytes at @data. */
static inline guint32
ffm_fnv1a32 (guint32 h, const void *data, gsize size)
{
  const guint8 *p = (const guint8 *) data;

  for (gsize i = 0; i < size; i++)
    h = (h ^ p[i]) * FFM_FNV1A32_PRIME;
  return h;
}

/* @h with one 32-bit word (FNV-1a over words: a quarter of the steps for
 * keys made of whole words). */
static inline guint32
ffm_fnv1a32_word (guint32 h, guint32 word)
{
  return (h ^ word) * FFM_FNV1A32_PRIME;
}

/* @h (FFM_FNV1A64_INIT to start) with the @size bytes at @data. */
static inline guint64
ffm_fnv1a64 (guint64 h, const void *data, gsize size)
{
  const guint8 *p = (const guint8 *) data;

  for (gsize i = 0; i < size; i++)
    h = (h ^ p[i]) * FFM_FNV1A64_PRIME;
  return h;
}

G_END_DECLS
