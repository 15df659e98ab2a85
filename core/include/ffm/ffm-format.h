/* ffm-format.h: numbers written for people.
 *
 * What ffm prints in tables and reports, as opposed to what it writes in
 * JSON and CSV (exact: ffm_format_double() in ffm-json-writer.h): a
 * quantity in engineering notation with an SI prefix and its unit
 * ("13.06 kJ", "1.5 ns", "41.94 Mb"), and a count as a whole number with
 * its digits grouped by thousands ("1,806,140"), never as "1.80614e+06".
 * Everything is in the C locale and deterministic. */
#pragma once

#include <glib.h>
#include <ffm/ffm-version.h>

G_BEGIN_DECLS

/* @value with an SI prefix (a, f, p, n, u, m, k, M, G, T, P, E) chosen so
 * that the number is in [1, 1000), four significant digits, a space, then
 * the prefix and @unit: "13.06 kJ", "250 ps". 0 reads "0 J"; infinities
 * and NaN read "inf J", "-inf J", "nan J". (transfer full) */
FFM_API char *ffm_format_si (double value, const char *unit);

/* An area given in m^2, written in mm^2 with four significant digits
 * ("3.214 mm^2"): square metres take no SI prefix. (transfer full) */
FFM_API char *ffm_format_area (double square_metres);

/* @count with its digits grouped by thousands: "1,806,140". (transfer
 * full) */
FFM_API char *ffm_format_count (guint64 count);

/* A double that counts something (actions, values): as ffm_format_count()
 * when it is a whole number below 2^53, else in engineering notation
 * without a unit ("1.806 G"). (transfer full) */
FFM_API char *ffm_format_amount (double amount);

/* A memory size in binary units with one decimal and a plain space:
 * "512 B", "16.0 KiB", "7.5 GiB". (transfer full) */
FFM_API char *ffm_format_bytes (guint64 bytes);

G_END_DECLS
