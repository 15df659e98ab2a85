/* merge.c: one merge of the FFM join: the rules (ffm-join.h) applied to
 * a left group's key and a right unit, the key of the result, and the row
 * arithmetic of reservations (docs/ffm-search.md, "The FFM join").
 *
 * Per tracked memory, Einsum x hangs at depth s = the left key's spine:
 * the left's reservations at depth < s stay on the open path, the rest
 * closes into a branch hanging at depth s; the right's reservations at
 * depth < s also lie over the closed branches hanging deeper than them; a
 * tile both sides hold above the split is counted once; a tile live across
 * x that x does not use is reserved again at depth s. Totals are kept less
 * their capacity, so a row fits iff none is above 0.
 *
 * [1] the reference implementation (accelforge); the FFM paper §5. */
#include "join-private.h"

#include <math.h>
#include <string.h>

/* ---- Keys ---- */

static void
bytes_add (GByteArray *b, const void *data, gsize size)
{
  g_byte_array_append (b, data, (guint) size);
}

static void
key_loops_bytes (GByteArray *b, const KeyLoop *loops, guint n)
{
  bytes_add (b, &n, sizeof n);
  for (guint d = 0; d < n; d++)
    {
      bytes_add (b, &loops[d].count, sizeof (guint64));
      bytes_add (b, &loops[d].tile, sizeof (guint64));
      bytes_add (b, &loops[d].spatial, sizeof (int));
      bytes_add (b, &loops[d].fanout_level, sizeof (int));
      bytes_add (b, &loops[d].fanout_dim, sizeof (int));
    }
}

/* What a tensor's users must agree on (ffm-join.h). */
static void
live_backing_bytes (GByteArray *b, const KeyLive *l)
{
  bytes_add (b, &l->tensor, sizeof (guint));
  bytes_add (b, &l->level, sizeof (int));
  bytes_add (b, &l->persistent, sizeof (int));
  bytes_add (b, &l->depth, sizeof (guint));
  bytes_add (b, &l->bits, sizeof (double));
  bytes_add (b, l->ranks, sizeof (int) * l->depth);
}

/* Starts a key in @scratch: room for its header. */
static void
byte_key_begin (GByteArray *scratch)
{
  g_byte_array_set_size (scratch, sizeof (ByteKey));
}

/* Ends the key in @scratch: its length and hash (FNV-1a over 32-bit words:
 * every field is 4 or 8 bytes, so keys are whole words). */
static const ByteKey *
byte_key_end (GByteArray *scratch)
{
  ByteKey *k = (ByteKey *) scratch->data;
  const guint8 *d = k->data;
  guint len = scratch->len - (guint) sizeof (ByteKey);
  guint32 h = FFM_FNV1A32_INIT;

  for (guint i = 0; i + 4 <= len; i += 4)
    {
      guint32 w;
      memcpy (&w, d + i, 4);
      h = ffm_fnv1a32_word (h, w);
    }
  h = ffm_fnv1a32 (h, d + (len & ~3u), len & 3u);
  k->hash = h ^ (h >> 15);
  k->len = len;
  return k;
}

guint
join_byte_key_hash (gconstpointer key)
{
  return ((const ByteKey *) key)->hash;
}

gboolean
join_byte_key_equal (gconstpointer a, gconstpointer b)
{
  const ByteKey *x = a, *y = b;

  return x->hash == y->hash && x->len == y->len
    && memcmp (x->data, y->data, x->len) == 0;
}

ByteKey *
join_byte_key_copy (const ByteKey *k)
{
  return g_memdup2 (k, sizeof (ByteKey) + k->len);
}

const ByteKey *
join_key_bytes (const JoinKey *k, GByteArray *scratch)
{
  byte_key_begin (scratch);
  key_loops_bytes (scratch, k->spine, k->n_spine);
  bytes_add (scratch, &k->n_live, sizeof (guint));
  for (guint i = 0; i < k->n_live; i++)
    {
      const KeyLive *l = &k->live[i];
      live_backing_bytes (scratch, l);
      bytes_add (scratch, &l->produced, sizeof (int));
      bytes_add (scratch, &l->dep_depth, sizeof (guint));
      if (l->produced)
        bytes_add (scratch, l->dep_ranks, sizeof (int) * l->dep_depth);
      bytes_add (scratch, &l->last_use, sizeof (guint));
      bytes_add (scratch, &l->open_copy, sizeof (guint));
    }
  return byte_key_end (scratch);
}

const KeyLive *
join_key_find (const JoinKey *k, guint tensor)
{
  for (guint i = 0; i < k->n_live; i++)
    if (k->live[i].tensor == tensor)
      return &k->live[i];
  return NULL;
}

