/* ffm-estimator.c: component estimator queries, choosing among estimators,
 * the default registry and technology scaling (see ffm-estimator.h).
 * Compound classes are in ffm-component-library.c. */
#include <ffm/ffm-estimator.h>
#include "ffm-estimator-private.h"
#include <ffm/ffm-plugin.h>
#include <ffm/ffm-plugin-registry.h>
#include <ffm/ffm-expr.h>

#include <math.h>
#include <stdarg.h>
#include <string.h>

G_DEFINE_QUARK (ffm-estimator-error-quark, ffm_estimator_error)

struct _FfmEstimateQuery {
  char *component;
  char *class_name;
  char *action;
  FfmParamValues *attributes;
  /* Set while a registry asks estimators about it: where parts go. */
  const FfmPluginRegistry *registry;
  guint depth;                  /* parts above it */
};

FfmEstimateQuery *
ffm_estimate_query_new (const char *component, const char *class_name,
                        const FfmParamValues *attributes, const char *action)
{
  FfmEstimateQuery *query;

  g_return_val_if_fail (class_name != NULL, NULL);

  query = g_new0 (FfmEstimateQuery, 1);
  query->component = g_strdup (component != NULL ? component : class_name);
  query->class_name = g_strdup (class_name);
  query->action = g_strdup (action);
  query->attributes = attributes != NULL ? ffm_param_values_copy (attributes)
                                         : ffm_param_values_new ();
  return query;
}

void
ffm_estimate_query_free (FfmEstimateQuery *query)
{
  if (query == NULL)
    return;
  g_free (query->component);
  g_free (query->class_name);
  g_free (query->action);
  ffm_param_values_free (query->attributes);
  g_free (query);
}

const char *
ffm_estimate_query_get_component (const FfmEstimateQuery *query)
{
  g_return_val_if_fail (query != NULL, NULL);
  return query->component;
}

const char *
ffm_estimate_query_get_class (const FfmEstimateQuery *query)
{
  g_return_val_if_fail (query != NULL, NULL);
  return query->class_name;
}

const char *
ffm_estimate_query_get_action (const FfmEstimateQuery *query)
{
  g_return_val_if_fail (query != NULL, NULL);
  return query->action;
}

const FfmParamValues *
ffm_estimate_query_get_attributes (const FfmEstimateQuery *query)
{
  g_return_val_if_fail (query != NULL, NULL);
  return query->attributes;
}

/* The first of the '|'-separated names that is given, its value in
 * *@value; NULL when none is. */
static const char *
find_attribute (const FfmEstimateQuery *query, const char *names,
                const char **value)
{
  g_auto (GStrv) parts = g_strsplit (names, "|", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *text = ffm_param_values_lookup (query->attributes, parts[i]);
      if (text != NULL)
        {
          const char *const *keys = ffm_param_values_get_keys (query->attributes);
          *value = text;
          /* Return the key as stored, so it outlives @parts. */
          for (guint k = 0; keys[k] != NULL; k++)
            if (strcmp (keys[k], parts[i]) == 0)
              return keys[k];
        }
    }
  *value = NULL;
  return NULL;
}

