/* ffm-error.c: the error quarks of libffm (see ffm-error.h). */
#include <ffm/ffm-error.h>

G_DEFINE_QUARK (ffm-expr-error-quark, ffm_expr_error)
G_DEFINE_QUARK (ffm-param-error-quark, ffm_param_error)
G_DEFINE_QUARK (ffm-workload-error-quark, ffm_workload_error)
G_DEFINE_QUARK (ffm-arch-error-quark, ffm_arch_error)
G_DEFINE_QUARK (ffm-mapping-error-quark, ffm_mapping_error)
G_DEFINE_QUARK (ffm-plugin-error-quark, ffm_plugin_error)
G_DEFINE_QUARK (ffm-search-error-quark, ffm_search_error)
G_DEFINE_QUARK (ffm-timeloop-error-quark, ffm_timeloop_error)
G_DEFINE_QUARK (ffm-constraints-error-quark, ffm_constraints_error)
