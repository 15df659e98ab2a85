/* join.c: the FFM join's steps and passes (join.h).
 *
 * Step x joins the partial mappings of Einsums 0..x-1 (left groups) with
 * the pmappings of Einsum x (right units, units.c). For a left group with
 * key K (spine of S loops) and a right unit u (merge.c):
 *   - matching: u shares K's S loops and agrees on every tensor K carries
 *     that Einsum x uses (found by hashing, ffm-join.h's rules), and passes
 *     the data-dependency and copy rules (plan_merge());
 *   - reservations, per tracked memory (docs/ffm-search.md): Einsum x
 *     hangs at depth s = S; the left's reservations at depth < s stay on
 *     the open path, the rest closes into a branch hanging at depth s; the
 *     right's reservations at depth < s also lie over the closed branches
 *     hanging deeper than them; a tile both sides hold above the split is
 *     counted once; a tile live across x that x does not use is reserved
 *     again at depth s;
 *   - the result goes to the group of its new key, folded to the loops the
 *     next Einsum must share; rows over capacity are dropped, then each
 *     group is Pareto-pruned on objectives and reservations (ffm-pareto.h).
 *
 * [1] the reference implementation (accelforge); the FFM paper §5-§6. */
#include "join-private.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* TUNING: relative slack of the clean pass's bound test: sums computed in
 * another order than the final one may differ in the last bits, and a row
 * must never be dropped for that (1e-12 is far above double rounding). */
#define BOUND_SLACK 1e-12

/* ---- Rows ---- */

/* Provenance of a row: its left row (by id in the previous step's
 * history) and its right row (unit, row in the unit). */
typedef struct {
  guint32 parent;
  guint32 unit;
  guint32 urow;
} Prov;

/* A group of rows with one key. */
typedef struct {
  JoinKey *key;                 /* owned: join_key_size() bytes */
  guint width;
  GArray *values;               /* of double */
  GArray *prov;                 /* of Prov */
  GArray *ids;                  /* of guint32: history ids after pruning */
  guint pruned;                 /* rows at the last exact pruning: the
                                   first this many are a Pareto set */
  FfmMemoryBudget *budget;      /* the join's (borrowed) */
  gsize charged;                /* bytes taken from it */
  guint index;                  /* its place in its step's result, while
                                   the step fills it */
} Group;

/* TUNING: a group's rows are charged to the budget at least this many
 * bytes at a time (few atomic operations; the overshoot is bounded by
 * one left row's products with one unit). */
#define CHARGE_CHUNK ((gsize) 1 << 20)

/* TUNING: an exact pass prunes a group while the step fills it, whenever
 * its rows pass twice those of its last pruning plus this many: memory
 * stays near twice the survivors instead of every combination (Llama-3
 * decode on Simba: 140 M rows of 12 columns at one step, 13 GB), and the
 * survivors of the last pruning are not checked against each other again
 * (ffm_pareto_prune_front()). A first choice, not swept yet.
 * FFM_DEBUG=join-grow-prune-rows sets another number (the optimality test sets 1
 * so that small problems prune while filling too). */
#define GROW_PRUNE_SLACK 262144

/* join_run_items()' hand-over to its pool's threads (join-private.h). */
typedef struct {
  JoinItemJob job;
  gpointer user;
  guint8 *done;                 /* per item: ThreadSanitizer's hand-back */
} Items;

static void
item_worker (gpointer data, gpointer user_data)
{
  Items *items = user_data;
  guint i = GPOINTER_TO_UINT (data) - 1;

  FFM_TSAN_ACQUIRE (items);
  items->job (i, items->user);
  FFM_TSAN_RELEASE (&items->done[i]);
}

/* A job's size, for the largest first. */
typedef struct {
  guint64 size;
  guint index;
} ItemSize;

static int
compare_item_sizes (gconstpointer pa, gconstpointer pb)
{
  const ItemSize *a = pa, *b = pb;

  if (a->size != b->size)
    return a->size > b->size ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index ? 1 : 0);
}

