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
      /* Once the search runs (the meter's progress says so), not at the
       * first progress line: the pmappings come first, and take longer
       * on a loaded machine or under a sanitizer. */
      options.interrupt_on = "budget spent";
      options.deadline = 100;
      ffm_test_run_full (&run, (const char *const[]) {
          "map", SMALL, "--strategy", strategies[i], "--max-evaluations", "100000000000",
          NULL }, &options);
      g_test_message ("%s: exit %d\n%s", strategies[i], run.status, run.err);
      g_assert_true (run.interrupted);
      g_assert_cmpint (run.status, ==, 130);
      assert_contains (run.out, "INTERRUPTED: interrupted (Ctrl-C)");
    }
}


/* ---- Sweeps never lose rows ---- */

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

static void
run_sweep (FfmTestRun *run, const char *arch, const char *grid, const char *csv)
{
  FFM_TEST_RUN (run, "sweep", "--arch", arch, "--workload", "matmuls", "--param", "kn=4",
                "--sweep", grid, "--csv", csv);
  g_test_message ("sweep %s %s: exit %d\n%s", arch, grid, run->status, run->err);
}

static void
test_sweep_refuses_other_sweeps (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-reliability");
  g_autofree char *csv = g_build_filename (dir, "s.csv", NULL);
  g_autofree char *record = g_build_filename (dir, "s.csv.sweep", NULL);
  g_autofree char *arch = g_build_filename (dir, "arch.json", NULL);
  g_autofree char *source_arch = g_build_filename (g_getenv ("FFM_SOURCE_ROOT"), "arch-models",
                                                   "json", "architectures", "simple.json",
                                                   NULL);
  g_autofree char *arch_text = read_text (source_arch);
  g_autofree char *csv_before = NULL, *record_before = NULL;
  g_autofree char *edited = NULL;
  g_auto (FfmTestRun) first = { 0 }, grid = { 0 }, changed = { 0 }, done = { 0 };
  g_auto (FfmTestRun) extra = { 0 }, no_record = { 0 };
  GStatBuf before, after;

  g_test_summary ("a CSV is resumed only by the sweep that wrote it (FILE.sweep): "
                  "another grid, an edited architecture, an extra row or no record "
                  "are refused and both files left byte for byte; a complete sweep "
                  "is not rewritten");
  g_assert_true (g_file_set_contents (arch, arch_text, -1, NULL));
  run_sweep (&first, arch, "m=4,8", csv);
  g_assert_cmpint (first.status, ==, 0);
  csv_before = read_text (csv);
  record_before = read_text (record);
  assert_contains (record_before, "grid: m=4,8\n");
  assert_contains (record_before, "sha256:");

  /* The same columns, another grid: the earlier rows must stay. */
  run_sweep (&grid, arch, "m=4,16", csv);
  g_assert_cmpint (grid.status, ==, 1);
  assert_contains (grid.err, "was written by another sweep (");
  assert_contains (grid.err, "grid was m=4,8 (this sweep: m=4,16)");
  {
    g_autofree char *csv_now = read_text (csv), *record_now = read_text (record);
    g_assert_cmpstr (csv_now, ==, csv_before);
    g_assert_cmpstr (record_now, ==, record_before);
  }

  /* The architecture file edited since. */
  edited = g_strconcat (arch_text, "\n", NULL);
  g_assert_true (g_file_set_contents (arch, edited, -1, NULL));
  run_sweep (&changed, arch, "m=4,8", csv);
  g_assert_cmpint (changed.status, ==, 1);
  assert_contains (changed.err, "arch was ");
  {
    g_autofree char *csv_now = read_text (csv);
    g_assert_cmpstr (csv_now, ==, csv_before);
  }
  g_assert_true (g_file_set_contents (arch, arch_text, -1, NULL));

  /* Complete already: nothing is rewritten (not even the same bytes). */
  g_assert_cmpint (g_stat (csv, &before), ==, 0);
  g_usleep (20000);
  run_sweep (&done, arch, "m=4,8", csv);
  g_assert_cmpint (done.status, ==, 0);
  assert_contains (done.err, "all 2 points are already in ");
  g_assert_cmpint (g_stat (csv, &after), ==, 0);
  g_assert_cmpint (before.st_mtim.tv_nsec, ==, after.st_mtim.tv_nsec);
  g_assert_cmpint (before.st_ino, ==, after.st_ino);

  /* A row that is no point of this sweep (written by hand). */
  {
    g_autofree char *more = g_strconcat (csv_before, "ffm,1024,failed,,,,,0.000,,,,,,,x\n",
                                         NULL);
    g_assert_true (g_file_set_contents (csv, more, -1, NULL));
    g_autofree char *csv_now = NULL;
    run_sweep (&extra, arch, "m=4,8", csv);
    g_assert_cmpint (extra.status, ==, 1);
    assert_contains (extra.err, "row 4 (policy ffm) is not a point of this sweep; the "
                     "file is left as it is");
    csv_now = read_text (csv);
    g_assert_cmpstr (csv_now, ==, more);
  }

  /* No record beside the CSV: whose rows are they? */
  g_assert_true (g_file_set_contents (csv, csv_before, -1, NULL));
  g_assert_cmpint (g_unlink (record), ==, 0);
  run_sweep (&no_record, arch, "m=4,8", csv);
  g_assert_cmpint (no_record.status, ==, 1);
  assert_contains (no_record.err, "s.csv.sweep, which records the sweep that wrote it, "
                   "does not");
  {
    g_autofree char *csv_now = read_text (csv);
    g_assert_cmpstr (csv_now, ==, csv_before);
  }
  ffm_test_remove_dir (dir);
}

