/* test-expr.c: the expression language (ffm-expr.h): precedence, types,
 * sets, strings, functions and every class of error. */
#include <ffm/ffm.h>
#include <math.h>
#include <string.h>

/* A scope with a few numbers, strings and sets over a 4-tensor universe. */
static gboolean
test_resolve (const char *name, FfmValue *out, gpointer user_data)
{
  static const struct {
    const char *name;
    FfmValueType type;
    double number;
    const char *string;
    guint64 set;
  } table[] = {
    { "a", FFM_VALUE_NUMBER, 3, NULL, 0 },
    { "b", FFM_VALUE_NUMBER, 4, NULL, 0 },
    { "zero", FFM_VALUE_NUMBER, 0, NULL, 0 },
    { "d_model", FFM_VALUE_NUMBER, 4096, NULL, 0 },
    { "l.c", FFM_VALUE_NUMBER, 64, NULL, 0 },
    { "attention", FFM_VALUE_STRING, 0, "gqa", 0 },
    { "all", FFM_VALUE_SET, 0, NULL, 0xf },
    { "nothing", FFM_VALUE_SET, 0, NULL, 0 },
    { "X", FFM_VALUE_SET, 0, NULL, 0x3 },
    { "Y", FFM_VALUE_SET, 0, NULL, 0x6 },
    { "W", FFM_VALUE_SET, 0, NULL, 0x8 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    if (strcmp (table[i].name, name) == 0)
      {
        out->type = table[i].type;
        out->number = table[i].number;
        out->string = table[i].string;
        out->set = table[i].set;
        return TRUE;
      }
  return FALSE;
}

static const FfmExprScope scope = { test_resolve, NULL, 0xf };

typedef struct {
  const char *text;
  double value;
} NumberCase;

static const NumberCase number_cases[] = {
  { "1", 1 },
  { "1e6", 1e6 },
  { "0.5", 0.5 },
  { ".25", 0.25 },
  { "2.5E-1", 0.25 },
  { "1 + 2 * 3", 7 },
  { "(1 + 2) * 3", 9 },
  { "10 - 4 - 3", 3 },
  { "64 / 4 / 2", 8 },
  { "7 // 2", 3 },
  { "-7 // 2", -4 },
  { "7 % 3", 1 },
  { "-7 % 3", 2 },
  { "2 ** 10", 1024 },
  { "2 ** 3 ** 2", 512 },
  { "-2 ** 2", -4 },
  { "2 ** -1", 0.5 },
  { "-(3)", -3 },
  { "--3", 3 },
  { "!0", 1 },
  { "!5", 0 },
  { "4*d_model", 16384 },
  { "a * b + 1", 13 },
  { "l.c * 2", 128 },
  { "a < b", 1 },
  { "a <= 3", 1 },
  { "a > b", 0 },
  { "a >= b", 0 },
  { "a == 3", 1 },
  { "a != 3", 0 },
  { "1 + 1 == 2", 1 },
  { "a < b && b < 5", 1 },
  { "a > b || b == 4", 1 },
  { "0 || 0", 0 },
  { "1 && 2", 1 },
  { "0 && unknown_name", 0 },           /* short circuit */
  { "1 || unknown_name", 1 },
  { "1 ? 2 : 3", 2 },
  { "0 ? 2 : 3", 3 },
  { "0 ? 1 : 0 ? 2 : 3", 3 },           /* right-associative */
  { "a > 2 ? a * 2 : unknown_name", 6 },
  { "min(3, 1, 2)", 1 },
  { "max(3, 1, 2)", 3 },
  { "min(5)", 5 },
  { "ceil(2.1)", 3 },
  { "floor(-2.1)", -3 },
  { "round(2.5)", 3 },
  { "round(-2.5)", -3 },
  { "abs(-4)", 4 },
  { "log2(1024)", 10 },
  { "sqrt(81)", 9 },
  { "pow(3, 4)", 81 },
  { "len(all)", 4 },
  { "len(nothing)", 0 },
  { "len(X | Y)", 3 },
  { "len('abc')", 3 },
  { "pick(0, 10, 20, 30)", 10 },
  { "pick(2, 10, 20, 30)", 30 },
  { "pick(1, unknown_name, 20)", 20 },  /* only the picked argument */
  { "attention == 'gqa'", 1 },
  { "attention == \"mha\"", 0 },
  { "attention != 'mha'", 1 },
  { "'abc' < 'abd'", 1 },
  { "X == X", 1 },
  { "X != Y", 1 },
  { "(X & Y) == (Y - W)", 0 },
  { "true + true", 2 },
  { "false", 0 },
  { "ceil(256 * 8 / min(128, 256 * 8))", 16 },
  { "  1\t+\n2 ", 3 },
};

static void
test_numbers (void)
{
  g_test_summary ("Number expressions evaluate with the documented precedence");
  for (guint i = 0; i < G_N_ELEMENTS (number_cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmExpr) expr = ffm_expr_parse (number_cases[i].text, &error);
      double value = NAN;

      g_assert_no_error (error);
      g_assert_nonnull (expr);
      g_assert_cmpstr (ffm_expr_get_text (expr), ==, number_cases[i].text);
      if (!ffm_expr_evaluate_number (expr, &scope, &value, &error))
        g_error ("%s: %s", number_cases[i].text, error->message);
      if (value != number_cases[i].value)
        g_error ("%s: got %.17g, expected %.17g", number_cases[i].text, value,
                 number_cases[i].value);
    }
}

static void
test_inf (void)
{
  double value = 0;
  g_autoptr (GError) error = NULL;

  g_assert_true (ffm_expr_evaluate_text_number ("inf", &scope, &value, &error));
  g_assert_no_error (error);
  g_assert_true (isinf (value) && value > 0);
  g_assert_true (ffm_expr_evaluate_text_number ("-inf < 0", &scope, &value, &error));
  g_assert_cmpfloat (value, ==, 1);
  g_assert_true (ffm_expr_evaluate_text_number ("min(inf, 5)", &scope, &value, &error));
  g_assert_cmpfloat (value, ==, 5);
}

typedef struct {
  const char *text;
  guint64 set;
} SetCase;

static const SetCase set_cases[] = {
  { "all", 0xf },
  { "nothing", 0 },
  { "X | Y", 0x7 },
  { "X & Y", 0x2 },
  { "X - Y", 0x1 },
  { "X + W", 0xb },
  { "~X", 0xc },
  { "~nothing", 0xf },
  { "~(X | Y)", 0x8 },
  { "all - X | W", 0xc },             /* '-' binds tighter than '|' */
  { "X | Y & W", 0x3 },               /* '&' binds tighter than '|' */
  { "(X | Y) & W", 0 },
  { "len(X) == 2 ? X : Y", 0x3 },
  { "pick(1, X, Y)", 0x6 },
};

static void
test_sets (void)
{
  g_test_summary ("Tensor-set algebra over a universe");
  for (guint i = 0; i < G_N_ELEMENTS (set_cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmExpr) expr = ffm_expr_parse (set_cases[i].text, &error);
      guint64 set = 0xdead;

      g_assert_no_error (error);
      if (!ffm_expr_evaluate_set (expr, &scope, &set, &error))
        g_error ("%s: %s", set_cases[i].text, error->message);
      if (set != set_cases[i].set)
        g_error ("%s: got 0x%" G_GINT64_MODIFIER "x, expected 0x%" G_GINT64_MODIFIER "x",
                 set_cases[i].text, set, set_cases[i].set);
    }
}

static void
test_strings (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmExpr) expr = ffm_expr_parse ("1 ? 'it''s' : 'x'", &error);
  g_autoptr (FfmExpr) expr2 = NULL;
  FfmValue v;

  /* 'it''s' is two strings in a row: a syntax error, not concatenation. */
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_SYNTAX);
  g_clear_error (&error);

  expr2 = ffm_expr_parse ("a > 1 ? 'it\\'s' : \"x\"", &error);
  g_assert_no_error (error);
  g_assert_true (ffm_expr_evaluate (expr2, &scope, &v, &error));
  g_assert_cmpint (v.type, ==, FFM_VALUE_STRING);
  g_assert_cmpstr (v.string, ==, "it's");

  g_clear_pointer (&expr, ffm_expr_free);
  expr = ffm_expr_parse ("attention", &error);
  g_assert_true (ffm_expr_evaluate (expr, &scope, &v, &error));
  g_assert_cmpint (v.type, ==, FFM_VALUE_STRING);
  g_assert_cmpstr (v.string, ==, "gqa");
}

