/* ffm-result.h: result files that say what produced them.
 *
 * A result file (what `ffm map --json`, `ffm eval --json` and
 * `ffm pmappings --json` write) is a JSON object whose members are the
 * result (energy, latency, the mapping, ...) plus a record of everything
 * that produced it, so that the result can be kept, read back and
 * reproduced with no other argument: `ffm eval RESULT.json` rebuilds the
 * same architecture and workload and evaluates the same mapping to the
 * same costs, bit for bit. The record (an FfmResultInfo) holds:
 *   - ffm's version and the command that wrote the file;
 *   - the architecture: as the user named it (a name, MODEL:NAME or a
 *     path), its name, the model that built it, the file it came from (the
 *     JSON file or the model's plugin) and every parameter value, the
 *     defaults included;
 *   - the workload: as named, its name, its file and every parameter value;
 *   - the strategy and every one of its parameter values (none for eval);
 *   - the objective and the other options (max_fused_loops, unfused, seed,
 *     threads, ...), each a typed value.
 * Parameter values are kept as the text they were given in ("2**6"), so
 * that rebuilding reads them exactly as the first run did.
 *
 * In JSON (docs/file-formats.md, "Result files"):
 *   { "ffm_result": 1, "ffm_version": "0.2.0", "command": "map",
 *     "inputs": { "architecture": {...}, "workload": {...},
 *                 "strategy": {...} | null, "objective": "edp",
 *                 "options": {...} },
 *     ...the result's own members..., "mapping": {...} }
 * Readers check the record strictly (unknown members in "inputs" are
 * errors naming the file and line) and leave the result's own members to
 * the command that wrote them. A plain mapping file ("ffm_mapping": 1)
 * reads too, as a result file without a record. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-params.h>
#include <ffm/ffm-mapping.h>
#include <ffm/ffm-json-writer.h>

G_BEGIN_DECLS

/* The format version written in "ffm_result". */
#define FFM_RESULT_FORMAT_VERSION 1

typedef struct _FfmResultInfo FfmResultInfo;

/* What a record says of the architecture or of the workload. */
typedef struct {
  char *given;                  /* as the user named it: "tpuv4i",
                                   "cimloop:jia-jssc2020", "chips/x.json" */
  char *name;                   /* the architecture's or workload's name */
  char *model;                  /* architecture only: the model that built
                                   it, NULL for a JSON file */
  char *file;                   /* the file it came from (absolute when
                                   known), or NULL */
  FfmParamValues *parameters;   /* every parameter, as text (owned) */
} FfmResultSource;

/* An empty record for @command ("map"), with this ffm's version.
 * (transfer full) */
FFM_API FfmResultInfo *ffm_result_info_new (const char *command);
FFM_API FfmResultInfo *ffm_result_info_copy (const FfmResultInfo *info);
FFM_API void ffm_result_info_free (FfmResultInfo *info);

/* The version of ffm that wrote the record, and the command. */
FFM_API const char *ffm_result_info_get_version (const FfmResultInfo *info);
FFM_API const char *ffm_result_info_get_command (const FfmResultInfo *info);

/* Sets the architecture or the workload; @parameters is copied (may be
 * NULL: none). */
FFM_API void ffm_result_info_set_architecture (FfmResultInfo *info,
                                               const char *given,
                                               const char *name,
                                               const char *model,
                                               const char *file,
                                               const FfmParamValues *parameters);
FFM_API void ffm_result_info_set_workload (FfmResultInfo *info,
                                           const char *given,
                                           const char *name,
                                           const char *file,
                                           const FfmParamValues *parameters);
/* NULL until set (transfer none). */
FFM_API const FfmResultSource *ffm_result_info_get_architecture (const FfmResultInfo *info);
FFM_API const FfmResultSource *ffm_result_info_get_workload (const FfmResultInfo *info);

/* The strategy, with every parameter value (may be NULL: none); NULL
 * @name clears it. */
FFM_API void ffm_result_info_set_strategy (FfmResultInfo *info,
                                           const char *name,
                                           const FfmParamValues *parameters);
