/* test-docs.c: every example of the documentation runs as written.
 *
 * README.md and every Markdown file under docs/ are read for their fenced
 * blocks, which the documents write in these forms:
 *   ```sh        commands, run as written by /bin/sh -e in one go; each
 *                must succeed. Build steps (apt-get, meson, ninja) are
 *                left out: the suite runs in the build they make.
 *   ```sh-slow   the same, for commands that take minutes (a whole
 *                comparison or sweep): run only in slow mode (-m slow).
 *   ```console   a session: "$ COMMAND" lines (a trailing backslash goes
 *                on), each followed by lines of what it prints. Every
 *                printed line must be in the command's output (stdout and
 *                stderr); in a line, "..." stands for any text.
 *   ```json      a complete file (it has its format member: ffm_workload,
 *                ffm_architecture, ffm_mapping, ffm_result) must load;
 *                after an HTML comment <!-- file: NAME --> it is also
 *                written as NAME for the document's commands. Fragments
 *                (a member, a node) are shown as parts of a file and only
 *                need to be JSON when they look like one.
 * Anything else (```text, ```c) is not run. Each document runs in its own
 * scratch folder holding a copy of docs/, links to the source tree's data
 * folders (workloads, arch-models, tests) and to this build (build/), with
 * `ffm` on PATH being the built one and `pkg-config ffm` this build's
 * uninstalled library, so that paths written in the documents resolve as
 * they do in a checkout. A document that drifts from what ffm does fails
 * here. The manual page is rendered too (groff, man or mandoc, whichever
 * is installed). */
#include <ffm/ffm.h>

#include "ffm-run.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

static const char *
source_root (void)
{
  const char *root = g_getenv ("FFM_SOURCE_ROOT");

  g_assert_nonnull (root);
  return root;
}

static char *
build_root (void)
{
  return g_path_get_dirname (g_getenv ("G_TEST_BUILDDIR"));
}

/* ---- The scratch folder ---- */

static void
copy_tree (const char *from, const char *to)
{
  g_autoptr (GDir) dir = g_dir_open (from, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (to, 0755), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *src = g_build_filename (from, name, NULL);
      g_autofree char *dst = g_build_filename (to, name, NULL);
      if (g_file_test (src, G_FILE_TEST_IS_DIR))
        copy_tree (src, dst);
      else
        {
          g_autofree char *contents = NULL;
          gsize length;
          g_assert_true (g_file_get_contents (src, &contents, &length, NULL));
          g_assert_true (g_file_set_contents (dst, contents, (gssize) length, NULL));
        }
    }
}

static void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static void
link_to (const char *target, const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (symlink (target, path), ==, 0);
}

