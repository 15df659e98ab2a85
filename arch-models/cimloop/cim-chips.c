/* cim-chips.c: the catalogue of compute-in-memory chips.
 *
 * One section per chip of [1] §5, each: its constants (with the §5 table
 * they come from), its parameter declarations, and its evaluator. An
 * evaluator computes the bit slicing and data statistics (§4.2-4.3), each
 * component's energy per action from the formulas of cim-energy-model.h at
 * the chip's voltage, node and resolutions (§4.6), its count per MAC at
 * full utilisation (§4.5), its leakage (§4.8), the latency of one array
 * pass (§4.7), and the memory and fanout levels the chip maps to in ffm.
 *
 * Conventions shared by all chips (see docs/cimloop.md):
 *   - NeuroSim driver coefficients are the catalogue's, at the catalogue's
 *     array size; where §5 gives them at two voltages the power law through
 *     both is used, else V^2 from the reference voltage. Other array sizes
 *     scale them linearly with the wire they drive (row drivers: the
 *     bitlines; column drivers: the wordlines) [estimate].
 *   - Fixed-table components scale with cim_tech_energy_factor() from
 *     their reference node and as the reference model scales them in
 *     voltage; the ADC takes the node directly.
 *   - RRAM cell reads are set by the cell's read voltage, not the supply:
 *     they do not scale with voltage or node.
 *   - Weight programming (cell write + weight driver) is the CimUnit's
 *     write energy in ffm; the per-MAC figures assume resident weights, as
 *     the catalogue does.
 *
 * [1] accelforge's architecture files and the papers they cite. */
#include "cim-chips.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#define PJ 1e-12
#define FJ 1e-15
#define NS 1e-9
#define US 1e-6

/* ---- Parameters ---- */

static const char *const albireo_scenarios[] = { "conservative", "moderate", "aggressive", NULL };

static const CimParamInfo param_infos[CIM_N_PARAMS] = {
  [CIM_P_VOLTAGE] = { "voltage", FFM_PARAM_NUMBER,
    "supply voltage, V (energies and cycle time follow the chip's voltage model)", NULL },
  [CIM_P_TECH_NM] = { "tech_nm", FFM_PARAM_NUMBER,
    "technology node, nm (ADC by its survey regression, other components by the "
    "Stillmaker-Baas tables)", NULL },
  [CIM_P_INPUT_BITS] = { "input_bits", FFM_PARAM_INTEGER,
    "input operand bits the macro runs at", NULL },
  [CIM_P_WEIGHT_BITS] = { "weight_bits", FFM_PARAM_INTEGER,
    "weight operand bits the macro runs at", NULL },
  [CIM_P_OUTPUT_BITS] = { "output_bits", FFM_PARAM_INTEGER,
    "output bits", NULL },
  [CIM_P_ROWS] = { "rows", FFM_PARAM_INTEGER,
    "array rows: inputs reduced into one output in parallel", NULL },
  [CIM_P_COLS] = { "cols", FFM_PARAM_INTEGER,
    "array columns: each holds one weight slice and sees every input", NULL },
  [CIM_P_ADC_BITS] = { "adc_bits", FFM_PARAM_INTEGER,
    "ADC resolution, bits", NULL },
  [CIM_P_DAC_BITS] = { "dac_bits", FFM_PARAM_INTEGER,
    "input DAC resolution (pulse count), bits", NULL },
  [CIM_P_BITS_PER_CELL] = { "bits_per_cell", FFM_PARAM_INTEGER,
    "bits stored per memory cell", NULL },
  [CIM_P_INPUT_VALUE] = { "input_value", FFM_PARAM_NUMBER,
    "average input slice value, 0..1 (default: from the chip's input histogram "
    "and encoding at the chosen bits)", NULL },
  [CIM_P_WEIGHT_VALUE] = { "weight_value", FFM_PARAM_NUMBER,
    "average weight slice value, 0..1 (default: from the chip's weight histogram "
    "and encoding at the chosen bits)", NULL },
  [CIM_P_AVERAGE_OUTPUT] = { "average_output", FFM_PARAM_NUMBER,
    "average 4-b output value of the validation (input and weight values default "
    "to 0.25 sqrt(average_output))", NULL },
  [CIM_P_N_REGISTERS] = { "n_registers", FFM_PARAM_INTEGER,
    "pipeline registers per column (rows per register = rows / n_registers)", NULL },
  [CIM_P_LOGIC_SCALE] = { "logic_scale", FFM_PARAM_NUMBER,
    "scale on the bitcell adder energy (1.8 matches the published bitcell share)", NULL },
  [CIM_P_TWO_PHASE] = { "two_phase", FFM_PARAM_BOOL,
    "split inputs of more than 3 bits into two phases", NULL },
  [CIM_P_N_CORES] = { "n_cores", FFM_PARAM_INTEGER,
    "cores (macros) on the chip", NULL },
  [CIM_P_SPECULATION] = { "speculation", FFM_PARAM_BOOL,
    "speculative ADC reads (fewer, cheaper conversions; slower cells)", NULL },
  [CIM_P_N_MACROS] = { "n_macros", FFM_PARAM_INTEGER,
    "macros in the tile", NULL },
  [CIM_P_N_ARRAYS] = { "n_arrays", FFM_PARAM_INTEGER,
    "arrays per macro", NULL },
  [CIM_P_SCENARIO] = { "scenario", FFM_PARAM_STRING,
    "photonic device assumptions of the paper", albireo_scenarios },
  [CIM_P_N_PLCG] = { "n_plcg", FFM_PARAM_INTEGER,
    "photonic locally-connected groups (one output channel each, sharing inputs)", NULL },
  [CIM_P_N_PLCU] = { "n_plcu", FFM_PARAM_INTEGER,
    "locally-connected units per group (reduce into one output)", NULL },
  [CIM_P_N_STAR_GROUPS] = { "n_star_groups", FFM_PARAM_INTEGER,
    "star-coupled row groups per unit (reduce into one output)", NULL },
  [CIM_P_CLOCK_GHZ] = { "clock_ghz", FFM_PARAM_NUMBER,
    "clock, GHz", NULL },
  [CIM_P_N_WAVELENGTHS] = { "n_wavelengths", FFM_PARAM_INTEGER,
    "wavelengths summed per photodetector", NULL },
  [CIM_P_N_PARALLEL_WEIGHTS] = { "n_parallel_weights", FFM_PARAM_INTEGER,
    "weights applied in parallel per wavelength", NULL },
  [CIM_P_BATCH] = { "batch", FFM_PARAM_INTEGER,
    "inputs processed in parallel with the same weights", NULL },
  [CIM_P_MAIN_MEMORY_PJ] = { "main_memory_pj_per_bit", FFM_PARAM_NUMBER,
    "energy per bit read or written in the memory above the chip, pJ/bit "
    "(0 = free, as in the reference validations; LPDDR4 is 8)", NULL },
  [CIM_P_PROGRAM_WEIGHTS] = { "program_weights", FFM_PARAM_BOOL,
    "charge the programming energy (cell write + weight driver) for weights a "
    "mapping writes into the array; false = weights resident, as the catalogue's "
    "per-MAC figures", NULL },
};

const CimParamInfo *
cim_param_info (CimParamId id)
{
  g_return_val_if_fail (id < CIM_N_PARAMS, NULL);
  return &param_infos[id];
}

const CimChipParam *
cim_chip_find_param (const CimChip *chip, CimParamId id)
{
  for (const CimChipParam *p = chip->params; p->id != CIM_N_PARAMS; p++)
    if (p->id == id)
      return p;
  return NULL;
}

/* Reads a default text: a number, true/false, a choice or "auto". */
static double
parse_default (const CimChipParam *param)
{
  const CimParamInfo *info = &param_infos[param->id];

  if (strcmp (param->default_value, "auto") == 0)
    return NAN;
  if (info->type == FFM_PARAM_BOOL)
    return strcmp (param->default_value, "true") == 0 ? 1 : 0;
  if (info->type == FFM_PARAM_STRING)
    {
      for (guint i = 0; info->choices[i] != NULL; i++)
        if (strcmp (info->choices[i], param->default_value) == 0)
          return i;
      g_return_val_if_reached (0);
    }
  return g_ascii_strtod (param->default_value, NULL);
}

void
cim_chip_default_params (const CimChip *chip, CimParams *params)
{
  memset (params, 0, sizeof *params);
  for (const CimChipParam *p = chip->params; p->id != CIM_N_PARAMS; p++)
    params->value[p->id] = parse_default (p);
}

/* Sets an error naming the architecture and the parameter. */
G_GNUC_PRINTF (4, 5) static gboolean
chip_fail (GError **error, const CimChip *chip, CimParamId id, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list ap;

  va_start (ap, format);
  message = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
               "architecture %s: parameter %s: %s", chip->name,
               param_infos[id].name, message);
  return FALSE;
}

static gboolean
check_param (const CimChip *chip, const CimChipParam *param, double value, GError **error)
{
  const CimParamInfo *info = &param_infos[param->id];

  if (isnan (value) && strcmp (param->default_value, "auto") == 0)
    return TRUE;
  if (!isfinite (value))
    return chip_fail (error, chip, param->id, "%g is not a finite number", value);
  if (info->type == FFM_PARAM_INTEGER && value != floor (value))
    return chip_fail (error, chip, param->id, "%g is not an integer", value);
  if (info->type == FFM_PARAM_BOOL || info->type == FFM_PARAM_STRING)
    return TRUE;
  if (value < param->min || value > param->max)
    return chip_fail (error, chip, param->id, "%g is outside the model's range [%g, %g]%s%s%s",
                      value, param->min, param->max,
                      param->range_note ? " (" : "",
                      param->range_note ? param->range_note : "",
                      param->range_note ? ")" : "");
  return TRUE;
}

/* ---- Shared pieces ---- */

#define PV(p, id) ((p)->value[(id)])
#define PI(p, id) ((int) lround ((p)->value[(id)]))

/* The array at one operating point: slicing, statistics, parallelism. */
typedef struct {
  int enc_in;                /* encoded input bits */
  int enc_w;                 /* encoded weight bits */
  int in_slice_bits;         /* max input bits per slice */
  int w_slice_bits;          /* max weight bits per slice */
  int s_i;                   /* input slices */
  int s_w;                   /* weight slices = columns per weight */
  double a_in;               /* average input slice value */
  double a_w;                /* average weight slice value */
  int n_par;                 /* weights (outputs) in parallel: cols / s_w */
  int k_par;                 /* inputs reduced in parallel: rows */
} CimArray;

/* How one chip slices its operands ([1] §4.2). */
typedef struct {
  const CimHistogram *in_hist;
  CimEncoding in_encoding;
  int enc_in;                /* encoded input bits */
  int dac_bits;              /* input bits per slice at most */
  int min_in_bits;           /* min supported input bits */
  const CimHistogram *w_hist;
  CimEncoding w_encoding;
  int enc_w;                 /* encoded weight bits */
  int w_slice_cap;           /* cells per unit x bits per cell */
  int min_w_bits;            /* min supported weight bits */
} CimSlicing;

