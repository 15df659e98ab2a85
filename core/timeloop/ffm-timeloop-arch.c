/* ffm-timeloop-arch.c: a Timeloop architecture with its energy reference
 * table as an ffm architecture.
 *
 * The chain of components (ffm-timeloop-nodes.c) becomes ffm's levels:
 * each memory a memory level, each placeholder level (the front end's
 * inter_NAME_spatial) a memory that keeps nothing and costs nothing, the
 * compute unit a compute level; between two levels whose instance counts
 * grow, a fanout whose dimension X grows by the ratio of their meshX, Y
 * by that of meshY.
 *
 * A memory charges what Timeloop charges (docs/timeloop.md): an action
 * moves one block of datawidth-bit words, its size as Timeloop derives it
 * (block_size; else width / cluster_size / datawidth when cluster_size is
 * given; else width / datawidth), costs the ERT's read, fill or update
 * energy (Timeloop's action names, first match: random_read, read;
 * random_fill, random_write, fill, write; random_update, random_write,
 * update, write), and a drain reads nothing. Capacity is depth x block
 * words (or entries, or sizeKB), divided by multiple_buffering; bandwidths
 * are words per cycle, one cycle the global_cycle_seconds attribute (1 ns
 * if none). The compute unit does one operation per cycle per instance at
 * the ERT's energy (mac_random, mult_random, mac, mult, compute). The rest
 * of Timeloop's counting (whole blocks, clusters, leak on used instances
 * only and none on the compute unit, operands reused at the compute unit)
 * is written into the levels as the conventions ask
 * (ffm_timeloop_spec_set_conventions()). Attribute names match with '-'
 * and '_' alike, as Timeloop reads them. */
#include "ffm-timeloop-private.h"

#include <math.h>
#include <string.h>

#define PJ 1e-12
#define UM2 1e-12
#define DEFAULT_CYCLE_SECONDS 1e-9
#define DEFAULT_WORD_BITS 16            /* Timeloop's */

static const char *const ert_keys[] = { "version", "tables", NULL };
static const char *const table_keys[] = { "name", "actions", NULL };
static const char *const action_keys[] = { "name", "arguments", "energy", NULL };
static const char *const art_table_keys[] = { "name", "area", NULL };

/* Attributes ffm reads (memories and compute units), '_' spelling, ... */
static const char *const used_attributes[] = {
  "depth", "memory_depth", "data_storage_depth", "entries", "sizeKB", "width",
  "memory_width", "datawidth", "word_bits", "word_width", "block_size",
  "n_words", "cluster_size", "read_bandwidth", "write_bandwidth", "bandwidth",
  "shared_bandwidth", "multiple_buffering", "instances", "meshX", "meshY",
  "global_cycle_seconds", "vector_access_energy", "energy_per_hop", NULL
};
/* ... those that only feed Accelergy's or Timeloop's own energy and area
 * models (ffm takes energies from the ERT), or say what changes nothing
 * for dense tensors ... */
static const char *const estimator_attributes[] = {
  "technology", "num_ports", "n_ports", "num_banks", "n_banks",
  "n_rdwr_ports", "n_rd_ports", "n_wr_ports", "n_rw_ports", "nports",
  "latency", "addr_gen_energy", "cluster_area", "type", "area", "voltage",
  "ports", "banks", "has_power_gating", "power_gated_at", "reduction_supported",
  "multiplier_width", "adder_width", "width_a", "width_b", "subclass",
  "version", "update_fifo_depth", "metadata_block_size",
  "concordant_compressed_tile_traversal", "tile_partition_supported",
  "decompression_supported", "compression_supported", NULL
};
/* ... and those that change Timeloop's model in ways ffm does not follow
 * (a nonzero value changes Timeloop's numbers). */
static const char *const not_modelled_attributes[] = {
  "min_utilization", "allow_overbooking", "network_read", "network_fill",
  "network_drain", "network_update", "metadata_datawidth",
  "metadata_storage_width", "metadata_storage_depth", "read_write",
  "network_fill_latency", "network_drain_latency",
  "per_dataspace_bandwidth_consumption_scale", NULL
};

static const char *const read_actions[] = { "random_read", "read", NULL };
static const char *const fill_actions[] = {
  "random_fill", "random_write", "fill", "write", NULL
};
static const char *const update_actions[] = {
  "random_update", "random_write", "update", "write", NULL
};
static const char *const compute_actions[] = {
  "mac_random", "mult_random", "mac", "mult", "compute", NULL
};
static const char *const leak_actions[] = { "leak", NULL };

typedef struct {
  FfmTimeloopSpec *spec;
  FfmTimeloopConventions conv;
  const FfmTlNode *ert;
  const FfmTlNode *art;
  FfmTlEstimators *estimators;  /* ffm's component estimators (the default) */
} Arch;

/* ---- Attributes ---- */

/* The first of @names the component has, as a number; FALSE on a value
 * that is not one. *@found says whether one was there. */
