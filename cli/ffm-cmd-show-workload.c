/* ffm-cmd-show-workload.c: `ffm show-workload W [--param K=V]...`, a
 * workload as ffm resolved it, to check at a glance.
 *
 * Prints the header (name, file, description, source, layer), the
 * parameters with the values used, the rank sizes, then every Einsum with
 * its rank-variable bounds, operation count and the tensors it touches
 * (roles, footprint in values and bits), then every tensor (ranks, size,
 * bits, classes, producer, readers) and the totals. The "footprint bits"
 * total counts every tensor of every non-copy Einsum once: the traffic of
 * an unfused run where each tensor crosses main memory exactly once (the
 * accelforge "snowcat" check value, accelforge's workload files). --list prints the
 * workloads found by name instead. --json OUT writes the same as JSON,
 * --csv OUT the Einsums, accesses and tensors as tables ("-": standard
 * output, instead of the text). Exit 0 when the workload loads, 1 with
 * the loader's message when it does not, 2 for usage errors. */
#include "ffm-cli-common.h"
#include "ffm-cli-output.h"
#include "ffm-cli-table.h"

#include <string.h>

#define COMMAND "show-workload"

static const char show_description[] =
  "W is a workload file (a path containing '/' or ending in .json) or the\n"
  "name of a file NAME.json in the workload folders (see --list).\n"
  "Parameters the workload declares are set with --param NAME=VALUE.\n";

typedef struct {
  FfmCliCommon common;
  FfmCliOutputOptions output;   /* --json OUT, --csv OUT */
  char **params;                /* --param KEY=VALUE, repeatable (owned) */
  gboolean list;                /* --list */
} ShowOptions;

/* "b,M:p,h,E:f" for one access, in the tensor's rank order. */
static char *
access_text (const FfmWorkload *w, const FfmEinsum *e, guint a)
{
  const FfmTensorAccess *acc = &e->accesses[a];
  const FfmTensor *t = ffm_workload_get_tensor (w, acc->tensor);
  GString *s = g_string_new (t->name);

  g_string_append_c (s, '[');
  for (guint r = 0; r < t->n_ranks; r++)
    {
      const FfmProjection *p = &acc->projections[r];
      gboolean plain = p->n_terms == 1 && p->terms[0].coefficient == 1 && p->offset == 0;
      g_autofree char *up = plain ? g_ascii_strup (e->rank_var_names[p->terms[0].var], -1)
                                  : NULL;

      if (r > 0)
        g_string_append_c (s, ',');
      if (!plain || strcmp (up, t->rank_names[r]) != 0)
        g_string_append_printf (s, "%s:", t->rank_names[r]);
      for (guint k = 0; k < p->n_terms; k++)
        {
          if (k > 0)
            g_string_append_c (s, '+');
          if (p->terms[k].coefficient != 1)
            g_string_append_printf (s, "%" G_GINT64_FORMAT "*", p->terms[k].coefficient);
          g_string_append (s, e->rank_var_names[p->terms[k].var]);
        }
      if (p->offset != 0 || p->n_terms == 0)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, p->n_terms ? "+" : "", p->offset);
    }
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static const char *
roles_text (guint roles)
{
  static const char *const names[] = {
    "-", "input", "weight", "input+weight", "output", "input+output",
    "weight+output", "input+weight+output",
  };
  return names[roles & 7];
}

static void
print_header (const FfmWorkload *w)
{
  const FfmParamSpec *specs = ffm_workload_get_param_specs (w);
  const FfmParamValues *values = ffm_workload_get_param_values (w);

  g_print ("Workload %s (%s)\n", ffm_workload_get_name (w),
           ffm_workload_get_source_file (w));
  if (ffm_workload_get_description (w) != NULL)
    g_print ("  %s\n", ffm_workload_get_description (w));
  if (ffm_workload_get_data_source (w) != NULL)
    g_print ("  Source: %s\n", ffm_workload_get_data_source (w));
  if (ffm_workload_get_layer (w) != NULL)
    g_print ("  Layer: %s\n", ffm_workload_get_layer (w));
  g_print ("\nParameters:%s\n", specs[0].name == NULL ? " none" : "");
  for (guint i = 0; specs[i].name != NULL; i++)
    {
      const char *value = ffm_param_values_lookup (values, specs[i].name);
      g_print ("  %s = %s  (%s; default %s)%s%s\n", specs[i].name,
               value ? value : "(no value)", ffm_param_type_to_string (specs[i].type),
               specs[i].default_value ? specs[i].default_value : "none",
               specs[i].help ? "  " : "", specs[i].help ? specs[i].help : "");
    }
  g_print ("\nRank sizes:");
  for (guint i = 0; i < ffm_workload_get_n_ranks (w); i++)
    {
      guint64 size;
      const char *name = ffm_workload_get_rank (w, i, &size);
      g_print ("%s %s=%" G_GUINT64_FORMAT, i ? "," : "", name, size);
    }
  g_print ("%s\n", ffm_workload_get_n_ranks (w) ? "" : " none");
}

