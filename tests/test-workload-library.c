/* test-workload-library.c: the shipped workloads (workloads/NAME.json).
 *
 * Every file loads with its defaults and with the standard parameter sets,
 * says where its numbers come from, and has the structure of
 * accelforge's workload files: Einsum count and order, rank sizes, tensor
 * sizes and bits, MAC counts, and the compulsory traffic: the sum over
 * non-copy Einsums of every tensor's footprint times its bits, which is the
 * reference's `snowcat` energy (accelforge's workload files) and the "Σ tensor bits"
 * of the compute-in-memory files (§7.2). Expected numbers are the
 * reference's, except where a comment says they are computed by hand.
 * Bad parameters give errors naming the workload and the parameter. */
#include <ffm/ffm.h>
#include <string.h>

/* ---- Helpers ---- */

/* Loads @name with @params, "key=value" items separated by spaces (NULL or
 * "" for the defaults). */
static FfmWorkload *
load (const char *name, const char *params, GError **error)
{
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_auto (GStrv) items = g_strsplit (params ? params : "", " ", -1);

  for (guint i = 0; items[i] != NULL; i++)
    if (items[i][0] != '\0')
      g_assert_true (ffm_param_values_parse_assignment (values, items[i], NULL));
  return ffm_workload_load (name, values, error);
}

static FfmWorkload *
load_ok (const char *name, const char *params)
{
  g_autoptr (GError) error = NULL;
  FfmWorkload *w = load (name, params, &error);

  if (error != NULL)
    g_test_message ("%s [%s]: %s", name, params ? params : "", error->message);
  g_assert_no_error (error);
  g_assert_nonnull (w);
  return w;
}

static guint64
sum_macs (const FfmWorkload *w)
{
  guint64 total = 0;

  for (guint e = 0; e < ffm_workload_get_n_einsums (w); e++)
    total += ffm_einsum_get_n_operations (ffm_workload_get_einsum (w, e));
  return total;
}

/* Every tensor of every non-copy Einsum read or written once, in bits. */
static guint64
sum_tensor_bits (const FfmWorkload *w)
{
  guint64 total = 0;

  for (guint e = 0; e < ffm_workload_get_n_einsums (w); e++)
    {
      const FfmEinsum *einsum = ffm_workload_get_einsum (w, e);
      if (einsum->is_copy)
        continue;
      for (guint a = 0; a < einsum->n_accesses; a++)
        {
          const FfmTensor *t = ffm_workload_get_tensor (w, einsum->accesses[a].tensor);
          total += ffm_access_tile_values (einsum, a, einsum->rank_var_bounds)
                   * t->bits_per_value;
        }
    }
  return total;
}

/* "I,V,K,..." */
static char *
einsum_order (const FfmWorkload *w)
{
  GString *s = g_string_new (NULL);

  for (guint e = 0; e < ffm_workload_get_n_einsums (w); e++)
    g_string_append_printf (s, "%s%s", e ? "," : "", ffm_workload_get_einsum (w, e)->name);
  return g_string_free (s, FALSE);
}

static const FfmTensor *
tensor (const FfmWorkload *w, const char *name)
{
  int index = ffm_workload_find_tensor (w, name);

  if (index < 0)
    g_test_message ("no tensor %s in %s", name, ffm_workload_get_name (w));
  g_assert_cmpint (index, >=, 0);
  return ffm_workload_get_tensor (w, index);
}

/* Size of a tensor in values: its largest footprint over its Einsums. */
static guint64
tensor_values (const FfmWorkload *w, const char *name)
{
  int index = ffm_workload_find_tensor (w, name);
  guint64 values = 0;

  g_assert_cmpint (index, >=, 0);
  for (guint e = 0; e < ffm_workload_get_n_einsums (w); e++)
    {
      const FfmEinsum *einsum = ffm_workload_get_einsum (w, e);
      int a = ffm_einsum_find_access (einsum, index);
      if (a >= 0)
        values = MAX (values, ffm_access_tile_values (einsum, a, einsum->rank_var_bounds));
    }
  return values;
}

/* Bound of rank variable @var in Einsum @einsum_name. */
static guint64
var_bound (const FfmWorkload *w, const char *einsum_name, const char *var)
{
  int e = ffm_workload_find_einsum (w, einsum_name);
  const FfmEinsum *einsum;
  int v;

  g_assert_cmpint (e, >=, 0);
  einsum = ffm_workload_get_einsum (w, e);
  v = ffm_einsum_find_rank_var (einsum, var);
  g_assert_cmpint (v, >=, 0);
  return einsum->rank_var_bounds[v];
}

static guint64
einsum_macs (const FfmWorkload *w, const char *einsum_name)
{
  int e = ffm_workload_find_einsum (w, einsum_name);

  g_assert_cmpint (e, >=, 0);
  return ffm_einsum_get_n_operations (ffm_workload_get_einsum (w, e));
}

/* ---- The library ---- */

typedef enum {
  KIND_PLAIN,        /* defaults only */
  KIND_BATCH,        /* has batch */
  KIND_TRANSFORMER,  /* batch, new_tokens, decode, cached_tokens, max_tokens */
} Kind;

typedef struct {
  const char *name;
  Kind kind;
} Shipped;

static const Shipped shipped[] = {
  { "matmuls", KIND_PLAIN },
  { "matvecs", KIND_PLAIN },
  { "three-matmuls", KIND_PLAIN },
  { "matmul-chain", KIND_PLAIN },
  { "gpt3-6.7b", KIND_TRANSFORMER },
  { "gpt3-175b", KIND_TRANSFORMER },
  { "llama3-8b", KIND_TRANSFORMER },
  { "llama4-scout", KIND_TRANSFORMER },
  { "llama4-maverick", KIND_TRANSFORMER },
  { "qwen3-8b", KIND_TRANSFORMER },
  { "qwen3-30b-a3b", KIND_TRANSFORMER },
  { "mixtral-8x22b", KIND_TRANSFORMER },
  { "deepseek-v3-671b", KIND_TRANSFORMER },
  { "mamba", KIND_BATCH },
  { "mobilenet-28", KIND_BATCH },
  { "alexnet", KIND_BATCH },
  { "resnet18", KIND_BATCH },
  { "resnet50", KIND_BATCH },
  { "vgg16", KIND_BATCH },
  { "mobilenet-v3", KIND_BATCH },
  { "densenet201", KIND_BATCH },
  { "vision-transformer", KIND_BATCH },
  { "dpt-large", KIND_BATCH },
  { "gpt2-medium", KIND_BATCH },
  { "mobilebert", KIND_BATCH },
  { "phi-1.5", KIND_BATCH },
};

