/* ffm-pmapping-signature.c: when two Einsums have the same pmappings.
 *
 * Workloads repeat shapes: GPT's V, K and Q projections are one matmul
 * three times, a matmul chain cycles through four shapes, an MoE layer has
 * one shape per expert. The generator's output for an Einsum is a function
 * of what it reads of the Einsum and of the architecture for that Einsum;
 * the signature below writes all of it down, with tensors named by access
 * index and rank variables by position:
 *   - the Einsum: rank-variable bounds, copy flag, and per access its
 *     projections, output flag, roles, and its tensor's rank count, bits
 *     per value and classes (shared, intermediate, persistent);
 *   - every Einsum-dependent answer of the architecture (ffm-arch.h, "set
 *     expressions for one Einsum"): each memory's capacity, each access's
 *     bits per value in each memory, which compute units serve it, each
 *     fanout dimension's reuse sets and spatial rank variables;
 *   - its templates, node by node (they hold the outcome of the keep and
 *     may-keep expressions, which depend on the choices above them, and of
 *     every mapping constraint that shapes templates);
 *   - the constraints the templates do not show (fixed tiles, its own
 *     fused-loop limit).
 * Everything else the generator reads (level energies, bandwidths, fanout
 * counts, options) is the same for every Einsum of one run. Two Einsums
 * with equal signatures therefore get the same groups, rows and tiles,
 * up to the names of their tensors (FfmCompatTensor.tensor) and the Einsum
 * index in the compatibility, which the driver renames. tests/
 * test-pmapping.c checks reuse against fresh generation. */
#include "ffm-pmapping-private.h"


static void
append_mask (GString *s, char tag, guint64 mask)
{
  g_string_append_printf (s, "%c%" G_GINT64_MODIFIER "x,", tag, mask);
}

static void
append_einsum (GString *s, const FfmWorkload *w, const FfmEinsum *e)
{
  g_string_append_printf (s, "E%u,%u,%d|", e->n_rank_vars, e->n_accesses,
                          e->is_copy ? 1 : 0);
  for (guint v = 0; v < e->n_rank_vars; v++)
    g_string_append_printf (s, "%" G_GUINT64_FORMAT ",", e->rank_var_bounds[v]);
  for (guint a = 0; a < e->n_accesses; a++)
    {
      const FfmTensorAccess *acc = &e->accesses[a];
      const FfmTensor *t = ffm_workload_get_tensor (w, acc->tensor);
      g_string_append_printf (s, "|A%d,%u,%u,%u,%u:", acc->is_output ? 1 : 0,
                              acc->roles, t->n_ranks, t->bits_per_value,
                              t->classes);
      for (guint r = 0; r < t->n_ranks; r++)
        {
          const FfmProjection *p = &acc->projections[r];
          g_string_append_printf (s, "%" G_GINT64_FORMAT, p->offset);
          for (guint k = 0; k < p->n_terms; k++)
            g_string_append_printf (s, "+%" G_GINT64_FORMAT "v%u",
                                    p->terms[k].coefficient, p->terms[k].var);
          g_string_append_c (s, ';');
        }
    }
}

static gboolean
append_arch (GString *s, const FfmWorkload *w, const FfmArch *a, guint einsum,
             GError **error)
{
  const FfmEinsum *e = ffm_workload_get_einsum (w, einsum);

  for (guint l = 0; l < ffm_arch_get_n_levels (a); l++)
    {
      const FfmLevel *level = ffm_arch_get_level (a, l);
      g_string_append_printf (s, "|L%u:", l);
      switch (level->kind)
        {
        case FFM_LEVEL_MEMORY:
          {
            double bits;
            if (!ffm_arch_memory_size (a, l, w, einsum, &bits, error))
              return FALSE;
            g_string_append_printf (s, "%.17g", bits);
            for (guint k = 0; k < e->n_accesses; k++)
              {
                if (!ffm_arch_bits_per_value (a, l, w, einsum, k, &bits, error))
                  return FALSE;
                g_string_append_printf (s, ",%.17g", bits);
              }
          }
          break;
        case FFM_LEVEL_FANOUT:
          for (guint d = 0; d < level->u.fanout.n_dims; d++)
            {
              guint64 reuse, may_reuse, vars;
              if (!ffm_arch_fanout_reuse_masks (a, l, d, w, einsum, &reuse,
                                                &may_reuse, error)
                  || !ffm_arch_fanout_spatial_vars (a, l, d, w, einsum, &vars, error))
                return FALSE;
              append_mask (s, 'r', reuse);
              append_mask (s, 'm', may_reuse);
              append_mask (s, 'v', vars);
            }
          break;
        case FFM_LEVEL_COMPUTE:
          {
            gboolean enabled;
            if (!ffm_arch_compute_enabled (a, l, w, einsum, &enabled, error))
              return FALSE;
            g_string_append_c (s, enabled ? 'y' : 'n');
          }
          break;
        }
    }
  return TRUE;
}

static void
append_templates (GString *s, const FfmWorkload *w, const FfmEinsum *e,
                  const GPtrArray *templates)
{
  for (guint i = 0; i < templates->len; i++)
    {
      const FfmPmappingTemplate *t = g_ptr_array_index (templates, i);
      g_string_append_printf (s, "|T%u:", t->compute_level);
      for (guint k = 0; k < t->nodes->len; k++)
        {
          const FfmMappingNode *n = g_ptr_array_index (t->nodes, k);
          g_string_append_printf (s, "%d/%s/%d/", n->kind,
                                  n->level != NULL ? n->level : "",
                                  n->persistent ? 1 : 0);
          for (guint x = 0; n->tensors != NULL && n->tensors[x] != NULL; x++)
            {
              int tensor = ffm_workload_find_tensor (w, n->tensors[x]);
              g_string_append_printf (s, "a%d",
                                      tensor >= 0 ? ffm_einsum_find_access (e, (guint) tensor) : -1);
            }
          if (n->rank_var != NULL)
            g_string_append_printf (s, "v%d", ffm_einsum_find_rank_var (e, n->rank_var));
          g_string_append_printf (s, "/%s/%" G_GUINT64_FORMAT ";",
                                  n->dimension != NULL ? n->dimension : "", n->tile);
        }
    }
}

char *
ffm_pmapping_einsum_signature (const FfmWorkload *workload, const FfmArch *arch,
                               guint einsum, const GPtrArray *templates,
                               const FfmEinsumConstraints *constraints,
                               GError **error)
{
  const FfmEinsum *e = ffm_workload_get_einsum (workload, einsum);
  g_autoptr(GString) s = g_string_new (NULL);

  append_einsum (s, workload, e);
  if (!append_arch (s, workload, arch, einsum, error))
    return NULL;
  append_templates (s, workload, e, templates);
  ffm_einsum_constraints_append_signature (constraints, s);
  return g_string_free (g_steal_pointer (&s), FALSE);
}
