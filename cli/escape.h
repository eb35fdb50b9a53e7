/* SPDX-License-Identifier: GPL-2.0 */
/* escape.h - make untrusted text (from the network, files, the command line) safe to print on a terminal. */
#ifndef RXECTL_ESCAPE_H
#define RXECTL_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Copy `s` to `buf` with every control character (bytes 0x00-0x1f and 0x7f, including
 * newline, tab and ESC) written as \xNN, so a string cannot move the cursor, recolour the
 * terminal or fake a line of output.  Backslashes pass (systemd unit names hold \x2d), as
 * do bytes >= 0x80 (UTF-8).  The result is cut to fit `len` (which must be > 0); returns `buf`.
 */
char *str_escape(const char *s, char *buf, size_t len);

/* Is there anything str_escape() would change? */
int str_needs_escape(const char *s);

/*
 * Write text made by rxectl (which may hold untrusted strings) to `fp`: its newlines and tabs
 * are layout and pass; every other control character is written as \xNN.  out_text() prints
 * through it, so no caller can forget to escape a name or a peer's string it formats in.
 */
void fputs_escaped_text(const char *s, FILE *fp);

#endif
