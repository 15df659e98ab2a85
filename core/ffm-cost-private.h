/* ffm-cost-private.h (private): what ffm-cost.c needs from the pmapping
 * model beyond the public API. */
#pragma once

#include <ffm/ffm-cost.h>

G_BEGIN_DECLS

/* Sets @error (FFM_MAPPING_ERROR_INVALID) to "SOURCE:LINE: PATH: message",
 * leaving out the parts that are unknown. */
void ffm_cost_node_error (GError **error,
                          const char *source,
                          const FfmMappingNode *node,
                          const char *format,
                          ...) G_GNUC_PRINTF (4, 5);

/* TRUE when the cost model counts remainder tiles for Einsum @e: no rank
 * variable appears twice in one tensor's indices and the output's indices
 * are single rank variables; else FALSE with @why (static text). */
gboolean ffm_cost_einsum_counts_remainders (const FfmWorkload *workload,
                                            const FfmEinsum *e,
                                            const char **why);

/* The path nodes the model was compiled from (transfer none; valid while
 * the mapping they belong to lives). */
const FfmMappingNode *ffm_pmapping_model_get_node (const FfmPmappingModel *model,
                                                   guint node);
guint ffm_pmapping_model_get_n_nodes (const FfmPmappingModel *model);

G_END_DECLS
