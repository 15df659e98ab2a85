/* test-mapping.c: the LoopTree data model, its JSON format and printing. */
#include <ffm/ffm.h>

#include <glib/gstdio.h>
#include <string.h>

/* ---- Helpers ---- */

static char *
example_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "..", "docs", "examples", "mappings",
                                name, NULL);
}

static char *
data_path (const char *subdir, const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "mapping", subdir, name, NULL);
}

static FfmMapping *
load_or_fail (const char *path)
{
  GError *error = NULL;
  FfmMapping *mapping = ffm_mapping_load_file (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (mapping);
  return mapping;
}

/* The fused example of docs/examples/mappings, built in memory. */
static FfmMapping *
build_fused (void)
{
  static const char *const main_tensors[] = { "T0", "W0", "W1", "T2", NULL };
  static const char *const t1[] = { "T1", NULL };
  static const char *const b0[] = { "T0", "W0", NULL };
  static const char *const b1[] = { "W1", "T2", NULL };
  FfmMapping *mapping = ffm_mapping_new ();
  GPtrArray *root = ffm_mapping_get_root (mapping);
  FfmMappingNode *split;
  GPtrArray *branch;

  ffm_mapping_set_workload_name (mapping, "matmuls");
  ffm_mapping_set_architecture_name (mapping, "simple");
  g_ptr_array_add (root, ffm_mapping_node_new_storage (main_tensors, "MainMemory", FALSE));
  g_ptr_array_add (root, ffm_mapping_node_new_temporal ("m", 1));
  g_ptr_array_add (root, ffm_mapping_node_new_storage (t1, "GlobalBuffer", FALSE));
  split = ffm_mapping_node_new_sequential ();
  g_ptr_array_add (root, split);
  branch = ffm_mapping_node_add_branch (split);
  g_ptr_array_add (branch, ffm_mapping_node_new_storage (b0, "GlobalBuffer", FALSE));
  g_ptr_array_add (branch, ffm_mapping_node_new_temporal ("n1", 1));
  g_ptr_array_add (branch, ffm_mapping_node_new_temporal ("n0", 1));
  g_ptr_array_add (branch, ffm_mapping_node_new_compute ("Matmul0", "MAC"));
  branch = ffm_mapping_node_add_branch (split);
  g_ptr_array_add (branch, ffm_mapping_node_new_storage (b1, "GlobalBuffer", FALSE));
  g_ptr_array_add (branch, ffm_mapping_node_new_temporal ("n2", 1));
  g_ptr_array_add (branch, ffm_mapping_node_new_temporal ("n1", 1));
  g_ptr_array_add (branch, ffm_mapping_node_new_compute ("Matmul1", "MAC"));
  return mapping;
}

static const char fused_tree[] =
  "MainMemory: T0, W0, W1, T2\n"
  "for m tile 1\n"
  "  GlobalBuffer: T1\n"
  "  sequential\n"
  "  ├── GlobalBuffer: T0, W0\n"
  "  │   for n1 tile 1\n"
  "  │     for n0 tile 1\n"
  "  │       compute Matmul0 on MAC\n"
  "  └── GlobalBuffer: W1, T2\n"
  "      for n2 tile 1\n"
  "        for n1 tile 1\n"
  "          compute Matmul1 on MAC\n";

static const char fused_loop_nest[] =
  "// MainMemory holds T0, W0, W1, T2\n"
  "for m_1 in [0, |m|/1):\n"
  "  // GlobalBuffer holds T1\n"
  "  // branch 1 of 2\n"
  "  // GlobalBuffer holds T0, W0\n"
  "  for n1_1 in [0, |n1|/1):\n"
  "    for n0_1 in [0, |n0|/1):\n"
  "      Matmul0()  // on MAC\n"
  "  // branch 2 of 2\n"
  "  // GlobalBuffer holds W1, T2\n"
  "  for n2_1 in [0, |n2|/1):\n"
  "    for n1_1 in [0, |n1|/1):\n"
  "      Matmul1()  // on MAC\n";

/* ---- Building and printing ---- */

static void
test_build_and_print (void)
{
  g_autoptr(FfmMapping) mapping = build_fused ();
  g_autoptr(FfmMapping) loaded = NULL;
  g_autofree char *path = example_path ("fused_matmuls_to_simple.json");
  g_autofree char *tree = NULL;
  g_autofree char *nest = NULL;
  GError *error = NULL;

  g_test_summary ("A fused mapping built with the constructors prints as the "
                  "documented tree and loop nest, and equals the example file");
  g_assert_true (ffm_mapping_check_structure (mapping, &error));
  g_assert_no_error (error);
  tree = ffm_mapping_to_tree_string (mapping);
  g_assert_cmpstr (tree, ==, fused_tree);
  nest = ffm_mapping_to_loop_nest_string (mapping);
  g_assert_cmpstr (nest, ==, fused_loop_nest);
  g_assert_null (ffm_mapping_get_source_file (mapping));

  loaded = load_or_fail (path);
  g_assert_true (ffm_mapping_equal (mapping, loaded));
  g_assert_cmpstr (ffm_mapping_get_source_file (loaded), ==, path);
}

static void
test_print_with_bounds (void)
{
  static const char *const vars[] = { "m", "n0", "n1", "n2", NULL };
  static const guint64 bounds[] = { 64, 32, 32, 32 };
  g_autoptr(FfmMapping) mapping = build_fused ();
  g_autofree char *nest = ffm_mapping_to_loop_nest_string_with_bounds (mapping, vars, bounds);

  g_assert_cmpstr (nest, ==,
                   "// MainMemory holds T0, W0, W1, T2\n"
                   "for m_1 in [0, 64/1):\n"
                   "  // GlobalBuffer holds T1\n"
                   "  // branch 1 of 2\n"
                   "  // GlobalBuffer holds T0, W0\n"
                   "  for n1_1 in [0, 32/1):\n"
                   "    for n0_1 in [0, 32/1):\n"
                   "      Matmul0()  // on MAC\n"
                   "  // branch 2 of 2\n"
                   "  // GlobalBuffer holds W1, T2\n"
                   "  for n2_1 in [0, 32/1):\n"
                   "    for n1_1 in [0, 32/1):\n"
                   "      Matmul1()  // on MAC\n");
}

static void
test_print_nested (void)
{
  static const char *const vars[] = { "m", NULL };
  static const guint64 bounds[] = { 16 };
  g_autofree char *path = data_path ("valid", "nested-splits.json");
  g_autoptr(FfmMapping) mapping = load_or_fail (path);
  g_autofree char *tree = ffm_mapping_to_tree_string (mapping);
  g_autofree char *nest = ffm_mapping_to_loop_nest_string_with_bounds (mapping, vars, bounds);

  g_test_summary ("Nested splits, spatial loops, repeated rank variables and "
                  "persistent storage print as expected");
  g_assert_cmpstr (tree, ==,
                   "MainMemory: W0, W1, W2 (persistent)\n"
                   "MainMemory: T0, T3\n"
                   "for m tile 4\n"
                   "  sequential\n"
                   "  ├── GlobalBuffer: T0, W0, T1\n"
                   "  │   for m tile 1\n"
                   "  │     for n1 tile 1\n"
                   "  │       for n0 tile 1\n"
                   "  │         compute Matmul0 on MAC\n"
                   "  ├── GlobalBuffer: T2\n"
                   "  │   sequential\n"
                   "  │   ├── GlobalBuffer: T1, W1\n"
                   "  │   │   parallel-for n2 tile 2 across PE.X\n"
                   "  │   │     for m tile 1\n"
                   "  │   │       for n2 tile 1\n"
                   "  │   │         for n1 tile 1\n"
                   "  │   │           compute Matmul1 on MAC\n"
                   "  │   └── GlobalBuffer: W2, T3\n"
                   "  │       for n3 tile 1\n"
                   "  │         for m tile 1\n"
                   "  │           for n2 tile 1\n"
                   "  │             compute Matmul2 on MAC\n"
                   "  └── compute Extra on MAC\n");
  g_assert_cmpstr (nest, ==,
                   "// MainMemory holds W0, W1, W2 (persistent)\n"
                   "// MainMemory holds T0, T3\n"
                   "for m_1 in [0, 16/4):\n"
                   "  // branch 1 of 3\n"
                   "  // GlobalBuffer holds T0, W0, T1\n"
                   "  for m_2 in [0, 4/1):\n"
                   "    for n1_1 in [0, |n1|/1):\n"
                   "      for n0_1 in [0, |n0|/1):\n"
                   "        Matmul0()  // on MAC\n"
                   "  // branch 2 of 3\n"
                   "  // GlobalBuffer holds T2\n"
                   "  // branch 2.1 of 2\n"
                   "  // GlobalBuffer holds T1, W1\n"
                   "  parallel-for n2_1 in [0, |n2|/2) across PE.X:\n"
                   "    for m_2 in [0, 4/1):\n"
                   "      for n2_2 in [0, 2/1):\n"
                   "        for n1_1 in [0, |n1|/1):\n"
                   "          Matmul1()  // on MAC\n"
                   "  // branch 2.2 of 2\n"
                   "  // GlobalBuffer holds W2, T3\n"
                   "  for n3_1 in [0, |n3|/1):\n"
                   "    for m_2 in [0, 4/1):\n"
                   "      for n2_1 in [0, |n2|/1):\n"
                   "        Matmul2()  // on MAC\n"
                   "  // branch 3 of 3\n"
                   "  Extra()  // on MAC\n");
}

static void
test_print_unfused_example (void)
{
  g_autofree char *path = example_path ("unfused_matmuls_to_simple.json");
  g_autoptr(FfmMapping) mapping = load_or_fail (path);
  g_autofree char *tree = ffm_mapping_to_tree_string (mapping);
  g_autofree char *nest = ffm_mapping_to_loop_nest_string (mapping);

  g_assert_cmpstr (tree, ==,
                   "MainMemory: T0, W0, T1\n"
                   "GlobalBuffer: T0, W0, T1\n"
                   "for m tile 1\n"
                   "  for n0 tile 1\n"
                   "    for n1 tile 1\n"
                   "      compute Matmul0 on MAC\n");
  g_assert_cmpstr (nest, ==,
                   "// MainMemory holds T0, W0, T1\n"
                   "// GlobalBuffer holds T0, W0, T1\n"
                   "for m_1 in [0, |m|/1):\n"
                   "  for n0_1 in [0, |n0|/1):\n"
                   "    for n1_1 in [0, |n1|/1):\n"
                   "      Matmul0()  // on MAC\n");
}

/* ---- Loading: fields, paths and lines ---- */

static void
test_load_fields (void)
{
  g_autofree char *path = example_path ("fused_matmuls_to_simple.json");
  g_autoptr(FfmMapping) mapping = load_or_fail (path);
  const GPtrArray *root = ffm_mapping_peek_root (mapping);
  const FfmMappingNode *node;
  const GPtrArray *branch;

  g_test_summary ("Every loaded node records its JSON path and line");
  g_assert_cmpstr (ffm_mapping_get_workload_name (mapping), ==, "matmuls");
  g_assert_cmpstr (ffm_mapping_get_architecture_name (mapping), ==, "simple");
  g_assert_cmpuint (root->len, ==, 4);

  node = g_ptr_array_index (root, 0);
  g_assert_cmpint (node->kind, ==, FFM_NODE_STORAGE);
  g_assert_cmpuint (g_strv_length (node->tensors), ==, 4);
  g_assert_cmpstr (node->tensors[3], ==, "T2");
  g_assert_cmpstr (node->level, ==, "MainMemory");
  g_assert_false (node->persistent);
  g_assert_cmpstr (node->json_path, ==, "$.nodes[0]");
  g_assert_cmpint (node->line, ==, 6);

  node = g_ptr_array_index (root, 1);
  g_assert_cmpint (node->kind, ==, FFM_NODE_TEMPORAL);
  g_assert_cmpstr (node->rank_var, ==, "m");
  g_assert_cmpuint (node->tile, ==, 1);
  g_assert_cmpstr (node->json_path, ==, "$.nodes[1]");
  g_assert_cmpint (node->line, ==, 7);

  node = g_ptr_array_index (root, 3);
  g_assert_cmpint (node->kind, ==, FFM_NODE_SEQUENTIAL);
  g_assert_cmpuint (node->branches->len, ==, 2);
  g_assert_cmpstr (node->json_path, ==, "$.nodes[3]");
  g_assert_cmpint (node->line, ==, 22);
  branch = g_ptr_array_index (node->branches, 1);
  g_assert_cmpuint (branch->len, ==, 4);
  node = g_ptr_array_index (branch, 3);
  g_assert_cmpint (node->kind, ==, FFM_NODE_COMPUTE);
  g_assert_cmpstr (node->einsum, ==, "Matmul1");
  g_assert_cmpstr (node->level, ==, "MAC");
  g_assert_cmpstr (node->json_path, ==, "$.nodes[3].sequential[1][3]");
  g_assert_cmpint (node->line, ==, 20);
}

static void
test_load_spatial (void)
{
  g_autofree char *path = example_path ("matmul_to_tpuv4i_spatial.json");
  g_autoptr(FfmMapping) mapping = load_or_fail (path);
  const GPtrArray *root = ffm_mapping_peek_root (mapping);
  const FfmMappingNode *node = g_ptr_array_index (root, 4);
  g_autofree char *tree = ffm_mapping_to_tree_string (mapping);

  g_assert_cmpint (node->kind, ==, FFM_NODE_SPATIAL);
  g_assert_cmpstr (node->rank_var, ==, "n0");
  g_assert_cmpuint (node->tile, ==, 1);
  g_assert_cmpstr (node->level, ==, "ProcessingElement");
  g_assert_cmpstr (node->dimension, ==, "reuse_output");
  g_assert_cmpint (node->line, ==, 10);
  g_assert_cmpstr (tree, ==,
                   "MainMemory: T0, W0, T1\n"
                   "GlobalBuffer: T0, W0, T1\n"
                   "parallel-for m tile 16 across LocalBuffer.Z\n"
                   "  LocalBuffer: T0, T1\n"
                   "  parallel-for n0 tile 1 across ProcessingElement.reuse_output\n"
                   "    parallel-for n1 tile 1 across ProcessingElement.reuse_input\n"
                   "      Register: W0\n"
                   "      for m tile 1\n"
                   "        compute Matmul0 on MAC\n");
}

static void
test_load_loose (void)
{
  g_autofree char *path = data_path ("valid", "loose-format.json");
  g_autoptr(FfmMapping) mapping = load_or_fail (path);
  const FfmMappingNode *node = g_ptr_array_index (ffm_mapping_peek_root (mapping), 0);
  g_autofree char *json = NULL;
  g_autoptr(FfmMapping) again = NULL;
  GError *error = NULL;

  g_test_summary ("Members in any order, multi-line nodes and names needing "
                  "escapes read, and survive a round trip");
  g_assert_null (ffm_mapping_get_workload_name (mapping));
  g_assert_cmpstr (ffm_mapping_get_architecture_name (mapping), ==, "simple");
  g_assert_cmpstr (node->tensors[0], ==, "a \"quoted\" tensor");
  g_assert_cmpstr (node->tensors[1], ==, "back\\slash");
  g_assert_cmpstr (node->tensors[2], ==, "tab\there");
  g_assert_cmpstr (node->tensors[3], ==, "µ-tensor");
  /* A multi-line node's line is its kind member's. */
  g_assert_cmpint (node->line, ==, 4);
  json = ffm_mapping_to_json (mapping);
  g_assert_cmpstr (json, ==,
                   "{\n"
                   "  \"ffm_mapping\": 1,\n"
                   "  \"architecture\": \"simple\",\n"
                   "  \"nodes\": [\n"
                   "    {\"storage\": [\"a \\\"quoted\\\" tensor\", \"back\\\\slash\", "
                   "\"tab\\there\", \"µ-tensor\"], \"level\": \"MainMemory\"},\n"
                   "    {\"temporal\": \"m\", \"tile\": 8},\n"
                   "    {\"spatial\": \"m\", \"tile\": 1, \"level\": \"PE\", "
                   "\"dimension\": \"reuse_output\"},\n"
                   "    {\"compute\": \"E\", \"level\": \"MAC\"}\n"
                   "  ]\n"
                   "}\n");
  again = ffm_mapping_load_from_data (json, "again.json", &error);
  g_assert_no_error (error);
  g_assert_true (ffm_mapping_equal (mapping, again));
  g_assert_cmpstr (ffm_mapping_get_source_file (again), ==, "again.json");
}

/* ---- Round trips ---- */

typedef struct {
  const char *subdir;       /* NULL: docs/examples/mappings */
  const char *name;
} RoundTripCase;

static const RoundTripCase round_trip_cases[] = {
  { NULL, "unfused_matmuls_to_simple.json" },
  { NULL, "fused_matmuls_to_simple.json" },
  { NULL, "matmul_to_tpuv4i_spatial.json" },
  { "valid", "nested-splits.json" },
  { "valid", "remainders.json" },
};

static void
test_round_trip (gconstpointer data)
{
  const RoundTripCase *c = data;
  g_autofree char *path = c->subdir ? data_path (c->subdir, c->name) : example_path (c->name);
  g_autoptr(FfmMapping) mapping = load_or_fail (path);
  g_autofree char *text = NULL;
  g_autofree char *json = ffm_mapping_to_json (mapping);
  g_autofree char *json2 = NULL;
  g_autoptr(FfmMapping) again = NULL;
  GError *error = NULL;

  g_test_summary ("load -> to_json -> load gives an equal mapping; the files "
                  "are written in the canonical form, so to_json gives them back "
                  "byte for byte");
  again = ffm_mapping_load_from_data (json, c->name, &error);
  g_assert_no_error (error);
  g_assert_true (ffm_mapping_equal (mapping, again));
  json2 = ffm_mapping_to_json (again);
  g_assert_cmpstr (json2, ==, json);
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (json, ==, text);
}

static void
test_save_file (void)
{
  g_autoptr(FfmMapping) mapping = build_fused ();
  g_autoptr(FfmMapping) loaded = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *bad = NULL;
  GError *error = NULL;

  dir = g_dir_make_tmp ("test-mapping-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (dir, "fused.json", NULL);
  g_assert_true (ffm_mapping_save_file (mapping, path, &error));
  g_assert_no_error (error);
  loaded = load_or_fail (path);
  g_assert_true (ffm_mapping_equal (mapping, loaded));
  g_assert_cmpstr (ffm_mapping_get_source_file (loaded), ==, path);

  bad = g_build_filename (dir, "no-such-dir", "x.json", NULL);
  g_assert_false (ffm_mapping_save_file (mapping, bad, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);

  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* ---- Copy and equality ---- */

static void
test_copy_equal (void)
{
  g_autofree char *path = data_path ("valid", "nested-splits.json");
  g_autoptr(FfmMapping) mapping = load_or_fail (path);
  g_autoptr(FfmMapping) copy = ffm_mapping_copy (mapping);
  g_autoptr(FfmMapping) other = build_fused ();
  FfmMappingNode *split;
  FfmMappingNode *node;
  GPtrArray *branch;

  g_test_summary ("A copy is deep and equal; any field change makes mappings unequal");
  g_assert_true (ffm_mapping_equal (mapping, copy));
  g_assert_cmpstr (ffm_mapping_get_source_file (copy), ==, path);
  g_assert_false (ffm_mapping_equal (mapping, other));

  /* Deep: nodes are not shared; position fields are copied too. */
  split = g_ptr_array_index (ffm_mapping_get_root (copy), 3);
  g_assert_true (split != g_ptr_array_index (ffm_mapping_get_root (mapping), 3));
  branch = g_ptr_array_index (split->branches, 1);
  node = g_ptr_array_index (branch, 1);
  g_assert_cmpstr (node->json_path, ==, "$.nodes[3].sequential[1][1]");
  g_assert_cmpint (node->line, ==, 34);

  /* Positions do not count for equality. */
  node->line = 1;
  g_assert_true (ffm_mapping_equal (mapping, copy));

  branch = g_ptr_array_index (node->branches, 0);
  node = g_ptr_array_index (branch, 1);
  g_assert_cmpint (node->kind, ==, FFM_NODE_SPATIAL);
  node->dimension[0] = 'Y';
  g_assert_false (ffm_mapping_equal (mapping, copy));
  node->dimension[0] = 'X';
  g_assert_true (ffm_mapping_equal (mapping, copy));
  node->tile = 4;
  g_assert_false (ffm_mapping_equal (mapping, copy));
  node->tile = 2;

  node = g_ptr_array_index (ffm_mapping_get_root (copy), 0);
  node->persistent = FALSE;
  g_assert_false (ffm_mapping_equal (mapping, copy));
  node->persistent = TRUE;
  g_assert_true (ffm_mapping_equal (mapping, copy));

  ffm_mapping_set_architecture_name (copy, "other");
  g_assert_false (ffm_mapping_equal (mapping, copy));
  ffm_mapping_set_architecture_name (copy, NULL);
  g_assert_true (ffm_mapping_equal (mapping, copy));
  ffm_mapping_set_workload_name (copy, NULL);
  g_assert_false (ffm_mapping_equal (mapping, copy));
  ffm_mapping_set_workload_name (copy, "matmuls");

  /* One branch fewer. */
  g_ptr_array_remove_index (split->branches, 2);
  g_assert_false (ffm_mapping_equal (mapping, copy));
}

/* ---- Paths ---- */

static void
test_paths (void)
{
  static const char *const expected[][11] = {
    { "storage", "storage", "temporal", "storage", "temporal", "temporal",
      "temporal", "compute", NULL },
    { "storage", "storage", "temporal", "storage", "storage", "spatial",
      "temporal", "temporal", "temporal", "compute", NULL },
    { "storage", "storage", "temporal", "storage", "storage", "temporal",
      "temporal", "temporal", "compute", NULL },
    { "storage", "storage", "temporal", "compute", NULL },
  };
  static const char *const einsums[] = { "Matmul0", "Matmul1", "Matmul2", "Extra" };
  g_autofree char *path = data_path ("valid", "nested-splits.json");
  g_autoptr(FfmMapping) mapping = load_or_fail (path);
  g_autoptr(GPtrArray) paths = ffm_mapping_dup_paths (mapping);

  g_test_summary ("One root-to-compute path per Einsum, splits left out");
  g_assert_cmpuint (paths->len, ==, 4);
  for (guint p = 0; p < paths->len; p++)
    {
      GPtrArray *nodes = g_ptr_array_index (paths, p);
      const FfmMappingNode *last = g_ptr_array_index (nodes, nodes->len - 1);

      g_assert_cmpuint (nodes->len, ==, g_strv_length ((char **) expected[p]));
      for (guint i = 0; i < nodes->len; i++)
        {
          const FfmMappingNode *node = g_ptr_array_index (nodes, i);
          g_assert_cmpstr (ffm_mapping_node_kind_to_string (node->kind), ==, expected[p][i]);
        }
      g_assert_cmpstr (last->einsum, ==, einsums[p]);
    }
  /* The shared prefix is the same nodes. */
  g_assert_true (g_ptr_array_index ((GPtrArray *) g_ptr_array_index (paths, 0), 2)
                 == g_ptr_array_index ((GPtrArray *) g_ptr_array_index (paths, 3), 2));
}

/* ---- Structural checks on mappings built in memory ---- */

static void
expect_invalid (FfmMapping *mapping, const char *message)
{
  GError *error = NULL;

  g_assert_false (ffm_mapping_check_structure (mapping, &error));
  g_assert_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, message);
  g_clear_error (&error);
}

static void
test_check_structure (void)
{
  static const char *const none[] = { NULL };
  static const char *const twice[] = { "T0", "T0", NULL };
  g_autoptr(FfmMapping) mapping = ffm_mapping_new ();
  GPtrArray *root = ffm_mapping_get_root (mapping);
  FfmMappingNode *split;
  FfmMappingNode *loop;
  GPtrArray *branch;

  g_test_summary ("The structure rules hold for mappings built in memory, and "
                  "the message names the node by path (and line when known)");
  expect_invalid (mapping, "$.nodes: an empty list (it must end in a compute or a sequential node)");

  loop = ffm_mapping_node_new_temporal ("m", 0);
  g_ptr_array_add (root, loop);
  g_ptr_array_add (root, ffm_mapping_node_new_compute ("Matmul0", "MAC"));
  expect_invalid (mapping, "$.nodes[0]: the tile of a loop must be at least 1, got 0");
  loop->tile = 4;
  ffm_mapping_set_source_file (mapping, "made.json");
  loop->line = 12;
  g_assert_true (ffm_mapping_check_structure (mapping, NULL));

  g_ptr_array_add (root, ffm_mapping_node_new_temporal ("n", 1));
  expect_invalid (mapping, "made.json: $.nodes[1]: a compute node must be the last of its "
                           "list, but 1 node follows");
  g_ptr_array_remove_index (root, 1);
  expect_invalid (mapping, "made.json: $.nodes[1]: the list ends in a temporal node "
                           "(it must end in a compute or a sequential node)");

  split = ffm_mapping_node_new_sequential ();
  split->line = 20;
  g_ptr_array_add (root, split);
  expect_invalid (mapping, "made.json:20: $.nodes[2]: a sequential split needs at least "
                           "2 branches, got 0");
  branch = ffm_mapping_node_add_branch (split);
  g_ptr_array_add (branch, ffm_mapping_node_new_compute ("Matmul0", "MAC"));
  expect_invalid (mapping, "made.json:20: $.nodes[2]: a sequential split needs at least "
                           "2 branches, got 1");
  branch = ffm_mapping_node_add_branch (split);
  expect_invalid (mapping, "made.json:20: $.nodes[2].sequential[1]: an empty list (it must "
                           "end in a compute or a sequential node)");
  g_ptr_array_add (branch, ffm_mapping_node_new_storage (none, "GlobalBuffer", FALSE));
  g_ptr_array_add (branch, ffm_mapping_node_new_compute ("", "MAC"));
  expect_invalid (mapping, "made.json: $.nodes[2].sequential[1][0]: a storage node needs "
                           "at least one tensor");
  g_ptr_array_remove_index (branch, 0);
  g_ptr_array_insert (branch, 0, ffm_mapping_node_new_storage (twice, "GlobalBuffer", FALSE));
  expect_invalid (mapping, "made.json: $.nodes[2].sequential[1][0]: tensor \"T0\" is "
                           "listed twice");
  g_ptr_array_remove_index (branch, 0);
  expect_invalid (mapping, "made.json: $.nodes[2].sequential[1][0]: a compute node needs "
                           "an Einsum name");
  g_ptr_array_remove_index (branch, 0);
  g_ptr_array_add (branch, ffm_mapping_node_new_spatial ("n", 2, "PE", ""));
  g_ptr_array_add (branch, ffm_mapping_node_new_compute ("Matmul1", "MAC"));
  expect_invalid (mapping, "made.json: $.nodes[2].sequential[1][0]: a spatial loop needs "
                           "a fanout dimension");
  g_free (((FfmMappingNode *) g_ptr_array_index (branch, 0))->dimension);
  ((FfmMappingNode *) g_ptr_array_index (branch, 0))->dimension = g_strdup ("X");
  g_assert_true (ffm_mapping_check_structure (mapping, NULL));
}

/* ---- Invalid files ---- */

typedef struct {
  const char *file;         /* in tests/data/mapping/invalid/ */
  int code;                 /* FfmMappingError */
  const char *expected;     /* substring of the message, from the file name on */
} InvalidCase;

static const InvalidCase invalid_cases[] = {
  { "unknown-kind.json", FFM_MAPPING_ERROR_INVALID,
    "unknown-kind.json:5: $.nodes[1]: unknown node kind \"loop\" (expected one of: "
    "storage, temporal, spatial, compute, sequential)" },
  { "no-kind.json", FFM_MAPPING_ERROR_INVALID,
    "no-kind.json:5: $.nodes[1]: no node kind (expected a member among: storage, "
    "temporal, spatial, compute, sequential)" },
  { "two-kinds.json", FFM_MAPPING_ERROR_INVALID,
    "two-kinds.json:5: $.nodes[0]: a node has one kind, but this one has both "
    "\"temporal\" and \"spatial\"" },
  { "unknown-member.json", FFM_MAPPING_ERROR_INVALID,
    "unknown-member.json:6: $.nodes[1]: unknown member \"level\" (expected one of: "
    "temporal, tile, rank_vars, remainder)" },
  { "missing-tile.json", FFM_MAPPING_ERROR_INVALID,
    "missing-tile.json:5: $.nodes[1]: missing member \"tile\" (a temporal node needs it)" },
  { "remainder-too-large.json", FFM_MAPPING_ERROR_INVALID,
    "remainder-too-large.json:5: $.nodes[1]: the remainder 3 of a loop must be "
    "smaller than its tile 3" },
  { "tile-zero.json", FFM_MAPPING_ERROR_INVALID,
    "tile-zero.json:6: $.nodes[1].tile: expected a positive integer, got 0" },
  { "tile-negative.json", FFM_MAPPING_ERROR_INVALID,
    "tile-negative.json:5: $.nodes[1].tile: expected a positive integer, got -4" },
  { "tile-fraction.json", FFM_MAPPING_ERROR_INVALID,
    "tile-fraction.json:4: $.nodes[0].tile: expected a positive integer, got 2.5" },
  { "tile-string.json", FFM_MAPPING_ERROR_INVALID,
    "tile-string.json:4: $.nodes[0].tile: expected a positive integer, got a string" },
  { "compute-not-last.json", FFM_MAPPING_ERROR_INVALID,
    "compute-not-last.json:5: $.nodes[1]: a compute node must be the last of its list, "
    "but 2 nodes follow" },
  { "sequential-not-last.json", FFM_MAPPING_ERROR_INVALID,
    "sequential-not-last.json:8: $.nodes[1]: a sequential node must be the last of its "
    "list, but 1 node follows" },
  { "list-without-compute.json", FFM_MAPPING_ERROR_INVALID,
    "list-without-compute.json:6: $.nodes[2]: the list ends in a temporal node (it must "
    "end in a compute or a sequential node)" },
  { "branch-without-compute.json", FFM_MAPPING_ERROR_INVALID,
    "branch-without-compute.json:13: $.nodes[1].sequential[1][1]: the list ends in a "
    "temporal node" },
  { "empty-branch.json", FFM_MAPPING_ERROR_INVALID,
    "empty-branch.json:7: $.nodes[1].sequential[1]: an empty list (it must end in a "
    "compute or a sequential node)" },
  { "one-branch.json", FFM_MAPPING_ERROR_INVALID,
    "one-branch.json:5: $.nodes[1].sequential: a sequential split needs at least 2 "
    "branches, got 1" },
  { "empty-nodes.json", FFM_MAPPING_ERROR_INVALID,
    "empty-nodes.json:3: $.nodes: an empty list" },
  { "missing-nodes.json", FFM_MAPPING_ERROR_INVALID,
    "missing-nodes.json: $: missing member \"nodes\"" },
  { "bad-version.json", FFM_MAPPING_ERROR_INVALID,
    "bad-version.json:2: $.ffm_mapping: expected the format version 1" },
  { "missing-version.json", FFM_MAPPING_ERROR_INVALID,
    "missing-version.json: $: missing member \"ffm_mapping\" (the format version, 1)" },
  { "unknown-top-member.json", FFM_MAPPING_ERROR_INVALID,
    "unknown-top-member.json:3: $: unknown member \"mapping\" (expected one of: "
    "ffm_mapping, workload, architecture, nodes)" },
  { "storage-empty.json", FFM_MAPPING_ERROR_INVALID,
    "storage-empty.json:4: $.nodes[0].storage: expected at least one tensor name, got []" },
  { "storage-twice.json", FFM_MAPPING_ERROR_INVALID,
    "storage-twice.json:5: $.nodes[1]: tensor \"T0\" is listed twice" },
  { "storage-not-string.json", FFM_MAPPING_ERROR_INVALID,
    "storage-not-string.json:4: $.nodes[0].storage[1]: expected a string, got a number" },
  { "missing-level.json", FFM_MAPPING_ERROR_INVALID,
    "missing-level.json:5: $.nodes[1]: missing member \"level\" (a compute node needs it)" },
  { "missing-dimension.json", FFM_MAPPING_ERROR_INVALID,
    "missing-dimension.json:4: $.nodes[0]: missing member \"dimension\" (a spatial node "
    "needs it)" },
  { "empty-name.json", FFM_MAPPING_ERROR_INVALID,
    "empty-name.json:4: $.nodes[0].temporal: expected a non-empty name, got \"\"" },
  { "persistent-not-bool.json", FFM_MAPPING_ERROR_INVALID,
    "persistent-not-bool.json:4: $.nodes[0].persistent: expected true or false, got a string" },
  { "node-not-object.json", FFM_MAPPING_ERROR_INVALID,
    "node-not-object.json:4: $.nodes[0]: expected an object, got a string" },
  { "root-array.json", FFM_MAPPING_ERROR_INVALID,
    "root-array.json: $: expected an object, got an array" },
  { "syntax-error.json", FFM_MAPPING_ERROR_PARSE, "syntax-error.json:4:32: Parse error" },
};

static void
test_invalid (gconstpointer data)
{
  const InvalidCase *c = data;
  g_autofree char *path = data_path ("invalid", c->file);
  g_autofree char *prefix = g_path_get_dirname (path);
  g_autoptr(FfmMapping) mapping = NULL;
  GError *error = NULL;

  mapping = ffm_mapping_load_file (path, &error);
  g_assert_null (mapping);
  g_assert_error (error, FFM_MAPPING_ERROR, c->code);
  g_test_message ("message: %s", error->message);
  g_assert_nonnull (strstr (error->message, c->expected));
  /* The message starts with the path as given. */
  g_assert_true (g_str_has_prefix (error->message, path));
  g_clear_error (&error);
}

static void
test_load_errors_from_data (void)
{
  GError *error = NULL;
  g_autoptr(FfmMapping) mapping = NULL;

  mapping = ffm_mapping_load_from_data ("{\"ffm_mapping\": 1,\n \"nodes\": [{\"temporal\": \"m\", \"tile\": 0}]}",
                                        "inline", &error);
  g_assert_null (mapping);
  g_assert_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==,
                   "inline:2: $.nodes[0].tile: expected a positive integer, got 0");
  g_clear_error (&error);

  mapping = ffm_mapping_load_from_data ("", NULL, &error);
  g_assert_null (mapping);
  g_assert_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_PARSE);
  g_assert_true (g_str_has_prefix (error->message, "<data>"));
  g_clear_error (&error);

  mapping = ffm_mapping_load_file ("/nonexistent/mapping.json", &error);
  g_assert_null (mapping);
  g_assert_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_PARSE);
  g_assert_true (g_str_has_prefix (error->message, "/nonexistent/mapping.json: cannot read"));
  g_clear_error (&error);
}

