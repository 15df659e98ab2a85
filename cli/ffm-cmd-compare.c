/* ffm-cmd-compare.c: `ffm compare`, mappers head to head (the FFM paper's
 * Fig. 8).
 *
 *   ffm compare --arch A --workload W [--param K=V]... [--arch-param K=V]...
 *               [--strategies ffm,set,tileflow,random] [--runs 10]
 *               [--budget 1000x | --max-evaluations N | --max-seconds S]
 *               [--checkpoints 1,10,100,1000] [--strategy-param NAME.K=V]...
 *               [--objective edp|energy|latency] [--max-fused-loops N]
 *               [--unfused] [--seed S] [--threads N] [--timeout S]
 *               [--json OUT] [--csv OUT] [--trace-csv OUT] [--plot OUT.svg]
 *               [--html OUT.html]
 *
 * Same problem, same cost model, same mapspace and same budget for every
 * strategy: ffm runs once (it is deterministic), giving the optimum and
 * the time T the budget and the checkpoints are multiples of; then every
 * other strategy runs --runs times with seeds S, S + 1000, ..., all on one
 * mapspace built once (the pmappings are generated once and shared: each
 * strategy would compute the same cache). For each strategy and each
 * checkpoint k the table gives the objective's distance above ffm's
 * optimum (median [min, max] over runs) reached by k x T of the paper's
 * modelled time (pmapping evaluations queried x the measured time of one,
 * §7.3), then by k x T of wall time (the shared generation included: what
 * a user waits for one run). --plot draws percent above optimal against
 * modelled time over T, one line per strategy with its spread (Fig. 8);
 * --json, --csv and --trace-csv hold every number, --html shows them as
 * one page (ffm-html-report.h). Ctrl-C and --timeout
 * end the comparison cleanly: the runs done so far are reported, marked
 * as interrupted. A strategy that beats ffm's optimum is reported as the
 * bug it is (exit code 1).
 * Exit codes: 0 ok, 1 when the problem does not load, ffm or a strategy
 * fails, or nothing fits, 2 for usage errors. */
#include "ffm-cli-cancel.h"
#include "ffm-cli-mpi.h"
#include "ffm-cli-mpi-points.h"
#include "ffm-cli-output.h"
#include "ffm-cli-progress.h"
#include "ffm-cli-search.h"
#include "ffm-cli-visual.h"
#include "ffm-plot.h"

#include <math.h>
#include <string.h>

#define COMMAND "compare"
#define DEFAULT_STRATEGIES "ffm,set,tileflow,random"
#define DEFAULT_CHECKPOINTS "1,10,100,1000"
#define DEFAULT_BUDGET "1000x"
#define MAX_RUNS 10000
/* Seeds of run r: seed + SEED_STRIDE x r (the parts of one run use seed,
 * seed + 1, ...: runs must not share them). */
#define SEED_STRIDE 1000
/* TUNING: points of the plotted curves, log-spaced in time. */
#define PLOT_POINTS 80
/* Relative slack below which a baseline "beating" ffm is a rounding
 * difference, not a bug (the model's sums are exact: this is generous). */
#define BEAT_SLACK 1e-12

static const char compare_description[] =
  "Runs ffm once and each other strategy --runs times on the same problem,\n"
  "cost model, mapspace and budget, and reports how far above ffm's optimum\n"
  "each gets by 1x, 10x, 100x, 1000x ffm's time (modelled as in the FFM\n"
  "paper, and wall-clock). Example:\n"
  "  ffm compare --arch tpuv4i --workload matmuls --param n_einsums=3 \\\n"
  "    --runs 5 --budget 100x --plot convergence.svg\n"
  "See docs/compare.md.";

typedef struct {
  FfmCliCommon common;
  FfmCliRunOptions run;
  FfmCliProblemOptions problem;
  FfmCliSearchOptions search;
  char *strategies;             /* --strategies (owned) */
  int runs;                     /* --runs */
  char *checkpoints;            /* --checkpoints (owned) */
  char *json;
  char *csv;
  char *trace_csv;
  char *plot;
  FfmCliVisualOptions visual;   /* --html */
} CompareOptions;

/* One run of one strategy. */
typedef struct {
  guint64 seed;
  FfmSearchResult *result;      /* owned, NULL if it failed */
  double objective;             /* the model's, of its best mapping */
  double seconds;               /* wall time of the run */
  gboolean interrupted;
} Run;

typedef struct {
  const char *name;
  FfmCliSearch search;
  GArray *runs;                 /* of Run */
} Entry;

typedef struct {
  double median, low, high;     /* percent above the optimum; INFINITY: none */
  guint reached;                /* runs with a mapping by then */
} Spread;

static void
run_clear (gpointer data)
{
  Run *r = data;

  g_clear_pointer (&r->result, ffm_search_result_free);
}

static void
entry_clear (Entry *e)
{
  ffm_cli_search_clear (&e->search);
  if (e->runs != NULL)
    g_array_unref (e->runs);
}

static double
objective_of (const FfmCostReport *r, FfmObjective objective)
{
  return ffm_objective_value (objective, ffm_cost_report_get_energy (r),
                              ffm_cost_report_get_latency (r));
}

/* ---- Reading traces ---- */

/* The best objective of @result's trace by time @limit (modelled or wall,
 * the latter shifted by @offset), INFINITY if none yet. */
static double
best_by (const FfmSearchResult *result, double limit, gboolean wall, double offset)
{
  const GArray *trace = ffm_search_result_get_trace (result);
  double best = INFINITY;

  for (guint i = 0; i < trace->len; i++)
    {
      const FfmTracePoint *p = &g_array_index (trace, FfmTracePoint, i);
      double t = wall ? p->seconds + offset : p->modelled_seconds;
      if (t <= limit * (1 + 1e-12))
        best = MIN (best, p->best_objective);
    }
  return best;
}

