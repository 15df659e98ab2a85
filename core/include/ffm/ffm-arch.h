/* ffm-arch.h: an accelerator architecture as the cost model sees it.
 *
 * An architecture is an ordered list of levels from the outermost memory
 * (off-chip DRAM) down to compute:
 *   - a MEMORY holds tiles of tensors: capacity, energy per action (read
 *     and write, refined per action: read to the level below, fill from the
 *     level above, update from below, drain to the level above; and per
 *     tensor set), bandwidth, leak, area, and which tensors it must keep
 *     and may keep (tensor-set expressions such as "all - intermediates",
 *     evaluated per Einsum, see ffm-workload.h);
 *   - a FANOUT replicates everything below it: one or more spatial
 *     dimensions, each with a count, the tensors that must be shared across
 *     it (`reuse`: loops over their rank variables are not allowed), the
 *     tensors that may be multicast or reduced across it (`may_reuse`), and
 *     a minimum usage;
 *   - a COMPUTE unit does the Einsum's operations: energy per operation,
 *     operations per second, and which Einsums it serves (`enabled`, e.g.
 *     "len(all) == 3" for matmul-like Einsums).
 * Several compute units may appear (TPUv4i: a scalar unit for 2-tensor
 * Einsums above the PE array, a MAC for 3-tensor ones). The path of a
 * compute unit is every non-compute level above it plus itself: levels
 * listed after a compute unit are not on its path, and other compute units
 * on the way are skipped.
 *
 * Units are SI inside: sizes in bits, energy in joules per action, time in
 * seconds, bandwidth in actions per second, power in watts, area in m^2.
 * A memory action moves `bits_per_action` bits (default 1: actions are
 * bits). INFINITY is allowed for sizes and bandwidths.
 *
 * Set expressions (keep, may_keep, reuse, may_reuse, enabled, bits
 * overrides) are evaluated per Einsum in the workload's set scope
 * (ffm_einsum_set_scope_init()) plus these names: in a memory's keep and
 * may_keep, the name of every memory above it (also written NAME.tensors)
 * means the tensors kept there in the caller's current choice and `above`
 * their union; everywhere, SET.bits_per_value is the largest bits per value
 * of the tensors of SET (0 if empty) and the architecture's parameters are
 * numbers. Use the ffm_arch_eval_*() helpers below rather than evaluating
 * the expressions yourself.
 *
 * Leak: a level has leak_power watts per instance and there are
 * ffm_arch_get_instances_above() instances of it (every fanout above it);
 * with leak_utilized, only the instances a mapping uses leak.
 *
 * Architecture models (plugins) build an FfmArch with ffm_arch_new(),
 * ffm_arch_add_*() and then ffm_arch_finish(), which parses the set
 * expressions and checks the whole hierarchy. The JSON loader does the same
 * from a file. A finished FfmArch is immutable and reference counted. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-expr.h>
#include <ffm/ffm-params.h>
#include <ffm/ffm-workload.h>

G_BEGIN_DECLS

#define FFM_MAX_FANOUT_DIMS 4

typedef enum {
  FFM_LEVEL_MEMORY = 1,
  FFM_LEVEL_FANOUT,
  FFM_LEVEL_COMPUTE,
} FfmLevelKind;

/* How a memory's read and write times combine into its latency. */
typedef enum {
  FFM_PORTS_SHARED = 0,   /* reads/read_bw + writes/write_bw (one port) */
  FFM_PORTS_SEPARATE,     /* max (reads/read_bw, writes/write_bw) */
} FfmPorts;

/* A per-tensor override of bits per value inside one memory (e.g. partial
 * sums stored at 3x width). */
typedef struct {
  char *tensors;          /* tensor-set expression */
  double bits;            /* bits per value; NAN when bits_text is set */
  FfmExpr *tensors_expr;  /* parsed by ffm_arch_finish() */
  char *bits_text;        /* expression over `bits` (the tensor's own bits per
                           * value), e.g. "3*bits"; NULL = `bits` is fixed */
  FfmExpr *bits_expr;     /* parsed by ffm_arch_finish() */
} FfmBitsOverride;

/* Energies of one memory's four actions for some tensors, J per action:
 * read (to the level below or the compute unit), fill (written from the
 * level above), update (written by the level below: partial sums), drain
 * (read to write an output tile back to the level above). */
typedef struct {
  double read;
  double fill;
  double update;
  double drain;
} FfmActionEnergies;

/* Per-action energies for the tensors of a set inside one memory (e.g.
 * partial sums updated at a higher cost). NAN fields keep the memory's. */
typedef struct {
  char *tensors;          /* tensor-set expression */
  FfmActionEnergies energies;
  FfmExpr *tensors_expr;  /* parsed by ffm_arch_finish() */
} FfmEnergyOverride;

