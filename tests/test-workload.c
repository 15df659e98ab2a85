/* test-workload.c: the workload model and its JSON loader (ffm-workload.h):
 * exact bounds, footprints, classes, roles, bits and persistence of known
 * workloads (numbers of accelforge's workload files), repeat blocks,
 * tensor-set scopes, the JSON round trip, the table of invalid files, the
 * search by name, and the `ffm show-workload` command. */
#include <ffm/ffm.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

/* ---- Helpers ---- */

static char *
source_path (const char *first, ...) G_GNUC_NULL_TERMINATED;

static char *
source_path (const char *first, ...)
{
  const char *root = g_getenv ("FFM_SOURCE_ROOT");
  g_autoptr (GPtrArray) parts = g_ptr_array_new ();
  va_list args;

  g_assert_nonnull (root);
  g_ptr_array_add (parts, (gpointer) root);
  va_start (args, first);
  for (const char *p = first; p != NULL; p = va_arg (args, const char *))
    g_ptr_array_add (parts, (gpointer) p);
  va_end (args);
  g_ptr_array_add (parts, NULL);
  return g_build_filenamev ((char **) parts->pdata);
}

static char *
data_path (const char *kind, const char *file)
{
  return source_path ("tests", "data", "workload", kind, file, NULL);
}

/* Loads @path with "k=v;k=v" parameters; fails the test on error. */
static FfmWorkload *
load (const char *path, const char *params)
{
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) assignments = params ? g_strsplit (params, ";", -1) : NULL;
  FfmWorkload *w;

  for (guint i = 0; assignments != NULL && assignments[i] != NULL; i++)
    g_assert_true (ffm_param_values_parse_assignment (values, assignments[i], &error));
  w = ffm_workload_load (path, values, &error);
  g_assert_no_error (error);
  g_assert_nonnull (w);
  return w;
}

static const FfmEinsum *
einsum (const FfmWorkload *w, const char *name)
{
  int i = ffm_workload_find_einsum (w, name);

  if (i < 0)
    g_error ("no Einsum %s", name);
  return ffm_workload_get_einsum (w, (guint) i);
}

static const FfmTensor *
tensor (const FfmWorkload *w, const char *name)
{
  int i = ffm_workload_find_tensor (w, name);

  if (i < 0)
    g_error ("no tensor %s", name);
  return ffm_workload_get_tensor (w, (guint) i);
}

/* Footprint of tensor @t in Einsum @e. */
static guint64
footprint (const FfmWorkload *w, const char *e, const char *t)
{
  const FfmEinsum *ein = einsum (w, e);
  int a = ffm_einsum_find_access (ein, (guint) ffm_workload_find_tensor (w, t));

  g_assert_cmpint (a, >=, 0);
  return ffm_einsum_get_access_values (ein, (guint) a);
}

static guint
roles (const FfmWorkload *w, const char *e, const char *t)
{
  const FfmEinsum *ein = einsum (w, e);
  int a = ffm_einsum_find_access (ein, (guint) ffm_workload_find_tensor (w, t));

  g_assert_cmpint (a, >=, 0);
  return ein->accesses[a].roles;
}

static guint64
bound (const FfmWorkload *w, const char *e, const char *var)
{
  const FfmEinsum *ein = einsum (w, e);
  int v = ffm_einsum_find_rank_var (ein, var);

  g_assert_cmpint (v, >=, 0);
  return ein->rank_var_bounds[v];
}

/* Bits of every tensor of every non-copy Einsum, once: the reference
 * "snowcat" energy of accelforge's workload files. */
static guint64
footprint_bits (const FfmWorkload *w)
{
  guint64 total = 0;

  for (guint i = 0; i < ffm_workload_get_n_einsums (w); i++)
    {
      const FfmEinsum *e = ffm_workload_get_einsum (w, i);
      if (e->is_copy)
        continue;
      for (guint a = 0; a < e->n_accesses; a++)
        total += ffm_einsum_get_access_values (e, a)
                 * ffm_workload_get_tensor (w, e->accesses[a].tensor)->bits_per_value;
    }
  return total;
}

#define IN FFM_TENSOR_INPUT
#define OUT FFM_TENSOR_OUTPUT
#define MID FFM_TENSOR_INTERMEDIATE
#define SHARED FFM_TENSOR_SHARED
#define PERS FFM_TENSOR_PERSISTENT

/* ---- Basic workloads ---- */

