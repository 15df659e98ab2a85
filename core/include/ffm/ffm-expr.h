/* ffm-expr.h: the small expression language of ffm's files.
 *
 * Workload and architecture files write numbers as expressions over declared
 * parameters ("4*d_model", "glb_mib*8*1024*1024"), choose variants with
 * conditions ("decode == 1", "attention == 'gqa'") and name tensor sets
 * ("all - intermediates", "input | output", "~MainMemory"). One parser serves
 * all three: an expression is parsed once into an FfmExpr and evaluated many
 * times against a scope that resolves identifiers.
 *
 * Values are numbers (double; integers are exact up to 2^53), strings, or
 * tensor sets. A tensor set is a bit mask over the tensors of one Einsum (at
 * most 64), so set algebra is a few machine operations; `~X` is the
 * complement within the scope's universe (the Einsum's tensors).
 *
 * Grammar, lowest precedence first:
 *   cond   := or ('?' cond ':' cond)?
 *   or     := and ('||' and)*
 *   and    := cmp ('&&' cmp)*
 *   cmp    := setor (('=='|'!='|'<'|'<='|'>'|'>=') setor)?
 *   setor  := setand ('|' setand)*
 *   setand := sum ('&' sum)*
 *   sum    := prod (('+'|'-') prod)*          '-' on sets is difference
 *   prod   := unary (('*'|'/'|'//'|'%') unary)*
 *   unary  := ('-'|'!'|'~') unary | power
 *   power  := atom ('**' unary)?
 *   atom   := number | 'string' | "string" | ident | ident '(' args ')'
 *           | '(' cond ')'
 * Numbers accept 1e6, 0.5, inf; `true` and `false` are 1 and 0. Functions:
 * min, max, ceil, floor, round, abs, log2, sqrt, pow, len(set) (also the
 * length of a string), pick(i, a0, a1, ...) (argument i counting from 0; only
 * it is evaluated). On sets `+` is union like `|`. `&&`, `||` and `?:`
 * evaluate only what they need. Comparisons do not chain. Division (`/`,
 * `//`, `%`) by zero is FFM_EXPR_ERROR_DIVISION_BY_ZERO. Full description:
 * docs/file-formats.md, "Expressions".
 * Identifiers: [A-Za-z_][A-Za-z0-9_.]* (a dot allows "MainMemory.tensors").
 *
 * Units: none; callers document the unit of what they evaluate. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>
#include <ffm/ffm-error.h>

G_BEGIN_DECLS

typedef enum {
  FFM_VALUE_NUMBER,
  FFM_VALUE_STRING,
  FFM_VALUE_SET,
} FfmValueType;

/* A value produced by evaluation. Strings point into the parsed expression
 * or the scope (transfer none): copy them if they must outlive both. */
typedef struct {
  FfmValueType type;
  double number;             /* FFM_VALUE_NUMBER */
  const char *string;        /* FFM_VALUE_STRING */
  guint64 set;               /* FFM_VALUE_SET: bit i = tensor i of the universe */
} FfmValue;

/* Resolves one identifier. Returns TRUE and fills @out if @name is known,
 * FALSE if it is not (the evaluator then reports FFM_EXPR_ERROR_UNKNOWN_NAME
 * naming the identifier). */
typedef gboolean (*FfmExprResolveFunc) (const char *name,
                                        FfmValue *out,
                                        gpointer user_data);

/* What identifiers mean during one evaluation. */
typedef struct {
  FfmExprResolveFunc resolve;  /* may be NULL: no identifiers */
  gpointer user_data;
  guint64 universe;            /* set for '~' complement; 0 if sets unused */
} FfmExprScope;

typedef struct _FfmExpr FfmExpr;

/* Parses @text. On a syntax error the message quotes the text and gives the
 * character position ("expected ')' at character 7 of \"(a+b\""). */
FFM_API FfmExpr *ffm_expr_parse (const char *text, GError **error);
FFM_API void ffm_expr_free (FfmExpr *expr);
FFM_API const char *ffm_expr_get_text (const FfmExpr *expr);

/* Calls @func for every identifier the expression refers to (function names
 * excluded), so callers can check names before evaluating. */
FFM_API void ffm_expr_foreach_identifier (const FfmExpr *expr,
                                          void (*func) (const char *name,
                                                        gpointer user_data),
                                          gpointer user_data);

FFM_API gboolean ffm_expr_evaluate (const FfmExpr *expr,
                                    const FfmExprScope *scope,
                                    FfmValue *out,
                                    GError **error);

/* Evaluates and requires a number. */
FFM_API gboolean ffm_expr_evaluate_number (const FfmExpr *expr,
                                           const FfmExprScope *scope,
                                           double *out,
                                           GError **error);

/* Evaluates and requires an integer-valued number within gint64 range. */
FFM_API gboolean ffm_expr_evaluate_integer (const FfmExpr *expr,
                                            const FfmExprScope *scope,
                                            gint64 *out,
                                            GError **error);

/* Evaluates and requires a tensor set. */
FFM_API gboolean ffm_expr_evaluate_set (const FfmExpr *expr,
                                        const FfmExprScope *scope,
                                        guint64 *out,
                                        GError **error);

/* Evaluates and requires a truth value (a number: non-zero is TRUE). */
FFM_API gboolean ffm_expr_evaluate_bool (const FfmExpr *expr,
                                         const FfmExprScope *scope,
                                         gboolean *out,
                                         GError **error);

/* One-shot helper: parse, evaluate as number, free. */
FFM_API gboolean ffm_expr_evaluate_text_number (const char *text,
                                                const FfmExprScope *scope,
                                                double *out,
                                                GError **error);

/* Resolver over a GHashTable of char* name -> FfmValue* (e.g. parameters). */
FFM_API gboolean ffm_expr_resolve_from_table (const char *name,
                                              FfmValue *out,
                                              gpointer table);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmExpr, ffm_expr_free)

G_END_DECLS