typedef struct {
  double size;                  /* capacity, bits (INFINITY allowed) */
  double read_energy;           /* J per read action */
  double write_energy;          /* J per write action */
  double read_bandwidth;        /* read actions per second per instance (INFINITY allowed) */
  double write_bandwidth;       /* write actions per second per instance */
  FfmPorts ports;
  double bits_per_action;       /* bits moved by one action; default 1 */
  gboolean skip_initial_output_write; /* first read of an output skipped; default TRUE */
  char *keep;                   /* tensor set it must keep; NULL = nothing */
  char *may_keep;               /* tensor set it may keep; NULL = all if keep is NULL, else nothing */
  GArray *bits_overrides;       /* of FfmBitsOverride; may be NULL */
  FfmExpr *keep_expr;           /* parsed by ffm_arch_finish() (NULL if keep is NULL) */
  FfmExpr *may_keep_expr;
  /* Capacity that depends on the Einsum, e.g. "weight.bits_per_value" for a
   * register that holds one weight; NULL = `size` is fixed. When set, `size`
   * is NAN: read capacities through ffm_arch_memory_size(). */
  char *size_per_einsum;
  FfmExpr *size_per_einsum_expr;
  /* Per-action energies, J per action; NAN = the default, which keeps the
   * two-energy meaning: fills and updates cost write_energy, drains
   * read_energy (resolve with ffm_arch_action_energies()). */
  double fill_energy;
  double update_energy;
  double drain_energy;
  /* FALSE: draining an output tile to the level above reads nothing here
   * (no energy, no read bandwidth), Timeloop's convention; default TRUE. */
  gboolean drains_read;
  GArray *energy_overrides;     /* of FfmEnergyOverride; may be NULL */
  /* Timeloop's counting (docs/cost-model.md, "Conventions"):
   * cluster_size instances share one physical access: the energy of the
   * memory's actions is divided among the instances a mapping uses in each
   * cluster (x min(1, clusters / used instances)); default 1. */
  double cluster_size;
  /* TRUE: each instance's actions of one tensor and one kind (read, fill,
   * update, drain) are rounded up to whole actions (a partial block costs
   * a whole one); default FALSE (fractions of actions). */
  gboolean whole_actions;
} FfmMemorySpec;

/* One spatial dimension of a fanout. */
typedef struct {
  char *name;                   /* e.g. "reuse_input", "X" */
  guint64 count;                /* instances along this dimension */
  char *reuse;                  /* tensors that must be shared: no loops over their rank variables; NULL = none */
  char *may_reuse;              /* tensors that may be multicast/reduced; NULL = reuse if set, else all */
  double min_usage;             /* required fraction of count used, 0..1 */
  char *allowed_rank_vars;      /* expression over rank-variable names that must be true for a spatial loop; NULL = any */
  FfmExpr *reuse_expr;          /* parsed by ffm_arch_finish() */
  FfmExpr *may_reuse_expr;
  FfmExpr *allowed_rank_vars_expr;
} FfmFanoutDim;

typedef struct {
  guint n_dims;
  FfmFanoutDim dims[FFM_MAX_FANOUT_DIMS];
} FfmFanoutSpec;

typedef struct {
  double energy;                /* J per operation */
  double throughput;            /* operations per second per instance */
  char *enabled;                /* expression true for the Einsums it serves; NULL = all */
  FfmExpr *enabled_expr;
  /* TRUE (Timeloop's counting): the unit keeps an input operand across the
   * innermost temporal loops that do not index it, reading it once per
   * change; default FALSE: every operation reads its operands. */
  gboolean operand_reuse;
} FfmComputeSpec;

/* One level of the hierarchy. */
typedef struct {
  FfmLevelKind kind;
  char *name;                   /* unique in the architecture */
  double leak_power;            /* W per instance */
  double area;                  /* m^2 per instance */
  char *description;            /* free text (sources, estimates); may be NULL */
  union {
    FfmMemorySpec memory;
    FfmFanoutSpec fanout;
    FfmComputeSpec compute;
  } u;
  /* Which component estimator gave which of the numbers above, one line
   * ("read_energy, write_energy: sram 70 %; area: sram 70 %"), or NULL
   * when none did (ffm-estimator.h). Appended in ABI 2.3. */
  char *estimated_by;
  /* TRUE (Timeloop's counting): leak_power is charged for the instances a
   * mapping uses (at least one), not for every instance; default FALSE.
   * Appended in ABI 2.3. */
  gboolean leak_utilized;
} FfmLevel;

typedef struct _FfmArch FfmArch;

/* ---- Building (architecture models) ---- */

FFM_API FfmArch *ffm_arch_new (const char *name);
/* Each returns the new level with defaults filled in (transfer none; valid
 * until ffm_arch_finish()). Strings set in the level are owned by the
 * architecture: assign g_strdup()ed values. */
