/* test-timeloop-frontend.c: Timeloop designs as their users write them
 * (ffm-timeloop.h): the front end's `nodes` form and design folders,
 * Timeloop's counting conventions (against counts derived by hand here),
 * mapspace constraints, energies without an ERT, strictness, and result
 * files made from Timeloop inputs.
 *
 * tests/data/timeloop/fe holds a small design laid out as the tutorials'
 * exercises: chip/arch.yaml (containers, a fanout, a !Parallel pair of
 * registers and a !Nothing branch, a disabled component, constraints on
 * the nodes), _components/ (compound classes), _include/ (a strided
 * convolution with the front end's [DIMENSION, COEFFICIENT] terms, an
 * empty name and extra instance keys; mapper settings), chip-ERT.yaml,
 * chip-map.yaml, and chip-rendered.yaml, the architecture as Timeloop's
 * front end renders it for Timeloop. The conventions use small
 * architectures written below. */
#include <ffm/ffm.h>

#include "ffm-run.h"

#include <ffm/ffm-estimator.h>
#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

static char *
fe_path (const char *file)
{
  return g_test_build_filename (G_TEST_DIST, "data", "timeloop", "fe", file, NULL);
}

static void
assert_contains (const char *text, const char *needle)
{
  if (text == NULL || strstr (text, needle) == NULL)
    g_error ("'%s' not found in:\n%s", needle, text != NULL ? text : "(null)");
}

static void
assert_relative (double got, double want, double tolerance)
{
  if (fabs (got - want) > tolerance * fabs (want) && !(got == 0 && want == 0))
    g_error ("got %.17g, want %.17g (relative tolerance %g)", got, want, tolerance);
}

/* Files under fe/, NULL-terminated. */
static FfmTimeloopSpec *
load_fe_v (const char *const *files, GError **error)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; files[i] != NULL; i++)
    g_ptr_array_add (paths, fe_path (files[i]));
  g_ptr_array_add (paths, NULL);
  return ffm_timeloop_spec_load ((const char *const *) paths->pdata, error);
}

#define LOAD_FE(error, ...) \
  load_fe_v ((const char *const[]) { __VA_ARGS__, NULL }, (error))

/* A YAML text written to a temporary file (transfer full: the path). */
static char *
yaml_file (const char *text)
{
  g_autoptr (GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("ffm-tl-XXXXXX.yaml", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  return path;
}

/* A specification of YAML texts (NULL-terminated); the files are removed
 * once read. */
static FfmTimeloopSpec *
load_texts_v (const char *const *texts, GError **error)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  FfmTimeloopSpec *spec;

  for (guint i = 0; texts[i] != NULL; i++)
    g_ptr_array_add (paths, yaml_file (texts[i]));
  g_ptr_array_add (paths, NULL);
  spec = ffm_timeloop_spec_load ((const char *const *) paths->pdata, error);
  for (guint i = 0; i + 1 < paths->len; i++)
    g_unlink (paths->pdata[i]);
  return spec;
}

#define LOAD_TEXTS(error, ...) \
  load_texts_v ((const char *const[]) { __VA_ARGS__, NULL }, (error))

/* ---- The front end's form and design folders ---- */

static void
test_design_folder (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = LOAD_FE (&error, "chip", "chip-ERT.yaml");
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmWorkload) w = NULL;
  g_auto (GStrv) warnings = NULL;
  g_auto (GStrv) all = NULL;
  const FfmLevel *l;
  const FfmEinsum *e;
  int lv;

  g_test_summary ("A design folder in the front end's form (nodes, tags, "
                  "containers, !Parallel, compound classes, _include) imports "
                  "as the front end renders it");
  g_assert_no_error (error);
  g_assert_true (ffm_timeloop_spec_has (spec, "problem"));   /* _include */
  g_assert_true (ffm_timeloop_spec_has (spec, "mapper"));
  g_assert_true (ffm_timeloop_spec_has (spec, "compound_components"));
  arch = ffm_timeloop_spec_to_arch (spec, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_arch_get_name (arch), ==, "chip");
  /* DRAM, glb, the placeholder, the fanout, the two registers, the MAC;
   * the disabled register and the !Nothing branch left out */
  g_assert_cmpuint (ffm_arch_get_n_levels (arch), ==, 7);
  g_assert_cmpint (ffm_arch_find_level (arch, "spare"), ==, -1);
  l = ffm_arch_get_level (arch, ffm_arch_find_level (arch, "DRAM"));
  g_assert_cmpfloat (l->u.memory.bits_per_action, ==, 32);     /* 4 words */
  g_assert_true (l->u.memory.whole_actions);
  l = ffm_arch_get_level (arch, ffm_arch_find_level (arch, "glb"));
  g_assert_cmpfloat (l->u.memory.bits_per_action, ==, 16);
  g_assert_cmpfloat (l->u.memory.size, ==, 256 * 2 * 8);      /* depth x block */
  g_assert_cmpfloat (l->u.memory.read_bandwidth, ==, 16 / 2 / 1e-9);  /* kebab */
  g_assert_cmpfloat (l->leak_power, ==, 0.5e-12 / 1e-9);
  g_assert_true (l->leak_utilized);
  lv = ffm_arch_find_level (arch, "inter_PE_spatial");
  g_assert_cmpint (lv, ==, 2);
  l = ffm_arch_get_level (arch, lv);
  g_assert_cmpint (l->kind, ==, FFM_LEVEL_MEMORY);
  g_assert_cmpstr (l->u.memory.may_keep, ==, "nothing");
  l = ffm_arch_get_level (arch, 3);
  g_assert_cmpint (l->kind, ==, FFM_LEVEL_FANOUT);
  g_assert_cmpstr (l->name, ==, "PE");
  g_assert_cmpuint (l->u.fanout.n_dims, ==, 1);
  g_assert_cmpstr (l->u.fanout.dims[0].name, ==, "X");
  g_assert_cmpuint (l->u.fanout.dims[0].count, ==, 4);
  g_assert_cmpstr (ffm_arch_get_level (arch, 4)->name, ==, "wreg");
  g_assert_cmpstr (ffm_arch_get_level (arch, 5)->name, ==, "ireg");
  l = ffm_arch_get_level (arch, 6);
  g_assert_cmpint (l->kind, ==, FFM_LEVEL_COMPUTE);
  g_assert_true (l->u.compute.operand_reuse);
  g_assert_cmpfloat (l->leak_power, ==, 0);     /* the ERT's 3 pJ: not Timeloop's */

  w = ffm_timeloop_spec_to_workload (spec, 8, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_workload_get_name (w), ==, "problem");   /* name: '' */
  e = ffm_workload_get_einsum (w, 0);
  /* [P, Wstride], [R]: the dimension first, as Timeloop reads it */
  g_assert_cmpstr (e->text, ==, "Outputs[M:m,P:p] = Weights[M:m,R:r] * "
                   "Inputs[P_R:2*p+r]");
  g_assert_cmpuint (ffm_workload_get_tensor_values (w, ffm_workload_find_tensor (w, "Inputs")),
                    ==, 2 * 7 + 2 + 1);
  /* the data spaces keep their names, and Weights is the weight */
  g_assert_cmpuint (ffm_einsum_get_role_set (e, FFM_ROLE_WEIGHT), ==,
                    1u << ffm_einsum_find_access (e, (guint) ffm_workload_find_tensor (w, "Weights")));

  /* extra instance keys: one grouped line, every one with all */
  warnings = ffm_timeloop_spec_steal_warnings_grouped (spec, FALSE);
  g_assert_cmpuint (g_strv_length (warnings), ==, 1);
  assert_contains (warnings[0], "3 instance keys that are no dimension or "
                   "coefficient ignored, the first: ");
  assert_contains (warnings[0], "default_problem.yaml:19: problem.instance.H: ");
  assert_contains (warnings[0], "(--verbose lists all)");
}

