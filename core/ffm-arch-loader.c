/* ffm-arch-loader.c: JSON architecture files, in and out.
 *
 * The format is described in docs/file-formats.md ("Architectures"). A file
 * declares parameters, derives `let` values from them, and lists the levels
 * outermost first; every number may be an expression over the parameters
 * and earlier lets. Loading evaluates the numbers, builds the FfmArch with
 * the public constructors and lets ffm_arch_finish_located() check it, so a
 * JSON architecture and a C-built one obey the same rules; the loader only
 * adds the file, line and JSON path to the messages. */
#include <ffm/ffm-arch.h>
#include "ffm-arch-private.h"
#include <ffm/ffm-estimator.h>
#include "ffm-estimator-private.h"
#include "ffm-json-util.h"
#include "ffm-params-reader-private.h"
#include <ffm/ffm-json-writer.h>
#include <ffm/ffm-limits.h>

#include <math.h>
#include <stdarg.h>
#include <string.h>

#define ARCH_FORMAT_VERSION 1

static const char *const top_members[] = {
  "ffm_architecture", "name", "description", "source", "parameters", "let",
  "levels", NULL
};
static const char *const memory_members[] = {
  "memory", "description", "leak_power", "area", "size", "read_energy",
  "write_energy", "read_bandwidth", "write_bandwidth", "ports",
  "bits_per_action", "skip_initial_output_write", "keep", "may_keep",
  "bits_per_value", "fill_energy", "update_energy", "drain_energy",
  "drains_read", "energy_by_tensor", "cluster_size", "whole_actions",
  "leak_utilized", "class", "attributes", "estimated_by", NULL
};
/* Members of one energy_by_tensor entry. */
static const char *const energy_override_members[] = {
  "read_energy", "fill_energy", "update_energy", "drain_energy", NULL
};
static const char *const fanout_members[] = {
  "fanout", "description", "leak_power", "area", "dims", "count", "reuse",
  "may_reuse", "min_usage", "allowed_rank_vars", "leak_utilized", NULL
};
static const char *const dim_members[] = {
  "name", "count", "reuse", "may_reuse", "min_usage", "allowed_rank_vars", NULL
};
/* The fanout members that describe one dimension, allowed on the level
 * itself as a shorthand for a single dimension named after the level. */
static const char *const single_dim_members[] = {
  "count", "reuse", "may_reuse", "min_usage", "allowed_rank_vars", NULL
};
static const char *const compute_members[] = {
  "compute", "description", "leak_power", "area", "energy", "throughput",
  "enabled", "operand_reuse", "leak_utilized", "class", "attributes", "action",
  "estimated_by", NULL
};

/* State of one load. */
typedef struct {
  FfmJsonDoc *doc;
  char *owner;               /* "architecture NAME", for parameter messages */
  FfmParamsReader *params;   /* parameters and lets */
  GPtrArray *strings;        /* storage of string values being read */
  FfmArch *arch;
  GError **error;
} Loader;

static gboolean loader_fail (Loader *l, JsonNode *node, const char *path,
                             const char *format, ...) G_GNUC_PRINTF (4, 5);

/* Sets "FILE:LINE: PATH: message" (FFM_ARCH_ERROR_INVALID); returns FALSE. */
static gboolean
loader_fail (Loader *l, JsonNode *node, const char *path, const char *format,
             ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  ffm_json_set_error (l->error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID, l->doc,
                      node, path, "%s", message);
  return FALSE;
}

static gboolean
is_identifier (const char *name)
{
  if (name == NULL || !(g_ascii_isalpha (name[0]) || name[0] == '_'))
    return FALSE;
  for (const char *p = name + 1; *p != '\0'; p++)
    if (!(g_ascii_isalnum (*p) || *p == '_'))
      return FALSE;
  return TRUE;
}

static gboolean
node_is_number (JsonNode *node)
{
  GType t;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  t = json_node_get_value_type (node);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

static gboolean
node_is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node)
         && json_node_get_value_type (node) == G_TYPE_STRING;
}

/* ---- Variables: parameters and lets ---- */

static gboolean
loader_resolve (const char *name, FfmValue *out, gpointer user_data)
{
  Loader *l = user_data;

  return l->params != NULL && ffm_params_reader_lookup (l->params, name, out);
}

/* Evaluates expression @text over the variables declared so far: a number
 * (@number_only), or a number or a string. */
static gboolean
eval_expr (Loader *l, JsonNode *node, const char *path, const char *text,
           gboolean number_only, FfmValue *out)
{
  FfmExprScope scope = { loader_resolve, l, 0 };
  g_autoptr (GError) local = NULL;
  g_autoptr (FfmExpr) expr = ffm_expr_parse (text, &local);

  memset (out, 0, sizeof *out);
  out->type = FFM_VALUE_NUMBER;
  if (expr != NULL
      && (number_only ? ffm_expr_evaluate_number (expr, &scope, &out->number, &local)
                      : ffm_expr_evaluate (expr, &scope, out, &local)))
    return ffm_params_value_keep (out, l->strings)
           || loader_fail (l, node, path, "expected a number or a string, got a "
                           "tensor set from \"%s\"", text);
  if (g_error_matches (local, FFM_EXPR_ERROR, FFM_EXPR_ERROR_UNKNOWN_NAME))
    {
      const GPtrArray *names = l->params ? ffm_params_reader_get_names (l->params) : NULL;
      g_autoptr (GString) known = g_string_new (NULL);
      for (guint i = 0; names != NULL && i < names->len; i++)
        g_string_append_printf (known, "%s%s", i ? ", " : "", (char *) names->pdata[i]);
      return loader_fail (l, node, path, "%s (known names: %s)", local->message,
                          known->len ? known->str : "none");
    }
  return loader_fail (l, node, path, "%s", local->message);
}

static gboolean
eval_text (Loader *l, JsonNode *node, const char *path, const char *text,
           double *out)
{
  FfmValue value;

  if (!eval_expr (l, node, path, text, TRUE, &value))
    return FALSE;
  *out = value.number;
  return TRUE;
}

