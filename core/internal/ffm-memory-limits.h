/* ffm-memory-limits.h: where the default memory budget reads the
 * process's limits (an internal header, docs/layout.md: libffm's and the
 * tests'; not installed).
 *
 * ffm_memory_budget_default_limit() (ffm-memory-budget.h) takes the least
 * of the physical memory, RLIMIT_AS, RLIMIT_DATA and the control group's
 * memory limit. The control group's is found as the kernel shows it: the
 * memory controller's mount in /proc/self/mountinfo (cgroup2, or a
 * cgroup v1 mount with the `memory` option), the process's path under it
 * in /proc/self/cgroup (`0::PATH` for v2, `N:...memory...:PATH` for v1),
 * and the least limit from that folder up to the mount (a parent's limit
 * binds its children): memory.max ("max" = none) for v2,
 * memory.limit_in_bytes for v1 (a value near 2^63 = none). The tests give
 * these files under a folder of their own. */
#pragma once

#include <glib.h>

#include <ffm/ffm-version.h>

G_BEGIN_DECLS

/* The least memory limit of the control groups the process is in, bytes;
 * G_MAXUINT64 when there is none or it cannot be read. @root is prefixed
 * to every path read ("/proc/self/...", the mount points): "" on a running
 * system, a test's folder otherwise. */
FFM_API guint64 ffm_memory_cgroup_limit (const char *root);

G_END_DECLS