void
join_run_items (guint n_threads, JoinItemJob job, gpointer user, const guint64 *sizes,
                guint n)
{
  g_autofree guint8 *done = NULL;
  g_autofree guint *order = NULL;
  Items items = { job, user, NULL };
  GThreadPool *pool;

  if (n_threads <= 1 || n <= 1)
    {
      for (guint i = 0; i < n; i++)
        job (i, user);
      return;
    }
  if (sizes != NULL)
    {
      g_autofree ItemSize *by_size = g_new (ItemSize, n);
      for (guint i = 0; i < n; i++)
        {
          by_size[i].size = sizes[i];
          by_size[i].index = i;
        }
      qsort (by_size, n, sizeof *by_size, compare_item_sizes);
      order = g_new (guint, n);
      for (guint i = 0; i < n; i++)
        order[i] = by_size[i].index;
    }
  done = g_new0 (guint8, n);
  items.done = done;
  pool = g_thread_pool_new (item_worker, &items, (gint) MIN (n_threads, n), TRUE, NULL);
  /* GLib's queue is invisible to ThreadSanitizer (ffm-tsan.h). */
  FFM_TSAN_RELEASE (&items);
  for (guint i = 0; i < n; i++)
    g_thread_pool_push (pool, GUINT_TO_POINTER ((order != NULL ? order[i] : i) + 1), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
  for (guint i = 0; i < n; i++)
    FFM_TSAN_ACQUIRE (&done[i]);
}

static void
group_free (Group *g)
{
  if (g == NULL)
    return;
  ffm_memory_budget_release (g->budget, g->charged);
  g_free (g->key);
  g_array_free (g->values, TRUE);
  if (g->prov != NULL)
    g_array_free (g->prov, TRUE);
  if (g->ids != NULL)
    g_array_free (g->ids, TRUE);
  g_free (g);
}

/* Lower bound test of the clean pass: TRUE if a row with these objectives
 * (so far) can still reach the bound. */
static gboolean
may_beat_bound (const JoinProblem *p, const JoinPassOptions *o, guint x,
                const double *obj)
{
  double e, l;

  if (!o->bounded)
    return TRUE;
  e = obj[0] + p->rest_energy[x];
  l = obj[1] + p->rest_latency[x];
  switch (o->objective)
    {
    case FFM_OBJECTIVE_ENERGY:
      return e <= o->bound * (1 + BOUND_SLACK);
    case FFM_OBJECTIVE_LATENCY:
      return l <= o->bound * (1 + BOUND_SLACK);
    case FFM_OBJECTIVE_EDP:
      return e * l <= o->bound * (1 + BOUND_SLACK);
    case FFM_OBJECTIVE_PARETO:
    default:
      for (guint i = 0; i < o->n_front; i++)
        if (o->front[2 * i] * (1 + BOUND_SLACK) <= e
            && o->front[2 * i + 1] * (1 + BOUND_SLACK) <= l)
          return FALSE;
      return TRUE;
    }
}

/* ---- One step ---- */

struct _JoinResult {
  JoinProblem *problem;         /* borrowed */
  GArray **history;             /* [n_einsums] of Prov */
  guint64 *survivors;           /* [n_einsums] */
  double *step_cpu;             /* [n_einsums]: CPU seconds of the process
                                   per step (every thread's) */
  GArray *final;                /* of double: n_obj per final row */
  GArray *final_ids;            /* of guint32: history ids at the last step */
  double seconds;
  guint gave_up_at;             /* 1 + the step past its give-up limit; 0: none */
};

void
join_result_free (JoinResult *r)
{
  if (r == NULL)
    return;
  for (guint x = 0; r->history != NULL && x < r->problem->n_einsums; x++)
    if (r->history[x] != NULL)
      g_array_free (r->history[x], TRUE);
  g_free (r->history);
  g_free (r->survivors);
  g_free (r->step_cpu);
  if (r->final != NULL)
    g_array_free (r->final, TRUE);
  if (r->final_ids != NULL)
    g_array_free (r->final_ids, TRUE);
  g_free (r);
}

/* Charges @g's bytes (its key and the capacity its rows need) to its
 * budget; FALSE when the budget has no more. */
static gboolean
group_charge (Group *g)
{
  gsize bytes = sizeof (Group) + join_key_size (g->key)
    + sizeof (double) * g->values->len
    + (g->prov != NULL ? sizeof (Prov) * g->prov->len : 0)
    + (g->ids != NULL ? sizeof (guint32) * g->ids->len : 0);
  gsize more;

  if (bytes <= g->charged)
    return TRUE;
  more = MAX (bytes - g->charged, MIN (CHARGE_CHUNK, g->charged));
  if (!ffm_memory_budget_reserve (g->budget, more))
    return FALSE;
  g->charged += more;
  return TRUE;
}

static Group *
group_new (const JoinKey *key, guint width, FfmMemoryBudget *budget)
{
  Group *g = g_new0 (Group, 1);

  g->budget = budget;
  g->key = g_memdup2 (key, join_key_size (key));
  g->width = width;
  g->values = g_array_new (FALSE, FALSE, sizeof (double));
  g->prov = g_array_new (FALSE, FALSE, sizeof (Prov));
  return g;
}

/* Pareto pruning of rows, objectives first: for energy or latency with a
 * tie-break, the pair is lexicographic (a row of less energy beats one of
 * more whatever their latencies; equal energies compare latencies). */
static guint
prune_rows (const JoinProblem *p, double *v, guint n, guint w, guint n_front,
            guint *kept)
{
  if (p->first >= 0)
    return ffm_pareto_prune_lexicographic_front (v, n, w, n_front, (guint) p->first,
                                                 1 - (guint) p->first, kept);
  return ffm_pareto_prune_front (v, n, w, n_front, kept);
}

/* Whether pass @o is a dirty pass with a beam (beam_prune()). */
static gboolean
has_beam (const JoinPassOptions *o)
{
  return o->epsilon > 0 && o->beam > 0 && o->objective != FFM_OBJECTIVE_PARETO;
}

/* The widths of a dirty pass's boxes at step @x, energy and latency, into
 * @width. With a beam: @epsilon times the mean of the least values of
 * Einsums 0..x, so that a step's boxes are as fine at the thousandth
 * Einsum as at the first (boxes of ratio 1 + epsilon span epsilon times
 * everything joined so far: on a chain of 1,000 matmuls the first pass
 * ended 3.6x off the optimum). Without one, or when those least values
 * are unknown: 0, boxes of ratio 1 + @epsilon (the paper's), as the
 * beam is what keeps fine boxes few. */
static void
box_widths (const JoinProblem *p, const JoinPassOptions *o, guint x, double *width)
{
  const double *mean[2] = { p->mean_min_energy, p->mean_min_latency };

  for (guint k = 0; k < 2; k++)
    width[k] = has_beam (o) && isfinite (mean[k][x]) && mean[k][x] > 0
      ? o->epsilon * mean[k][x] : 0;
}

/* Pareto-prunes @g (objectives in boxes when @epsilon > 0: of @width
 * per objective, or of ratio 1 + @epsilon where the width is 0; @width
 * may be NULL when @epsilon is 0). */
static void
prune_group (const JoinProblem *p, Group *g, double epsilon, const double *width)
{
  guint n = g->prov->len, w = g->width, kept_n;
  g_autofree guint *kept = NULL;
  double *v = (double *) g->values->data;

  if (n <= 1 || (epsilon <= 0 && n == g->pruned))
    {
      g->pruned = epsilon > 0 ? 0 : n;
      return;
    }
  kept = g_new (guint, n);
  if (epsilon > 0)
    {
      /* The objectives boxed in place, their values kept aside and put
       * back into the survivors (a copy of the whole group was the
       * largest allocation of the dirty join: 460 MB at GPT-3's AV). */
      g_autofree double *objectives = g_new (double, (gsize) n * p->n_obj);
      double ratio = 1 / log1p (epsilon);
      for (guint r = 0; r < n; r++)
        for (guint k = 0; k < p->n_obj; k++)
          {
            double y = v[(gsize) r * w + k];
            objectives[(gsize) r * p->n_obj + k] = y;
            if (width[k] > 0)
              v[(gsize) r * w + k] = floor (y / width[k]);
            else
              v[(gsize) r * w + k] = y > 0 ? floor (log (y) * ratio) : -INFINITY;
          }
      kept_n = prune_rows (p, v, n, w, 0, kept);    /* moves survivors itself */
      for (guint i = 0; i < kept_n; i++)
        for (guint k = 0; k < p->n_obj; k++)
          v[(gsize) i * w + k] = objectives[(gsize) kept[i] * p->n_obj + k];
    }
  else
    kept_n = prune_rows (p, v, n, w, g->pruned, kept);   /* moves survivors itself */
  for (guint i = 0; i < kept_n; i++)
    if (kept[i] != i)
      g_array_index (g->prov, Prov, i) = g_array_index (g->prov, Prov, kept[i]);
  g_array_set_size (g->values, (gsize) kept_n * w);
  g_array_set_size (g->prov, kept_n);
  /* boxed survivors are no Pareto set of the values themselves */
  g->pruned = epsilon > 0 ? 0 : kept_n;
}

typedef struct {
  const JoinProblem *p;
  GPtrArray *groups;
  double epsilon;
  double width[2];
} PruneJob;

static void
prune_one (guint i, gpointer user)
{
  PruneJob *job = user;

  prune_group (job->p, g_ptr_array_index (job->groups, i), job->epsilon, job->width);
}

static void
prune_all (const JoinProblem *p, const JoinPassOptions *o, guint x, GPtrArray *groups)
{
  PruneJob job = { p, groups, o->epsilon, { 0, 0 } };

  box_widths (p, o, x, job.width);
  join_run_items (p->n_threads, prune_one, &job, NULL, groups->len);
}

/* Whether a group can meet any unit of the next step at all. */
static gboolean
has_future (const JoinProblem *p, guint x, const JoinKey *k, GByteArray *scratch)
{
  const ByteKey *key;

  if (x + 1 >= p->n_einsums)
    return TRUE;
  key = join_left_match_bytes (&p->steps[x + 1], k, scratch);
  return key != NULL && g_hash_table_contains (p->steps[x + 1].index, key);
}

/* Stands in by_key for a result key with no future: its pairs are skipped
 * without asking again. */
static const char no_future_group;
#define NO_FUTURE ((Group *) &no_future_group)

/* The join at step @x holds more than its budget gives. */
static void
join_out_of_memory (const JoinProblem *p, guint x, GError **error)
{
  g_autofree char *limit = ffm_format_bytes (ffm_memory_budget_get_limit (p->budget));

  g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_OUT_OF_MEMORY,
               "the join at Einsum %s needs more memory than the %s the memory "
               "budget leaves it (after the pmappings); raise the budget "
               "(--max-memory), or narrow the mapspace (fewer fused loops, "
               "mapping constraints)", p->steps[x].e->name, limit);
}