static void
print_einsums (const FfmWorkload *w)
{
  guint n = ffm_workload_get_n_einsums (w);

  g_print ("\nEinsums (%u, in workload order):\n", n);
  for (guint i = 0; i < n; i++)
    {
      const FfmEinsum *e = ffm_workload_get_einsum (w, i);
      g_autofree char *ops = ffm_format_count (ffm_einsum_get_n_operations (e));

      g_print ("  %u. %s: %s\n", i + 1, e->name, e->text);
      g_print ("     operations %s%s; bounds:", ops, e->is_copy ? " (copy)" : "");
      for (guint v = 0; v < e->n_rank_vars; v++)
        g_print (" %s=%" G_GUINT64_FORMAT, e->rank_var_names[v], e->rank_var_bounds[v]);
      g_print ("\n");
      for (guint a = 0; a < e->n_accesses; a++)
        {
          const FfmTensor *t = ffm_workload_get_tensor (w, e->accesses[a].tensor);
          guint64 values = ffm_einsum_get_access_values (e, a);
          g_autofree char *text = access_text (w, e, a);
          g_autofree char *v = ffm_format_count (values);
          g_autofree char *b = ffm_format_count (values * t->bits_per_value);

          g_print ("     %-6s %-28s %-13s %15s values x %2u bits = %s bits\n",
                   e->accesses[a].is_output ? "writes" : "reads", text,
                   roles_text (e->accesses[a].roles), v, t->bits_per_value, b);
        }
    }
}

static void
print_tensors (const FfmWorkload *w)
{
  guint n = ffm_workload_get_n_tensors (w);

  g_print ("\nTensors (%u):\n", n);
  for (guint t = 0; t < n; t++)
    {
      const FfmTensor *tensor = ffm_workload_get_tensor (w, t);
      guint64 values = ffm_workload_get_tensor_values (w, t);
      g_autoptr (GString) ranks = g_string_new (NULL);
      g_autofree char *classes = ffm_tensor_classes_to_string (tensor->classes);
      g_autofree char *v = ffm_format_count (values);
      g_autofree char *b = ffm_format_count (values * tensor->bits_per_value);
      g_autoptr (GString) readers = g_string_new (NULL);
      guint n_readers;
      const guint *r = ffm_workload_get_tensor_readers (w, t, &n_readers);

      for (guint k = 0; k < tensor->n_ranks; k++)
        g_string_append_printf (ranks, "%s%s", k ? "," : "", tensor->rank_names[k]);
      for (guint k = 0; k < n_readers; k++)
        g_string_append_printf (readers, "%s%s", k ? ", " : "",
                                ffm_workload_get_einsum (w, r[k])->name);
      g_print ("  %-14s [%s] %s values x %u bits = %s bits; %s; written by %s; read by %s\n",
               tensor->name, ranks->str, v, tensor->bits_per_value, b, classes,
               tensor->producer == G_MAXUINT ? "none"
               : ffm_workload_get_einsum (w, tensor->producer)->name,
               n_readers ? readers->str : "none");
    }
}

/* Bits of every tensor of every non-copy Einsum once, and of all tensors. */
static void
total_bits (const FfmWorkload *w, guint64 *footprint_bits, guint64 *tensor_bits)
{
  *footprint_bits = *tensor_bits = 0;
  for (guint i = 0; i < ffm_workload_get_n_einsums (w); i++)
    {
      const FfmEinsum *e = ffm_workload_get_einsum (w, i);
      if (e->is_copy)
        continue;
      for (guint a = 0; a < e->n_accesses; a++)
        *footprint_bits += ffm_einsum_get_access_values (e, a)
                           * ffm_workload_get_tensor (w, e->accesses[a].tensor)->bits_per_value;
    }
  for (guint t = 0; t < ffm_workload_get_n_tensors (w); t++)
    *tensor_bits += ffm_workload_get_tensor_values (w, t)
                    * ffm_workload_get_tensor (w, t)->bits_per_value;
}

