/* ffm-cli-report.c: the report of one evaluated mapping
 * (ffm-cli-report.h). */
#include "ffm-cli-report.h"
#include "ffm-cli-fairness.h"
#include "ffm-cli-table.h"

#include <math.h>
#include <string.h>

/* ---- What the report derives ---- */

static const char *
level_kind (const FfmLevel *level)
{
  return level->kind == FFM_LEVEL_MEMORY ? "memory"
    : level->kind == FFM_LEVEL_FANOUT ? "fanout" : "compute";
}

/* Read and write energy of memory @l over every Einsum, J. */
static void
level_read_write_energy (const FfmCostReport *r, guint l, double *read_j, double *write_j)
{
  *read_j = *write_j = 0;
  for (guint i = 0; i < ffm_cost_report_get_n_einsums (r); i++)
    {
      double rj, wj;
      ffm_cost_report_get_level_action_energy (r, i, l, &rj, &wj);
      *read_j += rj;
      *write_j += wj;
    }
}

static double
total_leak (const FfmCostReport *r)
{
  double leak = 0;

  for (guint l = 0; l < ffm_arch_get_n_levels (ffm_cost_report_get_arch (r)); l++)
    leak += ffm_cost_report_get_level_leak (r, l);
  return leak;
}

/* ---- Fusion decisions ---- */

/* Where @tensor is backed on the path of @e: the memory of its first
 * storage node, and the loops of more than one iteration above it. */
static int
backing_on_path (const FfmArch *a, const GPtrArray *path, const FfmEinsum *e,
                 const char *tensor, guint *loops_above)
{
  guint64 tiles[FFM_MAX_EINSUM_RANK_VARS];
  guint loops = 0;

  memcpy (tiles, e->rank_var_bounds, sizeof tiles);
  for (guint k = 0; k < path->len; k++)
    {
      const FfmMappingNode *n = g_ptr_array_index (path, k);
      if (n->kind == FFM_NODE_TEMPORAL || n->kind == FFM_NODE_SPATIAL)
        {
          int v = ffm_einsum_find_rank_var (e, ffm_mapping_node_get_rank_var_for (n, e->name));
          if (v >= 0 && n->tile > 0)
            {
              if (n->tile < tiles[v])     /* more than one iteration */
                loops++;
              tiles[v] = n->tile;
            }
        }
      else if (n->kind == FFM_NODE_STORAGE
               && g_strv_contains ((const char *const *) n->tensors, tensor))
        {
          *loops_above = loops;
          return ffm_arch_find_level (a, n->level);
        }
    }
  return -1;
}

GArray *
ffm_cli_report_fusion_decisions (const FfmCostReport *r)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  const FfmArch *a = ffm_cost_report_get_arch (r);
  g_autoptr (GPtrArray) paths = ffm_mapping_dup_paths (ffm_cost_report_get_mapping (r));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (FfmCliFusion));

  for (guint t = 0; t < ffm_workload_get_n_tensors (w); t++)
    {
      const FfmTensor *tensor = ffm_workload_get_tensor (w, t);
      const FfmEinsum *e;
      FfmCliFusion f = { tensor->name, NULL, -1, FALSE, 0 };

      if (!(tensor->classes & FFM_TENSOR_INTERMEDIATE) || tensor->producer == G_MAXUINT)
        continue;
      e = ffm_workload_get_einsum (w, tensor->producer);
      f.producer = e->name;
      for (guint p = 0; p < paths->len; p++)
        {
          const GPtrArray *path = g_ptr_array_index (paths, p);
          const FfmMappingNode *last = g_ptr_array_index (path, path->len - 1);
          if (g_strcmp0 (last->einsum, e->name) == 0)
            f.level = backing_on_path (a, path, e, tensor->name, &f.loops);
        }
      f.on_chip = f.level > 0;
      g_array_append_val (out, f);
    }
  return out;
}

/* ---- Tables ---- */

