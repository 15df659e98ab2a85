/* ffm-debug.c: the debug flag table (ffm-debug.h). */
#include "ffm-config.h"

#include <string.h>

#include <ffm/ffm-debug.h>

typedef enum {
  KIND_BOOLEAN,
  KIND_UINT,
  KIND_DOUBLE,
  KIND_STRING,
} FlagKind;

typedef struct {
  const char *name;
  FlagKind kind;
  gboolean test_hook;           /* only in builds with the test hooks */
  const char *help;
} FlagInfo;

/* In FfmDebugFlag's order. */
static const FlagInfo flag_info[FFM_DEBUG_N_FLAGS] = {
  [FFM_DEBUG_CHECK_TERMS] = { "check-terms", KIND_BOOLEAN, TRUE,
    "hold the tile search's terms, bounds and joinable parts to the cost model" },
  [FFM_DEBUG_EVERY_LEAF] = { "every-leaf", KIND_BOOLEAN, FALSE,
    "evaluate every complete tile vector" },
  [FFM_DEBUG_NO_BUCKET_BOUNDS] = { "no-bucket-bounds", KIND_BOOLEAN, FALSE,
    "no group of complete rows cut by its bucket's bound" },
  [FFM_DEBUG_NO_CHOICE_BOUNDS] = { "no-choice-bounds", KIND_BOOLEAN, FALSE,
    "build the templates of every storage choice" },
  [FFM_DEBUG_LEAVES_PER_CHUNK] = { "leaves-per-chunk", KIND_BOOLEAN, FALSE,
    "each chunk of the tile search prunes its own leaves only" },
  [FFM_DEBUG_UNTRACKED_LATE] = { "untracked-late", KIND_BOOLEAN, FALSE,
    "drop untracked memories only after every Einsum is done" },
  [FFM_DEBUG_NO_PARTIAL_PRUNING] = { "no-partial-pruning", KIND_BOOLEAN, FALSE,
    "evaluate every valid tile vector, none pruned by its cost terms" },
  [FFM_DEBUG_TRACK_ALL_MEMORIES] = { "track-all-memories", KIND_BOOLEAN, FALSE,
    "keep the reservation columns of every finite memory" },
  [FFM_DEBUG_ORDER] = { "order", KIND_STRING, FALSE,
    "=greedy|chains-last: force the tile search's variable order" },
  [FFM_DEBUG_PILOT_MIN_WORK] = { "pilot-min-work", KIND_DOUBLE, FALSE,
    "=N: the pilots choose the search order from this much work on" },
  [FFM_DEBUG_CHUNK_ROWS] = { "chunk-rows", KIND_UINT, FALSE,
    "=N: the tile search's chunk in rows" },
  [FFM_DEBUG_PRUNE_SAMPLE_ROWS] = { "prune-sample-rows", KIND_UINT, FALSE,
    "=N: rows sampled before a pruning (at most the default)" },
  [FFM_DEBUG_RADIX_MIN_ROWS] = { "radix-min-rows", KIND_UINT, FALSE,
    "=N: rows from which a radix sort is used (at most the default)" },
  [FFM_DEBUG_JOIN_WALK_CHUNK] = { "join-walk-chunk", KIND_UINT, FALSE,
    "=N: rows per step of the join's walk" },
  [FFM_DEBUG_JOIN_GROW_PRUNE_ROWS] = { "join-grow-prune-rows", KIND_UINT, FALSE,
    "=N: prune a group being filled at twice its survivors plus N rows" },
  [FFM_DEBUG_MPI_DIE] = { "mpi-die", KIND_STRING, TRUE,
    "=RANK:N: rank RANK kills itself after N results" },
  [FFM_DEBUG_CHECK_SHARED_SETUP] = { "check-shared-setup", KIND_BOOLEAN, TRUE,
    "compare the chains and factors templates share with those built afresh" },
  [FFM_DEBUG_JOIN_RESTART_ROWS] = { "join-restart-rows", KIND_UINT, FALSE,
    "=N: the clean join starts over after a finer dirty pass once a step keeps "
    "more than N rows (by default: 1,024 and 4 times the dirty pass's)" },
  [FFM_DEBUG_NO_INCUMBENT_BOUNDS] = { "no-incumbent-bounds", KIND_BOOLEAN, FALSE,
    "extend every partial tile vector, even when a pmapping found beats its bound "
    "(one-Einsum workloads)" },
  [FFM_DEBUG_INCUMBENT_BOUND_SCALE] = { "incumbent-bound-scale", KIND_DOUBLE, TRUE,
    "=X: multiply the partial tile vectors' bounds against the pmappings found "
    "by X (X > 1 is unsound: for the tests)" },
  [FFM_DEBUG_JOIN_BEAM_EMPTY_STEP] = { "join-beam-empty-step", KIND_UINT, TRUE,
    "=N: a dirty pass with a beam keeps no row at the Nth Einsum's step (the "
    "pass then runs again without the beam)" },
  [FFM_DEBUG_NO_INCUMBENT_LAST_CHAINS] = { "no-incumbent-last-chains", KIND_BOOLEAN, FALSE,
    "bound the partial tile vectors' energy with each factor of the last variable "
    "at its least, not with the least over its chains" },
  [FFM_DEBUG_INCUMBENT_LAST_MAX] = { "incumbent-last-max", KIND_BOOLEAN, TRUE,
    "take the partial tile vectors' energy over the last variable's chains at "
    "its largest (unsound: for the tests)" },
  [FFM_DEBUG_NO_INCUMBENT_BUCKETS] = { "no-incumbent-buckets", KIND_BOOLEAN, FALSE,
    "visit every bucket of chains of a partial tile vector, even when a pmapping "
    "found beats the bound of its every child" },
  [FFM_DEBUG_INCUMBENT_BUCKET_MAX] = { "incumbent-bucket-max", KIND_BOOLEAN, TRUE,
    "bound a bucket's children with its chains' largest factors (unsound: for the "
    "tests)" },
  [FFM_DEBUG_NO_SYMMETRIC_DIMS] = { "no-symmetric-dims", KIND_BOOLEAN, FALSE,
    "search every placement of spatial factors on interchangeable fanout "
    "dimensions, not one per set of placements that cost the same" },
  [FFM_DEBUG_SYMMETRIC_DIMS_BY_COUNT] = { "symmetric-dims-by-count", KIND_BOOLEAN, TRUE,
    "take fanout dimensions of equal count as interchangeable whatever else "
    "differs (unsound: for the tests)" },
  [FFM_DEBUG_NO_EINSUM_FRONT] = { "no-einsum-front", KIND_BOOLEAN, FALSE,
    "search an Einsum's templates all at once, holding no partial tile vector to "
    "the pmappings of its earlier templates' waves" },
  [FFM_DEBUG_EINSUM_FRONT_FIRST_WAVE] = { "einsum-front-first-wave", KIND_UINT, FALSE,
    "=N: an Einsum's first wave of templates is its first N (default 8), the later "
    "waves doubling" },
  [FFM_DEBUG_EINSUM_FRONT_UNSOUND] = { "einsum-front-unsound", KIND_BOOLEAN, TRUE,
    "compare the points of an Einsum's earlier waves of templates without their "
    "reservations (unsound: for the tests)" },
  [FFM_DEBUG_TAKEN_STORE_LISTS] = { "taken-store-lists", KIND_BOOLEAN, FALSE,
    "keep the leaves a template's tile search took on a list per diff, never "
    "laid out flat and sorted" },
  [FFM_DEBUG_TAKEN_LAYOUT_UNSOUND] = { "taken-layout-unsound", KIND_BOOLEAN, TRUE,
    "raise the taken leaves' values laid out flat by one float step (unsound: for "
    "the tests)" },
};

