/* ffm-cli-report.c: the report of one evaluated mapping
 * (ffm-cli-report.h). */
#include "ffm-cli-report.h"
#include "ffm-cli-fairness.h"
#include "ffm-cli-table.h"

#include <math.h>
#include <string.h>

/* ---- What the report derives ---- */

const char *
ffm_cli_tensor_class (const FfmWorkload *w, guint tensor)
{
  const FfmTensor *t = ffm_workload_get_tensor (w, tensor);

  if (t->classes & FFM_TENSOR_INTERMEDIATE)
    return "intermediate";
  if (t->classes & FFM_TENSOR_OUTPUT)
    return "output";
  for (guint e = 0; e < ffm_workload_get_n_einsums (w); e++)
    {
      const FfmEinsum *einsum = ffm_workload_get_einsum (w, e);
      int a = ffm_einsum_find_access (einsum, tensor);
      if (a >= 0 && (einsum->accesses[a].roles & FFM_ROLE_WEIGHT))
        return "weight";
    }
  return "input";
}

int
ffm_cli_report_bounding_level (const FfmCostReport *report, guint index)
{
  const FfmPmappingCost *c = ffm_cost_report_get_cost (report, index);
  int best = -1;

  for (guint l = 0; l < c->n_levels; l++)
    if (c->level_latency[l] > 0 && (best < 0 || c->level_latency[l] > c->level_latency[best]))
      best = (int) l;
  return best;
}

static const char *
level_kind (const FfmLevel *level)
{
  return level->kind == FFM_LEVEL_MEMORY ? "memory"
    : level->kind == FFM_LEVEL_FANOUT ? "fanout" : "compute";
}

/* Area of all instances of level @l, m^2 (0 when the architecture gives
 * none). */
static double
level_area (const FfmArch *a, guint l)
{
  return ffm_arch_get_level (a, l)->area * (double) ffm_arch_get_instances_above (a, l);
}

static double
total_area (const FfmArch *a)
{
  double area = 0;

  for (guint l = 0; l < ffm_arch_get_n_levels (a); l++)
    area += level_area (a, l);
  return area;
}

/* Fraction of the compute units' time spent computing in the @index-th
 * Einsum: operations / (instances x rate x latency); NAN when unknown. */
static double
compute_utilization (const FfmCostReport *r, guint index)
{
  const FfmArch *a = ffm_cost_report_get_arch (r);
  const FfmPmappingCost *c = ffm_cost_report_get_cost (r, index);
  guint compute = ffm_pmapping_model_get_compute_level (ffm_cost_report_get_model (r, index));
  double rate = ffm_arch_get_level (a, compute)->u.compute.throughput
    * (double) ffm_arch_get_instances_above (a, compute);

  if (c->latency <= 0 || !isfinite (rate) || rate <= 0 || c->operations == 0)
    return NAN;
  return (double) c->operations / rate / c->latency;
}

/* Read and write energy of memory @l in the @index-th Einsum, J. */
static void
einsum_level_read_write_energy (const FfmCostReport *r, guint index, guint l,
                                double *read_j, double *write_j)
{
  const FfmPmappingModel *m = ffm_cost_report_get_model (r, index);

  *read_j = *write_j = 0;
  for (guint b = 0; b < ffm_pmapping_model_get_n_buffets (m); b++)
    {
      double rj, wj;
      if (ffm_pmapping_model_get_buffet (m, b)->level != l)
        continue;
      ffm_cost_report_get_buffet_energy (r, index, b, &rj, &wj);
      *read_j += rj;
      *write_j += wj;
    }
}

/* The same over every Einsum. */
static void
level_read_write_energy (const FfmCostReport *r, guint l, double *read_j, double *write_j)
{
  *read_j = *write_j = 0;
  for (guint i = 0; i < ffm_cost_report_get_n_einsums (r); i++)
    {
      double rj, wj;
      einsum_level_read_write_energy (r, i, l, &rj, &wj);
      *read_j += rj;
      *write_j += wj;
    }
}

/* Read actions (reads and drains) and write actions (fills and updates)
 * of one buffet. */