/* The folder named ".", "./" or "chip/": _include and _components are
 * still found beside it. */
static void
test_design_folder_names (void)
{
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *chip_rel = fe_path ("chip"), *fe_rel = fe_path (".");
  g_autofree char *chip = g_canonicalize_filename (chip_rel, NULL);
  g_autofree char *fe = g_canonicalize_filename (fe_rel, NULL);
  static const struct { gboolean in_chip; const char *name; } cases[] = {
    { TRUE, "." }, { TRUE, "./" }, { TRUE, "../chip" }, { FALSE, "chip/" },
  };

  g_test_summary ("A design folder named relatively, with or without a "
                  "trailing slash, finds the _include and _components beside it");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmTimeloopSpec) spec = NULL;
      const char *paths[] = { cases[i].name, NULL };
      g_assert_cmpint (g_chdir (cases[i].in_chip ? chip : fe), ==, 0);
      spec = ffm_timeloop_spec_load (paths, &error);
      g_assert_cmpint (g_chdir (cwd), ==, 0);
      g_assert_no_error (error);
      g_test_message ("%s", cases[i].name);
      g_assert_true (ffm_timeloop_spec_has (spec, "problem"));
      g_assert_true (ffm_timeloop_spec_has (spec, "mapper"));
      g_assert_true (ffm_timeloop_spec_has (spec, "compound_components"));
    }
}

static void
test_grouped_warnings (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) a = LOAD_FE (&error, "chip", "chip-ERT.yaml");
  g_autoptr (FfmTimeloopSpec) b = NULL;
  g_autoptr (FfmWorkload) w = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmMapping) m = NULL;
  g_auto (GStrv) grouped = NULL, all = NULL;

  g_test_summary ("Warnings: what changes a number first and in full, the rest "
                  "one line per kind; all of them on request");
  g_assert_no_error (error);
  arch = ffm_timeloop_spec_to_arch (a, &error);
  g_assert_no_error (error);
  w = ffm_timeloop_spec_to_workload (a, 8, &error);
  g_assert_no_error (error);
  b = LOAD_FE (&error, "chip-map.yaml");
  g_assert_no_error (error);
  m = ffm_timeloop_spec_to_mapping (b, w, arch, FFM_TIMELOOP_MAPPING_DEFAULT, &error);
  g_assert_no_error (error);
  /* the mapping's sliding windows change numbers: they come first */
  grouped = ffm_timeloop_spec_steal_warnings_grouped (b, FALSE);
  g_assert_cmpuint (g_strv_length (grouped), ==, 2);
  assert_contains (grouped[0], "sliding window");
  all = ffm_timeloop_spec_steal_warnings_grouped (a, TRUE);
  g_assert_cmpuint (g_strv_length (all), ==, 3);
  assert_contains (all[2], "problem.instance.Wpad");
}

/* The architecture's levels as JSON without descriptions and sources,
 * which name the files. */
static char *
arch_shape (const FfmArch *arch)
{
  g_autofree char *json = ffm_arch_to_json (arch);
  g_auto (GStrv) lines = g_strsplit (json, "\n", -1);
  GString *s = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], "\"description\"") == NULL && strstr (lines[i], "\"source\"") == NULL)
      g_string_append_printf (s, "%s\n", lines[i]);
  return g_string_free (s, FALSE);
}

static void
test_same_as_rendered (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) nodes = LOAD_FE (&error, "chip", "chip-ERT.yaml");
  g_autoptr (FfmTimeloopSpec) rendered = NULL;
  g_autoptr (FfmArch) a = NULL, b = NULL;
  g_autofree char *sa = NULL, *sb = NULL;

  g_test_summary ("The nodes form and the subtree form the front end renders "
                  "from it give the same architecture");
  g_assert_no_error (error);
  rendered = LOAD_FE (&error, "chip-rendered.yaml", "chip-ERT.yaml");
  g_assert_no_error (error);
  a = ffm_timeloop_spec_to_arch (nodes, &error);
  g_assert_no_error (error);
  b = ffm_timeloop_spec_to_arch (rendered, &error);
  g_assert_no_error (error);
  sa = arch_shape (a);
  sb = arch_shape (b);
  g_assert_cmpstr (sa, ==, sb);
}

static void
test_jinja (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = LOAD_TEXTS (&error,
    "architecture:\n"
    "  version: 0.4\n"
    "  nodes:\n"
    "  {% if reg %}\n"
    "  - !Component {name: reg, class: regfile}\n"
    "  {% endif %}\n");

  g_test_summary ("A Jinja template is refused, saying so and what to do");
  g_assert_null (spec);
  g_assert_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_UNSUPPORTED);
  assert_contains (error->message, ".yaml:4: a Jinja template ('{{' or '{%'): "
                   "ffm reads YAML, it does not render Jinja");
  assert_contains (error->message, "parsed-processed-input.yaml");
}

/* ---- Timeloop's counting: small architectures, counts by hand ----
 *
 * One buffer (instances: a container's mesh) and a MAC. The problem: a
 * 1-D convolution Outputs[p] = Weights[r] * Inputs[p + r], R = 3, P = 6
 * (18 MACs); operations one per cycle per MAC. */

static const char conv_problem[] =
  "problem:\n"
  "  shape:\n"
  "    name: Conv1D\n"
  "    dimensions: [R, P]\n"
  "    data_spaces:\n"
  "    - {name: Weights, projection: [[[R]]]}\n"
  "    - {name: Inputs, projection: [[[R], [P]]]}\n"
  "    - {name: Outputs, projection: [[[P]]], read_write: True}\n"
  "  instance: {R: 3, P: 6}\n";

/* DRAM (one word of 8 bits per block unless @dram_width), Buffer, MAC. */
static char *
one_buffer_arch (guint dram_width, guint buffer_width, const char *extra)
{
  return g_strdup_printf (
    "architecture:\n"
    "  version: 0.4\n"
    "  nodes:\n"
    "  - !Container {name: sys, attributes: {datawidth: 8}}\n"
    "  - !Component {name: DRAM, class: DRAM, attributes: {width: %u}}\n"
    "  - !Component {name: Buffer, class: SRAM, attributes: {depth: 64, width: %u}}\n"
    "%s"
    "  - !Component {name: MAC, class: intmac}\n"
    "ERT:\n"
    "  version: 0.4\n"
    "  tables:\n"
    "  - name: sys_top_level.DRAM[1..1]\n"
    "    actions: [{name: read, energy: 100}, {name: write, energy: 100}, "
    "{name: update, energy: 100}]\n"
    "  - name: sys_top_level.Buffer[1..1]\n"
    "    actions: [{name: read, energy: 10}, {name: write, energy: 20}, "
    "{name: update, energy: 30}, {name: leak, energy: 1}]\n"
    "  - name: sys_top_level.MAC[1..1]\n"
    "    actions: [{name: compute, energy: 1}, {name: leak, energy: 7}]\n",
    dram_width, buffer_width, extra);
}

