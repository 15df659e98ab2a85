/* ffm-cmd-eval.c: `ffm eval`, the cost of a given mapping.
 *
 *   ffm eval RESULT.json [--arch A] [--arch-param K=V]... [--workload W]
 *            [--param K=V]... [--json OUT] [--csv OUT] [--loop-nest]
 *            [--html OUT.html] [--diagram OUT.svg] [--diagram-dot OUT.dot]
 *   ffm eval --mapping M.json --arch A --workload W [--param K=V]...
 *
 * Reads a result file (what `ffm map --json` and `ffm eval --json` write,
 * ffm-result.h) or a plain mapping file, positional or after --mapping.
 * A result file records the architecture and the workload with every
 * parameter value, so it needs no other argument: it is rebuilt and its
 * mapping evaluated to the same costs, bit for bit. Options given on the
 * command line override what the file records, and each override is
 * reported on stderr ("note: ..."). A plain mapping file needs --arch and
 * --workload (or the names it records). The mapping is evaluated with the
 * cost model (ffm-cost.h) and its report printed (ffm-cli-report.h);
 * --json writes a result file in turn, --csv the tables, --html the report
 * as one page and --diagram the mapping as a LoopTree (ffm-cli-visual.h;
 * several files: one page, no diagram).
 * A mapping that does not match the workload (an unknown tensor, a loop
 * over a rank variable the Einsum lacks) is an error naming the mapping
 * file and the node, and what differs between the workload the mapping
 * was made for and this one. A mapping that matches but does not fit the
 * architecture (a memory or a fanout too small) is reported in full and
 * ends with exit code 1 and the reason. The mapping may also be a
 * Timeloop map.yaml, timeloop:map.yaml, translated for --workload and
 * --arch (docs/timeloop.md).
 * With --constraints FILE, --policy NAME or the short constraint options
 * (those of ffm map), the mapping is also checked against the constraint
 * set: each constraint on its own, so that every violated one is reported
 * (the constraint, the Einsum, why) in the text, on stderr and in the
 * JSON ("constraints": {"name", "satisfied", "violations"}); a violated set
 * ends with exit code 1 after the full report, as a mapping that does not
 * fit does. The set is bound with the core's binding code (names checked
 * against the workload and architecture, ffm-constraints.h).
 * Exit codes: 0 ok, 1 when something does not load, the mapping does not
 * match, does not fit or violates the constraints, 2 for usage errors. */
#include "ffm-cli-common.h"
#include "ffm-cli-fairness.h"
#include "ffm-cli-output.h"
#include "ffm-cli-report.h"
#include "ffm-cli-search.h"
#include "ffm-cli-table.h"
#include "ffm-cli-visual.h"

#include <string.h>

#define COMMAND "eval"

typedef struct {
  FfmCliCommon common;
  FfmCliProblemOptions problem;
  FfmCliOutputOptions output;
  FfmCliVisualOptions visual;   /* --html, --diagram, --diagram-dot */
  FfmCliSearchOptions constraints; /* --constraints, --policy, --fuse, ...
                                      (only those members are used) */
  char *mapping;                /* --mapping FILE (owned) */
  gboolean loop_nest;           /* --loop-nest */
  gboolean allow_changed_inputs; /* --allow-changed-inputs */
} EvalOptions;

/* ---- What the result file records, and the command line changes ---- */

/* A recorded source as --arch/--workload takes it: the name or path the
 * user gave, or the recorded file when that path is gone (the result was
 * made from another folder). */
static const char *
recorded_spec (const FfmResultSource *s)
{
  gboolean path = s->given == NULL || strchr (s->given, '/') != NULL
                  || g_str_has_suffix (s->given, ".json");

  if (path && s->file != NULL
      && (s->given == NULL || !g_file_test (s->given, G_FILE_TEST_EXISTS)))
    return s->file;
  return s->given;
}

/* "KEY=VALUE" strings: @recorded's values (when @keep_recorded), then the
 * command line's @given over them; each value that replaces a recorded
 * one becomes a note. */
static char **
merge_params (const FfmParamValues *recorded, gboolean keep_recorded, char **given,
              const char *option, const char *file, GPtrArray *notes)
{
  g_autoptr (FfmParamValues) merged = ffm_param_values_new ();
  GStrvBuilder *out = g_strv_builder_new ();
  char **result;

  for (const char *const *k = recorded != NULL && keep_recorded
                              ? ffm_param_values_get_keys (recorded) : NULL;
       k != NULL && *k != NULL; k++)
    ffm_param_values_set (merged, *k, ffm_param_values_lookup (recorded, *k));
  for (guint i = 0; given != NULL && given[i] != NULL; i++)
    {
      g_auto (GStrv) kv = g_strsplit (given[i], "=", 2);
      const char *old;
      if (kv[0] == NULL || kv[1] == NULL)
        {
          /* Malformed: left for the loader to refuse with its message. */
          g_strv_builder_add (out, given[i]);
          continue;
        }
      old = keep_recorded && recorded != NULL ? ffm_param_values_lookup (recorded, kv[0]) : NULL;
      if (old != NULL && strcmp (old, kv[1]) != 0)
        g_ptr_array_add (notes, g_strdup_printf ("%s %s replaces %s=%s recorded in %s",
                                                 option, given[i], kv[0], old, file));
      ffm_param_values_set (merged, kv[0], kv[1]);
    }
  for (const char *const *k = ffm_param_values_get_keys (merged); *k != NULL; k++)
    {
      g_autofree char *kv = g_strdup_printf ("%s=%s", *k, ffm_param_values_lookup (merged, *k));
      g_strv_builder_add (out, kv);
    }
  result = g_strv_builder_end (out);
  g_strv_builder_unref (out);
  return result;
}