/* The rows of @groups, and (@width non-NULL) their widest row, for the
 * debug log. */
static guint64
groups_rows (GPtrArray *groups, guint *width)
{
  guint64 rows = 0;

  if (width != NULL)
    *width = 0;
  for (guint i = 0; i < groups->len; i++)
    {
      const Group *g = g_ptr_array_index (groups, i);
      rows += g->prov->len;
      if (width != NULL)
        *width = MAX (*width, g->width);
    }
  return rows;
}

/* One (left group, unit) pair of a step whose rows go to group @group of
 * the step's result. */
typedef struct {
  guint32 left;                 /* index in the step's left groups */
  guint32 unit;                 /* index in the step's units */
  guint32 group;                /* index in the step's result */
} Pair;

/* The filling of a step's groups: every group from its own pairs, in the
 * order a left-to-right walk meets them, so that a group's rows, and the
 * prunings while it fills, are the same whichever thread fills it, and
 * whatever the number of threads. */
typedef struct {
  const JoinProblem *p;
  const JoinPassOptions *o;
  guint x;
  GPtrArray *left;
  GPtrArray *out;
  const Pair *pairs;            /* sorted by group, stably */
  const gsize *first;           /* [out->len + 1]: group g's pairs are
                                   pairs[first[g] .. first[g + 1]) */
  gsize slack;
  gint out_of_memory;           /* atomic: a group found the budget empty */
} Fill;

