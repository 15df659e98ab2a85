/* ffm-pmapping-tiles-units.c: partial dominance's setup for one
 * template and one search order (ffm-pmapping-tiles.c): the cost terms'
 * monomials grouped into units per depth, each chain's factors, the
 * gather lists that sum a row's units into its children's, the slots the
 * groups compare of a complete row, and the greedy order of the
 * variables. */
#include "ffm-pmapping-private.h"
#include <ffm/ffm-hash.h>

#include <math.h>
#include <string.h>

typedef struct {
  int cls;
  guint desc[MAX_VARS];     /* descriptor per depth's variable */
} UnitKey;

/* Descriptor of term @t for variable @v: its mask restricted to v's
 * loops and its tile position. */
static guint
intern_desc (GArray *descs, guint64 mask, int pos)
{
  for (guint i = 0; i < descs->len; i += 2)
    if (g_array_index (descs, guint64, i) == mask
        && (int) (gint64) g_array_index (descs, guint64, i + 1) == pos)
      return i / 2;
  g_array_append_val (descs, mask);
  {
    guint64 p = (guint64) (gint64) pos;
    g_array_append_val (descs, p);
  }
  return descs->len / 2 - 1;
}

static guint
hash_unit_key (const UnitKey *key)
{
  return ffm_fnv1a32 (FFM_FNV1A32_INIT, key, sizeof *key);
}

/* Numbers the distinct keys among @keys in order of first appearance
 * (@ids[i]: key i's number); returns how many there are. An open
 * addressing table of positions: tiles_setup_units() runs for every template
 * and order, and GBytes keys in a GHashTable took 8 % of a matmul
 * chain's instructions. */
static guint
number_keys (const UnitKey *keys, guint n, guint *ids)
{
  gsize size = 16;
  guint count = 0;
  g_autofree guint *slot = NULL;    /* key index + 1; 0: empty */

  while (size < 2 * (gsize) n)
    size *= 2;
  slot = g_new0 (guint, size);
  for (guint i = 0; i < n; i++)
    for (gsize h = hash_unit_key (&keys[i]) & (size - 1); ; h = (h + 1) & (size - 1))
      {
        if (slot[h] == 0)
          {
            slot[h] = i + 1;
            ids[i] = count++;
            break;
          }
        if (memcmp (&keys[slot[h] - 1], &keys[i], sizeof (UnitKey)) == 0)
          {
            ids[i] = ids[slot[h] - 1];
            break;
          }
      }
  return count;
}

/* Number of units when the variables in @assigned are chosen: terms
 * grouped by class and by their descriptors of the other variables. */
static guint
count_units (const FfmTileSearch *en, const guint *desc, guint n_terms,
             guint64 assigned)
{
  g_autofree UnitKey *keys = g_new0 (UnitKey, MAX (n_terms, 1));
  g_autofree guint *ids = g_new (guint, MAX (n_terms, 1));

  for (guint i = 0; i < n_terms; i++)
    {
      const FfmTerm *term = &g_array_index (en->terms->terms, FfmTerm, i);
      keys[i].cls = term->cls;
      for (guint v = 0; v < en->n_vars; v++)
        if (!(assigned & (G_GUINT64_CONSTANT (1) << v)))
          keys[i].desc[v] = desc[(gsize) i * en->n_vars + v];
    }
  return number_keys (keys, n_terms, ids);
}

/* The first position in @order of a variable of the most chains. */
guint
tiles_most_chains_position (const FfmTileSearch *en, const guint *order)
{
  guint m = 0;

  for (guint q = 1; q < en->n_vars; q++)
    if (en->n_live_chains[order[q]] > en->n_live_chains[order[m]])
      m = q;
  return m;
}

/* TUNING: the search order is greedy: next comes the variable whose
 * choice leaves the fewest units (the more terms merge, the more partial
 * vectors compare), ties to fewer chains. Tried on GPT-3 V / TPUv4i:
 * fewest chains first and most chains first both take over 120 s where
 * greedy takes 22 s. */
