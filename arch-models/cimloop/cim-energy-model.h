/* cim-energy-model.h: the compute-in-memory component formulas.
 *
 * What a compute-in-memory (CiM) array spends per multiply-accumulate
 * (MAC), after the CiMLoop framework [1] as the reference catalogue
 * re-derives it [2]: operands are cut into slices (bit slicing, [2] §4.2),
 * each slice pair is one analog MAC in a cell, inputs cross the row drivers
 * or DACs once per column group, partial sums cross the ADC once per row
 * group ([2] §4.5), and each component's energy per action comes from a
 * formula over the chip's supply voltage, technology node, resolutions,
 * array size and data-value statistics ([2] §4.3, §4.6). This module holds
 * those formulas and the record of one evaluation; the chips that combine
 * them live in cim-chips.c, the plugin that turns an evaluation into an
 * ffm architecture in cimloop.c.
 *
 * Representation: an evaluation is a flat list of components, each with its
 * actions per MAC at full array utilisation, its energy per action and its
 * leakage, plus the latency and MAC count of one array pass ("pass" = every
 * input slice of one set of array operands). Energy per MAC =
 * sum(count x energy) + sum(leak) x pass latency / MACs per pass, as [2]
 * §4.5 defines it. The evaluation also lists the memory and fanout levels
 * the chip maps to in ffm's architecture model (see docs/cimloop.md, "How
 * the CiM hierarchy folds into ffm's").
 *
 * Units: SI. Volts, metres only where a formula wants nanometres (named
 * _nm), joules per action, watts, seconds.
 *
 * Determinism: every function is pure; the same inputs give the same bits.
 *
 * [1] Andrulis et al., "CiMLoop: A Flexible, Accurate, and Fast
 *     Compute-In-Memory Modeling Tool", ISPASS 2024.
 * [2] accelforge's CiM framework and chip files, and the papers they cite. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CIM_MAX_COMPONENTS 24
#define CIM_MAX_LEVELS 12
#define CIM_MAX_HIST_BINS 63     /* 6-bit signed histograms at most */

/* ---- Technology and voltage scaling ([2] §4.6) ---- */

/* Smallest and largest node of the scaling tables, nm. */
#define CIM_TECH_MIN_NM 7.0
#define CIM_TECH_MAX_NM 130.0

/* Energy (and leakage) factor from node @from_nm to node @to_nm: the ratio
 * of the Stillmaker-Baas power polynomials at 0.8 V, interpolated linearly
 * in node between the table's nodes. Both nodes in [7, 130] nm. */
double cim_tech_energy_factor (double from_nm, double to_nm);

/* Energy at @v of a quantity known at two voltages: the power law through
 * (@v0, @e0) and (@v1, @e1). With @v1 == @v0 or a zero energy it is
 * @e0 x (v / v0)^2. Used for the NeuroSim coefficients the catalogue gives
 * at two operating points. */
double cim_two_point_voltage_scale (double v,
                                    double v0, double e0,
                                    double v1, double e1);

/* ---- ADC ([2] §4.6, Murmann-survey regression) ---- */

/* Energy of one conversion at the "best achievable" survey line, before the
 * model's 0.8 action / 0.2 leak split: @bits (>= 4, <= 20) of resolution,
 * @tech_nm node, @rate_per_adc conversions per second of one ADC. J. */
double cim_adc_energy (double bits, double tech_nm, double rate_per_adc);

/* Fraction of cim_adc_energy() charged per conversion, and the fraction of
 * cim_adc_energy() x aggregate rate that leaks ([2] §4.6 step 5). */
#define CIM_ADC_ACTION_SHARE 0.8
#define CIM_ADC_LEAK_SHARE 0.2

/* ---- Data-value statistics ([2] §4.3) ---- */

/* How values are written into the array's bits. */
typedef enum {
  CIM_ENCODING_OFFSET = 1,           /* bin index as an unsigned number */
  CIM_ENCODING_MAGNITUDE,            /* |value| on n-1 bits; sign in hardware */
  CIM_ENCODING_TWO_PART_MAGNITUDE,   /* magnitude, half the time all zeros */
  CIM_ENCODING_OFFSET_IF_SIGNED,     /* offset if the histogram is signed, else magnitude */
  CIM_ENCODING_TWO_PART_IF_SIGNED,   /* two-part if signed, else magnitude */
} CimEncoding;

/* A histogram of 2^n - 1 bins over an n-bit signed-symmetric range: bin 0
 * is the most negative value, the middle bin zero. Weights need not sum to
 * one. */
typedef struct {
  guint n_bins;                         /* 2^n - 1, 3..63 */
  double bins[CIM_MAX_HIST_BINS];       /* relative frequencies */
} CimHistogram;

/* TRUE if any mass lies below the middle bin. */
gboolean cim_histogram_is_signed (const CimHistogram *hist);

/* Mean of the bin position scaled to [0, 1] (bin i -> i / (n_bins - 1)):
 * the expected level a capacitor charged to the value reaches. */
double cim_histogram_mean_level (const CimHistogram *hist);

/* Mean of the squared level, same scale. */
double cim_histogram_mean_square_level (const CimHistogram *hist);

/* Bits one value takes after @encoding, for @bits-bit operands whose
 * distribution is @hist: offset keeps @bits, magnitude of a signed
 * histogram drops the sign bit (at least 1), two-part magnitude of a
 * signed histogram doubles them. */
int cim_encoded_bits (CimEncoding encoding, int bits, const CimHistogram *hist);

