/* ffm-expr.c: parser and evaluator of ffm's expression language (see
 * ffm-expr.h for the grammar).
 *
 * The text is parsed once by recursive descent into a small tree; each
 * evaluation walks the tree. `&&`, `||`, `?:` and pick() evaluate only what
 * they need, so `decode == 1 && cached_tokens > 0` does not look up
 * `cached_tokens` when decode is 0. Every node remembers its character
 * position so evaluation errors can point at the culprit too. */
#include <ffm/ffm-expr.h>
#include <ffm/ffm-limits.h>

#include <math.h>
#include <string.h>

/* Nesting depth beyond which the parser refuses the text: keeps hostile
 * input ("((((...") from exhausting the stack. */
#define MAX_DEPTH 200

/* Largest number of tree nodes: evaluation recurses once per level, and a
 * chain "1+1+...+1" is as deep as it is long. File expressions are tiny. */
#define MAX_NODES 4000

/* ---- Tree ---- */

typedef enum {
  NODE_NUMBER,
  NODE_STRING,
  NODE_IDENT,
  NODE_UNARY,   /* op: '-', '!', '~' */
  NODE_BINARY,
  NODE_COND,
  NODE_CALL,
} NodeKind;

typedef enum {
  OP_NONE,
  OP_OR, OP_AND,
  OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
  OP_SETOR, OP_SETAND,
  OP_ADD, OP_SUB,
  OP_MUL, OP_DIV, OP_IDIV, OP_MOD,
  OP_POW,
  OP_NEG, OP_NOT, OP_COMPL,
} Op;

typedef enum {
  FN_MIN, FN_MAX, FN_CEIL, FN_FLOOR, FN_ROUND, FN_ABS, FN_LOG2, FN_SQRT,
  FN_POW, FN_LEN, FN_PICK,
} Func;

typedef struct _Node Node;
struct _Node {
  NodeKind kind;
  Op op;                /* UNARY, BINARY */
  Func func;            /* CALL */
  gsize pos;            /* 0-based character position in the text */
  double number;        /* NUMBER */
  char *string;         /* STRING value, IDENT name, CALL function name */
  guint n_kids;
  Node **kids;
};

struct _FfmExpr {
  char *text;
  Node *root;
  GPtrArray *nodes;     /* owns every node, for freeing */
};

static const struct {
  const char *name;
  Func func;
  int min_args;
  int max_args;         /* -1: any number */
} functions[] = {
  { "min", FN_MIN, 1, -1 },
  { "max", FN_MAX, 1, -1 },
  { "ceil", FN_CEIL, 1, 1 },
  { "floor", FN_FLOOR, 1, 1 },
  { "round", FN_ROUND, 1, 1 },
  { "abs", FN_ABS, 1, 1 },
  { "log2", FN_LOG2, 1, 1 },
  { "sqrt", FN_SQRT, 1, 1 },
  { "pow", FN_POW, 2, 2 },
  { "len", FN_LEN, 1, 1 },
  { "pick", FN_PICK, 2, -1 },
};

static const char *
op_name (Op op)
{
  switch (op)
    {
    case OP_OR: return "||";
    case OP_AND: return "&&";
    case OP_EQ: return "==";
    case OP_NE: return "!=";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    case OP_SETOR: return "|";
    case OP_SETAND: return "&";
    case OP_ADD: return "+";
    case OP_SUB: return "-";
    case OP_MUL: return "*";
    case OP_DIV: return "/";
    case OP_IDIV: return "//";
    case OP_MOD: return "%";
    case OP_POW: return "**";
    case OP_NEG: return "-";
    case OP_NOT: return "!";
    case OP_COMPL: return "~";
    case OP_NONE: break;
    }
  return "?";
}

static void
node_free (gpointer data)
{
  Node *node = data;

  g_free (node->string);
  g_free (node->kids);
  g_free (node);
}

/* ---- Lexer ---- */

typedef enum {
  TK_END, TK_NUMBER, TK_STRING, TK_IDENT,
  TK_LPAREN, TK_RPAREN, TK_COMMA, TK_QUESTION, TK_COLON,
  TK_OROR, TK_ANDAND, TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE,
  TK_BAR, TK_AMP, TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_SLASHSLASH,
  TK_PERCENT, TK_STARSTAR, TK_BANG, TK_TILDE,
} TokenKind;

typedef struct {
  TokenKind kind;
  gsize start;          /* 0-based position of the first character */
  gsize end;            /* one past the last character */
  double number;        /* TK_NUMBER */
  char *string;         /* TK_STRING (unescaped), TK_IDENT (transfer: parser) */
} Token;

typedef struct {
  const char *text;
  gsize length;
  gsize pos;            /* next character to lex */
  Token tok;            /* current token */
  int depth;
  FfmExpr *expr;
  GError **error;
} Parser;