/* A scratch folder for one document (transfer full: remove_tree it). */
static char *
make_scratch (void)
{
  g_autofree char *build = build_root ();
  g_autofree char *docs = g_build_filename (source_root (), "docs", NULL);
  g_autofree char *docs_copy = NULL, *bin = NULL, *pc = NULL, *uninstalled = NULL;
  char *scratch = g_dir_make_tmp ("ffm-docs-XXXXXX", NULL);
  static const char *const data[] = { "workloads", "arch-models", "tests" };

  g_assert_nonnull (scratch);
  docs_copy = g_build_filename (scratch, "docs", NULL);
  copy_tree (docs, docs_copy);
  for (guint i = 0; i < G_N_ELEMENTS (data); i++)
    {
      g_autofree char *target = g_build_filename (source_root (), data[i], NULL);
      link_to (target, scratch, data[i]);
    }
  link_to (build, scratch, "build");
  bin = g_build_filename (scratch, ".bin", NULL);
  pc = g_build_filename (scratch, ".pkgconfig", NULL);
  g_assert_cmpint (g_mkdir (bin, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (pc, 0755), ==, 0);
  link_to (g_getenv ("FFM_EXE"), bin, "ffm");
  uninstalled = g_build_filename (build, "meson-uninstalled", "ffm-uninstalled.pc", NULL);
  link_to (uninstalled, pc, "ffm.pc");
  return scratch;
}

/* Runs @script with /bin/sh in @scratch, `ffm` on PATH. */
static void
run_shell (FfmTestRun *run, const char *scratch, const char *cwd, const char *flags,
           const char *script)
{
  g_autofree char *bin = g_build_filename (scratch, ".bin", NULL);
  g_autofree char *pc = g_build_filename (scratch, ".pkgconfig", NULL);
  g_autofree char *path = g_strdup_printf ("PATH=%s:%s", bin, g_getenv ("PATH"));
  g_autofree char *pkg = g_strdup_printf ("PKG_CONFIG_PATH=%s", pc);
  const char *env[] = { path, pkg, NULL };
  FfmTestRunOptions options = { 0 };

  options.program = "/bin/sh";
  options.env = env;
  options.cwd = cwd;
  options.deadline = 600;
  ffm_test_run_full (run, (const char *const[]) { flags, "-c", script, NULL }, &options);
}

/* ---- Blocks ---- */

typedef struct {
  char *info;                   /* after the opening ``` */
  GPtrArray *lines;             /* of char* */
  guint line;                   /* of the opening fence, from 1 */
  char *file;                   /* <!-- file: NAME --> before it, or NULL */
} Block;

static void
block_free (gpointer data)
{
  Block *b = data;

  g_free (b->info);
  g_ptr_array_unref (b->lines);
  g_free (b->file);
  g_free (b);
}

static GPtrArray *
read_blocks (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *blocks = g_ptr_array_new_with_free_func (block_free);
  const char *file_comment = NULL;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      Block *b;
      if (g_str_has_prefix (lines[i], "<!-- file: "))
        file_comment = lines[i] + strlen ("<!-- file: ");
      if (!g_str_has_prefix (lines[i], "```"))
        continue;
      b = g_new0 (Block, 1);
      b->info = g_strstrip (g_strdup (lines[i] + 3));
      b->lines = g_ptr_array_new_with_free_func (g_free);
      b->line = i + 1;
      if (file_comment != NULL)
        {
          const char *end = strstr (file_comment, " -->");
          b->file = end ? g_strndup (file_comment, (gsize) (end - file_comment)) : NULL;
          file_comment = NULL;
        }
      for (i++; lines[i] != NULL && !g_str_has_prefix (lines[i], "```"); i++)
        g_ptr_array_add (b->lines, g_strdup (lines[i]));
      g_assert_nonnull (lines[i]);    /* an unclosed fence is a broken document */
      g_ptr_array_add (blocks, b);
    }
  return blocks;
}

/* Logical lines: a trailing backslash joins the next line. */
static GPtrArray *
join_continuations (GPtrArray *lines, guint from, guint to)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GString *current = NULL;

  for (guint i = from; i < to; i++)
    {
      const char *line = g_ptr_array_index (lines, i);
      gsize n = strlen (line);
      if (current == NULL)
        current = g_string_new (NULL);
      if (n > 0 && line[n - 1] == '\\')
        {
          g_string_append_len (current, line, (gssize) n - 1);
          continue;
        }
      g_string_append (current, line);
      g_ptr_array_add (out, g_string_free (current, FALSE));
      current = NULL;
    }
  if (current != NULL)
    g_ptr_array_add (out, g_string_free (current, FALSE));
  return out;
}

/* A build step of the README, which the suite does not repeat. */
static gboolean
is_build_step (const char *command)
{
  while (*command == ' ')
    command++;
  return g_str_has_prefix (command, "apt-get ") || g_str_has_prefix (command, "meson ")
    || g_str_has_prefix (command, "ninja ");
}

/* @line without its build steps (joined by &&), or NULL if nothing is
 * left. */