const char *
ffm_estimate_query_get_text (const FfmEstimateQuery *query, const char *name)
{
  const char *value;

  g_return_val_if_fail (query != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  find_attribute (query, name, &value);
  return value;
}

static void
set_query_error (const FfmEstimateQuery *query, GError **error, int code,
                 const char *attribute, const char *message)
{
  if (attribute != NULL)
    g_set_error (error, FFM_ESTIMATOR_ERROR, code,
                 "component %s (class %s): attribute %s: %s", query->component,
                 query->class_name, attribute, message);
  else
    g_set_error (error, FFM_ESTIMATOR_ERROR, code, "component %s (class %s): %s",
                 query->component, query->class_name, message);
}

gboolean
ffm_estimate_query_fail (const FfmEstimateQuery *query, GError **error,
                         const char *attribute, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  g_return_val_if_fail (query != NULL, FALSE);
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  set_query_error (query, error, FFM_ESTIMATOR_ERROR_ATTRIBUTE, attribute, message);
  return FALSE;
}

gboolean
ffm_estimate_query_unsupported (const FfmEstimateQuery *query, GError **error,
                                const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  g_return_val_if_fail (query != NULL, FALSE);
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  set_query_error (query, error, FFM_ESTIMATOR_ERROR_UNSUPPORTED, NULL, message);
  return FALSE;
}

/* "the first of a, b" for messages about alternatives. */
static char *
describe_names (const char *names)
{
  g_auto (GStrv) parts = g_strsplit (names, "|", -1);
  g_autofree char *joined = NULL;

  if (parts[0] == NULL || parts[1] == NULL)
    return g_strdup (names);
  joined = g_strjoinv (" or ", parts);
  return g_steal_pointer (&joined);
}

gboolean
ffm_estimate_query_get_number (const FfmEstimateQuery *query, const char *name,
                               double fallback, double min, double max,
                               double *out, GError **error)
{
  const char *text;
  const char *key;
  g_autoptr (GError) local = NULL;
  double value;

  g_return_val_if_fail (query != NULL, FALSE);
  g_return_val_if_fail (name != NULL && out != NULL, FALSE);

  key = find_attribute (query, name, &text);
  if (text == NULL)
    {
      g_autofree char *names = describe_names (name);
      if (isnan (fallback))
        return ffm_estimate_query_fail (query, error, names,
                                        "missing (class %s needs it)",
                                        query->class_name);
      *out = fallback;
      return TRUE;
    }
  if (!ffm_expr_evaluate_text_number (text, NULL, &value, &local))
    return ffm_estimate_query_fail (query, error, key, "expected a number, got '%s'",
                                    text);
  if (!isfinite (value))
    return ffm_estimate_query_fail (query, error, key, "expected a finite number, "
                                    "got '%s'", text);
  if (value < min || value > max)
    return ffm_estimate_query_fail (query, error, key, "%g is outside [%g, %g]",
                                    value, min, max);
  *out = value;
  return TRUE;
}

gboolean
ffm_estimate_query_get_technology (const FfmEstimateQuery *query, double fallback,
                                   double min_nm, double max_nm, double *nm,
                                   GError **error)
{
  const char *text;
  const char *key;
  g_autofree char *copy = NULL;
  char *end = NULL;
  double value, scale = 1;

  g_return_val_if_fail (query != NULL && nm != NULL, FALSE);

  key = find_attribute (query, "technology|tech_node", &text);
  if (text == NULL)
    {
      if (isnan (fallback))
        return ffm_estimate_query_fail (query, error, "technology",
                                        "missing (the node in nm, e.g. 45nm)");
      *nm = fallback;
      return TRUE;
    }
  copy = g_strstrip (g_strdup (text));
  value = g_ascii_strtod (copy, &end);
  while (end != NULL && *end == ' ')
    end++;
  if (end == copy || end == NULL)
    return ffm_estimate_query_fail (query, error, key, "expected a node such as "
                                    "45nm, got '%s'", text);
  if (g_ascii_strcasecmp (end, "nm") == 0)
    scale = 1;
  else if (g_ascii_strcasecmp (end, "um") == 0 || strcmp (end, "\xc2\xb5m") == 0)
    scale = 1000;
  else if (*end == '\0')
    scale = value > 0 && value < 1 ? 1000 : 1;   /* 0.045 is in um */
  else
    return ffm_estimate_query_fail (query, error, key, "expected a node such as "
                                    "45nm, got '%s'", text);
  value *= scale;
  if (!isfinite (value) || value < min_nm || value > max_nm)
    return ffm_estimate_query_fail (query, error, key, "%s is outside the "
                                    "%g-%g nm this class is modelled for",
                                    text, min_nm, max_nm);
  *nm = value;
  return TRUE;
}

/* ---- Choosing among estimators ---- */

static gboolean
class_matches (const FfmEstimatorClass *classes, const char *name,
               const FfmEstimatorClass **found)
{
  for (const FfmEstimatorClass *c = classes; c != NULL && c->name != NULL; c++)
    if (g_ascii_strcasecmp (c->name, name) == 0)
      {
        if (found != NULL)
          *found = c;
        return TRUE;
      }
  return FALSE;
}

static void
estimate_init (FfmEstimate *e)
{
  e->energy = NAN;
  e->leak_power = NAN;
  e->area = NAN;
  e->bandwidth = NAN;
  e->action_bits = NAN;
  e->accuracy = NAN;
  e->note = NULL;
}

static void
estimated_value_clear (FfmEstimatedValue *v)
{
  v->value = NAN;
  v->accuracy = 0;
  v->estimator = NULL;
}

static void
component_estimate_clear (FfmComponentEstimate *out)
{
  estimated_value_clear (&out->energy);
  estimated_value_clear (&out->leak_power);
  estimated_value_clear (&out->area);
  estimated_value_clear (&out->bandwidth);
  estimated_value_clear (&out->action_bits);
}

/* An answer's numbers must be finite and non-negative (or NAN), its
 * accuracy in (0, 100]. */
static gboolean
check_answer (const char *estimator, const FfmEstimateQuery *query,
              const FfmEstimate *e, GError **error)
{
  const struct { const char *name; double value; } fields[] = {
    { "energy", e->energy }, { "leak_power", e->leak_power }, { "area", e->area },
    { "bandwidth", e->bandwidth }, { "action_bits", e->action_bits },
  };

  if (!(e->accuracy > 0 && e->accuracy <= 100))
    {
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_INVALID,
                   "component %s (class %s): estimator %s claims accuracy %g "
                   "(must be in (0, 100])", query->component, query->class_name,
                   estimator, e->accuracy);
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    if (!isnan (fields[i].value) && !(fields[i].value >= 0 && isfinite (fields[i].value)))
      {
        g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_INVALID,
                     "component %s (class %s): estimator %s answered %s = %g "
                     "(must be finite and >= 0)", query->component,
                     query->class_name, estimator, fields[i].name, fields[i].value);
        return FALSE;
      }
  return TRUE;
}

