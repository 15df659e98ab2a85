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
 * give), and the estimator hook (ffm_timeloop_spec_set_estimator()),
 * through which component estimators answer for such components with the
 * class and its attributes; an ERT entry always wins. */
#include "ffm-timeloop-private.h"

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
