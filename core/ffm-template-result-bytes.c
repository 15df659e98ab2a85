/* ffm-template-result-bytes.c: a template's enumeration result as flat
 * bytes and back (ffm-pmapping-private.h), so that a job can run in
 * another process (ffm-pmapping-jobs.h). The rows are the generator's own
 * flat arrays, copied as they are: a double keeps its bits. */
#include "ffm-pmapping-private.h"

#include <string.h>

#define RESULT_MAGIC 0x52464d46u   /* "FFMR" */
#define RESULT_VERSION 5u
#define RESULT_OUT_OF_MEMORY 1u   /* flags: the search ran out of its budget */
#define RESULT_CUT 2u             /* flags: stopped by its time limit */

typedef struct {
  guint32 magic;
  guint32 version;
  guint32 compat_size;      /* sizeof (FfmCompatibility) of the writer */
  guint32 column_size;      /* sizeof (FfmPmappingColumn) */
  guint32 n_levels;
  guint32 n_loops;
  guint32 n_groups;
  guint32 flags;            /* RESULT_OUT_OF_MEMORY */
  guint64 n_evaluated;
  guint64 n_valid;
  guint64 n_partial;
  double seconds;
  guint64 memory_asked;     /* with RESULT_OUT_OF_MEMORY: bytes it asked for */
  guint64 n_chains_last;
  guint64 n_bucket_cuts;
  guint64 n_unjoinable;     /* vectors left out for their parts */
  guint64 n_beaten;         /* partial rows the incumbent front beat */
} ResultHeader;

typedef struct {
  FfmCompatibility compat;
  guint32 n_columns;
  guint32 n_rows;
  guint32 pruned_rows;
  guint32 reserved;
} GroupHeader;

GBytes *
ffm_template_result_to_bytes (const FfmTemplateResult *r, guint n_levels)
{
  GByteArray *out = g_byte_array_new ();
  ResultHeader h;

  memset (&h, 0, sizeof h);
  h.magic = RESULT_MAGIC;
  h.version = RESULT_VERSION;
  h.compat_size = sizeof (FfmCompatibility);
  h.column_size = sizeof (FfmPmappingColumn);
  h.n_levels = n_levels;
  h.n_loops = r->n_loops;
  h.n_groups = r->groups->len;
  h.n_evaluated = r->n_evaluated;
  h.n_valid = r->n_valid;
  h.n_partial = r->n_partial;
  h.n_chains_last = r->n_chains_last;
  h.n_bucket_cuts = r->n_bucket_cuts;
  h.n_beaten = r->n_beaten;
  h.n_unjoinable = r->n_unjoinable;
  h.seconds = r->seconds;
  h.flags = (r->out_of_memory ? RESULT_OUT_OF_MEMORY : 0) | (r->cut ? RESULT_CUT : 0);
  h.memory_asked = r->memory_asked;
  g_byte_array_append (out, (const guint8 *) &h, sizeof h);
  g_byte_array_append (out, (const guint8 *) r->rejected, sizeof (guint64) * n_levels);
  g_byte_array_append (out, (const guint8 *) r->min_excess, sizeof (double) * n_levels);
  g_byte_array_append (out, (const guint8 *) r->min_need, sizeof (double) * n_levels);
  for (guint k = 0; k < r->groups->len; k++)
    {
      const FfmTemplateGroup *g = g_ptr_array_index (r->groups, k);
      GroupHeader gh;

      memset (&gh, 0, sizeof gh);
      gh.compat = g->compat;
      gh.n_columns = g->n_columns;
      gh.n_rows = g->n_rows;
      gh.pruned_rows = g->pruned_rows;
      g_byte_array_append (out, (const guint8 *) &gh, sizeof gh);
      g_byte_array_append (out, (const guint8 *) g->columns->data,
                           sizeof (FfmPmappingColumn) * g->n_columns);
      if (g->n_rows > 0)
        {
          g_byte_array_append (out, (const guint8 *) TEMPLATE_GROUP_VALUES (g),
                               sizeof (double) * g->n_rows * g->n_columns);
          g_byte_array_append (out, (const guint8 *) TEMPLATE_GROUP_TILES (g),
                               sizeof (guint64) * g->n_rows * r->n_loops);
        }
    }
  return g_byte_array_free_to_bytes (out);
}

/* Reading: a cursor that refuses to pass the end. */
typedef struct {
  const guint8 *p;
  gsize left;
} Cursor;

static gboolean
take (Cursor *c, void *out, gsize n_items, gsize item_size)
{
  if (item_size != 0 && n_items > c->left / item_size)
    return FALSE;
  /* An empty GArray's data may be NULL: memcpy must not see it. */
  if (n_items == 0 || item_size == 0)
    return TRUE;
  memcpy (out, c->p, n_items * item_size);
  c->p += n_items * item_size;
  c->left -= n_items * item_size;
  return TRUE;
}