static gboolean
array_setup (CimArray *a,
             const CimChip *chip,
             const CimParams *p,
             const CimSlicing *s,
             int rows,
             int cols,
             GError **error)
{
  a->enc_in = s->enc_in;
  a->enc_w = s->enc_w;
  a->in_slice_bits = MIN (s->dac_bits, s->enc_in);
  a->w_slice_bits = MIN (s->w_slice_cap, s->enc_w);
  a->s_i = cim_n_slices (s->enc_in, a->in_slice_bits, s->min_in_bits);
  a->s_w = MAX ((s->enc_w + a->w_slice_bits - 1) / a->w_slice_bits,
                (s->min_w_bits + s->w_slice_cap - 1) / s->w_slice_cap);
  a->a_in = PV (p, CIM_P_INPUT_VALUE);
  if (isnan (a->a_in))
    a->a_in = cim_average_slice_value (s->in_hist, s->in_encoding, s->enc_in,
                                       a->in_slice_bits);
  a->a_w = PV (p, CIM_P_WEIGHT_VALUE);
  if (isnan (a->a_w))
    a->a_w = cim_average_slice_value (s->w_hist, s->w_encoding, s->enc_w,
                                      a->w_slice_bits);
  if (a->s_w > cols)
    return chip_fail (error, chip, CIM_P_WEIGHT_BITS,
                      "one weight takes %d columns (%d encoded bits in %d-bit slices) "
                      "but the array has %d columns", a->s_w, s->enc_w,
                      a->w_slice_bits, cols);
  a->n_par = cols / a->s_w;
  a->k_par = rows;
  return TRUE;
}

static void
record_operating_point (CimEvaluation *e, const CimArray *a, double cycle)
{
  e->input_slices = a->s_i;
  e->weight_slices = a->s_w;
  e->input_value = a->a_in;
  e->weight_value = a->a_w;
  e->cycle_period = cycle;
}

/* The array levels: columns sharing inputs, rows reducing outputs, and
 * the CiM unit keeping @depth weights of @w_bits. @program_energy is J per
 * weight slice written (cell write + weight driver). */
static void
add_array_levels (CimEvaluation *e,
                  const CimArray *a,
                  gboolean columns_must_share,
                  int depth,
                  int w_bits,
                  double program_energy,
                  const char *cell_description)
{
  CimLevel *level;

  level = cim_evaluation_add_level (e, CIM_LEVEL_FANOUT, "Columns",
                                    "array columns: one weight each (its slices take "
                                    "S_w physical columns), all seeing the same inputs");
  level->count = (guint64) a->n_par;
  if (columns_must_share)
    level->reuse = "input";
  else
    level->may_reuse = "input";
  level = cim_evaluation_add_level (e, CIM_LEVEL_FANOUT, "Rows",
                                    "array rows: their products sum on the bitline "
                                    "into one output");
  level->count = (guint64) a->k_par;
  level->reuse = "output";
  level = cim_evaluation_add_level (e, CIM_LEVEL_CELLS, "CimUnit", cell_description);
  level->size = (double) depth * w_bits;
  level->keep = "weight";
  level->bits_tensors = "weight";
  level->bits = w_bits;
  level->write_energy = a->s_w * program_energy / w_bits;
}

/* A buffer level; @leak is W per instance. */
static CimLevel *
add_buffer_level (CimEvaluation *e,
                  const char *name,
                  const char *description,
                  double size,
                  double read_energy,
                  double write_energy,
                  double leak,
                  const char *keep)
{
  CimLevel *level = cim_evaluation_add_level (e, CIM_LEVEL_MEMORY, name, description);

  level->size = size;
  level->read_energy = read_energy;
  level->write_energy = write_energy;
  level->leak_power = leak;
  level->keep = keep;
  return level;
}

static CimLevel *
add_fanout_level (CimEvaluation *e,
                  const char *name,
                  const char *description,
                  guint64 count,
                  const char *reuse,
                  const char *may_reuse)
{
  CimLevel *level = cim_evaluation_add_level (e, CIM_LEVEL_FANOUT, name, description);

  level->count = count;
  level->reuse = reuse;
  level->may_reuse = may_reuse;
  return level;
}

/* Common parameter declarations. */
#define P_END { CIM_N_PARAMS, NULL, 0, 0, NULL, NULL }
#define P_MAIN_MEMORY { CIM_P_MAIN_MEMORY_PJ, "0", 0, 1000, NULL, NULL }
#define P_PROGRAM { CIM_P_PROGRAM_WEIGHTS, "false", 0, 0, NULL, NULL }
#define P_VALUES \
  { CIM_P_INPUT_VALUE, "auto", 0, 1, NULL, NULL }, \
  { CIM_P_WEIGHT_VALUE, "auto", 0, 1, NULL, NULL }
#define P_TECH(node) { CIM_P_TECH_NM, node, CIM_TECH_MIN_NM, CIM_TECH_MAX_NM, \
                       "the nodes of the scaling tables", NULL }
#define P_ARRAY(rows, cols) \
  { CIM_P_ROWS, rows, 1, 65536, NULL, NULL }, \
  { CIM_P_COLS, cols, 1, 65536, NULL, NULL }
#define NOMINAL_RANGE_NOTE "nominal supply +-20 %: the chip is modelled at one voltage only"

/* Histograms of [1] §4.3 / §5. */
static const CimHistogram hist_uniform_7 = { 7, { 1, 1, 1, 1, 1, 1, 1 } };
static const CimHistogram hist_uniform_15 = { 15, { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 } };
static const CimHistogram hist_small_positive = { 7, { 0, 0, 0, 3, 2, 1, 0 } };
static const CimHistogram hist_sparse_positive = { 7, { 0, 0, 0, 3, 1, 0, 0 } };
static const CimHistogram hist_bell_7 = { 7, { 0, 1, 3, 4, 3, 1, 0 } };

/* ---- basic_analog ([1] §5.0) ---- */

#define BASIC_NODE 65.0
#define BASIC_CYCLE_AT_1V (100 * NS)         /* cycle = 100 ns / V */
#define BASIC_N_ADC 4                        /* ADCs per array */
#define BASIC_REF_COLS 32.0                  /* array the coefficients are for */
#define BASIC_ROW_E_OFF 3.23e-14             /* J, NeuroSim, 65 nm, 1 V */
#define BASIC_ROW_E_ON 4.40e-14
#define BASIC_CELL_E_LO 1.0e-17              /* J per pulse, rram_example */
#define BASIC_CELL_E_HI 3.98e-17
#define BASIC_CELL_WRITE 6.76e-11            /* J per cell programmed */

static const CimChipParam basic_params[] = {
  { CIM_P_VOLTAGE, "1.0", 0.8, 1.2, NOMINAL_RANGE_NOTE, NULL },
  P_TECH ("65"),
  { CIM_P_INPUT_BITS, "8", 1, 8, NULL, NULL },
  { CIM_P_WEIGHT_BITS, "8", 1, 8, NULL, NULL },
  P_ARRAY ("32", "32"),
  { CIM_P_ADC_BITS, "8", 4, 16, "the ADC regression needs at least 4 bits", NULL },
  { CIM_P_DAC_BITS, "8", 1, 8, NULL, NULL },
  { CIM_P_BITS_PER_CELL, "8", 1, 8, NULL, NULL },
  P_VALUES,
  P_MAIN_MEMORY,
  P_PROGRAM,
  P_END
};

static gboolean
basic_evaluate (const CimChip *chip, const CimParams *p, CimEvaluation *e, GError **error)
{
  double v = PV (p, CIM_P_VOLTAGE), node = PV (p, CIM_P_TECH_NM);
  int in_bits = PI (p, CIM_P_INPUT_BITS), w_bits = PI (p, CIM_P_WEIGHT_BITS);
  int dac = PI (p, CIM_P_DAC_BITS), adc = PI (p, CIM_P_ADC_BITS);
  int cols = PI (p, CIM_P_COLS), rows = PI (p, CIM_P_ROWS);
  double cycle = BASIC_CYCLE_AT_1V / v;
  double ve = v * v, tf = cim_tech_energy_factor (BASIC_NODE, node);
  double wire = cols / BASIC_REF_COLS, rate = cols / cycle, e_adc;
  CimSlicing s = { &hist_small_positive, CIM_ENCODING_OFFSET, in_bits, dac, 1,
                   &hist_uniform_15, CIM_ENCODING_OFFSET, w_bits,
                   PI (p, CIM_P_BITS_PER_CELL), 1 };
  CimArray a;

  if (!array_setup (&a, chip, p, &s, rows, cols, error))
    return FALSE;
  e_adc = cim_adc_energy (adc, node, rate / BASIC_N_ADC);
  cim_evaluation_add (e, "ADC", (double) a.s_i * a.s_w / a.k_par,
                      CIM_ADC_ACTION_SHARE * e_adc * ve,
                      CIM_ADC_LEAK_SHARE * e_adc * rate * ve, CIM_PART_ARRAY);
  cim_evaluation_add (e, "RowDrivers", (double) a.s_i / a.n_par,
                      cim_row_driver_energy (BASIC_ROW_E_OFF * ve * tf * wire,
                                             BASIC_ROW_E_ON * ve * tf * wire,
                                             a.a_in, dac, TRUE),
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "CimUnit", (double) a.s_i * a.s_w,
                      cim_cell_read_energy (BASIC_CELL_E_LO, BASIC_CELL_E_HI,
                                            a.a_w, a.a_in, dac),
                      0, CIM_PART_ARRAY);
  e->latency_per_pass = a.s_i * cycle;
  e->macs_per_pass = (double) a.n_par * a.k_par;
  record_operating_point (e, &a, cycle);
  add_array_levels (e, &a, FALSE, 1, w_bits, BASIC_CELL_WRITE,
                    "RRAM cells (rram_example) keeping the weights; writes program them");
  return TRUE;
}

/* ---- Jia et al., JSSC 2020 ([1] §5.1) ---- */

#define JIA_NODE 65.0
#define JIA_VREF 0.85                        /* V of the voltage scales */
#define JIA_VHIGH 1.2                        /* second NeuroSim operating point */
#define JIA_BASE_CYCLE (25 * NS * 54)        /* at 0.85 V */
#define JIA_LATENCY_EXPONENT 2.66            /* cycle ~ (0.85/V)^2.66 */
#define JIA_MIN_CYCLE (2 * NS)
#define JIA_REF_ROWS 2304.0
#define JIA_REF_COLS 256.0
#define JIA_ROW_E_OFF_LO 2.349e-14           /* J @0.85 V */
#define JIA_ROW_E_ON_LO 1.1999e-12
#define JIA_ROW_E_OFF_HI 4.62e-14            /* J @1.2 V */
#define JIA_ROW_E_ON_HI 2.389e-12
#define JIA_ADC_SCALE 0.275                  /* calibration of the ADC energy */
#define JIA_BITCELL_CAP (4.5 * FJ)           /* F per bitcell */
#define JIA_TABLE_VREF 1.2                   /* V of the datapath/shift-add tables */
#define JIA_DATAPATH_E (12 * PJ)             /* per output */
#define JIA_DATAPATH_LEAK 4.44e-6            /* W per instance */
#define JIA_SHIFTADD_E (2.25 * PJ)           /* per 8-b operation */
#define JIA_SHIFTADD_LEAK 2.22e-6            /* W per instance */
#define JIA_SHIFTADD_BITS 8
#define JIA_COLS_PER_DATAPATH 8              /* one datapath per 8 columns */
/* [fit] Zero comparator energy per input slice, linear in the input bits
 * through the catalogue's 1-b (2.73e-14 J) and 8-b (3.66e-14 J) values. */
#define JIA_ZERO_GATE_E0 (2.73e-14 - (3.66e-14 - 2.73e-14) / 7)
#define JIA_ZERO_GATE_E_PER_BIT ((3.66e-14 - 2.73e-14) / 7)
#define JIA_ZERO_GATE_LEAK 5e-8              /* W, all comparators */
#define JIA_CELL_WRITE_LO 5.43e-13           /* J per slice @0.85 V */
#define JIA_CELL_WRITE_HI 8.61e-13           /* @1.2 V */
#define JIA_WDRIVER_LO 2.80e-11              /* J per slice programmed @0.85 V */
#define JIA_WDRIVER_HI 3.00e-11