/* One of the architecture and the workload: the command line's name, or
 * the recorded one; the recorded parameters under the command line's,
 * when it is the same one. */
static void
merge_source (const FfmResultSource *recorded, const char *what, char **name,
              char ***params, const char *option, const char *param_option,
              const char *file, GPtrArray *notes)
{
  gboolean same = TRUE;
  char **merged;

  if (recorded == NULL)
    return;
  if (*name != NULL)
    {
      same = g_strcmp0 (*name, recorded->given) == 0
             || g_strcmp0 (*name, recorded->file) == 0;
      if (!same)
        g_ptr_array_add (notes, g_strdup_printf ("%s %s replaces the %s %s recorded "
                                                 "in %s (its parameters are not used)",
                                                 option, *name, what,
                                                 recorded_spec (recorded), file));
    }
  else
    *name = g_strdup (recorded_spec (recorded));
  merged = merge_params (recorded->parameters, same, *params, param_option, file, notes);
  g_strfreev (*params);
  *params = merged;
}

/* "made with batch=1, used with batch=2" for the parameters that differ
 * between @recorded and @used, or NULL. */
static char *
describe_param_differences (const FfmParamValues *recorded, const FfmParamValues *used)
{
  GString *made = g_string_new (NULL), *now = g_string_new (NULL);

  for (const char *const *k = ffm_param_values_get_keys (recorded); *k != NULL; k++)
    {
      const char *a = ffm_param_values_lookup (recorded, *k);
      const char *b = ffm_param_values_lookup (used, *k);
      if (g_strcmp0 (a, b) == 0)
        continue;
      g_string_append_printf (made, "%s%s=%s", made->len ? ", " : "", *k, a);
      g_string_append_printf (now, "%s%s=%s", now->len ? ", " : "", *k, b ? b : "(unset)");
    }
  if (made->len == 0)
    {
      g_string_free (made, TRUE);
      g_string_free (now, TRUE);
      return NULL;
    }
  {
    char *text = g_strdup_printf ("made with %s, evaluated with %s", made->str, now->str);
    g_string_free (made, TRUE);
    g_string_free (now, TRUE);
    return text;
  }
}

/* Why a mapping may not match: the workload or architecture it was made
 * for, where that differs from this one ("" when nothing differs). */
static char *
mismatch_context (const FfmResultInfo *info, const FfmMapping *mapping,
                  const FfmWorkload *w, const FfmArch *a)
{
  GString *out = g_string_new (NULL);
  const char *made_for = ffm_mapping_get_workload_name (mapping);
  const char *made_on = ffm_mapping_get_architecture_name (mapping);

  if (info != NULL && ffm_result_info_get_workload (info) != NULL)
    made_for = ffm_result_info_get_workload (info)->name;
  if (info != NULL && ffm_result_info_get_architecture (info) != NULL)
    made_on = ffm_result_info_get_architecture (info)->name;
  if (made_for != NULL && strcmp (made_for, ffm_workload_get_name (w)) != 0)
    g_string_append_printf (out, "; the mapping was made for workload %s, not %s",
                            made_for, ffm_workload_get_name (w));
  else if (info != NULL && ffm_result_info_get_workload (info) != NULL)
    {
      g_autofree char *diff =
        describe_param_differences (ffm_result_info_get_workload (info)->parameters,
                                    ffm_workload_get_param_values (w));
      if (diff != NULL)
        g_string_append_printf (out, "; workload %s: the mapping was %s",
                                ffm_workload_get_name (w), diff);
    }
  if (made_on != NULL && strcmp (made_on, ffm_arch_get_name (a)) != 0)
    g_string_append_printf (out, "; the mapping was made for architecture %s, not %s",
                            made_on, ffm_arch_get_name (a));
  if (info == NULL && out->len == 0)
    g_string_append (out, "; a mapping file records no parameters: give those of the "
                     "workload it was made for (--param), or evaluate a result file "
                     "(ffm map --json), which records them");
  return g_string_free (out, FALSE);
}

/* ---- Inputs that changed since the result was written ---- */

/* "sha256:0123456789ab" (the first 12 digits, enough to tell them apart). */
static char *
short_digest (const char *digest)
{
  return digest != NULL ? g_strndup (digest, 7 + 12) : g_strdup ("none");
}

/* Checks what @recorded (the record of @file) says against @now, the
 * record of the problem as rebuilt: fields that contradict what was built
 * (a model or name that is not the one that built it) are errors; inputs
 * that changed (a file's SHA-256, ffm's version) are errors unless
 * @allow, and then a note. Sources the command line replaced are not
 * compared. Returns an exit status, having printed the error. */