static double
percent_above (double value, double optimum)
{
  return isfinite (value) ? 100.0 * (value / optimum - 1.0) : INFINITY;
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Median (unreached runs count as infinitely far), min and max of the
 * reached ones. */
static Spread
spread_at (const Entry *e, double optimum, double limit, gboolean wall, double offset)
{
  g_autofree double *v = g_new (double, MAX (e->runs->len, 1));
  Spread s = { INFINITY, INFINITY, INFINITY, 0 };
  guint n = 0;

  for (guint i = 0; i < e->runs->len; i++)
    {
      const Run *r = &g_array_index (e->runs, Run, i);
      if (r->result != NULL)
        v[n++] = percent_above (best_by (r->result, limit, wall, offset), optimum);
    }
  if (n == 0)
    return s;
  qsort (v, n, sizeof (double), compare_doubles);
  for (guint i = 0; i < n; i++)
    s.reached += isfinite (v[i]);
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  if (s.reached > 0)
    {
      s.low = v[0];
      s.high = v[s.reached - 1];
    }
  return s;
}

/* ---- Options ---- */

static gboolean
parse_checkpoints (const char *text, GArray *out, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *end = NULL;
      double v = g_ascii_strtod (g_strstrip (parts[i]), &end);
      if (end == parts[i] || *end != '\0' || !(v > 0) || !isfinite (v))
        {
          g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                       "--checkpoints takes positive multiples of ffm's time "
                       "separated by commas (e.g. 1,10,100); got '%s'", parts[i]);
          return FALSE;
        }
      g_array_append_val (out, v);
    }
  if (out->len == 0)
    {
      g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                   "--checkpoints is empty");
      return FALSE;
    }
  return TRUE;
}

/* The --strategy-param entries meant for @name ("NAME.KEY=VALUE"), as
 * KEY=VALUE (transfer full). */
static GStrv
params_for (char **params, const char *name)
{
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  g_autofree char *prefix = g_strconcat (name, ".", NULL);

  for (guint i = 0; params != NULL && params[i] != NULL; i++)
    if (g_str_has_prefix (params[i], prefix))
      g_strv_builder_add (b, params[i] + strlen (prefix));
  return g_strv_builder_end (b);
}

/* ---- Output ---- */

static void
print_spread (const Spread *s, guint runs)
{
  char cell[64];

  if (!isfinite (s->median))
    g_snprintf (cell, sizeof cell, "-");
  else if (runs == 1)
    g_snprintf (cell, sizeof cell, "%.1f", s->median);
  else
    g_snprintf (cell, sizeof cell, "%.1f [%.1f, %.1f]", s->median, s->low, s->high);
  if (s->reached < runs && isfinite (s->median))
    {
      gsize len = strlen (cell);
      g_snprintf (cell + len, sizeof cell - len, " (%u/%u)", s->reached, runs);
    }
  g_print (" %-24s", cell);
}

static void
print_table (const char *title, GPtrArray *entries, const GArray *checkpoints,
             double optimum, double ffm_seconds, gboolean wall, double offset)
{
  g_print ("\n%s\n  %-10s", title, "strategy");
  for (guint k = 0; k < checkpoints->len; k++)
    {
      g_autofree char *h = g_strdup_printf ("%gx", g_array_index (checkpoints, double, k));
      g_print (" %-24s", h);
    }
  g_print ("\n");
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (entries, i);
      g_print ("  %-10s", e->name);
      for (guint k = 0; k < checkpoints->len; k++)
        {
          Spread s = spread_at (e, optimum, g_array_index (checkpoints, double, k) * ffm_seconds,
                                wall, offset);
          print_spread (&s, e->runs->len);
        }
      g_print ("\n");
    }
}

/* Percentages are "inf" where no run had a mapping yet (the writer's
 * spelling of doubles JSON has no number for). */
static void
add_spread_json (FfmJsonWriter *b, const Spread *s, double multiple)
{
  ffm_json_writer_begin_object_inline (b);
  ffm_json_writer_member_double (b, "multiple", multiple);
  ffm_json_writer_member_double (b, "median_percent", s->median);
  ffm_json_writer_member_double (b, "min_percent", s->low);
  ffm_json_writer_member_double (b, "max_percent", s->high);
  ffm_json_writer_member_uint (b, "runs_with_mapping", s->reached);
  ffm_json_writer_end_object (b);
}

static char *
compare_json (const CompareOptions *o, FfmProblem *problem, GPtrArray *entries,
              const GArray *checkpoints, const Run *ffm, const FfmCliSearch *search,
              const FfmCliSearch *budget, double optimum, double offset,
              const char *stopped)
{
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();

  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_string (b, "workload",
                                 ffm_workload_get_name (ffm_problem_get_workload (problem)));
  ffm_json_writer_member_string (b, "architecture",
                                 ffm_arch_get_name (ffm_problem_get_arch (problem)));
  ffm_json_writer_member_string (b, "objective", ffm_objective_to_string (search->objective));
  ffm_json_writer_member_int (b, "max_fused_loops", search->context.max_fused_loops);
  ffm_json_writer_member_boolean (b, "unfused", search->context.unfused);
  ffm_json_writer_member_uint (b, "threads", search->context.n_threads);
  ffm_json_writer_member_int (b, "runs", o->runs);
  ffm_json_writer_member_int (b, "seed", o->run.seed);
  ffm_json_writer_member_boolean (b, "interrupted", stopped != NULL);
  ffm_json_writer_member_string (b, "stopped_by", stopped);
  ffm_cli_search_write_budget_json (b, budget);
  ffm_json_writer_key (b, "ffm");
  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_double (b, "optimum", optimum);
  ffm_json_writer_member_double (b, "seconds", ffm->seconds);
  ffm_json_writer_end_object (b);
  ffm_json_writer_member_double (b, "shared_pmappings_seconds", offset);
  ffm_json_writer_key (b, "checkpoints");
  ffm_json_writer_begin_array_inline (b);
  for (guint k = 0; k < checkpoints->len; k++)
    ffm_json_writer_double (b, g_array_index (checkpoints, double, k));
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "strategies");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (entries, i);
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "name", e->name);
      for (int wall = 0; wall <= 1; wall++)
        {
          ffm_json_writer_key (b, wall ? "at_wall_time" : "at_modelled_time");
          ffm_json_writer_begin_array (b);
          for (guint k = 0; k < checkpoints->len; k++)
            {
              double m = g_array_index (checkpoints, double, k);
              Spread sp = spread_at (e, optimum, m * ffm->seconds, wall, offset);
              add_spread_json (b, &sp, m);
            }
          ffm_json_writer_end_array (b);
        }
      ffm_json_writer_key (b, "runs");
      ffm_json_writer_begin_array (b);
      for (guint r = 0; r < e->runs->len; r++)
        {
          const Run *run = &g_array_index (e->runs, Run, r);
          const GArray *stats;
          ffm_json_writer_begin_object (b);
          ffm_json_writer_member_uint (b, "seed", run->seed);
          ffm_json_writer_member_double (b, "objective", run->objective);
          ffm_json_writer_member_double (b, "percent_above_optimum",
                                         percent_above (run->objective, optimum));
          ffm_json_writer_member_double (b, "seconds", run->seconds);
          ffm_json_writer_member_boolean (b, "interrupted", run->interrupted);
          if (run->result != NULL)
            {
              ffm_json_writer_key (b, "stats");
              ffm_json_writer_begin_object (b);
              stats = ffm_search_result_get_stats (run->result);
              for (guint k = 0; k < stats->len; k++)
                {
                  const FfmStat *st = &g_array_index (stats, FfmStat, k);
                  ffm_json_writer_member_double (b, st->name, st->value);
                }
              ffm_json_writer_end_object (b);
              ffm_cli_write_trace_json (b, run->result);
            }
          ffm_json_writer_end_object (b);
        }
      ffm_json_writer_end_array (b);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
  return ffm_json_writer_finish (b);
}