typedef struct {
  gboolean set;
  guint64 uint_value;
  double double_value;
  char *string_value;
} FlagValue;

static FlagValue flag_values[FFM_DEBUG_N_FLAGS];
static gsize flags_loaded;

static gboolean
test_hooks_compiled (void)
{
  return FFM_TEST_HOOKS != 0;
}

static void
print_help (void)
{
  g_printerr ("FFM_DEBUG: a comma-separated list of these flags:\n");
  for (guint f = 0; f < FFM_DEBUG_N_FLAGS; f++)
    g_printerr ("  %-22s %s%s\n", flag_info[f].name, flag_info[f].help,
                flag_info[f].test_hook && !test_hooks_compiled ()
                ? " (not in this build: meson option test_hooks)" : "");
}

/* One "name" or "name=value" of @spec into the table; a warning for what
 * does not parse. */
static void
parse_item (const char *item)
{
  g_autofree char *name = g_strdup (item);
  char *value = strchr (name, '=');
  guint f;

  if (value != NULL)
    *value++ = '\0';
  g_strstrip (name);
  if (*name == '\0')
    return;
  if (strcmp (name, "help") == 0)
    {
      print_help ();
      return;
    }
  for (f = 0; f < FFM_DEBUG_N_FLAGS; f++)
    if (strcmp (flag_info[f].name, name) == 0)
      break;
  if (f == FFM_DEBUG_N_FLAGS)
    {
      g_printerr ("ffm: FFM_DEBUG: unknown flag '%s' ignored (FFM_DEBUG=help lists them)\n",
                  name);
      return;
    }
  if (flag_info[f].test_hook && !test_hooks_compiled ())
    {
      g_printerr ("ffm: FFM_DEBUG: flag '%s' ignored: this build has no test hooks "
                  "(meson option test_hooks)\n", name);
      return;
    }
  if ((flag_info[f].kind == KIND_BOOLEAN) != (value == NULL))
    {
      g_printerr ("ffm: FFM_DEBUG: flag '%s' %s; ignored\n", name,
                  value == NULL ? "needs a value (NAME=VALUE)" : "takes no value");
      return;
    }
  switch (flag_info[f].kind)
    {
    case KIND_UINT:
      if (!g_ascii_string_to_unsigned (value, 10, 1, G_MAXUINT32,
                                       &flag_values[f].uint_value, NULL))
        {
          g_printerr ("ffm: FFM_DEBUG: %s=%s is not an integer from 1 to %u; ignored\n",
                      name, value, G_MAXUINT32);
          return;
        }
      break;
    case KIND_DOUBLE:
      {
        char *end = NULL;
        double d = g_ascii_strtod (value, &end);

        if (end == value || *end != '\0' || !(d > 0) || d > G_MAXDOUBLE)
          {
            g_printerr ("ffm: FFM_DEBUG: %s=%s is not a positive number; ignored\n",
                        name, value);
            return;
          }
        flag_values[f].double_value = d;
      }
      break;
    case KIND_STRING:
      g_free (flag_values[f].string_value);
      flag_values[f].string_value = g_strdup (value);
      break;
    case KIND_BOOLEAN:
      break;
    }
  flag_values[f].set = TRUE;
}