static int
check_recorded_inputs (const char *file, const FfmResultInfo *recorded,
                       const FfmResultInfo *now, gboolean allow)
{
  static const char *const inputs[] = { "architecture", "workload" };
  g_autoptr (GString) changed = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      gboolean arch = i == 0;
      const FfmResultSource *r = arch ? ffm_result_info_get_architecture (recorded)
                                      : ffm_result_info_get_workload (recorded);
      const FfmResultSource *n = arch ? ffm_result_info_get_architecture (now)
                                      : ffm_result_info_get_workload (now);
      const char *then_digest = ffm_result_info_get_digest (recorded, inputs[i]);
      const char *now_digest = ffm_result_info_get_digest (now, inputs[i]);
      if (r == NULL || n == NULL || g_strcmp0 (recorded_spec (r), n->given) != 0)
        continue;               /* replaced on the command line (a note says so) */
      /* A member the record leaves out (a file written by hand) says nothing. */
      if (arch && r->model != NULL && g_strcmp0 (r->model, n->model) != 0)
        {
          g_printerr ("ffm %s: %s: $.inputs.architecture.model is %s%s%s, but %s is "
                      "built by %s%s%s: the record contradicts what it names\n", COMMAND,
                      file, r->model ? "\"" : "", r->model ? r->model : "null",
                      r->model ? "\"" : "", n->given, n->model ? "the model " : "",
                      n->model ? n->model : "no model (a JSON file)", "");
          return FFM_EXIT_FAILURE;
        }
      if (r->name != NULL && g_strcmp0 (r->name, n->name) != 0)
        {
          g_printerr ("ffm %s: %s: $.inputs.%s.name is \"%s\", but %s is named \"%s\": "
                      "the record contradicts what it names\n", COMMAND, file, inputs[i],
                      r->name != NULL ? r->name : "", n->given, n->name);
          return FFM_EXIT_FAILURE;
        }
      if (then_digest != NULL && g_strcmp0 (then_digest, now_digest) != 0)
        {
          g_autofree char *a = short_digest (then_digest), *b = short_digest (now_digest);
          g_string_append_printf (changed, "%sthe %s %s%s changed (%s... then, %s... now)",
                                  changed->len > 0 ? "; " : "", inputs[i],
                                  arch && r->model != NULL ? "model plugin " : "file ",
                                  n->file, a, b);
        }
    }
  if (ffm_result_info_list_digests (recorded)[0] != NULL
      && g_strcmp0 (ffm_result_info_get_version (recorded),
                    ffm_result_info_get_version (now)) != 0)
    g_string_append_printf (changed, "%sit was written by ffm %s, this is ffm %s",
                            changed->len > 0 ? "; " : "",
                            ffm_result_info_get_version (recorded),
                            ffm_result_info_get_version (now));
  if (changed->len == 0)
    return FFM_EXIT_OK;
  if (!allow)
    {
      g_printerr ("ffm %s: %s: its inputs changed since it was written: %s. Its numbers "
                  "would not be reproduced; re-evaluate against the new inputs with "
                  "--allow-changed-inputs\n", COMMAND, file, changed->str);
      return FFM_EXIT_FAILURE;
    }
  g_printerr ("ffm %s: note: %s: evaluating against changed inputs "
              "(--allow-changed-inputs): %s\n", COMMAND, file, changed->str);
  return FFM_EXIT_OK;
}

/* ---- Evaluating one file ---- */

/* One file, evaluated. */
typedef struct {
  const char *file;             /* borrowed */
  FfmCliProblemOptions problem; /* the options after merging the record */
  FfmResultFile *result;        /* NULL for a Timeloop mapping */
  FfmMapping *translated;       /* a Timeloop mapping, translated */
  FfmWorkload *workload;
  FfmArch *arch;
  FfmCostReport *report;
  FfmResultInfo *info;          /* the record of this evaluation */
  GPtrArray *notes;             /* of char*: the overrides */
  FfmConstraints *constraints;  /* checked against, or NULL */
  GPtrArray *violations;        /* of Violation*, when constraints */
} Evaluated;

/* One constraint that the mapping of one Einsum violates. */
typedef struct {
  char *constraint;             /* described, with its origin */
  char *einsum;
  char *why;
} Violation;

static void
violation_free (gpointer data)
{
  Violation *v = data;

  g_free (v->constraint);
  g_free (v->einsum);
  g_free (v->why);
  g_free (v);
}

static void
evaluated_clear (Evaluated *e)
{
  ffm_cli_problem_options_clear (&e->problem);
  g_clear_pointer (&e->result, ffm_result_file_free);
  g_clear_pointer (&e->translated, ffm_mapping_free);
  g_clear_pointer (&e->workload, ffm_workload_unref);
  g_clear_pointer (&e->arch, ffm_arch_unref);
  g_clear_pointer (&e->report, ffm_cost_report_free);
  g_clear_pointer (&e->info, ffm_result_info_free);
  g_clear_pointer (&e->notes, g_ptr_array_unref);
  g_clear_pointer (&e->constraints, ffm_constraints_unref);
  g_clear_pointer (&e->violations, g_ptr_array_unref);
}

static void
evaluated_free (gpointer data)
{
  evaluated_clear (data);
  g_free (data);
}

/* The record of this evaluation: the problem as loaded, and how the
 * mapping was made when the file says. */
