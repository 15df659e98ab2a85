/* ffm-cli-limits.c: --max-memory, --max-template-seconds, --max-templates
 * (ffm-cli-limits.h). */
#include "ffm-cli-limits.h"
#include "ffm-cli-cancel.h"

#include <ffm/ffm.h>
#include <math.h>
#include <string.h>

/* Below this a budget cannot hold one template's first tables. */
#define MIN_MEMORY_BYTES (G_GUINT64_CONSTANT (1) << 20)
#define MAX_MEMORY_BYTES (G_GUINT64_CONSTANT (1) << 60)

void
ffm_cli_generator_limits_clear (FfmCliGeneratorLimits *limits)
{
  g_clear_pointer (&limits->max_memory, g_free);
}

void
ffm_cli_add_generator_limit_options (GOptionContext *context,
                                     FfmCliGeneratorLimits *limits)
{
  const GOptionEntry entries[] = {
    { "max-memory", 0, 0, G_OPTION_ARG_STRING, &limits->max_memory,
      "Memory the pmapping generation may hold (e.g. 8G, 512M; default three "
      "quarters of what the machine, ulimit -v/-d and the control group leave): "
      "past it the command fails naming the "
      "Einsum and template", "SIZE" },
    { "max-template-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &limits->max_template_seconds,
      "Stop each template's tile search after S seconds, keeping what it found "
      "(the result is then not proven optimal)", "S" },
    { "max-templates", 0, 0, G_OPTION_ARG_INT64, &limits->max_templates,
      "Enumerate at most N templates per Einsum (the result is then not proven "
      "optimal when any is left out)", "N" },
    G_OPTION_ENTRY_NULL
  };
  GOptionGroup *group = g_option_group_new ("limits", "Limits of the pmapping "
                                            "generation (docs/limits.md):",
                                            "Show the generation's limit options",
                                            NULL, NULL);

  g_option_group_add_entries (group, entries);
  g_option_context_add_group (context, group);
}

gboolean
ffm_cli_parse_memory_size (const char *text, guint64 *bytes, GError **error)
{
  static const struct {
    const char *unit;
    double scale;
  } units[] = {
    { "", 1 }, { "B", 1 },
    { "K", 1024.0 }, { "KiB", 1024.0 },
    { "M", 1048576.0 }, { "MiB", 1048576.0 },
    { "G", 1073741824.0 }, { "GiB", 1073741824.0 },
    { "T", 1099511627776.0 }, { "TiB", 1099511627776.0 },
  };
  char *end = NULL;
  double value;

  g_return_val_if_fail (text != NULL, FALSE);
  value = g_ascii_strtod (text, &end);
  if (end == text || !g_ascii_isdigit (text[0]) || !isfinite (value))
    goto bad;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_ascii_strcasecmp (end, units[i].unit) == 0)
      {
        double b = floor (value * units[i].scale);
        if (b < (double) MIN_MEMORY_BYTES || b > (double) MAX_MEMORY_BYTES)
          {
            g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                         "--max-memory %s is outside 1M to 2^60 bytes", text);
            return FALSE;
          }
        *bytes = (guint64) b;
        return TRUE;
      }
bad:
  g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
               "--max-memory must be a size such as 8G, 512M or 1073741824 "
               "(bytes; units K, M, G, T are powers of 1024), got '%s'", text);
  return FALSE;
}

gboolean
ffm_cli_generator_limits_check (const FfmCliGeneratorLimits *limits,
                                guint64 *max_memory, GError **error)
{
  *max_memory = 0;
  if (limits->max_memory != NULL
      && !ffm_cli_parse_memory_size (limits->max_memory, max_memory, error))
    return FALSE;
  if (!ffm_cli_timeout_is_valid (limits->max_template_seconds))
    {
      g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                   "--max-template-seconds must be a number of seconds from 0 "
                   "(none) to %.0f", FFM_CLI_MAX_TIMEOUT);
      return FALSE;
    }
  if (limits->max_templates < 0 || limits->max_templates > FFM_CLI_MAX_TEMPLATES)
    {
      g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                   "--max-templates must be 0 (all) to %d", FFM_CLI_MAX_TEMPLATES);
      return FALSE;
    }
  return TRUE;
}
