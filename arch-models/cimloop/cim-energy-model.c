/* cim-energy-model.c: the compute-in-memory component formulas.
 *
 * See cim-energy-model.h. Every constant below is a coefficient of a
 * published regression or table that [2] §4.6 quotes; none is tuned here. */
#include "cim-energy-model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Technology scaling ---- */

/* Nodes of the Stillmaker-Baas tables, nm, largest first, and the
 * coefficients (a, b, c) of each node's power polynomial a V^2 + b V + c
 * ([2] §4.6). */
static const double tech_nodes_nm[] = { 130, 90, 65, 45, 32, 20, 16, 14, 10, 7 };
static const double tech_power_coeffs[][3] = {
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

/* The tables compare nodes at this supply, V. */
#define TECH_REFERENCE_VOLTAGE 0.8

static double
tech_power_at_node (double node_nm)
{
  const guint n = G_N_ELEMENTS (tech_nodes_nm);
  double p[G_N_ELEMENTS (tech_nodes_nm)];
  const double v = TECH_REFERENCE_VOLTAGE;

  for (guint i = 0; i < n; i++)
    p[i] = tech_power_coeffs[i][0] * v * v + tech_power_coeffs[i][1] * v
           + tech_power_coeffs[i][2];
  node_nm = CLAMP (node_nm, CIM_TECH_MIN_NM, CIM_TECH_MAX_NM);
  for (guint i = 0; i + 1 < n; i++)
    if (node_nm <= tech_nodes_nm[i] && node_nm >= tech_nodes_nm[i + 1])
      {
        double t = (tech_nodes_nm[i] - node_nm)
                   / (tech_nodes_nm[i] - tech_nodes_nm[i + 1]);
        return p[i] + t * (p[i + 1] - p[i]);
      }
  return p[n - 1];
}

double
cim_tech_energy_factor (double from_nm, double to_nm)
{
  if (from_nm == to_nm)
    return 1.0;
  return tech_power_at_node (to_nm) / tech_power_at_node (from_nm);
}

double
cim_two_point_voltage_scale (double v, double v0, double e0, double v1, double e1)
{
  double exponent = 2.0;

  if (v == v0)
    return e0;
  if (v1 != v0 && e0 > 0 && e1 > 0)
    exponent = log (e1 / e0) / log (v1 / v0);
  return e0 * pow (v / v0, exponent);
}

/* ---- ADC ---- */

/* Regression of the Murmann ADC survey as hwcomponents-adc fits it
 * ([2] §4.6 steps 1-4). */
#define ADC_FOM_AT_1HZ 213.7807         /* dB, Schreier FOM intercept */
#define ADC_FOM_PER_LN_RATE 2.871903    /* dB per ln(samples/s) */
#define ADC_FOM_CAP_BASE 128.3068       /* dB, FOM ceiling at 0 ENOB */
#define ADC_FOM_CAP_PER_BIT 3.220512    /* dB per bit of the ceiling */
#define ADC_SNDR_PER_BIT 6.0206         /* dB per bit */
#define ADC_SNDR_BASE 1.7609            /* dB */
#define ADC_ENERGY_INTERCEPT 26.04962   /* ln-space intercept of the pJ fit */
#define ADC_ENERGY_PER_LN_TECH 1.880037
#define ADC_ENERGY_PER_LN_BITS 2.829126
#define ADC_ENERGY_OFFSET 1.470202

double
cim_adc_energy (double bits, double tech_nm, double rate_per_adc)
{
  double fom = ADC_FOM_AT_1HZ - ADC_FOM_PER_LN_RATE * log (rate_per_adc);
  double fom_cap = ADC_FOM_CAP_BASE + ADC_FOM_CAP_PER_BIT * ceil (bits);
  double sndr = ADC_SNDR_PER_BIT * bits + ADC_SNDR_BASE;
  double e0, picojoules;

  fom = MIN (fom, fom_cap);
  e0 = 1.0 / (2.0 * pow (10.0, (fom - sndr) / 10.0));
  picojoules = e0 * exp (ADC_ENERGY_INTERCEPT
                         + ADC_ENERGY_PER_LN_TECH * log (tech_nm)
                         - ADC_ENERGY_PER_LN_BITS * log (bits)
                         - ADC_ENERGY_OFFSET);
  return picojoules * 1e-12;
}

/* ---- Data-value statistics ---- */

gboolean
cim_histogram_is_signed (const CimHistogram *hist)
{
  for (guint i = 0; i < hist->n_bins / 2; i++)
    if (hist->bins[i] > 0)
      return TRUE;
  return FALSE;
}

static double
histogram_total (const CimHistogram *hist)
{
  double total = 0;

  for (guint i = 0; i < hist->n_bins; i++)
    total += hist->bins[i];
  return total;
}

double
cim_histogram_mean_level (const CimHistogram *hist)
{
  double total = histogram_total (hist), sum = 0;

  for (guint i = 0; i < hist->n_bins; i++)
    sum += hist->bins[i] * (double) i / (double) (hist->n_bins - 1);
  return total > 0 ? sum / total : 0;
}

double
cim_histogram_mean_square_level (const CimHistogram *hist)
{
  double total = histogram_total (hist), sum = 0;

  for (guint i = 0; i < hist->n_bins; i++)
    {
      double level = (double) i / (double) (hist->n_bins - 1);
      sum += hist->bins[i] * level * level;
    }
  return total > 0 ? sum / total : 0;
}

/* Bits of the histogram's value range: n_bins = 2^n - 1. */
static int
histogram_bits (const CimHistogram *hist)
{
  int n = 0;

  while ((1u << n) - 1 < hist->n_bins)
    n++;
  return n;
}

/* Resolves the _IF_SIGNED encodings against @hist. */
static CimEncoding
resolve_encoding (CimEncoding encoding, const CimHistogram *hist)
{
  gboolean is_signed = cim_histogram_is_signed (hist);

  if (encoding == CIM_ENCODING_OFFSET_IF_SIGNED)
    return is_signed ? CIM_ENCODING_OFFSET : CIM_ENCODING_MAGNITUDE;
  if (encoding == CIM_ENCODING_TWO_PART_IF_SIGNED)
    return is_signed ? CIM_ENCODING_TWO_PART_MAGNITUDE : CIM_ENCODING_MAGNITUDE;
  return encoding;
}

int
cim_encoded_bits (CimEncoding encoding, int bits, const CimHistogram *hist)
{
  gboolean is_signed = cim_histogram_is_signed (hist);

  switch (encoding)
    {
    case CIM_ENCODING_MAGNITUDE:
      return is_signed ? MAX (bits - 1, 1) : bits;
    case CIM_ENCODING_TWO_PART_MAGNITUDE:
    case CIM_ENCODING_TWO_PART_IF_SIGNED:
      return is_signed ? 2 * bits : bits;
    case CIM_ENCODING_OFFSET:
    case CIM_ENCODING_OFFSET_IF_SIGNED:
    default:
      return bits;
    }
}

/* Expected value of @total_bits bits cut into slices of @slice_bits, for
 * one encoded vector of @n_vector bits (MSB first) with probability 1.
 * Bits past the vector take its mean bit. */
static double
vector_slice_sum (const int *vector, int n_vector, int total_bits, int slice_bits)
{
  double mean_bit = 0, sum = 0;
  double denominator = ldexp (1.0, slice_bits) - 1.0;

  for (int j = 0; j < n_vector; j++)
    mean_bit += vector[j];
  mean_bit = n_vector > 0 ? mean_bit / n_vector : 0;
  for (int start = 0; start < total_bits; start += slice_bits)
    {
      int length = MIN (slice_bits, total_bits - start);

      for (int j = 0; j < length; j++)
        {
          int position = start + j;
          double bit = position < n_vector ? vector[position] : mean_bit;
          sum += bit * ldexp (1.0, length - j - 1) / denominator;
        }
    }
  return sum;
}

double
cim_average_slice_value (const CimHistogram *hist,
                         CimEncoding encoding,
                         int total_bits,
                         int slice_bits)
{
  int n = histogram_bits (hist);
  double total = histogram_total (hist), sum = 0;
  int n_slices;
  int vector[32];

  g_return_val_if_fail (total_bits >= 1 && slice_bits >= 1, 0);
  g_return_val_if_fail (n >= 2 && n <= 6, 0);
  if (total <= 0)
    return 0;
  encoding = resolve_encoding (encoding, hist);
  for (guint i = 0; i < hist->n_bins; i++)
    {
      double p = hist->bins[i] / total;
      int n_vector;

      if (p == 0)
        continue;
      if (encoding == CIM_ENCODING_OFFSET)
        {
          n_vector = n;
          for (int j = 0; j < n; j++)
            vector[j] = (int) ((i >> (n - 1 - j)) & 1u);
        }
      else
        {
          int magnitude = abs ((int) i - (int) (hist->n_bins - 1) / 2);

          n_vector = n - 1;
          for (int j = 0; j < n_vector; j++)
            vector[j] = (magnitude >> (n_vector - 1 - j)) & 1;
        }
      /* Two-part magnitude: the other half of the mass is an all-zero
       * vector, which adds nothing. */
      if (encoding == CIM_ENCODING_TWO_PART_MAGNITUDE)
        p /= 2;
      sum += p * vector_slice_sum (vector, n_vector, total_bits, slice_bits);
    }
  n_slices = (total_bits + slice_bits - 1) / slice_bits;
  return sum / n_slices;
}

int
cim_n_slices (int encoded_bits, int slice_bits, int min_supported_bits)
{
  int needed = (encoded_bits + slice_bits - 1) / slice_bits;
  int minimum = (min_supported_bits + slice_bits - 1) / slice_bits;

  return MAX (needed, minimum);
}

/* ---- Periphery mixing ---- */

double
cim_row_driver_energy (double e_off,
                       double e_on,
                       double input_value,
                       int temporal_dac_bits,
                       gboolean temporal_spiking)
{
  double activity = input_value;

  if (temporal_spiking)
    activity *= ldexp (1.0, temporal_dac_bits) - 1.0;
  return e_off + (e_on - e_off) * activity;
}

double
cim_cell_read_energy (double e_lo,
                      double e_hi,
                      double weight_value,
                      double input_value,
                      int temporal_dac_bits)
{
  return (e_lo + (e_hi - e_lo) * weight_value) * input_value
         * (ldexp (1.0, temporal_dac_bits) - 1.0);
}

double
cim_capacitor_energy (double capacitance, double voltage)
{
  return capacitance * voltage * voltage;
}

/* ---- Evaluation ---- */

void
cim_evaluation_init (CimEvaluation *eval)
{
  memset (eval, 0, sizeof *eval);
}

CimComponent *
cim_evaluation_add (CimEvaluation *eval,
                    const char *name,
                    double count_per_mac,
                    double energy,
                    double leak_power,
                    guint parts)
{
  CimComponent *c;

  g_return_val_if_fail (eval->n_components < CIM_MAX_COMPONENTS, NULL);
  c = &eval->components[eval->n_components++];
  c->name = name;
  c->count_per_mac = count_per_mac;
  c->energy = energy;
  c->leak_power = leak_power;
  c->parts = parts;
  return c;
}

CimLevel *
cim_evaluation_add_level (CimEvaluation *eval,
                          CimLevelKind kind,
                          const char *name,
                          const char *description)
{
  CimLevel *level;

  g_return_val_if_fail (eval->n_levels < CIM_MAX_LEVELS, NULL);
  level = &eval->levels[eval->n_levels++];
  memset (level, 0, sizeof *level);
  level->kind = kind;
  level->name = name;
  level->description = description;
  level->count = 1;
  return level;
}

double
cim_dynamic_energy_per_mac (const CimEvaluation *eval, guint parts)
{
  double sum = 0;

  for (guint i = 0; i < eval->n_components; i++)
    if (eval->components[i].parts & parts)
      sum += eval->components[i].count_per_mac * eval->components[i].energy;
  return sum;
}

double
cim_leak_power (const CimEvaluation *eval, guint parts)
{
  double sum = 0;

  for (guint i = 0; i < eval->n_components; i++)
    if (eval->components[i].parts & parts)
      sum += eval->components[i].leak_power;
  return sum;
}

double
cim_energy_per_mac (const CimEvaluation *eval, guint parts)
{
  return cim_dynamic_energy_per_mac (eval, parts)
         + cim_leak_power (eval, parts) * eval->latency_per_pass / eval->macs_per_pass;
}

double
cim_throughput (const CimEvaluation *eval)
{
  return 2.0 * eval->macs_per_pass / eval->latency_per_pass;
}

double
cim_tops_per_watt (double energy_per_mac)
{
  return 2.0 / energy_per_mac / 1e12;
}
