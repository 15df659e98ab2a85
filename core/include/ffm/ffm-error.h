/* ffm-error.h: the error domains of libffm.
 *
 * Every fallible libffm function takes a `GError **` last and reports input
 * problems through one of these domains. Messages name the file, the line
 * where there is one, and the cause ("simple.json:12: $.levels[1].size:
 * expected a number or an expression, got an array"). An invalid mapping
 * found while searching is a result, not an error (see ffm-cost.h). */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>

G_BEGIN_DECLS

#define FFM_EXPR_ERROR (ffm_expr_error_quark ())
#define FFM_PARAM_ERROR (ffm_param_error_quark ())
#define FFM_WORKLOAD_ERROR (ffm_workload_error_quark ())
#define FFM_ARCH_ERROR (ffm_arch_error_quark ())
#define FFM_MAPPING_ERROR (ffm_mapping_error_quark ())
#define FFM_PLUGIN_ERROR (ffm_plugin_error_quark ())
#define FFM_SEARCH_ERROR (ffm_search_error_quark ())
#define FFM_TIMELOOP_ERROR (ffm_timeloop_error_quark ())
#define FFM_CONSTRAINTS_ERROR (ffm_constraints_error_quark ())

/* Expressions (numbers, strings, tensor sets) */
typedef enum {
  FFM_EXPR_ERROR_SYNTAX,          /* text does not parse */
  FFM_EXPR_ERROR_UNKNOWN_NAME,    /* identifier not in scope */
  FFM_EXPR_ERROR_TYPE,            /* e.g. number + set */
  FFM_EXPR_ERROR_DIVISION_BY_ZERO,
  FFM_EXPR_ERROR_DOMAIN,          /* e.g. non-integer where integer needed */
} FfmExprError;

/* Parameters given to workloads and architecture models */
typedef enum {
  FFM_PARAM_ERROR_UNKNOWN,        /* no such parameter */
  FFM_PARAM_ERROR_INVALID_VALUE,  /* wrong type or out of range */
  FFM_PARAM_ERROR_MISSING,        /* required and not given */
  FFM_PARAM_ERROR_SYNTAX,         /* not KEY=VALUE */
} FfmParamError;

typedef enum {
  FFM_WORKLOAD_ERROR_PARSE,       /* JSON syntax */
  FFM_WORKLOAD_ERROR_INVALID,     /* semantic problem in the file */
  FFM_WORKLOAD_ERROR_NOT_FOUND,   /* no workload of that name or path */
} FfmWorkloadError;

typedef enum {
  FFM_ARCH_ERROR_PARSE,
  FFM_ARCH_ERROR_INVALID,
  FFM_ARCH_ERROR_NOT_FOUND,
} FfmArchError;

typedef enum {
  FFM_MAPPING_ERROR_PARSE,
  FFM_MAPPING_ERROR_INVALID,      /* does not match the workload/arch */
  FFM_MAPPING_ERROR_UNSERVED,     /* an Einsum no compute unit serves (each
                                     `enabled` false): the architecture does
                                     not run that workload, by its design */
} FfmMappingError;

typedef enum {
  FFM_PLUGIN_ERROR_OPEN,               /* dlopen failed (unresolved symbol, not ELF) */
  FFM_PLUGIN_ERROR_NO_ENTRY_POINT,     /* no ffm_plugin_get_descriptor */
  FFM_PLUGIN_ERROR_INVALID_DESCRIPTOR, /* NULL, missing field, bad name, bad vtable */
  FFM_PLUGIN_ERROR_ABI_MISMATCH,       /* built for another ABI major or newer minor */
  FFM_PLUGIN_ERROR_DUPLICATE,          /* (kind, name) already registered */
  FFM_PLUGIN_ERROR_NOT_FOUND,          /* no plugin of that name */
  FFM_PLUGIN_ERROR_FAILED,             /* the plugin's own function failed */
} FfmPluginError;

typedef enum {
  FFM_SEARCH_ERROR_INFEASIBLE,    /* no mapping fits the architecture */
  FFM_SEARCH_ERROR_TOO_LARGE,     /* problem above a strategy's size limit */
  FFM_SEARCH_ERROR_FAILED,
  FFM_SEARCH_ERROR_CANCELLED,     /* stopped by its cancel flag (Ctrl-C,
                                     --timeout) before it had a result */
  FFM_SEARCH_ERROR_OUT_OF_MEMORY, /* needed more than its memory budget
                                     (FfmPmappingOptions.max_memory) */
} FfmSearchError;

/* Timeloop specifications (ffm-timeloop.h) */
typedef enum {
  FFM_TIMELOOP_ERROR_PARSE,       /* unreadable file, YAML syntax */
  FFM_TIMELOOP_ERROR_INVALID,     /* not what Timeloop accepts: unknown key, missing value */
  FFM_TIMELOOP_ERROR_UNSUPPORTED, /* valid Timeloop that ffm cannot translate */
  FFM_TIMELOOP_ERROR_MISSING,     /* no architecture, problem or mapping in the files */
} FfmTimeloopError;

/* Mapping constraints and policies (ffm-constraints.h) */
typedef enum {
  FFM_CONSTRAINTS_ERROR_PARSE,       /* JSON syntax */
  FFM_CONSTRAINTS_ERROR_INVALID,     /* malformed, unknown name, contradiction */
  FFM_CONSTRAINTS_ERROR_NOT_FOUND,   /* no policy of that name or path */
  FFM_CONSTRAINTS_ERROR_UNSATISFIABLE, /* no pmapping of some Einsum satisfies them */
} FfmConstraintsError;

FFM_API GQuark ffm_expr_error_quark (void);
FFM_API GQuark ffm_param_error_quark (void);
FFM_API GQuark ffm_workload_error_quark (void);
FFM_API GQuark ffm_arch_error_quark (void);
FFM_API GQuark ffm_mapping_error_quark (void);
FFM_API GQuark ffm_plugin_error_quark (void);
FFM_API GQuark ffm_search_error_quark (void);
FFM_API GQuark ffm_timeloop_error_quark (void);
FFM_API GQuark ffm_constraints_error_quark (void);

G_END_DECLS
