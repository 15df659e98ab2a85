/* ffm-timeloop.h: Timeloop specifications in ffm.
 *
 * Most accelerator architects already describe their chips and layers for
 * Timeloop, in its v0.4 YAML format: an architecture (the front end's
 * `nodes` list of !Container, !Component and !Parallel nodes, or the
 * `subtree` / `local` tree Timeloop itself reads, with attributes and
 * constraints), compound component classes, an energy reference table (`ERT`,
 * the per-action energies Accelergy would compute), a problem (`shape`
 * with dimensions and data-space projections, `instance` with the sizes)
 * and a mapping (`factors`, `permutation`, `type: temporal | spatial |
 * datatype`, keep/bypass, `split`). This module reads them and builds
 * ffm's architecture, workload and mapping, and writes an ffm mapping back
 * as a Timeloop mapping, so the same chip and layer can be run by both
 * tools and their answers compared (docs/timeloop.md).
 *
 * A specification is the merge of several YAML files, as Timeloop merges
 * the files of its command line: each file's top-level keys are added,
 * a key given twice is taken from the later file (with a warning);
 * component classes add up. A folder stands for a design laid out as
 * the tutorials' exercises (arch.yaml, _components/, _include/:
 * docs/timeloop.md) or, without arch.yaml, for its YAML files.
 *
 * The translation keeps Timeloop's meaning:
 *   - memories charge Timeloop's per-action energies (read, fill, update;
 *     drains read nothing) in bits_per_action = block-size x datawidth
 *     actions, so counts, energy and cycles equal Timeloop's for the same
 *     mapping (docs/timeloop.md lists what differs, e.g. capacity);
 *   - a Timeloop level keeps a tile across the innermost loops above it
 *     that do not index it; an ffm storage node refills on every iteration
 *     of every loop above it. The mapping translation therefore places each
 *     storage node above those loops (docs/timeloop.md, "Storage nodes").
 * What cannot be translated (Accelergy component classes without an ERT
 * entry, sparse optimizations, named networks, ...) is an error or a
 * warning naming the file, the line and the key; warnings collect in the
 * specification (ffm_timeloop_spec_steal_warnings()).
 *
 * Limits, checked when a file is read: a file is at most
 * FFM_TIMELOOP_MAX_FILE_BYTES, a specification at most
 * FFM_TIMELOOP_MAX_NODES YAML nodes (aliases count once per use) nested at
 * most FFM_TIMELOOP_MAX_DEPTH deep. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-arch.h>
#include <ffm/ffm-workload.h>
#include <ffm/ffm-mapping.h>
#include <ffm/ffm-constraints.h>

G_BEGIN_DECLS

#define FFM_TIMELOOP_MAX_FILE_BYTES (16 * 1024 * 1024)
#define FFM_TIMELOOP_MAX_NODES 1000000
#define FFM_TIMELOOP_MAX_DEPTH 64
#define FFM_TIMELOOP_MAX_FILES 1024   /* YAML files in one folder */

typedef struct _FfmTimeloopSpec FfmTimeloopSpec;

/* Where Timeloop and ffm count differently, the translation follows
 * Timeloop by default; each flag asks for ffm's own rule instead
 * (docs/cost-model.md, the conventions table):
 *   BLOCKS: Timeloop's block size (width / datawidth when only the width
 *     is given) makes one action; with the flag, one action per word;
 *   WHOLE_BLOCKS: an instance's accesses of one tensor and one kind are
 *     rounded up to whole blocks; with the flag, fractions of blocks count;
 *   CLUSTERS: a cluster of `cluster_size` instances shares one access;
 *     with the flag, every instance pays its own;
 *   LEAK: leakage on the utilized instances of a storage level and none on
 *     the compute unit; with the flag, on every instance of every level;
 *   OPERAND_REUSE: the compute unit keeps an operand across the innermost
 *     loops that do not index it (not read again); with the flag, every
 *     operation reads its operands. */
typedef enum {
  FFM_TIMELOOP_CONVENTIONS_TIMELOOP = 0,
  FFM_TIMELOOP_FFM_BLOCKS = 1 << 0,
  FFM_TIMELOOP_FFM_WHOLE_BLOCKS = 1 << 1,
  FFM_TIMELOOP_FFM_CLUSTERS = 1 << 2,
  FFM_TIMELOOP_FFM_LEAK = 1 << 3,
  FFM_TIMELOOP_FFM_OPERAND_REUSE = 1 << 4,
  FFM_TIMELOOP_CONVENTIONS_FFM = (1 << 5) - 1,
} FfmTimeloopConventions;