typedef struct {
  FfmTimeloopSpec *spec;
  FfmArch *arch;
  FfmWorkload *w;
  FfmMapping *m;
  FfmCostReport *r;
} Run;

static void
run_clear (Run *r)
{
  g_clear_pointer (&r->r, ffm_cost_report_free);
  g_clear_pointer (&r->m, ffm_mapping_free);
  g_clear_pointer (&r->w, ffm_workload_unref);
  g_clear_pointer (&r->arch, ffm_arch_unref);
  g_clear_pointer (&r->spec, ffm_timeloop_spec_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static void
evaluate (Run *run, const char *arch, const char *mapping,
          FfmTimeloopConventions conv)
{
  g_autoptr (GError) error = NULL;

  run->spec = LOAD_TEXTS (&error, arch, conv_problem, mapping);
  g_assert_no_error (error);
  ffm_timeloop_spec_set_conventions (run->spec, conv);
  run->arch = ffm_timeloop_spec_to_arch (run->spec, &error);
  g_assert_no_error (error);
  run->w = ffm_timeloop_spec_to_workload (run->spec, 8, &error);
  g_assert_no_error (error);
  run->m = ffm_timeloop_spec_to_mapping (run->spec, run->w, run->arch,
                                         FFM_TIMELOOP_MAPPING_DEFAULT, &error);
  g_assert_no_error (error);
  run->r = ffm_cost_evaluate_mapping (run->w, run->arch, run->m, &error);
  g_assert_no_error (error);
}

static double
level_pj (const Run *run, const char *level)
{
  int l = ffm_arch_find_level (run->arch, level);
  g_assert_cmpint (l, >=, 0);
  return ffm_cost_report_get_level_energy (run->r, (guint) l) * 1e12;
}

/* Everything in the Buffer, R then P innermost: 18 reads of each input. */
static const char all_in_buffer[] =
  "mapping:\n"
  "- {target: Buffer, type: temporal, factors: R=3 P=6, permutation: RP}\n";

static void
test_blocks (void)
{
  g_auto (Run) t = { 0 }, f = { 0 };
  g_autofree char *arch = one_buffer_arch (32, 8, "");

  g_test_summary ("Block size from width / datawidth (4 words of DRAM a read), "
                  "actions rounded up to whole blocks per tensor and kind; "
                  "ffm's one action per word on request");
  evaluate (&t, arch, all_in_buffer, FFM_TIMELOOP_CONVENTIONS_TIMELOOP);
  evaluate (&f, arch, all_in_buffer, FFM_TIMELOOP_FFM_BLOCKS);
  /* DRAM reads Weights 3 (1 block), Inputs 8 (2 blocks); updates Outputs
   * 6 (2 blocks): 5 actions at 100 pJ. Per word: 17 actions. */
  assert_relative (level_pj (&t, "DRAM"), 500, 1e-12);
  assert_relative (level_pj (&f, "DRAM"), 1700, 1e-12);
}

static void
test_whole_blocks (void)
{
  g_auto (Run) t = { 0 }, f = { 0 };
  g_autofree char *arch = one_buffer_arch (8, 32, "");

  g_test_summary ("Whole blocks: 18 reads of 4-word blocks are 5 actions, not "
                  "4.5 (ffm's fractions on request)");
  evaluate (&t, arch, all_in_buffer, FFM_TIMELOOP_CONVENTIONS_TIMELOOP);
  evaluate (&f, arch, all_in_buffer, FFM_TIMELOOP_FFM_WHOLE_BLOCKS | FFM_TIMELOOP_FFM_LEAK);
  /* Buffer: Weights reads 18 -> 5 x 10, fills 3 -> 1 x 20; Inputs reads
   * 18 -> 5 x 10, fills 8 -> 2 x 20; Outputs reads 12 (18 - 6 first) ->
   * 3 x 10, updates 18 -> 5 x 30: 50+20+50+40+30+150 = 340 pJ, and leak
   * 1 pJ x 18 cycles x 1 instance. Fractions: 4.5x10 + 0.75x20 + 4.5x10 +
   * 2x20 + 3x10 + 4.5x30 = 310 pJ. */
  assert_relative (level_pj (&t, "Buffer"), 340 + 18, 1e-12);
  assert_relative (level_pj (&f, "Buffer"), 310 + 18, 1e-12);
}

/* The buffer behind a fanout of 8 (a container), clusters of 4. */
static const char cluster_pe[] =
  "  - !Container {name: PE, spatial: {meshX: 8}}\n"
  "  - !Component {name: Reg, class: regfile, attributes: {depth: 4, width: 32, "
  "cluster_size: 4}}\n";

static void
test_clusters_and_leak (void)
{
  g_autoptr (GError) error = NULL;
  g_auto (Run) t = { 0 }, f = { 0 };
  g_autofree char *base = one_buffer_arch (8, 8, cluster_pe);
  g_autofree char *arch = g_strconcat (base,
    "  - name: sys_top_level.Reg[1..8]\n"
    "    actions: [{name: read, energy: 2}, {name: write, energy: 2}, "
    "{name: update, energy: 2}, {name: leak, energy: 1}]\n", NULL);
  /* P spread over 6 of the 8 instances; each reads its 3 weights and 3
   * inputs and updates its output 3 times */
  const char *map =
    "mapping:\n"
    "- {target: Buffer, type: temporal, factors: R=1 P=1, permutation: RP}\n"
    "- {target: PE, type: spatial, factors: R=1 P=6, permutation: PR}\n"
    "- {target: Reg, type: temporal, factors: R=3 P=1, permutation: RP}\n";

  g_test_summary ("Clusters: of 6 instances used, 2 clusters of 4 pay; leak on "
                  "the 6 instances used, none on the MAC; ffm's on request");
  evaluate (&t, arch, map, FFM_TIMELOOP_CONVENTIONS_TIMELOOP);
  evaluate (&f, arch, map, FFM_TIMELOOP_FFM_CLUSTERS | FFM_TIMELOOP_FFM_LEAK);
  (void) error;
  /* Reg per instance: Weights reads 3 fills 3, Inputs reads 3 fills 3,
   * Outputs reads 2 updates 3: 17 actions x 2 pJ = 34 pJ, x 6 instances
   * = 204 pJ; clusters: x 2 / 6 -> 68 pJ. Cycles 3. Leak: Timeloop 1 pJ
   * x 3 cycles x 6 used = 18 pJ; ffm: x 8 = 24 pJ. */
  assert_relative (level_pj (&t, "Reg"), 68 + 18, 1e-12);
  assert_relative (level_pj (&f, "Reg"), 204 + 24, 1e-12);
  /* the MAC: no leak (Timeloop); 7 pJ x 3 cycles x 8 instances (ffm) */
  assert_relative (level_pj (&t, "MAC"), 18, 1e-12);
  assert_relative (level_pj (&f, "MAC"), 18 + 7 * 3 * 8, 1e-12);
}

static void
test_operand_reuse (void)
{
  g_auto (Run) t = { 0 }, f = { 0 }, direct = { 0 };
  g_autofree char *fanned = one_buffer_arch (8, 8,
    "  - !Container {name: PE, spatial: {meshX: 2}}\n");
  g_autofree char *plain = one_buffer_arch (8, 8, "");
  /* P innermost at the Buffer: Weights[r] does not change across it */
  const char *map =
    "mapping:\n"
    "- {target: Buffer, type: temporal, factors: R=3 P=6, permutation: PR}\n";

  g_test_summary ("Operand reuse: behind a fanout the MAC keeps an operand "
                  "across the innermost loops that do not index it; without "
                  "a fanout every operation reads (as Timeloop counts)");
  evaluate (&t, fanned, map, FFM_TIMELOOP_CONVENTIONS_TIMELOOP);
  evaluate (&f, fanned, map, FFM_TIMELOOP_FFM_OPERAND_REUSE);
  evaluate (&direct, plain, map, FFM_TIMELOOP_CONVENTIONS_TIMELOOP);
  {
    const FfmPmappingCost *ct = ffm_cost_report_get_cost (t.r, 0);
    const FfmPmappingCost *cf = ffm_cost_report_get_cost (f.r, 0);
    const FfmPmappingCost *cd = ffm_cost_report_get_cost (direct.r, 0);
    const FfmPmappingModel *mt = ffm_cost_report_get_model (t.r, 0);
    guint64 wt = 0, wf = 0, wd = 0;
    for (guint b = 0; b < ffm_pmapping_model_get_n_buffets (mt); b++)
      {
        const FfmBuffetInfo *i = ffm_pmapping_model_get_buffet (mt, b);
        if (i->access == 0 && strcmp (ffm_arch_get_level (t.arch, i->level)->name, "Buffer") == 0)
          {
            wt = ct->counts[b].reads;
            wf = cf->counts[b].reads;
          }
      }
    for (guint b = 0; b < ffm_pmapping_model_get_n_buffets (ffm_cost_report_get_model (direct.r, 0)); b++)
      {
        const FfmBuffetInfo *i = ffm_pmapping_model_get_buffet (ffm_cost_report_get_model (direct.r, 0), b);
        if (i->access == 0 && strcmp (ffm_arch_get_level (direct.arch, i->level)->name, "Buffer") == 0)
          wd = cd->counts[b].reads;
      }
    g_assert_cmpuint (wt, ==, 3);       /* once per r */
    g_assert_cmpuint (wf, ==, 18);      /* once per operation */
    g_assert_cmpuint (wd, ==, 18);
  }
}

static void
test_attributes_alike (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) a = NULL, b = NULL;
  g_autoptr (FfmArch) aa = NULL, ab = NULL;
  g_autofree char *sa = NULL, *sb = NULL;
  const char *ert =
    "ERT:\n  version: 0.4\n  tables:\n"
    "  - {name: S.M, actions: [{name: read, energy: 1}, {name: write, energy: 1}, {name: update, energy: 1}]}\n"
    "  - {name: S.B, actions: [{name: read, energy: 1}, {name: write, energy: 1}, {name: update, energy: 1}]}\n"
    "  - {name: S.MAC, actions: [{name: compute, energy: 1}]}\n";

  g_test_summary ("snake_case and kebab-case attributes alike (Timeloop reads "
                  "them so)");
  a = LOAD_TEXTS (&error,
    "architecture:\n  version: 0.4\n  subtree:\n  - name: S\n"
    "    attributes: {global_cycle_seconds: 2e-9}\n    local:\n"
    "    - {name: M, class: DRAM, attributes: {word_bits: 8, block_size: 2}}\n"
    "    - {name: B, class: SRAM, attributes: {datawidth: 8, depth: 16, width: 32, "
    "cluster_size: 2, multiple_buffering: 2, read_bandwidth: 4}}\n"
    "    - {name: MAC, class: intmac}\n", ert);
  g_assert_no_error (error);
  b = LOAD_TEXTS (&error,
    "architecture:\n  version: 0.4\n  subtree:\n  - name: S\n"
    "    attributes: {global-cycle-seconds: 2e-9}\n    local:\n"
    "    - {name: M, class: DRAM, attributes: {word-bits: 8, block-size: 2}}\n"
    "    - {name: B, class: SRAM, attributes: {datawidth: 8, depth: 16, width: 32, "
    "cluster-size: 2, multiple-buffering: 2, read-bandwidth: 4}}\n"
    "    - {name: MAC, class: intmac}\n", ert);
  g_assert_no_error (error);
  aa = ffm_timeloop_spec_to_arch (a, &error);
  g_assert_no_error (error);
  ab = ffm_timeloop_spec_to_arch (b, &error);
  g_assert_no_error (error);
  sa = arch_shape (aa);
  sb = arch_shape (ab);
  g_assert_cmpstr (sa, ==, sb);
  /* B: cluster 2 -> block 32 / 2 / 8 = 2; depth 16 x 2 words / 2 buffers */
  g_assert_cmpfloat (ffm_arch_get_level (aa, 1)->u.memory.bits_per_action, ==, 16);
  g_assert_cmpfloat (ffm_arch_get_level (aa, 1)->u.memory.cluster_size, ==, 2);
  g_assert_cmpfloat (ffm_arch_get_level (aa, 1)->u.memory.size, ==, 16 * 8);
  assert_relative (ffm_arch_get_level (aa, 2)->u.compute.throughput, 0.5e9, 1e-15);
}

/* ---- Constraints ---- */

static void
test_constraints (void)
{
  static const char *const expected[] = {
    "tile m=1 at ireg", "tile p=1 at ireg", "tile r=1 at ireg",
    "keep Inputs | Outputs at glb", "forbid Weights at glb",
    "loop_order r, m, p at glb", "spatial m on PE.X",
    "keep Weights at wreg", "forbid Inputs | Outputs at wreg",
    "keep Inputs at ireg", "forbid Weights | Outputs at ireg",
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = LOAD_FE (&error, "chip", "chip-ERT.yaml");
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmWorkload) w = NULL;
  g_autoptr (FfmConstraints) c = NULL;
  g_autoptr (FfmBoundConstraints) bound = NULL;

  g_test_summary ("Constraints on the nodes (a container's spatial ones, the "
                  "front end's !Parallel bypass and permutation rules) as ffm "
                  "constraints, data spaces named as written");
  g_assert_no_error (error);
  arch = ffm_timeloop_spec_to_arch (spec, &error);
  g_assert_no_error (error);
  w = ffm_timeloop_spec_to_workload (spec, 8, &error);
  g_assert_no_error (error);
  c = ffm_timeloop_spec_to_constraints (spec, w, arch, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < ffm_constraints_get_n (c); i++)
    {
      g_autofree char *d = ffm_constraints_describe (c, i);
      g_test_message ("%s", d);
    }
  g_assert_cmpuint (ffm_constraints_get_n (c), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autofree char *d = ffm_constraints_describe (c, i);
      assert_contains (d, expected[i]);
      assert_contains (d, "chip/arch.yaml:");
    }
  bound = ffm_constraints_bind (c, w, arch, &error);
  g_assert_no_error (error);
}

static void
test_constraints_targets (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmWorkload) w = NULL;
  g_autoptr (FfmConstraints) c = NULL;
  g_auto (GStrv) warnings = NULL;
  g_autofree char *text = NULL;
  const char *mapspace =
    "mapspace_constraints:\n"
    "  targets:\n"
    "  - {target: DRAM, type: temporal, factors: R=1 P=1, permutation: RP}\n"
    "  - {target: Buffer, type: temporal, factors: R=3 P=6, permutation: RP}\n"
    "  - {target: Buffer, type: dataspace, keep: [Weights, Inputs, Outputs]}\n"
    "  - {target: Buffer, type: temporal, factors: P<=6, no_reuse: [Inputs]}\n";
  g_autofree char *a = one_buffer_arch (8, 8, "");

  g_test_summary ("A fully specified mapspace (the tutorial's baked "
                  "constraints): every tile fixed; what ffm cannot say warned");
  spec = LOAD_TEXTS (&error, a, conv_problem, mapspace);
  g_assert_no_error (error);
  arch = ffm_timeloop_spec_to_arch (spec, &error);
  g_assert_no_error (error);
  w = ffm_timeloop_spec_to_workload (spec, 8, &error);
  g_assert_no_error (error);
  c = ffm_timeloop_spec_to_constraints (spec, w, arch, &error);
  g_assert_no_error (error);
  {
    GString *s = g_string_new (NULL);
    for (guint i = 0; i < ffm_constraints_get_n (c); i++)
      {
        g_autofree char *d = ffm_constraints_describe (c, i);
        g_string_append_printf (s, "%s\n", d);
      }
    text = g_string_free (s, FALSE);
  }
  g_test_message ("%s", text);
  assert_contains (text, "tile r=3 at Buffer");
  assert_contains (text, "tile p=6 at Buffer");
  assert_contains (text, "tile r=3 at DRAM");
  assert_contains (text, "keep Weights | Inputs | Outputs at Buffer");
  assert_contains (text, "loop_order p, r at DRAM");
  /* Timeloop's mapspace ignores the permutation of the innermost level
   * with no fanout below it; so does the translation */
  g_assert_null (strstr (text, "loop_order p, r at Buffer"));
  warnings = ffm_timeloop_spec_steal_warnings (spec);
  {
    g_autofree char *all = g_strjoinv ("\n", warnings);
    assert_contains (all, "factors bounded with <= or >= are not translated");
    assert_contains (all, "no_reuse is not translated");
  }
  g_clear_pointer (&text, g_free);
  g_clear_pointer (&spec, ffm_timeloop_spec_free);
  g_clear_pointer (&arch, ffm_arch_unref);
  g_clear_pointer (&w, ffm_workload_unref);
  g_clear_pointer (&c, ffm_constraints_unref);
  {
    /* a fanout below the buffer: its loop order counts, and is kept */
    g_autofree char *spread = one_buffer_arch (8, 8, "  - !Container {name: PE, spatial: {meshX: 2}}\n");
    GString *s = g_string_new (NULL);
    spec = LOAD_TEXTS (&error, spread, conv_problem, mapspace);
    g_assert_no_error (error);
    arch = ffm_timeloop_spec_to_arch (spec, &error);
    g_assert_no_error (error);
    w = ffm_timeloop_spec_to_workload (spec, 8, &error);
    g_assert_no_error (error);
    c = ffm_timeloop_spec_to_constraints (spec, w, arch, &error);
    g_assert_no_error (error);
    for (guint i = 0; i < ffm_constraints_get_n (c); i++)
      {
        g_autofree char *d = ffm_constraints_describe (c, i);
        g_string_append_printf (s, "%s\n", d);
      }
    text = g_string_free (s, FALSE);
    assert_contains (text, "loop_order p, r at Buffer");
  }
}

