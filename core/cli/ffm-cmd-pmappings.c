/* ffm-cmd-pmappings.c: `ffm pmappings --arch A --workload W [--einsum NAME]`,
 * the single-Einsum exploration alone (ffm-pmapping.h).
 *
 * Prints, per Einsum, the templates enumerated, the tile vectors evaluated
 * by the cost model and how many were valid, the compatibility groups, the
 * Pareto survivors and the thread time, then the totals and the wall time;
 * --json prints the same as one JSON object. --groups also lists each
 * group's compatibility and size. Exit 0 on success, 1 when the problem
 * does not load or an Einsum has no pmapping (the message names the Einsum
 * and the memory), 2 for usage errors. */
#include "ffm-cli-common.h"
#include "ffm-cli-cancel.h"

#include <string.h>

#define COMMAND "pmappings"

static const char pmappings_description[] =
  "Generates every Pareto-optimal pmapping of each Einsum (the first phase\n"
  "of FFM) and reports what it took. --objective energy|latency|edp|pareto\n"
  "chooses the objectives kept (edp and pareto keep energy and latency).";

typedef struct {
  FfmCliCommon common;
  FfmCliProblemOptions problem;
  char *einsum;                 /* --einsum NAME (owned) */
  char *objective;              /* --objective (owned) */
  int max_fused_loops;          /* --max-fused-loops */
  int max_fused_per_var;        /* --max-fused-loops-per-rank-var */
  gboolean unfused;
  gboolean json;
  gboolean groups;
  gboolean templates;
  gboolean no_reuse;
  double timeout;               /* --timeout S, 0 = none */
} PmappingsOptions;

/* Each template of @pm as an indented tree. */
static void
print_templates (const FfmEinsumPmappings *pm)
{
  for (guint t = 0; t < ffm_einsum_pmappings_get_n_templates (pm); t++)
    {
      const GPtrArray *nodes = ffm_einsum_pmappings_get_template (pm, t);
      g_autoptr (FfmMapping) m = ffm_mapping_new ();
      g_autofree char *text = NULL;
      for (guint i = 0; i < nodes->len; i++)
        g_ptr_array_add (ffm_mapping_get_root (m),
                         ffm_mapping_node_copy (g_ptr_array_index (nodes, i)));
      text = ffm_mapping_to_tree_string (m);
      g_print ("  template %u:\n%s", t, text);
    }
}

static void
print_table (const FfmPmappingSet *set, gboolean groups, gboolean show_templates)
{
  FfmWorkload *w = ffm_pmapping_set_get_workload (set);
  FfmArch *a = ffm_pmapping_set_get_arch (set);
  guint64 evaluated = 0, valid = 0, rows = 0;
  guint templates = 0, n_groups = 0;

  g_print ("Pmappings of %s on %s\n\n", ffm_workload_get_name (w),
           ffm_arch_get_name (a));
  g_print ("%-14s %9s %14s %12s %8s %10s %9s\n", "Einsum", "templates",
           "evaluated", "valid", "groups", "pmappings", "time (s)");
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      const FfmPmappingStats *s = ffm_einsum_pmappings_get_stats (pm);
      const FfmEinsum *e = ffm_workload_get_einsum (w, ffm_einsum_pmappings_get_einsum (pm));

      g_print ("%-14s %9u %14" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT
               " %8u %10" G_GUINT64_FORMAT " %9.3f", e->name, s->n_templates,
               s->n_evaluated, s->n_valid, s->n_groups, s->n_rows, s->seconds);
      /* An Einsum of the same signature as an earlier one: a renamed copy. */
      if (s->reused_from >= 0)
        g_print ("  same as %s", ffm_workload_get_einsum (w, (guint) s->reused_from)->name);
      g_print ("\n");
      templates += s->n_templates;
      evaluated += s->n_evaluated;
      valid += s->n_valid;
      n_groups += s->n_groups;
      rows += s->n_rows;
      if (show_templates)
        print_templates (pm);
      for (guint k = 0; groups && k < ffm_einsum_pmappings_get_n_groups (pm); k++)
        {
          const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
          g_autofree char *c = ffm_compatibility_to_string (&g->compat, w, a);
          g_print ("    %5u rows  %s\n", g->n_rows, c[0] ? c : "(no shared tensor)");
        }
    }
  g_print ("%-14s %9u %14" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT
           " %8u %10" G_GUINT64_FORMAT "\n", "total", templates, evaluated,
           valid, n_groups, rows);
  g_print ("\nWall time %.3f s\n", ffm_pmapping_set_get_seconds (set));
}