static void
take_if_better (FfmEstimatedValue *best, double value, double accuracy,
                const char *estimator)
{
  if (isnan (value) || (best->estimator != NULL && best->accuracy >= accuracy))
    return;
  best->value = value;
  best->accuracy = accuracy;
  best->estimator = estimator;
}

/* Runs one estimator; FALSE with @error when it declined or failed. */
static gboolean
ask_one (const FfmPluginInfo *info, const FfmEstimateQuery *query,
         FfmEstimate *e, GError **error)
{
  const FfmEstimatorVTable *vt = info->descriptor->vtable.estimator;
  GError *local = NULL;

  estimate_init (e);
  if (!vt->estimate (query, e, &local))
    {
      g_clear_pointer (&e->note, g_free);
      if (local == NULL)
        g_set_error (&local, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_INVALID,
                     "component %s (class %s): estimator %s failed without "
                     "saying why", query->component, query->class_name,
                     info->descriptor->name);
      g_propagate_error (error, local);
      return FALSE;
    }
  g_clear_error (&local);
  if (!check_answer (info->descriptor->name, query, e, error))
    {
      g_clear_pointer (&e->note, g_free);
      return FALSE;
    }
  return TRUE;
}

static char *
join_strv (GStrv items, const char *none)
{
  if (items == NULL || items[0] == NULL)
    return g_strdup (none);
  return g_strjoinv (", ", items);
}

gboolean
ffm_plugin_registry_estimate (const FfmPluginRegistry *registry,
                              const FfmEstimateQuery *query,
                              FfmComponentEstimate *out,
                              GError **error)
{
  const GPtrArray *plugins;
  gboolean class_known = FALSE;
  GError *hard_error = NULL;
  FfmEstimateQuery asked;
  g_autoptr (GString) declined = g_string_new (NULL);

  g_return_val_if_fail (registry != NULL && query != NULL && out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* The estimators see a copy that knows where to send its parts. */
  asked = *query;
  asked.registry = registry;

  component_estimate_clear (out);
  plugins = ffm_plugin_registry_get_plugins (registry);
  for (guint i = 0; i < plugins->len; i++)
    {
      const FfmPluginInfo *info = plugins->pdata[i];
      const char *name;
      FfmEstimate e;
      GError *local = NULL;

      if (info->descriptor->kind != FFM_PLUGIN_KIND_ESTIMATOR
          || !class_matches (info->descriptor->vtable.estimator->classes,
                             query->class_name, NULL))
        continue;
      class_known = TRUE;
      if (!ask_one (info, &asked, &e, &local))
        {
          if (!g_error_matches (local, FFM_ESTIMATOR_ERROR,
                                FFM_ESTIMATOR_ERROR_UNSUPPORTED))
            {
              if (hard_error == NULL)
                hard_error = g_steal_pointer (&local);
            }
          else
            {
              /* Said again if nobody answers: "sram: no action 'x'". */
              const char *why = strstr (local->message, "): ");
              g_string_append_printf (declined, "; %s: %s", info->descriptor->name,
                                      why != NULL ? why + 3 : local->message);
            }
          g_clear_error (&local);
          continue;
        }
      name = g_intern_string (info->descriptor->name);
      if (query->action != NULL)
        take_if_better (&out->energy, e.energy, e.accuracy, name);
      take_if_better (&out->leak_power, e.leak_power, e.accuracy, name);
      take_if_better (&out->area, e.area, e.accuracy, name);
      take_if_better (&out->bandwidth, e.bandwidth, e.accuracy, name);
      take_if_better (&out->action_bits, e.action_bits, e.accuracy, name);
      g_free (e.note);
    }

  /* A wrong attribute is the user's mistake whoever else answered. */
  if (hard_error != NULL)
    {
      g_propagate_error (error, hard_error);
      return FALSE;
    }
  if (!class_known)
    {
      g_auto (GStrv) classes = ffm_plugin_registry_estimator_classes (registry);
      g_autofree char *known = join_strv (classes, "none: no estimator plugin "
                                          "is loaded");
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_UNKNOWN_CLASS,
                   "component %s: unknown component class '%s' (known classes: %s)",
                   query->component, query->class_name, known);
      return FALSE;
    }
  if (query->action != NULL && isnan (out->energy.value))
    {
      g_auto (GStrv) actions = ffm_plugin_registry_estimator_actions (registry,
                                                                       query->class_name);
      g_autofree char *known = join_strv (actions, "none");
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_UNKNOWN_ACTION,
                   "component %s (class %s): no estimator gives the energy of "
                   "action '%s' (actions: %s%s)", query->component,
                   query->class_name, query->action, known, declined->str);
      return FALSE;
    }
  return TRUE;
}