static char *
without_build_steps (const char *line)
{
  g_auto (GStrv) parts = g_strsplit (line, " && ", -1);
  g_autoptr (GStrvBuilder) kept = g_strv_builder_new ();
  g_auto (GStrv) rest = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    if (!is_build_step (parts[i]))
      g_strv_builder_add (kept, parts[i]);
  rest = g_strv_builder_end (kept);
  return rest[0] != NULL ? g_strjoinv (" && ", rest) : NULL;
}

static void
run_sh_block (const char *doc, const Block *b, const char *scratch, const char *cwd,
              guint *n_commands)
{
  g_autoptr (GPtrArray) lines = join_continuations (b->lines, 0, b->lines->len);
  g_autoptr (GString) script = g_string_new (NULL);
  g_auto (FfmTestRun) run = { 0 };
  guint n = 0;

  for (guint i = 0; i < lines->len; i++)
    {
      g_autofree char *line = without_build_steps (g_ptr_array_index (lines, i));
      if (line == NULL)
        continue;
      g_string_append_printf (script, "%s\n", line);
      n += strspn (line, " ") < strlen (line) && line[strspn (line, " ")] != '#';
    }
  if (script->len == 0)
    return;
  run_shell (&run, scratch, cwd, "-e", script->str);
  if (run.status != 0)
    g_error ("%s:%u: the commands exit with %d:\n%s\nstdout:\n%s\nstderr:\n%s", doc,
             b->line, run.status, script->str, run.out, run.err);
  *n_commands += n;
}

/* TRUE if @expected ("..." for any text) is in one line of @output. */
static gboolean
output_has_line (const char *output, const char *expected)
{
  g_auto (GStrv) pieces = g_strsplit (expected, "...", -1);
  g_auto (GStrv) lines = g_strsplit (output, "\n", -1);

  for (guint l = 0; lines[l] != NULL; l++)
    {
      const char *at = lines[l];
      guint p;
      for (p = 0; pieces[p] != NULL; p++)
        {
          if (pieces[p][0] == '\0')
            continue;
          at = strstr (at, pieces[p]);
          if (at == NULL)
            break;
          at += strlen (pieces[p]);
        }
      if (pieces[p] == NULL)
        return TRUE;
    }
  return FALSE;
}

static void
run_console_block (const char *doc, const Block *b, const char *scratch, const char *cwd,
                   guint *n_commands)
{
  guint i = 0;

  while (i < b->lines->len)
    {
      const char *line = g_ptr_array_index (b->lines, i);
      g_autoptr (GPtrArray) command = NULL;
      g_auto (FfmTestRun) run = { 0 };
      g_autofree char *output = NULL;
      guint start = i, end;

      if (!g_str_has_prefix (line, "$ "))
        g_error ("%s:%u: a console block must start each command with \"$ \": %s", doc,
                 b->line + 1 + i, line);
      /* The command and its continuation lines. */
      for (end = i + 1; end <= b->lines->len
                        && g_str_has_suffix (g_ptr_array_index (b->lines, end - 1), "\\");
           end++)
        ;
      command = join_continuations (b->lines, start, end);
      run_shell (&run, scratch, cwd, "-u", (const char *) g_ptr_array_index (command, 0) + 2);
      (*n_commands)++;
      output = g_strconcat (run.out, run.err, NULL);
      for (i = end; i < b->lines->len
                    && !g_str_has_prefix (g_ptr_array_index (b->lines, i), "$ "); i++)
        {
          g_autofree char *expected = g_strdup (g_ptr_array_index (b->lines, i));
          g_strchomp (expected);
          if (expected[0] != '\0' && !output_has_line (output, expected))
            g_error ("%s:%u: the output of\n  %s\nhas no line\n  %s\nIt is:\n%s", doc,
                     b->line + 1 + i, (const char *) g_ptr_array_index (command, 0) + 2,
                     expected, output);
        }
    }
}

