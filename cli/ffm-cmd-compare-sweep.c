/* ffm-cmd-compare-sweep.c: `ffm compare --sweep-einsums N,...`, the FFM
 * paper's Fig. 9 (ffm-cmd-compare-private.h): one comparison per number of
 * Einsums of a chain, each run stopping once within --within percent of
 * ffm's optimum; the table, JSON, CSV and plot of the time to get there. */
#include "ffm-cmd-compare-private.h"

#include "ffm-cli-output.h"
#include "ffm-plot.h"

#include <math.h>
#include <string.h>

/* One number of Einsums. */
typedef struct {
  guint n_einsums;
  double ffm_seconds;           /* T (--budget-reference): ffm's wall time,
                                   or its CPU time over its threads */
  double ffm_wall_seconds;
  double ffm_cpu_seconds;
  double optimum;
  double offset;
  double budget_seconds;        /* modelled: the time-out */
  double log10_states;
  double state_charge;          /* pmapping evaluations per state */
  double seconds_per_pmapping;
  guint n_entries;
  guint *n_runs;                /* [entries] runs done */
  double *times;                /* [entries x runs]: modelled s to within, INFINITY */
  guint64 *seeds;               /* [entries x runs] */
} SweepPoint;

static void
sweep_point_clear (gpointer data)
{
  SweepPoint *p = data;

  g_free (p->n_runs);
  g_free (p->times);
  g_free (p->seeds);
}

/* The paper's average (§7.5): the mean over the runs, those that timed out
 * counted as finishing in ffm's time, unless more than half timed out
 * (then INFINITY: the strategy timed out). *@timed_out gets how many did. */
static double
sweep_mean (const SweepPoint *p, guint e, guint runs, guint *timed_out)
{
  double sum = 0;
  guint n = p->n_runs[e], out = 0;

  for (guint r = 0; r < n; r++)
    {
      double t = p->times[(gsize) e * runs + r];
      if (isfinite (t))
        sum += t;
      else
        {
          out++;
          sum += p->ffm_seconds;
        }
    }
  *timed_out = out;
  if (n == 0 || 2 * out > n)
    return INFINITY;
  return sum / n;
}

static void
sweep_point_from (const CompareOptions *o, const Comparison *c, guint n_einsums,
                  SweepPoint *p)
{
  guint runs = (guint) o->runs;

  memset (p, 0, sizeof *p);
  p->n_einsums = n_einsums;
  p->ffm_seconds = c->unit_seconds;
  p->ffm_wall_seconds = c->ffm.seconds;
  p->ffm_cpu_seconds = c->ffm_cpu_seconds;
  p->optimum = c->optimum;
  p->offset = c->offset;
  p->budget_seconds = ffm_compare_budget_reference (c)->context.max_modelled_seconds;
  if (c->ms != NULL)
    {
      p->log10_states = ffm_mapspace_get_log10_n_states (c->ms);
      p->state_charge = ffm_mapspace_get_state_query_weight (c->ms);
      p->seconds_per_pmapping = ffm_mapspace_get_seconds_per_pmapping (c->ms);
    }
  p->n_entries = c->entries->len;
  p->n_runs = g_new0 (guint, MAX (p->n_entries, 1));
  p->times = g_new (double, MAX ((gsize) p->n_entries * runs, 1));
  p->seeds = g_new0 (guint64, MAX ((gsize) p->n_entries * runs, 1));
  for (guint e = 0; e < p->n_entries; e++)
    {
      const Entry *en = g_ptr_array_index (c->entries, e);
      guint n = 0;
      for (guint r = 0; r < en->runs->len && n < runs; r++)
        {
          const Run *run = &g_array_index (en->runs, Run, r);
          double t = run->result != NULL
            ? ffm_compare_time_to (run->result, c->optimum * (1 + o->within / 100)) : INFINITY;
          /* A run stopped by Ctrl-C, SIGTERM or --timeout before it got
           * there neither got there nor timed out: it is left out. */
          if (run->interrupted && !isfinite (t))
            continue;
          p->times[(gsize) e * runs + n] = t;
          p->seeds[(gsize) e * runs + n] = run->seed;
          n++;
        }
      p->n_runs[e] = n;
    }
}

