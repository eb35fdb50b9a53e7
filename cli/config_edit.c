// SPDX-License-Identifier: GPL-2.0
/* config_edit.c - rewrite one [NETDEV] section of rxe.conf, leaving every other byte alone; atomic replace. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "config_edit.h"
#include "config_line.h"
#include "log.h"
#include "rxectl.h"

/* One line of the file: [start, start+len) including its '\n' if any. */
struct line {
	const char *start;
	size_t len;
};

struct lines {
	struct line *v;
	size_t n;
};

static int split_lines(const char *text, struct lines *l)
{
	size_t cap = 16;
	const char *p = text;

	l->n = 0;
	l->v = malloc(cap * sizeof(*l->v));
	if (!l->v)
		return -ENOMEM;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);

		if (l->n == cap) {
			void *q = realloc(l->v, (cap *= 2) * sizeof(*l->v));

			if (!q) {
				free(l->v);
				return -ENOMEM;
			}
			l->v = q;
		}
		l->v[l->n++] = (struct line){ p, len };
		p += len;
	}
	return 0;
}

/* The line's grammar (config_line.h), the same the reader uses. */
static void classify(const struct lines *l, size_t i, struct conf_line *ln)
{
	const struct line *x = &l->v[i];
	size_t len = x->len;

	if (len && x->start[len - 1] == '\n')
		len--;
	config_line_classify(x->start, len, i == 0, ln);
}

static bool is_blank(const struct lines *l, size_t i)
{
	struct conf_line ln;

	classify(l, i, &ln);
	return ln.kind == CONF_LINE_BLANK;
}

static bool is_comment(const struct lines *l, size_t i)
{
	struct conf_line ln;

	classify(l, i, &ln);
	return ln.kind == CONF_LINE_COMMENT;
}

/* Index of the [netdev] header, or l->n; *next gets the index of the next header (or l->n). */
static size_t find_section(const struct lines *l, const char *netdev, size_t *next)
{
	size_t hdr = l->n;

	*next = l->n;
	for (size_t i = 0; i < l->n; i++) {
		struct conf_line ln;

		classify(l, i, &ln);
		if (ln.kind != CONF_LINE_SECTION)
			continue;
		if (hdr != l->n) {
			*next = i;
			break;
		}
		if (config_line_name_is(&ln, netdev))
			hdr = i;
	}
	return hdr;
}

