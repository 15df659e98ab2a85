/* sram.c: SRAM scratchpads, register files and smart buffers, from a table
 * of CACTI 7 runs.
 *
 * SRAM: energy per read and per write, leakage, area and cycle time
 * interpolated in a grid of CACTI 7 runs (cacti-grid.tsv; how it was made
 * and its error against CACTI off the grid are in docs/estimators.md). The
 * attributes become CACTI's inputs as Accelergy's CACTI plug-in makes them,
 * so that a Timeloop design gets the numbers its stored ERT holds:
 *   capacity = width x depth / 8 bytes, word (block) = width / 8 bytes but
 *   at least 4, capacity at least 64 words, banks rounded up to a power of
 *   two, ports = n_rdwr_ports + n_rd_ports + n_wr_ports (at least 1).
 * The grid holds, at 22, 32 and 45 nm, one bank and one port for every
 * capacity from 256 B to 128 MiB (powers of two and the 1.5x points
 * between) and every word from 4 to 256 bytes; at 22 and 45 nm, 2 to 32
 * banks at every power of two from 1 KiB to 128 MiB with every word, and
 * 2 or 4 ports at 1 KiB, 8 KiB, ..., 128 MiB with words of 8 and 128
 * bytes, used as ratios to one bank and one port (at 32 nm, interpolated
 * between the two). Between grid points the logarithm of each quantity is interpolated
 * linearly in the logarithms of capacity, word, banks and ports, and
 * linearly in the node; beyond 128 MiB and 256-byte words the last segment
 * is extended. Nodes below 22 nm (to 7 nm) and above 45 nm (to 130 nm)
 * scale the nearest CACTI node with Stillmaker and Baas (2017), as
 * ffm_technology_*_scale() do; CACTI 7 itself models 22-180 nm. Update
 * costs a write; leakage is CACTI's standby leakage of all banks; bandwidth
 * is width x banks per random cycle.
 *
 * smartbuffer_SRAM, smartbuffer_RF and regfile are Accelergy's classes of
 * those names in the timeloop-accelergy-exercises, built here from their
 * parts (estimated by whichever estimators answer best):
 *   smartbuffer_SRAM = SRAM + two address generators (intadder of
 *     ceil(log2 depth) bits), one added to each read and each write;
 *   smartbuffer_RF = a regfile at least 32 bits wide and 64 deep, scaled
 *     down to the real size (area and leakage by the size ratio, energy by
 *     the width ratio times the depth ratio^0.78, CACTI's trend), plus the
 *     two address generators;
 *   regfile = width x depth registers, of which width are read or written
 *     per access, plus a comparator of ceil(log2 depth) bits per entry
 *     (the address match) that every access exercises. */
#include <ffm/ffm.h>
#include "cacti-table.h"

#include <math.h>
#include <string.h>

#define SRAM_NAME "sram"
#define SRAM_ACCURACY 70.0       /* what Accelergy's CACTI plug-in claims */
#define MIN_NODE_NM 7.0
#define MAX_NODE_NM 130.0
#define MAX_CAPACITY_BYTES (1024.0 * 1024.0 * 1024.0)   /* 8x beyond the table */
#define MAX_WIDTH_BITS 65536.0
#define MAX_BANKS 1024.0
#define MAX_PORTS 16.0
#define PJ 1e-12
#define MW 1e-3
#define MM2 1e-6
#define NS 1e-9

enum { Q_READ, Q_WRITE, Q_LEAK, Q_AREA, Q_CYCLE, N_Q };

static double
row_quantity (const CactiRow *r, int q)
{
  switch (q)
    {
    case Q_READ: return r->read_pj;
    case Q_WRITE: return r->write_pj;
    case Q_LEAK: return r->leak_mw;
    case Q_AREA: return r->area_mm2;
    default: return r->cycle_ns;
    }
}

/* ---- The grid, indexed on first use ---- */

typedef struct {
  CactiRow *copy;          /* the table, base rows made monotone */
  GHashTable *rows;        /* key text -> const CactiRow* (into copy) */
  GArray *nodes;           /* double, ascending: nodes with a base grid */
  /* The grids of the bank and of the port factors, as the table holds
   * them (each ascending): nodes, and for each factor its capacities,
   * words and counts (the counts include 1). */
  GArray *factor_nodes;
  GArray *bank_caps, *bank_blocks, *bank_counts;
  GArray *port_caps, *port_blocks, *port_counts;
} Grid;

