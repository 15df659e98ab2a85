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
 * what `ffm eval` needs (ffm-result.h). The figures a cost report yields
 * (bounding level, utilization, tensor totals, area, and the report's JSON
 * members) are the cost model's (ffm-cost.h); this module adds what the
 * command knows: fairness notes, fusion decisions, the mapping, the text
 * and the tables. */
#pragma once

#include <ffm/ffm.h>

G_BEGIN_DECLS

typedef struct {
  gboolean loop_nest;           /* also the loop nest (--loop-nest) */
} FfmCliReportOptions;

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
 * problem, area_m2, per_einsum, per_component, per_tensor,
 * per_tensor_class (ffm_cost_report_write_json_members()), then notes,
 * main_memory_charged, free_memories, fused_tensors, mapping_file and
 * mapping (docs/file-formats.md, "Result files"). */
void ffm_cli_report_write_json (const FfmCostReport *report, FfmJsonWriter *writer);

/* Where a tensor passed between Einsums is backed in the mapping. */
typedef struct {
  const char *tensor;           /* borrowed from the workload */
  const char *producer;         /* the Einsum that writes it */
  int level;                    /* backing memory, -1 unknown */
  gboolean on_chip;             /* backed below the outermost memory */
  guint loops;                  /* shared loops (of more than one iteration)
                                   above the backing node */
} FfmCliFusion;

/* One FfmCliFusion per tensor that some Einsum writes and another reads,
 * in the workload's order (transfer full). */
GArray *ffm_cli_report_fusion_decisions (const FfmCostReport *report);

G_END_DECLS