/* A number member: a JSON number or an expression string. */
static gboolean
read_number (Loader *l, JsonNode *node, const char *path, double *out)
{
  g_autofree char *text = NULL;

  if (node_is_number (node))
    return ffm_json_require_number (l->doc, node, path, FFM_ARCH_ERROR,
                                    FFM_ARCH_ERROR_INVALID, out, l->error);
  text = ffm_json_require_number_or_expr (l->doc, node, path, FFM_ARCH_ERROR,
                                          FFM_ARCH_ERROR_INVALID, l->error);
  return text != NULL && eval_text (l, node, path, text, out);
}

/* Reads optional member @member of @object into @out (untouched if absent). */
static gboolean
read_optional_number (Loader *l, JsonNode *object, const char *base,
                      const char *member, double *out)
{
  JsonNode *node = ffm_json_get_member (object, member);
  g_autofree char *path = NULL;

  if (node == NULL)
    return TRUE;
  path = g_strdup_printf ("%s.%s", base, member);
  return read_number (l, node, path, out);
}

/* Optional string member, g_strdup()ed into *out (untouched if absent). */
static gboolean
read_optional_string (Loader *l, JsonNode *object, const char *base,
                      const char *member, char **out)
{
  JsonNode *node = ffm_json_get_member (object, member);
  g_autofree char *path = NULL;
  const char *value;

  if (node == NULL)
    return TRUE;
  path = g_strdup_printf ("%s.%s", base, member);
  value = ffm_json_require_string (l->doc, node, path, FFM_ARCH_ERROR,
                                   FFM_ARCH_ERROR_INVALID, l->error);
  if (value == NULL)
    return FALSE;
  g_free (*out);
  *out = g_strdup (value);
  return TRUE;
}

/* A count: a whole number >= 1. */
static gboolean
read_count (Loader *l, JsonNode *object, const char *base, guint64 *out)
{
  JsonNode *node = ffm_json_get_member (object, "count");
  g_autofree char *path = g_strdup_printf ("%s.count", base);
  double value;

  if (node == NULL)
    return loader_fail (l, object, base,
                        "missing member \"count\" (number of instances)");
  if (!read_number (l, node, path, &value))
    return FALSE;
  if (!(value >= 1 && value == floor (value) && value <= FFM_MAX_EXACT_INTEGER))
    return loader_fail (l, node, path,
                        "count must be a whole number >= 1, got %g", value);
  *out = (guint64) value;
  return TRUE;
}

/* ---- Parameters and let (ffm-params-reader.c) ---- */

/* The reader's expressions: a JSON number or boolean, or an expression
 * string (a number or a string, as in workloads). */
static gboolean
eval_for_reader (gpointer loader, JsonNode *node, const char *path, FfmValue *out,
                 GError **error)
{
  Loader *l = loader;
  GError **saved = l->error;
  gboolean ok;

  memset (out, 0, sizeof *out);
  out->type = FFM_VALUE_NUMBER;
  l->error = error;
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    {
      out->number = json_node_get_boolean (node) ? 1 : 0;
      ok = TRUE;
    }
  else if (node_is_number (node))
    ok = read_number (l, node, path, &out->number);
  else
    {
      g_autofree char *text = ffm_json_require_number_or_expr (l->doc, node, path,
                                                               FFM_ARCH_ERROR,
                                                               FFM_ARCH_ERROR_INVALID,
                                                               l->error);
      ok = text != NULL && eval_expr (l, node, path, text, FALSE, out);
    }
  l->error = saved;
  return ok;
}

static FfmParamsReader *
params_reader_new (Loader *l)
{
  FfmParamsReaderRules rules = {
    .doc = l->doc, .domain = FFM_ARCH_ERROR, .code = FFM_ARCH_ERROR_INVALID,
    .owner = l->owner, .whole_default_is_integer = FALSE, .default_required = TRUE,
    .value_errors_name_file = FALSE, .eval = eval_for_reader, .loader = l,
  };

  return ffm_params_reader_new (&rules);
}

/* ---- Levels ---- */

typedef struct {
  gboolean found;
  const char *name;
} FindIdent;

static void
find_bits_per_value (const char *name, gpointer user_data)
{
  FindIdent *f = user_data;

  if (g_str_has_suffix (name, f->name))
    f->found = TRUE;
}

static void
find_exact (const char *name, gpointer user_data)
{
  FindIdent *f = user_data;

  if (strcmp (name, f->name) == 0)
    f->found = TRUE;
}

/* TRUE if expression @text uses an identifier matching @name: exactly, or
 * as a suffix when @suffix. Syntax errors are reported later by the caller's
 * evaluation or by ffm_arch_finish(). */
static gboolean
text_uses (const char *text, const char *name, gboolean suffix)
{
  g_autoptr (FfmExpr) expr = ffm_expr_parse (text, NULL);
  FindIdent f = { FALSE, name };

  if (expr != NULL)
    ffm_expr_foreach_identifier (expr, suffix ? find_bits_per_value : find_exact, &f);
  return f.found;
}

static gboolean
read_memory_size (Loader *l, JsonNode *level_node, const char *base,
                  FfmMemorySpec *m)
{
  JsonNode *node = ffm_json_get_member (level_node, "size");
  g_autofree char *path = g_strdup_printf ("%s.size", base);

  if (node == NULL)
    return TRUE;                /* ffm_arch_finish() reports it */
  if (node_is_string (node)
      && text_uses (json_node_get_string (node), ".bits_per_value", TRUE))
    {
      m->size_per_einsum = g_strdup (json_node_get_string (node));
      return TRUE;
    }
  return read_number (l, node, path, &m->size);
}

/* A member that maps tensor sets to values ("bits_per_value",
 * "energy_by_tensor"): @entry reads each, in file order. */
typedef gboolean (*TensorSetEntry) (Loader *l, FfmLevel *level,
                                    const char *tensors, JsonNode *value,
                                    const char *path);