static FfmResultInfo *
eval_info (const FfmResultInfo *recorded, FfmPluginRegistry *registry,
           const FfmCliProblemOptions *problem, const FfmWorkload *w, const FfmArch *a)
{
  FfmResultInfo *info = ffm_cli_problem_info_new (COMMAND, registry, problem, w, a);

  if (recorded != NULL)
    ffm_result_info_set_search_from (info, recorded);
  return info;
}

/* A Timeloop map.yaml (timeloop:FILE), which only --arch and --workload
 * can give a meaning: loaded, translated for them and evaluated into @e. */
static int
evaluate_timeloop (GOptionContext *context, const EvalOptions *o,
                   FfmPluginRegistry *registry, const char *file, Evaluated *e)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = NULL;
  int status;

  if (e->problem.workload == NULL || e->problem.arch == NULL)
    return ffm_cli_usage_error (context, COMMAND, "a Timeloop mapping needs --arch "
                                "and --workload");
  status = ffm_cli_load_workload (context, COMMAND, &e->problem, &e->workload);
  if (status != FFM_EXIT_OK)
    return status;
  status = ffm_cli_load_arch (context, COMMAND, registry, &e->problem, &e->arch);
  if (status != FFM_EXIT_OK)
    return status;
  spec = ffm_timeloop_spec_load_list (file + strlen (FFM_CLI_TIMELOOP_PREFIX), &error);
  if (spec != NULL)
    {
      e->translated = ffm_timeloop_spec_to_mapping (spec, e->workload, e->arch,
                                                    FFM_TIMELOOP_MAPPING_DEFAULT, &error);
      ffm_cli_warn_timeloop (COMMAND, spec);
    }
  if (e->translated == NULL)
    return ffm_cli_fail (COMMAND, error);
  e->report = ffm_cost_evaluate_mapping (e->workload, e->arch, e->translated, &error);
  if (e->report == NULL)
    return ffm_cli_fail (COMMAND, error);
  e->info = eval_info (NULL, registry, &e->problem, e->workload, e->arch);
  return FFM_EXIT_OK;
}

/* Loads @file, rebuilds its problem (the record under the command line's
 * options) and evaluates its mapping into @e. Returns an exit status,
 * having printed the error. */
static int
evaluate_file (GOptionContext *context, const EvalOptions *o,
               FfmPluginRegistry *registry, const char *file, Evaluated *e)
{
  g_autoptr (GError) error = NULL;
  const FfmResultInfo *recorded;
  const FfmMapping *mapping;
  int status;

  e->file = file;
  e->notes = g_ptr_array_new_with_free_func (g_free);
  e->problem.arch = g_strdup (o->problem.arch);
  e->problem.arch_params = g_strdupv (o->problem.arch_params);
  e->problem.workload = g_strdup (o->problem.workload);
  e->problem.params = g_strdupv (o->problem.params);
  if (g_str_has_prefix (file, FFM_CLI_TIMELOOP_PREFIX))
    return evaluate_timeloop (context, o, registry, file, e);
  e->result = ffm_result_file_load (file, &error);
  if (e->result == NULL)
    return ffm_cli_fail (COMMAND, error);
  recorded = ffm_result_file_get_info (e->result);
  mapping = ffm_result_file_get_mapping (e->result);
  if (mapping == NULL)
    {
      g_set_error (&error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID,
                   "%s holds no mapping (it was written by ffm %s)", file,
                   ffm_result_info_get_command (recorded) != NULL
                   ? ffm_result_info_get_command (recorded) : "?");
      return ffm_cli_fail (COMMAND, error);
    }
  if (recorded != NULL)
    {
      merge_source (ffm_result_info_get_architecture (recorded), "architecture",
                    &e->problem.arch, &e->problem.arch_params, "--arch", "--arch-param",
                    file, e->notes);
      merge_source (ffm_result_info_get_workload (recorded), "workload",
                    &e->problem.workload, &e->problem.params, "--workload", "--param",
                    file, e->notes);
    }
  else
    {
      /* A plain mapping may name what it was made for. */
      if (e->problem.arch == NULL && ffm_mapping_get_architecture_name (mapping) != NULL)
        e->problem.arch = g_strdup (ffm_mapping_get_architecture_name (mapping));
      if (e->problem.workload == NULL && ffm_mapping_get_workload_name (mapping) != NULL)
        e->problem.workload = g_strdup (ffm_mapping_get_workload_name (mapping));
    }
  for (guint i = 0; i < e->notes->len; i++)
    g_printerr ("ffm %s: note: %s\n", COMMAND, (const char *) g_ptr_array_index (e->notes, i));

  if (e->problem.workload == NULL || e->problem.arch == NULL)
    return ffm_cli_usage_error (context, COMMAND,
                                "%s is a plain mapping naming no %s: give --arch and "
                                "--workload (and their parameters)", file,
                                e->problem.arch == NULL ? "architecture" : "workload");
  status = ffm_cli_load_workload (context, COMMAND, &e->problem, &e->workload);
  if (status != FFM_EXIT_OK)
    return status;
  status = ffm_cli_load_arch (context, COMMAND, registry, &e->problem, &e->arch);
  if (status != FFM_EXIT_OK)
    return status;
  e->info = eval_info (recorded, registry, &e->problem, e->workload, e->arch);
  if (g_file_test (file, G_FILE_TEST_IS_REGULAR))
    {
      g_autofree char *digest = ffm_result_digest_file (file);
      if (digest != NULL && recorded == NULL)
        ffm_result_info_set_digest (e->info, "mapping", digest);
    }
  if (recorded != NULL)
    {
      if (ffm_result_info_get_digest (recorded, "mapping") != NULL)
        ffm_result_info_set_digest (e->info, "mapping",
                                    ffm_result_info_get_digest (recorded, "mapping"));
      status = check_recorded_inputs (file, recorded, e->info, o->allow_changed_inputs);
      if (status != FFM_EXIT_OK)
        return status;
    }
  e->report = ffm_cost_evaluate_mapping (e->workload, e->arch, mapping, &error);
  if (e->report == NULL)
    {
      g_autofree char *why = mismatch_context (recorded, mapping, e->workload, e->arch);
      g_printerr ("ffm %s: %s%s\n", COMMAND, error->message, why);
      return FFM_EXIT_FAILURE;
    }
  return FFM_EXIT_OK;
}

