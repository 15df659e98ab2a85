/* test-mpi-cli.c: `mpirun -n N ffm map`, `ffm sweep` and `ffm compare`
 * (ffm-cli-mpi.h, ffm-cli-mpi-points.h, docs/cluster.md) end to end, on
 * this machine with --oversubscribe: the same mapping and numbers, to the
 * last bit of the JSON, as one process on several workloads with 2 and 3
 * ranks (equal-Einsum reuse and mapping constraints included); every
 * rank's memory on stderr; a rank killed in the middle of its first job, a
 * rank that read other input (or other constraints) and a rank with a bad
 * argument fail the run with a message and no mapping. Sweeps: the same
 * CSV and JSON as one process (times aside), resumed from a partial CSV
 * running only the missing points, a failing point recorded, a rank
 * killed mid-sweep failing the run with a CSV that a rerun completes.
 * Compare: the same JSON and CSV as one process (times aside). In a build without MPI (MPI_BUILT=0) these
 * are skipped, and ffm started as one of several ranks refuses to run. */
#include "ffm-run.h"

#include <string.h>

/* MPIRUN, with what running as root in a container needs. */
static const char *
mpirun (void)
{
  const char *path = g_getenv ("MPIRUN");
  return path != NULL && path[0] != '\0' ? path : NULL;
}

static gboolean
mpi_built (void)
{
  return g_strcmp0 (g_getenv ("MPI_BUILT"), "1") == 0;
}

static gboolean
skip_without_mpi (void)
{
  if (!mpi_built ())
    {
      g_test_skip ("ffm was built without MPI (meson -Dmpi=enabled)");
      return TRUE;
    }
  if (mpirun () == NULL)
    {
      g_test_skip ("no mpirun (Debian openmpi-bin)");
      return TRUE;
    }
  return FALSE;
}

static const char *const root_env[] = {
  "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
  /* One launch must not wait for another's network probes. */
  "OMPI_MCA_btl=self,vader", "OMPI_MCA_btl_vader_single_copy_mechanism=none",
  NULL };

/* Runs `ffm ARGS` under `mpirun -n N` (N = 0: without mpirun). */
static void
run_ranks (FfmTestRun *run, guint n, const char *const *args,
           const char *const *env)
{
  g_autofree char *count = g_strdup_printf ("%u", n);
  const char *launcher[] = { mpirun (), "--oversubscribe", "-n", count, NULL };
  g_autoptr (GPtrArray) all_env = g_ptr_array_new ();
  g_autofree char *lsan = NULL;
  FfmTestRunOptions options = { 0 };

  for (guint i = 0; root_env[i] != NULL; i++)
    g_ptr_array_add (all_env, (char *) root_env[i]);
  /* Sanitizer builds: Open MPI's own leaks are suppressed by library
   * (tests/lsan.supp), which only the slow unwinder sees. */
  if (n > 0 && g_getenv ("LSAN_OPTIONS") != NULL)
    {
      lsan = g_strdup_printf ("LSAN_OPTIONS=%s:fast_unwind_on_malloc=0",
                              g_getenv ("LSAN_OPTIONS"));
      g_ptr_array_add (all_env, lsan);
    }
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    g_ptr_array_add (all_env, (char *) env[i]);
  g_ptr_array_add (all_env, NULL);
  options.env = (const char *const *) all_env->pdata;
  options.launcher = n > 0 ? launcher : NULL;
  options.deadline = 240;
  ffm_test_run_full (run, args, &options);
}

static const char *const one_process_env[] = { "FFM_DEBUG=no-einsum-front", NULL };

/* The JSON without the lines that hold times (they differ run to run). */
static char *
without_times (const char *json)
{
  g_auto (GStrv) lines = g_strsplit (json, "\n", -1);
  GString *out = g_string_new (NULL);

  /* Everything else is compared, what the generation evaluated and left
   * out for no join included: the ranks run the same two waves with the
   * same parts (docs/cluster.md). */
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], "seconds") == NULL && strstr (lines[i], "wall_s") == NULL
        && strstr (lines[i], "states_per_ffm_time") == NULL    /* ffm's time / a state's */
        /* The generator's profile counts the tile searches this process
         * ran; under mpirun other ranks run some (docs/cluster.md). */
        && strstr (lines[i], "\"partial_rows_") == NULL
        && strstr (lines[i], "\"peak_table_rows_") == NULL
        /* and the budget's peak is this process's own */
        && strstr (lines[i], "\"memory_budget_peak_bytes\"") == NULL)
      g_string_append_printf (out, "%s\n", lines[i]);
  return g_string_free (out, FALSE);
}

