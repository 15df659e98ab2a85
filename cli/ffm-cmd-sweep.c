/* ffm-cmd-sweep.c: `ffm sweep`, design-space exploration: the best mapping
 * at every point of a grid of workload and architecture parameters, under
 * one or more policies.
 *
 *   ffm sweep --arch A --workload W [--param K=V]... [--arch-param K=V]...
 *             --sweep K=V1,V2,... [--sweep-arch K=V1,V2,...]... [--zip]
 *             [--policy ffm,transfusion,...] [--objective edp|energy|latency]
 *             [--threads N] [--csv OUT] [--json OUT] [--plot OUT.svg]
 *             [--plot-pareto X,Y] [--html OUT.html]
 *             [constraint options of ffm map]
 *
 * The points are the cartesian product of the --sweep and --sweep-arch
 * lists (with --zip: the lists side by side, all of one length), each run
 * under every policy of --policy ("ffm" = no policy; default ffm), with
 * the ffm strategy and the constraint options on top. One row per point
 * and policy: the swept values, status (ok or failed), energy, latency,
 * EDP, wall time, the tensors passed between Einsums with where each is
 * backed, the energy of each architecture level and of each tensor class
 * (weights, the K and V intermediates, other intermediates, inputs and
 * outputs: the FFM paper's Fig. 12(b), over every memory), and the error
 * of a failed point. A point that fails (its problem does not load, nothing fits under
 * its policy) is recorded and the others go on; the exit code is then 1.
 *
 * Resumable: each finished row is appended to --csv at once, and a sweep
 * started again with the same --csv skips the points the file already
 * holds (ok or failed): after Ctrl-C, a kill or a reboot, running the same
 * command again finishes the sweep. The file is rewritten in point order
 * at the end, so an interrupted and resumed sweep ends with the same rows
 * as an uninterrupted one (times aside). --json writes every row as JSON
 * at the end; --plot draws EDP against the first swept parameter, one line
 * per policy, and beside it the per-point plots of ffm-plot-sweep.h (needs
 * a build with PLplot, checked before any work); --plot-pareto X,Y adds
 * OUT-pareto-X-Y, every point's X against its Y (area, edp, energy,
 * latency) with their Pareto front (ffm-plot-pareto.h). Each row carries
 * the architecture's area (area_m2), which follows the design when the
 * architecture sizes its components with estimators (ffm-estimator.h).
 * --html writes the table, the same plots as SVG and the JSON as one page
 * (ffm-html-report.h).
 *
 * Points run in parallel: min(--threads, points) at a time, the threads
 * shared among them. On a terminal, a progress line shows the points done
 * and an estimate of the time left. Exit codes: 0 every point ok, 1 some
 * point failed, the sweep was stopped, or an output could not be written,
 * 2 usage errors. */
#include "ffm-cli-cancel.h"
#include "ffm-cli-mpi.h"
#include "ffm-cli-mpi-points.h"
#include "ffm-cli-output.h"
#include "ffm-cli-progress.h"
#include "ffm-cli-report.h"
#include "ffm-cli-search.h"
#include "ffm-cli-visual.h"
#include "ffm-plot.h"
#include "ffm-plot-sweep.h"
#include "ffm-plot-pareto.h"
#include "ffm-bounded-read.h"
#include "ffm-sweep-csv.h"
#include <ffm/ffm-limits.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#define COMMAND "sweep"
/* TUNING: a sweep larger than this is a typo more often than a plan
 * (checked before any work; documented in docs/dse.md). */
#define MAX_POINTS 100000

static const char sweep_text[] =
  "Finds the best mapping at every point of a grid of workload (--sweep) and\n"
  "architecture (--sweep-arch) parameters under each --policy (a comma list;\n"
  "ffm = none), one row per point and policy. Rerun the same command with the\n"
  "same --csv to resume.\n"
  "Example:\n"
  "  ffm sweep --arch edge --workload gpt3-6.7b --sweep new_tokens=512,1024\n"
  "    --policy ffm,transfusion --csv sweep.csv\n";

typedef struct {
  FfmCliCommon common;
  FfmCliRunOptions run;
  FfmCliProblemOptions problem;
  FfmCliSearchOptions search;
  char **sweeps;                /* --sweep K=V1,V2 (owned) */
  char **sweep_archs;           /* --sweep-arch K=V1,V2 (owned) */
  gboolean zip;
  char *csv, *json, *plot;      /* owned */
  char *plot_pareto;            /* --plot-pareto X,Y (owned) */
  FfmCliVisualOptions visual;   /* --html */
} SweepOptions;


typedef struct {
  const SweepOptions *o;
  FfmPluginRegistry *registry;
  const FfmPluginInfo *ffm;
  FfmObjective objective;
  guint64 max_memory;           /* --max-memory, bytes; 0 = the default */
  guint threads_per_point;
  const gint *cancel;
  GAsyncQueue *finished;        /* of Point* */
} Sweep;

/* Reads the rows of a previous run of the same sweep from @path (which may
 * not exist) into the points they match (ffm_sweep_rows_from_text()). */
static gboolean
resume_from_csv (const char *path, const GArray *axes, GPtrArray *points,
                 guint *n_resumed, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) local = NULL;
  gsize length = 0;
  gboolean missing = FALSE;

  *n_resumed = 0;
  text = ffm_read_file_bounded (path, FFM_MAX_SWEEP_CSV_BYTES, &length, &missing,
                                G_FILE_ERROR, G_FILE_ERROR_FAILED, &local);
  if (text == NULL)
    {
      if (missing)
        return TRUE;
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "--csv %s: cannot "
                   "resume from it: %s", path, local->message);
      return FALSE;
    }
  return ffm_sweep_rows_from_text (path, text, length, axes, points, n_resumed, error);
}

/* ---- Which sweep wrote a CSV ----
 * Beside --csv FILE, FILE.sweep records the sweep that wrote it: ffm's
 * version, the inputs (names, and the SHA-256 of every file), the grid,
 * the policies and every option that changes a row, one "key: value" line
 * each. A rerun resumes only from a CSV whose record is its own; any other
 * (another grid, an edited architecture file, no record at all) is
 * refused and left as it is, so that no sweep's rows are lost. */

#define SWEEP_RECORD_HEADER "ffm sweep record 1"

/* "NAME" for a name, "PATH sha256:HEX" for a file (transfer full). */
static char *
input_identity (const char *spec)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autofree char *digest = NULL;

  if (spec == NULL)
    return g_strdup ("-");
  if (!g_file_test (spec, G_FILE_TEST_IS_REGULAR))
    return g_strdup (spec);
  text = ffm_read_file_bounded (spec, FFM_MAX_INPUT_FILE_BYTES, &length, NULL,
                                G_FILE_ERROR, G_FILE_ERROR_FAILED, NULL);
  if (text == NULL)
    return g_strdup_printf ("%s unreadable", spec);
  digest = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text, length);
  return g_strdup_printf ("%s sha256:%s", spec, digest);
}

static void
record_list (GString *r, const char *key, char **items)
{
  g_string_append_printf (r, "%s:", key);
  for (guint i = 0; items != NULL && items[i] != NULL; i++)
    g_string_append_printf (r, "%s%s", i == 0 ? " " : " | ", items[i]);
  g_string_append_c (r, '\n');
}

static void
record_files (GString *r, const char *key, char **files)
{
  g_string_append_printf (r, "%s:", key);
  for (guint i = 0; files != NULL && files[i] != NULL; i++)
    {
      g_autofree char *id = input_identity (files[i]);
      g_string_append_printf (r, "%s%s", i == 0 ? " " : " | ", id);
    }
  g_string_append_c (r, '\n');
}

