/* fuzz-expr.c: libFuzzer target for the expression parser and evaluator.
 *
 * Any text: a parse error, an evaluation error or a value, never a crash,
 * a hang or undefined behaviour (UBSan aborts on it in this build). The
 * scope knows numbers (n, big, tiny, nan_value), a string (mode) and
 * tensor sets (A, B, C of a universe of three). */
#include <ffm/ffm.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
resolve (const char *name, FfmValue *out, gpointer user_data)
{
  static const struct { const char *name; double number; } numbers[] = {
    { "n", 64 }, { "big", 1e308 }, { "tiny", 5e-324 }, { "neg", -3 },
  };
  static const char *const sets[] = { "A", "B", "C" };

  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    if (strcmp (name, numbers[i].name) == 0)
      {
        *out = (FfmValue) { FFM_VALUE_NUMBER, numbers[i].number, NULL, 0 };
        return TRUE;
      }
  for (guint i = 0; i < G_N_ELEMENTS (sets); i++)
    if (strcmp (name, sets[i]) == 0)
      {
        *out = (FfmValue) { FFM_VALUE_SET, 0, NULL, (guint64) 1 << i };
        return TRUE;
      }
  if (strcmp (name, "mode") == 0)
    {
      *out = (FfmValue) { FFM_VALUE_STRING, 0, "gqa", 0 };
      return TRUE;
    }
  return FALSE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  FfmExprScope scope = { resolve, NULL, 0x7 };
  g_autoptr (GError) error = NULL;
  FfmExpr *expr = ffm_expr_parse (text, &error);
  FfmValue value;
  gint64 integer;
  guint64 set;
  gboolean truth;
  double number;

  if (expr == NULL)
    {
      if (error == NULL || error->message[0] == '\0')
        abort ();
      return 0;
    }
  if (!ffm_expr_evaluate (expr, &scope, &value, &error))
    {
      if (error == NULL || error->message[0] == '\0')
        abort ();
      g_clear_error (&error);
    }
  else if (value.type == FFM_VALUE_SET && (value.set & ~(guint64) 0x7) != 0)
    abort ();                   /* a set outside its universe */
  ffm_expr_evaluate_number (expr, &scope, &number, NULL);
  if (ffm_expr_evaluate_integer (expr, &scope, &integer, NULL)
      && (double) integer != floor ((double) integer))
    abort ();
  ffm_expr_evaluate_set (expr, &scope, &set, NULL);
  ffm_expr_evaluate_bool (expr, &scope, &truth, NULL);
  ffm_expr_free (expr);
  return 0;
}
