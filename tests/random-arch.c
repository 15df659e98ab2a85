/* random-arch.c: random valid architectures x random small workloads
 * (random-arch.h). */
#include "random-arch.h"

#include <json-glib/json-glib.h>

static int
pick (GRand *r, const int *values, guint n)
{
  return values[g_rand_int_range (r, 0, (gint32) n)];
}

static const char *
pick_s (GRand *r, const char *const *values, guint n)
{
  return values[g_rand_int_range (r, 0, (gint32) n)];
}

#define PICK(r, array) pick ((r), (array), G_N_ELEMENTS (array))
#define PICK_S(r, array) pick_s ((r), (array), G_N_ELEMENTS (array))

/* ---- Workloads ---- */

/* A rank size: small ones 1-3, the rest up to 4 with a few odd sizes. */
static int
rank_size (GRand *r, RandomArchSize size)
{
  static const int small[] = { 1, 2, 2, 3 }, any[] = { 1, 2, 2, 3, 4, 4 };

  return size == RANDOM_ARCH_SMALL ? PICK (r, small) : PICK (r, any);
}

static char *
workload_text (GRand *r, RandomArchSize size)
{
  GString *s = g_string_new ("{\"ffm_workload\": 1, \"name\": \"random\", ");
  int kind = g_rand_int_range (r, 0, size == RANDOM_ARCH_SMALL ? 3 : 6);
  /* every kind but the attention-like one has a weight W0 */
  const char *persistent = kind != 4 && g_rand_double (r) < 0.2
    ? "\"persistent\": \"W0\", " : "";

  g_string_append_printf (s, "\"bits_per_value\": {\"all\": %d}, %s",
                          g_rand_boolean (r) ? 8 : 4, persistent);
  switch (kind)
    {
    case 0:     /* a chain of 1-3 (small: 1-2) matmuls */
    default:
      {
        int n = g_rand_int_range (r, 1, size == RANDOM_ARCH_SMALL ? 3 : 4);
        g_string_append_printf (s, "\"ranks\": {\"M\": %d, \"N0\": %d, \"N1\": %d, "
                                "\"N2\": %d, \"N3\": %d}, \"einsums\": [",
                                rank_size (r, size), rank_size (r, size),
                                rank_size (r, size), rank_size (r, size),
                                rank_size (r, size));
        for (int i = 0; i < n; i++)
          g_string_append_printf (s, "%s\"T%d[m,n%d] = T%d[m,n%d] * W%d[n%d,n%d]\"",
                                  i ? ", " : "", i + 1, i + 1, i, i, i, i, i + 1);
        g_string_append (s, "]}");
        break;
      }
    case 1:     /* one convolution: seven rank variables */
      g_string_append_printf (s, "\"ranks\": {\"N\": %d, \"M\": %d, \"C\": %d, \"P\": %d, "
                              "\"Q\": %d, \"R\": %d, \"S\": %d}, \"einsums\": ["
                              "\"T1[n,m,p,q] = T0[n,c,H:p+r,W:q+s] * W0[c,m,r,s]\"]}",
                              size == RANDOM_ARCH_SMALL ? 1 : rank_size (r, size),
                              rank_size (r, size), rank_size (r, size), rank_size (r, size),
                              size == RANDOM_ARCH_SMALL ? 1 : rank_size (r, size),
                              rank_size (r, size),
                              size == RANDOM_ARCH_SMALL ? 1 : rank_size (r, size));
      break;
    case 2:     /* matmul, element-wise, (matmul) */
      g_string_append_printf (s, "\"ranks\": {\"M\": %d, \"N0\": %d, \"N1\": %d, "
                              "\"N3\": %d}, \"einsums\": [\"T1[m,n1] = T0[m,n0] * W0[n0,n1]\", "
                              "\"T2[m,n1] = T1[m,n1]\"%s]}",
                              rank_size (r, size), rank_size (r, size), rank_size (r, size),
                              rank_size (r, size),
                              size == RANDOM_ARCH_SMALL ? ""
                              : ", \"T3[m,n3] = T2[m,n1] * W2[n1,n3]\"");
      break;
    case 3:     /* a convolution, then a 1x1 convolution of its output */
      g_string_append_printf (s, "\"ranks\": {\"N\": 1, \"M\": %d, \"C\": %d, \"P\": %d, "
                              "\"Q\": %d, \"R\": %d, \"S\": %d, \"K\": %d}, \"einsums\": ["
                              "\"T1[n,m,p,q] = T0[n,c,H:p+r,W:q+s] * W0[c,m,r,s]\", "
                              "\"T2[n,k,p,q] = T1[n,m,p,q] * W1[m,k]\"]}",
                              rank_size (r, size), rank_size (r, size), rank_size (r, size),
                              rank_size (r, size), rank_size (r, size), rank_size (r, size),
                              rank_size (r, size));
      break;
    case 4:     /* batched matmuls (attention-like) */
      g_string_append_printf (s, "\"ranks\": {\"B\": %d, \"H\": %d, \"M\": %d, \"P\": %d, "
                              "\"E\": %d, \"F\": %d}, \"einsums\": ["
                              "\"QK[b,h,m,p] = Q[b,h,m,e] * K[b,h,p,e]\", "
                              "\"S[b,h,m,p] = QK[b,h,m,p]\", "
                              "\"AV[b,h,m,f] = S[b,h,m,p] * V[b,h,p,f]\"]}",
                              rank_size (r, size), rank_size (r, size), rank_size (r, size),
                              rank_size (r, size), rank_size (r, size), rank_size (r, size));
      break;
    case 5:     /* two readers of one tensor, joined */
      g_string_append_printf (s, "\"ranks\": {\"M\": %d, \"N0\": %d, \"N1\": %d}, "
                              "\"einsums\": [\"A[m,n1] = X[m,n0] * W0[n0,n1]\", "
                              "\"B[m,n1] = X[m,n0] * W1[n0,n1]\", "
                              "\"C[m,n1] = A[m,n1] * B[m,n1]\"]}",
                              rank_size (r, size), rank_size (r, size), rank_size (r, size));
      break;
    }
  return g_string_free (s, FALSE);
}

