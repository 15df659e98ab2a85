/* test-cli.c: the `ffm` command end to end (the built binary, from
 * FFM_EXE) and the shared option helpers called directly.
 *
 * Fixture-based tests run ffm with no built-in plugin folder
 * (FFM_PLUGIN_SYSTEM_PATH="") and --plugin-dir pointing at a fixture
 * folder, so they do not depend on the real plugins; /cli/list/real-plugins
 * checks the plugins of this build (the json arch model and its "simple"
 * architecture). */
#include "ffm-cli-common.h"

#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct {
  int status;                   /* exit code, or -1 if killed */
  char *out;                    /* stdout */
  char *err;                    /* stderr */
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static const char *
ffm_exe (void)
{
  const char *exe = g_getenv ("FFM_EXE");

  if (exe == NULL)
    g_error ("FFM_EXE is not set: run this test through meson test");
  return exe;
}

/* Runs ffm with @args (NULL-terminated) in environment @envp (NULL: ours). */
static void
run_ffm_argv (Run *run, char **envp, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  int wait_status = 0;

  g_ptr_array_add (argv, (char *) ffm_exe ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                &run->out, &run->err, &wait_status, &error);
  g_assert_no_error (error);
  run->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  g_test_message ("exit %d\nstdout:\n%s\nstderr:\n%s", run->status, run->out, run->err);
}

#define RUN_FFM(run, envp, ...) \
  run_ffm_argv ((run), (envp), (const char *const[]) { __VA_ARGS__, NULL })

static void
assert_contains (const char *text, const char *needle)
{
  if (strstr (text, needle) == NULL)
    g_error ("'%s' not found in:\n%s", needle, text);
}

static void
assert_not_contains (const char *text, const char *needle)
{
  if (strstr (text, needle) != NULL)
    g_error ("'%s' unexpectedly found in:\n%s", needle, text);
}

static char *
fixture_dir (const char *fixture_case)
{
  return g_test_build_filename (G_TEST_BUILT, "fixtures", "plugins", fixture_case, NULL);
}

/* Our environment without any plugin folder but the ones given. */
static char **
fixture_env (void)
{
  char **envp = g_get_environ ();

  envp = g_environ_unsetenv (envp, "FFM_PLUGIN_PATH");
  return g_environ_setenv (envp, "FFM_PLUGIN_SYSTEM_PATH", "", TRUE);
}

/* ---- ffm itself ---- */

static void
test_help (void)
{
  g_auto (Run) run = { 0 };

  g_test_summary ("ffm --help lists the commands on stdout and exits 0");
  RUN_FFM (&run, NULL, "--help");
  g_assert_cmpint (run.status, ==, 0);
  assert_contains (run.out, "Usage:\n  ffm COMMAND [OPTION");
  assert_contains (run.out, "\n  list ");
  assert_contains (run.out, "\n  show-workload ");
  assert_contains (run.out, "\n  help ");
  assert_contains (run.out, "\n  version ");
  g_assert_cmpstr (run.err, ==, "");
}

static void
test_help_command (void)
{
  g_auto (Run) help = { 0 };
  g_auto (Run) option = { 0 };
  g_auto (Run) plain = { 0 };

  g_test_summary ("ffm help list and ffm list --help print the same help");
  RUN_FFM (&help, NULL, "help", "list");
  RUN_FFM (&option, NULL, "list", "--help");
  g_assert_cmpint (help.status, ==, 0);
  g_assert_cmpint (option.status, ==, 0);
  assert_contains (help.out, "Usage:\n  ffm list [OPTION");
  assert_contains (help.out, "List plugins, the architectures they offer");
  assert_contains (help.out, "--plugin-dir=DIR");
  assert_contains (help.out, "--verbose");
  /* Options only where they change something: list runs no search. */
  g_assert_null (strstr (help.out, "--threads"));
  g_assert_null (strstr (help.out, "--seed"));
  assert_contains (help.out, "--json=OUT");
  assert_contains (help.out, "--csv=OUT");
  assert_contains (help.out, "--names");
  assert_contains (help.out, "--paths");
  assert_contains (help.out, "FFM_PLUGIN_PATH");
  g_assert_cmpstr (help.out, ==, option.out);
  g_assert_cmpstr (help.err, ==, "");

  RUN_FFM (&plain, NULL, "help");
  g_assert_cmpint (plain.status, ==, 0);
  assert_contains (plain.out, "Usage:\n  ffm COMMAND");
}