typedef struct {
  const char *name;
  const char *args[12];
} Case;

static const Case cases[] = {
  { "matmuls-reuse", { "map", "--arch", "simple", "--workload", "matmuls",
                       "--param", "n_einsums=4", NULL } },
  { "gpt3-nvdla", { "map", "--arch", "nvdla", "--workload", "gpt3-6.7b",
                    "--param", "new_tokens=64", NULL } },
  { "three-matmuls-fused2", { "map", "--arch", "simple", "--workload", "three-matmuls",
                              "--max-fused-loops", "2", NULL } },
  { "matmul-chain-pareto", { "map", "--arch", "simple", "--workload", "matmul-chain",
                             "--objective", "pareto", NULL } },
  /* Each rank loads and binds the policy itself. */
  { "gpt3-transfusion", { "map", "--arch", "simple", "--workload", "gpt3-6.7b",
                          "--param", "new_tokens=64", "--policy", "transfusion", NULL } },
  /* One Einsum: every rank searches the storage choices of least bound
   * itself and leaves out the same ones (7 of 8 here). */
  { "one-matmul-bounded", { "map", "--arch", "simple", "--workload", "matmuls",
                            "--param", "n_einsums=1", NULL } },
};

static void
test_same_as_one_process (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_auto (FfmTestRun) one = { 0 };
  g_autofree char *expected = NULL;

  if (skip_without_mpi ())
    return;
  for (guint i = 0; c->args[i] != NULL; i++)
    g_ptr_array_add (args, (char *) c->args[i]);
  g_ptr_array_add (args, "--threads");
  g_ptr_array_add (args, "1");
  g_ptr_array_add (args, "--json");
  g_ptr_array_add (args, "-");
  g_ptr_array_add (args, NULL);
  /* The MPI build without mpirun: one process. Over ranks each process
   * searches its templates alone, without the Einsum fronts of the
   * threads (ffm-einsum-front-private.h): the same Pareto pmappings,
   * more of them evaluated; the one process is told to do the same. */
  run_ranks (&one, 0, (const char *const *) args->pdata, one_process_env);
  g_assert_cmpint (one.status, ==, 0);
  g_assert_null (strstr (one.err, "MPI"));
  expected = without_times (one.out);
  g_assert_nonnull (strstr (expected, "\"mapping\""));
  if (strcmp (c->name, "matmuls-reuse") == 0)
    g_assert_nonnull (strstr (expected, "\"einsums_reused\": 1"));
  if (strcmp (c->name, "gpt3-transfusion") == 0)
    g_assert_nonnull (strstr (expected, "\"name\": \"transfusion\""));
  for (guint n = 2; n <= 3; n++)
    {
      g_auto (FfmTestRun) many = { 0 };
      g_autofree char *got = NULL;
      g_autofree char *ranks = g_strdup_printf ("MPI: %u ranks", n);
      g_autofree char *last = g_strdup_printf ("rank %u ", n - 1);

      run_ranks (&many, n, (const char *const *) args->pdata, NULL);
      g_assert_cmpint (many.status, ==, 0);
      got = without_times (many.out);
      g_assert_cmpstr (got, ==, expected);
      /* What each rank did and its peak memory. */
      g_assert_nonnull (strstr (many.err, ranks));
      g_assert_nonnull (strstr (many.err, last));
      g_assert_nonnull (strstr (many.err, "MiB"));
    }
}

/* One rank under mpirun is one process: no report, the same text. */
static void
test_one_rank (void)
{
  const char *const args[] = { "map", "--arch", "simple", "--workload", "matmuls", NULL };
  g_auto (FfmTestRun) run = { 0 };

  if (skip_without_mpi ())
    return;
  run_ranks (&run, 1, args, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "Best mapping of matmuls"));
  g_assert_null (strstr (run.err, "MPI:"));
}

/* A constraints file, which every rank reads itself: the same mapping as
 * one process, which differs from the unconstrained one. */