static gboolean
attribute_number (const FfmTlComp *c, const char *const *names, double *out,
                  gboolean *found, GError **error)
{
  *found = FALSE;
  for (guint i = 0; names[i] != NULL; i++)
    {
      const FfmTlNode *v = ffm_tl_comp_attribute (c, names[i], NULL);
      g_autofree char *path = NULL;
      if (v == NULL)
        continue;
      path = g_strdup_printf ("%s (%s).attributes.%s", c->path, c->base, names[i]);
      *found = TRUE;
      return ffm_tl_number (v, path, out, error);
    }
  return TRUE;
}

static gboolean
attribute_whole (const FfmTlComp *c, const char *const *names, double *out,
                 gboolean *found, GError **error)
{
  const FfmTlNode *v = NULL, *key = NULL;

  if (!attribute_number (c, names, out, found, error))
    return FALSE;
  if (!*found || (*out >= 1 && *out == floor (*out) && *out <= FFM_MAX_EXACT_INTEGER))
    return TRUE;
  for (guint i = 0; names[i] != NULL && v == NULL; i++)
    v = ffm_tl_comp_attribute (c, names[i], &key);
  return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, v, c->path,
                      "%s: %s must be a whole number >= 1, got %s", c->base,
                      key->text, v->text);
}

static gboolean
in_list (const char *const *list, const char *name)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (ffm_tl_key_equal (list[i], name))
      return TRUE;
  return FALSE;
}

/* Warns about attributes ffm does not follow, once per component. */
static void
check_attributes (Arch *a, const FfmTlComp *c)
{
  for (guint i = 0; i < c->attr_keys->len; i++)
    {
      const FfmTlNode *key = c->attr_keys->pdata[i];
      const FfmTlNode *value = c->attr_values->pdata[i];
      g_autofree char *path = g_strdup_printf ("%s (%s).attributes.%s",
                                               c->path, c->base, key->text);
      double v;
      gboolean is_zero = value->kind == FFM_TL_SCALAR
        && ((ffm_tl_number (value, path, &v, NULL) && v == 0)
            || g_ascii_strcasecmp (value->text, "false") == 0
            || value->text[0] == '\0' || strcmp (value->text, "null") == 0);

      if (in_list (used_attributes, key->text))
        {
          if (ffm_tl_key_equal (key->text, "energy_per_hop") && !is_zero)
            ffm_tl_warn (a->spec, FFM_TL_WARN_NETWORK, key, path,
                         "network energy is not modelled: ffm charges "
                         "nothing per hop");
          continue;
        }
      if (in_list (estimator_attributes, key->text))
        continue;
      if (in_list (not_modelled_attributes, key->text))
        {
          if (!is_zero)
            ffm_tl_warn (a->spec, FFM_TL_WARN_NOT_MODELLED, key, path,
                         "ignored: ffm does not model %s", key->text);
        }
      else
        ffm_tl_warn (a->spec, FFM_TL_WARN_UNKNOWN_ATTRIBUTE, key, path,
                     "unknown attribute, ignored");
    }
}

/* ---- Tables ---- */

/* "System.PE[0..15].RegisterFile" -> "System.PE.RegisterFile" */
static char *
without_ranges (const char *name)
{
  GString *plain = g_string_new (NULL);

  for (const char *p = name; *p != '\0'; p++)
    {
      if (*p == '[')
        {
          const char *close = strchr (p, ']');
          if (close != NULL)
            {
              p = close;
              continue;
            }
        }
      g_string_append_c (plain, *p);
    }
  return g_string_free (plain, FALSE);
}

/* The tables of @root checked: a list of {name, actions}, no name twice
 * (Timeloop would use one of them silently). */
static gboolean
check_tables (const FfmTlNode *root, const char *kind, GError **error)
{
  const FfmTlNode *tables = ffm_tl_get (root, "tables");
  g_autofree char *tables_path = g_strdup_printf ("%s.tables", kind);

  if (!ffm_tl_check_keys (root, kind, ert_keys, error)
      || !ffm_tl_check_version (root, kind, error))
    return FALSE;
  if (tables == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, root, kind,
                        "missing key 'tables'");
  if (tables->kind == FFM_TL_MAPPING)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, tables, tables_path,
                        "tables keyed by component (an %s of version 0.2) are "
                        "not read: give the list of {name, actions} of "
                        "version 0.3 or 0.4", kind);
  if (!ffm_tl_require (tables, FFM_TL_SEQUENCE, tables_path, error))
    return FALSE;
  for (guint i = 0; i < tables->n_items; i++)
    {
      const FfmTlNode *t = tables->items[i], *name = ffm_tl_get (t, "name");
      g_autofree char *path = ffm_tl_path_index (tables_path, i);
      if (t->kind != FFM_TL_MAPPING || name == NULL || name->kind != FFM_TL_SCALAR)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, t, path,
                            "a table is a mapping with a 'name'");
      for (guint j = 0; j < i; j++)
        {
          const FfmTlNode *o = ffm_tl_get (tables->items[j], "name");
          if (strcmp (o->text, name->text) == 0)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, name, path,
                                "a second table named %s (also line %u): "
                                "give each component one", name->text, o->line);
        }
    }
  return TRUE;
}