static void
syntax_error (Parser *p, gsize pos, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
syntax_error (Parser *p, gsize pos, const char *format, ...)
{
  g_autofree char *what = NULL;
  va_list args;

  if (p->error == NULL || *p->error != NULL)
    return;
  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (p->error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_SYNTAX,
               "%s at character %" G_GSIZE_FORMAT " of \"%s\"",
               what, pos + 1, p->text);
}

static gboolean
is_ident_start (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '.';
}

static gboolean
lex_number (Parser *p)
{
  const char *s = p->text;
  gsize i = p->pos;
  gsize start = i;
  gboolean digits = FALSE;
  g_autofree char *copy = NULL;

  while (g_ascii_isdigit (s[i]))
    i++, digits = TRUE;
  if (s[i] == '.')
    {
      i++;
      while (g_ascii_isdigit (s[i]))
        i++, digits = TRUE;
    }
  if (!digits)
    {
      syntax_error (p, start, "malformed number");
      return FALSE;
    }
  if (s[i] == 'e' || s[i] == 'E')
    {
      gsize e = i + 1;
      if (s[e] == '+' || s[e] == '-')
        e++;
      if (!g_ascii_isdigit (s[e]))
        {
          syntax_error (p, start, "malformed number (exponent without digits)");
          return FALSE;
        }
      while (g_ascii_isdigit (s[e]))
        e++;
      i = e;
    }
  if (is_ident_start (s[i]))
    {
      syntax_error (p, i, "unexpected '%c' after a number (write '*' to multiply)",
                    s[i]);
      return FALSE;
    }
  copy = g_strndup (s + start, i - start);
  p->tok.kind = TK_NUMBER;
  p->tok.number = g_ascii_strtod (copy, NULL);
  /* 1e400 is not infinity: whoever wrote it meant a number (write inf for
   * infinity). */
  if (isinf (p->tok.number))
    {
      syntax_error (p, start, "the number %s is beyond the largest number "
                    "(about 1.8e308)", copy);
      return FALSE;
    }
  p->tok.end = i;
  p->pos = i;
  return TRUE;
}

static gboolean
lex_string (Parser *p)
{
  const char *s = p->text;
  char quote = s[p->pos];
  gsize i = p->pos + 1;
  GString *value = g_string_new (NULL);

  while (s[i] != quote)
    {
      if (s[i] == '\0')
        {
          syntax_error (p, p->pos, "unterminated string");
          g_string_free (value, TRUE);
          return FALSE;
        }
      if (s[i] == '\\' && s[i + 1] != '\0')
        i++;
      g_string_append_c (value, s[i]);
      i++;
    }
  p->tok.kind = TK_STRING;
  p->tok.string = g_string_free (value, FALSE);
  p->tok.end = i + 1;
  p->pos = i + 1;
  return TRUE;
}

/* Two-character operators first, so "**" is not read as "*" "*". */
static const struct {
  const char *text;
  TokenKind kind;
} operators[] = {
  { "||", TK_OROR }, { "&&", TK_ANDAND }, { "==", TK_EQ }, { "!=", TK_NE },
  { "<=", TK_LE }, { ">=", TK_GE }, { "//", TK_SLASHSLASH }, { "**", TK_STARSTAR },
  { "<", TK_LT }, { ">", TK_GT }, { "|", TK_BAR }, { "&", TK_AMP },
  { "+", TK_PLUS }, { "-", TK_MINUS }, { "*", TK_STAR }, { "/", TK_SLASH },
  { "%", TK_PERCENT }, { "!", TK_BANG }, { "~", TK_TILDE }, { "(", TK_LPAREN },
  { ")", TK_RPAREN }, { ",", TK_COMMA }, { "?", TK_QUESTION }, { ":", TK_COLON },
};

/* Reads the next token into p->tok. */
static gboolean
lex (Parser *p)
{
  const char *s = p->text;

  g_clear_pointer (&p->tok.string, g_free);
  while (g_ascii_isspace (s[p->pos]))
    p->pos++;
  p->tok.start = p->pos;
  p->tok.end = p->pos;
  if (s[p->pos] == '\0')
    {
      p->tok.kind = TK_END;
      return TRUE;
    }
  if (g_ascii_isdigit (s[p->pos])
      || (s[p->pos] == '.' && g_ascii_isdigit (s[p->pos + 1])))
    return lex_number (p);
  if (s[p->pos] == '\'' || s[p->pos] == '"')
    return lex_string (p);
  if (is_ident_start (s[p->pos]))
    {
      gsize i = p->pos;
      while (is_ident_char (s[i]))
        i++;
      p->tok.kind = TK_IDENT;
      p->tok.string = g_strndup (s + p->pos, i - p->pos);
      p->tok.end = i;
      p->pos = i;
      return TRUE;
    }
  for (guint k = 0; k < G_N_ELEMENTS (operators); k++)
    {
      gsize n = strlen (operators[k].text);
      if (strncmp (s + p->pos, operators[k].text, n) == 0)
        {
          p->tok.kind = operators[k].kind;
          p->pos += n;
          p->tok.end = p->pos;
          return TRUE;
        }
    }
  if (s[p->pos] == '=')
    syntax_error (p, p->pos, "unexpected '=' (write '==' to compare)");
  else if (g_ascii_isprint (s[p->pos]))
    syntax_error (p, p->pos, "unexpected character '%c'", s[p->pos]);
  else
    syntax_error (p, p->pos, "unexpected byte 0x%02x", (guint) (guchar) s[p->pos]);
  return FALSE;
}

/* How the current token reads in a message. */
static char *
token_description (Parser *p)
{
  if (p->tok.kind == TK_END)
    return g_strdup ("end of expression");
  return g_strdup_printf ("'%.*s'", (int) (p->tok.end - p->tok.start),
                          p->text + p->tok.start);
}

/* ---- Parser ---- */

static Node *
node_new (Parser *p, NodeKind kind, gsize pos)
{
  Node *node = g_new0 (Node, 1);

  if (p->expr->nodes->len == MAX_NODES)
    syntax_error (p, pos, "expression too long (more than %d terms)", MAX_NODES);
  node->kind = kind;
  node->pos = pos;
  g_ptr_array_add (p->expr->nodes, node);
  return node;
}

static Node *
node_new_binary (Parser *p, Op op, gsize pos, Node *left, Node *right)
{
  Node *node = node_new (p, NODE_BINARY, pos);

  node->op = op;
  node->n_kids = 2;
  node->kids = g_new (Node *, 2);
  node->kids[0] = left;
  node->kids[1] = right;
  return node;
}

static Node *parse_cond (Parser *p);
static Node *parse_unary (Parser *p);

static gboolean
expect (Parser *p, TokenKind kind, const char *what)
{
  if (p->tok.kind != kind)
    {
      g_autofree char *got = token_description (p);
      syntax_error (p, p->tok.start, "expected %s, got %s", what, got);
      return FALSE;
    }
  return lex (p);
}

static Node *
parse_call (Parser *p, char *name, gsize pos)
{
  Node *node = node_new (p, NODE_CALL, pos);
  GPtrArray *args = g_ptr_array_new ();
  int index = -1;

  node->string = name;
  for (guint k = 0; k < G_N_ELEMENTS (functions); k++)
    if (strcmp (functions[k].name, name) == 0)
      index = (int) k;
  if (index < 0)
    {
      g_ptr_array_free (args, TRUE);
      if (p->error != NULL && *p->error == NULL)
        g_set_error (p->error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_UNKNOWN_NAME,
                     "unknown function '%s' at character %" G_GSIZE_FORMAT
                     " of \"%s\" (known: min, max, ceil, floor, round, abs, "
                     "log2, sqrt, pow, len, pick)", name, pos + 1, p->text);
      return NULL;
    }
  node->func = functions[index].func;
  if (!lex (p))                                 /* past '(' */
    goto failed;
  if (p->tok.kind != TK_RPAREN)
    for (;;)
      {
        Node *arg = parse_cond (p);
        if (arg == NULL)
          goto failed;
        g_ptr_array_add (args, arg);
        if (p->tok.kind != TK_COMMA)
          break;
        if (!lex (p))
          goto failed;
      }
  if (!expect (p, TK_RPAREN, "',' or ')'"))
    goto failed;
  if ((int) args->len < functions[index].min_args
      || (functions[index].max_args >= 0
          && (int) args->len > functions[index].max_args))
    {
      if (functions[index].max_args == functions[index].min_args)
        syntax_error (p, pos, "%s() takes %d argument%s, got %u", name,
                      functions[index].min_args,
                      functions[index].min_args == 1 ? "" : "s", args->len);
      else
        syntax_error (p, pos, "%s() takes at least %d argument%s, got %u", name,
                      functions[index].min_args,
                      functions[index].min_args == 1 ? "" : "s", args->len);
      goto failed;
    }
  node->n_kids = args->len;
  node->kids = (Node **) g_ptr_array_free (args, FALSE);
  return node;

failed:
  g_ptr_array_free (args, TRUE);
  return NULL;
}

static Node *
parse_atom (Parser *p)
{
  gsize pos = p->tok.start;
  Node *node;

  switch (p->tok.kind)
    {
    case TK_NUMBER:
      node = node_new (p, NODE_NUMBER, pos);
      node->number = p->tok.number;
      return lex (p) ? node : NULL;
    case TK_STRING:
      node = node_new (p, NODE_STRING, pos);
      node->string = g_steal_pointer (&p->tok.string);
      return lex (p) ? node : NULL;
    case TK_IDENT:
      {
        char *name = g_steal_pointer (&p->tok.string);
        if (!lex (p))
          {
            g_free (name);
            return NULL;
          }
        if (p->tok.kind == TK_LPAREN)
          return parse_call (p, name, pos);
        if (strcmp (name, "inf") == 0 || strcmp (name, "true") == 0
            || strcmp (name, "false") == 0)
          {
            node = node_new (p, NODE_NUMBER, pos);
            node->number = name[0] == 'i' ? INFINITY : name[0] == 't' ? 1 : 0;
            g_free (name);
            return node;
          }
        node = node_new (p, NODE_IDENT, pos);
        node->string = name;
        return node;
      }
    case TK_LPAREN:
      if (!lex (p))
        return NULL;
      node = parse_cond (p);
      if (node == NULL || !expect (p, TK_RPAREN, "')'"))
        return NULL;
      return node;
    default:
      {
        g_autofree char *got = token_description (p);
        syntax_error (p, pos, "expected a number, a string, a name or '(', got %s", got);
        return NULL;
      }
    }
}

static Node *
parse_power (Parser *p)
{
  Node *left = parse_atom (p);
  gsize pos = p->tok.start;
  Node *right;

  if (left == NULL || p->tok.kind != TK_STARSTAR)
    return left;
  if (++p->depth > MAX_DEPTH)
    {
      syntax_error (p, pos, "expression nested too deeply");
      return NULL;
    }
  if (!lex (p))
    return NULL;
  right = parse_unary (p);           /* right-associative: 2**3**2 = 2**9 */
  if (right == NULL)
    return NULL;
  p->depth--;
  return node_new_binary (p, OP_POW, pos, left, right);
}

static Node *
parse_unary (Parser *p)
{
  gsize pos = p->tok.start;
  Op op = OP_NONE;
  Node *operand, *node;

  if (p->tok.kind == TK_MINUS)
    op = OP_NEG;
  else if (p->tok.kind == TK_BANG)
    op = OP_NOT;
  else if (p->tok.kind == TK_TILDE)
    op = OP_COMPL;
  if (op == OP_NONE)
    return parse_power (p);
  if (++p->depth > MAX_DEPTH)
    {
      syntax_error (p, pos, "expression nested too deeply");
      return NULL;
    }
  if (!lex (p) || (operand = parse_unary (p)) == NULL)
    return NULL;
  p->depth--;
  node = node_new (p, NODE_UNARY, pos);
  node->op = op;
  node->n_kids = 1;
  node->kids = g_new (Node *, 1);
  node->kids[0] = operand;
  return node;
}

/* One level of left-associative binary operators. */
typedef struct {
  TokenKind token;
  Op op;
} OpMap;

static Node *
parse_left_assoc (Parser *p, Node *(*next) (Parser *), const OpMap *map,
                  guint n_map, gboolean at_most_one)
{
  Node *left = next (p);

  while (left != NULL)
    {
      Op op = OP_NONE;
      gsize pos = p->tok.start;
      Node *right;

      for (guint k = 0; k < n_map; k++)
        if (p->tok.kind == map[k].token)
          op = map[k].op;
      if (op == OP_NONE)
        break;
      if (!lex (p) || (right = next (p)) == NULL)
        return NULL;
      left = node_new_binary (p, op, pos, left, right);
      if (at_most_one)
        break;
    }
  return left;
}

static Node *
parse_prod (Parser *p)
{
  static const OpMap map[] = {
    { TK_STAR, OP_MUL }, { TK_SLASH, OP_DIV }, { TK_SLASHSLASH, OP_IDIV },
    { TK_PERCENT, OP_MOD },
  };
  return parse_left_assoc (p, parse_unary, map, G_N_ELEMENTS (map), FALSE);
}

static Node *
parse_sum (Parser *p)
{
  static const OpMap map[] = { { TK_PLUS, OP_ADD }, { TK_MINUS, OP_SUB } };
  return parse_left_assoc (p, parse_prod, map, G_N_ELEMENTS (map), FALSE);
}

static Node *
parse_setand (Parser *p)
{
  static const OpMap map[] = { { TK_AMP, OP_SETAND } };
  return parse_left_assoc (p, parse_sum, map, G_N_ELEMENTS (map), FALSE);
}

static Node *
parse_setor (Parser *p)
{
  static const OpMap map[] = { { TK_BAR, OP_SETOR } };
  return parse_left_assoc (p, parse_setand, map, G_N_ELEMENTS (map), FALSE);
}

static Node *
parse_cmp (Parser *p)
{
  static const OpMap map[] = {
    { TK_EQ, OP_EQ }, { TK_NE, OP_NE }, { TK_LT, OP_LT }, { TK_LE, OP_LE },
    { TK_GT, OP_GT }, { TK_GE, OP_GE },
  };
  Node *node = parse_left_assoc (p, parse_setor, map, G_N_ELEMENTS (map), TRUE);

  if (node != NULL && p->tok.kind >= TK_EQ && p->tok.kind <= TK_GE)
    {
      syntax_error (p, p->tok.start,
                    "comparisons do not chain (write 'a < b && b < c')");
      return NULL;
    }
  return node;
}

static Node *
parse_and (Parser *p)
{
  static const OpMap map[] = { { TK_ANDAND, OP_AND } };
  return parse_left_assoc (p, parse_cmp, map, G_N_ELEMENTS (map), FALSE);
}

static Node *
parse_or (Parser *p)
{
  static const OpMap map[] = { { TK_OROR, OP_OR } };
  return parse_left_assoc (p, parse_and, map, G_N_ELEMENTS (map), FALSE);
}

static Node *
parse_cond (Parser *p)
{
  Node *test, *yes, *no, *node;
  gsize pos;

  if (++p->depth > MAX_DEPTH)
    {
      syntax_error (p, p->tok.start, "expression nested too deeply");
      return NULL;
    }
  test = parse_or (p);
  if (test == NULL)
    return NULL;
  if (p->tok.kind != TK_QUESTION)
    {
      p->depth--;
      return test;
    }
  pos = p->tok.start;
  if (!lex (p) || (yes = parse_cond (p)) == NULL)
    return NULL;
  if (!expect (p, TK_COLON, "':'") || (no = parse_cond (p)) == NULL)
    return NULL;
  p->depth--;
  node = node_new (p, NODE_COND, pos);
  node->n_kids = 3;
  node->kids = g_new (Node *, 3);
  node->kids[0] = test;
  node->kids[1] = yes;
  node->kids[2] = no;
  return node;
}

FfmExpr *
ffm_expr_parse (const char *text, GError **error)
{
  g_autoptr (FfmExpr) expr = NULL;
  GError *local = NULL;
  Parser p = { 0 };

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  expr = g_new0 (FfmExpr, 1);
  expr->text = g_strdup (text);
  expr->nodes = g_ptr_array_new_with_free_func (node_free);
  p.text = expr->text;
  p.length = strlen (text);
  p.expr = expr;
  p.error = &local;          /* always collect, so failures are detectable */

  if (lex (&p))
    {
      if (p.tok.kind == TK_END)
        syntax_error (&p, 0, "empty expression");
      else
        {
          expr->root = parse_cond (&p);
          if (expr->root != NULL && p.tok.kind != TK_END)
            {
              g_autofree char *got = token_description (&p);
              syntax_error (&p, p.tok.start, "unexpected %s", got);
            }
        }
    }
  g_free (p.tok.string);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  return g_steal_pointer (&expr);
}

void
ffm_expr_free (FfmExpr *expr)
{
  if (expr == NULL)
    return;
  g_ptr_array_unref (expr->nodes);
  g_free (expr->text);
  g_free (expr);
}

const char *
ffm_expr_get_text (const FfmExpr *expr)
{
  g_return_val_if_fail (expr != NULL, NULL);
  return expr->text;
}

static void
foreach_identifier (const Node *node,
                    void (*func) (const char *name, gpointer user_data),
                    gpointer user_data)
{
  if (node->kind == NODE_IDENT)
    func (node->string, user_data);
  for (guint k = 0; k < node->n_kids; k++)
    foreach_identifier (node->kids[k], func, user_data);
}

void
ffm_expr_foreach_identifier (const FfmExpr *expr,
                             void (*func) (const char *name, gpointer user_data),
                             gpointer user_data)
{
  g_return_if_fail (expr != NULL && func != NULL);
  foreach_identifier (expr->root, func, user_data);
}

/* ---- Evaluation ---- */

typedef struct {
  const FfmExpr *expr;
  const FfmExprScope *scope;
  GError **error;
} Eval;

static const char *
type_name (FfmValueType type)
{
  switch (type)
    {
    case FFM_VALUE_NUMBER: return "a number";
    case FFM_VALUE_STRING: return "a string";
    case FFM_VALUE_SET: return "a tensor set";
    }
  return "a value";
}

static gboolean
eval_error (Eval *e, const Node *node, int code, const char *format, ...)
  G_GNUC_PRINTF (4, 5);

static gboolean
eval_error (Eval *e, const Node *node, int code, const char *format, ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (e->error, FFM_EXPR_ERROR, code,
               "%s at character %" G_GSIZE_FORMAT " of \"%s\"",
               what, node->pos + 1, e->expr->text);
  return FALSE;
}

static gboolean eval_node (Eval *e, const Node *node, FfmValue *out);

static void
set_number (FfmValue *out, double number)
{
  memset (out, 0, sizeof *out);
  out->type = FFM_VALUE_NUMBER;
  out->number = number;
}

static void
set_set (FfmValue *out, guint64 set)
{
  memset (out, 0, sizeof *out);
  out->type = FFM_VALUE_SET;
  out->set = set;
}

static gboolean
eval_number (Eval *e, const Node *node, double *out, const char *context)
{
  FfmValue v;

  if (!eval_node (e, node, &v))
    return FALSE;
  if (v.type != FFM_VALUE_NUMBER)
    return eval_error (e, node, FFM_EXPR_ERROR_TYPE, "%s needs a number, got %s",
                       context, type_name (v.type));
  *out = v.number;
  return TRUE;
}

static gboolean
eval_unary (Eval *e, const Node *node, FfmValue *out)
{
  FfmValue v;

  if (!eval_node (e, node->kids[0], &v))
    return FALSE;
  if (node->op == OP_COMPL)
    {
      if (v.type != FFM_VALUE_SET)
        return eval_error (e, node, FFM_EXPR_ERROR_TYPE,
                           "'~' needs a tensor set, got %s", type_name (v.type));
      set_set (out, e->scope ? e->scope->universe & ~v.set : 0);
      return TRUE;
    }
  if (v.type != FFM_VALUE_NUMBER)
    return eval_error (e, node, FFM_EXPR_ERROR_TYPE, "'%s' needs a number, got %s",
                       op_name (node->op), type_name (v.type));
  set_number (out, node->op == OP_NEG ? -v.number : (v.number == 0 ? 1 : 0));
  return TRUE;
}

static gboolean
eval_logic (Eval *e, const Node *node, FfmValue *out)
{
  /* set by eval_number() on every path that returns TRUE; initialised for
   * gcc -O3, which cannot see that through the recursion */
  double left = 0, right = 0;

  if (!eval_number (e, node->kids[0], &left, node->op == OP_AND ? "'&&'" : "'||'"))
    return FALSE;
  if (node->op == OP_AND && left == 0)
    {
      set_number (out, 0);
      return TRUE;
    }
  if (node->op == OP_OR && left != 0)
    {
      set_number (out, 1);
      return TRUE;
    }
  if (!eval_number (e, node->kids[1], &right, node->op == OP_AND ? "'&&'" : "'||'"))
    return FALSE;
  set_number (out, right != 0);
  return TRUE;
}

static gboolean
eval_compare (Eval *e, const Node *node, const FfmValue *a, const FfmValue *b,
              FfmValue *out)
{
  int c;

  if (a->type != b->type)
    return eval_error (e, node, FFM_EXPR_ERROR_TYPE, "cannot compare %s with %s",
                       type_name (a->type), type_name (b->type));
  if (a->type == FFM_VALUE_SET)
    {
      if (node->op != OP_EQ && node->op != OP_NE)
        return eval_error (e, node, FFM_EXPR_ERROR_TYPE,
                           "'%s' does not apply to tensor sets (only == and !=)",
                           op_name (node->op));
      set_number (out, (a->set == b->set) == (node->op == OP_EQ));
      return TRUE;
    }
  if (a->type == FFM_VALUE_NUMBER && (isnan (a->number) || isnan (b->number)))
    {
      set_number (out, node->op == OP_NE);      /* NaN is unordered */
      return TRUE;
    }
  if (a->type == FFM_VALUE_STRING)
    c = strcmp (a->string, b->string);
  else
    c = a->number < b->number ? -1 : a->number > b->number ? 1 : 0;
  switch (node->op)
    {
    case OP_EQ: set_number (out, c == 0); break;
    case OP_NE: set_number (out, c != 0); break;
    case OP_LT: set_number (out, c < 0); break;
    case OP_LE: set_number (out, c <= 0); break;
    case OP_GT: set_number (out, c > 0); break;
    case OP_GE: set_number (out, c >= 0); break;
    default: g_assert_not_reached ();
    }
  return TRUE;
}

static gboolean
eval_set_op (Eval *e, const Node *node, const FfmValue *a, const FfmValue *b,
             FfmValue *out)
{
  if (a->type != FFM_VALUE_SET || b->type != FFM_VALUE_SET)
    return eval_error (e, node, FFM_EXPR_ERROR_TYPE,
                       "'%s' needs two tensor sets, got %s and %s",
                       op_name (node->op), type_name (a->type), type_name (b->type));
  switch (node->op)
    {
    case OP_SETOR:
    case OP_ADD:
      set_set (out, a->set | b->set);
      break;
    case OP_SETAND:
      set_set (out, a->set & b->set);
      break;
    case OP_SUB:
      set_set (out, a->set & ~b->set);
      break;
    default:
      return eval_error (e, node, FFM_EXPR_ERROR_TYPE,
                         "'%s' does not apply to tensor sets", op_name (node->op));
    }
  return TRUE;
}

static gboolean
eval_arith (Eval *e, const Node *node, double a, double b, FfmValue *out)
{
  double r;

  switch (node->op)
    {
    case OP_ADD: r = a + b; break;
    case OP_SUB: r = a - b; break;
    case OP_MUL: r = a * b; break;
    case OP_DIV:
    case OP_IDIV:
    case OP_MOD:
      if (b == 0)
        return eval_error (e, node, FFM_EXPR_ERROR_DIVISION_BY_ZERO,
                           "division by zero");
      if (node->op == OP_DIV)
        r = a / b;
      else if (node->op == OP_IDIV)
        r = floor (a / b);
      else
        r = a - b * floor (a / b);              /* sign of the divisor, as Python */
      break;
    case OP_POW:
      if (a == 0 && b < 0)
        return eval_error (e, node, FFM_EXPR_ERROR_DIVISION_BY_ZERO,
                           "division by zero (0 to a negative power)");
      r = pow (a, b);
      if (isnan (r) && !isnan (a) && !isnan (b))
        return eval_error (e, node, FFM_EXPR_ERROR_DOMAIN,
                           "negative number to a fractional power");
      break;
    default:
      g_assert_not_reached ();
    }
  set_number (out, r);
  return TRUE;
}

static gboolean
eval_binary (Eval *e, const Node *node, FfmValue *out)
{
  FfmValue a, b;

  if (node->op == OP_AND || node->op == OP_OR)
    return eval_logic (e, node, out);
  if (!eval_node (e, node->kids[0], &a) || !eval_node (e, node->kids[1], &b))
    return FALSE;
  switch (node->op)
    {
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
      return eval_compare (e, node, &a, &b, out);
    case OP_SETOR:
    case OP_SETAND:
      return eval_set_op (e, node, &a, &b, out);
    case OP_ADD:
    case OP_SUB:
      if (a.type == FFM_VALUE_SET || b.type == FFM_VALUE_SET)
        return eval_set_op (e, node, &a, &b, out);
      break;
    default:
      break;
    }
  if (a.type != FFM_VALUE_NUMBER || b.type != FFM_VALUE_NUMBER)
    return eval_error (e, node, FFM_EXPR_ERROR_TYPE,
                       "'%s' needs two numbers, got %s and %s",
                       op_name (node->op), type_name (a.type), type_name (b.type));
  return eval_arith (e, node, a.number, b.number, out);
}

static gboolean
eval_call (Eval *e, const Node *node, FfmValue *out)
{
  double x = 0, y = 0;      /* as in eval_logic() */

  switch (node->func)
    {
    case FN_MIN:
    case FN_MAX:
      if (!eval_number (e, node->kids[0], &x, node->string))
        return FALSE;
      for (guint k = 1; k < node->n_kids; k++)
        {
          if (!eval_number (e, node->kids[k], &y, node->string))
            return FALSE;
          x = node->func == FN_MIN ? fmin (x, y) : fmax (x, y);
        }
      set_number (out, x);
      return TRUE;
    case FN_LEN:
      {
        FfmValue v;
        if (!eval_node (e, node->kids[0], &v))
          return FALSE;
        if (v.type == FFM_VALUE_SET)
          set_number (out, __builtin_popcountll (v.set));
        else if (v.type == FFM_VALUE_STRING)
          set_number (out, (double) g_utf8_strlen (v.string, -1));
        else
          return eval_error (e, node, FFM_EXPR_ERROR_TYPE,
                             "len() needs a tensor set or a string, got a number");
        return TRUE;
      }
    case FN_PICK:
      {
        if (!eval_number (e, node->kids[0], &x, "pick()"))
          return FALSE;
        if (x != floor (x) || x < 0 || x > (double) (node->n_kids - 2))
          return eval_error (e, node, FFM_EXPR_ERROR_DOMAIN,
                             "pick() index %g is not one of 0..%u", x,
                             node->n_kids - 2);
        return eval_node (e, node->kids[(guint) x + 1], out);
      }
    case FN_POW:
      if (!eval_number (e, node->kids[0], &x, "pow()")
          || !eval_number (e, node->kids[1], &y, "pow()"))
        return FALSE;
      {
        Node pow_node = *node;
        pow_node.op = OP_POW;
        return eval_arith (e, &pow_node, x, y, out);
      }
    default:
      break;
    }
  if (!eval_number (e, node->kids[0], &x, node->string))
    return FALSE;
  switch (node->func)
    {
    case FN_CEIL: x = ceil (x); break;
    case FN_FLOOR: x = floor (x); break;
    case FN_ROUND: x = round (x); break;
    case FN_ABS: x = fabs (x); break;
    case FN_LOG2:
      if (x <= 0)
        return eval_error (e, node, FFM_EXPR_ERROR_DOMAIN,
                           "log2() of %g (needs a positive number)", x);
      x = log2 (x);
      break;
    case FN_SQRT:
      if (x < 0)
        return eval_error (e, node, FFM_EXPR_ERROR_DOMAIN,
                           "sqrt() of %g (needs a number >= 0)", x);
      x = sqrt (x);
      break;
    default:
      g_assert_not_reached ();
    }
  set_number (out, x);
  return TRUE;
}

static gboolean
eval_node (Eval *e, const Node *node, FfmValue *out)
{
  switch (node->kind)
    {
    case NODE_NUMBER:
      set_number (out, node->number);
      return TRUE;
    case NODE_STRING:
      memset (out, 0, sizeof *out);
      out->type = FFM_VALUE_STRING;
      out->string = node->string;
      return TRUE;
    case NODE_IDENT:
      memset (out, 0, sizeof *out);
      if (e->scope != NULL && e->scope->resolve != NULL
          && e->scope->resolve (node->string, out, e->scope->user_data))
        return TRUE;
      return eval_error (e, node, FFM_EXPR_ERROR_UNKNOWN_NAME,
                         "unknown name '%s'", node->string);
    case NODE_UNARY:
      return eval_unary (e, node, out);
    case NODE_BINARY:
      return eval_binary (e, node, out);
    case NODE_COND:
      {
        double test = 0;    /* as in eval_logic() */
        if (!eval_number (e, node->kids[0], &test, "'?:'"))
          return FALSE;
        return eval_node (e, node->kids[test != 0 ? 1 : 2], out);
      }
    case NODE_CALL:
      return eval_call (e, node, out);
    }
  g_assert_not_reached ();
  return FALSE;
}

gboolean
ffm_expr_evaluate (const FfmExpr *expr, const FfmExprScope *scope,
                   FfmValue *out, GError **error)
{
  Eval e = { expr, scope, error };
  FfmValue value;

  g_return_val_if_fail (expr != NULL && out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (!eval_node (&e, expr->root, &value))
    return FALSE;
  *out = value;
  return TRUE;
}

static gboolean
require_type (const FfmExpr *expr, const FfmValue *v, FfmValueType type,
              GError **error)
{
  if (v->type == type)
    return TRUE;
  g_set_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_TYPE,
               "expected %s, got %s from \"%s\"", type_name (type),
               type_name (v->type), expr->text);
  return FALSE;
}

gboolean
ffm_expr_evaluate_number (const FfmExpr *expr, const FfmExprScope *scope,
                          double *out, GError **error)
{
  FfmValue v;

  if (!ffm_expr_evaluate (expr, scope, &v, error)
      || !require_type (expr, &v, FFM_VALUE_NUMBER, error))
    return FALSE;
  *out = v.number;
  return TRUE;
}

gboolean
ffm_expr_evaluate_integer (const FfmExpr *expr, const FfmExprScope *scope,
                           gint64 *out, GError **error)
{
  double x;

  if (!ffm_expr_evaluate_number (expr, scope, &x, error))
    return FALSE;
  if (!isfinite (x) || fabs (x) > FFM_MAX_EXACT_INTEGER)
    {
      g_set_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_DOMAIN,
                   "expected an integer of at most 2^53, got %g from \"%s\"",
                   x, expr->text);
      return FALSE;
    }
  if (x != floor (x))
    {
      g_set_error (error, FFM_EXPR_ERROR, FFM_EXPR_ERROR_DOMAIN,
                   "expected an integer, got %.17g from \"%s\"", x, expr->text);
      return FALSE;
    }
  *out = (gint64) x;
  return TRUE;
}

