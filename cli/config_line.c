// SPDX-License-Identifier: GPL-2.0
/* config_line.c - classify one line of rxe.conf: blank, comment, [section], key = value, or what is wrong with it. */
#include <ctype.h>
#include <string.h>

#include "config_line.h"

/* The white space of the grammar: ' ', '\t', '\r' (a file written on Windows), '\v', '\f'. */
static bool ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool key_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

static void bad(struct conf_line *out, const char *why)
{
	out->kind = CONF_LINE_BAD;
	out->why = why;
}

static void classify_section(const char *s, const char *end, struct conf_line *out)
{
	const char *name, *name_end;

	s++;	/* '[' */
	while (s < end && ws(*s))
		s++;
	name = s;
	while (s < end && !ws(*s) && *s != '[' && *s != ']')
		s++;
	name_end = s;
	while (s < end && ws(*s))
		s++;
	if (s == end)
		return bad(out, "a section header needs a closing ']'");
	if (*s == '[')
		return bad(out, "a section name may not contain '['; write [NETDEV]");
	if (*s != ']')
		return bad(out, "a section name may not contain white space");
	if (name == name_end)
		return bad(out, "a section header needs a netdev name between '[' and ']'");
	s++;
	while (s < end && ws(*s))
		s++;
	if (s < end && *s != '#' && *s != ';')
		return bad(out, "only a comment may follow a section header's ']'");
	out->kind = CONF_LINE_SECTION;
	out->name = name;
	out->name_len = (size_t)(name_end - name);
}

static void classify_key(const char *s, const char *end, struct conf_line *out)
{
	const char *key = s, *v;

	while (s < end && key_char(*s))
		s++;
	if (s == key)
		return bad(out, "this line is neither a [NETDEV] section header nor a "
			   "'key = value' pair");
	out->name = key;
	out->name_len = (size_t)(s - key);
	while (s < end && ws(*s))
		s++;
	if (s == end || *s != '=') {
		if (s < end && *s == ':')
			return bad(out, "a key is followed by '=', not ':'");
		return bad(out, "this line is neither a [NETDEV] section header nor a "
			   "'key = value' pair");
	}
	s++;
	while (s < end && ws(*s))
		s++;
	v = s;
	/* The value ends at a comment: white space, then '#' or ';'. */
	for (const char *c = v; c < end; c++)
		if ((*c == '#' || *c == ';') && c > v && ws(c[-1])) {
			end = c;
			break;
		}
	while (end > v && ws(end[-1]))
		end--;
	out->kind = CONF_LINE_KEY;
	out->value = v;
	out->value_len = (size_t)(end - v);
}

void config_line_classify(const char *s, size_t len, bool first, struct conf_line *out)
{
	const char *end = s + len;

	memset(out, 0, sizeof(*out));
	if (memchr(s, '\0', len))
		return bad(out, "this line contains a NUL byte; rxe.conf is a text file");
	if (len > RXE_CONF_LINE_MAX)
		return bad(out, "this line is longer than 1024 bytes");
	if (first && len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
		s += 3;
	while (s < end && ws(*s))
		s++;
	if (s == end) {
		out->kind = CONF_LINE_BLANK;
		return;
	}
	if (*s == '#' || *s == ';') {
		out->kind = CONF_LINE_COMMENT;
		return;
	}
	if (*s == '[')
		return classify_section(s, end, out);
	classify_key(s, end, out);
}

bool config_line_name_is(const struct conf_line *ln, const char *str)
{
	return (ln->kind == CONF_LINE_SECTION || ln->kind == CONF_LINE_KEY) &&
	       strlen(str) == ln->name_len && !memcmp(ln->name, str, ln->name_len);
}