static FfmCliTable *
totals_table (const FfmCostReport *r)
{
  FfmCliTable *t = ffm_cli_table_new ("totals", NULL);
  double area = ffm_arch_get_area (ffm_cost_report_get_arch (r));
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "leak_energy_j", "leak");
  ffm_cli_table_add_column (t, "latency_s", "latency");
  ffm_cli_table_add_column (t, "edp_js", "EDP");
  ffm_cli_table_add_column (t, "fits", "fits");
  ffm_cli_table_add_column (t, "area_m2", "area");
  ffm_cli_table_add_row (t);
  ffm_cli_table_cell_quantity (t, ffm_cost_report_get_energy (r), "J");
  ffm_cli_table_cell_quantity (t, total_leak (r), "J");
  ffm_cli_table_cell_quantity (t, ffm_cost_report_get_latency (r), "s");
  ffm_cli_table_cell_quantity (t, ffm_cost_report_get_edp (r), "J*s");
  ffm_cli_table_cell_boolean (t, ffm_cost_report_fits (r));
  if (area > 0)
    ffm_cli_table_cell_area (t, area);
  else
    ffm_cli_table_cell_empty (t);
  return t;
}

static FfmCliTable *
per_einsum_table (const FfmCostReport *r)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  const FfmArch *a = ffm_cost_report_get_arch (r);
  FfmCliTable *t = ffm_cli_table_new ("per_einsum", "Per Einsum");

  ffm_cli_table_add_text_column (t, "einsum", "Einsum");
  ffm_cli_table_add_text_column (t, "compute", "compute");
  ffm_cli_table_add_column (t, "operations", "operations");
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "latency_s", "latency");
  ffm_cli_table_add_text_column (t, "bounded_by", "bounded by");
  ffm_cli_table_add_column (t, "compute_utilization", "compute busy");
  ffm_cli_table_add_text_column (t, "status", "status");
  for (guint i = 0; i < ffm_cost_report_get_n_einsums (r); i++)
    {
      const FfmPmappingCost *c = ffm_cost_report_get_cost (r, i);
      int bound = ffm_cost_report_get_bounding_level (r, i);
      double busy = ffm_cost_report_get_compute_utilization (r, i);

      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, ffm_workload_get_einsum (w, ffm_cost_report_get_einsum (r, i))->name, NULL);
      ffm_cli_table_cell (t, ffm_arch_get_level (a, ffm_pmapping_model_get_compute_level (
                                                   ffm_cost_report_get_model (r, i)))->name, NULL);
      ffm_cli_table_cell_count (t, c->operations);
      ffm_cli_table_cell_quantity (t, c->energy, "J");
      ffm_cli_table_cell_quantity (t, c->latency, "s");
      if (bound >= 0)
        ffm_cli_table_cell (t, ffm_arch_get_level (a, (guint) bound)->name, NULL);
      else
        ffm_cli_table_cell_empty (t);
      if (isnan (busy))
        ffm_cli_table_cell_empty (t);
      else
        ffm_cli_table_cell_percent (t, busy);
      ffm_cli_table_cell (t, ffm_cost_status_to_string (c->status), NULL);
    }
  return t;
}