/* Fills group @g of @f from its pairs; FALSE when the budget runs out. */
static gboolean
fill_group (Fill *f, guint g)
{
  const JoinProblem *p = f->p;
  const Step *st = &p->steps[f->x];
  Group *ng = g_ptr_array_index (f->out, g);
  g_autofree Plan *plan = g_new (Plan, 1);
  double row[2 + MAX_MEM * (2 * MAX_LOOPS + 3)];
  guint nw = ng->width;

  for (gsize k = f->first[g]; k < f->first[g + 1]; k++)
    {
      const Group *lg = g_ptr_array_index (f->left, f->pairs[k].left);
      const Unit *u = &g_array_index (st->units, Unit, f->pairs[k].unit);
      guint n_left = lg->ids->len;

      /* The walk that made the pair planned it already: the same answer. */
      if (!join_plan_merge (p, st, lg->key, u, plan))
        g_return_val_if_reached (TRUE);
      for (guint a = 0; a < n_left; a++)
        {
          const double *L = (const double *) lg->values->data + (gsize) a * lg->width;
          for (guint b = 0; b < u->rows->len; b++)
            {
              const double *R = (const double *) u->table->data + (gsize) b * u->width;
              Prov pv;
              for (guint c = 0; c < p->n_obj; c++)
                row[c] = L[c] + R[c];
              if (!may_beat_bound (p, f->o, f->x, row)
                  || !join_combine_row (p, plan, u, L, R, row))
                continue;
              g_array_append_vals (ng->values, row, nw);
              pv.parent = g_array_index (lg->ids, guint32, a);
              pv.unit = f->pairs[k].unit;
              pv.urow = b;
              g_array_append_val (ng->prov, pv);
            }
          if (f->o->epsilon <= 0
              && ng->prov->len >= 2 * (gsize) ng->pruned + f->slack)
            {
              guint before = ng->prov->len;
              prune_group (p, ng, 0, NULL);
              g_debug ("step %u (%s): a group of %u rows pruned to %u while "
                       "filling", f->x, st->e->name, before, ng->prov->len);
            }
          if (g_atomic_int_get (&f->out_of_memory) || !group_charge (ng))
            {
              g_atomic_int_set (&f->out_of_memory, 1);
              return FALSE;
            }
        }
    }
  return TRUE;
}

static void
fill_one (guint g, gpointer user)
{
  fill_group (user, g);
}

/* Fills every group of @f, on the problem's threads, the groups of most
 * rows (before pruning, at most) first; FALSE when the budget runs out. */
static gboolean
fill_all (Fill *f)
{
  const Step *st = &f->p->steps[f->x];
  guint n = f->out->len;
  g_autofree guint64 *rows = g_new0 (guint64, MAX (n, 1));

  for (guint g = 0; g < n; g++)
    for (gsize k = f->first[g]; k < f->first[g + 1]; k++)
      rows[g] += (guint64) ((const Group *) g_ptr_array_index
                            (f->left, f->pairs[k].left))->ids->len
        * g_array_index (st->units, Unit, f->pairs[k].unit).rows->len;
  join_run_items (f->p->n_threads, fill_one, f, rows, n);
  return !g_atomic_int_get (&f->out_of_memory);
}

/* TUNING: left groups per job of a step's walk (GPT-3 at unlimited fused
 * loops: up to 190 k left groups and 1.4 M candidate units a step).
 * FFM_DEBUG=join-walk-chunk sets another number (tests set 1, so that small
 * problems walk in many jobs too). */
#define WALK_CHUNK 256

/* The walk over one chunk of a step's left groups: the pairs that match,
 * each with the chunk's own number for its result key (in the order the
 * chunk first met the keys), and per key whether a group of it can meet
 * the next step. */
typedef struct {
  guint first, end;             /* left groups first .. end - 1 */
  GArray *pairs;                /* of Pair; .group: the chunk's key id */
  GArray *makers;               /* of Pair: per key, the first pair that
                                   makes it (a whole key is 12 kB) */
  GPtrArray *bytes;             /* of ByteKey (owned by @ids, then by the
                                   step's table for a key it takes) */
  GArray *future;               /* of gboolean, per key */
  GHashTable *ids;              /* ByteKey -> key id + 1 */
} WalkChunk;

typedef struct {
  const JoinProblem *p;
  guint x;
  GPtrArray *left;
  WalkChunk *chunks;
} Walk;