/* Adds each comma-separated item of @list to @builder unless already in
 * @seen. */
static void
add_list_items (GStrvBuilder *builder, GHashTable *seen, const char *list)
{
  g_auto (GStrv) parts = NULL;

  if (list == NULL)
    return;
  parts = g_strsplit (list, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *item = g_strstrip (parts[i]);
      if (item[0] == '\0' || g_hash_table_contains (seen, item))
        continue;
      g_hash_table_add (seen, g_strdup (item));
      g_strv_builder_add (builder, item);
    }
}

GStrv
ffm_plugin_registry_estimator_actions (const FfmPluginRegistry *registry,
                                       const char *class_name)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                       g_free, NULL);
  const GPtrArray *plugins;

  g_return_val_if_fail (registry != NULL && class_name != NULL, NULL);
  plugins = ffm_plugin_registry_get_plugins (registry);
  for (guint i = 0; i < plugins->len; i++)
    {
      const FfmPluginInfo *info = plugins->pdata[i];
      const FfmEstimatorClass *c = NULL;

      if (info->descriptor->kind == FFM_PLUGIN_KIND_ESTIMATOR
          && class_matches (info->descriptor->vtable.estimator->classes,
                            class_name, &c))
        add_list_items (builder, seen, c->actions);
    }
  return g_strv_builder_end (builder);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_ascii_strcasecmp (*(const char *const *) a, *(const char *const *) b);
}

GStrv
ffm_plugin_registry_estimator_classes (const FfmPluginRegistry *registry)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  const GPtrArray *plugins;

  g_return_val_if_fail (registry != NULL, NULL);
  plugins = ffm_plugin_registry_get_plugins (registry);
  for (guint i = 0; i < plugins->len; i++)
    {
      const FfmPluginInfo *info = plugins->pdata[i];

      if (info->descriptor->kind != FFM_PLUGIN_KIND_ESTIMATOR)
        continue;
      for (const FfmEstimatorClass *c = info->descriptor->vtable.estimator->classes;
           c != NULL && c->name != NULL; c++)
        {
          gboolean seen = FALSE;
          for (guint j = 0; j < names->len && !seen; j++)
            seen = g_ascii_strcasecmp (names->pdata[j], c->name) == 0;
          if (!seen)
            g_ptr_array_add (names, (gpointer) c->name);
        }
    }
  g_ptr_array_sort (names, compare_names);
  {
    g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
    for (guint i = 0; i < names->len; i++)
      g_strv_builder_add (builder, names->pdata[i]);
    return g_strv_builder_end (builder);
  }
}

static void
estimator_answer_free (gpointer data)
{
  FfmEstimatorAnswer *answer = data;

  g_free (answer->estimate.note);
  g_clear_error (&answer->error);
  g_free (answer);
}