FFM_API FfmLevel *ffm_arch_add_memory (FfmArch *arch, const char *name);
FFM_API FfmLevel *ffm_arch_add_fanout (FfmArch *arch, const char *name);
/* Adds a dimension to a fanout level; returns it (transfer none). */
FFM_API FfmFanoutDim *ffm_level_add_fanout_dim (FfmLevel *fanout,
                                                const char *name,
                                                guint64 count);
FFM_API FfmLevel *ffm_arch_add_compute (FfmArch *arch, const char *name);
FFM_API void ffm_arch_set_description (FfmArch *arch, const char *description);
/* Where the numbers come from (paper, file, commit); free text. */
FFM_API void ffm_arch_set_source (FfmArch *arch, const char *source);
/* Declares a number usable by name in the architecture's expressions
 * (size_per_einsum, bits overrides, enabled). The JSON loader declares every
 * parameter and `let` value. */
FFM_API void ffm_arch_set_variable (FfmArch *arch,
                                    const char *name,
                                    double value);
FFM_API void ffm_level_add_bits_override (FfmLevel *memory,
                                          const char *tensors,
                                          double bits);
/* Same with the bits given as an expression over `bits`, the tensor's own
 * bits per value ("3*bits" for partial sums stored three times wider). */
FFM_API void ffm_level_add_bits_override_expr (FfmLevel *memory,
                                               const char *tensors,
                                               const char *bits_expr);

/* Adds per-action energies for tensor set @tensors to a memory; returns
 * the override with every energy NAN (the memory's) for the caller to set
 * (transfer none; valid until ffm_arch_finish()). The first override whose
 * set holds a tensor applies to it. */
FFM_API FfmEnergyOverride *ffm_level_add_energy_override (FfmLevel *memory,
                                                          const char *tensors);

/* Parses the expressions and checks the hierarchy: the first level is a
 * memory, names are unique, sizes and counts positive, at least one compute
 * unit, energies and bandwidths non-negative, min_usage in [0,1]. Errors name
 * the architecture and the level. After success the architecture is
 * immutable. */
FFM_API gboolean ffm_arch_finish (FfmArch *arch, GError **error);

FFM_API FfmArch *ffm_arch_ref (FfmArch *arch);
FFM_API void ffm_arch_unref (FfmArch *arch);

/* ---- Reading ---- */

FFM_API const char *ffm_arch_get_name (const FfmArch *arch);
FFM_API const char *ffm_arch_get_description (const FfmArch *arch);
/* May be NULL. */
FFM_API const char *ffm_arch_get_source (const FfmArch *arch);
/* Names of the variables declared with ffm_arch_set_variable(), in order
 * (transfer none, NULL-terminated), and a variable's value. */
FFM_API const char *const *ffm_arch_get_variable_names (const FfmArch *arch);
FFM_API gboolean ffm_arch_get_variable (const FfmArch *arch,
                                        const char *name,
                                        double *value);
FFM_API guint ffm_arch_get_n_levels (const FfmArch *arch);
FFM_API const FfmLevel *ffm_arch_get_level (const FfmArch *arch, guint index);
/* Index of level @name, or -1. */
FFM_API int ffm_arch_find_level (const FfmArch *arch, const char *name);
/* Product of the fanout counts of all FANOUT levels above level @index: the
 * number of instances of that level (leak and area are per instance). This
 * counts every fanout above, which for a memory directly below a fanout
 * differs from the reference implementation's leak count (see
 * docs/file-formats.md). */
FFM_API guint64 ffm_arch_get_instances_above (const FfmArch *arch, guint index);
/* Area of all instances of level @index (area per instance x
 * ffm_arch_get_instances_above()), m^2; 0 when the architecture gives
 * none. */
FFM_API double ffm_arch_get_level_area (const FfmArch *arch, guint index);
/* The sum of ffm_arch_get_level_area() over the levels, m^2. */
FFM_API double ffm_arch_get_area (const FfmArch *arch);
/* Instances a FANOUT level creates: the product of its dimensions' counts
 * (1 for other levels). */
FFM_API guint64 ffm_arch_get_fanout_count (const FfmArch *arch, guint index);
/* The compute path of compute level @compute: level indices, outermost
 * first, ending with @compute (transfer full; free with g_free). */
FFM_API guint *ffm_arch_get_compute_path (const FfmArch *arch,
                                          guint compute,
                                          guint *n_levels);

/* ---- Evaluating the set expressions for one Einsum ----
 *
 * Each takes a finished architecture, a level index, a workload and an
 * Einsum index, and fails (FFM_ARCH_ERROR_INVALID, naming the architecture,
 * the level and the Einsum) only when an expression cannot be evaluated for
 * that Einsum (e.g. a tensor name the workload does not have). Masks are over
 * the Einsum's accesses: bit i = access i. None allocates per call beyond
 * the evaluation itself; call them once per Einsum, not in inner loops. */

