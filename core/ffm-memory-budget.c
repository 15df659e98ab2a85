/* ffm-memory-budget.c: a byte counter shared by the threads of one
 * generation, buffers whose capacity it accounts for, and the default
 * limit the process may really allocate (ffm-memory-budget.h,
 * ffm-memory-limits.h). */
#include <ffm/ffm-memory-budget.h>

#include "ffm-memory-limits.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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

/* ---- The default limit ---- */

/* TUNING: the budget takes three quarters of what the process may still
 * allocate. The rest is for what the budget does not count: GLib's
 * bookkeeping and the small allocations per template and per group (the
 * resident memory of the corpus's heaviest cases passes the budget's peak
 * by 10-30 %, docs/limits.md), malloc's fragmentation, and on the
 * machine the other processes. */
#define BUDGET_SHARE_NUM 3
#define BUDGET_SHARE_DEN 4

/* glibc gives each thread that allocates at the same time as another an
 * arena of its own, reserved as 64 MiB of address space on a 64-bit
 * machine (HEAP_MAX_SIZE, 2 x the largest mmap threshold); the reservation
 * counts against RLIMIT_AS before any of it is used. */
#define THREAD_ARENA_BYTES ((guint64) 64 << 20)

/* Limits at or above this mean none (cgroup v1 writes 2^63 rounded down
 * to a page for "unlimited"). */
#define NO_LIMIT_ABOVE ((guint64) 1 << 62)

const char *
ffm_memory_limit_kind_to_string (FfmMemoryLimitKind kind)
{
  switch (kind)
    {
    case FFM_MEMORY_LIMIT_PHYSICAL:
      return "physical memory";
    case FFM_MEMORY_LIMIT_ADDRESS_SPACE:
      return "address-space limit (ulimit -v)";
    case FFM_MEMORY_LIMIT_DATA:
      return "data-segment limit (ulimit -d)";
    case FFM_MEMORY_LIMIT_CGROUP:
      return "control group's memory limit";
    default:
      return "memory limit";
    }
}

/* The field @key ("VmData:") of /proc/self/status, in bytes; 0 when it
 * cannot be read. */
static guint64
proc_status_bytes (const char *key)
{
  g_autofree char *text = NULL;
  const char *at;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return 0;
  at = strstr (text, key);
  if (at == NULL)
    return 0;
  return g_ascii_strtoull (at + strlen (key), NULL, 10) * 1024;   /* kB */
}

/* The stack each new thread maps: glibc's default is RLIMIT_STACK's soft
 * limit, 32 MiB on x86-64 when that is unlimited. */
static guint64
thread_stack_bytes (void)
{
  struct rlimit r;

  if (getrlimit (RLIMIT_STACK, &r) == 0 && r.rlim_cur != RLIM_INFINITY
      && r.rlim_cur <= ((rlim_t) 1 << 30))
    return (guint64) r.rlim_cur;
  return (guint64) 32 << 20;
}

/* The soft limit @resource as bytes, G_MAXUINT64 for none. */
static guint64
rlimit_bytes (int resource)
{
  struct rlimit r;

  if (getrlimit (resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY
      || (guint64) r.rlim_cur >= NO_LIMIT_ABOVE)
    return G_MAXUINT64;
  return (guint64) r.rlim_cur;
}

/* A limit file's value in bytes: G_MAXUINT64 for "max", none, or what
 * cannot be read. */
static guint64
read_limit_file (const char *path)
{
  g_autofree char *text = NULL;
  char *end;
  guint64 v;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return G_MAXUINT64;
  g_strstrip (text);
  if (text[0] < '0' || text[0] > '9')
    return G_MAXUINT64;              /* "max" */
  v = g_ascii_strtoull (text, &end, 10);
  if (*end != '\0' || v >= NO_LIMIT_ABOVE)
    return G_MAXUINT64;
  return v;
}

/* The least limit in @file from @mount + @path up to @mount. */
static guint64
least_limit_up (const char *mount, const char *path, const char *file)
{
  g_autofree char *rel = g_strdup (path);
  guint64 least = G_MAXUINT64;

  for (;;)
    {
      g_autofree char *dir = g_build_filename (mount, rel, NULL);
      g_autofree char *f = g_build_filename (dir, file, NULL);
      char *slash;

      least = MIN (least, read_limit_file (f));
      slash = strrchr (rel, '/');
      if (slash == NULL || rel[0] == '\0' || (slash == rel && rel[1] == '\0'))
        break;
      if (slash == rel)
        slash[1] = '\0';
      else
        *slash = '\0';
    }
  return least;
}

/* Whether the comma-separated @options hold @word. */
static gboolean
has_option (const char *options, const char *word)
{
  g_auto(GStrv) parts = g_strsplit (options, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    if (strcmp (parts[i], word) == 0)
      return TRUE;
  return FALSE;
}

/* The process's path in the hierarchy whose /proc/self/cgroup line says
 * @v2 ("0::PATH") or, for v1, names the controller "memory". (transfer full) */
static char *
cgroup_path (const char *cgroup_text, gboolean v2)
{
  g_auto(GStrv) lines = g_strsplit (cgroup_text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], ":", 3);
      if (g_strv_length (f) != 3)
        continue;
      if (v2 ? (strcmp (f[0], "0") == 0 && f[1][0] == '\0')
             : has_option (f[1], "memory"))
        return g_strdup (f[2]);
    }
  return NULL;
}

