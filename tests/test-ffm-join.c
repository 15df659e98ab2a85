/* test-ffm-join.c: the join rules and trees (ffm-join.h) on hand-made
 * pmappings, and the ffm strategy on hand-made problems whose answer is
 * known: reservations that force a worse pmapping (the paper's Fig. 4),
 * lifetimes of fused tiles, infeasible joins, --unfused, thread counts,
 * the dirty pass's bound on a long chain, and the exhaustive strategy's
 * size limit. */
#include <ffm/ffm.h>
#include "debug-flags.h"
#include "inputs.h"

#include <math.h>
#include <string.h>

typedef struct {
  FfmPluginRegistry *registry;
  const FfmPluginInfo *ffm;
  const FfmPluginInfo *exhaustive;
} Fixture;

static Fixture fixture;

/* ---- Helpers ---- */

/* tests/data/join/glb.json: MainMemory (10 J per bit), a GlobalBuffer of
 * @glb_bits (1 J per bit), a MAC. */
static FfmArch *
glb_arch (double glb_bits)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "join",
                                                 "glb.json", NULL);
  g_autoptr (FfmParamValues) p = ffm_param_values_new ();
  g_autofree char *v = g_strdup_printf ("%.17g", glb_bits);
  g_autoptr (GError) error = NULL;
  FfmArch *a;

  ffm_param_values_set (p, "glb_bits", v);
  a = ffm_arch_load_file (path, p, &error);
  g_assert_no_error (error);
  return a;
}

static FfmArch *
named_arch (const char *name)
{
  g_autoptr (GError) error = NULL;
  FfmArch *a = ffm_plugin_registry_build_arch (fixture.registry, name, NULL, &error);

  g_assert_no_error (error);
  return a;
}

static FfmSearchResult *
run (const FfmPluginInfo *plugin, FfmWorkload *w, FfmArch *a,
     FfmObjective objective, guint threads, gboolean unfused, GError **error)
{
  g_autoptr (FfmProblem) problem = ffm_problem_new (w, a);
  FfmSearchContext ctx;

  ffm_search_context_init (&ctx, problem);
  ctx.objective = objective;
  ctx.n_threads = threads;
  ctx.unfused = unfused;
  return plugin->descriptor->vtable.search->run (&ctx, NULL, error);
}

static FfmCostReport *
evaluate (FfmWorkload *w, FfmArch *a, const FfmMapping *m)
{
  g_autoptr (GError) error = NULL;
  FfmCostReport *r = ffm_cost_evaluate_mapping (w, a, m, &error);

  g_assert_no_error (error);
  return r;
}

/* One node list from a compact text: "S level T" storage, "L var tile"
 * temporal loop, "C einsum level" compute; items separated by ';'. */
static FfmJoinPmapping *
pmapping (FfmWorkload *w, FfmArch *a, const char *text)
{
  g_auto (GStrv) items = g_strsplit (text, ";", -1);
  g_autoptr (GPtrArray) nodes = ffm_mapping_node_list_new ();
  g_autoptr (GError) error = NULL;
  FfmJoinPmapping *p;

  for (guint i = 0; items[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit (g_strstrip (items[i]), " ", -1);
      if (f[0][0] == 'S')
        {
          const char *t[2] = { f[2], NULL };
          g_ptr_array_add (nodes, ffm_mapping_node_new_storage (t, f[1], FALSE));
        }
      else if (f[0][0] == 'L')
        g_ptr_array_add (nodes, ffm_mapping_node_new_temporal (f[1],
                                                               g_ascii_strtoull (f[2], NULL, 10)));
      else
        g_ptr_array_add (nodes, ffm_mapping_node_new_compute (f[1], f[2]));
    }
  p = ffm_join_pmapping_new (w, a, (const FfmMappingNode *const *) nodes->pdata,
                             nodes->len, &error);
  g_assert_no_error (error);
  return p;
}

/* tests/data/join/@name, loaded without parameters. */
static FfmArch *
data_arch (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "join",
                                                 name, NULL);
  g_autoptr (GError) error = NULL;
  FfmArch *a = ffm_arch_load_file (path, NULL, &error);

  g_assert_no_error (error);
  return a;
}

/* ---- The rules and the tree ---- */

#define MATMUL0_FUSED \
  "S MainMemory T0; S MainMemory W0; L m 1; S GlobalBuffer T1; " \
  "S GlobalBuffer T0; S GlobalBuffer W0; L n1 1; L n0 1; C Matmul0 MAC"
#define MATMUL1_FUSED \
  "S MainMemory W1; S MainMemory T2; L m 1; S GlobalBuffer T1; " \
  "S GlobalBuffer W1; S GlobalBuffer T2; L n2 1; L n1 1; C Matmul1 MAC"