/* The format member of a complete file, or NULL for a fragment. */
static const char *
file_kind (JsonNode *root)
{
  static const char *const kinds[] = { "ffm_workload", "ffm_architecture",
                                       "ffm_mapping", "ffm_result" };

  if (!JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (json_object_has_member (json_node_get_object (root), kinds[i]))
      return kinds[i];
  return NULL;
}

/* Loads a complete file as ffm reads its kind. */
static void
load_file (const char *doc, const Block *b, const char *kind, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_strdup_printf ("%s:%u", doc, b->line);
  gboolean ok;

  if (g_str_equal (kind, "ffm_workload"))
    {
      g_autoptr (FfmWorkload) w = ffm_workload_load_from_data (text, name, NULL, &error);
      /* A workload with required parameters is loaded by the commands
       * that give them (it is written as a file for them). */
      ok = w != NULL || (b->file != NULL && g_error_matches (error, FFM_PARAM_ERROR,
                                                             FFM_PARAM_ERROR_MISSING));
    }
  else if (g_str_equal (kind, "ffm_architecture"))
    {
      g_autoptr (FfmArch) a = ffm_arch_load_from_data (text, name, NULL, &error);
      ok = a != NULL;
    }
  else if (g_str_equal (kind, "ffm_mapping"))
    {
      g_autoptr (FfmMapping) m = ffm_mapping_load_from_data (text, name, &error);
      ok = m != NULL;
    }
  else
    {
      g_autoptr (FfmResultFile) r = ffm_result_file_load_from_data (text, name, &error);
      ok = r != NULL;
    }
  if (!ok)
    g_error ("%s:%u: the %s example does not load: %s", doc, b->line, kind,
             error != NULL ? error->message : "?");
}

static void
check_json_block (const char *doc, const Block *b, const char *scratch, guint *n_files)
{
  g_autofree char *text = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) joined = g_string_new (NULL);
  const char *kind;

  for (guint i = 0; i < b->lines->len; i++)
    g_string_append_printf (joined, "%s\n", (const char *) g_ptr_array_index (b->lines, i));
  text = g_strdup (joined->str);
  if (!json_parser_load_from_data (parser, text, -1, &error))
    {
      /* A fragment: a member ("parameters": ...) or part of a list. */
      if (b->file != NULL)
        g_error ("%s:%u: the file %s does not parse: %s", doc, b->line, b->file,
                 error->message);
      return;
    }
  kind = file_kind (json_parser_get_root (parser));
  if (kind == NULL)
    {
      if (b->file != NULL)
        g_error ("%s:%u: %s is not an ffm file (no format member)", doc, b->line, b->file);
      return;
    }
  load_file (doc, b, kind, text);
  (*n_files)++;
  if (b->file != NULL)
    {
      g_autofree char *path = g_build_filename (scratch, b->file, NULL);
      g_assert_true (g_file_set_contents (path, text, -1, NULL));
    }
}

/* ---- One document ---- */