/* mountinfo escapes spaces and the like as \ooo. (transfer full) */
static char *
unescape_mount_field (const char *s)
{
  GString *out = g_string_new (NULL);

  for (const char *p = s; *p != '\0'; p++)
    if (p[0] == '\\' && g_ascii_isdigit (p[1]) && g_ascii_isdigit (p[2])
        && g_ascii_isdigit (p[3]))
      {
        g_string_append_c (out, (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0')));
        p += 3;
      }
    else
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

guint64
ffm_memory_cgroup_limit (const char *root)
{
  g_autofree char *mountinfo_path = g_strconcat (root, "/proc/self/mountinfo", NULL);
  g_autofree char *cgroup_file = g_strconcat (root, "/proc/self/cgroup", NULL);
  g_autofree char *mountinfo = NULL, *cgroups = NULL;
  g_auto(GStrv) lines = NULL;
  guint64 least = G_MAXUINT64;

  if (!g_file_get_contents (mountinfo_path, &mountinfo, NULL, NULL)
      || !g_file_get_contents (cgroup_file, &cgroups, NULL, NULL))
    return G_MAXUINT64;
  lines = g_strsplit (mountinfo, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
      g_auto(GStrv) f = g_strsplit (lines[i], " ", -1);
      guint n = g_strv_length (f), dash = 0;
      gboolean v2;
      g_autofree char *path = NULL, *mount_root = NULL, *mount_point = NULL;
      g_autofree char *mount = NULL;
      const char *rel;

      for (guint k = 6; k < n; k++)
        if (strcmp (f[k], "-") == 0)
          {
            dash = k;
            break;
          }
      if (dash == 0 || dash + 1 >= n)
        continue;
      if (strcmp (f[dash + 1], "cgroup2") == 0)
        v2 = TRUE;
      else if (strcmp (f[dash + 1], "cgroup") == 0 && dash + 3 < n
               && has_option (f[dash + 3], "memory"))
        v2 = FALSE;
      else
        continue;
      path = cgroup_path (cgroups, v2);
      if (path == NULL)
        continue;
      mount_root = unescape_mount_field (f[3]);
      mount_point = unescape_mount_field (f[4]);
      /* The mount shows the hierarchy from its root down (a container sees
       * its own group as "/"): the process's path is under it, or the
       * mount shows the process's group itself. */
      rel = path;
      if (strcmp (mount_root, "/") != 0)
        {
          gsize len = strlen (mount_root);
          if (strncmp (path, mount_root, len) == 0 && (path[len] == '/' || path[len] == '\0'))
            rel = path + len;
          else
            rel = "";
        }
      mount = g_strconcat (root, mount_point, NULL);
      least = MIN (least, least_limit_up (mount, rel[0] == '\0' ? "/" : rel,
                                          v2 ? "memory.max" : "memory.limit_in_bytes"));
    }
  return least;
}

guint64
ffm_memory_budget_default_limit (FfmMemoryDefault *out)
{
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  guint64 n_threads = g_get_num_processors ();
  FfmMemoryDefault best = { FFM_MEMORY_LIMIT_PHYSICAL, 0, 0, G_MAXUINT64 };
  struct {
    FfmMemoryLimitKind kind;
    guint64 limit, in_use;
  } limits[4];

  limits[0].kind = FFM_MEMORY_LIMIT_PHYSICAL;
  limits[0].limit = pages > 0 && page > 0 ? (guint64) pages * (guint64) page
                                          : (guint64) 16 << 30;   /* unknown */
  limits[0].in_use = 0;
  /* The address space already mapped (libraries, plugins, the heap), and
   * what each worker thread will map: its stack and its malloc arena. */
  limits[1].kind = FFM_MEMORY_LIMIT_ADDRESS_SPACE;
  limits[1].limit = rlimit_bytes (RLIMIT_AS);
  limits[1].in_use = limits[1].limit == G_MAXUINT64 ? 0
    : proc_status_bytes ("VmSize:") + n_threads * (thread_stack_bytes () + THREAD_ARENA_BYTES);
  /* RLIMIT_DATA counts private writable mappings: the heap, anonymous
   * mmaps, thread stacks (an arena counts as it is used). */
  limits[2].kind = FFM_MEMORY_LIMIT_DATA;
  limits[2].limit = rlimit_bytes (RLIMIT_DATA);
  limits[2].in_use = limits[2].limit == G_MAXUINT64 ? 0
    : proc_status_bytes ("VmData:") + n_threads * thread_stack_bytes ();
  /* A control group's limit is shared with the other processes in it and
   * its page cache: the budget's share is its margin. */
  limits[3].kind = FFM_MEMORY_LIMIT_CGROUP;
  limits[3].limit = ffm_memory_cgroup_limit ("");
  limits[3].in_use = 0;

  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      guint64 left, budget;

      if (limits[i].limit == G_MAXUINT64)
        continue;
      left = limits[i].limit > limits[i].in_use ? limits[i].limit - limits[i].in_use : 0;
      budget = left / BUDGET_SHARE_DEN * BUDGET_SHARE_NUM;
      if (budget < best.budget)
        {
          best.kind = limits[i].kind;
          best.limit = limits[i].limit;
          best.in_use = limits[i].in_use;
          best.budget = budget;
        }
    }
  /* A budget of 0 would mean none: at least 1 MiB, the least --max-memory
   * takes, so that a process with (almost) nothing left fails with the
   * budget's message at its first table. */
  best.budget = MAX (best.budget, (guint64) 1 << 20);
  if (out != NULL)
    *out = best;
  return best.budget;
}
