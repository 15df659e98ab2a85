/* ffm-cli-manpage.h: the manual page ffm(1), generated from the commands'
 * own help texts.
 *
 * `ffm help --man` prints it; the build runs that to make ffm.1 and
 * `meson install` installs it, so the page always lists the options the
 * installed ffm takes. Each command's --help (GLib's option help) is
 * collected without running the command (ffm_cli_help_capture()) and
 * turned into man(7) macros: a SYNOPSIS, a section per command with its
 * summary, options (.TP) and description, then exit status, environment,
 * files (the installed documentation, plugins and data folders) and see
 * also. Text is escaped for roff and kept ASCII (other characters become
 * \[uXXXX]), so groff, mandoc and man-db render it without warnings. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The page, in man(7) format (transfer full). */
char *ffm_cli_manpage_build (void);

G_END_DECLS