static void
print_totals (const FfmWorkload *w)
{
  guint64 footprint_bits, tensor_bits;
  g_autofree char *ops = ffm_format_count (ffm_workload_get_total_operations (w));
  g_autofree char *fb = NULL;
  g_autofree char *tb = NULL;

  total_bits (w, &footprint_bits, &tensor_bits);
  fb = ffm_format_count (footprint_bits);
  tb = ffm_format_count (tensor_bits);
  g_print ("\nTotals: %s operations; %s bits in all tensors; %s footprint bits "
           "(each tensor of each non-copy Einsum once)\n", ops, tb, fb);
}

/* "input+weight" as a JSON array. */
static void
write_roles (FfmJsonWriter *b, guint roles)
{
  static const char *const names[] = { "input", "weight", "output" };

  ffm_json_writer_key (b, "roles");
  ffm_json_writer_begin_array_inline (b);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (roles & (1u << i))
      ffm_json_writer_string (b, names[i]);
  ffm_json_writer_end_array (b);
}

static char *
workload_json (const FfmWorkload *w)
{
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
  const FfmParamSpec *specs = ffm_workload_get_param_specs (w);
  const FfmParamValues *values = ffm_workload_get_param_values (w);
  guint64 footprint_bits, tensor_bits;

  total_bits (w, &footprint_bits, &tensor_bits);
  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_string (b, "name", ffm_workload_get_name (w));
  ffm_json_writer_member_string (b, "file", ffm_workload_get_source_file (w));
  ffm_json_writer_member_string (b, "description", ffm_workload_get_description (w));
  ffm_json_writer_member_string (b, "source", ffm_workload_get_data_source (w));
  ffm_json_writer_member_string (b, "layer", ffm_workload_get_layer (w));
  ffm_json_writer_key (b, "parameters");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; specs[i].name != NULL; i++)
    {
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_string (b, "name", specs[i].name);
      ffm_json_writer_member_string (b, "type", ffm_param_type_to_string (specs[i].type));
      ffm_json_writer_member_string (b, "value", ffm_param_values_lookup (values, specs[i].name));
      ffm_json_writer_member_string (b, "default", specs[i].default_value);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "ranks");
  ffm_json_writer_begin_object_inline (b);
  for (guint i = 0; i < ffm_workload_get_n_ranks (w); i++)
    {
      guint64 size;
      const char *name = ffm_workload_get_rank (w, i, &size);
      ffm_json_writer_member_uint (b, name, size);
    }
  ffm_json_writer_end_object (b);
  ffm_json_writer_key (b, "einsums");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < ffm_workload_get_n_einsums (w); i++)
    {
      const FfmEinsum *e = ffm_workload_get_einsum (w, i);
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "name", e->name);
      ffm_json_writer_member_string (b, "einsum", e->text);
      ffm_json_writer_member_uint (b, "operations", ffm_einsum_get_n_operations (e));
      ffm_json_writer_member_boolean (b, "copy", e->is_copy);
      ffm_json_writer_key (b, "bounds");
      ffm_json_writer_begin_object_inline (b);
      for (guint v = 0; v < e->n_rank_vars; v++)
        ffm_json_writer_member_uint (b, e->rank_var_names[v], e->rank_var_bounds[v]);
      ffm_json_writer_end_object (b);
      ffm_json_writer_key (b, "accesses");
      ffm_json_writer_begin_array (b);
      for (guint a = 0; a < e->n_accesses; a++)
        {
          const FfmTensor *t = ffm_workload_get_tensor (w, e->accesses[a].tensor);
          guint64 n = ffm_einsum_get_access_values (e, a);
          g_autofree char *text = access_text (w, e, a);
          ffm_json_writer_begin_object_inline (b);
          ffm_json_writer_member_string (b, "tensor", t->name);
          ffm_json_writer_member_string (b, "access", text);
          ffm_json_writer_member_boolean (b, "output", e->accesses[a].is_output);
          write_roles (b, e->accesses[a].roles);
          ffm_json_writer_member_uint (b, "values", n);
          ffm_json_writer_member_uint (b, "bits", n * t->bits_per_value);
          ffm_json_writer_end_object (b);
        }
      ffm_json_writer_end_array (b);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "tensors");
  ffm_json_writer_begin_array (b);
  for (guint t = 0; t < ffm_workload_get_n_tensors (w); t++)
    {
      const FfmTensor *tensor = ffm_workload_get_tensor (w, t);
      g_autofree char *classes = ffm_tensor_classes_to_string (tensor->classes);
      guint n_readers;
      const guint *r = ffm_workload_get_tensor_readers (w, t, &n_readers);
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_string (b, "name", tensor->name);
      ffm_json_writer_key (b, "ranks");
      ffm_json_writer_begin_array_inline (b);
      for (guint k = 0; k < tensor->n_ranks; k++)
        ffm_json_writer_string (b, tensor->rank_names[k]);
      ffm_json_writer_end_array (b);
      ffm_json_writer_member_uint (b, "values", ffm_workload_get_tensor_values (w, t));
      ffm_json_writer_member_uint (b, "bits_per_value", tensor->bits_per_value);
      ffm_json_writer_member_string (b, "classes", classes);
      ffm_json_writer_member_string (b, "producer", tensor->producer == G_MAXUINT ? NULL
                                     : ffm_workload_get_einsum (w, tensor->producer)->name);
      ffm_json_writer_key (b, "readers");
      ffm_json_writer_begin_array_inline (b);
      for (guint k = 0; k < n_readers; k++)
        ffm_json_writer_string (b, ffm_workload_get_einsum (w, r[k])->name);
      ffm_json_writer_end_array (b);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_member_uint (b, "operations", ffm_workload_get_total_operations (w));
  ffm_json_writer_member_uint (b, "tensor_bits", tensor_bits);
  ffm_json_writer_member_uint (b, "footprint_bits", footprint_bits);
  ffm_json_writer_end_object (b);
  return ffm_json_writer_finish (b);
}

