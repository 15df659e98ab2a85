/* test-constraints.c: mapping constraints (ffm-constraints.h) and the
 * shipped policies.
 *
 * Each kind of constraint on a two-matmul chain: the ffm strategy's best
 * mapping under it is inspected node by node (where tensors are backed
 * and kept, the order of a memory's nodes, tiles, fused loops), is
 * admitted by the predicate, and is never better than the unconstrained
 * optimum. Bad constraint files and bad names each fail with an error
 * naming the file (and line) and the cause; contradictions name both
 * constraints; an unsatisfiable set names the Einsum and the constraint.
 * The policies: listed, loadable by name, and `transfusion` on a small
 * attention block gives exactly the documented fusion set and dataflow. */
#include <ffm/ffm.h>

#include <string.h>

static const char chain_workload[] =
  "{ \"ffm_workload\": 1, \"name\": \"chain\","
  "  \"ranks\": { \"M\": 8, \"K\": 4, \"N\": 8, \"J\": 4 },"
  "  \"bits_per_value\": { \"all\": 8 },"
  "  \"einsums\": [ { \"name\": \"P\", \"einsum\": \"Y[m,n] = A[m,k] * B[k,n]\","
  "                   \"roles\": { \"input\": \"A\", \"weight\": \"B\", \"output\": \"Y\" } },"
  "                 { \"name\": \"Q\", \"einsum\": \"Z[m,j] = Y[m,n] * C[n,j]\","
  "                   \"roles\": { \"input\": \"Y\", \"weight\": \"C\", \"output\": \"Z\" } } ] }";

/* DRAM, a fanout of 2, a global buffer, a MAC. */
static const char chain_arch[] =
  "{ \"ffm_architecture\": 1, \"name\": \"small\", \"levels\": ["
  "  { \"memory\": \"MainMemory\", \"size\": \"inf\", \"read_energy\": 8,"
  "    \"write_energy\": 8, \"read_bandwidth\": 8, \"write_bandwidth\": 8,"
  "    \"keep\": \"~intermediates\", \"may_keep\": \"all\" },"
  "  { \"fanout\": \"X\", \"count\": 2 },"
  "  { \"memory\": \"GlobalBuffer\", \"size\": 4096, \"read_energy\": 1,"
  "    \"write_energy\": 1, \"keep\": \"~MainMemory\", \"may_keep\": \"all\" },"
  "  { \"compute\": \"MAC\", \"energy\": 1, \"throughput\": 1 } ] }";

typedef struct {
  FfmPluginRegistry *registry;
  const FfmPluginInfo *ffm;
  FfmWorkload *w;
  FfmArch *a;
} Fixture;

static Fixture fx;

static FfmConstraints *
constraints_from_text (const char *json)
{
  g_autoptr (GError) error = NULL;
  FfmConstraints *c = ffm_constraints_load_from_data (json, "test.json", &error);

  g_assert_no_error (error);
  return c;
}

/* The ffm strategy's lowest-EDP mapping of @w on @a under @c (NULL = free),
 * or NULL with @error set. */
static FfmSearchResult *
solve (FfmWorkload *w, FfmArch *a, const FfmConstraints *c, GError **error)
{
  g_autoptr (FfmProblem) problem = ffm_problem_new (w, a);
  FfmSearchContext ctx;

  ffm_search_context_init (&ctx, problem);
  ctx.objective = FFM_OBJECTIVE_EDP;
  ctx.n_threads = 1;
  ctx.max_fused_loops = -1;
  ctx.constraints = c;
  return fx.ffm->descriptor->vtable.search->run (&ctx, NULL, error);
}

/* The path of Einsum @einsum in @m (transfer full). */
static GPtrArray *
path_of (const FfmMapping *m, const char *einsum)
{
  g_autoptr (GPtrArray) paths = ffm_mapping_dup_paths (m);

  for (guint p = 0; p < paths->len; p++)
    {
      GPtrArray *path = g_ptr_array_index (paths, p);
      const FfmMappingNode *last = g_ptr_array_index (path, path->len - 1);
      if (strcmp (last->einsum, einsum) == 0)
        return g_ptr_array_ref (path);
    }
  g_assert_not_reached ();
}

static gboolean
node_has (const FfmMappingNode *n, const char *tensor)
{
  return n->kind == FFM_NODE_STORAGE && g_strv_contains ((const char *const *) n->tensors, tensor);
}

