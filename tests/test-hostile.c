/* test-hostile.c: the hostile-input corpus (tests/hostile/), run against
 * the built `ffm`.
 *
 * tests/hostile/cases.txt lists the cases, one block each:
 *
 *   [workload/deep-nesting]              the case's name (a test path)
 *   gen: @TMP@/deep.json 100000*[ 1 100000*]
 *   run: show-workload @TMP@/deep.json
 *   exit: 1
 *   stderr: deep\.json:1: arrays and objects nested more than 256 deep
 *
 * Keys: `run` (the arguments of ffm, shell-quoted), `exit` (the exit code
 * expected), `stderr` and `stdout` (regular expressions the output must
 * match, repeatable), `env` (KEY=VALUE set, KEY= unset; repeatable),
 * `stdin`, `stdout-to` (paths for standard input and output), `limit-as`,
 * `limit-data`, `limit-fsize`, `limit-nofile` (resource limits, with K/M/G
 * suffixes), `sanitizers: skip` (a case whose point is a memory limit a
 * sanitizer build cannot run under, or a timing it is too slow for: a
 * search already under way at a short --timeout; skipped there rather than
 * run without the limit or checked against another message),
 * `deadline` (seconds; 60 by default), `gen` (writes a file before the run:
 * a path, then parts concatenated, where N*TEXT repeats TEXT N times) and
 * `mkdir`, `symlink` (TARGET LINK), `mode` (OCTAL PATH). In every value
 * @CASES@ is tests/hostile, @SRC@ the source tree and @TMP@ a fresh folder
 * for the case.
 *
 * Every case, whatever its expectations, must also end by itself (no
 * signal, no deadline) and print no GLib critical or error and no
 * sanitizer report: a clear message and an exit code, never a crash. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ffm-run.h"

typedef struct {
  char *name;
  char **run;
  int exit_code;
  GPtrArray *stderr_patterns;
  GPtrArray *stdout_patterns;
  GPtrArray *env;
  GPtrArray *gens;              /* argv of each gen */
  GPtrArray *mkdirs;
  GPtrArray *symlinks;          /* "TARGET LINK" argv */
  GPtrArray *modes;             /* "OCTAL PATH" argv */
  char *stdin_path;
  char *stdout_path;
  guint64 limit_as, limit_data, limit_fsize, limit_nofile;
  gboolean skip_sanitizers;
  double deadline;
  int line;
} Case;

static const char *cases_dir;
static const char *source_dir;

static void
case_free (gpointer data)
{
  Case *c = data;

  g_free (c->name);
  g_strfreev (c->run);
  g_ptr_array_unref (c->stderr_patterns);
  g_ptr_array_unref (c->stdout_patterns);
  g_ptr_array_unref (c->env);
  g_ptr_array_unref (c->gens);
  g_ptr_array_unref (c->mkdirs);
  g_ptr_array_unref (c->symlinks);
  g_ptr_array_unref (c->modes);
  g_free (c->stdin_path);
  g_free (c->stdout_path);
  g_free (c);
}

static Case *
case_new (const char *name, int line)
{
  Case *c = g_new0 (Case, 1);

  c->name = g_strdup (name);
  c->exit_code = -2;
  c->line = line;
  c->stderr_patterns = g_ptr_array_new_with_free_func (g_free);
  c->stdout_patterns = g_ptr_array_new_with_free_func (g_free);
  c->env = g_ptr_array_new_with_free_func (g_free);
  c->gens = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  c->mkdirs = g_ptr_array_new_with_free_func (g_free);
  c->symlinks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  c->modes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  return c;
}

static guint64
parse_size (const char *text, const char *where)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (text, &end, 10);

  switch (*end)
    {
    case 'K': v <<= 10; end++; break;
    case 'M': v <<= 20; end++; break;
    case 'G': v <<= 30; end++; break;
    default: break;
    }
  if (*end != '\0' || v == 0)
    g_error ("%s: bad size '%s'", where, text);
  return v;
}

static char **
split_words (const char *value, const char *where)
{
  g_autoptr (GError) error = NULL;
  char **argv = NULL;

  if (value[0] == '\0')
    return g_new0 (char *, 1);
  if (!g_shell_parse_argv (value, NULL, &argv, &error))
    g_error ("%s: %s", where, error->message);
  return argv;
}