static gboolean
read_tensor_set_map (Loader *l, JsonNode *level_node, const char *base,
                     const char *member, FfmLevel *level, TensorSetEntry entry)
{
  JsonNode *node = ffm_json_get_member (level_node, member);
  g_autofree char *path = g_strdup_printf ("%s.%s", base, member);
  JsonObjectIter iter;
  const char *tensors;
  JsonNode *value;

  if (node == NULL)
    return TRUE;
  if (!ffm_json_require_object (l->doc, node, path, FFM_ARCH_ERROR,
                                FFM_ARCH_ERROR_INVALID, l->error))
    return FALSE;
  json_object_iter_init_ordered (&iter, json_node_get_object (node));
  while (json_object_iter_next_ordered (&iter, &tensors, &value))
    {
      g_autofree char *sub = g_strdup_printf ("%s[\"%s\"]", path, tensors);
      if (!entry (l, level, tensors, value, sub))
        return FALSE;
    }
  return TRUE;
}

/* "bits_per_value": { SET: bits or "expression over bits" } */
static gboolean
read_bits_override (Loader *l, FfmLevel *level, const char *tensors,
                    JsonNode *value, const char *path)
{
  double bits;

  if (node_is_string (value)
      && text_uses (json_node_get_string (value), "bits", FALSE))
    {
      ffm_level_add_bits_override_expr (level, tensors, json_node_get_string (value));
      return TRUE;
    }
  if (!read_number (l, value, path, &bits))
    return FALSE;
  ffm_level_add_bits_override (level, tensors, bits);
  return TRUE;
}

/* "energy_by_tensor": { SET: { read_energy, fill_energy, ... } } */
static gboolean
read_energy_override (Loader *l, FfmLevel *level, const char *tensors,
                      JsonNode *value, const char *path)
{
  FfmEnergyOverride *o;

  if (!ffm_json_require_object (l->doc, value, path, FFM_ARCH_ERROR,
                                FFM_ARCH_ERROR_INVALID, l->error)
      || !ffm_json_check_members (l->doc, value, path, energy_override_members,
                                  FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID,
                                  l->error))
    return FALSE;
  o = ffm_level_add_energy_override (level, tensors);
  return read_optional_number (l, value, path, "read_energy", &o->energies.read)
         && read_optional_number (l, value, path, "fill_energy", &o->energies.fill)
         && read_optional_number (l, value, path, "update_energy",
                                  &o->energies.update)
         && read_optional_number (l, value, path, "drain_energy",
                                  &o->energies.drain);
}

static gboolean
read_optional_bool (Loader *l, JsonNode *object, const char *base,
                    const char *member, gboolean *out)
{
  JsonNode *node = ffm_json_get_member (object, member);
  g_autofree char *path = NULL;

  if (node == NULL)
    return TRUE;
  path = g_strdup_printf ("%s.%s", base, member);
  return ffm_json_require_bool (l->doc, node, path, FFM_ARCH_ERROR,
                                FFM_ARCH_ERROR_INVALID, out, l->error);
}

static gboolean
read_ports (Loader *l, JsonNode *level_node, const char *base, FfmPorts *ports)
{
  g_autofree char *text = NULL;

  if (!read_optional_string (l, level_node, base, "ports", &text))
    return FALSE;
  if (text == NULL || strcmp (text, "shared") == 0)
    *ports = FFM_PORTS_SHARED;
  else if (strcmp (text, "separate") == 0)
    *ports = FFM_PORTS_SEPARATE;
  else
    {
      g_autofree char *path = g_strdup_printf ("%s.ports", base);
      return loader_fail (l, ffm_json_get_member (level_node, "ports"), path,
                          "expected \"shared\" or \"separate\", got \"%s\"", text);
    }
  return TRUE;
}

static gboolean
read_memory (Loader *l, JsonNode *node, const char *base, FfmLevel *level)
{
  FfmMemorySpec *m = &level->u.memory;

  return read_optional_bool (l, node, base, "skip_initial_output_write",
                             &m->skip_initial_output_write)
         && read_optional_bool (l, node, base, "drains_read", &m->drains_read)
         && read_memory_size (l, node, base, m)
         && read_optional_number (l, node, base, "read_energy", &m->read_energy)
         && read_optional_number (l, node, base, "write_energy", &m->write_energy)
         && read_optional_number (l, node, base, "fill_energy", &m->fill_energy)
         && read_optional_number (l, node, base, "update_energy", &m->update_energy)
         && read_optional_number (l, node, base, "drain_energy", &m->drain_energy)
         && read_optional_number (l, node, base, "read_bandwidth", &m->read_bandwidth)
         && read_optional_number (l, node, base, "write_bandwidth", &m->write_bandwidth)
         && read_optional_number (l, node, base, "bits_per_action", &m->bits_per_action)
         && read_optional_number (l, node, base, "cluster_size", &m->cluster_size)
         && read_optional_bool (l, node, base, "whole_actions", &m->whole_actions)
         && read_ports (l, node, base, &m->ports)
         && read_optional_string (l, node, base, "keep", &m->keep)
         && read_optional_string (l, node, base, "may_keep", &m->may_keep)
         && read_tensor_set_map (l, node, base, "energy_by_tensor", level,
                                 read_energy_override)
         && read_tensor_set_map (l, node, base, "bits_per_value", level,
                                 read_bits_override);
}

/* One fanout dimension from @node (a dims[] entry, or the level itself). */
static gboolean
read_fanout_dim (Loader *l, JsonNode *node, const char *base, FfmLevel *level,
                 const char *name)
{
  FfmFanoutDim *dim;
  guint64 count = 0;

  if (!read_count (l, node, base, &count))
    return FALSE;
  dim = ffm_level_add_fanout_dim (level, name, count);
  return read_optional_string (l, node, base, "reuse", &dim->reuse)
         && read_optional_string (l, node, base, "may_reuse", &dim->may_reuse)
         && read_optional_number (l, node, base, "min_usage", &dim->min_usage)
         && read_optional_string (l, node, base, "allowed_rank_vars",
                                  &dim->allowed_rank_vars);
}

