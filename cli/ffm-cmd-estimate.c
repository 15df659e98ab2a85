/* ffm-cmd-estimate.c: `ffm estimate`, the energy, leakage and area of one
 * component from its class and attributes, and who gave each number.
 *
 *   ffm estimate CLASS [KEY=VALUE...] [--action A]... [--components PATH]...
 *                [--name NAME] [--all] [--json OUT] [--csv OUT]
 *
 * Prints one row per action (energy per action) and one each for the
 * leakage power, the area, the bandwidth and the bits per action, each with
 * the estimator that gave it and the accuracy it claims (ffm-estimator.h:
 * the most accurate answer wins). --all adds every estimator's own answer.
 * --components reads Accelergy compound component classes (a YAML file or
 * a folder of them), which are then estimated as the sums of their
 * subcomponents. Exit codes: 0 ok, 1 when the component cannot be
 * estimated (unknown class or action, a wrong attribute), 2 for usage
 * errors. */
#include "ffm-cli-common.h"
#include "ffm-cli-output.h"
#include "ffm-cli-table.h"

#include <math.h>
#include <string.h>

#define COMMAND "estimate"

static const char estimate_description[] =
  "Attributes are KEY=VALUE (width=64 depth=2048 technology=45nm); without\n"
  "--action every action of the class is estimated. Examples:\n"
  "  ffm estimate SRAM width=1024 depth=40960 n_banks=16 technology=7nm\n"
  "  ffm estimate intmac multiplier_width=8 technology=45nm --all\n"
  "  ffm estimate smartbuffer_SRAM width=64 depth=16384 technology=32nm \\\n"
  "    --components DESIGN/_components\n"
  "`ffm list` shows the estimators and the classes they know.\n";

typedef struct {
  FfmCliCommon common;
  FfmCliOutputOptions output;   /* --json OUT, --csv OUT */
  char **actions;               /* --action A (owned) */
  char **components;            /* --components PATH (owned) */
  char *name;                   /* --name NAME (owned) */
  gboolean all;                 /* --all */
} EstimateOptions;

/* One estimated action. */
typedef struct {
  char *action;
  FfmComponentEstimate estimate;
} ActionResult;

static void
action_result_free (gpointer data)
{
  ActionResult *r = data;

  g_free (r->action);
  g_free (r);
}

/* ---- Text and CSV ---- */

static void
add_value_row (FfmCliTable *t, const char *quantity, const FfmEstimatedValue *v,
               const char *unit)
{
  ffm_cli_table_add_row (t);
  ffm_cli_table_cell_take (t, g_strdup_printf ("%s (%s)", quantity, unit), NULL);
  if (isnan (v->value))
    {
      ffm_cli_table_cell_empty (t);
      ffm_cli_table_cell (t, "none gives it", "");
      ffm_cli_table_cell_empty (t);
      return;
    }
  if (strcmp (unit, "m^2") == 0)
    ffm_cli_table_cell_area (t, v->value);
  else
    ffm_cli_table_cell_quantity (t, v->value, unit);
  ffm_cli_table_cell (t, v->estimator, NULL);
  ffm_cli_table_cell_printf (t, "%g", v->accuracy);
}

static FfmCliTable *
estimate_table (const GPtrArray *results, const FfmComponentEstimate *base)
{
  FfmCliTable *t = ffm_cli_table_new ("estimate", NULL);

  ffm_cli_table_add_text_column (t, "quantity", "quantity (SI unit)");
  ffm_cli_table_add_column (t, "value", "value");
  ffm_cli_table_add_text_column (t, "estimator", "estimator");
  ffm_cli_table_add_column (t, "accuracy_percent", "accuracy %");
  for (guint i = 0; i < results->len; i++)
    {
      const ActionResult *r = results->pdata[i];
      g_autofree char *label = g_strdup_printf ("energy per %s", r->action);
      add_value_row (t, label, &r->estimate.energy, "J");
    }
  add_value_row (t, "leakage power", &base->leak_power, "W");
  add_value_row (t, "area", &base->area, "m^2");
  add_value_row (t, "bandwidth", &base->bandwidth, "bit/s");
  add_value_row (t, "bits per action", &base->action_bits, "bit");
  return t;
}

/* Every estimator's own answer to each action (--all): a GPtrArray per
 * action of FfmEstimatorAnswer, in @actions order. Empty for a compound
 * class, which has no estimators of its own. */