static void
test_parallel_keeps (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmWorkload) w = NULL;
  g_autoptr (FfmConstraints) c = NULL;
  g_autofree char *a = one_buffer_arch (8, 8,
    "  - !Parallel\n"
    "    nodes:\n"
    "    - !Component {name: R1, class: regfile, attributes: {depth: 4, width: 8}, "
    "constraints: {dataspace: {keep: [Weights]}}}\n"
    "    - !Component {name: R2, class: regfile, attributes: {depth: 4, width: 8}, "
    "constraints: {dataspace: {keep: [Weights]}}}\n");

  g_test_summary ("A data space kept in two !Parallel branches is an error "
                  "(as in the front end)");
  spec = LOAD_TEXTS (&error, a, conv_problem);
  g_assert_no_error (error);
  arch = ffm_timeloop_spec_to_arch (spec, NULL);
  /* no ERT for R1, R2: the architecture fails; the constraints are
   * checked on their own */
  g_assert_null (arch);
  {
    g_autofree char *b = g_strconcat (a,
      "  - {name: \"sys_top_level.R1[1..1]\", actions: [{name: read, energy: 1}, "
      "{name: write, energy: 1}, {name: update, energy: 1}]}\n"
      "  - {name: \"sys_top_level.R2[1..1]\", actions: [{name: read, energy: 1}, "
      "{name: write, energy: 1}, {name: update, energy: 1}]}\n", NULL);
    g_clear_pointer (&spec, ffm_timeloop_spec_free);
    spec = LOAD_TEXTS (&error, b, conv_problem);
    g_assert_no_error (error);
  }
  arch = ffm_timeloop_spec_to_arch (spec, &error);
  g_assert_no_error (error);
  w = ffm_timeloop_spec_to_workload (spec, 8, &error);
  g_assert_no_error (error);
  c = ffm_timeloop_spec_to_constraints (spec, w, arch, &error);
  g_assert_null (c);
  g_assert_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_INVALID);
  assert_contains (error->message, "kept in two branches of this !Parallel");
}

