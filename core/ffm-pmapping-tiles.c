/* ffm-pmapping-tiles.c: the tile shapes of one template.
 *
 * Every loop of a template gets a tile: for each rank variable, its loops
 * (outermost first) form a divisor chain from the variable's bound down to
 * 1 at the innermost loop (perfect factorization [1, §4.7]). The search
 * assigns one rank variable's whole chain at a time, depth first, in a
 * fixed order, and cuts a branch as soon as no completion can be valid:
 *   - fanout: the product of the spatial iteration counts already chosen on
 *     a fanout dimension only grows as more variables are chosen, so once
 *     it exceeds the dimension's count no completion fits;
 *   - minimum usage: the chosen product times the largest product every
 *     remaining variable can add on the dimension bounds what any
 *     completion reaches; below the minimum, no completion reaches it;
 *   - fused-loop limits: the number of fused loops of more than one
 *     iteration only grows;
 *   - capacity: a tile's occupancy grows with every rank variable's tile
 *     at its reservation (extents are non-decreasing in the tiles), and a
 *     variable not chosen yet has tile at least 1 there if some loop over it
 *     is above the reservation, else its whole bound; so occupancy with
 *     those smallest tiles is a lower bound over every completion, and a
 *     memory whose lower bound exceeds its capacity fits no completion.
 * Every complete tile vector that survives is evaluated with the cost
 * model; the valid ones become rows of their compatibility group, and
 * groups are Pareto-pruned (ffm-pareto.h) as they grow and at the end.
 *
 * Minimum usage "try best" [1, §2.1]: when no tile vector of a template
 * reaches a fanout dimension's minimum usage, the template's valid vectors
 * with the highest usage (the product over constrained dimensions of the
 * used fraction) are kept instead.
 *
 * This file holds the search's entry point, the choice of its order and
 * its chunks; its other phases are in ffm-pmapping-tiles-*.c, listed in
 * ffm-pmapping-private.h ("The tile search").
 *
 * [1] the reference implementation (accelforge): min_usage and its
 *     tile-shape enumeration with partial-mapping pruning. */
#include "ffm-pmapping-private.h"
#include "ffm-einsum-front-private.h"
#include "ffm-joinable-parts-private.h"
#include "ffm-tile-chain-private.h"
#include "ffm-row-key-sort-private.h"
#include "ffm-workload-private.h"
#include <ffm/ffm-memory-budget.h>
#include <ffm/ffm-join.h>

#include <math.h>
#include <string.h>

/* TUNING: tables of this many rows or more sort their keys by radix
 * (ffm-row-key-sort-private.h), in the values' scratch, which is not yet
 * in use then and holds enough at 4 units or more (when it is smaller,
 * and below this many rows, the quicksort runs). */
#define RADIX_MIN_ROWS 16384

/* TUNING: a table of more than twice this many rows is pruned in a sample
 * first, its last rows; when that drops fewer than 1 in
 * PRUNE_FUTILE_RATIO of them, the rest is left unpruned (the pruning
 * is optional: the next depth's pruning and the groups' Pareto pruning
 * drop what it would have). The table whose rows lack only the last
 * variable is left unpruned below 1 in PRUNE_FUTILE_RATIO_LAST: its rows'
 * only descendants are their children at the last depth, whose few units
 * (one per class) prune them far more cheaply, while its own rows carry
 * the most units of all (GPT-3's V: 300 k to 400 k rows of 21 to 25
 * units, of which pruning dropped 12 % to 21 % in about a second each,
 * then 97 % of their children at 7 units). Measured with 2 threads,
 * release build, against 1 in 50 everywhere (CPU time, mean of 2-3
 * runs; mappings identical): GPT-3 6.7B b64 45.0 to 39.0 s, ResNet-18 on
 * TPUv4i 27.5 to 21.5 s, MobileNet-V3 on TPUv4i 52.6 to 49.6 s, ResNet-18
 * on Simba 111.5 to 101.5 s, on Eyeriss 15.5 to 15.0 s; 1 in 2
 * everywhere and 1 in 4 everywhere each gained less. */
#define PRUNE_SAMPLE_ROWS 65536

