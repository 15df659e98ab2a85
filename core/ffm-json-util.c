/* ffm-json-util.c: JSON documents with line numbers (see ffm-json-util.h). */
#include "ffm-json-util.h"
#include "ffm-bounded-read.h"
#include <ffm/ffm-json-writer.h>

#include <ffm/ffm-limits.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct _FfmJsonDoc {
  char *name;               /* file name for messages */
  JsonParser *parser;       /* owns the tree */
  GHashTable *lines;        /* JsonNode* -> line (GINT_TO_POINTER) */
  GHashTable *n_members;    /* JsonObject* -> members parsed so far */
  char *duplicate;          /* the first member found twice in an object */
  int duplicate_line;
};

static void
on_object_member (JsonParser *parser, JsonObject *object,
                  const char *member_name, gpointer user_data)
{
  FfmJsonDoc *doc = user_data;
  JsonNode *node = json_object_get_member (object, member_name);
  guint parsed = GPOINTER_TO_UINT (g_hash_table_lookup (doc->n_members, object)) + 1;

  /* json-glib keeps the last of two equal members: count what was parsed
   * against what the object holds to see the first one being dropped. */
  g_hash_table_insert (doc->n_members, object, GUINT_TO_POINTER (parsed));
  if (parsed > json_object_get_size (object) && doc->duplicate == NULL)
    {
      doc->duplicate = g_strdup (member_name);
      doc->duplicate_line = json_parser_get_current_line (parser);
    }
  if (node != NULL)
    g_hash_table_insert (doc->lines, node,
                         GINT_TO_POINTER (json_parser_get_current_line (parser)));
}

static void
on_array_element (JsonParser *parser, JsonArray *array, int index,
                  gpointer user_data)
{
  FfmJsonDoc *doc = user_data;
  JsonNode *node = json_array_get_element (array, (guint) index);

  if (node != NULL)
    g_hash_table_insert (doc->lines, node,
                         GINT_TO_POINTER (json_parser_get_current_line (parser)));
}

static FfmJsonDoc *
doc_new (const char *name)
{
  FfmJsonDoc *doc = g_new0 (FfmJsonDoc, 1);

  doc->name = g_strdup (name);
  doc->parser = json_parser_new_immutable ();
  doc->lines = g_hash_table_new (g_direct_hash, g_direct_equal);
  doc->n_members = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_signal_connect (doc->parser, "object-member", G_CALLBACK (on_object_member), doc);
  g_signal_connect (doc->parser, "array-element", G_CALLBACK (on_array_element), doc);
  return doc;
}

static FfmJsonDoc *
doc_finish (FfmJsonDoc *doc, gboolean ok, GError *parse_error, GQuark domain,
            int parse_code, GError **error)
{
  if (!ok)
    {
      /* json-glib's message already reads "<data>:LINE:COL: Parse error: ..."
       * with its own idea of the file name; keep position and cause. */
      const char *msg = parse_error ? parse_error->message : "unknown error";
      const char *rest = msg;
      if (g_str_has_prefix (msg, "<data>"))
        rest = msg + strlen ("<data>");
      else if (g_str_has_prefix (msg, doc->name))
        rest = msg + strlen (doc->name);
      if (rest[0] == ':')
        g_set_error (error, domain, parse_code, "%s%s", doc->name, rest);
      else
        g_set_error (error, domain, parse_code, "%s: %s", doc->name, msg);
      g_clear_error (&parse_error);
      ffm_json_doc_free (doc);
      return NULL;
    }
  if (json_parser_get_root (doc->parser) == NULL)
    {
      g_set_error (error, domain, parse_code, "%s: the file is empty", doc->name);
      ffm_json_doc_free (doc);
      return NULL;
    }
  if (doc->duplicate != NULL)
    {
      g_set_error (error, domain, parse_code,
                   "%s:%d: member \"%s\" appears twice in the same object",
                   doc->name, doc->duplicate_line, doc->duplicate);
      ffm_json_doc_free (doc);
      return NULL;
    }
  g_clear_pointer (&doc->n_members, g_hash_table_unref);
  return doc;
}