static FfmCliTable *
per_component_table (const FfmCostReport *r)
{
  const FfmArch *a = ffm_cost_report_get_arch (r);
  double energy = ffm_cost_report_get_energy (r);
  gboolean any_area = ffm_arch_get_area (a) > 0;
  FfmCliTable *t = ffm_cli_table_new ("per_component", "Per component (all Einsums)");

  ffm_cli_table_add_text_column (t, "component", "component");
  ffm_cli_table_add_text_column (t, "kind", "kind");
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "energy_share", "share");
  ffm_cli_table_add_column (t, "read_energy_j", "reads");
  ffm_cli_table_add_column (t, "write_energy_j", "writes");
  ffm_cli_table_add_column (t, "leak_energy_j", "leak");
  ffm_cli_table_add_column (t, "peak_occupancy_bits", "peak occupancy");
  ffm_cli_table_add_column (t, "size_bits", "size");
  ffm_cli_table_add_column (t, "occupancy_share", "used");
  if (any_area)
    ffm_cli_table_add_column (t, "area_m2", "area");
  for (guint l = 0; l < ffm_arch_get_n_levels (a); l++)
    {
      const FfmLevel *level = ffm_arch_get_level (a, l);
      gboolean memory = level->kind == FFM_LEVEL_MEMORY;
      double e = ffm_cost_report_get_level_energy (r, l);

      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, level->name, NULL);
      ffm_cli_table_cell (t, level_kind (level), NULL);
      ffm_cli_table_cell_quantity (t, e, "J");
      if (energy > 0)
        ffm_cli_table_cell_percent (t, e / energy);
      else
        ffm_cli_table_cell_empty (t);
      if (memory)
        {
          double rj, wj, size = ffm_cost_report_get_level_size (r, l);
          double peak = ffm_cost_report_get_peak_occupancy (r, l);
          level_read_write_energy (r, l, &rj, &wj);
          ffm_cli_table_cell_quantity (t, rj, "J");
          ffm_cli_table_cell_quantity (t, wj, "J");
          ffm_cli_table_cell_quantity (t, ffm_cost_report_get_level_leak (r, l), "J");
          ffm_cli_table_cell_quantity (t, peak, "b");
          if (isinf (size))
            ffm_cli_table_cell (t, "unbounded", "inf");
          else
            ffm_cli_table_cell_quantity (t, size, "b");
          if (isfinite (size) && size > 0)
            ffm_cli_table_cell_percent (t, peak / size);
          else
            ffm_cli_table_cell_empty (t);
        }
      else
        {
          ffm_cli_table_cell_empty (t);
          ffm_cli_table_cell_empty (t);
          ffm_cli_table_cell_quantity (t, ffm_cost_report_get_level_leak (r, l), "J");
          ffm_cli_table_cell_empty (t);
          ffm_cli_table_cell_empty (t);
          ffm_cli_table_cell_empty (t);
        }
      if (any_area && ffm_arch_get_level_area (a, l) > 0)
        ffm_cli_table_cell_area (t, ffm_arch_get_level_area (a, l));
      else if (any_area)
        ffm_cli_table_cell_empty (t);
    }
  return t;
}

/* Who gave the numbers of the levels sized by component estimators
 * (ffm-estimator.h); NULL when none was. */
static FfmCliTable *
estimates_table (const FfmCostReport *r)
{
  const FfmArch *a = ffm_cost_report_get_arch (r);
  FfmCliTable *t = NULL;

  for (guint l = 0; l < ffm_arch_get_n_levels (a); l++)
    {
      const FfmLevel *level = ffm_arch_get_level (a, l);
      if (level->estimated_by == NULL)
        continue;
      if (t == NULL)
        {
          t = ffm_cli_table_new ("estimates", "Component estimates (who gave the numbers)");
          ffm_cli_table_add_text_column (t, "component", "component");
          ffm_cli_table_add_text_column (t, "estimated_by", "estimated by");
        }
      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, level->name, NULL);
      ffm_cli_table_cell (t, level->estimated_by, NULL);
    }
  return t;
}

static FfmCliTable *
fanout_table (const FfmCostReport *r)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  const FfmArch *a = ffm_cost_report_get_arch (r);
  FfmCliTable *t = ffm_cli_table_new ("fanouts", "Fanout utilization (instances used)");

  ffm_cli_table_add_text_column (t, "einsum", "Einsum");
  ffm_cli_table_add_text_column (t, "fanout", "fanout");
  ffm_cli_table_add_column (t, "used", "used");
  ffm_cli_table_add_column (t, "count", "of");
  ffm_cli_table_add_column (t, "utilization", "utilization");
  for (guint i = 0; i < ffm_cost_report_get_n_einsums (r); i++)
    {
      const FfmPmappingModel *m = ffm_cost_report_get_model (r, i);
      const FfmPmappingCost *c = ffm_cost_report_get_cost (r, i);
      for (guint d = 0; d < ffm_pmapping_model_get_n_fanout_dims (m); d++)
        {
          const FfmFanoutDimInfo *info = ffm_pmapping_model_get_fanout_dim (m, d);
          const FfmLevel *level = ffm_arch_get_level (a, info->level);

          ffm_cli_table_add_row (t);
          ffm_cli_table_cell (t, ffm_workload_get_einsum (w, ffm_cost_report_get_einsum (r, i))->name,
                              NULL);
          ffm_cli_table_cell_take (t, g_strdup_printf ("%s.%s", level->name,
                                                       level->u.fanout.dims[info->dim].name),
                                   NULL);
          ffm_cli_table_cell_count (t, c->fanout_used[d]);
          ffm_cli_table_cell_count (t, info->count);
          ffm_cli_table_cell_percent (t, (double) c->fanout_used[d] / (double) info->count);
        }
    }
  return t;
}