GPtrArray *
ffm_plugin_registry_estimator_answers (const FfmPluginRegistry *registry,
                                       const FfmEstimateQuery *query)
{
  GPtrArray *answers = g_ptr_array_new_with_free_func (estimator_answer_free);
  const GPtrArray *plugins;
  FfmEstimateQuery asked;

  g_return_val_if_fail (registry != NULL && query != NULL, answers);
  asked = *query;
  asked.registry = registry;
  plugins = ffm_plugin_registry_get_plugins (registry);
  for (guint i = 0; i < plugins->len; i++)
    {
      const FfmPluginInfo *info = plugins->pdata[i];
      FfmEstimatorAnswer *answer;

      if (info->descriptor->kind != FFM_PLUGIN_KIND_ESTIMATOR
          || !class_matches (info->descriptor->vtable.estimator->classes,
                             query->class_name, NULL))
        continue;
      answer = g_new0 (FfmEstimatorAnswer, 1);
      answer->estimator = g_intern_string (info->descriptor->name);
      if (!ask_one (info, &asked, &answer->estimate, &answer->error))
        estimate_init (&answer->estimate);
      g_ptr_array_add (answers, answer);
    }
  return answers;
}

gboolean
ffm_estimate_query_estimate_part (const FfmEstimateQuery *query, const char *part,
                                  const char *class_name,
                                  const FfmParamValues *attributes,
                                  const char *action, FfmComponentEstimate *out,
                                  GError **error)
{
  g_autofree char *name = NULL;
  g_autoptr (FfmEstimateQuery) sub = NULL;

  g_return_val_if_fail (query != NULL && part != NULL && class_name != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  if (query->depth + 1 > FFM_ESTIMATOR_MAX_DEPTH)
    {
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_INVALID,
                   "component %s (class %s): parts nested more than %d deep "
                   "(does class %s contain itself?)", query->component,
                   query->class_name, FFM_ESTIMATOR_MAX_DEPTH, class_name);
      return FALSE;
    }
  name = g_strdup_printf ("%s.%s", query->component, part);
  sub = ffm_estimate_query_new (name, class_name, attributes, action);
  sub->depth = query->depth + 1;
  return ffm_plugin_registry_estimate (query->registry != NULL
                                         ? query->registry
                                         : ffm_estimators_current (),
                                       sub, out, error);
}

/* ---- The default registry ---- */

static FfmPluginRegistry *default_registry;   /* installed or scanned; never freed */
G_LOCK_DEFINE_STATIC (default_registry);

void
ffm_estimators_set_default (FfmPluginRegistry *registry)
{
  G_LOCK (default_registry);
  default_registry = registry;
  G_UNLOCK (default_registry);
}

void
ffm_estimators_forget (FfmPluginRegistry *registry)
{
  G_LOCK (default_registry);
  if (default_registry == registry)
    default_registry = NULL;
  G_UNLOCK (default_registry);
}

FfmPluginRegistry *
ffm_estimators_get_default (void)
{
  FfmPluginRegistry *registry;

  G_LOCK (default_registry);
  if (default_registry == NULL)
    {
      /* Kept for the life of the process, like the modules it loads. */
      default_registry = ffm_plugin_registry_new ();
      ffm_plugin_registry_scan (default_registry);
    }
  registry = default_registry;
  G_UNLOCK (default_registry);
  return registry;
}

static GPrivate building_registry;   /* FfmPluginRegistry *, not owned */

FfmPluginRegistry *
ffm_estimators_enter (FfmPluginRegistry *registry)
{
  FfmPluginRegistry *previous = g_private_get (&building_registry);

  g_private_set (&building_registry, registry);
  return previous;
}

void
ffm_estimators_leave (FfmPluginRegistry *previous)
{
  g_private_set (&building_registry, previous);
}

FfmPluginRegistry *
ffm_estimators_current (void)
{
  FfmPluginRegistry *registry = g_private_get (&building_registry);

  return registry != NULL ? registry : ffm_estimators_get_default ();
}

gboolean
ffm_estimate_component (const char *component, const char *class_name,
                        const FfmParamValues *attributes, const char *action,
                        FfmComponentEstimate *out, GError **error)
{
  g_autoptr (FfmEstimateQuery) query = NULL;

  g_return_val_if_fail (class_name != NULL && out != NULL, FALSE);
  query = ffm_estimate_query_new (component, class_name, attributes, action);
  return ffm_plugin_registry_estimate (ffm_estimators_current (), query, out, error);
}