/* ---- Energies without an ERT ---- */

static gboolean
fake_estimator (const FfmTimeloopComponent *c, FfmTimeloopActionEnergies *out,
                gpointer user_data)
{
  guint *asked = user_data;

  (*asked)++;
  if (strcmp (c->class_name, "intmac") == 0)
    {
      out->compute = 2.5;
      out->source = "a test estimator";
      return TRUE;
    }
  out->read = 3;
  out->fill = 4;
  out->update = 5;
  out->source = "a test estimator";
  for (guint i = 0; c->attribute_names[i] != NULL; i++)
    if (strcmp (c->component, "glb") == 0 && strcmp (c->attribute_names[i], "depth") == 0)
      g_assert_cmpstr (c->attribute_values[i], ==, "256");
  return strcmp (c->component, "glb") == 0 || strcmp (c->component, "DRAM") == 0;
}

/* What the component estimators answer for @cls with @attrs (KEY=VALUE,
 * NULL-terminated) and @action, asked directly (J, W or m^2). */
static FfmComponentEstimate
ask_estimators (const char *cls, const char *action, const char *const *attrs)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmComponentLibrary) library = ffm_component_library_new (NULL);
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autofree char *components = fe_path ("_components");
  g_autoptr (FfmEstimateQuery) q = NULL;
  FfmComponentEstimate out;

  g_assert_true (ffm_component_library_load_file (library, components, &error));
  g_assert_no_error (error);
  for (guint i = 0; attrs[i] != NULL; i++)
    {
      g_auto (GStrv) kv = g_strsplit (attrs[i], "=", 2);
      ffm_param_values_set (values, kv[0], kv[1]);
    }
  q = ffm_estimate_query_new ("test", cls, values, action);
  g_assert_true (ffm_component_library_estimate (library, q, &out, &error));
  g_assert_no_error (error);
  return out;
}

