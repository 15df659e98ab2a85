/* ffm-cmd-import.c: `ffm import timeloop`, Timeloop YAML to ffm JSON.
 *
 *   ffm import timeloop FILE.yaml|FOLDER... [--output-dir DIR] [--bits N]
 *                       [--literal-storage] [--ffm-conventions LIST]
 *
 * Reads and merges the files (a folder: a design, or its YAML files) as
 * Timeloop does (core/include/ffm/ffm-timeloop.h) and writes what they
 * hold: the architecture (with its ERT) to DIR/arch.json, the problem to
 * DIR/workload.json, the mapping (which needs both) to DIR/mapping.json,
 * the mapspace constraints (which need both) to DIR/constraints.json. One
 * line per file written goes to stdout; warnings (what ffm does not
 * translate; what changes a number first) to stderr. Exit codes: 0 ok, 1
 * when a file does not translate, 2 for usage errors. */
#include "ffm-cli-common.h"
#include "ffm-cli-output.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#define COMMAND "import"

static const char import_description[] =
  "Translates Timeloop v0.4 YAML (architecture and ERT, problem, mapping,\n"
  "mapspace constraints) into ffm's architecture, workload, mapping and\n"
  "constraint JSON files. The files are merged as Timeloop merges its\n"
  "command line; a folder is a design laid out as Timeloop's exercises\n"
  "(arch.yaml, _components/, _include/). Examples:\n"
  "  ffm import timeloop arch.yaml problem.yaml map.yaml ERT.yaml -o out\n"
  "  ffm import timeloop designs/eyeriss_like outputs/timeloop-mapper.ERT.yaml\n";

typedef struct {
  FfmCliCommon common;
  char *output_dir;             /* --output-dir DIR (owned) */
  int bits;                     /* --bits N, -1 = the outermost datawidth */
  gboolean literal;             /* --literal-storage */
  char *ffm_conventions;        /* --ffm-conventions LIST (owned) */
} ImportOptions;

static int
write_file (const char *dir, const char *name, const char *text,
            const char *what)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;

  if (!ffm_cli_output_write (path, text, &error))
    return ffm_cli_fail (COMMAND, error);
  g_print ("wrote %s: %s\n", path, what);
  return FFM_EXIT_OK;
}

/* The datawidth the importer gave the outermost memory (its bits override),
 * else @fallback. */
static guint
outermost_bits (const FfmArch *arch, guint fallback)
{
  const FfmLevel *l = ffm_arch_get_level (arch, 0);
  const GArray *o = l->u.memory.bits_overrides;

  if (o == NULL || o->len == 0 || g_array_index (o, FfmBitsOverride, 0).bits_text != NULL)
    return fallback;
  return (guint) g_array_index (o, FfmBitsOverride, 0).bits;
}

static char *
level_list (const FfmArch *arch)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < ffm_arch_get_n_levels (arch); i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", ffm_arch_get_level (arch, i)->name);
  return g_string_free (s, FALSE);
}

