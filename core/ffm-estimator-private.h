/* ffm-estimator-private.h (private to libffm): what the plugin registry
 * tells the estimators (ffm-estimator.c). */
#pragma once

#include "ffm-estimator.h"

G_BEGIN_DECLS

/* A registry being freed stops being the default one. */
void ffm_estimators_forget (FfmPluginRegistry *registry);

G_END_DECLS
