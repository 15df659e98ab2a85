/* ffm-bounded-read.c: reading one input file whole, never more than a
 * limit (ffm-bounded-read.h). */
#include "ffm-bounded-read.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "64 MiB" for whole MiB, "N bytes" otherwise. */
static char *
limit_text (gsize max_bytes)
{
  if (max_bytes >= 1024 * 1024 && max_bytes % (1024 * 1024) == 0)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " MiB", max_bytes >> 20);
  return g_strdup_printf ("%" G_GSIZE_FORMAT " bytes", max_bytes);
}

char *
ffm_read_file_bounded (const char *path, gsize max_bytes, gsize *length,
                       gboolean *missing, GQuark domain, int code,
                       GError **error)
{
  g_autoptr (GString) text = NULL;
  g_autofree char *limit = limit_text (max_bytes);
  struct stat st;
  int fd;
  int saved_errno;

  g_return_val_if_fail (path != NULL && length != NULL, NULL);
  if (missing != NULL)
    *missing = FALSE;
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    {
      saved_errno = errno;
      if (missing != NULL)
        *missing = saved_errno == ENOENT;
      g_set_error (error, domain, code, "%s: cannot read: %s", path,
                   g_strerror (saved_errno));
      return NULL;
    }
  /* Non-blocking only for the open: a pipe without a writer reads as empty
   * instead of waiting forever. */
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  if (fstat (fd, &st) != 0)
    memset (&st, 0, sizeof st);
  if (S_ISDIR (st.st_mode))
    {
      close (fd);
      g_set_error (error, domain, code, "%s: cannot read: it is a folder", path);
      return NULL;
    }
  if (S_ISREG (st.st_mode) && (guint64) st.st_size > (guint64) max_bytes)
    {
      close (fd);
      g_set_error (error, domain, code,
                   "%s: the file has %" G_GUINT64_FORMAT " bytes, more than the "
                   "limit of %s for input files", path, (guint64) st.st_size,
                   limit);
      return NULL;
    }
  text = g_string_sized_new (S_ISREG (st.st_mode) ? (gsize) st.st_size + 1 : 4096);
  for (;;)
    {
      char buffer[65536];
      gssize n = read (fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          saved_errno = errno;
          close (fd);
          g_set_error (error, domain, code, "%s: cannot read: %s", path,
                       g_strerror (saved_errno));
          return NULL;
        }
      if (n == 0)
        break;
      /* A regular file that grew while read, a device or a pipe. */
      if (text->len + (gsize) n > max_bytes)
        {
          close (fd);
          g_set_error (error, domain, code,
                       "%s: more than %s (the limit for input files): not "
                       "a file ffm can read", path, limit);
          return NULL;
        }
      g_string_append_len (text, buffer, n);
    }
  close (fd);
  *length = text->len;
  return g_string_free (g_steal_pointer (&text), FALSE);
}