static double
read_actions (const FfmBuffetInfo *info, const FfmActionCounts *n)
{
  return (double) (n->reads + n->drains) * info->action_scale;
}

static double
write_actions (const FfmBuffetInfo *info, const FfmActionCounts *n)
{
  return (double) (n->fills + n->updates) * info->action_scale;
}

/* Per tensor over every Einsum and memory. */
typedef struct {
  double energy;                /* J */
  double read_actions;
  double write_actions;
} TensorTotals;

static TensorTotals *
tensor_totals (const FfmCostReport *r)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  TensorTotals *out = g_new0 (TensorTotals, MAX (ffm_workload_get_n_tensors (w), 1));

  for (guint i = 0; i < ffm_cost_report_get_n_einsums (r); i++)
    {
      const FfmPmappingModel *m = ffm_cost_report_get_model (r, i);
      const FfmPmappingCost *c = ffm_cost_report_get_cost (r, i);
      for (guint b = 0; b < c->n_buffets; b++)
        {
          const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (m, b);
          const FfmActionCounts *n = &c->counts[b];
          TensorTotals *t = &out[info->tensor];
          t->energy += ffm_cost_report_get_buffet_energy (r, i, b, NULL, NULL);
          t->read_actions += read_actions (info, n);
          t->write_actions += write_actions (info, n);
        }
    }
  return out;
}

/* ---- Fusion decisions ---- */

typedef struct {
  const char *tensor;
  const char *producer;
  int level;                    /* backing memory, -1 unknown */
  gboolean on_chip;             /* backed below the outermost memory */
  guint loops;                  /* shared loops (of more than one iteration)
                                   above the backing node */
} Fusion;

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
              if (tiles[v] / n->tile > 1)
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

/* One entry per tensor that some Einsum writes and another reads. */
static GArray *
fusion_decisions (const FfmCostReport *r)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  const FfmArch *a = ffm_cost_report_get_arch (r);
  g_autoptr (GPtrArray) paths = ffm_mapping_dup_paths (ffm_cost_report_get_mapping (r));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Fusion));

  for (guint t = 0; t < ffm_workload_get_n_tensors (w); t++)
    {
      const FfmTensor *tensor = ffm_workload_get_tensor (w, t);
      const FfmEinsum *e;
      Fusion f = { tensor->name, NULL, -1, FALSE, 0 };

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
  double area = total_area (ffm_cost_report_get_arch (r));
  double leak = 0;

  for (guint l = 0; l < ffm_arch_get_n_levels (ffm_cost_report_get_arch (r)); l++)
    leak += ffm_cost_report_get_level_leak (r, l);
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "leak_energy_j", "leak");
  ffm_cli_table_add_column (t, "latency_s", "latency");
  ffm_cli_table_add_column (t, "edp_js", "EDP");
  ffm_cli_table_add_column (t, "fits", "fits");
  ffm_cli_table_add_column (t, "area_m2", "area");
  ffm_cli_table_add_row (t);
  ffm_cli_table_cell_quantity (t, ffm_cost_report_get_energy (r), "J");
  ffm_cli_table_cell_quantity (t, leak, "J");
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
      int bound = ffm_cli_report_bounding_level (r, i);
      double busy = compute_utilization (r, i);

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
  gboolean any_area = total_area (a) > 0;
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
      if (any_area && level_area (a, l) > 0)
        ffm_cli_table_cell_area (t, level_area (a, l));
      else if (any_area)
        ffm_cli_table_cell_empty (t);
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
per_tensor_table (const FfmCostReport *r, const TensorTotals *totals)
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
      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, ffm_workload_get_tensor (w, i)->name, NULL);
      ffm_cli_table_cell (t, ffm_cli_tensor_class (w, i), NULL);
      ffm_cli_table_cell_quantity (t, totals[i].energy, "J");
      ffm_cli_table_cell_amount (t, totals[i].read_actions);
      ffm_cli_table_cell_amount (t, totals[i].write_actions);
    }
  return t;
}

static const char *const tensor_classes[] = { "weight", "input", "intermediate", "output" };

