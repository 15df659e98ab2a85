/* random-problem.h: random small problems for property tests.
 *
 * Chains and small DAGs of 2-4 Einsums with random sizes on 2-4 level
 * architectures (MainMemory unbounded, so every problem has a mapping),
 * with and without spatial fanouts, tight and loose capacities, per-action
 * energies and persistent weights now and then, one or two fused loops per
 * pmapping (one problem
 * in three, so that loop orders matter). The same seed makes the same
 * problem on every machine (GRand). Shared by test-ffm-optimality.c,
 * test-mapspace.c and test-baselines.c. */
#pragma once

#include <ffm/ffm.h>

/* The problem of @seed: its workload, architecture (transfer full) and
 * the fused-loop limit to search it with. */
void random_problem_make (guint64 seed, FfmWorkload **workload, FfmArch **arch,
                          int *max_fused_loops);
