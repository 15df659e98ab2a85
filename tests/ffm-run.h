/* ffm-run.h: running the built `ffm` (FFM_EXE) from a test, with what a
 * hostile environment can do to it: extra environment variables, standard
 * input and output from or to any path (/dev/full, /dev/zero), resource
 * limits, a pseudo-terminal for stderr, Ctrl-C once it has printed
 * something, and a deadline after which it is killed (a hang is a
 * failure, not a stuck test). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  int status;                   /* exit code; -1 if killed by a signal */
  int signal;                   /* the signal that ended it, 0 if none */
  gboolean timed_out;           /* killed at the deadline */
  gboolean interrupted;         /* interrupt_on was seen and SIGINT sent */
  char *out;                    /* stdout (empty when sent to a path) */
  char *err;                    /* stderr */
} FfmTestRun;

typedef struct {
  const char *program;          /* the program to run (NULL: FFM_EXE), e.g.
                                   /bin/sh for a documented shell command */
  const char *const *env;       /* KEY=VALUE to set, KEY= with nothing to unset (NULL: none) */
  const char *stdin_path;       /* NULL: /dev/null */
  const char *stdout_path;      /* NULL: captured into out */
  const char *cwd;              /* NULL: the test's */
  guint64 address_space;        /* RLIMIT_AS in bytes, 0: unchanged */
  guint64 data_size;            /* RLIMIT_DATA in bytes, 0: unchanged */
  guint64 file_size;            /* RLIMIT_FSIZE in bytes, 0: unchanged */
  guint64 open_files;           /* RLIMIT_NOFILE, 0: unchanged */
  double deadline;              /* seconds, 0: 120 */
  gboolean terminal;            /* stderr on a pseudo-terminal (what a user at a
                                   terminal sees: progress lines), captured in
                                   err as the terminal shows it (LF as CR LF) */
  const char *interrupt_on;     /* NULL, or send SIGINT (Ctrl-C) once stderr
                                   holds this text */
  guint interrupts;             /* how many SIGINTs then (0: 1), 0.5 s apart */
  int interrupt_signal;         /* the signal sent instead of SIGINT (SIGTERM:
                                   what `timeout` and `kill` send), 0: SIGINT */
  const char *const *launcher;  /* a program and its arguments that run
                                   FFM_EXE (mpirun -n 2), NULL: none */
} FfmTestRunOptions;

/* Runs FFM_EXE with @args (NULL-terminated, without the program). */
void ffm_test_run (FfmTestRun *run, const char *const *args);
void ffm_test_run_full (FfmTestRun *run, const char *const *args,
                        const FfmTestRunOptions *options);
void ffm_test_run_clear (FfmTestRun *run);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FfmTestRun, ffm_test_run_clear)

/* A fresh folder under the temporary directory, named after @prefix
 * (transfer full); and its removal with the files in it (one level). */
char *ffm_test_scratch_dir (const char *prefix);
void ffm_test_remove_dir (const char *dir);

#define FFM_TEST_RUN(run, ...) \
  ffm_test_run ((run), (const char *const[]) { __VA_ARGS__, NULL })

G_END_DECLS