static gboolean
read_fanout (Loader *l, JsonNode *node, const char *base, FfmLevel *level)
{
  JsonNode *dims = ffm_json_get_member (node, "dims");
  g_autofree char *path = g_strdup_printf ("%s.dims", base);
  JsonArray *array;

  if (dims == NULL)
    return read_fanout_dim (l, node, base, level, level->name);
  for (guint i = 0; single_dim_members[i] != NULL; i++)
    if (ffm_json_get_member (node, single_dim_members[i]) != NULL)
      return loader_fail (l, ffm_json_get_member (node, single_dim_members[i]),
                          base, "\"%s\" belongs inside a dimension when "
                          "\"dims\" is given", single_dim_members[i]);
  if (!ffm_json_require_array (l->doc, dims, path, FFM_ARCH_ERROR,
                               FFM_ARCH_ERROR_INVALID, l->error))
    return FALSE;
  array = json_node_get_array (dims);
  if (json_array_get_length (array) > FFM_MAX_FANOUT_DIMS)
    return loader_fail (l, dims, path, "at most %d dimensions per fanout, got %u",
                        FFM_MAX_FANOUT_DIMS, json_array_get_length (array));
  for (guint d = 0; d < json_array_get_length (array); d++)
    {
      JsonNode *dim = json_array_get_element (array, d);
      g_autofree char *sub = g_strdup_printf ("%s[%u]", path, d);
      g_autofree char *name_path = g_strdup_printf ("%s.name", sub);
      const char *name;

      if (!ffm_json_require_object (l->doc, dim, sub, FFM_ARCH_ERROR,
                                    FFM_ARCH_ERROR_INVALID, l->error)
          || !ffm_json_check_members (l->doc, dim, sub, dim_members,
                                      FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID,
                                      l->error))
        return FALSE;
      name = ffm_json_require_string (l->doc, ffm_json_get_member (dim, "name"),
                                      name_path, FFM_ARCH_ERROR,
                                      FFM_ARCH_ERROR_INVALID, l->error);
      if (name == NULL || !read_fanout_dim (l, dim, sub, level, name))
        return FALSE;
    }
  return TRUE;
}

static gboolean
read_compute (Loader *l, JsonNode *node, const char *base, FfmLevel *level)
{
  FfmComputeSpec *c = &level->u.compute;

  return read_optional_number (l, node, base, "energy", &c->energy)
         && read_optional_number (l, node, base, "throughput", &c->throughput)
         && read_optional_string (l, node, base, "enabled", &c->enabled)
         && read_optional_bool (l, node, base, "operand_reuse", &c->operand_reuse);
}

/* ---- Levels sized by component estimators ---- */

/* "attributes": {NAME: value}. A number, an expression over the
 * parameters and lets, or text: a string that does not parse ("7nm") or
 * is one name that is not a variable ("LPDDR4"). */
static gboolean
read_attributes (Loader *l, JsonNode *level_node, const char *base,
                 FfmParamValues *attrs)
{
  JsonNode *node = ffm_json_get_member (level_node, "attributes");
  g_autofree char *path = g_strdup_printf ("%s.attributes", base);
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (node == NULL)
    return TRUE;
  if (!ffm_json_require_object (l->doc, node, path, FFM_ARCH_ERROR,
                                FFM_ARCH_ERROR_INVALID, l->error))
    return FALSE;
  if (json_object_get_size (json_node_get_object (node)) > FFM_ESTIMATOR_MAX_ATTRIBUTES)
    return loader_fail (l, node, path, "more than %d attributes",
                        FFM_ESTIMATOR_MAX_ATTRIBUTES);
  json_object_iter_init_ordered (&iter, json_node_get_object (node));
  while (json_object_iter_next_ordered (&iter, &name, &value))
    {
      g_autofree char *sub = g_strdup_printf ("%s.%s", path, name);
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];
      double number;
      FfmValue known;

      if (node_is_string (value))
        {
          const char *text = json_node_get_string (value);
          g_autoptr (FfmExpr) expr = ffm_expr_parse (text, NULL);
          gboolean bare_unknown = expr != NULL && strchr (text, ' ') == NULL
                                  && is_identifier (text)
                                  && !loader_resolve (text, &known, l);
          if (expr == NULL || bare_unknown)
            {
              ffm_param_values_set (attrs, name, text);
              continue;
            }
        }
      else if (value != NULL && JSON_NODE_HOLDS_VALUE (value)
               && json_node_get_value_type (value) == G_TYPE_BOOLEAN)
        {
          ffm_param_values_set (attrs, name, json_node_get_boolean (value) ? "1" : "0");
          continue;
        }
      if (!read_number (l, value, sub, &number))
        return FALSE;
      ffm_param_values_set (attrs, name, ffm_format_double (number, buffer));
    }
  return TRUE;
}

/* Declares LEVEL.WHAT = @value for the expressions of this level and the
 * levels below. */
static void
declare_estimate (Loader *l, const char *level, const char *what, double value)
{
  g_autofree char *name = g_strdup_printf ("%s.%s", level, what);
  FfmValue v = { .type = FFM_VALUE_NUMBER, .number = value };

  if (!isnan (value))
    ffm_params_reader_define (l->params, name, &v);
}

/* "read_energy: sram 70 %" for the @n members of @members the file does
 * not set itself, all given by @v. */
static void
describe_estimate (GString *out, JsonNode *level_node, const char *const *members,
                   guint n, const FfmEstimatedValue *v)
{
  gboolean any = FALSE;

  if (v->estimator == NULL || isnan (v->value))
    return;
  for (guint i = 0; i < n; i++)
    {
      if (ffm_json_get_member (level_node, members[i]) != NULL)
        continue;
      g_string_append_printf (out, "%s%s", any ? ", " : out->len > 0 ? "; " : "",
                              members[i]);
      any = TRUE;
    }
  if (any)
    g_string_append_printf (out, ": %s %g %%", v->estimator, v->accuracy);
}

static gboolean
estimate_or_fail (Loader *l, JsonNode *class_node, const char *path,
                  const char *level, const char *class_name,
                  const FfmParamValues *attrs, const char *action,
                  FfmComponentEstimate *out)
{
  g_autoptr (FfmEstimateQuery) query = ffm_estimate_query_new (level, class_name,
                                                               attrs, action);
  g_autoptr (GError) local = NULL;

  if (ffm_plugin_registry_estimate (ffm_estimators_current (), query, out, &local))
    return TRUE;
  return loader_fail (l, class_node, path, "%s", local->message);
}

/* A level with "class" and "attributes": its energies, leakage, area and
 * (memories) bandwidths from the component estimators, before the level's
 * own members, which override them. */