static const CimHistogram jia_inputs = { 7, { 0, 0, 0, 8, 4, 2, 1 } };

static const CimChipParam jia_params[] = {
  { CIM_P_VOLTAGE, "0.85", 0.85, 1.2, "the paper's measured range", NULL },
  P_TECH ("65"),
  { CIM_P_INPUT_BITS, "1", 1, 8, NULL, NULL },
  { CIM_P_WEIGHT_BITS, "1", 1, 8, NULL, NULL },
  P_ARRAY ("2304", "256"),
  { CIM_P_ADC_BITS, "8", 4, 16, "the ADC regression needs at least 4 bits", NULL },
  P_VALUES,
  P_MAIN_MEMORY,
  P_PROGRAM,
  P_END
};

static gboolean
jia_evaluate (const CimChip *chip, const CimParams *p, CimEvaluation *e, GError **error)
{
  double v = PV (p, CIM_P_VOLTAGE), node = PV (p, CIM_P_TECH_NM);
  int in_bits = PI (p, CIM_P_INPUT_BITS), w_bits = PI (p, CIM_P_WEIGHT_BITS);
  int adc = PI (p, CIM_P_ADC_BITS), cols = PI (p, CIM_P_COLS), rows = PI (p, CIM_P_ROWS);
  double cycle = MAX (JIA_BASE_CYCLE * pow (JIA_VREF / v, JIA_LATENCY_EXPONENT), JIA_MIN_CYCLE);
  double ve = (v / JIA_VREF) * (v / JIA_VREF), tf = cim_tech_energy_factor (JIA_NODE, node);
  double table = (v / JIA_TABLE_VREF) * (v / JIA_TABLE_VREF) * tf;
  double res = ldexp (1.0, adc - JIA_SHIFTADD_BITS);
  double n_datapaths = MAX (1, cols / JIA_COLS_PER_DATAPATH);
  double wire = cols / JIA_REF_COLS, e_adc, e_off, e_on, program;
  CimSlicing s = { &jia_inputs, CIM_ENCODING_OFFSET_IF_SIGNED, in_bits, 1, 1,
                   &hist_uniform_15, CIM_ENCODING_OFFSET, w_bits, 1, 1 };
  CimArray a;

  if (!array_setup (&a, chip, p, &s, rows, cols, error))
    return FALSE;
  e_adc = cim_adc_energy (adc, node, 1.0 / cycle);
  e_off = cim_two_point_voltage_scale (v, JIA_VREF, JIA_ROW_E_OFF_LO, JIA_VHIGH, JIA_ROW_E_OFF_HI);
  e_on = cim_two_point_voltage_scale (v, JIA_VREF, JIA_ROW_E_ON_LO, JIA_VHIGH, JIA_ROW_E_ON_HI);

  cim_evaluation_add (e, "OutDatapath", 1.0 / a.k_par, JIA_DATAPATH_E * table,
                      JIA_DATAPATH_LEAK * table * n_datapaths, CIM_PART_ARRAY);
  cim_evaluation_add (e, "ShiftAdd", (double) a.s_i * a.s_w / a.k_par,
                      JIA_SHIFTADD_E * table * res,
                      JIA_SHIFTADD_LEAK * table * res * n_datapaths, CIM_PART_ARRAY);
  cim_evaluation_add (e, "InputZeroGating", (double) a.s_i / a.n_par,
                      (JIA_ZERO_GATE_E0 + JIA_ZERO_GATE_E_PER_BIT * a.enc_in) * ve * tf,
                      JIA_ZERO_GATE_LEAK * ve * tf * rows / JIA_REF_ROWS, CIM_PART_ARRAY);
  cim_evaluation_add (e, "RowDrivers", (double) a.s_i / a.n_par,
                      cim_row_driver_energy (e_off * tf * wire, e_on * tf * wire,
                                             a.a_in, 1, TRUE),
                      0, CIM_PART_ARRAY | CIM_PART_MACRO);
  cim_evaluation_add (e, "ADC", (double) a.s_i * a.s_w / a.k_par,
                      CIM_ADC_ACTION_SHARE * e_adc * JIA_ADC_SCALE * ve,
                      CIM_ADC_LEAK_SHARE * e_adc * (cols / cycle) * JIA_ADC_SCALE * ve,
                      CIM_PART_ARRAY | CIM_PART_MACRO);
  cim_evaluation_add (e, "BitcellCapacitor", (double) a.s_i * a.s_w,
                      cim_capacitor_energy (JIA_BITCELL_CAP, v), 0,
                      CIM_PART_ARRAY | CIM_PART_MACRO);
  e->latency_per_pass = a.s_i * cycle;
  e->macs_per_pass = (double) a.n_par * a.k_par;
  record_operating_point (e, &a, cycle);
  program = cim_two_point_voltage_scale (v, JIA_VREF, JIA_CELL_WRITE_LO,
                                         JIA_VHIGH, JIA_CELL_WRITE_HI)
            + cim_two_point_voltage_scale (v, JIA_VREF, JIA_WDRIVER_LO,
                                           JIA_VHIGH, JIA_WDRIVER_HI);
  add_array_levels (e, &a, TRUE, 1, w_bits, program * tf,
                    "SRAM bitcells (739 F^2) keeping 1-b weight slices; writes program them");
  return TRUE;
}

/* ---- Sinangil et al., JSSC 2021 ([1] §5.2) ---- */

#define SIN_NODE 7.0
#define SIN_VREF 0.8
#define SIN_VHIGH 1.0
#define SIN_BASE_CYCLE (5.5 * NS)
#define SIN_VE_EXPONENT 1.7                  /* energy ~ (V/0.8)^1.7 */
#define SIN_LATENCY_EXPONENT 2.75
#define SIN_CYCLE_FIXED_SHARE 0.6            /* cycle = base (0.6 + 0.4 (0.8/V)^2.75) */
#define SIN_CYCLE_SCALED_SHARE 0.4
#define SIN_WIDTH_CELLS 4                    /* 1-b cells per 4-b weight */
#define SIN_DAC_BITS 4                       /* pulse-count DAC */
#define SIN_REF_ROWS 64.0
#define SIN_REF_COLS 16.0
#define SIN_ROW_E_OFF_LO 2.19e-15            /* J @0.8 V */
#define SIN_ROW_E_ON_LO (2.19e-15 + 3.996e-15)
#define SIN_ROW_E_OFF_HI 3.398e-15           /* J @1.0 V */
#define SIN_ROW_E_ON_HI 8.89e-15
#define SIN_COL_E_LO 1.565e-15               /* J per bit-column @0.8 V */
#define SIN_COL_E_HI 2.443e-15               /* @1.0 V */
#define SIN_ADC_SCALE 3.5
#define SIN_COUNTER_E_32B (0.2507 * PJ)      /* Aladdin counter, 40 nm, 32 b */
#define SIN_COUNTER_NODE 40.0
#define SIN_COUNTER_LEAK 2.79e-7             /* W, 64 counters at 7 nm */
#define SIN_BWC_UNIT_CAP (1 * FJ)            /* binary weighting: 1 fF x 2^width */
#define SIN_BWC_ACTIVITY (224.0 / 64.0)      /* x input value x weight value */
#define SIN_OUTPUT_TO_VALUE 0.25             /* value = 0.25 sqrt(average output) */
#define SIN_CELL_WRITE 4.13e-12              /* J per 4-b unit written */
#define SIN_WDRIVER 4.04e-15

static const CimHistogram sin_weights = { 15, { 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 } };

static const CimChipParam sinangil_params[] = {
  { CIM_P_VOLTAGE, "0.8", 0.65, 1.0, "the paper's voltage sweep", NULL },
  P_TECH ("7"),
  { CIM_P_INPUT_BITS, "4", 1, 4, NULL, NULL },
  { CIM_P_WEIGHT_BITS, "4", 1, 4, NULL, NULL },
  P_ARRAY ("64", "16"),
  { CIM_P_ADC_BITS, "4", 4, 16, "the ADC regression needs at least 4 bits", NULL },
  { CIM_P_AVERAGE_OUTPUT, "6", 0, 15, NULL, NULL },
  { CIM_P_INPUT_VALUE, "auto", 0, 1, NULL,
    "average input slice value, 0..1 (default 0.25 sqrt(average_output), as the "
    "paper's validation)" },
  { CIM_P_WEIGHT_VALUE, "auto", 0, 1, NULL,
    "average weight slice value, 0..1 (default 0.25 sqrt(average_output))" },
  P_MAIN_MEMORY,
  P_PROGRAM,
  P_END
};

static gboolean
sinangil_evaluate (const CimChip *chip, const CimParams *p, CimEvaluation *e, GError **error)
{
  double v = PV (p, CIM_P_VOLTAGE), node = PV (p, CIM_P_TECH_NM);
  int adc = PI (p, CIM_P_ADC_BITS), cols = PI (p, CIM_P_COLS), rows = PI (p, CIM_P_ROWS);
  double cycle = SIN_BASE_CYCLE * (SIN_CYCLE_FIXED_SHARE
                                   + SIN_CYCLE_SCALED_SHARE
                                   * pow (SIN_VREF / v, SIN_LATENCY_EXPONENT));
  double ve = pow (v / SIN_VREF, SIN_VE_EXPONENT), tf = cim_tech_energy_factor (SIN_NODE, node);
  double value = SIN_OUTPUT_TO_VALUE * sqrt (PV (p, CIM_P_AVERAGE_OUTPUT));
  double row_wire = cols / SIN_REF_COLS, col_wire = rows / SIN_REF_ROWS;
  double e_adc, e_off, e_on, e_col, counter_tf = cim_tech_energy_factor (SIN_COUNTER_NODE, node);
  CimSlicing s = { &hist_small_positive, CIM_ENCODING_TWO_PART_IF_SIGNED,
                   cim_encoded_bits (CIM_ENCODING_TWO_PART_IF_SIGNED,
                                     PI (p, CIM_P_INPUT_BITS), &hist_small_positive),
                   SIN_DAC_BITS, 1,
                   &sin_weights, CIM_ENCODING_TWO_PART_IF_SIGNED,
                   cim_encoded_bits (CIM_ENCODING_TWO_PART_IF_SIGNED,
                                     PI (p, CIM_P_WEIGHT_BITS), &sin_weights),
                   SIN_WIDTH_CELLS, 1 };
  CimArray a;

  if (!array_setup (&a, chip, p, &s, rows, cols, error))
    return FALSE;
  if (isnan (PV (p, CIM_P_INPUT_VALUE)))
    a.a_in = value;
  if (isnan (PV (p, CIM_P_WEIGHT_VALUE)))
    a.a_w = value;
  e_adc = cim_adc_energy (adc, node, 1.0 / cycle);
  e_off = cim_two_point_voltage_scale (v, SIN_VREF, SIN_ROW_E_OFF_LO, SIN_VHIGH, SIN_ROW_E_OFF_HI);
  e_on = cim_two_point_voltage_scale (v, SIN_VREF, SIN_ROW_E_ON_LO, SIN_VHIGH, SIN_ROW_E_ON_HI);
  e_col = cim_two_point_voltage_scale (v, SIN_VREF, SIN_COL_E_LO, SIN_VHIGH, SIN_COL_E_HI);

  /* The counter has no voltage scale in the reference model. */
  cim_evaluation_add (e, "Counter", (double) a.s_i / a.n_par,
                      SIN_COUNTER_E_32B * SIN_DAC_BITS / 32.0 * counter_tf,
                      SIN_COUNTER_LEAK * rows / SIN_REF_ROWS, CIM_PART_ARRAY);
  cim_evaluation_add (e, "RowDrivers", (double) a.s_i / a.n_par,
                      cim_row_driver_energy (e_off * tf * row_wire, e_on * tf * row_wire,
                                             a.a_in, SIN_DAC_BITS, TRUE),
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "ADC", (double) a.s_i * a.s_w / a.k_par,
                      CIM_ADC_ACTION_SHARE * e_adc * SIN_ADC_SCALE * ve,
                      CIM_ADC_LEAK_SHARE * e_adc * (cols / cycle) * SIN_ADC_SCALE * ve,
                      CIM_PART_ARRAY);
  cim_evaluation_add (e, "ColumnDrivers", (double) a.s_i * a.s_w / a.k_par,
                      e_col * SIN_WIDTH_CELLS * tf * col_wire, 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "BinaryWeightingCapacitors", (double) a.s_i * a.s_w / a.k_par,
                      cim_capacitor_energy (SIN_BWC_UNIT_CAP * (1 << SIN_WIDTH_CELLS), v)
                      * a.a_in * a.a_w * SIN_BWC_ACTIVITY,
                      0, CIM_PART_ARRAY);
  e->latency_per_pass = a.s_i * cycle;
  e->macs_per_pass = (double) a.n_par * a.k_par;
  record_operating_point (e, &a, cycle);
  add_array_levels (e, &a, FALSE, 1, PI (p, CIM_P_WEIGHT_BITS),
                    (SIN_CELL_WRITE + SIN_WDRIVER) * ve * tf,
                    "SRAM cells (1080 F^2), four per 4-b weight; writes program them");
  return TRUE;
}