/* The ERT or ART table of component @c: the one named like its dotted
 * path, else the one whose last name is its name (Timeloop's rule),
 * ranges left out. */
static const FfmTlNode *
find_table (const FfmTlNode *table_root, const FfmTlComp *c)
{
  const FfmTlNode *tables = ffm_tl_get (table_root, "tables");
  const FfmTlNode *found = NULL;

  if (tables == NULL)
    return NULL;
  for (guint i = 0; i < tables->n_items; i++)
    {
      const FfmTlNode *t = tables->items[i];
      g_autofree char *plain = without_ranges (ffm_tl_get (t, "name")->text);
      const char *last;
      if (strcmp (plain, c->hier) == 0)
        return t;
      last = strrchr (plain, '.');
      last = last != NULL ? last + 1 : plain;
      if (found == NULL && strcmp (last, c->base) == 0)
        found = t;
    }
  return found;
}

/* The energy of the first of @names in ERT table @table, pJ; several
 * entries of one action (arguments) give the largest, as Timeloop does. */
static gboolean
table_energy (Arch *a, const FfmTlNode *table, const char *const *names,
              double *pj, gboolean *found, GError **error)
{
  const FfmTlNode *actions = ffm_tl_get (table, "actions");
  const char *tname = ffm_tl_get (table, "name")->text;
  g_autofree char *path = g_strdup_printf ("ERT.tables (%s).actions", tname);

  *found = FALSE;
  if (!ffm_tl_check_keys (table, "ERT.tables", table_keys, error))
    return FALSE;
  if (actions == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, table,
                        "ERT.tables", "table %s: missing key 'actions'", tname);
  if (!ffm_tl_require (actions, FFM_TL_SEQUENCE, path, error))
    return FALSE;
  for (guint n = 0; names[n] != NULL && !*found; n++)
    {
      guint entries = 0;
      for (guint i = 0; i < actions->n_items; i++)
        {
          const FfmTlNode *act = actions->items[i], *name, *energy;
          g_autofree char *sub = ffm_tl_path_index (path, i);
          g_autofree char *energy_path = ffm_tl_path_key (sub, "energy");
          double value;

          if (!ffm_tl_check_keys (act, sub, action_keys, error))
            return FALSE;
          name = ffm_tl_get (act, "name");
          if (name == NULL || name->kind != FFM_TL_SCALAR)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, act, sub,
                                "missing key 'name'");
          if (strcmp (name->text, names[n]) != 0)
            continue;
          if ((energy = ffm_tl_get (act, "energy")) == NULL)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, act, sub,
                                "missing key 'energy'");
          if (!ffm_tl_number (energy, energy_path, &value, error))
            return FALSE;
          if (value < 0)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, energy,
                                energy_path, "an energy must be >= 0, got %s",
                                energy->text);
          *pj = entries == 0 ? value : MAX (*pj, value);
          entries++;
          *found = TRUE;
          if (entries == 2)
            ffm_tl_warn (a->spec, FFM_TL_WARN_ERT, act, sub, "%s has several "
                         "energies for action %s (arguments): the largest is "
                         "used, as Timeloop does", tname, names[n]);
        }
    }
  return TRUE;
}

static gboolean
required_energy (Arch *a, const FfmTlComp *c, const FfmTlNode *table,
                 const char *const *names, double *joules, GError **error)
{
  gboolean found;
  double pj = 0;

  if (!table_energy (a, table, names, &pj, &found, error))
    return FALSE;
  if (!found)
    {
      g_autofree char *list = g_strjoinv (", ", (char **) names);
      return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, table,
                          "ERT.tables", "table %s (for %s) has no energy for "
                          "any of the actions %s", ffm_tl_get (table, "name")->text,
                          c->base, list);
    }
  *joules = pj * PJ;
  return TRUE;
}

/* ---- Energies without an ERT entry ---- */

/* The cycle of @c's leak: its global_cycle_seconds, else 1 ns (checked
 * with the geometry later). */
static double
leak_cycle_seconds (const FfmTlComp *c)
{
  const FfmTlNode *v = ffm_tl_comp_attribute (c, "global_cycle_seconds", NULL);
  double seconds;

  if (v == NULL || !ffm_tl_number (v, "global_cycle_seconds", &seconds, NULL)
      || !(seconds > 0))
    return DEFAULT_CYCLE_SECONDS;
  return seconds;
}

/* Asks the estimator about @c (the program's, else ffm's component
 * estimators); FALSE when it has no estimate, with *@why (transfer full,
 * may be NULL) saying why. */
