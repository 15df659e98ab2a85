/* ffm-estimator.h: component estimators, the energy, leakage and area of a
 * hardware component from its class and attributes (the job Accelergy and
 * its plug-ins do for Timeloop).
 *
 * A component is described by a class ("SRAM", "intmac", "DRAM", ...),
 * attributes written as text (width=64, depth=2048, technology=45nm) and,
 * for its energy, an action (read, write, compute, ...). A component
 * estimator is a plugin (kind FFM_PLUGIN_KIND_ESTIMATOR, file
 * ffm-estimator-NAME.so, function table in ffm-plugin.h) that knows some
 * classes; asked about one component it answers the energy of one action,
 * the leakage power, the area, the bandwidth and the bits one action
 * moves, any of which it may leave out (NAN), with the accuracy it claims
 * (percent). Several estimators may know a class: each number is taken
 * from the most accurate estimator that gives it (Accelergy's rule; a tie
 * goes to the first loaded), and the answer remembers which estimator gave
 * it and with what accuracy.
 *
 * Compound classes (FfmComponentLibrary below) are Accelergy's compound
 * components: a class made of subcomponents whose actions are sums of the
 * subcomponents' actions, read from Accelergy's YAML (compound_components,
 * version 0.4). A Timeloop design names them (smartbuffer_SRAM, ...); the
 * estimators answer for the primitive classes at the leaves.
 *
 * Who asks: `ffm estimate`, JSON architectures whose levels give "class"
 * and "attributes" (docs/file-formats.md), architecture models (through
 * ffm_estimate_component(), which uses the process's default registry),
 * and the Timeloop import (ffm_component_library_estimate()).
 *
 * Units: SI in answers (J per action, W, m^2, bits per second); attributes
 * in the units their class documents (bits, entries, nm, seconds). */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-params.h>

G_BEGIN_DECLS

#define FFM_ESTIMATOR_ERROR (ffm_estimator_error_quark ())

typedef enum {
  FFM_ESTIMATOR_ERROR_UNSUPPORTED,    /* this estimator does not handle the
                                         class, action or attributes:
                                         another one may (not a failure) */
  FFM_ESTIMATOR_ERROR_ATTRIBUTE,      /* an attribute is missing, unreadable
                                         or out of range */
  FFM_ESTIMATOR_ERROR_UNKNOWN_CLASS,  /* no estimator and no compound class
                                         knows the class */
  FFM_ESTIMATOR_ERROR_UNKNOWN_ACTION, /* the class is known, the action not */
  FFM_ESTIMATOR_ERROR_PARSE,          /* a component file does not read */
  FFM_ESTIMATOR_ERROR_INVALID,        /* a compound class is wrong, or an
                                         estimator answered nonsense */
} FfmEstimatorError;

FFM_API GQuark ffm_estimator_error_quark (void);

/* Limits, checked where the input is read (docs/limits.md). */
#define FFM_ESTIMATOR_MAX_DEPTH 16          /* compound classes nested */
#define FFM_ESTIMATOR_MAX_ATTRIBUTES 256    /* attributes of one component */
#define FFM_ESTIMATOR_MAX_INSTANCES 1e12    /* copies of one subcomponent */

/* One class an estimator knows (a static, NULL-name-terminated array in
 * its function table; `ffm list` prints it). */
typedef struct {
  const char *name;        /* [A-Za-z0-9_]+, matched ignoring case */
  const char *actions;     /* its actions, comma-separated: "read,write,update" */
  const char *attributes;  /* one line: attributes read, defaults and units */
  const char *source;      /* one line: where the numbers come from */
} FfmEstimatorClass;

/* ---- The question ---- */

typedef struct _FfmEstimateQuery FfmEstimateQuery;

/* A query about component @component (a name for messages, e.g. the
 * architecture level "GlobalBuffer") of class @class_name with @attributes
 * (copied; may be NULL: none), for the energy of @action (NULL: only the
 * leakage, area and bandwidth). Transfer full. */
FFM_API FfmEstimateQuery *ffm_estimate_query_new (const char *component,
                                                  const char *class_name,
                                                  const FfmParamValues *attributes,
                                                  const char *action);
FFM_API void ffm_estimate_query_free (FfmEstimateQuery *query);
FFM_API const char *ffm_estimate_query_get_component (const FfmEstimateQuery *query);
FFM_API const char *ffm_estimate_query_get_class (const FfmEstimateQuery *query);
/* May be NULL. */
FFM_API const char *ffm_estimate_query_get_action (const FfmEstimateQuery *query);
FFM_API const FfmParamValues *ffm_estimate_query_get_attributes (const FfmEstimateQuery *query);

/* The text of attribute @name, or NULL when it is not given. @name may
 * list alternatives separated by '|' ("width|datawidth"): the first given
 * one is returned. */
FFM_API const char *ffm_estimate_query_get_text (const FfmEstimateQuery *query,
                                                 const char *name);

