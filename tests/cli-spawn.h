/* cli-spawn.h: running the built `ffm` (FFM_EXE) from end-to-end tests:
 * its exit code, stdout and stderr; with a Ctrl-C after a delay; checks
 * on text and JSON. Shared by test-map-cli.c and test-compare-cli.c. */
#pragma once

#include <ffm/ffm.h>
#include <json-glib/json-glib.h>

typedef struct {
  int status;                   /* exit code, or -1 if killed */
  char *out;
  char *err;
} Run;

void run_clear (Run *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* Runs FFM_EXE with @args (NULL-terminated) and waits. */
void run_ffm_argv (Run *run, const char *const *args);
#define RUN_FFM(run, ...) \
  run_ffm_argv ((run), (const char *const[]) { __VA_ARGS__, NULL })

/* Starts FFM_EXE with @args, sends SIGINT after @delay_seconds, waits. */
void run_ffm_interrupted (Run *run, double delay_seconds, const char *const *args);

/* Fails the test, printing @text, unless it contains @needle. */
void assert_contains (const char *text, const char *needle);

/* The object @text holds, parsed strictly by @parser (which owns it). */
JsonObject *parse_object (JsonParser *parser, const char *text);