static void
test_document (gconstpointer data)
{
  const char *doc = data;
  g_autofree char *path = g_build_filename (source_root (), doc, NULL);
  g_autofree char *text = NULL;
  g_autoptr (GPtrArray) blocks = NULL;
  g_autofree char *scratch = NULL, *cwd = NULL;
  guint n_commands = 0, n_files = 0;

  g_test_summary ("every command, session and complete file of the document runs "
                  "or loads as written");
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  blocks = read_blocks (text);
  scratch = make_scratch ();
  /* Documents write paths from the top of a checkout, except the examples
   * under docs/examples/, which are read in their own folder. */
  if (g_str_has_prefix (doc, "docs/examples/"))
    {
      g_autofree char *folder = g_path_get_dirname (doc);
      g_autofree char *inner = g_build_filename (scratch, folder, NULL);
      g_free (cwd);
      cwd = g_steal_pointer (&inner);
    }
  else
    cwd = g_strdup (scratch);
  /* Files first, so that commands anywhere in the document find them. */
  for (guint i = 0; i < blocks->len; i++)
    {
      const Block *b = g_ptr_array_index (blocks, i);
      if (g_str_equal (b->info, "json"))
        check_json_block (doc, b, cwd, &n_files);
    }
  for (guint i = 0; i < blocks->len; i++)
    {
      const Block *b = g_ptr_array_index (blocks, i);
      if (g_str_equal (b->info, "sh")
          || (g_str_equal (b->info, "sh-slow") && g_test_slow ()))
        run_sh_block (doc, b, scratch, cwd, &n_commands);
      else if (g_str_equal (b->info, "console"))
        run_console_block (doc, b, scratch, cwd, &n_commands);
      else if (b->info[0] == '\0')
        g_error ("%s:%u: a fence without a kind: write ```sh (run), ```console "
                 "(a session, checked), ```json or ```text (not run)", doc, b->line);
    }
  g_test_message ("%s: %u commands, %u files", doc, n_commands, n_files);
  remove_tree (scratch);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* The documents: README.md and every .md under docs/. */
static void
find_documents (const char *dir, const char *relative, GPtrArray *out)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = *(const char *const *) &names->pdata[i];
      g_autofree char *full = g_build_filename (dir, n, NULL);
      g_autofree char *rel = g_build_filename (relative, n, NULL);
      if (g_file_test (full, G_FILE_TEST_IS_DIR))
        find_documents (full, rel, out);
      else if (g_str_has_suffix (n, ".md"))
        g_ptr_array_add (out, g_steal_pointer (&rel));
    }
}

/* ---- The manual page ---- */

static void
test_manpage (void)
{
  g_autofree char *build = build_root ();
  g_autofree char *page = g_build_filename (build, "cli", "ffm.1", NULL);
  g_autofree char *groff = g_find_program_in_path ("groff");
  g_autofree char *man = g_find_program_in_path ("man");
  g_autofree char *mandoc = g_find_program_in_path ("mandoc");
  g_autofree char *script = NULL;
  g_auto (FfmTestRun) run = { 0 };
  FfmTestRunOptions options = { 0 };

  g_test_summary ("the manual page ffm(1) renders without a warning and lists "
                  "every command");
  g_assert_true (g_file_test (page, G_FILE_TEST_EXISTS));
  if (groff != NULL)
    /* Warnings on stderr, the page on stdout. */
    script = g_strdup_printf ("groff -man -ww -Tutf8 '%s' >/dev/null && "
                              "groff -man -Tascii -P-bcu '%s'", page, page);
  else if (man != NULL)
    script = g_strdup_printf ("MANWIDTH=80 man --warnings -l '%s' | cat", page);
  else if (mandoc != NULL)
    script = g_strdup_printf ("mandoc -T lint -W warning '%s' >&2 && mandoc -T ascii '%s' "
                              "| sed 's/.\\x08//g'", page, page);
  else
    {
      g_test_skip ("no groff, man or mandoc to render the page with");
      return;
    }
  options.program = "/bin/sh";
  ffm_test_run_full (&run, (const char *const[]) { "-c", script, NULL }, &options);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.err, ==, "");
  for (const char *const *c = (const char *const[]) { "ffm list", "ffm show-workload",
                                                      "ffm pmappings", "ffm map",
                                                      "ffm eval", "ffm help",
                                                      "ffm version", "EXIT STATUS",
                                                      "FFM_PLUGIN_PATH", NULL };
       *c != NULL; c++)
    if (strstr (run.out, *c) == NULL)
      g_error ("the rendered page has no '%s':\n%s", *c, run.out);
}

int
main (int argc, char **argv)
{
  g_autoptr (GPtrArray) docs = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *docs_dir = NULL;

  g_test_init (&argc, &argv, NULL);
  docs_dir = g_build_filename (source_root (), "docs", NULL);
  g_ptr_array_add (docs, g_strdup ("README.md"));
  find_documents (docs_dir, "docs", docs);
  for (guint i = 0; i < docs->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("/docs/%s", (const char *) docs->pdata[i]);
      g_test_add_data_func (name, docs->pdata[i], test_document);
    }
  g_test_add_func ("/docs/manpage", test_manpage);
  return g_test_run ();
}
