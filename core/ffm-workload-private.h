/* ffm-workload-private.h (private): the inside of an FfmWorkload, shared by
 * the model (ffm-workload.c), the JSON loader (ffm-workload-loader*.c) and
 * the JSON writer (ffm-workload-writer.c). */
#pragma once

#include <ffm/ffm-workload.h>

G_BEGIN_DECLS

/* The "ffm_workload" version the loader reads and the writer writes. */
#define FFM_WORKLOAD_FORMAT_VERSION 1

/* One declared rank size, for show-workload and lookups. */
typedef struct {
  char *name;
  guint64 size;                 /* values, >= 1 */
} FfmRankSize;

struct _FfmWorkload {
  gatomicrefcount ref;
  char *name;
  char *description;            /* may be NULL */
  char *data_source;            /* the file's "source" text, may be NULL */
  char *layer;                  /* may be NULL */
  char *source_file;            /* path or display name */
  FfmParamSpec *param_specs;    /* heap, NULL-name-terminated, never NULL */
  FfmParamValues *param_values; /* every parameter with a value, resolved */

  GArray *tensors;              /* of FfmTensor */
  GArray *einsums;              /* of FfmEinsum */
  GArray *ranks;                /* of FfmRankSize, in declaration order */
  GPtrArray *tensor_readers;    /* per tensor: GArray of guint Einsum indices */
  GArray *tensor_values;        /* per tensor: guint64, largest footprint */
  GHashTable *tensor_index;     /* name -> index + 1 */
  GHashTable *einsum_index;     /* name -> index + 1 */
  GHashTable *left_out;         /* tensor or Einsum name found only in Einsums
                                   a "when" left out -> that condition (owned) */
};

/* ffm_projection_extent(), inline for the pmapping generator's hot loops
 * (the public function is this). */
static inline guint64
ffm_projection_extent_inline (const FfmProjection *projection, const guint64 *tile)
{
  guint64 extent = 1;

  for (guint t = 0; t < projection->n_terms; t++)
    {
      guint64 span, step;
      guint64 size = tile[projection->terms[t].var];
      if (size == 0)
        return 0;
      if (__builtin_mul_overflow ((guint64) projection->terms[t].coefficient,
                                  size - 1, &span)
          || __builtin_add_overflow (extent, span, &step))
        return G_MAXUINT64;
      extent = step;
    }
  return extent;
}

/* An empty workload named @name (no tensors, no Einsums). */
FfmWorkload *ffm_workload_new_empty (const char *name, const char *source_file);

/* Resolves a set-expression identifier in Einsum @einsum. @decided_roles
 * (FfmTensorRole flags) and @persistent_decided say which of the role and
 * persistent names may be used yet: while the loader computes roles, the
 * later ones are unknown names. */
gboolean ffm_workload_resolve_set_name (const FfmWorkload *workload,
                                        guint einsum,
                                        guint decided_roles,
                                        gboolean persistent_decided,
                                        const char *name,
                                        FfmValue *out);

/* TRUE if @name is a class word (all, inputs, weight, ...; any case). */
gboolean ffm_workload_is_class_word (const char *name);
/* TRUE if @name may name a tensor: not a class word as the expressions
 * spell it (all lower case); "Weights" may, and then means the tensor. */
gboolean ffm_workload_tensor_name_allowed (const char *name);

/* Footprint of @access at the full bounds, or FALSE on guint64 overflow. */
gboolean ffm_workload_access_values_checked (const FfmEinsum *einsum,
                                             guint access,
                                             guint64 *out);

G_END_DECLS