static GPtrArray *
workload_tables (const FfmWorkload *w)
{
  GPtrArray *tables = ffm_cli_tables_new ();
  FfmCliTable *et = ffm_cli_table_new ("einsums", NULL);
  FfmCliTable *at = ffm_cli_table_new ("accesses", NULL);
  FfmCliTable *tt = ffm_cli_table_new ("tensors", NULL);

  ffm_cli_table_add_text_column (et, "einsum", "Einsum");
  ffm_cli_table_add_text_column (et, "text", "Einsum as written");
  ffm_cli_table_add_column (et, "operations", "operations");
  ffm_cli_table_add_text_column (et, "copy", "copy");
  ffm_cli_table_add_text_column (at, "einsum", "Einsum");
  ffm_cli_table_add_text_column (at, "tensor", "tensor");
  ffm_cli_table_add_text_column (at, "access", "access");
  ffm_cli_table_add_text_column (at, "roles", "roles");
  ffm_cli_table_add_column (at, "values", "values");
  ffm_cli_table_add_column (at, "bits", "bits");
  ffm_cli_table_add_text_column (tt, "tensor", "tensor");
  ffm_cli_table_add_column (tt, "values", "values");
  ffm_cli_table_add_column (tt, "bits_per_value", "bits per value");
  ffm_cli_table_add_text_column (tt, "classes", "classes");
  ffm_cli_table_add_text_column (tt, "producer", "producer");
  for (guint i = 0; i < ffm_workload_get_n_einsums (w); i++)
    {
      const FfmEinsum *e = ffm_workload_get_einsum (w, i);
      ffm_cli_table_add_row (et);
      ffm_cli_table_cell (et, e->name, NULL);
      ffm_cli_table_cell (et, e->text, NULL);
      ffm_cli_table_cell_count (et, ffm_einsum_get_n_operations (e));
      ffm_cli_table_cell_boolean (et, e->is_copy);
      for (guint a = 0; a < e->n_accesses; a++)
        {
          const FfmTensor *t = ffm_workload_get_tensor (w, e->accesses[a].tensor);
          guint64 n = ffm_einsum_get_access_values (e, a);
          ffm_cli_table_add_row (at);
          ffm_cli_table_cell (at, e->name, NULL);
          ffm_cli_table_cell (at, t->name, NULL);
          ffm_cli_table_cell_take (at, access_text (w, e, a), NULL);
          ffm_cli_table_cell (at, roles_text (e->accesses[a].roles), NULL);
          ffm_cli_table_cell_count (at, n);
          ffm_cli_table_cell_count (at, n * t->bits_per_value);
        }
    }
  for (guint t = 0; t < ffm_workload_get_n_tensors (w); t++)
    {
      const FfmTensor *tensor = ffm_workload_get_tensor (w, t);
      ffm_cli_table_add_row (tt);
      ffm_cli_table_cell (tt, tensor->name, NULL);
      ffm_cli_table_cell_count (tt, ffm_workload_get_tensor_values (w, t));
      ffm_cli_table_cell_count (tt, tensor->bits_per_value);
      ffm_cli_table_cell_take (tt, ffm_tensor_classes_to_string (tensor->classes), NULL);
      ffm_cli_table_cell (tt, tensor->producer == G_MAXUINT ? ""
                          : ffm_workload_get_einsum (w, tensor->producer)->name, NULL);
    }
  g_ptr_array_add (tables, et);
  g_ptr_array_add (tables, at);
  g_ptr_array_add (tables, tt);
  return tables;
}