/* The cases of the manifest, in order (of Case*). */
static GPtrArray *
load_manifest (const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL;
  GPtrArray *cases = g_ptr_array_new_with_free_func (case_free);
  Case *c = NULL;

  if (!g_file_get_contents (path, &text, NULL, &error))
    g_error ("%s", error->message);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *where = g_strdup_printf ("%s:%u", path, i + 1);
      char *line = g_strstrip (lines[i]);
      char *colon;
      const char *key, *value;

      if (line[0] == '\0' || line[0] == '#')
        continue;
      if (line[0] == '[')
        {
          char *close = strchr (line, ']');
          if (close == NULL)
            g_error ("%s: unclosed [", where);
          *close = '\0';
          c = case_new (line + 1, (int) i + 1);
          g_ptr_array_add (cases, c);
          continue;
        }
      colon = strchr (line, ':');
      if (c == NULL || colon == NULL)
        g_error ("%s: expected [name] or key: value", where);
      *colon = '\0';
      key = g_strstrip (line);
      value = g_strstrip (colon + 1);
      if (strcmp (key, "run") == 0)
        c->run = split_words (value, where);
      else if (strcmp (key, "exit") == 0)
        c->exit_code = atoi (value);
      else if (strcmp (key, "stderr") == 0)
        g_ptr_array_add (c->stderr_patterns, g_strdup (value));
      else if (strcmp (key, "stdout") == 0)
        g_ptr_array_add (c->stdout_patterns, g_strdup (value));
      else if (strcmp (key, "env") == 0)
        g_ptr_array_add (c->env, g_strdup (value));
      else if (strcmp (key, "gen") == 0)
        g_ptr_array_add (c->gens, split_words (value, where));
      else if (strcmp (key, "mkdir") == 0)
        g_ptr_array_add (c->mkdirs, g_strdup (value));
      else if (strcmp (key, "symlink") == 0)
        g_ptr_array_add (c->symlinks, split_words (value, where));
      else if (strcmp (key, "mode") == 0)
        g_ptr_array_add (c->modes, split_words (value, where));
      else if (strcmp (key, "stdin") == 0)
        c->stdin_path = g_strdup (value);
      else if (strcmp (key, "stdout-to") == 0)
        c->stdout_path = g_strdup (value);
      else if (strcmp (key, "limit-as") == 0)
        c->limit_as = parse_size (value, where);
      else if (strcmp (key, "limit-data") == 0)
        c->limit_data = parse_size (value, where);
      else if (strcmp (key, "sanitizers") == 0 && strcmp (value, "skip") == 0)
        c->skip_sanitizers = TRUE;
      else if (strcmp (key, "limit-fsize") == 0)
        c->limit_fsize = parse_size (value, where);
      else if (strcmp (key, "limit-nofile") == 0)
        c->limit_nofile = parse_size (value, where);
      else if (strcmp (key, "deadline") == 0)
        c->deadline = g_ascii_strtod (value, NULL);
      else
        g_error ("%s: unknown key '%s'", where, key);
    }
  for (guint i = 0; i < cases->len; i++)
    {
      Case *k = cases->pdata[i];
      if (k->run == NULL || k->exit_code == -2 || k->stderr_patterns->len + k->stdout_patterns->len == 0)
        g_error ("%s:%d: case %s needs run, exit and a stderr or stdout pattern",
                 path, k->line, k->name);
    }
  return cases;
}

static char *
expand (const char *text, const char *tmp)
{
  g_autoptr (GString) s = g_string_new (text);

  g_string_replace (s, "@CASES@", cases_dir, 0);
  g_string_replace (s, "@SRC@", source_dir, 0);
  g_string_replace (s, "@TMP@", tmp, 0);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* gen: PATH PART...: N*TEXT repeats TEXT N times. */
static void
generate (char **argv, const char *tmp)
{
  g_autofree char *path = expand (argv[0], tmp);
  g_autoptr (GString) content = g_string_new (NULL);
  g_autoptr (GError) error = NULL;

  for (guint i = 1; argv[i] != NULL; i++)
    {
      const char *star = strchr (argv[i], '*');
      const char *p = argv[i];
      while (p < star && g_ascii_isdigit (*p))
        p++;
      if (star != NULL && p == star && p > argv[i])
        {
          guint64 n = g_ascii_strtoull (argv[i], NULL, 10);
          g_autofree char *unit = expand (star + 1, tmp);
          for (guint64 k = 0; k < n; k++)
            g_string_append (content, unit);
        }
      else
        {
          g_autofree char *part = expand (argv[i], tmp);
          g_string_append (content, part);
        }
    }
  {
    g_autofree char *dir = g_path_get_dirname (path);
    g_mkdir_with_parents (dir, 0755);
  }
  g_file_set_contents (path, content->str, (gssize) content->len, &error);
  g_assert_no_error (error);
}

static void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir == NULL)
    {
      g_unlink (path);
      return;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        {
          g_chmod (child, 0755);
          remove_tree (child);
        }
      else
        g_unlink (child);
    }
  g_dir_close (dir);
  g_rmdir (path);
}

/* A failed case: reported, and the others still run (--keep-going). */
#define CASE_FAIL(...) \
  do { g_test_message (__VA_ARGS__); g_test_fail (); return; } while (0)

static void
assert_matches (const char *what, const char *pattern, const char *text, const Case *c)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GRegex) regex = g_regex_new (pattern, G_REGEX_MULTILINE, 0, &error);

  if (regex == NULL)
    g_error ("case %s (line %d): bad pattern '%s': %s", c->name, c->line, pattern,
             error->message);
  if (!g_regex_match (regex, text, 0, NULL))
    CASE_FAIL ("case %s (line %d): %s does not match /%s/:\n%s", c->name, c->line,
               what, pattern, text);
}