static FfmCliTable *
per_class_table (const FfmCostReport *r, const TensorTotals *totals)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  FfmCliTable *t = ffm_cli_table_new ("per_tensor_class",
                                      "Per tensor class (memory energy)");
  double all = 0;

  for (guint i = 0; i < ffm_workload_get_n_tensors (w); i++)
    all += totals[i].energy;
  ffm_cli_table_add_text_column (t, "class", "class");
  ffm_cli_table_add_column (t, "tensors", "tensors");
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "energy_share", "share");
  for (guint k = 0; k < G_N_ELEMENTS (tensor_classes); k++)
    {
      double energy = 0;
      guint n = 0;
      for (guint i = 0; i < ffm_workload_get_n_tensors (w); i++)
        if (strcmp (ffm_cli_tensor_class (w, i), tensor_classes[k]) == 0)
          {
            energy += totals[i].energy;
            n++;
          }
      if (n == 0)
        continue;
      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, tensor_classes[k], NULL);
      ffm_cli_table_cell_count (t, n);
      ffm_cli_table_cell_quantity (t, energy, "J");
      if (all > 0)
        ffm_cli_table_cell_percent (t, energy / all);
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
      const Fusion *f = &g_array_index (fusion, Fusion, i);
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
          ffm_cli_table_cell_amount (t, read_actions (info, n));
          ffm_cli_table_cell_amount (t, write_actions (info, n));
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
  g_autofree TensorTotals *totals = tensor_totals (r);
  g_autoptr (GArray) fusion = fusion_decisions (r);

  g_ptr_array_add (tables, totals_table (r));
  g_ptr_array_add (tables, per_einsum_table (r));
  g_ptr_array_add (tables, per_component_table (r));
  g_ptr_array_add (tables, fanout_table (r));
  g_ptr_array_add (tables, per_tensor_table (r, totals));
  g_ptr_array_add (tables, per_class_table (r, totals));
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
  double leak = 0, area = total_area (a);
  g_autofree char *energy = ffm_format_si (ffm_cost_report_get_energy (r), "J");
  g_autofree char *latency = ffm_format_si (ffm_cost_report_get_latency (r), "s");
  g_autofree char *edp = ffm_format_si (ffm_cost_report_get_edp (r), "J*s");
  g_autofree char *leak_text = NULL;
  g_autofree char *note = ffm_cli_fairness_note (a);

  for (guint l = 0; l < ffm_arch_get_n_levels (a); l++)
    leak += ffm_cost_report_get_level_leak (r, l);
  leak_text = ffm_format_si (leak, "J");
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