static void
load_spec (const char *spec)
{
  g_auto (GStrv) items = NULL;

  for (guint f = 0; f < FFM_DEBUG_N_FLAGS; f++)
    {
      g_free (flag_values[f].string_value);
      flag_values[f] = (FlagValue) { 0 };
    }
  if (spec == NULL)
    return;
  items = g_strsplit (spec, ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    parse_item (items[i]);
}

static inline void
ensure_loaded (void)
{
  if (g_once_init_enter (&flags_loaded))
    {
      load_spec (g_getenv ("FFM_DEBUG"));
      g_once_init_leave (&flags_loaded, 1);
    }
}

gboolean
ffm_debug_flag_is_set (FfmDebugFlag flag)
{
  g_return_val_if_fail ((guint) flag < FFM_DEBUG_N_FLAGS, FALSE);
  ensure_loaded ();
  return flag_values[flag].set;
}

guint64
ffm_debug_flag_get_uint (FfmDebugFlag flag, guint64 fallback)
{
  g_return_val_if_fail ((guint) flag < FFM_DEBUG_N_FLAGS, fallback);
  ensure_loaded ();
  return flag_values[flag].set && flag_info[flag].kind == KIND_UINT
    ? flag_values[flag].uint_value : fallback;
}

double
ffm_debug_flag_get_double (FfmDebugFlag flag, double fallback)
{
  g_return_val_if_fail ((guint) flag < FFM_DEBUG_N_FLAGS, fallback);
  ensure_loaded ();
  return flag_values[flag].set && flag_info[flag].kind == KIND_DOUBLE
    ? flag_values[flag].double_value : fallback;
}

const char *
ffm_debug_flag_get_string (FfmDebugFlag flag)
{
  g_return_val_if_fail ((guint) flag < FFM_DEBUG_N_FLAGS, NULL);
  ensure_loaded ();
  return flag_values[flag].set ? flag_values[flag].string_value : NULL;
}

void
ffm_debug_flags_set (const char *spec)
{
  ensure_loaded ();
  load_spec (spec);
}

gboolean
ffm_debug_has_test_hooks (void)
{
  return test_hooks_compiled ();
}
