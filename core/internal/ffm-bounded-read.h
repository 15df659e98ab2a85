/* ffm-bounded-read.h: reading one input file whole, never more than a
 * limit (an internal header, docs/layout.md: libffm's loaders, the
 * command's and the tests'; not installed).
 *
 * Every file ffm reads (JSON, Timeloop YAML, component files, a sweep's
 * CSV to resume, result files) goes through ffm_read_file_bounded(), so a
 * regular file, a device (/dev/zero, /dev/urandom) and a pipe that never
 * ends (`yes | ffm import timeloop /dev/stdin`) all stop at the same
 * documented limit (docs/limits.md) with a message naming the file and
 * the limit, instead of filling the memory. */
#pragma once

#include <ffm/ffm.h>

G_BEGIN_DECLS

/* Reads @path whole into a NUL-terminated buffer, refusing more than
 * @max_bytes (a regular file by its size before reading, anything else
 * after @max_bytes + 1 bytes). A folder is refused; a pipe without a
 * writer reads as empty instead of waiting. Errors are (@domain, @code)
 * with "PATH: cause"; a file that does not exist gives @code too, but
 * *@missing (when not NULL) is set so that callers to whom a missing file
 * is fine can tell. (transfer full) */
FFM_API char *ffm_read_file_bounded (const char *path,
                                     gsize max_bytes,
                                     gsize *length,
                                     gboolean *missing,
                                     GQuark domain,
                                     int code,
                                     GError **error);

G_END_DECLS
