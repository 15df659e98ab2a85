/* ffm-json-util.h (private): JSON documents that remember where each value
 * was, so loaders can say "file:line: $.path: cause".
 *
 * json-glib 1.6 keeps no positions in its nodes. While parsing we listen to
 * the parser's object-member and array-element signals and record the
 * current line for each value; the recorded line is where the value ends,
 * which is exact for one-line scalars and strings. Unknown members are
 * errors in our formats; ffm_json_check_members() reports the first one in
 * file order. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _FfmJsonDoc FfmJsonDoc;

/* Parses @path. JSON syntax errors become (@domain, @parse_code) with the
 * message "PATH:LINE:COL: cause". */
FfmJsonDoc *ffm_json_doc_load_file (const char *path,
                                    GQuark domain,
                                    int parse_code,
                                    GError **error);
/* Parses @text; @display_name stands for the file name in messages. */
FfmJsonDoc *ffm_json_doc_load_data (const char *text,
                                    const char *display_name,
                                    GQuark domain,
                                    int parse_code,
                                    GError **error);
void ffm_json_doc_free (FfmJsonDoc *doc);

JsonNode *ffm_json_doc_get_root (const FfmJsonDoc *doc);
const char *ffm_json_doc_get_name (const FfmJsonDoc *doc);
/* Line where @node's value ends, 0 if unknown. */
int ffm_json_doc_get_line (const FfmJsonDoc *doc, JsonNode *node);

/* Sets @error to "NAME:LINE: PATH: message" (LINE omitted when unknown,
 * PATH omitted when NULL). */
void ffm_json_set_error (GError **error,
                         GQuark domain,
                         int code,
                         const FfmJsonDoc *doc,
                         JsonNode *node,
                         const char *json_path,
                         const char *format,
                         ...) G_GNUC_PRINTF (7, 8);

/* Prefix for messages about @node: "NAME:LINE: PATH" (transfer full). */
char *ffm_json_where (const FfmJsonDoc *doc, JsonNode *node, const char *json_path);

/* Fails, naming the first member of @object (in file order) that is not in
 * @allowed (NULL-terminated). */
gboolean ffm_json_check_members (const FfmJsonDoc *doc,
                                 JsonNode *object_node,
                                 const char *json_path,
                                 const char *const *allowed,
                                 GQuark domain,
                                 int code,
                                 GError **error);

/* Typed accessors: each fails with a message naming the path and what was
 * expected when the node has another type. Required getters fail on a
 * missing member; optional ones return TRUE and leave *out untouched. */
JsonNode *ffm_json_get_member (JsonNode *object_node, const char *name);
gboolean ffm_json_require_object (const FfmJsonDoc *doc, JsonNode *node,
                                  const char *json_path, GQuark domain,
                                  int code, GError **error);
gboolean ffm_json_require_array (const FfmJsonDoc *doc, JsonNode *node,
                                 const char *json_path, GQuark domain,
                                 int code, GError **error);
/* A string value (transfer none) or NULL with @error set. */
const char *ffm_json_require_string (const FfmJsonDoc *doc, JsonNode *node,
                                     const char *json_path, GQuark domain,
                                     int code, GError **error);
gboolean ffm_json_require_number (const FfmJsonDoc *doc, JsonNode *node,
                                  const char *json_path, GQuark domain,
                                  int code, double *out, GError **error);
gboolean ffm_json_require_bool (const FfmJsonDoc *doc, JsonNode *node,
                                const char *json_path, GQuark domain,
                                int code, gboolean *out, GError **error);
/* Number or string expression as text ("64", "4*d_model"), transfer full. */
char *ffm_json_require_number_or_expr (const FfmJsonDoc *doc, JsonNode *node,
                                       const char *json_path, GQuark domain,
                                       int code, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmJsonDoc, ffm_json_doc_free)

G_END_DECLS
