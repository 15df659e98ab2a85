/* ffm-cost.h: the LoopTree cost model.
 *
 * Given a workload, an architecture and a mapping, the model counts every
 * read, fill, drain and update of every tensor at every memory level, the
 * compute operations and the buffer occupancy, and from those the energy
 * and the latency. Every search strategy uses this one model, so a
 * mapping's cost is the same whichever strategy produced it. It follows the
 * reference LoopTree model [1] (docs/cost-model.md gives the rules and a
 * worked example):
 *   - reuse comes only from where storage nodes sit: a storage node refills
 *     its tile on every iteration of every loop above it;
 *   - each tensor is analysed in its own view of the loop nest, in which a
 *     spatial loop sits just above the first holder of the tensor that its
 *     fanout replicates;
 *   - across a spatial loop whose rank variable does not index a tensor that
 *     the fanout dimension may reuse, the parent serves all instances with one
 *     transfer (multicast of inputs, reduction of outputs);
 *   - the first read of each output value (its initial zero) is skipped;
 *   - energy = actions x energy per action (each of read, fill, update and
 *     drain has its own, defaulting to the memory's read and write energy)
 *     + leak power x instances x latency; an Einsum's latency is the maximum over its components (each
 *     memory at its bandwidth, compute at its rate), the workload's latency
 *     the sum over Einsums.
 *
 * Two layers:
 *   - FfmPmappingModel: one Einsum's pmapping (a root-to-compute path of a
 *     LoopTree) compiled once into flat arrays. Its loop tiles live in one
 *     array that the caller may overwrite and evaluate again without any
 *     allocation or hashing: this is what the pmapping generator calls in its
 *     innermost loop. Evaluation is reentrant: several threads may evaluate
 *     one model at once, each with its own FfmPmappingCost.
 *   - FfmCostReport: a whole mapping (several Einsums, splits, fusion),
 *     checked, split into paths, evaluated, summed, and its buffer capacity
 *     checked over the lifetime of every tile. Printable as a table and as
 *     JSON.
 *
 * Units: counts are in values (one value = one element of a tensor);
 * actions = values x bits per value / bits per action (bits with the
 * default bits_per_action = 1); occupancy and sizes in bits; energy in J,
 * latency in s, power in W.
 *
 * Errors: a mapping that does not match the workload or the architecture
 * (unknown names, a loop over a rank variable the Einsum lacks, a storage
 * node where the tensor may not be kept, a rank variable never tiled down
 * to 1, a split that breaks a data dependency) is an FFM_MAPPING_ERROR
 * naming the mapping file, the node's line and JSON path. A mapping that is
 * well formed but does not fit (a memory's capacity, a fanout's size) is a
 * valid answer with a status, never an error.
 *
 * Determinism: pure functions of their inputs; evaluation does the same
 * floating-point operations in the same order every time.
 *
 * [1] the LoopTree model of the reference implementation, accelforge (its
 *     model of a mapping's accesses, reservations and latency), after the
 *     LoopTree paper (Gilbert et al., IEEE TCASAI 2024); the FFM paper
 *     §2.2 (LoopTree notation) and §5.1 (reservations of full mappings). */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-workload.h>
#include <ffm/ffm-arch.h>
#include <ffm/ffm-mapping.h>

G_BEGIN_DECLS

/* Upper bound on loops in one pmapping (a larger mapping is an error). */
#define FFM_COST_MAX_LOOPS 64

/* Why an evaluation is not a valid mapping (a result, not an error). */
typedef enum {
  FFM_COST_VALID = 0,
  FFM_COST_DOES_NOT_FIT,     /* tiles need more than a memory's capacity */
  FFM_COST_FANOUT_EXCEEDED,  /* spatial loops use more instances than a fanout dimension has */
  FFM_COST_BAD_TILES,        /* a tile is 0 or larger than its enclosing tile, or does
                                not divide it in a model that cannot count remainders */
  FFM_COST_OVERFLOW,         /* a count does not fit in 64 bits */
} FfmCostStatus;

FFM_API const char *ffm_cost_status_to_string (FfmCostStatus status);

/* Data movement of one tensor at one memory level, in values. Read actions
 * are reads + drains (reads alone when the memory's drains do not read),
 * write actions fills + updates. */