/* ---- Wang et al., VLSI 2022 / JSSC 2023 ([1] §5.3) ---- */

#define WANG_NODE 22.0
#define WANG_VREF 0.7
#define WANG_VHIGH 1.0
#define WANG_BASE_CYCLE (6.8 * NS)           /* at 0.7 V, 16 columns, 5 kOhm, 8-b DAC */
#define WANG_LATENCY_EXPONENT 1.1
#define WANG_MIN_CYCLE (2 * NS)
#define WANG_MIN_COLUMN_SCALE 0.5            /* fewer columns shorten the cycle at most 2x */
#define WANG_TDAC_STEP (0.05 * NS)           /* x (2^1 - 1) with a 1-b temporal DAC */
#define WANG_BITS 8                          /* DAC, cell width, min supported bits */
#define WANG_DEPTH 8                         /* weights per CiM unit */
#define WANG_REF_ROWS 64.0
#define WANG_REF_COLS 16.0
#define WANG_ROW_E_OFF_LO 3.50e-15           /* J @0.7 V */
#define WANG_ROW_E_ON_LO 2.024e-13
#define WANG_ROW_E_OFF_HI 7.02e-15           /* J @1.0 V */
#define WANG_ROW_E_ON_HI 4.085e-13
#define WANG_COL_E_LO 6.45e-15
#define WANG_COL_E_HI 1.305e-14
#define WANG_ADC_SCALE 3.15
#define WANG_R2R_UNIT_OHM 5000.0
/* [fit] Mean ladder current of the dual-sided R-2R DAC per unit input
 * value, in V/R: E = k V^2 t_hold a_in / R, fitted to the catalogue's
 * 4.198e-13 J at 1.0 V (t_hold = cycle, a_in = 0.432). */
#define WANG_R2R_CURRENT_PER_VALUE 1.05738
#define WANG_C2C_UNIT_CAP (2 * FJ)           /* C of the C-2C multiplier */
#define WANG_C2C_ANALOG_FACTOR 1.67          /* switch energy scale of the model */
#define WANG_C2C_RESOLUTION 8
/* [fit] Digital-port swing of the C-2C multiplier: E = 3C V^2 x s x
 * a_w (1 - a_w) x resolution, fitted to the catalogue's 6.64e-15 J at
 * 1.0 V with a_w = 0.429. */
#define WANG_C2C_DIGITAL_SWING 0.56486
#define WANG_CELL_WRITE_LO 2.34e-13
#define WANG_CELL_WRITE_HI 6.59e-13
#define WANG_WDRIVER_LO 3.21e-14
#define WANG_WDRIVER_HI 6.56e-14

static const CimHistogram wang_inputs = { 7, { 1, 2, 3, 4, 3, 2, 1 } };

static const CimChipParam wang_params[] = {
  { CIM_P_VOLTAGE, "0.7", 0.7, 1.1, "the paper's voltage sweep", NULL },
  P_TECH ("22"),
  { CIM_P_INPUT_BITS, "8", 1, 8, NULL, NULL },
  { CIM_P_WEIGHT_BITS, "8", 1, 8, NULL, NULL },
  P_ARRAY ("64", "16"),
  { CIM_P_ADC_BITS, "8", 4, 16, "the ADC regression needs at least 4 bits", NULL },
  P_VALUES,
  P_MAIN_MEMORY,
  P_PROGRAM,
  P_END
};

static gboolean
wang_evaluate (const CimChip *chip, const CimParams *p, CimEvaluation *e, GError **error)
{
  double v = PV (p, CIM_P_VOLTAGE), node = PV (p, CIM_P_TECH_NM);
  int adc = PI (p, CIM_P_ADC_BITS), cols = PI (p, CIM_P_COLS), rows = PI (p, CIM_P_ROWS);
  double tf = cim_tech_energy_factor (WANG_NODE, node), ve = v * v;
  double cycle = MAX (MAX (WANG_BASE_CYCLE * MAX (WANG_MIN_COLUMN_SCALE, cols / WANG_REF_COLS)
                           * pow (WANG_VREF / v, WANG_LATENCY_EXPONENT),
                           WANG_TDAC_STEP),
                      WANG_MIN_CYCLE);
  double row_wire = cols / WANG_REF_COLS, col_wire = rows / WANG_REF_ROWS;
  double e_adc, e_off, e_on, e_col, program, c2c = 3 * WANG_C2C_UNIT_CAP;
  CimSlicing s = { &wang_inputs, CIM_ENCODING_OFFSET, PI (p, CIM_P_INPUT_BITS), WANG_BITS,
                   WANG_BITS, &hist_uniform_7, CIM_ENCODING_OFFSET,
                   PI (p, CIM_P_WEIGHT_BITS), WANG_BITS, WANG_BITS };
  CimArray a;

  if (!array_setup (&a, chip, p, &s, rows, cols, error))
    return FALSE;
  e_adc = cim_adc_energy (adc, node, 1.0 / cycle);
  e_off = cim_two_point_voltage_scale (v, WANG_VREF, WANG_ROW_E_OFF_LO, WANG_VHIGH, WANG_ROW_E_OFF_HI);
  e_on = cim_two_point_voltage_scale (v, WANG_VREF, WANG_ROW_E_ON_LO, WANG_VHIGH, WANG_ROW_E_ON_HI);
  e_col = cim_two_point_voltage_scale (v, WANG_VREF, WANG_COL_E_LO, WANG_VHIGH, WANG_COL_E_HI);

  cim_evaluation_add (e, "DAC", (double) a.s_i / a.n_par,
                      WANG_R2R_CURRENT_PER_VALUE * ve * cycle * a.a_in / WANG_R2R_UNIT_OHM,
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "RowDrivers", (double) a.s_i / a.n_par,
                      cim_row_driver_energy (e_off * tf * row_wire, e_on * tf * row_wire,
                                             a.a_in, 1, TRUE),
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "SelectWordlineDrivers", (double) a.s_i / a.n_par,
                      e_on * tf * row_wire, 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "ADC", (double) a.s_i * a.s_w / a.k_par,
                      CIM_ADC_ACTION_SHARE * e_adc * WANG_ADC_SCALE * ve,
                      CIM_ADC_LEAK_SHARE * e_adc * (cols / cycle) * WANG_ADC_SCALE * ve,
                      CIM_PART_ARRAY);
  cim_evaluation_add (e, "ColumnDrivers", (double) a.s_i * a.s_w / a.k_par,
                      e_col * tf * col_wire, 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "C2CMultiplier", (double) a.s_i * a.s_w,
                      WANG_C2C_ANALOG_FACTOR * cim_capacitor_energy (c2c, v)
                      * cim_histogram_mean_level (&wang_inputs),
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "C2CMultiplierPortB", (double) a.s_i * a.s_w,
                      cim_capacitor_energy (c2c, v) * WANG_C2C_DIGITAL_SWING
                      * a.a_w * (1 - a.a_w) * WANG_C2C_RESOLUTION,
                      0, CIM_PART_ARRAY);
  e->latency_per_pass = a.s_i * cycle;
  e->macs_per_pass = (double) a.n_par * a.k_par;
  record_operating_point (e, &a, cycle);
  program = cim_two_point_voltage_scale (v, WANG_VREF, WANG_CELL_WRITE_LO,
                                         WANG_VHIGH, WANG_CELL_WRITE_HI)
            + cim_two_point_voltage_scale (v, WANG_VREF, WANG_WDRIVER_LO,
                                           WANG_VHIGH, WANG_WDRIVER_HI);
  add_array_levels (e, &a, FALSE, WANG_DEPTH, PI (p, CIM_P_WEIGHT_BITS), program * tf,
                    "SRAM sub-bank (400 F^2 cells): 8 weights of 8 b, one selected per cycle");
  return TRUE;
}

/* ---- Colonnade, Kim et al., JSSC 2021 ([1] §5.4) ---- */

#define COL_NODE 65.0
#define COL_VREF 0.8
#define COL_STAGE_DELAY (0.4 * NS)           /* per pipeline stage at 0.8 V */
#define COL_PIPELINE_EXTRA 2                 /* stages beyond weight bits and rows */
#define COL_REF_ROWS 128.0
#define COL_REF_COLS 128.0
#define COL_ROW_E_OFF 1.19e-14               /* J @0.8 V */
#define COL_ROW_E_ON 6.71e-14
#define COL_COL_E 4.663e-14                  /* J per column readout @0.8 V */
/* NeuroSim 1-b full adder and flip-flop at 65 nm, 0.8 V: [fit] solved from
 * the catalogue's CimLogic (3.209e-15 J = adder x 0.0285 x 25 x
 * sqrt(a(1-a))) and register (5.48e-15 J = 4.5 x flip-flop) energies. */
#define COL_ADDER_E 9.094e-15
#define COL_FLIPFLOP_E 1.2178e-15
#define COL_LOGIC_FACTOR 0.0285              /* CimLogic = adder x this x switching */
#define COL_LOGIC_EXTRA_ADDERS 10            /* adders on the critical path beyond enc_w */
#define COL_REGISTER_FACTOR 4.5              /* register = flip-flop x this */
#define COL_WIRE_CAP (1 * FJ)                /* per input-port wire */
#define COL_WIRE_V 0.8
#define COL_CELL_WRITE 6.65e-12
#define COL_WDRIVER 1.82e-13

static const CimChipParam colonnade_params[] = {
  { CIM_P_VOLTAGE, "0.8", 0.6, 0.8,
    "the paper's measured range; the model scales energy as V^2", NULL },
  P_TECH ("65"),
  { CIM_P_INPUT_BITS, "1", 1, 16, NULL, NULL },
  { CIM_P_WEIGHT_BITS, "8", 1, 16, NULL, NULL },
  { CIM_P_ROWS, "128", 2, 4096, NULL, NULL },
  { CIM_P_COLS, "128", 1, 4096, NULL, NULL },
  { CIM_P_N_REGISTERS, "16", 1, 4096, NULL, NULL },
  { CIM_P_LOGIC_SCALE, "1", 0.1, 10, NULL, NULL },
  P_VALUES,
  P_MAIN_MEMORY,
  P_PROGRAM,
  P_END
};