static void
test_constraints_file (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (FfmTestRun) one = { 0 }, many = { 0 }, free_run = { 0 };
  g_autofree char *expected = NULL, *got = NULL, *unconstrained = NULL;
  const char *base[] = { "map", "--arch", "simple", "--workload", "matmuls",
                         "--param", "n_einsums=3", "--threads", "1", "--json", "-" };
  g_autoptr (GPtrArray) args = g_ptr_array_new ();

  if (skip_without_mpi ())
    return;
  dir = ffm_test_scratch_dir ("ffm-mpi");
  path = g_build_filename (dir, "c.json", NULL);
  g_assert_true (g_file_set_contents (path, "{ \"ffm_constraints\": 1, \"name\": "
                                      "\"no fusion\", \"constraints\": [ { \"unfuse\": "
                                      "\"intermediates\" } ] }\n", -1, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (base); i++)
    g_ptr_array_add (args, (char *) base[i]);
  g_ptr_array_add (args, NULL);
  run_ranks (&free_run, 0, (const char *const *) args->pdata, NULL);
  g_assert_cmpint (free_run.status, ==, 0);
  g_ptr_array_remove_index (args, args->len - 1);
  g_ptr_array_add (args, "--constraints");
  g_ptr_array_add (args, path);
  g_ptr_array_add (args, NULL);
  /* (the ranks generate without the Einsum fronts: so does the one
   * process compared with them, test_same_as_one_process()) */
  run_ranks (&one, 0, (const char *const *) args->pdata, one_process_env);
  g_assert_cmpint (one.status, ==, 0);
  run_ranks (&many, 2, (const char *const *) args->pdata, NULL);
  g_assert_false (many.timed_out);
  g_assert_cmpint (many.status, ==, 0);
  g_assert_nonnull (strstr (many.err, "MPI: 2 ranks"));
  expected = without_times (one.out);
  got = without_times (many.out);
  unconstrained = without_times (free_run.out);
  g_assert_nonnull (strstr (expected, "\"no fusion\""));
  g_assert_cmpstr (got, ==, expected);
  g_assert_cmpstr (unconstrained, !=, expected);
  ffm_test_remove_dir (dir);
}

/* Rank 1 dies (SIGKILL) on receiving its first job: the launcher stops
 * the run, which fails without a mapping and says why. */
static void
test_rank_killed (void)
{
  /* Seconds of jobs: rank 0 alone cannot take them all before rank 1
   * asks. */
  const char *const args[] = { "map", "--arch", "eyeriss", "--workload", "gpt3-6.7b",
                               "--param", "new_tokens=64", "--threads", "1", NULL };
  const char *const env[] = { "FFM_DEBUG=mpi-die=1:1", NULL };
  g_auto (FfmTestRun) run = { 0 };

  if (!FFM_TEST_HOOKS)
    {
      g_test_skip ("this build has no test hooks (meson option test_hooks)");
      return;
    }
  if (skip_without_mpi ())
    return;
  run_ranks (&run, 2, args, env);
  g_assert_false (run.timed_out);
  g_assert_cmpint (run.status, !=, 0);
  g_assert_null (strstr (run.out, "Best mapping"));
  g_assert_nonnull (strstr (run.err, "rank died"));
  g_assert_nonnull (strstr (run.err, "no mapping"));
}

/* mpirun -n 1 ffm ARGS : -n 1 ffm OTHER: rank 1 reads other input. */
static void
run_two_programs (FfmTestRun *run, const char *const *rank1_args)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  const char *const rank0[] = { "map", "--arch", "simple", "--workload", "matmuls",
                                "--param", "n_einsums=3", NULL };

  for (guint i = 0; rank0[i] != NULL; i++)
    g_ptr_array_add (args, (char *) rank0[i]);
  g_ptr_array_add (args, ":");
  g_ptr_array_add (args, "-n");
  g_ptr_array_add (args, "1");
  g_ptr_array_add (args, (char *) g_getenv ("FFM_EXE"));
  for (guint i = 0; rank1_args[i] != NULL; i++)
    g_ptr_array_add (args, (char *) rank1_args[i]);
  g_ptr_array_add (args, NULL);
  run_ranks (run, 1, (const char *const *) args->pdata, NULL);
}

/* Rank 1 reads another command line than rank 0: its jobs' fingerprint
 * differs from rank 0's, and the run fails saying so. */
typedef struct {
  const char *const *rank1;     /* rank 1's arguments */
  const char *why;              /* what the message must also name */
} OtherInput;

static const char *const other_problem[] = { "map", "--arch", "simple", "--workload",
                                             "matmuls", "--param", "n_einsums=3",
                                             "--param", "m=256", NULL };