typedef struct {
  guint64 reads;    /* read to fill the level below (first reads of outputs skipped) */
  guint64 fills;    /* written here from the level above (first fills of outputs skipped) */
  guint64 drains;   /* read here to write outputs back to the level above */
  guint64 updates;  /* written here by write-backs of outputs from the level below */
} FfmActionCounts;

/* ---- One Einsum: the compiled pmapping model ---- */

typedef struct _FfmPmappingModel FfmPmappingModel;

/* One tensor tile held in a memory: a (storage node, tensor) pair of the
 * pmapping. Buffets are numbered in node order, tensors in the order the
 * node lists them. */
typedef struct {
  guint level;              /* architecture level index (a memory) */
  guint access;             /* access index in the Einsum */
  guint tensor;             /* tensor index in the workload */
  gboolean backing;         /* first storage node of the tensor on the path */
  gboolean persistent;      /* lives for the whole workload */
  int n_loops_above;        /* lifetime depth: loops above its reservation in
                               the tensor's view (-1 when persistent) */
  guint node;               /* index of the storage node in the path */
  double bits_per_value;    /* bits of one value inside this memory */
  double action_scale;      /* actions per value moved: bits_per_value / bits_per_action */
  FfmActionEnergies energies; /* J per action of this tensor in this memory
                               (ffm_arch_action_energies()) */
  gboolean drains_read;     /* drains are read actions of this memory */
} FfmBuffetInfo;

/* Read actions of a buffet's counts: (reads + drains) x action_scale, or
 * reads x action_scale when its drains do not read. */
FFM_API double ffm_buffet_read_actions (const FfmBuffetInfo *info,
                                        const FfmActionCounts *counts);
/* Write actions: (fills + updates) x action_scale. */
FFM_API double ffm_buffet_write_actions (const FfmBuffetInfo *info,
                                         const FfmActionCounts *counts);
/* Energy of a buffet's counts, J: each action count x action_scale x its
 * energy. @read_j and @write_j (may be NULL) receive the parts of read
 * actions (reads, drains) and write actions (fills, updates). */
FFM_API double ffm_buffet_energy (const FfmBuffetInfo *info,
                                  const FfmActionCounts *counts,
                                  double *read_j,
                                  double *write_j);

/* One fanout dimension on the path. */
typedef struct {
  guint level;              /* architecture level index (a fanout) */
  guint dim;                /* dimension index within the level */
  guint64 count;            /* instances along the dimension */
  double min_usage;         /* required fraction of count (not enforced by the model) */
} FfmFanoutDimInfo;

/* One loop of the pmapping, in node order (tiles[] is indexed the same). */
typedef struct {
  guint node;               /* index of the loop node in the path */
  guint rank_var;           /* rank variable index in the Einsum */
  gboolean spatial;
  int fanout_dim;           /* index into the fanout dimensions, -1 if temporal */
  int enclosing;            /* loop index of the enclosing loop over the same
                               rank variable, -1 = the rank variable's bound */
} FfmLoopInfo;

/* Compiles one root-to-compute path: @nodes are STORAGE, TEMPORAL and
 * SPATIAL nodes followed by one COMPUTE node (no SEQUENTIAL). Tensors of
 * storage nodes that the Einsum does not use are ignored (a path cut out of
 * a fused mapping holds other Einsums' tensors). @source names the mapping
 * file in messages (may be NULL). The tiles written in the loop nodes become
 * the model's default tiles; their values are checked only by
 * ffm_pmapping_model_check_tiles(), so a template with placeholder tiles
 * compiles.
 *
 * Fails with FFM_MAPPING_ERROR_INVALID, naming @source, the node's line and
 * JSON path, when a name is unknown, a loop's rank variable is not the
 * Einsum's, a level is not on the compute unit's path or has the wrong
 * kind, a tensor is stored where the architecture does not let it be kept,
 * a tensor's storage nodes are not ordered outer to inner, a spatial loop
 * iterates a rank variable its fanout dimension forbids, or a tensor of the
 * Einsum is not stored at all. The model keeps pointers to @nodes (for
 * messages naming them): they must outlive it. Returns (transfer full). */
FFM_API FfmPmappingModel *ffm_pmapping_model_new (const FfmWorkload *workload,
                                                  const FfmArch *arch,
                                                  const FfmMappingNode *const *nodes,
                                                  guint n_nodes,
                                                  const char *source,
                                                  GError **error);