static gboolean
colonnade_evaluate (const CimChip *chip, const CimParams *p, CimEvaluation *e, GError **error)
{
  double v = PV (p, CIM_P_VOLTAGE), node = PV (p, CIM_P_TECH_NM);
  int cols = PI (p, CIM_P_COLS), rows = PI (p, CIM_P_ROWS), n_regs = PI (p, CIM_P_N_REGISTERS);
  int w_bits = PI (p, CIM_P_WEIGHT_BITS);
  int accumulate_bits = (int) ceil (log2 (rows));
  double ve = (v / COL_VREF) * (v / COL_VREF) * cim_tech_energy_factor (COL_NODE, node);
  double cycle, activity_in, rows_per_reg;
  CimSlicing s = { &hist_uniform_7, CIM_ENCODING_OFFSET, PI (p, CIM_P_INPUT_BITS), 1, 1,
                   &hist_uniform_7, CIM_ENCODING_OFFSET, w_bits + accumulate_bits, 1, 1 };
  CimArray a;

  if (n_regs > rows || rows % n_regs != 0)
    return chip_fail (error, chip, CIM_P_N_REGISTERS,
                      "%d registers do not divide the %d rows into equal groups",
                      n_regs, rows);
  if (!array_setup (&a, chip, p, &s, rows, cols, error))
    return FALSE;
  rows_per_reg = (double) rows / n_regs;
  /* Bit-pipelined: one stage per weight column, per row of a group, plus two. */
  cycle = (a.enc_w + rows_per_reg + COL_PIPELINE_EXTRA) * COL_STAGE_DELAY * (COL_VREF / v);
  activity_in = a.a_in * (1 - a.a_in);

  cim_evaluation_add (e, "RowDrivers", (double) a.s_i / a.n_par,
                      cim_row_driver_energy (COL_ROW_E_OFF * ve * cols / COL_REF_COLS,
                                             COL_ROW_E_ON * ve * cols / COL_REF_COLS,
                                             a.a_in, 1, TRUE),
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "DigitalLogicInputPorts", (double) a.s_i / a.n_par,
                      (COL_ADDER_E * cols
                       + COL_WIRE_CAP * COL_WIRE_V * COL_WIRE_V * cols) * ve * activity_in,
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "ColumnDrivers", (double) a.s_i * a.s_w / a.k_par,
                      COL_COL_E * ve * rows / COL_REF_ROWS, 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "Register", (double) a.s_i * a.s_w / rows_per_reg,
                      COL_REGISTER_FACTOR * COL_FLIPFLOP_E * ve, 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "CimLogic", (double) a.s_i * a.s_w,
                      COL_ADDER_E * COL_LOGIC_FACTOR * (a.enc_w + COL_LOGIC_EXTRA_ADDERS)
                      * sqrt (a.a_w * (1 - a.a_w)) * ve * PV (p, CIM_P_LOGIC_SCALE),
                      0, CIM_PART_ARRAY);
  e->latency_per_pass = a.s_i * cycle;
  e->macs_per_pass = (double) a.n_par * a.k_par;
  record_operating_point (e, &a, cycle);
  add_array_levels (e, &a, FALSE, 1, w_bits, (COL_CELL_WRITE + COL_WDRIVER) * ve,
                    "SRAM + XNOR + full-adder cells, one column per weight bit plus "
                    "accumulation bits; writes program them");
  return TRUE;
}

/* ---- NeuRRAM, Wan et al., Nature 2022 ([1] §5.5) ---- */

#define NEU_NODE 130.0
#define NEU_VREF 1.8
#define NEU_INTEGRATION_STEP (0.27 * US)     /* per charge integration */
#define NEU_ADC_STEP (0.30 * US)             /* per ADC step */
#define NEU_PHASE_OVERHEAD (0.30 * US)       /* per phase */
#define NEU_REF_COLS 256.0
#define NEU_WL_CAP_PER_BITLINE ((1.5 + 0.6) * FJ) /* at 130 nm */
#define NEU_WL_CAP_FIXED (48 * FJ)
#define NEU_ROW_E_OFF 2.692e-13              /* J @1.8 V, 256 x 256 */
#define NEU_ROW_E_ON 2.596e-12
#define NEU_CELL_E_LO 2.492e-15              /* J per read, rram_neurram */
#define NEU_CELL_E_HI (2.492e-15 + 7.388e-15)
#define NEU_SHIFTADD_E (0.1 * PJ)            /* per ADC step */
#define NEU_ADC_E (0.3 * PJ)                 /* per ADC step */
#define NEU_INTEGRATOR_E (0.25 * PJ)         /* per integration */
#define NEU_SAMPLE_E (1.2 * PJ)
#define NEU_SHIFTADD_LEAK 1.3e-6             /* W per core */
#define NEU_ADC_LEAK 2.6e-6
#define NEU_INTEGRATOR_LEAK 1.3e-6
#define NEU_SAMPLE_LEAK 2.6e-6
#define NEU_TWO_PHASE_MIN_BITS 4             /* inputs of more bits take two phases */
#define NEU_CELL_WRITE 8.42e-11
#define NEU_WDRIVER 2.98e-10

static const CimHistogram neurram_hist = { 15, { 5, 5, 6, 6, 7, 7, 8, 8, 8, 7, 7, 6, 6, 5, 5 } };

static const CimChipParam neurram_params[] = {
  { CIM_P_VOLTAGE, "1.8", 1.44, 2.16, NOMINAL_RANGE_NOTE, NULL },
  P_TECH ("130"),
  { CIM_P_INPUT_BITS, "8", 1, 8, NULL, NULL },
  { CIM_P_WEIGHT_BITS, "4", 1, 8, NULL, NULL },
  { CIM_P_OUTPUT_BITS, "10", 1, 10, NULL, NULL },
  P_ARRAY ("256", "256"),
  { CIM_P_TWO_PHASE, "true", 0, 0, NULL, NULL },
  { CIM_P_N_CORES, "48", 1, 4096, NULL, NULL },
  P_VALUES,
  P_MAIN_MEMORY,
  P_PROGRAM,
  P_END
};

/* The neuron's steps for @enc_in input bits ([1] §5.5). */
static void
neurram_steps (int enc_in, int out_bits, gboolean two_phase,
               int *integration_steps, int *adc_steps, int *n_phases)
{
  int phases[2] = { enc_in, 0 };
  int done = 0;

  if (two_phase && enc_in >= NEU_TWO_PHASE_MIN_BITS)
    {
      phases[0] = (enc_in + 1) / 2;
      phases[1] = enc_in / 2;
    }
  *integration_steps = *adc_steps = *n_phases = 0;
  for (int i = 0; i < 2; i++)
    {
      if (phases[i] == 0)
        continue;
      *integration_steps += (1 << phases[i]) - 1;
      *adc_steps += MAX (out_bits - done, 0);
      *n_phases += 1;
      done += phases[i];
    }
}

static gboolean
neurram_evaluate (const CimChip *chip, const CimParams *p, CimEvaluation *e, GError **error)
{
  double v = PV (p, CIM_P_VOLTAGE), node = PV (p, CIM_P_TECH_NM);
  int w_bits = PI (p, CIM_P_WEIGHT_BITS), cols = PI (p, CIM_P_COLS), rows = PI (p, CIM_P_ROWS);
  int cores = PI (p, CIM_P_N_CORES), integ, adc_steps, n_phases;
  double ve = (v / NEU_VREF) * (v / NEU_VREF) * cim_tech_energy_factor (NEU_NODE, node);
  double wire = cols / NEU_REF_COLS, neuron_leak, cycle, wl_cap;
  CimSlicing s = { &neurram_hist, CIM_ENCODING_MAGNITUDE,
                   cim_encoded_bits (CIM_ENCODING_MAGNITUDE, PI (p, CIM_P_INPUT_BITS), &neurram_hist),
                   1, 1, &neurram_hist, CIM_ENCODING_TWO_PART_IF_SIGNED,
                   cim_encoded_bits (CIM_ENCODING_TWO_PART_IF_SIGNED, w_bits, &neurram_hist),
                   w_bits, 1 };
  CimArray a;

  if (!array_setup (&a, chip, p, &s, rows, cols, error))
    return FALSE;
  neurram_steps (a.enc_in, PI (p, CIM_P_OUTPUT_BITS), PV (p, CIM_P_TWO_PHASE) != 0,
                 &integ, &adc_steps, &n_phases);
  cycle = (NEU_INTEGRATION_STEP * integ + NEU_ADC_STEP * adc_steps
           + NEU_PHASE_OVERHEAD * n_phases) / a.enc_in * (NEU_VREF / v);
  wl_cap = (NEU_WL_CAP_PER_BITLINE * cols + NEU_WL_CAP_FIXED)
           * (node / NEU_NODE) * (node / NEU_NODE);
  neuron_leak = cores * ve * wire;

  cim_evaluation_add (e, "WordlineCap", (double) a.s_i / a.k_par,
                      cim_capacitor_energy (wl_cap, v), 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "RowDrivers", (double) a.s_i / a.n_par,
                      cim_row_driver_energy (NEU_ROW_E_OFF * ve * wire, NEU_ROW_E_ON * ve * wire,
                                             a.a_in, 1, TRUE),
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "ShiftAdd", (double) a.s_w / a.k_par,
                      NEU_SHIFTADD_E * adc_steps * ve, NEU_SHIFTADD_LEAK * neuron_leak,
                      CIM_PART_ARRAY);
  cim_evaluation_add (e, "ADC", (double) a.s_w / a.k_par,
                      NEU_ADC_E * adc_steps * ve, NEU_ADC_LEAK * neuron_leak, CIM_PART_ARRAY);
  cim_evaluation_add (e, "Integrator", (double) a.s_w / a.k_par,
                      NEU_INTEGRATOR_E * integ * ve, NEU_INTEGRATOR_LEAK * neuron_leak,
                      CIM_PART_ARRAY);
  cim_evaluation_add (e, "Sample", (double) a.s_i * a.s_w / a.k_par,
                      NEU_SAMPLE_E * ve, NEU_SAMPLE_LEAK * neuron_leak, CIM_PART_ARRAY);
  cim_evaluation_add (e, "CimUnit", (double) a.s_i * a.s_w,
                      cim_cell_read_energy (NEU_CELL_E_LO, NEU_CELL_E_HI, a.a_w, a.a_in, 1),
                      0, CIM_PART_ARRAY);
  e->latency_per_pass = a.s_i * cycle;
  e->macs_per_pass = (double) cores * a.n_par * a.k_par;
  record_operating_point (e, &a, cycle);
  add_fanout_level (e, "Cores", "the chip's cores, one macro each", (guint64) cores,
                    NULL, NULL);
  add_array_levels (e, &a, FALSE, 1, w_bits, (NEU_CELL_WRITE + NEU_WDRIVER) * ve,
                    "RRAM cells, one analog weight each, signed weights in two columns; "
                    "writes program them");
  return TRUE;
}

/* ---- RAELLA, Andrulis et al., ISCA 2023 ([1] §5.6) ---- */