static void
walk_chunk (const Walk *w, WalkChunk *c)
{
  const JoinProblem *p = w->p;
  const Step *st = &p->steps[w->x];
  g_autoptr (GByteArray) scratch = g_byte_array_new ();
  g_autoptr (GByteArray) scratch_next = g_byte_array_new ();
  g_autofree Plan *plan = g_new (Plan, 1);

  c->pairs = g_array_new (FALSE, FALSE, sizeof (Pair));
  c->makers = g_array_new (FALSE, FALSE, sizeof (Pair));
  c->bytes = g_ptr_array_new ();
  c->future = g_array_new (FALSE, FALSE, sizeof (gboolean));
  c->ids = g_hash_table_new_full (join_byte_key_hash, join_byte_key_equal, g_free, NULL);
  for (guint gi = c->first; gi < c->end; gi++)
    {
      const Group *lg = g_ptr_array_index (w->left, gi);
      const ByteKey *mkey = join_left_match_bytes (st, lg->key, scratch);
      GArray *cands = mkey != NULL ? g_hash_table_lookup (st->index, mkey) : NULL;

      for (guint ci = 0; cands != NULL && ci < cands->len; ci++)
        {
          guint ui = g_array_index (cands, guint, ci);
          const Unit *u = &g_array_index (st->units, Unit, ui);
          const ByteKey *nkey;
          gpointer id;
          Pair pair;

          if (u->n_fused < lg->key->n_spine || !join_plan_merge (p, st, lg->key, u, plan))
            continue;
          nkey = join_key_bytes (&plan->key, scratch);
          id = g_hash_table_lookup (c->ids, nkey);
          pair.left = gi;
          pair.unit = ui;
          if (id == NULL)
            {
              ByteKey *copy = join_byte_key_copy (nkey);
              gboolean future = has_future (p, w->x, &plan->key, scratch_next);
              id = GUINT_TO_POINTER (c->bytes->len + 1);
              pair.group = 0;
              g_array_append_val (c->makers, pair);
              g_ptr_array_add (c->bytes, copy);
              g_array_append_val (c->future, future);
              g_hash_table_insert (c->ids, copy, id);
            }
          if (!g_array_index (c->future, gboolean, GPOINTER_TO_UINT (id) - 1))
            continue;
          pair.group = GPOINTER_TO_UINT (id) - 1;
          g_array_append_val (c->pairs, pair);
        }
    }
}

static void
walk_chunk_clear (WalkChunk *c)
{
  g_clear_pointer (&c->pairs, g_array_unref);
  g_clear_pointer (&c->makers, g_array_unref);
  g_clear_pointer (&c->bytes, g_ptr_array_unref);
  g_clear_pointer (&c->future, g_array_unref);
  g_clear_pointer (&c->ids, g_hash_table_unref);
}

static void
walk_one (guint i, gpointer user)
{
  Walk *w = user;

  walk_chunk (w, &w->chunks[i]);
}

/* The least value of objective @objective a row of step @x can still
 * reach: its objectives so far plus the least each remaining Einsum adds
 * (may_beat_bound()'s test). */
static double
least_completion (const JoinProblem *p, FfmObjective objective, guint x,
                  const double *row)
{
  double e = row[0] + p->rest_energy[x], l = row[1] + p->rest_latency[x];

  switch (objective)
    {
    case FFM_OBJECTIVE_ENERGY:
      return e;
    case FFM_OBJECTIVE_LATENCY:
      return l;
    case FFM_OBJECTIVE_EDP:
    default:
      return e * l;
    }
}

/* The dirty pass's beam: drops the rows of step @x whose least completion
 * is above 1 + @beam times the step's best, but for the best row of each
 * group. A dirty pass only needs good, real mappings for the clean pass's
 * bound; a row that far behind rarely becomes one, and keeping it costs
 * every later step. Each group keeps its best row because the least
 * completion is a bound, not a forecast: the rows near the step's best
 * may all lead to dear mappings, and the groups (the rows later steps
 * treat alike) are the different futures. With the step's best alone, the
 * beam followed a few groups into a mapping 11x the optimum on GPT-3 at
 * 16,384 tokens; with each group's own beam it kept 2-4x the rows (6.5 GB
 * on DeepSeek-V3; docs/ffm-search.md, "The dirty pass's beam"). */
static void
beam_prune (const JoinProblem *p, guint x, GPtrArray *groups, FfmObjective objective,
            double beam)
{
  gboolean empty = ffm_debug_flag_is_set (FFM_DEBUG_JOIN_BEAM_EMPTY_STEP)
    && ffm_debug_flag_get_uint (FFM_DEBUG_JOIN_BEAM_EMPTY_STEP, 0) == x + 1;
  g_autofree guint *group_best = g_new (guint, MAX (groups->len, 1));
  double best = INFINITY, limit;

  /* each group's best row (the first of equals) and the step's best */
  for (guint i = 0; i < groups->len; i++)
    {
      const Group *g = g_ptr_array_index (groups, i);
      const double *v = (const double *) g->values->data;
      double own = INFINITY;
      group_best[i] = 0;
      for (guint r = 0; r < g->prov->len; r++)
        {
          double c = least_completion (p, objective, x, v + (gsize) r * g->width);
          if (c < own)
            {
              own = c;
              group_best[i] = r;
            }
        }
      best = MIN (best, own);
    }
  limit = empty ? -INFINITY : best * (1 + beam);
  for (guint i = 0; i < groups->len; i++)
    {
      Group *g = g_ptr_array_index (groups, i);
      double *v = (double *) g->values->data;
      guint n = 0;

      for (guint r = 0; r < g->prov->len; r++)
        {
          if ((empty || r != group_best[i])
              && !(least_completion (p, objective, x, v + (gsize) r * g->width) <= limit))
            continue;
          if (n != r)
            {
              memcpy (v + (gsize) n * g->width, v + (gsize) r * g->width,
                      sizeof (double) * g->width);
              g_array_index (g->prov, Prov, n) = g_array_index (g->prov, Prov, r);
            }
          n++;
        }
      g_array_set_size (g->values, (gsize) n * g->width);
      g_array_set_size (g->prov, n);
      g->pruned = 0;
    }
}