static void
test_tree_fused_matmuls (void)
{
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (2, 8, 4);
  g_autoptr (FfmArch) a = named_arch ("simple");
  g_autoptr (FfmJoinPmapping) p0 = pmapping (w, a, MATMUL0_FUSED);
  g_autoptr (FfmJoinPmapping) p1 = pmapping (w, a, MATMUL1_FUSED);
  g_autoptr (FfmJoinChain) chain = ffm_join_chain_new (w, a);
  g_autoptr (FfmMapping) built = NULL, expected = NULL;
  g_autoptr (FfmCostReport) r1 = NULL, r2 = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "docs",
                                                 "examples", "mappings",
                                                 "fused_matmuls_to_simple.json",
                                                 NULL);

  g_test_summary ("two fused matmuls: one m loop and the T1 tile shared above "
                  "the split, as in docs/file-formats.md");
  g_assert_cmpuint (ffm_join_pmapping_get_n_fused_loops (p0), ==, 1);
  g_assert_cmpint (ffm_join_chain_push (chain, p0), ==, FFM_JOIN_OK);
  g_assert_cmpint (ffm_join_chain_push (chain, p1), ==, FFM_JOIN_OK);
  g_assert_cmpuint (ffm_join_chain_get_split_depth (chain, 1), ==, 1);
  built = ffm_join_chain_build_mapping (chain);
  expected = ffm_mapping_load_from_data (
    "{\"ffm_mapping\": 1, \"workload\": \"matmuls\", \"architecture\": \"simple\","
    " \"nodes\": ["
    "  {\"storage\": [\"T0\"], \"level\": \"MainMemory\"},"
    "  {\"storage\": [\"W0\"], \"level\": \"MainMemory\"},"
    "  {\"storage\": [\"W1\"], \"level\": \"MainMemory\"},"
    "  {\"storage\": [\"T2\"], \"level\": \"MainMemory\"},"
    "  {\"temporal\": \"m\", \"tile\": 1},"
    "  {\"storage\": [\"T1\"], \"level\": \"GlobalBuffer\"},"
    "  {\"sequential\": ["
    "    [{\"storage\": [\"T0\"], \"level\": \"GlobalBuffer\"},"
    "     {\"storage\": [\"W0\"], \"level\": \"GlobalBuffer\"},"
    "     {\"temporal\": \"n1\", \"tile\": 1}, {\"temporal\": \"n0\", \"tile\": 1},"
    "     {\"compute\": \"Matmul0\", \"level\": \"MAC\"}],"
    "    [{\"storage\": [\"W1\"], \"level\": \"GlobalBuffer\"},"
    "     {\"storage\": [\"T2\"], \"level\": \"GlobalBuffer\"},"
    "     {\"temporal\": \"n2\", \"tile\": 1}, {\"temporal\": \"n1\", \"tile\": 1},"
    "     {\"compute\": \"Matmul1\", \"level\": \"MAC\"}]]}]}",
    "expected", &error);
  g_assert_no_error (error);
  g_assert_true (ffm_mapping_equal (built, expected));
  /* The same costs as the documented example (nodes of several tensors). */
  r1 = evaluate (w, a, built);
  {
    g_autoptr (FfmMapping) doc = ffm_mapping_load_file (path, &error);
    g_assert_no_error (error);
    r2 = evaluate (w, a, doc);
  }
  g_assert_cmpfloat (ffm_cost_report_get_energy (r1), ==, ffm_cost_report_get_energy (r2));
  g_assert_cmpfloat (ffm_cost_report_get_latency (r1), ==, ffm_cost_report_get_latency (r2));
}

static void
test_chain_statuses (void)
{
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (2, 8, 4);
  g_autoptr (FfmArch) a = named_arch ("simple");
  g_autoptr (FfmJoinPmapping) p0 = pmapping (w, a, MATMUL0_FUSED);
  g_autoptr (FfmJoinPmapping) unfused1 = pmapping (w, a,
    "S MainMemory T1; S MainMemory W1; S MainMemory T2; L m 1; L n2 1; "
    "L n1 1; C Matmul1 MAC");
  g_autoptr (FfmJoinPmapping) other_tile1 = pmapping (w, a,
    "S MainMemory W1; S MainMemory T2; L m 2; S GlobalBuffer T1; L n2 1; "
    "L m 1; L n1 1; C Matmul1 MAC");
  g_autoptr (FfmJoinChain) chain = ffm_join_chain_new (w, a);

  g_test_summary ("the chain refuses, and says why: another Einsum first, "
                  "another backing memory, other shared loops");
  g_assert_cmpint (ffm_join_chain_push (chain, unfused1), ==, FFM_JOIN_WRONG_EINSUM);
  g_assert_cmpint (ffm_join_chain_push (chain, p0), ==, FFM_JOIN_OK);
  g_assert_cmpint (ffm_join_chain_push (chain, unfused1), ==, FFM_JOIN_LOOPS);
  g_assert_cmpint (ffm_join_chain_push (chain, other_tile1), ==, FFM_JOIN_LOOPS);
  g_assert_cmpuint (ffm_join_chain_get_length (chain), ==, 1);
  ffm_join_chain_pop (chain);
  {
    g_autoptr (FfmJoinPmapping) unfused0 = pmapping (w, a,
      "S MainMemory T0; S MainMemory W0; S MainMemory T1; L m 1; L n1 1; "
      "L n0 1; C Matmul0 MAC");
    g_autoptr (FfmJoinPmapping) fused1_depth0 = pmapping (w, a,
      "S MainMemory W1; S MainMemory T2; S GlobalBuffer T1; L m 1; L n2 1; "
      "L n1 1; C Matmul1 MAC");
    g_assert_cmpint (ffm_join_chain_push (chain, unfused0), ==, FFM_JOIN_OK);
    g_assert_cmpint (ffm_join_chain_push (chain, fused1_depth0), ==, FFM_JOIN_BACKING);
    g_assert_cmpint (ffm_join_chain_push (chain, unfused1), ==, FFM_JOIN_OK);
    g_assert_cmpuint (ffm_join_chain_get_split_depth (chain, 1), ==, 0);
  }
  g_assert_cmpstr (ffm_join_status_to_string (FFM_JOIN_COPY), !=, "unknown");
}

