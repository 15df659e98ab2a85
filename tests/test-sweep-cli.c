/* test-sweep-cli.c: `ffm sweep` end to end (the built binary, FFM_EXE):
 * a cartesian grid under two policies, zipped lists, a failing point
 * recorded while the others complete, resuming after the sweep is killed
 * mid-way (the same final CSV as an uninterrupted run, times aside), the
 * plots when built with plotting (the EDP plot and the per-point ones),
 * the breakdown columns (components summing to the total, off-chip
 * classes to the outermost memory, fused Einsum pairs matching the fused
 * tensors), the architecture's area in every row and its Pareto plot
 * against EDP, a global-buffer sweep whose energies and areas follow the
 * size (component estimators), and usage errors. */
#include <ffm/ffm.h>

#include "ffm-run.h"
#include "json-strict.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define CHAIN "--arch", "simple", "--workload", "matmuls"

static void
assert_contains (const char *text, const char *needle)
{
  if (strstr (text, needle) == NULL)
    g_error ("'%s' not found in:\n%s", needle, text);
}

static char *
read_text (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

/* The CSV's lines (no trailing empty one), transfer full. */
static GStrv
csv_lines (const char *path)
{
  g_autofree char *text = read_text (path);
  GStrv lines = g_strsplit (text, "\n", -1);
  guint n = g_strv_length (lines);

  if (n > 0 && lines[n - 1][0] == '\0')
    {
      g_free (lines[n - 1]);
      lines[n - 1] = NULL;
    }
  return lines;
}

/* The CSV without its "seconds" column (wall times differ between runs;
 * no other field holds a quoted comma in these sweeps). */
static char *
csv_without_seconds (const char *path)
{
  g_auto (GStrv) lines = csv_lines (path);
  g_auto (GStrv) header = g_strsplit (lines[0], ",", -1);
  GString *out = g_string_new (NULL);
  int col = -1;

  for (guint i = 0; header[i] != NULL; i++)
    if (strcmp (header[i], "seconds") == 0)
      col = (int) i;
  g_assert_cmpint (col, >=, 0);
  for (guint l = 0; lines[l] != NULL; l++)
    {
      g_auto (GStrv) fields = g_strsplit (lines[l], ",", -1);
      for (guint i = 0; fields[i] != NULL; i++)
        if ((int) i != col)
          g_string_append_printf (out, "%s,", fields[i]);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

static void
test_cartesian (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-sweep");
  g_autofree char *csv = g_build_filename (dir, "s.csv", NULL);
  g_autofree char *json = g_build_filename (dir, "s.json", NULL);
  g_autofree char *json_text = NULL;
  g_auto (FfmTestRun) run = { 0 };
  g_auto (GStrv) lines = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonArray *points;
  static const char *const expect[] = {
    "ffm,16,16,ok,", "unfused,16,16,ok,", "ffm,16,32,ok,", "unfused,16,32,ok,",
    "ffm,32,16,ok,", "unfused,32,16,ok,", "ffm,32,32,ok,", "unfused,32,32,ok,",
  };

  g_test_summary ("A 2x2 grid under ffm and unfused: 8 rows in point order, "
                  "T1 fused or not as the policy says, ffm never worse; the JSON "
                  "holds the same rows and is strict");
  FFM_TEST_RUN (&run, "sweep", CHAIN, "--sweep", "m=16,32", "--sweep", "kn=16,32",
                "--policy", "ffm,unfused", "--threads", "2", "--csv", csv, "--json", json);
  g_assert_cmpint (run.status, ==, 0);
  lines = csv_lines (csv);
  g_assert_cmpstr (lines[0], ==, "policy,m,kn,status,energy_j,latency_s,edp_js,area_m2,"
                   "seconds,"
                   "fused,energy_by_level,energy_by_tensor_class,"
                   "offchip_energy_by_tensor_class,einsums,fused_einsums,error");
  g_assert_cmpuint (g_strv_length (lines), ==, 9);
  for (guint i = 0; i < 8; i++)
    {
      g_assert_true (g_str_has_prefix (lines[1 + i], expect[i]));
      assert_contains (lines[1 + i], i % 2 == 0 ? "T1@GlobalBuffer" : "T1@MainMemory");
      assert_contains (lines[1 + i], "MainMemory=");
      assert_contains (lines[1 + i], ";intermediates_other=");
    }
  json_text = read_text (json);
  json_strict_assert (json_text, "ffm sweep --json");
  json_parser_load_from_data (parser, json_text, -1, &error);
  g_assert_no_error (error);
  points = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                         "points");
  g_assert_cmpuint (json_array_get_length (points), ==, 8);
  for (guint i = 0; i < 8; i += 2)
    {
      JsonObject *f = json_array_get_object_element (points, i);
      JsonObject *u = json_array_get_object_element (points, i + 1);
      g_assert_cmpstr (json_object_get_string_member (f, "policy"), ==, "ffm");
      g_assert_cmpstr (json_object_get_string_member (u, "policy"), ==, "unfused");
      g_assert_cmpfloat (json_object_get_double_member (f, "edp_js"), <=,
                         json_object_get_double_member (u, "edp_js"));
      g_assert_cmpfloat (json_object_get_double_member (f, "edp_js"), >, 0);
    }
  ffm_test_remove_dir (dir);
}

/* The sum of the numbers of member @name of @o. */
static double
member_sum (JsonObject *o, const char *name)
{
  JsonObject *m = json_object_get_object_member (o, name);
  g_autoptr (GList) members = json_object_get_members (m);
  double sum = 0;

  for (GList *l = members; l != NULL; l = l->next)
    sum += json_object_get_double_member (m, l->data);
  return sum;
}

static void
test_breakdowns (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-sweep");
  g_autofree char *json = g_build_filename (dir, "s.json", NULL);
  g_autofree char *json_text = NULL;
  g_auto (FfmTestRun) run = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonArray *points;

  g_test_summary ("The breakdown columns agree: energy per component sums to the "
                  "total, off-chip energy per class to the outermost memory's, every "
                  "class off chip at most its all-memory energy, the Einsums listed in "
                  "order, fused pairs exactly for the tensors kept on chip");
  FFM_TEST_RUN (&run, "sweep", CHAIN, "--param", "n_einsums=3", "--sweep", "m=16,64",
                "--policy", "ffm,unfused", "--json", json);
  g_assert_cmpint (run.status, ==, 0);
  json_text = read_text (json);
  json_strict_assert (json_text, "ffm sweep --json");
  json_parser_load_from_data (parser, json_text, -1, &error);
  g_assert_no_error (error);
  points = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                         "points");
  g_assert_cmpuint (json_array_get_length (points), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      JsonObject *p = json_array_get_object_element (points, i);
      JsonObject *levels = json_object_get_object_member (p, "energy_by_level_j");
      JsonObject *all = json_object_get_object_member (p, "energy_by_tensor_class_j");
      JsonObject *off = json_object_get_object_member (p, "offchip_energy_by_tensor_class_j");
      JsonArray *einsums = json_object_get_array_member (p, "einsums");
      JsonArray *pairs = json_object_get_array_member (p, "fused_einsums");
      JsonArray *fused = json_object_get_array_member (p, "fused_tensors");
      double energy = json_object_get_double_member (p, "energy_j");
      double main_memory = json_object_get_double_member (levels, "MainMemory");
      guint on_chip = 0;
      g_autoptr (GList) classes = json_object_get_members (all);

      g_assert_cmpfloat_with_epsilon (member_sum (p, "energy_by_level_j"), energy,
                                      1e-9 * energy);
      g_assert_cmpfloat (main_memory, >, 0);
      g_assert_cmpfloat_with_epsilon (member_sum (p, "offchip_energy_by_tensor_class_j"),
                                      main_memory, 1e-9 * main_memory);
      g_assert_cmpuint (g_list_length (classes), ==, 4);
      for (GList *l = classes; l != NULL; l = l->next)
        g_assert_cmpfloat (json_object_get_double_member (off, l->data), <=,
                           json_object_get_double_member (all, l->data) * (1 + 1e-12));
      g_assert_cmpuint (json_array_get_length (einsums), ==, 3);
      for (guint e = 0; e < 3; e++)
        {
          g_autofree char *name = g_strdup_printf ("Matmul%u", e);
          g_assert_cmpstr (json_array_get_string_element (einsums, e), ==, name);
        }
      /* In this chain tensor T(k+1) passes from Matmul k to Matmul k+1 only. */
      for (guint k = 0; k < json_array_get_length (fused); k++)
        on_chip += strcmp (json_object_get_string_member (json_array_get_object_element (fused, k),
                                                          "level"), "MainMemory") != 0;
      g_assert_cmpuint (json_array_get_length (pairs), ==, on_chip);
      for (guint k = 0; k < json_array_get_length (pairs); k++)
        {
          JsonObject *f = json_array_get_object_element (pairs, k);
          const char *producer = json_object_get_string_member (f, "producer");
          const char *consumer = json_object_get_string_member (f, "consumer");
          g_assert_true (g_str_has_prefix (producer, "Matmul"));
          g_assert_cmpint (atoi (consumer + 6), ==, atoi (producer + 6) + 1);
          g_assert_cmpstr (json_object_get_string_member (f, "level"), !=, "MainMemory");
        }
      if (i % 2 == 1)           /* unfused */
        g_assert_cmpuint (json_array_get_length (pairs), ==, 0);
      else
        g_assert_cmpuint (json_array_get_length (pairs), >, 0);
    }
  ffm_test_remove_dir (dir);
}

static void
test_zip (void)
{
  g_auto (FfmTestRun) run = { 0 }, bad = { 0 };
  g_auto (GStrv) lines = NULL;

  g_test_summary ("--zip pairs the lists; lists of different lengths are a usage error");
  FFM_TEST_RUN (&run, "sweep", CHAIN, "--sweep", "m=16,32", "--sweep", "kn=32,16", "--zip");
  g_assert_cmpint (run.status, ==, 0);
  lines = g_strsplit (run.out, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[1], "ffm,16,32,ok,"));
  g_assert_true (g_str_has_prefix (lines[2], "ffm,32,16,ok,"));
  g_assert_cmpstr (lines[3], ==, "");
  FFM_TEST_RUN (&bad, "sweep", CHAIN, "--sweep", "m=16,32", "--sweep", "kn=16", "--zip");
  g_assert_cmpint (bad.status, ==, 2);
  assert_contains (bad.err, "--zip pairs lists of one length: m has 2 values, kn 1");
}