/* ---- Matching ---- */

/* The part of a key that the right unit must equal: the first @s spine
 * loops and the backing of the tensors @before. */
const ByteKey *
join_match_bytes (guint s, const KeyLoop *loops, const KeyLive *const *tensors,
                  guint n, GByteArray *scratch)
{
  byte_key_begin (scratch);
  key_loops_bytes (scratch, loops, s);
  for (guint i = 0; i < n; i++)
    live_backing_bytes (scratch, tensors[i]);
  return byte_key_end (scratch);
}

void
join_compat_loop (const FfmCompatLoop *c, KeyLoop *k)
{
  k->count = c->count;
  k->tile = c->tile;
  k->spatial = c->spatial ? 1 : 0;
  k->fanout_level = c->fanout_level;
  k->fanout_dim = c->fanout_dim;
}

/* What a right unit offers for tensor @t of its compat: its backing, with
 * plain ranks; FALSE if a loop above the backing does not walk one rank. */
gboolean
join_unit_live (const Unit *u, guint t, KeyLive *out)
{
  const FfmCompatTensor *ct = &u->compat->tensors[t];

  memset (out, 0, sizeof *out);
  out->tensor = ct->tensor;
  out->level = (int) ct->backing_level;
  out->persistent = ct->persistent ? 1 : 0;
  out->depth = ct->n_loops;
  out->bits = u->unbounded[t] ? 0 : ct->backing_bits;
  for (guint d = 0; d < ct->n_loops; d++)
    {
      out->ranks[d] = u->ranks[d][ct->access];
      if (out->ranks[d] < 0)
        return FALSE;
    }
  out->open_copy = NONE;
  return TRUE;
}

int
join_compat_find (const FfmCompatibility *c, guint tensor)
{
  for (guint t = 0; t < c->n_tensors; t++)
    if (c->tensors[t].tensor == tensor)
      return (int) t;
  return -1;
}

/* The match key a left key @k presents to step @st. */
const ByteKey *
join_left_match_bytes (const Step *st, const JoinKey *k, GByteArray *scratch)
{
  const KeyLive *ptrs[MAX_LIVE];

  for (guint i = 0; i < st->before->len; i++)
    {
      ptrs[i] = join_key_find (k, g_array_index (st->before, guint, i));
      if (ptrs[i] == NULL)
        return NULL;
    }
  return join_match_bytes (k->n_spine, k->spine, ptrs, st->before->len, scratch);
}

/* ---- Planning one merge ---- */

static int
mem_index (const JoinProblem *p, int level)
{
  for (guint m = 0; m < p->n_mem; m++)
    if ((int) p->mem_level[m] == level)
      return (int) m;
  return -1;
}

/* Checks a left tensor against the right unit that uses it (compat entry
 * @t), ffm-join.h's dependency and copy rules. */
static gboolean
check_live (const JoinProblem *p, const Step *st, const Unit *u, guint s,
            const KeyLive *l, guint t)
{
  const FfmCompatTensor *ct = &u->compat->tensors[t];

  if (l->produced && ct->access != st->e->output_access)
    {
      guint m = MIN (l->dep_depth, s);
      for (guint d = 0; d < m; d++)
        if (u->ranks[d][ct->access] < 0 || u->ranks[d][ct->access] != l->dep_ranks[d])
          return FALSE;
    }
  if (l->open_copy != NONE && l->open_copy < s)
    return FALSE;
  if (u->copy[t] != NONE && MIN (l->last_use, s) > u->copy[t])
    return FALSE;
  return TRUE;
}

/* The result key's entry for tensor @tensor, live after Einsum x. */
static gboolean
next_live (const Step *st, const Unit *u, const KeyLive *l, guint tensor,
           guint s, KeyLive *out)
{
  int t = join_compat_find (u->compat, tensor);

  if (l != NULL)
    {
      *out = *l;
      out->dep_depth = MIN (l->dep_depth, s);
      out->last_use = t >= 0 ? NONE : MIN (l->last_use, s);
      out->open_copy = l->open_copy < s ? l->open_copy : NONE;
    }
  else
    {
      if (t < 0 || !join_unit_live (u, (guint) t, out))
        return FALSE;
      out->produced = u->compat->tensors[t].access == st->e->output_access;
      out->dep_depth = out->produced ? NONE : 0;
      out->last_use = NONE;
    }
  if (t >= 0 && u->copy[t] != NONE)
    out->open_copy = MIN (out->open_copy, u->copy[t]);
  return TRUE;
}

/* Caps depth fields at the new spine @S (every later comparison is with
 * depths <= S) and fills the producer's ranks for a tensor x produces. */