static char *
compare_csv (GPtrArray *entries, const GArray *checkpoints, double optimum,
             double ffm_seconds, double offset)
{
  GString *s = g_string_new ("strategy,run,seed,objective,percent_above_optimum,"
                             "evaluations,pmapping_queries,modelled_seconds,wall_seconds,"
                             "interrupted");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (int wall = 0; wall <= 1; wall++)
    for (guint k = 0; k < checkpoints->len; k++)
      g_string_append_printf (s, ",percent_at_%gx_%s", g_array_index (checkpoints, double, k),
                              wall ? "wall" : "modelled");
  g_string_append_c (s, '\n');
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (entries, i);
      for (guint r = 0; r < e->runs->len; r++)
        {
          const Run *run = &g_array_index (e->runs, Run, r);
          double ev = 0, q = 0, m = 0;
          if (run->result == NULL)
            continue;
          ffm_search_result_lookup_stat (run->result, "evaluations", &ev);
          ffm_search_result_lookup_stat (run->result, "pmapping_queries", &q);
          ffm_search_result_lookup_stat (run->result, "modelled_seconds", &m);
          g_string_append_printf (s, "%s,%u,%" G_GUINT64_FORMAT ",", e->name, r, run->seed);
          g_string_append_printf (s, "%s,", ffm_format_double (run->objective, buf));
          g_string_append_printf (s, "%s,", ffm_format_double (percent_above (run->objective, optimum), buf));
          g_string_append_printf (s, "%.0f,", ev);
          g_string_append_printf (s, "%s,", ffm_format_double (q, buf));
          g_string_append_printf (s, "%s,", ffm_format_double (m, buf));
          g_string_append_printf (s, "%s,%d", ffm_format_double (run->seconds, buf),
                                  run->interrupted);
          for (int wall = 0; wall <= 1; wall++)
            for (guint k = 0; k < checkpoints->len; k++)
              {
                double v = percent_above (best_by (run->result,
                                                   g_array_index (checkpoints, double, k) * ffm_seconds,
                                                   wall, offset), optimum);
                g_string_append_printf (s, ",%s", isfinite (v) ? ffm_format_double (v, buf) : "");
              }
          g_string_append_c (s, '\n');
        }
    }
  return g_string_free (s, FALSE);
}

/* Fig. 8: percent above optimal against modelled time over ffm's. */
static gboolean
compare_plot (const char *path, FfmProblem *problem, GPtrArray *entries,
              double optimum, double ffm_seconds, FfmObjective objective,
              GError **error)
{
  g_autoptr (GArray) series = g_array_new (FALSE, TRUE, sizeof (FfmPlotSeries));
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  double lo = INFINITY, hi = 0;
  g_autofree char *objective_name = g_ascii_strup (ffm_objective_to_string (objective), -1);
  g_autofree char *title = g_strdup_printf ("%s on %s: %s above the optimum",
                                            ffm_workload_get_name (ffm_problem_get_workload (problem)),
                                            ffm_arch_get_name (ffm_problem_get_arch (problem)),
                                            objective_name);
  FfmPlotAxes axes = { title, "modelled time / ffm's time", "% above optimal", TRUE, FALSE, 0 };
  double top = 10;
  static const double one = 1, zero = 0;
  FfmPlotSeries ffm_point = { "ffm", 1, &one, &zero, NULL, NULL, TRUE };

  /* The time range: from the first point any run records to the last. */
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (entries, i);
      for (guint r = 0; r < e->runs->len; r++)
        {
          const Run *run = &g_array_index (e->runs, Run, r);
          const GArray *trace;
          if (run->result == NULL)
            continue;
          trace = ffm_search_result_get_trace (run->result);
          for (guint p = 0; p < trace->len; p++)
            {
              double t = g_array_index (trace, FfmTracePoint, p).modelled_seconds / ffm_seconds;
              if (t > 0)
                {
                  lo = MIN (lo, t);
                  hi = MAX (hi, t);
                }
            }
        }
    }
  if (!isfinite (lo) || hi <= lo)
    {
      lo = 0.1;
      hi = 10;
    }
  g_array_append_val (series, ffm_point);
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (entries, i);
      FfmPlotSeries s = { e->name, PLOT_POINTS, NULL, NULL, NULL, NULL, FALSE };
      double *x = g_new (double, PLOT_POINTS), *y = g_new (double, PLOT_POINTS);
      double *low = g_new (double, PLOT_POINTS), *high = g_new (double, PLOT_POINTS);
      g_ptr_array_add (owned, x);
      g_ptr_array_add (owned, y);
      g_ptr_array_add (owned, low);
      g_ptr_array_add (owned, high);
      for (guint k = 0; k < PLOT_POINTS; k++)
        {
          Spread sp;
          x[k] = lo * pow (hi / lo, (double) k / (PLOT_POINTS - 1));
          sp = spread_at (e, optimum, x[k] * ffm_seconds, FALSE, 0);
          y[k] = sp.median;
          low[k] = sp.low;
          high[k] = sp.high;
        }
      for (guint k = 0; k < PLOT_POINTS; k++)
        if (isfinite (y[k]))
          top = MAX (top, y[k]);
      s.x = x;
      s.y = y;
      s.low = e->runs->len > 1 ? low : NULL;
      s.high = e->runs->len > 1 ? high : NULL;
      g_array_append_val (series, s);
    }
  /* The medians decide the height; a band reaching above is cut. */
  axes.y_max = 1.15 * top;
  return ffm_plot_lines (path, &axes, (const FfmPlotSeries *) series->data, series->len,
                         error);
}

