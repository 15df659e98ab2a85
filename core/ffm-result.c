/* ffm-result.c: the record of what produced a result, and result files
 * read back (ffm-result.h). */
#include <ffm/ffm-result.h>
#include "ffm-json-util.h"
#include "ffm-mapping-private.h"
#include "ffm-bounded-read.h"
#include <ffm/ffm-limits.h>

#include <string.h>

#define INVALID FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID

typedef enum {
  OPTION_INT,
  OPTION_DOUBLE,
  OPTION_BOOLEAN,
  OPTION_STRING,
} OptionKind;

typedef struct {
  char *name;
  OptionKind kind;
  char *text;                   /* the value as text */
  gint64 int_value;
  double double_value;
} Option;

struct _FfmResultInfo {
  char *version;
  char *command;
  FfmResultSource *architecture;  /* NULL until set */
  FfmResultSource *workload;
  char *strategy;                 /* NULL: none */
  FfmParamValues *strategy_parameters;
  char *objective;
  GArray *options;                /* of Option */
  FfmParamValues *digests;        /* input name -> "sha256:HEX" */
};

static void
option_clear (gpointer data)
{
  Option *o = data;

  g_free (o->name);
  g_free (o->text);
}

static void
source_free (FfmResultSource *s)
{
  if (s == NULL)
    return;
  g_free (s->given);
  g_free (s->name);
  g_free (s->model);
  g_free (s->file);
  ffm_param_values_free (s->parameters);
  g_free (s);
}

static FfmResultSource *
source_new (const char *given, const char *name, const char *model,
            const char *file, const FfmParamValues *parameters)
{
  FfmResultSource *s = g_new0 (FfmResultSource, 1);

  s->given = g_strdup (given);
  s->name = g_strdup (name);
  s->model = g_strdup (model);
  s->file = g_strdup (file);
  s->parameters = parameters != NULL ? ffm_param_values_copy (parameters)
                                     : ffm_param_values_new ();
  return s;
}

static FfmResultSource *
source_copy (const FfmResultSource *s)
{
  return s != NULL ? source_new (s->given, s->name, s->model, s->file, s->parameters)
                   : NULL;
}

FfmResultInfo *
ffm_result_info_new (const char *command)
{
  FfmResultInfo *info = g_new0 (FfmResultInfo, 1);

  info->version = g_strdup (FFM_VERSION_STRING);
  info->command = g_strdup (command);
  info->options = g_array_new (FALSE, TRUE, sizeof (Option));
  g_array_set_clear_func (info->options, option_clear);
  info->digests = ffm_param_values_new ();
  return info;
}

FfmResultInfo *
ffm_result_info_copy (const FfmResultInfo *info)
{
  FfmResultInfo *copy;

  g_return_val_if_fail (info != NULL, NULL);
  copy = ffm_result_info_new (info->command);
  g_free (copy->version);
  copy->version = g_strdup (info->version);
  copy->architecture = source_copy (info->architecture);
  copy->workload = source_copy (info->workload);
  ffm_result_info_set_search_from (copy, info);
  for (const char *const *k = ffm_param_values_get_keys (info->digests); *k != NULL; k++)
    ffm_param_values_set (copy->digests, *k, ffm_param_values_lookup (info->digests, *k));
  return copy;
}

void
ffm_result_info_free (FfmResultInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->version);
  g_free (info->command);
  g_clear_pointer (&info->digests, ffm_param_values_free);
  source_free (info->architecture);
  source_free (info->workload);
  g_free (info->strategy);
  ffm_param_values_free (info->strategy_parameters);
  g_free (info->objective);
  g_array_unref (info->options);
  g_free (info);
}

const char *
ffm_result_info_get_version (const FfmResultInfo *info)
{
  return info->version;
}

const char *
ffm_result_info_get_command (const FfmResultInfo *info)
{
  return info->command;
}

void
ffm_result_info_set_architecture (FfmResultInfo *info, const char *given,
                                  const char *name, const char *model,
                                  const char *file, const FfmParamValues *parameters)
{
  source_free (info->architecture);
  info->architecture = source_new (given, name, model, file, parameters);
}