/* tests/data/join/inner-unbounded.json: MainMemory, a bounded Buffer, a
 * Vector unit (enabled for no Einsum here), an unbounded Big memory, a
 * bounded Inner memory backing the intermediate, a MAC. The weight is kept
 * in Buffer and then in Big, above the split at depth 0 where the
 * intermediate's backing node in Inner goes: Big's node may go above the
 * split (an unshared tensor in an unbounded memory) only with Buffer's,
 * which is bounded and stays in its branch; hoisted alone, Big would sit
 * above Buffer and the cost model refuses the tree (a tensor's nodes go
 * from outer to inner memories). The shape of seed 3149 of the random
 * architectures (tests/test-random-arch.c). */
#define INNER_UNBOUNDED_WORKLOAD \
  "{\"ffm_workload\": 1, \"name\": \"copy-after-matmul\"," \
  " \"ranks\": {\"M\": 3, \"N0\": 2, \"N1\": 2}," \
  " \"bits_per_value\": {\"all\": 4}, \"einsums\": [" \
  "  \"T1[m,n1] = T0[m,n0] * W0[n0,n1]\", \"T2[m,n1] = T1[m,n1]\"]}"

static void
test_tree_inner_copy_below_split (void)
{
  g_autoptr (FfmWorkload) w = inputs_workload_from_text (INNER_UNBOUNDED_WORKLOAD);
  g_autoptr (FfmArch) a = data_arch ("inner-unbounded.json");
  g_autoptr (FfmJoinPmapping) p0 = pmapping (w, a,
    "S MainMemory T0; S MainMemory W0; S Buffer W0; S Big W0; S Inner T0; "
    "S Inner T1; L m 1; L n1 1; L n0 1; C T1 MAC");
  g_autoptr (FfmJoinPmapping) p1 = pmapping (w, a,
    "S MainMemory T2; S Inner T1; L m 1; L n1 1; C T2 MAC");
  g_autoptr (FfmJoinChain) chain = ffm_join_chain_new (w, a);
  g_autoptr (FfmMapping) m = NULL;
  g_autoptr (FfmCostReport) r = NULL;
  g_autoptr (GPtrArray) paths = NULL;
  g_autoptr (GError) error = NULL;
  int buffer = -1, big = -1;

  g_test_summary ("a weight's inner copy in an unbounded memory stays below "
                  "its outer copy in a bounded one when the outer stays in "
                  "its branch: the tree the cost model accepts");
  g_assert_cmpint (ffm_join_chain_push (chain, p0), ==, FFM_JOIN_OK);
  g_assert_cmpint (ffm_join_chain_push (chain, p1), ==, FFM_JOIN_OK);
  g_assert_cmpuint (ffm_join_chain_get_split_depth (chain, 1), ==, 0);
  m = ffm_join_chain_build_mapping (chain);
  r = ffm_cost_evaluate_mapping (w, a, m, &error);
  g_assert_no_error (error);
  g_assert_true (ffm_cost_report_fits (r));
  paths = ffm_mapping_dup_paths (m);
  g_assert_cmpuint (paths->len, ==, 2);
  {
    GPtrArray *path = g_ptr_array_index (paths, 0);
    for (guint k = 0; k < path->len; k++)
      {
        const FfmMappingNode *n = g_ptr_array_index (path, k);
        if (n->kind == FFM_NODE_STORAGE
            && g_strv_contains ((const char *const *) n->tensors, "W0"))
          {
            if (strcmp (n->level, "Buffer") == 0)
              buffer = (int) k;
            else if (strcmp (n->level, "Big") == 0)
              big = (int) k;
          }
      }
  }
  g_assert_cmpint (buffer, >=, 0);
  g_assert_cmpint (big, >, buffer);
}

/* The same architecture searched: the ffm strategy maps it, and finds what
 * the exhaustive strategy finds, for each objective, to the bit. */
static void
test_exhaustive_inner_unbounded (void)
{
  g_autoptr (FfmWorkload) w = inputs_workload_from_text (INNER_UNBOUNDED_WORKLOAD);
  g_autoptr (FfmArch) a = data_arch ("inner-unbounded.json");

  g_test_summary ("ffm == exhaustive on an unbounded memory below a compute "
                  "unit and a bounded memory (the best mapping keeps the "
                  "weight in both, below the split)");
  for (FfmObjective o = FFM_OBJECTIVE_EDP; o <= FFM_OBJECTIVE_LATENCY; o++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmSearchResult) f = run (fixture.ffm, w, a, o, 1, FALSE, &error);
      g_autoptr (FfmSearchResult) x = NULL;
      const FfmSolution *fs, *xs;

      g_assert_no_error (error);
      x = run (fixture.exhaustive, w, a, o, 1, FALSE, &error);
      g_assert_no_error (error);
      fs = ffm_search_result_get_solution (f, 0);
      xs = ffm_search_result_get_solution (x, 0);
      g_assert_cmpmem (&fs->energy, sizeof (double), &xs->energy, sizeof (double));
      g_assert_cmpmem (&fs->latency, sizeof (double), &xs->latency, sizeof (double));
    }
}

