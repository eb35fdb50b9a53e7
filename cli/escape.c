// SPDX-License-Identifier: GPL-2.0
/* escape.c - control characters in untrusted text written as \xNN before it reaches a terminal. */
#include <stdio.h>
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
