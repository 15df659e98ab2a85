/* ffm-memory-budget.h: the memory budget of one search.
 *
 * The pmapping generator's tables grow with the input (partial tile
 * vectors, their pruning scratch, the Pareto rows of each template and
 * Einsum), and a large problem can ask for more than the machine has. A
 * budget is a byte counter shared by every thread of one generation: each
 * growable buffer reserves its capacity from it before it allocates and
 * gives it back when it is freed, so running out is a FALSE the caller
 * turns into an error that names the Einsum, the template and the budget
 * (FfmPmappingOptions.max_memory, `--max-memory`), never GLib's abort on a
 * failed allocation. The counter is atomic; a reservation that would pass
 * the limit changes nothing. A NULL budget is unlimited (allocation
 * failures are still reported, never aborted on).
 *
 * The default limit (ffm_memory_budget_default_limit()) is what the
 * process may really allocate: the least of the machine's physical memory,
 * the address-space and data limits (`ulimit -v`, `ulimit -d`) and the
 * memory limit of the process's control group, each less what is already
 * in use and a margin for what the budget does not count. docs/limits.md. */
#pragma once

#include <glib.h>

#include <ffm/ffm-version.h>

G_BEGIN_DECLS

typedef struct _FfmMemoryBudget FfmMemoryBudget;

/* A budget of @limit bytes (0: unlimited). (transfer full) */
FFM_API FfmMemoryBudget *ffm_memory_budget_new (guint64 limit);
FFM_API void ffm_memory_budget_free (FfmMemoryBudget *budget);

/* Takes @bytes from @budget; FALSE, taking nothing, when that would pass
 * its limit. A NULL @budget always gives. */
FFM_API gboolean ffm_memory_budget_reserve (FfmMemoryBudget *budget, gsize bytes);
/* Gives back @bytes taken by ffm_memory_budget_reserve(). */
FFM_API void ffm_memory_budget_release (FfmMemoryBudget *budget, gsize bytes);

FFM_API guint64 ffm_memory_budget_get_limit (const FfmMemoryBudget *budget);
/* The most bytes held at once so far. */
FFM_API guint64 ffm_memory_budget_get_peak (FfmMemoryBudget *budget);
/* The bytes held now. */
FFM_API guint64 ffm_memory_budget_get_used (FfmMemoryBudget *budget);

/* A buffer whose capacity is reserved from a budget. */
typedef struct {
  gpointer data;
  gsize capacity;           /* bytes allocated and reserved */
} FfmBudgetBuffer;

/* Makes @buffer hold at least @bytes, keeping its contents; it grows by at
 * least half its capacity so that appending row by row stays amortized,
 * but never past the budget when @bytes alone fits. FALSE, @buffer
 * unchanged, when @budget cannot give it or the allocation fails. */
FFM_API gboolean ffm_budget_buffer_reserve (FfmBudgetBuffer *buffer,
                                    FfmMemoryBudget *budget,
                                    gsize bytes);
/* Frees @buffer's memory and gives its capacity back to @budget. */
FFM_API void ffm_budget_buffer_clear (FfmBudgetBuffer *buffer, FfmMemoryBudget *budget);

/* What bounds the default budget. */
typedef enum {
  FFM_MEMORY_LIMIT_PHYSICAL,      /* the machine's physical memory */
  FFM_MEMORY_LIMIT_ADDRESS_SPACE, /* RLIMIT_AS (`ulimit -v`) */
  FFM_MEMORY_LIMIT_DATA,          /* RLIMIT_DATA (`ulimit -d`) */
  FFM_MEMORY_LIMIT_CGROUP,        /* the control group's memory.max (v2) or
                                     memory.limit_in_bytes (v1) */
} FfmMemoryLimitKind;

/* How the default budget came about. */
typedef struct {
  FfmMemoryLimitKind kind;  /* the limit that gave the least budget */
  guint64 limit;            /* that limit, bytes */
  guint64 in_use;           /* bytes of it the process held already (and,
                               for the address space, its threads' arenas
                               and stacks to come) */
  guint64 budget;           /* the default budget, bytes, at least 1 MiB */
} FfmMemoryDefault;

/* The default budget, in bytes: three quarters of the least of the
 * physical memory, RLIMIT_AS, RLIMIT_DATA and the control group's limit,
 * each less what the process holds of it already (docs/limits.md, "The
 * default budget"). @out (nullable) receives which limit decided. */
FFM_API guint64 ffm_memory_budget_default_limit (FfmMemoryDefault *out);

/* The limit's name for a message: "physical memory", "address-space
 * limit (ulimit -v)", ... (transfer none) */
FFM_API const char *ffm_memory_limit_kind_to_string (FfmMemoryLimitKind kind);

/* n * size, or G_MAXSIZE when that overflows (then no budget gives it). */
static inline gsize
ffm_budget_bytes (gsize n, gsize size)
{
  gsize bytes;
  return g_size_checked_mul (&bytes, n, size) ? bytes : G_MAXSIZE;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmMemoryBudget, ffm_memory_budget_free)

G_END_DECLS