#define RAE_NODE 32.0
#define RAE_CYCLE_AT_1V (1 * NS)
#define RAE_BITS_PER_CELL 3
#define RAE_WIDTH_CELLS 2                    /* 2T2R */
#define RAE_MIN_WEIGHT_BITS 2
#define RAE_ADCS_PER_ARRAY 4
#define RAE_ADC_RATE_DIVISOR 100.0           /* ADC rate = cols / (100 cycle) per array */
#define RAE_SPEC_ENERGY 0.42                 /* speculation: ADC, shift-add, register energy */
#define RAE_SPEC_RATE (8.0 / 11.0)           /* speculation: ADC throughput */
#define RAE_SPEC_PULSE 2.5                   /* speculation: cell read pulse */
#define RAE_REF_COLS 512.0
#define RAE_ROW_E_OFF 1.17e-14
#define RAE_ROW_E_ON 8.95e-14
#define RAE_CELL_E_LO (4.12e-15 / 2.5)       /* J per ns of read pulse */
#define RAE_CELL_E_HI (17.9e-15 / 2.5)
#define RAE_SHIFTADD_E 1.31e-13              /* NeuroSim, 8-b output, 16-b register */
#define RAE_FLAG_E 2.25e-14                  /* with speculation only */
#define RAE_FLAG_LEAK 9.3e-6
#define RAE_PSUBBUF_E 2.3e-15                /* Timely PSubBuf, 65 nm */
#define RAE_PSUBBUF_NODE 65.0
#define RAE_EDRAM_E 7.99e-14                 /* J/bit, IsaacEDRAM 256 x 2048 */
#define RAE_EDRAM_BITS (256.0 * 2048)
#define RAE_NETWORK_E (4.32e-13 / 8)         /* J/bit on the inter-macro bus */
#define RAE_OFFSET_E 4.22e-14                /* J per output bit corrected */
#define RAE_OFFSET_LEAK 1.75e-5
#define RAE_INBUF_BITS 16384.0
#define RAE_INBUF_READ 2.71e-14              /* J/bit; speculation reads twice */
#define RAE_INBUF_READ_SPEC 4.42e-14
#define RAE_INBUF_WRITE 4.27e-14
#define RAE_INBUF_LEAK 1.15e-5
#define RAE_OUTREG_BITS 4096.0
#define RAE_OUTREG_READ 9.29e-14             /* J/bit without speculation */
#define RAE_OUTREG_WRITE 1.04e-13
#define RAE_OUTREG_LEAK 1.75e-5
/* [estimate] RRAM programming, not in the catalogue: a set pulse of 2 V
 * for 40 ns into the 1333-Ohm on state, per cell. */
#define RRAM_PROGRAM_E (2.0 * 2.0 / 1333.0 * 40 * NS)

static const CimChipParam raella_params[] = {
  { CIM_P_VOLTAGE, "1.0", 0.8, 1.2, NOMINAL_RANGE_NOTE, NULL },
  P_TECH ("32"),
  { CIM_P_INPUT_BITS, "8", 1, 8, NULL, NULL },
  { CIM_P_WEIGHT_BITS, "8", 2, 8, NULL, NULL },
  { CIM_P_OUTPUT_BITS, "8", 1, 16, NULL, NULL },
  P_ARRAY ("512", "512"),
  { CIM_P_ADC_BITS, "7", 4, 16, "the ADC regression needs at least 4 bits", NULL },
  { CIM_P_SPECULATION, "true", 0, 0, NULL, NULL },
  { CIM_P_N_MACROS, "8", 1, 1024, NULL, NULL },
  { CIM_P_N_ARRAYS, "4", 1, 1024, NULL, NULL },
  P_VALUES,
  P_MAIN_MEMORY,
  P_PROGRAM,
  P_END
};

/* The tile's buffers and network: per-MAC components for the catalogue's
 * figure (@in_bits_per_mac and @out_bits_per_mac cross them per MAC,
 * @out_values_per_mac outputs are quantised). */
static void
raella_add_buffer_components (CimEvaluation *e,
                              gboolean spec,
                              double ve,
                              double in_bits_per_mac,
                              double out_bits_per_mac,
                              double out_values_per_mac)
{
  double spec_e = spec ? RAE_SPEC_ENERGY : 1.0;
  double crossing = in_bits_per_mac + out_bits_per_mac;

  cim_evaluation_add (e, "eDRAM read", crossing, RAE_EDRAM_E * ve, 0, CIM_PART_BUFFER);
  cim_evaluation_add (e, "eDRAM write", crossing, RAE_EDRAM_E * ve, 0, CIM_PART_BUFFER);
  cim_evaluation_add (e, "OutputQuantize", out_values_per_mac, RAE_EDRAM_E * ve, 0,
                      CIM_PART_BUFFER);
  cim_evaluation_add (e, "InterMacroNetwork", crossing, RAE_NETWORK_E * ve, 0, CIM_PART_BUFFER);
  cim_evaluation_add (e, "OutputCenterOffsetCorrect", out_bits_per_mac,
                      RAE_OFFSET_E * ve, RAE_OFFSET_LEAK * ve, CIM_PART_BUFFER);
  cim_evaluation_add (e, "InputBuffer read", in_bits_per_mac,
                      (spec ? RAE_INBUF_READ_SPEC : RAE_INBUF_READ) * ve,
                      RAE_INBUF_LEAK * ve, CIM_PART_BUFFER);
  cim_evaluation_add (e, "InputBuffer write", in_bits_per_mac,
                      RAE_INBUF_WRITE * ve, 0, CIM_PART_BUFFER);
  cim_evaluation_add (e, "OutputRegister read", out_bits_per_mac,
                      RAE_OUTREG_READ * spec_e * ve, RAE_OUTREG_LEAK * ve, CIM_PART_BUFFER);
  cim_evaluation_add (e, "OutputRegister write", out_bits_per_mac,
                      RAE_OUTREG_WRITE * spec_e * ve, 0, CIM_PART_BUFFER);
}

/* The tile's levels above the array: eDRAM, macros, input buffer, arrays,
 * output register. */
static void
raella_add_buffer_levels (CimEvaluation *e,
                          gboolean spec,
                          double ve,
                          int out_bits,
                          int macros,
                          int arrays)
{
  double spec_e = spec ? RAE_SPEC_ENERGY : 1.0;
  double n_arrays = (double) macros * arrays;
  double edram_w;

  /* The network, quantisation and offset correction act on data entering
   * or leaving the eDRAM: folded into its per-bit energies. */
  edram_w = RAE_EDRAM_E + RAE_NETWORK_E + RAE_EDRAM_E / out_bits + RAE_OFFSET_E;
  add_buffer_level (e, "eDRAM", "64 kB tile eDRAM of inputs and outputs; reads and "
                    "writes include the inter-macro bus, and writes the output "
                    "quantisation and offset correction",
                    RAE_EDRAM_BITS, (RAE_EDRAM_E + RAE_NETWORK_E) * ve, edram_w * ve,
                    RAE_OFFSET_LEAK * ve, "input | output");
  add_fanout_level (e, "Macros", "macros of the tile", (guint64) macros, NULL,
                    "input | output");
  add_buffer_level (e, "InputBuffer", "2 kB input buffer with running-sum adder, per macro",
                    RAE_INBUF_BITS, (spec ? RAE_INBUF_READ_SPEC : RAE_INBUF_READ) * ve,
                    RAE_INBUF_WRITE * ve, RAE_INBUF_LEAK * ve / macros, "input");
  add_fanout_level (e, "Arrays", "arrays of a macro", (guint64) arrays, NULL,
                    "input | output");
  add_buffer_level (e, "OutputRegister", "partial-sum register of an array",
                    RAE_OUTREG_BITS, RAE_OUTREG_READ * spec_e * ve,
                    RAE_OUTREG_WRITE * spec_e * ve, RAE_OUTREG_LEAK * ve / n_arrays, "output");
}

static gboolean
raella_evaluate (const CimChip *chip, const CimParams *p, CimEvaluation *e, GError **error)
{
  double v = PV (p, CIM_P_VOLTAGE), node = PV (p, CIM_P_TECH_NM);
  int cols = PI (p, CIM_P_COLS), rows = PI (p, CIM_P_ROWS), adc = PI (p, CIM_P_ADC_BITS);
  int macros = PI (p, CIM_P_N_MACROS), arrays = PI (p, CIM_P_N_ARRAYS);
  int in_bits = PI (p, CIM_P_INPUT_BITS), out_bits = PI (p, CIM_P_OUTPUT_BITS);
  gboolean spec = PV (p, CIM_P_SPECULATION) != 0;
  double ve = v * v * cim_tech_energy_factor (RAE_NODE, node);
  double cycle = RAE_CYCLE_AT_1V / v, wire = cols / RAE_REF_COLS;
  double spec_e = spec ? RAE_SPEC_ENERGY : 1.0, pulse = spec ? RAE_SPEC_PULSE : 1.0;
  double adc_rate = cols / (RAE_ADC_RATE_DIVISOR * cycle); /* per array */
  double n_arrays = (double) macros * arrays, e_adc, in_per_mac, out_per_mac;
  CimSlicing s = { &hist_sparse_positive, CIM_ENCODING_TWO_PART_IF_SIGNED,
                   cim_encoded_bits (CIM_ENCODING_TWO_PART_IF_SIGNED, in_bits, &hist_sparse_positive),
                   1, 1, &hist_bell_7, CIM_ENCODING_TWO_PART_IF_SIGNED,
                   cim_encoded_bits (CIM_ENCODING_TWO_PART_IF_SIGNED,
                                     PI (p, CIM_P_WEIGHT_BITS), &hist_bell_7),
                   RAE_WIDTH_CELLS * RAE_BITS_PER_CELL, RAE_MIN_WEIGHT_BITS };
  CimArray a;

  if (!array_setup (&a, chip, p, &s, rows, cols, error))
    return FALSE;
  e_adc = cim_adc_energy (adc, node, adc_rate / RAE_ADCS_PER_ARRAY);
  /* Each array takes its own inputs and outputs (the peak workload puts M
   * on the macros and arrays): values crossing the buffers per MAC. */
  in_per_mac = 1.0 / a.n_par;
  out_per_mac = 1.0 / a.k_par;

  cim_evaluation_add (e, "ADC", (double) a.s_i * a.s_w / a.k_par,
                      CIM_ADC_ACTION_SHARE * e_adc * spec_e * v * v,
                      CIM_ADC_LEAK_SHARE * e_adc * adc_rate * n_arrays * v * v, CIM_PART_ARRAY);
  cim_evaluation_add (e, "CimUnit", (double) a.s_i * a.s_w,
                      cim_cell_read_energy (RAE_CELL_E_LO * pulse, RAE_CELL_E_HI * pulse,
                                            a.a_w, a.a_in, 1),
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "ShiftAdd", (double) a.s_i * a.s_w / a.k_par,
                      RAE_SHIFTADD_E * spec_e * ve, 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "FlagRegister", (double) a.s_i * a.s_w / a.k_par,
                      spec ? RAE_FLAG_E * ve : 0, RAE_FLAG_LEAK * ve, CIM_PART_ARRAY);
  cim_evaluation_add (e, "RowDrivers", (double) a.s_i / a.n_par,
                      cim_row_driver_energy (RAE_ROW_E_OFF * ve * wire, RAE_ROW_E_ON * ve * wire,
                                             a.a_in, 1, TRUE),
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "TimelyPsubbuf", 1.0 / a.k_par,
                      RAE_PSUBBUF_E * cim_tech_energy_factor (RAE_PSUBBUF_NODE, node),
                      0, CIM_PART_ARRAY);
  raella_add_buffer_components (e, spec, ve, in_bits * in_per_mac, out_bits * out_per_mac,
                                out_per_mac);
  e->latency_per_pass = MAX (a.s_i * cycle,
                             (double) a.n_par * a.s_w * a.s_i
                             / (adc_rate * (spec ? RAE_SPEC_RATE : 1.0)));
  e->macs_per_pass = n_arrays * a.n_par * a.k_par;
  record_operating_point (e, &a, cycle);

  raella_add_buffer_levels (e, spec, ve, out_bits, macros, arrays);
  add_array_levels (e, &a, FALSE, 1, PI (p, CIM_P_WEIGHT_BITS),
                    RAE_WIDTH_CELLS * RRAM_PROGRAM_E,
                    "2T2R RRAM cells, 3 b each, 6-b weight slices; writes program them "
                    "(programming energy estimated)");
  return TRUE;
}

