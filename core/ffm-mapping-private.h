/* ffm-mapping-private.h (private): reading a mapping out of a larger JSON
 * document (a result file holds one under "mapping"). */
#pragma once

#include <ffm/ffm-mapping.h>
#include "ffm-json-util.h"

G_BEGIN_DECLS

/* The mapping object @root of @doc, found at JSON path @path ("$" for a
 * mapping file, "$.mapping" in a result file): the same checks and
 * messages as ffm_mapping_load_file(), with node paths under @path. */
FfmMapping *ffm_mapping_from_json_node (const FfmJsonDoc *doc,
                                        JsonNode *root,
                                        const char *path,
                                        GError **error);

G_END_DECLS