/* A copy of a tensor two Einsums read may not sit over the other's path. */
static void
test_chain_copy (void)
{
  g_autoptr (FfmWorkload) w = inputs_workload_from_text (
    "{\"ffm_workload\": 1, \"name\": \"two-readers\","
    " \"ranks\": {\"M\": 4, \"N0\": 2, \"N1\": 2, \"N2\": 2},"
    " \"bits_per_value\": {\"all\": 8}, \"einsums\": ["
    "  \"A[m,n1] = X[m,n0] * W0[n0,n1]\","
    "  \"B[m,n2] = A[m,n1] * X[m,N0:n2]\"]}");
  g_autoptr (FfmArch) a = named_arch ("simple");
  g_autoptr (FfmJoinPmapping) copy_above = pmapping (w, a,
    "S MainMemory X; S MainMemory W0; S GlobalBuffer X; L m 1; "
    "S GlobalBuffer A; L n1 1; L n0 1; C A MAC");
  g_autoptr (FfmJoinPmapping) copy_below = pmapping (w, a,
    "S MainMemory X; S MainMemory W0; L m 1; S GlobalBuffer A; "
    "S GlobalBuffer X; L n1 1; L n0 1; C A MAC");
  g_autoptr (FfmJoinPmapping) b = pmapping (w, a,
    "S MainMemory X; S MainMemory B; L m 1; S GlobalBuffer A; L n2 1; "
    "L n1 1; C B MAC");
  g_autoptr (FfmJoinChain) chain = ffm_join_chain_new (w, a);
  g_autoptr (FfmMapping) m = NULL;
  g_autoptr (FfmCostReport) r = NULL;

  g_test_summary ("a non-backing copy of X above the loop A and B share "
                  "would change B's reads: refused; below it, accepted");
  g_assert_cmpint (ffm_join_chain_push (chain, copy_above), ==, FFM_JOIN_OK);
  g_assert_cmpint (ffm_join_chain_push (chain, b), ==, FFM_JOIN_COPY);
  ffm_join_chain_pop (chain);
  g_assert_cmpint (ffm_join_chain_push (chain, copy_below), ==, FFM_JOIN_OK);
  g_assert_cmpint (ffm_join_chain_push (chain, b), ==, FFM_JOIN_OK);
  m = ffm_join_chain_build_mapping (chain);
  r = evaluate (w, a, m);
  g_assert_true (ffm_cost_report_fits (r));
}

/* A consumer reading its input transposed may not share a loop with the
 * producer: the loop would walk different ranks of the tensor. */
static void
test_chain_dependency (void)
{
  g_autoptr (FfmWorkload) w = inputs_workload_from_text (
    "{\"ffm_workload\": 1, \"name\": \"transposed\","
    " \"ranks\": {\"M\": 4, \"N\": 4, \"K\": 2},"
    " \"bits_per_value\": {\"all\": 8}, \"einsums\": ["
    "  \"T[m,n] = X[m,k] * W[k,n]\","
    "  \"Y[m,n] = T[M:n,N:m] * X[m,k]\"]}");
  g_autoptr (FfmArch) a = named_arch ("simple");
  /* X fused by rows in the GlobalBuffer: both share the m loop; T passes
   * whole through MainMemory. */
  g_autoptr (FfmJoinPmapping) p = pmapping (w, a,
    "S MainMemory W; S MainMemory T; L m 1; S GlobalBuffer X; L n 1; L k 1; "
    "C T MAC");
  g_autoptr (FfmJoinPmapping) q = pmapping (w, a,
    "S MainMemory T; S MainMemory Y; L m 1; S GlobalBuffer X; L n 1; L k 1; "
    "C Y MAC");
  g_autoptr (FfmJoinChain) chain = ffm_join_chain_new (w, a);

  g_test_summary ("the shared m loop walks T's rank M in the producer and "
                  "rank N in the consumer: refused as a broken dependency");
  g_assert_cmpint (ffm_join_chain_push (chain, p), ==, FFM_JOIN_OK);
  g_assert_cmpint (ffm_join_chain_push (chain, q), ==, FFM_JOIN_DEPENDENCY);
}

