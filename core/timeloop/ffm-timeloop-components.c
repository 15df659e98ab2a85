/* ffm-timeloop-components.c: compound component classes, and the hook
 * through which an energy estimator answers for components the ERT lacks.
 *
 * A design's classes (`compound_components` or `components`: {version,
 * classes: [{name, attributes, subcomponents, actions}]}, one file per
 * class in the exercises' _components/ folders) tell Accelergy how a
 * class is built from primitives (a smartbuffer_SRAM is an SRAM and two
 * address adders). Timeloop itself reads only the ERT Accelergy computes
 * from them; so does ffm. The classes serve two ends here: messages that
 * say what a component without an ERT entry is made of (and which ERT to
 * give), and the component estimators (ffm-estimator.h), which price a
 * component the ERT lacks from its class and attributes as Accelergy
 * would: the design's compound classes are read into a component library
 * whose primitive classes the loaded estimators answer for. A program may
 * put its own estimator in their place (ffm_timeloop_spec_set_estimator()).
 * An ERT entry always wins. */
#include "ffm-timeloop-private.h"
#include "../ffm-estimator-private.h"

#include <math.h>
#include <string.h>

static const char *const root_keys[] = { "version", "classes", NULL };
static const char *const class_keys[] = {
  "name", "attributes", "subcomponents", "actions", "description", NULL
};

/* Every class definition: its node, in file order. */
static void
collect_classes (const FfmTimeloopSpec *spec, GPtrArray *out)
{
  const GPtrArray *roots = ffm_tl_spec_get_class_roots (spec);

  for (guint r = 0; r < roots->len; r++)
    {
      const FfmTlNode *classes = ffm_tl_get (roots->pdata[r], "classes");
      if (classes == NULL || classes->kind != FFM_TL_SEQUENCE)
        continue;
      for (guint i = 0; i < classes->n_items; i++)
        g_ptr_array_add (out, classes->items[i]);
    }
}

gboolean
ffm_tl_check_classes (const FfmTimeloopSpec *spec, GError **error)
{
  const GPtrArray *roots = ffm_tl_spec_get_class_roots (spec);
  g_autoptr (GPtrArray) all = g_ptr_array_new ();

  for (guint r = 0; r < roots->len; r++)
    {
      const FfmTlNode *root = roots->pdata[r], *classes;
      if (!ffm_tl_check_keys (root, "compound_components", root_keys, error)
          || !ffm_tl_check_version (root, "compound_components", error))
        return FALSE;
      classes = ffm_tl_get (root, "classes");
      if (classes == NULL)
        continue;
      if (!ffm_tl_require (classes, FFM_TL_SEQUENCE, "compound_components.classes",
                           error))
        return FALSE;
      for (guint i = 0; i < classes->n_items; i++)
        {
          g_autofree char *path = ffm_tl_path_index ("compound_components.classes", i);
          g_autofree char *name_path = ffm_tl_path_key (path, "name");
          const FfmTlNode *c = classes->items[i], *name, *subs;
          if (!ffm_tl_check_keys (c, path, class_keys, error))
            return FALSE;
          if ((name = ffm_tl_get (c, "name")) == NULL)
            return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, c, path,
                                "missing key 'name'");
          if (ffm_tl_string (name, name_path, error) == NULL)
            return FALSE;
          if ((subs = ffm_tl_get (c, "subcomponents")) != NULL)
            {
              g_autofree char *sub_path = ffm_tl_path_key (path, "subcomponents");
              if (!ffm_tl_require (subs, FFM_TL_SEQUENCE, sub_path, error))
                return FALSE;
            }
          for (guint j = 0; j < all->len; j++)
            {
              const FfmTlNode *o = all->pdata[j];
              if (strcmp (ffm_tl_get (o, "name")->text, name->text) == 0)
                return ffm_tl_fail (error, FFM_TIMELOOP_ERROR_INVALID, name, name_path,
                                    "a second compound class %s (also %s:%u)",
                                    name->text, o->file, o->line);
            }
          g_ptr_array_add (all, (gpointer) c);
        }
    }
  return TRUE;
}