/* ---- Results know their inputs ---- */

static void
test_result_inputs_changed (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-reliability");
  g_autofree char *arch = g_build_filename (dir, "arch.json", NULL);
  g_autofree char *result = g_build_filename (dir, "r.json", NULL);
  g_autofree char *old = g_build_filename (dir, "old.json", NULL);
  g_autofree char *source_arch = g_build_filename (g_getenv ("FFM_SOURCE_ROOT"), "arch-models",
                                                   "json", "architectures", "simple.json",
                                                   NULL);
  g_autofree char *arch_text = read_text (source_arch);
  g_autofree char *result_text = NULL, *edited = NULL;
  g_auto (FfmTestRun) map = { 0 }, same = { 0 }, changed = { 0 }, allowed = { 0 };
  g_auto (FfmTestRun) old_run = { 0 };

  g_test_summary ("a result records the SHA-256 of its architecture and workload "
                  "files; eval refuses it once one changed, says which, and "
                  "re-evaluates only with --allow-changed-inputs (saying so); a "
                  "result file without digests still reads");
  g_assert_true (g_file_set_contents (arch, arch_text, -1, NULL));
  FFM_TEST_RUN (&map, "map", "--arch", arch, "--workload", "matmuls", "--param", "m=4",
                "--param", "kn=4", "--json", result, "--quiet");
  g_assert_cmpint (map.status, ==, 0);
  result_text = read_text (result);
  assert_contains (result_text, "\"digests\": {\n      \"architecture\": \"sha256:");
  assert_contains (result_text, "\"workload\": \"sha256:");

  FFM_TEST_RUN (&same, "eval", result);
  g_assert_cmpint (same.status, ==, 0);
  g_assert_cmpstr (same.err, ==, "");

  edited = g_strconcat (arch_text, "\n", NULL);
  g_assert_true (g_file_set_contents (arch, edited, -1, NULL));
  FFM_TEST_RUN (&changed, "eval", result);
  g_test_message ("%s", changed.err);
  g_assert_cmpint (changed.status, ==, 1);
  g_assert_cmpstr (changed.out, ==, "");
  assert_contains (changed.err, "its inputs changed since it was written: the "
                   "architecture file ");
  assert_contains (changed.err, "arch.json changed (sha256:");
  assert_contains (changed.err, "re-evaluate against the new inputs with "
                   "--allow-changed-inputs");

  FFM_TEST_RUN (&allowed, "eval", result, "--allow-changed-inputs");
  g_assert_cmpint (allowed.status, ==, 0);
  assert_contains (allowed.err, "note: ");
  assert_contains (allowed.err, "evaluating against changed inputs "
                   "(--allow-changed-inputs): the architecture file ");
  assert_contains (allowed.out, "Energy ");

  /* A result file from before digests: read as it always was. */
  {
    GString *text = g_string_new (result_text);
    char *start = strstr (text->str, "    \"digests\": {");
    char *end = start != NULL ? strstr (start, "},\n") : NULL;
    g_assert_nonnull (end);
    g_string_erase (text, start - text->str, end + 3 - start);
    g_assert_true (g_file_set_contents (old, text->str, -1, NULL));
    g_string_free (text, TRUE);
  }
  FFM_TEST_RUN (&old_run, "eval", old);
  g_test_message ("%s", old_run.err);
  g_assert_cmpint (old_run.status, ==, 0);
  assert_contains (old_run.out, "Energy ");
  ffm_test_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reliability/bounded/endless-pipe", test_endless_pipe);
  g_test_add_func ("/reliability/exit-codes/interrupt", test_interrupt_exit_codes);
  g_test_add_func ("/reliability/sweep/other-sweeps", test_sweep_refuses_other_sweeps);
  g_test_add_func ("/reliability/results/inputs-changed", test_result_inputs_changed);
  return g_test_run ();
}
