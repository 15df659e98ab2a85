/* cimloop.c: the compute-in-memory architecture model.
 *
 * One plugin offering every chip of the catalogue by name (cim-chips.h):
 * the chips share the formulas, the parameter machinery and the way their
 * hierarchy folds into ffm's, so one plugin keeps that in one place and
 * `ffm list` shows them side by side. Each build evaluates the chip's
 * formulas at the user's parameters (cim_chip_evaluate()) and turns the
 * evaluation into an FfmArch:
 *
 *   MainMemory      everything off the macro (free by default, as the
 *                   reference validations; main_memory_pj_per_bit)
 *   [buffers]       the chip's own buffers as memories (RAELLA, ISAAC,
 *                   Albireo, Lightning), with their per-bit energies
 *   [fanouts]       cores, macros, arrays; then Columns (share inputs) and
 *                   Rows (reduce outputs) of the array
 *   CimUnit         keeps the weights (bits = the chip's weight bits);
 *                   writing it costs the programming energy
 *   MAC             the compute: energy per MAC = the array's per-MAC
 *                   energy (converters, drivers, cells, capacitors, shift-
 *                   adds) at full utilisation; leakage of those parts as
 *                   its leak power; one MAC per array pass per instance
 *
 * What the folding keeps and loses is in docs/cimloop.md.
 *
 * Units: SI in the architecture; parameters in the units of their help. */
#include <ffm/ffm.h>

#include <math.h>
#include <string.h>

#include "cim-chips.h"

#define CIMLOOP_MODEL "cimloop"
#define PJ 1e-12

/* ---- Chips and parameters ---- */

static gboolean
find_chip (const char *arch_name, const CimChip **chip, GError **error)
{
  g_autoptr (GString) names = g_string_new (NULL);

  *chip = cim_chip_find (arch_name);
  if (*chip != NULL)
    return TRUE;
  for (guint i = 0; i < cim_chip_count (); i++)
    g_string_append_printf (names, "%s%s", i ? ", " : "", cim_chip_get (i)->name);
  g_set_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_NOT_FOUND,
               "architecture model " CIMLOOP_MODEL ": unknown chip '%s' (offered: %s)",
               arch_name ? arch_name : "(null)", names->str);
  return FALSE;
}

static char *
owner_of (const CimChip *chip)
{
  return g_strdup_printf ("architecture %s", chip->name);
}

/* The chip's parameters as heap FfmParamSpecs. "auto" defaults (data
 * statistics from the histograms) show the value they take at the other
 * defaults. */
static FfmParamSpec *
make_param_specs (const CimChip *chip)
{
  CimParams defaults;
  CimEvaluation eval;
  gboolean evaluated;
  guint n = 0, i = 0;
  FfmParamSpec *specs;

  cim_chip_default_params (chip, &defaults);
  evaluated = cim_chip_evaluate (chip, &defaults, &eval, NULL);
  while (chip->params[n].id != CIM_N_PARAMS)
    n++;
  specs = g_new0 (FfmParamSpec, n + 1);
  for (const CimChipParam *p = chip->params; p->id != CIM_N_PARAMS; p++, i++)
    {
      const CimParamInfo *info = cim_param_info (p->id);
      FfmParamSpec *spec = &specs[i];

      spec->name = g_strdup (info->name);
      spec->type = info->type;
      if (p->range_note != NULL)
        spec->help = g_strdup_printf ("%s [range: %s]", p->help ? p->help : info->help,
                                      p->range_note);
      else
        spec->help = g_strdup (p->help ? p->help : info->help);
      spec->min = p->min;
      spec->max = p->max;
      spec->choices = (const char *const *) g_strdupv ((char **) info->choices);
      if (strcmp (p->default_value, "auto") == 0 && evaluated)
        spec->default_value = g_strdup_printf ("%.4g", p->id == CIM_P_INPUT_VALUE
                                               ? eval.input_value : eval.weight_value);
      else
        spec->default_value = g_strdup (p->default_value);
    }
  return specs;
}

