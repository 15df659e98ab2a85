/* ffm-output-file.c: output files replaced atomically, links followed,
 * devices written in place (ffm-output-file.h). */
#include <ffm/ffm-output-file.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gboolean
fail (GError **error, int saved_errno, const char *verb, const char *path)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               "cannot %s '%s': %s", verb, path, g_strerror (saved_errno));
  return FALSE;
}

/* Writes everything, retrying short writes and EINTR. */
static gboolean
write_all (int fd, const char *data, gsize length, int *saved_errno)
{
  while (length > 0)
    {
      gssize n = write (fd, data, length);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          *saved_errno = errno;
          return FALSE;
        }
      data += n;
      length -= (gsize) n;
    }
  return TRUE;
}

/* A device, a pipe, a terminal, or a path that does not name a regular
 * file once links are followed: open and write, no rename. Under /dev and
 * /proc the path may be one of this process's own descriptors
 * (/dev/stdout): what was printed there comes first, and is not truncated
 * away when stdout was redirected to a file. */
static gboolean
write_in_place (const char *path, gboolean special, const char *data,
                gsize length, GError **error)
{
  int saved_errno = 0;
  int fd;

  if (special)
    fflush (stdout);
  fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC | (special ? O_APPEND : O_TRUNC), 0666);

  if (fd < 0)
    return fail (error, errno, "open", path);
  if (!write_all (fd, data, length, &saved_errno))
    {
      close (fd);
      return fail (error, saved_errno, "write", path);
    }
  if (close (fd) != 0 && errno != EINTR)
    return fail (error, errno, "write", path);
  return TRUE;
}

/* @path is a regular file (@old_mode set) or does not exist (@old_mode 0):
 * write a temporary file next to it and rename it over @path. */
static gboolean
replace_atomically (const char *path, const char *display, mode_t old_mode,
                    const char *data, gsize length, GError **error)
{
  g_autofree char *temp = g_strdup_printf ("%s.XXXXXX", path);
  int saved_errno = 0;
  int fd = g_mkstemp_full (temp, O_WRONLY | O_CLOEXEC, 0666);

  if (fd < 0)
    return fail (error, errno, "create a temporary file to write", display);
  if ((old_mode != 0 && fchmod (fd, old_mode & 07777) != 0)
      || !write_all (fd, data, length, &saved_errno)
      /* Flushed before the rename, so that a crash leaves the old file or
       * the new one, not an empty one. */
      || (old_mode != 0 && fsync (fd) != 0))
    {
      if (saved_errno == 0)
        saved_errno = errno;
      close (fd);
      g_unlink (temp);
      return fail (error, saved_errno, "write", display);
    }
  if (close (fd) != 0 && errno != EINTR)
    {
      saved_errno = errno;
      g_unlink (temp);
      return fail (error, saved_errno, "write", display);
    }
  if (g_rename (temp, path) != 0)
    {
      saved_errno = errno;
      g_unlink (temp);
      return fail (error, saved_errno, "replace", display);
    }
  return TRUE;
}

static gboolean
is_special_path (const char *path)
{
  /* /dev/stdout is a link to /proc/self/fd/1, itself a link to whatever
   * stdout is: when that is a regular file, renaming over it would detach
   * the output from the shell's redirection. */
  return g_str_has_prefix (path, "/dev/") || g_str_has_prefix (path, "/proc/");
}

/* The end of the chain of symbolic links starting at @path, or NULL when
 * the chain passes through /dev or /proc, is too long or cannot be read. */
static char *
follow_links (const char *path)
{
  g_autofree char *current = g_strdup (path);

  for (int hops = 0; hops < 40; hops++)
    {
      struct stat st;
      g_autofree char *target = NULL;
      g_autofree char *dir = NULL;

      if (is_special_path (current))
        return NULL;
      if (lstat (current, &st) != 0 || !S_ISLNK (st.st_mode))
        return g_steal_pointer (&current);
      target = g_file_read_link (current, NULL);
      if (target == NULL)
        return NULL;
      dir = g_path_get_dirname (current);
      g_free (current);
      current = g_path_is_absolute (target)
                  ? g_steal_pointer (&target)
                  : g_build_filename (dir, target, NULL);
    }
  return NULL;
}

gboolean
ffm_output_file_write (const char *path, const char *contents, gssize length,
                       GError **error)
{
  struct stat st;
  gsize n;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (contents != NULL || length == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  n = length < 0 ? strlen (contents) : (gsize) length;
  if (path[0] == '\0')
    return fail (error, ENOENT, "write", path);
  if (is_special_path (path))
    return write_in_place (path, TRUE, contents, n, error);
  if (lstat (path, &st) != 0)
    {
      if (errno != ENOENT)
        return fail (error, errno, "write", path);
      return replace_atomically (path, path, 0, contents, n, error);
    }
  if (S_ISDIR (st.st_mode))
    return fail (error, EISDIR, "write", path);
  if (S_ISREG (st.st_mode))
    return replace_atomically (path, path, st.st_mode, contents, n, error);
  if (S_ISLNK (st.st_mode))
    {
      /* Replace what the link points to, not the link. A dangling link, or
       * one to a device, is written through. */
      g_autofree char *target = follow_links (path);
      if (target != NULL && stat (target, &st) == 0 && S_ISREG (st.st_mode))
        return replace_atomically (target, path, st.st_mode, contents, n, error);
    }
  return write_in_place (path, FALSE, contents, n, error);
}
