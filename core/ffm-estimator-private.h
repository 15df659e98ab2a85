/* ffm-estimator-private.h (private to libffm): what the plugin registry
 * tells the estimators (ffm-estimator.c). */
#pragma once

#include <ffm/ffm-estimator.h>

G_BEGIN_DECLS

/* A registry being freed stops being the default one. */
void ffm_estimators_forget (FfmPluginRegistry *registry);

/* While a registry builds an architecture (a model's build function or an
 * architecture file), the estimates asked for on that thread come from it:
 * enter returns the registry that was building before, leave restores it. */
FfmPluginRegistry *ffm_estimators_enter (FfmPluginRegistry *registry);
void ffm_estimators_leave (FfmPluginRegistry *previous);

/* The registry estimates on this thread come from: the building one, else
 * the default (ffm_estimators_get_default). */
FfmPluginRegistry *ffm_estimators_current (void);

G_END_DECLS