/* ---- Technology scaling ---- */

/* Stillmaker and Baas (2017): the nodes of their tables, the energy
 * polynomial a*Vdd^2 + b*Vdd + c per node, and the area factor from node
 * row to node column. */
static const double tech_nodes_nm[] = { 130, 90, 65, 45, 32, 20, 16, 14, 10, 7 };
static const double tech_energy_poly[][3] = {
  { 7.171, -6.709, 2.904 },
  { 4.762, -4.781, 2.092 },
  { 3.755, -4.398, 1.975 },
  { 1.103, -0.362, 0.2767 },
  { 0.9559, -0.7823, 0.471 },
  { 0.373, -0.1582, 0.04104 },
  { 0.2958, -0.1241, 0.03024 },
  { 0.2363, -0.09675, 0.02239 },
  { 0.2068, -0.09311, 0.02375 },
  { 0.1776, -0.09097, 0.02447 },
};
static const double tech_area_factor[][10] = {
  { 1, 0.44, 0.23, 0.16, 0.072, 0.033, 0.03, 0.027, 0.016, 0.0092 },
  { 2.3, 1, 0.53, 0.35, 0.16, 0.075, 0.067, 0.061, 0.036, 0.021 },
  { 4.3, 1.9, 1, 0.66, 0.31, 0.14, 0.13, 0.12, 0.068, 0.039 },
  { 6.4, 2.8, 1.5, 1, 0.46, 0.21, 0.19, 0.17, 0.1, 0.059 },
  { 14, 6.1, 3.3, 2.2, 1, 0.46, 0.41, 0.38, 0.22, 0.13 },
  { 30, 13, 7.1, 4.7, 2.2, 1, 0.89, 0.82, 0.48, 0.28 },
  { 34, 15, 7.9, 5.3, 2.4, 1.1, 1, 0.91, 0.54, 0.31 },
  { 37, 16, 8.7, 5.8, 2.7, 1.2, 1.1, 1, 0.59, 0.34 },
  { 63, 28, 15, 9.8, 4.5, 2.1, 1.9, 1.7, 1, 0.58 },
  { 110, 48, 25, 17, 7.8, 3.6, 3.2, 2.9, 1.7, 1 },
};

#define N_TECH_NODES G_N_ELEMENTS (tech_nodes_nm)

/* The fractional index of @nm among the tabulated nodes (linear between
 * neighbours), clamped to the table. */
static double
tech_index (double nm)
{
  if (!(nm < tech_nodes_nm[0]))
    return 0;
  for (guint i = 1; i < N_TECH_NODES; i++)
    if (nm >= tech_nodes_nm[i])
      return (double) i - (nm - tech_nodes_nm[i])
                          / (tech_nodes_nm[i - 1] - tech_nodes_nm[i]);
  return (double) (N_TECH_NODES - 1);
}

static double
tech_energy_at (double index, double vdd)
{
  guint lo = (guint) floor (index);
  guint hi = MIN (lo + 1, N_TECH_NODES - 1);
  double t = index - lo;
  double e_lo = (tech_energy_poly[lo][0] * vdd + tech_energy_poly[lo][1]) * vdd
                + tech_energy_poly[lo][2];
  double e_hi = (tech_energy_poly[hi][0] * vdd + tech_energy_poly[hi][1]) * vdd
                + tech_energy_poly[hi][2];

  return e_lo * (1 - t) + e_hi * t;
}

double
ffm_technology_energy_scale (double from_nm, double to_nm, double vdd)
{
  if (isnan (vdd))
    vdd = 0.8;
  return tech_energy_at (tech_index (to_nm), vdd)
         / tech_energy_at (tech_index (from_nm), vdd);
}

double
ffm_technology_area_scale (double from_nm, double to_nm)
{
  double x = tech_index (from_nm), y = tech_index (to_nm);
  guint x0 = (guint) floor (x), y0 = (guint) floor (y);
  guint x1 = MIN (x0 + 1, N_TECH_NODES - 1), y1 = MIN (y0 + 1, N_TECH_NODES - 1);
  double tx = x - x0, ty = y - y0;

  return tech_area_factor[x0][y0] * (1 - tx) * (1 - ty)
         + tech_area_factor[x0][y1] * (1 - tx) * ty
         + tech_area_factor[x1][y0] * tx * (1 - ty)
         + tech_area_factor[x1][y1] * tx * ty;
}