/* ---- ISAAC, Shafiee et al., ISCA 2016 ([1] §5.7) ---- */

#define ISA_NODE 32.0
#define ISA_CYCLE_AT_1V (1 * NS)
#define ISA_ADC_RATE_DIVISOR 100.0           /* one ADC per array, cols / (100 cycle) */
#define ISA_MIN_WEIGHT_BITS 2
#define ISA_REF_COLS 128.0
#define ISA_ROW_E_OFF 1.17e-14
#define ISA_ROW_E_ON 5.34e-14
#define ISA_CELL_E_LO 1.95e-15
#define ISA_CELL_E_HI 21.3e-15
#define ISA_SHIFTADD_E_16B 0.021e-12         /* IsaacShiftAdd, 16 b, linear in width */
#define ISA_INBUF_READ 1.60e-14              /* J/bit, SmartBufferSRAM 64-b port */
#define ISA_INBUF_WRITE 3.17e-14
#define ISA_INBUF_LEAK 4.6e-7
#define ISA_OUTBUF_READ 2.57e-14
#define ISA_OUTBUF_WRITE 3.81e-14
#define ISA_OUTBUF_LEAK 5.9e-7
#define ISA_OUTBUF_WIDEN 2                   /* outputs held at 2x bits for accumulation */

static const CimChipParam isaac_params[] = {
  { CIM_P_VOLTAGE, "1.0", 0.8, 1.2, NOMINAL_RANGE_NOTE, NULL },
  P_TECH ("32"),
  { CIM_P_INPUT_BITS, "16", 1, 16, NULL, NULL },
  { CIM_P_WEIGHT_BITS, "16", 2, 16, NULL, NULL },
  { CIM_P_OUTPUT_BITS, "16", 1, 32, NULL, NULL },
  P_ARRAY ("128", "128"),
  { CIM_P_ADC_BITS, "8", 4, 16, "the ADC regression needs at least 4 bits", NULL },
  { CIM_P_BITS_PER_CELL, "2", 1, 4, NULL, NULL },
  { CIM_P_N_ARRAYS, "8", 1, 1024, NULL, NULL },
  P_VALUES,
  P_MAIN_MEMORY,
  P_PROGRAM,
  P_END
};

static gboolean
isaac_evaluate (const CimChip *chip, const CimParams *p, CimEvaluation *e, GError **error)
{
  double v = PV (p, CIM_P_VOLTAGE), node = PV (p, CIM_P_TECH_NM);
  int cols = PI (p, CIM_P_COLS), rows = PI (p, CIM_P_ROWS), adc = PI (p, CIM_P_ADC_BITS);
  int arrays = PI (p, CIM_P_N_ARRAYS), in_bits = PI (p, CIM_P_INPUT_BITS);
  int out_bits = PI (p, CIM_P_OUTPUT_BITS);
  double ve = v * v * cim_tech_energy_factor (ISA_NODE, node), wire = cols / ISA_REF_COLS;
  double cycle = ISA_CYCLE_AT_1V / v, adc_rate = cols / (ISA_ADC_RATE_DIVISOR * cycle);
  double e_adc, in_per_mac, out_per_mac;
  CimSlicing s = { &hist_sparse_positive, CIM_ENCODING_OFFSET, in_bits, 1, 1,
                   &hist_bell_7, CIM_ENCODING_OFFSET, PI (p, CIM_P_WEIGHT_BITS),
                   PI (p, CIM_P_BITS_PER_CELL), ISA_MIN_WEIGHT_BITS };
  CimArray a;
  CimLevel *level;

  if (!array_setup (&a, chip, p, &s, rows, cols, error))
    return FALSE;
  e_adc = cim_adc_energy (adc, node, adc_rate);
  /* The arrays split the outputs and share the inputs ([1] §5.7). */
  in_per_mac = 1.0 / ((double) a.n_par * arrays);
  out_per_mac = 1.0 / a.k_par;

  cim_evaluation_add (e, "ADC", (double) a.s_i * a.s_w / a.k_par,
                      CIM_ADC_ACTION_SHARE * e_adc * v * v,
                      CIM_ADC_LEAK_SHARE * e_adc * adc_rate * arrays * v * v, CIM_PART_ARRAY);
  cim_evaluation_add (e, "CimUnit", (double) a.s_i * a.s_w,
                      cim_cell_read_energy (ISA_CELL_E_LO, ISA_CELL_E_HI, a.a_w, a.a_in, 1),
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "RowDrivers", (double) a.s_i / a.n_par,
                      cim_row_driver_energy (ISA_ROW_E_OFF * ve * wire, ISA_ROW_E_ON * ve * wire,
                                             a.a_in, 1, TRUE),
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "ShiftAdd", (double) a.s_i * a.s_w / a.k_par,
                      ISA_SHIFTADD_E_16B * out_bits / 16.0 * ve, 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "OutputBuffer read", ISA_OUTBUF_WIDEN * out_bits * out_per_mac,
                      ISA_OUTBUF_READ * ve, ISA_OUTBUF_LEAK * ve, CIM_PART_BUFFER);
  cim_evaluation_add (e, "OutputBuffer write", ISA_OUTBUF_WIDEN * out_bits * out_per_mac,
                      ISA_OUTBUF_WRITE * ve, 0, CIM_PART_BUFFER);
  cim_evaluation_add (e, "InputBuffer read", in_bits * in_per_mac,
                      ISA_INBUF_READ * ve, ISA_INBUF_LEAK * ve, CIM_PART_BUFFER);
  cim_evaluation_add (e, "InputBuffer write", in_bits * in_per_mac,
                      ISA_INBUF_WRITE * ve, 0, CIM_PART_BUFFER);
  /* ADC-bound: every weight slice of every column group converts once per
   * input slice on the array's one ADC. */
  e->latency_per_pass = MAX (a.s_i * cycle, (double) a.n_par * a.s_w * a.s_i / adc_rate);
  e->macs_per_pass = (double) arrays * a.n_par * a.k_par;
  record_operating_point (e, &a, cycle);

  add_buffer_level (e, "InputBuffer", "input buffer of the IMA (SmartBufferSRAM)",
                    8.0 * rows * 8, ISA_INBUF_READ * ve, ISA_INBUF_WRITE * ve,
                    ISA_INBUF_LEAK * ve, "input");
  level = add_buffer_level (e, "OutputBuffer", "output buffer of the IMA; partial sums "
                            "held at twice the output bits",
                            16.0 * rows * 8, ISA_OUTBUF_READ * ve, ISA_OUTBUF_WRITE * ve,
                            ISA_OUTBUF_LEAK * ve, "output");
  level->bits_tensors = "output";
  level->bits = ISA_OUTBUF_WIDEN * out_bits;
  add_fanout_level (e, "Arrays", "crossbars of the IMA", (guint64) arrays, NULL, NULL);
  add_array_levels (e, &a, FALSE, 1, PI (p, CIM_P_WEIGHT_BITS), RRAM_PROGRAM_E,
                    "RRAM cells, 2 b each; writes program them (programming energy "
                    "estimated)");
  return TRUE;
}

/* ---- Albireo, Shiflett et al., ISCA 2021 ([1] §5.8) ---- */

#define ALB_NODE 7.0
#define ALB_N_SCENARIOS 3
static const double alb_dac_e[ALB_N_SCENARIOS] = { 5.2 * PJ, 2.6 * PJ, 0.325 * PJ };
static const double alb_tia_e[ALB_N_SCENARIOS] = { 0.625 * PJ, 0.3125 * PJ, 0.045 * PJ };
/* ADC energy scale: a 28 nm ADC reused without 7 nm scaling ([1] §5.8). */
static const double alb_adc_scale[ALB_N_SCENARIOS] = { 26.4, 12.9, 1.4 };
static const double alb_mzm_leak[ALB_N_SCENARIOS] = { 11.3e-3, 1.41e-3, 0.565e-3 };
static const double alb_mrr_leak[ALB_N_SCENARIOS] = { 3.1e-3, 0.388e-3, 0.155e-3 };
static const double alb_laser_leak[ALB_N_SCENARIOS] = { 1.94e-3, 0.0743e-3, 0.0614e-3 };
/* Global buffer, weight cache and output registers at the max-utilisation
 * workload: 0.018 W for 1215 MACs per 0.2 ns ([1] §5.8). */
#define ALB_BUFFER_E_PER_MAC (0.018 * 0.2 * NS / 1215)
#define ALB_GLB_BITS (32768.0 * 128)
#define ALB_GLB_E 3.38e-15                   /* J/bit after the x0.012 scale */
#define ALB_GLB_LEAK 3.9e-6
#define ALB_CACHE_BITS (4096.0 * 64)
#define ALB_CACHE_E 1.36e-16
#define ALB_CACHE_LEAK 29e-9

static const CimChipParam albireo_params[] = {
  { CIM_P_SCENARIO, "conservative", 0, 0, NULL, NULL },
  { CIM_P_N_PLCG, "9", 1, 1024, NULL, NULL },
  { CIM_P_N_PLCU, "3", 1, 1024, NULL, NULL },
  { CIM_P_N_STAR_GROUPS, "3", 1, 1024, NULL, NULL },
  { CIM_P_ROWS, "3", 1, 1024, NULL,
    "kernel rows per star group (sliding-window inputs shared between rows)" },
  { CIM_P_COLS, "5", 1, 1024, NULL,
    "output columns per unit sharing one weight" },
  { CIM_P_CLOCK_GHZ, "5", 0.1, 20, NULL, NULL },
  { CIM_P_ADC_BITS, "8", 4, 16, "the ADC regression needs at least 4 bits", NULL },
  P_MAIN_MEMORY,
  P_END
};

static gboolean
albireo_evaluate (const CimChip *chip, const CimParams *p, CimEvaluation *e, GError **error)
{
  int sc = PI (p, CIM_P_SCENARIO);
  double m = PV (p, CIM_P_N_PLCG), c = PV (p, CIM_P_N_PLCU) * PV (p, CIM_P_N_STAR_GROUPS);
  double r = PV (p, CIM_P_ROWS), q = PV (p, CIM_P_COLS);
  double cycle = 1.0 / (PV (p, CIM_P_CLOCK_GHZ) * 1e9);
  double macs = m * c * r * q;
  /* Conversions and devices per cycle: inputs slide across the rows
   * (C (P + R - 1) per unit group), weights are converted per group. */
  double in_conv = c * (q + r - 1), w_conv = m * c * r, outputs = m * q;
  double e_adc = cim_adc_energy (PI (p, CIM_P_ADC_BITS), ALB_NODE, 1.0 / cycle);
  double adc_leak = CIM_ADC_LEAK_SHARE * e_adc * (q / cycle) * alb_adc_scale[sc] * m;

  (void) chip;
  (void) error;
  cim_evaluation_add (e, "DAC", (in_conv + w_conv) / macs, alb_dac_e[sc], 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "ADC", outputs / macs,
                      CIM_ADC_ACTION_SHARE * e_adc * alb_adc_scale[sc], adc_leak,
                      CIM_PART_ARRAY);
  cim_evaluation_add (e, "TIA", outputs / macs, alb_tia_e[sc], 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "MZM", 0, 0, (in_conv + w_conv) * alb_mzm_leak[sc], CIM_PART_ARRAY);
  cim_evaluation_add (e, "DoubleMRR", 0, 0, macs * 2 * alb_mrr_leak[sc], CIM_PART_ARRAY);
  cim_evaluation_add (e, "InputMRR", 0, 0, in_conv * alb_mrr_leak[sc], CIM_PART_ARRAY);
  cim_evaluation_add (e, "Laser", 0, 0, macs * alb_laser_leak[sc], CIM_PART_ARRAY);
  cim_evaluation_add (e, "Buffers", 1, ALB_BUFFER_E_PER_MAC, 0, CIM_PART_BUFFER);
  e->latency_per_pass = cycle;
  e->macs_per_pass = macs;
  e->cycle_period = cycle;

  add_buffer_level (e, "GlobalBuffer", "global SRAM (aggressive SRAM scaling of the paper)",
                    ALB_GLB_BITS, ALB_GLB_E, ALB_GLB_E, ALB_GLB_LEAK, "input | output");
  add_fanout_level (e, "PLCG", "photonic locally-connected groups: one output channel "
                    "each, all seeing the same inputs", (guint64) m, "input", NULL);
  add_buffer_level (e, "WeightCache", "per-group weight SRAM", ALB_CACHE_BITS,
                    ALB_CACHE_E, ALB_CACHE_E, ALB_CACHE_LEAK, "weight");
  add_fanout_level (e, "PLCU", "locally-connected units: products summed optically",
                    (guint64) PI (p, CIM_P_N_PLCU), "output", NULL);
  add_fanout_level (e, "StarGroups", "star-coupled row groups: products summed optically",
                    (guint64) PI (p, CIM_P_N_STAR_GROUPS), "output", NULL);
  add_fanout_level (e, "KernelRows", "kernel rows: products summed optically",
                    (guint64) r, "output", NULL);
  add_fanout_level (e, "OutputColumns", "output columns sharing one weight",
                    (guint64) q, "weight", NULL);
  return TRUE;
}