/* ---- Constraints ---- */

/* Checks the evaluated mapping against the constraint options, if any:
 * each constraint bound on its own (so that one violation does not hide
 * the next) and every Einsum's path checked with the core's admission
 * test. FALSE when the set does not bind (an unknown name: the error
 * names the file or option). */
static gboolean
check_constraints (const EvalOptions *o, Evaluated *e, GError **error)
{
  g_autoptr (FfmProblem) problem = ffm_problem_new (e->workload, e->arch);
  g_autoptr (GPtrArray) paths = NULL;
  const FfmConstraints *c;

  if (!ffm_cli_constraints_build (&o->constraints, problem, &e->constraints, error))
    return FALSE;
  if (e->constraints == NULL)
    return TRUE;
  c = e->constraints;
  e->violations = g_ptr_array_new_with_free_func (violation_free);
  paths = ffm_mapping_dup_paths (ffm_cost_report_get_mapping (e->report));
  for (guint i = 0; i < ffm_constraints_get_n (c); i++)
    {
      g_autoptr (FfmConstraints) one = ffm_constraints_new (ffm_constraints_get_name (c));
      g_autoptr (FfmBoundConstraints) bound = NULL;
      g_autofree char *described = ffm_constraints_describe (c, i);
      g_autofree char *prefix = g_strdup_printf ("%s: ", described);

      if (!ffm_constraints_add (one, ffm_constraints_get (c, i),
                                ffm_constraints_get_origin (c, i), error)
          || (bound = ffm_constraints_bind (one, e->workload, e->arch, error)) == NULL)
        return FALSE;
      for (guint p = 0; p < paths->len; p++)
        {
          const GPtrArray *path = g_ptr_array_index (paths, p);
          const FfmMappingNode *last = g_ptr_array_index (path, path->len - 1);
          int einsum = ffm_workload_find_einsum (e->workload, last->einsum);
          g_autoptr (GString) why = g_string_new (NULL);
          Violation *v;
          if (einsum < 0
              || ffm_bound_constraints_admit_pmapping (bound, (guint) einsum,
                                                       (const FfmMappingNode *const *) path->pdata,
                                                       path->len, why))
            continue;
          v = g_new0 (Violation, 1);
          v->constraint = g_strdup (described);
          v->einsum = g_strdup (last->einsum);
          /* The core's message starts with the constraint: said once. */
          v->why = g_strdup (g_str_has_prefix (why->str, prefix) ? why->str + strlen (prefix)
                                                                 : why->str);
          g_ptr_array_add (e->violations, v);
        }
    }
  return TRUE;
}

/* The verdict, one line per violation (text). */
static void
append_constraints_text (const Evaluated *e, GString *out)
{
  if (e->constraints == NULL)
    return;
  g_string_append_printf (out, "\nConstraints (%s): ", ffm_constraints_get_name (e->constraints));
  if (e->violations->len == 0)
    {
      g_string_append_printf (out, "all %u satisfied\n", ffm_constraints_get_n (e->constraints));
      return;
    }
  g_string_append_printf (out, "%u violation%s\n", e->violations->len,
                          e->violations->len == 1 ? "" : "s");
  for (guint i = 0; i < e->violations->len; i++)
    {
      const Violation *v = g_ptr_array_index (e->violations, i);
      g_string_append_printf (out, "  %s\n    Einsum %s: %s\n", v->constraint, v->einsum, v->why);
    }
}

static void
write_constraints_json (FfmJsonWriter *b, const Evaluated *e)
{
  if (e->constraints == NULL)
    return;
  ffm_json_writer_key (b, "constraints");
  ffm_json_writer_begin_object (b);
  ffm_json_writer_member_string (b, "name", ffm_constraints_get_name (e->constraints));
  ffm_json_writer_member_boolean (b, "satisfied", e->violations->len == 0);
  ffm_json_writer_key (b, "violations");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < e->violations->len; i++)
    {
      const Violation *v = g_ptr_array_index (e->violations, i);
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "constraint", v->constraint);
      ffm_json_writer_member_string (b, "einsum", v->einsum);
      ffm_json_writer_member_string (b, "why", v->why);
      ffm_json_writer_end_object (b);
    }
  ffm_json_writer_end_array (b);
  ffm_json_writer_end_object (b);
}