static GPtrArray *
collect_answers (const FfmPluginRegistry *registry, const FfmEstimateQuery *base,
                 char **actions, gboolean compound)
{
  GPtrArray *per_action = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

  for (guint a = 0; actions[a] != NULL; a++)
    {
      g_autoptr (FfmEstimateQuery) q = ffm_estimate_query_new (
        ffm_estimate_query_get_component (base), ffm_estimate_query_get_class (base),
        ffm_estimate_query_get_attributes (base), actions[a]);
      g_ptr_array_add (per_action,
                       compound ? g_ptr_array_new ()
                                : ffm_plugin_registry_estimator_answers (registry, q));
    }
  return per_action;
}

static void
cell_or_empty (FfmCliTable *t, double value, const char *unit)
{
  if (isnan (value))
    ffm_cli_table_cell_empty (t);
  else if (strcmp (unit, "m^2") == 0)
    ffm_cli_table_cell_area (t, value);
  else
    ffm_cli_table_cell_quantity (t, value, unit);
}

static FfmCliTable *
answers_table (const GPtrArray *per_action, char **actions)
{
  FfmCliTable *t = ffm_cli_table_new ("answers", "Every estimator's answer");

  ffm_cli_table_add_text_column (t, "estimator", "estimator");
  ffm_cli_table_add_text_column (t, "action", "action");
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "leak_power_w", "leakage");
  ffm_cli_table_add_column (t, "area_m2", "area");
  ffm_cli_table_add_column (t, "accuracy_percent", "accuracy %");
  ffm_cli_table_add_text_column (t, "note", "note");
  for (guint a = 0; a < per_action->len; a++)
    {
      const GPtrArray *answers = per_action->pdata[a];
      for (guint i = 0; i < answers->len; i++)
        {
          const FfmEstimatorAnswer *ans = answers->pdata[i];
          const FfmEstimate *e = &ans->estimate;

          ffm_cli_table_add_row (t);
          ffm_cli_table_cell (t, ans->estimator, NULL);
          ffm_cli_table_cell (t, actions[a], NULL);
          if (ans->error != NULL)
            {
              for (guint k = 0; k < 4; k++)
                ffm_cli_table_cell_empty (t);
              ffm_cli_table_cell (t, ans->error->message, NULL);
              continue;
            }
          cell_or_empty (t, e->energy, "J");
          cell_or_empty (t, e->leak_power, "W");
          cell_or_empty (t, e->area, "m^2");
          ffm_cli_table_cell_printf (t, "%g", e->accuracy);
          ffm_cli_table_cell (t, e->note != NULL ? e->note : "", NULL);
        }
    }
  return t;
}

/* ---- JSON ---- */

static void
add_value_json (FfmJsonWriter *w, const char *member, const FfmEstimatedValue *v)
{
  ffm_json_writer_key (w, member);
  ffm_json_writer_begin_object_inline (w);
  if (isnan (v->value))
    {
      ffm_json_writer_member_null (w, "value");
      ffm_json_writer_member_null (w, "estimator");
    }
  else
    {
      ffm_json_writer_member_double (w, "value", v->value);
      ffm_json_writer_member_string (w, "estimator", v->estimator);
      ffm_json_writer_member_double (w, "accuracy_percent", v->accuracy);
    }
  ffm_json_writer_end_object (w);
}

static void
member_number_or_null (FfmJsonWriter *w, const char *name, double value)
{
  if (isnan (value))
    ffm_json_writer_member_null (w, name);
  else
    ffm_json_writer_member_double (w, name, value);
}