static const char *const other_constraints[] = { "map", "--arch", "simple", "--workload",
                                                 "matmuls", "--param", "n_einsums=3",
                                                 "--no-fuse", "intermediates", NULL };
static const OtherInput other_inputs[] = {
  { other_problem, "differ from rank 0's" },
  { other_constraints, "constraints" },
};

static void
test_rank_other_input (gconstpointer data)
{
  const OtherInput *c = data;
  g_auto (FfmTestRun) run = { 0 };

  if (skip_without_mpi ())
    return;
  run_two_programs (&run, c->rank1);
  g_assert_false (run.timed_out);
  g_assert_cmpint (run.status, !=, 0);
  g_assert_null (strstr (run.out, "Best mapping"));
  g_assert_nonnull (strstr (run.err, "MPI: rank 1 failed"));
  g_assert_nonnull (strstr (run.err, c->why));
}

static void
test_rank_bad_argument (void)
{
  const char *const rank1[] = { "map", "--arch", "simple", "--workload", "no-such-workload", NULL };
  g_auto (FfmTestRun) run = { 0 };

  if (skip_without_mpi ())
    return;
  run_two_programs (&run, rank1);
  g_assert_false (run.timed_out);
  g_assert_cmpint (run.status, !=, 0);
  g_assert_null (strstr (run.out, "Best mapping"));
  g_assert_nonnull (strstr (run.err, "no-such-workload"));
  g_assert_nonnull (strstr (run.err, "MPI: rank 1 failed: it stopped before running jobs"));
}

/* ---- ffm sweep ---- */