void
ffm_result_info_set_workload (FfmResultInfo *info, const char *given,
                              const char *name, const char *file,
                              const FfmParamValues *parameters)
{
  source_free (info->workload);
  info->workload = source_new (given, name, NULL, file, parameters);
}

const FfmResultSource *
ffm_result_info_get_architecture (const FfmResultInfo *info)
{
  return info->architecture;
}

const FfmResultSource *
ffm_result_info_get_workload (const FfmResultInfo *info)
{
  return info->workload;
}

void
ffm_result_info_set_strategy (FfmResultInfo *info, const char *name,
                              const FfmParamValues *parameters)
{
  g_clear_pointer (&info->strategy, g_free);
  g_clear_pointer (&info->strategy_parameters, ffm_param_values_free);
  if (name == NULL)
    return;
  info->strategy = g_strdup (name);
  info->strategy_parameters = parameters != NULL ? ffm_param_values_copy (parameters)
                                                 : ffm_param_values_new ();
}

const char *
ffm_result_info_get_strategy (const FfmResultInfo *info)
{
  return info->strategy;
}

const FfmParamValues *
ffm_result_info_get_strategy_parameters (const FfmResultInfo *info)
{
  return info->strategy_parameters;
}

void
ffm_result_info_set_objective (FfmResultInfo *info, const char *objective)
{
  g_free (info->objective);
  info->objective = g_strdup (objective);
}

const char *
ffm_result_info_get_objective (const FfmResultInfo *info)
{
  return info->objective;
}

/* The option @name, appended if new (its old text freed). */
static Option *
option_slot (FfmResultInfo *info, const char *name)
{
  Option fresh = { 0 };

  for (guint i = 0; i < info->options->len; i++)
    {
      Option *o = &g_array_index (info->options, Option, i);
      if (strcmp (o->name, name) == 0)
        {
          g_clear_pointer (&o->text, g_free);
          return o;
        }
    }
  fresh.name = g_strdup (name);
  g_array_append_val (info->options, fresh);
  return &g_array_index (info->options, Option, info->options->len - 1);
}

void
ffm_result_info_set_option_int (FfmResultInfo *info, const char *name, gint64 value)
{
  Option *o = option_slot (info, name);

  o->kind = OPTION_INT;
  o->int_value = value;
  o->text = g_strdup_printf ("%" G_GINT64_FORMAT, value);
}

void
ffm_result_info_set_option_double (FfmResultInfo *info, const char *name, double value)
{
  Option *o = option_slot (info, name);
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  o->kind = OPTION_DOUBLE;
  o->double_value = value;
  o->text = g_strdup (ffm_format_double (value, buffer));
}

void
ffm_result_info_set_option_boolean (FfmResultInfo *info, const char *name,
                                    gboolean value)
{
  Option *o = option_slot (info, name);

  o->kind = OPTION_BOOLEAN;
  o->int_value = value != FALSE;
  o->text = g_strdup (value ? "true" : "false");
}

void
ffm_result_info_set_option_string (FfmResultInfo *info, const char *name,
                                   const char *value)
{
  Option *o = option_slot (info, name);

  o->kind = OPTION_STRING;
  o->text = g_strdup (value);
}

const char **
ffm_result_info_list_options (const FfmResultInfo *info)
{
  const char **names = g_new0 (const char *, info->options->len + 1);

  for (guint i = 0; i < info->options->len; i++)
    names[i] = g_array_index (info->options, Option, i).name;
  return names;
}

const char *
ffm_result_info_get_option (const FfmResultInfo *info, const char *name)
{
  for (guint i = 0; i < info->options->len; i++)
    {
      const Option *o = &g_array_index (info->options, Option, i);
      if (strcmp (o->name, name) == 0)
        return o->text;
    }
  return NULL;
}

void
ffm_result_info_set_search_from (FfmResultInfo *info, const FfmResultInfo *from)
{
  ffm_result_info_set_strategy (info, from->strategy, from->strategy_parameters);
  ffm_result_info_set_objective (info, from->objective);
  for (guint i = 0; i < from->options->len; i++)
    {
      const Option *o = &g_array_index (from->options, Option, i);
      Option *copy = option_slot (info, o->name);
      char *name = copy->name;
      *copy = *o;
      copy->name = name;
      copy->text = g_strdup (o->text);
    }
}

/* ---- Writing ---- */

