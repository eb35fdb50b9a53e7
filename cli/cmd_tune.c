// SPDX-License-Identifier: GPL-2.0
/* cmd_tune.c - `rxectl tune [NETDEV] [--apply [--persist | --from-config]] | --revert`: the table, and the choice of netdev. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "doctor.h"
#include "log.h"
#include "names.h"
#include "netdev.h"
#include "output.h"
#include "rxe.h"
#include "tune.h"
#include "tune_state.h"
#include "util.h"

static void print_table(struct rxectl *ctx, const struct tune *t)
{
	struct output *o = ctx->out;

	out_text(o, "%-24s %-12s %-12s %s\n", "TUNABLE", "CURRENT", "RECOMMENDED", "WHY");
	out_arr_begin(o, "tunables");
	for (size_t i = 0; i < t->n; i++) {
		const struct tunable *x = &t->v[i];

		out_obj_begin(o, NULL);
		out_str(o, "id", "%-24s ", x->id);
		if (x->path[0])
			out_str(o, "path", NULL, x->path);
		else
			out_null(o, "path", NULL);
		if (x->current[0])
			out_str(o, "current", "%-12s ", x->current);
		else
			out_null(o, "current", "-            ");
		if (x->recommended[0])
			out_str(o, "recommended", "%-12s ", x->recommended);
		else
			out_null(o, "recommended", "(keep)       ");
		out_str(o, "why", "%s\n", x->why);
		out_obj_end(o);
	}
	out_arr_end(o);
}

/* NETDEV given, or the netdev of the only rxe device, or the only configured netdev. */
static int pick_netdev(struct rxectl *ctx, const char *arg, char *out, size_t len)
{
	struct rxe_dev *devs = NULL;
	struct rxe_conf conf;
	size_t n = 0;
	int ret;

	if (arg) {
		if (netdev_name_invalid(arg))
			return rxectl_usage_error("tune", "'%s' is not a valid netdev name.", arg);
		snprintf(out, len, "%s", arg);
		return RXECTL_OK;
	}
	if (access("/sys/module/rdma_rxe", F_OK) == 0 && ctx_rdma_nl(ctx) &&
	    rxe_list(ctx, &devs, &n) == 0 && n == 1 && devs[0].netdev[0]) {
		snprintf(out, len, "%s", devs[0].netdev);
		free(devs);
		return RXECTL_OK;
	}
	free(devs);
	ret = ctx_load_config(ctx, &conf);
	if (ret != RXECTL_OK)
		return ret;
	if (conf.n == 1) {
		snprintf(out, len, "%s", conf.entries[0].netdev);
		config_free(&conf);
		return RXECTL_OK;
	}
	config_free(&conf);
	return rxectl_usage_error("tune", "name the netdev to tune: there is not exactly one rxe "
				  "device or configured netdev to pick.");
}

/*
 * --apply --from-config, rxe@.service's unsandboxed ExecStartPre= hook: what `up` does for
 * `tune = yes` (every recommendation but the MTU, which is `mtu =`'s), nothing when rxe.conf
 * does not say tune = yes.
 */
static bool netdev_present(const char *netdev)
{
	char p[128];

	if (access("/sys/class/net", F_OK) != 0)
		return true;	/* no sysfs to ask: let the tunables' paths tell */
	snprintf(p, sizeof(p), "/sys/class/net/%s", netdev);
	return access(p, F_OK) == 0;
}

static int apply_from_config(struct rxectl *ctx, const char *netdev)
{
	static struct tune t;
	struct rxe_conf conf;
	bool tune;
	int ret;

	ret = ctx_load_config(ctx, &conf);
	if (ret != RXECTL_OK)
		return ret;
	tune = conf.tune;
	config_free(&conf);
	out_obj_begin(ctx->out, NULL);
	out_str(ctx->out, "netdev", NULL, netdev);
	out_bool(ctx->out, "applied", NULL, tune && netdev_present(netdev));
	if (!tune) {
		out_arr_begin(ctx->out, "changed");
		out_arr_end(ctx->out);
		out_text(ctx->out, "%s does not say tune = yes: nothing changed.\n",
			 ctx->config_path);
		out_obj_end(ctx->out);
		return RXECTL_OK;
	}
	if (!netdev_present(netdev)) {
		out_arr_begin(ctx->out, "changed");
		out_arr_end(ctx->out);
		out_obj_end(ctx->out);
		log_warn("netdev %s went away; nothing tuned (it is when it appears again).", netdev);
		return RXECTL_GONE;
	}
	tune_gather(&t, netdev);
	for (size_t i = 0; i < t.n; i++)
		if (!strcmp(t.v[i].id, "mtu"))
			t.v[i].recommended[0] = '\0';
	t.mtu_to = 0;
	out_text(ctx->out, "tuning %s, as %s says tune = yes (not the MTU: that is `mtu =`)\n",
		 netdev, ctx->config_path);
	ret = tune_apply(ctx, &t);
	out_obj_end(ctx->out);
	return ret;
}