static void
test_integers (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmExpr) expr = ffm_expr_parse ("2 ** 53", &error);
  gint64 value = 0;
  gboolean b = FALSE;

  g_assert_true (ffm_expr_evaluate_integer (expr, &scope, &value, &error));
  g_assert_cmpint (value, ==, G_GINT64_CONSTANT (9007199254740992));
  g_clear_pointer (&expr, ffm_expr_free);

  expr = ffm_expr_parse ("2 ** 53 * 2", &error);
  g_assert_false (ffm_expr_evaluate_integer (expr, &scope, &value, &error));
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_DOMAIN);
  g_assert_nonnull (strstr (error->message, "2^53"));
  g_clear_error (&error);
  g_clear_pointer (&expr, ffm_expr_free);

  expr = ffm_expr_parse ("d_model / 3", &error);
  g_assert_false (ffm_expr_evaluate_integer (expr, &scope, &value, &error));
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_DOMAIN);
  g_assert_nonnull (strstr (error->message, "d_model / 3"));
  g_clear_error (&error);
  g_clear_pointer (&expr, ffm_expr_free);

  expr = ffm_expr_parse ("inf", &error);
  g_assert_false (ffm_expr_evaluate_integer (expr, &scope, &value, &error));
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_DOMAIN);
  g_clear_error (&error);
  g_clear_pointer (&expr, ffm_expr_free);

  expr = ffm_expr_parse ("-d_model // 3", &error);
  g_assert_true (ffm_expr_evaluate_integer (expr, &scope, &value, &error));
  g_assert_cmpint (value, ==, -1366);
  g_clear_pointer (&expr, ffm_expr_free);

  expr = ffm_expr_parse ("a == 3 && b == 4", &error);
  g_assert_true (ffm_expr_evaluate_bool (expr, &scope, &b, &error));
  g_assert_true (b);
}