/* A growing output string. */
struct buf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void put(struct buf *b, const char *s, size_t len)
{
	if (b->oom)
		return;
	if (b->len + len + 1 > b->cap) {
		size_t cap = (b->len + len + 1) * 2;
		char *q = realloc(b->s, cap);

		if (!q) {
			b->oom = true;
			return;
		}
		b->s = q;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
}

static void puts_buf(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void put_lines(struct buf *b, const struct lines *l, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		put(b, l->v[i].start, l->v[i].len);
}

static int finish(struct buf *b, const char *text, char **out, bool *changed)
{
	if (!b->s)
		puts_buf(b, "");
	if (b->oom) {
		free(b->s);
		return -ENOMEM;
	}
	*changed = strcmp(b->s, text) != 0;
	*out = b->s;
	return 0;
}

/*
 * Lines hdr+1 .. next-1 of a section: write them with the line of `key` set to "key = value"
 * (replaced where it is, else added right after the header; removed when value is NULL).
 */
static void put_section_with_key(struct buf *b, const struct lines *l, size_t hdr, size_t next,
				 const char *key, const char *value)
{
	size_t at = l->n, vlen = 0;
	const char *v = NULL;

	for (size_t i = hdr + 1; i < next; i++) {
		struct conf_line ln;

		classify(l, i, &ln);
		if (ln.kind == CONF_LINE_KEY && config_line_name_is(&ln, key)) {
			at = i;	/* the reader allows one per section */
			v = ln.value;
			vlen = ln.value_len;
		}
	}
	if (at == l->n) {
		if (value) {
			if (l->v[hdr].start[l->v[hdr].len - 1] != '\n')
				puts_buf(b, "\n");
			puts_buf(b, key);
			puts_buf(b, " = ");
			puts_buf(b, value);
			puts_buf(b, "\n");
		}
		put_lines(b, l, hdr + 1, next);
	} else if (!value || vlen != strlen(value) || strncmp(v, value, vlen)) {
		const struct line *k = &l->v[at];

		put_lines(b, l, hdr + 1, at);
		if (value) {
			puts_buf(b, key);
			puts_buf(b, " = ");
			puts_buf(b, value);
			puts_buf(b, k->start[k->len - 1] == '\n' ? "\n" : "");
		}
		put_lines(b, l, at + 1, next);
	} else {
		put_lines(b, l, hdr + 1, next);
	}
}

int config_text_enable(const char *text, const char *netdev, const char *name,
		       char **out, bool *changed)
{
	struct buf b = { 0 };
	struct lines l;
	size_t hdr, next;
	int err = split_lines(text, &l);

	if (err)
		return err;
	hdr = find_section(&l, netdev, &next);
	if (hdr == l.n) {
		/* A new section at the end, after a blank line. */
		put_lines(&b, &l, 0, l.n);
		if (l.n && l.v[l.n - 1].start[l.v[l.n - 1].len - 1] != '\n')
			puts_buf(&b, "\n");
		if (l.n && !is_blank(&l, l.n - 1))
			puts_buf(&b, "\n");
		puts_buf(&b, "[");
		puts_buf(&b, netdev);
		puts_buf(&b, "]\n");
		if (name) {
			puts_buf(&b, "name = ");
			puts_buf(&b, name);
			puts_buf(&b, "\n");
		}
	} else {
		put_lines(&b, &l, 0, hdr + 1);
		if (name)
			put_section_with_key(&b, &l, hdr, next, "name", name);
		else
			put_lines(&b, &l, hdr + 1, next);
		put_lines(&b, &l, next, l.n);
	}
	free(l.v);
	return finish(&b, text, out, changed);
}

int config_text_set_key(const char *text, const char *netdev, const char *key,
			const char *value, char **out, bool *changed)
{
	struct buf b = { 0 };
	struct lines l;
	size_t hdr, next;
	int err = split_lines(text, &l);

	if (err)
		return err;
	hdr = find_section(&l, netdev, &next);
	if (hdr == l.n) {
		free(l.v);
		return -ENOENT;
	}
	put_lines(&b, &l, 0, hdr + 1);
	put_section_with_key(&b, &l, hdr, next, key, value);
	put_lines(&b, &l, next, l.n);
	free(l.v);
	return finish(&b, text, out, changed);
}

int config_text_disable(const char *text, const char *netdev, char **out, bool *changed)
{
	struct buf b = { 0 };
	struct lines l;
	size_t hdr, next, end, from;
	int err = split_lines(text, &l);

	if (err)
		return err;
	hdr = find_section(&l, netdev, &next);
	if (hdr == l.n) {
		put_lines(&b, &l, 0, l.n);
		free(l.v);
		return finish(&b, text, out, changed);
	}
	/* The section ends after its last line that is neither blank nor a comment. */
	end = next;
	while (end > hdr + 1 && (is_blank(&l, end - 1) || is_comment(&l, end - 1)))
		end--;
	/* Swallow the blank lines that separated it from what came before,
	 * unless that would glue the previous text to the next section. */
	from = hdr;
	while (from > 0 && is_blank(&l, from - 1) && (end == l.n || is_blank(&l, end)))
		from--;
	if (from == hdr && from > 0 && is_blank(&l, from - 1) && end < l.n && is_blank(&l, end))
		end++;	/* keep one blank line between neighbours, not two */
	put_lines(&b, &l, 0, from);
	put_lines(&b, &l, end, l.n);
	free(l.v);
	return finish(&b, text, out, changed);
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t w = write(fd, s, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The directory and base name of the file `path` names (following a symlink). */
static int split_path(const char *path, char *real, char *dir, char *base)
{
	char tmp[PATH_MAX];

	if (!realpath(path, real) && snprintf(real, PATH_MAX, "%s", path) >= PATH_MAX)
		return -ENAMETOOLONG;
	snprintf(tmp, sizeof(tmp), "%s", real);
	snprintf(dir, PATH_MAX, "%s", dirname(tmp));
	snprintf(tmp, sizeof(tmp), "%s", real);
	snprintf(base, NAME_MAX + 1, "%s", basename(tmp));
	return 0;
}

/* Is `name` one of config_write_atomic()'s temporary files of `base` (".BASE.XXXXXX")? */
static bool is_temp_of(const char *name, const char *base)
{
	size_t blen = strlen(base);

	if (name[0] != '.' || strncmp(name + 1, base, blen) || name[1 + blen] != '.')
		return false;
	name += blen + 2;
	return strlen(name) == 6 && strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					   "0123456789") == 6;
}

/*
 * Under the lock no other edit is half done, so a temporary file of ours is a leftover of a
 * process killed mid-write (SIGKILL, a power cut): remove it.
 */
static void remove_stale_temps(int dfd, const char *base)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (is_temp_of(de->d_name, base) && unlinkat(dfd, de->d_name, 0) == 0)
			log_debug("removed %s, left behind by an interrupted edit", de->d_name);
	closedir(d);
}

int config_lock(const char *path)
{
	char real[PATH_MAX], dir[PATH_MAX], base[NAME_MAX + 1];
	struct timespec pause = { .tv_sec = 0, .tv_nsec = 100 * 1000000L };
	int fd, err = split_path(path, real, dir, base);

	if (err)
		return err;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (int i = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; i++) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			err = -errno;
			close(fd);
			return err;
		}
		if (i == 0)
			log_info("waiting for another rxectl to finish editing %s (up to %d s).", real,
				 CONFIG_LOCK_WAIT);
		if (i >= CONFIG_LOCK_WAIT * 10) {
			close(fd);
			return -ETIMEDOUT;
		}
		nanosleep(&pause, NULL);
	}
	remove_stale_temps(fd, base);
	return fd;
}

