/* ffm-cmd-list.c: `ffm list`, every plugin with what it offers.
 *
 * For each plugin, in load order (arch models first, then search
 * strategies, then component estimators): kind, name, version, summary and
 * file; for an arch model every architecture it offers with its
 * description and parameters; for a search strategy its parameters; for
 * an estimator the component classes it knows (actions, attributes,
 * source). Parameters are printed as a table: name,
 * type, default ("required" when there is none), help with range and
 * choices. Then the policies (named constraint sets, ffm-constraints.h)
 * with their descriptions and constraints. Files that failed to load, and architectures whose description
 * or parameters could not be read, are listed last under "Problems:" on
 * stdout, so one output holds the whole picture; the exit code stays 0
 * because listing itself worked. --json OUT writes the same as one JSON
 * object ({"plugins": [...], "policies": [constraint documents],
 * "problems": [...]}), --csv OUT the plugins,
 * architectures and parameters as tables ("-": standard output, instead of
 * the text); --names prints only the names --arch and --strategy take,
 * one per line ("architecture tpuv4i", "strategy ffm"); --paths prints the
 * folders searched instead. */
#include "ffm-cli-common.h"
#include "ffm-cli-output.h"
#include "ffm-cli-table.h"

#include <string.h>

#define COMMAND "list"

static const char list_description[] =
  "Plugins are found in, in order: each --plugin-dir, each folder of\n"
  "FFM_PLUGIN_PATH (colon-separated), then the built-in folder (this build's\n"
  "plugins when ffm runs from its build tree). The first plugin of a name\n"
  "wins. Files that could not be loaded are listed under \"Problems:\".\n";

typedef struct {
  FfmCliCommon common;
  FfmCliOutputOptions output;   /* --json OUT, --csv OUT */
  gboolean names;               /* --names */
  gboolean paths;               /* --paths */
} ListOptions;

/* ---- Parameters ---- */

/* The help text with the range and the choices, as printed in the table. */
static char *
param_help_line (const FfmParamSpec *spec)
{
  GString *text = g_string_new (spec->help);

  if (spec->min != 0 || spec->max != 0)
    g_string_append_printf (text, " [%g, %g]", spec->min, spec->max);
  if (spec->choices != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", (char **) spec->choices);
      g_string_append_printf (text, " (one of: %s)", joined);
    }
  return g_string_free (text, FALSE);
}

static const char *
param_default_text (const FfmParamSpec *spec)
{
  if (spec->default_value == NULL)
    return "required";
  if (spec->default_value[0] == '\0')
    return "\"\"";
  return spec->default_value;
}

static void
print_param_table (const FfmParamSpec *specs, const char *indent)
{
  int name_width = strlen ("NAME");
  int type_width = strlen ("TYPE");
  int default_width = strlen ("DEFAULT");

  if (specs == NULL || specs[0].name == NULL)
    {
      g_print ("%sno parameters\n", indent);
      return;
    }
  for (guint i = 0; specs[i].name != NULL; i++)
    {
      name_width = MAX (name_width, (int) strlen (specs[i].name));
      type_width = MAX (type_width, (int) strlen (ffm_param_type_to_string (specs[i].type)));
      default_width = MAX (default_width, (int) strlen (param_default_text (&specs[i])));
    }
  g_print ("%s%-*s  %-*s  %-*s  %s\n", indent, name_width, "NAME", type_width, "TYPE",
           default_width, "DEFAULT", "HELP");
  for (guint i = 0; specs[i].name != NULL; i++)
    {
      g_autofree char *help = param_help_line (&specs[i]);
      g_print ("%s%-*s  %-*s  %-*s  %s\n", indent, name_width, specs[i].name,
               type_width, ffm_param_type_to_string (specs[i].type),
               default_width, param_default_text (&specs[i]), help);
    }
}

static void
add_param_json (FfmJsonWriter *b, const FfmParamSpec *specs)
{
  ffm_json_writer_key (b, "parameters");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; specs != NULL && specs[i].name != NULL; i++)
    {
      const FfmParamSpec *spec = &specs[i];

      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "name", spec->name);
      ffm_json_writer_member_string (b, "type", ffm_param_type_to_string (spec->type));
      ffm_json_writer_member_string (b, "default", spec->default_value);
      ffm_json_writer_member_string (b, "help", spec->help);
      if (spec->min != 0 || spec->max != 0)
        {
          ffm_json_writer_member_double (b, "min", spec->min);
          ffm_json_writer_member_double (b, "max", spec->max);
        }
      if (spec->choices != NULL)
        {
          ffm_json_writer_key (b, "choices");
          ffm_json_writer_begin_array (b);
          for (guint j = 0; spec->choices[j] != NULL; j++)
            ffm_json_writer_string (b, spec->choices[j]);
          ffm_json_writer_end_array (b);
        }
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
}