static void
test_no_ert (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = LOAD_FE (&error, "chip");
  g_autoptr (FfmTimeloopSpec) with_ert = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_auto (GStrv) warnings = NULL;
  static const char *const glb[] = {
    "technology=45nm", "global_cycle_seconds=1e-9", "datawidth=8", "depth=256",
    "width=16", "n_banks=2", "read_bandwidth=16", "write_bandwidth=16", NULL
  };
  static const char *const mac[] = {
    "technology=45nm", "global_cycle_seconds=1e-9", "datawidth=8",
    "multiplier_width=8", "adder_width=16", NULL
  };
  FfmComponentEstimate want;
  const FfmLevel *l;
  guint asked = 0;

  g_test_summary ("Without an ERT the component estimators price every "
                  "component through the design's compound classes, each "
                  "level saying which estimator gave what; a stored ERT "
                  "always wins; a program's estimator replaces them");
  g_assert_no_error (error);
  arch = ffm_timeloop_spec_to_arch (spec, &error);
  g_assert_no_error (error);
  /* DRAM, LPDDR4: Accelergy's 8 pJ per bit, 32 bits an access */
  l = ffm_arch_get_level (arch, 0);
  assert_relative (l->u.memory.read_energy, 8e-12 * 32, 1e-12);
  assert_relative (l->u.memory.fill_energy, 8e-12 * 32, 1e-12);
  assert_contains (l->estimated_by, "read_energy, fill_energy, update_energy");
  assert_contains (l->estimated_by, "dram 80 %");
  /* glb: the fixture's smartbuffer_SRAM (an SRAM and two adders), per
   * access of its 16-bit width; leakage per instance; area */
  l = ffm_arch_get_level (arch, 1);
  want = ask_estimators ("smartbuffer_SRAM", "read", glb);
  assert_relative (l->u.memory.read_energy, want.energy.value, 1e-12);
  want = ask_estimators ("smartbuffer_SRAM", "write", glb);
  assert_relative (l->u.memory.fill_energy, want.energy.value, 1e-12);
  assert_relative (l->leak_power, want.leak_power.value, 1e-9);
  assert_relative (l->area, want.area.value, 1e-9);
  g_assert_cmpfloat (l->area, >, 0);
  assert_contains (l->estimated_by, "compound smartbuffer_SRAM 70 %");
  /* wreg: the fixture's regfile, 8 of Aladdin's 1-bit registers read at
   * 0.009 pJ each; no write action: fills cost a read */
  l = ffm_arch_get_level (arch, ffm_arch_find_level (arch, "wreg"));
  assert_relative (l->u.memory.read_energy, 8 * 0.009e-12, 1e-9);
  assert_relative (l->u.memory.fill_energy, 8 * 0.009e-12, 1e-9);
  /* mac: intmac, not a class of the design: the estimators' own; no leak
   * on the compute unit (Timeloop's counting) */
  l = ffm_arch_get_level (arch, ffm_arch_find_level (arch, "mac"));
  want = ask_estimators ("intmac", "compute", mac);
  assert_relative (l->u.compute.energy, want.energy.value, 1e-12);
  g_assert_cmpfloat (l->leak_power, ==, 0);
  assert_contains (l->estimated_by, "energy, area: aladdin 70 %");
  warnings = ffm_timeloop_spec_steal_warnings_grouped (spec, FALSE);
  assert_contains (warnings[0], "DRAM: no ERT entry, estimated (read_energy, "
                   "fill_energy, update_energy, leak_power, area: dram 80 %)");
  g_clear_pointer (&arch, ffm_arch_unref);

  /* a program's estimator in their place: it knows glb, DRAM and the MAC;
   * the registers need the ERT */
  ffm_timeloop_spec_set_estimator (spec, fake_estimator, &asked);
  arch = ffm_timeloop_spec_to_arch (spec, &error);
  g_assert_null (arch);
  assert_contains (error->message, "memory wreg (compound class regfile (");
  assert_contains (error->message, "timeloop-mapper.ERT.yaml");
  g_clear_error (&error);

  /* with the ERT no estimator is asked */
  asked = 0;
  with_ert = LOAD_FE (&error, "chip", "chip-ERT.yaml");
  g_assert_no_error (error);
  arch = ffm_timeloop_spec_to_arch (with_ert, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.read_energy, ==, 4e-12);
  g_assert_null (ffm_arch_get_level (arch, 1)->estimated_by);
  g_clear_pointer (&arch, ffm_arch_unref);
  ffm_timeloop_spec_set_estimator (with_ert, fake_estimator, &asked);
  arch = ffm_timeloop_spec_to_arch (with_ert, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (asked, ==, 0);
  g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.read_energy, ==, 4e-12);
}

static void
test_estimated (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_auto (GStrv) warnings = NULL;
  guint asked = 0;
  g_autoptr (FfmTimeloopSpec) spec = LOAD_TEXTS (&error,
    "architecture:\n  version: 0.4\n  nodes:\n"
    "  - !Container {name: s, attributes: {datawidth: 8}}\n"
    "  - !Component {name: DRAM, class: DRAM, attributes: {width: 8}}\n"
    "  - !Component {name: glb, class: SRAM, attributes: {depth: 256, width: 8}}\n"
    "  - !Component {name: mac, class: intmac}\n"
    "ERT:\n  version: 0.4\n  tables:\n"
    "  - {name: \"s_top_level.glb[1..1]\", actions: [{name: read, energy: 9}, "
    "{name: write, energy: 9}, {name: update, energy: 9}]}\n");

  g_test_summary ("An estimator's energies where the ERT has no entry (with a "
                  "warning saying so); the ERT's where it has one");
  g_assert_no_error (error);
  ffm_timeloop_spec_set_estimator (spec, fake_estimator, &asked);
  arch = ffm_timeloop_spec_to_arch (spec, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (asked, ==, 2);              /* DRAM and mac, not glb */
  g_assert_cmpfloat (ffm_arch_get_level (arch, 0)->u.memory.read_energy, ==, 3e-12);
  g_assert_cmpfloat (ffm_arch_get_level (arch, 0)->u.memory.fill_energy, ==, 4e-12);
  g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.read_energy, ==, 9e-12);
  g_assert_cmpfloat (ffm_arch_get_level (arch, 2)->u.compute.energy, ==, 2.5e-12);
  warnings = ffm_timeloop_spec_steal_warnings_grouped (spec, FALSE);
  g_assert_cmpuint (g_strv_length (warnings), ==, 2);
  assert_contains (warnings[0], "DRAM: no ERT entry, estimated (a test estimator)");
}