static void
print_sweep (const CompareOptions *o, const GArray *points, char **names)
{
  guint runs = (guint) o->runs;

  g_print ("\nTime to come within %g %% of ffm's optimum against the number of Einsums "
           "(modelled s, as in the paper: the mean of the runs, a run that timed out "
           "counted as taking ffm's time, \"timed out\" when more than half did; "
           "(k/n): runs timed out; [x]: the mean over ffm's time; ffm's time is its "
           "%s):\n", o->within, o->unit == FFM_CLI_TIME_UNIT_CPU
           ? "CPU time over its threads (--budget-reference cpu)" : "wall time");
  g_print ("  %-8s %10s %12s %12s", "Einsums", "ffm (s)", "ffm/Einsum", "timeout (s)");
  for (guint i = 0; names[i] != NULL; i++)
    if (!g_str_equal (names[i], "ffm"))
      g_print (" %-28s", names[i]);
  g_print ("\n");
  for (guint k = 0; k < points->len; k++)
    {
      const SweepPoint *p = &g_array_index (points, SweepPoint, k);
      g_print ("  %-8u %10.4g %12.4g %12.4g", p->n_einsums, p->ffm_seconds,
               p->ffm_seconds / p->n_einsums, p->budget_seconds);
      for (guint e = 0; e < p->n_entries; e++)
        {
          guint out;
          double mean = sweep_mean (p, e, runs, &out);
          char cell[64];
          if (p->n_runs[e] == 0)
            g_snprintf (cell, sizeof cell, "not run");
          else if (!isfinite (mean))
            g_snprintf (cell, sizeof cell, "timed out (%u/%u)", out, p->n_runs[e]);
          else
            g_snprintf (cell, sizeof cell, "%.4g [%.3gx] (%u/%u)", mean,
                        mean / p->ffm_seconds, out, p->n_runs[e]);
          g_print (" %-28s", cell);
        }
      g_print ("\n");
    }
}