/* Attribute @name (alternatives with '|') as a number: a number or a
 * constant expression ("64*1024"). When it is not given: @fallback, or an
 * FFM_ESTIMATOR_ERROR_ATTRIBUTE if @fallback is NAN (required). A value
 * that does not read, is not finite, or lies outside [@min, @max] is an
 * FFM_ESTIMATOR_ERROR_ATTRIBUTE naming the component, the class and the
 * attribute. */
FFM_API gboolean ffm_estimate_query_get_number (const FfmEstimateQuery *query,
                                                const char *name,
                                                double fallback,
                                                double min,
                                                double max,
                                                double *out,
                                                GError **error);

/* The technology node in nm from attribute "technology" (alternatives
 * "technology|tech_node"): 45, "45nm", "45 nm" or "0.045um"; @fallback when
 * absent (NAN = required). Nodes outside [@min_nm, @max_nm] are an
 * FFM_ESTIMATOR_ERROR_ATTRIBUTE saying the range. */
FFM_API gboolean ffm_estimate_query_get_technology (const FfmEstimateQuery *query,
                                                    double fallback,
                                                    double min_nm,
                                                    double max_nm,
                                                    double *nm,
                                                    GError **error);

/* Sets @error to FFM_ESTIMATOR_ERROR_ATTRIBUTE, "component C (class K):
 * attribute A: MESSAGE" (@attribute may be NULL: no attribute part), and
 * returns FALSE. For estimators' own checks. */
FFM_API gboolean ffm_estimate_query_fail (const FfmEstimateQuery *query,
                                          GError **error,
                                          const char *attribute,
                                          const char *format,
                                          ...) G_GNUC_PRINTF (4, 5);

/* Sets @error to FFM_ESTIMATOR_ERROR_UNSUPPORTED saying why (another
 * estimator may answer) and returns FALSE. */
FFM_API gboolean ffm_estimate_query_unsupported (const FfmEstimateQuery *query,
                                                 GError **error,
                                                 const char *format,
                                                 ...) G_GNUC_PRINTF (3, 4);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmEstimateQuery, ffm_estimate_query_free)

typedef struct _FfmComponentEstimate FfmComponentEstimate;

/* For an estimator whose class is built of others (a smart buffer's SRAM
 * and address generators): asks the registry that is asking @query (the
 * default registry outside a query) about part @part, named
 * "COMPONENT.PART" in messages, under the same rules. Parts nest at most
 * FFM_ESTIMATOR_MAX_DEPTH deep. */
FFM_API gboolean ffm_estimate_query_estimate_part (const FfmEstimateQuery *query,
                                                   const char *part,
                                                   const char *class_name,
                                                   const FfmParamValues *attributes,
                                                   const char *action,
                                                   FfmComponentEstimate *out,
                                                   GError **error);

/* ---- One estimator's answer ---- */

/* What an estimator fills in. The host sets every number to NAN and the
 * note to NULL before asking; NAN means "not given". Fields are appended
 * only (minor ABI versions). */
typedef struct {
  double energy;           /* J per action of the query's action */
  double leak_power;       /* W per instance */
  double area;             /* m^2 per instance */
  double bandwidth;        /* bits per second per instance */
  double action_bits;      /* bits one action moves (a memory's width) */
  double accuracy;         /* percent in (0, 100] claimed for these numbers */
  char *note;              /* (transfer full) (nullable): assumptions, one line */
} FfmEstimate;

/* ---- The chosen answer ---- */

/* One number of a chosen answer and who gave it. */
typedef struct {
  double value;            /* NAN when no estimator gave it */
  double accuracy;         /* percent; 0 when value is NAN */
  const char *estimator;   /* (transfer none) interned name of the estimator
                            * plugin, "compound CLASS" for a compound sum,
                            * or NULL when value is NAN */
} FfmEstimatedValue;

struct _FfmComponentEstimate {
  FfmEstimatedValue energy;       /* J per action (NAN when no action asked) */
  FfmEstimatedValue leak_power;   /* W per instance */
  FfmEstimatedValue area;         /* m^2 per instance */
  FfmEstimatedValue bandwidth;    /* bits/s per instance */
  FfmEstimatedValue action_bits;  /* bits per action */
};

typedef struct _FfmPluginRegistry FfmPluginRegistry;

/* Asks every loaded estimator that knows the query's class and keeps, for
 * each number, the most accurate answer. Fails with
 * FFM_ESTIMATOR_ERROR_UNKNOWN_CLASS (listing the known classes) when no
 * estimator knows the class, FFM_ESTIMATOR_ERROR_UNKNOWN_ACTION (listing
 * the class's actions) when none gives the action's energy, and with the
 * first FFM_ESTIMATOR_ERROR_ATTRIBUTE an estimator reports (a wrong
 * attribute is the user's, whatever another estimator would say). Every
 * message starts with the component and its class. */
FFM_API gboolean ffm_plugin_registry_estimate (const FfmPluginRegistry *registry,
                                               const FfmEstimateQuery *query,
                                               FfmComponentEstimate *out,
                                               GError **error);

/* The actions the loaded estimators list for @class_name, in order, each
 * once (transfer full; empty when no estimator knows the class). */