FFM_API const char *ffm_result_info_get_strategy (const FfmResultInfo *info);
/* Its parameters; NULL when there is no strategy (transfer none). */
FFM_API const FfmParamValues *ffm_result_info_get_strategy_parameters (const FfmResultInfo *info);

/* The objective ("edp", "energy", "latency", "pareto"), or NULL. */
FFM_API void ffm_result_info_set_objective (FfmResultInfo *info,
                                            const char *objective);
FFM_API const char *ffm_result_info_get_objective (const FfmResultInfo *info);

/* Options, in the order first set (setting one again replaces it). */
FFM_API void ffm_result_info_set_option_int (FfmResultInfo *info,
                                             const char *name,
                                             gint64 value);
FFM_API void ffm_result_info_set_option_double (FfmResultInfo *info,
                                                const char *name,
                                                double value);
FFM_API void ffm_result_info_set_option_boolean (FfmResultInfo *info,
                                                 const char *name,
                                                 gboolean value);
FFM_API void ffm_result_info_set_option_string (FfmResultInfo *info,
                                                const char *name,
                                                const char *value);
/* Option names in order (transfer container: free with g_free()). */
FFM_API const char **ffm_result_info_list_options (const FfmResultInfo *info);
/* The option as text ("1", "true", "0.5", the string), or NULL when it is
 * not set (transfer none). */
FFM_API const char *ffm_result_info_get_option (const FfmResultInfo *info,
                                                const char *name);

/* Copies the strategy with its parameters, the objective and the options
 * (with their types) of @from into @info: how a mapping was made, kept
 * when it is evaluated again. */
FFM_API void ffm_result_info_set_search_from (FfmResultInfo *info,
                                              const FfmResultInfo *from);

/* The SHA-256 of each input file the result was made from, as
 * "sha256:HEX": "architecture" (the JSON file, or the plugin of the model
 * that built it), "workload" (its file) and "mapping" (the mapping file
 * `ffm eval` read). `ffm eval` compares them with the files it rebuilds
 * from and refuses to go on when one changed, unless told
 * (--allow-changed-inputs). A result file from before digests has none. */
FFM_API void ffm_result_info_set_digest (FfmResultInfo *info,
                                         const char *input,
                                         const char *digest);
/* NULL when not recorded (transfer none). */
FFM_API const char *ffm_result_info_get_digest (const FfmResultInfo *info,
                                                const char *input);
/* The inputs with a digest, in order (transfer none). */
FFM_API const char *const *ffm_result_info_list_digests (const FfmResultInfo *info);
/* "sha256:HEX" of the regular file @path, NULL when it is not one or
 * cannot be read (transfer full). */
FFM_API char *ffm_result_digest_file (const char *path);

/* Writes the record as the members "ffm_result", "ffm_version",
 * "command" and "inputs" of the object @writer has open. */
FFM_API void ffm_result_info_write_json (const FfmResultInfo *info,
                                         FfmJsonWriter *writer);

/* ---- Reading a result (or mapping) file ---- */

typedef struct _FfmResultFile FfmResultFile;

/* Reads @path: a result file (its record and, when it has one, its
 * "mapping") or a plain mapping file (no record). Errors
 * (FFM_MAPPING_ERROR) name the file, the line and the JSON path: a format
 * version this ffm does not read, a malformed record, a malformed
 * mapping. (transfer full) */
FFM_API FfmResultFile *ffm_result_file_load (const char *path, GError **error);
FFM_API FfmResultFile *ffm_result_file_load_from_data (const char *json_text,
                                                       const char *display_name,
                                                       GError **error);
FFM_API void ffm_result_file_free (FfmResultFile *file);

/* The record, or NULL for a plain mapping file (transfer none). */
FFM_API const FfmResultInfo *ffm_result_file_get_info (const FfmResultFile *file);
/* The mapping, or NULL when the file holds none (`ffm pmappings` results)
 * (transfer none). */
FFM_API const FfmMapping *ffm_result_file_get_mapping (const FfmResultFile *file);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmResultInfo, ffm_result_info_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmResultFile, ffm_result_file_free)

G_END_DECLS
