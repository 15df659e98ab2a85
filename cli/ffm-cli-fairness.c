/* ffm-cli-fairness.c: free memories and the warnings about them
 * (ffm-cli-fairness.h). */
#include "ffm-cli-fairness.h"

gboolean
ffm_cli_memory_is_free (const FfmArch *arch, guint level)
{
  const FfmLevel *l = ffm_arch_get_level (arch, level);

  return l->kind == FFM_LEVEL_MEMORY && l->u.memory.read_energy == 0
    && l->u.memory.write_energy == 0;
}

gboolean
ffm_cli_main_memory_is_charged (const FfmArch *arch)
{
  return !ffm_cli_memory_is_free (arch, 0);
}

GPtrArray *
ffm_cli_free_memories (const FfmArch *arch)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint l = 0; l < ffm_arch_get_n_levels (arch); l++)
    if (ffm_cli_memory_is_free (arch, l))
      g_ptr_array_add (out, ffm_arch_get_level (arch, l)->name);
  return out;
}

char *
ffm_cli_fairness_note (const FfmArch *arch)
{
  if (ffm_cli_main_memory_is_charged (arch))
    return NULL;
  return g_strdup_printf ("%s, the main memory of %s, is free (0 J per read and "
                          "write): the energy leaves out all main-memory traffic",
                          ffm_arch_get_level (arch, 0)->name, ffm_arch_get_name (arch));
}

/* "a, b and c" */
static char *
join_names (GPtrArray *names)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < names->len; i++)
    {
      if (i > 0)
        g_string_append (out, i + 1 == names->len ? " and " : ", ");
      g_string_append (out, g_ptr_array_index (names, i));
    }
  if (names->len == 0)
    g_string_append (out, "none");
  return g_string_free (out, FALSE);
}

/* The free memories below the main memory (whose own case has its
 * warning), as text. */
static char *
free_set (const FfmArch *arch)
{
  g_autoptr (GPtrArray) names = ffm_cli_free_memories (arch);

  if (names->len > 0 && ffm_cli_memory_is_free (arch, 0))
    g_ptr_array_remove_index (names, 0);
  return join_names (names);
}

GPtrArray *
ffm_cli_fairness_compare (const FfmArch *const *archs, const char *const *labels,
                          guint n)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) charged = g_ptr_array_new ();
  g_autoptr (GPtrArray) free_main = g_ptr_array_new ();
  gboolean sets_differ = FALSE;
  g_autofree char *first_set = n > 0 ? free_set (archs[0]) : NULL;

  for (guint i = 0; i < n; i++)
    {
      const char *label = labels != NULL ? labels[i] : ffm_arch_get_name (archs[i]);
      g_autofree char *set = free_set (archs[i]);
      g_ptr_array_add (ffm_cli_main_memory_is_charged (archs[i]) ? charged : free_main,
                       (gpointer) label);
      sets_differ |= g_strcmp0 (set, first_set) != 0;
    }
  if (charged->len > 0 && free_main->len > 0)
    {
      g_autofree char *c = join_names (charged);
      g_autofree char *f = join_names (free_main);
      g_ptr_array_add (out, g_strdup_printf (
        "not a like-for-like comparison: %s charge%s energy for main-memory "
        "traffic, %s do%s not (a free main memory), so %s leave%s it out",
        c, charged->len == 1 ? "s" : "", f, free_main->len == 1 ? "es" : "",
        f, free_main->len == 1 ? "s" : ""));
    }
  if (sets_differ)
    {
      GString *s = g_string_new ("the architectures differ in which on-chip "
                                 "memories are free (0 J per read and write):");
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *set = free_set (archs[i]);
          g_string_append_printf (s, "%s %s: %s", i > 0 ? ";" : "",
                                  labels != NULL ? labels[i] : ffm_arch_get_name (archs[i]),
                                  set);
        }
      g_ptr_array_add (out, g_string_free (s, FALSE));
    }
  return out;
}