/* The names of the flags above, for options and messages: "blocks",
 * "whole-blocks", "clusters", "leak", "operand-reuse"; NULL-terminated,
 * in flag order. */
FFM_API const char *const *ffm_timeloop_convention_names (void);
/* Parses a comma-separated list of those names ("all": every one; ""
 * or "none": none) into flags; FALSE with an error listing the names. */
FFM_API gboolean ffm_timeloop_conventions_parse (const char *text,
                                                 FfmTimeloopConventions *out,
                                                 GError **error);

/* Energies of one component's actions, pJ (NAN: the estimator has none). */
typedef struct {
  double read;
  double fill;
  double update;
  double compute;
  double leak;              /* per cycle per instance */
  const char *source;       /* what estimated them, for messages and the
                               level's estimated_by */
  double area;              /* um^2 per instance (NAN: none; an ART entry
                               wins) */
} FfmTimeloopActionEnergies;

/* What the translation asks an estimator about a component without an
 * ERT entry: its name, class and attributes as the architecture gives
 * them (after the containers' attributes; the compound class, when the
 * files define one, names its file). */
typedef struct {
  const char *component;
  const char *class_name;
  const char *const *attribute_names;   /* NULL-terminated, '_' spelling */
  const char *const *attribute_values;  /* as written */
  const char *class_file;               /* NULL for a primitive class */
} FfmTimeloopComponent;

/* An energy estimator a program puts in place of ffm's component
 * estimators: fills @out and returns TRUE, or returns FALSE when it has no
 * estimate (then the ERT is required, and the error says which). An ERT
 * entry, where the files give one, always wins: the estimator is asked
 * only about components without one. */
typedef gboolean (*FfmTimeloopEstimator) (const FfmTimeloopComponent *component,
                                          FfmTimeloopActionEnergies *out,
                                          gpointer user_data);

/* Reads and merges the YAML files @paths (NULL-terminated, at least one).
 * FFM_TIMELOOP_ERROR_PARSE for a file that cannot be read or is not YAML
 * ("FILE:LINE:COLUMN: cause"), FFM_TIMELOOP_ERROR_INVALID for a file
 * whose top is not a mapping (transfer full). */
FFM_API FfmTimeloopSpec *ffm_timeloop_spec_load (const char *const *paths,
                                                 GError **error);
/* The same for a list written "a.yaml,b.yaml" (the `timeloop:` prefix of
 * ffm's --arch and --workload options); empty names are errors. */
FFM_API FfmTimeloopSpec *ffm_timeloop_spec_load_list (const char *list,
                                                      GError **error);
/* One YAML text; @display_name stands for the file in messages. */
FFM_API FfmTimeloopSpec *ffm_timeloop_spec_load_data (const char *text,
                                                      const char *display_name,
                                                      GError **error);
FFM_API void ffm_timeloop_spec_free (FfmTimeloopSpec *spec);

/* TRUE if the merged files have top-level key @key ("architecture",
 * "problem", "mapping", "ERT", ...). */
FFM_API gboolean ffm_timeloop_spec_has (const FfmTimeloopSpec *spec,
                                        const char *key);

/* The warnings collected so far, each "FILE:LINE: KEY: message", and
 * forgets them (transfer full, NULL-terminated, possibly empty). */
FFM_API GStrv ffm_timeloop_spec_steal_warnings (FfmTimeloopSpec *spec);
/* The same grouped: first, in full, the warnings about what makes a
 * number differ from Timeloop's (networks, sliding windows, constraints
 * not translated, ...); then, unless @all, one line per other kind
 * ("12 unknown attributes ignored, the first: ..."). */
FFM_API GStrv ffm_timeloop_spec_steal_warnings_grouped (FfmTimeloopSpec *spec,
                                                        gboolean all);

/* Which rules the translations follow (default: Timeloop's). Call before
 * ffm_timeloop_spec_to_arch(). */
FFM_API void ffm_timeloop_spec_set_conventions (FfmTimeloopSpec *spec,
                                                FfmTimeloopConventions conventions);
/* The estimator asked for the energies of components the ERT lacks, in
 * place of the default: ffm's component estimators (ffm-estimator.h) on
 * the design's compound classes, the registry building the architecture
 * or the process's default one. A component no estimator can price is an
 * error naming the ERT to give. Call before ffm_timeloop_spec_to_arch(). */
