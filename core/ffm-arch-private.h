/* ffm-arch-private.h (private): what the JSON architecture loader needs from
 * ffm-arch.c beyond the public API: a finish that says where the problem is,
 * so the loader can point at the file's line rather than only the level. */
#pragma once

#include <ffm/ffm-arch.h>

G_BEGIN_DECLS

/* Where ffm_arch_finish_located() found a problem. */
typedef struct {
  int level;            /* level index, -1 = the architecture as a whole */
  int dim;              /* fanout dimension index, -1 = none */
  int override_index;   /* bits override index, -1 = none */
  const char *member;   /* JSON member name of the bad field, NULL = the level */
} FfmArchProblem;

/* ffm_arch_finish() whose error message is the bare cause ("memory
 * GlobalBuffer: size must be positive, got -8"), with @problem saying which
 * level and field it is about. */
gboolean ffm_arch_finish_located (FfmArch *arch,
                                  FfmArchProblem *problem,
                                  GError **error);

G_END_DECLS
