// SPDX-License-Identifier: GPL-2.0
/* tune_persist.c - `tune --persist`: the sysctl.d file, and the MTU as `mtu =` in the netdev's section of rxe.conf (and its --revert). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config_edit.h"
#include "log.h"
#include "output.h"
#include "rxectl.h"
#include "tune.h"

static int write_sysctl_file(struct rxectl *ctx, const struct tune *t)
{
	FILE *f;
	bool any = false;

	for (size_t i = 0; i < t->n; i++)
		any |= t->v[i].sysctl;
	if (!any)
		return RXECTL_OK;
	mkdir(RXECTL_SYSCONFDIR "/sysctl.d", 0755);
	f = fopen(TUNE_SYSCTL_FILE ".tmp", "w");
	if (!f)
		return log_error(RXECTL_FAIL, "cannot write %s: %s.", TUNE_SYSCTL_FILE, strerror(errno));
	fprintf(f, "# Written by `rxectl tune --apply --persist`; `rxectl tune --revert` removes it.\n");
	for (size_t i = 0; i < t->n; i++) {
		const struct tunable *x = &t->v[i];

		if (x->sysctl)
			fprintf(f, "%s = %s\n", x->id, x->recommended[0] ? x->recommended : x->current);
	}
	if (fclose(f) != 0 || rename(TUNE_SYSCTL_FILE ".tmp", TUNE_SYSCTL_FILE) != 0)
		return log_error(RXECTL_FAIL, "cannot write %s: %s.", TUNE_SYSCTL_FILE, strerror(errno));
	out_str(ctx->out, "sysctl_file", "wrote %s\n", TUNE_SYSCTL_FILE);
	return RXECTL_OK;
}

/*
 * Set `mtu = value` (NULL: remove the line) in the [netdev] section of `path`, under the lock
 * enable and disable take, checked before and after, replaced atomically; every other byte of the
 * file stays.  *old gets the value it had ("" for none); `record`, when not NULL, is the key under
 * which that old value is recorded for --revert before the file changes.  Returns RXECTL_OK,
 * -ENOENT when the file or the section does not exist (nothing printed), or an exit code after
 * saying what is wrong.
 */
static int conf_set_mtu(const char *path, const char *netdev, const char *value, const char *record,
			char *old, size_t oldlen)
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
	if (record && (err = tune_state_record(record, old)) < 0) {
		ret = log_error(RXECTL_FAIL, "cannot record the old `mtu =` of [%s] in %s: %s; %s "
				"was not changed.", netdev, TUNE_STATE, strerror(-err), path);
		goto out;
	}
	err = config_write_atomic(path, edited);
	if (err < 0)
		ret = config_edit_error(RXECTL_FAIL, path, "write", err);
out:
	free(text);
	free(edited);
	close(lock);
	return ret;
}

static int persist_mtu(struct rxectl *ctx, const struct tune *t)
{
	char value[16], record[512], old[16];
	int ret;

	snprintf(value, sizeof(value), "%u", t->mtu_to);
	snprintf(record, sizeof(record), "%s%s:%s", TUNE_CONF_PREFIX, t->netdev, ctx->config_path);
	ret = conf_set_mtu(ctx->config_path, t->netdev, value, record, old, sizeof(old));
	if (ret == -ENOENT) {
		log_warn("the MTU of %s is not persisted: %s declares no [%s] section, and tune "
			 "declares no netdev; add `mtu = %u` under [%s] once it is declared (`rxectl "
			 "enable %s`), or set it where the netdev is configured (systemd-networkd's "
			 "MTUBytes=, /etc/network/interfaces).", t->netdev, ctx->config_path,
			 t->netdev, t->mtu_to, t->netdev, t->netdev);
		out_null(ctx->out, "config_file", NULL);
		return RXECTL_OK;
	}
	if (ret != RXECTL_OK)
		return ret;
	out_obj_begin(ctx->out, "config_mtu");
	out_str(ctx->out, "path", NULL, ctx->config_path);
	out_str(ctx->out, "section", NULL, t->netdev);
	out_uint(ctx->out, "mtu", NULL, t->mtu_to);
	if (old[0])
		out_str(ctx->out, "was", NULL, old);
	else
		out_null(ctx->out, "was", NULL);
	out_obj_end(ctx->out);
	out_text(ctx->out, "wrote mtu = %u under [%s] in %s (`up` and the units apply it)\n",
		 t->mtu_to, t->netdev, ctx->config_path);
	return RXECTL_OK;
}

int tune_persist(struct rxectl *ctx, struct tune *t)
{
	int ret = write_sysctl_file(ctx, t);

	if (ret == RXECTL_OK && t->mtu_to)
		ret = persist_mtu(ctx, t);
	return ret;
}

int tune_conf_restore(struct rxectl *ctx, const char *record, const char *old)
{
	const char *netdev = record + strlen(TUNE_CONF_PREFIX), *path = strchr(netdev, ':');
	char name[IF_NAMESIZE + 1], now[16];
	int ret;

	/* netdev names never hold ':', so the first one ends it */
	if (!path || (size_t)(path - netdev) >= sizeof(name) || path == netdev)
		return log_error(RXECTL_FAIL, "%s holds a record it cannot read ('%s'); remove that "
				 "line by hand.", TUNE_STATE, record);
	snprintf(name, sizeof(name), "%.*s", (int)(path - netdev), netdev);
	path++;
	ret = conf_set_mtu(path, name, old[0] ? old : NULL, NULL, now, sizeof(now));
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