/* ---- Running ---- */

static gboolean
run_once (FfmCliSearch *search, guint64 seed, FfmMapspace *ms,
          const FfmCliCancel *cancel, Run *out, GError **error)
{
  g_auto (FfmCliSearchRun) sr = { 0 };
  FfmSearchContext saved = search->context;

  search->context.seed = seed;
  search->context.mapspace = ms;
  memset (out, 0, sizeof *out);
  out->seed = seed;
  out->objective = INFINITY;
  if (!ffm_cli_search_run (search, &sr, error))
    {
      search->context = saved;
      return FALSE;
    }
  search->context = saved;
  out->seconds = sr.seconds;
  out->objective = objective_of (g_ptr_array_index (sr.reports, sr.best), search->objective);
  out->interrupted = ffm_cli_cancel_get_reason (cancel) != FFM_CLI_STOP_NONE;
  out->result = g_steal_pointer (&sr.result);
  return TRUE;
}

/* ---- Under mpirun (ffm-cli-mpi-points.h) ----
 * Every rank prepares the same strategies; rank 0 runs ffm, then hands
 * out the other runs (item e x runs + r: entry e, run r) with ffm's time
 * (budgets are multiples of it); another rank sends a run back as text:
 * "ok OBJECTIVE SECONDS INTERRUPTED" or "error" and the message, then one
 * "stat NAME VALUE" and "trace ..." line each (what the outputs read). */

typedef struct {
  const CompareOptions *o;
  GPtrArray *entries;
  FfmMapspace *ms;
  const FfmCliCancel *cancel;
  /* rank 0: */
  Run *runs;                    /* [entries x runs] */
  GError **errors;              /* [entries x runs], NULL: ran (or never did) */
  gboolean *ran;                /* [entries x runs] */
  GAsyncQueue *back;            /* of item + 1, as each comes back */
} MpiCompare;

static guint64
compare_fingerprint (const CompareOptions *o, const GPtrArray *entries)
{
  g_autofree char *numbers = g_strdup_printf ("%d %" G_GINT64_FORMAT, o->runs, o->run.seed);
  guint64 h = 0;

  ffm_cli_mpi_fingerprint_add (&h, numbers);
  ffm_cli_search_options_fingerprint (&o->problem, &o->search, &h);
  for (guint i = 0; i < entries->len; i++)
    ffm_cli_mpi_fingerprint_add (&h, ((const Entry *) entries->pdata[i])->name);
  return h;
}

/* Run @item of @m with @search (a copy of its entry's: runs may not share
 * one) under ffm's time @ffm_seconds. */
static gboolean
mpi_run_item (MpiCompare *m, guint item, FfmCliSearch *search, double ffm_seconds,
              Run *out, GError **error)
{
  guint r = item % (guint) m->o->runs;

  if (search->budget_multiple > 0)
    ffm_cli_search_set_budget_multiple (search, ffm_seconds);
  search->context.cancel = ffm_cli_cancel_get_flag (m->cancel);
  search->context.progress = NULL;
  search->context.progress_data = NULL;
  return run_once (search, (guint64) m->o->run.seed + SEED_STRIDE * (guint64) r, m->ms,
                   m->cancel, out, error);
}

/* Rank 0: a run here. */
static void
mpi_run_here (guint item, gpointer data)
{
  MpiCompare *m = data;
  Entry *e = m->entries->pdata[item / (guint) m->o->runs];
  FfmCliSearch search = e->search;

  /* Its budget is set (mpi_share_runs()): ffm_seconds is ffm's time. */
  m->ran[item] = mpi_run_item (m, item, &search, e->search.ffm_seconds, &m->runs[item],
                               &m->errors[item]);
  if (!m->ran[item] && ffm_cli_cancel_get_reason (m->cancel) != FFM_CLI_STOP_NONE)
    g_clear_error (&m->errors[item]);
  g_async_queue_push (m->back, GUINT_TO_POINTER (item + 1));
}

/* Another rank: a run, as text. */
static char *
mpi_run_there (guint item, guint n_threads, const char *shared, gpointer data)
{
  MpiCompare *m = data;
  Entry *e;
  FfmCliSearch search;
  g_autoptr (GError) error = NULL;
  GString *text;
  Run one;
  char buf[3][G_ASCII_DTOSTR_BUF_SIZE];

  if (item >= m->entries->len * (guint) m->o->runs || shared == NULL)
    return g_strdup ("error\nMPI: rank 0 handed out a run this rank does not have");
  e = m->entries->pdata[item / (guint) m->o->runs];
  search = e->search;
  if (!mpi_run_item (m, item, &search, g_ascii_strtod (shared, NULL), &one, &error))
    {
      if (ffm_cli_cancel_get_reason (m->cancel) != FFM_CLI_STOP_NONE)
        return NULL;
      return g_strdup_printf ("error\n%s", error->message);
    }
  text = g_string_new (NULL);
  g_string_append_printf (text, "ok %s %s %d\n",
                          g_ascii_formatd (buf[0], sizeof buf[0], "%.17g", one.objective),
                          g_ascii_formatd (buf[1], sizeof buf[1], "%.17g", one.seconds),
                          one.interrupted);
  {
    const GArray *stats = ffm_search_result_get_stats (one.result);
    const GArray *trace = ffm_search_result_get_trace (one.result);
    for (guint k = 0; k < stats->len; k++)
      {
        const FfmStat *st = &g_array_index (stats, FfmStat, k);
        g_string_append_printf (text, "stat %s %s\n", st->name,
                                g_ascii_formatd (buf[0], sizeof buf[0], "%.17g", st->value));
      }
    for (guint k = 0; k < trace->len; k++)
      {
        const FfmTracePoint *t = &g_array_index (trace, FfmTracePoint, k);
        g_string_append_printf (text, "trace %" G_GUINT64_FORMAT " %s %s %s",
                                t->evaluations,
                                g_ascii_formatd (buf[0], sizeof buf[0], "%.17g", t->seconds),
                                g_ascii_formatd (buf[1], sizeof buf[1], "%.17g",
                                                 t->best_objective),
                                g_ascii_formatd (buf[2], sizeof buf[2], "%.17g",
                                                 t->pmapping_queries));
        g_string_append_printf (text, " %s\n", g_ascii_formatd (buf[0], sizeof buf[0],
                                                                "%.17g", t->modelled_seconds));
      }
  }
  run_clear (&one);
  return g_string_free (text, FALSE);
}