/* ---- Reading what an arch model offers ---- */

typedef struct {
  char *name;                   /* architecture name */
  char *description;            /* may be NULL */
  FfmParamSpec *params;         /* NULL when they could not be read */
} ArchEntry;

static void
arch_entry_free (gpointer data)
{
  ArchEntry *entry = data;

  g_free (entry->name);
  g_free (entry->description);
  if (entry->params != NULL)
    ffm_param_specs_free (entry->params);
  g_free (entry);
}

/* The architectures of @model with their parameters (of ArchEntry*).
 * Parameter lists that fail to load become problems. */
static GPtrArray *
read_architectures (const FfmPluginRegistry *registry, const FfmPluginInfo *model,
                    GPtrArray *problems)
{
  const FfmArchModelVTable *vt = model->descriptor->vtable.arch;
  g_auto (GStrv) names = vt->list_architectures ();
  GPtrArray *entries = g_ptr_array_new_with_free_func (arch_entry_free);

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      ArchEntry *entry = g_new0 (ArchEntry, 1);
      g_autofree char *full = g_strdup_printf ("%s:%s", model->descriptor->name,
                                               names[i]);
      g_autoptr (GError) error = NULL;

      entry->name = g_strdup (names[i]);
      entry->description = vt->describe (names[i]);
      entry->params = ffm_plugin_registry_get_arch_params (registry, full, &error);
      if (entry->params == NULL)
        g_ptr_array_add (problems, g_strdup_printf ("%s (%s): %s", full, model->path,
                                                    error->message));
      g_ptr_array_add (entries, entry);
    }
  return entries;
}

/* ---- Text ---- */

static void
print_plugin_header (const FfmPluginInfo *info)
{
  const FfmPluginDescriptor *desc = info->descriptor;

  g_print ("  %s %s: %s\n", desc->name, desc->version, desc->summary);
  g_print ("    kind: %s\n", ffm_plugin_kind_to_string (desc->kind));
  g_print ("    file: %s\n", info->path);
}

static void
print_arch_model (const FfmPluginRegistry *registry, const FfmPluginInfo *info,
                  GPtrArray *problems)
{
  g_autoptr (GPtrArray) entries = read_architectures (registry, info, problems);

  print_plugin_header (info);
  if (entries->len == 0)
    {
      g_print ("    architectures: none\n");
      return;
    }
  g_print ("    architectures:\n");
  for (guint i = 0; i < entries->len; i++)
    {
      const ArchEntry *entry = entries->pdata[i];

      if (entry->description != NULL && entry->description[0] != '\0')
        g_print ("      %s: %s\n", entry->name, entry->description);
      else
        g_print ("      %s\n", entry->name);
      if (entry->params != NULL)
        print_param_table (entry->params, "        ");
      else
        g_print ("        parameters unavailable (see Problems)\n");
    }
}

static void
print_search (const FfmPluginInfo *info)
{
  print_plugin_header (info);
  g_print ("    parameters:\n");
  print_param_table (info->descriptor->vtable.search->params, "      ");
}

/* The classes of an estimator as a table (of its FfmCliTable). */
static FfmCliTable *
estimator_classes_table (const char *plugin, const FfmEstimatorClass *classes)
{
  FfmCliTable *t = ffm_cli_table_new ("classes", NULL);

  if (plugin != NULL)
    ffm_cli_table_add_text_column (t, "plugin", "plugin");
  ffm_cli_table_add_text_column (t, "class", "CLASS");
  ffm_cli_table_add_text_column (t, "actions", "ACTIONS");
  ffm_cli_table_add_text_column (t, "attributes", "ATTRIBUTES");
  ffm_cli_table_add_text_column (t, "source", "SOURCE");
  for (const FfmEstimatorClass *c = classes; c->name != NULL; c++)
    {
      ffm_cli_table_add_row (t);
      if (plugin != NULL)
        ffm_cli_table_cell (t, plugin, NULL);
      ffm_cli_table_cell (t, c->name, NULL);
      ffm_cli_table_cell (t, c->actions, NULL);
      ffm_cli_table_cell (t, c->attributes, NULL);
      ffm_cli_table_cell (t, c->source, NULL);
    }
  return t;
}