static void
normalize_live (const Unit *u, const Step *st, guint S, KeyLive *l)
{
  if (l->produced && l->dep_depth == NONE)
    {
      l->dep_depth = S;
      for (guint d = 0; d < S; d++)
        l->dep_ranks[d] = u->ranks[d][st->e->output_access];
    }
  l->dep_depth = MIN (l->dep_depth, S);
  if (!l->produced)
    l->dep_depth = 0;
  l->last_use = MIN (l->last_use, S);
  if (l->open_copy != NONE && l->open_copy >= S)
    l->open_copy = NONE;
}

gboolean
join_plan_merge (const JoinProblem *p, const Step *st, const JoinKey *k,
            const Unit *u, Plan *plan)
{
  const FfmCompatibility *c = u->compat;
  JoinKey *nk = &plan->key;
  guint s = k->n_spine, S = 0;

  if (c->n_loops < s)
    return FALSE;
  plan->s = s;
  memset (plan->ded, 0, sizeof plan->ded);
  memset (plan->readd, 0, sizeof plan->readd);
  for (guint i = 0; i < k->n_live; i++)
    {
      const KeyLive *l = &k->live[i];
      int t = join_compat_find (c, l->tensor);
      int m = mem_index (p, l->level);
      if (t >= 0)
        {
          int depth = l->persistent ? -1 : (int) l->depth;
          if (!check_live (p, st, u, s, l, (guint) t))
            return FALSE;
          if (m >= 0 && depth < (int) s)
            for (int d = depth; d < (int) s; d++)
              plan->ded[m][d + 1] += l->bits;
        }
      else if (m >= 0 && !l->persistent && l->depth == s)
        plan->readd[m] += l->bits;
    }
  /* The new key: the tensors live after x, the loops they need. */
  nk->n_live = st->live_after->len;
  for (guint i = 0; i < nk->n_live; i++)
    {
      guint tensor = g_array_index (st->live_after, guint, i);
      if (!next_live (st, u, join_key_find (k, tensor), tensor, s, &nk->live[i]))
        return FALSE;
      if (!nk->live[i].persistent)
        S = MAX (S, nk->live[i].depth);
    }
  if (S > c->n_loops)
    return FALSE;
  nk->n_spine = S;
  for (guint d = 0; d < S; d++)
    join_compat_loop (join_unit_loop (u, d), &nk->spine[d]);
  for (guint i = 0; i < nk->n_live; i++)
    normalize_live (u, st, S, &nk->live[i]);
  return TRUE;
}

/* ---- Rows ---- */

guint
join_row_width (const JoinProblem *p, guint spine)
{
  return p->n_obj + p->n_mem * (2 * spine + 3);
}

/* One combined row; FALSE if it does not fit. */
gboolean
join_combine_row (const JoinProblem *p, const Plan *plan, const Unit *u,
             const double *L, const double *R, double *N)
{
  guint s = plan->s, S = plan->key.n_spine, F = u->n_fused;
  guint lw = 2 * s + 3, nw = 2 * S + 3, rw = F + 2;

  for (guint k = 0; k < p->n_obj; k++)
    N[k] = L[k] + R[k];
  for (guint m = 0; m < p->n_mem; m++)
    {
      const double *rl = L + p->n_obj + m * lw, *ll = rl + s + 2;
      const double *c = R + p->n_obj + m * rw, *ded = plan->ded[m];
      double *rn = N + p->n_obj + m * nw, *ln = rn + S + 2;
      double inh = rl[s], dd = ded[s], readd = plan->readd[m];
      double closed, total, fold;

      /* r[d] for d = -1 .. S-1 (index d + 1), then the open total. */
      for (guint i = 0; i <= S; i++)
        rn[i] = i <= s ? rl[i] + c[i] - ded[i] : inh + c[i] - dd + readd;
      total = inh + c[F + 1] - dd + readd - u->size[m];
      if (total > 0)
        return FALSE;
      rn[S + 1] = total;
      /* Closed branches: at depth d < s, and the left's open branch at s. */
      closed = MAX (ll[s], rl[s + 1]) + c[s] - ded[s];
      if (closed > 0)
        return FALSE;
      fold = -INFINITY;
      for (guint d = 0; d <= s; d++)
        {
          double v = d < s ? ll[d] + c[d] - ded[d] : closed;
          if (v > 0)
            return FALSE;
          if (d < S)
            ln[d] = v;
          else
            fold = MAX (fold, v);
        }
      for (guint d = s + 1; d < S; d++)
        ln[d] = -INFINITY;
      ln[S] = S <= s ? fold : -INFINITY;
    }
  return TRUE;
}