static GPtrArray *
node_list (const char *text)
{
  g_auto (GStrv) items = g_strsplit (text, ";", -1);
  GPtrArray *nodes = ffm_mapping_node_list_new ();

  for (guint i = 0; items[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit (g_strstrip (items[i]), " ", -1);
      if (f[0][0] == 'S')
        {
          const char *t[2] = { f[2], NULL };
          g_ptr_array_add (nodes, ffm_mapping_node_new_storage (t, f[1], FALSE));
        }
      else if (f[0][0] == 'L')
        g_ptr_array_add (nodes, ffm_mapping_node_new_temporal (f[1],
                                                               g_ascii_strtoull (f[2], NULL, 10)));
      else
        g_ptr_array_add (nodes, ffm_mapping_node_new_compute (f[1], f[2]));
    }
  return nodes;
}

/* Two fused loops in the other order join once reordered, at the cost of
 * the pmapping as written. */
static void
test_chain_orders (void)
{
  static const char *const text1 =
    "S MainMemory W1; S MainMemory T2; L n1 2; L m 2; S GlobalBuffer T1; "
    "L n2 1; L n1 1; L m 1; C Matmul1 MAC";
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (2, 8, 4);
  g_autoptr (FfmArch) a = named_arch ("simple");
  g_autoptr (FfmJoinPmapping) p0 = pmapping (w, a,
    "S MainMemory T0; S MainMemory W0; L m 2; L n1 2; S GlobalBuffer T1; "
    "L m 1; L n1 1; L n0 1; C Matmul0 MAC");
  g_autoptr (FfmJoinPmapping) p1 = pmapping (w, a, text1);
  g_autoptr (FfmJoinPmapping) p1r = NULL;
  g_autoptr (FfmJoinChain) chain = ffm_join_chain_new (w, a);
  g_autoptr (FfmMapping) m = NULL;
  g_autoptr (FfmCostReport) r = NULL;
  g_autoptr (GPtrArray) nodes1 = node_list (text1);
  g_autoptr (FfmPmappingModel) model = NULL;
  g_autoptr (FfmPmappingCost) cost = NULL;
  g_autoptr (GError) error = NULL;
  guint order[2];

  g_test_summary ("loop orders: (n1, m) above T1 joins (m, n1) once "
                  "reordered; the cost does not change");
  g_assert_cmpuint (ffm_join_pmapping_get_n_orders (p1), ==, 2);
  ffm_join_pmapping_get_order (p1, 1, order);
  g_assert_cmpuint (order[0], ==, 1);
  g_assert_cmpuint (order[1], ==, 0);
  g_assert_cmpint (ffm_join_chain_push (chain, p0), ==, FFM_JOIN_OK);
  g_assert_cmpint (ffm_join_chain_push (chain, p1), ==, FFM_JOIN_LOOPS);
  p1r = ffm_join_pmapping_reorder (p1, w, a, 1);
  g_assert_cmpint (ffm_join_chain_push (chain, p1r), ==, FFM_JOIN_OK);
  g_assert_cmpuint (ffm_join_chain_get_split_depth (chain, 1), ==, 2);
  m = ffm_join_chain_build_mapping (chain);
  r = evaluate (w, a, m);
  g_assert_true (ffm_cost_report_fits (r));
  model = ffm_pmapping_model_new (w, a, (const FfmMappingNode *const *) nodes1->pdata,
                                  nodes1->len, NULL, &error);
  g_assert_no_error (error);
  cost = ffm_pmapping_cost_new (model);
  ffm_pmapping_model_evaluate (model, NULL, cost);
  g_assert_cmpint (cost->status, ==, FFM_COST_VALID);
  g_assert_cmpfloat (ffm_cost_report_get_cost (r, 1)->energy, ==, cost->energy);
  g_assert_cmpfloat (ffm_cost_report_get_cost (r, 1)->latency, ==, cost->latency);
}

/* Two fused loops over one variable in a block (max_fused_loops_per_rank_var
 * above 1): the orders keep them in their order (their tiles nest), the
 * other loop goes anywhere; order 0 is the pmapping's own. */
static void
test_chain_orders_same_var (void)
{
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (2, 8, 4);
  g_autoptr (FfmArch) a = named_arch ("simple");
  g_autoptr (FfmJoinPmapping) p = pmapping (w, a,
    "S MainMemory W1; S MainMemory T2; L m 4; L n1 2; L m 2; "
    "S GlobalBuffer T1; L n2 1; L n1 1; L m 1; C Matmul1 MAC");
  /* (m 4, n1 2, m 2), then (n1 2, m 4, m 2), then (m 4, m 2, n1 2) */
  static const guint expected[3][3] = { { 0, 1, 2 }, { 1, 0, 2 }, { 0, 2, 1 } };
  guint order[3];

  g_test_summary ("loop orders: m, n1, m above T1 has 3 orders, m before m in each");
  g_assert_cmpuint (ffm_join_pmapping_get_n_fused_loops (p), ==, 3);
  g_assert_cmpuint (ffm_join_pmapping_get_n_orders (p), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (FfmJoinPmapping) r = ffm_join_pmapping_reorder (p, w, a, i);
      ffm_join_pmapping_get_order (p, i, order);
      g_assert_cmpmem (order, sizeof order, expected[i], sizeof expected[i]);
      g_assert_nonnull (r);
      g_assert_cmpuint (ffm_join_pmapping_get_n_orders (r), ==, 3);
    }
}

/* ---- The strategy ---- */

static double
min_energy (FfmWorkload *w, FfmArch *a, guint einsum)
{
  FfmPmappingOptions o;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmPmappingSet) set = NULL;
  const FfmEinsumPmappings *pm;
  double best = G_MAXDOUBLE;

  ffm_pmapping_options_init (&o);
  o.objectives = FFM_PMAPPING_ENERGY;
  o.n_threads = 1;
  set = ffm_pmappings_generate (w, a, &o, &error);
  g_assert_no_error (error);
  pm = ffm_pmapping_set_lookup_einsum (set, einsum);
  for (guint k = 0; k < ffm_einsum_pmappings_get_n_groups (pm); k++)
    {
      const FfmPmappingGroup *g = ffm_einsum_pmappings_get_group (pm, k);
      g_assert_cmpint (g->columns[0].kind, ==, FFM_PMAPPING_COLUMN_ENERGY);
      for (guint r = 0; r < g->n_rows; r++)
        best = MIN (best, g->values[(gsize) r * g->n_columns]);
    }
  return best;
}

/* The paper's Fig. 4: the pmapping of each Einsum that costs least alone
 * reserves so much of the GlobalBuffer (its weight kept across the fused
 * loop) that the two together do not fit; the optimum takes worse ones. */
