/* test-debug.c: the debug flag table (ffm-debug.h): FFM_DEBUG's syntax,
 * what is refused and ignored (with a word on standard error), read once
 * from the environment, replaced by ffm_debug_flags_set(), and the test
 * hooks present exactly in the builds that have them. */
#include <ffm/ffm.h>
#include "ffm-config.h"

#include <string.h>

static void
test_syntax (void)
{
  g_test_summary ("Boolean and valued flags, several in one list, the last value wins");
  ffm_debug_flags_set ("every-leaf, chunk-rows=16,order=greedy,pilot-min-work=2.5,chunk-rows=32");
  g_assert_true (ffm_debug_flag_is_set (FFM_DEBUG_EVERY_LEAF));
  g_assert_false (ffm_debug_flag_is_set (FFM_DEBUG_NO_BUCKET_BOUNDS));
  g_assert_cmpuint (ffm_debug_flag_get_uint (FFM_DEBUG_CHUNK_ROWS, 7), ==, 32);
  g_assert_cmpuint (ffm_debug_flag_get_uint (FFM_DEBUG_RADIX_MIN_ROWS, 7), ==, 7);
  g_assert_cmpfloat (ffm_debug_flag_get_double (FFM_DEBUG_PILOT_MIN_WORK, 1), ==, 2.5);
  g_assert_cmpstr (ffm_debug_flag_get_string (FFM_DEBUG_ORDER), ==, "greedy");
  g_assert_null (ffm_debug_flag_get_string (FFM_DEBUG_EVERY_LEAF));
  ffm_debug_flags_set (NULL);
  g_assert_false (ffm_debug_flag_is_set (FFM_DEBUG_EVERY_LEAF));
  g_assert_cmpuint (ffm_debug_flag_get_uint (FFM_DEBUG_CHUNK_ROWS, 7), ==, 7);
  g_assert_null (ffm_debug_flag_get_string (FFM_DEBUG_ORDER));
}

/* Each bad item is ignored, said on standard error, and changes nothing. */
static void
test_refused (void)
{
  static const struct { const char *spec; const char *said; } cases[] = {
    { "no-such-flag", "unknown flag 'no-such-flag'" },
    { "chunk-rows", "needs a value" },
    { "every-leaf=1", "takes no value" },
    { "chunk-rows=0", "not an integer from 1" },
    { "chunk-rows=-3", "not an integer from 1" },
    { "chunk-rows=99999999999", "not an integer from 1" },
    { "chunk-rows=12x", "not an integer from 1" },
    { "pilot-min-work=nan", "not a positive number" },
    { "pilot-min-work=-1", "not a positive number" },
    { "pilot-min-work=inf", "not a positive number" },
  };

  g_test_summary ("A flag the table does not have, or a value that does not parse, "
                  "is ignored with a message");
  if (g_test_subprocess ())
    {
      guint i = (guint) g_ascii_strtoull (g_getenv ("CASE"), NULL, 10);
      ffm_debug_flags_set (cases[i].spec);
      g_assert_cmpuint (ffm_debug_flag_get_uint (FFM_DEBUG_CHUNK_ROWS, 5), ==, 5);
      g_assert_false (ffm_debug_flag_is_set (FFM_DEBUG_EVERY_LEAF));
      g_assert_cmpfloat (ffm_debug_flag_get_double (FFM_DEBUG_PILOT_MIN_WORK, 3), ==, 3);
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *value = g_strdup_printf ("%u", i);
      g_autofree char *pattern = g_strdup_printf ("*%s*", cases[i].said);
      g_setenv ("CASE", value, TRUE);
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDIN);
      g_test_trap_assert_passed ();
      g_test_trap_assert_stderr (pattern);
    }
  g_unsetenv ("CASE");
}

static void
test_environment_once (void)
{
  g_test_summary ("FFM_DEBUG is read once, at the first question; help lists every flag");
  if (g_test_subprocess ())
    {
      g_assert_true (ffm_debug_flag_is_set (FFM_DEBUG_NO_CHOICE_BOUNDS));
      g_assert_cmpuint (ffm_debug_flag_get_uint (FFM_DEBUG_JOIN_WALK_CHUNK, 9), ==, 4);
      g_setenv ("FFM_DEBUG", "", TRUE);
      g_assert_true (ffm_debug_flag_is_set (FFM_DEBUG_NO_CHOICE_BOUNDS));
      return;
    }
  g_setenv ("FFM_DEBUG", "no-choice-bounds,join-walk-chunk=4,help", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDIN);
  g_unsetenv ("FFM_DEBUG");
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*no-bucket-bounds*join-grow-prune-rows*mpi-die*");
}

static void
test_hooks (void)
{
  g_test_summary ("check-terms and mpi-die exist exactly in builds with the test hooks");
  if (g_test_subprocess ())
    {
      ffm_debug_flags_set ("check-terms,mpi-die=1:2");
      g_assert_cmpint (ffm_debug_flag_is_set (FFM_DEBUG_CHECK_TERMS), ==,
                       ffm_debug_has_test_hooks ());
      g_assert_cmpstr (ffm_debug_flag_get_string (FFM_DEBUG_MPI_DIE), ==,
                       ffm_debug_has_test_hooks () ? "1:2" : NULL);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDIN);
  g_test_trap_assert_passed ();
  if (ffm_debug_has_test_hooks ())
    g_test_trap_assert_stderr ("");
  else
    g_test_trap_assert_stderr ("*no test hooks*");
  /* The build type decides (meson option test_hooks, auto). */
  g_assert_cmpint (ffm_debug_has_test_hooks (), ==, FFM_TEST_HOOKS);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/debug/syntax", test_syntax);
  g_test_add_func ("/debug/refused", test_refused);
  g_test_add_func ("/debug/environment-once", test_environment_once);
  g_test_add_func ("/debug/test-hooks", test_hooks);
  return g_test_run ();
}