static void
test_version (void)
{
  g_auto (Run) option = { 0 };
  g_auto (Run) command = { 0 };
  g_autofree char *expected = g_strdup_printf ("ffm %s (plugin ABI %d.%d)\n",
                                               FFM_VERSION_STRING, FFM_PLUGIN_ABI_MAJOR,
                                               FFM_PLUGIN_ABI_MINOR);

  RUN_FFM (&option, NULL, "--version");
  RUN_FFM (&command, NULL, "version");
  g_assert_cmpint (option.status, ==, 0);
  g_assert_cmpint (command.status, ==, 0);
  g_assert_cmpstr (option.out, ==, expected);
  g_assert_cmpstr (command.out, ==, expected);
}

typedef struct {
  const char *args[4];
  const char *message;          /* expected on stderr */
} UsageCase;

static const UsageCase usage_cases[] = {
  { { NULL }, "ffm: no command given\n" },
  { { "frobnicate", NULL }, "ffm: unknown command 'frobnicate'\n" },
  { { "--frobnicate", NULL }, "ffm: unknown option '--frobnicate'" },
  { { "help", "frobnicate", NULL }, "ffm: unknown command 'frobnicate'\n" },
  { { "help", "list", "extra", NULL }, "ffm: help takes at most one command" },
  { { "version", "extra", NULL }, "ffm: version takes no arguments" },
};

static void
test_usage_errors (void)
{
  g_test_summary ("Bad commands exit 2 with the message and the usage on stderr");
  for (guint i = 0; i < G_N_ELEMENTS (usage_cases); i++)
    {
      g_auto (Run) run = { 0 };

      run_ffm_argv (&run, NULL, usage_cases[i].args);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_cmpstr (run.out, ==, "");
      g_assert_true (g_str_has_prefix (run.err, usage_cases[i].message));
      assert_contains (run.err, "Usage:\n  ffm COMMAND [OPTION");
    }
}

/* ---- ffm list: bad arguments ---- */

typedef struct {
  const char *args[6];
  const char *message;          /* expected first line on stderr */
} ListUsageCase;

static const ListUsageCase list_usage_cases[] = {
  { { "--frobnicate", NULL }, "ffm list: Unknown option --frobnicate\n" },
  { { "extra", NULL }, "ffm list: unexpected argument 'extra'\n" },
  { { "--threads", "2", NULL }, "ffm list: Unknown option --threads\n" },
  { { "--seed", "5", NULL }, "ffm list: Unknown option --seed\n" },
  { { "--plugin-dir", NULL }, "ffm list: Missing argument for --plugin-dir\n" },
  { { "--json", "-", "--paths", NULL }, "ffm list: --paths cannot be used with --json "
                                        "or --csv\n" },
  { { "--names", "--paths", NULL }, "ffm list: --paths and --names cannot be used "
                                    "together\n" },
  { { "--json", "-", "--csv", "-" }, "ffm list: --json - and --csv - cannot both write "
                                     "to standard output\n" },
  { { "--json", NULL }, "ffm list: Missing argument for --json\n" },
};

static void
test_list_usage_errors (void)
{
  g_test_summary ("ffm list with bad arguments exits 2 with the message and its "
                  "own usage on stderr, nothing on stdout");
  for (guint i = 0; i < G_N_ELEMENTS (list_usage_cases); i++)
    {
      const char *args[8] = { "list" };
      g_auto (Run) run = { 0 };

      for (guint j = 0; list_usage_cases[i].args[j] != NULL; j++)
        args[j + 1] = list_usage_cases[i].args[j];
      run_ffm_argv (&run, NULL, args);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_cmpstr (run.out, ==, "");
      if (!g_str_has_prefix (run.err, list_usage_cases[i].message))
        g_error ("expected '%s' at the start of:\n%s", list_usage_cases[i].message,
                 run.err);
      assert_contains (run.err, "Usage:\n  ffm list [OPTION");
      assert_contains (run.err, "--plugin-dir");
    }
}