/* ---- Strictness ---- */

typedef struct {
  const char *name;
  const char *yaml;
  const char *message;
} StrictCase;

static const StrictCase strict_cases[] = {
  { "int-2-53", "problem:\n  shape: {name: P, dimensions: [M], data_spaces: "
    "[{name: A, projection: [[[M]]]}, {name: Z, projection: [[[M]]], "
    "read_write: True}]}\n  instance: {M: 9007199254740993}\n",
    ".yaml:3: problem.instance.M: 9007199254740993 is beyond 2^53" },
  { "version", "problem:\n  version: 99\n  shape: {name: P, dimensions: [M], "
    "data_spaces: [{name: A, projection: [[[M]]]}, {name: Z, projection: "
    "[[[M]]], read_write: True}]}\n  instance: {M: 4}\n",
    ".yaml:2: problem.version: version 99: ffm reads Timeloop's versions 0.3 and 0.4" },
  { "term-order", "problem:\n  shape: {name: P, dimensions: [M, R], coefficients: "
    "[{name: S, default: 2}], data_spaces: [{name: A, projection: [[[S, M], [R]]]}, "
    "{name: Z, projection: [[[M]]], read_write: True}]}\n  instance: {M: 4, R: 3}\n",
    "[S, M]: Timeloop reads a term as [DIMENSION, COEFFICIENT]: write [M, S]" },
  { "lower-case-class-word", "problem:\n  shape: {name: P, dimensions: [M], data_spaces: "
    "[{name: inputs, projection: [[[M]]]}, {name: Z, projection: [[[M]]], "
    "read_write: True}]}\n  instance: {M: 4}\n",
    "data space 'inputs' is spelled like a word of ffm's tensor-set expressions" },
};

static void
test_strict (gconstpointer data)
{
  const StrictCase *sc = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = LOAD_TEXTS (&error, sc->yaml);
  g_autoptr (FfmWorkload) w = NULL;

  g_test_summary ("Strictness as for JSON: a clear error naming file, line, key");
  g_assert_no_error (error);
  w = ffm_timeloop_spec_to_workload (spec, 8, &error);
  g_assert_null (w);
  g_assert_nonnull (error);
  assert_contains (error->message, sc->message);
}

static void
test_strict_arch (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autofree char *a = one_buffer_arch (8, 8, "");
  g_autofree char *dup = g_strconcat (a,
    "  - name: sys_top_level.Buffer[1..1]\n"
    "    actions: [{name: read, energy: 99}]\n", NULL);

  g_test_summary ("Two ERT tables of one name, one key written two ways, an "
                  "unknown version: errors");
  spec = LOAD_TEXTS (&error, dup);
  g_assert_no_error (error);
  arch = ffm_timeloop_spec_to_arch (spec, &error);
  g_assert_null (arch);
  assert_contains (error->message, "ERT.tables[3]: a second table named "
                   "sys_top_level.Buffer[1..1] (also line ");
  g_clear_error (&error);
  g_clear_pointer (&spec, ffm_timeloop_spec_free);
  spec = LOAD_TEXTS (&error,
    "architecture:\n  version: 0.5\n  nodes: []\n");
  g_assert_no_error (error);
  arch = ffm_timeloop_spec_to_arch (spec, &error);
  g_assert_null (arch);
  assert_contains (error->message, "architecture.version: version 0.5: ffm reads");
  g_clear_error (&error);
  g_clear_pointer (&spec, ffm_timeloop_spec_free);
  spec = LOAD_TEXTS (&error,
    "architecture:\n  version: 0.4\n  nodes:\n"
    "  - !Component {name: DRAM, class: DRAM, attributes: {block-size: 2, block_size: 2}}\n");
  g_assert_no_error (error);
  arch = ffm_timeloop_spec_to_arch (spec, &error);
  g_assert_null (arch);
  assert_contains (error->message, "'block_size' and 'block-size' (line 4) are one "
                   "key to Timeloop");
}

static void
test_instance_keys (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmTimeloopSpec) spec = LOAD_TEXTS (&error,
    "problem:\n  shape: {name: P, dimensions: [M], data_spaces: [{name: A, "
    "projection: [[[M]]]}, {name: Z, projection: [[[M]]], read_write: True}]}\n"
    "  instance: {M: 4, H: 9, W: 9, Hpad: 1, Wpad: 1}\n");
  g_autoptr (FfmWorkload) w = NULL;
  g_auto (GStrv) warnings = NULL;

  g_test_summary ("Instance keys that are neither dimension nor coefficient "
                  "(the front end's H, W, Hpad, Wpad): ignored with one line, "
                  "no crash");
  g_assert_no_error (error);
  w = ffm_timeloop_spec_to_workload (spec, 8, &error);
  g_assert_no_error (error);
  warnings = ffm_timeloop_spec_steal_warnings_grouped (spec, FALSE);
  g_assert_cmpuint (g_strv_length (warnings), ==, 1);
  assert_contains (warnings[0], "4 instance keys that are no dimension or coefficient "
                   "ignored, the first: ");
  assert_contains (warnings[0], "'H' is neither a dimension (M) nor a coefficient");
}

/* ---- The commands ---- */

static char *
fe_option (const char *a, const char *b)
{
  g_autofree char *pa = fe_path (a);
  g_autofree char *pb = b != NULL ? fe_path (b) : NULL;
  return pb != NULL ? g_strdup_printf ("timeloop:%s,%s", pa, pb)
                    : g_strdup_printf ("timeloop:%s", pa);
}

static double
json_energy (const char *path)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;

  json_parser_load_from_file (p, path, &error);
  g_assert_no_error (error);
  return json_object_get_double_member (json_node_get_object (json_parser_get_root (p)),
                                        "energy_j");
}

static void
test_cli_reeval (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-tl-reeval");
  g_autofree char *other = ffm_test_scratch_dir ("ffm-tl-other");
  g_autofree char *fe = g_test_build_filename (G_TEST_DIST, "data", "timeloop", "fe", NULL);
  g_autofree char *json = g_build_filename (dir, "r.json", NULL);
  g_autofree char *json2 = g_build_filename (dir, "r2.json", NULL);
  g_auto (FfmTestRun) a = { 0 }, b = { 0 };
  FfmTestRunOptions in_fe = { 0 }, elsewhere = { 0 };

  g_test_summary ("A result made from timeloop: inputs (relative paths) "
                  "evaluates again with ffm eval r.json alone, from anywhere");
  in_fe.cwd = fe;
  elsewhere.cwd = other;
  ffm_test_run_full (&a, (const char *const[]) { "eval", "--arch",
                     "timeloop:chip,chip-ERT.yaml", "--workload", "timeloop:chip",
                     "--mapping", "timeloop:chip-map.yaml", "--arch-param",
                     "ffm_conventions=leak", "--json", json, NULL }, &in_fe);
  g_assert_cmpint (a.status, ==, 0);
  ffm_test_run_full (&b, (const char *const[]) { "eval", json, "--json", json2, NULL },
                     &elsewhere);
  g_test_message ("%s", b.err);
  g_assert_cmpint (b.status, ==, 0);
  g_assert_cmpfloat (json_energy (json), ==, json_energy (json2));
  ffm_test_remove_dir (dir);
  ffm_test_remove_dir (other);
}