enum { TUNE_APPLY = 1, TUNE_PERSIST, TUNE_REVERT, TUNE_FROM_CONFIG };
const struct opt_spec cmd_tune_opts[] = {
	{ "apply",   0, NULL, "change each value to the recommended one, printing each change",
	  NULL, TUNE_APPLY },
	{ "persist", 0, NULL, "with --apply: keep them across reboots (sysctl.d, rxe.conf's mtu =)", NULL,
	  TUNE_PERSIST },
	{ "revert",  0, NULL, "restore every value --apply changed", NULL, TUNE_REVERT },
	{ "from-config", 0, NULL, "with --apply: only if rxe.conf says tune = yes, and not the "
	  "MTU (rxe@.service's hook)", NULL, TUNE_FROM_CONFIG },
	{ NULL },
};

int cmd_tune(struct rxectl *ctx, int argc, char **argv)
{
	static struct tune t;
	bool apply = false, persist = false, revert = false, from_config = false;
	char netdev[IF_NAMESIZE];
	struct opts o;
	int opt, ret;

	opts_init(&o, ctx, "tune", cmd_tune_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		switch (opt) {
		case OPTS_HELP:
			return RXECTL_OK;
		case OPTS_ERROR:
			return RXECTL_USAGE;
		case TUNE_APPLY:
			apply = true;
			break;
		case TUNE_PERSIST:
			persist = true;
			break;
		case TUNE_REVERT:
			revert = true;
			break;
		case TUNE_FROM_CONFIG:
			from_config = true;
			break;
		}
	}
	if (revert && (apply || persist))
		return rxectl_usage_error("tune", "--revert undoes --apply; give one of them.");
	if (persist && !apply)
		return rxectl_usage_error("tune", "--persist goes with --apply: it keeps what "
					  "--apply changes.");
	if (from_config && (!apply || persist))
		return rxectl_usage_error("tune", "--from-config goes with --apply alone: it applies "
					  "what rxe.conf's tune = yes asks for, for this boot.");
	if (o.npos > 1)
		return rxectl_usage_error("tune", "tune takes at most one NETDEV, but got '%s' too.",
					  argv[2]);
	if (revert) {
		if (o.npos)
			return rxectl_usage_error("tune", "--revert restores everything --apply "
						  "recorded; it takes no NETDEV.");
		return tune_revert(ctx);
	}
	ret = pick_netdev(ctx, o.npos ? argv[1] : NULL, netdev, sizeof(netdev));
	if (ret != RXECTL_OK)
		return ret;
	/* The unit's hook: rxe.conf decides first, and a netdev gone meanwhile is churn. */
	if (from_config)
		return apply_from_config(ctx, netdev);
	if (!netdev_present(netdev))
		return log_error(RXECTL_FAIL, "netdev %s does not exist; check the name with "
				 "`ip link`.", netdev);
	if (persist) {
		/* --persist edits rxe.conf: a broken one stops it before anything changes */
		struct rxe_conf conf;

		ret = ctx_load_config(ctx, &conf);
		if (ret != RXECTL_OK)
			return ret;
		config_free(&conf);
	}
	tune_gather(&t, netdev);

	out_obj_begin(ctx->out, NULL);
	out_str(ctx->out, "netdev", "tuning for %s", netdev);
	out_bool(ctx->out, "applied", apply ? " (applying)\n" : " (nothing changes without "
		 "--apply)\n", apply);
	print_table(ctx, &t);
	ret = RXECTL_OK;
	if (apply)
		ret = tune_apply(ctx, &t);
	if (ret == RXECTL_OK && persist)
		ret = tune_persist(ctx, &t);
	out_obj_end(ctx->out);
	return ret;
}