/* TUNING: the bytes of one depth's table extended at a time. Tables larger
 * than this, or than the memory budget leaves, are cut into chunks, each
 * pruned and searched to the leaves before the next (depth first over
 * chunks, breadth first within one), so that the search's memory stays
 * bounded: a row that a row of another chunk dominates is no longer
 * dropped there, only by the next depths' pruning or the groups' Pareto
 * pruning (the result is the same; its leaves may be more). GPT-3 6.7B's
 * largest tables at one fused loop hold 7 M rows of 188 bytes (cut in
 * chunks of 1.1 M rows); unlimited fused loops make 100 M rows and more.
 * FFM_DEBUG=chunk-rows sets a number of rows instead (tests cut small
 * problems; FFM_DEBUG=prune-sample-rows likewise shrinks the sample of
 * tiles_table_prune_sampled()). All depths together hold at most TABLES_BYTES
 * (a depth's chunk at most its share), so that deep searches whose pruning keeps
 * nearly every row (Simba's convolutions: 8 variables, 3 M rows of 27
 * units at one depth) leave room for the depths below instead of running
 * out of memory there (Simba x ResNet-18 on 2 threads: 9.0 GB and 83 s
 * with 8 GiB, 1.5 GB and 70 s with 1 GiB). */
#define CHUNK_BYTES ((gsize) 2 << 30)

/* TUNING: the complete rows extended at a time, when tiles_search_leaves()
 * prunes them and the taken-leaf store is on. Each chunk's leaves go into
 * the store before the next chunk is made, and tiles_table_extend() drops the
 * next chunks' rows (whole buckets of them: bucket bounds) that a taken
 * leaf beats before they are written, sorted or compared; a chunk this
 * size also stays in the caches. GPT-3 6.7B b64's V (one fused loop, one
 * thread): the largest templates made 0.83 M complete rows in one chunk,
 * 9.4 M in all, 1.9 M in chunks of 16,384 (2.9 -> 2.1 s; 4,096 to 65,536
 * rows measured within 10 % of that, one chunk 35 % slower); more leaves
 * are evaluated (9,886 -> 15,717: a chunk's own window sees fewer rows),
 * the same pmappings kept. */
#define LAST_DEPTH_CHUNK_ROWS 16384u

/* TUNING: with rows held to the pmappings found (the incumbent or group
 * front), a depth's chunks start at this many rows and double with each
 * chunk the template makes there, when the pruning of the depth above
 * kept at least half its rows: the first leaves come before most rows are
 * made, and the front then beats rows the first chunk's search would
 * have made unbounded (simple-os x ResNet-50's pointwise layers: 400,000
 * rows made at the depth before the last, nearly all beaten once
 * extended), while splitting a table whose pruning keeps most rows loses
 * little of it. One thread, ResNet-50, CPU: simple-os 29.5 -> 19.2 s,
 * eyeriss-like 3.4 -> 1.1 s, simba-like 10.7 -> 6.0 s, simple-ws 13.6 ->
 * 11.5 s; RAELLA, whose pruning keeps a fifth of its rows at most depths,
 * 28.9 -> 32.2 s (without the condition 38 s; from 16,384 rows 34 s). */
#define GROWING_CHUNK_ROWS 4096u
#define TABLES_BYTES ((gsize) 1 << 30)

#define PRUNE_FUTILE_RATIO 4
#define PRUNE_FUTILE_RATIO_LAST 2