static char *
sweep_json (const CompareOptions *o, FfmProblem *first, const FfmCliSearch *search,
            const FfmCliSearch *budget, const GArray *points, char **names, const char *stopped)
{
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
  guint runs = (guint) o->runs;

  ffm_json_writer_begin_object (b);
  ffm_compare_write_header_json (b, o, first, search, budget, stopped);
  ffm_json_writer_member_double (b, "within_percent", o->within);
  ffm_json_writer_member_string (b, "averaging", "mean of the runs, a timed-out run "
                                 "counted as ffm's time; timed out when more than half "
                                 "time out (the FFM paper, section 7.5)");
  ffm_json_writer_key (b, "sweep");
  ffm_json_writer_begin_array (b);
  for (guint k = 0; k < points->len; k++)
    {
      const SweepPoint *p = &g_array_index (points, SweepPoint, k);
      guint e = 0;
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_uint (b, "n_einsums", p->n_einsums);
      ffm_json_writer_member_double (b, "ffm_seconds", p->ffm_seconds);
      ffm_json_writer_member_double (b, "ffm_wall_seconds", p->ffm_wall_seconds);
      ffm_json_writer_member_double (b, "ffm_cpu_seconds", p->ffm_cpu_seconds);
      ffm_json_writer_member_double (b, "optimum", p->optimum);
      ffm_json_writer_member_double (b, "shared_pmappings_seconds", p->offset);
      ffm_json_writer_member_double (b, "timeout_modelled_seconds", p->budget_seconds);
      ffm_json_writer_member_double (b, "log10_compatible_states", p->log10_states);
      ffm_json_writer_member_double (b, "state_charge", p->state_charge);
      ffm_json_writer_member_double (b, "seconds_per_pmapping_evaluation",
                                     p->seconds_per_pmapping);
      ffm_json_writer_key (b, "strategies");
      ffm_json_writer_begin_array (b);
      for (guint i = 0; names[i] != NULL; i++)
        {
          guint out;
          double mean;
          if (g_str_equal (names[i], "ffm"))
            continue;
          mean = sweep_mean (p, e, runs, &out);
          ffm_json_writer_begin_object (b);
          ffm_json_writer_member_string (b, "name", names[i]);
          ffm_json_writer_member_double (b, "mean_seconds", mean);
          ffm_json_writer_member_boolean (b, "timed_out", !isfinite (mean));
          ffm_json_writer_member_uint (b, "runs_timed_out", out);
          ffm_json_writer_key (b, "runs");
          ffm_json_writer_begin_array (b);
          for (guint r = 0; r < p->n_runs[e]; r++)
            {
              ffm_json_writer_begin_object_inline (b);
              ffm_json_writer_member_uint (b, "seed", p->seeds[(gsize) e * runs + r]);
              ffm_json_writer_member_double (b, "seconds_to_within",
                                             p->times[(gsize) e * runs + r]);
              ffm_json_writer_end_object (b);
            }
          ffm_json_writer_end_array (b);
          ffm_json_writer_end_object (b);
          e++;
        }
      ffm_json_writer_end_array (b);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
  return ffm_json_writer_finish (b);
}

static char *
sweep_csv (const CompareOptions *o, const GArray *points, char **names)
{
  GString *s = g_string_new ("n_einsums,strategy,run,seed,seconds_to_within,timed_out,"
                             "ffm_seconds,timeout_seconds,baseline_space,charge\n");
  char buf[3][G_ASCII_DTOSTR_BUF_SIZE];
  guint runs = (guint) o->runs;

  for (guint k = 0; k < points->len; k++)
    {
      const SweepPoint *p = &g_array_index (points, SweepPoint, k);
      guint e = 0;
      for (guint i = 0; names[i] != NULL; i++)
        {
          if (g_str_equal (names[i], "ffm"))
            continue;
          for (guint r = 0; r < p->n_runs[e]; r++)
            {
              double t = p->times[(gsize) e * runs + r];
              g_string_append_printf (s, "%u,%s,%u,%" G_GUINT64_FORMAT ",%s,%d,%s,%s,%s,%s\n",
                                      p->n_einsums, names[i], r, p->seeds[(gsize) e * runs + r],
                                      isfinite (t) ? ffm_format_double (t, buf[0]) : "",
                                      !isfinite (t), ffm_format_double (p->ffm_seconds, buf[1]),
                                      ffm_format_double (p->budget_seconds, buf[2]),
                                      ffm_mapspace_space_to_string (o->space),
                                      ffm_mapspace_charge_to_string (o->charge_model));
            }
          e++;
        }
    }
  return g_string_free (s, FALSE);
}

/* Fig. 9: time to within X % (log) against the number of Einsums (log),
 * ffm's time to the optimum, and the time-out. */
static gboolean
sweep_plot (const CompareOptions *o, const char *workload, const char *arch,
            const GArray *points, char **names, GError **error)
{
  g_autoptr (GArray) series = g_array_new (FALSE, TRUE, sizeof (FfmPlotSeries));
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *title = g_strdup_printf ("%s on %s: time to the optimum (ffm) and to "
                                            "within %g %% of it (others)", workload, arch,
                                            o->within);
  guint n = points->len, runs = (guint) o->runs, e = 0;
  double *x = g_new (double, MAX (n, 1)), *ffm = g_new (double, MAX (n, 1));
  double *timeout = g_new (double, MAX (n, 1));
  FfmPlotAxes axes = { title, "Einsums", "seconds (baselines: modelled)", TRUE, TRUE, 0,
                       0, 0, 0 };

  g_ptr_array_add (owned, x);
  g_ptr_array_add (owned, ffm);
  g_ptr_array_add (owned, timeout);
  for (guint k = 0; k < n; k++)
    {
      const SweepPoint *p = &g_array_index (points, SweepPoint, k);
      x[k] = p->n_einsums;
      ffm[k] = p->ffm_seconds;
      timeout[k] = p->budget_seconds > 0 ? p->budget_seconds : NAN;
    }
  g_array_append_val (series, ((FfmPlotSeries) { "ffm (optimal)", n, x, ffm, NULL, NULL, TRUE }));
  for (guint i = 0; names[i] != NULL; i++)
    {
      double *y;
      if (g_str_equal (names[i], "ffm"))
        continue;
      y = g_new (double, MAX (n, 1));
      g_ptr_array_add (owned, y);
      for (guint k = 0; k < n; k++)
        {
          guint out;
          double mean = sweep_mean (&g_array_index (points, SweepPoint, k), e, runs, &out);
          y[k] = isfinite (mean) && mean > 0 ? mean : NAN;
        }
      g_array_append_val (series, ((FfmPlotSeries) { names[i], n, x, y, NULL, NULL, TRUE }));
      e++;
    }
  {
    g_autofree char *label = NULL;
    const SweepPoint *p0 = n > 0 ? &g_array_index (points, SweepPoint, 0) : NULL;
    if (p0 != NULL && p0->ffm_seconds > 0 && p0->budget_seconds > 0)
      label = g_strdup_printf ("time-out (%gx ffm)", p0->budget_seconds / p0->ffm_seconds);
    else
      label = g_strdup ("time-out");
    g_ptr_array_add (owned, g_steal_pointer (&label));
    g_array_append_val (series, ((FfmPlotSeries) { g_ptr_array_index (owned, owned->len - 1),
                                                   n, x, timeout, NULL, NULL, FALSE }));
  }
  return ffm_plot_lines (o->plot, &axes, (const FfmPlotSeries *) series->data, series->len,
                         error);
}

/* Runs the comparison for each number of Einsums of --sweep-einsums. */
int
ffm_compare_run_sweep (GOptionContext *context, CompareOptions *o, FfmPluginRegistry *registry,
           char **names, const GArray *sizes)
{
  g_autoptr (GArray) points = g_array_new (FALSE, TRUE, sizeof (SweepPoint));
  g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->search.timeout);
  g_autoptr (FfmCliProgress) progress = ffm_cli_progress_start (COMMAND, TRUE);
  g_autoptr (FfmProblem) first = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *stopped = NULL, *budget = NULL;
  g_auto (FfmCliSearch) ref = { 0 };
  gboolean beaten = FALSE, have_ref = FALSE;
  Phase phase = { progress, "" };
  int status = FFM_EXIT_OK;

  g_array_set_clear_func (points, sweep_point_clear);
  for (guint k = 0; k < sizes->len && stopped == NULL; k++)
    {
      guint n_einsums = (guint) g_array_index (sizes, double, k);
      FfmCliProblemOptions po = o->problem;
      g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
      g_auto (GStrv) params = NULL;
      g_autofree char *assignment = g_strdup_printf ("n_einsums=%u", n_einsums);
      g_autofree char *what = g_strdup_printf ("%u Einsums (%u of %u): ", n_einsums, k + 1,
                                               sizes->len);
      g_autoptr (FfmProblem) problem = NULL;
      Comparison c;
      SweepPoint p;

      for (guint i = 0; o->problem.params != NULL && o->problem.params[i] != NULL; i++)
        if (!g_str_has_prefix (o->problem.params[i], "n_einsums="))
          g_strv_builder_add (b, o->problem.params[i]);
      g_strv_builder_add (b, assignment);
      params = g_strv_builder_end (b);
      po.params = params;
      status = ffm_cli_load_problem (context, COMMAND, registry, &po, &problem);
      if (status != FFM_EXIT_OK)
        {
          g_printerr ("ffm compare: --sweep-einsums sets the workload's parameter "
                      "n_einsums (a chain of matmuls: --workload matmul-chain)\n");
          return status;
        }
      status = ffm_compare_prepare (context, o, registry, problem, names, TRUE, &c);
      if (status == FFM_EXIT_OK)
        status = ffm_compare_run (o, &c, cancel, &phase, what, o->within);
      if (status != FFM_EXIT_OK)
        {
          if (!c.ffm_done || points->len == 0)
            {
              ffm_compare_clear (&c);
              return status;
            }
          /* A failure past the first size: report the sizes done. */
          ffm_compare_clear (&c);
          break;
        }
      sweep_point_from (o, &c, n_einsums, &p);
      g_array_append_val (points, p);
      g_printerr ("ffm compare: %u Einsums done: ffm %.3g s (optimum %.6g); shared "
                  "pmappings %.3g s\n", n_einsums, c.ffm.seconds, c.optimum, c.offset);
      beaten |= c.beaten;
      if (c.stopped != NULL)
        stopped = g_strdup (c.stopped);
      if (!have_ref)
        {
          /* The first size's options stand for the sweep's in the JSON. */
          first = ffm_problem_ref (problem);
          budget = ffm_compare_budget_text (ffm_compare_budget_reference (&c));
          ref = c.ffm_search;
          memset (&c.ffm_search, 0, sizeof c.ffm_search);
          if (c.entries->len > 0)
            {
              const FfmCliSearch *br = ffm_compare_budget_reference (&c);
              ref.budget_multiple = br->budget_multiple;
              ref.context.max_modelled_seconds = br->context.max_modelled_seconds;
              ref.context.max_evaluations = br->context.max_evaluations;
              ref.context.max_seconds = br->context.max_seconds;
            }
          have_ref = TRUE;
        }
      ffm_compare_clear (&c);
      ffm_compare_give_back_memory ();
    }
  ffm_cli_progress_stop (g_steal_pointer (&progress));
  if (o->data_to_stdout && stopped != NULL)
    ffm_cli_warn (COMMAND, "%s; the data hold the sizes and runs done so far", stopped);
  if (!o->data_to_stdout)
    {
      g_print ("Comparison on %s / %s with --sweep-einsums, objective %s, %d run%s per "
               "strategy, budget %s per size, baselines' space %s, charge %s\n",
               ffm_workload_get_name (ffm_problem_get_workload (first)),
               ffm_arch_get_name (ffm_problem_get_arch (first)),
               ffm_objective_to_string (ref.objective), o->runs, o->runs > 1 ? "s" : "", budget,
               ffm_mapspace_space_to_string (o->space),
               ffm_mapspace_charge_to_string (o->charge_model));
      if (stopped != NULL)
        g_print ("INTERRUPTED: %s; the table holds the sizes and runs done so far.\n", stopped);
      print_sweep (o, points, names);
    }
  if (o->json != NULL)
    {
      g_autofree char *text = sweep_json (o, first, &ref, &ref, points, names, stopped);
      if (!ffm_cli_output_write (o->json, text, &error))
        return ffm_cli_fail (COMMAND, error);
    }
  if (o->csv != NULL)
    {
      g_autofree char *text = sweep_csv (o, points, names);
      if (!ffm_cli_output_write (o->csv, text, &error))
        return ffm_cli_fail (COMMAND, error);
    }
  if (o->plot != NULL
      && !sweep_plot (o, ffm_workload_get_name (ffm_problem_get_workload (first)),
                      ffm_arch_get_name (ffm_problem_get_arch (first)), points, names, &error))
    return ffm_cli_fail (COMMAND, error);
  if (status != FFM_EXIT_OK)
    return status;
  /* A stopped sweep wrote what it has, but is not complete. */
  return beaten ? FFM_EXIT_FAILURE
    : ffm_cli_stop_exit_code (stopped != NULL ? ffm_cli_cancel_get_reason (cancel)
                              : FFM_CLI_STOP_NONE);
}