char *
ffm_tl_describe_class (const FfmTimeloopSpec *spec, const char *cls)
{
  g_autoptr (GPtrArray) all = g_ptr_array_new ();
  GString *s;

  collect_classes (spec, all);
  for (guint i = 0; i < all->len; i++)
    {
      const FfmTlNode *c = all->pdata[i], *name = ffm_tl_get (c, "name");
      const FfmTlNode *subs = ffm_tl_get (c, "subcomponents");
      if (name == NULL || name->kind != FFM_TL_SCALAR || strcmp (name->text, cls) != 0)
        continue;
      s = g_string_new (NULL);
      g_string_append_printf (s, "compound class %s (%s:%u)", cls, c->file, c->line);
      if (subs != NULL && subs->kind == FFM_TL_SEQUENCE && subs->n_items > 0)
        {
          g_string_append (s, " of ");
          for (guint j = 0; j < subs->n_items; j++)
            {
              const FfmTlNode *sc = ffm_tl_get (subs->items[j], "class");
              g_string_append_printf (s, "%s%s", j > 0 ? ", " : "",
                                      sc != NULL && sc->kind == FFM_TL_SCALAR
                                      ? sc->text : "?");
            }
        }
      return g_string_free (s, FALSE);
    }
  return g_strdup_printf ("class %s", cls);
}

/* ---- The component estimators ---- */

struct _FfmTlEstimators {
  const FfmTimeloopSpec *spec;
  FfmComponentLibrary *library;   /* the design's classes; NULL until asked */
  char *library_error;            /* why they did not read, or NULL */
  GPtrArray *sources;             /* the estimated_by lines handed out */
};

FfmTlEstimators *
ffm_tl_estimators_new (const FfmTimeloopSpec *spec)
{
  FfmTlEstimators *e = g_new0 (FfmTlEstimators, 1);

  e->spec = spec;
  e->sources = g_ptr_array_new_with_free_func (g_free);
  return e;
}

void
ffm_tl_estimators_free (FfmTlEstimators *e)
{
  if (e == NULL)
    return;
  ffm_component_library_free (e->library);
  g_free (e->library_error);
  g_ptr_array_unref (e->sources);
  g_free (e);
}

/* The library of the design's compound classes, read on first use from
 * the files that define them (their text as loaded). */
static gboolean
ensure_library (FfmTlEstimators *e)
{
  const GPtrArray *texts = ffm_tl_spec_get_class_texts (e->spec);
  g_autoptr (FfmComponentLibrary) library = NULL;

  if (e->library != NULL || e->library_error != NULL)
    return e->library != NULL;
  library = ffm_component_library_new (ffm_estimators_current ());
  for (guint i = 0; i + 1 < texts->len; i += 2)
    {
      g_autoptr (GError) local = NULL;
      if (!ffm_component_library_load_data (library, texts->pdata[i + 1],
                                            texts->pdata[i], &local))
        {
          e->library_error = g_strdup_printf ("the compound classes do not "
                                              "read: %s", local->message);
          return FALSE;
        }
    }
  e->library = g_steal_pointer (&library);
  return TRUE;
}

/* The first of @candidates (Timeloop's action names, in its order of
 * preference) that @actions lists, or NULL. */
static const char *
pick_action (GStrv actions, const char *const *candidates)
{
  for (guint i = 0; candidates[i] != NULL; i++)
    if (actions != NULL && g_strv_contains ((const char *const *) actions, candidates[i]))
      return candidates[i];
  return NULL;
}

typedef struct {
  const char *member;       /* ffm's name of the number */
  FfmEstimatedValue value;
} Given;

/* "read_energy, fill_energy: compound smartbuffer_SRAM 70 %; area: ...":
 * the numbers grouped by who gave them, in order (main's estimated_by
 * form). */
static char *
describe_givers (const Given *given, guint n)
{
  GString *s = g_string_new (NULL);
  gboolean *done = g_newa (gboolean, n);

  memset (done, 0, n * sizeof (gboolean));
  for (guint i = 0; i < n; i++)
    {
      if (done[i] || given[i].value.estimator == NULL || isnan (given[i].value.value))
        continue;
      if (s->len > 0)
        g_string_append (s, "; ");
      for (guint j = i; j < n; j++)
        if (!done[j] && given[j].value.estimator != NULL && !isnan (given[j].value.value)
            && strcmp (given[j].value.estimator, given[i].value.estimator) == 0
            && given[j].value.accuracy == given[i].value.accuracy)
          {
            g_string_append_printf (s, "%s%s", j > i ? ", " : "", given[j].member);
            done[j] = TRUE;
          }
      g_string_append_printf (s, ": %s %g %%", given[i].value.estimator,
                              given[i].value.accuracy);
    }
  return g_string_free (s, FALSE);
}