static char *
estimate_json (const FfmEstimateQuery *query, const GPtrArray *results,
               const FfmComponentEstimate *base, const GPtrArray *per_action,
               char **actions)
{
  g_autoptr (FfmJsonWriter) w = ffm_json_writer_new ();
  const FfmParamValues *attrs = ffm_estimate_query_get_attributes (query);
  const char *const *keys = ffm_param_values_get_keys (attrs);

  ffm_json_writer_begin_object (w);
  ffm_json_writer_member_string (w, "component", ffm_estimate_query_get_component (query));
  ffm_json_writer_member_string (w, "class", ffm_estimate_query_get_class (query));
  ffm_json_writer_key (w, "attributes");
  ffm_json_writer_begin_object_inline (w);
  for (guint i = 0; keys[i] != NULL; i++)
    ffm_json_writer_member_string (w, keys[i], ffm_param_values_lookup (attrs, keys[i]));
  ffm_json_writer_end_object (w);
  ffm_json_writer_key (w, "actions");
  ffm_json_writer_begin_array (w);
  for (guint i = 0; i < results->len; i++)
    {
      const ActionResult *r = results->pdata[i];
      ffm_json_writer_begin_object_inline (w);
      ffm_json_writer_member_string (w, "action", r->action);
      add_value_json (w, "energy_j", &r->estimate.energy);
      ffm_json_writer_end_object (w);
    }
  ffm_json_writer_end_array (w);
  add_value_json (w, "leak_power_w", &base->leak_power);
  add_value_json (w, "area_m2", &base->area);
  add_value_json (w, "bandwidth_bits_per_s", &base->bandwidth);
  add_value_json (w, "action_bits", &base->action_bits);
  if (per_action != NULL)
    {
      ffm_json_writer_key (w, "answers");
      ffm_json_writer_begin_array (w);
      for (guint a = 0; a < per_action->len; a++)
        {
          const GPtrArray *answers = per_action->pdata[a];
          for (guint i = 0; i < answers->len; i++)
            {
              const FfmEstimatorAnswer *ans = answers->pdata[i];
              ffm_json_writer_begin_object_inline (w);
              ffm_json_writer_member_string (w, "estimator", ans->estimator);
              ffm_json_writer_member_string (w, "action", actions[a]);
              if (ans->error != NULL)
                ffm_json_writer_member_string (w, "declined", ans->error->message);
              else
                {
                  member_number_or_null (w, "energy_j", ans->estimate.energy);
                  member_number_or_null (w, "leak_power_w", ans->estimate.leak_power);
                  member_number_or_null (w, "area_m2", ans->estimate.area);
                  ffm_json_writer_member_double (w, "accuracy_percent",
                                                 ans->estimate.accuracy);
                }
              ffm_json_writer_end_object (w);
            }
        }
      ffm_json_writer_end_array (w);
    }
  ffm_json_writer_end_object (w);
  return ffm_json_writer_finish (w);
}

/* ---- The command ---- */

static gboolean
parse_attributes (char **args, FfmParamValues *attrs, GError **error)
{
  for (guint i = 0; args[i] != NULL; i++)
    {
      guint n_before = g_strv_length ((char **) ffm_param_values_get_keys (attrs));
      if (!ffm_param_values_parse_assignment (attrs, args[i], error))
        {
          g_prefix_error (error, "attribute '%s': ", args[i]);
          return FALSE;
        }
      if (g_strv_length ((char **) ffm_param_values_get_keys (attrs)) == n_before)
        {
          g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                       "attribute '%s': the attribute is set twice", args[i]);
          return FALSE;
        }
    }
  return TRUE;
}