static void
write_parameters (FfmJsonWriter *w, const FfmParamValues *values)
{
  const char *const *keys = ffm_param_values_get_keys (values);

  ffm_json_writer_key (w, "parameters");
  ffm_json_writer_begin_object (w);
  for (guint i = 0; keys[i] != NULL; i++)
    ffm_json_writer_member_string (w, keys[i], ffm_param_values_lookup (values, keys[i]));
  ffm_json_writer_end_object (w);
}

static void
write_source (FfmJsonWriter *w, const char *key, const FfmResultSource *s,
              gboolean with_model)
{
  ffm_json_writer_key (w, key);
  if (s == NULL)
    {
      ffm_json_writer_null (w);
      return;
    }
  ffm_json_writer_begin_object (w);
  ffm_json_writer_member_string (w, "given", s->given);
  ffm_json_writer_member_string (w, "name", s->name);
  if (with_model)
    ffm_json_writer_member_string (w, "model", s->model);
  ffm_json_writer_member_string (w, "file", s->file);
  write_parameters (w, s->parameters);
  ffm_json_writer_end_object (w);
}

void
ffm_result_info_set_digest (FfmResultInfo *info, const char *input, const char *digest)
{
  g_return_if_fail (info != NULL && input != NULL && digest != NULL);
  ffm_param_values_set (info->digests, input, digest);
}

const char *
ffm_result_info_get_digest (const FfmResultInfo *info, const char *input)
{
  g_return_val_if_fail (info != NULL && input != NULL, NULL);
  return ffm_param_values_lookup (info->digests, input);
}

const char *const *
ffm_result_info_list_digests (const FfmResultInfo *info)
{
  g_return_val_if_fail (info != NULL, NULL);
  return ffm_param_values_get_keys (info->digests);
}

char *
ffm_result_digest_file (const char *path)
{
  g_autofree char *text = NULL;
  g_autofree char *hex = NULL;
  gsize length = 0;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return NULL;
  /* Plugins are shared objects of a few MiB: the input bound is ample. */
  text = ffm_read_file_bounded (path, FFM_MAX_INPUT_FILE_BYTES, &length, NULL,
                                G_FILE_ERROR, G_FILE_ERROR_FAILED, NULL);
  if (text == NULL)
    return NULL;
  hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text, length);
  return g_strconcat ("sha256:", hex, NULL);
}

void
ffm_result_info_write_json (const FfmResultInfo *info, FfmJsonWriter *w)
{
  ffm_json_writer_member_int (w, "ffm_result", FFM_RESULT_FORMAT_VERSION);
  ffm_json_writer_member_string (w, "ffm_version", info->version);
  ffm_json_writer_member_string (w, "command", info->command);
  ffm_json_writer_key (w, "inputs");
  ffm_json_writer_begin_object (w);
  write_source (w, "architecture", info->architecture, TRUE);
  write_source (w, "workload", info->workload, FALSE);
  ffm_json_writer_key (w, "strategy");
  if (info->strategy == NULL)
    ffm_json_writer_null (w);
  else
    {
      ffm_json_writer_begin_object (w);
      ffm_json_writer_member_string (w, "name", info->strategy);
      write_parameters (w, info->strategy_parameters);
      ffm_json_writer_end_object (w);
    }
  ffm_json_writer_member_string (w, "objective", info->objective);
  if (ffm_param_values_get_keys (info->digests)[0] != NULL)
    {
      ffm_json_writer_key (w, "digests");
      ffm_json_writer_begin_object (w);
      for (const char *const *k = ffm_param_values_get_keys (info->digests); *k != NULL; k++)
        ffm_json_writer_member_string (w, *k, ffm_param_values_lookup (info->digests, *k));
      ffm_json_writer_end_object (w);
    }
  ffm_json_writer_key (w, "options");
  ffm_json_writer_begin_object (w);
  for (guint i = 0; i < info->options->len; i++)
    {
      const Option *o = &g_array_index (info->options, Option, i);
      switch (o->kind)
        {
        case OPTION_INT:
          ffm_json_writer_member_int (w, o->name, o->int_value);
          break;
        case OPTION_DOUBLE:
          ffm_json_writer_member_double (w, o->name, o->double_value);
          break;
        case OPTION_BOOLEAN:
          ffm_json_writer_member_boolean (w, o->name, o->int_value != 0);
          break;
        case OPTION_STRING:
        default:
          ffm_json_writer_member_string (w, o->name, o->text);
          break;
        }
    }
  ffm_json_writer_end_object (w);
  ffm_json_writer_end_object (w);
}

