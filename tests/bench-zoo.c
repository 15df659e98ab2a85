/* bench-zoo.c: the architecture zoo (docs/architectures.md, "The
 * architecture zoo") x four workloads, each cell one `ffm map` at the
 * defaults (the full mapspace, objective EDP) on 2 threads:
 *
 *   resnet50, mobilenet-v3, gpt3-6.7b at batch 1 / 2048 tokens, and
 *   llama3-8b for one decode step over 2047 cached tokens.
 *
 * Each cell runs the built `ffm` (FFM_EXE) in a child process and prints
 * its wall time, its CPU time, its peak resident memory, the EDP it found
 * or its error, and how it ended; then a Markdown table of every cell with
 * the ones over the targets (60 s, 4 GiB) marked, and the median time. On
 * a machine shared with other work the wall time says little, so a cell is
 * stopped by its CPU time (RLIMIT_CPU: FFM_BENCH_ZOO_CPU_SECONDS, default
 * 240, 120 s on each of 2 threads), and "over 60 s" counts a cell whose
 * wall time or whose CPU time divided by the threads passes 60 s (the
 * wall time it would take at least on an idle machine); every cell runs
 * under --max-memory FFM_BENCH_ZOO_MAX_MEMORY
 * (default 6G) so that the benchmark cannot take the machine. The
 * benchmark fails when a cell ends by a signal it did not send (an abort,
 * a crash): ffm must end every cell with a mapping or a clear error.
 *
 * FFM_BENCH_ZOO_ARCHS and FFM_BENCH_ZOO_WORKLOADS (comma-separated names)
 * run a part; FFM_BENCH_THREADS (default 2). Run with
 * `meson test -C BUILD --benchmark --suite bench zoo` or directly. */
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

/* The zoo: every architecture it adds to the shipped ones. */
static const char *const zoo[] = {
  "timeloop-eyeriss-like", "timeloop-simba-like", "timeloop-simple-os",
  "timeloop-simple-ws", "eyeriss-v1", "eyeriss-v2", "gemmini", "tpu-v1",
  "shidiannao", "systolic-os", "systolic-ws", "maeri-like", "nvdla-small",
  "nvdla-large", NULL,
};

static const struct {
  const char *workload;
  const char *label;
  const char *const params[4];
} workloads[] = {
  { "resnet50", "ResNet-50", { NULL } },
  { "mobilenet-v3", "MobileNet-V3", { NULL } },
  { "gpt3-6.7b", "GPT-3 6.7B b1/2048", { "batch=1", "new_tokens=2048", NULL } },
  { "llama3-8b", "Llama-3 8B decode", { "decode=true", "new_tokens=1", "cached_tokens=2047", NULL } },
};

typedef struct {
  double wall;              /* s */
  double cpu;               /* s, user + system */
  double peak_gib;
  int status;               /* exit status, or -signal */
  gboolean killed;          /* at the deadline */
  double edp, energy, latency;
  gboolean proven;
  char *error;              /* the last line of stderr when it failed */
} Cell;

static guint
env_uint (const char *name, guint fallback)
{
  const char *v = g_getenv (name);

  return v != NULL && *v != '\0' ? (guint) g_ascii_strtoull (v, NULL, 10) : fallback;
}

static gboolean
wanted (const char *list_env, const char *name)
{
  const char *list = g_getenv (list_env);
  g_auto (GStrv) names = NULL;

  if (list == NULL || *list == '\0')
    return TRUE;
  names = g_strsplit (list, ",", -1);
  return g_strv_contains ((const char *const *) names, name);
}

/* Runs `ffm map` on one cell, killing it (its whole process group) at
 * @seconds. */