FFM_API void ffm_pmapping_model_free (FfmPmappingModel *model);

FFM_API guint ffm_pmapping_model_get_einsum (const FfmPmappingModel *model);
FFM_API guint ffm_pmapping_model_get_compute_level (const FfmPmappingModel *model);
FFM_API guint ffm_pmapping_model_get_n_loops (const FfmPmappingModel *model);
FFM_API const FfmLoopInfo *ffm_pmapping_model_get_loop (const FfmPmappingModel *model,
                                                        guint loop);
/* The tiles written in the mapping's loop nodes (transfer none). */
FFM_API const guint64 *ffm_pmapping_model_get_tiles (const FfmPmappingModel *model);
FFM_API guint ffm_pmapping_model_get_n_buffets (const FfmPmappingModel *model);
FFM_API const FfmBuffetInfo *ffm_pmapping_model_get_buffet (const FfmPmappingModel *model,
                                                            guint buffet);
FFM_API guint ffm_pmapping_model_get_n_fanout_dims (const FfmPmappingModel *model);
FFM_API const FfmFanoutDimInfo *ffm_pmapping_model_get_fanout_dim (const FfmPmappingModel *model,
                                                                   guint index);
/* Capacity of memory @level for this Einsum, bits (INFINITY allowed). */
/* The loops (bit j = loop j) the compute unit keeps input access @access
 * across (Timeloop's operand reuse, FfmComputeSpec operand_reuse): they
 * do not multiply the reads serving the unit. 0 without reuse. */
FFM_API guint64 ffm_pmapping_model_get_operand_reuse_loops (const FfmPmappingModel *model,
                                                            guint access);
FFM_API double ffm_pmapping_model_get_level_size (const FfmPmappingModel *model,
                                                  guint level);

/* Checks @tiles (one per loop, node order) as a user's mapping must have
 * them: every tile >= 1 and at most its enclosing tile; a tile that does
 * not divide its enclosing tile (its loop's last iteration handles the
 * remainder) only where the model counts remainders; and for every rank
 * variable with a bound above 1 the innermost loop over it has tile 1. The
 * error names the node. */
FFM_API gboolean ffm_pmapping_model_check_tiles (const FfmPmappingModel *model,
                                                 const guint64 *tiles,
                                                 GError **error);

/* TRUE when the model counts tiles that do not divide their enclosing tile
 * (imperfect factorization, exactly: docs/cost-model.md, "Remainder
 * tiles"). FALSE when a rank variable appears twice in one tensor's
 * indices, or an index of the output is not a single rank variable. */
FFM_API gboolean ffm_pmapping_model_counts_remainders (const FfmPmappingModel *model);

/* The result of one evaluation. Allocate once per model (and thread) with
 * ffm_pmapping_cost_new() and reuse it: arrays are sized for the model. */
typedef struct {
  FfmCostStatus status;
  int bad_level;            /* DOES_NOT_FIT: the memory; FANOUT_EXCEEDED: the
                               fanout level; BAD_TILES: the loop index; else -1 */
  int bad_dim;              /* FANOUT_EXCEEDED: the dimension within the level, else -1 */
  double excess;            /* DOES_NOT_FIT: bits above capacity; FANOUT_EXCEEDED:
                               instances above the count; else 0 */
  double energy;            /* J: dynamic_energy + leak_energy */
  double dynamic_energy;    /* J: actions and operations */
  double leak_energy;       /* J: leak power x instances x latency, every level */
  double latency;           /* s: the maximum of level_latency */
  guint64 operations;       /* compute operations */
  guint64 steps;            /* operations of one compute instance, in sequence */

  guint n_levels;           /* levels of the architecture */
  double *level_energy;     /* [n_levels] dynamic energy per level, J */
  double *level_latency;    /* [n_levels] s (0 for levels off the path) */
  double *level_occupancy;  /* [n_levels] bits reserved in each memory */
  double *level_read_actions;  /* [n_levels] all instances */
  double *level_write_actions; /* [n_levels] all instances */
  double *level_unit_read_actions;  /* [n_levels] one instance (latency) */
  double *level_unit_write_actions; /* [n_levels] one instance (latency) */
  guint n_buffets;
  FfmActionCounts *counts;      /* [n_buffets] all instances together */
  FfmActionCounts *unit_counts; /* [n_buffets] one instance (the busiest) */
  double *buffet_occupancy;     /* [n_buffets] bits at the buffet's reservation */
  guint n_fanout_dims;
  guint64 *fanout_used;     /* [n_fanout_dims] instances used */
} FfmPmappingCost;