static char *
read_text (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

/* The records of CSV @text, each a GPtrArray of its fields as written
 * (quotes kept): fields split at commas outside quotes, records at
 * newlines outside quotes. */
static GPtrArray *
csv_split (const char *text)
{
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *fields = g_ptr_array_new_with_free_func (g_free);
  GString *field = g_string_new (NULL);
  gboolean quoted = FALSE;

  for (const char *c = text; *c != '\0'; c++)
    {
      if (*c == '"')
        quoted = !quoted;
      if (!quoted && (*c == ',' || *c == '\n'))
        {
          g_ptr_array_add (fields, g_string_free (field, FALSE));
          field = g_string_new (NULL);
          if (*c == '\n')
            {
              g_ptr_array_add (records, fields);
              fields = g_ptr_array_new_with_free_func (g_free);
            }
          continue;
        }
      g_string_append_c (field, *c);
    }
  g_string_free (field, TRUE);
  g_ptr_array_unref (fields);   /* the file ends with a newline */
  return records;
}

/* The CSV file at @path without its "seconds" column (wall times). */
static char *
csv_without_seconds (const char *path)
{
  g_autofree char *text = read_text (path);
  g_autoptr (GPtrArray) records = csv_split (text);
  GString *out = g_string_new (NULL);
  guint col = G_MAXUINT;
  GPtrArray *header;

  g_assert_cmpuint (records->len, >, 0);
  header = records->pdata[0];
  for (guint i = 0; i < header->len; i++)
    if (strcmp (header->pdata[i], "seconds") == 0)
      col = i;
  g_assert_cmpuint (col, !=, G_MAXUINT);
  for (guint r = 0; r < records->len; r++)
    {
      GPtrArray *f = records->pdata[r];
      g_assert_cmpuint (f->len, ==, header->len);
      for (guint i = 0; i < f->len; i++)
        if (i != col)
          g_string_append_printf (out, "%s,", (const char *) f->pdata[i]);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

/* The points each rank ran, summed from rank 0's report ("rank 1 3
 * points"). */
static guint
points_run (const char *err)
{
  const char *at = strstr (err, "MPI: ");
  guint total = 0;

  g_assert_nonnull (at);
  while ((at = strstr (at, " rank ")) != NULL)
    {
      guint64 n;
      char *end;
      at += strlen (" rank ");
      g_ascii_strtoull (at, &end, 10);
      n = g_ascii_strtoull (end, &end, 10);
      if (g_str_has_prefix (end, " points"))
        total += (guint) n;
    }
  return total;
}

/* `ffm sweep SWEEP... --threads 1 --csv DIR/NAME.csv [--json DIR/NAME.json]`
 * under N ranks (0: one process). */
static void
run_sweep (FfmTestRun *run, guint n, const char *const *sweep, const char *dir,
           const char *name, gboolean json, const char *const *env)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (NULL);
  g_autofree char *csv = g_strdup_printf ("%s/%s.csv", dir, name);
  g_autofree char *json_path = g_strdup_printf ("%s/%s.json", dir, name);

  g_ptr_array_add (args, "sweep");
  for (guint i = 0; sweep[i] != NULL; i++)
    g_ptr_array_add (args, (char *) sweep[i]);
  g_ptr_array_add (args, "--threads");
  g_ptr_array_add (args, "1");
  g_ptr_array_add (args, "--csv");
  g_ptr_array_add (args, csv);
  if (json)
    {
      g_ptr_array_add (args, "--json");
      g_ptr_array_add (args, json_path);
    }
  g_ptr_array_add (args, NULL);
  run_ranks (run, n, (const char *const *) args->pdata, env);
  g_assert_false (run->timed_out);
}

/* 3 x 2 matmul chains under two policies: 12 small points. */
static const char *const grid[] = { "--arch", "simple", "--workload", "matmuls",
                                    "--sweep", "n_einsums=2,3,4", "--sweep", "m=64,128",
                                    "--policy", "ffm,unfused", NULL };

static void
test_sweep_same_as_one_process (void)
{
  g_autofree char *dir = NULL;
  g_auto (FfmTestRun) one = { 0 };
  g_autofree char *csv = NULL, *json = NULL, *json_text = NULL;

  if (skip_without_mpi ())
    return;
  dir = ffm_test_scratch_dir ("ffm-mpi");
  run_sweep (&one, 0, grid, dir, "one", TRUE, NULL);
  g_assert_cmpint (one.status, ==, 0);
  g_assert_null (strstr (one.err, "MPI"));
  csv = g_strdup_printf ("%s/one.csv", dir);
  json = g_strdup_printf ("%s/one.json", dir);
  {
    g_autofree char *a = read_text (csv);
    g_autofree char *text = read_text (json);
    g_autoptr (GPtrArray) records = csv_split (a);
    json_text = without_times (text);
    g_assert_cmpuint (records->len, ==, 13);    /* the header and 12 rows */
  }
  for (guint n = 2; n <= 3; n++)
    {
      g_auto (FfmTestRun) many = { 0 };
      g_autofree char *name = g_strdup_printf ("n%u", n);
      g_autofree char *csv_n = g_strdup_printf ("%s/n%u.csv", dir, n);
      g_autofree char *json_n = g_strdup_printf ("%s/n%u.json", dir, n);
      g_autofree char *ranks = g_strdup_printf ("MPI: %u ranks", n);
      g_autofree char *a = csv_without_seconds (csv);
      g_autofree char *b = NULL, *text = NULL, *got = NULL;

      run_sweep (&many, n, grid, dir, name, TRUE, NULL);
      g_assert_cmpint (many.status, ==, 0);
      b = csv_without_seconds (csv_n);
      g_assert_cmpstr (b, ==, a);
      text = read_text (json_n);
      got = without_times (text);
      g_assert_cmpstr (got, ==, json_text);
      /* Every point ran once; each rank's share and memory. */
      g_assert_nonnull (strstr (many.err, ranks));
      g_assert_cmpuint (points_run (many.err), ==, 12);
      g_assert_nonnull (strstr (many.err, "MiB"));
      g_assert_cmpstr (many.out, ==, "");
    }
  ffm_test_remove_dir (dir);
}

/* Under mpirun, a CSV holding the first points (and half a row, as a kill
 * leaves it): only the missing points run, and the CSV ends as the
 * uninterrupted one. */
static void
test_sweep_resume (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *whole = NULL, *part = NULL, *text = NULL, *a = NULL, *b = NULL;
  g_auto (FfmTestRun) one = { 0 }, resumed = { 0 };
  g_auto (GStrv) lines = NULL;
  g_autoptr (GString) cut = g_string_new (NULL);
  g_autoptr (GError) error = NULL;

  if (skip_without_mpi ())
    return;
  dir = ffm_test_scratch_dir ("ffm-mpi");
  run_sweep (&one, 0, grid, dir, "whole", FALSE, NULL);
  g_assert_cmpint (one.status, ==, 0);
  whole = g_strdup_printf ("%s/whole.csv", dir);
  part = g_strdup_printf ("%s/part.csv", dir);
  text = read_text (whole);
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 14);  /* header, 12 rows, "" */
  /* The header, rows 1, 2, 4 and 7, and the start of row 8. */
  g_string_append_printf (cut, "%s\n%s\n%s\n%s\n%s\n", lines[0], lines[1], lines[2],
                          lines[4], lines[7]);
  g_string_append_len (cut, lines[8], 10);
  g_assert_true (g_file_set_contents (part, cut->str, -1, &error));
  g_assert_no_error (error);
  {
    /* The record of the sweep that wrote the rows (docs/dse.md): the same
     * sweep as the one-process run's, so its record is the cut file's. */
    g_autofree char *record = g_strdup_printf ("%s.sweep", whole);
    g_autofree char *part_record = g_strdup_printf ("%s.sweep", part);
    g_autofree char *record_text = read_text (record);
    g_assert_true (g_file_set_contents (part_record, record_text, -1, &error));
    g_assert_no_error (error);
  }
  run_sweep (&resumed, 2, grid, dir, "part", FALSE, NULL);
  g_assert_cmpint (resumed.status, ==, 0);
  g_assert_nonnull (strstr (resumed.err, "resuming: 4 of 12 points"));
  g_assert_cmpuint (points_run (resumed.err), ==, 8);
  a = csv_without_seconds (whole);
  b = csv_without_seconds (part);
  g_assert_cmpstr (b, ==, a);
  ffm_test_remove_dir (dir);
}

/* Points that fail to load (m=0) or to fit (a 1-bit buffer that must keep
 * T1) are recorded as one process records them, and the others complete. */
static void
test_sweep_failing_points (void)
{
  const char *const sweep[] = { "--arch", "simple", "--workload", "matmuls",
                                "--sweep", "m=0,64,128",
                                "--sweep-arch", "global_buffer_size=1,100000000",
                                "--keep", "T1@GlobalBuffer", NULL };
  g_autofree char *dir = NULL;
  g_autofree char *a = NULL, *b = NULL, *csv_one = NULL, *csv_two = NULL;
  g_auto (FfmTestRun) one = { 0 }, two = { 0 };

  if (skip_without_mpi ())
    return;
  dir = ffm_test_scratch_dir ("ffm-mpi");
  run_sweep (&one, 0, sweep, dir, "one", TRUE, NULL);
  g_assert_cmpint (one.status, ==, 1);
  g_assert_nonnull (strstr (one.err, "4 of 6 points failed"));
  run_sweep (&two, 2, sweep, dir, "two", TRUE, NULL);
  g_assert_cmpint (two.status, ==, 1);
  g_assert_nonnull (strstr (two.err, "4 of 6 points failed"));
  g_assert_nonnull (strstr (two.err, "does not fit"));
  g_assert_nonnull (strstr (two.err, "is below the minimum"));
  csv_one = g_strdup_printf ("%s/one.csv", dir);
  csv_two = g_strdup_printf ("%s/two.csv", dir);
  a = csv_without_seconds (csv_one);
  b = csv_without_seconds (csv_two);
  g_assert_cmpstr (b, ==, a);
  g_assert_nonnull (strstr (b, ",ok,"));
  g_assert_nonnull (strstr (b, ",failed,"));
  ffm_test_remove_dir (dir);
}

/* Rank 1 dies (SIGKILL) on receiving its first point: Open MPI ends the
 * run, which fails saying so; the CSV so far is valid, and running the
 * same command again (here as one process) completes it. (Its second
 * point was a race: with dynamic balancing rank 0 can finish every other
 * point while rank 1 is on its first, and the run then succeeds.) */
static void
test_sweep_rank_killed (void)
{
  const char *const env[] = { "FFM_DEBUG=mpi-die=1:1", NULL };
  g_autofree char *dir = NULL;
  g_autofree char *a = NULL, *b = NULL, *whole = NULL, *cut = NULL;
  g_auto (FfmTestRun) one = { 0 }, killed = { 0 }, again = { 0 };

  if (!FFM_TEST_HOOKS)
    {
      g_test_skip ("this build has no test hooks (meson option test_hooks)");
      return;
    }
  if (skip_without_mpi ())
    return;
  dir = ffm_test_scratch_dir ("ffm-mpi");
  run_sweep (&one, 0, grid, dir, "whole", FALSE, NULL);
  g_assert_cmpint (one.status, ==, 0);
  run_sweep (&killed, 2, grid, dir, "cut", FALSE, env);
  g_assert_cmpint (killed.status, !=, 0);
  g_assert_nonnull (strstr (killed.err, "a rank died"));
  g_assert_nonnull (strstr (killed.err, "run the same command again"));
  run_sweep (&again, 0, grid, dir, "cut", FALSE, NULL);
  g_assert_cmpint (again.status, ==, 0);
  whole = g_strdup_printf ("%s/whole.csv", dir);
  cut = g_strdup_printf ("%s/cut.csv", dir);
  a = csv_without_seconds (whole);
  b = csv_without_seconds (cut);
  g_assert_cmpstr (b, ==, a);
  ffm_test_remove_dir (dir);
}

/* Rank 1 sweeps other values: it says so, the run fails, and rank 0's
 * points are in the CSV, which a correct run completes. */
static void
test_sweep_rank_other_input (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *csv = NULL;
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  const char *const other[] = { "--arch", "simple", "--workload", "matmuls",
                                "--sweep", "n_einsums=2,3", "--sweep", "m=64,128",
                                "--policy", "ffm,unfused", NULL };
  g_auto (FfmTestRun) run = { 0 };

  if (skip_without_mpi ())
    return;
  dir = ffm_test_scratch_dir ("ffm-mpi");
  csv = g_strdup_printf ("%s/s.csv", dir);
  g_ptr_array_add (args, "sweep");
  for (guint i = 0; grid[i] != NULL; i++)
    g_ptr_array_add (args, (char *) grid[i]);
  g_ptr_array_add (args, "--csv");
  g_ptr_array_add (args, csv);
  g_ptr_array_add (args, ":");
  g_ptr_array_add (args, "-n");
  g_ptr_array_add (args, "1");
  g_ptr_array_add (args, (char *) g_getenv ("FFM_EXE"));
  g_ptr_array_add (args, "sweep");
  for (guint i = 0; other[i] != NULL; i++)
    g_ptr_array_add (args, (char *) other[i]);
  g_ptr_array_add (args, NULL);
  run_ranks (&run, 1, (const char *const *) args->pdata, NULL);
  g_assert_false (run.timed_out);
  g_assert_cmpint (run.status, !=, 0);
  g_assert_nonnull (strstr (run.err, "MPI: rank 1 failed"));
  g_assert_nonnull (strstr (run.err, "differs from rank 0's"));
  {
    g_autofree char *rows = csv_without_seconds (csv);
    g_assert_nonnull (strstr (rows, ",ok,"));
  }
  ffm_test_remove_dir (dir);
}

/* ---- ffm compare ---- */

/* The lines of @text that hold none of the words (times and what is
 * computed from them: the checkpoints are multiples of ffm's wall time). */
static char *
without_words (const char *text, const char *const *words)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      gboolean keep = TRUE;
      for (guint k = 0; words[k] != NULL; k++)
        keep &= strstr (lines[i], words[k]) == NULL;
      if (keep)
        g_string_append_printf (out, "%s\n", lines[i]);
    }
  return g_string_free (out, FALSE);
}