static gboolean
take_array (Cursor *c, GArray *a, gsize n_items, gsize item_size)
{
  if (item_size != 0 && n_items > c->left / item_size)
    return FALSE;
  g_array_set_size (a, (guint) n_items);
  return take (c, a->data, n_items, item_size);
}

/* Into a budget buffer of @r's groups (exactly the bytes taken). FALSE
 * when the bytes are not there; TRUE with *@refused set when @r's budget
 * (the generation's, on the rank that merges) cannot hold them. */
static gboolean
take_buffer (Cursor *c, FfmBudgetBuffer *b, FfmTemplateResult *r, gsize n_items,
             gsize item_size, gboolean *refused)
{
  if (item_size != 0 && n_items > c->left / item_size)
    return FALSE;
  if (n_items == 0 || item_size == 0)
    return TRUE;
  if (*refused || !ffm_budget_buffer_reserve (b, r->budget, n_items * item_size))
    {
      /* The rest is read past, still checked. */
      if (!*refused)
        {
          *refused = TRUE;
          r->out_of_memory = TRUE;
          r->memory_asked = n_items * item_size;
        }
      c->p += n_items * item_size;
      c->left -= n_items * item_size;
      return TRUE;
    }
  return take (c, b->data, n_items, item_size);
}

gboolean
ffm_template_result_from_bytes (FfmTemplateResult *r, guint n_levels,
                                GBytes *bytes, GError **error)
{
  Cursor c;
  ResultHeader h;
  gsize size;
  gboolean refused = FALSE;

  c.p = g_bytes_get_data (bytes, &size);
  c.left = size;
  if (!take (&c, &h, 1, sizeof h) || h.magic != RESULT_MAGIC)
    goto bad;
  if (h.version != RESULT_VERSION || h.compat_size != sizeof (FfmCompatibility)
      || h.column_size != sizeof (FfmPmappingColumn))
    {
      g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "it comes from another build of ffm (format %u, "
                   "structures of %u and %u bytes; this one: %u, %zu, %zu): "
                   "run the same ffm on every rank",
                   h.version, h.compat_size, h.column_size, RESULT_VERSION,
                   sizeof (FfmCompatibility), sizeof (FfmPmappingColumn));
      return FALSE;
    }
  if (h.n_levels != n_levels)
    goto bad;
  if (!take (&c, r->rejected, n_levels, sizeof (guint64))
      || !take (&c, r->min_excess, n_levels, sizeof (double))
      || !take (&c, r->min_need, n_levels, sizeof (double)))
    goto bad;
  r->n_loops = h.n_loops;
  r->n_evaluated = h.n_evaluated;
  r->n_valid = h.n_valid;
  r->n_partial = h.n_partial;
  r->n_chains_last = (guint) MIN (h.n_chains_last, G_MAXUINT);
  r->n_bucket_cuts = h.n_bucket_cuts;
  r->n_beaten = h.n_beaten;
  r->n_unjoinable = h.n_unjoinable;
  r->seconds = h.seconds;
  r->out_of_memory = (h.flags & RESULT_OUT_OF_MEMORY) != 0;
  r->cut = (h.flags & RESULT_CUT) != 0;
  r->memory_asked = h.memory_asked;
  for (guint32 k = 0; k < h.n_groups; k++)
    {
      FfmTemplateGroup *g;
      GroupHeader gh;

      /* pruned_rows says the first rows are a Pareto set (the next
       * pruning trusts it): no more than the rows. */
      if (!take (&c, &gh, 1, sizeof gh) || gh.n_columns > FFM_DESCRIBE_MAX_COLUMNS
          || gh.pruned_rows > gh.n_rows)
        goto bad;
      g = g_new0 (FfmTemplateGroup, 1);
      g->compat = gh.compat;
      g->n_columns = gh.n_columns;
      g->n_rows = gh.n_rows;
      g->pruned_rows = gh.pruned_rows;
      g->columns = g_array_new (FALSE, FALSE, sizeof (FfmPmappingColumn));
      g_ptr_array_add (r->groups, g);
      g_hash_table_insert (r->index, &g->compat, g);
      /* The sizes are checked against the bytes left before anything is
       * allocated for them. */
      if (!take_array (&c, g->columns, gh.n_columns, sizeof (FfmPmappingColumn))
          || !take_buffer (&c, &g->values, r, (gsize) gh.n_rows * gh.n_columns,
                           sizeof (double), &refused)
          || !take_buffer (&c, &g->tiles, r, (gsize) gh.n_rows * h.n_loops,
                           sizeof (guint64), &refused))
        goto bad;
    }
  if (c.left != 0)
    goto bad;
  /* Out of budget: no rows (the generation fails with the budget's error,
   * pmapping_set_check_template_result()). */
  if (refused)
    ffm_template_result_clear_groups (r);
  return TRUE;

bad:
  g_set_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
               "%zu bytes that are not a template result of this problem "
               "(truncated, or from a rank with other input)", size);
  return FALSE;
}