static gboolean
read_estimated (Loader *l, JsonNode *node, const char *base, FfmLevel *level)
{
  JsonNode *class_node = ffm_json_get_member (node, "class");
  g_autofree char *class_path = g_strdup_printf ("%s.class", base);
  g_autofree char *class_name = NULL;
  g_autoptr (FfmParamValues) attrs = ffm_param_values_new ();
  g_autoptr (GString) by = g_string_new (NULL);
  FfmComponentEstimate read, write;

  if (class_node == NULL)
    {
      if (ffm_json_get_member (node, "attributes") != NULL)
        return loader_fail (l, node, base, "\"attributes\" describe a component "
                            "class: give \"class\" too (ffm list shows the classes)");
      return TRUE;
    }
  if (!read_optional_string (l, node, base, "class", &class_name)
      || !read_attributes (l, node, base, attrs))
    return FALSE;

  if (level->kind == FFM_LEVEL_COMPUTE)
    {
      g_autofree char *action = g_strdup ("compute");
      static const char *const energy[] = { "energy" };
      static const char *const leak[] = { "leak_power" };
      static const char *const area[] = { "area" };

      if (!read_optional_string (l, node, base, "action", &action)
          || !estimate_or_fail (l, class_node, class_path, level->name, class_name,
                                attrs, action, &read))
        return FALSE;
      level->u.compute.energy = read.energy.value;
      describe_estimate (by, node, energy, 1, &read.energy);
      declare_estimate (l, level->name, "energy", read.energy.value);
      if (!isnan (read.leak_power.value))
        level->leak_power = read.leak_power.value;
      if (!isnan (read.area.value))
        level->area = read.area.value;
      describe_estimate (by, node, leak, 1, &read.leak_power);
      describe_estimate (by, node, area, 1, &read.area);
    }
  else
    {
      FfmMemorySpec *m = &level->u.memory;
      static const char *const energies[] = { "read_energy", "write_energy" };
      static const char *const bandwidths[] = { "read_bandwidth", "write_bandwidth" };
      static const char *const leak[] = { "leak_power" };
      static const char *const area[] = { "area" };
      JsonNode *size = ffm_json_get_member (node, "size");
      double per_action;

      /* An SRAM sized by the level: its capacity in bits. */
      if (size != NULL && ffm_param_values_lookup (attrs, "depth") == NULL
          && ffm_param_values_lookup (attrs, "size") == NULL
          && !(node_is_string (size)
               && text_uses (json_node_get_string (size), ".bits_per_value", TRUE)))
        {
          g_autofree char *size_path = g_strdup_printf ("%s.size", base);
          char buffer[G_ASCII_DTOSTR_BUF_SIZE];
          double bits;
          if (!read_number (l, size, size_path, &bits))
            return FALSE;
          if (isfinite (bits))
            ffm_param_values_set (attrs, "size", ffm_format_double (bits, buffer));
        }
      if (!read_optional_number (l, node, base, "bits_per_action", &m->bits_per_action)
          || !estimate_or_fail (l, class_node, class_path, level->name, class_name,
                                attrs, "read", &read)
          || !estimate_or_fail (l, class_node, class_path, level->name, class_name,
                                attrs, "write", &write))
        return FALSE;
      /* Energies per access of action_bits bits; ffm's per bits_per_action. */
      per_action = isnan (read.action_bits.value) ? 1
                   : m->bits_per_action / read.action_bits.value;
      m->read_energy = read.energy.value * per_action;
      m->write_energy = write.energy.value * per_action;
      describe_estimate (by, node, energies, 2, &read.energy);
      declare_estimate (l, level->name, "read_energy", m->read_energy);
      declare_estimate (l, level->name, "write_energy", m->write_energy);
      if (!isnan (read.bandwidth.value))
        {
          m->read_bandwidth = m->write_bandwidth = read.bandwidth.value
                                                   / m->bits_per_action;
          describe_estimate (by, node, bandwidths, 2, &read.bandwidth);
          declare_estimate (l, level->name, "bandwidth", m->read_bandwidth);
        }
      if (!isnan (read.leak_power.value))
        level->leak_power = read.leak_power.value;
      if (!isnan (read.area.value))
        level->area = read.area.value;
      describe_estimate (by, node, leak, 1, &read.leak_power);
      describe_estimate (by, node, area, 1, &read.area);
    }
  declare_estimate (l, level->name, "leak_power", read.leak_power.value);
  declare_estimate (l, level->name, "area", read.area.value);
  g_free (level->estimated_by);
  level->estimated_by = by->len > 0 ? g_strdup (by->str) : NULL;
  return TRUE;
}

/* Which of "memory", "fanout", "compute" the level object has. */
static gboolean
level_kind (Loader *l, JsonNode *node, const char *base, FfmLevelKind *kind,
            const char **member)
{
  static const char *const kinds[] = { "memory", "fanout", "compute" };
  JsonObjectIter iter;
  const char *first = NULL;
  JsonNode *value;

  *member = NULL;
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    if (ffm_json_get_member (node, kinds[k]) != NULL)
      {
        if (*member != NULL)
          return loader_fail (l, node, base, "a level is one of memory, fanout "
                              "or compute; this one has both \"%s\" and \"%s\"",
                              *member, kinds[k]);
        *member = kinds[k];
        *kind = (FfmLevelKind) (FFM_LEVEL_MEMORY + k);
      }
  if (*member != NULL)
    return TRUE;
  json_object_iter_init_ordered (&iter, json_node_get_object (node));
  json_object_iter_next_ordered (&iter, &first, &value);
  return loader_fail (l, node, base, "unknown level kind: expected a member "
                      "\"memory\", \"fanout\" or \"compute\" naming the level%s%s%s",
                      first ? ", got \"" : "", first ? first : "", first ? "\"" : "");
}