/* The parameter sets of the issue, for every workload with tokens. */
static const char *const token_sets[] = {
  "batch=1 new_tokens=256",
  "batch=1 new_tokens=2048",
  "batch=1 decode=1 new_tokens=1 cached_tokens=2047",
  "batch=64 new_tokens=4096",
};

static const Shipped *
find_shipped (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (shipped); i++)
    if (strcmp (shipped[i].name, name) == 0)
      return &shipped[i];
  return NULL;
}

/* Every JSON file of workloads/ is in the table above, and vice versa, so
 * a new workload cannot ship untested. */
static void
test_library_complete (void)
{
  g_autofree char *dir_path = g_test_build_filename (G_TEST_DIST, "..", "workloads", NULL);
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *file;
  guint n_files = 0;

  g_test_summary ("workloads/ holds exactly the workloads this test knows");
  g_assert_nonnull (dir);
  while ((file = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (file, ".json"))
      {
        g_autofree char *name = g_strndup (file, strlen (file) - strlen (".json"));
        if (find_shipped (name) == NULL)
          g_test_message ("workloads/%s is not covered by this test", file);
        g_assert_nonnull (find_shipped (name));
        n_files++;
      }
  g_assert_cmpuint (n_files, ==, G_N_ELEMENTS (shipped));
}

static void
check_loaded (const Shipped *s, const char *params)
{
  g_autoptr (FfmWorkload) w = load_ok (s->name, params);

  g_assert_cmpstr (ffm_workload_get_name (w), ==, s->name);
  g_assert_cmpuint (ffm_workload_get_n_einsums (w), >, 0);
  g_assert_cmpuint (sum_macs (w), >, 0);
}

static void
test_library_loads (void)
{
  g_test_summary ("every workload loads with its defaults and the standard "
                  "parameter sets where they apply");
  for (guint i = 0; i < G_N_ELEMENTS (shipped); i++)
    {
      const Shipped *s = &shipped[i];
      check_loaded (s, NULL);
      if (s->kind == KIND_BATCH)
        {
          check_loaded (s, "batch=1");
          check_loaded (s, "batch=64");
        }
      if (s->kind == KIND_TRANSFORMER)
        for (guint p = 0; p < G_N_ELEMENTS (token_sets); p++)
          check_loaded (s, token_sets[p]);
    }
}

static void
test_library_documented (void)
{
  g_test_summary ("every workload says where its numbers come from and what a "
                  "layer is");
  for (guint i = 0; i < G_N_ELEMENTS (shipped); i++)
    {
      g_autoptr (FfmWorkload) w = load_ok (shipped[i].name, NULL);
      const char *source = ffm_workload_get_data_source (w);
      const char *layer = ffm_workload_get_layer (w);
      const char *description = ffm_workload_get_description (w);

      if (source == NULL || layer == NULL || description == NULL)
        g_test_message ("%s lacks source, layer or description", shipped[i].name);
      g_assert_nonnull (source);
      g_assert_nonnull (layer);
      g_assert_nonnull (description);
      g_assert_cmpuint (strlen (source), >, 20);
      g_assert_cmpuint (strlen (layer), >, 0);
    }
}

/* ---- Totals: Einsum order, Σ MACs, Σ tensor bits ---- */

typedef struct {
  const char *name;
  const char *params;
  guint n_einsums;
  guint64 macs;
  guint64 bits;      /* Σ compulsory bits; 0: not checked */
  const char *order; /* NULL: not checked */
} Totals;

#define P256 "batch=1 new_tokens=256"
#define P2048 "batch=1 new_tokens=2048"
#define D2047 "batch=1 decode=1 new_tokens=1 cached_tokens=2047"
#define B64 "batch=64 new_tokens=4096"

#define MHA_ORDER "I,V,K,Q,QK,QK_softmax,AV,Z"
#define GLU_ORDER "FFG,FFU,FFH,FFB"
#define MOE_ORDER "Z_per_expert,FFG,FFU,FFH,FFD,FFB"
#define SHARED_ORDER "SFG,SFU,SFH,SFB,Z_per_expert,FFG,FFU,FFH,FFD,RFFB,FFB"
#define MLA_ORDER "I,CQ,CKV,Q,Q_latent,QK,QK_softmax,AV_latent,AV,Z"
#define MLA_PLAIN_ORDER "I,CQ,CKV,Q,K,QK,QK_softmax,V,AV,Z"
#define CHUNKED_ORDER "I,V,K,Q,QK,QK_softmax,AV,ZC,Z"

/* Reference values: accelforge's model files (P256 rows also its snowcat check). The
 * batch-64, 4096-token rows are not in the reference; they come from an
 * independent re-implementation of §0.2 (not the generator), and for
 * gpt3-6.7b by hand in test_gpt3_prefill_macs. */
static const Totals totals[] = {
  { "gpt3-6.7b", P256, 10, 52078575616ull, 3724541952ull, MHA_ORDER ",FFA,FFB" },
  { "gpt3-6.7b", P2048, 10, 446810816512ull, 14763950080ull, NULL },
  { "gpt3-6.7b", D2047, 10, 218161120ull, 3495032832ull, MHA_ORDER ",FFA,FFB" },
  { "gpt3-6.7b", B64, 10, 61607010893824ull, 2580201603072ull, NULL },
  { "gpt3-175b", P256, 10, 465473372160ull, 30500978688ull, MHA_ORDER ",FFA,FFB" },
  { "gpt3-175b", P2048, 10, 3814333612032ull, 63619203072ull, NULL },
  { "gpt3-175b", D2047, 10, 1862442912ull, 29812451328ull, NULL },
  { "gpt3-175b", B64, 10, 501480381480960ull, 7759932162048ull, NULL },
  { "llama3-8b", P256, 12, 56377212928ull, 4177526784ull, MHA_ORDER "," GLU_ORDER },
  { "llama3-8b", P2048, 12, 481199915008ull, 16508780544ull, NULL },
  { "llama3-8b", D2047, 12, 234952672ull, 3563059200ull, NULL },
  { "llama3-8b", B64, 12, 66008815501312ull, 2769448599552ull, NULL },
  { "mixtral-8x22b", P256, 14, 177984241664ull, 41439723520ull, MHA_ORDER "," MOE_ORDER },
  { "mixtral-8x22b", P2048, 14, 1469147250688ull, 62344134656ull, NULL },
  { "mixtral-8x22b", D2047, 14, 717344720ull, 11150881792ull, NULL },
  { "mixtral-8x22b", B64, 14, 194673687658496ull, 4541189718016ull, NULL },
  { "qwen3-8b", P256, 12, 49934237696ull, 3724541952ull, MHA_ORDER "," GLU_ORDER },
  { "qwen3-8b", P2048, 12, 429656113152ull, 15703474176ull, NULL },
  { "qwen3-8b", D2047, 12, 209784800ull, 3160209408ull, NULL },
  { "qwen3-8b", B64, 12, 59411208863744ull, 2717506338816ull, NULL },
  { "qwen3-30b-a3b", P256, 14, 15036055552ull, 10561257472ull, MHA_ORDER "," MOE_ORDER },
  { "qwen3-30b-a3b", P2048, 14, 150470656000ull, 22246588416ull, NULL },
  { "qwen3-30b-a3b", D2047, 14, 73463776ull, 945485824ull, NULL },
  { "qwen3-30b-a3b", B64, 14, 23675470348288ull, 2681435324416ull, NULL },
  { "deepseek-v3-671b", P256, 21, 154633764864ull, 94466211840ull, MLA_ORDER "," SHARED_ORDER },
  { "deepseek-v3-671b", P2048, 21, 1718576218112ull, 142220460032ull, NULL },
  { "deepseek-v3-671b", D2047, 21, 839017344ull, 4621467648ull, MLA_ORDER "," SHARED_ORDER },
  { "deepseek-v3-671b", B64, 21, 290415219572736ull, 10925994147840ull, NULL },
  { "deepseek-v3-671b", P256 " feedforward=dense", 14, 154631929856ull, 6532628480ull,
    MLA_ORDER "," GLU_ORDER },
  { "deepseek-v3-671b", P2048 " feedforward=dense", 14, 1718561538048ull, 50381979648ull, NULL },
  { "deepseek-v3-671b", D2047 " feedforward=dense", 14, 839010176ull, 4619288576ull, NULL },
  { "deepseek-v3-671b", P256 " attention=mla", 21, 148191313920ull, 93993304064ull,
    MLA_PLAIN_ORDER "," SHARED_ORDER },
  { "deepseek-v3-671b", P2048 " attention=mla", 21, 1306259357696ull, 138437197824ull, NULL },
  { "llama4-scout", P256, 19, 81209851904ull, 36175872000ull, MHA_ORDER "," SHARED_ORDER },
  { "llama4-scout", P2048, 19, 687406579712ull, 52177141760ull, NULL },
  { "llama4-scout", D2047, 19, 335637464ull, 5108479488ull, NULL },
  { "llama4-scout", B64, 19, 93507075178496ull, 3578580172800ull, NULL },
  /* §5.8: chunked with CHUNK_SIZE 8192 has CH = 1 here, same totals */
  { "llama4-scout", P256 " attention=chunked", 20, 81209851904ull, 36175872000ull,
    CHUNKED_ORDER "," SHARED_ORDER },
  { "llama4-scout", P2048 " attention=chunked", 20, 687406579712ull, 52177141760ull, NULL },
  { "llama4-scout", D2047 " attention=chunked", 20, 335637464ull, 5108479488ull,
    CHUNKED_ORDER "," SHARED_ORDER },
  { "llama4-maverick", P256, 19, 81209851904ull, 261661655040ull, MHA_ORDER "," SHARED_ORDER },
  { "llama4-maverick", P2048, 19, 687406579712ull, 277662924800ull, NULL },
  { "llama4-maverick", D2047, 19, 335637464ull, 5108479488ull, NULL },
  { "llama4-maverick", B64, 19, 93507075178496ull, 3804065955840ull, NULL },
  { "llama4-maverick", P256 " feedforward=dense", 12, 81208541184ull, 5851054080ull,
    MHA_ORDER "," GLU_ORDER },
  { "llama4-maverick", P2048 " feedforward=dense", 12, 687396093952ull, 20971520000ull, NULL },
  { "llama4-maverick", D2047 " feedforward=dense", 12, 335632344ull, 5107987968ull, NULL },
  { "llama4-maverick", P256 " attention=chunked", 20, 81209851904ull, 261661655040ull, NULL },
  { "llama4-maverick", P2048 " attention=chunked", 20, 687406579712ull, 277662924800ull, NULL },
  { "llama4-maverick", D2047 " attention=chunked", 20, 335637464ull, 5108479488ull, NULL },
  /* basic/ and the small ones (§0.9, §1, §2.1, §6) */
  { "matmuls", "n_einsums=2 m=64 kn=64", 2, 2 * 262144ull, 196608ull, "Matmul0,Matmul1" },
  { "matvecs", NULL, 2, 24, 304, "Y,Z" },
  { "three-matmuls", NULL, 3, 3 * 2097152ull, 1179648ull, "Matmul1,Matmul2,Matmul3" },
  { "mobilenet-28", NULL, 6, 4 * 3612672ull + 2 * 1354752ull, 10767360ull,
    "PiecewiseA0,Depthwise0,PiecewiseB0,PiecewiseA1,Depthwise1,PiecewiseB2" },
  { "mamba", NULL, 12, 9 * 524288ull + 3 * 4096ull, 63378432ull,
    "B,C,TTD,TD,DELTA,AD,HH,HX,H,S,DX,L" },
  /* By hand, M = 8192, N0..N4 = 16384, 16384, 4096, 4096, 16384:
   * MACs M*K*N = 8192 * (16384*16384 + 16384*4096 + 4096*4096 + 4096*16384)
   *   = 2,199,023,255,552 + 549,755,813,888 + 137,438,953,472
   *     + 549,755,813,888 = 3,435,973,836,800;
   * values M*K + K*N + M*N per Einsum = 536,870,912 + 234,881,024
   *   + 83,886,080 + 234,881,024 = 1,090,519,040, times 8 bits. */
  { "matmul-chain", "n_einsums=4", 4, 3435973836800ull, 8724152320ull,
    "Matmul0,Matmul1,Matmul2,Matmul3" },
  /* compute-in-memory networks, batch 1 (§7.2) */
  { "alexnet", NULL, 8, 604384448ull, 490336856ull, "T0,T1,T2,T3,T4,T5,T6,T7" },
  { "vgg16", NULL, 16, 15470264320ull, 1292396960ull, NULL },
  { "resnet18", NULL, 21, 1814073344ull, 132421016ull, NULL },
  { "resnet50", NULL, 54, 4089184256ull, 379573656ull, NULL },
  { "densenet201", NULL, 201, 4291365888ull, 419665304ull, NULL },
  { "mobilenet-v3", NULL, 64, 216589760ull, 107584176ull, NULL },
  { "gpt2-medium", NULL, 145, 90515439616ull, 3756238848ull, NULL },
  { "phi-1.5", NULL, 145, 1447403978752ull, 25245515776ull, NULL },
  { "mobilebert", NULL, 409, 2817118560ull, 393370048ull, NULL },
  { "vision-transformer", NULL, 98, 16855904784ull, 959892512ull, NULL },
  { "dpt-large", NULL, 227, 240776061312ull, 5744043456ull, NULL },
};

static void
test_totals (gconstpointer data)
{
  const Totals *t = data;
  g_autoptr (FfmWorkload) w = load_ok (t->name, t->params);

  g_assert_cmpuint (ffm_workload_get_n_einsums (w), ==, t->n_einsums);
  g_assert_cmpuint (sum_macs (w), ==, t->macs);
  if (t->bits != 0)
    g_assert_cmpuint (sum_tensor_bits (w), ==, t->bits);
  if (t->order != NULL)
    {
      g_autofree char *order = einsum_order (w);
      g_assert_cmpstr (order, ==, t->order);
    }
}

/* ---- Structure of single models ---- */

/* GPT-3 6.7B prefill, batch 1, M = P = 2048 tokens, H = 32, E = F = 128,
 * D = G = J = 4096, C = 16384. By hand:
 *   V, K, Q, Z:  B*M*H*E*D = 2048 * 32 * 128 * 4096  =  34,359,738,368 each
 *                                              x 4  = 137,438,953,472
 *   QK, AV:      B*M*P*H*E = 2048 * 2048 * 32 * 128 = 17,179,869,184 each
 *                                              x 2  =  34,359,738,368
 *   QK_softmax:  B*M*P*H   = 2048 * 2048 * 32       =     134,217,728
 *   FFA, FFB:    B*M*D*C   = 2048 * 4096 * 16384    = 137,438,953,472 each
 *                                              x 2  = 274,877,906,944
 *   copy I:      0
 *   total                                           = 446,810,816,512
 * and at batch 64, 4096 tokens (the FFM paper's experiment):
 *   V, K, Q, Z   64 * 4096 * 32 * 128 * 4096 = 4,398,046,511,104 x 4
 *   QK, AV       64 * 4096 * 4096 * 32 * 128 = 4,398,046,511,104 x 2
 *   QK_softmax   64 * 4096 * 4096 * 32       =    34,359,738,368
 *   FFA, FFB     64 * 4096 * 4096 * 16384    = 17,592,186,044,416 x 2
 *   total                                    = 61,607,010,893,824 */
static void
test_gpt3_prefill_macs (void)
{
  g_autoptr (FfmWorkload) w = load_ok ("gpt3-6.7b", P2048);
  g_autoptr (FfmWorkload) big = load_ok ("gpt3-6.7b", B64);

  g_test_summary ("GPT-3 6.7B prefill MACs, computed by hand");
  g_assert_cmpuint (einsum_macs (w, "I"), ==, 0);
  g_assert_cmpuint (einsum_macs (w, "V"), ==, 34359738368ull);
  g_assert_cmpuint (einsum_macs (w, "QK"), ==, 17179869184ull);
  g_assert_cmpuint (einsum_macs (w, "QK_softmax"), ==, 134217728ull);
  g_assert_cmpuint (einsum_macs (w, "FFB"), ==, 137438953472ull);
  g_assert_cmpuint (sum_macs (w), ==, 446810816512ull);
  g_assert_cmpuint (einsum_macs (big, "Q"), ==, 4398046511104ull);
  g_assert_cmpuint (einsum_macs (big, "AV"), ==, 4398046511104ull);
  g_assert_cmpuint (einsum_macs (big, "QK_softmax"), ==, 34359738368ull);
  g_assert_cmpuint (einsum_macs (big, "FFA"), ==, 17592186044416ull);
  g_assert_cmpuint (sum_macs (big), ==, 61607010893824ull);
}

static void
test_gpt3 (void)
{
  g_autoptr (FfmWorkload) pf = load_ok ("gpt3-6.7b", P256);
  g_autoptr (FfmWorkload) dec = load_ok ("gpt3-6.7b", D2047);
  g_autoptr (FfmWorkload) big = load_ok ("gpt3-175b", P256);
  const FfmTensor *t;

  g_test_summary ("GPT-3 ranks, tensor sizes, bits, classes, prefill and decode");
  /* §5.1 P256 */
  g_assert_cmpuint (var_bound (pf, "QK", "p"), ==, 256);
  g_assert_cmpuint (var_bound (pf, "FFA", "c"), ==, 16384);
  g_assert_cmpuint (tensor_values (pf, "WV"), ==, 16777216);
  g_assert_cmpuint (tensor_values (pf, "WFFA"), ==, 67108864);
  g_assert_cmpuint (tensor_values (pf, "QK"), ==, 2097152);
  g_assert_cmpuint (tensor_values (pf, "FFA"), ==, 4194304);
  t = tensor (pf, "WFFB");
  g_assert_cmpuint (t->bits_per_value, ==, 16);
  g_assert_true (t->classes & FFM_TENSOR_PERSISTENT);
  g_assert_true (t->classes & FFM_TENSOR_INPUT);
  t = tensor (pf, "I_in");
  g_assert_false (t->classes & FFM_TENSOR_PERSISTENT);
  t = tensor (pf, "K");
  g_assert_true (t->classes & FFM_TENSOR_INTERMEDIATE);
  g_assert_false (t->classes & FFM_TENSOR_PERSISTENT);
  g_assert_true (ffm_workload_get_einsum (pf, 0)->is_copy);
  /* §5.1 D2047: the caches are persistent inputs, fresh K and V outputs */
  g_assert_cmpint (ffm_workload_find_tensor (pf, "K_cache"), <, 0);
  g_assert_cmpuint (var_bound (dec, "QK", "p"), ==, 2047);
  g_assert_cmpuint (var_bound (dec, "QK", "m"), ==, 1);
  g_assert_cmpuint (tensor_values (dec, "K_cache"), ==, 8384512);
  g_assert_cmpuint (tensor_values (dec, "QK"), ==, 65504);
  t = tensor (dec, "V_cache");
  g_assert_true (t->classes & FFM_TENSOR_PERSISTENT);
  g_assert_true (t->classes & FFM_TENSOR_INPUT);
  t = tensor (dec, "K");
  g_assert_true (t->classes & FFM_TENSOR_OUTPUT);
  g_assert_false (t->classes & FFM_TENSOR_INTERMEDIATE);
  /* §5.2 */
  g_assert_cmpuint (tensor_values (big, "WV"), ==, 150994944);
  g_assert_cmpuint (tensor_values (big, "WFFA"), ==, 603979776);
  g_assert_cmpuint (var_bound (big, "Z", "g"), ==, 12288);
}

static void
test_gqa_dense (void)
{
  g_autoptr (FfmWorkload) llama = load_ok ("llama3-8b", P256);
  g_autoptr (FfmWorkload) llama_dec = load_ok ("llama3-8b", D2047);
  g_autoptr (FfmWorkload) qwen = load_ok ("qwen3-8b", P256);
  int qk;
  guint64 roles;
  const FfmEinsum *einsum;

  g_test_summary ("Llama 3 8B and Qwen3 8B: GQA ranks, GLU tensors, roles");
  /* §5.3 */
  g_assert_cmpuint (var_bound (llama, "Q", "hkv"), ==, 8);
  g_assert_cmpuint (var_bound (llama, "Q", "hq"), ==, 4);
  g_assert_cmpuint (tensor_values (llama, "WQ"), ==, 16777216);
  g_assert_cmpuint (tensor_values (llama, "WV"), ==, 4194304);
  g_assert_cmpuint (tensor_values (llama, "V"), ==, 262144);
  g_assert_cmpuint (tensor_values (llama, "WFFG"), ==, 58720256);
  g_assert_cmpuint (tensor_values (llama, "FFH"), ==, 3670016);
  g_assert_cmpuint (einsum_macs (llama, "FFH"), ==, 3670016);
  g_assert_cmpuint (tensor_values (llama_dec, "K_cache"), ==, 2096128);
  g_assert_cmpuint (tensor_values (llama_dec, "K"), ==, 1024);
  /* FFH = FFG * FFU: input FFG, weight FFU (an intermediate, so not
   * persistent) */
  einsum = ffm_workload_get_einsum (llama, ffm_workload_find_einsum (llama, "FFH"));
  roles = ffm_einsum_get_role_set (einsum, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (roles, ==, 1u << ffm_einsum_find_access (einsum,
                                                           ffm_workload_find_tensor (llama, "FFU")));
  g_assert_false (tensor (llama, "FFU")->classes & FFM_TENSOR_PERSISTENT);
  /* decode QK: input Q, weight K_cache */
  qk = ffm_workload_find_einsum (llama_dec, "QK");
  einsum = ffm_workload_get_einsum (llama_dec, qk);
  roles = ffm_einsum_get_role_set (einsum, FFM_ROLE_WEIGHT);
  g_assert_cmpuint (roles, ==, 1u << ffm_einsum_find_access (einsum,
                                                           ffm_workload_find_tensor (llama_dec, "K_cache")));
  /* §5.5 */
  g_assert_cmpuint (var_bound (qwen, "FFG", "c"), ==, 12288);
  g_assert_cmpuint (tensor_values (qwen, "WFFD"), ==, 50331648);
}

static void
test_moe (void)
{
  g_autoptr (FfmWorkload) mix = load_ok ("mixtral-8x22b", P256);
  g_autoptr (FfmWorkload) mix_dec = load_ok ("mixtral-8x22b", D2047);
  g_autoptr (FfmWorkload) qwen = load_ok ("qwen3-30b-a3b", P2048);
  g_autoptr (FfmWorkload) qwen_dec = load_ok ("qwen3-30b-a3b", D2047);

  g_test_summary ("MoE: active experts and tokens per expert (ceil), copies");
  /* §5.4: X = min(8, 2*256) = 8, XT = ceil(512/8) = 64; decode X = 2, XT = 1 */
  g_assert_cmpuint (var_bound (mix, "FFG", "x"), ==, 8);
  g_assert_cmpuint (var_bound (mix, "FFG", "xt"), ==, 64);
  g_assert_cmpuint (tensor_values (mix, "WFFG"), ==, 805306368);
  g_assert_cmpuint (tensor_values (mix, "Z_per_expert"), ==, 3145728);
  g_assert_cmpuint (einsum_macs (mix, "Z_per_expert"), ==, 0);
  g_assert_true (ffm_workload_get_einsum (mix, ffm_workload_find_einsum (mix, "FFB"))->is_copy);
  g_assert_cmpuint (var_bound (mix_dec, "FFG", "x"), ==, 2);
  g_assert_cmpuint (var_bound (mix_dec, "FFG", "xt"), ==, 1);
  g_assert_cmpuint (tensor_values (mix_dec, "WFFG"), ==, 201326592);
  /* §5.6: X = min(128, 8*2048) = 128, XT = 16384/128 = 128; decode X = 8 */
  g_assert_cmpuint (var_bound (qwen, "FFD", "xt"), ==, 128);
  g_assert_cmpuint (var_bound (qwen, "Q", "hq"), ==, 8);
  g_assert_cmpuint (tensor_values (qwen, "WQ"), ==, 8388608);
  g_assert_cmpuint (var_bound (qwen_dec, "FFD", "x"), ==, 8);
  g_assert_cmpuint (tensor_values (qwen_dec, "WFFG"), ==, 12582912);
}

static void
test_moe_ceil (void)
{
  /* 100 tokens, 2 of 8 experts each: X = min(8, 200) = 8 experts of
   * XT = ceil(200 / 8) = 25 tokens; 3 tokens: X = min(8, 6) = 6, XT = 1;
   * Qwen3-30B 33 tokens: X = min(128, 264) = 128, XT = ceil(264/128) = 3 */
  g_autoptr (FfmWorkload) a = load_ok ("mixtral-8x22b", "new_tokens=100");
  g_autoptr (FfmWorkload) b = load_ok ("mixtral-8x22b", "new_tokens=3");
  g_autoptr (FfmWorkload) c = load_ok ("qwen3-30b-a3b", "new_tokens=33");

  g_test_summary ("MoE rank sizes use min() and ceil()");
  g_assert_cmpuint (var_bound (a, "FFG", "x"), ==, 8);
  g_assert_cmpuint (var_bound (a, "FFG", "xt"), ==, 25);
  g_assert_cmpuint (var_bound (b, "FFG", "x"), ==, 6);
  g_assert_cmpuint (var_bound (b, "FFG", "xt"), ==, 1);
  g_assert_cmpuint (var_bound (c, "FFG", "xt"), ==, 3);
}

static void
test_deepseek (void)
{
  g_autoptr (FfmWorkload) w = load_ok ("deepseek-v3-671b", P256);
  g_autoptr (FfmWorkload) dec = load_ok ("deepseek-v3-671b", D2047);
  g_autoptr (FfmWorkload) plain = load_ok ("deepseek-v3-671b", P256 " attention=mla");

  g_test_summary ("DeepSeek-V3: MLA ranks and the mixed 8/16-bit precision");
  /* §5.7 */
  g_assert_cmpuint (var_bound (w, "CQ", "lq"), ==, 1536);
  g_assert_cmpuint (var_bound (w, "QK", "lkv"), ==, 512);
  g_assert_cmpuint (var_bound (w, "FFG", "x"), ==, 256);
  g_assert_cmpuint (var_bound (w, "FFG", "xt"), ==, 8);
  g_assert_cmpuint (tensor_values (w, "CKV"), ==, 131072);
  g_assert_cmpuint (tensor (w, "CKV")->bits_per_value, ==, 16);
  g_assert_cmpuint (tensor_values (w, "Q_latent"), ==, 16777216);
  g_assert_cmpuint (tensor (w, "Q_latent")->bits_per_value, ==, 16);
  g_assert_cmpuint (tensor (w, "AV_latent")->bits_per_value, ==, 8);
  g_assert_cmpuint (tensor (w, "Q")->bits_per_value, ==, 8);
  g_assert_cmpuint (tensor (w, "Z")->bits_per_value, ==, 8);
  g_assert_cmpuint (tensor (w, "FFD")->bits_per_value, ==, 16);
  g_assert_cmpuint (tensor (w, "FFH")->bits_per_value, ==, 8);
  g_assert_cmpuint (tensor (w, "WFFG")->bits_per_value, ==, 8);
  g_assert_cmpuint (tensor_values (w, "WFFG"), ==, 3758096384ull);
  g_assert_cmpuint (tensor_values (w, "WZ"), ==, 117440512);
  g_assert_cmpuint (tensor_values (dec, "CKV_cache"), ==, 1048064);
  g_assert_cmpuint (tensor (dec, "CKV_cache")->bits_per_value, ==, 16);
  g_assert_true (tensor (dec, "CKV_cache")->classes & FFM_TENSOR_PERSISTENT);
  g_assert_true (tensor (dec, "CKV")->classes & FFM_TENSOR_OUTPUT);
  /* not absorbed: Q, K, V in 16 bits, CKV in 8; K is up-projected for all
   * P = 256 context tokens (§5.7 CKV... K 2,147,483,648 MACs) */
  g_assert_cmpuint (tensor (plain, "Q")->bits_per_value, ==, 16);
  g_assert_cmpuint (tensor (plain, "K")->bits_per_value, ==, 16);
  g_assert_cmpuint (tensor (plain, "CKV")->bits_per_value, ==, 8);
  g_assert_cmpuint (einsum_macs (plain, "K"), ==, 2147483648ull);
  g_assert_cmpuint (einsum_macs (plain, "QK"), ==, 1073741824ull);
  g_assert_cmpint (ffm_workload_find_tensor (plain, "Q_latent"), <, 0);
}

static void
test_llama4 (void)
{
  g_autoptr (FfmWorkload) scout = load_ok ("llama4-scout", P256);
  g_autoptr (FfmWorkload) scout_dec = load_ok ("llama4-scout", D2047);
  g_autoptr (FfmWorkload) mav = load_ok ("llama4-maverick", P256);
  g_autoptr (FfmWorkload) chunked = load_ok ("llama4-scout", P256 " attention=chunked");

  g_test_summary ("Llama 4: shared + routed experts, global and chunked attention");
  /* §5.8: X = min(16, 256) = 16, XT = 16; decode X = 1 */
  g_assert_cmpuint (var_bound (scout, "FFG", "x"), ==, 16);
  g_assert_cmpuint (var_bound (scout, "FFG", "xt"), ==, 16);
  g_assert_cmpuint (var_bound (scout, "Q", "hq"), ==, 5);
  g_assert_cmpuint (tensor_values (scout, "WFFG"), ==, 671088640);
  g_assert_cmpuint (tensor_values (scout, "WSFG"), ==, 41943040);
  g_assert_cmpuint (tensor_values (scout_dec, "WFFG"), ==, 41943040);
  g_assert_cmpuint (einsum_macs (scout, "FFB"), ==, 1310720);
  /* §5.9: 128 experts, XT = 2 */
  g_assert_cmpuint (var_bound (mav, "FFG", "xt"), ==, 2);
  g_assert_cmpuint (tensor_values (mav, "WFFG"), ==, 5368709120ull);
  /* §5.8 chunked, CH = 1: ZC and the second copy */
  g_assert_cmpuint (var_bound (chunked, "QK", "pc"), ==, 256);
  g_assert_cmpuint (var_bound (chunked, "QK", "ch"), ==, 1);
  g_assert_cmpuint (tensor_values (chunked, "ZC"), ==, 1310720);
  g_assert_true (ffm_workload_get_einsum (chunked,
                                          ffm_workload_find_einsum (chunked, "Z"))->is_copy);
}

/* accelforge's workload files worked values (Llama 4 dimensions, B = 1). */
typedef struct {
  const char *params;
  guint64 m, mc, pc, ch;
  guint64 qk_macs;
  gboolean reads_cache;
} Chunk;

static const Chunk chunk_cases[] = {
  { "new_tokens=2048 chunk_size=512", 2048, 512, 512, 4, 5368709120ull, FALSE },
  { "new_tokens=1000 chunk_size=512", 1000, 500, 500, 2, 2560000000ull, FALSE },
  { "decode=1 new_tokens=1 cached_tokens=2047 chunk_size=512", 1, 1, 511, 1, 2616320ull, TRUE },
  { "decode=1 new_tokens=1 cached_tokens=10000", 1, 1, 1808, 1, 9256960ull, TRUE },
  { "decode=1 new_tokens=1 cached_tokens=8192", 1, 1, 1, 1, 5120ull, FALSE },
};

static void
test_chunked (void)
{
  g_test_summary ("chunked local attention: chunks, context per chunk, decode "
                  "into a fresh chunk");
  for (guint i = 0; i < G_N_ELEMENTS (chunk_cases); i++)
    {
      const Chunk *c = &chunk_cases[i];
      g_autofree char *params = g_strdup_printf ("attention=chunked %s", c->params);
      g_autoptr (FfmWorkload) w = load_ok ("llama4-scout", params);
      int qk = ffm_workload_find_einsum (w, "QK");
      const FfmEinsum *einsum = ffm_workload_get_einsum (w, qk);

      g_assert_cmpuint (var_bound (w, "Z", "m"), ==, c->m);
      g_assert_cmpuint (var_bound (w, "QK", "mc"), ==, c->mc);
      g_assert_cmpuint (var_bound (w, "QK", "pc"), ==, c->pc);
      g_assert_cmpuint (var_bound (w, "QK", "ch"), ==, c->ch);
      g_assert_cmpuint (ffm_einsum_get_n_operations (einsum), ==, c->qk_macs);
      g_assert_cmpint (ffm_einsum_find_access (einsum,
                                               ffm_workload_find_tensor (w, "K_cache")) >= 0,
                       ==, c->reads_cache);
    }
}

static void
test_small (void)
{
  g_autoptr (FfmWorkload) mb = load_ok ("mobilenet-28", NULL);
  g_autoptr (FfmWorkload) mb64 = load_ok ("mobilenet-28", "batch=64");
  g_autoptr (FfmWorkload) mamba = load_ok ("mamba", NULL);
  g_autoptr (FfmWorkload) chain = load_ok ("matmul-chain", "n_einsums=9");
  g_autoptr (FfmWorkload) chain1 = load_ok ("matmul-chain", "n_einsums=1");

  g_test_summary ("mobilenet-28, mamba and matmul-chain structure");
  /* §2.1: the depthwise Einsum reads the 28x28x192 TA0 as 30x30x192 */
  g_assert_cmpuint (einsum_macs (mb, "Depthwise0"), ==, 1354752);
  g_assert_cmpuint (var_bound (mb, "Depthwise0", "p1"), ==, 28);
  {
    int e = ffm_workload_find_einsum (mb, "Depthwise0");
    const FfmEinsum *einsum = ffm_workload_get_einsum (mb, e);
    int a = ffm_einsum_find_access (einsum, ffm_workload_find_tensor (mb, "TA0"));
    g_assert_cmpuint (ffm_access_tile_values (einsum, a, einsum->rank_var_bounds), ==,
                      30 * 30 * 192);
  }
  g_assert_true (tensor (mb, "WB1")->classes & FFM_TENSOR_PERSISTENT);
  g_assert_false (tensor (mb, "T0")->classes & FFM_TENSOR_PERSISTENT);
  g_assert_true (tensor (mb, "TB1")->classes & FFM_TENSOR_INTERMEDIATE);
  g_assert_cmpuint (sum_macs (mb64), ==, 64 * sum_macs (mb));
  /* §6: B written first; B never read (HX reads BD), DX read twice once */
  g_assert_true (tensor (mamba, "B")->classes & FFM_TENSOR_OUTPUT);
  g_assert_true (tensor (mamba, "C")->classes & FFM_TENSOR_INTERMEDIATE);
  g_assert_cmpuint (ffm_workload_get_einsum (mamba, 11)->n_accesses, ==, 2);
  g_assert_cmpuint (einsum_macs (mamba, "DELTA"), ==, 4096);
  g_assert_cmpuint (var_bound (mamba, "AD", "d"), ==, 4096);
  g_assert_cmpuint (tensor (mamba, "WB")->bits_per_value, ==, 8);
  g_assert_false (tensor (mamba, "WB")->classes & FFM_TENSOR_PERSISTENT);
  /* the paper's chain: N cycles 16384, 16384, 4096, 4096 (K = N of the
   * previous Einsum); Einsum 8 is (N; K) = (16384; 16384) again */
  g_assert_cmpuint (ffm_workload_get_n_einsums (chain), ==, 9);
  g_assert_cmpuint (var_bound (chain, "Matmul0", "m"), ==, 8192);
  g_assert_cmpuint (var_bound (chain, "Matmul1", "n1"), ==, 16384);
  g_assert_cmpuint (var_bound (chain, "Matmul1", "n2"), ==, 4096);
  g_assert_cmpuint (var_bound (chain, "Matmul2", "n3"), ==, 4096);
  g_assert_cmpuint (var_bound (chain, "Matmul3", "n4"), ==, 16384);
  g_assert_cmpuint (einsum_macs (chain, "Matmul8"), ==, 8192ull * 16384 * 16384);
  g_assert_cmpuint (einsum_macs (chain, "Matmul6"), ==, 8192ull * 4096 * 4096);
  g_assert_true (tensor (chain, "T5")->classes & FFM_TENSOR_INTERMEDIATE);
  g_assert_true (tensor (chain, "T9")->classes & FFM_TENSOR_OUTPUT);
  g_assert_cmpuint (ffm_workload_get_n_einsums (chain1), ==, 1);
}

static void
test_cim (void)
{
  g_autoptr (FfmWorkload) alex = load_ok ("alexnet", NULL);
  g_autoptr (FfmWorkload) alex64 = load_ok ("alexnet", "batch=64");
  g_autoptr (FfmWorkload) resnet = load_ok ("resnet18", NULL);
  g_autoptr (FfmWorkload) mnv3 = load_ok ("mobilenet-v3", NULL);
  g_autoptr (FfmWorkload) phi = load_ok ("phi-1.5", NULL);

  g_test_summary ("compute-in-memory layers: strides, footprints, groups, batch");
  /* §7.2 alexnet 0: CONV P=55 R=11 stride 4 reads 227x227x3 */
  g_assert_cmpuint (tensor_values (alex, "I0"), ==, 3 * 227 * 227);
  g_assert_cmpuint (tensor_values (alex, "W0"), ==, 11 * 11 * 3 * 64);
  g_assert_cmpuint (einsum_macs (alex, "T2"), ==, 13 * 13 * 192 * 8 * 3 * 3);
  g_assert_cmpuint (tensor_values (alex, "I5"), ==, 9216);
  g_assert_cmpuint (sum_macs (alex64), ==, 64 * 604384448ull);
  g_assert_cmpuint (tensor_values (alex64, "I0"), ==, 64 * 3 * 227 * 227);
  g_assert_cmpuint (tensor_values (alex64, "W0"), ==, 11 * 11 * 3 * 64);
  /* no tensor is shared: every one is an input or an output */
  for (guint i = 0; i < ffm_workload_get_n_tensors (alex); i++)
    g_assert_false (ffm_workload_get_tensor (alex, i)->classes
                    & (FFM_TENSOR_INTERMEDIATE | FFM_TENSOR_PERSISTENT));
  /* resnet18 0: 7x7 stride 2 to 112 reads 229x229; 7: PWS 28 reads 55x55 */
  g_assert_cmpuint (tensor_values (resnet, "I0"), ==, 3 * 229 * 229);
  g_assert_cmpuint (tensor_values (resnet, "I7"), ==, 64 * 55 * 55);
  g_assert_cmpuint (einsum_macs (resnet, "T7"), ==, 28 * 28 * 64 * 128);
  /* mobilenet-v3 4: DWG P=56 G=64 R=3 stride 2 reads 113x113 per group */
  g_assert_cmpuint (tensor_values (mnv3, "I4"), ==, 113 * 113 * 64);
  g_assert_cmpuint (tensor_values (mnv3, "T4"), ==, 56 * 56);
  g_assert_cmpuint (einsum_macs (mnv3, "T4"), ==, 56 * 56 * 64 * 3 * 3);
  /* phi-1.5 1: GFC P=1024 C=64 M=1024 G=32 */
  g_assert_cmpuint (einsum_macs (phi, "T1"), ==, 1024ull * 64 * 1024 * 32);
  g_assert_cmpuint (tensor_values (phi, "W1"), ==, 64 * 1024 * 32);
  g_assert_cmpuint (tensor_values (phi, "T1"), ==, 1024 * 1024);
}

/* ---- Errors ---- */

typedef struct {
  const char *name;
  const char *params;
  const char *needle;  /* must appear in the message, besides the name */
} BadParams;

static const BadParams bad_params[] = {
  { "gpt3-6.7b", "batch=-1", "batch" },
  { "gpt3-6.7b", "batch=0", "batch" },
  { "gpt3-6.7b", "new_tokens=0", "new_tokens" },
  { "gpt3-6.7b", "new_tokens=-256", "new_tokens" },
  { "gpt3-6.7b", "heads=64", "heads" },
  { "gpt3-6.7b", "decode=1 new_tokens=1", "cached_tokens" },
  { "gpt3-6.7b", "decode=1 new_tokens=1 cached_tokens=0", "cached_tokens" },
  { "gpt3-6.7b", "decode=maybe", "decode" },
  { "gpt3-6.7b", "new_tokens=4097", "max_tokens" },
  { "gpt3-6.7b", "max_tokens=2048 decode=1 new_tokens=1 cached_tokens=2048", "max_tokens" },
  { "gpt3-175b", "batch=two", "batch" },
  { "llama3-8b", "new_tokens=8193", "max_tokens" },
  { "llama3-8b", "attention=mha", "attention" },
  { "mixtral-8x22b", "decode=true", "cached_tokens" },
  { "qwen3-8b", "cached_token=5", "cached_token" },
  { "qwen3-30b-a3b", "new_tokens=0", "new_tokens" },
  { "deepseek-v3-671b", "attention=gqa", "attention" },
  { "deepseek-v3-671b", "feedforward=sparse", "feedforward" },
  { "deepseek-v3-671b", "decode=yes", "cached_tokens" },
  { "llama4-scout", "attention=local", "attention" },
  { "llama4-scout", "attention=chunked decode=1 new_tokens=2 cached_tokens=10", "new_tokens" },
  { "llama4-scout", "chunk_size=0", "chunk_size" },
  { "llama4-maverick", "feedforward=none", "feedforward" },
  { "llama4-maverick", "decode=1", "cached_tokens" },
  { "matmul-chain", "n_einsums=0", "n_einsums" },
  { "matmul-chain", "n_einsums=-3", "n_einsums" },
  { "matmul-chain", "m=64", "m" },
  { "mamba", "batch=0", "batch" },
  { "mamba", "tokens=8192", "tokens" },
  { "mobilenet-28", "batch=-2", "batch" },
  { "alexnet", "batch=0", "batch" },
  { "resnet50", "batch=1.5", "batch" },
  { "densenet201", "new_tokens=256", "new_tokens" },
  { "phi-1.5", "batch=-64", "batch" },
};

static void
test_bad_params (void)
{
  g_test_summary ("bad parameters: clear errors naming the workload and the "
                  "parameter");
  for (guint i = 0; i < G_N_ELEMENTS (bad_params); i++)
    {
      const BadParams *b = &bad_params[i];
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmWorkload) w = load (b->name, b->params, &error);

      g_assert_null (w);
      g_assert_nonnull (error);
      g_test_message ("%s [%s]: %s", b->name, b->params, error->message);
      g_assert_true (error->domain == FFM_PARAM_ERROR
                     || g_error_matches (error, FFM_WORKLOAD_ERROR,
                                         FFM_WORKLOAD_ERROR_INVALID));
      g_assert_nonnull (strstr (error->message, b->name));
      g_assert_nonnull (strstr (error->message, b->needle));
    }
}

static void
test_limits_accepted (void)
{
  g_test_summary ("the published limits are accepted exactly at the limit");
  /* GPT-3's n_ctx 2048, enforced with max_tokens=2048 (the reference's
   * MAX_N_TOKENS): P2048 and D2047 are exactly at the limit */
  g_autoptr (FfmWorkload) a = load_ok ("gpt3-6.7b", P2048 " max_tokens=2048");
  g_autoptr (FfmWorkload) b = load_ok ("gpt3-6.7b", D2047 " max_tokens=2048");
  g_autoptr (FfmWorkload) c = load_ok ("gpt3-6.7b", "new_tokens=4096");
  g_autoptr (FfmWorkload) d = load_ok ("llama3-8b", "decode=1 new_tokens=1 cached_tokens=8191");
  g_autoptr (FfmWorkload) e = load_ok ("matmul-chain", "n_einsums=64");

  g_assert_cmpuint (ffm_workload_get_n_einsums (e), ==, 64);
  g_assert_cmpuint (var_bound (d, "QK", "p"), ==, 8191);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/workload-library/complete", test_library_complete);
  g_test_add_func ("/workload-library/loads", test_library_loads);
  g_test_add_func ("/workload-library/documented", test_library_documented);
  for (guint i = 0; i < G_N_ELEMENTS (totals); i++)
    {
      g_autofree char *path = g_strdup_printf ("/workload-library/totals/%s/%u",
                                               totals[i].name, i);
      g_test_add_data_func (path, &totals[i], test_totals);
    }
  g_test_add_func ("/workload-library/gpt3-prefill-macs", test_gpt3_prefill_macs);
  g_test_add_func ("/workload-library/gpt3", test_gpt3);
  g_test_add_func ("/workload-library/gqa-dense", test_gqa_dense);
  g_test_add_func ("/workload-library/moe", test_moe);
  g_test_add_func ("/workload-library/moe-ceil", test_moe_ceil);
  g_test_add_func ("/workload-library/deepseek", test_deepseek);
  g_test_add_func ("/workload-library/llama4", test_llama4);
  g_test_add_func ("/workload-library/chunked", test_chunked);
  g_test_add_func ("/workload-library/small", test_small);
  g_test_add_func ("/workload-library/cim", test_cim);
  g_test_add_func ("/workload-library/bad-params", test_bad_params);
  g_test_add_func ("/workload-library/limits", test_limits_accepted);
  return g_test_run ();
}
