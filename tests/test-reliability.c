/* test-reliability.c: what a careless user or a hostile shell does to the
 * built `ffm`, beyond what the corpus (tests/hostile) can express: endless
 * pipes on standard input, Ctrl-C in every strategy, sweeps resumed from
 * another sweep's CSV and results whose inputs changed. */
#include "ffm-run.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

static void
assert_contains (const char *haystack, const char *needle)
{
  if (strstr (haystack, needle) == NULL)
    g_error ("expected to find \"%s\" in:\n%s", needle, haystack);
}

/* ---- Bounded reads ---- */

static void
test_endless_pipe (void)
{
  g_auto (FfmTestRun) run = { 0 };
  g_autofree char *script = NULL;
  FfmTestRunOptions options = { 0 };

  g_test_summary ("`yes | ffm import timeloop /dev/stdin` ends at the 16 MiB limit "
                  "with the file and the limit named");
  script = g_strdup_printf ("yes | '%s' import timeloop /dev/stdin -o \"${TMPDIR:-/tmp}\"/"
                            "ffm-reliability-never", g_getenv ("FFM_EXE"));
  options.program = "/bin/sh";
  options.deadline = 30;
  ffm_test_run_full (&run, (const char *const[]) { "-c", script, NULL }, &options);
  g_assert_false (run.timed_out);
  g_assert_cmpint (run.status, ==, 1);
  assert_contains (run.err, "/dev/stdin: more than 16 MiB (the limit for input files)");
}

/* ---- Exit codes ---- */

#define SMALL "--arch", "tpuv4i", "--workload", "matmuls", "--param", "n_einsums=3"

static void
test_interrupt_exit_codes (void)
{
  const char *const strategies[] = { "random", "set", "tileflow" };

  g_test_summary ("Ctrl-C in map with every strategy that keeps a best mapping "
                  "exits 130 (the mapping is written, the run is not complete)");
  for (guint i = 0; i < G_N_ELEMENTS (strategies); i++)
    {
      g_auto (FfmTestRun) run = { 0 };
      FfmTestRunOptions options = { 0 };
      options.terminal = TRUE;
      /* The progress line, drawn after 1 s of search. */
      options.interrupt_on = " s)";
      options.deadline = 60;
      ffm_test_run_full (&run, (const char *const[]) {
          "map", SMALL, "--strategy", strategies[i], "--max-evaluations", "100000000000",
          NULL }, &options);
      g_test_message ("%s: exit %d\n%s", strategies[i], run.status, run.err);
      g_assert_true (run.interrupted);
      g_assert_cmpint (run.status, ==, 130);
      assert_contains (run.out, "INTERRUPTED: interrupted (Ctrl-C)");
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reliability/bounded/endless-pipe", test_endless_pipe);
  g_test_add_func ("/reliability/exit-codes/interrupt", test_interrupt_exit_codes);
  return g_test_run ();
}