static Grid grid;

static char *
row_key (double node, double cap, double block, double banks, double ports)
{
  return g_strdup_printf ("%.0f/%.0f/%.0f/%.0f/%.0f", node, cap, block, banks, ports);
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
add_unique (GArray *values, double v)
{
  for (guint i = 0; i < values->len; i++)
    if (g_array_index (values, double, i) == v)
      return;
  g_array_append_val (values, v);
}

static int
compare_rows (gconstpointer a, gconstpointer b)
{
  const CactiRow *x = *(const CactiRow *const *) a, *y = *(const CactiRow *const *) b;

  if (x->node_nm != y->node_nm)
    return x->node_nm < y->node_nm ? -1 : 1;
  if (x->block_bytes != y->block_bytes)
    return x->block_bytes < y->block_bytes ? -1 : 1;
  return x->capacity_bytes < y->capacity_bytes ? -1 : x->capacity_bytes > y->capacity_bytes;
}

/* CACTI's optimiser picks a new organisation now and then, and the read
 * energy of the larger SRAM can then dip below the smaller one's (by up to
 * 9 %: 22 nm, 4-byte words, 16 KiB). Read energy, leakage and area are
 * kept non-decreasing in capacity (the running maximum along each node and
 * word) so that a larger SRAM never costs less; write energies are
 * CACTI's (they dip by up to 14 %). */
static void
make_monotone (CactiRow *rows, guint n)
{
  g_autoptr (GPtrArray) base = g_ptr_array_new ();

  for (guint i = 0; i < n; i++)
    if (rows[i].banks == 1 && rows[i].ports == 1)
      g_ptr_array_add (base, &rows[i]);
  g_ptr_array_sort (base, compare_rows);
  for (guint i = 1; i < base->len; i++)
    {
      CactiRow *r = base->pdata[i];
      const CactiRow *prev = base->pdata[i - 1];
      if (prev->node_nm != r->node_nm || prev->block_bytes != r->block_bytes)
        continue;
      r->read_pj = MAX (r->read_pj, prev->read_pj);
      r->leak_mw = MAX (r->leak_mw, prev->leak_mw);
      r->area_mm2 = MAX (r->area_mm2, prev->area_mm2);
    }
}

static const Grid *
get_grid (void)
{
  static gsize initialised = 0;

  if (g_once_init_enter (&initialised))
    {
      double one = 1;
      grid.rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      grid.nodes = g_array_new (FALSE, FALSE, sizeof (double));
      grid.factor_nodes = g_array_new (FALSE, FALSE, sizeof (double));
      grid.bank_caps = g_array_new (FALSE, FALSE, sizeof (double));
      grid.bank_blocks = g_array_new (FALSE, FALSE, sizeof (double));
      grid.bank_counts = g_array_new (FALSE, FALSE, sizeof (double));
      grid.port_caps = g_array_new (FALSE, FALSE, sizeof (double));
      grid.port_blocks = g_array_new (FALSE, FALSE, sizeof (double));
      grid.port_counts = g_array_new (FALSE, FALSE, sizeof (double));
      g_array_append_val (grid.bank_counts, one);
      g_array_append_val (grid.port_counts, one);
      grid.copy = g_memdup2 (cacti_rows, sizeof (CactiRow) * MAX (cacti_n_rows, 1));
      make_monotone (grid.copy, cacti_n_rows);
      for (guint i = 0; i < cacti_n_rows; i++)
        {
          const CactiRow *r = &grid.copy[i];
          g_hash_table_insert (grid.rows, row_key (r->node_nm, r->capacity_bytes,
                                                   r->block_bytes, r->banks, r->ports),
                               (gpointer) r);
          if (r->banks == 1 && r->ports == 1)
            add_unique (grid.nodes, r->node_nm);
          else if (r->banks > 1)
            {
              add_unique (grid.factor_nodes, r->node_nm);
              add_unique (grid.bank_caps, r->capacity_bytes);
              add_unique (grid.bank_blocks, r->block_bytes);
              add_unique (grid.bank_counts, r->banks);
            }
          else
            {
              add_unique (grid.factor_nodes, r->node_nm);
              add_unique (grid.port_caps, r->capacity_bytes);
              add_unique (grid.port_blocks, r->block_bytes);
              add_unique (grid.port_counts, r->ports);
            }
        }
      g_array_sort (grid.nodes, compare_doubles);
      g_array_sort (grid.factor_nodes, compare_doubles);
      g_array_sort (grid.bank_caps, compare_doubles);
      g_array_sort (grid.bank_blocks, compare_doubles);
      g_array_sort (grid.bank_counts, compare_doubles);
      g_array_sort (grid.port_caps, compare_doubles);
      g_array_sort (grid.port_blocks, compare_doubles);
      g_array_sort (grid.port_counts, compare_doubles);
      g_once_init_leave (&initialised, 1);
    }
  return &grid;
}

static const CactiRow *
find_row (double node, double cap, double block, double banks, double ports)
{
  g_autofree char *key = row_key (node, cap, block, banks, ports);

  return g_hash_table_lookup (get_grid ()->rows, key);
}

/* The grid's capacities: powers of two and 1.5 x powers of two. */
#define MIN_GRID_CAP 256.0
#define MAX_GRID_CAP (128.0 * 1024 * 1024)
#define MIN_GRID_BLOCK 4.0
#define MAX_GRID_BLOCK 256.0

/* The grid capacities bracketing @cap (equal when it is on the grid; the
 * last two when beyond). */
static void
bracket_capacity (double cap, double *lo, double *hi)
{
  double p = exp2 (floor (log2 (cap)));

  if (cap >= MAX_GRID_CAP)
    {
      *lo = MAX_GRID_CAP / 2 * 1.5;
      *hi = MAX_GRID_CAP;
      return;
    }
  if (cap <= MIN_GRID_CAP)
    {
      *lo = MIN_GRID_CAP;
      *hi = MIN_GRID_CAP * 1.5;
      return;
    }
  if (cap == p)
    *lo = *hi = p;
  else if (cap < 1.5 * p)
    {
      *lo = p;
      *hi = 1.5 * p;
    }
  else if (cap == 1.5 * p)
    *lo = *hi = cap;
  else
    {
      *lo = 1.5 * p;
      *hi = 2 * p;
    }
}

/* Powers of two bracketing @x within [@min, @max] (the last two beyond). */
static void
bracket_pow2 (double x, double min, double max, double *lo, double *hi)
{
  double p = exp2 (floor (log2 (x)));

  if (x >= max)
    {
      *lo = max / 2;
      *hi = max;
    }
  else if (x <= min)
    {
      *lo = min;
      *hi = 2 * min;
    }
  else if (x == p)
    *lo = *hi = p;
  else
    {
      *lo = p;
      *hi = 2 * p;
    }
}

/* Linear interpolation (or extrapolation) of @y0, @y1 given at @x0, @x1. */
static double
lerp (double x, double x0, double x1, double y0, double y1)
{
  if (x0 == x1)
    return y0;
  return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

/* ln q of the one-bank one-port SRAM of @cap bytes and @block-byte words
 * at grid node @node, on the grid: the capacity raised to 64 words as
 * Accelergy does. NAN when CACTI has no row there. */
static double
base_at (double node, double cap, double block, int q)
{
  const CactiRow *r = find_row (node, MAX (cap, 64 * block), block, 1, 1);

  return r != NULL ? log (row_quantity (r, q)) : NAN;
}

/* ln q at any capacity and word, at grid node @node: bilinear in ln
 * capacity and ln word. */
static double
base_value (double node, double cap, double block, int q)
{
  double c0, c1, b0, b1, v[2][2];

  bracket_capacity (cap, &c0, &c1);
  bracket_pow2 (block, MIN_GRID_BLOCK, MAX_GRID_BLOCK, &b0, &b1);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      v[i][j] = base_at (node, i ? c1 : c0, j ? b1 : b0, q);
  for (int j = 0; j < 2; j++)
    {
      /* A capacity CACTI found nothing for: use the other one. */
      if (isnan (v[0][j]))
        v[0][j] = v[1][j];
      if (isnan (v[1][j]))
        v[1][j] = v[0][j];
    }
  {
    double lc = log (cap);
    double at_b0 = lerp (lc, log (c0), log (c1), v[0][0], v[1][0]);
    double at_b1 = lerp (lc, log (c0), log (c1), v[0][1], v[1][1]);
    if (isnan (at_b0))
      at_b0 = at_b1;
    if (isnan (at_b1))
      at_b1 = at_b0;
    return lerp (log (block), log (b0), log (b1), at_b0, at_b1);
  }
}

static void
bracket_list (double x, const double *list, guint n, double *lo, double *hi)
{
  if (n == 0)
    {
      *lo = *hi = NAN;
      return;
    }
  if (x <= list[0])
    {
      *lo = *hi = list[0];
      return;
    }
  for (guint i = 1; i < n; i++)
    if (x <= list[i])
      {
        *lo = list[i - 1];
        *hi = list[i];
        return;
      }
  *lo = *hi = list[n - 1];
}

/* ln (q with @count banks or ports / q with one) at coarse point (cap,
 * block), @count clamped to what the capacity allows; 0 where CACTI has
 * nothing. */
static double
ratio_at (double node, double cap, double block, double count, gboolean banks,
          int q)
{
  const CactiRow *one = find_row (node, cap, block, 1, 1);
  const CactiRow *r = NULL;

  for (double k = count; k > 1 && r == NULL; k /= 2)
    r = banks ? find_row (node, cap, block, k, 1) : find_row (node, cap, block, 1, k);
  if (one == NULL || r == NULL)
    return 0;
  return log (row_quantity (r, q)) - log (row_quantity (one, q));
}

#define LIST(a) ((const double *) (a)->data), (a)->len

/* ln of the factor @count banks (or ports) apply to q at factor node
 * @node: trilinear in ln capacity, ln word and ln count on the coarse grid,
 * clamped to it. */
static double
count_factor_at (double node, double cap, double block, double count, gboolean banks,
                 int q)
{
  const Grid *g = get_grid ();
  double c0, c1, b0, b1, k0, k1, v[2][2][2];

  if (banks)
    {
      bracket_list (cap, LIST (g->bank_caps), &c0, &c1);
      bracket_list (block, LIST (g->bank_blocks), &b0, &b1);
      bracket_list (count, LIST (g->bank_counts), &k0, &k1);
    }
  else
    {
      bracket_list (cap, LIST (g->port_caps), &c0, &c1);
      bracket_list (block, LIST (g->port_blocks), &b0, &b1);
      bracket_list (count, LIST (g->port_counts), &k0, &k1);
    }
  if (isnan (c0) || isnan (b0))
    return 0;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      for (int k = 0; k < 2; k++)
        v[i][j][k] = ratio_at (node, i ? c1 : c0, j ? b1 : b0, k ? k1 : k0, banks, q);
  {
    double lc = log (MIN (MAX (cap, c0), c1)), lb = log (MIN (MAX (block, b0), b1));
    double lk = log (MIN (MAX (count, k0), k1));
    double f[2];
    for (int k = 0; k < 2; k++)
      {
        double at_b0 = lerp (lc, log (c0), log (c1), v[0][0][k], v[1][0][k]);
        double at_b1 = lerp (lc, log (c0), log (c1), v[0][1][k], v[1][1][k]);
        f[k] = lerp (lb, log (b0), log (b1), at_b0, at_b1);
      }
    return lerp (lk, log (k0), log (k1), f[0], f[1]);
  }
}

/* The same at any grid node: interpolated between the factor nodes,
 * clamped beyond them. */
static double
count_factor (double node, double cap, double block, double count, gboolean banks,
              int q)
{
  const GArray *nodes = get_grid ()->factor_nodes;
  double n0, n1;

  if (count <= 1 || nodes->len == 0)
    return 0;
  bracket_list (node, LIST (nodes), &n0, &n1);
  if (n0 == n1)
    return count_factor_at (n0, cap, block, count, banks, q);
  return lerp (node, n0, n1, count_factor_at (n0, cap, block, count, banks, q),
               count_factor_at (n1, cap, block, count, banks, q));
}

/* ln q at grid node @node. */
static double
node_value (double node, double cap, double block, double banks, double ports, int q)
{
  return base_value (node, cap, block, q) + count_factor (node, cap, block, banks, TRUE, q)
         + count_factor (node, cap, block, ports, FALSE, q);
}

/* q at any node: interpolated between grid nodes, scaled beyond them. */
static double
sram_quantity (double nm, double cap, double block, double banks, double ports, int q)
{
  const GArray *nodes = get_grid ()->nodes;
  double first, last;

  g_return_val_if_fail (nodes->len > 0, NAN);
  first = g_array_index (nodes, double, 0);
  last = g_array_index (nodes, double, nodes->len - 1);
  if (nm <= first || nm >= last)
    {
      double at = nm <= first ? first : last;
      double v = exp (node_value (at, cap, block, banks, ports, q));
      if (q == Q_AREA)
        return v * ffm_technology_area_scale (at, nm);
      if (q == Q_CYCLE)
        return v;
      return v * ffm_technology_energy_scale (at, nm, NAN);
    }
  for (guint i = 1; i < nodes->len; i++)
    {
      double n0 = g_array_index (nodes, double, i - 1);
      double n1 = g_array_index (nodes, double, i);
      if (nm <= n1)
        return lerp (nm, n0, n1, exp (node_value (n0, cap, block, banks, ports, q)),
                     exp (node_value (n1, cap, block, banks, ports, q)));
    }
  return NAN;
}

/* ---- Classes ---- */

#define SOURCE_SRAM "CACTI 7 (HewlettPackard/cacti 1ffd8df) runs at 22-45 nm, " \
  "interpolated; Stillmaker-Baas 2017 scaling to 7-130 nm"
#define SOURCE_PARTS "Accelergy's class of this name in the " \
  "timeloop-accelergy-exercises, from its parts"

static const FfmEstimatorClass sram_classes[] = {
  { "SRAM", "read,write,update",
    "width (bits), depth (entries; or size in bits), n_banks (1), "
    "n_rdwr_ports|n_rw_ports (1), n_rd_ports (0), n_wr_ports (0), technology (nm)",
    SOURCE_SRAM },
  { "smartbuffer_SRAM", "read,write,update",
    "as SRAM; plus two intadder address generators of ceil(log2 depth) bits",
    SOURCE_PARTS },
  { "smartbuffer_RF", "read,write,update",
    "width (bits), depth (entries), technology (nm): a regfile of at least 32 x 64 "
    "scaled down, plus two address generators", SOURCE_PARTS },
  { "regfile", "read,write,update",
    "width (bits), depth (entries), technology (nm): width x depth registers and "
    "depth comparators of ceil(log2 depth) bits", SOURCE_PARTS },
  { NULL, NULL, NULL, NULL }
};

typedef struct {
  double width;     /* bits */
  double depth;     /* entries */
  double banks;
  double ports;
  double nm;
  double asked_banks;   /* before fitting the capacity */
} SramShape;

static gboolean
read_shape (const FfmEstimateQuery *query, SramShape *s, GError **error)
{
  double rdwr, rd, wr, size;

  if (!ffm_estimate_query_get_number (query, "width|datawidth", NAN, 1, MAX_WIDTH_BITS,
                                      &s->width, error))
    return FALSE;
  if (ffm_estimate_query_get_text (query, "depth") == NULL
      && ffm_estimate_query_get_text (query, "size") != NULL)
    {
      if (!ffm_estimate_query_get_number (query, "size", NAN, 1,
                                          MAX_CAPACITY_BYTES * 8, &size, error))
        return FALSE;
      s->depth = ceil (size / s->width);
    }
  else if (!ffm_estimate_query_get_number (query, "depth", NAN, 1,
                                           MAX_CAPACITY_BYTES * 8, &s->depth, error))
    return FALSE;
  if (s->width * s->depth / 8 > MAX_CAPACITY_BYTES)
    return ffm_estimate_query_fail (query, error, "depth", "width x depth = %g bytes "
                                    "is more than the %g bytes (1 GiB) this "
                                    "estimator extends to", s->width * s->depth / 8,
                                    MAX_CAPACITY_BYTES);
  if (!ffm_estimate_query_get_number (query, "n_banks", 1, 1, MAX_BANKS, &s->banks,
                                      error)
      || !ffm_estimate_query_get_number (query, "n_rdwr_ports|n_rw_ports", 1, 0,
                                         MAX_PORTS, &rdwr, error)
      || !ffm_estimate_query_get_number (query, "n_rd_ports", 0, 0, MAX_PORTS, &rd,
                                         error)
      || !ffm_estimate_query_get_number (query, "n_wr_ports", 0, 0, MAX_PORTS, &wr,
                                         error)
      || !ffm_estimate_query_get_technology (query, NAN, MIN_NODE_NM, MAX_NODE_NM,
                                             &s->nm, error))
    return FALSE;
  s->ports = MAX (1, rdwr + rd + wr);
  s->banks = exp2 (ceil (log2 (s->banks)));
  s->asked_banks = s->banks;
  /* CACTI wants 64 words per bank: a small SRAM gets fewer banks. */
  while (s->banks > 1
         && s->width * s->depth / 8 / MAX (4, floor (s->width / 8)) < 64 * s->banks)
    s->banks /= 2;
  return TRUE;
}

static gboolean
action_known (const char *action)
{
  return action == NULL || strcmp (action, "read") == 0 || strcmp (action, "write") == 0
         || strcmp (action, "update") == 0;
}

static gboolean
estimate_sram (const FfmEstimateQuery *query, const SramShape *s, const char *action,
               FfmEstimate *e, GError **error)
{
  double block = MAX (4, floor (s->width / 8));
  double cap = MAX (s->width * s->depth / 8, 64 * block);
  double cycle = sram_quantity (s->nm, cap, block, s->banks, s->ports, Q_CYCLE);

  if (action != NULL)
    e->energy = sram_quantity (s->nm, cap, block, s->banks, s->ports,
                               strcmp (action, "read") == 0 ? Q_READ : Q_WRITE) * PJ;
  e->leak_power = sram_quantity (s->nm, cap, block, s->banks, s->ports, Q_LEAK) * MW;
  e->area = sram_quantity (s->nm, cap, block, s->banks, s->ports, Q_AREA) * MM2;
  e->bandwidth = s->width * s->banks / (cycle * NS);
  e->action_bits = s->width;
  e->accuracy = SRAM_ACCURACY;
  if ((action != NULL && isnan (e->energy)) || isnan (e->leak_power) || isnan (e->area)
      || isnan (cycle))
    {
      g_set_error (error, FFM_ESTIMATOR_ERROR, FFM_ESTIMATOR_ERROR_INVALID,
                   "component %s (class %s): the CACTI table has no organisation "
                   "near %g bytes of %g-byte words, %g banks, %g ports at %g nm",
                   ffm_estimate_query_get_component (query),
                   ffm_estimate_query_get_class (query), cap, block, s->banks,
                   s->ports, s->nm);
      return FALSE;
    }
  if (s->banks < s->asked_banks)
    e->note = g_strdup_printf ("%g banks, not %g: CACTI needs 64 words per bank",
                               s->banks, s->asked_banks);
  return TRUE;
}

/* A part's answer folded into @e: @energy_copies of its action energy,
 * @copies of its leakage and area (each scaled). */
typedef struct {
  double energy_scale;
  double leak_scale;
  double area_scale;
} PartScales;

static gboolean
add_part (const FfmEstimateQuery *query, const char *part, const char *class_name,
          FfmParamValues *attrs, const char *action, PartScales scales,
          FfmEstimate *e, GError **error)
{
  FfmComponentEstimate p;

  if (!ffm_estimate_query_estimate_part (query, part, class_name, attrs, action, &p,
                                         error))
    return FALSE;
  if (action != NULL)
    e->energy = (isnan (e->energy) ? 0 : e->energy) + scales.energy_scale * p.energy.value;
  if (!isnan (p.leak_power.value))
    e->leak_power = (isnan (e->leak_power) ? 0 : e->leak_power)
                    + scales.leak_scale * p.leak_power.value;
  if (!isnan (p.area.value))
    e->area = (isnan (e->area) ? 0 : e->area) + scales.area_scale * p.area.value;
  if (action != NULL && p.energy.accuracy < e->accuracy)
    e->accuracy = p.energy.accuracy;
  return TRUE;
}

static FfmParamValues *
part_attributes (const char *technology)
{
  FfmParamValues *attrs = ffm_param_values_new ();

  if (technology != NULL)
    ffm_param_values_set (attrs, "technology", technology);
  return attrs;
}

static void
set_number (FfmParamValues *attrs, const char *name, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  ffm_param_values_set (attrs, name, ffm_format_double (value, buffer));
}

/* Two address generators: one per read, one per write; both leak. */
static gboolean
add_address_generators (const FfmEstimateQuery *query, double depth,
                        const char *action, FfmEstimate *e, GError **error)
{
  g_autoptr (FfmParamValues) attrs =
    part_attributes (ffm_estimate_query_get_text (query, "technology|tech_node"));
  PartScales scales = { 1, 2, 2 };

  set_number (attrs, "n_bits", MAX (1, ceil (log2 (depth))));
  return add_part (query, "address_generators", "intadder", attrs,
                   action != NULL ? "add" : NULL, scales, e, error);
}

static gboolean
estimate_regfile (const FfmEstimateQuery *query, double width, double depth,
                  const char *action, double energy_scale, double static_scale,
                  FfmEstimate *e, GError **error)
{
  const char *technology = ffm_estimate_query_get_text (query, "technology|tech_node");
  g_autoptr (FfmParamValues) reg = part_attributes (technology);
  g_autoptr (FfmParamValues) cmp = part_attributes (technology);
  PartScales reg_scales = { width * energy_scale, width * depth * static_scale,
                            width * depth * static_scale };
  PartScales cmp_scales = { depth * energy_scale, depth * static_scale,
                            depth * static_scale };

  set_number (reg, "n_bits", 1);
  set_number (cmp, "n_bits", MAX (1, ceil (log2 (depth))));
  return add_part (query, "storage", "register", reg, action, reg_scales, e, error)
         && add_part (query, "comparators", "comparator", cmp,
                      action != NULL ? "compare" : NULL, cmp_scales, e, error);
}

static gboolean
sram_estimate (const FfmEstimateQuery *query, FfmEstimate *e, GError **error)
{
  const char *class_name = ffm_estimate_query_get_class (query);
  const char *action = ffm_estimate_query_get_action (query);
  SramShape s;

  if (!action_known (action))
    return ffm_estimate_query_unsupported (query, error, "no action '%s'", action);
  if (g_ascii_strcasecmp (class_name, "regfile") == 0
      || g_ascii_strcasecmp (class_name, "smartbuffer_RF") == 0)
    {
      double width, depth;
      const char *reg_action = action == NULL ? NULL
                               : strcmp (action, "read") == 0 ? "read" : "write";
      if (!ffm_estimate_query_get_number (query, "width|datawidth", NAN, 1,
                                          MAX_WIDTH_BITS, &width, error)
          || !ffm_estimate_query_get_number (query, "depth", NAN, 1, 1 << 24, &depth,
                                             error))
        return FALSE;
      if (ffm_estimate_query_get_text (query, "technology|tech_node") == NULL)
        return ffm_estimate_query_fail (query, error, "technology",
                                        "missing (the node in nm, e.g. 45nm)");
      e->accuracy = SRAM_ACCURACY;
      if (g_ascii_strcasecmp (class_name, "regfile") == 0)
        return estimate_regfile (query, width, depth, reg_action, 1, 1, e, error);
      {
        double mw = MAX (32, width), md = MAX (64, depth);
        double ws = width / mw, ds = depth / md;
        return estimate_regfile (query, mw, md, reg_action, ws * pow (ds, 1.56 / 2),
                                 ws * ds, e, error)
               && add_address_generators (query, depth, action, e, error);
      }
    }
  if (!read_shape (query, &s, error) || !estimate_sram (query, &s, action, e, error))
    return FALSE;
  if (g_ascii_strcasecmp (class_name, "smartbuffer_SRAM") == 0)
    return add_address_generators (query, s.depth, action, e, error);
  return TRUE;
}

static const FfmEstimatorVTable sram_vtable = {
  .struct_size = sizeof (FfmEstimatorVTable),
  .classes = sram_classes,
  .estimate = sram_estimate,
};

FFM_PLUGIN_DEFINE (FFM_PLUGIN_KIND_ESTIMATOR, SRAM_NAME, "1.0",
                   "SRAM scratchpads (CACTI 7 table), register files and smart "
                   "buffers: energy per access, leakage, area, bandwidth", estimator,
                   &sram_vtable)