/* The first @n fields of each line of @text. */
static char *
first_fields (const char *text, guint n)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], ",", (int) n + 1);
      for (guint k = 0; k < n && f[k] != NULL; k++)
        g_string_append_printf (out, "%s,", f[k]);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

/* Seeded runs with an evaluation budget are the same whichever rank runs
 * them: the JSON and CSV as one process's, times aside; every run once. */
static void
test_compare_same_as_one_process (void)
{
  const char *const words[] = { "seconds", "percent", "per_pmapping", "per_ffm_time", NULL };
  g_autofree char *dir = NULL;
  g_autofree char *expected_json = NULL, *expected_csv = NULL;

  if (skip_without_mpi ())
    return;
  dir = ffm_test_scratch_dir ("ffm-mpi");
  for (guint n = 0; n <= 3; n++)
    {
      g_autofree char *json = g_strdup_printf ("%s/c%u.json", dir, n);
      g_autofree char *csv = g_strdup_printf ("%s/c%u.csv", dir, n);
      const char *const args[] = { "compare", "--arch", "tpuv4i", "--workload", "matmuls",
                                   "--param", "n_einsums=3", "--strategies", "set,random",
                                   "--runs", "4", "--max-evaluations", "3000",
                                   "--threads", "1", "--json", json, "--csv", csv, NULL };
      g_auto (FfmTestRun) run = { 0 };
      g_autofree char *json_text = NULL, *csv_text = NULL, *a = NULL, *b = NULL;

      if (n == 1)
        continue;
      run_ranks (&run, n, args, NULL);
      g_assert_false (run.timed_out);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_nonnull (strstr (run.out, "Comparison on matmuls"));
      json_text = read_text (json);
      csv_text = read_text (csv);
      /* strategy, run, seed, objective, percent, evaluations, queries */
      a = without_words (json_text, words);
      b = first_fields (csv_text, 7);
      if (n == 0)
        {
          g_assert_null (strstr (run.err, "MPI"));
          g_assert_nonnull (strstr (a, "\"seed\": 3001"));
          expected_json = g_steal_pointer (&a);
          expected_csv = g_steal_pointer (&b);
          continue;
        }
      g_assert_cmpstr (a, ==, expected_json);
      g_assert_cmpstr (b, ==, expected_csv);
      {
        g_autofree char *ranks = g_strdup_printf ("MPI: %u ranks", n);
        const char *at = run.err;
        guint total = 0;
        g_assert_nonnull (strstr (run.err, ranks));
        while ((at = strstr (at, " rank ")) != NULL)
          {
            char *end;
            guint64 k;
            at += strlen (" rank ");
            g_ascii_strtoull (at, &end, 10);
            k = g_ascii_strtoull (end, &end, 10);
            if (g_str_has_prefix (end, " runs"))
              total += (guint) k;
          }
        g_assert_cmpuint (total, ==, 8);
        g_assert_nonnull (strstr (run.err, "MiB"));
      }
    }
  ffm_test_remove_dir (dir);
}