static void
test_reservations_force_worse_pmapping (void)
{
  g_autoptr (FfmWorkload) w = inputs_workload_from_text (
    "{\"ffm_workload\": 1, \"name\": \"two-matmuls\","
    " \"ranks\": {\"M\": 16, \"N0\": 4, \"N1\": 4, \"N2\": 8},"
    " \"bits_per_value\": {\"all\": 8}, \"einsums\": ["
    "  \"T1[m,n1] = T0[m,n0] * W0[n0,n1]\","
    "  \"T2[m,n2] = T1[m,n1] * W1[n1,n2]\"]}");
  g_autoptr (FfmArch) tight = glb_arch (400);
  g_autoptr (FfmArch) loose = glb_arch (1 << 20);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmSearchResult) ffm = NULL, exh = NULL, free_run = NULL;
  g_autoptr (FfmCostReport) r = NULL;
  double min0 = min_energy (w, tight, 0), min1 = min_energy (w, tight, 1);
  const FfmSolution *s;

  g_test_summary ("reservations: the lowest-energy pmappings do not fit "
                  "together, the optimum takes worse ones (FFM paper Fig. 4)");
  ffm = run (fixture.ffm, w, tight, FFM_OBJECTIVE_ENERGY, 1, FALSE, &error);
  g_assert_no_error (error);
  exh = run (fixture.exhaustive, w, tight, FFM_OBJECTIVE_ENERGY, 1, FALSE, &error);
  g_assert_no_error (error);
  s = ffm_search_result_get_solution (ffm, 0);
  g_assert_cmpfloat (s->energy, ==, ffm_search_result_get_solution (exh, 0)->energy);
  g_assert_cmpfloat (s->energy, ==, 49152);
  r = evaluate (w, tight, s->mapping);
  g_assert_true (ffm_cost_report_fits (r));
  /* Each Einsum alone could do better; together they cannot. */
  g_assert_cmpfloat (min0, ==, 14976);
  g_assert_cmpfloat (min1, ==, 29952);
  g_assert_cmpfloat (ffm_cost_report_get_cost (r, 0)->energy, >, min0);
  g_assert_cmpfloat (ffm_cost_report_get_cost (r, 1)->energy, >, min1);
  g_assert_cmpfloat (s->energy, >, min0 + min1);
  /* With room for both, each takes its best. */
  free_run = run (fixture.ffm, w, loose, FFM_OBJECTIVE_ENERGY, 1, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ffm_search_result_get_solution (free_run, 0)->energy, ==,
                     min0 + min1);
}

/* Whole intermediates fused in the GlobalBuffer: T1 lives while Matmul0
 * and Matmul1 run, T2 while Matmul1 and Matmul2 run; the buffer holds both
 * only during Matmul1 (paper §5.1 lifetimes). */
static void
test_fused_tile_lifetimes (void)
{
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (3, 4, 4);
  g_autoptr (FfmArch) a = glb_arch (264);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmSearchResult) ffm = NULL, exh = NULL;
  g_autoptr (FfmCostReport) r = NULL;
  const FfmSolution *s;

  g_test_summary ("tiles fused above a split live from producer to last "
                  "consumer only: 264 bits hold T1 + T2 + a tile");
  ffm = run (fixture.ffm, w, a, FFM_OBJECTIVE_ENERGY, 1, FALSE, &error);
  g_assert_no_error (error);
  exh = run (fixture.exhaustive, w, a, FFM_OBJECTIVE_ENERGY, 1, FALSE, &error);
  g_assert_no_error (error);
  s = ffm_search_result_get_solution (ffm, 0);
  g_assert_cmpfloat (s->energy, ==, 12992);
  g_assert_cmpfloat (s->energy, ==, ffm_search_result_get_solution (exh, 0)->energy);
  r = evaluate (w, a, s->mapping);
  g_assert_true (ffm_cost_report_fits (r));
  g_assert_cmpfloat (ffm_cost_report_get_peak_occupancy (r, 1), ==, 264);
}

/* Persistent weights that must stay in the GlobalBuffer fit one at a time
 * but not together: no fused mapping fits. */
static void
test_infeasible_join (void)
{
  g_autoptr (FfmWorkload) w = inputs_workload_from_text (
    "{\"ffm_workload\": 1, \"name\": \"persistent\","
    " \"ranks\": {\"M\": 4, \"N0\": 4, \"N1\": 4, \"N2\": 4},"
    " \"bits_per_value\": {\"all\": 8}, \"persistent\": \"W0 | W1\","
    " \"einsums\": [\"T1[m,n1] = T0[m,n0] * W0[n0,n1]\","
    "  \"T2[m,n2] = T1[m,n1] * W1[n1,n2]\"]}");
  g_autoptr (FfmArch) a = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmSearchResult) res = NULL;

  g_test_summary ("each Einsum fits alone, no combination fits: "
                  "FFM_SEARCH_ERROR_INFEASIBLE from both strategies");
  a = ffm_arch_load_from_data (
    "{\"ffm_architecture\": 1, \"name\": \"weights-in-glb\", \"levels\": ["
    " {\"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 10,"
    "  \"write_energy\": 10, \"read_bandwidth\": \"inf\", \"write_bandwidth\": \"inf\","
    "  \"keep\": \"all - weight\", \"may_keep\": \"all - weight\"},"
    " {\"memory\": \"GlobalBuffer\", \"size\": 200, \"read_energy\": 1,"
    "  \"write_energy\": 1, \"read_bandwidth\": \"inf\", \"write_bandwidth\": \"inf\","
    "  \"keep\": \"weight\", \"may_keep\": \"all\"},"
    " {\"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1}]}",
    "weights-in-glb", NULL, &error);
  g_assert_no_error (error);
  res = run (fixture.ffm, w, a, FFM_OBJECTIVE_EDP, 1, FALSE, &error);
  g_assert_null (res);
  g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE);
  g_assert_nonnull (strstr (error->message, "fits"));
  g_clear_error (&error);
  res = run (fixture.exhaustive, w, a, FFM_OBJECTIVE_EDP, 1, FALSE, &error);
  g_assert_null (res);
  g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE);
}

