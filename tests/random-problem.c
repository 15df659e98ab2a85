/* random-problem.c: random small problems for property tests
 * (random-problem.h). */
#include "random-problem.h"

#include <math.h>

static int
pick (GRand *r, const int *values, guint n)
{
  return values[g_rand_int_range (r, 0, n)];
}

static double
pickd (GRand *r, const double *values, guint n)
{
  return values[g_rand_int_range (r, 0, n)];
}

/* Sizes shrink as Einsums and levels are added, so that exhaustive
 * search stays within its limits for most problems. */
static char *
random_workload_text (GRand *r, int kind, int n_einsums, guint extra_levels,
                      guint imperfect)
{
  /* with remainder tiles, sizes with a remainder over 2 (or 3) */
  static const int sizes2[] = { 1, 2, 2, 3, 4 }, sizes3[] = { 1, 2, 2, 3 },
    sizes4[] = { 1, 2, 2 }, odd2[] = { 1, 2, 3, 3, 5 }, odd3[] = { 1, 2, 3, 3 },
    odd4[] = { 1, 2, 3 };
  GString *s = g_string_new ("{\"ffm_workload\": 1, \"name\": \"random\", ");
  int size_class = MIN (3, n_einsums + (int) extra_levels - 1);
  const int *small = imperfect
    ? (size_class <= 1 ? odd2 : size_class == 2 ? odd3 : odd4)
    : (size_class <= 1 ? sizes2 : size_class == 2 ? sizes3 : sizes4);
  guint n_small = size_class <= 1 ? G_N_ELEMENTS (sizes2)
    : size_class == 2 ? G_N_ELEMENTS (sizes3) : G_N_ELEMENTS (sizes4);
  int m = pick (r, small, n_small);
  int n[5];

  for (int i = 0; i < 5; i++)
    n[i] = pick (r, small, n_small);
  if (kind == 5 || kind == 7)
    n[2] = n[1];      /* element-wise joins of the two branches */
  g_string_append_printf (s, "\"ranks\": {\"M\": %d, \"N0\": %d, \"N1\": %d, "
                          "\"N2\": %d, \"N3\": %d, \"N4\": %d}, ",
                          m, n[0], n[1], n[2], n[3], n[4]);
  g_string_append_printf (s, "\"bits_per_value\": {\"all\": %d}, ",
                          g_rand_boolean (r) ? 8 : 4);
  if (g_rand_double (r) < 0.3)
    g_string_append (s, kind == 4 ? "\"persistent\": \"W0 | W2\", "
                     : "\"persistent\": \"W0 | W1\", ");
  g_string_append (s, "\"einsums\": [");
  switch (kind)
    {
    case 0:     /* a chain of matmuls */
    case 1:
    case 2:
    case 3:
      for (int i = 0; i < n_einsums; i++)
        g_string_append_printf (s, "%s\"T%d[m,n%d] = T%d[m,n%d] * W%d[n%d,n%d]\"",
                                i ? ", " : "", i + 1, i + 1, i, i, i, i, i + 1);
      break;
    case 4:     /* matmul, element-wise, matmul */
      g_string_append (s, "\"T1[m,n1] = T0[m,n0] * W0[n0,n1]\", "
                       "\"T2[m,n1] = T1[m,n1]\", "
                       "\"T3[m,n3] = T2[m,n1] * W2[n1,n3]\"");
      break;
    case 5:     /* a skip connection: T1 is read two Einsums later */
      g_string_append (s, "\"T1[m,n1] = T0[m,n0] * W0[n0,n1]\", "
                       "\"T2[m,n2] = T1[m,n1] * W1[n1,n2]\", "
                       "\"T3[m,n1] = T2[m,N2:n1] * T1[m,n1]\"");
      break;
    case 6:     /* one tensor, two consumers */
      g_string_append (s, "\"T1[m,n1] = T0[m,n0] * W0[n0,n1]\", "
                       "\"T2[m,n2] = T1[m,n1] * W1[n1,n2]\", "
                       "\"T3[m,n3] = T1[m,n1] * W2[n1,n3]\"");
      break;
    case 8:     /* a copy Einsum, then two readers of the copy */
      g_string_append (s, "{\"einsum\": \"I[m,n0] = I_in[m,n0]\", \"copy\": true}, "
                       "\"A[m,n1] = I[m,n0] * W0[n0,n1]\", "
                       "\"B[m,n2] = I[m,n0] * W1[n0,n2]\"");
      break;
    default:    /* one input, two readers, joined */
      g_string_append (s, "\"A[m,n1] = X[m,n0] * W0[n0,n1]\", "
                       "\"B[m,n2] = X[m,n0] * W1[n0,n2]\", "
                       "\"C[m,n1] = A[m,n1] * B[m,N2:n1]\"");
      break;
    }
  g_string_append (s, "]}");
  return g_string_free (s, FALSE);
}