typedef struct {
  const char *text;
  int code;
  const char *substring;        /* must appear in the message */
} ErrorCase;

static const ErrorCase error_cases[] = {
  /* syntax (at parse time) */
  { "", FFM_EXPR_ERROR_SYNTAX, "empty expression" },
  { "   ", FFM_EXPR_ERROR_SYNTAX, "empty expression" },
  { "(a+b", FFM_EXPR_ERROR_SYNTAX, "expected ')', got end of expression at character 5 of \"(a+b\"" },
  { "a+", FFM_EXPR_ERROR_SYNTAX, "at character 3 of \"a+\"" },
  { "a b", FFM_EXPR_ERROR_SYNTAX, "unexpected 'b' at character 3" },
  { "a = 1", FFM_EXPR_ERROR_SYNTAX, "write '==' to compare" },
  { "4d_model", FFM_EXPR_ERROR_SYNTAX, "after a number" },
  { "1e", FFM_EXPR_ERROR_SYNTAX, "exponent" },
  { "'abc", FFM_EXPR_ERROR_SYNTAX, "unterminated string at character 1" },
  { "a $ b", FFM_EXPR_ERROR_SYNTAX, "unexpected character '$' at character 3" },
  { "1 ? 2", FFM_EXPR_ERROR_SYNTAX, "expected ':'" },
  { "min(1,", FFM_EXPR_ERROR_SYNTAX, "character 7" },
  { "min()", FFM_EXPR_ERROR_SYNTAX, "min() takes at least 1 argument, got 0" },
  { "pow(1)", FFM_EXPR_ERROR_SYNTAX, "pow() takes 2 arguments, got 1" },
  { "ceil(1, 2)", FFM_EXPR_ERROR_SYNTAX, "ceil() takes 1 argument, got 2" },
  { "a < b < c", FFM_EXPR_ERROR_SYNTAX, "do not chain" },
  { ")", FFM_EXPR_ERROR_SYNTAX, "got ')' at character 1" },
  { "(1))", FFM_EXPR_ERROR_SYNTAX, "unexpected ')' at character 4" },
  { "foo(1)", FFM_EXPR_ERROR_UNKNOWN_NAME, "unknown function 'foo'" },
  /* evaluation */
  { "bach * 2", FFM_EXPR_ERROR_UNKNOWN_NAME, "unknown name 'bach' at character 1 of \"bach * 2\"" },
  { "a / zero", FFM_EXPR_ERROR_DIVISION_BY_ZERO, "division by zero at character 3" },
  { "a // 0", FFM_EXPR_ERROR_DIVISION_BY_ZERO, "division by zero" },
  { "a % (b - 4)", FFM_EXPR_ERROR_DIVISION_BY_ZERO, "division by zero" },
  { "0 ** -1", FFM_EXPR_ERROR_DIVISION_BY_ZERO, "division by zero" },
  { "a + X", FFM_EXPR_ERROR_TYPE, "'+' needs two tensor sets, got a number and a tensor set" },
  { "a * X", FFM_EXPR_ERROR_TYPE, "'*' needs two numbers" },
  { "X * Y", FFM_EXPR_ERROR_TYPE, "'*' needs two numbers" },
  { "a | b", FFM_EXPR_ERROR_TYPE, "'|' needs two tensor sets" },
  { "~a", FFM_EXPR_ERROR_TYPE, "'~' needs a tensor set" },
  { "-X", FFM_EXPR_ERROR_TYPE, "'-' needs a number" },
  { "attention == 1", FFM_EXPR_ERROR_TYPE, "cannot compare a string with a number" },
  { "X < Y", FFM_EXPR_ERROR_TYPE, "only == and !=" },
  { "X && 1", FFM_EXPR_ERROR_TYPE, "'&&' needs a number" },
  { "attention ? 1 : 2", FFM_EXPR_ERROR_TYPE, "'?:' needs a number" },
  { "len(3)", FFM_EXPR_ERROR_TYPE, "len() needs a tensor set or a string" },
  { "min(1, X)", FFM_EXPR_ERROR_TYPE, "min needs a number" },
  { "pick(3, 1, 2)", FFM_EXPR_ERROR_DOMAIN, "pick() index 3 is not one of 0..1" },
  { "pick(0.5, 1, 2)", FFM_EXPR_ERROR_DOMAIN, "pick() index" },
  { "log2(0)", FFM_EXPR_ERROR_DOMAIN, "log2()" },
  { "sqrt(-1)", FFM_EXPR_ERROR_DOMAIN, "sqrt()" },
  { "(-8) ** 0.5", FFM_EXPR_ERROR_DOMAIN, "fractional power" },
};