static gboolean
ask (FfmTlEstimators *e, const FfmTlComp *c, const char *cls,
     const FfmParamValues *attrs, const char *action, FfmComponentEstimate *out,
     char **why)
{
  g_autoptr (FfmEstimateQuery) q = ffm_estimate_query_new (c->base, cls, attrs, action);
  g_autoptr (GError) local = NULL;

  if (ffm_component_library_estimate (e->library, q, out, &local))
    return TRUE;
  *why = g_strdup (local->message);
  return FALSE;
}

gboolean
ffm_tl_estimators_price (FfmTlEstimators *e, const FfmTlComp *c,
                         const FfmTlEstimatorActions *actions, double cycle_seconds,
                         gboolean with_leak, FfmTimeloopActionEnergies *out,
                         char **why)
{
  const FfmTlNode *subclass = ffm_tl_get (c->node, "subclass");
  /* Timeloop's "class: storage" names the Accelergy class as subclass. */
  const char *cls = subclass != NULL && subclass->kind == FFM_TL_SCALAR
                    && subclass->text[0] != '\0' ? subclass->text : c->cls;
  g_autoptr (FfmParamValues) attrs = ffm_param_values_new ();
  g_auto (GStrv) listed = NULL;
  gboolean compute = c->kind == FFM_TL_COMP_COMPUTE;
  const char *const *kinds[3] = { compute ? actions->compute : actions->read,
                                  actions->fill, actions->update };
  const char *members[3] = { compute ? "energy" : "read_energy", "fill_energy",
                             "update_energy" };
  double *energies[3] = { compute ? &out->compute : &out->read, &out->fill,
                          &out->update };
  Given given[5];
  guint n_given = 0;
  FfmComponentEstimate est;

  *why = NULL;
  if (!ensure_library (e))
    {
      *why = g_strdup (e->library_error);
      return FALSE;
    }
  /* the containers' attributes first, the component's own over them */
  for (guint i = 0; i < c->attr_keys->len; i++)
    {
      const FfmTlNode *v = c->attr_values->pdata[i];
      g_autofree char *name = NULL;
      if (v->kind != FFM_TL_SCALAR)
        continue;
      name = ffm_tl_key_normalize (((FfmTlNode *) c->attr_keys->pdata[i])->text);
      ffm_param_values_set (attrs, name, v->text);
    }
  /* the front end's default cycle, as it writes it for Accelergy */
  if (ffm_param_values_lookup (attrs, "global_cycle_seconds") == NULL)
    ffm_param_values_set (attrs, "global_cycle_seconds", "1e-9");
  listed = ffm_component_library_list_actions (e->library, cls);
  for (guint k = 0; k < (compute ? 1u : 3u); k++)
    {
      const char *action = pick_action (listed, kinds[k]);
      if (action == NULL)
        {
          g_autofree char *names = NULL, *have = NULL;
          if (k > 0)
            continue;   /* no fill or update action: the read's energy */
          if ((listed == NULL || listed[0] == NULL)
              && !ask (e, c, cls, attrs, compute ? "compute" : "read", &est, why))
            return FALSE;   /* the estimators say why (an unknown class) */
          names = g_strjoinv (", ", (char **) kinds[k]);
          have = listed != NULL && listed[0] != NULL ? g_strjoinv (", ", listed)
                 : g_strdup ("none");
          *why = g_strdup_printf ("class %s has none of Timeloop's %s actions "
                                  "(%s; it has %s)", cls, compute ? "compute"
                                  : "read", names, have);
          return FALSE;
        }
      if (!ask (e, c, cls, attrs, action, &est, why))
        return FALSE;
      *energies[k] = est.energy.value / 1e-12;
      given[n_given].member = members[k];
      given[n_given++].value = est.energy;
    }
  /* leakage and area: no action */
  if (!ask (e, c, cls, attrs, NULL, &est, why))
    return FALSE;
  if (with_leak && !isnan (est.leak_power.value))
    {
      out->leak = est.leak_power.value * cycle_seconds / 1e-12;
      given[n_given].member = "leak_power";
      given[n_given++].value = est.leak_power;
    }
  if (!isnan (est.area.value))
    {
      out->area = est.area.value / 1e-12;
      given[n_given].member = "area";
      given[n_given++].value = est.area;
    }
  g_ptr_array_add (e->sources, describe_givers (given, n_given));
  out->source = g_ptr_array_index (e->sources, e->sources->len - 1);
  return TRUE;
}
