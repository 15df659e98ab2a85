/* paper-gpt3-mapping.h: the FFM paper's description of its GPT-3 mapping
 * (§7.6 and Fig. 10: GPT-3 6.7B, batch 64, 4096 tokens, on TPUv4i) as
 * checks on a mapping, so that `bench-ffm` (FFM_BENCH=paper) can compare
 * what ffm finds with it point by point, and the comparison itself is
 * tested (test-paper-gpt3-mapping.c) on mappings written by hand.
 *
 * The checks read the mapping's paths (ffm_mapping_dup_paths()) and the
 * workload's rank-variable bounds (for loop iteration counts); they use
 * the gpt3-6.7b workload's names: Einsums I, Q, K, V, QK, QK_softmax,
 * weights WQ, WK, WV, rank variables b (batch), m (tokens), h (heads),
 * levels GlobalBuffer, LocalBuffer's fanout Cores and Register. */
#pragma once

#include <ffm/ffm.h>

G_BEGIN_DECLS

/* One statement of the paper and what the mapping does. */
typedef struct {
  const char *paper;        /* the statement (static) */
  gboolean holds;           /* the mapping does what it says */
  char *found;              /* what the mapping does (owned) */
} PaperPoint;

/* The points of §7.6, in the paper's order (transfer full: an array of
 * PaperPoint that frees their `found`). @n_cores is the number of cores
 * (LLBs) of the architecture. */
GArray *paper_gpt3_points (const FfmMapping *mapping, const FfmWorkload *workload,
                           guint n_cores);

G_END_DECLS