static void
choose_order (FfmTileSearch *en, const guint *desc, guint n_terms, gboolean chains_last)
{
  guint64 assigned = 0, fused_vars = 0;
  guint order[MAX_VARS] = { 0 };
  guint k = 0;

  /* Variables of one chain (bound 1, or tiles fixed by constraints) first:
   * each is a depth of one row, instead of a pass over a large table that
   * only copies it. */
  for (guint v = 0; v < en->n_vars; v++)
    if (en->n_chains[v] == 1)
      {
        order[k++] = v;
        assigned |= G_GUINT64_CONSTANT (1) << v;
      }
  /* The Einsum front reaches the template (einsum_front_reaches()): the
   * variables of fused loops first, greedily among themselves. */
  if (en->fused_first)
    for (guint j = 0; j < en->n_fused; j++)
      fused_vars |= G_GUINT64_CONSTANT (1) << en->loops[j].rank_var;
  for (; k < en->n_vars; k++)
    {
      int best = -1;
      guint best_units = 0;
      gboolean fused_left = (fused_vars & ~assigned) != 0;
      for (guint v = 0; v < en->n_vars; v++)
        {
          guint units;
          if (assigned & (G_GUINT64_CONSTANT (1) << v))
            continue;
          if (fused_left && !(fused_vars & (G_GUINT64_CONSTANT (1) << v)))
            continue;
          units = count_units (en, desc, n_terms, assigned | (G_GUINT64_CONSTANT (1) << v));
          if (best < 0 || units < best_units
              || (units == best_units && en->n_live_chains[v] < en->n_live_chains[best]))
            {
              best = v;
              best_units = units;
            }
        }
      order[k] = (guint) best;
      assigned |= G_GUINT64_CONSTANT (1) << best;
    }
  if (chains_last && en->n_vars > 1)
    {
      /* The alternative (choose_search_order()): the variable of most
       * chains moves last, where its rows are only sorted and compared by
       * the few quantities the groups keep (tiles_search_leaves()). */
      guint m = tiles_most_chains_position (en, order), v;
      v = order[m];
      memmove (order + m, order + m + 1, sizeof (guint) * (en->n_vars - 1 - m));
      order[en->n_vars - 1] = v;
    }
  tiles_set_order (en, order);
}

/* What the groups compare of a complete row, from its units (one per
 * class at the last depth): the energy units' sum (dynamic energy; leak
 * only adds a non-negative multiple of the latency), the latency units'
 * largest (the latency, but for the compute unit's, equal for rows of one
 * diff, or counted among the units with remainders), and each occupancy
 * unit of a memory whose reservations the groups carry (a reservation
 * column is a sum of them over lifetime classes). The occupancy units of
 * the other memories only decide whether a row fits. */
static void
setup_leaf_slots (FfmTileSearch *en)
{
  guint nu = en->n_units[en->n_vars], n = 0;
  guint energy = G_MAXUINT, latency = G_MAXUINT;

  en->leaf_slot = g_new (guint, MAX (nu, 1));
  en->leaf_slot_max = g_new0 (guint8, MAX (nu, 1));
  for (guint u = 0; u < nu; u++)
    {
      const FfmTermClass *c = &g_array_index (en->terms->classes, FfmTermClass,
                                              en->leaf_unit_class[u]);
      en->leaf_slot[u] = G_MAXUINT;
      if (c->kind == FFM_TERM_ENERGY)
        {
          if (energy == G_MAXUINT)
            energy = n++;
          en->leaf_slot[u] = energy;
        }
      else if (c->kind == FFM_TERM_LATENCY)
        {
          if (latency == G_MAXUINT)
            {
              latency = n++;
              en->leaf_slot_max[latency] = TRUE;
            }
          en->leaf_slot[u] = latency;
        }
      else
        for (guint k = 0; k < en->info.n_memories; k++)
          if (en->info.memories[k] == c->level)
            en->leaf_slot[u] = n++;
    }
  en->n_leaf_slots = n;
}

/* gather_unit, gather_desc and gather_start of depth @k (their comment
 * in FfmTileSearch): a counting sort of depth k's units by their next unit. */