static int
run_import (GOptionContext *context, ImportOptions *o, char **files)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmWorkload) workload = NULL;
  g_autoptr (FfmMapping) mapping = NULL;
  g_autoptr (FfmConstraints) constraints = NULL;
  const char *dir = o->output_dir != NULL ? o->output_dir : ".";
  gboolean has_arch, has_problem, has_mapping;
  FfmTimeloopConventions conventions = FFM_TIMELOOP_CONVENTIONS_TIMELOOP;
  int status = FFM_EXIT_OK;

  if (files[0] == NULL)
    return ffm_cli_usage_error (context, COMMAND,
                                "give the Timeloop YAML files to import");
  if (o->bits != -1 && (o->bits < 1 || o->bits > 1024))
    return ffm_cli_usage_error (context, COMMAND,
                                "--bits must be 1 to 1024, not %d", o->bits);
  if (o->ffm_conventions != NULL
      && !ffm_timeloop_conventions_parse (o->ffm_conventions, &conventions, &error))
    return ffm_cli_usage_error (context, COMMAND, "--ffm-conventions: %s",
                                error->message);
  spec = ffm_timeloop_spec_load ((const char *const *) files, &error);
  if (spec == NULL)
    return ffm_cli_fail (COMMAND, error);
  ffm_timeloop_spec_set_conventions (spec, conventions);
  has_arch = ffm_timeloop_spec_has (spec, "architecture");
  has_problem = ffm_timeloop_spec_has (spec, "problem");
  has_mapping = ffm_timeloop_spec_has (spec, "mapping");
  if (!has_arch && !has_problem && !has_mapping)
    {
      ffm_cli_warn_timeloop (COMMAND, spec);
      g_set_error_literal (&error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_MISSING,
                           "the files have no architecture, problem or mapping "
                           "to import");
      return ffm_cli_fail (COMMAND, error);
    }
  if (has_mapping && (!has_arch || !has_problem))
    {
      g_set_error_literal (&error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_MISSING,
                           "a Timeloop mapping is translated for its "
                           "architecture and problem: give their files too");
      return ffm_cli_fail (COMMAND, error);
    }
  if (g_mkdir_with_parents (dir, 0777) != 0)
    {
      g_printerr ("ffm %s: --output-dir %s: %s\n", COMMAND, dir, g_strerror (errno));
      return FFM_EXIT_FAILURE;
    }

  if (has_arch && (arch = ffm_timeloop_spec_to_arch (spec, &error)) == NULL)
    status = ffm_cli_fail (COMMAND, error);
  if (status == FFM_EXIT_OK && has_problem
      && (workload = ffm_timeloop_spec_to_workload (spec,
                                                    o->bits != -1 ? (guint) o->bits
                                                    : arch != NULL
                                                    ? outermost_bits (arch, FFM_CLI_TIMELOOP_DEFAULT_BITS)
                                                    : FFM_CLI_TIMELOOP_DEFAULT_BITS,
                                                    &error)) == NULL)
    status = ffm_cli_fail (COMMAND, error);
  if (status == FFM_EXIT_OK && has_mapping
      && (mapping = ffm_timeloop_spec_to_mapping (spec, workload, arch,
                                                  o->literal ? FFM_TIMELOOP_MAPPING_LITERAL
                                                  : FFM_TIMELOOP_MAPPING_DEFAULT,
                                                  &error)) == NULL)
    status = ffm_cli_fail (COMMAND, error);
  if (status == FFM_EXIT_OK && arch != NULL && workload != NULL
      && (constraints = ffm_timeloop_spec_to_constraints (spec, workload, arch,
                                                          &error)) == NULL)
    status = ffm_cli_fail (COMMAND, error);
  ffm_cli_warn_timeloop (COMMAND, spec);
  if (status != FFM_EXIT_OK)
    return status;

  if (arch != NULL)
    {
      g_autofree char *text = ffm_arch_to_json (arch);
      g_autofree char *levels = level_list (arch);
      g_autofree char *what = g_strdup_printf ("architecture %s (%s)",
                                               ffm_arch_get_name (arch), levels);
      status = write_file (dir, "arch.json", text, what);
    }
  if (status == FFM_EXIT_OK && workload != NULL)
    {
      g_autofree char *text = ffm_workload_to_json (workload);
      const FfmEinsum *e = ffm_workload_get_einsum (workload, 0);
      g_autofree char *what = g_strdup_printf ("workload %s (%s)",
                                               ffm_workload_get_name (workload),
                                               e->text);
      status = write_file (dir, "workload.json", text, what);
    }
  if (status == FFM_EXIT_OK && mapping != NULL)
    {
      g_autofree char *text = ffm_mapping_to_json (mapping);
      status = write_file (dir, "mapping.json", text,
                           o->literal ? "mapping (storage nodes where Timeloop's "
                                        "levels begin)"
                                      : "mapping");
    }
  if (status == FFM_EXIT_OK && constraints != NULL && ffm_constraints_get_n (constraints) > 0)
    {
      g_autoptr (FfmJsonWriter) w = ffm_json_writer_new ();
      g_autofree char *text = NULL;
      g_autofree char *what = g_strdup_printf ("%u mapspace constraints (use with "
                                               "ffm map --constraints)",
                                               ffm_constraints_get_n (constraints));
      ffm_constraints_write_json (constraints, w);
      text = ffm_json_writer_finish (w);
      status = write_file (dir, "constraints.json", text, what);
    }
  return status;
}

int
ffm_cmd_import (int argc, char **argv)
{
  ImportOptions o = { FFM_CLI_COMMON_INIT, NULL, -1, FALSE, NULL };
  const GOptionEntry entries[] = {
    { "output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &o.output_dir,
      "Write arch.json, workload.json and mapping.json into DIR (default: "
      "the current folder)", "DIR" },
    { "bits", 0, 0, G_OPTION_ARG_INT, &o.bits,
      "Bits per value of the workload's tensors, 1 to 1024 (default: the "
      "datawidth of the outermost memory, or 8)", "N" },
    { "ffm-conventions", 0, 0, G_OPTION_ARG_STRING, &o.ffm_conventions,
      "Count these as ffm does, not as Timeloop does: blocks, whole-blocks, "
      "clusters, leak, operand-reuse, or all (default: none; "
      "docs/cost-model.md)", "LIST" },
    { "literal-storage", 0, 0, G_OPTION_ARG_NONE, &o.literal,
      "Put each storage node where its Timeloop level begins, not above the "
      "loops Timeloop keeps its tile across (for comparison: refills more)",
      NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autofree char *description = ffm_cli_describe (import_description, "timeloop.md");
  g_auto (GStrv) positional = NULL;
  int status;

  context = ffm_cli_context_new (COMMAND, "timeloop FILE.yaml...", description);
  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_common_options (context, &o.common, FALSE);

  if (!ffm_cli_parse (context, COMMAND, &o.common, NULL, argc, argv, &positional))
    status = FFM_EXIT_USAGE;
  else if (positional[0] == NULL)
    status = ffm_cli_usage_error (context, COMMAND,
                                  "give the format to import: timeloop");
  else if (strcmp (positional[0], "timeloop") != 0)
    status = ffm_cli_usage_error (context, COMMAND, "unknown format '%s' (ffm "
                                  "imports timeloop)", positional[0]);
  else
    status = run_import (context, &o, positional + 1);

  g_free (o.output_dir);
  g_free (o.ffm_conventions);
  ffm_cli_common_clear (&o.common);
  return status;
}
