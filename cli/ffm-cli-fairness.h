/* ffm-cli-fairness.h: what an architecture does not charge, said out loud.
 *
 * Two architectures compared on one workload are compared fairly only if
 * they charge the same things. Some do not: the compute-in-memory chips
 * default to a free main memory (main_memory_pj_per_bit=0), so their
 * energy leaves out all off-chip traffic while TPUv4i's includes it. A
 * memory is *free* when its reads and writes cost no energy; the *main
 * memory* is the outermost level. These functions find what is free, and
 * the notes and warnings that say so: one architecture's report notes a
 * free main memory; a comparison or sweep over several architectures
 * warns when they differ in whether main memory is charged or in which
 * memories are free. */
#pragma once

#include <ffm/ffm.h>

G_BEGIN_DECLS

/* TRUE if memory @level costs nothing per read and per write. */
gboolean ffm_cli_memory_is_free (const FfmArch *arch, guint level);
/* TRUE if the outermost memory charges energy for its reads or writes. */
gboolean ffm_cli_main_memory_is_charged (const FfmArch *arch);
/* The names of @arch's free memories, outermost first (transfer container:
 * the strings are @arch's). */
GPtrArray *ffm_cli_free_memories (const FfmArch *arch);

/* A note for one architecture's report when its main memory is free, or
 * NULL: "MainMemory (the main memory) is free: ... not counted".
 * (transfer full) */
char *ffm_cli_fairness_note (const FfmArch *arch);

/* Warnings (of char*, transfer full; empty when fair) for @n
 * architectures compared or swept together, @labels naming them in the
 * output (NULL: their names): one when some charge main memory and others
 * do not, one when they differ in which memories are free. */
GPtrArray *ffm_cli_fairness_compare (const FfmArch *const *archs,
                                     const char *const *labels,
                                     guint n);

G_END_DECLS
