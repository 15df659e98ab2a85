/* csv-strict.h: a strict CSV (RFC 4180) checker for the tests.
 *
 * Every CSV ffm writes passes it: valid UTF-8; records separated by LF
 * (ffm's line end; a CR anywhere outside quotes is refused) and a final
 * LF; fields separated by commas; a field that holds a comma, a quote or a
 * line break quoted with double quotes, quotes inside doubled; no quote in
 * an unquoted field and nothing after a closing quote but a comma or the
 * end of the record; a header of unique, non-empty names; every record
 * with as many fields as the header; no empty line. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The records of @text (each a NULL-terminated GStrv, the header first)
 * when it is strict CSV; otherwise NULL with *@message (transfer full)
 * saying where and why. (transfer full: a GPtrArray that frees its
 * rows) */
GPtrArray *csv_strict_parse (const char *text, char **message);

/* Asserts csv_strict_parse() and returns the records, naming @what (a
 * command) on failure. (transfer full) */
GPtrArray *csv_strict_assert (const char *text, const char *what);

/* The index of column @name in @header, or -1. */
int csv_column (const GStrv header, const char *name);

G_END_DECLS