static void
test_errors (void)
{
  g_test_summary ("Each kind of bad expression gives its error code and a precise message");
  for (guint i = 0; i < G_N_ELEMENTS (error_cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FfmExpr) expr = ffm_expr_parse (error_cases[i].text, &error);
      FfmValue v;

      if (expr != NULL)
        {
          g_assert_no_error (error);
          if (ffm_expr_evaluate (expr, &scope, &v, &error))
            g_error ("%s: evaluated without error", error_cases[i].text);
        }
      g_assert_nonnull (error);
      if (error->domain != FFM_EXPR_ERROR || error->code != error_cases[i].code
          || strstr (error->message, error_cases[i].substring) == NULL)
        g_error ("\"%s\": got code %d \"%s\", expected code %d with \"%s\"",
                 error_cases[i].text, error->code, error->message,
                 error_cases[i].code, error_cases[i].substring);
    }
}

static void
test_require_types (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmExpr) expr = ffm_expr_parse ("X", &error);
  double x;
  guint64 set;

  g_assert_false (ffm_expr_evaluate_number (expr, &scope, &x, &error));
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_TYPE);
  g_assert_nonnull (strstr (error->message, "expected a number, got a tensor set"));
  g_clear_error (&error);
  g_clear_pointer (&expr, ffm_expr_free);

  expr = ffm_expr_parse ("a", &error);
  g_assert_false (ffm_expr_evaluate_set (expr, &scope, &set, &error));
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_TYPE);
  g_clear_error (&error);

  /* No scope at all: identifiers are unknown, numbers still work. */
  g_assert_false (ffm_expr_evaluate_number (expr, NULL, &x, &error));
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_UNKNOWN_NAME);
  g_clear_error (&error);
  g_assert_true (ffm_expr_evaluate_text_number ("2*3", NULL, &x, &error));
  g_assert_cmpfloat (x, ==, 6);
}

