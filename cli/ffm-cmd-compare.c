/* ffm-cmd-compare.c: `ffm compare`, mappers head to head (the FFM paper's
 * Fig. 8 and Fig. 9).
 *
 *   ffm compare --arch A --workload W [--param K=V]... [--arch-param K=V]...
 *               [--strategies ffm,set,tileflow,random] [--runs 10]
 *               [--budget 1000x | --max-evaluations N | --max-seconds S]
 *               [--budget-reference wall|cpu|SECONDS]
 *               [--checkpoints 1,10,100,1000] [--strategy-param NAME.K=V]...
 *               [--baseline-space paper|pruned] [--charge explored|evaluation]
 *               [--sweep-einsums N,N,... [--within PERCENT]]
 *               [--objective edp|energy|latency] [--max-fused-loops N]
 *               [--unfused] [--seed S] [--threads N] [--timeout S]
 *               [--max-memory SIZE]
 *               [--json OUT] [--csv OUT] [--trace-csv OUT] [--plot OUT.svg]
 *               [--html OUT.html]
 *
 * Same problem, same cost model, same mapspace and same budget for every
 * strategy: ffm runs once (it is deterministic), giving the optimum and
 * the time T the budget and the checkpoints are multiples of (its wall
 * time, its CPU time over its threads, or seconds given:
 * --budget-reference); then every
 * other strategy runs --runs times with seeds S, S + 1000, ..., all on one
 * mapspace built once (the pmappings are generated once and shared: each
 * strategy would compute the same cache). The space the baselines search
 * and what a query of it is charged are the paper's by default and stated
 * in every output (--baseline-space, --charge; docs/compare.md). For each
 * strategy and each checkpoint k the table gives the objective's distance
 * above ffm's optimum (median [min, max] over runs) reached by k x T of the
 * paper's modelled time (pmapping evaluations queried x the measured time
 * of one, §7.3), then by k x T of wall time (the shared generation
 * included: what a user waits for one run); a run stopped before a
 * checkpoint has not reached it. --plot draws percent above optimal
 * against modelled time over T, both on log axes, one line per strategy
 * (the median) with the band of its runs (Fig. 8); --json, --csv and
 * --trace-csv hold every number, --html shows them as one page
 * (ffm-html-report.h).
 *
 * --sweep-einsums N,... runs the comparison once per number of Einsums
 * (the workload's parameter n_einsums: a chain of matmuls, §7.5) with ffm's
 * Einsum reuse off, and reports, per strategy and number of Einsums, the
 * time to come within --within percent (default 5) of ffm's optimum, each
 * run stopping there or at the budget (a time-out); the paper's rule
 * averages the runs, those timed out counted as finishing in ffm's time,
 * unless more than half time out (Fig. 9; --plot draws it).
 *
 * Ctrl-C, SIGTERM and --timeout end the comparison cleanly: the runs done
 * so far are reported, marked as interrupted. A strategy that beats ffm's
 * optimum is reported as the bug it is (exit code 1). A progress line
 * (phase, run, budget spent) is drawn on a terminal.
 * Exit codes: 0 ok, 1 when the problem does not load, ffm or a strategy
 * fails, or nothing fits, 2 for usage errors.
 *
 * The sweep is in ffm-cmd-compare-sweep.c; what both share is in
 * ffm-cmd-compare-private.h. */
#include "ffm-cmd-compare-private.h"

#include "ffm-cli-mpi.h"
#include "ffm-cli-mpi-points.h"
#include "ffm-cli-output.h"
#include "ffm-plot.h"

#include <math.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define DEFAULT_STRATEGIES "ffm,set,tileflow,random"
#define DEFAULT_CHECKPOINTS "1,10,100,1000"
#define DEFAULT_BUDGET "1000x"
#define DEFAULT_WITHIN 5.0
#define MAX_RUNS 10000
/* Seeds of run r: seed + SEED_STRIDE x r (the parts of one run use seed,
 * seed + 1, ...: runs must not share them). */
#define SEED_STRIDE 1000
/* TUNING: points of the plotted curves, log-spaced in time. */
#define PLOT_POINTS 80
/* Fig. 8's axes: time to 10,000 x ffm's (the paper's), percent above the
 * optimum down to PLOT_FLOOR (a log axis has no 0: a run at the optimum
 * is drawn there). */
#define PLOT_X_MAX 1e4
#define PLOT_FLOOR 0.01
/* Relative slack below which a baseline "beating" ffm is a rounding
 * difference, not a bug (the model's sums are exact: this is generous). */
#define BEAT_SLACK 1e-12
/* Checkpoints compare times with this relative slack (the budget's last
 * charge lands on it up to rounding). */
#define TIME_SLACK 1e-9

static const char compare_description[] =
  "Runs ffm once and each other strategy --runs times on the same problem,\n"
  "cost model, mapspace and budget, and reports how far above ffm's optimum\n"
  "each gets by 1x, 10x, 100x, 1000x ffm's time (modelled as in the FFM\n"
  "paper, and wall-clock), the baselines' space and charge stated; with\n"
  "--sweep-einsums, the time to within --within %% of the optimum against\n"
  "the number of Einsums. Examples:\n"
  "  ffm compare --arch tpuv4i --workload matmuls --param n_einsums=3 \\\n"
  "    --runs 5 --budget 100x --plot convergence.svg\n"
  "  ffm compare --arch tpuv4i --workload matmul-chain --sweep-einsums 2,4,8 \\\n"
  "    --runs 10 --budget 1000x --plot fig9.svg\n"
  "See docs/compare.md.";


static void
run_clear (gpointer data)
{
  Run *r = data;

  g_clear_pointer (&r->result, ffm_search_result_free);
}

static void
entry_free (gpointer data)
{
  Entry *e = data;

  ffm_cli_search_clear (&e->search);
  if (e->runs != NULL)
    g_array_unref (e->runs);
  g_free (e);
}

void
ffm_compare_clear (Comparison *c)
{
  ffm_cli_search_clear (&c->ffm_search);
  g_clear_pointer (&c->entries, g_ptr_array_unref);
  run_clear (&c->ffm);
  g_clear_pointer (&c->ms, ffm_mapspace_unref);
  g_clear_pointer (&c->stopped, g_free);
}

static double
objective_of (const FfmCostReport *r, FfmObjective objective)
{
  return ffm_objective_value (objective, ffm_cost_report_get_energy (r),
                              ffm_cost_report_get_latency (r));
}

/* Returns memory the last phase freed to the system, so that the next
 * phase's peak is its own (glibc keeps freed heap otherwise). */
void
ffm_compare_give_back_memory (void)
{
#ifdef __GLIBC__
  malloc_trim (0);
#endif
}

/* ---- Reading traces ---- */

static double
trace_time (const FfmTracePoint *p, gboolean wall, double offset)
{
  return wall ? p->seconds + offset : p->modelled_seconds;
}

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
      if (trace_time (p, wall, offset) <= limit * (1 + TIME_SLACK))
        best = MIN (best, p->best_objective);
    }
  return best;
}

/* Whether run @r got to time @limit: a run that ended by itself (its
 * budget spent, its target reached, nothing left to try) stands at its end
 * from then on; one stopped by Ctrl-C, SIGTERM or --timeout reached only
 * the time its trace ends at. */