/* The record of this sweep (transfer full). */
static char *
sweep_record (const SweepOptions *o, const GArray *axes, char **policies)
{
  GString *r = g_string_new (SWEEP_RECORD_HEADER "\n");
  const FfmCliSearchOptions *s = &o->search;
  g_autofree char *arch = input_identity (o->problem.arch);
  g_autofree char *workload = input_identity (o->problem.workload);

  g_string_append_printf (r, "ffm: %s\n", FFM_VERSION_STRING);
  g_string_append_printf (r, "arch: %s\n", arch);
  g_string_append_printf (r, "workload: %s\n", workload);
  record_list (r, "params", o->problem.params);
  record_list (r, "arch params", o->problem.arch_params);
  g_string_append (r, "grid:");
  for (guint i = 0; i < axes->len; i++)
    {
      const Axis *a = &g_array_index (axes, Axis, i);
      g_autofree char *values = g_strjoinv (",", a->values);
      g_string_append_printf (r, "%s%s%s=%s", i == 0 ? " " : " | ", a->arch ? "arch." : "",
                              a->name, values);
    }
  g_string_append_printf (r, "\nzip: %s\n", o->zip ? "yes" : "no");
  record_files (r, "policies", policies);
  g_string_append_printf (r, "objective: %s\n", s->objective != NULL ? s->objective : "edp");
  g_string_append_printf (r, "max fused loops: %d\n", s->max_fused_loops);
  g_string_append_printf (r, "max fused loops per rank var: %d\n", s->max_fused_per_var);
  g_string_append_printf (r, "unfused: %s\n", s->unfused ? "yes" : "no");
  g_string_append_printf (r, "imperfect: %s\n", s->imperfect != NULL ? s->imperfect : "none");
  record_files (r, "constraints", s->constraint_files);
  record_list (r, "fuse", s->fuse);
  record_list (r, "no fuse", s->no_fuse);
  record_list (r, "backing", s->backing);
  record_list (r, "keep", s->keep);
  record_list (r, "forbid", s->forbid);
  record_list (r, "stationary", s->stationary);
  g_string_append_printf (r, "max memory: %s\n",
                          s->limits.max_memory != NULL ? s->limits.max_memory : "default");
  g_string_append_printf (r, "max template seconds: %g\n", s->limits.max_template_seconds);
  g_string_append_printf (r, "max templates: %" G_GINT64_FORMAT "\n", s->limits.max_templates);
  return g_string_free (r, FALSE);
}

/* What differs between two records, in the user's terms: "grid m=4,8 (this
 * sweep: m=4,16); ..." (transfer full); NULL when they are the same. */
static char *
records_differ (const char *theirs, const char *ours)
{
  g_auto (GStrv) a = g_strsplit (theirs, "\n", -1);
  g_auto (GStrv) b = g_strsplit (ours, "\n", -1);
  GString *d = g_string_new (NULL);

  if (a[0] == NULL || strcmp (a[0], SWEEP_RECORD_HEADER) != 0)
    {
      g_string_free (d, TRUE);
      return g_strdup ("it is not a record of ffm sweep");
    }
  for (guint i = 1; b[i] != NULL; i++)
    {
      const char *colon = strchr (b[i], ':');
      const char *found = NULL;
      gsize n;
      if (colon == NULL)
        continue;
      n = (gsize) (colon - b[i]) + 1;
      for (guint k = 1; a[k] != NULL; k++)
        if (strncmp (a[k], b[i], n) == 0)
          found = a[k];
      if (found == NULL || strcmp (found, b[i]) != 0)
        g_string_append_printf (d, "%s%.*s was %s (this sweep: %s)", d->len > 0 ? "; " : "",
                                (int) (n - 1), b[i],
                                found == NULL ? "not recorded"
                                : found[n] == '\0' ? "none" : found + n + 1,
                                colon[1] == '\0' ? "none" : colon + 2);
    }
  for (guint k = 1; a[k] != NULL; k++)
    {
      const char *colon = strchr (a[k], ':');
      gboolean known = FALSE;
      if (colon == NULL)
        continue;
      for (guint i = 1; b[i] != NULL; i++)
        known |= strncmp (a[k], b[i], (gsize) (colon - a[k]) + 1) == 0;
      if (!known)
        g_string_append_printf (d, "%s%s (this sweep has no such setting)",
                                d->len > 0 ? "; " : "", a[k]);
    }
  if (d->len == 0)
    {
      g_string_free (d, TRUE);
      return NULL;
    }
  return g_string_free (d, FALSE);
}

/* Checks that @csv (existing, not empty) was written by the sweep of
 * @record; nothing is written either way. */
static gboolean
check_sweep_record (const char *csv, const char *record, GError **error)
{
  g_autofree char *path = g_strconcat (csv, ".sweep", NULL);
  g_autofree char *theirs = NULL;
  g_autofree char *differ = NULL;
  g_autoptr (GError) local = NULL;
  gsize length = 0;
  gboolean missing = FALSE;

  theirs = ffm_read_file_bounded (path, FFM_MAX_INPUT_FILE_BYTES, &length, &missing,
                                  G_FILE_ERROR, G_FILE_ERROR_FAILED, &local);
  if (theirs == NULL && missing)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--csv %s: the file exists "
                   "but %s, which records the sweep that wrote it, does not: ffm cannot "
                   "tell that its rows are this sweep's, so it leaves them as they are. "
                   "Name another file to start afresh", csv, path);
      return FALSE;
    }
  if (theirs == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "--csv %s: %s", csv,
                   local->message);
      return FALSE;
    }
  if (strlen (theirs) != length || (differ = records_differ (theirs, record)) != NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--csv %s was written by "
                   "another sweep (%s: %s); it is left as it is: name another file to "
                   "start afresh", csv, path,
                   differ != NULL ? differ : "it holds a NUL byte");
      return FALSE;
    }
  return TRUE;
}

/* ---- Points ---- */

/* Parses --sweep/--sweep-arch NAME=V1,V2,... into @axes. */
static gboolean
parse_axes (char **specs, gboolean arch, GArray *axes, GError **error)
{
  for (guint i = 0; specs != NULL && specs[i] != NULL; i++)
    {
      const char *eq = strchr (specs[i], '=');
      Axis a = { 0 };
      if (eq == NULL || eq == specs[i] || eq[1] == '\0')
        {
          g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                       "--sweep%s must be NAME=V1,V2,...; got '%s'", arch ? "-arch" : "",
                       specs[i]);
          return FALSE;
        }
      a.name = g_strndup (specs[i], (gsize) (eq - specs[i]));
      a.arch = arch;
      a.values = g_strsplit (eq + 1, ",", -1);
      for (guint k = 0; a.values[k] != NULL; k++)
        if (*g_strstrip (a.values[k]) == '\0')
          {
            g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                         "--sweep%s %s has an empty value", arch ? "-arch" : "", specs[i]);
            ffm_sweep_axis_clear (&a);
            return FALSE;
          }
      for (guint k = 0; a.values[k] != NULL; k++)
        for (guint j = 0; j < k; j++)
          if (strcmp (a.values[j], a.values[k]) == 0)
            {
              g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                           "--sweep%s %s gives the value %s twice", arch ? "-arch" : "",
                           specs[i], a.values[k]);
              ffm_sweep_axis_clear (&a);
              return FALSE;
            }
      for (guint k = 0; k < axes->len; k++)
        if (strcmp (g_array_index (axes, Axis, k).name, a.name) == 0
            && g_array_index (axes, Axis, k).arch == arch)
          {
            g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                         "--sweep%s names %s twice", arch ? "-arch" : "", a.name);
            ffm_sweep_axis_clear (&a);
            return FALSE;
          }
      g_array_append_val (axes, a);
    }
  return TRUE;
}

/* The grid: every combination (or, zipped, the i-th value of each axis)
 * under every policy, in a fixed order (policies innermost). */