/* What json-glib would take silently or could not survive, found on the
 * bytes before it parses them: nesting deeper than FFM_MAX_JSON_DEPTH (its
 * parser recurses per level), integers beyond 2^53 (rounded, or wrapped to
 * negative numbers beyond 2^63), numbers beyond the largest double (read
 * as infinity) and \u0000 in strings (cut there). Syntax
 * errors are left to the parser. */
static gboolean
prescan (const char *text, gsize length, const char *name, GQuark domain,
         int code, GError **error)
{
  const char *end = text + length;
  int depth = 0, line = 1;

  for (const char *p = text; p < end; p++)
    {
      switch (*p)
        {
        case '\n':
          line++;
          break;
        case '[':
        case '{':
          if (++depth > FFM_MAX_JSON_DEPTH)
            {
              g_set_error (error, domain, code,
                           "%s:%d: arrays and objects nested more than %d deep "
                           "(the limit of ffm's input files)",
                           name, line, FFM_MAX_JSON_DEPTH);
              return FALSE;
            }
          break;
        case ']':
        case '}':
          depth--;
          break;
        case '"':
          for (p++; p < end && *p != '"'; p++)
            {
              if (*p == '\n')
                line++;
              if (*p != '\\' || p + 1 >= end)
                continue;
              p++;
              /* json-glib takes "\\x41" and other escapes JSON has not. */
              if (strchr ("\"\\/bfnrtu", *p) == NULL || *p == '\0')
                {
                  g_set_error (error, domain, code,
                               "%s:%d: a string has the escape \\%c, which JSON "
                               "does not have (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                               name, line, g_ascii_isprint (*p) ? *p : '?');
                  return FALSE;
                }
              if (*p == 'u' && end - p >= 5 && strncmp (p + 1, "0000", 4) == 0)
                {
                  g_set_error (error, domain, code,
                               "%s:%d: a string holds \\u0000 (a NUL character), "
                               "which ffm cannot keep in a name or a value",
                               name, line);
                  return FALSE;
                }
            }
          break;
        case '-':
        case '0': case '1': case '2': case '3': case '4':
        case '5': case '6': case '7': case '8': case '9':
          {
            const char *start = p;
            gboolean integer = TRUE;
            if (*p == '-')
              p++;
            while (p < end && (g_ascii_isalnum (*p) || *p == '.' || *p == '+'
                               || *p == '-'))
              {
                if (*p == '.' || *p == 'e' || *p == 'E')
                  integer = FALSE;
                p++;
              }
            if (!integer)
              {
                g_autofree char *digits = g_strndup (start, (gsize) (p - start));
                if (isinf (g_ascii_strtod (digits, NULL)))
                  {
                    g_set_error (error, domain, code,
                                 "%s:%d: the number %s is beyond the largest "
                                 "number (about 1.8e308; write \"inf\" for "
                                 "infinity)", name, line, digits);
                    return FALSE;
                  }
              }
            /* A whole number of 16 digits or more may be above 2^53:
             * compare the digits, a double would round 2^53 + 1 down. */
            else if (p - start >= 16)
              {
                g_autofree char *digits = g_strndup (start, (gsize) (p - start));
                const char *magnitude = digits[0] == '-' ? digits + 1 : digits;
                while (magnitude[0] == '0' && magnitude[1] != '\0')
                  magnitude++;
                if (strlen (magnitude) > 16
                    || (strlen (magnitude) == 16
                        && strcmp (magnitude, "9007199254740992") > 0))
                  {
                    g_set_error (error, domain, code,
                                 "%s:%d: the integer %s is beyond 2^53 = %.0f, "
                                 "the largest integer ffm reads exactly",
                                 name, line, digits, FFM_MAX_EXACT_INTEGER);
                    return FALSE;
                  }
              }
            p--;
            break;
          }
        default:
          break;
        }
    }
  return TRUE;
}

static FfmJsonDoc *
doc_parse (const char *text, gsize length, const char *name, GQuark domain,
           int parse_code, GError **error)
{
  GError *local = NULL;
  FfmJsonDoc *doc;
  gboolean ok;

  if (!prescan (text, length, name, domain, parse_code, error))
    return NULL;
  doc = doc_new (name);
  ok = json_parser_load_from_data (doc->parser, text, (gssize) length, &local);
  return doc_finish (doc, ok, local, domain, parse_code, error);
}

FfmJsonDoc *
ffm_json_doc_load_file (const char *path, GQuark domain, int parse_code,
                        GError **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;

  text = ffm_read_file_bounded (path, FFM_MAX_INPUT_FILE_BYTES, &length, NULL,
                                domain, parse_code, error);
  if (text == NULL)
    return NULL;
  return doc_parse (text, length, path, domain, parse_code, error);
}

FfmJsonDoc *
ffm_json_doc_load_data (const char *text, const char *display_name,
                        GQuark domain, int parse_code, GError **error)
{
  return doc_parse (text, strlen (text), display_name ? display_name : "<data>",
                    domain, parse_code, error);
}

void
ffm_json_doc_free (FfmJsonDoc *doc)
{
  if (doc == NULL)
    return;
  g_hash_table_unref (doc->lines);
  g_clear_pointer (&doc->n_members, g_hash_table_unref);
  g_object_unref (doc->parser);
  g_free (doc->duplicate);
  g_free (doc->name);
  g_free (doc);
}

JsonNode *
ffm_json_doc_get_root (const FfmJsonDoc *doc)
{
  return json_parser_get_root (doc->parser);
}

const char *
ffm_json_doc_get_name (const FfmJsonDoc *doc)
{
  return doc->name;
}

int
ffm_json_doc_get_line (const FfmJsonDoc *doc, JsonNode *node)
{
  if (doc == NULL || node == NULL)
    return 0;
  return GPOINTER_TO_INT (g_hash_table_lookup (doc->lines, node));
}

char *
ffm_json_where (const FfmJsonDoc *doc, JsonNode *node, const char *json_path)
{
  int line = ffm_json_doc_get_line (doc, node);
  const char *name = doc ? doc->name : "<data>";

  if (line > 0 && json_path != NULL)
    return g_strdup_printf ("%s:%d: %s", name, line, json_path);
  if (line > 0)
    return g_strdup_printf ("%s:%d", name, line);
  if (json_path != NULL)
    return g_strdup_printf ("%s: %s", name, json_path);
  return g_strdup (name);
}

void
ffm_json_set_error (GError **error, GQuark domain, int code,
                    const FfmJsonDoc *doc, JsonNode *node,
                    const char *json_path, const char *format, ...)
{
  g_autofree char *where = ffm_json_where (doc, node, json_path);
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, domain, code, "%s: %s", where, message);
}

