/* cim-chips.h: the catalogue of compute-in-memory chips.
 *
 * Each chip of [1] §5 as a set of parameters (supply voltage, technology
 * node, operand bits, array size, converter resolutions, data statistics,
 * chip-specific modes) with defaults at the catalogue's operating point and
 * the range in which its model holds, plus an evaluator that combines the
 * formulas of cim-energy-model.h with the chip's constants (capacitances,
 * calibration scales, NeuroSim coefficients) into a CimEvaluation. The
 * constants are those [1] §5 lists; where a number is fitted here rather
 * than quoted, its comment says [fit] and how.
 *
 * Parameters are held as doubles indexed by CimParamId: booleans are 0/1,
 * the one string parameter (Albireo's scenario) is the index of its choice,
 * and NAN in input_value/weight_value means "from the chip's histograms".
 *
 * Units: parameters in the units their help names (V, nm, bits, pJ/bit,
 * GHz); evaluations in SI.
 *
 * [1] accelforge's architecture files and the papers they cite. */
#pragma once

#include <glib.h>
#include <ffm/ffm.h>

#include "cim-energy-model.h"

G_BEGIN_DECLS

typedef enum {
  CIM_P_VOLTAGE,
  CIM_P_TECH_NM,
  CIM_P_INPUT_BITS,
  CIM_P_WEIGHT_BITS,
  CIM_P_OUTPUT_BITS,
  CIM_P_ROWS,
  CIM_P_COLS,
  CIM_P_ADC_BITS,
  CIM_P_DAC_BITS,
  CIM_P_BITS_PER_CELL,
  CIM_P_INPUT_VALUE,
  CIM_P_WEIGHT_VALUE,
  CIM_P_AVERAGE_OUTPUT,
  CIM_P_N_REGISTERS,
  CIM_P_LOGIC_SCALE,
  CIM_P_TWO_PHASE,
  CIM_P_N_CORES,
  CIM_P_SPECULATION,
  CIM_P_N_MACROS,
  CIM_P_N_ARRAYS,
  CIM_P_SCENARIO,
  CIM_P_N_PLCG,
  CIM_P_N_PLCU,
  CIM_P_N_STAR_GROUPS,
  CIM_P_CLOCK_GHZ,
  CIM_P_N_WAVELENGTHS,
  CIM_P_N_PARALLEL_WEIGHTS,
  CIM_P_BATCH,
  CIM_P_MAIN_MEMORY_PJ,
  CIM_P_PROGRAM_WEIGHTS,
  CIM_N_PARAMS
} CimParamId;

/* What a parameter is, whichever chip declares it. */
typedef struct {
  const char *name;            /* [a-z0-9_]+ */
  FfmParamType type;
  const char *help;            /* one line with the unit */
  const char *const *choices;  /* STRING only */
} CimParamInfo;

/* A parameter as one chip declares it. */
typedef struct {
  CimParamId id;               /* CIM_N_PARAMS ends a chip's list */
  const char *default_value;   /* text; "auto" for the data statistics */
  double min;                  /* inclusive range of the chip's model */
  double max;
  const char *range_note;      /* why the range (voltage: the published sweep); may be NULL */
  const char *help;            /* chip-specific help; NULL = the generic one */
} CimChipParam;

/* The values of one evaluation. */
typedef struct {
  double value[CIM_N_PARAMS];
} CimParams;

typedef struct _CimChip CimChip;

struct _CimChip {
  const char *name;            /* --arch name, [a-z0-9-]+ */
  const char *summary;         /* one line: the chip and what is estimated */
  const char *source;          /* where the numbers come from */
  const CimChipParam *params;  /* ends with id == CIM_N_PARAMS */
  gboolean (*evaluate) (const CimChip *chip,
                        const CimParams *params,
                        CimEvaluation *eval,
                        GError **error);
};

/* The chips, in catalogue order. */
guint cim_chip_count (void);
const CimChip *cim_chip_get (guint index);
/* The chip named @name, or NULL. */
const CimChip *cim_chip_find (const char *name);

const CimParamInfo *cim_param_info (CimParamId id);
/* @chip's declaration of @id, or NULL if it does not take that parameter. */
const CimChipParam *cim_chip_find_param (const CimChip *chip, CimParamId id);

/* Fills @params with @chip's defaults (NAN for "auto"; 0 for parameters
 * the chip does not take). */
void cim_chip_default_params (const CimChip *chip, CimParams *params);

/* Checks every declared parameter of @params against @chip's ranges
 * (FFM_PARAM_ERROR_INVALID_VALUE naming the architecture and the
 * parameter) and evaluates the chip at that operating point. */
gboolean cim_chip_evaluate (const CimChip *chip,
                            const CimParams *params,
                            CimEvaluation *eval,
                            GError **error);

G_END_DECLS