static GPtrArray *
make_points (const GArray *axes, gboolean zip, char **policies, GError **error)
{
  GPtrArray *points = g_ptr_array_new_with_free_func ((GDestroyNotify) ffm_sweep_point_free);
  guint64 n_combos = 1;
  guint n_policies = g_strv_length (policies);
  g_autofree guint *digit = g_new0 (guint, MAX (axes->len, 1));

  for (guint i = 0; i < axes->len; i++)
    {
      guint n = g_strv_length (g_array_index (axes, Axis, i).values);
      if (zip && i > 0 && n != g_strv_length (g_array_index (axes, Axis, 0).values))
        {
          g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                       "--zip pairs lists of one length: %s has %u values, %s %u",
                       g_array_index (axes, Axis, 0).name,
                       g_strv_length (g_array_index (axes, Axis, 0).values),
                       g_array_index (axes, Axis, i).name, n);
          g_ptr_array_unref (points);
          return NULL;
        }
      n_combos = zip ? n : n_combos * n;
      if (n_combos * n_policies > MAX_POINTS)
        break;
    }
  if (n_combos * n_policies > MAX_POINTS)
    {
      g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                   "the sweep has more than %d points (policies times the "
                   "combinations of --sweep values)", MAX_POINTS);
      g_ptr_array_unref (points);
      return NULL;
    }
  for (guint64 c = 0; c < n_combos; c++)
    {
      for (guint k = 0; k < n_policies; k++)
        {
          Point *p = g_new0 (Point, 1);
          p->index = points->len;
          p->policy = policies[k];
          p->values = g_new0 (char *, axes->len + 1);
          for (guint i = 0; i < axes->len; i++)
            p->values[i] = g_strdup (g_array_index (axes, Axis, i).values[zip ? c : digit[i]]);
          p->key = ffm_sweep_point_key (p->policy, p->values);
          g_ptr_array_add (points, p);
        }
      /* the next combination, last axis fastest */
      for (int i = (int) axes->len - 1; !zip && i >= 0; i--)
        {
          if (g_array_index (axes, Axis, i).values[++digit[i]] != NULL)
            break;
          digit[i] = 0;
        }
    }
  return points;
}

/* "policy ffm, m=16, arch.glb_size=1024" (transfer full). */
static char *
point_describe (const GArray *axes, const Point *p)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "policy %s", p->policy);
  for (guint i = 0; i < axes->len; i++)
    g_string_append_printf (text, ", %s%s=%s", g_array_index (axes, Axis, i).arch
                            ? "arch." : "", g_array_index (axes, Axis, i).name,
                            p->values[i]);
  return g_string_free (text, FALSE);
}

/* Loads the problem of @p and its constraints; on failure records the
 * error in the point (it is then done, failed). */
static void
prepare_point (Sweep *s, const GArray *axes, Point *p)
{
  const SweepOptions *o = s->o;
  g_autoptr (GPtrArray) params = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) arch_params = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (FfmParamValues) wv = NULL, av = NULL;
  g_autoptr (FfmWorkload) w = NULL;
  g_autoptr (FfmArch) a = NULL;
  g_autoptr (GError) error = NULL;
  FfmCliSearchOptions so = o->search;

  for (guint i = 0; o->problem.params != NULL && o->problem.params[i] != NULL; i++)
    g_ptr_array_add (params, g_strdup (o->problem.params[i]));
  for (guint i = 0; o->problem.arch_params != NULL && o->problem.arch_params[i] != NULL; i++)
    g_ptr_array_add (arch_params, g_strdup (o->problem.arch_params[i]));
  for (guint i = 0; i < axes->len; i++)
    {
      const Axis *x = &g_array_index (axes, Axis, i);
      g_ptr_array_add (x->arch ? arch_params : params,
                       g_strdup_printf ("%s=%s", x->name, p->values[i]));
    }
  g_ptr_array_add (params, NULL);
  g_ptr_array_add (arch_params, NULL);
  so.policy = strcmp (p->policy, "ffm") == 0 ? NULL : (char *) p->policy;
  if ((wv = ffm_cli_parse_assignments ((char **) params->pdata, "--param", &error)) != NULL
      && (av = ffm_cli_parse_assignments ((char **) arch_params->pdata, "--arch-param",
                                          &error)) != NULL
      && (w = ffm_workload_load (o->problem.workload, wv, &error)) != NULL
      && (a = ffm_plugin_registry_build_arch (s->registry, o->problem.arch, av, &error)) != NULL)
    {
      p->problem = ffm_problem_new (w, a);
      if (ffm_cli_constraints_build (&so, p->problem, &p->constraints, &error))
        return;
      g_clear_pointer (&p->problem, ffm_problem_unref);
    }
  p->done = TRUE;
  p->ok = FALSE;
  p->error = g_strdup (error->message);
  ffm_sweep_point_make_line (p);
}

/* The tensor classes of the FFM paper's Fig. 12(b): weights, the K and V
 * intermediates, the other intermediates, inputs and outputs. */
static const char *const tensor_classes[] = {
  "weights", "intermediates_kv", "intermediates_other", "inputs_outputs",
};

static guint
tensor_class (const FfmWorkload *w, guint t)
{
  const char *kind = ffm_workload_get_tensor_kind (w, t);
  const char *name = ffm_workload_get_tensor (w, t)->name;

  if (strcmp (kind, "weight") == 0)
    return 0;
  if (strcmp (kind, "intermediate") == 0)
    return strcmp (name, "K") == 0 || strcmp (name, "V") == 0 ? 1 : 2;
  return 3;
}

/* "weights=E;intermediates_kv=E;..." of @by_class (transfer full). */
static char *
class_pairs (const double *by_class)
{
  GString *classes = g_string_new (NULL);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint k = 0; k < G_N_ELEMENTS (tensor_classes); k++)
    g_string_append_printf (classes, "%s%s=%s", k ? ";" : "", tensor_classes[k],
                            g_ascii_formatd (buf, sizeof buf, "%.17g", by_class[k]));
  return g_string_free (classes, FALSE);
}

/* What the best mapping says: fused tensors, energy per level and per
 * tensor class (over every memory, and in the outermost memory alone: the
 * paper's Fig. 12(b) counts off-chip energy), the Einsums and which pairs
 * of them share a tensor kept on chip (the paper's Fig. 13). */
