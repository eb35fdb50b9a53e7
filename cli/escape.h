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

/*
 * JSON must be UTF-8, and bytes from a config file, the command line or a peer need not be:
 * str_utf8_valid() says whether `s` is (RFC 3629: no overlong forms, surrogates or code points
 * above U+10FFFF); str_utf8_escape() returns a malloc'd copy with each byte that is not part of
 * a valid sequence written as \xNN (NULL: out of memory).  output.c passes every string of the
 * JSON document through them.
 */
int str_utf8_valid(const char *s);
char *str_utf8_escape(const char *s);

#endif