static void
run_cell (Cell *cell, const char *arch, guint w, guint threads, guint cpu_seconds,
          const char *max_memory, const char *dir)
{
  const char *exe = g_getenv ("FFM_EXE");
  g_autofree char *json = g_build_filename (dir, "result.json", NULL);
  g_autofree char *err = g_build_filename (dir, "stderr.txt", NULL);
  g_autofree char *threads_s = g_strdup_printf ("%u", threads);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  /* a backstop: a cell waiting for ever uses no CPU */
  gint64 start = g_get_monotonic_time (), deadline = start + (gint64) cpu_seconds * 10 * G_USEC_PER_SEC;
  struct rusage ru;
  int wstatus = 0;
  pid_t pid;

  g_ptr_array_add (argv, (gpointer) (exe != NULL ? exe : "ffm"));
  g_ptr_array_add (argv, "map");
  g_ptr_array_add (argv, "--arch");
  g_ptr_array_add (argv, (gpointer) arch);
  g_ptr_array_add (argv, "--workload");
  g_ptr_array_add (argv, (gpointer) workloads[w].workload);
  for (guint i = 0; workloads[w].params[i] != NULL; i++)
    {
      g_ptr_array_add (argv, "--param");
      g_ptr_array_add (argv, (gpointer) workloads[w].params[i]);
    }
  g_ptr_array_add (argv, "--threads");
  g_ptr_array_add (argv, threads_s);
  g_ptr_array_add (argv, "--max-memory");
  g_ptr_array_add (argv, (gpointer) max_memory);
  g_ptr_array_add (argv, "--quiet");
  g_ptr_array_add (argv, "--json");
  g_ptr_array_add (argv, json);
  g_ptr_array_add (argv, NULL);
  g_unlink (json);

  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    {
      int fd = open (err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int null = open ("/dev/null", O_RDWR);
      struct rlimit cpu = { cpu_seconds, cpu_seconds + 5 };
      setpgid (0, 0);
      setrlimit (RLIMIT_CPU, &cpu);
      dup2 (null, 0);
      dup2 (null, 1);
      dup2 (fd, 2);
      execv ((const char *) argv->pdata[0], (char **) argv->pdata);
      _exit (127);
    }
  for (;;)
    {
      pid_t done = wait4 (pid, &wstatus, WNOHANG, &ru);
      if (done == pid)
        break;
      if (g_get_monotonic_time () > deadline && !cell->killed)
        {
          kill (-pid, SIGKILL);
          cell->killed = TRUE;
        }
      g_usleep (20000);
    }
  cell->wall = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  cell->peak_gib = (double) ru.ru_maxrss / (1024.0 * 1024.0);
  cell->cpu = (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6
    + (double) ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  cell->status = WIFEXITED (wstatus) ? WEXITSTATUS (wstatus)
    : WIFSIGNALED (wstatus) ? -WTERMSIG (wstatus) : -1;
  /* stopped at its CPU limit: as killed at the deadline */
  if (cell->status == -SIGXCPU || cell->status == -SIGKILL)
    cell->killed = TRUE;
  if (cell->status == 0)
    {
      g_autoptr (JsonParser) parser = json_parser_new ();
      if (json_parser_load_from_file (parser, json, NULL))
        {
          JsonObject *o = json_node_get_object (json_parser_get_root (parser));
          cell->edp = json_object_get_double_member_with_default (o, "edp_js", 0);
          cell->energy = json_object_get_double_member_with_default (o, "energy_j", 0);
          cell->latency = json_object_get_double_member_with_default (o, "latency_s", 0);
          cell->proven = json_object_get_boolean_member_with_default (o, "proven_optimal", FALSE);
        }
    }
  else if (!cell->killed)
    {
      g_autofree char *text = NULL;
      if (g_file_get_contents (err, &text, NULL, NULL))
        {
          g_auto (GStrv) lines = g_strsplit (g_strstrip (text), "\n", -1);
          guint n = g_strv_length (lines);
          /* the first line is the message; a note may follow */
          cell->error = g_strdup (n > 0 ? lines[0] : "");
        }
    }
  g_unlink (err);
  g_unlink (json);
}

/* Over the targets: stopped, 4 GiB, or 60 s of wall time that CPU time
 * over the threads confirms (a loaded machine stretches wall time). */
#define OVER(c) ((c)->killed || (c)->peak_gib > 4 \
                 || MIN ((c)->wall, (c)->cpu / threads) > 60)

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

int
main (void)
{
  guint threads = env_uint ("FFM_BENCH_THREADS", 2);
  guint seconds = env_uint ("FFM_BENCH_ZOO_CPU_SECONDS", 240);
  const char *max_memory = g_getenv ("FFM_BENCH_ZOO_MAX_MEMORY");
  guint n_arch = g_strv_length ((char **) zoo), n_w = G_N_ELEMENTS (workloads);
  g_autofree Cell *cells = g_new0 (Cell, (gsize) n_arch * n_w);
  g_autofree char *dir = g_dir_make_tmp ("ffm-bench-zoo-XXXXXX", NULL);
  g_autoptr (GArray) walls = g_array_new (FALSE, FALSE, sizeof (double));
  guint n_run = 0, n_over = 0, n_abort = 0, n_error = 0;

  setvbuf (stdout, NULL, _IOLBF, 0);
  if (max_memory == NULL || *max_memory == '\0')
    max_memory = "6G";
  printf ("The zoo x 4 workloads: ffm map at the defaults, EDP, %u threads, "
          "stopped after %u s of CPU, --max-memory %s\n\n", threads, seconds, max_memory);
  for (guint a = 0; a < n_arch; a++)
    for (guint w = 0; w < n_w; w++)
      {
        Cell *c = &cells[a * n_w + w];
        c->status = -1000;   /* not run */
        if (!wanted ("FFM_BENCH_ZOO_ARCHS", zoo[a])
            || !wanted ("FFM_BENCH_ZOO_WORKLOADS", workloads[w].workload))
          continue;
        printf ("%s x %s: ", zoo[a], workloads[w].label);
        run_cell (c, zoo[a], w, threads, seconds, max_memory, dir);
        n_run++;
        {
          /* the time it takes at least, idle: its CPU over the threads */
          double t = MIN (c->wall, c->cpu / threads);
          g_array_append_val (walls, t);
        }
        if (c->killed)
          printf ("stopped at %.0f s of CPU (%.1f s wall), peak %.2f GiB\n", c->cpu, c->wall,
                  c->peak_gib);
        else if (c->status == 0)
          printf ("%.1f s wall, %.1f s CPU, peak %.2f GiB, EDP %.4g J*s (energy %.4g J, "
                  "latency %.4g s)%s\n", c->wall, c->cpu, c->peak_gib, c->edp, c->energy,
                  c->latency, c->proven ? "" : ", NOT PROVEN OPTIMAL");
        else if (c->status < 0)
          printf ("ENDED BY SIGNAL %d after %.1f s, peak %.2f GiB\n", -c->status, c->wall,
                  c->peak_gib);
        else
          printf ("exit %d after %.1f s wall, %.1f s CPU, peak %.2f GiB: %s\n", c->status,
                  c->wall, c->cpu, c->peak_gib, c->error != NULL ? c->error : "");
        if (c->status < 0 && !c->killed)
          n_abort++;
        else if (c->status > 0)
          n_error++;
        if (OVER (c))
          n_over++;
      }

  printf ("\n| architecture |");
  for (guint w = 0; w < n_w; w++)
    printf (" %s |", workloads[w].label);
  printf ("\n|---|");
  for (guint w = 0; w < n_w; w++)
    printf ("---|");
  printf ("\n");
  for (guint a = 0; a < n_arch; a++)
    {
      gboolean any = FALSE;
      for (guint w = 0; w < n_w; w++)
        any |= cells[a * n_w + w].status != -1000;
      if (!any)
        continue;
      printf ("| `%s` |", zoo[a]);
      for (guint w = 0; w < n_w; w++)
        {
          const Cell *c = &cells[a * n_w + w];
          gboolean over = OVER (c);
          const char *mark = over ? "**" : "";
          if (c->status == -1000)
            printf (" - |");
          else if (c->killed)
            printf (" **> %u s CPU** (stopped), %.2f GiB |", seconds, c->peak_gib);
          else if (c->status == 0)
            printf (" %s%.1f s (%.0f s CPU), %.2f GiB%s, EDP %.3g%s |", mark, c->wall, c->cpu,
                    c->peak_gib, mark, c->edp, c->proven ? "" : " (not proven)");
          else if (c->status < 0)
            printf (" **signal %d** after %.1f s |", -c->status, c->wall);
          else
            printf (" %s%.1f s (%.0f s CPU), %.2f GiB%s, error: %s |", mark, c->wall, c->cpu,
                    c->peak_gib, mark, c->error != NULL ? c->error : "?");
        }
      printf ("\n");
    }
  if (walls->len > 0)
    {
      double median;
      g_array_sort (walls, compare_doubles);
      median = walls->len % 2 == 1 ? g_array_index (walls, double, walls->len / 2)
        : (g_array_index (walls, double, walls->len / 2 - 1)
           + g_array_index (walls, double, walls->len / 2)) / 2;
      printf ("\nzoo: %u cells, %u over 60 s or 4 GiB (stopped ones included), %u errors, "
              "%u ended by a signal; median time %.1f s (the least of wall and CPU / "
              "threads; target 5 s)\n",
              n_run, n_over, n_error, n_abort, median);
    }
  for (guint i = 0; i < n_arch * n_w; i++)
    g_free (cells[i].error);
  g_rmdir (dir);
  return n_abort > 0 ? 1 : 0;
}
