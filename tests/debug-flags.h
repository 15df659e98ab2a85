/* debug-flags.h: the tests' stack of debug flags (ffm-debug.h).
 *
 * A test turns a switch of the generator or the join on for a few runs
 * (an optimization off, one-row chunks) on top of what the program set
 * for all its tests and of FFM_DEBUG from the environment: each push adds
 * flags in FFM_DEBUG's syntax (a later value of a flag wins), each pop
 * takes the last push back, and the flags in force are set again
 * (ffm_debug_flags_set()) after either. Not thread-safe: between runs. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void test_debug_push (const char *flags);
void test_debug_pop (void);

G_END_DECLS