/* ---- Output ---- */

/* The members of one evaluation's result (in the object @b has open). */
static void
write_result (FfmJsonWriter *b, const Evaluated *e)
{
  ffm_result_info_write_json (e->info, b);
  ffm_json_writer_member_string (b, "workload", ffm_workload_get_name (e->workload));
  ffm_json_writer_member_string (b, "architecture", ffm_arch_get_name (e->arch));
  ffm_json_writer_key (b, "overrides");
  ffm_json_writer_begin_array (b);
  for (guint i = 0; i < e->notes->len; i++)
    ffm_json_writer_string (b, g_ptr_array_index (e->notes, i));
  ffm_json_writer_end_array (b);
  ffm_cli_report_write_json (e->report, b);
  write_constraints_json (b, e);
}

static int
print_one (const EvalOptions *o, const Evaluated *e)
{
  g_autoptr (GPtrArray) tables = ffm_cli_tables_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL;

  ffm_cli_report_add_tables (e->report, tables);
  if (ffm_cli_output_wants_text (&o->output))
    {
      FfmCliReportOptions report_options = { o->loop_nest };
      g_autoptr (GString) out = g_string_new (NULL);
      g_string_append_printf (out, "Mapping %s: workload %s on architecture %s\n\n", e->file,
                              ffm_workload_get_name (e->workload), ffm_arch_get_name (e->arch));
      ffm_cli_report_append_text (e->report, &report_options, out);
      append_constraints_text (e, out);
      g_print ("%s", out->str);
    }
  if (o->output.json != NULL || o->visual.html != NULL)
    {
      g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
      ffm_json_writer_begin_object (b);
      write_result (b, e);
      ffm_json_writer_end_object (b);
      json = ffm_json_writer_finish (b);
    }
  if (!ffm_cli_output_write_results (&o->output, o->output.json != NULL ? json : NULL, tables,
                                     &error))
    return ffm_cli_fail (COMMAND, error);
  if (ffm_cli_visual_wanted (&o->visual))
    {
      FfmHtmlResult one = { e->report, e->file, tables };
      if (!ffm_cli_visual_write_results (&o->visual, COMMAND, &one, 1, NULL, NULL, json,
                                         &error))
        return ffm_cli_fail (COMMAND, error);
    }
  return FFM_EXIT_OK;
}

/* The warnings of a comparison: what the architectures charge
 * (ffm-cli-fairness.h), and workloads that are not the same. */
static GPtrArray *
comparison_warnings (GPtrArray *done)
{
  g_autofree const FfmArch **archs = g_new0 (const FfmArch *, done->len);
  g_autofree const char **labels = g_new0 (const char *, done->len);
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  const Evaluated *first = g_ptr_array_index (done, 0);
  GPtrArray *warnings;

  for (guint i = 0; i < done->len; i++)
    {
      const Evaluated *e = g_ptr_array_index (done, i);
      char *label = g_strdup_printf ("%s (%s)", ffm_arch_get_name (e->arch), e->file);
      g_ptr_array_add (owned, label);
      archs[i] = e->arch;
      labels[i] = label;
    }
  warnings = ffm_cli_fairness_compare (archs, labels, done->len);
  for (guint i = 1; i < done->len; i++)
    {
      const Evaluated *e = g_ptr_array_index (done, i);
      g_autofree char *diff = NULL;
      if (strcmp (ffm_workload_get_name (e->workload), ffm_workload_get_name (first->workload)) != 0)
        g_ptr_array_add (warnings, g_strdup_printf ("%s evaluates workload %s, %s workload %s: "
                                                    "not the same work",
                                                    e->file, ffm_workload_get_name (e->workload),
                                                    first->file,
                                                    ffm_workload_get_name (first->workload)));
      else if ((diff = describe_param_differences (ffm_workload_get_param_values (first->workload),
                                                   ffm_workload_get_param_values (e->workload)))
               != NULL)
        g_ptr_array_add (warnings, g_strdup_printf ("the workloads differ: %s and %s are %s",
                                                    first->file, e->file, diff));
    }
  return warnings;
}

static FfmCliTable *
comparison_table (GPtrArray *done)
{
  FfmCliTable *t = ffm_cli_table_new ("results", NULL);

  ffm_cli_table_add_text_column (t, "file", "file");
  ffm_cli_table_add_text_column (t, "workload", "workload");
  ffm_cli_table_add_text_column (t, "architecture", "architecture");
  ffm_cli_table_add_column (t, "energy_j", "energy");
  ffm_cli_table_add_column (t, "latency_s", "latency");
  ffm_cli_table_add_column (t, "edp_js", "EDP");
  ffm_cli_table_add_text_column (t, "fits", "fits");
  ffm_cli_table_add_text_column (t, "main_memory_charged", "main memory charged");
  for (guint i = 0; i < done->len; i++)
    {
      const Evaluated *e = g_ptr_array_index (done, i);
      ffm_cli_table_add_row (t);
      ffm_cli_table_cell (t, e->file, NULL);
      ffm_cli_table_cell (t, ffm_workload_get_name (e->workload), NULL);
      ffm_cli_table_cell (t, ffm_arch_get_name (e->arch), NULL);
      ffm_cli_table_cell_quantity (t, ffm_cost_report_get_energy (e->report), "J");
      ffm_cli_table_cell_quantity (t, ffm_cost_report_get_latency (e->report), "s");
      ffm_cli_table_cell_quantity (t, ffm_cost_report_get_edp (e->report), "J*s");
      ffm_cli_table_cell_boolean (t, ffm_cost_report_fits (e->report));
      ffm_cli_table_cell_boolean (t, ffm_cli_main_memory_is_charged (e->arch));
    }
  return t;
}