/* ---- Architectures ---- */

static const char *const roles[] = { "input", "weight", "output" };

/* A random tensor set for `keep` or `may_keep` below MainMemory, in the
 * words a user writes. */
static const char *
random_set (GRand *r, gboolean may)
{
  static const char *const keeps[] = {
    "nothing", "input", "weight", "output", "input | output", "input | weight",
    "weight | output", "~MainMemory", "~weight", "intermediates",
  };
  static const char *const may_keeps[] = {
    "all", "all", "input", "weight", "output", "input | output", "input | weight",
    "weight | output", "~above", "~output", "intermediates | weight", "nothing",
  };

  return may ? PICK_S (r, may_keeps) : PICK_S (r, keeps);
}

static void
append_memory (GString *s, GRand *r, RandomArchSize size, const char *name,
               const char *keep, const char *may_keep)
{
  static const char *const sizes_small[] = { "16", "32", "64", "128", "256", "1024", "inf" };
  static const char *const sizes_any[] = { "8", "16", "32", "64", "128", "256", "512",
                                           "4096", "65536", "inf" };
  static const char *const energies[] = { "1", "2", "3", "5", "8", "0.5" };
  static const char *const bandwidths[] = { "1", "2", "4", "8", "inf", "inf" };

  g_string_append_printf (s, ",\n  {\"memory\": \"%s\", \"size\": \"%s\", "
                          "\"read_energy\": %s, \"write_energy\": %s, "
                          "\"read_bandwidth\": \"%s\", \"write_bandwidth\": \"%s\", "
                          "\"ports\": \"%s\"",
                          name,
                          size == RANDOM_ARCH_SMALL ? PICK_S (r, sizes_small) : PICK_S (r, sizes_any),
                          PICK_S (r, energies), PICK_S (r, energies),
                          PICK_S (r, bandwidths), PICK_S (r, bandwidths),
                          g_rand_boolean (r) ? "shared" : "separate");
  if (g_rand_double (r) < 0.2)
    g_string_append_printf (s, ", \"bits_per_action\": %d", g_rand_boolean (r) ? 8 : 16);
  if (g_rand_double (r) < 0.2)
    g_string_append_printf (s, ", \"update_energy\": %s, \"drains_read\": %s",
                            PICK_S (r, energies), g_rand_boolean (r) ? "true" : "false");
  if (g_rand_double (r) < 0.15)
    g_string_append (s, ", \"bits_per_value\": {\"output\": \"2*bits\"}");
  if (g_rand_double (r) < 0.2)
    g_string_append (s, ", \"leak_power\": 0.25");
  if (keep != NULL)
    g_string_append_printf (s, ", \"keep\": \"%s\"", keep);
  if (may_keep != NULL)
    g_string_append_printf (s, ", \"may_keep\": \"%s\"", may_keep);
  g_string_append (s, "}");
}