static void
setup_gather (FfmTileSearch *en, guint k)
{
  guint nu = en->n_units[k], nu2 = en->n_units[k + 1];
  guint *start = g_new0 (guint, (gsize) nu2 + 1);
  guint *at = g_new (guint, MAX (nu2, 1));

  en->gather_unit[k] = g_new (guint, MAX (nu, 1));
  en->gather_desc[k] = g_new (guint, MAX (nu, 1));
  for (guint u = 0; u < nu; u++)
    start[en->unit_next[k][u] + 1]++;
  for (guint to = 0; to < nu2; to++)
    {
      start[to + 1] += start[to];
      at[to] = start[to];
    }
  for (guint u = 0; u < nu; u++)
    {
      guint i = at[en->unit_next[k][u]]++;
      en->gather_unit[k][i] = u;
      en->gather_desc[k][i] = en->unit_desc[k][u];
    }
  en->gather_start[k] = start;
  g_free (at);
}

/* Frees what tiles_setup_units() made for one search order. */
void
tiles_free_units (FfmTileSearch *en)
{
  for (guint k = 0; k < MAX_VARS; k++)
    {
      g_clear_pointer (&en->unit_next[k], g_free);
      g_clear_pointer (&en->unit_desc[k], g_free);
      g_clear_pointer (&en->gather_unit[k], g_free);
      g_clear_pointer (&en->gather_desc[k], g_free);
      g_clear_pointer (&en->gather_start[k], g_free);
      en->phi[k] = NULL;    /* borrowed */
    }
  for (guint k = 0; k <= MAX_VARS; k++)
    g_clear_pointer (&en->unit_lex[k], g_free);
  g_clear_pointer (&en->unit_init, g_free);
  g_clear_pointer (&en->leaf_unit_class, g_free);
  g_clear_pointer (&en->leaf_slot, g_free);
  g_clear_pointer (&en->leaf_slot_max, g_free);
  g_clear_pointer (&en->bucket_group_first, g_free);
  g_clear_pointer (&en->chain_group, g_free);
  g_clear_pointer (&en->group_chain, g_free);
  g_clear_pointer (&en->group_phi, g_free);
  g_clear_pointer (&en->group_slot_exact, g_free);
  g_clear_pointer (&en->group_cut, g_free);
  g_clear_pointer (&en->group_record, g_free);
  g_clear_pointer (&en->group_record_stamp, g_free);
}

/* The search order (choose_order(): greedy, or with @chains_last its
 * alternative) and the comparison units of each depth in that order. */