/* Joins step @x: @left (groups with history ids) with the units of Einsum
 * x, into new groups; NULL with @error set when the memory budget runs
 * out. First a walk over the pairs that match (chunks of left groups in
 * parallel), then the groups in the order the walk first met their keys,
 * then the groups are filled (in parallel): the result is the same at any
 * number of threads. */
static GPtrArray *
join_step (const JoinProblem *p, guint x, GPtrArray *left,
           const JoinPassOptions *o, GError **error)
{
  const Step *st = &p->steps[x];
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) group_free);
  g_autoptr (GHashTable) by_key = g_hash_table_new_full (join_byte_key_hash,
                                                         join_byte_key_equal,
                                                         g_free, NULL);
  g_autoptr (GArray) pairs = g_array_new (FALSE, FALSE, sizeof (Pair));
  g_autofree Pair *sorted = NULL;
  g_autofree gsize *first = NULL;
  guint chunk = (guint) ffm_debug_flag_get_uint (FFM_DEBUG_JOIN_WALK_CHUNK, WALK_CHUNK);
  guint n_chunks = MAX ((guint) (((guint64) left->len + chunk - 1) / chunk), 1);
  g_autofree WalkChunk *chunks = g_new0 (WalkChunk, n_chunks);
  Walk walk = { p, x, left, chunks };
  g_autofree Plan *plan = g_new (Plan, 1);
  gsize charged = 0;
  gboolean filled, out_of_memory = FALSE;
  Fill fill;
  gint64 began = g_get_monotonic_time (), merged, walked;

  for (guint i = 0; i < n_chunks; i++)
    {
      chunks[i].first = (guint) MIN ((guint64) i * chunk, left->len);
      chunks[i].end = (guint) MIN ((guint64) (i + 1) * chunk, left->len);
    }
  join_run_items (p->n_threads, walk_one, &walk, NULL, n_chunks);
  merged = g_get_monotonic_time ();
  /* The groups, in the order a walk from the first left group meets their
   * keys; the pairs, in that walk's order. */
  for (guint i = 0; i < n_chunks && !out_of_memory; i++)
    {
      WalkChunk *c = &chunks[i];
      g_autofree guint32 *group_of = g_new (guint32, MAX (c->bytes->len, 1));
      for (guint k = 0; k < c->bytes->len; k++)
        {
          const ByteKey *bytes = g_ptr_array_index (c->bytes, k);
          Group *ng = g_hash_table_lookup (by_key, bytes);
          if (ng == NULL)
            {
              /* the key again, from the pair that made it (the walk's
               * plan: it merges again) */
              const Pair *maker = &g_array_index (c->makers, Pair, k);
              const Group *lg = g_ptr_array_index (left, maker->left);
              if (!g_array_index (c->future, gboolean, k)
                  || !join_plan_merge (p, st, lg->key,
                                       &g_array_index (st->units, Unit, maker->unit),
                                       plan))
                ng = NO_FUTURE;
              else
                {
                  ng = group_new (&plan->key, join_row_width (p, plan->key.n_spine),
                                  p->budget);
                  ng->index = out->len;
                  g_ptr_array_add (out, ng);
                }
              /* the chunk's copy of the key moves to the step's table */
              g_hash_table_steal (c->ids, bytes);
              g_hash_table_insert (by_key, (gpointer) bytes, ng);
            }
          group_of[k] = ng == NO_FUTURE ? G_MAXUINT32 : ng->index;
        }
      for (guint k = 0; k < c->pairs->len; k++)
        {
          Pair pair = g_array_index (c->pairs, Pair, k);
          pair.group = group_of[pair.group];
          if (pair.group == G_MAXUINT32)
            continue;
          g_array_append_val (pairs, pair);
          /* the pairs, twice (sorted below), and the groups' index */
          if (2 * sizeof (Pair) * pairs->len > charged)
            {
              if (!ffm_memory_budget_reserve (p->budget, CHARGE_CHUNK))
                {
                  out_of_memory = TRUE;
                  break;
                }
              charged += CHARGE_CHUNK;
            }
        }
      walk_chunk_clear (c);
    }
  for (guint i = 0; i < n_chunks; i++)
    walk_chunk_clear (&chunks[i]);
  if (out_of_memory)
    {
      ffm_memory_budget_release (p->budget, charged);
      g_ptr_array_unref (out);
      join_out_of_memory (p, x, error);
      return NULL;
    }
  /* The pairs by group, in walk order within a group (a counting sort). */
  first = g_new0 (gsize, out->len + 1);
  sorted = g_new (Pair, MAX (pairs->len, 1));
  for (guint k = 0; k < pairs->len; k++)
    first[g_array_index (pairs, Pair, k).group + 1]++;
  for (guint g = 0; g < out->len; g++)
    first[g + 1] += first[g];
  {
    g_autofree gsize *at = g_memdup2 (first, sizeof (gsize) * (out->len + 1));
    for (guint k = 0; k < pairs->len; k++)
      {
        const Pair *pr = &g_array_index (pairs, Pair, k);
        sorted[at[pr->group]++] = *pr;
      }
  }
  fill = (Fill) { p, o, x, left, out, sorted, first, ffm_debug_flag_get_uint (FFM_DEBUG_JOIN_GROW_PRUNE_ROWS, GROW_PRUNE_SLACK), 0 };
  walked = g_get_monotonic_time ();
  filled = fill_all (&fill);
  ffm_memory_budget_release (p->budget, charged);
  if (!filled)
    {
      g_ptr_array_unref (out);
      join_out_of_memory (p, x, error);
      return NULL;
    }
  if (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    g_debug ("step %u (%s): %u left groups -> %u groups (%u pairs, walked in "
             "%.3f s, merged in %.3f s, filled in %.3f s), %" G_GUINT64_FORMAT
             " rows before the last pruning", x, st->e->name, left->len, out->len,
             pairs->len, (double) (merged - began) / G_USEC_PER_SEC,
             (double) (walked - merged) / G_USEC_PER_SEC,
             (double) (g_get_monotonic_time () - walked) / G_USEC_PER_SEC,
             groups_rows (out, NULL));
  if (has_beam (o))
    beam_prune (p, x, out, o->objective, o->beam);
  /* Drop empty groups, keep the order (in one pass: one removal at a time
   * moves the rest of the array each time). */
  {
    guint n_kept = 0;
    for (guint i = 0; i < out->len; i++)
      {
        Group *g = g_ptr_array_index (out, i);
        out->pdata[i] = NULL;
        if (g->prov->len == 0)
          group_free (g);
        else
          out->pdata[n_kept++] = g;
      }
    g_ptr_array_set_size (out, n_kept);     /* frees NULLs only */
  }
  prune_all (p, o, x, out);
  if (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    {
      guint width;
      guint64 rows = groups_rows (out, &width);
      g_debug ("step %u (%s): %" G_GUINT64_FORMAT " rows after pruning (up to %u "
               "columns)", x, st->e->name, rows, width);
    }
  return out;
}

/* The virtual left side of step 0: one empty partial mapping. */
static GPtrArray *
initial_side (const JoinProblem *p)
{
  GPtrArray *left = g_ptr_array_new_with_free_func ((GDestroyNotify) group_free);
  JoinKey *k = g_new0 (JoinKey, 1);
  Group *g = group_new (k, join_row_width (p, 0), NULL);
  guint32 id = 0;

  for (guint i = 0; i < p->n_obj; i++)
    {
      double zero = 0;
      g_array_append_val (g->values, zero);
    }
  for (guint m = 0; m < p->n_mem; m++)
    {
      double r = 0, open = -INFINITY, l = -INFINITY;
      g_array_append_val (g->values, r);
      g_array_append_val (g->values, open);
      g_array_append_val (g->values, l);
    }
  g->ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_append_val (g->ids, id);
  g_free (k);
  g_ptr_array_add (left, g);
  return left;
}

JoinResult *
join_run (JoinProblem *p, const JoinPassOptions *o, GError **error)
{
  g_autoptr (GPtrArray) left = initial_side (p);
  JoinResult *r = g_new0 (JoinResult, 1);
  gint64 start = g_get_monotonic_time ();
  gboolean failed = FALSE;

  r->problem = p;
  r->history = g_new0 (GArray *, MAX (p->n_einsums, 1));
  r->survivors = g_new0 (guint64, MAX (p->n_einsums, 1));
  r->step_cpu = g_new0 (double, MAX (p->n_einsums, 1));
  for (guint x = 0; x < p->n_einsums; x++)
    {
      GPtrArray *next;
      double cpu = join_process_cpu_seconds ();

      if (o->context != NULL && ffm_search_context_is_cancelled (o->context))
        {
          g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_CANCELLED,
                       "the join was cancelled at Einsum %s",
                       p->steps[x].e->name);
          failed = TRUE;
          break;
        }
      next = join_step (p, x, left, o, error);
      if (next == NULL)
        {
          failed = TRUE;
          break;
        }
      GArray *hist = g_array_new (FALSE, FALSE, sizeof (Prov));

      for (guint i = 0; i < next->len; i++)
        {
          Group *g = g_ptr_array_index (next, i);
          g->ids = g_array_sized_new (FALSE, FALSE, sizeof (guint32), g->prov->len);
          for (guint k = 0; k < g->prov->len; k++)
            {
              guint32 id = hist->len;
              g_array_append_val (hist, g_array_index (g->prov, Prov, k));
              g_array_append_val (g->ids, id);
            }
          g_array_free (g->prov, TRUE);
          g->prov = NULL;
        }
      r->history[x] = hist;
      r->survivors[x] = hist->len;
      r->step_cpu[x] = join_process_cpu_seconds () - cpu;
      g_ptr_array_unref (left);
      left = next;
      if (o->progress != NULL)
        o->progress ((double) (x + 1) / p->n_einsums, o->phase, o->progress_data);
      if (o->give_up_above != NULL && x + 1 < p->n_einsums
          && hist->len > o->give_up_above[x])
        {
          r->gave_up_at = x + 1;
          break;
        }
      if (hist->len == 0)
        {
          /* A bounded pass may prune everything: the bound was optimal;
           * a beam may have kept only rows a later step cannot take. */
          if (!o->bounded && !has_beam (o))
            {
              g_set_error (error, FFM_SEARCH_ERROR, FFM_SEARCH_ERROR_INFEASIBLE,
                           "no fused mapping of %s fits %s: nothing joins or "
                           "fits once Einsum %s is added",
                           ffm_workload_get_name (p->w), ffm_arch_get_name (p->a),
                           p->steps[x].e->name);
              failed = TRUE;
            }
          break;
        }
    }
  if (failed)
    {
      join_result_free (r);
      return NULL;
    }
  r->final = g_array_new (FALSE, FALSE, sizeof (double));
  r->final_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; p->n_einsums > 0 && r->gave_up_at == 0
       && r->survivors[p->n_einsums - 1] > 0 && i < left->len; i++)
    {
      Group *g = g_ptr_array_index (left, i);
      for (guint k = 0; k < g->ids->len; k++)
        {
          g_array_append_vals (r->final, (double *) g->values->data + (gsize) k * g->width,
                               p->n_obj);
          g_array_append_val (r->final_ids, g_array_index (g->ids, guint32, k));
        }
    }
  r->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  return r;
}

