/* ffm-pmapping-options.c: the pmapping generator's options
 * (ffm-pmapping.h): their defaults and the copy a generation keeps, the
 * default memory budget, cancellation, the progress line, the
 * diagnostics (ffm-pmapping-diagnostics.h) and the objectives a search
 * objective keeps. */
#include "ffm-pmapping-private.h"
#include "ffm-pmapping-diagnostics.h"

#include <string.h>

/* ---- Options ---- */

static void
options_set_defaults (FfmPmappingOptions *options)
{
  memset (options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->objectives = FFM_PMAPPING_ENERGY | FFM_PMAPPING_LATENCY;
  options->max_fused_loops = -1;
  options->max_fused_loops_per_rank_var = 1;
  options->n_threads = 0;
  options->einsum = -1;
  options->unfused = FALSE;
  options->reuse_equal_einsums = TRUE;
  options->cancel = NULL;
  options->progress = NULL;
  options->progress_data = NULL;
  options->constraints = NULL;
  options->max_memory = 0;
}

void
ffm_pmapping_options_init_sized (FfmPmappingOptions *options, gsize struct_size)
{
  FfmPmappingOptions defaults;

  g_return_if_fail (options != NULL);
  g_return_if_fail (struct_size >= G_STRUCT_OFFSET (FfmPmappingOptions, objectives));
  options_set_defaults (&defaults);
  defaults.struct_size = MIN (struct_size, sizeof defaults);
  memcpy (options, &defaults, defaults.struct_size);
}

static _Thread_local gboolean forced_no_partial_pruning;

void
pmapping_options_force_no_partial_pruning (gboolean on)
{
  forced_no_partial_pruning = on;
}

/* The caller's options over the defaults: a caller built before a field
 * was appended does not have it (its struct_size says so). */
void
pmapping_options_copy (FfmPmappingOptions *out, const FfmPmappingOptions *options)
{
  options_set_defaults (out);
  if (options != NULL)
    memcpy (out, options, MIN (options->struct_size, sizeof *out));
  out->struct_size = sizeof *out;
  /* The debug flags of the generator's diagnostics, fixed for this
   * generation (a caller's reserved_ is ignored). */
  FFM_PMAPPING_NO_PARTIAL_PRUNING (out) = forced_no_partial_pruning
    || ffm_debug_flag_is_set (FFM_DEBUG_NO_PARTIAL_PRUNING);
  FFM_PMAPPING_TRACK_ALL_MEMORIES (out) = ffm_debug_flag_is_set (FFM_DEBUG_TRACK_ALL_MEMORIES);
}

guint64
ffm_pmapping_default_max_memory (void)
{
  return ffm_memory_budget_default_limit (NULL);
}

/* The options' memory budget in bytes (0: the default). */
guint64
pmapping_options_max_memory (const FfmPmappingOptions *options)
{
  if (options->struct_size >= G_STRUCT_OFFSET (FfmPmappingOptions, max_memory)
                              + sizeof options->max_memory
      && options->max_memory > 0)
    return options->max_memory;
  return ffm_pmapping_default_max_memory ();
}

gboolean
ffm_pmapping_options_is_cancelled (const FfmPmappingOptions *options)
{
  return options != NULL
    && options->struct_size >= G_STRUCT_OFFSET (FfmPmappingOptions, cancel) + sizeof options->cancel
    && options->cancel != NULL && g_atomic_int_get (options->cancel) != 0;
}

void
ffm_pmapping_progress_format (const FfmPmappingProgress *p, char *buffer, gsize size)
{
  g_snprintf (buffer, size, "Einsum %u of %u%s%s%s, template %u of %u",
              MIN (p->einsums_done + 1, p->n_einsums), p->n_einsums,
              p->einsum_name != NULL ? " (" : "",
              p->einsum_name != NULL ? p->einsum_name : "",
              p->einsum_name != NULL ? ")" : "", p->templates_done, p->n_templates);
}

void
ffm_pmapping_options_init_from_context_sized (FfmPmappingOptions *options,
                                              gsize struct_size,
                                              const FfmSearchContext *ctx)
{
  FfmPmappingOptions o;

  g_return_if_fail (options != NULL && ctx != NULL);
  /* Filled whole here, then the caller's size of it copied out: a caller
   * built before a field was appended gets the fields it knows. */
  ffm_pmapping_options_init (&o);
  o.objectives = ffm_pmapping_objectives_for (ctx->objective);
  o.max_fused_loops = ctx->max_fused_loops;
  o.unfused = ctx->unfused;
  o.n_threads = ctx->n_threads;
  if (FFM_SEARCH_CONTEXT_HAS (ctx, cancel))
    o.cancel = ctx->cancel;
  if (FFM_SEARCH_CONTEXT_HAS (ctx, imperfect))
    o.imperfect = ctx->imperfect;
  if (FFM_SEARCH_CONTEXT_HAS (ctx, constraints))
    o.constraints = ctx->constraints;
  if (FFM_SEARCH_CONTEXT_HAS (ctx, max_fused_loops_per_rank_var))
    o.max_fused_loops_per_rank_var = ctx->max_fused_loops_per_rank_var;
  if (FFM_SEARCH_CONTEXT_HAS (ctx, max_templates))
    {
      o.max_memory = ctx->max_memory;
      o.max_template_seconds = ctx->max_template_seconds;
      o.max_templates = ctx->max_templates;
    }
  o.struct_size = MIN (struct_size, sizeof o);
  memcpy (options, &o, o.struct_size);
}

guint
ffm_pmapping_objectives_for (FfmObjective objective)
{
  guint both = FFM_PMAPPING_ENERGY | FFM_PMAPPING_LATENCY;

  switch (objective)
    {
    case FFM_OBJECTIVE_ENERGY:
      return both | FFM_PMAPPING_ENERGY_FIRST;
    case FFM_OBJECTIVE_LATENCY:
      return both | FFM_PMAPPING_LATENCY_FIRST;
    case FFM_OBJECTIVE_EDP:
    case FFM_OBJECTIVE_PARETO:
    default:
      return both;
    }
}