/* Several files: the results side by side, with what makes them not
 * comparable. */
static int
print_comparison (const EvalOptions *o, GPtrArray *done)
{
  g_autoptr (GPtrArray) warnings = comparison_warnings (done);
  g_autoptr (GPtrArray) tables = ffm_cli_tables_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL;

  g_ptr_array_add (tables, comparison_table (done));
  for (guint i = 0; i < warnings->len; i++)
    ffm_cli_warn (COMMAND, "%s", (const char *) g_ptr_array_index (warnings, i));
  if (ffm_cli_output_wants_text (&o->output))
    {
      g_autoptr (GString) out = g_string_new (NULL);
      g_string_append_printf (out, "%u results\n\n", done->len);
      ffm_cli_table_append_text (g_ptr_array_index (tables, 0), out);
      for (guint i = 0; i < warnings->len; i++)
        g_string_append_printf (out, "%sWarning: %s\n", i == 0 ? "\n" : "",
                                (const char *) g_ptr_array_index (warnings, i));
      g_print ("%s", out->str);
    }
  if (o->output.json != NULL || o->visual.html != NULL)
    {
      g_autoptr (FfmJsonWriter) b = ffm_json_writer_new ();
      ffm_json_writer_begin_object (b);
      ffm_json_writer_member_string (b, "ffm_version", FFM_VERSION_STRING);
      ffm_json_writer_member_string (b, "command", COMMAND);
      ffm_json_writer_key (b, "warnings");
      ffm_json_writer_begin_array (b);
      for (guint i = 0; i < warnings->len; i++)
        ffm_json_writer_string (b, g_ptr_array_index (warnings, i));
      ffm_json_writer_end_array (b);
      ffm_json_writer_key (b, "results");
      ffm_json_writer_begin_array (b);
      for (guint i = 0; i < done->len; i++)
        {
          ffm_json_writer_begin_object (b);
          write_result (b, g_ptr_array_index (done, i));
          ffm_json_writer_end_object (b);
        }
      ffm_json_writer_end_array (b);
      ffm_json_writer_end_object (b);
      json = ffm_json_writer_finish (b);
    }
  if (!ffm_cli_output_write_results (&o->output, o->output.json != NULL ? json : NULL, tables,
                                     &error))
    return ffm_cli_fail (COMMAND, error);
  if (ffm_cli_visual_wanted (&o->visual))
    {
      g_autofree FfmHtmlResult *results = g_new0 (FfmHtmlResult, done->len);
      g_autoptr (GPtrArray) per_file = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
      for (guint i = 0; i < done->len; i++)
        {
          const Evaluated *e = g_ptr_array_index (done, i);
          GPtrArray *t = ffm_cli_tables_new ();
          ffm_cli_report_add_tables (e->report, t);
          g_ptr_array_add (per_file, t);
          results[i] = (FfmHtmlResult) { e->report, e->file, t };
        }
      if (!ffm_cli_visual_write_results (&o->visual, COMMAND, results, done->len, tables,
                                         warnings, json, &error))
        return ffm_cli_fail (COMMAND, error);
    }
  return FFM_EXIT_OK;
}

static int
run_eval (GOptionContext *context, EvalOptions *o, char **files)
{
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (GPtrArray) done = g_ptr_array_new_with_free_func (evaluated_free);
  gboolean fits = TRUE;
  int status;

  if (ffm_cli_output_options_conflict (&o->output) != NULL)
    return ffm_cli_usage_error (context, COMMAND, "%s",
                                ffm_cli_output_options_conflict (&o->output));
  {
    g_autoptr (GError) error = NULL;
    if (!ffm_cli_output_paths_check (NULL, &error, "--json", o->output.json,
                                     "--csv", o->output.csv, "--html", o->visual.html,
                                     "--diagram", o->visual.diagram,
                                     "--diagram-dot", o->visual.diagram_dot, NULL))
      return ffm_cli_usage_error (context, COMMAND, "%s", error->message);
    if (!ffm_cli_visual_check (&o->visual, &error))
      return g_error_matches (error, FFM_CANVAS_ERROR, FFM_CANVAS_ERROR_UNAVAILABLE)
        ? ffm_cli_fail (COMMAND, error)
        : ffm_cli_usage_error (context, COMMAND, "%s", error->message);
  }
  if (files[0] != NULL && files[1] != NULL
      && (o->visual.diagram != NULL || o->visual.diagram_dot != NULL))
    return ffm_cli_usage_error (context, COMMAND, "--diagram draws one mapping: give one "
                                "file (--html shows each of several)");
  registry = ffm_cli_registry_new (&o->common);
  for (guint i = 0; files[i] != NULL; i++)
    {
      Evaluated *e = g_new0 (Evaluated, 1);
      g_ptr_array_add (done, e);
      g_autoptr (GError) error = NULL;
      status = evaluate_file (context, o, registry, files[i], e);
      if (status != FFM_EXIT_OK)
        return status;
      if (!check_constraints (o, e, &error))
        return ffm_cli_fail (COMMAND, error);
    }
  status = done->len == 1 ? print_one (o, g_ptr_array_index (done, 0))
                          : print_comparison (o, done);
  if (status != FFM_EXIT_OK)
    return status;
  for (guint i = 0; i < done->len; i++)
    {
      const Evaluated *e = g_ptr_array_index (done, i);
      for (guint k = 0; e->violations != NULL && k < e->violations->len; k++)
        {
          const Violation *v = g_ptr_array_index (e->violations, k);
          g_printerr ("ffm %s: %s: the mapping violates %s: Einsum %s: %s\n", COMMAND,
                      e->file, v->constraint, v->einsum, v->why);
          fits = FALSE;
        }
      if (ffm_cost_report_fits (e->report))
        continue;
      g_printerr ("ffm %s: %s: the mapping does not fit architecture %s: %s\n", COMMAND,
                  e->file, ffm_arch_get_name (e->arch), ffm_cost_report_get_problem (e->report));
      fits = FALSE;
    }
  return fits ? FFM_EXIT_OK : FFM_EXIT_FAILURE;
}