/* ---- ffm list: output ---- */

static void
test_list_fixtures (void)
{
  g_auto (GStrv) envp = fixture_env ();
  g_autofree char *dir = fixture_dir ("good");
  g_autofree char *arch_file = g_build_filename (dir, "ffm-arch-fixture.so", NULL);
  g_autofree char *search_file = g_build_filename (dir, "ffm-search-fixture.so", NULL);
  g_autofree char *arch_line = g_strdup_printf ("    file: %s\n", arch_file);
  g_autofree char *search_line = g_strdup_printf ("    file: %s\n", search_file);
  g_auto (Run) run = { 0 };

  g_test_summary ("ffm list prints kind, name, version, summary, file, "
                  "architectures and parameters with defaults");
  RUN_FFM (&run, envp, "list", "--plugin-dir", dir);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.err, ==, "");

  g_assert_true (g_str_has_prefix (run.out, "Architecture models:\n\n"
                                   "  fixture 1.2.3: Good fixture arch model for the "
                                   "plugin host tests\n"
                                   "    kind: arch-model\n"));
  assert_contains (run.out, arch_line);
  assert_contains (run.out,
                   "    architectures:\n"
                   "      fixture-one: Fixture architecture fixture-one\n"
                   "        NAME      TYPE    DEFAULT  HELP\n"
                   "        size_kib  number  64       buffer size in KiB [1, 1024]\n"
                   "        dataflow  string  ws       dataflow of the array "
                   "(one of: ws, os)\n"
                   "      fixture-two: Fixture architecture fixture-two\n"
                   "        no parameters\n");
  assert_contains (run.out, "  solo 0.1: Fixture arch model with a single architecture\n");
  assert_contains (run.out, "      solo-chip: The only chip of the solo model\n");
  assert_contains (run.out, "  twin 0.1: ");
  assert_contains (run.out,
                   "\nSearch strategies:\n\n"
                   "  fixture 2.0.0: Good fixture search strategy for the plugin "
                   "host tests\n"
                   "    kind: search\n");
  assert_contains (run.out, search_line);
  assert_contains (run.out,
                   "    parameters:\n"
                   "      NAME     TYPE     DEFAULT   HELP\n"
                   "      budget   integer  10        evaluations to spend "
                   "[1, 1e+06]\n"
                   "      mode     string   fast      how hard to try "
                   "(one of: fast, slow)\n"
                   "      restart  bool     required  start over when stuck\n");
  assert_not_contains (run.out, "Problems:");
}

static void
test_list_problems (void)
{
  g_auto (GStrv) envp = fixture_env ();
  g_autofree char *dir = fixture_dir ("mixed");
  static const char *const broken[] = { "ffm-arch-abimajor.so", "ffm-arch-notelf.so",
                                        "ffm-arch-unresolved.so",
                                        "ffm-search-noentry.so" };
  g_auto (Run) run = { 0 };
  const char *problems;

  g_test_summary ("ffm list shows the good plugins of a folder with broken ones, "
                  "then each broken file under Problems");
  RUN_FFM (&run, envp, "list", "--plugin-dir", dir);
  g_assert_cmpint (run.status, ==, 0);
  assert_contains (run.out, "  fixture 1.2.3: ");
  assert_contains (run.out, "  fixture 2.0.0: ");
  problems = strstr (run.out, "\nProblems:\n\n");
  g_assert_nonnull (problems);
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autofree char *line = g_strdup_printf ("\n  %s/%s: ", dir, broken[i]);
      assert_contains (problems, line);
    }
  assert_not_contains (run.out, "libnotaplugin");
}