static void
append_fanout (GString *s, GRand *r, RandomArchSize size, const char *name)
{
  static const char *const reuse[] = {
    NULL, NULL, NULL, "input", "weight", "output", "inputs", "nothing",
  };
  static const char *const may_reuse[] = {
    NULL, NULL, "all", "nothing", "inputs", "outputs", "weight | output",
  };
  guint n_dims = size == RANDOM_ARCH_SMALL ? (guint) g_rand_int_range (r, 1, 3)
                                           : (guint) g_rand_int_range (r, 1, 5);

  g_string_append_printf (s, ",\n  {\"fanout\": \"%s\", \"dims\": [", name);
  for (guint d = 0; d < n_dims; d++)
    {
      const char *re = PICK_S (r, reuse), *may = PICK_S (r, may_reuse);
      g_string_append_printf (s, "%s{\"name\": \"d%u\", \"count\": %d", d ? ", " : "", d,
                              g_rand_int_range (r, 2, 5));
      if (re != NULL)
        g_string_append_printf (s, ", \"reuse\": \"%s\"", re);
      else if (may != NULL)
        g_string_append_printf (s, ", \"may_reuse\": \"%s\"", may);
      if (g_rand_double (r) < 0.1)
        g_string_append (s, ", \"min_usage\": 0.5");
      g_string_append (s, "}");
    }
  g_string_append (s, "]}");
}

static char *
arch_text (GRand *r, RandomArchSize size)
{
  GString *s = g_string_new ("{\"ffm_architecture\": 1, \"name\": \"random-arch\", "
                             "\"levels\": [\n  {\"memory\": \"MainMemory\", \"size\": \"inf\", "
                             "\"read_energy\": 10, \"write_energy\": 10, "
                             "\"read_bandwidth\": 4, \"write_bandwidth\": 4, "
                             "\"keep\": \"~intermediates\", \"may_keep\": \"all\"}");
  guint n_mem = size == RANDOM_ARCH_SMALL ? (guint) g_rand_int_range (r, 1, 4)
                                          : (guint) g_rand_int_range (r, 1, 9);
  guint n_fan = size == RANDOM_ARCH_SMALL ? (guint) g_rand_int_range (r, 0, 2)
                                          : (guint) g_rand_int_range (r, 0, 4);
  /* fanout k goes after memory fan_at[k] (0: MainMemory) */
  guint fan_at[3] = { 0 };
  guint fanout = 0, side = 0;
  gboolean vector = g_rand_double (r) < (size == RANDOM_ARCH_ANY ? 0.2 : 0.15);
  guint vector_at = (guint) g_rand_int_range (r, 0, (gint32) n_mem + 1);

  for (guint k = 0; k < n_fan; k++)
    fan_at[k] = (guint) g_rand_int_range (r, 0, (gint32) n_mem + 1);
  for (guint m = 0; m <= n_mem; m++)
    {
      if (m > 0)
        {
          g_autofree char *name = NULL;
          /* per-tensor memories side by side: a run of one memory per role */
          if (side == 0 && m + 2 <= n_mem && g_rand_double (r) < 0.25)
            side = 3;
          if (side > 0)
            {
              const char *role = roles[3 - side];
              name = g_strdup_printf ("%sSpad%u", role, m);
              append_memory (s, r, size, name, role, NULL);
              side--;
            }
          else
            {
              gboolean keep = g_rand_double (r) < 0.3;
              name = g_strdup_printf ("Buffer%u", m);
              append_memory (s, r, size, name, keep ? random_set (r, FALSE) : NULL,
                             !keep || g_rand_boolean (r) ? random_set (r, TRUE) : NULL);
            }
        }
      for (guint k = 0; k < n_fan; k++)
        if (fan_at[k] == m && side == 0)
          {
            g_autofree char *name = g_strdup_printf ("Fanout%u", fanout++);
            append_fanout (s, r, size, name);
          }
      if (vector && vector_at == m && side == 0)
        {
          g_string_append (s, ",\n  {\"compute\": \"Vector\", \"energy\": 0.5, "
                           "\"throughput\": 4, \"enabled\": \"len(all) == 2\"}");
          vector = FALSE;
        }
    }
  g_string_append_printf (s, ",\n  {\"compute\": \"MAC\", \"energy\": %s, \"throughput\": %d",
                          g_rand_boolean (r) ? "1" : "0.5", g_rand_int_range (r, 1, 3));
  if (g_rand_double (r) < 0.2)
    g_string_append (s, ", \"leak_power\": 0.125");
  g_string_append (s, "}\n]}");
  return g_string_free (s, FALSE);
}