/* A loop with per-Einsum rank variables survives a round trip, prints
 * them, and rejects a value that is not a string. */
static void
test_rank_vars (void)
{
  const char *text =
    "{\"ffm_mapping\": 1, \"nodes\": ["
    " {\"storage\": [\"K\"], \"level\": \"MainMemory\"},"
    " {\"temporal\": \"m\", \"tile\": 4, \"rank_vars\": {\"QK\": \"p\", \"AV\": \"p\"}},"
    " {\"compute\": \"K\", \"level\": \"MAC\"}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmMapping) m = ffm_mapping_load_from_data (text, "rv.json", &error);
  g_autoptr(FfmMapping) again = NULL;
  g_autofree char *json = NULL;
  g_autofree char *tree = NULL;
  const FfmMappingNode *loop;

  g_assert_no_error (error);
  loop = g_ptr_array_index (ffm_mapping_peek_root (m), 1);
  g_assert_cmpstr (ffm_mapping_node_get_rank_var_for (loop, "QK"), ==, "p");
  g_assert_cmpstr (ffm_mapping_node_get_rank_var_for (loop, "AV"), ==, "p");
  g_assert_cmpstr (ffm_mapping_node_get_rank_var_for (loop, "K"), ==, "m");
  g_assert_cmpstr (ffm_mapping_node_get_rank_var_for (loop, NULL), ==, "m");
  json = ffm_mapping_to_json (m);
  g_assert_nonnull (strstr (json, "\"rank_vars\": {\"QK\": \"p\", \"AV\": \"p\"}"));
  again = ffm_mapping_load_from_data (json, "again.json", &error);
  g_assert_no_error (error);
  g_assert_true (ffm_mapping_equal (m, again));
  tree = ffm_mapping_to_tree_string (m);
  g_assert_nonnull (strstr (tree, "for m (QK: p, AV: p) tile 4"));

  g_clear_pointer (&again, ffm_mapping_free);
  again = ffm_mapping_load_from_data (
    "{\"ffm_mapping\": 1, \"nodes\": [{\"storage\": [\"K\"], \"level\": \"M\"},"
    " {\"temporal\": \"m\", \"tile\": 4, \"rank_vars\": {\"QK\": 3}},"
    " {\"compute\": \"K\", \"level\": \"MAC\"}]}", "bad.json", &error);
  g_assert_null (again);
  g_assert_error (error, FFM_MAPPING_ERROR, FFM_MAPPING_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "bad.json"));
  g_assert_nonnull (strstr (error->message, "$.nodes[1].rank_vars.QK"));
}