/* ---- Reading ---- */

struct _FfmResultFile {
  FfmResultInfo *info;          /* NULL for a plain mapping */
  FfmMapping *mapping;          /* NULL when there is none */
};

void
ffm_result_file_free (FfmResultFile *file)
{
  if (file == NULL)
    return;
  ffm_result_info_free (file->info);
  ffm_mapping_free (file->mapping);
  g_free (file);
}

const FfmResultInfo *
ffm_result_file_get_info (const FfmResultFile *file)
{
  return file->info;
}

const FfmMapping *
ffm_result_file_get_mapping (const FfmResultFile *file)
{
  return file->mapping;
}

/* A string member, or NULL when absent or null; FALSE with @error for
 * another type. */
static gboolean
optional_string (const FfmJsonDoc *doc, JsonNode *object, const char *path,
                 const char *member, char **out, GError **error)
{
  JsonNode *value = ffm_json_get_member (object, member);
  g_autofree char *member_path = g_strdup_printf ("%s.%s", path, member);
  const char *s;

  *out = NULL;
  if (value == NULL || JSON_NODE_HOLDS_NULL (value))
    return TRUE;
  s = ffm_json_require_string (doc, value, member_path, INVALID, error);
  if (s == NULL)
    return FALSE;
  *out = g_strdup (s);
  return TRUE;
}

/* "parameters": { "KEY": "VALUE", ... } (numbers and booleans accepted
 * as their text). */
static FfmParamValues *
read_parameters (const FfmJsonDoc *doc, JsonNode *object, const char *path,
                 GError **error)
{
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autofree char *params_path = g_strdup_printf ("%s.parameters", path);
  JsonNode *node = ffm_json_get_member (object, "parameters");
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if (node == NULL)
    return g_steal_pointer (&values);
  if (!ffm_json_require_object (doc, node, params_path, INVALID, error))
    return NULL;
  json_object_iter_init_ordered (&iter, json_node_get_object (node));
  while (json_object_iter_next_ordered (&iter, &key, &value))
    {
      g_autofree char *value_path = g_strdup_printf ("%s.%s", params_path, key);
      g_autofree char *text = NULL;

      if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN)
        text = g_strdup (json_node_get_boolean (value) ? "true" : "false");
      else
        text = ffm_json_require_number_or_expr (doc, value, value_path, INVALID, error);
      if (text == NULL)
        return NULL;
      ffm_param_values_set (values, key, text);
    }
  return g_steal_pointer (&values);
}

static gboolean
read_source (const FfmJsonDoc *doc, JsonNode *inputs, const char *member,
             gboolean with_model, FfmResultSource **out, GError **error)
{
  static const char *const arch_members[] = { "given", "name", "model", "file",
                                              "parameters", NULL };
  static const char *const workload_members[] = { "given", "name", "file",
                                                  "parameters", NULL };
  g_autofree char *path = g_strdup_printf ("$.inputs.%s", member);
  JsonNode *node = ffm_json_get_member (inputs, member);
  g_autoptr (FfmParamValues) parameters = NULL;
  g_autofree char *given = NULL, *name = NULL, *model = NULL, *file = NULL;

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!ffm_json_require_object (doc, node, path, INVALID, error)
      || !ffm_json_check_members (doc, node, path,
                                  with_model ? arch_members : workload_members,
                                  INVALID, error)
      || !optional_string (doc, node, path, "given", &given, error)
      || !optional_string (doc, node, path, "name", &name, error)
      || !optional_string (doc, node, path, "model", &model, error)
      || !optional_string (doc, node, path, "file", &file, error))
    return FALSE;
  if (given == NULL && file == NULL)
    {
      ffm_json_set_error (error, INVALID, doc, node, path,
                          "names no %s (needs \"given\" or \"file\")", member);
      return FALSE;
    }
  parameters = read_parameters (doc, node, path, error);
  if (parameters == NULL)
    return FALSE;
  *out = source_new (given, name, model, file, parameters);
  return TRUE;
}