static gboolean
estimate (Arch *a, const FfmTlComp *c, FfmTimeloopActionEnergies *out, char **why)
{
  gpointer data = NULL;
  FfmTimeloopEstimator estimator = ffm_tl_spec_get_estimator (a->spec, &data);
  g_autoptr (GPtrArray) names = NULL, values = NULL;
  g_autofree char *file = NULL;
  FfmTimeloopComponent q;
  static const FfmTlEstimatorActions actions = {
    read_actions, fill_actions, update_actions, compute_actions
  };

  out->read = out->fill = out->update = out->compute = out->leak = NAN;
  out->area = NAN;
  out->source = NULL;
  *why = NULL;
  if (estimator == NULL)
    {
      /* Timeloop charges no leak on the compute unit */
      gboolean with_leak = c->kind != FFM_TL_COMP_COMPUTE
                           || (a->conv & FFM_TIMELOOP_FFM_LEAK);
      if (a->estimators == NULL)
        a->estimators = ffm_tl_estimators_new (a->spec);
      return ffm_tl_estimators_price (a->estimators, c, &actions,
                                      leak_cycle_seconds (c), with_leak, out, why);
    }
  names = g_ptr_array_new_with_free_func (g_free);
  values = g_ptr_array_new ();
  for (guint i = 0; i < c->attr_keys->len; i++)
    {
      const FfmTlNode *v = c->attr_values->pdata[i];
      if (v->kind != FFM_TL_SCALAR)
        continue;
      g_ptr_array_add (names, ffm_tl_key_normalize (((FfmTlNode *) c->attr_keys->pdata[i])->text));
      g_ptr_array_add (values, v->text);
    }
  g_ptr_array_add (names, NULL);
  g_ptr_array_add (values, NULL);
  q.component = c->base;
  q.class_name = c->cls;
  q.attribute_names = (const char *const *) names->pdata;
  q.attribute_values = (const char *const *) values->pdata;
  file = ffm_tl_describe_class (a->spec, c->cls);
  q.class_file = g_str_has_prefix (file, "compound") ? file : NULL;
  return estimator (&q, out, data);
}

/* One error naming every component without an energy: what each is, and
 * which ERT to give. */
static gboolean
no_energies (Arch *a, const GPtrArray *missing, const GPtrArray *whys,
             GError **error)
{
  GString *s = g_string_new (NULL);
  const FfmTlComp *first = missing->pdata[0];
  g_autofree char *what = ffm_tl_describe_class (a->spec, first->cls);
  const char *why = whys->pdata[0];

  g_string_append_printf (s, "%s %s (%s) has no entry in the energy reference "
                          "table%s and no estimate%s%s", first->kind == FFM_TL_COMP_COMPUTE
                          ? "compute unit" : "memory", first->base, what,
                          a->ert == NULL ? " (the files have no ERT)" : "",
                          why != NULL ? ": " : "", why != NULL ? why : "");
  for (guint i = 1; i < missing->len; i++)
    {
      const FfmTlComp *c = missing->pdata[i];
      g_autofree char *cw = ffm_tl_describe_class (a->spec, c->cls);
      why = whys->pdata[i];
      g_string_append_printf (s, "%s %s (%s:%u, %s%s%s)", i == 1 ? "; nor has" : ",",
                              c->base, c->node->file, c->node->line, cw,
                              why != NULL ? ": " : "", why != NULL ? why : "");
    }
  g_string_append (s, ". ffm does not run Accelergy; its component "
                   "estimators (ffm list) price the classes they know: give "
                   "the ERT Accelergy wrote for this design (Timeloop writes "
                   "it next to its outputs as timeloop-mapper.ERT.yaml or "
                   "timeloop-model.ERT.yaml), e.g. --arch "
                   "timeloop:DESIGN,OUTPUTS/timeloop-mapper.ERT.yaml");
  ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, first->node, first->path,
               "%s", s->str);
  g_string_free (s, TRUE);
  return FALSE;
}

/* ---- Levels ---- */

typedef struct {
  double cycle_seconds;
  double mesh_x;            /* per component */
  double mesh_y;
} Geometry;

static gboolean
component_geometry (FfmTlComp *c, Geometry *g, GError **error)
{
  static const char *const instances_names[] = { "instances", NULL };
  static const char *const mesh_x_names[] = { "meshX", NULL };
  static const char *const mesh_y_names[] = { "meshY", NULL };
  static const char *const cycle_names[] = { "global_cycle_seconds", NULL };
  double instances = (double) c->instances, mx = 0, my = 0, cycle = 0;
  gboolean has_i, has_x, has_y, has_cycle;

  if (!attribute_number (c, cycle_names, &cycle, &has_cycle, error))
    return FALSE;
  if (has_cycle && !(cycle > 0))
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node, c->path,
                        "%s: global_cycle_seconds must be > 0", c->base);
  g->cycle_seconds = has_cycle ? cycle : DEFAULT_CYCLE_SECONDS;
  if (c->mesh_x > 0)
    {
      /* The nodes form: the containers' meshes. */
      g->mesh_x = (double) c->mesh_x;
      g->mesh_y = (double) c->mesh_y;
      return TRUE;
    }
  if (!attribute_whole (c, instances_names, &instances, &has_i, error)
      || !attribute_whole (c, mesh_x_names, &mx, &has_x, error)
      || !attribute_whole (c, mesh_y_names, &my, &has_y, error))
    return FALSE;
  if (has_i)
    c->instances = (guint64) instances;
  if (!has_x && !has_y)
    {
      mx = (double) c->instances;
      my = 1;
    }
  else if (!has_y)
    my = (double) c->instances / mx;
  else if (!has_x)
    mx = (double) c->instances / my;
  if (mx * my != (double) c->instances || mx != floor (mx) || my != floor (my))
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node, c->path,
                        "%s: %" G_GUINT64_FORMAT " instances do not make a "
                        "meshX x meshY grid of %g x %g", c->base, c->instances,
                        mx, my);
  g->mesh_x = mx;
  g->mesh_y = my;
  return TRUE;
}