static FfmCliTable *
per_tensor_table (const FfmCostReport *r)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  FfmCliTable *t = ffm_cli_table_new ("per_tensor", "Per tensor (all Einsums, all memories)");

  ffm_cli_table_add_text_column (t, "tensor", "tensor");
  ffm_cli_table_add_text_column (t, "class", "class");
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "read_actions", "read actions");
  ffm_cli_table_add_column (t, "write_actions", "write actions");
  for (guint i = 0; i < ffm_workload_get_n_tensors (w); i++)
    {
      double energy, reads, writes;
      ffm_cost_report_get_tensor_totals (r, i, &energy, &reads, &writes);
      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, ffm_workload_get_tensor (w, i)->name, NULL);
      ffm_cli_table_cell (t, ffm_workload_get_tensor_kind (w, i), NULL);
      ffm_cli_table_cell_quantity (t, energy, "J");
      ffm_cli_table_cell_amount (t, reads);
      ffm_cli_table_cell_amount (t, writes);
    }
  return t;
}

static const char *const tensor_kinds[] = { "weight", "input", "intermediate", "output" };

static FfmCliTable *
per_class_table (const FfmCostReport *r)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  guint n_tensors = ffm_workload_get_n_tensors (w);
  g_autofree double *energy = g_new0 (double, MAX (n_tensors, 1));
  FfmCliTable *t = ffm_cli_table_new ("per_tensor_class",
                                      "Per tensor class (memory energy)");
  double all = 0;

  for (guint i = 0; i < n_tensors; i++)
    {
      ffm_cost_report_get_tensor_totals (r, i, &energy[i], NULL, NULL);
      all += energy[i];
    }
  ffm_cli_table_add_text_column (t, "class", "class");
  ffm_cli_table_add_column (t, "tensors", "tensors");
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "energy_share", "share");
  for (guint k = 0; k < G_N_ELEMENTS (tensor_kinds); k++)
    {
      double e = 0;
      guint n = 0;
      for (guint i = 0; i < n_tensors; i++)
        if (strcmp (ffm_workload_get_tensor_kind (w, i), tensor_kinds[k]) == 0)
          {
            e += energy[i];
            n++;
          }
      if (n == 0)
        continue;
      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, tensor_kinds[k], NULL);
      ffm_cli_table_cell_count (t, n);
      ffm_cli_table_cell_quantity (t, e, "J");
      if (all > 0)
        ffm_cli_table_cell_percent (t, e / all);
      else
        ffm_cli_table_cell_empty (t);
    }
  return t;
}

static FfmCliTable *
fusion_table (const FfmCostReport *r, const GArray *fusion)
{
  const FfmArch *a = ffm_cost_report_get_arch (r);
  FfmCliTable *t = ffm_cli_table_new ("fusion", "Tensors passed between Einsums (fusion)");

  ffm_cli_table_add_text_column (t, "tensor", "tensor");
  ffm_cli_table_add_text_column (t, "producer", "from");
  ffm_cli_table_add_text_column (t, "level", "backed in");
  ffm_cli_table_add_text_column (t, "on_chip", "on chip");
  ffm_cli_table_add_column (t, "shared_loops", "shared loops");
  for (guint i = 0; i < fusion->len; i++)
    {
      const FfmCliFusion *f = &g_array_index (fusion, FfmCliFusion, i);
      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, f->tensor, NULL);
      ffm_cli_table_cell (t, f->producer, NULL);
      if (f->level >= 0)
        ffm_cli_table_cell (t, ffm_arch_get_level (a, (guint) f->level)->name, NULL);
      else
        ffm_cli_table_cell_empty (t);
      ffm_cli_table_cell_boolean (t, f->on_chip);
      ffm_cli_table_cell_count (t, f->loops);
    }
  return t;
}