static void
print_estimator (const FfmPluginInfo *info)
{
  g_autoptr (FfmCliTable) t = estimator_classes_table (
    NULL, info->descriptor->vtable.estimator->classes);
  g_autoptr (GString) text = g_string_new (NULL);

  print_plugin_header (info);
  g_print ("    classes:\n");
  ffm_cli_table_append_text (t, text);
  /* Indent the table under the plugin like the parameter tables. */
  {
    g_auto (GStrv) lines = g_strsplit (text->str, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++)
      if (lines[i][0] != '\0')
        g_print ("    %s\n", lines[i]);
  }
}

/* ---- Policies ---- */

/* Each policy (ffm-constraints.h) by name, loaded (NULL where it does not
 * load: its error goes to @problems). */
static GPtrArray *
read_policies (GStrv *names, GPtrArray *problems)
{
  GPtrArray *loaded = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_constraints_unref);

  *names = ffm_constraints_list_policies ();
  for (guint i = 0; (*names)[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      FfmConstraints *c = ffm_constraints_load_policy ((*names)[i], &error);
      if (c == NULL)
        g_ptr_array_add (problems, g_strdup_printf ("policy %s: %s", (*names)[i],
                                                    error->message));
      g_ptr_array_add (loaded, c);
    }
  return loaded;
}

static void
print_policies (GPtrArray *problems)
{
  g_auto (GStrv) names = NULL;
  g_autoptr (GPtrArray) loaded = read_policies (&names, problems);

  g_print ("\nPolicies (ffm map --policy NAME):\n");
  if (names[0] == NULL)
    g_print ("\n  none found\n");
  for (guint i = 0; names[i] != NULL; i++)
    {
      const FfmConstraints *c = loaded->pdata[i];
      const char *d = c != NULL ? ffm_constraints_get_description (c) : NULL;
      g_print ("\n  %s: %s\n", names[i], d != NULL ? d : "(no description)");
      for (guint k = 0; c != NULL && k < ffm_constraints_get_n (c); k++)
        {
          g_autofree char *line = ffm_constraints_describe (c, k);
          char *paren = g_strrstr (line, " (");
          if (paren != NULL)
            *paren = '\0';   /* the origin, last, is the policy file */
          g_print ("    %s\n", line);
        }
    }
}

static void
print_text (const FfmPluginRegistry *registry)
{
  const GPtrArray *plugins = ffm_plugin_registry_get_plugins (registry);
  const GPtrArray *failures = ffm_plugin_registry_get_failures (registry);
  g_autoptr (GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  static const FfmPluginKind kinds[] = { FFM_PLUGIN_KIND_ARCH_MODEL,
                                         FFM_PLUGIN_KIND_SEARCH,
                                         FFM_PLUGIN_KIND_ESTIMATOR };
  static const char *const titles[] = { "Architecture models:", "Search strategies:",
                                        "Component estimators (ffm estimate CLASS):" };

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      gboolean any = FALSE;

      g_print ("%s%s\n", k > 0 ? "\n" : "", titles[k]);
      for (guint i = 0; i < plugins->len; i++)
        {
          const FfmPluginInfo *info = plugins->pdata[i];
          if (info->descriptor->kind != kinds[k])
            continue;
          g_print ("\n");
          if (kinds[k] == FFM_PLUGIN_KIND_ARCH_MODEL)
            print_arch_model (registry, info, problems);
          else if (kinds[k] == FFM_PLUGIN_KIND_SEARCH)
            print_search (info);
          else
            print_estimator (info);
          any = TRUE;
        }
      if (!any)
        g_print ("\n  none found\n");
    }
  print_policies (problems);

  if (failures->len == 0 && problems->len == 0)
    return;
  g_print ("\nProblems:\n\n");
  for (guint i = 0; i < failures->len; i++)
    g_print ("  %s\n", ((const GError *) failures->pdata[i])->message);
  for (guint i = 0; i < problems->len; i++)
    g_print ("  %s\n", (const char *) problems->pdata[i]);
}

/* ---- JSON ---- */