static void
describe_level (FfmLevel *level, const FfmTlComp *c)
{
  level->description = c->kind == FFM_TL_COMP_DUMMY
    ? g_strdup_printf ("Timeloop %s: placeholder level above a fanout, keeps "
                       "nothing (%s:%u)", c->hier, c->node->file, c->node->line)
    : g_strdup_printf ("Timeloop %s (class %s), %s:%u", c->hier, c->cls,
                       c->node->file, c->node->line);
}

static void
dummy_level (const FfmTlComp *c, FfmArch *arch)
{
  FfmLevel *level = ffm_arch_add_memory (arch, c->name);
  FfmMemorySpec *m = &level->u.memory;

  describe_level (level, c);
  m->size = INFINITY;
  m->may_keep = g_strdup ("nothing");
  m->drains_read = FALSE;
}

/* A level priced by an estimator: who gave which number, its area. */
static void
estimated_level (Arch *a, const FfmTlComp *c, FfmLevel *level,
                 const FfmTimeloopActionEnergies *est)
{
  const char *by = est->source != NULL ? est->source : "an estimator";

  g_free (level->estimated_by);
  level->estimated_by = g_strdup (by);
  if (!isnan (est->area) && est->area >= 0)
    level->area = est->area * UM2;
  ffm_tl_warn (a->spec, FFM_TL_WARN_ESTIMATED, c->node, c->path,
               "%s: no ERT entry, estimated (%s)", c->base, by);
}

