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

/* The same with remainder tiles (FfmImperfect @imperfect): sizes with
 * few divisors, and mostly a fanout. FFM_IMPERFECT_NONE gives
 * random_problem_make()'s problem. */
void random_problem_make_imperfect (guint64 seed, guint imperfect,
                                    FfmWorkload **workload, FfmArch **arch,
                                    int *max_fused_loops);

/* A problem for the larger fused-loop spaces (max_fused_loops 2, 3 or
 * unlimited, per rank variable 1 or unlimited): a chain, a small DAG or an
 * attention-like block (Q,K -> QK -> softmax -> AV with V, its shared
 * tensors indexed by batch, heads and two sequence ranks, so that several
 * ranks can tile them at once; the FFM paper's Fig. 10), on an
 * architecture of at most one level besides MainMemory and GlobalBuffer
 * (sizes up to 4, and two matmuls with 4 or 8 rows now and then, so that
 * one rank variable can have two fused loops). */
void random_problem_make_fused (guint64 seed, FfmWorkload **workload, FfmArch **arch);