/* --unfused: every tensor passed between Einsums is backed off chip. */
static void
test_unfused (void)
{
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (3, 16, 8);
  g_autoptr (FfmArch) a = glb_arch (1 << 20);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmSearchResult) fused = NULL, unfused = NULL;
  g_autoptr (GPtrArray) paths = NULL;

  g_test_summary ("unfused: intermediates backed in the outermost memory, "
                  "and the cost is never below the fused optimum");
  fused = run (fixture.ffm, w, a, FFM_OBJECTIVE_ENERGY, 1, FALSE, &error);
  g_assert_no_error (error);
  unfused = run (fixture.ffm, w, a, FFM_OBJECTIVE_ENERGY, 1, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ffm_search_result_get_solution (unfused, 0)->energy, >,
                     ffm_search_result_get_solution (fused, 0)->energy);
  paths = ffm_mapping_dup_paths (ffm_search_result_get_solution (unfused, 0)->mapping);
  for (guint p = 0; p < paths->len; p++)
    {
      GPtrArray *path = g_ptr_array_index (paths, p);
      for (guint k = 0; k < path->len; k++)
        {
          const FfmMappingNode *n = g_ptr_array_index (path, k);
          if (n->kind == FFM_NODE_STORAGE
              && (g_strv_contains ((const char *const *) n->tensors, "T1")
                  || g_strv_contains ((const char *const *) n->tensors, "T2")))
            {
              g_assert_cmpstr (n->level, ==, "MainMemory");
              break;
            }
        }
    }
}

/* The same mappings and numbers for 1, 2 and 7 threads, and whatever the
 * size of the walk's jobs. */
static void
test_threads (void)
{
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (4, 128, 128);
  g_autoptr (FfmArch) a = named_arch ("tpuv4i");
  g_autoptr (GError) error = NULL;
  static const guint thread_counts[] = { 1, 2, 7 };

  g_test_summary ("deterministic: 1, 2 and 7 threads give the same mappings, to the bit, "
                  "also when every left group is a job of the join's walk");
  for (FfmObjective o = FFM_OBJECTIVE_EDP; o <= FFM_OBJECTIVE_PARETO; o++)
    {
      g_autoptr (FfmSearchResult) one = NULL;
      one = run (fixture.ffm, w, a, o, 1, FALSE, &error);
      g_assert_no_error (error);
      for (guint k = 0; k < 2 * G_N_ELEMENTS (thread_counts); k++)
        {
          guint threads = thread_counts[k % G_N_ELEMENTS (thread_counts)];
          g_autoptr (FfmSearchResult) other = NULL;
          if (k == G_N_ELEMENTS (thread_counts))
            test_debug_push ("join-walk-chunk=1");
          other = run (fixture.ffm, w, a, o, threads, FALSE, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (ffm_search_result_get_n_solutions (one), ==,
                            ffm_search_result_get_n_solutions (other));
          for (guint i = 0; i < ffm_search_result_get_n_solutions (one); i++)
            {
              const FfmSolution *x = ffm_search_result_get_solution (one, i);
              const FfmSolution *y = ffm_search_result_get_solution (other, i);
              g_assert_cmpmem (&x->energy, sizeof (double), &y->energy, sizeof (double));
              g_assert_cmpmem (&x->latency, sizeof (double), &y->latency, sizeof (double));
              g_assert_true (ffm_mapping_equal (x->mapping, y->mapping));
            }
        }
      test_debug_pop ();
    }
}

/* The dirty pass's bound on a long chain: 200 matmuls of 128 x 128 on
 * the edge chip, whose global buffer then holds too little for every
 * tensor, so rows differ in what they reserve there. */
static double
chain_dirty_bound (FfmSearchResult **result, const char *beam)
{
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (200, 128, 128);
  g_autoptr (FfmArch) a = named_arch ("edge");
  g_autoptr (FfmProblem) problem = ffm_problem_new (w, a);
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  FfmSearchContext ctx;
  double bound = 0, passes = 0;

  ffm_search_context_init (&ctx, problem);
  ctx.objective = FFM_OBJECTIVE_EDP;
  ctx.n_threads = 2;
  if (beam != NULL)
    ffm_param_values_set (values, "beam", beam);
  ffm_param_values_set (values, "refine", "0");
  *result = fixture.ffm->descriptor->vtable.search->run (&ctx, values, &error);
  g_assert_no_error (error);
  g_assert_true (ffm_search_result_lookup_stat (*result, "dirty_passes", &passes));
  g_assert_cmpfloat (passes, ==, 1);
  g_assert_true (ffm_search_result_lookup_stat (*result, "dirty_bound", &bound));
  return bound;
}

static void
test_dirty_pass_long_chain (void)
{
  g_test_summary ("On a chain of 200 matmuls the dirty pass with its beam "
                  "and per-Einsum boxes finds the optimum itself; the "
                  "paper's boxes (no beam) end far off");
  g_autoptr (FfmSearchResult) beamed = NULL, plain = NULL;
  double with_beam = chain_dirty_bound (&beamed, NULL);
  double without = chain_dirty_bound (&plain, "0");
  const FfmSolution *a = ffm_search_result_get_solution (beamed, 0);
  const FfmSolution *b = ffm_search_result_get_solution (plain, 0);
  double edp = a->energy * a->latency;

  g_test_message ("optimum %.17g; dirty bound %.17g with the beam, %.17g without",
                  edp, with_beam, without);
  /* the same optimum either way: the clean pass is exact */
  g_assert_cmpfloat (b->energy * b->latency, ==, edp);
  /* sums in another order than the model's: the last bits only */
  g_assert_cmpfloat (fabs (with_beam - edp), <=, 1e-9 * edp);
  /* 39 % off when written */
  g_assert_cmpfloat (without, >, 1.2 * edp);
}

/* The Pareto set: non-dominated, energy ascending, holding the optima of
 * energy, latency and EDP. */
static void
test_pareto (void)
{
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (2, 128, 128);
  g_autoptr (FfmArch) a = named_arch ("tpuv4i");
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmSearchResult) front = NULL;
  double best[3] = { G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE };

  g_test_summary ("the Pareto set is a front, sorted, and holds each optimum");
  front = run (fixture.ffm, w, a, FFM_OBJECTIVE_PARETO, 1, FALSE, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < ffm_search_result_get_n_solutions (front); i++)
    {
      const FfmSolution *s = ffm_search_result_get_solution (front, i);
      if (i > 0)
        {
          const FfmSolution *p = ffm_search_result_get_solution (front, i - 1);
          g_assert_cmpfloat (p->energy, <, s->energy);
          g_assert_cmpfloat (p->latency, >, s->latency);
        }
      best[0] = MIN (best[0], s->energy);
      best[1] = MIN (best[1], s->latency);
      best[2] = MIN (best[2], s->energy * s->latency);
    }
  for (FfmObjective o = FFM_OBJECTIVE_EDP; o <= FFM_OBJECTIVE_LATENCY; o++)
    {
      g_autoptr (FfmSearchResult) one = run (fixture.ffm, w, a, o, 1, FALSE, &error);
      const FfmSolution *s;
      g_assert_no_error (error);
      s = ffm_search_result_get_solution (one, 0);
      g_assert_cmpfloat (o == FFM_OBJECTIVE_ENERGY ? s->energy
                         : o == FFM_OBJECTIVE_LATENCY ? s->latency
                         : s->energy * s->latency, ==,
                         best[o == FFM_OBJECTIVE_ENERGY ? 0
                              : o == FFM_OBJECTIVE_LATENCY ? 1 : 2]);
    }
}