/* Reads a run another rank sent (mpi_run_there()). */
static gboolean
run_from_text (const char *text, guint64 seed, Run *out, GError **error)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_auto (GStrv) head = g_strsplit (lines[0], " ", -1);

  memset (out, 0, sizeof *out);
  out->seed = seed;
  if (strcmp (lines[0], "error") == 0)
    {
      const char *message = strchr (text, '\n');
      g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED, "%s",
                   message != NULL ? message + 1 : "failed");
      return FALSE;
    }
  if (g_strv_length (head) != 4 || strcmp (head[0], "ok") != 0)
    goto bad;
  out->objective = g_ascii_strtod (head[1], NULL);
  out->seconds = g_ascii_strtod (head[2], NULL);
  out->interrupted = strcmp (head[3], "1") == 0;
  out->result = ffm_search_result_new ();
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], " ", -1);
      guint n = g_strv_length (f);
      if (n == 0 || lines[i][0] == '\0')
        continue;
      if (strcmp (f[0], "stat") == 0 && n == 3)
        ffm_search_result_set_stat (out->result, f[1], g_ascii_strtod (f[2], NULL));
      else if (strcmp (f[0], "trace") == 0 && n == 6)
        {
          FfmTracePoint t = { g_ascii_strtoull (f[1], NULL, 10), g_ascii_strtod (f[2], NULL),
                              g_ascii_strtod (f[3], NULL), g_ascii_strtod (f[4], NULL),
                              g_ascii_strtod (f[5], NULL) };
          ffm_search_result_add_trace (out->result, &t);
        }
      else
        goto bad;
    }
  return TRUE;

bad:
  g_clear_pointer (&out->result, ffm_search_result_free);
  g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_FAILED, "MPI: another rank "
               "sent a run this ffm cannot read: run the same ffm build on every rank");
  return FALSE;
}

/* Rank 0: another rank's run, or NULL: not run. */
static void
mpi_result (guint item, const char *text, gpointer data)
{
  MpiCompare *m = data;

  if (text != NULL)
    m->ran[item] = run_from_text (text, (guint64) m->o->run.seed + SEED_STRIDE
                                  * (guint64) (item % (guint) m->o->runs),
                                  &m->runs[item], &m->errors[item]);
  g_async_queue_push (m->back, GUINT_TO_POINTER (item + 1));
}

/* Another rank: builds the shared mapspace itself, then runs what rank 0
 * hands out. */
static int
mpi_serve_runs (const CompareOptions *o, GPtrArray *entries, FfmCliSearch *ffm_search)
{
  g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->search.timeout);
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (GError) error = NULL;
  MpiCompare m = { o, entries, NULL, cancel, NULL, NULL, NULL, NULL };

  if (entries->len > 0)
    {
      FfmSearchContext mctx = ffm_search->context;
      mctx.cancel = ffm_cli_cancel_get_flag (cancel);
      if ((ms = ffm_mapspace_new_for_context (&mctx, &error)) == NULL)
        return ffm_cli_fail (COMMAND, error);
    }
  m.ms = ms;
  /* One run at a time with every thread, as one process runs them. */
  return ffm_cli_mpi_points_serve (COMMAND, compare_fingerprint (o, entries),
                                   ffm_cli_run_options_get_threads (&o->run), 1,
                                   mpi_run_there, &m);
}

/* Rank 0 of several: every run of every strategy over the ranks, then
 * taken in the order one process runs them (failures, interruptions and
 * a beaten optimum as there). FALSE when not under mpirun; otherwise
 * *@status says how it went. */