static void
add_plugin_json (FfmJsonWriter *b, const FfmPluginRegistry *registry,
                 const FfmPluginInfo *info, GPtrArray *problems)
{
  const FfmPluginDescriptor *desc = info->descriptor;

  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_string (b, "kind", ffm_plugin_kind_to_string (desc->kind));
  ffm_json_writer_member_string (b, "name", desc->name);
  ffm_json_writer_member_string (b, "version", desc->version);
  ffm_json_writer_member_string (b, "summary", desc->summary);
  ffm_json_writer_member_string (b, "path", info->path);

  if (desc->kind == FFM_PLUGIN_KIND_ARCH_MODEL)
    {
      g_autoptr (GPtrArray) entries = read_architectures (registry, info, problems);

      ffm_json_writer_key (b, "architectures");
      ffm_json_writer_begin_array (b);
      for (guint i = 0; i < entries->len; i++)
        {
          const ArchEntry *entry = entries->pdata[i];

          ffm_json_writer_begin_object (b);
          ffm_json_writer_member_string (b, "name", entry->name);
          ffm_json_writer_member_string (b, "description", entry->description);
          if (entry->params != NULL)
            add_param_json (b, entry->params);
          ffm_json_writer_end_object (b);
        }
      ffm_json_writer_end_array (b);
    }
  else if (desc->kind == FFM_PLUGIN_KIND_SEARCH)
    add_param_json (b, desc->vtable.search->params);
  else
    {
      ffm_json_writer_key (b, "classes");
      ffm_json_writer_begin_array (b);
      for (const FfmEstimatorClass *c = desc->vtable.estimator->classes;
           c->name != NULL; c++)
        {
          ffm_json_writer_begin_object_inline (b);
          ffm_json_writer_member_string (b, "name", c->name);
          ffm_json_writer_member_string (b, "actions", c->actions);
          ffm_json_writer_member_string (b, "attributes", c->attributes);
          ffm_json_writer_member_string (b, "source", c->source);
          ffm_json_writer_end_object (b);
        }
      ffm_json_writer_end_array (b);
    }
  ffm_json_writer_end_object (b);
}

static char *
list_json (const FfmPluginRegistry *registry)
{
  const GPtrArray *plugins = ffm_plugin_registry_get_plugins (registry);
  const GPtrArray *failures = ffm_plugin_registry_get_failures (registry);
  g_autoptr (GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
  g_autofree char *text = NULL;

  ffm_json_writer_begin_object (b);
  ffm_json_writer_key (b, "plugins");
  ffm_json_writer_begin_array (b);
  /* Same order as the text: arch models, search strategies, estimators. */
  for (int kind = FFM_PLUGIN_KIND_ARCH_MODEL; kind <= FFM_PLUGIN_KIND_ESTIMATOR; kind++)
    for (guint i = 0; i < plugins->len; i++)
      {
        const FfmPluginInfo *info = plugins->pdata[i];
        if ((int) info->descriptor->kind == kind)
          add_plugin_json (b, registry, info, problems);
      }
  ffm_json_writer_end_array (b);

  {
    g_auto (GStrv) names = NULL;
    g_autoptr (GPtrArray) loaded = read_policies (&names, problems);
    ffm_json_writer_key (b, "policies");
    ffm_json_writer_begin_array (b);
    for (guint i = 0; names[i] != NULL; i++)
      if (loaded->pdata[i] != NULL)
        ffm_constraints_write_json (loaded->pdata[i], b);
    ffm_json_writer_end_array (b);
  }

  ffm_json_writer_key (b, "problems");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < failures->len; i++)
    ffm_json_writer_string (b, ((const GError *) failures->pdata[i])->message);
  for (guint i = 0; i < problems->len; i++)
    ffm_json_writer_string (b, problems->pdata[i]);
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);

  text = ffm_json_writer_finish (b);
  return g_steal_pointer (&text);
}

/* ---- Tables and names ---- */

static void
add_param_rows (FfmCliTable *t, const char *plugin, const char *arch,
                const FfmParamSpec *specs)
{
  for (guint i = 0; specs != NULL && specs[i].name != NULL; i++)
    {
      g_autofree char *help = param_help_line (&specs[i]);
      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, plugin, NULL);
      ffm_cli_table_cell (t, arch, NULL);
      ffm_cli_table_cell (t, specs[i].name, NULL);
      ffm_cli_table_cell (t, ffm_param_type_to_string (specs[i].type), NULL);
      ffm_cli_table_cell (t, param_default_text (&specs[i]),
                          specs[i].default_value != NULL ? specs[i].default_value : "");
      ffm_cli_table_cell (t, help, NULL);
    }
}