static gboolean
memory_level (Arch *a, const FfmTlComp *c, gboolean outermost,
              const FfmTlNode *table, const FfmTimeloopActionEnergies *est,
              const Geometry *g, FfmArch *arch, GError **error)
{
  static const char *const word_names[] = { "word_bits", "word_width", "datawidth", NULL };
  static const char *const block_names[] = { "block_size", "n_words", NULL };
  static const char *const width_names[] = { "width", "memory_width", NULL };
  static const char *const cluster_names[] = { "cluster_size", NULL };
  static const char *const entries_names[] = { "entries", NULL };
  static const char *const depth_names[] = {
    "depth", "memory_depth", "data_storage_depth", NULL
  };
  static const char *const kb_names[] = { "sizeKB", NULL };
  static const char *const mb_names[] = { "multiple_buffering", NULL };
  static const char *const rbw_names[] = { "read_bandwidth", NULL };
  static const char *const wbw_names[] = { "write_bandwidth", NULL };
  static const char *const sbw_names[] = { "shared_bandwidth", NULL };
  static const char *const bw_names[] = { "bandwidth", NULL };
  static const char *const vae_names[] = { "vector_access_energy", NULL };
  double word = DEFAULT_WORD_BITS, block = 1, width = 0, cluster = 1, entries = 0,
    depth = 0, kb = 0, mb = 1, rbw = INFINITY, wbw = INFINITY, sbw = 0, bw = 0,
    vae = NAN;
  gboolean has_word, has_block, has_width, has_cluster, has_entries, has_depth,
    has_kb, has_mb, has_rbw, has_wbw, has_sbw, has_bw, has_vae, found;
  FfmLevel *level;
  FfmMemorySpec *m;
  double words = INFINITY, leak = 0;

  if (!attribute_whole (c, word_names, &word, &has_word, error)
      || !attribute_whole (c, block_names, &block, &has_block, error)
      || !attribute_whole (c, width_names, &width, &has_width, error)
      || !attribute_whole (c, cluster_names, &cluster, &has_cluster, error)
      || !attribute_whole (c, entries_names, &entries, &has_entries, error)
      || !attribute_whole (c, depth_names, &depth, &has_depth, error)
      || !attribute_number (c, kb_names, &kb, &has_kb, error)
      || !attribute_number (c, mb_names, &mb, &has_mb, error)
      || !attribute_number (c, rbw_names, &rbw, &has_rbw, error)
      || !attribute_number (c, wbw_names, &wbw, &has_wbw, error)
      || !attribute_number (c, sbw_names, &sbw, &has_sbw, error)
      || !attribute_number (c, bw_names, &bw, &has_bw, error)
      || !attribute_number (c, vae_names, &vae, &has_vae, error))
    return FALSE;
  if (!has_word)
    ffm_tl_warn (a->spec, FFM_TL_WARN_DEFAULT, c->node, c->path, "%s has no "
                 "datawidth: Timeloop's default of %d bits per word is used",
                 c->base, DEFAULT_WORD_BITS);
  /* Timeloop's block and cluster sizes from the width. */
  if (has_width)
    {
      if (has_block && has_cluster)
        {
          if (block * word * cluster != width)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node, c->path,
                                "%s: block_size x datawidth x cluster_size = "
                                "%g, not the width %g", c->base,
                                block * word * cluster, width);
        }
      else if (has_cluster)
        block = width / cluster / word;
      else if (has_block)
        cluster = width / (word * block);
      else
        {
          block = width / word;
          cluster = 1;
        }
      if (block < 1 || block != floor (block) || fmod (width, word * block) != 0)
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node, c->path,
                            "%s: width %g is not a whole number of blocks of "
                            "datawidth %g bits", c->base, width, word);
    }
  if ((a->conv & FFM_TIMELOOP_FFM_BLOCKS) && !has_block)
    block = 1;
  if (has_entries)
    words = entries;
  else if (has_depth)
    words = depth * block;
  else if (has_kb)
    words = floor (kb * 1024 * 8 / word);
  if (has_mb)
    {
      if (!(mb >= 1))
        return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node, c->path,
                            "%s: multiple_buffering must be >= 1, got %g",
                            c->base, mb);
      words = floor (words / mb);
    }
  if (has_bw && !has_rbw && !has_wbw)
    {
      /* Timeloop: the deprecated bandwidth is split between the two. */
      rbw = wbw = bw / 2;
      ffm_tl_warn (a->spec, FFM_TL_WARN_DEPRECATED, c->node, c->path, "%s: "
                   "bandwidth is deprecated in Timeloop; read_bandwidth = "
                   "write_bandwidth = bandwidth / 2", c->base);
    }
  if (!(rbw > 0) || !(wbw > 0) || (has_sbw && !(sbw > 0)))
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c->node, c->path,
                        "%s: bandwidths must be > 0 words per cycle", c->base);

  level = ffm_arch_add_memory (arch, c->name);
  m = &level->u.memory;
  describe_level (level, c);
  m->bits_per_action = word * block;
  ffm_level_add_bits_override (level, "all", word);
  m->size = words * word;
  m->drains_read = FALSE;
  m->ports = has_sbw ? FFM_PORTS_SHARED : FFM_PORTS_SEPARATE;
  m->read_bandwidth = (has_sbw ? sbw : rbw) / block / g->cycle_seconds;
  m->write_bandwidth = (has_sbw ? sbw : wbw) / block / g->cycle_seconds;
  m->whole_actions = !(a->conv & FFM_TIMELOOP_FFM_WHOLE_BLOCKS);
  m->cluster_size = (a->conv & FFM_TIMELOOP_FFM_CLUSTERS) ? 1 : cluster;
  level->leak_utilized = !(a->conv & FFM_TIMELOOP_FFM_LEAK);
  if (outermost)
    m->keep = g_strdup ("all");
  if (table == NULL && est != NULL)
    {
      m->read_energy = est->read * PJ;
      m->fill_energy = (isnan (est->fill) ? est->read : est->fill) * PJ;
      m->update_energy = isnan (est->update) ? m->fill_energy : est->update * PJ;
      m->write_energy = m->fill_energy;
      level->leak_power = isnan (est->leak) ? 0 : est->leak * PJ / g->cycle_seconds;
      estimated_level (a, c, level, est);
      return TRUE;
    }
  if (table == NULL)
    {
      /* Timeloop's fallback without an ERT entry: the vector access
       * energy, divided among a cluster's instances. */
      m->read_energy = m->write_energy = vae * PJ / cluster;
      return TRUE;
    }
  if (!required_energy (a, c, table, read_actions, &m->read_energy, error)
      || !required_energy (a, c, table, fill_actions, &m->fill_energy, error)
      || !required_energy (a, c, table, update_actions, &m->update_energy, error)
      || !table_energy (a, table, leak_actions, &leak, &found, error))
    return FALSE;
  m->write_energy = m->fill_energy;
  level->leak_power = found ? leak * PJ / g->cycle_seconds : 0;
  return TRUE;
}

static gboolean
compute_level (Arch *a, const FfmTlComp *c, const FfmTlNode *table,
               const FfmTimeloopActionEnergies *est, const Geometry *g,
               FfmArch *arch, GError **error)
{
  FfmLevel *level;
  double leak = 0;
  gboolean found;

  level = ffm_arch_add_compute (arch, c->name);
  describe_level (level, c);
  level->u.compute.throughput = 1 / g->cycle_seconds;
  level->u.compute.operand_reuse = !(a->conv & FFM_TIMELOOP_FFM_OPERAND_REUSE);
  if (table == NULL)
    {
      level->u.compute.energy = est->compute * PJ;
      leak = isnan (est->leak) ? 0 : est->leak;
      estimated_level (a, c, level, est);
    }
  else if (!required_energy (a, c, table, compute_actions,
                             &level->u.compute.energy, error)
           || !table_energy (a, table, leak_actions, &leak, &found, error))
    return FALSE;
  /* Timeloop charges no leak on the compute unit. */
  level->leak_power = (a->conv & FFM_TIMELOOP_FFM_LEAK) ? leak * PJ / g->cycle_seconds : 0;
  return TRUE;
}