static gboolean
run_reached (const Run *r, double limit, gboolean wall, double offset)
{
  const GArray *trace;

  if (r->result == NULL)
    return FALSE;
  if (!r->interrupted)
    return TRUE;
  trace = ffm_search_result_get_trace (r->result);
  return trace->len > 0
    && trace_time (&g_array_index (trace, FfmTracePoint, trace->len - 1), wall, offset)
       >= limit * (1 - TIME_SLACK);
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

static double
median_of (double *v, guint n)
{
  qsort (v, n, sizeof (double), compare_doubles);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Over the runs that reached time @limit: the median (a run without a
 * mapping by then counts as infinitely far), min and max of those with
 * one. */
static Spread
spread_at (const Entry *e, double optimum, double limit, gboolean wall, double offset)
{
  g_autofree double *v = g_new (double, MAX (e->runs->len, 1));
  Spread s = { INFINITY, INFINITY, INFINITY, 0, 0 };
  guint n = 0;

  for (guint i = 0; i < e->runs->len; i++)
    {
      const Run *r = &g_array_index (e->runs, Run, i);
      if (run_reached (r, limit, wall, offset))
        v[n++] = percent_above (best_by (r->result, limit, wall, offset), optimum);
    }
  s.reached = n;
  if (n == 0)
    return s;
  s.median = median_of (v, n);
  for (guint i = 0; i < n; i++)
    s.with_mapping += isfinite (v[i]);
  if (s.with_mapping > 0)
    {
      s.low = v[0];
      s.high = v[s.with_mapping - 1];
    }
  return s;
}

/* The modelled time at which @result first came within @target (an
 * objective), INFINITY if it never did. */
double
ffm_compare_time_to (const FfmSearchResult *result, double target)
{
  const GArray *trace = ffm_search_result_get_trace (result);

  for (guint i = 0; i < trace->len; i++)
    {
      const FfmTracePoint *p = &g_array_index (trace, FfmTracePoint, i);
      if (p->best_objective <= target)
        return p->modelled_seconds;
    }
  return INFINITY;
}

/* ---- Options ---- */

static gboolean
parse_positive_list (const char *option, const char *text, gboolean integers,
                     GArray *out, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *end = NULL;
      double v = g_ascii_strtod (g_strstrip (parts[i]), &end);
      if (end == parts[i] || *end != '\0' || !(v > 0) || !isfinite (v)
          || (integers && (v != floor (v) || v > 100000)))
        {
          g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                       "%s takes %s separated by commas; got '%s'", option,
                       integers ? "numbers of Einsums from 1 to 100000 (e.g. 2,4,8)"
                       : "positive multiples of ffm's time (e.g. 1,10,100)", parts[i]);
          return FALSE;
        }
      for (guint k = 0; k < out->len; k++)
        if (g_array_index (out, double, k) == v)
          {
            g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                         "%s gives %s twice", option, parts[i]);
            return FALSE;
          }
      g_array_append_val (out, v);
    }
  if (out->len == 0)
    {
      g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                   "%s is empty", option);
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

static gboolean
has_param (char **params, const char *key)
{
  for (guint i = 0; params != NULL && params[i] != NULL; i++)
    if (g_str_has_prefix (params[i], key) && params[i][strlen (key)] == '=')
      return TRUE;
  return FALSE;
}

/* ---- Progress ---- */

static void
phase_progress (double fraction, const char *phase, gpointer data)
{
  const Phase *p = data;
  char text[320];

  g_snprintf (text, sizeof text, "%s: %s", p->prefix, phase != NULL ? phase : "");
  ffm_cli_progress_update (fraction, text, p->progress);
}