static void
write_einsum_json (const FfmCostReport *r, FfmJsonWriter *b, guint i)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  const FfmArch *a = ffm_cost_report_get_arch (r);
  const FfmPmappingModel *m = ffm_cost_report_get_model (r, i);
  const FfmPmappingCost *c = ffm_cost_report_get_cost (r, i);
  int bound = ffm_cli_report_bounding_level (r, i);
  double busy = compute_utilization (r, i);

  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_string (b, "name", ffm_workload_get_einsum (w, ffm_cost_report_get_einsum (r, i))->name);
  ffm_json_writer_member_string (b, "compute", ffm_arch_get_level (a, ffm_pmapping_model_get_compute_level (m))->name);
  ffm_json_writer_member_double (b, "energy_j", c->energy);
  ffm_json_writer_member_double (b, "latency_s", c->latency);
  ffm_json_writer_member_double (b, "dynamic_energy_j", c->dynamic_energy);
  ffm_json_writer_member_double (b, "leak_energy_j", c->leak_energy);
  ffm_json_writer_member_uint (b, "operations", c->operations);
  ffm_json_writer_member_string (b, "status", ffm_cost_status_to_string (c->status));
  ffm_json_writer_member_string (b, "bounded_by", bound >= 0 ? ffm_arch_get_level (a, (guint) bound)->name
                                 : NULL);
  if (isnan (busy))
    ffm_json_writer_member_null (b, "compute_utilization");
  else
    ffm_json_writer_member_double (b, "compute_utilization", busy);
  ffm_json_writer_key (b, "per_component");
  ffm_json_writer_begin_array (b);
  for (guint l = 0; l < c->n_levels; l++)
    {
      const FfmLevel *level = ffm_arch_get_level (a, l);
      if (level->kind == FFM_LEVEL_FANOUT)
        continue;
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "name", level->name);
      ffm_json_writer_member_double (b, "energy_j", c->level_energy[l]);
      ffm_json_writer_member_double (b, "latency_s", c->level_latency[l]);
      if (level->kind == FFM_LEVEL_MEMORY)
        {
          double rj, wj;
          einsum_level_read_write_energy (r, i, l, &rj, &wj);
          ffm_json_writer_member_double (b, "read_actions", c->level_read_actions[l]);
          ffm_json_writer_member_double (b, "write_actions", c->level_write_actions[l]);
          ffm_json_writer_member_double (b, "read_energy_j", rj);
          ffm_json_writer_member_double (b, "write_energy_j", wj);
          ffm_json_writer_member_double (b, "occupancy_bits", c->level_occupancy[l]);
        }
      else
        ffm_json_writer_member_uint (b, "operations", c->operations);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "fanouts");
  ffm_json_writer_begin_array (b);
  for (guint d = 0; d < ffm_pmapping_model_get_n_fanout_dims (m); d++)
    {
      const FfmFanoutDimInfo *info = ffm_pmapping_model_get_fanout_dim (m, d);
      const FfmLevel *level = ffm_arch_get_level (a, info->level);
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_string (b, "level", level->name);
      ffm_json_writer_member_string (b, "dimension", level->u.fanout.dims[info->dim].name);
      ffm_json_writer_member_uint (b, "used", c->fanout_used[d]);
      ffm_json_writer_member_uint (b, "count", info->count);
      ffm_json_writer_member_double (b, "utilization",
                                     (double) c->fanout_used[d] / (double) info->count);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "per_tensor");
  ffm_json_writer_begin_array (b);
  for (guint k = 0; k < c->n_buffets; k++)
    {
      const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (m, k);
      const FfmActionCounts *n = &c->counts[k];
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "component", ffm_arch_get_level (a, info->level)->name);
      ffm_json_writer_member_string (b, "tensor", ffm_workload_get_tensor (w, info->tensor)->name);
      ffm_json_writer_member_uint (b, "reads", n->reads);
      ffm_json_writer_member_uint (b, "fills", n->fills);
      ffm_json_writer_member_uint (b, "drains", n->drains);
      ffm_json_writer_member_uint (b, "updates", n->updates);
      ffm_json_writer_member_double (b, "read_actions", read_actions (info, n));
      ffm_json_writer_member_double (b, "write_actions", write_actions (info, n));
      ffm_json_writer_member_double (b, "energy_j", ffm_cost_report_get_buffet_energy (r, i, k, NULL, NULL));
      ffm_json_writer_member_double (b, "occupancy_bits", c->buffet_occupancy[k]);
      ffm_json_writer_member_int (b, "lifetime_depth", info->n_loops_above);
      ffm_json_writer_member_boolean (b, "backing", info->backing);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
}

