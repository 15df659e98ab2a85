/* ffm-version.c: the run-time version check (see ffm-version.h). */
#include <ffm/ffm-version.h>

#include <stddef.h>

/* Variables, not the macros, so that no comparison is against a literal
 * 0 (always false for an unsigned, which -Wextra reports). */
static const unsigned ffm_major = FFM_MAJOR_VERSION;
static const unsigned ffm_minor = FFM_MINOR_VERSION;
static const unsigned ffm_micro = FFM_MICRO_VERSION;

const char *
ffm_check_version (unsigned major, unsigned minor, unsigned micro)
{
  if (major > ffm_major)
    return "libffm is too old (an older major version than required)";
  if (major < ffm_major)
    return "libffm is too new (a newer major version than required: its ABI differs)";
  if (minor > ffm_minor
      || (minor == ffm_minor && micro > ffm_micro))
    return "libffm is too old (an older minor or micro version than required)";
  return NULL;
}