static gboolean
read_options (const FfmJsonDoc *doc, JsonNode *inputs, FfmResultInfo *info,
              GError **error)
{
  JsonNode *node = ffm_json_get_member (inputs, "options");
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if (node == NULL)
    return TRUE;
  if (!ffm_json_require_object (doc, node, "$.inputs.options", INVALID, error))
    return FALSE;
  json_object_iter_init_ordered (&iter, json_node_get_object (node));
  while (json_object_iter_next_ordered (&iter, &key, &value))
    {
      GType type = JSON_NODE_HOLDS_VALUE (value) ? json_node_get_value_type (value)
                                                 : G_TYPE_INVALID;
      double d;

      if (type == G_TYPE_INT64)
        ffm_result_info_set_option_int (info, key, json_node_get_int (value));
      else if (type == G_TYPE_BOOLEAN)
        ffm_result_info_set_option_boolean (info, key, json_node_get_boolean (value));
      else if (type == G_TYPE_STRING)
        ffm_result_info_set_option_string (info, key, json_node_get_string (value));
      else if (ffm_json_node_get_double (value, &d))
        ffm_result_info_set_option_double (info, key, d);
      else
        {
          g_autofree char *path = g_strdup_printf ("$.inputs.options.%s", key);
          ffm_json_set_error (error, INVALID, doc, value, path,
                              "expected a number, a string or true or false");
          return FALSE;
        }
    }
  return TRUE;
}

/* "digests": { "architecture": "sha256:HEX", ... }, each a SHA-256. */
static gboolean
read_digests (const FfmJsonDoc *doc, JsonNode *inputs, FfmResultInfo *info,
              GError **error)
{
  static const char *const known[] = { "architecture", "workload", "mapping", NULL };
  JsonNode *node = ffm_json_get_member (inputs, "digests");
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if (node == NULL)
    return TRUE;                /* a result file from before digests */
  if (!ffm_json_require_object (doc, node, "$.inputs.digests", INVALID, error)
      || !ffm_json_check_members (doc, node, "$.inputs.digests", known, INVALID, error))
    return FALSE;
  json_object_iter_init_ordered (&iter, json_node_get_object (node));
  while (json_object_iter_next_ordered (&iter, &key, &value))
    {
      g_autofree char *path = g_strdup_printf ("$.inputs.digests.%s", key);
      const char *text = JSON_NODE_HOLDS_VALUE (value)
                         && json_node_get_value_type (value) == G_TYPE_STRING
                         ? json_node_get_string (value) : NULL;
      gboolean ok = text != NULL && strlen (text) == 7 + 64
                    && g_str_has_prefix (text, "sha256:");
      for (guint i = 7; ok && i < 7 + 64; i++)
        ok = g_ascii_isxdigit (text[i]) && !g_ascii_isupper (text[i]);
      if (!ok)
        {
          ffm_json_set_error (error, INVALID, doc, value, path, "expected \"sha256:\" "
                              "and 64 lowercase hex digits (the SHA-256 of the input)");
          return FALSE;
        }
      ffm_param_values_set (info->digests, key, text);
    }
  return TRUE;
}