FFM_API void ffm_timeloop_spec_set_estimator (FfmTimeloopSpec *spec,
                                              FfmTimeloopEstimator estimator,
                                              gpointer user_data);

/* A `timeloop:` list ("a.yaml,dir") with every path made absolute, so
 * that a result file names the same files from any folder (transfer
 * full). */
FFM_API char *ffm_timeloop_list_absolute (const char *list);

/* The architecture of `architecture` with the energies of `ERT` (and the
 * areas of `ART` when given): memories, one fanout per growth in instance
 * count (dimensions X and Y from meshX and meshY), the compute unit.
 * FFM_TIMELOOP_ERROR_MISSING without an `architecture` (transfer full). */
FFM_API FfmArch *ffm_timeloop_spec_to_arch (FfmTimeloopSpec *spec,
                                            GError **error);

/* The workload of `problem`: one Einsum named after the shape, a tensor
 * per data space (the read-write one is the output), a rank variable per
 * dimension (its name in lower case), @bits_per_value bits per value
 * (architectures from ffm_timeloop_spec_to_arch() override it with each
 * level's datawidth) (transfer full). */
FFM_API FfmWorkload *ffm_timeloop_spec_to_workload (FfmTimeloopSpec *spec,
                                                    guint bits_per_value,
                                                    GError **error);

typedef enum {
  FFM_TIMELOOP_MAPPING_DEFAULT = 0,
  /* Storage nodes where Timeloop's levels begin, not above the loops that
   * do not index their tensor: the literal reading, which refills tiles
   * Timeloop keeps (for comparison; docs/timeloop.md). */
  FFM_TIMELOOP_MAPPING_LITERAL = 1 << 0,
} FfmTimeloopMappingFlags;

/* The mapping of `mapping` for the one Einsum of @workload on @arch (whose
 * memory and fanout names are Timeloop's level names, as
 * ffm_timeloop_spec_to_arch() makes them). Its nodes carry the line of
 * their directive, so the cost model's errors name the YAML file
 * (transfer full). */
FFM_API FfmMapping *ffm_timeloop_spec_to_mapping (FfmTimeloopSpec *spec,
                                                  const FfmWorkload *workload,
                                                  const FfmArch *arch,
                                                  FfmTimeloopMappingFlags flags,
                                                  GError **error);

/* Timeloop's mapspace constraints as an ffm constraint set for the one
 * Einsum of @workload on @arch: the constraints written on the
 * architecture's nodes (or `architecture_constraints`), `mapspace` /
 * `mapspace_constraints` and `extra_mapping_constraints` targets.
 * `dataspace` keep and bypass become keep and forbid; a temporal
 * permutation a loop order; spatial factors of 1 and a split the rank
 * variables each fanout dimension may spread; factors that fix a level's
 * whole tile (every factor at and below it known) tiles. What has no ffm
 * equivalent (a factor that leaves the tile open, <= and >= factors,
 * no_reuse, utilization, ...) is left out with a warning per kind, so the
 * set admits every mapping Timeloop's constraints admit. An empty set
 * (no constraints) is returned as such (transfer full). */
FFM_API FfmConstraints *ffm_timeloop_spec_to_constraints (FfmTimeloopSpec *spec,
                                                          const FfmWorkload *workload,
                                                          const FfmArch *arch,
                                                          GError **error);

/* A single-Einsum ffm mapping as a Timeloop map.yaml (transfer full):
 * per memory on the compute path a datatype directive (keep, bypass), a
 * temporal one (factors, permutation innermost first) and, above a fanout,
 * a spatial one (the fanout's first dimension is X, the second Y; split).
 * Dimension names are the Einsum's rank names. When Timeloop's reading of
 * the file costs something else than @mapping in ffm's model (a tile that
 * Timeloop keeps across a loop that does not index it, where @mapping
 * refills it), a warning is appended to @warnings (may be NULL). Errors:
 * the cost model's (FFM_MAPPING_ERROR) for a mapping that does not match
 * the workload and the architecture; FFM_TIMELOOP_ERROR_UNSUPPORTED for a
 * mapping with splits, two loops over one rank variable within one level,
 * a spatial loop over a fanout of more than two dimensions, or a tensor
 * not kept in the outermost memory. */
FFM_API char *ffm_timeloop_mapping_to_yaml (const FfmMapping *mapping,
                                            const FfmWorkload *workload,
                                            const FfmArch *arch,
                                            GPtrArray *warnings,
                                            GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmTimeloopSpec, ffm_timeloop_spec_free)

G_END_DECLS
