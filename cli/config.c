// SPDX-License-Identifier: GPL-2.0
/* config.c - read /etc/rxe/rxe.conf: [NETDEV] sections and their keys, every error with file:line. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config_line.h"
#include "log.h"
#include "names.h"
#include "util.h"

struct parse_state {
	const char *label;
	unsigned int line;		/* line being parsed */

	struct rxe_conf_entry *entries;
	size_t n, cap;
	unsigned int *keys_seen;	/* per entry: bit i set when conf_keys[i] was given */
	struct rxe_conf_entry *cur;	/* the section being read, NULL before the first */
	size_t cur_idx;
	bool in_global;			/* the section being read is [global] */
	unsigned int global_seen;	/* bit i set when global_keys[i] was given */
	struct rxe_conf *conf;		/* where [global]'s values go */

	unsigned int err_line;		/* the first error (0: none) */
	char err[512];
};

/*
 * Keys of a [NETDEV] section.  To add one: a field in struct rxe_conf_entry, a setter here
 * returning NULL or why the value is wrong (a fragment after "VALUE"), a line in rxe.conf(5),
 * and a row in tests/unit/test_config.c's table.  Each key may be given once per section.
 * The setters see the line number for the messages of those who act on the value later.
 */
struct conf_key {
	const char *key;
	const char *(*set)(struct rxe_conf_entry *e, const char *value, unsigned int line);
};

/* Keys of the [global] section, the same way. */
struct global_key {
	const char *key;
	const char *(*set)(struct rxe_conf *c, const char *value);
};

/* A whole decimal number in [min, max], or -1. */
static int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > max)
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static const char *set_mtu(struct rxe_conf_entry *e, const char *value, unsigned int line)
{
	unsigned long v;

	if (parse_uint(value, RXE_CONF_MTU_MIN, RXE_CONF_MTU_MAX, &v) < 0)
		return "is not an MTU: give a whole number of bytes from 576 to 65535 (9000 for "
		       "jumbo frames)";
	e->mtu = (unsigned int)v;
	e->mtu_line = line;
	return NULL;
}

static const char *set_driver(struct rxe_conf *c, const char *value)
{
	if (!strcmp(value, "auto"))
		c->driver = RXE_DRIVER_AUTO;
	else if (!strcmp(value, "kernel") || !strcmp(value, "stock"))
		c->driver = RXE_DRIVER_KERNEL;
	else if (!strcmp(value, "bundled"))
		c->driver = RXE_DRIVER_BUNDLED;
	else
		return "is not a driver: use auto, kernel (or stock) or bundled";
	return NULL;
}

static const char *set_tune(struct rxe_conf *c, const char *value)
{
	if (!strcmp(value, "yes") || !strcmp(value, "true") || !strcmp(value, "1"))
		c->tune = true;
	else if (!strcmp(value, "no") || !strcmp(value, "false") || !strcmp(value, "0"))
		c->tune = false;
	else
		return "is not yes or no";
	return NULL;
}

static const struct global_key global_keys[] = {
	{ "driver", set_driver },
	{ "tune", set_tune },
};

static const char *set_name(struct rxe_conf_entry *e, const char *value, unsigned int line)
{
	const char *why = ibdev_name_invalid(value);

	if (why)
		return why;
	memcpy(e->name, value, strlen(value) + 1);	/* valid: it fits */
	e->name_given = true;
	return NULL;
}

static const struct conf_key conf_keys[] = {
	{ "name", set_name },
	{ "mtu", set_mtu },
};

#define N_KEYS ARRAY_SIZE(conf_keys)

static void set_error(struct parse_state *st, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(struct parse_state *st, unsigned int line, const char *fmt, ...)
{
	va_list ap;

	if (st->err_line)
		return;		/* keep the first */
	st->err_line = line;
	va_start(ap, fmt);
	vsnprintf(st->err, sizeof(st->err), fmt, ap);
	va_end(ap);
}

static struct rxe_conf_entry *find_entry(struct parse_state *st, const char *netdev)
{
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->entries[i].netdev, netdev))
			return &st->entries[i];
	return NULL;
}

/* The section that ends here: without `name =`, its default device name must be valid. */
static void end_section(struct parse_state *st)
{
	const struct rxe_conf_entry *e = st->cur;
	const char *why;

	if (!e || e->name_given)
		return;
	why = ibdev_name_invalid(e->name);
	if (why)
		set_error(st, e->line, "the default device name of [%s], %s, %s; give the section "
			  "a 'name = DEVICE' line.", e->netdev, e->name, why);
}

