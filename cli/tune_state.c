// SPDX-License-Identifier: GPL-2.0
/* tune_state.c - tune.state, the record of what `tune --apply`/`--persist` changed: write, read, and revert both kinds. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_edit.h"
#include "log.h"
#include "output.h"
#include "rxectl.h"
#include "tune.h"
#include "tune_state.h"
#include "util.h"

#ifndef RXECTL_RUNSTATEDIR
#define RXECTL_RUNSTATEDIR "/run"
#endif
#define TUNE_STATE_DIR RXECTL_RUNSTATEDIR "/rxectl"
#define TUNE_STATE TUNE_STATE_DIR "/tune.state"
#define TUNE_CONF_PREFIX "rxe.conf:"	/* the key of an `mtu =` record: rxe.conf:NETDEV:FILE */

const char *tune_state_path(void)
{
	return TUNE_STATE;
}

/* One record: its key (a file, or TUNE_CONF_PREFIX "NETDEV:FILE") and the old value. */
struct record {
	char key[512];
	char old[64];
};

/* Every record in the order written; *n 0 when there is no file.  0, or -errno. */
static int read_records(struct record **out, size_t *n)
{
	struct record *v = NULL;
	size_t cap = 0;
	char line[512];
	FILE *f = fopen(TUNE_STATE, "re");

	*out = NULL;
	*n = 0;
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');

		line[strcspn(line, "\n")] = '\0';
		if (!tab)
			continue;
		*tab = '\0';
		if (*n == cap) {
			void *q = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));

			if (!q) {
				fclose(f);
				free(v);
				return -ENOMEM;
			}
			v = q;
		}
		snprintf(v[*n].key, sizeof(v[*n].key), "%s", line);
		snprintf(v[*n].old, sizeof(v[*n].old), "%s", tab + 1);
		(*n)++;
	}
	fclose(f);
	*out = v;
	return 0;
}

static bool recorded(const char *key)
{
	struct record *v;
	size_t n;
	bool found = false;

	if (read_records(&v, &n) < 0)
		return false;
	for (size_t i = 0; i < n && !found; i++)
		found = !strcmp(v[i].key, key);
	free(v);
	return found;
}

/* Append "key<TAB>old" unless `key` is recorded already (the first value is the one to go back
 * to): 0 or -errno. */
static int record(const char *key, const char *old)
{
	FILE *f;
	int err = 0;

	if (recorded(key))
		return 0;
	mkdir(TUNE_STATE_DIR, 0755);
	f = fopen(TUNE_STATE, "ae");
	if (!f)
		return -errno;
	if (fprintf(f, "%s\t%s\n", key, old) < 0)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	return err;
}

int tune_state_record_value(const char *path, const char *old)
{
	return record(path, old);
}

int tune_state_record_conf(const char *netdev, const char *conf_path, const char *old)
{
	char key[512];
	int err;

	snprintf(key, sizeof(key), "%s%s:%s", TUNE_CONF_PREFIX, netdev, conf_path);
	err = record(key, old);
	if (err < 0)
		return log_error(RXECTL_FAIL, "cannot record the old `mtu =` of [%s] in %s: %s; %s "
				 "was not changed.", netdev, TUNE_STATE, strerror(-err), conf_path);
	return RXECTL_OK;
}

/* --revert of an `mtu =` record: the line set back to `old` ("" removes it); RXECTL_*. */
static int restore_conf(struct rxectl *ctx, const char *key, const char *old)
{
	const char *netdev = key + strlen(TUNE_CONF_PREFIX), *path = strchr(netdev, ':');
	char name[IF_NAMESIZE + 1], now[16];
	int ret;

	/* netdev names never hold ':', so the first one ends it */
	if (!path || (size_t)(path - netdev) >= sizeof(name) || path == netdev)
		return log_error(RXECTL_FAIL, "%s holds a record it cannot read ('%s'); remove that "
				 "line by hand.", TUNE_STATE, key);
	snprintf(name, sizeof(name), "%.*s", (int)(path - netdev), netdev);
	path++;
	ret = config_file_set_mtu(path, name, old[0] ? old : NULL, now, sizeof(now), NULL, NULL);
	if (ret == -ENOENT) {
		log_warn("%s has no [%s] section any more, so its `mtu =` was left as it is.", path,
			 name);
		return RXECTL_OK;
	}
	if (ret != RXECTL_OK)
		return ret;
	out_obj_begin(ctx->out, NULL);
	out_str(ctx->out, "path", NULL, path);
	out_str(ctx->out, "section", NULL, name);
	out_text(ctx->out, "restored mtu = under [%s] in %s", name, path);
	if (now[0])
		out_str(ctx->out, "from", ": %s", now);
	else
		out_null(ctx->out, "from", ": (none)");
	if (old[0])
		out_str(ctx->out, "to", " -> %s\n", old);
	else
		out_null(ctx->out, "to", " -> (none: the line is removed)\n");
	out_obj_end(ctx->out);
	return RXECTL_OK;
}

/* --revert of a file record: the old value written back; RXECTL_*. */
static int restore_value(struct rxectl *ctx, const char *path, const char *old)
{
	char now[64] = "";
	FILE *f = fopen(path, "re");
	int err;

	if (f) {
		if (!fgets(now, sizeof(now), f))
			now[0] = '\0';
		fclose(f);
		now[strcspn(now, "\n")] = '\0';
		for (char *p = now; *p; p++)	/* sysctls with several values use tabs */
			if (*p == '\t')
				*p = ' ';
	}
	err = write_line(path, old);
	if (err < 0)
		return log_error(RXECTL_FAIL, "restoring %s to %s failed: %s.", path, old,
				 strerror(-err));
	out_obj_begin(ctx->out, NULL);
	out_str(ctx->out, "path", "restored %s", path);
	out_str(ctx->out, "from", ": %s", now);
	out_str(ctx->out, "to", " -> %s\n", old);
	out_obj_end(ctx->out);
	return RXECTL_OK;
}

int tune_revert(struct rxectl *ctx)
{
	struct output *o = ctx->out;
	struct record *v;
	size_t n;
	int ret = RXECTL_OK, err = read_records(&v, &n);
	bool removed = false;

	if (err == -ENOMEM)
		return log_error(RXECTL_FAIL, "out of memory.");
	if (err < 0)
		return log_error(RXECTL_FAIL, "cannot read %s: %s.", TUNE_STATE, strerror(-err));
	out_obj_begin(o, NULL);
	out_arr_begin(o, "restored");
	for (size_t i = n; i-- > 0;) {
		bool conf = !strncmp(v[i].key, TUNE_CONF_PREFIX, strlen(TUNE_CONF_PREFIX));

		if ((conf ? restore_conf(ctx, v[i].key, v[i].old) :
		     restore_value(ctx, v[i].key, v[i].old)) != RXECTL_OK)
			ret = RXECTL_FAIL;
	}
	out_arr_end(o);
	if (unlink(TUNE_SYSCTL_FILE) == 0) {
		removed = true;
		out_text(o, "removed %s\n", TUNE_SYSCTL_FILE);
	}
	out_bool(o, "sysctl_file_removed", NULL, removed);
	if (n == 0 && !removed)
		out_text(o, "nothing to revert: `rxectl tune --apply` recorded nothing (%s).\n",
			 TUNE_STATE);
	out_obj_end(o);
	if (ret == RXECTL_OK)
		unlink(TUNE_STATE);
	free(v);
	return ret;
}