static gboolean
set_area (Arch *a, const FfmTlComp *c, FfmLevel *level, GError **error)
{
  const FfmTlNode *table, *area;
  double um2;

  if (a->art == NULL || (table = find_table (a->art, c)) == NULL)
    return TRUE;
  if (!ffm_tl_check_keys (table, "ART.tables", art_table_keys, error))
    return FALSE;
  if ((area = ffm_tl_get (table, "area")) == NULL)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, table, "ART.tables",
                        "missing key 'area'");
  if (!ffm_tl_number (area, "ART.tables.area", &um2, error))
    return FALSE;
  if (um2 < 0)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, area,
                        "ART.tables.area", "an area must be >= 0");
  level->area = um2 * UM2;
  return TRUE;
}

/* A fanout between @outer and @inner when the instances grow. */
static gboolean
fanout_level (const FfmTlComp *outer, const Geometry *go, const FfmTlComp *inner,
              const Geometry *gi, FfmArch *arch, GError **error)
{
  double fx = gi->mesh_x / go->mesh_x, fy = gi->mesh_y / go->mesh_y;
  const char *name;
  FfmLevel *level;

  if (inner->instances == outer->instances)
    return TRUE;
  if (inner->instances < outer->instances
      || inner->instances % outer->instances != 0
      || fx != floor (fx) || fy != floor (fy) || fx < 1 || fy < 1)
    return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, inner->node,
                        inner->path, "%s (%" G_GUINT64_FORMAT " instances, "
                        "mesh %g x %g) is not a whole fanout of %s (%"
                        G_GUINT64_FORMAT " instances, mesh %g x %g)",
                        inner->base, inner->instances, gi->mesh_x, gi->mesh_y,
                        outer->base, outer->instances, go->mesh_x, go->mesh_y);
  name = outer->kind == FFM_TL_COMP_DUMMY && outer->fanout_name != NULL
    ? outer->fanout_name : inner->kind != FFM_TL_COMP_DUMMY && inner->fanout_name != NULL
    ? inner->fanout_name : "Fanout";
  level = ffm_arch_add_fanout (arch, name);
  level->description = g_strdup_printf ("Timeloop: %" G_GUINT64_FORMAT " %s per %s",
                                        inner->instances / outer->instances,
                                        inner->base, outer->base);
  if (fx > 1)
    ffm_level_add_fanout_dim (level, "X", (guint64) fx);
  if (fy > 1)
    ffm_level_add_fanout_dim (level, "Y", (guint64) fy);
  return TRUE;
}

/* The energies of every component: its ERT table, else (memories) the
 * vector_access_energy attribute, else the estimator. @tables and
 * @estimates are indexed like @comps. */
static gboolean
find_energies (Arch *a, const GPtrArray *comps, const FfmTlNode **tables,
               FfmTimeloopActionEnergies *estimates, gboolean *estimated,
               GError **error)
{
  g_autoptr (GPtrArray) missing = g_ptr_array_new ();
  g_autoptr (GPtrArray) whys = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < comps->len; i++)
    {
      const FfmTlComp *c = comps->pdata[i];
      tables[i] = a->ert != NULL ? find_table (a->ert, c) : NULL;
      estimated[i] = FALSE;
      if (tables[i] != NULL || c->kind == FFM_TL_COMP_DUMMY
          || (c->kind == FFM_TL_COMP_STORAGE
              && ffm_tl_comp_attribute (c, "vector_access_energy", NULL) != NULL))
        continue;
      char *why = NULL;
      if (estimate (a, c, &estimates[i], &why)
          && (c->kind == FFM_TL_COMP_COMPUTE ? !isnan (estimates[i].compute)
                                             : !isnan (estimates[i].read)))
        estimated[i] = TRUE;
      else
        {
          g_ptr_array_add (missing, (gpointer) c);
          g_ptr_array_add (whys, why);
          why = NULL;
        }
      g_free (why);
    }
  if (missing->len > 0)
    return no_energies (a, missing, whys, error);
  return TRUE;
}

