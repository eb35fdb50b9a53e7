// SPDX-License-Identifier: GPL-2.0
/* config.c - parse /etc/rxe/rxe.conf with inih: [NETDEV] sections, `name =` keys, errors with file:line. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ini.h>

#include "config.h"
#include "log.h"
#include "names.h"

struct parse_state {
	/* input: exactly one of these */
	FILE *file;
	const char *text;
	const char *label;

	unsigned int line;		/* line of the chunk the reader returned last */
	bool at_line_start;

	struct rxe_conf_entry *entries;
	size_t n, cap;
	bool *name_set;			/* per entry: `name =` seen */

	unsigned int err_line;		/* first error found by us (0: none) */
	char err[512];
};

/* Keys of a [NETDEV] section.  Add new keys here and to rxe.conf(5). */
struct conf_key {
	const char *key;
	const char *(*set)(struct rxe_conf_entry *e, const char *value);
};

static const char *set_name(struct rxe_conf_entry *e, const char *value)
{
	const char *why = ibdev_name_invalid(value);

	if (why)
		return why;
	snprintf(e->name, sizeof(e->name), "%s", value);
	return NULL;
}

static const struct conf_key conf_keys[] = {
	{ "name", set_name },
};

#define N_KEYS (sizeof(conf_keys) / sizeof(conf_keys[0]))

static void set_error(struct parse_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_error(struct parse_state *st, const char *fmt, ...)
{
	va_list ap;

	if (st->err_line)
		return;		/* keep the first */
	st->err_line = st->line ? st->line : 1;
	va_start(ap, fmt);
	vsnprintf(st->err, sizeof(st->err), fmt, ap);
	va_end(ap);
}

static struct rxe_conf_entry *find_entry(struct parse_state *st, const char *netdev, size_t *idx)
{
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->entries[i].netdev, netdev)) {
			if (idx)
				*idx = i;
			return &st->entries[i];
		}
	return NULL;
}

/* A "[NETDEV]" line, seen by the reader (inih does not report empty sections). */
static void add_section(struct parse_state *st, const char *name)
{
	const struct rxe_conf_entry *dup = find_entry(st, name, NULL);
	const char *why = netdev_name_invalid(name);
	struct rxe_conf_entry *e;

	if (why) {
		set_error(st, "section [%s]: netdev name '%s' %s.", name, name, why);
		return;
	}
	if (dup) {
		set_error(st, "netdev %s is declared twice (first at line %u); merge the two sections.",
			  name, dup->line);
		return;
	}
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 8;
		void *p = realloc(st->entries, cap * sizeof(*st->entries));
		void *q = realloc(st->name_set, cap * sizeof(*st->name_set));

		if (p)
			st->entries = p;
		if (q)
			st->name_set = q;
		if (!p || !q) {
			set_error(st, "out of memory.");
			return;
		}
		st->cap = cap;
	}
	e = &st->entries[st->n];
	st->name_set[st->n] = false;
	st->n++;
	memset(e, 0, sizeof(*e));
	memcpy(e->netdev, name, strnlen(name, sizeof(e->netdev) - 1));	/* validated: fits */
	default_ibdev_name(name, e->name, sizeof(e->name));
	e->line = st->line;
}

static void scan_section_header(struct parse_state *st, const char *s)
{
	const char *end;
	char name[64];
	size_t len;

	while (isspace((unsigned char)*s))
		s++;
	if (st->line == 1 && !strncmp(s, "\xEF\xBB\xBF", 3))
		s += 3;
	if (*s != '[')
		return;
	end = strchr(s, ']');
	if (!end)
		return;		/* inih reports it as a syntax error */
	s++;
	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	len = (size_t)(end - s);
	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, s, len);
	name[len] = '\0';
	add_section(st, name);
}

static char *reader(char *str, int num, void *stream)
{
	struct parse_state *st = stream;
	char *ret;

	if (st->file) {
		ret = fgets(str, num, st->file);
	} else {
		size_t n = 0;

		if (!*st->text)
			return NULL;
		while (st->text[n] && st->text[n] != '\n' && n + 2 < (size_t)num)
			n++;
		if (st->text[n] == '\n')
			n++;
		memcpy(str, st->text, n);
		str[n] = '\0';
		st->text += n;
		ret = str;
	}
	if (!ret)
		return NULL;
	if (st->at_line_start) {
		st->line++;
		scan_section_header(st, str);
	}
	st->at_line_start = strchr(str, '\n') != NULL;
	return ret;
}

