/* test-sweep-csv.c: the rows of `ffm sweep` as CSV (cli/ffm-sweep-csv.h):
 * written rows read back the same, and rows a sweep never writes refused
 * with the row named. The rows the libFuzzer target found are here. */
#include "ffm-sweep-csv.h"

#include <string.h>

#define HEADER \
  "policy,m,status,energy_j,latency_s,edp_js,area_m2,seconds,fused,energy_by_level," \
  "energy_by_tensor_class,offchip_energy_by_tensor_class,einsums,fused_einsums,error\n"

typedef struct {
  GArray *axes;
  GPtrArray *points;
} Sweep;

/* A sweep of m = 4, 8 under the policies ffm and unfused. */
static void
sweep_init (Sweep *s)
{
  static const char *const policies[] = { "ffm", "unfused" };
  Axis m = { g_strdup ("m"), FALSE, g_strsplit ("4,8", ",", -1) };

  s->axes = g_array_new (FALSE, TRUE, sizeof (Axis));
  g_array_set_clear_func (s->axes, (GDestroyNotify) ffm_sweep_axis_clear);
  g_array_append_val (s->axes, m);
  s->points = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_sweep_point_free);
  for (guint v = 0; v < 2; v++)
    for (guint k = 0; k < G_N_ELEMENTS (policies); k++)
      {
        Point *p = g_new0 (Point, 1);
        p->index = s->points->len;
        p->policy = policies[k];
        p->values = g_new0 (char *, 2);
        p->values[0] = g_strdup (v == 0 ? "4" : "8");
        p->key = ffm_sweep_point_key (p->policy, p->values);
        g_ptr_array_add (s->points, p);
      }
}

static void
sweep_clear (Sweep *s)
{
  g_array_unref (s->axes);
  g_ptr_array_unref (s->points);
}

/* Reads @text into a fresh sweep: the number of rows resumed, or -1 with
 * *@message set (transfer full). */
static int
read_rows (const char *text, Sweep *s, char **message)
{
  g_autoptr (GError) error = NULL;
  guint n = 0;

  *message = NULL;
  if (!ffm_sweep_rows_from_text ("t.csv", text, strlen (text), s->axes, s->points, &n, &error))
    {
      g_assert_nonnull (error);
      *message = g_strdup (error->message);
      return -1;
    }
  g_assert_no_error (error);
  return (int) n;
}

static void
test_header (void)
{
  Sweep s;
  g_autofree char *header = NULL;

  sweep_init (&s);
  header = ffm_sweep_csv_header (s.axes);
  g_assert_cmpstr (header, ==, "policy,m,status,energy_j,latency_s,edp_js,area_m2,seconds,"
                   "fused,energy_by_level,energy_by_tensor_class,"
                   "offchip_energy_by_tensor_class,einsums,fused_einsums,error");
  sweep_clear (&s);
}

/* A row written, read back and written again is the same line; quotes and
 * a cut last line (a killed run) included. */
static void
test_round_trip (void)
{
  const char *text = HEADER
    "ffm,4,ok,1.5,2e-06,3.0000000000000001e-06,0.001,0.120,T1@GlobalBuffer,"
    "MainMemory=1;GlobalBuffer=0.5,weights=1,weights=1,Matmul0;Matmul1,"
    "Matmul0>Matmul1@GlobalBuffer,\n"
    "unfused,4,failed,,,,,0.010,,,,,,,\"does not fit, \"\"quoted\"\"\"\n"
    "ffm,8,ok,1,1";
  Sweep s;
  g_autofree char *message = NULL;
  const Point *ffm4, *unfused4;

  sweep_init (&s);
  g_assert_cmpint (read_rows (text, &s, &message), ==, 2);
  ffm4 = s.points->pdata[0];
  unfused4 = s.points->pdata[1];
  g_assert_true (ffm4->done && ffm4->ok);
  g_assert_cmpfloat (ffm4->edp, ==, 3.0000000000000001e-06);
  g_assert_cmpstr (ffm4->line, ==, "ffm,4,ok,1.5,1.9999999999999999e-06,"
                   "3.0000000000000001e-06,0.001,0.120,T1@GlobalBuffer,"
                   "MainMemory=1;GlobalBuffer=0.5,weights=1,weights=1,Matmul0;Matmul1,"
                   "Matmul0>Matmul1@GlobalBuffer,");
  g_assert_true (unfused4->done && !unfused4->ok);
  g_assert_cmpstr (unfused4->error, ==, "does not fit, \"quoted\"");
  g_assert_false (((Point *) s.points->pdata[2])->done);
  {
    g_autofree char *again = g_strdup_printf (HEADER "%s\n%s\n", ffm4->line, unfused4->line);
    Sweep t;
    sweep_init (&t);
    g_assert_cmpint (read_rows (again, &t, &message), ==, 2);
    g_assert_cmpstr (((Point *) t.points->pdata[0])->line, ==, ffm4->line);
    g_assert_cmpstr (((Point *) t.points->pdata[1])->line, ==, unfused4->line);
    sweep_clear (&t);
  }
  sweep_clear (&s);
}