static gboolean
read_level (Loader *l, JsonNode *node, guint index)
{
  g_autofree char *base = g_strdup_printf ("$.levels[%u]", index);
  g_autofree char *name_path = NULL;
  const char *const *allowed;
  const char *member, *name;
  FfmLevelKind kind = FFM_LEVEL_MEMORY;
  FfmLevel *level;

  if (!ffm_json_require_object (l->doc, node, base, FFM_ARCH_ERROR,
                                FFM_ARCH_ERROR_INVALID, l->error)
      || !level_kind (l, node, base, &kind, &member))
    return FALSE;
  allowed = kind == FFM_LEVEL_MEMORY ? memory_members
            : kind == FFM_LEVEL_FANOUT ? fanout_members : compute_members;
  if (!ffm_json_check_members (l->doc, node, base, allowed, FFM_ARCH_ERROR,
                               FFM_ARCH_ERROR_INVALID, l->error))
    return FALSE;
  name_path = g_strdup_printf ("%s.%s", base, member);
  name = ffm_json_require_string (l->doc, ffm_json_get_member (node, member),
                                  name_path, FFM_ARCH_ERROR,
                                  FFM_ARCH_ERROR_INVALID, l->error);
  if (name == NULL)
    return FALSE;
  level = kind == FFM_LEVEL_MEMORY ? ffm_arch_add_memory (l->arch, name)
          : kind == FFM_LEVEL_FANOUT ? ffm_arch_add_fanout (l->arch, name)
          : ffm_arch_add_compute (l->arch, name);
  if (kind != FFM_LEVEL_FANOUT && !read_estimated (l, node, base, level))
    return FALSE;
  if (!read_optional_string (l, node, base, "description", &level->description)
      || (ffm_json_get_member (node, "class") == NULL
          && !read_optional_string (l, node, base, "estimated_by", &level->estimated_by))
      || !read_optional_number (l, node, base, "leak_power", &level->leak_power)
      || !read_optional_bool (l, node, base, "leak_utilized", &level->leak_utilized)
      || !read_optional_number (l, node, base, "area", &level->area))
    return FALSE;
  switch (kind)
    {
    case FFM_LEVEL_MEMORY:
      return read_memory (l, node, base, level);
    case FFM_LEVEL_FANOUT:
      return read_fanout (l, node, base, level);
    case FFM_LEVEL_COMPUTE:
      return read_compute (l, node, base, level);
    }
  return FALSE;
}

/* Turns a problem found by ffm_arch_finish_located() into a message at the
 * file's line of the offending member. */
static gboolean
report_problem (Loader *l, JsonNode *levels, const FfmArchProblem *p,
                GError *cause)
{
  g_autofree char *path = g_strdup ("$.levels");
  JsonNode *node = levels, *container;

  if (p->level >= 0 && levels != NULL && JSON_NODE_HOLDS_ARRAY (levels))
    {
      node = container = json_array_get_element (json_node_get_array (levels),
                                                 (guint) p->level);
      g_free (path);
      path = g_strdup_printf ("$.levels[%d]", p->level);
      if (p->dim >= 0 && ffm_json_get_member (node, "dims") != NULL)
        {
          JsonNode *dims = ffm_json_get_member (node, "dims");
          char *sub = g_strdup_printf ("%s.dims[%d]", path, p->dim);
          node = container = json_array_get_element (json_node_get_array (dims),
                                                     (guint) p->dim);
          g_free (path);
          path = sub;
        }
      if (p->member != NULL && ffm_json_get_member (container, p->member) != NULL)
        {
          char *sub = g_strdup_printf ("%s.%s", path, p->member);
          node = ffm_json_get_member (container, p->member);
          g_free (path);
          path = sub;
        }
      if (p->override_index >= 0 && JSON_NODE_HOLDS_OBJECT (node))
        {
          GList *values = json_object_get_values (json_node_get_object (node));
          JsonNode *value = g_list_nth_data (values, (guint) p->override_index);
          g_list_free (values);
          if (value != NULL)
            node = value;
        }
    }
  loader_fail (l, node, path, "%s", cause->message);
  g_error_free (cause);
  return FALSE;
}

static gboolean
read_levels (Loader *l, JsonNode *root)
{
  JsonNode *levels = ffm_json_get_member (root, "levels");
  FfmArchProblem problem;
  GError *cause = NULL;
  JsonArray *array;

  if (!ffm_json_require_array (l->doc, levels, "$.levels", FFM_ARCH_ERROR,
                               FFM_ARCH_ERROR_INVALID, l->error))
    return FALSE;
  array = json_node_get_array (levels);
  if (json_array_get_length (array) > FFM_MAX_ARCH_LEVELS)
    return loader_fail (l, levels, "$.levels", "%u levels, more than the limit of %d",
                        json_array_get_length (array), FFM_MAX_ARCH_LEVELS);
  for (guint i = 0; i < json_array_get_length (array); i++)
    if (!read_level (l, json_array_get_element (array, i), i))
      return FALSE;
  if (ffm_arch_finish_located (l->arch, &problem, &cause))
    return TRUE;
  return report_problem (l, levels, &problem, cause);
}

/* ---- The file ---- */

static gboolean
read_header (Loader *l, JsonNode *root)
{
  JsonNode *version = ffm_json_get_member (root, "ffm_architecture");
  double number;

  if (!ffm_json_require_object (l->doc, root, "$", FFM_ARCH_ERROR,
                                FFM_ARCH_ERROR_INVALID, l->error)
      || !ffm_json_check_members (l->doc, root, "$", top_members, FFM_ARCH_ERROR,
                                  FFM_ARCH_ERROR_INVALID, l->error))
    return FALSE;
  if (version == NULL)
    return loader_fail (l, root, "$", "missing member \"ffm_architecture\" "
                        "(the format version, %d): is this an architecture file?",
                        ARCH_FORMAT_VERSION);
  if (!ffm_json_require_number (l->doc, version, "$.ffm_architecture",
                                FFM_ARCH_ERROR, FFM_ARCH_ERROR_INVALID, &number,
                                l->error))
    return FALSE;
  if (number != ARCH_FORMAT_VERSION)
    return loader_fail (l, version, "$.ffm_architecture", "unsupported format "
                        "version %g (this ffm reads version %d)", number,
                        ARCH_FORMAT_VERSION);
  return TRUE;
}

/* The architecture's name: the "name" member, else the file name's stem. */
static char *
read_name (Loader *l, JsonNode *root)
{
  JsonNode *node = ffm_json_get_member (root, "name");
  g_autofree char *base = NULL;
  const char *name;

  if (node == NULL)
    {
      base = g_path_get_basename (ffm_json_doc_get_name (l->doc));
      if (g_str_has_suffix (base, ".json"))
        base[strlen (base) - strlen (".json")] = '\0';
      return g_steal_pointer (&base);
    }
  name = ffm_json_require_string (l->doc, node, "$.name", FFM_ARCH_ERROR,
                                  FFM_ARCH_ERROR_INVALID, l->error);
  if (name != NULL && name[0] == '\0')
    {
      loader_fail (l, node, "$.name", "the name is empty");
      return NULL;
    }
  return g_strdup (name);
}