/* ---- Lightning, Zhong et al., SIGCOMM 2023 ([1] §5.9, CiMLoop only) ---- */

#define LIG_NODE 65.0
#define LIG_BITS 8                           /* resolution of the CSV converters */
#define LIG_DAC_E (0.793 * PJ)               /* per conversion */
#define LIG_ADC_E (0.773 * PJ)
#define LIG_PHOTONIC_E (3.99e-5 * PJ)        /* modulator, laser, photodiode per action */
#define LIG_WORD_BITS 512.0
#define LIG_SRAM_E (0.191 * PJ / LIG_WORD_BITS)  /* J/bit */
#define LIG_IO_E (0.092 * PJ / LIG_WORD_BITS)
#define LIG_MEM_BITS (512.0 * 4096)

static const CimChipParam lightning_params[] = {
  { CIM_P_VOLTAGE, "1.0", 0.8, 1.2, NOMINAL_RANGE_NOTE, NULL },
  P_TECH ("65"),
  { CIM_P_INPUT_BITS, "8", 1, 12, NULL, NULL },
  { CIM_P_WEIGHT_BITS, "8", 1, 12, NULL, NULL },
  { CIM_P_OUTPUT_BITS, "8", 1, 32, NULL, NULL },
  { CIM_P_ADC_BITS, "8", 1, 12, NULL, NULL },
  { CIM_P_N_WAVELENGTHS, "24", 1, 1024, NULL, NULL },
  { CIM_P_N_PARALLEL_WEIGHTS, "24", 1, 1024, NULL, NULL },
  { CIM_P_BATCH, "1", 1, 1024, NULL, NULL },
  { CIM_P_CLOCK_GHZ, "97", 0.1, 200, NULL, NULL },
  P_MAIN_MEMORY,
  P_END
};

static gboolean
lightning_evaluate (const CimChip *chip, const CimParams *p, CimEvaluation *e, GError **error)
{
  double v = PV (p, CIM_P_VOLTAGE);
  double ve = v * v * cim_tech_energy_factor (LIG_NODE, PV (p, CIM_P_TECH_NM));
  double lanes = PV (p, CIM_P_N_WAVELENGTHS) * PV (p, CIM_P_N_PARALLEL_WEIGHTS);
  double batch = PV (p, CIM_P_BATCH), cycle = 1.0 / (PV (p, CIM_P_CLOCK_GHZ) * 1e9);
  double in_bits = PV (p, CIM_P_INPUT_BITS), w_bits = PV (p, CIM_P_WEIGHT_BITS);
  double out_bits = PV (p, CIM_P_OUTPUT_BITS);

  (void) chip;
  (void) error;
  /* Every MAC converts its own input; a weight serves the batch; the
   * wavelengths and parallel weights sum into one output. */
  cim_evaluation_add (e, "InputDAC", 1, LIG_DAC_E * ldexp (1, (int) in_bits - LIG_BITS) * ve,
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "WeightDAC", 1 / batch,
                      LIG_DAC_E * ldexp (1, (int) w_bits - LIG_BITS) * ve, 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "ADC", 1 / lanes,
                      LIG_ADC_E * ldexp (1, PI (p, CIM_P_ADC_BITS) - LIG_BITS) * ve,
                      0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "Modulators", 2, LIG_PHOTONIC_E, 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "Laser", 1, LIG_PHOTONIC_E, 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "Photodetector", 1 / lanes, LIG_PHOTONIC_E, 0, CIM_PART_ARRAY);
  cim_evaluation_add (e, "MemoryController", w_bits / batch, LIG_SRAM_E * ve, 0,
                      CIM_PART_BUFFER);
  cim_evaluation_add (e, "PacketIO", in_bits + out_bits / lanes, LIG_IO_E * ve, 0,
                      CIM_PART_BUFFER);
  e->latency_per_pass = cycle;
  e->macs_per_pass = lanes * batch;
  e->cycle_period = cycle;

  add_buffer_level (e, "PacketIO", "packet input/output buffers of the SmartNIC",
                    LIG_MEM_BITS, LIG_IO_E * ve, LIG_IO_E * ve, 0, "input | output");
  add_buffer_level (e, "MemoryController", "weight SRAM behind the memory controller",
                    LIG_MEM_BITS, LIG_SRAM_E * ve, LIG_SRAM_E * ve, 0, "weight");
  add_fanout_level (e, "Batch", "inputs processed in parallel with the same weights",
                    (guint64) batch, "weight", NULL);
  add_fanout_level (e, "Wavelengths", "wavelengths summed at the photodetector",
                    (guint64) PI (p, CIM_P_N_WAVELENGTHS), "output", NULL);
  add_fanout_level (e, "ParallelWeights", "virtualised modulators summed into one output",
                    (guint64) PI (p, CIM_P_N_PARALLEL_WEIGHTS), "output", NULL);
  return TRUE;
}

/* ---- The catalogue ---- */

static const CimChip chips[] = {
  { "basic-analog",
    "CiMLoop tutorial analog macro: 65 nm RRAM 32x32, 8-b operands; energy per MAC "
    "from the ADC regression and NeuroSim driver/cell coefficients, V^2 and node "
    "scaled (model only, no published figure)",
    "accelforge basic_analog.yaml (accelforge's CiM tutorial macro)",
    basic_params, basic_evaluate },
  { "jia-jssc2020",
    "Jia et al. JSSC 2020: 65 nm SRAM charge-domain macro 2304x256, 1-b slices, "
    "0.85-1.2 V; energy from ADC, row-driver, bitcell-capacitor and datapath "
    "formulas (published 400 TOPS/W macro at 0.85 V)",
    "Jia et al., JSSC 55(9) 2020; CiMLoop-style model of accelforge",
    jia_params, jia_evaluate },
  { "sinangil-jssc2021",
    "Sinangil et al. JSSC 2021: 7 nm SRAM macro 64x16, 4-b in/w/out, 0.65-1.0 V; "
    "energy from ADC, pulse-DAC drivers, binary-weighting capacitors by data "
    "statistics (published 351 TOPS/W, 372.4 GOPS)",
    "Sinangil et al., JSSC 56(1) 2021; CiMLoop-style model of accelforge",
    sinangil_params, sinangil_evaluate },
  { "wang-vlsi2022",
    "Wang et al. VLSI 2022: 22 nm SRAM C-2C charge-domain macro 64x16x8, 8-b, "
    "0.7-1.1 V; energy from R-2R DAC, ADC, C-2C and driver formulas (published "
    "32.2 TOPS/W at 0.7 V)",
    "Wang et al., VLSI 2022 / JSSC 2023; CiMLoop-style model of accelforge",
    wang_params, wang_evaluate },
  { "colonnade-jssc2021",
    "Colonnade (Kim et al. JSSC 2021): 65 nm digital bit-serial SRAM CiM 128x128, "
    "0.6-0.8 V; energy from adder, register and driver formulas (model ~26 % below "
    "the published 144 fJ/MAC, see logic_scale)",
    "Kim et al., JSSC 2021; CiMLoop-style model of accelforge",
    colonnade_params, colonnade_evaluate },
  { "neurram-nature2022",
    "NeuRRAM (Wan et al. Nature 2022): 130 nm RRAM, 48 cores of 256x256, ternary "
    "bit-serial inputs; energy from wordline, driver, integrator and ADC-step "
    "formulas (published 6.44 TOPS/W at 8-b in, 10-b out)",
    "Wan et al., Nature 608, 2022; CiMLoop-style model of accelforge",
    neurram_params, neurram_evaluate },
  { "raella-isca2023",
    "RAELLA (Andrulis et al. ISCA 2023): 32 nm ReRAM tile, 8 macros x 4 arrays of "
    "512x512, speculation; energy from ADC regression, cells, buffers (simulated "
    "chip: model only)",
    "Andrulis et al., ISCA 2023; CiMLoop-style model of accelforge",
    raella_params, raella_evaluate },
  { "isaac-isca2016",
    "ISAAC (Shafiee et al. ISCA 2016): 32 nm ReRAM IMA, 8 arrays of 128x128, 16-b, "
    "ADC-bound; energy from ADC regression, cells, buffers (simulated chip: model "
    "only)",
    "Shafiee et al., ISCA 2016; CiMLoop-style model of accelforge",
    isaac_params, isaac_evaluate },
  { "albireo-isca2021",
    "Albireo (Shiflett et al. ISCA 2021): 7 nm silicon photonics, 9 PLCGs, 5 GHz, "
    "three device scenarios; energy from DAC/ADC/TIA and static laser/modulator "
    "power (simulated chip: model vs the paper's power table)",
    "Shiflett et al., ISCA 2021; CiMLoop-style model of accelforge",
    albireo_params, albireo_evaluate },
  { "lightning-sigcomm2023",
    "Lightning (Zhong et al. SIGCOMM 2023): photonic-electronic SmartNIC, 24 "
    "wavelengths x 24 weights at 97 GHz; energy from its 65 nm converter and "
    "memory tables (CiMLoop model only)",
    "Zhong et al., SIGCOMM 2023; CiMLoop lightning_sigc_2023",
    lightning_params, lightning_evaluate },
};

guint
cim_chip_count (void)
{
  return G_N_ELEMENTS (chips);
}

const CimChip *
cim_chip_get (guint index)
{
  g_return_val_if_fail (index < G_N_ELEMENTS (chips), NULL);
  return &chips[index];
}

const CimChip *
cim_chip_find (const char *name)
{
  if (name == NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (chips); i++)
    if (strcmp (chips[i].name, name) == 0)
      return &chips[i];
  return NULL;
}

gboolean
cim_chip_evaluate (const CimChip *chip,
                   const CimParams *params,
                   CimEvaluation *eval,
                   GError **error)
{
  double instances = 1;

  for (const CimChipParam *p = chip->params; p->id != CIM_N_PARAMS; p++)
    if (!check_param (chip, p, params->value[p->id], error))
      return FALSE;
  cim_evaluation_init (eval);
  if (!chip->evaluate (chip, params, eval, error))
    return FALSE;
  for (guint i = 0; i < eval->n_levels; i++)
    if (eval->levels[i].kind == CIM_LEVEL_FANOUT)
      instances *= (double) eval->levels[i].count;
  eval->compute_instances = instances;
  return TRUE;
}