static const char *
node_type_name (JsonNode *node)
{
  if (node == NULL)
    return "nothing";
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      return "an object";
    case JSON_NODE_ARRAY:
      return "an array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
      {
        GType t = json_node_get_value_type (node);
        if (t == G_TYPE_STRING)
          return "a string";
        if (t == G_TYPE_BOOLEAN)
          return "a boolean";
        return "a number";
      }
    }
  return "an unknown value";
}

gboolean
ffm_json_check_members (const FfmJsonDoc *doc, JsonNode *object_node,
                        const char *json_path, const char *const *allowed,
                        GQuark domain, int code, GError **error)
{
  JsonObjectIter iter;
  const char *member;
  JsonNode *value;

  json_object_iter_init_ordered (&iter, json_node_get_object (object_node));
  while (json_object_iter_next_ordered (&iter, &member, &value))
    {
      if (!g_strv_contains (allowed, member))
        {
          g_autofree char *options = g_strjoinv (", ", (char **) allowed);
          ffm_json_set_error (error, domain, code, doc, value, json_path,
                              "unknown member \"%s\" (expected one of: %s)",
                              member, options);
          return FALSE;
        }
    }
  return TRUE;
}

JsonNode *
ffm_json_get_member (JsonNode *object_node, const char *name)
{
  if (object_node == NULL || !JSON_NODE_HOLDS_OBJECT (object_node))
    return NULL;
  return json_object_get_member (json_node_get_object (object_node), name);
}