static void
loader_clear (Loader *l)
{
  g_clear_pointer (&l->doc, ffm_json_doc_free);
  g_clear_pointer (&l->owner, g_free);
  g_clear_pointer (&l->params, ffm_params_reader_free);
  g_clear_pointer (&l->strings, g_ptr_array_unref);
  g_clear_pointer (&l->arch, ffm_arch_unref);
}

static void
loader_init (Loader *l, FfmJsonDoc *doc, GError **error)
{
  memset (l, 0, sizeof *l);
  l->doc = doc;
  l->error = error;
  l->strings = g_ptr_array_new_with_free_func (g_free);
}

static FfmArch *
load_doc (FfmJsonDoc *doc, const FfmParamValues *params, GError **error)
{
  JsonNode *root = ffm_json_doc_get_root (doc);
  g_autofree char *name = NULL;
  FfmParamSpec *specs = NULL;
  Loader l;
  gboolean ok;

  loader_init (&l, doc, error);
  ok = read_header (&l, root) && (name = read_name (&l, root)) != NULL;
  if (ok)
    {
      l.owner = g_strdup_printf ("architecture %s", name);
      l.arch = ffm_arch_new (name);
      l.params = params_reader_new (&l);
      ok = (specs = ffm_params_reader_read_specs (l.params, root, error)) != NULL
           && ffm_params_reader_bind (l.params, specs, root, params, error)
           && ffm_params_reader_read_lets (l.params, root, error);
    }
  if (ok)
    {
      g_autofree char *description = NULL, *source = NULL;
      ok = read_optional_string (&l, root, "$", "description", &description)
           && read_optional_string (&l, root, "$", "source", &source);
      ffm_arch_set_description (l.arch, description);
      ffm_arch_set_source (l.arch, source);
      const GPtrArray *names = ffm_params_reader_get_names (l.params);
      for (guint i = 0; ok && i < names->len; i++)
        {
          FfmValue value;
          if (ffm_params_reader_lookup (l.params, names->pdata[i], &value)
              && value.type == FFM_VALUE_NUMBER)
            ffm_arch_set_variable (l.arch, names->pdata[i], value.number);
        }
      ok = ok && read_levels (&l, root);
    }
  {
    FfmArch *arch = ok ? g_steal_pointer (&l.arch) : NULL;
    /* String values of the variables point into @params or @specs. */
    loader_clear (&l);
    ffm_param_specs_free (specs);
    return arch;
  }
}

/**
 * ffm_arch_load_file:
 * @path: a JSON architecture file
 * @params: (nullable): parameter values overriding the file's defaults
 * @error: return location for an error
 *
 * Returns: (transfer full): the finished architecture, or NULL with @error
 *   set (FFM_ARCH_ERROR, or FFM_PARAM_ERROR for a bad parameter value)
 */
FfmArch *
ffm_arch_load_file (const char *path, const FfmParamValues *params,
                    GError **error)
{
  FfmJsonDoc *doc;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  doc = ffm_json_doc_load_file (path, FFM_ARCH_ERROR, FFM_ARCH_ERROR_PARSE, error);
  return doc ? load_doc (doc, params, error) : NULL;
}