/* Numbers no sweep writes: each refused, the row named, nothing resumed.
 * The first was libFuzzer's: seconds 1e308 read, then written "%.3f" into
 * a 39-byte buffer, made a row that did not read back the same. */
static void
test_malformed_numbers (void)
{
  static const char *const rows[] = {
    "ffm,4,ok,1.5,2e-06,3e-06,0.001,1e308,,,,,,,",
    "ffm,4,ok,1.5,2e-06,3e-06,0.001,1000000001,,,,,,,",
    "ffm,4,ok,1.5,2e-06,3e-06,0.001,-1,,,,,,,",
    "ffm,4,ok,nan,2e-06,3e-06,0.001,0.1,,,,,,,",
    "ffm,4,ok,1.5,inf,3e-06,0.001,0.1,,,,,,,",
    "ffm,4,ok,1.5,2e-06,-3e-06,0.001,0.1,,,,,,,",
    "ffm,4,ok,1.5,2e-06,3e-06,1e400,0.1,,,,,,,",
    "ffm,4,ok,1.5,2e-06,3e-06,,0.1,,,,,,,",
    "ffm,4,ok,1.5x,2e-06,3e-06,0.001,0.1,,,,,,,",
    "ffm,4,done,1.5,2e-06,3e-06,0.001,0.1,,,,,,,",
    "unfused,4,failed,,,,,nan,,,,,,,no",
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (HEADER "%s\n", rows[i]);
      g_autofree char *message = NULL;
      Sweep s;
      sweep_init (&s);
      g_test_message ("row: %s", rows[i]);
      g_assert_cmpint (read_rows (text, &s, &message), ==, -1);
      g_assert_nonnull (strstr (message, "t.csv: row 2: malformed status or numbers"));
      sweep_clear (&s);
    }
  {
    g_autofree char *text = g_strdup_printf (HEADER "%s\n",
                                             "ffm,4,ok,1.5,2e-06,3e-06,0.001,1000000000,,,,,,,");
    g_autofree char *message = NULL;
    Sweep s;
    sweep_init (&s);
    g_assert_cmpint (read_rows (text, &s, &message), ==, 1);
    g_assert_cmpstr (((Point *) s.points->pdata[0])->line, ==,
                     "ffm,4,ok,1.5,1.9999999999999999e-06,3.0000000000000001e-06,0.001,"
                     "1000000000.000,,,,,,,");
    sweep_clear (&s);
  }
}

/* Text that is not this sweep's rows: refused with the cause. */
static void
test_not_this_sweep (void)
{
  static const struct { const char *text, *message; } cases[] = {
    { "policy,n,status\n", "written by another sweep" },
    { HEADER "ffm,16,ok,1,1,1,1,1,,,,,,,\n", "row 2 (policy ffm) is not a point of this sweep" },
    { HEADER "ffm,4,ok\nffm,8,ok,1,1,1,1,1,,,,,,,\n", "row 2 has 3 fields, expected 15" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *message = NULL;
      Sweep s;
      sweep_init (&s);
      g_assert_cmpint (read_rows (cases[i].text, &s, &message), ==, -1);
      g_assert_nonnull (strstr (message, cases[i].message));
      sweep_clear (&s);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sweep-csv/header", test_header);
  g_test_add_func ("/sweep-csv/round-trip", test_round_trip);
  g_test_add_func ("/sweep-csv/malformed-numbers", test_malformed_numbers);
  g_test_add_func ("/sweep-csv/not-this-sweep", test_not_this_sweep);
  return g_test_run ();
}