int config_edit_error(int code, const char *path, const char *doing, int err)
{
	const char *hint = NULL;

	if (err == -ETIMEDOUT)
		return log_error(code, "cannot %s %s: another rxectl (enable, disable or tune "
				 "--persist) has been editing it for %d s; look for a stuck one with "
				 "`pgrep -a rxectl`.", doing, path, CONFIG_LOCK_WAIT);
	if (err == -EFBIG)
		return log_error(code, "cannot %s %s: the edited file would be larger than 1 MiB, "
				 "which rxectl refuses to read; it was not changed.", doing, path);
	if (err == -EROFS)
		hint = "its file system is mounted read-only; remount it read-write, or name "
		       "another file with -c";
	else if ((err == -EACCES || err == -EPERM) && geteuid() != 0)
		hint = "run rxectl as root";
	else if (err == -EPERM)
		hint = "root may not change it, so it (or its directory) is likely immutable or "
		       "append-only: see `lsattr -d` on both, `chattr -i` lifts that";
	else if (err == -EACCES)
		hint = "root may not change it: a security module (SELinux, AppArmor) or the mount "
		       "refuses it";
	return log_error(code, "cannot %s %s: %s%s%s.", doing, path, strerror(-err),
			 hint ? "; " : "", hint ? hint : "");
}

int config_write_atomic(const char *path, const char *text)
{
	char real[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + NAME_MAX + 16], base[NAME_MAX + 1];
	sigset_t block, saved;
	struct stat st;
	bool existed;
	int fd, dfd, err;

	if (strlen(text) > RXE_CONF_FILE_MAX)
		return -EFBIG;	/* the reader would refuse it */
	err = split_path(path, real, dir, base);	/* edit the file a symlink points to */
	if (err)
		return err;
	path = real;
	existed = stat(path, &st) == 0;
	if (!existed && mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, base);
	/* A signal between creating the temporary file and its rename or unlink would leave it
	 * behind: the usual ones wait until it is gone (config_lock() removes what SIGKILL left). */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigaddset(&block, SIGPIPE);
	sigprocmask(SIG_BLOCK, &block, &saved);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		sigprocmask(SIG_SETMASK, &saved, NULL);
		return err;
	}
	if (existed) {
		if (fchmod(fd, st.st_mode & 07777) < 0 ||
		    (fchown(fd, st.st_uid, st.st_gid) < 0 && errno != EPERM)) {
			err = -errno;
			goto fail;
		}
	} else if (fchmod(fd, 0644) < 0) {
		err = -errno;
		goto fail;
	}
	err = write_all(fd, text, strlen(text));
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	fd = -1;
	if (err)
		goto fail;
	if (rename(tmp, path) < 0) {
		err = -errno;
		goto fail;
	}
	sigprocmask(SIG_SETMASK, &saved, NULL);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	return err;
}

int config_file_set_mtu(const char *path, const char *netdev, const char *value, char *old,
			size_t oldlen, config_before_write_fn before_write, void *arg)
{
	const struct rxe_conf_entry *e;
	struct rxe_conf conf, check;
	char *text = NULL, *edited = NULL;
	bool changed = false;
	size_t len = 0;
	int lock, err, ret = RXECTL_OK;

	old[0] = '\0';
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return -ENOENT;	/* neither the file nor its directory is created */
	lock = config_lock(path);
	if (lock < 0)
		return config_edit_error(RXECTL_FAIL, path, "lock for editing", lock);
	err = config_read_text(path, &text, &len);
	if (err == -ENOENT) {
		ret = -ENOENT;
		goto out;
	}
	if (err < 0) {
		config_report_read_error(path, err);
		ret = RXECTL_USAGE;
		goto out;
	}
	if (config_parse_buf(text, len, path, &conf) < 0) {
		log_msg(LOG_ERR, "%s was not changed; fix the line above first.", path);
		ret = RXECTL_USAGE;
		goto out;
	}
	e = config_find_netdev(&conf, netdev);
	if (e && e->mtu)
		snprintf(old, oldlen, "%u", e->mtu);
	config_free(&conf);
	if (!e) {
		ret = -ENOENT;
		goto out;
	}
	err = config_text_set_key(text, netdev, "mtu", value, &edited, &changed);
	if (err < 0) {
		ret = log_error(RXECTL_FAIL, "cannot edit %s: %s.", path, strerror(-err));
		goto out;
	}
	if (!changed)
		goto out;
	if (config_parse_string(edited, path, &check) < 0) {
		ret = log_error(RXECTL_FAIL, "the edited %s would not parse, so it was not written; "
				"please report this as a bug.", path);
		goto out;
	}
	config_free(&check);
	if (before_write && (ret = before_write(path, netdev, old, arg)) != RXECTL_OK)
		goto out;
	err = config_write_atomic(path, edited);
	if (err < 0)
		ret = config_edit_error(RXECTL_FAIL, path, "write", err);
out:
	free(text);
	free(edited);
	close(lock);
	return ret;
}