/* The level of the first storage node of @tensor on the path, or "". */
static const char *
backing_level (const GPtrArray *path, const char *tensor)
{
  for (guint i = 0; i < path->len; i++)
    if (node_has (g_ptr_array_index (path, i), tensor))
      return ((const FfmMappingNode *) g_ptr_array_index (path, i))->level;
  return "";
}

static gboolean
kept_at (const GPtrArray *path, const char *tensor, const char *level)
{
  for (guint i = 0; i < path->len; i++)
    {
      const FfmMappingNode *n = g_ptr_array_index (path, i);
      if (node_has (n, tensor) && strcmp (n->level, level) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Solves under @json, checks the result is admitted and no better than
 * the unconstrained optimum; returns the best mapping's result. */
static FfmSearchResult *
solve_checked (const char *json)
{
  g_autoptr (FfmConstraints) c = constraints_from_text (json);
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmBoundConstraints) bound = ffm_constraints_bind (c, fx.w, fx.a, &error);
  g_autoptr (FfmSearchResult) free_res = NULL;
  FfmSearchResult *res;
  g_autoptr (GString) why = g_string_new (NULL);
  const FfmSolution *s, *f;

  g_assert_no_error (error);
  res = solve (fx.w, fx.a, c, &error);
  g_assert_no_error (error);
  free_res = solve (fx.w, fx.a, NULL, &error);
  g_assert_no_error (error);
  s = ffm_search_result_get_solution (res, 0);
  f = ffm_search_result_get_solution (free_res, 0);
  if (!ffm_bound_constraints_admit_mapping (bound, s->mapping, why))
    g_error ("not admitted: %s", why->str);
  g_assert_cmpfloat (f->energy * f->latency, <=, s->energy * s->latency);
  return res;
}

/* ---- Each kind ---- */

static void
test_fuse_unfuse (void)
{
  g_autoptr (FfmSearchResult) fused = solve_checked (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"fuse\": \"Y\", \"level\": \"GlobalBuffer\"}]}");
  g_autoptr (FfmSearchResult) unfused = solve_checked (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"unfuse\": \"intermediates\"}]}");
  const FfmMapping *fm = ffm_search_result_get_solution (fused, 0)->mapping;
  const FfmMapping *um = ffm_search_result_get_solution (unfused, 0)->mapping;
  g_autoptr (GPtrArray) fp = path_of (fm, "P");
  g_autoptr (GPtrArray) fq = path_of (fm, "Q");
  g_autoptr (GPtrArray) up = path_of (um, "P");
  g_autoptr (GPtrArray) uq = path_of (um, "Q");

  g_assert_cmpstr (backing_level (fp, "Y"), ==, "GlobalBuffer");
  g_assert_cmpstr (backing_level (fq, "Y"), ==, "GlobalBuffer");
  g_assert_cmpstr (backing_level (up, "Y"), ==, "MainMemory");
  g_assert_cmpstr (backing_level (uq, "Y"), ==, "MainMemory");
}

static void
test_keep_forbid_backing (void)
{
  g_autoptr (FfmSearchResult) keep = solve_checked (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"keep\": \"B | C\", \"level\": \"GlobalBuffer\"}]}");
  g_autoptr (FfmSearchResult) forbid = solve_checked (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"forbid\": \"weight\", \"level\": \"GlobalBuffer\"}]}");
  g_autoptr (FfmSearchResult) backing = solve_checked (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"backing\": \"Y\", \"level\": \"MainMemory\"}]}");
  g_autoptr (GPtrArray) kp = path_of (ffm_search_result_get_solution (keep, 0)->mapping, "P");
  g_autoptr (GPtrArray) kq = path_of (ffm_search_result_get_solution (keep, 0)->mapping, "Q");
  g_autoptr (GPtrArray) fp = path_of (ffm_search_result_get_solution (forbid, 0)->mapping, "P");
  g_autoptr (GPtrArray) fq = path_of (ffm_search_result_get_solution (forbid, 0)->mapping, "Q");
  g_autoptr (GPtrArray) bq = path_of (ffm_search_result_get_solution (backing, 0)->mapping, "Q");

  g_assert_true (kept_at (kp, "B", "GlobalBuffer"));
  g_assert_true (kept_at (kq, "C", "GlobalBuffer"));
  g_assert_false (kept_at (fp, "B", "GlobalBuffer"));
  g_assert_false (kept_at (fq, "C", "GlobalBuffer"));
  g_assert_cmpstr (backing_level (bq, "Y"), ==, "MainMemory");
}

/* At GlobalBuffer, no node of another tensor above one of @stationary
 * (the backing node of the fused Y aside). */
static void
assert_stationary (const GPtrArray *path, const char *stationary)
{
  gboolean other_above = FALSE;
  gboolean seen_y = FALSE;

  for (guint i = 0; i < path->len; i++)
    {
      const FfmMappingNode *n = g_ptr_array_index (path, i);
      gboolean fused_y;
      if (n->kind != FFM_NODE_STORAGE || strcmp (n->level, "GlobalBuffer") != 0)
        {
          seen_y = seen_y || node_has (n, "Y");
          continue;
        }
      fused_y = node_has (n, "Y") && !seen_y;
      seen_y = seen_y || node_has (n, "Y");
      if (fused_y && g_strv_length (n->tensors) == 1)
        continue;
      if (node_has (n, stationary))
        g_assert_false (other_above);
      else
        other_above = TRUE;
    }
}

static void
test_stationary (void)
{
  g_autoptr (FfmSearchResult) ws = solve_checked (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"stationary\": \"weight\", \"level\": \"GlobalBuffer\"}]}");
  g_autoptr (FfmSearchResult) os = solve_checked (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"stationary\": \"output\", \"level\": \"GlobalBuffer\"}]}");
  g_autoptr (GPtrArray) wp = path_of (ffm_search_result_get_solution (ws, 0)->mapping, "P");
  g_autoptr (GPtrArray) wq = path_of (ffm_search_result_get_solution (ws, 0)->mapping, "Q");
  g_autoptr (GPtrArray) op = path_of (ffm_search_result_get_solution (os, 0)->mapping, "P");
  g_autoptr (GPtrArray) oq = path_of (ffm_search_result_get_solution (os, 0)->mapping, "Q");

  assert_stationary (wp, "B");
  assert_stationary (wq, "C");
  assert_stationary (op, "Y");
  assert_stationary (oq, "Z");
}

static void
test_tile_and_fused_loops (void)
{
  g_autoptr (FfmSearchResult) tiled = solve_checked (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"tile\": {\"m\": 2}, \"level\": \"GlobalBuffer\","
    " \"einsums\": [\"P\"]}]}");
  g_autoptr (FfmSearchResult) nofused = solve_checked (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"fuse\": \"Y\"}, {\"max_fused_loops\": 0}]}");
  g_autoptr (GPtrArray) tp = path_of (ffm_search_result_get_solution (tiled, 0)->mapping, "P");
  g_autoptr (GPtrArray) np = path_of (ffm_search_result_get_solution (nofused, 0)->mapping, "P");
  guint64 m_tile = 8;
  guint glb_nodes = 0, loops_above_y = 0;

  for (guint i = 0; i < tp->len; i++)
    {
      const FfmMappingNode *n = g_ptr_array_index (tp, i);
      if ((n->kind == FFM_NODE_TEMPORAL || n->kind == FFM_NODE_SPATIAL)
          && strcmp (n->rank_var, "m") == 0)
        m_tile = n->tile;
      /* nodes of P's tensors m indexes (the path holds Q's fused ones
       * too; B's tile does not depend on m) */
      if (n->kind == FFM_NODE_STORAGE && strcmp (n->level, "GlobalBuffer") == 0
          && (node_has (n, "A") || node_has (n, "Y")))
        {
          g_assert_cmpuint (m_tile, ==, 2);
          glb_nodes++;
        }
    }
  g_assert_cmpuint (glb_nodes, >, 0);
  for (guint i = 0; i < np->len && !node_has (g_ptr_array_index (np, i), "Y"); i++)
    {
      const FfmMappingNode *n = g_ptr_array_index (np, i);
      loops_above_y += (n->kind == FFM_NODE_TEMPORAL || n->kind == FFM_NODE_SPATIAL)
                       && n->tile < 8;   /* every rank of the loops above Y is 8 */
    }
  g_assert_cmpuint (loops_above_y, ==, 0);
  g_assert_cmpstr (backing_level (np, "Y"), ==, "GlobalBuffer");
}

static void
test_loop_order_and_spatial (void)
{
  g_autoptr (FfmSearchResult) ordered = solve_checked (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"unfuse\": \"Y\"}, {\"loop_order\": [\"k\", \"n\", \"m\"],"
    " \"level\": \"GlobalBuffer\", \"einsums\": [\"P\"]}]}");
  g_autoptr (FfmSearchResult) spatial = solve_checked (
    "{\"ffm_constraints\": 1, \"constraints\": [{\"spatial\": [\"n\"], \"fanout\": \"X\"}]}");
  g_autoptr (GPtrArray) sp = path_of (ffm_search_result_get_solution (spatial, 0)->mapping, "P");

  g_assert_nonnull (ordered);
  for (guint i = 0; i < sp->len; i++)
    {
      const FfmMappingNode *n = g_ptr_array_index (sp, i);
      if (n->kind == FFM_NODE_SPATIAL && n->tile < 8)
        g_assert_cmpstr (n->rank_var, ==, "n");
    }
}

/* The predicate itself: a hand-built pmapping that breaks a constraint is
 * refused, naming it. */
static void
test_predicate_refuses (void)
{
  g_autoptr (FfmConstraints) c = constraints_from_text (
    "{\"ffm_constraints\": 1, \"constraints\": [\n"
    "  {\"tile\": {\"m\": 2}, \"level\": \"GlobalBuffer\", \"einsums\": [\"P\"]}\n]}");
  g_autoptr (FfmBoundConstraints) bound = ffm_constraints_bind (c, fx.w, fx.a, NULL);
  g_autoptr (GPtrArray) nodes = ffm_mapping_node_list_new ();
  const char *a[] = { "A", NULL }, *b[] = { "B", NULL }, *y[] = { "Y", NULL };
  g_autoptr (GString) why = g_string_new (NULL);

  g_ptr_array_add (nodes, ffm_mapping_node_new_storage (a, "MainMemory", FALSE));
  g_ptr_array_add (nodes, ffm_mapping_node_new_storage (b, "MainMemory", FALSE));
  g_ptr_array_add (nodes, ffm_mapping_node_new_storage (y, "MainMemory", FALSE));
  g_ptr_array_add (nodes, ffm_mapping_node_new_temporal ("m", 4));
  g_ptr_array_add (nodes, ffm_mapping_node_new_storage (a, "GlobalBuffer", FALSE));
  g_ptr_array_add (nodes, ffm_mapping_node_new_compute ("P", "MAC"));
  g_assert_nonnull (bound);
  g_assert_false (ffm_bound_constraints_admit_pmapping (bound, 0,
                                                       (const FfmMappingNode *const *) nodes->pdata,
                                                       nodes->len, why));
  g_assert_nonnull (strstr (why->str, "test.json:2"));
  g_assert_nonnull (strstr (why->str, "the tile of m at GlobalBuffer is 4"));
  ((FfmMappingNode *) g_ptr_array_index (nodes, 3))->tile = 2;
  g_assert_true (ffm_bound_constraints_admit_pmapping (bound, 0,
                                                      (const FfmMappingNode *const *) nodes->pdata,
                                                      nodes->len, NULL));
  /* B (indexed by k and n only) kept at GlobalBuffer above the loop over m
   * sees all of m: the constraint does not concern it. */
  g_ptr_array_insert (nodes, 3, ffm_mapping_node_new_storage (b, "GlobalBuffer", FALSE));
  g_assert_true (ffm_bound_constraints_admit_pmapping (bound, 0,
                                                      (const FfmMappingNode *const *) nodes->pdata,
                                                      nodes->len, NULL));
  /* The tile is one instance's: A's node sees m = 4 but the fanout above
   * GlobalBuffer spreads it over 2 instances of 2 */
  {
    FfmMappingNode *spread = ffm_mapping_node_new_spatial ("m", 2, "X", "X");
    ((FfmMappingNode *) g_ptr_array_index (nodes, 4))->tile = 4;
    g_ptr_array_insert (nodes, 6, spread);
    g_assert_true (ffm_bound_constraints_admit_pmapping (bound, 0,
                                                        (const FfmMappingNode *const *) nodes->pdata,
                                                        nodes->len, NULL));
    spread->tile = 1;
    g_string_truncate (why, 0);
    g_assert_false (ffm_bound_constraints_admit_pmapping (bound, 0,
                                                         (const FfmMappingNode *const *) nodes->pdata,
                                                         nodes->len, why));
    g_assert_nonnull (strstr (why->str, "the tile of m at GlobalBuffer is 1"));
  }
}

/* ---- Errors ---- */

typedef struct {
  const char *json;
  int code;
  const char *const expect[3];   /* substrings of the message */
} BadCase;

static void
test_bad_files (void)
{
  static const BadCase cases[] = {
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"fuse\": \"Y\",}\n]}",
      FFM_CONSTRAINTS_ERROR_PARSE, { "bad.json:2", NULL } },
    { "{\"constraints\": []}", FFM_CONSTRAINTS_ERROR_INVALID, { "bad.json", "ffm_constraints", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"fusee\": \"Y\"}\n]}",
      FFM_CONSTRAINTS_ERROR_INVALID, { "bad.json:2", "fusee", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"tile\": {\"m\": 0}, \"level\": \"GlobalBuffer\"}\n]}",
      FFM_CONSTRAINTS_ERROR_INVALID, { "bad.json:2", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"fuse\": \"Y |\"}\n]}",
      FFM_CONSTRAINTS_ERROR_INVALID, { "bad.json:2", NULL } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmConstraints) c = ffm_constraints_load_from_data (cases[i].json, "bad.json",
                                                                     &error);
      g_assert_null (c);
      g_assert_error (error, FFM_CONSTRAINTS_ERROR, cases[i].code);
      g_test_message ("%s", error->message);
      for (guint k = 0; cases[i].expect[k] != NULL; k++)
        g_assert_nonnull (strstr (error->message, cases[i].expect[k]));
    }
}

static void
test_bad_names (void)
{
  static const BadCase cases[] = {
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"fuse\": \"Nope\"}\n]}",
      0, { "bad.json:2", "Nope", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"keep\": \"B\", \"level\": \"L9\"}\n]}",
      0, { "bad.json:2", "L9", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"max_fused_loops\": 0, \"einsums\": [\"R\"]}\n]}",
      0, { "bad.json:2", "R", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"tile\": {\"q\": 2}, \"level\": \"GlobalBuffer\", \"einsums\": [\"P\"]}\n]}",
      0, { "bad.json:2", "q", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"tile\": {\"m\": 3}, \"level\": \"GlobalBuffer\", \"einsums\": [\"P\"]}\n]}",
      0, { "bad.json:2", "3", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"fuse\": \"A\"}\n]}",
      0, { "bad.json:2", "A", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"stationary\": \"weight\", \"level\": \"MainMemory\"}\n]}",
      0, { "bad.json:2", "outermost", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"fuse\": \"Y\"},\n  {\"unfuse\": \"Y\"}\n]}",
      0, { "bad.json:2", "bad.json:3", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"keep\": \"B\", \"level\": \"GlobalBuffer\"},\n"
      "  {\"forbid\": \"weight\", \"level\": \"GlobalBuffer\"}\n]}",
      0, { "bad.json:2", "bad.json:3", NULL } },
    { "{\"ffm_constraints\": 1, \"constraints\": [\n  {\"spatial\": [\"m\"], \"fanout\": \"GlobalBuffer\"}\n]}",
      0, { "bad.json:2", "GlobalBuffer", NULL } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmConstraints) c = ffm_constraints_load_from_data (cases[i].json, "bad.json",
                                                                     &error);
      g_autoptr (FfmBoundConstraints) bound = NULL;
      g_assert_no_error (error);
      bound = ffm_constraints_bind (c, fx.w, fx.a, &error);
      g_assert_null (bound);
      g_assert_error (error, FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_INVALID);
      g_test_message ("%s", error->message);
      for (guint k = 0; cases[i].expect[k] != NULL; k++)
        g_assert_nonnull (strstr (error->message, cases[i].expect[k]));
    }
}

static void
test_unsatisfiable (void)
{
  /* The architecture keeps every input in MainMemory: A cannot be backed
   * below it. */
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmConstraints) c = constraints_from_text (
    "{\"ffm_constraints\": 1, \"constraints\": [\n"
    "  {\"fuse\": \"Y\"},\n"
    "  {\"backing\": \"A\", \"level\": \"GlobalBuffer\"}\n]}");
  g_autoptr (FfmSearchResult) res = solve (fx.w, fx.a, c, &error);

  g_assert_null (res);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_error (error, FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_UNSATISFIABLE);
  g_assert_nonnull (strstr (error->message, "Einsum P"));
  g_assert_nonnull (strstr (error->message, "backing A at GlobalBuffer (test.json:3"));
  g_assert_null (strstr (error->message, "Einsum Q"));
}

/* ---- Policies ---- */

static void
test_policies_listed (void)
{
  g_auto (GStrv) names = ffm_constraints_list_policies ();
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmConstraints) unfused = NULL;
  g_autoptr (FfmConstraints) missing = NULL;
  g_autoptr (FfmSearchResult) res = NULL;
  g_autoptr (GPtrArray) q = NULL;

  g_assert_nonnull (names);
  g_assert_true (g_strv_contains ((const char *const *) names, "transfusion"));
  g_assert_true (g_strv_contains ((const char *const *) names, "unfused"));
  unfused = ffm_constraints_load_policy ("unfused", &error);
  g_assert_no_error (error);
  g_assert_nonnull (ffm_constraints_get_description (unfused));
  res = solve (fx.w, fx.a, unfused, &error);
  g_assert_no_error (error);
  q = path_of (ffm_search_result_get_solution (res, 0)->mapping, "Q");
  g_assert_cmpstr (backing_level (q, "Y"), ==, "MainMemory");
  missing = ffm_constraints_load_policy ("no-such-policy", &error);
  g_assert_null (missing);
  g_assert_error (error, FFM_CONSTRAINTS_ERROR, FFM_CONSTRAINTS_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no-such-policy"));
  g_assert_nonnull (strstr (error->message, "transfusion"));
}

/* The constraints written as JSON load back to the same descriptions. */
static void
test_write_round_trip (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmConstraints) c = ffm_constraints_load_policy ("transfusion", &error);
  g_autoptr (FfmJsonWriter) writer = ffm_json_writer_new ();
  g_autofree char *text = NULL;
  g_autoptr (FfmConstraints) back = NULL;

  g_assert_no_error (error);
  ffm_constraints_write_json (c, writer);
  text = ffm_json_writer_finish (writer);
  back = ffm_constraints_load_from_data (text, "written.json", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ffm_constraints_get_n (back), ==, ffm_constraints_get_n (c));
  for (guint i = 0; i < ffm_constraints_get_n (c); i++)
    g_assert_cmpint (ffm_constraints_get (back, i)->kind, ==, ffm_constraints_get (c, i)->kind);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  fx.registry = ffm_plugin_registry_new ();
  ffm_plugin_registry_scan (fx.registry);
  fx.ffm = ffm_plugin_registry_lookup (fx.registry, FFM_PLUGIN_KIND_SEARCH, "ffm", &error);
  g_assert_no_error (error);
  fx.w = ffm_workload_load_from_data (chain_workload, "chain", NULL, &error);
  g_assert_no_error (error);
  fx.a = ffm_arch_load_from_data (chain_arch, "small", NULL, &error);
  g_assert_no_error (error);
  g_test_add_func ("/constraints/fuse-unfuse", test_fuse_unfuse);
  g_test_add_func ("/constraints/keep-forbid-backing", test_keep_forbid_backing);
  g_test_add_func ("/constraints/stationary", test_stationary);
  g_test_add_func ("/constraints/tile-and-fused-loops", test_tile_and_fused_loops);
  g_test_add_func ("/constraints/loop-order-and-spatial", test_loop_order_and_spatial);
  g_test_add_func ("/constraints/predicate-refuses", test_predicate_refuses);
  g_test_add_func ("/constraints/bad-files", test_bad_files);
  g_test_add_func ("/constraints/bad-names", test_bad_names);
  g_test_add_func ("/constraints/unsatisfiable", test_unsatisfiable);
  g_test_add_func ("/constraints/policies", test_policies_listed);
  g_test_add_func ("/constraints/write-round-trip", test_write_round_trip);
  status = g_test_run ();
  ffm_workload_unref (fx.w);
  ffm_arch_unref (fx.a);
  ffm_plugin_registry_free (fx.registry);
  return status;
}