/* ---- Reading results ---- */

const guint64 *
join_result_get_survivors (const JoinResult *r, guint *n_steps)
{
  *n_steps = r->problem->n_einsums;
  return r->survivors;
}

gboolean
join_result_gave_up (const JoinResult *r, guint *step)
{
  if (step != NULL && r->gave_up_at > 0)
    *step = r->gave_up_at - 1;
  return r->gave_up_at > 0;
}

double
join_result_get_seconds (const JoinResult *r)
{
  return r->seconds;
}

const double *
join_result_get_step_cpu_seconds (const JoinResult *r, guint *n_steps)
{
  *n_steps = r->problem->n_einsums;
  return r->step_cpu;
}

double
join_process_cpu_seconds (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
    return 0;
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

guint
join_result_get_n_final (const JoinResult *r)
{
  return r->final_ids->len;
}

void
join_result_get_final (const JoinResult *r, guint index, double *energy,
                       double *latency)
{
  const JoinProblem *p = r->problem;
  const double *v = (const double *) r->final->data + (gsize) index * p->n_obj;

  *energy = v[0];
  *latency = v[1];
}

static double
final_value (const JoinResult *r, FfmObjective objective, guint i)
{
  double e, l;

  join_result_get_final (r, i, &e, &l);
  return ffm_objective_value (objective, e, l);
}

/* The other objective, which breaks ties of @objective (energy for
 * latency, latency for energy; none for EDP). */
static double
tie_value (const JoinResult *r, FfmObjective objective, guint i)
{
  double e, l;

  join_result_get_final (r, i, &e, &l);
  return ffm_objective_tie (objective, e, l);
}

int
join_result_pick (const JoinResult *r, FfmObjective objective)
{
  int best = -1;
  double best_v = INFINITY, best_t = INFINITY;

  for (guint i = 0; i < join_result_get_n_final (r); i++)
    {
      double v = final_value (r, objective, i), t = tie_value (r, objective, i);
      if (best < 0 || v < best_v || (v == best_v && t < best_t))
        {
          best = (int) i;
          best_v = v;
          best_t = t;
        }
    }
  return best;
}

static int
compare_energy_latency (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const JoinResult *r = data;
  guint a = *(const guint *) pa, b = *(const guint *) pb;
  double ea, la, eb, lb;

  join_result_get_final (r, a, &ea, &la);
  join_result_get_final (r, b, &eb, &lb);
  if (ea != eb)
    return ea < eb ? -1 : 1;
  if (la != lb)
    return la < lb ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);
}

