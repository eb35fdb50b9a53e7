// SPDX-License-Identifier: GPL-2.0
/* cmd_gid.c - `rxectl gid [DEVICE] [--json] [--index-only]`: the GID table and the index to use. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "log.h"
#include "output.h"
#include "rxe.h"

/* The netdev a GID entry belongs to, by ifindex; "" if unknown. */
static void gid_netdev(struct rxectl *ctx, const struct verbs_gid *g, char *buf, size_t len)
{
	struct netdev_ctx *nd = g->ndev_ifindex ? ctx_netdev(ctx) : NULL;
	struct netdev_info ni;

	buf[0] = '\0';
	if (nd && netdev_get_by_index(nd, (int)g->ndev_ifindex, &ni) == 0)
		snprintf(buf, len, "%s", ni.name);
}

static int print_table(struct rxectl *ctx, const struct rxe_dev *d, const struct rxe_details *det)
{
	struct output *o = ctx->out;
	const struct verbs_gid *rec = NULL;

	for (size_t i = 0; i < det->port.n_gids; i++)
		if ((int)det->port.gids[i].index == det->gid_index)
			rec = &det->port.gids[i];
	out_obj_begin(o, NULL);
	out_str(o, "name", "%s", d->name);
	if (d->netdev[0])
		out_str(o, "netdev", " on %s", d->netdev);
	else
		out_null(o, "netdev", " (its netdev is gone)");
	out_uint(o, "port", NULL, d->port);
	if (rec) {
		out_int(o, "gid_index", ": use GID index %lld", det->gid_index);
		out_text(o, " (%s, %s): `-x %d` for perftest, `-g %d` for ibv_rc_pingpong\n",
			 gid_type_str(rec->type), rec->ip, det->gid_index, det->gid_index);
	} else {
		out_null(o, "gid_index", ": no RoCE v2 GID maps to an IP address of the netdev; "
			 "add one with `ip addr add ADDRESS/PREFIX dev NETDEV`\n");
	}
	out_text(o, "  %-5s %-39s %-8s %-15s %s\n", "INDEX", "GID", "TYPE", "NETDEV", "IP");
	out_arr_begin(o, "gids");
	for (size_t i = 0; i < det->port.n_gids; i++) {
		const struct verbs_gid *g = &det->port.gids[i];
		char nd[IF_NAMESIZE];

		gid_netdev(ctx, g, nd, sizeof(nd));
		out_obj_begin(o, NULL);
		out_text(o, "%s", g == rec ? "* " : "  ");
		out_uint(o, "index", "%-5llu ", g->index);
		out_str(o, "gid", "%-39s ", g->gid);
		out_str(o, "type", "%-8s ", gid_type_str(g->type));
		if (nd[0])
			out_str(o, "netdev", "%-15s ", nd);
		else
			out_null(o, "netdev", "-               ");
		out_str(o, "ip", "%s\n", g->ip);
		out_bool(o, "recommended", NULL, g == rec);
		out_obj_end(o);
	}
	out_arr_end(o);
	if (det->port.n_gids == 0)
		out_text(o, "  (the GID table is empty)\n");
	out_obj_end(o);
	return RXECTL_OK;
}

enum { GID_INDEX_ONLY = 1 };
const struct opt_spec cmd_gid_opts[] = {
	{ "index-only", 0, NULL, "print only the GID index applications should use", NULL,
	  GID_INDEX_ONLY },
	{ NULL },
};

int cmd_gid(struct rxectl *ctx, int argc, char **argv)
{
	bool index_only = false;
	struct rxe_details det;
	struct rxe_dev dev;
	struct opts o;
	int opt, ret;

	opts_init(&o, ctx, "gid", cmd_gid_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
		if (opt == GID_INDEX_ONLY)
			index_only = true;
	}
	if (o.npos > 1)
		return rxectl_usage_error("gid", "gid takes at most one device, but got '%s' too.",
					  argv[2]);

	if (index_only || o.npos) {
		ret = diag_pick_device(ctx, "gid", o.npos ? argv[1] : NULL, &dev);
		if (ret != RXECTL_OK)
			return ret;
		ret = diag_describe(ctx, &dev, &det);
		if (ret != RXECTL_OK)
			return ret;
		if (index_only) {
			if (det.gid_index < 0) {
				rxe_details_free(&det);
				return log_error(RXECTL_FAIL, "%s has no RoCE v2 GID for an IP address of "
						 "%s; add one with `ip addr add ADDRESS/PREFIX dev %s`.",
						 dev.name, dev.netdev[0] ? dev.netdev : "its netdev",
						 dev.netdev[0] ? dev.netdev : "NETDEV");
			}
			out_obj_begin(ctx->out, NULL);
			out_int(ctx->out, "gid_index", "%lld\n", det.gid_index);
			out_obj_end(ctx->out);
			rxe_details_free(&det);
			return RXECTL_OK;
		}
		out_obj_begin(ctx->out, NULL);
		out_arr_begin(ctx->out, "devices");
		ret = print_table(ctx, &dev, &det);
		out_arr_end(ctx->out);
		out_obj_end(ctx->out);
		rxe_details_free(&det);
		return ret;
	}

	/* No device named: every rxe device. */
	struct rxe_dev *devs = NULL;
	size_t n = 0;

	if (rxe_list(ctx, &devs, &n) < 0)
		return RXECTL_FAIL;
	if (n == 0) {
		free(devs);
		return log_error(RXECTL_FAIL, "there is no rxe device; create one with `rxectl up "
				 "NETDEV`.");
	}
	ret = RXECTL_OK;
	out_obj_begin(ctx->out, NULL);
	out_arr_begin(ctx->out, "devices");
	for (size_t i = 0; i < n; i++) {
		if (diag_describe(ctx, &devs[i], &det) != RXECTL_OK) {
			ret = RXECTL_FAIL;
			continue;
		}
		if (i)
			out_text(ctx->out, "\n");
		print_table(ctx, &devs[i], &det);
		rxe_details_free(&det);
	}
	out_arr_end(ctx->out);
	out_obj_end(ctx->out);
	free(devs);
	return ret;
}