static void
test_failing_point (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-sweep");
  g_autofree char *csv = g_build_filename (dir, "f.csv", NULL);
  g_auto (FfmTestRun) run = { 0 };
  g_auto (GStrv) lines = NULL;

  g_test_summary ("A point whose problem does not load is recorded with its error; "
                  "the others complete; exit 1");
  FFM_TEST_RUN (&run, "sweep", CHAIN, "--sweep", "m=16,0,32", "--csv", csv);
  g_assert_cmpint (run.status, ==, 1);
  assert_contains (run.err, "point 2 (policy ffm, m=0) failed");
  assert_contains (run.err, "1 of 3 points failed");
  lines = csv_lines (csv);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  g_assert_true (g_str_has_prefix (lines[1], "ffm,16,ok,"));
  g_assert_true (g_str_has_prefix (lines[2], "ffm,0,failed,,,,"));
  assert_contains (lines[2], "parameter m: 0 is below the minimum 1");
  g_assert_true (g_str_has_prefix (lines[3], "ffm,32,ok,"));
  ffm_test_remove_dir (dir);
}

/* Lines in @path now (0 when it does not exist). */
static guint
count_lines (const char *path)
{
  g_autofree char *text = NULL;
  guint n = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  for (const char *c = text; *c != '\0'; c++)
    n += *c == '\n';
  return n;
}

