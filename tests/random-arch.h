/* random-arch.h: random valid architectures x random small workloads, for
 * property tests (test-random-arch.c, test-ffm-optimality.c).
 *
 * random-problem.h makes problems on a few fixed hierarchies; this makes
 * the hierarchies themselves random, as users write them: 1-8 memory
 * levels below an unbounded MainMemory, each with a random `keep` and
 * `may_keep` (tensor roles and names, `~MainMemory`, `above`, nothing, all),
 * runs of per-tensor memories side by side (Eyeriss's scratchpads), 0-3
 * fanouts anywhere with 1-4 dimensions each (random counts, `reuse`,
 * `may_reuse`, `min_usage`), random capacities (tight to unbounded),
 * bandwidths, ports, per-action energies and bits per action, wider
 * partial sums now and then, and sometimes a vector unit above some of the
 * memories for element-wise Einsums (two compute units may serve one); the workloads have 1-3 Einsums of up to 7
 * rank variables (matmul chains, a convolution, a convolution then a 1x1
 * convolution, matmul / element-wise / matmul, batched matmuls). Both are
 * written as the JSON files a user would write and loaded through the
 * loaders, so a failing case is two files to hand to `ffm map`.
 *
 * MainMemory may keep everything, so there is always a mapping unless a
 * memory that must keep a tensor cannot hold one value of it (then the
 * search must say the problem is infeasible). The same seed makes the
 * same problem on every machine (GRand). */
#pragma once

#include <ffm/ffm.h>

typedef enum {
  /* sized for exhaustive search: 1-3 memories below MainMemory, at most
   * one fanout of at most two dimensions, sometimes a vector unit, 1-2
   * Einsums, ranks of 1-3 */
  RANDOM_ARCH_SMALL,
  /* the whole range above */
  RANDOM_ARCH_ANY,
} RandomArchSize;

/* The problem of @seed as JSON texts (transfer full). */
void random_arch_problem_text (guint64 seed, RandomArchSize size,
                               char **workload_json, char **arch_json);

/* The same, loaded (transfer full); asserts that both load. */
void random_arch_problem_make (guint64 seed, RandomArchSize size,
                               FfmWorkload **workload, FfmArch **arch);

/* The small problem of @seed with its first fanout doubled, so that two
 * fanout dimensions are alike in everything (the search may take either
 * for the other): with @twin_level a copy of the level right below it,
 * otherwise a copy of its first dimension within it. FALSE (nothing made)
 * when the architecture has no fanout. */
gboolean random_arch_problem_make_twins (guint64 seed, gboolean twin_level,
                                         FfmWorkload **workload, FfmArch **arch);