/* Remainder tiles: printed in the tree and the loop nest; set from the
 * workload's bounds; not part of equality. */
static void
test_remainders (void)
{
  g_autofree char *path = data_path ("valid", "remainders.json");
  g_autoptr(FfmMapping) m = load_or_fail (path);
  g_autoptr(FfmMapping) bare = ffm_mapping_copy (m);
  g_autofree char *tree = ffm_mapping_to_tree_string (m);
  g_autofree char *nest = ffm_mapping_to_loop_nest_string (m);
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FfmWorkload) w = ffm_workload_load_from_data (
    "{\"ffm_workload\": 1, \"name\": \"mm\", \"ranks\": {\"M\": 7, \"N0\": 3, \"N1\": 3},"
    " \"bits_per_value\": {\"all\": 8},"
    " \"einsums\": [{\"name\": \"Matmul0\", \"einsum\": \"T1[m,n1] = T0[m,n0] * W0[n0,n1]\"}]}",
    "mm", NULL, &error);

  g_test_summary ("Loops with a remainder tile print it in the tree and the "
                  "loop nest; ffm_mapping_set_remainders() computes them");
  g_assert_no_error (error);
  g_assert_nonnull (strstr (tree, "for m tile 3 (remainder 1)\n"));
  g_assert_nonnull (strstr (tree, "parallel-for n1 tile 2 (remainder 1) across PE.x\n"));
  g_assert_nonnull (strstr (nest, "for m_1 in [0, ceil(|m|/3)):  // last tile 1\n"));
  g_assert_nonnull (strstr (nest, "for m_2 in [0, 3/1):\n"));
  for (guint i = 0; i < ffm_mapping_get_root (bare)->len; i++)
    ((FfmMappingNode *) g_ptr_array_index (ffm_mapping_get_root (bare), i))->remainder = 0;
  g_assert_true (ffm_mapping_equal (m, bare));
  g_assert_null (strstr (json = ffm_mapping_to_json (bare), "remainder"));
  g_clear_pointer (&json, g_free);
  ffm_mapping_set_remainders (bare, w);
  json = ffm_mapping_to_json (bare);
  {
    g_autofree char *expected = ffm_mapping_to_json (m);
    g_assert_cmpstr (json, ==, expected);
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/mapping/build-and-print", test_build_and_print);
  g_test_add_func ("/mapping/print-with-bounds", test_print_with_bounds);
  g_test_add_func ("/mapping/print-nested", test_print_nested);
  g_test_add_func ("/mapping/print-unfused-example", test_print_unfused_example);
  g_test_add_func ("/mapping/load-fields", test_load_fields);
  g_test_add_func ("/mapping/load-spatial", test_load_spatial);
  g_test_add_func ("/mapping/load-loose", test_load_loose);
  for (guint i = 0; i < G_N_ELEMENTS (round_trip_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/mapping/round-trip/%s",
                                               round_trip_cases[i].name);
      g_test_add_data_func (name, &round_trip_cases[i], test_round_trip);
    }
  g_test_add_func ("/mapping/save-file", test_save_file);
  g_test_add_func ("/mapping/copy-equal", test_copy_equal);
  g_test_add_func ("/mapping/paths", test_paths);
  g_test_add_func ("/mapping/check-structure", test_check_structure);
  for (guint i = 0; i < G_N_ELEMENTS (invalid_cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/mapping/invalid/%s", invalid_cases[i].file);
      g_test_add_data_func (name, &invalid_cases[i], test_invalid);
    }
  g_test_add_func ("/mapping/load-errors-from-data", test_load_errors_from_data);
  g_test_add_func ("/mapping/rank-vars", test_rank_vars);
  g_test_add_func ("/mapping/remainders", test_remainders);

  return g_test_run ();
}