static void
describe_result (Point *p, const FfmCostReport *r)
{
  FfmWorkload *w = ffm_problem_get_workload (p->problem);
  FfmArch *a = ffm_problem_get_arch (p->problem);
  g_autoptr (GArray) fusion = ffm_cli_report_fusion_decisions (r);
  GString *fused = g_string_new (NULL), *levels = g_string_new (NULL);
  GString *einsums = g_string_new (NULL), *pairs = g_string_new (NULL);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  double by_class[G_N_ELEMENTS (tensor_classes)] = { 0 };
  double offchip[G_N_ELEMENTS (tensor_classes)] = { 0 };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < fusion->len; i++)
    {
      const FfmCliFusion *f = &g_array_index (fusion, FfmCliFusion, i);
      g_string_append_printf (fused, "%s%s@%s", fused->len ? ";" : "", f->tensor,
                              f->level >= 0 ? ffm_arch_get_level (a, f->level)->name : "?");
    }
  for (guint l = 0; l < ffm_arch_get_n_levels (a); l++)
    g_string_append_printf (levels, "%s%s=%s", levels->len ? ";" : "",
                            ffm_arch_get_level (a, l)->name,
                            g_ascii_formatd (buf, sizeof buf, "%.17g",
                                             ffm_cost_report_get_level_energy (r, l)));
  for (guint t = 0; t < ffm_workload_get_n_tensors (w); t++)
    {
      double e = 0;
      ffm_cost_report_get_tensor_totals (r, t, &e, NULL, NULL);
      by_class[tensor_class (w, t)] += e;
    }
  /* Off chip: the buffets of the outermost memory (level 0). */
  for (guint i = 0; i < ffm_cost_report_get_n_einsums (r); i++)
    {
      const FfmPmappingModel *m = ffm_cost_report_get_model (r, i);
      for (guint b = 0; b < ffm_pmapping_model_get_n_buffets (m); b++)
        {
          const FfmBuffetInfo *info = ffm_pmapping_model_get_buffet (m, b);
          if (info->level == 0)
            offchip[tensor_class (w, info->tensor)]
              += ffm_cost_report_get_buffet_energy (r, i, b, NULL, NULL);
        }
    }
  for (guint e = 0; e < ffm_workload_get_n_einsums (w); e++)
    g_string_append_printf (einsums, "%s%s", e ? ";" : "", ffm_workload_get_einsum (w, e)->name);
  for (guint i = 0; i < fusion->len; i++)
    {
      const FfmCliFusion *f = &g_array_index (fusion, FfmCliFusion, i);
      int t = ffm_workload_find_tensor (w, f->tensor);
      if (!f->on_chip || t < 0)
        continue;
      for (guint e = 0; e < ffm_workload_get_n_einsums (w); e++)
        {
          const FfmEinsum *es = ffm_workload_get_einsum (w, e);
          int acc = ffm_einsum_find_access (es, (guint) t);
          g_autofree char *pair = NULL;
          if (acc < 0 || es->accesses[acc].is_output)
            continue;
          pair = g_strdup_printf ("%s>%s@%s", f->producer, es->name,
                                  ffm_arch_get_level (a, f->level)->name);
          /* Two tensors between the same Einsums: one pair. */
          if (g_hash_table_add (seen, g_strdup (pair)))
            g_string_append_printf (pairs, "%s%s", pairs->len ? ";" : "", pair);
        }
    }
  p->fused = g_string_free (fused, FALSE);
  p->level_energy = g_string_free (levels, FALSE);
  p->class_energy = class_pairs (by_class);
  p->offchip_class_energy = class_pairs (offchip);
  p->einsums = g_string_free (einsums, FALSE);
  p->fused_einsums = g_string_free (pairs, FALSE);
}

/* A worker: searches one point and hands it back. */
static void
run_point (gpointer data, gpointer user_data)
{
  Point *p = data;
  Sweep *s = user_data;
  g_auto (FfmCliSearch) search = { 0 };
  g_auto (FfmCliSearchRun) run = { 0 };
  g_autoptr (GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  search.plugin = s->ffm;
  search.objective = s->objective;
  ffm_search_context_init (&search.context, p->problem);
  search.context.objective = s->objective;
  search.context.n_threads = s->threads_per_point;
  search.context.max_fused_loops = s->o->search.max_fused_loops;
  search.context.unfused = s->o->search.unfused;
  search.context.cancel = s->cancel;
  search.context.constraints = p->constraints;
  /* Points run in parallel: each gets its share of the budget. */
  search.context.max_memory = s->max_memory;
  search.context.max_template_seconds = s->o->search.limits.max_template_seconds;
  search.context.max_templates = (guint) s->o->search.limits.max_templates;
  search.strategy_values = ffm_param_values_new ();
  if (g_atomic_int_get (s->cancel))
    g_set_error (&error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_CANCELLED, "stopped");
  else if (ffm_cli_search_run (&search, &run, &error))
    {
      const FfmCostReport *r = g_ptr_array_index (run.reports, run.best);
      p->ok = TRUE;
      p->energy = ffm_cost_report_get_energy (r);
      p->latency = ffm_cost_report_get_latency (r);
      p->edp = ffm_cost_report_get_edp (r);
      p->area = ffm_arch_get_area (ffm_problem_get_arch (p->problem));
      describe_result (p, r);
    }
  p->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  if (!p->ok)
    p->error = g_strdup (error->message);
  /* A point stopped by Ctrl-C or --timeout is not a result: not recorded. */
  p->done = !g_error_matches (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_CANCELLED);
  if (p->done)
    ffm_sweep_point_make_line (p);
  g_async_queue_push (s->finished, p);
}

/* ---- Outputs ---- */

/* Member @key: an object of the "NAME=NUMBER;..." pairs of @pairs. */
static void
write_pairs_json (FfmJsonWriter *b, const char *key, const char *pairs)
{
  g_auto (GStrv) items = g_strsplit (pairs != NULL ? pairs : "", ";", -1);

  ffm_json_writer_key (b, key);
  ffm_json_writer_begin_object (b);
  for (guint k = 0; items[k] != NULL; k++)
    {
      char *eq = strrchr (items[k], '=');
      double v;
      if (eq == NULL)
        continue;
      *eq = '\0';
      if (ffm_sweep_parse_double (eq + 1, &v))
        ffm_json_writer_member_double (b, items[k], v);
    }
  ffm_json_writer_end_object (b);
}

/* Members einsums (names in order) and fused_einsums ({producer,
 * consumer, level}) from the CSV fields. */
static void
write_einsums_json (FfmJsonWriter *b, const char *einsums, const char *pairs)
{
  g_auto (GStrv) names = g_strsplit (einsums != NULL ? einsums : "", ";", -1);
  g_auto (GStrv) items = g_strsplit (pairs != NULL ? pairs : "", ";", -1);

  ffm_json_writer_key (b, "einsums");
  ffm_json_writer_begin_array (b);
  for (guint k = 0; names[k] != NULL; k++)
    if (*names[k] != '\0')
      ffm_json_writer_string (b, names[k]);
  ffm_json_writer_end_array (b);
  ffm_json_writer_key (b, "fused_einsums");
  ffm_json_writer_begin_array (b);
  for (guint k = 0; items[k] != NULL; k++)
    {
      char *gt = strchr (items[k], '>'), *at = strrchr (items[k], '@');
      if (gt == NULL || at == NULL || at < gt)
        continue;
      *gt = *at = '\0';
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "producer", items[k]);
      ffm_json_writer_member_string (b, "consumer", gt + 1);
      ffm_json_writer_member_string (b, "level", at + 1);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
}

static char *
points_json (const GArray *axes, const GPtrArray *points)
{
  g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();

  ffm_json_writer_begin_object (b);
  ffm_json_writer_key (b, "points");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < points->len; i++)
    {
      const Point *p = points->pdata[i];
      if (!p->done)
        continue;
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "policy", p->policy);
      ffm_json_writer_key (b, "parameters");
      ffm_json_writer_begin_object (b);
      for (guint k = 0; k < axes->len; k++)
        {
          const Axis *a = &g_array_index (axes, Axis, k);
          g_autofree char *name = g_strdup_printf ("%s%s", a->arch ? "arch." : "", a->name);
          ffm_json_writer_member_string (b, name, p->values[k]);
        }
      ffm_json_writer_end_object (b);
      ffm_json_writer_member_string (b, "status", p->ok ? "ok" : "failed");
      if (p->ok)
        {
          g_auto (GStrv) fused = g_strsplit (p->fused != NULL ? p->fused : "", ";", -1);
          ffm_json_writer_member_double (b, "energy_j", p->energy);
          ffm_json_writer_member_double (b, "latency_s", p->latency);
          ffm_json_writer_member_double (b, "edp_js", p->edp);
          ffm_json_writer_member_double (b, "area_m2", p->area);
          ffm_json_writer_key (b, "fused_tensors");
          ffm_json_writer_begin_array (b);
          for (guint k = 0; fused[k] != NULL; k++)
            {
              char *at = strrchr (fused[k], '@');
              if (at == NULL)
                continue;
              *at = '\0';
              ffm_json_writer_begin_object (b);
              ffm_json_writer_member_string (b, "tensor", fused[k]);
              ffm_json_writer_member_string (b, "level", at + 1);
              ffm_json_writer_end_object (b);
            }
          ffm_json_writer_end_array (b);
          write_pairs_json (b, "energy_by_level_j", p->level_energy);
          write_pairs_json (b, "energy_by_tensor_class_j", p->class_energy);
          write_pairs_json (b, "offchip_energy_by_tensor_class_j", p->offchip_class_energy);
          write_einsums_json (b, p->einsums, p->fused_einsums);
        }
      else
        ffm_json_writer_member_string (b, "error", p->error);
      ffm_json_writer_member_double (b, "seconds", p->seconds);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
  return ffm_json_writer_finish (b);
}

