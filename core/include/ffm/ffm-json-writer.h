/* ffm-json-writer.h: every JSON document ffm writes, and the files it
 * writes them to.
 *
 * One writer so that every output is valid JSON by construction, whatever
 * the values: strings are escaped (and invalid UTF-8 replaced by U+FFFD),
 * doubles are printed in the shortest decimal text that reads back as the
 * same double ("8e-12", "1048576", "0.1"), and the doubles JSON cannot
 * spell are written as the strings "inf", "-inf" and "nan"
 * (docs/file-formats.md, "Numbers in files ffm writes"). Readers of ffm's
 * files take those strings back (ffm_json_node_get_double()).
 *
 * A writer is a stack of open containers. Inside an object, every value is
 * preceded by ffm_json_writer_key() (or written with a _member_ call);
 * inside an array, values follow one another. Containers are pretty-printed
 * with one member or element per line, indented by two spaces per level;
 * an _inline container is written on one line, for short records (a
 * mapping node); a container opened inside it without _inline spans lines
 * again, indented by the containers around it that are not inline. Misuse (a value without a key in an
 * object, a key in an array, an unbalanced end) is a programming error,
 * reported with g_critical() and ignored. Files are written with
 * ffm_output_file_write() (ffm-output-file.h). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <ffm/ffm-version.h>

G_BEGIN_DECLS

typedef struct _FfmJsonWriter FfmJsonWriter;

FFM_API FfmJsonWriter *ffm_json_writer_new (void);
FFM_API void ffm_json_writer_free (FfmJsonWriter *writer);

/* Containers. */
FFM_API void ffm_json_writer_begin_object (FfmJsonWriter *writer);
FFM_API void ffm_json_writer_begin_array (FfmJsonWriter *writer);
/* On one line. */
FFM_API void ffm_json_writer_begin_object_inline (FfmJsonWriter *writer);
FFM_API void ffm_json_writer_begin_array_inline (FfmJsonWriter *writer);
FFM_API void ffm_json_writer_end_object (FfmJsonWriter *writer);
FFM_API void ffm_json_writer_end_array (FfmJsonWriter *writer);

/* The name of the next member of the open object. */
FFM_API void ffm_json_writer_key (FfmJsonWriter *writer, const char *name);

/* Values. A NULL string is written as null. */
FFM_API void ffm_json_writer_string (FfmJsonWriter *writer, const char *value);
FFM_API void ffm_json_writer_double (FfmJsonWriter *writer, double value);
FFM_API void ffm_json_writer_int (FfmJsonWriter *writer, gint64 value);
FFM_API void ffm_json_writer_uint (FfmJsonWriter *writer, guint64 value);
FFM_API void ffm_json_writer_boolean (FfmJsonWriter *writer, gboolean value);
FFM_API void ffm_json_writer_null (FfmJsonWriter *writer);

/* Key and value in one call. */
FFM_API void ffm_json_writer_member_string (FfmJsonWriter *writer, const char *name,
                                            const char *value);
FFM_API void ffm_json_writer_member_double (FfmJsonWriter *writer, const char *name,
                                            double value);
FFM_API void ffm_json_writer_member_int (FfmJsonWriter *writer, const char *name,
                                         gint64 value);
FFM_API void ffm_json_writer_member_uint (FfmJsonWriter *writer, const char *name,
                                          guint64 value);
FFM_API void ffm_json_writer_member_boolean (FfmJsonWriter *writer, const char *name,
                                             gboolean value);
FFM_API void ffm_json_writer_member_null (FfmJsonWriter *writer, const char *name);

/* The document written so far, with a final newline (transfer full). The
 * writer is left empty, ready for another document; a container still open
 * is a programming error (g_critical(), and the text is closed so that it
 * stays valid JSON). */
FFM_API char *ffm_json_writer_finish (FfmJsonWriter *writer);

/* The shortest decimal text that reads back (g_ascii_strtod()) as exactly
 * @value, in the C locale; "inf", "-inf" or "nan" for the values JSON has
 * no number for. @buffer holds at least G_ASCII_DTOSTR_BUF_SIZE bytes;
 * returns @buffer. */
FFM_API char *ffm_format_double (double value, char *buffer);

/* Reads a double as ffm writes it: a JSON number, or one of the strings
 * "inf", "-inf", "nan". FALSE (with *@out untouched) for anything else. */
FFM_API gboolean ffm_json_node_get_double (JsonNode *node, double *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FfmJsonWriter, ffm_json_writer_free)

G_END_DECLS