static void
test_list_arch_problems (void)
{
  g_auto (GStrv) envp = fixture_env ();
  g_autofree char *dir = fixture_dir ("build-fails");
  g_auto (Run) run = { 0 };

  g_test_summary ("An architecture whose parameters cannot be read is listed "
                  "and reported under Problems");
  RUN_FFM (&run, envp, "list", "--plugin-dir", dir);
  g_assert_cmpint (run.status, ==, 0);
  assert_contains (run.out, "      bad-params: Never builds\n"
                            "        parameters unavailable (see Problems)\n");
  assert_contains (run.out, "\nProblems:\n\n  buildfails:bad-params (");
  assert_contains (run.out, "): buildfails:bad-params: parameter knob has unknown "
                            "type 42\n");
}

static JsonNode *
member_at (JsonNode *node, const char *path)
{
  g_autoptr (JsonPath) json_path = json_path_new ();
  g_autoptr (JsonNode) matches = NULL;
  g_autoptr (GError) error = NULL;
  JsonArray *array;

  g_assert_true (json_path_compile (json_path, path, &error));
  matches = json_path_match (json_path, node);
  array = json_node_get_array (matches);
  g_assert_cmpuint (json_array_get_length (array), ==, 1);
  return json_node_copy (json_array_get_element (array, 0));
}

static void
assert_json_string (JsonNode *root, const char *path, const char *expected)
{
  g_autoptr (JsonNode) node = member_at (root, path);

  g_assert_cmpstr (json_node_get_string (node), ==, expected);
}

static void
test_list_json (void)
{
  g_auto (GStrv) envp = fixture_env ();
  g_autofree char *dir = fixture_dir ("good");
  g_autofree char *arch_file = g_build_filename (dir, "ffm-arch-fixture.so", NULL);
  g_auto (Run) run = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = NULL;
  JsonNode *root;
  JsonObject *object;

  g_test_summary ("ffm list --json prints the same as one JSON object");
  RUN_FFM (&run, envp, "list", "--json", "-", "--plugin-dir", dir);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, run.out, -1, &error));
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  object = json_node_get_object (root);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "plugins")),
                    ==, 4);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object,
                                                                         "problems")),
                    ==, 0);

  assert_json_string (root, "$.plugins[0].kind", "arch-model");
  assert_json_string (root, "$.plugins[0].name", "fixture");
  assert_json_string (root, "$.plugins[0].version", "1.2.3");
  assert_json_string (root, "$.plugins[0].path", arch_file);
  assert_json_string (root, "$.plugins[0].architectures[0].name", "fixture-one");
  assert_json_string (root, "$.plugins[0].architectures[0].parameters[0].name",
                      "size_kib");
  assert_json_string (root, "$.plugins[0].architectures[0].parameters[0].type",
                      "number");
  assert_json_string (root, "$.plugins[0].architectures[0].parameters[0].default", "64");
  node = member_at (root, "$.plugins[0].architectures[0].parameters[0].max");
  g_assert_cmpfloat (json_node_get_double (node), ==, 1024);
  g_clear_pointer (&node, json_node_unref);
  assert_json_string (root, "$.plugins[0].architectures[0].parameters[1].choices[1]",
                      "os");
  assert_json_string (root, "$.plugins[3].kind", "search");
  assert_json_string (root, "$.plugins[3].parameters[2].name", "restart");
  node = member_at (root, "$.plugins[3].parameters[2].default");
  g_assert_true (JSON_NODE_HOLDS_NULL (node));
}

static void
test_list_verbose (void)
{
  g_auto (GStrv) envp = fixture_env ();
  g_autofree char *dir = fixture_dir ("good");
  g_auto (Run) run = { 0 };

  g_test_summary ("Logs go to stderr only; stdout holds just the listing");
  RUN_FFM (&run, envp, "list", "--verbose", "--plugin-dir", dir);
  g_assert_cmpint (run.status, ==, 0);
  assert_contains (run.err, "loaded arch-model 'fixture' 1.2.3 from ");
  assert_contains (run.err, "scanning plugin folder ");
  g_assert_true (g_str_has_prefix (run.out, "Architecture models:\n"));
  assert_not_contains (run.out, "loaded ");
  assert_not_contains (run.out, "INFO");
}