/* Average slice value in [0, 1] ([2] §4.3): values drawn from @hist,
 * written with @encoding on @total_bits bits, cut MSB first into slices of
 * @slice_bits (the last may be shorter); bit j of a b-bit slice weighs
 * 2^(b-j-1) / (2^slice_bits - 1); bits beyond the encoding's own vector
 * take that vector's mean bit. The mean over slices. Drives every
 * data-dependent energy (drivers, cells, capacitors). */
double cim_average_slice_value (const CimHistogram *hist,
                                CimEncoding encoding,
                                int total_bits,
                                int slice_bits);

/* Number of slices: max(ceil(@encoded_bits / @slice_bits),
 * ceil(@min_supported_bits / @slice_bits)). */
int cim_n_slices (int encoded_bits, int slice_bits, int min_supported_bits);

/* ---- NeuroSim-style periphery mixing ([2] §4.6) ---- */

/* Row driver read: E_off + (E_on - E_off) x a, a = @input_value x
 * (2^@temporal_dac_bits - 1) for temporal spiking (one pulse per level),
 * else @input_value. */
double cim_row_driver_energy (double e_off,
                              double e_on,
                              double input_value,
                              int temporal_dac_bits,
                              gboolean temporal_spiking);

/* Memory cell read: (E_lo + (E_hi - E_lo) x @weight_value) x @input_value
 * x (2^@temporal_dac_bits - 1). */
double cim_cell_read_energy (double e_lo,
                             double e_hi,
                             double weight_value,
                             double input_value,
                             int temporal_dac_bits);

/* Charging @capacitance from 0 to @voltage from a @voltage supply: C V^2. */
double cim_capacitor_energy (double capacitance, double voltage);

/* ---- One evaluation ---- */

/* Which part of the chip a component belongs to (bit flags). */
typedef enum {
  CIM_PART_ARRAY = 1 << 0,   /* array periphery, cells, converters: folded into the compute level */
  CIM_PART_BUFFER = 1 << 1,  /* a buffer or network: a memory level in ffm's architecture */
  CIM_PART_MACRO = 1 << 2,   /* counted in the paper's macro-only figure (Jia: rows, ADC, capacitors) */
} CimPart;

#define CIM_PART_ALL (CIM_PART_ARRAY | CIM_PART_BUFFER)

/* One component at the operating point. */
typedef struct {
  const char *name;          /* static string, e.g. "ADC" */
  double count_per_mac;      /* actions per MAC at full utilisation */
  double energy;             /* J per action */
  double leak_power;         /* W, all instances of the component */
  guint parts;               /* CimPart flags */
} CimComponent;

typedef enum {
  CIM_LEVEL_MEMORY = 1,
  CIM_LEVEL_FANOUT,
  CIM_LEVEL_CELLS,           /* the CiM unit: a memory that keeps the weights */
} CimLevelKind;

/* One level of ffm's architecture that the chip maps to, outermost first
 * (after the main memory the plugin adds, before the compute level). */
typedef struct {
  CimLevelKind kind;
  const char *name;          /* static string */
  const char *description;   /* static string */
  /* memory and cells */
  double size;               /* bits */
  double read_energy;        /* J per bit */
  double write_energy;       /* J per bit */
  double leak_power;         /* W per instance */
  const char *keep;          /* tensor set; NULL = nothing */
  const char *bits_tensors;  /* bits-per-value override: tensors, or NULL */
  double bits;               /* bits per value inside this level */
  /* fanout */
  guint64 count;
  const char *reuse;         /* tensors that must be shared; NULL = none */
  const char *may_reuse;     /* tensors that may be shared; NULL = default */
} CimLevel;

/* Everything one chip evaluation produces. */
typedef struct {
  CimComponent components[CIM_MAX_COMPONENTS];
  guint n_components;
  CimLevel levels[CIM_MAX_LEVELS];
  guint n_levels;
  double latency_per_pass;   /* s */
  double macs_per_pass;      /* MACs of the whole chip in one pass */
  double compute_instances;  /* compute units (product of all fanouts) */
  /* The operating point as the formulas saw it, for messages and docs. */
  int input_slices;          /* S_i */
  int weight_slices;         /* S_w */
  double input_value;        /* average input slice value */
  double weight_value;       /* average weight slice value */
  double cycle_period;       /* s */
} CimEvaluation;

void cim_evaluation_init (CimEvaluation *eval);

/* Appends a component (the table is sized for every chip; exceeding it is
 * a programming error). Returns it for further flags. */
CimComponent *cim_evaluation_add (CimEvaluation *eval,
                                  const char *name,
                                  double count_per_mac,
                                  double energy,
                                  double leak_power,
                                  guint parts);

/* Appends a level; returns it zeroed but for kind and name. */
CimLevel *cim_evaluation_add_level (CimEvaluation *eval,
                                    CimLevelKind kind,
                                    const char *name,
                                    const char *description);

/* ---- The energy-per-MAC and throughput pair ---- */

/* Energy per MAC of the components whose parts intersect @parts
 * (CIM_PART_ALL for the whole chip, CIM_PART_MACRO for a macro-only
 * figure): dynamic energy plus their leakage over one pass. J. */
double cim_energy_per_mac (const CimEvaluation *eval, guint parts);

/* Peak throughput: 2 operations per MAC x MACs per pass / pass latency.
 * Operations per second. */
double cim_throughput (const CimEvaluation *eval);

/* Dynamic energy per MAC of @parts, without leakage. J. */
double cim_dynamic_energy_per_mac (const CimEvaluation *eval, guint parts);

/* Leakage of @parts, W. */
double cim_leak_power (const CimEvaluation *eval, guint parts);

/* Operations per joule as TOPS/W: 2 / energy per MAC / 1e12. */
double cim_tops_per_watt (double energy_per_mac);

G_END_DECLS