static FfmCliTable *
details_table (const FfmCostReport *r)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  const FfmArch *a = ffm_cost_report_get_arch (r);
  FfmCliTable *t = ffm_cli_table_new ("details",
                                      "Per Einsum, component and tensor (counts in values, "
                                      "actions = values x bits per value / bits per action)");

  ffm_cli_table_add_text_column (t, "einsum", "Einsum");
  ffm_cli_table_add_text_column (t, "component", "component");
  ffm_cli_table_add_text_column (t, "tensor", "tensor");
  ffm_cli_table_add_column (t, "reads", "reads");
  ffm_cli_table_add_column (t, "fills", "fills");
  ffm_cli_table_add_column (t, "drains", "drains");
  ffm_cli_table_add_column (t, "updates", "updates");
  ffm_cli_table_add_column (t, "read_actions", "read act.");
  ffm_cli_table_add_column (t, "write_actions", "write act.");
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "occupancy_bits", "occupancy");
  for (guint i = 0; i < ffm_cost_report_get_n_einsums (r); i++)
    {
      const FfmPmappingModel *m = ffm_cost_report_get_model (r, i);
      const FfmPmappingCost *c = ffm_cost_report_get_cost (r, i);
      const char *einsum = ffm_workload_get_einsum (w, ffm_cost_report_get_einsum (r, i))->name;
      for (guint b = 0; b < c->n_buffets; b++)
        {
          const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (m, b);
          const FfmActionCounts *n = &c->counts[b];

          ffm_cli_table_add_row (t);
          ffm_cli_table_cell (t, einsum, NULL);
          ffm_cli_table_cell (t, ffm_arch_get_level (a, info->level)->name, NULL);
          ffm_cli_table_cell (t, ffm_workload_get_tensor (w, info->tensor)->name, NULL);
          ffm_cli_table_cell_count (t, n->reads);
          ffm_cli_table_cell_count (t, n->fills);
          ffm_cli_table_cell_count (t, n->drains);
          ffm_cli_table_cell_count (t, n->updates);
          ffm_cli_table_cell_amount (t, ffm_buffet_read_actions (info, n));
          ffm_cli_table_cell_amount (t, ffm_buffet_write_actions (info, n));
          ffm_cli_table_cell_quantity (t, ffm_cost_report_get_buffet_energy (r, i, b, NULL, NULL),
                                       "J");
          ffm_cli_table_cell_quantity (t, c->buffet_occupancy[b], "b");
        }
    }
  return t;
}

void
ffm_cli_report_add_tables (const FfmCostReport *r, GPtrArray *tables)
{
  g_autoptr (GArray) fusion = ffm_cli_report_fusion_decisions (r);

  g_ptr_array_add (tables, totals_table (r));
  g_ptr_array_add (tables, per_einsum_table (r));
  g_ptr_array_add (tables, per_component_table (r));
  {
    FfmCliTable *estimates = estimates_table (r);
    if (estimates != NULL)
      g_ptr_array_add (tables, estimates);
  }
  g_ptr_array_add (tables, fanout_table (r));
  g_ptr_array_add (tables, per_tensor_table (r));
  g_ptr_array_add (tables, per_class_table (r));
  g_ptr_array_add (tables, fusion_table (r, fusion));
  g_ptr_array_add (tables, details_table (r));
}

/* ---- Text ---- */

/* The bounds of the rank variables that every Einsum naming them agrees
 * on, for the loop nest. */
static char *
loop_nest_text (const FfmCostReport *r)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) bounds = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GHashTable) ambiguous = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint e = 0; e < ffm_workload_get_n_einsums (w); e++)
    {
      const FfmEinsum *einsum = ffm_workload_get_einsum (w, e);
      for (guint v = 0; v < einsum->n_rank_vars; v++)
        {
          guint k;
          for (k = 0; k < names->len; k++)
            if (strcmp (g_ptr_array_index (names, k), einsum->rank_var_names[v]) == 0)
              break;
          if (k == names->len)
            {
              g_ptr_array_add (names, einsum->rank_var_names[v]);
              g_array_append_val (bounds, einsum->rank_var_bounds[v]);
            }
          else if (g_array_index (bounds, guint64, k) != einsum->rank_var_bounds[v])
            g_hash_table_add (ambiguous, einsum->rank_var_names[v]);
        }
    }
  /* A name with two bounds prints as |name|. */
  for (guint k = names->len; k-- > 0;)
    if (g_hash_table_contains (ambiguous, g_ptr_array_index (names, k)))
      {
        g_ptr_array_remove_index (names, k);
        g_array_remove_index (bounds, k);
      }
  g_ptr_array_add (names, NULL);
  return ffm_mapping_to_loop_nest_string_with_bounds (ffm_cost_report_get_mapping (r),
                                                      (const char *const *) names->pdata,
                                                      (const guint64 *) bounds->data);
}