static void
random_memory (GRand *r, FfmArch *a, const char *name, double size)
{
  static const double energies[] = { 1, 2, 3, 5, 8 };
  static const double bandwidths[] = { 1, 2, 4, 8, INFINITY };
  FfmLevel *l = ffm_arch_add_memory (a, name);

  l->u.memory.size = size;
  l->u.memory.read_energy = pickd (r, energies, G_N_ELEMENTS (energies));
  l->u.memory.write_energy = pickd (r, energies, G_N_ELEMENTS (energies));
  l->u.memory.read_bandwidth = pickd (r, bandwidths, G_N_ELEMENTS (bandwidths));
  l->u.memory.write_bandwidth = pickd (r, bandwidths, G_N_ELEMENTS (bandwidths));
  l->u.memory.ports = g_rand_boolean (r) ? FFM_PORTS_SHARED : FFM_PORTS_SEPARATE;
  l->u.memory.skip_initial_output_write = g_rand_double (r) < 0.8;
  l->leak_power = g_rand_double (r) < 0.7 ? 0 : 0.5;
  /* Per-action energies now and then; drains that read nothing (Timeloop's
   * convention) among them. */
  if (g_rand_double (r) < 0.35)
    {
      l->u.memory.fill_energy = pickd (r, energies, G_N_ELEMENTS (energies));
      l->u.memory.update_energy = pickd (r, energies, G_N_ELEMENTS (energies));
      if (g_rand_boolean (r))
        l->u.memory.drains_read = FALSE;
      else
        l->u.memory.drain_energy = pickd (r, energies, G_N_ELEMENTS (energies));
    }
}

static void
random_fanout (GRand *r, FfmArch *a, const char *name)
{
  static const char *const reuse_sets[] = { NULL, NULL, "nothing", "inputs",
                                            "outputs" };
  FfmLevel *l = ffm_arch_add_fanout (a, name);
  FfmFanoutDim *dim = ffm_level_add_fanout_dim (l, "d0", g_rand_int_range (r, 2, 5));
  const char *set = reuse_sets[g_rand_int_range (r, 0, G_N_ELEMENTS (reuse_sets))];

  dim->may_reuse = g_strdup (set);
  if (g_rand_double (r) < 0.2)
    dim->min_usage = 0.5;
}

/* MainMemory (unbounded), then some of: a GlobalBuffer, a fanout (always
 * with @fanout, if @max_extra allows), a LocalBuffer, a fanout (at most
 * @max_extra levels besides the GlobalBuffer); then the MAC. Capacities
 * tight or loose. */
static FfmArch *
random_arch (GRand *r, guint max_extra, gboolean fanout, guint *extra)
{
  static const double sizes[] = { 24, 48, 96, 160, 256, 512, 4096 };
  FfmArch *a = ffm_arch_new ("random");
  g_autoptr (GError) error = NULL;
  gboolean glb = g_rand_double (r) < 0.85;
  FfmLevel *mac;

  *extra = 0;
  random_memory (r, a, "MainMemory", INFINITY);
  /* Off-chip memory holds the workload's inputs and outputs; an
   * intermediate may stay off chip or be fused on chip. */
  {
    FfmLevel *mm = (FfmLevel *) ffm_arch_get_level (a, 0);
    mm->u.memory.keep = g_strdup ("all - intermediates");
    mm->u.memory.may_keep = g_strdup ("all");
  }
  if (glb)
    random_memory (r, a, "GlobalBuffer", pickd (r, sizes, G_N_ELEMENTS (sizes)));
  if (*extra < max_extra && (fanout || g_rand_double (r) < 0.45))
    {
      random_fanout (r, a, "PE");
      (*extra)++;
    }
  if (*extra < max_extra && g_rand_double (r) < 0.4)
    {
      random_memory (r, a, "LocalBuffer", pickd (r, sizes, 4));
      (*extra)++;
    }
  if (*extra < max_extra && g_rand_double (r) < 0.2)
    {
      random_fanout (r, a, "Lane");
      (*extra)++;
    }
  mac = ffm_arch_add_compute (a, "MAC");
  mac->u.compute.energy = 1;
  mac->u.compute.throughput = pickd (r, (const double[]) { 1, 2 }, 2);
  mac->leak_power = g_rand_double (r) < 0.8 ? 0 : 0.25;
  g_assert_true (ffm_arch_finish (a, &error));
  g_assert_no_error (error);
  return a;
}