/* Reads one declared parameter into @params. */
static gboolean
read_param (const CimChipParam *p,
            const FfmParamValues *values,
            const FfmParamSpec *specs,
            const char *owner,
            CimParams *params,
            GError **error)
{
  const CimParamInfo *info = cim_param_info (p->id);
  double *out = &params->value[p->id];

  if (strcmp (p->default_value, "auto") == 0
      && ffm_param_values_lookup (values, info->name) == NULL)
    {
      *out = NAN;
      return TRUE;
    }
  switch (info->type)
    {
    case FFM_PARAM_INTEGER:
      {
        gint64 v;
        if (!ffm_param_values_get_integer (values, specs, owner, info->name, &v, error))
          return FALSE;
        *out = (double) v;
        return TRUE;
      }
    case FFM_PARAM_BOOL:
      {
        gboolean v;
        if (!ffm_param_values_get_bool (values, specs, owner, info->name, &v, error))
          return FALSE;
        *out = v ? 1 : 0;
        return TRUE;
      }
    case FFM_PARAM_STRING:
      {
        const char *v = ffm_param_values_get_string (values, specs, owner, info->name, error);
        if (v == NULL)
          return FALSE;
        for (guint i = 0; info->choices[i] != NULL; i++)
          if (strcmp (info->choices[i], v) == 0)
            {
              *out = i;
              return TRUE;
            }
        g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                     "%s: parameter %s: '%s' is not one of the choices", owner,
                     info->name, v);
        return FALSE;
      }
    case FFM_PARAM_NUMBER:
    default:
      return ffm_param_values_get_number (values, specs, owner, info->name, out, error);
    }
}

static gboolean
read_params (const CimChip *chip,
             const FfmParamValues *values,
             CimParams *params,
             GError **error)
{
  g_autoptr (FfmParamValues) empty = NULL;
  g_autofree char *owner = owner_of (chip);
  FfmParamSpec *specs = make_param_specs (chip);
  gboolean ok = TRUE;

  if (values == NULL)
    values = empty = ffm_param_values_new ();
  cim_chip_default_params (chip, params);
  if (!ffm_param_values_validate (values, specs, owner, error))
    ok = FALSE;
  for (const CimChipParam *p = chip->params; ok && p->id != CIM_N_PARAMS; p++)
    ok = read_param (p, values, specs, owner, params, error);
  ffm_param_specs_free (specs);
  return ok;
}

/* ---- Hierarchy ---- */

static void
add_main_memory (FfmArch *arch, const CimParams *params)
{
  FfmLevel *level = ffm_arch_add_memory (arch, "MainMemory");
  FfmMemorySpec *m = &level->u.memory;

  m->size = INFINITY;
  m->read_energy = params->value[CIM_P_MAIN_MEMORY_PJ] * PJ;
  m->write_energy = params->value[CIM_P_MAIN_MEMORY_PJ] * PJ;
  m->read_bandwidth = INFINITY;
  m->write_bandwidth = INFINITY;
  m->keep = g_strdup ("~intermediates");
  m->may_keep = g_strdup ("all");
  level->description = g_strdup ("everything above the chip; free unless "
                                 "main_memory_pj_per_bit is set");
}

static void
add_memory (FfmArch *arch, const CimLevel *cl, const CimParams *params)
{
  FfmLevel *level = ffm_arch_add_memory (arch, cl->name);
  FfmMemorySpec *m = &level->u.memory;

  m->size = cl->size;
  m->read_energy = cl->read_energy;
  m->write_energy = cl->write_energy;
  /* Resident weights cost nothing to "write": the catalogue's convention. */
  if (cl->kind == CIM_LEVEL_CELLS && params->value[CIM_P_PROGRAM_WEIGHTS] == 0)
    m->write_energy = 0;
  m->read_bandwidth = INFINITY;
  m->write_bandwidth = INFINITY;
  m->keep = g_strdup (cl->keep);
  level->leak_power = cl->leak_power;
  level->description = g_strdup (cl->description);
  if (cl->bits_tensors != NULL)
    ffm_level_add_bits_override (level, cl->bits_tensors, cl->bits);
}

static void
add_fanout (FfmArch *arch, const CimLevel *cl)
{
  FfmLevel *level = ffm_arch_add_fanout (arch, cl->name);
  g_autofree char *dim_name = g_ascii_strdown (cl->name, -1);
  FfmFanoutDim *dim = ffm_level_add_fanout_dim (level, dim_name, cl->count);

  /* No min_usage: the reference fills its arrays with imperfect spatial
   * loops, which ffm's tilings need not reach exactly. */
  dim->reuse = g_strdup (cl->reuse);
  dim->may_reuse = g_strdup (cl->may_reuse);
  level->description = g_strdup (cl->description);
}