FFM_API GStrv ffm_plugin_registry_estimator_actions (const FfmPluginRegistry *registry,
                                                     const char *class_name);

/* Every class the loaded estimators know, sorted, each once (transfer full). */
FFM_API GStrv ffm_plugin_registry_estimator_classes (const FfmPluginRegistry *registry);

/* Every estimator's own answer to @query, in load order, as a GPtrArray of
 * FfmEstimatorAnswer (transfer full): what `ffm estimate --all` prints. */
typedef struct {
  const char *estimator;   /* interned plugin name */
  FfmEstimate estimate;    /* the note is owned by the answer */
  GError *error;           /* set when this estimator declined or failed */
} FfmEstimatorAnswer;

FFM_API GPtrArray *ffm_plugin_registry_estimator_answers (const FfmPluginRegistry *registry,
                                                          const FfmEstimateQuery *query);

/* ---- The default estimators of the process ---- */

/* Makes @registry (transfer none; it must outlive every later estimate)
 * the one ffm_estimate_component() and JSON architectures use outside
 * ffm_plugin_registry_build_arch() (which uses its own registry). The ffm
 * command installs its own after scanning; a program that installs none
 * gets a registry that scans the default plugin path on first use. */
FFM_API void ffm_estimators_set_default (FfmPluginRegistry *registry);
/* (transfer none) */
FFM_API FfmPluginRegistry *ffm_estimators_get_default (void);

/* ffm_plugin_registry_estimate() on the registry building the architecture
 * (ffm_plugin_registry_build_arch() on this thread), else on the default
 * one: what an architecture model calls to size a component. */
FFM_API gboolean ffm_estimate_component (const char *component,
                                         const char *class_name,
                                         const FfmParamValues *attributes,
                                         const char *action,
                                         FfmComponentEstimate *out,
                                         GError **error);

/* ---- Technology scaling (for estimators) ----
 *
 * Stillmaker and Baas, "Scaling equations for the accurate prediction of
 * CMOS device performance from 180 nm to 7 nm", Integration 58 (2017):
 * the energy polynomial in Vdd and the area factors of its tables for 130,
 * 90, 65, 45, 32, 20, 16, 14, 10 and 7 nm, linearly interpolated between
 * nodes. Energy is evaluated at @vdd volts (0.8 when NAN). Nodes outside
 * [7, 130] nm are clamped. */
FFM_API double ffm_technology_energy_scale (double from_nm, double to_nm, double vdd);
FFM_API double ffm_technology_area_scale (double from_nm, double to_nm);

/* ---- Compound classes (Accelergy's compound components) ---- */

typedef struct _FfmComponentLibrary FfmComponentLibrary;

/* A library that resolves primitive classes through @registry (transfer
 * none; NULL = the default registry). Transfer full. */
FFM_API FfmComponentLibrary *ffm_component_library_new (const FfmPluginRegistry *registry);
FFM_API void ffm_component_library_free (FfmComponentLibrary *library);

/* Reads Accelergy compound component classes (YAML, `compound_components:
 * {version: 0.4, classes: [...]}`) from @path, or from every *.yaml and
 * *.yml file of folder @path (sorted by name). A class defined twice is
 * an error naming both places. */
FFM_API gboolean ffm_component_library_load_file (FfmComponentLibrary *library,
                                                  const char *path,
                                                  GError **error);
FFM_API gboolean ffm_component_library_load_data (FfmComponentLibrary *library,
                                                  const char *yaml_text,
                                                  const char *display_name,
                                                  GError **error);
FFM_API gboolean ffm_component_library_has_class (const FfmComponentLibrary *library,
                                                  const char *class_name);
/* The compound classes, in the order read (transfer full). */
FFM_API GStrv ffm_component_library_list_classes (const FfmComponentLibrary *library);

/* The actions of @class_name: a compound class's own, else the estimators'
 * (transfer full; empty when the class is unknown). */
FFM_API GStrv ffm_component_library_list_actions (const FfmComponentLibrary *library,
                                                  const char *class_name);

/* Estimates a component of a compound or primitive class, as Accelergy
 * does: the compound class's attributes are completed with its defaults
 * (expressions over the other attributes, evaluated in order; "must_specify"
 * ones are required), each subcomponent gets its attributes evaluated in
 * that scope (plus the compound's technology, global_cycle_seconds and
 * voltage unless it sets them), and
 *   - an action's energy is the sum, over the subcomponent actions it
 *     lists, of (copies named) x (the subcomponent action's energy) x its
 *     energy_scale; action "leak" sums leakage powers instead;
 *   - the leakage power is the compound's "leak" action (or, without one,
 *     the sum over every copy of every subcomponent);
 *   - the area is the sum over subcomponents of copies x area x area_scale.
 * Primitive classes go to the registry. Each number of @out names
 * "compound CLASS" and carries the lowest accuracy among its parts. */
FFM_API gboolean ffm_component_library_estimate (const FfmComponentLibrary *library,
                                                 const FfmEstimateQuery *query,
                                                 FfmComponentEstimate *out,
                                                 GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmComponentLibrary, ffm_component_library_free)

G_END_DECLS