static void
print_json (const FfmPmappingSet *set, guint n_threads)
{
  FfmWorkload *w = ffm_pmapping_set_get_workload (set);
  FfmArch *a = ffm_pmapping_set_get_arch (set);
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
  g_autofree char *text = NULL;
  guint n_tracked;
  const guint *tracked = ffm_pmapping_set_get_tracked_levels (set, &n_tracked);

  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_string (b, "workload", ffm_workload_get_name (w));
  ffm_json_writer_member_string (b, "architecture", ffm_arch_get_name (a));
  ffm_json_writer_member_uint (b, "threads", n_threads);
  ffm_json_writer_member_double (b, "wall_s", ffm_pmapping_set_get_seconds (set));
  ffm_json_writer_key (b, "tracked_memories");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < n_tracked; i++)
    ffm_json_writer_string (b, ffm_arch_get_level (a, tracked[i])->name);
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "einsums");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < ffm_pmapping_set_get_n_einsums (set); i++)
    {
      const FfmEinsumPmappings *pm = ffm_pmapping_set_get_einsum (set, i);
      const FfmPmappingStats *s = ffm_einsum_pmappings_get_stats (pm);
      const FfmEinsum *e = ffm_workload_get_einsum (w, ffm_einsum_pmappings_get_einsum (pm));

      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "name", e->name);
      ffm_json_writer_member_uint (b, "templates", s->n_templates);
      ffm_json_writer_member_uint (b, "evaluated", s->n_evaluated);
      ffm_json_writer_member_uint (b, "valid", s->n_valid);
      ffm_json_writer_member_uint (b, "partial", s->n_partial);
      ffm_json_writer_member_uint (b, "groups", s->n_groups);
      ffm_json_writer_member_uint (b, "pmappings", s->n_rows);
      ffm_json_writer_member_double (b, "seconds", s->seconds);
      ffm_json_writer_member_string (b, "same_as", s->reused_from >= 0
                                     ? ffm_workload_get_einsum (w, (guint) s->reused_from)->name
                                     : NULL);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
  text = ffm_json_writer_finish (b);
  g_print ("%s", text);
}