gboolean
ffm_json_require_object (const FfmJsonDoc *doc, JsonNode *node,
                         const char *json_path, GQuark domain, int code,
                         GError **error)
{
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    return TRUE;
  ffm_json_set_error (error, domain, code, doc, node, json_path,
                      node ? "expected an object, got %s" : "missing (expected an object%s)",
                      node ? node_type_name (node) : "");
  return FALSE;
}

gboolean
ffm_json_require_array (const FfmJsonDoc *doc, JsonNode *node,
                        const char *json_path, GQuark domain, int code,
                        GError **error)
{
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    return TRUE;
  ffm_json_set_error (error, domain, code, doc, node, json_path,
                      node ? "expected an array, got %s" : "missing (expected an array%s)",
                      node ? node_type_name (node) : "");
  return FALSE;
}

const char *
ffm_json_require_string (const FfmJsonDoc *doc, JsonNode *node,
                         const char *json_path, GQuark domain, int code,
                         GError **error)
{
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  ffm_json_set_error (error, domain, code, doc, node, json_path,
                      node ? "expected a string, got %s" : "missing (expected a string%s)",
                      node ? node_type_name (node) : "");
  return NULL;
}

static gboolean
node_is_number (JsonNode *node)
{
  GType t;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  t = json_node_get_value_type (node);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

gboolean
ffm_json_require_number (const FfmJsonDoc *doc, JsonNode *node,
                         const char *json_path, GQuark domain, int code,
                         double *out, GError **error)
{
  double value;

  /* A JSON number, or "inf"/"-inf" as ffm writes infinities
   * (ffm-json-writer.h); "nan" is no value an input can mean. */
  if (ffm_json_node_get_double (node, &value))
    {
      if (isnan (value))
        {
          ffm_json_set_error (error, domain, code, doc, node, json_path,
                              "expected a number, got \"nan\" (not a number)");
          return FALSE;
        }
      *out = value;
      return TRUE;
    }
  ffm_json_set_error (error, domain, code, doc, node, json_path,
                      node ? "expected a number, got %s" : "missing (expected a number%s)",
                      node ? node_type_name (node) : "");
  return FALSE;
}

gboolean
ffm_json_require_bool (const FfmJsonDoc *doc, JsonNode *node,
                       const char *json_path, GQuark domain, int code,
                       gboolean *out, GError **error)
{
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    {
      *out = json_node_get_boolean (node);
      return TRUE;
    }
  ffm_json_set_error (error, domain, code, doc, node, json_path,
                      node ? "expected true or false, got %s" : "missing (expected true or false%s)",
                      node ? node_type_name (node) : "");
  return FALSE;
}

char *
ffm_json_require_number_or_expr (const FfmJsonDoc *doc, JsonNode *node,
                                 const char *json_path, GQuark domain,
                                 int code, GError **error)
{
  if (node_is_number (node))
    {
      if (json_node_get_value_type (node) == G_TYPE_INT64)
        return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];
      return g_strdup (g_ascii_dtostr (buffer, sizeof buffer, json_node_get_double (node)));
    }
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  ffm_json_set_error (error, domain, code, doc, node, json_path,
                      node ? "expected a number or an expression string, got %s"
                           : "missing (expected a number or an expression string%s)",
                      node ? node_type_name (node) : "");
  return NULL;
}
