/* ffm-sweep-csv.h: the rows of `ffm sweep` as CSV, out and back in.
 *
 * A sweep writes one CSV row per point and policy as the point finishes
 * and reads the rows back to resume (and, under MPI, to take the rows the
 * other ranks send). The reader is the part that meets a user's file, so
 * it lives here on its own: ffm_sweep_rows_from_text() is what the
 * libFuzzer target tests/fuzz/fuzz-sweep-csv.c drives. */
#pragma once

#include <ffm/ffm.h>

G_BEGIN_DECLS

/* One swept parameter. */
typedef struct {
  char *name;                   /* as given */
  gboolean arch;                /* --sweep-arch */
  GStrv values;
} Axis;

typedef struct {
  guint index;                  /* in point order */
  const char *policy;           /* "ffm" or a policy name (borrowed) */
  GStrv values;                 /* one per axis (owned) */
  char *key;                    /* policy and values, for resuming (owned) */
  /* the row: */
  gboolean done;
  gboolean ok;
  double energy, latency, edp, seconds;
  double area;                  /* m^2 of the point's architecture */
  char *fused;                  /* "T1@GlobalBuffer;T2@MainMemory" (owned) */
  char *level_energy;           /* "MainMemory=1e-3;GlobalBuffer=..." (owned) */
  char *class_energy;           /* "weights=...;intermediates_kv=..." (owned) */
  char *offchip_class_energy;   /* the same in the outermost memory only (owned) */
  char *einsums;                /* "I;V;K;...", workload order (owned) */
  char *fused_einsums;          /* "Q>QK@GlobalBuffer;..." (owned) */
  char *error;                  /* failed: the message (owned) */
  char *line;                   /* the CSV line, without newline (owned) */
  /* the work: */
  FfmProblem *problem;          /* NULL when it did not load (error set) */
  FfmConstraints *constraints;  /* the policy's and the options' (owned) */
} Point;

void ffm_sweep_point_free (Point *p);
void ffm_sweep_axis_clear (Axis *a);

/* Appends @text (NULL: an empty field) to @line as one CSV field, quoted
 * when it needs to be, after a comma unless @line is empty. */
void ffm_sweep_csv_field (GString *line, const char *text);
/* @v with 17 digits, or an empty field when not @have. */
void ffm_sweep_csv_double (GString *line, gboolean have, double v);
/* Splits one CSV record of @text at *@pos into fields (quotes as written by
 * ffm_sweep_csv_field(); a quoted field may hold newlines); advances *@pos
 * past it. NULL at the end of the text. (transfer full) */
GPtrArray *ffm_sweep_csv_record (const char *text, gsize *pos);
/* The header row for @axes (of Axis) (transfer full). */
char *ffm_sweep_csv_header (const GArray *axes);
/* The key a point is found by when resuming (transfer full). */
char *ffm_sweep_point_key (const char *policy, char **values);
/* The most seconds a row may give for a point (a year and more): the
 * column is written "%.3f", in full. */
#define FFM_SWEEP_MAX_SECONDS 1e9

/* Reads a number field (C locale): FALSE for an empty or partly numeric
 * field. */
gboolean ffm_sweep_parse_double (const char *text, double *out);
/* Sets @p's line from its fields. */
void ffm_sweep_point_make_line (Point *p);
/* Reads the rows of @text (CSV of @length bytes from @path: a previous
 * run's file, or a row another MPI rank sent) into the points (of Point*)
 * they match, counting them in *@n_resumed. FALSE when the text is not
 * this sweep's (other columns, a row that is no point of it) or a row is
 * malformed. */
gboolean ffm_sweep_rows_from_text (const char *path, const char *text, gsize length,
                                   const GArray *axes, GPtrArray *points,
                                   guint *n_resumed, GError **error);

G_END_DECLS