gboolean
tiles_setup_units (FfmTileSearch *en, gboolean chains_last)
{
  const FfmTerms *t = en->terms;
  guint n_terms = t->terms->len, n = en->n_vars;
  g_autofree guint *vdesc = g_new0 (guint, (gsize) MAX (n_terms, 1) * MAX (n, 1));
  g_autofree guint *desc = g_new0 (guint, (gsize) MAX (n_terms, 1) * MAX (n, 1));
  g_autofree guint *unit = g_new0 (guint, MAX (n_terms, 1));
  g_autofree guint *next_unit = g_new0 (guint, MAX (n_terms, 1));
  g_autofree UnitKey *keys = g_new (UnitKey, MAX (n_terms, 1));
  GArray *descs[MAX_VARS];
  /* Energy first, without leak (which makes energy depend on latency):
   * lexicographic dominance (unit_dominates()); otherwise plain dominance,
   * which keeps any tie-break too. */
  gboolean lex_energy = (en->opt->objectives & FFM_PMAPPING_ENERGY_FIRST)
    && !t->leak;

  /* Descriptors per variable, then the order, then factors per depth. */
  for (guint v = 0; v < n; v++)
    {
      guint64 vmask = 0;
      descs[v] = g_array_new (FALSE, FALSE, sizeof (guint64));
      for (guint i = 0; i < en->var_n_loops[v]; i++)
        vmask |= G_GUINT64_CONSTANT (1) << en->var_loops[v][i];
      for (guint i = 0; i < n_terms; i++)
        {
          const FfmTerm *term = &g_array_index (t->terms, FfmTerm, i);
          vdesc[(gsize) i * n + v] = intern_desc (descs[v], term->mask & vmask,
                                                  term->pos[v] >= 0 ? term->pos[v] : -1);
        }
    }
  choose_order (en, vdesc, n_terms, chains_last);
  for (guint k = 0; k < n; k++)
    {
      guint v = en->order[k];
      guint k_chains = en->n_chains[v];

      for (guint i = 0; i < n_terms; i++)
        desc[(gsize) i * n + k] = vdesc[(gsize) i * n + v];
      en->n_desc[k] = descs[v]->len / 2;
      if (en->var_phi[v] == NULL)
        {
          en->var_phi[v] = g_new (double, (gsize) MAX (k_chains, 1) * MAX (en->n_desc[k], 1));
          /* Each descriptor's column of factors (exact with remainder
           * tiles too), shared with the templates of the same chains. */
          for (guint d = 0; d < en->n_desc[k]; d++)
            {
              guint64 mask = g_array_index (descs[v], guint64, 2 * d);
              int pos = (int) (gint64) g_array_index (descs[v], guint64, 2 * d + 1);
              tiles_chains_factors (en, v, mask, pos, en->var_phi[v] + d, en->n_desc[k]);
            }
        }
      en->phi[k] = en->var_phi[v];
    }
  for (guint v = 0; v < n; v++)
    g_array_free (descs[v], TRUE);

  /* Units per depth: terms with the same class and the same descriptors
   * for the variables not chosen yet. */
  for (guint k = 0; k <= n; k++)
    {
      memset (keys, 0, sizeof (UnitKey) * MAX (n_terms, 1));
      for (guint i = 0; i < n_terms; i++)
        {
          const FfmTerm *term = &g_array_index (t->terms, FfmTerm, i);
          keys[i].cls = term->cls;
          for (guint q = k; q < n; q++)
            keys[i].desc[q] = desc[(gsize) i * n + q];
        }
      en->n_units[k] = number_keys (keys, n_terms, next_unit);
      if (lex_energy)
        {
          en->unit_lex[k] = g_new0 (guint8, MAX (en->n_units[k], 1));
          for (guint i = 0; i < n_terms; i++)
            {
              const FfmTerm *term = &g_array_index (t->terms, FfmTerm, i);
              FfmTermClassKind kind = g_array_index (t->classes, FfmTermClass,
                                                     term->cls).kind;
              en->unit_lex[k][next_unit[i]] = kind == FFM_TERM_ENERGY ? LEX_ENERGY
                : kind == FFM_TERM_LATENCY ? LEX_LATENCY : LEX_OTHER;
            }
        }
      if (k == 0)
        {
          en->unit_init = g_new0 (double, 2 * (gsize) MAX (en->n_units[0], 1));
          for (guint i = 0; i < n_terms; i++)
            {
              const FfmTerm *term = &g_array_index (t->terms, FfmTerm, i);
              en->unit_init[2 * next_unit[i]] += term->coef;
              en->unit_init[2 * next_unit[i] + 1] += fabs (term->coef);
            }
        }
      else
        {
          en->unit_next[k - 1] = g_new (guint, MAX (en->n_units[k - 1], 1));
          en->unit_desc[k - 1] = g_new (guint, MAX (en->n_units[k - 1], 1));
          for (guint i = 0; i < n_terms; i++)
            {
              en->unit_next[k - 1][unit[i]] = next_unit[i];
              en->unit_desc[k - 1][unit[i]] = desc[(gsize) i * n + (k - 1)];
            }
          setup_gather (en, k - 1);
        }
      if (k == n)
        {
          en->leaf_unit_class = g_new0 (guint, MAX (en->n_units[n], 1));
          for (guint i = 0; i < n_terms; i++)
            en->leaf_unit_class[next_unit[i]] =
              (guint) g_array_index (t->terms, FfmTerm, i).cls;
          setup_leaf_slots (en);
        }
      memcpy (unit, next_unit, sizeof (guint) * n_terms);
    }
  en->n_diff = en->n_fused + en->n_dims;
  if (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    {
      GString *text = g_string_new (NULL);
      for (guint c = 0; c < t->classes->len; c++)
        {
          const FfmTermClass *k = &g_array_index (t->classes, FfmTermClass, c);
          g_string_append_printf (text, " %c%u.%d", "?ELO"[k->kind], k->level, k->nla);
        }
      g_debug ("template %u: %u terms, classes%s; units per depth:", en->t->id,
               n_terms, text->str);
      g_string_free (text, TRUE);
    }
  return TRUE;
}