FFM_API FfmPmappingCost *ffm_pmapping_cost_new (const FfmPmappingModel *model);

/* The energy of buffet @buffet in evaluation @cost as the model counts it
 * (with Timeloop's counting where the memory asks for it: whole actions
 * per instance, clusters), J; *@read_j and *@write_j (may be NULL) split
 * it into read and write actions. */
FFM_API double ffm_pmapping_model_get_buffet_energy (const FfmPmappingModel *model,
                                                     const FfmPmappingCost *cost,
                                                     guint buffet,
                                                     double *read_j,
                                                     double *write_j);
/* The leak energy of level @level in evaluation @cost, J: leak power x
 * instances (every instance, or with leak_utilized the instances the
 * spatial loops use, at least one) x latency. */
FFM_API double ffm_pmapping_model_get_level_leak (const FfmPmappingModel *model,
                                                  const FfmPmappingCost *cost,
                                                  guint level);
FFM_API void ffm_pmapping_cost_free (FfmPmappingCost *cost);

/* Evaluates the model with @tiles (one per loop, node order; NULL = the
 * model's default tiles) into @out, which must come from
 * ffm_pmapping_cost_new() for this model. Never allocates, never fails:
 * bad tiles, an overflow or a capacity problem set out->status. Does about
 * (loops + storage nodes) x tensors multiplications when every tile
 * divides its enclosing tile; with remainder tiles, every count is a walk
 * over each rank variable's loops (about ten times more work). Spatial
 * loops use ceil(enclosing / tile) instances (fanout_used). */
FFM_API void ffm_pmapping_model_evaluate (const FfmPmappingModel *model,
                                          const guint64 *tiles,
                                          FfmPmappingCost *out);

/* ---- A whole mapping ---- */

typedef struct _FfmCostReport FfmCostReport;

/* Evaluates @mapping: checks it against the workload and the architecture,
 * splits it at SEQUENTIAL nodes into one path per Einsum, evaluates every
 * path and checks buffer capacity over lifetimes (a tile stored above a
 * split is live during all its branches; the peak of a memory is the
 * largest sum over the compute leaves of the tiles live there). Every
 * Einsum of the workload must appear exactly once, producers before
 * consumers. Returns NULL with an FFM_MAPPING_ERROR for a bad mapping; a
 * mapping that does not fit is a report with ffm_cost_report_fits() FALSE.
 * (transfer full) */
FFM_API FfmCostReport *ffm_cost_evaluate_mapping (const FfmWorkload *workload,
                                                  const FfmArch *arch,
                                                  const FfmMapping *mapping,
                                                  GError **error);
FFM_API void ffm_cost_report_free (FfmCostReport *report);

/* Workload totals: energy (J) and latency (s) summed over Einsums; EDP =
 * energy x latency (J s). */
FFM_API double ffm_cost_report_get_energy (const FfmCostReport *report);
FFM_API double ffm_cost_report_get_latency (const FfmCostReport *report);
FFM_API double ffm_cost_report_get_edp (const FfmCostReport *report);
/* TRUE if every Einsum is valid and every memory holds its live tiles. */
FFM_API gboolean ffm_cost_report_fits (const FfmCostReport *report);
/* Why not, in words ("does not fit in GlobalBuffer by 1024 bits"), or NULL
 * when it fits (transfer none). */
FFM_API const char *ffm_cost_report_get_problem (const FfmCostReport *report);

/* Einsums in workload order. */
FFM_API guint ffm_cost_report_get_n_einsums (const FfmCostReport *report);
/* Workload index of the @index-th evaluated Einsum. */
FFM_API guint ffm_cost_report_get_einsum (const FfmCostReport *report,
                                          guint index);
/* Its compiled model and its result (transfer none). */
FFM_API const FfmPmappingModel *ffm_cost_report_get_model (const FfmCostReport *report,
                                                           guint index);
FFM_API const FfmPmappingCost *ffm_cost_report_get_cost (const FfmCostReport *report,
                                                         guint index);