/* What memory @level must keep (@must) and can keep at all (@may, which
 * includes @must) for @einsum. @kept (may be NULL, then memory names and
 * `above` are unknown names) is indexed by level: kept[i] = the tensors the
 * caller's current choice keeps in memory i, read for memories above @level
 * only. Defaults: no keep = nothing; no may_keep = all if keep is unset,
 * else nothing. */
FFM_API gboolean ffm_arch_eval_keep (const FfmArch *arch,
                                     guint level,
                                     const FfmWorkload *workload,
                                     guint einsum,
                                     const guint64 *kept,
                                     guint64 *must,
                                     guint64 *may,
                                     GError **error);

/* Whether compute @level serves @einsum (its `enabled`; TRUE if unset). */
FFM_API gboolean ffm_arch_compute_enabled (const FfmArch *arch,
                                           guint level,
                                           const FfmWorkload *workload,
                                           guint einsum,
                                           gboolean *enabled,
                                           GError **error);

/* Dimension @dim of fanout @level for @einsum: @reuse = tensors that must
 * be shared across it (nothing if unset), @may_reuse = tensors that may be
 * multicast or reduced across it (reuse if unset and reuse is set, else
 * all). Either out pointer may be NULL. */
FFM_API gboolean ffm_arch_fanout_reuse_masks (const FfmArch *arch,
                                              guint level,
                                              guint dim,
                                              const FfmWorkload *workload,
                                              guint einsum,
                                              guint64 *reuse,
                                              guint64 *may_reuse,
                                              GError **error);

/* Rank variables of @einsum that a spatial loop on dimension @dim of fanout
 * @level may iterate (bit v = rank variable v): those for which
 * allowed_rank_vars is true (a rank-variable name there is 1 for that
 * variable and 0 otherwise; names of other Einsums' variables are 0) and
 * that index no tensor of the dimension's `reuse` set. */
FFM_API gboolean ffm_arch_fanout_spatial_vars (const FfmArch *arch,
                                               guint level,
                                               guint dim,
                                               const FfmWorkload *workload,
                                               guint einsum,
                                               guint64 *vars,
                                               GError **error);

/* Bits per value of access @access of @einsum inside @level: the first
 * bits override of the memory whose tensor set holds the tensor, else the
 * tensor's own bits per value. */
FFM_API gboolean ffm_arch_bits_per_value (const FfmArch *arch,
                                          guint level,
                                          const FfmWorkload *workload,
                                          guint einsum,
                                          guint access,
                                          double *bits,
                                          GError **error);

/* Energy per action of access @access of @einsum inside memory @level,
 * J: the first energy override whose set holds the tensor, then the
 * memory's fill/update/drain energies, then its read and write energies
 * (read for reads and drains, write for fills and updates). The drain
 * energy is 0 when the memory's drains do not read (drains_read FALSE). */
FFM_API gboolean ffm_arch_action_energies (const FfmArch *arch,
                                           guint level,
                                           const FfmWorkload *workload,
                                           guint einsum,
                                           guint access,
                                           FfmActionEnergies *energies,
                                           GError **error);

/* TRUE when memory @level states no per-action energy (no fill, update or
 * drain energy, drains read, no override): its energy is read actions x
 * read_energy + write actions x write_energy. */
FFM_API gboolean ffm_memory_spec_has_two_energies (const FfmMemorySpec *memory);

/* Capacity of memory @level in bits when running @einsum: `size`, or
 * size_per_einsum evaluated for @einsum (must be >= 0). */
FFM_API gboolean ffm_arch_memory_size (const FfmArch *arch,
                                       guint level,
                                       const FfmWorkload *workload,
                                       guint einsum,
                                       double *bits,
                                       GError **error);

/* ---- JSON architectures ---- */

/* Loads an architecture from a JSON file (see docs/file-formats.md), with
 * the file's parameters overridden by @params (may be NULL). */
FFM_API FfmArch *ffm_arch_load_file (const char *path,
                                     const FfmParamValues *params,
                                     GError **error);
FFM_API FfmArch *ffm_arch_load_from_data (const char *json_text,
                                          const char *display_name,
                                          const FfmParamValues *params,
                                          GError **error);
/* The parameters a JSON architecture file declares, NULL-name-terminated
 * (transfer full: free with ffm_param_specs_free()). */
FFM_API FfmParamSpec *ffm_arch_file_get_param_specs (const char *path,
                                                     char **description,
                                                     GError **error);

/* The architecture as a JSON architecture file with every number resolved
 * (parameters and lets become plain numbers; infinite values are written
 * "inf"): loading it gives back an equal architecture (transfer full). */
FFM_API char *ffm_arch_to_json (const FfmArch *arch);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmArch, ffm_arch_unref)

G_END_DECLS