gboolean
ffm_expr_evaluate_set (const FfmExpr *expr, const FfmExprScope *scope,
                       guint64 *out, GError **error)
{
  FfmValue v;

  if (!ffm_expr_evaluate (expr, scope, &v, error)
      || !require_type (expr, &v, FFM_VALUE_SET, error))
    return FALSE;
  *out = v.set;
  return TRUE;
}

gboolean
ffm_expr_evaluate_bool (const FfmExpr *expr, const FfmExprScope *scope,
                        gboolean *out, GError **error)
{
  double x;

  if (!ffm_expr_evaluate_number (expr, scope, &x, error))
    return FALSE;
  *out = x != 0;
  return TRUE;
}

gboolean
ffm_expr_evaluate_text_number (const char *text, const FfmExprScope *scope,
                               double *out, GError **error)
{
  g_autoptr (FfmExpr) expr = ffm_expr_parse (text, error);

  if (expr == NULL)
    return FALSE;
  return ffm_expr_evaluate_number (expr, scope, out, error);
}

gboolean
ffm_expr_resolve_from_table (const char *name, FfmValue *out, gpointer table)
{
  const FfmValue *value = g_hash_table_lookup (table, name);

  if (value == NULL)
    return FALSE;
  *out = *value;
  return TRUE;
}
