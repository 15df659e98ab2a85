/* json-strict.h: a strict JSON (RFC 8259) checker for the tests.
 *
 * json-glib reads NaN-free JSON leniently (it takes "1e-08.0" back); the
 * rule is that every JSON ffm writes passes a strict parser. This one
 * refuses anything RFC 8259 does not allow, and one thing it allows:
 * numbers other than -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
 * (so NaN, Infinity, inf.0, 1e-08.0, 01), control characters and bad
 * escapes in strings, invalid UTF-8, trailing commas, trailing text, and
 * (stricter than the RFC) duplicate keys in an object. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TRUE if @text (NUL-terminated) is one strict JSON value; otherwise FALSE
 * with *@message (transfer full) saying where and why. */
gboolean json_strict_check (const char *text, char **message);

/* Asserts json_strict_check(), naming @what (a command, a file) on failure. */
void json_strict_assert (const char *text, const char *what);

G_END_DECLS