static int
run_estimate (GOptionContext *context, EstimateOptions *o, char **positional)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmComponentLibrary) library = NULL;
  g_autoptr (FfmParamValues) attrs = ffm_param_values_new ();
  g_autoptr (FfmEstimateQuery) query = NULL;
  g_autoptr (GPtrArray) results = g_ptr_array_new_with_free_func (action_result_free);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) tables = ffm_cli_tables_new ();
  g_auto (GStrv) actions = NULL;
  g_autoptr (GPtrArray) per_action = NULL;
  FfmComponentEstimate base;
  const char *class_name = positional[0];
  gboolean compound;

  if (!parse_attributes (positional + 1, attrs, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  for (guint i = 0; o->actions != NULL && o->actions[i] != NULL; i++)
    {
      if (*o->actions[i] == '\0')
        return ffm_cli_usage_error (context, COMMAND, "--action is empty");
      for (guint k = 0; k < i; k++)
        if (strcmp (o->actions[i], o->actions[k]) == 0)
          return ffm_cli_usage_error (context, COMMAND, "--action %s is given twice",
                                      o->actions[i]);
    }
  registry = ffm_cli_registry_new (&o->common);
  ffm_cli_warn_plugin_failures (COMMAND, registry);
  library = ffm_component_library_new (registry);
  for (guint i = 0; o->components != NULL && o->components[i] != NULL; i++)
    if (!ffm_component_library_load_file (library, o->components[i], &error))
      return ffm_cli_fail (COMMAND, error);
  compound = ffm_component_library_has_class (library, class_name);

  query = ffm_estimate_query_new (o->name != NULL ? o->name : class_name, class_name,
                                  attrs, NULL);
  if (!ffm_component_library_estimate (library, query, &base, &error))
    return ffm_cli_fail (COMMAND, error);

  actions = o->actions != NULL ? g_strdupv (o->actions)
                               : ffm_component_library_list_actions (library, class_name);
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_autoptr (FfmEstimateQuery) q = ffm_estimate_query_new (
        ffm_estimate_query_get_component (query), class_name, attrs, actions[i]);
      ActionResult *r = g_new0 (ActionResult, 1);

      r->action = g_strdup (actions[i]);
      g_ptr_array_add (results, r);
      if (!ffm_component_library_estimate (library, q, &r->estimate, &error))
        return ffm_cli_fail (COMMAND, error);
    }

  g_ptr_array_add (tables, estimate_table (results, &base));
  if (o->all)
    {
      per_action = collect_answers (registry, query, actions, compound);
      g_ptr_array_add (tables, answers_table (per_action, actions));
    }

  if (ffm_cli_output_wants_text (&o->output))
    {
      g_autoptr (GString) text = g_string_new (NULL);
      const char *const *keys = ffm_param_values_get_keys (attrs);

      g_string_append_printf (text, "Component %s (class %s%s)",
                              ffm_estimate_query_get_component (query), class_name,
                              compound ? ", compound" : "");
      for (guint i = 0; keys[i] != NULL; i++)
        g_string_append_printf (text, "%s%s=%s", i == 0 ? ": " : " ", keys[i],
                                ffm_param_values_lookup (attrs, keys[i]));
      g_string_append (text, "\n\n");
      for (guint i = 0; i < tables->len; i++)
        {
          if (i > 0)
            g_string_append (text, "\n");
          ffm_cli_table_append_text (tables->pdata[i], text);
        }
      g_print ("%s", text->str);
    }
  {
    g_autofree char *json = o->output.json != NULL
                              ? estimate_json (query, results, &base, per_action,
                                               actions)
                              : NULL;
    if (!ffm_cli_output_write_results (&o->output, json,
                                       o->output.csv != NULL ? tables : NULL, &error))
      return ffm_cli_fail (COMMAND, error);
  }
  return FFM_EXIT_OK;
}

int
ffm_cmd_estimate (int argc, char **argv)
{
  EstimateOptions o = { FFM_CLI_COMMON_INIT, FFM_CLI_OUTPUT_OPTIONS_INIT, NULL, NULL,
                        NULL, FALSE };
  const GOptionEntry entries[] = {
    { "action", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &o.actions,
      "Estimate only action A (repeat for several; default: every action of "
      "the class)", "A" },
    { "components", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.components,
      "Read Accelergy compound component classes from PATH (a YAML file or a "
      "folder of them; repeatable)", "PATH" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &o.name,
      "Call the component NAME in messages (default: its class)", "NAME" },
    { "all", 0, 0, G_OPTION_ARG_NONE, &o.all,
      "Also print every estimator's own answer", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autofree char *description = NULL;
  g_auto (GStrv) positional = NULL;
  int status;

  description = ffm_cli_describe (estimate_description, "estimators.md");
  context = ffm_cli_context_new (COMMAND, "CLASS [KEY=VALUE…]", description);
  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_output_options (context, &o.output, "the estimate");
  ffm_cli_add_common_options (context, &o.common, TRUE);

  if (!ffm_cli_parse (context, COMMAND, &o.common, NULL, argc, argv, &positional))
    status = FFM_EXIT_USAGE;
  else if (positional[0] == NULL)
    status = ffm_cli_usage_error (context, COMMAND, "give the component class "
                                  "(ffm list shows the classes the estimators know)");
  else if (strchr (positional[0], '=') != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "give the component class "
                                  "before the attributes, not '%s'", positional[0]);
  else if (ffm_cli_output_options_conflict (&o.output) != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "%s",
                                  ffm_cli_output_options_conflict (&o.output));
  else
    status = run_estimate (context, &o, positional);

  g_strfreev (o.actions);
  g_strfreev (o.components);
  g_free (o.name);
  ffm_cli_output_options_clear (&o.output);
  ffm_cli_common_clear (&o.common);
  return status;
}