/* Peak bits live in memory @level over the whole mapping (0 for levels
 * that are not memories). */
FFM_API double ffm_cost_report_get_peak_occupancy (const FfmCostReport *report,
                                                   guint level);
/* Energy of architecture level @level summed over Einsums, J (dynamic and
 * leak). */
FFM_API double ffm_cost_report_get_level_energy (const FfmCostReport *report,
                                                 guint level);

/* What was evaluated (transfer none): the workload, the architecture,
 * the report's own copy of the mapping, and the mapping's source file (or
 * "mapping" when it has none). */
FFM_API const FfmWorkload *ffm_cost_report_get_workload (const FfmCostReport *report);
FFM_API const FfmArch *ffm_cost_report_get_arch (const FfmCostReport *report);
FFM_API const FfmMapping *ffm_cost_report_get_mapping (const FfmCostReport *report);
FFM_API const char *ffm_cost_report_get_source (const FfmCostReport *report);
/* Leak energy of level @level summed over Einsums, J (part of
 * ffm_cost_report_get_level_energy()). */
FFM_API double ffm_cost_report_get_level_leak (const FfmCostReport *report,
                                               guint level);
/* Capacity of memory @level, bits: its size, or for a size that depends
 * on the Einsum the largest over the Einsums (INFINITY allowed; 0 for
 * levels that are not memories). */
FFM_API double ffm_cost_report_get_level_size (const FfmCostReport *report,
                                               guint level);
/* Dynamic energy of buffet @buffet of the @index-th Einsum (its tensor's
 * reads and drains at the read energy, fills and updates at the write
 * energy of its memory), J; @read_j and @write_j (may be NULL) receive the
 * two parts. */
FFM_API double ffm_cost_report_get_buffet_energy (const FfmCostReport *report,
                                                  guint index,
                                                  guint buffet,
                                                  double *read_j,
                                                  double *write_j);

/* Dynamic energy of memory @level's read actions and of its write actions
 * in the @index-th Einsum, J (0 for levels that are not memories; either
 * pointer may be NULL). */
FFM_API void ffm_cost_report_get_level_action_energy (const FfmCostReport *report,
                                                      guint index,
                                                      guint level,
                                                      double *read_j,
                                                      double *write_j);
/* The level that bounds the latency of the @index-th Einsum (the one with
 * the largest latency: a memory at its bandwidth, the compute unit at its
 * rate), or -1 when no level takes time. */
FFM_API int ffm_cost_report_get_bounding_level (const FfmCostReport *report,
                                                guint index);
/* The fraction of the time of the @index-th Einsum that its compute units
 * compute: operations / (instances x operations per second x latency),
 * NAN when it has no operations or an unbounded rate. */
FFM_API double ffm_cost_report_get_compute_utilization (const FfmCostReport *report,
                                                        guint index);
/* Tensor @tensor over every Einsum and memory: its dynamic energy (J), read
 * and write actions (any pointer may be NULL). */
FFM_API void ffm_cost_report_get_tensor_totals (const FfmCostReport *report,
                                                guint tensor,
                                                double *energy_j,
                                                double *read_actions,
                                                double *write_actions);
/* Writes the report's members into the object @writer has open (what
 * ffm_cost_report_to_json() holds besides the names): energy_j,
 * latency_s, edp_js, dynamic_energy_j, leak_energy_j, fits, problem,
 * area_m2, per_einsum [{name, compute, energy_j, latency_s, operations,
 * status, bounded_by, compute_utilization, per_component, fanouts,
 * per_tensor}], per_component, per_tensor, per_tensor_class. */
FFM_API void ffm_cost_report_write_json_members (const FfmCostReport *report,
                                                 FfmJsonWriter *writer);

/* The report as text: totals, then per Einsum, per component and per
 * (component, tensor) tables (transfer full). */
FFM_API char *ffm_cost_report_to_table (const FfmCostReport *report);
/* The report as JSON (docs/cost-model.md): "mapping" (the source file),
 * "workload", "architecture", then ffm_cost_report_write_json_members()
 * (transfer full). */
FFM_API char *ffm_cost_report_to_json (const FfmCostReport *report);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmPmappingModel, ffm_pmapping_model_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmPmappingCost, ffm_pmapping_cost_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmCostReport, ffm_cost_report_free)

G_END_DECLS