static void
collect (const char *name, gpointer user_data)
{
  g_ptr_array_add (user_data, g_strdup (name));
}

static void
test_identifiers (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmExpr) expr =
    ffm_expr_parse ("min(batch, 4*d_model) + pick(decode, x.y, 'str') + inf", &error);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  g_assert_no_error (error);
  ffm_expr_foreach_identifier (expr, collect, names);
  g_assert_cmpuint (names->len, ==, 4);
  g_assert_cmpstr (names->pdata[0], ==, "batch");
  g_assert_cmpstr (names->pdata[1], ==, "d_model");
  g_assert_cmpstr (names->pdata[2], ==, "decode");
  g_assert_cmpstr (names->pdata[3], ==, "x.y");
}

static void
test_table_resolver (void)
{
  g_autoptr (GHashTable) table = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                        NULL, g_free);
  FfmValue *v = g_new0 (FfmValue, 1);
  FfmExprScope s = { ffm_expr_resolve_from_table, table, 0 };
  double x = 0;
  g_autoptr (GError) error = NULL;

  v->type = FFM_VALUE_NUMBER;
  v->number = 12;
  g_hash_table_insert (table, (gpointer) "n", v);
  g_assert_true (ffm_expr_evaluate_text_number ("n * 2", &s, &x, &error));
  g_assert_cmpfloat (x, ==, 24);
  g_assert_false (ffm_expr_evaluate_text_number ("m", &s, &x, &error));
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_UNKNOWN_NAME);
}

static void
test_hostile (void)
{
  g_autoptr (GString) deep = g_string_new (NULL);
  g_autoptr (GString) long_chain = g_string_new ("1");
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmExpr) expr = NULL;
  double x = 0;

  g_test_summary ("Deeply nested or very long text is refused, not a stack overflow");
  for (int i = 0; i < 100000; i++)
    g_string_append_c (deep, '(');
  expr = ffm_expr_parse (deep->str, &error);
  g_assert_null (expr);
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_SYNTAX);
  g_assert_nonnull (strstr (error->message, "nested too deeply"));
  g_clear_error (&error);

  for (int i = 0; i < 100000; i++)
    g_string_append (long_chain, "+1");
  expr = ffm_expr_parse (long_chain->str, &error);
  g_assert_null (expr);
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_SYNTAX);
  g_clear_error (&error);

  g_string_truncate (long_chain, 1);
  for (int i = 0; i < 1000; i++)
    g_string_append (long_chain, "+1");
  g_assert_true (ffm_expr_evaluate_text_number (long_chain->str, NULL, &x, &error));
  g_assert_cmpfloat (x, ==, 1001);

  g_assert_false (ffm_expr_evaluate_text_number ("\x01", NULL, &x, &error));
  g_assert_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_SYNTAX);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/expr/numbers", test_numbers);
  g_test_add_func ("/expr/inf", test_inf);
  g_test_add_func ("/expr/sets", test_sets);
  g_test_add_func ("/expr/strings", test_strings);
  g_test_add_func ("/expr/integers", test_integers);
  g_test_add_func ("/expr/errors", test_errors);
  g_test_add_func ("/expr/require-types", test_require_types);
  g_test_add_func ("/expr/identifiers", test_identifiers);
  g_test_add_func ("/expr/table-resolver", test_table_resolver);
  g_test_add_func ("/expr/hostile", test_hostile);
  return g_test_run ();
}
