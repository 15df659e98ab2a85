/* ffm-run.h: runs the built `ffm` command (FFM_EXE, set by meson test)
 * for the end-to-end tests, and checks what it printed. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  int status;                   /* exit code, or -1 if killed */
  char *out;                    /* stdout */
  char *err;                    /* stderr */
} Run;

void run_clear (Run *run);
/* Runs FFM_EXE with @args (NULL-terminated) and waits; the output goes to
 * the test log. */
void run_ffm_argv (Run *run, const char *const *args);
/* Fails the test, quoting @text, when @needle is not in it. */
void assert_contains (const char *text, const char *needle);

#define RUN_FFM(run, ...) \
  run_ffm_argv ((run), (const char *const[]) { __VA_ARGS__, NULL })

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

G_END_DECLS
