/* ffm-cli-report.h: the report of one evaluated mapping, as `ffm map` and
 * `ffm eval` print it (and every command that shows a solution).
 *
 * From an FfmCostReport (the cost model's evaluation: ffm-cost.h), what
 * an architect reads:
 *   - totals: energy (dynamic and leak), latency, EDP, whether the mapping
 *     fits, the chip's area where the architecture gives one, and notes
 *     on what the architecture does not charge (ffm-cli-fairness.h);
 *   - per Einsum: compute unit, operations (exact), energy, latency, the
 *     component that bounds the latency (the slowest of its memories at
 *     their bandwidth and its compute at its rate), how busy the compute
 *     units are, status;
 *   - per component: energy and its share, read and write energy, leak,
 *     peak occupancy against the capacity, area;
 *   - fanout utilization per Einsum: instances used of each spatial
 *     dimension (the PE array's rows and columns);
 *   - per tensor (energy over every memory, read and write actions) and
 *     per tensor class (weights, inputs, intermediates, outputs);
 *   - fusion: where each tensor passed between Einsums is backed, on chip
 *     or not, under how many shared loops;
 *   - per (Einsum, component, tensor): reads, fills, drains, updates,
 *     actions, energy, occupancy;
 *   - the LoopTree with each loop's iterations next to its tile, and on
 *     request the loop nest as pseudo-code.
 * Text uses engineering units and grouped whole counts (ffm-format.h);
 * the same tables go to CSV exactly (ffm-cli-table.h); JSON holds every
 * number exactly, the mapping included, so that a result file carries
 * what `ffm eval` needs (ffm-result.h). */
#pragma once

#include <ffm.h>

G_BEGIN_DECLS

typedef struct {
  gboolean loop_nest;           /* also the loop nest (--loop-nest) */
} FfmCliReportOptions;

/* The class of tensor @tensor in a report: "weight" (read as an Einsum's
 * weight and written by none), "input", "intermediate" or "output". */
const char *ffm_cli_tensor_class (const FfmWorkload *workload, guint tensor);

/* The level that bounds the latency of the @index-th Einsum of @report
 * (the largest of its components' latencies), or -1 when it has none. */
int ffm_cli_report_bounding_level (const FfmCostReport *report, guint index);

/* Appends the report's tables (of FfmCliTable*): totals, per_einsum,
 * per_component, fanouts, per_tensor, per_tensor_class, fusion, details. */
void ffm_cli_report_add_tables (const FfmCostReport *report, GPtrArray *tables);

/* Appends the text: the totals, the notes, the tables and the LoopTree
 * (and the loop nest if asked). */
void ffm_cli_report_append_text (const FfmCostReport *report,
                                 const FfmCliReportOptions *options,
                                 GString *out);

/* Writes the report as members of the object @writer has open:
 * energy_j, latency_s, edp_js, dynamic_energy_j, leak_energy_j, fits,
 * problem, area_m2, notes, free_memories, per_einsum, per_component,
 * per_tensor, per_tensor_class, fused_tensors, mapping_file and mapping
 * (docs/file-formats.md, "Result files"). */
void ffm_cli_report_write_json (const FfmCostReport *report, FfmJsonWriter *writer);

G_END_DECLS
