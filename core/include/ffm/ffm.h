/* ffm.h: the one header plugins and programs include.
 *
 * libffm is the core of the Fast and Fusiest Mapper: workloads, architectures,
 * mappings, the cost model, the pmapping generator, the plugin host. See
 * docs/ for the user guide and the plugin author guide. */
#pragma once

#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>
#include <ffm/ffm-limits.h>
#include <ffm/ffm-tsan.h>
#include <ffm/ffm-memory-budget.h>
#include <ffm/ffm-debug.h>
#include <ffm/ffm-hash.h>
#include <ffm/ffm-json-writer.h>
#include <ffm/ffm-output-file.h>
#include <ffm/ffm-format.h>
#include <ffm/ffm-expr.h>
#include <ffm/ffm-params.h>
#include <ffm/ffm-workload.h>
#include <ffm/ffm-arch.h>
#include <ffm/ffm-mapping.h>
#include <ffm/ffm-cost.h>
#include <ffm/ffm-problem.h>
#include <ffm/ffm-result.h>
#include <ffm/ffm-estimator.h>
#include <ffm/ffm-plugin.h>
#include <ffm/ffm-plugin-registry.h>
#include <ffm/ffm-paths.h>
#include <ffm/ffm-compatibility.h>
#include <ffm/ffm-pareto.h>
#include <ffm/ffm-constraints.h>
#include <ffm/ffm-pmapping.h>
#include <ffm/ffm-join.h>
#include <ffm/ffm-mapspace.h>
#include <ffm/ffm-search-meter.h>
#include <ffm/ffm-timeloop.h>
