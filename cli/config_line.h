/* SPDX-License-Identifier: GPL-2.0 */
/* config_line.h - the one grammar of an rxe.conf line, shared by the reader (config.c) and the editor (config_edit.c). */
#ifndef RXECTL_CONFIG_LINE_H
#define RXECTL_CONFIG_LINE_H

#include <stdbool.h>
#include <stddef.h>

/* Longest line (without its '\n') and largest file rxe.conf(5) accepts. */
#define RXE_CONF_LINE_MAX 1024
#define RXE_CONF_FILE_MAX (1024 * 1024)

enum conf_line_kind {
	CONF_LINE_BLANK,	/* only white space */
	CONF_LINE_COMMENT,	/* first non-blank character is '#' or ';' */
	CONF_LINE_SECTION,	/* "[NAME]", then an optional comment */
	CONF_LINE_KEY,		/* "KEY = VALUE", then an optional comment */
	CONF_LINE_BAD,		/* anything else: `why` says what is wrong */
};

struct conf_line {
	enum conf_line_kind kind;
	const char *name;	/* SECTION: the name; KEY: the key (not NUL-terminated) */
	size_t name_len;
	const char *value;	/* KEY: the value without white space around it or a comment */
	size_t value_len;
	const char *why;	/* BAD: a sentence fragment, e.g. "a key must be followed by '='" */
};

/*
 * Classify one line: `s` points at its first byte and `len` excludes the '\n'.  `first` is true
 * for the first line of the file (a UTF-8 byte order mark is skipped there).  The grammar is in
 * rxe.conf(5) under CONFIGURATION FILE FORMAT:
 *
 *   line    = blank | comment | section | key
 *   comment = WS* ('#' | ';') ANY*
 *   section = WS* '[' WS* NAME WS* ']' WS* [ ('#' | ';') ANY* ]
 *   key     = WS* KEY WS* '=' WS* VALUE WS* [ WS ('#' | ';') ANY* ]
 *   KEY     = 1*(letter | digit | '_' | '-')
 *   NAME    = 1*(any byte but white space, '[' and ']')
 *   VALUE   = any bytes; it ends before white space followed by '#' or ';'
 *
 * Lines are never continued on the next one; NUL bytes and lines longer than RXE_CONF_LINE_MAX
 * are BAD.  What a NAME or VALUE may contain is checked by the reader (names.c).
 */
void config_line_classify(const char *s, size_t len, bool first, struct conf_line *out);

/* Does the KEY or SECTION line's name equal `str`? */
bool config_line_name_is(const struct conf_line *ln, const char *str);

#endif