static void add_section(struct parse_state *st, const char *name)
{
	const struct rxe_conf_entry *dup = find_entry(st, name);
	const char *why = netdev_name_invalid(name);
	struct rxe_conf_entry *e;

	st->cur = NULL;
	st->in_global = false;
	if (!strcmp(name, RXE_CONF_GLOBAL)) {
		if (st->conf->global_line) {
			set_error(st, st->line, "[%s] is there twice (first at line %u); merge the "
				  "two sections.", RXE_CONF_GLOBAL, st->conf->global_line);
			return;
		}
		st->conf->global_line = st->line;
		st->in_global = true;
		return;
	}
	if (why) {
		set_error(st, st->line, "section [%s]: netdev name '%s' %s.", name, name, why);
		return;
	}
	if (dup) {
		set_error(st, st->line, "netdev %s is declared twice (first at line %u); merge the "
			  "two sections.", name, dup->line);
		return;
	}
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 8;
		void *p = realloc(st->entries, cap * sizeof(*st->entries));
		void *q = p ? realloc(st->keys_seen, cap * sizeof(*st->keys_seen)) : NULL;

		if (p)
			st->entries = p;
		if (q)
			st->keys_seen = q;
		if (!p || !q) {
			set_error(st, st->line, "out of memory.");
			return;
		}
		st->cap = cap;
	}
	st->cur_idx = st->n;
	e = st->cur = &st->entries[st->n];
	st->keys_seen[st->n] = 0;
	st->n++;
	memset(e, 0, sizeof(*e));
	memcpy(e->netdev, name, strlen(name));		/* validated: fits */
	default_ibdev_name(name, e->name, sizeof(e->name));	/* checked at end_section() */
	e->line = st->line;
}

static void add_global_key(struct parse_state *st, const char *key, const char *value)
{
	const char *why;

	for (size_t i = 0; i < ARRAY_SIZE(global_keys); i++) {
		if (strcmp(key, global_keys[i].key))
			continue;
		if (st->global_seen & (1u << i)) {
			set_error(st, st->line, "key '%s' is set twice in [%s]; keep one.", key,
				  RXE_CONF_GLOBAL);
			return;
		}
		st->global_seen |= 1u << i;
		why = global_keys[i].set(st->conf, value);
		if (why)
			set_error(st, st->line, "in [%s], %s '%s' %s.", RXE_CONF_GLOBAL, key, value,
				  why);
		return;
	}
	for (size_t i = 0; i < N_KEYS; i++)
		if (!strcmp(key, conf_keys[i].key)) {
			set_error(st, st->line, "key '%s' belongs in a [NETDEV] section, not in [%s].",
				  key, RXE_CONF_GLOBAL);
			return;
		}
	set_error(st, st->line, "unknown key '%s' in [%s]; it knows 'driver' and 'tune' "
		  "(rxe.conf(5)).", key, RXE_CONF_GLOBAL);
}

static void add_key(struct parse_state *st, const char *key, const char *value)
{
	struct rxe_conf_entry *e = st->cur;
	const char *why;

	if (st->in_global) {
		add_global_key(st, key, value);
		return;
	}
	if (!st->n && !st->conf->global_line) {
		set_error(st, st->line, "key '%s' appears before any [NETDEV] section; put it under "
			  "the netdev it belongs to, e.g. [eth0].", key);
		return;
	}
	if (!e)
		return;	/* the section header was invalid: already reported */
	for (size_t i = 0; i < N_KEYS; i++) {
		if (strcmp(key, conf_keys[i].key))
			continue;
		if (st->keys_seen[st->cur_idx] & (1u << i)) {
			set_error(st, st->line, "key '%s' is set twice in [%s]; keep one.", key,
				  e->netdev);
			return;
		}
		st->keys_seen[st->cur_idx] |= 1u << i;
		why = conf_keys[i].set(e, value, st->line);
		if (why)
			set_error(st, st->line, "in [%s], %s '%s' %s.", e->netdev, key, value, why);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(global_keys); i++)
		if (!strcmp(key, global_keys[i].key)) {
			set_error(st, st->line, "key '%s' belongs in the [%s] section, not in [%s].",
				  key, RXE_CONF_GLOBAL, e->netdev);
			return;
		}
	set_error(st, st->line, "unknown key '%s' in [%s]; a netdev section knows 'name' and "
		  "'mtu' (rxe.conf(5)).", key, e->netdev);
}

