/* ffm-commands.h: the subcommands of the `ffm` command.
 *
 * Adding a subcommand takes one line in FFM_COMMANDS below, one file
 * ffm-cmd-NAME.c defining the handler, and that file's name in
 * cli/meson.build. ffm-main.c builds its dispatch table from this list
 * (plus the built-in `help` and `version`), and `ffm --help` prints the
 * summaries in this order.
 *
 * A handler is `int handler (int argc, char **argv)`: argv[0] is the
 * subcommand's name, argv[argc] is NULL. It parses its options with its own
 * GOptionContext (ffm_cli_context_new() in ffm-cli-common.h, which also
 * gives `ffm help NAME` and `ffm NAME --help`) and returns the exit code:
 * FFM_EXIT_OK (0), FFM_EXIT_FAILURE (1: runtime or input error) or
 * FFM_EXIT_USAGE (2: bad arguments; the usage goes to stderr too). */
#pragma once

/* X (name, handler, summary) per subcommand; summaries are one line. */
#define FFM_COMMANDS(X) \
  X ("list", ffm_cmd_list, \
     "List plugins, the architectures they offer and their parameters") \
  X ("show-workload", ffm_cmd_show_workload, \
     "Print the Einsums, tensors and sizes of a workload") \
  X ("pmappings", ffm_cmd_pmappings, \
     "Generate the Pareto-optimal pmappings of each Einsum and report counts") \
  X ("map", ffm_cmd_map, \
     "Find the best fused mapping of a workload with a search strategy") \
  X ("eval", ffm_cmd_eval, \
     "Evaluate a mapping or a result file again, or compare several") \
  X ("compare", ffm_cmd_compare, \
     "Run several strategies head to head on one problem, model and budget") \
  X ("sweep", ffm_cmd_sweep, \
     "Best mappings over a grid of workload and architecture parameters and policies") \
  X ("import", ffm_cmd_import, \
     "Translate Timeloop YAML (architecture, ERT, problem, mapping) to ffm JSON") \
  X ("export", ffm_cmd_export, \
     "Write a single-Einsum ffm mapping as a Timeloop map.yaml") \
  X ("estimate", ffm_cmd_estimate, \
     "Energy per action, leakage and area of a component from its class and attributes")

typedef int (*FfmCommandFunc) (int argc, char **argv);

#define FFM_COMMAND_DECLARE_(name, handler, summary) \
  int handler (int argc, char **argv);
FFM_COMMANDS (FFM_COMMAND_DECLARE_)
#undef FFM_COMMAND_DECLARE_