GArray *
join_result_pick_front (const JoinResult *r)
{
  guint n = join_result_get_n_final (r);
  g_autofree guint *order = g_new (guint, MAX (n, 1));
  GArray *front = g_array_new (FALSE, FALSE, sizeof (guint));
  double best_l = INFINITY, last_e = -INFINITY;

  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n, sizeof (guint), compare_energy_latency,
                     (gpointer) r);
  /* Energy ascending: a point is on the front iff its latency is below
   * every latency seen so far (equal points: the first). */
  for (guint k = 0; k < n; k++)
    {
      double e, l;
      join_result_get_final (r, order[k], &e, &l);
      if (l < best_l)
        {
          g_array_append_val (front, order[k]);
          best_l = l;
          last_e = e;
        }
    }
  (void) last_e;
  return front;
}

void
join_result_get_choice (const JoinResult *r, guint index, guint einsum,
                        guint *group, FfmPmappingRef *ref, guint *order)
{
  const JoinProblem *p = r->problem;
  guint32 id = g_array_index (r->final_ids, guint32, index);

  for (guint x = p->n_einsums; x-- > 0; )
    {
      const Prov *pv = &g_array_index (r->history[x], Prov, id);
      if (x == einsum)
        {
          const Unit *u = &g_array_index (p->steps[x].units, Unit, pv->unit);
          guint row = g_array_index (u->rows, guint, pv->urow);
          *group = u->group;
          *ref = u->g->refs[row];
          *order = u->order;
          return;
        }
      id = pv->parent;
    }
}