/* EDP against the first axis (its values as numbers), one line per policy,
 * the other axes at their first value. */
static gboolean
plot_edp (const char *path, const GArray *axes, const GPtrArray *points,
          char **policies, GError **error)
{
  const Axis *x = &g_array_index (axes, Axis, 0);
  guint n_x = g_strv_length (x->values), n_policies = g_strv_length (policies);
  g_autofree double *xs = g_new (double, n_x);
  g_autofree double *ys = g_new (double, (gsize) n_x * n_policies);
  g_autofree FfmPlotSeries *series = g_new0 (FfmPlotSeries, n_policies);
  g_autofree char *title = g_strdup_printf ("EDP of the best mapping against %s", x->name);
  FfmPlotAxes ax = { title, x->name, "EDP (J*s)", TRUE, TRUE, 0, 0, 0, 0 };

  for (guint i = 0; i < n_x; i++)
    if (!ffm_sweep_parse_double (x->values[i], &xs[i]))
      {
        g_set_error (error, FFM_PLOT_ERROR, FFM_PLOT_ERROR_FAILED, "--plot: %s=%s "
                     "is not a number to plot against", x->name, x->values[i]);
        return FALSE;
      }
  for (guint i = 0; i < (gsize) n_x * n_policies; i++)
    ys[i] = NAN;
  for (guint i = 0; i < points->len; i++)
    {
      const Point *p = points->pdata[i];
      gboolean first_elsewhere = TRUE;
      for (guint k = 1; k < axes->len; k++)
        first_elsewhere &= strcmp (p->values[k], g_array_index (axes, Axis, k).values[0]) == 0;
      if (!p->done || !p->ok || !first_elsewhere)
        continue;
      for (guint k = 0; k < n_policies; k++)
        for (guint v = 0; v < n_x; v++)
          if (strcmp (p->policy, policies[k]) == 0 && strcmp (p->values[0], x->values[v]) == 0)
            ys[(gsize) k * n_x + v] = p->edp;
    }
  for (guint k = 0; k < n_policies; k++)
    series[k] = (FfmPlotSeries) { policies[k], n_x, xs, ys + (gsize) k * n_x, NULL, NULL, TRUE };
  for (guint i = 0; i < n_x; i++)
    ax.log_x &= xs[i] > 0;
  return ffm_plot_lines (path, &ax, series, n_policies, error);
}

/* The per-point plots beside @path (ffm-plot-sweep.h), from the rows. */
static gboolean
plot_breakdowns (const char *path, const GArray *axes, const GPtrArray *points,
                 guint n_policies, GError **error)
{
  g_autofree FfmPlotSweepRow *rows = g_new0 (FfmPlotSweepRow, MAX (points->len, 1));
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  GString *swept = g_string_new (NULL);
  gboolean ok;

  for (guint i = 0; i < points->len; i++)
    {
      const Point *p = points->pdata[i];
      GString *label = g_string_new (NULL);
      for (guint k = 0; k < axes->len; k++)
        g_string_append_printf (label, "%s%s", k ? ", " : "", p->values[k]);
      g_ptr_array_add (labels, g_string_free (label, FALSE));
      rows[i] = (FfmPlotSweepRow) { p->policy, labels->pdata[i], p->ok, p->level_energy,
                                    p->class_energy, p->offchip_class_energy, p->einsums,
                                    p->fused_einsums };
    }
  for (guint k = 0; k < axes->len; k++)
    g_string_append_printf (swept, "%s%s%s", k ? ", " : "",
                            g_array_index (axes, Axis, k).arch ? "arch." : "",
                            g_array_index (axes, Axis, k).name);
  ok = ffm_plot_sweep_breakdowns (path, swept->str, rows, points->len, n_policies, error);
  g_string_free (swept, TRUE);
  return ok;
}

/* The quantities --plot-pareto takes, with their labels. */
static const struct {
  const char *name;
  const char *label;
} pareto_quantities[] = {
  { "area", "area (mm^2)" }, { "edp", "EDP (J*s)" }, { "energy", "energy (J)" },
  { "latency", "latency (s)" },
};

/* The index of quantity @name, or -1. */
static int
pareto_quantity (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (pareto_quantities); i++)
    if (strcmp (pareto_quantities[i].name, name) == 0)
      return (int) i;
  return -1;
}

static double
point_quantity (const Point *p, int q)
{
  if (!p->ok)
    return NAN;
  switch (q)
    {
    case 0: return p->area * 1e6;   /* mm^2 */
    case 1: return p->edp;
    case 2: return p->energy;
    default: return p->latency;
    }
}

/* Parses "X,Y" into two quantity indices; FALSE with a usage message. */
static gboolean
parse_pareto (const char *spec, int *x, int *y, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (spec, ",", -1);

  if (g_strv_length (parts) != 2
      || (*x = pareto_quantity (g_strstrip (parts[0]))) < 0
      || (*y = pareto_quantity (g_strstrip (parts[1]))) < 0 || *x == *y)
    {
      g_set_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE,
                   "--plot-pareto takes two different quantities of area, edp, "
                   "energy and latency, as X,Y (e.g. area,edp); got '%s'", spec);
      return FALSE;
    }
  return TRUE;
}

/* OUT-pareto-X-Y beside @path: every point's X against its Y, one series
 * per policy, with the front. */
static gboolean
plot_pareto (const char *path, const char *spec, const GPtrArray *points,
             GError **error)
{
  g_autofree FfmParetoPoint *pts = g_new0 (FfmParetoPoint, MAX (points->len, 1));
  g_autofree char *what = NULL, *out = NULL, *title = NULL;
  int x, y;

  if (!parse_pareto (spec, &x, &y, error))
    return FALSE;
  what = g_strdup_printf ("pareto-%s-%s", pareto_quantities[x].name,
                          pareto_quantities[y].name);
  out = ffm_plot_sweep_path (path, what);
  title = g_strdup_printf ("%s against %s, every point and policy",
                           pareto_quantities[y].name, pareto_quantities[x].name);
  for (guint i = 0; i < points->len; i++)
    {
      const Point *p = points->pdata[i];
      pts[i] = (FfmParetoPoint) { p->policy, point_quantity (p, x), point_quantity (p, y) };
    }
  return ffm_plot_pareto (out, title, pareto_quantities[x].label,
                          pareto_quantities[y].label, pts, points->len, error);
}

/* ---- Under mpirun (ffm-cli-mpi-points.h) ---- */

/* What the MPI callbacks need; one sweep per process. */
typedef struct {
  Sweep *s;
  const GArray *axes;
  GPtrArray *points;
  GArray *todo;                 /* rank 0: the indices of the points to run */
  GMutex lock;                  /* other ranks: loading a point's problem */
} MpiSweep;

static MpiSweep mpi_sweep;

/* What every rank must agree on: the columns, the points and the options
 * that change their rows. */
static guint64
sweep_fingerprint (const SweepOptions *o, const GArray *axes, const GPtrArray *points)
{
  g_autofree char *header = ffm_sweep_csv_header (axes);
  g_autofree char *count = g_strdup_printf ("%u", points->len);
  guint64 h = 0;

  ffm_cli_mpi_fingerprint_add (&h, header);
  ffm_cli_mpi_fingerprint_add (&h, count);
  ffm_cli_search_options_fingerprint (&o->problem, &o->search, &h);
  for (guint i = 0; i < points->len; i++)
    ffm_cli_mpi_fingerprint_add (&h, ((const Point *) points->pdata[i])->key);
  return h;
}