void
random_arch_problem_text (guint64 seed, RandomArchSize size, char **workload_json,
                          char **arch_json)
{
  g_autoptr (GRand) r = g_rand_new_with_seed ((guint32) (seed * 2654435761u) ^ 0xa5c3u);

  *arch_json = arch_text (r, size);
  *workload_json = workload_text (r, size);
}

void
random_arch_problem_make (guint64 seed, RandomArchSize size, FfmWorkload **workload,
                          FfmArch **arch)
{
  g_autofree char *wj = NULL, *aj = NULL;
  g_autoptr (GError) error = NULL;

  random_arch_problem_text (seed, size, &wj, &aj);
  *arch = ffm_arch_load_from_data (aj, "random-arch.json", NULL, &error);
  if (*arch == NULL)
    g_error ("seed %" G_GUINT64_FORMAT ": the random architecture does not load: %s\n%s",
             seed, error->message, aj);
  *workload = ffm_workload_load_from_data (wj, "random-workload.json", NULL, &error);
  if (*workload == NULL)
    g_error ("seed %" G_GUINT64_FORMAT ": the random workload does not load: %s\n%s",
             seed, error->message, wj);
}

/* ---- Interchangeable fanout dimensions ---- */

/* A deep copy of @node (json_node_copy() shares objects and arrays).
 * (transfer full) */
static JsonNode *
json_deep_copy (JsonNode *node)
{
  g_autofree char *text = json_to_string (node, FALSE);
  return json_from_string (text, NULL);
}

/* @arch_json with its first fanout doubled: with @twin_level a copy of the
 * whole level right below it ("Twin" appended to its name), otherwise a
 * copy of its first dimension added to it (named "twin"); NULL when it
 * has no fanout. (transfer full) */
static char *
with_twin_fanout (const char *arch_json, gboolean twin_level)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autoptr (GError) error = NULL;
  JsonObject *root;
  JsonArray *levels, *doubled;
  gboolean done = FALSE;

  if (!json_parser_load_from_data (parser, arch_json, -1, &error))
    g_error ("the random architecture is not JSON: %s", error->message);
  root = json_node_get_object (json_parser_get_root (parser));
  levels = json_object_get_array_member (root, "levels");
  doubled = json_array_new ();
  for (guint i = 0; i < json_array_get_length (levels); i++)
    {
      JsonNode *node = json_array_get_element (levels, i);
      JsonObject *level = json_node_get_object (node);
      json_array_add_element (doubled, json_deep_copy (node));
      if (done || !json_object_has_member (level, "fanout"))
        continue;
      done = TRUE;
      if (twin_level)
        {
          JsonNode *copy = json_deep_copy (node);
          g_autofree char *name = g_strdup_printf ("%sTwin",
                                                   json_object_get_string_member (level, "fanout"));
          json_object_set_string_member (json_node_get_object (copy), "fanout", name);
          json_array_add_element (doubled, copy);
        }
      else
        {
          JsonObject *last = json_array_get_object_element (doubled,
                                                            json_array_get_length (doubled) - 1);
          JsonArray *dims = json_object_get_array_member (last, "dims");
          JsonNode *dim = json_deep_copy (json_array_get_element (dims, 0));
          json_object_set_string_member (json_node_get_object (dim), "name", "twin");
          json_array_add_element (dims, dim);
        }
    }
  if (!done)
    {
      json_array_unref (doubled);
      return NULL;
    }
  json_object_set_array_member (root, "levels", doubled);
  json_generator_set_root (generator, json_parser_get_root (parser));
  return json_generator_to_data (generator, NULL);
}

gboolean
random_arch_problem_make_twins (guint64 seed, gboolean twin_level, FfmWorkload **workload,
                                FfmArch **arch)
{
  g_autofree char *wj = NULL, *aj = NULL, *twins = NULL;
  g_autoptr (GError) error = NULL;

  random_arch_problem_text (seed, RANDOM_ARCH_SMALL, &wj, &aj);
  twins = with_twin_fanout (aj, twin_level);
  if (twins == NULL)
    return FALSE;
  *arch = ffm_arch_load_from_data (twins, "random-arch.json", NULL, &error);
  if (*arch == NULL)
    g_error ("seed %" G_GUINT64_FORMAT ": the random architecture with a twin fanout "
             "does not load: %s\n%s", seed, error->message, twins);
  *workload = ffm_workload_load_from_data (wj, "random-workload.json", NULL, &error);
  if (*workload == NULL)
    g_error ("seed %" G_GUINT64_FORMAT ": the random workload does not load: %s\n%s",
             seed, error->message, wj);
  return TRUE;
}
