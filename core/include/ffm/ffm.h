/* ffm.h: the one header plugins and programs include.
 *
 * libffm is the core of the Fast and Fusiest Mapper: workloads, architectures,
 * mappings, the cost model, the pmapping generator, the plugin host. See
 * docs/ for the user guide and the plugin author guide. */
#pragma once

#include "ffm-version.h"
#include "ffm-error.h"
#include "ffm-limits.h"
#include "ffm-tsan.h"
#include "ffm-memory-budget.h"
#include "ffm-json-writer.h"
#include "ffm-output-file.h"
#include "ffm-format.h"
#include "ffm-expr.h"
#include "ffm-params.h"
#include "ffm-workload.h"
#include "ffm-arch.h"
#include "ffm-mapping.h"
#include "ffm-cost.h"
#include "ffm-problem.h"
#include "ffm-result.h"
#include "ffm-estimator.h"
#include "ffm-plugin.h"
#include "ffm-plugin-registry.h"
#include "ffm-paths.h"
#include "ffm-compatibility.h"
#include "ffm-pareto.h"
#include "ffm-constraints.h"
#include "ffm-pmapping.h"
#include "ffm-join.h"
#include "ffm-mapspace.h"
#include "ffm-search-meter.h"
#include "ffm-timeloop.h"