void
ffm_cli_report_write_json (const FfmCostReport *r, FfmJsonWriter *b)
{
  const FfmWorkload *w = ffm_cost_report_get_workload (r);
  const FfmArch *a = ffm_cost_report_get_arch (r);
  g_autofree TensorTotals *totals = tensor_totals (r);
  g_autoptr (GArray) fusion = fusion_decisions (r);
  g_autoptr (GPtrArray) free_memories = ffm_cli_free_memories (a);
  g_autofree char *note = ffm_cli_fairness_note (a);
  double dynamic = 0, leak = 0, area = total_area (a);
  double energy = ffm_cost_report_get_energy (r);

  for (guint i = 0; i < ffm_cost_report_get_n_einsums (r); i++)
    dynamic += ffm_cost_report_get_cost (r, i)->dynamic_energy;
  for (guint l = 0; l < ffm_arch_get_n_levels (a); l++)
    leak += ffm_cost_report_get_level_leak (r, l);
  ffm_json_writer_member_double (b, "energy_j", energy);
  ffm_json_writer_member_double (b, "latency_s", ffm_cost_report_get_latency (r));
  ffm_json_writer_member_double (b, "edp_js", ffm_cost_report_get_edp (r));
  ffm_json_writer_member_double (b, "dynamic_energy_j", dynamic);
  ffm_json_writer_member_double (b, "leak_energy_j", leak);
  ffm_json_writer_member_boolean (b, "fits", ffm_cost_report_fits (r));
  ffm_json_writer_member_string (b, "problem", ffm_cost_report_get_problem (r));
  if (area > 0)
    ffm_json_writer_member_double (b, "area_m2", area);
  else
    ffm_json_writer_member_null (b, "area_m2");
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

  ffm_json_writer_key (b, "per_einsum");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < ffm_cost_report_get_n_einsums (r); i++)
    write_einsum_json (r, b, i);
  ffm_json_writer_end_array (b);

  ffm_json_writer_key (b, "per_component");
  ffm_json_writer_begin_array (b);
  for (guint l = 0; l < ffm_arch_get_n_levels (a); l++)
    {
      const FfmLevel *level = ffm_arch_get_level (a, l);
      double e = ffm_cost_report_get_level_energy (r, l);
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "name", level->name);
      ffm_json_writer_member_string (b, "kind", level_kind (level));
      ffm_json_writer_member_double (b, "energy_j", e);
      ffm_json_writer_member_double (b, "energy_share", energy > 0 ? e / energy : 0);
      ffm_json_writer_member_double (b, "leak_energy_j", ffm_cost_report_get_level_leak (r, l));
      if (level->kind == FFM_LEVEL_MEMORY)
        {
          double rj, wj;
          level_read_write_energy (r, l, &rj, &wj);
          ffm_json_writer_member_double (b, "read_energy_j", rj);
          ffm_json_writer_member_double (b, "write_energy_j", wj);
          ffm_json_writer_member_double (b, "peak_occupancy_bits",
                                         ffm_cost_report_get_peak_occupancy (r, l));
          /* "inf" = unbounded */
          ffm_json_writer_member_double (b, "size_bits", ffm_cost_report_get_level_size (r, l));
          ffm_json_writer_member_boolean (b, "free", ffm_cli_memory_is_free (a, l));
        }
      if (level_area (a, l) > 0)
        ffm_json_writer_member_double (b, "area_m2", level_area (a, l));
      else
        ffm_json_writer_member_null (b, "area_m2");
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);

  ffm_json_writer_key (b, "per_tensor");
  ffm_json_writer_begin_array (b);
  for (guint t = 0; t < ffm_workload_get_n_tensors (w); t++)
    {
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_string (b, "name", ffm_workload_get_tensor (w, t)->name);
      ffm_json_writer_member_string (b, "class", ffm_cli_tensor_class (w, t));
      ffm_json_writer_member_double (b, "energy_j", totals[t].energy);
      ffm_json_writer_member_double (b, "read_actions", totals[t].read_actions);
      ffm_json_writer_member_double (b, "write_actions", totals[t].write_actions);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);

  ffm_json_writer_key (b, "per_tensor_class");
  ffm_json_writer_begin_array (b);
  for (guint k = 0; k < G_N_ELEMENTS (tensor_classes); k++)
    {
      double e = 0;
      guint n = 0;
      for (guint t = 0; t < ffm_workload_get_n_tensors (w); t++)
        if (strcmp (ffm_cli_tensor_class (w, t), tensor_classes[k]) == 0)
          {
            e += totals[t].energy;
            n++;
          }
      if (n == 0)
        continue;
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_string (b, "class", tensor_classes[k]);
      ffm_json_writer_member_uint (b, "tensors", n);
      ffm_json_writer_member_double (b, "energy_j", e);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);

  ffm_json_writer_key (b, "fused_tensors");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < fusion->len; i++)
    {
      const Fusion *f = &g_array_index (fusion, Fusion, i);
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