static int
run (GOptionContext *context, PmappingsOptions *o)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmWorkload) workload = NULL;
  g_autoptr (FfmPmappingSet) set = NULL;
  g_autoptr (GError) error = NULL;
  FfmPmappingOptions options;
  FfmObjective objective = FFM_OBJECTIVE_EDP;
  int status;

  if (o->objective != NULL
      && !ffm_objective_from_string (o->objective, &objective, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (o->max_fused_loops < -1)
    return ffm_cli_usage_error (context, COMMAND,
                                "--max-fused-loops must be -1 (no limit) or more");
  if (o->max_fused_per_var < -1)
    return ffm_cli_usage_error (context, COMMAND,
                                "--max-fused-loops-per-rank-var must be -1 (no "
                                "limit) or more");
  if (!ffm_cli_timeout_is_valid (o->timeout))
    return ffm_cli_usage_error (context, COMMAND,
                                "--timeout must be a number of seconds from 0 "
                                "(none) to %.0f", FFM_CLI_MAX_TIMEOUT);
  registry = ffm_cli_registry_new (&o->common);
  ffm_cli_warn_plugin_failures (COMMAND, registry);
  status = ffm_cli_load_arch (context, COMMAND, registry, &o->problem, &arch);
  if (status != FFM_EXIT_OK)
    return status;
  status = ffm_cli_load_workload (context, COMMAND, &o->problem, &workload);
  if (status != FFM_EXIT_OK)
    return status;

  ffm_pmapping_options_init (&options);
  options.objectives = ffm_pmapping_objectives_for (objective);
  options.max_fused_loops = o->max_fused_loops;
  options.max_fused_loops_per_rank_var = o->max_fused_per_var;
  options.unfused = o->unfused;
  options.reuse_equal_einsums = !o->no_reuse;
  options.n_threads = ffm_cli_common_get_threads (&o->common);
  if (o->einsum != NULL)
    {
      options.einsum = ffm_workload_find_einsum (workload, o->einsum);
      if (options.einsum < 0)
        return ffm_cli_usage_error (context, COMMAND,
                                    "workload %s has no Einsum %s",
                                    ffm_workload_get_name (workload), o->einsum);
    }
  {
    g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->timeout);
    options.cancel = ffm_cli_cancel_get_flag (cancel);
    set = ffm_pmappings_generate (workload, arch, &options, &error);
    options.cancel = NULL;
    if (set == NULL)
      {
        if (ffm_cli_cancel_get_reason (cancel) != FFM_CLI_STOP_NONE)
          g_prefix_error (&error, "%s: ", ffm_cli_cancel_describe (cancel));
        return ffm_cli_fail (COMMAND, error);
      }
  }
  if (o->json)
    print_json (set, options.n_threads);
  else
    print_table (set, o->groups, o->templates);
  return FFM_EXIT_OK;
}

int
ffm_cmd_pmappings (int argc, char **argv)
{
  PmappingsOptions o = { FFM_CLI_COMMON_INIT, FFM_CLI_PROBLEM_OPTIONS_INIT,
                         NULL, NULL, 1, 1, FALSE, FALSE, FALSE, FALSE, FALSE, 0 };
  const GOptionEntry entries[] = {
    { "einsum", 'e', 0, G_OPTION_ARG_STRING, &o.einsum,
      "Only this Einsum", "NAME" },
    { "objective", 'o', 0, G_OPTION_ARG_STRING, &o.objective,
      "Objectives kept: energy, latency, edp or pareto (default edp)", "OBJ" },
    { "max-fused-loops", 0, 0, G_OPTION_ARG_INT, &o.max_fused_loops,
      "Fused loops per pmapping, -1 = no limit (default 1)", "N" },
    { "max-fused-loops-per-rank-var", 0, 0, G_OPTION_ARG_INT, &o.max_fused_per_var,
      "Fused loops per rank variable, -1 = no limit (default 1)", "N" },
    { "unfused", 0, 0, G_OPTION_ARG_NONE, &o.unfused,
      "Back every shared tensor in the outermost memory", NULL },
    { "groups", 0, 0, G_OPTION_ARG_NONE, &o.groups,
      "List each compatibility group", NULL },
    { "templates", 0, 0, G_OPTION_ARG_NONE, &o.templates,
      "Print every template (tiles are placeholders)", NULL },
    { "no-reuse", 0, 0, G_OPTION_ARG_NONE, &o.no_reuse,
      "Enumerate every Einsum, also those equal to an earlier one", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &o.json,
      "Print JSON instead of a table", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o.timeout,
      "Stop after SECONDS (as Ctrl-C does) with an error", "SECONDS" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context =
    ffm_cli_context_new (COMMAND, NULL, pmappings_description);
  g_auto (GStrv) positional = NULL;
  int status;

  ffm_cli_common_init (&o.common);
  ffm_cli_problem_options_init (&o.problem);
  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_problem_options (context, &o.problem);
  ffm_cli_add_common_options (context, &o.common);
  if (!ffm_cli_parse (context, COMMAND, &o.common, argc, argv, &positional))
    status = FFM_EXIT_USAGE;
  else if (positional[0] != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "unexpected argument '%s'",
                                  positional[0]);
  else
    status = run (context, &o);
  ffm_cli_common_clear (&o.common);
  ffm_cli_problem_options_clear (&o.problem);
  g_free (o.einsum);
  g_free (o.objective);
  return status;
}
