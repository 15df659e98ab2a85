/* inputs.h: the unit tests' inputs, loaded or the test fails.
 *
 * The shipped workloads (workloads/) and JSON architectures
 * (arch-models/json/architectures/) of the source tree by file name, and
 * workloads and architectures from JSON text, architectures built by an
 * architecture model, and their levels by name. A load that fails fails
 * the test with its error, so a test reads as what it checks. Shared by
 * the unit tests of the generator, the cost model, the join and the
 * architecture models. */
#pragma once

#include <ffm/ffm.h>

/* workloads/@file with @assignments ("key=value" each, NULL-terminated;
 * NULL for none). Transfer full. */
FfmWorkload *inputs_load_workload (const char *file, const char *const *assignments);

/* workloads/matmuls.json: a chain of @n_einsums matmuls of @m rows and
 * @kn columns. Transfer full. */
FfmWorkload *inputs_load_matmuls (guint n_einsums, guint m, guint kn);

/* arch-models/json/architectures/@file. Transfer full. */
FfmArch *inputs_load_arch (const char *file);

/* A workload from JSON @text, named "test-workload". Transfer full. */
FfmWorkload *inputs_workload_from_text (const char *text);

/* An architecture from JSON @text, named "test-arch". Transfer full. */
FfmArch *inputs_arch_from_text (const char *text);

/* The JSON architectures shipped in arch-models/json/architectures/, by
 * name, NULL-terminated (test-arch.c checks that they are the folder's). */
extern const char *const inputs_shipped_arch_names[];

/* Builds the architecture @arch of @registry's models with the
 * "key=value" settings that follow @error, NULL-terminated; the test fails
 * on a setting that does not parse. Transfer full; NULL with @error set
 * when the model refuses. */
FfmArch *inputs_build_arch (FfmPluginRegistry *registry, const char *arch,
                            GError **error, ...) G_GNUC_NULL_TERMINATED;

/* The level of @arch named @name; the test fails unless there is one and
 * it is of @kind. Transfer none. */
const FfmLevel *inputs_level_named (const FfmArch *arch, const char *name,
                                    FfmLevelKind kind);