/* A build without MPI, started by a launcher as one of two: map, sweep
 * and compare refuse instead of running the whole work twice. */
static void
test_refused_without_mpi (void)
{
  const char *const commands[][12] = {
    { "map", "--arch", "simple", "--workload", "matmuls", NULL },
    { "sweep", "--arch", "simple", "--workload", "matmuls", "--sweep", "m=64,128", NULL },
    { "compare", "--arch", "simple", "--workload", "matmuls", "--runs", "1",
      "--max-evaluations", "10", NULL },
  };
  const char *const env[] = { "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=1", NULL };

  if (mpi_built ())
    {
      g_test_skip ("ffm was built with MPI: this is the build without it");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      FfmTestRunOptions options = { 0 };
      g_auto (FfmTestRun) run = { 0 };
      g_autofree char *who = g_strdup_printf ("ffm %s: started as one of 2 MPI processes",
                                              commands[i][0]);

      options.env = env;
      ffm_test_run_full (&run, commands[i], &options);
      g_assert_cmpint (run.status, ==, 1);
      g_assert_cmpstr (run.out, ==, "");
      g_assert_nonnull (strstr (run.err, who));
      g_assert_nonnull (strstr (run.err, "-Dmpi=enabled"));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/mpi/map/same-as-one-process/%s",
                                               cases[i].name);
      g_test_add_data_func (path, &cases[i], test_same_as_one_process);
    }
  g_test_add_func ("/mpi/map/one-rank", test_one_rank);
  g_test_add_func ("/mpi/map/rank-killed", test_rank_killed);
  g_test_add_func ("/mpi/map/constraints-file", test_constraints_file);
  g_test_add_data_func ("/mpi/map/rank-other-constraints", &other_inputs[1],
                        test_rank_other_input);
  g_test_add_data_func ("/mpi/map/rank-other-input", &other_inputs[0],
                        test_rank_other_input);
  g_test_add_func ("/mpi/map/rank-bad-argument", test_rank_bad_argument);
  g_test_add_func ("/mpi/sweep/same-as-one-process", test_sweep_same_as_one_process);
  g_test_add_func ("/mpi/sweep/resume", test_sweep_resume);
  g_test_add_func ("/mpi/sweep/failing-points", test_sweep_failing_points);
  g_test_add_func ("/mpi/sweep/rank-killed", test_sweep_rank_killed);
  g_test_add_func ("/mpi/sweep/rank-other-input", test_sweep_rank_other_input);
  g_test_add_func ("/mpi/compare/same-as-one-process", test_compare_same_as_one_process);
  g_test_add_func ("/mpi/refused-without-mpi", test_refused_without_mpi);
  return g_test_run ();
}