static gboolean
mpi_share_runs (const CompareOptions *o, GPtrArray *entries, FfmMapspace *ms,
                const FfmCliCancel *cancel, FfmCliProgress *progress, double ffm_seconds,
                double optimum, char **stopped, gboolean *beaten, int *status)
{
  guint n = entries->len * (guint) o->runs;
  g_autofree guint *items = g_new (guint, MAX (n, 1));
  g_autofree Run *runs = g_new0 (Run, MAX (n, 1));
  g_autofree GError **errors = g_new0 (GError *, MAX (n, 1));
  g_autofree gboolean *ran = g_new0 (gboolean, MAX (n, 1));
  g_autoptr (GAsyncQueue) back = g_async_queue_new ();
  g_autoptr (GError) error = NULL;
  MpiCompare m = { o, entries, ms, cancel, runs, errors, ran, back };
  char shared[G_ASCII_DTOSTR_BUF_SIZE];

  if (ffm_cli_mpi_is_worker ())
    return FALSE;
  for (guint i = 0; i < n; i++)
    items[i] = i;
  for (guint i = 0; i < entries->len; i++)
    {
      Entry *e = g_ptr_array_index (entries, i);
      if (e->search.budget_multiple > 0)
        ffm_cli_search_set_budget_multiple (&e->search, ffm_seconds);
    }
  g_ascii_formatd (shared, sizeof shared, "%.17g", ffm_seconds);
  if (!ffm_cli_mpi_points_share (COMMAND, "runs", "ffm compare: MPI: stopped by the "
                                 "launcher (a rank died, a node was lost, or the job "
                                 "was cancelled): no comparison\n", shared, items, n,
                                 compare_fingerprint (o, entries), 1,
                                 ffm_cli_cancel_get_flag (cancel), mpi_run_here,
                                 mpi_result, &m))
    return FALSE;
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *phase = g_strdup_printf ("%u of %u runs over MPI ranks", k, n);
      ffm_cli_progress_update ((double) k / n, phase, progress);
      g_async_queue_pop (back);
    }
  *status = FFM_EXIT_OK;
  if (!ffm_cli_mpi_points_finish (&error))
    *status = ffm_cli_fail (COMMAND, error);
  for (guint k = 0; k < n && *status == FFM_EXIT_OK && *stopped == NULL; k++)
    {
      Entry *e = g_ptr_array_index (entries, k / (guint) o->runs);
      int r = (int) (k % (guint) o->runs);
      if (!ran[k] && errors[k] == NULL)
        *stopped = g_strdup (ffm_cli_cancel_describe (cancel) != NULL
                             ? ffm_cli_cancel_describe (cancel) : "stopped");
      else if (!ran[k])
        {
          g_prefix_error (&errors[k], "%s, run %d (seed %" G_GUINT64_FORMAT "): ", e->name,
                          r + 1, runs[k].seed);
          *status = ffm_cli_fail (COMMAND, errors[k]);
        }
      else
        {
          if (runs[k].objective < optimum * (1 - BEAT_SLACK))
            {
              ffm_cli_warn (COMMAND, "%s (seed %" G_GUINT64_FORMAT ") found %.17g, "
                            "below ffm's optimum %.17g: a bug in one of them",
                            e->name, runs[k].seed, runs[k].objective, optimum);
              *beaten = TRUE;
            }
          g_array_append_val (e->runs, runs[k]);
          runs[k].result = NULL;          /* the entry's now */
          if (runs[k].interrupted)
            *stopped = g_strdup (ffm_cli_cancel_describe (cancel));
        }
    }
  for (guint k = 0; k < n; k++)
    {
      run_clear (&runs[k]);
      g_clear_error (&errors[k]);
    }
  return TRUE;
}