static void
phase_set (Phase *p, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
phase_set (Phase *p, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_vsnprintf (p->prefix, sizeof p->prefix, format, args);
  va_end (args);
  ffm_cli_progress_update (-1, p->prefix, p->progress);
}

/* ---- The baselines' space and charge ---- */

static const char *
space_text (FfmMapspaceSpace space)
{
  return space == FFM_MAPSPACE_SPACE_PRUNED
    ? "the pmappings ffm joins (its cross-Einsum pruning: joinable only)"
    : "every Pareto-optimal pmapping of each Einsum per compatibility, no "
      "cross-Einsum pruning";
}

static const char *
charge_text (FfmMapspaceCharge charge)
{
  return charge == FFM_MAPSPACE_CHARGE_EVALUATION
    ? "one pmapping evaluation per queried pmapping (the paper's text)"
    : "the pmappings the generator evaluated per Pareto pmapping it kept, per "
      "queried pmapping of that Einsum (the FFM authors' code)";
}

static const char *
timing_text (FfmMapspaceSpace space)
{
  return space == FFM_MAPSPACE_SPACE_PRUNED
    ? "the generator's thread time per pmapping it evaluated"
    : "measured with the generator's pruning off";
}

/* States one x ffm's time buys: T over one state's modelled
 * time (its query weight x the time of one evaluation / the threads). */
static double
states_per_ffm_time (const FfmMapspace *ms, double ffm_seconds, guint threads)
{
  double state = ffm_mapspace_get_state_query_weight (ms)
    * ffm_mapspace_get_seconds_per_pmapping (ms) / MAX (threads, 1);

  return state > 0 ? ffm_seconds / state : INFINITY;
}

static void
print_space (const Comparison *c, guint threads)
{
  const FfmMapspace *ms = c->ms;
  FfmWorkload *w = ffm_mapspace_get_workload (ms);
  guint64 pmappings = 0, evaluated = 0;
  guint groups = 0, usable_groups = 0, pm_groups = 0;

  g_print ("\nThe baselines' space (--baseline-space %s): %s.\n",
           ffm_mapspace_space_to_string (ffm_mapspace_get_space (ms)),
           space_text (ffm_mapspace_get_space (ms)));
  g_print ("A query is charged (--charge %s): %s; one pmapping evaluation takes "
           "%.3g us (%s).\n", ffm_mapspace_charge_to_string (ffm_mapspace_get_charge (ms)),
           charge_text (ffm_mapspace_get_charge (ms)),
           1e6 * ffm_mapspace_get_seconds_per_pmapping (ms),
           timing_text (ffm_mapspace_get_space (ms)));
  g_print ("  %-12s %11s %9s %9s %9s %13s %12s\n", "Einsum", "pmappings", "groups",
           "mapspace", "usable", "evaluated", "charge");
  for (guint x = 0; x < ffm_mapspace_get_n_einsums (ms); x++)
    {
      FfmMapspaceEinsumStats st;
      ffm_mapspace_get_einsum_stats (ms, x, &st);
      g_print ("  %-12s %11" G_GUINT64_FORMAT " %9u %9u %9u %13" G_GUINT64_FORMAT " %12.4g\n",
               ffm_workload_get_einsum (w, x)->name, st.pmappings, st.pmapping_groups,
               st.groups, st.usable_groups, st.evaluated, st.query_weight);
      pmappings += st.pmappings;
      pm_groups += st.pmapping_groups;
      groups += st.groups;
      usable_groups += st.usable_groups;
      evaluated += st.evaluated;
    }
  g_print ("  %-12s %11" G_GUINT64_FORMAT " %9u %9u %9u %13" G_GUINT64_FORMAT " %12.4g\n",
           "total", pmappings, pm_groups, groups, usable_groups, evaluated,
           ffm_mapspace_get_state_query_weight (ms));
  g_print ("  (pmappings: Pareto-optimal, kept by the generator; groups: its compatibility "
           "groups; mapspace: a group per loop order, compute unit and copies; usable: in "
           "some compatible state; evaluated: by the generator, the copied Einsum's when "
           "reused; charge: pmapping evaluations per query)\n");
  g_print ("Compatible group combinations 10^%.2f, compatible states (pmapping "
           "combinations) 10^%.2f. A state costs %.4g pmapping evaluations, %.3g s of "
           "modelled time: 1x ffm's time buys %.4g states.\n",
           ffm_mapspace_get_log10_n_combinations (ms), ffm_mapspace_get_log10_n_states (ms),
           ffm_mapspace_get_state_query_weight (ms),
           ffm_mapspace_get_state_query_weight (ms) * ffm_mapspace_get_seconds_per_pmapping (ms)
           / MAX (threads, 1),
           states_per_ffm_time (ms, c->unit_seconds, threads));
}

static void
write_space_json (FfmJsonWriter *b, const Comparison *c, guint threads)
{
  const FfmMapspace *ms = c->ms;
  FfmWorkload *w;

  ffm_json_writer_key (b, "baseline_space");
  if (ms == NULL)
    {
      ffm_json_writer_null (b);
      return;
    }
  w = ffm_mapspace_get_workload (ms);
  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_string (b, "space",
                                 ffm_mapspace_space_to_string (ffm_mapspace_get_space (ms)));
  ffm_json_writer_member_string (b, "space_means", space_text (ffm_mapspace_get_space (ms)));
  ffm_json_writer_member_string (b, "charge",
                                 ffm_mapspace_charge_to_string (ffm_mapspace_get_charge (ms)));
  ffm_json_writer_member_string (b, "charge_means", charge_text (ffm_mapspace_get_charge (ms)));
  ffm_json_writer_member_double (b, "seconds_per_pmapping_evaluation",
                                 ffm_mapspace_get_seconds_per_pmapping (ms));
  ffm_json_writer_member_string (b, "evaluation_time", timing_text (ffm_mapspace_get_space (ms)));
  ffm_json_writer_member_double (b, "log10_compatible_group_combinations",
                                 ffm_mapspace_get_log10_n_combinations (ms));
  ffm_json_writer_member_double (b, "log10_compatible_states",
                                 ffm_mapspace_get_log10_n_states (ms));
  ffm_json_writer_member_double (b, "state_charge",
                                 ffm_mapspace_get_state_query_weight (ms));
  ffm_json_writer_member_double (b, "states_per_ffm_time",
                                 states_per_ffm_time (ms, c->unit_seconds, threads));
  ffm_json_writer_member_double (b, "memory_bytes", (double) ffm_mapspace_get_memory_bytes (ms));
  ffm_json_writer_key (b, "einsums");
  ffm_json_writer_begin_array (b);
  for (guint x = 0; x < ffm_mapspace_get_n_einsums (ms); x++)
    {
      FfmMapspaceEinsumStats st;
      ffm_mapspace_get_einsum_stats (ms, x, &st);
      ffm_json_writer_begin_object_inline (b);
      ffm_json_writer_member_string (b, "einsum", ffm_workload_get_einsum (w, x)->name);
      ffm_json_writer_member_double (b, "pmappings", (double) st.pmappings);
      ffm_json_writer_member_uint (b, "pmapping_groups", st.pmapping_groups);
      ffm_json_writer_member_uint (b, "groups", st.groups);
      ffm_json_writer_member_uint (b, "usable_groups", st.usable_groups);
      ffm_json_writer_member_double (b, "usable_pmappings", (double) st.usable_pmappings);
      ffm_json_writer_member_double (b, "evaluated", (double) st.evaluated);
      ffm_json_writer_member_double (b, "charge_per_query", st.query_weight);
      ffm_json_writer_member_uint (b, "graph_keys", st.keys);
      ffm_json_writer_member_double (b, "graph_links", (double) st.links);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
}

/* ---- Fig. 8: tables, files, plot ---- */

static void
print_spread (const Spread *s, guint runs)
{
  char cell[64];

  if (s->reached == 0)
    g_snprintf (cell, sizeof cell, "not reached");
  else if (!isfinite (s->median))
    g_snprintf (cell, sizeof cell, "-");
  else if (s->reached == 1)
    g_snprintf (cell, sizeof cell, "%.1f", s->median);
  else
    g_snprintf (cell, sizeof cell, "%.1f [%.1f, %.1f]", s->median, s->low, s->high);
  if (s->reached > 0 && s->with_mapping < s->reached && isfinite (s->median))
    {
      gsize len = strlen (cell);
      g_snprintf (cell + len, sizeof cell - len, " (%u/%u)", s->with_mapping, s->reached);
    }
  if (s->reached > 0 && s->reached < runs)
    {
      gsize len = strlen (cell);
      g_snprintf (cell + len, sizeof cell - len, " %u of %u reached", s->reached, runs);
    }
  g_print (" %-26s", cell);
}

static void
print_table (const char *title, const Comparison *c, const GArray *checkpoints,
             guint runs, gboolean wall)
{
  g_print ("\n%s\n  %-10s", title, "strategy");
  for (guint k = 0; k < checkpoints->len; k++)
    {
      g_autofree char *h = g_strdup_printf ("%gx", g_array_index (checkpoints, double, k));
      g_print (" %-26s", h);
    }
  g_print ("\n");
  for (guint i = 0; i < c->entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (c->entries, i);
      g_print ("  %-10s", e->name);
      for (guint k = 0; k < checkpoints->len; k++)
        {
          Spread s = spread_at (e, c->optimum,
                                g_array_index (checkpoints, double, k) * c->unit_seconds,
                                wall, c->offset);
          print_spread (&s, MAX (runs, e->runs->len));
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
  ffm_json_writer_member_uint (b, "runs_reached", s->reached);
  ffm_json_writer_member_uint (b, "runs_with_mapping", s->with_mapping);
  ffm_json_writer_end_object (b);
}

static void
write_run_json (FfmJsonWriter *b, const Run *run, double optimum)
{
  const GArray *stats;

  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_uint (b, "seed", run->seed);
  ffm_json_writer_member_double (b, "objective", run->objective);
  ffm_json_writer_member_double (b, "percent_above_optimum", percent_above (run->objective, optimum));
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

/* The members every comparison's JSON opens with. */
void
ffm_compare_write_header_json (FfmJsonWriter *b, const CompareOptions *o, FfmProblem *problem,
                   const FfmCliSearch *search, const FfmCliSearch *budget, const char *stopped)
{
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
  ffm_json_writer_member_string (b, "baseline_space_option", ffm_mapspace_space_to_string (o->space));
  ffm_json_writer_member_string (b, "charge_option", ffm_mapspace_charge_to_string (o->charge_model));
  ffm_json_writer_member_string (b, "time_unit", ffm_cli_time_unit_to_string (o->unit));
  ffm_json_writer_member_boolean (b, "interrupted", stopped != NULL);
  ffm_json_writer_member_string (b, "stopped_by", stopped);
  ffm_cli_search_write_budget_json (b, budget);
}

static char *
compare_json (const CompareOptions *o, const Comparison *c, const GArray *checkpoints,
              const FfmCliSearch *budget)
{
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
  guint threads = c->ffm_search.context.n_threads;

  ffm_json_writer_begin_object (b);
  ffm_compare_write_header_json (b, o, c->problem, &c->ffm_search, budget, c->stopped);
  ffm_json_writer_key (b, "ffm");
  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_double (b, "optimum", c->optimum);
  ffm_json_writer_member_double (b, "seconds", c->ffm.seconds);
  ffm_json_writer_member_double (b, "cpu_seconds", c->ffm_cpu_seconds);
  ffm_json_writer_member_double (b, "time_unit_seconds", c->unit_seconds);
  if (c->ffm.result != NULL)
    {
      /* Its own pmappings (joinable only, by default), for comparison
       * with the baselines' space. */
      const GArray *stats = ffm_search_result_get_stats (c->ffm.result);
      ffm_json_writer_key (b, "stats");
      ffm_json_writer_begin_object (b);
      for (guint k = 0; k < stats->len; k++)
        {
          const FfmStat *st = &g_array_index (stats, FfmStat, k);
          ffm_json_writer_member_double (b, st->name, st->value);
        }
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_object (b);
  ffm_json_writer_member_double (b, "shared_pmappings_seconds", c->offset);
  write_space_json (b, c, threads);
  ffm_json_writer_key (b, "checkpoints");
  ffm_json_writer_begin_array_inline (b);
  for (guint k = 0; k < checkpoints->len; k++)
    ffm_json_writer_double (b, g_array_index (checkpoints, double, k));
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "strategies");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < c->entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (c->entries, i);
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "name", e->name);
      for (int wall = 0; wall <= 1; wall++)
        {
          ffm_json_writer_key (b, wall ? "at_wall_time" : "at_modelled_time");
          ffm_json_writer_begin_array (b);
          for (guint k = 0; k < checkpoints->len; k++)
            {
              double m = g_array_index (checkpoints, double, k);
              Spread sp = spread_at (e, c->optimum, m * c->unit_seconds, wall, c->offset);
              add_spread_json (b, &sp, m);
            }
          ffm_json_writer_end_array (b);
        }
      ffm_json_writer_key (b, "runs");
      ffm_json_writer_begin_array (b);
      for (guint r = 0; r < e->runs->len; r++)
        write_run_json (b, &g_array_index (e->runs, Run, r), c->optimum);
      ffm_json_writer_end_array (b);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
  return ffm_json_writer_finish (b);
}

static char *
compare_csv (const CompareOptions *o, const Comparison *c, const GArray *checkpoints)
{
  GString *s = g_string_new ("strategy,run,seed,objective,percent_above_optimum,"
                             "evaluations,pmapping_queries,modelled_seconds,wall_seconds,"
                             "interrupted,baseline_space,charge,state_charge,"
                             "seconds_per_pmapping_evaluation");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (int wall = 0; wall <= 1; wall++)
    for (guint k = 0; k < checkpoints->len; k++)
      g_string_append_printf (s, ",percent_at_%gx_%s", g_array_index (checkpoints, double, k),
                              wall ? "wall" : "modelled");
  g_string_append_c (s, '\n');
  for (guint i = 0; i < c->entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (c->entries, i);
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
          g_string_append_printf (s, "%s,", ffm_format_double (percent_above (run->objective,
                                                                              c->optimum), buf));
          g_string_append_printf (s, "%.0f,", ev);
          g_string_append_printf (s, "%s,", ffm_format_double (q, buf));
          g_string_append_printf (s, "%s,", ffm_format_double (m, buf));
          g_string_append_printf (s, "%s,%d,%s,%s,", ffm_format_double (run->seconds, buf),
                                  run->interrupted, ffm_mapspace_space_to_string (o->space),
                                  ffm_mapspace_charge_to_string (o->charge_model));
          /* What one state was charged, and what one charge was worth. */
          g_string_append_printf (s, "%s,", c->ms != NULL
                                  ? ffm_format_double (ffm_mapspace_get_state_query_weight (c->ms), buf)
                                  : "");
          g_string_append (s, c->ms != NULL
                           ? ffm_format_double (ffm_mapspace_get_seconds_per_pmapping (c->ms), buf)
                           : "");
          for (int wall = 0; wall <= 1; wall++)
            for (guint k = 0; k < checkpoints->len; k++)
              {
                double limit = g_array_index (checkpoints, double, k) * c->unit_seconds;
                double v = run_reached (run, limit, wall, c->offset)
                  ? percent_above (best_by (run->result, limit, wall, c->offset), c->optimum)
                  : INFINITY;
                /* Empty: no mapping by then, or the run never got there. */
                g_string_append_printf (s, ",%s", isfinite (v) ? ffm_format_double (v, buf) : "");
              }
          g_string_append_c (s, '\n');
        }
    }
  return g_string_free (s, FALSE);
}

/* Fig. 8: percent above optimal (log) against modelled time over ffm's
 * (log, to 10,000x), the median of each strategy's runs with the band
 * from the best to the worst. */
static gboolean
compare_plot (const char *path, const Comparison *c, GError **error)
{
  g_autoptr (GArray) series = g_array_new (FALSE, TRUE, sizeof (FfmPlotSeries));
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  double lo = INFINITY, hi = 0;
  g_autofree char *objective_name =
    g_ascii_strup (ffm_objective_to_string (c->ffm_search.objective), -1);
  g_autofree char *title = NULL;
  g_autofree char *y_label = g_strdup_printf ("%% above optimal %s (0 drawn at %g %%)",
                                              objective_name, PLOT_FLOOR);
  FfmPlotAxes axes = { NULL, "modelled time / ffm's time", y_label, TRUE, TRUE, 0,
                       0, PLOT_X_MAX, PLOT_FLOOR };
  static const double one = 1, floor_value = PLOT_FLOOR;
  FfmPlotSeries ffm_point = { "ffm (optimal)", 1, &one, &floor_value, NULL, NULL, TRUE };

  title = g_strdup_printf ("%s on %s: %s above the optimum (median and range of the runs)",
                           ffm_workload_get_name (ffm_problem_get_workload (c->problem)),
                           ffm_arch_get_name (ffm_problem_get_arch (c->problem)),
                           objective_name);
  axes.title = title;
  /* The time range: from the first point any run records to the last. */
  for (guint i = 0; i < c->entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (c->entries, i);
      for (guint r = 0; r < e->runs->len; r++)
        {
          const Run *run = &g_array_index (e->runs, Run, r);
          const GArray *trace;
          if (run->result == NULL)
            continue;
          trace = ffm_search_result_get_trace (run->result);
          for (guint p = 0; p < trace->len; p++)
            {
              double t = g_array_index (trace, FfmTracePoint, p).modelled_seconds / c->unit_seconds;
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
      lo = 0.01;
      hi = 10;
    }
  axes.x_min = MIN (lo, 0.1);
  g_array_append_val (series, ffm_point);
  for (guint i = 0; i < c->entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (c->entries, i);
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
          sp = spread_at (e, c->optimum, x[k] * c->unit_seconds, FALSE, 0);
          /* Runs stopped before this time leave it out of the curve. */
          y[k] = sp.reached * 2 > e->runs->len && isfinite (sp.median)
            ? MAX (sp.median, PLOT_FLOOR) : NAN;
          low[k] = isfinite (sp.low) ? MAX (sp.low, PLOT_FLOOR) : NAN;
          high[k] = isfinite (sp.high) ? MAX (sp.high, PLOT_FLOOR) : NAN;
        }
      s.x = x;
      s.y = y;
      s.low = e->runs->len > 1 ? low : NULL;
      s.high = e->runs->len > 1 ? high : NULL;
      g_array_append_val (series, s);
    }
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
 * Every rank prepares the same strategies; rank 0 runs ffm and builds the
 * shared mapspace, then hands out the other runs (item e x runs + r: entry
 * e, run r) with ffm's time (budgets are multiples of it) and its time of
 * one pmapping evaluation (so that every rank charges alike); another rank
 * builds the mapspace itself and sends a run back as text:
 * "ok OBJECTIVE SECONDS INTERRUPTED" or "error" and the message, then one
 * "stat NAME VALUE" and "trace ..." line each (what the outputs read). */

typedef struct {
  const CompareOptions *o;
  GPtrArray *entries;
  FfmMapspace *ms;
  const FfmCliCancel *cancel;
  gboolean accounted;           /* another rank: ms has rank 0's timing */
  /* rank 0: */
  Run *runs;                    /* [entries x runs] */
  GError **errors;              /* [entries x runs], NULL: ran (or never did) */
  gboolean *ran;                /* [entries x runs] */
  GAsyncQueue *back;            /* of item + 1, as each comes back */
} MpiCompare;

static guint64
compare_fingerprint (const CompareOptions *o, const GPtrArray *entries)
{
  g_autofree char *numbers = g_strdup_printf ("%d %" G_GINT64_FORMAT " %d %d", o->runs,
                                              o->run.seed, o->space, o->charge_model);
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
  char *end = NULL;
  double ffm_seconds, seconds_per_pmapping;

  if (item >= m->entries->len * (guint) m->o->runs || shared == NULL)
    return g_strdup ("error\nMPI: rank 0 handed out a run this rank does not have");
  ffm_seconds = g_ascii_strtod (shared, &end);
  seconds_per_pmapping = end != NULL ? g_ascii_strtod (end, NULL) : 0;
  if (!m->accounted)
    {
      ffm_mapspace_set_accounting (m->ms, m->o->charge_model, seconds_per_pmapping);
      m->accounted = TRUE;
    }
  e = m->entries->pdata[item / (guint) m->o->runs];
  search = e->search;
  if (!mpi_run_item (m, item, &search, ffm_seconds, &one, &error))
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
 * hands out (or, for --sweep-einsums, which runs in one process, nothing). */
static int
mpi_serve_runs (const CompareOptions *o, GPtrArray *entries, FfmCliSearch *ffm_search)
{
  g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->search.timeout);
  g_autoptr (FfmMapspace) ms = NULL;
  g_autoptr (GError) error = NULL;
  MpiCompare m = { o, entries, NULL, cancel, FALSE, NULL, NULL, NULL, NULL };

  if (entries->len > 0 && o->sweep_einsums == NULL)
    {
      FfmSearchContext mctx = ffm_search->context;
      mctx.cancel = ffm_cli_cancel_get_flag (cancel);
      mctx.mapspace = NULL;
      if ((ms = ffm_mapspace_new_for_context_with (&mctx, o->space, o->charge_model,
                                                   &error)) == NULL)
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
mpi_share_runs (const CompareOptions *o, Comparison *c, const FfmCliCancel *cancel,
                Phase *phase, int *status)
{
  GPtrArray *entries = c->entries;
  guint n = entries->len * (guint) o->runs;
  g_autofree guint *items = g_new (guint, MAX (n, 1));
  g_autofree Run *runs = g_new0 (Run, MAX (n, 1));
  g_autofree GError **errors = g_new0 (GError *, MAX (n, 1));
  g_autofree gboolean *ran = g_new0 (gboolean, MAX (n, 1));
  g_autoptr (GAsyncQueue) back = g_async_queue_new ();
  g_autoptr (GError) error = NULL;
  MpiCompare m = { o, entries, c->ms, cancel, TRUE, runs, errors, ran, back };
  char shared[2 * G_ASCII_DTOSTR_BUF_SIZE + 2], t[G_ASCII_DTOSTR_BUF_SIZE];

  if (ffm_cli_mpi_is_worker ())
    return FALSE;
  for (guint i = 0; i < n; i++)
    items[i] = i;
  for (guint i = 0; i < entries->len; i++)
    {
      Entry *e = g_ptr_array_index (entries, i);
      if (e->search.budget_multiple > 0)
        ffm_cli_search_set_budget_multiple (&e->search, c->unit_seconds);
    }
  g_ascii_formatd (shared, sizeof shared, "%.17g", c->unit_seconds);
  g_strlcat (shared, " ", sizeof shared);
  g_strlcat (shared, g_ascii_formatd (t, sizeof t, "%.17g",
                                      ffm_mapspace_get_seconds_per_pmapping (c->ms)),
             sizeof shared);
  if (!ffm_cli_mpi_points_share (COMMAND, "runs", "ffm compare: MPI: stopped by the "
                                 "launcher (a rank died, a node was lost, or the job "
                                 "was cancelled): no comparison\n", shared, items, n,
                                 compare_fingerprint (o, entries), 1,
                                 ffm_cli_cancel_get_flag (cancel), mpi_run_here,
                                 mpi_result, &m))
    return FALSE;
  for (guint k = 0; k < n; k++)
    {
      char text[64];
      g_snprintf (text, sizeof text, "%u of %u runs over MPI ranks", k, n);
      phase_progress ((double) k / n, text, phase);
      g_async_queue_pop (back);
    }
  *status = FFM_EXIT_OK;
  if (!ffm_cli_mpi_points_finish (&error))
    *status = ffm_cli_fail (COMMAND, error);
  for (guint k = 0; k < n && *status == FFM_EXIT_OK && c->stopped == NULL; k++)
    {
      Entry *e = g_ptr_array_index (entries, k / (guint) o->runs);
      int r = (int) (k % (guint) o->runs);
      if (!ran[k] && errors[k] == NULL)
        c->stopped = g_strdup (ffm_cli_cancel_describe (cancel) != NULL
                               ? ffm_cli_cancel_describe (cancel) : "stopped");
      else if (!ran[k])
        {
          g_prefix_error (&errors[k], "%s, run %d (seed %" G_GUINT64_FORMAT "): ", e->name,
                          r + 1, runs[k].seed);
          *status = ffm_cli_fail (COMMAND, errors[k]);
        }
      else
        {
          if (runs[k].objective < c->optimum * (1 - BEAT_SLACK))
            {
              ffm_cli_warn (COMMAND, "%s (seed %" G_GUINT64_FORMAT ") found %.17g, "
                            "below ffm's optimum %.17g: a bug in one of them",
                            e->name, runs[k].seed, runs[k].objective, c->optimum);
              c->beaten = TRUE;
            }
          g_array_append_val (e->runs, runs[k]);
          runs[k].result = NULL;          /* the entry's now */
          if (runs[k].interrupted)
            c->stopped = g_strdup (ffm_cli_cancel_describe (cancel));
        }
    }
  for (guint k = 0; k < n; k++)
    {
      run_clear (&runs[k]);
      g_clear_error (&errors[k]);
    }
  return TRUE;
}

/* ---- One comparison ---- */

/* T after ffm's run: its wall time, its CPU time over its threads (what
 * its wall time is on an unloaded machine, and stays under load), or the
 * seconds given. A CPU time too short for the clock to see falls back to
 * the wall time, said on stderr. */
static void
set_unit (const CompareOptions *o, Comparison *c)
{
  guint threads = MAX (c->ffm_search.context.n_threads, 1);

  c->unit_seconds = c->ffm.seconds;
  if (o->unit == FFM_CLI_TIME_UNIT_GIVEN)
    c->unit_seconds = o->unit_given;
  else if (o->unit == FFM_CLI_TIME_UNIT_CPU && c->ffm_cpu_seconds > 0)
    c->unit_seconds = c->ffm_cpu_seconds / threads;
  else if (o->unit == FFM_CLI_TIME_UNIT_CPU)
    ffm_cli_warn (COMMAND, "--budget-reference cpu: ffm's CPU time was too short to "
                  "measure; its wall time (%.3g s) is T", c->ffm.seconds);
}

/* Prepares ffm and every other strategy of @names on @problem (borrowed:
 * it outlives @c). @ffm_reuse_off: ffm enumerates every Einsum (unless
 * --strategy-param ffm.reuse says otherwise). */
int
ffm_compare_prepare (GOptionContext *context, CompareOptions *o, FfmPluginRegistry *registry,
                    FfmProblem *problem, char **names, gboolean ffm_reuse_off, Comparison *c)
{
  g_autoptr (GError) error = NULL;
  int status;

  memset (c, 0, sizeof *c);
  c->problem = problem;
  c->entries = g_ptr_array_new_with_free_func (entry_free);
  /* Timeloop's constraints from a timeloop: --arch join every search's. */
  o->search.timeloop_arch = o->problem.arch;
  {
    FfmCliSearchOptions so = o->search;
    g_auto (GStrv) params = params_for (o->search.strategy_params, "ffm");
    g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
    g_auto (GStrv) all = NULL;
    g_strv_builder_addv (b, (const char **) params);
    if (ffm_reuse_off && !has_param (params, "reuse"))
      g_strv_builder_add (b, "reuse=false");
    all = g_strv_builder_end (b);
    so.strategy = (char *) "ffm";
    so.strategy_params = all;
    status = ffm_cli_search_prepare (context, COMMAND, &so, &o->run, registry,
                                     problem, &c->ffm_search);
    if (status != FFM_EXIT_OK)
      return status;
    if (!ffm_param_values_validate (c->ffm_search.strategy_values,
                                    c->ffm_search.plugin->descriptor->vtable.search->params,
                                    "ffm", &error))
      return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
    if (c->ffm_search.objective == FFM_OBJECTIVE_PARETO)
      return ffm_cli_usage_error (context, COMMAND, "compare ranks by one objective "
                                  "(edp, energy or latency), not the Pareto front");
  }
  for (guint i = 0; names[i] != NULL; i++)
    {
      FfmCliSearchOptions so = o->search;
      g_auto (GStrv) params = NULL;
      Entry *e;
      if (g_str_equal (names[i], "ffm"))
        continue;
      params = params_for (o->search.strategy_params, names[i]);
      so.strategy = names[i];
      so.strategy_params = params;
      e = g_new0 (Entry, 1);
      e->name = names[i];
      e->runs = g_array_new (FALSE, TRUE, sizeof (Run));
      g_array_set_clear_func (e->runs, run_clear);
      g_ptr_array_add (c->entries, e);
      status = ffm_cli_search_prepare (context, COMMAND, &so, &o->run, registry,
                                       problem, &e->search);
      if (status == FFM_EXIT_OK
          && !ffm_param_values_validate (e->search.strategy_values,
                                         e->search.plugin->descriptor->vtable.search->params,
                                         names[i], &error))
        status = ffm_cli_usage_error (context, COMMAND, "%s", error->message);
      if (status != FFM_EXIT_OK)
        return status;
    }
  return FFM_EXIT_OK;
}

/* Runs ffm, builds the shared mapspace, then every other strategy's runs
 * (@target_percent > 0: each run stops once within that of the optimum).
 * Returns an exit status; an interruption is not a failure (c->stopped
 * says it), unless ffm had not finished. */
int
ffm_compare_run (const CompareOptions *o, Comparison *c, const FfmCliCancel *cancel,
                Phase *phase, const char *what, double target_percent)
{
  g_autoptr (GError) error = NULL;
  FfmSearchContext mctx;
  gint64 t0;
  int status = FFM_EXIT_OK;

  c->ffm_search.context.progress = phase_progress;
  c->ffm_search.context.progress_data = phase;
  c->ffm_search.context.cancel = ffm_cli_cancel_get_flag (cancel);
  phase_set (phase, "%sffm", what);
  c->ffm_cpu_seconds = ffm_cli_process_cpu_seconds ();
  if (!run_once (&c->ffm_search, c->ffm_search.context.seed, NULL, cancel, &c->ffm, &error))
    {
      if (ffm_cli_cancel_get_reason (cancel) != FFM_CLI_STOP_NONE)
        g_prefix_error (&error, "%s before ffm finished: ", ffm_cli_cancel_describe (cancel));
      else
        g_prefix_error (&error, "ffm: ");
      return ffm_cli_fail (COMMAND, error);
    }
  c->ffm_done = TRUE;
  c->ffm_cpu_seconds = ffm_cli_process_cpu_seconds () - c->ffm_cpu_seconds;
  c->optimum = c->ffm.objective;
  set_unit (o, c);
  ffm_compare_give_back_memory ();

  /* One mapspace for every other run: the pmappings are the same. */
  t0 = g_get_monotonic_time ();
  mctx = c->ffm_search.context;
  mctx.mapspace = NULL;
  phase_set (phase, "%sshared pmappings (--baseline-space %s)", what,
             ffm_mapspace_space_to_string (o->space));
  if (c->entries->len > 0
      && (c->ms = ffm_mapspace_new_for_context_with (&mctx, o->space, o->charge_model,
                                                     &error)) == NULL)
    {
      if (ffm_cli_cancel_get_reason (cancel) == FFM_CLI_STOP_NONE)
        return ffm_cli_fail (COMMAND, error);
      c->stopped = g_strdup (ffm_cli_cancel_describe (cancel));
    }
  c->offset = (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;
  if (c->stopped != NULL)
    return FFM_EXIT_OK;
  if (target_percent <= 0 && c->ms != NULL && mpi_share_runs (o, c, cancel, phase, &status))
    return status;
  for (guint i = 0; i < c->entries->len && c->stopped == NULL; i++)
    {
      Entry *e = g_ptr_array_index (c->entries, i);
      if (e->search.budget_multiple > 0)
        ffm_cli_search_set_budget_multiple (&e->search, c->unit_seconds);
      e->search.context.progress = phase_progress;
      e->search.context.progress_data = phase;
      e->search.context.cancel = ffm_cli_cancel_get_flag (cancel);
      if (target_percent > 0)
        e->search.context.target_objective = c->optimum * (1 + target_percent / 100);
      for (int r = 0; r < o->runs && c->stopped == NULL; r++)
        {
          guint64 seed = (guint64) o->run.seed + SEED_STRIDE * (guint64) r;
          Run one;
          phase_set (phase, "%s%s run %d of %d", what, e->name, r + 1, o->runs);
          if (!run_once (&e->search, seed, c->ms, cancel, &one, &error))
            {
              if (ffm_cli_cancel_get_reason (cancel) != FFM_CLI_STOP_NONE)
                {
                  c->stopped = g_strdup (ffm_cli_cancel_describe (cancel));
                  g_clear_error (&error);
                  break;
                }
              g_prefix_error (&error, "%s, run %d (seed %" G_GUINT64_FORMAT "): ", e->name,
                              r + 1, seed);
              return ffm_cli_fail (COMMAND, error);
            }
          if (one.objective < c->optimum * (1 - BEAT_SLACK))
            {
              ffm_cli_warn (COMMAND, "%s (seed %" G_GUINT64_FORMAT ") found %.17g, "
                            "below ffm's optimum %.17g: a bug in one of them",
                            e->name, one.seed, one.objective, c->optimum);
              c->beaten = TRUE;
            }
          g_array_append_val (e->runs, one);
          if (one.interrupted)
            c->stopped = g_strdup (ffm_cli_cancel_describe (cancel));
        }
    }
  return FFM_EXIT_OK;
}

/* "1000x ffm's time (131 s of modelled time)" and the like (transfer full). */
char *
ffm_compare_budget_text (const FfmCliSearch *ref)
{
  if (ref->budget_multiple > 0)
    return g_strdup_printf ("%gx ffm's time (%.4g s of modelled time)",
                            ref->budget_multiple, ref->context.max_modelled_seconds);
  if (ref->context.max_modelled_seconds > 0)
    return g_strdup_printf ("%.4g s of modelled time", ref->context.max_modelled_seconds);
  return g_strdup_printf ("%" G_GUINT64_FORMAT " evaluations, %g s of wall time "
                          "(0 = none)", ref->context.max_evaluations,
                          ref->context.max_seconds);
}

const FfmCliSearch *
ffm_compare_budget_reference (const Comparison *c)
{
  return c->entries->len > 0 ? &((Entry *) g_ptr_array_index (c->entries, 0))->search
    : &c->ffm_search;
}

/* The single comparison's report: tables on stdout, the files asked for. */
static int
comparison_report (const CompareOptions *o, const Comparison *c, const GArray *checkpoints)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *budget = ffm_compare_budget_text (ffm_compare_budget_reference (c));
  guint threads = c->ffm_search.context.n_threads;

  if (o->data_to_stdout)
    {
      if (c->stopped != NULL)
        ffm_cli_warn (COMMAND, "%s; the data hold the runs done so far", c->stopped);
      goto files;
    }
  g_print ("Comparison on %s / %s, objective %s, %d run%s per strategy, budget %s\n",
           ffm_workload_get_name (ffm_problem_get_workload (c->problem)),
           ffm_arch_get_name (ffm_problem_get_arch (c->problem)),
           ffm_objective_to_string (c->ffm_search.objective), o->runs, o->runs > 1 ? "s" : "",
           budget);
  g_print ("ffm: optimum %.6g in %.3g s (wall; %.3g s of CPU time over %u thread%s: "
           "%.3g s on an unloaded machine); shared pmappings and mapspace for the "
           "others %.3g s\n", c->optimum, c->ffm.seconds, c->ffm_cpu_seconds, threads,
           threads != 1 ? "s" : "", c->ffm_cpu_seconds / MAX (threads, 1), c->offset);
  g_print ("T, the unit of the budget and the checkpoints (--budget-reference %s): %.4g s\n",
           o->search.budget_reference != NULL ? o->search.budget_reference : "wall",
           c->unit_seconds);
  if (c->ffm.result != NULL)
    {
      double rows = 0, groups = 0, dropped = 0;
      if (ffm_search_result_lookup_stat (c->ffm.result, "pmappings_generated", &rows)
          && ffm_search_result_lookup_stat (c->ffm.result, "pmapping_groups", &groups))
        {
          ffm_search_result_lookup_stat (c->ffm.result, "pmapping_groups_unjoinable", &dropped);
          g_print ("ffm's own pmappings: %.0f in %.0f groups (%.0f groups no join could use "
                   "left out)\n", rows, groups, dropped);
        }
    }
  if (c->ms != NULL)
    print_space (c, threads);
  if (c->stopped != NULL)
    g_print ("\nINTERRUPTED: %s; the tables hold the runs done so far, each up to where "
             "it stopped.\n", c->stopped);
  print_table ("Percent above ffm's optimum by k x ffm's time, modelled as in the "
               "paper (median [min, max] over runs):", c, checkpoints, (guint) o->runs, FALSE);
  print_table ("Same by wall-clock time (shared pmapping generation included):",
               c, checkpoints, (guint) o->runs, TRUE);
files:
  if (o->json != NULL || o->visual.html != NULL)
    {
      g_autofree char *text = compare_json (o, c, checkpoints, ffm_compare_budget_reference (c));
      if ((o->json != NULL && !ffm_cli_output_write (o->json, text, &error))
          || (o->visual.html != NULL && !ffm_html_write_compare (o->visual.html, text, &error)))
        return ffm_cli_fail (COMMAND, error);
    }
  if (o->csv != NULL)
    {
      g_autofree char *text = compare_csv (o, c, checkpoints);
      if (!ffm_cli_output_write (o->csv, text, &error))
        return ffm_cli_fail (COMMAND, error);
    }
  if (o->trace_csv != NULL)
    {
      g_autoptr (GString) text = g_string_new (NULL);
      g_autofree char *first = ffm_cli_trace_to_csv (c->ffm.result, "ffm", 0, TRUE);
      g_string_append (text, first);
      for (guint i = 0; i < c->entries->len; i++)
        {
          const Entry *e = g_ptr_array_index (c->entries, i);
          for (guint r = 0; r < e->runs->len; r++)
            {
              g_autofree char *part = ffm_cli_trace_to_csv (g_array_index (e->runs, Run, r).result,
                                                            e->name, r, FALSE);
              g_string_append (text, part);
            }
        }
      if (!ffm_cli_output_write (o->trace_csv, text->str, &error))
        return ffm_cli_fail (COMMAND, error);
    }
  if (o->plot != NULL && !compare_plot (o->plot, c, &error))
    return ffm_cli_fail (COMMAND, error);
  return c->beaten ? FFM_EXIT_FAILURE : FFM_EXIT_OK;
}

/* ---- The command ---- */

/* Checks --strategies and --strategy-param (names known, none twice). */
static int
check_names (GOptionContext *context, CompareOptions *o, char **names)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      if (*g_strstrip (names[i]) == '\0')
        return ffm_cli_usage_error (context, COMMAND, "--strategies has an empty name");
      for (guint j = 0; j < i; j++)
        if (g_str_equal (names[i], names[j]))
          return ffm_cli_usage_error (context, COMMAND, "--strategies names %s twice",
                                      names[i]);
    }
  for (guint i = 0; o->search.strategy_params != NULL && o->search.strategy_params[i] != NULL; i++)
    {
      const char *p = o->search.strategy_params[i];
      gboolean known = g_str_has_prefix (p, "ffm.");
      for (guint j = 0; names[j] != NULL && !known; j++)
        known = g_str_has_prefix (p, names[j]) && p[strlen (names[j])] == '.';
      if (!known)
        return ffm_cli_usage_error (context, COMMAND, "--strategy-param %s: write "
                                    "NAME.KEY=VALUE with NAME ffm or one of --strategies", p);
    }
  return FFM_EXIT_OK;
}

static int
run (GOptionContext *context, CompareOptions *o)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (FfmProblem) problem = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) checkpoints = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (double));
  g_auto (GStrv) names = NULL;
  Comparison c = { 0 };
  FfmCliStopReason stop_reason = FFM_CLI_STOP_NONE;
  int status;

  if (o->search.strategy != NULL)
    return ffm_cli_usage_error (context, COMMAND, "compare takes --strategies "
                                "NAME,NAME,... (not --strategy)");
  if (o->runs < 1 || o->runs > MAX_RUNS)
    return ffm_cli_usage_error (context, COMMAND, "--runs must be from 1 to %d", MAX_RUNS);
  if (!parse_positive_list ("--checkpoints", o->checkpoints != NULL ? o->checkpoints
                            : DEFAULT_CHECKPOINTS, FALSE, checkpoints, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (o->baseline_space != NULL
      && !ffm_mapspace_space_from_string (o->baseline_space, &o->space, &error))
    return ffm_cli_usage_error (context, COMMAND, "--baseline-space: %s", error->message);
  if (o->charge != NULL
      && !ffm_mapspace_charge_from_string (o->charge, &o->charge_model, &error))
    return ffm_cli_usage_error (context, COMMAND, "--charge: %s", error->message);
  if (!(o->within > 0 && o->within <= 1e6))
    return ffm_cli_usage_error (context, COMMAND, "--within takes a percentage above "
                                "the optimum, more than 0 (e.g. 5)");
  if (o->sweep_einsums != NULL
      && !parse_positive_list ("--sweep-einsums", o->sweep_einsums, TRUE, sizes, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (o->search.budget_reference != NULL
      && !ffm_cli_parse_budget_reference (o->search.budget_reference, &o->unit,
                                          &o->unit_given, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (o->sweep_einsums != NULL && o->unit == FFM_CLI_TIME_UNIT_GIVEN)
    return ffm_cli_usage_error (context, COMMAND, "--budget-reference takes wall or cpu "
                                "with --sweep-einsums (each size has its own T)");
  if (o->sweep_einsums != NULL && o->trace_csv != NULL)
    return ffm_cli_usage_error (context, COMMAND, "--trace-csv is for one comparison, "
                                "not --sweep-einsums (its --json holds every run's time)");
  if (o->sweep_einsums != NULL && o->visual.html != NULL)
    return ffm_cli_usage_error (context, COMMAND, "--html is for one comparison, not "
                                "--sweep-einsums (its --plot draws Fig. 9)");
  if (o->search.budget == NULL && o->search.max_evaluations == 0 && o->search.max_seconds == 0)
    o->search.budget = g_strdup (DEFAULT_BUDGET);
  if (!ffm_cli_output_paths_check (&o->data_to_stdout, &error, "--json", o->json,
                                   "--csv", o->csv, "--trace-csv", o->trace_csv,
                                   "--plot", o->plot, "--html", o->visual.html,
                                   "--diagram", o->visual.diagram,
                                   "--diagram-dot", o->visual.diagram_dot, NULL))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
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
          if (g_array_index (checkpoints, double, k) > multiple * (1 + TIME_SLACK))
            g_array_remove_index (checkpoints, k);
        if (checkpoints->len == 0)
          g_array_append_val (checkpoints, multiple);
      }
  }
  names = g_strsplit (o->strategies != NULL ? o->strategies : DEFAULT_STRATEGIES, ",", -1);
  if (names[0] == NULL)
    return ffm_cli_usage_error (context, COMMAND, "--strategies is empty (name "
                                "at least one strategy, e.g. " DEFAULT_STRATEGIES ")");
  status = check_names (context, o, names);
  if (status != FFM_EXIT_OK)
    return status;
  registry = ffm_cli_registry_new (&o->common);
  if (o->sweep_einsums != NULL && !ffm_cli_mpi_is_worker ())
    return ffm_compare_run_sweep (context, o, registry, names, sizes);
  status = ffm_cli_load_problem (context, COMMAND, registry, &o->problem, &problem);
  if (status != FFM_EXIT_OK)
    return status;
  status = ffm_compare_prepare (context, o, registry, problem, names, FALSE, &c);
  if (status != FFM_EXIT_OK)
    goto out;
  /* Under mpirun the other ranks only run what rank 0 hands out. */
  if (ffm_cli_mpi_is_worker ())
    {
      status = mpi_serve_runs (o, c.entries, &c.ffm_search);
      goto out;
    }
  {
    g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->search.timeout);
    g_autoptr (FfmCliProgress) progress = ffm_cli_progress_start (COMMAND, TRUE);
    Phase phase = { progress, "" };
    status = ffm_compare_run (o, &c, cancel, &phase, "", 0);
    stop_reason = ffm_cli_cancel_get_reason (cancel);
  }
  if (status == FFM_EXIT_OK)
    {
      status = comparison_report (o, &c, checkpoints);
      /* A stopped comparison wrote what it has, but is not complete. */
      if (status == FFM_EXIT_OK && c.stopped != NULL)
        status = ffm_cli_stop_exit_code (stop_reason);
    }
  else if (stop_reason != FFM_CLI_STOP_NONE && !c.ffm_done)
    status = ffm_cli_stop_exit_code (stop_reason);   /* stopped before ffm finished */

out:
  ffm_compare_clear (&c);
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
  CompareOptions o = { .common = FFM_CLI_COMMON_INIT, .run = FFM_CLI_RUN_OPTIONS_INIT,
                       .problem = FFM_CLI_PROBLEM_OPTIONS_INIT,
                       .search = FFM_CLI_SEARCH_OPTIONS_INIT, .runs = 10,
                       .within = DEFAULT_WITHIN, .visual = FFM_CLI_VISUAL_OPTIONS_INIT,
                       .space = FFM_MAPSPACE_SPACE_PAPER,
                       .charge_model = FFM_MAPSPACE_CHARGE_EXPLORED,
                       .unit = FFM_CLI_TIME_UNIT_WALL };
  const GOptionEntry entries[] = {
    { "strategies", 0, 0, G_OPTION_ARG_STRING, &o.strategies,
      "Strategies to compare, separated by commas (default " DEFAULT_STRATEGIES
      "); ffm always runs, as the reference", "NAME,..." },
    { "runs", 0, 0, G_OPTION_ARG_INT, &o.runs,
      "Runs of each strategy other than ffm, with seeds S, S+1000, ... (default 10)", "N" },
    { "checkpoints", 0, 0, G_OPTION_ARG_STRING, &o.checkpoints,
      "Multiples of ffm's time the tables report (default " DEFAULT_CHECKPOINTS ")", "K,..." },
    { "baseline-space", 0, 0, G_OPTION_ARG_STRING, &o.baseline_space,
      "The pmappings the other strategies search: paper (default: every Pareto-optimal "
      "pmapping of each Einsum per compatibility, without ffm's cross-Einsum pruning; "
      "one evaluation timed with the generator's pruning off) or pruned (the pmappings "
      "ffm joins; the generator's time per evaluation)", "paper|pruned" },
    { "charge", 0, 0, G_OPTION_ARG_STRING, &o.charge,
      "What a query of one pmapping costs the other strategies: explored (default: the "
      "pmappings the generator evaluated per Pareto pmapping of that Einsum, the FFM "
      "authors' code) or evaluation (one pmapping evaluation, the paper's text)",
      "explored|evaluation" },
    { "sweep-einsums", 0, 0, G_OPTION_ARG_STRING, &o.sweep_einsums,
      "Compare once per number of Einsums (the workload's parameter n_einsums, e.g. "
      "--workload matmul-chain) and report the time to within --within %% of the "
      "optimum against it (the FFM paper's Fig. 9); ffm's Einsum reuse off", "N,..." },
    { "within", 0, 0, G_OPTION_ARG_DOUBLE, &o.within,
      "With --sweep-einsums: the percentage above the optimum a run must reach "
      "(default 5, the paper's); each run stops there", "PERCENT" },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &o.json,
      "Write every run, its statistics and trace, the baselines' space and the tables "
      "as JSON to OUT", "OUT" },
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &o.csv,
      "Write one line per run (result and checkpoints) as CSV to OUT", "OUT" },
    { "trace-csv", 0, 0, G_OPTION_ARG_FILENAME, &o.trace_csv,
      "Write every run's convergence trace as CSV to OUT", "OUT" },
    { "plot", 0, 0, G_OPTION_ARG_FILENAME, &o.plot,
      "Draw percent above optimal against modelled time, log axes (the FFM paper's "
      "Fig. 8; with --sweep-einsums, Fig. 9) to OUT.svg, OUT.png or OUT.pdf", "OUT" },
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
  g_free (o.baseline_space);
  g_free (o.charge);
  g_free (o.sweep_einsums);
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
