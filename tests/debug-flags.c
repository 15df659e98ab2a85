/* debug-flags.c: the tests' stack of debug flags (debug-flags.h). */
#include "debug-flags.h"

#include <ffm/ffm.h>

static GPtrArray *stack;

static void
apply (void)
{
  g_autoptr (GString) spec = g_string_new (g_getenv ("FFM_DEBUG"));

  for (guint i = 0; i < stack->len; i++)
    {
      if (spec->len > 0)
        g_string_append_c (spec, ',');
      g_string_append (spec, g_ptr_array_index (stack, i));
    }
  ffm_debug_flags_set (spec->str);
}

void
test_debug_push (const char *flags)
{
  if (stack == NULL)
    stack = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (stack, g_strdup (flags));
  apply ();
}

void
test_debug_pop (void)
{
  g_assert_nonnull (stack);
  g_assert_cmpuint (stack->len, >, 0);
  g_ptr_array_remove_index (stack, stack->len - 1);
  apply ();
}