static int
run (GOptionContext *context, CompareOptions *o)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmProblem) problem = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) checkpoints = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GPtrArray) entries = g_ptr_array_new ();
  g_autoptr (FfmMapspace) ms = NULL;
  g_auto (GStrv) names = NULL;
  g_auto (FfmCliSearch) ffm_search = { 0 };
  g_autofree char *stopped = NULL;
  Run ffm = { 0 };
  double optimum, offset;
  gboolean beaten = FALSE;
  const FfmCliSearch *budget_ref;
  int status;

  if (o->search.strategy != NULL)
    return ffm_cli_usage_error (context, COMMAND, "compare takes --strategies "
                                "NAME,NAME,... (not --strategy)");
  if (o->runs < 1 || o->runs > MAX_RUNS)
    return ffm_cli_usage_error (context, COMMAND, "--runs must be from 1 to %d", MAX_RUNS);
  if (!parse_checkpoints (o->checkpoints != NULL ? o->checkpoints : DEFAULT_CHECKPOINTS,
                          checkpoints, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (o->search.budget == NULL && o->search.max_evaluations == 0 && o->search.max_seconds == 0)
    o->search.budget = g_strdup (DEFAULT_BUDGET);
  if (!ffm_cli_visual_check (&o->visual, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (o->plot != NULL && !ffm_plot_check (o->plot, &error))
    {
      /* A bad name is the user's to fix now; a build without plotting
       * says so before any work, then does the rest. */
      if (g_error_matches (error, FFM_PLOT_ERROR, FFM_PLOT_ERROR_FORMAT))
        return ffm_cli_usage_error (context, COMMAND, "--plot %s", error->message);
      ffm_cli_warn (COMMAND, "--plot: %s", error->message);
      g_clear_pointer (&o->plot, g_free);
      g_clear_error (&error);
    }
  {
    /* Checkpoints past the budget would only repeat its end. */
    double multiple = 0, seconds = 0;
    if (o->search.budget != NULL
        && ffm_cli_parse_budget (o->search.budget, &multiple, &seconds, NULL) && multiple > 0)
      {
        for (guint k = checkpoints->len; k-- > 0; )
          if (g_array_index (checkpoints, double, k) > multiple * (1 + 1e-9))
            g_array_remove_index (checkpoints, k);
        if (checkpoints->len == 0)
          g_array_append_val (checkpoints, multiple);
      }
  }
  names = g_strsplit (o->strategies != NULL ? o->strategies : DEFAULT_STRATEGIES, ",", -1);
  registry = ffm_cli_registry_new (&o->common);
  status = ffm_cli_load_problem (context, COMMAND, registry, &o->problem, &problem);
  if (status != FFM_EXIT_OK)
    return status;

  /* ffm, the reference, and one prepared search per other strategy. */
  {
    FfmCliSearchOptions so = o->search;
    so.strategy = (char *) "ffm";
    so.strategy_params = NULL;
    status = ffm_cli_search_prepare (context, COMMAND, &so, &o->run, registry,
                                     problem, &ffm_search);
    if (status != FFM_EXIT_OK)
      return status;
    if (ffm_search.objective == FFM_OBJECTIVE_PARETO)
      return ffm_cli_usage_error (context, COMMAND, "compare ranks by one objective "
                                  "(edp, energy or latency), not the Pareto front");
  }
  for (guint i = 0; names[i] != NULL; i++)
    {
      FfmCliSearchOptions so = o->search;
      g_auto (GStrv) params = NULL;
      Entry *e;
      gboolean twice = FALSE;
      if (*g_strstrip (names[i]) == '\0')
        {
          status = ffm_cli_usage_error (context, COMMAND, "--strategies has an empty name");
          goto out;
        }
      if (g_str_equal (names[i], "ffm"))
        continue;
      for (guint j = 0; j < i; j++)
        twice |= g_str_equal (names[i], names[j]);
      if (twice)
        {
          status = ffm_cli_usage_error (context, COMMAND, "--strategies names %s twice",
                                        names[i]);
          goto out;
        }
      params = params_for (o->search.strategy_params, names[i]);
      so.strategy = names[i];
      so.strategy_params = params;
      e = g_new0 (Entry, 1);
      e->name = names[i];
      e->runs = g_array_new (FALSE, TRUE, sizeof (Run));
      g_array_set_clear_func (e->runs, run_clear);
      g_ptr_array_add (entries, e);
      status = ffm_cli_search_prepare (context, COMMAND, &so, &o->run, registry,
                                       problem, &e->search);
      if (status == FFM_EXIT_OK
          && !ffm_param_values_validate (e->search.strategy_values,
                                         e->search.plugin->descriptor->vtable.search->params,
                                         names[i], &error))
        status = ffm_cli_usage_error (context, COMMAND, "%s", error->message);
      if (status != FFM_EXIT_OK)
        goto out;
    }
  for (guint i = 0; o->search.strategy_params != NULL && o->search.strategy_params[i] != NULL; i++)
    {
      gboolean known = FALSE;
      for (guint j = 0; j < entries->len; j++)
        known |= g_str_has_prefix (o->search.strategy_params[i],
                                   ((Entry *) g_ptr_array_index (entries, j))->name)
          && o->search.strategy_params[i][strlen (((Entry *) g_ptr_array_index (entries, j))->name)] == '.';
      if (!known)
        {
          status = ffm_cli_usage_error (context, COMMAND, "--strategy-param %s: write "
                                        "NAME.KEY=VALUE with NAME one of --strategies "
                                        "(other than ffm)", o->search.strategy_params[i]);
          goto out;
        }
    }

  /* Under mpirun the other ranks only run what rank 0 hands out. */
  if (ffm_cli_mpi_is_worker ())
    {
      status = mpi_serve_runs (o, entries, &ffm_search);
      goto out;
    }
  {
    g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->search.timeout);
    g_autoptr (FfmCliProgress) progress = ffm_cli_progress_start (COMMAND, TRUE);
    FfmSearchContext mctx;
    gint64 t0;

    ffm_search.context.progress = ffm_cli_progress_update;
    ffm_search.context.progress_data = progress;
    ffm_search.context.cancel = ffm_cli_cancel_get_flag (cancel);
    ffm_cli_progress_update (-1, "ffm", progress);
    if (!run_once (&ffm_search, ffm_search.context.seed, NULL, cancel, &ffm, &error))
      {
        if (ffm_cli_cancel_get_reason (cancel) != FFM_CLI_STOP_NONE)
          g_prefix_error (&error, "%s before ffm finished: ", ffm_cli_cancel_describe (cancel));
        else
          g_prefix_error (&error, "ffm: ");
        status = ffm_cli_fail (COMMAND, error);
        goto out;
      }
    optimum = ffm.objective;
    /* One mapspace for every other run: the pmappings are the same. */
    t0 = g_get_monotonic_time ();
    mctx = ffm_search.context;
    ffm_cli_progress_update (-1, "generating the shared pmappings", progress);
    if (entries->len > 0 && (ms = ffm_mapspace_new_for_context (&mctx, &error)) == NULL)
      {
        if (ffm_cli_cancel_get_reason (cancel) != FFM_CLI_STOP_NONE)
          stopped = g_strdup (ffm_cli_cancel_describe (cancel));
        else
          {
            status = ffm_cli_fail (COMMAND, error);
            goto out;
          }
        g_clear_error (&error);
      }
    offset = (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;
    if (stopped == NULL && mpi_share_runs (o, entries, ms, cancel, progress, ffm.seconds,
                                           optimum, &stopped, &beaten, &status))
      {
        if (status != FFM_EXIT_OK)
          goto out;
      }
    else
    for (guint i = 0; i < entries->len && stopped == NULL; i++)
      {
        Entry *e = g_ptr_array_index (entries, i);
        if (e->search.budget_multiple > 0)
          ffm_cli_search_set_budget_multiple (&e->search, ffm.seconds);
        e->search.context.progress = ffm_cli_progress_update;
        e->search.context.progress_data = progress;
        e->search.context.cancel = ffm_cli_cancel_get_flag (cancel);
        for (int r = 0; r < o->runs && stopped == NULL; r++)
          {
            g_autofree char *phase = g_strdup_printf ("%s run %d of %d", e->name, r + 1, o->runs);
            Run one;
            ffm_cli_progress_update (-1, phase, progress);
            if (!run_once (&e->search, (guint64) o->run.seed + SEED_STRIDE * (guint64) r, ms,
                           cancel, &one, &error))
              {
                if (ffm_cli_cancel_get_reason (cancel) != FFM_CLI_STOP_NONE)
                  {
                    stopped = g_strdup (ffm_cli_cancel_describe (cancel));
                    g_clear_error (&error);
                    break;
                  }
                g_prefix_error (&error, "%s, run %d (seed %" G_GUINT64_FORMAT "): ", e->name,
                                r + 1, (guint64) o->run.seed + SEED_STRIDE * (guint64) r);
                status = ffm_cli_fail (COMMAND, error);
                goto out;
              }
            if (one.objective < optimum * (1 - BEAT_SLACK))
              {
                ffm_cli_warn (COMMAND, "%s (seed %" G_GUINT64_FORMAT ") found %.17g, "
                              "below ffm's optimum %.17g: a bug in one of them",
                              e->name, one.seed, one.objective, optimum);
                beaten = TRUE;
              }
            g_array_append_val (e->runs, one);
            if (one.interrupted)
              stopped = g_strdup (ffm_cli_cancel_describe (cancel));
          }
      }
  }

  budget_ref = entries->len > 0 ? &((Entry *) g_ptr_array_index (entries, 0))->search
    : &ffm_search;
  {
    g_autofree char *budget = NULL;
    const FfmCliSearch *ref = budget_ref;
    if (ref->budget_multiple > 0)
      budget = g_strdup_printf ("%gx ffm's time (%.4g s of modelled time)",
                                ref->budget_multiple, ref->context.max_modelled_seconds);
    else if (ref->context.max_modelled_seconds > 0)
      budget = g_strdup_printf ("%.4g s of modelled time", ref->context.max_modelled_seconds);
    else
      budget = g_strdup_printf ("%" G_GUINT64_FORMAT " evaluations, %g s of wall time "
                                "(0 = none)", ref->context.max_evaluations,
                                ref->context.max_seconds);
    g_print ("Comparison on %s / %s, objective %s, %d run%s per strategy, budget %s\n",
             ffm_workload_get_name (ffm_problem_get_workload (problem)),
             ffm_arch_get_name (ffm_problem_get_arch (problem)),
             ffm_objective_to_string (ffm_search.objective), o->runs, o->runs > 1 ? "s" : "",
             budget);
    g_print ("ffm: optimum %.6g in %.3g s (wall); shared pmappings for the others "
             "%.3g s\n", optimum, ffm.seconds, offset);
    if (stopped != NULL)
      g_print ("INTERRUPTED: %s; the tables hold the runs done so far.\n", stopped);
    print_table ("Percent above ffm's optimum by k x ffm's time, modelled as in the "
                 "paper (median [min, max] over runs):", entries, checkpoints, optimum,
                 ffm.seconds, FALSE, 0);
    print_table ("Same by wall-clock time (shared pmapping generation included):",
                 entries, checkpoints, optimum, ffm.seconds, TRUE, offset);
  }
  if (o->json != NULL || o->visual.html != NULL)
    {
      g_autofree char *text = compare_json (o, problem, entries, checkpoints, &ffm,
                                            &ffm_search, budget_ref, optimum, offset,
                                            stopped);
      if ((o->json != NULL && !ffm_cli_output_write (o->json, text, &error))
          || (o->visual.html != NULL && !ffm_html_write_compare (o->visual.html, text, &error)))
        {
          status = ffm_cli_fail (COMMAND, error);
          goto out;
        }
    }
  if (o->csv != NULL)
    {
      g_autofree char *text = compare_csv (entries, checkpoints, optimum, ffm.seconds, offset);
      if (!ffm_cli_output_write (o->csv, text, &error))
        {
          status = ffm_cli_fail (COMMAND, error);
          goto out;
        }
    }
  if (o->trace_csv != NULL)
    {
      GString *text = g_string_new (NULL);
      g_autofree char *first = ffm_cli_trace_to_csv (ffm.result, "ffm", 0, TRUE);
      g_string_append (text, first);
      for (guint i = 0; i < entries->len; i++)
        {
          const Entry *e = g_ptr_array_index (entries, i);
          for (guint r = 0; r < e->runs->len; r++)
            {
              g_autofree char *part = ffm_cli_trace_to_csv (g_array_index (e->runs, Run, r).result,
                                                            e->name, r, FALSE);
              g_string_append (text, part);
            }
        }
      if (!ffm_cli_output_write (o->trace_csv, text->str, &error))
        {
          g_string_free (text, TRUE);
          status = ffm_cli_fail (COMMAND, error);
          goto out;
        }
      g_string_free (text, TRUE);
    }
  if (o->plot != NULL
      && !compare_plot (o->plot, problem, entries, optimum, ffm.seconds,
                        ffm_search.objective, &error))
    {
      status = ffm_cli_fail (COMMAND, error);
      goto out;
    }
  status = beaten ? FFM_EXIT_FAILURE : FFM_EXIT_OK;

out:
  run_clear (&ffm);
  for (guint i = 0; i < entries->len; i++)
    {
      entry_clear (g_ptr_array_index (entries, i));
      g_free (g_ptr_array_index (entries, i));
    }
  return status;
}

/* run() as ffm_cli_mpi_run_command() calls it. */
static int
run_command (GOptionContext *context, gpointer options)
{
  return run (context, options);
}

int
ffm_cmd_compare (int argc, char **argv)
{
  CompareOptions o = { FFM_CLI_COMMON_INIT, FFM_CLI_RUN_OPTIONS_INIT,
                       FFM_CLI_PROBLEM_OPTIONS_INIT,
                       FFM_CLI_SEARCH_OPTIONS_INIT, NULL, 10, NULL, NULL, NULL,
                       NULL, NULL, FFM_CLI_VISUAL_OPTIONS_INIT };
  const GOptionEntry entries[] = {
    { "strategies", 0, 0, G_OPTION_ARG_STRING, &o.strategies,
      "Strategies to compare, separated by commas (default " DEFAULT_STRATEGIES
      "); ffm always runs, as the reference", "NAME,..." },
    { "runs", 0, 0, G_OPTION_ARG_INT, &o.runs,
      "Runs of each strategy other than ffm, with seeds S, S+1000, ... (default 10)", "N" },
    { "checkpoints", 0, 0, G_OPTION_ARG_STRING, &o.checkpoints,
      "Multiples of ffm's time the tables report (default " DEFAULT_CHECKPOINTS ")", "K,..." },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &o.json,
      "Write every run, its statistics and trace, and the tables as JSON to OUT", "OUT" },
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &o.csv,
      "Write one line per run (result and checkpoints) as CSV to OUT", "OUT" },
    { "trace-csv", 0, 0, G_OPTION_ARG_FILENAME, &o.trace_csv,
      "Write every run's convergence trace as CSV to OUT", "OUT" },
    { "plot", 0, 0, G_OPTION_ARG_FILENAME, &o.plot,
      "Draw percent above optimal against modelled time (the FFM paper's Fig. 8) "
      "to OUT.svg, OUT.png or OUT.pdf", "OUT" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = ffm_cli_context_new (COMMAND, NULL,
                                                            compare_description);
  gboolean mpi_worker;          /* ffm_cli_mpi_is_worker() says it where needed */
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_visual_options (context, &o.visual, FALSE, "the comparison");
  ffm_cli_add_search_options (context, &o.search);
  ffm_cli_add_problem_options (context, &o.problem);
  ffm_cli_add_run_options (context, &o.run, FFM_CLI_RUN_THREADS | FFM_CLI_RUN_SEED);
  ffm_cli_add_common_options (context, &o.common, TRUE);
  status = ffm_cli_mpi_run_command (context, COMMAND, &o.common, &o.run, argc, argv,
                                    &mpi_worker, run_command, &o);
  g_free (o.strategies);
  g_free (o.checkpoints);
  g_free (o.json);
  g_free (o.csv);
  g_free (o.trace_csv);
  g_free (o.plot);
  ffm_cli_visual_options_clear (&o.visual);
  ffm_cli_search_options_clear (&o.search);
  ffm_cli_problem_options_clear (&o.problem);
  ffm_cli_common_clear (&o.common);
  return status;
}