int
ffm_cmd_eval (int argc, char **argv)
{
  EvalOptions o = { FFM_CLI_COMMON_INIT, FFM_CLI_PROBLEM_OPTIONS_INIT,
                    FFM_CLI_OUTPUT_OPTIONS_INIT, FFM_CLI_VISUAL_OPTIONS_INIT,
                    FFM_CLI_SEARCH_OPTIONS_INIT, NULL, FALSE, FALSE };
  const GOptionEntry entries[] = {
    { "mapping", 'm', 0, G_OPTION_ARG_FILENAME, &o.mapping,
      "The mapping or result file to evaluate (or give it as the argument; a "
      "Timeloop mapping: timeloop:map.yaml)", "FILE" },
    { "loop-nest", 0, 0, G_OPTION_ARG_NONE, &o.loop_nest,
      "Also print the mapping as loop-nest pseudo-code", NULL },
    { "allow-changed-inputs", 0, 0, G_OPTION_ARG_NONE, &o.allow_changed_inputs,
      "Re-evaluate a result file although an input it records (architecture or "
      "workload file, model plugin, ffm version) changed since it was written", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autofree char *description = ffm_cli_describe (
    "Evaluates a mapping with the cost model and prints energy, latency, EDP,\n"
    "per Einsum (with the component bounding its latency), per component,\n"
    "fanout utilization, per tensor and per (Einsum, component, tensor) the\n"
    "reads, fills, drains and updates, and the LoopTree. FILE is a result file\n"
    "(ffm map --json, ffm eval --json), which needs no other option, or a\n"
    "mapping file, which needs --arch and --workload. Options override what a\n"
    "result file records. Several files are compared side by side, with a\n"
    "warning when they do not charge the same things (a free main memory) or\n"
    "do not evaluate the same workload. With --constraints or --policy the\n"
    "mapping is checked against the constraints too: every violated one is\n"
    "reported (constraint, Einsum, why) and the exit code is 1. Examples:\n"
    "  ffm map --arch simple --workload matmuls --json result.json\n"
    "  ffm eval result.json\n"
    "  ffm eval result.json --policy unfused\n"
    "  ffm eval --arch simple --workload matmuls --param n_einsums=1 \\\n"
    "    --mapping docs/examples/mappings/unfused_matmuls_to_simple.json\n"
    "Mapping and result files: file-formats.md; the model: cost-model.md.\n",
    "cost-model.md");
  g_autoptr (GOptionContext) context = NULL;
  g_auto (GStrv) positional = NULL;
  int status;

  context = ffm_cli_context_new (COMMAND, "[FILE...]", description);
  g_option_context_add_main_entries (context, entries, NULL);
  ffm_cli_add_output_options (context, &o.output, "the result");
  ffm_cli_add_visual_options (context, &o.visual, TRUE, "the report");
  ffm_cli_add_problem_options (context, &o.problem);
  ffm_cli_add_constraint_options (context, &o.constraints);
  ffm_cli_add_common_options (context, &o.common, TRUE);

  if (!ffm_cli_parse (context, COMMAND, &o.common, NULL, argc, argv, &positional))
    status = FFM_EXIT_USAGE;
  else if (positional[0] != NULL && o.mapping != NULL)
    status = ffm_cli_usage_error (context, COMMAND, "give the file as the argument or "
                                  "after --mapping, not both");
  else if (positional[0] == NULL && o.mapping == NULL)
    status = ffm_cli_usage_error (context, COMMAND, "which mapping? (a result file or "
                                  "--mapping FILE)");
  else if (positional[0] == NULL)
    {
      char *one[] = { o.mapping, NULL };
      status = run_eval (context, &o, one);
    }
  else
    status = run_eval (context, &o, positional);

  g_free (o.mapping);
  ffm_cli_visual_options_clear (&o.visual);
  ffm_cli_output_options_clear (&o.output);
  ffm_cli_search_options_clear (&o.constraints);
  ffm_cli_problem_options_clear (&o.problem);
  ffm_cli_common_clear (&o.common);
  return status;
}