/* Rank 0: a point run here. */
static void
mpi_run_here (guint item, gpointer data)
{
  MpiSweep *m = data;

  run_point (m->points->pdata[item], m->s);
}

/* Rank 0: another rank's row of a point, read as a resumed one is; NULL:
 * not run (the point stays to do, as after Ctrl-C). */
static void
mpi_result (guint item, const char *text, gpointer data)
{
  MpiSweep *m = data;
  Point *p = m->points->pdata[item];

  if (text != NULL)
    {
      g_autofree char *header = ffm_sweep_csv_header (m->axes);
      g_autofree char *rows = g_strdup_printf ("%s\n%s\n", header, text);
      g_autoptr (GPtrArray) one = g_ptr_array_new ();
      g_autoptr (GError) error = NULL;
      guint n = 0;

      g_ptr_array_add (one, p);
      if (!ffm_sweep_rows_from_text ("(a row from another MPI rank)", rows, strlen (rows),
                           m->axes, one, &n, &error) || n != 1)
        {
          p->done = TRUE;
          p->ok = FALSE;
          p->error = g_strdup_printf ("MPI: the row another rank sent is not this "
                                      "sweep's: %s", error != NULL ? error->message
                                      : "it is another point's");
          ffm_sweep_point_make_line (p);
        }
    }
  g_async_queue_push (m->s->finished, p);
}

/* Another rank: loads and runs a point and returns its CSV row. */
static char *
mpi_run_there (guint item, guint n_threads, const char *shared, gpointer data)
{
  MpiSweep *m = data;
  g_autoptr (GAsyncQueue) finished = g_async_queue_new ();
  Sweep local = *m->s;
  Point *p;
  char *row;

  if (item >= m->points->len)
    return NULL;
  p = m->points->pdata[item];
  local.finished = finished;
  local.threads_per_point = n_threads;
  g_mutex_lock (&m->lock);
  prepare_point (&local, m->axes, p);
  g_mutex_unlock (&m->lock);
  if (!p->done)
    {
      run_point (p, &local);
      g_async_queue_pop (finished);
    }
  row = p->done ? g_strdup (p->line) : NULL;
  g_clear_pointer (&p->problem, ffm_problem_unref);
  g_clear_pointer (&p->constraints, ffm_constraints_unref);
  return row;
}

/* Another rank: runs the points rank 0 hands out until the sweep ends. */
static int
mpi_serve_points (Sweep *s, const GArray *axes, GPtrArray *points)
{
  g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (s->o->search.timeout);
  int status;

  s->cancel = ffm_cli_cancel_get_flag (cancel);
  mpi_sweep = (MpiSweep) { s, axes, points, NULL, { 0 } };
  g_mutex_init (&mpi_sweep.lock);
  status = ffm_cli_mpi_points_serve (COMMAND, sweep_fingerprint (s->o, axes, points),
                                     ffm_cli_run_options_get_threads (&s->o->run), 0,
                                     mpi_run_there, &mpi_sweep);
  g_mutex_clear (&mpi_sweep.lock);
  return status;
}

/* Rank 0 of several: hands the points to do out to every rank, this one
 * with @workers threads; they come back through s->finished. FALSE when
 * not under mpirun. */
static gboolean
mpi_share_points (Sweep *s, const GArray *axes, GPtrArray *points, guint workers)
{
  if (ffm_cli_mpi_is_worker ())
    return FALSE;
  mpi_sweep = (MpiSweep) { s, axes, points, g_array_new (FALSE, FALSE, sizeof (guint)),
                           { 0 } };
  for (guint i = 0; i < points->len; i++)
    if (!((Point *) points->pdata[i])->done)
      g_array_append_val (mpi_sweep.todo, i);
  if (ffm_cli_mpi_points_share (COMMAND, "points", "ffm sweep: MPI: stopped by the "
                                "launcher (a rank died, a node was lost, or the job "
                                "was cancelled): the points finished so far are in "
                                "--csv; run the same command again to finish the "
                                "sweep\n", NULL, (const guint *) mpi_sweep.todo->data,
                                mpi_sweep.todo->len, sweep_fingerprint (s->o, axes, points),
                                workers, s->cancel, mpi_run_here, mpi_result, &mpi_sweep))
    return TRUE;
  g_clear_pointer (&mpi_sweep.todo, g_array_unref);
  return FALSE;
}

/* Rank 0: after every shared point came back. */
static gboolean
mpi_finish_points (GError **error)
{
  gboolean ok = ffm_cli_mpi_points_finish (error);

  g_clear_pointer (&mpi_sweep.todo, g_array_unref);
  return ok;
}

/* ---- Running ---- */