/* A line's NAME or VALUE as a C string, cut (harmlessly: the validators reject it) at 255. */
static void copy_token(char *dst, size_t size, const char *s, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

static void parse_line(struct parse_state *st, const char *s, size_t len)
{
	char name[256], value[RXE_CONF_LINE_MAX + 1];
	struct conf_line ln;

	config_line_classify(s, len, st->line == 1, &ln);
	switch (ln.kind) {
	case CONF_LINE_BLANK:
	case CONF_LINE_COMMENT:
		break;
	case CONF_LINE_BAD:
		set_error(st, st->line, "%s; see rxe.conf(5).", ln.why);
		break;
	case CONF_LINE_SECTION:
		end_section(st);
		copy_token(name, sizeof(name), ln.name, ln.name_len);
		add_section(st, name);
		break;
	case CONF_LINE_KEY:
		copy_token(name, sizeof(name), ln.name, ln.name_len);
		copy_token(value, sizeof(value), ln.value, ln.value_len);
		add_key(st, name, value);
		break;
	}
}

int config_parse_buf(const char *text, size_t len, const char *label, struct rxe_conf *conf)
{
	struct parse_state st = { .label = label, .conf = conf };
	const char *p = text, *end = text + len;

	memset(conf, 0, sizeof(*conf));
	while (p < end && !st.err_line) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		st.line++;
		parse_line(&st, p, n);
		p += n + (nl != NULL);
	}
	end_section(&st);
	free(st.keys_seen);
	if (st.err_line) {
		free(st.entries);
		memset(conf, 0, sizeof(*conf));
		log_msg(LOG_ERR, "%s:%u: %s", label, st.err_line, st.err);
		return -EINVAL;
	}
	/* Two netdevs may not ask for the same device name. */
	for (size_t i = 0; i < st.n; i++)
		for (size_t j = i + 1; j < st.n; j++)
			if (!strcmp(st.entries[i].name, st.entries[j].name)) {
				log_msg(LOG_ERR, "%s:%u: [%s] asks for device name %s, which [%s] "
					"(line %u) already uses; give one of them another name.",
					label, st.entries[j].line, st.entries[j].netdev,
					st.entries[j].name, st.entries[i].netdev,
					st.entries[i].line);
				free(st.entries);
				memset(conf, 0, sizeof(*conf));
				return -EINVAL;
			}
	conf->entries = st.entries;
	conf->n = st.n;
	conf->path = strdup(label);
	if (!conf->path) {
		config_free(conf);
		log_msg(LOG_ERR, "%s: out of memory while reading the configuration.", label);
		return -ENOMEM;
	}
	return 0;
}

int config_parse_string(const char *text, const char *label, struct rxe_conf *conf)
{
	return config_parse_buf(text, strlen(text), label, conf);
}

int config_read_text(const char *path, char **text, size_t *len)
{
	size_t size = 0, cap = 4096;
	struct stat st;
	char *buf;
	int fd, err = 0;

	/* O_NONBLOCK: opening a FIFO with no writer must not hang every command. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -ESPIPE;
	}
	buf = malloc(cap + 1);
	while (buf) {
		ssize_t got;

		if (size == cap && cap >= RXE_CONF_FILE_MAX) {
			/* exactly the limit is fine: one more byte is not (buf has room for it) */
			do
				got = read(fd, buf + size, 1);
			while (got < 0 && errno == EINTR);
			err = got > 0 ? -EFBIG : got < 0 ? -errno : 0;
			break;
		}
		if (size == cap) {
			char *q = realloc(buf, cap * 2 + 1);

			if (!q) {
				err = -ENOMEM;
				break;
			}
			buf = q;
			cap *= 2;
		}
		got = read(fd, buf + size, cap - size);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			break;
		}
		if (got == 0)
			break;
		size += (size_t)got;
	}
	close(fd);
	if (!buf)
		return -ENOMEM;
	if (err) {
		free(buf);
		return err;
	}
	buf[size] = '\0';
	*text = buf;
	*len = size;
	return 0;
}

void config_report_read_error(const char *path, int err)
{
	if (err == -EFBIG)
		log_msg(LOG_ERR, "cannot read %s: it is larger than 1 MiB, which no rxe.conf needs; "
			"check the path.", path);
	else if (err == -EISDIR)
		log_msg(LOG_ERR, "cannot read %s: it is a directory; name the file itself "
			"(e.g. %s/rxe.conf).", path, path);
	else if (err == -ESPIPE)
		log_msg(LOG_ERR, "cannot read %s: it is not a regular file (a FIFO, device or "
			"socket); name an rxe.conf file.", path);
	else
		log_msg(LOG_ERR, "cannot read %s: %s.", path, strerror(-err));
}

int config_load(const char *path, struct rxe_conf *conf)
{
	size_t len;
	char *text;
	int err;

	memset(conf, 0, sizeof(*conf));
	err = config_read_text(path, &text, &len);
	if (err == -ENOENT)
		return err;
	if (err < 0) {
		config_report_read_error(path, err);
		return err;
	}
	err = config_parse_buf(text, len, path, conf);
	free(text);
	return err;
}

void config_free(struct rxe_conf *conf)
{
	free(conf->entries);
	free(conf->path);
	memset(conf, 0, sizeof(*conf));
}

int config_copy(struct rxe_conf *dst, const struct rxe_conf *src)
{
	*dst = *src;
	dst->entries = NULL;
	dst->path = src->path ? strdup(src->path) : NULL;
	if (src->n)
		dst->entries = malloc(src->n * sizeof(*src->entries));
	if ((src->path && !dst->path) || (src->n && !dst->entries)) {
		config_free(dst);
		return -ENOMEM;
	}
	if (src->n)
		memcpy(dst->entries, src->entries, src->n * sizeof(*src->entries));
	return 0;
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
