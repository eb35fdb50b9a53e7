// SPDX-License-Identifier: GPL-2.0
/* escape.c - control characters in untrusted text written as \xNN before it reaches a terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int str_needs_escape(const char *s)
{
	for (; s && *s; s++)
		if (is_control((unsigned char)*s))
			return 1;
	return 0;
}

char *str_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		char tmp[5];
		size_t n;

		if (is_control(c))
			n = (size_t)snprintf(tmp, sizeof(tmp), "\\x%02x", c);
		else
			tmp[0] = (char)c, n = 1;
		if (o + n >= len)
			break;
		memcpy(buf + o, tmp, n);
		o += n;
	}
	buf[o] = '\0';
	return buf;
}

void fputs_escaped_text(const char *s, FILE *fp)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (is_control(c) && c != '\n' && c != '\t')
			fprintf(fp, "\\x%02x", c);
		else
			putc(c, fp);
	}
}

/* Length of the valid UTF-8 sequence at `s` (1-4), or 0: overlong forms, surrogates and code
 * points above U+10FFFF are not valid (RFC 3629). */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned int lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

int str_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (p && *p) {
		size_t n = utf8_seq(p);

		if (!n)
			return 0;
		p += n;
	}
	return 1;
}

char *str_utf8_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(strlen(s) * 4 + 1), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t n = utf8_seq(p);

		if (n) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			o += sprintf(o, "\\x%02x", *p++);
		}
	}
	*o = '\0';
	return out;
}