static FfmArch *
build_arch (Arch *a, GPtrArray *comps, const FfmTlNode *root, GError **error)
{
  g_autoptr (FfmArch) arch = NULL;
  g_autofree char *description = NULL;
  g_autofree Geometry *geometry = g_new0 (Geometry, comps->len);
  g_autofree const FfmTlNode **tables = g_new0 (const FfmTlNode *, comps->len);
  g_autofree FfmTimeloopActionEnergies *estimates =
    g_new0 (FfmTimeloopActionEnergies, comps->len);
  g_autofree gboolean *estimated = g_new0 (gboolean, comps->len);
  guint n_compute = 0, first_memory = G_MAXUINT;
  GError *local = NULL;
  const char *name = NULL;

  for (guint i = 0; i < comps->len; i++)
    {
      const FfmTlComp *c = comps->pdata[i];
      if (c->kind == FFM_TL_COMP_COMPUTE)
        {
          n_compute++;
          if (i + 1 != comps->len)
            {
              ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED, c->node, c->path,
                           "compute unit %s is not the last component: Timeloop "
                           "and ffm take one chain of memories ending in it",
                           c->base);
              return NULL;
            }
        }
      if (c->kind == FFM_TL_COMP_STORAGE && first_memory == G_MAXUINT)
        first_memory = i;
    }
  if (n_compute != 1 || first_memory == G_MAXUINT
      || ((FfmTlComp *) comps->pdata[0])->kind == FFM_TL_COMP_COMPUTE)
    {
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, root, "architecture",
                   "expected memories followed by one compute unit, got %u "
                   "components and %u compute units", comps->len, n_compute);
      return NULL;
    }
  if (!find_energies (a, comps, tables, estimates, estimated, error))
    return NULL;

  if (ffm_tl_get (root, "subtree") != NULL)
    name = ffm_tl_get (ffm_tl_get (root, "subtree")->items[0], "name") != NULL
      ? ffm_tl_get (ffm_tl_get (root, "subtree")->items[0], "name")->text : NULL;
  else if (ffm_tl_get (root, "nodes") != NULL
           && ffm_tl_get (root, "nodes")->kind == FFM_TL_SEQUENCE
           && ffm_tl_get (root, "nodes")->n_items > 0
           && g_strcmp0 (ffm_tl_get (root, "nodes")->items[0]->tag, "!Container") == 0)
    name = ffm_tl_get (ffm_tl_get (root, "nodes")->items[0], "name") != NULL
      ? ffm_tl_get (ffm_tl_get (root, "nodes")->items[0], "name")->text : NULL;
  {
    g_autofree char *base = name != NULL && strchr (name, '[') != NULL
      ? g_strndup (name, strchr (name, '[') - name) : g_strdup (name);
    /* the front end names the top level after the first container */
    if (base != NULL && g_str_has_suffix (base, "_top_level") && strlen (base) > 10)
      base[strlen (base) - 10] = '\0';
    g_autofree char *id = base != NULL && base[0] != '\0'
      ? ffm_tl_identifier (base) : g_strdup ("timeloop");
    arch = ffm_arch_new (id);
  }
  description = g_strdup_printf ("Timeloop architecture from %s",
                                 ffm_tl_spec_get_files (a->spec));
  ffm_arch_set_description (arch, description);
  ffm_arch_set_source (arch, ffm_tl_spec_get_files (a->spec));

  for (guint i = 0; i < comps->len; i++)
    {
      FfmTlComp *c = comps->pdata[i];
      gboolean ok;
      check_attributes (a, c);
      ok = component_geometry (c, &geometry[i], error)
           && (i == 0 || fanout_level (comps->pdata[i - 1], &geometry[i - 1],
                                       c, &geometry[i], arch, error));
      if (ok && c->kind == FFM_TL_COMP_DUMMY)
        {
          dummy_level (c, arch);
          continue;
        }
      ok = ok && (c->kind == FFM_TL_COMP_STORAGE
                  ? memory_level (a, c, i == first_memory, tables[i],
                                  estimated[i] ? &estimates[i] : NULL,
                                  &geometry[i], arch, error)
                  : compute_level (a, c, tables[i], &estimates[i], &geometry[i],
                                   arch, error))
           && set_area (a, c, (FfmLevel *) ffm_arch_get_level (arch,
                                                               ffm_arch_get_n_levels (arch) - 1),
                        error);
      if (!ok)
        return NULL;
    }
  if (!ffm_arch_finish (arch, &local))
    {
      g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                   "%s:%u: architecture: %s", root->file, root->line,
                   local->message);
      g_error_free (local);
      return NULL;
    }
  return g_steal_pointer (&arch);
}

FfmArch *
ffm_timeloop_spec_to_arch (FfmTimeloopSpec *spec, GError **error)
{
  const FfmTlNode *root;
  g_autoptr (GPtrArray) comps = NULL;
  FfmArch *arch;
  Arch a = { 0 };

  g_return_val_if_fail (spec != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  root = ffm_tl_spec_get (spec, "architecture");
  if (root == NULL)
    {
      g_set_error (error, FFM_TIMELOOP_ERROR, FFM_TIMELOOP_ERROR_MISSING,
                   "%s: no 'architecture' (a Timeloop architecture)",
                   ffm_tl_spec_get_files (spec));
      return NULL;
    }
  if (ffm_tl_spec_get (spec, "sparse_optimizations") != NULL)
    {
      ffm_tl_fail (error, FFM_TIMELOOP_ERROR_UNSUPPORTED,
                   ffm_tl_spec_get_key (spec, "sparse_optimizations"),
                   "sparse_optimizations", "sparse optimizations cannot be "
                   "translated: ffm models dense tensors");
      return NULL;
    }
  a.spec = spec;
  a.conv = ffm_tl_spec_get_conventions (spec);
  a.ert = ffm_tl_spec_get (spec, "ERT");
  a.art = ffm_tl_spec_get (spec, "ART");
  if ((a.ert != NULL && !check_tables (a.ert, "ERT", error))
      || (a.art != NULL && !check_tables (a.art, "ART", error))
      || !ffm_tl_check_classes (spec, error))
    return NULL;
  comps = ffm_tl_components (spec, NULL, error);
  if (comps == NULL)
    return NULL;
  arch = build_arch (&a, comps, root, error);
  ffm_tl_estimators_free (a.estimators);
  return arch;
}