FfmArch *
ffm_arch_load_from_data (const char *json_text, const char *display_name,
                         const FfmParamValues *params, GError **error)
{
  FfmJsonDoc *doc;

  g_return_val_if_fail (json_text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  doc = ffm_json_doc_load_data (json_text, display_name, FFM_ARCH_ERROR,
                                FFM_ARCH_ERROR_PARSE, error);
  return doc ? load_doc (doc, params, error) : NULL;
}

/**
 * ffm_arch_file_get_param_specs:
 * @path: a JSON architecture file
 * @description: (out) (optional) (transfer full): its description, or NULL
 * @error: return location for an error
 *
 * Returns: (transfer full): the declared parameters, NULL-name-terminated;
 *   free with ffm_param_specs_free()
 */
FfmParamSpec *
ffm_arch_file_get_param_specs (const char *path, char **description,
                               GError **error)
{
  g_autofree char *text = NULL;
  FfmParamSpec *specs = NULL;
  Loader l;

  g_return_val_if_fail (path != NULL, NULL);
  loader_init (&l, ffm_json_doc_load_file (path, FFM_ARCH_ERROR,
                                           FFM_ARCH_ERROR_PARSE, error), error);
  if (l.doc != NULL && read_header (&l, ffm_json_doc_get_root (l.doc))
      && read_optional_string (&l, ffm_json_doc_get_root (l.doc), "$",
                               "description", &text))
    {
      l.params = params_reader_new (&l);
      specs = ffm_params_reader_read_specs (l.params, ffm_json_doc_get_root (l.doc),
                                            error);
    }
  loader_clear (&l);
  if (specs != NULL && description != NULL)
    *description = g_steal_pointer (&text);
  return specs;
}

/* ---- Writing ---- */

static void
add_string (FfmJsonWriter *w, const char *member, const char *value)
{
  if (value != NULL)
    ffm_json_writer_member_string (w, member, value);
}

/* A number member only when it is set (not NAN). */
static void
add_optional_number (FfmJsonWriter *w, const char *member, double value)
{
  if (!isnan (value))
    ffm_json_writer_member_double (w, member, value);
}

static void
write_energy_overrides (FfmJsonWriter *w, const GArray *overrides)
{
  if (overrides == NULL || overrides->len == 0)
    return;
  ffm_json_writer_key (w, "energy_by_tensor");
  ffm_json_writer_begin_object (w);
  for (guint i = 0; i < overrides->len; i++)
    {
      const FfmEnergyOverride *o = &g_array_index (overrides, FfmEnergyOverride, i);
      ffm_json_writer_key (w, o->tensors);
      ffm_json_writer_begin_object (w);
      add_optional_number (w, "read_energy", o->energies.read);
      add_optional_number (w, "fill_energy", o->energies.fill);
      add_optional_number (w, "update_energy", o->energies.update);
      add_optional_number (w, "drain_energy", o->energies.drain);
      ffm_json_writer_end_object (w);
    }
  ffm_json_writer_end_object (w);
}

static void
write_memory (FfmJsonWriter *w, const FfmMemorySpec *m)
{
  if (m->size_per_einsum != NULL)
    add_string (w, "size", m->size_per_einsum);
  else
    ffm_json_writer_member_double (w, "size", m->size);
  ffm_json_writer_member_double (w, "read_energy", m->read_energy);
  ffm_json_writer_member_double (w, "write_energy", m->write_energy);
  add_optional_number (w, "fill_energy", m->fill_energy);
  add_optional_number (w, "update_energy", m->update_energy);
  add_optional_number (w, "drain_energy", m->drain_energy);
  if (!m->drains_read)
    ffm_json_writer_member_boolean (w, "drains_read", FALSE);
  ffm_json_writer_member_double (w, "read_bandwidth", m->read_bandwidth);
  ffm_json_writer_member_double (w, "write_bandwidth", m->write_bandwidth);
  add_string (w, "ports", m->ports == FFM_PORTS_SEPARATE ? "separate" : "shared");
  ffm_json_writer_member_double (w, "bits_per_action", m->bits_per_action);
  ffm_json_writer_member_boolean (w, "skip_initial_output_write",
                                  m->skip_initial_output_write);
  if (m->cluster_size != 1)
    ffm_json_writer_member_double (w, "cluster_size", m->cluster_size);
  if (m->whole_actions)
    ffm_json_writer_member_boolean (w, "whole_actions", TRUE);
  add_string (w, "keep", m->keep);
  add_string (w, "may_keep", m->may_keep);
  write_energy_overrides (w, m->energy_overrides);
  if (m->bits_overrides == NULL || m->bits_overrides->len == 0)
    return;
  ffm_json_writer_key (w, "bits_per_value");
  ffm_json_writer_begin_object (w);
  for (guint i = 0; i < m->bits_overrides->len; i++)
    {
      const FfmBitsOverride *o = &g_array_index (m->bits_overrides,
                                                 FfmBitsOverride, i);
      if (o->bits_text != NULL)
        add_string (w, o->tensors, o->bits_text);
      else
        ffm_json_writer_member_double (w, o->tensors, o->bits);
    }
  ffm_json_writer_end_object (w);
}

static void
write_fanout (FfmJsonWriter *w, const FfmFanoutSpec *f)
{
  ffm_json_writer_key (w, "dims");
  ffm_json_writer_begin_array (w);
  for (guint d = 0; d < f->n_dims; d++)
    {
      const FfmFanoutDim *dim = &f->dims[d];
      ffm_json_writer_begin_object (w);
      add_string (w, "name", dim->name);
      ffm_json_writer_member_double (w, "count", (double) dim->count);
      add_string (w, "reuse", dim->reuse);
      add_string (w, "may_reuse", dim->may_reuse);
      ffm_json_writer_member_double (w, "min_usage", dim->min_usage);
      add_string (w, "allowed_rank_vars", dim->allowed_rank_vars);
      ffm_json_writer_end_object (w);
    }
  ffm_json_writer_end_array (w);
}

static void
write_level (FfmJsonWriter *w, const FfmLevel *level)
{
  static const char *const kinds[] = { "memory", "fanout", "compute" };

  ffm_json_writer_begin_object (w);
  add_string (w, kinds[level->kind - FFM_LEVEL_MEMORY], level->name);
  add_string (w, "description", level->description);
  switch (level->kind)
    {
    case FFM_LEVEL_MEMORY:
      write_memory (w, &level->u.memory);
      break;
    case FFM_LEVEL_FANOUT:
      write_fanout (w, &level->u.fanout);
      break;
    case FFM_LEVEL_COMPUTE:
      ffm_json_writer_member_double (w, "energy", level->u.compute.energy);
      ffm_json_writer_member_double (w, "throughput", level->u.compute.throughput);
      add_string (w, "enabled", level->u.compute.enabled);
      if (level->u.compute.operand_reuse)
        ffm_json_writer_member_boolean (w, "operand_reuse", TRUE);
      break;
    }
  ffm_json_writer_member_double (w, "leak_power", level->leak_power);
  if (level->leak_utilized)
    ffm_json_writer_member_boolean (w, "leak_utilized", TRUE);
  ffm_json_writer_member_double (w, "area", level->area);
  add_string (w, "estimated_by", level->estimated_by);
  ffm_json_writer_end_object (w);
}

/**
 * ffm_arch_to_json:
 * @arch: a finished architecture
 *
 * Returns: (transfer full): the architecture as a JSON architecture file
 */
char *
ffm_arch_to_json (const FfmArch *arch)
{
  g_autoptr (FfmJsonWriter) w = ffm_json_writer_new ();
  const char *const *names;

  g_return_val_if_fail (arch != NULL, NULL);
  ffm_json_writer_begin_object (w);
  ffm_json_writer_member_int (w, "ffm_architecture", ARCH_FORMAT_VERSION);
  add_string (w, "name", ffm_arch_get_name (arch));
  add_string (w, "description", ffm_arch_get_description (arch));
  add_string (w, "source", ffm_arch_get_source (arch));
  names = ffm_arch_get_variable_names (arch);
  if (names[0] != NULL)
    {
      /* Lets, not parameters: the values are fixed in this architecture. */
      ffm_json_writer_key (w, "let");
      ffm_json_writer_begin_object (w);
      for (guint i = 0; names[i] != NULL; i++)
        {
          double value = 0;
          ffm_arch_get_variable (arch, names[i], &value);
          ffm_json_writer_member_double (w, names[i], value);
        }
      ffm_json_writer_end_object (w);
    }
  ffm_json_writer_key (w, "levels");
  ffm_json_writer_begin_array (w);
  for (guint i = 0; i < ffm_arch_get_n_levels (arch); i++)
    write_level (w, ffm_arch_get_level (arch, i));
  ffm_json_writer_end_array (w);
  ffm_json_writer_end_object (w);
  return ffm_json_writer_finish (w);
}