static void
test_matvecs (void)
{
  g_autofree char *path = source_path ("workloads", "matvecs.json", NULL);
  g_autoptr (FfmWorkload) w = load (path, NULL);
  const FfmEinsum *y;
  guint n;
  const guint *readers;

  g_test_summary ("matvecs.json: accelforge's workload files");
  g_assert_cmpstr (ffm_workload_get_name (w), ==, "matvecs");
  g_assert_cmpstr (ffm_workload_get_source_file (w), ==, path);
  g_assert_cmpuint (ffm_workload_get_n_einsums (w), ==, 2);
  g_assert_cmpuint (ffm_workload_get_n_tensors (w), ==, 5);
  y = ffm_workload_get_einsum (w, 0);
  g_assert_cmpstr (y->name, ==, "Y");
  g_assert_cmpstr (y->text, ==, "Y[ny] = A[na] * B[na,ny]");
  g_assert_cmpuint (y->n_rank_vars, ==, 2);
  g_assert_cmpstr (y->rank_var_names[0], ==, "ny");     /* output first */
  g_assert_cmpstr (y->rank_var_names[1], ==, "na");
  g_assert_cmpuint (y->rank_var_bounds[0], ==, 3);
  g_assert_cmpuint (y->rank_var_bounds[1], ==, 4);
  g_assert_cmpuint (y->n_accesses, ==, 3);
  g_assert_cmpuint (y->output_access, ==, 2);
  g_assert_true (y->accesses[2].is_output);
  g_assert_cmpuint (y->accesses[0].tensor, ==, (guint) ffm_workload_find_tensor (w, "A"));
  g_assert_cmpuint (ffm_einsum_get_n_operations (y), ==, 12);
  g_assert_false (y->is_copy);
  g_assert_cmpuint (ffm_workload_get_total_operations (w), ==, 24);
  g_assert_cmpuint (tensor (w, "A")->classes, ==, IN);
  g_assert_cmpuint (tensor (w, "B")->classes, ==, IN);
  g_assert_cmpuint (tensor (w, "Y")->classes, ==, MID | SHARED);
  g_assert_cmpuint (tensor (w, "Z")->classes, ==, OUT);
  g_assert_cmpuint (tensor (w, "Y")->producer, ==, 0);
  g_assert_cmpuint (tensor (w, "A")->producer, ==, G_MAXUINT);
  readers = ffm_workload_get_tensor_readers (w, (guint) ffm_workload_find_tensor (w, "Y"), &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (readers[0], ==, 1);
  g_assert_cmpuint (ffm_workload_get_tensor_values (w, (guint) ffm_workload_find_tensor (w, "B")), ==, 12);
  g_assert_cmpuint (tensor (w, "C")->n_ranks, ==, 2);
  g_assert_cmpstr (tensor (w, "C")->rank_names[0], ==, "NY");
  g_assert_cmpstr (tensor (w, "C")->rank_names[1], ==, "NZ");
  g_assert_cmpuint (tensor (w, "C")->bits_per_value, ==, 8);
  /* default roles: Y is the intermediate input of Z */
  g_assert_cmpuint (roles (w, "Z", "Y"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (roles (w, "Z", "C"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (roles (w, "Z", "Z"), ==, FFM_ROLE_OUTPUT);
  g_assert_cmpuint (roles (w, "Y", "A"), ==, FFM_ROLE_INPUT);   /* neither: the first */
  g_assert_cmpuint (roles (w, "Y", "B"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (footprint_bits (w), ==, 304);
  g_assert_cmpuint (ffm_workload_get_n_ranks (w), ==, 3);
}

static void
test_matmuls (void)
{
  g_autofree char *path = source_path ("workloads", "matmuls.json", NULL);
  g_autoptr (FfmWorkload) w = load (path, "n_einsums=2;m=64;kn=64");
  g_autoptr (FfmWorkload) d = load (path, NULL);
  g_autoptr (FfmWorkload) five = load (path, "n_einsums=5");
  const FfmParamValues *values = ffm_workload_get_param_values (w);
  guint64 size = 0;

  g_test_summary ("matmuls.json: accelforge's workload files, regression parameters and defaults");
  g_assert_cmpuint (ffm_workload_get_n_einsums (w), ==, 2);
  g_assert_cmpstr (einsum (w, "Matmul1")->text, ==, "T2[m,n2] = T1[m,n1] * W1[n1,n2]");
  g_assert_cmpuint (ffm_einsum_get_n_operations (einsum (w, "Matmul0")), ==, 262144);
  g_assert_cmpuint (footprint_bits (w), ==, 196608);
  g_assert_cmpuint (tensor (w, "T1")->classes, ==, MID | SHARED);
  g_assert_cmpuint (tensor (w, "W0")->classes, ==, IN);         /* not persistent */
  g_assert_cmpuint (tensor (w, "T2")->classes, ==, OUT);
  g_assert_cmpuint (roles (w, "Matmul1", "T1"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (roles (w, "Matmul1", "W1"), ==, FFM_ROLE_WEIGHT);
  g_assert_true (ffm_workload_get_rank_size (w, "N2", &size));
  g_assert_cmpuint (size, ==, 64);
  g_assert_false (ffm_workload_get_rank_size (w, "N3", &size));
  g_assert_cmpstr (ffm_param_values_lookup (values, "kn"), ==, "64");
  g_assert_cmpstr (ffm_param_values_lookup (values, "n_einsums"), ==, "2");
  g_assert_cmpuint (ffm_einsum_get_n_operations (einsum (d, "Matmul0")), ==, 2097152);
  g_assert_cmpuint (ffm_workload_get_n_einsums (five), ==, 5);
  g_assert_cmpuint (ffm_workload_get_n_tensors (five), ==, 11);
  g_assert_cmpuint (tensor (five, "T4")->classes, ==, MID | SHARED);
  g_assert_cmpuint (tensor (five, "T5")->classes, ==, OUT);
  g_assert_cmpstr (ffm_workload_get_param_specs (w)[0].name, ==, "n_einsums");
  g_assert_cmpint (ffm_workload_get_param_specs (w)[0].type, ==, FFM_PARAM_INTEGER);
  g_assert_cmpstr (ffm_workload_get_param_specs (w)[0].default_value, ==, "2");
}

static void
test_three_matmuls (void)
{
  g_autofree char *path = source_path ("workloads", "three-matmuls.json", NULL);
  g_autoptr (FfmWorkload) w = load (path, NULL);

  g_test_summary ("three-matmuls.json: accelforge's workload files, persistent weights");
  g_assert_cmpuint (ffm_workload_get_n_einsums (w), ==, 3);
  g_assert_cmpstr (ffm_workload_get_einsum (w, 0)->name, ==, "Matmul1");
  g_assert_cmpuint (ffm_workload_get_total_operations (w), ==, 3 * 2097152);
  g_assert_cmpuint (footprint_bits (w), ==, 1179648);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *wname = g_strdup_printf ("W%u", i);
      g_assert_cmpuint (tensor (w, wname)->classes, ==, IN | PERS);
    }
  g_assert_cmpuint (tensor (w, "T0")->classes, ==, IN);
  g_assert_cmpuint (tensor (w, "T1")->classes, ==, MID | SHARED);
  g_assert_cmpuint (roles (w, "Matmul1", "T0"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (roles (w, "Matmul1", "W0"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (ffm_workload_get_tensor_values (w, 0), ==, 16384);
}

/* ---- Transformer layer: prefill and decode ---- */

static void
test_gpt3_layer (void)
{
  g_autofree char *path = data_path ("valid", "gpt3-layer.json");
  g_autoptr (FfmWorkload) p = load (path, NULL);
  g_autoptr (FfmWorkload) p2048 = load (path, "new_tokens=2048");
  g_autoptr (FfmWorkload) d = load (path, "decode=true;new_tokens=1;cached_tokens=2047");

  g_test_summary ("GPT-3 6.7B layer: MACs, classes, roles, bits (accelforge's workload files)");
  g_assert_cmpuint (ffm_workload_get_n_einsums (p), ==, 10);
  g_assert_true (einsum (p, "I")->is_copy);
  g_assert_cmpuint (ffm_einsum_get_n_operations (einsum (p, "I")), ==, 0);
  g_assert_cmpuint (ffm_einsum_get_n_operations (einsum (p, "V")), ==, 4294967296);
  g_assert_cmpuint (ffm_einsum_get_n_operations (einsum (p, "QK")), ==, 268435456);
  g_assert_cmpuint (ffm_einsum_get_n_operations (einsum (p, "QK_softmax")), ==, 2097152);
  g_assert_cmpuint (ffm_einsum_get_n_operations (einsum (p, "FFB")), ==, 17179869184);
  g_assert_cmpuint (ffm_workload_get_total_operations (p), ==, G_GUINT64_CONSTANT (52078575616));
  g_assert_cmpuint (footprint_bits (p), ==, G_GUINT64_CONSTANT (3724541952));
  g_assert_cmpuint (ffm_workload_get_total_operations (p2048), ==, G_GUINT64_CONSTANT (446810816512));
  g_assert_cmpuint (footprint_bits (p2048), ==, G_GUINT64_CONSTANT (14763950080));
  /* K is written as K[b,m,h,e] and read as K[b,M:p,h,e]: one tensor */
  g_assert_cmpuint (tensor (p, "K")->classes, ==, MID | SHARED);
  g_assert_cmpstr (tensor (p, "K")->rank_names[1], ==, "M");
  g_assert_cmpuint (bound (p, "QK", "p"), ==, 256);
  g_assert_cmpuint (bound (p, "AV", "f"), ==, 128);
  g_assert_cmpuint (roles (p, "QK", "Q"), ==, FFM_ROLE_INPUT);  /* both intermediates */
  g_assert_cmpuint (roles (p, "QK", "K"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (roles (p, "AV", "V"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (roles (p, "V", "WV"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (roles (p, "V", "I"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (roles (p, "QK_softmax", "QK"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (tensor (p, "WV")->classes, ==, IN | PERS);
  g_assert_cmpuint (tensor (p, "I_in")->classes, ==, IN);
  g_assert_cmpuint (tensor (p, "I")->classes, ==, MID | SHARED);
  g_assert_cmpuint (tensor (p, "K")->bits_per_value, ==, 16);
  g_assert_cmpuint (tensor (p, "FFB")->classes, ==, OUT);
  g_assert_cmpint (ffm_workload_find_tensor (p, "K_cache"), ==, -1);

  /* decode: K and V are computed but unread, the caches are persistent inputs */
  g_assert_cmpuint (ffm_workload_get_total_operations (d), ==, 218161120);
  g_assert_cmpuint (footprint_bits (d), ==, G_GUINT64_CONSTANT (3495032832));
  g_assert_cmpuint (ffm_einsum_get_n_operations (einsum (d, "QK")), ==, 8384512);
  g_assert_cmpuint (ffm_einsum_get_n_operations (einsum (d, "QK_softmax")), ==, 65504);
  g_assert_cmpuint (tensor (d, "K")->classes, ==, OUT);
  g_assert_cmpuint (tensor (d, "V")->classes, ==, OUT);
  g_assert_cmpuint (tensor (d, "K_cache")->classes, ==, IN | PERS);
  g_assert_cmpuint (tensor (d, "V_cache")->classes, ==, IN | PERS);
  g_assert_cmpuint (roles (d, "QK", "K_cache"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (footprint (d, "QK", "K_cache"), ==, 8384512);
  g_assert_cmpuint (ffm_workload_get_tensor_values (d, (guint) ffm_workload_find_tensor (d, "QK")),
                    ==, 65504);
}

static void
test_doc_example (void)
{
  g_autofree char *path = data_path ("valid", "doc-example.json");
  g_autoptr (FfmWorkload) p = load (path, "new_tokens=16");
  g_autoptr (FfmWorkload) d = load (path, "new_tokens=1;decode=yes;cached_tokens=100");
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmWorkload) bad = NULL;

  g_test_summary ("The complete example of docs/file-formats.md loads as documented");
  g_assert_cmpuint (ffm_workload_get_n_einsums (p), ==, 6);
  g_assert_cmpuint (ffm_workload_get_n_einsums (d), ==, 5);
  g_assert_cmpuint (bound (d, "QK", "p"), ==, 100);
  g_assert_cmpuint (roles (d, "AV", "QK_softmax"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (roles (d, "AV", "V_cache"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (tensor (d, "V_cache")->classes, ==, IN | PERS);
  g_assert_cmpstr (ffm_workload_get_layer (p), ==, "one attention block");
  g_assert_cmpstr (ffm_workload_get_data_source (p), ==, "made up for this document");

  ffm_param_values_set (values, "new_tokens", "2000");
  ffm_param_values_set (values, "decode", "true");
  ffm_param_values_set (values, "cached_tokens", "100");
  bad = ffm_workload_load (path, values, &error);
  g_assert_null (bad);
  g_assert_error (error, FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "check failed: decode needs new_tokens + "
                            "cached_tokens <= max_tokens (decode = 1, new_tokens = 2000, "
                            "cached_tokens = 100, max_tokens = 2048)"));
}

/* ---- Affine accesses and repeats ---- */

static void
test_depthwise (void)
{
  g_autofree char *path = data_path ("valid", "depthwise.json");
  g_autoptr (FfmWorkload) w = load (path, NULL);
  const FfmEinsum *e = einsum (w, "Depthwise0");
  const FfmProjection *p = &e->accesses[0].projections[0];
  guint64 tile[FFM_MAX_EINSUM_RANK_VARS] = { 0 };
  int p1 = ffm_einsum_find_rank_var (e, "p1");
  int r0 = ffm_einsum_find_rank_var (e, "r0");

  g_test_summary ("Depthwise convolution: affine footprints are not clipped (§0.2)");
  g_assert_cmpuint (ffm_einsum_get_n_operations (e), ==, 1354752);
  g_assert_cmpuint (footprint (w, "Depthwise0", "TA0"), ==, 30 * 30 * 192);
  g_assert_cmpuint (footprint (w, "PiecewiseA0", "TA0"), ==, 28 * 28 * 192);
  g_assert_cmpuint (ffm_workload_get_tensor_values (w, (guint) ffm_workload_find_tensor (w, "TA0")),
                    ==, 30 * 30 * 192);
  g_assert_cmpuint (bound (w, "Depthwise0", "p1"), ==, 28);
  g_assert_cmpuint (bound (w, "Depthwise0", "r0"), ==, 3);
  g_assert_cmpuint (p->n_terms, ==, 2);
  g_assert_cmpuint (p->terms[0].var, ==, (guint) p1);
  g_assert_cmpuint (p->terms[1].var, ==, (guint) r0);
  g_assert_cmpint (p->terms[0].coefficient, ==, 1);
  g_assert_true (ffm_access_uses_var (e, 0, (guint) r0));
  g_assert_false (ffm_access_uses_var (e, 2, (guint) r0));     /* output TB0 */
  /* tiles: p1 < 4, r0 < 3 -> extent 6; q1 < 1, s0 < 1 -> 1; t0 < 2; b < 1 */
  for (guint v = 0; v < e->n_rank_vars; v++)
    tile[v] = 1;
  tile[p1] = 4;
  tile[r0] = 3;
  tile[ffm_einsum_find_rank_var (e, "t0")] = 2;
  g_assert_cmpuint (ffm_projection_extent (p, tile), ==, 6);
  g_assert_cmpuint (ffm_access_tile_values (e, 0, tile), ==, 12);
  g_assert_cmpuint (ffm_access_tile_values (e, 1, tile), ==, 1 * 1 * 2 * 3);
  tile[p1] = 0;
  g_assert_cmpuint (ffm_projection_extent (p, tile), ==, 0);
  g_assert_cmpuint (tensor (w, "WAB0")->classes, ==, IN | PERS);
  g_assert_cmpuint (footprint_bits (w), ==, 5383680);
}

static void
test_repeats (void)
{
  g_autofree char *path = data_path ("valid", "convs.json");
  g_autoptr (FfmWorkload) w = load (path, NULL);
  g_autoptr (FfmWorkload) two = load (path, "batch=2");

  g_test_summary ("Repeat over records, ranges and strings; {expr}; strides; bits rules");
  g_assert_cmpuint (ffm_workload_get_n_einsums (w), ==, 9);
  g_assert_cmpuint (ffm_workload_get_n_einsums (two), ==, 5);   /* block's when */
  g_assert_cmpstr (ffm_workload_get_einsum (w, 0)->text, ==,
                   "O0[n,m0,p0,q0] = I0[n,c0,4*p0+r0,W:4*q0+s0] * F0[m0,c0,r0,s0]");
  /* bare affine entry named by "tensors": I0's third rank is H */
  g_assert_cmpstr (tensor (w, "I0")->rank_names[2], ==, "H");
  g_assert_cmpuint (footprint (w, "O0", "I0"), ==, 3 * 227 * 227);
  g_assert_cmpuint (ffm_einsum_get_n_operations (einsum (w, "O0")), ==,
                    G_GUINT64_CONSTANT (64) * 55 * 55 * 3 * 11 * 11);
  g_assert_cmpuint (footprint (w, "O1", "I1"), ==, 64 * 31 * 31);
  g_assert_cmpstr (einsum (w, "O2")->text, ==, "O2[n,m2,p2] = I2[n,c2,p2] * F2[c2,m2]");
  /* the bounding box cuts x: X3 = 6 and 2*x+1 <= 5 */
  g_assert_cmpuint (bound (w, "strided3", "x3"), ==, 3);
  g_assert_cmpuint (bound (w, "strided4", "x4"), ==, 4);
  g_assert_cmpuint (footprint (w, "strided4", "R4"), ==, 7);
  g_assert_cmpint (einsum (w, "strided4")->accesses[0].projections[0].offset, ==, 1);
  /* names with {{ }}, nested repeats over strings */
  g_assert_cmpuint (bound (w, "b1{x}", "m"), ==, 2);
  g_assert_cmpint (ffm_workload_find_einsum (w, "a0{x}"), ==, 5);
  /* bits: weights 4, other 8, a tensors entry 16 */
  g_assert_cmpuint (tensor (w, "F0")->bits_per_value, ==, 4);
  g_assert_cmpuint (tensor (w, "I0")->bits_per_value, ==, 8);
  g_assert_cmpuint (tensor (w, "O2")->bits_per_value, ==, 16);
  g_assert_cmpuint (tensor (w, "O2")->classes, ==, OUT | PERS);
  g_assert_cmpuint (tensor (w, "Ua0")->bits_per_value, ==, 4);  /* 2nd of Y = Z + U */
}

/* ---- Roles ---- */

static const char roles_json[] =
  "{ \"ffm_workload\": 1, \"name\": \"roles\",\n"
  "  \"ranks\": { \"M\": 2 }, \"bits_per_value\": { \"all\": 8 },\n"
  "  %s\n"
  "  \"einsums\": [ \"A[m] = X[m] * Y[m]\", \"B[m] = X[m] * A[m]\",\n"
  "                \"C[m] = A[m] * B[m]\", \"D[m] = U[m] * C[m] * V[m] * B[m]\",\n"
  "                \"E[m] = D[m]\",\n"
  "                { \"einsum\": \"F[m] = E[m] * W[m]\", \"roles\": { \"weight\": \"E\" } } ] }";

static FfmWorkload *
load_roles (const char *top)
{
  g_autofree char *text = g_strdup_printf (roles_json, top);
  g_autoptr (GError) error = NULL;
  FfmWorkload *w = ffm_workload_load_from_data (text, "roles.json", NULL, &error);

  g_assert_no_error (error);
  return w;
}

static void
test_roles (void)
{
  g_autoptr (FfmWorkload) w = load_roles ("");
  g_autoptr (FfmWorkload) t = load_roles ("\"roles\": { \"input\": \"inputs & intermediates\", "
                                          "\"weight\": \"inputs - input\" },");

  g_test_summary ("Default roles, the documented fallback, and overrides");
  /* neither intermediate: first input */
  g_assert_cmpuint (roles (w, "A", "X"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (roles (w, "A", "Y"), ==, FFM_ROLE_WEIGHT);
  /* exactly one intermediate, in second place */
  g_assert_cmpuint (roles (w, "B", "A"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (roles (w, "B", "X"), ==, FFM_ROLE_WEIGHT);
  /* both intermediates: first input */
  g_assert_cmpuint (roles (w, "C", "A"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (roles (w, "C", "B"), ==, FFM_ROLE_WEIGHT);
  /* 4 inputs: first intermediate is input, the rest weights */
  g_assert_cmpuint (roles (w, "D", "C"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (roles (w, "D", "U"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (roles (w, "D", "V"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (roles (w, "D", "B"), ==, FFM_ROLE_WEIGHT);
  /* one input: no weight */
  g_assert_cmpuint (roles (w, "E", "D"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (ffm_einsum_get_role_set (einsum (w, "E"), FFM_ROLE_WEIGHT), ==, 0);
  /* explicit weight: input = the other input */
  g_assert_cmpuint (roles (w, "F", "E"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (roles (w, "F", "W"), ==, FFM_ROLE_INPUT);
  g_assert_cmpuint (roles (w, "F", "F"), ==, FFM_ROLE_OUTPUT);
  /* top-level rules: input = inputs & intermediates ("inputs" = workload inputs) */
  g_assert_cmpuint (ffm_einsum_get_role_set (einsum (t, "A"), FFM_ROLE_INPUT), ==, 0);
  g_assert_cmpuint (roles (t, "C", "A"), ==, 0);         /* A, B are intermediates, not inputs */
  g_assert_cmpuint (roles (t, "D", "U"), ==, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (roles (t, "F", "E"), ==, FFM_ROLE_WEIGHT);  /* per-Einsum wins */
}

/* ---- Tensor-set scopes ---- */

static gboolean
extra_resolve (const char *name, FfmValue *out, gpointer user_data)
{
  if (strcmp (name, "above") != 0)
    return FALSE;
  out->type = FFM_VALUE_SET;
  out->set = 0x1;
  return TRUE;
}

static guint64
eval_set (const FfmWorkload *w, guint e, const char *text, const FfmExprScope *extra)
{
  FfmEinsumSetScope s;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmExpr) expr = ffm_expr_parse (text, &error);
  guint64 set = 0xdead;

  g_assert_no_error (error);
  ffm_einsum_set_scope_init (&s, w, e, extra);
  if (!ffm_expr_evaluate_set (expr, &s.scope, &set, &error))
    g_error ("%s: %s", text, error->message);
  return set;
}

static void
test_set_scope (void)
{
  g_autofree char *path = data_path ("valid", "gpt3-layer.json");
  g_autoptr (FfmWorkload) w = load (path, NULL);
  guint qk = (guint) ffm_workload_find_einsum (w, "QK");
  guint v = (guint) ffm_workload_find_einsum (w, "V");
  FfmExprScope extra = { extra_resolve, NULL, 0 };
  FfmEinsumSetScope s;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmExpr) expr = ffm_expr_parse ("nonsense", NULL);
  double n;
  guint64 set;

  g_test_summary ("Set expressions per Einsum: classes, roles, names, ~, len()");
  /* QK accesses: Q (0), K (1), QK (2) */
  g_assert_cmpuint (eval_set (w, qk, "all", NULL), ==, 0x7);
  g_assert_cmpuint (eval_set (w, qk, "Tensors", NULL), ==, 0x7);
  g_assert_cmpuint (eval_set (w, qk, "nothing", NULL), ==, 0);
  g_assert_cmpuint (eval_set (w, qk, "input", NULL), ==, 0x1);
  g_assert_cmpuint (eval_set (w, qk, "weight", NULL), ==, 0x2);
  g_assert_cmpuint (eval_set (w, qk, "Weights", NULL), ==, 0x2);
  g_assert_cmpuint (eval_set (w, qk, "output", NULL), ==, 0x4);
  g_assert_cmpuint (eval_set (w, qk, "Intermediates", NULL), ==, 0x7);
  g_assert_cmpuint (eval_set (w, qk, "shared", NULL), ==, 0x7);
  g_assert_cmpuint (eval_set (w, qk, "inputs | outputs | persistent", NULL), ==, 0);
  g_assert_cmpuint (eval_set (w, qk, "K", NULL), ==, 0x2);
  g_assert_cmpuint (eval_set (w, qk, "WV", NULL), ==, 0);          /* elsewhere: empty */
  g_assert_cmpuint (eval_set (w, qk, "~K", NULL), ==, 0x5);
  g_assert_cmpuint (eval_set (w, qk, "~above", &extra), ==, 0x6);
  /* V accesses: I (0), WV (1), V (2) */
  g_assert_cmpuint (eval_set (w, v, "weight - intermediates", NULL), ==, 0x2);
  g_assert_cmpuint (eval_set (w, v, "persistent", NULL), ==, 0x2);
  g_assert_cmpuint (eval_set (w, v, "All - Intermediates", NULL), ==, 0x2);
  g_assert_cmpuint (eval_set (w, v, "inputs", NULL), ==, 0x2);
  ffm_einsum_set_scope_init (&s, w, v, NULL);
  g_assert_true (ffm_expr_evaluate_text_number ("len(all) == 3", &s.scope, &n, &error));
  g_assert_cmpfloat (n, ==, 1);
  g_assert_false (ffm_expr_evaluate_set (expr, &s.scope, &set, &error));
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_UNKNOWN_NAME);
}

/* ---- Round trip ---- */

static void
assert_same_workload (const FfmWorkload *a, const FfmWorkload *b)
{
  g_assert_cmpstr (ffm_workload_get_name (a), ==, ffm_workload_get_name (b));
  g_assert_cmpuint (ffm_workload_get_n_tensors (a), ==, ffm_workload_get_n_tensors (b));
  g_assert_cmpuint (ffm_workload_get_n_einsums (a), ==, ffm_workload_get_n_einsums (b));
  for (guint t = 0; t < ffm_workload_get_n_tensors (a); t++)
    {
      const FfmTensor *x = ffm_workload_get_tensor (a, t);
      const FfmTensor *y = ffm_workload_get_tensor (b, t);
      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpuint (x->n_ranks, ==, y->n_ranks);
      for (guint r = 0; r < x->n_ranks; r++)
        g_assert_cmpstr (x->rank_names[r], ==, y->rank_names[r]);
      g_assert_cmpuint (x->bits_per_value, ==, y->bits_per_value);
      g_assert_cmpuint (x->classes, ==, y->classes);
      g_assert_cmpuint (x->producer, ==, y->producer);
      g_assert_cmpuint (ffm_workload_get_tensor_values (a, t), ==,
                        ffm_workload_get_tensor_values (b, t));
    }
  for (guint i = 0; i < ffm_workload_get_n_einsums (a); i++)
    {
      const FfmEinsum *x = ffm_workload_get_einsum (a, i);
      const FfmEinsum *y = ffm_workload_get_einsum (b, i);
      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpuint (x->is_copy, ==, y->is_copy);
      g_assert_cmpuint (x->n_rank_vars, ==, y->n_rank_vars);
      for (guint v = 0; v < x->n_rank_vars; v++)
        {
          g_assert_cmpstr (x->rank_var_names[v], ==, y->rank_var_names[v]);
          g_assert_cmpuint (x->rank_var_bounds[v], ==, y->rank_var_bounds[v]);
        }
      g_assert_cmpuint (x->n_accesses, ==, y->n_accesses);
      g_assert_cmpuint (x->output_access, ==, y->output_access);
      for (guint k = 0; k < x->n_accesses; k++)
        {
          g_assert_cmpuint (x->accesses[k].tensor, ==, y->accesses[k].tensor);
          g_assert_cmpuint (x->accesses[k].roles, ==, y->accesses[k].roles);
          g_assert_cmpuint (x->accesses[k].is_output, ==, y->accesses[k].is_output);
          g_assert_cmpmem (x->accesses[k].projections, sizeof x->accesses[k].projections,
                           y->accesses[k].projections, sizeof y->accesses[k].projections);
        }
    }
}

static void
round_trip (const char *path, const char *params)
{
  g_autoptr (FfmWorkload) w = load (path, params);
  g_autofree char *json = ffm_workload_to_json (w);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmWorkload) again = ffm_workload_load_from_data (json, "round-trip.json",
                                                               NULL, &error);
  g_autofree char *json2 = NULL;

  if (again == NULL)
    g_error ("%s: %s\n%s", path, error->message, json);
  assert_same_workload (w, again);
  json2 = ffm_workload_to_json (again);
  g_assert_cmpstr (json, ==, json2);
}

static void
test_round_trip (void)
{
  static const struct {
    const char *kind;
    const char *file;
    const char *params;
  } files[] = {
    { NULL, "matmuls.json", "n_einsums=3" },
    { NULL, "matvecs.json", NULL },
    { NULL, "three-matmuls.json", NULL },
    { "valid", "gpt3-layer.json", NULL },
    { "valid", "gpt3-layer.json", "decode=1;new_tokens=1;cached_tokens=7" },
    { "valid", "depthwise.json", NULL },
    { "valid", "convs.json", NULL },
    { "valid", "doc-example.json", "new_tokens=8" },
  };

  g_test_summary ("Valid files round-trip: load, write as JSON, load again, same workload");
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = files[i].kind
                              ? data_path (files[i].kind, files[i].file)
                              : source_path ("workloads", files[i].file, NULL);
      round_trip (path, files[i].params);
    }
}

/* ---- Invalid files ---- */

typedef struct {
  const char *file;
  const char *params;           /* "k=v;k=v" or NULL */
  gboolean param_domain;        /* FFM_PARAM_ERROR instead of FFM_WORKLOAD_ERROR */
  int code;
  int line;                     /* expected line; 0 = none */
  const char *cause[3];         /* substrings of the message */
} InvalidCase;

#define W_PARSE FALSE, FFM_WORKLOAD_ERROR_PARSE
#define W_INVALID FALSE, FFM_WORKLOAD_ERROR_INVALID
#define P_ERROR(code) TRUE, FFM_PARAM_ERROR_##code

static const InvalidCase invalid_cases[] = {
  { "bad-json.json", NULL, W_PARSE, 4, { "Parse error" } },
  { "empty.json", NULL, W_PARSE, 0, { "the file is empty" } },
  { "not-object.json", NULL, W_INVALID, 0, { "$: expected an object, got an array" } },
  { "no-version.json", NULL, W_INVALID, 0, { "missing \"ffm_workload\": 1" } },
  { "bad-version.json", NULL, W_INVALID, 2, { "unsupported format version 2" } },
  { "unknown-member.json", NULL, W_INVALID, 4, { "unknown member \"einsum\"" } },
  { "missing-name.json", NULL, W_INVALID, 0, { "$.name: missing (expected a string)" } },
  { "missing-einsums.json", NULL, W_INVALID, 0, { "missing \"einsums\"" } },
  { "einsums-not-array.json", NULL, W_INVALID, 4, { "$.einsums: expected an array" } },
  { "einsum-syntax.json", NULL, W_INVALID, 7,
    { "$.einsums[0]: expected ',' or ']' at character 20 of \"Z[m,n]=A[m,k]*B[k,n\"" } },
  { "einsum-no-equals.json", NULL, W_INVALID, 7, { "expected '=' after the output tensor" } },
  { "einsum-not-string.json", NULL, W_INVALID, 7, { "expected an Einsum string" } },
  { "uppercase-variable.json", NULL, W_INVALID, 7, { "lower-case letter", "character 4" } },
  { "rank-two-sizes.json", NULL, W_INVALID, 7,
    { "rank N has size 2 here but 1 at", "(i = 1)", "one size in the workload" } },
  { "rank-size-zero.json", NULL, W_INVALID, 5,
    { "$.ranks.M: rank M is 0 (must be at least 1)", "\"m - 128\" with m = 128" } },
  { "rank-size-negative.json", NULL, W_INVALID, 4, { "rank M is -4 (must be at least 1)" } },
  { "rank-size-fraction.json", NULL, W_INVALID, 5,
    { "rank M: expected an integer, got 42.66", "with m = 128" } },
  { "unknown-name-in-size.json", NULL, W_INVALID, 5, { "unknown name 'bach'" } },
  { "division-by-zero.json", NULL, W_INVALID, 5,
    { "$.let.x: division by zero at character 3 of \"m / (m - 4)\"" } },
  { "expression-syntax.json", NULL, W_INVALID, 5, { "expected ')'", "\"4*(m\"" } },
  { "unknown-tensor.json", NULL, W_INVALID, 4,
    { "$.tensors.Q: unknown tensor 'Q'", "A, B, Z" } },
  { "unknown-tensor-in-role.json", NULL, W_INVALID, 7,
    { "roles.input: in Einsum Z: unknown name 'X'" } },
  { "unknown-class.json", NULL, W_INVALID, 4,
    { "$.persistent: in Einsum Z: unknown name 'intermediatez'" } },
  { "unknown-bits-class.json", NULL, W_INVALID, 5, { "unknown name 'Alll'" } },
  { "no-bound.json", NULL, W_INVALID, 7, { "Einsum Z: rank variable r has no bound" } },
  { "empty-range.json", NULL, W_INVALID, 7, { "rank variable p has an empty range" } },
  { "tensor-two-rank-lists.json", NULL, W_INVALID, 8,
    { "rank 1 of tensor Y is P here but M elsewhere", "write M:p" } },
  { "tensor-rank-count.json", NULL, W_INVALID, 8, { "tensor Y has 1 ranks here but 2" } },
  { "two-producers.json", NULL, W_INVALID, 8,
    { "Einsum Y2: tensor Y is already written by Einsum Y1" } },
  { "read-before-write.json", NULL, W_INVALID, 7,
    { "Einsum Z: reads tensor Y before Einsum Y writes it" } },
  { "duplicate-einsum-name.json", NULL, W_INVALID, 8, { "Einsum E: the name is already used" } },
  { "copy-two-inputs.json", NULL, W_INVALID, 7, { "a copy Einsum has exactly one input" } },
  { "in-place.json", NULL, W_INVALID, 7, { "tensor A is both read and written" } },
  { "same-tensor-two-indices.json", NULL, W_INVALID, 7,
    { "tensor A appears twice with different indices" } },
  { "too-many-ranks.json", NULL, W_INVALID, 7, { "more than 8 ranks" } },
  { "class-word-tensor.json", NULL, W_INVALID, 7, { "tensor name input is reserved" } },
  /* the fuzzer's find: a role "true" read back as the number 1 */
  { "constant-word-tensor.json", NULL, W_INVALID, 7,
    { "tensor name true is reserved (a constant of set expressions)" } },
  { "role-selects-nothing.json", NULL, W_INVALID, 8,
    { "$.einsums[1].roles.weight: Einsum Z: role weight = \"A\" selects none" } },
  { "bits-overlap.json", NULL, W_INVALID, 5,
    { "keys \"all\" and \"weight\" both select tensor B" } },
  { "bits-missing.json", NULL, W_INVALID, 0, { "tensor A has no bits per value" } },
  { "bits-inconsistent.json", NULL, W_INVALID, 8,
    { "tensor Y gets 8 bits per value here but 16 in Einsum Y" } },
  { "bits-zero.json", NULL, W_INVALID, 5, { "bits for \"all\" is 0 (must be at least 1)" } },
  { "check-failed.json", NULL, W_INVALID, 5,
    { "workload bad: check failed: needs new_tokens <= max_tokens",
      "(new_tokens = 4096, max_tokens = 2048)" } },
  { "required-when.json", NULL, P_ERROR (MISSING), 6,
    { "workload bad: parameter cached_tokens is required when decode (decode = 1)",
      "--param cached_tokens=VALUE" } },
  { "unset-parameter-used.json", NULL, W_INVALID, 8,
    { "unknown name 'cached_tokens'", "parameter cached_tokens has no value" } },
  { "missing-required-parameter.json", NULL, P_ERROR (MISSING), 0,
    { "workload bad: parameter m is required (integer: rows)" } },
  { "cli-parameters.json", "bach=3", P_ERROR (UNKNOWN), 0,
    { "workload bad: unknown parameter 'bach' (known: m, mode)" } },
  { "cli-parameters.json", "m=big", P_ERROR (INVALID_VALUE), 0,
    { "workload bad: parameter m: expected an integer, got 'big'" } },
  { "cli-parameters.json", "m=0", P_ERROR (INVALID_VALUE), 0,
    { "parameter m: 0 is below the minimum 1" } },
  { "cli-parameters.json", "mode=c", P_ERROR (INVALID_VALUE), 0,
    { "parameter mode: expected one of a, b, got 'c'" } },
  { "parameter-bad-type.json", NULL, W_INVALID, 4, { "unknown parameter type 'float'" } },
  { "parameter-default-mismatch.json", NULL, W_INVALID, 4,
    { "$.parameters.m.default: expected a number as the default (the parameter is an integer)" } },
  { "parameter-no-type.json", NULL, W_INVALID, 4, { "parameter m needs a \"type\"" } },
  { "parameter-bad-name.json", NULL, W_INVALID, 4, { "parameter name 'Batch' must match" } },
  { "let-repeats-parameter.json", NULL, W_INVALID, 5, { "'m' is already a parameter" } },
  { "repeat-two-forms.json", NULL, W_INVALID, 7, { "exactly one of \"count\"" } },
  { "repeat-no-var.json", NULL, W_INVALID, 0, { "$.einsums[0].repeat.var: missing" } },
  { "substitution-unmatched.json", NULL, W_INVALID, 7, { "unmatched '{' at character 2" } },
  { "substitution-unknown.json", NULL, W_INVALID, 7,
    { "(i = 0): in {j} of \"Z{j}[m] = A{i}[m]\": unknown name 'j'" } },
  { "bounds-unknown-variable.json", NULL, W_INVALID, 7,
    { "\"bounds\" names 'q', which is not one of its rank variables" } },
  { "all-left-out.json", NULL, W_INVALID, 8, { "has no Einsums with these parameters" } },
  { "unknown-einsum-member.json", NULL, W_INVALID, 7, { "unknown member \"kopy\"" } },
  { "bad-when-type.json", NULL, W_INVALID, 7,
    { "$.einsums[0].when: expected a condition (a number), got a string" } },
};

static void
test_invalid (void)
{
  g_autofree char *dir_path = data_path ("invalid", NULL);
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr (GHashTable) covered = g_hash_table_new (g_str_hash, g_str_equal);
  const char *entry;

  g_test_summary ("Each invalid file gives its error code, names the file, the line "
                  "where there is one, and the cause");
  for (guint i = 0; i < G_N_ELEMENTS (invalid_cases); i++)
    {
      const InvalidCase *c = &invalid_cases[i];
      g_autofree char *path = data_path ("invalid", c->file);
      g_autoptr (FfmParamValues) values = ffm_param_values_new ();
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmWorkload) w = NULL;
      g_auto (GStrv) assignments = c->params ? g_strsplit (c->params, ";", -1) : NULL;
      g_autofree char *prefix = c->line ? g_strdup_printf ("%s:%d:", path, c->line)
                                        : g_strdup_printf ("%s: ", path);

      g_hash_table_add (covered, (gpointer) c->file);
      for (guint k = 0; assignments != NULL && assignments[k] != NULL; k++)
        g_assert_true (ffm_param_values_parse_assignment (values, assignments[k], NULL));
      w = ffm_workload_load (path, values, &error);
      if (w != NULL)
        g_error ("%s (%s): loaded without error", c->file, c->params);
      if (error->domain != (c->param_domain ? FFM_PARAM_ERROR : FFM_WORKLOAD_ERROR)
          || error->code != c->code)
        g_error ("%s: got %s %d: %s", c->file, g_quark_to_string (error->domain),
                 error->code, error->message);
      if (!g_str_has_prefix (error->message, prefix))
        g_error ("%s: message does not start with \"%s\": %s", c->file, prefix,
                 error->message);
      for (guint k = 0; k < G_N_ELEMENTS (c->cause) && c->cause[k] != NULL; k++)
        if (strstr (error->message, c->cause[k]) == NULL)
          g_error ("%s: message lacks \"%s\": %s", c->file, c->cause[k], error->message);
    }
  /* every file of the folder has an expectation */
  g_assert_nonnull (dir);
  while ((entry = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (entry, ".json") && !g_hash_table_contains (covered, entry))
      g_error ("tests/data/workload/invalid/%s has no entry in invalid_cases", entry);
  g_assert_cmpuint (g_hash_table_size (covered), >=, 25);
}

static void
test_invalid_data (void)
{
  static const char *const texts[] = {
    "", "{", "null", "[]", "{\"ffm_workload\": 1}", "{\"ffm_workload\": \"1\"}",
    "{\"ffm_workload\": 1, \"name\": \"a b\", \"einsums\": []}",
    "{\"ffm_workload\": 1, \"name\": \"a\", \"einsums\": []}",
    "{\"ffm_workload\": 1, \"name\": \"a\", \"einsums\": [\"Z[m] = A[m]\"]}",
    "{\"ffm_workload\": 1, \"name\": \"a\", \"einsums\": [{\"repeat\": {\"var\": \"i\", "
    "\"count\": -1}, \"einsums\": []}]}",
    "{\"ffm_workload\": 1, \"name\": \"a\", \"ranks\": {\"M\": 1e300}, \"einsums\": []}",
    "{\"ffm_workload\": 1, \"name\": \"a\", \"ranks\": {\"M\": 4294967296, "
    "\"N\": 4294967296, \"K\": 4294967296}, \"bits_per_value\": {\"all\": 8}, "
    "\"einsums\": [\"Z[m,n] = A[m,k] * B[k,n]\"]}",
    "{\"ffm_workload\": 1, \"name\": \"a\", \"ranks\": {\"M\": 2}, \"bits_per_value\": "
    "{\"all\": 8}, \"roles\": {\"input\": \"(\"}, \"einsums\": [\"Z[m] = A[m]\"]}",
  };

  g_test_summary ("Odd documents fail cleanly, with the display name in the message");
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmWorkload) w = ffm_workload_load_from_data (texts[i], "odd.json", NULL,
                                                               &error);
      if (w != NULL)
        g_error ("%s: loaded", texts[i]);
      g_assert_true (error->domain == FFM_WORKLOAD_ERROR);
      if (!g_str_has_prefix (error->message, "odd.json"))
        g_error ("%s: %s", texts[i], error->message);
    }
}

/* ---- Finding workloads ---- */

static void
test_search (void)
{
  g_auto (GStrv) names = ffm_workload_list_available ();
  g_auto (GStrv) dirs = ffm_workload_search_dirs ();
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmWorkload) w = ffm_workload_load ("three-matmuls", NULL, &error);
  g_autofree char *expected = source_path ("workloads", "three-matmuls.json", NULL);

  g_test_summary ("Workloads are found by name in the data folders");
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_workload_get_source_file (w), ==, expected);
  g_assert_true (g_strv_contains ((const char *const *) names, "matmuls"));
  g_assert_true (g_strv_contains ((const char *const *) names, "matvecs"));
  g_assert_true (g_strv_contains ((const char *const *) names, "three-matmuls"));
  for (guint i = 1; names[0] != NULL && names[i] != NULL; i++)
    g_assert_cmpint (strcmp (names[i - 1], names[i]), <, 0);
  g_assert_nonnull (dirs[0]);

  g_clear_pointer (&w, ffm_workload_unref);
  w = ffm_workload_load ("no-such-workload", NULL, &error);
  g_assert_null (w);
  g_assert_error (error, FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no workload named 'no-such-workload'"));
  g_assert_nonnull (strstr (error->message, "matmuls"));
  g_clear_error (&error);
  w = ffm_workload_load ("/nonexistent/x.json", NULL, &error);
  g_assert_error (error, FFM_WORKLOAD_ERROR, FFM_WORKLOAD_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "/nonexistent/x.json: no such file");
}

static void
test_search_data_path (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *valid = data_path ("valid", NULL);
      g_autofree char *root = g_path_get_dirname (valid);    /* .../workload */
      g_autofree char *parent = g_path_get_dirname (root);   /* .../data */
      g_autofree char *tmp = g_dir_make_tmp ("ffm-wl-XXXXXX", NULL);
      g_autofree char *sub = g_build_filename (tmp, "workloads", NULL);
      g_autofree char *src = data_path ("valid", "depthwise.json");
      g_autofree char *dst = g_build_filename (sub, "my-depthwise.json", NULL);
      g_autofree char *text = NULL;
      g_auto (GStrv) names = NULL;
      g_autoptr (FfmWorkload) w = NULL;

      g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
      g_assert_cmpint (g_mkdir_with_parents (sub, 0700), ==, 0);
      g_assert_true (g_file_set_contents (dst, text, -1, NULL));
      g_setenv ("FFM_DATA_PATH", tmp, TRUE);
      names = ffm_workload_list_available ();
      g_assert_true (g_strv_contains ((const char *const *) names, "my-depthwise"));
      w = ffm_workload_load ("my-depthwise", NULL, NULL);
      g_assert_nonnull (w);
      g_assert_cmpstr (ffm_workload_get_source_file (w), ==, dst);
      g_unlink (dst);
      g_rmdir (sub);
      g_rmdir (tmp);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* ---- ffm show-workload ---- */

static int
run_ffm (const char *const *args, char **out, char **err)
{
  const char *exe = g_getenv ("FFM_EXE");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  int status = -1;

  g_assert_nonnull (exe);
  g_ptr_array_add (argv, (gpointer) exe);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL,
                               NULL, out, err, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
test_show_workload (void)
{
  g_autofree char *matvecs = source_path ("workloads", "matvecs.json", NULL);
  g_autofree char *bad = data_path ("invalid", "rank-size-zero.json");
  g_autofree char *gpt = data_path ("valid", "gpt3-layer.json");
  const char *ok_args[] = { "show-workload", matvecs, NULL };
  const char *name_args[] = { "show-workload", "matmuls", "--param", "m=64", "-p", "kn=64", NULL };
  const char *decode_args[] = { "show-workload", gpt, "-p", "decode=1", "-p",
                                "new_tokens=1", "-p", "cached_tokens=2047", NULL };
  const char *bad_args[] = { "show-workload", bad, NULL };
  const char *param_args[] = { "show-workload", matvecs, "--param", "x=1", NULL };
  const char *syntax_args[] = { "show-workload", matvecs, "--param", "x", NULL };
  const char *none_args[] = { "show-workload", NULL };
  const char *two_args[] = { "show-workload", "a", "b", NULL };
  const char *list_args[] = { "show-workload", "--list", NULL };
  const char *help_args[] = { "show-workload", "--help", NULL };
  char *out = NULL, *err = NULL;

  g_test_summary ("ffm show-workload prints the resolved workload; exit 0/1/2");
  g_assert_cmpint (run_ffm (ok_args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "Workload matvecs ("));
  g_assert_nonnull (strstr (out, "Rank sizes: NA=4, NY=3, NZ=4"));
  g_assert_nonnull (strstr (out, "1. Y: Y[ny] = A[na] * B[na,ny]"));
  g_assert_nonnull (strstr (out, "operations 12; bounds: ny=3 na=4"));
  g_assert_nonnull (strstr (out, "Y              [NY] 3 values x 8 bits = 24 bits; "
                            "intermediate, shared; written by Y; read by Z"));
  g_assert_nonnull (strstr (out, "Totals: 24 operations; 280 bits in all tensors; 304 "
                            "footprint bits"));
  g_assert_cmpstr (err, ==, "");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_ffm (name_args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "m = 64  (integer; default 128)"));
  g_assert_nonnull (strstr (out, "Totals: 524,288 operations; 163,840 bits in all tensors; "
                            "196,608 footprint bits"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_ffm (decode_args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "K_cache        [B,P,H,E] 8,384,512 values x 16 bits = "
                            "134,152,192 bits; input, persistent; written by none; read by QK"));
  g_assert_nonnull (strstr (out, "reads  V_cache[b,p,h,E:f]"));
  g_assert_nonnull (strstr (out, "Totals: 218,161,120 operations"));
  g_assert_nonnull (strstr (out, "3,495,032,832 footprint bits"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_ffm (bad_args, &out, &err), ==, 1);
  g_assert_cmpstr (out, ==, "");
  g_assert_true (g_str_has_prefix (err, "ffm show-workload: "));
  g_assert_nonnull (strstr (err, "rank-size-zero.json:5: $.ranks.M: rank M is 0"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_ffm (param_args, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "workload matvecs: unknown parameter 'x'"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_ffm (syntax_args, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "'x' is not KEY=VALUE"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_ffm (none_args, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "which workload?"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_ffm (two_args, &out, &err), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_ffm (list_args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "  three-matmuls\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_ffm (help_args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "--param"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/workload/matvecs", test_matvecs);
  g_test_add_func ("/workload/matmuls", test_matmuls);
  g_test_add_func ("/workload/three-matmuls", test_three_matmuls);
  g_test_add_func ("/workload/gpt3-layer", test_gpt3_layer);
  g_test_add_func ("/workload/doc-example", test_doc_example);
  g_test_add_func ("/workload/depthwise", test_depthwise);
  g_test_add_func ("/workload/repeats", test_repeats);
  g_test_add_func ("/workload/roles", test_roles);
  g_test_add_func ("/workload/set-scope", test_set_scope);
  g_test_add_func ("/workload/round-trip", test_round_trip);
  g_test_add_func ("/workload/invalid", test_invalid);
  g_test_add_func ("/workload/invalid-data", test_invalid_data);
  g_test_add_func ("/workload/search", test_search);
  g_test_add_func ("/workload/search-data-path", test_search_data_path);
  g_test_add_func ("/workload/show-workload", test_show_workload);
  return g_test_run ();
}