/* Searches from depth @k, whose rows are in ws->tables[k], to the leaves. */
static void
search_chunks (FfmTileSearch *en, FfmTileWorkspace *ws, guint k, guint chunk_rows)
{
  Table *in = &ws->tables[k], *out = &ws->tables[k + 1];
  guint next = 0, max_rows = chunk_rows;

  if (k == en->n_vars)
    {
      double cpu = ffm_phase_clock_seconds ();
      tiles_search_leaves (en, in, &ws->scratch);
      en->out->cpu_leaves += ffm_phase_clock_seconds () - cpu;
      return;
    }
  while (next < in->n_rows && !en->stopped)
    {
      gint64 start = g_get_monotonic_time ();
      double cpu = ffm_phase_clock_seconds (), cpu_pruned;
      guint first = next, before;

      out->n_rows = 0;
      if (chunk_rows == 0)
        {
          max_rows = (guint) MIN (MIN (CHUNK_BYTES, TABLES_BYTES / MAX (en->n_vars, 1))
                                  / tiles_table_row_bytes (en, en->n_units[k + 1]),
                                  G_MAXUINT);
          /* small chunks first, where the pruning would lose little by
           * them (GROWING_CHUNK_ROWS) */
          if (en->front_phi != NULL && en->depth_prune_weak[k])
            max_rows = (guint) MIN ((guint64) max_rows,
                                    (guint64) GROWING_CHUNK_ROWS
                                    << MIN (en->depth_chunks[k], 32u));
        }
      en->depth_chunks[k]++;
      if (k + 1 == en->n_vars && leaves_pruned (en) && tiles_taken_store_on (en))
        max_rows = MIN (max_rows, LAST_DEPTH_CHUNK_ROWS);
      if (!tiles_table_extend (en, in, k, out, ws, &next, max_rows))
        return;
      before = out->n_rows;
      en->out->n_partial_rows += before;
      en->out->peak_table_rows = MAX (en->out->peak_table_rows, before);
      cpu_pruned = ffm_phase_clock_seconds ();
      en->out->cpu_extend += cpu_pruned - cpu;
      /* The complete rows' own pruning is tiles_search_leaves()', by fewer
       * slots, when it compares them. */
      if (!(k + 1 == en->n_vars && leaves_pruned (en))
          && !tiles_table_prune_sampled (en, out, en->n_units[k + 1], en->unit_lex[k + 1],
                                         k + 2 == en->n_vars ? PRUNE_FUTILE_RATIO_LAST
                                         : PRUNE_FUTILE_RATIO, &ws->scratch))
        return;
      en->out->cpu_partial_pruning += ffm_phase_clock_seconds () - cpu_pruned;
      en->depth_prune_weak[k + 1] = 2 * (guint64) out->n_rows >= before;
      g_debug ("template %u depth %u (%s, %u chains, %u units): rows %u-%u of %u "
               "extended to %u, %u after pruning (%.3f s; groups cut by bucket bounds so "
               "far: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bounds taken)",
               en->t->id, k,
               en->e->rank_var_names[en->order[k]], en->n_chains[en->order[k]],
               en->n_units[k + 1], first, next, in->n_rows, before, out->n_rows,
               (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC,
               en->bucket_bound_cuts, en->bucket_bound_tests);
      search_chunks (en, ws, k + 1, chunk_rows);
    }
}

/* Makes @table the search's root: one row, no variable chosen. */
static gboolean
table_set_root (FfmTileSearch *en, Table *table)
{
  g_autofree guint64 *diff = g_new0 (guint64, MAX (en->n_diff, 1));
  g_autofree guint32 *chains = g_new0 (guint32, MAX (en->n_vars, 1));

  table->n_rows = 0;
  if (!tiles_table_reserve (en, table, 1, en->n_units[0]))
    return FALSE;
  for (guint d = 0; d < en->n_dims; d++)
    diff[en->n_fused + d] = 1;
  memcpy (TABLE_CHAINS (table), chains, sizeof (guint32) * en->n_vars);
  for (guint u = 0; u < en->n_units[0]; u++)
    {
      TABLE_VALS (table)[u] = en->unit_init[2 * u];
      TABLE_MAGS (table)[u] = en->unit_init[2 * u + 1];
    }
  if (en->n_diff > 0)
    memcpy (TABLE_DIFF (table), diff, sizeof (guint64) * en->n_diff);
  table->n_rows = 1;
  return TRUE;
}

/* TUNING: the pilot (pilot_work()) extends at most PILOT_ROWS rows per
 * depth, from at most PILOT_PARENTS rows of the depth above spread over
 * its pruned sample. Measured (2 threads, wall, one round each; the
 * 4-Einsum matmul chain in callgrind instructions, greedy 22.64 G):
 * 1024/64: GPT-3 6.7B b64 15.3 s (worse choices), ResNet-18 on TPUv4i
 * 4.8 s, the chain 21.66 G; 2048/128: 11.2 s, 5.0 s, 22.11 G; 4096/256:
 * 12.4 s, 5.5 s, 23.20 G. */
#define PILOT_ROWS 2048
#define PILOT_PARENTS 128

/* TUNING: the alternative order is taken when its pilot work is below
 * this share of the greedy order's: the pilots' sample pruning misjudges
 * both (per template, the estimated ratio of the two orders' work was
 * within 2-3x of the measured one). Over the templates of GPT-3 6.7B
 * b64, ResNet-18 on TPUv4i and on Eyeriss (1 thread, each template timed
 * in both orders), 0.5 gave 22.1, 9.5 and 7.0 s, 0.7 gave 20.2, 9.3 and
 * 7.5 s, 1.0 gave 19.5, 9.1 and 8.0 s (greedy alone: 34.4, 20.0, 7.0 s;
 * the best order of each template: 18.6, 9.0, 6.9 s). */
#define PILOT_MARGIN 0.7

/* TUNING: below this pilot work of the greedy order (about 20 ms of
 * search), the greedy order is kept without a second pilot, which would
 * cost more than it could save. */
#define PILOT_MIN_WORK 1e6

/* An estimate of the search's work in the present order: a search of
 * samples, each depth extending PILOT_PARENTS rows of the pruned sample
 * above; the rows a depth would hold follow from the sample's children
 * per row and the share its pruning keeps, and each costs its units (it
 * is summed, extended and compared by them). Pruning keeps more of a
 * sample than of a whole table, so the estimate errs high for depths that
 * prune well, alike for every order. Negative when the search stopped
 * (time, memory). Counters of the template's result are left as they
 * were: the search proper counts its rows and rejections. */
static double
pilot_work (FfmTileSearch *en, FfmTileWorkspace *ws, double enough)
{
  FfmTemplateResult *r = en->out;
  guint n_levels = ffm_arch_get_n_levels (en->arch);
  guint64 n_partial = r->n_partial, usage_rejected = en->usage_rejected;
  g_autofree guint64 *rejected = g_memdup2 (r->rejected, sizeof (guint64) * n_levels);
  g_autofree double *min_excess = g_memdup2 (r->min_excess, sizeof (double) * n_levels);
  g_autofree double *min_need = g_memdup2 (r->min_need, sizeof (double) * n_levels);
  double rows = 1, work = 0;

  if (!table_set_root (en, &ws->tables[0]))
    return -1;
  for (guint k = 0; k < en->n_vars && !en->stopped; k++)
    {
      Table *in = &ws->tables[k], *out = &ws->tables[k + 1];
      guint nu2 = en->n_units[k + 1], next = 0, stride;

      out->n_rows = 0;
      if (in->n_rows == 0
          || !tiles_table_extend (en, in, k, out, ws, &next, PILOT_ROWS) || next == 0)
        break;
      rows *= (double) out->n_rows / next;
      work += rows * (en->n_units[k] + nu2 + en->n_diff);
      if (k + 1 == en->n_vars || out->n_rows == 0 || work >= enough)
        break;
      {
        guint before = out->n_rows;
        if (!tiles_table_prune (en, out, 0, nu2, en->unit_lex[k + 1], &ws->scratch))
          break;
        rows *= (double) out->n_rows / before;
      }
      stride = (out->n_rows + PILOT_PARENTS - 1) / PILOT_PARENTS;
      if (stride > 1)
        {
          guint n = 0;
          for (guint i = 0; i < out->n_rows; i += stride)
            tiles_table_move_row (en, out, i, n++, nu2);
          out->n_rows = n;
        }
    }
  r->n_partial = n_partial;
  en->usage_rejected = usage_rejected;
  memcpy (r->rejected, rejected, sizeof (guint64) * n_levels);
  memcpy (r->min_excess, min_excess, sizeof (double) * n_levels);
  memcpy (r->min_need, min_need, sizeof (double) * n_levels);
  return en->stopped ? -1 : work;
}

/* TUNING: the greedy order (choose_order()) makes the units few early, so
 * that tables prune well; moving the variable of most chains last instead
 * makes its fan-out meet only the leaves' cheap comparison
 * (tiles_search_leaves()). Either can be many times faster than the other for
 * one template (GPT-3 6.7B's templates: 0.52 s greedy against 14.8 s, and
 * 1.09 s against 0.13 s), and neither rule wins on every workload, so the
 * pilots (pilot_work()) of both orders pick. The greedy order stays when
 * its pilot says the search is small (PILOT_MIN_WORK, or
 * FFM_DEBUG=pilot-min-work for tests), when the alternative is the
 * same order, and when a pilot stopped (time, memory: the search then
 * stops too). FFM_DEBUG=order=greedy or =chains-last forces one order
 * (tests). */
static void
choose_usual_order (FfmTileSearch *en, FfmTileWorkspace *ws)
{
  const char *force = ffm_debug_flag_get_string (FFM_DEBUG_ORDER);
  double min_work = ffm_debug_flag_get_double (FFM_DEBUG_PILOT_MIN_WORK, PILOT_MIN_WORK);
  double w_greedy, w_last;
  gboolean last;

  /* No alternative: one variable, or the greedy order ends with the
   * variable of most chains. */
  if (en->n_vars < 2 || tiles_most_chains_position (en, en->order) == en->n_vars - 1
      || (force != NULL && strcmp (force, "greedy") == 0))
    return;
  if (force != NULL && strcmp (force, "chains-last") == 0)
    {
      tiles_free_units (en);
      tiles_setup_units (en, TRUE);
      return;
    }
  w_greedy = pilot_work (en, ws, G_MAXDOUBLE);
  if (w_greedy < min_work)    /* negative when it stopped */
    return;
  tiles_free_units (en);
  tiles_setup_units (en, TRUE);
  /* Its pilot stops once it cannot win. */
  w_last = pilot_work (en, ws, PILOT_MARGIN * w_greedy);
  last = w_last >= 0 && w_last < PILOT_MARGIN * w_greedy;
  g_debug ("template %u: pilot work %.3g greedy, %.3g chains last: %s", en->t->id,
           w_greedy, w_last, last ? "chains last" : "greedy");
  en->out->n_chains_last += last;
  if (!last)
    {
      tiles_free_units (en);
      tiles_setup_units (en, FALSE);
    }
}

/* The usual order (above), or, when the Einsum front reaches the template
 * (einsum_front_reaches()), the variables of the fused loops first
 * (choose_order(), set up when the units were): a partial row then has
 * its group, hence points to be held to, from the first depths, where in
 * the usual order it often has it only once complete (the variable of
 * most chains, moved last, is often a fused one). No pilot decides: they
 * stop before the last depth, where the usual order's cost is (its
 * complete rows' leaves), and pilots of both orders made a user's chip
 * 6.6 s instead of 4.4 s (a third of its CPU in the pilots). Measured
 * (docs/pmapping-generator.md): that chip, 16 x 16 PEs x 2 matmuls,
 * 28 -> 4.4 s; GPT-3 6.7B on TPUv4i about the same. */
static void
choose_search_order (FfmTileSearch *en, FfmTileWorkspace *ws)
{
  if (en->fused_first)
    g_debug ("template %u: the variables of fused loops first (the Einsum front)",
             en->t->id);
  else
    choose_usual_order (en, ws);
}

static void
search_pruned (FfmTileSearch *en, FfmTileWorkspace *ws)
{
  /* 0: CHUNK_BYTES */
  guint chunk_rows = (guint) ffm_debug_flag_get_uint (FFM_DEBUG_CHUNK_ROWS, 0);

  en->prune_sample_rows = (guint) MIN (ffm_debug_flag_get_uint (FFM_DEBUG_PRUNE_SAMPLE_ROWS,
                                                                PRUNE_SAMPLE_ROWS),
                                       PRUNE_SAMPLE_ROWS);
  en->radix_min_rows = (guint) MIN (ffm_debug_flag_get_uint (FFM_DEBUG_RADIX_MIN_ROWS,
                                                             RADIX_MIN_ROWS),
                                    RADIX_MIN_ROWS);
  en->every_leaf = ffm_debug_flag_is_set (FFM_DEBUG_EVERY_LEAF);
  en->bucket_bounds_on = !ffm_debug_flag_is_set (FFM_DEBUG_NO_BUCKET_BOUNDS);
  {
    double cpu = ffm_phase_clock_seconds ();
    choose_search_order (en, ws);
    en->out->cpu_order += ffm_phase_clock_seconds () - cpu;
  }
  /* The pilots skip the chains ruled out (their work is the search's), the
   * checks per depth start after them (they depend on the order). */
  tiles_joinable_depths (en);
  en->joinable_in_tables = en->n_jt > 0;
  tiles_incumbent_setup (en);
  if (en->stopped || !table_set_root (en, &ws->tables[0]))
    return;
  search_chunks (en, ws, 0, chunk_rows);
  en->out->n_bucket_cuts += en->bucket_bound_cuts;
  en->out->n_beaten += en->n_beaten;
}

/* The phases timed inside a template (by the monotonic clock). */
#define N_TIMED_PHASES 5

static double *
timed_phase (FfmTemplateResult *out, guint i)
{
  double *const phases[N_TIMED_PHASES] = {
    &out->cpu_order, &out->cpu_extend, &out->cpu_partial_pruning,
    &out->cpu_leaves, &out->cpu_groups,
  };

  return phases[i];
}

/* Turns what the template's phases added to @out since @before (monotonic
 * clock seconds) into CPU seconds: each is scaled by the template's CPU
 * time over its wall time (@cpu / @wall), so that a thread preempted in a
 * phase is charged the CPU it had, and the phases still add up to at most
 * the template's cpu_tiles. */
static void
timed_phases_to_cpu (FfmTemplateResult *out, const double *before, double cpu, double wall)
{
  double scale = wall > 0 ? cpu / wall : 0;

  for (guint i = 0; i < N_TIMED_PHASES; i++)
    {
      double *phase = timed_phase (out, i);
      *phase = before[i] + MAX (*phase - before[i], 0) * scale;
    }
}

/* Whether the Einsum front (ffm-einsum-front-private.h) has a point in a
 * group the template's rows can fall in: the same shared tensors, backed
 * in the same memories (choose_search_order() says what follows). Where
 * no such group has a point the front cannot beat a row of the template
 * (fused first on every template with a front made GPT-3 6.7B on TPUv4i
 * 1.7x slower). Not under a fanout's minimum usage either: the probe of
 * try best searches depth first in the same order, and fused first made
 * MobileNet-V3's first layers on TPUv4i 10-20x slower there (2.2 -> 10 s
 * in all). */
static gboolean
einsum_front_reaches (FfmTileSearch *en)
{
  FfmCompatibility like;
  guint64 tiles[MAX_LOOPS];
  guint nt_prefix[MAX_LOOPS + 1];

  if (en->einsum_front == NULL || en->n_loops > MAX_LOOPS || en->constrained)
    return FALSE;
  /* (the tensors' backing does not depend on the tiles) */
  for (guint j = 0; j < en->n_loops; j++)
    tiles[j] = en->bounds[en->loops[j].rank_var];
  return ffm_describe_compat (&en->info, en->m, tiles, &like, nt_prefix)
         && ffm_einsum_front_has_backing (en->einsum_front, &like);
}

void
ffm_pmapping_template_enumerate (const FfmWorkload *workload,
                                 const FfmArch *arch,
                                 const FfmPmappingTemplate *t,
                                 const FfmPmappingOptions *options,
                                 const gboolean *untracked,
                                 const FfmJoinableParts *joinable,
                                 const FfmEinsumFront *einsum_front,
                                 FfmTileWorkspace *workspace,
                                 FfmTemplateResult *out)
{
  FfmTileSearch *en = g_new0 (FfmTileSearch, 1);
  FfmTileWorkspace *own = workspace == NULL ? ffm_tile_workspace_new (NULL) : NULL;
  FfmTileWorkspace *ws = workspace != NULL ? workspace : own;
  gint64 start = g_get_monotonic_time ();
  double cpu_start = ffm_thread_cpu_seconds (), cpu_groups;
  double clock_start = ffm_phase_clock_seconds (), phases_before[N_TIMED_PHASES];

  for (guint i = 0; i < N_TIMED_PHASES; i++)
    phases_before[i] = *timed_phase (out, i);

  en->t = t;
  en->m = t->model;
  en->arch = arch;
  en->eff = *options;
  /* The Einsum's own fused-loop limit (mapping constraints), if tighter. */
  if (t->constraints != NULL && t->constraints->max_fused_loops >= 0
      && (options->max_fused_loops < 0
          || t->constraints->max_fused_loops < options->max_fused_loops))
    en->eff.max_fused_loops = t->constraints->max_fused_loops;
  en->opt = &en->eff;
  en->out = out;
  en->budget = ws->budget;
  /* The groups' buffers are reserved from it, and given back to it. */
  out->budget = ws->budget;
  if (options->struct_size >= G_STRUCT_OFFSET (FfmPmappingOptions, max_template_seconds)
                              + sizeof options->max_template_seconds
      && options->max_template_seconds > 0)
    en->deadline = start + (gint64) (options->max_template_seconds * G_USEC_PER_SEC);
  if (options->struct_size >= G_STRUCT_OFFSET (FfmPmappingOptions, cancel)
                              + sizeof options->cancel)
    en->cancel = options->cancel;
  en->joinable = joinable;
  en->einsum_front = einsum_front;
  en->chain_cache = tiles_chain_cache_get (ws);
  en->check_shared = FFM_TEST_HOOKS && ffm_debug_flag_is_set (FFM_DEBUG_CHECK_SHARED_SETUP);
  if (tiles_setup (en, workload, arch, untracked) && tiles_joinable_template_ok (en))
    {
      en->fused_first = einsum_front_reaches (en);
      out->n_loops = en->n_loops;
      en->cost = ffm_pmapping_cost_new (en->m);
      for (guint d = 0; d < en->n_dims; d++)
        en->used[0][d] = 1;
      if (!FFM_PMAPPING_NO_PARTIAL_PRUNING (options))
        en->terms = ffm_terms_build (workload, arch, en->m, options->objectives,
                                     en->n_fused, en->remainders);
      en->check_terms = FFM_TEST_HOOKS && ffm_debug_flag_is_set (FFM_DEBUG_CHECK_TERMS);
      if (en->terms != NULL && !tiles_setup_units (en, FALSE))
        g_clear_pointer (&en->terms, ffm_terms_free);
      if (tiles_capacity_ok (en, 0))
        {
          if (en->constrained && en->terms != NULL)
            {
              /* A minimum usage with partial pruning: the probe first, as
               * the breadth-first search is no branch and bound and would
               * build its tables twice when no vector reaches the
               * minimum. The probe stops at the first valid vector that
               * reaches it (then the plain pass), or finds the highest
               * usage (then try best). */
              en->probe_until_min = TRUE;
              tiles_probe_best_usage (en);
              if (en->min_reached)
                search_pruned (en, ws);
              else if (!en->stopped && en->best_score >= 0)
                {
                  en->relaxed = TRUE;
                  en->target_score = en->best_score;
                  search_pruned (en, ws);
                }
            }
          else
            {
              if (en->terms != NULL)
                search_pruned (en, ws);
              else
                tiles_dfs (en, 0);
              /* As without parts: no valid vector at the minimum usage,
               * joinable or not. */
              if (en->constrained && out->groups->len == 0 && en->n_unjoinable == 0
                  && en->usage_rejected > 0 && !en->stopped)
                {
                  /* Try best in two passes: a depth-first branch and bound
                   * finds the highest usage of a valid vector (highest
                   * products first), then the search keeps the vectors of
                   * that usage, pruned by it (a single pass that keeps the
                   * best so far cannot prune the breadth-first search by its
                   * bound). */
                  tiles_probe_best_usage (en);
                  en->relaxed = TRUE;
                  en->target_score = en->best_score;
                  if (en->best_score >= 0)   /* else no valid vector at any usage */
                    tiles_dfs (en, 0);
                }
            }
        }
      ffm_pmapping_cost_free (en->cost);
    }
  tiles_chains_release (en);
  tiles_incumbent_free (en);
  for (guint v = 0; v < en->n_vars; v++)
    {
      g_free (en->var_phi[v]);
      g_free (en->chain_occ[v]);
    }
  g_free (en->capacity_base);
  g_free (en->survivor_block);
  g_free (en->capacity_affine);
  g_free (en->affine_coef);
  g_free (en->affine_mask);
  tiles_free_units (en);
  tiles_joinable_free_projections (en);
  for (guint v = 0; v < MAX_VARS; v++)
    g_free (en->chain_dead[v]);
  tiles_taken_store_clear (en);
  ffm_terms_free (en->terms);
  ffm_tile_workspace_free (own);
  cpu_groups = ffm_thread_cpu_seconds ();
  out->cpu_tiles += cpu_groups - cpu_start;
  timed_phases_to_cpu (out, phases_before, cpu_groups - cpu_start,
                       ffm_phase_clock_seconds () - clock_start);
  ffm_template_result_prune (out);
  out->cpu_groups += ffm_thread_cpu_seconds () - cpu_groups;
  out->n_unjoinable += en->n_unjoinable;
  out->seconds += (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  g_debug ("template %u of Einsum %s: %s%s, %" G_GUINT64_FORMAT " partial, %" G_GUINT64_FORMAT
           " evaluated, %" G_GUINT64_FORMAT " unjoinable, %.3f s", t->id, en->e->name,
           en->terms != NULL ? "pruned" : "full", en->relaxed ? " (try best)" : "",
           out->n_partial, out->n_evaluated, en->n_unjoinable, out->seconds);
  g_free (en);
}