static void
test_list_plugin_path_env (void)
{
  g_auto (GStrv) envp = fixture_env ();
  g_autofree char *dir = fixture_dir ("good");
  g_auto (Run) run = { 0 };

  g_test_summary ("FFM_PLUGIN_PATH adds plugin folders");
  envp = g_environ_setenv (envp, "FFM_PLUGIN_PATH", dir, TRUE);
  RUN_FFM (&run, envp, "list");
  g_assert_cmpint (run.status, ==, 0);
  assert_contains (run.out, "  fixture 1.2.3: ");
}

static void
test_list_empty (void)
{
  g_auto (GStrv) envp = fixture_env ();
  g_auto (Run) run = { 0 };

  RUN_FFM (&run, envp, "list");
  g_assert_cmpint (run.status, ==, 0);
  /* No plugins; the policies are data files, listed after them. */
  g_assert_true (g_str_has_prefix (run.out, "Architecture models:\n\n  none found\n"
                                   "\nSearch strategies:\n\n  none found\n"
                                   "\nComponent estimators (ffm estimate CLASS):\n\n"
                                   "  none found\n"
                                   "\nPolicies (ffm map --policy NAME):\n"));
}

static void
test_list_paths (void)
{
  g_auto (GStrv) envp = g_get_environ ();
  g_autofree char *json_dir = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *expected = NULL;
  g_auto (Run) run = { 0 };

  g_test_summary ("The uninstalled ffm searches its own build's plugin folders "
                  "with no variable set");
  envp = g_environ_unsetenv (envp, "FFM_PLUGIN_PATH");
  envp = g_environ_unsetenv (envp, "FFM_PLUGIN_SYSTEM_PATH");
  envp = g_environ_unsetenv (envp, "FFM_DATA_PATH");
  RUN_FFM (&run, envp, "list", "--paths", "--plugin-dir", "/nonexistent/ffm-plugins");
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_prefix (run.out, "Plugin folders:\n"
                                   "  /nonexistent/ffm-plugins (missing)\n"));
  json_dir = g_test_build_filename (G_TEST_BUILT, "..", "arch-models", "json", NULL);
  canonical = g_canonicalize_filename (json_dir, NULL);
  expected = g_strdup_printf ("\n  %s\n", canonical);
  assert_contains (run.out, expected);
  assert_contains (run.out, "\nWorkload folders:\n");
  assert_contains (run.out, "\nArchitecture folders:\n");
}

static void
test_list_real_plugins (void)
{
  g_auto (GStrv) envp = g_get_environ ();
  g_auto (Run) run = { 0 };

  g_test_summary ("The uninstalled ffm lists this build's plugins, e.g. the json "
                  "arch model and its simple architecture");
  envp = g_environ_unsetenv (envp, "FFM_PLUGIN_PATH");
  envp = g_environ_unsetenv (envp, "FFM_PLUGIN_SYSTEM_PATH");
  RUN_FFM (&run, envp, "list");
  g_assert_cmpint (run.status, ==, 0);
  assert_contains (run.out, "\n  json ");
  assert_contains (run.out, "\n    kind: arch-model\n");
  assert_contains (run.out, "\n      simple");
  assert_not_contains (run.out, "Problems:");
}

/* ---- Helpers, called directly ---- */