static void
append_totals (const FfmCostReport *r, GString *out)
{
  const FfmArch *a = ffm_cost_report_get_arch (r);
  double area = ffm_arch_get_area (a);
  g_autofree char *energy = ffm_format_si (ffm_cost_report_get_energy (r), "J");
  g_autofree char *latency = ffm_format_si (ffm_cost_report_get_latency (r), "s");
  g_autofree char *edp = ffm_format_si (ffm_cost_report_get_edp (r), "J*s");
  g_autofree char *leak_text = NULL;
  g_autofree char *note = ffm_cli_fairness_note (a);

  leak_text = ffm_format_si (total_leak (r), "J");
  g_string_append_printf (out, "Energy   %s (leak %s)\n", energy, leak_text);
  g_string_append_printf (out, "Latency  %s\n", latency);
  g_string_append_printf (out, "EDP      %s\n", edp);
  if (area > 0)
    {
      g_autofree char *area_text = ffm_format_area (area);
      g_string_append_printf (out, "Area     %s\n", area_text);
    }
  if (ffm_cost_report_fits (r))
    g_string_append (out, "Fits     yes\n");
  else
    g_string_append_printf (out, "Fits     no: %s\n", ffm_cost_report_get_problem (r));
  if (note != NULL)
    g_string_append_printf (out, "Note     %s\n", note);
}

void
ffm_cli_report_append_text (const FfmCostReport *r, const FfmCliReportOptions *options,
                            GString *out)
{
  g_autoptr (GPtrArray) tables = ffm_cli_tables_new ();
  g_autofree char *tree = ffm_mapping_to_tree_string_for_workload (ffm_cost_report_get_mapping (r),
                                                                   ffm_cost_report_get_workload (r));

  append_totals (r, out);
  ffm_cli_report_add_tables (r, tables);
  /* The totals are above already, as lines. */
  for (guint i = 1; i < tables->len; i++)
    {
      const FfmCliTable *t = g_ptr_array_index (tables, i);
      if (ffm_cli_table_get_n_rows (t) == 0)
        continue;
      g_string_append_c (out, '\n');
      ffm_cli_table_append_text (t, out);
    }
  g_string_append_printf (out, "\nMapping (LoopTree; iterations next to each tile):\n%s", tree);
  if (options != NULL && options->loop_nest)
    {
      g_autofree char *nest = loop_nest_text (r);
      g_string_append_printf (out, "\nLoop nest:\n%s", nest);
    }
}

/* ---- JSON ---- */

void
ffm_cli_report_write_json (const FfmCostReport *r, FfmJsonWriter *b)
{
  const FfmArch *a = ffm_cost_report_get_arch (r);
  g_autoptr (GArray) fusion = ffm_cli_report_fusion_decisions (r);
  g_autoptr (GPtrArray) free_memories = ffm_cli_free_memories (a);
  g_autofree char *note = ffm_cli_fairness_note (a);

  ffm_cost_report_write_json_members (r, b);
  ffm_json_writer_key (b, "notes");
  ffm_json_writer_begin_array (b);
  if (note != NULL)
    ffm_json_writer_string (b, note);
  ffm_json_writer_end_array (b);
  ffm_json_writer_member_boolean (b, "main_memory_charged", ffm_cli_main_memory_is_charged (a));
  ffm_json_writer_key (b, "free_memories");
  ffm_json_writer_begin_array_inline (b);
  for (guint i = 0; i < free_memories->len; i++)
    ffm_json_writer_string (b, g_ptr_array_index (free_memories, i));
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "fused_tensors");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < fusion->len; i++)
    {
      const FfmCliFusion *f = &g_array_index (fusion, FfmCliFusion, i);
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_string (b, "tensor", f->tensor);
      ffm_json_writer_member_string (b, "producer", f->producer);
      ffm_json_writer_member_string (b, "level", f->level >= 0
                                     ? ffm_arch_get_level (a, (guint) f->level)->name : NULL);
      ffm_json_writer_member_boolean (b, "on_chip", f->on_chip);
      ffm_json_writer_member_uint (b, "shared_loops", f->loops);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_member_string (b, "mapping_file", ffm_cost_report_get_source (r));
  ffm_json_writer_key (b, "mapping");
  ffm_mapping_write_json (ffm_cost_report_get_mapping (r), b);
}