void
random_problem_make (guint64 seed, FfmWorkload **workload, FfmArch **arch,
                     int *max_fused_loops)
{
  random_problem_make_imperfect (seed, FFM_IMPERFECT_NONE, workload, arch,
                                 max_fused_loops);
}

void
random_problem_make_imperfect (guint64 seed, guint imperfect,
                               FfmWorkload **workload, FfmArch **arch,
                               int *max_fused_loops)
{
  g_autoptr (GRand) r = g_rand_new_with_seed ((guint32) seed);
  int kind = g_rand_int_range (r, 0, 9);
  int n_einsums = kind <= 3 ? pick (r, (const int[]) { 2, 2, 3, 4 }, 4) : 3;
  guint extra = 0;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  /* with remainder tiles mostly a fanout: where they fill it (no draw
   * without them: the same problems as before for the same seeds) */
  *arch = random_arch (r, (guint) MAX (0, 4 - n_einsums),
                       imperfect != FFM_IMPERFECT_NONE && g_rand_double (r) < 0.8,
                       &extra);
  text = random_workload_text (r, kind, n_einsums, extra, imperfect);
  *workload = ffm_workload_load_from_data (text, "random", NULL, &error);
  g_assert_no_error (error);
  *max_fused_loops = seed % 3 == 0 ? 2 : 1;
}

/* An attention block: sizes 1, 2 or 4 on the sequence ranks (two fused
 * loops of one rank variable need 4), 1 or 2 elsewhere. */
static char *
attention_text (GRand *r)
{
  static const int small[] = { 1, 2, 2 }, seq[] = { 1, 2, 4 };
  GString *s = g_string_new ("{\"ffm_workload\": 1, \"name\": \"attention\", ");

  g_string_append_printf (s, "\"ranks\": {\"B\": %d, \"H\": %d, \"M\": %d, "
                          "\"P\": %d, \"E\": %d, \"F\": %d}, ",
                          pick (r, small, 3), pick (r, small, 3), pick (r, seq, 3),
                          pick (r, seq, 3), pick (r, small, 3), pick (r, small, 3));
  g_string_append_printf (s, "\"bits_per_value\": {\"all\": %d}, ",
                          g_rand_boolean (r) ? 8 : 4);
  g_string_append (s, "\"einsums\": ["
                   "\"QK[b,h,m,p] = Q[b,h,m,e] * K[b,h,p,e]\", "
                   "\"S[b,h,m,p] = QK[b,h,m,p]\", "
                   "\"AV[b,h,m,f] = S[b,h,m,p] * V[b,h,p,f]\"]}");
  return g_string_free (s, FALSE);
}

void
random_problem_make_fused (guint64 seed, FfmWorkload **workload, FfmArch **arch)
{
  g_autoptr (GRand) r = g_rand_new_with_seed ((guint32) seed ^ 0x5eedf00du);
  int kind = g_rand_int_range (r, 0, 5);
  guint extra = 0;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  *arch = random_arch (r, kind >= 3 ? 0 : 1, FALSE, &extra);
  if (kind == 4)        /* two matmuls, long rows: two fused loops over m */
    text = g_strdup_printf ("{\"ffm_workload\": 1, \"name\": \"rows\", "
                            "\"ranks\": {\"M\": %d, \"N0\": %d, \"N1\": 2, \"N2\": %d}, "
                            "\"bits_per_value\": {\"all\": 8}, \"einsums\": ["
                            "\"T1[m,n1] = T0[m,n0] * W0[n0,n1]\", "
                            "\"T2[m,n2] = T1[m,n1] * W1[n1,n2]\"]}",
                            g_rand_boolean (r) ? 8 : 4, g_rand_int_range (r, 1, 3),
                            g_rand_int_range (r, 1, 3));
  else if (kind == 0)        /* a chain of 2 or 3 matmuls */
    text = random_workload_text (r, 0, g_rand_int_range (r, 2, 4), extra,
                                 FFM_IMPERFECT_NONE);
  else if (kind == 1)   /* a DAG: element-wise, skip, fork, join, copy */
    text = random_workload_text (r, g_rand_int_range (r, 4, 9), 3, extra,
                                 FFM_IMPERFECT_NONE);
  else
    text = attention_text (r);
  *workload = ffm_workload_load_from_data (text, "random", NULL, &error);
  g_assert_no_error (error);
}