static int handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse_state *st = user;
	struct rxe_conf_entry *e;
	size_t idx = 0;

	if (!section || !*section) {
		set_error(st, "key '%s' appears before any [NETDEV] section; put it under the "
			  "netdev it belongs to, e.g. [eth0].", key);
		return 0;
	}
	e = find_entry(st, section, &idx);
	if (!e)
		return 0;	/* the section header was invalid: already reported */
	for (size_t i = 0; i < N_KEYS; i++) {
		const char *why;

		if (strcmp(key, conf_keys[i].key))
			continue;
		if (!strcmp(key, "name")) {
			if (st->name_set[idx]) {
				set_error(st, "key 'name' is set twice in [%s]; keep one.", section);
				return 0;
			}
			st->name_set[idx] = true;
		}
		why = conf_keys[i].set(e, value);
		if (why) {
			set_error(st, "in [%s], %s '%s' %s.", section, key, value, why);
			return 0;
		}
		return 1;
	}
	set_error(st, "unknown key '%s' in [%s]; the only key rxe.conf(5) knows is 'name'.",
		  key, section);
	return 0;
}

static int finish(struct parse_state *st, int ret, struct rxe_conf *conf)
{
	const char *label = st->label;

	free(st->name_set);
	if (ret == -2) {
		free(st->entries);
		log_msg(LOG_ERR, "%s: out of memory while reading the configuration.", label);
		return -ENOMEM;
	}
	if (ret > 0 && (!st->err_line || (unsigned int)ret < st->err_line)) {
		free(st->entries);
		log_msg(LOG_ERR, "%s:%d: this line is neither a [NETDEV] section header nor a "
			"'key = value' pair; see rxe.conf(5).", label, ret);
		return -EINVAL;
	}
	if (st->err_line) {
		free(st->entries);
		log_msg(LOG_ERR, "%s:%u: %s", label, st->err_line, st->err);
		return -EINVAL;
	}
	/* Two netdevs may not ask for the same device name. */
	for (size_t i = 0; i < st->n; i++)
		for (size_t j = i + 1; j < st->n; j++)
			if (!strcmp(st->entries[i].name, st->entries[j].name)) {
				log_msg(LOG_ERR, "%s:%u: [%s] asks for device name %s, which [%s] "
					"(line %u) already uses; give one of them another name.",
					label, st->entries[j].line, st->entries[j].netdev,
					st->entries[j].name, st->entries[i].netdev,
					st->entries[i].line);
				free(st->entries);
				return -EINVAL;
			}
	conf->entries = st->entries;
	conf->n = st->n;
	conf->path = strdup(label);
	return 0;
}

int config_parse_string(const char *text, const char *label, struct rxe_conf *conf)
{
	struct parse_state st = { .text = text, .label = label, .at_line_start = true };

	memset(conf, 0, sizeof(*conf));
	return finish(&st, ini_parse_stream(reader, &st, handler, &st), conf);
}

int config_load(const char *path, struct rxe_conf *conf)
{
	struct parse_state st = { .label = path, .at_line_start = true };
	int ret;

	memset(conf, 0, sizeof(*conf));
	st.file = fopen(path, "r");
	if (!st.file) {
		int err = errno;

		if (err == ENOENT)
			return -ENOENT;
		log_msg(LOG_ERR, "cannot read %s: %s.", path, strerror(err));
		return -err;
	}
	ret = ini_parse_stream(reader, &st, handler, &st);
	fclose(st.file);
	return finish(&st, ret, conf);
}

void config_free(struct rxe_conf *conf)
{
	free(conf->entries);
	free(conf->path);
	memset(conf, 0, sizeof(*conf));
}

const struct rxe_conf_entry *config_find_netdev(const struct rxe_conf *conf, const char *netdev)
{
	for (size_t i = 0; i < conf->n; i++)
		if (!strcmp(conf->entries[i].netdev, netdev))
			return &conf->entries[i];
	return NULL;
}

const struct rxe_conf_entry *config_find_name(const struct rxe_conf *conf, const char *name)
{
	for (size_t i = 0; i < conf->n; i++)
		if (!strcmp(conf->entries[i].name, name))
			return &conf->entries[i];
	return NULL;
}