/* Appends @line to the open CSV @f, checked. */
static gboolean
append_line (FILE *f, const char *path, const char *line, GError **error)
{
  if (fputs (line, f) < 0 || fputc ('\n', f) < 0 || fflush (f) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot write '%s': %s", path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static int
run (GOptionContext *context, SweepOptions *o)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) axes = g_array_new (FALSE, TRUE, sizeof (Axis));
  g_autoptr (GPtrArray) points = NULL;
  g_autoptr (GAsyncQueue) finished = g_async_queue_new ();
  g_auto (GStrv) policies = NULL;
  g_autofree char *header = NULL;
  Sweep s = { 0 };
  guint n_resumed = 0, n_todo = 0, n_done = 0, n_failed = 0, workers, threads;
  FILE *csv = NULL;
  int status = FFM_EXIT_OK;
  const char *stopped = NULL;
  int stop_code = FFM_EXIT_FAILURE;     /* stopped by an MPI rank, not the user */
  g_autofree char *record = NULL;       /* FILE.sweep's text */
  GStatBuf csv_stat = { 0 };
  gboolean complete = FALSE;            /* --csv holds every point already */

  g_array_set_clear_func (axes, (GDestroyNotify) ffm_sweep_axis_clear);
  if (o->problem.arch == NULL || o->problem.workload == NULL)
    return ffm_cli_usage_error (context, COMMAND, "--arch and --workload are required");
  if (g_str_has_prefix (o->problem.arch, FFM_CLI_TIMELOOP_PREFIX)
      || g_str_has_prefix (o->problem.workload, FFM_CLI_TIMELOOP_PREFIX))
    return ffm_cli_usage_error (context, COMMAND, "sweep takes ffm workloads and "
                                "architectures (import Timeloop files first: ffm import)");
  if (!parse_axes (o->sweeps, FALSE, axes, &error)
      || !parse_axes (o->sweep_archs, TRUE, axes, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (axes->len == 0)
    return ffm_cli_usage_error (context, COMMAND, "give at least one --sweep or --sweep-arch");
  {
    /* Checked once here rather than as a failure at every point. */
    g_autoptr (FfmParamValues) wv = NULL, av = NULL;
    if ((wv = ffm_cli_parse_assignments (o->problem.params, "--param", &error)) == NULL
        || (av = ffm_cli_parse_assignments (o->problem.arch_params, "--arch-param",
                                            &error)) == NULL)
      return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  }
  for (guint i = 0; i < axes->len; i++)
    {
      const Axis *x = &g_array_index (axes, Axis, i);
      char **set = x->arch ? o->problem.arch_params : o->problem.params;
      for (guint k = 0; set != NULL && set[k] != NULL; k++)
        {
          g_autofree char *key = g_strstrip (g_strndup (set[k], strcspn (set[k], "=")));
          if (strcmp (key, x->name) == 0)
            return ffm_cli_usage_error (context, COMMAND, "--sweep%s %s also set by %s %s: "
                                        "give it once", x->arch ? "-arch" : "", x->name,
                                        x->arch ? "--arch-param" : "--param", set[k]);
        }
    }
  if (o->search.strategy != NULL && strcmp (o->search.strategy, "ffm") != 0)
    return ffm_cli_usage_error (context, COMMAND, "sweep runs the ffm strategy "
                                "(policies choose the mapspace: --policy)");
  if (o->search.objective != NULL
      && !ffm_objective_from_string (o->search.objective, &s.objective, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (o->search.objective == NULL)
    s.objective = FFM_OBJECTIVE_EDP;
  if (s.objective == FFM_OBJECTIVE_PARETO)
    return ffm_cli_usage_error (context, COMMAND, "sweep keeps one mapping per point: "
                                "--objective edp, energy or latency");
  if (o->search.max_fused_loops < -1)
    return ffm_cli_usage_error (context, COMMAND,
                                "--max-fused-loops must be -1 (no limit) or more");
  if (!ffm_cli_timeout_is_valid (o->search.timeout))
    return ffm_cli_usage_error (context, COMMAND, "--timeout must be a number of "
                                "seconds from 0 (none) to %.0f", FFM_CLI_MAX_TIMEOUT);
  if (!ffm_cli_generator_limits_check (&o->search.limits, &s.max_memory, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (o->plot_pareto != NULL)
    {
      int x, y;
      if (o->plot == NULL)
        return ffm_cli_usage_error (context, COMMAND, "--plot-pareto draws beside "
                                    "--plot OUT.svg (as OUT-pareto-X-Y.svg): give "
                                    "--plot too");
      if (!parse_pareto (o->plot_pareto, &x, &y, &error))
        return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
    }
  if (o->plot != NULL && !ffm_plot_check (o->plot, &error))
    return ffm_cli_fail (COMMAND, error);
  if (!ffm_cli_output_paths_check (NULL, &error, "--csv", o->csv, "--json", o->json,
                                   "--plot", o->plot, "--html", o->visual.html, NULL))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  if (!ffm_cli_visual_check (&o->visual, &error))
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  policies = g_strsplit (o->search.policy != NULL ? o->search.policy : "ffm", ",", -1);
  if (policies[0] == NULL)
    return ffm_cli_usage_error (context, COMMAND, "--policy is empty (name at least "
                                "one policy; ffm = none)");
  for (guint i = 0; policies[i] != NULL; i++)
    {
      g_strstrip (policies[i]);
      if (*policies[i] == '\0')
        return ffm_cli_usage_error (context, COMMAND, "--policy has an empty name");
      for (guint k = 0; k < i; k++)
        if (strcmp (policies[i], policies[k]) == 0)
          return ffm_cli_usage_error (context, COMMAND, "--policy names %s twice",
                                      policies[i]);
    }
  if ((points = make_points (axes, o->zip, policies, &error)) == NULL)
    return ffm_cli_usage_error (context, COMMAND, "%s", error->message);

  registry = ffm_cli_registry_new (&o->common);
  s.o = o;
  s.registry = registry;
  s.finished = finished;
  s.ffm = ffm_plugin_registry_lookup (registry, FFM_PLUGIN_KIND_SEARCH, "ffm", &error);
  if (s.ffm == NULL)
    return ffm_cli_fail (COMMAND, error);
  header = ffm_sweep_csv_header (axes);
  if (o->csv != NULL && strcmp (o->csv, "-") == 0)
    return ffm_cli_usage_error (context, COMMAND, "--csv needs a file (the sweep "
                                "resumes from it)");
  /* Under mpirun the other ranks only run the points rank 0 hands out. */
  if (ffm_cli_mpi_is_worker ())
    return mpi_serve_points (&s, axes, points);
  if (o->csv != NULL)
    record = sweep_record (o, axes, policies);
  if (o->csv != NULL && g_stat (o->csv, &csv_stat) == 0 && S_ISREG (csv_stat.st_mode)
      && csv_stat.st_size > 0 && !check_sweep_record (o->csv, record, &error))
    return ffm_cli_fail (COMMAND, error);
  if (o->csv != NULL && !resume_from_csv (o->csv, axes, points, &n_resumed, &error))
    return ffm_cli_fail (COMMAND, error);
  complete = o->csv != NULL && n_resumed == points->len;
  if (complete)
    ffm_cli_warn (COMMAND, "all %u points are already in %s: it is left as it is",
                  points->len, o->csv);
  else if (n_resumed > 0)
    ffm_cli_warn (COMMAND, "resuming: %u of %u points already in %s", n_resumed,
                  points->len, o->csv);
  if (o->csv != NULL && !complete)
    {
      /* Append to the file as points finish: a killed sweep keeps them. */
      gboolean fresh = !g_file_test (o->csv, G_FILE_TEST_EXISTS) || n_resumed == 0;
      g_autofree char *record_path = g_strconcat (o->csv, ".sweep", NULL);
      /* The record first: a CSV is never without it. */
      if (fresh && (csv_stat.st_mode == 0 || S_ISREG (csv_stat.st_mode))
          && !ffm_output_file_write (record_path, record, -1, &error))
        return ffm_cli_fail (COMMAND, error);
      csv = fopen (o->csv, fresh ? "w" : "a");
      if (csv == NULL)
        {
          int saved = errno;
          g_set_error (&error, G_FILE_ERROR, g_file_error_from_errno (saved),
                       "cannot write '%s': %s", o->csv, g_strerror (saved));
          return ffm_cli_fail (COMMAND, error);
        }
      if (fresh && !append_line (csv, o->csv, header, &error))
        {
          fclose (csv);
          return ffm_cli_fail (COMMAND, error);
        }
    }

  for (guint i = 0; i < points->len; i++)
    {
      Point *p = points->pdata[i];
      if (p->done)
        continue;
      prepare_point (&s, axes, p);
      if (p->done && csv != NULL && !append_line (csv, o->csv, p->line, &error))
        {
          fclose (csv);
          return ffm_cli_fail (COMMAND, error);
        }
      n_todo += !p->done;
    }

  threads = ffm_cli_run_options_get_threads (&o->run);
  workers = MAX (1, MIN (threads, n_todo));
  s.threads_per_point = MAX (1, threads / workers);
  /* --max-memory (or the default) is the sweep's: the points that run at
   * once share it. */
  s.max_memory = (s.max_memory > 0 ? s.max_memory : ffm_pmapping_default_max_memory ())
    / workers;
  {
    g_autoptr (FfmCliCancel) cancel = ffm_cli_cancel_begin (o->search.timeout);
    g_autoptr (FfmCliProgress) progress = ffm_cli_progress_start (COMMAND, TRUE);
    GThreadPool *pool;
    double started = g_get_monotonic_time () / (double) G_USEC_PER_SEC;

    s.cancel = ffm_cli_cancel_get_flag (cancel);
    pool = g_thread_pool_new (run_point, &s, (gint) workers, FALSE, &error);
    if (pool == NULL)
      {
        if (csv != NULL)
          fclose (csv);
        return ffm_cli_fail (COMMAND, error);
      }
    if (!mpi_share_points (&s, axes, points, workers))
      for (guint i = 0; i < points->len; i++)
        if (!((Point *) points->pdata[i])->done)
          g_thread_pool_push (pool, points->pdata[i], NULL);
    for (guint k = 0; k < n_todo; k++)
      {
        Point *p = g_async_queue_pop (finished);
        double elapsed = g_get_monotonic_time () / (double) G_USEC_PER_SEC - started;
        g_autofree char *phase = NULL;
        n_done++;
        if (p->done && csv != NULL && status == FFM_EXIT_OK
            && !append_line (csv, o->csv, p->line, &error))
          {
            /* The rest finish but are not written: the first error stands. */
            status = ffm_cli_fail (COMMAND, error);
            g_clear_error (&error);
          }
        phase = g_strdup_printf ("%u/%u points, ~%.0f s left", n_done, n_todo,
                                 elapsed / n_done * (n_todo - n_done));
        ffm_cli_progress_update ((double) n_done / n_todo, phase, progress);
      }
    g_thread_pool_free (pool, FALSE, TRUE);
    if (!mpi_finish_points (&error))
      {
        g_prefix_error (&error, "the finished points are in --csv (run the same "
                        "command again to finish): ");
        if (status == FFM_EXIT_OK)
          status = ffm_cli_fail (COMMAND, error);
        g_clear_error (&error);
      }
    g_clear_pointer (&progress, ffm_cli_progress_stop);
    if (ffm_cli_cancel_describe (cancel) != NULL)
      stopped = ffm_cli_cancel_describe (cancel);
    if (stopped != NULL && ffm_cli_cancel_get_reason (cancel) != FFM_CLI_STOP_NONE)
      stop_code = ffm_cli_stop_exit_code (ffm_cli_cancel_get_reason (cancel));
    if (stopped != NULL)
      {
        guint kept = 0;
        for (guint i = 0; i < points->len; i++)
          kept += ((Point *) points->pdata[i])->done;
        ffm_cli_warn (COMMAND, "%s: %u of %u points done%s", stopped, kept, points->len,
                      o->csv != NULL ? "; run the same command again to finish" : "");
        if (status == FFM_EXIT_OK)
          status = stop_code;
      }
  }
  if (csv != NULL && fclose (csv) != 0 && status == FFM_EXIT_OK)
    {
      int saved = errno;
      g_set_error (&error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot write '%s': %s", o->csv, g_strerror (saved));
      return ffm_cli_fail (COMMAND, error);
    }
  if (status != FFM_EXIT_OK)
    return status;

  /* Complete: the CSV in point order, the JSON, the plot, a summary. */
  {
    GString *text = g_string_new (header);
    g_string_append_c (text, '\n');
    for (guint i = 0; i < points->len; i++)
      {
        const Point *p = points->pdata[i];
        g_string_append_printf (text, "%s\n", p->line);
        n_failed += !p->ok;
      }
    if (o->csv != NULL && !complete && !ffm_cli_output_write (o->csv, text->str, &error))
      {
        g_string_free (text, TRUE);
        return ffm_cli_fail (COMMAND, error);
      }
    if (o->csv == NULL && o->json == NULL)
      g_print ("%s", text->str);
    g_string_free (text, TRUE);
  }
  if (o->json != NULL || o->visual.html != NULL)
    {
      g_autofree char *json = points_json (axes, points);
      g_autofree char *heading = g_strdup_printf ("%s on %s", o->problem.workload,
                                                  o->problem.arch);
      if (o->json != NULL && !ffm_cli_output_write (o->json, json, &error))
        return ffm_cli_fail (COMMAND, error);
      if (o->visual.html != NULL
          && !ffm_html_write_sweep (o->visual.html, heading, json, &error))
        return ffm_cli_fail (COMMAND, error);
    }
  if (o->plot != NULL && (!plot_edp (o->plot, axes, points, policies, &error)
                          || !plot_breakdowns (o->plot, axes, points,
                                               g_strv_length (policies), &error)
                          || (o->plot_pareto != NULL
                              && !plot_pareto (o->plot, o->plot_pareto, points,
                                               &error))))
    return ffm_cli_fail (COMMAND, error);
  for (guint i = 0; i < points->len; i++)
    {
      const Point *p = points->pdata[i];
      if (!p->ok)
        {
          g_autofree char *what = point_describe (axes, p);
          ffm_cli_warn (COMMAND, "point %u (%s) failed: %s", p->index + 1, what, p->error);
        }
    }
  if (n_failed > 0)
    {
      ffm_cli_warn (COMMAND, "%u of %u points failed (recorded as such)", n_failed,
                    points->len);
      return FFM_EXIT_FAILURE;
    }
  return FFM_EXIT_OK;
}

/* run() as ffm_cli_mpi_run_command() calls it. */
static int
run_command (GOptionContext *context, gpointer options)
{
  return run (context, options);
}

int
ffm_cmd_sweep (int argc, char **argv)
{
  SweepOptions o = { FFM_CLI_COMMON_INIT, FFM_CLI_RUN_OPTIONS_INIT, FFM_CLI_PROBLEM_OPTIONS_INIT,
                     FFM_CLI_SEARCH_OPTIONS_INIT, NULL, NULL, FALSE, NULL, NULL, NULL,
                     NULL, FFM_CLI_VISUAL_OPTIONS_INIT };
  const GOptionEntry entries[] = {
    { "sweep", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.sweeps,
      "Sweep workload parameter NAME over the values (repeatable)", "NAME=V1,V2,..." },
    { "sweep-arch", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.sweep_archs,
      "Sweep architecture parameter NAME over the values (repeatable)", "NAME=V1,V2,..." },
    { "zip", 0, 0, G_OPTION_ARG_NONE, &o.zip,
      "Pair the lists (the i-th values together) instead of every combination", NULL },
    { "objective", 'o', 0, G_OPTION_ARG_STRING, &o.search.objective,
      "edp (default), energy or latency", "OBJ" },
    { "max-fused-loops", 0, 0, G_OPTION_ARG_INT, &o.search.max_fused_loops,
      "Fused loops per pmapping, -1 = no limit (default -1)", "N" },
    { "unfused", 0, 0, G_OPTION_ARG_NONE, &o.search.unfused,
      "Back every tensor in the outermost memory (no fusion)", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o.search.timeout,
      "Stop the sweep after SECONDS (as Ctrl-C does; the finished points are kept)",
      "SECONDS" },
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &o.csv,
      "Write the rows as CSV to OUT, as they finish; resume from OUT if it exists", "OUT" },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &o.json,
      "Write the rows as JSON to OUT at the end (- = stdout)", "OUT" },
    { "plot", 0, 0, G_OPTION_ARG_FILENAME, &o.plot,
      "Plot EDP against the first swept parameter, one line per policy (.svg, .png, "
      ".pdf), and beside it OUT-energy-components, OUT-energy-classes, "
      "OUT-energy-classes-all and OUT-fusion, per point and policy", "OUT" },
    { "plot-pareto", 0, 0, G_OPTION_ARG_STRING, &o.plot_pareto,
      "Also plot quantity Y against X for every point (area, edp, energy, "
      "latency; e.g. area,edp) with their Pareto front, as OUT-pareto-X-Y beside "
      "--plot OUT", "X,Y" },
    G_OPTION_ENTRY_NULL
  };
  g_autofree char *description = ffm_cli_describe (sweep_text, "dse.md");
  g_autoptr (GOptionContext) context = ffm_cli_context_new (COMMAND, NULL, description);
  gboolean mpi_worker;          /* ffm_cli_mpi_is_worker() says it where needed */
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_visual_options (context, &o.visual, FALSE, "the sweep");
  ffm_cli_add_constraint_options (context, &o.search);
  ffm_cli_add_generator_limit_options (context, &o.search.limits);
  ffm_cli_add_ffm_problem_options (context, &o.problem);
  ffm_cli_add_run_options (context, &o.run, FFM_CLI_RUN_THREADS);
  ffm_cli_add_common_options (context, &o.common, TRUE);
  status = ffm_cli_mpi_run_command (context, COMMAND, &o.common, &o.run, argc, argv,
                                    &mpi_worker, run_command, &o);
  g_strfreev (o.sweeps);
  g_strfreev (o.sweep_archs);
  g_free (o.csv);
  g_free (o.json);
  g_free (o.plot);
  g_free (o.plot_pareto);
  ffm_cli_visual_options_clear (&o.visual);
  ffm_cli_search_options_clear (&o.search);
  ffm_cli_problem_options_clear (&o.problem);
  ffm_cli_common_clear (&o.common);
  return status;
}
