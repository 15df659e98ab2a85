/* ffm-cli-limits.h: the pmapping generator's limits on the command line.
 *
 * Every command that generates pmappings (map, compare, pmappings, sweep)
 * takes the same three options, in a group of their own:
 *   --max-memory SIZE            the generation's memory budget
 *                                (FfmPmappingOptions.max_memory): past it
 *                                the command fails naming the Einsum and
 *                                template instead of running the machine
 *                                out of memory; default three quarters of
 *                                what the machine, ulimit -v/-d and the
 *                                control group leave the process;
 *   --max-template-seconds S     a template's tile search stops after S s;
 *   --max-templates N            at most N templates per Einsum.
 * The last two cut the mapspace: a search cut by them is reported as not
 * proven optimal (docs/limits.md, docs/ffm-search.md). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *max_memory;             /* --max-memory SIZE (owned); NULL = default */
  double max_template_seconds;  /* --max-template-seconds; 0 = none */
  gint64 max_templates;         /* --max-templates; 0 = all */
} FfmCliGeneratorLimits;

#define FFM_CLI_GENERATOR_LIMITS_INIT { NULL, 0, 0 }

/* The largest --max-templates. */
#define FFM_CLI_MAX_TEMPLATES G_MAXINT32

void ffm_cli_generator_limits_clear (FfmCliGeneratorLimits *limits);
/* Adds the group "limits" with the three options, writing into @limits. */
void ffm_cli_add_generator_limit_options (GOptionContext *context,
                                          FfmCliGeneratorLimits *limits);
/* Checks the options and gives the budget in bytes (0 = the default) in
 * *@max_memory; FALSE with a message naming the option otherwise. */
gboolean ffm_cli_generator_limits_check (const FfmCliGeneratorLimits *limits,
                                         guint64 *max_memory,
                                         GError **error);

/* Reads a memory size: a number of bytes, optionally with a binary unit
 * (K, M, G, T, also written KiB, MiB, GiB, TiB; "1.5G" is 1.5 x 2^30
 * bytes), at least 1 MiB and at most 2^60 bytes. FALSE with a message
 * otherwise. */
gboolean ffm_cli_parse_memory_size (const char *text,
                                    guint64 *bytes,
                                    GError **error);

G_END_DECLS