static void
test_resume_after_kill (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-sweep");
  g_autofree char *whole = g_build_filename (dir, "whole.csv", NULL);
  g_autofree char *cut = g_build_filename (dir, "cut.csv", NULL);
  g_autofree char *a = NULL, *b = NULL;
  const char *exe = g_getenv ("FFM_EXE");
  const char *sweep[] = { "sweep", CHAIN, "--param", "n_einsums=4",
                          "--sweep", "m=8,16,32,64,128,256", "--sweep", "kn=16,32,64,128",
                          "--threads", "1", "--csv", NULL, NULL };
  guint n_args = G_N_ELEMENTS (sweep) - 2, lines_at_kill;
  g_auto (FfmTestRun) first = { 0 }, again = { 0 };
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  GPid pid;
  int wait_status;
  gint64 deadline;

  g_test_summary ("A sweep killed mid-way (SIGKILL, as a crash) and run again "
                  "ends with the same CSV as an uninterrupted run, times aside, "
                  "without redoing the finished points");
  g_assert_nonnull (exe);
  sweep[n_args] = whole;
  ffm_test_run (&first, sweep);
  g_assert_cmpint (first.status, ==, 0);
  g_assert_cmpuint (count_lines (whole), ==, 25);

  g_ptr_array_add (argv, (gpointer) exe);
  for (guint i = 0; i < n_args; i++)
    g_ptr_array_add (argv, (gpointer) sweep[i]);
  g_ptr_array_add (argv, cut);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_async (NULL, (char **) argv->pdata, NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL
                                | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  /* Kill it once it has a few rows (header + 3), well before the end. */
  deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  while (count_lines (cut) < 4 && g_get_monotonic_time () < deadline)
    g_usleep (2000);
  kill (pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  lines_at_kill = count_lines (cut);
  g_test_message ("killed with %u lines", lines_at_kill);
  g_assert_true (WIFSIGNALED (wait_status));
  g_assert_cmpuint (lines_at_kill, >=, 4);
  g_assert_cmpuint (lines_at_kill, <, 25);

  sweep[n_args] = cut;
  ffm_test_run (&again, sweep);
  g_assert_cmpint (again.status, ==, 0);
  assert_contains (again.err, "resuming: ");
  a = csv_without_seconds (whole);
  b = csv_without_seconds (cut);
  g_assert_cmpstr (a, ==, b);
  ffm_test_remove_dir (dir);
}

static void
test_plot (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-sweep");
  g_autofree char *svg = g_build_filename (dir, "edp.svg", NULL);
  g_auto (FfmTestRun) run = { 0 }, failed = { 0 };
  gboolean have_plot = g_strcmp0 (g_getenv ("FFM_HAVE_PLOT"), "1") == 0;
  static const char *const beside[] = {
    "edp-energy-components.svg", "edp-energy-classes.svg", "edp-energy-classes-all.svg",
    "edp-fusion.svg",
  };

  g_test_summary ("--plot writes the EDP plot and the per-point plots beside it "
                  "(energy by component, by tensor class off chip and over every "
                  "memory, fusion) when built with plotting, and says so before any "
                  "work when not");
  FFM_TEST_RUN (&run, "sweep", CHAIN, "--sweep", "m=16,32,64", "--policy", "ffm,unfused",
                "--plot", svg);
  if (have_plot)
    {
      g_autofree char *text = NULL;
      g_assert_cmpint (run.status, ==, 0);
      text = read_text (svg);
      assert_contains (text, "</svg>");
      for (guint i = 0; i < G_N_ELEMENTS (beside); i++)
        {
          g_autofree char *path = g_build_filename (dir, beside[i], NULL);
          g_autofree char *plot = read_text (path);
          g_assert_cmpuint (strlen (plot), >, 1000);
          assert_contains (plot, "</svg>");
          g_unlink (path);
        }
      /* A failed point (m=0) and two swept parameters: still drawn, the
       * failed bars and fusion row marked, the failure reported. */
      FFM_TEST_RUN (&failed, "sweep", CHAIN, "--sweep", "m=16,0", "--sweep", "kn=16,32",
                    "--policy", "ffm,unfused", "--plot", svg);
      g_assert_cmpint (failed.status, ==, 1);
      assert_contains (failed.err, "failed");
      for (guint i = 0; i < G_N_ELEMENTS (beside); i++)
        {
          g_autofree char *path = g_build_filename (dir, beside[i], NULL);
          g_autofree char *plot = read_text (path);
          assert_contains (plot, "</svg>");
        }
    }
  else
    {
      g_assert_cmpint (run.status, ==, 1);
      assert_contains (run.err, "this build of ffm has no plotting");
      g_assert_false (g_file_test (svg, G_FILE_TEST_EXISTS));
      for (guint i = 0; i < G_N_ELEMENTS (beside); i++)
        {
          g_autofree char *path = g_build_filename (dir, beside[i], NULL);
          g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
        }
    }
  ffm_test_remove_dir (dir);
}

/* Column @name of CSV line @line under @header, as a number. */
static double
csv_number (const char *header, const char *line, const char *name)
{
  g_auto (GStrv) names = g_strsplit (header, ",", -1);
  g_auto (GStrv) fields = g_strsplit (line, ",", -1);

  for (guint i = 0; names[i] != NULL; i++)
    if (strcmp (names[i], name) == 0)
      return g_ascii_strtod (fields[i], NULL);
  g_error ("no column %s in %s", name, header);
  return 0;
}

static void
test_glb_sweep (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-sweep");
  g_autofree char *csv = g_build_filename (dir, "glb.csv", NULL);
  g_autofree char *png = g_build_filename (dir, "glb.png", NULL);
  g_autofree char *pareto = g_build_filename (dir, "glb-pareto-area-edp.png", NULL);
  g_auto (FfmTestRun) run = { 0 }, no_plot = { 0 }, bad = { 0 };
  g_auto (GStrv) lines = NULL;
  gboolean have_plot = g_strcmp0 (g_getenv ("FFM_HAVE_PLOT"), "1") == 0;
  double last_area = 0, last_glb = 0;

  g_test_summary ("--sweep-arch glb_mib=1,5,40 on edge: the global buffer's energy "
                  "and the architecture's area (area_m2) grow with its size, the "
                  "published 5 MiB keeps 1.61 mm^2; --plot-pareto area,edp draws the "
                  "trade-off beside --plot, and needs it");
  if (have_plot)
    FFM_TEST_RUN (&run, "sweep", "--arch", "edge", "--workload", "matmuls",
                  "--param", "n_einsums=2", "--param", "m=64", "--param", "kn=64",
                  "--sweep-arch", "glb_mib=1,5,40", "--csv", csv, "--plot", png,
                  "--plot-pareto", "area,edp");
  else
    FFM_TEST_RUN (&run, "sweep", "--arch", "edge", "--workload", "matmuls",
                  "--param", "n_einsums=2", "--param", "m=64", "--param", "kn=64",
                  "--sweep-arch", "glb_mib=1,5,40", "--csv", csv);
  g_assert_cmpint (run.status, ==, 0);
  lines = csv_lines (csv);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  for (guint i = 1; i <= 3; i++)
    {
      double area = csv_number (lines[0], lines[i], "area_m2");
      const char *glb = strstr (lines[i], "GlobalBuffer=");
      double glb_energy;
      g_assert_nonnull (glb);
      glb_energy = g_ascii_strtod (glb + strlen ("GlobalBuffer="), NULL);
      g_assert_cmpfloat (area, >, last_area);
      g_assert_cmpfloat (glb_energy, >, last_glb);
      last_area = area;
      last_glb = glb_energy;
    }
  if (have_plot)
    {
      g_assert_true (g_file_test (pareto, G_FILE_TEST_EXISTS));
      FFM_TEST_RUN (&no_plot, "sweep", CHAIN, "--sweep", "m=16", "--plot-pareto",
                    "area,edp");
      g_assert_cmpint (no_plot.status, ==, 2);
      assert_contains (no_plot.err, "--plot-pareto draws beside --plot OUT.svg");
    }
  FFM_TEST_RUN (&bad, "sweep", CHAIN, "--sweep", "m=16", "--plot", png,
                "--plot-pareto", "area,cost");
  g_assert_cmpint (bad.status, ==, 2);
  assert_contains (bad.err, "--plot-pareto takes two different quantities of area, "
                   "edp, energy and latency, as X,Y (e.g. area,edp); got 'area,cost'");
  ffm_test_remove_dir (dir);
}

static void
test_bad_input (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-sweep");
  g_autofree char *csv = g_build_filename (dir, "other.csv", NULL);
  g_auto (FfmTestRun) no_sweep = { 0 }, bad_spec = { 0 }, other = { 0 }, policy = { 0 };
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (csv, "a,b\n1,2\n", -1, &error));
  FFM_TEST_RUN (&no_sweep, "sweep", CHAIN);
  g_assert_cmpint (no_sweep.status, ==, 2);
  assert_contains (no_sweep.err, "give at least one --sweep or --sweep-arch");
  FFM_TEST_RUN (&bad_spec, "sweep", CHAIN, "--sweep", "m");
  g_assert_cmpint (bad_spec.status, ==, 2);
  assert_contains (bad_spec.err, "--sweep must be NAME=V1,V2,...; got 'm'");
  FFM_TEST_RUN (&other, "sweep", CHAIN, "--sweep", "m=16", "--csv", csv);
  g_assert_cmpint (other.status, ==, 1);
  assert_contains (other.err, "other.csv.sweep, which records the sweep that wrote it, "
                   "does not");
  {
    /* Refused and left as it was. */
    g_autofree char *kept = NULL;
    g_assert_true (g_file_get_contents (csv, &kept, NULL, NULL));
    g_assert_cmpstr (kept, ==, "a,b\n1,2\n");
  }
  FFM_TEST_RUN (&policy, "sweep", CHAIN, "--sweep", "m=16", "--policy", "ffm,nope");
  g_assert_cmpint (policy.status, ==, 1);
  assert_contains (policy.err, "no policy named 'nope'");
  ffm_test_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sweep-cli/cartesian", test_cartesian);
  g_test_add_func ("/sweep-cli/zip", test_zip);
  g_test_add_func ("/sweep-cli/breakdowns", test_breakdowns);
  g_test_add_func ("/sweep-cli/failing-point", test_failing_point);
  g_test_add_func ("/sweep-cli/resume-after-kill", test_resume_after_kill);
  g_test_add_func ("/sweep-cli/plot", test_plot);
  g_test_add_func ("/sweep-cli/glb-sweep", test_glb_sweep);
  g_test_add_func ("/sweep-cli/bad-input", test_bad_input);
  return g_test_run ();
}