static void
test_cli_map_constraints (void)
{
  g_autofree char *arch = fe_option ("chip", "chip-ERT.yaml");
  g_autofree char *work = fe_option ("chip", NULL);
  g_auto (FfmTestRun) a = { 0 }, b = { 0 }, c = { 0 };

  g_test_summary ("ffm map searches Timeloop's constrained mapspace by default "
                  "(listing the constraints), ffm's whole one with "
                  "--no-timeloop-constraints");
  FFM_TEST_RUN (&a, "map", "--arch", arch, "--workload", work, "--max-memory", "1G");
  g_test_message ("%s\n%s", a.out, a.err);
  g_assert_cmpint (a.status, ==, 0);
  assert_contains (a.out, "forbid Weights at glb");
  assert_contains (a.err, "mapper: Timeloop's mapper settings are not followed");
  FFM_TEST_RUN (&b, "map", "--arch", arch, "--workload", work, "--max-memory", "1G",
                "--no-timeloop-constraints");
  g_assert_cmpint (b.status, ==, 0);
  g_assert_null (strstr (b.out, "forbid Weights at glb"));
  FFM_TEST_RUN (&c, "map", "--arch", arch, "--workload", work, "--arch-param",
                "ffm_conventions=blocks,bogus");
  g_assert_cmpint (c.status, ==, 2);
  assert_contains (c.err, "unknown convention 'bogus'");
}

static void
test_cli_import (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-tl-import");
  g_autofree char *chip = fe_path ("chip");
  g_autofree char *ert = fe_path ("chip-ERT.yaml");
  g_autofree char *map = fe_path ("chip-map.yaml");
  g_autofree char *cons = g_build_filename (dir, "constraints.json", NULL);
  g_autofree char *archj = g_build_filename (dir, "arch.json", NULL);
  g_auto (FfmTestRun) a = { 0 }, b = { 0 }, c = { 0 };
  g_autofree char *arch_text = NULL;

  g_test_summary ("ffm import timeloop: a design folder, constraints.json, "
                  "--ffm-conventions, --bits 0 refused");
  FFM_TEST_RUN (&a, "import", "timeloop", chip, ert, map, "-o", dir);
  g_test_message ("%s\n%s", a.out, a.err);
  g_assert_cmpint (a.status, ==, 0);
  assert_contains (a.out, "constraints.json: 11 mapspace constraints");
  g_assert_true (g_file_test (cons, G_FILE_TEST_EXISTS));
  FFM_TEST_RUN (&b, "import", "timeloop", chip, ert, "-o", dir,
                "--ffm-conventions", "all");
  g_assert_cmpint (b.status, ==, 0);
  g_assert_true (g_file_get_contents (archj, &arch_text, NULL, NULL));
  g_assert_null (strstr (arch_text, "whole_actions"));
  g_assert_null (strstr (arch_text, "leak_utilized"));
  FFM_TEST_RUN (&c, "import", "timeloop", chip, ert, "-o", dir, "--bits", "0");
  g_assert_cmpint (c.status, ==, 2);
  assert_contains (c.err, "--bits must be 1 to 1024, not 0");
  ffm_test_remove_dir (dir);
}

static void
test_cli_estimated (void)
{
  g_autofree char *dir = ffm_test_scratch_dir ("ffm-tl-estimated");
  g_autofree char *chip = fe_path ("chip");
  g_autofree char *map = fe_path ("chip-map.yaml");
  g_autofree char *arch = g_strconcat ("timeloop:", chip, NULL);
  g_autofree char *mapping = g_strconcat ("timeloop:", map, NULL);
  g_autofree char *archj = g_build_filename (dir, "arch.json", NULL);
  g_autofree char *arch_text = NULL;
  g_auto (FfmTestRun) a = { 0 }, b = { 0 };

  g_test_summary ("ffm eval and import of a design without an ERT: the "
                  "estimators' energies, the report and arch.json say who "
                  "gave them");
  FFM_TEST_RUN (&a, "eval", "--arch", arch, "--workload", arch, "--mapping", mapping);
  g_test_message ("%s\n%s", a.out, a.err);
  g_assert_cmpint (a.status, ==, 0);
  assert_contains (a.out, "Component estimates (who gave the numbers)");
  assert_contains (a.out, "compound smartbuffer_SRAM 70 %");
  assert_contains (a.err, "glb: no ERT entry, estimated (");
  FFM_TEST_RUN (&b, "import", "timeloop", chip, "-o", dir);
  g_assert_cmpint (b.status, ==, 0);
  g_assert_true (g_file_get_contents (archj, &arch_text, NULL, NULL));
  assert_contains (arch_text, "\"estimated_by\": \"energy, area: aladdin 70 %\"");
  ffm_test_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/timeloop-fe/design-folder", test_design_folder);
  g_test_add_func ("/timeloop-fe/design-folder/names", test_design_folder_names);
  g_test_add_func ("/timeloop-fe/grouped-warnings", test_grouped_warnings);
  g_test_add_func ("/timeloop-fe/same-as-rendered", test_same_as_rendered);
  g_test_add_func ("/timeloop-fe/jinja", test_jinja);
  g_test_add_func ("/timeloop-fe/conventions/blocks", test_blocks);
  g_test_add_func ("/timeloop-fe/conventions/whole-blocks", test_whole_blocks);
  g_test_add_func ("/timeloop-fe/conventions/clusters-leak", test_clusters_and_leak);
  g_test_add_func ("/timeloop-fe/conventions/operand-reuse", test_operand_reuse);
  g_test_add_func ("/timeloop-fe/conventions/attributes", test_attributes_alike);
  g_test_add_func ("/timeloop-fe/constraints/nodes", test_constraints);
  g_test_add_func ("/timeloop-fe/constraints/targets", test_constraints_targets);
  g_test_add_func ("/timeloop-fe/constraints/parallel", test_parallel_keeps);
  g_test_add_func ("/timeloop-fe/energy/no-ert", test_no_ert);
  g_test_add_func ("/timeloop-fe/energy/estimated", test_estimated);
  for (guint i = 0; i < G_N_ELEMENTS (strict_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/timeloop-fe/strict/%s",
                                               strict_cases[i].name);
      g_test_add_data_func (name, &strict_cases[i], test_strict);
    }
  g_test_add_func ("/timeloop-fe/strict/arch", test_strict_arch);
  g_test_add_func ("/timeloop-fe/instance-keys", test_instance_keys);
  g_test_add_func ("/timeloop-fe/cli/reeval", test_cli_reeval);
  g_test_add_func ("/timeloop-fe/cli/map-constraints", test_cli_map_constraints);
  g_test_add_func ("/timeloop-fe/cli/import", test_cli_import);
  g_test_add_func ("/timeloop-fe/cli/estimated", test_cli_estimated);
  return g_test_run ();
}