/* The compute level and a breakdown of what it folds in. */
static void
add_mac (FfmArch *arch, const CimEvaluation *eval)
{
  FfmLevel *level = ffm_arch_add_compute (arch, "MAC");
  FfmComputeSpec *u = &level->u.compute;
  g_autoptr (GString) text = g_string_new ("array energy per MAC folded from:");

  u->energy = cim_dynamic_energy_per_mac (eval, CIM_PART_ARRAY);
  u->throughput = eval->macs_per_pass / (eval->latency_per_pass * eval->compute_instances);
  u->enabled = g_strdup ("len(all) == 3");
  level->leak_power = cim_leak_power (eval, CIM_PART_ARRAY) / eval->compute_instances;
  for (guint i = 0; i < eval->n_components; i++)
    {
      const CimComponent *c = &eval->components[i];

      if (c->parts & CIM_PART_ARRAY)
        g_string_append_printf (text, " %s %.4g fJ%s", c->name,
                                c->count_per_mac * c->energy * 1e15,
                                c->leak_power > 0 ? " (+leak)" : "");
    }
  level->description = g_string_free (g_steal_pointer (&text), FALSE);
}

static char *
describe_operating_point (const CimChip *chip, const CimEvaluation *eval)
{
  double e = cim_energy_per_mac (eval, CIM_PART_ALL);

  return g_strdup_printf ("%s. At these parameters: S_i %d x S_w %d slices, input/weight "
                          "values %.3f/%.3f, %.4g fJ per MAC (%.4g TOPS/W), %.4g TOPS peak",
                          chip->summary, eval->input_slices, eval->weight_slices,
                          eval->input_value, eval->weight_value, e * 1e15,
                          cim_tops_per_watt (e), cim_throughput (eval) / 1e12);
}

static FfmArch *
build_from_evaluation (const CimChip *chip,
                       const CimParams *params,
                       const CimEvaluation *eval,
                       GError **error)
{
  g_autoptr (FfmArch) arch = ffm_arch_new (chip->name);
  g_autofree char *description = describe_operating_point (chip, eval);

  ffm_arch_set_description (arch, description);
  ffm_arch_set_source (arch, chip->source);
  add_main_memory (arch, params);
  for (guint i = 0; i < eval->n_levels; i++)
    {
      const CimLevel *cl = &eval->levels[i];

      if (cl->kind == CIM_LEVEL_FANOUT)
        add_fanout (arch, cl);
      else
        add_memory (arch, cl, params);
    }
  add_mac (arch, eval);
  if (!ffm_arch_finish (arch, error))
    return NULL;
  return g_steal_pointer (&arch);
}

/* ---- Function table ---- */

static GStrv
cimloop_list_architectures (void)
{
  GStrv names = g_new0 (char *, cim_chip_count () + 1);

  for (guint i = 0; i < cim_chip_count (); i++)
    names[i] = g_strdup (cim_chip_get (i)->name);
  return names;
}

static char *
cimloop_describe (const char *arch_name)
{
  const CimChip *chip = cim_chip_find (arch_name);

  return chip ? g_strdup (chip->summary) : NULL;
}

static FfmParamSpec *
cimloop_get_params (const char *arch_name, GError **error)
{
  const CimChip *chip;

  if (!find_chip (arch_name, &chip, error))
    return NULL;
  return make_param_specs (chip);
}

static FfmArch *
cimloop_build (const char *arch_name, const FfmParamValues *values, GError **error)
{
  const CimChip *chip;
  CimParams params;
  CimEvaluation eval;

  if (!find_chip (arch_name, &chip, error))
    return NULL;
  if (!read_params (chip, values, &params, error))
    return NULL;
  if (!cim_chip_evaluate (chip, &params, &eval, error))
    return NULL;
  return build_from_evaluation (chip, &params, &eval, error);
}

static const FfmArchModelVTable cimloop_vtable = {
  .struct_size = sizeof (FfmArchModelVTable),
  .list_architectures = cimloop_list_architectures,
  .describe = cimloop_describe,
  .get_params = cimloop_get_params,
  .build = cimloop_build,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_ARCH_MODEL, CIMLOOP_MODEL, "1.0",
                   "compute-in-memory chips (CiMLoop-style): energies from cell, DAC, "
                   "ADC, driver and data-statistics formulas over voltage, node, bits "
                   "and array size",
                   arch, &cimloop_vtable)