static void
test_parse_assignments (void)
{
  char *good[] = { (char *) "a=2", (char *) "b=x=y", NULL };
  char *bad[] = { (char *) "a=1", (char *) "novalue", NULL };
  char *twice[] = { (char *) "a=1", (char *) "b=3", (char *) " a =2", NULL };
  g_autoptr (FfmParamValues) values = NULL;
  g_autoptr (FfmParamValues) empty = NULL;
  g_autoptr (GError) error = NULL;

  values = ffm_cli_parse_assignments (good, "--param", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_param_values_lookup (values, "a"), ==, "2");
  g_assert_cmpstr (ffm_param_values_lookup (values, "b"), ==, "x=y");

  empty = ffm_cli_parse_assignments (NULL, "--param", &error);
  g_assert_no_error (error);
  g_assert_null (ffm_param_values_get_keys (empty)[0]);

  g_assert_null (ffm_cli_parse_assignments (bad, "--arch-param", &error));
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_SYNTAX);
  g_assert_true (g_str_has_prefix (error->message, "--arch-param: "));
  g_clear_error (&error);

  /* A key given twice would silently keep the last value. */
  g_assert_null (ffm_cli_parse_assignments (twice, "--param", &error));
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_INVALID_VALUE);
  g_assert_cmpstr (error->message, ==, "--param  a =2: the key is set twice (give each "
                   "key once)");
}

static void
test_load_arch (void)
{
  g_autofree char *dir = fixture_dir ("good");
  char *dirs[] = { dir, NULL };
  FfmCliCommon common = FFM_CLI_COMMON_INIT;
  g_autoptr (FfmPluginRegistry) registry = NULL;
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  FfmCliProblemOptions options = FFM_CLI_PROBLEM_OPTIONS_INIT;
  char *arch_params[] = { (char *) "size_kib=32", NULL };
  char *bad_params[] = { (char *) "size_kib", NULL };
  FfmArch *arch = NULL;

  g_test_summary ("--arch and --arch-param: 0 with the architecture, 2 for "
                  "missing or malformed options, 1 when building fails");
  g_setenv ("FFM_PLUGIN_SYSTEM_PATH", "", TRUE);
  common.plugin_dirs = dirs;
  registry = ffm_cli_registry_new (&common);

  options.arch = (char *) "fixture-one";
  options.arch_params = arch_params;
  g_assert_cmpint (ffm_cli_load_arch (context, "test", registry, &options, &arch), ==, 0);
  g_assert_nonnull (arch);
  g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.size, ==, 32.0 * 8192);
  g_clear_pointer (&arch, ffm_arch_unref);

  options.arch_params = bad_params;
  g_assert_cmpint (ffm_cli_load_arch (context, "test", registry, &options, &arch), ==, 2);
  options.arch_params = NULL;
  options.arch = (char *) "nosuch";
  g_assert_cmpint (ffm_cli_load_arch (context, "test", registry, &options, &arch), ==, 1);
  options.arch = NULL;
  g_assert_cmpint (ffm_cli_load_arch (context, "test", registry, &options, &arch), ==, 2);
  g_assert_null (arch);
}

static void
test_command_summaries (void)
{
  g_assert_cmpstr (ffm_cli_command_summary ("list"), ==,
                   "List plugins, the architectures they offer and their parameters");
  g_assert_nonnull (ffm_cli_command_summary ("show-workload"));
  g_assert_null (ffm_cli_command_summary ("nosuch"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/help", test_help);
  g_test_add_func ("/cli/help-command", test_help_command);
  g_test_add_func ("/cli/version", test_version);
  g_test_add_func ("/cli/usage-errors", test_usage_errors);
  g_test_add_func ("/cli/list/usage-errors", test_list_usage_errors);
  g_test_add_func ("/cli/list/fixtures", test_list_fixtures);
  g_test_add_func ("/cli/list/problems", test_list_problems);
  g_test_add_func ("/cli/list/arch-problems", test_list_arch_problems);
  g_test_add_func ("/cli/list/json", test_list_json);
  g_test_add_func ("/cli/list/verbose", test_list_verbose);
  g_test_add_func ("/cli/list/plugin-path-env", test_list_plugin_path_env);
  g_test_add_func ("/cli/list/empty", test_list_empty);
  g_test_add_func ("/cli/list/paths", test_list_paths);
  g_test_add_func ("/cli/list/real-plugins", test_list_real_plugins);
  g_test_add_func ("/cli/helpers/parse-assignments", test_parse_assignments);
  g_test_add_func ("/cli/helpers/load-arch", test_load_arch);
  g_test_add_func ("/cli/helpers/command-summaries", test_command_summaries);
  return g_test_run ();
}