/* Plugins, architectures and parameters as tables (of FfmCliTable*). */
static GPtrArray *
list_tables (const FfmPluginRegistry *registry)
{
  const GPtrArray *plugins = ffm_plugin_registry_get_plugins (registry);
  g_autoptr (GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *tables = ffm_cli_tables_new ();
  FfmCliTable *pt = ffm_cli_table_new ("plugins", NULL);
  FfmCliTable *at = ffm_cli_table_new ("architectures", NULL);
  FfmCliTable *params = ffm_cli_table_new ("parameters", NULL);
  FfmCliTable *classes = NULL;

  ffm_cli_table_add_text_column (pt, "kind", "kind");
  ffm_cli_table_add_text_column (pt, "plugin", "plugin");
  ffm_cli_table_add_text_column (pt, "version", "version");
  ffm_cli_table_add_text_column (pt, "summary", "summary");
  ffm_cli_table_add_text_column (pt, "file", "file");
  ffm_cli_table_add_text_column (at, "plugin", "plugin");
  ffm_cli_table_add_text_column (at, "architecture", "architecture");
  ffm_cli_table_add_text_column (at, "description", "description");
  ffm_cli_table_add_text_column (params, "plugin", "plugin");
  ffm_cli_table_add_text_column (params, "architecture", "architecture");
  ffm_cli_table_add_text_column (params, "parameter", "parameter");
  ffm_cli_table_add_text_column (params, "type", "type");
  ffm_cli_table_add_text_column (params, "default", "default");
  ffm_cli_table_add_text_column (params, "help", "help");
  for (guint i = 0; i < plugins->len; i++)
    {
      const FfmPluginInfo *info = plugins->pdata[i];
      const FfmPluginDescriptor *desc = info->descriptor;

      ffm_cli_table_add_row (pt);
      ffm_cli_table_cell (pt, ffm_plugin_kind_to_string (desc->kind), NULL);
      ffm_cli_table_cell (pt, desc->name, NULL);
      ffm_cli_table_cell (pt, desc->version, NULL);
      ffm_cli_table_cell (pt, desc->summary, NULL);
      ffm_cli_table_cell (pt, info->path, NULL);
      if (desc->kind == FFM_PLUGIN_KIND_ARCH_MODEL)
        {
          g_autoptr (GPtrArray) entries = read_architectures (registry, info, problems);
          for (guint k = 0; k < entries->len; k++)
            {
              const ArchEntry *entry = entries->pdata[k];
              ffm_cli_table_add_row (at);
              ffm_cli_table_cell (at, desc->name, NULL);
              ffm_cli_table_cell (at, entry->name, NULL);
              ffm_cli_table_cell (at, entry->description != NULL ? entry->description : "",
                                  NULL);
              add_param_rows (params, desc->name, entry->name, entry->params);
            }
        }
      else if (desc->kind == FFM_PLUGIN_KIND_SEARCH)
        add_param_rows (params, desc->name, "", desc->vtable.search->params);
      else if (classes == NULL)
        classes = estimator_classes_table (desc->name,
                                           desc->vtable.estimator->classes);
      else
        {
          /* Further estimators' rows go into the same table. */
          for (const FfmEstimatorClass *c = desc->vtable.estimator->classes;
               c->name != NULL; c++)
            {
              ffm_cli_table_add_row (classes);
              ffm_cli_table_cell (classes, desc->name, NULL);
              ffm_cli_table_cell (classes, c->name, NULL);
              ffm_cli_table_cell (classes, c->actions, NULL);
              ffm_cli_table_cell (classes, c->attributes, NULL);
              ffm_cli_table_cell (classes, c->source, NULL);
            }
        }
    }
  g_ptr_array_add (tables, pt);
  g_ptr_array_add (tables, at);
  g_ptr_array_add (tables, params);
  if (classes != NULL)
    g_ptr_array_add (tables, classes);
  return tables;
}

/* "architecture NAME" for each architecture (as --arch takes it: the bare
 * name when the first model offering it is this one, else MODEL:NAME) and
 * "strategy NAME" for each strategy. */
static void
print_names (const FfmPluginRegistry *registry)
{
  const GPtrArray *plugins = ffm_plugin_registry_get_plugins (registry);
  g_auto (GStrv) archs = ffm_plugin_registry_list_architectures (registry);
  g_autoptr (GString) out = g_string_new (NULL);

  for (guint i = 0; archs[i] != NULL; i++)
    {
      const char *bare = strchr (archs[i], ':') + 1;
      const FfmPluginInfo *model = NULL;
      g_autofree char *resolved = NULL;
      gboolean first = ffm_plugin_registry_resolve_arch (registry, bare, &model, &resolved, NULL)
                       && model != NULL
                       && g_str_has_prefix (archs[i], model->descriptor->name)
                       && archs[i][strlen (model->descriptor->name)] == ':';
      g_string_append_printf (out, "architecture %s\n", first ? bare : archs[i]);
    }
  for (guint i = 0; i < plugins->len; i++)
    {
      const FfmPluginInfo *info = plugins->pdata[i];
      if (info->descriptor->kind == FFM_PLUGIN_KIND_SEARCH)
        g_string_append_printf (out, "strategy %s\n", info->descriptor->name);
    }
  g_print ("%s", out->str);
}

/* ---- Paths ---- */

static void
print_dirs (const char *title, char **dirs)
{
  g_print ("%s\n", title);
  for (guint i = 0; dirs[i] != NULL; i++)
    g_print ("  %s%s\n", dirs[i],
             g_file_test (dirs[i], G_FILE_TEST_IS_DIR) ? "" : " (missing)");
}

static void
print_paths (const FfmCliCommon *common)
{
  g_autoptr (FfmPluginRegistry) registry = ffm_plugin_registry_new ();
  g_auto (GStrv) plugin_dirs = NULL;
  g_auto (GStrv) workload_dirs = ffm_paths_data_dirs ("workloads");
  g_auto (GStrv) arch_dirs = ffm_paths_data_dirs ("architectures");
  g_auto (GStrv) policy_dirs = ffm_paths_data_dirs ("policies");

  /* No scan: only the folders are wanted. */
  for (guint i = 0; common->plugin_dirs != NULL && common->plugin_dirs[i] != NULL; i++)
    ffm_plugin_registry_add_dir (registry, common->plugin_dirs[i]);
  plugin_dirs = ffm_plugin_registry_get_search_path (registry);

  print_dirs ("Plugin folders:", plugin_dirs);
  print_dirs ("Workload folders:", workload_dirs);
  print_dirs ("Architecture folders:", arch_dirs);
  print_dirs ("Policy folders:", policy_dirs);
}

/* ---- The command ---- */

int
ffm_cmd_list (int argc, char **argv)
{
  ListOptions options = { FFM_CLI_COMMON_INIT, FFM_CLI_OUTPUT_OPTIONS_INIT, FALSE, FALSE };
  const GOptionEntry entries[] = {
    { "names", 0, 0, G_OPTION_ARG_NONE, &options.names,
      "Print only the names --arch and --strategy take, one per line", NULL },
    { "paths", 0, 0, G_OPTION_ARG_NONE, &options.paths,
      "Print the folders searched for plugins, workloads and architectures", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autofree char *description = NULL;
  g_auto (GStrv) positional = NULL;
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (GError) error = NULL;
  int status = FFM_EXIT_OK;
  gboolean machine;

  description = ffm_cli_describe (list_description, "architectures.md");
  context = ffm_cli_context_new (COMMAND, NULL, description);
  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_output_options (context, &options.output, "the plugins");
  ffm_cli_add_common_options (context, &options.common, TRUE);

  machine = FALSE;
  if (!ffm_cli_parse (context, COMMAND, &options.common, NULL, argc, argv, &positional))
    status = FFM_EXIT_USAGE;
  else if (positional[0] != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "unexpected argument '%s'",
                                  positional[0]);
  else if ((machine = options.output.json != NULL || options.output.csv != NULL)
           && (options.paths || options.names))
    status = ffm_cli_usage_error (context, COMMAND, "--%s cannot be used with --json "
                                  "or --csv", options.paths ? "paths" : "names");
  else if (options.paths && options.names)
    status = ffm_cli_usage_error (context, COMMAND,
                                  "--paths and --names cannot be used together");
  else if (ffm_cli_output_options_conflict (&options.output) != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "%s",
                                  ffm_cli_output_options_conflict (&options.output));
  else if (options.paths)
    print_paths (&options.common);
  else
    {
      registry = ffm_cli_registry_new (&options.common);
      if (options.names)
        print_names (registry);
      else
        {
          g_autofree char *json = options.output.json != NULL ? list_json (registry) : NULL;
          g_autoptr (GPtrArray) tables = options.output.csv != NULL ? list_tables (registry)
                                                                    : NULL;
          if (ffm_cli_output_wants_text (&options.output))
            print_text (registry);
          if (!ffm_cli_output_write_results (&options.output, json, tables, &error))
            status = ffm_cli_fail (COMMAND, error);
        }
    }

  ffm_cli_output_options_clear (&options.output);
  ffm_cli_common_clear (&options.common);
  return status;
}
