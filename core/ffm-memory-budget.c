/* ffm-memory-budget.c: a byte counter shared by the threads of one
 * generation, and buffers whose capacity it accounts for
 * (ffm-memory-budget.h). */
#include <ffm/ffm-memory-budget.h>

#include <stdatomic.h>
#include <stdint.h>

struct _FfmMemoryBudget {
  guint64 limit;            /* bytes; 0 = unlimited */
  atomic_int_fast64_t used; /* bytes held */
  atomic_int_fast64_t peak; /* most bytes held at once */
};

FfmMemoryBudget *
ffm_memory_budget_new (guint64 limit)
{
  FfmMemoryBudget *b = g_new0 (FfmMemoryBudget, 1);

  b->limit = limit;
  atomic_init (&b->used, 0);
  atomic_init (&b->peak, 0);
  return b;
}

void
ffm_memory_budget_free (FfmMemoryBudget *budget)
{
  g_free (budget);
}

gboolean
ffm_memory_budget_reserve (FfmMemoryBudget *budget, gsize bytes)
{
  int_fast64_t used, want, peak;

  if (budget == NULL || bytes == 0)
    return TRUE;
  if (bytes > (gsize) G_MAXINT64 / 2)
    return FALSE;
  used = atomic_load (&budget->used);
  do
    {
      want = used + (int_fast64_t) bytes;
      if (budget->limit > 0 && (guint64) want > budget->limit)
        return FALSE;
    }
  while (!atomic_compare_exchange_weak (&budget->used, &used, want));
  peak = atomic_load (&budget->peak);
  while (want > peak && !atomic_compare_exchange_weak (&budget->peak, &peak, want))
    ;
  return TRUE;
}

void
ffm_memory_budget_release (FfmMemoryBudget *budget, gsize bytes)
{
  if (budget == NULL || bytes == 0)
    return;
  atomic_fetch_sub (&budget->used, (int_fast64_t) bytes);
}

guint64
ffm_memory_budget_get_limit (const FfmMemoryBudget *budget)
{
  return budget != NULL ? budget->limit : 0;
}

guint64
ffm_memory_budget_get_used (FfmMemoryBudget *budget)
{
  return budget != NULL ? (guint64) atomic_load (&budget->used) : 0;
}

guint64
ffm_memory_budget_get_peak (FfmMemoryBudget *budget)
{
  return budget != NULL ? (guint64) atomic_load (&budget->peak) : 0;
}

gboolean
ffm_budget_buffer_reserve (FfmBudgetBuffer *buffer, FfmMemoryBudget *budget,
                           gsize bytes)
{
  gsize want, grown;
  gpointer data;

  if (bytes <= buffer->capacity)
    return TRUE;
  if (bytes == G_MAXSIZE)
    return FALSE;
  /* TUNING: grow by half the capacity (amortized appends at 1.5x the
   * memory at most, where doubling could ask twice what is needed). */
  grown = buffer->capacity + buffer->capacity / 2;
  want = MAX (bytes, grown);
  if (!ffm_memory_budget_reserve (budget, want - buffer->capacity))
    {
      want = bytes;
      if (!ffm_memory_budget_reserve (budget, want - buffer->capacity))
        return FALSE;
    }
  data = g_try_realloc (buffer->data, want);
  if (data == NULL)
    {
      ffm_memory_budget_release (budget, want - buffer->capacity);
      return FALSE;
    }
  buffer->data = data;
  buffer->capacity = want;
  return TRUE;
}

void
ffm_budget_buffer_clear (FfmBudgetBuffer *buffer, FfmMemoryBudget *budget)
{
  ffm_memory_budget_release (budget, buffer->capacity);
  g_free (buffer->data);
  buffer->data = NULL;
  buffer->capacity = 0;
}