static void
run_case (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *tmp = g_dir_make_tmp ("ffm-hostile-XXXXXX", NULL);
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) env = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *stdin_path = NULL, *stdout_path = NULL;
  g_auto (FfmTestRun) run = { 0 };
  FfmTestRunOptions options = { 0 };
  static const char *const forbidden[] = {
    "-CRITICAL", "-ERROR", "AddressSanitizer", "LeakSanitizer", "runtime error:",
    "Segmentation fault", "(core dumped)",
  };

  for (guint i = 0; i < c->mkdirs->len; i++)
    {
      g_autofree char *path = expand (c->mkdirs->pdata[i], tmp);
      g_assert_cmpint (g_mkdir_with_parents (path, 0755), ==, 0);
    }
  for (guint i = 0; i < c->gens->len; i++)
    generate (c->gens->pdata[i], tmp);
  for (guint i = 0; i < c->symlinks->len; i++)
    {
      char **argv = c->symlinks->pdata[i];
      g_autofree char *target = expand (argv[0], tmp);
      g_autofree char *link = expand (argv[1], tmp);
      g_assert_cmpint (symlink (target, link), ==, 0);
    }
  for (guint i = 0; i < c->modes->len; i++)
    {
      char **argv = c->modes->pdata[i];
      g_autofree char *path = expand (argv[1], tmp);
      g_assert_cmpint (g_chmod (path, (int) g_ascii_strtoull (argv[0], NULL, 8)), ==, 0);
    }
  for (guint i = 0; c->run[i] != NULL; i++)
    g_ptr_array_add (args, expand (c->run[i], tmp));
  g_ptr_array_add (args, NULL);
  for (guint i = 0; i < c->env->len; i++)
    g_ptr_array_add (env, expand (c->env->pdata[i], tmp));
  g_ptr_array_add (env, NULL);
  if (c->stdin_path != NULL)
    options.stdin_path = stdin_path = expand (c->stdin_path, tmp);
  if (c->stdout_path != NULL)
    options.stdout_path = stdout_path = expand (c->stdout_path, tmp);
  options.env = (const char *const *) env->pdata;
  options.cwd = tmp;
  /* AddressSanitizer and ThreadSanitizer reserve terabytes of shadow
   * memory at start: under an address-space limit they cannot start at
   * all. There the case runs without the limit and must still end as
   * expected (the bound it checks is ffm's own, not the limit's). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  if (c->skip_sanitizers)
    {
      remove_tree (tmp);
      g_test_skip ("sanitizer build: the case needs its memory limit or its timing "
                   "(a search well under way within a fraction of a second)");
      return;
    }
  if (c->limit_as != 0 || c->limit_data != 0)
    g_test_message ("sanitizer build: limit-as and limit-data not applied");
#else
  options.address_space = c->limit_as;
  options.data_size = c->limit_data;
#endif
  options.file_size = c->limit_fsize;
  options.open_files = c->limit_nofile;
  options.deadline = c->deadline > 0 ? c->deadline : 60;

  ffm_test_run_full (&run, (const char *const *) args->pdata, &options);
  remove_tree (tmp);

  if (run.timed_out)
    CASE_FAIL ("case %s (line %d): still running after %g s", c->name, c->line,
             options.deadline);
  if (run.status < 0)
    CASE_FAIL ("case %s (line %d): killed by signal %d (%s)\n%s", c->name, c->line,
             run.signal, g_strsignal (run.signal), run.err);
  for (guint i = 0; i < G_N_ELEMENTS (forbidden); i++)
    if (strstr (run.err, forbidden[i]) != NULL)
      CASE_FAIL ("case %s (line %d): stderr has '%s':\n%s", c->name, c->line,
                 forbidden[i], run.err);
  if (run.status != c->exit_code)
    CASE_FAIL ("case %s (line %d): exit %d, expected %d\nstderr:\n%s", c->name,
             c->line, run.status, c->exit_code, run.err);
  for (guint i = 0; i < c->stderr_patterns->len; i++)
    assert_matches ("stderr", c->stderr_patterns->pdata[i], run.err, c);
  for (guint i = 0; i < c->stdout_patterns->len; i++)
    assert_matches ("stdout", c->stdout_patterns->pdata[i], run.out, c);
}

int
main (int argc, char **argv)
{
  g_autoptr (GPtrArray) cases = NULL;
  g_autofree char *manifest = NULL;
  g_autofree char *dir = NULL;

  g_test_init (&argc, &argv, NULL);
  dir = g_test_build_filename (G_TEST_DIST, "hostile", NULL);
  cases_dir = dir;
  source_dir = g_getenv ("FFM_SOURCE_ROOT");
  g_assert_nonnull (source_dir);
  manifest = g_build_filename (cases_dir, "cases.txt", NULL);
  cases = load_manifest (manifest);
  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = cases->pdata[i];
      g_autofree char *path = g_strdup_printf ("/hostile/%s", c->name);
      g_test_add_data_func (path, c, run_case);
    }
  g_test_message ("%u hostile cases", cases->len);
  return g_test_run ();
}