static FfmResultInfo *
read_info (const FfmJsonDoc *doc, JsonNode *root, GError **error)
{
  static const char *const input_members[] = { "architecture", "workload",
                                               "strategy", "objective",
                                               "digests", "options", NULL };
  static const char *const strategy_members[] = { "name", "parameters", NULL };
  JsonNode *version = ffm_json_get_member (root, "ffm_result");
  JsonNode *inputs = ffm_json_get_member (root, "inputs");
  JsonNode *strategy;
  g_autoptr (FfmResultInfo) info = NULL;
  g_autofree char *ffm_version = NULL, *command = NULL, *objective = NULL;

  if (!JSON_NODE_HOLDS_VALUE (version) || json_node_get_value_type (version) != G_TYPE_INT64
      || json_node_get_int (version) != FFM_RESULT_FORMAT_VERSION)
    {
      ffm_json_set_error (error, INVALID, doc, version, "$.ffm_result",
                          "expected the result format version %d (a newer ffm "
                          "may have written this file)", FFM_RESULT_FORMAT_VERSION);
      return NULL;
    }
  if (!optional_string (doc, root, "$", "ffm_version", &ffm_version, error)
      || !optional_string (doc, root, "$", "command", &command, error))
    return NULL;
  info = ffm_result_info_new (command);
  if (ffm_version != NULL)
    {
      g_free (info->version);
      info->version = g_steal_pointer (&ffm_version);
    }
  if (inputs == NULL)
    {
      ffm_json_set_error (error, INVALID, doc, root, "$",
                          "missing member \"inputs\" (what produced the result)");
      return NULL;
    }
  if (!ffm_json_require_object (doc, inputs, "$.inputs", INVALID, error)
      || !ffm_json_check_members (doc, inputs, "$.inputs", input_members, INVALID, error)
      || !read_source (doc, inputs, "architecture", TRUE, &info->architecture, error)
      || !read_source (doc, inputs, "workload", FALSE, &info->workload, error)
      || !optional_string (doc, inputs, "$.inputs", "objective", &objective, error)
      || !read_digests (doc, inputs, info, error)
      || !read_options (doc, inputs, info, error))
    return NULL;
  info->objective = g_steal_pointer (&objective);
  strategy = ffm_json_get_member (inputs, "strategy");
  if (strategy != NULL && !JSON_NODE_HOLDS_NULL (strategy))
    {
      g_autofree char *name = NULL;
      g_autoptr (FfmParamValues) parameters = NULL;

      if (!ffm_json_require_object (doc, strategy, "$.inputs.strategy", INVALID, error)
          || !ffm_json_check_members (doc, strategy, "$.inputs.strategy",
                                      strategy_members, INVALID, error)
          || !optional_string (doc, strategy, "$.inputs.strategy", "name", &name, error))
        return NULL;
      if (name == NULL)
        {
          ffm_json_set_error (error, INVALID, doc, strategy, "$.inputs.strategy",
                              "missing member \"name\"");
          return NULL;
        }
      parameters = read_parameters (doc, strategy, "$.inputs.strategy", error);
      if (parameters == NULL)
        return NULL;
      ffm_result_info_set_strategy (info, name, parameters);
    }
  return g_steal_pointer (&info);
}

static FfmResultFile *
result_from_doc (const FfmJsonDoc *doc, GError **error)
{
  g_autoptr (FfmResultFile) file = g_new0 (FfmResultFile, 1);
  JsonNode *root = ffm_json_doc_get_root (doc);
  JsonNode *mapping;

  if (!ffm_json_require_object (doc, root, "$", INVALID, error))
    return NULL;
  if (ffm_json_get_member (root, "ffm_result") == NULL)
    {
      if (ffm_json_get_member (root, "ffm_mapping") == NULL)
        {
          ffm_json_set_error (error, INVALID, doc, root, "$",
                              "neither a result file (\"ffm_result\") nor a "
                              "mapping file (\"ffm_mapping\")");
          return NULL;
        }
      file->mapping = ffm_mapping_from_json_node (doc, root, "$", error);
      return file->mapping != NULL ? g_steal_pointer (&file) : NULL;
    }
  file->info = read_info (doc, root, error);
  if (file->info == NULL)
    return NULL;
  mapping = ffm_json_get_member (root, "mapping");
  if (mapping != NULL && !JSON_NODE_HOLDS_NULL (mapping))
    {
      file->mapping = ffm_mapping_from_json_node (doc, mapping, "$.mapping", error);
      if (file->mapping == NULL)
        return NULL;
    }
  return g_steal_pointer (&file);
}

FfmResultFile *
ffm_result_file_load (const char *path, GError **error)
{
  g_autoptr (FfmJsonDoc) doc = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  doc = ffm_json_doc_load_file (path, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_PARSE, error);
  return doc != NULL ? result_from_doc (doc, error) : NULL;
}

FfmResultFile *
ffm_result_file_load_from_data (const char *json_text, const char *display_name,
                                GError **error)
{
  g_autoptr (FfmJsonDoc) doc = NULL;

  g_return_val_if_fail (json_text != NULL, NULL);
  doc = ffm_json_doc_load_data (json_text, display_name, FFM_MAPPING_ERROR,
                                FFM_MAPPING_ERROR_PARSE, error);
  return doc != NULL ? result_from_doc (doc, error) : NULL;
}