static int
list_workloads (const FfmCliOutputOptions *output)
{
  g_auto (GStrv) names = ffm_workload_list_available ();
  g_auto (GStrv) dirs = ffm_workload_search_dirs ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) tables = ffm_cli_tables_new ();
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
  g_autofree char *json = NULL;
  FfmCliTable *t = ffm_cli_table_new ("workloads", NULL);

  g_ptr_array_add (tables, t);
  ffm_cli_table_add_text_column (t, "workload", "workload");
  ffm_json_writer_begin_object (b);
  ffm_json_writer_key (b, "folders");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; dirs[i] != NULL; i++)
    ffm_json_writer_string (b, dirs[i]);
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "workloads");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; names[i] != NULL; i++)
    {
      ffm_json_writer_string (b, names[i]);
      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, names[i], NULL);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
  json = ffm_json_writer_finish (b);
  if (ffm_cli_output_wants_text (output))
    {
      g_print ("Workload folders, in search order:\n");
      for (guint i = 0; dirs[i] != NULL; i++)
        g_print ("  %s\n", dirs[i]);
      g_print ("Workloads:\n");
      for (guint i = 0; names[i] != NULL; i++)
        g_print ("  %s\n", names[i]);
    }
  if (!ffm_cli_output_write_results (output, json, tables, &error))
    return ffm_cli_fail (COMMAND, error);
  return FFM_EXIT_OK;
}

int
ffm_cmd_show_workload (int argc, char **argv)
{
  ShowOptions options = { FFM_CLI_COMMON_INIT, FFM_CLI_OUTPUT_OPTIONS_INIT, NULL, FALSE };
  const GOptionEntry entries[] = {
    { "param", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &options.params,
      "Set workload parameter KEY to VALUE (repeatable)", "KEY=VALUE" },
    { "list", 0, 0, G_OPTION_ARG_NONE, &options.list,
      "List the workloads that can be named, and where they were found", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autofree char *description = ffm_cli_describe (show_description, "workloads.md");
  g_autoptr (GOptionContext) context =
    ffm_cli_context_new (COMMAND, "W", description);
  g_auto (GStrv) positional = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmParamValues) values = NULL;
  g_autoptr (FfmWorkload) workload = NULL;
  int status;

  ffm_cli_common_init (&options.common);
  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_output_options (context, &options.output, "the workload");
  ffm_cli_add_common_options (context, &options.common, FALSE);
  if (!ffm_cli_parse (context, COMMAND, &options.common, NULL, argc, argv, &positional))
    {
      status = FFM_EXIT_USAGE;
      goto out;
    }
  if (ffm_cli_output_options_conflict (&options.output) != NULL)
    {
      status = ffm_cli_usage_error (context, COMMAND, "%s",
                                    ffm_cli_output_options_conflict (&options.output));
      goto out;
    }
  if (options.list)
    {
      status = positional[0] == NULL ? list_workloads (&options.output)
               : ffm_cli_usage_error (context, COMMAND, "--list takes no workload");
      goto out;
    }
  if (positional[0] == NULL || positional[1] != NULL)
    {
      status = ffm_cli_usage_error (context, COMMAND, positional[0] == NULL
                                    ? "which workload? (give one; --list shows them)"
                                    : "give one workload, not several");
      goto out;
    }
  values = ffm_cli_parse_assignments (options.params, "--param", &error);
  if (values == NULL)
    {
      status = ffm_cli_usage_error (context, COMMAND, "%s", error->message);
      goto out;
    }
  workload = ffm_workload_load (positional[0], values, &error);
  if (workload == NULL)
    {
      status = ffm_cli_fail (COMMAND, error);
      goto out;
    }
  if (ffm_cli_output_wants_text (&options.output))
    {
      print_header (workload);
      print_einsums (workload);
      print_tensors (workload);
      print_totals (workload);
    }
  status = FFM_EXIT_OK;
  {
    g_autofree char *json = options.output.json != NULL ? workload_json (workload) : NULL;
    g_autoptr (GPtrArray) tables = options.output.csv != NULL ? workload_tables (workload)
                                                              : NULL;
    if (!ffm_cli_output_write_results (&options.output, json, tables, &error))
      status = ffm_cli_fail (COMMAND, error);
  }

out:
  ffm_cli_output_options_clear (&options.output);
  ffm_cli_common_clear (&options.common);
  g_strfreev (options.params);
  return status;
}
