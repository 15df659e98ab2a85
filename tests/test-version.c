/* test-version.c: FFM_CHECK_VERSION() at compile time and
 * ffm_check_version() at run time agree with the version the headers and
 * libffm carry, and refuse what they should (ffm-version.h). */
#include <ffm/ffm.h>
#include <string.h>

/* Compile time: these headers are their own version and every earlier one;
 * not the next micro, minor or major. */
#if !FFM_CHECK_VERSION (FFM_MAJOR_VERSION, FFM_MINOR_VERSION, FFM_MICRO_VERSION)
#error "FFM_CHECK_VERSION refuses the headers' own version"
#endif
#if !FFM_CHECK_VERSION (0, 0, 0)
#error "FFM_CHECK_VERSION refuses 0.0.0"
#endif
#if FFM_CHECK_VERSION (FFM_MAJOR_VERSION, FFM_MINOR_VERSION, FFM_MICRO_VERSION + 1)
#error "FFM_CHECK_VERSION accepts the next micro version"
#endif
#if FFM_CHECK_VERSION (FFM_MAJOR_VERSION, FFM_MINOR_VERSION + 1, 0)
#error "FFM_CHECK_VERSION accepts the next minor version"
#endif
#if FFM_CHECK_VERSION (FFM_MAJOR_VERSION + 1, 0, 0)
#error "FFM_CHECK_VERSION accepts the next major version"
#endif

static void
test_compile_time (void)
{
  g_autofree char *built = g_strdup_printf ("%d.%d.%d", FFM_MAJOR_VERSION,
                                            FFM_MINOR_VERSION, FFM_MICRO_VERSION);

  g_test_summary ("The version macros spell FFM_VERSION_STRING; FFM_CHECK_VERSION "
                  "orders versions (the #if checks above fail the build)");
  g_assert_cmpstr (built, ==, FFM_VERSION_STRING);
  g_assert_true (FFM_CHECK_VERSION (FFM_MAJOR_VERSION, FFM_MINOR_VERSION, FFM_MICRO_VERSION));
  g_assert_false (FFM_CHECK_VERSION (FFM_MAJOR_VERSION, FFM_MINOR_VERSION + 1, 0));
  if (FFM_MICRO_VERSION > 0)
    g_assert_true (FFM_CHECK_VERSION (FFM_MAJOR_VERSION, FFM_MINOR_VERSION, FFM_MICRO_VERSION - 1));
  if (FFM_MINOR_VERSION > 0)
    g_assert_true (FFM_CHECK_VERSION (FFM_MAJOR_VERSION, FFM_MINOR_VERSION - 1, 999));
}

static void
test_run_time (void)
{
  const unsigned major = FFM_MAJOR_VERSION, minor = FFM_MINOR_VERSION,
                 micro = FFM_MICRO_VERSION;
  const char *why;

  g_test_summary ("ffm_check_version(): NULL for the running libffm's own version "
                  "and older ones of its major version; a message otherwise");
  g_assert_null (ffm_check_version (major, minor, micro));
  g_assert_null (ffm_check_version (major, 0, 0));
  if (micro > 0)
    g_assert_null (ffm_check_version (major, minor, micro - 1));
  if (minor > 0)
    g_assert_null (ffm_check_version (major, minor - 1, 1000));

  why = ffm_check_version (major, minor, micro + 1);
  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "too old"));
  why = ffm_check_version (major, minor + 1, 0);
  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "too old"));
  why = ffm_check_version (major + 1, 0, 0);
  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "major"));
  if (major > 0)
    {
      why = ffm_check_version (major - 1, 99, 99);
      g_assert_nonnull (why);
      g_assert_nonnull (strstr (why, "too new"));
    }
  /* Static strings: the same pointer each time. */
  g_assert_true (ffm_check_version (major + 1, 0, 0) == ffm_check_version (major + 1, 0, 0));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/version/compile-time", test_compile_time);
  g_test_add_func ("/version/run-time", test_run_time);
  return g_test_run ();
}
