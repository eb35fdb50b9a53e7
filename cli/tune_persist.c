// SPDX-License-Identifier: GPL-2.0
/* tune_persist.c - `tune --persist`: the sysctl.d file, and the MTU as `mtu =` in the netdev's section of rxe.conf. */
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
#include "tune_state.h"

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

/* config_file_set_mtu()'s hook: the old `mtu =` is recorded before the file changes. */
static int record_old_mtu(const char *path, const char *netdev, const char *old, void *arg)
{
	return tune_state_record_conf(netdev, path, old);
}

static int persist_mtu(struct rxectl *ctx, const struct tune *t)
{
	char value[16], old[16];
	int ret;

	snprintf(value, sizeof(value), "%u", t->mtu_to);
	ret = config_file_set_mtu(ctx->config_path, t->netdev, value, old, sizeof(old),
				  record_old_mtu, NULL);
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