static void
test_exhaustive_too_large (void)
{
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (3, 1024, 1024);
  g_autoptr (FfmArch) a = named_arch ("tpuv4i");
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmSearchResult) res = NULL;

  g_test_summary ("the exhaustive strategy refuses large problems, naming "
                  "its limit");
  res = run (fixture.exhaustive, w, a, FFM_OBJECTIVE_EDP, 1, FALSE, &error);
  g_assert_null (res);
  g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "max_"));
}

/* A cancel flag set once the join has begun (from the progress callback,
 * as a timer thread would): the ffm strategy stops at the next Einsum with
 * FFM_SEARCH_ERROR_CANCELLED, and names where it stopped. */
static void
cancel_in_join (double fraction, const char *phase, gpointer data)
{
  if (g_str_has_suffix (phase, "join"))
    g_atomic_int_set ((gint *) data, 1);
}

static void
test_cancel_join (void)
{
  g_autoptr (FfmWorkload) w = inputs_load_matmuls (3, 16, 16);
  g_autoptr (FfmArch) a = named_arch ("simple");
  g_autoptr (FfmProblem) problem = ffm_problem_new (w, a);
  g_autoptr (FfmSearchResult) res = NULL;
  g_autoptr (GError) error = NULL;
  FfmSearchContext ctx;
  gint flag = 0;

  g_test_summary ("The ffm join polls the cancel flag between Einsums");
  ffm_search_context_init (&ctx, problem);
  ctx.progress = cancel_in_join;
  ctx.progress_data = &flag;
  ctx.cancel = &flag;
  res = fixture.ffm->descriptor->vtable.search->run (&ctx, NULL, &error);
  g_assert_null (res);
  g_assert_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_CANCELLED);
  g_assert_nonnull (strstr (error->message, "join was cancelled at Einsum"));
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  fixture.registry = ffm_plugin_registry_new ();
  ffm_plugin_registry_scan (fixture.registry);
  fixture.ffm = ffm_plugin_registry_lookup (fixture.registry,
                                            FFM_PLUGIN_KIND_SEARCH, "ffm", &error);
  g_assert_no_error (error);
  fixture.exhaustive = ffm_plugin_registry_lookup (fixture.registry,
                                                   FFM_PLUGIN_KIND_SEARCH,
                                                   "exhaustive", &error);
  g_assert_no_error (error);

  g_test_add_func ("/ffm-join/tree/fused-matmuls", test_tree_fused_matmuls);
  g_test_add_func ("/ffm-join/tree/inner-copy-below-split",
                   test_tree_inner_copy_below_split);
  g_test_add_func ("/ffm-join/optimality/inner-unbounded",
                   test_exhaustive_inner_unbounded);
  g_test_add_func ("/ffm-join/cancel", test_cancel_join);
  g_test_add_func ("/ffm-join/chain/statuses", test_chain_statuses);
  g_test_add_func ("/ffm-join/chain/copy", test_chain_copy);
  g_test_add_func ("/ffm-join/chain/dependency", test_chain_dependency);
  g_test_add_func ("/ffm-join/chain/orders", test_chain_orders);
  g_test_add_func ("/ffm-join/chain/orders-same-var", test_chain_orders_same_var);
  g_test_add_func ("/ffm-join/reservations/force-worse-pmapping",
                   test_reservations_force_worse_pmapping);
  g_test_add_func ("/ffm-join/reservations/fused-tile-lifetimes",
                   test_fused_tile_lifetimes);
  g_test_add_func ("/ffm-join/infeasible", test_infeasible_join);
  g_test_add_func ("/ffm-join/unfused", test_unfused);
  g_test_add_func ("/ffm-join/threads", test_threads);
  g_test_add_func ("/ffm-join/pareto", test_pareto);
  g_test_add_func ("/ffm-join/dirty-pass-long-chain", test_dirty_pass_long_chain);
  g_test_add_func ("/ffm-join/exhaustive/too-large", test_exhaustive_too_large);
  status = g_test_run ();
  ffm_plugin_registry_free (fixture.registry);
  return status;
}
