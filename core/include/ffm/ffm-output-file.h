/* ffm-output-file.h: writing an output file (JSON, tables) the way a user
 * expects, with every failure reported.
 *
 * A regular file is replaced atomically: the text goes to a temporary file
 * in the same folder, which is flushed to disk and renamed over the old
 * file, keeping its permissions; readers see the old or the new contents,
 * never a half-written file. A symbolic link is followed: its target is
 * replaced in the same way (the link stays), or created if it does not
 * exist. Anything else (/dev/null, a named pipe, a terminal) is opened and
 * written in place: replacing a device node with a regular file would be
 * wrong, and is what a rename does. A path under /dev or /proc, or a link
 * through one, is written in place too and appended to, after flushing
 * stdout: /dev/stdout names this process's standard output, which the
 * shell may have sent to a regular file holding what was printed so far. Every failure, a full
 * disk included, is an error naming the file and the cause. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>

G_BEGIN_DECLS

/* Writes @length bytes of @contents (-1: up to the NUL) to @path. Errors
 * are in G_FILE_ERROR, with messages such as "cannot write 'out.json': No
 * space left on device". */
FFM_API gboolean ffm_output_file_write (const char *path,
                                        const char *contents,
                                        gssize length,
                                        GError **error);

G_END_DECLS
