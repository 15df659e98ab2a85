/* ffm-timeloop.h: Timeloop specifications in ffm.
 *
 * Most accelerator architects already describe their chips and layers for
 * Timeloop, in its v0.4 YAML format: an architecture tree (`subtree` /
 * `local` components with attributes), an energy reference table (`ERT`,
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
 * a key given twice is taken from the later file (with a warning).
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

G_BEGIN_DECLS

#define FFM_TIMELOOP_MAX_FILE_BYTES (16 * 1024 * 1024)
#define FFM_TIMELOOP_MAX_NODES 1000000
#define FFM_TIMELOOP_MAX_DEPTH 64

typedef struct _FfmTimeloopSpec FfmTimeloopSpec;

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
